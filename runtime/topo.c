/*
 * topo.c - Cartesian topologies: MPI_Dims_create and the local queries
 * (MPI_Cart_coords, MPI_Cart_rank, MPI_Cart_shift, MPI_Cart_get,
 * MPI_Cartdim_get, MPI_Topo_test). MPI_Cart_create and MPI_Cart_sub are
 * collective (coll/comm_create.c).
 *
 * MPI_Dims_create factors the free part of nnodes into primes and hands
 * them out largest first, each to the free dimension with the smallest
 * product so far; the free dimensions are then sorted non-increasing.
 */
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "topo.h"

int rc_topo_cart_new(int ndims, const int *dims, const int *periods,
		     int rank, struct rc_topo **out)
{
	struct rc_topo *t = calloc(1, sizeof(*t));
	size_t n = ndims > 0 ? (size_t)ndims : 1;
	int i;

	if (!t)
		return RC_ERR_NOMEM;
	t->dims = calloc(n, sizeof(int));
	t->periods = calloc(n, sizeof(int));
	t->coords = calloc(n, sizeof(int));
	if (!t->dims || !t->periods || !t->coords) {
		rc_topo_free(t);
		return RC_ERR_NOMEM;
	}
	t->kind = MPI_CART;
	t->ndims = ndims;
	t->nnodes = 1;
	for (i = 0; i < ndims; i++) {
		t->dims[i] = dims[i];
		t->periods[i] = periods[i] ? 1 : 0;
		t->nnodes *= dims[i];
	}
	rc_cart_coords(t, rank, t->coords);
	*out = t;
	return RC_OK;
}

void rc_topo_free(struct rc_topo *t)
{
	if (!t)
		return;
	free(t->dims);
	free(t->periods);
	free(t->coords);
	free(t);
}

void rc_cart_coords(const struct rc_topo *t, int rank, int *coords)
{
	int i;

	for (i = t->ndims - 1; i >= 0; i--) {
		coords[i] = rank % t->dims[i];
		rank /= t->dims[i];
	}
}

int rc_cart_rank(const struct rc_topo *t, const int *coords, int *rank)
{
	int i, r = 0;

	for (i = 0; i < t->ndims; i++) {
		int c = coords[i], d = t->dims[i];

		if (c < 0 || c >= d) {
			if (!t->periods[i])
				return RC_ERR_INVAL;
			c %= d;
			if (c < 0)
				c += d;
		}
		r = r * d + c;
	}
	*rank = r;
	return RC_OK;
}

static int cmp_desc(const void *a, const void *b)
{
	return *(const int *)b - *(const int *)a;
}

int rc_dims_create(int nnodes, int ndims, int *dims)
{
	int i, nfree = 0, rest = nnodes, p, nf = 0, factors[32];
	int *fdims;

	for (i = 0; i < ndims; i++) {
		if (dims[i] < 0)
			return RC_ERR_INVAL;
		if (dims[i] > 0) {
			if (rest % dims[i])
				return RC_ERR_INVAL;
			rest /= dims[i];
		} else {
			nfree++;
		}
	}
	if (!nfree)
		return rest == 1 ? RC_OK : RC_ERR_INVAL;
	/* prime factors of rest, ascending (at most 31 of them) */
	for (p = 2; rest > 1 && (long)p * p <= rest; p++)
		while (rest % p == 0) {
			factors[nf++] = p;
			rest /= p;
		}
	if (rest > 1)
		factors[nf++] = rest;
	fdims = calloc((size_t)nfree, sizeof(int));
	if (!fdims)
		return RC_ERR_NOMEM;
	for (i = 0; i < nfree; i++)
		fdims[i] = 1;
	while (nf--) {
		int j, best = 0;

		for (j = 1; j < nfree; j++)
			if (fdims[j] < fdims[best])
				best = j;
		fdims[best] *= factors[nf];
	}
	qsort(fdims, (size_t)nfree, sizeof(int), cmp_desc);
	for (i = 0, p = 0; i < ndims; i++)
		if (!dims[i])
			dims[i] = fdims[p++];
	free(fdims);
	return RC_OK;
}

/* ---- API ----------------------------------------------------------------- */

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
	static const char fn[] = "MPI_Dims_create";
	int ret;

	RC_API_CHECK_INIT(fn);
	if (nnodes <= 0 || ndims < 0)
		return RC_ERR_MSG(NULL, MPI_ERR_DIMS, fn,
				  nnodes <= 0 ? "nnodes must be positive"
					      : "ndims is negative");
	if (ndims && !dims)
		return RC_ERR(NULL, MPI_ERR_ARG, fn);
	ret = rc_dims_create(nnodes, ndims, dims);
	if (ret == RC_ERR_INVAL)
		return RC_ERR_MSG(NULL, MPI_ERR_DIMS, fn,
				  "a dims entry is negative or the given "
				  "entries do not divide nnodes");
	return rc_api_status(NULL, ret, fn);
}
RC_WEAK(MPI_Dims_create)

/* The Cartesian topology of comm, or an error class raised on it. */
#define CART_GET(comm, t, fn)                                             \
	do {                                                              \
		RC_API_CHECK_INIT(fn);                                    \
		if (!rc_comm_valid(comm))                                 \
			return rc_err_handle(NULL, RC_HK_COMM, comm, fn); \
		(t) = (comm)->topo;                                       \
		if (!(t) || (t)->kind != MPI_CART)                        \
			return RC_ERR_MSG(comm, MPI_ERR_TOPOLOGY, fn,     \
					  "no Cartesian topology");       \
	} while (0)

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
	RC_API_CHECK_INIT("MPI_Topo_test");
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, "MPI_Topo_test");
	if (!status)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Topo_test");
	*status = comm->topo ? comm->topo->kind : MPI_UNDEFINED;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Topo_test)

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
	struct rc_topo *t;

	CART_GET(comm, t, "MPI_Cartdim_get");
	if (!ndims)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Cartdim_get");
	*ndims = t->ndims;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Cartdim_get)

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[],
		  int coords[])
{
	static const char fn[] = "MPI_Cart_get";
	struct rc_topo *t;
	int i, n;

	CART_GET(comm, t, fn);
	if (maxdims < 0)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	n = maxdims < t->ndims ? maxdims : t->ndims;
	if (n && (!dims || !periods || !coords))
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	for (i = 0; i < n; i++) {
		dims[i] = t->dims[i];
		periods[i] = t->periods[i];
		coords[i] = t->coords[i];
	}
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Cart_get)

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
	static const char fn[] = "MPI_Cart_coords";
	struct rc_topo *t;

	CART_GET(comm, t, fn);
	if (rank < 0 || rank >= t->nnodes)
		return RC_ERR(comm, MPI_ERR_RANK, fn);
	if (maxdims < t->ndims || (t->ndims && !coords))
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn,
				  "maxdims is smaller than the topology's "
				  "dimensions");
	rc_cart_coords(t, rank, coords);
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Cart_coords)

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
	static const char fn[] = "MPI_Cart_rank";
	struct rc_topo *t;
	int r;

	CART_GET(comm, t, fn);
	if (!rank || (t->ndims && !coords))
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	if (rc_cart_rank(t, coords, &r))
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn,
				  "coordinate out of range in a non-periodic "
				  "dimension");
	*rank = r;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Cart_rank)

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
		    int *rank_dest)
{
	static const char fn[] = "MPI_Cart_shift";
	struct rc_topo *t;
	int c[64], *coords = c, src, dst, keep, ret = MPI_SUCCESS;

	CART_GET(comm, t, fn);
	if (!rank_source || !rank_dest)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	if (direction < 0 || direction >= t->ndims)
		return RC_ERR_MSG(comm, MPI_ERR_DIMS, fn,
				  "direction out of range");
	if (t->ndims > 64) {
		coords = malloc(sizeof(int) * (size_t)t->ndims);
		if (!coords)
			return RC_ERR(comm, MPI_ERR_NO_MEM, fn);
	}
	memcpy(coords, t->coords, sizeof(int) * (size_t)t->ndims);
	keep = coords[direction];
	coords[direction] = keep + disp;
	if (rc_cart_rank(t, coords, &dst))
		dst = MPI_PROC_NULL;
	coords[direction] = keep - disp;
	if (rc_cart_rank(t, coords, &src))
		src = MPI_PROC_NULL;
	*rank_source = src;
	*rank_dest = dst;
	if (coords != c)
		free(coords);
	return ret;
}
RC_WEAK(MPI_Cart_shift)
