/*
 * dtype_ext32.c - the "external32" data representation (MPI-3.1 13.5.2)
 * and MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size.
 *
 * external32 is big-endian, two's complement integers and IEEE floats, at
 * fixed sizes whatever the platform's: MPI_LONG and MPI_UNSIGNED_LONG are
 * 4 bytes, MPI_LONG_DOUBLE 16 (IEEE binary128: 15-bit exponent, bias
 * 16383, 112 fraction bits), MPI_WCHAR and the Fortran LOGICAL 4,
 * MPI_AINT, MPI_OFFSET and MPI_COUNT 8, the bools and characters 1; a
 * complex type is two of its real type. ext_tab below is that table.
 *
 * Conversion follows the type signature. The native packed stream of
 * (buf, count, dt) is made by rc_dt_pack in chunks that end on element
 * boundaries of the signature run being converted; each basic element of
 * the chunk is converted to (or from) its external form. An integer that
 * does not fit its external size (a long above 2^31 - 1), or an external
 * value that does not fit the native type (unpacking a 16-byte value into
 * a narrower long double), is MPI_ERR_CONVERSION.
 *
 * long double is converted arithmetically (frexpl/ldexpl), not by its bit
 * layout: exact for x87 80-bit and for binary128, rounded once where the
 * native type is narrower.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>
#include "api.h"
#include "dtype.h"
#include "thread.h"

_Static_assert(sizeof(float) == 4 && FLT_MANT_DIG == 24 &&
		       sizeof(double) == 8 && DBL_MANT_DIG == 53,
	       "external32 assumes IEEE float and double");

enum ext_cls {
	EXT_NONE = 0,	/* no external form (pair kinds: never in a
			 * signature) */
	EXT_RAW,	/* bytes as they are */
	EXT_SINT,	/* signed integer */
	EXT_UINT,	/* unsigned integer (bools too) */
	EXT_IEEE,	/* float or double: byte order only */
	EXT_LDBL,	/* long double <-> binary128 */
};

struct ext_kind {
	unsigned char size;	/* external bytes of the whole element */
	unsigned char cls;
	unsigned char ncomp;	/* 2 for complex kinds */
};

#define WCHAR_CLS (WCHAR_MIN < 0 ? EXT_SINT : EXT_UINT)

static const struct ext_kind ext_tab[RC_BASIC_NKINDS] = {
	[RC_BASIC_CHAR] = { 1, EXT_RAW, 1 },
	[RC_BASIC_SIGNED_CHAR] = { 1, EXT_RAW, 1 },
	[RC_BASIC_UNSIGNED_CHAR] = { 1, EXT_RAW, 1 },
	[RC_BASIC_BYTE] = { 1, EXT_RAW, 1 },
	[RC_BASIC_SHORT] = { 2, EXT_SINT, 1 },
	[RC_BASIC_UNSIGNED_SHORT] = { 2, EXT_UINT, 1 },
	[RC_BASIC_INT] = { 4, EXT_SINT, 1 },
	[RC_BASIC_UNSIGNED] = { 4, EXT_UINT, 1 },
	[RC_BASIC_LONG] = { 4, EXT_SINT, 1 },
	[RC_BASIC_UNSIGNED_LONG] = { 4, EXT_UINT, 1 },
	[RC_BASIC_LONG_LONG] = { 8, EXT_SINT, 1 },
	[RC_BASIC_UNSIGNED_LONG_LONG] = { 8, EXT_UINT, 1 },
	[RC_BASIC_FLOAT] = { 4, EXT_IEEE, 1 },
	[RC_BASIC_DOUBLE] = { 8, EXT_IEEE, 1 },
	[RC_BASIC_LONG_DOUBLE] = { 16, EXT_LDBL, 1 },
	[RC_BASIC_WCHAR] = { 4, WCHAR_CLS, 1 },
	[RC_BASIC_C_BOOL] = { 1, EXT_UINT, 1 },
	[RC_BASIC_INT8_T] = { 1, EXT_SINT, 1 },
	[RC_BASIC_INT16_T] = { 2, EXT_SINT, 1 },
	[RC_BASIC_INT32_T] = { 4, EXT_SINT, 1 },
	[RC_BASIC_INT64_T] = { 8, EXT_SINT, 1 },
	[RC_BASIC_UINT8_T] = { 1, EXT_UINT, 1 },
	[RC_BASIC_UINT16_T] = { 2, EXT_UINT, 1 },
	[RC_BASIC_UINT32_T] = { 4, EXT_UINT, 1 },
	[RC_BASIC_UINT64_T] = { 8, EXT_UINT, 1 },
	[RC_BASIC_C_FLOAT_COMPLEX] = { 8, EXT_IEEE, 2 },
	[RC_BASIC_C_DOUBLE_COMPLEX] = { 16, EXT_IEEE, 2 },
	[RC_BASIC_C_LONG_DOUBLE_COMPLEX] = { 32, EXT_LDBL, 2 },
	[RC_BASIC_AINT] = { 8, EXT_SINT, 1 },
	[RC_BASIC_OFFSET] = { 8, EXT_SINT, 1 },
	[RC_BASIC_COUNT] = { 8, EXT_SINT, 1 },
	[RC_BASIC_PACKED] = { 1, EXT_RAW, 1 },
	[RC_BASIC_CHARACTER] = { 1, EXT_RAW, 1 },
	[RC_BASIC_LOGICAL] = { 4, EXT_SINT, 1 },
	[RC_BASIC_INTEGER] = { 4, EXT_SINT, 1 },
	[RC_BASIC_REAL] = { 4, EXT_IEEE, 1 },
	[RC_BASIC_DOUBLE_PRECISION] = { 8, EXT_IEEE, 1 },
	[RC_BASIC_COMPLEX] = { 8, EXT_IEEE, 2 },
	[RC_BASIC_DOUBLE_COMPLEX] = { 16, EXT_IEEE, 2 },
	[RC_BASIC_INTEGER1] = { 1, EXT_SINT, 1 },
	[RC_BASIC_INTEGER2] = { 2, EXT_SINT, 1 },
	[RC_BASIC_INTEGER4] = { 4, EXT_SINT, 1 },
	[RC_BASIC_INTEGER8] = { 8, EXT_SINT, 1 },
	[RC_BASIC_REAL4] = { 4, EXT_IEEE, 1 },
	[RC_BASIC_REAL8] = { 8, EXT_IEEE, 1 },
	[RC_BASIC_COMPLEX8] = { 8, EXT_IEEE, 2 },
	[RC_BASIC_COMPLEX16] = { 16, EXT_IEEE, 2 },
	[RC_BASIC_CXX_BOOL] = { 1, EXT_UINT, 1 },
	[RC_BASIC_CXX_FLOAT_COMPLEX] = { 8, EXT_IEEE, 2 },
	[RC_BASIC_CXX_DOUBLE_COMPLEX] = { 16, EXT_IEEE, 2 },
	[RC_BASIC_CXX_LONG_DOUBLE_COMPLEX] = { 32, EXT_LDBL, 2 },
};

size_t rc_ext32_size(enum rc_basic b)
{
	return b > RC_BASIC_NONE && b < RC_BASIC_NKINDS ? ext_tab[b].size : 0;
}

/* ---- one component ------------------------------------------------------- */

/* n bytes from in to out, most significant first (out is big-endian, in
 * native order), or back: the same operation both ways. */
static void be_copy(unsigned char *out, const unsigned char *in, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = in[n - 1 - i];
#else
	memcpy(out, in, n);
#endif
}

static int sint_to_ext(unsigned char *out, size_t m, const void *in, size_t n)
{
	int64_t v;
	unsigned char b[8];

	switch (n) {
	case 1: { int8_t x; memcpy(&x, in, 1); v = x; break; }
	case 2: { int16_t x; memcpy(&x, in, 2); v = x; break; }
	case 4: { int32_t x; memcpy(&x, in, 4); v = x; break; }
	default: memcpy(&v, in, 8); break;
	}
	if (m < 8 && (v < -((int64_t)1 << (8 * m - 1)) ||
		      v > ((int64_t)1 << (8 * m - 1)) - 1))
		return MPI_ERR_CONVERSION;
	memcpy(b, &v, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	be_copy(out, b, m);
#else
	memcpy(out, b + 8 - m, m);
#endif
	return MPI_SUCCESS;
}

static int uint_to_ext(unsigned char *out, size_t m, const void *in, size_t n)
{
	uint64_t v;
	unsigned char b[8];

	switch (n) {
	case 1: { uint8_t x; memcpy(&x, in, 1); v = x; break; }
	case 2: { uint16_t x; memcpy(&x, in, 2); v = x; break; }
	case 4: { uint32_t x; memcpy(&x, in, 4); v = x; break; }
	default: memcpy(&v, in, 8); break;
	}
	if (m < 8 && v >> (8 * m))
		return MPI_ERR_CONVERSION;
	memcpy(b, &v, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	be_copy(out, b, m);
#else
	memcpy(out, b + 8 - m, m);
#endif
	return MPI_SUCCESS;
}

/* m big-endian bytes as a 64-bit value, sign-extended if sgn */
static uint64_t ext_read(const unsigned char *in, size_t m, bool sgn)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < m; i++)
		v = v << 8 | in[i];
	if (sgn && m < 8 && (in[0] & 0x80))
		v |= ~(uint64_t)0 << (8 * m);
	return v;
}

static int int_from_ext(void *out, size_t n, const unsigned char *in,
			size_t m, bool sgn)
{
	uint64_t u = ext_read(in, m, sgn);
	int64_t s = (int64_t)u;

	if (n < 8) {
		if (sgn && (s < -((int64_t)1 << (8 * n - 1)) ||
			    s > ((int64_t)1 << (8 * n - 1)) - 1))
			return MPI_ERR_CONVERSION;
		if (!sgn && u >> (8 * n))
			return MPI_ERR_CONVERSION;
	}
	switch (n) {
	case 1: { uint8_t x = (uint8_t)u; memcpy(out, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)u; memcpy(out, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)u; memcpy(out, &x, 4); break; }
	default: memcpy(out, &u, 8); break;
	}
	return MPI_SUCCESS;
}

#define Q_BIAS 16383
#define Q_EMAX 0x7fff
#define TWO64 18446744073709551616.0L

/* long double -> binary128, big-endian */
static int ldbl_to_ext(unsigned char *out, const void *in)
{
	long double v, f;
	uint64_t hi = 0, lo = 0, frac_hi, s;
	int e, exp;

	memcpy(&v, in, sizeof(v));
	s = signbit(v) ? (uint64_t)1 << 63 : 0;
	v = fabsl(v);
	if (isnan(v)) {
		hi = (uint64_t)Q_EMAX << 48 | (uint64_t)1 << 47;
	} else if (isinf(v)) {
		hi = (uint64_t)Q_EMAX << 48;
	} else if (v != 0) {
		f = frexpl(v, &e);	/* v = f * 2^e, f in [0.5, 1) */
		exp = e - 1 + Q_BIAS;
		if (exp >= Q_EMAX)
			return MPI_ERR_CONVERSION;
		if (exp <= 0) {
			/* binary128 subnormal: the value in units of
			 * 2^(1 - bias - 112) */
			f = ldexpl(v, Q_BIAS - 1 + 112);
			exp = 0;
		} else {
			/* the 112 fraction bits of 2f - 1, as an integer */
			f = ldexpl(2 * f - 1, 112);
		}
		frac_hi = (uint64_t)(f / TWO64);
		lo = (uint64_t)(f - (long double)frac_hi * TWO64);
		hi = (uint64_t)exp << 48 | frac_hi;
	}
	hi |= s;
	for (e = 0; e < 8; e++) {
		out[e] = (unsigned char)(hi >> (56 - 8 * e));
		out[8 + e] = (unsigned char)(lo >> (56 - 8 * e));
	}
	return MPI_SUCCESS;
}

static int ldbl_from_ext(void *out, const unsigned char *in)
{
	uint64_t hi = ext_read(in, 8, false), lo = ext_read(in + 8, 8, false);
	int exp = (int)(hi >> 48 & Q_EMAX);
	uint64_t frac_hi = hi & (((uint64_t)1 << 48) - 1);
	long double v;

	if (exp == Q_EMAX)
		v = frac_hi || lo ? NAN : INFINITY;
	else if (exp == 0)
		v = ldexpl((long double)frac_hi * TWO64 + (long double)lo,
			   1 - Q_BIAS - 112);
	else
		v = ldexpl((long double)(frac_hi | (uint64_t)1 << 48) * TWO64 +
				   (long double)lo,
			   exp - Q_BIAS - 112);
	if (exp != Q_EMAX && isinf(v))
		return MPI_ERR_CONVERSION;	/* beyond this long double */
	if (hi >> 63)
		v = -v;
	memcpy(out, &v, sizeof(v));
	return MPI_SUCCESS;
}

/* ---- elements ------------------------------------------------------------ */

/* k elements of kind b between the native packed stream at nat and the
 * external one at ext: to ext if pack, else back. */
static int ext_conv(enum rc_basic b, unsigned char *nat, unsigned char *ext,
		    size_t k, bool pack)
{
	const struct ext_kind *x = &ext_tab[b];
	size_t n = rc_basic_size(b) / x->ncomp, m = x->size / x->ncomp;
	size_t i, nc = k * x->ncomp;
	int err = MPI_SUCCESS;

	for (i = 0; i < nc && !err; i++, nat += n, ext += m) {
		switch (x->cls) {
		case EXT_RAW:
			memcpy(pack ? ext : nat, pack ? nat : ext, m);
			break;
		case EXT_SINT:
			err = pack ? sint_to_ext(ext, m, nat, n)
				   : int_from_ext(nat, n, ext, m, true);
			break;
		case EXT_UINT:
			err = pack ? uint_to_ext(ext, m, nat, n)
				   : int_from_ext(nat, n, ext, m, false);
			break;
		case EXT_IEEE:
			be_copy(pack ? ext : nat, pack ? nat : ext, m);
			break;
		case EXT_LDBL:
			err = pack ? ldbl_to_ext(ext, nat)
				   : ldbl_from_ext(nat, ext);
			break;
		default:
			err = MPI_ERR_INTERN;
			break;
		}
	}
	return err;
}

/* External bytes of one element of dt. */
static size_t ext_elem_size(const struct rc_dtype *dt)
{
	size_t i, s = 0;

	for (i = 0; i < dt->nsig; i++)
		s += dt->sig[i].count * ext_tab[dt->sig[i].basic].size;
	return s;
}

#define EXT_CHUNK 4096

/*
 * Convert (buf, count, dt) to or from the external stream ext, following
 * the signature. A type of one kind is one run over the whole stream;
 * otherwise each element's runs in turn.
 */
static int ext_walk(const struct rc_dtype *dt, size_t count, void *buf,
		    unsigned char *ext, bool pack)
{
	_Alignas(16) unsigned char chunk[EXT_CHUNK];
	size_t reps = dt->nsig == 1 ? 1 : count, e, j, left, k, bs, noff = 0;
	enum rc_basic b;
	int err;

	for (e = 0; e < reps; e++) {
		for (j = 0; j < dt->nsig; j++) {
			b = dt->sig[j].basic;
			bs = rc_basic_size(b);
			left = dt->sig[j].count * (dt->nsig == 1 ? count : 1);
			while (left) {
				k = left < EXT_CHUNK / bs ? left
							  : EXT_CHUNK / bs;
				if (pack)
					rc_dt_pack(dt, count, buf, noff, chunk,
						   k * bs);
				err = ext_conv(b, chunk, ext, k, pack);
				if (!err && !pack)
					rc_dt_unpack(dt, count, buf, noff,
						     chunk, k * bs);
				if (err)
					return err;
				ext += k * ext_tab[b].size;
				noff += k * bs;
				left -= k;
			}
		}
	}
	return MPI_SUCCESS;
}

/* ---- the MPI functions --------------------------------------------------- */

/* datarep is "external32": 0, or an error class. */
static int ext_datarep(const char *datarep, const char *fn)
{
	if (!datarep)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "datarep is NULL");
	if (strcmp(datarep, "external32"))
		return RC_ERR_MSG(NULL, MPI_ERR_UNSUPPORTED_DATAREP, fn,
				  "only \"external32\" is supported");
	return MPI_SUCCESS;
}

/* The external size of count elements of dt, or an error class. */
static int ext_need(int count, MPI_Datatype dt, size_t *need, const char *fn)
{
	if (count < 0)
		return RC_ERR_MSG(NULL, MPI_ERR_COUNT, fn, "count is negative");
	if (!rc_dt_ok(dt))
		return RC_ERR_MSG(NULL, MPI_ERR_TYPE, fn,
				  dt ? "invalid datatype" : "MPI_DATATYPE_NULL");
	if (!(dt->flags & RC_DT_COMMITTED))
		return RC_ERR_MSG(NULL, MPI_ERR_TYPE, fn,
				  "datatype not committed");
	if (__builtin_mul_overflow((size_t)count, ext_elem_size(dt), need) ||
	    *need > (size_t)PTRDIFF_MAX)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  "external size does not fit an MPI_Aint");
	return MPI_SUCCESS;
}

/*
 * MPI_Pack_external (pack) and MPI_Unpack_external: count elements of dt
 * at buf to or from the external stream at ext + *position, which holds
 * extsize bytes; *position moves on only when everything converted.
 */
static int ext_xfer(const char *datarep, void *buf, int count,
		    MPI_Datatype dt, unsigned char *ext, MPI_Aint extsize,
		    MPI_Aint *position, bool pack)
{
	const char *fn = pack ? "MPI_Pack_external" : "MPI_Unpack_external";
	size_t need;
	int err;

	RC_API_CHECK_INIT(fn);
	err = ext_datarep(datarep, fn);
	if (!err)
		err = ext_need(count, dt, &need, fn);
	if (err)
		return err;
	if (!position)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "position is NULL");
	if (extsize < 0 || *position < 0 || *position > extsize)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,
				  pack ? "position outside [0, outsize]"
				       : "position outside [0, insize]");
	if (need > (size_t)(extsize - *position))
		return RC_ERR_MSG(NULL, MPI_ERR_TRUNCATE, fn,
				  pack ? "outbuf too small"
				       : "inbuf holds less than outcount "
					 "elements");
	if (!need)
		return MPI_SUCCESS;
	if (!ext)
		return RC_ERR_MSG(NULL, MPI_ERR_BUFFER, fn,
				  pack ? "outbuf is NULL" : "inbuf is NULL");
	err = ext_walk(dt, (size_t)count, buf, ext + *position, pack);
	if (err)
		return RC_ERR_MSG(NULL, err, fn,
				  err != MPI_ERR_CONVERSION ? NULL
				  : pack ? "a value does not fit its "
					   "external32 size"
					 : "an external32 value does not fit "
					   "the native type");
	*position += (MPI_Aint)need;
	return MPI_SUCCESS;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
		       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
		       MPI_Aint *position)
{
	return RC_CS_OUTSIDE(ext_xfer(datarep, (void *)(uintptr_t)inbuf,
				      incount, datatype, outbuf, outsize,
				      position, true));
}
RC_WEAK(MPI_Pack_external)

int PMPI_Unpack_external(const char datarep[], const void *inbuf,
			 MPI_Aint insize, MPI_Aint *position, void *outbuf,
			 int outcount, MPI_Datatype datatype)
{
	return RC_CS_OUTSIDE(ext_xfer(datarep, outbuf, outcount, datatype,
				      (unsigned char *)(uintptr_t)inbuf, insize,
				      position, false));
}
RC_WEAK(MPI_Unpack_external)

static int pack_external_size(const char *datarep, int incount,
			      MPI_Datatype datatype, MPI_Aint *size)
{
	static const char fn[] = "MPI_Pack_external_size";
	size_t need;
	int err;

	RC_API_CHECK_INIT(fn);
	err = ext_datarep(datarep, fn);
	if (!err)
		err = ext_need(incount, datatype, &need, fn);
	if (err)
		return err;
	if (!size)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "size is NULL");
	*size = (MPI_Aint)need;
	return MPI_SUCCESS;
}

int PMPI_Pack_external_size(const char datarep[], int incount,
			    MPI_Datatype datatype, MPI_Aint *size)
{
	return RC_CS_OUTSIDE(
		pack_external_size(datarep, incount, datatype, size));
}
RC_WEAK(MPI_Pack_external_size)
