/*
 * errhandler.c - MPI error classes, their strings, and error handlers.
 *
 * The API boundary calls rc_err_raise(); the communicator's handler decides:
 * MPI_ERRORS_ARE_FATAL (the default) prints the function, the error string
 * and the rank, then ends the whole job; MPI_ERRORS_RETURN returns the class.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "dtype.h"
#include "log.h"

struct rc_errhandler rc_mpi_errors_are_fatal = {
	.h = RC_HOBJ_INIT(RC_HK_ERRH), .refcount = 1, .kind = RC_EH_FATAL};
struct rc_errhandler rc_mpi_errors_return = {
	.h = RC_HOBJ_INIT(RC_HK_ERRH), .refcount = 1, .kind = RC_EH_RETURN};

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

int rc_err_raise(struct rc_comm *comm, int cls, const char *fn,
		 const char *detail)
{
	struct rc_inst *inst = comm ? comm->inst : &rc_g;
	struct rc_errhandler *eh;
	char msg[512];

	if (!comm && rc_g.initialized && !rc_g.finalized)
		comm = rc_g.world;
	eh = comm && comm->errh ? comm->errh : &rc_mpi_errors_are_fatal;

	switch (eh->kind) {
	case RC_EH_RETURN:
		return cls;
	case RC_EH_USER: {
		MPI_Comm h = comm;
		int code = cls;

		eh->fn(&h, &code, fn);
		return cls;
	}
	default:
		break;
	}
	snprintf(msg, sizeof(msg), "%s: %s%s%s (MPI_ERRORS_ARE_FATAL)", fn,
		 rc_err_class_str(cls) ? rc_err_class_str(cls) : "unknown error",
		 detail ? ": " : "", detail ? detail : "");
	rc_abort(inst, cls ? cls : 1, msg);
}

int rc_err_lastused(void)
{
	return MPI_ERR_LASTCODE;
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

int PMPI_Error_class(int errorcode, int *errorclass)
{
	if (!errorclass)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Error_class");
	if (!rc_err_class_str(errorcode))
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Error_class");
	/* rcmpi's error codes are its error classes */
	*errorclass = errorcode;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Error_class)

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
	const char *s = rc_err_class_str(errorcode);

	if (!string || !resultlen)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Error_string");
	if (!s)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Error_string");
	snprintf(string, MPI_MAX_ERROR_STRING, "%s", s);
	*resultlen = (int)strlen(string);
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Error_string)

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler eh)
{
	RC_API_CHECK_INIT("MPI_Comm_set_errhandler");
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm,
				     "MPI_Comm_set_errhandler");
	if (!rc_hobj_is(eh, RC_HK_ERRH))
		return rc_err_handle(comm, RC_HK_ERRH, eh,
				     "MPI_Comm_set_errhandler");
	comm->errh = eh;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *eh)
{
	RC_API_CHECK_INIT("MPI_Comm_get_errhandler");
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm,
				     "MPI_Comm_get_errhandler");
	if (!eh)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Comm_get_errhandler");
	*eh = comm->errh;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Comm_get_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *eh)
{
	RC_API_CHECK_INIT("MPI_Errhandler_free");
	if (!eh)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, "MPI_Errhandler_free",
				  "errhandler is NULL");
	if (!rc_hobj_is(*eh, RC_HK_ERRH))
		return rc_err_handle(NULL, RC_HK_ERRH, *eh,
				     "MPI_Errhandler_free");
	/* the predefined handlers are never released */
	*eh = MPI_ERRHANDLER_NULL;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Errhandler_free)
