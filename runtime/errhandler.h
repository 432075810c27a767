/*
 * errhandler.h - MPI error handlers and the API-boundary error path.
 */
#ifndef RC_ERRHANDLER_H
#define RC_ERRHANDLER_H

#include <mpi.h>
#include "handle.h"

struct rc_comm;
struct rc_dtype;

struct rc_errhandler {
	struct rc_hobj h; /* handle.h */
	int refcount;
	int kind;		/* RC_EH_FATAL, RC_EH_RETURN, RC_EH_USER */
	MPI_Comm_errhandler_function *fn;
};

enum { RC_EH_FATAL = 1, RC_EH_RETURN, RC_EH_USER };

/*
 * Raise MPI error class `cls` from function `fn` on `comm` (NULL: world).
 * Runs the communicator's handler: fatal prints the function, the error
 * string and the rank, then aborts the job; otherwise returns cls.
 * `detail` (may be NULL) adds context to the fatal message.
 */
int rc_err_raise(struct rc_comm *comm, int cls, const char *fn,
		 const char *detail);

/* Raise the error class of a bad handle of `kind` on comm (NULL: world),
 * the message saying what is wrong with h (handle.h). */
int rc_err_handle(struct rc_comm *comm, enum rc_hkind kind, const void *h,
		  const char *fn);
/* MPI_ERR_TYPE for a datatype that cannot move data: bad handle or not
 * committed. */
int rc_err_dtype(struct rc_comm *comm, const struct rc_dtype *dt,
		 const char *fn);

/* The last error code in use (MPI_LASTUSEDCODE). */
int rc_err_lastused(void);

/* Error string of an MPI error class. */
const char *rc_err_class_str(int cls);

#endif
