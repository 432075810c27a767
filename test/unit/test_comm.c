/*
 * test_comm.c - the local communicator, group and topology functions and
 * the argument checks of the collective API, called through the MPI
 * functions on a fake initialised process (no transports): a 6-rank
 * MPI_COMM_WORLD whose handler returns errors, this process being world
 * rank 2. Nothing in that part communicates: every call either works
 * locally or must fail its checks before any message would be sent.
 *
 * Then context-id agreement over the in-process fabric (world.h): several
 * ranks' engines in one process, creations started in different orders on
 * different ranks and driven by progress calls in a random interleaving,
 * some ranks "blocked" in a creation (only progressing until it is done),
 * as a blocking MPI_Comm_dup would; every created communicator checked for
 * its members, a context shared by its members and distinct from every
 * other live communicator of each rank, and a working collective.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "coll.h"
#include "coll_impl.h"
#include "comm.h"
#include "dtype.h"
#include "fake_mpi.h"
#include "op.h"
#include "request.h"
#include "topo.h"
#include "world.h"

#define TMO 30
#define N 6

static struct rc_comm *world;

static void setup(void)
{
	fake_mpi_setup(2, N);
	world = rc_g.world;
}

/* A communicator over world ranks w[0..n) (fake context), my rank from
 * rc_g.rank, errors returned. */
static struct rc_comm *fake_comm(int n, const int *w, uint32_t ctx)
{
	struct rc_group *g = rc_group_new(n);
	struct rc_comm *c;

	ck_assert_ptr_nonnull(g);
	memcpy(g->wranks, w, sizeof(int) * (size_t)n);
	g->rank = rc_group_rank_of(g, rc_g.rank);
	rc_ctx_mark(&rc_g, ctx, true);
	ck_assert_int_eq(rc_comm_new(&rc_g, g, ctx, world, &c), RC_OK);
	rc_group_release(g);
	return c;
}

START_TEST(groups)
{
	MPI_Group wg, g1, g2, g3;
	int size, rank, res, i, out[N];
	int ranks[3] = { 5, 2, 0 }, tr[4] = { 0, 1, 2, MPI_PROC_NULL };
	int ranges[2][3] = { { 0, 4, 2 }, { 5, 5, 1 } };

	ck_assert_int_eq(MPI_Comm_group(MPI_COMM_WORLD, &wg), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_size(wg, &size), MPI_SUCCESS);
	ck_assert_int_eq(size, N);
	ck_assert_int_eq(MPI_Group_rank(wg, &rank), MPI_SUCCESS);
	ck_assert_int_eq(rank, 2);
	/* incl {5, 2, 0}: I am rank 1 */
	ck_assert_int_eq(MPI_Group_incl(wg, 3, ranks, &g1), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_rank(g1, &rank), MPI_SUCCESS);
	ck_assert_int_eq(rank, 1);
	ck_assert_int_eq(MPI_Group_translate_ranks(g1, 4, tr, wg, out),
			 MPI_SUCCESS);
	ck_assert_int_eq(out[0], 5);
	ck_assert_int_eq(out[1], 2);
	ck_assert_int_eq(out[2], 0);
	ck_assert_int_eq(out[3], MPI_PROC_NULL);
	/* excl {5, 2, 0} = {1, 3, 4}: I am not in it */
	ck_assert_int_eq(MPI_Group_excl(wg, 3, ranks, &g2), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_size(g2, &size), MPI_SUCCESS);
	ck_assert_int_eq(size, 3);
	ck_assert_int_eq(MPI_Group_rank(g2, &rank), MPI_SUCCESS);
	ck_assert_int_eq(rank, MPI_UNDEFINED);
	ck_assert_int_eq(MPI_Group_translate_ranks(wg, 3, ranks, g2, out),
			 MPI_SUCCESS);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(out[i], MPI_UNDEFINED);
	/* compare */
	ck_assert_int_eq(MPI_Group_compare(wg, wg, &res), MPI_SUCCESS);
	ck_assert_int_eq(res, MPI_IDENT);
	ck_assert_int_eq(MPI_Group_compare(g1, g2, &res), MPI_SUCCESS);
	ck_assert_int_eq(res, MPI_UNEQUAL);
	ck_assert_int_eq(MPI_Group_union(g2, g1, &g3), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_compare(g3, wg, &res), MPI_SUCCESS);
	ck_assert_int_eq(res, MPI_SIMILAR);
	ck_assert_int_eq(MPI_Group_free(&g3), MPI_SUCCESS);
	ck_assert_ptr_eq(g3, MPI_GROUP_NULL);
	ck_assert_int_eq(MPI_Group_intersection(wg, g1, &g3), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_size(g3, &size), MPI_SUCCESS);
	ck_assert_int_eq(size, 3);	/* in wg's order: 0, 2, 5 */
	ck_assert_int_eq(MPI_Group_rank(g3, &rank), MPI_SUCCESS);
	ck_assert_int_eq(rank, 1);
	MPI_Group_free(&g3);
	ck_assert_int_eq(MPI_Group_difference(g1, g2, &g3), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_compare(g3, g1, &res), MPI_SUCCESS);
	ck_assert_int_eq(res, MPI_IDENT);
	MPI_Group_free(&g3);
	ck_assert_int_eq(MPI_Group_difference(g1, g1, &g3), MPI_SUCCESS);
	ck_assert_ptr_eq(g3, MPI_GROUP_EMPTY);
	MPI_Group_free(&g3);
	/* ranges {0, 2, 4} and {5} */
	ck_assert_int_eq(MPI_Group_range_incl(wg, 2, ranges, &g3),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_size(g3, &size), MPI_SUCCESS);
	ck_assert_int_eq(size, 4);
	ck_assert_int_eq(g3->wranks[3], 5);
	MPI_Group_free(&g3);
	ck_assert_int_eq(MPI_Group_range_excl(wg, 2, ranges, &g3),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_size(g3, &size), MPI_SUCCESS);
	ck_assert_int_eq(size, 2);	/* 1, 3 */
	MPI_Group_free(&g3);
	/* errors */
	ranks[1] = 5;
	ck_assert_int_eq(MPI_Group_incl(wg, 3, ranks, &g3), MPI_ERR_RANK);
	ranks[1] = N;
	ck_assert_int_eq(MPI_Group_excl(wg, 3, ranks, &g3), MPI_ERR_RANK);
	ck_assert_int_eq(MPI_Group_incl(wg, -1, ranks, &g3), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Group_size(MPI_GROUP_NULL, &size), MPI_ERR_GROUP);
	tr[0] = 7;
	ck_assert_int_eq(MPI_Group_translate_ranks(g1, 1, tr, wg, out),
			 MPI_ERR_RANK);
	ranges[0][2] = 0;
	ck_assert_int_eq(MPI_Group_range_incl(wg, 1, ranges, &g3),
			 MPI_ERR_RANK);
	ck_assert_int_eq(MPI_Group_free(&g1), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_free(&g2), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_free(&wg), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_free(&wg), MPI_ERR_GROUP);
	/* the world's group outlived the handle */
	ck_assert_int_eq(world->group->size, N);
}
END_TEST

START_TEST(comm_local)
{
	int same[N] = { 0, 1, 2, 3, 4, 5 }, rev[N] = { 5, 4, 3, 2, 1, 0 };
	struct rc_comm *a = fake_comm(N, same, 8), *b = fake_comm(N, rev, 12);
	struct rc_comm *c = fake_comm(2, same + 1, 16);
	char name[MPI_MAX_OBJECT_NAME];
	int res, len, flag, *val;

	ck_assert_int_eq(MPI_Comm_compare(world, world, &res), MPI_SUCCESS);
	ck_assert_int_eq(res, MPI_IDENT);
	ck_assert_int_eq(MPI_Comm_compare(world, a, &res), MPI_SUCCESS);
	ck_assert_int_eq(res, MPI_CONGRUENT);
	ck_assert_int_eq(MPI_Comm_compare(b, a, &res), MPI_SUCCESS);
	ck_assert_int_eq(res, MPI_SIMILAR);
	ck_assert_int_eq(MPI_Comm_compare(c, a, &res), MPI_SUCCESS);
	ck_assert_int_eq(res, MPI_UNEQUAL);
	ck_assert_int_eq(MPI_Comm_compare(c, MPI_COMM_NULL, &res),
			 MPI_ERR_COMM);
	ck_assert_int_eq(b->rank, 3);
	/* names */
	ck_assert_int_eq(MPI_Comm_get_name(world, name, &len), MPI_SUCCESS);
	ck_assert_str_eq(name, "MPI_COMM_WORLD");
	ck_assert_int_eq(MPI_Comm_set_name(a, "alpha"), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_get_name(a, name, &len), MPI_SUCCESS);
	ck_assert_str_eq(name, "alpha");
	ck_assert_int_eq(len, 5);
	/* attributes */
	ck_assert_int_eq(MPI_Comm_get_attr(world, MPI_TAG_UB, &val, &flag),
			 MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(*val, 0x7fffffff);
	ck_assert_int_eq(MPI_Comm_get_attr(a, MPI_UNIVERSE_SIZE, &val, &flag),
			 MPI_SUCCESS);
	ck_assert_int_eq(*val, 8);
	ck_assert_int_eq(MPI_Comm_get_attr(world, MPI_WTIME_IS_GLOBAL, &val,
					   &flag), MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(*val, 0);
	ck_assert_int_eq(MPI_Comm_get_attr(world, 12345, &val, &flag),
			 MPI_ERR_KEYVAL);
	/* free: world refused; a freed handle is dead at once */
	{
		MPI_Comm w = MPI_COMM_WORLD, x = a;

		ck_assert_int_eq(MPI_Comm_free(&w), MPI_ERR_COMM);
		ck_assert_int_eq(MPI_Comm_free(&x), MPI_SUCCESS);
		ck_assert_ptr_eq(x, MPI_COMM_NULL);
		ck_assert(!rc_ctx_used(&rc_g, 8));
	}
	rc_comm_release(b);
	rc_comm_release(c);
	ck_assert_uint_eq(rc_g.ctx_used[0], 0x3); /* world, self */
}
END_TEST

START_TEST(dims_create)
{
	int d[4];

	d[0] = d[1] = 0;
	ck_assert_int_eq(MPI_Dims_create(6, 2, d), MPI_SUCCESS);
	ck_assert(d[0] == 3 && d[1] == 2);
	d[0] = d[1] = 0;
	ck_assert_int_eq(MPI_Dims_create(7, 2, d), MPI_SUCCESS);
	ck_assert(d[0] == 7 && d[1] == 1);
	d[0] = d[1] = d[2] = 0;
	ck_assert_int_eq(MPI_Dims_create(12, 3, d), MPI_SUCCESS);
	ck_assert(d[0] == 3 && d[1] == 2 && d[2] == 2);
	d[0] = d[1] = d[2] = 0;
	ck_assert_int_eq(MPI_Dims_create(64, 3, d), MPI_SUCCESS);
	ck_assert(d[0] == 4 && d[1] == 4 && d[2] == 4);
	d[0] = 0;
	d[1] = 3;
	d[2] = 0;
	ck_assert_int_eq(MPI_Dims_create(24, 3, d), MPI_SUCCESS);
	ck_assert(d[0] == 4 && d[1] == 3 && d[2] == 2);
	d[0] = 0;
	d[1] = 5;
	ck_assert_int_eq(MPI_Dims_create(24, 2, d), MPI_ERR_DIMS);
	d[0] = -1;
	ck_assert_int_eq(MPI_Dims_create(4, 1, d), MPI_ERR_DIMS);
	ck_assert_int_eq(MPI_Dims_create(0, 1, d), MPI_ERR_DIMS);
	d[0] = 2;
	d[1] = 3;
	ck_assert_int_eq(MPI_Dims_create(6, 2, d), MPI_SUCCESS);
	d[1] = 2;
	ck_assert_int_eq(MPI_Dims_create(6, 2, d), MPI_ERR_DIMS);
	ck_assert_int_eq(MPI_Dims_create(5, 0, d), MPI_ERR_DIMS);
	ck_assert_int_eq(MPI_Dims_create(1, 0, d), MPI_SUCCESS);
}
END_TEST

/*
 * The even split, checked against an independent brute force: every
 * non-increasing factorization of n into k factors, the smallest spread
 * (largest minus smallest) wins, ties to the larger smallest factor,
 * then the larger next smallest, and so on.
 */
struct dims_ref {
	int k, have, f[6], best[6];
};

static int dims_ref_better(const struct dims_ref *r)
{
	int i, s = r->f[0] - r->f[r->k - 1];
	int b = r->best[0] - r->best[r->k - 1];

	if (!r->have || s != b)
		return !r->have || s < b;
	for (i = r->k - 1; i >= 0; i--)
		if (r->f[i] != r->best[i])
			return r->f[i] > r->best[i];
	return 0;
}

static void dims_ref_walk(struct dims_ref *r, int i, int n, int max)
{
	int d;

	if (i == r->k - 1) {
		if (n > max)
			return;
		r->f[i] = n;
		if (dims_ref_better(r)) {
			memcpy(r->best, r->f, sizeof(r->f));
			r->have = 1;
		}
		return;
	}
	for (d = n < max ? n : max; d >= 1; d--)
		if (n % d == 0) {
			r->f[i] = d;
			dims_ref_walk(r, i + 1, n / d, d);
		}
}

START_TEST(dims_create_even)
{
	static const struct {
		int n, k, want[5];
	} cases[] = {
		{72, 2, {9, 8}}, /* primes largest first: 12 x 6 */
		{1323, 2, {49, 27}},
		{228072, 3, {86, 52, 51}}, /* ties 78 x 68 x 43 */
		{712656, 5, {101, 14, 9, 8, 7}},
		{2147483647, 2, {2147483647, 1}},
		{16, 5, {2, 2, 2, 2, 1}},
	};
	struct dims_ref r;
	int d[6], i, n, k, *big;

	for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
		memset(d, 0, sizeof(d));
		ck_assert_int_eq(MPI_Dims_create(cases[i].n, cases[i].k, d),
				 MPI_SUCCESS);
		ck_assert_mem_eq(d, cases[i].want, sizeof(int) * cases[i].k);
	}
	/* fixed entries stay; the free ones split what is left (36) */
	d[0] = 0;
	d[1] = 2;
	d[2] = 0;
	ck_assert_int_eq(MPI_Dims_create(72, 3, d), MPI_SUCCESS);
	ck_assert(d[0] == 6 && d[1] == 2 && d[2] == 6);
	/* far more dimensions than factors: the rest are 1, no deeper
	 * search (was one recursion level per dimension: a stack overflow
	 * at 100000) */
	big = calloc(100000, sizeof(int));
	ck_assert_ptr_nonnull(big);
	ck_assert_int_eq(MPI_Dims_create(720, 100000, big), MPI_SUCCESS);
	ck_assert_mem_eq(big, ((int[]){5, 3, 3, 2, 2, 2, 2, 1}),
			 8 * sizeof(int));
	for (i = 8; i < 100000; i++)
		ck_assert_int_eq(big[i], 1);
	free(big);
	for (n = 1; n <= 720; n++)
		for (k = 1; k <= 5; k++) {
			memset(&r, 0, sizeof(r));
			r.k = k;
			dims_ref_walk(&r, 0, n, n);
			memset(d, 0, sizeof(d));
			ck_assert_int_eq(MPI_Dims_create(n, k, d), MPI_SUCCESS);
			ck_assert_msg(
				!memcmp(d, r.best, sizeof(int) * k),
				"%d in %dD: %d x %d ..., want %d x %d ...", n,
				k, d[0], d[1], r.best[0], r.best[1]);
		}
}
END_TEST

START_TEST(cart)
{
	int all[N] = { 0, 1, 2, 3, 4, 5 };
	int dims[2] = { 3, 2 }, periods[2] = { 1, 0 };
	int co[2], r, src, dst, nd, dd[2], pp[2], cc[2], st;
	struct rc_comm *c = fake_comm(N, all, 8);

	ck_assert_int_eq(rc_topo_cart_new(2, dims, periods, c->rank, &c->topo),
			 RC_OK);
	ck_assert_int_eq(MPI_Topo_test(c, &st), MPI_SUCCESS);
	ck_assert_int_eq(st, MPI_CART);
	ck_assert_int_eq(MPI_Topo_test(world, &st), MPI_SUCCESS);
	ck_assert_int_eq(st, MPI_UNDEFINED);
	ck_assert_int_eq(MPI_Cartdim_get(c, &nd), MPI_SUCCESS);
	ck_assert_int_eq(nd, 2);
	ck_assert_int_eq(MPI_Cart_get(c, 2, dd, pp, cc), MPI_SUCCESS);
	ck_assert(dd[0] == 3 && dd[1] == 2 && pp[0] == 1 && pp[1] == 0);
	ck_assert(cc[0] == 1 && cc[1] == 0);	/* rank 2 */
	for (r = 0; r < N; r++) {
		int back;

		ck_assert_int_eq(MPI_Cart_coords(c, r, 2, co), MPI_SUCCESS);
		ck_assert(co[0] == r / 2 && co[1] == r % 2);
		ck_assert_int_eq(MPI_Cart_rank(c, co, &back), MPI_SUCCESS);
		ck_assert_int_eq(back, r);
	}
	/* periodic wrap in dimension 0, out of range in dimension 1 */
	co[0] = -1;
	co[1] = 1;
	ck_assert_int_eq(MPI_Cart_rank(c, co, &r), MPI_SUCCESS);
	ck_assert_int_eq(r, 5);
	co[1] = 2;
	ck_assert_int_eq(MPI_Cart_rank(c, co, &r), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Cart_shift(c, 0, 1, &src, &dst), MPI_SUCCESS);
	ck_assert(src == 0 && dst == 4);
	ck_assert_int_eq(MPI_Cart_shift(c, 0, 2, &src, &dst), MPI_SUCCESS);
	ck_assert(src == 4 && dst == 0);
	ck_assert_int_eq(MPI_Cart_shift(c, 1, 1, &src, &dst), MPI_SUCCESS);
	ck_assert(src == MPI_PROC_NULL && dst == 3);
	ck_assert_int_eq(MPI_Cart_shift(c, 2, 1, &src, &dst), MPI_ERR_DIMS);
	ck_assert_int_eq(MPI_Cart_coords(c, N, 2, co), MPI_ERR_RANK);
	ck_assert_int_eq(MPI_Cart_coords(c, 0, 1, co), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Cart_coords(world, 0, 2, co), MPI_ERR_TOPOLOGY);
	ck_assert_int_eq(MPI_Cart_shift(world, 0, 1, &src, &dst),
			 MPI_ERR_TOPOLOGY);
	/* constructors' checks */
	{
		MPI_Comm nc;
		int big[2] = { 4, 2 }, bad[2] = { 3, 0 }, rem[2] = { 1, 0 };

		ck_assert_int_eq(MPI_Cart_create(world, 2, big, periods, 0,
						 &nc), MPI_ERR_TOPOLOGY);
		ck_assert_int_eq(MPI_Cart_create(world, 2, bad, periods, 0,
						 &nc), MPI_ERR_DIMS);
		ck_assert_int_eq(MPI_Cart_create(world, -1, bad, periods, 0,
						 &nc), MPI_ERR_DIMS);
		ck_assert_int_eq(MPI_Cart_sub(world, rem, &nc),
				 MPI_ERR_TOPOLOGY);
	}
	rc_comm_release(c);
}
END_TEST

/* The collective API's argument checks, one class at a time. */
START_TEST(coll_errors)
{
	int buf[64], buf2[64], displs[N] = { 0 };
	int counts[N] = { 1, 1, 1, 1, 1, 1 };
	MPI_Request req;
	MPI_Comm nc;
	MPI_Group g;
	MPI_Datatype uncommitted;
	int ranks[1] = { 1 };
	struct rc_group *other;

	ck_assert_int_eq(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Ibarrier(world, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Bcast(buf, 1, MPI_INT, N, world), MPI_ERR_ROOT);
	ck_assert_int_eq(MPI_Bcast(buf, 1, MPI_INT, -1, world), MPI_ERR_ROOT);
	ck_assert_int_eq(MPI_Bcast(buf, -1, MPI_INT, 0, world), MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, world),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, world),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Bcast(NULL, 1, MPI_INT, 0, world),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &uncommitted),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Ibcast(buf, 1, uncommitted, 0, world, &req),
			 MPI_ERR_TYPE);
	MPI_Type_free(&uncommitted);
	/* ops */
	ck_assert_int_eq(MPI_Allreduce(buf, buf2, 1, MPI_INT, MPI_OP_NULL,
				       world), MPI_ERR_OP);
	ck_assert_int_eq(MPI_Allreduce(buf, buf2, 1, MPI_FLOAT, MPI_BAND,
				       world), MPI_ERR_OP);
	ck_assert_int_eq(MPI_Reduce(buf, buf2, 1, MPI_INT, MPI_MAXLOC, 0,
				    world), MPI_ERR_OP);
	ck_assert_int_eq(MPI_Iallreduce(buf, buf2, 1, MPI_DOUBLE, MPI_LXOR,
					world, &req), MPI_ERR_OP);
	/* IN_PLACE and aliasing */
	ck_assert_int_eq(MPI_Allreduce(buf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM,
				       world), MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Allreduce(buf, buf, 1, MPI_INT, MPI_SUM, world),
			 MPI_ERR_BUFFER);
	/* rank 2 is not the root: IN_PLACE is the root's only */
	ck_assert_int_eq(MPI_Reduce(MPI_IN_PLACE, buf2, 1, MPI_INT, MPI_SUM,
				    0, world), MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Reduce(buf, buf, 1, MPI_INT, MPI_SUM, 2, world),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, buf2, 1,
				    MPI_INT, 0, world), MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Gather(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT,
				    2, world), MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Scatter(buf, 1, MPI_INT, MPI_IN_PLACE, 1,
				     MPI_INT, 0, world), MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Allgather(buf, 1, MPI_INT, MPI_IN_PLACE, 1,
				       MPI_INT, world), MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Alltoall(buf, 1, MPI_INT, buf, 1, MPI_INT,
				      world), MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Scan(buf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM,
				  world), MPI_ERR_BUFFER);
	/* counts */
	ck_assert_int_eq(MPI_Gather(buf, -1, MPI_INT, buf2, 1, MPI_INT, 0,
				    world), MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Gather(buf, 1, MPI_INT, buf2, -1, MPI_INT, 2,
				    world), MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Scatter(buf, 1, MPI_INT, buf2, 1, MPI_INT, 7,
				     world), MPI_ERR_ROOT);
	counts[4] = -1;
	ck_assert_int_eq(MPI_Gatherv(buf, 1, MPI_INT, buf2, counts, displs,
				     MPI_INT, 2, world), MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Allgatherv(buf, 1, MPI_INT, buf2, counts, displs,
					MPI_INT, world), MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Alltoallv(buf, counts, displs, MPI_INT, buf2,
				       counts, displs, MPI_INT, world),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Reduce_scatter(buf, buf2, counts, MPI_INT,
					    MPI_SUM, world), MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Reduce_scatter(buf, buf2, NULL, MPI_INT,
					    MPI_SUM, world), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Scatterv(buf, NULL, displs, MPI_INT, buf2, 1,
				      MPI_INT, 2, world), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Reduce_scatter_block(buf, buf2, -2, MPI_INT,
						  MPI_SUM, world),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Exscan(buf, buf2, 1, MPI_INT, MPI_MAXLOC, world),
			 MPI_ERR_OP);
	ck_assert_int_eq(MPI_Ialltoall(buf, 1, MPI_INT, buf2, 1, MPI_INT,
				       world, NULL), MPI_ERR_ARG);
	/* constructors */
	ck_assert_int_eq(MPI_Comm_split(world, -5, 0, &nc), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Comm_split_type(world, 99, 0, MPI_INFO_NULL,
					     &nc), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_NULL, &nc), MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Comm_create(world, MPI_GROUP_NULL, &nc),
			 MPI_ERR_GROUP);
	other = rc_group_new(1);
	other->wranks[0] = 99;	/* not in world */
	ck_assert_int_eq(MPI_Comm_create(world, other, &nc), MPI_ERR_GROUP);
	rc_group_release(other);
	ck_assert_int_eq(MPI_Group_incl(world->group, 1, ranks, &g),
			 MPI_SUCCESS);
	MPI_Group_free(&g);
}
END_TEST

/* Collectives on MPI_COMM_SELF (size 1) run locally: every one, through
 * the MPI functions, IN_PLACE included. */
START_TEST(self_colls)
{
	MPI_Comm self = MPI_COMM_SELF;
	int a[4] = { 1, 2, 3, 4 }, b[4] = { 0 }, one = 1, z = 0;
	MPI_Request req;

	ck_assert_int_eq(MPI_Barrier(self), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Bcast(a, 4, MPI_INT, 0, self), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, self),
			 MPI_SUCCESS);
	ck_assert_int_eq(memcmp(a, b, sizeof(a)), 0);
	memset(b, 0, sizeof(b));
	ck_assert_int_eq(MPI_Iallgather(a, 4, MPI_INT, b, 4, MPI_INT, self,
					&req), MPI_SUCCESS);
	ck_assert_int_eq(rc_req_done(req), 1);
	ck_assert_int_eq(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
	ck_assert_int_eq(memcmp(a, b, sizeof(a)), 0);
	ck_assert_int_eq(MPI_Alltoall(MPI_IN_PLACE, 4, MPI_INT, b, 4, MPI_INT,
				      self), MPI_SUCCESS);
	ck_assert_int_eq(memcmp(a, b, sizeof(a)), 0);
	ck_assert_int_eq(MPI_Exscan(&one, &z, 1, MPI_INT, MPI_SUM, self),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Reduce_scatter_block(MPI_IN_PLACE, b, 4, MPI_INT,
						  MPI_PROD, self),
			 MPI_SUCCESS);
	ck_assert_int_eq(memcmp(a, b, sizeof(a)), 0);
}
END_TEST

/* Intercommunicators, locally: queries, and every call that must refuse
 * one (or refuse what an intercommunicator forbids) before sending. This
 * process (world rank 2) is rank 1 of {1, 2, 5}; the remote group is
 * {0, 3}. */
START_TEST(inter_local)
{
	static const int lw[3] = {1, 2, 5}, rw[2] = {0, 3};
	struct rc_group *lg = rc_group_new(3), *rg = rc_group_new(2);
	struct rc_comm *ic, *ic2;
	int buf[16], buf2[16], counts[6] = {1, 1, 1, 1, 1, 1};
	int displs[6] = {0}, flag, n, res, dims[1] = {3}, per[1] = {0};
	MPI_Comm nc;
	MPI_Group g;
	MPI_Request req;

	memcpy(lg->wranks, lw, sizeof(lw));
	memcpy(rg->wranks, rw, sizeof(rw));
	lg->rank = 1;
	rc_ctx_mark(&rc_g, 8, true);
	ck_assert_int_eq(rc_intercomm_new(&rc_g, lg, rg, 8, world, &ic), RC_OK);
	rc_ctx_mark(&rc_g, 12, true);
	ck_assert_int_eq(rc_intercomm_new(&rc_g, lg, rg, 12, world, &ic2),
			 RC_OK);
	rc_group_release(lg);
	rc_group_release(rg);
	/* queries */
	ck_assert_int_eq(MPI_Comm_test_inter(ic, &flag), MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(MPI_Comm_test_inter(world, &flag), MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(MPI_Comm_size(ic, &n), MPI_SUCCESS);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(MPI_Comm_rank(ic, &n), MPI_SUCCESS);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(MPI_Comm_remote_size(ic, &n), MPI_SUCCESS);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(MPI_Comm_remote_group(ic, &g), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_size(g, &n), MPI_SUCCESS);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(MPI_Group_rank(g, &n), MPI_SUCCESS);
	ck_assert_int_eq(n, MPI_UNDEFINED);
	MPI_Group_free(&g);
	ck_assert_int_eq(MPI_Comm_group(ic, &g), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Group_size(g, &n), MPI_SUCCESS);
	ck_assert_int_eq(n, 3);
	MPI_Group_free(&g);
	ck_assert_int_eq(MPI_Comm_compare(ic, ic2, &res), MPI_SUCCESS);
	ck_assert_int_eq(res, MPI_CONGRUENT);
	ck_assert_int_eq(MPI_Comm_compare(ic, world, &res), MPI_SUCCESS);
	ck_assert_int_eq(res, MPI_UNEQUAL);
	ck_assert_int_eq(MPI_Topo_test(ic, &res), MPI_SUCCESS);
	ck_assert_int_eq(res, MPI_UNDEFINED);
	ck_assert_int_eq(MPI_Comm_remote_size(world, &n), MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Comm_remote_group(world, &g), MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Comm_remote_size(ic, NULL), MPI_ERR_ARG);
	/* point-to-point ranks name the remote group */
	ck_assert_int_eq(MPI_Send(buf, 1, MPI_INT, 2, 0, ic), MPI_ERR_RANK);
	ck_assert_int_eq(MPI_Irecv(buf, 1, MPI_INT, 2, 0, ic, &req),
			 MPI_ERR_RANK);
	/* not defined on intercommunicators */
	ck_assert_int_eq(MPI_Scan(buf, buf2, 1, MPI_INT, MPI_SUM, ic),
			 MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Exscan(buf, buf2, 1, MPI_INT, MPI_SUM, ic),
			 MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Iscan(buf, buf2, 1, MPI_INT, MPI_SUM, ic, &req),
			 MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Iexscan(buf, buf2, 1, MPI_INT, MPI_SUM, ic, &req),
			 MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Cart_create(ic, 1, dims, per, 0, &nc),
			 MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, 0,
					     MPI_INFO_NULL, &nc),
			 MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Comm_create_group(ic, world->group, 0, &nc),
			 MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Intercomm_merge(world, 0, &nc), MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Intercomm_create(ic, 0, world, 0, 0, &nc),
			 MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Intercomm_create(world, 6, world, 0, 0, &nc),
			 MPI_ERR_RANK);
	ck_assert_int_eq(MPI_Intercomm_create(world, 2, world, 0, -3, &nc),
			 MPI_ERR_TAG);
	ck_assert_int_eq(MPI_Intercomm_create(world, 2, world, 2, 0, &nc),
			 MPI_ERR_RANK);
	ck_assert_int_eq(
		MPI_Intercomm_create(world, 2, MPI_COMM_NULL, 0, 0, &nc),
		MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Intercomm_create(world, 2, world, 0, 0, NULL),
			 MPI_ERR_ARG);
	/* MPI_IN_PLACE is invalid in every intercommunicator collective */
	ck_assert_int_eq(
		MPI_Allreduce(MPI_IN_PLACE, buf, 1, MPI_INT, MPI_SUM, ic),
		MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Iallreduce(MPI_IN_PLACE, buf, 1, MPI_INT, MPI_SUM,
					ic, &req),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(
		MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, ic),
		MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Allgatherv(MPI_IN_PLACE, 1, MPI_INT, buf, counts,
					displs, MPI_INT, ic),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(
		MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, ic),
		MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Alltoallv(MPI_IN_PLACE, counts, displs, MPI_INT,
				       buf, counts, displs, MPI_INT, ic),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Reduce_scatter_block(MPI_IN_PLACE, buf, 1, MPI_INT,
						  MPI_SUM, ic),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Reduce_scatter(MPI_IN_PLACE, buf, counts, MPI_INT,
					    MPI_SUM, ic),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(
		MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, 0, ic),
		MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Gather(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT,
				    MPI_ROOT, ic),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(
		MPI_Scatter(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 1, ic),
		MPI_ERR_BUFFER);
	ck_assert_int_eq(
		MPI_Reduce(MPI_IN_PLACE, buf, 1, MPI_INT, MPI_SUM, 0, ic),
		MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Reduce(buf, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM,
				    MPI_ROOT, ic),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, MPI_ROOT, ic),
			 MPI_ERR_BUFFER);
	/* roots: MPI_ROOT, MPI_PROC_NULL or a remote rank */
	ck_assert_int_eq(MPI_Bcast(buf, 1, MPI_INT, 2, ic), MPI_ERR_ROOT);
	ck_assert_int_eq(MPI_Bcast(buf, 1, MPI_INT, -7, ic), MPI_ERR_ROOT);
	ck_assert_int_eq(
		MPI_Ireduce(buf, buf2, 1, MPI_INT, MPI_SUM, 2, ic, &req),
		MPI_ERR_ROOT);
	ck_assert_int_eq(MPI_Gatherv(buf, 1, MPI_INT, buf2, counts, displs,
				     MPI_INT, 5, ic),
			 MPI_ERR_ROOT);
	/* root-side arguments checked at the root only */
	ck_assert_int_eq(MPI_Gatherv(buf, 1, MPI_INT, buf2, NULL, displs,
				     MPI_INT, MPI_ROOT, ic),
			 MPI_ERR_ARG);
	ck_assert_int_eq(
		MPI_Scatter(buf, -1, MPI_INT, buf2, 1, MPI_INT, MPI_ROOT, ic),
		MPI_ERR_COUNT);
	ck_assert_int_eq(
		MPI_Reduce(buf, buf2, 1, MPI_FLOAT, MPI_BAND, MPI_ROOT, ic),
		MPI_ERR_OP);
	rc_comm_release(ic);
	rc_comm_release(ic2);
	ck_assert_uint_eq(rc_g.ctx_used[0], 0x3);
}
END_TEST

/* Graph and distributed-graph queries on topologies attached here, the
 * mapping calls, and every argument check of the topology constructors,
 * the neighbourhood collectives and alltoallw (all local). */
START_TEST(topo_local)
{
	int all[N] = {0, 1, 2, 3, 4, 5};
	/* 0: {1, 2}, 1: {0}, 2: {0, 2} */
	int index[3] = {2, 3, 5}, edges[5] = {1, 2, 0, 0, 2};
	int bad_index[3] = {2, 1, 5}, bad_edges[5] = {1, 2, 0, 3, 2};
	int dims[2] = {3, 2}, per[2] = {0, 1}, in[2] = {4, 4};
	int inw[2] = {7, 8}, out[1] = {0}, outw[1] = {9};
	int n, e, r, x[8], y[8], w[8], wt, buf[8],
		cnt[8] = {1, 1, 1, 1, 1, 1, 1, 1};
	int dsp[8] = {0};
	MPI_Datatype types[8];
	MPI_Aint adsp[8] = {0};
	struct rc_comm *g = fake_comm(N, all, 8), *d = fake_comm(N, all, 12);
	struct rc_comm *c = fake_comm(N, all, 16);
	MPI_Comm nc;
	MPI_Request req;

	for (r = 0; r < 8; r++)
		types[r] = MPI_INT;
	ck_assert_int_eq(rc_topo_graph_new(3, index, edges, g->rank, &g->topo),
			 RC_OK);
	ck_assert_int_eq(
		rc_topo_dist_new(2, in, inw, 1, out, outw, true, 2, &d->topo),
		RC_OK);
	ck_assert_int_eq(rc_topo_cart_new(2, dims, per, c->rank, &c->topo),
			 RC_OK);
	/* topo test */
	ck_assert_int_eq(MPI_Topo_test(g, &r), MPI_SUCCESS);
	ck_assert_int_eq(r, MPI_GRAPH);
	ck_assert_int_eq(MPI_Topo_test(d, &r), MPI_SUCCESS);
	ck_assert_int_eq(r, MPI_DIST_GRAPH);
	/* graph queries */
	ck_assert_int_eq(MPI_Graphdims_get(g, &n, &e), MPI_SUCCESS);
	ck_assert(n == 3 && e == 5);
	ck_assert_int_eq(MPI_Graph_get(g, 3, 5, x, y), MPI_SUCCESS);
	ck_assert(x[1] == 3 && y[3] == 0 && y[4] == 2);
	ck_assert_int_eq(MPI_Graph_neighbors_count(g, 2, &n), MPI_SUCCESS);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(MPI_Graph_neighbors(g, 2, 8, x), MPI_SUCCESS);
	ck_assert(x[0] == 0 && x[1] == 2);
	ck_assert_int_eq(MPI_Graph_neighbors(g, 3, 8, x), MPI_ERR_RANK);
	ck_assert_int_eq(MPI_Graph_neighbors_count(g, -1, &n), MPI_ERR_RANK);
	ck_assert_int_eq(MPI_Graph_get(g, -1, 5, x, y), MPI_ERR_ARG);
	/* a graph call on a Cartesian communicator, and the reverse */
	ck_assert_int_eq(MPI_Graphdims_get(c, &n, &e), MPI_ERR_TOPOLOGY);
	ck_assert_int_eq(MPI_Graph_neighbors(c, 0, 8, x), MPI_ERR_TOPOLOGY);
	ck_assert_int_eq(MPI_Cart_coords(g, 0, 2, x), MPI_ERR_TOPOLOGY);
	ck_assert_int_eq(MPI_Dist_graph_neighbors_count(g, &n, &e, &r),
			 MPI_ERR_TOPOLOGY);
	ck_assert_int_eq(MPI_Graphdims_get(d, &n, &e), MPI_ERR_TOPOLOGY);
	ck_assert_int_eq(MPI_Graphdims_get(world, &n, &e), MPI_ERR_TOPOLOGY);
	/* distributed graph queries */
	ck_assert_int_eq(MPI_Dist_graph_neighbors_count(d, &n, &e, &r),
			 MPI_SUCCESS);
	ck_assert(n == 2 && e == 1 && r == 1);
	ck_assert_int_eq(MPI_Dist_graph_neighbors(d, 2, x, y, 1, w, &wt),
			 MPI_SUCCESS);
	ck_assert(x[0] == 4 && x[1] == 4 && y[0] == 7 && y[1] == 8);
	ck_assert(w[0] == 0 && wt == 9);
	ck_assert_int_eq(MPI_Dist_graph_neighbors(d, 2, x, MPI_UNWEIGHTED, 1, w,
						  MPI_UNWEIGHTED),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Dist_graph_neighbors(d, 1, x, y, 1, w, &wt),
			 MPI_ERR_ARG);
	/* mapping: rcmpi keeps ranks */
	ck_assert_int_eq(MPI_Graph_map(world, 3, index, edges, &r),
			 MPI_SUCCESS);
	ck_assert_int_eq(r, 2);
	ck_assert_int_eq(MPI_Graph_map(world, 2, index, edges, &r),
			 MPI_ERR_ARG); /* edge 2 names no node */
	ck_assert_int_eq(MPI_Cart_map(world, 2, dims, per, &r), MPI_SUCCESS);
	ck_assert_int_eq(r, 2);
	dims[0] = 1;
	ck_assert_int_eq(MPI_Cart_map(world, 2, dims, per, &r), MPI_SUCCESS);
	ck_assert_int_eq(r, MPI_UNDEFINED);
	dims[0] = 4;
	ck_assert_int_eq(MPI_Cart_map(world, 2, dims, per, &r),
			 MPI_ERR_TOPOLOGY);
	dims[0] = 0;
	ck_assert_int_eq(MPI_Cart_map(world, 2, dims, per, &r), MPI_ERR_DIMS);
	dims[0] = 3;
	/* constructors' checks */
	ck_assert_int_eq(MPI_Graph_create(world, 7, index, edges, 0, &nc),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Graph_create(world, -1, index, edges, 0, &nc),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Graph_create(world, 3, bad_index, edges, 0, &nc),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Graph_create(world, 3, index, bad_edges, 0, &nc),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Graph_create(world, 3, NULL, edges, 0, &nc),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Graph_create(world, 0, NULL, NULL, 0, &nc),
			 MPI_SUCCESS);
	ck_assert_ptr_eq(nc, MPI_COMM_NULL);
	ck_assert_int_eq(MPI_Dist_graph_create_adjacent(world, -1, in, inw, 1,
							out, outw,
							MPI_INFO_NULL, 0, &nc),
			 MPI_ERR_ARG);
	in[1] = N;
	ck_assert_int_eq(MPI_Dist_graph_create_adjacent(world, 2, in, inw, 1,
							out, outw,
							MPI_INFO_NULL, 0, &nc),
			 MPI_ERR_ARG);
	in[1] = 4;
	inw[0] = -1;
	ck_assert_int_eq(MPI_Dist_graph_create_adjacent(world, 2, in, inw, 1,
							out, outw,
							MPI_INFO_NULL, 0, &nc),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Dist_graph_create_adjacent(
				 world, 2, in, MPI_WEIGHTS_EMPTY, 1, out, outw,
				 MPI_INFO_NULL, 0, &nc),
			 MPI_ERR_ARG);
	{
		int src[1] = {2}, deg[1] = {2}, dst[2] = {0, 9};

		ck_assert_int_eq(MPI_Dist_graph_create(world, 1, src, deg, dst,
						       MPI_UNWEIGHTED,
						       MPI_INFO_NULL, 0, &nc),
				 MPI_ERR_ARG);
		deg[0] = -1;
		ck_assert_int_eq(MPI_Dist_graph_create(world, 1, src, deg, dst,
						       MPI_UNWEIGHTED,
						       MPI_INFO_NULL, 0, &nc),
				 MPI_ERR_ARG);
		src[0] = -3;
		deg[0] = 1;
		ck_assert_int_eq(MPI_Dist_graph_create(world, 1, src, deg, dst,
						       MPI_UNWEIGHTED,
						       MPI_INFO_NULL, 0, &nc),
				 MPI_ERR_ARG);
		ck_assert_int_eq(MPI_Dist_graph_create(world, -1, src, deg, dst,
						       MPI_UNWEIGHTED,
						       MPI_INFO_NULL, 0, &nc),
				 MPI_ERR_ARG);
	}
	/* neighbourhood collectives: no topology, MPI_IN_PLACE, counts */
	ck_assert_int_eq(
		MPI_Neighbor_allgather(buf, 1, MPI_INT, x, 1, MPI_INT, world),
		MPI_ERR_TOPOLOGY);
	ck_assert_int_eq(MPI_Ineighbor_alltoall(buf, 1, MPI_INT, x, 1, MPI_INT,
						world, &req),
			 MPI_ERR_TOPOLOGY);
	ck_assert_int_eq(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, x, 1,
						MPI_INT, c),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(
		MPI_Neighbor_alltoall(buf, -1, MPI_INT, x, 1, MPI_INT, c),
		MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Neighbor_allgatherv(buf, 1, MPI_INT, x, NULL, dsp,
						 MPI_INT, g),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Neighbor_alltoallv(buf, cnt, dsp,
						MPI_DATATYPE_NULL, x, cnt, dsp,
						MPI_INT, d),
			 MPI_ERR_TYPE);
	types[1] = MPI_DATATYPE_NULL;
	ck_assert_int_eq(MPI_Neighbor_alltoallw(buf, cnt, adsp, types, x, cnt,
						adsp, types, d),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Ineighbor_alltoallw(buf, cnt, adsp, types, x, cnt,
						 adsp, types, d, NULL),
			 MPI_ERR_ARG);
	/* alltoallw */
	ck_assert_int_eq(
		MPI_Alltoallw(buf, cnt, dsp, types, x, cnt, dsp, types, world),
		MPI_ERR_TYPE);
	types[1] = MPI_INT;
	cnt[3] = -1;
	ck_assert_int_eq(
		MPI_Alltoallw(buf, cnt, dsp, types, x, cnt, dsp, types, world),
		MPI_ERR_COUNT);
	cnt[3] = 1;
	ck_assert_int_eq(MPI_Alltoallw(buf, cnt, dsp, types, buf, cnt, dsp,
				       types, world),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Ialltoallw(buf, NULL, dsp, types, x, cnt, dsp,
					types, world, &req),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Alltoallw(buf, cnt, dsp, types, MPI_IN_PLACE, cnt,
				       dsp, types, world),
			 MPI_ERR_BUFFER);
	rc_comm_release(g);
	rc_comm_release(d);
	rc_comm_release(c);
}
END_TEST

/* ---- context-id agreement over the in-process fabric --------------------- */

#define NR 6

/* Allreduce(SUM) of 1 on every member of comm (c[r]: rank r's, or NULL):
 * the communicator carries traffic, and its size is right. */
static void check_works(struct tw *tw, struct rc_comm **c)
{
	struct rc_req *req[NR];
	int x[NR], y[NR], r, m = 0;

	for (r = 0; r < tw->n; r++) {
		struct rc_cargs a;

		if (!c[r])
			continue;
		memset(&a, 0, sizeof(a));
		x[r] = 1;
		a.sbuf = &x[r];
		a.rbuf = &y[r];
		a.count = 1;
		a.dt = &rc_mpi_int;
		a.op = &rc_mpi_sum;
		ck_assert_int_eq(
			rc_coll_start(c[r], RC_COLL_ALLREDUCE, &a, &req[r]),
			RC_OK);
		m++;
	}
	for (r = 0; r < tw->n; r++)
		if (c[r]) {
			tw_wait(tw, req[r]);
			ck_assert_int_eq(req[r]->err, RC_OK);
			rc_req_free(req[r]);
			ck_assert_int_eq(y[r], c[r]->size);
		}
	ck_assert_int_gt(m, 0);
}

/* Two MPI_Comm_idup in flight on each of two communicators (world and a
 * dup of it), started in the four orders that keep each communicator's
 * own order, and completed in the opposite orders on different ranks. */
START_TEST(idup_orders)
{
	/* per rank: the order of starting {A1, A2, B1, B2} */
	static const int starts[4][4] = {
		{0, 1, 2, 3},
		{2, 3, 0, 1},
		{0, 2, 1, 3},
		{2, 0, 3, 1},
	};
	struct tw *tw = tw_new(NR);
	struct rc_comm *b[NR], *out[4][NR];
	struct rc_req *req[4][NR], *one[NR];
	int r, k, i, j;

	tw_open(tw);
	for (r = 0; r < NR; r++)
		ck_assert_int_eq(
			rc_comm_dup(tw->inst[r]->world, &b[r], &one[r]), RC_OK);
	for (r = 0; r < NR; r++) {
		tw_wait(tw, one[r]);
		rc_req_free(one[r]);
	}
	for (r = 0; r < NR; r++) {
		const int *o = starts[r % 4];

		for (i = 0; i < 4; i++) {
			k = o[i];
			ck_assert_int_eq(
				rc_comm_dup(k < 2 ? tw->inst[r]->world : b[r],
					    &out[k][r], &req[k][r]),
				RC_OK);
			/* a little progress between starts: rounds of
			 * different creations interleave */
			tw_progress(tw);
		}
	}
	/* completion: even ranks wait B2, B1, A2, A1; odd ranks A1..B2 */
	for (i = 0; i < 4; i++)
		for (r = 0; r < NR; r++) {
			k = r % 2 ? i : 3 - i;
			tw_wait(tw, req[k][r]);
			ck_assert_int_eq(req[k][r]->err, RC_OK);
			rc_req_free(req[k][r]);
		}
	for (k = 0; k < 4; k++) {
		for (r = 0; r < NR; r++) {
			ck_assert_ptr_nonnull(out[k][r]);
			ck_assert_int_eq(out[k][r]->ctx, out[k][0]->ctx);
			ck_assert_int_eq(out[k][r]->rank, r);
			for (j = 0; j < k; j++)
				ck_assert_int_ne(out[k][r]->ctx,
						 out[j][r]->ctx);
			ck_assert_int_ne(out[k][r]->ctx, b[r]->ctx);
		}
		check_works(tw, out[k]);
	}
	for (r = 0; r < NR; r++) {
		for (k = 0; k < 4; k++)
			rc_comm_release(out[k][r]);
		rc_comm_release(b[r]);
	}
	tw_free(tw);
}
END_TEST

/* Rank 0 "blocks" in a dup of B (it cannot start anything else until that
 * dup is done) while the others have an idup of world in flight: world's
 * agreement has the lower key, but rank 0 has not called it, so it must
 * not hold up B's. Then rank 0 calls world's, and both finish. */
START_TEST(blocked_elsewhere)
{
	struct tw *tw = tw_new(4);
	struct rc_comm *b[4], *x[4], *y[4];
	struct rc_req *rx[4], *ry[4];
	int r, spins = 0;

	tw_open(tw);
	for (r = 0; r < 4; r++)
		ck_assert_int_eq(rc_comm_dup(tw->inst[r]->world, &b[r], &rx[r]),
				 RC_OK);
	for (r = 0; r < 4; r++) {
		tw_wait(tw, rx[r]);
		rc_req_free(rx[r]);
	}
	/* the uncontended path took one round: the eager region */
	ck_assert_int_lt(b[0]->ctx, 64 * RC_CTX_BLOCK);
	for (r = 1; r < 4; r++) {
		ck_assert_int_eq(rc_comm_dup(tw->inst[r]->world, &x[r], &rx[r]),
				 RC_OK);
		tw_progress(tw);
	}
	for (r = 0; r < 4; r++)
		ck_assert_int_eq(rc_comm_dup(b[r], &y[r], &ry[r]), RC_OK);
	while (!rc_req_done(ry[0])) {
		tw_progress(tw);
		ck_assert_msg(++spins < 1000000, "dup of B held up");
	}
	ck_assert(!rc_req_done(rx[1]));
	ck_assert_int_eq(rc_comm_dup(tw->inst[0]->world, &x[0], &rx[0]), RC_OK);
	for (r = 0; r < 4; r++) {
		tw_wait(tw, rx[r]);
		tw_wait(tw, ry[r]);
		ck_assert_int_eq(rx[r]->err, RC_OK);
		ck_assert_int_eq(ry[r]->err, RC_OK);
		rc_req_free(rx[r]);
		rc_req_free(ry[r]);
		ck_assert_int_ne(x[r]->ctx, y[r]->ctx);
		ck_assert_int_eq(x[r]->ctx, x[0]->ctx);
		ck_assert_int_eq(y[r]->ctx, y[0]->ctx);
	}
	check_works(tw, x);
	check_works(tw, y);
	for (r = 0; r < 4; r++) {
		rc_comm_release(x[r]);
		rc_comm_release(y[r]);
		rc_comm_release(b[r]);
	}
	tw_free(tw);
}
END_TEST

/* MPI_Comm_create_group: only the group's members take part, keyed by the
 * tag; the parent's collective sequence does not move on anyone, so a
 * collective on the parent afterwards still matches. Two creations on one
 * parent with overlapping groups and distinct tags, started in opposite
 * orders, with an idup of the parent in flight across them. */
START_TEST(create_group)
{
	static const int ga[] = {4, 1, 2}, gb[] = {2, 3, 4, 5};
	struct tw *tw = tw_new(NR);
	struct rc_group *g1[NR], *g2[NR];
	struct rc_comm *c1[NR], *c2[NR], *d[NR];
	struct rc_req *r1[NR], *r2[NR], *rd[NR];
	uint32_t seq[NR];
	int r, i;

	tw_open(tw);
	for (r = 0; r < NR; r++) {
		seq[r] = tw->inst[r]->world->coll_seq;
		/* each rank's own group objects (my rank in them) */
		g1[r] = rc_group_new(3);
		g2[r] = rc_group_new(4);
		memcpy(g1[r]->wranks, ga, sizeof(ga));
		memcpy(g2[r]->wranks, gb, sizeof(gb));
		g1[r]->rank = rc_group_rank_of(g1[r], r);
		g2[r]->rank = rc_group_rank_of(g2[r], r);
	}
	for (r = 0; r < NR; r++) {
		struct rc_comm *w = tw->inst[r]->world;
		bool in1 = g1[r]->rank != MPI_UNDEFINED;
		bool in2 = g2[r]->rank != MPI_UNDEFINED;

		c1[r] = c2[r] = NULL;
		r1[r] = r2[r] = NULL;
		if (r % 2) {
			if (in1)
				ck_assert_int_eq(rc_comm_create_group(w, g1[r],
								      7, &c1[r],
								      &r1[r]),
						 RC_OK);
			ck_assert_int_eq(rc_comm_dup(w, &d[r], &rd[r]), RC_OK);
			if (in2)
				ck_assert_int_eq(rc_comm_create_group(w, g2[r],
								      9, &c2[r],
								      &r2[r]),
						 RC_OK);
		} else {
			if (in2)
				ck_assert_int_eq(rc_comm_create_group(w, g2[r],
								      9, &c2[r],
								      &r2[r]),
						 RC_OK);
			ck_assert_int_eq(rc_comm_dup(w, &d[r], &rd[r]), RC_OK);
			if (in1)
				ck_assert_int_eq(rc_comm_create_group(w, g1[r],
								      7, &c1[r],
								      &r1[r]),
						 RC_OK);
		}
		tw_progress(tw);
	}
	for (r = NR - 1; r >= 0; r--) {
		if (r1[r]) {
			tw_wait(tw, r1[r]);
			ck_assert_int_eq(r1[r]->err, RC_OK);
			rc_req_free(r1[r]);
		}
		if (r2[r]) {
			tw_wait(tw, r2[r]);
			ck_assert_int_eq(r2[r]->err, RC_OK);
			rc_req_free(r2[r]);
		}
		tw_wait(tw, rd[r]);
		rc_req_free(rd[r]);
	}
	for (r = 0; r < NR; r++) {
		/* only the dup moved world's sequence */
		ck_assert_uint_eq(tw->inst[r]->world->coll_seq, seq[r] + 1);
		ck_assert_int_eq(!!c1[r], r == 4 || r == 1 || r == 2);
		ck_assert_int_eq(!!c2[r], r >= 2);
		if (c1[r]) {
			ck_assert_int_eq(c1[r]->size, 3);
			for (i = 0; i < 3; i++)
				ck_assert_int_eq(rc_comm_wrank(c1[r], i),
						 ga[i]);
			ck_assert_int_eq(c1[r]->ctx, c1[4]->ctx);
			ck_assert_int_ne(c1[r]->ctx, d[r]->ctx);
		}
		if (c2[r]) {
			ck_assert_int_eq(c2[r]->rank, r - 2);
			ck_assert_int_eq(c2[r]->ctx, c2[2]->ctx);
			ck_assert_int_ne(c2[r]->ctx, d[r]->ctx);
			if (c1[r])
				ck_assert_int_ne(c2[r]->ctx, c1[r]->ctx);
		}
	}
	check_works(tw, c1);
	check_works(tw, c2);
	check_works(tw, d);
	/* the parent still works: its sequence is the same everywhere */
	{
		struct rc_comm *w[NR];

		for (r = 0; r < NR; r++)
			w[r] = tw->inst[r]->world;
		check_works(tw, w);
	}
	for (r = 0; r < NR; r++) {
		if (c1[r])
			rc_comm_release(c1[r]);
		if (c2[r])
			rc_comm_release(c2[r]);
		rc_comm_release(d[r]);
	}
	for (r = 0; r < NR; r++) {
		rc_group_release(g1[r]);
		rc_group_release(g2[r]);
	}
	tw_free(tw);
}
END_TEST

/*
 * Many creations interleaved: a random program of NOPS creations on world,
 * on two dups of it (A, B) and on the two halves H of a split (ranks in
 * each half see their own half: two communicators that may share a
 * context), as each rank might start them: every communicator's creations
 * in the same order on every rank, MPI_Comm_create_group among its members
 * only, blocking ones in program order (a rank in one does nothing else
 * until it is done), nonblocking ones started early or late at random;
 * progress handed to random ranks; some results freed early, so contexts
 * are reused while others are being agreed.
 */
enum { F_DUP, F_SPLIT, F_CREATE, F_CGROUP };
#define NOPS 40

struct fop {
	int parent; /* 0 world, 1 A, 2 B, 3 H */
	int kind;
	bool blocking, free_early;
	unsigned mask; /* create, create_group: world ranks */
	struct rc_comm *out[NR];
	struct rc_req *req[NR];
	bool started[NR], seen[NR];
	uint32_t ctx[NR];
};

static unsigned frand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

static bool fop_takes_part(const struct fop *f, int r)
{
	return f->kind != F_CGROUP || (f->mask & (1u << r));
}

static int fop_color(const struct fop *f, int op, int prank)
{
	return (prank + op) % 3 == 0 ? MPI_UNDEFINED : (prank + op) % 2;
}

static struct rc_comm *fop_parent(struct rc_comm *par[4][NR], int p, int r)
{
	return par[p][r];
}

static void fop_start(struct fop *ops, int op, struct rc_comm *par[4][NR],
		      int r)
{
	struct fop *f = &ops[op];
	struct rc_comm *p = fop_parent(par, f->parent, r);
	struct rc_group *g;
	int i, k = 0;

	f->started[r] = true;
	switch (f->kind) {
	case F_DUP:
		ck_assert_int_eq(rc_comm_dup(p, &f->out[r], &f->req[r]), RC_OK);
		break;
	case F_SPLIT:
		ck_assert_int_eq(rc_comm_split(p, fop_color(f, op, p->rank),
					       -p->rank, &f->out[r],
					       &f->req[r]),
				 RC_OK);
		break;
	default:
		g = rc_group_new(__builtin_popcount(f->mask));
		for (i = 0; i < NR; i++)
			if (f->mask & (1u << i))
				g->wranks[k++] = i;
		g->rank = rc_group_rank_of(g, r);
		if (f->kind == F_CREATE)
			ck_assert_int_eq(
				rc_comm_create(p, g, &f->out[r], &f->req[r]),
				RC_OK);
		else
			ck_assert_int_eq(rc_comm_create_group(p, g, 100 + op,
							      &f->out[r],
							      &f->req[r]),
					 RC_OK);
		rc_group_release(g);
		break;
	}
}

/* The next creation rank r may start, or -1. */
static int fop_next(struct fop *ops, int r, unsigned *seed)
{
	int cand[NOPS], nc = 0, p, i, first_blocking = -1;

	for (i = 0; i < NOPS; i++)
		if (fop_takes_part(&ops[i], r) && !ops[i].started[r] &&
		    ops[i].blocking) {
			first_blocking = i;
			break;
		}
	/* heads of the per-communicator chains (create_group: its own) */
	for (p = 0; p < 4; p++)
		for (i = 0; i < NOPS; i++) {
			struct fop *f = &ops[i];

			if (f->parent != p || f->kind == F_CGROUP ||
			    f->started[r])
				continue;
			if (!f->blocking || i == first_blocking)
				cand[nc++] = i;
			break;
		}
	for (i = 0; i < NOPS; i++) {
		struct fop *f = &ops[i];

		if (f->kind == F_CGROUP && fop_takes_part(f, r) &&
		    !f->started[r] && (!f->blocking || i == first_blocking))
			cand[nc++] = i;
	}
	return nc ? cand[frand(seed) % (unsigned)nc] : -1;
}

/* Rank r's live communicators (world, self, parents, kept results) must
 * have distinct contexts, and the one it just got among them. */
static void fop_check_live(struct fop *ops, struct rc_comm *par[4][NR],
			   struct tw *tw, int r)
{
	uint32_t ctx[4 + 2 + NOPS];
	int n = 0, i, j;

	ctx[n++] = tw->inst[r]->world->ctx;
	ctx[n++] = tw->inst[r]->self->ctx;
	for (i = 1; i < 4; i++)
		ctx[n++] = par[i][r]->ctx;
	for (i = 0; i < NOPS; i++)
		if (ops[i].seen[r] && ops[i].out[r])
			ctx[n++] = ops[i].out[r]->ctx;
	for (i = 0; i < n; i++) {
		ck_assert(rc_ctx_used(tw->inst[r], ctx[i]));
		for (j = 0; j < i; j++)
			ck_assert_msg(ctx[i] != ctx[j],
				      "rank %d: context %u twice", r, ctx[i]);
	}
}

START_TEST(interleaved)
{
	struct tw *tw = tw_new(NR);
	struct rc_comm *par[4][NR], *tmp[NR];
	struct fop *ops = calloc(NOPS, sizeof(*ops));
	struct rc_req *req[NR];
	unsigned seed = 77u + (unsigned)_i * 7919u, left, spins = 0;
	bool blocked[NR] = {false};
	int blk[NR], r, i, k;

	ck_assert_ptr_nonnull(ops);
	tw_open(tw);
	for (r = 0; r < NR; r++)
		par[0][r] = tw->inst[r]->world;
	for (k = 1; k < 4; k++) {
		for (r = 0; r < NR; r++)
			ck_assert_int_eq(
				k < 3 ? rc_comm_dup(par[0][r], &par[k][r],
						    &req[r])
				      : rc_comm_split(par[0][r], r % 2, r,
						      &par[k][r], &req[r]),
				RC_OK);
		for (r = 0; r < NR; r++) {
			tw_wait(tw, req[r]);
			rc_req_free(req[r]);
		}
	}
	for (i = 0; i < NOPS; i++) {
		struct fop *f = &ops[i];

		f->parent = (int)(frand(&seed) % 4);
		f->kind = (int)(frand(&seed) % 4);
		if (f->parent == 3 && f->kind >= F_CREATE)
			f->kind -= 2; /* the halves: dup and split */
		f->blocking = frand(&seed) % 3 == 0;
		f->free_early = frand(&seed) % 3 == 0;
		do
			f->mask = frand(&seed) & ((1u << NR) - 1);
		while (!f->mask);
	}
	left = 0;
	for (i = 0; i < NOPS; i++)
		for (r = 0; r < NR; r++)
			left += fop_takes_part(&ops[i], r);
	while (left) {
		r = (int)(frand(&seed) % NR);
		ck_assert_msg(++spins < 5000000u, "stuck with %u left", left);
		if (!blocked[r] && frand(&seed) % 2) {
			k = fop_next(ops, r, &seed);
			if (k >= 0) {
				fop_start(ops, k, par, r);
				if (ops[k].blocking) {
					blocked[r] = true;
					blk[r] = k;
				}
				continue;
			}
		}
		rc_progress(tw->inst[r]);
		for (i = 0; i < NOPS; i++) {
			struct fop *f = &ops[i];

			if (!f->started[r] || f->seen[r])
				continue;
			if (f->req[r] && !rc_req_done(f->req[r]))
				continue;
			if (f->req[r]) {
				ck_assert_int_eq(f->req[r]->err, RC_OK);
				rc_req_free(f->req[r]);
				f->req[r] = NULL;
			}
			f->seen[r] = true;
			f->ctx[r] = f->out[r] ? f->out[r]->ctx : 0;
			left--;
			fop_check_live(ops, par, tw, r);
			if (blocked[r] && blk[r] == i)
				blocked[r] = false;
		}
		/* free an early one now and then */
		i = (int)(frand(&seed) % NOPS);
		if (ops[i].seen[r] && ops[i].free_early && ops[i].out[r]) {
			rc_comm_release(ops[i].out[r]);
			ops[i].out[r] = NULL;
		}
	}
	/* members, ranks, one context per result, and traffic */
	for (i = 0; i < NOPS; i++) {
		struct fop *f = &ops[i];

		for (r = 0; r < NR; r++) {
			struct rc_comm *p = par[f->parent][r];
			int want_size = 0, want_rank = 0, j, pr = p->rank;
			bool member;

			if (!fop_takes_part(f, r))
				continue;
			switch (f->kind) {
			case F_DUP:
				member = true;
				want_size = p->size;
				want_rank = pr;
				break;
			case F_SPLIT:
				member = fop_color(f, i, pr) != MPI_UNDEFINED;
				for (j = 0; j < p->size; j++)
					if (fop_color(f, i, j) ==
					    fop_color(f, i, pr)) {
						want_size++;
						want_rank += j > pr;
					}
				break;
			default:
				member = f->mask & (1u << r);
				want_size = __builtin_popcount(f->mask);
				want_rank = __builtin_popcount(f->mask &
							       ((1u << r) - 1));
				break;
			}
			ck_assert_msg(member == (f->ctx[r] != 0),
				      "op %d rank %d: member %d", i, r, member);
			if (!member || !f->out[r])
				continue;
			ck_assert_int_eq(f->out[r]->size, want_size);
			ck_assert_int_eq(f->out[r]->rank, want_rank);
			for (j = 0; j < want_size; j++) {
				int w = rc_comm_wrank(f->out[r], j);

				/* the same result communicator on w: the
				 * same context */
				if (f->out[w])
					ck_assert_uint_eq(f->ctx[w], f->ctx[r]);
			}
		}
		if (!f->free_early) {
			for (r = 0; r < NR; r++)
				tmp[r] = f->out[r];
			check_works(tw, tmp);
		}
	}
	for (i = 0; i < NOPS; i++)
		for (r = 0; r < NR; r++)
			if (ops[i].out[r])
				rc_comm_release(ops[i].out[r]);
	for (k = 1; k < 4; k++)
		for (r = 0; r < NR; r++)
			rc_comm_release(par[k][r]);
	/* everything but world and self is free again */
	for (r = 0; r < NR; r++) {
		ck_assert_uint_eq(tw->inst[r]->ctx_used[0], 0x3);
		for (i = 1; i < RC_CTX_WORDS; i++)
			ck_assert_uint_eq(tw->inst[r]->ctx_used[i], 0);
		ck_assert_ptr_null(tw->inst[r]->ctx_agree);
		ck_assert_uint_eq(tw->inst[r]->ctx_locked, 0);
	}
	free(ops);
	tw_free(tw);
}
END_TEST

static Suite *comm_suite(void)
{
	Suite *s = suite_create("comm");
	TCase *tc = fake_mpi_tcase("local", TMO, setup, fake_mpi_teardown);

	tcase_add_test(tc, groups);
	tcase_add_test(tc, comm_local);
	tcase_add_test(tc, dims_create);
	tcase_add_test(tc, dims_create_even);
	tcase_add_test(tc, cart);
	tcase_add_test(tc, coll_errors);
	tcase_add_test(tc, self_colls);
	tcase_add_test(tc, inter_local);
	tcase_add_test(tc, topo_local);
	suite_add_tcase(s, tc);
	tc = tcase_create("ctxid");
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, idup_orders);
	tcase_add_test(tc, blocked_elsewhere);
	tcase_add_test(tc, create_group);
	tcase_add_loop_test(tc, interleaved, 0, 24);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fake_mpi_run(comm_suite());
}
