/*
 * topo.h - process topologies: the object a communicator carries and the
 * local arithmetic on it (topo.c). Creating a topology communicator is
 * collective and lives in coll/comm_create.c.
 *
 * Cartesian: ranks in row-major order (the last dimension varies fastest),
 * as the standard requires. Graph (MPI_Graph_create): the whole graph, the
 * same on every rank. Distributed graph: this process's in- and
 * out-neighbours (and weights) only. rcmpi never reorders: `reorder` is
 * accepted and rank i of the new communicator is rank i of the old one.
 *
 * Neighbourhood collectives address a process's neighbours in slot order
 * (rc_topo_nbrs) and give every slot's message its own tag offset
 * (rc_topo_nbr_tags), so that a process that is a neighbour several times
 * (a periodic dimension of size 1 or 2, repeated graph edges) gets each
 * block in the slot the standard names: Cartesian, the block sent to the
 * -1 neighbour of dimension d lands in the receiver's +1 slot of d and the
 * other way round (MPI-4.1 §8.6, an erratum to 3.1); graphs, the k-th edge
 * to a process pairs with the k-th edge from it.
 */
#ifndef RC_TOPO_H
#define RC_TOPO_H

#include <stdbool.h>

struct rc_topo {
	int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
	/* Cartesian */
	int ndims;
	int nnodes; /* Cartesian: product of dims; graph: nodes */
	int *dims;
	int *periods;		/* 0 or 1 */
	int *coords;		/* this process's coordinates */
	/* graph: index[nnodes] (cumulative degrees), edges[nedges] */
	int nedges;
	int *index, *edges;
	/* distributed graph: my neighbours and the edges' weights */
	int indegree, outdegree;
	int *in, *inw, *out, *outw;
	bool weighted;
	/* neighbourhood collectives: tags one call takes (slots that must be
	 * told apart), the same on every rank; this process's neighbours in
	 * slot order and each slot's tag offset */
	int ntags;
	int nin, nout;
	int *nbr_in, *nbr_out, *tag_in, *tag_out;
};

/* A Cartesian topology for `rank` (copies the arrays); ndims may be 0. */
int rc_topo_cart_new(int ndims, const int *dims, const int *periods,
		     int rank, struct rc_topo **out);
/* A graph topology for `rank` (copies index[nnodes] and
 * edges[index[nnodes - 1]]). */
int rc_topo_graph_new(int nnodes, const int *index, const int *edges, int rank,
		      struct rc_topo **out);
/* A distributed-graph topology (copies the arrays; weights NULL for an
 * unweighted graph); ntags as agreed over the communicator. */
int rc_topo_dist_new(int indegree, const int *in, const int *inw, int outdegree,
		     const int *out, const int *outw, bool weighted, int ntags,
		     struct rc_topo **outp);
/* A copy of t for rank (Cartesian coordinates and neighbours
 * recomputed). */
int rc_topo_copy(const struct rc_topo *t, int rank, struct rc_topo **out);
void rc_topo_free(struct rc_topo *t);

/* Coordinates of rank (0 <= rank < nnodes). */
void rc_cart_coords(const struct rc_topo *t, int rank, int *coords);
/* Rank at coords; periodic dimensions wrap, others must be in range
 * (RC_ERR_INVAL otherwise). */
int rc_cart_rank(const struct rc_topo *t, const int *coords, int *rank);
/* The source and destination of `rank` for a shift of disp in dimension
 * dir (MPI_PROC_NULL past a non-periodic edge). */
void rc_cart_shift(const struct rc_topo *t, int rank, int dir, int disp,
		   int *src, int *dst);

/* MPI_Dims_create: fill the zero entries of dims[ndims] so that the
 * product is nnodes, as close to each other as possible and
 * non-increasing. RC_ERR_INVAL when impossible. */
int rc_dims_create(int nnodes, int ndims, int *dims);

/* The most times one process appears in a list of n ranks (how many
 * tags a graph's slots need). */
int rc_topo_multiplicity(const int *list, int n);
/* Neighbours of graph node `rank`: their number, and where they start in
 * t->edges. */
int rc_graph_nbrs(const struct rc_topo *t, int rank, const int **nbrs);

/* Check MPI_Graph_create / MPI_Graph_map arrays against comm: 0 or an
 * MPI error class (and why, or NULL). */
struct rc_comm;
int rc_graph_check(const struct rc_comm *comm, int nnodes, const int *index,
		   const int *edges, const char **why);

#endif
