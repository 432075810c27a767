/*
 * coll_nbr.c - an MPI job for process topologies and neighbourhood
 * collectives: Cartesian grids (a periodic ring of every size, so 1 and 2
 * make one process a neighbour twice or its own; a 2-D torus; a 3-D grid
 * with a dimension of 1; a non-periodic line whose ends have
 * MPI_PROC_NULL neighbours), a graph where every node lists each
 * neighbour twice, distributed graphs from MPI_Dist_graph_create_adjacent
 * and from MPI_Dist_graph_create (one rank naming every edge; one where
 * rank 0 has 48 edges and ranks 1 and 2 have 24), their
 * queries and weights, MPI_Graph_map / MPI_Cart_map, and every
 * neighbourhood collective, blocking, nonblocking and persistent (MPI-4
 * *_init, started twice with new data), on each. A block
 * must come from the neighbour and the slot the standard names (MPI-4.1
 * §8.6): on a Cartesian grid the block sent towards -1 arrives in the +1
 * slot; on graphs the k-th edge to a process pairs with the k-th edge
 * from it. Also MPI_Alltoallw with a different datatype per peer.
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

/* A block's value: who sent it, from which slot, which element. */
static int gen; /* which run of the loop in run_nbr: changes every value */

static int enc(int who, int slot, int i)
{
	return who * 10000 + slot * 100 + i + gen * 1000000;
}

/* Neighbours of comm in slot order (Cartesian: -1, +1 per dimension). */
static void neighbours(MPI_Comm c, int *nin, int *in, int *nout, int *out)
{
	int kind, i, n, w;

	MPI_Topo_test(c, &kind);
	if (kind == MPI_CART) {
		MPI_Cartdim_get(c, &n);
		for (i = 0; i < n; i++)
			MPI_Cart_shift(c, i, 1, &in[2 * i], &in[2 * i + 1]);
		*nin = *nout = 2 * n;
		memcpy(out, in, sizeof(int) * (size_t)*nin);
	} else if (kind == MPI_GRAPH) {
		MPI_Comm_rank(c, &i);
		MPI_Graph_neighbors_count(c, i, nin);
		MPI_Graph_neighbors(c, i, *nin, in);
		*nout = *nin;
		memcpy(out, in, sizeof(int) * (size_t)*nin);
	} else {
		MPI_Dist_graph_neighbors_count(c, nin, nout, &w);
		MPI_Dist_graph_neighbors(c, *nin, in, MPI_UNWEIGHTED, *nout,
					 out, MPI_UNWEIGHTED);
	}
}

/* Everyone's out-lists, to find the slot a block comes from. */
struct all_out {
	int n, deg[64], list[64][32];
};

static void gather_out(MPI_Comm c, int nout, const int *out, struct all_out *ao)
{
	int buf[33], i;

	MPI_Comm_size(c, &ao->n);
	buf[0] = nout;
	for (i = 0; i < nout; i++)
		buf[1 + i] = out[i];
	{
		int *all = malloc(sizeof(int) * 33 * (size_t)ao->n);

		MPI_Allgather(buf, 33, MPI_INT, all, 33, MPI_INT, c);
		for (i = 0; i < ao->n; i++) {
			ao->deg[i] = all[33 * i];
			memcpy(ao->list[i], all + 33 * i + 1,
			       sizeof(int) * (size_t)ao->deg[i]);
		}
		free(all);
	}
}

/* The sender's slot for my receive slot i. */
static int from_slot(MPI_Comm c, int me, const int *in, int i,
		     const struct all_out *ao)
{
	int kind, k = 0, j, p = in[i];

	MPI_Topo_test(c, &kind);
	if (kind == MPI_CART)
		return i ^ 1;
	for (j = 0; j < i; j++)
		k += in[j] == p;
	for (j = 0; j < ao->deg[p]; j++)
		if (ao->list[p][j] == me && k-- == 0)
			return j;
	return -1;
}

/* nb 0: the blocking call; 1: the nonblocking one; 2 and 3: the
 * persistent one (MPI-4), made at 2 into preq[k] and started at 2 and 3
 * with new data in the same buffers, freed at 3. */
static MPI_Request preq[5];

#define RUN(nb, k, blocking, nonblocking, init)                           \
	do {                                                              \
		if ((nb) >= 2) {                                          \
			if ((nb) == 2)                                    \
				CHECK_MPI(init);                          \
			CHECK_MPI(MPI_Start(&preq[k]));                   \
			CHECK_MPI(MPI_Wait(&preq[k], MPI_STATUS_IGNORE)); \
			if ((nb) == 3)                                    \
				CHECK_MPI(MPI_Request_free(&preq[k]));    \
		} else if (nb) {                                          \
			MPI_Request rq_;                                  \
			CHECK_MPI(nonblocking);                           \
			CHECK_MPI(MPI_Wait(&rq_, MPI_STATUS_IGNORE));     \
		} else {                                                  \
			CHECK_MPI(blocking);                              \
		}                                                         \
	} while (0)

static void run_nbr(MPI_Comm c, const char *name, int k)
{
	int nin, nout, in[32], out[32], me, i, j, nb, d;
	int *sb, *rb, scnt[32], sdsp[32], rcnt[32], rdsp[32];
	MPI_Aint sbd[32], rbd[32];
	MPI_Datatype st[32], rt[32];
	struct all_out ao;

	MPI_Comm_rank(c, &me);
	neighbours(c, &nin, in, &nout, out);
	gather_out(c, nout, out, &ao);
	sb = malloc(sizeof(int) * (size_t)(k + 2) * 32);
	rb = malloc(sizeof(int) * (size_t)(k + 2) * 32);
	for (nb = 0; nb < 4; nb++) {
		gen = nb;
		/* allgather: one block, the same to every out-neighbour */
		for (i = 0; i < k; i++)
			sb[i] = enc(me, 0, i);
		for (i = 0; i < nin * k; i++)
			rb[i] = -1;
		RUN(nb, 0,
		    MPI_Neighbor_allgather(sb, k, MPI_INT, rb, k, MPI_INT, c),
		    MPI_Ineighbor_allgather(sb, k, MPI_INT, rb, k, MPI_INT, c,
					    &rq_),
		    MPI_Neighbor_allgather_init(sb, k, MPI_INT, rb, k, MPI_INT,
						c, MPI_INFO_NULL, &preq[0]));
		for (j = 0; j < nin; j++)
			for (i = 0; i < k; i++)
				TALLY(rb[j * k + i] ==
					      (in[j] == MPI_PROC_NULL
						       ? -1
						       : enc(in[j], 0, i)),
				      "%s: allgather slot %d", name, j);
		/* allgatherv: gaps, counts by slot */
		for (j = 0, d = 0; j < nin; j++) {
			rcnt[j] = k;
			rdsp[j] = d;
			d += k + 1;
		}
		for (i = 0; i < d; i++)
			rb[i] = -1;
		RUN(nb, 1,
		    MPI_Neighbor_allgatherv(sb, k, MPI_INT, rb, rcnt, rdsp,
					    MPI_INT, c),
		    MPI_Ineighbor_allgatherv(sb, k, MPI_INT, rb, rcnt, rdsp,
					     MPI_INT, c, &rq_),
		    MPI_Neighbor_allgatherv_init(sb, k, MPI_INT, rb, rcnt, rdsp,
						 MPI_INT, c, MPI_INFO_NULL,
						 &preq[1]));
		for (j = 0; j < nin; j++)
			for (i = 0; i < k; i++)
				TALLY(rb[rdsp[j] + i] ==
					      (in[j] == MPI_PROC_NULL
						       ? -1
						       : enc(in[j], 0, i)),
				      "%s: allgatherv slot %d", name, j);
		/* alltoall: block j to out-neighbour j */
		for (j = 0; j < nout; j++)
			for (i = 0; i < k; i++)
				sb[j * k + i] = enc(me, j, i);
		for (i = 0; i < nin * k; i++)
			rb[i] = -1;
		RUN(nb, 2,
		    MPI_Neighbor_alltoall(sb, k, MPI_INT, rb, k, MPI_INT, c),
		    MPI_Ineighbor_alltoall(sb, k, MPI_INT, rb, k, MPI_INT, c,
					   &rq_),
		    MPI_Neighbor_alltoall_init(sb, k, MPI_INT, rb, k, MPI_INT,
					       c, MPI_INFO_NULL, &preq[2]));
		for (j = 0; j < nin; j++) {
			int sl = from_slot(c, me, in, j, &ao);

			for (i = 0; i < k; i++)
				TALLY(rb[j * k + i] ==
					      (in[j] == MPI_PROC_NULL
						       ? -1
						       : enc(in[j], sl, i)),
				      "%s: alltoall slot %d: %d", name, j,
				      rb[j * k + i]);
		}
		/* alltoallv and alltoallw: counts k, gaps; w also by bytes */
		for (j = 0, d = 0; j < nout; j++) {
			scnt[j] = k;
			sdsp[j] = d;
			sbd[j] = (MPI_Aint)d * (MPI_Aint)sizeof(int);
			st[j] = MPI_INT;
			for (i = 0; i < k; i++)
				sb[d + i] = enc(me, j, i);
			d += k + 1;
		}
		for (j = 0, d = 0; j < nin; j++) {
			rcnt[j] = k;
			rdsp[j] = d;
			rbd[j] = (MPI_Aint)d * (MPI_Aint)sizeof(int);
			rt[j] = MPI_INT;
			d += k + 1;
		}
		for (i = 0; i < d; i++)
			rb[i] = -1;
		RUN(nb, 3,
		    MPI_Neighbor_alltoallv(sb, scnt, sdsp, MPI_INT, rb, rcnt,
					   rdsp, MPI_INT, c),
		    MPI_Ineighbor_alltoallv(sb, scnt, sdsp, MPI_INT, rb, rcnt,
					    rdsp, MPI_INT, c, &rq_),
		    MPI_Neighbor_alltoallv_init(sb, scnt, sdsp, MPI_INT, rb,
						rcnt, rdsp, MPI_INT, c,
						MPI_INFO_NULL, &preq[3]));
		for (j = 0; j < nin; j++) {
			int sl = from_slot(c, me, in, j, &ao);

			for (i = 0; i < k; i++)
				TALLY(rb[rdsp[j] + i] ==
					      (in[j] == MPI_PROC_NULL
						       ? -1
						       : enc(in[j], sl, i)),
				      "%s: alltoallv slot %d", name, j);
		}
		for (i = 0; i < d; i++)
			rb[i] = -1;
		RUN(nb, 4,
		    MPI_Neighbor_alltoallw(sb, scnt, sbd, st, rb, rcnt, rbd, rt,
					   c),
		    MPI_Ineighbor_alltoallw(sb, scnt, sbd, st, rb, rcnt, rbd,
					    rt, c, &rq_),
		    MPI_Neighbor_alltoallw_init(sb, scnt, sbd, st, rb, rcnt,
						rbd, rt, c, MPI_INFO_NULL,
						&preq[4]));
		for (j = 0; j < nin; j++) {
			int sl = from_slot(c, me, in, j, &ao);

			for (i = 0; i < k; i++)
				TALLY(rb[rdsp[j] + i] ==
					      (in[j] == MPI_PROC_NULL
						       ? -1
						       : enc(in[j], sl, i)),
				      "%s: alltoallw slot %d", name, j);
		}
	}
	free(sb);
	free(rb);
}

static void cart(int ndims, int *dims, int *periods, const char *name)
{
	MPI_Comm c;
	int r;

	CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 1, &c));
	CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, ndims, dims, periods, &r));
	TALLY(c == MPI_COMM_NULL ? r == MPI_UNDEFINED : r == rank,
	      "cart_map %d", r);
	if (c == MPI_COMM_NULL)
		return;
	run_nbr(c, name, 3);
	run_nbr(c, name, 1500);
	MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
	MPI_Comm c;
	int dims[3], periods[3], i, n, e, k, kind;
	int *index, *edges;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	/* Cartesian: a periodic ring, a torus, a grid with a dimension of
	 * one (periodic: its own neighbour), a line */
	dims[0] = size;
	periods[0] = 1;
	cart(1, dims, periods, "ring");
	dims[0] = dims[1] = 0;
	MPI_Dims_create(size, 2, dims);
	periods[0] = periods[1] = 1;
	cart(2, dims, periods, "torus");
	dims[0] = 1;
	dims[1] = size;
	dims[2] = 1;
	periods[0] = 1;
	periods[1] = 0;
	periods[2] = 0;
	cart(3, dims, periods, "1 x n x 1 grid");
	dims[0] = size;
	periods[0] = 0;
	cart(1, dims, periods, "line");

	/* a graph: node r lists r + 1, r - 1, r + 1, r - 1 */
	index = malloc(sizeof(int) * (size_t)size);
	edges = malloc(sizeof(int) * 4 * (size_t)size);
	for (i = 0; i < size; i++) {
		index[i] = 4 * (i + 1);
		edges[4 * i] = edges[4 * i + 2] = (i + 1) % size;
		edges[4 * i + 1] = edges[4 * i + 3] = (i + size - 1) % size;
	}
	CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &c));
	MPI_Topo_test(c, &kind);
	TALLY(kind == MPI_GRAPH, "topo_test graph %d", kind);
	MPI_Graphdims_get(c, &n, &e);
	TALLY(n == size && e == 4 * size, "graphdims %d %d", n, e);
	CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &k));
	TALLY(k == rank, "graph_map %d", k);
	/* a Cartesian call on a graph is refused */
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	TALLY(MPI_Cart_shift(c, 0, 1, &n, &e) == MPI_ERR_TOPOLOGY,
	      "cart_shift on a graph");
	run_nbr(c, "graph", 3);
	run_nbr(c, "graph", 1500);
	MPI_Comm_free(&c);
	free(index);
	free(edges);

	/* distributed, adjacent: in r - 1, r - 2; out r + 1, r + 2 */
	{
		int in[2] = {(rank + size - 1) % size,
			     (rank + 2 * size - 2) % size};
		int out[2] = {(rank + 1) % size, (rank + 2) % size};
		int iw[2] = {in[0] * 100 + rank, in[1] * 100 + rank};
		int ow[2] = {rank * 100 + out[0], rank * 100 + out[1]};
		int a[2], b[2], aw[2], bw[2], w;

		CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, in,
							 iw, 2, out, ow,
							 MPI_INFO_NULL, 0, &c));
		MPI_Dist_graph_neighbors_count(c, &n, &e, &w);
		TALLY(n == 2 && e == 2 && w, "dist counts");
		MPI_Dist_graph_neighbors(c, 2, a, aw, 2, b, bw);
		TALLY(a[1] == in[1] && aw[1] == iw[1] && bw[0] == ow[0],
		      "dist neighbours");
		run_nbr(c, "dist adjacent", 5);
		MPI_Comm_free(&c);
	}
	/* distributed, every edge named by rank 0: r -> r + 1, r -> r + 3,
	 * unweighted */
	{
		int *src = NULL, *deg = NULL, *dst = NULL, w;

		if (rank == 0) {
			src = malloc(sizeof(int) * (size_t)size);
			deg = malloc(sizeof(int) * (size_t)size);
			dst = malloc(sizeof(int) * 2 * (size_t)size);
			for (i = 0; i < size; i++) {
				src[i] = i;
				deg[i] = 2;
				dst[2 * i] = (i + 1) % size;
				dst[2 * i + 1] = (i + 3) % size;
			}
		}
		CHECK_MPI(MPI_Dist_graph_create(
			MPI_COMM_WORLD, rank == 0 ? size : 0, src, deg, dst,
			MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
		MPI_Dist_graph_neighbors_count(c, &n, &e, &w);
		TALLY(n == 2 && e == 2 && !w, "dist_graph_create counts");
		run_nbr(c, "dist", 5);
		MPI_Comm_free(&c);
		free(src);
		free(deg);
		free(dst);
	}
	/* rank 0 exchanges 12 repeated edges each way with ranks 1 and 2
	 * (48 messages per call: the schedule), ranks 1 and 2 only 24 (few
	 * enough for the blocking calls' direct path): both kinds of rank
	 * in one call */
	if (size >= 3) {
		int in[24], out[24], nin = 0, j;

		for (j = 0; j < 12; j++) {
			if (rank == 0) {
				in[nin] = out[nin] = 1;
				nin++;
				in[nin] = out[nin] = 2;
				nin++;
			} else if (rank <= 2) {
				in[nin] = out[nin] = 0;
				nin++;
			}
		}
		CHECK_MPI(MPI_Dist_graph_create_adjacent(
			MPI_COMM_WORLD, nin, in, MPI_UNWEIGHTED, nin, out,
			MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
		run_nbr(c, "dist mixed", 3);
		MPI_Comm_free(&c);
	}
	/* no topology: refused */
	TALLY(MPI_Neighbor_allgather(&i, 1, MPI_INT, &n, 1, MPI_INT,
				     MPI_COMM_WORLD) == MPI_ERR_TOPOLOGY,
	      "neighbour collective without a topology");

	/* alltoallw: to rank j, j + 1 ints as a vector of stride 2 when j
	 * is odd, contiguous when even; received contiguous */
	{
		MPI_Datatype vec[64],
			*st = malloc(sizeof(MPI_Datatype) * (size_t)size);
		MPI_Datatype *rt = malloc(sizeof(MPI_Datatype) * (size_t)size);
		int *sc = malloc(sizeof(int) * (size_t)size * 4);
		int *sd = sc + size, *rc = sd + size, *rd = rc + size;
		int *sb = malloc(sizeof(int) * (size_t)(size + 1) * 2 *
				 (size_t)size);
		int *rb =
			malloc(sizeof(int) * (size_t)(rank + 1) * (size_t)size);
		int j, off = 0;

		for (j = 0; j < size; j++) {
			if (j % 2) {
				MPI_Type_vector(j + 1, 1, 2, MPI_INT, &vec[j]);
				MPI_Type_commit(&vec[j]);
				st[j] = vec[j];
				sc[j] = 1;
			} else {
				st[j] = MPI_INT;
				sc[j] = j + 1;
			}
			sd[j] = off * (int)sizeof(int);
			for (i = 0; i < j + 1; i++)
				sb[off + (j % 2 ? 2 * i : i)] = enc(rank, j, i);
			off += 2 * (j + 1);
			rt[j] = MPI_INT;
			rc[j] = rank + 1;
			rd[j] = j * (rank + 1) * (int)sizeof(int);
		}
		CHECK_MPI(MPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt,
					MPI_COMM_WORLD));
		for (e = 0; e < size * (rank + 1); e++)
			TALLY(rb[e] ==
				      enc(e / (rank + 1), rank, e % (rank + 1)),
			      "alltoallw [%d]", e);
		/* nonblocking, the types freed while it runs (the call keeps
		 * them) */
		{
			MPI_Request rq;

			memset(rb, 0xff,
			       sizeof(int) * (size_t)(rank + 1) * (size_t)size);
			CHECK_MPI(MPI_Ialltoallw(sb, sc, sd, st, rb, rc, rd, rt,
						 MPI_COMM_WORLD, &rq));
			for (j = 1; j < size; j += 2)
				MPI_Type_free(&vec[j]);
			CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
		}
		for (e = 0; e < size * (rank + 1); e++)
			TALLY(rb[e] ==
				      enc(e / (rank + 1), rank, e % (rank + 1)),
			      "ialltoallw [%d]", e);
		free(st);
		free(rt);
		free(sc);
		free(sb);
		free(rb);
	}
	MPI_Allreduce(&errors, &k, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("coll_nbr: %d ranks %s\n", size, k ? "FAILED" : "OK");
	MPI_Finalize();
	return k ? 1 : 0;
}
