/*
 * errhandler.c - MPI error classes, codes and their strings, and error
 * handlers (errhandler.h).
 *
 * The API boundary calls rc_err_raise() (or, for another object kind,
 * rc_err_invoke()); the object's handler decides: MPI_ERRORS_ARE_FATAL
 * (the default) prints the function, the error string and the rank, then
 * ends the whole job; MPI_ERRORS_RETURN returns the code; a user handler
 * is called with the object and the code, and the code is returned.
 *
 * A kind of object plugs in with one entry in eh_ops (how to call a user
 * handler with its handle type): communicators and windows (files add
 * theirs). A window raises its errors on its private communicator, which
 * holds the window's handler and names the window (comm->eh_handle), so
 * that a user handler gets the window; MPI_Win_create_errhandler is here,
 * MPI_Win_set/get/call_errhandler are rma's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "dtype.h"
#include "log.h"
#include "thread.h"

struct rc_errhandler rc_mpi_errors_are_fatal = {
	.h = RC_HOBJ_INIT(RC_HK_ERRH), .refcount = 1, .kind = RC_EH_FATAL};
struct rc_errhandler rc_mpi_errors_return = {
	.h = RC_HOBJ_INIT(RC_HK_ERRH), .refcount = 1, .kind = RC_EH_RETURN};

static void comm_call(void (*fn)(void), void *handle, int *code,
		      const char *where)
{
	((MPI_Comm_errhandler_function *)fn)(handle, code, where);
}

static void win_call(void (*fn)(void), void *handle, int *code,
		     const char *where)
{
	((MPI_Win_errhandler_function *)fn)(handle, code, where);
}

static const struct rc_eh_ops comm_eh_ops = {"communicator", comm_call};
static const struct rc_eh_ops win_eh_ops = {"window", win_call};

static const struct rc_eh_ops *const eh_ops[RC_EHO_NKINDS] = {
	[RC_EHO_COMM] = &comm_eh_ops, [RC_EHO_WIN] = &win_eh_ops,
	/* [RC_EHO_FILE]: with the files */
};

#define RC_ERR_CLASS_TABLE(X)                                            \
	X(MPI_SUCCESS, "MPI_SUCCESS: no error")                          \
	X(MPI_ERR_BUFFER, "MPI_ERR_BUFFER: invalid buffer pointer")      \
	X(MPI_ERR_COUNT, "MPI_ERR_COUNT: invalid count argument")        \
	X(MPI_ERR_TYPE, "MPI_ERR_TYPE: invalid datatype")                \
	X(MPI_ERR_TAG, "MPI_ERR_TAG: invalid tag")                       \
	X(MPI_ERR_COMM, "MPI_ERR_COMM: invalid communicator")            \
	X(MPI_ERR_RANK, "MPI_ERR_RANK: invalid rank")                    \
	X(MPI_ERR_REQUEST, "MPI_ERR_REQUEST: invalid request")           \
	X(MPI_ERR_ROOT, "MPI_ERR_ROOT: invalid root")                    \
	X(MPI_ERR_GROUP, "MPI_ERR_GROUP: invalid group")                 \
	X(MPI_ERR_OP, "MPI_ERR_OP: invalid reduce operation")            \
	X(MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY: invalid topology")        \
	X(MPI_ERR_DIMS, "MPI_ERR_DIMS: invalid dimension argument")      \
	X(MPI_ERR_ARG, "MPI_ERR_ARG: invalid argument of some other kind") \
	X(MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN: unknown error")             \
	X(MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE: message truncated")       \
	X(MPI_ERR_OTHER, "MPI_ERR_OTHER: known error not in this list")  \
	X(MPI_ERR_INTERN, "MPI_ERR_INTERN: internal error")              \
	X(MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS: error code is in status") \
	X(MPI_ERR_PENDING, "MPI_ERR_PENDING: pending request")           \
	X(MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL: invalid keyval")              \
	X(MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM: out of memory")               \
	X(MPI_ERR_BASE, "MPI_ERR_BASE: invalid base address")            \
	X(MPI_ERR_INFO, "MPI_ERR_INFO: invalid info object")             \
	X(MPI_ERR_INFO_KEY, "MPI_ERR_INFO_KEY: invalid info key")        \
	X(MPI_ERR_INFO_VALUE, "MPI_ERR_INFO_VALUE: invalid info value")  \
	X(MPI_ERR_INFO_NOKEY, "MPI_ERR_INFO_NOKEY: info key not found")  \
	X(MPI_ERR_SPAWN, "MPI_ERR_SPAWN: spawn failed")                  \
	X(MPI_ERR_PORT, "MPI_ERR_PORT: invalid port")                    \
	X(MPI_ERR_SERVICE, "MPI_ERR_SERVICE: invalid service")           \
	X(MPI_ERR_NAME, "MPI_ERR_NAME: invalid service name")            \
	X(MPI_ERR_WIN, "MPI_ERR_WIN: invalid window")                    \
	X(MPI_ERR_SIZE, "MPI_ERR_SIZE: invalid size")                    \
	X(MPI_ERR_DISP, "MPI_ERR_DISP: invalid displacement")            \
	X(MPI_ERR_LOCKTYPE, "MPI_ERR_LOCKTYPE: invalid lock type")       \
	X(MPI_ERR_ASSERT, "MPI_ERR_ASSERT: invalid assert")              \
	X(MPI_ERR_RMA_CONFLICT, "MPI_ERR_RMA_CONFLICT: conflicting accesses to window") \
	X(MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls") \
	X(MPI_ERR_FILE, "MPI_ERR_FILE: invalid file handle")             \
	X(MPI_ERR_NOT_SAME, "MPI_ERR_NOT_SAME: arguments differ between processes") \
	X(MPI_ERR_AMODE, "MPI_ERR_AMODE: invalid access mode")           \
	X(MPI_ERR_UNSUPPORTED_DATAREP, "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation") \
	X(MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation") \
	X(MPI_ERR_NO_SUCH_FILE, "MPI_ERR_NO_SUCH_FILE: file does not exist") \
	X(MPI_ERR_FILE_EXISTS, "MPI_ERR_FILE_EXISTS: file exists")       \
	X(MPI_ERR_BAD_FILE, "MPI_ERR_BAD_FILE: invalid file name")       \
	X(MPI_ERR_ACCESS, "MPI_ERR_ACCESS: permission denied")           \
	X(MPI_ERR_NO_SPACE, "MPI_ERR_NO_SPACE: no space left")           \
	X(MPI_ERR_QUOTA, "MPI_ERR_QUOTA: quota exceeded")                \
	X(MPI_ERR_READ_ONLY, "MPI_ERR_READ_ONLY: read-only file or file system") \
	X(MPI_ERR_FILE_IN_USE, "MPI_ERR_FILE_IN_USE: file in use")       \
	X(MPI_ERR_DUP_DATAREP, "MPI_ERR_DUP_DATAREP: data representation already defined") \
	X(MPI_ERR_CONVERSION, "MPI_ERR_CONVERSION: conversion function failed") \
	X(MPI_ERR_IO, "MPI_ERR_IO: I/O error")                           \
	X(MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE: target memory outside the window") \
	X(MPI_ERR_RMA_ATTACH, "MPI_ERR_RMA_ATTACH: memory cannot be attached") \
	X(MPI_ERR_RMA_SHARED, "MPI_ERR_RMA_SHARED: memory cannot be shared") \
	X(MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR: wrong window flavor") \
	X(MPI_ERR_PROC_FAILED, "MPI_ERR_PROC_FAILED: a peer process failed or its connection was lost")

static const char *const rc_err_class_tab[] = {
#define RC_X_CLS(cls, str) [cls] = str,
	RC_ERR_CLASS_TABLE(RC_X_CLS)
#undef RC_X_CLS
};

const char *rc_err_class_str(int cls)
{
	if (cls < 0 || cls > MPI_ERR_LASTCODE || !rc_err_class_tab[cls])
		return NULL;
	return rc_err_class_tab[cls];
}

/* ---- error codes added by the program ------------------------------ */

struct err_code {
	int cls;
	char *str; /* MPI_Add_error_string, or NULL */
};

static struct err_code *err_codes; /* code MPI_ERR_LASTCODE + 1 + i */
static int n_err_codes, cap_err_codes;

#define ERR_CODES_MAX (1 << 20)

static struct err_code *err_code_of(int code)
{
	if (code <= MPI_ERR_LASTCODE || code > MPI_ERR_LASTCODE + n_err_codes)
		return NULL;
	return &err_codes[code - MPI_ERR_LASTCODE - 1];
}

int rc_err_code_class(int code)
{
	const struct err_code *e = err_code_of(code);

	if (rc_err_class_str(code))
		return code;
	return e ? e->cls : -1;
}

const char *rc_err_code_str(int code)
{
	const struct err_code *e = err_code_of(code);

	if (rc_err_class_str(code))
		return rc_err_class_str(code);
	return e ? (e->str ? e->str : "") : NULL;
}

int rc_err_lastused(void)
{
	return MPI_ERR_LASTCODE + n_err_codes;
}

/* A new code of class cls (-1: a new class, its own code). */
static int err_code_add(int cls, int *code)
{
	if (n_err_codes == cap_err_codes) {
		int cap = cap_err_codes ? 2 * cap_err_codes : 16;
		struct err_code *e;

		if (cap > ERR_CODES_MAX)
			return RC_ERR_NOMEM;
		e = realloc(err_codes, (size_t)cap * sizeof(*e));
		if (!e)
			return RC_ERR_NOMEM;
		err_codes = e;
		cap_err_codes = cap;
	}
	*code = MPI_ERR_LASTCODE + 1 + n_err_codes;
	err_codes[n_err_codes].cls = cls < 0 ? *code : cls;
	err_codes[n_err_codes].str = NULL;
	n_err_codes++;
	return RC_OK;
}

void rc_err_codes_fini(void)
{
	int i;

	for (i = 0; i < n_err_codes; i++)
		free(err_codes[i].str);
	free(err_codes);
	err_codes = NULL;
	n_err_codes = cap_err_codes = 0;
}

/* ---- handlers ---------------------------------------------------------- */

int rc_errh_create(enum rc_eh_obj obj, void (*fn)(void),
		   struct rc_errhandler **out)
{
	struct rc_errhandler *eh = rc_hobj_new(RC_HK_ERRH, sizeof(*eh));

	if (!eh)
		return RC_ERR_NOMEM;
	eh->refcount = 1;
	eh->kind = RC_EH_USER;
	eh->obj = obj;
	eh->fn = fn;
	*out = eh;
	return RC_OK;
}

void rc_errh_retain(struct rc_errhandler *eh)
{
	if (eh->kind == RC_EH_USER)
		eh->refcount++;
}

void rc_errh_release(struct rc_errhandler *eh)
{
	if (eh->kind == RC_EH_USER && --eh->refcount == 0)
		rc_hobj_free(RC_HK_ERRH, eh);
}

bool rc_errh_serves(const struct rc_errhandler *eh, enum rc_eh_obj obj)
{
	return eh->kind != RC_EH_USER || eh->obj == (int)obj;
}

int rc_err_invoke(struct rc_errhandler *eh, enum rc_eh_obj obj, void *handle,
		  struct rc_inst *inst, int code, const char *fn,
		  const char *detail)
{
	const char *s = rc_err_code_str(code);
	int cls = rc_err_code_class(code);
	char msg[512];

	switch (eh->kind) {
	case RC_EH_RETURN:
		return code;
	case RC_EH_USER: {
		int c = code;

		/* the handler may call MPI (the critical section nests), and
		 * keeps its reference while it runs */
		rc_errh_retain(eh);
		eh_ops[obj]->call(eh->fn, handle, &c, fn);
		rc_errh_release(eh);
		return code;
	}
	default:
		break;
	}
	if (s && *s)
		snprintf(msg, sizeof(msg), "%s: %s%s%s (MPI_ERRORS_ARE_FATAL)",
			 fn, s, detail ? ": " : "", detail ? detail : "");
	else
		snprintf(msg, sizeof(msg),
			 "%s: error code %d (class %d)%s%s "
			 "(MPI_ERRORS_ARE_FATAL)",
			 fn, code, cls, detail ? ": " : "",
			 detail ? detail : "");
	rc_abort(inst, cls > 0 ? cls : 1, msg);
}

static int err_raise(struct rc_comm *comm, int code, const char *fn,
		     const char *detail)
{
	struct rc_inst *inst = comm ? comm->inst : &rc_g;
	struct rc_errhandler *eh;
	MPI_Comm h;

	if (!comm && rc_g.initialized && !rc_g.finalized)
		comm = rc_g.world;
	eh = comm && comm->errh ? comm->errh : &rc_mpi_errors_are_fatal;
	if (comm && comm->eh_handle) {
		void *oh = comm->eh_handle;

		return rc_err_invoke(eh, comm->eh_obj, &oh, inst, code, fn,
				     detail);
	}
	h = comm;
	return rc_err_invoke(eh, RC_EHO_COMM, &h, inst, code, fn, detail);
}

/* Inside the critical section: the calls that run outside it (thread.h,
 * RC_CS_OUTSIDE) raise their errors here too, and the handler they reach
 * is the communicator's, which MPI_Comm_set_errhandler may change. */
int rc_err_raise(struct rc_comm *comm, int code, const char *fn,
		 const char *detail)
{
	return RC_CS_CALL(&rc_cs_big, err_raise(comm, code, fn, detail));
}

int rc_err_handle(struct rc_comm *comm, enum rc_hkind kind, const void *h,
		  const char *fn)
{
	char why[160];

	return rc_err_raise(comm, rc_hkind_class(kind), fn,
			    rc_handle_explain(kind, h, why, sizeof(why)));
}

int rc_err_dtype(struct rc_comm *comm, const struct rc_dtype *dt,
		 const char *fn)
{
	if (rc_dt_ok(dt) && !(dt->flags & RC_DT_COMMITTED))
		return rc_err_raise(comm, MPI_ERR_TYPE, fn,
				    "datatype not committed");
	return rc_err_handle(comm, RC_HK_DTYPE, dt, fn);
}

/* ---- the MPI functions ------------------------------------------------ */

static int error_class(int errorcode, int *errorclass)
{
	static const char fn[] = "MPI_Error_class";
	int cls = rc_err_code_class(errorcode);

	if (!errorclass)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "errorclass is NULL");
	if (cls < 0)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "not an error code");
	*errorclass = cls;
	return MPI_SUCCESS;
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
	return RC_CS_CALL(&rc_cs_big, error_class(errorcode, errorclass));
}
RC_WEAK(MPI_Error_class)

static int error_string(int errorcode, char *string, int *resultlen)
{
	static const char fn[] = "MPI_Error_string";
	const char *s = rc_err_code_str(errorcode);

	if (!string || !resultlen)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  !string ? "string is NULL"
					  : "resultlen is NULL");
	if (!s)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "not an error code");
	snprintf(string, MPI_MAX_ERROR_STRING, "%s", s);
	*resultlen = (int)strlen(string);
	return MPI_SUCCESS;
}

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
	return RC_CS_CALL(&rc_cs_big,
			  error_string(errorcode, string, resultlen));
}
RC_WEAK(MPI_Error_string)

static int add_error_class(int *errorclass)
{
	static const char fn[] = "MPI_Add_error_class";

	RC_API_CHECK_INIT(fn);
	if (!errorclass)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "errorclass is NULL");
	if (err_code_add(-1, errorclass))
		return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
	return MPI_SUCCESS;
}

int PMPI_Add_error_class(int *errorclass)
{
	return RC_CS_CALL(&rc_cs_big, add_error_class(errorclass));
}
RC_WEAK(MPI_Add_error_class)

static int add_error_code(int errorclass, int *errorcode)
{
	static const char fn[] = "MPI_Add_error_code";

	RC_API_CHECK_INIT(fn);
	if (!errorcode)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "errorcode is NULL");
	if (rc_err_code_class(errorclass) != errorclass)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "errorclass is not an error class");
	if (err_code_add(errorclass, errorcode))
		return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
	return MPI_SUCCESS;
}

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
	return RC_CS_CALL(&rc_cs_big, add_error_code(errorclass, errorcode));
}
RC_WEAK(MPI_Add_error_code)

static int add_error_string(int errorcode, const char *string)
{
	static const char fn[] = "MPI_Add_error_string";
	struct err_code *e = err_code_of(errorcode);
	char *s;

	RC_API_CHECK_INIT(fn);
	if (!e)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  errorcode <= MPI_ERR_LASTCODE
					  ? "a predefined code's string cannot "
					    "change"
					  : "not an error code");
	if (!string)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "string is NULL");
	if (strnlen(string, MPI_MAX_ERROR_STRING) >= MPI_MAX_ERROR_STRING)
		return RC_ERR_MSG(
			NULL, MPI_ERR_ARG, fn,
			"string longer than MPI_MAX_ERROR_STRING - 1");
	s = strdup(string);
	if (!s)
		return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
	free(e->str);
	e->str = s;
	return MPI_SUCCESS;
}

int PMPI_Add_error_string(int errorcode, const char *string)
{
	return RC_CS_CALL(&rc_cs_big, add_error_string(errorcode, string));
}
RC_WEAK(MPI_Add_error_string)

/* MPI_<Kind>_create_errhandler: a user handler serving obj. */
static int create_errhandler(enum rc_eh_obj obj, void (*function)(void),
			     MPI_Errhandler *errhandler, const char *fn)
{
	struct rc_errhandler *eh;

	RC_API_CHECK_INIT(fn);
	if (!function)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "function is NULL");
	if (!errhandler)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "errhandler is NULL");
	if (rc_errh_create(obj, function, &eh))
		return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
	*errhandler = eh;
	return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
				MPI_Errhandler *errhandler)
{
	return RC_CS_CALL(
		&rc_cs_big,
		create_errhandler(RC_EHO_COMM, (void (*)(void))function,
				  errhandler, "MPI_Comm_create_errhandler"));
}
RC_WEAK(MPI_Comm_create_errhandler)

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *function,
			       MPI_Errhandler *errhandler)
{
	return RC_CS_CALL(
		&rc_cs_big,
		create_errhandler(RC_EHO_WIN, (void (*)(void))function,
				  errhandler, "MPI_Win_create_errhandler"));
}
RC_WEAK(MPI_Win_create_errhandler)

static int comm_set_errhandler(MPI_Comm comm, MPI_Errhandler eh,
			       const char *fn)
{
	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	if (!rc_hobj_is(eh, RC_HK_ERRH))
		return rc_err_handle(comm, RC_HK_ERRH, eh, fn);
	if (!rc_errh_serves(eh, RC_EHO_COMM))
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn,
				  "the error handler is not a communicator's");
	rc_errh_retain(eh);
	rc_errh_release(comm->errh);
	comm->errh = eh;
	return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler eh)
{
	return RC_CS_CALL(
		&rc_cs_big,
		comm_set_errhandler(comm, eh, "MPI_Comm_set_errhandler"));
}
RC_WEAK(MPI_Comm_set_errhandler)

static int comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *eh,
			       const char *fn)
{
	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	if (!eh)
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn, "errhandler is NULL");
	/* a new reference: the program frees it */
	rc_errh_retain(comm->errh);
	*eh = comm->errh;
	return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *eh)
{
	return RC_CS_CALL(
		&rc_cs_big,
		comm_get_errhandler(comm, eh, "MPI_Comm_get_errhandler"));
}
RC_WEAK(MPI_Comm_get_errhandler)

/* ---- MPI-1 names that MPI-3 removed (include/README.md): the MPI_Comm_
 * calls under their old names, errors reported under the old names ---- */

int PMPI_Errhandler_create(MPI_Handler_function *function,
			   MPI_Errhandler *errhandler)
{
	return RC_CS_CALL(&rc_cs_big,
			  create_errhandler(RC_EHO_COMM, (void (*)(void))function,
					    errhandler, "MPI_Errhandler_create"));
}
RC_WEAK(MPI_Errhandler_create)

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
	return RC_CS_CALL(
		&rc_cs_big,
		comm_set_errhandler(comm, errhandler, "MPI_Errhandler_set"));
}
RC_WEAK(MPI_Errhandler_set)

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
	return RC_CS_CALL(
		&rc_cs_big,
		comm_get_errhandler(comm, errhandler, "MPI_Errhandler_get"));
}
RC_WEAK(MPI_Errhandler_get)

static int comm_call_errhandler(MPI_Comm comm, int errorcode)
{
	static const char fn[] = "MPI_Comm_call_errhandler";

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	/* the handler ran (and returned): success, whatever the code */
	rc_err_raise(comm, errorcode, fn, NULL);
	return MPI_SUCCESS;
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
	return RC_CS_CALL(&rc_cs_big, comm_call_errhandler(comm, errorcode));
}
RC_WEAK(MPI_Comm_call_errhandler)

static int errhandler_free(MPI_Errhandler *eh)
{
	static const char fn[] = "MPI_Errhandler_free";

	RC_API_CHECK_INIT(fn);
	if (!eh)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "errhandler is NULL");
	if (!rc_hobj_is(*eh, RC_HK_ERRH))
		return rc_err_handle(NULL, RC_HK_ERRH, *eh, fn);
	/* objects it is attached to keep it (predefined: never freed) */
	rc_errh_release(*eh);
	*eh = MPI_ERRHANDLER_NULL;
	return MPI_SUCCESS;
}

int PMPI_Errhandler_free(MPI_Errhandler *eh)
{
	return RC_CS_CALL(&rc_cs_big, errhandler_free(eh));
}
RC_WEAK(MPI_Errhandler_free)

/* A hook for profiling tools: rcmpi itself does nothing with it. */
static int pcontrol(int level)
{
	(void)level;
	return MPI_SUCCESS;
}

int PMPI_Pcontrol(const int level, ...)
{
	return RC_CS_CALL(&rc_cs_big, pcontrol(level));
}
RC_WEAK(MPI_Pcontrol)
