/*
 * test_p2p.c - the point-to-point engine over the in-process fabric: every
 * protocol (eager, synchronous, rendezvous by get, put and fragments) at
 * sizes around each threshold, contiguous and strided on either side, with
 * and without flow-control pressure; matching order, wildcards, truncation,
 * synchronous completion, probe, matched receive, cancel, persistent
 * requests and floods; the active messages of upper layers (order with
 * pt2pt's own traffic, streams, a peer's failure).
 */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "comm.h"
#include "count_yield.h"
#include "dtype.h"
#include "pt2pt.h"
#include "request.h"
#include "status.h"
#include "thread.h"
#include "world.h"

static const int sizes[] = { 0, 1, 2, 2047, 2048, 2049, 16384, 262145 };
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

static const char *const rndv_modes[] = { "get", "put", "frag" };

/* Loop index -> rendezvous mode and fabric pressure. */
static struct tw *world_for(int idx, int n)
{
	struct tw *tw = tw_new(n);

	setenv("RCMPI_RNDV_MODE", rndv_modes[idx % 3], 1);
	switch (idx / 3) {
	case 1:		/* tiny queues, small chunks: RC_AGAIN everywhere */
		tw->fab->max_queued = 1;
		tw->fab->rdma_chunk = 4096;
		tw->fab->max_rdma = 2;
		break;
	case 2:		/* every third send refused */
		tw->fab->again_every = 3;
		tw->fab->max_am = 3000;
		tw->fab->eager_limit = 2048;
		break;
	}
	tw_open(tw);
	return tw;
}

static struct rc_dtype *strided_int(int n)
{
	struct rc_dtype *dt;

	ck_assert_int_eq(rc_dt_create_vector((size_t)n, 1, 2, &rc_mpi_int, &dt),
			 RC_OK);
	rc_dt_commit(dt);
	return dt;
}

static int pattern(int i, int seed)
{
	return i * 31 + seed;
}

/* First index in [0, n) where buf[i * stride + off] != want(i), or -1.
 * (One assertion per buffer: Check records every assertion it runs.) */
static int first_bad(const int *buf, int n, int stride, int off, int seed,
		     bool sentinel, int sval)
{
	int i;

	for (i = 0; i < n; i++)
		if (buf[i * stride + off] != (sentinel ? sval : pattern(i, seed)))
			return i;
	return -1;
}

/* One message of n ints from rank 0 to rank 1; strided layouts place the
 * ints at even indices. Checks data, status, and that gaps are untouched. */
static void one_message(struct tw *tw, int n, bool sstride, bool rstride,
			enum rc_send_mode mode, bool post_first, int seed)
{
	struct rc_comm *c0 = tw->inst[0]->world, *c1 = tw->inst[1]->world;
	struct rc_dtype *sdt = sstride ? strided_int(n) : &rc_mpi_int;
	struct rc_dtype *rdt = rstride ? strided_int(n) : &rc_mpi_int;
	size_t scount = sstride ? 1 : (size_t)n, rcount = rstride ? 1 : (size_t)n;
	int *sbuf = malloc(sizeof(int) * (2 * n + 1));
	int *rbuf = malloc(sizeof(int) * (2 * n + 1));
	struct rc_req *sreq, *rreq = NULL;
	int i;

	for (i = 0; i < 2 * n + 1; i++) {
		sbuf[i] = -1;
		rbuf[i] = -7;
	}
	for (i = 0; i < n; i++)
		sbuf[sstride ? 2 * i : i] = pattern(i, seed);
	if (post_first)
		ck_assert_int_eq(rc_p2p_irecv(c1, c1->ctx, rbuf, rcount, rdt, 0,
					      seed, &rreq), RC_OK);
	ck_assert_int_eq(rc_p2p_isend(c0, c0->ctx, sbuf, scount, sdt, 1, seed,
				      mode, &sreq), RC_OK);
	if (!post_first) {
		tw_quiesce(tw);
		if (mode == RC_SEND_SYNC)
			ck_assert_msg(!rc_req_done(sreq),
				      "synchronous send completed unmatched");
		ck_assert_int_eq(rc_p2p_irecv(c1, c1->ctx, rbuf, rcount, rdt, 0,
					      seed, &rreq), RC_OK);
	}
	tw_wait(tw, rreq);
	tw_wait(tw, sreq);
	ck_assert_int_eq(rreq->err, RC_OK);
	ck_assert_int_eq(sreq->err, RC_OK);
	ck_assert_int_eq(rreq->status.MPI_SOURCE, 0);
	ck_assert_int_eq(rreq->status.MPI_TAG, seed);
	ck_assert_int_eq(rreq->status.rc_count, (MPI_Count)n * (int)sizeof(int));
	ck_assert_int_eq(first_bad(rbuf, n, rstride ? 2 : 1, 0, seed, false, 0),
			 -1);
	if (rstride)
		ck_assert_int_eq(first_bad(rbuf, n, 2, 1, 0, true, -7), -1);
	else
		ck_assert_int_eq(rbuf[n], -7);
	rc_req_finish(&sreq, MPI_STATUS_IGNORE);
	rc_req_finish(&rreq, MPI_STATUS_IGNORE);
	if (sstride)
		rc_dt_release(sdt);
	if (rstride)
		rc_dt_release(rdt);
	free(sbuf);
	free(rbuf);
}

START_TEST(protocol_matrix)
{
	struct tw *tw = world_for(_i, 2);
	int s, layout, seed = 0;

	for (s = 0; s < NSIZES; s++)
		for (layout = 0; layout < 16; layout++)
			one_message(tw, sizes[s], layout & 1, layout & 2,
				    (layout & 4) ? RC_SEND_SYNC : RC_SEND_STD,
				    layout & 8, seed++);
	tw_free(tw);
}
END_TEST

/* Non-overtaking: a stream of mixed eager and rendezvous messages with one
 * tag, received with wildcards posted late, arrives in order. */
START_TEST(order_mixed_protocols)
{
	struct tw *tw = world_for(_i, 2);
	struct rc_comm *c0 = tw->inst[0]->world, *c1 = tw->inst[1]->world;
	enum { N = 40 };
	struct rc_req *sreq[N], *rreq[N];
	int *sbuf[N], *rbuf[N];
	int i, k;

	for (i = 0; i < N; i++) {
		int n = sizes[i % NSIZES];

		sbuf[i] = malloc(sizeof(int) * (n + 1));
		rbuf[i] = malloc(sizeof(int) * 262146);
		for (k = 0; k < n; k++)
			sbuf[i][k] = pattern(k, i);
		ck_assert_int_eq(rc_p2p_isend(c0, c0->ctx, sbuf[i], (size_t)n,
					      &rc_mpi_int, 1, 5,
					      RC_SEND_STD, &sreq[i]), RC_OK);
	}
	tw_progress(tw);
	for (i = 0; i < N; i++)
		ck_assert_int_eq(rc_p2p_irecv(c1, c1->ctx, rbuf[i], 262146,
					      &rc_mpi_int, MPI_ANY_SOURCE,
					      MPI_ANY_TAG, &rreq[i]), RC_OK);
	tw_wait_all(tw, rreq, N);
	tw_wait_all(tw, sreq, N);
	for (i = 0; i < N; i++) {
		int n = sizes[i % NSIZES];

		ck_assert_int_eq(rreq[i]->status.rc_count,
				 (MPI_Count)n * (int)sizeof(int));
		ck_assert_int_eq(first_bad(rbuf[i], n, 1, 0, i, false, 0), -1);
		rc_req_finish(&rreq[i], MPI_STATUS_IGNORE);
		rc_req_finish(&sreq[i], MPI_STATUS_IGNORE);
		free(sbuf[i]);
		free(rbuf[i]);
	}
	tw_free(tw);
}
END_TEST

/* Several senders, ANY_SOURCE receiver: each sender's messages in order. */
START_TEST(any_source_per_sender_order)
{
	struct tw *tw = world_for(_i, 4);
	struct rc_comm *root = tw->inst[0]->world;
	enum { PER = 30 };
	struct rc_req *sreq[3][PER], *rreq[3 * PER];
	int val[3][PER], got[3 * PER], next[4] = { 0 };
	int r, i;

	for (r = 1; r < 4; r++) {
		struct rc_comm *c = tw->inst[r]->world;

		for (i = 0; i < PER; i++) {
			val[r - 1][i] = r * 1000 + i;
			ck_assert_int_eq(rc_p2p_isend(c, c->ctx, &val[r - 1][i],
						      1, &rc_mpi_int, 0, i % 3,
						      RC_SEND_STD,
						      &sreq[r - 1][i]), RC_OK);
		}
	}
	for (i = 0; i < 3 * PER; i++)
		ck_assert_int_eq(rc_p2p_irecv(root, root->ctx, &got[i], 1,
					      &rc_mpi_int, MPI_ANY_SOURCE,
					      MPI_ANY_TAG, &rreq[i]), RC_OK);
	tw_wait_all(tw, rreq, 3 * PER);
	for (i = 0; i < 3 * PER; i++) {
		int src = rreq[i]->status.MPI_SOURCE;

		ck_assert(src >= 1 && src <= 3);
		ck_assert_int_eq(got[i], src * 1000 + next[src]);
		ck_assert_int_eq(rreq[i]->status.MPI_TAG, next[src] % 3);
		next[src]++;
		rc_req_finish(&rreq[i], MPI_STATUS_IGNORE);
	}
	for (r = 0; r < 3; r++)
		for (i = 0; i < PER; i++) {
			tw_wait(tw, sreq[r][i]);
			rc_req_finish(&sreq[r][i], MPI_STATUS_IGNORE);
		}
	tw_free(tw);
}
END_TEST

/* A specific-tag receive skips earlier messages with other tags. */
START_TEST(tag_selects)
{
	struct tw *tw = world_for(0, 2);
	struct rc_comm *c0 = tw->inst[0]->world, *c1 = tw->inst[1]->world;
	int a = 1, b = 2, got = 0;
	struct rc_req *s1, *s2, *r;

	rc_p2p_isend(c0, c0->ctx, &a, 1, &rc_mpi_int, 1, 10, RC_SEND_STD, &s1);
	rc_p2p_isend(c0, c0->ctx, &b, 1, &rc_mpi_int, 1, 20, RC_SEND_STD, &s2);
	tw_quiesce(tw);
	rc_p2p_irecv(c1, c1->ctx, &got, 1, &rc_mpi_int, 0, 20, &r);
	tw_wait(tw, r);
	ck_assert_int_eq(got, 2);
	rc_req_finish(&r, MPI_STATUS_IGNORE);
	rc_p2p_irecv(c1, c1->ctx, &got, 1, &rc_mpi_int, MPI_ANY_SOURCE, 10, &r);
	tw_wait(tw, r);
	ck_assert_int_eq(got, 1);
	rc_req_finish(&r, MPI_STATUS_IGNORE);
	/* contexts separate: a message in the collective context is not seen
	 * by a pt2pt receive */
	rc_p2p_isend(c0, rc_comm_coll_ctx(c0), &a, 1, &rc_mpi_int, 1, 1,
		     RC_SEND_STD, &s1);
	rc_p2p_irecv(c1, c1->ctx, &got, 1, &rc_mpi_int, MPI_ANY_SOURCE,
		     MPI_ANY_TAG, &r);
	tw_quiesce(tw);
	ck_assert(!rc_req_done(r));
	rc_p2p_cancel(r);
	ck_assert(rc_req_done(r));
	ck_assert_int_eq(r->status.rc_cancelled, 1);
	rc_req_finish(&r, MPI_STATUS_IGNORE);
	rc_p2p_irecv(c1, rc_comm_coll_ctx(c1), &got, 1, &rc_mpi_int, 0, 1, &r);
	tw_wait(tw, r);
	rc_req_finish(&r, MPI_STATUS_IGNORE);
	tw_wait(tw, s1);
	rc_req_finish(&s1, MPI_STATUS_IGNORE);
	tw_wait(tw, s2);
	rc_req_finish(&s2, MPI_STATUS_IGNORE);
	tw_free(tw);
}
END_TEST

/* Truncation at eager and rendezvous sizes: MPI_ERR_TRUNCATE, the count is
 * what fit, nothing past the buffer is written, the sender completes. */
START_TEST(truncation)
{
	struct tw *tw = world_for(_i, 2);
	struct rc_comm *c0 = tw->inst[0]->world, *c1 = tw->inst[1]->world;
	static const int n[] = { 2, 100, 2048, 2049, 100000 };
	int k, i;

	for (k = 0; k < 5; k++) {
		int cap = n[k] / 2;
		int *sbuf = malloc(sizeof(int) * n[k]);
		int *rbuf = malloc(sizeof(int) * (cap + 16));
		struct rc_req *s, *r;

		for (i = 0; i < n[k]; i++)
			sbuf[i] = pattern(i, k);
		for (i = 0; i < cap + 16; i++)
			rbuf[i] = -3;
		rc_p2p_irecv(c1, c1->ctx, rbuf, (size_t)cap, &rc_mpi_int, 0,
			     MPI_ANY_TAG, &r);
		rc_p2p_isend(c0, c0->ctx, sbuf, (size_t)n[k], &rc_mpi_int, 1, 4,
			     (k & 1) ? RC_SEND_SYNC : RC_SEND_STD, &s);
		tw_wait(tw, r);
		tw_wait(tw, s);
		ck_assert_int_eq(r->err, RC_ERR_TRUNCATE);
		ck_assert_int_eq(r->status.MPI_ERROR, MPI_ERR_TRUNCATE);
		ck_assert_int_eq(r->status.rc_count,
				 (MPI_Count)cap * (int)sizeof(int));
		ck_assert_int_eq(s->err, RC_OK);
		ck_assert_int_eq(first_bad(rbuf, cap, 1, 0, k, false, 0), -1);
		ck_assert_int_eq(first_bad(rbuf + cap, 16, 1, 0, 0, true, -3), -1);
		rc_req_finish(&r, MPI_STATUS_IGNORE);
		rc_req_finish(&s, MPI_STATUS_IGNORE);
		free(sbuf);
		free(rbuf);
	}
	tw_free(tw);
}
END_TEST

/* Probe sees size and source without receiving; improbe takes the message
 * off the queue so a later wildcard receive does not get it. */
START_TEST(probe_and_mrecv)
{
	struct tw *tw = world_for(_i, 3);
	struct rc_comm *c1 = tw->inst[1]->world, *c2 = tw->inst[2]->world;
	struct rc_comm *c0 = tw->inst[0]->world;
	int *big = calloc(100000, sizeof(int)), small = 42, got = 0;
	int *rbig = calloc(100000, sizeof(int));
	struct rc_req *s1, *s2, *r;
	struct rc_umsg *msg = NULL;
	MPI_Status st;

	big[99999] = 77;
	rc_p2p_isend(c1, c1->ctx, big, 100000, &rc_mpi_int, 0, 3, RC_SEND_STD,
		     &s1);
	tw_quiesce(tw);
	rc_p2p_isend(c2, c2->ctx, &small, 1, &rc_mpi_int, 0, 9, RC_SEND_STD,
		     &s2);
	tw_quiesce(tw);
	ck_assert(!rc_p2p_iprobe(c0, c0->ctx, 2, 3, false, &st, NULL));
	ck_assert(rc_p2p_iprobe(c0, c0->ctx, MPI_ANY_SOURCE, 9, false, &st,
				NULL));
	ck_assert_int_eq(st.MPI_SOURCE, 2);
	ck_assert_int_eq(st.rc_count, 4);
	ck_assert(rc_p2p_iprobe(c0, c0->ctx, MPI_ANY_SOURCE, MPI_ANY_TAG, true,
				&st, &msg));
	ck_assert_int_eq(st.MPI_SOURCE, 1);
	ck_assert_int_eq(st.rc_count, 400000);
	/* the probed rendezvous message is ours; the wildcard gets the other */
	rc_p2p_irecv(c0, c0->ctx, &got, 1, &rc_mpi_int, MPI_ANY_SOURCE,
		     MPI_ANY_TAG, &r);
	tw_wait(tw, r);
	ck_assert_int_eq(got, 42);
	ck_assert_int_eq(r->status.MPI_SOURCE, 2);
	rc_req_finish(&r, MPI_STATUS_IGNORE);
	r = rc_req_alloc(tw->inst[0], RC_REQ_RECV);
	rc_p2p_req_setup(r, c0, c0->ctx, rbig, 100000, &rc_mpi_int,
			 MPI_ANY_SOURCE, MPI_ANY_TAG, RC_SEND_STD);
	rc_p2p_mrecv_start(r, msg);
	tw_wait(tw, r);
	tw_wait(tw, s1);
	ck_assert_int_eq(rbig[99999], 77);
	rc_req_finish(&r, MPI_STATUS_IGNORE);
	rc_req_finish(&s1, MPI_STATUS_IGNORE);
	tw_wait(tw, s2);
	rc_req_finish(&s2, MPI_STATUS_IGNORE);
	free(big);
	free(rbig);
	tw_free(tw);
}
END_TEST

/* Messages to oneself, through the same engine. */
START_TEST(self_messages)
{
	struct tw *tw = world_for(_i, 1);
	struct rc_comm *c = tw->inst[0]->world;
	int s, i;

	for (s = 0; s < NSIZES; s++) {
		int n = sizes[s];
		int *a = malloc(sizeof(int) * (n + 1)), *b = malloc(sizeof(int) * (n + 1));
		struct rc_req *sr, *rr;

		for (i = 0; i < n; i++)
			a[i] = pattern(i, s);
		rc_p2p_isend(c, c->ctx, a, (size_t)n, &rc_mpi_int, 0, s,
			     RC_SEND_SYNC, &sr);
		rc_p2p_irecv(c, c->ctx, b, (size_t)n, &rc_mpi_int, 0, s, &rr);
		tw_wait(tw, rr);
		tw_wait(tw, sr);
		ck_assert_int_eq(first_bad(b, n, 1, 0, s, false, 0), -1);
		rc_req_finish(&sr, MPI_STATUS_IGNORE);
		rc_req_finish(&rr, MPI_STATUS_IGNORE);
		free(a);
		free(b);
	}
	tw_free(tw);
}
END_TEST

/* Persistent requests restart with fresh data each time. */
START_TEST(persistent)
{
	struct tw *tw = world_for(_i, 2);
	struct rc_comm *c0 = tw->inst[0]->world, *c1 = tw->inst[1]->world;
	int *a = malloc(sizeof(int) * 5000), *b = malloc(sizeof(int) * 5000);
	struct rc_req *s = rc_req_alloc(tw->inst[0], RC_REQ_SEND);
	struct rc_req *r = rc_req_alloc(tw->inst[1], RC_REQ_RECV);
	int round, i;

	rc_p2p_req_setup(s, c0, c0->ctx, a, 5000, &rc_mpi_int, 1, 1,
			 RC_SEND_STD);
	rc_p2p_req_setup(r, c1, c1->ctx, b, 5000, &rc_mpi_int, 0, 1,
			 RC_SEND_STD);
	s->flags |= RC_REQ_PERSISTENT;
	r->flags |= RC_REQ_PERSISTENT;
	for (round = 0; round < 5; round++) {
		for (i = 0; i < 5000; i++)
			a[i] = pattern(i, round);
		rc_p2p_start(r);
		rc_p2p_start(s);
		tw_wait(tw, s);
		tw_wait(tw, r);
		ck_assert_int_eq(first_bad(b, 5000, 1, 0, round, false, 0), -1);
		rc_req_finish(&s, MPI_STATUS_IGNORE);
		rc_req_finish(&r, MPI_STATUS_IGNORE);
		ck_assert_ptr_nonnull(s);
		ck_assert_int_eq(s->state, RC_REQ_INACTIVE);
	}
	rc_req_free(s);
	rc_req_free(r);
	free(a);
	free(b);
	tw_free(tw);
}
END_TEST

/* Two ranks flood each other through tiny queues: no loss, no deadlock. */
START_TEST(flood_both_ways)
{
	struct tw *tw = tw_new(2);
	enum { N = 2000 };
	struct rc_req **s[2], **r[2];
	int *out[2], *in[2];
	int p, i;

	tw->fab->max_queued = 4;
	tw_open(tw);
	for (p = 0; p < 2; p++) {
		struct rc_comm *c = tw->inst[p]->world;

		s[p] = calloc(N, sizeof(**s));
		r[p] = calloc(N, sizeof(**r));
		out[p] = malloc(sizeof(int) * N);
		in[p] = malloc(sizeof(int) * N);
		for (i = 0; i < N; i++) {
			out[p][i] = p * N + i;
			rc_p2p_isend(c, c->ctx, &out[p][i], 1, &rc_mpi_int,
				     1 - p, 0, RC_SEND_STD, &s[p][i]);
		}
	}
	for (p = 0; p < 2; p++) {
		struct rc_comm *c = tw->inst[p]->world;

		for (i = 0; i < N; i++)
			rc_p2p_irecv(c, c->ctx, &in[p][i], 1, &rc_mpi_int,
				     1 - p, 0, &r[p][i]);
	}
	for (p = 0; p < 2; p++) {
		tw_wait_all(tw, r[p], N);
		tw_wait_all(tw, s[p], N);
		for (i = 0; i < N; i++) {
			ck_assert_int_eq(in[p][i], (1 - p) * N + i);
			rc_req_finish(&r[p][i], MPI_STATUS_IGNORE);
			rc_req_finish(&s[p][i], MPI_STATUS_IGNORE);
		}
		free(s[p]);
		free(r[p]);
		free(out[p]);
		free(in[p]);
	}
	tw_free(tw);
}
END_TEST

/* A request freed by the user while active is released on completion and
 * its send still reaches the receiver (what MPI_Finalize relies on). */
START_TEST(user_freed_send)
{
	struct tw *tw = world_for(_i, 2);
	struct rc_comm *c0 = tw->inst[0]->world, *c1 = tw->inst[1]->world;
	int *a = malloc(sizeof(int) * 100000), *b = malloc(sizeof(int) * 100000);
	struct rc_req *s, *r;
	int i;

	for (i = 0; i < 100000; i++)
		a[i] = i;
	rc_p2p_isend(c0, c0->ctx, a, 100000, &rc_mpi_int, 1, 0, RC_SEND_STD,
		     &s);
	s->flags |= RC_REQ_USER_FREED;
	tw_quiesce(tw);
	rc_p2p_irecv(c1, c1->ctx, b, 100000, &rc_mpi_int, 0, 0, &r);
	tw_wait(tw, r);
	ck_assert_int_eq(memcmp(a, b, sizeof(int) * 100000), 0);
	rc_req_finish(&r, MPI_STATUS_IGNORE);
	ck_assert_int_eq(rc_p2p_drain(tw->inst[0]), RC_OK);
	free(a);
	free(b);
	tw_free(tw);
}
END_TEST

/* A peer dies: everything that waits on it fails with RC_ERR_PEER (the
 * API's MPI_ERR_PROC_FAILED) instead of hanging, new operations naming it
 * fail at once, and the survivors still talk to each other. */
START_TEST(peer_failure)
{
	struct tw *tw = world_for(_i, 3);
	struct rc_comm *c0 = tw->inst[0]->world, *c1 = tw->inst[1]->world;
	int *big = calloc(100000, sizeof(int)), small = 3, a = 0, b = 0, v = 9;
	struct rc_req *s_rndv, *s_sync, *r_spec, *r_any, *r_ok, *s_ok, *x;
	struct rc_req *waiting[4];
	int i;

	rc_p2p_isend(c0, c0->ctx, big, 100000, &rc_mpi_int, 2, 1, RC_SEND_STD,
		     &s_rndv);
	rc_p2p_isend(c0, c0->ctx, &small, 1, &rc_mpi_int, 2, 2, RC_SEND_SYNC,
		     &s_sync);
	rc_p2p_irecv(c1, c1->ctx, &a, 1, &rc_mpi_int, 2, MPI_ANY_TAG, &r_spec);
	rc_p2p_irecv(c1, c1->ctx, &b, 1, &rc_mpi_int, MPI_ANY_SOURCE, 77,
		     &r_any);
	rc_p2p_irecv(c1, c1->ctx, &v, 1, &rc_mpi_int, 0, 5, &r_ok);
	tw_quiesce(tw);
	waiting[0] = s_rndv;
	waiting[1] = s_sync;
	waiting[2] = r_spec;
	waiting[3] = r_any;
	for (i = 0; i < 4; i++)
		ck_assert(!rc_req_done(waiting[i]));
	tw_kill(tw, 2);
	for (i = 0; i < 4; i++) {
		tw_wait(tw, waiting[i]);
		ck_assert_int_eq(waiting[i]->err, RC_ERR_PEER);
		ck_assert_int_eq(rc_req_finish(&waiting[i], MPI_STATUS_IGNORE),
				 RC_ERR_PEER);
	}
	ck_assert(!rc_req_done(r_ok));
	/* new operations naming the dead rank fail at once */
	rc_p2p_isend(c0, c0->ctx, &small, 1, &rc_mpi_int, 2, 3, RC_SEND_STD, &x);
	tw_progress(tw);
	ck_assert(rc_req_done(x));
	ck_assert_int_eq(x->err, RC_ERR_PEER);
	rc_req_finish(&x, MPI_STATUS_IGNORE);
	rc_p2p_irecv(c1, c1->ctx, &a, 1, &rc_mpi_int, 2, 3, &x);
	ck_assert(rc_req_done(x));
	ck_assert_int_eq(x->status.MPI_ERROR, MPI_ERR_PROC_FAILED);
	rc_req_finish(&x, MPI_STATUS_IGNORE);
	/* the survivors still talk */
	small = 1234;
	rc_p2p_isend(c0, c0->ctx, &small, 1, &rc_mpi_int, 1, 5, RC_SEND_STD,
		     &s_ok);
	tw_wait(tw, r_ok);
	tw_wait(tw, s_ok);
	ck_assert_int_eq(r_ok->err, RC_OK);
	ck_assert_int_eq(v, 1234);
	rc_req_finish(&r_ok, MPI_STATUS_IGNORE);
	rc_req_finish(&s_ok, MPI_STATUS_IGNORE);
	ck_assert_int_eq(rc_p2p_drain(tw->inst[0]), RC_OK);
	free(big);
	tw_free(tw);
}
END_TEST

/* A peer dies while a rendezvous is moving data by get or put in chunks:
 * the surviving side's request fails exactly once (a second completion
 * would trip the request state machine's assertion). */
START_TEST(peer_failure_mid_rendezvous)
{
	struct tw *tw = tw_new(2);
	int *a = calloc(1 << 20, sizeof(int)), *b = calloc(1 << 20, sizeof(int));
	int victim = _i & 1, round;
	struct rc_req *s, *r, *survivor;

	setenv("RCMPI_RNDV_MODE", (_i & 2) ? "put" : "get", 1);
	tw->fab->rdma_chunk = 8192;
	tw->fab->max_rdma = 2;
	tw_open(tw);
	rc_p2p_isend(tw->inst[0]->world, tw->inst[0]->world->ctx, a, 1 << 20,
		     &rc_mpi_int, 1, 0, RC_SEND_STD, &s);
	rc_p2p_irecv(tw->inst[1]->world, tw->inst[1]->world->ctx, b, 1 << 20,
		     &rc_mpi_int, 0, 0, &r);
	for (round = 0; round < 20; round++)
		tw_progress(tw);
	ck_assert(!rc_req_done(s) && !rc_req_done(r));
	survivor = victim ? s : r;
	tw_kill(tw, victim);
	tw_wait(tw, survivor);
	ck_assert_int_eq(survivor->err, RC_ERR_PEER);
	tw_quiesce(tw);
	rc_req_finish(&survivor, MPI_STATUS_IGNORE);
	free(a);
	free(b);
	tw_free(tw);
}
END_TEST


/* ---- active messages of upper layers --------------------------------------------
 * Rank 0 mixes single active messages, streams of several parts and eager
 * point-to-point messages to rank 1; every one carries the next number of
 * one sequence, and rank 1 logs the numbers in the order its handler and
 * its receive callbacks see them: the log must be 0, 1, 2, ... whatever
 * the fabric refuses along the way.
 */
#define AM_N 300
static int am_log[4 * AM_N];
static int am_nlog, am_failed_rank = -1, am_drops;

static void am_recv(struct rc_inst *inst, int wsrc, const void *msg,
		    size_t len)
{
	int v;

	ck_assert_uint_ge(len, sizeof(v));
	memcpy(&v, msg, sizeof(v));
	am_log[am_nlog++] = v;
	/* the payload follows the header unchanged */
	if (len > sizeof(v))
		ck_assert_int_eq(((const unsigned char *)msg)[len - 1],
				 (unsigned char)v);
}

static void am_failed(struct rc_inst *inst, int w, int status)
{
	am_failed_rank = w;
}

static const struct rc_am_ops am_test_ops = {
	.recv = am_recv,
	.failed = am_failed,
};

struct am_stream {
	struct rc_am_stream st;
	struct rc_inst *inst;
	int first, n, sent;	/* numbers first .. first + n - 1 */
	bool done;
};

static int am_stream_push(struct rc_am_stream *st)
{
	struct am_stream *a = (struct am_stream *)st;
	unsigned char pay[100];
	int ret;

	while (a->sent < a->n) {
		int v = a->first + a->sent;

		memset(pay, v, sizeof(pay));
		ret = rc_am_send_now(a->inst, st->wrank, RC_AM_RMA, &v,
				     sizeof(v), pay, sizeof(pay));
		if (ret)
			return ret;
		a->sent++;
	}
	a->done = true;
	return RC_OK;
}

static void am_stream_drop(struct rc_am_stream *st, int status)
{
	am_drops++;
	((struct am_stream *)st)->done = true;
}

static void am_log_recv(struct rc_req *req)
{
	am_log[am_nlog++] = *(int *)req->buf;
}

START_TEST(am_order)
{
	struct tw *tw = world_for(_i, 2);
	struct rc_comm *c0 = tw->inst[0]->world, *c1 = tw->inst[1]->world;
	struct am_stream st[AM_N];
	struct rc_req *rr[AM_N], *sr[AM_N];
	int vals[AM_N], rv[AM_N];
	int seq = 0, nst = 0, nr = 0, i, k;
	unsigned char pay[3000];

	am_nlog = 0;
	rc_am_register(tw->inst[1], RC_AM_RMA, &am_test_ops);
	ck_assert_uint_ge(rc_am_max(tw->inst[0], 1), 2048);
	ck_assert_uint_ge(rc_am_max(tw->inst[0], 1), rc_am_frag(tw->inst[0], 1));
	for (i = 0; seq < 2 * AM_N && nst < AM_N && nr < AM_N; i++) {
		switch (i % 3) {
		case 0:		/* one message, header and payload */
			memset(pay, seq, sizeof(pay));
			k = i % 2 ? 100 : 2000;
			ck_assert_int_eq(rc_am_send(tw->inst[0], 1, RC_AM_RMA,
						    &seq, sizeof(seq), pay, k),
					 RC_OK);
			seq++;
			break;
		case 1:		/* a stream of a few parts */
			st[nst].st.push = am_stream_push;
			st[nst].st.drop = am_stream_drop;
			st[nst].st.wrank = 1;
			st[nst].inst = tw->inst[0];
			st[nst].first = seq;
			st[nst].n = 1 + i % 4;
			st[nst].sent = 0;
			st[nst].done = false;
			seq += st[nst].n;
			rc_am_stream_start(tw->inst[0], &st[nst].st);
			nst++;
			break;
		case 2:		/* a pt2pt message, logged on arrival */
			rc_p2p_irecv(c1, c1->ctx, &rv[nr], 1, &rc_mpi_int, 0,
				     7, &rr[nr]);
			rr[nr]->cb = am_log_recv;
			vals[nr] = seq++;
			rc_p2p_isend(c0, c0->ctx, &vals[nr], 1, &rc_mpi_int, 1,
				     7, RC_SEND_STD, &sr[nr]);
			nr++;
			break;
		}
		if (i % 5 == 0)
			tw_progress(tw);
	}
	tw_wait_all(tw, sr, nr);
	tw_wait_all(tw, rr, nr);
	tw_quiesce(tw);
	for (i = 0; i < nst; i++)
		ck_assert(st[i].done);
	ck_assert_int_eq(am_nlog, seq);
	for (i = 0; i < seq; i++)
		if (am_log[i] != i)
			ck_abort_msg("message %d arrived %dth", am_log[i], i);
	for (i = 0; i < nr; i++) {
		rc_req_finish(&sr[i], MPI_STATUS_IGNORE);
		rc_req_finish(&rr[i], MPI_STATUS_IGNORE);
	}
	tw_free(tw);
}
END_TEST

/* A peer dies with streams queued for it: they are dropped, not pushed,
 * the upper layer hears of the failure, and sends to it fail. */
START_TEST(am_peer_failure)
{
	struct tw *tw = tw_new(3);
	struct am_stream st[8];
	int i, v = 1;

	tw->fab->max_queued = 1;
	tw_open(tw);
	am_drops = 0;
	am_failed_rank = -1;
	rc_am_register(tw->inst[0], RC_AM_RMA, &am_test_ops);
	for (i = 0; i < 8; i++) {
		st[i].st.push = am_stream_push;
		st[i].st.drop = am_stream_drop;
		st[i].st.wrank = 2;
		st[i].inst = tw->inst[0];
		st[i].first = 10 * i;
		st[i].n = 3;
		st[i].sent = 0;
		st[i].done = false;
		rc_am_stream_start(tw->inst[0], &st[i].st);
	}
	ck_assert(!st[7].done);
	tw_kill(tw, 2);
	tw_quiesce(tw);
	ck_assert_int_eq(am_failed_rank, 2);
	ck_assert_int_gt(am_drops, 0);
	for (i = 0; i < 8; i++)
		ck_assert(st[i].done);
	ck_assert_int_eq(rc_am_send(tw->inst[0], 2, RC_AM_RMA, &v, sizeof(v),
				    NULL, 0), RC_ERR_PEER);
	tw_free(tw);
}
END_TEST

/* RCMPI_SHM_EAGER_LIMIT=auto: the crossover of two copies against one CMA
 * call, between the floor and the cap. */
START_TEST(shm_eager_model)
{
	/* 1 us a call, CMA 0.1 ns/B, copies 0.1 ns/B: two copies cost
	 * 0.1 ns/B more, even at 1 us / 0.1 ns/B = 10000 bytes */
	ck_assert_uint_eq(rc_shm_eager_model(1000, 0.1, 0.1, 131008), 10000);
	/* a CMA byte dearer than two copied ones: eager up to the cap */
	ck_assert_uint_eq(rc_shm_eager_model(3000, 0.05, 0.01, 131008), 131008);
	ck_assert_uint_eq(rc_shm_eager_model(3000, 0.02, 0.01, 131008), 131008);
	/* a crossover past the cap: the cap */
	ck_assert_uint_eq(rc_shm_eager_model(100000, 0.1, 0.1, 131008), 131008);
	/* cheap CMA: never below the floor */
	ck_assert_uint_eq(rc_shm_eager_model(100, 0.1, 0.1, 131008),
			  RC_SHM_EAGER_FLOOR);
	/* a ring so small that half of it is below the floor */
	ck_assert_uint_eq(rc_shm_eager_model(1000, 0.1, 0.1, 1000), 1000);
}
END_TEST

/* A wait spins while messages come, and yields the CPU only after
 * yield_after empty polls in a row, at each further one; an event starts
 * the count again; yield_after 0 never yields. */
START_TEST(idle_yields_after)
{
	struct tw *tw = world_for(0, 2);
	struct rc_inst *i0 = tw->inst[0];
	struct rc_comm *c0 = i0->world, *c1 = tw->inst[1]->world;
	struct rc_req *s, *r;
	int a = 1, got = 0, k;

	tw_quiesce(tw);
	i0->oversubscribed = false;
	i0->yield_after = 4;
	i0->idle = 0;
	test_nyield = 0;
	for (k = 0; k < 3; k++) {
		ck_assert_uint_eq(rc_progress(i0), 0);
		rc_progress_idle(i0);
	}
	ck_assert_uint_eq(test_nyield, 0);
	for (k = 0; k < 2; k++) {
		ck_assert_uint_eq(rc_progress(i0), 0);
		rc_progress_idle(i0);
	}
	ck_assert_uint_eq(test_nyield, 2);
	/* a message from rank 1: an event, the count starts again */
	rc_p2p_irecv(c0, c0->ctx, &got, 1, &rc_mpi_int, 1, 3, &r);
	rc_p2p_isend(c1, c1->ctx, &a, 1, &rc_mpi_int, 0, 3, RC_SEND_STD, &s);
	tw_progress(tw);
	tw_wait(tw, r);
	ck_assert_int_eq(got, 1);
	tw_wait(tw, s);
	rc_req_finish(&r, MPI_STATUS_IGNORE);
	rc_req_finish(&s, MPI_STATUS_IGNORE);
	ck_assert_uint_lt(i0->idle, 4);
	test_nyield = 0;
	while (i0->idle < 3) {
		ck_assert_uint_eq(rc_progress(i0), 0);
		rc_progress_idle(i0);
	}
	ck_assert_uint_eq(test_nyield, 0);
	/* 0: never */
	i0->yield_after = 0;
	for (k = 0; k < 100; k++) {
		rc_progress(i0);
		rc_progress_idle(i0);
	}
	ck_assert_uint_eq(test_nyield, 0);
	tw_free(tw);
}
END_TEST

/* MPI_Iprobe and MPI_Improbe that find nothing yield on an oversubscribed
 * node (a program polls with them: test_greq checks MPI_Test's kin); one
 * that finds a message does not. */
START_TEST(empty_iprobe_yields)
{
	struct tw *tw = world_for(0, 2);
	struct rc_inst *i0 = tw->inst[0];
	struct rc_comm *c0 = i0->world, *c1 = tw->inst[1]->world;
	MPI_Message m;
	MPI_Status st;
	struct rc_req *s;
	int a = 5, got = 0, flag = -1;

	rc_g.initialized = true; /* the MPI functions' init check */
	tw_quiesce(tw);
	i0->oversubscribed = true;
	i0->yield_after = 0;
	test_nyield = 0;
	ck_assert_int_eq(MPI_Iprobe(1, 4, c0, &flag, MPI_STATUS_IGNORE),
			 MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(MPI_Improbe(MPI_ANY_SOURCE, 4, c0, &flag, &m,
				     MPI_STATUS_IGNORE),
			 MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_uint_eq(test_nyield, 2);
	i0->oversubscribed = false;
	ck_assert_int_eq(MPI_Iprobe(1, 4, c0, &flag, MPI_STATUS_IGNORE),
			 MPI_SUCCESS);
	ck_assert_uint_eq(test_nyield, 2);
	/* a message is there: found, no yield */
	i0->oversubscribed = true;
	rc_p2p_isend(c1, c1->ctx, &a, 1, &rc_mpi_int, 0, 4, RC_SEND_STD, &s);
	tw_progress(tw);
	test_nyield = 0;
	ck_assert_int_eq(MPI_Iprobe(1, 4, c0, &flag, &st), MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(st.MPI_TAG, 4);
	ck_assert_uint_eq(test_nyield, 0);
	ck_assert_int_eq(
		MPI_Recv(&got, 1, MPI_INT, 1, 4, c0, MPI_STATUS_IGNORE),
		MPI_SUCCESS);
	ck_assert_int_eq(got, 5);
	tw_wait(tw, s);
	rc_req_finish(&s, MPI_STATUS_IGNORE);
	rc_g.initialized = false;
	tw_free(tw);
}
END_TEST

/* A blocking wait spins (inst->spin, up to spin_polls looks) after each
 * empty progress call: a request its third look completes is done after
 * one progress call, and one spin is one call to inst->spin; a spin with
 * nothing to look at (RC_SPIN_NONE) falls back to polling, and the wait
 * asks no more; spin_polls 0 never spins. */
static struct rc_req *spin_req;
static unsigned spin_looks, spin_done_at, spin_nones, spin_polls_left;
static unsigned spin_calls;

static unsigned fake_spin(struct rc_inst *inst, struct rc_req *req,
			  unsigned looks)
{
	ck_assert_ptr_eq(req, spin_req);
	ck_assert_uint_eq(looks, inst->spin_polls);
	spin_calls++;
	if (!spin_done_at) {
		spin_nones++;
		return RC_SPIN_NONE;
	}
	while (looks--)
		if (++spin_looks == spin_done_at) {
			req->state = RC_REQ_ACTIVE;
			rc_req_complete(req);
			return 1;
		}
	return 0;
}

/* a progress hook that completes spin_req at its spin_polls_left'th call */
static unsigned spin_hook(struct rc_inst *inst, void *arg)
{
	if (!spin_polls_left || --spin_polls_left)
		return 0;
	spin_req->state = RC_REQ_ACTIVE;
	rc_req_complete(spin_req);
	return 1;
}

START_TEST(wait_spins)
{
	struct tw *tw = world_for(0, 2);
	struct rc_inst *i0 = tw->inst[0];
	struct rc_req req;

	tw_quiesce(tw);
	i0->oversubscribed = false;
	i0->yield_after = 0;
	i0->spin = fake_spin;
	i0->spin_polls = 8;
	spin_req = &req;
	/* done by the third look, in the first spin */
	rc_req_init_stack(&req, i0, RC_REQ_RECV);
	req.state = RC_REQ_ACTIVE;
	spin_looks = 0;
	spin_calls = 0;
	spin_done_at = 3;
	rc_req_wait_done(&req);
	ck_assert_int_eq(req.state, RC_REQ_DONE);
	ck_assert_uint_eq(spin_looks, 3);
	ck_assert_uint_eq(spin_calls, 1); /* one call makes a spin's looks */
	/* the twentieth: two empty spins of 8 looks, then 4 */
	rc_req_init_stack(&req, i0, RC_REQ_RECV);
	req.state = RC_REQ_ACTIVE;
	spin_looks = 0;
	spin_calls = 0;
	spin_done_at = 20;
	i0->idle = 0;
	rc_req_wait_done(&req);
	ck_assert_uint_eq(spin_looks, 20);
	ck_assert_uint_eq(spin_calls, 3);
	ck_assert_uint_eq(i0->idle, 0); /* an event ends the count */
	/* spin_polls 0: no look (the request is completed here instead) */
	i0->spin_polls = 0;
	rc_req_init_stack(&req, i0, RC_REQ_RECV);
	req.state = RC_REQ_ACTIVE;
	spin_looks = 0;
	spin_calls = 0;
	ck_assert_uint_eq(rc_progress_spin(i0, &req), 0);
	ck_assert_uint_eq(spin_looks, 0);
	ck_assert_uint_eq(spin_calls, 0);
	/* nothing to look at: RC_SPIN_NONE from one call, no idle counted */
	i0->spin_polls = 8;
	spin_done_at = 0;
	spin_nones = 0;
	i0->idle = 5;
	ck_assert_uint_eq(rc_progress_spin(i0, &req), RC_SPIN_NONE);
	ck_assert_uint_eq(spin_nones, 1);
	ck_assert_uint_eq(i0->idle, 5);
	/* a wait told so asks once: its 50 progress calls see no more spin */
	ck_assert_int_eq(rc_progress_register(i0, spin_hook, NULL), RC_OK);
	spin_nones = 0;
	spin_polls_left = 50;
	rc_req_wait_done(&req);
	ck_assert_int_eq(req.state, RC_REQ_DONE);
	ck_assert_uint_eq(spin_polls_left, 0);
	ck_assert_uint_eq(spin_nones, 1);
	rc_req_init_stack(&req, i0, RC_REQ_RECV);
	req.state = RC_REQ_ACTIVE;
	/* an empty spin of 32 looks counts as 8 more idle polls */
	i0->idle = 5;
	i0->spin_polls = 32;
	spin_done_at = 1000;
	spin_looks = 0;
	ck_assert_uint_eq(rc_progress_spin(i0, &req), 0);
	ck_assert_uint_eq(spin_looks, 32);
	ck_assert_uint_eq(i0->idle, 13);
	req.state = RC_REQ_DONE;
	i0->spin = NULL;
	i0->spin_polls = 0;
	i0->nhooks--; /* spin_hook, the last registered */
	tw_free(tw);
}
END_TEST

/*
 * Receives posted outside the critical section (rc_p2p_post_outside, at
 * MULTIPLE): PO_THREADS threads of rank 1 each post PO_PER receives of
 * mixed sizes (every protocol) for rank 0's messages on a tag of their
 * own, onto the engine's lock-free stack, while the thread holding the
 * section sends those messages and drives progress, which queues and
 * matches them. Each thread finishes its receives outside, in order
 * (rc_req_finish_outside: retired, reaped by progress), and each must
 * hold the next message of its tag. The first PO_EARLY receives of every
 * thread are posted before any message is sent; the next PO_LATE once
 * their messages wait, unexpected, and nothing else comes (progress must
 * find them); the rest race with the messages. A receive for a tag nobody
 * sends, posted outside, is cancelled in the section.
 */
enum { PO_THREADS = 3, PO_PER = 48, PO_EARLY = 6, PO_LATE = 9 };

struct po_arg {
	struct tw *tw;
	int t;
	int posted; /* receives posted (atomic) */
	int done;   /* finished (atomic) */
};

static int po_late_ready; /* PO_LATE messages wait (atomic) */

/* Wait (a minute at most) for request i (what: "receive", "send") of
 * thread t to be done. */
static bool thread_wait(int t, const char *what, struct rc_req *r, int i)
{
	time_t limit = time(NULL) + 60;

	while (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != RC_REQ_DONE) {
		if (time(NULL) > limit || tw_verdict[0])
			return tw_note_fail("thread %d %s %d: never completed",
					    t, what, i);
		sched_yield();
	}
	return true;
}

static void *po_thread(void *arg)
{
	struct po_arg *a = arg;
	struct rc_comm *c1 = a->tw->inst[1]->world;
	struct rc_req *rq[PO_PER], *never;
	int *buf[PO_PER], i, k, zero = 0;

	for (i = 0; i < PO_PER; i++) {
		buf[i] = tw_xmalloc(sizeof(int) * 262146);
		while (i == PO_EARLY &&
		       !__atomic_load_n(&po_late_ready, __ATOMIC_ACQUIRE))
			sched_yield();
		/* the late ones done before any other post or cancel: only
		 * progress can have queued them */
		for (k = 0; i == PO_EARLY + PO_LATE && k < i; k++)
			if (!thread_wait(a->t, "receive", rq[k], k))
				return NULL;
		/* every one outside (only MPI_PROC_NULL comes inside) */
		if (rc_p2p_irecv_outside(c1, buf[i], 262146, &rc_mpi_int, 0,
					 a->t, &rq[i]) != RC_OK) {
			tw_note_fail("thread %d: post %d not outside", a->t, i);
			return NULL;
		}
		__atomic_store_n(&a->posted, i + 1, __ATOMIC_RELEASE);
	}
	/* a receive nobody sends to, cancelled in the section */
	if (rc_p2p_irecv_outside(c1, &zero, 1, &rc_mpi_int, 0, 999 + a->t,
				 &never) != RC_OK) {
		tw_note_fail("thread %d: the cancelled receive not outside",
			     a->t);
		return NULL;
	}
	rc_cs_lock(&rc_cs_big);
	rc_p2p_cancel(never);
	rc_cs_unlock(&rc_cs_big);
	if (!rc_req_done(never) || !never->status.rc_cancelled)
		tw_note_fail("thread %d: cancel did not complete", a->t);
	rc_req_finish_outside(&never, MPI_STATUS_IGNORE, NULL);
	for (i = 0; i < PO_PER; i++) {
		int n = sizes[i % NSIZES];
		MPI_Status st;

		if (!thread_wait(a->t, "receive", rq[i], i))
			return NULL;
		if (rq[i]->err != RC_OK) {
			tw_note_fail("thread %d receive %d: error %d", a->t, i,
				     rq[i]->err);
			return NULL;
		}
		rc_req_finish_outside(&rq[i], &st, NULL);
		if (st.MPI_TAG != a->t || st.MPI_SOURCE != 0 ||
		    st.rc_count != (MPI_Count)n * (int)sizeof(int))
			tw_note_fail("thread %d receive %d: tag %d source %d "
				     "count %lld",
				     a->t, i, st.MPI_TAG, st.MPI_SOURCE,
				     (long long)st.rc_count);
		for (k = 0; k < n; k++)
			if (buf[i][k] != pattern(k, a->t * 1000 + i)) {
				tw_note_fail("thread %d receive %d: int %d",
					     a->t, i, k);
				break;
			}
		free(buf[i]);
		__atomic_store_n(&a->done, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

START_TEST(post_outside)
{
	struct tw *tw = world_for(_i, 2);
	struct rc_comm *c0 = tw->inst[0]->world;
	unsigned before = rc_hpool_nlive_scan(&tw->inst[1]->out_pool);
	struct po_arg a[PO_THREADS];
	pthread_t th[PO_THREADS];
	struct rc_req **sreq = calloc(PO_THREADS * PO_PER, sizeof(*sreq));
	int *sbuf[PO_THREADS][PO_PER];
	int sent[PO_THREADS] = {0}, nsent = 0, t, k;
	bool busy = true;

	tw_verdict[0] = 0;
	po_late_ready = 0;
	rc_thread_multiple = true;
	for (t = 0; t < PO_THREADS; t++) {
		a[t] = (struct po_arg){.tw = tw, .t = t};
		ck_assert_int_eq(pthread_create(&th[t], NULL, po_thread, &a[t]),
				 0);
	}
	for (t = 0; t < PO_THREADS; t++)
		while (__atomic_load_n(&a[t].posted, __ATOMIC_ACQUIRE) <
		       PO_EARLY)
			sched_yield();
	while (busy) {
		rc_cs_lock(&rc_cs_big);
		/* a few messages per turn, the tags in turn */
		for (k = 0; k < 2 && nsent < PO_THREADS * PO_PER &&
			    (po_late_ready ||
			     nsent < PO_THREADS * (PO_EARLY + PO_LATE));
		     k++) {
			int i, n;

			t = nsent % PO_THREADS;
			i = sent[t]++;
			n = sizes[i % NSIZES];
			sbuf[t][i] = tw_xmalloc(sizeof(int) * (n + 1));
			for (int j = 0; j < n; j++)
				sbuf[t][i][j] = pattern(j, t * 1000 + i);
			ck_assert_int_eq(rc_p2p_isend(c0, c0->ctx, sbuf[t][i],
						      (size_t)n, &rc_mpi_int, 1,
						      t, RC_SEND_STD,
						      &sreq[nsent]),
					 RC_OK);
			nsent++;
		}
		tw_progress(tw);
		rc_cs_unlock(&rc_cs_big);
		busy = nsent < PO_THREADS * PO_PER;
		for (t = 0; t < PO_THREADS; t++)
			busy |= __atomic_load_n(&a[t].done, __ATOMIC_ACQUIRE) <
				PO_PER;
		busy &= !tw_verdict[0];
		if (nsent == PO_THREADS * (PO_EARLY + PO_LATE) &&
		    !po_late_ready) {
			/* the next PO_LATE of each tag wait, unexpected */
			rc_cs_lock(&rc_cs_big);
			tw_quiesce(tw);
			rc_cs_unlock(&rc_cs_big);
			__atomic_store_n(&po_late_ready, 1, __ATOMIC_RELEASE);
		}
		sched_yield();
	}
	for (t = 0; t < PO_THREADS; t++)
		pthread_join(th[t], NULL);
	ck_assert_msg(!tw_verdict[0], "%s", tw_verdict);
	for (k = 0; k < nsent; k++) {
		tw_wait(tw, sreq[k]);
		rc_req_finish(&sreq[k], MPI_STATUS_IGNORE);
	}
	for (t = 0; t < PO_THREADS; t++)
		for (k = 0; k < sent[t]; k++)
			free(sbuf[t][k]);
	/* progress reaped what the threads retired */
	tw_progress(tw);
	rc_thread_multiple = false;
	ck_assert_ptr_null(tw->inst[1]->retired);
	ck_assert_uint_eq(rc_hpool_nlive_scan(&tw->inst[1]->out_pool), before);
	free(sreq);
	tw_free(tw);
}
END_TEST

/*
 * Sends handed to the section's holder (rc_p2p_isend_delegate, at
 * MULTIPLE: an MPI_Isend that found the section taken). First in one
 * thread, where the order is fixed: two sends handed over (a rendezvous,
 * then a synchronous eager one), then a send outside the section to the
 * same peer, which must wait for them (ndelegated), then one inside, which
 * starts them first; rank 1 must receive them in that order. Then
 * SD_THREADS threads of rank 0 each hand over SD_PER sends of mixed sizes
 * and modes on a tag of their own, every fourth posted inside instead,
 * while the thread holding the section drives progress and rank 1's
 * receives, posted first, check order and data; and a rendezvous send
 * that nobody receives, handed over, is cancelled in the section.
 */
enum { SD_THREADS = 3, SD_PER = 40 };

struct sd_arg {
	struct tw *tw;
	int t;
	int done; /* atomic */
};

static void *sd_thread(void *arg)
{
	struct sd_arg *a = arg;
	struct rc_comm *c0 = a->tw->inst[0]->world;
	struct rc_req *sq[SD_PER], *never;
	int *buf[SD_PER], *big = tw_xmalloc(sizeof(int) * 262145);
	int i, k, ret;

	for (i = 0; i < SD_PER; i++) {
		int n = sizes[i % NSIZES];
		enum rc_send_mode mode =
			i % 3 == 2 ? RC_SEND_SYNC : RC_SEND_STD;

		buf[i] = tw_xmalloc(sizeof(int) * (n + 1));
		for (k = 0; k < n; k++)
			buf[i][k] = pattern(k, a->t * 1000 + i);
		if (i % 4 == 3) {
			/* inside: after this thread's sends handed over */
			rc_cs_lock(&rc_cs_big);
			ret = rc_p2p_isend(c0, c0->ctx, buf[i], (size_t)n,
					   &rc_mpi_int, 1, a->t, mode, &sq[i]);
			rc_cs_unlock(&rc_cs_big);
		} else {
			ret = rc_p2p_isend_delegate(c0, buf[i], (size_t)n,
						    &rc_mpi_int, 1, a->t, mode,
						    &sq[i]);
		}
		if (ret != RC_OK) {
			tw_note_fail("thread %d send %d: %d", a->t, i, ret);
			return NULL;
		}
	}
	/* a rendezvous nobody receives, cancelled in the section */
	if (rc_p2p_isend_delegate(c0, big, 262145, &rc_mpi_int, 1, 999 + a->t,
				  RC_SEND_STD, &never) != RC_OK) {
		tw_note_fail("thread %d: the cancelled send not handed over",
			     a->t);
		return NULL;
	}
	rc_cs_lock(&rc_cs_big);
	rc_p2p_cancel(never);
	rc_cs_unlock(&rc_cs_big);
	if (!thread_wait(a->t, "send", never, -1))
		return NULL;
	if (!never->status.rc_cancelled)
		tw_note_fail("thread %d: the send was not cancelled", a->t);
	rc_req_finish_outside(&never, MPI_STATUS_IGNORE, NULL);
	for (i = 0; i < SD_PER; i++) {
		if (!thread_wait(a->t, "send", sq[i], i))
			return NULL;
		if (sq[i]->err != RC_OK) {
			tw_note_fail("thread %d send %d: error %d", a->t, i,
				     sq[i]->err);
			return NULL;
		}
		rc_req_finish_outside(&sq[i], MPI_STATUS_IGNORE, NULL);
		free(buf[i]);
	}
	free(big);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* One thread: handed over, held back outside, started before inside. */
static void sd_order(struct tw *tw, bool pressure)
{
	struct rc_comm *c0 = tw->inst[0]->world, *c1 = tw->inst[1]->world;
	struct rc_proc *to1 = &tw->inst[0]->procs[1];
	int *big = tw_xmalloc(sizeof(int) * 262145), *got;
	int v[4] = {11, 12, 13, 14}, r[4] = {0}, k, ret;
	struct rc_req *s[4], *rq[4];

	got = tw_xmalloc(sizeof(int) * 262145);
	for (k = 0; k < 262145; k++)
		big[k] = pattern(k, 77);
	ck_assert_int_eq(rc_p2p_isend_delegate(c0, big, 262145, &rc_mpi_int, 1,
					       7, RC_SEND_STD, &s[0]),
			 RC_OK);
	ck_assert_int_eq(rc_p2p_isend_delegate(c0, &v[1], 1, &rc_mpi_int, 1, 7,
					       RC_SEND_SYNC, &s[1]),
			 RC_OK);
	ck_assert_uint_eq(__atomic_load_n(&to1->ndelegated, __ATOMIC_RELAXED),
			  2);
	ck_assert_int_eq(s[0]->state, RC_REQ_ACTIVE);
	/* as if the peer's transport let senders run at once: held back */
	to1->send_mt = true;
	ck_assert_int_eq(rc_p2p_send_outside(c0, &v[0], 1, &rc_mpi_int, 1, 7),
			 RC_AGAIN);
	rc_cs_lock(&rc_cs_big);
	ck_assert_int_eq(rc_p2p_isend(c0, c0->ctx, &v[2], 1, &rc_mpi_int, 1, 7,
				      RC_SEND_STD, &s[2]),
			 RC_OK);
	rc_cs_unlock(&rc_cs_big);
	ck_assert_uint_eq(__atomic_load_n(&to1->ndelegated, __ATOMIC_RELAXED),
			  0);
	ret = rc_p2p_send_outside(c0, &v[3], 1, &rc_mpi_int, 1, 7);
	if (!pressure)
		ck_assert_int_eq(ret, RC_OK);
	to1->send_mt = false;
	s[3] = NULL;
	if (ret == RC_AGAIN) { /* a refusal of the fabric's */
		rc_cs_lock(&rc_cs_big);
		ret = rc_p2p_isend(c0, c0->ctx, &v[3], 1, &rc_mpi_int, 1, 7,
				   RC_SEND_STD, &s[3]);
		rc_cs_unlock(&rc_cs_big);
	}
	ck_assert_int_eq(ret, RC_OK);
	rc_cs_lock(&rc_cs_big);
	ck_assert_int_eq(rc_p2p_irecv(c1, c1->ctx, got, 262145, &rc_mpi_int, 0,
				      7, &rq[0]),
			 RC_OK);
	for (k = 1; k < 4; k++)
		ck_assert_int_eq(rc_p2p_irecv(c1, c1->ctx, &r[k], 1,
					      &rc_mpi_int, 0, 7, &rq[k]),
				 RC_OK);
	tw_wait_all(tw, rq, 4);
	tw_wait_all(tw, s, 3);
	ck_assert_int_eq(rq[0]->status.rc_count, 262145 * (int)sizeof(int));
	ck_assert_int_eq(first_bad(got, 262145, 1, 0, 77, false, 0), -1);
	ck_assert_msg(r[1] == 12 && r[2] == 13 && r[3] == 14, "order: %d %d %d",
		      r[1], r[2], r[3]);
	for (k = 0; k < 4; k++)
		rc_req_finish(&rq[k], MPI_STATUS_IGNORE);
	for (k = 0; k < 3; k++)
		rc_req_finish(&s[k], MPI_STATUS_IGNORE);
	if (s[3]) {
		tw_wait(tw, s[3]);
		rc_req_finish(&s[3], MPI_STATUS_IGNORE);
	}
	rc_cs_unlock(&rc_cs_big);
	free(big);
	free(got);
}

START_TEST(send_delegate)
{
	struct tw *tw = world_for(_i, 2);
	struct rc_comm *c1 = tw->inst[1]->world;
	unsigned before = rc_hpool_nlive_scan(&tw->inst[0]->out_pool);
	struct sd_arg a[SD_THREADS];
	pthread_t th[SD_THREADS];
	struct rc_req *rq[SD_THREADS][SD_PER];
	int *rbuf[SD_THREADS][SD_PER];
	int t, i;
	bool busy = true;

	tw_verdict[0] = 0;
	rc_thread_multiple = true;
	sd_order(tw, _i >= 3);
	rc_cs_lock(&rc_cs_big);
	for (t = 0; t < SD_THREADS; t++)
		for (i = 0; i < SD_PER; i++) {
			int n = sizes[i % NSIZES];

			rbuf[t][i] = tw_xmalloc(sizeof(int) * (n + 1));
			ck_assert_int_eq(rc_p2p_irecv(c1, c1->ctx, rbuf[t][i],
						      (size_t)n + 1,
						      &rc_mpi_int, 0, t,
						      &rq[t][i]),
					 RC_OK);
		}
	rc_cs_unlock(&rc_cs_big);
	for (t = 0; t < SD_THREADS; t++) {
		a[t] = (struct sd_arg){.tw = tw, .t = t};
		ck_assert_int_eq(pthread_create(&th[t], NULL, sd_thread, &a[t]),
				 0);
	}
	while (busy) {
		rc_cs_lock(&rc_cs_big);
		tw_progress(tw);
		rc_cs_unlock(&rc_cs_big);
		busy = false;
		for (t = 0; t < SD_THREADS; t++)
			busy |= !__atomic_load_n(&a[t].done, __ATOMIC_ACQUIRE);
		busy &= !tw_verdict[0];
		sched_yield();
	}
	for (t = 0; t < SD_THREADS; t++)
		pthread_join(th[t], NULL);
	ck_assert_msg(!tw_verdict[0], "%s", tw_verdict);
	rc_cs_lock(&rc_cs_big);
	for (t = 0; t < SD_THREADS; t++)
		for (i = 0; i < SD_PER; i++) {
			int n = sizes[i % NSIZES];
			struct rc_req *r = rq[t][i];

			tw_wait(tw, r);
			ck_assert_msg(
				r->err == RC_OK &&
					r->status.rc_count ==
						(MPI_Count)n * (int)sizeof(int),
				"tag %d receive %d: error %d count %lld", t, i,
				r->err, (long long)r->status.rc_count);
			ck_assert_int_eq(first_bad(rbuf[t][i], n, 1, 0,
						   t * 1000 + i, false, 0),
					 -1);
			rc_req_finish(&rq[t][i], MPI_STATUS_IGNORE);
			free(rbuf[t][i]);
		}
	/* progress reaped what the threads retired */
	tw_progress(tw);
	rc_cs_unlock(&rc_cs_big);
	rc_thread_multiple = false;
	ck_assert_ptr_null(tw->inst[0]->retired);
	ck_assert_uint_eq(rc_hpool_nlive_scan(&tw->inst[0]->out_pool), before);
	ck_assert_uint_eq(tw->inst[0]->procs[1].ndelegated, 0);
	tw_free(tw);
}
END_TEST

static Suite *p2p_suite(void)
{
	Suite *s = suite_create("pt2pt");
	/* loop index: rendezvous mode (get, put, frag) x pressure (3) */
#define CASE(fn, loops)                                            \
	do {                                                       \
		TCase *tc = tcase_create(#fn);                     \
		tcase_set_timeout(tc, 120);                        \
		if (loops)                                         \
			tcase_add_loop_test(tc, fn, 0, loops);     \
		else                                               \
			tcase_add_test(tc, fn);                    \
		suite_add_tcase(s, tc);                            \
	} while (0)
	CASE(protocol_matrix, 9);
	CASE(order_mixed_protocols, 9);
	CASE(any_source_per_sender_order, 9);
	CASE(tag_selects, 0);
	CASE(truncation, 9);
	CASE(probe_and_mrecv, 9);
	CASE(self_messages, 9);
	CASE(persistent, 9);
	CASE(flood_both_ways, 0);
	CASE(user_freed_send, 9);
	CASE(peer_failure, 9);
	CASE(peer_failure_mid_rendezvous, 4);
	CASE(am_order, 9);
	CASE(am_peer_failure, 0);
	CASE(shm_eager_model, 0);
	CASE(idle_yields_after, 0);
	CASE(empty_iprobe_yields, 0);
	CASE(wait_spins, 0);
	CASE(post_outside, 9);
	CASE(send_delegate, 9);
#undef CASE
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(p2p_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
