/*
 * verbs_fp.c - the RDMA-write eager rings: a fast path for small messages.
 *
 * A receiver gives a busy peer (RCMPI_VERBS_FP_THRESHOLD messages through
 * the SRQ) a ring of RCMPI_VERBS_FP_SLOTS registered slots of
 * RCMPI_VERBS_FP_SIZE bytes, for at most RCMPI_VERBS_FP_RINGS peers, and
 * offers it in a VB_MSG_RING message (address, rkey, geometry). From then
 * on the peer sends what fits into a free slot with one RDMA WRITE (inline
 * up to the QP's limit, else from a bounce buffer): no receive WQE, no
 * receive completion, no SRQ refill. The receiver finds it by polling the
 * next slot's last word.
 *
 * A slot holds one message at its end:
 *
 *   | ... unused ... | vb_hdr | engine hdr | payload | pad | size | mark |
 *                    ^ slot end - 8 - align8(size)          slot end ^
 *
 * mark = the ring's write count + 1 (so never the value the slot held
 * before: the previous lap's mark is nslots lower), size the message's
 * bytes. The receiver polls the mark at the slot's fixed last word; the
 * write places its bytes in order (which is why ring memory is never
 * registered with IBV_ACCESS_RELAXED_ORDERING), so once the mark is there
 * the message before it is too.
 *
 * Order. Every message to a peer, on either path, carries a 16-bit
 * sequence number (vb_hdr.seq), and the receiver delivers in that order:
 * - a ring message ahead of the next seq waits: an earlier SEND is still
 *   in the CQ (it was sent first on the same QP, so its completion is
 *   there or coming);
 * - a SEND ahead of the next seq first delivers the ring messages before
 *   it: they were written before it on the same QP, so RC has placed them.
 * A sender whose ring is full (or whose message does not fit a slot)
 * sends through the SRQ, so a slow receiver never blocks the sender.
 *
 * Ring credits. The receiver counts slots consumed (cumulative); the low
 * 8 bits ride in vb_hdr.fp_acked of every message going back, and when
 * half a ring is owed with no message going back, the full count goes
 * with the SRQ credits in the same RDMA WRITE to the sender's credit slot
 * (second word). The sender takes a heard value only if it does not
 * acknowledge more than it wrote (stale ones are ignored), so rings have
 * at most 64 slots.
 *
 * Delivery never re-enters: the engine's upcall may send, never poll.
 *
 * Taking a ring back. With every ring given and another peer busy, a
 * ring whose peer said nothing for RCMPI_VERBS_IDLE_MS is asked back
 * (VB_MSG_UNRING, from the credits' look in tp_verbs.c). The peer stops
 * writing into it at once and answers VB_MSG_UNRING_ACK through the SRQ:
 * its ring writes were all posted before that SEND on the same QP, so
 * when the answer is delivered (in seq order) every one of them has been
 * too, and the ring is freed and given to a waiting peer. A peer's next
 * ring counts on from where its last one stopped (fp_base, sent in the
 * offer): the ring-credit word the receiver wrote for the old ring can
 * then never acknowledge slots of the new one.
 *
 * Failures: a ring that cannot be registered is not offered (the peer
 * keeps the SRQ); a ring write that fails fails the peer like any other
 * completion error; a failed peer's ring is freed at the next progress
 * call and given to a peer that waits for one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "compiler.h"
#include "inst.h"
#include "log.h"
#include "status.h"
#include "verbs.h"

#define FP_ALIGN(n) (((n) + 7) & ~(size_t)7)

/* The last 8 bytes of a slot. */
struct vb_fp_tail {
	uint32_t size; /* message bytes (vb_hdr included) */
	uint32_t mark; /* write count + 1 */
};

/* Payload of VB_MSG_RING. */
struct vb_fp_offer {
	uint64_t addr;
	uint32_t rkey;
	uint16_t nslots;
	uint16_t rsvd;
	uint32_t slot_size;
	uint32_t start; /* the ring's first write count (fp_base) */
};

/* ---- receiver ---- */

void vb_fp_busy(struct vb_tp *vt, struct vb_peer *p)
{
	struct vb_fp_rx *r;
	size_t len;
	int err;

	if (p->fprx || p->fp_refused || p->atomic_only || vt->closing)
		return;
	if (vt->fp_nrx >= vt->prm.fp_rings) {
		if (!p->fp_waiting && vt->prm.fp_rings) {
			p->fp_waiting = true;
			vt->fp_waiting++;
		}
		return;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return;
	r->nslots = vt->prm.fp_slots;
	r->slot_size = vt->prm.fp_size;
	r->consumed = p->fp_base;
	r->advertised = p->fp_base;
	r->next = r->consumed % r->nslots;
	len = ((size_t)r->nslots * r->slot_size + 4095) & ~(size_t)4095;
	if (posix_memalign((void **)&r->mem, 4096, len)) {
		free(r);
		return;
	}
	memset(r->mem, 0, len);
	/* never IBV_ACCESS_RELAXED_ORDERING: the mark relies on in-order
	 * placement */
	r->mr = vt->ops->reg_mr(vt->pd, r->mem, len,
				IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE);
	if (!r->mr) {
		err = errno;
		rc_log_debug("verbs: no eager ring for rank %d: ibv_reg_mr of "
			     "%zu KiB on %s: %s%s (it keeps the receive "
			     "queue)",
			     p->wrank, len >> 10, vt->dev_name, strerror(err),
			     vb_memlock_hint(err));
		free(r->mem);
		free(r);
		p->fp_refused = true;
		return;
	}
	p->fprx = r;
	vt->fp_rx[vt->fp_nrx++] = p;
	vt->fp_offers++;
	vt->refill_now = true;
}

static void fp_offer(struct vb_tp *vt, struct vb_peer *p)
{
	struct vb_fp_rx *r = p->fprx;
	struct vb_fp_offer o;

	memset(&o, 0, sizeof(o));
	o.addr = (uintptr_t)r->mem;
	o.rkey = r->mr->rkey;
	o.nslots = (uint16_t)r->nslots;
	o.slot_size = r->slot_size;
	o.start = r->consumed;
	if (vb_post_msg(vt, p, VB_MSG_RING, &o, sizeof(o), NULL, 0) == RC_OK) {
		r->offered = true;
		vt->fp_offers--;
		rc_log_debug("verbs: eager ring of %u x %u bytes offered to "
			     "rank %d",
			     r->nslots, r->slot_size, p->wrank);
	}
}

uint32_t vb_fp_advertise(struct vb_peer *p)
{
	p->fprx->advertised = p->fprx->consumed;
	return p->fprx->consumed;
}

bool vb_fp_update_due(const struct vb_peer *p)
{
	const struct vb_fp_rx *r = p->fprx;

	return r->consumed - r->advertised >= r->nslots / 2;
}

/* The next slot's message if it has arrived (its bytes and length). */
static inline const struct vb_hdr *fp_next(const struct vb_fp_rx *r,
					   size_t *len)
{
	const char *end = r->mem + (size_t)(r->next + 1) * r->slot_size;
	const struct vb_fp_tail *t = (const struct vb_fp_tail *)end - 1;
	uint32_t size;

	if (__atomic_load_n(&t->mark, __ATOMIC_ACQUIRE) != r->consumed + 1)
		return NULL;
	size = t->size;
	*len = size;
	return (const struct vb_hdr *)(end - sizeof(*t) - FP_ALIGN(size));
}

/* Deliver the next slot's message; false: not there, not next in order,
 * or malformed (the peer is failed then). (Inline: a poll of the rings
 * makes no call per ring.) */
static inline __attribute__((always_inline)) bool fp_take(struct vb_tp *vt,
							  struct vb_peer *p)
{
	struct vb_fp_rx *r = p->fprx;
	const struct vb_hdr *vh;
	size_t len;

	vh = fp_next(r, &len);
	if (!vh)
		return false;
	if (RC_UNLIKELY(len < sizeof(*vh) ||
			FP_ALIGN(len) + sizeof(struct vb_fp_tail) >
				r->slot_size)) {
		vb_peer_fail(vt, p, "eager ring slot with %zu bytes", len);
		return false;
	}
	if (vh->seq != p->rx_seq)
		return false; /* a SEND before it is still in the CQ */
	/* consumed only after the upcall: an answer it sends returns the
	 * slot, and the peer may write it again */
	vb_deliver(vt, p, vh, len);
	r->consumed++;
	if (++r->next == r->nslots)
		r->next = 0;
	vt->n_ring_rx++;
	if (RC_UNLIKELY(vb_fp_update_due(p)))
		vb_credit_due(vt, p);
	return true;
}

bool vb_fp_drain(struct vb_tp *vt, struct vb_peer *p, uint16_t seq)
{
	if (!p->fprx)
		return false;
	while (p->rx_seq != seq)
		if (!fp_take(vt, p))
			return false;
	return true;
}

bool vb_fp_rx_fits(const struct vb_peer *p, size_t len)
{
	return p->fprx && FP_ALIGN(sizeof(struct vb_hdr) + len) +
					  sizeof(struct vb_fp_tail) <=
				  p->fprx->slot_size;
}

unsigned vb_fp_progress(struct vb_tp *vt)
{
	unsigned i, k, n = 0;

	if (RC_UNLIKELY(vt->fp_offers))
		for (i = 0; i < vt->fp_nrx; i++)
			if (!vt->fp_rx[i]->fprx->offered &&
			    vt->fp_rx[i]->state == VB_PEER_CONNECTED)
				fp_offer(vt, vt->fp_rx[i]);
	for (i = 0; i < vt->fp_nrx; i++) {
		struct vb_peer *p = vt->fp_rx[i];

		if (RC_UNLIKELY(p->state != VB_PEER_CONNECTED)) {
			/* failed: nothing lands in its ring any more; free it
			 * for a peer that waits (here, never inside a
			 * delivery that may still use it) */
			if (p->state == VB_PEER_FAILED && !vt->closing) {
				vb_fp_release(vt, p);
				i--; /* (its place holds another peer now) */
			}
			continue;
		}
		for (k = 0; k < p->fprx->nslots && fp_take(vt, p); k++)
			n++;
	}
	return n;
}

/* ---- sender ---- */

void vb_fp_offered(struct vb_tp *vt, struct vb_peer *p, const void *msg,
		   size_t len)
{
	struct vb_fp_offer o;
	struct vb_fp_tx *f;

	if (len < sizeof(o) || p->fptx)
		return;
	memcpy(&o, msg, sizeof(o));
	if (o.nslots < 2 || o.nslots > 64 || o.slot_size < 64 ||
	    (o.slot_size & 7)) {
		rc_log_debug("verbs: rank %d offered an eager ring of %u x %u "
			     "bytes: not used",
			     p->wrank, o.nslots, o.slot_size);
		return;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return; /* the SRQ path stays */
	f->raddr = o.addr;
	f->rkey = o.rkey;
	f->nslots = o.nslots;
	f->slot_size = o.slot_size;
	f->written = o.start;
	f->next = o.start % f->nslots;
	f->acked = o.start;
	p->fptx = f;
	rc_log_debug("verbs: rank %d's eager ring (%u x %u bytes) in use",
		     p->wrank, f->nslots, f->slot_size);
}

void vb_fp_slot(struct vb_peer *p, uint64_t v)
{
	struct vb_fp_tx *f = p->fptx;
	uint32_t c;

	if (vb_slot_unpack(v, &c) && (int32_t)(c - f->acked) > 0 &&
	    c - f->acked <= f->written - f->acked)
		f->acked = c;
}

int vb_fp_send(struct vb_tp *vt, struct vb_peer *p, const void *hdr,
	       size_t hlen, const void *payload, size_t len)
{
	static const uint8_t zero[8];
	struct vb_fp_tx *f = p->fptx;
	size_t m = sizeof(struct vb_hdr) + hlen + len;
	size_t span = FP_ALIGN(m) + sizeof(struct vb_fp_tail);
	size_t pad = FP_ALIGN(m) - m;
	struct {
		uint8_t pad[8];
		struct vb_fp_tail t;
	} tail;
	struct ibv_send_wr wr;
	struct ibv_sge sge[4];
	struct vb_hdr vh;
	struct vb_buf *b;
	bool signal, again;
	uint64_t slot_end;
	int ret;

	if (span > f->slot_size)
		return RC_AGAIN;
	if (RC_UNLIKELY(f->written - f->acked >= f->nslots)) {
		vb_fp_slot(p, __atomic_load_n(&vt->slots[2 * p->wrank + 1],
					      __ATOMIC_ACQUIRE));
		if (f->written - f->acked >= f->nslots)
			return RC_AGAIN;
	}
	if (RC_UNLIKELY(!vb_sq_room(vt, p, VB_SQ_RESERVE)))
		return RC_AGAIN;
	slot_end = f->raddr + (uint64_t)(f->next + 1) * f->slot_size;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = slot_end - span;
	wr.wr.rdma.rkey = f->rkey;
	wr.sg_list = sge;
	memset(tail.pad, 0, sizeof(tail.pad));
	tail.t.size = (uint32_t)m;
	tail.t.mark = f->written + 1;
	if (span <= vt->inline_max) {
		signal = vb_sq_signal(vt, p, &again);
		if (RC_UNLIKELY(again))
			return RC_AGAIN;
		vb_hdr_fill(p, &vh, VB_MSG_AM);
		/* (inline: no lkeys) */
		memset(sge, 0, sizeof(sge));
		sge[0].addr = (uintptr_t)&vh;
		sge[0].length = sizeof(vh);
		sge[1].addr = (uintptr_t)hdr;
		sge[1].length = (uint32_t)hlen;
		wr.num_sge = 2;
		if (len) {
			sge[2].addr = (uintptr_t)payload;
			sge[2].length = (uint32_t)len;
			wr.num_sge = 3;
		}
		sge[wr.num_sge].addr = (uintptr_t)&tail.t - pad;
		sge[wr.num_sge].length = (uint32_t)(pad + sizeof(tail.t));
		wr.num_sge++;
		wr.send_flags = IBV_SEND_INLINE;
		ret = vb_sq_post(vt, p, &wr, VB_SWR_RING, NULL, signal);
	} else {
		char *d;

		b = vt->bounce;
		if (RC_UNLIKELY(!b || !vt->scq_avail))
			return RC_AGAIN;
		vb_hdr_fill(p, &vh, VB_MSG_AM);
		d = b->data;
		memcpy(d, &vh, sizeof(vh));
		memcpy(d + sizeof(vh), hdr, hlen);
		if (len)
			memcpy(d + sizeof(vh) + hlen, payload, len);
		memcpy(d + m, zero, pad);
		memcpy(d + m + pad, &tail.t, sizeof(tail.t));
		sge[0].addr = (uintptr_t)d;
		sge[0].length = (uint32_t)span;
		sge[0].lkey = b->lkey;
		wr.num_sge = 1;
		ret = vb_sq_post(vt, p, &wr, VB_SWR_RING_BOUNCE, b, true);
		if (!ret) {
			vt->bounce = b->next;
			vt->nbounce--;
		}
	}
	if (RC_UNLIKELY(ret))
		return ret;
	f->written++;
	if (++f->next == f->nslots)
		f->next = 0;
	p->tx_seq++;
	vt->n_ring++;
	return RC_OK;
}

/* ---- taking a ring back ---- */

void vb_fp_revoke(struct vb_tp *vt, struct vb_peer *p)
{
	uint32_t unused = 0;

	if (!p->fprx || !p->fprx->offered || p->fprx->revoking)
		return;
	if (vb_post_msg(vt, p, VB_MSG_UNRING, &unused, sizeof(unused), NULL,
			0) == RC_OK)
		p->fprx->revoking = true;
}

static void unring_ack(struct vb_tp *vt, struct vb_peer *p)
{
	uint32_t unused = 0;

	if (vb_post_msg(vt, p, VB_MSG_UNRING_ACK, &unused, sizeof(unused), NULL,
			0) != RC_OK)
		return; /* vb_fp_acks tries again */
	p->unring_ack_due = false;
	vt->fp_acks_due--;
}

void vb_fp_unring(struct vb_tp *vt, struct vb_peer *p)
{
	free(p->fptx); /* nothing more into it: the SRQ from now on */
	p->fptx = NULL;
	if (!p->unring_ack_due) {
		p->unring_ack_due = true;
		vt->fp_acks_due++;
	}
	unring_ack(vt, p);
}

void vb_fp_acks(struct vb_tp *vt)
{
	int w;

	for (w = 0; w < vt->inst->size && vt->fp_acks_due; w++)
		if (vt->peers[w].unring_ack_due &&
		    vt->peers[w].state == VB_PEER_CONNECTED)
			unring_ack(vt, &vt->peers[w]);
}

/* Free our ring for p (its writes all delivered, or p gone). */
static void fp_rx_free(struct vb_tp *vt, struct vb_peer *p)
{
	unsigned i;

	if (!p->fprx)
		return;
	for (i = 0; i < vt->fp_nrx; i++)
		if (vt->fp_rx[i] == p) {
			vt->fp_rx[i] = vt->fp_rx[--vt->fp_nrx];
			break;
		}
	if (!p->fprx->offered)
		vt->fp_offers--;
	if (p->fprx->mr)
		vt->ops->dereg_mr(p->fprx->mr);
	free(p->fprx->mem);
	free(p->fprx);
	p->fprx = NULL;
}

/* A ring is free again: to the first peer that waits for one. */
static void fp_give_waiting(struct vb_tp *vt)
{
	int w;

	for (w = 0; w < vt->inst->size && vt->fp_waiting; w++) {
		struct vb_peer *q = &vt->peers[w];

		if (!q->fp_waiting)
			continue;
		q->fp_waiting = false;
		vt->fp_waiting--;
		if (q->state == VB_PEER_CONNECTED) {
			vb_fp_busy(vt, q);
			if (q->fprx)
				break;
		}
	}
}

void vb_fp_unringed(struct vb_tp *vt, struct vb_peer *p)
{
	if (!p->fprx || !p->fprx->revoking) {
		vb_peer_fail(vt, p, "an eager ring given back unasked");
		return;
	}
	p->fp_base = p->fprx->consumed;
	fp_rx_free(vt, p);
	p->nrecv = 0; /* busy again: it may wait for a ring again */
	vt->n_unring++;
	rc_log_debug("verbs: eager ring taken back from rank %d", p->wrank);
	fp_give_waiting(vt);
}

/* ---- teardown ---- */

void vb_fp_release(struct vb_tp *vt, struct vb_peer *p)
{
	free(p->fptx);
	p->fptx = NULL;
	if (p->fp_waiting) {
		p->fp_waiting = false;
		vt->fp_waiting--;
	}
	if (p->unring_ack_due) {
		p->unring_ack_due = false;
		vt->fp_acks_due--;
	}
	if (!p->fprx)
		return;
	fp_rx_free(vt, p);
	fp_give_waiting(vt); /* (a peer that failed: not while closing) */
}
