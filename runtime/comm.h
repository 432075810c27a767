/*
 * comm.h - communicators and groups.
 *
 * A communicator names a group of processes (world ranks) and two context
 * ids: ctx for point-to-point traffic and ctx + 1 for collectives, so the two
 * never match each other. Context ids are agreed collectively (comm.c).
 */
#ifndef RC_COMM_H
#define RC_COMM_H

#include <stdbool.h>
#include <stdint.h>
#include <mpi.h>

struct rc_inst;
struct rc_errhandler;

struct rc_group {
	int refcount;
	bool predefined;
	int size;
	int rank;		/* my rank in the group or MPI_UNDEFINED */
	int *wranks;		/* group rank -> world rank */
};

#define RC_COMM_PREDEFINED 0x1u

#define RC_COMM_MAGIC 0x636f6d6du

struct rc_comm {
	uint32_t magic;		/* RC_COMM_MAGIC while the handle is live */
	struct rc_inst *inst;
	int refcount;
	unsigned flags;
	uint32_t ctx;		/* pt2pt context id; collectives use ctx + 1 */
	int rank, size;
	struct rc_group *group;
	struct rc_errhandler *errh;
	uint32_t coll_seq;	/* collective sequence number (tags) */
	void *topo;		/* Cartesian topology, if any */
	char name[MPI_MAX_OBJECT_NAME];
};

static inline int rc_comm_wrank(const struct rc_comm *c, int r)
{
	return c->group->wranks[r];
}

static inline uint32_t rc_comm_coll_ctx(const struct rc_comm *c)
{
	return c->ctx + 1;
}

/* Is c a live communicator handle? */
bool rc_comm_valid(const struct rc_comm *c);

struct rc_group *rc_group_new(int size);
void rc_group_release(struct rc_group *g);

/* Create world and self for inst (into the given objects when non-NULL,
 * else allocated). */
int rc_comm_init_world(struct rc_inst *inst, struct rc_comm *world,
		       struct rc_comm *self);
void rc_comm_fini_world(struct rc_inst *inst);

/* Mark a context id pair used or free in this process. */
void rc_ctx_mark(struct rc_inst *inst, uint32_t ctx, bool used);

#endif
