/*
 * verbs_ops.h - the table through which the verbs transport makes every
 * libibverbs and librdmacm call.
 *
 * In rdma-core 44 ibv_post_send, ibv_poll_cq and ibv_post_srq_recv are
 * static inline and ibv_reg_mr and ibv_query_port are macros, so neither
 * -Wl,--wrap nor symbol interposition can reach them. The transport calls
 * them through rc_verbs_ops instead; rc_verbs_real_ops forwards to the real
 * library and unit tests point rc_verbs_ops at fakes (a fake device, a fake
 * fabric, "fail the Nth call") before opening a transport.
 *
 * Conventions follow the libraries: pointer-returning calls return NULL and
 * set errno; int-returning calls return 0 or an errno value (ibv_*) or -1
 * with errno (rdma_*), exactly like the functions they stand for.
 */
#ifndef RC_VERBS_OPS_H
#define RC_VERBS_OPS_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

struct rc_verbs_ops {
	/* devices */
	struct ibv_device **(*get_device_list)(int *num);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *dev);
	struct ibv_context *(*open_device)(struct ibv_device *dev);
	int (*close_device)(struct ibv_context *ctx);
	int (*query_device)(struct ibv_context *ctx,
			    struct ibv_device_attr *attr);
	int (*query_port)(struct ibv_context *ctx, uint8_t port,
			  struct ibv_port_attr *attr);
	int (*query_gid_ex)(struct ibv_context *ctx, uint32_t port,
			    uint32_t index, struct ibv_gid_entry *entry);
	/* valid entries of every port, or -1 with errno */
	ssize_t (*query_gid_table)(struct ibv_context *ctx,
				   struct ibv_gid_entry *entries, size_t max);
	int (*fork_init)(void);
	/* resources */
	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe);
	int (*destroy_cq)(struct ibv_cq *cq);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	int (*destroy_srq)(struct ibv_srq *srq);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
	int (*destroy_qp)(struct ibv_qp *qp);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t len,
				 int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr);
	int (*destroy_ah)(struct ibv_ah *ah);
	/* data path */
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad); /* the UD QP's own */
	int (*poll_cq)(struct ibv_cq *cq, int n, struct ibv_wc *wc);

	/* librdmacm */
	struct ibv_context **(*cm_get_devices)(int *num);
	void (*cm_free_devices)(struct ibv_context **list);
	struct rdma_event_channel *(*cm_create_event_channel)(void);
	void (*cm_destroy_event_channel)(struct rdma_event_channel *ch);
	int (*cm_create_id)(struct rdma_event_channel *ch,
			    struct rdma_cm_id **id, void *context,
			    enum rdma_port_space ps);
	int (*cm_destroy_id)(struct rdma_cm_id *id);
	int (*cm_bind_addr)(struct rdma_cm_id *id, struct sockaddr *addr);
	int (*cm_listen)(struct rdma_cm_id *id, int backlog);
	uint16_t (*cm_get_src_port)(struct rdma_cm_id *id); /* network order */
	int (*cm_resolve_addr)(struct rdma_cm_id *id, struct sockaddr *src,
			       struct sockaddr *dst, int timeout_ms);
	int (*cm_resolve_route)(struct rdma_cm_id *id, int timeout_ms);
	int (*cm_set_option)(struct rdma_cm_id *id, int level, int name,
			     void *val, size_t len);
	int (*cm_create_qp)(struct rdma_cm_id *id, struct ibv_pd *pd,
			    struct ibv_qp_init_attr *attr);
	void (*cm_destroy_qp)(struct rdma_cm_id *id);
	int (*cm_connect)(struct rdma_cm_id *id, struct rdma_conn_param *param);
	int (*cm_accept)(struct rdma_cm_id *id, struct rdma_conn_param *param);
	int (*cm_reject)(struct rdma_cm_id *id, const void *pdata, uint8_t len);
	int (*cm_disconnect)(struct rdma_cm_id *id);
	int (*cm_get_event)(struct rdma_event_channel *ch,
			    struct rdma_cm_event **ev);
	int (*cm_ack_event)(struct rdma_cm_event *ev);
};

/* Forwards to libibverbs and librdmacm. */
extern const struct rc_verbs_ops rc_verbs_real_ops;
/* What the transport uses: &rc_verbs_real_ops unless a test swapped it
 * (read once, when a transport opens). */
extern const struct rc_verbs_ops *rc_verbs_ops;

/*
 * The data path's three calls (a transport's table as `ops`): with the real
 * table, libibverbs' inline functions straight, so that a post or a poll
 * makes one indirect call (into the provider), not two; with fakes,
 * through the table.
 */
static inline int rc_vops_post_send(const struct rc_verbs_ops *ops,
				    struct ibv_qp *qp, struct ibv_send_wr *wr,
				    struct ibv_send_wr **bad)
{
	if (__builtin_expect(ops == &rc_verbs_real_ops, 1))
		return ibv_post_send(qp, wr, bad);
	return ops->post_send(qp, wr, bad);
}

static inline int rc_vops_poll_cq(const struct rc_verbs_ops *ops,
				  struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	if (__builtin_expect(ops == &rc_verbs_real_ops, 1))
		return ibv_poll_cq(cq, n, wc);
	return ops->poll_cq(cq, n, wc);
}

static inline int rc_vops_post_srq_recv(const struct rc_verbs_ops *ops,
					struct ibv_srq *srq,
					struct ibv_recv_wr *wr,
					struct ibv_recv_wr **bad)
{
	if (__builtin_expect(ops == &rc_verbs_real_ops, 1))
		return ibv_post_srq_recv(srq, wr, bad);
	return ops->post_srq_recv(srq, wr, bad);
}

#endif
