/*
 * comm_create.c - the collective communicator constructors: context-id
 * agreement, MPI_Comm_dup / idup (and their _with_info), MPI_Comm_split,
 * MPI_Comm_split_type, MPI_Comm_create, MPI_Comm_create_group,
 * MPI_Cart_create, MPI_Cart_sub, and MPI_Comm_free / MPI_Comm_disconnect.
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
#include "attr.h"
#include "coll_impl.h"
#include "comm_cc.h"
#include "inst.h"
#include "info.h"
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
	struct rc_cc_dup dup;	/* idup: what to copy at the end */
	int *members;		/* parent ranks of the new group */
	int nmembers;		/* -1: the parent's own group (dup) */
	/* topology to attach (a copy for my rank), or NULL: the parent's
	 * (dup) or a description in the schedule's scratch */
	const struct rc_topo *tdesc;
	/* distributed graph */
	int dg_k; /* tags: the most a process appears */
	int *dg_scnt, *dg_sdsp, *dg_rcnt, *dg_rdsp, *dg_sbuf, *dg_rbuf;
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
	if (c->tdesc) {
		ret = rc_topo_copy(c->tdesc, nc->rank, &nc->topo);
		if (ret)
			goto err_free_comm;
		if (nc->topo->kind == MPI_DIST_GRAPH)
			nc->topo->ntags = c->dg_k > 0 ? c->dg_k : 1;
	}
	ret = rc_cc_dup_copy(&c->dup, p, nc);
	if (ret)
		goto err_free_comm;
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

/* A Cartesian description in s's scratch (NULL when out of memory). */
static struct rc_topo *cc_cart_desc(struct rc_sched *s, int ndims,
				    const int *dims, const int *periods)
{
	struct rc_topo *t = rc_sched_tmp(s, sizeof(*t));
	size_t n = sizeof(int) * (size_t)(ndims + 1);

	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->kind = MPI_CART;
	t->ndims = ndims;
	t->dims = rc_sched_tmp(s, n);
	t->periods = rc_sched_tmp(s, n);
	if (!t->dims || !t->periods)
		return NULL;
	if (ndims) {
		memcpy(t->dims, dims, sizeof(int) * (size_t)ndims);
		memcpy(t->periods, periods, sizeof(int) * (size_t)ndims);
	}
	return t;
}

/* n ints from src in s's scratch (NULL when out of memory). */
static int *cc_ints(struct rc_sched *s, const int *src, int n)
{
	int *p = rc_sched_tmp(s, sizeof(int) * (size_t)(n > 0 ? n : 1));

	if (p && src && n > 0)
		memcpy(p, src, sizeof(int) * (size_t)n);
	return p;
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

static int comm_dup_start(struct rc_comm *comm, struct rc_comm **out,
			  struct rc_req **reqp, const struct rc_cc_dup *want)
{
	struct rc_sched *s;
	struct cc *c;
	struct rc_topo *t = comm->topo;

	if (rc_comm_is_inter(comm))
		return rc_intercomm_dup(comm, out, reqp, want);
	c = cc_begin(comm, out, CC_FIXED, &s);
	if (!c)
		return RC_ERR_NOMEM;
	if (rc_cc_dup_init(s, &c->dup, want)) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	/* the parent (and its topology) lives until the request is done */
	c->tdesc = t;
	if (t && t->kind == MPI_DIST_GRAPH)
		c->dg_k = t->ntags;
	return cc_go(s, c, reqp);
}

int rc_comm_dup(struct rc_comm *comm, struct rc_comm **out,
		struct rc_req **reqp)
{
	static const struct rc_cc_dup plain;

	return comm_dup_start(comm, out, reqp, &plain);
}

int rc_comm_idup(struct rc_comm *comm, const struct rc_info *info,
		 bool with_info, struct rc_comm **out, struct rc_req **reqp)
{
	struct rc_cc_dup want = {
		.cache = true, .with_info = with_info, .info = info};

	return comm_dup_start(comm, out, reqp, &want);
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

#define HW_KEY "mpi_hw_resource_type"
#define HW_NODE "mpi_shared_memory"

/* The color of this rank's node: its lowest world rank in comm (every
 * rank of the node sees the same set of local members); *all: whether
 * every member of comm is on it (the same answer on every rank). */
static int node_color(const struct rc_comm *comm, bool *all)
{
	const struct rc_inst *inst = comm->inst;
	int color = comm->group->wranks[comm->rank], i;

	*all = true;
	for (i = 0; i < comm->size; i++) {
		int w = comm->group->wranks[i];

		if (!inst->procs[w].local)
			*all = false;
		else if (w < color)
			color = w;
	}
	return color;
}

int rc_comm_split_type(struct rc_comm *comm, int type, int key,
		       struct rc_info *info, struct rc_comm **out,
		       struct rc_req **reqp)
{
	const char *res;
	int color = MPI_UNDEFINED;
	bool one_node;

	switch (type) {
	case MPI_COMM_TYPE_SHARED:
		color = node_color(comm, &one_node);
		break;
	case MPI_COMM_TYPE_HW_GUIDED:
		res = info ? rc_info_get(info, HW_KEY) : NULL;
		if (res && !strcmp(res, HW_NODE))
			color = node_color(comm, &one_node);
		break;
	case MPI_COMM_TYPE_HW_UNGUIDED:
		color = node_color(comm, &one_node);
		/* a strict subset or nothing; a key we cannot set: this rank
		 * gets MPI_COMM_NULL, which the standard allows, and the
		 * split stays collective */
		if (one_node || (info && !info->predefined &&
				 rc_info_set(info, HW_KEY, HW_NODE)))
			color = MPI_UNDEFINED;
		break;
	default:
		break;
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
	c->tdesc = cc_cart_desc(s, ndims, dims, periods);
	if (!c->members || !c->tdesc) {
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
	c->tdesc = cc_cart_desc(s, nd, dims, periods);
	if (!c->tdesc) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	return cc_go(s, c, reqp);
}

int rc_graph_create(struct rc_comm *comm, int nnodes, const int *index,
		    const int *edges, struct rc_comm **out,
		    struct rc_req **reqp)
{
	struct rc_sched *s;
	struct cc *c = cc_begin(comm, out, CC_FIXED, &s);
	struct rc_topo *t;
	int i, ne = nnodes ? index[nnodes - 1] : 0;

	if (!c)
		return RC_ERR_NOMEM;
	c->members = cc_members(s, nnodes);
	t = rc_sched_tmp(s, sizeof(*t));
	if (!c->members || !t) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	memset(t, 0, sizeof(*t));
	t->kind = MPI_GRAPH;
	t->nnodes = nnodes;
	t->index = cc_ints(s, index, nnodes);
	t->edges = cc_ints(s, edges, ne);
	if (!t->index || !t->edges) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	c->tdesc = t;
	/* no reordering: node i is rank i of comm */
	for (i = 0; i < nnodes; i++)
		c->members[i] = i;
	c->nmembers = nnodes;
	return cc_go(s, c, reqp);
}

/* Distributed graphs take as many tags per neighbourhood collective as a
 * process appears at most among anyone's neighbours: an allreduce(MAX)
 * of everyone's count before the agreement. */
static void dg_tags(struct rc_sched *s, struct cc *c, const int *in, int nin,
		    const int *out, int nout)
{
	struct rc_cargs a;
	int ki = rc_topo_multiplicity(in, nin);
	int ko = rc_topo_multiplicity(out, nout);

	c->dg_k = ki > ko ? ki : ko;
	memset(&a, 0, sizeof(a));
	a.sbuf = MPI_IN_PLACE;
	a.rbuf = &c->dg_k;
	a.count = 1;
	a.dt = &rc_mpi_int;
	a.op = &rc_mpi_max;
	rc_coll_append(s, RC_COLL_ALLREDUCE, &a);
	rc_sched_wait(s);
}

int rc_dist_graph_adjacent(struct rc_comm *comm, int indegree, const int *in,
			   const int *inw, int outdegree, const int *outl,
			   const int *outw, bool weighted, struct rc_comm **out,
			   struct rc_req **reqp)
{
	struct rc_sched *s;
	struct cc *c = cc_begin(comm, out, CC_FIXED, &s);
	struct rc_topo *t;

	if (!c)
		return RC_ERR_NOMEM;
	t = rc_sched_tmp(s, sizeof(*t));
	if (!t) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	memset(t, 0, sizeof(*t));
	t->kind = MPI_DIST_GRAPH;
	t->indegree = indegree;
	t->outdegree = outdegree;
	t->weighted = weighted;
	t->in = cc_ints(s, in, indegree);
	t->out = cc_ints(s, outl, outdegree);
	t->inw = cc_ints(s, weighted ? inw : NULL, indegree);
	t->outw = cc_ints(s, weighted ? outw : NULL, outdegree);
	if (!t->in || !t->out || !t->inw || !t->outw) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	c->tdesc = t;
	dg_tags(s, c, t->in, indegree, t->out, outdegree);
	return cc_go(s, c, reqp);
}

/*
 * MPI_Dist_graph_create: an edge s -> d (weight w) that any process
 * names is an out-edge of s and an in-edge of d. Each process sends every
 * rank the records it names for it, (kind, peer, weight) triples, by an
 * alltoall of counts and an alltoallv of records; each then lists its
 * in- and out-neighbours in the order of (sender, record) - the same
 * order on every run.
 */
enum { DG_IN = 0, DG_OUT = 1 };

static void dg_received(struct rc_sched *s, void *arg)
{
	struct cc *c = arg;
	struct rc_topo *t = (struct rc_topo *)c->tdesc;
	int n = c->parent->size, i, total = 0, ni = 0, no = 0;

	if (s->err) {
		rc_sched_call(s, cc_finish, c);
		return;
	}
	for (i = 0; i < n; i++)
		total += c->dg_rcnt[i] / 3;
	for (i = 0; i < total; i++) {
		if (c->dg_rbuf[3 * i] == DG_IN)
			ni++;
		else
			no++;
	}
	t->indegree = ni;
	t->outdegree = no;
	t->in = cc_ints(s, NULL, ni);
	t->inw = cc_ints(s, NULL, ni);
	t->out = cc_ints(s, NULL, no);
	t->outw = cc_ints(s, NULL, no);
	if (!t->in || !t->inw || !t->out || !t->outw) {
		s->err = RC_ERR_NOMEM;
		rc_sched_call(s, cc_finish, c);
		return;
	}
	ni = no = 0;
	for (i = 0; i < total; i++) {
		const int *r = c->dg_rbuf + 3 * i;

		if (r[0] == DG_IN) {
			t->in[ni] = r[1];
			t->inw[ni++] = r[2];
		} else {
			t->out[no] = r[1];
			t->outw[no++] = r[2];
		}
	}
	dg_tags(s, c, t->in, ni, t->out, no);
	rc_cc_agree(s, &c->ag, rc_cc_key(s), true, cc_finish, c);
	if (s->berr && !s->err)
		s->err = s->berr;
}

static void dg_counts(struct rc_sched *s, void *arg)
{
	struct cc *c = arg;
	int n = c->parent->size, i, d = 0;
	struct rc_cargs a;

	for (i = 0; i < n; i++) {
		c->dg_rdsp[i] = d;
		d += c->dg_rcnt[i];
	}
	c->dg_rbuf = cc_ints(s, NULL, d);
	if (!c->dg_rbuf && !s->err)
		s->err = RC_ERR_NOMEM;
	if (s->err) {
		rc_sched_call(s, cc_finish, c);
		return;
	}
	memset(&a, 0, sizeof(a));
	a.sbuf = c->dg_sbuf;
	a.scounts = c->dg_scnt;
	a.sdispls = c->dg_sdsp;
	a.sdt = &rc_mpi_int;
	a.rbuf = c->dg_rbuf;
	a.rcounts = c->dg_rcnt;
	a.rdispls = c->dg_rdsp;
	a.rdt = &rc_mpi_int;
	rc_coll_append(s, RC_COLL_ALLTOALLV, &a);
	rc_sched_wait(s);
	rc_sched_call(s, dg_received, c);
	if (s->berr && !s->err)
		s->err = s->berr;
}

int rc_dist_graph_create(struct rc_comm *comm, int n, const int *sources,
			 const int *degrees, const int *dests,
			 const int *weights, bool weighted,
			 struct rc_comm **out, struct rc_req **reqp)
{
	struct rc_sched *s;
	struct cc *c = cc_begin(comm, out, CC_FIXED, &s);
	int size = comm->size, i, j, e, nrec, *fill;
	struct rc_topo *t;
	struct rc_cargs a;

	if (!c)
		return RC_ERR_NOMEM;
	for (i = 0, nrec = 0; i < n; i++)
		nrec += 2 * degrees[i];
	t = rc_sched_tmp(s, sizeof(*t));
	c->dg_scnt = cc_ints(s, NULL, size);
	c->dg_sdsp = cc_ints(s, NULL, size);
	c->dg_rcnt = cc_ints(s, NULL, size);
	c->dg_rdsp = cc_ints(s, NULL, size);
	c->dg_sbuf = cc_ints(s, NULL, 3 * nrec);
	fill = cc_ints(s, NULL, size);
	if (!t || !c->dg_scnt || !c->dg_sdsp || !c->dg_rcnt || !c->dg_rdsp ||
	    !c->dg_sbuf || !fill) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	memset(t, 0, sizeof(*t));
	t->kind = MPI_DIST_GRAPH;
	t->weighted = weighted;
	c->tdesc = t;
	memset(c->dg_scnt, 0, sizeof(int) * (size_t)size);
	for (i = 0, e = 0; i < n; i++)
		for (j = 0; j < degrees[i]; j++, e++) {
			c->dg_scnt[sources[i]] += 3;
			c->dg_scnt[dests[e]] += 3;
		}
	for (i = 0, j = 0; i < size; i++) {
		c->dg_sdsp[i] = j;
		fill[i] = j;
		j += c->dg_scnt[i];
	}
	for (i = 0, e = 0; i < n; i++)
		for (j = 0; j < degrees[i]; j++, e++) {
			int w = weighted ? weights[e] : 0, *r;

			r = c->dg_sbuf + fill[sources[i]];
			fill[sources[i]] += 3;
			r[0] = DG_OUT;
			r[1] = dests[e];
			r[2] = w;
			r = c->dg_sbuf + fill[dests[e]];
			fill[dests[e]] += 3;
			r[0] = DG_IN;
			r[1] = sources[i];
			r[2] = w;
		}
	memset(&a, 0, sizeof(a));
	a.sbuf = c->dg_scnt;
	a.scount = 1;
	a.sdt = &rc_mpi_int;
	a.rbuf = c->dg_rcnt;
	a.rcount = 1;
	a.rdt = &rc_mpi_int;
	if (rc_coll_append(s, RC_COLL_ALLTOALL, &a)) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	rc_sched_wait(s);
	rc_sched_call(s, dg_counts, c);
	return rc_cc_run(s, comm, reqp);
}

/* ---- API ----------------------------------------------------------------- */

#define CC_ENTER(fn, comm, out)                                           \
	do {                                                              \
		RC_API_CHECK_INIT(fn);                                    \
		if (!rc_comm_valid(comm))                                 \
			return rc_err_handle(NULL, RC_HK_COMM, comm, fn); \
		if (!(out))                                               \
			return RC_ERR(comm, MPI_ERR_ARG, fn);             \
	} while (0)

#define CHK_ARG(comm, cls, fn, msg)                           \
	do {                                                  \
		int c_ = (cls);                               \
		if (c_)                                       \
			return RC_ERR_MSG(comm, c_, fn, msg); \
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

/*
 * MPI_Comm_dup and MPI_Comm_dup_with_info: the new communicator, then
 * what a dup copies (rc_comm_dup_cache: hints, attributes). A failed copy
 * (a copy callback's error) frees the new communicator here -- freeing is
 * local -- and raises the callback's code on comm.
 */
static int comm_dup(MPI_Comm comm, const struct rc_info *info, bool with_info,
		    MPI_Comm *newcomm, const char *fn)
{
	struct rc_comm *nc = NULL;
	int ret, err;

	*newcomm = MPI_COMM_NULL; /* what a failed dup leaves (as MPICH) */
	ret = rc_comm_dup(comm, &nc, NULL);
	if (ret)
		return rc_api_status(comm, ret, fn);
	err = rc_comm_dup_cache(comm, nc, info, with_info);
	if (err) {
		rc_hobj_kill(nc, RC_HK_COMM);
		rc_comm_release(nc);
		return RC_ERR(comm, err, fn);
	}
	*newcomm = nc;
	return MPI_SUCCESS;
}

static int api_comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	CC_ENTER("MPI_Comm_dup", comm, newcomm);
	return comm_dup(comm, NULL, false, newcomm, "MPI_Comm_dup");
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	return RC_CS_CALL(&rc_cs_big, api_comm_dup(comm, newcomm));
}
RC_WEAK(MPI_Comm_dup)

static int comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
	static const char fn[] = "MPI_Comm_dup_with_info";

	CC_ENTER(fn, comm, newcomm);
	if (info != MPI_INFO_NULL && !rc_info_valid(info))
		return rc_err_handle(comm, RC_HK_INFO, info, fn);
	return comm_dup(comm, info, true, newcomm, fn);
}

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
	return RC_CS_CALL(&rc_cs_big, comm_dup_with_info(comm, info, newcomm));
}
RC_WEAK(MPI_Comm_dup_with_info)
static int comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
	static const char fn[] = "MPI_Comm_idup";

	CC_ENTER(fn, comm, newcomm);
	if (!request)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	/* *newcomm is written when the request completes, with the hints
	 * and attributes copied then */
	return rc_api_status(
		comm, rc_comm_idup(comm, NULL, false, newcomm, request), fn);
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, comm_idup(comm, newcomm, request));
}
RC_WEAK(MPI_Comm_idup)

/* MPI-4: the hints are info's (copied now: the caller may free it at
 * once), the attributes copied when the request completes, as idup's */
static int comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
			       MPI_Request *request)
{
	static const char fn[] = "MPI_Comm_idup_with_info";

	CC_ENTER(fn, comm, newcomm);
	if (!request)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	if (info != MPI_INFO_NULL && !rc_info_valid(info))
		return rc_err_handle(comm, RC_HK_INFO, info, fn);
	return rc_api_status(
		comm, rc_comm_idup(comm, info, true, newcomm, request), fn);
}

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
			     MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  comm_idup_with_info(comm, info, newcomm, request));
}
RC_WEAK(MPI_Comm_idup_with_info)

static int api_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
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

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	return RC_CS_CALL(&rc_cs_big,
			  api_comm_split(comm, color, key, newcomm));
}
RC_WEAK(MPI_Comm_split)

static int api_comm_split_type(MPI_Comm comm, int split_type, int key,
			       MPI_Info info, MPI_Comm *newcomm)
{
	struct rc_comm *nc = NULL;

	CC_ENTER("MPI_Comm_split_type", comm, newcomm);
	if (info != MPI_INFO_NULL && !rc_info_valid(info))
		return rc_err_handle(comm, RC_HK_INFO, info,
				     "MPI_Comm_split_type");
	if (rc_comm_is_inter(comm))
		return RC_ERR_MSG(comm, MPI_ERR_COMM, "MPI_Comm_split_type",
				  "an intercommunicator");
	if (split_type != MPI_COMM_TYPE_SHARED &&
	    split_type != MPI_COMM_TYPE_HW_GUIDED &&
	    split_type != MPI_COMM_TYPE_HW_UNGUIDED &&
	    split_type != MPI_UNDEFINED)
		return RC_ERR_MSG(comm, MPI_ERR_ARG, "MPI_Comm_split_type",
				  "split_type must be MPI_COMM_TYPE_SHARED, "
				  "MPI_COMM_TYPE_HW_GUIDED, "
				  "MPI_COMM_TYPE_HW_UNGUIDED or MPI_UNDEFINED");
	return cc_result(
		comm,
		rc_comm_split_type(comm, split_type, key, info, &nc, NULL), &nc,
		newcomm, "MPI_Comm_split_type");
}

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
			 MPI_Comm *newcomm)
{
	return RC_CS_CALL(&rc_cs_big, api_comm_split_type(comm, split_type, key,
							  info, newcomm));
}
RC_WEAK(MPI_Comm_split_type)

static int api_comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	static const char fn[] = "MPI_Comm_create";
	struct rc_comm *nc = NULL;
	int i;

	CC_ENTER(fn, comm, newcomm);
	if (!rc_group_valid(group))
		return rc_err_handle(comm, RC_HK_GROUP, group, fn);
	for (i = 0; i < group->size; i++)
		if (rc_group_rank_of(comm->group, group->wranks[i]) ==
		    MPI_UNDEFINED)
			return RC_ERR_MSG(comm, MPI_ERR_GROUP, fn,
					  "group is not a subset of the "
					  "communicator's group");
	return cc_result(comm, rc_comm_create(comm, group, &nc, NULL), &nc,
			 newcomm, fn);
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	return RC_CS_CALL(&rc_cs_big, api_comm_create(comm, group, newcomm));
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

/*
 * MPI_Comm_free, and MPI_Comm_disconnect (MPI-3.1 10.5.4): collective, a
 * barrier first. Without dynamic processes that is all it adds: the
 * program must have completed and matched its communication on comm, and
 * what is still in flight internally holds its own reference, so it
 * finishes after the handle dies (as after MPI_Comm_free).
 */
static int comm_free(MPI_Comm *comm, bool disconnect, const char *fn)
{
	struct rc_comm *c;
	struct rc_cargs a;
	int err;

	RC_API_CHECK_INIT(fn);
	if (!comm)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "comm is NULL");
	if (!rc_comm_valid(*comm))
		return rc_err_handle(NULL, RC_HK_COMM, *comm, fn);
	c = *comm;
	if (c->flags & RC_COMM_PREDEFINED)
		return RC_ERR_MSG(c, MPI_ERR_COMM, fn,
				  "cannot free MPI_COMM_WORLD or "
				  "MPI_COMM_SELF");
	if (disconnect) {
		memset(&a, 0, sizeof(a));
		err = rc_coll_run(c, RC_COLL_BARRIER, &a);
		if (err)
			return rc_api_status(c, err, fn);
	}
	/* attributes first: a failing delete callback fails the call and
	 * the communicator stays */
	err = rc_attr_delete_all(RC_AK_COMM, c, &c->attrs);
	if (err)
		return RC_ERR(c, err, fn);
	/* the handle dies now; the object with its last reference */
	rc_hobj_kill(c, RC_HK_COMM);
	rc_comm_release(c);
	*comm = MPI_COMM_NULL;
	return MPI_SUCCESS;
}

int PMPI_Comm_free(MPI_Comm *comm)
{
	return RC_CS_CALL(&rc_cs_big, comm_free(comm, false, "MPI_Comm_free"));
}
RC_WEAK(MPI_Comm_free)

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  comm_free(comm, true, "MPI_Comm_disconnect"));
}
RC_WEAK(MPI_Comm_disconnect)

static int api_cart_create(MPI_Comm comm, int ndims, const int dims[],
			   const int periods[], int reorder,
			   MPI_Comm *comm_cart)
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

int PMPI_Cart_create(MPI_Comm comm, int ndims, const int dims[],
		     const int periods[], int reorder, MPI_Comm *comm_cart)
{
	return RC_CS_CALL(&rc_cs_big,
			  api_cart_create(comm, ndims, dims, periods, reorder,
					  comm_cart));
}
RC_WEAK(MPI_Cart_create)

static int api_cart_sub(MPI_Comm comm, const int remain_dims[],
			MPI_Comm *newcomm)
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

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
	return RC_CS_CALL(&rc_cs_big, api_cart_sub(comm, remain_dims, newcomm));
}
RC_WEAK(MPI_Cart_sub)

static int graph_create(MPI_Comm comm, int nnodes, const int *index,
			const int *edges, MPI_Comm *comm_graph)
{
	static const char fn[] = "MPI_Graph_create";
	struct rc_comm *nc = NULL;
	const char *why;
	int cls;

	CC_ENTER(fn, comm, comm_graph);
	if (rc_comm_is_inter(comm))
		return RC_ERR_MSG(comm, MPI_ERR_COMM, fn,
				  "an intercommunicator");
	cls = rc_graph_check(comm, nnodes, index, edges, &why);
	if (cls)
		return RC_ERR_MSG(comm, cls, fn, why);
	if (!nnodes) {
		/* the same answer everywhere, without a word (MPI-2.1) */
		*comm_graph = MPI_COMM_NULL;
		return MPI_SUCCESS;
	}
	return cc_result(comm,
			 rc_graph_create(comm, nnodes, index, edges, &nc, NULL),
			 &nc, comm_graph, fn);
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[],
		      const int edges[], int reorder, MPI_Comm *comm_graph)
{
	(void)reorder; /* rcmpi never reorders */
	return RC_CS_CALL(&rc_cs_big, graph_create(comm_old, nnodes, index,
						   edges, comm_graph));
}
RC_WEAK(MPI_Graph_create)

/* Ranks and weights of one side of a distributed graph: 0 or an error
 * class. */
static int dg_check(const struct rc_comm *comm, int n, const int *ranks,
		    const int *weights, bool weighted)
{
	int i;

	if (n < 0)
		return MPI_ERR_ARG;
	if (n && !ranks)
		return MPI_ERR_ARG;
	if (weighted && n && (!weights || weights == MPI_WEIGHTS_EMPTY))
		return MPI_ERR_ARG;
	for (i = 0; i < n; i++)
		if (ranks[i] < 0 || ranks[i] >= comm->size ||
		    (weighted && weights[i] < 0))
			return MPI_ERR_ARG;
	return MPI_SUCCESS;
}

static int dist_graph_create_adjacent(MPI_Comm comm, int indegree,
				      const int *sources,
				      const int *sourceweights, int outdegree,
				      const int *destinations,
				      const int *destweights, MPI_Comm *newcomm)
{
	static const char fn[] = "MPI_Dist_graph_create_adjacent";
	struct rc_comm *nc = NULL;
	bool weighted = sourceweights != MPI_UNWEIGHTED &&
			destweights != MPI_UNWEIGHTED;

	CC_ENTER(fn, comm, newcomm);
	if (rc_comm_is_inter(comm))
		return RC_ERR_MSG(comm, MPI_ERR_COMM, fn,
				  "an intercommunicator");
	CHK_ARG(comm,
		dg_check(comm, indegree, sources, sourceweights, weighted), fn,
		"bad indegree, source rank or weight");
	CHK_ARG(comm,
		dg_check(comm, outdegree, destinations, destweights, weighted),
		fn, "bad outdegree, destination rank or weight");
	return cc_result(comm,
			 rc_dist_graph_adjacent(comm, indegree, sources,
						sourceweights, outdegree,
						destinations, destweights,
						weighted, &nc, NULL),
			 &nc, newcomm, fn);
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree,
				    const int sources[],
				    const int sourceweights[], int outdegree,
				    const int destinations[],
				    const int destweights[], MPI_Info info,
				    int reorder, MPI_Comm *comm_dist_graph)
{
	(void)info;
	(void)reorder; /* rcmpi never reorders */
	return RC_CS_CALL(&rc_cs_big,
			  dist_graph_create_adjacent(
				  comm_old, indegree, sources, sourceweights,
				  outdegree, destinations, destweights,
				  comm_dist_graph));
}
RC_WEAK(MPI_Dist_graph_create_adjacent)

static int dist_graph_create(MPI_Comm comm, int n, const int *sources,
			     const int *degrees, const int *dests,
			     const int *weights, MPI_Comm *newcomm)
{
	static const char fn[] = "MPI_Dist_graph_create";
	struct rc_comm *nc = NULL;
	bool weighted = weights != MPI_UNWEIGHTED;
	int i, total = 0;

	CC_ENTER(fn, comm, newcomm);
	if (rc_comm_is_inter(comm))
		return RC_ERR_MSG(comm, MPI_ERR_COMM, fn,
				  "an intercommunicator");
	CHK_ARG(comm, dg_check(comm, n, sources, NULL, false), fn,
		"bad n or source rank");
	if (n && !degrees)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	for (i = 0; i < n; i++) {
		if (degrees[i] < 0)
			return RC_ERR_MSG(comm, MPI_ERR_ARG, fn,
					  "a degree is negative");
		total += degrees[i];
	}
	CHK_ARG(comm, dg_check(comm, total, dests, weights, weighted), fn,
		"bad destination rank or weight");
	return cc_result(comm,
			 rc_dist_graph_create(comm, n, sources, degrees, dests,
					      weights, weighted, &nc, NULL),
			 &nc, newcomm, fn);
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
			   const int degrees[], const int destinations[],
			   const int weights[], MPI_Info info, int reorder,
			   MPI_Comm *comm_dist_graph)
{
	(void)info;
	(void)reorder; /* rcmpi never reorders */
	return RC_CS_CALL(&rc_cs_big,
			  dist_graph_create(comm_old, n, sources, degrees,
					    destinations, weights,
					    comm_dist_graph));
}
RC_WEAK(MPI_Dist_graph_create)
