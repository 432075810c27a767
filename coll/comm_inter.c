/*
 * comm_inter.c - intercommunicators: MPI_Intercomm_create,
 * MPI_Intercomm_merge, and MPI_Comm_dup / idup / split / create of an
 * intercommunicator (comm_create.c hands those over).
 *
 * An intercommunicator's context block is agreed over both groups (so one
 * context serves both directions). Every constructor is one schedule with
 * two sides: the local side (the members of my group, an
 * intracommunicator) and the remote side, used by my group's leader only,
 * to talk to the other group's leader:
 *   MPI_Intercomm_create  local side:  local_comm, its next collective tag
 *                         remote side: peer_comm, RC_CTX_PEER, user's tag
 *                         leaders:     local_leader, remote_leader
 *   on an intercomm I     local side:  I's local group, RC_CTX_GROUP
 *                         remote side: I itself, its collective context
 *                         (both with I's next collective tag)
 *                         leaders:     rank 0 of each group
 * The steps: what the constructor must know about the other group
 * (Intercomm_create: its size and key, then its members; split: every
 * remote (color, key); create: the remote subset; merge: the remote high)
 * crosses between the leaders and is broadcast in each group; then the
 * context-id agreement over both groups (comm_agree.c, key: the (context,
 * tag) of the local side; Intercomm_create: both groups' keys, ordered);
 * then each member builds its communicator. A group that cannot take part
 * (split's color missing on the other side, create's empty subset) gets
 * MPI_COMM_NULL everywhere, having been a bystander in the agreement.
 */
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "comm_cc.h"
#include "thread.h"

#define TAG_UB 0x7fffffff /* MPI_TAG_UB's value (comm_api.c) */

enum { IC_CREATE, IC_DUP, IC_SPLIT, IC_SUBSET, IC_MERGE };

struct ic {
	struct rc_comm *parent; /* local_comm, or the intercommunicator */
	struct rc_comm **out;
	int kind;
	struct rc_cc_agree ag;
	int lside, rside, lroot, rleader; /* rleader -1: not a leader */
	/* my group's part and what came from the other group */
	int64_t hdr[2], rhdr[2]; /* create: (size, key); merge: high */
	int *ck, *rck;		 /* split: (color, key) per rank */
	int color;
	const int *lsub; /* create: the local subset (world ranks) */
	int nlsub;
	int *rsub; /* create, split: remote members */
	/* the result's groups (world ranks) */
	int *lw, *rw;
	int nl, nr, me; /* me: my rank in lw, or -1 */
	bool member;
	bool first; /* merge: my group first */
	struct rc_cc_dup dup; /* idup: what to copy at the end */
};

static bool ic_leader(const struct ic *c)
{
	return c->rleader >= 0;
}

/* The leaders swap (sbuf, scount) for (rbuf, rcount) over the remote side,
 * then each broadcasts what it got over the local side. */
static void ic_swap(struct rc_sched *s, struct ic *c, const void *sbuf,
		    size_t scount, void *rbuf, size_t rcount,
		    struct rc_dtype *dt)
{
	struct rc_cargs a;

	if (ic_leader(c)) {
		rc_sched_use(s, c->rside);
		rc_sched_send(s, sbuf, scount, dt, c->rleader);
		rc_sched_recv(s, rbuf, rcount, dt, c->rleader);
		rc_sched_wait(s);
	}
	rc_sched_use(s, c->lside);
	memset(&a, 0, sizeof(a));
	a.rbuf = rbuf;
	a.count = rcount;
	a.dt = dt;
	a.root = c->lroot;
	rc_coll_append(s, RC_COLL_BCAST, &a);
	rc_sched_wait(s);
	rc_sched_use(s, 0);
}

static void ic_finish(struct rc_sched *s, void *arg);

static int *ic_ints(struct rc_sched *s, int n)
{
	return rc_sched_tmp(s, sizeof(int) * (size_t)(n > 0 ? n : 1));
}

/* Everything is known: my groups, membership; start the agreement. */
static void ic_agree(struct rc_sched *s, void *arg)
{
	struct ic *c = arg;
	struct rc_ctx_key k = rc_cc_key(s);
	char *in = NULL;
	int i;

	if (!s->err && c->kind == IC_CREATE) {
		/* the groups of an intercommunicator never overlap */
		in = rc_sched_tmp(s, (size_t)s->inst->size);
		if (!in)
			s->err = RC_ERR_NOMEM;
		for (i = 0; in && i < s->inst->size; i++)
			in[i] = 0;
		for (i = 0; in && i < c->nl; i++)
			in[c->lw[i]] = 1;
		for (i = 0; in && i < c->nr; i++)
			if (c->rw[i] < 0 || c->rw[i] >= s->inst->size ||
			    in[c->rw[i]])
				s->err = RC_ERR_INVAL;
	}
	if (s->err) {
		rc_sched_call(s, ic_finish, c);
		return;
	}
	if (c->kind == IC_CREATE) {
		/* both groups' keys, the same pair on both sides */
		uint64_t a = (uint64_t)c->hdr[1], b = (uint64_t)c->rhdr[1];

		k.hi = a < b ? a : b;
		k.lo = a < b ? b : a;
	}
	c->ag.lside = c->lside;
	c->ag.rside = c->rside;
	c->ag.lroot = c->lroot;
	c->ag.rleader = c->rleader;
	rc_cc_agree(s, &c->ag, k, c->member, ic_finish, c);
	if (s->berr && !s->err)
		s->err = s->berr;
}

/* Members of one color ordered by (key, rank), from (color, key) pairs. */
static int ic_color(const int *ck, int n, int color, int *out)
{
	int i, j, k = 0;

	if (color == MPI_UNDEFINED)
		return 0;
	for (i = 0; i < n; i++) {
		if (ck[2 * i] != color)
			continue;
		/* insertion by (key, rank): groups are small */
		for (j = k; j > 0 && ck[2 * out[j - 1] + 1] > ck[2 * i + 1];
		     j--)
			out[j] = out[j - 1];
		out[j] = i;
		k++;
	}
	return k;
}

static void ic_split_done(struct rc_sched *s, void *arg)
{
	struct ic *c = arg;
	struct rc_comm *p = c->parent;
	int i, nl, nr, *lr, *rr;

	if (s->err) {
		rc_sched_call(s, ic_agree, c);
		return;
	}
	lr = ic_ints(s, p->size);
	rr = ic_ints(s, p->rgroup->size);
	c->lw = ic_ints(s, p->size);
	c->rw = ic_ints(s, p->rgroup->size);
	if (!lr || !rr || !c->lw || !c->rw) {
		s->err = RC_ERR_NOMEM;
		rc_sched_call(s, ic_agree, c);
		return;
	}
	nl = ic_color(c->ck, p->size, c->color, lr);
	nr = ic_color(c->rck, p->rgroup->size, c->color, rr);
	c->nl = nl;
	c->nr = nr;
	c->me = -1;
	for (i = 0; i < nl; i++) {
		c->lw[i] = p->group->wranks[lr[i]];
		if (lr[i] == p->rank)
			c->me = i;
	}
	for (i = 0; i < nr; i++)
		c->rw[i] = p->rgroup->wranks[rr[i]];
	c->member = c->me >= 0 && nr > 0;
	rc_sched_call(s, ic_agree, c);
}

static void ic_subset_got(struct rc_sched *s, void *arg)
{
	struct ic *c = arg;
	int i;

	if (s->err) {
		rc_sched_call(s, ic_agree, c);
		return;
	}
	c->nl = c->nlsub;
	c->lw = (int *)c->lsub;
	c->nr = (int)c->rhdr[0];
	c->rw = c->rsub;
	c->me = -1;
	for (i = 0; i < c->nl; i++)
		if (c->lw[i] == c->parent->inst->rank)
			c->me = i;
	c->member = c->me >= 0 && c->nr > 0;
	rc_sched_call(s, ic_agree, c);
}

/* Create, subset: the other group's size is known; fetch its members. */
static void ic_size_got(struct rc_sched *s, void *arg)
{
	struct ic *c = arg;
	int n = (int)c->rhdr[0];

	if (s->err) {
		rc_sched_call(s, ic_agree, c);
		return;
	}
	if (n < 0 || n > c->parent->inst->size) {
		s->err = RC_ERR_INVAL;
		rc_sched_call(s, ic_agree, c);
		return;
	}
	c->rsub = ic_ints(s, n);
	if (!c->rsub) {
		s->err = RC_ERR_NOMEM;
		rc_sched_call(s, ic_agree, c);
		return;
	}
	ic_swap(s, c, c->lsub, (size_t)c->nlsub, c->rsub, (size_t)n,
		&rc_mpi_int);
	if (c->kind == IC_SUBSET) {
		rc_sched_call(s, ic_subset_got, c);
	} else {
		c->rw = c->rsub;
		c->nr = n;
		rc_sched_call(s, ic_agree, c);
	}
	if (s->berr && !s->err)
		s->err = s->berr;
}

static void ic_merge_got(struct rc_sched *s, void *arg)
{
	struct ic *c = arg;
	struct rc_comm *p = c->parent;

	/* high = false first; equal: the group whose leader has the lower
	 * world rank (both groups see the same leaders) */
	if (c->hdr[0] != c->rhdr[0])
		c->first = !c->hdr[0];
	else
		c->first = p->group->wranks[0] < p->rgroup->wranks[0];
	rc_sched_call(s, ic_agree, c);
}

static void ic_finish(struct rc_sched *s, void *arg)
{
	struct ic *c = arg;
	struct rc_comm *p = c->parent, *nc = NULL;
	struct rc_inst *inst = p->inst;
	struct rc_group *lg = NULL, *rg = NULL;
	uint32_t ctx = c->ag.ctx;
	int i, ret;

	*c->out = NULL;
	if (s->err || !c->member)
		return;
	ret = RC_ERR_NOMEM;
	if (c->kind == IC_MERGE) {
		int n = c->nl + c->nr, off = c->first ? 0 : c->nr;

		lg = rc_group_new(n);
		if (!lg)
			goto err_unmark;
		for (i = 0; i < c->nl; i++)
			lg->wranks[off + i] = c->lw[i];
		off = c->first ? c->nl : 0;
		for (i = 0; i < c->nr; i++)
			lg->wranks[off + i] = c->rw[i];
		lg->rank = (c->first ? 0 : c->nr) + c->me;
		ret = rc_comm_new(inst, lg, ctx, p, &nc);
		rc_group_release(lg);
		if (ret)
			goto err_unmark;
		*c->out = nc;
		return;
	}
	lg = rc_group_new(c->nl);
	rg = rc_group_new(c->nr);
	if (!lg || !rg)
		goto err_release;
	memcpy(lg->wranks, c->lw, sizeof(int) * (size_t)c->nl);
	memcpy(rg->wranks, c->rw, sizeof(int) * (size_t)c->nr);
	lg->rank = c->me;
	ret = rc_intercomm_new(inst, lg, rg, ctx, p, &nc);
	if (ret)
		goto err_release;
	rc_group_release(lg);
	rc_group_release(rg);
	ret = rc_cc_dup_copy(&c->dup, p, nc);
	if (ret) {
		rc_comm_release(nc);	/* unmarks the contexts */
		s->err = ret;
		return;
	}
	*c->out = nc;
	return;

err_release:
	rc_group_release(lg);
	rc_group_release(rg);
err_unmark:
	rc_ctx_mark(inst, ctx, false);
	s->err = ret;
}

/* A constructor's schedule on an intercommunicator (or, create: on
 * local_comm); NULL when out of memory. */
static struct ic *ic_begin(struct rc_comm *parent, struct rc_comm **out,
			   int kind, struct rc_sched **sp)
{
	struct rc_sched *s = rc_sched_new(parent);
	struct ic *c;

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
	if (kind != IC_CREATE) {
		/* side 1, the local group, is set by rc_sched_new */
		c->lside = 1;
		c->rside = 0;
		c->lroot = 0;
		c->rleader = parent->rank == 0 ? 0 : -1;
		c->lw = parent->group->wranks;
		c->nl = parent->size;
		c->rw = parent->rgroup->wranks;
		c->nr = parent->rgroup->size;
		c->me = parent->rank;
		c->member = true;
	}
	*sp = s;
	return c;
}

static int ic_go(struct rc_sched *s, struct ic *c, struct rc_req **reqp)
{
	return rc_cc_run(s, c->parent, reqp);
}

int rc_intercomm_dup(struct rc_comm *comm, struct rc_comm **out,
		     struct rc_req **reqp, const struct rc_cc_dup *want)
{
	struct rc_sched *s;
	struct ic *c = ic_begin(comm, out, IC_DUP, &s);

	if (!c)
		return RC_ERR_NOMEM;
	if (rc_cc_dup_init(s, &c->dup, want)) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	rc_sched_call(s, ic_agree, c);
	return ic_go(s, c, reqp);
}

int rc_intercomm_split(struct rc_comm *comm, int color, int key,
		       struct rc_comm **out, struct rc_req **reqp)
{
	struct rc_sched *s;
	struct ic *c = ic_begin(comm, out, IC_SPLIT, &s);
	struct rc_cargs a;
	int n = comm->size, rn = comm->rgroup->size;

	if (!c)
		return RC_ERR_NOMEM;
	c->color = color;
	c->ck = ic_ints(s, 2 * n);
	c->rck = ic_ints(s, 2 * rn);
	if (!c->ck || !c->rck) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	c->ck[2 * comm->rank] = color;
	c->ck[2 * comm->rank + 1] = key;
	/* every (color, key) of my group, then of the other */
	rc_sched_use(s, c->lside);
	memset(&a, 0, sizeof(a));
	a.sbuf = MPI_IN_PLACE;
	a.rbuf = c->ck;
	a.rcount = 2;
	a.rdt = &rc_mpi_int;
	rc_coll_append(s, RC_COLL_ALLGATHER, &a);
	rc_sched_wait(s);
	ic_swap(s, c, c->ck, 2 * (size_t)n, c->rck, 2 * (size_t)rn,
		&rc_mpi_int);
	rc_sched_call(s, ic_split_done, c);
	return ic_go(s, c, reqp);
}

int rc_intercomm_subset(struct rc_comm *comm, struct rc_group *group,
			struct rc_comm **out, struct rc_req **reqp)
{
	struct rc_sched *s;
	struct ic *c = ic_begin(comm, out, IC_SUBSET, &s);
	int *w;

	if (!c)
		return RC_ERR_NOMEM;
	w = ic_ints(s, group->size);
	if (!w) {
		rc_sched_discard(s);
		return RC_ERR_NOMEM;
	}
	memcpy(w, group->wranks, sizeof(int) * (size_t)group->size);
	c->lsub = w;
	c->nlsub = group->size;
	c->hdr[0] = group->size;
	ic_swap(s, c, c->hdr, 1, c->rhdr, 1, &rc_mpi_int64_t);
	rc_sched_call(s, ic_size_got, c);
	return ic_go(s, c, reqp);
}

int rc_intercomm_merge(struct rc_comm *comm, bool high, struct rc_comm **out,
		       struct rc_req **reqp)
{
	struct rc_sched *s;
	struct ic *c = ic_begin(comm, out, IC_MERGE, &s);

	if (!c)
		return RC_ERR_NOMEM;
	c->hdr[0] = high;
	ic_swap(s, c, c->hdr, 1, c->rhdr, 1, &rc_mpi_int64_t);
	rc_sched_call(s, ic_merge_got, c);
	return ic_go(s, c, reqp);
}

int rc_intercomm_create(struct rc_comm *local, int lleader,
			struct rc_comm *peer, int rleader, int tag,
			struct rc_comm **out, struct rc_req **reqp)
{
	struct rc_sched *s;
	struct ic *c = ic_begin(local, out, IC_CREATE, &s);
	struct rc_ctx_key k;

	if (!c)
		return RC_ERR_NOMEM;
	c->lside = 0;
	c->rside = 1;
	c->lroot = lleader;
	c->rleader = -1;
	if (local->rank == lleader) {
		rc_sched_set_side(s, peer, peer->ctx + RC_CTX_PEER, tag);
		c->rleader = rleader;
	}
	c->lsub = local->group->wranks;
	c->nlsub = local->size;
	c->lw = local->group->wranks;
	c->nl = local->size;
	c->me = local->rank;
	c->member = true;
	k = rc_cc_key(s);
	c->hdr[0] = local->size;
	c->hdr[1] = (int64_t)k.hi;
	ic_swap(s, c, c->hdr, 2, c->rhdr, 2, &rc_mpi_int64_t);
	rc_sched_call(s, ic_size_got, c);
	return ic_go(s, c, reqp);
}

/* ---- API ----------------------------------------------------------------- */

static int intercomm_create(MPI_Comm local_comm, int local_leader,
			    MPI_Comm peer_comm, int remote_leader, int tag,
			    MPI_Comm *newintercomm)
{
	static const char fn[] = "MPI_Intercomm_create";
	struct rc_comm *nc = NULL;
	int ret;

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(local_comm))
		return rc_err_handle(NULL, RC_HK_COMM, local_comm, fn);
	if (rc_comm_is_inter(local_comm))
		return RC_ERR_MSG(local_comm, MPI_ERR_COMM, fn,
				  "local_comm is an intercommunicator");
	if (!newintercomm)
		return RC_ERR(local_comm, MPI_ERR_ARG, fn);
	if (local_leader < 0 || local_leader >= local_comm->size)
		return RC_ERR_MSG(local_comm, MPI_ERR_RANK, fn,
				  "local_leader out of range");
	if (tag < 0 || tag > TAG_UB)
		return RC_ERR(local_comm, MPI_ERR_TAG, fn);
	/* peer_comm and remote_leader matter at the local leader only */
	if (local_comm->rank == local_leader) {
		if (!rc_comm_valid(peer_comm))
			return RC_ERR_MSG(local_comm, MPI_ERR_COMM, fn,
					  "peer_comm is not a communicator");
		if (remote_leader < 0 ||
		    remote_leader >= rc_comm_psize(peer_comm))
			return RC_ERR_MSG(local_comm, MPI_ERR_RANK, fn,
					  "remote_leader out of range");
		if (rc_comm_wrank(peer_comm, remote_leader) ==
		    local_comm->inst->rank)
			return RC_ERR_MSG(local_comm, MPI_ERR_RANK, fn,
					  "the remote leader is this process");
	}
	ret = rc_intercomm_create(local_comm, local_leader, peer_comm,
				  remote_leader, tag, &nc, NULL);
	if (ret == RC_ERR_INVAL)
		return RC_ERR_MSG(local_comm, MPI_ERR_ARG, fn,
				  "the two groups overlap");
	if (ret)
		return rc_api_status(local_comm, ret, fn);
	*newintercomm = nc;
	return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader,
			  MPI_Comm peer_comm, int remote_leader, int tag,
			  MPI_Comm *newintercomm)
{
	return RC_CS_CALL(&rc_cs_big,
			  intercomm_create(local_comm, local_leader, peer_comm,
					   remote_leader, tag, newintercomm));
}
RC_WEAK(MPI_Intercomm_create)

static int intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
	static const char fn[] = "MPI_Intercomm_merge";
	struct rc_comm *nc = NULL;
	int ret;

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(intercomm))
		return rc_err_handle(NULL, RC_HK_COMM, intercomm, fn);
	if (!rc_comm_is_inter(intercomm))
		return RC_ERR_MSG(intercomm, MPI_ERR_COMM, fn,
				  "not an intercommunicator");
	if (!newintracomm)
		return RC_ERR(intercomm, MPI_ERR_ARG, fn);
	ret = rc_intercomm_merge(intercomm, high != 0, &nc, NULL);
	if (ret)
		return rc_api_status(intercomm, ret, fn);
	*newintracomm = nc;
	return MPI_SUCCESS;
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
	return RC_CS_CALL(&rc_cs_big,
			  intercomm_merge(intercomm, high, newintracomm));
}
RC_WEAK(MPI_Intercomm_merge)
