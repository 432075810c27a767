/*
 * atomic.c - the device agent: accumulates of 8-byte integers applied by
 * the network device's atomics (rma/README.md, "Agents").
 *
 * A window whose agent is the device (win->dev_atomic, chosen at
 * creation, the same on every member) sends every accumulate,
 * get_accumulate, fetch_and_op and compare_and_swap whose target type is
 * made of one 8-byte integer kind through here, from every origin, this
 * rank included (the transport's loopback path): no CPU ever applies one
 * on that window, so device atomics never race with CPU updates. Each
 * element is one device operation at its own 8-byte aligned address:
 *   - SUM: fetch-and-add of the origin value; NO_OP: fetch-and-add of 0;
 *   - compare_and_swap: compare-and-swap;
 *   - every other op (REPLACE, MAX, PROD, BAND, LOR...): read (add 0),
 *     compute the new value here, compare-and-swap it in; a miss returns
 *     the current value and the loop goes on from there. An op that
 *     leaves the value as it is ends at the read.
 * The old value of the successful step is the element's result.
 *
 * Ordering (accumulate_ordering, default rar,raw,war,waw): one QP per
 * peer runs single-step operations in the order they were posted, but a
 * loop's steps could let a later operation pass it. So per target,
 * operations start in issue order (tg->aq), nothing starts behind one
 * that still waits for room in the send queue, and nothing starts behind
 * a loop operation until it has finished, unless the window's
 * accumulate_ordering leaves out the orderings it would break (may_pass:
 * rar and raw for one that returns a value, war and waw for one that
 * changes the target; "none" lets every one pass). Every device
 * operation is an atomic, never a WRITE, so no IBV_SEND_FENCE is ever
 * needed: the responder executes atomics in order.
 *
 * Each operation counts in its target's nout until every element is done,
 * like a direct put, so every synchronisation waits for it; results are
 * unpacked into the result buffer then.
 */
#include <stdlib.h>
#include <string.h>
#include "rma_impl.h"

enum {
	AS_FADD = 1, /* fetch-and-add el->in */
	AS_CSWAP,    /* compare-and-swap el->cmp -> el->in */
	AS_READ,     /* loop: read (add 0) */
	AS_LOOP,     /* loop: compare-and-swap el->cmp -> computed value */
};

/* One element's device operation. */
struct rma_ael {
	struct rc_tp_rdma rd;
	struct rma_aop *aop;
	uint64_t raddr;
	uint64_t in;   /* origin value */
	uint64_t cmp;  /* the value the swap expects */
	uint64_t swap; /* loop: the value computed from cmp */
	uint64_t res;  /* the device writes the old value here (exposed) */
	uint8_t step;  /* AS_*, what to post next */
	bool want;     /* step not posted yet */
};

/* One MPI call's device operation: its elements, results after them. */
struct rma_aop {
	struct rc_list link;  /* target's aq: not finished */
	struct rma_room room; /* a post met a full queue */
	struct rc_win *win;
	int target;
	struct rc_req *req;
	struct rc_tp *tp;
	void *lh;		/* this block, exposed; NULL: not (small) */
	const struct rc_op *op; /* NULL: compare_and_swap */
	enum rc_basic b;
	void *rbuf; /* results: (rbuf, rcount, rdt), NULL: none */
	size_t rcount;
	struct rc_dtype *rdt;  /* retained */
	size_t n, nleft, scan; /* scan: no element before it wants */
	int err;
	bool loop;	/* some element needs more than one step */
	bool started;	/* its elements may be posted */
	uint64_t *olds; /* n results, packed (after el[]) */
	struct rma_ael el[];
};

/* Operations of at most this many elements leave their block unexposed
 * when the transport offers rdma_small (each element's 8-byte result
 * lands through the transport's own buffer). */
#define RMA_AOP_UNEXPOSED 4

/* Blocks of one element (the common size: fetch_and_op, compare_and_swap,
 * one accumulate) are kept for reuse (rc_rma's aop1s). */
#define RMA_AOP1_SIZE (sizeof(struct rma_aop) + sizeof(struct rma_ael) + 8)

static struct rma_aop *aop_new(struct rc_rma *rma, size_t n, size_t sz)
{
	struct rma_aop *aop = n == 1 ? rc_flist_get(&rma->aop1s) : NULL;

	if (!aop)
		return calloc(1, sz);
	memset(aop, 0, RMA_AOP1_SIZE);
	return aop;
}

static void aop_put(struct rc_rma *rma, struct rma_aop *aop)
{
	if (aop->n != 1 || !rc_flist_put(&rma->aop1s, aop))
		free(aop);
}

static bool is_int8(enum rc_basic b)
{
	return rma_basic_is_int(b) && rc_basic_size(b) == 8;
}

static void tg_advance(struct rc_win *win, int t);

static void aop_finish(struct rma_aop *aop)
{
	struct rc_win *win = aop->win;
	int t = aop->target;
	int err = aop->err;
	size_t i;

	rma_room_done(&aop->room);
	rc_list_del(&aop->link);
	if (aop->rbuf && !err) {
		for (i = 0; i < aop->n; i++)
			aop->olds[i] = aop->el[i].res;
		rc_dt_unpack(aop->rdt, aop->rcount, aop->rbuf, 0, aop->olds,
			     aop->n * 8);
	}
	if (aop->rdt)
		rc_dt_release(aop->rdt);
	if (aop->lh)
		aop->tp->ops->mem_release(aop->tp, aop->lh);
	rma_dop_end(win, t, aop->req, err);
	aop_put(rma_of(win->inst), aop);
	tg_advance(win, t);
}

static void ael_done(struct rc_tp_rdma *rd, int status);
static void aop_room(struct rma_room *room);

/* Post what the elements want, in order; RC_AGAIN stops at the first
 * that finds no room (progress retries). Finishes aop when nothing is
 * left. */
static void aop_kick(struct rma_aop *aop)
{
	struct rma_target *tg = &aop->win->tg[aop->target];
	size_t i;
	int ret;

	if (!aop->started)
		return;
	for (i = aop->scan; i < aop->n; i++) {
		struct rma_ael *el = &aop->el[i];
		bool cas = el->step == AS_CSWAP || el->step == AS_LOOP;

		if (!el->want)
			continue;
		ret = aop->tp->ops->atomic(aop->tp, tg->wrank,
					   cas ? RC_TP_CSWAP : RC_TP_FADD,
					   el->step == AS_READ	 ? 0
					   : el->step == AS_LOOP ? el->swap
								 : el->in,
					   el->cmp, &el->res, aop->lh,
					   el->raddr, tg->akey, &el->rd);
		if (ret == RC_AGAIN) {
			aop->scan = i;
			rma_room_wait(rma_of(aop->win->inst), &aop->room,
				      aop_room);
			return;
		}
		el->want = false;
		if (ret == RC_INPROGRESS)
			continue;
		/* refused or failed: the element is over */
		if (!aop->err)
			aop->err = ret ? ret : RC_ERR_INTERN;
		aop->nleft--;
	}
	aop->scan = aop->n;
	if (aop->room.waiting) {
		rma_room_done(&aop->room);
		tg_advance(aop->win, aop->target); /* may pass it now */
	}
	if (!aop->nleft)
		aop_finish(aop);
}

/* Room in the send queue, perhaps (progress). */
static void aop_room(struct rma_room *room)
{
	aop_kick(rc_container_of(room, struct rma_aop, room));
}

static void ael_done(struct rc_tp_rdma *rd, int status)
{
	struct rma_ael *el = rc_container_of(rd, struct rma_ael, rd);
	struct rma_aop *aop = el->aop;
	uint64_t v;

	if (status) {
		if (!aop->err)
			aop->err = status;
	} else if (el->step == AS_READ || el->step == AS_LOOP) {
		/* loop: done when the swap found what we read */
		if (el->step == AS_READ || el->res != el->cmp) {
			v = el->res;
			if (aop->op->kind == RC_OP_REPLACE)
				v = el->in;
			else
				rc_op_apply_packed(aop->op, aop->b, &el->in, &v,
						   1);
			if (v != el->res) {
				el->cmp = el->res;
				el->swap = v;
				el->step = AS_LOOP;
				el->want = true;
				if ((size_t)(el - aop->el) < aop->scan)
					aop->scan = (size_t)(el - aop->el);
				aop_kick(aop);
				return;
			}
		}
	}
	aop->nleft--;
	if (!aop->nleft)
		aop_finish(aop);
}

/* May aop start while an operation before it (a loop's) is unfinished?
 * Only where the window's accumulate_ordering lets it pass: one that
 * returns a value reads (rar, raw), one that changes the target writes
 * (war, waw). */
static bool may_pass(const struct rma_aop *aop)
{
	unsigned need = 0;

	if (aop->rbuf)
		need |= RC_ACC_RAR | RC_ACC_RAW;
	if (!aop->op || aop->op->kind != RC_OP_NO_OP)
		need |= RC_ACC_WAR | RC_ACC_WAW;
	return !(aop->win->acc_order & need);
}

/*
 * Start what may start at target t, in issue order: nothing passes an
 * operation still waiting for room in the send queue, nothing starts
 * behind an unfinished loop operation unless accumulate_ordering lets
 * it (may_pass; the default, rar,raw,war,waw, lets nothing pass). A loop
 * operation itself may start behind single-step ones once they are
 * posted: the QP applies them first. Re-entered (an operation finishing
 * inside a start): the outer call looks again.
 */
static void tg_advance(struct rc_win *win, int t)
{
	struct rma_target *tg = &win->tg[t];
	struct rc_list *pos;
	bool behind_loop;

	if (tg->aadv) {
		tg->aagain = true;
		return;
	}
	tg->aadv = true;
	do {
		tg->aagain = false;
		behind_loop = false;
		rc_list_for_each(pos, &tg->aq) {
			struct rma_aop *aop =
				rc_list_entry(pos, struct rma_aop, link);

			if (!aop->started) {
				if (behind_loop && !may_pass(aop))
					break;
				aop->started = true;
				aop_kick(aop); /* may finish it: look again */
				tg->aagain = true;
				break;
			}
			if (aop->room.waiting)
				break;
			if (aop->loop)
				behind_loop = true;
		}
	} while (tg->aagain);
	tg->aadv = false;
}

/* 8 contiguous bytes of (buf, count, dt)? Their address in *p. */
static bool one_word(const void *buf, size_t count, const struct rc_dtype *dt,
		     const void **p)
{
	if (count * dt->size != 8 || !rc_dt_is_contig(dt, count))
		return false;
	*p = rc_dt_contig_ptr(dt, buf);
	return true;
}

/*
 * The common case on its own: one element (fetch_and_op with SUM or
 * NO_OP, compare_and_swap, a one-element accumulate or get_accumulate
 * with those), contiguous, at the aligned word raddr of window rank t,
 * nothing queued at t (so nothing it must wait for: single-step atomics
 * are applied in QP order). One device atomic whose old value the
 * transport copies straight into res: no block, no packing
 * (rma_dop_atomic). RC_AGAIN: not this case.
 */
static int word_atomic(struct rc_win *win, int t, uint64_t raddr,
		       enum rc_tp_atomic kind, uint64_t in, uint64_t cmp,
		       void *res, struct rc_req *req)
{
	if (!rc_list_empty(&win->tg[t].aq) || (raddr & 7))
		return RC_AGAIN;
	return rma_dop_atomic(win, t, kind, in, cmp, res, raddr, req);
}

/* word_atomic from rc_rma_op's argument block. */
static int atomic_one(struct rc_win *win, const struct rc_rma_args *a,
		      struct rc_req *req)
{
	const bool cas = a->kind == RC_RMA_CAS;
	const struct rma_target *tg = &win->tg[a->target];
	const void *tw, *in, *cmp, *res = NULL;
	uint64_t vin = 0, vcmp = 0;

	if (!cas && a->op->kind != RC_OP_SUM && a->op->kind != RC_OP_NO_OP)
		return RC_AGAIN;
	if (!one_word((const void *)(uintptr_t)rma_tg_addr(tg, a->disp),
		      a->tcount, a->tdt, &tw))
		return RC_AGAIN;
	if (a->kind != RC_RMA_ACC &&
	    !one_word(a->rbuf, a->rcount, a->rdt, &res))
		return RC_AGAIN;
	if (cas || a->op->kind == RC_OP_SUM) {
		if (!one_word(a->obuf, a->ocount, a->odt, &in))
			return RC_AGAIN;
		memcpy(&vin, in, 8);
	}
	if (cas) {
		if (!one_word(a->cbuf, 1, a->odt, &cmp))
			return RC_AGAIN;
		memcpy(&vcmp, cmp, 8);
	}
	return word_atomic(win, a->target, (uint64_t)(uintptr_t)tw,
			   cas ? RC_TP_CSWAP : RC_TP_FADD, vin, vcmp,
			   (void *)(uintptr_t)res, req);
}

int rc_rma_word(struct rc_win *win, bool cas, uint64_t in, uint64_t cmp,
		void *res, int t, MPI_Aint disp, const struct rc_dtype *dt)
{
	char *tbuf = NULL;
	int ret;

	if (!win->dev_atomic || win->shm_path)
		return RC_AGAIN;
	ret = rma_op_check(win, t, disp, 1, dt, &tbuf);
	if (ret)
		return ret;
	return word_atomic(win, t, rma_tg_addr(&win->tg[t], disp),
			   cas ? RC_TP_CSWAP : RC_TP_FADD, in, cmp, res, NULL);
}

int rma_atomic_op(struct rc_win *win, const struct rc_rma_args *a,
		  struct rc_req *req)
{
	struct rma_target *tg = &win->tg[a->target];
	const enum rc_basic b = a->tdt->basic;
	const bool cas = a->kind == RC_RMA_CAS;
	const struct rc_op *op = cas ? NULL : a->op;
	uint8_t key[RC_TP_KEY_MAX]; /* ours: the peer does not need it */
	uint64_t base, *ins;
	struct elem_walk w;
	struct rma_aop *aop;
	size_t n, sz, i;

	if (!win->dev_atomic || !is_int8(b) ||
	    (a->kind != RC_RMA_ACC && a->kind != RC_RMA_GACC && !cas))
		return RC_AGAIN;
	n = cas ? 1 : a->tcount * a->tdt->size / 8;
	if (!n)
		return RC_AGAIN;
	if (n == 1) {
		int ret = atomic_one(win, a, req);

		if (ret != RC_AGAIN)
			return ret;
	}
	sz = sizeof(*aop) + n * (sizeof(aop->el[0]) + 8);
	aop = aop_new(rma_of(win->inst), n, sz);
	if (!aop)
		return RC_ERR_NOMEM;
	aop->olds = (uint64_t *)&aop->el[n];
	base = rma_tg_addr(tg, a->disp);
	w = (struct elem_walk){.dt = a->tdt, .buf = (char *)(uintptr_t)base};
	for (i = 0; i < n; i++) {
		aop->el[i].raddr = (uint64_t)(uintptr_t)rma_walk_next(&w, 8);
		if (aop->el[i].raddr & 7) {
			/* not for the device: active messages */
			aop_put(rma_of(win->inst), aop);
			return RC_AGAIN;
		}
	}
	/* the origin values, packed (no origin for NO_OP) */
	ins = aop->olds;
	if (cas) {
		rc_dt_pack(a->odt, 1, a->obuf, 0, &aop->el[0].in, 8);
		rc_dt_pack(a->odt, 1, a->cbuf, 0, &aop->el[0].cmp, 8);
	} else if (op->kind != RC_OP_NO_OP) {
		rc_dt_pack(a->odt, a->ocount, a->obuf, 0, ins, n * 8);
	}
	for (i = 0; i < n; i++) {
		struct rma_ael *el = &aop->el[i];

		el->rd.done = ael_done;
		el->rd.len = 8;
		el->aop = aop;
		el->want = true;
		if (cas) {
			el->step = AS_CSWAP;
			continue;
		}
		el->in = op->kind == RC_OP_NO_OP ? 0 : ins[i];
		el->step = op->kind == RC_OP_SUM || op->kind == RC_OP_NO_OP
				   ? AS_FADD
				   : AS_READ;
	}
	aop->tp = win->atp;
	/* a few results go through the transport's own memory (rdma_small):
	 * no registration lookup for fetch_and_op or compare_and_swap */
	if ((n > RMA_AOP_UNEXPOSED || aop->tp->rdma_small < 8) &&
	    aop->tp->ops->mem_expose(aop->tp, aop, sz, key, &aop->lh)) {
		aop_put(rma_of(win->inst), aop);
		return RC_ERR_NOMEM;
	}
	aop->win = win;
	aop->target = a->target;
	aop->req = req;
	aop->op = op;
	aop->b = b;
	aop->n = n;
	aop->nleft = n;
	aop->loop = !cas && aop->el[0].step == AS_READ;
	if (a->kind != RC_RMA_ACC) {
		aop->rbuf = a->rbuf;
		aop->rcount = cas ? 1 : a->rcount;
		aop->rdt = cas ? a->odt : a->rdt;
		rc_dt_retain(aop->rdt);
	}
	tg->nout++;
	rc_list_add_tail(&tg->aq, &aop->link);
	tg_advance(win, a->target);
	return RC_OK;
}
