/*
 * verbs_ops.c - rc_verbs_real_ops: the table of verbs and rdma_cm calls
 * that the transport uses, forwarding to libibverbs and librdmacm (see
 * verbs_ops.h for why the table exists). Each wrapper is one call; the
 * static inline functions and macros of rdma-core are expanded here.
 */
#include <errno.h>
#include "verbs_ops.h"

static struct ibv_device **real_get_device_list(int *num)
{
	return ibv_get_device_list(num);
}

static void real_free_device_list(struct ibv_device **list)
{
	ibv_free_device_list(list);
}

static const char *real_get_device_name(struct ibv_device *dev)
{
	return ibv_get_device_name(dev);
}

static struct ibv_context *real_open_device(struct ibv_device *dev)
{
	return ibv_open_device(dev);
}

static int real_close_device(struct ibv_context *ctx)
{
	return ibv_close_device(ctx);
}

static int real_query_device(struct ibv_context *ctx,
			     struct ibv_device_attr *attr)
{
	return ibv_query_device(ctx, attr);
}

static int real_query_port(struct ibv_context *ctx, uint8_t port,
			   struct ibv_port_attr *attr)
{
	return ibv_query_port(ctx, port, attr);
}

static int real_query_gid_ex(struct ibv_context *ctx, uint32_t port,
			     uint32_t index, struct ibv_gid_entry *entry)
{
	return ibv_query_gid_ex(ctx, port, index, entry, 0);
}

static ssize_t real_query_gid_table(struct ibv_context *ctx,
				    struct ibv_gid_entry *entries, size_t max)
{
	ssize_t n = ibv_query_gid_table(ctx, entries, max, 0);

	if (n < 0) {
		errno = (int)-n;
		return -1;
	}
	return n;
}

static int real_fork_init(void)
{
	return ibv_fork_init();
}

static struct ibv_pd *real_alloc_pd(struct ibv_context *ctx)
{
	return ibv_alloc_pd(ctx);
}

static int real_dealloc_pd(struct ibv_pd *pd)
{
	return ibv_dealloc_pd(pd);
}

static struct ibv_cq *real_create_cq(struct ibv_context *ctx, int cqe)
{
	return ibv_create_cq(ctx, cqe, NULL, NULL, 0);
}

static int real_destroy_cq(struct ibv_cq *cq)
{
	return ibv_destroy_cq(cq);
}

static struct ibv_srq *real_create_srq(struct ibv_pd *pd,
				       struct ibv_srq_init_attr *attr)
{
	return ibv_create_srq(pd, attr);
}

static int real_destroy_srq(struct ibv_srq *srq)
{
	return ibv_destroy_srq(srq);
}

static struct ibv_qp *real_create_qp(struct ibv_pd *pd,
				     struct ibv_qp_init_attr *attr)
{
	return ibv_create_qp(pd, attr);
}

static int real_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	return ibv_modify_qp(qp, attr, mask);
}

static int real_destroy_qp(struct ibv_qp *qp)
{
	return ibv_destroy_qp(qp);
}

static struct ibv_mr *real_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
				  int access)
{
	return ibv_reg_mr(pd, addr, len, access);
}

static int real_dereg_mr(struct ibv_mr *mr)
{
	return ibv_dereg_mr(mr);
}

static int real_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}

static int real_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad)
{
	return ibv_post_srq_recv(srq, wr, bad);
}

static int real_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	return ibv_post_recv(qp, wr, bad);
}

static struct ibv_ah *real_create_ah(struct ibv_pd *pd,
				     struct ibv_ah_attr *attr)
{
	return ibv_create_ah(pd, attr);
}

static int real_destroy_ah(struct ibv_ah *ah)
{
	return ibv_destroy_ah(ah);
}

static int real_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	return ibv_poll_cq(cq, n, wc);
}

static struct ibv_context **real_cm_get_devices(int *num)
{
	return rdma_get_devices(num);
}

static void real_cm_free_devices(struct ibv_context **list)
{
	rdma_free_devices(list);
}

static struct rdma_event_channel *real_cm_create_event_channel(void)
{
	return rdma_create_event_channel();
}

static void real_cm_destroy_event_channel(struct rdma_event_channel *ch)
{
	rdma_destroy_event_channel(ch);
}

static int real_cm_create_id(struct rdma_event_channel *ch,
			     struct rdma_cm_id **id, void *context,
			     enum rdma_port_space ps)
{
	return rdma_create_id(ch, id, context, ps);
}

static int real_cm_destroy_id(struct rdma_cm_id *id)
{
	return rdma_destroy_id(id);
}

static int real_cm_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return rdma_bind_addr(id, addr);
}

static int real_cm_listen(struct rdma_cm_id *id, int backlog)
{
	return rdma_listen(id, backlog);
}

static uint16_t real_cm_get_src_port(struct rdma_cm_id *id)
{
	return rdma_get_src_port(id);
}

static int real_cm_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src,
				struct sockaddr *dst, int timeout_ms)
{
	return rdma_resolve_addr(id, src, dst, timeout_ms);
}

static int real_cm_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	return rdma_resolve_route(id, timeout_ms);
}

static int real_cm_set_option(struct rdma_cm_id *id, int level, int name,
			      void *val, size_t len)
{
	return rdma_set_option(id, level, name, val, len);
}

static int real_cm_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
			     struct ibv_qp_init_attr *attr)
{
	return rdma_create_qp(id, pd, attr);
}

static void real_cm_destroy_qp(struct rdma_cm_id *id)
{
	rdma_destroy_qp(id);
}

static int real_cm_connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	return rdma_connect(id, param);
}

static int real_cm_accept(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	return rdma_accept(id, param);
}

static int real_cm_reject(struct rdma_cm_id *id, const void *pdata, uint8_t len)
{
	return rdma_reject(id, pdata, len);
}

static int real_cm_disconnect(struct rdma_cm_id *id)
{
	return rdma_disconnect(id);
}

static int real_cm_get_event(struct rdma_event_channel *ch,
			     struct rdma_cm_event **ev)
{
	return rdma_get_cm_event(ch, ev);
}

static int real_cm_ack_event(struct rdma_cm_event *ev)
{
	return rdma_ack_cm_event(ev);
}

const struct rc_verbs_ops rc_verbs_real_ops = {
	.get_device_list = real_get_device_list,
	.free_device_list = real_free_device_list,
	.get_device_name = real_get_device_name,
	.open_device = real_open_device,
	.close_device = real_close_device,
	.query_device = real_query_device,
	.query_port = real_query_port,
	.query_gid_ex = real_query_gid_ex,
	.query_gid_table = real_query_gid_table,
	.fork_init = real_fork_init,
	.alloc_pd = real_alloc_pd,
	.dealloc_pd = real_dealloc_pd,
	.create_cq = real_create_cq,
	.destroy_cq = real_destroy_cq,
	.create_srq = real_create_srq,
	.destroy_srq = real_destroy_srq,
	.create_qp = real_create_qp,
	.modify_qp = real_modify_qp,
	.destroy_qp = real_destroy_qp,
	.reg_mr = real_reg_mr,
	.dereg_mr = real_dereg_mr,
	.post_send = real_post_send,
	.post_srq_recv = real_post_srq_recv,
	.poll_cq = real_poll_cq,
	.post_recv = real_post_recv,
	.create_ah = real_create_ah,
	.destroy_ah = real_destroy_ah,
	.cm_get_devices = real_cm_get_devices,
	.cm_free_devices = real_cm_free_devices,
	.cm_create_event_channel = real_cm_create_event_channel,
	.cm_destroy_event_channel = real_cm_destroy_event_channel,
	.cm_create_id = real_cm_create_id,
	.cm_destroy_id = real_cm_destroy_id,
	.cm_bind_addr = real_cm_bind_addr,
	.cm_listen = real_cm_listen,
	.cm_get_src_port = real_cm_get_src_port,
	.cm_resolve_addr = real_cm_resolve_addr,
	.cm_resolve_route = real_cm_resolve_route,
	.cm_set_option = real_cm_set_option,
	.cm_create_qp = real_cm_create_qp,
	.cm_destroy_qp = real_cm_destroy_qp,
	.cm_connect = real_cm_connect,
	.cm_accept = real_cm_accept,
	.cm_reject = real_cm_reject,
	.cm_disconnect = real_cm_disconnect,
	.cm_get_event = real_cm_get_event,
	.cm_ack_event = real_cm_ack_event,
};

const struct rc_verbs_ops *rc_verbs_ops = &rc_verbs_real_ops;
