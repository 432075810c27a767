/*
 * test_pcoll.c - persistent collectives (MPI-4 *_init, rc_coll_init) over
 * the in-process fabric (world.h): every collective, with every algorithm
 * forced, made persistent once on every rank and started many times with
 * new data each time (the schedule runs again from its first operation);
 * several persistent collectives started in a different order on every
 * rank (what MPI_Startall may do), their tags fixed at init; a persistent
 * barrier that must not complete before its last member starts; freeing
 * inactive and completed requests.
 *
 * Data: element i of rank r's input in iteration `it` is in(r, i, it);
 * results are checked against the definitions (sums of ints for the
 * reductions, MPI_SUM on MPI_INT).
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll.h"
#include "coll_impl.h"
#include "comm.h"
#include "dtype.h"
#include "op.h"
#include "request.h"
#include "status.h"
#include "world.h"

#define NMAX 8
#define TMO 300
#define ITERS 6

static int in(int r, int i, int it)
{
	return r * 131 + i * 7 + it * 1009 + 1;
}

/* v-forms: rank j's block; alltoallv: what i sends j */
static int vc(int j, int k)
{
	return (j % 3) * k;
}

static int f2(int i, int j, int k)
{
	return ((i + 2 * j) % 3) * k;
}

/* One persistent collective on every rank of a world. */
struct pc {
	int coll, n, k, root;
	int *sb[NMAX], *rb[NMAX];
	size_t slen, rlen;			  /* ints */
	int cnt[NMAX][NMAX], dsp[NMAX][NMAX];	  /* receive side (or both) */
	int scnt[NMAX][NMAX], sdsp[NMAX][NMAX];	  /* alltoallv/w send side */
	int rdspb[NMAX][NMAX], sdspb[NMAX][NMAX]; /* alltoallw bytes */
	struct rc_dtype *types[NMAX];
	struct rc_req *req[NMAX];
};

static void *xcalloc(size_t n)
{
	void *p = calloc(n ? n : 1, 1);

	ck_assert_ptr_nonnull(p);
	return p;
}

/* Build the arguments of rank r and init the persistent collective. */
static void pc_init(struct pc *p, struct rc_comm *comm, int r)
{
	int n = p->n, k = p->k, j, d;
	struct rc_cargs a;

	memset(&a, 0, sizeof(a));
	p->slen = p->rlen = (size_t)n * (size_t)(3 * k + 1) + 1;
	p->sb[r] = xcalloc(p->slen * sizeof(int));
	p->rb[r] = xcalloc(p->rlen * sizeof(int));
	a.sbuf = p->sb[r];
	a.rbuf = p->rb[r];
	a.sdt = a.rdt = a.dt = &rc_mpi_int;
	a.scount = a.rcount = a.count = (size_t)k;
	a.root = p->root;
	a.op = &rc_mpi_sum;
	for (j = 0, d = 0; j < n; j++) {
		p->cnt[r][j] = vc(j, k);
		p->dsp[r][j] = d;
		d += p->cnt[r][j] + 1;
	}
	switch (p->coll) {
	case RC_COLL_BARRIER:
		memset(&a, 0, sizeof(a));
		break;
	case RC_COLL_BCAST:
		a.sbuf = NULL;
		a.sdt = a.rdt = NULL;
		break;
	case RC_COLL_GATHERV:
	case RC_COLL_ALLGATHERV:
		a.scount = (size_t)vc(r, k);
		a.rcounts = p->cnt[r];
		a.rdispls = p->dsp[r];
		break;
	case RC_COLL_SCATTERV:
		a.rcount = (size_t)vc(r, k);
		a.scounts = p->cnt[r];
		a.sdispls = p->dsp[r];
		break;
	case RC_COLL_ALLTOALLV:
	case RC_COLL_ALLTOALLW:
		for (j = 0, d = 0; j < n; j++) {
			p->scnt[r][j] = f2(r, j, k);
			p->sdsp[r][j] = d;
			d += p->scnt[r][j] + 1;
		}
		for (j = 0, d = 0; j < n; j++) {
			p->cnt[r][j] = f2(j, r, k);
			p->dsp[r][j] = d;
			d += p->cnt[r][j] + 1;
		}
		a.scounts = p->scnt[r];
		a.sdispls = p->sdsp[r];
		a.rcounts = p->cnt[r];
		a.rdispls = p->dsp[r];
		if (p->coll == RC_COLL_ALLTOALLW) {
			for (j = 0; j < n; j++) {
				p->sdspb[r][j] =
					p->sdsp[r][j] * (int)sizeof(int);
				p->rdspb[r][j] =
					p->dsp[r][j] * (int)sizeof(int);
				p->types[j] = &rc_mpi_int;
			}
			a.sdispls = p->sdspb[r];
			a.rdispls = p->rdspb[r];
			a.sdts = p->types;
			a.rdts = p->types;
			a.sdt = a.rdt = NULL;
		}
		break;
	case RC_COLL_REDUCE_SCATTER:
		for (j = 0; j < n; j++)
			p->cnt[r][j] = k + j % 2;
		a.rcounts = p->cnt[r];
		a.count = 0;
		break;
	default:
		break;
	}
	ck_assert_int_eq(rc_coll_init(comm, p->coll, &a, &p->req[r]), RC_OK);
	ck_assert(p->req[r]->flags & RC_REQ_PERSISTENT);
	ck_assert_int_eq(p->req[r]->state, RC_REQ_INACTIVE);
}

/* Offset (ints) of reduce_scatter's block j. */
static int rs_off(const struct pc *p, int r, int j)
{
	int o = 0, q;

	for (q = 0; q < j; q++)
		o += p->coll == RC_COLL_REDUCE_SCATTER ? p->cnt[r][q] : p->k;
	return o;
}

/* New input for iteration it; receive buffers set to -1. */
static void pc_fill(struct pc *p, int r, int it)
{
	size_t i;

	for (i = 0; i < p->slen; i++)
		p->sb[r][i] = in(r, (int)i, it);
	for (i = 0; i < p->rlen; i++)
		p->rb[r][i] = -1;
	if (p->coll == RC_COLL_BCAST && r == p->root)
		for (i = 0; i < (size_t)p->k; i++)
			p->rb[r][i] = in(r, (int)i, it);
}

static bool want(const struct pc *p, int r, int at, int v, const char *what)
{
	if (p->rb[r][at] == v)
		return true;
	return tw_note_fail("%s: rank %d of %d, int %d is %d, want %d", what, r,
			    p->n, at, p->rb[r][at], v);
}

/* Rank r's result of iteration it. */
static bool pc_check(const struct pc *p, int r, int it)
{
	int n = p->n, k = p->k, i, j, q, s;
	const char *nm = rc_coll_name(p->coll);

	switch (p->coll) {
	case RC_COLL_BARRIER:
		return true;
	case RC_COLL_BCAST:
		for (i = 0; i < k; i++)
			if (!want(p, r, i, in(p->root, i, it), nm))
				return false;
		return true;
	case RC_COLL_GATHER:
	case RC_COLL_ALLGATHER:
		if (p->coll == RC_COLL_GATHER && r != p->root)
			return true;
		for (j = 0; j < n; j++)
			for (i = 0; i < k; i++)
				if (!want(p, r, j * k + i, in(j, i, it), nm))
					return false;
		return true;
	case RC_COLL_GATHERV:
	case RC_COLL_ALLGATHERV:
		if (p->coll == RC_COLL_GATHERV && r != p->root)
			return true;
		for (j = 0; j < n; j++) {
			for (i = 0; i < p->cnt[r][j]; i++)
				if (!want(p, r, p->dsp[r][j] + i, in(j, i, it),
					  nm))
					return false;
			/* the gap stays untouched */
			if (!want(p, r, p->dsp[r][j] + p->cnt[r][j], -1, nm))
				return false;
		}
		return true;
	case RC_COLL_SCATTER:
		for (i = 0; i < k; i++)
			if (!want(p, r, i, in(p->root, r * k + i, it), nm))
				return false;
		return true;
	case RC_COLL_SCATTERV:
		for (i = 0; i < vc(r, k); i++)
			if (!want(p, r, i,
				  in(p->root, p->dsp[p->root][r] + i, it), nm))
				return false;
		return true;
	case RC_COLL_ALLTOALL:
		for (j = 0; j < n; j++)
			for (i = 0; i < k; i++)
				if (!want(p, r, j * k + i, in(j, r * k + i, it),
					  nm))
					return false;
		return true;
	case RC_COLL_ALLTOALLV:
	case RC_COLL_ALLTOALLW:
		for (j = 0; j < n; j++)
			for (i = 0; i < p->cnt[r][j]; i++)
				if (!want(p, r, p->dsp[r][j] + i,
					  in(j, p->sdsp[j][r] + i, it), nm))
					return false;
		return true;
	case RC_COLL_REDUCE:
	case RC_COLL_ALLREDUCE:
	case RC_COLL_SCAN:
	case RC_COLL_EXSCAN:
		if (p->coll == RC_COLL_REDUCE && r != p->root)
			return true;
		if (p->coll == RC_COLL_EXSCAN && r == 0)
			return true;
		for (i = 0; i < k; i++) {
			int last = p->coll == RC_COLL_SCAN     ? r
				   : p->coll == RC_COLL_EXSCAN ? r - 1
							       : n - 1;

			for (q = 0, s = 0; q <= last; q++)
				s += in(q, i, it);
			if (!want(p, r, i, s, nm))
				return false;
		}
		return true;
	case RC_COLL_REDUCE_SCATTER:
	case RC_COLL_REDUCE_SCATTER_BLOCK: {
		int o = rs_off(p, r, r),
		    c = p->coll == RC_COLL_REDUCE_SCATTER ? p->cnt[r][r] : k;

		for (i = 0; i < c; i++) {
			for (q = 0, s = 0; q < n; q++)
				s += in(q, o + i, it);
			if (!want(p, r, i, s, nm))
				return false;
		}
		return true;
	}
	}
	return tw_note_fail("no check for %s", nm);
}

static void pc_free(struct pc *p)
{
	int r;

	for (r = 0; r < p->n; r++) {
		rc_req_free(p->req[r]);
		free(p->sb[r]);
		free(p->rb[r]);
	}
}

/* Wait for rank r's request and make it inactive again. */
static bool pc_finish(struct tw *tw, struct pc *p, int r)
{
	struct rc_req *req = p->req[r];
	int err;

	tw_wait(tw, req);
	err = rc_req_finish(&req, MPI_STATUS_IGNORE);
	if (req != p->req[r] || req->state != RC_REQ_INACTIVE)
		return tw_note_fail("rank %d: the request did not stay", r);
	if (err)
		return tw_note_fail("rank %d: %s", r, rc_status_str(err));
	return true;
}

static void force(struct tw *tw, int coll, const char *alg)
{
	int r;

	for (r = 0; r < tw->n; r++)
		ck_assert_int_eq(rc_coll_force(tw->inst[r], coll, alg), RC_OK);
}

/* coll with algorithm alg on n ranks, k ints a block: ITERS starts. */
static bool restarts(int coll, const char *alg, int n, int k)
{
	struct tw *tw = tw_open_new(n);
	struct pc p;
	bool ok = true;
	int r, it;

	force(tw, coll, alg);
	memset(&p, 0, sizeof(p));
	p.coll = coll;
	p.n = n;
	p.k = k;
	p.root = coll == RC_COLL_SCATTER || coll == RC_COLL_SCATTERV ? n / 2
		 : coll == RC_COLL_GATHER || coll == RC_COLL_GATHERV ? 0
								     : n - 1;
	for (r = 0; r < n; r++)
		pc_init(&p, tw->inst[r]->world, r);
	for (it = 0; it < ITERS && ok; it++) {
		for (r = 0; r < n; r++)
			pc_fill(&p, r, it);
		/* ranks start in a different order each time */
		for (r = 0; r < n; r++) {
			int x = it % 2 ? n - 1 - r : r;

			ck_assert_int_eq(rc_req_start(p.req[x]), RC_OK);
			/* started: a second start is refused */
			ck_assert_int_eq(rc_req_start(p.req[x]), RC_ERR_INVAL);
		}
		for (r = 0; r < n; r++)
			ok = pc_finish(tw, &p, r) && ok;
		for (r = 0; r < n && ok; r++)
			ok = pc_check(&p, r, it);
	}
	if (!ok && tw_verdict[0]) {
		size_t l = strlen(tw_verdict);

		snprintf(tw_verdict + l, sizeof(tw_verdict) - l,
			 " (%s, %d ranks, k %d, iteration %d)", alg, n, k,
			 it - 1);
	}
	tw_quiesce(tw);
	pc_free(&p);
	tw_free(tw);
	return ok;
}

static const int sizes[] = {1, 2, 3, 4, 5, 8};

/* Every algorithm of collective _i, several sizes, small and larger
 * blocks (the larger ones reach other default choices). */
START_TEST(every_collective)
{
	int coll = _i, a, s, kk;
	static const int ks[] = {3, 700};

	tw_verdict[0] = 0;
	for (a = 0; a < rc_coll_nalgs(coll); a++)
		for (s = 0; s < (int)(sizeof(sizes) / sizeof(sizes[0])); s++)
			for (kk = 0; kk < 2; kk++)
				if (!restarts(coll, rc_coll_alg_name(coll, a),
					      sizes[s], ks[kk]))
					ck_abort_msg("%s", tw_verdict);
	if (!restarts(coll, "auto", 7, 5000))
		ck_abort_msg("%s", tw_verdict);
}
END_TEST

/* Several persistent collectives on one communicator, initialised in one
 * order and started in another on every rank, every iteration. */
START_TEST(startall_orders)
{
	static const int colls[] = {
		RC_COLL_ALLREDUCE, RC_COLL_BCAST,     RC_COLL_ALLTOALL,
		RC_COLL_BARRIER,   RC_COLL_ALLGATHER, RC_COLL_REDUCE_SCATTER,
		RC_COLL_SCAN,
	};
	enum { NC = sizeof(colls) / sizeof(colls[0]) };
	int n = 5, c, r, it, pos;
	struct tw *tw = tw_open_new(n);
	struct pc p[NC];
	struct rc_req *nb[NMAX];
	bool ok = true;

	tw_verdict[0] = 0;
	memset(p, 0, sizeof(p));
	for (c = 0; c < NC; c++) {
		p[c].coll = colls[c];
		p[c].n = n;
		p[c].k = 4 + c;
		p[c].root = c % n;
		for (r = 0; r < n; r++)
			pc_init(&p[c], tw->inst[r]->world, r);
	}
	for (it = 0; it < 20 && ok; it++) {
		for (c = 0; c < NC; c++)
			for (r = 0; r < n; r++)
				pc_fill(&p[c], r, it);
		/* rank r starts request (r * 3 + it + pos * (r + 1)) mod NC
		 * at position pos: a permutation (NC is prime), different
		 * on every rank; ranks interleave position by position */
		for (pos = 0; pos < NC; pos++) {
			for (r = 0; r < n; r++) {
				c = (r * 3 + it + pos * (r % (NC - 1) + 1)) %
				    NC;
				ck_assert_int_eq(rc_req_start(p[c].req[r]),
						 RC_OK);
			}
			tw_progress(tw);
		}
		/* a nonblocking collective after them takes a later tag */
		for (r = 0; r < n; r++) {
			struct rc_cargs a;

			memset(&a, 0, sizeof(a));
			ck_assert_int_eq(rc_coll_start(tw->inst[r]->world,
						       RC_COLL_BARRIER, &a,
						       &nb[r]),
					 RC_OK);
		}
		/* completed in yet another order */
		for (c = NC - 1; c >= 0; c--)
			for (r = 0; r < n; r++)
				ok = pc_finish(tw, &p[c], r) && ok;
		for (r = 0; r < n; r++) {
			tw_wait(tw, nb[r]);
			ck_assert_int_eq(nb[r]->err, RC_OK);
			rc_req_free(nb[r]);
		}
		for (c = 0; c < NC && ok; c++)
			for (r = 0; r < n && ok; r++)
				ok = pc_check(&p[c], r, it);
	}
	tw_quiesce(tw);
	for (c = 0; c < NC; c++)
		pc_free(&p[c]);
	tw_free(tw);
	ck_assert_msg(ok, "%s (iteration %d)", tw_verdict, it - 1);
}
END_TEST

/* A persistent barrier completes nowhere before its last member starts,
 * every time. */
START_TEST(barrier_waits)
{
	int n = 6, r, it, i;
	struct tw *tw = tw_open_new(n);
	struct pc p;

	tw_verdict[0] = 0;
	memset(&p, 0, sizeof(p));
	p.coll = RC_COLL_BARRIER;
	p.n = n;
	for (r = 0; r < n; r++)
		pc_init(&p, tw->inst[r]->world, r);
	for (it = 0; it < 10; it++) {
		int late = it % n;

		for (r = 0; r < n; r++)
			if (r != late)
				ck_assert_int_eq(rc_req_start(p.req[r]), RC_OK);
		for (i = 0; i < 200; i++)
			tw_progress(tw);
		for (r = 0; r < n; r++)
			ck_assert_msg(!rc_req_done(p.req[r]),
				      "iteration %d: rank %d passed the "
				      "barrier before rank %d entered",
				      it, r, late);
		ck_assert_int_eq(rc_req_start(p.req[late]), RC_OK);
		for (r = 0; r < n; r++)
			ck_assert_msg(pc_finish(tw, &p, r), "%s", tw_verdict);
	}
	pc_free(&p);
	tw_free(tw);
}
END_TEST

/* Freed while active: released when it completes (the schedule with it);
 * freed when complete but not waited; and a request of another kind is
 * not started by rc_req_start. */
START_TEST(free_states)
{
	int n = 3, r;
	struct tw *tw = tw_open_new(n);
	struct pc p;

	tw_verdict[0] = 0;
	memset(&p, 0, sizeof(p));
	p.coll = RC_COLL_ALLREDUCE;
	p.n = n;
	p.k = 100;
	for (r = 0; r < n; r++) {
		pc_init(&p, tw->inst[r]->world, r);
		pc_fill(&p, r, 0);
	}
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_req_start(p.req[r]), RC_OK);
	/* rank 0: freed while active (MPI_Request_free's way) */
	p.req[0]->flags |= RC_REQ_USER_FREED;
	p.req[0]->flags &= ~RC_REQ_PERSISTENT;
	tw_wait(tw, p.req[2]);
	tw_wait(tw, p.req[1]);
	tw_quiesce(tw);
	ck_assert(pc_check(&p, 1, 0) && pc_check(&p, 2, 0));
	/* rank 1: complete, never waited; rank 2: inactive */
	rc_req_free(p.req[1]);
	ck_assert_int_eq(rc_req_finish(&p.req[2], MPI_STATUS_IGNORE), RC_OK);
	rc_req_free(p.req[2]);
	{
		struct rc_req *q = rc_req_alloc(tw->inst[0], RC_REQ_COLL);

		ck_assert_ptr_nonnull(q);
		ck_assert_int_eq(rc_req_start(q), RC_ERR_INVAL);
		rc_req_free(q);
	}
	for (r = 0; r < n; r++) {
		free(p.sb[r]);
		free(p.rb[r]);
	}
	tw_free(tw);
}
END_TEST

static Suite *pcoll_suite(void)
{
	Suite *s = suite_create("pcoll");
	TCase *tc = tcase_create("restarts");

	tcase_set_timeout(tc, TMO);
	tcase_add_loop_test(tc, every_collective, 0, RC_COLL_NBR_ALLGATHER);
	suite_add_tcase(s, tc);
	tc = tcase_create("misc");
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, startall_orders);
	tcase_add_test(tc, barrier_waits);
	tcase_add_test(tc, free_states);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pcoll_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
