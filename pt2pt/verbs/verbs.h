/*
 * verbs.h - internals of the verbs RC transport, shared by its files:
 *   tp_verbs.c      the transport (tp.h contract), data path, credits
 *   verbs_dev.c     parameters, device / port / GID selection
 *   verbs_qp.c      QP creation and the modex wiring (INIT -> RTR -> RTS)
 *   verbs_cm.c      rdma_cm wiring (RCMPI_VERBS_CM=rdmacm)
 *   verbs_ud.c      the UD handshake wiring (RCMPI_VERBS_CM=ud)
 *   verbs_fp.c      the RDMA-write eager rings (small-message fast path)
 *   verbs_rcache.c  registration cache; verbs_hooks.c its memory hooks
 *   verbs_ops.c     the table of verbs calls (tests swap in fakes)
 * and by the unit tests, which build QP attributes and drive the transport
 * over fake verbs.
 */
#ifndef RC_VERBS_H
#define RC_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#include "compiler.h"
#include "tp.h"
#include "verbs_credit.h"
#include "verbs_ops.h"
#include "verbs_rcache.h"

struct rc_inst;
struct vb_cm;
struct vb_cm_conn;
struct vb_ud;
struct vb_ud_conn;

/* ---- parameters (RCMPI_VERBS_*, README.md) ---- */
struct vb_params {
	const char *device; /* DEVICE=name[:port] */
	const char *netif;  /* RCMPI_NET_IF */
	int gid_index;	    /* GID_INDEX, -1: scan */
	unsigned sl, tc, hop_limit;
	bool cm;	       /* on-demand wiring: rdmacm or ud (else modex) */
	bool ud;	       /* the on-demand connector is the UD handshake */
	bool cm_auto;	       /* CM=auto past CM_AUTO_RANKS: rdmacm on a
				* RoCE port with an IPv4 address, else ud
				* (vb_dev_open decides) */
	size_t eager_limit;    /* EAGER_LIMIT: payload bytes sent eagerly */
	unsigned inline_max;   /* INLINE: asked of the device */
	unsigned rq_size;      /* RQ_SIZE: SRQ buffers */
	unsigned rx_batch;     /* RX_BATCH: receives reposted at once */
	unsigned credits;      /* CREDITS: largest window per peer */
	unsigned credits_min;  /* smallest first window per peer */
	unsigned bounce;       /* BOUNCE: send buffers */
	unsigned sq_size;      /* SQ_SIZE: send WRs per QP */
	unsigned signal_every; /* SIGNAL: a completion every N sends */
	unsigned send_cqe;     /* signaled send WRs outstanding at once */
	size_t rdma_chunk;     /* RDMA_CHUNK */
	unsigned max_rdma;     /* MAX_RDMA: chunks in flight per request */
	unsigned rd_atom;      /* RD_ATOM: RDMA READs in flight per QP */
	int rd_fence;	       /* RD_FENCE: 1, 0, -1: auto (tp_verbs.c) */
	unsigned timeout, retry, rnr_retry;
	bool rcache;
	size_t rcache_entries, rcache_bytes;
	bool mallopt;
	unsigned cm_timeout_ms;
	unsigned ud_timeout_ms; /* UD_TIMEOUT: a handshake's answer */
	bool ud_agent;		/* UD_AGENT: the thread that answers */
	unsigned fp_rings;     /* FP_RINGS: peers given an eager ring */
	unsigned fp_slots;     /* FP_SLOTS: slots per ring */
	unsigned fp_size;      /* FP_SIZE: bytes per slot */
	unsigned fp_threshold; /* FP_THRESHOLD: messages before a ring */
	unsigned idle_ms;      /* IDLE_MS: silent peers give credits back */
};

/* ---- buffers ---- */
struct vb_buf {
	char *data;
	uint32_t lkey;
	struct vb_buf *next;
};

/* A registered slab of equal buffers (receive or bounce). */
struct vb_slab {
	struct vb_slab *next;
	struct ibv_mr *mr;
	void *mem;
	struct vb_buf *bufs;
	unsigned n;
};

/* Every message starts with this, on either path (SRQ or eager ring). */
struct vb_hdr {
	uint32_t credits; /* the sender's rx.limit for the receiver */
	uint16_t seq;	  /* per peer, both paths: delivery order */
	uint8_t type;	  /* VB_MSG_* */
	uint8_t fp_acked; /* low bits of the sender's ring slots consumed */
};

enum {
	VB_MSG_AM = 1,	/* engine message */
	VB_MSG_RING,	/* an eager ring offered (struct vb_fp_offer) */
	VB_MSG_RECLAIM, /* give your unused credits back (uint32_t: unused) */
	VB_MSG_RETURN,	/* k unused credits spent (uint32_t k) */
	VB_MSG_UNRING,	/* stop writing into my eager ring (uint32_t: unused) */
	VB_MSG_UNRING_ACK, /* my ring writes are all before this one */
};

/* ---- send work requests ---- */
enum vb_swr_kind {
	VB_SWR_SEND = 1,    /* inline send: nothing to release */
	VB_SWR_BOUNCE,	    /* send from a bounce buffer (obj) */
	VB_SWR_READ,	    /* get (obj: struct rc_tp_rdma) */
	VB_SWR_WRITE,	    /* put (obj: struct rc_tp_rdma) */
	VB_SWR_CREDIT,	    /* credit update or flush (RDMA WRITE) */
	VB_SWR_ATOMIC,	    /* atomic (obj: struct rc_tp_rdma) */
	VB_SWR_RING,	    /* eager-ring write, inline: nothing to release */
	VB_SWR_RING_BOUNCE, /* eager-ring write from a bounce buffer (obj) */
};

/* One per send-queue slot; wr_id points at it. A receive's wr_id is its
 * struct vb_buf with bit 0 set. */
struct vb_swr {
	struct vb_peer *peer;
	void *obj;
	uint8_t kind;
	uint8_t signaled;
};

#define VB_WRID_RECV 0x1ull

enum vb_peer_state {
	VB_PEER_NONE = 0,   /* not reached through verbs */
	VB_PEER_IDLE,	    /* on demand: not connected yet */
	VB_PEER_CONNECTING, /* on demand: a connection in progress */
	VB_PEER_WAIT,	    /* rdmacm: the peer's connection wins */
	VB_PEER_CONNECTED,
	VB_PEER_FAILED,
};

/* A get, put or atomic the READ and atomic fence holds back (one SGE;
 * tp_verbs.c), posted in order later. */
struct vb_defer {
	struct vb_defer *next;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	uint8_t kind; /* VB_SWR_READ, _WRITE or _ATOMIC */
	struct rc_tp_rdma *op;
};

struct vb_peer {
	struct vb_tp *vt;
	int wrank;
	uint8_t state;
	bool on_dirty;
	bool flushed;
	bool credit_armed; /* credits due: written at the next progress */
	bool atomic_only;  /* a QP for device atomics, no messages */
	struct ibv_qp *qp;
	uint32_t rqpn;	   /* the peer's QP number */
	struct vb_swr *sq; /* sq_size slots */
	uint32_t sq_head;  /* WRs posted */
	uint32_t sq_next;  /* sq_head % sq_size, kept (no division) */
	uint32_t sq_tail;  /* WRs known complete */
	/* the READ and atomic fence (tp_verbs.c, vb_rd_fence_wanted) */
	uint32_t sq_fence; /* sq_size while rd_out or dq_head, else 0:
			    * vb_sq_room counts it */
	bool rd_fence;	   /* this peer's READs and atomics go alone */
	bool rd_out;	   /* one of them is out */
	struct vb_defer *dq_head, *dq_tail; /* get/put/atomic held back */
	uint32_t unsig;	   /* unsignaled WRs since the last signaled */
	uint32_t nrdma;	   /* get/put outstanding */
	struct vb_tx_credit tx;
	struct vb_rx_credit rx;
	uint64_t credit_raddr; /* the peer's slot for us */
	uint32_t credit_rkey;
	struct vb_peer *next_dirty;
	struct vb_cm_conn *conn; /* rdmacm: the live connection */
	unsigned cm_tries;
	struct vb_ud_conn *udc; /* ud: the handshake in progress */
	struct ibv_ah *ud_ah;	/* ud: towards the peer's UD QP */
	/* order and the eager rings (verbs_fp.c) */
	uint16_t tx_seq;       /* next message's seq */
	uint16_t rx_seq;       /* the seq delivered next */
	uint32_t nrecv;	       /* messages received through the SRQ */
	/* credits taken back from a silent peer (verbs_credit.h) */
	uint16_t idle_seq; /* rx_seq at the last look */
	bool reclaim_ask;  /* a VB_MSG_RECLAIM to send */
	bool return_due;   /* the peer asked: a VB_MSG_RETURN to send */
	/* eager rings taken back from a silent peer (verbs_fp.c) */
	bool fp_waiting;       /* busy, but every ring was given */
	bool unring_ack_due;   /* a VB_MSG_UNRING_ACK to send */
	uint32_t fp_base;      /* a new ring's counters start here */
	bool fp_refused;       /* no ring for this peer (registration) */
	struct vb_fp_tx *fptx; /* the peer's ring for us */
	struct vb_fp_rx *fprx; /* our ring for the peer */
};

/* What every rank publishes (RC_MODEX_VERBS), then a QPN per rank. */
#define VB_ADDR_MAGIC 0x76726231u /* "vrb1" */

struct vb_addr {
	uint32_t magic;
	uint8_t cm;	    /* enum vb_addr_wire */
	uint8_t link_layer; /* IBV_LINK_LAYER_* */
	uint8_t port;
	uint8_t mtu; /* enum ibv_mtu */
	uint16_t lid;
	uint8_t rd_atom; /* RDMA READs we answer per QP */
	uint8_t gid_index;
	uint8_t gid[16];
	uint64_t guid;	       /* device node GUID (network order) */
	uint32_t init_credits; /* modex: each peer's first window */
	uint32_t credit_rkey;
	uint64_t credit_addr; /* uint64_t slots[size] */
	uint32_t ipv4;	      /* rdmacm listener (network order) */
	uint16_t cm_port;     /* (network order) */
	uint16_t rsvd;
	uint32_t max_am; /* largest message our receive buffers take */
	uint32_t ud_qpn; /* ud: the handshake's UD QP */
	char dev[16];
	uint32_t nqpn;	/* modex: world size; rdmacm: 0 */
	uint32_t qpn[]; /* modex: my QP towards rank w, 0: none */
};

enum vb_addr_wire { VB_ADDR_MODEX = 0, VB_ADDR_RDMACM, VB_ADDR_UD };

struct vb_qpn_ent {
	uint32_t qpn;
	struct vb_peer *p; /* NULL: empty */
};

struct vb_tp {
	struct rc_tp tp;
	const struct rc_verbs_ops *ops;
	struct rc_inst *inst;
	struct vb_params prm;

	/* device */
	struct ibv_context *ctx;
	bool ctx_owned; /* opened by us (not librdmacm's) */
	struct ibv_context **cm_devs;
	char dev_name[64];
	uint8_t port;
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	int gid_index;
	union ibv_gid gid;
	uint32_t ipv4; /* address of the port, network order (0: none) */

	/* resources */
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int cq_size;
	struct ibv_srq *srq;
	struct vb_slab *rx_slabs;
	struct vb_slab *tx_slabs;
	size_t buf_size;
	struct vb_buf *repost; /* received, to post again */
	unsigned nrepost;
	struct vb_pool pool;
	struct vb_buf *bounce; /* free bounce buffers */
	unsigned nbounce;
	uint64_t *slots; /* credit slots, by world rank */
	struct ibv_mr *slots_mr;
	uint32_t scq_avail;  /* signaled send WRs the CQ can still take */
	unsigned inline_max; /* what the QPs really support */
	bool rd_fence;	     /* fence READs and atomics (tp_verbs.c) */
	bool dq_failed;	     /* a failed peer has held-back operations */

	/* peers */
	struct vb_peer *peers; /* by world rank */
	int nverbs;	       /* peers reached through verbs */
	bool atomic_local;     /* QPs to shm peers too, for device atomics */
	int natomic;	       /* such QPs connected */
	bool modex_qps;	       /* QPs created at open (modex wiring) */
	struct vb_qpn_ent *qpn_tab; /* QP number -> peer (open addressing) */
	uint32_t qpn_mask;
	struct vb_peer *dirty; /* credit updates to send */
	unsigned nconnecting;
	bool closing;
	bool refill_now; /* repost and return credits at once */
	bool short_windows; /* a peer's window below credits_min */

	struct vb_peer **fp_rx; /* peers with our eager ring (fp_rings) */
	unsigned fp_nrx;
	unsigned fp_offers; /* rings not yet offered (no credit then) */
	unsigned fp_waiting;	/* peers waiting for a ring */
	unsigned fp_acks_due;	/* VB_MSG_UNRING_ACKs not sent yet */
	unsigned long n_unring; /* rings taken back */
	bool cq_later; /* the last progress call delivered from a ring and
			* left the CQ for this one */

	struct rc_rcache *rcache;
	struct vb_cm *cm;
	struct vb_ud *ud;
	unsigned long tick;
	double idle_next; /* the next look for silent peers (s) */
	bool resources; /* PD, CQ, SRQ, buffers exist */

	/* counters (RCMPI_VERBOSE summary at close) */
	unsigned long n_inline, n_bounce, n_rdma, n_credit_writes, n_again;
	unsigned long n_atomic, n_ring, n_ring_rx;
	unsigned long n_reclaim, n_returned; /* asked back; given back */
	unsigned n_fenced; /* peers whose READs and atomics are fenced */
};

/* What this process holds for verbs, against the peers it talks to
 * (vb_mem_get; the RCMPI_VERBOSE summary at close, tests). The part
 * that follows the peers that talk and the part sized by the job. */
struct vb_mem {
	unsigned connected; /* peers with a live RC QP (not ourselves) */
	unsigned qps;	    /* RC QPs, the loopback one included */
	unsigned rx_bufs, tx_bufs;
	size_t rx_bytes;   /* receive buffers (registered, in the SRQ) */
	size_t tx_bytes;   /* bounce buffers (registered) */
	size_t ring_bytes; /* eager rings we gave peers (registered) */
	size_t sq_bytes;   /* send-queue bookkeeping, sq_size slots a QP */
	size_t job_bytes;  /* sized by the job: peer table, credit slots,
			    * QP-number table */
};

void vb_mem_get(const struct vb_tp *vt, struct vb_mem *m);

/* ---- send queue (tp_verbs.c and verbs_fp.c) ---- */
#define VB_SQ_RESERVE 2 /* send slots kept for credit writes */

/* Room for a WR beside `reserve` others, whatever the READ and atomic
 * fence holds (its own posts, and a flush it asks for) */
static inline bool vb_sq_room_unfenced(const struct vb_tp *vt,
				       const struct vb_peer *p,
				       unsigned reserve)
{
	return p->sq_head - p->sq_tail + reserve < vt->prm.sq_size;
}

static inline bool vb_sq_room(const struct vb_tp *vt, const struct vb_peer *p,
			      unsigned reserve)
{
	return vb_sq_room_unfenced(vt, p, reserve + p->sq_fence);
}

/* vb_sq_post and vb_sq_signal: at the end (inline, as vb_hdr_fill: the
 * eager ring's send makes them in its own frame). */

/* verbs_dev.c */
/* The wiring RCMPI_VERBS_CM asks for in a job of nranks: the same answer
 * on every rank, with or without a device (fences depend on it). */
enum vb_wiring {
	VB_WIRE_MODEX,
	VB_WIRE_RDMACM,
	VB_WIRE_UD,
	VB_WIRE_AUTO_CM, /* auto past CM_AUTO_RANKS: rdmacm where it can,
			  * else ud */
	VB_WIRE_BAD,
};
enum vb_wiring vb_wiring_asked(int nranks);
int vb_params_read(struct vb_params *prm, int nranks);
int vb_dev_open(struct vb_tp *vt);
void vb_dev_close(struct vb_tp *vt);
/* " (locked-memory limit ...)" hint for an allocation that failed with
 * err, or "" */
const char *vb_memlock_hint(int err);
/* A readable GID (IPv4-mapped as a.b.c.d) */
void vb_gid_str(const uint8_t *gid, char *out, size_t len);
bool vb_gid_is_v4mapped(const uint8_t *gid);
/* "ACTIVE", "DOWN"...; "RoCE v2", "RoCE v1", "IB" */
const char *vb_port_state_str(enum ibv_port_state s);
const char *vb_gid_type_str(uint32_t type);
/* The GID entries of one port (ibv_query_gid_table, else ibv_query_gid_ex
 * index by index), malloc'd */
int vb_gid_entries(const struct rc_verbs_ops *ops, struct ibv_context *ctx,
		   const struct ibv_device_attr *dattr, uint8_t port,
		   const struct ibv_port_attr *pattr,
		   struct ibv_gid_entry **out, int *n);
/* The GID the transport uses on an Ethernet port: index `forced` when >= 0
 * (RCMPI_VERBS_GID_INDEX), else the best RoCE v2 one, IPv4-mapped first
 * and ipv4's (network order, 0: any) before the others; NULL: none. */
const struct ibv_gid_entry *vb_gid_pick(const struct ibv_gid_entry *g, int n,
					int forced, uint32_t ipv4);
/* Last reason verbs could not open (for the engine's messages). */
void vb_set_open_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Access flags of our QPs and registrations: remote atomics too when the
 * device has them. */
static inline int vb_access(const struct vb_tp *vt)
{
	return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
	       IBV_ACCESS_REMOTE_WRITE |
	       (vt->dattr.atomic_cap != IBV_ATOMIC_NONE
			? IBV_ACCESS_REMOTE_ATOMIC
			: 0);
}

/* verbs_qp.c */
uint32_t vb_psn(uint32_t qpn);
int vb_qp_create(struct vb_tp *vt, struct vb_peer *p);
/* vb_qp_create, then p's send queue and QP-number entry (on-demand
 * wirings, modex); on failure nothing is left */
int vb_qp_new(struct vb_tp *vt, struct vb_peer *p);
/* ibv_create_qp with ia's attributes, halving the inline data asked until
 * the device accepts (ia then holds what it granted); NULL + errno */
struct ibv_qp *vb_qp_create_fit(const struct rc_verbs_ops *ops,
				struct ibv_pd *pd, struct ibv_qp_init_attr *ia);
void vb_qp_destroy(struct vb_tp *vt, struct vb_peer *p);
/* The address towards pa's port (InfiniBand: its LID, no GRH; RoCE: a
 * GRH with its GID): RC QPs' RTR and the UD handshake's address handles */
void vb_ah_attr(const struct vb_tp *vt, const struct vb_addr *pa,
		struct ibv_ah_attr *ah);
/* Attributes for INIT, RTR (towards the peer described by pa) and RTS */
void vb_qp_init_attr(const struct vb_tp *vt, struct ibv_qp_attr *a, int *mask);
void vb_qp_rtr_attr(const struct vb_tp *vt, const struct vb_addr *pa,
		    uint32_t rqpn, struct ibv_qp_attr *a, int *mask);
void vb_qp_rts_attr(const struct vb_tp *vt, const struct vb_addr *pa,
		    uint32_t my_qpn, struct ibv_qp_attr *a, int *mask);
int vb_qp_connect(struct vb_tp *vt, struct vb_peer *p,
		  const struct vb_addr *pa);
/* INIT -> RTR (towards pa's port, QP rqpn) -> RTS */
int vb_qp_connect_qpn(struct vb_tp *vt, struct vb_peer *p,
		      const struct vb_addr *pa, uint32_t rqpn);
/* Our own peer slot p as a QP connected to itself (device atomics on our
 * own memory); on failure nothing is left. */
int vb_qp_loopback(struct vb_tp *vt, struct vb_peer *p);
int vb_qpn_add(struct vb_tp *vt, uint32_t qpn, struct vb_peer *p);
void vb_qpn_del(struct vb_tp *vt, uint32_t qpn);
struct vb_peer *vb_qpn_find(struct vb_tp *vt, uint32_t qpn);

/* verbs_cm.c */
int vb_cm_open(struct vb_tp *vt);
void vb_cm_close(struct vb_tp *vt);
int vb_cm_start(struct vb_tp *vt, struct vb_peer *p);
unsigned vb_cm_progress(struct vb_tp *vt);
uint16_t vb_cm_port(struct vb_tp *vt); /* network order */

/* verbs_ud.c */
int vb_ud_open(struct vb_tp *vt);
void vb_ud_close(struct vb_tp *vt);
int vb_ud_start(struct vb_tp *vt, struct vb_peer *p);
unsigned vb_ud_progress(struct vb_tp *vt);
uint32_t vb_ud_qpn(const struct vb_tp *vt);
int vb_ud_agent_step(struct vb_tp *vt);

/* tp_verbs.c */
/* The peer's verbs address (modex), checked against ours; NULL (with an
 * error unless quiet) when missing or when wiring or fabric differ. */
const struct vb_addr *vb_peer_addr(struct vb_tp *vt, int w, bool quiet);
/* CLOCK_MONOTONIC in seconds */
double vb_now(void);
void vb_peer_connected(struct vb_tp *vt, struct vb_peer *p, uint32_t tx_credits,
		       uint64_t slot_addr, uint32_t slot_rkey);
void vb_peer_fail(struct vb_tp *vt, struct vb_peer *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *vb_peer_host(const struct vb_tp *vt, int wrank);
/* Credits for a new on-demand connection (grows the SRQ if needed). */
uint32_t vb_rx_grant(struct vb_tp *vt, struct vb_peer *p);
void vb_rx_ungrant(struct vb_tp *vt, struct vb_peer *p);
int vb_peer_sq_alloc(struct vb_tp *vt, struct vb_peer *p);
struct ibv_qp_init_attr vb_qp_caps(const struct vb_tp *vt);
/* A message of p's in its order (SRQ or ring): credits, then the
 * engine's upcall or a control message. */
void vb_deliver(struct vb_tp *vt, struct vb_peer *p, const struct vb_hdr *vh,
		size_t len);
/* p has credits for us to return (the SRQ's or a ring's): on the dirty
 * list, written at the next progress call unless a message carries them. */
void vb_credit_due(struct vb_tp *vt, struct vb_peer *p);
/* vb_hdr_fill (the header of our next message to p): at the end. */
/* Post a message of type with seq on the SRQ path (RC_AGAIN: no credit
 * or room). */
int vb_post_msg(struct vb_tp *vt, struct vb_peer *p, uint8_t type,
		const void *hdr, size_t hlen, const void *payload, size_t len);

/* verbs_fp.c: the RDMA-write eager rings */
/* Sender side: the peer's ring for our messages. */
struct vb_fp_tx {
	uint64_t raddr;
	uint32_t rkey;
	uint32_t nslots, slot_size;
	uint32_t written; /* slots written so far */
	uint32_t acked;	  /* slots the peer consumed */
	uint32_t next;	  /* written % nslots, kept (no division) */
};

/* Receiver side: our ring for the peer's messages. */
struct vb_fp_rx {
	char *mem;
	struct ibv_mr *mr;
	uint32_t nslots, slot_size;
	uint32_t consumed;   /* slots delivered so far */
	uint32_t advertised; /* consumed as last told to the peer */
	uint32_t next;	     /* consumed % nslots, kept (no division) */
	bool offered;
	bool revoking; /* VB_MSG_UNRING sent: freed at the peer's ack */
};

/* Receiver: p has sent FP_THRESHOLD messages through the SRQ: register
 * a ring for it and offer it (unless refused; at the cap it waits). */
void vb_fp_busy(struct vb_tp *vt, struct vb_peer *p);
/* Receiver: p is silent and others wait for a ring: ask for ours back. */
void vb_fp_revoke(struct vb_tp *vt, struct vb_peer *p);
/* Sender: p takes its ring back (VB_MSG_UNRING). */
void vb_fp_unring(struct vb_tp *vt, struct vb_peer *p);
/* Sender: post the VB_MSG_UNRING_ACKs still due. */
void vb_fp_acks(struct vb_tp *vt);
/* Receiver: p's ring writes are all delivered (VB_MSG_UNRING_ACK): free
 * the ring, give one to a waiting peer. */
void vb_fp_unringed(struct vb_tp *vt, struct vb_peer *p);
/* Sender: send through p's ring. RC_AGAIN: it does not fit or the ring
 * is full: use the SRQ; RC_ERR_PEER: the peer failed. */
int vb_fp_send(struct vb_tp *vt, struct vb_peer *p, const void *hdr,
	       size_t hlen, const void *payload, size_t len);
/* The low bits of our ring messages p has consumed (vb_hdr.fp_acked;
 * inline, every delivery reads them). */
static inline void vb_fp_acked(struct vb_peer *p, uint8_t acked)
{
	struct vb_fp_tx *f = p->fptx;
	uint32_t d = (uint8_t)(acked - (uint8_t)f->acked);

	if (d <= f->written - f->acked) /* else stale */
		f->acked += d;
}
/* Our ring's consumed count for p, counted as told: its low 8 bits go
 * in vb_hdr.fp_acked, all of it in a credit write. */
uint32_t vb_fp_advertise(struct vb_peer *p);
/* Sender: p offered us a ring (payload of VB_MSG_RING). */
void vb_fp_offered(struct vb_tp *vt, struct vb_peer *p, const void *msg,
		   size_t len);
/* Deliver p's ring messages until rx_seq reaches seq; false: one is
 * missing (protocol error). */
bool vb_fp_drain(struct vb_tp *vt, struct vb_peer *p, uint16_t seq);
/* Poll every ring (and offer rings not offered yet). */
unsigned vb_fp_progress(struct vb_tp *vt);
/* Does p write into a ring of ours whose slots hold a message of len
 * bytes (the engine's header included)? */
bool vb_fp_rx_fits(const struct vb_peer *p, size_t len);
/* Consumed slots not told to p reach half its ring. */
bool vb_fp_update_due(const struct vb_peer *p);
/* The ring-credit word the peer wrote into our slot. */
void vb_fp_slot(struct vb_peer *p, uint64_t v);
void vb_fp_release(struct vb_tp *vt, struct vb_peer *p);

/* ---- the send path's steps, inline (tp_verbs.c and verbs_fp.c) ---- */

/* Post wr on p's QP as one send-queue slot of the given kind (obj: what
 * its completion releases); RC_ERR_PEER after failing the peer. */
static inline int vb_sq_post(struct vb_tp *vt, struct vb_peer *p,
			     struct ibv_send_wr *wr, uint8_t kind, void *obj,
			     bool signal)
{
	struct vb_swr *s = &p->sq[p->sq_next];
	struct ibv_send_wr *bad;
	int err;

	s->peer = p;
	s->obj = obj;
	s->kind = kind;
	s->signaled = signal;
	wr->wr_id = (uintptr_t)s;
	wr->next = NULL;
	if (signal)
		wr->send_flags |= IBV_SEND_SIGNALED;
	err = rc_vops_post_send(vt->ops, p->qp, wr, &bad);
	if (RC_UNLIKELY(err)) {
		vb_peer_fail(vt, p, "ibv_post_send: %s", strerror(err));
		return RC_ERR_PEER;
	}
	p->sq_head++;
	if (++p->sq_next == vt->prm.sq_size)
		p->sq_next = 0;
	if (signal) {
		vt->scq_avail--;
		p->unsig = 0;
	} else {
		p->unsig++;
	}
	return RC_OK;
}

/* An inline send should be signaled now (false + *again: no room for a
 * completion; retry later). */
static inline bool vb_sq_signal(struct vb_tp *vt, struct vb_peer *p,
				bool *again)
{
	bool signal = p->unsig + 1 >= vt->prm.signal_every;

	*again = false;
	if (RC_UNLIKELY(signal && !vt->scq_avail)) {
		/* no room for a completion: leave this one unsignaled unless
		 * too many already are */
		*again = p->unsig + 1 >= vt->prm.sq_size / 2;
		signal = false;
	}
	return signal;
}

/* The header of our next message to p: credits and ring credits
 * returned, the next sequence number. */
static inline void vb_hdr_fill(struct vb_peer *p, struct vb_hdr *vh,
			       uint8_t type)
{
	vh->credits = vb_rx_advertise(&p->rx);
	vh->seq = p->tx_seq;
	vh->type = type;
	vh->fp_acked =
		RC_UNLIKELY(p->fprx != NULL) ? (uint8_t)vb_fp_advertise(p) : 0;
}

#endif
