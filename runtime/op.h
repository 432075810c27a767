/*
 * op.h - reduction operations: the predefined ops on every type the standard
 * allows them on, and user ops from MPI_Op_create.
 */
#ifndef RC_OP_H
#define RC_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <mpi.h>

struct rc_dtype;

enum rc_op_kind {
	RC_OP_USER = 0,
	RC_OP_MAX, RC_OP_MIN, RC_OP_SUM, RC_OP_PROD,
	RC_OP_LAND, RC_OP_BAND, RC_OP_LOR, RC_OP_BOR, RC_OP_LXOR, RC_OP_BXOR,
	RC_OP_MAXLOC, RC_OP_MINLOC, RC_OP_REPLACE, RC_OP_NO_OP,
};

struct rc_op {
	int refcount;
	bool predefined;
	bool commute;
	enum rc_op_kind kind;
	void *user_fn;		/* MPI_User_function * for RC_OP_USER */
	char name[32];
};

/* Is op defined on dt (MPI_ERR_OP otherwise)? */
bool rc_op_valid_for(const struct rc_op *op, const struct rc_dtype *dt);
/* inout[i] = in[i] op inout[i] for count elements of dt (the MPI order of a
 * user function's (invec, inoutvec) arguments). */
void rc_op_apply(const struct rc_op *op, const void *in, void *inout,
		 size_t count, struct rc_dtype *dt);

#endif
