/*
 * attr_api.c - the MPI attribute-caching functions on the core of attr.c:
 * communicator keyvals and attributes (MPI_Comm_*_keyval, _set_attr,
 * _get_attr, _delete_attr), the same for datatypes (MPI_Type_*), the
 * deprecated MPI-1 names (MPI_Keyval_create/free, MPI_Attr_put/get/
 * delete), and the predefined callbacks (MPI_COMM_NULL_COPY_FN,
 * MPI_COMM_DUP_FN, ... MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN).
 *
 * Errors: a bad communicator or datatype as usual; a bad or foreign
 * keyval, a freed one whose last attribute has gone (attr.h), or a
 * predefined one where it may not be set, deleted or freed:
 * MPI_ERR_KEYVAL; NULL out-parameters: MPI_ERR_ARG; a callback's
 * failure: its own code. Communicator functions raise on the
 * communicator's handler, the others on MPI_COMM_WORLD's. Window keyvals
 * (MPI_Win_create_keyval / _free_keyval, MPI_WIN_NULL_COPY_FN, ...) are
 * here too; the window attribute calls are rma's (rma_api.c) on the
 * generic bodies rc_attr_api_*.
 */
#include <string.h>
#include "api.h"
#include "attr.h"
#include "dtype.h"
#include "thread.h"

typedef void (*rc_fn)(void);

/* ---- predefined callbacks ------------------------------------------------ */

int rc_mpi_comm_null_copy_fn(MPI_Comm oldcomm, int keyval, void *extra,
			     void *in, void *out, int *flag)
{
	(void)oldcomm, (void)keyval, (void)extra, (void)in, (void)out;
	*flag = 0;
	return MPI_SUCCESS;
}

int rc_mpi_comm_dup_fn(MPI_Comm oldcomm, int keyval, void *extra, void *in,
		       void *out, int *flag)
{
	(void)oldcomm, (void)keyval, (void)extra;
	memcpy(out, &in, sizeof(in));
	*flag = 1;
	return MPI_SUCCESS;
}

int rc_mpi_comm_null_delete_fn(MPI_Comm comm, int keyval, void *val,
			       void *extra)
{
	(void)comm, (void)keyval, (void)val, (void)extra;
	return MPI_SUCCESS;
}

int rc_mpi_type_null_copy_fn(MPI_Datatype oldtype, int keyval, void *extra,
			     void *in, void *out, int *flag)
{
	(void)oldtype, (void)keyval, (void)extra, (void)in, (void)out;
	*flag = 0;
	return MPI_SUCCESS;
}

int rc_mpi_type_dup_fn(MPI_Datatype oldtype, int keyval, void *extra, void *in,
		       void *out, int *flag)
{
	(void)oldtype, (void)keyval, (void)extra;
	memcpy(out, &in, sizeof(in));
	*flag = 1;
	return MPI_SUCCESS;
}

int rc_mpi_type_null_delete_fn(MPI_Datatype type, int keyval, void *val,
			       void *extra)
{
	(void)type, (void)keyval, (void)val, (void)extra;
	return MPI_SUCCESS;
}

int rc_mpi_win_null_copy_fn(MPI_Win oldwin, int keyval, void *extra, void *in,
			    void *out, int *flag)
{
	(void)oldwin, (void)keyval, (void)extra, (void)in, (void)out;
	*flag = 0;
	return MPI_SUCCESS;
}

int rc_mpi_win_dup_fn(MPI_Win oldwin, int keyval, void *extra, void *in,
		      void *out, int *flag)
{
	(void)oldwin, (void)keyval, (void)extra;
	memcpy(out, &in, sizeof(in));
	*flag = 1;
	return MPI_SUCCESS;
}

int rc_mpi_win_null_delete_fn(MPI_Win win, int keyval, void *val, void *extra)
{
	(void)win, (void)keyval, (void)val, (void)extra;
	return MPI_SUCCESS;
}

/* ---- shared bodies --------------------------------------------------------
 */

/* The keyval of kind, or raise MPI_ERR_KEYVAL on comm. */
static int kv_get(struct rc_comm *comm, enum rc_akind kind, int keyval,
		  struct rc_keyval **kvp, const char *fn)
{
	char why[128];

	if (rc_keyval_lookup(kind, keyval, kvp, why, sizeof(why)))
		return RC_ERR_MSG(comm, MPI_ERR_KEYVAL, fn, why);
	return MPI_SUCCESS;
}

static int keyval_create(enum rc_akind kind, rc_fn copy, rc_fn del, int *keyval,
			 void *extra, const char *fn)
{
	RC_API_CHECK_INIT(fn);
	if (!keyval)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "keyval is NULL");
	if (rc_keyval_create(kind, copy, del, extra, keyval))
		return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
	return MPI_SUCCESS;
}

static int keyval_free(enum rc_akind kind, int *keyval, const char *fn)
{
	struct rc_keyval *kv;
	int err;

	RC_API_CHECK_INIT(fn);
	if (!keyval)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "keyval is NULL");
	err = kv_get(NULL, kind, *keyval, &kv, fn);
	if (err)
		return err;
	if (kv->predefined)
		return RC_ERR_MSG(NULL, MPI_ERR_KEYVAL, fn,
				  "cannot free a predefined keyval");
	rc_keyval_free(kv);
	*keyval = MPI_KEYVAL_INVALID;
	return MPI_SUCCESS;
}

int rc_attr_api_set(const struct rc_attr_obj *o, int keyval, void *val,
		    const char *fn)
{
	struct rc_keyval *kv;
	int err;

	err = kv_get(o->ecomm, o->kind, keyval, &kv, fn);
	if (err)
		return err;
	if (kv->predefined)
		return RC_ERR_MSG(o->ecomm, MPI_ERR_KEYVAL, fn,
				  "a predefined attribute cannot be set");
	err = rc_attr_set(o->kind, o->handle, o->list, kv, val);
	return err ? RC_ERR(o->ecomm, err, fn) : MPI_SUCCESS;
}

int rc_attr_api_get(const struct rc_attr_obj *o, int keyval, void *val,
		    int *flag, const char *fn)
{
	struct rc_keyval *kv;
	void *v = NULL;
	int err;

	if (!val || !flag)
		return RC_ERR_MSG(o->ecomm, MPI_ERR_ARG, fn,
				  !flag ? "flag is NULL"
					: "attribute_val is NULL");
	err = kv_get(o->ecomm, o->kind, keyval, &kv, fn);
	if (err)
		return err;
	if (kv->predefined && o->predef) {
		v = o->predef(o->handle, keyval);
		*flag = v != NULL;
	} else {
		*flag = rc_attr_get(*o->list, kv, &v);
	}
	if (*flag)
		memcpy(val, &v, sizeof(v));
	return MPI_SUCCESS;
}

int rc_attr_api_delete(const struct rc_attr_obj *o, int keyval, const char *fn)
{
	struct rc_keyval *kv;
	int err;

	err = kv_get(o->ecomm, o->kind, keyval, &kv, fn);
	if (err)
		return err;
	if (kv->predefined)
		return RC_ERR_MSG(o->ecomm, MPI_ERR_KEYVAL, fn,
				  "a predefined attribute cannot be deleted");
	err = rc_attr_delete(o->kind, o->handle, o->list, kv);
	return err ? RC_ERR(o->ecomm, err, fn) : MPI_SUCCESS;
}

/* ---- communicators ------------------------------------------------------- */

static void *comm_predef(void *handle, int keyval)
{
	return rc_comm_predef_attr(handle, keyval);
}

static int comm_obj(MPI_Comm comm, struct rc_attr_obj *o, const char *fn)
{
	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	*o = (struct rc_attr_obj){RC_AK_COMM, comm, &comm->attrs, comm,
				  comm_predef};
	return MPI_SUCCESS;
}

static int comm_set_attr(MPI_Comm comm, int keyval, void *val, const char *fn)
{
	struct rc_attr_obj o;
	int err = comm_obj(comm, &o, fn);

	return err ? err : rc_attr_api_set(&o, keyval, val, fn);
}

static int comm_get_attr(MPI_Comm comm, int keyval, void *val, int *flag,
			 const char *fn)
{
	struct rc_attr_obj o;
	int err = comm_obj(comm, &o, fn);

	return err ? err : rc_attr_api_get(&o, keyval, val, flag, fn);
}

static int comm_delete_attr(MPI_Comm comm, int keyval, const char *fn)
{
	struct rc_attr_obj o;
	int err = comm_obj(comm, &o, fn);

	return err ? err : rc_attr_api_delete(&o, keyval, fn);
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
			    MPI_Comm_delete_attr_function *delete_fn,
			    int *keyval, void *extra_state)
{
	return RC_CS_CALL(&rc_cs_big,
			  keyval_create(RC_AK_COMM, (rc_fn)copy_fn,
					(rc_fn)delete_fn, keyval, extra_state,
					"MPI_Comm_create_keyval"));
}
RC_WEAK(MPI_Comm_create_keyval)

int PMPI_Comm_free_keyval(int *keyval)
{
	return RC_CS_CALL(&rc_cs_big, keyval_free(RC_AK_COMM, keyval,
						  "MPI_Comm_free_keyval"));
}
RC_WEAK(MPI_Comm_free_keyval)

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void *attribute_val)
{
	return RC_CS_CALL(&rc_cs_big, comm_set_attr(comm, keyval, attribute_val,
						    "MPI_Comm_set_attr"));
}
RC_WEAK(MPI_Comm_set_attr)

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val,
		       int *flag)
{
	return RC_CS_CALL(&rc_cs_big, comm_get_attr(comm, keyval, attribute_val,
						    flag, "MPI_Comm_get_attr"));
}
RC_WEAK(MPI_Comm_get_attr)

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
	return RC_CS_CALL(&rc_cs_big, comm_delete_attr(comm, keyval,
						       "MPI_Comm_delete_attr"));
}
RC_WEAK(MPI_Comm_delete_attr)

/* The MPI-1 names (deprecated, still in MPI-3.1): the same functions. */
int PMPI_Keyval_create(MPI_Copy_function *copy_fn,
		       MPI_Delete_function *delete_fn, int *keyval,
		       void *extra_state)
{
	return RC_CS_CALL(&rc_cs_big,
			  keyval_create(RC_AK_COMM, (rc_fn)copy_fn,
					(rc_fn)delete_fn, keyval, extra_state,
					"MPI_Keyval_create"));
}
RC_WEAK(MPI_Keyval_create)

int PMPI_Keyval_free(int *keyval)
{
	return RC_CS_CALL(&rc_cs_big,
			  keyval_free(RC_AK_COMM, keyval, "MPI_Keyval_free"));
}
RC_WEAK(MPI_Keyval_free)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
	return RC_CS_CALL(&rc_cs_big, comm_set_attr(comm, keyval, attribute_val,
						    "MPI_Attr_put"));
}
RC_WEAK(MPI_Attr_put)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
	return RC_CS_CALL(&rc_cs_big, comm_get_attr(comm, keyval, attribute_val,
						    flag, "MPI_Attr_get"));
}
RC_WEAK(MPI_Attr_get)

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
	return RC_CS_CALL(&rc_cs_big,
			  comm_delete_attr(comm, keyval, "MPI_Attr_delete"));
}
RC_WEAK(MPI_Attr_delete)

/* ---- datatypes ----------------------------------------------------------- */

static int type_obj(MPI_Datatype dt, struct rc_attr_obj *o, const char *fn)
{
	RC_API_CHECK_INIT(fn);
	if (!rc_dt_ok(dt))
		return rc_err_handle(NULL, RC_HK_DTYPE, dt, fn);
	*o = (struct rc_attr_obj){RC_AK_TYPE, dt, &dt->attrs, NULL, NULL};
	return MPI_SUCCESS;
}

static int type_set_attr(MPI_Datatype dt, int keyval, void *val)
{
	static const char fn[] = "MPI_Type_set_attr";
	struct rc_attr_obj o;
	int err = type_obj(dt, &o, fn);

	return err ? err : rc_attr_api_set(&o, keyval, val, fn);
}

static int type_get_attr(MPI_Datatype dt, int keyval, void *val, int *flag)
{
	static const char fn[] = "MPI_Type_get_attr";
	struct rc_attr_obj o;
	int err = type_obj(dt, &o, fn);

	return err ? err : rc_attr_api_get(&o, keyval, val, flag, fn);
}

static int type_delete_attr(MPI_Datatype dt, int keyval)
{
	static const char fn[] = "MPI_Type_delete_attr";
	struct rc_attr_obj o;
	int err = type_obj(dt, &o, fn);

	return err ? err : rc_attr_api_delete(&o, keyval, fn);
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
			    MPI_Type_delete_attr_function *delete_fn,
			    int *keyval, void *extra_state)
{
	return RC_CS_CALL(&rc_cs_big,
			  keyval_create(RC_AK_TYPE, (rc_fn)copy_fn,
					(rc_fn)delete_fn, keyval, extra_state,
					"MPI_Type_create_keyval"));
}
RC_WEAK(MPI_Type_create_keyval)

int PMPI_Type_free_keyval(int *keyval)
{
	return RC_CS_CALL(&rc_cs_big, keyval_free(RC_AK_TYPE, keyval,
						  "MPI_Type_free_keyval"));
}
RC_WEAK(MPI_Type_free_keyval)

int PMPI_Type_set_attr(MPI_Datatype dt, int keyval, void *attribute_val)
{
	return RC_CS_CALL(&rc_cs_big, type_set_attr(dt, keyval, attribute_val));
}
RC_WEAK(MPI_Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype dt, int keyval, void *attribute_val,
		       int *flag)
{
	return RC_CS_CALL(&rc_cs_big,
			  type_get_attr(dt, keyval, attribute_val, flag));
}
RC_WEAK(MPI_Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype dt, int keyval)
{
	return RC_CS_CALL(&rc_cs_big, type_delete_attr(dt, keyval));
}
RC_WEAK(MPI_Type_delete_attr)

/* ---- windows: the keyvals (the attributes are rma's, rma_api.c) ---------- */

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
			   MPI_Win_delete_attr_function *delete_fn, int *keyval,
			   void *extra_state)
{
	return RC_CS_CALL(&rc_cs_big,
			  keyval_create(RC_AK_WIN, (rc_fn)copy_fn,
					(rc_fn)delete_fn, keyval, extra_state,
					"MPI_Win_create_keyval"));
}
RC_WEAK(MPI_Win_create_keyval)

int PMPI_Win_free_keyval(int *keyval)
{
	return RC_CS_CALL(&rc_cs_big, keyval_free(RC_AK_WIN, keyval,
						  "MPI_Win_free_keyval"));
}
RC_WEAK(MPI_Win_free_keyval)
