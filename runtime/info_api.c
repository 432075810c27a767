/*
 * info_api.c - the MPI info functions (MPI-3.1 chapter 9, and MPI-4's
 * MPI_Info_get_string and MPI_Info_create_env), MPI_Info_c2f/f2c, and the
 * communicator's hints: MPI_Comm_set_info / MPI_Comm_get_info.
 * MPI_Comm_get_parent is here too (rcmpi has no dynamic processes: always
 * MPI_COMM_NULL).
 *
 * The MPI_Info_ functions work before MPI_Init and after MPI_Finalize as
 * well (MPI-4.0 11.4.1): info objects live in a handle pool that
 * MPI_Finalize keeps (handle.c), and nothing here needs the instance.
 *
 * Errors go to MPI_COMM_WORLD's handler (the comm's for the MPI_Comm_
 * functions; before MPI_Init and after MPI_Finalize, the initial handler,
 * MPI_ERRORS_ARE_FATAL): MPI_ERR_INFO for a bad info handle, MPI_ERR_INFO_KEY /
 * MPI_ERR_INFO_VALUE for a key or value that is NULL, empty or too long,
 * MPI_ERR_INFO_NOKEY for deleting a key that is not there, MPI_ERR_ARG for
 * NULL out-parameters, a negative valuelen, or an nthkey past the end.
 *
 * rcmpi acts on no communicator hint yet; MPI_Comm_get_info returns the
 * hints the program set (as Open MPI and MPICH do), and MPI_Comm_dup
 * copies them (MPI_Comm_dup_with_info takes its own: coll/comm_create.c).
 */
#include <string.h>
#include "api.h"
#include "info.h"
#include "inst.h"
#include "thread.h"

#define INFO_CHECK(info, fn)                                                \
	do {                                                                \
		if (!rc_info_valid(info))                                   \
			return rc_err_handle(NULL, RC_HK_INFO, (info), fn); \
	} while (0)

#define INFO_KEY_CHECK(key, fn)                                                \
	do {                                                                   \
		if (rc_info_check_key(key))                                    \
			return RC_ERR_MSG(NULL, MPI_ERR_INFO_KEY, fn,          \
					  !(key)    ? "key is NULL"            \
					  : !*(key) ? "key is empty"           \
						    : "key longer than "       \
						      "MPI_MAX_INFO_KEY - 1"); \
	} while (0)

#define PTR_CHECK(p, fn)                                         \
	do {                                                     \
		if (!(p))                                        \
			return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, \
					  #p " is NULL");        \
	} while (0)

static int info_create(MPI_Info *info)
{
	static const char fn[] = "MPI_Info_create";
	struct rc_info *i;

	PTR_CHECK(info, fn);
	if (rc_info_new(&i))
		return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
	*info = i;
	return MPI_SUCCESS;
}

int PMPI_Info_create(MPI_Info *info)
{
	return RC_CS_OUTSIDE(info_create(info));
}
RC_WEAK(MPI_Info_create)

static int info_set(MPI_Info info, const char *key, const char *value)
{
	static const char fn[] = "MPI_Info_set";

	INFO_CHECK(info, fn);
	INFO_KEY_CHECK(key, fn);
	if (rc_info_check_val(value))
		return RC_ERR_MSG(NULL, MPI_ERR_INFO_VALUE, fn,
				  !value    ? "value is NULL"
				  : !*value ? "value is empty"
					    : "value longer than "
					      "MPI_MAX_INFO_VAL - 1");
	if (rc_info_set(info, key, value))
		return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
	return MPI_SUCCESS;
}

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
	return RC_CS_OUTSIDE(info_set(info, key, value));
}
RC_WEAK(MPI_Info_set)

static int info_delete(MPI_Info info, const char *key)
{
	static const char fn[] = "MPI_Info_delete";

	INFO_CHECK(info, fn);
	INFO_KEY_CHECK(key, fn);
	if (!rc_info_delete(info, key))
		return RC_ERR(NULL, MPI_ERR_INFO_NOKEY, fn);
	return MPI_SUCCESS;
}

int PMPI_Info_delete(MPI_Info info, const char *key)
{
	return RC_CS_OUTSIDE(info_delete(info, key));
}
RC_WEAK(MPI_Info_delete)

/* Copy at most `room` characters of s and a null into out. */
static void copy_trunc(char *out, const char *s, size_t room)
{
	size_t n = strlen(s);

	if (n > room)
		n = room;
	memcpy(out, s, n);
	out[n] = 0;
}

static int info_get(MPI_Info info, const char *key, int valuelen, char *value,
		    int *flag)
{
	static const char fn[] = "MPI_Info_get";
	const char *v;

	INFO_CHECK(info, fn);
	INFO_KEY_CHECK(key, fn);
	if (valuelen < 0)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "valuelen < 0");
	PTR_CHECK(value, fn);
	PTR_CHECK(flag, fn);
	v = rc_info_get(info, key);
	*flag = v != NULL;
	if (v)
		copy_trunc(value, v, (size_t)valuelen);
	return MPI_SUCCESS;
}

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value,
		  int *flag)
{
	return RC_CS_OUTSIDE(info_get(info, key, valuelen, value, flag));
}
RC_WEAK(MPI_Info_get)

static int info_get_valuelen(MPI_Info info, const char *key, int *valuelen,
			     int *flag)
{
	static const char fn[] = "MPI_Info_get_valuelen";
	const char *v;

	INFO_CHECK(info, fn);
	INFO_KEY_CHECK(key, fn);
	PTR_CHECK(valuelen, fn);
	PTR_CHECK(flag, fn);
	v = rc_info_get(info, key);
	*flag = v != NULL;
	if (v)
		*valuelen = (int)strlen(v);
	return MPI_SUCCESS;
}

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen,
			   int *flag)
{
	return RC_CS_OUTSIDE(info_get_valuelen(info, key, valuelen, flag));
}
RC_WEAK(MPI_Info_get_valuelen)

/* MPI-4: the value and its length with the null (*buflen), truncated to
 * the buffer; *buflen 0 asks for the length only. */
static int info_get_string(MPI_Info info, const char *key, int *buflen,
			   char *value, int *flag)
{
	static const char fn[] = "MPI_Info_get_string";
	const char *v;

	INFO_CHECK(info, fn);
	INFO_KEY_CHECK(key, fn);
	PTR_CHECK(buflen, fn);
	PTR_CHECK(flag, fn);
	if (*buflen < 0)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "*buflen < 0");
	if (*buflen > 0)
		PTR_CHECK(value, fn);
	v = rc_info_get(info, key);
	*flag = v != NULL;
	if (!v)
		return MPI_SUCCESS;
	if (*buflen > 0)
		copy_trunc(value, v, (size_t)*buflen - 1);
	*buflen = (int)strlen(v) + 1;
	return MPI_SUCCESS;
}

int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen,
			 char *value, int *flag)
{
	return RC_CS_OUTSIDE(info_get_string(info, key, buflen, value, flag));
}
RC_WEAK(MPI_Info_get_string)

static int info_get_nkeys(MPI_Info info, int *nkeys)
{
	static const char fn[] = "MPI_Info_get_nkeys";

	INFO_CHECK(info, fn);
	PTR_CHECK(nkeys, fn);
	*nkeys = info->n;
	return MPI_SUCCESS;
}

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
	return RC_CS_OUTSIDE(info_get_nkeys(info, nkeys));
}
RC_WEAK(MPI_Info_get_nkeys)

static int info_get_nthkey(MPI_Info info, int n, char *key)
{
	static const char fn[] = "MPI_Info_get_nthkey";

	INFO_CHECK(info, fn);
	PTR_CHECK(key, fn);
	if (n < 0 || n >= info->n)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "n is not in 0 .. nkeys - 1");
	/* keys are shorter than MPI_MAX_INFO_KEY (rc_info_check_key) */
	strcpy(key, info->ent[n].key);
	return MPI_SUCCESS;
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
	return RC_CS_OUTSIDE(info_get_nthkey(info, n, key));
}
RC_WEAK(MPI_Info_get_nthkey)

static int info_dup(MPI_Info info, MPI_Info *newinfo)
{
	static const char fn[] = "MPI_Info_dup";
	struct rc_info *i;

	INFO_CHECK(info, fn);
	PTR_CHECK(newinfo, fn);
	if (rc_info_dup(info, &i))
		return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
	*newinfo = i;
	return MPI_SUCCESS;
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
	return RC_CS_OUTSIDE(info_dup(info, newinfo));
}
RC_WEAK(MPI_Info_dup)

/* MPI-4: a new info with MPI_INFO_ENV's keys, command and argv from the
 * arguments given (argv NULL: the process's command line, as
 * MPI_INFO_ENV's). Before MPI_Init the keys rcmpi cannot know yet
 * (maxprocs, thread_level) are left out. */
static int info_create_env(int argc, char *argv[], MPI_Info *info)
{
	static const char fn[] = "MPI_Info_create_env";
	struct rc_info *i;

	PTR_CHECK(info, fn);
	if (argc < 0)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "argc is negative");
	if (rc_info_new(&i))
		return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
	if (rc_info_env_build(i, &rc_g,
			      rc_g.initialized ? rc_g.thread_level : -1, argc,
			      argv)) {
		rc_info_free(i);
		return RC_ERR(NULL, MPI_ERR_NO_MEM, fn);
	}
	*info = i;
	return MPI_SUCCESS;
}

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
	return RC_CS_OUTSIDE(info_create_env(argc, argv, info));
}
RC_WEAK(MPI_Info_create_env)

static int info_free(MPI_Info *info)
{
	static const char fn[] = "MPI_Info_free";

	PTR_CHECK(info, fn);
	INFO_CHECK(*info, fn);
	if ((*info)->predefined)
		return RC_ERR_MSG(NULL, MPI_ERR_INFO, fn,
				  "cannot free MPI_INFO_ENV");
	rc_info_free(*info);
	*info = MPI_INFO_NULL;
	return MPI_SUCCESS;
}

int PMPI_Info_free(MPI_Info *info)
{
	return RC_CS_OUTSIDE(info_free(info));
}
RC_WEAK(MPI_Info_free)

MPI_Fint PMPI_Info_c2f(MPI_Info info)
{
	return RC_CS_OUTSIDE(rc_handle_c2f(RC_HK_INFO, info));
}
RC_WEAK(MPI_Info_c2f)

MPI_Info PMPI_Info_f2c(MPI_Fint info)
{
	return RC_CS_OUTSIDE(
		(MPI_Info)rc_handle_f2c(&rc_hpools[RC_HK_INFO], info));
}
RC_WEAK(MPI_Info_f2c)

/* ---- communicator hints ---------------------------------------------- */

static int comm_set_info(MPI_Comm comm, MPI_Info info)
{
	static const char fn[] = "MPI_Comm_set_info";

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	if (!rc_info_valid(info))
		return rc_err_handle(comm, RC_HK_INFO, info, fn);
	/* hints not named keep their values */
	if (rc_info_merge(&comm->info, info))
		return RC_ERR(comm, MPI_ERR_NO_MEM, fn);
	return MPI_SUCCESS;
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
	return RC_CS_CALL(&rc_cs_big, comm_set_info(comm, info));
}
RC_WEAK(MPI_Comm_set_info)

static int comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
	static const char fn[] = "MPI_Comm_get_info";
	struct rc_info *i;

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	if (!info_used)
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn, "info_used is NULL");
	if (rc_info_dup(comm->info, &i))
		return RC_ERR(comm, MPI_ERR_NO_MEM, fn);
	*info_used = i;
	return MPI_SUCCESS;
}

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
	return RC_CS_CALL(&rc_cs_big, comm_get_info(comm, info_used));
}
RC_WEAK(MPI_Comm_get_info)

static int comm_get_parent(MPI_Comm *parent)
{
	static const char fn[] = "MPI_Comm_get_parent";

	RC_API_CHECK_INIT(fn);
	PTR_CHECK(parent, fn);
	*parent = MPI_COMM_NULL; /* no dynamic processes */
	return MPI_SUCCESS;
}

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
	return RC_CS_CALL(&rc_cs_big, comm_get_parent(parent));
}
RC_WEAK(MPI_Comm_get_parent)
