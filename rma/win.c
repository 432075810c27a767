/*
 * win.c - windows: the module's state, creation and freeing (collective
 * machines), dynamic regions, target address checks, the shared segments
 * of allocate_shared windows, and the active-message entry points.
 *
 * Creation (every flavour; one machine, advanced from progress):
 *   1. MPI_Comm_dup of the user's communicator: the window's private
 *      communicator, whose context id is the window's id on every member
 *      (so an incoming message names its window without any table
 *      exchange) and whose collective context carries the window's own
 *      fences and frees;
 *   2. allocate: this rank's memory; allgather of (base, size, disp_unit,
 *      status) - every rank learns every target's window, or that some
 *      rank failed (then every rank fails alike);
 *   3. allocate_shared, and allocate when every member said "shm" in step
 *      2 (all on its node, RCMPI_RMA_SHM on): every member must share this
 *      kernel (same boot id: the shm transport's locality, whatever
 *      RCMPI_TRANSPORTS forces for messages), else RC_ERR_RMA_SHARED on
 *      all; rank 0 creates one segment (header pages: the accumulate
 *      locks, the lock words and holder words; then every rank's memory:
 *      contiguous, or page-aligned parts with alloc_shared_noncontig and
 *      for allocate) and broadcasts its name; the others map it; an
 *      allreduce agrees on success; rank 0 unlinks the name. allocate
 *      falls back to private memory (step 2 again, then the AM path) when
 *      a member said no or the segment could not be made;
 *   4. the window is registered under its id, then a barrier: no member
 *      sends to a window another member has not registered yet.
 * Free: an allreduce of "anything still open here" (an epoch, a lock, an
 * exposure, operations not complete) - when any rank says so, every rank
 * gets RC_ERR_RMA_SYNC and the window lives on (no rank is left waiting
 * in a collective the others skipped); else every rank drops it. No
 * message of the window is in flight then: every epoch was closed with
 * acknowledgements.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#include "coll.h"
#include "compiler.h"
#include "log.h"
#include "param.h"
#include "rma_impl.h"

#define RMA_PAGE 4096

/* Transports whose get/put may reach window memory (the direct path),
 * by the name every rank gives them: a key's place in rma_wininfo. */
static const char *const direct_tps[] = {"shm", "verbs", "self"};
#define RMA_NDIRECT 3

/* What each rank tells the others at creation. */
struct rma_wininfo {
	uint64_t base;
	uint64_t size;
	int32_t disp_unit;
	int32_t status;
	int32_t shm; /* every member is on my node, RCMPI_RMA_SHM */
	int32_t atomic; /* RMA_AV_*: the device agent's vote */
	/* the direct path: my memory's key on each transport I have */
	uint8_t has_key[RMA_NDIRECT];
	uint8_t pad[8 - RMA_NDIRECT];
	uint8_t key[RMA_NDIRECT][RC_TP_KEY_MAX];
	/* the device agent's lock words (dlock.c): my block and its key */
	uint64_t lbase;
	uint8_t lkey[RC_TP_KEY_MAX];
};

/* What a member says about the device agent (atomic.c): device atomics
 * from me to every member and to my own memory (exposed with them);
 * RCMPI_RMA_ATOMIC=am or device here; every member is on my node. */
#define RMA_AV_CAN 0x1u
#define RMA_AV_AM 0x2u
#define RMA_AV_DEV 0x4u
#define RMA_AV_NODE 0x8u

/* Rank 0's word on the shared segment. */
struct rma_shminfo {
	char name[200];
	uint64_t len;
	int32_t status;
	int32_t rsvd;
};

struct rma_create {
	struct rc_comm *ucomm;	/* retained while creating */
	struct rc_win_args a;
	struct rc_win **winp;
	struct rc_comm *wcomm;
	struct rc_win *win;
	struct rma_wininfo mine;
	struct rma_wininfo *all;
	struct rma_shminfo sh;
	int st_in, st_out;	/* allreduce of the mapping status */
	bool shm_seg;		/* allocate: memory in a node-wide segment */
	bool shm_failed;	/* allocate: no segment after all, retrying */
	bool shm_path;		/* every member said shm */
	bool shm_any;		/* some member said shm */
};

enum {
	CR_DUP = 0,	/* duplicating the communicator */
	CR_INFO,	/* allgather of rma_wininfo */
	CR_SHM_NAME,	/* bcast of rank 0's segment */
	CR_SHM_MAP,	/* allreduce of the mapping status */
	CR_BARRIER,
};

/* ---- lookups ------------------------------------------------------------- */

struct rc_win *rma_win_lookup(struct rc_rma *rma, uint32_t id)
{
	return id < RC_CTX_MAX ? rma->wins[id] : NULL;
}

bool rc_win_valid(const struct rc_win *win)
{
	return rc_hobj_is(win, RC_HK_WIN);
}

void *rc_win_base(const struct rc_win *win)
{
	return win->base;
}

int rma_win_rank(const struct rc_win *win, int w)
{
	return w >= 0 && w < win->inst->size ? win->wmap[w] : -1;
}

bool rma_all_local(const struct rc_win *win)
{
	int t;

	for (t = 0; t < win->comm->size; t++)
		if (!win->inst->procs[rc_comm_wrank(win->comm, t)].local)
			return false;
	return true;
}

/* ---- addresses ----------------------------------------------------------- */

int rma_target_addr(struct rc_win *win, int64_t disp, ptrdiff_t lo,
		    ptrdiff_t hi, char **addr)
{
	uintptr_t a, s, e;
	ptrdiff_t off;
	size_t i;

	if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
		a = (uintptr_t)disp;
		*addr = (char *)a;
		if (hi <= lo)
			return RC_OK;
		s = a + (uintptr_t)lo;
		e = a + (uintptr_t)hi;
		for (i = 0; i < win->nreg; i++)
			if (s >= win->reg[i].base && e > s &&
			    e <= win->reg[i].base + win->reg[i].size)
				return RC_OK;
		return RC_ERR_RMA_RANGE;
	}
	if (__builtin_mul_overflow((ptrdiff_t)disp, (ptrdiff_t)win->disp_unit,
				   &off))
		return RC_ERR_RMA_RANGE;
	*addr = (char *)win->base + off;
	if (hi <= lo)
		return RC_OK;
	if (off + lo < 0 || off + hi > (ptrdiff_t)win->size)
		return RC_ERR_RMA_RANGE;
	return RC_OK;
}

/* ---- dynamic regions -----------------------------------------------------
 * Each attached region is exposed on every transport that can read and
 * write it (win->dyn_direct), as a created window's memory is at
 * creation. An origin asks the target for the key of the region that
 * holds an address the first time it accesses it (RMA_REGQ; that
 * operation and those until the answer take the AM path, which checks
 * the range at the target), keeps the answer (struct rma_dreg) and goes
 * direct from then on while its accesses lie inside a region it knows
 * (a region the target could not expose is known without a key: its
 * accesses take the AM path without asking again).
 * A detach tells every member that got a key (RMA_REGINV) before the
 * region's memory is released: in order with everything the target
 * sends after, so no origin learns of memory attached later at the same
 * address before it has forgotten the old key.
 */

static int direct_kind(const struct rc_tp *tp);

static void reg_expose(struct rc_win *win, struct rma_region *r)
{
	struct rc_inst *inst = win->inst;
	int i;

	r->exposed = 0;
	if (!win->dyn_direct || !r->size)
		return;
	for (i = 0; i < inst->ntps; i++) {
		struct rc_tp *tp = inst->tps[i];

		if (direct_kind(tp) < 0 ||
		    !(tp->caps & (RC_TP_CAP_GET | RC_TP_CAP_PUT)))
			continue;
		if (!tp->ops->mem_expose(tp, (void *)r->base, r->size,
					 r->key[i], &r->expose[i]))
			r->exposed |= 1u << i;
	}
}

static void reg_unexpose(struct rc_win *win, struct rma_region *r)
{
	int i;

	for (i = 0; i < win->inst->ntps; i++)
		if (r->exposed & (1u << i))
			win->inst->tps[i]->ops->mem_release(win->inst->tps[i],
							    r->expose[i]);
	r->exposed = 0;
}

int rc_win_attach(struct rc_win *win, void *base, size_t size)
{
	uintptr_t b = (uintptr_t)base;
	struct rma_region *r;
	size_t i;

	if (b + size < b)
		return RC_ERR_INVAL;
	/* (an empty region overlaps nothing and serves no access, but it
	 * is attached: MPI_Win_detach must find it) */
	for (i = 0; i < win->nreg; i++)
		if (size && b < win->reg[i].base + win->reg[i].size &&
		    win->reg[i].base < b + size)
			return RC_ERR_INVAL;	/* overlaps */
	if (win->nreg == win->capreg) {
		size_t cap = win->capreg ? 2 * win->capreg : 8;

		r = realloc(win->reg, cap * sizeof(*r));
		if (!r)
			return RC_ERR_NOMEM;
		win->reg = r;
		win->capreg = cap;
	}
	r = &win->reg[win->nreg++];
	memset(r, 0, sizeof(*r));
	r->base = b;
	r->size = size;
	reg_expose(win, r);
	return RC_OK;
}

int rc_win_detach(struct rc_win *win, const void *base)
{
	struct rma_region *r;
	size_t i;
	int t;

	for (i = 0; i < win->nreg; i++) {
		r = &win->reg[i];
		if (r->base != (uintptr_t)base)
			continue;
		for (t = 0; t < win->comm->size && r->size; t++)
			if (win->tg[t].told && !win->tg[t].dead)
				rma_send(win, t, RMA_REGINV, 0,
					 (uint64_t)r->base);
		reg_unexpose(win, r);
		win->reg[i] = win->reg[--win->nreg];
		return RC_OK;
	}
	return RC_ERR_INVAL;
}

const uint8_t *rma_dyn_key(struct rc_win *win, int t, uint64_t lo,
			   uint64_t hi)
{
	struct rma_target *tg = &win->tg[t];
	int k = direct_kind(win->inst->procs[tg->wrank].tp);
	size_t i;

	for (i = 0; i < tg->ndreg; i++) {
		struct rma_dreg *d = &tg->dreg[i];

		if (lo >= d->base && hi <= d->base + d->size && hi > lo)
			return d->keyed ? d->key : NULL;
	}
	/* (the key on our transport to it: its kind in flags) */
	if (k >= 0 && !tg->regq && !tg->dead &&
	    rma_send(win, t, RMA_REGQ, (unsigned)k, lo) == RC_OK)
		tg->regq = true;
	return NULL;
}

/* Target: answer an origin's question (the key on the transport of
 * direct kind `kind`). */
static void reg_answer(struct rc_win *win, int t, uint64_t addr, int kind)
{
	struct rma_reg_msg m;
	size_t i;
	int k;

	memset(&m, 0, sizeof(m));
	m.h.type = RMA_REGR;
	m.h.win = win->id;
	m.h.arg = addr;
	for (k = 0; k < win->inst->ntps &&
		    direct_kind(win->inst->tps[k]) != kind;
	     k++)
		;
	for (i = 0; i < win->nreg; i++) {
		struct rma_region *r = &win->reg[i];

		if (addr < r->base || addr >= r->base + r->size)
			continue;
		m.base = r->base;
		m.size = r->size;
		if (k < win->inst->ntps && (r->exposed & (1u << k))) {
			m.h.flags = RMA_F_KEYED;
			memcpy(m.key, r->key[k], RC_TP_KEY_MAX);
		}
		win->tg[t].told = true;
		break;
	}
	rc_am_send(win->inst, win->tg[t].wrank, RC_AM_RMA, &m, sizeof(m),
		   NULL, 0);
}

/* Origin: remember a region (replacing what was known at its base). */
static void reg_learn(struct rma_target *tg, const struct rma_reg_msg *m)
{
	struct rma_dreg *d;
	size_t i;

	for (i = 0; i < tg->ndreg; i++)
		if (tg->dreg[i].base == m->base)
			break;
	if (i == tg->ndreg) {
		if (tg->ndreg == tg->capdreg) {
			size_t cap = tg->capdreg ? 2 * tg->capdreg : 4;

			d = realloc(tg->dreg, cap * sizeof(*d));
			if (!d)
				return; /* not known: active messages */
			tg->dreg = d;
			tg->capdreg = cap;
		}
		tg->ndreg++;
	}
	d = &tg->dreg[i];
	d->base = m->base;
	d->size = m->size;
	d->keyed = m->h.flags & RMA_F_KEYED;
	memcpy(d->key, m->key, RC_TP_KEY_MAX);
}

void rma_on_reg(struct rc_rma *rma, int wsrc, const void *msg, size_t len)
{
	const struct rma_hdr *h = msg;
	struct rc_win *win = rma_win_lookup(rma, h->win);
	struct rma_target *tg;
	size_t i;
	int t;

	if (!win || (t = rma_win_rank(win, wsrc)) < 0)
		return; /* freed here meanwhile */
	tg = &win->tg[t];
	switch (h->type) {
	case RMA_REGQ:
		reg_answer(win, t, h->arg, h->flags);
		break;
	case RMA_REGR:
		tg->regq = false;
		if (len >= sizeof(struct rma_reg_msg) &&
		    ((const struct rma_reg_msg *)msg)->size)
			reg_learn(tg, msg);
		break;
	case RMA_REGINV:
		for (i = 0; i < tg->ndreg; i++)
			if (tg->dreg[i].base == h->arg)
				tg->dreg[i--] = tg->dreg[--tg->ndreg];
		break;
	}
}

/* ---- shared segments ----------------------------------------------------- */

static struct rma_acclock *acc_of(struct rc_win *win, int t)
{
	return (struct rma_acclock *)((char *)win->shm->acc +
				      (size_t)RMA_LINE * (size_t)t);
}

/* How long a wait for an accumulate lock goes before it asks whether the
 * holder still lives (s), and how often it looks at the clock (spins). */
#define ACC_PATIENCE_S 1.0
#define ACC_CLOCK_SPINS 4096

/* The accumulate lock has been held by window rank h for a long time:
 * true if that process is gone (then nothing will release the lock). The
 * members share this node, so its kernel knows their pids; a process
 * that exited is reaped by its launcher's daemon at once. */
static bool acc_holder_gone(struct rc_win *win, int h)
{
	pid_t pid = win->inst->procs[win->tg[h].wrank].pid;

	return pid > 0 && kill(pid, 0) && errno == ESRCH;
}

/* A test-and-set lock holding its holder's identity: one compare-and-swap
 * to take it free, a store to let it go. A waiter that has waited
 * ACC_PATIENCE_S checks the holder; one that died holding it (its span
 * half applied: its operation's outcome is undefined anyway) is released
 * in its place, with a warning, so that the survivors go on. */
void rma_shm_lock(struct rc_win *win, int t)
{
	uint32_t *l = &acc_of(win, t)->holder;
	const uint32_t me = (uint32_t)win->comm->rank + 1;
	double since = 0;
	unsigned spins = 0;
	uint32_t v;

	for (;;) {
		v = 0;
		if (__atomic_compare_exchange_n(l, &v, me, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
		while ((v = __atomic_load_n(l, __ATOMIC_RELAXED))) {
			if (win->inst->oversubscribed)
				sched_yield();
			else
				__builtin_ia32_pause();
			if (++spins % ACC_CLOCK_SPINS)
				continue;
			if (!since) {
				since = rma_now();
				continue;
			}
			if (rma_now() - since < ACC_PATIENCE_S)
				continue;
			since = rma_now();
			if (v - 1 < (uint32_t)win->comm->size &&
			    acc_holder_gone(win, (int)v - 1) &&
			    __atomic_compare_exchange_n(l, &v, 0, false,
							__ATOMIC_ACQ_REL,
							__ATOMIC_RELAXED))
				rc_log_warn("rank %d died holding the "
					    "accumulate lock of rank %d's "
					    "memory in a shared window; "
					    "released",
					    win->tg[v - 1].wrank,
					    win->tg[t].wrank);
		}
	}
}

void rma_shm_unlock(struct rc_win *win, int t)
{
	__atomic_store_n(&acc_of(win, t)->holder, 0, __ATOMIC_RELEASE);
}

/* The segment's header: an accumulate lock per target (struct
 * rma_acclock), a lock word per target (struct rma_lockw), one cache line
 * each, who holds or waits for each (n x n words); whole pages. */
static size_t shm_hdr_len(int n)
{
	size_t len = RMA_LINE * 2 * (size_t)n +
		     sizeof(uint64_t) * (size_t)n * (size_t)n;

	return (len + RMA_PAGE - 1) & ~(size_t)(RMA_PAGE - 1);
}

/* Where rank t's memory starts in the segment, all parts laid out. */
static size_t shm_layout(struct rc_win *win, bool noncontig, size_t *offs)
{
	size_t off = shm_hdr_len(win->comm->size);
	int t;

	for (t = 0; t < win->comm->size; t++) {
		offs[t] = off;
		off += win->tg[t].size;
		if (noncontig)
			off = (off + RMA_PAGE - 1) & ~(size_t)(RMA_PAGE - 1);
	}
	return off;
}

static int shm_map(struct rma_shm *sh, bool create)
{
	int fd, ret = RC_OK;

	fd = shm_open(sh->name, create ? O_CREAT | O_EXCL | O_RDWR : O_RDWR,
		      0600);
	if (fd < 0) {
		rc_log_err("shm_open(%s): %s", sh->name, strerror(errno));
		return RC_ERR_IO;
	}
	if (create && (errno = rc_shm_reserve(fd, sh->len))) {
		rc_log_err("cannot allocate %zu bytes in /dev/shm for a shared "
			   "window (%s): %s", sh->len, sh->name,
			   strerror(errno));
		ret = RC_ERR_NOMEM;
		goto out;
	}
	sh->seg = mmap(NULL, sh->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       0);
	if (sh->seg == MAP_FAILED) {
		sh->seg = NULL;
		rc_log_err("mmap(%s, %zu): %s", sh->name, sh->len,
			   strerror(errno));
		ret = RC_ERR_NOMEM;
		goto out;
	}
	sh->acc = sh->seg;
	sh->lockw = (struct rma_lockw *)((char *)sh->seg + RMA_LINE * sh->n);
	sh->holder = (uint64_t *)((char *)sh->lockw + RMA_LINE * sh->n);
out:
	close(fd);
	if (ret && create)
		shm_unlink(sh->name);
	return ret;
}

/* ---- window objects ------------------------------------------------------ */

/* what cr_expose (below) registered */
static void win_unexpose(struct rc_win *win)
{
	int i;

	for (i = 0; i < win->inst->ntps; i++)
		if (win->exposed & (1u << i))
			win->inst->tps[i]->ops->mem_release(win->inst->tps[i],
							    win->expose[i]);
	win->exposed = 0;
}

static void win_destroy(struct rc_win *win)
{
	struct rc_rma *rma = rma_of(win->inst);
	size_t i;

	if (rma->wins[win->id] == win)
		rma->wins[win->id] = NULL;
	while (!rc_list_empty(&win->lockq)) {
		struct rma_waiter *w = rc_list_first(&win->lockq,
						     struct rma_waiter, link);

		rc_list_del(&w->link);
		free(w);
	}
	assert(rc_list_empty(&win->ops));
	win_unexpose(win);
	rma_dlock_close(win);
	if (win->shm) {
		if (win->shm->seg)
			munmap(win->shm->seg, win->shm->len);
		free(win->shm);
	}
	free(win->mem);
	for (i = 0; i < win->nreg; i++)
		reg_unexpose(win, &win->reg[i]);
	free(win->reg);
	for (i = 0; win->tg && win->comm && i < (size_t)win->comm->size; i++)
		free(win->tg[i].dreg);
	free(win->grp);
	free(win->pgrp);
	free(win->tg);
	free(win->wmap);
	rc_list_del(&win->link);
	/* MPI_Win_free ran the delete callbacks; what is left dies with
	 * the instance */
	rc_attr_discard(&win->attrs);
	if (win->comm)
		rc_comm_release(win->comm);
	rc_hobj_free(RC_HK_WIN, win);
}

static struct rc_win *win_new(struct rma_create *cr)
{
	struct rc_win *win = rc_hobj_new(RC_HK_WIN, sizeof(*win));
	struct rc_inst *inst = cr->wcomm->inst;
	int n = cr->wcomm->size, w, t;

	if (!win)
		return NULL;
	win->tg = calloc((size_t)n, sizeof(*win->tg));
	win->wmap = malloc((size_t)inst->size * sizeof(*win->wmap));
	if (!win->tg || !win->wmap) {
		free(win->tg);
		free(win->wmap);
		rc_hobj_free(RC_HK_WIN, win);
		return NULL;
	}
	for (w = 0; w < inst->size; w++)
		win->wmap[w] = -1;
	for (t = 0; t < n; t++) {
		win->wmap[rc_comm_wrank(cr->wcomm, t)] = t;
		rc_list_init(&win->tg[t].aq);
	}
	rc_list_init(&win->link);
	win->inst = cr->wcomm->inst;
	win->comm = cr->wcomm;
	cr->wcomm = NULL;
	win->id = win->comm->ctx;
	win->flavor = cr->a.flavor;
	win->model = MPI_WIN_UNIFIED;
	win->disp_unit = cr->a.disp_unit;
	win->info = cr->a.info;
	win->acc_order = cr->a.acc_order;
	win->acc_same_op = cr->a.acc_same_op;
	/* the window's handler: its private communicator's, which names
	 * the window (errors of its requests raise there too) */
	rc_errh_release(win->comm->errh);
	win->comm->errh = &rc_mpi_errors_are_fatal;
	win->comm->eh_handle = win;
	win->comm->eh_obj = RC_EHO_WIN;
	win->excl = -1;
	rc_list_init(&win->lockq);
	rc_list_init(&win->ops);
	return win;
}

/* ---- creation ------------------------------------------------------------ */

static int cr_coll(struct rma_sync *s, int coll, const void *sbuf,
		   void *rbuf, size_t n, struct rc_op *op, int root)
{
	struct rc_cargs a;

	memset(&a, 0, sizeof(a));
	switch (coll) {
	case RC_COLL_ALLGATHER:
		a.sbuf = sbuf;
		a.rbuf = rbuf;
		a.scount = a.rcount = n;
		a.sdt = a.rdt = &rc_mpi_byte;
		break;
	case RC_COLL_BCAST:
		a.rbuf = rbuf;
		a.count = n;
		a.dt = &rc_mpi_byte;
		a.root = root;
		break;
	case RC_COLL_ALLREDUCE:
		a.sbuf = sbuf;
		a.rbuf = rbuf;
		a.count = n;
		a.dt = &rc_mpi_int;
		a.op = op;
		break;
	default:
		break;
	}
	return rma_coll_start(s, s->cr->win->comm, coll, &a);
}

/* ---- the direct path ----------------------------------------------------- */

static int direct_kind(const struct rc_tp *tp)
{
	int k;

	for (k = 0; tp && k < RMA_NDIRECT; k++)
		if (!strcmp(tp->name, direct_tps[k]))
			return k;
	return -1;
}

/* The transport whose device atomics a window may use: verbs (or the
 * in-process fabric of unit tests, the only other one that has them). */
static struct rc_tp *atomic_tp(struct rc_inst *inst)
{
	int i;

	for (i = 0; i < inst->ntps; i++)
		if ((inst->tps[i]->caps & RC_TP_CAP_ATOMIC) &&
		    direct_kind(inst->tps[i]) >= 0)
			return inst->tps[i];
	return NULL;
}

/* Our window memory on every transport that can read and write it (the
 * direct path) or apply atomics to it (the device agent), its keys in
 * what we tell the others (create and private allocate). */
static void cr_expose(struct rma_create *cr)
{
	struct rc_win *win = cr->win;
	struct rc_inst *inst = win->inst;
	bool direct = rc_param_bool(RC_P_RMA_DIRECT);
	bool atomic = rma_of(inst)->atomic_mode != RMA_ATOMIC_AM;
	int i, k;

	if (!win->size || !win->base)
		return;
	for (i = 0; i < inst->ntps; i++) {
		struct rc_tp *tp = inst->tps[i];

		k = direct_kind(tp);
		if (k < 0 || (win->exposed & (1u << i)) ||
		    !((direct &&
		       (tp->caps & (RC_TP_CAP_GET | RC_TP_CAP_PUT))) ||
		      (atomic && (tp->caps & RC_TP_CAP_ATOMIC))))
			continue;
		if (tp->ops->mem_expose(tp, win->base, (size_t)win->size,
					cr->mine.key[k], &win->expose[i]))
			continue; /* not on this one: active messages */
		win->exposed |= 1u << i;
		cr->mine.has_key[k] = 1;
	}
}

/* The targets whose memory our transport to them can reach. */
static void cr_direct(struct rma_create *cr)
{
	struct rc_win *win = cr->win;
	const char *min = rc_param_raw(RC_P_RMA_DIRECT_MIN);
	int t, k;

	if (!rc_param_bool(RC_P_RMA_DIRECT))
		return; /* keys for the device agent only */
	win->direct_auto = !min || !strcmp(min, "auto");
	if (!win->direct_auto)
		win->direct_min = (size_t)rc_param_int_at(RC_P_RMA_DIRECT_MIN,
							  0, 1L << 40);
	win->list_max = (size_t)rc_param_int(RC_P_RMA_DIRECT_LIST);
	win->list_small = (size_t)rc_param_int(RC_P_RMA_DIRECT_LIST_SMALL);
	win->dyn_direct = win->flavor == MPI_WIN_FLAVOR_DYNAMIC;
	for (t = 0; t < win->comm->size; t++) {
		struct rma_target *tg = &win->tg[t];

		k = direct_kind(win->inst->procs[tg->wrank].tp);
		if (t == win->comm->rank || k < 0 || !cr->all[t].has_key[k])
			continue;
		tg->direct = true;
		memcpy(tg->rkey, cr->all[t].key[k], RC_TP_KEY_MAX);
	}
}

/* This member's vote on the device agent (after cr_expose). */
static int32_t cr_atomic_vote(struct rma_create *cr)
{
	struct rc_win *win = cr->win;
	struct rc_inst *inst = win->inst;
	struct rc_tp *tp = atomic_tp(inst);
	int mode = rma_of(inst)->atomic_mode, t, k = direct_kind(tp);
	uint32_t v = 0;

	if (mode == RMA_ATOMIC_AM)
		v |= RMA_AV_AM;
	if (mode == RMA_ATOMIC_DEVICE)
		v |= RMA_AV_DEV;
	if (rma_all_local(win))
		v |= RMA_AV_NODE;
	/* (a member without memory needs no key: nothing targets it) */
	if (!tp || k < 0 || (win->size && !cr->mine.has_key[k]))
		return (int32_t)v;
	/* every member through this device (ours: its loopback QP; a
	 * member on this node: a QP for atomics beside shared memory) */
	for (t = 0; t < win->comm->size; t++)
		if (!tp->ops->atomic_reach(tp, rc_comm_wrank(win->comm, t)))
			return (int32_t)v;
	/* and the words of my passive-target lock, for its atomics */
	if (rma_dlock_expose(win, tp, &cr->mine.lbase, cr->mine.lkey))
		return (int32_t)v;
	return (int32_t)(v | RMA_AV_CAN);
}

/*
 * The atomic agent, from every member's vote (so the same on all): the
 * device when every member can use it and has its memory exposed for it,
 * no member forces active messages, and either one forces the device or
 * the members are not all on one node (auto: on one node the target's
 * CPU agent costs no network round trip the device would save).
 */
static void cr_atomic(struct rma_create *cr)
{
	struct rc_win *win = cr->win;
	uint32_t all = ~0u, any = 0;
	int t, k;

	/* windows in private memory only: not dynamic ones (attached
	 * later, not exposed for atomics), nor those in a node's segment */
	if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC ||
	    win->flavor == MPI_WIN_FLAVOR_SHARED ||
	    (win->flavor == MPI_WIN_FLAVOR_ALLOCATE && cr->shm_path)) {
		rma_dlock_close(win); /* lock words unused */
		return;
	}
	for (t = 0; t < win->comm->size; t++) {
		all &= (uint32_t)cr->all[t].atomic;
		any |= (uint32_t)cr->all[t].atomic;
	}
	win->dev_atomic = (all & RMA_AV_CAN) && !(any & RMA_AV_AM) &&
			  ((any & RMA_AV_DEV) || !(all & RMA_AV_NODE));
	if (!win->dev_atomic) {
		rma_dlock_close(win); /* lock words unused */
		return;
	}
	win->atp = atomic_tp(win->inst);
	k = direct_kind(win->atp);
	for (t = 0; t < win->comm->size; t++) {
		memcpy(win->tg[t].akey, cr->all[t].key[k], RC_TP_KEY_MAX);
		win->tg[t].lbase = cr->all[t].lbase;
		memcpy(win->tg[t].lkey, cr->all[t].lkey, RC_TP_KEY_MAX);
	}
}

/* Step 2 for this rank: its memory. */
static void cr_local(struct rma_create *cr)
{
	struct rc_win *win = cr->win;
	void *p;

	cr->mine.disp_unit = cr->a.disp_unit;
	cr->mine.size = cr->a.size;
	/* the SHM path: every member here, and the shm transport between
	 * us (RCMPI_TRANSPORTS=verbs forces verbs between local ranks:
	 * their windows keep the active-message path, as their messages) */
	cr->mine.shm = rma_all_local(win) && rc_param_bool(RC_P_RMA_SHM) &&
		       rc_param_list_has(rc_param_str(RC_P_TRANSPORTS), "shm");
	if (cr->a.flavor == MPI_WIN_FLAVOR_ALLOCATE && cr->mine.shm &&
	    !cr->shm_failed) {
		/* placed in the node's segment in step 3 */
		win->size = (MPI_Aint)cr->a.size;
		cr->shm_seg = true;
		cr->mine.base = 0;
		return;
	}
	switch (cr->a.flavor) {
	case MPI_WIN_FLAVOR_CREATE:
		win->base = cr->a.base;
		win->size = (MPI_Aint)cr->a.size;
		break;
	case MPI_WIN_FLAVOR_ALLOCATE:
		/* page aligned, like MPI_Alloc_mem: registration, CMA */
		if (posix_memalign(&p, RMA_PAGE, cr->a.size ? cr->a.size : 1)) {
			cr->mine.status = RC_ERR_NOMEM;
			break;
		}
		win->mem = p;
		win->base = p;
		win->size = (MPI_Aint)cr->a.size;
		break;
	case MPI_WIN_FLAVOR_DYNAMIC:
		win->base = MPI_BOTTOM;
		win->size = 0;
		cr->mine.size = 0;
		break;
	default:	/* shared: placed in step 3 */
		win->size = (MPI_Aint)cr->a.size;
		break;
	}
	cr->mine.base = (uint64_t)(uintptr_t)win->base;
	if (cr->a.flavor == MPI_WIN_FLAVOR_CREATE ||
	    (cr->a.flavor == MPI_WIN_FLAVOR_ALLOCATE && !cr->mine.status))
		cr_expose(cr);
	cr->mine.atomic = cr_atomic_vote(cr);
}

/* After the allgather: every target's window; the first failure. */
static int cr_learn(struct rma_create *cr)
{
	struct rc_win *win = cr->win;
	int t, ret = RC_OK;

	cr->shm_path = true;
	for (t = 0; t < win->comm->size; t++) {
		struct rma_target *tg = &win->tg[t];

		tg->wrank = rc_comm_wrank(win->comm, t);
		tg->base = cr->all[t].base;
		tg->size = cr->all[t].size;
		tg->disp_unit = cr->all[t].disp_unit;
		if (cr->all[t].status && !ret)
			ret = cr->all[t].status;
		if (!cr->all[t].shm)
			cr->shm_path = false;
		else
			cr->shm_any = true;
	}
	cr_direct(cr); /* windows on the SHM path exposed nothing */
	if (!ret)
		cr_atomic(cr);
	return ret;
}

/* allocate's parts start on pages of their own, like MPI_Alloc_mem's */
static bool shm_noncontig(const struct rma_create *cr)
{
	return cr->a.flavor == MPI_WIN_FLAVOR_ALLOCATE ||
	       (cr->a.info & RC_WIN_NONCONTIG);
}

/* allocate: no node-wide segment after all (a member said no, or the
 * segment could not be made): private memory and the allgather again. */
static void cr_no_seg(struct rma_sync *s)
{
	struct rma_create *cr = s->cr;
	struct rc_win *win = cr->win;

	if (win->shm) {
		if (win->shm->seg)
			munmap(win->shm->seg, win->shm->len);
		free(win->shm);
		win->shm = NULL;
	}
	for (int t = 0; t < win->comm->size; t++)
		win->tg[t].local = NULL;
	free(win->mem);
	win->mem = NULL;
	cr->shm_failed = true;
	cr->shm_seg = false;
	memset(&cr->mine, 0, sizeof(cr->mine));
	cr_local(cr);
	cr->mine.shm = 0;
	s->stage = CR_INFO;
	s->err = cr_coll(s, RC_COLL_ALLGATHER, &cr->mine, cr->all,
			 sizeof(cr->mine), NULL, 0);
}

/* Step 3 at rank 0: the segment, named in cr->sh. */
static void cr_shm_create(struct rma_create *cr, size_t *offs)
{
	struct rc_win *win = cr->win;
	struct rc_rma *rma = rma_of(win->inst);
	struct rma_shm *sh = win->shm;
	char what[64];

	if (!rma_all_local(win)) {
		cr->sh.status = RC_ERR_RMA_SHARED;
		return;
	}
	/* unique on the node: the creating process and its count */
	snprintf(what, sizeof(what), "w%d.%d.%lu", win->inst->rank,
		 (int)getpid(), rma->nshm++);
	rc_shm_seg_name(sh->name, sizeof(sh->name), win->inst->nspace, what);
	sh->len = shm_layout(win, shm_noncontig(cr), offs);
	sh->n = win->comm->size;
	cr->sh.status = shm_map(sh, true);
	snprintf(cr->sh.name, sizeof(cr->sh.name), "%s", sh->name);
	cr->sh.len = sh->len;
}

/* Step 3 elsewhere: map rank 0's segment. */
static int cr_shm_attach(struct rma_create *cr)
{
	struct rma_shm *sh = cr->win->shm;

	if (cr->sh.status)
		return cr->sh.status;
	snprintf(sh->name, sizeof(sh->name), "%s", cr->sh.name);
	sh->len = (size_t)cr->sh.len;
	sh->n = cr->win->comm->size;
	return shm_map(sh, false);
}

/* Step 3, the end: every target's memory here; our own is the base. */
static int cr_shm_place(struct rma_create *cr)
{
	struct rc_win *win = cr->win;
	size_t *offs = calloc((size_t)win->comm->size, sizeof(*offs));
	int t;

	if (!offs)
		return RC_ERR_NOMEM;
	shm_layout(win, shm_noncontig(cr), offs);
	for (t = 0; t < win->comm->size; t++)
		win->tg[t].local = (char *)win->shm->seg + offs[t];
	free(offs);
	win->base = win->tg[win->comm->rank].local;
	win->shm_path = cr->shm_path;
	if (cr->a.flavor == MPI_WIN_FLAVOR_ALLOCATE)
		for (t = 0; t < win->comm->size; t++)
			win->tg[t].base = (uint64_t)(uintptr_t)win->tg[t].local;
	return RC_OK;
}

static void cr_register(struct rma_sync *s)
{
	struct rc_win *win = s->cr->win;

	rma_of(win->inst)->wins[win->id] = win;
	rc_list_add_tail(&rma_of(win->inst)->winlist, &win->link);
	s->win = win;
	win->nsyncs++;
	s->stage = CR_BARRIER;
	s->err = cr_coll(s, RC_COLL_BARRIER, NULL, NULL, 0, NULL, 0);
}

static void cr_free(struct rma_create *cr)
{
	if (cr->win)
		win_destroy(cr->win);
	if (cr->wcomm)
		rc_comm_release(cr->wcomm);
	rc_comm_release(cr->ucomm);
	free(cr->all);
	free(cr);
}

bool rma_create_advance(struct rma_sync *s)
{
	struct rma_create *cr = s->cr;
	size_t *offs;
	int st;

	for (;;) {
		if (s->err)
			goto fail;
		if (s->creq && !rma_coll_wait(s))
			return false;
		if (s->err)
			goto fail;
		switch (s->stage) {
		case CR_DUP:
			cr->win = win_new(cr);
			cr->all = calloc((size_t)cr->win->comm->size,
					 sizeof(*cr->all));
			if (!cr->win || !cr->all) {
				s->err = RC_ERR_NOMEM;
				goto fail;
			}
			cr_local(cr);
			if (cr->a.flavor == MPI_WIN_FLAVOR_SHARED ||
			    cr->shm_seg) {
				cr->win->shm = calloc(1, sizeof(*cr->win->shm));
				if (!cr->win->shm)
					cr->mine.status = RC_ERR_NOMEM;
			}
			s->stage = CR_INFO;
			s->err = cr_coll(s, RC_COLL_ALLGATHER, &cr->mine,
					 cr->all, sizeof(cr->mine), NULL, 0);
			break;
		case CR_INFO:
			s->err = cr_learn(cr);
			if (s->err)
				goto fail;
			/* (the same on every member: all of them said it) */
			if (cr->a.flavor == MPI_WIN_FLAVOR_ALLOCATE &&
			    cr->shm_any && !cr->shm_path && !cr->shm_failed) {
				cr_no_seg(s);
				break;
			}
			if (cr->a.flavor != MPI_WIN_FLAVOR_SHARED &&
			    !cr->shm_seg) {
				cr_register(s);
				break;
			}
			if (cr->win->comm->rank == 0) {
				offs = calloc((size_t)cr->win->comm->size,
					      sizeof(*offs));
				if (offs)
					cr_shm_create(cr, offs);
				else
					cr->sh.status = RC_ERR_NOMEM;
				free(offs);
			}
			s->stage = CR_SHM_NAME;
			s->err = cr_coll(s, RC_COLL_BCAST, NULL, &cr->sh,
					 sizeof(cr->sh), NULL, 0);
			break;
		case CR_SHM_NAME:
			if (cr->sh.status && cr->shm_seg) {
				cr_no_seg(s);
				break;
			}
			if (cr->sh.status) {
				s->err = cr->sh.status;
				goto fail;
			}
			cr->st_in = cr->win->comm->rank ? cr_shm_attach(cr)
							: RC_OK;
			s->stage = CR_SHM_MAP;
			s->err = cr_coll(s, RC_COLL_ALLREDUCE, &cr->st_in,
					 &cr->st_out, 1, &rc_mpi_max, 0);
			break;
		case CR_SHM_MAP:
			/* everyone has mapped it (or given up): no name left */
			if (cr->win->comm->rank == 0)
				shm_unlink(cr->win->shm->name);
			st = cr->st_out;
			if (st && cr->shm_seg) {
				/* (every member agrees: st_out is theirs) */
				cr_no_seg(s);
				break;
			}
			if (!st)
				st = cr_shm_place(cr);
			if (st) {
				s->err = st;
				goto fail;
			}
			cr_register(s);
			break;
		case CR_BARRIER:
			*cr->winp = cr->win;
			cr->win->nsyncs--;
			cr->win = NULL;
			s->win = NULL;
			cr_free(cr);
			s->cr = NULL;
			return true;
		}
	}
fail:
	if (s->creq) {
		/* a collective still runs: it must end before we go */
		if (!rc_req_done(s->creq))
			return false;
		rc_req_free(s->creq);
		s->creq = NULL;
	}
	if (cr->win && s->win == cr->win)
		cr->win->nsyncs--;
	s->win = NULL;
	cr_free(cr);
	s->cr = NULL;
	return true;
}

int rc_win_create_start(struct rc_comm *comm, const struct rc_win_args *a,
			struct rc_win **winp, struct rc_req **reqp)
{
	struct rma_create *cr = calloc(1, sizeof(*cr));
	struct rma_sync *s;
	int ret;

	if (!cr)
		return RC_ERR_NOMEM;
	cr->a = *a;
	cr->winp = winp;
	cr->ucomm = comm;
	rc_comm_retain(comm);
	s = rma_sync_new(comm->inst, NULL, SY_CREATE, reqp);
	if (!s) {
		rc_comm_release(comm);
		free(cr);
		return RC_ERR_NOMEM;
	}
	s->cr = cr;
	s->stage = CR_DUP;
	ret = rc_comm_dup(comm, &cr->wcomm, &s->creq);
	if (ret)
		s->err = ret;
	rma_sync_advance(s);
	return RC_OK;
}

/* ---- free ---------------------------------------------------------------- */

/* Is anything of win still open on this rank? */
static bool win_busy(const struct rc_win *win)
{
	if (win->posted || win->nsyncs > 1)
		return true;
	if (win->epoch != EP_NONE && !(win->epoch == EP_FENCE &&
					 !win->fence_ops))
		return true;
	return !rma_local_done(win, -1);
}

/* Free: our lock words' last releases done (unlock does not wait for
 * them; nobody may unexpose a block they still go to, so this comes
 * before the allreduce), then the allreduce of "busy", then the end. */
bool rma_free_advance(struct rma_sync *s)
{
	struct rc_win *win = s->win;
	struct rc_cargs a;

	if (s->stage == 0) {
		if (!rma_dlock_quiet(win))
			return false;
		s->stage = 1;
		memset(&a, 0, sizeof(a));
		a.sbuf = &s->assert;
		a.rbuf = &s->val;
		a.count = 1;
		a.dt = &rc_mpi_int;
		a.op = &rc_mpi_max;
		s->err = rma_coll_start(s, win->comm, RC_COLL_ALLREDUCE, &a);
		if (s->err)
			return true;
	}
	if (!rma_coll_wait(s))
		return false;
	if (!s->err && s->val)
		s->err = RC_ERR_RMA_SYNC;
	if (s->err)
		return true;
	win->nsyncs--;
	s->win = NULL;
	win_destroy(win);
	return true;
}

int rc_win_free_start(struct rc_win *win, struct rc_req **reqp)
{
	struct rma_sync *s = rma_sync_new(win->inst, win, SY_FREE, reqp);

	if (!s)
		return RC_ERR_NOMEM;
	s->assert = win_busy(win) ? 1 : 0;
	rma_sync_advance(s);
	return RC_OK;
}

/* ---- active messages ----------------------------------------------------- */

static void rma_am_recv(struct rc_inst *inst, int wsrc, const void *msg,
			size_t len)
{
	struct rc_rma *rma = rma_of(inst);
	const struct rma_hdr *h = msg;

	switch (h->type) {
	case RMA_PUT:
	case RMA_ACC:
	case RMA_GET:
	case RMA_GACC:
	case RMA_CAS:
	case RMA_DATA:
		rma_on_op(rma, wsrc, msg, len);
		break;
	case RMA_REPLY:
		rma_on_reply(rma, wsrc, msg, len);
		break;
	case RMA_REGQ:
	case RMA_REGR:
	case RMA_REGINV:
		rma_on_reg(rma, wsrc, msg, len);
		break;
	default:
		rma_on_sync(rma, wsrc, h);
		break;
	}
}

/* A peer died: what waits on it in every window fails, what it held is
 * released. */
static void rma_am_failed(struct rc_inst *inst, int w, int status)
{
	struct rc_rma *rma = rma_of(inst);
	struct rc_list *pos;

	rc_list_for_each(pos, &rma->winlist) {
		struct rc_win *win = rc_list_entry(pos, struct rc_win, link);
		int t = rma_win_rank(win, w);

		if (t < 0)
			continue;
		win->tg[t].dead = true;
		if (!win->tg[t].err)
			win->tg[t].err = status;
		win->tg[t].nacks = 0;
		rma_ops_fail_target(win, t, status);
		rma_sync_target_failed(win, t);
	}
	rma_in_reset(&rma->in[w]);
}

static const struct rc_am_ops rma_am_ops = {
	.recv = rma_am_recv,
	.failed = rma_am_failed,
};

/* ---- the module ---------------------------------------------------------- */

/* rma_progress when there is something to do (out of line: an idle poll
 * then sets up no frame) */
static __attribute__((noinline)) unsigned rma_progress_work(struct rc_rma *rma)
{
	struct rc_list batch;
	unsigned events = 0;
	bool probe;
	double now;

	if (!rc_list_empty(&rma->rooms))
		events += rma_room_progress(rma);
	/* the clock, for the liveness probes (seconds), every 64th call
	 * only: a read can be a system call (a VM's HPET: ~5 us) */
	probe = !(++rma->tick & 63);
	now = probe ? rma_now() : 0;
	if (probe && rma->nreplies)
		rma_ops_probe(rma, now);
	/* machines that finish leave the list; the others come back */
	rc_list_splice_init(&rma->syncs, &batch);
	while (!rc_list_empty(&batch)) {
		struct rma_sync *s = rc_list_first(&batch, struct rma_sync,
						   link);

		rc_list_del(&s->link);
		rc_list_add_tail(&rma->syncs, &s->link);
		if (rma_sync_advance(s))
			events++;
		else if (probe)
			rma_sync_probe(s, now);
	}
	return events;
}

static unsigned rma_progress(struct rc_inst *inst, void *arg)
{
	struct rc_rma *rma = arg;

	if (RC_LIKELY(rc_list_empty(&rma->syncs) && !rma->nreplies &&
		      rc_list_empty(&rma->rooms)))
		return 0;
	return rma_progress_work(rma);
}

int rc_rma_open(struct rc_inst *inst)
{
	struct rc_rma *rma = calloc(1, sizeof(*rma));
	const char *mode;
	int i;

	if (!rma)
		return RC_ERR_NOMEM;
	rma->inst = inst;
	rc_list_init(&rma->syncs);
	rc_list_init(&rma->rooms);
	mode = rc_param_str(RC_P_RMA_ATOMIC);
	if (!strcmp(mode, "device")) {
		rma->atomic_mode = RMA_ATOMIC_DEVICE;
	} else if (!strcmp(mode, "am")) {
		rma->atomic_mode = RMA_ATOMIC_AM;
	} else if (strcmp(mode, "auto")) {
		rc_log_err("RCMPI_RMA_ATOMIC=%s: expected auto, device or am",
			   mode);
		free(rma);
		return RC_ERR_INVAL;
	}
	rc_list_init(&rma->winlist);
	rma->in = calloc((size_t)inst->size, sizeof(*rma->in));
	/* a message's payload, to any peer */
	for (i = 0; i < inst->size; i++)
		if (rc_am_max(inst, i) > rma->bounce_len)
			rma->bounce_len = rc_am_max(inst, i);
	/* operation records kept for reuse: a window's worth in flight */
	rma->dops = (struct rc_flist)RC_FLIST_INIT(64);
	rma->aop1s = (struct rc_flist)RC_FLIST_INIT(64);
	rma->bounce = malloc(rma->bounce_len);
	if (!rma->in || !rma->bounce) {
		free(rma->in);
		free(rma->bounce);
		free(rma);
		return RC_ERR_NOMEM;
	}
	inst->rma = rma;
	rc_am_register(inst, RC_AM_RMA, &rma_am_ops);
	return rc_progress_register(inst, rma_progress, rma);
}

void rc_rma_close(struct rc_inst *inst)
{
	struct rc_rma *rma = rma_of(inst);
	int w;

	if (!rma)
		return;
	/* machines still running (in tests: a rank that died waiting for a
	 * lock): their requests fail, they go */
	while (!rc_list_empty(&rma->syncs)) {
		struct rma_sync *s = rc_list_first(&rma->syncs,
						   struct rma_sync, link);

		rc_list_del(&s->link);
		if (s->cr)
			cr_free(s->cr);
		s->req->err = RC_ERR_INTERN;
		rc_req_complete(s->req);
		free(s);
	}
	/* windows the program never freed */
	while (!rc_list_empty(&rma->winlist)) {
		struct rc_win *win = rc_list_first(&rma->winlist,
						   struct rc_win, link);

		for (w = 0; w < win->comm->size; w++)
			rma_ops_fail_target(win, w, RC_ERR_INTERN);
		win_destroy(win);
	}
	for (w = 0; w < inst->size; w++)
		rma_in_reset(&rma->in[w]);
	rc_flist_drain(&rma->dops);
	rc_flist_drain(&rma->aop1s);
	free(rma->in);
	free(rma->bounce);
	free(rma);
	inst->rma = NULL;
}
