/*
 * verbs_qp.c - RC queue pairs: creation, the attributes of each state
 * transition, and the wiring of RCMPI_VERBS_CM=modex (auto's up to 64
 * ranks).
 *
 * Modex wiring, per pair of ranks (a, b):
 *   open:     a creates QP_ab, b creates QP_ba (both moved to INIT); each
 *             publishes its QP numbers (indexed by peer rank), LID or GID,
 *             MTU and first credit window in its RC_MODEX_VERBS section.
 *   exchange: one PMIx fence (the runtime's).
 *   connect:  a moves QP_ab to RTR towards (b's address, QP_ba) and to RTS;
 *             b does the same the other way.
 *   barrier:  a second, data-less fence, so no rank sends before every QP
 *             it talks to is in RTR (a packet for a QP still in INIT is
 *             dropped, and the sender would exhaust its retries waiting).
 * PSNs are a function of the QP number (vb_psn), so neither side needs the
 * other's. Addressing: InfiniBand ports use the LID without a GRH; Ethernet
 * ports a GRH with the peer's RoCE v2 GID, our GID index, RCMPI_VERBS_TC
 * and hop limit. The path MTU is the smaller of the two ports' active MTUs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "inst.h"
#include "log.h"
#include "status.h"
#include "verbs.h"

uint32_t vb_psn(uint32_t qpn)
{
	return (qpn * 0x9e3779b1u) >> 8 & 0xffffff;
}

static unsigned umin(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

struct ibv_qp_init_attr vb_qp_caps(const struct vb_tp *vt)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.send_cq = vt->cq;
	a.recv_cq = vt->cq;
	a.srq = vt->srq;
	a.qp_type = IBV_QPT_RC;
	a.sq_sig_all = 0;
	a.cap.max_send_wr = vt->prm.sq_size;
	/* verbs header, engine header, payload (and an eager-ring write's
	 * trailer) */
	a.cap.max_send_sge = 4;
	a.cap.max_inline_data = vt->inline_max;
	return a;
}

void vb_qp_init_attr(const struct vb_tp *vt, struct ibv_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_INIT;
	a->pkey_index = 0;
	a->port_num = vt->port;
	a->qp_access_flags = vb_access(vt);
	*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		IBV_QP_ACCESS_FLAGS;
}

void vb_ah_attr(const struct vb_tp *vt, const struct vb_addr *pa,
		struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->port_num = vt->port;
	ah->sl = (uint8_t)vt->prm.sl;
	if (vt->pattr.link_layer == IBV_LINK_LAYER_ETHERNET) {
		ah->is_global = 1;
		memcpy(ah->grh.dgid.raw, pa->gid, 16);
		ah->grh.sgid_index = (uint8_t)vt->gid_index;
		ah->grh.hop_limit = (uint8_t)vt->prm.hop_limit;
		ah->grh.traffic_class = (uint8_t)vt->prm.tc;
	} else {
		ah->dlid = pa->lid;
	}
}

void vb_qp_rtr_attr(const struct vb_tp *vt, const struct vb_addr *pa,
		    uint32_t rqpn, struct ibv_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = vt->pattr.active_mtu < pa->mtu ? vt->pattr.active_mtu
						     : (enum ibv_mtu)pa->mtu;
	a->dest_qp_num = rqpn;
	a->rq_psn = vb_psn(rqpn);
	/* RDMA READs we answer: what we published (vb_addr.rd_atom) */
	a->max_dest_rd_atomic = (uint8_t)umin(
		vt->prm.rd_atom, (unsigned)vt->dattr.max_qp_rd_atom);
	a->min_rnr_timer = 12; /* 0.64 ms; credits keep RNR from happening */
	vb_ah_attr(vt, pa, &a->ah_attr);
	*mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
		IBV_QP_MIN_RNR_TIMER;
}

void vb_qp_rts_attr(const struct vb_tp *vt, const struct vb_addr *pa,
		    uint32_t my_qpn, struct ibv_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTS;
	a->timeout = (uint8_t)vt->prm.timeout;
	a->retry_cnt = (uint8_t)vt->prm.retry;
	a->rnr_retry = (uint8_t)vt->prm.rnr_retry;
	a->sq_psn = vb_psn(my_qpn);
	/* RDMA READs we issue: no more than the peer answers */
	a->max_rd_atomic =
		(uint8_t)umin(umin(vt->prm.rd_atom, pa->rd_atom),
			      (unsigned)vt->dattr.max_qp_init_rd_atom);
	*mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
}

struct ibv_qp *vb_qp_create_fit(const struct rc_verbs_ops *ops,
				struct ibv_pd *pd, struct ibv_qp_init_attr *ia)
{
	struct ibv_qp_init_attr try;
	struct ibv_qp *qp;

	for (;;) {
		try = *ia;
		qp = ops->create_qp(pd, &try);
		if (qp) {
			*ia = try;
			return qp;
		}
		/* the device may take less inline data than asked */
		if (errno != EINVAL || !ia->cap.max_inline_data)
			return NULL;
		ia->cap.max_inline_data /= 2;
	}
}

/* Modex wiring: create the QP towards p and move it to INIT. */
int vb_qp_create(struct vb_tp *vt, struct vb_peer *p)
{
	const struct rc_verbs_ops *ops = vt->ops;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	int mask, err;

	ia = vb_qp_caps(vt);
	p->qp = vb_qp_create_fit(ops, vt->pd, &ia);
	if (!p->qp) {
		err = errno;
		rc_log_err("verbs: ibv_create_qp on %s for rank %d: %s%s",
			   vt->dev_name, p->wrank, strerror(err),
			   vb_memlock_hint(err));
		return err == ENOMEM ? RC_ERR_NOMEM : RC_ERR_IO;
	}
	if (ia.cap.max_inline_data < vt->inline_max)
		vt->inline_max = ia.cap.max_inline_data;
	vb_qp_init_attr(vt, &a, &mask);
	err = ops->modify_qp(p->qp, &a, mask);
	if (err) {
		rc_log_err("verbs: ibv_modify_qp(INIT) of QP 0x%x on %s for "
			   "rank %d: %s",
			   p->qp->qp_num, vt->dev_name, p->wrank,
			   strerror(err));
		ops->destroy_qp(p->qp);
		p->qp = NULL;
		return RC_ERR_IO;
	}
	return RC_OK;
}

int vb_qp_new(struct vb_tp *vt, struct vb_peer *p)
{
	int ret = vb_qp_create(vt, p);

	if (!ret)
		ret = vb_peer_sq_alloc(vt, p);
	if (!ret)
		ret = vb_qpn_add(vt, p->qp->qp_num, p);
	if (ret)
		vb_qp_destroy(vt, p);
	return ret;
}

void vb_qp_destroy(struct vb_tp *vt, struct vb_peer *p)
{
	if (!p->qp)
		return;
	vb_qpn_del(vt, p->qp->qp_num);
	vt->ops->destroy_qp(p->qp);
	p->qp = NULL;
}

int vb_qp_connect(struct vb_tp *vt, struct vb_peer *p, const struct vb_addr *pa)
{
	struct rc_inst *inst = vt->inst;
	uint32_t rqpn =
		pa->nqpn > (uint32_t)inst->rank ? pa->qpn[inst->rank] : 0;

	if (!rqpn) {
		rc_log_err("verbs: rank %d on %s has no queue pair for us "
			   "(RCMPI_TRANSPORTS or RCMPI_VERBS_CM differ "
			   "between ranks?)",
			   p->wrank, vb_peer_host(vt, p->wrank));
		return RC_ERR_UNREACH;
	}
	return vb_qp_connect_qpn(vt, p, pa, rqpn);
}

int vb_qp_connect_qpn(struct vb_tp *vt, struct vb_peer *p,
		      const struct vb_addr *pa, uint32_t rqpn)
{
	const struct rc_verbs_ops *ops = vt->ops;
	struct ibv_qp_attr a;
	int mask, err;

	vb_qp_rtr_attr(vt, pa, rqpn, &a, &mask);
	err = ops->modify_qp(p->qp, &a, mask);
	if (err) {
		rc_log_err("verbs: ibv_modify_qp(RTR) of QP 0x%x on %s port %u "
			   "towards rank %d on %s (QP 0x%x): %s",
			   p->qp->qp_num, vt->dev_name, vt->port, p->wrank,
			   vb_peer_host(vt, p->wrank), rqpn, strerror(err));
		return RC_ERR_IO;
	}
	vb_qp_rts_attr(vt, pa, p->qp->qp_num, &a, &mask);
	err = ops->modify_qp(p->qp, &a, mask);
	if (err) {
		rc_log_err("verbs: ibv_modify_qp(RTS) of QP 0x%x on %s port %u "
			   "towards rank %d on %s: %s",
			   p->qp->qp_num, vt->dev_name, vt->port, p->wrank,
			   vb_peer_host(vt, p->wrank), strerror(err));
		return RC_ERR_IO;
	}
	p->rqpn = rqpn;
	return RC_OK;
}

/*
 * The loopback QP (RC_TP_CAP_ATOMIC): one RC QP connected to itself, in p
 * (our own rank's peer slot, unused otherwise), so that the device agent
 * of a window (rma/README.md) applies this rank's atomics on its own
 * window too. Only RDMA and atomics travel on it: no receive is ever
 * consumed, no credits.
 */
int vb_qp_loopback(struct vb_tp *vt, struct vb_peer *p)
{
	const struct rc_verbs_ops *ops = vt->ops;
	struct vb_addr self;
	struct ibv_qp_attr a;
	int mask, err, ret;

	memset(&self, 0, sizeof(self));
	self.mtu = (uint8_t)vt->pattr.active_mtu;
	self.lid = vt->pattr.lid;
	self.rd_atom = (uint8_t)vt->prm.rd_atom;
	memcpy(self.gid, vt->gid.raw, 16);
	ret = vb_qp_create(vt, p);
	if (ret)
		return ret;
	ret = vb_peer_sq_alloc(vt, p);
	if (ret)
		goto err_qp;
	vb_qp_rtr_attr(vt, &self, p->qp->qp_num, &a, &mask);
	err = ops->modify_qp(p->qp, &a, mask);
	if (!err) {
		vb_qp_rts_attr(vt, &self, p->qp->qp_num, &a, &mask);
		err = ops->modify_qp(p->qp, &a, mask);
	}
	if (err) {
		rc_log_debug("verbs: loopback QP 0x%x on %s: %s; no device "
			     "atomics",
			     p->qp->qp_num, vt->dev_name, strerror(err));
		ret = RC_ERR_IO;
		goto err_qp;
	}
	p->rqpn = p->qp->qp_num;
	p->state = VB_PEER_CONNECTED;
	return RC_OK;

err_qp:
	vb_qp_destroy(vt, p);
	free(p->sq);
	p->sq = NULL;
	return ret;
}

/* ---- QP number -> peer: open addressing, linear probing ---- */

static inline uint32_t qpn_hash(uint32_t qpn)
{
	return qpn * 0x9e3779b1u;
}

int vb_qpn_add(struct vb_tp *vt, uint32_t qpn, struct vb_peer *p)
{
	uint32_t i = qpn_hash(qpn) & vt->qpn_mask;

	while (vt->qpn_tab[i].p) {
		if (vt->qpn_tab[i].qpn == qpn) {
			vt->qpn_tab[i].p = p;
			return RC_OK;
		}
		i = (i + 1) & vt->qpn_mask;
	}
	vt->qpn_tab[i].qpn = qpn;
	vt->qpn_tab[i].p = p;
	return RC_OK;
}

struct vb_peer *vb_qpn_find(struct vb_tp *vt, uint32_t qpn)
{
	uint32_t i = qpn_hash(qpn) & vt->qpn_mask;

	while (vt->qpn_tab[i].p) {
		if (vt->qpn_tab[i].qpn == qpn)
			return vt->qpn_tab[i].p;
		i = (i + 1) & vt->qpn_mask;
	}
	return NULL;
}

void vb_qpn_del(struct vb_tp *vt, uint32_t qpn)
{
	uint32_t i = qpn_hash(qpn) & vt->qpn_mask, j;

	if (!vt->qpn_tab)
		return;
	while (vt->qpn_tab[i].p && vt->qpn_tab[i].qpn != qpn)
		i = (i + 1) & vt->qpn_mask;
	if (!vt->qpn_tab[i].p)
		return;
	vt->qpn_tab[i].p = NULL;
	/* shift back the entries of the cluster that follows */
	for (j = (i + 1) & vt->qpn_mask; vt->qpn_tab[j].p;
	     j = (j + 1) & vt->qpn_mask) {
		uint32_t home = qpn_hash(vt->qpn_tab[j].qpn) & vt->qpn_mask;

		/* the entry may move to i unless its home is in (i, j] */
		if (((j - home) & vt->qpn_mask) >= ((j - i) & vt->qpn_mask)) {
			vt->qpn_tab[i] = vt->qpn_tab[j];
			vt->qpn_tab[j].p = NULL;
			i = j;
		}
	}
}
