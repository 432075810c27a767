/*
 * topo.h - Cartesian topologies: the object a communicator carries and the
 * local arithmetic on it (topo.c). Creating a Cartesian communicator is
 * collective and lives in coll/comm_create.c.
 *
 * Ranks are laid out in row-major order (the last dimension varies
 * fastest), as the standard requires; rcmpi never reorders.
 */
#ifndef RC_TOPO_H
#define RC_TOPO_H

#include <stdbool.h>

struct rc_topo {
	int kind;		/* MPI_CART */
	int ndims;
	int nnodes;		/* product of dims */
	int *dims;
	int *periods;		/* 0 or 1 */
	int *coords;		/* this process's coordinates */
};

/* A Cartesian topology for `rank` (copies the arrays); ndims may be 0. */
int rc_topo_cart_new(int ndims, const int *dims, const int *periods,
		     int rank, struct rc_topo **out);
void rc_topo_free(struct rc_topo *t);

/* Coordinates of rank (0 <= rank < nnodes). */
void rc_cart_coords(const struct rc_topo *t, int rank, int *coords);
/* Rank at coords; periodic dimensions wrap, others must be in range
 * (RC_ERR_INVAL otherwise). */
int rc_cart_rank(const struct rc_topo *t, const int *coords, int *rank);

/* MPI_Dims_create: fill the zero entries of dims[ndims] so that the
 * product is nnodes, as close to each other as possible and
 * non-increasing. RC_ERR_INVAL when impossible. */
int rc_dims_create(int nnodes, int ndims, int *dims);

#endif
