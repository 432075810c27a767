/*
 * op.h - reduction operations: the predefined ops on every type the standard
 * allows them on, and user ops from MPI_Op_create.
 */
#ifndef RC_OP_H
#define RC_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <mpi.h>
#include "handle.h"
#include "dtype.h"

enum rc_op_kind {
	RC_OP_USER = 0,
	RC_OP_MAX, RC_OP_MIN, RC_OP_SUM, RC_OP_PROD,
	RC_OP_LAND, RC_OP_BAND, RC_OP_LOR, RC_OP_BOR, RC_OP_LXOR, RC_OP_BXOR,
	RC_OP_MAXLOC, RC_OP_MINLOC, RC_OP_REPLACE, RC_OP_NO_OP,
};

struct rc_op {
	struct rc_hobj h; /* handle.h */
	int refcount;
	bool predefined;
	bool commute;
	enum rc_op_kind kind;
	void *user_fn;		/* MPI_User_function * for RC_OP_USER */
	char name[32];
};

/* The predefined op of a kind (RC_OP_USER: NULL). */
struct rc_op *rc_op_of_kind(enum rc_op_kind k);
/* Is op a live op object (predefined or from MPI_Op_create)? */
static inline bool rc_op_ok(const struct rc_op *op)
{
	return rc_hobj_is(op, RC_HK_OP);
}

/* Every predefined op, in the order of their fixed MPI_Fint indices. */
extern struct rc_op *const rc_op_predefined[];
extern const size_t rc_op_npredefined;
/* Operations in flight hold a reference (no-ops on predefined ops). */
void rc_op_retain(struct rc_op *op);
void rc_op_release(struct rc_op *op);
/* A user op with refcount 1; RC_OK or RC_ERR_NOMEM. */
int rc_op_create(MPI_User_function *fn, bool commute, struct rc_op **opp);

/* Is op defined on dt (MPI_ERR_OP otherwise)? Predefined ops: on the types
 * MPI-3.1 5.9.2 allows (and, as Open MPI and MPICH do, the C integer ops
 * on MPI_CHAR), and on derived types made of one such basic type
 * (dt->basic); MPI_REPLACE, MPI_NO_OP and user ops: on every type. */
bool rc_op_valid_for(const struct rc_op *op, const struct rc_dtype *dt);
/* inout[i] = in[i] op inout[i] for count elements of dt (the MPI order of a
 * user function's (invec, inoutvec) arguments). Both buffers are laid out
 * by (count, dt) and must not overlap; rc_op_valid_for(op, dt) must hold.
 * MPI_REPLACE copies in to inout, MPI_NO_OP leaves inout alone. */
void rc_op_apply(const struct rc_op *op, const void *in, void *inout,
		 size_t count, struct rc_dtype *dt);
/* The same on packed streams: n elements of basic kind b in a row (pair
 * kinds: value then int, no padding), any alignment, inout[i] = in[i] op
 * inout[i]. Predefined ops (REPLACE and NO_OP included) defined on b. */
void rc_op_apply_packed(const struct rc_op *op, enum rc_basic b,
			const void *in, void *inout, size_t n);

#endif
