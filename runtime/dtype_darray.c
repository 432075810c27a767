/*
 * dtype_darray.c - MPI_Type_create_darray's type map (MPI-3.1 4.1.4).
 *
 * A process of a grid of psizes[] processes (row-major ranks, whatever the
 * array order) owns, in each dimension d, a set of runs of consecutive
 * global indices: one block of b = darg (default ceil(gsize / psize)) at
 * coord * b for MPI_DISTRIBUTE_BLOCK; blocks of k = darg (default 1) at
 * coord * k + j * psize * k for MPI_DISTRIBUTE_CYCLIC, the last one cut at
 * gsize; everything for MPI_DISTRIBUTE_NONE. Its elements are those whose
 * index tuple lies in the runs of every dimension, in the array's storage
 * order (C: the last dimension fastest; Fortran: the first).
 *
 * Built from the fastest dimension outwards: an hindexed of that
 * dimension's runs of oldtype; then, per slower dimension, the inner type
 * resized to that dimension's stride (one index further = one row of the
 * faster dimensions) and an hindexed of the dimension's runs of it.
 * Finally resized to lb 0 and the whole global array's extent, as the
 * standard says.
 */
#include <stdlib.h>
#include "dtype.h"
#include "status.h"

struct da_run {
	int start, len;
};

/* Runs of dimension d for process coordinate c, into runs[] (room for
 * gsize entries); their number. */
static int da_runs(int gsize, int distrib, int darg, int psize, int c,
		   struct da_run *runs)
{
	int n = 0, b, k, s;

	switch (distrib) {
	case MPI_DISTRIBUTE_NONE:
		runs[0].start = 0;
		runs[0].len = gsize;
		return 1;
	case MPI_DISTRIBUTE_BLOCK:
		b = darg == MPI_DISTRIBUTE_DFLT_DARG
			    ? (int)(((long long)gsize + psize - 1) / psize)
			    : darg;
		s = (long long)c * b < gsize ? c * b : gsize;
		if (s < gsize) {
			runs[0].start = s;
			runs[0].len = gsize - s < b ? gsize - s : b;
			n = 1;
		}
		return n;
	default: /* MPI_DISTRIBUTE_CYCLIC */
		k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
		for (s = (long long)c * k < gsize ? c * k : gsize; s < gsize;) {
			runs[n].start = s;
			runs[n].len = gsize - s < k ? gsize - s : k;
			n++;
			if ((long long)s + (long long)psize * k >= gsize)
				break;
			s += psize * k;
		}
		return n;
	}
}

/* hindexed of n runs of t, run i at runs[i].start * stride bytes */
static int da_level(const struct da_run *runs, int n, ptrdiff_t stride,
		    const struct rc_dtype *t, struct rc_dtype **out)
{
	int *bl = malloc(sizeof(*bl) * (size_t)(n ? n : 1));
	MPI_Aint *disp = malloc(sizeof(*disp) * (size_t)(n ? n : 1));
	int i, ret = RC_OK;

	if (!bl || !disp) {
		ret = RC_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		bl[i] = runs[i].len;
		if (__builtin_mul_overflow((ptrdiff_t)runs[i].start, stride,
					   &disp[i])) {
			ret = RC_ERR_INVAL;
			goto out;
		}
	}
	ret = rc_dt_create_hindexed((size_t)n, bl, 0, disp, t, out);
out:
	free(bl);
	free(disp);
	return ret;
}

int rc_dt_create_darray(int size, int rank, int ndims, const int *gsizes,
			const int *distribs, const int *dargs,
			const int *psizes, int order,
			const struct rc_dtype *old, struct rc_dtype **newp)
{
	struct rc_dtype *cur = NULL, *next, *rs;
	struct da_run *runs = NULL;
	ptrdiff_t stride = rc_dt_extent(old);
	int *coord, i, k, d, n, r = rank, maxg = 1, ret;

	(void)size;
	coord = malloc(sizeof(*coord) * (size_t)ndims);
	for (i = 0; i < ndims; i++)
		if (gsizes[i] > maxg)
			maxg = gsizes[i];
	runs = malloc(sizeof(*runs) * (size_t)maxg);
	if (!coord || !runs) {
		ret = RC_ERR_NOMEM;
		goto err_free;
	}
	/* the process grid is row-major, as for Cartesian topologies */
	for (i = ndims - 1; i >= 0; i--) {
		coord[i] = r % psizes[i];
		r /= psizes[i];
	}
	/* from the fastest dimension outwards; stride is the byte distance
	 * of one index step in dimension d */
	for (k = 0; k < ndims; k++) {
		d = order == MPI_ORDER_C ? ndims - 1 - k : k;
		n = da_runs(gsizes[d], distribs[d], dargs[d], psizes[d],
			    coord[d], runs);
		if (!cur) {
			ret = da_level(runs, n, stride, old, &next);
		} else {
			ret = rc_dt_create_resized(cur, 0, stride, &rs);
			if (ret)
				goto err_release;
			ret = da_level(runs, n, stride, rs, &next);
			rc_dt_release(rs);
		}
		if (ret)
			goto err_release;
		if (cur)
			rc_dt_release(cur);
		cur = next;
		if (__builtin_mul_overflow(stride, (ptrdiff_t)gsizes[d],
					   &stride)) {
			ret = RC_ERR_INVAL;
			goto err_release;
		}
	}
	/* stride is now the whole array's extent */
	ret = rc_dt_create_resized(cur, 0, stride, &next);
	if (ret)
		goto err_release;
	rc_dt_release(cur);
	free(coord);
	free(runs);
	*newp = next;
	return RC_OK;

err_release:
	if (cur)
		rc_dt_release(cur);
err_free:
	free(coord);
	free(runs);
	return ret;
}
