/*
 * topo.c - process topologies (topo.h): the objects, MPI_Dims_create and
 * the local calls: MPI_Cart_coords, _rank, _shift, _get, _map,
 * MPI_Cartdim_get, MPI_Graph_neighbors(_count), MPI_Graphdims_get,
 * MPI_Graph_get, MPI_Graph_map, MPI_Dist_graph_neighbors(_count),
 * MPI_Topo_test. The constructors are collective (coll/comm_create.c).
 * A call of one kind on a communicator of another (or none) gets
 * MPI_ERR_TOPOLOGY.
 *
 * MPI_Dims_create splits the free part of nnodes as evenly as possible
 * (dims_split, below).
 */
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "thread.h"
#include "topo.h"

/* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY: compared by address only */
int rc_mpi_unweighted[1], rc_mpi_weights_empty[1];

static int *dup_ints(const int *src, int n)
{
	int *p = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));

	if (p && n > 0 && src)
		memcpy(p, src, sizeof(int) * (size_t)n);
	return p;
}

int rc_topo_multiplicity(const int *list, int n)
{
	int i, j, k, best = n ? 1 : 0;

	for (i = 0; i < n; i++) {
		for (j = 0, k = 0; j < n; j++)
			k += list[j] == list[i];
		if (k > best)
			best = k;
	}
	return best;
}

int rc_graph_nbrs(const struct rc_topo *t, int rank, const int **nbrs)
{
	int lo = rank ? t->index[rank - 1] : 0;

	*nbrs = t->edges + lo;
	return t->index[rank] - lo;
}

/* Slot k's tag offset: the k-th appearance of the same process pairs
 * with the k-th on the other side (graphs). */
static void occurrences(const int *list, int n, int *tag)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0, tag[i] = 0; j < i; j++)
			tag[i] += list[j] == list[i];
}

/* This process's neighbours, in slot order, and their tag offsets. */
static int set_nbrs(struct rc_topo *t, int rank)
{
	const int *g;
	int d, n;

	switch (t->kind) {
	case MPI_CART:
		n = 2 * t->ndims;
		t->nin = t->nout = n;
		break;
	case MPI_GRAPH:
		t->nin = t->nout = rc_graph_nbrs(t, rank, &g);
		break;
	default:
		t->nin = t->indegree;
		t->nout = t->outdegree;
		break;
	}
	t->nbr_in = malloc(sizeof(int) * (size_t)(t->nin + 1));
	t->nbr_out = malloc(sizeof(int) * (size_t)(t->nout + 1));
	t->tag_in = malloc(sizeof(int) * (size_t)(t->nin + 1));
	t->tag_out = malloc(sizeof(int) * (size_t)(t->nout + 1));
	if (!t->nbr_in || !t->nbr_out || !t->tag_in || !t->tag_out)
		return RC_ERR_NOMEM;
	switch (t->kind) {
	case MPI_CART:
		/* (-1, +1) per dimension; the block sent towards -1 arrives
		 * in the receiver's +1 slot: tag by the receiving slot */
		for (d = 0; d < t->ndims; d++) {
			rc_cart_shift(t, rank, d, 1, &t->nbr_in[2 * d],
				      &t->nbr_in[2 * d + 1]);
			t->nbr_out[2 * d] = t->nbr_in[2 * d];
			t->nbr_out[2 * d + 1] = t->nbr_in[2 * d + 1];
		}
		for (d = 0; d < t->nin; d++) {
			t->tag_in[d] = d;
			t->tag_out[d] = d ^ 1;
		}
		return RC_OK;
	case MPI_GRAPH:
		memcpy(t->nbr_in, g, sizeof(int) * (size_t)t->nin);
		memcpy(t->nbr_out, g, sizeof(int) * (size_t)t->nin);
		break;
	default:
		memcpy(t->nbr_in, t->in, sizeof(int) * (size_t)t->nin);
		memcpy(t->nbr_out, t->out, sizeof(int) * (size_t)t->nout);
		break;
	}
	occurrences(t->nbr_in, t->nin, t->tag_in);
	occurrences(t->nbr_out, t->nout, t->tag_out);
	return RC_OK;
}

int rc_topo_cart_new(int ndims, const int *dims, const int *periods,
		     int rank, struct rc_topo **out)
{
	struct rc_topo *t = calloc(1, sizeof(*t));
	int i;

	if (!t)
		return RC_ERR_NOMEM;
	t->kind = MPI_CART;
	t->dims = dup_ints(dims, ndims);
	t->periods = calloc((size_t)(ndims > 0 ? ndims : 1), sizeof(int));
	t->coords = calloc((size_t)(ndims > 0 ? ndims : 1), sizeof(int));
	if (!t->dims || !t->periods || !t->coords)
		goto err_free;
	t->ndims = ndims;
	t->nnodes = 1;
	for (i = 0; i < ndims; i++) {
		t->periods[i] = periods[i] ? 1 : 0;
		t->nnodes *= dims[i];
	}
	t->ntags = 2 * ndims;
	rc_cart_coords(t, rank, t->coords);
	if (set_nbrs(t, rank))
		goto err_free;
	*out = t;
	return RC_OK;

err_free:
	rc_topo_free(t);
	return RC_ERR_NOMEM;
}

int rc_topo_graph_new(int nnodes, const int *index, const int *edges, int rank,
		      struct rc_topo **out)
{
	struct rc_topo *t = calloc(1, sizeof(*t));
	int i;

	if (!t)
		return RC_ERR_NOMEM;
	t->kind = MPI_GRAPH;
	t->nnodes = nnodes;
	t->nedges = nnodes ? index[nnodes - 1] : 0;
	t->index = dup_ints(index, nnodes);
	t->edges = dup_ints(edges, t->nedges);
	if (!t->index || !t->edges)
		goto err_free;
	/* the same on every rank: it depends on the whole graph */
	t->ntags = 1;
	for (i = 0; i < nnodes; i++) {
		const int *g;
		int n = rc_graph_nbrs(t, i, &g), k = rc_topo_multiplicity(g, n);

		if (k > t->ntags)
			t->ntags = k;
	}
	if (set_nbrs(t, rank))
		goto err_free;
	*out = t;
	return RC_OK;

err_free:
	rc_topo_free(t);
	return RC_ERR_NOMEM;
}

int rc_topo_dist_new(int indegree, const int *in, const int *inw, int outdegree,
		     const int *out, const int *outw, bool weighted, int ntags,
		     struct rc_topo **outp)
{
	struct rc_topo *t = calloc(1, sizeof(*t));

	if (!t)
		return RC_ERR_NOMEM;
	t->kind = MPI_DIST_GRAPH;
	t->indegree = indegree;
	t->outdegree = outdegree;
	t->weighted = weighted;
	t->ntags = ntags > 0 ? ntags : 1;
	t->in = dup_ints(in, indegree);
	t->out = dup_ints(out, outdegree);
	t->inw = dup_ints(weighted ? inw : NULL, indegree);
	t->outw = dup_ints(weighted ? outw : NULL, outdegree);
	if (!t->in || !t->out || !t->inw || !t->outw || set_nbrs(t, 0)) {
		rc_topo_free(t);
		return RC_ERR_NOMEM;
	}
	*outp = t;
	return RC_OK;
}

int rc_topo_copy(const struct rc_topo *t, int rank, struct rc_topo **out)
{
	switch (t->kind) {
	case MPI_CART:
		return rc_topo_cart_new(t->ndims, t->dims, t->periods, rank,
					out);
	case MPI_GRAPH:
		return rc_topo_graph_new(t->nnodes, t->index, t->edges, rank,
					 out);
	default:
		return rc_topo_dist_new(t->indegree, t->in, t->inw,
					t->outdegree, t->out, t->outw,
					t->weighted, t->ntags, out);
	}
}

void rc_topo_free(struct rc_topo *t)
{
	if (!t)
		return;
	free(t->dims);
	free(t->periods);
	free(t->coords);
	free(t->index);
	free(t->edges);
	free(t->in);
	free(t->inw);
	free(t->out);
	free(t->outw);
	free(t->nbr_in);
	free(t->nbr_out);
	free(t->tag_in);
	free(t->tag_out);
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

void rc_cart_shift(const struct rc_topo *t, int rank, int dir, int disp,
		   int *src, int *dst)
{
	int r = rank, i, c, d, up, down, step = 1;

	/* coordinate of dimension dir, and the rank stride of that
	 * dimension (row-major: the last varies fastest) */
	for (i = t->ndims - 1; i > dir; i--) {
		step *= t->dims[i];
		r /= t->dims[i];
	}
	c = r % t->dims[dir];
	d = t->dims[dir];
	up = c + disp;
	down = c - disp;
	if (t->periods[dir]) {
		up = ((up % d) + d) % d;
		down = ((down % d) + d) % d;
	}
	*dst = up >= 0 && up < d ? rank + (up - c) * step : MPI_PROC_NULL;
	*src = down >= 0 && down < d ? rank + (down - c) * step : MPI_PROC_NULL;
}

/*
 * MPI_Dims_create: the free dimensions' product split as evenly as
 * possible (MPI-3.1 7.5.2). "Evenly" is the smallest spread, largest
 * factor minus smallest; among splits of equal spread the one whose
 * smallest factor is largest wins, then the next smallest, and so on.
 * That is the answer MPICH's own table of cases (its topo/dims5 test)
 * expects: 72 ranks in 2D are 9 x 8, where handing out prime factors
 * largest first gives 12 x 6.
 *
 * A branch and bound over the divisors of the product, factors chosen
 * smallest first and non-decreasing. Each level tries its candidates
 * from the largest down, so the first split found of a given quality is
 * the preferred one and later ones must be strictly better. A product
 * below 2^31 has at most 1600 divisors, and the bounds keep the search
 * small: the largest factor of m still to choose from n is at least the
 * m-th root of n.
 */
/* the most divisors an int below 2^31 has (2095133040 has 1600) */
#define RC_DIMS_MAX_DIVISORS 1600

struct dims_search {
	const int *div; /* divisors of the product, ascending */
	int ndiv;
	int k;	  /* free dimensions */
	int first; /* factors before it are 1 (dims_split's ones) */
	long lim; /* a new split's largest factor must be below this */
	int found;
	int *try, *best;
};

/* r^m <= n, without overflow */
static int pow_le(long r, int m, long n)
{
	long p = 1;

	while (m--) {
		if (p > n / r)
			return 0;
		p *= r;
	}
	return p <= n;
}

/* the smallest r with r^m >= n (n >= 1, m >= 1) */
static int root_ceil(long n, int m)
{
	long lo = 1, hi = n;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (pow_le(mid, m, n - 1))
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int)lo;
}

/* factors i..k-1 of the split, their product n, each at least lo */
static void dims_search(struct dims_search *s, int i, int n, int lo)
{
	int m = s->k - i, j;

	if (m == 1) {
		if (n >= lo && n < s->lim) {
			s->try[i] = n;
			memcpy(s->best + s->first, s->try + s->first,
			       sizeof(int) * (size_t)(s->k - s->first));
			s->lim = n;
			s->found = 1;
		}
		return;
	}
	for (j = s->ndiv - 1; j >= 0 && s->div[j] >= lo; j--) {
		int d = s->div[j];

		if (n % d || !pow_le(d, m, n))
			continue;
		/* the rest's largest factor is at least its (m-1)-th root,
		 * which only grows as d shrinks */
		if (root_ceil(n / d, m - 1) >= s->lim)
			break;
		s->try[i] = d;
		dims_search(s, i + 1, n / d, d);
	}
}

/* the split of n into k factors, written non-increasing into out */
static int dims_split(int n, int k, int *out)
{
	struct dims_search s = {.k = k};
	int *div, *buf, nd = 0, d, j, have = 0, spread = 0, floor_max, ones;

	if (k == 1) {
		out[0] = n;
		return RC_OK;
	}
	/* While 2^m > n the smallest of m factors can only be 1: whatever
	 * ndims is, at most 30 factors are not, and the search (one level
	 * per factor) goes no deeper than those. */
	for (ones = 0; k - ones > 1 && !pow_le(2, k - ones, n); ones++)
		;
	div = malloc(sizeof(int) * RC_DIMS_MAX_DIVISORS);
	buf = malloc(sizeof(int) * 2 * (size_t)k);
	if (!div || !buf) {
		free(div);
		free(buf);
		return RC_ERR_NOMEM;
	}
	/* divisors ascending: those up to the square root, then their
	 * cofactors */
	for (d = 1; (long)d * d <= n; d++)
		if (n % d == 0)
			div[nd++] = d;
	for (j = nd - 1; j >= 0; j--)
		if (n / div[j] != div[j])
			div[nd++] = n / div[j];
	s.div = div;
	s.ndiv = nd;
	s.try = buf;
	s.best = buf + k;
	for (j = 0; j < ones; j++)
		s.try[j] = s.best[j] = 1;
	s.first = ones;
	if (ones) {
		/* the smallest factor is 1: the smallest largest one wins */
		s.lim = (long)n + 1;
		dims_search(&s, ones, n, 1);
		goto out;
	}
	floor_max = root_ceil(n, k);
	/* the smallest factor, largest first: a smaller one must give a
	 * strictly smaller spread, which it cannot once it lies that far
	 * below the k-th root of n (a floor for the largest factor) */
	for (j = nd - 1; j >= 0; j--) {
		d = div[j];
		if (!pow_le(d, k, n))
			continue;
		if (have && floor_max - d >= spread)
			break;
		s.lim = have ? (long)spread + d : (long)n + 1;
		s.found = 0;
		s.try[0] = d;
		dims_search(&s, 1, n / d, d);
		if (s.found) {
			have = 1;
			spread = (int)(s.lim - d);
		}
	}
out:
	for (j = 0; j < k; j++)
		out[j] = s.best[k - 1 - j];
	free(div);
	free(buf);
	return RC_OK;
}

int rc_dims_create(int nnodes, int ndims, int *dims)
{
	int i, nfree = 0, rest = nnodes, p, ret;
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
	fdims = calloc((size_t)nfree, sizeof(int));
	if (!fdims)
		return RC_ERR_NOMEM;
	ret = dims_split(rest, nfree, fdims);
	for (i = 0, p = 0; !ret && i < ndims; i++)
		if (!dims[i])
			dims[i] = fdims[p++];
	free(fdims);
	return ret;
}

/* ---- API ----------------------------------------------------------------- */

/* Arithmetic on the caller's array only: outside the critical section. */
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

static int api_topo_test(MPI_Comm comm, int *status)
{
	RC_API_CHECK_INIT("MPI_Topo_test");
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, "MPI_Topo_test");
	if (!status)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Topo_test");
	*status = comm->topo ? comm->topo->kind : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
	return RC_CS_CALL(&rc_cs_big, api_topo_test(comm, status));
}
RC_WEAK(MPI_Topo_test)

static int api_cartdim_get(MPI_Comm comm, int *ndims)
{
	struct rc_topo *t;

	CART_GET(comm, t, "MPI_Cartdim_get");
	if (!ndims)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Cartdim_get");
	*ndims = t->ndims;
	return MPI_SUCCESS;
}

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
	return RC_CS_CALL(&rc_cs_big, api_cartdim_get(comm, ndims));
}
RC_WEAK(MPI_Cartdim_get)

static int api_cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[],
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

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[],
		  int coords[])
{
	return RC_CS_CALL(&rc_cs_big,
			  api_cart_get(comm, maxdims, dims, periods, coords));
}
RC_WEAK(MPI_Cart_get)

static int api_cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
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

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
	return RC_CS_CALL(&rc_cs_big,
			  api_cart_coords(comm, rank, maxdims, coords));
}
RC_WEAK(MPI_Cart_coords)

static int api_cart_rank(MPI_Comm comm, const int coords[], int *rank)
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

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
	return RC_CS_CALL(&rc_cs_big, api_cart_rank(comm, coords, rank));
}
RC_WEAK(MPI_Cart_rank)

static int api_cart_shift(MPI_Comm comm, int direction, int disp,
			  int *rank_source, int *rank_dest)
{
	static const char fn[] = "MPI_Cart_shift";
	struct rc_topo *t;

	CART_GET(comm, t, fn);
	if (!rank_source || !rank_dest)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	if (direction < 0 || direction >= t->ndims)
		return RC_ERR_MSG(comm, MPI_ERR_DIMS, fn,
				  "direction out of range");
	rc_cart_shift(t, comm->rank, direction, disp, rank_source, rank_dest);
	return MPI_SUCCESS;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
		    int *rank_dest)
{
	return RC_CS_CALL(&rc_cs_big, api_cart_shift(comm, direction, disp,
						     rank_source, rank_dest));
}
RC_WEAK(MPI_Cart_shift)

/* ---- graphs -------------------------------------------------------------- */

/* The topology of kind `kind` of comm, or an error class raised on it. */
#define TOPO_GET(comm, t, want, fn, what)                                 \
	do {                                                              \
		RC_API_CHECK_INIT(fn);                                    \
		if (!rc_comm_valid(comm))                                 \
			return rc_err_handle(NULL, RC_HK_COMM, comm, fn); \
		(t) = (comm)->topo;                                       \
		if (!(t) || (t)->kind != (want))                          \
			return RC_ERR_MSG(comm, MPI_ERR_TOPOLOGY, fn,     \
					  "no " what " topology");        \
	} while (0)

static int graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
	static const char fn[] = "MPI_Graphdims_get";
	struct rc_topo *t;

	TOPO_GET(comm, t, MPI_GRAPH, fn, "graph");
	if (!nnodes || !nedges)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	*nnodes = t->nnodes;
	*nedges = t->nedges;
	return MPI_SUCCESS;
}

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
	return RC_CS_CALL(&rc_cs_big, graphdims_get(comm, nnodes, nedges));
}
RC_WEAK(MPI_Graphdims_get)

static int graph_get(MPI_Comm comm, int maxindex, int maxedges, int *index,
		     int *edges)
{
	static const char fn[] = "MPI_Graph_get";
	struct rc_topo *t;
	int ni, ne;

	TOPO_GET(comm, t, MPI_GRAPH, fn, "graph");
	if (maxindex < 0 || maxedges < 0)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	ni = maxindex < t->nnodes ? maxindex : t->nnodes;
	ne = maxedges < t->nedges ? maxedges : t->nedges;
	if ((ni && !index) || (ne && !edges))
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	if (ni)
		memcpy(index, t->index, sizeof(int) * (size_t)ni);
	if (ne)
		memcpy(edges, t->edges, sizeof(int) * (size_t)ne);
	return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[],
		   int edges[])
{
	return RC_CS_CALL(&rc_cs_big,
			  graph_get(comm, maxindex, maxedges, index, edges));
}
RC_WEAK(MPI_Graph_get)

static int graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
	static const char fn[] = "MPI_Graph_neighbors_count";
	const int *g;
	struct rc_topo *t;

	TOPO_GET(comm, t, MPI_GRAPH, fn, "graph");
	if (rank < 0 || rank >= t->nnodes)
		return RC_ERR(comm, MPI_ERR_RANK, fn);
	if (!nneighbors)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	*nneighbors = rc_graph_nbrs(t, rank, &g);
	return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
	return RC_CS_CALL(&rc_cs_big,
			  graph_neighbors_count(comm, rank, nneighbors));
}
RC_WEAK(MPI_Graph_neighbors_count)

static int graph_neighbors(MPI_Comm comm, int rank, int maxneighbors,
			   int *neighbors)
{
	static const char fn[] = "MPI_Graph_neighbors";
	const int *g;
	struct rc_topo *t;
	int n;

	TOPO_GET(comm, t, MPI_GRAPH, fn, "graph");
	if (rank < 0 || rank >= t->nnodes)
		return RC_ERR(comm, MPI_ERR_RANK, fn);
	if (maxneighbors < 0)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	n = rc_graph_nbrs(t, rank, &g);
	if (n > maxneighbors)
		n = maxneighbors;
	if (n && !neighbors)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	if (n)
		memcpy(neighbors, g, sizeof(int) * (size_t)n);
	return MPI_SUCCESS;
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors,
			 int neighbors[])
{
	return RC_CS_CALL(&rc_cs_big,
			  graph_neighbors(comm, rank, maxneighbors, neighbors));
}
RC_WEAK(MPI_Graph_neighbors)

/* ---- distributed graphs ------------------------------------------------ */

static int dist_graph_neighbors_count(MPI_Comm comm, int *indegree,
				      int *outdegree, int *weighted)
{
	static const char fn[] = "MPI_Dist_graph_neighbors_count";
	struct rc_topo *t;

	TOPO_GET(comm, t, MPI_DIST_GRAPH, fn, "distributed graph");
	if (!indegree || !outdegree || !weighted)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	*indegree = t->indegree;
	*outdegree = t->outdegree;
	*weighted = t->weighted;
	return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree,
				    int *outdegree, int *weighted)
{
	return RC_CS_CALL(&rc_cs_big,
			  dist_graph_neighbors_count(comm, indegree, outdegree,
						     weighted));
}
RC_WEAK(MPI_Dist_graph_neighbors_count)

static int dist_graph_neighbors(MPI_Comm comm, int maxindegree, int *sources,
				int *sourceweights, int maxoutdegree,
				int *destinations, int *destweights)
{
	static const char fn[] = "MPI_Dist_graph_neighbors";
	struct rc_topo *t;
	bool sw, dw;

	TOPO_GET(comm, t, MPI_DIST_GRAPH, fn, "distributed graph");
	if (maxindegree < t->indegree || maxoutdegree < t->outdegree)
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn,
				  "maxindegree or maxoutdegree is smaller "
				  "than the degree");
	/* weights are returned for a weighted graph, into arrays that are
	 * not MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY */
	sw = t->weighted && sourceweights != MPI_UNWEIGHTED &&
	     sourceweights != MPI_WEIGHTS_EMPTY;
	dw = t->weighted && destweights != MPI_UNWEIGHTED &&
	     destweights != MPI_WEIGHTS_EMPTY;
	if ((t->indegree && (!sources || (sw && !sourceweights))) ||
	    (t->outdegree && (!destinations || (dw && !destweights))))
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	if (t->indegree) {
		memcpy(sources, t->in, sizeof(int) * (size_t)t->indegree);
		if (sw)
			memcpy(sourceweights, t->inw,
			       sizeof(int) * (size_t)t->indegree);
	}
	if (t->outdegree) {
		memcpy(destinations, t->out,
		       sizeof(int) * (size_t)t->outdegree);
		if (dw)
			memcpy(destweights, t->outw,
			       sizeof(int) * (size_t)t->outdegree);
	}
	return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
			      int sourceweights[], int maxoutdegree,
			      int destinations[], int destweights[])
{
	return RC_CS_CALL(&rc_cs_big,
			  dist_graph_neighbors(comm, maxindegree, sources,
					       sourceweights, maxoutdegree,
					       destinations, destweights));
}
RC_WEAK(MPI_Dist_graph_neighbors)

/* ---- mapping (rcmpi never reorders) ------------------------------------ */

/* The rank a topology of `nnodes` nodes would give the caller: its own,
 * or MPI_UNDEFINED past the last node. */
static int map_rank(MPI_Comm comm, int nnodes)
{
	return comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
}

static int cart_map(MPI_Comm comm, int ndims, const int *dims,
		    const int *periods, int *newrank)
{
	static const char fn[] = "MPI_Cart_map";
	long nnodes = 1;
	int i;

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	if (rc_comm_is_inter(comm))
		return RC_ERR_MSG(comm, MPI_ERR_COMM, fn,
				  "an intercommunicator");
	if (ndims < 0)
		return RC_ERR_MSG(comm, MPI_ERR_DIMS, fn, "ndims is negative");
	if (!newrank || (ndims && (!dims || !periods)))
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	for (i = 0; i < ndims; i++) {
		if (dims[i] <= 0)
			return RC_ERR_MSG(comm, MPI_ERR_DIMS, fn,
					  "a dimension is not positive");
		nnodes *= dims[i];
		if (nnodes > comm->size)
			return RC_ERR_MSG(comm, MPI_ERR_TOPOLOGY, fn,
					  "the grid has more points than the "
					  "communicator has ranks");
	}
	*newrank = map_rank(comm, (int)nnodes);
	return MPI_SUCCESS;
}

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[],
		  const int periods[], int *newrank)
{
	return RC_CS_CALL(&rc_cs_big,
			  cart_map(comm, ndims, dims, periods, newrank));
}
RC_WEAK(MPI_Cart_map)

int rc_graph_check(const struct rc_comm *comm, int nnodes, const int *index,
		   const int *edges, const char **why)
{
	int i, prev = 0;

	*why = NULL;
	if (nnodes < 0) {
		*why = "nnodes is negative";
		return MPI_ERR_ARG;
	}
	if (nnodes > comm->size) {
		*why = "more nodes than the communicator has ranks";
		return MPI_ERR_ARG;
	}
	if (nnodes && (!index || (index[nnodes - 1] && !edges)))
		return MPI_ERR_ARG;
	for (i = 0; i < nnodes; i++) {
		if (index[i] < prev) {
			*why = "index is not non-decreasing from 0";
			return MPI_ERR_ARG;
		}
		prev = index[i];
	}
	for (i = 0; nnodes && i < index[nnodes - 1]; i++)
		if (edges[i] < 0 || edges[i] >= nnodes) {
			*why = "an edge names no node";
			return MPI_ERR_ARG;
		}
	return MPI_SUCCESS;
}

static int graph_map(MPI_Comm comm, int nnodes, const int *index,
		     const int *edges, int *newrank)
{
	static const char fn[] = "MPI_Graph_map";
	const char *why;
	int cls;

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	if (rc_comm_is_inter(comm))
		return RC_ERR_MSG(comm, MPI_ERR_COMM, fn,
				  "an intercommunicator");
	if (!newrank)
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	cls = rc_graph_check(comm, nnodes, index, edges, &why);
	if (cls)
		return RC_ERR_MSG(comm, cls, fn, why);
	*newrank = map_rank(comm, nnodes);
	return MPI_SUCCESS;
}

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[],
		   const int edges[], int *newrank)
{
	return RC_CS_CALL(&rc_cs_big,
			  graph_map(comm, nnodes, index, edges, newrank));
}
RC_WEAK(MPI_Graph_map)
