/*
 * proto.h - the wire format of the point-to-point protocols.
 *
 * Every message starts with a one-byte type. Matchable messages (EAGER,
 * EAGER_SYNC, RTS) carry the 16-byte match header (context, source rank in
 * the communicator, tag); the rest name a request by its id (the request's
 * address in the process that owns it).
 *
 *   eager          S --EAGER(hdr, data)--> R
 *   synchronous    S --EAGER_SYNC(hdr, sreq, data)--> R; on match R --ACK--> S
 *   rendezvous     S --RTS(hdr, sreq, len, addr, key)--> R; on match R picks:
 *     RGET         R reads [addr, addr + len) with get(); R --FIN(sreq)--> S
 *     RPUT         R --CTS(sreq, rreq, want, addr, key)--> S; S writes with
 *                  put(); S --FIN(rreq)--> R
 *     FRAG         R --CTS(sreq, rreq, want)--> S; S --DATA(rreq, off)...--> R
 *                  (transports without get/put, and the shared-memory
 *                  two-copy fallback)
 * A receive buffer smaller than the message (truncation) asks for `want`
 * bytes only; the sender still completes normally.
 *
 *   cancel         S --CANCEL(sreq, ctx)--> R, for a send whose RTS or
 *                  EAGER_SYNC is out: R removes the message from its
 *                  unexpected queue if it is still there (not matched yet),
 *                  and R --CANCEL_ACK(sreq, flags: CANCELLED or 0)--> S. S's
 *                  request completes only once the answer is in: cancelled,
 *                  or after the transfer that the match started (the two
 *                  may arrive in either order under RGET)
 *   active message S --AM(id, upper layer's bytes)--> R: R's engine calls
 *                  the handler registered under id (pt2pt.h, rc_am_*); no
 *                  matching, in order with everything else S sends to R
 */
#ifndef RC_PROTO_H
#define RC_PROTO_H

#include <stdint.h>

enum rc_p2p_msg {
	RC_P2P_EAGER = 1,
	RC_P2P_EAGER_SYNC,
	RC_P2P_RTS,
	RC_P2P_CTS,
	RC_P2P_DATA,
	RC_P2P_FIN,
	RC_P2P_ACK,
	RC_P2P_AM,
	RC_P2P_CANCEL,
	RC_P2P_CANCEL_ACK,
};

/* Match header: 16 bytes, so that the smallest messages fit in one cache
 * line of a shared-memory ring together with the ring's record header. */
struct rc_p2p_hdr {
	uint8_t type;
	uint8_t flags;
	uint16_t rsvd;
	uint32_t ctx;
	int32_t src;
	int32_t tag;
};

struct rc_p2p_sync {
	struct rc_p2p_hdr h;
	uint64_t sreq;
};

#define RC_RTS_ADDR 0x1u	/* addr/key expose the sender's data */

struct rc_p2p_rts {
	struct rc_p2p_hdr h;
	uint64_t sreq;
	uint64_t len;
	uint64_t addr;
	uint8_t key[32];
};

/* Control messages: not matched. */
struct rc_p2p_ctl {
	uint8_t type;
	uint8_t flags;
	uint16_t rsvd;
	uint32_t rsvd2;
	uint64_t id;		/* the request this message is for */
};

#define RC_CTS_ADDR 0x1u	/* RPUT: write into addr/key */

struct rc_p2p_cts {
	struct rc_p2p_ctl c;	/* id: sender's request */
	uint64_t rreq;
	uint64_t want;		/* bytes the receiver takes */
	uint64_t addr;
	uint8_t key[32];
};

/* CANCEL: id is the sender's request, ctx the context it was sent on. */
struct rc_p2p_cancel {
	struct rc_p2p_ctl c;
	uint32_t ctx;
	uint32_t rsvd;
};

#define RC_CANCEL_DONE 0x1u	/* CANCEL_ACK flags: the message is gone */

struct rc_p2p_data {
	struct rc_p2p_ctl c;	/* id: receiver's request */
	uint64_t off;
};

/* An upper layer's active message: 8 bytes, so that its own header that
 * follows stays 8-byte aligned. */
struct rc_p2p_am {
	uint8_t type;
	uint8_t id;		/* handler (enum rc_am_id) */
	uint16_t rsvd;
	uint32_t rsvd2;
};

#endif
