/*
 * tp.h - the transport contract.
 *
 * pt2pt protocols run over small transports that offer two things:
 *   - active messages (am_send): a header and a payload delivered, in order
 *     per peer, to the peer's `recv` upcall during its progress;
 *   - one-sided get/put of exposed memory, for rendezvous (optional: without
 *     them the protocol streams fragments through active messages);
 *   - optionally, device atomics (fetch-and-add, compare-and-swap) on an
 *     aligned 8-byte word of exposed memory, for one-sided windows whose
 *     atomic agent is the device (rma/README.md).
 * A transport never blocks and never drops: when it cannot take a message
 * now it returns RC_AGAIN and the caller retries after progress, in order.
 * Transports: self/in-process (tp_loop.c), shared memory (tp_shm.c),
 * verbs RC (tp_verbs.c), TCP sockets (tp_tcp.c, active messages only).
 */
#ifndef RC_TP_H
#define RC_TP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "list.h"

struct rc_inst;
struct rc_tp;

#define RC_TP_KEY_MAX 32	/* bytes of a remote memory key */

#define RC_TP_CAP_GET 0x1u	/* get() reads peer memory */
#define RC_TP_CAP_PUT 0x2u	/* put() writes peer memory */
/* atomic() on peer memory, this process's own included (loopback) */
#define RC_TP_CAP_ATOMIC 0x4u
/* am_send() to different peers may run at once in several threads, and to
 * one peer in one thread at a time (pt2pt holds the peer's send lock)
 * while other threads poll and send to others: the sending side of each
 * peer is the transport's state for that peer alone (shared memory: the
 * producer end of the peer's ring) */
#define RC_TP_CAP_SEND_MT 0x8u

/* Device atomics on one aligned 64-bit word of exposed memory. */
enum rc_tp_atomic {
	RC_TP_FADD = 1, /* *raddr += operand */
	RC_TP_CSWAP,	/* if (*raddr == compare) *raddr = operand */
};

/* One outstanding get or put; the transport calls done() from progress. */
struct rc_tp_rdma {
	void (*done)(struct rc_tp_rdma *op, int status);
	void *arg;
	size_t len;
	struct rc_list link;	/* transport's use while outstanding */
	void *tp_buf;		/* transport's: its own buffer (lh NULL) */
	void *tp_dst;		/* transport's: where tp_buf lands at done */
};

struct rc_tp_ops {
	const char *name;
	/* Create resources and add this process's address to the modex. */
	int (*open)(struct rc_inst *inst, struct rc_tp **tpp);
	/* After the modex exchange: can this transport reach world rank r? */
	bool (*reachable)(struct rc_tp *tp, int wrank);
	/* After the exchange: set up the peers assigned to this transport. */
	int (*connect)(struct rc_tp *tp);
	/* Release everything (after pt2pt has drained). */
	void (*close)(struct rc_tp *tp);
	/* Send hdr then payload as one message. RC_OK: both buffers may be
	 * reused; RC_AGAIN: no room now. hlen + len <= max_am. */
	int (*am_send)(struct rc_tp *tp, int wrank, const void *hdr,
		       size_t hlen, const void *payload, size_t len);
	/* Expose [addr, addr + len) for the peer's get/put and our own local
	 * side of one: fills key (RC_TP_KEY_MAX bytes) and *handle. */
	int (*mem_expose)(struct rc_tp *tp, void *addr, size_t len, void *key,
			  void **handle);
	void (*mem_release)(struct rc_tp *tp, void *handle);
	/* Read len bytes at raddr of the peer into local (exposed, handle
	 * lh; or lh NULL when len <= rdma_small). RC_OK: done now;
	 * RC_INPROGRESS: op->done() later; RC_AGAIN. */
	int (*get)(struct rc_tp *tp, int wrank, void *local, void *lh,
		   size_t len, uint64_t raddr, const void *rkey,
		   struct rc_tp_rdma *op);
	int (*put)(struct rc_tp *tp, int wrank, const void *local, void *lh,
		   size_t len, uint64_t raddr, const void *rkey,
		   struct rc_tp_rdma *op);
	/* RC_TP_CAP_ATOMIC: one atomic on the 8-byte word at raddr (8-byte
	 * aligned) of world rank wrank, this process included; the word's
	 * value before it lands in *result (8 bytes, exposed: handle lh;
	 * or lh NULL when rdma_small >= 8, then any address, and result
	 * NULL when nobody wants the value).
	 * Completes like get. Atomic only against other atomics of the same
	 * device (IBV_ATOMIC_HCA), not against CPU stores. */
	int (*atomic)(struct rc_tp *tp, int wrank, enum rc_tp_atomic kind,
		      uint64_t operand, uint64_t compare, void *result,
		      void *lh, uint64_t raddr, const void *rkey,
		      struct rc_tp_rdma *op);
	/* After connect: does atomic() reach world rank wrank (this process
	 * included)? Possibly a peer another transport carries messages to,
	 * or one connected on first use (atomic() answers RC_AGAIN until
	 * then). */
	bool (*atomic_reach)(struct rc_tp *tp, int wrank);
	/* Poll; returns events handled. */
	unsigned (*progress)(struct rc_tp *tp);
	/* Optional. When a message of up to len bytes (header included)
	 * from world rank wrank lands in memory this process can watch with
	 * no call into a provider or the kernel (verbs: its eager ring into
	 * us), look at all such memory up to looks times, until a look
	 * delivers something: events (0: looks empty looks).
	 * RC_TP_NO_FAST, before any look: such a message does not come that
	 * way now. Cheap enough for a blocking wait to repeat between two
	 * progress calls (rc_progress_spin). */
	unsigned (*poll_fast)(struct rc_tp *tp, int wrank, size_t len,
			      unsigned looks);
};

#define RC_TP_NO_FAST (~0u) /* inst.h's RC_SPIN_NONE */

struct rc_tp {
	const struct rc_tp_ops *ops;
	struct rc_inst *inst;
	const char *name;
	unsigned caps;
	size_t eager_limit;	/* payload bytes sent eagerly */
	size_t max_am;		/* largest hdr + payload of one message */
	size_t rdma_chunk;	/* pipeline chunk for get/put (<= rdma_max) */
	/* the most bytes one get/put may carry (a verbs port's max_msg_sz);
	 * 0: any. Callers split bigger transfers (rma/, pt2pt's chunks). */
	size_t rdma_max;
	unsigned max_rdma;	/* get/put operations kept in flight */
	/* get, put and atomic of at most this many bytes may pass lh NULL:
	 * the local side needs no mem_expose, the transport copies through
	 * registered memory of its own (cheaper than a registration lookup
	 * for small transfers). 0: always expose. */
	size_t rdma_small;
	/* One-sided (rma/): contiguous puts and gets of at least this many
	 * bytes use put()/get() (RCMPI_RMA_DIRECT_MIN=auto) */
	size_t direct_min;
	/* Upcall into pt2pt: a message from world rank src; msg is valid
	 * only during the call. */
	void (*recv)(struct rc_inst *inst, int src, const void *msg,
		     size_t len);
	/* Upcalls into pt2pt for a transport that reads a message's payload
	 * after its header (TCP): where may the plen payload bytes behind the
	 * hlen header bytes hdr from world rank src land directly? NULL: no
	 * such place, deliver the whole message through recv. Else, once
	 * all of them have landed there, placed() stands in for recv. place
	 * has no side effects (it may be asked again for the same message). */
	void *(*place)(struct rc_inst *inst, int src, const void *hdr,
		       size_t hlen, size_t plen);
	void (*placed)(struct rc_inst *inst, int src, const void *hdr,
		       size_t hlen, size_t plen);
	/* Upcall into pt2pt: the peer is unreachable for good (status, e.g.
	 * RC_ERR_PEER). Safe from anywhere: pt2pt only records it and fails
	 * what waits on the peer in its next progress call. */
	void (*failed)(struct rc_inst *inst, int wrank, int status);
};

extern const struct rc_tp_ops rc_tp_loop_ops;
extern const struct rc_tp_ops rc_tp_shm_ops;
extern const struct rc_tp_ops rc_tp_verbs_ops;
extern const struct rc_tp_ops rc_tp_tcp_ops;

#endif
