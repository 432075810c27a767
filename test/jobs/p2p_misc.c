/*
 * p2p_misc.c - the rest of the point-to-point surface in a real job:
 * MPI_Pack/MPI_Unpack/MPI_Pack_size with messages of MPI_PACKED,
 * MPI_Get_elements and MPI_Get_count on derived types (including a partial
 * last element), MPI_Alloc_mem buffers for a rendezvous, MPI_Get_address
 * for a struct sent from MPI_BOTTOM, every predefined pair type.
 * Ranks pair up (r, r ^ 1); an odd last rank talks to itself.
 */
#include <stddef.h>
#include "jobs.h"

static int rank, size, peer;

struct particle {
	double x[3];
	int id;
	char tag;
};

static void packed(void)
{
	int ints[5], sz1, sz2, pos = 0, i, back[5];
	double d = 2.5 + rank, dback;
	char *buf, *in;

	for (i = 0; i < 5; i++)
		ints[i] = rank * 10 + i;
	CHECK_MPI(MPI_Pack_size(5, MPI_INT, MPI_COMM_WORLD, &sz1));
	CHECK_MPI(MPI_Pack_size(1, MPI_DOUBLE, MPI_COMM_WORLD, &sz2));
	buf = malloc(sz1 + sz2);
	in = malloc(sz1 + sz2);
	CHECK_MPI(MPI_Pack(ints, 5, MPI_INT, buf, sz1 + sz2, &pos,
			   MPI_COMM_WORLD));
	CHECK_MPI(MPI_Pack(&d, 1, MPI_DOUBLE, buf, sz1 + sz2, &pos,
			   MPI_COMM_WORLD));
	CHECK_MPI(MPI_Sendrecv(buf, pos, MPI_PACKED, peer, 1, in, sz1 + sz2,
			       MPI_PACKED, peer, 1, MPI_COMM_WORLD,
			       MPI_STATUS_IGNORE));
	pos = 0;
	CHECK_MPI(MPI_Unpack(in, sz1 + sz2, &pos, back, 5, MPI_INT,
			     MPI_COMM_WORLD));
	CHECK_MPI(MPI_Unpack(in, sz1 + sz2, &pos, &dback, 1, MPI_DOUBLE,
			     MPI_COMM_WORLD));
	for (i = 0; i < 5; i++)
		CHECK(back[i] == peer * 10 + i, "unpacked int %d", i);
	CHECK(dback == 2.5 + peer, "unpacked double");
	free(buf);
	free(in);
}

static void elements(void)
{
	MPI_Datatype three;
	MPI_Status st;
	int out[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, in[9], n;

	/* 7 ints received as elements of 3 ints: 2 whole + a partial one */
	CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &three));
	CHECK_MPI(MPI_Type_commit(&three));
	CHECK_MPI(MPI_Sendrecv(out, 7, MPI_INT, peer, 2, in, 3, three, peer, 2,
			       MPI_COMM_WORLD, &st));
	CHECK_MPI(MPI_Get_count(&st, three, &n));
	CHECK(n == MPI_UNDEFINED, "Get_count of a partial element: %d", n);
	CHECK_MPI(MPI_Get_elements(&st, three, &n));
	CHECK(n == 7, "Get_elements %d", n);
	CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
	CHECK(n == 7, "Get_count in ints %d", n);
	CHECK(in[6] == 7, "data");
	MPI_Type_free(&three);
}

static void alloc_mem(void)
{
	const int n = 1 << 20;
	int *a, *b, i;

	CHECK_MPI(MPI_Alloc_mem(n * sizeof(int), MPI_INFO_NULL, &a));
	CHECK_MPI(MPI_Alloc_mem(n * sizeof(int), MPI_INFO_NULL, &b));
	for (i = 0; i < n; i++)
		a[i] = i ^ rank;
	CHECK_MPI(MPI_Sendrecv(a, n, MPI_INT, peer, 3, b, n, MPI_INT, peer, 3,
			       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	for (i = 0; i < n; i++)
		CHECK(b[i] == (i ^ peer), "alloc_mem data at %d", i);
	CHECK_MPI(MPI_Free_mem(a));
	CHECK_MPI(MPI_Free_mem(b));
}

/* A struct described with absolute addresses and sent from MPI_BOTTOM. */
static void bottom_struct(void)
{
	struct particle p[4], q[4];
	MPI_Datatype t, arr;
	MPI_Aint base, disp[3];
	int blens[3] = { 3, 1, 1 }, i;
	MPI_Datatype types[3] = { MPI_DOUBLE, MPI_INT, MPI_CHAR };

	memset(p, 0, sizeof(p));
	memset(q, 0, sizeof(q));
	for (i = 0; i < 4; i++) {
		p[i].x[0] = i + rank;
		p[i].x[2] = -i;
		p[i].id = 100 * rank + i;
		p[i].tag = (char)('a' + i);
	}
	CHECK_MPI(MPI_Get_address(&p[0], &base));
	CHECK_MPI(MPI_Get_address(&p[0].x, &disp[0]));
	CHECK_MPI(MPI_Get_address(&p[0].id, &disp[1]));
	CHECK_MPI(MPI_Get_address(&p[0].tag, &disp[2]));
	for (i = 0; i < 3; i++)
		disp[i] -= base;
	CHECK(disp[1] == offsetof(struct particle, id), "Get_address");
	CHECK_MPI(MPI_Type_create_struct(3, blens, disp, types, &t));
	CHECK_MPI(MPI_Type_create_resized(t, 0, sizeof(struct particle), &arr));
	CHECK_MPI(MPI_Type_commit(&arr));
	/* send from MPI_BOTTOM with an hindexed of absolute addresses */
	{
		MPI_Datatype abs;
		int one = 4;

		CHECK_MPI(MPI_Type_create_hindexed(1, &one, &base, arr, &abs));
		CHECK_MPI(MPI_Type_commit(&abs));
		CHECK_MPI(MPI_Sendrecv(MPI_BOTTOM, 1, abs, peer, 4, q, 4, arr,
				       peer, 4, MPI_COMM_WORLD,
				       MPI_STATUS_IGNORE));
		MPI_Type_free(&abs);
	}
	for (i = 0; i < 4; i++)
		CHECK(q[i].x[0] == i + peer && q[i].x[2] == -i &&
			      q[i].id == 100 * peer + i && q[i].tag == 'a' + i,
		      "particle %d", i);
	MPI_Type_free(&t);
	MPI_Type_free(&arr);
}

static void pair_types(void)
{
	struct { float v; int i; } f = { 1.5f + rank, rank }, fr;
	struct { double v; int i; } d = { 2.5 + rank, rank }, dr;
	struct { long v; int i; } l = { 3L + rank, rank }, lr;
	struct { int v; int i; } t = { 4 + rank, rank }, tr;
	struct { short v; int i; } s = { (short)(5 + rank), rank }, sr;
	struct { long double v; int i; } ld = { 6.0L + rank, rank }, ldr;

	CHECK_MPI(MPI_Sendrecv(&f, 1, MPI_FLOAT_INT, peer, 5, &fr, 1,
			       MPI_FLOAT_INT, peer, 5, MPI_COMM_WORLD,
			       MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Sendrecv(&d, 1, MPI_DOUBLE_INT, peer, 5, &dr, 1,
			       MPI_DOUBLE_INT, peer, 5, MPI_COMM_WORLD,
			       MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Sendrecv(&l, 1, MPI_LONG_INT, peer, 5, &lr, 1,
			       MPI_LONG_INT, peer, 5, MPI_COMM_WORLD,
			       MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Sendrecv(&t, 1, MPI_2INT, peer, 5, &tr, 1, MPI_2INT, peer,
			       5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Sendrecv(&s, 1, MPI_SHORT_INT, peer, 5, &sr, 1,
			       MPI_SHORT_INT, peer, 5, MPI_COMM_WORLD,
			       MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Sendrecv(&ld, 1, MPI_LONG_DOUBLE_INT, peer, 5, &ldr, 1,
			       MPI_LONG_DOUBLE_INT, peer, 5, MPI_COMM_WORLD,
			       MPI_STATUS_IGNORE));
	CHECK(fr.v == 1.5f + peer && fr.i == peer, "FLOAT_INT");
	CHECK(dr.v == 2.5 + peer && dr.i == peer, "DOUBLE_INT");
	CHECK(lr.v == 3L + peer && lr.i == peer, "LONG_INT");
	CHECK(tr.v == 4 + peer && tr.i == peer, "2INT");
	CHECK(sr.v == 5 + peer && sr.i == peer, "SHORT_INT");
	CHECK(ldr.v == 6.0L + peer && ldr.i == peer, "LONG_DOUBLE_INT");
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = rank ^ 1;
	if (peer >= size)
		peer = rank;
	packed();
	elements();
	alloc_mem();
	bottom_struct();
	pair_types();
	if (rank == 0)
		printf("p2p_misc: %d ranks OK\n", size);
	MPI_Finalize();
	return 0;
}
