/*
 * dtype.c - the datatype engine: predefined datatypes, the constructors
 * that flatten a type map once, at construction, and the pack/unpack engine
 * that moves any byte range of a packed stream.
 *
 * Representation. Every datatype, however it was built, is one element's
 * type map flattened into `blocks`: (disp, len) runs of data bytes relative
 * to the element's start, in type-map order (never sorted: a struct or an
 * indexed type with negative or decreasing displacements packs in the order
 * the user listed them), merged where one run ends exactly where the next
 * begins. `boff[i]` is the packed offset of block i (the prefix sum of the
 * lengths), so a byte of the packed stream is found by division (which
 * element) and a binary search (which block). A regular map (every block
 * as long, at one stride: a vector's shape, RC_DT_REGULAR) is kept
 * compact: its first block and the stride, whatever the count, so a vector
 * of 2^30 blocks costs what one of two does and its blocks are computed.
 * Beside the blocks lives the
 * type signature, run-length coded (`sig`), for MPI_Get_elements and
 * signature checks, and `basic`, the one basic kind the type is made of
 * (RC_BASIC_NONE when mixed), which says which reduction ops apply.
 *
 * Constructors all go through dt_build(): a list of (blocklength,
 * displacement, oldtype) entries; each entry appends `blocklength` copies of
 * the old type's blocks, a dense old type (one block as long as its extent)
 * as a single block, so contiguous(1e6, MPI_INT) is one block; a vector's
 * entries are all alike, so their bounds and sizes come from the first and
 * the last, and a dense old type's blocks from one run. Nothing keeps
 * a reference to the old types: a derived type owns its flattened copy.
 *
 * Bounds follow MPI-3.1 4.1: lb/ub are the minimum/maximum over the copies
 * of each old type's lb/ub; lb/ub set by MPI_Type_create_resized are
 * "sticky" (the standard's markers) and win over plain data bounds in any
 * type built from them; a struct's extent is rounded up to the largest
 * alignment of its basic types unless its ub is sticky (the epsilon of the
 * standard, which makes MPI_DOUBLE_INT-like structs match C). true_lb/true_ub
 * span the data bytes only. A subarray is a resized type with lb 0 and the
 * full array's extent.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "attr.h"
#include "copy.h"
#include "dtype.h"
#include "status.h"

/* ---- basic kinds -------------------------------------------------------- */

#define RC_X_TYPEDEF(name, ctype, str) typedef ctype rc_ct_##name;
RC_BASIC_TABLE(RC_X_TYPEDEF)
#undef RC_X_TYPEDEF

static const size_t dt_basic_size[RC_BASIC_NKINDS] = {
#define RC_X_SZ(name, ctype, str) [RC_BASIC_##name] = sizeof(ctype),
	RC_BASIC_TABLE(RC_X_SZ)
#undef RC_X_SZ
#define RC_X_PSZ(name, vtype, vb, itype, ib, str) \
	[RC_BASIC_##name] = sizeof(vtype) + sizeof(itype),
	RC_PAIR_TABLE(RC_X_PSZ)
#undef RC_X_PSZ
};

static const size_t dt_basic_align[RC_BASIC_NKINDS] = {
#define RC_X_AL(name, ctype, str) [RC_BASIC_##name] = _Alignof(ctype),
	RC_BASIC_TABLE(RC_X_AL)
#undef RC_X_AL
#define RC_X_PAL(name, vtype, vb, itype, ib, str) \
	[RC_BASIC_##name] = _Alignof(struct rc_pair_##name),
	RC_PAIR_TABLE(RC_X_PAL)
#undef RC_X_PAL
};

static const char *const dt_basic_name[RC_BASIC_NKINDS] = {
#define RC_X_NM(name, ctype, str) [RC_BASIC_##name] = str,
	RC_BASIC_TABLE(RC_X_NM)
#undef RC_X_NM
#define RC_X_PNM(name, vtype, vb, itype, ib, str) [RC_BASIC_##name] = str,
	RC_PAIR_TABLE(RC_X_PNM)
#undef RC_X_PNM
};

size_t rc_basic_size(enum rc_basic b)
{
	return b > RC_BASIC_NONE && b < RC_BASIC_NKINDS ? dt_basic_size[b] : 0;
}

size_t rc_basic_align(enum rc_basic b)
{
	return b > RC_BASIC_NONE && b < RC_BASIC_NKINDS ? dt_basic_align[b] : 1;
}

const char *rc_basic_name(enum rc_basic b)
{
	return b > RC_BASIC_NONE && b < RC_BASIC_NKINDS ? dt_basic_name[b] :
							 NULL;
}

/* ---- predefined datatypes ---------------------------------------------- */

#define DT_LOWBIT(x) ((x) & (~(x) + 1))
#define DT_DALIGN_MAX 64

static size_t dt_boff_zero[1];

/* symbol, kind: every non-pair predefined datatype of mpi.h */
#define RC_DT_PREDEF_TABLE(X)                                    \
	X(rc_mpi_char, CHAR)                                     \
	X(rc_mpi_signed_char, SIGNED_CHAR)                       \
	X(rc_mpi_unsigned_char, UNSIGNED_CHAR)                   \
	X(rc_mpi_byte, BYTE)                                     \
	X(rc_mpi_short, SHORT)                                   \
	X(rc_mpi_unsigned_short, UNSIGNED_SHORT)                 \
	X(rc_mpi_int, INT)                                       \
	X(rc_mpi_unsigned, UNSIGNED)                             \
	X(rc_mpi_long, LONG)                                     \
	X(rc_mpi_unsigned_long, UNSIGNED_LONG)                   \
	X(rc_mpi_long_long, LONG_LONG)                           \
	X(rc_mpi_unsigned_long_long, UNSIGNED_LONG_LONG)         \
	X(rc_mpi_float, FLOAT)                                   \
	X(rc_mpi_double, DOUBLE)                                 \
	X(rc_mpi_long_double, LONG_DOUBLE)                       \
	X(rc_mpi_wchar, WCHAR)                                   \
	X(rc_mpi_c_bool, C_BOOL)                                 \
	X(rc_mpi_int8_t, INT8_T)                                 \
	X(rc_mpi_int16_t, INT16_T)                               \
	X(rc_mpi_int32_t, INT32_T)                               \
	X(rc_mpi_int64_t, INT64_T)                               \
	X(rc_mpi_uint8_t, UINT8_T)                               \
	X(rc_mpi_uint16_t, UINT16_T)                             \
	X(rc_mpi_uint32_t, UINT32_T)                             \
	X(rc_mpi_uint64_t, UINT64_T)                             \
	X(rc_mpi_c_float_complex, C_FLOAT_COMPLEX)               \
	X(rc_mpi_c_double_complex, C_DOUBLE_COMPLEX)             \
	X(rc_mpi_c_long_double_complex, C_LONG_DOUBLE_COMPLEX)   \
	X(rc_mpi_aint, AINT)                                     \
	X(rc_mpi_offset, OFFSET)                                 \
	X(rc_mpi_count, COUNT)                                   \
	X(rc_mpi_packed, PACKED)                                 \
	X(rc_mpi_character, CHARACTER)                           \
	X(rc_mpi_logical, LOGICAL)                               \
	X(rc_mpi_integer, INTEGER)                               \
	X(rc_mpi_real, REAL)                                     \
	X(rc_mpi_double_precision, DOUBLE_PRECISION)             \
	X(rc_mpi_complex, COMPLEX)                               \
	X(rc_mpi_double_complex, DOUBLE_COMPLEX)                 \
	X(rc_mpi_integer1, INTEGER1)                             \
	X(rc_mpi_integer2, INTEGER2)                             \
	X(rc_mpi_integer4, INTEGER4)                             \
	X(rc_mpi_integer8, INTEGER8)                             \
	X(rc_mpi_real4, REAL4)                                   \
	X(rc_mpi_real8, REAL8)                                   \
	X(rc_mpi_complex8, COMPLEX8)                             \
	X(rc_mpi_complex16, COMPLEX16)                           \
	X(rc_mpi_cxx_bool, CXX_BOOL)                             \
	X(rc_mpi_cxx_float_complex, CXX_FLOAT_COMPLEX)           \
	X(rc_mpi_cxx_double_complex, CXX_DOUBLE_COMPLEX)         \
	X(rc_mpi_cxx_long_double_complex, CXX_LONG_DOUBLE_COMPLEX)

#define RC_X_DT_BASIC(sym, kind)                                           \
	static struct rc_dt_block dt_blk_##kind[1] = {                     \
		{0, sizeof(rc_ct_##kind)}};                                \
	static struct rc_dt_sig dt_sig_##kind[1] = {{RC_BASIC_##kind, 1}}; \
	struct rc_dtype sym = {                                            \
		.h = RC_HOBJ_INIT(RC_HK_DTYPE),                            \
		.refcount = 1,                                             \
		.flags = RC_DT_PREDEFINED | RC_DT_COMMITTED,               \
		.combiner = MPI_COMBINER_NAMED,                            \
		.basic = RC_BASIC_##kind,                                  \
		.size = sizeof(rc_ct_##kind),                              \
		.lb = 0,                                                   \
		.ub = sizeof(rc_ct_##kind),                                \
		.true_lb = 0,                                              \
		.true_ub = sizeof(rc_ct_##kind),                           \
		.nblocks = 1,                                              \
		.blocks = dt_blk_##kind,                                   \
		.boff = dt_boff_zero,                                      \
		.nsig = 1,                                                 \
		.sig = dt_sig_##kind,                                      \
		.nbasic = 1,                                               \
		.align = _Alignof(rc_ct_##kind),                           \
		.dalign = DT_LOWBIT(sizeof(rc_ct_##kind)) < DT_DALIGN_MAX  \
				  ? DT_LOWBIT(sizeof(rc_ct_##kind))        \
				  : DT_DALIGN_MAX,                         \
		.name = RC_DT_NAME_##kind,                                 \
	};

/* The object names must be literals: one macro per kind, the same strings
 * as RC_BASIC_TABLE's (a unit test checks they agree with rc_basic_name). */
#define RC_DT_NAME_CHAR "MPI_CHAR"
#define RC_DT_NAME_SIGNED_CHAR "MPI_SIGNED_CHAR"
#define RC_DT_NAME_UNSIGNED_CHAR "MPI_UNSIGNED_CHAR"
#define RC_DT_NAME_BYTE "MPI_BYTE"
#define RC_DT_NAME_SHORT "MPI_SHORT"
#define RC_DT_NAME_UNSIGNED_SHORT "MPI_UNSIGNED_SHORT"
#define RC_DT_NAME_INT "MPI_INT"
#define RC_DT_NAME_UNSIGNED "MPI_UNSIGNED"
#define RC_DT_NAME_LONG "MPI_LONG"
#define RC_DT_NAME_UNSIGNED_LONG "MPI_UNSIGNED_LONG"
#define RC_DT_NAME_LONG_LONG "MPI_LONG_LONG_INT"
#define RC_DT_NAME_UNSIGNED_LONG_LONG "MPI_UNSIGNED_LONG_LONG"
#define RC_DT_NAME_FLOAT "MPI_FLOAT"
#define RC_DT_NAME_DOUBLE "MPI_DOUBLE"
#define RC_DT_NAME_LONG_DOUBLE "MPI_LONG_DOUBLE"
#define RC_DT_NAME_WCHAR "MPI_WCHAR"
#define RC_DT_NAME_C_BOOL "MPI_C_BOOL"
#define RC_DT_NAME_INT8_T "MPI_INT8_T"
#define RC_DT_NAME_INT16_T "MPI_INT16_T"
#define RC_DT_NAME_INT32_T "MPI_INT32_T"
#define RC_DT_NAME_INT64_T "MPI_INT64_T"
#define RC_DT_NAME_UINT8_T "MPI_UINT8_T"
#define RC_DT_NAME_UINT16_T "MPI_UINT16_T"
#define RC_DT_NAME_UINT32_T "MPI_UINT32_T"
#define RC_DT_NAME_UINT64_T "MPI_UINT64_T"
#define RC_DT_NAME_C_FLOAT_COMPLEX "MPI_C_FLOAT_COMPLEX"
#define RC_DT_NAME_C_DOUBLE_COMPLEX "MPI_C_DOUBLE_COMPLEX"
#define RC_DT_NAME_C_LONG_DOUBLE_COMPLEX "MPI_C_LONG_DOUBLE_COMPLEX"
#define RC_DT_NAME_AINT "MPI_AINT"
#define RC_DT_NAME_OFFSET "MPI_OFFSET"
#define RC_DT_NAME_COUNT "MPI_COUNT"
#define RC_DT_NAME_PACKED "MPI_PACKED"
#define RC_DT_NAME_CHARACTER "MPI_CHARACTER"
#define RC_DT_NAME_LOGICAL "MPI_LOGICAL"
#define RC_DT_NAME_INTEGER "MPI_INTEGER"
#define RC_DT_NAME_REAL "MPI_REAL"
#define RC_DT_NAME_DOUBLE_PRECISION "MPI_DOUBLE_PRECISION"
#define RC_DT_NAME_COMPLEX "MPI_COMPLEX"
#define RC_DT_NAME_DOUBLE_COMPLEX "MPI_DOUBLE_COMPLEX"
#define RC_DT_NAME_INTEGER1 "MPI_INTEGER1"
#define RC_DT_NAME_INTEGER2 "MPI_INTEGER2"
#define RC_DT_NAME_INTEGER4 "MPI_INTEGER4"
#define RC_DT_NAME_INTEGER8 "MPI_INTEGER8"
#define RC_DT_NAME_REAL4 "MPI_REAL4"
#define RC_DT_NAME_REAL8 "MPI_REAL8"
#define RC_DT_NAME_COMPLEX8 "MPI_COMPLEX8"
#define RC_DT_NAME_COMPLEX16 "MPI_COMPLEX16"
#define RC_DT_NAME_CXX_BOOL "MPI_CXX_BOOL"
#define RC_DT_NAME_CXX_FLOAT_COMPLEX "MPI_CXX_FLOAT_COMPLEX"
#define RC_DT_NAME_CXX_DOUBLE_COMPLEX "MPI_CXX_DOUBLE_COMPLEX"
#define RC_DT_NAME_CXX_LONG_DOUBLE_COMPLEX "MPI_CXX_LONG_DOUBLE_COMPLEX"

RC_DT_PREDEF_TABLE(RC_X_DT_BASIC)
#undef RC_X_DT_BASIC

/*
 * Pair types: the C struct { value; index; }. One block when the index
 * follows the value directly (FLOAT_INT, 2INT, DOUBLE_INT, LONG_INT,
 * LONG_DOUBLE_INT on LP64, the Fortran pairs), two when there is a hole
 * (SHORT_INT).
 */
#define DT_PAIR_IOFF(name) offsetof(struct rc_pair_##name, i)
#define DT_PAIR_VSZ(name) sizeof(((struct rc_pair_##name *)0)->v)
#define DT_PAIR_DENSE(name) (DT_PAIR_IOFF(name) == DT_PAIR_VSZ(name))
#define DT_PAIR_SAME(vb, ib) (RC_BASIC_##vb == RC_BASIC_##ib)

#define RC_X_DT_PAIR(pn, vtype, vb, itype, ib, str)                        \
	static struct rc_dt_block dt_blk_##pn[2] = {                     \
		{ 0, DT_PAIR_DENSE(pn) ? sizeof(vtype) + sizeof(itype) : \
					   sizeof(vtype) },                \
		{ DT_PAIR_IOFF(pn), sizeof(itype) },                     \
	};                                                                 \
	static size_t dt_boff_##pn[2] = { 0, sizeof(vtype) };            \
	static struct rc_dt_sig dt_sig_##pn[2] = {                       \
		{ RC_BASIC_##vb, DT_PAIR_SAME(vb, ib) ? 2 : 1 },           \
		{ RC_BASIC_##ib, 1 },                                      \
	};                                                                 \
	struct rc_dtype DT_PAIR_SYM_##pn = {                             \
		.h = RC_HOBJ_INIT(RC_HK_DTYPE),                            \
		.refcount = 1,                                             \
		.flags = RC_DT_PREDEFINED | RC_DT_COMMITTED,               \
		.combiner = MPI_COMBINER_NAMED,                            \
		.basic = RC_BASIC_##pn,                                  \
		.size = sizeof(vtype) + sizeof(itype),                     \
		.lb = 0,                                                   \
		.ub = sizeof(struct rc_pair_##pn),                       \
		.true_lb = 0,                                              \
		.true_ub = DT_PAIR_IOFF(pn) + sizeof(itype),             \
		.nblocks = DT_PAIR_DENSE(pn) ? 1 : 2,                    \
		.blocks = dt_blk_##pn,                                   \
		.boff = dt_boff_##pn,                                    \
		.nsig = DT_PAIR_SAME(vb, ib) ? 1 : 2,                      \
		.sig = dt_sig_##pn,                                      \
		.nbasic = 2,                                               \
		.align = _Alignof(struct rc_pair_##pn),                  \
		.dalign = DT_LOWBIT(sizeof(struct rc_pair_##pn) |        \
				    DT_PAIR_IOFF(pn)),                   \
		.name = str,                                               \
	};
/* the mpi.h symbol of each pair kind (expanded after token pasting) */
#define DT_PAIR_SYM_FLOAT_INT rc_mpi_float_int
#define DT_PAIR_SYM_DOUBLE_INT rc_mpi_double_int
#define DT_PAIR_SYM_LONG_INT rc_mpi_long_int
#define DT_PAIR_SYM_2INT rc_mpi_2int
#define DT_PAIR_SYM_SHORT_INT rc_mpi_short_int
#define DT_PAIR_SYM_LONG_DOUBLE_INT rc_mpi_long_double_int
#define DT_PAIR_SYM_2INTEGER rc_mpi_2integer
#define DT_PAIR_SYM_2REAL rc_mpi_2real
#define DT_PAIR_SYM_2DOUBLE_PRECISION rc_mpi_2double_precision

RC_PAIR_TABLE(RC_X_DT_PAIR)
#undef RC_X_DT_PAIR

/*
 * MPI-1's lb and ub markers (removed in MPI-3, still used): no data, and
 * in a type built from them (MPI_Type_struct) the sticky lower or upper
 * bound at their displacement, which wins over the data's bounds, as
 * MPI_Type_create_resized's do.
 */
#define RC_X_DT_MARKER(sym, stick, str)                                   \
	struct rc_dtype sym = {                                           \
		.h = RC_HOBJ_INIT(RC_HK_DTYPE),                           \
		.refcount = 1,                                            \
		.flags = RC_DT_PREDEFINED | RC_DT_COMMITTED | (stick),    \
		.combiner = MPI_COMBINER_NAMED,                           \
		.basic = RC_BASIC_NONE,                                   \
		.align = 1,                                               \
		.dalign = DT_DALIGN_MAX,                                  \
		.name = str,                                              \
	};
RC_X_DT_MARKER(rc_mpi_lb, RC_DT_STICKY_LB, "MPI_LB")
RC_X_DT_MARKER(rc_mpi_ub, RC_DT_STICKY_UB, "MPI_UB")
#undef RC_X_DT_MARKER

struct rc_dtype *const rc_dt_predefined[] = {
#define RC_X_DT_LIST(sym, kind) &sym,
	RC_DT_PREDEF_TABLE(RC_X_DT_LIST)
#undef RC_X_DT_LIST
#define RC_X_DT_PLIST(pn, vtype, vb, itype, ib, str) &DT_PAIR_SYM_##pn,
		RC_PAIR_TABLE(RC_X_DT_PLIST)
#undef RC_X_DT_PLIST
	&rc_mpi_lb, &rc_mpi_ub,
};
const size_t rc_dt_npredefined =
	sizeof(rc_dt_predefined) / sizeof(rc_dt_predefined[0]);

/* ---- object life ------------------------------------------------------- */

bool rc_dt_valid(const struct rc_dtype *dt)
{
	return rc_dt_ok(dt) && (dt->flags & RC_DT_COMMITTED);
}

void rc_dt_commit(struct rc_dtype *dt)
{
	/* committing a committed type writes nothing: other threads may be
	 * communicating with it (MPI_Type_commit runs outside the section) */
	if (!(dt->flags & RC_DT_COMMITTED))
		dt->flags |= RC_DT_COMMITTED;
}

static void dt_contents_free(struct rc_dt_contents *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < c->nd; i++)
		rc_dt_release(c->types[i]);
	free(c);
}

static void dt_destroy(struct rc_dtype *dt)
{
	dt_contents_free(dt->contents);
	free(dt->flat);
	rc_attr_discard(&dt->attrs); /* MPI_Type_free deleted them */
	rc_hobj_free(RC_HK_DTYPE, dt);
}

/* rc_dt_release of a derived type (dtype.h) */
void rc_dt_release_slow(struct rc_dtype *dt)
{
	assert(__atomic_load_n(&dt->refcount, __ATOMIC_RELAXED) > 0);
	if (__atomic_sub_fetch(&dt->refcount, 1, __ATOMIC_ACQ_REL) == 0)
		dt_destroy(dt);
}

/* ---- constructor arguments ---------------------------------------------- */

struct rc_dt_contents *rc_dt_contents_new(int ni, int na, int nd)
{
	struct rc_dt_contents *c;
	size_t sz = sizeof(*c);
	size_t oa, ot;

	/* one block: header, addresses, datatypes, integers */
	oa = sz;
	ot = oa + (size_t)na * sizeof(MPI_Aint);
	sz = ot + (size_t)nd * sizeof(struct rc_dtype *) +
	     (size_t)ni * sizeof(int);
	c = calloc(1, sz);
	if (!c)
		return NULL;
	c->ni = ni;
	c->na = na;
	c->nd = nd;
	c->aints = (MPI_Aint *)((char *)c + oa);
	c->types = (struct rc_dtype **)((char *)c + ot);
	c->ints = (int *)((char *)c->types + (size_t)nd * sizeof(*c->types));
	return c;
}

void rc_dt_set_contents(struct rc_dtype *dt, int combiner,
			struct rc_dt_contents *c)
{
	int i;

	assert(!dt->contents);
	for (i = 0; i < c->nd; i++)
		rc_dt_retain(c->types[i]);
	dt->contents = c;
	dt->combiner = combiner;
	dt->env[0] = c->ni;
	dt->env[1] = c->na;
	dt->env[2] = c->nd;
}

/* ---- flattening --------------------------------------------------------- */

/*
 * The type map being built: on the stack while it is small (most types),
 * on the heap beyond; dt_finish installs it in one allocation. While the
 * blocks so far are regular (one length, one stride: reg), only the first
 * is stored and nb counts them all, so a vector of 2^30 blocks takes no
 * more room than one of two; the first block that breaks the pattern
 * writes the map out in full (dt_flat_expand).
 */
#define DT_FLAT_INL 8

struct dt_flat {
	struct rc_dt_block *b;
	size_t nb, cb;
	bool reg; /* blocks are b[0] moved by i * rs (nb > 1) */
	ptrdiff_t rs;
	struct rc_dt_sig *s;
	size_t ns, cs;
	int err;
	struct rc_dt_block b_inl[DT_FLAT_INL];
	struct rc_dt_sig s_inl[DT_FLAT_INL];
};

static void dt_flat_init(struct dt_flat *f)
{
	f->b = f->b_inl;
	f->s = f->s_inl;
	f->nb = f->ns = 0;
	f->cb = f->cs = DT_FLAT_INL;
	f->reg = true;
	f->rs = 0;
	f->err = 0;
}

/* Room for need entries of esz bytes in *p (inl: its array on the
 * stack, left in place) */
static int dt_grow(void **p, size_t *cap, size_t need, size_t esz,
		   const void *inl)
{
	size_t ncap = *cap;
	void *np;

	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / esz)
			return RC_ERR_NOMEM;
		ncap *= 2;
	}
	if (*p == inl) {
		np = malloc(ncap * esz);
		if (np)
			memcpy(np, inl, *cap * esz);
	} else {
		np = realloc(*p, ncap * esz);
	}
	if (!np)
		return RC_ERR_NOMEM;
	*p = np;
	*cap = ncap;
	return RC_OK;
}

static void dt_flat_free(struct dt_flat *f)
{
	if (f->b != f->b_inl)
		free(f->b);
	if (f->s != f->s_inl)
		free(f->s);
}

/* dt's blocks, boff and sig arrays for nb blocks and ns signature runs,
 * in one allocation (dt->flat); boff not filled in. */
static int dt_flat_alloc(struct rc_dtype *dt, size_t nb, size_t ns)
{
	size_t bsz = nb * sizeof(*dt->blocks), osz = nb * sizeof(*dt->boff);
	char *mem;

	if (!nb && !ns)
		return RC_OK;
	mem = malloc(bsz + osz + ns * sizeof(*dt->sig));
	if (!mem)
		return RC_ERR_NOMEM;
	dt->flat = mem;
	dt->blocks = nb ? (void *)mem : NULL;
	dt->boff = nb ? (void *)(mem + bsz) : NULL;
	dt->sig = ns ? (void *)(mem + bsz + osz) : NULL;
	dt->nblocks = nb;
	dt->nsig = ns;
	return RC_OK;
}

/* The regular map of f written out block by block; f->err on failure. */
static void dt_flat_expand(struct dt_flat *f)
{
	size_t i;

	f->reg = false;
	if (f->nb > f->cb) {
		f->err = dt_grow((void **)&f->b, &f->cb, f->nb, sizeof(*f->b),
				 f->b_inl);
		if (f->err)
			return;
	}
	for (i = 1; i < f->nb; i++) {
		f->b[i].disp = f->b[0].disp + (ptrdiff_t)i * f->rs;
		f->b[i].len = f->b[0].len;
	}
}

/* Append a run of data bytes, merged with the last one when adjacent. */
static inline void dt_flat_block(struct dt_flat *f, ptrdiff_t disp,
				 size_t len)
{
	struct rc_dt_block *last;
	ptrdiff_t ldisp;

	if (!len || f->err)
		return;
	if (f->reg && f->nb == 1) {
		/* a second block sets the stride; an adjacent one merges */
		if (f->b[0].disp + (ptrdiff_t)f->b[0].len == disp) {
			f->b[0].len += len;
			return;
		}
		if (len == f->b[0].len) {
			f->rs = disp - f->b[0].disp;
			f->nb = 2;
			return;
		}
		f->reg = false;
	} else if (f->reg && f->nb) {
		/* the last block, as the full map would hold it */
		ldisp = f->b[0].disp + (ptrdiff_t)(f->nb - 1) * f->rs;
		if (ldisp + (ptrdiff_t)len != disp && len == f->b[0].len &&
		    disp - ldisp == f->rs) {
			f->nb++;
			return;
		}
		dt_flat_expand(f);
		if (f->err)
			return;
	}
	if (f->nb) {
		last = &f->b[f->nb - 1];
		if (last->disp + (ptrdiff_t)last->len == disp) {
			last->len += len;
			return;
		}
	}
	if (f->nb == f->cb) {
		f->err = dt_grow((void **)&f->b, &f->cb, f->nb + 1,
				 sizeof(*f->b), f->b_inl);
		if (f->err)
			return;
	}
	f->b[f->nb].disp = disp;
	f->b[f->nb].len = len;
	f->nb++;
}

static inline void dt_flat_sig(struct dt_flat *f, enum rc_basic basic,
			       size_t count)
{
	if (!count || f->err)
		return;
	if (f->ns && f->s[f->ns - 1].basic == basic) {
		f->s[f->ns - 1].count += count;
		return;
	}
	if (f->ns == f->cs) {
		f->err = dt_grow((void **)&f->s, &f->cs, f->ns + 1,
				 sizeof(*f->s), f->s_inl);
		if (f->err)
			return;
	}
	f->s[f->ns].basic = basic;
	f->s[f->ns].count = count;
	f->ns++;
}

/* Append n blocks of len bytes at disp + i * stride: in constant time
 * when they continue a regular map. */
static void dt_flat_run(struct dt_flat *f, ptrdiff_t disp, size_t len,
			ptrdiff_t stride, size_t n)
{
	size_t i;

	if (!n || !len)
		return;
	if (stride == (ptrdiff_t)len) {
		/* adjacent: they merge into one */
		dt_flat_block(f, disp, n * len);
		return;
	}
	for (i = 0; i < n && i < 2; i++)
		dt_flat_block(f, disp + (ptrdiff_t)i * stride, len);
	if (i == n)
		return;
	if (f->reg && f->nb > 1 && f->rs == stride && f->b[0].len == len &&
	    f->b[0].disp + (ptrdiff_t)(f->nb - 1) * f->rs == disp + stride) {
		f->nb += n - 2;
		return;
	}
	for (; i < n && !f->err; i++)
		dt_flat_block(f, disp + (ptrdiff_t)i * stride, len);
}

static bool dt_dense(const struct rc_dtype *t)
{
	return t->nblocks == 1 &&
	       (ptrdiff_t)t->blocks[0].len == rc_dt_extent(t);
}

/* Append n copies of t's type map at disp + k * extent(t). */
static void dt_flat_add(struct dt_flat *f, const struct rc_dtype *t,
			ptrdiff_t disp, size_t n)
{
	ptrdiff_t ext = rc_dt_extent(t), base;
	struct rc_dt_block b;
	size_t k, j;

	if (!t->size || !n)
		return;
	if (dt_dense(t)) {
		dt_flat_block(f, disp + t->blocks[0].disp, n * t->size);
	} else if ((t->flags & RC_DT_REGULAR) &&
		   (n == 1 || ext == (ptrdiff_t)t->nblocks * t->rstride)) {
		/* the elements' blocks continue one another's stride */
		dt_flat_run(f, disp + t->blocks[0].disp, t->blocks[0].len,
			    t->rstride, n * t->nblocks);
	} else {
		/* (a regular t here breaks its pattern: written out anyway) */
		for (k = 0, base = disp; k < n && !f->err; k++, base += ext)
			for (j = 0; j < t->nblocks; j++) {
				b = rc_dt_block_at(t, j);
				dt_flat_block(f, base + b.disp, b.len);
			}
	}
	if (t->nsig == 1) {
		dt_flat_sig(f, t->sig[0].basic, n * t->sig[0].count);
	} else {
		for (k = 0; k < n && !f->err; k++)
			for (j = 0; j < t->nsig; j++)
				dt_flat_sig(f, t->sig[j].basic,
					    t->sig[j].count);
	}
}

/* Append reps entries of n copies of t at disp + r * stride (a vector's):
 * in constant time when t is one dense block of one basic kind. */
static void dt_flat_entries(struct dt_flat *f, const struct rc_dtype *t,
			    ptrdiff_t disp, size_t n, ptrdiff_t stride,
			    size_t reps)
{
	size_t r;

	if (!t->size || !n)
		return;
	if (dt_dense(t) && t->nsig == 1) {
		dt_flat_run(f, disp + t->blocks[0].disp, n * t->size, stride,
			    reps);
		dt_flat_sig(f, t->sig[0].basic, reps * n * t->sig[0].count);
		return;
	}
	for (r = 0; r < reps && !f->err; r++)
		dt_flat_add(f, t, disp + (ptrdiff_t)r * stride, n);
}

/* Power of two dividing every block displacement and the extent (of a
 * regular map: the first's and the stride, which divide all the others). */
static size_t dt_calc_dalign(const struct rc_dtype *dt)
{
	uintptr_t v = (uintptr_t)rc_dt_extent(dt);
	size_t i;

	if (dt->flags & RC_DT_REGULAR)
		v |= (uintptr_t)dt->blocks[0].disp | (uintptr_t)dt->rstride;
	else
		for (i = 0; i < dt->nblocks; i++)
			v |= (uintptr_t)dt->blocks[i].disp;
	v = DT_LOWBIT(v);
	return v && v < DT_DALIGN_MAX ? v : DT_DALIGN_MAX;
}

/* Install the flattened arrays into dt (dt_flat_alloc: one allocation,
 * exactly their size; a regular map: its first block) and the derived
 * fields; consumes f. */
static int dt_finish(struct rc_dtype *dt, struct dt_flat *f)
{
	const bool reg = f->reg && f->nb > 1;
	const size_t nstore = reg ? 1 : f->nb;
	size_t i, off = 0;
	int err = f->err;

	if (!err)
		err = dt_flat_alloc(dt, nstore, f->ns);
	if (err)
		goto out;
	dt->nblocks = f->nb;
	dt->flags &= ~RC_DT_REGULAR;
	dt->rstride = 0;
	if (reg) {
		dt->flags |= RC_DT_REGULAR;
		dt->rstride = f->rs;
	}
	if (nstore)
		memcpy(dt->blocks, f->b, nstore * sizeof(*f->b));
	if (f->ns)
		memcpy(dt->sig, f->s, f->ns * sizeof(*f->s));
	for (i = 0; i < nstore; i++) {
		dt->boff[i] = off;
		off += dt->blocks[i].len;
	}
	assert((reg ? f->nb * f->b[0].len : off) == dt->size);
	dt->dalign = dt_calc_dalign(dt);
out:
	dt_flat_free(f);
	return err;
}

static struct rc_dtype *dt_alloc(int combiner)
{
	struct rc_dtype *dt = rc_hobj_new(RC_HK_DTYPE, sizeof(*dt));

	if (!dt)
		return NULL;
	dt->refcount = 1;
	dt->combiner = combiner;
	dt->align = 1;
	return dt;
}

/* ---- the generic constructor ------------------------------------------- */

/*
 * count entries; entry i is blens[i] (or blen) copies of types[i] (or type)
 * at byte displacement adisps[i], or idisps[i] * unit, or i * stride.
 */
struct dt_desc {
	size_t count;
	const int *blens;
	size_t blen;
	const MPI_Aint *adisps;
	const int *idisps;
	ptrdiff_t unit;
	ptrdiff_t stride;
	struct rc_dtype *const *types;
	const struct rc_dtype *type;
	int combiner;
};

static inline size_t desc_blen(const struct dt_desc *d, size_t i)
{
	return d->blens ? (size_t)d->blens[i] : d->blen;
}

static inline const struct rc_dtype *desc_type(const struct dt_desc *d,
					       size_t i)
{
	return d->types ? d->types[i] : d->type;
}

static inline bool desc_disp(const struct dt_desc *d, size_t i, ptrdiff_t *disp)
{
	if (d->adisps) {
		*disp = d->adisps[i];
		return true;
	}
	if (d->idisps)
		return !__builtin_mul_overflow((ptrdiff_t)d->idisps[i], d->unit,
					       disp);
	return !__builtin_mul_overflow((ptrdiff_t)i, d->stride, disp);
}

struct dt_bounds {
	bool any, slb_set, sub_set, data;
	ptrdiff_t lb, ub, slb, sub, tlb, tub;
};

/* Account for n copies of t at disp + k * extent(t), k < n. */
static int dt_bounds_add(struct dt_bounds *bd, const struct rc_dtype *t,
			 ptrdiff_t disp, size_t n)
{
	ptrdiff_t span, lo, hi, v;

	if (!n ||
	    (!t->size && !(t->flags & (RC_DT_STICKY_LB | RC_DT_STICKY_UB))))
		return RC_OK;
	if (__builtin_mul_overflow((ptrdiff_t)(n - 1), rc_dt_extent(t), &span))
		return RC_ERR_INVAL;
	lo = disp + (span < 0 ? span : 0);
	hi = disp + (span > 0 ? span : 0);

	v = t->lb + lo;
	if (t->flags & RC_DT_STICKY_LB) {
		bd->slb = bd->slb_set && bd->slb < v ? bd->slb : v;
		bd->slb_set = true;
	} else if (t->size) {
		bd->lb = bd->any && bd->lb < v ? bd->lb : v;
	}
	v = t->ub + hi;
	if (t->flags & RC_DT_STICKY_UB) {
		bd->sub = bd->sub_set && bd->sub > v ? bd->sub : v;
		bd->sub_set = true;
	} else if (t->size) {
		bd->ub = bd->any && bd->ub > v ? bd->ub : v;
	}
	if (t->size) {
		bd->any = true;
		v = t->true_lb + lo;
		bd->tlb = bd->data && bd->tlb < v ? bd->tlb : v;
		v = t->true_ub + hi;
		bd->tub = bd->data && bd->tub > v ? bd->tub : v;
		bd->data = true;
	}
	return RC_OK;
}

static int dt_build(const struct dt_desc *d, struct rc_dtype **newp)
{
	struct dt_flat f;
	struct dt_bounds bd = { 0 };
	struct rc_dtype *dt;
	const struct rc_dtype *t;
	size_t i, n, sz, reps, tot;
	ptrdiff_t disp, ldisp, ext, rem;
	bool seen = false;
	int ret;

	dt = dt_alloc(d->combiner);
	if (!dt)
		return RC_ERR_NOMEM;
	dt_flat_init(&f);
	dt->basic = RC_BASIC_NONE;
	for (i = 0; i < d->count; i++) {
		t = desc_type(d, i);
		n = desc_blen(d, i);
		/* the one basic kind of the data; MPI_LB/MPI_UB have none
		 * and do not count */
		if (t == &rc_mpi_lb || t == &rc_mpi_ub)
			;
		else if (!seen)
			dt->basic = t->basic;
		else if (t->basic != dt->basic)
			dt->basic = RC_BASIC_NONE;
		seen = seen || (t != &rc_mpi_lb && t != &rc_mpi_ub);
		if (t->align > dt->align)
			dt->align = t->align;
		if (!n)
			continue;
		/* a vector's entries are all alike: bounds and sizes of
		 * them all from the first and the last */
		reps = d->types || d->blens || d->adisps || d->idisps
			       ? 1
			       : d->count - i;
		if (!desc_disp(d, i, &disp) ||
		    !desc_disp(d, i + reps - 1, &ldisp)) {
			ret = RC_ERR_INVAL;
			goto err_free;
		}
		ret = dt_bounds_add(&bd, t, disp, n);
		if (!ret)
			ret = dt_bounds_add(&bd, t, ldisp, n);
		if (ret)
			goto err_free;
		if (__builtin_mul_overflow(n, reps, &tot) ||
		    __builtin_mul_overflow(tot, t->size, &sz) ||
		    __builtin_add_overflow(dt->size, sz, &dt->size) ||
		    __builtin_mul_overflow(tot, t->nbasic, &sz) ||
		    __builtin_add_overflow(dt->nbasic, sz, &dt->nbasic)) {
			ret = RC_ERR_INVAL;
			goto err_free;
		}
		dt_flat_entries(&f, t, disp, n, d->stride, reps);
		i += reps - 1;
		if (f.err) {
			ret = f.err;
			goto err_free;
		}
	}

	dt->lb = bd.slb_set ? bd.slb : bd.any ? bd.lb : 0;
	dt->ub = bd.sub_set ? bd.sub : bd.any ? bd.ub : 0;
	if (bd.slb_set)
		dt->flags |= RC_DT_STICKY_LB;
	if (bd.sub_set)
		dt->flags |= RC_DT_STICKY_UB;
	dt->true_lb = bd.data ? bd.tlb : 0;
	dt->true_ub = bd.data ? bd.tub : 0;
	/* the standard's epsilon: pad a struct's extent to its alignment */
	ext = dt->ub - dt->lb;
	if (d->combiner == MPI_COMBINER_STRUCT && !bd.sub_set && ext > 0 &&
	    (rem = ext % (ptrdiff_t)dt->align))
		dt->ub += (ptrdiff_t)dt->align - rem;

	ret = dt_finish(dt, &f);
	if (ret) {
		rc_hobj_free(RC_HK_DTYPE, dt);
		return ret;
	}
	*newp = dt;
	return RC_OK;

err_free:
	dt_flat_free(&f);
	rc_hobj_free(RC_HK_DTYPE, dt);
	return ret;
}

/* ---- constructors -------------------------------------------------------- */

int rc_dt_create_contig(size_t count, const struct rc_dtype *old,
			struct rc_dtype **newp)
{
	/* one entry of `count` copies: flattens to one block when dense */
	struct dt_desc d = { .count = 1, .blen = count, .type = old,
			     .combiner = MPI_COMBINER_CONTIGUOUS };
	struct rc_dtype *dt;
	int ret;

	ret = dt_build(&d, &dt);
	if (ret)
		return ret;
	if (!count)
		dt->basic = old->basic;
	dt->env[0] = 1;
	dt->env[2] = 1;
	*newp = dt;
	return RC_OK;
}

int rc_dt_create_hvector(size_t count, size_t blocklen, ptrdiff_t stride,
			 const struct rc_dtype *old, struct rc_dtype **newp)
{
	struct dt_desc d = { .count = count, .blen = blocklen,
			     .stride = stride, .type = old,
			     .combiner = MPI_COMBINER_HVECTOR };
	struct rc_dtype *dt;
	int ret;

	ret = dt_build(&d, &dt);
	if (ret)
		return ret;
	dt->basic = old->basic;
	dt->env[0] = 2;
	dt->env[1] = 1;
	dt->env[2] = 1;
	*newp = dt;
	return RC_OK;
}

int rc_dt_create_hindexed(size_t count, const int *blens, size_t blen,
			  const MPI_Aint *disps, const struct rc_dtype *old,
			  struct rc_dtype **newp)
{
	struct dt_desc d = { .count = count, .blens = blens, .blen = blen,
			     .adisps = disps, .type = old,
			     .combiner = blens ? MPI_COMBINER_HINDEXED :
						 MPI_COMBINER_HINDEXED_BLOCK };
	struct rc_dtype *dt;
	int ret;

	ret = dt_build(&d, &dt);
	if (ret)
		return ret;
	dt->basic = old->basic;
	dt->env[0] = blens ? (int)count + 1 : 2;
	dt->env[1] = (int)count;
	dt->env[2] = 1;
	*newp = dt;
	return RC_OK;
}

/* MPI_Type_indexed / MPI_Type_create_indexed_block / MPI_Type_vector:
 * displacements in multiples of old's extent, no temporary arrays. */
static int dt_create_indexed(size_t count, const int *blens, size_t blen,
			     const int *disps, ptrdiff_t stride,
			     const struct rc_dtype *old, int combiner,
			     struct rc_dtype **newp)
{
	struct dt_desc d = { .count = count, .blens = blens, .blen = blen,
			     .idisps = disps, .unit = rc_dt_extent(old),
			     .type = old, .combiner = combiner };
	struct rc_dtype *dt;
	int ret;

	if (!disps && __builtin_mul_overflow(stride, rc_dt_extent(old),
					     &d.stride))
		return RC_ERR_INVAL;
	ret = dt_build(&d, &dt);
	if (ret)
		return ret;
	dt->basic = old->basic;
	dt->env[2] = 1;
	*newp = dt;
	return RC_OK;
}

int rc_dt_create_struct(size_t count, const int *blens, const MPI_Aint *disps,
			struct rc_dtype *const *types, struct rc_dtype **newp)
{
	struct dt_desc d = { .count = count, .blens = blens, .adisps = disps,
			     .types = types,
			     .combiner = MPI_COMBINER_STRUCT };
	struct rc_dtype *dt;
	int ret;

	ret = dt_build(&d, &dt);
	if (ret)
		return ret;
	dt->env[0] = (int)count + 1;
	dt->env[1] = (int)count;
	dt->env[2] = (int)count;
	*newp = dt;
	return RC_OK;
}

/* A copy of old's type map and fields, not predefined, refcount 1. */
static int dt_copy(const struct rc_dtype *old, int combiner,
		   struct rc_dtype **newp)
{
	struct rc_dtype *dt = dt_alloc(combiner);
	size_t nstore;

	if (!dt)
		return RC_ERR_NOMEM;
	dt->flags = old->flags &
		    (RC_DT_STICKY_LB | RC_DT_STICKY_UB | RC_DT_REGULAR);
	dt->rstride = old->rstride;
	dt->basic = old->basic;
	dt->size = old->size;
	dt->lb = old->lb;
	dt->ub = old->ub;
	dt->true_lb = old->true_lb;
	dt->true_ub = old->true_ub;
	dt->nbasic = old->nbasic;
	dt->align = old->align;
	dt->dalign = old->dalign;
	nstore = old->flags & RC_DT_REGULAR ? 1 : old->nblocks;
	if (dt_flat_alloc(dt, nstore, old->nsig))
		goto err_free;
	dt->nblocks = old->nblocks;
	if (nstore) {
		memcpy(dt->blocks, old->blocks, nstore * sizeof(*dt->blocks));
		memcpy(dt->boff, old->boff, nstore * sizeof(*dt->boff));
	}
	if (old->nsig)
		memcpy(dt->sig, old->sig, old->nsig * sizeof(*dt->sig));
	*newp = dt;
	return RC_OK;

err_free:
	dt_destroy(dt);
	return RC_ERR_NOMEM;
}

int rc_dt_create_dup(const struct rc_dtype *old, struct rc_dtype **newp)
{
	struct rc_dtype *dt;
	int ret;

	ret = dt_copy(old, MPI_COMBINER_DUP, &dt);
	if (ret)
		return ret;
	/* MPI: the duplicate has the committed state of the original */
	dt->flags |= old->flags & RC_DT_COMMITTED;
	dt->env[2] = 1;
	*newp = dt;
	return RC_OK;
}

/*
 * The types of MPI_Type_create_f90_*: predefined (never freed by the user,
 * no reference counting), one per (combiner, p, r), each a copy of the
 * sized Fortran type it stands for, kept until rc_dt_f90_fini.
 */
static struct rc_dtype **dt_f90;
static size_t dt_nf90, dt_cf90;

int rc_dt_f90_get(int combiner, int p, int r, const struct rc_dtype *base,
		  struct rc_dtype **out)
{
	struct rc_dt_contents *c;
	struct rc_dtype *dt, **grown;
	int ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
	size_t i;

	for (i = 0; i < dt_nf90; i++) {
		c = dt_f90[i]->contents;
		if (dt_f90[i]->combiner == combiner && c->ints[0] == p &&
		    (ni == 1 || c->ints[1] == r)) {
			*out = dt_f90[i];
			return RC_OK;
		}
	}
	if (dt_nf90 == dt_cf90) {
		size_t cap = dt_cf90 ? 2 * dt_cf90 : 8;

		grown = realloc(dt_f90, cap * sizeof(*grown));
		if (!grown)
			return RC_ERR_NOMEM;
		dt_f90 = grown;
		dt_cf90 = cap;
	}
	c = rc_dt_contents_new(ni, 0, 0);
	if (!c)
		return RC_ERR_NOMEM;
	if (dt_copy(base, combiner, &dt)) {
		free(c);
		return RC_ERR_NOMEM;
	}
	c->ints[0] = p;
	if (ni == 2)
		c->ints[1] = r;
	rc_dt_set_contents(dt, combiner, c);
	dt->flags |= RC_DT_PREDEFINED | RC_DT_COMMITTED;
	memcpy(dt->name, base->name, sizeof(dt->name));
	dt_f90[dt_nf90++] = dt;
	*out = dt;
	return RC_OK;
}

void rc_dt_f90_fini(void)
{
	size_t i;

	for (i = 0; i < dt_nf90; i++)
		dt_destroy(dt_f90[i]);
	free(dt_f90);
	dt_f90 = NULL;
	dt_nf90 = dt_cf90 = 0;
}

int rc_dt_create_resized(const struct rc_dtype *old, ptrdiff_t lb,
			 ptrdiff_t extent, struct rc_dtype **newp)
{
	struct rc_dtype *dt;
	int ret;

	ret = dt_copy(old, MPI_COMBINER_RESIZED, &dt);
	if (ret)
		return ret;
	dt->flags |= RC_DT_STICKY_LB | RC_DT_STICKY_UB;
	dt->lb = lb;
	dt->ub = lb + extent;
	dt->dalign = dt_calc_dalign(dt);
	dt->env[1] = 2;
	dt->env[2] = 1;
	*newp = dt;
	return RC_OK;
}

/*
 * Subarray: contiguous(subsizes[inner]) of old, then one hvector per outer
 * dimension (blocklength 1, stride = that dimension's row length in
 * bytes), placed at the byte offset of the corner element, then resized to
 * lb 0 and the full array's extent.
 */
int rc_dt_create_subarray(int ndims, const int *sizes, const int *subsizes,
			  const int *starts, int order,
			  const struct rc_dtype *old, struct rc_dtype **newp)
{
	struct rc_dtype *cur, *next;
	ptrdiff_t stride = rc_dt_extent(old), off = 0, v;
	MPI_Aint disp;
	int k, d, ret;

	/* walk the dimensions from the fastest-varying one */
	d = order == MPI_ORDER_C ? ndims - 1 : 0;
	ret = rc_dt_create_contig((size_t)subsizes[d], old, &cur);
	if (ret)
		return ret;
	for (k = 1; k <= ndims; k++) {
		if (__builtin_mul_overflow((ptrdiff_t)starts[d], stride, &v) ||
		    __builtin_add_overflow(off, v, &off) ||
		    __builtin_mul_overflow(stride, (ptrdiff_t)sizes[d],
					   &stride)) {
			ret = RC_ERR_INVAL;
			goto err_release;
		}
		if (k == ndims)
			break;
		d = order == MPI_ORDER_C ? ndims - 1 - k : k;
		ret = rc_dt_create_hvector((size_t)subsizes[d], 1, stride, cur,
					   &next);
		if (ret)
			goto err_release;
		rc_dt_release(cur);
		cur = next;
	}
	/* stride is now the whole array's extent */
	disp = off;
	ret = rc_dt_create_hindexed(1, NULL, 1, &disp, cur, &next);
	if (ret)
		goto err_release;
	rc_dt_release(cur);
	cur = next;
	ret = rc_dt_create_resized(cur, 0, stride, &next);
	if (ret)
		goto err_release;
	rc_dt_release(cur);
	next->combiner = MPI_COMBINER_SUBARRAY;
	next->env[0] = 3 * ndims + 2;
	next->env[1] = 0;
	next->env[2] = 1;
	*newp = next;
	return RC_OK;

err_release:
	rc_dt_release(cur);
	return ret;
}

/* The API's vector and indexed forms (displacements in old's extents). */
int rc_dt_create_vector(size_t count, size_t blocklen, ptrdiff_t stride,
			const struct rc_dtype *old, struct rc_dtype **newp)
{
	struct rc_dtype *dt;
	int ret;

	ret = dt_create_indexed(count, NULL, blocklen, NULL, stride, old,
				MPI_COMBINER_VECTOR, &dt);
	if (ret)
		return ret;
	dt->env[0] = 3;
	*newp = dt;
	return RC_OK;
}

int rc_dt_create_indexed(size_t count, const int *blens, size_t blen,
			 const int *disps, const struct rc_dtype *old,
			 struct rc_dtype **newp)
{
	struct rc_dtype *dt;
	int ret;

	ret = dt_create_indexed(count, blens, blen, disps, 0, old,
				blens ? MPI_COMBINER_INDEXED :
					MPI_COMBINER_INDEXED_BLOCK,
				&dt);
	if (ret)
		return ret;
	dt->env[0] = blens ? 2 * (int)count + 1 : (int)count + 2;
	*newp = dt;
	return RC_OK;
}

/* ---- queries ----------------------------------------------------------- */

MPI_Count rc_dt_get_elements(const struct rc_dtype *dt, MPI_Count bytes)
{
	MPI_Count n, rem, run;
	size_t i, bs;

	if (bytes < 0)
		return MPI_UNDEFINED;
	if (!dt->size)
		return 0;
	n = bytes / (MPI_Count)dt->size * (MPI_Count)dt->nbasic;
	rem = bytes % (MPI_Count)dt->size;
	/* a partial element: walk its signature */
	for (i = 0; rem && i < dt->nsig; i++) {
		bs = rc_basic_size(dt->sig[i].basic);
		run = (MPI_Count)(dt->sig[i].count * bs);
		if (rem >= run) {
			n += (MPI_Count)dt->sig[i].count;
			rem -= run;
		} else {
			if (rem % (MPI_Count)bs)
				return MPI_UNDEFINED;
			n += rem / (MPI_Count)bs;
			rem = 0;
		}
	}
	return n;
}

MPI_Count rc_dt_elements_bytes(const struct rc_dtype *dt, MPI_Count n)
{
	MPI_Count bytes, run;
	size_t i;

	if (n <= 0 || !dt->nbasic)
		return 0;
	bytes = n / (MPI_Count)dt->nbasic * (MPI_Count)dt->size;
	n %= (MPI_Count)dt->nbasic;
	/* a partial element: the first n basic elements of its signature */
	for (i = 0; n && i < dt->nsig; i++) {
		run = (MPI_Count)dt->sig[i].count < n ? (MPI_Count)dt->sig[i].count
						       : n;
		bytes += run * (MPI_Count)rc_basic_size(dt->sig[i].basic);
		n -= run;
	}
	return bytes;
}

/* ---- pack / unpack ----------------------------------------------------- */

/* Small fixed sizes become plain loads and stores. */
static inline __attribute__((always_inline)) void dt_cp(void *d, const void *s,
							size_t n)
{
	switch (n) {
	case 1:
		memcpy(d, s, 1);
		break;
	case 2:
		memcpy(d, s, 2);
		break;
	case 4:
		memcpy(d, s, 4);
		break;
	case 8:
		memcpy(d, s, 8);
		break;
	case 16:
		memcpy(d, s, 16);
		break;
	default:
		rc_copy(d, s, n);
		break;
	}
}

/* Index of the block holding packed byte `off` of an element. */
static size_t dt_find_block(const struct rc_dtype *dt, size_t off)
{
	size_t lo = 0, hi = dt->nblocks, mid;

	if (dt->flags & RC_DT_REGULAR)
		return off / dt->blocks[0].len;
	/* invariant: boff[lo] <= off, and off < boff[hi] (or hi == n) */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (dt->boff[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

#define DT_MOVE(unpack, pk, mem, n)            \
	do {                                   \
		if (unpack)                    \
			dt_cp((void *)(mem), (pk), (n)); \
		else                           \
			dt_cp((pk), (const void *)(mem), (n)); \
	} while (0)

/* The body of dt_move for RC_DT_REGULAR types: whole elements, blocks of
 * `bl` bytes at d0 + b * rstride. */
#define DT_REGULAR(unpack, bl)                                              \
	do {                                                                \
		const uintptr_t d0_ = (uintptr_t)blk[0].disp;               \
		const uintptr_t rs_ = (uintptr_t)dt->rstride;               \
		uintptr_t p_;                                               \
                                                                            \
		for (; len >= size; len -= size, base += ext) {             \
			p_ = base + d0_;                                    \
			for (b = 0; b < nb; b++, p_ += rs_, pk += (bl)) {    \
				if (unpack)                                 \
					memcpy((void *)p_, pk, (bl));       \
				else                                        \
					memcpy(pk, (const void *)p_, (bl)); \
			}                                                   \
		}                                                           \
	} while (0)

/*
 * Move len bytes between packed stream offset `offset` (pk) and the
 * elements at buf: the head finishes a partial element (block found by
 * binary search), the body moves whole elements block by block, the tail
 * starts the last partial one. len is within the stream.
 */
static inline __attribute__((always_inline)) void
dt_move(const struct rc_dtype *dt, uintptr_t buf, size_t offset, char *pk,
	size_t len, const bool unpack)
{
	const struct rc_dt_block *blk = dt->blocks;
	const size_t nb = dt->nblocks, size = dt->size;
	const uintptr_t ext = (uintptr_t)rc_dt_extent(dt);
	size_t in = offset % size, b, bo, n;
	uintptr_t base = buf + (uintptr_t)(offset / size) * ext;
	struct rc_dt_block cur;

	if (in) {
		b = dt_find_block(dt, in);
		bo = in - rc_dt_boff_at(dt, b);
		for (; b < nb && len; b++) {
			cur = rc_dt_block_at(dt, b);
			n = cur.len - bo;
			if (n > len)
				n = len;
			DT_MOVE(unpack, pk, base + (uintptr_t)cur.disp + bo, n);
			pk += n;
			len -= n;
			bo = 0;
		}
		base += ext;
	}
	if (nb == 1) {
		const uintptr_t d0 = (uintptr_t)blk[0].disp;

		for (; len >= size; len -= size, base += ext, pk += size)
			DT_MOVE(unpack, pk, base + d0, size);
	} else if (dt->flags & RC_DT_REGULAR) {
		/* a fixed copy size per loop, so small blocks become plain
		 * loads and stores; no block table traffic */
		switch (blk[0].len) {
		case 4:
			DT_REGULAR(unpack, 4);
			break;
		case 8:
			DT_REGULAR(unpack, 8);
			break;
		case 16:
			DT_REGULAR(unpack, 16);
			break;
		default:
			DT_REGULAR(unpack, blk[0].len);
			break;
		}
	} else {
		for (; len >= size; len -= size, base += ext) {
			for (b = 0; b < nb; b++) {
				DT_MOVE(unpack, pk,
					base + (uintptr_t)blk[b].disp,
					blk[b].len);
				pk += blk[b].len;
			}
		}
	}
	for (b = 0; len; b++) {
		cur = rc_dt_block_at(dt, b);
		n = cur.len < len ? cur.len : len;
		DT_MOVE(unpack, pk, base + (uintptr_t)cur.disp, n);
		pk += n;
		len -= n;
	}
}

/* Clamp [offset, offset + len) to the stream; 0 if nothing to move. */
static inline size_t dt_clamp(const struct rc_dtype *dt, size_t count,
			      size_t offset, size_t len)
{
	size_t total;

	if (!len || !dt->size)
		return 0;
	if (__builtin_mul_overflow(count, dt->size, &total))
		total = SIZE_MAX;
	if (offset >= total)
		return 0;
	return len < total - offset ? len : total - offset;
}

size_t rc_dt_pack(const struct rc_dtype *dt, size_t count, const void *buf,
		  size_t offset, void *out, size_t len)
{
	len = dt_clamp(dt, count, offset, len);
	if (!len)
		return 0;
	if (rc_dt_is_contig(dt, count))
		rc_copy(out,
			(const void *)((uintptr_t)rc_dt_contig_ptr(dt, buf) +
				       offset),
			len);
	else
		dt_move(dt, (uintptr_t)buf, offset, out, len, false);
	return len;
}

size_t rc_dt_unpack(const struct rc_dtype *dt, size_t count, void *buf,
		    size_t offset, const void *in, size_t len)
{
	len = dt_clamp(dt, count, offset, len);
	if (!len)
		return 0;
	if (rc_dt_is_contig(dt, count))
		rc_copy((void *)((uintptr_t)rc_dt_contig_ptr(dt, buf) + offset),
			in, len);
	else
		dt_move(dt, (uintptr_t)buf, offset, (char *)in, len, true);
	return len;
}

/* ---- datatypes that travel (one-sided communication) ------------------- */

struct rc_dtype *rc_dt_of_basic(enum rc_basic b)
{
	static struct rc_dtype *const tab[RC_BASIC_NKINDS] = {
#define RC_X_PD(sym, kind) [RC_BASIC_##kind] = &sym,
		RC_DT_PREDEF_TABLE(RC_X_PD)
#undef RC_X_PD
#define RC_X_PP(pn, vtype, vb, itype, ib, str) [RC_BASIC_##pn] = &DT_PAIR_SYM_##pn,
		RC_PAIR_TABLE(RC_X_PP)
#undef RC_X_PP
	};

	return b > RC_BASIC_NONE && b < RC_BASIC_NKINDS ? tab[b] : NULL;
}

/* Widen dt's true bounds to the block (disp, len). */
static void dt_true_add(struct rc_dtype *dt, ptrdiff_t disp, size_t len)
{
	if (disp < dt->true_lb)
		dt->true_lb = disp;
	if (disp + (ptrdiff_t)len > dt->true_ub)
		dt->true_ub = disp + (ptrdiff_t)len;
}

void rc_dt_get_map(const struct rc_dtype *dt, struct rc_dt_map *m)
{
	m->blocks = dt->blocks;
	m->nblocks = dt->nblocks;
	m->regular = dt->flags & RC_DT_REGULAR;
	m->rstride = dt->rstride;
	m->lb = dt->lb;
	m->extent = rc_dt_extent(dt);
}

int rc_dt_create_flat(enum rc_basic basic, const struct rc_dt_map *m,
		      struct rc_dtype **newp)
{
	size_t esize = basic ? rc_basic_size(basic) : 1, i, size = 0;
	const size_t nlist = m->regular ? 1 : m->nblocks;
	struct rc_dt_block b;
	struct dt_flat f;
	struct rc_dtype *dt;
	ptrdiff_t span, last;
	int ret;

	if (basic < RC_BASIC_NONE || basic >= RC_BASIC_NKINDS || !esize ||
	    (m->regular && m->nblocks < 2))
		return RC_ERR_INVAL;
	dt = dt_alloc(MPI_COMBINER_HINDEXED);
	if (!dt)
		return RC_ERR_NOMEM;
	dt_flat_init(&f);
	dt->true_lb = nlist ? m->blocks[0].disp : 0;
	dt->true_ub = dt->true_lb;
	for (i = 0; i < nlist; i++) {
		b = m->blocks[i];
		/* (a pair's value and int may lie in blocks of their own) */
		if ((!rc_basic_is_pair(basic) && b.len % esize) ||
		    b.len > SIZE_MAX / 2 - size) {
			ret = RC_ERR_INVAL;
			goto err_free;
		}
		size += b.len;
		dt_true_add(dt, b.disp, b.len);
		if (!m->regular)
			dt_flat_block(&f, b.disp, b.len);
	}
	if (m->regular) {
		/* the last block bounds it on the stride's side */
		b = m->blocks[0];
		if (__builtin_mul_overflow(m->nblocks, b.len, &size) ||
		    size > SIZE_MAX / 2 ||
		    __builtin_mul_overflow((ptrdiff_t)(m->nblocks - 1),
					   m->rstride, &span) ||
		    __builtin_add_overflow(b.disp, span, &last)) {
			ret = RC_ERR_INVAL;
			goto err_free;
		}
		dt_true_add(dt, last, b.len);
		dt_flat_run(&f, b.disp, b.len, m->rstride, m->nblocks);
	}
	dt_flat_sig(&f, basic ? basic : RC_BASIC_BYTE, size / esize);
	dt->basic = basic;
	dt->size = size;
	dt->nbasic = size / esize;
	dt->align = basic ? rc_basic_align(basic) : 1;
	dt->lb = m->lb;
	dt->ub = m->lb + m->extent;
	dt->flags = RC_DT_COMMITTED | RC_DT_STICKY_LB | RC_DT_STICKY_UB;
	ret = dt_finish(dt, &f);
	if (ret) {
		dt_destroy(dt);
		return ret;
	}
	*newp = dt;
	return RC_OK;

err_free:
	dt_flat_free(&f);
	rc_hobj_free(RC_HK_DTYPE, dt);
	return ret;
}
