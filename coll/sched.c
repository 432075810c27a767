/*
 * sched.c - the schedule engine: collectives as rounds of nonblocking pt2pt
 * operations and local steps, advanced from completion callbacks inside
 * progress (coll_impl.h describes the model).
 *
 *   start:    req ACTIVE; advance()
 *   advance:  run operations from `cur` in order: a send or receive becomes
 *             a pooled pt2pt request on the collective context (one that
 *             completes at once is released at once, the others get
 *             op_done as their callback and count in `pending`); a reduce
 *             or copy (or a CALL) runs now; a WAIT stops the walk while
 *             `pending` > 0.
 *             Past the last operation with nothing pending: the schedule
 *             goes back to the cache and the request completes.
 *   op_done:  (inside progress) pending--; at zero, advance() - unless the
 *             walk is already on the stack (a guard flag; the walk then
 *             sees pending == 0 itself).
 *
 * A kept schedule (rc_sched_keep: a persistent collective's) stays with
 * its request when it completes, and rc_sched_start runs it again from
 * its first operation: every operation is a fixed send, receive, reduce
 * or copy between fixed buffers (the collectives' algorithms append no
 * CALL steps), so a run leaves nothing the next one must undo.
 *
 * Schedules come from a per-instance cache that keeps their operation
 * arrays and scratch arenas, so a warm collective never calls malloc on
 * the small paths; scratch that does not fit the arena is allocated for
 * that run and the arena grows to fit the next one (up to
 * RCMPI_COLL_TMP_CACHE bytes).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "coll_impl.h"
#include "inst.h"
#include "log.h"
#include "pt2pt.h"
#include "status.h"

#define SCHED_CACHE_MAX 8
#define SCHED_ALIGN 64

/* ---- local copies -------------------------------------------------------- */

void rc_coll_copy(const void *src, size_t scount, struct rc_dtype *sdt,
		  void *dst, size_t dcount, struct rc_dtype *ddt)
{
	size_t slen = scount * sdt->size, dlen = dcount * ddt->size;
	size_t len = slen < dlen ? slen : dlen, off, n;
	bool sc, dc;
	char chunk[4096];

	if (!len)
		return;
	sc = rc_dt_is_contig(sdt, scount);
	dc = rc_dt_is_contig(ddt, dcount);
	if (sc && dc) {
		char *d = rc_dt_contig_ptr(ddt, dst);
		const char *s = rc_dt_contig_ptr(sdt, src);

		if (d != s)
			memmove(d, s, len);
		return;
	}
	if (sc) {
		rc_dt_unpack(ddt, dcount, dst, 0, rc_dt_contig_ptr(sdt, src),
			     len);
		return;
	}
	if (dc) {
		rc_dt_pack(sdt, scount, src, 0, rc_dt_contig_ptr(ddt, dst),
			   len);
		return;
	}
	for (off = 0; off < len; off += n) {
		n = len - off < sizeof(chunk) ? len - off : sizeof(chunk);
		rc_dt_pack(sdt, scount, src, off, chunk, n);
		rc_dt_unpack(ddt, dcount, dst, off, chunk, n);
	}
}

/* ---- the cache ----------------------------------------------------------- */

static void sched_free(struct rc_sched *s)
{
	free(s->xhold);
	free(s->ops);
	free(s->tmp);
	free(s->extra);
	free(s);
}

void rc_sched_cache_free(struct rc_inst *inst)
{
	struct rc_coll_state *cs = inst->coll;
	struct rc_sched *s;

	if (!cs)
		return;
	while ((s = cs->cache)) {
		cs->cache = s->next;
		sched_free(s);
	}
	cs->ncached = 0;
}

static struct rc_sched *sched_get(struct rc_comm *comm, uint32_t ctx, int tag)
{
	struct rc_coll_state *cs = rc_coll_state(comm->inst);
	struct rc_sched *s;

	if (!cs)
		return NULL;
	s = cs->cache;
	if (s) {
		cs->cache = s->next;
		cs->ncached--;
	} else {
		s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
	}
	s->next = NULL;
	s->inst = comm->inst;
	s->comm = comm;
	s->comm0 = comm;
	s->comm1 = NULL;
	s->side = 0;
	s->tagoff = 0;
	s->req = NULL;
	s->op = NULL;
	s->nhold = 0;
	s->nxhold = 0;
	s->ctx = ctx;
	s->tag = tag;
	s->err = RC_OK;
	s->berr = RC_OK;
	s->nops = 0;
	s->cur = 0;
	s->pending = 0;
	s->advancing = false;
	s->keep = false;
	s->tmp_used = 0;
	s->tmp_want = 0;
	s->nextra = 0;
	return s;
}

struct rc_sched *rc_sched_new(struct rc_comm *comm)
{
	struct rc_sched *s = sched_get(comm, rc_comm_coll_ctx(comm), 0);

	if (!s)
		return NULL;
	/* tags stay non-negative: MPI_ANY_TAG is -1 */
	s->tag = rc_coll_next_tag(comm);
	/* an intercommunicator's local steps: its local group (alg_inter.c) */
	if (comm->local)
		rc_sched_set_side(s, comm->local, rc_comm_coll_ctx(comm->local),
				  s->tag);
	return s;
}

struct rc_sched *rc_sched_new_keyed(struct rc_comm *comm, uint32_t ctx, int tag)
{
	return sched_get(comm, ctx, tag);
}

void rc_sched_set_side(struct rc_sched *s, struct rc_comm *comm, uint32_t ctx,
		       int tag)
{
	s->comm1 = comm;
	s->ctx1 = ctx;
	s->tag1 = tag;
}

void rc_sched_use(struct rc_sched *s, int side)
{
	assert(side == 0 || s->comm1);
	s->side = (uint8_t)side;
	s->comm = side ? s->comm1 : s->comm0;
}

/* Release what the run held and put the schedule back in the cache. */
static void sched_put(struct rc_sched *s)
{
	struct rc_coll_state *cs = s->inst->coll;
	unsigned i;
	int h;

	if (s->op)
		rc_op_release(s->op);
	for (h = 0; h < s->nhold; h++)
		rc_dt_release(s->hold[h]);
	for (i = 0; i < s->nxhold; i++)
		rc_dt_release(s->xhold[i]);
	for (i = 0; i < s->nextra; i++)
		free(s->extra[i]);
	/* grow the arena to what this run wanted, for the next one */
	if (s->tmp_want > s->tmp_cap && s->tmp_want <= cs->tune.tmp_cache) {
		void *p = NULL;

		free(s->tmp);
		if (posix_memalign(&p, SCHED_ALIGN, s->tmp_want))
			p = NULL;
		s->tmp = p;
		s->tmp_cap = p ? s->tmp_want : 0;
	}
	s->comm = NULL;
	s->comm0 = NULL;
	s->comm1 = NULL;
	s->keep = false;
	if (cs->ncached >= SCHED_CACHE_MAX) {
		sched_free(s);
		return;
	}
	s->next = cs->cache;
	cs->cache = s;
	cs->ncached++;
}

void rc_sched_discard(struct rc_sched *s)
{
	sched_put(s);
}

void rc_sched_hold_op(struct rc_sched *s, struct rc_op *op)
{
	assert(!s->op);
	rc_op_retain(op);
	s->op = op;
}

void rc_sched_hold_dt(struct rc_sched *s, struct rc_dtype *dt)
{
	int h;

	if (!dt || (dt->flags & RC_DT_PREDEFINED))
		return;
	for (h = 0; h < s->nhold; h++)
		if (s->hold[h] == dt)
			return;
	if (s->nhold < RC_SCHED_HOLD) {
		rc_dt_retain(dt);
		s->hold[s->nhold++] = dt;
		return;
	}
	/* more types than the fixed slots (alltoallw): a growing list;
	 * duplicates are fine, each holds its own reference */
	if (s->nxhold == s->xhold_cap) {
		unsigned cap = s->xhold_cap ? 2 * s->xhold_cap : 16;
		struct rc_dtype **x = realloc(s->xhold, cap * sizeof(*x));

		if (!x) {
			s->berr = RC_ERR_NOMEM;
			return;
		}
		s->xhold = x;
		s->xhold_cap = cap;
	}
	rc_dt_retain(dt);
	s->xhold[s->nxhold++] = dt;
}

/* ---- building ------------------------------------------------------------ */

static struct rc_sop *sop_add(struct rc_sched *s, uint8_t kind)
{
	struct rc_sop *o;

	if (s->nops == s->cap) {
		unsigned cap = s->cap ? 2 * s->cap : 32;
		struct rc_sop *ops = realloc(s->ops, cap * sizeof(*ops));

		if (!ops) {
			s->berr = RC_ERR_NOMEM;
			return NULL;
		}
		s->ops = ops;
		s->cap = cap;
	}
	o = &s->ops[s->nops++];
	o->kind = kind;
	o->side = s->side;
	o->tagoff = s->tagoff;
	return o;
}

void rc_sched_send(struct rc_sched *s, const void *buf, size_t count,
		   struct rc_dtype *dt, int peer)
{
	struct rc_sop *o = sop_add(s, RC_SOP_SEND);

	if (!o)
		return;
	o->src = buf;
	o->n1 = count;
	o->dt1 = dt;
	o->peer = peer;
}

void rc_sched_recv(struct rc_sched *s, void *buf, size_t count,
		   struct rc_dtype *dt, int peer)
{
	struct rc_sop *o = sop_add(s, RC_SOP_RECV);

	if (!o)
		return;
	o->dst = buf;
	o->n1 = count;
	o->dt1 = dt;
	o->peer = peer;
}

void rc_sched_wait(struct rc_sched *s)
{
	/* a WAIT right after a WAIT (or at the start) is useless */
	if (!s->nops || s->ops[s->nops - 1].kind == RC_SOP_WAIT)
		return;
	sop_add(s, RC_SOP_WAIT);
}

void rc_sched_reduce(struct rc_sched *s, const void *in, void *inout,
		     size_t count, struct rc_dtype *dt)
{
	struct rc_sop *o;

	if (!count)
		return;
	o = sop_add(s, RC_SOP_REDUCE);
	if (!o)
		return;
	o->src = in;
	o->dst = inout;
	o->n1 = count;
	o->dt1 = dt;
}

void rc_sched_copy(struct rc_sched *s, const void *src, size_t scount,
		   struct rc_dtype *sdt, void *dst, size_t dcount,
		   struct rc_dtype *ddt)
{
	struct rc_sop *o;

	if (scount * sdt->size == 0 || dcount * ddt->size == 0)
		return;
	if (src == dst && sdt == ddt && scount == dcount)
		return;
	o = sop_add(s, RC_SOP_COPY);
	if (!o)
		return;
	o->src = src;
	o->n1 = scount;
	o->dt1 = sdt;
	o->dst = dst;
	o->n2 = dcount;
	o->dt2 = ddt;
}

void rc_sched_call(struct rc_sched *s, rc_sched_fn fn, void *arg)
{
	struct rc_sop *o = sop_add(s, RC_SOP_CALL);

	if (!o)
		return;
	o->fn = fn;
	o->dst = arg;
}

void *rc_sched_tmp(struct rc_sched *s, size_t len)
{
	size_t at = (s->tmp_used + SCHED_ALIGN - 1) &
		    ~(size_t)(SCHED_ALIGN - 1);
	void *p = NULL;

	if (!len)
		len = 1;
	s->tmp_want = at + len;
	if (at + len <= s->tmp_cap) {
		s->tmp_used = at + len;
		return s->tmp + at;
	}
	/* does not fit the arena: a block of its own for this run */
	s->tmp_used = at + len;
	if (s->nextra == s->extra_cap) {
		unsigned cap = s->extra_cap ? 2 * s->extra_cap : 4;
		void **x = realloc(s->extra, cap * sizeof(*x));

		if (!x) {
			s->berr = RC_ERR_NOMEM;
			return NULL;
		}
		s->extra = x;
		s->extra_cap = cap;
	}
	if (posix_memalign(&p, SCHED_ALIGN, len)) {
		s->berr = RC_ERR_NOMEM;
		return NULL;
	}
	s->extra[s->nextra++] = p;
	return p;
}

void *rc_sched_tmp_dt(struct rc_sched *s, size_t count,
		      const struct rc_dtype *dt)
{
	ptrdiff_t ext = rc_dt_extent(dt), tx = dt->true_ub - dt->true_lb;
	size_t len;
	char *p;

	if (!count)
		return rc_sched_tmp(s, 1);
	len = (size_t)((ptrdiff_t)(count - 1) * (ext > 0 ? ext : -ext) + tx);
	p = rc_sched_tmp(s, len);
	if (!p)
		return NULL;
	/* negative extents lay elements out downwards from the first */
	if (ext < 0)
		p += (ptrdiff_t)(count - 1) * -ext;
	return p - dt->true_lb;
}

/* ---- running ------------------------------------------------------------- */

static void sched_advance(struct rc_sched *s);

static void op_done(struct rc_req *r)
{
	struct rc_sched *s = r->cb_data;

	if (r->err && !s->err)
		s->err = r->err;
	assert(s->pending > 0);
	if (--s->pending == 0 && !s->advancing)
		sched_advance(s);
}

static void sched_post(struct rc_sched *s, struct rc_sop *o)
{
	struct rc_comm *comm = s->comm0;
	uint32_t ctx = s->ctx;
	int tag = s->tag;
	struct rc_req *r;
	int ret;

	if (RC_UNLIKELY(o->side)) {
		comm = s->comm1;
		ctx = s->ctx1;
		tag = s->tag1;
	}
	if (RC_UNLIKELY(o->tagoff))
		tag = (int)((unsigned)(tag + o->tagoff) & 0x7fffffffu);
	if (o->kind == RC_SOP_SEND) {
		/* small contiguous sends leave at once, without a request */
		ret = rc_p2p_send_now(comm, ctx, o->src, o->n1, o->dt1, o->peer,
				      tag);
		if (ret != RC_AGAIN) {
			if (ret && !s->err)
				s->err = ret;
			return;
		}
		ret = rc_p2p_isend(comm, ctx, o->src, o->n1, o->dt1, o->peer,
				   tag, RC_SEND_STD, &r);
	} else
		ret = rc_p2p_irecv(comm, ctx, o->dst, o->n1, o->dt1, o->peer,
				   tag, &r);
	if (ret) {
		if (!s->err)
			s->err = ret;
		return;
	}
	if (rc_req_done(r)) {
		if (r->err && !s->err)
			s->err = r->err;
		rc_req_free(r);
		return;
	}
	r->cb = op_done;
	r->cb_data = s;
	r->flags |= RC_REQ_USER_FREED;	/* released after op_done */
	s->pending++;
}

static void sched_complete(struct rc_sched *s)
{
	struct rc_req *req = s->req;

	req->err = s->err;
	req->status.MPI_SOURCE = MPI_ANY_SOURCE;
	req->status.MPI_TAG = MPI_ANY_TAG;
	req->status.MPI_ERROR = rc_status_to_mpi(s->err);
	req->status.rc_count = 0;
	req->status.rc_cancelled = 0;
	/* a persistent collective's schedule stays with its request */
	if (!s->keep) {
		req->coll = NULL;
		sched_put(s);
	}
	rc_req_complete(req);
}

static void sched_advance(struct rc_sched *s)
{
	s->advancing = true;
	while (s->cur < s->nops) {
		struct rc_sop *o = &s->ops[s->cur];

		switch (o->kind) {
		case RC_SOP_WAIT:
			if (s->pending) {
				s->advancing = false;
				return;
			}
			break;
		case RC_SOP_SEND:
		case RC_SOP_RECV:
			sched_post(s, o);
			break;
		case RC_SOP_REDUCE:
			rc_op_apply(s->op, o->src, o->dst, o->n1, o->dt1);
			break;
		case RC_SOP_COPY:
			rc_coll_copy(o->src, o->n1, o->dt1, o->dst, o->n2,
				     o->dt2);
			break;
		case RC_SOP_CALL:
			assert(!s->keep);
			o->fn(s, o->dst);
			break;
		}
		s->cur++;
	}
	s->advancing = false;
	if (!s->pending)
		sched_complete(s);
}

int rc_sched_start(struct rc_sched *s, struct rc_req *req)
{
	assert(req->kind == RC_REQ_COLL && req->state != RC_REQ_ACTIVE);
	if (s->berr) {
		int ret = s->berr;

		sched_put(s);
		return ret;
	}
	s->req = req;
	req->coll = s;
	req->state = RC_REQ_ACTIVE;
	req->err = RC_OK;
	/* from the first operation (a kept schedule runs again) */
	s->cur = 0;
	s->pending = 0;
	s->err = RC_OK;
	sched_advance(s);
	return RC_OK;
}

void rc_sched_keep(struct rc_sched *s)
{
	s->keep = true;
}
