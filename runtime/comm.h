/*
 * comm.h - communicators and groups.
 *
 * A communicator names a group of processes (world ranks) and two context
 * ids: ctx for point-to-point traffic and ctx + 1 for collectives, so the two
 * never match each other. Context ids are agreed collectively
 * (coll/comm_create.c); this layer only keeps the bitmap of pairs in use.
 *
 * Lifetime: a communicator is reference counted. MPI_Comm_free drops the
 * user's reference and invalidates the handle at once; every pooled request
 * (pt2pt or collective) holds a reference on req->comm, so a communicator
 * freed with operations pending lives, and keeps its context ids, until the
 * last of them is released. Groups are reference counted the same way.
 * Where the rest lives: groups (runtime/group.c), local queries, names and
 * attributes (runtime/comm_api.c), Cartesian math (runtime/topo.c), the
 * collective constructors (coll/comm_create.c).
 */
#ifndef RC_COMM_H
#define RC_COMM_H

#include <stdbool.h>
#include <stdint.h>
#include <mpi.h>
#include "handle.h"

struct rc_inst;
struct rc_attr;
struct rc_errhandler;
struct rc_info;
struct rc_topo;

struct rc_group {
	struct rc_hobj h; /* handle.h */
	int refcount;
	bool predefined;
	int size;
	int rank;		/* my rank in the group or MPI_UNDEFINED */
	int *wranks;		/* group rank -> world rank */
};

#define RC_COMM_PREDEFINED 0x1u

struct rc_comm {
	struct rc_hobj h; /* live until MPI_Comm_free (handle.h) */
	struct rc_inst *inst;
	int refcount;
	unsigned flags;
	uint32_t ctx;		/* pt2pt context id; collectives use ctx + 1 */
	int rank, size;
	struct rc_group *group;
	struct rc_errhandler *errh;
	uint32_t coll_seq;	/* collective sequence number (tags) */
	struct rc_topo *topo;	/* Cartesian topology, if any (topo.h) */
	struct rc_info *info;	/* hints (MPI_Comm_set_info), or NULL */
	struct rc_attr *attrs;	/* cached attributes (attr.h) */
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
static inline bool rc_comm_valid(const struct rc_comm *c)
{
	return rc_hobj_is(c, RC_HK_COMM);
}

/* Is g a live group handle (MPI_GROUP_EMPTY included)? */
static inline bool rc_group_valid(const struct rc_group *g)
{
	return rc_hobj_is(g, RC_HK_GROUP);
}
struct rc_group *rc_group_new(int size);
void rc_group_retain(struct rc_group *g);
void rc_group_release(struct rc_group *g);
/* Rank of world rank w in g, or MPI_UNDEFINED. */
int rc_group_rank_of(const struct rc_group *g, int w);
/* MPI_IDENT (same members, same order), MPI_SIMILAR or MPI_UNEQUAL. */
int rc_group_compare(const struct rc_group *a, const struct rc_group *b);

/* References (no-ops on world and self). The last release frees the
 * communicator and its context ids. */
void rc_comm_retain(struct rc_comm *c);
void rc_comm_release(struct rc_comm *c);

/*
 * A new communicator over `group` (retained) with context pair ctx, which
 * the caller has agreed and rc_ctx_mark()ed; my rank is the group's rank.
 * Errhandler: the parent's. Handle valid on return.
 */
int rc_comm_new(struct rc_inst *inst, struct rc_group *group, uint32_t ctx,
		const struct rc_comm *parent, struct rc_comm **out);

/*
 * What a dup copies besides group and topology, once the new communicator
 * nc exists (MPI_Comm_dup, MPI_Comm_dup_with_info, and MPI_Comm_idup when
 * its new communicator is made): the hints (old's, or `info` when
 * with_info; NULL: none) and the attributes (their copy callbacks run).
 * Returns an MPI error code: MPI_SUCCESS, or the first failure (a copy
 * callback's own code); on failure nc holds none of them, and the caller
 * frees it.
 */
int rc_comm_dup_cache(struct rc_comm *old, struct rc_comm *nc,
		      const struct rc_info *info, bool with_info);

/* The value of predefined attribute `keyval` (MPI_TAG_UB ...) on comm,
 * or NULL when it is not set (MPI_APPNUM). */
int *rc_comm_predef_attr(const struct rc_comm *comm, int keyval);

/* Create world and self for inst (into the given objects when non-NULL,
 * else allocated). */
int rc_comm_init_world(struct rc_inst *inst, struct rc_comm *world,
		       struct rc_comm *self);
void rc_comm_fini_world(struct rc_inst *inst);

/* Mark a context id pair used or free in this process. */
void rc_ctx_mark(struct rc_inst *inst, uint32_t ctx, bool used);
/* Lowest pair (even ctx) free in `free_mask` (a bitmap of RC_CTX_MAX bits,
 * 1 = free), or -1 when every pair is taken. */
int rc_ctx_lowest_free(const uint32_t *free_mask);

#endif
