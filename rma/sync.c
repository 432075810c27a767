/*
 * sync.c - synchronisation: the epochs of a window, the machines that wait
 * for other processes, the messages they exchange, and the target's lock.
 *
 * Each call that waits is a machine (struct rma_sync) advanced from
 * progress until its request completes; nothing blocks inside the module.
 * Remote completion rests on one rule: a peer's messages arrive in the
 * order they were sent and the target applies an operation as its bytes
 * arrive, so when the target answers a message (FLUSH, UNLOCK, COMPLETE
 * with RMA_F_ACK) with ACK, everything the origin sent before it has been
 * applied, and every reply the target sent before the ACK arrives before
 * it.
 *
 *   fence          every target this rank sent to since its last
 *                  acknowledgement gets FLUSH; once the ACKs and every
 *                  reply are in, a barrier: after it, every operation of
 *                  the epoch has been applied everywhere, and nobody
 *                  starts the next epoch before everybody entered the
 *                  fence (MPI_MODE_NOPRECEDE skips the flushes when no
 *                  operation was issued; with MPI_MODE_NOSUCCEED as well
 *                  nothing is exchanged at all)
 *   SHM path       lock and unlock are the lock words of the segment (see
 *                  below), flush a memory barrier (rc_win_flush_direct);
 *                  fence and PSCW as below (nothing to acknowledge)
 *   device agent   lock and unlock are the device's atomics on the
 *                  target's lock words (dlock.c); unlock first flushes
 *                  what went as messages; the rest as below
 *   lock           LOCK(type) -> GRANT (MPI_MODE_NOCHECK: no message);
 *                  the target's queue grants in arrival order: shared
 *                  requests together, an exclusive one alone, and nothing
 *                  passes a waiting exclusive request (no starvation)
 *   unlock         once every reply is in (a get's reply reads the
 *                  target's memory as it goes out, so the lock must still
 *                  be held), UNLOCK -> ACK
 *   flush          FLUSH -> ACK where something was sent; flush_local
 *                  waits only for this rank's streams and replies
 *   post/start     POST to each origin of the group; start waits for a
 *                  POST from each target (counted, so a POST may come
 *                  before the matching start)
 *   complete/wait  once every reply is in, COMPLETE to each target (with
 *                  RMA_F_ACK on dynamic windows, whose range errors only
 *                  the target sees); wait counts a COMPLETE from each
 *                  origin of the group
 * A target that failed ends what waits on it with RC_ERR_PEER; an origin
 * that failed loses its locks and its place in the queue.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "coll.h"
#include "log.h"
#include "rma_impl.h"
#include "thread.h"

/* ---- messages ------------------------------------------------------------ */

int rma_send(struct rc_win *win, int t, int type, unsigned flags,
	     uint64_t arg)
{
	struct rma_hdr h = {
		.type = (uint8_t)type,
		.flags = (uint8_t)flags,
		.win = win->id,
		.arg = arg,
	};

	if (win->tg[t].dead)
		return win->tg[t].err ? win->tg[t].err : RC_ERR_PEER;
	return rc_am_send(win->inst, win->tg[t].wrank, RC_AM_RMA, &h,
			  sizeof(h), NULL, 0);
}

/* ---- lock words (SHM path) --------------------------------------------------
 * Every member maps the segment: an origin takes and releases a target's
 * lock itself, with CPU atomics on the target's struct rma_lockw; the
 * target's CPU does nothing. Each origin also records in its holder word
 * what it holds or waits for, so that when it dies a survivor waiting at
 * that target releases in its place (the one whose compare-and-swap
 * clears the holder word).
 */
static struct rma_lockw *lw_of(const struct rc_win *win, int t)
{
	return (struct rma_lockw *)((char *)win->shm->lockw +
				    (size_t)RMA_LINE * (size_t)t);
}

static uint64_t *holder_of(const struct rc_win *win, int t, int o)
{
	return &win->shm->holder[(size_t)t * (size_t)win->shm->n + (size_t)o];
}

static uint64_t ls_word(unsigned state, uint32_t ticket)
{
	return (uint64_t)state << 32 | ticket;
}

static void lw_take(struct rc_win *win, int t)
{
	struct rma_target *tg = &win->tg[t];

	tg->ticket =
		__atomic_fetch_add(&lw_of(win, t)->next, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(holder_of(win, t, win->comm->rank),
			 ls_word(tg->lock == MPI_LOCK_EXCLUSIVE
					 ? RMA_LS_WAIT_EX
					 : RMA_LS_WAIT_SH,
				 tg->ticket),
			 __ATOMIC_RELEASE);
}

/* Our ticket's turn yet? Then it is ours. */
static bool lw_try(struct rc_win *win, int t)
{
	struct rma_target *tg = &win->tg[t];
	struct rma_lockw *l = lw_of(win, t);
	uint64_t *h = holder_of(win, t, win->comm->rank);

	if (tg->lock == MPI_LOCK_EXCLUSIVE) {
		if (__atomic_load_n(&l->write, __ATOMIC_ACQUIRE) != tg->ticket)
			return false;
		__atomic_store_n(h, ls_word(RMA_LS_EX, tg->ticket),
				 __ATOMIC_RELAXED);
		return true;
	}
	if (__atomic_load_n(&l->read, __ATOMIC_ACQUIRE) != tg->ticket)
		return false;
	__atomic_store_n(h, ls_word(RMA_LS_SH, tg->ticket), __ATOMIC_RELAXED);
	/* the next shared request may enter with us */
	__atomic_fetch_add(&l->read, 1, __ATOMIC_ACQ_REL);
	return true;
}

static void lw_release(struct rc_win *win, int t, bool excl)
{
	struct rma_lockw *l = lw_of(win, t);

	__atomic_store_n(holder_of(win, t, win->comm->rank), 0,
			 __ATOMIC_RELAXED);
	if (excl)
		__atomic_fetch_add(&l->read, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&l->write, 1, __ATOMIC_RELEASE);
}

/* Release at t what dead members hold, or would be granted now. */
static void lw_repair(struct rc_win *win, int t)
{
	struct rma_lockw *l = lw_of(win, t);
	int o;

	for (o = 0; o < win->comm->size; o++) {
		uint64_t *h = holder_of(win, t, o);
		uint64_t v = __atomic_load_n(h, __ATOMIC_ACQUIRE);
		unsigned st = (unsigned)(v >> 32);
		uint32_t tk = (uint32_t)v;
		bool both;

		if (!win->tg[o].dead || !v)
			continue;
		if (st == RMA_LS_WAIT_EX &&
		    __atomic_load_n(&l->write, __ATOMIC_ACQUIRE) != tk)
			continue;
		if (st == RMA_LS_WAIT_SH &&
		    __atomic_load_n(&l->read, __ATOMIC_ACQUIRE) != tk)
			continue;
		if (!__atomic_compare_exchange_n(h, &v, 0, false,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		/* a shared holder passed `read` on when granted */
		both = st != RMA_LS_SH;
		if (both)
			__atomic_fetch_add(&l->read, 1, __ATOMIC_RELEASE);
		__atomic_fetch_add(&l->write, 1, __ATOMIC_RELEASE);
	}
}

/* ---- the target's lock --------------------------------------------------- */

static bool lock_free_for(const struct rc_win *win, uint8_t type)
{
	if (type == MPI_LOCK_EXCLUSIVE)
		return win->excl < 0 && !win->nshared;
	return win->excl < 0;
}

static void lock_grant(struct rc_win *win, int t, uint8_t type)
{
	if (type == MPI_LOCK_EXCLUSIVE)
		win->excl = t;
	else
		win->nshared++;
	win->tg[t].held = type;
	rma_send(win, t, RMA_GRANT, 0, type);
}

/* Grant the queue's head while it fits: shared waiters in a row go
 * together, an exclusive one waits for everybody before it. */
static void lock_grant_waiters(struct rc_win *win)
{
	while (!rc_list_empty(&win->lockq)) {
		struct rma_waiter *w = rc_list_first(&win->lockq,
						     struct rma_waiter, link);

		if (!lock_free_for(win, w->type))
			return;
		rc_list_del(&w->link);
		lock_grant(win, w->origin, w->type);
		free(w);
	}
}

static void lock_request(struct rc_win *win, int t, uint8_t type)
{
	struct rma_waiter *w;

	if (rc_list_empty(&win->lockq) && lock_free_for(win, type)) {
		lock_grant(win, t, type);
		return;
	}
	w = malloc(sizeof(*w));
	if (!w)
		rc_abort(win->inst, MPI_ERR_NO_MEM,
			 "out of memory queueing a window lock request");
	w->origin = t;
	w->type = type;
	rc_list_add_tail(&win->lockq, &w->link);
}

static void lock_release(struct rc_win *win, int t)
{
	if (win->tg[t].held == MPI_LOCK_EXCLUSIVE && win->excl == t)
		win->excl = -1;
	else if (win->tg[t].held == MPI_LOCK_SHARED && win->nshared)
		win->nshared--;
	win->tg[t].held = 0;
	lock_grant_waiters(win);
}

void rma_sync_target_failed(struct rc_win *win, int t)
{
	struct rc_list *pos, *n;

	rc_list_for_each_safe(pos, n, &win->lockq) {
		struct rma_waiter *w = rc_list_entry(pos, struct rma_waiter,
						     link);

		if (w->origin == t) {
			rc_list_del(&w->link);
			free(w);
		}
	}
	if (win->tg[t].held)
		lock_release(win, t);
}

void rma_on_sync(struct rc_rma *rma, int wsrc, const struct rma_hdr *h)
{
	struct rc_win *win = rma_win_lookup(rma, h->win);
	struct rma_target *tg;
	int t;

	if (!win) {
		/* an erroneous program: e.g. a POST nobody started */
		rc_log_debug("one-sided message %u from rank %d for window %u, "
			     "which is gone", h->type, wsrc, h->win);
		return;
	}
	t = rma_win_rank(win, wsrc);
	if (t < 0)
		return;
	tg = &win->tg[t];
	switch (h->type) {
	case RMA_ERR:
		if (!tg->err)
			tg->err = (int)h->arg;
		break;
	case RMA_LOCK:
		lock_request(win, t, (uint8_t)h->arg);
		break;
	case RMA_GRANT:
		tg->granted = true;
		break;
	case RMA_UNLOCK:
		lock_release(win, t);
		rma_send(win, t, RMA_ACK, 0, 0);
		break;
	case RMA_FLUSH:
		rma_send(win, t, RMA_ACK, 0, 0);
		break;
	case RMA_ACK:
		if (tg->nacks)
			tg->nacks--;
		break;
	case RMA_POST:
		tg->posts++;
		break;
	case RMA_COMPLETE:
		tg->completes++;
		if (h->flags & RMA_F_ACK)
			rma_send(win, t, RMA_ACK, 0, 0);
		break;
	case RMA_PING:
		break;
	default:
		rc_log_err("unknown one-sided message %u from rank %d",
			   h->type, wsrc);
		rc_abort(rma->inst, MPI_ERR_INTERN, "protocol error");
	}
}

/* ---- machines ------------------------------------------------------------ */

#define RMA_PROBE_S 1.0	/* first PING after, and between PINGs */

double rma_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct rma_sync *rma_sync_new(struct rc_inst *inst, struct rc_win *win,
			      int kind, struct rc_req **reqp)
{
	struct rma_sync *s = calloc(1, sizeof(*s));
	struct rc_req *req = rc_req_alloc(inst, RC_REQ_RMA);

	if (!s || !req) {
		free(s);
		if (req)
			rc_req_free(req);
		return NULL;
	}
	req->state = RC_REQ_ACTIVE;
	rc_status_set_empty(&req->status);
	if (win) {
		req->comm = win->comm;
		rc_comm_retain(win->comm);
		win->nsyncs++;
	}
	s->req = req;
	s->win = win;
	s->kind = kind;
	s->probe_at = 0; /* set at the first probe: no clock read here */
	rc_list_add_tail(&rma_of(inst)->syncs, &s->link);
	*reqp = req;
	return s;
}

int rma_coll_start(struct rma_sync *s, struct rc_comm *comm, int coll,
		   const struct rc_cargs *a)
{
	struct rc_cargs none;

	if (!a) {
		memset(&none, 0, sizeof(none));
		a = &none;
	}
	return rc_coll_start(comm, coll, a, &s->creq);
}

bool rma_coll_wait(struct rma_sync *s)
{
	if (!rc_req_done(s->creq))
		return false;
	if (s->creq->err && !s->err)
		s->err = s->creq->err;
	rc_req_free(s->creq);
	s->creq = NULL;
	return true;
}

/* The targets a machine acts on: t, or (t < 0) every window rank. */
#define FOR_TARGETS(win, t, i) \
	for ((i) = (t) < 0 ? 0 : (t); \
	     (i) < ((t) < 0 ? (win)->comm->size : (t) + 1); (i)++)

/* A failure a target reported (or its death), taken once. */
static int take_err(struct rc_win *win, int t)
{
	int i, err = RC_OK;

	if (t >= 0) { /* (flush, unlock: the common case, without the loop) */
		err = win->tg[t].err;
		if (err && !win->tg[t].dead)
			win->tg[t].err = RC_OK;
		return err;
	}

	FOR_TARGETS(win, t, i) {
		if (win->tg[i].err && !err)
			err = win->tg[i].err;
		if (!win->tg[i].dead)
			win->tg[i].err = RC_OK;
	}
	return err;
}

/* Ask t for remote completion of what this rank sent it. */
static void ask_ack(struct rma_sync *s, int t, int type, unsigned flags)
{
	struct rma_target *tg = &s->win->tg[t];
	int ret;

	tg->sent = 0;
	ret = rma_send(s->win, t, type, flags, 0);
	if (ret) {
		if (!s->err)
			s->err = ret;
		return;
	}
	tg->nacks++;
}

/* Flush every target of the set that was sent something. */
static void ask_acks(struct rma_sync *s, int t)
{
	int i;

	FOR_TARGETS(s->win, t, i)
		if (s->win->tg[i].sent)
			ask_ack(s, i, RMA_FLUSH, 0);
}

/* Nothing of the set still awaited: acks, streams, replies. */
static bool settled(struct rc_win *win, int t, bool acks)
{
	int i;

	if (t >= 0) { /* (flush, unlock: one target, without the loop) */
		const struct rma_target *tg = &win->tg[t];

		return tg->dead || (!(acks && tg->nacks) && !tg->nout);
	}
	FOR_TARGETS(win, t, i) {
		if (win->tg[i].dead)
			continue;
		if ((acks && win->tg[i].nacks) || !rma_local_done(win, i))
			return false;
	}
	return true;
}

/* The same over a group of window ranks. */
static bool settled_grp(struct rc_win *win, const int *g, int n, bool acks)
{
	int i;

	for (i = 0; i < n; i++)
		if (!settled(win, g[i], acks))
			return false;
	return true;
}

static bool fence_advance(struct rma_sync *s)
{
	struct rc_win *win = s->win;

	if (s->stage == 0) {
		if (!settled(win, -1, true))
			return false;
		s->stage = 1;
		if ((s->assert & MPI_MODE_NOPRECEDE) &&
		    (s->assert & MPI_MODE_NOSUCCEED))
			goto done;
		s->err = s->err ? s->err
				: rma_coll_start(s, win->comm,
						 RC_COLL_BARRIER, NULL);
		if (s->err)
			goto done;
	}
	if (s->creq && !rma_coll_wait(s))
		return false;
done:
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!s->err)
		s->err = take_err(win, -1);
	win->epoch = (s->assert & MPI_MODE_NOSUCCEED) ? EP_NONE : EP_FENCE;
	win->fence_ops = false;
	return true;
}

/*
 * Every target's wait moves on, not only the first's: MPI_Win_lock_all
 * holds a ticket at every target, and a shared one whose turn has come
 * must be taken (read += 1) at once, or the requests queued behind it
 * there wait for us while we wait elsewhere. Waiting at one target at a
 * time deadlocked: rank 2's lock_all waited at target 0 behind rank 0's
 * exclusive request, which waited for rank 1's shared lock at 0, while
 * rank 1 waited at target 1 behind rank 2's ticket there, its turn come
 * but never taken (the two-VM lossy-link case, rarely; rma_counter's
 * phase 2b makes that order on purpose).
 */
static bool lock_advance(struct rma_sync *s)
{
	struct rc_win *win = s->win;
	bool all = true;
	int i;

	FOR_TARGETS(win, s->target, i) {
		if (win->tg[i].dead) {
			if (!s->err)
				s->err = win->tg[i].err ? win->tg[i].err
							: RC_ERR_PEER;
			continue;
		}
		if (win->tg[i].granted)
			continue;
		if (win->dev_atomic) {
			int err = RC_OK;

			if (!rma_dlock_granted(win, i, &err)) {
				all = false;
				continue;
			}
			if (err && !s->err)
				s->err = err;
			win->tg[i].granted = !err;
			continue;
		}
		if (!win->shm_path)
			return false;
		if (!lw_try(win, i)) {
			lw_repair(win, i);
			all = false;
			continue;
		}
		win->tg[i].granted = true;
	}
	if (!all)
		return false;
	if (s->err && s->target >= 0) {
		/* the one target is gone: no epoch to close */
		win->tg[s->target].lock = 0;
		if (!--win->nlocked)
			win->epoch = EP_NONE;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return true;
}

/* An unlock's end: the targets' lock state cleared, the epoch closed;
 * into *err (when given) a failure a target reported. */
static void unlock_end(struct rc_win *win, int t, int *err)
{
	int i;

	FOR_TARGETS(win, t, i)
	{
		win->tg[i].lock = 0;
		win->tg[i].granted = false;
		win->tg[i].nocheck = false;
	}
	if (t < 0 || !--win->nlocked)
		win->epoch = EP_NONE;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (err)
		*err = take_err(win, t);
}

static bool unlock_advance(struct rma_sync *s)
{
	struct rc_win *win = s->win;
	int i;

	if (s->stage == 0) {
		/* every reply in first: a get's reply reads under the lock */
		if (!settled(win, s->target, false))
			return false;
		FOR_TARGETS(win, s->target, i) {
			struct rma_target *tg = &win->tg[i];

			if (win->shm_path) {
				/* every operation is done: let go */
				if (tg->granted && !tg->nocheck)
					lw_release(win, i,
						   tg->lock ==
							   MPI_LOCK_EXCLUSIVE);
				continue;
			}
			if (tg->dead)
				continue;
			if (win->dev_atomic && !tg->nocheck) {
				/* the lock words are given back below, once
				 * what went as messages has been applied */
				if (tg->sent)
					ask_ack(s, i, RMA_FLUSH, 0);
				continue;
			}
			if (!tg->nocheck)
				ask_ack(s, i, RMA_UNLOCK, 0);
			else if (tg->sent)
				ask_ack(s, i, RMA_FLUSH, 0);
		}
		s->stage = 1;
	}
	if (!settled(win, s->target, true))
		return false;
	if (win->dev_atomic && s->stage == 1) {
		FOR_TARGETS(win, s->target, i) {
			struct rma_target *tg = &win->tg[i];

			if (tg->granted && !tg->nocheck && !tg->dead)
				rma_dlock_release(win, i);
		}
		s->stage = 2;
	}
	if (s->stage == 2) {
		FOR_TARGETS(win, s->target, i)
			if (win->tg[i].dl && !win->tg[i].dead &&
			    !rma_dlock_posted(win, i, &s->err))
				return false;
	}
	unlock_end(win, s->target, s->err ? NULL : &s->err);
	return true;
}

static bool flush_advance(struct rma_sync *s)
{
	if (!settled(s->win, s->target, s->kind == SY_FLUSH))
		return false;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!s->err)
		s->err = take_err(s->win, s->target);
	return true;
}

static bool start_advance(struct rma_sync *s)
{
	struct rc_win *win = s->win;
	int i;

	if (!(s->assert & MPI_MODE_NOCHECK)) {
		for (i = 0; i < win->ngrp; i++) {
			struct rma_target *tg = &win->tg[win->grp[i]];

			if (tg->dead) {
				s->err = tg->err ? tg->err : RC_ERR_PEER;
				break;
			}
			if (tg->posts <= tg->posts_used)
				return false;
		}
		if (!s->err)
			for (i = 0; i < win->ngrp; i++)
				win->tg[win->grp[i]].posts_used++;
	}
	if (s->err) {
		free(win->grp);
		win->grp = NULL;
		win->ngrp = 0;
		win->epoch = EP_NONE;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return true;
}

static bool complete_advance(struct rma_sync *s)
{
	struct rc_win *win = s->win;
	int i;

	if (s->stage == 0) {
		/* replies first: the target's memory may change once it
		 * has our COMPLETE */
		if (!settled_grp(win, win->grp, win->ngrp, false))
			return false;
		for (i = 0; i < win->ngrp; i++) {
			int t = win->grp[i];

			if (win->tg[t].dead)
				continue;
			if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
				ask_ack(s, t, RMA_COMPLETE, RMA_F_ACK);
			} else {
				int ret = rma_send(win, t, RMA_COMPLETE, 0, 0);

				if (ret && !s->err)
					s->err = ret;
				win->tg[t].sent = 0;
			}
		}
		s->stage = 1;
	}
	if (!settled_grp(win, win->grp, win->ngrp, true))
		return false;
	for (i = 0; i < win->ngrp && !s->err; i++)
		s->err = take_err(win, win->grp[i]);
	free(win->grp);
	win->grp = NULL;
	win->ngrp = 0;
	win->epoch = EP_NONE;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return true;
}

/* The exposure epoch's end: a COMPLETE from every origin of the group. */
static bool wait_ready(struct rc_win *win, int *err)
{
	int i;

	*err = RC_OK;
	for (i = 0; i < win->npgrp; i++) {
		struct rma_target *tg = &win->tg[win->pgrp[i]];

		if (tg->dead) {
			*err = tg->err ? tg->err : RC_ERR_PEER;
			continue;
		}
		if (tg->completes <= tg->completes_used)
			return false;
	}
	for (i = 0; i < win->npgrp; i++)
		win->tg[win->pgrp[i]].completes_used++;
	free(win->pgrp);
	win->pgrp = NULL;
	win->npgrp = 0;
	win->posted = false;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return true;
}

static bool wait_advance(struct rma_sync *s)
{
	return wait_ready(s->win, &s->err);
}

/* Each kind's step: true when the machine is done (s->err set). */
static bool (*const sync_step[])(struct rma_sync *s) = {
	[SY_CREATE] = rma_create_advance,
	[SY_FREE] = rma_free_advance,
	[SY_FENCE] = fence_advance,
	[SY_LOCK] = lock_advance,
	[SY_UNLOCK] = unlock_advance,
	[SY_FLUSH] = flush_advance,
	[SY_FLUSH_LOCAL] = flush_advance,
	[SY_START] = start_advance,
	[SY_COMPLETE] = complete_advance,
	[SY_WAIT] = wait_advance,
};

bool rma_sync_advance(struct rma_sync *s)
{
	if (!sync_step[s->kind](s))
		return false;
	rc_list_del(&s->link);
	if (s->win)
		s->win->nsyncs--;
	s->req->err = s->err;
	rc_req_complete(s->req);
	free(s);
	return true;
}

void rma_sync_probe(struct rma_sync *s, double now)
{
	struct rc_win *win = s->win;
	const int *g = NULL;
	int i, n = 0, t;

	if (!s->probe_at) { /* the first look at the clock for it */
		s->probe_at = now + RMA_PROBE_S;
		return;
	}
	if (now < s->probe_at || !win)
		return;
	s->probe_at = now + RMA_PROBE_S;
	switch (s->kind) {
	case SY_START:
	case SY_COMPLETE:
		g = win->grp;
		n = win->ngrp;
		break;
	case SY_WAIT:
		g = win->pgrp;
		n = win->npgrp;
		break;
	default:
		/* (fence, free: every member; creation has no window yet) */
		break;
	}
	if (g) {
		for (i = 0; i < n; i++)
			rma_send(win, g[i], RMA_PING, 0, 0);
		return;
	}
	t = s->kind == SY_FENCE || s->kind == SY_FREE ? -1 : s->target;
	FOR_TARGETS(win, t, i)
		if (i != win->comm->rank)
			rma_send(win, i, RMA_PING, 0, 0);
}

/* ---- starting them ------------------------------------------------------- */

/* No access epoch open, or a fence's that issued nothing yet. */
static bool access_idle(const struct rc_win *win)
{
	return win->epoch == EP_NONE ||
	       (win->epoch == EP_FENCE && !win->fence_ops);
}

int rc_win_fence_start(struct rc_win *win, int assert, struct rc_req **reqp)
{
	struct rma_sync *s;

	if ((win->epoch != EP_NONE && win->epoch != EP_FENCE) || win->posted)
		return RC_ERR_RMA_SYNC;
	s = rma_sync_new(win->inst, win, SY_FENCE, reqp);
	if (!s)
		return RC_ERR_NOMEM;
	s->assert = assert;
	/* operations issued after all: NOPRECEDE was wrong, flush them */
	if (win->fence_ops)
		s->assert &= ~MPI_MODE_NOPRECEDE;
	if (!(s->assert & MPI_MODE_NOPRECEDE))
		ask_acks(s, -1);
	rma_sync_advance(s);
	return RC_OK;
}

static int lock_check(const struct rc_win *win, int target)
{
	if (target < 0 ? !access_idle(win)
		       : !(access_idle(win) || (win->epoch == EP_LOCK &&
						!win->tg[target].lock)))
		return RC_ERR_RMA_SYNC;
	return RC_OK;
}

/* Open the epoch and ask for the locks (s: where a failed send goes; NULL
 * on the shared-memory path, which sends nothing). */
static void lock_begin(struct rc_win *win, struct rma_sync *s, int type,
		       int target, int assert)
{
	int i, ret;

	win->fence_ops = false;
	if (target < 0) {
		win->epoch = EP_LOCK_ALL;
	} else {
		win->epoch = EP_LOCK;
		win->nlocked++;
	}
	FOR_TARGETS(win, target, i) {
		struct rma_target *tg = &win->tg[i];

		tg->lock = (uint8_t)type;
		tg->nocheck = assert & MPI_MODE_NOCHECK;
		tg->granted = tg->nocheck;
		if (tg->nocheck)
			continue;
		if (win->shm_path) {
			lw_take(win, i);
			continue;
		}
		if (win->dev_atomic) {
			rma_dlock_take(win, i);
			continue;
		}
		ret = rma_send(win, i, RMA_LOCK, 0, (uint64_t)type);
		if (ret && !s->err)
			s->err = ret;
	}
}

int rc_win_lock_start(struct rc_win *win, int type, int target, int assert,
		      struct rc_req **reqp)
{
	struct rma_sync *s;

	if (lock_check(win, target))
		return RC_ERR_RMA_SYNC;
	s = rma_sync_new(win->inst, win, SY_LOCK, reqp);
	if (!s)
		return RC_ERR_NOMEM;
	s->target = target;
	lock_begin(win, s, type, target, assert);
	rma_sync_advance(s);
	return RC_OK;
}

int rc_win_lock_shm(struct rc_win *win, int type, int target, int assert,
		    struct rc_req **reqp)
{
	struct rma_sync *s;
	bool all = true;
	int i;

	*reqp = NULL;
	if (lock_check(win, target))
		return RC_ERR_RMA_SYNC;
	lock_begin(win, NULL, type, target, assert);
	FOR_TARGETS(win, target, i)
	{
		struct rma_target *tg = &win->tg[i];

		if (tg->granted)
			continue;
		if (tg->dead || !lw_try(win, i)) {
			all = false; /* (the machine waits, or reports) */
			continue;
		}
		tg->granted = true;
	}
	if (all) {
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		return RC_OK;
	}
	/* our tickets are taken: without the machine nobody would get the
	 * lock after us */
	s = rma_sync_new(win->inst, win, SY_LOCK, reqp);
	if (!s)
		rc_abort(win->inst, MPI_ERR_NO_MEM,
			 "no memory to wait for a window lock");
	s->target = target;
	rma_sync_advance(s);
	return RC_OK;
}

int rc_win_unlock_start(struct rc_win *win, int target, struct rc_req **reqp)
{
	struct rma_sync *s;

	if (target < 0 ? win->epoch != EP_LOCK_ALL
		       : win->epoch != EP_LOCK || !win->tg[target].lock)
		return RC_ERR_RMA_SYNC;
	s = rma_sync_new(win->inst, win, SY_UNLOCK, reqp);
	if (!s)
		return RC_ERR_NOMEM;
	s->target = target;
	rma_sync_advance(s);
	return RC_OK;
}

int rc_win_flush_start(struct rc_win *win, int target, bool local,
		       struct rc_req **reqp)
{
	struct rma_sync *s;

	if (win->epoch != EP_LOCK_ALL &&
	    !(win->epoch == EP_LOCK && (target < 0 || win->tg[target].lock)))
		return RC_ERR_RMA_SYNC;
	s = rma_sync_new(win->inst, win, local ? SY_FLUSH_LOCAL : SY_FLUSH,
			 reqp);
	if (!s)
		return RC_ERR_NOMEM;
	s->target = target;
	if (!local)
		ask_acks(s, target);
	rma_sync_advance(s);
	return RC_OK;
}

bool rc_win_unlock_direct(struct rc_win *win, int target, int *ret)
{
	int i;

	if (!win->shm_path)
		return false;
	if (target < 0 ? win->epoch != EP_LOCK_ALL
		       : win->epoch != EP_LOCK || !win->tg[target].lock) {
		*ret = RC_ERR_RMA_SYNC;
		return true;
	}
	if (!settled(win, target, true))
		return false; /* (a dead target's: the machine reports it) */
	/* every operation was done when its call returned: let go */
	FOR_TARGETS(win, target, i)
	{
		struct rma_target *tg = &win->tg[i];

		if (tg->granted && !tg->nocheck)
			lw_release(win, i, tg->lock == MPI_LOCK_EXCLUSIVE);
	}
	unlock_end(win, target, ret);
	return true;
}

/* Progress calls a flush waits in the caller before it becomes a machine
 * (whose probe notices a target that stopped answering). */
#define RMA_FLUSH_SPIN 4096
/* Of those, one in RMA_FLUSH_FULL is a whole progress call; the others
 * poll only the transport that brings the completions, when one does. */
#define RMA_FLUSH_FULL 8

/* The one transport whose completions a flush of target t waits for: its
 * RDMA and, on a device-agent window, its device atomics. NULL: several
 * (every target), or two (the atomic agent's is not t's). */
static struct rc_tp *flush_tp(const struct rc_win *win, int t)
{
	struct rc_tp *tp;

	if (t < 0)
		return NULL;
	tp = win->inst->procs[win->tg[t].wrank].tp;
	return !win->dev_atomic || win->atp == tp ? tp : NULL;
}

/* Only direct operations (RDMA, device atomics) to the set, nothing sent
 * as a message that would need an acknowledgement? */
static bool direct_only(const struct rc_win *win, int t)
{
	int i;

	FOR_TARGETS(win, t, i)
	if (win->tg[i].sent || win->tg[i].nacks)
		return false;
	return true;
}

bool rc_win_flush_direct(struct rc_win *win, int target, int *ret)
{
	unsigned spin;

	if (win->epoch != EP_LOCK_ALL &&
	    !(win->epoch == EP_LOCK && (target < 0 || win->tg[target].lock))) {
		if (!win->shm_path)
			return false; /* (the machine's start says so) */
		*ret = RC_ERR_RMA_SYNC;
		return true;
	}
	if (!win->shm_path) {
		/* RDMA and device atomics: their completions are remote
		 * completion. Wait for them here, without a machine or a
		 * request, for a while (not at MULTIPLE: this holds the
		 * section) */
		struct rc_tp *tp;

		if (rc_thread_multiple || !direct_only(win, target))
			return false;
		tp = flush_tp(win, target);
		for (spin = 1; !settled(win, target, true); spin++) {
			if (spin == RMA_FLUSH_SPIN)
				return false;
			if (tp && spin % RMA_FLUSH_FULL
				    ? !rc_p2p_poll_tp(win->inst, tp)
				    : !rc_progress(win->inst))
				rc_progress_idle(win->inst);
		}
	}
	/* every operation is done */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*ret = take_err(win, target);
	return true;
}

static int *grp_copy(const int *ranks, int n)
{
	int *g = malloc(sizeof(*g) * (size_t)(n ? n : 1));

	if (g && n)
		memcpy(g, ranks, sizeof(*g) * (size_t)n);
	return g;
}

int rc_win_post(struct rc_win *win, const int *ranks, int n, int assert)
{
	int i, ret, err = RC_OK;

	if (win->posted)
		return RC_ERR_RMA_SYNC;
	win->pgrp = grp_copy(ranks, n);
	if (!win->pgrp)
		return RC_ERR_NOMEM;
	win->npgrp = n;
	win->posted = true;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (assert & MPI_MODE_NOCHECK)
		return RC_OK;
	for (i = 0; i < n; i++) {
		ret = rma_send(win, ranks[i], RMA_POST, 0, 0);
		if (ret && !err)
			err = ret;
	}
	return err;
}

int rc_win_start_start(struct rc_win *win, const int *ranks, int n,
		       int assert, struct rc_req **reqp)
{
	struct rma_sync *s;

	if (!access_idle(win))
		return RC_ERR_RMA_SYNC;
	win->grp = grp_copy(ranks, n);
	if (!win->grp)
		return RC_ERR_NOMEM;
	s = rma_sync_new(win->inst, win, SY_START, reqp);
	if (!s) {
		free(win->grp);
		win->grp = NULL;
		return RC_ERR_NOMEM;
	}
	win->ngrp = n;
	win->epoch = EP_PSCW;
	win->fence_ops = false;
	s->assert = assert;
	rma_sync_advance(s);
	return RC_OK;
}

int rc_win_complete_start(struct rc_win *win, struct rc_req **reqp)
{
	struct rma_sync *s;

	if (win->epoch != EP_PSCW)
		return RC_ERR_RMA_SYNC;
	s = rma_sync_new(win->inst, win, SY_COMPLETE, reqp);
	if (!s)
		return RC_ERR_NOMEM;
	rma_sync_advance(s);
	return RC_OK;
}

int rc_win_wait_start(struct rc_win *win, struct rc_req **reqp)
{
	struct rma_sync *s;

	if (!win->posted)
		return RC_ERR_RMA_SYNC;
	s = rma_sync_new(win->inst, win, SY_WAIT, reqp);
	if (!s)
		return RC_ERR_NOMEM;
	rma_sync_advance(s);
	return RC_OK;
}

bool rc_win_test(struct rc_win *win, int *err)
{
	bool ready;

	rc_progress(win->inst);
	ready = wait_ready(win, err);
	if (!ready)
		rc_progress_test_idle(win->inst);
	return ready;
}

void rc_win_sync(struct rc_win *win)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	rc_progress(win->inst);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Is this target (or every one) done with at this origin? */
bool rma_local_done(const struct rc_win *win, int t)
{
	int i;

	FOR_TARGETS(win, t, i)
		if (win->tg[i].nout && !win->tg[i].dead)
			return false;
	return true;
}
