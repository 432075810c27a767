/*
 * api.h - helpers for the MPI API boundary (the files named *_api.c and
 * the pt2pt/coll api files): argument checks and the PMPI weak aliases.
 *
 * Every API function is written as PMPI_Foo and RC_WEAK(MPI_Foo) makes
 * MPI_Foo a weak alias, so a profiling library can define MPI_Foo itself
 * and call PMPI_Foo. Inside librcmpi, call PMPI_ names or internal ones.
 */
#ifndef RC_API_H
#define RC_API_H

#include <mpi.h>
#include "comm.h"
#include "compiler.h"
#include "errhandler.h"
#include "inst.h"
#include "status.h"

#define RC_STR_(x) #x
#define RC_STR(x) RC_STR_(x)
#define RC_WEAK(fn) _Pragma(RC_STR(weak fn = P##fn))


/* True once MPI_Init has run and MPI_Finalize has not. */
static inline bool rc_api_ready(void)
{
	return rc_g.initialized && !rc_g.finalized;
}

/* Raise `cls` on comm from the API function `fn`. */
#define RC_ERR(comm, cls, fn) rc_err_raise((comm), (cls), (fn), NULL)
#define RC_ERR_MSG(comm, cls, fn, msg) rc_err_raise((comm), (cls), (fn), (msg))

/* Map an internal status to its MPI class and raise it (RC_OK -> 0). */
static inline int rc_api_status(struct rc_comm *comm, int status,
				const char *fn)
{
	if (RC_LIKELY(status == RC_OK))
		return MPI_SUCCESS;
	return rc_err_raise(comm, rc_status_to_mpi(status), fn,
			    rc_status_detail(status));
}

/* Called first by every API function that needs MPI initialised. */
#define RC_API_CHECK_INIT(fn)                                              \
	do {                                                               \
		if (RC_UNLIKELY(!rc_api_ready()))                          \
			return rc_err_raise(NULL, MPI_ERR_OTHER, (fn),     \
				rc_g.finalized ? "called after MPI_Finalize" \
					       : "called before MPI_Init"); \
	} while (0)

#endif
