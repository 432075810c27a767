/*
 * coll_zero.c - valid calls that move no data must succeed on every rank
 * (issue 13, defects 1 and 2).
 *
 *   null   every collective, blocking and nonblocking, with count 0 and
 *          NULL buffers (count arrays of zeros); MPI_IN_PLACE with a
 *          NULL receive buffer wherever it is allowed.
 *   alias  every collective that takes two buffers, with one pointer for
 *          both and zero counts (what language bindings pass for empty
 *          arrays): no bytes are touched, so nothing aliases.
 *   nbr    MPI_Alltoallw and every neighbourhood collective (blocking
 *          and nonblocking) on a periodic ring and on a distributed graph
 *          with a repeated edge, with zero counts, NULL buffers and one
 *          pointer for both buffers.
 *   p2p    Send/Recv, Isend/Irecv, Sendrecv, Sendrecv_replace and
 *          Reduce_local with NULL, and with one pointer for both
 *          buffers, and count 0.
 *
 * The collectives run with roots 0 and last, on MPI_COMM_WORLD and on a
 * split of it that reverses the rank order, with MPI_INT and a vector
 * type, blocking, nonblocking, and all 32 nonblocking ones started at
 * once and completed by one MPI_Waitall.
 *   check  the aliasing check still catches real aliasing: one pointer
 *          with data in MPI_Allreduce and MPI_Alltoallv on every rank
 *          returns MPI_ERR_BUFFER everywhere (every rank finds it, so no
 *          rank is left waiting); so does MPI_(I)Allgather(v) with each
 *          rank's sendbuf at its own slot of recvbuf (a pointer of its
 *          own everywhere but at rank 0), while a sendbuf just past the
 *          slots, in the same array, is legal.
 *
 * Every call runs under MPI_ERRORS_RETURN; a failure prints the call and
 * its error and aborts the job. After each group, an allreduce of the
 * group's number proves every rank is still in step.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jobs.h"

static int rank;

#define CALL(call)                                                            \
	do {                                                                  \
		int e_ = (call);                                              \
		if (e_ != MPI_SUCCESS) {                                      \
			char s_[MPI_MAX_ERROR_STRING];                        \
			int l_;                                               \
			MPI_Error_string(e_, s_, &l_);                        \
			fprintf(stderr, "FAIL rank %d %s:%d: %s: %s\n", rank, \
				__FILE__, __LINE__, #call, s_);               \
			fflush(stderr);                                       \
			MPI_Abort(MPI_COMM_WORLD, 99);                        \
		}                                                             \
	} while (0)

/* Every rank passes the same step: all still in step. */
static void in_step(MPI_Comm comm, int step)
{
	int n, sum;

	MPI_Comm_size(comm, &n);
	CALL(MPI_Allreduce(&step, &sum, 1, MPI_INT, MPI_SUM, comm));
	CHECK(sum == n * step, "out of step at %d: sum %d", step, sum);
}

/* Start or run: nb 0 blocking, 1 nonblocking + MPI_Wait, 2 nonblocking
 * with the request kept in reqs[*nr] (completed later by the caller). */
#define NB(nb, reqs, nr, blocking, ...)                            \
	do {                                                       \
		if (!(nb)) {                                       \
			CALL(blocking);                            \
		} else {                                           \
			CALL(__VA_ARGS__);                         \
			if ((nb) == 1)                             \
				CALL(MPI_Wait(&(reqs)[*(nr)],      \
					      MPI_STATUS_IGNORE)); \
			else                                       \
				(*(nr))++;                         \
		}                                                  \
	} while (0)

/*
 * Every collective with zero counts; sb and rb are the send and receive
 * buffers of the two-buffer ones, z a count/displacement array of zeros.
 * With nb == 2 the requests land in reqs[*nr], and *nr counts them.
 */
static void zero_colls(MPI_Comm comm, void *sb, void *rb, MPI_Datatype dt,
		       int root, const int *z, int nb, MPI_Request *reqs,
		       int *nr)
{
	int one = 0;

	if (nb != 2)
		nr = &one;
#define RQ (&reqs[*nr])
	NB(nb, reqs, nr, MPI_Barrier(comm), MPI_Ibarrier(comm, RQ));
	NB(nb, reqs, nr, MPI_Bcast(rb, 0, dt, root, comm),
	   MPI_Ibcast(rb, 0, dt, root, comm, RQ));
	NB(nb, reqs, nr, MPI_Reduce(sb, rb, 0, dt, MPI_SUM, root, comm),
	   MPI_Ireduce(sb, rb, 0, dt, MPI_SUM, root, comm, RQ));
	NB(nb, reqs, nr, MPI_Allreduce(sb, rb, 0, dt, MPI_MAX, comm),
	   MPI_Iallreduce(sb, rb, 0, dt, MPI_MAX, comm, RQ));
	NB(nb, reqs, nr, MPI_Gather(sb, 0, dt, rb, 0, dt, root, comm),
	   MPI_Igather(sb, 0, dt, rb, 0, dt, root, comm, RQ));
	NB(nb, reqs, nr, MPI_Gatherv(sb, 0, dt, rb, z, z, dt, root, comm),
	   MPI_Igatherv(sb, 0, dt, rb, z, z, dt, root, comm, RQ));
	NB(nb, reqs, nr, MPI_Scatter(sb, 0, dt, rb, 0, dt, root, comm),
	   MPI_Iscatter(sb, 0, dt, rb, 0, dt, root, comm, RQ));
	NB(nb, reqs, nr, MPI_Scatterv(sb, z, z, dt, rb, 0, dt, root, comm),
	   MPI_Iscatterv(sb, z, z, dt, rb, 0, dt, root, comm, RQ));
	NB(nb, reqs, nr, MPI_Allgather(sb, 0, dt, rb, 0, dt, comm),
	   MPI_Iallgather(sb, 0, dt, rb, 0, dt, comm, RQ));
	NB(nb, reqs, nr, MPI_Allgatherv(sb, 0, dt, rb, z, z, dt, comm),
	   MPI_Iallgatherv(sb, 0, dt, rb, z, z, dt, comm, RQ));
	NB(nb, reqs, nr, MPI_Alltoall(sb, 0, dt, rb, 0, dt, comm),
	   MPI_Ialltoall(sb, 0, dt, rb, 0, dt, comm, RQ));
	NB(nb, reqs, nr, MPI_Alltoallv(sb, z, z, dt, rb, z, z, dt, comm),
	   MPI_Ialltoallv(sb, z, z, dt, rb, z, z, dt, comm, RQ));
	NB(nb, reqs, nr, MPI_Reduce_scatter(sb, rb, z, dt, MPI_SUM, comm),
	   MPI_Ireduce_scatter(sb, rb, z, dt, MPI_SUM, comm, RQ));
	NB(nb, reqs, nr, MPI_Reduce_scatter_block(sb, rb, 0, dt, MPI_SUM, comm),
	   MPI_Ireduce_scatter_block(sb, rb, 0, dt, MPI_SUM, comm, RQ));
	NB(nb, reqs, nr, MPI_Scan(sb, rb, 0, dt, MPI_PROD, comm),
	   MPI_Iscan(sb, rb, 0, dt, MPI_PROD, comm, RQ));
	NB(nb, reqs, nr, MPI_Exscan(sb, rb, 0, dt, MPI_MIN, comm),
	   MPI_Iexscan(sb, rb, 0, dt, MPI_MIN, comm, RQ));
#undef RQ
}

/* The reductions and gathers under MPI_IN_PLACE with a NULL receive
 * buffer and count 0 (MPI_IN_PLACE where each call allows it). */
static void zero_in_place(MPI_Comm comm, MPI_Datatype dt, int root,
			  const int *z)
{
	void *ip = MPI_IN_PLACE, *rip;
	int r;

	MPI_Comm_rank(comm, &r);
	rip = r == root ? ip : NULL;
	CALL(MPI_Reduce(rip, NULL, 0, dt, MPI_SUM, root, comm));
	CALL(MPI_Allreduce(ip, NULL, 0, dt, MPI_SUM, comm));
	CALL(MPI_Gather(rip, 0, dt, NULL, 0, dt, root, comm));
	CALL(MPI_Gatherv(rip, 0, dt, NULL, z, z, dt, root, comm));
	CALL(MPI_Scatter(NULL, 0, dt, rip, 0, dt, root, comm));
	CALL(MPI_Scatterv(NULL, z, z, dt, rip, 0, dt, root, comm));
	CALL(MPI_Allgather(ip, 0, dt, NULL, 0, dt, comm));
	CALL(MPI_Allgatherv(ip, 0, dt, NULL, z, z, dt, comm));
	CALL(MPI_Alltoall(ip, 0, dt, NULL, 0, dt, comm));
	CALL(MPI_Alltoallv(ip, z, z, dt, NULL, z, z, dt, comm));
	CALL(MPI_Reduce_scatter(ip, NULL, z, dt, MPI_SUM, comm));
	CALL(MPI_Reduce_scatter_block(ip, NULL, 0, dt, MPI_SUM, comm));
	CALL(MPI_Scan(ip, NULL, 0, dt, MPI_SUM, comm));
	CALL(MPI_Exscan(ip, NULL, 0, dt, MPI_SUM, comm));
}

static void one_comm(MPI_Comm comm, MPI_Datatype dt, int *step)
{
	static int shared[4]; /* the one pointer of the alias cases */
	MPI_Request reqs[32];
	int n, roots[2], ri, nb, nr, *z;

	MPI_Comm_size(comm, &n);
	z = calloc((size_t)n, sizeof(int));
	CHECK(z != NULL, "calloc");
	roots[0] = 0;
	roots[1] = n - 1;
	for (ri = 0; ri < 2; ri++) {
		for (nb = 0; nb < 3; nb++) {
			nr = 0;
			zero_colls(comm, NULL, NULL, dt, roots[ri], z, nb, reqs,
				   &nr);
			zero_colls(comm, shared, shared, dt, roots[ri], z, nb,
				   reqs, &nr);
			if (nb == 2) {
				CHECK(nr == 32, "%d requests", nr);
				CALL(MPI_Waitall(nr, reqs,
						 MPI_STATUSES_IGNORE));
			}
			in_step(comm, ++*step);
		}
		zero_in_place(comm, dt, roots[ri], z);
		in_step(comm, ++*step);
	}
	free(z);
}

/* Alltoallw and the neighbourhood collectives on comm (a topology
 * communicator) with buffers sb, rb and zero counts. */
static void zero_nbr_colls(MPI_Comm comm, void *sb, void *rb,
			   const int *z, const MPI_Aint *za,
			   const MPI_Datatype *ts)
{
	MPI_Request rq;

	CALL(MPI_Neighbor_allgather(sb, 0, MPI_INT, rb, 0, MPI_INT, comm));
	CALL(MPI_Neighbor_allgatherv(sb, 0, MPI_INT, rb, z, z, MPI_INT, comm));
	CALL(MPI_Neighbor_alltoall(sb, 0, MPI_INT, rb, 0, MPI_INT, comm));
	CALL(MPI_Neighbor_alltoallv(sb, z, z, MPI_INT, rb, z, z, MPI_INT,
				    comm));
	CALL(MPI_Neighbor_alltoallw(sb, z, za, ts, rb, z, za, ts, comm));
	CALL(MPI_Ineighbor_allgather(sb, 0, MPI_INT, rb, 0, MPI_INT, comm,
				     &rq));
	CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CALL(MPI_Ineighbor_allgatherv(sb, 0, MPI_INT, rb, z, z, MPI_INT, comm,
				      &rq));
	CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CALL(MPI_Ineighbor_alltoall(sb, 0, MPI_INT, rb, 0, MPI_INT, comm,
				    &rq));
	CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CALL(MPI_Ineighbor_alltoallv(sb, z, z, MPI_INT, rb, z, z, MPI_INT,
				     comm, &rq));
	CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CALL(MPI_Ineighbor_alltoallw(sb, z, za, ts, rb, z, za, ts, comm, &rq));
	CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CALL(MPI_Alltoallw(sb, z, z, ts, rb, z, z, ts, comm));
	CALL(MPI_Ialltoallw(sb, z, z, ts, rb, z, z, ts, comm, &rq));
	CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
}

static void nbr(int *step)
{
	static int shared[4];
	MPI_Comm ring, graph;
	MPI_Datatype *ts;
	MPI_Aint *za;
	int n, i, *z, dims[1], periods[1] = { 1 }, src[3], dst[3];

	MPI_Comm_size(MPI_COMM_WORLD, &n);
	z = calloc((size_t)n + 3, sizeof(*z));
	za = calloc((size_t)n + 3, sizeof(*za));
	ts = malloc(((size_t)n + 3) * sizeof(*ts));
	CHECK(z && za && ts, "calloc");
	for (i = 0; i < n + 3; i++)
		ts[i] = MPI_INT;
	dims[0] = n;
	CALL(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
	CALL(MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN));
	/* in from the left twice and from myself, out to the right twice
	 * and to myself: a repeated edge and a self-loop */
	src[0] = src[1] = (rank + n - 1) % n;
	src[2] = rank;
	dst[0] = dst[1] = (rank + 1) % n;
	dst[2] = rank;
	CALL(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, src,
					    MPI_UNWEIGHTED, 3, dst,
					    MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
					    &graph));
	CALL(MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN));
	zero_nbr_colls(ring, NULL, NULL, z, za, ts);
	zero_nbr_colls(ring, shared, shared, z, za, ts);
	zero_nbr_colls(graph, NULL, NULL, z, za, ts);
	zero_nbr_colls(graph, shared, shared, z, za, ts);
	in_step(MPI_COMM_WORLD, ++*step);
	CALL(MPI_Comm_free(&ring));
	CALL(MPI_Comm_free(&graph));
	free(z);
	free(za);
	free(ts);
}

static void p2p(int *step)
{
	static int shared[4];
	MPI_Request rq[2];
	MPI_Status st;
	int n, right, left, cnt;

	MPI_Comm_size(MPI_COMM_WORLD, &n);
	right = (rank + 1) % n;
	left = (rank + n - 1) % n;
	CALL(MPI_Sendrecv(shared, 0, MPI_INT, right, 1, shared, 0, MPI_INT,
			  left, 1, MPI_COMM_WORLD, &st));
	CALL(MPI_Get_count(&st, MPI_INT, &cnt));
	CHECK(cnt == 0 && st.MPI_SOURCE == left, "count %d source %d", cnt,
	      st.MPI_SOURCE);
	CALL(MPI_Irecv(shared, 0, MPI_INT, left, 4, MPI_COMM_WORLD, &rq[0]));
	CALL(MPI_Isend(shared, 0, MPI_INT, right, 4, MPI_COMM_WORLD, &rq[1]));
	CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	CALL(MPI_Reduce_local(shared, shared, 0, MPI_INT, MPI_SUM));
	CALL(MPI_Sendrecv(NULL, 0, MPI_INT, right, 2, NULL, 0, MPI_INT, left, 2,
			  MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CALL(MPI_Sendrecv_replace(NULL, 0, MPI_INT, right, 3, left, 3,
				  MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CALL(MPI_Irecv(NULL, 0, MPI_INT, left, 4, MPI_COMM_WORLD, &rq[0]));
	CALL(MPI_Isend(NULL, 0, MPI_INT, right, 4, MPI_COMM_WORLD, &rq[1]));
	CALL(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	if (n > 1) {
		if (rank == 0)
			CALL(MPI_Send(NULL, 0, MPI_INT, 1, 5, MPI_COMM_WORLD));
		else if (rank == 1)
			CALL(MPI_Recv(NULL, 0, MPI_INT, 0, 5, MPI_COMM_WORLD,
				      MPI_STATUS_IGNORE));
	}
	CALL(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM));
	in_step(MPI_COMM_WORLD, ++*step);
}

/* Real aliasing is still refused, by every rank alike. */
static void still_caught(int *step)
{
	int n, i, buf[64], *c, *d, e;
	MPI_Request req;

	MPI_Comm_size(MPI_COMM_WORLD, &n);
	for (i = 0; i < 64; i++)
		buf[i] = i;
	e = MPI_Allreduce(buf, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	CHECK(e != MPI_SUCCESS, "aliased allreduce accepted");
	MPI_Error_class(e, &e);
	CHECK(e == MPI_ERR_BUFFER, "aliased allreduce: class %d", e);
	c = malloc(sizeof(int) * (size_t)n);
	d = malloc(sizeof(int) * (size_t)n);
	CHECK(c && d, "malloc");
	for (i = 0; i < n; i++) {
		c[i] = 0;
		d[i] = 0;
	}
	/* one element to myself only: both sides touch buf[0] */
	c[rank] = 1;
	e = MPI_Alltoallv(buf, c, d, MPI_INT, buf, c, d, MPI_INT,
			  MPI_COMM_WORLD);
	CHECK(e != MPI_SUCCESS, "aliased alltoallv accepted");
	MPI_Error_class(e, &e);
	CHECK(e == MPI_ERR_BUFFER, "aliased alltoallv: class %d", e);
	/* sendbuf at my own slot of recvbuf: refused at every rank */
	for (i = 0; i < n; i++) {
		c[i] = 1;
		d[i] = i;
	}
	e = MPI_Allgather(&buf[rank], 1, MPI_INT, buf, 1, MPI_INT,
			  MPI_COMM_WORLD);
	CHECK(e != MPI_SUCCESS, "allgather from my slot accepted");
	MPI_Error_class(e, &e);
	CHECK(e == MPI_ERR_BUFFER, "allgather from my slot: class %d", e);
	e = MPI_Allgatherv(&buf[rank], 1, MPI_INT, buf, c, d, MPI_INT,
			   MPI_COMM_WORLD);
	MPI_Error_class(e, &e);
	CHECK(e == MPI_ERR_BUFFER, "allgatherv from my slot: class %d", e);
	e = MPI_Iallgather(&buf[rank], 1, MPI_INT, buf, 1, MPI_INT,
			   MPI_COMM_WORLD, &req);
	MPI_Error_class(e, &e);
	CHECK(e == MPI_ERR_BUFFER, "iallgather from my slot: class %d", e);
	/* past the slots, in the same array: legal, and it works */
	buf[n + rank] = 100 + rank;
	CALL(MPI_Allgather(&buf[n + rank], 1, MPI_INT, buf, 1, MPI_INT,
			   MPI_COMM_WORLD));
	for (i = 0; i < n; i++)
		CHECK(buf[i] == 100 + i, "allgather: buf[%d] = %d", i, buf[i]);
	free(c);
	free(d);
	in_step(MPI_COMM_WORLD, ++*step);
}

int main(int argc, char **argv)
{
	MPI_Datatype vec;
	MPI_Comm rev;
	int n, step = 0, i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CALL(MPI_Comm_split(MPI_COMM_WORLD, 0, n - rank, &rev));
	CALL(MPI_Comm_set_errhandler(rev, MPI_ERRORS_RETURN));
	CALL(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
	CALL(MPI_Type_commit(&vec));

	for (i = 0; i < 2; i++) {
		one_comm(MPI_COMM_WORLD, i ? vec : MPI_INT, &step);
		one_comm(rev, i ? vec : MPI_INT, &step);
	}
	nbr(&step);
	p2p(&step);
	still_caught(&step);

	CALL(MPI_Type_free(&vec));
	CALL(MPI_Comm_free(&rev));
	if (rank == 0)
		printf("coll_zero: %d ranks OK\n", n);
	MPI_Finalize();
	return 0;
}
