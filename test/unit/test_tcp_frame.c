/*
 * test_tcp_frame.c - the TCP transport's framing (pt2pt/tcp_frame.c) over
 * a nonblocking socketpair with a small send buffer, so that writes are
 * partial and reads cut frames anywhere: every frame arrives once, whole,
 * in order; the queue is bounded (RC_AGAIN, never a drop); a frame split
 * into single bytes is reassembled; end of stream, a dead reader (no
 * SIGPIPE) and an oversized frame are errors; large payloads the
 * receiver places land whole where it said, in order with the rest. Also
 * the interface choice of RCMPI_TCP_IF (rc_tcp_pick_addr).
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "status.h"
#include "tcp_frame.h"
#include "tp_tcp.h"

#define TMO 30

static int sp[2];

static void pair_open(int sndbuf)
{
	int i;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	for (i = 0; i < 2; i++)
		fcntl(sp[i], F_SETFL, fcntl(sp[i], F_GETFL) | O_NONBLOCK);
	if (sndbuf) {
		setsockopt(sp[0], SOL_SOCKET, SO_SNDBUF, &sndbuf,
			   sizeof(sndbuf));
		setsockopt(sp[1], SOL_SOCKET, SO_RCVBUF, &sndbuf,
			   sizeof(sndbuf));
	}
}

static unsigned char pat(uint32_t seq, size_t i)
{
	return (unsigned char)(seq * 31u + i * 7u + (i >> 8));
}

/* frame seq: header = seq (4 bytes), payload = len(seq) pattern bytes */
static size_t frame_len(uint32_t seq, size_t max)
{
	return (seq * 2654435761u) % max;
}

struct rx {
	uint32_t next;
	size_t max;
	unsigned bad;
	/* placing: odd frames with large payloads go to dst */
	unsigned char *dst;
	unsigned asked, placed;
};

static void rx_check(void *arg, const void *msg, size_t len)
{
	struct rx *rx = arg;
	const unsigned char *m = msg;
	uint32_t seq;
	size_t i, want;

	/* the engine reads its headers in place: 8-aligned */
	if (len < 4 || (uintptr_t)msg % 8) {
		rx->bad++;
		return;
	}
	memcpy(&seq, m, 4);
	want = frame_len(seq, rx->max);
	if (seq != rx->next || len != 4 + want)
		rx->bad++;
	for (i = 0; i < want && seq == rx->next; i++)
		if (m[4 + i] != pat(seq, i)) {
			rx->bad++;
			break;
		}
	rx->next++;
}

static const struct rc_tcp_rx rx_plain = {.deliver = rx_check};

/* odd frames are placed in rx->dst: the engine's header is the 4-byte
 * sequence number */
static void *rx_place(void *arg, const void *hdr, size_t hlen, size_t plen)
{
	struct rx *rx = arg;
	uint32_t seq;

	memcpy(&seq, hdr, 4);
	rx->asked++;
	if (hlen != 4 || plen < RC_TCP_BULK_MIN || seq != rx->next ||
	    plen != frame_len(seq, rx->max))
		rx->bad++;
	return seq % 2 ? rx->dst : NULL;
}

static void rx_placed(void *arg, const void *hdr, size_t hlen, size_t plen)
{
	struct rx *rx = arg;
	uint32_t seq;
	size_t i;

	memcpy(&seq, hdr, 4);
	if (hlen != 4 || seq != rx->next || seq % 2 == 0 ||
	    plen != frame_len(seq, rx->max))
		rx->bad++;
	for (i = 0; i < plen; i++)
		if (rx->dst[i] != pat(seq, i)) {
			rx->bad++;
			break;
		}
	memset(rx->dst, 0xee, rx->max);
	rx->placed++;
	rx->next++;
}

static const struct rc_tcp_rx rx_placing = {
	.deliver = rx_check, .place = rx_place, .placed = rx_placed};

/* n frames of all sizes (payloads below max) through a small socket
 * buffer, received with ops */
static void stream_frames(const struct rc_tcp_rx *ops, struct rx *rx,
			  uint32_t n)
{
	const size_t max = rx->max;
	struct rc_tcp_buf sq;
	struct rc_tcp_buf rq;
	unsigned char *pl = malloc(max);
	uint32_t seq = 0;
	unsigned again = 0, rounds = 0;
	int err = 0;

	pair_open(4096);
	ck_assert_int_eq(rc_tcp_buf_init(&sq, 3 * (max + 8)), RC_OK);
	ck_assert_int_eq(rc_tcp_buf_init(&rq, max + 8), RC_OK);
	while (rx->next < n) {
		size_t moved;

		ck_assert_uint_lt(++rounds, 1000000);
		while (seq < n) {
			size_t len = frame_len(seq, max), i;
			int ret;

			for (i = 0; i < len; i++)
				pl[i] = pat(seq, i);
			ret = rc_tcp_sq_send(&sq, sp[0], &seq, 4, pl, len,
					     &err);
			if (ret == RC_AGAIN) {
				again++;
				break;
			}
			ck_assert_int_eq(ret, RC_OK);
			/* the buffer is the caller's again: scribble */
			memset(pl, 0xee, len);
			seq++;
		}
		ck_assert_int_eq(rc_tcp_sq_flush(&sq, sp[0], &moved, &err),
				 RC_OK);
		ck_assert_int_ge(rc_tcp_rq_read(&rq, sp[1], ops, rx, &err), 0);
	}
	ck_assert_uint_eq(rx->bad, 0);
	ck_assert_uint_eq(rx->next, n);
	ck_assert(rc_tcp_sq_empty(&sq));
	/* the queue filled up at least once: bounded, nothing dropped */
	ck_assert_uint_gt(again, 0);
	rc_tcp_buf_fini(&sq);
	rc_tcp_buf_fini(&rq);
	free(pl);
	close(sp[0]);
	close(sp[1]);
}

START_TEST(frames_arrive_whole_in_order)
{
	struct rx rx = {.max = 70000};

	stream_frames(&rx_plain, &rx, 400);
}
END_TEST

/* the receiver places the odd frames' large payloads (read in pieces
 * through the 4 KiB socket buffer) and declines the even ones: every
 * frame still arrives once, whole, in order, and the frames behind a
 * placed one (its padding skipped) stay 8-aligned */
START_TEST(placed_payloads)
{
	struct rx rx = {.max = 70000};
	unsigned i, big_odd = 0;

	rx.dst = malloc(rx.max);
	stream_frames(&rx_placing, &rx, 400);
	for (i = 1; i < 400; i += 2)
		big_odd += frame_len(i, rx.max) >= RC_TCP_BULK_MIN;
	/* every odd frame with a large payload was placed (the buffer never
	 * held one whole: it is read in pieces of at most 4 KiB) */
	ck_assert_uint_gt(big_odd, 100);
	ck_assert_uint_eq(rx.placed, big_odd);
	ck_assert_uint_ge(rx.asked, rx.placed);
	free(rx.dst);
}
END_TEST

/* build frame seq into f; returns its bytes on the wire */
static size_t frame_build(unsigned char *f, uint32_t seq, size_t max)
{
	size_t len = frame_len(seq, max), i;
	uint32_t fh[2] = {(uint32_t)(4 + len), 4};

	memset(f, 0, RC_TCP_FRAME_SIZE(4 + len));
	memcpy(f, fh, 8);
	memcpy(f + 8, &seq, 4);
	for (i = 0; i < len; i++)
		f[12 + i] = pat(seq, i);
	return RC_TCP_FRAME_SIZE(4 + len);
}

/* a frame written one byte at a time is handed up once, whole; it starts
 * behind another frame in the buffer, and its rest does not fit there, so
 * the partial frame moves to the front */
START_TEST(byte_by_byte)
{
	struct rc_tcp_buf rq;
	struct rx rx = {.next = 4, .max = 1000};
	unsigned char f[2 * 1024];
	size_t t4, t5, i;
	int err, n;

	pair_open(0);
	t4 = frame_build(f, 4, 1000);
	t5 = frame_build(f + t4, 5, 1000);
	ck_assert_uint_gt(t4 + t5, t5 + 8);
	ck_assert_int_eq(rc_tcp_buf_init(&rq, t5 + 8), RC_OK);
	ck_assert_int_eq(write(sp[0], f, t4 + 3), (ssize_t)(t4 + 3));
	ck_assert_int_eq(rc_tcp_rq_read(&rq, sp[1], &rx_plain, &rx, &err), 1);
	n = 0;
	for (i = t4 + 3; i < t4 + t5; i++) {
		ck_assert_int_eq(write(sp[0], f + i, 1), 1);
		n += rc_tcp_rq_read(&rq, sp[1], &rx_plain, &rx, &err);
		ck_assert_int_eq(n, i + 1 == t4 + t5 ? 1 : 0);
	}
	ck_assert_uint_eq(rx.bad, 0);
	ck_assert_uint_eq(rx.next, 6);
	rc_tcp_buf_fini(&rq);
	close(sp[0]);
	close(sp[1]);
}
END_TEST

static void rx_count(void *arg, const void *msg, size_t len)
{
	(*(int *)arg)++;
}

static const struct rc_tcp_rx rx_counting = {.deliver = rx_count};

START_TEST(errors)
{
	struct rc_tcp_buf sq;
	struct rc_tcp_buf rq;
	char big[256] = {0};
	int err = 0, got = 0;

	pair_open(0);
	ck_assert_int_eq(rc_tcp_buf_init(&sq, 128), RC_OK);
	ck_assert_int_eq(rc_tcp_buf_init(&rq, 64), RC_OK);
	/* larger than the queue can ever hold */
	ck_assert_int_eq(rc_tcp_sq_send(&sq, sp[0], big, 8, big, 200, &err),
			 RC_ERR_INVAL);
	/* larger than the receiver's buffer: EPROTO, nothing handed up */
	ck_assert_int_eq(rc_tcp_sq_send(&sq, sp[0], big, 8, big, 100, &err),
			 RC_OK);
	ck_assert_int_eq(rc_tcp_rq_read(&rq, sp[1], &rx_counting, &got, &err), -1);
	ck_assert_int_eq(err, EPROTO);
	ck_assert_int_eq(got, 0);
	/* end of stream */
	close(sp[0]);
	ck_assert_int_eq(rc_tcp_rq_read(&rq, sp[1], &rx_counting, &got, &err), -1);
	ck_assert_int_eq(err, 0);
	close(sp[1]);
	/* a dead reader: an error, not SIGPIPE (the test would die) */
	pair_open(0);
	close(sp[1]);
	ck_assert_int_eq(rc_tcp_sq_send(&sq, sp[0], big, 8, NULL, 0, &err),
			 RC_ERR_PEER);
	ck_assert_int_eq(err, EPIPE);
	close(sp[0]);
	rc_tcp_buf_fini(&sq);
	rc_tcp_buf_fini(&rq);
}
END_TEST

/* the sequence numbers of the frames handed up, in order */
struct order {
	uint32_t seq[8];
	unsigned n;
};

static void rx_order(void *arg, const void *msg, size_t len)
{
	struct order *o = arg;

	if (o->n < 8)
		memcpy(&o->seq[o->n], msg, 4);
	o->n++;
}

static const struct rc_tcp_rx rx_ordered = {.deliver = rx_order};

/* a bulk frame behind queued bytes is refused, not copied in; a small
 * one queues; once the socket drains, the refused one goes */
START_TEST(bulk_not_queued)
{
	const size_t big = 4 * RC_TCP_BULK_MIN;
	struct rc_tcp_buf sq;
	struct rc_tcp_buf rq;
	struct order o = {.n = 0};
	unsigned char *pl = calloc(1, big);
	uint32_t seq;
	size_t queued, moved;
	int err = 0, i;

	pair_open(4096);
	ck_assert_int_eq(rc_tcp_buf_init(&sq, 4 * (big + 16)), RC_OK);
	ck_assert_int_eq(rc_tcp_buf_init(&rq, big + 16), RC_OK);
	/* the socket takes a little of frame 0, the queue the rest */
	seq = 0;
	ck_assert_int_eq(rc_tcp_sq_send(&sq, sp[0], &seq, 4, pl, big, &err),
			 RC_OK);
	queued = sq.tail - sq.head;
	ck_assert_uint_gt(queued, 0);
	/* bulk frame 1 would wait behind it: refused, nothing copied */
	seq = 1;
	ck_assert_int_eq(rc_tcp_sq_send(&sq, sp[0], &seq, 4, pl,
					RC_TCP_BULK_MIN, &err),
			 RC_AGAIN);
	ck_assert_uint_eq(sq.tail - sq.head, queued);
	/* small frame 2 queues behind frame 0 */
	seq = 2;
	ck_assert_int_eq(rc_tcp_sq_send(&sq, sp[0], &seq, 4, pl,
					RC_TCP_BULK_MIN - 1, &err),
			 RC_OK);
	ck_assert_uint_gt(sq.tail - sq.head, queued);
	/* the reader drains; frame 1 goes once it is not behind others */
	seq = 1;
	for (i = 0; i < 100000 && o.n < 3; i++) {
		if (seq == 1 && rc_tcp_sq_send(&sq, sp[0], &seq, 4, pl,
					       RC_TCP_BULK_MIN, &err) == RC_OK)
			seq = 3;
		ck_assert_int_eq(rc_tcp_sq_flush(&sq, sp[0], &moved, &err),
				 RC_OK);
		ck_assert_int_ge(
			rc_tcp_rq_read(&rq, sp[1], &rx_ordered, &o, &err), 0);
	}
	ck_assert_uint_eq(o.n, 3);
	ck_assert_uint_eq(o.seq[0], 0);
	ck_assert_uint_eq(o.seq[1], 2);
	ck_assert_uint_eq(o.seq[2], 1);
	ck_assert(rc_tcp_sq_empty(&sq));
	rc_tcp_buf_fini(&sq);
	rc_tcp_buf_fini(&rq);
	free(pl);
	close(sp[0]);
	close(sp[1]);
}
END_TEST

/* without a socket (connection not up yet) frames queue, then flush */
START_TEST(queue_before_connect)
{
	struct rc_tcp_buf sq;
	struct rc_tcp_buf rq;
	struct rx rx = {.max = 50};
	unsigned char pl[64];
	uint32_t seq;
	size_t moved;
	int err, i;

	pair_open(0);
	ck_assert_int_eq(rc_tcp_buf_init(&sq, 4 * 64), RC_OK);
	ck_assert_int_eq(rc_tcp_buf_init(&rq, 128), RC_OK);
	for (seq = 0;; seq++) {
		size_t len = frame_len(seq, 50), j;
		int ret;

		for (j = 0; j < len; j++)
			pl[j] = pat(seq, j);
		ret = rc_tcp_sq_send(&sq, -1, &seq, 4, pl, len, &err);
		if (ret == RC_AGAIN)
			break;
		ck_assert_int_eq(ret, RC_OK);
	}
	ck_assert_uint_gt(seq, 2);
	ck_assert_int_eq(rc_tcp_sq_flush(&sq, sp[0], &moved, &err), RC_OK);
	ck_assert(rc_tcp_sq_empty(&sq));
	for (i = 0; i < 10 && rx.next < seq; i++)
		rc_tcp_rq_read(&rq, sp[1], &rx_plain, &rx, &err);
	ck_assert_uint_eq(rx.next, seq);
	ck_assert_uint_eq(rx.bad, 0);
	rc_tcp_buf_fini(&sq);
	rc_tcp_buf_fini(&rq);
	close(sp[0]);
	close(sp[1]);
}
END_TEST

START_TEST(pick_addr)
{
	struct in_addr a;
	char ifn[32];

	ck_assert_int_eq(rc_tcp_pick_addr("lo", &a, ifn, sizeof(ifn)), RC_OK);
	ck_assert_uint_eq(ntohl(a.s_addr) >> 24, 127);
	ck_assert_str_eq(ifn, "lo");
	ck_assert_int_eq(rc_tcp_pick_addr("127.0.0.0/8", &a, ifn, sizeof(ifn)),
			 RC_OK);
	ck_assert_uint_eq(ntohl(a.s_addr) >> 24, 127);
	ck_assert_int_eq(rc_tcp_pick_addr("127.0.0.1", &a, ifn, sizeof(ifn)),
			 RC_OK);
	ck_assert_uint_eq(ntohl(a.s_addr), 0x7f000001u);
	ck_assert_int_eq(rc_tcp_pick_addr("nosuch0", &a, ifn, sizeof(ifn)),
			 RC_ERR_NODEV);
	ck_assert_int_eq(
		rc_tcp_pick_addr("203.0.113.0/24", &a, ifn, sizeof(ifn)),
		RC_ERR_NODEV);
	/* the default always finds something (loopback at worst) */
	ck_assert_int_eq(rc_tcp_pick_addr(NULL, &a, ifn, sizeof(ifn)), RC_OK);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tcp_frame");
	TCase *tc = tcase_create("frame");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, frames_arrive_whole_in_order);
	tcase_add_test(tc, placed_payloads);
	tcase_add_test(tc, byte_by_byte);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, queue_before_connect);
	tcase_add_test(tc, bulk_not_queued);
	tcase_add_test(tc, pick_addr);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
