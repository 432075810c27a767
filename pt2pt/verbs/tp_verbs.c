/*
 * tp_verbs.c - the verbs RC transport (InfiniBand and RoCE v2), behind the
 * contract of tp.h.
 *
 * Resources, per process: one PD, one CQ for sends and receives, one
 * shared receive queue (SRQ) of equal buffers, a pool of registered bounce
 * buffers, a registered array of credit slots (two 8-byte words per rank),
 * a registration cache; per verbs peer, one RC QP attached to the SRQ and
 * the CQ. Memory for receives does not grow with peers (verbs_credit.h).
 *
 * Wiring: through the modex (verbs_qp.c) or rdma_cm on first use
 * (verbs_cm.c); RCMPI_VERBS_CM=auto, the default, chooses by job size and
 * link layer (verbs_dev.c).
 *
 * Active messages: [vb_hdr | engine header | payload] in one SEND. Up to the
 * QP's inline limit the three pieces go as a gather list with
 * IBV_SEND_INLINE (no copy, no registration, buffers reusable at once);
 * above it they are copied into a bounce buffer. A sender needs a credit
 * per message (verbs_credit.h); without one, or without room in the send
 * queue or a bounce buffer, am_send answers RC_AGAIN and the engine retries
 * in order. vb_hdr.credits piggy-backs the credits we return to the peer.
 *
 *   sender                                  receiver
 *   SEND [credits=Lr | hdr | data] -------> SRQ buffer -> recv upcall
 *                                           ... batch reposted (<= 16),
 *                                           rx.limit += n
 *   <-- SEND [credits=Ls | ...] (any message our way carries the limit)
 *   <-- RDMA WRITE slot[s] = Ls  (half a window owed, and still owed at the
 *                                 next progress call: no traffic our way)
 *
 * Busy peers send small messages into an eager ring of ours instead, by
 * RDMA WRITE (verbs_fp.c); vb_hdr.seq keeps both paths in order.
 *
 * Rendezvous: get = RDMA READ, put = RDMA WRITE, both signaled, from
 * memory registered through the cache (mem_expose puts rkey and address in
 * the key). The engine pipelines chunks of rdma_chunk bytes, max_rdma at a
 * time per request.
 *
 * Completions: wr_id points at the send-queue slot (struct vb_swr) of the
 * WR, or at the receive buffer with bit 0 set. Sends are signaled one in
 * RCMPI_VERBS_SIGNAL (inline) or always (bounce, get, put); a completion
 * retires every earlier WR of its QP. The CQ is polled 16 entries at a
 * time; consumed receive buffers are reposted RCMPI_VERBS_RX_BATCH at a
 * time in one call, or sooner when a peer is owed half its window.
 *
 * Errors: a failed completion names both ranks and hosts, device, port, QP
 * numbers and ibv_wc_status_str, then ends the job - or, when
 * MPI_COMM_WORLD's error handler is not fatal, marks the peer failed:
 * its outstanding get/put complete with RC_ERR_PEER and new operations are
 * refused with RC_ERR_PEER.
 *
 * Close: a signaled RDMA WRITE flushes each QP with unsignaled sends still
 * unconfirmed, their completions are awaited, then one PMIx fence, so no
 * rank destroys a QP its peer still sends on.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "comm.h"
#include "compiler.h"
#include "errhandler.h"
#include "inst.h"
#include "log.h"
#include "param.h"
#include "status.h"
#include "tp_verbs.h"
#include "verbs.h"
#include "verbs_hooks.h"

#define VB_POLL 16	 /* completions per poll */
#define VB_POST_BATCH 64 /* receives per post call */
#define VB_KEY_MAGIC 0x7662u

/* What mem_expose writes into the engine's key bytes. */
struct vb_key {
	uint32_t rkey;
	uint16_t magic;
	uint16_t rsvd;
	uint64_t addr;
};

const char *vb_peer_host(const struct vb_tp *vt, int wrank)
{
	const struct rc_inst *inst = vt->inst;

	if (inst->procs && inst->procs[wrank].host[0])
		return inst->procs[wrank].host;
	return "?";
}

static bool errors_fatal(struct vb_tp *vt)
{
	struct rc_comm *w = vt->inst->world;

	return !w || !w->errh || w->errh->kind == RC_EH_FATAL;
}

void vb_peer_fail(struct vb_tp *vt, struct vb_peer *p, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	if (p->state == VB_PEER_FAILED)
		return;
	p->state = VB_PEER_FAILED;
	if (p->dq_head) /* (failed from progress, not inside a post) */
		vt->dq_failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (vt->closing) {
		rc_log_debug("verbs: at close, rank %d on %s: %s", p->wrank,
			     vb_peer_host(vt, p->wrank), what);
		return;
	}
	rc_log_err("verbs: connection to rank %d on %s failed: %s (device %s "
		   "port %u, local QP 0x%x, rank %d's QP 0x%x)",
		   p->wrank, vb_peer_host(vt, p->wrank), what, vt->dev_name,
		   vt->port, p->qp ? p->qp->qp_num : 0, p->wrank, p->rqpn);
	if (errors_fatal(vt))
		rc_abort(vt->inst, MPI_ERR_PROC_FAILED,
			 "verbs: ending the job after a connection failure "
			 "(MPI_ERRORS_ARE_FATAL)");
	/* MPI_ERRORS_RETURN: pt2pt fails what waits on the peer */
	if (vt->tp.failed)
		vt->tp.failed(vt->inst, p->wrank, RC_ERR_PEER);
}

/* ---- buffers ---- */

static void slab_free(struct vb_tp *vt, struct vb_slab *s)
{
	if (s->mr)
		vt->ops->dereg_mr(s->mr);
	free(s->mem);
	free(s->bufs);
	free(s);
}

static struct vb_slab *slab_new(struct vb_tp *vt, unsigned n, const char *what)
{
	struct vb_slab *s = calloc(1, sizeof(*s));
	size_t len = (size_t)n * vt->buf_size;
	unsigned i;
	int err;

	if (!s)
		return NULL;
	s->n = n;
	s->bufs = calloc(n, sizeof(*s->bufs));
	len = (len + 4095) & ~(size_t)4095;
	if (!s->bufs || posix_memalign(&s->mem, 4096, len)) {
		free(s->bufs);
		free(s);
		return NULL;
	}
	s->mr = vt->ops->reg_mr(vt->pd, s->mem, len, IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr) {
		err = errno;
		rc_log_err(
			"verbs: ibv_reg_mr of %u %s buffers (%zu KiB) on %s: "
			"%s%s",
			n, what, len >> 10, vt->dev_name, strerror(err),
			vb_memlock_hint(err));
		vb_set_open_error("cannot register %s buffers on %s: %s%s",
				  what, vt->dev_name, strerror(err),
				  vb_memlock_hint(err));
		slab_free(vt, s);
		errno = err;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		s->bufs[i].data = (char *)s->mem + (size_t)i * vt->buf_size;
		s->bufs[i].lkey = s->mr->lkey;
	}
	return s;
}

/* Post a chain of receive buffers (linked by next) to the SRQ. */
static int rx_post(struct vb_tp *vt, struct vb_buf *b)
{
	struct ibv_recv_wr wr[VB_POST_BATCH], *bad;
	struct ibv_sge sge[VB_POST_BATCH];
	int n, err;

	while (b) {
		for (n = 0; b && n < VB_POST_BATCH; n++, b = b->next) {
			sge[n].addr = (uintptr_t)b->data;
			sge[n].length = (uint32_t)vt->buf_size;
			sge[n].lkey = b->lkey;
			wr[n].wr_id = (uintptr_t)b | VB_WRID_RECV;
			wr[n].sg_list = &sge[n];
			wr[n].num_sge = 1;
			wr[n].next = &wr[n + 1];
		}
		wr[n - 1].next = NULL;
		err = rc_vops_post_srq_recv(vt->ops, vt->srq, wr, &bad);
		if (err) {
			rc_log_err("verbs: ibv_post_srq_recv on %s: %s",
				   vt->dev_name, strerror(err));
			return RC_ERR_IO;
		}
	}
	return RC_OK;
}

/* Add n receive buffers (a new slab) to the SRQ and the credit pool. */
static int rx_grow(struct vb_tp *vt, unsigned n)
{
	struct vb_slab *s = slab_new(vt, n, "receive");
	unsigned i;
	int ret;

	if (!s)
		return errno == ENOMEM ? RC_ERR_NOMEM : RC_ERR_IO;
	for (i = 0; i + 1 < n; i++)
		s->bufs[i].next = &s->bufs[i + 1];
	s->bufs[n - 1].next = NULL;
	ret = rx_post(vt, s->bufs);
	if (ret) {
		slab_free(vt, s);
		return ret;
	}
	s->next = vt->rx_slabs;
	vt->rx_slabs = s;
	vt->pool.total += n;
	vt->pool.free += n;
	return RC_OK;
}

static int tx_grow(struct vb_tp *vt, unsigned n)
{
	struct vb_slab *s = slab_new(vt, n, "send");
	unsigned i;

	if (!s)
		return errno == ENOMEM ? RC_ERR_NOMEM : RC_ERR_IO;
	for (i = 0; i < n; i++) {
		s->bufs[i].next = vt->bounce;
		vt->bounce = &s->bufs[i];
	}
	vt->nbounce += n;
	s->next = vt->tx_slabs;
	vt->tx_slabs = s;
	return RC_OK;
}

uint32_t vb_rx_grant(struct vb_tp *vt, struct vb_peer *p)
{
	uint32_t want = vt->pool.free / 4;

	if (want > vt->prm.credits)
		want = vt->prm.credits;
	if (want < vt->prm.credits_min) {
		unsigned grow = vt->prm.credits_min * 16;
		unsigned used = vt->prm.send_cqe + vt->pool.total;
		unsigned room =
			(unsigned)vt->cq_size > used ? vt->cq_size - used : 0;

		/* grow the SRQ while the CQ can take its completions: by
		 * what is left of that room when less (a first window of
		 * 0 would leave the peer unable ever to send) */
		if (grow > room)
			grow = room;
		if (grow >= vt->prm.credits_min && rx_grow(vt, grow) == RC_OK)
			rc_log_debug("verbs: SRQ grown to %u buffers",
				     vt->pool.total);
		want = vt->prm.credits_min;
	}
	if (want > vt->pool.free) {
		static bool warned;

		if (!warned)
			rc_log_warn(
				"verbs: %u receive buffers cannot give rank %d "
				"more than %u credits now (the CQ of %s holds "
				"%d): it gets more as silent peers give theirs "
				"back; raise RCMPI_VERBS_RQ_SIZE",
				vt->pool.total, p->wrank, vt->pool.free,
				vt->dev_name, vt->cq_size);
		warned = true;
		vt->short_windows = true;
	}
	return vb_rx_open(&vt->pool, &p->rx, want);
}

void vb_rx_ungrant(struct vb_tp *vt, struct vb_peer *p)
{
	vb_rx_close(&vt->pool, &p->rx);
}

/* ---- registration cache callbacks ---- */

static int rcache_reg(void *ctx, void *addr, size_t len, void **mr,
		      uint32_t *lkey, uint32_t *rkey)
{
	struct vb_tp *vt = ctx;
	struct ibv_mr *m = vt->ops->reg_mr(vt->pd, addr, len, vb_access(vt));

	if (!m)
		return errno ? errno : EIO;
	*mr = m;
	*lkey = m->lkey;
	*rkey = m->rkey;
	return 0;
}

static void rcache_dereg(void *ctx, void *mr)
{
	struct vb_tp *vt = ctx;

	vt->ops->dereg_mr(mr);
}

static const struct rc_rcache_reg_ops vb_rcache_ops = {
	.reg = rcache_reg,
	.dereg = rcache_dereg,
};

/* ---- resources ---- */

static void res_close(struct vb_tp *vt)
{
	const struct rc_verbs_ops *ops = vt->ops;
	struct vb_slab *s;

	if (vt->rcache)
		rc_rcache_free(vt->rcache);
	vt->rcache = NULL;
	if (vt->slots_mr)
		ops->dereg_mr(vt->slots_mr);
	vt->slots_mr = NULL;
	free(vt->slots);
	vt->slots = NULL;
	while ((s = vt->tx_slabs)) {
		vt->tx_slabs = s->next;
		slab_free(vt, s);
	}
	vt->bounce = NULL;
	if (vt->srq)
		ops->destroy_srq(vt->srq);
	vt->srq = NULL;
	while ((s = vt->rx_slabs)) {
		vt->rx_slabs = s->next;
		slab_free(vt, s);
	}
	if (vt->cq)
		ops->destroy_cq(vt->cq);
	vt->cq = NULL;
	if (vt->pd)
		ops->dealloc_pd(vt->pd);
	vt->pd = NULL;
	vt->resources = false;
}

/* PD, CQ, SRQ with nrx buffers (room to grow to srq_max), bounce buffers,
 * credit slots, registration cache. */
static int res_open(struct vb_tp *vt, unsigned nrx, unsigned srq_max)
{
	const struct rc_verbs_ops *ops = vt->ops;
	struct rc_inst *inst = vt->inst;
	struct ibv_srq_init_attr sa;
	size_t slots_len;
	int err, ret;

	/* fork(): with rdma-core >= 35 on kernels >= 5.13 fork needs nothing
	 * and this is a no-op; on older ones it marks registered memory
	 * MADV_DONTFORK so a child cannot corrupt it */
	err = ops->fork_init();
	if (err)
		rc_log_debug("verbs: ibv_fork_init: %s (fork() after MPI_Init "
			     "is unsafe)",
			     strerror(err));
	vt->pd = ops->alloc_pd(vt->ctx);
	if (!vt->pd) {
		err = errno;
		rc_log_err("verbs: ibv_alloc_pd on %s: %s%s", vt->dev_name,
			   strerror(err), vb_memlock_hint(err));
		return RC_ERR_IO;
	}
	if (srq_max > (unsigned)vt->dattr.max_srq_wr)
		srq_max = (unsigned)vt->dattr.max_srq_wr;
	if (srq_max + vt->prm.send_cqe > (unsigned)vt->dattr.max_cqe)
		srq_max = (unsigned)vt->dattr.max_cqe - vt->prm.send_cqe;
	if (nrx > srq_max)
		nrx = srq_max;
	vt->cq_size = (int)(srq_max + vt->prm.send_cqe);
	vt->scq_avail = vt->prm.send_cqe;
	vt->cq = ops->create_cq(vt->ctx, vt->cq_size);
	if (!vt->cq) {
		err = errno;
		rc_log_err("verbs: ibv_create_cq(%d) on %s: %s%s", vt->cq_size,
			   vt->dev_name, strerror(err), vb_memlock_hint(err));
		ret = RC_ERR_IO;
		goto err_close;
	}
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = srq_max;
	sa.attr.max_sge = 1;
	vt->srq = ops->create_srq(vt->pd, &sa);
	if (!vt->srq) {
		err = errno;
		rc_log_err("verbs: ibv_create_srq(%u) on %s: %s%s", srq_max,
			   vt->dev_name, strerror(err), vb_memlock_hint(err));
		ret = RC_ERR_IO;
		goto err_close;
	}
	ret = rx_grow(vt, nrx);
	if (ret)
		goto err_close;
	ret = tx_grow(vt, vt->prm.bounce);
	if (ret)
		goto err_close;
	/* two words per rank written by it (credits, ring credits), two
	 * per rank we write from */
	slots_len = (size_t)inst->size * 4 * sizeof(uint64_t);
	vt->slots = calloc(1, slots_len);
	if (!vt->slots) {
		ret = RC_ERR_NOMEM;
		goto err_close;
	}
	vt->slots_mr =
		ops->reg_mr(vt->pd, vt->slots, slots_len,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!vt->slots_mr) {
		err = errno;
		rc_log_err("verbs: ibv_reg_mr of the credit slots on %s: %s%s",
			   vt->dev_name, strerror(err), vb_memlock_hint(err));
		ret = RC_ERR_IO;
		goto err_close;
	}
	vt->rcache = rc_rcache_new(&vb_rcache_ops, vt, vt->prm.rcache_entries,
				   vt->prm.rcache_bytes, vt->prm.rcache);
	if (!vt->rcache) {
		ret = RC_ERR_NOMEM;
		goto err_close;
	}
	vt->resources = true;
	return RC_OK;

err_close:
	/* res_close undoes whatever exists, in reverse order */
	res_close(vt);
	return ret;
}

/* ---- peers ---- */

int vb_peer_sq_alloc(struct vb_tp *vt, struct vb_peer *p)
{
	if (p->sq)
		return RC_OK;
	p->sq = calloc(vt->prm.sq_size, sizeof(*p->sq));
	return p->sq ? RC_OK : RC_ERR_NOMEM;
}

/*
 * The READ and atomic fence (RCMPI_VERBS_RD_FENCE).
 *
 * Soft-RoCE's completer (rxe_comp.c, Linux 6.1 and later as we read it)
 * can complete an RDMA READ or an atomic successfully without writing
 * its data, in two ways:
 *  - a plain ACK carrying the READ's or atomic's PSN completes it
 *    (check_ack takes any ACK for the WQE it names, COMPST_WRITE_SEND ->
 *    COMPST_COMP_ACK). The responder sends one when a duplicate SEND or
 *    WRITE arrives after the READ or atomic ran: it acknowledges again
 *    up to the last PSN it executed. A resend brings such a duplicate
 *    whenever the answer to the READ or atomic was lost while a SEND or
 *    WRITE before it was not yet acknowledged: the requester resends
 *    both;
 *  - a response behind the completer's expected PSN that is the last of
 *    the oldest pending WQE completes it as an acknowledgement
 *    (check_psn's COMPST_COMP_ACK), with no copy; the expected PSN moves
 *    past a pending READ or atomic when a request behind it was lost and
 *    the next one arrived (the responder's sequence NAK "acknowledges"
 *    everything before).
 * The result buffer keeps what it held: a fetch-and-add's old value or a
 * get's bytes, silently wrong. (Two VMs whose link lost, duplicated and
 * delayed frames: a lock ticket read as the old value of a holder word,
 * every rank behind it waiting for ever, issue 15's rare two-VM
 * rma_counter time-out; and two fetch-and-adds with one old value.)
 *
 * So on such a device a READ or atomic to another device goes alone: it
 * waits until every earlier WR of its QP has completed, and nothing more
 * is posted on the QP until it completes. Gets, puts and atomics that
 * cannot go yet are held back in order (struct vb_defer, posted from the
 * completions: the caller sees them in progress, as the RMA module's
 * direct path needs, which would otherwise take the target's CPU);
 * messages meanwhile see a full queue (vb_sq_room counts sq_fence, the
 * whole queue) and wait. Over a link that keeps frames in order that closes
 * both ways; a link that reorders frames (delaying an old duplicate past
 * the READ or atomic) can still hit the first. Ranks on one device talk
 * through its loopback, which loses nothing: no fence there. On other
 * devices RCMPI_VERBS_RD_FENCE=1 turns it on, =0 off everywhere.
 */
static bool vb_is_rxe(const struct vb_tp *vt)
{
	/* (rxe's vendor ID; a renamed rxe device keeps it) */
	return vt->dattr.vendor_id == 0xffffff ||
	       !strncmp(vt->dev_name, "rxe", 3);
}

static bool vb_rd_fence_wanted(const struct vb_tp *vt)
{
	if (vt->prm.rd_fence >= 0)
		return vt->prm.rd_fence;
	return vb_is_rxe(vt);
}

/* A device whose work the kernel does on the host's cores: Soft-RoCE or
 * siw (vendor ID "bmt"). */
static bool vb_is_soft(const struct vb_tp *vt)
{
	return vb_is_rxe(vt) || vt->dattr.vendor_id == 0x626d74 ||
	       !strncmp(vt->dev_name, "siw", 3);
}

/* A connected peer's fence (pa: its address, NULL if unknown: fenced). */
static void vb_peer_fence_init(struct vb_tp *vt, struct vb_peer *p,
			       const struct vb_addr *pa)
{
	bool same =
		pa && pa->guid == vt->dattr.node_guid && pa->port == vt->port;

	p->sq_fence = 0;
	p->rd_out = false;
	p->rd_fence = vt->rd_fence && !same;
	vt->n_fenced += p->rd_fence;
}

void vb_peer_connected(struct vb_tp *vt, struct vb_peer *p, uint32_t tx_credits,
		       uint64_t slot_addr, uint32_t slot_rkey)
{
	vb_peer_fence_init(vt, p, vb_peer_addr(vt, p->wrank, true));
	vb_tx_init(&p->tx, tx_credits);
	p->credit_raddr =
		slot_addr + (uint64_t)vt->inst->rank * 2 * sizeof(uint64_t);
	p->credit_rkey = slot_rkey;
	p->state = VB_PEER_CONNECTED;
	/* credits returned while we were connecting may be due already */
	if (vb_rx_update_due(&p->rx))
		vb_credit_due(vt, p);
	rc_log_debug(
		"verbs: connected to rank %d (QP 0x%x -> 0x%x, %u credits)",
		p->wrank, p->qp->qp_num, p->rqpn, tx_credits);
}

void vb_credit_due(struct vb_tp *vt, struct vb_peer *p)
{
	if (!p->on_dirty) {
		p->on_dirty = true;
		p->next_dirty = vt->dirty;
		vt->dirty = p;
	}
	vt->refill_now = true;
}

/* Take the oldest of what p holds back (there is one;
 * the READ and atomic fence, below). */
static struct vb_defer *defer_pop(struct vb_peer *p)
{
	struct vb_defer *d = p->dq_head;

	p->dq_head = d->next;
	if (!p->dq_head)
		p->dq_tail = NULL;
	return d;
}

static void peer_release(struct vb_tp *vt, struct vb_peer *p)
{
	while (p->dq_head) /* (held back at close: nobody waits now) */
		free(defer_pop(p));
	vb_fp_release(vt, p);
	vb_qp_destroy(vt, p);
	free(p->sq);
	p->sq = NULL;
}

/* ---- open ---- */

/* Which peers will we reach through verbs? Those shared memory won't:
 * other nodes, or everyone when shm is not in RCMPI_TRANSPORTS. */
static bool peer_expected(struct vb_tp *vt, int w, bool shm)
{
	struct rc_inst *inst = vt->inst;
	int i;

	if (w == inst->rank)
		return false;
	if (!shm)
		return true;
	for (i = 0; i < inst->local_size; i++)
		if (inst->local_peers && inst->local_peers[i] == w)
			return false;
	return true;
}

/* A peer shared memory reaches, to which we still want a QP: for device
 * atomics only (no messages, no credits), so that every member of a
 * window can use the device as its atomic agent (rma/README.md). */
static bool peer_atomic_only(struct vb_tp *vt, int w, bool shm)
{
	return vt->atomic_local && w != vt->inst->rank &&
	       !peer_expected(vt, w, shm);
}

static void vb_teardown(struct vb_tp *vt);

static uint8_t addr_wire(const struct vb_tp *vt)
{
	return vt->prm.ud   ? VB_ADDR_UD
	       : vt->prm.cm ? VB_ADDR_RDMACM
			    : VB_ADDR_MODEX;
}

static int vb_open(struct rc_inst *inst, struct rc_tp **tpp)
{
	struct vb_tp *vt = calloc(1, sizeof(*vt));
	bool shm = rc_param_list_has(rc_param_str(RC_P_TRANSPORTS), "shm");
	struct vb_addr *addr;
	size_t alen, tab;
	unsigned nexp = 0, nloc = 0, nrx, init = 0, srq_max;
	int w, ret;

	if (!vt)
		return RC_ERR_NOMEM;
	vt->ops = rc_verbs_ops;
	vt->inst = inst;
	vt->tp.ops = &rc_tp_verbs_ops;
	vt->tp.inst = inst;
	vt->tp.name = "verbs";
	vt->gid_index = -1;
	ret = vb_params_read(&vt->prm, inst->size);
	if (ret)
		goto err_free;
	ret = vb_dev_open(vt);
	if (ret)
		goto err_free;

	vt->peers = calloc(inst->size, sizeof(*vt->peers));
	if (vt->prm.fp_rings) {
		vt->fp_rx = calloc(vt->prm.fp_rings, sizeof(*vt->fp_rx));
		if (!vt->fp_rx) {
			ret = RC_ERR_NOMEM;
			goto err_dev;
		}
	}
	for (tab = 16; tab < (size_t)inst->size * 4; tab <<= 1)
		;
	vt->qpn_tab = calloc(tab, sizeof(*vt->qpn_tab));
	vt->qpn_mask = (uint32_t)tab - 1;
	if (!vt->peers || !vt->qpn_tab) {
		ret = RC_ERR_NOMEM;
		goto err_dev;
	}
	/* QPs to the peers on our node too, for device atomics: modex
	 * wiring, a device that has them, RCMPI_RMA_ATOMIC not am */
	vt->atomic_local = shm && !vt->prm.cm &&
			   vt->dattr.atomic_cap != IBV_ATOMIC_NONE &&
			   strcmp(rc_param_str(RC_P_RMA_ATOMIC), "am");
	for (w = 0; w < inst->size; w++) {
		vt->peers[w].vt = vt;
		vt->peers[w].wrank = w;
		nexp += peer_expected(vt, w, shm);
		nloc += peer_atomic_only(vt, w, shm);
	}

	vt->inline_max = vt->prm.inline_max;
	vt->rd_fence = vb_rd_fence_wanted(vt);
	if (vb_is_soft(vt))
		inst->soft_device = true;
	vt->tp.max_am = (vt->prm.eager_limit + 64 + 63) & ~(size_t)63;
	if (vt->tp.max_am < 128)
		vt->tp.max_am = 128;
	vt->buf_size =
		(sizeof(struct vb_hdr) + vt->tp.max_am + 63) & ~(size_t)63;
	vt->tp.eager_limit = vt->prm.eager_limit;
	/* every size: one WRITE or READ, no target CPU, no message */
	vt->tp.direct_min = 1;
	vt->tp.caps = RC_TP_CAP_GET | RC_TP_CAP_PUT;
	/* an SGE's length is 32 bits; rxe takes at most 8 MiB per message */
	vt->tp.rdma_max =
		vt->pattr.max_msg_sz ? vt->pattr.max_msg_sz : UINT32_MAX;
	vt->tp.rdma_chunk = vt->prm.rdma_chunk;
	if (vt->tp.rdma_chunk > vt->tp.rdma_max)
		vt->tp.rdma_chunk = vt->tp.rdma_max;
	vt->tp.max_rdma = vt->prm.max_rdma;
	/* small get/put/atomic through a bounce buffer: a copy of up to
	 * 2 KiB costs less than the registration cache's lookup and release
	 * (about 400 instructions, callgrind) */
	vt->tp.rdma_small = vt->buf_size < 2048 ? vt->buf_size : 2048;

	if (nexp || nloc) {
		/* Modex: every expected peer gets its window now, so the SRQ
		 * holds at least credits_min per peer. rdma_cm: windows are
		 * given as connections come, growing the SRQ when needed. */
		nrx = vt->prm.rq_size;
		if (!vt->prm.cm) {
			if (nrx < nexp * vt->prm.credits_min)
				nrx = nexp * vt->prm.credits_min;
			srq_max = nrx;
		} else {
			srq_max = nexp * vt->prm.credits_min * 2;
			if (srq_max < nrx * 4)
				srq_max = nrx * 4;
			if (srq_max > 65536)
				srq_max = 65536;
		}
		ret = res_open(vt, nrx, srq_max);
		if (ret)
			goto err_dev;
		if (!vt->prm.cm) {
			if (vt->pool.total < nexp * vt->prm.credits_min) {
				rc_log_err("verbs: %s cannot hold %u receive "
					   "buffers for %u peers (CQ limit %d)",
					   vt->dev_name,
					   nexp * vt->prm.credits_min, nexp,
					   vt->dattr.max_cqe);
				ret = RC_ERR_NOMEM;
				goto err_peers;
			}
			init = nexp ? vt->pool.total / nexp : 0;
			if (init > vt->prm.credits)
				init = vt->prm.credits;
			for (w = 0; w < inst->size; w++) {
				struct vb_peer *p = &vt->peers[w];
				bool loc = peer_atomic_only(vt, w, shm);

				if (!loc && !peer_expected(vt, w, shm))
					continue;
				ret = vb_qp_new(vt, p);
				if (ret)
					goto err_peers;
				p->atomic_only = loc;
				if (!loc) /* atomics only: no receive window */
					vb_rx_open(&vt->pool, &p->rx, init);
			}
			vt->modex_qps = true;
		} else {
			ret = vt->prm.ud ? vb_ud_open(vt) : vb_cm_open(vt);
			if (ret)
				goto err_peers;
		}
	}

	alen = sizeof(*addr) + (vt->modex_qps ? (size_t)inst->size * 4 : 0);
	addr = calloc(1, alen);
	if (!addr) {
		ret = RC_ERR_NOMEM;
		goto err_peers;
	}
	addr->magic = VB_ADDR_MAGIC;
	addr->cm = addr_wire(vt);
	addr->link_layer = vt->pattr.link_layer;
	addr->port = vt->port;
	addr->mtu = (uint8_t)vt->pattr.active_mtu;
	addr->lid = vt->pattr.lid;
	addr->rd_atom =
		(uint8_t)(vt->prm.rd_atom < (unsigned)vt->dattr.max_qp_rd_atom
				  ? vt->prm.rd_atom
				  : (unsigned)vt->dattr.max_qp_rd_atom);
	addr->gid_index = (uint8_t)(vt->gid_index < 0 ? 0 : vt->gid_index);
	memcpy(addr->gid, vt->gid.raw, 16);
	addr->guid = vt->dattr.node_guid;
	addr->init_credits = init;
	addr->max_am = (uint32_t)vt->tp.max_am;
	if (vt->slots_mr) {
		addr->credit_rkey = vt->slots_mr->rkey;
		addr->credit_addr = (uintptr_t)vt->slots;
	}
	if (vt->cm) {
		addr->ipv4 = vt->ipv4;
		addr->cm_port = vb_cm_port(vt);
	}
	addr->ud_qpn = vb_ud_qpn(vt);
	memcpy(addr->dev, vt->dev_name,
	       strnlen(vt->dev_name, sizeof(addr->dev) - 1));
	if (vt->modex_qps) {
		addr->nqpn = (uint32_t)inst->size;
		for (w = 0; w < inst->size; w++)
			addr->qpn[w] =
				vt->peers[w].qp ? vt->peers[w].qp->qp_num : 0;
	}
	ret = rc_modex_add(inst, RC_MODEX_VERBS, addr, alen);
	free(addr);
	if (ret)
		goto err_peers;
	*tpp = &vt->tp;
	return RC_OK;

err_peers:
	vb_teardown(vt);
	return ret;
err_dev:
	vb_dev_close(vt);
err_free:
	free(vt->fp_rx);
	free(vt->peers);
	free(vt->qpn_tab);
	free(vt);
	return ret;
}

/* ---- reachability and connection ---- */

static const char *wire_name(uint8_t w)
{
	return w == VB_ADDR_UD	     ? "ud"
	       : w == VB_ADDR_RDMACM ? "rdmacm"
				     : "modex";
}

const struct vb_addr *vb_peer_addr(struct vb_tp *vt, int w, bool quiet)
{
	const void *data;
	const struct vb_addr *pa;
	size_t len;

	if (rc_modex_get(vt->inst, w, RC_MODEX_VERBS, &data, &len) ||
	    len < sizeof(*pa))
		return NULL;
	pa = data;
	if (pa->magic != VB_ADDR_MAGIC || len < sizeof(*pa) + pa->nqpn * 4u)
		return NULL;
	if (pa->cm != addr_wire(vt) || pa->link_layer != vt->pattr.link_layer) {
		if (!quiet)
			rc_log_err(
				"verbs: rank %d on %s uses %s over %s, we use "
				"%s over %s: RCMPI_VERBS_CM and the fabrics "
				"must match (auto wiring chooses rdmacm only "
				"on RoCE ports with an IPv4 address)",
				w, vb_peer_host(vt, w), wire_name(pa->cm),
				pa->link_layer == IBV_LINK_LAYER_ETHERNET
					? "RoCE"
					: "InfiniBand",
				wire_name(addr_wire(vt)),
				vt->pattr.link_layer == IBV_LINK_LAYER_ETHERNET
					? "RoCE"
					: "InfiniBand");
		return NULL;
	}
	return pa;
}

static bool vb_reachable(struct rc_tp *tp, int w)
{
	struct vb_tp *vt = (struct vb_tp *)tp;
	const struct vb_addr *pa;

	if (!vt->resources || vt->peers[w].atomic_only)
		return false; /* no receive window: never for messages */
	pa = vb_peer_addr(vt, w, false);
	if (!pa || !pa->credit_addr)
		return false;
	if (vt->prm.ud)
		return pa->ud_qpn != 0;
	if (vt->prm.cm)
		return pa->ipv4 && pa->cm_port;
	return vt->peers[w].qp && pa->nqpn > (uint32_t)vt->inst->rank &&
	       pa->qpn[vt->inst->rank];
}

/* A QP for device atomics only, to a peer shared memory reaches. */
static bool atomic_connect(struct vb_tp *vt, struct vb_peer *p)
{
	const struct vb_addr *pa = vb_peer_addr(vt, p->wrank, true);

	if (!pa || pa->nqpn <= (uint32_t)vt->inst->rank ||
	    !pa->qpn[vt->inst->rank] || vb_qp_connect(vt, p, pa))
		return false;
	vb_peer_fence_init(vt, p, pa);
	p->state = VB_PEER_CONNECTED;
	vt->natomic++;
	return true;
}

static int vb_connect(struct rc_tp *tp)
{
	struct vb_tp *vt = (struct vb_tp *)tp;
	struct rc_inst *inst = vt->inst;
	int w, ret;

	for (w = 0; w < inst->size; w++) {
		struct vb_peer *p = &vt->peers[w];
		const struct vb_addr *pa;

		if (inst->procs[w].tp != tp) {
			/* a QP made for a peer that another transport reaches:
			 * kept for device atomics when the peer made one for
			 * us too */
			if (p->qp && p->atomic_only && atomic_connect(vt, p))
				continue;
			if (p->qp) {
				vb_rx_close(&vt->pool, &p->rx);
				peer_release(vt, p);
			}
			continue;
		}
		vt->nverbs++;
		pa = vb_peer_addr(vt, w, false);
		if (!pa)
			return RC_ERR_UNREACH;
		/* never send more than the peer's receive buffers take (ranks
		 * may run with different RCMPI_VERBS_EAGER_LIMIT) */
		if (pa->max_am < vt->tp.max_am) {
			vt->tp.max_am = pa->max_am;
			if (vt->tp.eager_limit + 64 > vt->tp.max_am)
				vt->tp.eager_limit = vt->tp.max_am - 64;
		}
		if (vt->prm.cm) {
			p->state = VB_PEER_IDLE;
			continue;
		}
		ret = vb_qp_connect(vt, p, pa);
		if (ret)
			return ret;
		vb_peer_connected(vt, p, pa->init_credits, pa->credit_addr,
				  pa->credit_rkey);
	}
	/* device atomics: a device that has them (our QPs carry
	 * remote-atomic access: modex's by vb_access, rdma_cm's because we
	 * answer RDMA READs), and a loopback QP for our own memory; anything
	 * less: windows keep the CPU as their agent */
	if ((vt->nverbs || vt->natomic) && vt->rcache &&
	    vt->dattr.atomic_cap != IBV_ATOMIC_NONE &&
	    !vb_qp_loopback(vt, &vt->peers[inst->rank]))
		vt->tp.caps |= RC_TP_CAP_ATOMIC;
	if (vt->nverbs && vt->prm.mallopt && vt->prm.rcache)
		rc_verbs_hooks_malloc_tune();
	/* (QPs for atomics only need no fence: their first use is inside
	 * a window, created collectively after everyone's connect; their
	 * last ends before the window's free returns) */
	if (rc_tp_verbs_fences(inst, vt->nverbs, false)) {
		/* every QP we talk to is in RTR before anyone sends */
		ret = inst->boot.ops->fence(&inst->boot, false);
		if (ret)
			return ret;
	}
	if (vt->nverbs)
		rc_log_debug("verbs: %d peers over %s port %u (%s wiring), "
			     "inline %u, eager %zu, %u receive buffers",
			     vt->nverbs, vt->dev_name, vt->port,
			     wire_name(addr_wire(vt)), vt->inline_max,
			     vt->tp.eager_limit, vt->pool.total);
	return RC_OK;
}

/* ---- sending ---- */

static inline int vb_again(struct vb_tp *vt)
{
	vt->n_again++;
	return RC_AGAIN;
}

/* Not connected: start (on-demand wiring) or report. */
static int peer_not_ready(struct vb_tp *vt, struct vb_peer *p)
{
	switch (p->state) {
	case VB_PEER_FAILED:
		return RC_ERR_PEER;
	case VB_PEER_IDLE:
		if (vt->ud ? vb_ud_start(vt, p) : vb_cm_start(vt, p))
			return RC_ERR_PEER;
		return vb_again(vt);
	case VB_PEER_NONE:
		return RC_ERR_UNREACH;
	default:
		return vb_again(vt);
	}
}

/* Out of credits: look at the slot the peer writes. */
static bool tx_refresh(struct vb_tp *vt, struct vb_peer *p)
{
	uint64_t v =
		__atomic_load_n(&vt->slots[2 * p->wrank], __ATOMIC_ACQUIRE);
	uint32_t lim;

	if (vb_slot_unpack(v, &lim))
		vb_tx_update(&p->tx, lim);
	return vb_tx_avail(&p->tx) != 0;
}

static inline int post_msg(struct vb_tp *vt, struct vb_peer *p, uint8_t type,
			   const void *hdr, size_t hlen, const void *payload,
			   size_t len)
{
	size_t total = sizeof(struct vb_hdr) + hlen + len;
	struct ibv_send_wr wr;
	struct ibv_sge sge[3];
	struct vb_hdr vh;
	struct vb_buf *b;
	bool signal, again;
	int ret;

	if (RC_UNLIKELY(!vb_tx_avail(&p->tx)) && !tx_refresh(vt, p))
		return vb_again(vt);
	if (RC_UNLIKELY(!vb_sq_room(vt, p, VB_SQ_RESERVE)))
		return vb_again(vt);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = sge;
	if (total <= vt->inline_max) {
		signal = vb_sq_signal(vt, p, &again);
		if (RC_UNLIKELY(again))
			return vb_again(vt);
		vb_hdr_fill(p, &vh, type);
		sge[0].addr = (uintptr_t)&vh;
		sge[0].length = sizeof(vh);
		sge[0].lkey = 0;
		sge[1].addr = (uintptr_t)hdr;
		sge[1].length = (uint32_t)hlen;
		sge[1].lkey = 0;
		wr.num_sge = 2;
		if (len) {
			sge[2].addr = (uintptr_t)payload;
			sge[2].length = (uint32_t)len;
			sge[2].lkey = 0;
			wr.num_sge = 3;
		}
		wr.send_flags = IBV_SEND_INLINE;
		ret = vb_sq_post(vt, p, &wr, VB_SWR_SEND, NULL, signal);
		if (RC_UNLIKELY(ret))
			return ret;
		vt->n_inline++;
	} else {
		b = vt->bounce;
		if (RC_UNLIKELY(!b || !vt->scq_avail))
			return vb_again(vt);
		vb_hdr_fill(p, &vh, type);
		memcpy(b->data, &vh, sizeof(vh));
		memcpy(b->data + sizeof(vh), hdr, hlen);
		if (len)
			memcpy(b->data + sizeof(vh) + hlen, payload, len);
		sge[0].addr = (uintptr_t)b->data;
		sge[0].length = (uint32_t)total;
		sge[0].lkey = b->lkey;
		wr.num_sge = 1;
		ret = vb_sq_post(vt, p, &wr, VB_SWR_BOUNCE, b, true);
		if (RC_UNLIKELY(ret))
			return ret;
		vt->bounce = b->next;
		vt->nbounce--;
		vt->n_bounce++;
	}
	p->tx.sent++;
	p->tx_seq++;
	return RC_OK;
}

int vb_post_msg(struct vb_tp *vt, struct vb_peer *p, uint8_t type,
		const void *hdr, size_t hlen, const void *payload, size_t len)
{
	return post_msg(vt, p, type, hdr, hlen, payload, len);
}

static int vb_am_send(struct rc_tp *tp, int wrank, const void *hdr, size_t hlen,
		      const void *payload, size_t len)
{
	struct vb_tp *vt = (struct vb_tp *)tp;
	struct vb_peer *p = &vt->peers[wrank];

	if (RC_UNLIKELY(p->state != VB_PEER_CONNECTED))
		return peer_not_ready(vt, p);
	/* the peer's eager ring when it has one for us and this fits */
	if (p->fptx) {
		int ret = vb_fp_send(vt, p, hdr, hlen, payload, len);

		if (ret != RC_AGAIN)
			return ret;
	}
	return post_msg(vt, p, VB_MSG_AM, hdr, hlen, payload, len);
}

/* RDMA WRITE of our current limit into the peer's slot for us. A
 * signaled one also flushes the QP (close). */
static bool post_credit(struct vb_tp *vt, struct vb_peer *p, bool flush)
{
	uint64_t *stage = &vt->slots[2 * (vt->inst->size + p->wrank)];
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	bool signal;

	/* (a flush may pass what the READ and atomic fence holds back, not
	 * a READ or atomic out) */
	if (!(flush ? vb_sq_room_unfenced(vt, p, 0) && !p->rd_out
		    : vb_sq_room(vt, p, 0)) ||
	    p->state != VB_PEER_CONNECTED)
		return false;
	signal = flush || p->unsig + 1 >= vt->prm.signal_every;
	if (signal && !vt->scq_avail) {
		if (flush || p->unsig + 1 >= vt->prm.sq_size / 2)
			return false;
		signal = false;
	}
	stage[0] = vb_slot_pack(vb_rx_advertise(&p->rx));
	stage[1] = p->fprx ? vb_slot_pack(vb_fp_advertise(p)) : 0;
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)stage;
	sge.length = 2 * sizeof(*stage);
	sge.lkey = vt->slots_mr->lkey;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (vt->inline_max >= 2 * sizeof(*stage))
		wr.send_flags = IBV_SEND_INLINE;
	wr.wr.rdma.remote_addr = p->credit_raddr;
	wr.wr.rdma.rkey = p->credit_rkey;
	if (vb_sq_post(vt, p, &wr, VB_SWR_CREDIT, NULL, signal))
		return true; /* the peer failed: nothing more to send */
	vt->n_credit_writes++;
	return true;
}

/* ---- the READ and atomic fence (vb_rd_fence_wanted) ---- */

static void swr_done(struct vb_tp *vt, struct vb_peer *p, struct vb_swr s,
		     int status);

static void fence_update(struct vb_tp *vt, struct vb_peer *p)
{
	p->sq_fence = p->rd_out || p->dq_head ? vt->prm.sq_size : 0;
}

/* An operation of this kind to fenced p cannot be posted now: others
 * wait before it, a READ or atomic is out, or it is one and the QP has
 * not drained (unsignaled WRs retire with a signaled one: ask for it,
 * when nothing held back would then be overtaken). */
static bool fence_holds(struct vb_tp *vt, struct vb_peer *p, uint8_t kind)
{
	if (p->dq_head || p->rd_out)
		return true;
	if (kind == VB_SWR_WRITE || p->sq_head == p->sq_tail)
		return false;
	if (p->unsig)
		post_credit(vt, p, true);
	return true;
}

static int defer_push(struct vb_tp *vt, struct vb_peer *p,
		      const struct ibv_send_wr *wr, uint8_t kind,
		      struct rc_tp_rdma *op)
{
	struct vb_defer *d = malloc(sizeof(*d));

	if (!d) {
		op->tp_buf = NULL; /* (not taken from the free list yet) */
		return vb_again(vt);
	}
	d->next = NULL;
	d->wr = *wr;
	d->sge = wr->sg_list[0];
	d->kind = kind;
	d->op = op;
	if (p->dq_tail)
		p->dq_tail->next = d;
	else
		p->dq_head = d;
	p->dq_tail = d;
	fence_update(vt, p);
	return RC_OK;
}

/* Post what p holds back, in order, as far as the fence lets (called
 * after p's completions). */
static void defer_kick(struct vb_tp *vt, struct vb_peer *p)
{
	while (p->dq_head && p->state == VB_PEER_CONNECTED && !p->rd_out) {
		struct vb_defer *d = p->dq_head;

		if (d->kind != VB_SWR_WRITE && p->sq_head != p->sq_tail) {
			if (p->unsig) /* (nothing held back is overtaken) */
				post_credit(vt, p, true);
			break;
		}
		if (!vb_sq_room_unfenced(vt, p, VB_SQ_RESERVE) ||
		    !vt->scq_avail)
			break;
		d->wr.sg_list = &d->sge;
		if (vb_sq_post(vt, p, &d->wr, d->kind, d->op, true)) {
			vt->dq_failed = true; /* (p failed: defer_fail) */
			break;
		}
		if (d->kind != VB_SWR_WRITE)
			p->rd_out = true;
		free(defer_pop(p));
	}
	fence_update(vt, p);
}

/* Now and then, every peer that holds something back: its kick comes
 * with its own completions, but the signaled write that retires its
 * unsignaled sends may have found the CQ full, and the room it waits
 * for may come with another peer's completions. */
static void defer_look(struct vb_tp *vt)
{
	int w;

	for (w = 0; w < vt->inst->size; w++)
		if (RC_UNLIKELY(vt->peers[w].dq_head))
			defer_kick(vt, &vt->peers[w]);
}

/* Fail what failed peers hold back (progress: never inside a post). */
static void defer_fail(struct vb_tp *vt)
{
	int w;

	vt->dq_failed = false;
	for (w = 0; w < vt->inst->size; w++) {
		struct vb_peer *p = &vt->peers[w];

		while (p->state == VB_PEER_FAILED && p->dq_head) {
			struct vb_defer *d = defer_pop(p);
			struct vb_swr s = {
				.peer = p, .obj = d->op, .kind = d->kind};

			free(d);
			swr_done(vt, p, s, IBV_WC_WR_FLUSH_ERR);
		}
	}
}

/* Post wr (opcode and remote side set) to wrank with one SGE (local, len,
 * registered: lh), signaled, completing op: get, put, atomic; to a fenced
 * peer it may be held back (defer_push) and posted later. */
static int vb_post_rdma(struct vb_tp *vt, int wrank, void *local, void *lh,
			uint32_t len, struct ibv_send_wr *wr, uint8_t kind,
			struct rc_tp_rdma *op)
{
	struct vb_peer *p = &vt->peers[wrank];
	struct vb_buf *b = NULL;
	struct ibv_sge sge;
	bool hold;
	int ret;

	if (RC_UNLIKELY(p->state != VB_PEER_CONNECTED))
		return peer_not_ready(vt, p);
	hold = RC_UNLIKELY(p->rd_fence) && fence_holds(vt, p, kind);
	if (RC_UNLIKELY(!hold &&
			(!vb_sq_room(vt, p, VB_SQ_RESERVE) || !vt->scq_avail)))
		return vb_again(vt);
	sge.addr = (uintptr_t)local;
	sge.length = len;
	if (lh) {
		sge.lkey = ((struct rc_rcache_entry *)lh)->lkey;
	} else if (wr->send_flags & IBV_SEND_INLINE) {
		sge.lkey = 0; /* (the bytes go in the WQE) */
	} else {
		/* unexposed (len <= rdma_small): through a send bounce
		 * buffer, copied out at the completion (swr_done) */
		b = vt->bounce;
		if (RC_UNLIKELY(!b))
			return vb_again(vt);
		if (kind == VB_SWR_WRITE)
			memcpy(b->data, local, len);
		sge.addr = (uintptr_t)b->data;
		sge.lkey = b->lkey;
		op->len = len;
	}
	op->tp_buf = b;
	op->tp_dst = kind == VB_SWR_WRITE ? NULL : local;
	wr->sg_list = &sge;
	wr->num_sge = 1;
	if (RC_UNLIKELY(hold))
		ret = defer_push(vt, p, wr, kind, op);
	else
		ret = vb_sq_post(vt, p, wr, kind, op, true);
	if (RC_UNLIKELY(ret))
		return ret;
	if (RC_UNLIKELY(p->rd_fence) && !hold && kind != VB_SWR_WRITE) {
		p->rd_out = true;
		fence_update(vt, p);
	}
	if (b) {
		vt->bounce = b->next;
		vt->nbounce--;
	}
	p->nrdma++;
	return RC_INPROGRESS;
}

static int vb_rdma(struct vb_tp *vt, int wrank, void *local, void *lh,
		   size_t len, uint64_t raddr, const void *rkey,
		   struct rc_tp_rdma *op, enum ibv_wr_opcode opcode)
{
	struct ibv_send_wr wr;
	struct vb_key key;
	int ret;

	if (RC_UNLIKELY(len > vt->tp.rdma_max)) {
		rc_log_err("verbs: %s of %zu bytes to rank %d: more than the "
			   "port's max_msg_sz (%zu)",
			   opcode == IBV_WR_RDMA_READ ? "RDMA READ"
						      : "RDMA WRITE",
			   len, wrank, vt->tp.rdma_max);
		return RC_ERR_INTERN;
	}
	memcpy(&key, rkey, sizeof(key));
	memset(&wr, 0, sizeof(wr));
	wr.opcode = opcode;
	/* a small write's bytes go in the WQE: no DMA read of them */
	if (opcode == IBV_WR_RDMA_WRITE && len <= vt->inline_max)
		wr.send_flags = IBV_SEND_INLINE;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = key.rkey;
	ret = vb_post_rdma(
		vt, wrank, local, lh, (uint32_t)len, &wr,
		opcode == IBV_WR_RDMA_READ ? VB_SWR_READ : VB_SWR_WRITE, op);
	if (ret == RC_INPROGRESS)
		vt->n_rdma++;
	return ret;
}

static int vb_atomic(struct rc_tp *tp, int wrank, enum rc_tp_atomic kind,
		     uint64_t operand, uint64_t compare, void *result, void *lh,
		     uint64_t raddr, const void *rkey, struct rc_tp_rdma *op)
{
	struct vb_tp *vt = (struct vb_tp *)tp;
	struct ibv_send_wr wr;
	struct vb_key key;
	int ret;

	/* (an unexposed result goes through a bounce buffer: any address) */
	if (!(tp->caps & RC_TP_CAP_ATOMIC) || (raddr & 7) ||
	    (lh && ((uintptr_t)result & 7)))
		return RC_ERR_UNSUPPORTED;
	memcpy(&key, rkey, sizeof(key));
	memset(&wr, 0, sizeof(wr));
	wr.opcode = kind == RC_TP_CSWAP ? IBV_WR_ATOMIC_CMP_AND_SWP
					: IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = key.rkey;
	if (kind == RC_TP_CSWAP) {
		wr.wr.atomic.compare_add = compare;
		wr.wr.atomic.swap = operand;
	} else {
		wr.wr.atomic.compare_add = operand;
	}
	ret = vb_post_rdma(vt, wrank, result, lh, sizeof(uint64_t), &wr,
			   VB_SWR_ATOMIC, op);
	if (ret == RC_INPROGRESS)
		vt->n_atomic++;
	return ret;
}

static bool vb_atomic_reach(struct rc_tp *tp, int wrank)
{
	struct vb_tp *vt = (struct vb_tp *)tp;
	const struct vb_peer *p;

	if (!(tp->caps & RC_TP_CAP_ATOMIC) || wrank < 0 ||
	    wrank >= vt->inst->size)
		return false;
	p = &vt->peers[wrank];
	/* over rdma_cm a peer not connected yet is reached on first use,
	 * like its messages (vb_post_rdma answers RC_AGAIN meanwhile) */
	return p->state == VB_PEER_CONNECTED ||
	       (vt->prm.cm &&
		(p->state == VB_PEER_IDLE || p->state == VB_PEER_CONNECTING ||
		 p->state == VB_PEER_WAIT));
}

static int vb_get(struct rc_tp *tp, int wrank, void *local, void *lh,
		  size_t len, uint64_t raddr, const void *rkey,
		  struct rc_tp_rdma *op)
{
	return vb_rdma((struct vb_tp *)tp, wrank, local, lh, len, raddr, rkey,
		       op, IBV_WR_RDMA_READ);
}

static int vb_put(struct rc_tp *tp, int wrank, const void *local, void *lh,
		  size_t len, uint64_t raddr, const void *rkey,
		  struct rc_tp_rdma *op)
{
	return vb_rdma((struct vb_tp *)tp, wrank, (void *)local, lh, len, raddr,
		       rkey, op, IBV_WR_RDMA_WRITE);
}

static int vb_mem_expose(struct rc_tp *tp, void *addr, size_t len, void *key,
			 void **handle)
{
	struct vb_tp *vt = (struct vb_tp *)tp;
	struct rc_rcache_entry *e;
	struct vb_key k;
	int err;

	if (!vt->rcache)
		return RC_ERR_UNSUPPORTED;
	err = rc_rcache_get(vt->rcache, addr, len, &e);
	if (err) {
		static bool warned;

		if (!warned)
			rc_log_warn("verbs: cannot register %zu bytes at %p on "
				    "%s for a rendezvous (ibv_reg_mr: %s%s); "
				    "such messages are copied through send "
				    "buffers instead",
				    len, addr, vt->dev_name, strerror(err),
				    vb_memlock_hint(err));
		warned = true;
		return err == ENOMEM ? RC_ERR_NOMEM : RC_ERR_IO;
	}
	memset(&k, 0, sizeof(k));
	k.rkey = e->rkey;
	k.magic = VB_KEY_MAGIC;
	k.addr = (uintptr_t)addr;
	memset(key, 0, RC_TP_KEY_MAX);
	memcpy(key, &k, sizeof(k));
	*handle = e;
	return RC_OK;
}

static void vb_mem_release(struct rc_tp *tp, void *handle)
{
	struct vb_tp *vt = (struct vb_tp *)tp;

	rc_rcache_put(vt->rcache, handle);
}

/* ---- completions ---- */

static const char *swr_kind_str(uint8_t kind)
{
	switch (kind) {
	case VB_SWR_SEND:
		return "send (inline)";
	case VB_SWR_BOUNCE:
		return "send";
	case VB_SWR_READ:
		return "RDMA READ";
	case VB_SWR_WRITE:
		return "RDMA WRITE";
	case VB_SWR_CREDIT:
		return "credit RDMA WRITE";
	case VB_SWR_ATOMIC:
		return "atomic";
	case VB_SWR_RING:
	case VB_SWR_RING_BOUNCE:
		return "eager-ring RDMA WRITE";
	default:
		return "work request";
	}
}

/* What a completion error usually means. */
static const char *wc_hint(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_RETRY_EXC_ERR:
		return ": the peer stopped answering (process or node gone, "
		       "link down, or for RoCE a wrong GID/traffic class: "
		       "RCMPI_VERBS_GID_INDEX, RCMPI_VERBS_TC)";
	case IBV_WC_REM_ACCESS_ERR:
	case IBV_WC_REM_INV_REQ_ERR:
		return ": the peer refused the access (its process may have "
		       "ended)";
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return ": the peer had no receive buffer posted (credit "
		       "accounting violated: please report)";
	default:
		return "";
	}
}

static void swr_done(struct vb_tp *vt, struct vb_peer *p, struct vb_swr s,
		     int status)
{
	if (s.signaled)
		vt->scq_avail++;
	switch (s.kind) {
	case VB_SWR_BOUNCE:
	case VB_SWR_RING_BOUNCE: {
		struct vb_buf *b = s.obj;

		b->next = vt->bounce;
		vt->bounce = b;
		vt->nbounce++;
		break;
	}
	case VB_SWR_READ:
	case VB_SWR_WRITE:
	case VB_SWR_ATOMIC: {
		struct rc_tp_rdma *op = s.obj;
		struct vb_buf *b = op->tp_buf;

		p->nrdma--;
		if (s.kind != VB_SWR_WRITE)
			p->rd_out = false; /* (fenced: the only one out) */
		if (b) { /* (vb_post_rdma's bounce) */
			if (op->tp_dst && status == IBV_WC_SUCCESS)
				memcpy(op->tp_dst, b->data, op->len);
			b->next = vt->bounce;
			vt->bounce = b;
			vt->nbounce++;
		}
		op->done(op, status == IBV_WC_SUCCESS ? RC_OK : RC_ERR_PEER);
		break;
	}
	default:
		break;
	}
}

static unsigned on_send(struct vb_tp *vt, const struct ibv_wc *wc)
{
	struct vb_swr *s = (struct vb_swr *)(uintptr_t)wc->wr_id;
	struct vb_peer *p = s->peer;
	uint32_t idx = (uint32_t)(s - p->sq), cur;

	if (RC_UNLIKELY(wc->status != IBV_WC_SUCCESS) &&
	    wc->status != IBV_WC_WR_FLUSH_ERR)
		vb_peer_fail(vt, p,
			     "%s completed with %s (status %d, vendor "
			     "error 0x%x)%s",
			     swr_kind_str(s->kind),
			     ibv_wc_status_str(wc->status), wc->status,
			     wc->vendor_err, wc_hint(wc->status));
	/* This completion retires every earlier WR of the QP. Before a
	 * success, those were unsignaled: inline sends, ring and credit
	 * writes, nothing to release (what holds a buffer or a request is
	 * signaled, and its own completion came first). So a success retires
	 * them in one step, not a walk of up to RCMPI_VERBS_SIGNAL slots; an
	 * error walks them, each with its status. */
	if (RC_LIKELY(wc->status == IBV_WC_SUCCESS)) {
		cur = p->sq_tail % vt->prm.sq_size;
		p->sq_tail +=
			(idx + vt->prm.sq_size - cur) % vt->prm.sq_size + 1;
		swr_done(vt, p, *s, IBV_WC_SUCCESS);
	} else {
		do {
			struct vb_swr x;

			cur = p->sq_tail % vt->prm.sq_size;
			x = p->sq[cur];
			p->sq_tail++;
			swr_done(vt, p, x,
				 cur == idx ? wc->status : IBV_WC_SUCCESS);
		} while (cur != idx);
	}
	if (RC_UNLIKELY(p->rd_fence))
		defer_kick(vt, p);
	return 1;
}

static void repost_later(struct vb_tp *vt, struct vb_buf *b)
{
	b->next = vt->repost;
	vt->repost = b;
	vt->nrepost++;
}

static unsigned on_recv(struct vb_tp *vt, const struct ibv_wc *wc)
{
	struct vb_buf *b =
		(struct vb_buf *)(uintptr_t)(wc->wr_id & ~VB_WRID_RECV);
	struct vb_peer *p = vb_qpn_find(vt, wc->qp_num);
	const struct vb_hdr *vh = (const struct vb_hdr *)b->data;

	repost_later(vt, b);
	if (RC_UNLIKELY(!p)) {
		rc_log_debug("verbs: receive completion (%s) from unknown QP "
			     "0x%x",
			     ibv_wc_status_str(wc->status), wc->qp_num);
		return 0;
	}
	if (RC_UNLIKELY(wc->status != IBV_WC_SUCCESS)) {
		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			vb_peer_fail(vt, p,
				     "receive completed with %s "
				     "(status %d, vendor error 0x%x)",
				     ibv_wc_status_str(wc->status), wc->status,
				     wc->vendor_err);
		return 0;
	}
	vb_rx_received(&p->rx);
	/* buffers go back in batches, but never so late that the peer could
	 * run out of credits: half its window owed means now */
	if (p->rx.pending * 2 >= p->rx.window)
		vt->refill_now = true;
	if (!p->on_dirty) {
		p->on_dirty = true;
		p->next_dirty = vt->dirty;
		vt->dirty = p;
	}
	if (RC_UNLIKELY(wc->byte_len < sizeof(*vh))) {
		vb_peer_fail(vt, p, "a %u-byte message", wc->byte_len);
		return 0;
	}
	/* messages the peer wrote into our ring before this one are in
	 * memory by now (RC: in order on the QP); deliver them first */
	if (RC_UNLIKELY(vh->seq != p->rx_seq) && !vb_fp_drain(vt, p, vh->seq)) {
		vb_peer_fail(vt, p,
			     "message %u arrived while %u was expected "
			     "(eager ring out of step)",
			     vh->seq, p->rx_seq);
		return 0;
	}
	vb_deliver(vt, p, vh, wc->byte_len);
	if (RC_UNLIKELY(++p->nrecv == vt->prm.fp_threshold))
		vb_fp_busy(vt, p);
	return 1;
}

/* ---- credits taken back from silent peers (verbs_credit.h) -------------- */

/* The peer asked for its unused credits: spend them in one VB_MSG_RETURN
 * (its own credit is one of them). Not now (no room): the next look
 * tries again. */
static void credits_give_back(struct vb_tp *vt, struct vb_peer *p)
{
	uint32_t k;

	if (p->state != VB_PEER_CONNECTED) {
		p->return_due = false;
		return;
	}
	tx_refresh(vt, p);
	k = vb_tx_avail(&p->tx);
	if (k < 2) { /* nothing spare beyond the message's own */
		p->return_due = false;
		return;
	}
	k--;
	if (post_msg(vt, p, VB_MSG_RETURN, &k, sizeof(k), NULL, 0) != RC_OK)
		return;
	p->tx.sent += k;
	p->return_due = false;
	vt->n_returned += k;
}

/* The peer spent k credits unused: never more than it holds. */
static void credits_returned(struct vb_tp *vt, struct vb_peer *p,
			     const void *msg, size_t len)
{
	uint32_t k;

	if (len < sizeof(k)) {
		vb_peer_fail(vt, p, "a short credit return");
		return;
	}
	memcpy(&k, msg, sizeof(k));
	if (k > p->rx.limit - p->rx.consumed - p->rx.pending) {
		vb_peer_fail(vt, p, "%u credits returned, more than it held",
			     k);
		return;
	}
	vb_rx_returned(&vt->pool, &p->rx, k);
	vb_credit_due(vt, p);
	p->idle_seq = p->rx_seq; /* (the answer is not talk) */
}

/* Windows given short (vb_rx_grant) grow to the floor from the pool;
 * the peer hears of it through its credit slot (once connected). */
static void credits_top_up(struct vb_tp *vt)
{
	bool still = false;
	int w;

	for (w = 0; w < vt->inst->size; w++) {
		struct vb_peer *p = &vt->peers[w];

		if ((p->state != VB_PEER_CONNECTED &&
		     p->state != VB_PEER_CONNECTING) ||
		    p->atomic_only || p->rx.window >= vt->prm.credits_min)
			continue;
		if (vb_rx_top_up(&vt->pool, &p->rx, vt->prm.credits_min) &&
		    p->state == VB_PEER_CONNECTED)
			vb_credit_due(vt, p);
		still |= p->rx.window < vt->prm.credits_min;
	}
	vt->short_windows = still;
}

/* Every RCMPI_VERBS_IDLE_MS while some peer could use a bigger window
 * than the pool has left: ask each peer that sent us nothing since the
 * last look for its window down to the first one every peer gets; and
 * while a busy peer waits for an eager ring, for its ring (verbs_fp.c).
 * A peer heard from again keeps what it has. */
static void credits_look(struct vb_tp *vt)
{
	uint32_t floor = vt->prm.credits_min, unused = 0;
	struct timespec ts;
	double now;
	int w;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = (double)ts.tv_sec + ts.tv_nsec * 1e-9;
	if (now < vt->idle_next || vt->closing)
		return;
	vt->idle_next = now + vt->prm.idle_ms * 1e-3;
	for (w = 0; w < vt->inst->size; w++) {
		struct vb_peer *p = &vt->peers[w];

		if (p->state != VB_PEER_CONNECTED || p->atomic_only)
			continue;
		if (p->return_due)
			credits_give_back(vt, p);
		if (p->rx_seq != p->idle_seq) {
			p->idle_seq = p->rx_seq;
			p->rx.reclaim = 0;
			p->reclaim_ask = false;
			continue;
		}
		if (!p->rx.reclaim && vt->pool.free < vt->prm.credits &&
		    vb_rx_reclaim(&p->rx, floor))
			p->reclaim_ask = true;
		if (p->reclaim_ask &&
		    post_msg(vt, p, VB_MSG_RECLAIM, &unused, sizeof(unused),
			     NULL, 0) == RC_OK) {
			p->reclaim_ask = false;
			vt->n_reclaim++;
		}
		if (p->fprx && vt->fp_waiting)
			vb_fp_revoke(vt, p);
	}
}

void vb_deliver(struct vb_tp *vt, struct vb_peer *p, const struct vb_hdr *vh,
		size_t len)
{
	vb_tx_update(&p->tx, vh->credits);
	if (p->fptx)
		vb_fp_acked(p, vh->fp_acked);
	p->rx_seq++;
	if (RC_UNLIKELY(vt->closing))
		return;
	if (RC_LIKELY(vh->type == VB_MSG_AM)) {
		if (len > sizeof(*vh))
			vt->tp.recv(vt->inst, p->wrank, vh + 1,
				    len - sizeof(*vh));
	} else if (vh->type == VB_MSG_RING) {
		vb_fp_offered(vt, p, vh + 1, len - sizeof(*vh));
	} else if (vh->type == VB_MSG_RECLAIM) {
		p->return_due = true;
		credits_give_back(vt, p);
	} else if (vh->type == VB_MSG_RETURN) {
		credits_returned(vt, p, vh + 1, len - sizeof(*vh));
	} else if (vh->type == VB_MSG_UNRING) {
		vb_fp_unring(vt, p);
	} else if (vh->type == VB_MSG_UNRING_ACK) {
		p->idle_seq = p->rx_seq; /* (the answer is not talk) */
		vb_fp_unringed(vt, p);
	}
}

/* Repost what was received, return the credits, tell peers that are owed
 * half a window. */
static void rx_refill(struct vb_tp *vt)
{
	struct vb_peer *p, *list;

	vt->refill_now = false;
	if (vt->repost) {
		if (rx_post(vt, vt->repost))
			rc_abort(vt->inst, MPI_ERR_INTERN,
				 "verbs: cannot post receive buffers");
		vt->repost = NULL;
		vt->nrepost = 0;
	}
	list = vt->dirty;
	vt->dirty = NULL;
	while ((p = list)) {
		list = p->next_dirty;
		p->on_dirty = false;
		if (p->rx.pending)
			vb_rx_reposted(&vt->pool, &p->rx, vt->prm.credits);
		/* (closing: no more credits, nothing may follow the flush) */
		if (p->state != VB_PEER_CONNECTED || vt->closing ||
		    (!vb_rx_update_due(&p->rx) &&
		     !(p->fprx && vb_fp_update_due(p)))) {
			p->credit_armed = false;
			continue;
		}
		/* Due: give a message our way (the application's answer,
		 * typically) one progress call to carry the credits, then
		 * write them. */
		if (p->credit_armed && post_credit(vt, p, false)) {
			p->credit_armed = false;
			continue;
		}
		p->credit_armed = true;
		p->on_dirty = true;
		p->next_dirty = vt->dirty;
		vt->dirty = p;
		vt->refill_now = true;
	}
}

static unsigned vb_progress(struct rc_tp *tp)
{
	struct vb_tp *vt = (struct vb_tp *)tp;
	struct ibv_wc wc[VB_POLL];
	unsigned events = 0;
	int n, i;

	if (RC_UNLIKELY(!vt->resources))
		return 0;
	if (vt->fp_nrx) {
		events = vb_fp_progress(vt);
		/* A ring delivered: what waited for it may be done, and the
		 * caller sees it without a CQ poll (a function call into
		 * the provider and its lock) and what follows it here. Never
		 * twice in a row: completions and SRQ messages still come
		 * through at every other call. */
		if (events && !vt->cq_later) {
			vt->cq_later = true;
			return events;
		}
	}
	vt->cq_later = false;
	n = rc_vops_poll_cq(vt->ops, vt->cq, VB_POLL, wc);
	if (RC_UNLIKELY(n < 0)) {
		rc_log_err("verbs: ibv_poll_cq on %s: %s", vt->dev_name,
			   strerror(-n));
		rc_abort(vt->inst, MPI_ERR_INTERN, "verbs: cannot poll the CQ");
	}
	for (i = 0; i < n; i++) {
		if (wc[i].wr_id & VB_WRID_RECV)
			events += on_recv(vt, &wc[i]);
		else
			events += on_send(vt, &wc[i]);
	}
	if (vt->nrepost >= vt->prm.rx_batch || vt->refill_now)
		rx_refill(vt);
	if (RC_UNLIKELY(vt->dq_failed))
		defer_fail(vt);
	if (RC_UNLIKELY((++vt->tick & 1023) == 0)) {
		if (vt->n_fenced)
			defer_look(vt);
		if (vt->prm.idle_ms)
			credits_look(vt);
		if (vt->short_windows && !vt->closing)
			credits_top_up(vt);
	}
	if (RC_UNLIKELY(vt->fp_acks_due) && !vt->closing)
		vb_fp_acks(vt);
	/* connections on demand: at every call while one is under way;
	 * else a look for peers' requests every 16 calls that found
	 * nothing (so that a program calling MPI seldom, MPI_Test now and
	 * then, still answers within a few calls) and every 256 anyway */
	if (RC_UNLIKELY(vt->cm || vt->ud) &&
	    (vt->nconnecting || (vt->tick & (n ? 255 : 15)) == 0))
		events += vt->ud ? vb_ud_progress(vt) : vb_cm_progress(vt);
	if (RC_UNLIKELY(rc_rcache_gc_pending(vt->rcache)))
		rc_rcache_gc(vt->rcache);
	return events;
}

/* tp.h's poll_fast: the eager rings, when wrank writes into one of ours
 * and len bytes fit its slots (no CQ poll, no call into the provider) */
static unsigned vb_poll_fast(struct rc_tp *tp, int wrank, size_t len,
			     unsigned looks)
{
	struct vb_tp *vt = (struct vb_tp *)tp;
	unsigned n = 0;

	if (RC_UNLIKELY(!vt->resources) ||
	    !vb_fp_rx_fits(&vt->peers[wrank], len))
		return RC_TP_NO_FAST;
	while (looks-- && !n)
		n = vb_fp_progress(vt);
	return n;
}

/* ---- close ---- */

double vb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Make sure every WR we posted has left: a signaled write behind the
 * unsignaled ones, then wait for the completions. */
static void vb_drain(struct vb_tp *vt)
{
	struct rc_inst *inst = vt->inst;
	double t0 = vb_now(), limit = 30.0;
	bool busy;
	int w;

	for (w = 0; w < inst->size; w++) {
		struct vb_peer *p = &vt->peers[w];

		if (p->state == VB_PEER_CONNECTED && p->sq_head != p->sq_tail &&
		    p->unsig)
			p->flushed = post_credit(vt, p, true);
	}
	do {
		busy = false;
		vb_progress(&vt->tp);
		for (w = 0; w < inst->size && !busy; w++) {
			struct vb_peer *p = &vt->peers[w];

			busy = p->state == VB_PEER_CONNECTED && p->sq &&
			       p->sq_head != p->sq_tail &&
			       (!p->unsig || p->flushed);
		}
	} while (busy && vb_now() - t0 < limit);
	if (busy)
		rc_log_warn("verbs: sends still unconfirmed after %.0f s at "
			    "MPI_Finalize",
			    limit);
}

static void vb_teardown(struct vb_tp *vt)
{
	int w;

	if (vt->cm)
		vb_cm_close(vt);
	vb_ud_close(vt);
	if (vt->peers)
		for (w = 0; w < vt->inst->size; w++)
			peer_release(vt, &vt->peers[w]);
	res_close(vt);
	vb_dev_close(vt);
	free(vt->fp_rx);
	free(vt->peers);
	free(vt->qpn_tab);
	free(vt);
}

bool rc_tp_verbs_on_demand(const struct rc_inst *inst)
{
	enum vb_wiring w = vb_wiring_asked(inst->size);

	return w == VB_WIRE_RDMACM || w == VB_WIRE_UD || w == VB_WIRE_AUTO_CM;
}

bool rc_tp_verbs_fences(struct rc_inst *inst, bool carries, bool at_close)
{
	/* on-demand wiring (rdmacm, ud, auto past its size) connects on
	 * first use: no fence at connect */
	if (!at_close && rc_tp_verbs_on_demand(inst))
		return false;
	return carries || inst->local_size < inst->size;
}

void vb_mem_get(const struct vb_tp *vt, struct vb_mem *m)
{
	int w, n = vt->inst->size;
	size_t tab = (size_t)vt->qpn_mask + 1;

	memset(m, 0, sizeof(*m));
	for (w = 0; vt->peers && w < n; w++) {
		const struct vb_peer *p = &vt->peers[w];

		if (!p->qp)
			continue;
		m->qps++;
		if (w != vt->inst->rank && p->state == VB_PEER_CONNECTED)
			m->connected++;
		if (p->fprx && p->fprx->mem)
			m->ring_bytes += (size_t)p->fprx->nslots *
					 p->fprx->slot_size;
	}
	m->rx_bufs = vt->pool.total;
	m->tx_bufs = vt->nbounce;
	m->rx_bytes = (size_t)m->rx_bufs * vt->buf_size;
	m->tx_bytes = (size_t)m->tx_bufs * vt->buf_size;
	m->sq_bytes = (size_t)m->qps * vt->prm.sq_size * sizeof(struct vb_swr);
	m->job_bytes = (size_t)n * sizeof(*vt->peers) +
		       (vt->slots ? (size_t)n * 4 * sizeof(uint64_t) : 0) +
		       (vt->qpn_tab ? tab * sizeof(*vt->qpn_tab) : 0);
}

static void vb_mem_log(const struct vb_tp *vt)
{
	struct vb_mem m;

	vb_mem_get(vt, &m);
	rc_log_debug("verbs: memory: %u of %d peers connected, %u RC QPs; "
		     "receive %u buffers (%zu KiB), bounce %u (%zu KiB), "
		     "eager rings given %zu KiB, send queues %zu KiB; sized "
		     "by the job's %d ranks: %zu KiB",
		     m.connected, vt->inst->size - 1, m.qps, m.rx_bufs,
		     m.rx_bytes >> 10, m.tx_bufs, m.tx_bytes >> 10,
		     m.ring_bytes >> 10, m.sq_bytes >> 10, vt->inst->size,
		     m.job_bytes >> 10);
}

static void vb_close(struct rc_tp *tp)
{
	struct vb_tp *vt = (struct vb_tp *)tp;
	struct rc_inst *inst = vt->inst;

	vt->closing = true;
	if (vt->resources && vt->nverbs)
		vb_drain(vt);
	/* nobody destroys a QP before everyone has drained */
	if (rc_tp_verbs_fences(inst, vt->resources && vt->nverbs, true) &&
	    inst->boot.ops && inst->boot.ops->fence(&inst->boot, false))
		rc_log_debug("verbs: fence at close failed");
	if (vt->rcache && rc_log_level() >= 1) {
		struct rc_rcache_stats st;

		rc_rcache_stats(vt->rcache, &st);
		rc_log_debug("verbs: inline %lu, bounce %lu, eager ring %lu, "
			     "rdma %lu, credit "
			     "writes %lu, atomics %lu, again %lu; rcache hits "
			     "%lu, misses %lu, invalidated %lu, evicted %lu, "
			     "uncached %lu; eager-ring messages received %lu; "
			     "credits taken back %lu (asked %lu times), given "
			     "back %lu; eager rings taken back %lu; peers "
			     "with READs and atomics fenced %u",
			     vt->n_inline, vt->n_bounce, vt->n_ring, vt->n_rdma,
			     vt->n_credit_writes, vt->n_atomic, vt->n_again,
			     st.hits, st.misses, st.invalidated, st.evicted,
			     st.uncached, vt->n_ring_rx, vt->pool.taken,
			     vt->n_reclaim, vt->n_returned, vt->n_unring,
			     vt->n_fenced);
		vb_mem_log(vt);
	}
	vb_teardown(vt);
}

const struct rc_tp_ops rc_tp_verbs_ops = {
	.name = "verbs",
	.open = vb_open,
	.reachable = vb_reachable,
	.connect = vb_connect,
	.close = vb_close,
	.am_send = vb_am_send,
	.mem_expose = vb_mem_expose,
	.mem_release = vb_mem_release,
	.get = vb_get,
	.put = vb_put,
	.atomic = vb_atomic,
	.atomic_reach = vb_atomic_reach,
	.progress = vb_progress,
	.poll_fast = vb_poll_fast,
};
