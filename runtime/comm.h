/*
 * comm.h - communicators and groups.
 *
 * A communicator names a group of processes (world ranks) and a block of
 * four context ids, agreed collectively (coll/comm_create.c):
 *   ctx + RC_CTX_P2P    point-to-point traffic
 *   ctx + RC_CTX_COLL   collectives (tag: the collective's sequence number)
 *   ctx + RC_CTX_PEER   MPI_Intercomm_create's leaders, when this is the
 *                       peer communicator (tag: the user's)
 *   ctx + RC_CTX_GROUP  MPI_Comm_create_group's members (tag: the user's)
 * so none of the four kinds of traffic can match another's. This layer
 * keeps the bitmap of blocks in use and the local half of the agreement
 * (ctxid.c, below).
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
/* its contexts are another's: the last release leaves them marked */
#define RC_COMM_BORROWED 0x2u

struct rc_comm {
	struct rc_hobj h; /* live until MPI_Comm_free (handle.h) */
	struct rc_inst *inst;
	unsigned flags;
	uint32_t ctx; /* first of the block (RC_CTX_*) */
	int rank, size;		/* in the local group */
	struct rc_group *group; /* the local group */
	/* whom ranks name in point-to-point: group, or for an
	 * intercommunicator the remote group */
	struct rc_group *pgroup;
	/* intercommunicator: the remote group (NULL for an intracomm) and
	 * the local group as an intracommunicator, for the local steps of
	 * collectives (contexts ctx + RC_CTX_PEER / RC_CTX_GROUP, borrowed) */
	struct rc_group *rgroup;
	struct rc_comm *local;
	struct rc_errhandler *errh;
	/* a private communicator of another object (a window's): errors
	 * raised on it go to errh as that object's, with its handle
	 * (eh_obj: enum rc_eh_obj; NULL eh_handle: the communicator's own) */
	void *eh_handle;
	int eh_obj;
	struct rc_topo *topo;	/* Cartesian topology, if any (topo.h) */
	struct rc_info *info;	/* hints (MPI_Comm_set_info), or NULL */
	struct rc_attr *attrs;	/* cached attributes (attr.h) */
	char name[MPI_MAX_OBJECT_NAME];
	/* Written by operations (each pooled request holds a reference):
	 * a cache line away from the fields above, which other threads read
	 * outside the critical section (MPI_Comm_rank, thread.h). On one
	 * line, a thread calling MPI_Comm_rank in a loop cut the message
	 * rate of a thread streaming on the communicator to a third
	 * (bench/RESULTS.md). */
	int refcount __attribute__((aligned(64)));
	uint32_t coll_seq; /* collective sequence number (tags) */
};

/* World rank of the process that rank r names in point-to-point (in the
 * remote group of an intercommunicator). */
static inline int rc_comm_wrank(const struct rc_comm *c, int r)
{
	return c->pgroup->wranks[r];
}

/* How many ranks point-to-point may name (the remote group's size for an
 * intercommunicator). */
static inline int rc_comm_psize(const struct rc_comm *c)
{
	return c->pgroup->size;
}

static inline bool rc_comm_is_inter(const struct rc_comm *c)
{
	return c->rgroup != NULL;
}

enum rc_ctx_kind {
	RC_CTX_P2P = 0,
	RC_CTX_COLL,
	RC_CTX_PEER,
	RC_CTX_GROUP,
	RC_CTX_BLOCK /* ids per communicator */
};

static inline uint32_t rc_comm_coll_ctx(const struct rc_comm *c)
{
	return c->ctx + RC_CTX_COLL;
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

/* References (no-ops on world and self; atomic at MULTIPLE, where a
 * receive posted outside the section takes one). The last release, in
 * the section, frees the communicator and its context ids. */
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

/*
 * A new intercommunicator between the local group `lg` (my rank its rank)
 * and the remote group `rg` (both retained) with context block ctx, agreed
 * over both groups and rc_ctx_mark()ed; errhandler: the parent's.
 */
int rc_intercomm_new(struct rc_inst *inst, struct rc_group *lg,
		     struct rc_group *rg, uint32_t ctx,
		     const struct rc_comm *parent, struct rc_comm **out);

/* Create world and self for inst (into the given objects when non-NULL,
 * else allocated). */
int rc_comm_init_world(struct rc_inst *inst, struct rc_comm *world,
		       struct rc_comm *self);
void rc_comm_fini_world(struct rc_inst *inst);

/* Mark the block of context ctx used or free in this process. */
void rc_ctx_mark(struct rc_inst *inst, uint32_t ctx, bool used);
bool rc_ctx_used(const struct rc_inst *inst, uint32_t ctx);

/*
 * Context-id agreement, the local half (ctxid.c; the rounds of messages
 * are coll/comm_create.c's). A round: every participant proposes a bitmap
 * of context blocks (RC_CTX_WORDS words, bit b = block b, plus a last word
 * that is all ones when the proposal withholds nothing), the proposals are
 * ANDed over all participants, and everyone settles on the result alike:
 * the lowest block set in it, or another round, or no context at all.
 *
 * Several agreements may be in flight in one process (MPI_Comm_idup,
 * threads, MPI_Comm_create_group of disjoint groups), and one process's
 * agreements need not start in the same order as another's. So a proposal
 * offers only the blocks of regions it holds for the round, and holding is
 * exclusive per process:
 *   - eager region (the first RC_CTX_EAGER_WORDS words): a first round may
 *     take it when no other round holds it; a first round proposes nothing
 *     else, since other participants may not have called yet and a held
 *     region must never wait on them (a blocking creation elsewhere could
 *     be what keeps them away).
 *   - main region (the rest), and the eager region after the first round:
 *     taken only by the agreement of highest priority (lowest key) among
 *     those of this process that are past their first round, when free.
 *     After its first round every participant has called, so a round
 *     completes in finite time, and the agreement of lowest key anywhere
 *     gets every region on every participant within a few rounds: rounds
 *     never livelock.
 * The key is the same on every participant and unique among agreements
 * that share a process: (context, tag) of the messages the agreement runs
 * on. A round that finds nothing while someone withheld a region is
 * retried; one that finds nothing while nobody withheld is exhaustion,
 * the same verdict everywhere. Bystanders (split with MPI_UNDEFINED, ranks
 * outside the new group) take nothing and propose every block.
 */
#define RC_CTX_WORDS (RC_CTX_MAX / RC_CTX_BLOCK / 32)
#define RC_CTX_EAGER_WORDS 2
/* words of a round's proposal: first rounds offer the eager region only */
#define RC_CTX_FIRST_WORDS (RC_CTX_EAGER_WORDS + 1)
#define RC_CTX_FULL_WORDS (RC_CTX_WORDS + 1)

struct rc_ctx_key {
	uint64_t hi, lo;
};

struct rc_ctx_agree {
	struct rc_ctx_agree *next; /* inst->ctx_agree, by key */
	struct rc_ctx_key key;
	bool member; /* keeps the context (else a bystander) */
	bool listed;
	bool entered;  /* past the first round */
	unsigned held; /* regions held this round */
	unsigned rounds;
};

/* Start an agreement (key set by the caller, member or bystander). */
void rc_ctx_agree_init(struct rc_ctx_agree *a, struct rc_ctx_key key,
		       bool member);
/* The words this round proposes (RC_CTX_FIRST_WORDS or _FULL_WORDS). */
unsigned rc_ctx_round_words(const struct rc_ctx_agree *a);
/* Fill this round's proposal (rc_ctx_round_words words), holding what it
 * offers until rc_ctx_settle. */
void rc_ctx_propose(struct rc_inst *inst, struct rc_ctx_agree *a,
		    uint32_t *mask);
/* Settle on the ANDed proposals: RC_OK with *ctx (its block marked used
 * for a member), RC_AGAIN for another round, or RC_ERR_NOCTX. Releases
 * what the round held; the agreement ends unless RC_AGAIN. */
int rc_ctx_settle(struct rc_inst *inst, struct rc_ctx_agree *a,
		  const uint32_t *res, uint32_t *ctx);
/* End an agreement early (a failed round): release everything. */
void rc_ctx_abandon(struct rc_inst *inst, struct rc_ctx_agree *a);

#endif
