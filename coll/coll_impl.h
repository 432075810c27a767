/*
 * coll_impl.h - inside the collective module: schedules, the arguments of
 * a collective, and the algorithm tables.
 *
 * A collective is built as a schedule: a list of operations (send, receive,
 * local reduction, local copy) cut into rounds by WAIT markers. sched.c
 * starts the operations of a round in order - sends and receives as
 * nonblocking pt2pt requests on the communicator's collective context with
 * the collective's tag, local operations at once - and starts the next
 * round when every request of the round has completed (from the requests'
 * completion callbacks, inside progress). When the last round is done, the
 * collective request completes. Blocking collectives run the same
 * schedules and wait on a request on their stack.
 *
 * Tags: every collective on a communicator takes the next value of
 * comm->coll_seq as its tag, so the messages of outstanding collectives
 * (and of the context-id agreement inside MPI_Comm_dup) never match each
 * other's. Within one collective, messages between two ranks are matched
 * in the order both sides post them; every algorithm posts them in the
 * same order on both sides.
 */
#ifndef RC_COLL_IMPL_H
#define RC_COLL_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "coll.h"
#include "comm.h"
#include "compiler.h"
#include "inst.h"
#include "dtype.h"
#include "op.h"
#include "request.h"
#include "status.h"

struct rc_inst;

enum rc_sop_kind {
	RC_SOP_SEND = 1,
	RC_SOP_RECV,
	RC_SOP_WAIT,	/* end of a round */
	RC_SOP_REDUCE,	/* dst = src op dst (src is the left operand) */
	RC_SOP_COPY,	/* (src, n1, dt1) -> (dst, n2, dt2), packed bytes */
	RC_SOP_CALL,	/* fn(s, arg): a local step of a composite op */
};

struct rc_sched;
typedef void (*rc_sched_fn)(struct rc_sched *s, void *arg);

struct rc_sop {
	uint8_t kind;
	uint8_t side;		/* send, receive: the communicator (sched) */
	uint16_t tagoff;	/* send, receive: added to the tag (slots) */
	int peer;		/* comm rank (send, receive) */
	size_t n1, n2;
	struct rc_dtype *dt1, *dt2;
	const void *src;	/* send buffer, reduce input, copy source */
	void *dst;		/* receive buffer, reduce in-out, copy target,
				 * call argument */
	rc_sched_fn fn;
};

#define RC_SCHED_HOLD 4

struct rc_sched {
	struct rc_sched *next;	/* the instance's cache */
	struct rc_inst *inst;
	/* the communicator that operations appended now address (side 0
	 * unless rc_sched_use says otherwise) */
	struct rc_comm *comm;
	/* side 1: a second communicator, context and tag (an
	 * intercommunicator's local group; the peer communicator of
	 * MPI_Intercomm_create) */
	struct rc_comm *comm1;
	uint32_t ctx1;
	int tag1;
	uint8_t side;		/* of appended operations */
	uint16_t tagoff;	/* of appended operations */
	struct rc_comm *comm0;	/* side 0: the collective's own */
	struct rc_req *req;	/* the collective request */
	struct rc_op *op;	/* retained */
	struct rc_dtype *hold[RC_SCHED_HOLD];	/* retained datatypes */
	int nhold;
	/* more of them (alltoallw's types), kept across runs */
	struct rc_dtype **xhold;
	unsigned nxhold, xhold_cap;
	uint32_t ctx;
	int tag;
	int err;		/* first failure while running */
	int berr;		/* failure while building */
	unsigned nops, cap, cur, pending;
	bool advancing;
	bool keep; /* a persistent collective's: not given back
		    * when it completes (rc_sched_keep) */
	struct rc_sop *ops;
	/* scratch: a cached arena, and blocks that did not fit in it */
	char *tmp;
	size_t tmp_used, tmp_cap, tmp_want;
	void **extra;
	unsigned nextra, extra_cap;
};

/* ---- schedules (sched.c) ---- */

/* A schedule for one collective on comm (takes the next tag); NULL when
 * out of memory. */
struct rc_sched *rc_sched_new(struct rc_comm *comm);
/* A schedule on comm's members with its own context and tag (takes no
 * sequence number: MPI_Comm_create_group's, keyed by the user's tag). */
struct rc_sched *rc_sched_new_keyed(struct rc_comm *comm, uint32_t ctx,
				    int tag);
/* Side 1 of s: operations appended after rc_sched_use(s, 1) address comm
 * with context ctx and tag `tag`. */
void rc_sched_set_side(struct rc_sched *s, struct rc_comm *comm, uint32_t ctx,
		       int tag);
/* Append the following operations to side 0 or 1 (s->comm follows). */
void rc_sched_use(struct rc_sched *s, int side);
/* Sends and receives appended from now on use tag + off (a collective
 * that took several tags: neighbourhood collectives' slots). */
static inline void rc_sched_tagoff(struct rc_sched *s, int off)
{
	s->tagoff = (uint16_t)off;
}
/* Give back a schedule that was never started. */
void rc_sched_discard(struct rc_sched *s);
/* Keep op / a datatype alive until the schedule ends. */
void rc_sched_hold_op(struct rc_sched *s, struct rc_op *op);
void rc_sched_hold_dt(struct rc_sched *s, struct rc_dtype *dt);

void rc_sched_send(struct rc_sched *s, const void *buf, size_t count,
		   struct rc_dtype *dt, int peer);
void rc_sched_recv(struct rc_sched *s, void *buf, size_t count,
		   struct rc_dtype *dt, int peer);
void rc_sched_wait(struct rc_sched *s);
/* inout = in op inout, count elements of dt, with the schedule's op */
void rc_sched_reduce(struct rc_sched *s, const void *in, void *inout,
		     size_t count, struct rc_dtype *dt);
void rc_sched_copy(struct rc_sched *s, const void *src, size_t scount,
		   struct rc_dtype *sdt, void *dst, size_t dcount,
		   struct rc_dtype *ddt);
/* Run fn(s, arg) at this point of the schedule (it may set s->err, and
 * it may append operations, which then run after it: a schedule can loop
 * or choose its next steps from data it has received). */
void rc_sched_call(struct rc_sched *s, rc_sched_fn fn, void *arg);
/* Scratch of len bytes, 64-byte aligned, for the schedule's lifetime. */
void *rc_sched_tmp(struct rc_sched *s, size_t len);
/* Scratch for count elements of dt; the returned pointer is the buffer
 * address to use with (count, dt) (true lower bound applied). */
void *rc_sched_tmp_dt(struct rc_sched *s, size_t count,
		      const struct rc_dtype *dt);

/* Start a built schedule as req (RC_REQ_COLL, INACTIVE, req->comm set).
 * The request may be complete on return. */
int rc_sched_start(struct rc_sched *s, struct rc_req *req);
/* Keep s when it completes (a persistent collective's, built of fixed
 * operations only: no CALL steps): rc_sched_start runs it again from its
 * first operation, rc_sched_discard gives it back. */
void rc_sched_keep(struct rc_sched *s);

/* Copy packed bytes of (src, scount, sdt) into (dst, dcount, ddt). */
void rc_coll_copy(const void *src, size_t scount, struct rc_dtype *sdt,
		  void *dst, size_t dcount, struct rc_dtype *ddt);

void rc_sched_cache_free(struct rc_inst *inst);

/* ---- algorithms ---- */

/* Append collective `coll` (algorithm chosen as for a call of its own) to
 * a schedule: composite operations (communicator creation) use this. */
int rc_coll_append(struct rc_sched *s, int coll, const struct rc_cargs *a);

typedef int (*rc_coll_build_fn)(struct rc_sched *s, const struct rc_cargs *a);

struct rc_coll_alg {
	const char *name;
	rc_coll_build_fn build;
	/* can it run these arguments (e.g. commutative ops only)? NULL: yes */
	bool (*usable)(const struct rc_comm *c, const struct rc_cargs *a);
	/* a blocking call this rank can finish without building a schedule
	 * (a leaf of a tree whose whole part is one send, made with
	 * rc_coll_send_direct; a neighbourhood call's few messages), taking
	 * the same tags as the schedule would; RC_AGAIN: not on this rank or
	 * with these arguments. NULL: never */
	int (*direct)(struct rc_comm *c, const struct rc_cargs *a);
};

struct rc_coll_desc {
	const char *name;	/* "allreduce": RCMPI_COLL_ALLREDUCE */
	const struct rc_coll_alg *algs;	/* ends with a NULL name */
	/* the default choice by message and communicator size */
	int (*choose)(const struct rc_comm *c, const struct rc_cargs *a);
};

extern const struct rc_coll_desc rc_coll_descs[RC_COLL_N];
/* On intercommunicators (alg_inter.c). */
extern const struct rc_coll_desc rc_coll_inter_descs[RC_COLL_N];

/* Tuning parameters (select.c, read once per instance). */
struct rc_coll_tune {
	/* (README.md: RCMPI_COLL_* parameters) */
	size_t bcast_short;	/* binomial below (bytes) */
	size_t bcast_min_procs;	/* binomial below this many ranks */
	size_t reduce_short;	/* binomial up to (bytes) */
	size_t reduce_segsize;	/* binomial reduce segments (bytes) */
	size_t allreduce_short;	/* recursive doubling up to */
	size_t allreduce_ring;	/* ring from (bytes), 0 = never */
	size_t allgather_short;	/* rec. doubling / Bruck below (total) */
	size_t gather_short;	/* gather/scatter binomial below (block) */
	size_t alltoall_short;	/* Bruck up to (block bytes) */
	size_t alltoall_medium;	/* linear up to (block bytes) */
	size_t redscat_short;	/* recursive halving below (total) */
	size_t tmp_cache;	/* largest scratch arena kept */
};

struct rc_coll_state {
	struct rc_sched *cache;	/* schedules ready for reuse */
	unsigned ncached;
	int force[RC_COLL_N];	/* forced algorithm index, -1: choose */
	int force_inter[RC_COLL_N]; /* the same on intercommunicators */
	struct rc_coll_tune tune;
};

struct rc_coll_state *rc_coll_state(struct rc_inst *inst);

/* Per-collective algorithm tables (alg_*.c). */
#define RC_COLL_ALGS(name) \
	extern const struct rc_coll_alg rc_##name##_algs[]; \
	int rc_##name##_choose(const struct rc_comm *c, \
			       const struct rc_cargs *a);
RC_COLL_ALGS(barrier)
RC_COLL_ALGS(bcast)
RC_COLL_ALGS(reduce)
RC_COLL_ALGS(allreduce)
RC_COLL_ALGS(gather)
RC_COLL_ALGS(gatherv)
RC_COLL_ALGS(scatter)
RC_COLL_ALGS(scatterv)
RC_COLL_ALGS(allgather)
RC_COLL_ALGS(allgatherv)
RC_COLL_ALGS(alltoall)
RC_COLL_ALGS(alltoallv)
RC_COLL_ALGS(reduce_scatter)
RC_COLL_ALGS(reduce_scatter_block)
RC_COLL_ALGS(scan)
RC_COLL_ALGS(exscan)
RC_COLL_ALGS(alltoallw)
RC_COLL_ALGS(neighbor_allgather)
RC_COLL_ALGS(neighbor_allgatherv)
RC_COLL_ALGS(neighbor_alltoall)
RC_COLL_ALGS(neighbor_alltoallv)
RC_COLL_ALGS(neighbor_alltoallw)
#undef RC_COLL_ALGS

/* Alltoallw on an intercommunicator (alg_nbr.c, in alg_inter.c's
 * table). */
int rc_inter_alltoallw_linear(struct rc_sched *s, const struct rc_cargs *a);

/* Building blocks shared by several collectives (they append to s). */
int rc_bcast_binomial(struct rc_sched *s, const struct rc_cargs *a);
int rc_reduce_binomial(struct rc_sched *s, const struct rc_cargs *a);

/* ---- small helpers ---- */

/* The tag of the communicator's next collective (every rank counts its
 * collectives alike, so the n-th one has the same tag everywhere). */
static inline int rc_coll_next_tag(struct rc_comm *comm)
{
	return (int)(comm->coll_seq++ & 0x7fffffffu);
}

/* Take n - 1 more tags after a schedule's own (tag .. tag + n - 1). */
static inline void rc_coll_more_tags(struct rc_comm *comm, int n)
{
	if (n > 1)
		comm->coll_seq += (uint32_t)(n - 1);
}

/* A direct algorithm's one send, with the tag its schedule would have had. */
int rc_coll_send_direct(struct rc_comm *comm, const void *buf, size_t count,
			struct rc_dtype *dt, int peer);

static inline const struct rc_coll_tune *rc_coll_tune(const struct rc_comm *c)
{
	return &((const struct rc_coll_state *)c->inst->coll)->tune;
}

/* The input of a reduction: sbuf, or rbuf with MPI_IN_PLACE. */
static inline const void *rc_red_in(const struct rc_cargs *a)
{
	return a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
}

static inline int rc_pof2_floor(int n)
{
	int p = 1;

	while (p * 2 <= n)
		p *= 2;
	return p;
}

static inline char *rc_off(const void *buf, size_t count,
			   const struct rc_dtype *dt)
{
	/* integer arithmetic: buf may be NULL (nothing to move, or
	 * MPI_BOTTOM with absolute displacements) */
	return (char *)((uintptr_t)buf +
			(uintptr_t)((ptrdiff_t)count * rc_dt_extent(dt)));
}

static inline bool rc_commutative(const struct rc_cargs *a)
{
	return a->op->commute;
}

#endif
