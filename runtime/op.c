/*
 * op.c - reduction operations: the predefined op objects, one typed kernel
 * per (op, basic type) pair the standard allows, and user ops.
 *
 * Kernels are generated from X-macro lists of the type classes of MPI-3.1
 * 5.9.2 (C integer, Fortran integer, multi-language, floating point,
 * complex, logical, byte), plus two extensions that Open MPI and MPICH
 * both accept: MPI_CHAR takes every C integer op, as the platform's
 * `char` (benchmarks reduce MPI_CHAR with MPI_SUM), and the logical ops
 * take the multi-language types (MPI_AINT, MPI_OFFSET, MPI_COUNT; MPICH's
 * test suite reduces them so). Each is a plain loop over a typed array,
 * inout[i] = in[i] op inout[i], which the compiler vectorises. Signed
 * integer SUM and PROD are computed in the matching unsigned type, so
 * overflow wraps instead of being undefined. The table op_tab[op][basic]
 * (op_tab_avx2 where the CPU has AVX2) is both the dispatch and the
 * validity check (NULL: MPI_ERR_OP).
 *
 * rc_op_apply() finds the cheapest path for (count, dt):
 *   - contiguous data, aligned: one kernel call over all of it;
 *   - non-contiguous with long blocks, aligned: one kernel call per block;
 *   - otherwise (short blocks, misaligned buffers, pair types in derived
 *     layouts): pack both operands by 4 KiB chunks into aligned scratch
 *     buffers, run the kernel on the packed arrays, unpack the result.
 * Pair types (MAXLOC/MINLOC) have two kernels: one on the C struct layout
 * (the predefined pair type and its equivalents), one on the packed layout
 * (value then int, no padding), used by the chunked path.
 * No path calls a function pointer per element.
 */
#if defined(__GNUC__) && !defined(__clang__)
/* gcc's -O2 cost model ("very cheap") leaves loops of unknown trip count
 * scalar; the kernels are the one place that must vectorise. */
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif
#include <assert.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "dtype.h"
#include "op.h"
#include "status.h"

/* ---- predefined ops ----------------------------------------------------- */

/* symbol, kind, name, commutative */
#define RC_OP_PREDEF_TABLE(X)                              \
	X(rc_mpi_max, MAX, "MPI_MAX", true)                \
	X(rc_mpi_min, MIN, "MPI_MIN", true)                \
	X(rc_mpi_sum, SUM, "MPI_SUM", true)                \
	X(rc_mpi_prod, PROD, "MPI_PROD", true)             \
	X(rc_mpi_land, LAND, "MPI_LAND", true)             \
	X(rc_mpi_band, BAND, "MPI_BAND", true)             \
	X(rc_mpi_lor, LOR, "MPI_LOR", true)                \
	X(rc_mpi_bor, BOR, "MPI_BOR", true)                \
	X(rc_mpi_lxor, LXOR, "MPI_LXOR", true)             \
	X(rc_mpi_bxor, BXOR, "MPI_BXOR", true)             \
	X(rc_mpi_maxloc, MAXLOC, "MPI_MAXLOC", true)       \
	X(rc_mpi_minloc, MINLOC, "MPI_MINLOC", true)       \
	/* the result depends on the operands' order */    \
	X(rc_mpi_replace, REPLACE, "MPI_REPLACE", false)   \
	X(rc_mpi_no_op, NO_OP, "MPI_NO_OP", false)

#define RC_X_OP_OBJ(sym, k, str, comm)                   \
	struct rc_op sym = {.h = RC_HOBJ_INIT(RC_HK_OP), \
			    .refcount = 1,               \
			    .predefined = true,          \
			    .commute = comm,             \
			    .kind = RC_OP_##k,           \
			    .name = str};
RC_OP_PREDEF_TABLE(RC_X_OP_OBJ)
#undef RC_X_OP_OBJ

struct rc_op *const rc_op_predefined[] = {
#define RC_X_OP_LIST(sym, k, str, comm) &sym,
	RC_OP_PREDEF_TABLE(RC_X_OP_LIST)
#undef RC_X_OP_LIST
};
const size_t rc_op_npredefined =
	sizeof(rc_op_predefined) / sizeof(rc_op_predefined[0]);

int rc_op_create(MPI_User_function *fn, bool commute, struct rc_op **opp)
{
	struct rc_op *op = rc_hobj_new(RC_HK_OP, sizeof(*op));

	if (!op)
		return RC_ERR_NOMEM;
	op->refcount = 1;
	op->commute = commute;
	op->kind = RC_OP_USER;
	op->user_fn = (void *)fn;
	strcpy(op->name, "user op");
	*opp = op;
	return RC_OK;
}

void rc_op_retain(struct rc_op *op)
{
	if (op->predefined)
		return;
	__atomic_add_fetch(&op->refcount, 1, __ATOMIC_RELAXED);
}

void rc_op_release(struct rc_op *op)
{
	if (op->predefined)
		return;
	assert(__atomic_load_n(&op->refcount, __ATOMIC_RELAXED) > 0);
	if (__atomic_sub_fetch(&op->refcount, 1, __ATOMIC_ACQ_REL) == 0)
		rc_hobj_free(RC_HK_OP, op);
}

/* ---- type classes (MPI-3.1 5.9.2): kind, C type, arithmetic type ------ */

#define OP_CINT(X)                                           \
	X(SIGNED_CHAR, signed char, unsigned)                \
	X(UNSIGNED_CHAR, unsigned char, unsigned)            \
	X(SHORT, short, unsigned)                            \
	X(UNSIGNED_SHORT, unsigned short, unsigned)          \
	X(INT, int, unsigned)                                \
	X(UNSIGNED, unsigned, unsigned)                      \
	X(LONG, long, unsigned long)                         \
	X(UNSIGNED_LONG, unsigned long, unsigned long)       \
	X(LONG_LONG, long long, unsigned long long)          \
	X(UNSIGNED_LONG_LONG, unsigned long long, unsigned long long) \
	X(INT8_T, int8_t, unsigned)                          \
	X(INT16_T, int16_t, unsigned)                        \
	X(INT32_T, int32_t, uint32_t)                        \
	X(INT64_T, int64_t, uint64_t)                        \
	X(UINT8_T, uint8_t, unsigned)                        \
	X(UINT16_T, uint16_t, unsigned)                      \
	X(UINT32_T, uint32_t, uint32_t)                      \
	X(UINT64_T, uint64_t, uint64_t)

/* Fortran integer */
#define OP_FINT(X)                                           \
	X(INTEGER, int32_t, uint32_t)                        \
	X(INTEGER1, int8_t, unsigned)                        \
	X(INTEGER2, int16_t, unsigned)                       \
	X(INTEGER4, int32_t, uint32_t)                       \
	X(INTEGER8, int64_t, uint64_t)

/* Extension (not in the standard's C integer class, accepted by Open MPI
 * and MPICH): MPI_CHAR as the platform's char, signed or not. */
#define OP_CHAR_EXT(X) X(CHAR, char, unsigned)

/* MPI_AINT, MPI_OFFSET, MPI_COUNT */
#define OP_MULTI(X)                                          \
	X(AINT, MPI_Aint, uintptr_t)                         \
	X(OFFSET, MPI_Offset, unsigned long long)            \
	X(COUNT, MPI_Count, unsigned long long)

#define OP_FLOAT(X)                                          \
	X(FLOAT, float, float)                               \
	X(DOUBLE, double, double)                            \
	X(LONG_DOUBLE, long double, long double)             \
	X(REAL, float, float)                                \
	X(DOUBLE_PRECISION, double, double)                  \
	X(REAL4, float, float)                               \
	X(REAL8, double, double)

#define OP_COMPLEX(X)                                        \
	X(C_FLOAT_COMPLEX, float _Complex, float _Complex)   \
	X(C_DOUBLE_COMPLEX, double _Complex, double _Complex) \
	X(C_LONG_DOUBLE_COMPLEX, long double _Complex, long double _Complex) \
	X(COMPLEX, float _Complex, float _Complex)           \
	X(DOUBLE_COMPLEX, double _Complex, double _Complex)  \
	X(COMPLEX8, float _Complex, float _Complex)          \
	X(COMPLEX16, double _Complex, double _Complex)       \
	X(CXX_FLOAT_COMPLEX, float _Complex, float _Complex) \
	X(CXX_DOUBLE_COMPLEX, double _Complex, double _Complex) \
	X(CXX_LONG_DOUBLE_COMPLEX, long double _Complex, long double _Complex)

/* C's _Bool, C++'s bool, Fortran's LOGICAL (true: non-zero; results are
 * 1 or 0) */
#define OP_LOGICAL(X)                                        \
	X(C_BOOL, _Bool, _Bool)                              \
	X(CXX_BOOL, _Bool, _Bool)                            \
	X(LOGICAL, int32_t, int32_t)

#define OP_BYTE(X) X(BYTE, unsigned char, unsigned)

/* ---- kernels ----------------------------------------------------------- */

typedef void (*op_kernel)(const void *restrict in, void *restrict inout,
			  size_t n);

/* x86-64: each typed kernel is also built for AVX2 (twice the elements
 * per instruction of the baseline's SSE2), and a constructor picks that
 * table when the CPU has it (op_kt). Element-wise ops round alike in both,
 * so results do not depend on the CPU. Measured: an accumulate of 64 KiB
 * of MPI_DOUBLE on a shared-memory window, 2.2 -> 0.9 us
 * (bench/RESULTS.md). Not an ifunc (target_clones): its resolver runs
 * while the dynamic linker relocates, before ThreadSanitizer's runtime
 * is up (a SIGSEGV there), and musl has none. */
#if defined(__x86_64__) && defined(__GNUC__)
#define OP_AVX2 1
#else
#define OP_AVX2 0
#endif

/* clang-format off */
#define OP_KBODY(T, A, expr)                                    \
	{                                                       \
		const T *restrict in = vin;                     \
		T *restrict io = vio;                           \
		size_t i;                                       \
                                                                \
		for (i = 0; i < n; i++) {                       \
			const T a = in[i], b = io[i];           \
			io[i] = (T)(expr);                      \
		}                                               \
	}
#if OP_AVX2
#define OP_KDEF_AVX2(op, N, T, A, expr)                              \
	__attribute__((target("avx2"))) static void                  \
	op_##op##_##N##_avx2(const void *restrict vin,               \
			     void *restrict vio, size_t n)           \
		OP_KBODY(T, A, expr)
#else
#define OP_KDEF_AVX2(op, N, T, A, expr)
#endif
#define OP_KDEF(op, N, T, A, expr)                                   \
	static void op_##op##_##N(const void *restrict vin,         \
				  void *restrict vio, size_t n)      \
		OP_KBODY(T, A, expr)                                 \
	OP_KDEF_AVX2(op, N, T, A, expr)

#define OP_K_MAX(N, T, A) OP_KDEF(max, N, T, A, a > b ? a : b)
#define OP_K_MIN(N, T, A) OP_KDEF(min, N, T, A, a < b ? a : b)
#define OP_K_SUM(N, T, A) OP_KDEF(sum, N, T, A, (A)a + (A)b)
#define OP_K_PROD(N, T, A) OP_KDEF(prod, N, T, A, (A)a * (A)b)
#define OP_K_LAND(N, T, A) OP_KDEF(land, N, T, A, (a != 0) && (b != 0))
#define OP_K_LOR(N, T, A) OP_KDEF(lor, N, T, A, (a != 0) || (b != 0))
#define OP_K_LXOR(N, T, A) OP_KDEF(lxor, N, T, A, (a != 0) != (b != 0))
#define OP_K_BAND(N, T, A) OP_KDEF(band, N, T, A, (A)a & (A)b)
#define OP_K_BOR(N, T, A) OP_KDEF(bor, N, T, A, (A)a | (A)b)
#define OP_K_BXOR(N, T, A) OP_KDEF(bxor, N, T, A, (A)a ^ (A)b)

/* Which op is defined on which type class, once: OP_ALL(OP_K) makes the
 * kernels, OP_ALL(OP_T) the tables' entries (M##_MAX: OP_K_MAX, ...).
 *   MAX, MIN: C integer, Fortran integer, multi-language, floating point;
 *   SUM, PROD: those and complex;
 *   LAND, LOR, LXOR: C integer, logical; and multi-language (extension);
 *   BAND, BOR, BXOR: C integer, Fortran integer, multi-language, byte;
 *   the MPI_CHAR extension: every C integer op. */
#define OP_ALL(M)                                                         \
	OP_CINT(M##_MAX) OP_FINT(M##_MAX) OP_MULTI(M##_MAX)               \
	OP_FLOAT(M##_MAX)                                                 \
	OP_CINT(M##_MIN) OP_FINT(M##_MIN) OP_MULTI(M##_MIN)               \
	OP_FLOAT(M##_MIN)                                                 \
	OP_CINT(M##_SUM) OP_FINT(M##_SUM) OP_MULTI(M##_SUM)               \
	OP_FLOAT(M##_SUM) OP_COMPLEX(M##_SUM)                             \
	OP_CINT(M##_PROD) OP_FINT(M##_PROD) OP_MULTI(M##_PROD)            \
	OP_FLOAT(M##_PROD) OP_COMPLEX(M##_PROD)                           \
	OP_CINT(M##_LAND) OP_LOGICAL(M##_LAND) OP_MULTI(M##_LAND)         \
	OP_CINT(M##_LOR) OP_LOGICAL(M##_LOR) OP_MULTI(M##_LOR)            \
	OP_CINT(M##_LXOR) OP_LOGICAL(M##_LXOR) OP_MULTI(M##_LXOR)         \
	OP_CINT(M##_BAND) OP_FINT(M##_BAND) OP_MULTI(M##_BAND)            \
	OP_BYTE(M##_BAND)                                                 \
	OP_CINT(M##_BOR) OP_FINT(M##_BOR) OP_MULTI(M##_BOR)               \
	OP_BYTE(M##_BOR)                                                  \
	OP_CINT(M##_BXOR) OP_FINT(M##_BXOR) OP_MULTI(M##_BXOR)            \
	OP_BYTE(M##_BXOR)                                                 \
	OP_CHAR_EXT(M##_MAX) OP_CHAR_EXT(M##_MIN) OP_CHAR_EXT(M##_SUM)    \
	OP_CHAR_EXT(M##_PROD) OP_CHAR_EXT(M##_LAND)                       \
	OP_CHAR_EXT(M##_LOR) OP_CHAR_EXT(M##_LXOR)                        \
	OP_CHAR_EXT(M##_BAND) OP_CHAR_EXT(M##_BOR)                        \
	OP_CHAR_EXT(M##_BXOR)

OP_ALL(OP_K)

/*
 * MAXLOC / MINLOC: (u, i) op (v, j) = (max or min of u and v, the index of
 * the winner; the lower index on a tie). `better` is > for MAXLOC, < for
 * MINLOC. Struct layout and packed layout (value, then int).
 */
#define OP_KLOC(op, better, pn, vtype, itype)                              \
	static void op_##op##_##pn(const void *restrict vin,              \
				   void *restrict vio, size_t n)           \
	{                                                                  \
		const struct rc_pair_##pn *restrict in = vin;              \
		struct rc_pair_##pn *restrict io = vio;                    \
		size_t i;                                                  \
                                                                           \
		for (i = 0; i < n; i++) {                                  \
			if (in[i].v better io[i].v) {                      \
				io[i].v = in[i].v;                         \
				io[i].i = in[i].i;                         \
			} else if (in[i].v == io[i].v && in[i].i < io[i].i) { \
				io[i].i = in[i].i;                         \
			}                                                  \
		}                                                          \
	}                                                                  \
	static void op_p##op##_##pn(const void *restrict vin,             \
				    void *restrict vio, size_t n)          \
	{                                                                  \
		const char *in = vin;                                      \
		char *io = vio;                                            \
		const size_t vs = sizeof(vtype), es = vs + sizeof(itype);  \
		vtype u, v;                                                \
		itype iu, iv;                                              \
		size_t i;                                                  \
                                                                           \
		for (i = 0; i < n; i++, in += es, io += es) {              \
			memcpy(&u, in, vs);                                \
			memcpy(&v, io, vs);                                \
			memcpy(&iu, in + vs, sizeof(itype));               \
			memcpy(&iv, io + vs, sizeof(itype));               \
			if (u better v)                                    \
				memcpy(io, in, es);                        \
			else if (u == v && iu < iv)                        \
				memcpy(io + vs, &iu, sizeof(itype));       \
		}                                                          \
	}
#define OP_K_LOC(pn, vtype, vb, itype, ib, str) \
	OP_KLOC(maxloc, >, pn, vtype, itype)    \
	OP_KLOC(minloc, <, pn, vtype, itype)
RC_PAIR_TABLE(OP_K_LOC)

/* ---- dispatch tables ---------------------------------------------------- */

#define OP_T(K, k, N) [RC_OP_##K][RC_BASIC_##N] = OP_NAME(k, N),
#define OP_T_MAX(N, T, A) OP_T(MAX, max, N)
#define OP_T_MIN(N, T, A) OP_T(MIN, min, N)
#define OP_T_SUM(N, T, A) OP_T(SUM, sum, N)
#define OP_T_PROD(N, T, A) OP_T(PROD, prod, N)
#define OP_T_LAND(N, T, A) OP_T(LAND, land, N)
#define OP_T_LOR(N, T, A) OP_T(LOR, lor, N)
#define OP_T_LXOR(N, T, A) OP_T(LXOR, lxor, N)
#define OP_T_BAND(N, T, A) OP_T(BAND, band, N)
#define OP_T_BOR(N, T, A) OP_T(BOR, bor, N)
#define OP_T_BXOR(N, T, A) OP_T(BXOR, bxor, N)
/* (the pair kernels have one version) */
#define OP_T_LOC(pn, vtype, vb, itype, ib, str)             \
	[RC_OP_MAXLOC][RC_BASIC_##pn] = op_maxloc_##pn,     \
	[RC_OP_MINLOC][RC_BASIC_##pn] = op_minloc_##pn,
#define OP_TAB_BODY OP_ALL(OP_T) RC_PAIR_TABLE(OP_T_LOC)

/* The kernel on the memory layout; NULL: op not defined on that type. */
#define OP_NAME(k, N) op_##k##_##N
static const op_kernel op_tab[RC_OP_NO_OP + 1][RC_BASIC_NKINDS] = {
	OP_TAB_BODY
};
#undef OP_NAME

#if OP_AVX2
#define OP_NAME(k, N) op_##k##_##N##_avx2
static const op_kernel op_tab_avx2[RC_OP_NO_OP + 1][RC_BASIC_NKINDS] = {
	OP_TAB_BODY
};
#undef OP_NAME
#endif
/* clang-format on */

/* The table the kernels are called through: op_tab_avx2 where the CPU
 * has AVX2 (set before main and before any thread). */
static const op_kernel (*op_kt)[RC_BASIC_NKINDS] = op_tab;

#if OP_AVX2
__attribute__((constructor)) static void op_pick_table(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2"))
		op_kt = op_tab_avx2;
}
#endif

/* Pair kernels on the packed layout, [0] MAXLOC, [1] MINLOC. */
#define OP_TP_LOC(pn, vtype, vb, itype, ib, str)           \
	[0][RC_BASIC_##pn] = op_pmaxloc_##pn,              \
	[1][RC_BASIC_##pn] = op_pminloc_##pn,
static const op_kernel op_ptab[2][RC_BASIC_NKINDS] = {
	RC_PAIR_TABLE(OP_TP_LOC)
};

bool rc_op_valid_for(const struct rc_op *op, const struct rc_dtype *dt)
{
	if (!rc_op_ok(op) || !rc_dt_ok(dt))
		return false;
	switch (op->kind) {
	case RC_OP_USER:
	case RC_OP_REPLACE:
	case RC_OP_NO_OP:
		return true;
	default:
		return dt->basic != RC_BASIC_NONE && op->kind <= RC_OP_NO_OP &&
		       op_kt[op->kind][dt->basic];
	}
}

/* ---- apply ----------------------------------------------------------- */

#define OP_CHUNK 4096		/* scratch bytes per operand */
#define OP_BLOCK_MIN 64		/* mean block bytes for the per-block path */

static inline bool op_aligned(uintptr_t a, uintptr_t b, size_t align)
{
	return ((a | b) & (align - 1)) == 0;
}

/*
 * Apply kernel k (on packed arrays of esize-byte elements) by chunks: pack
 * both operands, combine, unpack the result into inout.
 */
static void op_chunked(op_kernel k, const void *in, void *inout, size_t count,
		       const struct rc_dtype *dt, size_t esize)
{
	_Alignas(64) unsigned char bi[OP_CHUNK], bo[OP_CHUNK];
	const size_t step = OP_CHUNK / esize * esize;
	size_t off = 0, n;

	while ((n = rc_dt_pack(dt, count, in, off, bi, step))) {
		rc_dt_pack(dt, count, inout, off, bo, n);
		k(bi, bo, n / esize);
		rc_dt_unpack(dt, count, inout, off, bo, n);
		off += n;
	}
}

/* One kernel call per block (blocks hold whole, aligned elements). */
static void op_blocks(op_kernel k, const void *in, void *inout, size_t count,
		      const struct rc_dtype *dt, size_t esize)
{
	const uintptr_t ext = (uintptr_t)rc_dt_extent(dt);
	uintptr_t pi = (uintptr_t)in, po = (uintptr_t)inout;
	struct rc_dt_block bl;
	size_t e, b;

	for (e = 0; e < count; e++, pi += ext, po += ext)
		for (b = 0; b < dt->nblocks; b++) {
			bl = rc_dt_block_at(dt, b);
			k((const void *)(pi + (uintptr_t)bl.disp),
			  (void *)(po + (uintptr_t)bl.disp), bl.len / esize);
		}
}

static void op_replace(const void *in, void *inout, size_t count,
		       const struct rc_dtype *dt)
{
	_Alignas(64) unsigned char buf[OP_CHUNK];
	size_t off = 0, n;

	if (rc_dt_is_contig(dt, count)) {
		memcpy(rc_dt_contig_ptr(dt, inout), rc_dt_contig_ptr(dt, in),
		       count * dt->size);
		return;
	}
	while ((n = rc_dt_pack(dt, count, in, off, buf, sizeof(buf)))) {
		rc_dt_unpack(dt, count, inout, off, buf, n);
		off += n;
	}
}

/* User functions take an int count: call in INT_MAX pieces. */
static void op_user(const struct rc_op *op, const void *in, void *inout,
		    size_t count, struct rc_dtype *dt)
{
	MPI_User_function *fn = (MPI_User_function *)op->user_fn;
	const uintptr_t ext = (uintptr_t)rc_dt_extent(dt);
	uintptr_t pi = (uintptr_t)in, po = (uintptr_t)inout;
	MPI_Datatype h;
	int len, n;

	while (count) {
		n = count > INT_MAX ? INT_MAX : (int)count;
		len = n;
		h = dt;
		fn((void *)pi, (void *)po, &len, &h);
		pi += (uintptr_t)n * ext;
		po += (uintptr_t)n * ext;
		count -= (size_t)n;
	}
}

/* the predefined datatype object of each pair kind */
#define OP_PAIR_OBJ_FLOAT_INT rc_mpi_float_int
#define OP_PAIR_OBJ_DOUBLE_INT rc_mpi_double_int
#define OP_PAIR_OBJ_LONG_INT rc_mpi_long_int
#define OP_PAIR_OBJ_2INT rc_mpi_2int
#define OP_PAIR_OBJ_SHORT_INT rc_mpi_short_int
#define OP_PAIR_OBJ_LONG_DOUBLE_INT rc_mpi_long_double_int
#define OP_PAIR_OBJ_2INTEGER rc_mpi_2integer
#define OP_PAIR_OBJ_2REAL rc_mpi_2real
#define OP_PAIR_OBJ_2DOUBLE_PRECISION rc_mpi_2double_precision

static void op_pair(const struct rc_op *op, const void *in, void *inout,
		    size_t count, const struct rc_dtype *dt)
{
	const enum rc_basic b = dt->basic;
	const size_t esize = rc_basic_size(b);
	const op_kernel kp = op_ptab[op->kind == RC_OP_MINLOC][b];
	const struct rc_dtype *pdt;

	/* C struct layout: one pair per element at offset 0, no other gaps
	 * (the predefined pair type, a dup of it, a contiguous(1) of it) */
	switch (b) {
#define OP_PDT(pn, vtype, vb, itype, ib, str) \
	case RC_BASIC_##pn:        \
		pdt = RC_PREDEF(MPI_Datatype, OP_PAIR_OBJ_##pn); \
		break;
		RC_PAIR_TABLE(OP_PDT)
#undef OP_PDT
	default:
		assert(0);
		return;
	}
	if (dt->size == esize && dt->true_lb == 0 &&
	    rc_dt_extent(dt) == rc_dt_extent(pdt) &&
	    op_aligned((uintptr_t)in, (uintptr_t)inout, pdt->align)) {
		op_kt[op->kind][b](in, inout, count);
		return;
	}
	if (rc_dt_is_contig(dt, count)) {
		kp(rc_dt_contig_ptr(dt, in), rc_dt_contig_ptr(dt, inout),
		   count * dt->size / esize);
		return;
	}
	op_chunked(kp, in, inout, count, dt, esize);
}

void rc_op_apply(const struct rc_op *op, const void *in, void *inout,
		 size_t count, struct rc_dtype *dt)
{
	enum rc_basic b;
	op_kernel k;
	size_t esize, align;
	const void *pi;
	void *po;

	if (!count)
		return;
	switch (op->kind) {
	case RC_OP_USER:
		op_user(op, in, inout, count, dt);
		return;
	case RC_OP_NO_OP:
		return;
	case RC_OP_REPLACE:
		op_replace(in, inout, count, dt);
		return;
	default:
		break;
	}
	if (!dt->size)
		return;
	b = dt->basic;
	assert(rc_op_valid_for(op, dt));
	if (rc_basic_is_pair(b)) {
		op_pair(op, in, inout, count, dt);
		return;
	}
	k = op_kt[op->kind][b];
	esize = rc_basic_size(b);
	align = rc_basic_align(b);
	if (rc_dt_is_contig(dt, count)) {
		pi = rc_dt_contig_ptr(dt, in);
		po = rc_dt_contig_ptr(dt, inout);
		if (op_aligned((uintptr_t)pi, (uintptr_t)po, align))
			k(pi, po, count * dt->size / esize);
		else
			op_chunked(k, in, inout, count, dt, esize);
		return;
	}
	if (dt->dalign >= align &&
	    op_aligned((uintptr_t)in, (uintptr_t)inout, align) &&
	    dt->size / dt->nblocks >= OP_BLOCK_MIN)
		op_blocks(k, in, inout, count, dt, esize);
	else
		op_chunked(k, in, inout, count, dt, esize);
}

void rc_op_apply_packed(const struct rc_op *op, enum rc_basic b,
			const void *in, void *inout, size_t n)
{
	_Alignas(64) unsigned char bi[OP_CHUNK], bo[OP_CHUNK];
	const size_t esize = rc_basic_size(b);
	size_t step, k;
	op_kernel kern;

	switch (op->kind) {
	case RC_OP_NO_OP:
		return;
	case RC_OP_REPLACE:
		memmove(inout, in, n * esize);
		return;
	default:
		break;
	}
	assert(op->kind != RC_OP_USER && op_kt[op->kind][b]);
	if (rc_basic_is_pair(b)) {
		/* the packed-layout kernels read through memcpy */
		op_ptab[op->kind == RC_OP_MINLOC][b](in, inout, n);
		return;
	}
	kern = op_kt[op->kind][b];
	if (op_aligned((uintptr_t)in, (uintptr_t)inout, rc_basic_align(b))) {
		kern(in, inout, n);
		return;
	}
	step = OP_CHUNK / esize;
	for (k = 0; k < n; k += step) {
		size_t m = n - k < step ? n - k : step;
		const char *pi = (const char *)in + k * esize;
		char *po = (char *)inout + k * esize;

		memcpy(bi, pi, m * esize);
		memcpy(bo, po, m * esize);
		kern(bi, bo, m);
		memcpy(po, bo, m * esize);
	}
}

struct rc_op *rc_op_of_kind(enum rc_op_kind k)
{
	static struct rc_op *const tab[RC_OP_NO_OP + 1] = {
#define RC_X_OP_PTR(sym, k, str, comm) [RC_OP_##k] = &sym,
		RC_OP_PREDEF_TABLE(RC_X_OP_PTR)
#undef RC_X_OP_PTR
	};

	return k > RC_OP_USER && k <= RC_OP_NO_OP ? tab[k] : NULL;
}
