/*
 * comm_ctx.c - an MPI job for context ids under concurrent creation:
 * MPI_Comm_idup (several in flight on two communicators, started and
 * completed in different orders on different ranks), a blocking
 * MPI_Comm_dup on one communicator while an idup of another is pending,
 * MPI_Comm_create_group (overlapping groups with distinct tags; groups of
 * one; the parent's other members never call)
 * and hundreds of creations and frees. Each new communicator must carry
 * its own traffic: a message sent on one never lands on another.
 * Standard MPI only.
 *
 * Exit status: 0 when every check passed on every rank, 1 otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jobs.h"

static int rank, size, errors;

static int sum_over(MPI_Comm c, int x)
{
	int y = 0;

	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c);
	return y;
}

/* Every rank sends its rank to the next on each of c[0..n) with the same
 * tag at once; each message must arrive on its own communicator. */
static void crossing(MPI_Comm *c, int n)
{
	MPI_Request rq[16];
	int got[8], i, nr, r, sz;

	for (i = 0; i < n; i++) {
		MPI_Comm_size(c[i], &sz);
		MPI_Comm_rank(c[i], &r);
		got[i] = -1;
		MPI_Irecv(&got[i], 1, MPI_INT, (r + sz - 1) % sz, 3, c[i],
			  &rq[2 * i]);
	}
	for (i = n - 1; i >= 0; i--) {
		MPI_Comm_size(c[i], &sz);
		MPI_Comm_rank(c[i], &r);
		nr = r * 10 + i;
		MPI_Isend(&nr, 1, MPI_INT, (r + 1) % sz, 3, c[i],
			  &rq[2 * i + 1]);
		MPI_Wait(&rq[2 * i + 1], MPI_STATUS_IGNORE);
	}
	for (i = 0; i < n; i++) {
		MPI_Comm_size(c[i], &sz);
		MPI_Comm_rank(c[i], &r);
		MPI_Wait(&rq[2 * i], MPI_STATUS_IGNORE);
		TALLY(got[i] == ((r + sz - 1) % sz) * 10 + i, "comm %d got %d",
		      i, got[i]);
	}
}

int main(int argc, char **argv)
{
	MPI_Comm d, nc[4], x, y, one;
	MPI_Request rq[4];
	MPI_Group wg, g1, g2;
	int i, k, n, r, res, order[4];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_dup(MPI_COMM_WORLD, &d);

	/* two idups in flight on each of world and d: even ranks start
	 * world's first, odd ranks d's first; completion in opposite
	 * orders */
	for (k = 0; k < 3; k++) {
		for (i = 0; i < 4; i++) {
			int j = rank % 2 ? (i + 2) % 4 : i;

			CHECK_MPI(MPI_Comm_idup(j < 2 ? MPI_COMM_WORLD : d,
						&nc[j], &rq[j]));
		}
		for (i = 0; i < 4; i++)
			order[i] = (rank + k) % 2 ? 3 - i : i;
		for (i = 0; i < 4; i++)
			CHECK_MPI(MPI_Wait(&rq[order[i]], MPI_STATUS_IGNORE));
		for (i = 0; i < 4; i++) {
			MPI_Comm_compare(nc[i], MPI_COMM_WORLD, &res);
			TALLY(res == MPI_CONGRUENT, "idup %d compare %d", i,
			      res);
		}
		crossing(nc, 4);
		for (i = 0; i < 4; i++)
			TALLY(sum_over(nc[i], i) == i * size, "idup %d", i);
		for (i = 0; i < 4; i++)
			MPI_Comm_free(&nc[i]);
	}

	/* odd ranks: idup of world pending across a blocking dup of d;
	 * even ranks: the dup first, then the idup */
	if (rank % 2) {
		CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &x, &rq[0]));
		CHECK_MPI(MPI_Comm_dup(d, &y));
	} else {
		CHECK_MPI(MPI_Comm_dup(d, &y));
		CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &x, &rq[0]));
	}
	CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
	nc[0] = x;
	nc[1] = y;
	nc[2] = d;
	crossing(nc, 3);
	MPI_Comm_free(&x);
	MPI_Comm_free(&y);

	/* idup of a communicator freed right after: the request keeps it */
	MPI_Comm_dup(d, &x);
	CHECK_MPI(MPI_Comm_idup(x, &y, &rq[0]));
	MPI_Comm_free(&x);
	CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
	TALLY(sum_over(y, 1) == size, "idup of a freed comm");
	MPI_Comm_free(&y);

	/* create_group: g1 = the lower half and one more, g2 = the odd
	 * ranks */
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	{
		int r1[1][3] = {{0, size / 2, 1}};
		int r2[1][3] = {{1, size - 1, 2}};
		int in1 = rank <= size / 2, in2 = rank % 2;

		MPI_Group_range_incl(wg, 1, r1, &g1);
		if (size > 1)
			MPI_Group_range_incl(wg, 1, r2, &g2);
		else
			g2 = MPI_GROUP_EMPTY;
		/* (blocking calls: ranks in both groups call them in one
		 * order; opposite orders need threads, or test_comm's
		 * nonblocking ones) */
		x = y = MPI_COMM_NULL;
		if (in1)
			CHECK_MPI(MPI_Comm_create_group(d, g1, 11, &x));
		if (in2)
			CHECK_MPI(MPI_Comm_create_group(d, g2, 12, &y));
		if (in1) {
			MPI_Comm_size(x, &n);
			MPI_Comm_rank(x, &r);
			TALLY(n == size / 2 + 1 && r == rank, "g1 %d/%d", r, n);
			TALLY(sum_over(x, rank) == n * (n - 1) / 2, "on g1");
			MPI_Comm_free(&x);
		}
		if (in2) {
			MPI_Comm_size(y, &n);
			MPI_Comm_rank(y, &r);
			TALLY(n == size / 2 && r == rank / 2, "g2 %d/%d", r, n);
			TALLY(sum_over(y, 1) == n, "on g2");
			MPI_Comm_free(&y);
		}
		/* d's collectives still match: nobody's sequence moved */
		TALLY(sum_over(d, rank) == size * (size - 1) / 2, "d after");
		MPI_Group_free(&g1);
		if (g2 != MPI_GROUP_EMPTY)
			MPI_Group_free(&g2);
	}
	/* a group of one, on every rank at once (tag: the rank) */
	{
		int me[1] = {rank};

		MPI_Group_incl(wg, 1, me, &g1);
		CHECK_MPI(
			MPI_Comm_create_group(MPI_COMM_WORLD, g1, rank, &one));
		MPI_Comm_size(one, &n);
		TALLY(n == 1 && sum_over(one, 5) == 5, "group of one");
		MPI_Comm_free(&one);
		MPI_Group_free(&g1);
	}
	/* errors */
	TALLY(MPI_Comm_create_group(d, MPI_GROUP_NULL, 0, &x) == MPI_ERR_GROUP,
	      "null group");
	TALLY(MPI_Comm_create_group(d, wg, -1, &x) == MPI_ERR_TAG, "tag");
	TALLY(MPI_Comm_create_group(MPI_COMM_NULL, wg, 0, &x) == MPI_ERR_COMM,
	      "null comm");
	TALLY(MPI_Comm_idup(d, &x, NULL) == MPI_ERR_ARG, "null request");
	if (size > 1) {
		int other[1] = {(rank + 1) % size};

		/* a group of world that MPI_COMM_SELF does not hold */
		MPI_Group_incl(wg, 1, other, &g1);
		MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
		TALLY(MPI_Comm_create_group(MPI_COMM_SELF, g1, 0, &x) ==
			      MPI_ERR_GROUP,
		      "not a subset");
		MPI_Group_free(&g1);
	}
	MPI_Group_free(&wg);

	/* hundreds of creations: idups on d, create_group of the evens,
	 * split, all freed */
	for (k = 0; k < 200; k++) {
		MPI_Comm a, b = MPI_COMM_NULL, c;

		CHECK_MPI(MPI_Comm_idup(d, &a, &rq[0]));
		if (rank % 2 == 0) {
			MPI_Group dg, eg;
			int ev[1][3] = {{0, size - 1, 2}};

			MPI_Comm_group(d, &dg);
			MPI_Group_range_incl(dg, 1, ev, &eg);
			CHECK_MPI(MPI_Comm_create_group(d, eg, k, &b));
			MPI_Group_free(&eg);
			MPI_Group_free(&dg);
		}
		CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
		CHECK_MPI(MPI_Comm_split(a, rank % 3, -rank, &c));
		if (k % 40 == 0) {
			TALLY(sum_over(a, 1) == size, "loop idup");
			MPI_Comm_size(c, &n);
			TALLY(sum_over(c, 1) == n, "loop split");
			if (b != MPI_COMM_NULL)
				TALLY(sum_over(b, 1) == (size + 1) / 2,
				      "loop create_group");
		}
		MPI_Comm_free(&a);
		MPI_Comm_free(&c);
		if (b != MPI_COMM_NULL)
			MPI_Comm_free(&b);
	}
	MPI_Comm_free(&d);
	MPI_Allreduce(&errors, &k, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("comm_ctx: %d ranks %s\n", size, k ? "FAILED" : "OK");
	MPI_Finalize();
	return k ? 1 : 0;
}
