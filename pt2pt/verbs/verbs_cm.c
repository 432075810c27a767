/*
 * verbs_cm.c - RCMPI_VERBS_CM=rdmacm: connections set up with librdmacm on
 * first use, addressed by IP (RoCE: the port's IPv4-mapped GID; InfiniBand:
 * the IPoIB address of RCMPI_NET_IF).
 *
 * At open each rank listens on its port's address (any TCP-space port) and
 * publishes address and port in the modex; nothing else is per peer, so
 * the modex stays O(1) per rank and only peers that talk get a QP.
 *
 *   A (first send to B)                      B
 *   rdma_resolve_addr, _route
 *   rdma_create_qp, rdma_connect(priv: rank A, credits for B, A's slots)
 *                            ---- REQ ---->  CONNECT_REQUEST
 *                                            rdma_create_qp, rdma_accept
 *                                            (priv: rank B, credits, slots)
 *   ESTABLISHED (QP RTS): A may send  <-- REP --
 *                            ---- RTU ---->  ESTABLISHED: B may send
 *
 * Simultaneous connect (A and B both send first): the connection started
 * by the lower rank wins. A request from a higher rank that arrives while
 * our own attempt towards it is under way is rejected with "tie"; a request
 * from a lower rank in the same situation is accepted and our own attempt
 * is abandoned (destroyed when its rejection arrives). A rank whose attempt
 * was rejected for a tie waits for the peer's (VB_PEER_WAIT). Either way
 * exactly one QP carries the pair's traffic.
 *
 * Until a connection is established am_send answers RC_AGAIN and the engine
 * retries from progress, which polls the event channel (non-blocking) at
 * every call while connections are under way, otherwise every 16 calls
 * that found nothing to do and every 256 calls
 * (to accept peers' requests).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "inst.h"
#include "log.h"
#include "status.h"
#include "verbs.h"

#define CM_MAGIC 0x76636d31u /* "vcm1" */
#define CM_TRIES 3

enum { CM_REJ_TIE = 1, CM_REJ_DUP, CM_REJ_PEER };

struct cm_priv {
	uint32_t magic;
	int32_t rank;
	uint32_t credits; /* first window we grant the receiver */
	uint32_t slot_rkey;
	uint64_t slot_addr;
	uint32_t reason; /* rejections */
	uint32_t rsvd;
};

struct vb_cm_conn {
	struct vb_cm_conn *next;
	struct vb_peer *peer;
	struct rdma_cm_id *id;
	bool active;	       /* we started it */
	bool lost;	       /* superseded by the peer's connection */
	bool counted;	       /* in vt->nconnecting */
	uint32_t granted;      /* credits promised to the peer */
	struct cm_priv remote; /* the peer's private data */
	uint32_t rqpn;
};

struct vb_cm {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	uint16_t port; /* network order */
	struct vb_cm_conn *conns;
};

uint16_t vb_cm_port(struct vb_tp *vt)
{
	return vt->cm ? vt->cm->port : 0;
}

static void sin_of(struct sockaddr_in *sin, uint32_t ipv4, uint16_t port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = ipv4;
	sin->sin_port = port;
}

int vb_cm_open(struct vb_tp *vt)
{
	const struct rc_verbs_ops *ops = vt->ops;
	struct sockaddr_in sin;
	struct vb_cm *cm;
	int ret = RC_ERR_IO;

	if (!vt->ipv4) {
		rc_log_err("verbs: RCMPI_VERBS_CM=rdmacm needs an IPv4 address "
			   "on %s port %u: set RCMPI_NET_IF to its interface "
			   "(ib0, eth0, ...)",
			   vt->dev_name, vt->port);
		vb_set_open_error(
			"RCMPI_VERBS_CM=rdmacm: no IPv4 address on %s",
			vt->dev_name);
		return RC_ERR_INVAL;
	}
	cm = calloc(1, sizeof(*cm));
	if (!cm)
		return RC_ERR_NOMEM;
	cm->ch = ops->cm_create_event_channel();
	if (!cm->ch) {
		rc_log_err("verbs: rdma_create_event_channel: %s",
			   strerror(errno));
		goto err_free;
	}
	if (cm->ch->fd >= 0 && fcntl(cm->ch->fd, F_SETFL,
				     fcntl(cm->ch->fd, F_GETFL) | O_NONBLOCK)) {
		rc_log_err("verbs: rdma_cm event channel: fcntl: %s",
			   strerror(errno));
		goto err_destroy_channel;
	}
	if (ops->cm_create_id(cm->ch, &cm->listen, NULL, RDMA_PS_TCP)) {
		rc_log_err("verbs: rdma_create_id: %s", strerror(errno));
		goto err_destroy_channel;
	}
	sin_of(&sin, vt->ipv4, 0);
	if (ops->cm_bind_addr(cm->listen, (struct sockaddr *)&sin)) {
		rc_log_err("verbs: rdma_bind_addr(%s): %s",
			   inet_ntoa(sin.sin_addr), strerror(errno));
		goto err_destroy_id;
	}
	if (ops->cm_listen(cm->listen, 1024)) {
		rc_log_err("verbs: rdma_listen(%s): %s",
			   inet_ntoa(sin.sin_addr), strerror(errno));
		goto err_destroy_id;
	}
	cm->port = ops->cm_get_src_port(cm->listen);
	vt->cm = cm;
	rc_log_debug("verbs: rdma_cm listening on %s:%u",
		     inet_ntoa(sin.sin_addr), ntohs(cm->port));
	return RC_OK;

err_destroy_id:
	ops->cm_destroy_id(cm->listen);
err_destroy_channel:
	ops->cm_destroy_event_channel(cm->ch);
err_free:
	free(cm);
	return ret;
}

static void conn_count(struct vb_tp *vt, struct vb_cm_conn *c, bool on)
{
	if (c->counted == on)
		return;
	c->counted = on;
	if (on)
		vt->nconnecting++;
	else
		vt->nconnecting--;
}

static void conn_destroy(struct vb_tp *vt, struct vb_cm_conn *c)
{
	const struct rc_verbs_ops *ops = vt->ops;
	struct vb_cm_conn **pp;
	struct vb_peer *p = c->peer;

	for (pp = &vt->cm->conns; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	conn_count(vt, c, false);
	if (p->conn == c)
		p->conn = NULL;
	if (c->id->qp) {
		vb_qpn_del(vt, c->id->qp->qp_num);
		if (p->qp == c->id->qp)
			p->qp = NULL;
		ops->cm_destroy_qp(c->id);
	}
	ops->cm_destroy_id(c->id);
	if (c->granted)
		vb_rx_ungrant(vt, p);
	free(c);
}

void vb_cm_close(struct vb_tp *vt)
{
	struct vb_cm *cm = vt->cm;

	if (!cm)
		return;
	while (cm->conns)
		conn_destroy(vt, cm->conns);
	vt->ops->cm_destroy_id(cm->listen);
	vt->ops->cm_destroy_event_channel(cm->ch);
	free(cm);
	vt->cm = NULL;
}

static struct vb_cm_conn *conn_new(struct vb_tp *vt, struct vb_peer *p,
				   bool active)
{
	struct vb_cm_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->peer = p;
	c->active = active;
	c->next = vt->cm->conns;
	vt->cm->conns = c;
	return c;
}

static void conn_fail(struct vb_tp *vt, struct vb_cm_conn *c, const char *what,
		      int status)
{
	struct vb_peer *p = c->peer;
	bool live = p->conn == c;

	conn_destroy(vt, c);
	if (live)
		vb_peer_fail(vt, p, "rdma_cm: %s (status %d%s%s)", what, status,
			     status < 0 ? ": " : "",
			     status < 0 ? strerror(-status) : "");
}

static void set_options(struct vb_tp *vt, struct rdma_cm_id *id)
{
	uint8_t timeout = (uint8_t)vt->prm.timeout, tos = (uint8_t)vt->prm.tc;

	/* best effort: older kernels lack these options */
	if (vt->ops->cm_set_option(id, RDMA_OPTION_ID,
				   RDMA_OPTION_ID_ACK_TIMEOUT, &timeout,
				   sizeof(timeout)))
		rc_log_debug("verbs: rdma_set_option(ACK_TIMEOUT): %s",
			     strerror(errno));
	if (tos &&
	    vt->ops->cm_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos,
				   sizeof(tos)))
		rc_log_debug("verbs: rdma_set_option(TOS): %s",
			     strerror(errno));
}

static int make_qp(struct vb_tp *vt, struct vb_cm_conn *c)
{
	struct ibv_qp_init_attr ia = vb_qp_caps(vt);
	int err;

	if (c->id->verbs != vt->ctx) {
		rc_log_err("verbs: rdma_cm reaches rank %d through %s, but "
			   "rcmpi uses %s: set RCMPI_NET_IF to the interface "
			   "of the device to use",
			   c->peer->wrank,
			   c->id->verbs ? vt->ops->get_device_name(
						  c->id->verbs->device)
					: "no device",
			   vt->dev_name);
		return RC_ERR_UNREACH;
	}
	if (vt->ops->cm_create_qp(c->id, vt->pd, &ia)) {
		err = errno;
		rc_log_err("verbs: rdma_create_qp on %s for rank %d: %s%s",
			   vt->dev_name, c->peer->wrank, strerror(err),
			   vb_memlock_hint(err));
		return RC_ERR_IO;
	}
	/* the peer may send as soon as it has our RTU, before we have seen
	 * ESTABLISHED: its messages must find their peer */
	vb_qpn_add(vt, c->id->qp->qp_num, c->peer);
	return vb_peer_sq_alloc(vt, c->peer);
}

static struct rdma_conn_param conn_param(struct vb_tp *vt, struct cm_priv *priv)
{
	struct rdma_conn_param cp;
	unsigned rd = vt->prm.rd_atom;

	memset(&cp, 0, sizeof(cp));
	cp.private_data = priv;
	cp.private_data_len = sizeof(*priv);
	cp.responder_resources =
		(uint8_t)(rd < (unsigned)vt->dattr.max_qp_rd_atom
				  ? rd
				  : (unsigned)vt->dattr.max_qp_rd_atom);
	cp.initiator_depth =
		(uint8_t)(rd < (unsigned)vt->dattr.max_qp_init_rd_atom
				  ? rd
				  : (unsigned)vt->dattr.max_qp_init_rd_atom);
	cp.retry_count = (uint8_t)vt->prm.retry;
	cp.rnr_retry_count = (uint8_t)vt->prm.rnr_retry;
	return cp;
}

static void my_priv(struct vb_tp *vt, struct cm_priv *pr, uint32_t credits)
{
	memset(pr, 0, sizeof(*pr));
	pr->magic = CM_MAGIC;
	pr->rank = vt->inst->rank;
	pr->credits = credits;
	pr->slot_rkey = vt->slots_mr->rkey;
	pr->slot_addr = (uintptr_t)vt->slots;
}

int vb_cm_start(struct vb_tp *vt, struct vb_peer *p)
{
	const struct vb_addr *pa = vb_peer_addr(vt, p->wrank, true);
	struct sockaddr_in src, dst;
	struct vb_cm_conn *c;

	if (!pa) {
		vb_peer_fail(vt, p, "no rdma_cm address");
		return RC_ERR_PEER;
	}
	c = conn_new(vt, p, true);
	if (!c)
		return RC_ERR_NOMEM;
	if (vt->ops->cm_create_id(vt->cm->ch, &c->id, c, RDMA_PS_TCP)) {
		int err = errno;

		vt->cm->conns = c->next;
		free(c);
		vb_peer_fail(vt, p, "rdma_create_id: %s", strerror(err));
		return RC_ERR_PEER;
	}
	p->conn = c;
	p->state = VB_PEER_CONNECTING;
	p->cm_tries++;
	conn_count(vt, c, true);
	set_options(vt, c->id);
	sin_of(&src, vt->ipv4, 0);
	sin_of(&dst, pa->ipv4, pa->cm_port);
	if (vt->ops->cm_resolve_addr(c->id, (struct sockaddr *)&src,
				     (struct sockaddr *)&dst,
				     (int)vt->prm.cm_timeout_ms)) {
		conn_fail(vt, c, "rdma_resolve_addr failed", -errno);
		return RC_ERR_PEER;
	}
	rc_log_debug("verbs: connecting to rank %d at %s:%u", p->wrank,
		     inet_ntoa(dst.sin_addr), ntohs(dst.sin_port));
	return RC_OK;
}

static void on_route(struct vb_tp *vt, struct vb_cm_conn *c)
{
	struct rdma_conn_param cp;
	struct cm_priv pr;

	if (make_qp(vt, c)) {
		conn_fail(vt, c, "no queue pair", 0);
		return;
	}
	c->granted = vb_rx_grant(vt, c->peer);
	my_priv(vt, &pr, c->granted);
	cp = conn_param(vt, &pr);
	if (vt->ops->cm_connect(c->id, &cp))
		conn_fail(vt, c, "rdma_connect failed", -errno);
}

static void reject(struct vb_tp *vt, struct rdma_cm_id *id, uint32_t reason)
{
	struct cm_priv pr;

	memset(&pr, 0, sizeof(pr));
	pr.magic = CM_MAGIC;
	pr.rank = vt->inst->rank;
	pr.reason = reason;
	if (vt->ops->cm_reject(id, &pr, sizeof(pr)))
		rc_log_debug("verbs: rdma_reject: %s", strerror(errno));
	vt->ops->cm_destroy_id(id);
}

static void on_request(struct vb_tp *vt, struct rdma_cm_id *id,
		       const struct cm_priv *rp, uint32_t rqpn)
{
	struct rc_inst *inst = vt->inst;
	struct rdma_conn_param cp;
	struct vb_cm_conn *c, *mine;
	struct vb_peer *p;
	struct cm_priv pr;

	if (rp->magic != CM_MAGIC || rp->rank < 0 || rp->rank >= inst->size ||
	    rp->rank == inst->rank) {
		rc_log_debug("verbs: rdma_cm request with bad private data");
		reject(vt, id, CM_REJ_PEER);
		return;
	}
	p = &vt->peers[rp->rank];
	mine = p->conn;
	if (p->state == VB_PEER_NONE || p->state == VB_PEER_FAILED) {
		reject(vt, id, CM_REJ_PEER);
		return;
	}
	if (p->state == VB_PEER_CONNECTED || (mine && !mine->active)) {
		reject(vt, id, CM_REJ_DUP);
		return;
	}
	if (mine) {
		/* both sides connect: the lower rank's connection wins */
		if (inst->rank < rp->rank) {
			reject(vt, id, CM_REJ_TIE);
			return;
		}
		mine->lost = true;
		conn_count(vt, mine, false);
		if (mine->granted)
			vb_rx_ungrant(vt, p);
		mine->granted = 0;
		p->conn = NULL;
	}
	c = conn_new(vt, p, false);
	if (!c) {
		reject(vt, id, CM_REJ_PEER);
		return;
	}
	c->id = id;
	id->context = c;
	c->remote = *rp;
	c->rqpn = rqpn;
	p->conn = c;
	p->state = VB_PEER_CONNECTING;
	conn_count(vt, c, true);
	set_options(vt, id);
	if (make_qp(vt, c)) {
		conn_fail(vt, c, "no queue pair", 0);
		return;
	}
	p->qp = id->qp;
	p->rqpn = rqpn;
	c->granted = vb_rx_grant(vt, p);
	my_priv(vt, &pr, c->granted);
	cp = conn_param(vt, &pr);
	if (vt->ops->cm_accept(id, &cp))
		conn_fail(vt, c, "rdma_accept failed", -errno);
}

static void on_established(struct vb_tp *vt, struct vb_cm_conn *c,
			   const struct cm_priv *rp, uint32_t rqpn)
{
	struct vb_peer *p = c->peer;

	if (c->lost || p->conn != c) {
		conn_destroy(vt, c);
		return;
	}
	conn_count(vt, c, false);
	if (c->active) {
		if (rp->magic != CM_MAGIC || rp->rank != p->wrank) {
			conn_fail(vt, c, "bad private data in the reply", 0);
			return;
		}
		c->remote = *rp;
		p->qp = c->id->qp;
		p->rqpn = rqpn;
	}
	c->granted = 0; /* the peer holds them now */
	vb_peer_connected(vt, p, c->remote.credits, c->remote.slot_addr,
			  c->remote.slot_rkey);
}

static void on_rejected(struct vb_tp *vt, struct vb_cm_conn *c,
			const struct cm_priv *rp, size_t rplen, int status)
{
	struct vb_peer *p = c->peer;

	if (c->lost || p->conn != c) {
		conn_destroy(vt, c);
		return;
	}
	if (rplen >= sizeof(*rp) && rp->magic == CM_MAGIC &&
	    rp->reason == CM_REJ_TIE) {
		/* the peer's own connection to us wins: wait for it */
		conn_destroy(vt, c);
		if (p->state == VB_PEER_CONNECTING)
			p->state = VB_PEER_WAIT;
		return;
	}
	conn_fail(vt, c,
		  rplen >= sizeof(*rp) && rp->magic == CM_MAGIC
			  ? "the peer rejected the connection"
			  : "connection rejected",
		  status);
}

/* Address, route or connection failed: try again a few times (the peer
 * may have been busy), then give up. */
static void on_error(struct vb_tp *vt, struct vb_cm_conn *c,
		     enum rdma_cm_event_type ev, int status)
{
	struct vb_peer *p = c->peer;

	if (c->lost || p->conn != c) {
		conn_destroy(vt, c);
		return;
	}
	if (c->active && p->cm_tries < CM_TRIES) {
		rc_log_debug("verbs: %s to rank %d (status %d): retrying",
			     rdma_event_str(ev), p->wrank, status);
		conn_destroy(vt, c);
		p->state = VB_PEER_IDLE;
		vb_cm_start(vt, p);
		return;
	}
	conn_fail(vt, c, rdma_event_str(ev), status);
}

unsigned vb_cm_progress(struct vb_tp *vt)
{
	const struct rc_verbs_ops *ops = vt->ops;
	unsigned events = 0;
	int i;

	for (i = 0; i < 16; i++) {
		struct rdma_cm_event *ev;
		enum rdma_cm_event_type type;
		struct rdma_cm_id *id;
		struct vb_cm_conn *c;
		struct cm_priv rp;
		size_t rplen = 0;
		uint32_t rqpn;
		int status;

		if (ops->cm_get_event(vt->cm->ch, &ev))
			break; /* EAGAIN: nothing pending */
		type = ev->event;
		id = ev->id;
		status = ev->status;
		memset(&rp, 0, sizeof(rp));
		if (ev->param.conn.private_data) {
			rplen = ev->param.conn.private_data_len;
			if (rplen > sizeof(rp))
				rplen = sizeof(rp);
			memcpy(&rp, ev->param.conn.private_data, rplen);
		}
		rqpn = ev->param.conn.qp_num;
		ops->cm_ack_event(ev);
		events++;
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			on_request(vt, id, &rp, rqpn);
			continue;
		}
		c = id->context;
		if (!c)
			continue; /* the listener */
		switch (type) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			if (c->lost) {
				conn_destroy(vt, c);
			} else if (vt->ops->cm_resolve_route(
					   c->id, (int)vt->prm.cm_timeout_ms)) {
				conn_fail(vt, c, "rdma_resolve_route failed",
					  -errno);
			}
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			if (c->lost)
				conn_destroy(vt, c);
			else
				on_route(vt, c);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			on_established(vt, c, &rp, rqpn);
			break;
		case RDMA_CM_EVENT_REJECTED:
			on_rejected(vt, c, &rp, rplen, status);
			break;
		case RDMA_CM_EVENT_ADDR_ERROR:
		case RDMA_CM_EVENT_ROUTE_ERROR:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
			on_error(vt, c, type, status);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			if (c->peer->conn == c &&
			    c->peer->state == VB_PEER_CONNECTED)
				vb_peer_fail(vt, c->peer,
					     "the peer disconnected (its "
					     "process ended?)");
			break;
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			vb_peer_fail(vt, c->peer, "device removed");
			break;
		default:
			break;
		}
	}
	return events;
}
