/*
 * dtype_named.c - the functions that hand out predefined datatypes by
 * property: MPI_Type_match_size, MPI_Type_create_f90_integer/real/complex
 * (MPI-3.1 17.1.9) and MPI_Type_get_value_index (MPI-4.1).
 *
 * Fortran kinds, as gfortran and ifort define them for
 * SELECTED_REAL_KIND(p, r) and SELECTED_INT_KIND(r): REAL*4 has p 6,
 * r 37; REAL*8 p 15, r 307; INTEGER*1..8 have r 2, 4, 9, 18. Larger kinds
 * (REAL*10, REAL*16, INTEGER*16) have no MPI datatype here (mpi.h), so
 * asking for them is MPI_ERR_ARG, as it is in MPICH for kinds the
 * compiler lacks. MPI_UNDEFINED stands for "any" p or r, not for both.
 *
 * Errors are raised on MPI_COMM_WORLD's handler; out-parameters are
 * written only on success.
 */
#include "api.h"
#include "dtype.h"
#include "thread.h"

static int type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
	static const char fn[] = "MPI_Type_match_size";
	MPI_Datatype t = MPI_DATATYPE_NULL;

	RC_API_CHECK_INIT(fn);
	if (!datatype)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "datatype is NULL");
	switch (typeclass) {
	case MPI_TYPECLASS_REAL:
		t = size == 4 ? MPI_REAL4 : size == 8 ? MPI_REAL8 : NULL;
		break;
	case MPI_TYPECLASS_INTEGER:
		t = size == 1 ? MPI_INTEGER1 : size == 2 ? MPI_INTEGER2 :
		    size == 4 ? MPI_INTEGER4 : size == 8 ? MPI_INTEGER8 :
							   NULL;
		break;
	case MPI_TYPECLASS_COMPLEX:
		t = size == 8 ? MPI_COMPLEX8 : size == 16 ? MPI_COMPLEX16 :
							    NULL;
		break;
	default:
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "typeclass is not MPI_TYPECLASS_REAL, "
				  "_INTEGER or _COMPLEX");
	}
	if (!t)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "no predefined type of that class and size");
	*datatype = t;
	return MPI_SUCCESS;
}

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
	return RC_CS_OUTSIDE(type_match_size(typeclass, size, datatype));
}
RC_WEAK(MPI_Type_match_size)

/* SELECTED_REAL_KIND(p, r): 4 or 8 bytes, 0 when none fits. */
static int f90_real_bytes(int p, int r)
{
	if (p == MPI_UNDEFINED)
		p = 0;
	if (r == MPI_UNDEFINED)
		r = 0;
	if (p <= 6 && r <= 37)
		return 4;
	if (p <= 15 && r <= 307)
		return 8;
	return 0;
}

static int f90_get(int combiner, int p, int r, MPI_Datatype base,
		   MPI_Datatype *newtype, const char *fn)
{
	struct rc_dtype *dt;
	int ret;

	if (!newtype)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "newtype is NULL");
	if (!base)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "no Fortran kind with that precision and "
				  "range has an MPI datatype here");
	ret = rc_dt_f90_get(combiner, p, r, base, &dt);
	if (ret)
		return rc_api_status(NULL, ret, fn);
	*newtype = dt;
	return MPI_SUCCESS;
}

static int type_f90_real(int p, int r, MPI_Datatype *newtype, bool cplx)
{
	const char *fn = cplx ? "MPI_Type_create_f90_complex"
			      : "MPI_Type_create_f90_real";
	MPI_Datatype base = NULL;
	int bytes;

	RC_API_CHECK_INIT(fn);
	if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "p and r are both MPI_UNDEFINED");
	bytes = f90_real_bytes(p, r);
	if (bytes == 4)
		base = cplx ? MPI_COMPLEX8 : MPI_REAL4;
	else if (bytes == 8)
		base = cplx ? MPI_COMPLEX16 : MPI_REAL8;
	return f90_get(cplx ? MPI_COMBINER_F90_COMPLEX : MPI_COMBINER_F90_REAL,
		       p, r, base, newtype, fn);
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
	return RC_CS_CALL(&rc_cs_big, type_f90_real(p, r, newtype, false));
}
RC_WEAK(MPI_Type_create_f90_real)

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
	return RC_CS_CALL(&rc_cs_big, type_f90_real(p, r, newtype, true));
}
RC_WEAK(MPI_Type_create_f90_complex)

static int type_f90_integer(int r, MPI_Datatype *newtype)
{
	static const char fn[] = "MPI_Type_create_f90_integer";
	MPI_Datatype base;

	RC_API_CHECK_INIT(fn);
	if (r == MPI_UNDEFINED)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "r is MPI_UNDEFINED");
	base = r <= 2 ? MPI_INTEGER1 : r <= 4 ? MPI_INTEGER2 :
	       r <= 9 ? MPI_INTEGER4 : r <= 18 ? MPI_INTEGER8 : NULL;
	return f90_get(MPI_COMBINER_F90_INTEGER, r, 0, base, newtype, fn);
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
	return RC_CS_CALL(&rc_cs_big, type_f90_integer(r, newtype));
}
RC_WEAK(MPI_Type_create_f90_integer)

/* The predefined pair type for (value, index), if there is one. */
static int type_get_value_index(MPI_Datatype value_type,
				MPI_Datatype index_type,
				MPI_Datatype *pair_type)
{
	static const char fn[] = "MPI_Type_get_value_index";
	static const struct {
		MPI_Datatype v, i, pair;
	} tab[] = {
		{ MPI_FLOAT, MPI_INT, MPI_FLOAT_INT },
		{ MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT },
		{ MPI_LONG, MPI_INT, MPI_LONG_INT },
		{ MPI_INT, MPI_INT, MPI_2INT },
		{ MPI_SHORT, MPI_INT, MPI_SHORT_INT },
		{ MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT },
		{ MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER },
		{ MPI_REAL, MPI_REAL, MPI_2REAL },
		{ MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION,
		  MPI_2DOUBLE_PRECISION },
	};
	size_t k;

	RC_API_CHECK_INIT(fn);
	if (!rc_dt_ok(value_type) || !rc_dt_ok(index_type))
		return RC_ERR_MSG(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
	if (!pair_type)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "pair_type is NULL");
	*pair_type = MPI_DATATYPE_NULL;
	for (k = 0; k < sizeof(tab) / sizeof(tab[0]); k++)
		if (tab[k].v == value_type && tab[k].i == index_type)
			*pair_type = tab[k].pair;
	return MPI_SUCCESS;
}

int PMPI_Type_get_value_index(MPI_Datatype value_type,
			      MPI_Datatype index_type,
			      MPI_Datatype *pair_type)
{
	return RC_CS_OUTSIDE(
		type_get_value_index(value_type, index_type, pair_type));
}
RC_WEAK(MPI_Type_get_value_index)
