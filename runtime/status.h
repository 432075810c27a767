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

/* X(name, MPI class, more, text): `more` when the text says more than the
 * class's own (several statuses share MPI_ERR_OTHER; MPI_ERR_BUFFER's
 * "invalid buffer pointer" is not why a buffered send has no room) */
#define RC_STATUS_TABLE(X)                                                   \
	X(RC_OK, MPI_SUCCESS, 0, "success")                                  \
	X(RC_INPROGRESS, MPI_SUCCESS, 0, "operation in progress")            \
	X(RC_AGAIN, MPI_ERR_OTHER, 1, "resource temporarily unavailable")    \
	X(RC_ERR_NOMEM, MPI_ERR_NO_MEM, 0, "out of memory")                  \
	X(RC_ERR_INVAL, MPI_ERR_ARG, 0, "invalid argument")                  \
	X(RC_ERR_TRUNCATE, MPI_ERR_TRUNCATE, 0, "message truncated")         \
	X(RC_ERR_NODEV, MPI_ERR_OTHER, 1, "no usable device")                \
	X(RC_ERR_UNREACH, MPI_ERR_OTHER, 1, "no transport reaches the peer") \
	X(RC_ERR_IO, MPI_ERR_OTHER, 1, "I/O or system call failed")          \
	X(RC_ERR_BOOT, MPI_ERR_OTHER, 1, "bootstrap (PMIx) failed")          \
	X(RC_ERR_PEER, MPI_ERR_PROC_FAILED, 0,                               \
	  "peer failed or connection lost")                                  \
	X(RC_ERR_UNSUPPORTED, MPI_ERR_UNSUPPORTED_OPERATION, 0,              \
	  "operation not supported")                                         \
	X(RC_ERR_NOCTX, MPI_ERR_OTHER, 1,                                    \
	  "no context id is free on every member (too many communicators)")  \
	X(RC_ERR_CALLBACK, MPI_ERR_OTHER, 1,                                 \
	  "an attribute copy callback failed")                               \
	X(RC_ERR_RMA_SYNC, MPI_ERR_RMA_SYNC, 0,                              \
	  "wrong synchronization of RMA calls")                              \
	X(RC_ERR_RMA_RANGE, MPI_ERR_RMA_RANGE, 0,                            \
	  "target memory outside the window")                                \
	X(RC_ERR_RMA_SHARED, MPI_ERR_RMA_SHARED, 1,                          \
	  "memory cannot be shared (ranks on different nodes)")              \
	X(RC_ERR_BUFFER, MPI_ERR_BUFFER, 1,                                  \
	  "no room in the attached buffer (MPI_Buffer_attach)")              \
	X(RC_ERR_INTERN, MPI_ERR_INTERN, 1, "internal error")

enum rc_status {
#define RC_X_ENUM(name, cls, more, str) name,
	RC_STATUS_TABLE(RC_X_ENUM)
#undef RC_X_ENUM
	RC_STATUS_COUNT
};

/* The MPI error class an internal status maps to at the API boundary. */
int rc_status_to_mpi(int status);
const char *rc_status_str(int status);
/* Its text where that says more than its class's (else NULL): the detail
 * an error raised at the API boundary carries. */
const char *rc_status_detail(int status);

#endif
