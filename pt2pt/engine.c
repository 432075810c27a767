/*
 * engine.c - MPI matching and the eager / rendezvous protocols (proto.h has
 * the message sequences) over the transports of tp.h.
 *
 * Matching: one posted-receive queue and one unexpected queue per context
 * id, both in arrival order, so MPI_ANY_SOURCE and MPI_ANY_TAG receives keep
 * the standard's order. Non-overtaking holds because every peer is reached
 * through exactly one transport that delivers in order, and everything the
 * engine sends to a peer (messages and control) leaves through one FIFO: a
 * message that the transport cannot take now (RC_AGAIN) is queued on the
 * peer and everything after it waits behind it.
 *
 * Sender states:   EAGER -> done | SYNC -> WAIT_ACK -> done
 *                  RTS -> WAIT (CTS or FIN) -> FRAG | PUT -> PUT_FIN -> done
 * Receiver states: POSTED -> done (eager) | RGET -> done | FRAG -> done |
 *                  RPUT -> done (on FIN)
 * Send cancellation (MPI_Cancel, rc_p2p_cancel): a send still queued for
 * its peer (nothing handed to the transport) is taken off the queue and
 * completes cancelled; in WAIT or WAIT_ACK it asks the receiver (proto.h)
 * and req->p2p.cancel is CANCEL_WAIT until the answer: a transfer that
 * finishes meanwhile leaves the request CANCEL_DEFER (still on the peer's
 * waiting list, so a peer failure completes it) and the answer completes
 * it. In any other state the data is out and cancel does nothing.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "comm.h"
#include "compiler.h"
#include "dtype.h"
#include "inst.h"
#include "log.h"
#include "param.h"
#include "proto.h"
#include "pt2pt.h"
#include "request.h"
#include "status.h"
#include "thread.h"
#include "tp.h"
#include "verbs/tp_verbs.h"

enum p2p_state {
	SP_EAGER = 1,
	SP_SYNC,	/* eager-synchronous message to send */
	SP_WAIT_ACK,
	SP_RTS,		/* RTS to send */
	SP_WAIT,	/* RTS sent: waiting for CTS or FIN */
	SP_FRAG,	/* streaming DATA fragments */
	SP_PUT,		/* writing with put() */
	SP_PUT_FIN,	/* FIN to send after the puts */
	RP_POSTED,
	RP_RGET,
	RP_FRAG,
	RP_RPUT,
};

enum p2p_cancel {
	CANCEL_NONE = 0,
	CANCEL_WAIT,  /* CANCEL sent, no answer yet */
	CANCEL_DEFER, /* transfer done, completion waits for the answer */
};

enum p2p_rndv_mode {
	RNDV_GET = 0,
	RNDV_PUT,
	RNDV_FRAG,
};

/* A message waiting for its peer's transport: a control message (copied
 * here), a send request to resume, an upper layer's active message (a
 * copy, `am`) or its stream to resume. */
struct p2p_out {
	struct rc_list link;
	struct rc_req *req;
	struct rc_am_stream *stream;
	void *am;		/* rc_p2p_am + header + payload */
	size_t amlen;
	uint16_t hlen;
	uint8_t hdr[sizeof(struct rc_p2p_cts)];
	struct p2p_out *next_free;
};

struct p2p_match {
	struct rc_list posted;
	struct rc_list unexp;
};

/* An outstanding get/put chunk of a request. */
struct p2p_rdma {
	struct rc_tp_rdma op;
	struct rc_req *req;
	struct rc_list olink;	/* rc_p2p.rdma_out while the tp holds it */
};

struct rc_p2p {
	struct rc_inst *inst;
	struct p2p_match *match[RC_CTX_MAX];
	unsigned nqueued;	/* p2p_out items queued on peers */
	unsigned nsends;	/* send requests started, not complete */
	unsigned nrecvs_rndv;	/* receives with rendezvous in progress */
	struct rc_list rdma_reqs; /* requests with get/put left to issue */
	struct rc_list rdma_out;  /* get/put operations the transports hold */
	struct p2p_out *out_free;
	void *bounce;		/* packing buffer for one fragment */
	size_t bounce_len;
	int rndv_mode;
	size_t eager_max;	/* RCMPI_EAGER_LIMIT override (0: per tp) */
	unsigned failures;	/* failed peers not yet cleaned up */
	struct rc_umsg *umsg_free; /* small unexpected-message buffers */
	unsigned numsg_free;
	const struct rc_am_ops *am[RC_AM_NIDS]; /* upper layers' handlers */
	/* receives posted outside the section (match_drain) and sends handed
	 * to the section's holder (send_drain): lock-free stacks linked by
	 * stack_next (stack_push, stack_take) */
	struct rc_req *incoming;
	struct rc_req *outgoing;
	bool verbs_absent;	/* asked for, no device: fence in its stead */
};

/* Unexpected messages with up to this much payload reuse buffers; a flood
 * leaves at most UMSG_KEEP of them behind. */
#define UMSG_SMALL 256
#define UMSG_KEEP 1024

/* ---- helpers ------------------------------------------------------------- */

static inline uint64_t req_id(struct rc_req *req)
{
	return (uint64_t)(uintptr_t)req;
}

static inline struct rc_req *id_req(uint64_t id)
{
	return (struct rc_req *)(uintptr_t)id;
}

static inline size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

static inline struct rc_tp *peer_tp(struct rc_inst *inst, int wrank)
{
	return inst->procs[wrank].tp;
}

/*
 * Every message to world rank w goes to its transport through here. At
 * MPI_THREAD_MULTIPLE, for a peer whose transport lets senders run at once
 * (proc->send_mt), under the peer's send lock: MPI_Send's path outside the
 * critical section (rc_p2p_send_outside) sends to it under that lock alone.
 * A leaf lock: am_send calls nothing back.
 */
static inline int tp_send(struct rc_inst *inst, int w, const void *hdr,
			  size_t hlen, const void *payload, size_t len)
{
	struct rc_proc *proc = &inst->procs[w];
	bool held = false;
	int ret;

	if (RC_UNLIKELY(rc_thread_multiple) && proc->send_mt)
		held = rc_lock_take(&proc->send_lock);
	ret = proc->tp->ops->am_send(proc->tp, w, hdr, hlen, payload, len);
	rc_lock_give(&proc->send_lock, held);
	return ret;
}

static inline size_t tp_eager(struct rc_p2p *p2p, struct rc_tp *tp)
{
	if (p2p->eager_max && p2p->eager_max < tp->eager_limit)
		return p2p->eager_max;
	return tp->eager_limit;
}

/* Context id ctx's matching queues, at its first message or receive */
static __attribute__((noinline)) struct p2p_match *match_new(struct rc_p2p *p2p,
							     uint32_t ctx)
{
	struct p2p_match *m = calloc(1, sizeof(*m));

	if (!m) {
		rc_abort(p2p->inst, MPI_ERR_NO_MEM,
			 "out of memory for a matching queue");
	}
	rc_list_init(&m->posted);
	rc_list_init(&m->unexp);
	p2p->match[ctx] = m;
	return m;
}

/* The matching queues of context id ctx (made on its first use; inline:
 * every arriving message and posted receive looks them up) */
static inline struct p2p_match *match_get(struct rc_p2p *p2p, uint32_t ctx)
{
	struct p2p_match *m;

	assert(ctx < RC_CTX_MAX);
	m = p2p->match[ctx];
	if (RC_LIKELY(m))
		return m;
	return match_new(p2p, ctx);
}

/*
 * The engine's lock-free stacks of requests made outside the critical
 * section, at MULTIPLE (p2p->incoming, p2p->outgoing, below): any thread
 * pushes one (rc_req_stack_push, request.h); the section's holder takes
 * them all (an exchange), oldest first. No drain nests in another:
 * starting or queueing a request from a stack runs no callback (the
 * engine hands those requests over: request.h), and no transport delivers
 * a message within a send.
 */
static inline void stack_push(struct rc_req **top, struct rc_req *req)
{
	rc_req_stack_push(top, req, req);
}

/* The whole stack (not empty), in the order pushed (linked by
 * stack_next). */
static struct rc_req *stack_take(struct rc_req **top)
{
	struct rc_req *req = __atomic_exchange_n(top, NULL, __ATOMIC_ACQUIRE);
	struct rc_req *first = NULL;

	if (!req->stack_next)
		return req; /* the usual case: one */
	while (req) {
		struct rc_req *next = req->stack_next;

		req->stack_next = first;
		first = req;
		req = next;
	}
	return first;
}

/*
 * At MULTIPLE, MPI_Irecv and MPI_Recv post outside the critical section
 * (rc_p2p_post_outside) onto p2p->incoming. The section's holder takes
 * those receives, in the order they came, and queues each as a post
 * inside would (its unexpected message first): at every progress call,
 * so a receive whose message is already unexpected finds it, and before
 * every post, probe and cancel inside, so a thread's receives keep its
 * order. A message that arrives while a receive sits there goes to the
 * unexpected queue, where the receive finds it: the two were concurrent.
 */
static unsigned match_drain_slow(struct rc_p2p *p2p);

/* Returns the receives it queued (events). */
static inline unsigned match_drain(struct rc_p2p *p2p)
{
	/* a load below MULTIPLE */
	if (RC_UNLIKELY(__atomic_load_n(&p2p->incoming, __ATOMIC_RELAXED)))
		return match_drain_slow(p2p);
	return 0;
}

/*
 * At MULTIPLE, a thread that finds the section taken hands its MPI_Isend
 * (and kin) to the holder (rc_p2p_isend_delegate) on p2p->outgoing. The
 * holder starts those sends in the order they came: at every progress
 * call, and before every send and send cancel inside, so a thread's sends
 * keep their order. While one waits there, its peer's ndelegated counts
 * it, and a send outside the section (send_eager_now) does not overtake
 * it.
 */
static unsigned send_drain_slow(struct rc_p2p *p2p);

/* Returns the sends it started (events). */
static inline unsigned send_drain(struct rc_p2p *p2p)
{
	/* a load below MULTIPLE */
	if (RC_UNLIKELY(__atomic_load_n(&p2p->outgoing, __ATOMIC_RELAXED)))
		return send_drain_slow(p2p);
	return 0;
}

static inline bool match_ok(int want_src, int want_tag, int src, int tag)
{
	return (want_src == src || want_src == MPI_ANY_SOURCE) &&
	       (want_tag == tag || want_tag == MPI_ANY_TAG);
}

static struct p2p_out *out_alloc(struct rc_p2p *p2p)
{
	struct p2p_out *o = p2p->out_free;

	if (o) {
		p2p->out_free = o->next_free;
	} else {
		o = malloc(sizeof(*o));
		if (!o)
			rc_abort(p2p->inst, MPI_ERR_NO_MEM,
				 "out of memory queueing a message");
	}
	o->req = NULL;
	o->stream = NULL;
	o->am = NULL;
	o->hlen = 0;
	return o;
}

static void out_free(struct rc_p2p *p2p, struct p2p_out *o)
{
	free(o->am);
	o->am = NULL;
	o->next_free = p2p->out_free;
	p2p->out_free = o;
}

static void out_enqueue(struct rc_p2p *p2p, int wrank, struct p2p_out *o)
{
	struct rc_proc *proc = &p2p->inst->procs[wrank];

	rc_list_add_tail(&proc->pending, &o->link);
	p2p->nqueued++;
	__atomic_store_n(&proc->npending, proc->npending + 1, __ATOMIC_RELEASE);
}

/* o leaves the peer's queue (handed to the transport, or dropped). */
static void out_dequeue(struct rc_p2p *p2p, int wrank, struct p2p_out *o)
{
	struct rc_proc *proc = &p2p->inst->procs[wrank];

	rc_list_del(&o->link);
	p2p->nqueued--;
	__atomic_store_n(&proc->npending, proc->npending - 1, __ATOMIC_RELEASE);
}

/*
 * A peer is gone for good (a transport said so). Only recorded here: this
 * can be called from inside a transport call; p2p_fail_peers() fails what
 * waits on the peer from the next progress call.
 */
static void p2p_mark_failed(struct rc_p2p *p2p, int wrank, int status)
{
	struct rc_proc *proc = &p2p->inst->procs[wrank];

	if (proc->failed)
		return;
	proc->failed = status ? status : RC_ERR_PEER;
	p2p->failures++;
}

static void p2p_failed_upcall(struct rc_inst *inst, int wrank, int status)
{
	p2p_mark_failed(inst->p2p, wrank, status);
}

/* Send a control message, behind anything already queued for the peer.
 * Nothing is sent to a failed peer. */
static void ctl_send(struct rc_p2p *p2p, int wrank, const void *hdr,
		     size_t hlen)
{
	struct rc_inst *inst = p2p->inst;
	struct p2p_out *o;
	int ret;

	if (RC_UNLIKELY(inst->procs[wrank].failed))
		return;
	if (rc_list_empty(&inst->procs[wrank].pending)) {
		ret = tp_send(inst, wrank, hdr, hlen, NULL, 0);
		if (ret == RC_OK)
			return;
		if (ret != RC_AGAIN) {
			p2p_mark_failed(p2p, wrank, ret);
			return;
		}
	}
	assert(hlen <= sizeof(o->hdr));
	o = out_alloc(p2p);
	memcpy(o->hdr, hdr, hlen);
	o->hlen = (uint16_t)hlen;
	out_enqueue(p2p, wrank, o);
}

static void ctl_fin(struct rc_p2p *p2p, int wrank, uint64_t id)
{
	struct rc_p2p_ctl fin = { .type = RC_P2P_FIN, .id = id };

	ctl_send(p2p, wrank, &fin, sizeof(fin));
}

/* Bytes a receive request can hold. */
static inline size_t recv_cap(const struct rc_req *req)
{
	return req->count * req->dt->size;
}

/* Copy bytes [off, off + n) of the incoming stream into the receive buffer */
static inline __attribute__((always_inline)) void
recv_copy(struct rc_req *req, size_t off, const void *src, size_t n)
{
	if (!n)
		return;
	if (rc_dt_is_contig(req->dt, req->count)) {
		char *d = (char *)rc_dt_contig_ptr(req->dt, req->buf) + off;

		/* 8 to 16 bytes: two moves of 8 (overlapping), no call */
		if (n >= 8 && n <= 16) {
			memcpy(d, src, 8);
			memcpy(d + n - 8, (const char *)src + n - 8, 8);
		} else {
			memcpy(d, src, n);
		}
	} else
		rc_dt_unpack(req->dt, req->count, req->buf, off, src, n);
}

static void recv_set_status(struct rc_req *req, int src, int tag,
			    size_t len)
{
	size_t cap = recv_cap(req);

	req->status.MPI_SOURCE = src;
	req->status.MPI_TAG = tag;
	req->status.rc_count = (MPI_Count)min_sz(len, cap);
	req->status.rc_cancelled = 0;
	req->p2p.len = min_sz(len, cap);
	/* truncation becomes the request's error when it completes: until
	 * then req->err only records transfer failures */
	req->status.MPI_ERROR = len > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
}

static void send_complete(struct rc_p2p *p2p, struct rc_req *req)
{
	struct rc_tp *tp;

	rc_list_del(&req->p2p.plink);
	if (req->p2p.mreg) {
		tp = peer_tp(p2p->inst, req->p2p.wpeer);
		tp->ops->mem_release(tp, req->p2p.mreg);
		req->p2p.mreg = NULL;
	}
	free(req->p2p.tmp);
	req->p2p.tmp = NULL;
	if (RC_UNLIKELY(req->p2p.cancel == CANCEL_WAIT)) {
		/* the receiver's answer to our CANCEL is still to come, and
		 * names this request: complete it then */
		req->p2p.cancel = CANCEL_DEFER;
		rc_list_add_tail(&p2p->inst->procs[req->p2p.wpeer].waiting,
				 &req->p2p.plink);
		return;
	}
	p2p->nsends--;
	rc_req_complete(req);
}

static void recv_complete(struct rc_p2p *p2p, struct rc_req *req)
{
	struct rc_tp *tp;

	rc_list_del(&req->p2p.plink);
	if (req->p2p.mreg) {
		tp = peer_tp(p2p->inst, req->p2p.wpeer);
		tp->ops->mem_release(tp, req->p2p.mreg);
		req->p2p.mreg = NULL;
	}
	if (req->p2p.tmp) {
		if (!req->err)
			rc_dt_unpack(req->dt, req->count, req->buf, 0,
				     req->p2p.tmp, req->p2p.len);
		free(req->p2p.tmp);
		req->p2p.tmp = NULL;
	}
	if (req->p2p.proto != RP_POSTED)
		p2p->nrecvs_rndv--;
	if (req->err)
		req->status.MPI_ERROR = rc_status_to_mpi(req->err);
	else if (req->status.MPI_ERROR == MPI_ERR_TRUNCATE)
		req->err = RC_ERR_TRUNCATE;
	rc_req_complete(req);
}

/* ---- sending ----------------------------------------------------------------
 * send_push() hands the next part of a send request to the transport:
 * RC_OK when nothing more is to be pushed now, RC_AGAIN when blocked.
 */

/* Contiguous source of a send: the user's buffer or the packed copy. */
static const void *send_src(struct rc_req *req)
{
	if (req->p2p.tmp)
		return req->p2p.tmp;
	return rc_dt_contig_ptr(req->dt, req->buf);
}

static bool send_is_contig(struct rc_req *req)
{
	return req->p2p.tmp || rc_dt_is_contig(req->dt, req->count);
}

static int send_push_eager(struct rc_p2p *p2p, struct rc_req *req,
			   struct rc_tp *tp)
{
	struct rc_p2p_sync h;
	size_t hlen = req->p2p.proto == SP_SYNC ? sizeof(h) : sizeof(h.h);
	const void *payload;
	size_t len = req->p2p.len;
	int ret;

	h.h.type = req->p2p.proto == SP_SYNC ? RC_P2P_EAGER_SYNC : RC_P2P_EAGER;
	h.h.flags = 0;
	h.h.rsvd = 0;
	h.h.ctx = req->ctx;
	h.h.src = req->comm->rank;
	h.h.tag = req->tag;
	h.sreq = req_id(req);
	if (send_is_contig(req)) {
		payload = send_src(req);
	} else {
		rc_dt_pack(req->dt, req->count, req->buf, 0, p2p->bounce, len);
		payload = p2p->bounce;
	}
	ret = tp_send(p2p->inst, req->p2p.wpeer, &h, hlen, payload, len);
	if (ret != RC_OK)
		return ret;
	if (req->p2p.proto == SP_SYNC) {
		req->p2p.proto = SP_WAIT_ACK;
		return RC_OK;
	}
	send_complete(p2p, req);
	return RC_OK;
}

static int send_push_frag(struct rc_p2p *p2p, struct rc_req *req,
			  struct rc_tp *tp)
{
	struct rc_p2p_data d = { .c.type = RC_P2P_DATA };
	size_t room = tp->max_am - sizeof(d);
	bool contig = send_is_contig(req);
	int ret;

	d.c.id = req->p2p.remote_id;
	while (req->p2p.sent < req->p2p.acked) {
		size_t n = min_sz(room, req->p2p.acked - req->p2p.sent);
		const void *payload;

		if (n > p2p->bounce_len)
			n = p2p->bounce_len;
		d.off = req->p2p.sent;
		if (contig) {
			payload = (const char *)send_src(req) + req->p2p.sent;
		} else {
			rc_dt_pack(req->dt, req->count, req->buf, req->p2p.sent,
				   p2p->bounce, n);
			payload = p2p->bounce;
		}
		ret = tp_send(p2p->inst, req->p2p.wpeer, &d, sizeof(d), payload,
			      n);
		if (ret != RC_OK)
			return ret;
		req->p2p.sent += n;
	}
	send_complete(p2p, req);
	return RC_OK;
}

static int send_push(struct rc_p2p *p2p, struct rc_req *req)
{
	struct rc_tp *tp = peer_tp(p2p->inst, req->p2p.wpeer);
	struct rc_p2p_rts rts;
	struct rc_p2p_ctl fin;
	int ret;

	switch (req->p2p.proto) {
	case SP_EAGER:
	case SP_SYNC:
		return send_push_eager(p2p, req, tp);
	case SP_RTS:
		memset(&rts, 0, sizeof(rts));
		rts.h.type = RC_P2P_RTS;
		rts.h.ctx = req->ctx;
		rts.h.src = req->comm->rank;
		rts.h.tag = req->tag;
		rts.sreq = req_id(req);
		rts.len = req->p2p.len;
		if (req->p2p.mreg) {
			rts.h.flags = RC_RTS_ADDR;
			rts.addr = (uint64_t)(uintptr_t)send_src(req);
			memcpy(rts.key, req->p2p.rkey, sizeof(rts.key));
		}
		ret = tp_send(p2p->inst, req->p2p.wpeer, &rts, sizeof(rts),
			      NULL, 0);
		if (ret == RC_OK)
			req->p2p.proto = SP_WAIT;
		return ret;
	case SP_FRAG:
		return send_push_frag(p2p, req, tp);
	case SP_PUT_FIN:
		fin = (struct rc_p2p_ctl){ .type = RC_P2P_FIN,
					   .id = req->p2p.remote_id };
		ret = tp_send(p2p->inst, req->p2p.wpeer, &fin, sizeof(fin),
			      NULL, 0);
		if (ret == RC_OK)
			send_complete(p2p, req);
		return ret;
	default:
		assert(!"send_push: request has nothing to send");
		return RC_ERR_INTERN;
	}
}

/* Push req now if nothing waits for its peer, else queue it behind. */
static void send_kick(struct rc_p2p *p2p, struct rc_req *req)
{
	struct rc_proc *proc = &p2p->inst->procs[req->p2p.wpeer];
	struct p2p_out *o;
	int ret;

	if (rc_list_empty(&proc->pending)) {
		ret = send_push(p2p, req);
		if (ret == RC_OK)
			return;
		if (ret != RC_AGAIN) {
			/* queued anyway: p2p_fail_peers() completes it */
			p2p_mark_failed(p2p, req->p2p.wpeer, ret);
			if (proc->failed_done) {
				req->err = proc->failed;
				send_complete(p2p, req);
				return;
			}
		}
	}
	o = out_alloc(p2p);
	o->req = req;
	out_enqueue(p2p, req->p2p.wpeer, o);
}

/* Retry what is queued on the peers, in order. */
static unsigned pending_progress(struct rc_p2p *p2p)
{
	struct rc_inst *inst = p2p->inst;
	unsigned events = 0;
	int w, ret;

	for (w = 0; w < inst->size && p2p->nqueued; w++) {
		struct rc_proc *proc = &inst->procs[w];

		while (!rc_list_empty(&proc->pending)) {
			struct p2p_out *o = rc_list_first(&proc->pending,
							  struct p2p_out, link);

			if (o->req)
				ret = send_push(p2p, o->req);
			else if (o->stream)
				ret = o->stream->push(o->stream);
			else if (o->am)
				ret = tp_send(inst, w, o->am, o->amlen, NULL,
					      0);
			else
				ret = tp_send(inst, w, o->hdr, o->hlen, NULL,
					      0);
			if (ret == RC_AGAIN)
				break;
			if (ret != RC_OK) {
				p2p_mark_failed(p2p, w, ret);
				break;
			}
			out_dequeue(p2p, w, o);
			out_free(p2p, o);
			events++;
		}
	}
	return events;
}

/* ---- get/put pipelines --------------------------------------------------- */

static void rdma_finish(struct rc_p2p *p2p, struct rc_req *req);

static void rdma_done(struct rc_tp_rdma *op, int status)
{
	struct p2p_rdma *r = rc_container_of(op, struct p2p_rdma, op);
	struct rc_req *req = r->req;
	struct rc_p2p *p2p = req->inst->p2p;

	req->p2p.inflight--;
	if (status != RC_OK && !req->err)
		req->err = status;
	req->p2p.acked += op->len;
	rc_list_del(&r->olink);
	free(r);
	if (status == RC_ERR_PEER)
		p2p_mark_failed(p2p, req->p2p.wpeer, status);
	/* after an error nothing more is issued: finish once none is out */
	if (!req->p2p.inflight &&
	    (req->p2p.acked == req->p2p.len || req->err))
		rdma_finish(p2p, req);
}

static void recv_rts(struct rc_p2p *p2p, struct rc_req *req, int wsrc,
		     uint64_t sreq, size_t len, unsigned flags, uint64_t raddr,
		     const uint8_t *rkey);

/* An RGET that cannot read: release the buffer and ask for fragments. */
static void rdma_fallback_frag(struct rc_p2p *p2p, struct rc_req *req)
{
	struct rc_tp *tp = peer_tp(p2p->inst, req->p2p.wpeer);

	tp->ops->mem_release(tp, req->p2p.mreg);
	req->p2p.mreg = NULL;
	free(req->p2p.tmp);
	req->p2p.tmp = NULL;
	p2p->nrecvs_rndv--;
	/* without the ADDR flag recv_rts chooses FRAG */
	recv_rts(p2p, req, req->p2p.wpeer, req->p2p.remote_id, req->p2p.len,
		 0, 0, NULL);
}

/* Issue get (receiver, RGET) or put (sender, RPUT) chunks. Returns true
 * when everything has been issued. */
static bool rdma_pump(struct rc_p2p *p2p, struct rc_req *req)
{
	struct rc_tp *tp = peer_tp(p2p->inst, req->p2p.wpeer);
	bool get = req->kind == RC_REQ_RECV;
	char *local = get ? (req->p2p.tmp ? req->p2p.tmp
					  : rc_dt_contig_ptr(req->dt, req->buf))
			  : (char *)send_src(req);

	while (req->p2p.sent < req->p2p.len && !req->err &&
	       req->p2p.inflight < tp->max_rdma) {
		size_t n = min_sz(tp->rdma_chunk, req->p2p.len - req->p2p.sent);
		struct p2p_rdma *r = malloc(sizeof(*r));
		int ret;

		if (!r)
			rc_abort(p2p->inst, MPI_ERR_NO_MEM,
				 "out of memory for a rendezvous chunk");
		r->req = req;
		r->op.done = rdma_done;
		r->op.arg = req;
		r->op.len = n;
		if (get)
			ret = tp->ops->get(tp, req->p2p.wpeer,
					   local + req->p2p.sent, req->p2p.mreg,
					   n, req->p2p.raddr + req->p2p.sent,
					   req->p2p.rkey, &r->op);
		else
			ret = tp->ops->put(tp, req->p2p.wpeer,
					   local + req->p2p.sent, req->p2p.mreg,
					   n, req->p2p.raddr + req->p2p.sent,
					   req->p2p.rkey, &r->op);
		if (ret == RC_AGAIN) {
			free(r);
			break;
		}
		if (ret == RC_ERR_UNSUPPORTED && get && !req->p2p.sent &&
		    !req->p2p.inflight) {
			/* the transport lost its get (e.g. CMA not permitted):
			 * stream the data instead */
			free(r);
			rdma_fallback_frag(p2p, req);
			return true;
		}
		req->p2p.sent += n;
		if (ret == RC_INPROGRESS) {
			req->p2p.inflight++;
			rc_list_add_tail(&p2p->rdma_out, &r->olink);
			continue;
		}
		free(r);
		if (ret != RC_OK) {
			req->err = ret;
			if (ret == RC_ERR_PEER)
				p2p_mark_failed(p2p, req->p2p.wpeer, ret);
			break;
		}
		req->p2p.acked += n;
	}
	if (req->err && !req->p2p.inflight) {
		req->p2p.sent = req->p2p.acked = req->p2p.len;
	}
	if (req->p2p.acked == req->p2p.len && !req->p2p.inflight) {
		rdma_finish(p2p, req);
		return true;
	}
	return req->p2p.sent == req->p2p.len;
}

static void rdma_schedule(struct rc_p2p *p2p, struct rc_req *req)
{
	/* the request may complete inside rdma_pump: look before */
	if (rdma_pump(p2p, req))
		return;
	rc_list_add_tail(&p2p->rdma_reqs, &req->link);
}

static unsigned rdma_progress(struct rc_p2p *p2p)
{
	struct rc_list batch;
	unsigned events = 0;

	/* requests that still have chunks to issue go back on the list */
	rc_list_splice_init(&p2p->rdma_reqs, &batch);
	while (!rc_list_empty(&batch)) {
		struct rc_req *req = rc_list_first(&batch, struct rc_req, link);

		rc_list_del(&req->link);
		if (rdma_pump(p2p, req))
			events++;	/* req may be gone */
		else
			rc_list_add_tail(&p2p->rdma_reqs, &req->link);
	}
	return events;
}

static void rdma_finish(struct rc_p2p *p2p, struct rc_req *req)
{
	/* after an error, chunks may be left unissued on the list */
	rc_list_del(&req->link);
	if (req->kind == RC_REQ_RECV) {
		/* RGET done: tell the sender, then deliver */
		ctl_fin(p2p, req->p2p.wpeer, req->p2p.remote_id);
		if (req->err)
			rc_log_err("rendezvous read from rank %d failed: %s",
				   req->p2p.wpeer, rc_status_str(req->err));
		recv_complete(p2p, req);
		return;
	}
	/* RPUT done: FIN behind the data */
	if (req->err) {
		rc_log_err("rendezvous write to rank %d failed: %s",
			   req->p2p.wpeer, rc_status_str(req->err));
		send_complete(p2p, req);
		return;
	}
	req->p2p.proto = SP_PUT_FIN;
	send_kick(p2p, req);
}

/* ---- receiving ----------------------------------------------------------- */

/* Matched an RTS: choose RGET, RPUT or FRAG and start it. */
static void recv_rts(struct rc_p2p *p2p, struct rc_req *req, int wsrc,
		     uint64_t sreq, size_t len, unsigned flags, uint64_t raddr,
		     const uint8_t *rkey)
{
	struct rc_tp *tp = peer_tp(p2p->inst, wsrc);
	bool contig = rc_dt_is_contig(req->dt, req->count);
	struct rc_p2p_cts cts;
	void *local;
	int ret;

	req->p2p.wpeer = wsrc;
	req->p2p.remote_id = sreq;
	req->p2p.sent = 0;
	req->p2p.acked = 0;
	p2p->nrecvs_rndv++;
	rc_list_del(&req->p2p.plink);
	rc_list_add_tail(&p2p->inst->procs[wsrc].waiting, &req->p2p.plink);
	/* req->p2p.len is now what we take (recv_set_status) */
	if ((flags & RC_RTS_ADDR) && req->p2p.len &&
	    (((tp->caps & RC_TP_CAP_GET) && p2p->rndv_mode == RNDV_GET) ||
	     ((tp->caps & RC_TP_CAP_PUT) && p2p->rndv_mode == RNDV_PUT))) {
		if (!contig) {
			req->p2p.tmp = malloc(req->p2p.len);
			if (!req->p2p.tmp)
				goto frag;
		}
		local = req->p2p.tmp ? req->p2p.tmp
				     : rc_dt_contig_ptr(req->dt, req->buf);
		ret = tp->ops->mem_expose(tp, local, req->p2p.len, cts.key,
					  &req->p2p.mreg);
		if (ret != RC_OK) {
			free(req->p2p.tmp);
			req->p2p.tmp = NULL;
			goto frag;
		}
		if (p2p->rndv_mode == RNDV_GET) {
			req->p2p.proto = RP_RGET;
			req->p2p.raddr = raddr;
			memcpy(req->p2p.rkey, rkey, sizeof(req->p2p.rkey));
			rdma_schedule(p2p, req);
			return;
		}
		req->p2p.proto = RP_RPUT;
		memset(&cts.c, 0, sizeof(cts.c));
		cts.c.type = RC_P2P_CTS;
		cts.c.flags = RC_CTS_ADDR;
		cts.c.id = sreq;
		cts.rreq = req_id(req);
		cts.want = req->p2p.len;
		cts.addr = (uint64_t)(uintptr_t)local;
		ctl_send(p2p, wsrc, &cts, sizeof(cts));
		return;
	}
frag:
	if (!req->p2p.len) {
		/* nothing to take: release the sender at once */
		req->p2p.proto = RP_FRAG;
		if (flags & RC_RTS_ADDR) {
			ctl_fin(p2p, wsrc, sreq);
		} else {
			memset(&cts, 0, sizeof(cts));
			cts.c.type = RC_P2P_CTS;
			cts.c.id = sreq;
			cts.rreq = req_id(req);
			ctl_send(p2p, wsrc, &cts, sizeof(cts));
		}
		recv_complete(p2p, req);
		return;
	}
	req->p2p.proto = RP_FRAG;
	memset(&cts, 0, sizeof(cts));
	cts.c.type = RC_P2P_CTS;
	cts.c.id = sreq;
	cts.rreq = req_id(req);
	cts.want = req->p2p.len;
	ctl_send(p2p, wsrc, &cts, sizeof(cts));
}

/* Deliver a matched message announced by hdr (payload for eager types). */
static void recv_matched(struct rc_p2p *p2p, struct rc_req *req, int wsrc,
			 const void *msg, size_t msglen)
{
	const struct rc_p2p_hdr *h = msg;

	req->flags &= ~RC_REQ_POSTED;
	req->p2p.wpeer = wsrc;
	if (h->type == RC_P2P_RTS) {
		const struct rc_p2p_rts *rts = msg;

		recv_set_status(req, h->src, h->tag, rts->len);
		recv_rts(p2p, req, wsrc, rts->sreq, rts->len, h->flags,
			 rts->addr, rts->key);
		return;
	}
	if (h->type == RC_P2P_EAGER_SYNC) {
		const struct rc_p2p_sync *s = msg;
		struct rc_p2p_ctl ack = { .type = RC_P2P_ACK, .id = s->sreq };

		recv_set_status(req, h->src, h->tag, msglen - sizeof(*s));
		recv_copy(req, 0, s + 1, req->p2p.len);
		ctl_send(p2p, wsrc, &ack, sizeof(ack));
	} else {
		recv_set_status(req, h->src, h->tag, msglen - sizeof(*h));
		recv_copy(req, 0, h + 1, req->p2p.len);
	}
	req->p2p.proto = RP_POSTED;
	recv_complete(p2p, req);
}

static void umsg_free(struct rc_p2p *p2p, struct rc_umsg *u)
{
	if (!u->small || p2p->numsg_free >= UMSG_KEEP) {
		free(u);
		return;
	}
	u->data = p2p->umsg_free;
	p2p->umsg_free = u;
	p2p->numsg_free++;
}

static struct rc_umsg *umsg_new(struct rc_p2p *p2p, int wsrc, const void *msg,
				size_t msglen)
{
	const struct rc_p2p_hdr *h = msg;
	size_t hlen = h->type == RC_P2P_EAGER_SYNC ? sizeof(struct rc_p2p_sync)
		    : h->type == RC_P2P_EAGER      ? sizeof(*h)
						   : msglen;
	size_t dlen = msglen - hlen;
	bool small = dlen <= UMSG_SMALL;
	struct rc_umsg *u = small ? p2p->umsg_free : NULL;

	if (u) {
		p2p->umsg_free = u->data;	/* the free list's link */
		p2p->numsg_free--;
	} else {
		u = malloc(sizeof(*u) + (small ? UMSG_SMALL : dlen));
	}
	if (!u)
		rc_abort(p2p->inst, MPI_ERR_NO_MEM,
			 "out of memory buffering an unexpected message");
	memset(u, 0, sizeof(*u));
	u->small = small;
	u->ctx = h->ctx;
	u->src = h->src;
	u->tag = h->tag;
	u->wsrc = wsrc;
	u->type = h->type;
	u->data = u + 1;
	if (h->type == RC_P2P_RTS) {
		const struct rc_p2p_rts *rts = msg;

		u->len = rts->len;
		u->sreq = rts->sreq;
		u->raddr = rts->addr;
		u->flags = h->flags;
		memcpy(u->rkey, rts->key, sizeof(u->rkey));
	} else {
		if (h->type == RC_P2P_EAGER_SYNC)
			u->sreq = ((const struct rc_p2p_sync *)msg)->sreq;
		u->len = dlen;
		memcpy(u->data, (const char *)msg + hlen, dlen);
	}
	return u;
}

/* A message carrying a match header arrived. */
static void on_match_msg(struct rc_p2p *p2p, int wsrc, const void *msg,
			 size_t len)
{
	const struct rc_p2p_hdr *h = msg;
	struct p2p_match *m = match_get(p2p, h->ctx);
	struct rc_list *pos;

	rc_list_for_each(pos, &m->posted) {
		struct rc_req *req = rc_list_entry(pos, struct rc_req, link);

		if (match_ok(req->peer, req->tag, h->src, h->tag)) {
			rc_list_del(&req->link);
			recv_matched(p2p, req, wsrc, msg, len);
			return;
		}
	}
	rc_list_add_tail(&m->unexp, &umsg_new(p2p, wsrc, msg, len)->link);
}

/* Receive an unexpected message into req; frees u. */
static void recv_umsg(struct rc_p2p *p2p, struct rc_req *req,
		      struct rc_umsg *u)
{
	req->flags &= ~RC_REQ_POSTED;
	req->p2p.wpeer = u->wsrc;
	recv_set_status(req, u->src, u->tag, u->len);
	if (u->type == RC_P2P_RTS) {
		recv_rts(p2p, req, u->wsrc, u->sreq, u->len, u->flags,
			 u->raddr, u->rkey);
	} else {
		recv_copy(req, 0, u->data, req->p2p.len);
		if (u->type == RC_P2P_EAGER_SYNC) {
			struct rc_p2p_ctl ack = { .type = RC_P2P_ACK,
						  .id = u->sreq };

			ctl_send(p2p, u->wsrc, &ack, sizeof(ack));
		}
		req->p2p.proto = RP_POSTED;
		recv_complete(p2p, req);
	}
	umsg_free(p2p, u);
}

static void on_cts(struct rc_p2p *p2p, int wsrc, const struct rc_p2p_cts *cts)
{
	struct rc_req *req = id_req(cts->c.id);

	assert(req->kind == RC_REQ_SEND && req->p2p.proto == SP_WAIT);
	req->p2p.remote_id = cts->rreq;
	req->p2p.sent = 0;
	req->p2p.acked = 0;
	if (cts->c.flags & RC_CTS_ADDR) {
		req->p2p.proto = SP_PUT;
		req->p2p.len = cts->want;
		req->p2p.raddr = cts->addr;
		memcpy(req->p2p.rkey, cts->key, sizeof(req->p2p.rkey));
		rdma_schedule(p2p, req);
		return;
	}
	/* FRAG: stream `want` bytes; acked holds the target */
	req->p2p.proto = SP_FRAG;
	req->p2p.acked = cts->want;
	if (!cts->want) {
		send_complete(p2p, req);
		return;
	}
	send_kick(p2p, req);
}

/* n bytes of a fragment are in the receive buffer */
static void data_landed(struct rc_p2p *p2p, struct rc_req *req, size_t n)
{
	req->p2p.acked += n;
	if (req->p2p.acked == req->p2p.len)
		recv_complete(p2p, req);
}

static void on_data(struct rc_p2p *p2p, const struct rc_p2p_data *d,
		    size_t len)
{
	struct rc_req *req = id_req(d->c.id);
	size_t n = len - sizeof(*d);

	assert(req->kind == RC_REQ_RECV && req->p2p.proto == RP_FRAG);
	recv_copy(req, d->off, d + 1, n);
	data_landed(p2p, req, n);
}

/* The transports' place upcall: a fragment for a contiguous receive
 * buffer lands in it directly; anything else goes through p2p_recv. */
static void *p2p_place(struct rc_inst *inst, int wsrc, const void *hdr,
		       size_t hlen, size_t plen)
{
	const struct rc_p2p_data *d = hdr;
	struct rc_req *req;

	if (hlen != sizeof(*d) || d->c.type != RC_P2P_DATA)
		return NULL;
	req = id_req(d->c.id);
	assert(req->kind == RC_REQ_RECV && req->p2p.proto == RP_FRAG &&
	       d->off + plen <= req->p2p.len);
	if (!rc_dt_is_contig(req->dt, req->count))
		return NULL;
	return (char *)rc_dt_contig_ptr(req->dt, req->buf) + d->off;
}

static void p2p_placed(struct rc_inst *inst, int wsrc, const void *hdr,
		       size_t hlen, size_t plen)
{
	const struct rc_p2p_data *d = hdr;

	data_landed(inst->p2p, id_req(d->c.id), plen);
}

static void on_fin(struct rc_p2p *p2p, const struct rc_p2p_ctl *c)
{
	struct rc_req *req = id_req(c->id);

	if (req->kind == RC_REQ_SEND) {
		/* the receiver has read our data (RGET) or took nothing */
		send_complete(p2p, req);
		return;
	}
	assert(req->p2p.proto == RP_RPUT);
	recv_complete(p2p, req);
}

static void on_ack(struct rc_p2p *p2p, const struct rc_p2p_ctl *c)
{
	struct rc_req *req = id_req(c->id);

	assert(req->kind == RC_REQ_SEND && req->p2p.proto == SP_WAIT_ACK);
	send_complete(p2p, req);
}

/* The sender of a message asks to cancel it: gone if still unexpected. */
static void on_cancel(struct rc_p2p *p2p, int wsrc,
		      const struct rc_p2p_cancel *cm)
{
	struct rc_p2p_ctl ack = {.type = RC_P2P_CANCEL_ACK, .id = cm->c.id};
	struct p2p_match *m = cm->ctx < RC_CTX_MAX ? p2p->match[cm->ctx] : NULL;
	struct rc_list *pos;

	if (m) {
		/* a receive posted before this message takes it first */
		match_drain(p2p);
		rc_list_for_each(pos, &m->unexp) {
			struct rc_umsg *u =
				rc_list_entry(pos, struct rc_umsg, link);

			if (u->wsrc != wsrc || u->sreq != cm->c.id ||
			    (u->type != RC_P2P_RTS &&
			     u->type != RC_P2P_EAGER_SYNC))
				continue;
			rc_list_del(&u->link);
			umsg_free(p2p, u);
			ack.flags = RC_CANCEL_DONE;
			break;
		}
	}
	ctl_send(p2p, wsrc, &ack, sizeof(ack));
}

static void send_cancelled(struct rc_p2p *p2p, struct rc_req *req)
{
	req->flags |= RC_REQ_CANCELLED;
	req->status.rc_cancelled = 1;
	req->status.rc_count = 0;
	send_complete(p2p, req);
}

static void on_cancel_ack(struct rc_p2p *p2p, const struct rc_p2p_ctl *c)
{
	struct rc_req *req = id_req(c->id);
	uint8_t was = req->p2p.cancel;

	assert(req->kind == RC_REQ_SEND && was != CANCEL_NONE);
	req->p2p.cancel = CANCEL_NONE;
	if (c->flags & RC_CANCEL_DONE) {
		/* never matched: nothing more comes for it */
		assert(was == CANCEL_WAIT);
		send_cancelled(p2p, req);
		return;
	}
	if (was == CANCEL_DEFER) {
		/* matched, and the transfer finished before the answer */
		rc_list_del(&req->p2p.plink);
		p2p->nsends--;
		rc_req_complete(req);
	}
	/* else matched: the transfer completes the request */
}

static void on_am(struct rc_p2p *p2p, int wsrc, const void *msg, size_t len)
{
	const struct rc_p2p_am *a = msg;

	if (RC_UNLIKELY(a->id >= RC_AM_NIDS || !p2p->am[a->id])) {
		rc_log_err("active message for handler %u from rank %d: none "
			   "registered", a->id, wsrc);
		rc_abort(p2p->inst, MPI_ERR_INTERN, "protocol error");
	}
	p2p->am[a->id]->recv(p2p->inst, wsrc, a + 1, len - sizeof(*a));
}

/* The transports' upcall: one message from world rank wsrc. */
static void p2p_recv(struct rc_inst *inst, int wsrc, const void *msg,
		     size_t len)
{
	struct rc_p2p *p2p = inst->p2p;

	/* the messages that match first, without the switch's jump table
	 * (one call site: on_match_msg is inlined here) */
	_Static_assert(RC_P2P_EAGER_SYNC == RC_P2P_EAGER + 1 &&
			       RC_P2P_RTS == RC_P2P_EAGER + 2,
		       "the three messages that match are consecutive");
	if (RC_LIKELY((uint8_t)(*(const uint8_t *)msg - RC_P2P_EAGER) <= 2)) {
		on_match_msg(p2p, wsrc, msg, len);
		return;
	}
	switch (*(const uint8_t *)msg) {
	case RC_P2P_CTS:
		on_cts(p2p, wsrc, msg);
		break;
	case RC_P2P_DATA:
		on_data(p2p, msg, len);
		break;
	case RC_P2P_FIN:
		on_fin(p2p, msg);
		break;
	case RC_P2P_ACK:
		on_ack(p2p, msg);
		break;
	case RC_P2P_AM:
		on_am(p2p, wsrc, msg, len);
		break;
	case RC_P2P_CANCEL:
		on_cancel(p2p, wsrc, msg);
		break;
	case RC_P2P_CANCEL_ACK:
		on_cancel_ack(p2p, msg);
		break;
	default:
		rc_log_err("unknown message type %u from rank %d",
			   *(const uint8_t *)msg, wsrc);
		rc_abort(inst, MPI_ERR_INTERN, "protocol error");
	}
}

/* ---- the interface ------------------------------------------------------- */

void rc_p2p_req_setup(struct rc_req *req, struct rc_comm *comm, uint32_t ctx,
		      void *buf, size_t count, struct rc_dtype *dt, int peer,
		      int tag, enum rc_send_mode mode)
{
	if (req->comm != comm) {
		/* pooled requests hold a reference (comm.h); requests on a
		 * blocking call's stack do not need one */
		if (req->flags & RC_REQ_POOLED) {
			rc_comm_retain(comm);
			if (req->comm)
				rc_comm_release(req->comm);
		}
		req->comm = comm;
	}
	req->ctx = ctx;
	req->buf = buf;
	req->count = count;
	if (req->dt != dt) {
		if (req->dt)
			rc_dt_release(req->dt);
		rc_dt_retain(dt);
		req->dt = dt;
	}
	req->peer = peer;
	req->tag = tag;
	req->mode = (uint8_t)mode;
}

/*
 * Start send req (the sends handed over before it started already). On an
 * error it is still ACTIVE, untouched by the transport: the caller makes
 * it INACTIVE, or completes it with the error (send_drain_slow).
 */
static int send_start(struct rc_p2p *p2p, struct rc_req *req)
{
	struct rc_inst *inst = p2p->inst;
	struct rc_proc *proc;
	struct rc_tp *tp;
	size_t len;
	int ret;

	/* one handed over is ACTIVE already, and its owner may read the
	 * state outside the section (a plain store on x86) */
	__atomic_store_n(&req->state, RC_REQ_ACTIVE, __ATOMIC_RELAXED);
	req->err = RC_OK;
	req->p2p.cancel = CANCEL_NONE;
	if (req->peer == MPI_PROC_NULL) {
		rc_status_set_empty(&req->status);
		rc_req_complete(req);
		return RC_OK;
	}
	if (req->mode == RC_SEND_BUFFERED) {
		/* the copy in the attached buffer is the message: this
		 * request is complete once it is made */
		ret = rc_bsend_post(req->comm, req->ctx, req->buf, req->count,
				    req->dt, req->peer, req->tag);
		if (ret)
			return ret;
		rc_req_complete(req);
		return RC_OK;
	}
	req->p2p.wpeer = rc_comm_wrank(req->comm, req->peer);
	req->p2p.tmp = NULL;
	req->p2p.mreg = NULL;
	req->p2p.sent = 0;
	req->p2p.acked = 0;
	req->p2p.inflight = 0;
	rc_list_init(&req->p2p.plink);
	proc = &inst->procs[req->p2p.wpeer];
	tp = proc->tp;
	len = req->count * req->dt->size;
	req->p2p.len = len;
	p2p->nsends++;
	if (RC_UNLIKELY(proc->failed)) {
		req->err = proc->failed;
		send_complete(p2p, req);
		return RC_OK;
	}
	if (len <= tp_eager(p2p, tp) && len + sizeof(struct rc_p2p_sync) <= tp->max_am) {
		req->p2p.proto = req->mode == RC_SEND_SYNC ? SP_SYNC : SP_EAGER;
	} else {
		req->p2p.proto = SP_RTS;
		if (tp->caps & (RC_TP_CAP_GET | RC_TP_CAP_PUT)) {
			if (!rc_dt_is_contig(req->dt, req->count)) {
				req->p2p.tmp = malloc(len);
				if (!req->p2p.tmp) {
					p2p->nsends--;
					return RC_ERR_NOMEM;
				}
				rc_dt_pack(req->dt, req->count, req->buf, 0,
					   req->p2p.tmp, len);
			}
			ret = tp->ops->mem_expose(tp, (void *)send_src(req), len,
						  req->p2p.rkey, &req->p2p.mreg);
			if (ret != RC_OK)
				req->p2p.mreg = NULL;	/* FRAG it is */
		}
	}
	/* until it completes, the protocol depends on the peer */
	if (req->p2p.proto != SP_EAGER)
		rc_list_add_tail(&proc->waiting, &req->p2p.plink);
	send_kick(p2p, req);
	return RC_OK;
}

/* A send posted inside the section: after those handed over before it. */
static inline int p2p_send_start(struct rc_p2p *p2p, struct rc_req *req)
{
	int ret;

	send_drain(p2p);
	ret = send_start(p2p, req);
	if (RC_UNLIKELY(ret))
		req->state = RC_REQ_INACTIVE;
	return ret;
}

/* A receive starts: ACTIVE, no protocol yet. */
static inline void recv_arm(struct rc_req *req)
{
	req->state = RC_REQ_ACTIVE;
	req->err = RC_OK;
	req->p2p.tmp = NULL;
	req->p2p.mreg = NULL;
	req->p2p.proto = RP_POSTED;
	rc_list_init(&req->p2p.plink);
}

/* Receive req (armed) takes its unexpected message from m, or waits on
 * m's posted queue. */
static inline __attribute__((always_inline)) void
recv_queue(struct rc_p2p *p2p, struct p2p_match *m, struct rc_req *req)
{
	struct rc_list *pos;

	rc_list_for_each(pos, &m->unexp) {
		struct rc_umsg *u = rc_list_entry(pos, struct rc_umsg, link);

		if (match_ok(req->peer, req->tag, u->src, u->tag)) {
			rc_list_del(&u->link);
			recv_umsg(p2p, req, u);
			return;
		}
	}
	/* nothing more will come from a failed peer */
	if (RC_UNLIKELY(req->peer != MPI_ANY_SOURCE &&
			p2p->inst->procs[rc_comm_wrank(req->comm, req->peer)]
				.failed)) {
		req->err = p2p->inst->procs[rc_comm_wrank(req->comm, req->peer)]
				   .failed;
		recv_complete(p2p, req);
		return;
	}
	req->flags |= RC_REQ_POSTED;
	rc_list_add_tail(&m->posted, &req->link);
}

static int p2p_recv_start(struct rc_p2p *p2p, struct rc_req *req)
{
	struct p2p_match *m;

	recv_arm(req);
	if (req->peer == MPI_PROC_NULL) {
		rc_status_set_empty(&req->status);
		rc_req_complete(req);
		return RC_OK;
	}
	/* after this thread's (and others') receives posted outside */
	match_drain(p2p);
	m = match_get(p2p, req->ctx);
	recv_queue(p2p, m, req);
	return RC_OK;
}

static unsigned match_drain_slow(struct rc_p2p *p2p)
{
	struct rc_req *req = stack_take(&p2p->incoming);
	unsigned n = 0;

	/* (stack_next is left as it is: the next push sets it) */
	while (req) {
		struct rc_req *next = req->stack_next;

		recv_queue(p2p, match_get(p2p, req->ctx), req);
		req = next;
		n++;
	}
	return n;
}

static unsigned send_drain_slow(struct rc_p2p *p2p)
{
	struct rc_req *req = stack_take(&p2p->outgoing);
	unsigned n = 0;

	while (req) {
		/* read first: once started, req may be done and gone */
		struct rc_req *next = req->stack_next;
		unsigned *nd = &p2p->inst->procs[req->p2p.wpeer].ndelegated;
		int ret = send_start(p2p, req);

		if (RC_UNLIKELY(ret != RC_OK)) {
			/* no memory to pack it: the request carries the error
			 * to its wait */
			req->err = ret;
			rc_req_complete(req);
		}
		/* after the send went out or was queued (npending) */
		__atomic_sub_fetch(nd, 1, __ATOMIC_RELEASE);
		req = next;
		n++;
	}
	return n;
}

/* Outside the section, at MULTIPLE: post receive req (new, its status
 * zero, and set up) onto p2p->incoming (above); false for MPI_PROC_NULL,
 * which completes inside (rc_p2p_start). */
bool rc_p2p_post_outside(struct rc_req *req)
{
	if (req->peer == MPI_PROC_NULL)
		return false;
	recv_arm(req);
	stack_push(&req->inst->p2p->incoming, req);
	return true;
}

int rc_p2p_start(struct rc_req *req)
{
	struct rc_p2p *p2p = req->inst->p2p;

	assert(req->state != RC_REQ_ACTIVE);
	memset(&req->status, 0, sizeof(req->status));
	if (req->kind == RC_REQ_SEND)
		return p2p_send_start(p2p, req);
	if (req->msg) {
		struct rc_umsg *u = req->msg;

		req->msg = NULL;
		return rc_p2p_mrecv_start(req, u);
	}
	return p2p_recv_start(p2p, req);
}

int rc_p2p_mrecv_start(struct rc_req *req, struct rc_umsg *u)
{
	struct rc_p2p *p2p = req->inst->p2p;

	req->state = RC_REQ_ACTIVE;
	req->err = RC_OK;
	req->p2p.tmp = NULL;
	req->p2p.mreg = NULL;
	req->p2p.proto = RP_POSTED;
	rc_list_init(&req->p2p.plink);
	if (!u) {
		rc_status_set_empty(&req->status);
		rc_req_complete(req);
		return RC_OK;
	}
	recv_umsg(p2p, req, u);
	return RC_OK;
}

int rc_p2p_isend(struct rc_comm *comm, uint32_t ctx, const void *buf,
		 size_t count, struct rc_dtype *dt, int dst, int tag,
		 enum rc_send_mode mode, struct rc_req **reqp)
{
	struct rc_req *req = rc_req_alloc(comm->inst, RC_REQ_SEND);
	int ret;

	if (!req)
		return RC_ERR_NOMEM;
	rc_p2p_req_setup(req, comm, ctx, (void *)buf, count, dt, dst, tag,
			 mode);
	ret = p2p_send_start(comm->inst->p2p, req);
	if (ret) {
		rc_req_free(req);
		return ret;
	}
	*reqp = req;
	return RC_OK;
}

int rc_p2p_irecv(struct rc_comm *comm, uint32_t ctx, void *buf, size_t count,
		 struct rc_dtype *dt, int src, int tag, struct rc_req **reqp)
{
	struct rc_req *req = rc_req_alloc(comm->inst, RC_REQ_RECV);

	if (!req)
		return RC_ERR_NOMEM;
	rc_p2p_req_setup(req, comm, ctx, buf, count, dt, src, tag,
			 RC_SEND_STD);
	p2p_recv_start(comm->inst->p2p, req);
	*reqp = req;
	return RC_OK;
}

int rc_p2p_irecv_outside(struct rc_comm *comm, void *buf, size_t count,
			 struct rc_dtype *dt, int src, int tag,
			 struct rc_req **reqp)
{
	struct rc_req *req = rc_req_alloc_out(comm->inst, RC_REQ_RECV);

	*reqp = req;
	if (RC_UNLIKELY(!req))
		return RC_ERR_NOMEM;
	rc_p2p_req_setup(req, comm, comm->ctx, buf, count, dt, src, tag,
			 RC_SEND_STD);
	return rc_p2p_post_outside(req) ? RC_OK : RC_AGAIN;
}

/* Send req (set up, its status zero) onto p2p->outgoing, for the holder. */
static void send_hand_over(struct rc_req *req)
{
	struct rc_inst *inst = req->inst;

	assert(req->peer != MPI_PROC_NULL && req->mode != RC_SEND_BUFFERED);
	req->p2p.wpeer = rc_comm_wrank(req->comm, req->peer);
	/* active from now on: a wait waits, MPI_Request_free defers, a
	 * cancel drains first */
	__atomic_store_n(&req->state, RC_REQ_ACTIVE, __ATOMIC_RELAXED);
	__atomic_add_fetch(&inst->procs[req->p2p.wpeer].ndelegated, 1,
			   __ATOMIC_RELAXED);
	stack_push(&inst->p2p->outgoing, req);
}

int rc_p2p_isend_delegate(struct rc_comm *comm, const void *buf, size_t count,
			  struct rc_dtype *dt, int dst, int tag,
			  enum rc_send_mode mode, struct rc_req **reqp)
{
	struct rc_req *req = rc_req_alloc_out(comm->inst, RC_REQ_SEND);

	if (RC_UNLIKELY(!req))
		return RC_ERR_NOMEM;
	rc_p2p_req_setup(req, comm, comm->ctx, (void *)buf, count, dt, dst, tag,
			 mode);
	send_hand_over(req);
	*reqp = req;
	return RC_OK;
}

void rc_p2p_start_outside(struct rc_req *req)
{
	assert(rc_p2p_startable_outside(req));
	memset(&req->status, 0, sizeof(req->status));
	if (req->kind == RC_REQ_RECV)
		rc_p2p_post_outside(req);
	else
		send_hand_over(req);
}

/*
 * One eager message now, without a request, or RC_AGAIN: inside the
 * critical section when nothing is queued for the peer (rc_p2p_send_now);
 * outside it (rc_p2p_send_outside) only to a peer whose transport lets
 * senders run at once, when nothing is queued for it (npending, read
 * atomically: this thread counted its own queued sends in), and a
 * transport's "not now" or error is RC_AGAIN (the whole path reports it).
 */
static inline __attribute__((always_inline)) int
send_eager_now(struct rc_comm *comm, uint32_t ctx, const void *buf,
	       size_t count, struct rc_dtype *dt, int dst, int tag,
	       bool outside)
{
	struct rc_inst *inst = comm->inst;
	struct rc_p2p_hdr h = {
		.type = RC_P2P_EAGER,
		.ctx = ctx,
		.src = comm->rank,
		.tag = tag,
	};
	struct rc_proc *proc;
	struct rc_tp *tp;
	size_t len;
	int w, ret;

	if (dst == MPI_PROC_NULL)
		return RC_OK;
	if (!rc_dt_is_contig(dt, count))
		return RC_AGAIN;
	w = rc_comm_wrank(comm, dst);
	proc = &inst->procs[w];
	tp = proc->tp;
	if (outside && !proc->send_mt)
		return RC_AGAIN;
	len = count * dt->size;
	if (len > tp_eager(inst->p2p, tp) ||
	    len + sizeof(struct rc_p2p_hdr) > tp->max_am)
		return RC_AGAIN;
	/* outside: ndelegated first. The holder lowers it (release) after
	 * the send it counted went out or was queued (npending raised), so
	 * a 0 read here (acquire) makes that npending visible to the load
	 * after it; the other order could read npending before the queueing
	 * and ndelegated after the lowering, and overtake. */
	if (outside ? __atomic_load_n(&proc->ndelegated, __ATOMIC_ACQUIRE) ||
			      __atomic_load_n(&proc->npending, __ATOMIC_ACQUIRE)
		    : !rc_list_empty(&proc->pending))
		return RC_AGAIN;
	ret = tp_send(inst, w, &h, sizeof(h), rc_dt_contig_ptr(dt, buf), len);
	return outside && ret != RC_OK ? RC_AGAIN : ret;
}

/* rc_p2p_send_now, inline in a blocking send's start (send_begin) */
static inline __attribute__((always_inline)) int
send_now(struct rc_comm *comm, uint32_t ctx, const void *buf, size_t count,
	 struct rc_dtype *dt, int dst, int tag)
{
	/* after the sends handed over before it */
	send_drain(comm->inst->p2p);
	return send_eager_now(comm, ctx, buf, count, dt, dst, tag, false);
}

int rc_p2p_send_now(struct rc_comm *comm, uint32_t ctx, const void *buf,
		    size_t count, struct rc_dtype *dt, int dst, int tag)
{
	return send_now(comm, ctx, buf, count, dt, dst, tag);
}

int rc_p2p_send_outside(struct rc_comm *comm, const void *buf, size_t count,
			struct rc_dtype *dt, int dst, int tag)
{
	return send_eager_now(comm, comm->ctx, buf, count, dt, dst, tag, true);
}

/*
 * The same for MPI_Isend: the request is taken first (a message that went
 * out cannot come back for want of one) and is born done, of kind
 * RC_REQ_SENT, with nothing of the engine's (request.h).
 */
int rc_p2p_isend_outside(struct rc_comm *comm, const void *buf, size_t count,
			 struct rc_dtype *dt, int dst, int tag,
			 struct rc_req **reqp)
{
	struct rc_req *req = rc_req_alloc_out(comm->inst, RC_REQ_SENT);
	int ret;

	if (RC_UNLIKELY(!req))
		return RC_AGAIN;
	ret = send_eager_now(comm, comm->ctx, buf, count, dt, dst, tag, true);
	if (ret != RC_OK) {
		rc_req_free(req);
		return ret;
	}
	*reqp = req;
	return RC_OK;
}

static inline __attribute__((always_inline)) int
send_begin(struct rc_comm *comm, uint32_t ctx, const void *buf, size_t count,
	   struct rc_dtype *dt, int dst, int tag, enum rc_send_mode mode,
	   struct rc_req *req, bool *started)
{
	struct rc_inst *inst = comm->inst;
	int ret;

	if (dst == MPI_PROC_NULL)
		return RC_OK;
	if (mode == RC_SEND_BUFFERED)
		return rc_bsend_post(comm, ctx, buf, count, dt, dst, tag);
	if (mode != RC_SEND_SYNC) {
		ret = send_now(comm, ctx, buf, count, dt, dst, tag);
		if (ret != RC_AGAIN)
			return ret;
	}
	rc_req_init_stack(req, inst, RC_REQ_SEND);
	rc_p2p_req_setup(req, comm, ctx, (void *)buf, count, dt, dst, tag,
			 mode);
	ret = p2p_send_start(inst->p2p, req);
	if (ret)
		rc_dt_release(req->dt);
	else
		*started = true;
	return ret;
}

int rc_p2p_send_begin(struct rc_comm *comm, uint32_t ctx, const void *buf,
		      size_t count, struct rc_dtype *dt, int dst, int tag,
		      enum rc_send_mode mode, struct rc_req *req, bool *started)
{
	return send_begin(comm, ctx, buf, count, dt, dst, tag, mode, req,
			  started);
}

int rc_p2p_send_end(struct rc_req *req)
{
	int ret = req->err;

	rc_dt_release(req->dt);
	req->dt = NULL;
	return ret;
}

int rc_p2p_send(struct rc_comm *comm, uint32_t ctx, const void *buf,
		size_t count, struct rc_dtype *dt, int dst, int tag,
		enum rc_send_mode mode)
{
	struct rc_req req;
	bool started = false;
	int ret = send_begin(comm, ctx, buf, count, dt, dst, tag, mode, &req,
			     &started);

	if (ret || !started)
		return ret;
	rc_req_wait_done(&req);
	return rc_p2p_send_end(&req);
}

bool rc_p2p_iprobe(struct rc_comm *comm, uint32_t ctx, int src, int tag,
		   bool remove, MPI_Status *status, struct rc_umsg **msg)
{
	struct rc_p2p *p2p = comm->inst->p2p;
	struct p2p_match *m = match_get(p2p, ctx);
	struct rc_list *pos;

	/* a receive posted before the probe takes its message first */
	match_drain(p2p);
	rc_list_for_each(pos, &m->unexp) {
		struct rc_umsg *u = rc_list_entry(pos, struct rc_umsg, link);

		if (!match_ok(src, tag, u->src, u->tag))
			continue;
		if (status != MPI_STATUS_IGNORE) {
			status->MPI_SOURCE = u->src;
			status->MPI_TAG = u->tag;
			status->rc_count = (MPI_Count)u->len;
			status->rc_cancelled = 0;
		}
		if (remove) {
			rc_list_del(&u->link);
			*msg = u;
		}
		return true;
	}
	return false;
}

/* A send not yet handed to its transport: take it off the peer's queue. */
static bool send_unqueue(struct rc_p2p *p2p, struct rc_req *req)
{
	struct rc_list *pos;

	rc_list_for_each(pos, &p2p->inst->procs[req->p2p.wpeer].pending) {
		struct p2p_out *o = rc_list_entry(pos, struct p2p_out, link);

		if (o->req != req)
			continue;
		out_dequeue(p2p, req->p2p.wpeer, o);
		out_free(p2p, o);
		return true;
	}
	return false;
}

static void send_cancel(struct rc_p2p *p2p, struct rc_req *req)
{
	struct rc_p2p_cancel cm;

	if (req->p2p.cancel != CANCEL_NONE)
		return; /* asked already */
	switch (req->p2p.proto) {
	case SP_EAGER:
	case SP_SYNC:
	case SP_RTS:
		/* active in these states: still queued, nothing sent */
		if (send_unqueue(p2p, req))
			send_cancelled(p2p, req);
		return;
	case SP_WAIT:
	case SP_WAIT_ACK:
		if (p2p->inst->procs[req->p2p.wpeer].failed)
			return; /* fail_peer() completes it */
		memset(&cm, 0, sizeof(cm));
		cm.c.type = RC_P2P_CANCEL;
		cm.c.id = req_id(req);
		cm.ctx = req->ctx;
		req->p2p.cancel = CANCEL_WAIT;
		ctl_send(p2p, req->p2p.wpeer, &cm, sizeof(cm));
		return;
	default:
		return; /* matched: the data is on its way */
	}
}

void rc_p2p_cancel(struct rc_req *req)
{
	if (req->kind == RC_REQ_SEND)
		send_drain(req->inst->p2p); /* one handed over starts first */
	if (req->state != RC_REQ_ACTIVE)
		return;
	if (req->kind == RC_REQ_SEND) {
		if (req->peer != MPI_PROC_NULL && req->mode != RC_SEND_BUFFERED)
			send_cancel(req->inst->p2p, req);
		return;
	}
	if (req->kind != RC_REQ_RECV)
		return;
	/* one posted outside the section is queued (or matched) first */
	match_drain(req->inst->p2p);
	if (!(req->flags & RC_REQ_POSTED))
		return;
	rc_list_del(&req->link);
	req->flags &= ~RC_REQ_POSTED;
	req->flags |= RC_REQ_CANCELLED;
	req->status.rc_cancelled = 1;
	req->status.rc_count = 0;
	req->status.MPI_SOURCE = MPI_ANY_SOURCE;
	req->status.MPI_TAG = MPI_ANY_TAG;
	rc_req_complete(req);
}

/* ---- active messages of the layers above --------------------------------- */

void rc_am_register(struct rc_inst *inst, unsigned id,
		    const struct rc_am_ops *ops)
{
	assert(id < RC_AM_NIDS);
	inst->p2p->am[id] = ops;
}

size_t rc_am_max(struct rc_inst *inst, int w)
{
	return peer_tp(inst, w)->max_am - sizeof(struct rc_p2p_am);
}

size_t rc_am_frag(struct rc_inst *inst, int w)
{
	size_t n = tp_eager(inst->p2p, peer_tp(inst, w));
	size_t max = rc_am_max(inst, w);

	return n < max ? n : max;
}

/* The transport's message: our prefix and the header in one buffer. */
static int am_push(struct rc_inst *inst, int w, unsigned id, const void *hdr,
		   size_t hlen, const void *payload, size_t len)
{
	union {
		struct rc_p2p_am a;
		uint8_t b[sizeof(struct rc_p2p_am) + RC_AM_HDR_MAX];
	} m;

	assert(hlen <= RC_AM_HDR_MAX);
	memset(&m.a, 0, sizeof(m.a));
	m.a.type = RC_P2P_AM;
	m.a.id = (uint8_t)id;
	memcpy(m.b + sizeof(m.a), hdr, hlen);
	return tp_send(inst, w, &m, sizeof(m.a) + hlen, payload, len);
}

int rc_am_send_now(struct rc_inst *inst, int w, unsigned id, const void *hdr,
		   size_t hlen, const void *payload, size_t len)
{
	return am_push(inst, w, id, hdr, hlen, payload, len);
}

int rc_am_send(struct rc_inst *inst, int w, unsigned id, const void *hdr,
	       size_t hlen, const void *payload, size_t len)
{
	struct rc_p2p *p2p = inst->p2p;
	struct rc_proc *proc = &inst->procs[w];
	struct rc_p2p_am a = { .type = RC_P2P_AM, .id = (uint8_t)id };
	struct p2p_out *o;
	char *c;
	int ret;

	if (RC_UNLIKELY(proc->failed))
		return proc->failed;
	if (rc_list_empty(&proc->pending)) {
		ret = am_push(inst, w, id, hdr, hlen, payload, len);
		if (ret == RC_OK)
			return RC_OK;
		if (ret != RC_AGAIN) {
			p2p_mark_failed(p2p, w, ret);
			return ret;
		}
	}
	c = malloc(sizeof(a) + hlen + len);
	if (!c)
		return RC_ERR_NOMEM;
	memcpy(c, &a, sizeof(a));
	memcpy(c + sizeof(a), hdr, hlen);
	if (len)
		memcpy(c + sizeof(a) + hlen, payload, len);
	o = out_alloc(p2p);
	o->am = c;
	o->amlen = sizeof(a) + hlen + len;
	out_enqueue(p2p, w, o);
	return RC_OK;
}

void rc_am_stream_start(struct rc_inst *inst, struct rc_am_stream *s)
{
	struct rc_p2p *p2p = inst->p2p;
	struct rc_proc *proc = &inst->procs[s->wrank];
	struct p2p_out *o;
	int ret;

	if (RC_UNLIKELY(proc->failed_done)) {
		s->drop(s, proc->failed);
		return;
	}
	if (rc_list_empty(&proc->pending) && !proc->failed) {
		ret = s->push(s);
		if (ret == RC_OK)
			return;
		if (ret != RC_AGAIN)
			p2p_mark_failed(p2p, s->wrank, ret);
	}
	/* queued: after a failure p2p_fail_peers() drops it */
	o = out_alloc(p2p);
	o->stream = s;
	out_enqueue(p2p, s->wrank, o);
}

/* ---- a peer failed ------------------------------------------------------- */

static bool comm_has(const struct rc_comm *comm, int wrank)
{
	int i;

	for (i = 0; i < rc_comm_psize(comm); i++)
		if (rc_comm_wrank(comm, i) == wrank)
			return true;
	return false;
}

/*
 * Fail everything that waits on failed peer w, with the status its
 * transport reported: messages queued for it, protocols in progress with
 * it (a request with get/put still out is finished by their completions),
 * receives naming it, and wildcard receives of communicators that hold it
 * (nothing guarantees another sender). The errors reach the user through
 * the communicators' handlers: MPI_ERRORS_ARE_FATAL ends the job,
 * MPI_ERRORS_RETURN returns MPI_ERR_PROC_FAILED.
 */
static unsigned fail_peer(struct rc_p2p *p2p, int w)
{
	struct rc_proc *proc = &p2p->inst->procs[w];
	int err = proc->failed;
	unsigned events = 0;
	uint32_t ctx;
	unsigned id;

	match_drain(p2p); /* (receives naming w complete below) */

	rc_log_debug("pt2pt: failing what waits on rank %d (%s)", w,
		     rc_status_str(err));
	while (!rc_list_empty(&proc->pending)) {
		struct p2p_out *o = rc_list_first(&proc->pending,
						  struct p2p_out, link);
		struct rc_req *req = o->req;
		struct rc_am_stream *st = o->stream;

		out_dequeue(p2p, w, o);
		out_free(p2p, o);
		if (req) {
			req->err = err;
			send_complete(p2p, req);
		}
		if (st)
			st->drop(st, err);
		events++;
	}
	while (!rc_list_empty(&proc->waiting)) {
		struct rc_req *req = rc_list_first(&proc->waiting,
						   struct rc_req, p2p.plink);

		rc_list_del(&req->p2p.plink);
		rc_list_del(&req->link);	/* off the get/put list */
		req->err = err;
		events++;
		if (req->p2p.inflight)
			continue;	/* rdma_done() finishes it */
		if (req->kind == RC_REQ_SEND) {
			/* no answer to a CANCEL will come */
			req->p2p.cancel = CANCEL_NONE;
			send_complete(p2p, req);
		} else {
			recv_complete(p2p, req);
		}
	}
	for (ctx = 0; ctx < RC_CTX_MAX; ctx++) {
		struct p2p_match *m = p2p->match[ctx];
		struct rc_list *pos, *n;

		if (!m)
			continue;
		rc_list_for_each_safe(pos, n, &m->posted) {
			struct rc_req *req = rc_list_entry(pos, struct rc_req,
							   link);

			if (req->peer == MPI_ANY_SOURCE
				    ? !comm_has(req->comm, w)
				    : rc_comm_wrank(req->comm, req->peer) != w)
				continue;
			rc_list_del(&req->link);
			req->flags &= ~RC_REQ_POSTED;
			req->err = err;
			req->status.MPI_SOURCE = req->peer;
			req->status.MPI_TAG = req->tag;
			req->status.rc_count = 0;
			recv_complete(p2p, req);
			events++;
		}
	}
	for (id = 0; id < RC_AM_NIDS; id++)
		if (p2p->am[id] && p2p->am[id]->failed)
			p2p->am[id]->failed(p2p->inst, w, err);
	return events;
}

static unsigned p2p_fail_peers(struct rc_p2p *p2p)
{
	struct rc_inst *inst = p2p->inst;
	unsigned events = 0;
	int w;

	p2p->failures = 0;
	for (w = 0; w < inst->size; w++) {
		struct rc_proc *proc = &inst->procs[w];

		if (!proc->failed || proc->failed_done)
			continue;
		proc->failed_done = true;
		events += fail_peer(p2p, w);
	}
	return events;
}

/* ---- progress, open, close ----------------------------------------------- */

static unsigned p2p_progress(struct rc_inst *inst, void *arg)
{
	struct rc_p2p *p2p = arg;
	unsigned events = match_drain(p2p) + send_drain(p2p);
	int i;

	for (i = 0; i < inst->ntps; i++)
		events += inst->tps[i]->ops->progress(inst->tps[i]);
	if (RC_UNLIKELY(p2p->nqueued))
		events += pending_progress(p2p);
	if (RC_UNLIKELY(!rc_list_empty(&p2p->rdma_reqs)))
		events += rdma_progress(p2p);
	if (RC_UNLIKELY(p2p->failures))
		events += p2p_fail_peers(p2p);
	return events;
}

unsigned rc_p2p_poll_tp(struct rc_inst *inst, struct rc_tp *tp)
{
	rc_progress_begin(inst);
	return rc_progress_end(inst, tp->ops->progress(tp));
}

static int p2p_add_tp(struct rc_inst *inst, const struct rc_tp_ops *ops,
		      struct rc_tp **out)
{
	struct rc_tp *tp;
	int ret;

	ret = ops->open(inst, &tp);
	if (ret)
		return ret;
	tp->recv = p2p_recv;
	tp->place = p2p_place;
	tp->placed = p2p_placed;
	tp->failed = p2p_failed_upcall;
	inst->tps[inst->ntps++] = tp;
	if (out)
		*out = tp;
	return RC_OK;
}


int rc_p2p_open(struct rc_inst *inst)
{
	struct rc_p2p *p2p = calloc(1, sizeof(*p2p));
	const char *list, *mode;
	int w, ret;

	if (!p2p)
		return RC_ERR_NOMEM;
	p2p->inst = inst;
	inst->p2p = p2p;
	rc_list_init(&p2p->rdma_reqs);
	rc_list_init(&p2p->rdma_out);
	for (w = 0; w < inst->size; w++) {
		rc_list_init(&inst->procs[w].pending);
		rc_list_init(&inst->procs[w].waiting);
	}
	mode = rc_param_str(RC_P_RNDV_MODE);
	if (!strcmp(mode, "put")) {
		p2p->rndv_mode = RNDV_PUT;
	} else if (!strcmp(mode, "frag")) {
		p2p->rndv_mode = RNDV_FRAG;
	} else if (strcmp(mode, "get")) {
		rc_log_err("RCMPI_RNDV_MODE=%s: expected get, put or frag",
			   mode);
		return RC_ERR_INVAL;
	}
	p2p->eager_max = (size_t)rc_param_int(RC_P_EAGER_LIMIT);

	ret = p2p_add_tp(inst, &rc_tp_loop_ops, &inst->self_tp);
	if (ret)
		return ret;
	if (inst->loop_fabric)
		return rc_progress_register(inst, p2p_progress, p2p);
	list = rc_param_str(RC_P_TRANSPORTS);
	if (rc_param_list_has(list, "shm") && inst->size > 1) {
		ret = p2p_add_tp(inst, &rc_tp_shm_ops, NULL);
		if (ret)
			return ret;
	}
	if (rc_param_list_has(list, "verbs") && inst->size > 1) {
		ret = p2p_add_tp(inst, &rc_tp_verbs_ops, NULL);
		/* no device: an error only if a peer needs verbs (connect) */
		if (ret && ret != RC_ERR_NODEV)
			return ret;
		p2p->verbs_absent = ret == RC_ERR_NODEV;
	}
	/* TCP comes last: it serves the peers no other transport reaches.
	 * A job on one node with shared memory never needs it. */
	if (rc_param_list_has(list, "tcp") && inst->size > 1 &&
	    (inst->local_size < inst->size ||
	     !rc_param_list_has(list, "shm"))) {
		ret = p2p_add_tp(inst, &rc_tp_tcp_ops, NULL);
		if (ret && ret != RC_ERR_NODEV)
			return ret;
	}
	return rc_progress_register(inst, p2p_progress, p2p);
}

_Static_assert(RC_TP_NO_FAST == RC_SPIN_NONE, "one 'nothing to look at'");

/* rc_progress_spin's looks for a blocking receive: one still waiting for
 * its message (posted), from a named peer whose transport lets us watch
 * for it (poll_fast: the whole receive buffer fits the way it comes).
 * Nothing to look at for anything else: what completes it comes through a
 * progress call (an RDMA completion, a message too big for a ring). The
 * peer, its transport and the receive's size are found once per spin,
 * not per look. */
static unsigned p2p_spin(struct rc_inst *inst, struct rc_req *req,
			 unsigned looks)
{
	struct rc_tp *tp;
	int w;

	if (req->kind != RC_REQ_RECV || !(req->flags & RC_REQ_POSTED) ||
	    req->peer < 0)
		return RC_SPIN_NONE;
	w = rc_comm_wrank(req->comm, req->peer);
	tp = inst->procs[w].tp;
	if (!tp || !tp->ops->poll_fast)
		return RC_SPIN_NONE;
	/* (a synchronous send's header is the longer of the two eager ones) */
	return tp->ops->poll_fast(
		tp, w, sizeof(struct rc_p2p_sync) + recv_cap(req), looks);
}

int rc_p2p_connect(struct rc_inst *inst)
{
	struct rc_p2p *p2p = inst->p2p;
	size_t bounce = 0;
	int w, i, ret;

	for (w = 0; w < inst->size; w++) {
		struct rc_proc *proc = &inst->procs[w];

		if (w == inst->rank) {
			proc->tp = inst->self_tp;
			continue;
		}
		for (i = 0; i < inst->ntps && !proc->tp; i++) {
			struct rc_tp *tp = inst->tps[i];

			if (tp->ops->reachable(tp, w))
				proc->tp = tp;
		}
		proc->send_mt =
			proc->tp && (proc->tp->caps & RC_TP_CAP_SEND_MT);
		inst->send_mt_any |= proc->send_mt;
		if (!proc->tp) {
			const char *list = rc_param_str(RC_P_TRANSPORTS);
			bool verbs_open = false;

			for (i = 0; i < inst->ntps; i++)
				verbs_open |=
					inst->tps[i]->ops == &rc_tp_verbs_ops;
			rc_log_err("no transport reaches rank %d on %s "
				   "(RCMPI_TRANSPORTS=%s)%s%s",
				   w, proc->host, list,
				   rc_param_list_has(list, "verbs") && !verbs_open
					   ? ": it needs the verbs transport, "
					     "which is not available here: "
					   : "",
				   rc_param_list_has(list, "verbs") && !verbs_open
					   ? rc_tp_verbs_open_error()
					   : "");
			return RC_ERR_UNREACH;
		}
	}
	for (i = 0; i < inst->ntps; i++) {
		struct rc_tp *tp = inst->tps[i];

		ret = tp->ops->connect(tp);
		if (ret)
			return ret;
		if (tp->eager_limit > bounce)
			bounce = tp->eager_limit;
		if (tp->max_am > bounce)
			bounce = tp->max_am;
		if (tp->ops->poll_fast)
			inst->spin = p2p_spin;
	}
	/* the ranks with a device fence in verbs' connect: so do we */
	if (p2p->verbs_absent && rc_tp_verbs_fences(inst, false, false)) {
		ret = inst->boot.ops->fence(&inst->boot, false);
		if (ret)
			return ret;
	}
	p2p->bounce_len = bounce;
	p2p->bounce = malloc(bounce);
	return p2p->bounce ? RC_OK : RC_ERR_NOMEM;
}

int rc_p2p_drain(struct rc_inst *inst)
{
	struct rc_p2p *p2p = inst->p2p;

	if (!p2p)
		return RC_OK;
	while (p2p->nsends || p2p->nqueued || p2p->nrecvs_rndv ||
	       __atomic_load_n(&p2p->outgoing, __ATOMIC_RELAXED)) {
		if (!rc_progress(inst))
			rc_progress_idle(inst);
	}
	return RC_OK;
}

void rc_p2p_close(struct rc_inst *inst)
{
	struct rc_p2p *p2p = inst->p2p;
	struct p2p_out *o;
	int i;

	if (!p2p)
		return;
	for (i = inst->ntps - 1; i >= 0; i--)
		inst->tps[i]->ops->close(inst->tps[i]);
	/* and in verbs' close */
	if (p2p->verbs_absent && rc_tp_verbs_fences(inst, false, true) &&
	    inst->boot.ops && inst->boot.ops->fence(&inst->boot, false))
		rc_log_debug("fence at close (for verbs) failed");
	inst->ntps = 0;
	inst->self_tp = NULL;
	/* operations a closed transport never completed (a failed peer) */
	while (!rc_list_empty(&p2p->rdma_out)) {
		struct p2p_rdma *r = rc_list_first(&p2p->rdma_out,
						   struct p2p_rdma, olink);

		rc_list_del(&r->olink);
		free(r);
	}
	/* after a failure, messages may still wait for a peer */
	for (i = 0; inst->procs && i < inst->size; i++) {
		struct rc_list *pos, *n;

		rc_list_for_each_safe(pos, n, &inst->procs[i].pending) {
			struct p2p_out *q = rc_list_entry(pos, struct p2p_out,
							  link);

			free(q->am);
			free(q);
		}
		rc_list_init(&inst->procs[i].pending);
		inst->procs[i].npending = 0;
	}
	for (i = 0; i < RC_CTX_MAX; i++) {
		struct p2p_match *m = p2p->match[i];
		struct rc_list *pos, *n;

		if (!m)
			continue;
		rc_list_for_each_safe(pos, n, &m->unexp)
			free(rc_list_entry(pos, struct rc_umsg, link));
		free(m);
	}
	while (p2p->umsg_free) {
		struct rc_umsg *u = p2p->umsg_free;

		p2p->umsg_free = u->data;
		free(u);
	}
	while ((o = p2p->out_free)) {
		p2p->out_free = o->next_free;
		free(o);
	}
	free(p2p->bounce);
	free(p2p);
	inst->p2p = NULL;
	rc_bsend_fini(inst);
}
