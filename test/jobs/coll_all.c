/*
 * coll_all.c - an MPI job that runs every collective, blocking and
 * nonblocking, on MPI_COMM_WORLD and on a split of it, and checks every
 * result: small and 100000-element messages, MPI_IN_PLACE, a
 * non-commutative user op (2x2 integer matrix product), MAXLOC, MPI_CHAR
 * with MPI_SUM and MPI_MAX (an extension of the standard's table), uneven
 * v-counts with zeros, and nonblocking collectives overlapping on one
 * communicator, completed in reverse order. Standard MPI only.
 *
 * Exit status: 0 when every check passed on every rank, 1 otherwise (each
 * failure is printed with its rank).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jobs.h"

static int rank, size, errors;

static int val(int r, int i)
{
	return r * 1000 + i % 997;
}

static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int *a = in, *b = inout, i;

	(void)dt;
	for (i = 0; i < *len; i++, a += 4, b += 4) {
		int c[4] = { a[0] * b[0] + a[1] * b[2],
			     a[0] * b[1] + a[1] * b[3],
			     a[2] * b[0] + a[3] * b[2],
			     a[2] * b[1] + a[3] * b[3] };

		memcpy(b, c, sizeof(c));
	}
}

/* My matrix: upper triangular with a rank-dependent corner. */
static void my_mat(int r, int *m)
{
	m[0] = 1;
	m[1] = r + 1;
	m[2] = 0;
	m[3] = 1 + (r % 2);
}

/* Fold of my_mat over ranks [lo, hi) in order. */
static void mat_fold(int lo, int hi, int *out)
{
	int m[4], r, one = 1;
	MPI_Datatype dt = MPI_INT;

	out[0] = 1;
	out[1] = 0;
	out[2] = 0;
	out[3] = 1;
	for (r = lo; r < hi; r++) {
		my_mat(r, m);
		/* out = out * m: matmul computes inout = in * inout */
		matmul(out, m, &one, &dt);
		memcpy(out, m, sizeof(m));
	}
}

/* Every collective on comm (rank r of n), blocking; count elements. */
static void blocking(MPI_Comm comm, int count, MPI_Op op_mat,
		     MPI_Datatype mat)
{
	int r, n, i, j, root;
	int *a, *b, *c, *counts, *displs;
	size_t big;

	MPI_Comm_rank(comm, &r);
	MPI_Comm_size(comm, &n);
	root = n - 1;
	big = (size_t)count * (size_t)n + 4 * (size_t)n;
	a = malloc(big * sizeof(int));
	b = malloc(big * sizeof(int));
	c = malloc(big * sizeof(int));
	counts = malloc(sizeof(int) * (size_t)n);
	displs = malloc(sizeof(int) * (size_t)n);

	MPI_Barrier(comm);
	/* bcast */
	for (i = 0; i < count; i++)
		a[i] = r == root ? val(root, i) : -1;
	MPI_Bcast(a, count, MPI_INT, root, comm);
	for (i = 0; i < count && a[i] == val(root, i); i++)
		;
	TALLY(i == count, "bcast element %d", i);
	/* reduce, allreduce, in place too */
	for (i = 0; i < count; i++)
		a[i] = val(r, i);
	MPI_Reduce(a, b, count, MPI_INT, MPI_SUM, root, comm);
	if (r == root) {
		for (i = 0; i < count; i++)
			if (b[i] != n * (i % 997) + 1000 * n * (n - 1) / 2)
				break;
		TALLY(i == count, "reduce element %d", i);
	}
	memcpy(b, a, sizeof(int) * (size_t)count);
	MPI_Allreduce(MPI_IN_PLACE, b, count, MPI_INT, MPI_MAX, comm);
	for (i = 0; i < count && b[i] == val(n - 1, i); i++)
		;
	TALLY(i == count, "allreduce in place element %d", i);
	/* non-commutative: allreduce, reduce to 0 and to the last, scan */
	{
		int m[4], w[4], got[4];

		my_mat(r, m);
		mat_fold(0, n, w);
		MPI_Allreduce(m, got, 1, mat, op_mat, comm);
		TALLY(!memcmp(got, w, sizeof(w)), "user op allreduce");
		memset(got, 0, sizeof(got));
		MPI_Reduce(m, got, 1, mat, op_mat, root, comm);
		TALLY(r != root || !memcmp(got, w, sizeof(w)),
		      "user op reduce");
		MPI_Scan(m, got, 1, mat, op_mat, comm);
		mat_fold(0, r + 1, w);
		TALLY(!memcmp(got, w, sizeof(w)), "user op scan");
		memcpy(got, m, sizeof(m));
		MPI_Exscan(MPI_IN_PLACE, got, 1, mat, op_mat, comm);
		mat_fold(0, r, w);
		TALLY(r == 0 || !memcmp(got, w, sizeof(w)), "user op exscan");
	}
	/* MPI_CHAR with arithmetic ops: rcmpi's extension, as in Open MPI
	 * and MPICH (benchmarks reduce MPI_CHAR with MPI_SUM) */
	{
		char in[2] = { (char)(r % 5), (char)(r % 7) }, out[2];
		int s = 0, mx = 0;

		for (j = 0; j < n; j++) {
			s += j % 5;
			mx = j % 7 > mx ? j % 7 : mx;
		}
		MPI_Allreduce(in, out, 1, MPI_CHAR, MPI_SUM, comm);
		TALLY(out[0] == (char)s, "char sum %d, want %d", out[0], s);
		MPI_Reduce(in + 1, out + 1, 1, MPI_CHAR, MPI_MAX, root, comm);
		TALLY(r != root || out[1] == (char)mx, "char max %d, want %d",
		      out[1], mx);
	}
	/* MAXLOC on MPI_2INT */
	{
		int in[2] = { r % 3, r }, out[2];

		MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MAXLOC, comm);
		int want = n > 2 ? 2 : n - 1;

		TALLY(out[0] == want && out[1] == want, "maxloc (%d, %d)",
		      out[0], out[1]);
	}
	/* gather(v), scatter(v), allgather(v), alltoall(v) */
	for (i = 0; i < count; i++)
		a[i] = val(r, i);
	MPI_Gather(a, count, MPI_INT, b, count, MPI_INT, 0, comm);
	if (r == 0) {
		for (j = 0; j < n; j++)
			for (i = 0; i < count; i++)
				if (b[j * count + i] != val(j, i)) {
					TALLY(0, "gather from %d element %d",
					      j, i);
					j = n;
					break;
				}
	}
	for (j = 0; j < n; j++) {
		counts[j] = (j * 3) % 4 * count / 3;
		displs[j] = j ? displs[j - 1] + counts[j - 1] + 1 : 0;
	}
	MPI_Gatherv(a, counts[r], MPI_INT, b, counts, displs, MPI_INT, root,
		    comm);
	if (r == root)
		for (j = 0; j < n; j++)
			for (i = 0; i < counts[j]; i++)
				if (b[displs[j] + i] != val(j, i)) {
					TALLY(0, "gatherv from %d", j);
					j = n;
					break;
				}
	if (r == 0)
		for (j = 0; j < n; j++)
			for (i = 0; i < count; i++)
				b[j * count + i] = val(j, i) + 7;
	MPI_Scatter(b, count, MPI_INT, r ? c : MPI_IN_PLACE, count, MPI_INT,
		    0, comm);
	if (r)
		for (i = 0; i < count; i++)
			if (c[i] != val(r, i) + 7) {
				TALLY(0, "scatter element %d", i);
				break;
			}
	if (r == root)
		for (j = 0; j < n; j++)
			for (i = 0; i < counts[j]; i++)
				b[displs[j] + i] = val(j, i) - 3;
	MPI_Scatterv(b, counts, displs, MPI_INT, c, counts[r], MPI_INT, root,
		     comm);
	for (i = 0; i < counts[r]; i++)
		if (c[i] != val(r, i) - 3) {
			TALLY(0, "scatterv element %d", i);
			break;
		}
	for (i = 0; i < count; i++)
		b[r * count + i] = val(r, i);
	MPI_Allgather(MPI_IN_PLACE, count, MPI_INT, b, count, MPI_INT, comm);
	for (j = 0; j < n; j++)
		for (i = 0; i < count; i++)
			if (b[j * count + i] != val(j, i)) {
				TALLY(0, "allgather from %d element %d", j, i);
				j = n;
				break;
			}
	MPI_Allgatherv(a, counts[r], MPI_INT, b, counts, displs, MPI_INT,
		       comm);
	for (j = 0; j < n; j++)
		for (i = 0; i < counts[j]; i++)
			if (b[displs[j] + i] != val(j, i)) {
				TALLY(0, "allgatherv from %d", j);
				j = n;
				break;
			}
	for (j = 0; j < n; j++)
		for (i = 0; i < count; i++)
			a[j * count + i] = val(r, j * count + i);
	MPI_Alltoall(a, count, MPI_INT, b, count, MPI_INT, comm);
	for (j = 0; j < n; j++)
		for (i = 0; i < count; i++)
			if (b[j * count + i] != val(j, r * count + i)) {
				TALLY(0, "alltoall from %d element %d", j, i);
				j = n;
				break;
			}
	MPI_Alltoall(MPI_IN_PLACE, count, MPI_INT, a, count, MPI_INT, comm);
	TALLY(!memcmp(a, b, sizeof(int) * (size_t)count * (size_t)n),
	      "alltoall in place");
	{
		/* rank r sends counts[(r + j) % n] to j */
		int *sc = malloc(sizeof(int) * 4 * (size_t)n), *sd = sc + n;
		int *rc = sd + n, *rd = rc + n;

		for (j = 0; j < n; j++) {
			sc[j] = counts[(r + j) % n];
			sd[j] = j ? sd[j - 1] + sc[j - 1] : 0;
			rc[j] = counts[(j + r) % n];
			rd[j] = j ? rd[j - 1] + rc[j - 1] + 2 : 0;
		}
		for (j = 0; j < n; j++)
			for (i = 0; i < sc[j]; i++)
				a[sd[j] + i] = val(r, j * 100 + i);
		MPI_Alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, comm);
		for (j = 0; j < n; j++)
			for (i = 0; i < rc[j]; i++)
				if (b[rd[j] + i] != val(j, r * 100 + i)) {
					TALLY(0, "alltoallv from %d", j);
					j = n;
					break;
				}
		free(sc);
	}
	/* reduce_scatter(_block), scan, exscan */
	for (i = 0; i < count * n; i++)
		a[i] = val(r, i);
	MPI_Reduce_scatter_block(a, b, count, MPI_INT, MPI_SUM, comm);
	for (i = 0; i < count; i++)
		if (b[i] != n * ((r * count + i) % 997) +
				    1000 * n * (n - 1) / 2) {
			TALLY(0, "reduce_scatter_block element %d", i);
			break;
		}
	{
		int total = 0;

		for (j = 0; j < n; j++)
			total += counts[j];
		for (i = 0; i < total; i++)
			b[i] = val(r, i);
		MPI_Reduce_scatter(MPI_IN_PLACE, b, counts, MPI_INT, MPI_SUM,
				   comm);
		for (i = 0; i < counts[r]; i++)
			if (b[i] != n * ((displs[r] - r + i) % 997) +
					    1000 * n * (n - 1) / 2) {
				TALLY(0, "reduce_scatter element %d", i);
				break;
			}
	}
	for (i = 0; i < count; i++)
		a[i] = r + 1;
	MPI_Scan(a, b, count, MPI_INT, MPI_SUM, comm);
	MPI_Exscan(a, c, count, MPI_INT, MPI_SUM, comm);
	for (i = 0; i < count; i++)
		if (b[i] != (r + 1) * (r + 2) / 2 ||
		    (r && c[i] != r * (r + 1) / 2)) {
			TALLY(0, "scan/exscan element %d", i);
			break;
		}
	free(a);
	free(b);
	free(c);
	free(counts);
	free(displs);
}

/* Nonblocking collectives overlapping, completed in reverse order. */
static void nonblocking(MPI_Comm comm, int count)
{
	int r, n, i, j, *bc, *in, *sum, *ga, *a2a, *out;
	MPI_Request req[8];

	MPI_Comm_rank(comm, &r);
	MPI_Comm_size(comm, &n);
	bc = malloc(sizeof(int) * (size_t)count);
	in = malloc(sizeof(int) * (size_t)count);
	sum = malloc(sizeof(int) * (size_t)count);
	ga = malloc(sizeof(int) * (size_t)n);
	a2a = malloc(sizeof(int) * (size_t)n);
	out = malloc(sizeof(int) * (size_t)n);
	for (i = 0; i < count; i++) {
		bc[i] = r == 0 ? i : -1;
		in[i] = r + i;
	}
	for (j = 0; j < n; j++)
		a2a[j] = r * 100 + j;
	MPI_Ibcast(bc, count, MPI_INT, 0, comm, &req[0]);
	MPI_Iallreduce(in, sum, count, MPI_INT, MPI_SUM, comm, &req[1]);
	MPI_Ibarrier(comm, &req[2]);
	MPI_Iallgather(&r, 1, MPI_INT, ga, 1, MPI_INT, comm, &req[3]);
	MPI_Ialltoall(a2a, 1, MPI_INT, out, 1, MPI_INT, comm, &req[4]);
	for (i = 4; i >= 0; i--)
		MPI_Wait(&req[i], MPI_STATUS_IGNORE);
	for (i = 0; i < count; i++)
		if (bc[i] != i || sum[i] != n * i + n * (n - 1) / 2) {
			TALLY(0, "ibcast/iallreduce element %d", i);
			break;
		}
	for (j = 0; j < n; j++)
		TALLY(ga[j] == j && out[j] == j * 100 + r,
		      "iallgather/ialltoall from %d", j);
	/* the rest, waited together */
	{
		int x = r + 1, y = 0, s = 0, e = 0, rsb = 0, *rsin;
		int *g = malloc(sizeof(int) * (size_t)n), *cnt, *dsp;
		int *g2 = malloc(sizeof(int) * (size_t)n);

		rsin = malloc(sizeof(int) * (size_t)n);
		cnt = malloc(sizeof(int) * 2 * (size_t)n);
		dsp = cnt + n;
		for (j = 0; j < n; j++) {
			rsin[j] = j + r;
			cnt[j] = 1;
			dsp[j] = n - 1 - j;
		}
		MPI_Ireduce(&x, &y, 1, MPI_INT, MPI_PROD, 0, comm, &req[0]);
		MPI_Iscan(&x, &s, 1, MPI_INT, MPI_SUM, comm, &req[1]);
		MPI_Iexscan(&x, &e, 1, MPI_INT, MPI_SUM, comm, &req[2]);
		MPI_Ireduce_scatter_block(rsin, &rsb, 1, MPI_INT, MPI_SUM,
					  comm, &req[3]);
		MPI_Igatherv(&x, 1, MPI_INT, g, cnt, dsp, MPI_INT, 0, comm,
			     &req[4]);
		MPI_Waitall(5, req, MPI_STATUSES_IGNORE);
		if (r == 0) {
			long p = 1;

			for (j = 1; j <= n; j++)
				p *= j;
			TALLY(y == (int)p, "ireduce %d", y);
			for (j = 0; j < n; j++)
				TALLY(g[n - 1 - j] == j + 1, "igatherv %d", j);
		}
		TALLY(s == (r + 1) * (r + 2) / 2, "iscan");
		TALLY(r == 0 || e == r * (r + 1) / 2, "iexscan");
		TALLY(rsb == n * r + n * (n - 1) / 2, "ireduce_scatter_block");
		MPI_Iscatter(g, 1, MPI_INT, &x, 1, MPI_INT, 0, comm, &req[0]);
		MPI_Iscatterv(g, cnt, dsp, MPI_INT, &y, 1, MPI_INT, 0, comm,
			      &req[1]);
		MPI_Igather(&r, 1, MPI_INT, r ? NULL : g2, 1, MPI_INT, 0, comm,
			    &req[2]);
		MPI_Iallgatherv(&r, 1, MPI_INT, out, cnt, dsp, MPI_INT, comm,
				&req[3]);
		MPI_Ialltoallv(a2a, cnt, dsp, MPI_INT, in, cnt, dsp, MPI_INT,
			       comm, &req[4]);
		MPI_Waitall(5, req, MPI_STATUSES_IGNORE);
		TALLY(x == n - r, "iscatter %d", x);
		TALLY(y == r + 1, "iscatterv %d", y);
		for (j = 0; j < n && r == 0; j++)
			TALLY(g2[j] == j, "igather %d", j);
		for (j = 0; j < n; j++) {
			TALLY(out[n - 1 - j] == j, "iallgatherv");
			TALLY(in[n - 1 - j] == j * 100 + (n - 1 - r),
			      "ialltoallv from %d", j);
		}
		free(g);
		free(g2);
		free(rsin);
		free(cnt);
	}
	free(bc);
	free(in);
	free(sum);
	free(ga);
	free(a2a);
	free(out);
}

int main(int argc, char **argv)
{
	MPI_Comm half;
	MPI_Op op_mat;
	MPI_Datatype mat;
	int sub, counts[] = { 1, 17, 100000 }, k, total;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Op_create(matmul, 0, &op_mat);
	MPI_Type_contiguous(4, MPI_INT, &mat);
	MPI_Type_commit(&mat);
	for (k = 0; k < 3; k++)
		blocking(MPI_COMM_WORLD, counts[k], op_mat, mat);
	nonblocking(MPI_COMM_WORLD, 1000);
	/* the same on halves, ranks reversed */
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
	MPI_Comm_rank(half, &sub);
	TALLY(sub == (size - 1 - rank) / 2, "split rank %d", sub);
	for (k = 0; k < 2; k++)
		blocking(half, counts[k], op_mat, mat);
	nonblocking(half, 77);
	MPI_Comm_free(&half);
	MPI_Op_free(&op_mat);
	MPI_Type_free(&mat);
	MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("coll_all: %d ranks %s\n", size,
		       total ? "FAILED" : "OK");
	MPI_Finalize();
	return total ? 1 : 0;
}
