/*
 * verbs_ud.c - RCMPI_VERBS_CM=ud (and auto's choice past CM_AUTO_RANKS
 * where rdma_cm cannot go): RC connections set up on first use by a
 * handshake over one UD QP per process. It needs no IP address, so it
 * serves InfiniBand fabrics without IPoIB.
 *
 * Each rank publishes its UD QP number next to its LID / GID (the modex
 * stays O(1) per rank); an address handle towards a peer is made when it
 * is first needed. The handshake, A sending first to B:
 *
 *   A: RC QP to INIT, credits for B           B
 *      ---- REQ (A's QP, credits, slots) --->
 *                                             RC QP to INIT, RTR (A's QP),
 *                                             RTS; credits for A
 *      <--- REP (B's QP, credits, slots) ----
 *   RTR (B's QP), RTS: A may send
 *      ---- RTU ---------------------------->  B may send
 *
 * Datagrams get lost: A sends its REQ again until the REP comes, B its
 * REP until the RTU comes (each answers a repeat of what it has answered
 * already), every UD_RTO_MS doubling to a second. Simultaneous connects
 * (A and B both send first): the lower rank's connection wins; the higher
 * rank drops its own attempt when the lower rank's REQ arrives, and the
 * lower rank ignores the higher rank's. Until a connection is up am_send
 * answers RC_AGAIN and the engine retries in order from progress, which
 * polls the UD CQ at every call while handshakes are under way, otherwise
 * every 16 calls that found nothing to do and every 256 calls (to answer
 * peers' requests).
 *
 * The agent. Only the main thread's progress handshakes, and a rank may
 * compute outside MPI for minutes while a peer connects to it. So each
 * process runs one agent thread (RCMPI_VERBS_UD_AGENT, on by default)
 * that wakes every UD_AGENT_MS; when progress has not looked at the UD QP
 * since its last wake, it takes the UD QP for that moment and answers
 * each REQ and REP with BUSY: "I live, I will answer when I call MPI".
 * Of the connection state it only notes that the peer spoke; the
 * datagrams it takes are dropped, and the peer's repeats bring them to
 * progress later (within a second of its return). A side that asked
 * (at least four times) and heard no word at all from its peer (REQ, REP,
 * RTU or BUSY) within RCMPI_VERBS_UD_TIMEOUT (20 s) fails the peer with a
 * message that names it: the rank or its host is gone, or datagrams do
 * not reach it. Everything of the UD QP (its CQ, send buffers, address
 * handles) is under ud->lock, which progress takes when it looks at the
 * UD QP, and the agent while it answers.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "inst.h"
#include "log.h"
#include "status.h"
#include "verbs.h"

#define UD_MAGIC 0x76756431u /* "vud1" */
#define UD_QKEY 0x72636d70u
#define UD_NRECV 128
#define UD_NSEND 32
#define UD_GRH 40 /* a UD receive starts with the GRH (or room for one) */
#define UD_BUF 128
#define UD_RTO_MS 200
#define UD_WRID_SEND 0x10000u
#define UD_AGENT_MS 100

enum { UD_REQ = 1, UD_REP, UD_RTU, UD_BUSY };

struct ud_msg {
	uint32_t magic;
	uint32_t type;
	int32_t src, dst; /* world ranks */
	uint32_t qpn;	  /* the sender's RC QP */
	uint32_t echo;	  /* REP: the REQ's QP; RTU: the REP's QP */
	uint32_t credits; /* REQ, REP: the first window granted */
	uint32_t slot_rkey;
	uint64_t slot_addr;
	/* the sender's UD address: what the peer's agent answers to (it
	 * cannot look up the modex: only the main thread fetches it) */
	uint32_t ud_qpn;
	uint16_t lid;
	uint16_t rsvd;
	uint8_t gid[16];
};

struct vb_ud_conn {
	struct vb_ud_conn *next;
	struct vb_peer *peer;
	bool active;	      /* we sent the REQ */
	uint32_t granted;     /* credits promised to the peer */
	struct ud_msg remote; /* passive: the peer's REQ */
	double heard;	      /* the attempt began, or the peer last spoke */
	unsigned unanswered;  /* repeats sent since */
	double next_tx;
	unsigned rto_ms;
};

struct vb_ud {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *mem; /* UD_NRECV receive buffers, then UD_NSEND send buffers */
	uint16_t free_tx[UD_NSEND];
	unsigned nfree;
	struct vb_ud_conn *conns;
	/* the agent; lock covers the CQ, send buffers and address handles */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t agent;
	bool agent_on, stop;
	unsigned long looks; /* progress's looks at the UD QP */
	unsigned long seen;  /* the agent: looks at its last wake */
};

static char *ud_buf(struct vb_ud *ud, unsigned i)
{
	return ud->mem + (size_t)i * UD_BUF;
}

uint32_t vb_ud_qpn(const struct vb_tp *vt)
{
	return vt->ud ? vt->ud->qp->qp_num : 0;
}

static int ud_post_recv(struct vb_tp *vt, unsigned i)
{
	struct vb_ud *ud = vt->ud;
	struct ibv_sge sge = {
		.addr = (uintptr_t)ud_buf(ud, i),
		.length = UD_BUF,
		.lkey = ud->mr->lkey,
	};
	struct ibv_recv_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad;

	return vt->ops->post_recv(ud->qp, &wr, &bad);
}

/* The UD QP through RESET -> INIT -> RTR -> RTS. */
static int ud_qp_ready(struct vb_tp *vt, struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = vt->port;
	a.qkey = UD_QKEY;
	err = vt->ops->modify_qp(qp, &a,
				 IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					 IBV_QP_PORT | IBV_QP_QKEY);
	if (!err) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		err = vt->ops->modify_qp(qp, &a, IBV_QP_STATE);
	}
	if (!err) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = vb_psn(qp->qp_num);
		err = vt->ops->modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	}
	return err;
}

/* Recursive: what progress calls with the lock held (vb_peer_fail and
 * what pt2pt fails then) may come back to the UD code. */
static void ud_lock_init(struct vb_ud *ud)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&ud->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ud->wake, &ca);
	pthread_condattr_destroy(&ca);
}

static void *agent_main(void *arg);

/* Signals stay with the application's threads. Without the thread the
 * rank still works; it answers late while it computes. */
static void agent_start(struct vb_tp *vt)
{
	struct vb_ud *ud = vt->ud;
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&ud->agent, NULL, agent_main, vt);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		rc_log_warn("verbs: no UD handshake agent (pthread_create: "
			    "%s): peers connecting while this rank computes "
			    "outside MPI wait for its next MPI call",
			    strerror(err));
		return;
	}
	ud->agent_on = true;
}

static void agent_stop(struct vb_ud *ud)
{
	if (!ud->agent_on)
		return;
	pthread_mutex_lock(&ud->lock);
	ud->stop = true;
	pthread_cond_signal(&ud->wake);
	pthread_mutex_unlock(&ud->lock);
	pthread_join(ud->agent, NULL);
	ud->agent_on = false;
}

int vb_ud_open(struct vb_tp *vt)
{
	const struct rc_verbs_ops *ops = vt->ops;
	struct ibv_qp_init_attr ia;
	struct vb_ud *ud;
	unsigned i;
	int err;

	ud = calloc(1, sizeof(*ud));
	if (!ud)
		return RC_ERR_NOMEM;
	vt->ud = ud;
	ud_lock_init(ud);
	ud->seen = ~0UL; /* the agent's first look only takes note */
	ud->mem = calloc(UD_NRECV + UD_NSEND, UD_BUF);
	if (!ud->mem)
		goto err_nomem;
	ud->mr = ops->reg_mr(vt->pd, ud->mem,
			     (size_t)(UD_NRECV + UD_NSEND) * UD_BUF,
			     IBV_ACCESS_LOCAL_WRITE);
	if (!ud->mr) {
		err = errno;
		rc_log_err("verbs: ibv_reg_mr of the UD handshake's buffers on "
			   "%s: %s%s",
			   vt->dev_name, strerror(err), vb_memlock_hint(err));
		goto err_close;
	}
	ud->cq = ops->create_cq(vt->ctx, UD_NRECV + UD_NSEND);
	if (!ud->cq) {
		rc_log_err("verbs: ibv_create_cq for the UD handshake on %s: "
			   "%s",
			   vt->dev_name, strerror(errno));
		goto err_close;
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ud->cq;
	ia.recv_cq = ud->cq;
	ia.qp_type = IBV_QPT_UD;
	ia.sq_sig_all = 1;
	ia.cap.max_send_wr = UD_NSEND;
	ia.cap.max_recv_wr = UD_NRECV;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ud->qp = ops->create_qp(vt->pd, &ia);
	if (!ud->qp) {
		err = errno;
		rc_log_err("verbs: ibv_create_qp(UD) on %s: %s%s", vt->dev_name,
			   strerror(err), vb_memlock_hint(err));
		goto err_close;
	}
	err = ud_qp_ready(vt, ud->qp);
	if (err) {
		rc_log_err("verbs: ibv_modify_qp of the UD QP 0x%x on %s port "
			   "%u: %s",
			   ud->qp->qp_num, vt->dev_name, vt->port,
			   strerror(err));
		goto err_close;
	}
	for (i = 0; i < UD_NRECV; i++) {
		err = ud_post_recv(vt, i);
		if (err) {
			rc_log_err("verbs: ibv_post_recv on the UD QP: %s",
				   strerror(err));
			goto err_close;
		}
	}
	for (i = 0; i < UD_NSEND; i++)
		ud->free_tx[i] = (uint16_t)(UD_NRECV + i);
	ud->nfree = UD_NSEND;
	if (vt->prm.ud_agent)
		agent_start(vt);
	rc_log_debug("verbs: UD handshake QP 0x%x on %s port %u%s",
		     ud->qp->qp_num, vt->dev_name, vt->port,
		     ud->agent_on ? ", agent on" : "");
	return RC_OK;

err_nomem:
	vb_ud_close(vt);
	return RC_ERR_NOMEM;
err_close:
	vb_ud_close(vt);
	return RC_ERR_IO;
}

static void conn_free(struct vb_tp *vt, struct vb_ud_conn *c)
{
	struct vb_ud_conn **pp;

	for (pp = &vt->ud->conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	vt->nconnecting--;
	if (c->peer->udc == c)
		c->peer->udc = NULL;
	if (c->granted)
		vb_rx_ungrant(vt, c->peer);
	free(c);
}

/* Our attempt is over without a connection: its QP goes too. */
static void conn_drop(struct vb_tp *vt, struct vb_ud_conn *c)
{
	struct vb_peer *p = c->peer;

	conn_free(vt, c);
	vb_qp_destroy(vt, p);
}

void vb_ud_close(struct vb_tp *vt)
{
	struct vb_ud *ud = vt->ud;
	int w;

	if (!ud)
		return;
	agent_stop(ud);
	while (ud->conns)
		conn_free(vt, ud->conns);
	for (w = 0; vt->peers && w < vt->inst->size; w++) {
		if (vt->peers[w].ud_ah)
			vt->ops->destroy_ah(vt->peers[w].ud_ah);
		vt->peers[w].ud_ah = NULL;
	}
	if (ud->qp)
		vt->ops->destroy_qp(ud->qp);
	if (ud->cq)
		vt->ops->destroy_cq(ud->cq);
	if (ud->mr)
		vt->ops->dereg_mr(ud->mr);
	free(ud->mem);
	pthread_cond_destroy(&ud->wake);
	pthread_mutex_destroy(&ud->lock);
	free(ud);
	vt->ud = NULL;
}

/* The address handle towards p's UD QP, made on first use towards pa. */
static struct ibv_ah *ud_ah(struct vb_tp *vt, struct vb_peer *p,
			    const struct vb_addr *pa)
{
	struct ibv_ah_attr ah;

	if (p->ud_ah)
		return p->ud_ah;
	vb_ah_attr(vt, pa, &ah);
	p->ud_ah = vt->ops->create_ah(vt->pd, &ah);
	if (!p->ud_ah)
		rc_log_debug("verbs: ibv_create_ah towards rank %d: %s",
			     p->wrank, strerror(errno));
	return p->ud_ah;
}

/* Send one handshake datagram, what (type and its own fields) and ours,
 * to p's UD QP dqpn at pa; a lost one is sent again by the timer (so is
 * one that finds no send buffer free). */
static void ud_post(struct vb_tp *vt, struct vb_peer *p,
		    const struct vb_addr *pa, uint32_t dqpn,
		    const struct ud_msg *what)
{
	struct vb_ud *ud = vt->ud;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ud_msg *m;
	unsigned i;
	int err;

	if (!ud_ah(vt, p, pa) || !ud->nfree)
		return;
	i = ud->free_tx[--ud->nfree];
	m = (struct ud_msg *)ud_buf(ud, i);
	*m = *what;
	m->magic = UD_MAGIC;
	m->src = vt->inst->rank;
	m->dst = p->wrank;
	m->slot_rkey = vt->slots_mr->rkey;
	m->slot_addr = (uintptr_t)vt->slots;
	m->ud_qpn = ud->qp->qp_num;
	m->lid = vt->pattr.lid;
	memcpy(m->gid, vt->gid.raw, 16);
	sge.addr = (uintptr_t)m;
	sge.length = sizeof(*m);
	sge.lkey = ud->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = UD_WRID_SEND | i;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = p->ud_ah;
	wr.wr.ud.remote_qpn = dqpn;
	wr.wr.ud.remote_qkey = UD_QKEY;
	err = rc_vops_post_send(vt->ops, ud->qp, &wr, &bad);
	if (err) {
		ud->free_tx[ud->nfree++] = (uint16_t)i;
		rc_log_debug("verbs: UD send to rank %d: %s", p->wrank,
			     strerror(err));
	}
}

/* Progress's datagrams: towards the address p published. */
static void ud_send(struct vb_tp *vt, struct vb_peer *p, uint32_t type,
		    uint32_t echo, uint32_t credits)
{
	const struct vb_addr *pa = vb_peer_addr(vt, p->wrank, true);
	struct ud_msg m;

	if (!pa || !pa->ud_qpn || !p->qp)
		return;
	memset(&m, 0, sizeof(m));
	m.type = type;
	m.qpn = p->qp->qp_num;
	m.echo = echo;
	m.credits = credits;
	ud_post(vt, p, pa, pa->ud_qpn, &m);
}

static struct vb_ud_conn *conn_new(struct vb_tp *vt, struct vb_peer *p,
				   bool active)
{
	struct vb_ud_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->peer = p;
	c->active = active;
	c->heard = vb_now();
	/* (a short RCMPI_VERBS_UD_TIMEOUT gets its tries in too) */
	c->rto_ms = vt->prm.ud_timeout_ms / 10 < UD_RTO_MS
			    ? vt->prm.ud_timeout_ms / 10
			    : UD_RTO_MS;
	c->next_tx = c->heard + c->rto_ms * 1e-3;
	c->next = vt->ud->conns;
	vt->ud->conns = c;
	p->udc = c;
	vt->nconnecting++;
	return c;
}

static int ud_start(struct vb_tp *vt, struct vb_peer *p)
{
	struct vb_ud_conn *c;

	if (vb_qp_new(vt, p)) {
		vb_peer_fail(vt, p, "no queue pair for the UD handshake");
		return RC_ERR_PEER;
	}
	c = conn_new(vt, p, true);
	if (!c) {
		vb_qp_destroy(vt, p);
		vb_peer_fail(vt, p, "out of memory");
		return RC_ERR_PEER;
	}
	p->state = VB_PEER_CONNECTING;
	c->granted = vb_rx_grant(vt, p);
	ud_send(vt, p, UD_REQ, 0, c->granted);
	rc_log_debug("verbs: UD handshake: REQ to rank %d (QP 0x%x)", p->wrank,
		     p->qp->qp_num);
	return RC_OK;
}

int vb_ud_start(struct vb_tp *vt, struct vb_peer *p)
{
	int ret;

	pthread_mutex_lock(&vt->ud->lock);
	ret = ud_start(vt, p);
	pthread_mutex_unlock(&vt->ud->lock);
	return ret;
}

/* A's REQ: accept it (our QP to RTS, REP) unless our own attempt wins. */
static void on_req(struct vb_tp *vt, struct vb_peer *p, const struct ud_msg *m)
{
	struct vb_ud_conn *c = p->udc;
	const struct vb_addr *pa;

	if (p->state == VB_PEER_NONE || p->state == VB_PEER_FAILED ||
	    p->state == VB_PEER_CONNECTED)
		return; /* not ours to answer, or an old repeat */
	if (c && !c->active) {
		if (c->remote.qpn == m->qpn) /* our REP was lost */
			ud_send(vt, p, UD_REP, m->qpn, c->granted);
		return;
	}
	if (c) {
		/* both sides connect: the lower rank's connection wins */
		if (vt->inst->rank < p->wrank)
			return;
		rc_log_debug("verbs: UD handshake: rank %d's REQ wins over "
			     "ours",
			     p->wrank);
		conn_drop(vt, c);
	}
	pa = vb_peer_addr(vt, p->wrank, true);
	if (!pa || vb_qp_new(vt, p)) {
		vb_peer_fail(vt, p, "no queue pair for the UD handshake");
		return;
	}
	if (vb_qp_connect_qpn(vt, p, pa, m->qpn)) {
		vb_qp_destroy(vt, p);
		vb_peer_fail(vt, p, "cannot connect the queue pair");
		return;
	}
	c = conn_new(vt, p, false);
	if (!c) {
		vb_qp_destroy(vt, p);
		vb_peer_fail(vt, p, "out of memory");
		return;
	}
	c->remote = *m;
	p->state = VB_PEER_CONNECTING;
	c->granted = vb_rx_grant(vt, p);
	ud_send(vt, p, UD_REP, m->qpn, c->granted);
}

/* B's REP to our REQ: our QP to RTS, connected; RTU. */
static void on_rep(struct vb_tp *vt, struct vb_peer *p, const struct ud_msg *m)
{
	struct vb_ud_conn *c = p->udc;
	const struct vb_addr *pa;

	if (p->state == VB_PEER_CONNECTED) {
		if (p->rqpn == m->qpn) /* our RTU was lost */
			ud_send(vt, p, UD_RTU, m->qpn, 0);
		return;
	}
	if (!c || !c->active || !p->qp || m->echo != p->qp->qp_num)
		return; /* an answer to an attempt given up */
	pa = vb_peer_addr(vt, p->wrank, true);
	if (!pa || vb_qp_connect_qpn(vt, p, pa, m->qpn)) {
		conn_drop(vt, c);
		vb_peer_fail(vt, p, "cannot connect the queue pair");
		return;
	}
	c->granted = 0; /* the peer holds them now */
	conn_free(vt, c);
	vb_peer_connected(vt, p, m->credits, m->slot_addr, m->slot_rkey);
	ud_send(vt, p, UD_RTU, m->qpn, 0);
}

/* A's RTU: it has our REP, so its QP is in RTR: we may send. */
static void on_rtu(struct vb_tp *vt, struct vb_peer *p, const struct ud_msg *m)
{
	struct vb_ud_conn *c = p->udc;
	struct ud_msg r;

	if (!c || c->active || !p->qp || m->echo != p->qp->qp_num ||
	    m->qpn != c->remote.qpn)
		return;
	r = c->remote;
	c->granted = 0;
	conn_free(vt, c);
	vb_peer_connected(vt, p, r.credits, r.slot_addr, r.slot_rkey);
}

/* Any word from the peer says that it lives. */
static void conn_heard(struct vb_peer *p)
{
	if (p->udc) {
		p->udc->heard = vb_now();
		p->udc->unanswered = 0;
	}
}

/* A received datagram for us from a rank of the job, or NULL. */
static const struct ud_msg *ud_msg_get(struct vb_tp *vt,
				       const struct ibv_wc *wc)
{
	const struct ud_msg *m;

	if (wc->status != IBV_WC_SUCCESS || wc->byte_len < UD_GRH + sizeof(*m))
		return NULL;
	m = (const struct ud_msg *)(ud_buf(vt->ud, (unsigned)wc->wr_id) +
				    UD_GRH);
	if (m->magic != UD_MAGIC || m->dst != vt->inst->rank || m->src < 0 ||
	    m->src >= vt->inst->size || m->src == vt->inst->rank) {
		rc_log_debug("verbs: UD handshake: a datagram not for us");
		return NULL;
	}
	return m;
}

static void on_msg(struct vb_tp *vt, const struct ibv_wc *wc)
{
	const struct ud_msg *m = ud_msg_get(vt, wc);
	struct vb_peer *p;

	if (!m)
		return;
	p = &vt->peers[m->src];
	conn_heard(p);
	switch (m->type) {
	case UD_REQ:
		on_req(vt, p, m);
		break;
	case UD_REP:
		on_rep(vt, p, m);
		break;
	case UD_RTU:
		on_rtu(vt, p, m);
		break;
	default: /* UD_BUSY: its agent answered; it lives, nothing else */
		break;
	}
}

/* Send again what is unanswered; fail what waited too long. */
static void ud_timers(struct vb_tp *vt)
{
	struct vb_ud_conn *c, *next;
	double now = vb_now();

	for (c = vt->ud->conns; c; c = next) {
		struct vb_peer *p = c->peer;

		next = c->next;
		if (now < c->next_tx)
			continue;
		/* silent for the timeout, while we asked (not while we
		 * computed: then the timers did not run) */
		if ((now - c->heard) * 1e3 >= vt->prm.ud_timeout_ms &&
		    c->unanswered >= 4) {
			bool active = c->active;

			conn_drop(vt, c);
			vb_peer_fail(vt, p,
				     "no %s over UD, and no word from it, "
				     "within %u ms (RCMPI_VERBS_UD_TIMEOUT): "
				     "the rank or its host is gone, or "
				     "datagrams do not reach it",
				     active ? "answer to our connection request"
					    : "confirmation of our answer",
				     vt->prm.ud_timeout_ms);
			continue;
		}
		if (c->active)
			ud_send(vt, p, UD_REQ, 0, c->granted);
		else
			ud_send(vt, p, UD_REP, c->remote.qpn, c->granted);
		c->unanswered++;
		/* up to a second, and 4 tries per timeout (each repeat
		 * the peer's agent answers keeps the attempt alive) */
		if (c->rto_ms < 1000 &&
		    c->rto_ms * 2 <= vt->prm.ud_timeout_ms / 4)
			c->rto_ms *= 2;
		c->next_tx = now + c->rto_ms * 1e-3;
	}
}

unsigned vb_ud_progress(struct vb_tp *vt)
{
	struct vb_ud *ud = vt->ud;
	struct ibv_wc wc[16];
	unsigned events = 0;
	int i, n;

	pthread_mutex_lock(&ud->lock);
	ud->looks++;
	n = rc_vops_poll_cq(vt->ops, ud->cq, 16, wc);
	for (i = 0; i < n; i++) {
		unsigned idx = (unsigned)(wc[i].wr_id & 0xffff);

		events++;
		if (wc[i].wr_id & UD_WRID_SEND) {
			ud->free_tx[ud->nfree++] = (uint16_t)idx;
			continue;
		}
		on_msg(vt, &wc[i]);
		if (ud_post_recv(vt, idx))
			rc_log_warn("verbs: cannot post a receive on the UD "
				    "QP");
	}
	if (vt->nconnecting)
		ud_timers(vt);
	pthread_mutex_unlock(&ud->lock);
	return events;
}

/* ---- the agent ---- */

/* BUSY to the sender of in, at the address its datagram carries. */
static void agent_answer(struct vb_tp *vt, const struct ud_msg *in)
{
	struct vb_addr pa;
	struct ud_msg m;

	memset(&pa, 0, sizeof(pa));
	pa.lid = in->lid;
	memcpy(pa.gid, in->gid, 16);
	memset(&m, 0, sizeof(m));
	m.type = UD_BUSY;
	m.echo = in->qpn;
	ud_post(vt, &vt->peers[in->src], &pa, in->ud_qpn, &m);
}

/* One look (ud->lock held): if progress has not looked at the UD QP
 * since the last one, answer each REQ and REP waiting there with BUSY and
 * drop it (the peer repeats it until progress answers). Returns the BUSY
 * answers sent, or -1 when progress looked meanwhile. */
static int agent_look(struct vb_tp *vt)
{
	struct vb_ud *ud = vt->ud;
	struct ibv_wc wc[16];
	int i, n, sent = 0;

	if (ud->looks != ud->seen) {
		ud->seen = ud->looks;
		return -1;
	}
	while ((n = rc_vops_poll_cq(vt->ops, ud->cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			unsigned idx = (unsigned)(wc[i].wr_id & 0xffff);
			const struct ud_msg *m;

			if (wc[i].wr_id & UD_WRID_SEND) {
				ud->free_tx[ud->nfree++] = (uint16_t)idx;
				continue;
			}
			m = ud_msg_get(vt, &wc[i]);
			if (m)
				conn_heard(&vt->peers[m->src]);
			if (m && m->ud_qpn &&
			    (m->type == UD_REQ || m->type == UD_REP)) {
				agent_answer(vt, m);
				sent++;
			}
			if (ud_post_recv(vt, idx))
				rc_log_warn("verbs: cannot post a receive on "
					    "the UD QP");
		}
	}
	return sent;
}

int vb_ud_agent_step(struct vb_tp *vt)
{
	int ret;

	pthread_mutex_lock(&vt->ud->lock);
	ret = agent_look(vt);
	pthread_mutex_unlock(&vt->ud->lock);
	return ret;
}

static void *agent_main(void *arg)
{
	struct vb_tp *vt = arg;
	struct vb_ud *ud = vt->ud;
	struct timespec ts;

	pthread_mutex_lock(&ud->lock);
	while (!ud->stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += UD_AGENT_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		while (!ud->stop && pthread_cond_timedwait(&ud->wake, &ud->lock,
							   &ts) != ETIMEDOUT)
			;
		if (!ud->stop)
			agent_look(vt);
	}
	pthread_mutex_unlock(&ud->lock);
	return NULL;
}
