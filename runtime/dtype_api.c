/*
 * dtype_api.c - the MPI datatype and packing functions: argument checks,
 * MPI error classes, then the engine in dtype.c.
 *
 * Errors are raised with rc_err_raise() on MPI_COMM_WORLD's handler (the
 * functions without a communicator argument) or on the communicator given
 * to MPI_Pack/MPI_Unpack/MPI_Pack_size. Out-parameters are written only on
 * success. Every function needs MPI initialised except MPI_Get_address,
 * MPI_Aint_add and MPI_Aint_diff, which are pure.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "attr.h"
#include "dtype.h"
#include "thread.h"

/* Check a datatype argument: a live object (committed or not). */
#define DT_CHECK(dt, fn)                                                     \
	do {                                                                 \
		if (RC_UNLIKELY(!rc_dt_ok(dt)))                              \
			return rc_err_handle(NULL, RC_HK_DTYPE, (dt), (fn)); \
	} while (0)

/* Check a datatype used to move data: live and committed. */
#define DT_CHECK_COMMITTED(comm, dt, fn)                         \
	do {                                                     \
		if (RC_UNLIKELY(!rc_dt_valid(dt)))               \
			return rc_err_dtype((comm), (dt), (fn)); \
	} while (0)

#define DT_CHECK_PTR(p, fn)                                               \
	do {                                                              \
		if (RC_UNLIKELY(!(p)))                                    \
			return RC_ERR_MSG(NULL, MPI_ERR_ARG, (fn),        \
					  #p " is NULL");                 \
	} while (0)

#define DT_CHECK_COUNT(n, fn)                                             \
	do {                                                              \
		if (RC_UNLIKELY((n) < 0))                                 \
			return RC_ERR_MSG(NULL, MPI_ERR_COUNT, (fn),      \
					  #n " is negative");             \
	} while (0)

/* Blocklengths and displacement arrays of the indexed constructors. */
static int dt_check_blens(int count, const int *blens, const char *fn)
{
	int i;

	if (count && !blens)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "array_of_blocklengths is NULL");
	for (i = 0; i < count; i++)
		if (blens[i] < 0)
			return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
					  "negative blocklength");
	return MPI_SUCCESS;
}

/* count and blocklength of the vector and _block constructors */
static int dt_check_block(int count, int blocklength, const char *fn)
{
	RC_API_CHECK_INIT(fn);
	DT_CHECK_COUNT(count, fn);
	if (blocklength < 0)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "negative blocklength");
	return MPI_SUCCESS;
}

/* Room for a constructor's arguments (MPI_Type_get_contents), taken before
 * the type is built so that nothing fails after it. */
#define DT_CONTENTS(c, ni, na, nd, fn)                                      \
	do {                                                                \
		(c) = rc_dt_contents_new((ni), (na), (nd));                 \
		if (RC_UNLIKELY(!(c)))                                      \
			return rc_api_status(NULL, RC_ERR_NOMEM, (fn));     \
	} while (0)

/* Hand a constructor's result out with its arguments, or raise its
 * failure (the arguments are then dropped). */
static int dt_new(int status, struct rc_dtype *dt, int combiner,
		  struct rc_dt_contents *c, MPI_Datatype *newtype,
		  const char *fn)
{
	if (status) {
		free(c);
		return rc_api_status(NULL, status, fn);
	}
	rc_dt_set_contents(dt, combiner, c);
	*newtype = dt;
	return MPI_SUCCESS;
}

/* ---- constructors ----------------------------------------------------- */

static int api_type_contiguous(int count, MPI_Datatype oldtype,
			       MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_contiguous";
	struct rc_dt_contents *c;
	struct rc_dtype *dt = NULL;
	int ret;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_COUNT(count, fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	DT_CONTENTS(c, 1, 0, 1, fn);
	c->ints[0] = count;
	c->types[0] = oldtype;
	ret = rc_dt_create_contig((size_t)count, oldtype, &dt);
	return dt_new(ret, dt, MPI_COMBINER_CONTIGUOUS, c, newtype, fn);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(api_type_contiguous(count, oldtype, newtype));
}
RC_WEAK(MPI_Type_contiguous)

static int api_type_vector(int count, int blocklength, int stride,
			   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_vector";
	struct rc_dt_contents *c;
	struct rc_dtype *dt = NULL;
	int err, ret;

	err = dt_check_block(count, blocklength, fn);
	if (err)
		return err;
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	DT_CONTENTS(c, 3, 0, 1, fn);
	c->ints[0] = count;
	c->ints[1] = blocklength;
	c->ints[2] = stride;
	c->types[0] = oldtype;
	ret = rc_dt_create_vector((size_t)count, (size_t)blocklength, stride,
				  oldtype, &dt);
	return dt_new(ret, dt, MPI_COMBINER_VECTOR, c, newtype, fn);
}

int PMPI_Type_vector(int count, int blocklength, int stride,
		     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(
		api_type_vector(count, blocklength, stride, oldtype, newtype));
}
RC_WEAK(MPI_Type_vector)

/* MPI_Type_create_hvector, and MPI-1's MPI_Type_hvector (fn names which) */
static int type_hvector(int count, int blocklength, MPI_Aint stride,
			MPI_Datatype oldtype, MPI_Datatype *newtype,
			const char *fn)
{
	struct rc_dt_contents *c;
	struct rc_dtype *dt = NULL;
	int err, ret;

	err = dt_check_block(count, blocklength, fn);
	if (err)
		return err;
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	DT_CONTENTS(c, 2, 1, 1, fn);
	c->ints[0] = count;
	c->ints[1] = blocklength;
	c->aints[0] = stride;
	c->types[0] = oldtype;
	ret = rc_dt_create_hvector((size_t)count, (size_t)blocklength, stride,
				   oldtype, &dt);
	return dt_new(ret, dt, MPI_COMBINER_HVECTOR, c, newtype, fn);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
			     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(type_hvector(count, blocklength, stride, oldtype,
					  newtype, "MPI_Type_create_hvector"));
}
RC_WEAK(MPI_Type_create_hvector)

static int api_type_indexed(int count, const int array_of_blocklengths[],
			    const int array_of_displacements[],
			    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_indexed";
	struct rc_dt_contents *c;
	struct rc_dtype *dt = NULL;
	int err, ret;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_COUNT(count, fn);
	err = dt_check_blens(count, array_of_blocklengths, fn);
	if (err)
		return err;
	if (count)
		DT_CHECK_PTR(array_of_displacements, fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	DT_CONTENTS(c, 2 * count + 1, 0, 1, fn);
	c->ints[0] = count;
	if (count) {
		memcpy(c->ints + 1, array_of_blocklengths,
		       (size_t)count * sizeof(int));
		memcpy(c->ints + 1 + count, array_of_displacements,
		       (size_t)count * sizeof(int));
	}
	c->types[0] = oldtype;
	ret = rc_dt_create_indexed((size_t)count, array_of_blocklengths, 0,
				   array_of_displacements, oldtype, &dt);
	return dt_new(ret, dt, MPI_COMBINER_INDEXED, c, newtype, fn);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
		      const int array_of_displacements[], MPI_Datatype oldtype,
		      MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(api_type_indexed(count, array_of_blocklengths,
					      array_of_displacements, oldtype,
					      newtype));
}
RC_WEAK(MPI_Type_indexed)

/* MPI_Type_create_hindexed, and MPI-1's MPI_Type_hindexed */
static int type_hindexed(int count, const int array_of_blocklengths[],
			 const MPI_Aint array_of_displacements[],
			 MPI_Datatype oldtype, MPI_Datatype *newtype,
			 const char *fn)
{
	struct rc_dt_contents *c;
	struct rc_dtype *dt = NULL;
	int err, ret;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_COUNT(count, fn);
	err = dt_check_blens(count, array_of_blocklengths, fn);
	if (err)
		return err;
	if (count)
		DT_CHECK_PTR(array_of_displacements, fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	DT_CONTENTS(c, count + 1, count, 1, fn);
	c->ints[0] = count;
	if (count) {
		memcpy(c->ints + 1, array_of_blocklengths,
		       (size_t)count * sizeof(int));
		memcpy(c->aints, array_of_displacements,
		       (size_t)count * sizeof(MPI_Aint));
	}
	c->types[0] = oldtype;
	ret = rc_dt_create_hindexed((size_t)count, array_of_blocklengths, 0,
				    array_of_displacements, oldtype, &dt);
	return dt_new(ret, dt, MPI_COMBINER_HINDEXED, c, newtype, fn);
}

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
			      const MPI_Aint array_of_displacements[],
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(type_hindexed(
		count, array_of_blocklengths, array_of_displacements, oldtype,
		newtype, "MPI_Type_create_hindexed"));
}
RC_WEAK(MPI_Type_create_hindexed)

static int api_type_create_indexed_block(int count, int blocklength,
					 const int array_of_displacements[],
					 MPI_Datatype oldtype,
					 MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_create_indexed_block";
	struct rc_dt_contents *c;
	struct rc_dtype *dt = NULL;
	int err, ret;

	err = dt_check_block(count, blocklength, fn);
	if (err)
		return err;
	if (count)
		DT_CHECK_PTR(array_of_displacements, fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	DT_CONTENTS(c, count + 2, 0, 1, fn);
	c->ints[0] = count;
	c->ints[1] = blocklength;
	if (count)
		memcpy(c->ints + 2, array_of_displacements,
		       (size_t)count * sizeof(int));
	c->types[0] = oldtype;
	ret = rc_dt_create_indexed((size_t)count, NULL, (size_t)blocklength,
				   array_of_displacements, oldtype, &dt);
	return dt_new(ret, dt, MPI_COMBINER_INDEXED_BLOCK, c, newtype, fn);
}

int PMPI_Type_create_indexed_block(int count, int blocklength,
				   const int array_of_displacements[],
				   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(api_type_create_indexed_block(
		count, blocklength, array_of_displacements, oldtype, newtype));
}
RC_WEAK(MPI_Type_create_indexed_block)

static int
api_type_create_hindexed_block(int count, int blocklength,
			       const MPI_Aint array_of_displacements[],
			       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_create_hindexed_block";
	struct rc_dt_contents *c;
	struct rc_dtype *dt = NULL;
	int err, ret;

	err = dt_check_block(count, blocklength, fn);
	if (err)
		return err;
	if (count)
		DT_CHECK_PTR(array_of_displacements, fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	DT_CONTENTS(c, 2, count, 1, fn);
	c->ints[0] = count;
	c->ints[1] = blocklength;
	if (count)
		memcpy(c->aints, array_of_displacements,
		       (size_t)count * sizeof(MPI_Aint));
	c->types[0] = oldtype;
	ret = rc_dt_create_hindexed((size_t)count, NULL, (size_t)blocklength,
				    array_of_displacements, oldtype, &dt);
	return dt_new(ret, dt, MPI_COMBINER_HINDEXED_BLOCK, c, newtype, fn);
}

int PMPI_Type_create_hindexed_block(int count, int blocklength,
				    const MPI_Aint array_of_displacements[],
				    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(api_type_create_hindexed_block(
		count, blocklength, array_of_displacements, oldtype, newtype));
}
RC_WEAK(MPI_Type_create_hindexed_block)

/* MPI_Type_create_struct, and MPI-1's MPI_Type_struct */
static int type_struct(int count, const int array_of_blocklengths[],
		       const MPI_Aint array_of_displacements[],
		       const MPI_Datatype array_of_types[],
		       MPI_Datatype *newtype, const char *fn)
{
	struct rc_dt_contents *c;
	struct rc_dtype *dt = NULL;
	int i, err, ret;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_COUNT(count, fn);
	err = dt_check_blens(count, array_of_blocklengths, fn);
	if (err)
		return err;
	if (count) {
		DT_CHECK_PTR(array_of_displacements, fn);
		DT_CHECK_PTR(array_of_types, fn);
	}
	for (i = 0; i < count; i++)
		DT_CHECK(array_of_types[i], fn);
	DT_CHECK_PTR(newtype, fn);
	DT_CONTENTS(c, count + 1, count, count, fn);
	c->ints[0] = count;
	if (count) {
		memcpy(c->ints + 1, array_of_blocklengths,
		       (size_t)count * sizeof(int));
		memcpy(c->aints, array_of_displacements,
		       (size_t)count * sizeof(MPI_Aint));
		memcpy(c->types, array_of_types,
		       (size_t)count * sizeof(MPI_Datatype));
	}
	ret = rc_dt_create_struct((size_t)count, array_of_blocklengths,
				  array_of_displacements, array_of_types, &dt);
	return dt_new(ret, dt, MPI_COMBINER_STRUCT, c, newtype, fn);
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
			    const MPI_Aint array_of_displacements[],
			    const MPI_Datatype array_of_types[],
			    MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(type_struct(count, array_of_blocklengths,
					 array_of_displacements, array_of_types,
					 newtype, "MPI_Type_create_struct"));
}
RC_WEAK(MPI_Type_create_struct)

static int api_type_create_subarray(int ndims, const int array_of_sizes[],
				    const int array_of_subsizes[],
				    const int array_of_starts[], int order,
				    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_create_subarray";
	struct rc_dt_contents *c;
	struct rc_dtype *dt = NULL;
	size_t nb;
	int i, ret;

	RC_API_CHECK_INIT(fn);
	if (ndims <= 0)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "ndims must be > 0");
	DT_CHECK_PTR(array_of_sizes, fn);
	DT_CHECK_PTR(array_of_subsizes, fn);
	DT_CHECK_PTR(array_of_starts, fn);
	for (i = 0; i < ndims; i++) {
		if (array_of_sizes[i] <= 0)
			return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
					  "array_of_sizes[i] must be > 0");
		if (array_of_subsizes[i] <= 0 ||
		    array_of_subsizes[i] > array_of_sizes[i])
			return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
					  "array_of_subsizes[i] must be in "
					  "1..array_of_sizes[i]");
		if (array_of_starts[i] < 0 ||
		    array_of_starts[i] >
			    array_of_sizes[i] - array_of_subsizes[i])
			return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
					  "array_of_starts[i] out of range");
	}
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "order must be MPI_ORDER_C or "
				  "MPI_ORDER_FORTRAN");
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	DT_CONTENTS(c, 3 * ndims + 2, 0, 1, fn);
	nb = (size_t)ndims * sizeof(int);
	c->ints[0] = ndims;
	memcpy(c->ints + 1, array_of_sizes, nb);
	memcpy(c->ints + 1 + ndims, array_of_subsizes, nb);
	memcpy(c->ints + 1 + 2 * ndims, array_of_starts, nb);
	c->ints[1 + 3 * ndims] = order;
	c->types[0] = oldtype;
	ret = rc_dt_create_subarray(ndims, array_of_sizes, array_of_subsizes,
				    array_of_starts, order, oldtype, &dt);
	return dt_new(ret, dt, MPI_COMBINER_SUBARRAY, c, newtype, fn);
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
			      const int array_of_subsizes[],
			      const int array_of_starts[], int order,
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(api_type_create_subarray(
		ndims, array_of_sizes, array_of_subsizes, array_of_starts,
		order, oldtype, newtype));
}
RC_WEAK(MPI_Type_create_subarray)

/* The arguments of MPI_Type_create_darray: 0 or an error class, with
 * *why saying what is wrong. */
static int darray_check(int size, int rank, int ndims, const int *gsizes,
			const int *distribs, const int *dargs,
			const int *psizes, int order, const char **why)
{
	long long procs = 1;
	int i;

	if (size <= 0 || rank < 0 || rank >= size) {
		*why = "rank must be in 0..size-1";
		return MPI_ERR_ARG;
	}
	if (ndims <= 0) {
		*why = "ndims must be > 0";
		return MPI_ERR_ARG;
	}
	if (!gsizes || !distribs || !dargs || !psizes) {
		*why = "an array argument is NULL";
		return MPI_ERR_ARG;
	}
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
		*why = "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN";
		return MPI_ERR_ARG;
	}
	for (i = 0; i < ndims; i++) {
		if (gsizes[i] <= 0 || psizes[i] <= 0) {
			*why = "gsizes and psizes must be > 0";
			return MPI_ERR_ARG;
		}
		if (dargs[i] != MPI_DISTRIBUTE_DFLT_DARG && dargs[i] <= 0) {
			*why = "a darg must be > 0 or MPI_DISTRIBUTE_DFLT_DARG";
			return MPI_ERR_ARG;
		}
		switch (distribs[i]) {
		case MPI_DISTRIBUTE_NONE:
			if (psizes[i] != 1) {
				*why = "MPI_DISTRIBUTE_NONE needs psize 1";
				return MPI_ERR_ARG;
			}
			break;
		case MPI_DISTRIBUTE_BLOCK:
			if (dargs[i] != MPI_DISTRIBUTE_DFLT_DARG &&
			    (long long)dargs[i] * psizes[i] < gsizes[i]) {
				*why = "MPI_DISTRIBUTE_BLOCK: darg * psize < "
				       "gsize";
				return MPI_ERR_ARG;
			}
			break;
		case MPI_DISTRIBUTE_CYCLIC:
			break;
		default:
			*why = "unknown distribution";
			return MPI_ERR_ARG;
		}
		procs *= psizes[i];
		if (procs > size)
			break;
	}
	if (procs != size) {
		*why = "the product of psizes is not size";
		return MPI_ERR_ARG;
	}
	return MPI_SUCCESS;
}

static int type_create_darray(int size, int rank, int ndims,
			      const int gsizes[], const int distribs[],
			      const int dargs[], const int psizes[], int order,
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_create_darray";
	struct rc_dt_contents *c;
	struct rc_dtype *dt = NULL;
	const char *why = NULL;
	size_t nb;
	int cls, ret;

	RC_API_CHECK_INIT(fn);
	cls = darray_check(size, rank, ndims, gsizes, distribs, dargs, psizes,
			   order, &why);
	if (cls)
		return RC_ERR_MSG(NULL, cls, fn, why);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	DT_CONTENTS(c, 4 * ndims + 4, 0, 1, fn);
	nb = (size_t)ndims * sizeof(int);
	c->ints[0] = size;
	c->ints[1] = rank;
	c->ints[2] = ndims;
	memcpy(c->ints + 3, gsizes, nb);
	memcpy(c->ints + 3 + ndims, distribs, nb);
	memcpy(c->ints + 3 + 2 * ndims, dargs, nb);
	memcpy(c->ints + 3 + 3 * ndims, psizes, nb);
	c->ints[3 + 4 * ndims] = order;
	c->types[0] = oldtype;
	ret = rc_dt_create_darray(size, rank, ndims, gsizes, distribs, dargs,
				  psizes, order, oldtype, &dt);
	return dt_new(ret, dt, MPI_COMBINER_DARRAY, c, newtype, fn);
}

int PMPI_Type_create_darray(int size, int rank, int ndims,
			    const int array_of_gsizes[],
			    const int array_of_distribs[],
			    const int array_of_dargs[],
			    const int array_of_psizes[], int order,
			    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(type_create_darray(
		size, rank, ndims, array_of_gsizes, array_of_distribs,
		array_of_dargs, array_of_psizes, order, oldtype, newtype));
}
RC_WEAK(MPI_Type_create_darray)

static int api_type_create_resized(MPI_Datatype oldtype, MPI_Aint lb,
				   MPI_Aint extent, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_create_resized";
	struct rc_dt_contents *c;
	struct rc_dtype *dt = NULL;
	int ret;

	RC_API_CHECK_INIT(fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	DT_CONTENTS(c, 0, 2, 1, fn);
	c->aints[0] = lb;
	c->aints[1] = extent;
	c->types[0] = oldtype;
	ret = rc_dt_create_resized(oldtype, lb, extent, &dt);
	return dt_new(ret, dt, MPI_COMBINER_RESIZED, c, newtype, fn);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
			     MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(
		api_type_create_resized(oldtype, lb, extent, newtype));
}
RC_WEAK(MPI_Type_create_resized)

static int api_type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_dup";
	struct rc_dt_contents *c;
	struct rc_dtype *dt = NULL;
	int ret;

	RC_API_CHECK_INIT(fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	DT_CONTENTS(c, 0, 0, 1, fn);
	c->types[0] = oldtype;
	ret = rc_dt_create_dup(oldtype, &dt);
	ret = dt_new(ret, dt, MPI_COMBINER_DUP, c, newtype, fn);
	if (ret)
		return ret;
	/* the attributes, through their copy callbacks */
	ret = rc_attr_copy_all(RC_AK_TYPE, oldtype, oldtype->attrs, dt,
			       &dt->attrs);
	if (ret) {
		*newtype = MPI_DATATYPE_NULL;
		rc_dt_release(dt);
		return RC_ERR(NULL, ret, fn);
	}
	return MPI_SUCCESS;
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	/* attribute copy callbacks run inside the section (thread.h) */
	if (rc_dt_ok(oldtype) && oldtype->attrs)
		return RC_CS_CALL(&rc_cs_big, api_type_dup(oldtype, newtype));
	return RC_CS_OUTSIDE(api_type_dup(oldtype, newtype));
}
RC_WEAK(MPI_Type_dup)

static int api_type_commit(MPI_Datatype *datatype)
{
	static const char fn[] = "MPI_Type_commit";

	RC_API_CHECK_INIT(fn);
	DT_CHECK_PTR(datatype, fn);
	DT_CHECK(*datatype, fn);
	rc_dt_commit(*datatype);
	return MPI_SUCCESS;
}

int PMPI_Type_commit(MPI_Datatype *datatype)
{
	return RC_CS_OUTSIDE(api_type_commit(datatype));
}
RC_WEAK(MPI_Type_commit)

static int api_type_free(MPI_Datatype *datatype)
{
	static const char fn[] = "MPI_Type_free";
	int err;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_PTR(datatype, fn);
	DT_CHECK(*datatype, fn);
	if ((*datatype)->flags & RC_DT_PREDEFINED)
		return RC_ERR_MSG(NULL, MPI_ERR_TYPE, fn,
				  "cannot free a predefined datatype");
	/* a failing delete callback fails the call; the type stays */
	err = rc_attr_delete_all(RC_AK_TYPE, *datatype, &(*datatype)->attrs);
	if (err)
		return RC_ERR(NULL, err, fn);
	/* operations still using it hold their own references */
	rc_dt_release(*datatype);
	*datatype = MPI_DATATYPE_NULL;
	return MPI_SUCCESS;
}

int PMPI_Type_free(MPI_Datatype *datatype)
{
	/* attribute delete callbacks run inside the section (thread.h) */
	if (datatype && rc_dt_ok(*datatype) && (*datatype)->attrs)
		return RC_CS_CALL(&rc_cs_big, api_type_free(datatype));
	return RC_CS_OUTSIDE(api_type_free(datatype));
}
RC_WEAK(MPI_Type_free)

/* ---- queries ---------------------------------------------------------- */

/* The queries run outside the critical section (thread.h): a datatype's
 * size and bounds do not change after its creation. */

static int api_type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
	static const char fn[] = "MPI_Type_size_x";

	RC_API_CHECK_INIT(fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(size, fn);
	*size = (MPI_Count)datatype->size;
	return MPI_SUCCESS;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
	return RC_CS_OUTSIDE(api_type_size_x(datatype, size));
}
RC_WEAK(MPI_Type_size_x)

static int api_type_size(MPI_Datatype datatype, int *size)
{
	static const char fn[] = "MPI_Type_size";

	RC_API_CHECK_INIT(fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(size, fn);
	*size = datatype->size > INT_MAX ? MPI_UNDEFINED : (int)datatype->size;
	return MPI_SUCCESS;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
	return RC_CS_OUTSIDE(api_type_size(datatype, size));
}
RC_WEAK(MPI_Type_size)

static int api_type_get_extent(MPI_Datatype datatype, MPI_Aint *lb,
			       MPI_Aint *extent)
{
	static const char fn[] = "MPI_Type_get_extent";

	RC_API_CHECK_INIT(fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(lb, fn);
	DT_CHECK_PTR(extent, fn);
	*lb = datatype->lb;
	*extent = rc_dt_extent(datatype);
	return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	return RC_CS_OUTSIDE(api_type_get_extent(datatype, lb, extent));
}
RC_WEAK(MPI_Type_get_extent)

static int api_type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb,
				 MPI_Count *extent)
{
	static const char fn[] = "MPI_Type_get_extent_x";

	RC_API_CHECK_INIT(fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(lb, fn);
	DT_CHECK_PTR(extent, fn);
	*lb = datatype->lb;
	*extent = rc_dt_extent(datatype);
	return MPI_SUCCESS;
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb,
			   MPI_Count *extent)
{
	return RC_CS_OUTSIDE(api_type_get_extent_x(datatype, lb, extent));
}
RC_WEAK(MPI_Type_get_extent_x)

static int api_type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
				    MPI_Aint *true_extent)
{
	static const char fn[] = "MPI_Type_get_true_extent";

	RC_API_CHECK_INIT(fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(true_lb, fn);
	DT_CHECK_PTR(true_extent, fn);
	*true_lb = datatype->true_lb;
	*true_extent = datatype->true_ub - datatype->true_lb;
	return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
			      MPI_Aint *true_extent)
{
	return RC_CS_OUTSIDE(
		api_type_get_true_extent(datatype, true_lb, true_extent));
}
RC_WEAK(MPI_Type_get_true_extent)

static int api_type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
				      MPI_Count *true_extent)
{
	static const char fn[] = "MPI_Type_get_true_extent_x";

	RC_API_CHECK_INIT(fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(true_lb, fn);
	DT_CHECK_PTR(true_extent, fn);
	*true_lb = datatype->true_lb;
	*true_extent = datatype->true_ub - datatype->true_lb;
	return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
				MPI_Count *true_extent)
{
	return RC_CS_OUTSIDE(
		api_type_get_true_extent_x(datatype, true_lb, true_extent));
}
RC_WEAK(MPI_Type_get_true_extent_x)

static int api_type_get_name(MPI_Datatype datatype, char *type_name,
			     int *resultlen)
{
	static const char fn[] = "MPI_Type_get_name";
	size_t n;

	RC_API_CHECK_INIT(fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(type_name, fn);
	DT_CHECK_PTR(resultlen, fn);
	n = strnlen(datatype->name, sizeof(datatype->name) - 1);
	memcpy(type_name, datatype->name, n);
	type_name[n] = '\0';
	*resultlen = (int)n;
	return MPI_SUCCESS;
}

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
	return RC_CS_OUTSIDE(api_type_get_name(datatype, type_name, resultlen));
}
RC_WEAK(MPI_Type_get_name)

static int api_type_set_name(MPI_Datatype datatype, const char *type_name)
{
	static const char fn[] = "MPI_Type_set_name";
	size_t n;

	RC_API_CHECK_INIT(fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(type_name, fn);
	/* longer names are truncated, as the standard allows */
	n = strnlen(type_name, sizeof(datatype->name) - 1);
	memcpy(datatype->name, type_name, n);
	datatype->name[n] = '\0';
	return MPI_SUCCESS;
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
	return RC_CS_OUTSIDE(api_type_set_name(datatype, type_name));
}
RC_WEAK(MPI_Type_set_name)

static int api_type_get_envelope(MPI_Datatype datatype, int *num_integers,
				 int *num_addresses, int *num_datatypes,
				 int *combiner)
{
	static const char fn[] = "MPI_Type_get_envelope";

	RC_API_CHECK_INIT(fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(num_integers, fn);
	DT_CHECK_PTR(num_addresses, fn);
	DT_CHECK_PTR(num_datatypes, fn);
	DT_CHECK_PTR(combiner, fn);
	*num_integers = datatype->env[0];
	*num_addresses = datatype->env[1];
	*num_datatypes = datatype->env[2];
	*combiner = datatype->combiner;
	return MPI_SUCCESS;
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers,
			   int *num_addresses, int *num_datatypes,
			   int *combiner)
{
	return RC_CS_OUTSIDE(api_type_get_envelope(datatype, num_integers,
						   num_addresses, num_datatypes,
						   combiner));
}
RC_WEAK(MPI_Type_get_envelope)

/*
 * MPI_Type_get_contents: the arguments of the call that made datatype.
 * Derived datatypes among them are handed out as new references (the
 * user frees them); predefined ones as they are.
 */
static int type_get_contents(MPI_Datatype datatype, int max_integers,
			     int max_addresses, int max_datatypes,
			     int array_of_integers[],
			     MPI_Aint array_of_addresses[],
			     MPI_Datatype array_of_datatypes[])
{
	static const char fn[] = "MPI_Type_get_contents";
	const struct rc_dt_contents *c;
	int i;

	RC_API_CHECK_INIT(fn);
	DT_CHECK(datatype, fn);
	c = datatype->contents;
	if (datatype->combiner == MPI_COMBINER_NAMED || !c)
		return RC_ERR_MSG(NULL, MPI_ERR_TYPE, fn,
				  "a named datatype has no contents");
	if (max_integers < c->ni || max_addresses < c->na ||
	    max_datatypes < c->nd)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "arrays smaller than MPI_Type_get_envelope "
				  "says");
	if ((c->ni && !array_of_integers) || (c->na && !array_of_addresses) ||
	    (c->nd && !array_of_datatypes))
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "an array is NULL");
	if (c->ni)
		memcpy(array_of_integers, c->ints, (size_t)c->ni * sizeof(int));
	if (c->na)
		memcpy(array_of_addresses, c->aints,
		       (size_t)c->na * sizeof(MPI_Aint));
	for (i = 0; i < c->nd; i++) {
		rc_dt_retain(c->types[i]);
		array_of_datatypes[i] = c->types[i];
	}
	return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers,
			   int max_addresses, int max_datatypes,
			   int array_of_integers[],
			   MPI_Aint array_of_addresses[],
			   MPI_Datatype array_of_datatypes[])
{
	return RC_CS_OUTSIDE(type_get_contents(
		datatype, max_integers, max_addresses, max_datatypes,
		array_of_integers, array_of_addresses, array_of_datatypes));
}
RC_WEAK(MPI_Type_get_contents)

/* Address arithmetic on the caller's pointers: outside the critical section
 * (runtime/thread.h), as Aint_add, Aint_diff and MPI_Address. */
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
	DT_CHECK_PTR(address, "MPI_Get_address");
	*address = (MPI_Aint)(uintptr_t)location;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Get_address)

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
	return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
RC_WEAK(MPI_Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
	return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
RC_WEAK(MPI_Aint_diff)

/* ---- counts from a status ----------------------------------------------- */

static int api_get_count(const MPI_Status *status, MPI_Datatype datatype,
			 int *count)
{
	static const char fn[] = "MPI_Get_count";
	MPI_Count n;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_PTR(status, fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(count, fn);
	if (!datatype->size) {
		/* MPI: a zero-size datatype gives a count of zero */
		*count = 0;
		return MPI_SUCCESS;
	}
	n = status->rc_count / (MPI_Count)datatype->size;
	if (status->rc_count < 0 ||
	    status->rc_count % (MPI_Count)datatype->size || n > INT_MAX)
		*count = MPI_UNDEFINED;
	else
		*count = (int)n;
	return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	return RC_CS_OUTSIDE(api_get_count(status, datatype, count));
}
RC_WEAK(MPI_Get_count)

static int api_get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
			      MPI_Count *count)
{
	static const char fn[] = "MPI_Get_elements_x";

	RC_API_CHECK_INIT(fn);
	DT_CHECK_PTR(status, fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(count, fn);
	*count = rc_dt_get_elements(datatype, status->rc_count);
	return MPI_SUCCESS;
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
			MPI_Count *count)
{
	return RC_CS_OUTSIDE(api_get_elements_x(status, datatype, count));
}
RC_WEAK(MPI_Get_elements_x)

static int api_get_elements(const MPI_Status *status, MPI_Datatype datatype,
			    int *count)
{
	static const char fn[] = "MPI_Get_elements";
	MPI_Count n;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_PTR(status, fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(count, fn);
	n = rc_dt_get_elements(datatype, status->rc_count);
	*count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
	return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype,
		      int *count)
{
	return RC_CS_OUTSIDE(api_get_elements(status, datatype, count));
}
RC_WEAK(MPI_Get_elements)

/* ---- setting a status ------------------------------------------------ */

/* MPI_Status_set_elements(_x): the status then says `count` basic
 * elements of datatype arrived, so MPI_Get_elements(_x) returns count and
 * MPI_Get_count the number of whole elements (or MPI_UNDEFINED). */
static int status_set_elements(MPI_Status *status, MPI_Datatype datatype,
			       MPI_Count count, const char *fn)
{
	RC_API_CHECK_INIT(fn);
	DT_CHECK_PTR(status, fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_COUNT(count, fn);
	if (count && !datatype->nbasic)
		return RC_ERR_MSG(NULL, MPI_ERR_COUNT, fn,
				  "the datatype has no basic elements");
	status->rc_count = rc_dt_elements_bytes(datatype, count);
	return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype,
			     int count)
{
	return RC_CS_OUTSIDE(status_set_elements(status, datatype, count,
						 "MPI_Status_set_elements"));
}
RC_WEAK(MPI_Status_set_elements)

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
			       MPI_Count count)
{
	return RC_CS_OUTSIDE(status_set_elements(status, datatype, count,
						 "MPI_Status_set_elements_x"));
}
RC_WEAK(MPI_Status_set_elements_x)

static int status_set_cancelled(MPI_Status *status, int flag)
{
	static const char fn[] = "MPI_Status_set_cancelled";

	RC_API_CHECK_INIT(fn);
	DT_CHECK_PTR(status, fn);
	status->rc_cancelled = flag != 0;
	return MPI_SUCCESS;
}

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
	return RC_CS_OUTSIDE(status_set_cancelled(status, flag));
}
RC_WEAK(MPI_Status_set_cancelled)

/* ---- packing ---------------------------------------------------------- */

static int api_pack(const void *inbuf, int incount, MPI_Datatype datatype,
		    void *outbuf, int outsize, int *position, MPI_Comm comm)
{
	static const char fn[] = "MPI_Pack";
	size_t need;

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	if (incount < 0)
		return RC_ERR_MSG(comm, MPI_ERR_COUNT, fn,
				  "incount is negative");
	DT_CHECK_COMMITTED(comm, datatype, fn);
	if (!position)
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn, "position is NULL");
	if (outsize < 0 || *position < 0 || *position > outsize)
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn,
				  "position outside [0, outsize]");
	need = (size_t)incount * datatype->size;
	if (need > (size_t)(outsize - *position))
		return RC_ERR_MSG(comm, MPI_ERR_TRUNCATE, fn,
				  "outbuf too small");
	if (need && !outbuf)
		return RC_ERR_MSG(comm, MPI_ERR_BUFFER, fn, "outbuf is NULL");
	if (need)
		rc_dt_pack(datatype, (size_t)incount, inbuf, 0,
			   (char *)outbuf + *position, need);
	*position += (int)need;
	return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
	      void *outbuf, int outsize, int *position, MPI_Comm comm)
{
	return RC_CS_OUTSIDE(api_pack(inbuf, incount, datatype, outbuf, outsize,
				      position, comm));
}
RC_WEAK(MPI_Pack)

static int api_unpack(const void *inbuf, int insize, int *position,
		      void *outbuf, int outcount, MPI_Datatype datatype,
		      MPI_Comm comm)
{
	static const char fn[] = "MPI_Unpack";
	size_t need;

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	if (outcount < 0)
		return RC_ERR_MSG(comm, MPI_ERR_COUNT, fn,
				  "outcount is negative");
	DT_CHECK_COMMITTED(comm, datatype, fn);
	if (!position)
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn, "position is NULL");
	if (insize < 0 || *position < 0 || *position > insize)
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn,
				  "position outside [0, insize]");
	need = (size_t)outcount * datatype->size;
	if (need > (size_t)(insize - *position))
		return RC_ERR_MSG(comm, MPI_ERR_TRUNCATE, fn,
				  "inbuf holds less than outcount elements");
	if (need && !inbuf)
		return RC_ERR_MSG(comm, MPI_ERR_BUFFER, fn, "inbuf is NULL");
	if (need)
		rc_dt_unpack(datatype, (size_t)outcount, outbuf, 0,
			     (const char *)inbuf + *position, need);
	*position += (int)need;
	return MPI_SUCCESS;
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
		int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
	return RC_CS_OUTSIDE(api_unpack(inbuf, insize, position, outbuf,
					outcount, datatype, comm));
}
RC_WEAK(MPI_Unpack)

static int api_pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm,
			 int *size)
{
	static const char fn[] = "MPI_Pack_size";
	size_t need;

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	if (incount < 0)
		return RC_ERR_MSG(comm, MPI_ERR_COUNT, fn,
				  "incount is negative");
	DT_CHECK_COMMITTED(comm, datatype, fn);
	if (!size)
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn, "size is NULL");
	/* the packed format is the raw data bytes: no header */
	if (__builtin_mul_overflow((size_t)incount, datatype->size, &need) ||
	    need > INT_MAX)
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn,
				  "packed size does not fit in an int");
	*size = (int)need;
	return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
	return RC_CS_OUTSIDE(api_pack_size(incount, datatype, comm, size));
}
RC_WEAK(MPI_Pack_size)

/* ---- MPI-1 names that MPI-3 removed (include/README.md) ----------------- */

int PMPI_Address(const void *location, MPI_Aint *address)
{
	DT_CHECK_PTR(address, "MPI_Address");
	*address = (MPI_Aint)(uintptr_t)location;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Address)

/* MPI_Type_extent, _lb, _ub: which 0, 1, 2 */
static int type_bound(MPI_Datatype datatype, MPI_Aint *out, int which,
		      const char *fn)
{
	RC_API_CHECK_INIT(fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(out, fn);
	*out = which == 0 ? rc_dt_extent(datatype) :
	       which == 1 ? datatype->lb : datatype->ub;
	return MPI_SUCCESS;
}

int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
	return RC_CS_OUTSIDE(
		type_bound(datatype, extent, 0, "MPI_Type_extent"));
}
RC_WEAK(MPI_Type_extent)

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
	return RC_CS_OUTSIDE(
		type_bound(datatype, displacement, 1, "MPI_Type_lb"));
}
RC_WEAK(MPI_Type_lb)

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
	return RC_CS_OUTSIDE(
		type_bound(datatype, displacement, 2, "MPI_Type_ub"));
}
RC_WEAK(MPI_Type_ub)

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride,
		      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(type_hvector(count, blocklength, stride, oldtype,
					  newtype, "MPI_Type_hvector"));
}
RC_WEAK(MPI_Type_hvector)

int PMPI_Type_hindexed(int count, const int array_of_blocklengths[],
		       const MPI_Aint array_of_displacements[],
		       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(type_hindexed(count, array_of_blocklengths,
					   array_of_displacements, oldtype,
					   newtype, "MPI_Type_hindexed"));
}
RC_WEAK(MPI_Type_hindexed)

int PMPI_Type_struct(int count, const int array_of_blocklengths[],
		     const MPI_Aint array_of_displacements[],
		     const MPI_Datatype array_of_types[],
		     MPI_Datatype *newtype)
{
	return RC_CS_OUTSIDE(type_struct(count, array_of_blocklengths,
					 array_of_displacements, array_of_types,
					 newtype, "MPI_Type_struct"));
}
RC_WEAK(MPI_Type_struct)
