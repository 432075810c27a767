/*
 * errhandler.h - MPI error handlers, error classes and codes, and the
 * API-boundary error path.
 *
 * An error handler serves one kind of object (communicators, windows;
 * files plug in with an entry of their own in errhandler.c's ops table);
 * the predefined MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN serve every
 * kind. A user handler is reference counted: the handle holds one, each
 * object it is attached to one, so MPI_Errhandler_free leaves it working
 * where it is attached.
 *
 * Error codes: 0..MPI_ERR_LASTCODE are the predefined classes (each its
 * own code); MPI_Add_error_class / _code add codes above, each with its
 * class and an optional string (MPI_Add_error_string).
 */
#ifndef RC_ERRHANDLER_H
#define RC_ERRHANDLER_H

#include <mpi.h>
#include "handle.h"

struct rc_comm;
struct rc_dtype;
struct rc_inst;

/* The object kinds a handler can serve (RC_EHO_ANY: the predefined). */
enum rc_eh_obj {
	RC_EHO_ANY = 0,
	RC_EHO_COMM,
	RC_EHO_WIN,
	RC_EHO_FILE,
	RC_EHO_NKINDS
};

struct rc_errhandler {
	struct rc_hobj h; /* handle.h */
	int refcount;
	int kind;		/* RC_EH_FATAL, RC_EH_RETURN, RC_EH_USER */
	int obj;		/* enum rc_eh_obj it serves */
	void (*fn)(void);	/* RC_EH_USER: the user's function */
};

enum { RC_EH_FATAL = 1, RC_EH_RETURN, RC_EH_USER };

/* Calls a user handler of one object kind with the object's handle. */
struct rc_eh_ops {
	const char *name; /* "communicator" */
	void (*call)(void (*fn)(void), void *handle, int *code,
		     const char *where);
};

/* A user handler serving `obj` (refcount 1); RC_OK or RC_ERR_NOMEM. */
int rc_errh_create(enum rc_eh_obj obj, void (*fn)(void),
		   struct rc_errhandler **out);
/* References (no-ops on the predefined handlers). */
void rc_errh_retain(struct rc_errhandler *eh);
void rc_errh_release(struct rc_errhandler *eh);
/* May eh be attached to an object of kind obj? */
bool rc_errh_serves(const struct rc_errhandler *eh, enum rc_eh_obj obj);

/*
 * Run handler eh for error `code` raised by function `fn` on the object
 * `handle` (of kind obj; its address is what a user handler gets) of
 * instance inst: fatal prints the function, the code's string, `detail`
 * (may be NULL) and the rank, then ends the job with the code's class as
 * exit status; a user handler is called with the object and the code;
 * then code is returned. The one path for every object kind.
 */
int rc_err_invoke(struct rc_errhandler *eh, enum rc_eh_obj obj, void *handle,
		  struct rc_inst *inst, int code, const char *fn,
		  const char *detail);

/*
 * Raise MPI error `code` (a class or a code added by the program) from
 * function `fn` on `comm` (NULL: MPI_COMM_WORLD) through its handler
 * (a window's private communicator: the window's, with the window).
 */
int rc_err_raise(struct rc_comm *comm, int code, const char *fn,
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

/* Error string of a predefined class, NULL for anything else. */
const char *rc_err_class_str(int cls);
/* The class of an error code, or -1 if it is none. */
int rc_err_code_class(int code);
/* The string of any error code ("" for an added code without one), NULL
 * if it is none. */
const char *rc_err_code_str(int code);
/* Forget the added classes and codes (MPI_Finalize). */
void rc_err_codes_fini(void);

#endif
