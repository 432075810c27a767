/*
 * op_api.c - the MPI reduction-operation functions: MPI_Op_create,
 * MPI_Op_free, MPI_Op_commutative and MPI_Reduce_local (the local reduction
 * the collectives are built from, on the kernels of op.c).
 *
 * Errors are raised on MPI_COMM_WORLD's handler; out-parameters are written
 * only on success.
 */
#include "api.h"
#include "dtype.h"
#include "op.h"
#include "thread.h"

#define OP_CHECK(op, fn)                                                  \
	do {                                                              \
		if (RC_UNLIKELY(!rc_op_ok(op)))                           \
			return rc_err_handle(NULL, RC_HK_OP, (op), (fn)); \
	} while (0)

static int api_op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
	static const char fn[] = "MPI_Op_create";
	struct rc_op *o;

	RC_API_CHECK_INIT(fn);
	if (!user_fn)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "user_fn is NULL");
	if (!op)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "op is NULL");
	if (rc_op_create(user_fn, commute != 0, &o))
		return rc_api_status(NULL, RC_ERR_NOMEM, fn);
	*op = o;
	return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
	return RC_CS_OUTSIDE(api_op_create(user_fn, commute, op));
}
RC_WEAK(MPI_Op_create)

static int api_op_free(MPI_Op *op)
{
	static const char fn[] = "MPI_Op_free";

	RC_API_CHECK_INIT(fn);
	if (!op)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "op is NULL");
	OP_CHECK(*op, fn);
	if ((*op)->predefined)
		return RC_ERR_MSG(NULL, MPI_ERR_OP, fn,
				  "cannot free a predefined op");
	/* reductions in flight hold their own references */
	rc_op_release(*op);
	*op = MPI_OP_NULL;
	return MPI_SUCCESS;
}

int PMPI_Op_free(MPI_Op *op)
{
	return RC_CS_OUTSIDE(api_op_free(op));
}
RC_WEAK(MPI_Op_free)

static int api_op_commutative(MPI_Op op, int *commute)
{
	static const char fn[] = "MPI_Op_commutative";

	RC_API_CHECK_INIT(fn);
	OP_CHECK(op, fn);
	if (!commute)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "commute is NULL");
	*commute = op->commute;
	return MPI_SUCCESS;
}

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
	return RC_CS_OUTSIDE(api_op_commutative(op, commute));
}
RC_WEAK(MPI_Op_commutative)

static int api_reduce_local(const void *inbuf, void *inoutbuf, int count,
			    MPI_Datatype datatype, MPI_Op op)
{
	static const char fn[] = "MPI_Reduce_local";
	ptrdiff_t ilo, ihi, olo, ohi;

	RC_API_CHECK_INIT(fn);
	if (count < 0)
		return RC_ERR_MSG(NULL, MPI_ERR_COUNT, fn, "count is negative");
	if (!rc_dt_valid(datatype))
		return rc_err_dtype(NULL, datatype, fn);
	OP_CHECK(op, fn);
	if (!rc_op_valid_for(op, datatype))
		return RC_ERR_MSG(NULL, MPI_ERR_OP, fn,
				  "op not defined on this datatype");
	if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
		return RC_ERR_MSG(NULL, MPI_ERR_BUFFER, fn,
				  "MPI_IN_PLACE is not allowed here");
	/* as MPI_Reduce's sendbuf and recvbuf: the bytes may not meet */
	if (rc_dt_span(datatype, (size_t)count, (ptrdiff_t)(intptr_t)inbuf,
		       &ilo, &ihi) &&
	    rc_dt_span(datatype, (size_t)count, (ptrdiff_t)(intptr_t)inoutbuf,
		       &olo, &ohi) &&
	    ilo < ohi && olo < ihi)
		return RC_ERR_MSG(NULL, MPI_ERR_BUFFER, fn,
				  "inbuf and inoutbuf overlap");
	rc_op_apply(op, inbuf, inoutbuf, (size_t)count, datatype);
	return MPI_SUCCESS;
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
		      MPI_Datatype datatype, MPI_Op op)
{
	return RC_CS_OUTSIDE(
		api_reduce_local(inbuf, inoutbuf, count, datatype, op));
}
RC_WEAK(MPI_Reduce_local)
