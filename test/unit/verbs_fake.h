/*
 * verbs_fake.h - a fake libibverbs + librdmacm behind struct rc_verbs_ops,
 * for unit tests of the verbs transport without hardware.
 *
 * The fake is a tiny fabric inside the test process: every context opened
 * is one "port" (its own LID, GIDs and IPv4 address), QPs that reach RTR
 * are joined by QP number, a SEND takes a buffer from the peer's SRQ (none
 * posted: an RNR, counted, and the QP fails as with rnr_retry 0), RDMA
 * READ/WRITE copy memory after checking keys and bounds against the
 * registered MRs, atomics (fetch-and-add, compare-and-swap) apply to an
 * aligned word of an MR with remote-atomic access, and completions wait in the
 * CQs until polled. rdma_cm events travel between channels the same way
 * (resolve, connect, accept, reject, disconnect). UD QPs exchange datagrams
 * (placed after a 40-byte GRH) when the address handle names the
 * destination's port (InfiniBand: its LID without a GRH; RoCE: its GID);
 * tests may lose some or all of them (fk.ud_drop, fk.ud_drop_all).
 *
 * Tests set fk (port type, limits, failure injection), point
 * rc_verbs_ops at &fk_ops, and check fk.live[] (objects created and not
 * destroyed) at the end.
 */
#ifndef RC_VERBS_FAKE_H
#define RC_VERBS_FAKE_H

#include <stdbool.h>
#include "verbs_ops.h"

enum fk_obj {
	FK_DEVLIST,
	FK_CTX,
	FK_PD,
	FK_CQ,
	FK_SRQ,
	FK_QP,
	FK_MR,
	FK_CHAN,
	FK_ID,
	FK_EVENT,
	FK_AH,
	FK_NOBJ
};

struct fk_state {
	/* configuration (fk_reset sets the defaults) */
	int link_layer; /* IBV_LINK_LAYER_ETHERNET or _INFINIBAND */
	int dev_link_layer[2]; /* per device ("fake0", "fake1"); 0: the above */
	enum ibv_atomic_cap atomic_cap; /* what ibv_query_device reports */
	int ndevices;	/* 0: ibv_get_device_list finds nothing */
	enum ibv_port_state port_state;
	enum ibv_mtu mtu[8]; /* active MTU of the k-th context opened */
	int max_inline;	     /* larger requests fail with EINVAL */
	uint32_t max_msg_sz; /* the port's; a longer WR fails to post */
	int max_cqe, max_srq_wr;
	bool gid_table_fails; /* query_gid_table unsupported */
	uint32_t vendor_id;   /* ibv_query_device's (0xffffff: as rxe) */
	bool one_guid;	      /* every context one node GUID (one device) */
	/* failure injection */
	unsigned long fail_at;	  /* the fail_at-th call fails (0: never) */
	unsigned long fail_wr_at; /* the n-th send WR completes in error */
	enum ibv_wc_status fail_wr_status;
	size_t fail_reg_len; /* ibv_reg_mr of exactly this length fails */
	unsigned long ud_drop; /* the next ud_drop datagrams are lost */
	bool ud_drop_all;      /* every datagram is lost */
	/* observations */
	unsigned long calls;
	unsigned long wrs;
	int live[FK_NOBJ];
	unsigned long rnr; /* SENDs that found no receive posted */
	unsigned long cq_overflow;
	unsigned long bad_key; /* RDMA or local access outside an MR */
	unsigned long sends, writes, reads, inline_sends, inline_writes;
	unsigned long atomics;
	struct ibv_send_wr last_atomic; /* the last atomic WR posted */
	struct ibv_sge last_atomic_sge;
	unsigned long cm_rejects, cm_connects;
	unsigned long ud_sends;	       /* datagrams posted */
	unsigned long ud_misaddressed; /* wrong QPN, address or QKey */
	unsigned long ud_no_recv;      /* lost: no receive posted */
	int nctx; /* contexts opened so far */
};

extern struct fk_state fk;
/* fk_ops, each call under one mutex (fk_lock/fk_unlock take it) */
extern const struct rc_verbs_ops fk_ops_locked;
void fk_lock(void);
void fk_unlock(void);
extern const struct rc_verbs_ops fk_ops;

/* Defaults: one RoCE device "fake0", ACTIVE, MTU 1024, inline 512. */
void fk_reset(void);
/* Sum of fk.live[]. */
int fk_live_total(void);
/* The attributes a QP was last moved to RTR / RTS with (by QP number). */
bool fk_qp_attrs(uint32_t qpn, struct ibv_qp_attr *rtr, int *rtr_mask,
		 struct ibv_qp_attr *rts, int *rts_mask);
/* QP numbers of live RC QPs (up to max), returns how many. */
int fk_qp_list(uint32_t *qpn, int max);
/* The GID of the k-th context opened (what its rank publishes). */
void fk_ctx_gid(int k, uint8_t gid[16]);
uint16_t fk_ctx_lid(int k);

#endif
