/*
 * comm_create.c - the collective communicator constructors: context-id
 * agreement, MPI_Comm_dup / idup, MPI_Comm_split, MPI_Comm_split_type,
 * MPI_Comm_create, MPI_Comm_create_group, MPI_Cart_create, MPI_Cart_sub,
 * and MPI_Comm_free.
 *
 * Every constructor is one schedule on the parent communicator: on its
 * collective context with the parent's next collective tag, or, for
 * MPI_Comm_create_group (which the parent's other members never call, so
 * their sequence numbers must not move), on the parent's RC_CTX_GROUP
 * context with the user's tag, among the group's members only.
 *   split only:  allgather of (color, key) over the parent
 *   all:         context-id agreement (comm.h: the protocol): rounds of
 *                propose (runtime, ctxid.c) -> allreduce(BAND) of the
 *                proposals -> settle, appended by the schedule itself
 *                while it runs, until settled. The first round offers the
 *                small eager region only (12 bytes), so an uncontended
 *                creation costs one tiny allreduce; the context block is
 *                the same on every rank, for every color of a split (the
 *                groups are disjoint)
 *   all:         a local step: members of the new group build the
 *                communicator (group in the new rank order, errhandler
 *                inherited, Cartesian topology attached for Cart_create /
 *                Cart_sub, copied by dup); the others get MPI_COMM_NULL.
 * Any number of creations may be in flight in one process (MPI_Comm_idup,
 * and threads): each round holds its bitmap region only while it runs,
 * and rounds never wait on anyone who has not called (comm.h).
 *
 * MPI_Comm_free is local: it invalidates the handle and drops the user's
 * reference; the context block is released with the last reference
 * (runtime/comm.c), so pending operations on a freed communicator finish
 * normally and no new communicator can reuse its context meanwhile.
 */
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "coll_impl.h"
#include "comm_cc.h"
#include "inst.h"
#include "pt2pt.h"
#include "thread.h"
#include "topo.h"

#define TAG_UB 0x7fffffff /* MPI_TAG_UB's value (comm_api.c) */

enum { CC_FIXED, CC_SPLIT };

/* What the final step needs (lives in the schedule's scratch). */
struct cc {
	struct rc_comm *parent;
	struct rc_comm **out;
	int kind;
	struct rc_cc_agree ag;
	int *ck;		/* split: (color, key) per parent rank */
	int color;
	int *members;		/* parent ranks of the new group */
	int nmembers;		/* -1: the parent's own group (dup) */
	/* topology to attach: ndims >= 0 */
	int ndims;
	int *dims, *periods;
};

struct ck_ent {
	int key, rank;
};

static int ck_cmp(const void *a, const void *b)
{
	const struct ck_ent *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->rank - y->rank;
}

/* Split: my color's members ordered by (key, parent rank). */
static int cc_split_members(struct cc *c)
{
	int n = c->parent->size, i, k = 0;
	struct ck_ent *e;

	c->nmembers = 0;
	if (c->color == MPI_UNDEFINED)
		return RC_OK;
	e = malloc(sizeof(*e) * (size_t)n);
	if (!e)
		return RC_ERR_NOMEM;
	for (i = 0; i < n; i++)
		if (c->ck[2 * i] == c->color) {
			e[k].key = c->ck[2 * i + 1];
			e[k].rank = i;
			k++;
		}
	qsort(e, (size_t)k, sizeof(*e), ck_cmp);
	for (i = 0; i < k; i++)
		c->members[i] = e[i].rank;
	c->nmembers = k;
	free(e);
	return RC_OK;
}

/* ---- building the communicator ------------------------------------------- */

static void cc_finish(struct rc_sched *s, void *arg)
{
	struct cc *c = arg;
	struct rc_comm *p = c->parent, *nc = NULL;
	struct rc_inst *inst = p->inst;
	struct rc_group *g;
	uint32_t ctx = c->ag.ctx;
	int i, me = MPI_UNDEFINED, ret;

	*c->out = NULL;
	if (s->err)
		return;
	if (c->kind == CC_SPLIT) {
		ret = cc_split_members(c);
		if (ret)
			goto err_unmark;
	}
	if (c->nmembers < 0) {
		g = p->group;
		rc_group_retain(g);
	} else {
		for (i = 0; i < c->nmembers; i++)
			if (c->members[i] == p->rank)
				me = i;
		if (me == MPI_UNDEFINED)
			return;
		g = rc_group_new(c->nmembers);
		if (!g) {
			ret = RC_ERR_NOMEM;
			goto err_unmark;
		}
		for (i = 0; i < c->nmembers; i++)
			g->wranks[i] = p->group->wranks[c->members[i]];
		g->rank = me;
	}
	ret = rc_comm_new(inst, g, ctx, p, &nc);
	rc_group_release(g);
	if (ret)
		goto err_unmark;
	if (c->ndims >= 0) {
		ret = rc_topo_cart_new(c->ndims, c->dims, c->periods, nc->rank,
				       &nc->topo);
		if (ret)
			goto err_free_comm;
	}
	*c->out = nc;
	return;

err_free_comm:
	rc_comm_release(nc);	/* unmarks the context */
	s->err = ret;
	return;
err_unmark:
	rc_ctx_mark(inst, ctx, false);
	s->err = ret;
}

/* A schedule and its descriptor for a constructor on parent. */
static struct cc *cc_begin(struct rc_comm *parent, struct rc_comm **out,
			   int kind, struct rc_sched **sp)
{
	struct rc_sched *s = rc_sched_new(parent);
	struct cc *c;

	if (!s)
		return NULL;
	c = rc_sched_tmp(s, sizeof(*c));
	if (!c) {
		rc_sched_discard(s);
		return NULL;
	}
	memset(c, 0, sizeof(*c));
	c->parent = parent;
	c->out = out;
	c->kind = kind;
	c->nmembers = -1;
	c->ndims = -1;
	c->ag.rside = -1;
	c->ag.rleader = -1;
	*sp = s;
	return c;
}

/* Members array of n entries in the schedule's scratch. */
static int *cc_members(struct rc_sched *s, int n)
{
	return rc_sched_tmp(s, sizeof(int) * (size_t)(n ? n : 1));
}

static int cc_set_topo(struct rc_sched *s, struct cc *c, int ndims,
		       const int *dims, const int *periods)
{
	c->ndims = ndims;
	c->dims = rc_sched_tmp(s, sizeof(int) * (size_t)(ndims + 1));
	c->periods = rc_sched_tmp(s, sizeof(int) * (size_t)(ndims + 1));
	if (!c->dims || !c->periods)
		return RC_ERR_NOMEM;
	if (ndims) {
		memcpy(c->dims, dims, sizeof(int) * (size_t)ndims);
		memcpy(c->periods, periods, sizeof(int) * (size_t)ndims);
	}
	return RC_OK;
}

/* Does this process keep the new communicator (it takes part in the
 * agreement either way)? */
static bool cc_member(const struct cc *c)
{
	int i;

	if (c->kind == CC_SPLIT)
		return c->color != MPI_UNDEFINED;
	if (c->nmembers < 0)
		return true;
	for (i = 0; i < c->nmembers; i++)
		if (c->members[i] == c->parent->rank)
			return true;
	return false;
}

/* Append the agreement and the final step; start or run it. */
static int cc_go(struct rc_sched *s, struct cc *c, struct rc_req **reqp)
{
	rc_cc_agree(s, &c->ag, rc_cc_key(s), cc_member(c), cc_finish, c);
	return rc_cc_run(s, c->parent, reqp);
}

int rc_comm_dup(struct rc_comm *comm, struct rc_comm **out,
		struct rc_req **reqp)
{
	struct rc_sched *s;
	struct cc *c;
	struct rc_topo *t = comm->topo;

	if (rc_comm_is_inter(comm))
		return rc_intercomm_dup(comm, out, reqp);
	c = cc_begin(comm, out, CC_FIXED, &s);
	if (!c)
		return RC_ERR_NOMEM;
	if (t && cc_set_topo(s, c, t->ndims, t->dims, t->periods)) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	return cc_go(s, c, reqp);
}

int rc_comm_split(struct rc_comm *comm, int color, int key,
		  struct rc_comm **out, struct rc_req **reqp)
{
	struct rc_sched *s;
	struct cc *c;
	struct rc_cargs a;
	int n = comm->size;

	if (rc_comm_is_inter(comm))
		return rc_intercomm_split(comm, color, key, out, reqp);
	c = cc_begin(comm, out, CC_SPLIT, &s);
	if (!c)
		return RC_ERR_NOMEM;
	c->color = color;
	c->ck = rc_sched_tmp(s, sizeof(int) * 2 * (size_t)n);
	c->members = cc_members(s, n);
	if (!c->ck || !c->members) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	c->ck[2 * comm->rank] = color;
	c->ck[2 * comm->rank + 1] = key;
	memset(&a, 0, sizeof(a));
	a.sbuf = MPI_IN_PLACE;
	a.rbuf = c->ck;
	a.rcount = 2;
	a.rdt = &rc_mpi_int;
	if (rc_coll_append(s, RC_COLL_ALLGATHER, &a)) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	return cc_go(s, c, reqp);
}

int rc_comm_split_type(struct rc_comm *comm, int type, int key,
		       struct rc_comm **out, struct rc_req **reqp)
{
	struct rc_inst *inst = comm->inst;
	int color = MPI_UNDEFINED, i;

	if (type == MPI_COMM_TYPE_SHARED) {
		/* the node's name: its lowest world rank in comm (every rank
		 * of the node sees the same set of local members) */
		color = comm->group->wranks[comm->rank];
		for (i = 0; i < comm->size; i++) {
			int w = comm->group->wranks[i];

			if (inst->procs[w].local && w < color)
				color = w;
		}
	}
	return rc_comm_split(comm, color, key, out, reqp);
}

int rc_comm_create(struct rc_comm *comm, struct rc_group *group,
		   struct rc_comm **out, struct rc_req **reqp)
{
	struct rc_sched *s;
	struct cc *c;
	int i;

	if (rc_comm_is_inter(comm))
		return rc_intercomm_subset(comm, group, out, reqp);
	c = cc_begin(comm, out, CC_FIXED, &s);
	if (!c)
		return RC_ERR_NOMEM;
	c->members = cc_members(s, group->size);
	if (!c->members) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	for (i = 0; i < group->size; i++)
		c->members[i] = rc_group_rank_of(comm->group,
						 group->wranks[i]);
	c->nmembers = group->size;
	return cc_go(s, c, reqp);
}

int rc_comm_create_group(struct rc_comm *comm, struct rc_group *group, int tag,
			 struct rc_comm **out, struct rc_req **reqp)
{
	struct rc_group *g;
	struct rc_comm *t;
	struct rc_sched *s;
	struct cc *c;
	int ret;

	*out = NULL;
	if (group->rank == MPI_UNDEFINED)
		return RC_OK; /* not a member: nothing to agree on */
	/* the members, as a communicator that borrows comm's contexts (over
	 * a group of its own: the user may free theirs) */
	g = rc_group_new(group->size);
	if (!g)
		return RC_ERR_NOMEM;
	memcpy(g->wranks, group->wranks, sizeof(int) * (size_t)group->size);
	g->rank = group->rank;
	ret = rc_comm_new(comm->inst, g, comm->ctx, comm, &t);
	rc_group_release(g);
	if (ret)
		return ret;
	t->flags |= RC_COMM_BORROWED;
	s = rc_sched_new_keyed(t, comm->ctx + RC_CTX_GROUP, tag);
	c = s ? rc_sched_tmp(s, sizeof(*c)) : NULL;
	if (!c) {
		if (s)
			rc_sched_discard(s);
		rc_comm_release(t);
		return RC_ERR_NOMEM;
	}
	memset(c, 0, sizeof(*c));
	c->parent = t;
	c->out = out;
	c->kind = CC_FIXED;
	c->nmembers = -1;
	c->ndims = -1;
	c->ag.rside = -1;
	c->ag.rleader = -1;
	ret = cc_go(s, c, reqp);
	/* a pooled request holds its own reference */
	rc_comm_release(t);
	return ret;
}

int rc_cart_create(struct rc_comm *comm, int ndims, const int *dims,
		   const int *periods, struct rc_comm **out,
		   struct rc_req **reqp)
{
	struct rc_sched *s;
	struct cc *c = cc_begin(comm, out, CC_FIXED, &s);
	int i, nnodes = 1;

	if (!c)
		return RC_ERR_NOMEM;
	for (i = 0; i < ndims; i++)
		nnodes *= dims[i];
	c->members = cc_members(s, nnodes);
	if (!c->members || cc_set_topo(s, c, ndims, dims, periods)) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	/* no reordering: rank i of the grid is rank i of comm */
	for (i = 0; i < nnodes; i++)
		c->members[i] = i;
	c->nmembers = nnodes;
	return cc_go(s, c, reqp);
}

int rc_cart_sub(struct rc_comm *comm, const int *remain,
		struct rc_comm **out, struct rc_req **reqp)
{
	struct rc_topo *t = comm->topo;
	struct rc_sched *s;
	struct cc *c = cc_begin(comm, out, CC_FIXED, &s);
	int *co, *dims, *periods, i, d, k = 0, nd = 0;

	if (!c)
		return RC_ERR_NOMEM;
	c->members = cc_members(s, comm->size);
	co = rc_sched_tmp(s, sizeof(int) * 3 * (size_t)(t->ndims + 1));
	if (!c->members || !co) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	dims = co + t->ndims + 1;
	periods = dims + t->ndims + 1;
	for (d = 0; d < t->ndims; d++)
		if (remain[d]) {
			dims[nd] = t->dims[d];
			periods[nd] = t->periods[d];
			nd++;
		}
	/* same coordinates as mine in every dropped dimension, in rank
	 * order (which is row-major order over the kept dimensions) */
	for (i = 0; i < comm->size; i++) {
		bool same = true;

		rc_cart_coords(t, i, co);
		for (d = 0; d < t->ndims && same; d++)
			same = remain[d] || co[d] == t->coords[d];
		if (same)
			c->members[k++] = i;
	}
	c->nmembers = k;
	if (cc_set_topo(s, c, nd, dims, periods)) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	return cc_go(s, c, reqp);
}

/* ---- API ----------------------------------------------------------------- */

#define CC_ENTER(fn, comm, out)                                            \
	do {                                                               \
		RC_API_CHECK_INIT(fn);                                     \
		if (!rc_comm_valid(comm))                                  \
			return RC_ERR(NULL, MPI_ERR_COMM, fn);             \
		if (!(out))                                                \
			return RC_ERR(comm, MPI_ERR_ARG, fn);              \
	} while (0)

/* (nc by address: it is written by the call in the same argument list) */
static int cc_result(MPI_Comm comm, int ret, struct rc_comm **nc,
		     MPI_Comm *out, const char *fn)
{
	if (ret)
		return rc_api_status(comm, ret, fn);
	*out = *nc;
	return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	struct rc_comm *nc = NULL;

	CC_ENTER("MPI_Comm_dup", comm, newcomm);
	return cc_result(comm, rc_comm_dup(comm, &nc, NULL), &nc, newcomm,
			 "MPI_Comm_dup");
}
RC_WEAK(MPI_Comm_dup)

static int comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
	static const char fn[] = "MPI_Comm_idup";

	CC_ENTER(fn, comm, newcomm);
	if (!request)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	/* *newcomm is written when the request completes */
	return rc_api_status(comm, rc_comm_dup(comm, newcomm, request), fn);
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, comm_idup(comm, newcomm, request));
}
RC_WEAK(MPI_Comm_idup)

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	struct rc_comm *nc = NULL;

	CC_ENTER("MPI_Comm_split", comm, newcomm);
	if (color < 0 && color != MPI_UNDEFINED)
		return RC_ERR_MSG(comm, MPI_ERR_ARG, "MPI_Comm_split",
				  "color must be non-negative or "
				  "MPI_UNDEFINED");
	return cc_result(comm, rc_comm_split(comm, color, key, &nc, NULL), &nc,
			 newcomm, "MPI_Comm_split");
}
RC_WEAK(MPI_Comm_split)

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key,
			 MPI_Info info, MPI_Comm *newcomm)
{
	struct rc_comm *nc = NULL;

	CC_ENTER("MPI_Comm_split_type", comm, newcomm);
	if (rc_comm_is_inter(comm))
		return RC_ERR_MSG(comm, MPI_ERR_COMM, "MPI_Comm_split_type",
				  "an intercommunicator");
	if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
		return RC_ERR_MSG(comm, MPI_ERR_ARG, "MPI_Comm_split_type",
				  "split_type must be MPI_COMM_TYPE_SHARED or "
				  "MPI_UNDEFINED");
	return cc_result(comm, rc_comm_split_type(comm, split_type, key, &nc,
						  NULL),
			 &nc, newcomm, "MPI_Comm_split_type");
}
RC_WEAK(MPI_Comm_split_type)

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	static const char fn[] = "MPI_Comm_create";
	struct rc_comm *nc = NULL;
	int i;

	CC_ENTER(fn, comm, newcomm);
	if (!rc_group_valid(group))
		return RC_ERR(comm, MPI_ERR_GROUP, fn);
	for (i = 0; i < group->size; i++)
		if (rc_group_rank_of(comm->group, group->wranks[i]) ==
		    MPI_UNDEFINED)
			return RC_ERR_MSG(comm, MPI_ERR_GROUP, fn,
					  "group is not a subset of the "
					  "communicator's group");
	return cc_result(comm, rc_comm_create(comm, group, &nc, NULL), &nc,
			 newcomm, fn);
}
RC_WEAK(MPI_Comm_create)

static int comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
			     MPI_Comm *newcomm)
{
	static const char fn[] = "MPI_Comm_create_group";
	struct rc_comm *nc = NULL;
	int i;

	CC_ENTER(fn, comm, newcomm);
	if (rc_comm_is_inter(comm))
		return RC_ERR_MSG(comm, MPI_ERR_COMM, fn,
				  "an intercommunicator");
	if (!rc_group_valid(group))
		return RC_ERR(comm, MPI_ERR_GROUP, fn);
	if (tag < 0 || tag > TAG_UB)
		return RC_ERR(comm, MPI_ERR_TAG, fn);
	for (i = 0; i < group->size; i++)
		if (rc_group_rank_of(comm->group, group->wranks[i]) ==
		    MPI_UNDEFINED)
			return RC_ERR_MSG(comm, MPI_ERR_GROUP, fn,
					  "group is not a subset of the "
					  "communicator's group");
	return cc_result(comm,
			 rc_comm_create_group(comm, group, tag, &nc, NULL), &nc,
			 newcomm, fn);
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
			   MPI_Comm *newcomm)
{
	return RC_CS_CALL(&rc_cs_big,
			  comm_create_group(comm, group, tag, newcomm));
}
RC_WEAK(MPI_Comm_create_group)

int PMPI_Comm_free(MPI_Comm *comm)
{
	struct rc_comm *c;

	RC_API_CHECK_INIT("MPI_Comm_free");
	if (!comm || !rc_comm_valid(*comm))
		return RC_ERR(NULL, MPI_ERR_COMM, "MPI_Comm_free");
	c = *comm;
	if (c->flags & RC_COMM_PREDEFINED)
		return RC_ERR_MSG(c, MPI_ERR_COMM, "MPI_Comm_free",
				  "cannot free MPI_COMM_WORLD or "
				  "MPI_COMM_SELF");
	/* the handle dies now; the object with its last reference */
	c->magic = 0;
	rc_comm_release(c);
	*comm = MPI_COMM_NULL;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Comm_free)

int PMPI_Cart_create(MPI_Comm comm, int ndims, const int dims[],
		     const int periods[], int reorder, MPI_Comm *comm_cart)
{
	static const char fn[] = "MPI_Cart_create";
	struct rc_comm *nc = NULL;
	long nnodes = 1;
	int i;

	CC_ENTER(fn, comm, comm_cart);
	if (rc_comm_is_inter(comm))
		return RC_ERR_MSG(comm, MPI_ERR_COMM, fn,
				  "an intercommunicator");
	if (ndims < 0)
		return RC_ERR_MSG(comm, MPI_ERR_DIMS, fn, "ndims is negative");
	if (ndims && (!dims || !periods))
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	for (i = 0; i < ndims; i++) {
		if (dims[i] <= 0)
			return RC_ERR_MSG(comm, MPI_ERR_DIMS, fn,
					  "a dimension is not positive");
		nnodes *= dims[i];
		if (nnodes > comm->size)
			break;
	}
	if (nnodes > comm->size)
		return RC_ERR_MSG(comm, MPI_ERR_TOPOLOGY, fn,
				  "the grid has more points than the "
				  "communicator has ranks");
	return cc_result(comm, rc_cart_create(comm, ndims, dims, periods, &nc,
					      NULL),
			 &nc, comm_cart, fn);
}
RC_WEAK(MPI_Cart_create)

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
	static const char fn[] = "MPI_Cart_sub";
	struct rc_comm *nc = NULL;

	CC_ENTER(fn, comm, newcomm);
	if (!comm->topo || comm->topo->kind != MPI_CART)
		return RC_ERR_MSG(comm, MPI_ERR_TOPOLOGY, fn,
				  "no Cartesian topology");
	if (comm->topo->ndims && !remain_dims)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	return cc_result(comm, rc_cart_sub(comm, remain_dims, &nc, NULL), &nc,
			 newcomm, fn);
}
RC_WEAK(MPI_Cart_sub)
