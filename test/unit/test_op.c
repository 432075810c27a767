/*
 * test_op.c - unit tests of the reduction operations (runtime/op.c) and
 * their MPI functions (runtime/op_api.c).
 *
 * The test holds its own copy of the standard's table (MPI-3.1 5.9.2) of
 * which op applies to which type class (with rcmpi's one extension, the C
 * integer ops on MPI_CHAR, marked as such), and its own reference: a plain
 * element-by-element switch over the op, per C type. Every predefined op is
 * applied to every type the table allows, at several counts, and compared
 * with the reference; every other (op, type) pair must be refused by
 * rc_op_valid_for. MAXLOC/MINLOC are checked on every pair type with many
 * ties, through the struct layout, contiguous and gapped derived types.
 * Derived types exercise the kernel's three paths (contiguous, per block,
 * packed chunks), misaligned buffers included; gaps between blocks must
 * come out untouched.
 */
#include <check.h>
#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "api_env.h"
#include "dtype.h"
#include "op.h"

#define TMO 30

/* 64-byte aligned memory (aligned_alloc wants a multiple of 64) */
static void *amalloc(size_t n)
{
	void *p = aligned_alloc(64, (n + 63) / 64 * 64);

	ck_assert_ptr_nonnull(p);
	return p;
}

/* ---- the standard's table ------------------------------------------------ */

enum cls {
	C_NONE = 0,	/* MPI_WCHAR, MPI_PACKED, MPI_CHARACTER: no
			 * predefined op */
	C_INT = 1,	/* C integer */
	C_MULTI = 2,	/* MPI_AINT, MPI_OFFSET, MPI_COUNT */
	C_FLT = 4,
	C_CPLX = 8,
	C_LOGIC = 16,	/* MPI_C_BOOL, MPI_CXX_BOOL, MPI_LOGICAL */
	C_BYTE = 32,
	C_PAIR = 64,
	/* rcmpi's extension of the table, as in Open MPI and MPICH:
	 * MPI_CHAR (the platform's char) takes every C integer op */
	C_CHAR_EXT = 128,
	C_FINT = 256,	/* Fortran integer */
	/* the second extension, as in Open MPI and MPICH: the logical ops
	 * on the multi-language types */
	C_MULTI_EXT = C_MULTI,
};

struct op_ent {
	MPI_Op op;
	const char *name;
	unsigned allowed;	/* classes */
};

static const struct op_ent ops[] = {
	/* the standard's classes | the extension */
	{ MPI_MAX, "MAX", C_INT | C_FINT | C_MULTI | C_FLT | C_CHAR_EXT },
	{ MPI_MIN, "MIN", C_INT | C_FINT | C_MULTI | C_FLT | C_CHAR_EXT },
	{ MPI_SUM, "SUM",
	  C_INT | C_FINT | C_MULTI | C_FLT | C_CPLX | C_CHAR_EXT },
	{ MPI_PROD, "PROD",
	  C_INT | C_FINT | C_MULTI | C_FLT | C_CPLX | C_CHAR_EXT },
	{ MPI_LAND, "LAND", C_INT | C_LOGIC | C_CHAR_EXT | C_MULTI_EXT },
	{ MPI_LOR, "LOR", C_INT | C_LOGIC | C_CHAR_EXT | C_MULTI_EXT },
	{ MPI_LXOR, "LXOR", C_INT | C_LOGIC | C_CHAR_EXT | C_MULTI_EXT },
	{ MPI_BAND, "BAND", C_INT | C_FINT | C_MULTI | C_BYTE | C_CHAR_EXT },
	{ MPI_BOR, "BOR", C_INT | C_FINT | C_MULTI | C_BYTE | C_CHAR_EXT },
	{ MPI_BXOR, "BXOR", C_INT | C_FINT | C_MULTI | C_BYTE | C_CHAR_EXT },
	{ MPI_MAXLOC, "MAXLOC", C_PAIR },
	{ MPI_MINLOC, "MINLOC", C_PAIR },
	{ MPI_REPLACE, "REPLACE", ~0u },
	{ MPI_NO_OP, "NO_OP", ~0u },
};
#define NOPS ((int)(sizeof(ops) / sizeof(ops[0])))

/* name, C type, class: every non-pair predefined type */
#define T_TYPES(X)                                                \
	X(CHAR, char, C_CHAR_EXT)                                 \
	X(SIGNED_CHAR, signed char, C_INT)                        \
	X(UNSIGNED_CHAR, unsigned char, C_INT)                    \
	X(BYTE, unsigned char, C_BYTE)                            \
	X(SHORT, short, C_INT)                                    \
	X(UNSIGNED_SHORT, unsigned short, C_INT)                  \
	X(INT, int, C_INT)                                        \
	X(UNSIGNED, unsigned, C_INT)                              \
	X(LONG, long, C_INT)                                      \
	X(UNSIGNED_LONG, unsigned long, C_INT)                    \
	X(LONG_LONG, long long, C_INT)                            \
	X(UNSIGNED_LONG_LONG, unsigned long long, C_INT)          \
	X(FLOAT, float, C_FLT)                                    \
	X(DOUBLE, double, C_FLT)                                  \
	X(LONG_DOUBLE, long double, C_FLT)                        \
	X(WCHAR, wchar_t, C_NONE)                                 \
	X(C_BOOL, _Bool, C_LOGIC)                                 \
	X(INT8_T, int8_t, C_INT)                                  \
	X(INT16_T, int16_t, C_INT)                                \
	X(INT32_T, int32_t, C_INT)                                \
	X(INT64_T, int64_t, C_INT)                                \
	X(UINT8_T, uint8_t, C_INT)                                \
	X(UINT16_T, uint16_t, C_INT)                              \
	X(UINT32_T, uint32_t, C_INT)                              \
	X(UINT64_T, uint64_t, C_INT)                              \
	X(C_FLOAT_COMPLEX, float _Complex, C_CPLX)                \
	X(C_DOUBLE_COMPLEX, double _Complex, C_CPLX)              \
	X(C_LONG_DOUBLE_COMPLEX, long double _Complex, C_CPLX)    \
	X(AINT, MPI_Aint, C_MULTI)                                \
	X(OFFSET, MPI_Offset, C_MULTI)                            \
	X(COUNT, MPI_Count, C_MULTI)                              \
	X(PACKED, unsigned char, C_NONE)                          \
	X(CHARACTER, char, C_NONE)                                \
	X(LOGICAL, int32_t, C_LOGIC)                              \
	X(INTEGER, int32_t, C_FINT)                               \
	X(REAL, float, C_FLT)                                     \
	X(DOUBLE_PRECISION, double, C_FLT)                        \
	X(COMPLEX, float _Complex, C_CPLX)                        \
	X(DOUBLE_COMPLEX, double _Complex, C_CPLX)                \
	X(INTEGER1, int8_t, C_FINT)                               \
	X(INTEGER2, int16_t, C_FINT)                              \
	X(INTEGER4, int32_t, C_FINT)                              \
	X(INTEGER8, int64_t, C_FINT)                              \
	X(REAL4, float, C_FLT)                                    \
	X(REAL8, double, C_FLT)                                   \
	X(COMPLEX8, float _Complex, C_CPLX)                       \
	X(COMPLEX16, double _Complex, C_CPLX)                     \
	X(CXX_BOOL, _Bool, C_LOGIC)                               \
	X(CXX_FLOAT_COMPLEX, float _Complex, C_CPLX)              \
	X(CXX_DOUBLE_COMPLEX, double _Complex, C_CPLX)            \
	X(CXX_LONG_DOUBLE_COMPLEX, long double _Complex, C_CPLX)

/* Element-by-element reference, in the type's own arithmetic (values are
 * kept small, so nothing overflows before the conversion back). */
static int op_index(MPI_Op op)
{
	int i;

	for (i = 0; i < NOPS; i++)
		if (ops[i].op == op)
			return i;
	return -1;
}

#define T_REAL(T) (!__builtin_types_compatible_p(T, float _Complex) &&   \
		   !__builtin_types_compatible_p(T, double _Complex) &&  \
		   !__builtin_types_compatible_p(T, long double _Complex))

#define T_REF(N, T, C)                                                     \
	static void ref_##N(MPI_Op op, const void *vin, void *vio, size_t n)  \
	{                                                                  \
		const T *in = vin;                                         \
		T *io = vio;                                               \
		size_t i;                                                  \
                                                                           \
		for (i = 0; i < n; i++) {                                  \
			T a = in[i], b = io[i], r = b;                     \
			ref_elem_##N(op, a, b, &r);                        \
			io[i] = r;                                         \
		}                                                          \
	}

/* Comparisons and bit operations exist only for real types; the complex
 * reference handles SUM and PROD (all the table allows). */
#define T_ELEM_REAL(N, T, C)                                                \
	static void ref_elem_##N(MPI_Op op, T a, T b, T *r)                 \
	{                                                                   \
		switch (op_index(op)) {                                     \
		case 0: *r = (a < b) ? b : a; break;                        \
		case 1: *r = (b < a) ? b : a; break;                        \
		case 2: *r = (T)(a + b); break;                             \
		case 3: *r = (T)(a * b); break;                             \
		case 4: *r = (T)(a && b); break;                            \
		case 5: *r = (T)(a || b); break;                            \
		case 6: *r = (T)(!a != !b); break;                          \
		case 12: *r = a; break;                                     \
		case 13: *r = b; break;                                     \
		default: ref_elem_bits_##N(op, a, b, r); break;             \
		}                                                           \
	}
#define T_BITS_INT(N, T)                                                    \
	static void ref_elem_bits_##N(MPI_Op op, T a, T b, T *r)            \
	{                                                                   \
		switch (op_index(op)) {                                     \
		case 7: *r = (T)(a & b); break;                             \
		case 8: *r = (T)(a | b); break;                             \
		case 9: *r = (T)(a ^ b); break;                             \
		default: ck_abort_msg("no reference for this op"); break;   \
		}                                                           \
	}
#define T_BITS_NONE(N, T)                                                   \
	static void ref_elem_bits_##N(MPI_Op op, T a, T b, T *r)            \
	{                                                                   \
		(void)a; (void)b; (void)r;                                  \
		ck_abort_msg("no reference for op %d", op_index(op));       \
	}
#define T_ELEM_CPLX(N, T, C)                                                \
	static void ref_elem_##N(MPI_Op op, T a, T b, T *r)                 \
	{                                                                   \
		switch (op_index(op)) {                                     \
		case 2: *r = a + b; break;                                  \
		case 3: *r = a * b; break;                                  \
		case 12: *r = a; break;                                     \
		case 13: *r = b; break;                                     \
		default: ck_abort_msg("no complex reference"); break;       \
		}                                                           \
	}

#define T_INTS(X)                                                          \
	X(CHAR, char) X(SIGNED_CHAR, signed char)                          \
	X(UNSIGNED_CHAR, unsigned char) X(BYTE, unsigned char)             \
	X(SHORT, short) X(UNSIGNED_SHORT, unsigned short) X(INT, int)      \
	X(UNSIGNED, unsigned) X(LONG, long) X(UNSIGNED_LONG, unsigned long) \
	X(LONG_LONG, long long) X(UNSIGNED_LONG_LONG, unsigned long long)  \
	X(WCHAR, wchar_t) X(INT8_T, int8_t)                                \
	X(INT16_T, int16_t) X(INT32_T, int32_t) X(INT64_T, int64_t)        \
	X(UINT8_T, uint8_t) X(UINT16_T, uint16_t) X(UINT32_T, uint32_t)    \
	X(UINT64_T, uint64_t) X(AINT, MPI_Aint) X(OFFSET, MPI_Offset)      \
	X(COUNT, MPI_Count) X(PACKED, unsigned char)                       \
	X(CHARACTER, char) X(LOGICAL, int32_t) X(INTEGER, int32_t)         \
	X(INTEGER1, int8_t) X(INTEGER2, int16_t) X(INTEGER4, int32_t)      \
	X(INTEGER8, int64_t)
#define T_FLOATS(X)                                                        \
	X(FLOAT, float) X(DOUBLE, double) X(LONG_DOUBLE, long double)      \
	X(REAL, float) X(DOUBLE_PRECISION, double) X(REAL4, float)         \
	X(REAL8, double)
#define T_CPLXS(X)                                                         \
	X(C_FLOAT_COMPLEX, float _Complex)                                 \
	X(C_DOUBLE_COMPLEX, double _Complex)                               \
	X(C_LONG_DOUBLE_COMPLEX, long double _Complex)                     \
	X(COMPLEX, float _Complex) X(DOUBLE_COMPLEX, double _Complex)      \
	X(COMPLEX8, float _Complex) X(COMPLEX16, double _Complex)          \
	X(CXX_FLOAT_COMPLEX, float _Complex)                               \
	X(CXX_DOUBLE_COMPLEX, double _Complex)                             \
	X(CXX_LONG_DOUBLE_COMPLEX, long double _Complex)

T_INTS(T_BITS_INT)
T_FLOATS(T_BITS_NONE)
#define T_ELEM_REAL2(N, T) T_ELEM_REAL(N, T, 0)
#define T_ELEM_CPLX2(N, T) T_ELEM_CPLX(N, T, 0)
T_INTS(T_ELEM_REAL2)

/* _Bool: only the logical ops (and REPLACE / NO_OP) apply */
static void ref_elem_C_BOOL(MPI_Op op, _Bool a, _Bool b, _Bool *r)
{
	switch (op_index(op)) {
	case 4: *r = a && b; break;
	case 5: *r = a || b; break;
	case 6: *r = a != b; break;
	case 12: *r = a; break;
	case 13: *r = b; break;
	default: ck_abort_msg("no _Bool reference"); break;
	}
}

/* C++'s bool: as _Bool */
static void ref_elem_CXX_BOOL(MPI_Op op, _Bool a, _Bool b, _Bool *r)
{
	ref_elem_C_BOOL(op, a, b, r);
}

T_FLOATS(T_ELEM_REAL2)
T_CPLXS(T_ELEM_CPLX2)
T_TYPES(T_REF)

/* Fill n elements with small values (zeros included), by class. */
#define T_FILL(N, T, C)                                                    \
	static void fill_##N(void *vp, size_t n, unsigned seed)            \
	{                                                                  \
		T *p = vp;                                                 \
		size_t i;                                                  \
		long v;                                                    \
                                                                           \
		for (i = 0; i < n; i++) {                                  \
			v = (long)((i * 7 + seed * 5) % 23);               \
			if ((C) == C_LOGIC)                                \
				v %= 2;                                    \
			else if (!(__real__(T)-1 > __real__(T)0))         \
				v -= 11;	/* signed: -11..11 */      \
			p[i] = (T)v;                                       \
			if ((C) == C_CPLX)                                 \
				p[i] = (T)v + (T)((long)(i % 5) - 2) * (T)I; \
		}                                                          \
	}
T_TYPES(T_FILL)

/* Element-wise equality (padding bytes of long double ignored). */
#define T_EQ(N, T, C)                                                      \
	static bool eq_##N(const void *va, const void *vb, size_t n)      \
	{                                                                  \
		const T *a = va, *b = vb;                                  \
		size_t i;                                                  \
                                                                           \
		for (i = 0; i < n; i++)                                    \
			if (!(a[i] == b[i]))                               \
				return false;                              \
		return true;                                               \
	}
T_TYPES(T_EQ)

struct tinfo {
	MPI_Datatype dt;
	const char *name;
	size_t size;
	unsigned cls;
	void (*ref)(MPI_Op, const void *, void *, size_t);
	void (*fill)(void *, size_t, unsigned);
	bool (*eq)(const void *, const void *, size_t);
};

#define T_INFO(N, T, C)                                                  \
	{ RC_PREDEF(MPI_Datatype, rc_mpi_##N##_sym), #N, sizeof(T), C,   \
	  ref_##N, fill_##N, eq_##N },

/* mpi.h's objects by kind name */
#define rc_mpi_CHAR_sym rc_mpi_char
#define rc_mpi_SIGNED_CHAR_sym rc_mpi_signed_char
#define rc_mpi_UNSIGNED_CHAR_sym rc_mpi_unsigned_char
#define rc_mpi_BYTE_sym rc_mpi_byte
#define rc_mpi_SHORT_sym rc_mpi_short
#define rc_mpi_UNSIGNED_SHORT_sym rc_mpi_unsigned_short
#define rc_mpi_INT_sym rc_mpi_int
#define rc_mpi_UNSIGNED_sym rc_mpi_unsigned
#define rc_mpi_LONG_sym rc_mpi_long
#define rc_mpi_UNSIGNED_LONG_sym rc_mpi_unsigned_long
#define rc_mpi_LONG_LONG_sym rc_mpi_long_long
#define rc_mpi_UNSIGNED_LONG_LONG_sym rc_mpi_unsigned_long_long
#define rc_mpi_FLOAT_sym rc_mpi_float
#define rc_mpi_DOUBLE_sym rc_mpi_double
#define rc_mpi_LONG_DOUBLE_sym rc_mpi_long_double
#define rc_mpi_WCHAR_sym rc_mpi_wchar
#define rc_mpi_C_BOOL_sym rc_mpi_c_bool
#define rc_mpi_INT8_T_sym rc_mpi_int8_t
#define rc_mpi_INT16_T_sym rc_mpi_int16_t
#define rc_mpi_INT32_T_sym rc_mpi_int32_t
#define rc_mpi_INT64_T_sym rc_mpi_int64_t
#define rc_mpi_UINT8_T_sym rc_mpi_uint8_t
#define rc_mpi_UINT16_T_sym rc_mpi_uint16_t
#define rc_mpi_UINT32_T_sym rc_mpi_uint32_t
#define rc_mpi_UINT64_T_sym rc_mpi_uint64_t
#define rc_mpi_C_FLOAT_COMPLEX_sym rc_mpi_c_float_complex
#define rc_mpi_C_DOUBLE_COMPLEX_sym rc_mpi_c_double_complex
#define rc_mpi_C_LONG_DOUBLE_COMPLEX_sym rc_mpi_c_long_double_complex
#define rc_mpi_AINT_sym rc_mpi_aint
#define rc_mpi_OFFSET_sym rc_mpi_offset
#define rc_mpi_COUNT_sym rc_mpi_count
#define rc_mpi_PACKED_sym rc_mpi_packed
#define rc_mpi_CHARACTER_sym rc_mpi_character
#define rc_mpi_LOGICAL_sym rc_mpi_logical
#define rc_mpi_INTEGER_sym rc_mpi_integer
#define rc_mpi_REAL_sym rc_mpi_real
#define rc_mpi_DOUBLE_PRECISION_sym rc_mpi_double_precision
#define rc_mpi_COMPLEX_sym rc_mpi_complex
#define rc_mpi_DOUBLE_COMPLEX_sym rc_mpi_double_complex
#define rc_mpi_INTEGER1_sym rc_mpi_integer1
#define rc_mpi_INTEGER2_sym rc_mpi_integer2
#define rc_mpi_INTEGER4_sym rc_mpi_integer4
#define rc_mpi_INTEGER8_sym rc_mpi_integer8
#define rc_mpi_REAL4_sym rc_mpi_real4
#define rc_mpi_REAL8_sym rc_mpi_real8
#define rc_mpi_COMPLEX8_sym rc_mpi_complex8
#define rc_mpi_COMPLEX16_sym rc_mpi_complex16
#define rc_mpi_CXX_BOOL_sym rc_mpi_cxx_bool
#define rc_mpi_CXX_FLOAT_COMPLEX_sym rc_mpi_cxx_float_complex
#define rc_mpi_CXX_DOUBLE_COMPLEX_sym rc_mpi_cxx_double_complex
#define rc_mpi_CXX_LONG_DOUBLE_COMPLEX_sym rc_mpi_cxx_long_double_complex

static const struct tinfo types[] = { T_TYPES(T_INFO) };
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))

static const MPI_Datatype pairs[] = {
	MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT,
	MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT,
	/* Fortran's: the index in the value's type */
	MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION,
};
#define NPAIRS ((int)(sizeof(pairs) / sizeof(pairs[0])))

static void user_sum(void *invec, void *inoutvec, int *len, MPI_Datatype *dt);

/* ---- validity ------------------------------------------------------------ */

START_TEST(test_valid_matrix)
{
	int o, t;
	bool want;

	for (o = 0; o < NOPS; o++) {
		for (t = 0; t < NTYPES; t++) {
			want = (ops[o].allowed & types[t].cls) ||
			       ops[o].allowed == ~0u;
			ck_assert_msg(rc_op_valid_for(ops[o].op, types[t].dt) ==
					      want,
				      "%s on %s: want %d", ops[o].name,
				      types[t].name, want);
		}
		for (t = 0; t < NPAIRS; t++) {
			want = (ops[o].allowed & C_PAIR) != 0;
			ck_assert_msg(rc_op_valid_for(ops[o].op, pairs[t]) ==
					      want,
				      "%s on pair %d", ops[o].name, t);
		}
	}
	ck_assert(!rc_op_valid_for(NULL, MPI_INT));
	ck_assert(!rc_op_valid_for(MPI_SUM, NULL));
}
END_TEST

START_TEST(test_valid_derived)
{
	static const int bl[] = { 1, 1 };
	static const MPI_Aint dp[] = { 0, 8 };
	MPI_Datatype ts[] = { MPI_INT, MPI_DOUBLE }, same[] = { MPI_INT,
								 MPI_INT };
	MPI_Datatype t;
	MPI_Op uop;

	ck_assert_int_eq(MPI_Type_vector(3, 2, 4, MPI_INT, &t), MPI_SUCCESS);
	ck_assert(rc_op_valid_for(MPI_SUM, t));
	ck_assert(rc_op_valid_for(MPI_BAND, t));
	ck_assert(!rc_op_valid_for(MPI_MAXLOC, t));
	MPI_Type_free(&t);
	ck_assert_int_eq(MPI_Type_create_struct(2, bl, dp, ts, &t),
			 MPI_SUCCESS);
	ck_assert_int_eq(t->basic, RC_BASIC_NONE);
	ck_assert(!rc_op_valid_for(MPI_SUM, t));
	ck_assert(!rc_op_valid_for(MPI_MAX, t));
	ck_assert(rc_op_valid_for(MPI_REPLACE, t));
	ck_assert_int_eq(MPI_Op_create(user_sum, 1, &uop), MPI_SUCCESS);
	ck_assert(rc_op_valid_for(uop, t));
	MPI_Op_free(&uop);
	MPI_Type_free(&t);
	/* a struct of one basic type is still that type */
	ck_assert_int_eq(MPI_Type_create_struct(2, bl, dp, same, &t),
			 MPI_SUCCESS);
	ck_assert(rc_op_valid_for(MPI_PROD, t));
	MPI_Type_free(&t);
	ck_assert_int_eq(MPI_Type_contiguous(4, MPI_2INT, &t), MPI_SUCCESS);
	ck_assert(rc_op_valid_for(MPI_MINLOC, t));
	ck_assert(!rc_op_valid_for(MPI_SUM, t));
	MPI_Type_free(&t);
	ck_assert_int_eq(MPI_Type_contiguous(4, MPI_C_BOOL, &t), MPI_SUCCESS);
	ck_assert(rc_op_valid_for(MPI_LXOR, t));
	ck_assert(!rc_op_valid_for(MPI_SUM, t));
	MPI_Type_free(&t);
}
END_TEST

/* ---- every predefined op on every allowed type --------------------------- */

static const size_t counts[] = { 1, 3, 7, 33, 1000, 4097 };

START_TEST(test_predefined_ops)
{
	const struct tinfo *ti = &types[_i];
	size_t c, n, sz = ti->size;
	unsigned char *in, *io, *want, *orig;
	int o;

	for (o = 0; o < NOPS; o++) {
		if (!(ops[o].allowed & ti->cls) && ops[o].allowed != ~0u)
			continue;
		for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			n = counts[c];
			in = amalloc(n * sz);
			io = amalloc(n * sz);
			want = malloc(n * sz);
			orig = malloc(n * sz);
			memset(in, 0, n * sz);
			memset(io, 0, n * sz);
			ti->fill(in, n, 1);
			ti->fill(io, n, 2);
			memcpy(want, io, n * sz);
			memcpy(orig, io, n * sz);
			ti->ref(ops[o].op, in, want, n);
			rc_op_apply(ops[o].op, in, io, n, ti->dt);
			ck_assert_msg(ti->eq(io, want, n),
				      "%s on %s, count %zu", ops[o].name,
				      ti->name, n);
			/* the same through MPI_Reduce_local */
			memcpy(io, orig, n * sz);
			ck_assert_int_eq(MPI_Reduce_local(in, io, (int)n,
							  ti->dt, ops[o].op),
					 MPI_SUCCESS);
			ck_assert_msg(ti->eq(io, want, n),
				      "Reduce_local %s on %s, count %zu",
				      ops[o].name, ti->name, n);
			free(in);
			free(io);
			free(want);
			free(orig);
		}
	}
}
END_TEST

/* signed overflow wraps (computed unsigned): no UB, no trap */
START_TEST(test_int_wrap)
{
	int a[2] = { INT_MAX, INT_MIN }, b[2] = { 1, -1 };
	long long la = LLONG_MAX, lb = 2;
	int8_t c = 100, d = 100;

	rc_op_apply(MPI_SUM, a, b, 2, MPI_INT);
	ck_assert_int_eq(b[0], INT_MIN);
	ck_assert_int_eq(b[1], INT_MAX);
	rc_op_apply(MPI_PROD, &la, &lb, 1, MPI_LONG_LONG);
	ck_assert_int_eq(lb, -2);
	rc_op_apply(MPI_SUM, &c, &d, 1, MPI_INT8_T);
	ck_assert_int_eq(d, -56);
}
END_TEST

/* The MPI_CHAR extension computes in the platform's char, as Open MPI and
 * MPICH do: SUM wraps like char arithmetic, MAX compares as char. */
START_TEST(test_char_ext)
{
	char in[4] = { 100, 'a', -1, 7 }, io[4] = { 100, 1, 5, 0 };
	char want_sum[4] = { (char)200, 'b', 4, 7 };
	char mx[4] = { 100, 'a', 5, 7 };

	ck_assert_int_eq(MPI_Reduce_local(in, io, 4, MPI_CHAR, MPI_SUM),
			 MPI_SUCCESS);
	ck_assert_mem_eq(io, want_sum, 4);
	memcpy(io, (char[4]){ 100, 1, 5, 0 }, 4);
	ck_assert_int_eq(MPI_Reduce_local(in, io, 4, MPI_CHAR, MPI_MAX),
			 MPI_SUCCESS);
	/* (char)-1 is the largest of the four where char is unsigned */
	if ((char)-1 > 0)
		mx[2] = (char)-1;
	ck_assert_mem_eq(io, mx, 4);
	/* the extension stops at the C integer ops */
	ck_assert(!rc_op_valid_for(MPI_MAXLOC, MPI_CHAR));
	ck_assert(!rc_op_valid_for(MPI_SUM, MPI_WCHAR));
}
END_TEST

/* ---- MAXLOC / MINLOC ----------------------------------------------------- */

/* The standard's definition, on (value, index) as long double / int. */
static void loc_ref(bool max, long double u, int i, long double v, int j,
		    long double *w, int *k)
{
	if (max ? u > v : u < v) {
		*w = u;
		*k = i;
	} else if (max ? u < v : u > v) {
		*w = v;
		*k = j;
	} else {
		*w = u;
		*k = i < j ? i : j;
	}
}

/* Access to the value of pair element `e` of predefined pair type pt. */
static long double pair_get(MPI_Datatype pt, const void *base, int *idx)
{
	if (pt == MPI_FLOAT_INT) {
		const struct rc_pair_FLOAT_INT *p = base;
		*idx = p->i;
		return p->v;
	} else if (pt == MPI_DOUBLE_INT) {
		const struct rc_pair_DOUBLE_INT *p = base;
		*idx = p->i;
		return p->v;
	} else if (pt == MPI_LONG_INT) {
		const struct rc_pair_LONG_INT *p = base;
		*idx = p->i;
		return p->v;
	} else if (pt == MPI_2INT) {
		const struct rc_pair_2INT *p = base;
		*idx = p->i;
		return p->v;
	} else if (pt == MPI_SHORT_INT) {
		const struct rc_pair_SHORT_INT *p = base;
		*idx = p->i;
		return p->v;
	} else if (pt == MPI_2INTEGER) {
		const struct rc_pair_2INTEGER *p = base;
		*idx = p->i;
		return p->v;
	} else if (pt == MPI_2REAL) {
		const struct rc_pair_2REAL *p = base;
		*idx = (int)p->i;
		return p->v;
	} else if (pt == MPI_2DOUBLE_PRECISION) {
		const struct rc_pair_2DOUBLE_PRECISION *p = base;
		*idx = (int)p->i;
		return p->v;
	} else {
		const struct rc_pair_LONG_DOUBLE_INT *p = base;
		*idx = p->i;
		return p->v;
	}
}

static void pair_set(MPI_Datatype pt, void *base, long double v, int idx)
{
	if (pt == MPI_FLOAT_INT) {
		struct rc_pair_FLOAT_INT *p = base;
		p->v = (float)v;
		p->i = idx;
	} else if (pt == MPI_DOUBLE_INT) {
		struct rc_pair_DOUBLE_INT *p = base;
		p->v = (double)v;
		p->i = idx;
	} else if (pt == MPI_LONG_INT) {
		struct rc_pair_LONG_INT *p = base;
		p->v = (long)v;
		p->i = idx;
	} else if (pt == MPI_2INT) {
		struct rc_pair_2INT *p = base;
		p->v = (int)v;
		p->i = idx;
	} else if (pt == MPI_SHORT_INT) {
		struct rc_pair_SHORT_INT *p = base;
		p->v = (short)v;
		p->i = idx;
	} else if (pt == MPI_2INTEGER) {
		struct rc_pair_2INTEGER *p = base;
		p->v = (int32_t)v;
		p->i = idx;
	} else if (pt == MPI_2REAL) {
		struct rc_pair_2REAL *p = base;
		p->v = (float)v;
		p->i = (float)idx;
	} else if (pt == MPI_2DOUBLE_PRECISION) {
		struct rc_pair_2DOUBLE_PRECISION *p = base;
		p->v = (double)v;
		p->i = (double)idx;
	} else {
		struct rc_pair_LONG_DOUBLE_INT *p = base;
		p->v = v;
		p->i = idx;
	}
}

/*
 * Apply MAXLOC/MINLOC on `count` elements of dt, built from `k` pairs per
 * element at byte offsets offs[] (in the element), element stride ext;
 * buffers offset by `mis` bytes from an aligned allocation (then pairs are
 * staged through aligned copies for the test's own access).
 */
static void loc_check(MPI_Datatype pt, MPI_Datatype dt, size_t count, int k,
		      const ptrdiff_t *offs, ptrdiff_t ext, size_t mis)
{
	size_t esz = (size_t)rc_dt_extent(pt), span, e;
	_Alignas(32) unsigned char tmp[64];
	unsigned char *in, *io, *gap;
	long double u, v, w;
	int i, j, kk, q, pass;

	span = count * (size_t)ext + 64;
	in = amalloc(span + 64);
	io = amalloc(span + 64);
	gap = malloc(span);
	for (pass = 0; pass < 2; pass++) {
		MPI_Op op = pass ? MPI_MINLOC : MPI_MAXLOC;

		memset(in, 0xa5, span + 64);
		memset(io, 0x5a, span + 64);
		/* values 0..3 (many ties), indices scattered */
		q = 0;
		for (e = 0; e < count; e++)
			for (kk = 0; kk < k; kk++, q++) {
				memset(tmp, 0, sizeof(tmp));
				/* equal values at every other position or
				 * so, with the lower index on either side */
				pair_set(pt, tmp, q % 4, (q * 7) % 11);
				memcpy(in + mis + e * ext + offs[kk], tmp, esz);
				pair_set(pt, tmp, (q / 2) % 4, (q * 5) % 13);
				memcpy(io + mis + e * ext + offs[kk], tmp, esz);
			}
		memcpy(gap, io, span);
		rc_op_apply(op, in + mis, io + mis, count, dt);
		q = 0;
		for (e = 0; e < count; e++)
			for (kk = 0; kk < k; kk++, q++) {
				size_t at = mis + e * ext + offs[kk];
				int got_i, want_i;

				memcpy(tmp, in + at, esz);
				u = pair_get(pt, tmp, &i);
				memcpy(tmp, gap + at, esz);
				v = pair_get(pt, tmp, &j);
				loc_ref(!pass, u, i, v, j, &w, &want_i);
				memcpy(tmp, io + at, esz);
				ck_assert_msg(pair_get(pt, tmp, &got_i) == w &&
						      got_i == want_i,
					      "pair %zu/%d", e, kk);
				/* mark the data bytes as checked */
				memcpy(tmp, gap + at, esz);
				memcpy(io + at, tmp, esz);
			}
		/* with the checked pairs restored, nothing else changed:
		 * gaps between pairs and the holes inside them */
		ck_assert_mem_eq(io, gap, span);
	}
	free(in);
	free(io);
	free(gap);
}

START_TEST(test_loc_predefined)
{
	MPI_Datatype pt = pairs[_i];
	ptrdiff_t off0 = 0;

	loc_check(pt, pt, 1, 1, &off0, rc_dt_extent(pt), 0);
	loc_check(pt, pt, 50, 1, &off0, rc_dt_extent(pt), 0);
	/* misaligned buffers: not the struct kernel */
	loc_check(pt, pt, 50, 1, &off0, rc_dt_extent(pt), 1);
}
END_TEST

START_TEST(test_loc_derived)
{
	MPI_Datatype pt = pairs[_i], t;
	ptrdiff_t ext = rc_dt_extent(pt), offs[8];
	int k;

	/* contiguous(3) */
	ck_assert_int_eq(MPI_Type_contiguous(3, pt, &t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
	for (k = 0; k < 3; k++)
		offs[k] = k * ext;
	loc_check(pt, t, 40, 3, offs, rc_dt_extent(t), 0);
	MPI_Type_free(&t);
	/* vector with gaps: chunked path, gaps untouched */
	ck_assert_int_eq(MPI_Type_vector(2, 2, 3, pt, &t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
	offs[0] = 0;
	offs[1] = ext;
	offs[2] = 3 * ext;
	offs[3] = 4 * ext;
	loc_check(pt, t, 300, 4, offs, rc_dt_extent(t), 0);
	MPI_Type_free(&t);
	/* a dup of the pair type: the struct kernel again */
	ck_assert_int_eq(MPI_Type_dup(pt, &t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
	offs[0] = 0;
	loc_check(pt, t, 20, 1, offs, ext, 0);
	MPI_Type_free(&t);
}
END_TEST

/* The tie rule, spelled out: equal values keep the lower index. */
START_TEST(test_loc_ties)
{
	struct rc_pair_DOUBLE_INT a[3] = { { 1.0, 5 }, { 2.0, 9 }, { 3.0, 1 } };
	struct rc_pair_DOUBLE_INT b[3] = { { 1.0, 2 }, { 2.0, 4 }, { 1.0, 0 } };
	struct rc_pair_2INT c = { 7, 3 }, d = { 7, 8 };

	rc_op_apply(MPI_MAXLOC, a, b, 3, MPI_DOUBLE_INT);
	ck_assert(b[0].v == 1.0 && b[0].i == 2);
	ck_assert(b[1].v == 2.0 && b[1].i == 4);
	ck_assert(b[2].v == 3.0 && b[2].i == 1);
	rc_op_apply(MPI_MINLOC, &c, &d, 1, MPI_2INT);
	ck_assert_int_eq(d.v, 7);
	ck_assert_int_eq(d.i, 3);
}
END_TEST

/* ---- derived types: the three paths, gaps untouched ---------------------- */

/*
 * dt = hvector(nblk, blen, stride bytes) of double, applied with SUM at
 * buffer offset mis; reference over the element addresses.
 */
static void derived_sum(int nblk, int blen, MPI_Aint stride, size_t count,
			size_t mis)
{
	MPI_Datatype t;
	size_t ext, span, e, b, j, at;
	unsigned char *in, *io, *want;
	double x, y;

	ck_assert_int_eq(MPI_Type_create_hvector(nblk, blen, stride,
						 MPI_DOUBLE, &t),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
	ext = (size_t)rc_dt_extent(t);
	span = count * ext + mis + 16;
	in = amalloc(span);
	io = amalloc(span);
	want = malloc(span);
	for (e = 0; e < span; e++) {
		in[e] = (unsigned char)(e * 3);
		io[e] = (unsigned char)(e * 5 + 1);
	}
	/* small integral doubles at every element address */
	for (e = 0; e < count; e++)
		for (b = 0; b < (size_t)nblk; b++)
			for (j = 0; j < (size_t)blen; j++) {
				at = mis + e * ext + b * (size_t)stride + j * 8;
				x = (double)((e + b + j) % 17);
				y = (double)((e * 3 + j) % 13);
				memcpy(in + at, &x, 8);
				memcpy(io + at, &y, 8);
			}
	memcpy(want, io, span);
	for (e = 0; e < count; e++)
		for (b = 0; b < (size_t)nblk; b++)
			for (j = 0; j < (size_t)blen; j++) {
				at = mis + e * ext + b * (size_t)stride + j * 8;
				memcpy(&x, in + at, 8);
				memcpy(&y, want + at, 8);
				y += x;
				memcpy(want + at, &y, 8);
			}
	rc_op_apply(MPI_SUM, in + mis, io + mis, count, t);
	ck_assert_mem_eq(io, want, span);
	free(in);
	free(io);
	free(want);
	MPI_Type_free(&t);
}

START_TEST(test_derived_paths)
{
	/* long blocks, aligned: one kernel call per block */
	derived_sum(4, 20, 200, 3, 0);
	/* short blocks: chunked, crossing many 4 KiB chunks */
	derived_sum(1000, 1, 16, 3, 0);
	/* misaligned buffer: chunked */
	derived_sum(4, 20, 200, 3, 1);
	derived_sum(3, 2, 24, 5, 4);
	/* contiguous (stride == block): the single-span path, and misaligned */
	derived_sum(3, 2, 16, 4, 0);
	derived_sum(3, 2, 16, 4, 3);
	/* misaligned stride inside the type, short and long blocks */
	derived_sum(5, 3, 27, 2, 0);
	derived_sum(4, 20, 201, 2, 0);
	/* negative stride */
	derived_sum(3, 2, -32, 2, 64);
}
END_TEST

START_TEST(test_replace_noop)
{
	int in[6] = { 1, 2, 3, 4, 5, 6 }, io[6] = { 9, 9, 9, 9, 9, 9 };
	MPI_Datatype t;

	ck_assert_int_eq(MPI_Type_vector(3, 1, 2, MPI_INT, &t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
	rc_op_apply(MPI_NO_OP, in, io, 1, t);
	ck_assert_int_eq(io[0], 9);
	rc_op_apply(MPI_REPLACE, in, io, 1, t);
	ck_assert_int_eq(io[0], 1);
	ck_assert_int_eq(io[1], 9);
	ck_assert_int_eq(io[2], 3);
	ck_assert_int_eq(io[3], 9);
	ck_assert_int_eq(io[4], 5);
	rc_op_apply(MPI_REPLACE, in, io, 6, MPI_INT);
	ck_assert_mem_eq(in, io, sizeof(in));
	MPI_Type_free(&t);
}
END_TEST

/* ---- user ops ------------------------------------------------------------ */

static int calls;
static MPI_Datatype seen_dt;
static int seen_len;

static void user_sum(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
	int *a = invec, *b = inoutvec, i, n = *len;
	MPI_Aint lb, ext;

	calls++;
	seen_dt = *dt;
	seen_len = *len;
	/* walk the datatype the way a user function would */
	MPI_Type_get_extent(*dt, &lb, &ext);
	n *= (int)(ext / (MPI_Aint)sizeof(int));
	for (i = 0; i < n; i++)
		b[i] += a[i];
}

/* non-commutative: inout = 10 * in + inout, so order is visible */
static void user_shift(void *invec, void *inoutvec, int *len,
		       MPI_Datatype *dt)
{
	long *a = invec, *b = inoutvec;
	int i;

	(void)dt;
	calls++;
	for (i = 0; i < *len; i++)
		b[i] = 10 * a[i] + b[i];
}

START_TEST(test_user_ops)
{
	int a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, b[8] = { 0 };
	long x[3] = { 1, 2, 3 }, y[3] = { 4, 5, 6 };
	MPI_Op sum, shift, h;
	MPI_Datatype t;
	int commute;

	ck_assert_int_eq(MPI_Op_create(user_sum, 1, &sum), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Op_create(user_shift, 0, &shift), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Op_commutative(sum, &commute), MPI_SUCCESS);
	ck_assert_int_eq(commute, 1);
	ck_assert_int_eq(MPI_Op_commutative(shift, &commute), MPI_SUCCESS);
	ck_assert_int_eq(commute, 0);
	ck_assert_int_eq(MPI_Op_commutative(MPI_SUM, &commute), MPI_SUCCESS);
	ck_assert_int_eq(commute, 1);

	ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
	calls = 0;
	ck_assert_int_eq(MPI_Reduce_local(a, b, 4, t, sum), MPI_SUCCESS);
	ck_assert_int_eq(calls, 1);
	ck_assert_ptr_eq(seen_dt, t);
	ck_assert_int_eq(seen_len, 4);
	ck_assert_int_eq(b[7], 8);
	ck_assert_int_eq(MPI_Reduce_local(a, b, 4, t, sum), MPI_SUCCESS);
	ck_assert_int_eq(b[7], 16);

	calls = 0;
	ck_assert_int_eq(MPI_Reduce_local(x, y, 3, MPI_LONG, shift),
			 MPI_SUCCESS);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(y[0], 14);
	ck_assert_int_eq(y[2], 36);
	/* zero count: the function is not called */
	calls = 0;
	ck_assert_int_eq(MPI_Reduce_local(x, y, 0, MPI_LONG, shift),
			 MPI_SUCCESS);
	ck_assert_int_eq(calls, 0);

	/* freed while a reduction holds it: still usable */
	h = shift;
	rc_op_retain(h);
	ck_assert_int_eq(MPI_Op_free(&shift), MPI_SUCCESS);
	ck_assert_ptr_eq(shift, MPI_OP_NULL);
	ck_assert(rc_op_ok(h));
	rc_op_apply(h, x, y, 1, MPI_LONG);
	ck_assert_int_eq(y[0], 24);
	rc_op_release(h);

	ck_assert_int_eq(MPI_Op_free(&sum), MPI_SUCCESS);
	MPI_Type_free(&t);
}
END_TEST

START_TEST(test_op_errors)
{
	int a[4] = { 0 }, b[4] = { 0 };
	MPI_Op op = MPI_SUM;
	MPI_Datatype t;
	struct rc_op junk;
	int commute;

	memset(&junk, 0, sizeof(junk));
	ck_assert_int_eq(MPI_Op_free(&op), MPI_ERR_OP);
	ck_assert_ptr_eq(op, MPI_SUM);
	op = MPI_OP_NULL;
	ck_assert_int_eq(MPI_Op_free(&op), MPI_ERR_OP);
	ck_assert_int_eq(MPI_Op_free(NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Op_create(NULL, 1, &op), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Op_create(user_sum, 1, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP);
	ck_assert_int_eq(MPI_Op_commutative(&junk, &commute), MPI_ERR_OP);
	ck_assert_int_eq(MPI_Op_commutative(MPI_MAX, NULL), MPI_ERR_ARG);

	ck_assert_int_eq(MPI_Reduce_local(a, b, -1, MPI_INT, MPI_SUM),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Reduce_local(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Reduce_local(a, b, 1, MPI_INT, MPI_OP_NULL),
			 MPI_ERR_OP);
	ck_assert_int_eq(MPI_Reduce_local(a, b, 1, MPI_INT, &junk), MPI_ERR_OP);
	ck_assert_int_eq(MPI_Reduce_local(a, b, 1, MPI_C_BOOL, MPI_SUM),
			 MPI_ERR_OP);
	ck_assert_int_eq(MPI_Reduce_local(a, b, 1, MPI_INT, MPI_MAXLOC),
			 MPI_ERR_OP);
	ck_assert_int_eq(MPI_Reduce_local(a, b, 1, MPI_2INT, MPI_SUM),
			 MPI_ERR_OP);
	ck_assert_int_eq(MPI_Reduce_local(a, b, 1, MPI_FLOAT, MPI_BAND),
			 MPI_ERR_OP);
	ck_assert_int_eq(MPI_Reduce_local(a, b, 1, MPI_WCHAR, MPI_MAX),
			 MPI_ERR_OP);
	ck_assert_int_eq(MPI_Reduce_local(a, b, 1, MPI_C_DOUBLE_COMPLEX,
					  MPI_MAX),
			 MPI_ERR_OP);
	ck_assert_int_eq(MPI_Reduce_local(MPI_IN_PLACE, b, 1, MPI_INT,
					  MPI_SUM),
			 MPI_ERR_BUFFER);
	/* buffers whose bytes meet, as MPI_Reduce refuses them; untouched */
	a[0] = a[1] = a[2] = 1;
	ck_assert_int_eq(MPI_Reduce_local(a, a, 1, MPI_INT, MPI_SUM),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Reduce_local(a, a + 1, 2, MPI_INT, MPI_SUM),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(MPI_Reduce_local(a + 1, a, 2, MPI_INT, MPI_SUM),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(a[0] + a[1] + a[2], 3);
	/* adjacent halves of one array, and zero counts, are fine */
	ck_assert_int_eq(MPI_Reduce_local(a, a + 2, 2, MPI_INT, MPI_SUM),
			 MPI_SUCCESS);
	ck_assert_int_eq(a[2], 2);
	ck_assert_int_eq(MPI_Reduce_local(a, a, 0, MPI_INT, MPI_SUM),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Reduce_local(a, b, 1, t, MPI_SUM), MPI_ERR_TYPE);
	MPI_Type_free(&t);
}
END_TEST

START_TEST(test_op_fatal)
{
	MPI_Op op = MPI_MAX;

	test_world.errh = &rc_mpi_errors_are_fatal;
	MPI_Op_free(&op);
	ck_abort_msg("MPI_Op_free(MPI_MAX) returned under ERRORS_ARE_FATAL");
}
END_TEST

static Suite *op_suite(void)
{
	Suite *s = suite_create("op");
	TCase *tc;

	tc = tcase_create("predefined");
	tcase_add_checked_fixture(tc, api_setup, api_teardown);
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, test_valid_matrix);
	tcase_add_test(tc, test_valid_derived);
	tcase_add_loop_test(tc, test_predefined_ops, 0, NTYPES);
	tcase_add_test(tc, test_int_wrap);
	tcase_add_test(tc, test_char_ext);
	suite_add_tcase(s, tc);

	tc = tcase_create("loc");
	tcase_add_checked_fixture(tc, api_setup, api_teardown);
	tcase_set_timeout(tc, TMO);
	tcase_add_loop_test(tc, test_loc_predefined, 0, NPAIRS);
	tcase_add_loop_test(tc, test_loc_derived, 0, NPAIRS);
	tcase_add_test(tc, test_loc_ties);
	suite_add_tcase(s, tc);

	tc = tcase_create("derived");
	tcase_add_checked_fixture(tc, api_setup, api_teardown);
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, test_derived_paths);
	tcase_add_test(tc, test_replace_noop);
	suite_add_tcase(s, tc);

	tc = tcase_create("user");
	tcase_add_checked_fixture(tc, api_setup, api_teardown);
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, test_user_ops);
	tcase_add_test(tc, test_op_errors);
	tcase_add_exit_test(tc, test_op_fatal, MPI_ERR_OP);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return api_run_suite(op_suite());
}
