/*
 * rma_impl.h - inside the one-sided module: windows, the instance's RMA
 * state, the wire format of the protocol over active messages, and the
 * functions the module's files share.
 *
 * Paths. Each window chooses, per target, how data moves and who applies
 * accumulates (the "agent": one per window, never two, so that
 * accumulates stay atomic per element):
 *   - AM (create, allocate, dynamic): every operation is an active message
 *     stream to the target (pt2pt's rc_am_*), applied there by the
 *     target's CPU inside its progress, so ops from one origin are applied
 *     in the order they were issued (every accumulate_ordering holds) and
 *     the target's CPU is the one agent. Results (get, get_accumulate,
 *     fetch_and_op, compare_and_swap) come back as reply streams.
 *   - SHM (allocate_shared, and allocate, when every member is on this
 *     node and RCMPI_RMA_SHM is on: decided at creation, the same on every
 *     member): every target's memory is mapped here; put and get are
 *     copies by the origin, accumulates are applied by the origin under
 *     the target's accumulate lock in the shared segment (struct
 *     rma_acclock; the agent: the CPUs of the node, one target at a
 *     time, ops.c); passive-target locks are ticket locks in
 *     the segment (struct rma_lockw), flush is a memory barrier. No
 *     message moves data; fence and PSCW keep their messages.
 *   - direct (create, allocate off the SHM path, dynamic; ops.c
 *     direct_op): a put or get from RCMPI_RMA_DIRECT_MIN bytes is the
 *     transport's get/put into the target's memory, exposed at creation
 *     (keys in the creation allgather, struct rma_target's rkey) or, on
 *     dynamic windows, at attach (keys asked for on first use, RMA_REGQ,
 *     and dropped at detach, RMA_REGINV): one when both sides are
 *     contiguous, a list of up to RCMPI_RMA_DIRECT_LIST otherwise; the
 *     rest of the window's operations stay on the AM path.
 *   - device agent (create, allocate off the SHM path, when every
 *     member's verbs transport has device atomics and reaches every
 *     other member; win->dev_atomic, decided at creation from the
 *     allgather; atomic.c): accumulates of 8-byte integers are the
 *     device's atomics, from every origin, the target itself included,
 *     and passive-target locks are lock words in the target's memory
 *     that the device's atomics take and release (dlock.c).
 * The other synchronisation messages stay as they are.
 *
 * Messages (struct rma_hdr first; `win` is the window's id, the context id
 * of its private communicator, the same on every member):
 *   origin -> target   PUT | ACC | GET | GACC | CAS (rma_op_hdr), then DATA
 *                      messages: one byte stream [datatype description]
 *                      [data], applied as it arrives (accumulate data cut
 *                      at element boundaries); one stream per origin at a
 *                      time, since a peer's messages arrive in order
 *   target -> origin   REPLY(op id, offset, status) + result bytes
 *                      ERR(status): a put/accumulate failed at the target
 *                      (dynamic window: not attached); raised by the
 *                      origin's next synchronisation of the window
 *   origin -> target   LOCK(type) -> GRANT; UNLOCK -> ACK; FLUSH -> ACK
 *                      (the ACK follows every earlier message of the
 *                      origin, so it means all of them have been applied,
 *                      and every reply the target sent before it)
 *   target -> origin   POST (MPI_Win_post), origin -> target COMPLETE
 *                      (MPI_Win_complete; with RMA_F_ACK -> ACK)
 *   origin -> target   REGQ(address) -> REGR(region, key): dynamic
 *                      window, the direct path's key of the attached
 *                      region that holds the address (size 0: none)
 *   target -> origin   REGINV(base): that region was detached (sent to
 *                      every member that got a key, before the detach
 *                      returns: it arrives before anything the target
 *                      sends after, such as a new region's address)
 *   either way         PING, ignored: sent once a second to the peers a
 *                      synchronisation has waited on for more than a
 *                      second, so that a transport that learns of a dead
 *                      peer only when a send to it fails (verbs RC: the
 *                      retries run out) does learn of it
 */
#ifndef RC_RMA_IMPL_H
#define RC_RMA_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "attr.h"
#include "comm.h"
#include "dtype.h"
#include "errhandler.h"
#include "flist.h"
#include "inst.h"
#include "list.h"
#include "op.h"
#include "pt2pt.h"
#include "request.h"
#include "rma.h"
#include "status.h"
#include "tp.h"

/* ---- wire format --------------------------------------------------------- */

enum rma_msg {
	RMA_PUT = 1,
	RMA_ACC,
	RMA_GET,
	RMA_GACC,
	RMA_CAS,
	RMA_DATA,
	RMA_REPLY,
	RMA_ERR,
	RMA_LOCK,
	RMA_GRANT,
	RMA_UNLOCK,
	RMA_FLUSH,
	RMA_ACK,
	RMA_POST,
	RMA_COMPLETE,
	RMA_PING,	/* nothing: a probe of a peer that keeps us waiting */
	RMA_REGQ,	/* dynamic: which attached region holds address arg? */
	RMA_REGR,	/* its answer, struct rma_reg_msg (size 0: none) */
	RMA_REGINV,	/* the region at base arg was detached */
};

#define RMA_F_ACK 0x1u		/* COMPLETE: answer with ACK */

struct rma_hdr {
	uint8_t type;
	uint8_t flags;
	uint16_t rsvd;
	uint32_t win;
	uint64_t arg;		/* op id, lock type, status */
};

/* Start of an operation's stream. */
struct rma_op_hdr {
	struct rma_hdr h;	/* arg: the origin's op id (for replies) */
	int64_t disp;		/* in the target's disp units; dynamic:
				 * an absolute address */
	uint64_t count;		/* target count */
	uint64_t dlen;		/* data bytes after the description */
	uint64_t desc;		/* description bytes (0: predefined) */
	uint8_t basic;		/* target type's enum rc_basic */
	uint8_t op;		/* accumulate op (enum rc_op_kind) */
	uint8_t rsvd[6];
};

/* RMA_REGR: the attached region that holds the address asked about and
 * its key on the transport between the two processes (flags
 * RMA_F_KEYED: it has one there; size 0: no region holds it). */
struct rma_reg_msg {
	struct rma_hdr h;	/* arg: the address asked about */
	uint64_t base, size;
	uint8_t key[RC_TP_KEY_MAX];
};

#define RMA_F_KEYED 0x1u

/* A derived target datatype travels flattened: this, then the blocks
 * (struct rc_dt_block, in type-map order); a regular map (struct
 * rc_dt_map) sends its first block only. */
struct rma_dt_desc {
	int64_t lb, extent;
	uint64_t nblocks;
	int64_t rstride;
	uint32_t regular;
	uint32_t rsvd;
};

struct rma_reply {
	struct rma_hdr h;	/* arg: the origin's op id */
	uint64_t off;		/* of these bytes in the result stream */
	int32_t status;		/* RC_OK, or why it failed (no data) */
	uint32_t rsvd;
};

/* ---- windows ------------------------------------------------------------- */

/* What this process knows of one member of the window (by window rank). */
struct rma_target {
	int wrank;		/* world rank */
	uint64_t base;		/* its base address (in its process) */
	uint64_t size;
	int disp_unit;
	char *local;		/* SHM path: its memory, mapped here */
	bool dead;		/* its process failed */
	/* access side (this rank as origin) */
	uint8_t lock;		/* MPI_LOCK_* held or asked for, 0: none */
	bool nocheck;		/* locked with MPI_MODE_NOCHECK */
	bool granted;
	uint32_t ticket;	/* SHM path: at its lock word */
	unsigned nout;		/* ops not complete here */
	unsigned nacks;		/* ACKs awaited */
	unsigned long sent;	/* messages since its last ACK request */
	unsigned long posts, posts_used;	/* POSTs received from it */
	int err;		/* a failure it reported, not raised yet */
	/* exposure side (this rank as target) */
	uint8_t held;		/* lock it holds on my window */
	unsigned long completes, completes_used; /* its COMPLETEs */
	/* direct path (ops.c): its window memory's key on the transport
	 * that reaches it, for that transport's get/put */
	bool direct;
	uint8_t rkey[RC_TP_KEY_MAX];
	/* device agent (atomic.c): its window memory's key on win->atp,
	 * our device operations to it not finished, in issue order */
	uint8_t akey[RC_TP_KEY_MAX];
	struct rc_list aq;
	bool aadv, aagain; /* tg_advance running, asked again */
	/* its lock block (dlock.c), and our lock there (made at the first
	 * MPI_Win_lock of it) */
	uint64_t lbase;
	uint8_t lkey[RC_TP_KEY_MAX];
	struct rma_dlock *dl;
	/* dynamic windows' direct path (win.c): its attached regions
	 * that it told us of (RMA_REGR), whether a question is out; on
	 * the exposure side, whether we told it a key */
	struct rma_dreg *dreg;
	size_t ndreg, capdreg;
	bool regq;
	bool told;
};

/* The address of displacement disp in t's window, in t's process. */
static inline uint64_t rma_tg_addr(const struct rma_target *tg, MPI_Aint disp)
{
	return tg->base + (uint64_t)disp * (uint64_t)tg->disp_unit;
}

/* A region of a target's dynamic window known here, with its key (none:
 * the target could not expose it, its accesses take the AM path without
 * asking again). */
struct rma_dreg {
	uint64_t base, size;
	bool keyed;
	uint8_t key[RC_TP_KEY_MAX];
};

/* ---- device lock words (dlock.c) ---------------------------------------
 * A target's passive-target lock on a device-agent window: words of its
 * lock block (struct rc_win's dlblk), touched only by the device's
 * atomics: the lock word, which packs the three counters of the SHM
 * path's ticket lock (struct rma_lockw) so that one fetch-and-add both
 * takes a ticket and reads the turn, then one holder word per member.
 * Each counter is RMA_DL_BITS wide with a guard bit above it that takes
 * its carry (dlock.c clears it again).
 */
enum { RMA_DL_LOCK = 0, RMA_DL_HOLDER };
#define RMA_DL_BITS 20
#define RMA_DL_READ 0	/* the counters' shifts in the lock word */
#define RMA_DL_WRITE 21
#define RMA_DL_NEXT 42

static inline uint64_t rma_dl_field(uint64_t word, unsigned shift)
{
	return (word >> shift) & ((UINT64_C(1) << RMA_DL_BITS) - 1);
}

/* device operations on one target's words at once: at most 9 (a
 * release and its carry's clearing still finishing, a ticket, a poll, our
 * holder word, a dead member's two reads, its swap and the release in its
 * place) */
#define RMA_DL_OPS 12

/* One device operation on a target's lock words. */
struct rma_dlop {
	struct rc_tp_rdma rd;
	struct rma_dlock *dl;
	uint64_t seq;	  /* post order; 0: the slot is free */
	uint64_t operand; /* add, or the value swapped in */
	uint64_t cmp;	  /* compare-and-swap: the value expected */
	uint32_t word;	  /* in the target's block */
	uint8_t kind;	  /* RC_TP_FADD, RC_TP_CSWAP */
	uint8_t tag;	  /* what its result means (dlock.c DT_*) */
	uint8_t rel;	  /* a repair's swap: what to release if it hits */
	bool posted;
};

/* This rank's lock at one target, with the results of its operations
 * (the struct is exposed on win->atp: the device writes res[]). */
struct rma_dlock {
	struct rc_win *win;
	struct rma_dlock *grave; /* left to a dead target's device */
	int t;
	void *lh;	/* this struct, exposed */
	uint64_t seq;	/* the last operation's */
	uint8_t st;	/* DS_* */
	bool excl;
	bool polling;	/* a read of the head is out */
	double pause;	/* s between polls now (dlock.c DL_PAUSE_*) */
	double poll_at;	/* the next poll's time; < 0: that far from now */
	uint64_t ticket;
	uint64_t hval;	/* our holder word there, as we last made it */
	double since;	/* when we began to wait in the queue (0: not yet) */
	uint64_t seen;	/* the lock word as our ticket or last poll read it */
	bool told;	/* this wait's report made (dlock.c dl_tell) */
	int err;
	/* repairs: one dead member's holder word at a time */
	int scan_o;	/* next member to look at */
	int scan_cur;	/* the one being read */
	int scan_left;	/* scan reads not back yet; -1: none running */
	uint64_t sv[2];	/* the lock word and the holder word as read */
	struct rma_dlop op[RMA_DL_OPS];
	uint64_t res[RMA_DL_OPS]; /* op[i]'s old value */
};

/* A memory region attached to a dynamic window, exposed for the direct
 * path on the transports whose bit is set (handle and key by inst->tps
 * index). */
struct rma_region {
	uintptr_t base;
	size_t size;
	unsigned exposed;
	void *expose[RC_TP_MAX];
	uint8_t key[RC_TP_MAX][RC_TP_KEY_MAX];
};

/* A waiter in the target's lock queue. */
struct rma_waiter {
	struct rc_list link;
	int origin;		/* window rank */
	uint8_t type;
};

#define RMA_LINE 64 /* a cache line: lock words apart */

/*
 * A target's passive-target lock in the shared segment: a fair
 * reader-writer ticket lock. An origin takes a ticket (next++); an
 * exclusive request is granted when `write` reaches it, a shared one when
 * `read` does (and it then passes `read` on at once, so shared holders
 * enter together); an exclusive holder releases with read++ and write++,
 * a shared one with write++. First come, first served: nothing starves.
 */
struct rma_lockw {
	uint32_t next;
	uint32_t write;
	uint32_t read;
};

/* A target's accumulate lock on the SHM path (ops.c): 0 free, else the
 * holder's window rank + 1, so that a waiter can see that the holder
 * died (rma_shm_lock). */
struct rma_acclock {
	uint32_t holder;
};

/* What a rank holds or waits for at a target (holder words): the state
 * in the high half, the ticket in the low half. */
enum {
	RMA_LS_NONE = 0,
	RMA_LS_WAIT_SH,
	RMA_LS_WAIT_EX,
	RMA_LS_SH,
	RMA_LS_EX,
};

/* The node-wide segment of a window (allocate_shared; allocate when every
 * member is on the node). */
struct rma_shm {
	char name[200];
	void *seg;
	size_t len;
	int n;			/* members */
	struct rma_acclock *acc; /* by target (in seg, RMA_LINE apart) */
	struct rma_lockw *lockw; /* by target (in seg, RMA_LINE apart) */
	uint64_t *holder;	 /* [target * n + origin] (in seg) */
};

enum rma_epoch {
	EP_NONE = 0,
	EP_FENCE,	/* after a fence without MPI_MODE_NOSUCCEED */
	EP_PSCW,	/* between MPI_Win_start and MPI_Win_complete */
	EP_LOCK,	/* some targets locked one by one */
	EP_LOCK_ALL,
};

struct rc_win {
	struct rc_hobj h; /* handle.h: the MPI_Win lives in the table */
	struct rc_inst *inst;
	struct rc_list link;	/* rma->winlist, once registered */
	struct rc_comm *comm;	/* private duplicate; its ctx is the id */
	uint32_t id;
	int flavor, model;
	void *base;
	MPI_Aint size;
	int disp_unit;
	unsigned info;		/* RC_WIN_* */
	unsigned acc_order;	/* RC_ACC_* */
	bool acc_same_op;
	bool shm_path; /* every target reached by the SHM path: copies,
			* accumulate locks, lock words */
	struct rma_target *tg;
	int *wmap;		/* world rank -> window rank, or -1 */
	/* the handler is comm->errh (comm->eh_handle names the window) */
	struct rc_attr *attrs; /* cached attributes (attr.h) */
	char name[MPI_MAX_OBJECT_NAME];
	void *mem;		/* allocate: memory we own */
	struct rma_shm *shm;	/* allocate_shared */
	struct rma_region *reg;	/* dynamic: attached regions */
	size_t nreg, capreg;

	/* access epochs (this rank as origin) */
	int epoch;		/* enum rma_epoch */
	bool fence_ops;		/* ops issued since the last fence */
	int nlocked;		/* EP_LOCK: targets locked */
	int *grp;		/* EP_PSCW: the start group (window ranks) */
	int ngrp;
	/* exposure epochs (this rank as target) */
	bool posted;
	int *pgrp;		/* the post group */
	int npgrp;
	/* the target's lock */
	int excl;		/* window rank holding it exclusively, or -1 */
	int nshared;
	struct rc_list lockq;	/* struct rma_waiter, first come first */

	struct rc_list ops;	/* struct rma_op not complete */
	unsigned nsyncs;	/* synchronisations running on it */

	/* direct path: our memory exposed on each transport (by
	 * inst->tps index; NULL: not exposed), and the size from which a
	 * contiguous put or get goes by the transport's get/put */
	void *expose[RC_TP_MAX];
	unsigned exposed; /* bit i: expose[i] is ours to release */
	bool direct_auto; /* direct_min: the transport's (tp->direct_min) */
	size_t direct_min;
	size_t list_max;  /* non-contiguous: most runs of one operation, */
	size_t list_small; /* of small runs (ops.c direct_list) */
	bool dyn_direct;   /* dynamic: regions exposed at attach */
	/* the device is the atomic agent (atomic.c): through atp, whose
	 * keys are the targets' akey */
	bool dev_atomic;
	struct rc_tp *atp;
	/* our lock block (dlock.c): RMA_DL_HOLDER + members words, exposed
	 * for the device's atomics on dltp (handle dllh) */
	uint64_t *dlblk;
	void *dllh;
	uint8_t dlkey[RC_TP_KEY_MAX];
	struct rc_tp *dltp;
};

/* A direct or device operation whose post found no room in its send
 * queue (RC_AGAIN): on rma->rooms until it has posted everything;
 * progress calls kick to try again. */
struct rma_room {
	struct rc_list link;
	void (*kick)(struct rma_room *room);
	bool waiting;
};

/* The instance's one-sided state (inst->rma). */
struct rc_rma {
	struct rc_inst *inst;
	struct rc_win *wins[RC_CTX_MAX];	/* by id */
	struct rc_list winlist;	/* every registered window */
	struct rma_in *in;	/* by world rank: the stream arriving */
	struct rc_list syncs;	/* struct rma_sync running */
	char *bounce;		/* one message's payload, packed */
	size_t bounce_len;
	unsigned long nshm;	/* shared segments created (names) */
	unsigned nreplies;	/* operations awaiting a reply */
	double probe_at;	/* when to PING the targets of those */
	unsigned tick;		/* progress calls: the clock every 64th */
	struct rc_list rooms;	/* struct rma_room: awaiting room */
	int atomic_mode;	 /* RCMPI_RMA_ATOMIC: RMA_ATOMIC_* */
	struct rc_flist dops;	 /* finished direct operations (ops.c) */
	struct rc_flist aop1s;	 /* finished one-element device atomics */
};

enum { RMA_ATOMIC_AUTO = 0, RMA_ATOMIC_DEVICE, RMA_ATOMIC_AM };

static inline struct rc_rma *rma_of(struct rc_inst *inst)
{
	return inst->rma;
}

/* ---- synchronisation machines (sync.c) --------------------------------------
 * Everything that waits for other processes is a machine advanced from
 * progress until its request completes.
 */
enum rma_sync_kind {
	SY_CREATE = 1,
	SY_FREE,
	SY_FENCE,
	SY_LOCK,
	SY_UNLOCK,
	SY_FLUSH,
	SY_FLUSH_LOCAL,
	SY_START,
	SY_COMPLETE,
	SY_WAIT,
};

struct rma_create;

struct rma_sync {
	struct rc_list link;
	struct rc_req *req;
	struct rc_win *win;
	int kind;
	int stage;
	int target;		/* window rank, or -1: all of them */
	int assert;
	struct rc_req *creq;	/* a collective in flight */
	int val;		/* the allreduce of SY_FREE */
	struct rma_create *cr;	/* SY_CREATE */
	int err;
	double probe_at;	/* when to PING the peers it waits on */
};

/* A machine and its pooled request (*reqp), on the running list; its
 * starter advances it once. */
struct rma_sync *rma_sync_new(struct rc_inst *inst, struct rc_win *win,
			      int kind, struct rc_req **reqp);
/* Advance s; true when it finished (its request completed, s freed). */
bool rma_sync_advance(struct rma_sync *s);
/* PING the peers s waits on, if it has waited past s->probe_at. */
void rma_sync_probe(struct rma_sync *s, double now);
double rma_now(void);
/* A collective of a machine on comm (a NULL: no arguments, a barrier),
 * in s->creq; rma_coll_wait: false while it runs, then its status joins
 * s->err and the request is released. */
struct rc_cargs;
int rma_coll_start(struct rma_sync *s, struct rc_comm *comm, int coll,
		   const struct rc_cargs *a);
bool rma_coll_wait(struct rma_sync *s);
/* Advance a creation (win.c): true when it finished (s->err set). */
bool rma_create_advance(struct rma_sync *s);
bool rma_free_advance(struct rma_sync *s);

/* ---- windows (win.c) ----------------------------------------------------- */
struct rc_win *rma_win_lookup(struct rc_rma *rma, uint32_t id);
/* Window rank of world rank w, or -1. */
int rma_win_rank(const struct rc_win *win, int w);
/* The memory of a target operation: [lo, hi) relative to the target
 * buffer; false when it overflows. */
static inline bool rma_span(size_t count, const struct rc_dtype *dt,
			    ptrdiff_t *lo, ptrdiff_t *hi)
{
	ptrdiff_t ext = rc_dt_extent(dt), last;

	if (!count || !dt->size) {
		*lo = *hi = 0;
		return true;
	}
	if (__builtin_mul_overflow((ptrdiff_t)(count - 1), ext, &last) ||
	    count - 1 > (size_t)PTRDIFF_MAX)
		return false;
	*lo = dt->true_lb + (last < 0 ? last : 0);
	*hi = dt->true_ub + (last > 0 ? last : 0);
	return true;
}

/* Target side: the address of (disp) and whether [lo, hi) around it lies
 * in the window (RC_OK) or not (RC_ERR_RMA_RANGE). */
int rma_target_addr(struct rc_win *win, int64_t disp, ptrdiff_t lo,
		    ptrdiff_t hi, char **addr);
/* Shared windows: window rank t's accumulate lock. */
void rma_shm_lock(struct rc_win *win, int t);
void rma_shm_unlock(struct rc_win *win, int t);
/* Is every member of the window on this node? */
bool rma_all_local(const struct rc_win *win);

/* ---- operations (ops.c) -------------------------------------------------- */

/*
 * The basic kind an accumulate computes on. MPI_CHAR has no predefined op
 * in MPI-3.1, but Open MPI and MPICH both accept it in one-sided
 * accumulates (the OSU benchmarks rely on it): there it is the C char it
 * is, signed or not as the compiler has it.
 */
static inline enum rc_basic rma_acc_basic(enum rc_basic b)
{
	if (b != RC_BASIC_CHAR)
		return b;
	return (char)-1 < 0 ? RC_BASIC_SIGNED_CHAR : RC_BASIC_UNSIGNED_CHAR;
}

/* Is op (predefined) defined for accumulates on dt's basic kind? */
static inline bool rma_acc_valid(const struct rc_op *op,
				 const struct rc_dtype *dt)
{
	if (dt->basic == RC_BASIC_NONE)
		return false;
	if (op->kind == RC_OP_REPLACE || op->kind == RC_OP_NO_OP)
		return true;
	return rc_op_valid_for(op, rc_dt_of_basic(rma_acc_basic(dt->basic)));
}

/* An operation at the origin, while not complete. */
struct rma_op {
	struct rc_list link;	/* win->ops */
	struct rc_am_stream st;	/* the outbound stream */
	struct rc_inst *inst;
	struct rc_win *win;
	int target;		/* window rank */
	struct rma_op_hdr hdr;
	char *desc;		/* the target type's description */
	size_t desc_len;
	const void *obuf;	/* data sent */
	size_t ocount;
	struct rc_dtype *odt;	/* retained */
	size_t esize;		/* data messages carry whole elements */
	size_t pos;		/* bytes of description + data sent */
	bool hdr_sent;		/* the first message has left */
	bool sending;
	void *rbuf;		/* where the result goes */
	size_t rcount;
	struct rc_dtype *rdt;	/* retained */
	size_t rlen, rgot;
	bool want_reply;
	struct rc_req *req;	/* request-based operations */
	int err;
};

/* Target side: the stream arriving from one origin. */
struct rma_in {
	bool active;
	struct rma_op_hdr h;
	struct rc_win *win;	/* NULL: window unknown, bytes skipped */
	char *desc;
	size_t dgot;
	struct rc_dtype *dt;	/* the target datatype (retained) */
	char *tbuf;		/* the target buffer (element 0) */
	size_t got;		/* data bytes consumed */
	int err;
	char *old;		/* get_accumulate, cas: the old values */
	size_t oldlen;
	char cas[2 * 32];	/* cas: origin value and compare value */
};

/* Apply data bytes [off, off + n) of an operation's stream to the target
 * buffer (tbuf, count, dt): put, accumulate (op), get_accumulate (old
 * values saved into old + off first). The caller holds the window's agent
 * (the target's progress, or the shared lock). */
void rma_apply(int type, const struct rc_op *op, struct rc_dtype *dt,
	       size_t count, char *tbuf, size_t off, const void *data,
	       size_t n, char *old);
void rma_on_op(struct rc_rma *rma, int wsrc, const void *msg, size_t len);
void rma_on_reply(struct rc_rma *rma, int wsrc, const void *msg, size_t len);
/* PING, once a second, the targets of operations awaiting a reply (see
 * RMA_PING). */
void rma_ops_probe(struct rc_rma *rma, double now);
/* Fail every operation of win to target t (its process failed). */
void rma_ops_fail_target(struct rc_win *win, int t, int status);
void rma_in_reset(struct rma_in *in);
/* Is b a C or Fortran integer kind (device atomics: fetch-add for SUM)? */
bool rma_basic_is_int(enum rc_basic b);
/* The elements of (buf, count, dt) in type-map order: rma_walk_next
 * gives the address of the next es bytes. */
struct elem_walk {
	const struct rc_dtype *dt;
	char *buf;
	size_t i, j, in;
};
char *rma_walk_next(struct elem_walk *w, size_t es);
/* What every operation to window rank t checks first (rc_rma_op): an
 * epoch open to it, the target range (*tbuf: the data there when the
 * target's memory is mapped here), the target alive. */
int rma_op_check(struct rc_win *win, int t, MPI_Aint disp, size_t tcount,
		 const struct rc_dtype *tdt, char **tbuf);
/* A direct or device operation to t is over: nout, then its request or
 * the target's error for the next synchronisation. */
void rma_dop_end(struct rc_win *win, int t, struct rc_req *req, int status);
int rma_dop_atomic(struct rc_win *win, int t, enum rc_tp_atomic kind,
		   uint64_t operand, uint64_t compare, void *result,
		   uint64_t raddr, struct rc_req *req);
/* room found no room: kick it from progress until rma_room_done. */
void rma_room_wait(struct rc_rma *rma, struct rma_room *room,
		   void (*kick)(struct rma_room *room));
void rma_room_done(struct rma_room *room);
/* Kick every waiting operation once; events. */
unsigned rma_room_progress(struct rc_rma *rma);

/* ---- the device agent (atomic.c) ----------------------------------------- */
/* An accumulate, get_accumulate or compare_and_swap of 8-byte integers on
 * a device-agent window: RC_OK (started, counted in nout), RC_AGAIN (not
 * for the device: active messages), or an error. */
int rma_atomic_op(struct rc_win *win, const struct rc_rma_args *a,
		  struct rc_req *req);

/* ---- device lock words (dlock.c) ----------------------------------------- */
/* Our lock block, exposed on tp for its atomics: RC_OK with its address
 * and key, or why not (then the device cannot be the agent). */
int rma_dlock_expose(struct rc_win *win, struct rc_tp *tp, uint64_t *addr,
		     void *key);
/* Release the block and every lock state (window free; not the agent). */
void rma_dlock_close(struct rc_win *win);
/* Lock target t (win->tg[t].lock says how): take a ticket. */
void rma_dlock_take(struct rc_win *win, int t);
/* Is the lock at t ours yet? Repairs what dead members left meanwhile;
 * a wait past rma_dl_tell_after seconds is reported once, on stderr. */
bool rma_dlock_granted(struct rc_win *win, int t, int *err);
extern double rma_dl_tell_after; /* 20 s (a unit test lowers it) */
/* Give the lock at t back (every operation on it complete). */
void rma_dlock_release(struct rc_win *win, int t);
/* Everything of ours at t posted (after a release: the lock is on its
 * way back; it finishes from progress); a failure not reported yet in
 * *err. */
bool rma_dlock_posted(struct rc_win *win, int t, int *err);
/* Every release of ours finished (window free, before its allreduce). */
bool rma_dlock_quiet(struct rc_win *win);

/* Dynamic window: the key of target t's attached region that holds
 * [lo, hi), or NULL (not known yet: the question goes out, the caller
 * takes the AM path). */
const uint8_t *rma_dyn_key(struct rc_win *win, int t, uint64_t lo,
			   uint64_t hi);
/* RMA_REGQ, RMA_REGR, RMA_REGINV. */
void rma_on_reg(struct rc_rma *rma, int wsrc, const void *msg, size_t len);

/* Locally complete: nothing of win to t (or every target, t -1) still
 * streaming out or awaiting a reply. */
bool rma_local_done(const struct rc_win *win, int t);

/* ---- synchronisation messages (sync.c) ----------------------------------- */
void rma_on_sync(struct rc_rma *rma, int wsrc, const struct rma_hdr *h);
/* Target side: forget the locks and waits of a failed origin. */
void rma_sync_target_failed(struct rc_win *win, int t);
/* Send a message of win to window rank t: RC_OK or why not. */
int rma_send(struct rc_win *win, int t, int type, unsigned flags,
	     uint64_t arg);

#endif
