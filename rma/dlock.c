/*
 * dlock.c - passive-target locks as the device's atomics on lock words
 * (rma/README.md, "Lock words").
 *
 * On a window whose atomic agent is the device, each member's lock is a
 * block of 64-bit words in its own memory, exposed for the device's
 * atomics at creation (win->dlblk; address and key in the creation
 * allgather): the lock word, then one holder word per member. The lock
 * word packs the three counters of the SHM path's fair reader-writer
 * ticket lock (struct rma_lockw), RMA_DL_BITS each: `next`, the ticket
 * dispenser, and `write` and `read`, the turn counters. So one
 * fetch-and-add takes a ticket and reads the turns at once: uncontended,
 * an exclusive epoch costs three atomics (ticket, holder word, release)
 * where separate words took five. Only the device touches the words, from
 * every origin, the target itself included (over its loopback path): no
 * CPU store races with the device's atomics there, and the target's CPU
 * does nothing. The steps, posted in order on the QP:
 *
 *   lock       FADD lock, 1<<NEXT -> our ticket k and the turns; then
 *              holder := WAIT|k, and when the turn (write for an
 *              exclusive request, read for a shared one) was not k yet,
 *              polls (FADD lock, 0) until it reads k;
 *              shared: then holder := SH|k, read += 1 (the next shared
 *              request may enter with us; a shared lock granted by its
 *              ticket skips WAIT_SH)
 *   unlock     after every operation of the epoch is complete:
 *              exclusive: read += 1 and write += 1, one FADD (the holder
 *              word keeps WAIT_EX|k, which means nothing once write has
 *              passed k)
 *              shared: holder := 0, write += 1
 *              MPI_Win_unlock returns once they are posted: they finish
 *              from progress, in order before our next request on the
 *              QP, and MPI_Win_free waits for them before its allreduce
 *              (nobody unexposes a block an atomic still goes to)
 *   (holder := x is a FADD of x minus what we last made it)
 * First come, first served: an exclusive request waits for every ticket
 * before it, a shared one for every exclusive one before it; nobody
 * starves. Counters wrap at 2^RMA_DL_BITS (tickets compare modulo it: at
 * most that many members); a counter's carry lands in the guard bit above
 * it, which whoever caused it clears with a second FADD once the first
 * has told it so (next's carry leaves the word at the top).
 *
 * A member died: while we wait at a target, we read (FADD 0) the lock
 * word and a dead member's holder word there, and release in its place
 * what it holds or would be granted now; the one whose compare-and-swap
 * clears the holder word does it, so it happens once. What a holder word
 * says decides, with the counters read:
 *   WAIT_EX|k, write == k           write += 1, and read += 1 if read == k
 *   WAIT_SH|k, read == k            read += 1, write += 1
 *   SH|k                            write += 1, and read += 1 if read == k
 * (only ticket k's holder moves a counter on from k, so a dead member's
 * word and the counters cannot disagree; the orders above keep a holder
 * word set only while its ticket still counts). Not covered: a member
 * that dies between taking its ticket and recording it, or between
 * clearing its word and its shared release (one round trip, one post),
 * leaves the lock taken, as on the SHM path; mpirun ends the job when a
 * rank dies in any case.
 */
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "rma_impl.h"

/* a ticket, and in a holder word the ticket's bits */
#define DL_TMASK ((UINT64_C(1) << RMA_DL_BITS) - 1)
#define DL_ONE(shift) (UINT64_C(1) << (shift))

/* A waiter's polls back off (a device's atomics are cheap for the CPU
 * behind them, not free: under Soft-RoCE the target's kernel pays for
 * each): the pause doubles from DL_PAUSE_MIN up to DL_PAUSE_MAX after
 * each poll that finds the lock taken, times our place in the queue (up
 * to DL_PLACE_MAX), so that the next in line looks often and those
 * behind it seldom. */
#define DL_PAUSE_MIN 1e-6
#define DL_PAUSE_MAX 16e-6
#define DL_PLACE_MAX 16

/* A wait this long is reported (dl_tell): no lock is held that long by
 * a correct program's peers in our tests, and a lock word that never
 * turns to a ticket is a defect somewhere (issue 15's rare two-VM
 * time-out of rma_counter: the report says which counter stopped). */
double rma_dl_tell_after = 20;

/* what a holder word says (high byte; 0: nothing). An exclusive holder
 * keeps WAIT_EX|k: granted or not, it is released when write is k. */
enum { HS_WAIT_SH = 1, HS_WAIT_EX, HS_SH };

/* a lock's state here */
enum { DS_IDLE = 0, DS_TICKET, DS_WAIT, DS_HELD, DS_RELEASE };

/* what an operation's old value means */
enum {
	DT_SET = 0,  /* nothing: a holder word's update */
	DT_BUMP,     /* read and / or write moved on: a carry to clear? */
	DT_TICKET,   /* our ticket, and the turns */
	DT_POLL,     /* the turn we wait for */
	DT_SCAN_L,   /* repairs: the lock word, a dead member's holder word */
	DT_SCAN_H,
	DT_FIX,	     /* repairs: our swap cleared that word (or not) */
};

/* a repair's releases (struct rma_dlop's rel) */
#define REL_READ 0x1u
#define REL_WRITE 0x2u

static uint64_t hword(unsigned st, uint64_t k)
{
	return (uint64_t)st << 56 | (k & DL_TMASK);
}

static bool same_ticket(uint64_t a, uint64_t b)
{
	return ((a ^ b) & DL_TMASK) == 0;
}

static uint64_t word_addr(const struct rc_win *win, int t, uint32_t word)
{
	return win->tg[t].lbase + 8 * (uint64_t)word;
}

static void dl_done(struct rc_tp_rdma *rd, int status);

/* Queue an operation behind the others (posted by dl_kick, in order). */
static struct rma_dlop *dl_push(struct rma_dlock *dl, uint8_t kind,
				uint32_t word, uint64_t operand, uint64_t cmp,
				uint8_t tag)
{
	int i;

	for (i = 0; i < RMA_DL_OPS; i++) {
		struct rma_dlop *op = &dl->op[i];

		if (op->seq)
			continue;
		memset(op, 0, sizeof(*op));
		op->rd.done = dl_done;
		op->rd.len = 8;
		op->dl = dl;
		op->seq = ++dl->seq;
		op->kind = kind;
		op->word = word;
		op->operand = operand;
		op->cmp = cmp;
		op->tag = tag;
		return op;
	}
	/* (cannot happen: a lock never has more out than RMA_DL_OPS) */
	if (!dl->err)
		dl->err = RC_ERR_INTERN;
	return NULL;
}

static void dl_add(struct rma_dlock *dl, uint32_t word, uint64_t add,
		   uint8_t tag)
{
	dl_push(dl, RC_TP_FADD, word, add, 0, tag);
}

/* Our holder word there := v. */
static void dl_holder(struct rma_dlock *dl, uint64_t v)
{
	struct rc_win *win = dl->win;

	dl_add(dl, RMA_DL_HOLDER + (uint32_t)win->comm->rank, v - dl->hval,
	       DT_SET);
	dl->hval = v;
}

/* read and / or write += 1 (incr: DL_ONE(RMA_DL_READ), ...WRITE, or both) */
static void dl_bump(struct rma_dlock *dl, uint64_t incr)
{
	dl_add(dl, RMA_DL_LOCK, incr, DT_BUMP);
}

/* A bump's old value: a counter that was at its top carried into its
 * guard bit, which we clear (behind anything else we post there). */
static void dl_carry(struct rma_dlock *dl, uint64_t incr, uint64_t old)
{
	static const unsigned shifts[] = {RMA_DL_READ, RMA_DL_WRITE};
	unsigned i;

	for (i = 0; i < 2; i++)
		if ((incr & DL_ONE(shifts[i])) &&
		    rma_dl_field(old, shifts[i]) == DL_TMASK)
			dl_add(dl, RMA_DL_LOCK,
			       (uint64_t)0 - DL_ONE(shifts[i] + RMA_DL_BITS),
			       DT_SET);
}

/* Post what is queued, oldest first; stops where the device has no room
 * (the next call goes on). */
static void dl_kick(struct rma_dlock *dl)
{
	struct rc_win *win = dl->win;
	struct rc_tp *tp = win->atp;
	int ret;

	for (;;) {
		struct rma_dlop *op = NULL;
		int i;

		for (i = 0; i < RMA_DL_OPS; i++)
			if (dl->op[i].seq && !dl->op[i].posted &&
			    (!op || dl->op[i].seq < op->seq))
				op = &dl->op[i];
		if (!op)
			return;
		ret = tp->ops->atomic(tp, win->tg[dl->t].wrank, op->kind,
				      op->operand, op->cmp,
				      &dl->res[op - dl->op], dl->lh,
				      word_addr(win, dl->t, op->word),
				      win->tg[dl->t].lkey, &op->rd);
		if (ret == RC_AGAIN)
			return;
		op->posted = true;
		if (ret != RC_INPROGRESS)
			dl_done(&op->rd, ret ? ret : RC_ERR_INTERN);
	}
}

static bool dl_busy(const struct rma_dlock *dl)
{
	int i;

	for (i = 0; i < RMA_DL_OPS; i++)
		if (dl->op[i].seq)
			return true;
	return false;
}

/* ---- repairs -------------------------------------------------------------- */

/* Read the next dead member's holder word and the lock word, if some
 * member is dead and no read is out. */
static void dl_scan(struct rma_dlock *dl)
{
	struct rc_win *win = dl->win;
	int n = win->comm->size, i, o = 0;

	if (dl->scan_left >= 0)
		return;
	for (i = 0; i < n; i++) {
		o = (dl->scan_o + i) % n;
		if (win->tg[o].dead && o != dl->t)
			break;
	}
	if (i == n)
		return;
	dl->scan_o = (o + 1) % n;
	dl->scan_left = 2;
	dl_add(dl, RMA_DL_LOCK, 0, DT_SCAN_L);
	dl->scan_cur = o;
	dl_add(dl, RMA_DL_HOLDER + (uint32_t)o, 0, DT_SCAN_H);
}

/* The two reads are back: release what the dead member holds or would
 * be granted now, once (the swap that clears its word). */
static void dl_judge(struct rma_dlock *dl, int o)
{
	uint64_t w = rma_dl_field(dl->sv[0], RMA_DL_WRITE);
	uint64_t r = rma_dl_field(dl->sv[0], RMA_DL_READ), h = dl->sv[1];
	unsigned st = (unsigned)(h >> 56), rel = 0;
	struct rma_dlop *op;

	switch (st) {
	case HS_WAIT_EX:
		if (same_ticket(w, h))
			rel = REL_WRITE | (same_ticket(r, h) ? REL_READ : 0);
		break;
	case HS_WAIT_SH:
		if (same_ticket(r, h))
			rel = REL_READ | REL_WRITE;
		break;
	case HS_SH:
		rel = REL_WRITE | (same_ticket(r, h) ? REL_READ : 0);
		break;
	default:
		break;
	}
	if (!rel)
		return;
	op = dl_push(dl, RC_TP_CSWAP, RMA_DL_HOLDER + (uint32_t)o, 0, h,
		     DT_FIX);
	if (op)
		op->rel = (uint8_t)rel;
	rc_log_debug("window %u: releasing at rank %d the lock of dead "
		     "rank %d (holder word %#llx)",
		     dl->win->id, dl->t, o, (unsigned long long)h);
}

/* ---- completions ---------------------------------------------------------- */

static void dl_granted(struct rma_dlock *dl)
{
	dl->st = DS_HELD;
	if (dl->excl)
		return; /* an exclusive holder keeps WAIT_EX|k */
	dl_holder(dl, hword(HS_SH, dl->ticket));
	dl_bump(dl, DL_ONE(RMA_DL_READ));
}

/* Ask for the turn we wait for. */
static void dl_poll(struct rma_dlock *dl)
{
	dl->polling = true;
	dl_add(dl, RMA_DL_LOCK, 0, DT_POLL);
}

/* The turn we wait for, in the lock word v. */
static uint64_t dl_turn(const struct rma_dlock *dl, uint64_t v)
{
	return rma_dl_field(v, dl->excl ? RMA_DL_WRITE : RMA_DL_READ);
}

/* Not our turn yet (head): the lock's machine polls again after a pause
 * (not from here, at once), longer the further back we are. */
static void dl_not_yet(struct rma_dlock *dl, uint64_t head)
{
	uint64_t place = (dl->ticket - head) & DL_TMASK;

	if (place > DL_PLACE_MAX)
		place = DL_PLACE_MAX;
	dl->pause = dl->pause ? dl->pause * 2 : DL_PAUSE_MIN;
	if (dl->pause > DL_PAUSE_MAX)
		dl->pause = DL_PAUSE_MAX;
	dl->poll_at = -dl->pause * (double)place; /* from now on */
}

static void dl_done(struct rc_tp_rdma *rd, int status)
{
	struct rma_dlop *op = rc_container_of(rd, struct rma_dlop, rd);
	struct rma_dlock *dl = op->dl;
	uint64_t v = dl->res[op - dl->op];
	uint8_t tag = op->tag, rel = op->rel;
	uint64_t cmp = op->cmp, incr = op->operand, head;

	op->seq = 0;
	if (!dl->win)
		return; /* a grave: its window is gone (rma_dlock_close) */
	if (status) {
		if (!dl->err)
			dl->err = status;
		if (tag == DT_SCAN_L || tag == DT_SCAN_H)
			dl->scan_left = -1; /* (the error ends the wait) */
		return;
	}
	switch (tag) {
	case DT_BUMP:
		dl_carry(dl, incr, v);
		break;
	case DT_TICKET:
		dl->seen = v;
		dl->ticket = rma_dl_field(v, RMA_DL_NEXT);
		dl->st = DS_WAIT;
		head = dl_turn(dl, v);
		if (same_ticket(head, dl->ticket) && !dl->excl) {
			dl_granted(dl); /* (no WAIT_SH on the way) */
			break;
		}
		dl_holder(dl, hword(dl->excl ? HS_WAIT_EX : HS_WAIT_SH,
				    dl->ticket));
		if (same_ticket(head, dl->ticket))
			dl_granted(dl);
		else
			dl_not_yet(dl, head);
		break;
	case DT_POLL:
		dl->polling = false;
		if (dl->st != DS_WAIT)
			break;
		dl->seen = v;
		head = dl_turn(dl, v);
		if (same_ticket(head, dl->ticket))
			dl_granted(dl);
		else
			dl_not_yet(dl, head);
		break;
	case DT_SCAN_L:
	case DT_SCAN_H:
		dl->sv[tag - DT_SCAN_L] = v;
		if (--dl->scan_left)
			break;
		dl->scan_left = -1;
		if (dl->st == DS_WAIT)
			dl_judge(dl, dl->scan_cur);
		break;
	case DT_FIX:
		if (v != cmp)
			break; /* another survivor did it */
		dl_bump(dl, (rel & REL_READ ? DL_ONE(RMA_DL_READ) : 0) |
				    (rel & REL_WRITE ? DL_ONE(RMA_DL_WRITE)
						     : 0));
		break;
	default:
		break;
	}
	dl_kick(dl);
}

/* ---- the module's side ------------------------------------------------------ */

int rma_dlock_expose(struct rc_win *win, struct rc_tp *tp, uint64_t *addr,
		     void *key)
{
	size_t len = 8 * (size_t)(RMA_DL_HOLDER + win->comm->size);

	if (!win->dlblk) {
		win->dlblk = calloc(1, len);
		if (!win->dlblk)
			return RC_ERR_NOMEM;
		if (tp->ops->mem_expose(tp, win->dlblk, len, key,
					&win->dllh)) {
			free(win->dlblk);
			win->dlblk = NULL;
			return RC_ERR_UNSUPPORTED;
		}
		win->dltp = tp;
		memcpy(win->dlkey, key, RC_TP_KEY_MAX);
	}
	memcpy(key, win->dlkey, RC_TP_KEY_MAX);
	*addr = (uint64_t)(uintptr_t)win->dlblk;
	return RC_OK;
}

/* Lock state left to a dead target's device at window free: freed by
 * rc_rma_reap once the transports are closed (finalize; a unit test's
 * world). Touched only there and in rma_dlock_close, which the critical
 * section covers. A grave's window pointer is NULL: an operation of its
 * that still completes (today no transport calls back after the RMA
 * module closes, but nothing in the contract forbids it) finds no window
 * to touch. */
static struct rma_dlock *graves;

void rc_rma_reap(void)
{
	while (graves) {
		struct rma_dlock *dl = graves;

		graves = dl->grave;
		free(dl); /* (its registration died with the transport) */
	}
}

void rma_dlock_close(struct rc_win *win)
{
	int t;

	for (t = 0; win->tg && t < win->comm->size; t++) {
		struct rma_dlock *dl = win->tg[t].dl;

		if (!dl)
			continue;
		win->tg[t].dl = NULL;
		if (dl_busy(dl)) {
			/* out to a dead target: the device may still write
			 * there, so the block stays until the transports
			 * close (rc_rma_reap) */
			rc_log_debug("window %u: lock state at dead rank %d "
				     "kept until the transports close",
				     win->id, t);
			dl->win = NULL;
			dl->grave = graves;
			graves = dl;
			continue;
		}
		win->atp->ops->mem_release(win->atp, dl->lh);
		free(dl);
	}
	if (win->dlblk) {
		win->dltp->ops->mem_release(win->dltp, win->dllh);
		free(win->dlblk);
		win->dlblk = NULL;
	}
}

void rma_dlock_take(struct rc_win *win, int t)
{
	struct rma_target *tg = &win->tg[t];
	struct rma_dlock *dl = tg->dl;
	uint8_t key[RC_TP_KEY_MAX];

	if (!dl) {
		dl = calloc(1, sizeof(*dl));
		if (!dl || win->atp->ops->mem_expose(win->atp, dl, sizeof(*dl),
						     key, &dl->lh)) {
			free(dl);
			rc_abort(win->inst, MPI_ERR_NO_MEM,
				 "no memory for a window lock's state");
		}
		dl->win = win;
		dl->t = t;
		dl->scan_left = -1;
		tg->dl = dl;
	}
	dl->excl = tg->lock == MPI_LOCK_EXCLUSIVE;
	dl->st = DS_TICKET;
	dl->pause = 0;
	dl->poll_at = 0;
	dl->since = 0; /* read at the first call that finds us queued: a
			* grant at once reads no clock (4.7 µs in the VM) */
	dl->seen = 0;
	dl->told = false;
	/* the ticket and the turns in one round trip: when nobody is ahead,
	 * that is the grant */
	dl_add(dl, RMA_DL_LOCK, DL_ONE(RMA_DL_NEXT), DT_TICKET);
	dl_kick(dl);
}

/* A wait past rma_dl_tell_after: what this side knows, once. */
static void dl_tell(const struct rma_dlock *dl, double now)
{
	uint64_t v = dl->seen;
	int i, out = 0, posted = 0;

	for (i = 0; i < RMA_DL_OPS; i++) {
		out += dl->op[i].seq != 0;
		posted += dl->op[i].seq && dl->op[i].posted;
	}
	rc_log_warn(
		"window %u: waiting %.0f s for the %s lock at rank %d: "
		"ticket %llu; the lock word as last read: next %llu, "
		"write %llu, read %llu%s; %d lock operations out, %d "
		"posted",
		dl->win->id, now - dl->since, dl->excl ? "exclusive" : "shared",
		dl->t, (unsigned long long)dl->ticket,
		(unsigned long long)rma_dl_field(v, RMA_DL_NEXT),
		(unsigned long long)rma_dl_field(v, RMA_DL_WRITE),
		(unsigned long long)rma_dl_field(v, RMA_DL_READ),
		dl->polling ? " (a read of it still out)" : "", out, posted);
}

bool rma_dlock_granted(struct rc_win *win, int t, int *err)
{
	struct rma_dlock *dl = win->tg[t].dl;
	int i;

	if (dl->st == DS_WAIT && !dl->err) {
		double now = rma_now();

		if (!dl->since)
			dl->since = now;
		/* (before this call's poll: at the first call the report
		 * tells what the ticket read, whatever the timing) */
		if (RC_UNLIKELY(!dl->told &&
				now - dl->since >= rma_dl_tell_after)) {
			dl->told = true;
			dl_tell(dl, now);
		}
		if (!dl->polling) {
			if (dl->poll_at < 0)
				dl->poll_at = now - dl->poll_at;
			if (now >= dl->poll_at) {
				dl_poll(dl);
				dl_scan(dl); /* (when some member died) */
			}
		}
	}
	dl_kick(dl);
	if (dl->err) {
		/* (or an earlier release's, not reported yet) */
		*err = dl->err;
		dl->err = RC_OK;
		return true;
	}
	if (dl->st != DS_HELD)
		return false;
	/* the grant's own updates out first (shared: read passed on) */
	for (i = 0; i < RMA_DL_OPS; i++)
		if (dl->op[i].seq && !dl->op[i].posted)
			return false;
	return true;
}

void rma_dlock_release(struct rc_win *win, int t)
{
	struct rma_dlock *dl = win->tg[t].dl;

	dl->st = DS_RELEASE;
	if (dl->excl) {
		dl_bump(dl, DL_ONE(RMA_DL_READ) | DL_ONE(RMA_DL_WRITE));
	} else {
		dl_holder(dl, 0);
		dl_bump(dl, DL_ONE(RMA_DL_WRITE));
	}
	dl_kick(dl);
}

bool rma_dlock_posted(struct rc_win *win, int t, int *err)
{
	struct rma_dlock *dl = win->tg[t].dl;
	int i;

	dl_kick(dl);
	for (i = 0; i < RMA_DL_OPS; i++)
		if (dl->op[i].seq && !dl->op[i].posted)
			return false;
	if (dl->err && !*err)
		*err = dl->err;
	dl->err = RC_OK;
	return true;
}

bool rma_dlock_quiet(struct rc_win *win)
{
	bool quiet = true;
	int t;

	for (t = 0; win->dlblk && t < win->comm->size; t++) {
		struct rma_dlock *dl = win->tg[t].dl;

		/* (a lock still asked for: the free fails, nothing to wait
		 * for; a dead target's: never) */
		if (!dl || dl->st != DS_RELEASE || win->tg[t].dead)
			continue;
		dl_kick(dl);
		if (dl_busy(dl))
			quiet = false;
		else
			dl->st = DS_IDLE;
	}
	return quiet;
}
