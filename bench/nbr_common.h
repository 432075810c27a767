/*
 * nbr_common.h - the neighbourhood-collective benchmarks in OSU's format
 * (osu_neighbor_allgather(v), osu_neighbor_alltoall(v, w) and their
 * nonblocking osu_ineighbor_* twins): each program is one call of
 * nbr_main. Standard MPI only.
 *
 * The neighbourhood comes from -N (bench_common.h), as in OSU 7:
 * cart:D:R (default cart:1:1) lays the ranks out on a periodic
 * D-dimensional grid (MPI_Dims_create) and makes every rank within R
 * steps in each dimension a neighbour (all (2R+1)^D - 1 displacements, in
 * lexicographic order, itself left out); graph:FILE reads "src,dst" edges
 * (rank r's out-neighbours are the dst of its lines, in file order, its
 * in-neighbours the src of the lines that name it). OSU refuses a radius
 * that makes one rank a neighbour twice (2 ranks on cart:1:1); here the
 * repeated neighbour is kept, as the standard allows, so 2 ranks can be
 * measured. The topology is a distributed graph
 * (MPI_Dist_graph_create_adjacent, weights of 1 as OSU's); its creation
 * time is printed. Blocks are MPI_CHAR, `size` bytes per neighbour (v and w
 * variants: the same counts, displacements i * size). Output: blocking,
 * bench_report's collective columns; nonblocking, OSU's overall /
 * compute / pure communication / overlap columns (bench_nbc_report).
 * -c checks every received block against what its sender sent in the
 * slot the standard pairs it with (the k-th edge to a process with the
 * k-th edge from it).
 */
#ifndef NBR_COMMON_H
#define NBR_COMMON_H

enum nbr_kind {
	NBR_ALLGATHER,
	NBR_ALLGATHERV,
	NBR_ALLTOALL,
	NBR_ALLTOALLV,
	NBR_ALLTOALLW,
};

/* The whole benchmark; returns the exit status. */
int nbr_main(int argc, char **argv, enum nbr_kind kind, int nonblocking);

#endif
