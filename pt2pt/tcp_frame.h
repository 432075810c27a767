/*
 * tcp_frame.h - the TCP transport's byte streams: a bounded send queue that
 * keeps what a nonblocking socket did not take, and a receive buffer that
 * cuts the stream back into messages.
 *
 * Frame on the wire: u32 length (host order: both ends run the same build
 * on the same kind of machine, as the rest of rcmpi's wire formats assume),
 * u32 length of the engine's header, then `length` bytes (the engine's
 * header, then its payload), then zeros up to a multiple of 8 bytes (the
 * engine reads its headers in place, which needs them aligned). Knowing
 * where the header ends, the receiver can read a large payload straight
 * into its destination (struct rc_tcp_rx's place). Kept apart
 * from tp_tcp.c so that partial writes and reads are tested without a job
 * (test/unit/test_tcp_frame.c).
 */
#ifndef RC_TCP_FRAME_H
#define RC_TCP_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RC_TCP_FRAME_HDR 8u /* u32 length, u32 header length */
/* bulk payloads, of at least this many bytes: read in place where the
 * receiver says (place), never copied into a send queue behind others */
#define RC_TCP_BULK_MIN 16384u
#define RC_TCP_PLACE_HDR_MAX 128u /* longest header kept for placed() */
/* bytes a frame of hdr + message takes on the wire: padded to 8, so that
 * every message lands 8-aligned in the receive buffer */
#define RC_TCP_FRAME_SIZE(msglen) \
	(((size_t)RC_TCP_FRAME_HDR + (msglen) + 7) & ~(size_t)7)

/* Bytes of one socket's stream: [head, tail) of buf. Sending: what the
 * socket has not taken yet. Receiving: what was read and not yet handed
 * up (cap >= the largest frame), and the payload being read in place. */
struct rc_tcp_buf {
	char *buf;
	size_t cap;
	size_t head, tail;
	/* receiving in place: dleft bytes still go to dst, then dskip bytes
	 * of padding; hdr is the frame's header, for placed() */
	char *dst;
	size_t dleft, dskip, dplen;
	uint32_t dhlen;
	uint64_t dhdr[RC_TCP_PLACE_HDR_MAX / 8];
};

int rc_tcp_buf_init(struct rc_tcp_buf *b, size_t cap);
void rc_tcp_buf_fini(struct rc_tcp_buf *b);
static inline bool rc_tcp_sq_empty(const struct rc_tcp_buf *sq)
{
	return sq->head == sq->tail;
}

/*
 * Send one frame (hdr then payload) on fd, behind what is queued. Writes
 * what the socket takes now when nothing is queued (fd >= 0) and queues
 * the rest. RC_OK: sent or queued, the buffers may be reused; RC_AGAIN: no
 * room in the queue now, or a bulk payload that would wait behind queued
 * bytes (nothing of it written); RC_ERR_PEER: the socket failed (*err
 * holds errno).
 */
int rc_tcp_sq_send(struct rc_tcp_buf *sq, int fd, const void *hdr, size_t hlen,
		   const void *payload, size_t len, int *err);
/* Write queued bytes. RC_OK: progress or nothing to do (*moved: bytes
 * written); RC_ERR_PEER: the socket failed (*err holds errno). */
int rc_tcp_sq_flush(struct rc_tcp_buf *sq, int fd, size_t *moved, int *err);

/* What the receiver does with the frames it cuts out of the stream. */
struct rc_tcp_rx {
	/* a whole message (header then payload), contiguous and 8-aligned,
	 * valid during the call */
	void (*deliver)(void *arg, const void *msg, size_t len);
	/* Optional. A message whose payload (plen >= RC_TCP_BULK_MIN bytes
	 * behind the hlen header bytes) has not arrived in full: where may
	 * the payload be read to directly? NULL: deliver it as usual. Else
	 * the plen bytes are written there, and placed() stands in for
	 * deliver() once the last one has arrived (hdr: the header again). */
	void *(*place)(void *arg, const void *hdr, size_t hlen, size_t plen);
	void (*placed)(void *arg, const void *hdr, size_t hlen, size_t plen);
};

/*
 * Read what fd has, and hand every complete frame to rx (one contiguous
 * buffer, valid during the call), for a few reads or until the socket is
 * dry. Returns frames delivered, or -1 with *err = errno (0: end of
 * stream; EPROTO: a frame longer than the buffer).
 */
int rc_tcp_rq_read(struct rc_tcp_buf *rq, int fd, const struct rc_tcp_rx *rx,
		   void *arg, int *err);

#endif
