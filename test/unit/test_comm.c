/*
 * test_comm.c - the local communicator, group and topology functions and
 * the argument checks of the collective API, called through the MPI
 * functions on a fake initialised process (no transports): a 6-rank
 * MPI_COMM_WORLD whose handler returns errors, this process being world
 * rank 2. Nothing here communicates: every call either works locally or
 * must fail its checks before any message would be sent.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "coll.h"
#include "comm.h"
#include "dtype.h"
#include "fake_mpi.h"
#include "op.h"
#include "request.h"
#include "topo.h"

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
	struct rc_comm *a = fake_comm(N, same, 10), *b = fake_comm(N, rev, 12);
	struct rc_comm *c = fake_comm(2, same + 1, 14);
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
		ck_assert(!(rc_g.ctx_used[0] & (1u << 10)));
	}
	rc_comm_release(b);
	rc_comm_release(c);
	ck_assert_uint_eq(rc_g.ctx_used[0], 0xf);
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

START_TEST(cart)
{
	int all[N] = { 0, 1, 2, 3, 4, 5 };
	int dims[2] = { 3, 2 }, periods[2] = { 1, 0 };
	int co[2], r, src, dst, nd, dd[2], pp[2], cc[2], st;
	struct rc_comm *c = fake_comm(N, all, 10);

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

static Suite *comm_suite(void)
{
	Suite *s = suite_create("comm");
	TCase *tc = fake_mpi_tcase("local", TMO, setup, fake_mpi_teardown);

	tcase_add_test(tc, groups);
	tcase_add_test(tc, comm_local);
	tcase_add_test(tc, dims_create);
	tcase_add_test(tc, cart);
	tcase_add_test(tc, coll_errors);
	tcase_add_test(tc, self_colls);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fake_mpi_run(comm_suite());
}
