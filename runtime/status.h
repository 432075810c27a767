/*
 * status.h - internal status codes.
 *
 * Every internal function that acts returns one of these. RC_STATUS_TABLE is
 * the single place a code, the MPI error class it maps to at the API
 * boundary, and its text are defined.
 */
#ifndef RC_STATUS_H
#define RC_STATUS_H

#include <mpi.h>

#define RC_STATUS_TABLE(X)                                                   \
	X(RC_OK, MPI_SUCCESS, "success")                                     \
	X(RC_INPROGRESS, MPI_SUCCESS, "operation in progress")              \
	X(RC_AGAIN, MPI_ERR_OTHER, "resource temporarily unavailable")       \
	X(RC_ERR_NOMEM, MPI_ERR_NO_MEM, "out of memory")                     \
	X(RC_ERR_INVAL, MPI_ERR_ARG, "invalid argument")                     \
	X(RC_ERR_TRUNCATE, MPI_ERR_TRUNCATE, "message truncated")            \
	X(RC_ERR_NODEV, MPI_ERR_OTHER, "no usable device")                   \
	X(RC_ERR_UNREACH, MPI_ERR_OTHER, "no transport reaches the peer")    \
	X(RC_ERR_IO, MPI_ERR_OTHER, "I/O or system call failed")             \
	X(RC_ERR_BOOT, MPI_ERR_OTHER, "bootstrap (PMIx) failed")             \
	X(RC_ERR_PEER, MPI_ERR_PROC_FAILED, "peer failed or connection lost") \
	X(RC_ERR_UNSUPPORTED, MPI_ERR_UNSUPPORTED_OPERATION,                 \
	  "operation not supported")                                         \
	X(RC_ERR_NOCTX, MPI_ERR_OTHER,                                       \
	  "no context id is free on every member (too many communicators)") \
	X(RC_ERR_CALLBACK, MPI_ERR_OTHER,                                    \
	  "an attribute copy callback failed")                               \
	X(RC_ERR_RMA_SYNC, MPI_ERR_RMA_SYNC,                                 \
	  "wrong synchronization of RMA calls")                             \
	X(RC_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE,                               \
	  "target memory outside the window")                               \
	X(RC_ERR_RMA_SHARED, MPI_ERR_RMA_SHARED,                             \
	  "memory cannot be shared (ranks on different nodes)")             \
	X(RC_ERR_BUFFER, MPI_ERR_BUFFER,                                     \
	  "no room in the attached buffer (MPI_Buffer_attach)")            \
	X(RC_ERR_INTERN, MPI_ERR_INTERN, "internal error")

enum rc_status {
#define RC_X_ENUM(name, cls, str) name,
	RC_STATUS_TABLE(RC_X_ENUM)
#undef RC_X_ENUM
	RC_STATUS_COUNT
};

/* The MPI error class an internal status maps to at the API boundary. */
int rc_status_to_mpi(int status);
const char *rc_status_str(int status);

#endif
