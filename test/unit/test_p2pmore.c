/*
 * test_p2pmore.c - buffered mode, MPI_Isendrecv(_replace) and send
 * cancellation over the in-process fabric (world.c), in each rendezvous
 * mode: the buffer pool under exhaustion (MPI_ERR_BUFFER, space reclaimed
 * as sends complete, detach after the last one, attach/detach cycles, the
 * MPI_Pack_size + MPI_BSEND_OVERHEAD guarantee), Ibsend and Bsend_init
 * requests, MPI_Isendrecv(_replace) with datatypes, MPI_PROC_NULL and
 * MPI_ANY_SOURCE, and MPI_Cancel of a send in each protocol state.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "comm.h"
#include "dtype.h"
#include "pt2pt.h"
#include "request.h"
#include "status.h"
#include "world.h"

static const char *const rndv_modes[] = {"get", "put", "frag"};

static struct tw *world_mode(int idx, int n, unsigned max_queued)
{
	struct tw *tw = tw_new(n);

	setenv("RCMPI_RNDV_MODE", rndv_modes[idx % 3], 1);
	tw->fab->max_queued = max_queued;
	tw_open(tw);
	return tw;
}

/* Rendezvous size on the fabric (eager limit 8 KiB). */
#define BIG 20000

static void fill(int *buf, int n, int seed)
{
	int i;

	for (i = 0; i < n; i++)
		buf[i] = i * 7 + seed;
}

/* First index where buf differs from fill(seed), or -1. */
static int bad(const int *buf, int n, int seed)
{
	int i;

	for (i = 0; i < n; i++)
		if (buf[i] != i * 7 + seed)
			return i;
	return -1;
}

static void recv_check(struct tw *tw, int n, int src, int tag, int seed)
{
	struct rc_comm *c1 = tw->inst[1]->world;
	int *got = calloc((size_t)n + 1, sizeof(int));
	struct rc_req *r;

	ck_assert_int_eq(rc_p2p_irecv(c1, c1->ctx, got, (size_t)n + 1,
				      &rc_mpi_int, src, tag, &r),
			 RC_OK);
	tw_wait(tw, r);
	ck_assert_int_eq(r->err, RC_OK);
	ck_assert_int_eq(r->status.rc_count, (MPI_Count)n * (int)sizeof(int));
	ck_assert_int_eq(bad(got, n, seed), -1);
	rc_req_finish(&r, MPI_STATUS_IGNORE);
	free(got);
}

/* ---- buffered mode ---------------------------------------------------------
 */

START_TEST(bsend_exhaustion)
{
	struct tw *tw = world_mode(_i, 2, 0);
	struct rc_inst *i0 = tw->inst[0];
	struct rc_comm *c0 = i0->world;
	size_t one = BIG * sizeof(int) + MPI_BSEND_OVERHEAD;
	char *pool = malloc(2 * one);
	int *msg = malloc(BIG * sizeof(int));
	void *got;
	size_t gotlen;

	/* no buffer attached */
	fill(msg, BIG, 1);
	ck_assert_int_eq(
		rc_bsend_post(c0, c0->ctx, msg, BIG, &rc_mpi_int, 1, 1),
		RC_ERR_BUFFER);
	ck_assert_int_eq(rc_bsend_attach(i0, pool, 2 * one), RC_OK);
	ck_assert_int_eq(
		rc_bsend_post(c0, c0->ctx, msg, BIG, &rc_mpi_int, 1, 1), RC_OK);
	fill(msg, BIG, 2); /* the first message was copied */
	ck_assert_int_eq(
		rc_bsend_post(c0, c0->ctx, msg, BIG, &rc_mpi_int, 1, 2), RC_OK);
	fill(msg, BIG, 3);
	/* full: both wait for their receiver */
	tw_quiesce(tw);
	ck_assert_int_eq(
		rc_bsend_post(c0, c0->ctx, msg, BIG, &rc_mpi_int, 1, 3),
		RC_ERR_BUFFER);
	ck_assert(rc_bsend_busy(i0));
	/* the first leaves: its space comes back */
	recv_check(tw, BIG, 0, 1, 1);
	tw_quiesce(tw);
	ck_assert_int_eq(
		rc_bsend_post(c0, c0->ctx, msg, BIG, &rc_mpi_int, 1, 3), RC_OK);
	recv_check(tw, BIG, 0, 3, 3);
	recv_check(tw, BIG, 0, 2, 2);
	tw_quiesce(tw);
	ck_assert(!rc_bsend_busy(i0));
	ck_assert_int_eq(rc_bsend_detach(i0, &got, &gotlen), RC_OK);
	ck_assert_ptr_eq(got, pool);
	ck_assert_uint_eq(gotlen, 2 * one);
	/* detached: no room again */
	ck_assert_int_eq(rc_bsend_post(c0, c0->ctx, msg, 1, &rc_mpi_int, 1, 4),
			 RC_ERR_BUFFER);
	free(msg);
	free(pool);
	tw_free(tw);
}
END_TEST

/* k messages of n elements of dt fit into k * (packed size +
 * MPI_BSEND_OVERHEAD) bytes, from an unaligned address, all in flight. */
START_TEST(bsend_overhead_suffices)
{
	static const int ns[] = {0, 1, 3, 2049, 5000, 33333};
	struct tw *tw = world_mode(_i, 2, 0);
	struct rc_inst *i0 = tw->inst[0];
	struct rc_comm *c0 = i0->world, *c1 = tw->inst[1]->world;
	struct rc_dtype *vec;
	int t, k;

	ck_assert_int_eq(rc_dt_create_vector(3, 1, 2, &rc_mpi_int, &vec),
			 RC_OK);
	rc_dt_commit(vec);
	for (t = 0; t < (int)(sizeof(ns) / sizeof(ns[0])); t++) {
		const int kmax = 5;
		size_t packed = (size_t)ns[t] * vec->size;
		size_t total = kmax * (packed + MPI_BSEND_OVERHEAD);
		char *pool = malloc(total + 1);
		int *src = malloc(((size_t)ns[t] * 6 + 1) * sizeof(int));
		int *got = malloc(((size_t)ns[t] * 3 + 1) * sizeof(int));
		void *b;
		size_t bl;
		int i;

		for (i = 0; i < ns[t] * 6; i++)
			src[i] = i;
		ck_assert_int_eq(rc_bsend_attach(i0, pool + 1, total), RC_OK);
		for (k = 0; k < kmax; k++)
			ck_assert_int_eq(rc_bsend_post(c0, c0->ctx, src,
						       (size_t)ns[t], vec, 1,
						       k),
					 RC_OK);
		for (k = 0; k < kmax; k++) {
			struct rc_req *r;
			int j, wrong = -1;

			rc_p2p_irecv(c1, c1->ctx, got, (size_t)ns[t] * 3,
				     &rc_mpi_int, 0, k, &r);
			tw_wait(tw, r);
			ck_assert_int_eq(r->err, RC_OK);
			/* element e of the vector (extent 5 ints) holds
			 * ints 5e, 5e + 2, 5e + 4 */
			for (j = 0; j < ns[t] * 3 && wrong < 0; j++)
				if (got[j] != (j / 3) * 5 + (j % 3) * 2)
					wrong = j;
			ck_assert_int_eq(wrong, -1);
			rc_req_finish(&r, MPI_STATUS_IGNORE);
		}
		tw_quiesce(tw);
		ck_assert_int_eq(rc_bsend_detach(i0, &b, &bl), RC_OK);
		ck_assert_ptr_eq(b, pool + 1);
		free(got);
		free(src);
		free(pool);
	}
	rc_dt_release(vec);
	tw_free(tw);
}
END_TEST

START_TEST(bsend_attach_detach_cycles)
{
	struct tw *tw = world_mode(0, 2, 0);
	struct rc_inst *i0 = tw->inst[0];
	struct rc_comm *c0 = i0->world;
	char a[512], b[4096];
	void *got;
	size_t len;
	int v = 5, cycle;

	/* nothing attached: detach gives nothing */
	ck_assert_int_eq(rc_bsend_detach(i0, &got, &len), RC_OK);
	ck_assert_ptr_null(got);
	ck_assert_uint_eq(len, 0);
	for (cycle = 0; cycle < 4; cycle++) {
		char *buf = cycle & 1 ? b : a;
		size_t size = cycle & 1 ? sizeof(b) : sizeof(a);

		ck_assert_int_eq(rc_bsend_attach(i0, buf, size), RC_OK);
		ck_assert_int_eq(rc_bsend_attach(i0, a, sizeof(a)),
				 RC_ERR_BUFFER);
		v = cycle;
		ck_assert_int_eq(rc_bsend_post(c0, c0->ctx, &v, 1, &rc_mpi_int,
					       1, cycle),
				 RC_OK);
		/* too large for this buffer */
		ck_assert_int_eq(rc_bsend_post(c0, c0->ctx, b, sizeof(b),
					       &rc_mpi_byte, 1, 99),
				 RC_ERR_BUFFER);
		recv_check(tw, 1, 0, cycle, cycle);
		ck_assert_int_eq(rc_bsend_detach(i0, &got, &len), RC_OK);
		ck_assert_ptr_eq(got, buf);
		ck_assert_uint_eq(len, size);
	}
	tw_free(tw);
}
END_TEST

/* Ibsend is complete on return; Bsend_init restarts with new data. */
START_TEST(ibsend_and_bsend_init)
{
	struct tw *tw = world_mode(_i, 2, 0);
	struct rc_inst *i0 = tw->inst[0];
	struct rc_comm *c0 = i0->world;
	size_t size = 2 * (BIG * sizeof(int) + MPI_BSEND_OVERHEAD);
	char *pool = malloc(size);
	int *msg = malloc(BIG * sizeof(int));
	struct rc_req *req, *p;
	void *got;
	size_t len;
	int round;

	ck_assert_int_eq(rc_bsend_attach(i0, pool, size), RC_OK);
	fill(msg, BIG, 10);
	ck_assert_int_eq(rc_p2p_isend(c0, c0->ctx, msg, BIG, &rc_mpi_int, 1, 10,
				      RC_SEND_BUFFERED, &req),
			 RC_OK);
	ck_assert(rc_req_done(req));
	/* cancel of a complete buffered send: not cancelled */
	rc_p2p_cancel(req);
	ck_assert_int_eq(rc_req_finish(&req, MPI_STATUS_IGNORE), RC_OK);
	fill(msg, BIG, 0);
	recv_check(tw, BIG, 0, 10, 10);

	p = rc_req_alloc(i0, RC_REQ_SEND);
	rc_p2p_req_setup(p, c0, c0->ctx, msg, BIG, &rc_mpi_int, 1, 20,
			 RC_SEND_BUFFERED);
	p->flags |= RC_REQ_PERSISTENT;
	for (round = 0; round < 3; round++) {
		if (round == 2) {
			/* two are held by their receiver: no room, and the
			 * request stays inactive; room once they have left */
			tw_quiesce(tw);
			ck_assert_int_eq(rc_p2p_start(p), RC_ERR_BUFFER);
			ck_assert_int_eq(p->state, RC_REQ_INACTIVE);
			recv_check(tw, BIG, 0, 20, 100);
			recv_check(tw, BIG, 0, 20, 101);
			tw_quiesce(tw);
		}
		fill(msg, BIG, 100 + round);
		ck_assert_int_eq(rc_p2p_start(p), RC_OK);
		ck_assert(rc_req_done(p));
		ck_assert_int_eq(rc_req_finish(&p, MPI_STATUS_IGNORE), RC_OK);
		ck_assert_int_eq(p->state, RC_REQ_INACTIVE);
	}
	recv_check(tw, BIG, 0, 20, 102);
	tw_quiesce(tw);
	ck_assert_int_eq(rc_bsend_detach(i0, &got, &len), RC_OK);
	rc_req_free(p);
	free(msg);
	free(pool);
	tw_free(tw);
}
END_TEST

/* ---- MPI_Isendrecv(_replace) --------------------------------------------- */

static void api_on(void)
{
	rc_g.initialized = true;
	rc_g.finalized = false;
}

/* A ring of 3: each rank sends n strided ints right and receives n
 * contiguous ints from the left (or from MPI_ANY_SOURCE). */
START_TEST(isendrecv_ring)
{
	struct tw *tw = world_mode(_i, 3, 0);
	const int n = _i >= 3 ? BIG : 100;
	int *sbuf[3], *rbuf[3], r, i;
	MPI_Request req[3];
	struct rc_dtype *vec;

	api_on();
	ck_assert_int_eq(
		rc_dt_create_vector((size_t)n, 1, 2, &rc_mpi_int, &vec), RC_OK);
	rc_dt_commit(vec);
	for (r = 0; r < 3; r++) {
		sbuf[r] = malloc(sizeof(int) * 2 * (size_t)n);
		rbuf[r] = calloc((size_t)n, sizeof(int));
		for (i = 0; i < n; i++)
			sbuf[r][2 * i] = i * 7 + r;
		ck_assert_int_eq(
			MPI_Isendrecv(sbuf[r], 1, vec, (r + 1) % 3, 5, rbuf[r],
				      n, MPI_INT,
				      r == 1 ? MPI_ANY_SOURCE : (r + 2) % 3, 5,
				      tw->inst[r]->world, &req[r]),
			MPI_SUCCESS);
	}
	tw_wait_all(tw, req, 3);
	for (r = 0; r < 3; r++) {
		MPI_Status st;

		ck_assert_int_eq(req[r]->err, RC_OK);
		rc_req_finish(&req[r], &st);
		ck_assert_ptr_null(req[r]);
		ck_assert_int_eq(st.MPI_SOURCE, (r + 2) % 3);
		ck_assert_int_eq(st.MPI_TAG, 5);
		ck_assert_int_eq(st.rc_count, (MPI_Count)n * (int)sizeof(int));
		ck_assert_int_eq(bad(rbuf[r], n, (r + 2) % 3), -1);
		free(sbuf[r]);
		free(rbuf[r]);
	}
	rc_dt_release(vec);
	tw_free(tw);
}
END_TEST

START_TEST(isendrecv_replace_and_proc_null)
{
	struct tw *tw = world_mode(_i, 2, 0);
	const int n = _i >= 3 ? BIG : 50;
	struct rc_dtype *vec;
	int *buf[2], r, i, j;
	MPI_Request req[2];
	MPI_Status st;

	api_on();
	ck_assert_int_eq(
		rc_dt_create_vector((size_t)n, 1, 3, &rc_mpi_int, &vec), RC_OK);
	rc_dt_commit(vec);
	for (r = 0; r < 2; r++) {
		buf[r] = malloc(sizeof(int) * 3 * (size_t)n);
		for (i = 0; i < 3 * n; i++)
			buf[r][i] = i % 3 ? -1 - r : (i / 3) * 7 + r;
	}
	for (r = 0; r < 2; r++)
		ck_assert_int_eq(
			MPI_Isendrecv_replace(buf[r], 1, vec, 1 - r, 7, 1 - r,
					      7, tw->inst[r]->world, &req[r]),
			MPI_SUCCESS);
	tw_wait_all(tw, req, 2);
	for (r = 0; r < 2; r++) {
		int wrong = -1;

		ck_assert_int_eq(req[r]->err, RC_OK);
		rc_req_finish(&req[r], &st);
		ck_assert_int_eq(st.MPI_SOURCE, 1 - r);
		/* the peer's values at the vector's places, the gaps ours */
		for (j = 0; j < 3 * n && wrong < 0; j++)
			if (buf[r][j] != (j % 3 ? -1 - r : (j / 3) * 7 + 1 - r))
				wrong = j;
		ck_assert_int_eq(wrong, -1);
	}
	/* MPI_PROC_NULL on both sides: completes, empty status, buffer
	 * untouched */
	ck_assert_int_eq(MPI_Isendrecv_replace(buf[0], 1, vec, MPI_PROC_NULL, 1,
					       MPI_PROC_NULL, 1,
					       tw->inst[0]->world, &req[0]),
			 MPI_SUCCESS);
	tw_wait(tw, req[0]);
	rc_req_finish(&req[0], &st);
	ck_assert_int_eq(st.MPI_SOURCE, MPI_PROC_NULL);
	ck_assert_int_eq(st.rc_count, 0);
	ck_assert_int_eq(buf[0][0], 1);
	/* a send to MPI_PROC_NULL, a receive from the peer */
	i = 42;
	j = 0;
	ck_assert_int_eq(MPI_Isendrecv(&i, 1, MPI_INT, 1, 3, &j, 1, MPI_INT,
				       MPI_PROC_NULL, 3, tw->inst[0]->world,
				       &req[0]),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Isendrecv(&i, 1, MPI_INT, MPI_PROC_NULL, 3, &j, 1,
				       MPI_INT, 0, 3, tw->inst[1]->world,
				       &req[1]),
			 MPI_SUCCESS);
	tw_wait_all(tw, req, 2);
	rc_req_finish(&req[0], &st);
	ck_assert_int_eq(st.MPI_SOURCE, MPI_PROC_NULL);
	rc_req_finish(&req[1], &st);
	ck_assert_int_eq(st.MPI_SOURCE, 0);
	ck_assert_int_eq(j, 42);
	for (r = 0; r < 2; r++)
		free(buf[r]);
	rc_dt_release(vec);
	tw_free(tw);
}
END_TEST

/* ---- send cancellation -----------------------------------------------------
 */

static void send_cancelled_check(struct rc_req **req, int want)
{
	MPI_Status st;

	ck_assert(rc_req_done(*req));
	rc_req_finish(req, &st);
	ck_assert_int_eq(st.rc_cancelled, want);
}

/* Not yet handed to the transport: cancelled at once, never delivered. */
START_TEST(cancel_queued_send)
{
	/* one message in flight towards rank 1: the next one queues */
	struct tw *tw = world_mode(_i, 2, 1);
	struct rc_comm *c0 = tw->inst[0]->world, *c1 = tw->inst[1]->world;
	int a = 1, b = 2;
	struct rc_req *s1, *s2;
	MPI_Status st;

	rc_p2p_isend(c0, c0->ctx, &a, 1, &rc_mpi_int, 1, 1, RC_SEND_STD, &s1);
	rc_p2p_isend(c0, c0->ctx, &b, 1, &rc_mpi_int, 1, 2, RC_SEND_STD, &s2);
	ck_assert(!rc_req_done(s2));
	rc_p2p_cancel(s2);
	send_cancelled_check(&s2, 1);
	tw_wait(tw, s1);
	send_cancelled_check(&s1, 0);
	tw_quiesce(tw);
	ck_assert(!rc_p2p_iprobe(c1, c1->ctx, 0, 2, false, &st, NULL));
	recv_check(tw, 1, 0, 1, 1);
	tw_free(tw);
}
END_TEST

/* Eager and out: not cancelled, the data arrives. */
START_TEST(cancel_eager_sent)
{
	struct tw *tw = world_mode(_i, 2, 0);
	struct rc_comm *c0 = tw->inst[0]->world;
	int *msg = malloc(100 * sizeof(int));
	struct rc_req *s;

	fill(msg, 100, 4);
	rc_p2p_isend(c0, c0->ctx, msg, 100, &rc_mpi_int, 1, 4, RC_SEND_STD, &s);
	rc_p2p_cancel(s);
	tw_wait(tw, s);
	send_cancelled_check(&s, 0);
	recv_check(tw, 100, 0, 4, 4);
	free(msg);
	tw_free(tw);
}
END_TEST

/* An RTS (or a synchronous eager message) the receiver has not matched:
 * cancelled after one round trip; the receiver never sees it. */
START_TEST(cancel_unmatched)
{
	struct tw *tw = world_mode(_i % 3, 2, 0);
	bool sync = _i >= 3;
	const int n = sync ? 10 : BIG;
	struct rc_comm *c0 = tw->inst[0]->world, *c1 = tw->inst[1]->world;
	int *msg = malloc(BIG * sizeof(int));
	struct rc_req *s, *p;
	MPI_Status st;

	fill(msg, n, 5);
	rc_p2p_isend(c0, c0->ctx, msg, (size_t)n, &rc_mpi_int, 1, 5,
		     sync ? RC_SEND_SYNC : RC_SEND_STD, &s);
	tw_quiesce(tw);
	ck_assert(rc_p2p_iprobe(c1, c1->ctx, 0, 5, false, &st, NULL));
	ck_assert(!rc_req_done(s));
	rc_p2p_cancel(s);
	rc_p2p_cancel(s); /* twice: one round trip */
	tw_wait(tw, s);
	send_cancelled_check(&s, 1);
	ck_assert(!rc_p2p_iprobe(c1, c1->ctx, 0, 5, false, &st, NULL));
	/* a persistent send: cancelled once, then started again */
	p = rc_req_alloc(tw->inst[0], RC_REQ_SEND);
	rc_p2p_req_setup(p, c0, c0->ctx, msg, (size_t)n, &rc_mpi_int, 1, 5,
			 sync ? RC_SEND_SYNC : RC_SEND_STD);
	p->flags |= RC_REQ_PERSISTENT;
	rc_p2p_start(p);
	tw_quiesce(tw);
	rc_p2p_cancel(p);
	tw_wait(tw, p);
	send_cancelled_check(&p, 1);
	fill(msg, n, 6);
	rc_p2p_start(p);
	/* the receive sees the restarted message only */
	recv_check(tw, n, 0, 5, 6);
	tw_wait(tw, p);
	send_cancelled_check(&p, 0);
	rc_req_free(p);
	free(msg);
	tw_free(tw);
}
END_TEST

/* The receiver matched before the CANCEL came: not cancelled, the data
 * arrives, whichever of the answer and the transfer comes first. */
START_TEST(cancel_matched)
{
	struct tw *tw = world_mode(_i % 3, 2, 0);
	bool sync = _i >= 3;
	const int n = sync ? 10 : BIG;
	struct rc_comm *c0 = tw->inst[0]->world, *c1 = tw->inst[1]->world;
	int *msg = malloc(BIG * sizeof(int));
	int *got = calloc(BIG, sizeof(int));
	struct rc_req *s, *r;

	fill(msg, n, 8);
	rc_p2p_irecv(c1, c1->ctx, got, BIG, &rc_mpi_int, 0, 8, &r);
	rc_p2p_isend(c0, c0->ctx, msg, (size_t)n, &rc_mpi_int, 1, 8,
		     sync ? RC_SEND_SYNC : RC_SEND_STD, &s);
	/* the CANCEL follows the RTS before the receiver ran */
	rc_p2p_cancel(s);
	tw_wait(tw, r);
	tw_wait(tw, s);
	send_cancelled_check(&s, 0);
	ck_assert_int_eq(r->err, RC_OK);
	ck_assert_int_eq(bad(got, n, 8), -1);
	rc_req_finish(&r, MPI_STATUS_IGNORE);
	/* matched, then cancelled after the match */
	rc_p2p_irecv(c1, c1->ctx, got, BIG, &rc_mpi_int, 0, 9, &r);
	rc_p2p_isend(c0, c0->ctx, msg, (size_t)n, &rc_mpi_int, 1, 9,
		     sync ? RC_SEND_SYNC : RC_SEND_STD, &s);
	tw_progress(tw);
	rc_p2p_cancel(s);
	tw_wait(tw, s);
	tw_wait(tw, r);
	send_cancelled_check(&s, 0);
	ck_assert_int_eq(bad(got, n, 8), -1);
	rc_req_finish(&r, MPI_STATUS_IGNORE);
	free(got);
	free(msg);
	tw_free(tw);
}
END_TEST

/* A peer that fails while the answer is due completes the send. */
START_TEST(cancel_peer_failure)
{
	struct tw *tw = world_mode(_i, 2, 0);
	struct rc_comm *c0 = tw->inst[0]->world;
	int *msg = calloc(BIG, sizeof(int));
	struct rc_req *s;

	rc_p2p_isend(c0, c0->ctx, msg, BIG, &rc_mpi_int, 1, 1, RC_SEND_STD, &s);
	tw_progress(tw);
	rc_p2p_cancel(s);
	tw_kill(tw, 1);
	tw_wait(tw, s);
	ck_assert_int_eq(s->err, RC_ERR_PEER);
	rc_req_finish(&s, MPI_STATUS_IGNORE);
	free(msg);
	tw_free(tw);
}
END_TEST

static Suite *p2pmore_suite(void)
{
	Suite *s = suite_create("p2pmore");
#define CASE(fn, loops)                                \
	do {                                           \
		TCase *tc = tcase_create(#fn);         \
		tcase_set_timeout(tc, 60);             \
		tcase_add_loop_test(tc, fn, 0, loops); \
		suite_add_tcase(s, tc);                \
	} while (0)
	CASE(bsend_exhaustion, 3);
	CASE(bsend_overhead_suffices, 3);
	CASE(bsend_attach_detach_cycles, 1);
	CASE(ibsend_and_bsend_init, 3);
	CASE(isendrecv_ring, 6);
	CASE(isendrecv_replace_and_proc_null, 6);
	CASE(cancel_queued_send, 3);
	CASE(cancel_eager_sent, 3);
	CASE(cancel_unmatched, 6);
	CASE(cancel_matched, 6);
	CASE(cancel_peer_failure, 3);
#undef CASE
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(p2pmore_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
