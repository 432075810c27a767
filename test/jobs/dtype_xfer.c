/*
 * dtype_xfer.c - datatypes across ranks (issue 13).
 *
 *   darray  rank 0 holds a global array (2-D and 3-D, C and Fortran
 *           order, block, cyclic, cyclic(k) and undistributed dimensions
 *           over an MPI_Dims_create grid) and sends every rank its piece
 *           with that rank's MPI_Type_create_darray type; each rank checks
 *           what it got against the owners computed here by formula
 *           (owner of index i: i / b for block b, (i / k) % p for
 *           cyclic(k)), then sends its piece back and rank 0, receiving
 *           with the same types, must have the whole array again.
 *   ext32   every rank packs records (char, long, long double, double
 *           complex, short, with holes) in "external32" and sends the
 *           bytes to the next rank as MPI_BYTE; the receiver checks the
 *           big-endian bytes of one field by hand and unpacks every value
 *           of its left neighbour.
 *
 * Exit status 0 when every check passed; a mismatch aborts with the rank,
 * the case and the element.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jobs.h"

static int rank, size;

struct dist {
	const char *what;
	int ndims, gsizes[3], distribs[3], dargs[3], order;
	int grid3;		/* 3-D: the middle dimension has psize 1 */
};

#define B MPI_DISTRIBUTE_BLOCK
#define C MPI_DISTRIBUTE_CYCLIC
#define N MPI_DISTRIBUTE_NONE
#define D MPI_DISTRIBUTE_DFLT_DARG

static const struct dist dists[] = {
	{ "block x block, C", 2, { 7, 10 }, { B, B }, { D, D },
	  MPI_ORDER_C, 0 },
	{ "cyclic x cyclic(3), C", 2, { 7, 10 }, { C, C }, { D, 3 },
	  MPI_ORDER_C, 0 },
	/* darg 0: one more than the default block (set per grid) */
	{ "block(b+1) x cyclic(2), Fortran", 2, { 13, 9 }, { B, C }, { 0, 2 },
	  MPI_ORDER_FORTRAN, 0 },
	{ "cyclic(2) x none x block, Fortran", 3, { 5, 3, 11 }, { C, N, B },
	  { 2, D, D }, MPI_ORDER_FORTRAN, 1 },
	{ "block x none x cyclic, C", 3, { 6, 2, 9 }, { B, N, C },
	  { D, D, D }, MPI_ORDER_C, 1 },
};

#undef B
#undef C
#undef N
#undef D

/* The grid coordinate that owns index i of a dimension. */
static int owner(const struct dist *d, int dim, int i, int psize)
{
	int g = d->gsizes[dim], a = d->dargs[dim];

	switch (d->distribs[dim]) {
	case MPI_DISTRIBUTE_BLOCK:
		if (a == MPI_DISTRIBUTE_DFLT_DARG)
			a = (g + psize - 1) / psize;
		return i / a;
	case MPI_DISTRIBUTE_CYCLIC:
		if (a == MPI_DISTRIBUTE_DFLT_DARG)
			a = 1;
		return (i / a) % psize;
	default:
		return 0;
	}
}

/* Rank r's elements: the linear indices, in storage order, whose tuple
 * every dimension gives to r's coordinates. Returns their number. */
static int expect(const struct dist *d, const int *psizes, int r, int *out)
{
	int coord[3], idx[3] = { 0, 0, 0 }, k, dim, n = 0, rr = r, lin, mine;

	for (k = d->ndims - 1; k >= 0; k--) {
		coord[k] = rr % psizes[k];
		rr /= psizes[k];
	}
	for (;;) {
		mine = 1;
		lin = 0;
		for (k = 0; k < d->ndims; k++) {
			/* linear index: C row-major, Fortran column-major */
			dim = d->order == MPI_ORDER_C ? k : d->ndims - 1 - k;
			lin = lin * d->gsizes[dim] + idx[dim];
			if (owner(d, k, idx[k], psizes[k]) != coord[k])
				mine = 0;
		}
		if (mine)
			out[n++] = lin;
		/* next tuple in storage order: the fastest dimension first */
		for (k = 0; k < d->ndims; k++) {
			dim = d->order == MPI_ORDER_C ? d->ndims - 1 - k : k;
			if (++idx[dim] < d->gsizes[dim])
				break;
			idx[dim] = 0;
		}
		if (k == d->ndims)
			return n;
	}
}

static void darray(const struct dist *dd)
{
	int psizes[3], dims[2] = { 0, 0 }, total = 1, i, r, n, want_n, tsz;
	struct dist dc = *dd, *d = &dc;
	int *glob = NULL, *back = NULL, *mine, *want;
	MPI_Datatype *types;
	MPI_Request *reqs;

	MPI_Dims_create(size, 2, dims);
	if (d->grid3) {
		psizes[0] = dims[0];
		psizes[1] = 1;
		psizes[2] = dims[1];
	} else {
		psizes[0] = dims[0];
		psizes[1] = dims[1];
	}
	for (i = 0; i < d->ndims; i++) {
		total *= d->gsizes[i];
		if (!d->dargs[i])
			d->dargs[i] = (d->gsizes[i] + psizes[i] - 1) /
					      psizes[i] + 1;
	}
	types = malloc(sizeof(*types) * (size_t)size);
	reqs = malloc(sizeof(*reqs) * (size_t)size);
	mine = malloc(sizeof(int) * (size_t)total);
	want = malloc(sizeof(int) * (size_t)total);
	CHECK(types && reqs && mine && want, "malloc");
	for (r = 0; r < size; r++) {
		CHECK_MPI(MPI_Type_create_darray(size, r, d->ndims, d->gsizes,
						 d->distribs, d->dargs, psizes,
						 d->order, MPI_INT,
						 &types[r]));
		CHECK_MPI(MPI_Type_commit(&types[r]));
	}
	CHECK_MPI(MPI_Type_size(types[rank], &tsz));
	n = tsz / (int)sizeof(int);
	want_n = expect(d, psizes, rank, want);
	CHECK(n == want_n, "%s: %d elements, want %d", d->what, n, want_n);
	if (rank == 0) {
		glob = malloc(sizeof(int) * (size_t)total);
		back = malloc(sizeof(int) * (size_t)total);
		CHECK(glob && back, "malloc");
		for (i = 0; i < total; i++) {
			glob[i] = 1000 + i;
			back[i] = -1;
		}
		for (r = 0; r < size; r++)
			CHECK_MPI(MPI_Isend(glob, 1, types[r], r, 1,
					    MPI_COMM_WORLD, &reqs[r]));
	}
	CHECK_MPI(MPI_Recv(mine, n, MPI_INT, 0, 1, MPI_COMM_WORLD,
			   MPI_STATUS_IGNORE));
	if (rank == 0)
		CHECK_MPI(MPI_Waitall(size, reqs, MPI_STATUSES_IGNORE));
	for (i = 0; i < n; i++)
		CHECK(mine[i] == 1000 + want[i],
		      "%s: element %d is %d, want %d", d->what, i, mine[i],
		      1000 + want[i]);
	/* and back: rank 0 receives every piece into its place */
	if (rank == 0)
		for (r = 0; r < size; r++)
			CHECK_MPI(MPI_Irecv(back, 1, types[r], r, 2,
					    MPI_COMM_WORLD, &reqs[r]));
	CHECK_MPI(MPI_Send(mine, n, MPI_INT, 0, 2, MPI_COMM_WORLD));
	if (rank == 0) {
		CHECK_MPI(MPI_Waitall(size, reqs, MPI_STATUSES_IGNORE));
		for (i = 0; i < total; i++)
			CHECK(back[i] == glob[i], "%s: gathered element %d "
			      "is %d", d->what, i, back[i]);
	}
	for (r = 0; r < size; r++)
		CHECK_MPI(MPI_Type_free(&types[r]));
	free(types);
	free(reqs);
	free(mine);
	free(want);
	free(glob);
	free(back);
}

struct rec {
	char c;
	long l;
	long double ld;
	double _Complex z;
	short s;
};

#define NREC 50

static void rec_fill(struct rec *r, int from, int k)
{
	r->c = (char)('a' + (from + k) % 26);
	r->l = -1000L * from - k;
	r->ld = (long double)from / 3.0L + k;
	r->z = (double)k - (double)from * 1.0i;
	r->s = (short)(from * 100 + k);
}

static void ext32(void)
{
	static const char rep[] = "external32";
	struct rec out[NREC], in[NREC], want;
	int bl[5] = { 1, 1, 1, 1, 1 }, right, left, k;
	MPI_Aint disp[5] = { offsetof(struct rec, c), offsetof(struct rec, l),
			     offsetof(struct rec, ld),
			     offsetof(struct rec, z),
			     offsetof(struct rec, s) };
	MPI_Datatype tys[5] = { MPI_CHAR, MPI_LONG, MPI_LONG_DOUBLE,
				MPI_C_DOUBLE_COMPLEX, MPI_SHORT }, t;
	MPI_Aint esize, pos = 0;
	unsigned char *buf, *got;

	CHECK_MPI(MPI_Type_create_struct(5, bl, disp, tys, &t));
	CHECK_MPI(MPI_Type_commit(&t));
	CHECK_MPI(MPI_Pack_external_size(rep, NREC, t, &esize));
	/* 1 + 4 + 16 + 16 + 2 bytes a record, whatever this platform's */
	CHECK(esize == 39 * NREC, "external esize %ld", (long)esize);
	buf = malloc((size_t)esize);
	got = malloc((size_t)esize);
	CHECK(buf && got, "malloc");
	for (k = 0; k < NREC; k++)
		rec_fill(&out[k], rank, k);
	CHECK_MPI(MPI_Pack_external(rep, out, NREC, t, buf, esize, &pos));
	CHECK(pos == esize, "packed %ld of %ld", (long)pos, (long)esize);
	right = (rank + 1) % size;
	left = (rank + size - 1) % size;
	CHECK_MPI(MPI_Sendrecv(buf, (int)esize, MPI_BYTE, right, 3, got,
			       (int)esize, MPI_BYTE, left, 3, MPI_COMM_WORLD,
			       MPI_STATUS_IGNORE));
	/* record 1's long, -1000 * left - 1, big-endian in 4 bytes */
	{
		long v = -1000L * left - 1;
		const unsigned char *p = got + 39 + 1;

		CHECK(p[0] == (unsigned char)((unsigned long)v >> 24) &&
			      p[1] == (unsigned char)((unsigned long)v >> 16) &&
			      p[2] == (unsigned char)((unsigned long)v >> 8) &&
			      p[3] == (unsigned char)v,
		      "long bytes %02x %02x %02x %02x", p[0], p[1], p[2],
		      p[3]);
	}
	memset(in, 0, sizeof(in));
	pos = 0;
	CHECK_MPI(MPI_Unpack_external(rep, got, esize, &pos, in, NREC, t));
	for (k = 0; k < NREC; k++) {
		rec_fill(&want, left, k);
		CHECK(in[k].c == want.c && in[k].l == want.l &&
			      in[k].ld == want.ld && in[k].z == want.z &&
			      in[k].s == want.s,
		      "record %d from rank %d", k, left);
	}
	free(buf);
	free(got);
	CHECK_MPI(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
	size_t i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < sizeof(dists) / sizeof(dists[0]); i++)
		darray(&dists[i]);
	ext32();
	if (rank == 0)
		printf("dtype_xfer: %d ranks OK\n", size);
	MPI_Finalize();
	return 0;
}
