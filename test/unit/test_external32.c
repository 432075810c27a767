/*
 * test_external32.c - MPI_Pack_external, MPI_Unpack_external and
 * MPI_Pack_external_size with "external32" (runtime/dtype_ext32.c).
 *
 * The expected bytes are written out here by hand from the standard's
 * definition (MPI-3.1 13.5.2: big-endian, two's complement, IEEE; the
 * sizes of its table 13.2, whatever the platform's): an int, a long that
 * is 8 bytes here and 4 there, floats, doubles, long doubles as IEEE
 * binary128 (normal, subnormal, zero, infinity, NaN), a wchar_t, bools,
 * complex values, Fortran kinds, pair types, and derived types with holes
 * whose padding must not appear. Values that do not fit the external size
 * are MPI_ERR_CONVERSION, and nothing moves the position then; every kind
 * round-trips through pack and unpack.
 */
#include <check.h>
#include <complex.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "api.h"
#include "api_env.h"
#include "dtype.h"

#define TMO 30
#define E32 "external32"

#define OK(call) ck_assert_int_eq((call), MPI_SUCCESS)

/* Pack count elements of dt at buf; the bytes must be want[0..n). */
static void packs_to(const void *buf, int count, MPI_Datatype dt,
		     const unsigned char *want, size_t n)
{
	unsigned char out[256];
	MPI_Aint pos = 3, size;

	memset(out, 0xee, sizeof(out));
	OK(MPI_Pack_external_size(E32, count, dt, &size));
	ck_assert_int_eq(size, (MPI_Aint)n);
	OK(MPI_Pack_external(E32, buf, count, dt, out, sizeof(out), &pos));
	ck_assert_int_eq(pos, 3 + (MPI_Aint)n);
	ck_assert_mem_eq(out + 3, want, n);
	/* nothing written around it */
	ck_assert_uint_eq(out[2], 0xee);
	ck_assert_uint_eq(out[3 + n], 0xee);
}

#define BYTES(...) ((const unsigned char[]){ __VA_ARGS__ })
#define PACKS(buf, count, dt, ...)                                       \
	packs_to((buf), (count), (dt), BYTES(__VA_ARGS__),               \
		 sizeof(BYTES(__VA_ARGS__)))

/* ---- sizes ------------------------------------------------------------- */

START_TEST(test_sizes)
{
	static const struct {
		MPI_Datatype dt;
		MPI_Aint size;
	} tab[] = {
		{ MPI_CHAR, 1 }, { MPI_SIGNED_CHAR, 1 },
		{ MPI_UNSIGNED_CHAR, 1 }, { MPI_BYTE, 1 }, { MPI_PACKED, 1 },
		{ MPI_SHORT, 2 }, { MPI_UNSIGNED_SHORT, 2 }, { MPI_INT, 4 },
		{ MPI_UNSIGNED, 4 }, { MPI_LONG, 4 }, { MPI_UNSIGNED_LONG, 4 },
		{ MPI_LONG_LONG_INT, 8 }, { MPI_UNSIGNED_LONG_LONG, 8 },
		{ MPI_FLOAT, 4 }, { MPI_DOUBLE, 8 }, { MPI_LONG_DOUBLE, 16 },
		{ MPI_WCHAR, 4 }, { MPI_C_BOOL, 1 }, { MPI_INT8_T, 1 },
		{ MPI_INT16_T, 2 }, { MPI_INT32_T, 4 }, { MPI_INT64_T, 8 },
		{ MPI_UINT8_T, 1 }, { MPI_UINT16_T, 2 }, { MPI_UINT32_T, 4 },
		{ MPI_UINT64_T, 8 }, { MPI_C_COMPLEX, 8 },
		{ MPI_C_FLOAT_COMPLEX, 8 }, { MPI_C_DOUBLE_COMPLEX, 16 },
		{ MPI_C_LONG_DOUBLE_COMPLEX, 32 }, { MPI_AINT, 8 },
		{ MPI_OFFSET, 8 }, { MPI_COUNT, 8 }, { MPI_CHARACTER, 1 },
		{ MPI_LOGICAL, 4 }, { MPI_INTEGER, 4 }, { MPI_REAL, 4 },
		{ MPI_DOUBLE_PRECISION, 8 }, { MPI_COMPLEX, 8 },
		{ MPI_DOUBLE_COMPLEX, 16 }, { MPI_INTEGER1, 1 },
		{ MPI_INTEGER2, 2 }, { MPI_INTEGER4, 4 }, { MPI_INTEGER8, 8 },
		{ MPI_REAL4, 4 }, { MPI_REAL8, 8 }, { MPI_COMPLEX8, 8 },
		{ MPI_COMPLEX16, 16 }, { MPI_CXX_BOOL, 1 },
		{ MPI_CXX_FLOAT_COMPLEX, 8 }, { MPI_CXX_DOUBLE_COMPLEX, 16 },
		{ MPI_CXX_LONG_DOUBLE_COMPLEX, 32 },
		/* pairs: value and index at their own external sizes */
		{ MPI_FLOAT_INT, 8 }, { MPI_DOUBLE_INT, 12 },
		{ MPI_LONG_INT, 8 }, { MPI_2INT, 8 }, { MPI_SHORT_INT, 6 },
		{ MPI_LONG_DOUBLE_INT, 20 }, { MPI_2INTEGER, 8 },
		{ MPI_2REAL, 8 }, { MPI_2DOUBLE_PRECISION, 16 },
	};
	MPI_Aint size;
	size_t k;
	int b;

	for (k = 0; k < sizeof(tab) / sizeof(tab[0]); k++) {
		OK(MPI_Pack_external_size(E32, 3, tab[k].dt, &size));
		ck_assert_msg(size == 3 * tab[k].size, "%s: %ld, want %ld",
			      tab[k].dt->name, (long)size,
			      (long)(3 * tab[k].size));
	}
	/* every basic kind has an external form */
	for (b = RC_BASIC_NONE + 1; b < RC_BASIC_FLOAT_INT; b++)
		ck_assert_msg(rc_ext32_size(b) > 0, "%s",
			      rc_basic_name(b));
	OK(MPI_Pack_external_size(E32, 0, MPI_LONG, &size));
	ck_assert_int_eq(size, 0);
}
END_TEST

/* ---- bytes of basic values ------------------------------------------------ */

START_TEST(test_bytes_integers)
{
	int i[2] = { 0x01020304, -2 };
	short s = -3;
	unsigned short us = 0xbeef;
	long l[3] = { -2, 0x7fffffffL, -0x7fffffffL - 1 };
	unsigned long ul = 0xffffffffUL;
	long long ll = 0x0102030405060708LL;
	MPI_Aint a = -1;
	MPI_Count c = 5;
	wchar_t w = L'\x263a';
	_Bool t = 1;
	int8_t i8 = -128;
	uint64_t u64 = 0xfedcba9876543210ULL;
	int32_t logical = 1, integer = -7;
	int64_t integer8 = -1;
	char ch = 'A';

	PACKS(i, 2, MPI_INT, 0x01, 0x02, 0x03, 0x04, 0xff, 0xff, 0xff, 0xfe);
	PACKS(&s, 1, MPI_SHORT, 0xff, 0xfd);
	PACKS(&us, 1, MPI_UNSIGNED_SHORT, 0xbe, 0xef);
	/* long: 4 bytes in external32, whatever sizeof(long) is */
	PACKS(l, 3, MPI_LONG, 0xff, 0xff, 0xff, 0xfe, 0x7f, 0xff, 0xff, 0xff,
	      0x80, 0x00, 0x00, 0x00);
	PACKS(&ul, 1, MPI_UNSIGNED_LONG, 0xff, 0xff, 0xff, 0xff);
	PACKS(&ll, 1, MPI_LONG_LONG, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	      0x08);
	PACKS(&a, 1, MPI_AINT, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	      0xff);
	PACKS(&c, 1, MPI_COUNT, 0, 0, 0, 0, 0, 0, 0, 5);
	PACKS(&w, 1, MPI_WCHAR, 0x00, 0x00, 0x26, 0x3a);
	PACKS(&t, 1, MPI_C_BOOL, 0x01);
	PACKS(&t, 1, MPI_CXX_BOOL, 0x01);
	PACKS(&i8, 1, MPI_INT8_T, 0x80);
	PACKS(&u64, 1, MPI_UINT64_T, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32,
	      0x10);
	PACKS(&logical, 1, MPI_LOGICAL, 0, 0, 0, 1);
	PACKS(&integer, 1, MPI_INTEGER, 0xff, 0xff, 0xff, 0xf9);
	PACKS(&integer8, 1, MPI_INTEGER8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	      0xff, 0xff);
	PACKS(&ch, 1, MPI_CHARACTER, 0x41);
	PACKS(&ch, 1, MPI_CHAR, 0x41);
}
END_TEST

START_TEST(test_bytes_floats)
{
	float f[2] = { 1.0f, -2.5f };
	double d[2] = { 1.0, 0.1 };
	float _Complex fc = 1.0f + 2.0f * I;
	double _Complex dc = -1.0 + 0.5 * I;

	PACKS(f, 2, MPI_FLOAT, 0x3f, 0x80, 0x00, 0x00, 0xc0, 0x20, 0x00,
	      0x00);
	PACKS(f, 1, MPI_REAL, 0x3f, 0x80, 0x00, 0x00);
	PACKS(d, 2, MPI_DOUBLE, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0x3f, 0xb9, 0x99,
	      0x99, 0x99, 0x99, 0x99, 0x9a);
	PACKS(d, 1, MPI_DOUBLE_PRECISION, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0);
	PACKS(&fc, 1, MPI_C_FLOAT_COMPLEX, 0x3f, 0x80, 0x00, 0x00, 0x40, 0x00,
	      0x00, 0x00);
	PACKS(&fc, 1, MPI_COMPLEX, 0x3f, 0x80, 0x00, 0x00, 0x40, 0x00, 0x00,
	      0x00);
	PACKS(&dc, 1, MPI_C_DOUBLE_COMPLEX, 0xbf, 0xf0, 0, 0, 0, 0, 0, 0, 0x3f,
	      0xe0, 0, 0, 0, 0, 0, 0);
}
END_TEST

/* long double: IEEE binary128, 16 bytes: sign and 15-bit exponent (bias
 * 16383), then 112 fraction bits. */
START_TEST(test_bytes_long_double)
{
	long double v[4] = { 1.0L, -2.5L, 3.0L, -0.0L };
	long double special[2] = { INFINITY, NAN };
	long double _Complex z = 1.0L - 3.0L * I;

	PACKS(v, 4, MPI_LONG_DOUBLE,
	      /* 1.0: exponent 0x3fff, fraction 0 */
	      0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	      /* -2.5 = -1.25 * 2^1: sign, 0x4000, fraction .01 */
	      0xc0, 0x00, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	      /* 3.0 = 1.5 * 2^1: fraction .1 */
	      0x40, 0x00, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	      /* -0.0 */
	      0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	PACKS(special, 2, MPI_LONG_DOUBLE,
	      0x7f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	      /* a quiet NaN */
	      0x7f, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	PACKS(&z, 1, MPI_C_LONG_DOUBLE_COMPLEX,
	      0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	      0xc0, 0x00, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
#if LDBL_MANT_DIG == 64
	/* x87 80-bit: 0.1L's 64-bit significand 0xcccccccccccccccd at
	 * 2^-4, its 63 fraction bits at the top of the 112 */
	v[0] = 0.1L;
	PACKS(v, 1, MPI_LONG_DOUBLE, 0x3f, 0xfb, 0x99, 0x99, 0x99, 0x99,
	      0x99, 0x99, 0x99, 0x9a, 0, 0, 0, 0, 0, 0);
	/* 2^-16400: subnormal in binary128 (below 2^-16382), fraction
	 * 2^94 units of 2^-16494 */
	v[0] = ldexpl(1.0L, -16400);
	PACKS(v, 1, MPI_LONG_DOUBLE, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0,
	      0, 0, 0);
#endif
}
END_TEST

/* ---- derived types and pairs ----------------------------------------------- */

struct rec {
	char c;
	double d;
	short s;
};

START_TEST(test_bytes_derived)
{
	struct rec r[2] = { { 'x', 2.0, -1 }, { 'y', -0.5, 0x102 } }, back[2];
	int bl[3] = { 1, 1, 1 }, v[6] = { 1, -1, 2, -2, 3, -3 }, vb[6];
	MPI_Aint disp[3] = { offsetof(struct rec, c), offsetof(struct rec, d),
			     offsetof(struct rec, s) };
	MPI_Datatype tys[3] = { MPI_CHAR, MPI_DOUBLE, MPI_SHORT }, st, vec;
	struct {
		long v;
		int i;
	} li = { -5, 7 };
	struct {
		short v;
		int i;
	} si = { 9, -9 };
	unsigned char out[64];
	MPI_Aint pos = 0;

	OK(MPI_Type_create_struct(3, bl, disp, tys, &st));
	OK(MPI_Type_commit(&st));
	/* padding never travels: 1 + 8 + 2 bytes per record */
	PACKS(r, 2, st,
	      0x78, 0x40, 0x00, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	      0x79, 0xbf, 0xe0, 0, 0, 0, 0, 0, 0, 0x01, 0x02);
	/* and back, every field */
	OK(MPI_Pack_external(E32, r, 2, st, out, sizeof(out), &pos));
	memset(back, 0, sizeof(back));
	pos = 0;
	OK(MPI_Unpack_external(E32, out, 22, &pos, back, 2, st));
	ck_assert_int_eq(pos, 22);
	ck_assert(back[0].c == 'x' && back[0].d == 2.0 && back[0].s == -1);
	ck_assert(back[1].c == 'y' && back[1].d == -0.5 && back[1].s == 0x102);
	OK(MPI_Type_free(&st));
	/* a vector with holes: every other int */
	OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
	OK(MPI_Type_commit(&vec));
	PACKS(v, 1, vec, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3);
	pos = 0;
	OK(MPI_Pack_external(E32, v, 1, vec, out, sizeof(out), &pos));
	memset(vb, 0x55, sizeof(vb));
	pos = 0;
	OK(MPI_Unpack_external(E32, out, 12, &pos, vb, 1, vec));
	ck_assert(vb[0] == 1 && vb[2] == 2 && vb[4] == 3);
	ck_assert(vb[1] == 0x55555555 && vb[3] == 0x55555555);
	OK(MPI_Type_free(&vec));
	/* pairs: the long at 4 bytes, the hole of MPI_SHORT_INT dropped */
	PACKS(&li, 1, MPI_LONG_INT, 0xff, 0xff, 0xff, 0xfb, 0, 0, 0, 7);
	PACKS(&si, 1, MPI_SHORT_INT, 0x00, 0x09, 0xff, 0xff, 0xff, 0xf7);
}
END_TEST

/* ---- conversions that cannot be made ----------------------------------------- */

START_TEST(test_conversion_errors)
{
	unsigned char out[16];
	MPI_Aint pos = 0;
	long l;
	unsigned long ul;

	if (sizeof(long) > 4) {
		l = 0x80000000L;
		ck_assert_int_eq(MPI_Pack_external(E32, &l, 1, MPI_LONG, out,
						   sizeof(out), &pos),
				 MPI_ERR_CONVERSION);
		l = -0x80000001L;
		ck_assert_int_eq(MPI_Pack_external(E32, &l, 1, MPI_LONG, out,
						   sizeof(out), &pos),
				 MPI_ERR_CONVERSION);
		ul = 0x100000000UL;
		ck_assert_int_eq(MPI_Pack_external(E32, &ul, 1,
						   MPI_UNSIGNED_LONG, out,
						   sizeof(out), &pos),
				 MPI_ERR_CONVERSION);
		ck_assert_int_eq(pos, 0);	/* nothing moved */
	}
	/* unpacking widens: sign-extended for long, not for unsigned */
	memset(out, 0xff, 4);
	OK(MPI_Unpack_external(E32, out, 4, &pos, &l, 1, MPI_LONG));
	ck_assert_int_eq(l, -1);
	pos = 0;
	OK(MPI_Unpack_external(E32, out, 4, &pos, &ul, 1, MPI_UNSIGNED_LONG));
	ck_assert_uint_eq(ul, 0xffffffffUL);
}
END_TEST

/* ---- round trips -------------------------------------------------------------- */

/* n elements of every kind packed and unpacked: the same values (the
 * long kinds within 32 bits). */
START_TEST(test_round_trip)
{
	long double ld[] = { 0.0L, -0.0L, 1.0L / 3.0L, -LDBL_MAX, LDBL_MIN,
			     LDBL_TRUE_MIN, INFINITY, -INFINITY, 1e300L,
			     -7.25e-300L, (long double)M_PI };
	long double ldb[sizeof(ld) / sizeof(ld[0])];
	long lv[] = { 0, 1, -1, INT_MAX, INT_MIN, 12345 }, lb[6];
	double dv[] = { 0.0, -0.0, DBL_MAX, DBL_MIN, 4.9e-324, -1e-10 }, db[6];
	long double _Complex zc[2] = { 1.5L + 2.25L * I, -LDBL_MIN * I }, zb[2];
	unsigned char *out = malloc(1 << 20);
	int *big = malloc(sizeof(int) * 100000), *bigb;
	MPI_Aint pos;
	long double nan_in = NAN, nan_out = 0;
	size_t k;

	ck_assert_ptr_nonnull(out);
	pos = 0;
	OK(MPI_Pack_external(E32, ld, (int)(sizeof(ld) / sizeof(ld[0])),
			     MPI_LONG_DOUBLE, out, 1 << 20, &pos));
	pos = 0;
	OK(MPI_Unpack_external(E32, out, 1 << 20, &pos, ldb,
			       (int)(sizeof(ld) / sizeof(ld[0])),
			       MPI_LONG_DOUBLE));
	for (k = 0; k < sizeof(ld) / sizeof(ld[0]); k++)
		ck_assert_msg(ld[k] == ldb[k] &&
				      !signbit(ld[k]) == !signbit(ldb[k]),
			      "long double %zu", k);
	pos = 0;
	OK(MPI_Pack_external(E32, &nan_in, 1, MPI_LONG_DOUBLE, out, 16, &pos));
	pos = 0;
	OK(MPI_Unpack_external(E32, out, 16, &pos, &nan_out, 1,
			       MPI_LONG_DOUBLE));
	ck_assert(isnan(nan_out));
	pos = 0;
	OK(MPI_Pack_external(E32, zc, 2, MPI_C_LONG_DOUBLE_COMPLEX, out, 64,
			     &pos));
	ck_assert_int_eq(pos, 64);
	pos = 0;
	OK(MPI_Unpack_external(E32, out, 64, &pos, zb, 2,
			       MPI_C_LONG_DOUBLE_COMPLEX));
	ck_assert(zb[0] == zc[0] && zb[1] == zc[1]);
	pos = 0;
	OK(MPI_Pack_external(E32, lv, 6, MPI_LONG, out, 24, &pos));
	pos = 0;
	OK(MPI_Unpack_external(E32, out, 24, &pos, lb, 6, MPI_LONG));
	ck_assert_mem_eq(lv, lb, sizeof(lv));
	pos = 0;
	OK(MPI_Pack_external(E32, dv, 6, MPI_DOUBLE, out, 48, &pos));
	pos = 0;
	OK(MPI_Unpack_external(E32, out, 48, &pos, db, 6, MPI_DOUBLE));
	ck_assert_mem_eq(dv, db, sizeof(dv));
	/* many elements: chunked; every int big-endian */
	ck_assert_ptr_nonnull(big);
	bigb = malloc(sizeof(int) * 100000);
	for (k = 0; k < 100000; k++)
		big[k] = (int)(k * 2654435761u);
	pos = 0;
	OK(MPI_Pack_external(E32, big, 100000, MPI_INT, out, 1 << 20, &pos));
	ck_assert_int_eq(pos, 400000);
	for (k = 0; k < 100000; k += 997)
		ck_assert(out[4 * k] == (unsigned char)((unsigned)big[k] >> 24)
			  && out[4 * k + 3] == (unsigned char)big[k]);
	pos = 0;
	OK(MPI_Unpack_external(E32, out, 400000, &pos, bigb, 100000,
			       MPI_INT));
	ck_assert_mem_eq(big, bigb, sizeof(int) * 100000);
	free(big);
	free(bigb);
	free(out);
}
END_TEST

START_TEST(test_api_errors)
{
	int v[2] = { 1, 2 };
	unsigned char out[16];
	MPI_Aint pos = 0, size;
	MPI_Datatype t;

	ck_assert_int_eq(MPI_Pack_external("native", v, 2, MPI_INT, out, 16,
					   &pos),
			 MPI_ERR_UNSUPPORTED_DATAREP);
	ck_assert_int_eq(MPI_Unpack_external("internal", out, 16, &pos, v, 2,
					     MPI_INT),
			 MPI_ERR_UNSUPPORTED_DATAREP);
	ck_assert_int_eq(MPI_Pack_external_size("EXTERNAL32", 2, MPI_INT,
						&size),
			 MPI_ERR_UNSUPPORTED_DATAREP);
	ck_assert_int_eq(MPI_Pack_external(NULL, v, 2, MPI_INT, out, 16, &pos),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Pack_external(E32, v, -1, MPI_INT, out, 16, &pos),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Pack_external(E32, v, 2, MPI_DATATYPE_NULL, out,
					   16, &pos),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Pack_external(E32, v, 2, MPI_INT, out, 7, &pos),
			 MPI_ERR_TRUNCATE);
	pos = 17;
	ck_assert_int_eq(MPI_Pack_external(E32, v, 2, MPI_INT, out, 16, &pos),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Pack_external(E32, v, 2, MPI_INT, out, 16, NULL),
			 MPI_ERR_ARG);
	OK(MPI_Type_contiguous(2, MPI_INT, &t));
	pos = 0;
	ck_assert_int_eq(MPI_Pack_external(E32, v, 1, t, out, 16, &pos),
			 MPI_ERR_TYPE);	/* not committed */
	OK(MPI_Type_free(&t));
	/* two packs in a row: the position moves on */
	pos = 0;
	OK(MPI_Pack_external(E32, v, 1, MPI_INT, out, 16, &pos));
	OK(MPI_Pack_external(E32, v + 1, 1, MPI_SHORT, out, 16, &pos));
	ck_assert_int_eq(pos, 6);
	ck_assert_mem_eq(out, BYTES(0, 0, 0, 1, 0, 2), 6);
	/* the receive side needs what it reads */
	pos = 0;
	ck_assert_int_eq(MPI_Unpack_external(E32, out, 6, &pos, v, 2, MPI_INT),
			 MPI_ERR_TRUNCATE);
	/* nothing to move: fine, with NULL buffers too */
	pos = 0;
	OK(MPI_Pack_external(E32, NULL, 0, MPI_INT, NULL, 0, &pos));
	OK(MPI_Unpack_external(E32, NULL, 0, &pos, NULL, 0, MPI_INT));
	ck_assert_int_eq(pos, 0);
}
END_TEST

static Suite *ext32_suite(void)
{
	Suite *s = suite_create("external32");
	TCase *tc;

	tc = tcase_create("external32");
	tcase_add_checked_fixture(tc, api_setup, api_teardown);
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_bytes_integers);
	tcase_add_test(tc, test_bytes_floats);
	tcase_add_test(tc, test_bytes_long_double);
	tcase_add_test(tc, test_bytes_derived);
	tcase_add_test(tc, test_conversion_errors);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_api_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return api_run_suite(ext32_suite());
}
