/*
 * coll_persist.c - the persistent collectives of MPI-4 (MPI_Bcast_init
 * and the 16 others) on MPI_COMM_WORLD and on a split communicator: all
 * made once, then started 12 times with new data by MPI_Startall in an
 * order that differs on every rank and every iteration (a persistent
 * point-to-point pair among them), completed by MPI_Waitall, MPI_Wait,
 * MPI_Test loops or MPI_Waitany in turn; every result checked against
 * its definition. Then the errors: a start of an active request
 * (MPI_ERR_REQUEST), a bad info (MPI_ERR_INFO), a NULL request
 * (MPI_ERR_ARG), MPI_Scan_init on an intercommunicator (MPI_ERR_COMM);
 * and on an intercommunicator (2+ ranks) a persistent allreduce, and a
 * bcast (MPI_ROOT) and barrier started in opposite orders by the groups.
 * Prints "coll_persist: N ranks OK".
 */
#include "jobs.h"

#define K 3
#define ITERS 12

enum {
	BARRIER,
	BCAST,
	REDUCE,
	ALLREDUCE,
	GATHER,
	GATHERV,
	SCATTER,
	SCATTERV,
	ALLGATHER,
	ALLGATHERV,
	ALLTOALL,
	ALLTOALLV,
	ALLTOALLW,
	REDSCAT,
	REDSCAT_BLOCK,
	SCAN,
	EXSCAN,
	P2P,
	NREQ
};

static const char *const names[NREQ] = {
	"barrier",    "bcast",		"reduce",
	"allreduce",  "gather",		"gatherv",
	"scatter",    "scatterv",	"allgather",
	"allgatherv", "alltoall",	"alltoallv",
	"alltoallw",  "reduce_scatter", "reduce_scatter_block",
	"scan",	      "exscan",		"p2p",
};

static int rank, size, errors;
static int *sb[NREQ], *rb[NREQ];
static size_t len;
static int vcnt[64], vdsp[64], scnt[64], sdsp[64], rcnt[64], rdsp[64];
static int sdspb[64], rdspb[64], rscnt[64];
static MPI_Datatype types[64];
static int root;

static int in(int r, int i, int it)
{
	return r * 131 + i * 7 + it * 1009 + 1;
}

static int f2(int i, int j)
{
	return ((i + 2 * j) % 3) * K;
}

static void fill(int it)
{
	int c;
	size_t i;

	for (c = 0; c < NREQ; c++)
		for (i = 0; i < len; i++) {
			sb[c][i] = in(rank, (int)i, it);
			rb[c][i] = -1;
		}
	if (rank == root)
		for (i = 0; i < K; i++)
			rb[BCAST][i] = in(rank, (int)i, it);
}

static void want(int c, int at, int v, int it)
{
	TALLY(rb[c][at] == v, "%s iteration %d: int %d is %d, want %d",
	      names[c], it, at, rb[c][at], v);
}

static void check(int it)
{
	int i, j, q, s, o;

	for (i = 0; i < K; i++) {
		want(BCAST, i, in(root, i, it), it);
		want(SCATTER, i, in(root, rank * K + i, it), it);
		for (s = 0, q = 0; q < size; q++)
			s += in(q, i, it);
		if (rank == root)
			want(REDUCE, i, s, it);
		want(ALLREDUCE, i, s, it);
		for (s = 0, q = 0; q <= rank; q++)
			s += in(q, i, it);
		want(SCAN, i, s, it);
		if (rank > 0)
			want(EXSCAN, i, s - in(rank, i, it), it);
		for (s = 0, q = 0; q < size; q++)
			s += in(q, rank * K + i, it);
		want(REDSCAT_BLOCK, i, s, it);
	}
	for (o = 0, j = 0; j < rank; j++)
		o += rscnt[j];
	for (i = 0; i < rscnt[rank]; i++) {
		for (s = 0, q = 0; q < size; q++)
			s += in(q, o + i, it);
		want(REDSCAT, i, s, it);
	}
	for (i = 0; i < vcnt[rank]; i++)
		want(SCATTERV, i, in(root, vdsp[rank] + i, it), it);
	for (j = 0; j < size; j++) {
		for (i = 0; i < K; i++) {
			if (rank == root)
				want(GATHER, j * K + i, in(j, i, it), it);
			want(ALLGATHER, j * K + i, in(j, i, it), it);
			want(ALLTOALL, j * K + i, in(j, rank * K + i, it), it);
		}
		for (i = 0; i < vcnt[j]; i++) {
			if (rank == root)
				want(GATHERV, vdsp[j] + i, in(j, i, it), it);
			want(ALLGATHERV, vdsp[j] + i, in(j, i, it), it);
		}
		/* j sent me f2(j, rank) from its displacement for me */
		for (i = 0, o = 0, q = 0; q < rank; q++)
			o += f2(j, q) + 1;
		for (i = 0; i < rcnt[j]; i++) {
			want(ALLTOALLV, rdsp[j] + i, in(j, o + i, it), it);
			want(ALLTOALLW, rdsp[j] + i, in(j, o + i, it), it);
		}
	}
	/* the ring's pair: from the left neighbour */
	for (i = 0; i < K; i++)
		want(P2P, i, in((rank + size - 1) % size, i, it), it);
}

static void init_all(MPI_Comm comm, MPI_Info info, MPI_Request *r)
{
	CHECK_MPI(MPI_Barrier_init(comm, info, &r[BARRIER]));
	CHECK_MPI(MPI_Bcast_init(rb[BCAST], K, MPI_INT, root, comm, info,
				 &r[BCAST]));
	CHECK_MPI(MPI_Reduce_init(sb[REDUCE], rb[REDUCE], K, MPI_INT, MPI_SUM,
				  root, comm, info, &r[REDUCE]));
	CHECK_MPI(MPI_Allreduce_init(sb[ALLREDUCE], rb[ALLREDUCE], K, MPI_INT,
				     MPI_SUM, comm, info, &r[ALLREDUCE]));
	CHECK_MPI(MPI_Gather_init(sb[GATHER], K, MPI_INT, rb[GATHER], K,
				  MPI_INT, root, comm, info, &r[GATHER]));
	CHECK_MPI(MPI_Gatherv_init(sb[GATHERV], vcnt[rank], MPI_INT,
				   rb[GATHERV], vcnt, vdsp, MPI_INT, root, comm,
				   info, &r[GATHERV]));
	CHECK_MPI(MPI_Scatter_init(sb[SCATTER], K, MPI_INT, rb[SCATTER], K,
				   MPI_INT, root, comm, info, &r[SCATTER]));
	CHECK_MPI(MPI_Scatterv_init(sb[SCATTERV], vcnt, vdsp, MPI_INT,
				    rb[SCATTERV], vcnt[rank], MPI_INT, root,
				    comm, info, &r[SCATTERV]));
	CHECK_MPI(MPI_Allgather_init(sb[ALLGATHER], K, MPI_INT, rb[ALLGATHER],
				     K, MPI_INT, comm, info, &r[ALLGATHER]));
	CHECK_MPI(MPI_Allgatherv_init(sb[ALLGATHERV], vcnt[rank], MPI_INT,
				      rb[ALLGATHERV], vcnt, vdsp, MPI_INT, comm,
				      info, &r[ALLGATHERV]));
	CHECK_MPI(MPI_Alltoall_init(sb[ALLTOALL], K, MPI_INT, rb[ALLTOALL], K,
				    MPI_INT, comm, info, &r[ALLTOALL]));
	CHECK_MPI(MPI_Alltoallv_init(sb[ALLTOALLV], scnt, sdsp, MPI_INT,
				     rb[ALLTOALLV], rcnt, rdsp, MPI_INT, comm,
				     info, &r[ALLTOALLV]));
	CHECK_MPI(MPI_Alltoallw_init(sb[ALLTOALLW], scnt, sdspb, types,
				     rb[ALLTOALLW], rcnt, rdspb, types, comm,
				     info, &r[ALLTOALLW]));
	CHECK_MPI(MPI_Reduce_scatter_init(sb[REDSCAT], rb[REDSCAT], rscnt,
					  MPI_INT, MPI_SUM, comm, info,
					  &r[REDSCAT]));
	CHECK_MPI(MPI_Reduce_scatter_block_init(
		sb[REDSCAT_BLOCK], rb[REDSCAT_BLOCK], K, MPI_INT, MPI_SUM, comm,
		info, &r[REDSCAT_BLOCK]));
	CHECK_MPI(MPI_Scan_init(sb[SCAN], rb[SCAN], K, MPI_INT, MPI_SUM, comm,
				info, &r[SCAN]));
	CHECK_MPI(MPI_Exscan_init(sb[EXSCAN], rb[EXSCAN], K, MPI_INT, MPI_SUM,
				  comm, info, &r[EXSCAN]));
}

/* Every collective on comm (rank, size: comm's), ITERS starts each. */
static void run(MPI_Comm comm, MPI_Info info)
{
	MPI_Request r[NREQ + 1], perm[NREQ + 1];
	int i, j, d, it, c, idx, flag;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	root = size - 1;
	len = (size_t)size * (3 * K + 1) + 1;
	for (c = 0; c < NREQ; c++) {
		sb[c] = malloc(len * sizeof(int));
		rb[c] = malloc(len * sizeof(int));
		CHECK(sb[c] && rb[c], "out of memory");
	}
	for (j = 0, d = 0; j < size; j++) {
		vcnt[j] = (j % 3) * K;
		vdsp[j] = d;
		d += vcnt[j] + 1;
		rscnt[j] = K + j % 2;
		types[j] = MPI_INT;
	}
	for (j = 0, d = 0; j < size; j++) {
		scnt[j] = f2(rank, j);
		sdsp[j] = d;
		sdspb[j] = d * (int)sizeof(int);
		d += scnt[j] + 1;
	}
	for (j = 0, d = 0; j < size; j++) {
		rcnt[j] = f2(j, rank);
		rdsp[j] = d;
		rdspb[j] = d * (int)sizeof(int);
		d += rcnt[j] + 1;
	}
	init_all(comm, info, r);
	CHECK_MPI(MPI_Send_init(sb[P2P], K, MPI_INT, (rank + 1) % size, 7, comm,
				&r[P2P]));
	CHECK_MPI(MPI_Recv_init(rb[P2P], K, MPI_INT, (rank + size - 1) % size,
				7, comm, &r[NREQ]));
	for (it = 0; it < ITERS; it++) {
		fill(it);
		/* an order of its own on every rank, every iteration */
		for (i = 0; i <= NREQ; i++)
			perm[i] = r[(i * (rank % 2 ? 5 : 7) + rank + it) %
				    (NREQ + 1)];
		CHECK_MPI(MPI_Startall(NREQ + 1, perm));
		switch (it % 4) {
		case 0:
			CHECK_MPI(
				MPI_Waitall(NREQ + 1, r, MPI_STATUSES_IGNORE));
			break;
		case 1:
			for (c = NREQ; c >= 0; c--)
				CHECK_MPI(MPI_Wait(&r[c], MPI_STATUS_IGNORE));
			break;
		case 2:
			for (c = 0; c <= NREQ; c++)
				do
					CHECK_MPI(MPI_Test(&r[c], &flag,
							   MPI_STATUS_IGNORE));
				while (!flag);
			break;
		default:
			for (c = 0; c <= NREQ; c++)
				CHECK_MPI(MPI_Waitany(NREQ + 1, r, &idx,
						      MPI_STATUS_IGNORE));
			CHECK_MPI(MPI_Waitany(NREQ + 1, r, &idx,
					      MPI_STATUS_IGNORE));
			CHECK(idx == MPI_UNDEFINED, "a request stayed active");
			break;
		}
		for (c = 0; c <= NREQ; c++)
			CHECK(r[c] != MPI_REQUEST_NULL,
			      "a persistent request was freed by completion");
		check(it);
	}
	for (c = 0; c <= NREQ; c++) {
		CHECK_MPI(MPI_Request_free(&r[c]));
		CHECK(r[c] == MPI_REQUEST_NULL, "not freed");
	}
	for (c = 0; c < NREQ; c++) {
		free(sb[c]);
		free(rb[c]);
	}
}

static void errors_and_inter(void)
{
	static int fx = 1, fy; /* outlive a request freed while active */
	MPI_Request r, q;
	MPI_Comm half, inter;
	MPI_Info stale;
	int x = 1, y = 0, ret, cls, wrank, wsize, want_sum, i;

	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &wsize);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_MPI(MPI_Allreduce_init(&fx, &fy, 1, MPI_INT, MPI_SUM,
				     MPI_COMM_WORLD, MPI_INFO_NULL, &r));
	CHECK_MPI(MPI_Start(&r));
	ret = MPI_Start(&r);
	MPI_Error_class(ret, &cls);
	CHECK(cls == MPI_ERR_REQUEST, "start of an active request: %d", cls);
	CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
	CHECK(fy == wsize, "allreduce %d", fy);
	/* a point-to-point one done (MPI_PROC_NULL) but not waited for is
	 * still active */
	CHECK_MPI(MPI_Send_init(&x, 1, MPI_INT, MPI_PROC_NULL, 3,
				MPI_COMM_WORLD, &q));
	CHECK_MPI(MPI_Start(&q));
	ret = MPI_Start(&q);
	MPI_Error_class(ret, &cls);
	CHECK(cls == MPI_ERR_REQUEST, "start of a done, unwaited request: %d",
	      cls);
	ret = MPI_Startall(1, &q);
	MPI_Error_class(ret, &cls);
	CHECK(cls == MPI_ERR_REQUEST, "startall of it: %d", cls);
	CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Start(&q));
	CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Request_free(&q));
	/* free while active: released when it completes */
	CHECK_MPI(MPI_Start(&r));
	CHECK_MPI(MPI_Request_free(&r));
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	ret = MPI_Bcast_init(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
			     NULL);
	MPI_Error_class(ret, &cls);
	CHECK(cls == MPI_ERR_ARG, "NULL request: %d", cls);
	CHECK_MPI(MPI_Info_create(&stale));
	{
		MPI_Info tmp = stale;

		CHECK_MPI(MPI_Info_free(&tmp));
	}
	ret = MPI_Barrier_init(MPI_COMM_WORLD, stale, &r);
	MPI_Error_class(ret, &cls);
	CHECK(cls == MPI_ERR_INFO, "bad info: %d", cls);
	ret = MPI_Bcast_init(&x, -1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
			     &r);
	MPI_Error_class(ret, &cls);
	CHECK(cls == MPI_ERR_COUNT, "negative count: %d", cls);
	if (wsize < 2)
		return;
	/* an intercommunicator: halves by parity */
	CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &half));
	CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD,
				       wrank % 2 ? 0 : 1, 5, &inter));
	MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
	ret = MPI_Scan_init(&x, &y, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL,
			    &r);
	MPI_Error_class(ret, &cls);
	CHECK(cls == MPI_ERR_COMM, "scan on an intercommunicator: %d", cls);
	/* allreduce on an intercommunicator: the other group's sum */
	CHECK_MPI(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, inter,
				     MPI_INFO_NULL, &q));
	for (i = 0; i < 5; i++) {
		int j;

		x = wrank * 10 + i;
		CHECK_MPI(MPI_Start(&q));
		CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
		for (want_sum = 0, j = 0; j < wsize; j++)
			if (j % 2 != wrank % 2)
				want_sum += j * 10 + i;
		CHECK(y == want_sum, "intercomm allreduce %d, want %d", y,
		      want_sum);
	}
	CHECK_MPI(MPI_Request_free(&q));
	/* bcast from the even group's first rank, then a barrier, started
	 * together */
	{
		MPI_Request b[2];
		int lrank, v, broot;

		MPI_Comm_rank(inter, &lrank);
		broot = wrank % 2 ? 0 : lrank == 0 ? MPI_ROOT : MPI_PROC_NULL;
		CHECK_MPI(MPI_Bcast_init(&v, 1, MPI_INT, broot, inter,
					 MPI_INFO_NULL, &b[0]));
		CHECK_MPI(MPI_Barrier_init(inter, MPI_INFO_NULL, &b[1]));
		for (i = 0; i < 5; i++) {
			v = broot == MPI_ROOT ? 100 + i : -1;
			if (wrank % 2)
				CHECK_MPI(MPI_Startall(2, b));
			else {
				CHECK_MPI(MPI_Start(&b[1]));
				CHECK_MPI(MPI_Start(&b[0]));
			}
			CHECK_MPI(MPI_Waitall(2, b, MPI_STATUSES_IGNORE));
			if (wrank % 2)
				CHECK(v == 100 + i, "intercomm bcast %d", v);
		}
		CHECK_MPI(MPI_Request_free(&b[0]));
		CHECK_MPI(MPI_Request_free(&b[1]));
	}
	CHECK_MPI(MPI_Comm_free(&inter));
	CHECK_MPI(MPI_Comm_free(&half));
}

int main(int argc, char **argv)
{
	MPI_Comm sub;
	MPI_Info info;
	int wrank, wsize, all;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &wsize);
	CHECK_MPI(MPI_Info_create(&info));
	CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_source", "true"));
	run(MPI_COMM_WORLD, MPI_INFO_NULL);
	/* a sub-communicator in reverse order, with an info */
	CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &sub));
	run(sub, info);
	CHECK_MPI(MPI_Comm_free(&sub));
	CHECK_MPI(MPI_Info_free(&info));
	errors_and_inter();
	MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (all) {
		if (!wrank)
			fprintf(stderr, "coll_persist: %d mismatches\n", all);
		MPI_Finalize();
		return 1;
	}
	if (!wrank)
		printf("coll_persist: %d ranks OK\n", wsize);
	MPI_Finalize();
	return 0;
}
