/*
 * handle_api.c - handle conversion for mixed-language programs and
 * bindings that keep handles as integers: MPI_<Kind>_c2f / _f2c for every
 * kind (the MPI_Fint is the object's index in its kind's table, handle.h)
 * and MPI_Status_c2f / _f2c.
 *
 * c2f of a null handle is 0, of a live or freed handle its index, of
 * anything else -1; f2c of 0, of -1 or of any index that names no live
 * object is the null handle. The conversions raise no errors (the
 * standard gives them no error code); the status conversions do.
 *
 * Fortran status layout (MPI_F_STATUS_SIZE integers): MPI_SOURCE,
 * MPI_TAG, MPI_ERROR at MPI_F_SOURCE/_TAG/_ERROR (0, 1, 2), then the
 * cancelled flag and the byte count as two 32-bit halves, low first.
 */
#include "api.h"
#include "request.h"
#include "thread.h"

/*
 * Kind, mpi.h handle type, table kind, pool of f2c, and whether f2c runs
 * inside the critical section (an expression of f). c2f reads the index,
 * fixed while the handle lives: outside the section (thread.h). f2c looks
 * the index up under the pool's lock (handle.h), outside too, but for
 * requests of the main pool, which is used only inside the section; the
 * out pool, with indices above RC_REQ_OUT_BASE, is locked
 * (request.h).
 */
#define RC_HCONV_TABLE(X)                                              \
	X(Comm, MPI_Comm, COMM, &rc_hpools[RC_HK_COMM], 0)             \
	X(Group, MPI_Group, GROUP, &rc_hpools[RC_HK_GROUP], 0)         \
	X(Type, MPI_Datatype, DTYPE, &rc_hpools[RC_HK_DTYPE], 0)       \
	X(Op, MPI_Op, OP, &rc_hpools[RC_HK_OP], 0)                     \
	X(Errhandler, MPI_Errhandler, ERRH, &rc_hpools[RC_HK_ERRH], 0) \
	X(Message, MPI_Message, MSG, &rc_hpools[RC_HK_MSG], 0)         \
	X(Win, MPI_Win, WIN, &rc_hpools[RC_HK_WIN], 0)                 \
	X(Request, MPI_Request, REQ, rc_req_f2c_pool(&rc_g, f),        \
	  rc_req_f2c_pool(&rc_g, f) == &rc_g.req_pool)

/* expr inside rc_cs_big, or outside every section */
#define HCONV_IN(inside, expr) \
	((inside) ? RC_CS_CALL(&rc_cs_big, (expr)) : RC_CS_OUTSIDE(expr))

#define RC_X_HCONV(name, type, kind, pool, f2c_inside)                     \
	MPI_Fint PMPI_##name##_c2f(type h)                                 \
	{                                                                  \
		return RC_CS_OUTSIDE(rc_handle_c2f(RC_HK_##kind, h));      \
	}                                                                  \
	RC_WEAK(MPI_##name##_c2f)                                          \
	type PMPI_##name##_f2c(MPI_Fint f)                                 \
	{                                                                  \
		return HCONV_IN(f2c_inside, (type)rc_handle_f2c(pool, f)); \
	}                                                                  \
	RC_WEAK(MPI_##name##_f2c)

RC_HCONV_TABLE(RC_X_HCONV)
#undef RC_X_HCONV

MPI_Fint rc_mpi_f_status_ignore[MPI_F_STATUS_SIZE],
	rc_mpi_f_statuses_ignore[MPI_F_STATUS_SIZE];

static bool f_status_ignore(const MPI_Fint *f_status)
{
	return f_status == MPI_F_STATUS_IGNORE ||
	       f_status == MPI_F_STATUSES_IGNORE;
}

static int status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
	static const char fn[] = "MPI_Status_c2f";
	uint64_t n;

	if (!c_status)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "c_status is NULL (MPI_STATUS_IGNORE)");
	if (!f_status)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "f_status is NULL");
	if (f_status_ignore(f_status))
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "f_status is MPI_F_STATUS(ES)_IGNORE");
	n = (uint64_t)c_status->rc_count;
	f_status[MPI_F_SOURCE] = c_status->MPI_SOURCE;
	f_status[MPI_F_TAG] = c_status->MPI_TAG;
	f_status[MPI_F_ERROR] = c_status->MPI_ERROR;
	f_status[3] = c_status->rc_cancelled;
	f_status[4] = (MPI_Fint)(uint32_t)n;
	f_status[5] = (MPI_Fint)(uint32_t)(n >> 32);
	return MPI_SUCCESS;
}

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
	return RC_CS_CALL(&rc_cs_big, status_c2f(c_status, f_status));
}
RC_WEAK(MPI_Status_c2f)

static int status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
	static const char fn[] = "MPI_Status_f2c";

	if (!f_status)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "f_status is NULL");
	if (f_status_ignore(f_status))
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "f_status is MPI_F_STATUS(ES)_IGNORE");
	if (!c_status)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "c_status is NULL (MPI_STATUS_IGNORE)");
	c_status->MPI_SOURCE = f_status[MPI_F_SOURCE];
	c_status->MPI_TAG = f_status[MPI_F_TAG];
	c_status->MPI_ERROR = f_status[MPI_F_ERROR];
	c_status->rc_cancelled = f_status[3];
	c_status->rc_count = (MPI_Count)((uint64_t)(uint32_t)f_status[4] |
					 (uint64_t)(uint32_t)f_status[5] << 32);
	return MPI_SUCCESS;
}

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
	return RC_CS_CALL(&rc_cs_big, status_f2c(f_status, c_status));
}
RC_WEAK(MPI_Status_f2c)
