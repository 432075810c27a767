/*
 * tcp_frame.c - send queue and receive buffer of the TCP transport
 * (tcp_frame.h).
 *
 * Send: a frame goes straight to the socket when nothing is queued before
 * it (one sendmsg of length, header and payload: no copy on the fast path);
 * whatever the socket did not take is copied into the queue, which
 * progress writes out later, in order. The queue holds at most `cap` bytes,
 * at least one largest frame, so an empty queue always takes a frame; past
 * that the caller hears RC_AGAIN and retries after progress. A frame with
 * a bulk payload is not queued behind others either (RC_AGAIN): streaming
 * into a full socket would otherwise copy nearly everything twice.
 *
 * Receive: reads land at the tail of a linear buffer; every complete frame
 * is handed up in place (contiguous); a partial frame left at the end is
 * moved to the front only when the rest of it would not fit. A partial
 * frame with a large payload may instead be placed: once its header is
 * in, the receiver names where the payload goes (a rendezvous fragment:
 * the user's buffer), the bytes already read are copied there and the
 * rest is read there directly, saving the copy out of the buffer for all
 * of the payload but its first piece.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "status.h"
#include "tcp_frame.h"

int rc_tcp_buf_init(struct rc_tcp_buf *b, size_t cap)
{
	b->buf = malloc(cap);
	if (!b->buf)
		return RC_ERR_NOMEM;
	b->cap = cap;
	b->head = b->tail = 0;
	b->dst = NULL;
	b->dleft = b->dskip = b->dplen = 0;
	return RC_OK;
}

void rc_tcp_buf_fini(struct rc_tcp_buf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->cap = b->head = b->tail = 0;
}

/* bytes written by one nonblocking sendmsg, 0 when the socket is full,
 * -1 with *err on failure */
static ssize_t sq_write(int fd, struct iovec *iov, int n, int *err)
{
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
	ssize_t w;

	do
		w = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w < 0 && errno == EINTR);
	if (w >= 0)
		return w;
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return 0;
	*err = errno;
	return -1;
}

/* copy the pieces of a frame from byte `skip` on into the queue's tail */
static void sq_append(struct rc_tcp_buf *sq, const struct iovec *iov, int n,
		      size_t skip)
{
	int i;

	for (i = 0; i < n; i++) {
		size_t l = iov[i].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		memcpy(sq->buf + sq->tail, (const char *)iov[i].iov_base + skip,
		       l - skip);
		sq->tail += l - skip;
		skip = 0;
	}
}

int rc_tcp_sq_send(struct rc_tcp_buf *sq, int fd, const void *hdr, size_t hlen,
		   const void *payload, size_t len, int *err)
{
	static const uint64_t zero;
	uint32_t fh[2] = {(uint32_t)(hlen + len), (uint32_t)hlen};
	size_t total = RC_TCP_FRAME_SIZE(hlen + len);
	struct iovec iov[4] = {
		{fh, RC_TCP_FRAME_HDR},
		{(void *)hdr, hlen},
		{(void *)payload, len},
		{(void *)&zero, total - RC_TCP_FRAME_HDR - hlen - len},
	};
	ssize_t w = 0;

	if (total > sq->cap)
		return RC_ERR_INVAL;
	if (!rc_tcp_sq_empty(sq) && fd >= 0) {
		/* what waits goes first; a bulk frame that would have to wait
		 * behind it is not copied in but refused (the caller retries
		 * after progress): the queue copies only what a full socket
		 * left of one frame, and small frames */
		size_t moved;

		if (rc_tcp_sq_flush(sq, fd, &moved, err))
			return RC_ERR_PEER;
		if (!rc_tcp_sq_empty(sq) && len >= RC_TCP_BULK_MIN)
			return RC_AGAIN;
	}
	if (rc_tcp_sq_empty(sq)) {
		sq->head = sq->tail = 0;
		if (fd >= 0) {
			w = sq_write(fd, iov, 4, err);
			if (w < 0)
				return RC_ERR_PEER;
		}
	} else if (sq->cap - (sq->tail - sq->head) < total) {
		return RC_AGAIN;
	} else if (sq->cap - sq->tail < total) {
		memmove(sq->buf, sq->buf + sq->head, sq->tail - sq->head);
		sq->tail -= sq->head;
		sq->head = 0;
	}
	if ((size_t)w < total)
		sq_append(sq, iov, 4, (size_t)w);
	return RC_OK;
}

int rc_tcp_sq_flush(struct rc_tcp_buf *sq, int fd, size_t *moved, int *err)
{
	*moved = 0;
	while (!rc_tcp_sq_empty(sq)) {
		struct iovec iov = {sq->buf + sq->head, sq->tail - sq->head};
		ssize_t w = sq_write(fd, &iov, 1, err);

		if (w < 0)
			return RC_ERR_PEER;
		if (!w)
			break;
		sq->head += (size_t)w;
		*moved += (size_t)w;
	}
	if (rc_tcp_sq_empty(sq))
		sq->head = sq->tail = 0;
	return RC_OK;
}

/* Offer the partial frame at head (have bytes of it, frame header fh) to
 * rx->place: true when its payload is to be read in place from now on
 * (what the buffer held of the frame is consumed). */
static bool rq_place(struct rc_tcp_buf *rq, const struct rc_tcp_rx *rx,
		     void *arg, const uint32_t *fh, size_t have)
{
	size_t hlen = fh[1], plen = fh[0] - fh[1], got;
	char *hdr = rq->buf + rq->head + RC_TCP_FRAME_HDR, *dst;

	if (!rx->place || plen < RC_TCP_BULK_MIN ||
	    hlen > RC_TCP_PLACE_HDR_MAX || have < RC_TCP_FRAME_HDR + hlen)
		return false;
	got = have - RC_TCP_FRAME_HDR - hlen;
	if (got >= plen)
		return false; /* only padding missing: it comes at once */
	dst = rx->place(arg, hdr, hlen, plen);
	if (!dst)
		return false;
	memcpy(rq->dhdr, hdr, hlen);
	memcpy(dst, hdr + hlen, got);
	rq->dst = dst + got;
	rq->dleft = plen - got;
	rq->dplen = plen;
	rq->dhlen = (uint32_t)hlen;
	rq->dskip = RC_TCP_FRAME_SIZE(fh[0]) - RC_TCP_FRAME_HDR - fh[0];
	rq->head = rq->tail = 0;
	return true;
}

/* Hand up every complete frame; -1 (EPROTO) on a frame that can never
 * fit. Leaves a partial frame where its rest fits, or places it. */
static int rq_cut(struct rc_tcp_buf *rq, const struct rc_tcp_rx *rx,
		  void *arg, int *err)
{
	int n = 0;

	for (;;) {
		size_t have = rq->tail - rq->head;
		uint32_t fh[2];

		if (have < RC_TCP_FRAME_HDR)
			break;
		memcpy(fh, rq->buf + rq->head, sizeof(fh));
		if (RC_TCP_FRAME_SIZE(fh[0]) > rq->cap || fh[1] > fh[0]) {
			*err = EPROTO;
			return -1;
		}
		if (have < RC_TCP_FRAME_SIZE(fh[0])) {
			if (rq_place(rq, rx, arg, fh, have))
				return n;
			/* the rest would not fit behind it: move it forward */
			if (rq->head + RC_TCP_FRAME_SIZE(fh[0]) > rq->cap) {
				memmove(rq->buf, rq->buf + rq->head, have);
				rq->head = 0;
				rq->tail = have;
			}
			break;
		}
		rx->deliver(arg, rq->buf + rq->head + RC_TCP_FRAME_HDR, fh[0]);
		rq->head += RC_TCP_FRAME_SIZE(fh[0]);
		n++;
	}
	if (rq->head == rq->tail)
		rq->head = rq->tail = 0;
	else if (rq->tail - rq->head < RC_TCP_FRAME_HDR &&
		 rq->cap - rq->head < RC_TCP_FRAME_HDR) {
		memmove(rq->buf, rq->buf + rq->head, rq->tail - rq->head);
		rq->tail -= rq->head;
		rq->head = 0;
	}
	return n;
}

/* One read of a placed payload's rest and its padding; as recv(). */
static ssize_t rq_recv_placed(struct rc_tcp_buf *rq, int fd)
{
	uint64_t pad;
	struct iovec iov[2] = {{rq->dst, rq->dleft}, {&pad, rq->dskip}};
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
	ssize_t r;
	size_t k;

	do
		r = recvmsg(fd, &mh, MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	if (r > 0) {
		k = (size_t)r < rq->dleft ? (size_t)r : rq->dleft;
		rq->dst += k;
		rq->dleft -= k;
		rq->dskip -= (size_t)r - k;
	}
	return r;
}

#define RQ_READS 4 /* reads per call: a streaming peer cannot hold us */

int rc_tcp_rq_read(struct rc_tcp_buf *rq, int fd, const struct rc_tcp_rx *rx,
		   void *arg, int *err)
{
	int frames = 0, i, n;

	for (i = 0; i < RQ_READS; i++) {
		bool placing = rq->dleft || rq->dskip;
		size_t room = placing ? rq->dleft + rq->dskip
				      : rq->cap - rq->tail;
		ssize_t r;

		if (placing) {
			r = rq_recv_placed(rq, fd);
		} else {
			do
				r = recv(fd, rq->buf + rq->tail, room,
					 MSG_DONTWAIT);
			while (r < 0 && errno == EINTR);
		}
		if (r == 0) {
			*err = 0;
			return -1;
		}
		if (r < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			*err = errno;
			return -1;
		}
		if (placing) {
			if (!rq->dleft && !rq->dskip) {
				rq->dst = NULL;
				rx->placed(arg, rq->dhdr, rq->dhlen, rq->dplen);
				frames++;
			}
		} else {
			rq->tail += (size_t)r;
			n = rq_cut(rq, rx, arg, err);
			if (n < 0)
				return -1;
			frames += n;
		}
		if ((size_t)r < room)
			break; /* the socket is dry */
	}
	return frames;
}
