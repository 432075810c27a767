/*
 * verbs_fake.c - see verbs_fake.h.
 *
 * Every call that creates, queries, modifies or posts counts in fk.calls
 * and fails when it is the fk.fail_at-th (NULL / an errno value / -1 with
 * errno, like the real call); destroy and free calls never fail and do not
 * count, so a test that fails the Nth call for every N sees each failure
 * path and then checks that everything created was destroyed (fk.live).
 */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "verbs_fake.h"

struct fk_state fk;

struct fk_ctx {
	struct ibv_context ctx;
	int k;
	struct fk_ctx *next;
};

struct fk_cq {
	struct ibv_cq cq;
	struct ibv_wc *ring;
	int size, head, n;
};

struct fk_rwr {
	uint64_t wr_id;
	uint64_t addr;
	uint32_t len, lkey;
};

struct fk_srq {
	struct ibv_srq srq;
	struct fk_rwr *q;
	int cap, head, n;
};

struct fk_qp {
	struct ibv_qp qp;
	struct fk_qp *next;
	struct ibv_qp_attr rtr, rts;
	int rtr_mask, rts_mask;
	uint32_t dest;
	bool err;
	uint32_t qkey;	   /* UD */
	struct fk_srq *rq; /* UD: its own receive queue */
};

struct fk_ah {
	struct ibv_ah ah;
	struct ibv_ah_attr attr;
};

struct fk_mr {
	struct ibv_mr mr;
	struct fk_mr *next;
	int access;
};

struct fk_ev {
	struct rdma_cm_event ev;
	uint8_t pdata[200];
	struct fk_ev *next;
};

struct fk_chan {
	struct rdma_event_channel ch;
	struct fk_ev *head, *tail;
};

struct fk_id {
	struct rdma_cm_id id;
	struct fk_id *next;
	uint32_t ip;   /* network order */
	uint16_t port; /* host order */
	bool listening, established;
	struct fk_id *remote;
};

static struct ibv_device fk_devs[2];
static struct fk_ctx *ctxs;
static struct fk_qp *qps;
static struct fk_mr *mrs;
static struct fk_id *ids;
static uint32_t next_qpn = 0x100, next_key = 0x1000;
static uint16_t next_port = 20000;

void fk_reset(void)
{
	int i;

	memset(&fk, 0, sizeof(fk));
	fk.link_layer = IBV_LINK_LAYER_ETHERNET;
	fk.ndevices = 1;
	fk.port_state = IBV_PORT_ACTIVE;
	for (i = 0; i < 8; i++)
		fk.mtu[i] = IBV_MTU_1024;
	fk.max_inline = 512;
	fk.max_msg_sz = 1u << 31;
	fk.max_cqe = 32767;
	fk.max_srq_wr = 16384;
	fk.fail_wr_status = IBV_WC_RETRY_EXC_ERR;
	strcpy(fk_devs[0].name, "fake0");
	strcpy(fk_devs[1].name, "fake1");
	ctxs = NULL;
	qps = NULL;
	mrs = NULL;
	ids = NULL;
}

int fk_live_total(void)
{
	int i, n = 0;

	for (i = 0; i < FK_NOBJ; i++)
		n += fk.live[i];
	return n;
}

/* Count a call; true when it must fail. */
static bool fk_fail(void)
{
	return ++fk.calls == fk.fail_at;
}

/* ---- addresses of the k-th context ---- */

static uint32_t ctx_ip(int k)
{
	return htonl(0x0a000001u + (uint32_t)k); /* 10.0.0.k+1 */
}

uint16_t fk_ctx_lid(int k)
{
	return (uint16_t)(10 + k);
}

/* the link layer of device d */
static int dev_link(const struct ibv_device *d)
{
	int i = d == &fk_devs[1];

	return fk.dev_link_layer[i] ? fk.dev_link_layer[i] : fk.link_layer;
}

static void gid_entry(int k, int link, int idx, struct ibv_gid_entry *e)
{
	uint32_t ip = ctx_ip(k);

	memset(e, 0, sizeof(*e));
	e->gid_index = (uint32_t)idx;
	e->port_num = 1;
	if (link == IBV_LINK_LAYER_INFINIBAND) {
		e->gid_type = IBV_GID_TYPE_IB;
		e->gid.raw[0] = 0xfe;
		e->gid.raw[1] = 0x80;
		e->gid.raw[15] = (uint8_t)(k + 1);
		return;
	}
	switch (idx) {
	case 0: /* link-local, RoCE v2 */
		e->gid_type = IBV_GID_TYPE_ROCE_V2;
		e->gid.raw[0] = 0xfe;
		e->gid.raw[1] = 0x80;
		e->gid.raw[15] = (uint8_t)(k + 1);
		break;
	case 1: /* IPv4-mapped, RoCE v1 */
	case 2: /* IPv4-mapped, RoCE v2: the one to pick */
		e->gid_type =
			idx == 1 ? IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_ROCE_V2;
		e->gid.raw[10] = 0xff;
		e->gid.raw[11] = 0xff;
		memcpy(e->gid.raw + 12, &ip, 4);
		break;
	}
}

void fk_ctx_gid(int k, uint8_t gid[16])
{
	struct ibv_gid_entry e;

	gid_entry(k, fk.link_layer,
		  fk.link_layer == IBV_LINK_LAYER_INFINIBAND ? 0 : 2, &e);
	memcpy(gid, e.gid.raw, 16);
}

static int gid_count(int link)
{
	return link == IBV_LINK_LAYER_INFINIBAND ? 1 : 3;
}

/* ---- devices ---- */

static struct ibv_device **f_get_device_list(int *num)
{
	struct ibv_device **l;
	int i;

	if (fk_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	if (!fk.ndevices) {
		errno = ENOSYS; /* what libibverbs says without kernel support
				 */
		return NULL;
	}
	l = calloc(fk.ndevices + 1, sizeof(*l));
	for (i = 0; i < fk.ndevices; i++)
		l[i] = &fk_devs[i];
	*num = fk.ndevices;
	fk.live[FK_DEVLIST]++;
	return l;
}

static void f_free_device_list(struct ibv_device **l)
{
	free(l);
	fk.live[FK_DEVLIST]--;
}

static const char *f_get_device_name(struct ibv_device *d)
{
	return d->name;
}

static struct fk_ctx *ctx_new(struct ibv_device *d)
{
	struct fk_ctx *c = calloc(1, sizeof(*c));

	c->ctx.device = d;
	c->ctx.cmd_fd = -1;
	c->ctx.async_fd = -1;
	c->k = fk.nctx++;
	c->next = ctxs;
	ctxs = c;
	fk.live[FK_CTX]++;
	return c;
}

static void ctx_free(struct fk_ctx *c)
{
	struct fk_ctx **pp;

	for (pp = &ctxs; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	free(c);
	fk.live[FK_CTX]--;
}

static struct ibv_context *f_open_device(struct ibv_device *d)
{
	if (fk_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return &ctx_new(d)->ctx;
}

static int f_close_device(struct ibv_context *ctx)
{
	ctx_free((struct fk_ctx *)ctx);
	return 0;
}

static int f_query_device(struct ibv_context *ctx, struct ibv_device_attr *a)
{
	struct fk_ctx *c = (struct fk_ctx *)ctx;

	if (fk_fail())
		return ENOMEM;
	memset(a, 0, sizeof(*a));
	a->node_guid = htobe64(0x0002c90300000000ull +
			       (fk.one_guid ? 0 : (uint64_t)c->k));
	a->vendor_id = fk.vendor_id;
	a->max_qp = 1 << 16;
	a->max_qp_wr = 16384;
	a->max_sge = 32;
	a->max_cq = 1 << 16;
	a->max_cqe = fk.max_cqe;
	a->max_mr = 1 << 20;
	a->max_pd = 1 << 16;
	a->max_qp_rd_atom = 16;
	a->max_qp_init_rd_atom = 16;
	a->max_srq = 1 << 16;
	a->max_srq_wr = fk.max_srq_wr;
	a->max_srq_sge = 27;
	a->phys_port_cnt = 1;
	a->atomic_cap = fk.atomic_cap;
	return 0;
}

static int f_query_port(struct ibv_context *ctx, uint8_t port,
			struct ibv_port_attr *a)
{
	struct fk_ctx *c = (struct fk_ctx *)ctx;

	if (fk_fail())
		return ENOMEM;
	if (port != 1)
		return EINVAL;
	memset(a, 0, sizeof(*a));
	a->state = fk.port_state;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = fk.mtu[c->k & 7];
	a->gid_tbl_len = 4;
	a->max_msg_sz = fk.max_msg_sz;
	a->link_layer = (uint8_t)dev_link(ctx->device);
	if (a->link_layer == IBV_LINK_LAYER_INFINIBAND)
		a->lid = fk_ctx_lid(c->k);
	return 0;
}

static int f_query_gid_ex(struct ibv_context *ctx, uint32_t port, uint32_t idx,
			  struct ibv_gid_entry *e)
{
	struct fk_ctx *c = (struct fk_ctx *)ctx;

	if (fk_fail())
		return ENOMEM;
	if (port != 1 || idx >= 4)
		return EINVAL;
	if ((int)idx >= gid_count(dev_link(ctx->device)))
		return ENODATA;
	gid_entry(c->k, dev_link(ctx->device), (int)idx, e);
	return 0;
}

static ssize_t f_query_gid_table(struct ibv_context *ctx,
				 struct ibv_gid_entry *e, size_t max)
{
	struct fk_ctx *c = (struct fk_ctx *)ctx;
	int i;

	if (fk_fail()) {
		errno = ENOMEM;
		return -1;
	}
	if (fk.gid_table_fails) {
		errno = EOPNOTSUPP;
		return -1;
	}
	for (i = 0; i < gid_count(dev_link(ctx->device)) && (size_t)i < max;
	     i++)
		gid_entry(c->k, dev_link(ctx->device), i, &e[i]);
	return i;
}

static int f_fork_init(void)
{
	if (fk_fail())
		return ENOMEM;
	return 0;
}

/* ---- resources ---- */

static struct ibv_pd *f_alloc_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd;

	if (fk_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	pd->context = ctx;
	fk.live[FK_PD]++;
	return pd;
}

static int f_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	fk.live[FK_PD]--;
	return 0;
}

static struct ibv_cq *f_create_cq(struct ibv_context *ctx, int cqe)
{
	struct fk_cq *cq;

	if (fk_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	if (cqe > fk.max_cqe) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	cq->cq.context = ctx;
	cq->cq.cqe = cqe;
	cq->size = cqe;
	cq->ring = calloc(cqe, sizeof(*cq->ring));
	fk.live[FK_CQ]++;
	return &cq->cq;
}

static int f_destroy_cq(struct ibv_cq *c)
{
	struct fk_cq *cq = (struct fk_cq *)c;

	free(cq->ring);
	free(cq);
	fk.live[FK_CQ]--;
	return 0;
}

static struct ibv_srq *f_create_srq(struct ibv_pd *pd,
				    struct ibv_srq_init_attr *a)
{
	struct fk_srq *s;

	if (fk_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	if ((int)a->attr.max_wr > fk.max_srq_wr) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	s->srq.context = pd->context;
	s->srq.pd = pd;
	s->cap = (int)a->attr.max_wr;
	s->q = calloc(s->cap, sizeof(*s->q));
	fk.live[FK_SRQ]++;
	return &s->srq;
}

static int f_destroy_srq(struct ibv_srq *srq)
{
	struct fk_srq *s = (struct fk_srq *)srq;

	free(s->q);
	free(s);
	fk.live[FK_SRQ]--;
	return 0;
}

static struct fk_qp *qp_new(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	struct fk_qp *q;

	if ((int)a->cap.max_inline_data > fk.max_inline) {
		errno = EINVAL;
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	q->qp.context = pd->context;
	q->qp.pd = pd;
	q->qp.send_cq = a->send_cq;
	q->qp.recv_cq = a->recv_cq;
	q->qp.srq = a->srq;
	q->qp.qp_type = a->qp_type;
	q->qp.qp_num = next_qpn++;
	q->qp.state = IBV_QPS_RESET;
	if (a->qp_type == IBV_QPT_UD) {
		q->rq = calloc(1, sizeof(*q->rq));
		q->rq->cap = (int)a->cap.max_recv_wr;
		q->rq->q = calloc((size_t)q->rq->cap, sizeof(*q->rq->q));
	}
	q->next = qps;
	qps = q;
	fk.live[FK_QP]++;
	return q;
}

static void qp_free(struct fk_qp *q)
{
	struct fk_qp **pp;

	for (pp = &qps; *pp; pp = &(*pp)->next)
		if (*pp == q) {
			*pp = q->next;
			break;
		}
	if (q->rq) {
		free(q->rq->q);
		free(q->rq);
	}
	free(q);
	fk.live[FK_QP]--;
}

static struct fk_qp *qp_find(uint32_t qpn)
{
	struct fk_qp *q;

	for (q = qps; q; q = q->next)
		if (q->qp.qp_num == qpn)
			return q;
	return NULL;
}

static struct ibv_qp *f_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	struct fk_qp *q;

	if (fk_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	q = qp_new(pd, a);
	return q ? &q->qp : NULL;
}

static int f_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	struct fk_qp *q = (struct fk_qp *)qp;

	if (fk_fail())
		return ENOMEM;
	if (!(mask & IBV_QP_STATE))
		return EINVAL;
	switch (a->qp_state) {
	case IBV_QPS_INIT:
		if (qp->state != IBV_QPS_RESET)
			return EINVAL;
		if (qp->qp_type == IBV_QPT_UD) {
			if (!(mask & IBV_QP_QKEY) ||
			    (mask & IBV_QP_ACCESS_FLAGS))
				return EINVAL;
			q->qkey = a->qkey;
		}
		break;
	case IBV_QPS_RTR:
		if (qp->state != IBV_QPS_INIT)
			return EINVAL;
		if (qp->qp_type == IBV_QPT_UD) {
			if (mask & (IBV_QP_AV | IBV_QP_DEST_QPN))
				return EINVAL;
			break;
		}
		q->rtr = *a;
		q->rtr_mask = mask;
		q->dest = a->dest_qp_num;
		break;
	case IBV_QPS_RTS:
		if (qp->state != IBV_QPS_RTR)
			return EINVAL;
		q->rts = *a;
		q->rts_mask = mask;
		break;
	default:
		break;
	}
	qp->state = a->qp_state;
	return 0;
}

static int f_destroy_qp(struct ibv_qp *qp)
{
	qp_free((struct fk_qp *)qp);
	return 0;
}

bool fk_qp_attrs(uint32_t qpn, struct ibv_qp_attr *rtr, int *rtr_mask,
		 struct ibv_qp_attr *rts, int *rts_mask)
{
	struct fk_qp *q = qp_find(qpn);

	if (!q)
		return false;
	*rtr = q->rtr;
	*rtr_mask = q->rtr_mask;
	*rts = q->rts;
	*rts_mask = q->rts_mask;
	return true;
}

int fk_qp_list(uint32_t *qpn, int max)
{
	struct fk_qp *q;
	int n = 0;

	for (q = qps; q && n < max; q = q->next)
		if (q->qp.qp_type == IBV_QPT_RC)
			qpn[n++] = q->qp.qp_num;
	return n;
}

static struct ibv_mr *f_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
			       int access)
{
	struct fk_mr *m;

	if (fk_fail() || (fk.fail_reg_len && len == fk.fail_reg_len)) {
		errno = ENOMEM;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = len;
	m->mr.lkey = next_key++;
	m->mr.rkey = m->mr.lkey;
	m->access = access;
	m->next = mrs;
	mrs = m;
	fk.live[FK_MR]++;
	return &m->mr;
}

static int f_dereg_mr(struct ibv_mr *mr)
{
	struct fk_mr **pp, *m = (struct fk_mr *)mr;

	for (pp = &mrs; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	free(m);
	fk.live[FK_MR]--;
	return 0;
}

/* Is [addr, addr + len) inside an MR with key `key` allowing `access`? */
static bool mr_ok(uint32_t key, uint64_t addr, size_t len, int access)
{
	struct fk_mr *m;

	for (m = mrs; m; m = m->next) {
		uintptr_t a = (uintptr_t)m->mr.addr;

		if (m->mr.lkey == key && addr >= a &&
		    addr + len <= a + m->mr.length &&
		    (m->access & access) == access)
			return true;
	}
	return false;
}

/* ---- data path ---- */

static void cq_push(struct ibv_cq *c, const struct ibv_wc *wc)
{
	struct fk_cq *cq = (struct fk_cq *)c;

	if (cq->n == cq->size) {
		fk.cq_overflow++;
		return;
	}
	cq->ring[(cq->head + cq->n) % cq->size] = *wc;
	cq->n++;
}

static size_t sge_total(const struct ibv_send_wr *wr)
{
	size_t n = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++)
		n += wr->sg_list[i].length;
	return n;
}

/* Gather wr's data into dst (checking lkeys unless inline). */
static bool gather(const struct ibv_send_wr *wr, char *dst)
{
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct ibv_sge *s = &wr->sg_list[i];

		if (!(wr->send_flags & IBV_SEND_INLINE) && s->length &&
		    !mr_ok(s->lkey, s->addr, s->length, 0)) {
			fk.bad_key++;
			return false;
		}
		memcpy(dst, (void *)(uintptr_t)s->addr, s->length);
		dst += s->length;
	}
	return true;
}

/* A SEND of len bytes from q lands in the next receive of s (peer's SRQ,
 * or a UD QP's own queue, after grh bytes): its completion, pushed to
 * peer's receive CQ, and its status. */
static enum ibv_wc_status rq_deliver(struct fk_srq *s, struct fk_qp *q,
				     struct fk_qp *peer,
				     const struct ibv_send_wr *wr, size_t len,
				     size_t grh)
{
	struct ibv_wc rwc;
	struct fk_rwr r = s->q[s->head];

	s->head = (s->head + 1) % s->cap;
	s->n--;
	memset(&rwc, 0, sizeof(rwc));
	rwc.wr_id = r.wr_id;
	rwc.opcode = IBV_WC_RECV;
	rwc.qp_num = peer->qp.qp_num;
	rwc.src_qp = q->qp.qp_num;
	rwc.wc_flags = grh ? IBV_WC_GRH : 0;
	rwc.byte_len = (uint32_t)(len + grh);
	if (len + grh > r.len ||
	    !mr_ok(r.lkey, r.addr, len + grh, IBV_ACCESS_LOCAL_WRITE)) {
		rwc.status = IBV_WC_LOC_LEN_ERR;
		fk.bad_key++;
	} else if (!gather(wr, (char *)(uintptr_t)r.addr + grh)) {
		rwc.status = IBV_WC_LOC_PROT_ERR;
	}
	cq_push(peer->qp.recv_cq, &rwc);
	return rwc.status;
}

/* Carry out one WR; the status of its completion. */
static enum ibv_wc_status do_wr(struct fk_qp *q, const struct ibv_send_wr *wr,
				uint32_t *byte_len)
{
	struct fk_qp *peer = qp_find(q->dest);
	size_t len = sge_total(wr);

	*byte_len = (uint32_t)len;
	if (q->err)
		return IBV_WC_WR_FLUSH_ERR;
	if (++fk.wrs == fk.fail_wr_at)
		return fk.fail_wr_status;
	if (!peer || peer->qp.state < IBV_QPS_RTR)
		return IBV_WC_RETRY_EXC_ERR;
	if ((wr->send_flags & IBV_SEND_INLINE) && (int)len > fk.max_inline)
		return IBV_WC_LOC_LEN_ERR;
	switch (wr->opcode) {
	case IBV_WR_SEND: {
		struct fk_srq *s = (struct fk_srq *)peer->qp.srq;
		enum ibv_wc_status st;

		fk.sends++;
		fk.inline_sends += !!(wr->send_flags & IBV_SEND_INLINE);
		if (!s->n) {
			fk.rnr++;
			return IBV_WC_RNR_RETRY_EXC_ERR;
		}
		st = rq_deliver(s, q, peer, wr, len, 0);
		return st == IBV_WC_SUCCESS ? IBV_WC_SUCCESS
					    : IBV_WC_REM_OP_ERR;
	}
	case IBV_WR_RDMA_WRITE:
		fk.writes++;
		fk.inline_writes += !!(wr->send_flags & IBV_SEND_INLINE);
		if (!mr_ok(wr->wr.rdma.rkey, wr->wr.rdma.remote_addr, len,
			   IBV_ACCESS_REMOTE_WRITE)) {
			fk.bad_key++;
			return IBV_WC_REM_ACCESS_ERR;
		}
		if (!gather(wr, (char *)(uintptr_t)wr->wr.rdma.remote_addr))
			return IBV_WC_LOC_PROT_ERR;
		return IBV_WC_SUCCESS;
	case IBV_WR_RDMA_READ: {
		const char *src =
			(const char *)(uintptr_t)wr->wr.rdma.remote_addr;
		int i;

		fk.reads++;
		if (!mr_ok(wr->wr.rdma.rkey, wr->wr.rdma.remote_addr, len,
			   IBV_ACCESS_REMOTE_READ)) {
			fk.bad_key++;
			return IBV_WC_REM_ACCESS_ERR;
		}
		for (i = 0; i < wr->num_sge; i++) {
			const struct ibv_sge *s = &wr->sg_list[i];

			if (!mr_ok(s->lkey, s->addr, s->length,
				   IBV_ACCESS_LOCAL_WRITE)) {
				fk.bad_key++;
				return IBV_WC_LOC_PROT_ERR;
			}
			memcpy((void *)(uintptr_t)s->addr, src, s->length);
			src += s->length;
		}
		return IBV_WC_SUCCESS;
	}
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_ATOMIC_CMP_AND_SWP: {
		uint64_t *t = (uint64_t *)(uintptr_t)wr->wr.atomic.remote_addr;
		const struct ibv_sge *s = wr->sg_list;
		uint64_t old;

		fk.atomics++;
		fk.last_atomic = *wr;
		fk.last_atomic_sge =
			wr->num_sge == 1 ? *s : (struct ibv_sge){0};
		if (wr->num_sge != 1 || s->length != 8 || (s->addr & 7) ||
		    (wr->wr.atomic.remote_addr & 7))
			return IBV_WC_LOC_LEN_ERR;
		if (!mr_ok(wr->wr.atomic.rkey, wr->wr.atomic.remote_addr, 8,
			   IBV_ACCESS_REMOTE_ATOMIC)) {
			fk.bad_key++;
			return IBV_WC_REM_ACCESS_ERR;
		}
		if (!mr_ok(s->lkey, s->addr, 8, IBV_ACCESS_LOCAL_WRITE)) {
			fk.bad_key++;
			return IBV_WC_LOC_PROT_ERR;
		}
		old = *t;
		if (wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
			*t = old + wr->wr.atomic.compare_add;
		else if (old == wr->wr.atomic.compare_add)
			*t = wr->wr.atomic.swap;
		memcpy((void *)(uintptr_t)s->addr, &old, 8);
		return IBV_WC_SUCCESS;
	}
	default:
		return IBV_WC_LOC_QP_OP_ERR;
	}
}

/* ---- UD: datagrams between the contexts' UD QPs ---- */

static int f_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad);

/* Does ah address context c (IB: its LID, no GRH; RoCE: its GID)? */
static bool ah_reaches(const struct fk_ah *ah, const struct fk_ctx *c)
{
	uint8_t gid[16];

	if (dev_link(c->ctx.device) == IBV_LINK_LAYER_INFINIBAND)
		return !ah->attr.is_global && ah->attr.dlid == fk_ctx_lid(c->k);
	fk_ctx_gid(c->k, gid);
	return ah->attr.is_global && !memcmp(ah->attr.grh.dgid.raw, gid, 16);
}

/* One datagram: lost (fk.ud_drop, a wrong address or QKey, no receive
 * posted) or placed after 40 bytes of GRH; the sender sees success
 * either way, as on a real fabric. */
static enum ibv_wc_status do_ud(struct fk_qp *q, const struct ibv_send_wr *wr,
				uint32_t *byte_len)
{
	struct fk_qp *peer = qp_find(wr->wr.ud.remote_qpn);
	const struct fk_ah *ah = (const struct fk_ah *)wr->wr.ud.ah;
	size_t len = sge_total(wr);

	*byte_len = (uint32_t)len;
	if (wr->opcode != IBV_WR_SEND)
		return IBV_WC_LOC_QP_OP_ERR;
	if (len > 256)
		return IBV_WC_LOC_LEN_ERR; /* (the fake's limit: ours are 40) */
	fk.ud_sends++;
	if (fk.ud_drop_all || (fk.ud_drop && fk.ud_drop--))
		return IBV_WC_SUCCESS;
	if (!peer || !peer->rq || peer->qp.state < IBV_QPS_RTR ||
	    !ah_reaches(ah, (struct fk_ctx *)peer->qp.context) ||
	    wr->wr.ud.remote_qkey != peer->qkey) {
		fk.ud_misaddressed++;
		return IBV_WC_SUCCESS;
	}
	if (!peer->rq->n) {
		fk.ud_no_recv++;
		return IBV_WC_SUCCESS;
	}
	rq_deliver(peer->rq, q, peer, wr, len, 40);
	return IBV_WC_SUCCESS;
}

static int f_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad)
{
	struct fk_qp *q = (struct fk_qp *)qp;

	if (!q->rq) {
		*bad = wr;
		return EINVAL;
	}
	return f_post_srq_recv(&q->rq->srq, wr, bad);
}

static struct ibv_ah *f_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct fk_ah *a;

	if (fk_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	a->ah.context = pd->context;
	a->ah.pd = pd;
	a->attr = *attr;
	fk.live[FK_AH]++;
	return &a->ah;
}

static int f_destroy_ah(struct ibv_ah *ah)
{
	free(ah);
	fk.live[FK_AH]--;
	return 0;
}

static int f_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad)
{
	struct fk_qp *q = (struct fk_qp *)qp;

	if (fk_fail()) {
		*bad = wr;
		return ENOMEM;
	}
	if (qp->state != IBV_QPS_RTS && !q->err) {
		*bad = wr;
		return EINVAL;
	}
	for (; wr; wr = wr->next) {
		struct ibv_wc wc;
		uint64_t total = 0;
		uint32_t n;
		int i;

		/* as rxe: longer than the port's max_msg_sz, refused */
		for (i = 0; i < wr->num_sge; i++)
			total += wr->sg_list[i].length;
		if (total > fk.max_msg_sz) {
			*bad = wr;
			return EINVAL;
		}
		memset(&wc, 0, sizeof(wc));
		if (qp->qp_type == IBV_QPT_UD)
			wc.status = do_ud(q, wr, &n);
		else
			wc.status = do_wr(q, wr, &n);
		wc.wr_id = wr->wr_id;
		wc.qp_num = qp->qp_num;
		wc.byte_len = n;
		wc.opcode = wr->opcode == IBV_WR_SEND	     ? IBV_WC_SEND
			    : wr->opcode == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ
			    : wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD
				    ? IBV_WC_FETCH_ADD
			    : wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP
				    ? IBV_WC_COMP_SWAP
				    : IBV_WC_RDMA_WRITE;
		if (wc.status != IBV_WC_SUCCESS)
			q->err = true;
		/* errors complete every WR, signaled or not */
		if (wc.status != IBV_WC_SUCCESS ||
		    (wr->send_flags & IBV_SEND_SIGNALED))
			cq_push(qp->send_cq, &wc);
	}
	return 0;
}

static int f_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad)
{
	struct fk_srq *s = (struct fk_srq *)srq;

	if (fk_fail()) {
		*bad = wr;
		return ENOMEM;
	}
	for (; wr; wr = wr->next) {
		struct fk_rwr *r;

		if (s->n == s->cap) {
			*bad = wr;
			return ENOMEM;
		}
		r = &s->q[(s->head + s->n) % s->cap];
		r->wr_id = wr->wr_id;
		r->addr = wr->sg_list[0].addr;
		r->len = wr->sg_list[0].length;
		r->lkey = wr->sg_list[0].lkey;
		s->n++;
	}
	return 0;
}

static int f_poll_cq(struct ibv_cq *c, int n, struct ibv_wc *wc)
{
	struct fk_cq *cq = (struct fk_cq *)c;
	int i;

	for (i = 0; i < n && cq->n; i++) {
		wc[i] = cq->ring[cq->head];
		cq->head = (cq->head + 1) % cq->size;
		cq->n--;
	}
	return i;
}

/* ---- rdma_cm ---- */

static struct ibv_context **f_cm_get_devices(int *num)
{
	struct ibv_context **l;

	if (fk_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	if (!fk.ndevices) {
		*num = 0;
		errno = ENODEV;
		return NULL;
	}
	l = calloc(2, sizeof(*l));
	l[0] = &ctx_new(&fk_devs[0])->ctx;
	*num = 1;
	fk.live[FK_DEVLIST]++;
	return l;
}

static void f_cm_free_devices(struct ibv_context **l)
{
	ctx_free((struct fk_ctx *)l[0]);
	free(l);
	fk.live[FK_DEVLIST]--;
}

static struct rdma_event_channel *f_cm_create_event_channel(void)
{
	struct fk_chan *c;

	if (fk_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	c->ch.fd = -1;
	fk.live[FK_CHAN]++;
	return &c->ch;
}

static void f_cm_destroy_event_channel(struct rdma_event_channel *ch)
{
	struct fk_chan *c = (struct fk_chan *)ch;

	while (c->head) {
		struct fk_ev *e = c->head;

		c->head = e->next;
		free(e);
	}
	free(c);
	fk.live[FK_CHAN]--;
}

static void ev_queue(struct fk_id *to, enum rdma_cm_event_type type,
		     struct fk_id *listen, int status, const void *pdata,
		     size_t plen, uint32_t qpn)
{
	struct fk_chan *c = (struct fk_chan *)to->id.channel;
	struct fk_ev *e = calloc(1, sizeof(*e));

	e->ev.id = &to->id;
	e->ev.listen_id = listen ? &listen->id : NULL;
	e->ev.event = type;
	e->ev.status = status;
	if (plen) {
		memcpy(e->pdata, pdata, plen);
		e->ev.param.conn.private_data = e->pdata;
		e->ev.param.conn.private_data_len = (uint8_t)plen;
	}
	e->ev.param.conn.qp_num = qpn;
	if (c->tail)
		c->tail->next = e;
	else
		c->head = e;
	c->tail = e;
}

static struct fk_ctx *ctx_by_ip(uint32_t ip)
{
	struct fk_ctx *c;

	for (c = ctxs; c; c = c->next)
		if (ctx_ip(c->k) == ip)
			return c;
	return NULL;
}

static struct fk_id *id_new(struct rdma_event_channel *ch, void *context,
			    enum rdma_port_space ps)
{
	struct fk_id *i = calloc(1, sizeof(*i));

	i->id.channel = ch;
	i->id.context = context;
	i->id.ps = ps;
	i->next = ids;
	ids = i;
	fk.live[FK_ID]++;
	return i;
}

static int f_cm_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **id,
			  void *context, enum rdma_port_space ps)
{
	if (fk_fail()) {
		errno = ENOMEM;
		return -1;
	}
	*id = &id_new(ch, context, ps)->id;
	return 0;
}

static int f_cm_destroy_id(struct rdma_cm_id *id)
{
	struct fk_id *i = (struct fk_id *)id, **pp;
	struct fk_chan *c = (struct fk_chan *)id->channel;
	struct fk_ev **ep, *e;

	if (i->remote) {
		if (i->established)
			ev_queue(i->remote, RDMA_CM_EVENT_DISCONNECTED, NULL, 0,
				 NULL, 0, 0);
		i->remote->remote = NULL;
	}
	/* the events still queued for it go away with it */
	for (ep = &c->head; (e = *ep);) {
		if (e->ev.id == id) {
			*ep = e->next;
			free(e);
		} else {
			ep = &e->next;
		}
	}
	c->tail = NULL;
	for (e = c->head; e; e = e->next)
		c->tail = e;
	for (pp = &ids; *pp; pp = &(*pp)->next)
		if (*pp == i) {
			*pp = i->next;
			break;
		}
	free(i);
	fk.live[FK_ID]--;
	return 0;
}

static int bind_inner(struct rdma_cm_id *id, struct sockaddr *sa)
{
	struct fk_id *i = (struct fk_id *)id;
	struct sockaddr_in *sin = (struct sockaddr_in *)sa;
	struct fk_ctx *c;

	c = ctx_by_ip(sin->sin_addr.s_addr);
	if (!c) {
		errno = EADDRNOTAVAIL;
		return -1;
	}
	id->verbs = &c->ctx;
	id->port_num = 1;
	i->ip = sin->sin_addr.s_addr;
	i->port = sin->sin_port ? ntohs(sin->sin_port) : next_port++;
	return 0;
}

static int f_cm_bind_addr(struct rdma_cm_id *id, struct sockaddr *sa)
{
	if (fk_fail()) {
		errno = ENOMEM;
		return -1;
	}
	return bind_inner(id, sa);
}

static int f_cm_listen(struct rdma_cm_id *id, int backlog)
{
	if (fk_fail()) {
		errno = ENOMEM;
		return -1;
	}
	((struct fk_id *)id)->listening = true;
	return 0;
}

static uint16_t f_cm_get_src_port(struct rdma_cm_id *id)
{
	return htons(((struct fk_id *)id)->port);
}

static int f_cm_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src,
			     struct sockaddr *dst, int ms)
{
	struct fk_id *i = (struct fk_id *)id;
	struct sockaddr_in *d = (struct sockaddr_in *)dst;

	if (fk_fail()) {
		errno = ENOMEM;
		return -1;
	}
	if (src && bind_inner(id, src))
		return -1;
	i->remote = NULL;
	i->established = false;
	id->route.addr.dst_sin = *d;
	ev_queue(i,
		 ctx_by_ip(d->sin_addr.s_addr) ? RDMA_CM_EVENT_ADDR_RESOLVED
					       : RDMA_CM_EVENT_ADDR_ERROR,
		 NULL, 0, NULL, 0, 0);
	return 0;
}

static int f_cm_resolve_route(struct rdma_cm_id *id, int ms)
{
	if (fk_fail()) {
		errno = ENOMEM;
		return -1;
	}
	ev_queue((struct fk_id *)id, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, 0,
		 NULL, 0, 0);
	return 0;
}

static int f_cm_set_option(struct rdma_cm_id *id, int level, int name,
			   void *val, size_t len)
{
	if (fk_fail()) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static int f_cm_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
			  struct ibv_qp_init_attr *a)
{
	struct fk_qp *q;

	if (fk_fail()) {
		errno = ENOMEM;
		return -1;
	}
	q = qp_new(pd, a);
	if (!q)
		return -1;
	q->qp.state = IBV_QPS_INIT;
	id->qp = &q->qp;
	return 0;
}

static void f_cm_destroy_qp(struct rdma_cm_id *id)
{
	qp_free((struct fk_qp *)id->qp);
	id->qp = NULL;
}

static int f_cm_connect(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	struct fk_id *i = (struct fk_id *)id, *l, *req;
	struct sockaddr_in *d = &id->route.addr.dst_sin;

	if (fk_fail()) {
		errno = ENOMEM;
		return -1;
	}
	fk.cm_connects++;
	for (l = ids; l; l = l->next)
		if (l->listening && l->ip == d->sin_addr.s_addr &&
		    l->port == ntohs(d->sin_port))
			break;
	if (!l) {
		ev_queue(i, RDMA_CM_EVENT_UNREACHABLE, NULL, -ETIMEDOUT, NULL,
			 0, 0);
		return 0;
	}
	req = id_new(l->id.channel, l->id.context, l->id.ps);
	req->id.verbs = l->id.verbs;
	req->id.port_num = 1;
	req->remote = i;
	i->remote = req;
	ev_queue(req, RDMA_CM_EVENT_CONNECT_REQUEST, l, 0, p->private_data,
		 p->private_data_len, id->qp->qp_num);
	return 0;
}

static int f_cm_accept(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	struct fk_id *i = (struct fk_id *)id, *a = i->remote;
	struct fk_qp *mq = (struct fk_qp *)id->qp, *aq;

	if (fk_fail()) {
		errno = ENOMEM;
		return -1;
	}
	if (!a || !a->id.qp || !mq) {
		errno = EINVAL;
		return -1;
	}
	aq = (struct fk_qp *)a->id.qp;
	mq->dest = aq->qp.qp_num;
	aq->dest = mq->qp.qp_num;
	/* like librdmacm: the passive QP goes to RTS at accept, the active
	 * one when its side takes the REP (f_cm_get_event), which also sends
	 * the RTU that makes the passive side ESTABLISHED */
	mq->qp.state = IBV_QPS_RTS;
	i->established = a->established = true;
	ev_queue(a, RDMA_CM_EVENT_ESTABLISHED, NULL, 0, p->private_data,
		 p->private_data_len, mq->qp.qp_num);
	return 0;
}

static int f_cm_reject(struct rdma_cm_id *id, const void *pdata, uint8_t len)
{
	struct fk_id *i = (struct fk_id *)id, *a = i->remote;

	fk.cm_rejects++;
	if (a) {
		ev_queue(a, RDMA_CM_EVENT_REJECTED, NULL, 28, pdata, len, 0);
		a->remote = NULL;
		i->remote = NULL;
	}
	return 0;
}

static int f_cm_disconnect(struct rdma_cm_id *id)
{
	struct fk_id *i = (struct fk_id *)id;

	if (i->remote && i->established) {
		ev_queue(i->remote, RDMA_CM_EVENT_DISCONNECTED, NULL, 0, NULL,
			 0, 0);
		i->remote->established = false;
		i->established = false;
	}
	return 0;
}

static int f_cm_get_event(struct rdma_event_channel *ch,
			  struct rdma_cm_event **ev)
{
	struct fk_chan *c = (struct fk_chan *)ch;
	struct fk_ev *e = c->head;

	if (!e) {
		errno = EAGAIN;
		return -1;
	}
	c->head = e->next;
	if (!c->head)
		c->tail = NULL;
	if (e->ev.event == RDMA_CM_EVENT_ESTABLISHED &&
	    e->ev.param.conn.private_data) {
		/* the active side takes the REP: RTS, RTU to the passive side
		 */
		struct fk_id *me = (struct fk_id *)e->ev.id;

		if (me->id.qp)
			me->id.qp->state = IBV_QPS_RTS;
		if (me->remote)
			ev_queue(me->remote, RDMA_CM_EVENT_ESTABLISHED, NULL, 0,
				 NULL, 0, me->id.qp ? me->id.qp->qp_num : 0);
	}
	fk.live[FK_EVENT]++;
	*ev = &e->ev;
	return 0;
}

static int f_cm_ack_event(struct rdma_cm_event *ev)
{
	free(ev); /* ev is the first member of struct fk_ev */
	fk.live[FK_EVENT]--;
	return 0;
}

const struct rc_verbs_ops fk_ops = {
	.get_device_list = f_get_device_list,
	.free_device_list = f_free_device_list,
	.get_device_name = f_get_device_name,
	.open_device = f_open_device,
	.close_device = f_close_device,
	.query_device = f_query_device,
	.query_port = f_query_port,
	.query_gid_ex = f_query_gid_ex,
	.query_gid_table = f_query_gid_table,
	.fork_init = f_fork_init,
	.alloc_pd = f_alloc_pd,
	.dealloc_pd = f_dealloc_pd,
	.create_cq = f_create_cq,
	.destroy_cq = f_destroy_cq,
	.create_srq = f_create_srq,
	.destroy_srq = f_destroy_srq,
	.create_qp = f_create_qp,
	.modify_qp = f_modify_qp,
	.destroy_qp = f_destroy_qp,
	.reg_mr = f_reg_mr,
	.dereg_mr = f_dereg_mr,
	.post_send = f_post_send,
	.post_srq_recv = f_post_srq_recv,
	.poll_cq = f_poll_cq,
	.post_recv = f_post_recv,
	.create_ah = f_create_ah,
	.destroy_ah = f_destroy_ah,
	.cm_get_devices = f_cm_get_devices,
	.cm_free_devices = f_cm_free_devices,
	.cm_create_event_channel = f_cm_create_event_channel,
	.cm_destroy_event_channel = f_cm_destroy_event_channel,
	.cm_create_id = f_cm_create_id,
	.cm_destroy_id = f_cm_destroy_id,
	.cm_bind_addr = f_cm_bind_addr,
	.cm_listen = f_cm_listen,
	.cm_get_src_port = f_cm_get_src_port,
	.cm_resolve_addr = f_cm_resolve_addr,
	.cm_resolve_route = f_cm_resolve_route,
	.cm_set_option = f_cm_set_option,
	.cm_create_qp = f_cm_create_qp,
	.cm_destroy_qp = f_cm_destroy_qp,
	.cm_connect = f_cm_connect,
	.cm_accept = f_cm_accept,
	.cm_reject = f_cm_reject,
	.cm_disconnect = f_cm_disconnect,
	.cm_get_event = f_cm_get_event,
	.cm_ack_event = f_cm_ack_event,
};

/* ---- fk_ops_locked: the same calls, each under one mutex, for tests in
 * which a thread of the transport (the UD handshake's agent) calls the
 * fake while the test's thread does; fk_lock()/fk_unlock() take it around
 * a test's own looks at fk ---- */
static pthread_mutex_t fk_mu = PTHREAD_MUTEX_INITIALIZER;

void fk_lock(void)
{
	pthread_mutex_lock(&fk_mu);
}

void fk_unlock(void)
{
	pthread_mutex_unlock(&fk_mu);
}

#define FK_LOCKED(ret, name, params, args)    \
	static ret l_##name params            \
	{                                     \
		ret r;                        \
		pthread_mutex_lock(&fk_mu);   \
		r = f_##name args;            \
		pthread_mutex_unlock(&fk_mu); \
		return r;                     \
	}
#define FK_LOCKED_VOID(name, params, args)    \
	static void l_##name params           \
	{                                     \
		pthread_mutex_lock(&fk_mu);   \
		f_##name args;                \
		pthread_mutex_unlock(&fk_mu); \
	}

FK_LOCKED(struct ibv_device **, get_device_list, (int *num), (num))
FK_LOCKED_VOID(free_device_list, (struct ibv_device * *list), (list))
FK_LOCKED(const char *, get_device_name, (struct ibv_device * dev), (dev))
FK_LOCKED(struct ibv_context *, open_device, (struct ibv_device * dev), (dev))
FK_LOCKED(int, close_device, (struct ibv_context * ctx), (ctx))
FK_LOCKED(int, query_device,
	  (struct ibv_context * ctx, struct ibv_device_attr *attr), (ctx, attr))
FK_LOCKED(int, query_port,
	  (struct ibv_context * ctx, uint8_t port, struct ibv_port_attr *attr),
	  (ctx, port, attr))
FK_LOCKED(int, query_gid_ex,
	  (struct ibv_context * ctx, uint32_t port, uint32_t index,
	   struct ibv_gid_entry *entry),
	  (ctx, port, index, entry))
FK_LOCKED(ssize_t, query_gid_table,
	  (struct ibv_context * ctx, struct ibv_gid_entry *entries, size_t max),
	  (ctx, entries, max))
FK_LOCKED(int, fork_init, (void), ())
FK_LOCKED(struct ibv_pd *, alloc_pd, (struct ibv_context * ctx), (ctx))
FK_LOCKED(int, dealloc_pd, (struct ibv_pd * pd), (pd))
FK_LOCKED(struct ibv_cq *, create_cq, (struct ibv_context * ctx, int cqe),
	  (ctx, cqe))
FK_LOCKED(int, destroy_cq, (struct ibv_cq * cq), (cq))
FK_LOCKED(struct ibv_srq *, create_srq,
	  (struct ibv_pd * pd, struct ibv_srq_init_attr *attr), (pd, attr))
FK_LOCKED(int, destroy_srq, (struct ibv_srq * srq), (srq))
FK_LOCKED(struct ibv_qp *, create_qp,
	  (struct ibv_pd * pd, struct ibv_qp_init_attr *attr), (pd, attr))
FK_LOCKED(int, modify_qp,
	  (struct ibv_qp * qp, struct ibv_qp_attr *attr, int mask),
	  (qp, attr, mask))
FK_LOCKED(int, destroy_qp, (struct ibv_qp * qp), (qp))
FK_LOCKED(struct ibv_mr *, reg_mr,
	  (struct ibv_pd * pd, void *addr, size_t len, int access),
	  (pd, addr, len, access))
FK_LOCKED(int, dereg_mr, (struct ibv_mr * mr), (mr))
FK_LOCKED(struct ibv_ah *, create_ah,
	  (struct ibv_pd * pd, struct ibv_ah_attr *attr), (pd, attr))
FK_LOCKED(int, destroy_ah, (struct ibv_ah * ah), (ah))
FK_LOCKED(int, post_send,
	  (struct ibv_qp * qp, struct ibv_send_wr *wr,
	   struct ibv_send_wr **bad),
	  (qp, wr, bad))
FK_LOCKED(int, post_srq_recv,
	  (struct ibv_srq * srq, struct ibv_recv_wr *wr,
	   struct ibv_recv_wr **bad),
	  (srq, wr, bad))
FK_LOCKED(int, post_recv,
	  (struct ibv_qp * qp, struct ibv_recv_wr *wr,
	   struct ibv_recv_wr **bad),
	  (qp, wr, bad))
FK_LOCKED(int, poll_cq, (struct ibv_cq * cq, int n, struct ibv_wc *wc),
	  (cq, n, wc))
FK_LOCKED(struct ibv_context **, cm_get_devices, (int *num), (num))
FK_LOCKED_VOID(cm_free_devices, (struct ibv_context * *list), (list))
FK_LOCKED(struct rdma_event_channel *, cm_create_event_channel, (void), ())
FK_LOCKED_VOID(cm_destroy_event_channel, (struct rdma_event_channel * ch), (ch))
FK_LOCKED(int, cm_create_id,
	  (struct rdma_event_channel * ch, struct rdma_cm_id **id,
	   void *context, enum rdma_port_space ps),
	  (ch, id, context, ps))
FK_LOCKED(int, cm_destroy_id, (struct rdma_cm_id * id), (id))
FK_LOCKED(int, cm_bind_addr, (struct rdma_cm_id * id, struct sockaddr *addr),
	  (id, addr))
FK_LOCKED(int, cm_listen, (struct rdma_cm_id * id, int backlog), (id, backlog))
FK_LOCKED(uint16_t, cm_get_src_port, (struct rdma_cm_id * id), (id))
FK_LOCKED(int, cm_resolve_addr,
	  (struct rdma_cm_id * id, struct sockaddr *src, struct sockaddr *dst,
	   int timeout_ms),
	  (id, src, dst, timeout_ms))
FK_LOCKED(int, cm_resolve_route, (struct rdma_cm_id * id, int timeout_ms),
	  (id, timeout_ms))
FK_LOCKED(int, cm_set_option,
	  (struct rdma_cm_id * id, int level, int name, void *val, size_t len),
	  (id, level, name, val, len))
FK_LOCKED(int, cm_create_qp,
	  (struct rdma_cm_id * id, struct ibv_pd *pd,
	   struct ibv_qp_init_attr *attr),
	  (id, pd, attr))
FK_LOCKED_VOID(cm_destroy_qp, (struct rdma_cm_id * id), (id))
FK_LOCKED(int, cm_connect,
	  (struct rdma_cm_id * id, struct rdma_conn_param *param), (id, param))
FK_LOCKED(int, cm_accept,
	  (struct rdma_cm_id * id, struct rdma_conn_param *param), (id, param))
FK_LOCKED(int, cm_reject,
	  (struct rdma_cm_id * id, const void *pdata, uint8_t len),
	  (id, pdata, len))
FK_LOCKED(int, cm_disconnect, (struct rdma_cm_id * id), (id))
FK_LOCKED(int, cm_get_event,
	  (struct rdma_event_channel * ch, struct rdma_cm_event **ev), (ch, ev))
FK_LOCKED(int, cm_ack_event, (struct rdma_cm_event * ev), (ev))

const struct rc_verbs_ops fk_ops_locked = {
	.get_device_list = l_get_device_list,
	.free_device_list = l_free_device_list,
	.get_device_name = l_get_device_name,
	.open_device = l_open_device,
	.close_device = l_close_device,
	.query_device = l_query_device,
	.query_port = l_query_port,
	.query_gid_ex = l_query_gid_ex,
	.query_gid_table = l_query_gid_table,
	.fork_init = l_fork_init,
	.alloc_pd = l_alloc_pd,
	.dealloc_pd = l_dealloc_pd,
	.create_cq = l_create_cq,
	.destroy_cq = l_destroy_cq,
	.create_srq = l_create_srq,
	.destroy_srq = l_destroy_srq,
	.create_qp = l_create_qp,
	.modify_qp = l_modify_qp,
	.destroy_qp = l_destroy_qp,
	.reg_mr = l_reg_mr,
	.dereg_mr = l_dereg_mr,
	.create_ah = l_create_ah,
	.destroy_ah = l_destroy_ah,
	.post_send = l_post_send,
	.post_srq_recv = l_post_srq_recv,
	.post_recv = l_post_recv,
	.poll_cq = l_poll_cq,
	.cm_get_devices = l_cm_get_devices,
	.cm_free_devices = l_cm_free_devices,
	.cm_create_event_channel = l_cm_create_event_channel,
	.cm_destroy_event_channel = l_cm_destroy_event_channel,
	.cm_create_id = l_cm_create_id,
	.cm_destroy_id = l_cm_destroy_id,
	.cm_bind_addr = l_cm_bind_addr,
	.cm_listen = l_cm_listen,
	.cm_get_src_port = l_cm_get_src_port,
	.cm_resolve_addr = l_cm_resolve_addr,
	.cm_resolve_route = l_cm_resolve_route,
	.cm_set_option = l_cm_set_option,
	.cm_create_qp = l_cm_create_qp,
	.cm_destroy_qp = l_cm_destroy_qp,
	.cm_connect = l_cm_connect,
	.cm_accept = l_cm_accept,
	.cm_reject = l_cm_reject,
	.cm_disconnect = l_cm_disconnect,
	.cm_get_event = l_cm_get_event,
	.cm_ack_event = l_cm_ack_event,
};
