/*
 * test_greq.c - generalized requests (MPI_Grequest_start/_complete,
 * runtime/request_api.c) on a fake initialised process: each completion
 * call (Wait, Test, Waitall/any/some, Testall/any/some) completes them
 * mixed with ordinary requests (MPI_PROC_NULL receives, null handles) and
 * calls query_fn once for each request it completes and free_fn after it;
 * incomplete ones are never queried; MPI_Request_get_status queries
 * without freeing; MPI_Request_free runs free_fn then or at
 * MPI_Grequest_complete, whichever comes last; MPI_Cancel runs cancel_fn
 * with the right `complete`; callback error codes come back from the call
 * that ran them; bad input gets its class. A test that finds nothing
 * done yields the CPU on a blocking wait's terms (oversubscribed, or
 * after yield_after empty polls).
 */
#include <check.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include "api.h"
#include "count_yield.h"
#include "fake_mpi.h"
#include "inst.h"

#define TMO 30

/* One generalized request's callbacks' view of the world. */
struct gst {
	int queries, frees, cancels;
	int last_complete; /* cancel_fn's argument */
	int query_ret, free_ret, cancel_ret;
	int source, tag, count; /* what query_fn reports */
	int order;		/* free_fn's call number */
};

static int calls; /* callbacks of any request, in order */

static int query_fn(void *extra, MPI_Status *st)
{
	struct gst *g = extra;

	ck_assert_ptr_nonnull(st);
	g->queries++;
	calls++;
	st->MPI_SOURCE = g->source;
	st->MPI_TAG = g->tag;
	ck_assert_int_eq(MPI_Status_set_elements(st, MPI_INT, g->count),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Status_set_cancelled(st, g->cancels > 0),
			 MPI_SUCCESS);
	return g->query_ret;
}

static int free_fn(void *extra)
{
	struct gst *g = extra;

	/* after every query of this request */
	g->frees++;
	g->order = ++calls;
	return g->free_ret;
}

static int cancel_fn(void *extra, int complete)
{
	struct gst *g = extra;

	g->cancels++;
	g->last_complete = complete;
	calls++;
	return g->cancel_ret;
}

static void gst_init(struct gst *g, int i)
{
	memset(g, 0, sizeof(*g));
	g->source = 100 + i;
	g->tag = 200 + i;
	g->count = 3 + i;
}

static MPI_Request start(struct gst *g)
{
	MPI_Request r = MPI_REQUEST_NULL;

	ck_assert_int_eq(
		MPI_Grequest_start(query_fn, free_fn, cancel_fn, g, &r),
		MPI_SUCCESS);
	ck_assert_ptr_ne(r, MPI_REQUEST_NULL);
	return r;
}

/* A done ordinary request: a receive from MPI_PROC_NULL. */
static MPI_Request procnull_recv(int *buf)
{
	MPI_Request r;

	ck_assert_int_eq(MPI_Irecv(buf, 1, MPI_INT, MPI_PROC_NULL, 0,
				   MPI_COMM_WORLD, &r),
			 MPI_SUCCESS);
	return r;
}

/* status is what query_fn of g said, and g was queried then freed once. */
static void check_done(const struct gst *g, const MPI_Status *st)
{
	int n;

	ck_assert_int_eq(g->queries, 1);
	ck_assert_int_eq(g->frees, 1);
	if (!st)
		return;
	ck_assert_int_eq(st->MPI_SOURCE, g->source);
	ck_assert_int_eq(st->MPI_TAG, g->tag);
	ck_assert_int_eq(MPI_Get_count(st, MPI_INT, &n), MPI_SUCCESS);
	ck_assert_int_eq(n, g->count);
}

static void check_procnull(const MPI_Status *st)
{
	int n;

	ck_assert_int_eq(st->MPI_SOURCE, MPI_PROC_NULL);
	ck_assert_int_eq(MPI_Get_count(st, MPI_INT, &n), MPI_SUCCESS);
	ck_assert_int_eq(n, 0);
}

static void setup(void)
{
	fake_mpi_setup(0, 2);
	calls = 0;
}

static void teardown(void)
{
	rc_err_codes_fini();
	fake_mpi_teardown();
}

START_TEST(wait_and_test)
{
	struct gst g[2];
	MPI_Request r;
	MPI_Status st;
	int flag = -1;

	gst_init(&g[0], 0);
	gst_init(&g[1], 1);
	r = start(&g[0]);
	/* not complete: Test says so and queries nothing */
	ck_assert_int_eq(MPI_Test(&r, &flag, &st), MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(g[0].queries + g[0].frees, 0);
	ck_assert_int_eq(MPI_Grequest_complete(r), MPI_SUCCESS);
	ck_assert_int_eq(g[0].queries + g[0].frees, 0);
	ck_assert_int_eq(MPI_Wait(&r, &st), MPI_SUCCESS);
	ck_assert_ptr_eq(r, MPI_REQUEST_NULL);
	check_done(&g[0], &st);
	ck_assert_int_eq(g[0].order, 2); /* query, then free */

	r = start(&g[1]);
	ck_assert_int_eq(MPI_Grequest_complete(r), MPI_SUCCESS);
	/* STATUS_IGNORE: query_fn still runs, with a status of its own */
	ck_assert_int_eq(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_ptr_eq(r, MPI_REQUEST_NULL);
	check_done(&g[1], NULL);
	ck_assert_int_eq(g[0].cancels + g[1].cancels, 0);
}
END_TEST

/* A generalized request, an ordinary one, a null handle, another
 * generalized one: every request-array call completes them all. */
enum { N_MIX = 4 };

static void mix(struct gst g[2], MPI_Request r[N_MIX], int *buf)
{
	gst_init(&g[0], 0);
	gst_init(&g[1], 1);
	r[0] = start(&g[0]);
	r[1] = procnull_recv(buf);
	r[2] = MPI_REQUEST_NULL;
	r[3] = start(&g[1]);
}

START_TEST(waitall_testall)
{
	MPI_Status st[N_MIX];
	MPI_Request r[N_MIX];
	struct gst g[2];
	int buf, flag, i, pass;

	for (pass = 0; pass < 2; pass++) {
		mix(g, r, &buf);
		ck_assert_int_eq(MPI_Grequest_complete(r[0]), MPI_SUCCESS);
		/* one generalized request is not complete */
		ck_assert_int_eq(MPI_Testall(N_MIX, r, &flag, st), MPI_SUCCESS);
		ck_assert_int_eq(flag, 0);
		ck_assert_int_eq(g[0].queries + g[1].queries, 0);
		ck_assert_int_eq(MPI_Grequest_complete(r[3]), MPI_SUCCESS);
		if (pass == 0) {
			ck_assert_int_eq(MPI_Waitall(N_MIX, r, st),
					 MPI_SUCCESS);
		} else {
			ck_assert_int_eq(MPI_Testall(N_MIX, r, &flag, st),
					 MPI_SUCCESS);
			ck_assert_int_eq(flag, 1);
		}
		for (i = 0; i < N_MIX; i++)
			ck_assert_ptr_eq(r[i], MPI_REQUEST_NULL);
		check_done(&g[0], &st[0]);
		check_procnull(&st[1]);
		ck_assert_int_eq(st[2].MPI_SOURCE, MPI_ANY_SOURCE);
		check_done(&g[1], &st[3]);
	}
}
END_TEST

/* Waitany (pass 0) or Testany (pass 1), which must find one done. */
static int any_done(int pass, MPI_Request r[N_MIX], MPI_Status *st)
{
	int idx = -1, flag = 0;

	if (pass == 0) {
		ck_assert_int_eq(MPI_Waitany(N_MIX, r, &idx, st), MPI_SUCCESS);
	} else {
		ck_assert_int_eq(MPI_Testany(N_MIX, r, &idx, &flag, st),
				 MPI_SUCCESS);
		ck_assert_int_eq(flag, 1);
	}
	return idx;
}

START_TEST(waitany_testany)
{
	MPI_Request r[N_MIX];
	struct gst g[2];
	MPI_Status st;
	int buf, idx, flag, pass;

	for (pass = 0; pass < 2; pass++) {
		mix(g, r, &buf);
		/* the ordinary request is done first */
		idx = any_done(pass, r, &st);
		ck_assert_int_eq(idx, 1);
		check_procnull(&st);
		/* nothing done among the rest: index MPI_UNDEFINED */
		ck_assert_int_eq(MPI_Testany(N_MIX, r, &idx, &flag, &st),
				 MPI_SUCCESS);
		ck_assert_int_eq(flag, 0);
		ck_assert_int_eq(idx, MPI_UNDEFINED);
		ck_assert_int_eq(g[0].queries + g[1].queries, 0);
		ck_assert_int_eq(MPI_Grequest_complete(r[3]), MPI_SUCCESS);
		idx = any_done(pass, r, &st);
		ck_assert_int_eq(idx, 3);
		check_done(&g[1], &st);
		ck_assert_int_eq(g[0].queries, 0);
		ck_assert_int_eq(MPI_Grequest_complete(r[0]), MPI_SUCCESS);
		ck_assert_int_eq(MPI_Waitany(N_MIX, r, &idx, &st), MPI_SUCCESS);
		ck_assert_int_eq(idx, 0);
		check_done(&g[0], &st);
		/* no active request left */
		ck_assert_int_eq(MPI_Waitany(N_MIX, r, &idx, &st), MPI_SUCCESS);
		ck_assert_int_eq(idx, MPI_UNDEFINED);
	}
}
END_TEST

START_TEST(waitsome_testsome)
{
	MPI_Status st[N_MIX];
	MPI_Request r[N_MIX];
	int buf, n, idx[N_MIX], pass;
	struct gst g[2];

	for (pass = 0; pass < 2; pass++) {
		mix(g, r, &buf);
		ck_assert_int_eq(MPI_Grequest_complete(r[3]), MPI_SUCCESS);
		if (pass == 0)
			ck_assert_int_eq(MPI_Waitsome(N_MIX, r, &n, idx, st),
					 MPI_SUCCESS);
		else
			ck_assert_int_eq(MPI_Testsome(N_MIX, r, &n, idx, st),
					 MPI_SUCCESS);
		/* the ordinary request and the complete generalized one */
		ck_assert_int_eq(n, 2);
		ck_assert_int_eq(idx[0], 1);
		ck_assert_int_eq(idx[1], 3);
		check_procnull(&st[0]);
		check_done(&g[1], &st[1]);
		ck_assert_int_eq(g[0].queries + g[0].frees, 0);
		ck_assert_ptr_ne(r[0], MPI_REQUEST_NULL);
		ck_assert_int_eq(MPI_Testsome(N_MIX, r, &n, idx, st),
				 MPI_SUCCESS);
		ck_assert_int_eq(n, 0);
		ck_assert_int_eq(MPI_Grequest_complete(r[0]), MPI_SUCCESS);
		ck_assert_int_eq(MPI_Waitsome(N_MIX, r, &n, idx, st),
				 MPI_SUCCESS);
		ck_assert_int_eq(n, 1);
		ck_assert_int_eq(idx[0], 0);
		check_done(&g[0], &st[0]);
		ck_assert_int_eq(MPI_Waitsome(N_MIX, r, &n, idx, st),
				 MPI_SUCCESS);
		ck_assert_int_eq(n, MPI_UNDEFINED);
	}
}
END_TEST

/* MPI_Request_get_status queries every time it sees the request done,
 * and neither frees nor releases it. */
START_TEST(get_status)
{
	struct gst g;
	MPI_Request r;
	MPI_Status st;
	int flag;

	gst_init(&g, 0);
	r = start(&g);
	ck_assert_int_eq(MPI_Request_get_status(r, &flag, &st), MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(g.queries, 0);
	ck_assert_int_eq(MPI_Grequest_complete(r), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Request_get_status(r, &flag, &st), MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(st.MPI_SOURCE, g.source);
	ck_assert_int_eq(st.MPI_TAG, g.tag);
	ck_assert_int_eq(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE),
			 MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(g.queries, 2);
	ck_assert_int_eq(g.frees, 0);
	ck_assert_ptr_ne(r, MPI_REQUEST_NULL);
	ck_assert_int_eq(MPI_Wait(&r, &st), MPI_SUCCESS);
	ck_assert_int_eq(g.queries, 3);
	ck_assert_int_eq(g.frees, 1);
	ck_assert_int_eq(st.MPI_TAG, g.tag);
}
END_TEST

/* MPI_Request_free: free_fn at the later of it and MPI_Grequest_complete;
 * query_fn never (no call completes the request). */
START_TEST(request_free)
{
	struct gst g[2];
	MPI_Request r, keep;

	gst_init(&g[0], 0);
	gst_init(&g[1], 1);
	r = keep = start(&g[0]);
	ck_assert_int_eq(MPI_Request_free(&r), MPI_SUCCESS);
	ck_assert_ptr_eq(r, MPI_REQUEST_NULL);
	ck_assert_int_eq(g[0].frees, 0);
	ck_assert_int_eq(MPI_Grequest_complete(keep), MPI_SUCCESS);
	ck_assert_int_eq(g[0].frees, 1);
	ck_assert_int_eq(g[0].queries, 0);
	/* the request is gone: its handle is stale */
	ck_assert_int_eq(MPI_Grequest_complete(keep), MPI_ERR_REQUEST);
	ck_assert_int_eq(g[0].frees, 1);

	r = start(&g[1]);
	ck_assert_int_eq(MPI_Grequest_complete(r), MPI_SUCCESS);
	ck_assert_int_eq(g[1].frees, 0);
	ck_assert_int_eq(MPI_Request_free(&r), MPI_SUCCESS);
	ck_assert_ptr_eq(r, MPI_REQUEST_NULL);
	ck_assert_int_eq(g[1].frees, 1);
	ck_assert_int_eq(g[1].queries, 0);
}
END_TEST

START_TEST(cancel_calls)
{
	struct gst g[2];
	MPI_Request r;
	MPI_Status st;
	int flag;

	gst_init(&g[0], 0);
	gst_init(&g[1], 1);
	r = start(&g[0]);
	ck_assert_int_eq(MPI_Cancel(&r), MPI_SUCCESS);
	ck_assert_int_eq(g[0].cancels, 1);
	ck_assert_int_eq(g[0].last_complete, 0);
	/* cancelling does not complete a generalized request */
	ck_assert_int_eq(MPI_Test(&r, &flag, &st), MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(MPI_Grequest_complete(r), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Wait(&r, &st), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
	ck_assert_int_eq(flag, 1); /* what query_fn set */
	check_done(&g[0], &st);

	r = start(&g[1]);
	ck_assert_int_eq(MPI_Grequest_complete(r), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Cancel(&r), MPI_SUCCESS);
	ck_assert_int_eq(g[1].cancels, 1);
	ck_assert_int_eq(g[1].last_complete, 1);
	ck_assert_int_eq(MPI_Wait(&r, &st), MPI_SUCCESS);
	check_done(&g[1], &st);
}
END_TEST

/* A callback's error code is what the call that ran it returns; in the
 * array calls, MPI_ERR_IN_STATUS with the code in the request's status. */
START_TEST(callback_errors)
{
	MPI_Status st[N_MIX];
	MPI_Request r[N_MIX];
	struct gst g[2];
	int buf, code, cls, flag;

	ck_assert_int_eq(MPI_Add_error_class(&cls), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Add_error_code(cls, &code), MPI_SUCCESS);

	gst_init(&g[0], 0);
	g[0].query_ret = MPI_ERR_IO;
	r[0] = start(&g[0]);
	ck_assert_int_eq(MPI_Grequest_complete(r[0]), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Wait(&r[0], &st[0]), MPI_ERR_IO);
	ck_assert_ptr_eq(r[0], MPI_REQUEST_NULL);
	ck_assert_int_eq(g[0].frees, 1); /* freed all the same */

	gst_init(&g[0], 0);
	g[0].free_ret = code; /* a code the program added */
	r[0] = start(&g[0]);
	ck_assert_int_eq(MPI_Grequest_complete(r[0]), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Test(&r[0], &flag, &st[0]), code);
	ck_assert_int_eq(flag, 1);
	ck_assert_ptr_eq(r[0], MPI_REQUEST_NULL);

	mix(g, r, &buf);
	g[1].query_ret = code;
	ck_assert_int_eq(MPI_Grequest_complete(r[0]), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Grequest_complete(r[3]), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Waitall(N_MIX, r, st), MPI_ERR_IN_STATUS);
	ck_assert_int_eq(st[0].MPI_ERROR, MPI_SUCCESS);
	ck_assert_int_eq(st[1].MPI_ERROR, MPI_SUCCESS);
	ck_assert_int_eq(st[3].MPI_ERROR, code);
	check_done(&g[0], &st[0]);
	check_done(&g[1], &st[3]);

	gst_init(&g[0], 0);
	g[0].free_ret = MPI_ERR_OTHER;
	g[0].cancel_ret = MPI_ERR_INTERN;
	r[0] = start(&g[0]);
	ck_assert_int_eq(MPI_Cancel(&r[0]), MPI_ERR_INTERN);
	ck_assert_int_eq(MPI_Grequest_complete(r[0]), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Request_free(&r[0]), MPI_ERR_OTHER);
	ck_assert_ptr_eq(r[0], MPI_REQUEST_NULL);

	/* free_fn's error from MPI_Grequest_complete, the later call */
	gst_init(&g[0], 0);
	g[0].free_ret = MPI_ERR_OTHER;
	r[0] = r[1] = start(&g[0]);
	ck_assert_int_eq(MPI_Request_free(&r[0]), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Grequest_complete(r[1]), MPI_ERR_OTHER);
	ck_assert_int_eq(g[0].frees, 1);
}
END_TEST

START_TEST(bad_input)
{
	struct gst g;
	MPI_Request r;
	int buf;

	gst_init(&g, 0);
	ck_assert_int_eq(
		MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g, NULL),
		MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Grequest_start(NULL, free_fn, cancel_fn, &g, &r),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Grequest_start(query_fn, NULL, cancel_fn, &g, &r),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Grequest_start(query_fn, free_fn, NULL, &g, &r),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Grequest_complete(MPI_REQUEST_NULL),
			 MPI_ERR_REQUEST);
	/* an ordinary request */
	r = procnull_recv(&buf);
	ck_assert_int_eq(MPI_Grequest_complete(r), MPI_ERR_REQUEST);
	ck_assert_int_eq(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
	/* completed twice */
	r = start(&g);
	ck_assert_int_eq(MPI_Grequest_complete(r), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Grequest_complete(r), MPI_ERR_REQUEST);
	/* not persistent: MPI_Start refuses it */
	ck_assert_int_ne(MPI_Start(&r), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
	ck_assert_int_eq(g.queries, 1);
	ck_assert_int_eq(g.frees, 1);
	ck_assert_int_eq(g.cancels, 0);
}
END_TEST

/* Every kind of test on a pending request, once each: the number of
 * them (MPI_Iprobe's is in test_p2p). */
static unsigned empty_tests(MPI_Request *r)
{
	MPI_Request two[2] = {*r, MPI_REQUEST_NULL};
	int flag = -1, idx = -1, n = -1, ind[2];

	ck_assert_int_eq(MPI_Test(r, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(MPI_Testall(2, two, &flag, MPI_STATUSES_IGNORE),
			 MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(MPI_Testany(2, two, &idx, &flag, MPI_STATUS_IGNORE),
			 MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(idx, MPI_UNDEFINED);
	ck_assert_int_eq(MPI_Testsome(2, two, &n, ind, MPI_STATUSES_IGNORE),
			 MPI_SUCCESS);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(MPI_Request_get_status(*r, &flag, MPI_STATUS_IGNORE),
			 MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	return 5;
}

/* A program polling with tests must not keep its core from the peer it
 * waits for: on an oversubscribed node every empty test yields; otherwise
 * only once yield_after empty polls came in a row (0: never); a test
 * that finds the request done does not. */
START_TEST(empty_tests_yield)
{
	struct gst g;
	MPI_Request r;
	unsigned k, n;
	int flag;

	gst_init(&g, 0);
	r = start(&g);
	rc_g.oversubscribed = true;
	rc_g.yield_after = 0;
	test_nyield = 0;
	n = empty_tests(&r);
	ck_assert_uint_eq(test_nyield, n);

	rc_g.oversubscribed = false;
	test_nyield = 0;
	for (k = 0; k < 10; k++)
		empty_tests(&r);
	ck_assert_uint_eq(test_nyield, 0);
	rc_g.yield_after = 100;
	rc_g.idle = 0;
	for (k = 0; k < 10; k++)
		empty_tests(&r); /* fewer than 100 empty polls */
	ck_assert_uint_lt(rc_g.idle, 100);
	ck_assert_uint_eq(test_nyield, 0);
	rc_g.yield_after = 4;
	rc_g.idle = 0;
	n = empty_tests(&r); /* polls 1..5: the 4th on yield */
	ck_assert_uint_eq(test_nyield, n - 3);

	rc_g.oversubscribed = true;
	ck_assert_int_eq(MPI_Grequest_complete(r), MPI_SUCCESS);
	test_nyield = 0;
	ck_assert_int_eq(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_uint_eq(test_nyield, 0);
	check_done(&g, NULL);
}
END_TEST

static Suite *greq_suite(void)
{
	Suite *s = suite_create("greq");
	TCase *tc = fake_mpi_tcase("greq", TMO, setup, teardown);

	tcase_add_test(tc, wait_and_test);
	tcase_add_test(tc, waitall_testall);
	tcase_add_test(tc, waitany_testany);
	tcase_add_test(tc, waitsome_testsome);
	tcase_add_test(tc, get_status);
	tcase_add_test(tc, request_free);
	tcase_add_test(tc, cancel_calls);
	tcase_add_test(tc, callback_errors);
	tcase_add_test(tc, bad_input);
	tcase_add_test(tc, empty_tests_yield);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fake_mpi_run(greq_suite());
}
