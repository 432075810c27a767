/*
 * tp_loop.c - the in-process transport.
 *
 * A "fabric" joins the instances of one process. In a real job the fabric
 * holds only this process: it is the transport for messages a rank sends to
 * itself. Unit tests put several ranks' instances on one fabric and drive
 * their progress in turn: nothing is delivered except inside the receiver's
 * progress, and get/put complete only inside the initiator's progress, so the
 * asynchronous paths of the protocols are really taken. For flow-control
 * tests the fabric can cap the messages queued towards a rank (am_send then
 * answers RC_AGAIN) and refuse every n-th send, and offer device atomics
 * (applied when the initiator's progress completes them, like get/put).
 */
#include <stdlib.h>
#include <string.h>
#include "compiler.h"
#include "copy.h"
#include "inst.h"
#include "list.h"
#include "log.h"
#include "status.h"
#include "tp.h"
#include "tp_loop.h"

struct loop_msg {
	struct rc_list link;
	int src;
	size_t len;
	/* data follows */
};

/* Messages up to this size come from a free list, not malloc. */
#define LOOP_SMALL 256

struct loop_tp {
	struct rc_tp tp;
	struct rc_loop_fabric *fabric;
	bool own_fabric;
	struct rc_list inbox;
	unsigned queued;	/* messages waiting in inbox */
	struct rc_list rdma;	/* get/put to complete at next progress */
	unsigned long nsend;
	unsigned long nrdma_try; /* get and put calls */
	struct rc_list small_free; /* LOOP_SMALL message buffers */
};

struct loop_rdma {
	struct rc_list link;
	int peer;
	struct rc_tp_rdma *op;
	void *dst;
	const void *src;
	size_t len;
	int akind; /* enum rc_tp_atomic: an atomic on dst, old value to src */
	uint64_t operand, compare;
};

struct rc_loop_fabric *rc_loop_fabric_new(int size)
{
	struct rc_loop_fabric *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->size = size;
	f->tps = calloc(size, sizeof(*f->tps));
	if (!f->tps) {
		free(f);
		return NULL;
	}
	f->eager_limit = 8192;
	f->max_am = 65536;
	f->rdma_chunk = 1 << 20;
	f->max_rdma = 4;
	return f;
}

void rc_loop_fabric_free(struct rc_loop_fabric *f)
{
	if (!f)
		return;
	free(f->tps);
	free(f);
}

void rc_loop_fabric_fail(struct rc_loop_fabric *f, int rank)
{
	int r;

	f->tps[rank] = NULL;
	for (r = 0; r < f->size; r++)
		if (f->tps[r] && f->tps[r]->failed)
			f->tps[r]->failed(f->tps[r]->inst, rank, RC_ERR_PEER);
}

static int loop_open(struct rc_inst *inst, struct rc_tp **tpp)
{
	struct loop_tp *lt = calloc(1, sizeof(*lt));

	if (!lt)
		return RC_ERR_NOMEM;
	if (inst->loop_fabric) {
		lt->fabric = inst->loop_fabric;
	} else {
		/* a real job: a fabric of one, to send to ourselves */
		lt->fabric = rc_loop_fabric_new(inst->size);
		if (!lt->fabric) {
			free(lt);
			return RC_ERR_NOMEM;
		}
		lt->own_fabric = true;
	}
	lt->fabric->tps[inst->rank] = &lt->tp;
	lt->tp.ops = &rc_tp_loop_ops;
	lt->tp.inst = inst;
	lt->tp.name = "self";
	lt->tp.caps = RC_TP_CAP_GET | RC_TP_CAP_PUT |
		      (lt->fabric->atomics ? RC_TP_CAP_ATOMIC : 0);
	lt->tp.eager_limit = lt->fabric->eager_limit;
	lt->tp.direct_min = lt->fabric->eager_limit;
	lt->tp.max_am = lt->fabric->max_am;
	lt->tp.rdma_max = lt->fabric->rdma_max;
	lt->tp.rdma_chunk = lt->fabric->rdma_chunk;
	if (lt->tp.rdma_max && lt->tp.rdma_chunk > lt->tp.rdma_max)
		lt->tp.rdma_chunk = lt->tp.rdma_max;
	lt->tp.max_rdma = lt->fabric->max_rdma;
	/* (lh is not used here; small operations skip mem_expose, as
	 * over verbs) */
	lt->tp.rdma_small = 64;
	rc_list_init(&lt->inbox);
	rc_list_init(&lt->rdma);
	rc_list_init(&lt->small_free);
	*tpp = &lt->tp;
	return RC_OK;
}

static bool loop_reachable(struct rc_tp *tp, int wrank)
{
	struct loop_tp *lt = (struct loop_tp *)tp;

	return wrank < lt->fabric->size && lt->fabric->tps[wrank];
}

static int loop_connect(struct rc_tp *tp)
{
	return RC_OK;
}

static void loop_close(struct rc_tp *tp)
{
	struct loop_tp *lt = (struct loop_tp *)tp;
	struct rc_list *pos, *n;

	rc_list_for_each_safe(pos, n, &lt->inbox)
		free(rc_list_entry(pos, struct loop_msg, link));
	rc_list_for_each_safe(pos, n, &lt->small_free)
		free(rc_list_entry(pos, struct loop_msg, link));
	rc_list_for_each_safe(pos, n, &lt->rdma)
		free(rc_list_entry(pos, struct loop_rdma, link));
	if (lt->fabric->tps[tp->inst->rank] == tp)
		lt->fabric->tps[tp->inst->rank] = NULL;
	if (lt->own_fabric)
		rc_loop_fabric_free(lt->fabric);
	free(lt);
}

static int loop_am_send(struct rc_tp *tp, int wrank, const void *hdr,
			size_t hlen, const void *payload, size_t len)
{
	struct loop_tp *lt = (struct loop_tp *)tp;
	struct rc_loop_fabric *f = lt->fabric;
	struct loop_tp *dst = (struct loop_tp *)f->tps[wrank];
	struct loop_msg *m;

	if (!dst)
		return RC_ERR_PEER;
	lt->nsend++;
	if (f->again_every && lt->nsend % f->again_every == 0)
		return RC_AGAIN;
	if (f->max_queued && dst->queued >= f->max_queued)
		return RC_AGAIN;
	if (hlen + len <= LOOP_SMALL && !rc_list_empty(&lt->small_free)) {
		m = rc_list_first(&lt->small_free, struct loop_msg, link);
		rc_list_del(&m->link);
	} else {
		m = malloc(sizeof(*m) +
			   (hlen + len <= LOOP_SMALL ? LOOP_SMALL : hlen + len));
		if (!m)
			return RC_ERR_NOMEM;
	}
	m->src = tp->inst->rank;
	m->len = hlen + len;
	memcpy(m + 1, hdr, hlen);
	if (len)
		memcpy((char *)(m + 1) + hlen, payload, len);
	rc_list_add_tail(&dst->inbox, &m->link);
	dst->queued++;
	f->nmsgs++;
	return RC_OK;
}

static int loop_mem_expose(struct rc_tp *tp, void *addr, size_t len,
			   void *key, void **handle)
{
	memset(key, 0, RC_TP_KEY_MAX);
	*handle = addr;		/* nothing to register in one process */
	return RC_OK;
}

static void loop_mem_release(struct rc_tp *tp, void *handle)
{
}

static int loop_rdma(struct rc_tp *tp, int peer, void *dst, const void *src,
		     size_t len, struct rc_tp_rdma *op)
{
	struct loop_tp *lt = (struct loop_tp *)tp;
	struct loop_rdma *r;

	if (!lt->fabric->tps[peer])
		return RC_ERR_PEER;
	if (lt->fabric->rdma_max && len > lt->fabric->rdma_max)
		return RC_ERR_INTERN; /* as a device refuses it */
	r = calloc(1, sizeof(*r));
	if (!r)
		return RC_ERR_NOMEM;
	r->peer = peer;
	r->op = op;
	r->dst = dst;
	r->src = src;
	r->len = len;
	rc_list_add_tail(&lt->rdma, &r->link);
	lt->fabric->nrdma++;
	return RC_INPROGRESS;
}

/* A get or put refused now (the fabric's rdma_again_every)? */
static bool loop_rdma_again(struct rc_tp *tp)
{
	struct loop_tp *lt = (struct loop_tp *)tp;
	unsigned every = lt->fabric->rdma_again_every;

	return every && ++lt->nrdma_try % every == 0;
}

static int loop_get(struct rc_tp *tp, int wrank, void *local, void *lh,
		    size_t len, uint64_t raddr, const void *rkey,
		    struct rc_tp_rdma *op)
{
	if (loop_rdma_again(tp))
		return RC_AGAIN;
	return loop_rdma(tp, wrank, local, (const void *)(uintptr_t)raddr, len,
			 op);
}

static int loop_put(struct rc_tp *tp, int wrank, const void *local, void *lh,
		    size_t len, uint64_t raddr, const void *rkey,
		    struct rc_tp_rdma *op)
{
	if (loop_rdma_again(tp))
		return RC_AGAIN;
	return loop_rdma(tp, wrank, (void *)(uintptr_t)raddr, local, len, op);
}

static int loop_atomic(struct rc_tp *tp, int wrank, enum rc_tp_atomic kind,
		       uint64_t operand, uint64_t compare, void *result,
		       void *lh, uint64_t raddr, const void *rkey,
		       struct rc_tp_rdma *op)
{
	struct loop_tp *lt = (struct loop_tp *)tp;
	struct loop_rdma *r;
	int ret;

	if (!(tp->caps & RC_TP_CAP_ATOMIC) || (raddr & 7))
		return RC_ERR_UNSUPPORTED;
	lt->nsend++;
	if (lt->fabric->again_every && lt->nsend % lt->fabric->again_every == 0)
		return RC_AGAIN;
	ret = loop_rdma(tp, wrank, (void *)(uintptr_t)raddr, result, 8, op);
	if (ret != RC_INPROGRESS)
		return ret;
	r = rc_list_entry(lt->rdma.prev, struct loop_rdma, link);
	r->akind = kind;
	r->operand = operand;
	r->compare = compare;
	return RC_INPROGRESS;
}

static bool loop_atomic_reach(struct rc_tp *tp, int wrank)
{
	return (tp->caps & RC_TP_CAP_ATOMIC) && loop_reachable(tp, wrank);
}

/* An atomic's effect: the word's old value into the result, if any. */
static void loop_apply_atomic(struct loop_rdma *r)
{
	uint64_t *w = r->dst, old = *w;

	if (r->akind == RC_TP_FADD)
		*w = old + r->operand;
	else if (old == r->compare)
		*w = r->operand;
	if (r->src) /* (NULL: an accumulate wants no result) */
		memcpy((void *)r->src, &old, 8);
}

/* loop_progress when there is something to do (out of line: an idle
 * poll then sets up no frame) */
static __attribute__((noinline)) unsigned loop_progress_work(struct loop_tp *lt)
{
	struct rc_tp *tp = &lt->tp;
	unsigned events = 0;
	struct rc_list batch;

	/* Complete the get/put issued before this call. */
	while (!rc_list_empty(&lt->rdma)) {
		struct loop_rdma *r = rc_list_first(&lt->rdma, struct loop_rdma,
						    link);

		rc_list_del(&r->link);
		if (lt->fabric->tps[r->peer]) {
			if (r->akind)
				loop_apply_atomic(r);
			else
				rc_copy(r->dst, r->src, r->len);
			r->op->done(r->op, RC_OK);
		} else {
			/* the peer died with the operation out */
			r->op->done(r->op, RC_ERR_PEER);
		}
		free(r);
		events++;
	}
	/* Deliver what was queued before this call (handlers may send). */
	if (rc_list_empty(&lt->inbox))
		return events;
	rc_list_splice_init(&lt->inbox, &batch);
	while (!rc_list_empty(&batch)) {
		struct loop_msg *m = rc_list_first(&batch, struct loop_msg,
						   link);

		rc_list_del(&m->link);
		lt->queued--;
		tp->recv(tp->inst, m->src, m + 1, m->len);
		if (m->len <= LOOP_SMALL)
			rc_list_add_head(&lt->small_free, &m->link);
		else
			free(m);
		events++;
	}
	return events;
}

static unsigned loop_progress(struct rc_tp *tp)
{
	struct loop_tp *lt = (struct loop_tp *)tp;

	if (RC_LIKELY(rc_list_empty(&lt->rdma) && rc_list_empty(&lt->inbox)))
		return 0;
	return loop_progress_work(lt);
}

const struct rc_tp_ops rc_tp_loop_ops = {
	.name = "self",
	.open = loop_open,
	.reachable = loop_reachable,
	.connect = loop_connect,
	.close = loop_close,
	.am_send = loop_am_send,
	.mem_expose = loop_mem_expose,
	.mem_release = loop_mem_release,
	.get = loop_get,
	.put = loop_put,
	.atomic = loop_atomic,
	.atomic_reach = loop_atomic_reach,
	.progress = loop_progress,
};
