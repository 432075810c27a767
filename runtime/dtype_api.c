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
#include <string.h>
#include "api.h"
#include "attr.h"
#include "dtype.h"

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

/* Hand a constructor's result out. dtp, not the pointer itself: the
 * constructor call that fills it is a sibling argument, evaluated in an
 * unspecified order. */
static int dt_new(int status, struct rc_dtype *const *dtp,
		  MPI_Datatype *newtype, const char *fn)
{
	if (status)
		return rc_api_status(NULL, status, fn);
	*newtype = *dtp;
	return MPI_SUCCESS;
}

/* (h)indexed with count 0 may pass NULL blocklengths, which the engine
 * reads as the _block form: restore the combiner MPI_Type_get_envelope
 * reports. */
static int dt_new_indexed(int status, struct rc_dtype *const *dtp,
			  int combiner, MPI_Datatype *newtype, const char *fn)
{
	if (!status && (*dtp)->combiner != combiner) {
		(*dtp)->combiner = combiner;
		(*dtp)->env[0] = 1;
	}
	return dt_new(status, dtp, newtype, fn);
}

/* ---- constructors ----------------------------------------------------- */

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype,
			 MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_contiguous";
	struct rc_dtype *dt = NULL;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_COUNT(count, fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	return dt_new(rc_dt_create_contig((size_t)count, oldtype, &dt), &dt,
		      newtype, fn);
}
RC_WEAK(MPI_Type_contiguous)

int PMPI_Type_vector(int count, int blocklength, int stride,
		     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_vector";
	struct rc_dtype *dt = NULL;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_COUNT(count, fn);
	if (blocklength < 0)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "negative blocklength");
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	return dt_new(rc_dt_create_vector((size_t)count, (size_t)blocklength,
					  stride, oldtype, &dt),
		      &dt, newtype, fn);
}
RC_WEAK(MPI_Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
			     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_create_hvector";
	struct rc_dtype *dt = NULL;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_COUNT(count, fn);
	if (blocklength < 0)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "negative blocklength");
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	return dt_new(rc_dt_create_hvector((size_t)count, (size_t)blocklength,
					   stride, oldtype, &dt),
		      &dt, newtype, fn);
}
RC_WEAK(MPI_Type_create_hvector)

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
		      const int array_of_displacements[], MPI_Datatype oldtype,
		      MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_indexed";
	struct rc_dtype *dt = NULL;
	int err;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_COUNT(count, fn);
	err = dt_check_blens(count, array_of_blocklengths, fn);
	if (err)
		return err;
	if (count)
		DT_CHECK_PTR(array_of_displacements, fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	return dt_new_indexed(rc_dt_create_indexed((size_t)count,
						   array_of_blocklengths, 0,
						   array_of_displacements,
						   oldtype, &dt),
			      &dt, MPI_COMBINER_INDEXED, newtype, fn);
}
RC_WEAK(MPI_Type_indexed)

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
			      const MPI_Aint array_of_displacements[],
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_create_hindexed";
	struct rc_dtype *dt = NULL;
	int err;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_COUNT(count, fn);
	err = dt_check_blens(count, array_of_blocklengths, fn);
	if (err)
		return err;
	if (count)
		DT_CHECK_PTR(array_of_displacements, fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	return dt_new_indexed(rc_dt_create_hindexed((size_t)count,
						    array_of_blocklengths, 0,
						    array_of_displacements,
						    oldtype, &dt),
			      &dt, MPI_COMBINER_HINDEXED, newtype, fn);
}
RC_WEAK(MPI_Type_create_hindexed)

int PMPI_Type_create_indexed_block(int count, int blocklength,
				   const int array_of_displacements[],
				   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_create_indexed_block";
	struct rc_dtype *dt = NULL;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_COUNT(count, fn);
	if (blocklength < 0)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "negative blocklength");
	if (count)
		DT_CHECK_PTR(array_of_displacements, fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	return dt_new(rc_dt_create_indexed((size_t)count, NULL,
					   (size_t)blocklength,
					   array_of_displacements, oldtype,
					   &dt),
		      &dt, newtype, fn);
}
RC_WEAK(MPI_Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
				    const MPI_Aint array_of_displacements[],
				    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_create_hindexed_block";
	struct rc_dtype *dt = NULL;

	RC_API_CHECK_INIT(fn);
	DT_CHECK_COUNT(count, fn);
	if (blocklength < 0)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "negative blocklength");
	if (count)
		DT_CHECK_PTR(array_of_displacements, fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	return dt_new(rc_dt_create_hindexed((size_t)count, NULL,
					    (size_t)blocklength,
					    array_of_displacements, oldtype,
					    &dt),
		      &dt, newtype, fn);
}
RC_WEAK(MPI_Type_create_hindexed_block)

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
			    const MPI_Aint array_of_displacements[],
			    const MPI_Datatype array_of_types[],
			    MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_create_struct";
	struct rc_dtype *dt = NULL;
	int i, err;

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
	return dt_new(rc_dt_create_struct((size_t)count, array_of_blocklengths,
					  array_of_displacements,
					  array_of_types, &dt),
		      &dt, newtype, fn);
}
RC_WEAK(MPI_Type_create_struct)

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
			      const int array_of_subsizes[],
			      const int array_of_starts[], int order,
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_create_subarray";
	struct rc_dtype *dt = NULL;
	int i;

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
	return dt_new(rc_dt_create_subarray(ndims, array_of_sizes,
					    array_of_subsizes, array_of_starts,
					    order, oldtype, &dt),
		      &dt, newtype, fn);
}
RC_WEAK(MPI_Type_create_subarray)

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb,
			     MPI_Aint extent, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_create_resized";
	struct rc_dtype *dt = NULL;

	RC_API_CHECK_INIT(fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	return dt_new(rc_dt_create_resized(oldtype, lb, extent, &dt), &dt,
		      newtype, fn);
}
RC_WEAK(MPI_Type_create_resized)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_dup";
	struct rc_dtype *dt = NULL;

	int ret;

	RC_API_CHECK_INIT(fn);
	DT_CHECK(oldtype, fn);
	DT_CHECK_PTR(newtype, fn);
	ret = rc_dt_create_dup(oldtype, &dt);
	if (ret)
		return rc_api_status(NULL, ret, fn);
	/* the attributes, through their copy callbacks */
	ret = rc_attr_copy_all(RC_AK_TYPE, oldtype, oldtype->attrs, dt,
			       &dt->attrs);
	if (ret) {
		rc_dt_release(dt);
		return RC_ERR(NULL, ret, fn);
	}
	*newtype = dt;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Type_dup)

int PMPI_Type_commit(MPI_Datatype *datatype)
{
	static const char fn[] = "MPI_Type_commit";

	RC_API_CHECK_INIT(fn);
	DT_CHECK_PTR(datatype, fn);
	DT_CHECK(*datatype, fn);
	rc_dt_commit(*datatype);
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Type_commit)

int PMPI_Type_free(MPI_Datatype *datatype)
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
RC_WEAK(MPI_Type_free)

/* ---- queries ---------------------------------------------------------- */

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
	static const char fn[] = "MPI_Type_size_x";

	RC_API_CHECK_INIT(fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(size, fn);
	*size = (MPI_Count)datatype->size;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Type_size_x)

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
	static const char fn[] = "MPI_Type_size";

	RC_API_CHECK_INIT(fn);
	DT_CHECK(datatype, fn);
	DT_CHECK_PTR(size, fn);
	*size = datatype->size > INT_MAX ? MPI_UNDEFINED : (int)datatype->size;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Type_size)

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb,
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
RC_WEAK(MPI_Type_get_extent)

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb,
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
RC_WEAK(MPI_Type_get_extent_x)

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
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
RC_WEAK(MPI_Type_get_true_extent)

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
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
RC_WEAK(MPI_Type_get_true_extent_x)

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
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
RC_WEAK(MPI_Type_get_name)

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
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
RC_WEAK(MPI_Type_set_name)

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers,
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
RC_WEAK(MPI_Type_get_envelope)

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

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype,
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
RC_WEAK(MPI_Get_count)

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
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
RC_WEAK(MPI_Get_elements_x)

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype,
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
RC_WEAK(MPI_Get_elements)

/* ---- packing ---------------------------------------------------------- */

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
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
RC_WEAK(MPI_Pack)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
		int outcount, MPI_Datatype datatype, MPI_Comm comm)
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
RC_WEAK(MPI_Unpack)

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm,
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
RC_WEAK(MPI_Pack_size)
