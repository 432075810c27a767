/*
 * test_dtype.c - unit tests of the datatype engine (runtime/dtype.c) and the
 * datatype/pack MPI functions (runtime/dtype_api.c).
 *
 * Every derived type is built twice: through the MPI constructors, and as a
 * reference type map written here independently, one (displacement, length,
 * basic kind) entry per basic element, in type-map order, built by walking
 * the constructor's definition in the standard element by element (a
 * subarray by enumerating its index tuples, not by nesting vectors). The
 * reference packs by copying entry after entry; the engine's pack and
 * unpack, at every offset and length split for small types, must produce
 * the same bytes. Sizes, bounds and extents are also checked against values
 * computed by hand.
 *
 * MPI_Init does not exist in this layer: the API tests set
 * rc_g.initialized and a minimal world communicator whose handler is
 * MPI_ERRORS_RETURN, so errors come back as classes; the fatal path is
 * tested in forked cases that expect the exit code.
 */
#include <check.h>
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "api.h"
#include "api_env.h"
#include "copy.h"
#include "dtype.h"

#define TMO 30

/* ---- API environment ----------------------------------------------------- */

#define WORLD ((MPI_Comm)&test_world)

/* ---- predefined types, as this test knows them --------------------------- */

struct t_fi { float v; int i; };
struct t_di { double v; int i; };
struct t_li { long v; int i; };
struct t_ii { int v; int i; };
struct t_si { short v; int i; };
struct t_ldi { long double v; int i; };
struct t_2ii { int32_t v; int32_t i; };
struct t_2r { float v; float i; };
struct t_2d { double v; double i; };

struct pre {
	MPI_Datatype dt;
	const char *name;
	size_t size, extent, align;
	enum rc_basic basic;	/* kind, or the value's kind for pairs */
	bool pair;
	size_t vsize, ioff;	/* pairs: value size, offset of the index */
	size_t isize;		/* pairs: index size */
};

#define PB(d, ct, k, nm)                                              \
	{ d, nm, sizeof(ct), sizeof(ct), _Alignof(ct), RC_BASIC_##k, false, \
	  0, 0, 0 }
#define PP(d, st, vk, nm)                                                 \
	{ d, nm, sizeof(((st *)0)->v) + sizeof(((st *)0)->i), sizeof(st), \
	  _Alignof(st), RC_BASIC_##vk, true, sizeof(((st *)0)->v),        \
	  offsetof(st, i), sizeof(((st *)0)->i) }

static const struct pre pre_tab[] = {
	PB(MPI_CHAR, char, CHAR, "MPI_CHAR"),
	PB(MPI_SIGNED_CHAR, signed char, SIGNED_CHAR, "MPI_SIGNED_CHAR"),
	PB(MPI_UNSIGNED_CHAR, unsigned char, UNSIGNED_CHAR,
	   "MPI_UNSIGNED_CHAR"),
	PB(MPI_BYTE, unsigned char, BYTE, "MPI_BYTE"),
	PB(MPI_SHORT, short, SHORT, "MPI_SHORT"),
	PB(MPI_UNSIGNED_SHORT, unsigned short, UNSIGNED_SHORT,
	   "MPI_UNSIGNED_SHORT"),
	PB(MPI_INT, int, INT, "MPI_INT"),
	PB(MPI_UNSIGNED, unsigned, UNSIGNED, "MPI_UNSIGNED"),
	PB(MPI_LONG, long, LONG, "MPI_LONG"),
	PB(MPI_UNSIGNED_LONG, unsigned long, UNSIGNED_LONG,
	   "MPI_UNSIGNED_LONG"),
	PB(MPI_LONG_LONG_INT, long long, LONG_LONG, "MPI_LONG_LONG_INT"),
	PB(MPI_LONG_LONG, long long, LONG_LONG, "MPI_LONG_LONG_INT"),
	PB(MPI_UNSIGNED_LONG_LONG, unsigned long long, UNSIGNED_LONG_LONG,
	   "MPI_UNSIGNED_LONG_LONG"),
	PB(MPI_FLOAT, float, FLOAT, "MPI_FLOAT"),
	PB(MPI_DOUBLE, double, DOUBLE, "MPI_DOUBLE"),
	PB(MPI_LONG_DOUBLE, long double, LONG_DOUBLE, "MPI_LONG_DOUBLE"),
	PB(MPI_WCHAR, wchar_t, WCHAR, "MPI_WCHAR"),
	PB(MPI_C_BOOL, _Bool, C_BOOL, "MPI_C_BOOL"),
	PB(MPI_INT8_T, int8_t, INT8_T, "MPI_INT8_T"),
	PB(MPI_INT16_T, int16_t, INT16_T, "MPI_INT16_T"),
	PB(MPI_INT32_T, int32_t, INT32_T, "MPI_INT32_T"),
	PB(MPI_INT64_T, int64_t, INT64_T, "MPI_INT64_T"),
	PB(MPI_UINT8_T, uint8_t, UINT8_T, "MPI_UINT8_T"),
	PB(MPI_UINT16_T, uint16_t, UINT16_T, "MPI_UINT16_T"),
	PB(MPI_UINT32_T, uint32_t, UINT32_T, "MPI_UINT32_T"),
	PB(MPI_UINT64_T, uint64_t, UINT64_T, "MPI_UINT64_T"),
	PB(MPI_C_COMPLEX, float _Complex, C_FLOAT_COMPLEX,
	   "MPI_C_FLOAT_COMPLEX"),
	PB(MPI_C_FLOAT_COMPLEX, float _Complex, C_FLOAT_COMPLEX,
	   "MPI_C_FLOAT_COMPLEX"),
	PB(MPI_C_DOUBLE_COMPLEX, double _Complex, C_DOUBLE_COMPLEX,
	   "MPI_C_DOUBLE_COMPLEX"),
	PB(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex,
	   C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX"),
	PB(MPI_AINT, MPI_Aint, AINT, "MPI_AINT"),
	PB(MPI_OFFSET, MPI_Offset, OFFSET, "MPI_OFFSET"),
	PB(MPI_COUNT, MPI_Count, COUNT, "MPI_COUNT"),
	PB(MPI_PACKED, unsigned char, PACKED, "MPI_PACKED"),
	PP(MPI_FLOAT_INT, struct t_fi, FLOAT, "MPI_FLOAT_INT"),
	PP(MPI_DOUBLE_INT, struct t_di, DOUBLE, "MPI_DOUBLE_INT"),
	PP(MPI_LONG_INT, struct t_li, LONG, "MPI_LONG_INT"),
	PP(MPI_2INT, struct t_ii, INT, "MPI_2INT"),
	PP(MPI_SHORT_INT, struct t_si, SHORT, "MPI_SHORT_INT"),
	PP(MPI_LONG_DOUBLE_INT, struct t_ldi, LONG_DOUBLE,
	   "MPI_LONG_DOUBLE_INT"),
	/* Fortran and C++ named types: the sizes of gfortran's default kinds
	 * and of C++'s bool and std::complex */
	PB(MPI_CHARACTER, char, CHARACTER, "MPI_CHARACTER"),
	PB(MPI_LOGICAL, int32_t, LOGICAL, "MPI_LOGICAL"),
	PB(MPI_INTEGER, int32_t, INTEGER, "MPI_INTEGER"),
	PB(MPI_REAL, float, REAL, "MPI_REAL"),
	PB(MPI_DOUBLE_PRECISION, double, DOUBLE_PRECISION,
	   "MPI_DOUBLE_PRECISION"),
	PB(MPI_COMPLEX, float _Complex, COMPLEX, "MPI_COMPLEX"),
	PB(MPI_DOUBLE_COMPLEX, double _Complex, DOUBLE_COMPLEX,
	   "MPI_DOUBLE_COMPLEX"),
	PB(MPI_INTEGER1, int8_t, INTEGER1, "MPI_INTEGER1"),
	PB(MPI_INTEGER2, int16_t, INTEGER2, "MPI_INTEGER2"),
	PB(MPI_INTEGER4, int32_t, INTEGER4, "MPI_INTEGER4"),
	PB(MPI_INTEGER8, int64_t, INTEGER8, "MPI_INTEGER8"),
	PB(MPI_REAL4, float, REAL4, "MPI_REAL4"),
	PB(MPI_REAL8, double, REAL8, "MPI_REAL8"),
	PB(MPI_COMPLEX8, float _Complex, COMPLEX8, "MPI_COMPLEX8"),
	PB(MPI_COMPLEX16, double _Complex, COMPLEX16, "MPI_COMPLEX16"),
	PB(MPI_CXX_BOOL, _Bool, CXX_BOOL, "MPI_CXX_BOOL"),
	PB(MPI_CXX_FLOAT_COMPLEX, float _Complex, CXX_FLOAT_COMPLEX,
	   "MPI_CXX_FLOAT_COMPLEX"),
	PB(MPI_CXX_DOUBLE_COMPLEX, double _Complex, CXX_DOUBLE_COMPLEX,
	   "MPI_CXX_DOUBLE_COMPLEX"),
	PB(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex,
	   CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX"),
	PP(MPI_2INTEGER, struct t_2ii, INTEGER, "MPI_2INTEGER"),
	PP(MPI_2REAL, struct t_2r, REAL, "MPI_2REAL"),
	PP(MPI_2DOUBLE_PRECISION, struct t_2d, DOUBLE_PRECISION,
	   "MPI_2DOUBLE_PRECISION"),
};
#define NPRE (sizeof(pre_tab) / sizeof(pre_tab[0]))

static const struct pre *pre_find(MPI_Datatype dt)
{
	size_t i;

	for (i = 0; i < NPRE; i++)
		if (pre_tab[i].dt == dt)
			return &pre_tab[i];
	return NULL;
}

/* ---- reference type maps ------------------------------------------------- */

struct ref_ent {
	ptrdiff_t disp;
	size_t len;
};

struct ref {
	struct ref_ent *e;
	size_t n, cap;
	ptrdiff_t lb, ub;
	bool stick_lb, stick_ub;
	size_t align;
};

static ptrdiff_t ref_ext(const struct ref *r)
{
	return r->ub - r->lb;
}

static struct ref *ref_alloc(void)
{
	struct ref *r = calloc(1, sizeof(*r));

	ck_assert_ptr_nonnull(r);
	r->align = 1;
	return r;
}

static void ref_free(struct ref *r)
{
	if (r) {
		free(r->e);
		free(r);
	}
}

static void ref_push(struct ref *r, ptrdiff_t disp, size_t len)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->e = realloc(r->e, r->cap * sizeof(*r->e));
		ck_assert_ptr_nonnull(r->e);
	}
	r->e[r->n].disp = disp;
	r->e[r->n].len = len;
	r->n++;
}

static size_t ref_size(const struct ref *r)
{
	size_t i, s = 0;

	for (i = 0; i < r->n; i++)
		s += r->e[i].len;
	return s;
}

static struct ref *ref_pre(MPI_Datatype dt)
{
	const struct pre *p = pre_find(dt);
	struct ref *r = ref_alloc();

	ck_assert_ptr_nonnull(p);
	if (p->pair) {
		ref_push(r, 0, p->vsize);
		ref_push(r, (ptrdiff_t)p->ioff, p->isize);
	} else {
		ref_push(r, 0, p->size);
	}
	r->lb = 0;
	r->ub = (ptrdiff_t)p->extent;
	r->align = p->align;
	return r;
}

/* Bounds of a type built from copies of other types. */
struct racc {
	bool lb_set, ub_set, slb_set, sub_set;
	ptrdiff_t lb, ub, slb, sub;
	size_t align;
};

/* One copy of c at byte displacement disp. */
static void ref_copy(struct ref *r, struct racc *a, const struct ref *c,
		     ptrdiff_t disp)
{
	ptrdiff_t v;
	size_t i;

	for (i = 0; i < c->n; i++)
		ref_push(r, disp + c->e[i].disp, c->e[i].len);
	v = c->lb + disp;
	if (c->stick_lb) {
		a->slb = a->slb_set && a->slb < v ? a->slb : v;
		a->slb_set = true;
	} else if (c->n) {
		a->lb = a->lb_set && a->lb < v ? a->lb : v;
		a->lb_set = true;
	}
	v = c->ub + disp;
	if (c->stick_ub) {
		a->sub = a->sub_set && a->sub > v ? a->sub : v;
		a->sub_set = true;
	} else if (c->n) {
		a->ub = a->ub_set && a->ub > v ? a->ub : v;
		a->ub_set = true;
	}
}

static void ref_close(struct ref *r, struct racc *a, bool is_struct)
{
	ptrdiff_t ext;

	r->lb = a->slb_set ? a->slb : a->lb_set ? a->lb : 0;
	r->ub = a->sub_set ? a->sub : a->ub_set ? a->ub : 0;
	r->stick_lb = a->slb_set;
	r->stick_ub = a->sub_set;
	ext = r->ub - r->lb;
	if (is_struct && !a->sub_set && ext > 0 && ext % (ptrdiff_t)r->align)
		r->ub += (ptrdiff_t)r->align - ext % (ptrdiff_t)r->align;
}

/* The type map of count blocks, block i being blens[i] copies of cs[i]
 * one extent apart starting at byte displacement disps[i]. */
static struct ref *ref_blocks(int count, const int *blens,
			      const ptrdiff_t *disps, struct ref *const *cs,
			      bool is_struct)
{
	struct ref *r = ref_alloc();
	struct racc a = { 0 };
	int i, j;

	for (i = 0; i < count; i++) {
		if (cs[i]->align > r->align)
			r->align = cs[i]->align;
		for (j = 0; j < blens[i]; j++)
			ref_copy(r, &a, cs[i], disps[i] + j * ref_ext(cs[i]));
	}
	ref_close(r, &a, is_struct);
	return r;
}

/* The same child for every block. */
static struct ref *ref_hindexed(int count, const int *blens,
				const ptrdiff_t *disps, struct ref *c)
{
	struct ref **cs = calloc(count ? count : 1, sizeof(*cs));
	struct ref *r;
	int i;

	for (i = 0; i < count; i++)
		cs[i] = c;
	r = ref_blocks(count, blens, disps, cs, false);
	free(cs);
	return r;
}

static struct ref *ref_hvector(int count, int blen, ptrdiff_t stride,
			       struct ref *c)
{
	int *bl = calloc(count ? count : 1, sizeof(*bl));
	ptrdiff_t *d = calloc(count ? count : 1, sizeof(*d));
	struct ref *r;
	int i;

	for (i = 0; i < count; i++) {
		bl[i] = blen;
		d[i] = i * stride;
	}
	r = ref_hindexed(count, bl, d, c);
	free(bl);
	free(d);
	return r;
}

static struct ref *ref_contig(int count, struct ref *c)
{
	return ref_hvector(count, 1, ref_ext(c), c);
}

static struct ref *ref_resized(struct ref *c, ptrdiff_t lb, ptrdiff_t ext)
{
	struct ref *r = ref_alloc();
	size_t i;

	for (i = 0; i < c->n; i++)
		ref_push(r, c->e[i].disp, c->e[i].len);
	r->lb = lb;
	r->ub = lb + ext;
	r->stick_lb = r->stick_ub = true;
	r->align = c->align;
	return r;
}

/* Subarray by enumerating the index tuples in storage order. */
static struct ref *ref_subarray(int nd, const int *sizes, const int *subs,
				const int *starts, int order, struct ref *c)
{
	struct ref *r = ref_alloc();
	struct racc a = { 0 };
	int idx[8] = { 0 }, k, dim;
	ptrdiff_t lin, total = 1;

	ck_assert_int_le(nd, 8);
	for (k = 0; k < nd; k++)
		total *= sizes[k];
	for (;;) {
		/* linear index of starts + idx in the full array */
		lin = 0;
		for (k = 0; k < nd; k++) {
			dim = order == MPI_ORDER_C ? k : nd - 1 - k;
			lin = lin * sizes[dim] + starts[dim] + idx[dim];
		}
		ref_copy(r, &a, c, lin * ref_ext(c));
		/* next tuple: the fastest dimension first */
		for (k = 0; k < nd; k++) {
			dim = order == MPI_ORDER_C ? nd - 1 - k : k;
			if (++idx[dim] < subs[dim])
				break;
			idx[dim] = 0;
		}
		if (k == nd)
			break;
	}
	r->align = c->align;
	ref_close(r, &a, false);
	r->lb = 0;
	r->ub = total * ref_ext(c);
	r->stick_lb = r->stick_ub = true;
	return r;
}

static void ref_pack(const struct ref *r, size_t count, uintptr_t buf,
		     unsigned char *out)
{
	size_t i, j;

	for (i = 0; i < count; i++, buf += (uintptr_t)ref_ext(r))
		for (j = 0; j < r->n; j++) {
			memcpy(out, (void *)(buf + (uintptr_t)r->e[j].disp),
			       r->e[j].len);
			out += r->e[j].len;
		}
}

static void ref_unpack(const struct ref *r, size_t count, uintptr_t buf,
		       const unsigned char *in)
{
	size_t i, j;

	for (i = 0; i < count; i++, buf += (uintptr_t)ref_ext(r))
		for (j = 0; j < r->n; j++) {
			memcpy((void *)(buf + (uintptr_t)r->e[j].disp), in,
			       r->e[j].len);
			in += r->e[j].len;
		}
}

/* ---- comparing a datatype with its reference ----------------------------- */

/* A memory region covering count elements of r, with guard bytes. */
struct region {
	unsigned char *mem;
	size_t len;
	uintptr_t buf;		/* the buffer address passed to pack */
};

#define GUARD 64

static void region_init(struct region *g, const struct ref *r, size_t count)
{
	ptrdiff_t lo = 0, hi = 0, tlb = PTRDIFF_MAX, tub = PTRDIFF_MIN, v;
	size_t i, j;

	for (j = 0; j < r->n; j++) {
		if (r->e[j].disp < tlb)
			tlb = r->e[j].disp;
		if (r->e[j].disp + (ptrdiff_t)r->e[j].len > tub)
			tub = r->e[j].disp + (ptrdiff_t)r->e[j].len;
	}
	for (i = 0; r->n && i < count; i++) {
		v = (ptrdiff_t)i * ref_ext(r);
		if (i == 0 || v + tlb < lo)
			lo = v + tlb;
		if (i == 0 || v + tub > hi)
			hi = v + tub;
	}
	g->len = (size_t)(hi - lo) + 2 * GUARD;
	/* 64-byte aligned so typed access in op tests would be legal */
	g->mem = aligned_alloc(64, (g->len + 63) / 64 * 64);
	ck_assert_ptr_nonnull(g->mem);
	g->buf = (uintptr_t)g->mem + GUARD - (uintptr_t)lo;
}

static void region_fill(struct region *g, unsigned seed)
{
	size_t i;

	for (i = 0; i < g->len; i++)
		g->mem[i] = (unsigned char)(i * 7 + seed * 13 + 3);
}

static void check_bounds(MPI_Datatype dt, const struct ref *r)
{
	ptrdiff_t tlb = 0, tub = 0;
	MPI_Aint lb, ext, tlb_a, text_a;
	MPI_Count size_x, lb_x, ext_x;
	int size;
	size_t j;

	for (j = 0; j < r->n; j++) {
		if (j == 0 || r->e[j].disp < tlb)
			tlb = r->e[j].disp;
		if (j == 0 || r->e[j].disp + (ptrdiff_t)r->e[j].len > tub)
			tub = r->e[j].disp + (ptrdiff_t)r->e[j].len;
	}
	ck_assert_int_eq(dt->size, ref_size(r));
	ck_assert_int_eq(dt->nbasic, r->n);
	ck_assert_int_eq(dt->lb, r->lb);
	ck_assert_int_eq(dt->ub, r->ub);
	ck_assert_int_eq(dt->true_lb, tlb);
	ck_assert_int_eq(dt->true_ub, tub);

	ck_assert_int_eq(MPI_Type_size(dt, &size), MPI_SUCCESS);
	ck_assert_int_eq(size, (int)ref_size(r));
	ck_assert_int_eq(MPI_Type_size_x(dt, &size_x), MPI_SUCCESS);
	ck_assert_int_eq(size_x, (MPI_Count)ref_size(r));
	ck_assert_int_eq(MPI_Type_get_extent(dt, &lb, &ext), MPI_SUCCESS);
	ck_assert_int_eq(lb, r->lb);
	ck_assert_int_eq(ext, ref_ext(r));
	ck_assert_int_eq(MPI_Type_get_extent_x(dt, &lb_x, &ext_x),
			 MPI_SUCCESS);
	ck_assert_int_eq(lb_x, r->lb);
	ck_assert_int_eq(ext_x, ref_ext(r));
	ck_assert_int_eq(MPI_Type_get_true_extent(dt, &tlb_a, &text_a),
			 MPI_SUCCESS);
	ck_assert_int_eq(tlb_a, tlb);
	ck_assert_int_eq(text_a, tub - tlb);
	ck_assert_int_eq(MPI_Type_get_true_extent_x(dt, &lb_x, &ext_x),
			 MPI_SUCCESS);
	ck_assert_int_eq(lb_x, tlb);
	ck_assert_int_eq(ext_x, tub - tlb);
}

/* Whole-stream pack and unpack of count elements. */
static void check_pack(MPI_Datatype dt, const struct ref *r, size_t count)
{
	struct region src, dst, exp;
	size_t total = count * ref_size(r);
	unsigned char *p_eng = malloc(total + 1), *p_ref = malloc(total + 1);

	region_init(&src, r, count);
	region_init(&dst, r, count);
	region_init(&exp, r, count);
	region_fill(&src, 1);
	memset(dst.mem, 0xee, dst.len);
	memset(exp.mem, 0xee, exp.len);

	ref_pack(r, count, src.buf, p_ref);
	ck_assert_uint_eq(rc_dt_pack(dt, count, (void *)src.buf, 0, p_eng,
				     total + 1), total);
	ck_assert_mem_eq(p_eng, p_ref, total);

	ref_unpack(r, count, exp.buf, p_ref);
	ck_assert_uint_eq(rc_dt_unpack(dt, count, (void *)dst.buf, 0, p_ref,
				       total + 1), total);
	ck_assert_mem_eq(dst.mem, exp.mem, dst.len);

	/* past the end moves nothing */
	ck_assert_uint_eq(rc_dt_pack(dt, count, (void *)src.buf, total, p_eng,
				     8), 0);
	ck_assert_uint_eq(rc_dt_unpack(dt, count, (void *)dst.buf, total,
				       p_ref, 8), 0);
	free(src.mem);
	free(dst.mem);
	free(exp.mem);
	free(p_eng);
	free(p_ref);
}

/* Every (offset, len) of pack; every 3-chunk split of unpack. */
static void check_splits(MPI_Datatype dt, const struct ref *r, size_t count)
{
	struct region src, dst, exp;
	size_t total = count * ref_size(r), off, len, a, b, n;
	unsigned char *p_ref = malloc(total + 1), *p = malloc(total + 1);

	region_init(&src, r, count);
	region_init(&dst, r, count);
	region_init(&exp, r, count);
	region_fill(&src, 2);
	ref_pack(r, count, src.buf, p_ref);
	memset(exp.mem, 0xee, exp.len);
	ref_unpack(r, count, exp.buf, p_ref);

	for (off = 0; off <= total; off++)
		for (len = 0; len <= total - off + 1; len++) {
			memset(p, 0x55, total + 1);
			n = rc_dt_pack(dt, count, (void *)src.buf, off, p, len);
			ck_assert_uint_eq(n, len < total - off ? len :
								 total - off);
			ck_assert_mem_eq(p, p_ref + off, n);
			ck_assert_uint_eq(p[n], 0x55);
		}
	for (a = 0; a <= total; a++)
		for (b = a; b <= total; b++) {
			memset(dst.mem, 0xee, dst.len);
			ck_assert_uint_eq(rc_dt_unpack(dt, count,
						       (void *)dst.buf, 0,
						       p_ref, a), a);
			ck_assert_uint_eq(rc_dt_unpack(dt, count,
						       (void *)dst.buf, a,
						       p_ref + a, b - a),
					  b - a);
			ck_assert_uint_eq(rc_dt_unpack(dt, count,
						       (void *)dst.buf, b,
						       p_ref + b, total - b),
					  total - b);
			ck_assert_mem_eq(dst.mem, exp.mem, dst.len);
		}
	free(src.mem);
	free(dst.mem);
	free(exp.mem);
	free(p_ref);
	free(p);
}

/* MPI_Get_elements of every byte count up to count elements. */
static void check_elements(MPI_Datatype dt, const struct ref *r, size_t count)
{
	size_t bytes, i, j, acc, nel;
	MPI_Count want;

	for (bytes = 0; bytes <= count * ref_size(r); bytes++) {
		acc = 0;
		nel = 0;
		want = -1;
		for (i = 0; i < count && want < 0; i++)
			for (j = 0; j < r->n; j++) {
				if (acc == bytes) {
					want = (MPI_Count)nel;
					break;
				}
				if (acc > bytes) {
					want = MPI_UNDEFINED;
					break;
				}
				acc += r->e[j].len;
				nel++;
			}
		if (want < 0)
			want = acc == bytes ? (MPI_Count)nel : MPI_UNDEFINED;
		ck_assert_msg(rc_dt_get_elements(dt, (MPI_Count)bytes) == want,
			      "get_elements(%zu bytes) = %lld, want %lld",
			      bytes, rc_dt_get_elements(dt, (MPI_Count)bytes),
			      want);
	}
}

/* The full comparison, counts 0..3; splits while the stream is small. */
static void check_type(MPI_Datatype dt, const struct ref *r)
{
	size_t count;

	check_bounds(dt, r);
	for (count = 0; count <= 3; count++)
		check_pack(dt, r, count);
	if (ref_size(r) * 2 <= 160)
		check_splits(dt, r, 2);
	else if (ref_size(r) <= 400)
		check_splits(dt, r, 1);
	check_elements(dt, r, 2);
}

/* ---- the derived types under test ---------------------------------------- */

struct tcase_dt {
	const char *what;
	MPI_Datatype (*build)(struct ref **r);
};

static MPI_Datatype commit(MPI_Datatype t)
{
	ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
	return t;
}

static void dfree(MPI_Datatype t)
{
	ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
	ck_assert_ptr_null(t);
}

static MPI_Datatype b_contig(struct ref **r)
{
	MPI_Datatype t;
	struct ref *c = ref_pre(MPI_INT);

	ck_assert_int_eq(MPI_Type_contiguous(5, MPI_INT, &t), MPI_SUCCESS);
	*r = ref_contig(5, c);
	ref_free(c);
	return commit(t);
}

static MPI_Datatype b_vector(struct ref **r)
{
	MPI_Datatype t;
	struct ref *c = ref_pre(MPI_DOUBLE);

	ck_assert_int_eq(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t), MPI_SUCCESS);
	*r = ref_hvector(3, 2, 4 * 8, c);
	ref_free(c);
	return commit(t);
}

static MPI_Datatype b_vector_neg(struct ref **r)
{
	MPI_Datatype t;
	struct ref *c = ref_pre(MPI_INT);

	ck_assert_int_eq(MPI_Type_vector(4, 1, -2, MPI_INT, &t), MPI_SUCCESS);
	*r = ref_hvector(4, 1, -8, c);
	ref_free(c);
	return commit(t);
}

static MPI_Datatype b_hvector(struct ref **r)
{
	MPI_Datatype t;
	struct ref *c = ref_pre(MPI_SHORT);

	ck_assert_int_eq(MPI_Type_create_hvector(3, 2, 20, MPI_SHORT, &t),
			 MPI_SUCCESS);
	*r = ref_hvector(3, 2, 20, c);
	ref_free(c);
	return commit(t);
}

/* overlapping blocks: unpack order must be type-map order */
static MPI_Datatype b_hvector_overlap(struct ref **r)
{
	MPI_Datatype t;
	struct ref *c = ref_pre(MPI_INT);

	ck_assert_int_eq(MPI_Type_create_hvector(3, 2, 2, MPI_INT, &t),
			 MPI_SUCCESS);
	*r = ref_hvector(3, 2, 2, c);
	ref_free(c);
	return commit(t);
}

static MPI_Datatype b_indexed(struct ref **r)
{
	static const int bl[] = { 2, 0, 3, 1 }, dp[] = { 5, 9, -3, 1 };
	ptrdiff_t d[4];
	MPI_Datatype t;
	struct ref *c = ref_pre(MPI_INT);
	int i;

	ck_assert_int_eq(MPI_Type_indexed(4, bl, dp, MPI_INT, &t), MPI_SUCCESS);
	for (i = 0; i < 4; i++)
		d[i] = dp[i] * 4;
	*r = ref_hindexed(4, bl, d, c);
	ref_free(c);
	return commit(t);
}

static MPI_Datatype b_hindexed(struct ref **r)
{
	static const int bl[] = { 1, 2, 1 };
	static const MPI_Aint dp[] = { 40, -8, 0 };
	static const ptrdiff_t d[] = { 40, -8, 0 };
	MPI_Datatype t;
	struct ref *c = ref_pre(MPI_DOUBLE);

	ck_assert_int_eq(MPI_Type_create_hindexed(3, bl, dp, MPI_DOUBLE, &t),
			 MPI_SUCCESS);
	*r = ref_hindexed(3, bl, d, c);
	ref_free(c);
	return commit(t);
}

static MPI_Datatype b_indexed_block(struct ref **r)
{
	static const int dp[] = { 6, 0, 3, -2 }, bl[] = { 2, 2, 2, 2 };
	ptrdiff_t d[4];
	MPI_Datatype t;
	struct ref *c = ref_pre(MPI_SHORT);
	int i;

	ck_assert_int_eq(MPI_Type_create_indexed_block(4, 2, dp, MPI_SHORT, &t),
			 MPI_SUCCESS);
	for (i = 0; i < 4; i++)
		d[i] = dp[i] * 2;
	*r = ref_hindexed(4, bl, d, c);
	ref_free(c);
	return commit(t);
}

/* misaligned byte displacements */
static MPI_Datatype b_hindexed_block(struct ref **r)
{
	static const MPI_Aint dp[] = { 5, 1, 13 };
	static const ptrdiff_t d[] = { 5, 1, 13 };
	static const int bl[] = { 1, 1, 1 };
	MPI_Datatype t;
	struct ref *c = ref_pre(MPI_INT);

	ck_assert_int_eq(MPI_Type_create_hindexed_block(3, 1, dp, MPI_INT, &t),
			 MPI_SUCCESS);
	*r = ref_hindexed(3, bl, d, c);
	ref_free(c);
	return commit(t);
}

static MPI_Datatype mk_struct(int n, const int *bl, const MPI_Aint *dp,
			      const MPI_Datatype *ts, struct ref **r)
{
	struct ref *cs[8];
	ptrdiff_t d[8];
	MPI_Datatype t;
	int i;

	ck_assert_int_le(n, 8);
	ck_assert_int_eq(MPI_Type_create_struct(n, bl, dp, ts, &t),
			 MPI_SUCCESS);
	for (i = 0; i < n; i++) {
		cs[i] = ref_pre(ts[i]);
		d[i] = dp[i];
	}
	*r = ref_blocks(n, bl, d, cs, true);
	for (i = 0; i < n; i++)
		ref_free(cs[i]);
	return t;
}

static MPI_Datatype b_struct(struct ref **r)
{
	static const int bl[] = { 1, 1, 2 };
	static const MPI_Aint dp[] = { 0, 8, 16 };
	const MPI_Datatype ts[] = { MPI_CHAR, MPI_DOUBLE, MPI_INT };

	return commit(mk_struct(3, bl, dp, ts, r));
}

/* out of order, with padding to the alignment of double */
static MPI_Datatype b_struct_ooo(struct ref **r)
{
	static const int bl[] = { 1, 3, 1 };
	static const MPI_Aint dp[] = { 16, 0, 8 };
	const MPI_Datatype ts[] = { MPI_DOUBLE, MPI_CHAR, MPI_INT };

	return commit(mk_struct(3, bl, dp, ts, r));
}

/* a struct of a pair type with a hole, and a zero-length entry */
static MPI_Datatype b_struct_pair(struct ref **r)
{
	static const int bl[] = { 2, 0, 1 };
	static const MPI_Aint dp[] = { 8, 100, 1 };
	const MPI_Datatype ts[] = { MPI_SHORT_INT, MPI_DOUBLE, MPI_CHAR };

	return commit(mk_struct(3, bl, dp, ts, r));
}

static MPI_Datatype b_vector_of_struct(struct ref **r)
{
	static const int bl[] = { 1, 1, 1 };
	static const MPI_Aint dp[] = { 0, 4, 8 };
	const MPI_Datatype ts[] = { MPI_CHAR, MPI_INT, MPI_CHAR };
	struct ref *rs;
	MPI_Datatype s, t;

	s = mk_struct(3, bl, dp, ts, &rs);
	/* struct extent: 9 rounded up to 12 */
	ck_assert_int_eq(rc_dt_extent(s), 12);
	ck_assert_int_eq(MPI_Type_vector(3, 2, 3, s, &t), MPI_SUCCESS);
	*r = ref_hvector(3, 2, 3 * ref_ext(rs), rs);
	ref_free(rs);
	dfree(s);
	return commit(t);
}

static MPI_Datatype b_indexed_of_resized(struct ref **r)
{
	static const int bl[] = { 2, 1, 2 }, dp[] = { 0, 4, -3 };
	ptrdiff_t d[3];
	struct ref *c = ref_pre(MPI_INT), *rr;
	MPI_Datatype rt, t;
	int i;

	ck_assert_int_eq(MPI_Type_create_resized(MPI_INT, -4, 12, &rt),
			 MPI_SUCCESS);
	rr = ref_resized(c, -4, 12);
	ck_assert_int_eq(MPI_Type_indexed(3, bl, dp, rt, &t), MPI_SUCCESS);
	for (i = 0; i < 3; i++)
		d[i] = dp[i] * 12;
	*r = ref_hindexed(3, bl, d, rr);
	ref_free(c);
	ref_free(rr);
	dfree(rt);
	return commit(t);
}

/* a sticky lb/ub wins over data outside it */
static MPI_Datatype b_struct_sticky(struct ref **r)
{
	static const int bl[] = { 1, 2 };
	static const MPI_Aint dp[] = { -100, 0 };
	struct ref *cs[2], *c = ref_pre(MPI_INT);
	ptrdiff_t d[2] = { -100, 0 };
	MPI_Datatype ts[2], t;

	ck_assert_int_eq(MPI_Type_create_resized(MPI_INT, 0, 8, &ts[1]),
			 MPI_SUCCESS);
	ts[0] = MPI_INT;
	ck_assert_int_eq(MPI_Type_create_struct(2, bl, dp, ts, &t),
			 MPI_SUCCESS);
	cs[0] = c;
	cs[1] = ref_resized(c, 0, 8);
	*r = ref_blocks(2, bl, d, cs, true);
	ck_assert_int_eq((*r)->lb, 0);
	ck_assert_int_eq((*r)->ub, 16);
	ref_free(c);
	ref_free(cs[1]);
	dfree(ts[1]);
	return commit(t);
}

static MPI_Datatype b_resized_neg(struct ref **r)
{
	struct ref *c = ref_pre(MPI_DOUBLE);
	MPI_Datatype t;

	ck_assert_int_eq(MPI_Type_create_resized(MPI_DOUBLE, 0, -16, &t),
			 MPI_SUCCESS);
	*r = ref_resized(c, 0, -16);
	ref_free(c);
	return commit(t);
}

static MPI_Datatype mk_subarray(int nd, const int *sz, const int *sub,
				const int *st, int order, MPI_Datatype old,
				struct ref *rold, struct ref **r)
{
	MPI_Datatype t;

	ck_assert_int_eq(MPI_Type_create_subarray(nd, sz, sub, st, order, old,
						  &t),
			 MPI_SUCCESS);
	*r = ref_subarray(nd, sz, sub, st, order, rold);
	return commit(t);
}

static MPI_Datatype b_sub2d_c(struct ref **r)
{
	static const int sz[] = { 5, 6 }, sub[] = { 2, 3 }, st[] = { 1, 2 };
	struct ref *c = ref_pre(MPI_INT);
	MPI_Datatype t =
		mk_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, c, r);

	ref_free(c);
	return t;
}

static MPI_Datatype b_sub2d_f(struct ref **r)
{
	static const int sz[] = { 5, 6 }, sub[] = { 2, 3 }, st[] = { 1, 2 };
	struct ref *c = ref_pre(MPI_INT);
	MPI_Datatype t =
		mk_subarray(2, sz, sub, st, MPI_ORDER_FORTRAN, MPI_INT, c, r);

	ref_free(c);
	return t;
}

static MPI_Datatype b_sub3d_c(struct ref **r)
{
	static const int sz[] = { 4, 3, 5 }, sub[] = { 2, 2, 3 },
			 st[] = { 1, 0, 2 };
	struct ref *c = ref_pre(MPI_DOUBLE);
	MPI_Datatype t =
		mk_subarray(3, sz, sub, st, MPI_ORDER_C, MPI_DOUBLE, c, r);

	ref_free(c);
	return t;
}

static MPI_Datatype b_sub3d_f(struct ref **r)
{
	static const int sz[] = { 4, 3, 5 }, sub[] = { 2, 2, 3 },
			 st[] = { 1, 0, 2 };
	struct ref *c = ref_pre(MPI_DOUBLE);
	MPI_Datatype t =
		mk_subarray(3, sz, sub, st, MPI_ORDER_FORTRAN, MPI_DOUBLE, c,
			    r);

	ref_free(c);
	return t;
}

/* a subarray of a struct with holes */
static MPI_Datatype b_sub_of_struct(struct ref **r)
{
	static const int bl[] = { 1, 1 };
	static const MPI_Aint dp[] = { 0, 4 };
	const MPI_Datatype ts[] = { MPI_SHORT, MPI_FLOAT };
	static const int sz[] = { 3, 4 }, sub[] = { 2, 2 }, st[] = { 1, 1 };
	struct ref *rs;
	MPI_Datatype s = mk_struct(2, bl, dp, ts, &rs), t;

	t = mk_subarray(2, sz, sub, st, MPI_ORDER_FORTRAN, s, rs, r);
	ref_free(rs);
	dfree(s);
	return t;
}

static MPI_Datatype b_contig_pairs(struct ref **r)
{
	struct ref *c = ref_pre(MPI_SHORT_INT);
	MPI_Datatype t;

	ck_assert_int_eq(MPI_Type_contiguous(3, MPI_SHORT_INT, &t),
			 MPI_SUCCESS);
	*r = ref_contig(3, c);
	ref_free(c);
	return commit(t);
}

static MPI_Datatype b_vector_ldi(struct ref **r)
{
	struct ref *c = ref_pre(MPI_LONG_DOUBLE_INT);
	MPI_Datatype t;

	ck_assert_int_eq(MPI_Type_vector(2, 1, 2, MPI_LONG_DOUBLE_INT, &t),
			 MPI_SUCCESS);
	*r = ref_hvector(2, 1, 2 * ref_ext(c), c);
	ref_free(c);
	return commit(t);
}

static MPI_Datatype b_dup(struct ref **r)
{
	struct ref *c = ref_pre(MPI_INT);
	MPI_Datatype v, t;

	ck_assert_int_eq(MPI_Type_vector(2, 3, 5, MPI_INT, &v), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_dup(v, &t), MPI_SUCCESS);
	dfree(v);
	*r = ref_hvector(2, 3, 20, c);
	ref_free(c);
	return commit(t);
}

/* hvector of a subarray of a vector: three levels */
static MPI_Datatype b_nested3(struct ref **r)
{
	static const int sz[] = { 3, 2 }, sub[] = { 2, 1 }, st[] = { 0, 1 };
	struct ref *c = ref_pre(MPI_FLOAT), *rv, *rs;
	MPI_Datatype v, s, t;

	ck_assert_int_eq(MPI_Type_vector(2, 1, 3, MPI_FLOAT, &v), MPI_SUCCESS);
	rv = ref_hvector(2, 1, 12, c);
	ck_assert_int_eq(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C,
						  v, &s),
			 MPI_SUCCESS);
	rs = ref_subarray(2, sz, sub, st, MPI_ORDER_C, rv);
	ck_assert_int_eq(MPI_Type_create_hvector(2, 1, -7, s, &t),
			 MPI_SUCCESS);
	*r = ref_hvector(2, 1, -7, rs);
	dfree(v);
	dfree(s);
	ref_free(c);
	ref_free(rv);
	ref_free(rs);
	return commit(t);
}

static MPI_Datatype b_empty_contig(struct ref **r)
{
	struct ref *c = ref_pre(MPI_INT);
	MPI_Datatype t;

	ck_assert_int_eq(MPI_Type_contiguous(0, MPI_INT, &t), MPI_SUCCESS);
	*r = ref_contig(0, c);
	ref_free(c);
	return commit(t);
}

static MPI_Datatype b_zero_blocks(struct ref **r)
{
	struct ref *c = ref_pre(MPI_INT);
	MPI_Datatype t;

	ck_assert_int_eq(MPI_Type_vector(3, 0, 2, MPI_INT, &t), MPI_SUCCESS);
	*r = ref_hvector(3, 0, 8, c);
	ref_free(c);
	return commit(t);
}

/*
 * Regular maps (one block length, one stride) are kept compact: these
 * build them in each way the flattener continues, breaks or merges one.
 */

/* elements whose blocks continue one another's stride: one regular map */
static MPI_Datatype b_contig_of_rvector(struct ref **r)
{
	struct ref *c = ref_pre(MPI_INT), *rv, *rr;
	MPI_Datatype v, rt, t;

	ck_assert_int_eq(MPI_Type_vector(3, 1, 2, MPI_INT, &v), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_create_resized(v, 0, 24, &rt), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_contiguous(3, rt, &t), MPI_SUCCESS);
	ck_assert(t->flags & RC_DT_REGULAR);
	ck_assert_uint_eq(t->nblocks, 9);
	rv = ref_hvector(3, 1, 8, c);
	rr = ref_resized(rv, 0, 24);
	*r = ref_contig(3, rr);
	ref_free(c);
	ref_free(rv);
	ref_free(rr);
	dfree(v);
	dfree(rt);
	return commit(t);
}

/* elements that do not continue it (extent 20, and the last block of one
 * meets the first of the next): written out, merged */
static MPI_Datatype b_contig_of_vector(struct ref **r)
{
	struct ref *c = ref_pre(MPI_INT), *rv;
	MPI_Datatype v, t;

	ck_assert_int_eq(MPI_Type_vector(3, 1, 2, MPI_INT, &v), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_contiguous(3, v, &t), MPI_SUCCESS);
	ck_assert(!(t->flags & RC_DT_REGULAR));
	ck_assert_uint_eq(t->nblocks, 7);
	ck_assert_int_eq(t->blocks[2].disp, 16);
	ck_assert_uint_eq(t->blocks[2].len, 8);
	rv = ref_hvector(3, 1, 8, c);
	*r = ref_contig(3, rv);
	ref_free(c);
	ref_free(rv);
	dfree(v);
	return commit(t);
}

/* adjacent first pieces merge into the first block; the rest follow it */
static MPI_Datatype b_hindexed_merged_regular(struct ref **r)
{
	static const int bl[] = { 1, 1, 2, 2, 2 };
	static const MPI_Aint dp[] = { 0, 4, 16, 32, 48 };
	ptrdiff_t d[5];
	struct ref *c = ref_pre(MPI_INT);
	MPI_Datatype t;
	int i;

	ck_assert_int_eq(MPI_Type_create_hindexed(5, bl, dp, MPI_INT, &t),
			 MPI_SUCCESS);
	ck_assert(t->flags & RC_DT_REGULAR);
	ck_assert_uint_eq(t->nblocks, 4);
	ck_assert_int_eq(t->rstride, 16);
	for (i = 0; i < 5; i++)
		d[i] = dp[i];
	*r = ref_hindexed(5, bl, d, c);
	ref_free(c);
	return commit(t);
}

/* twenty regular blocks, then one that breaks the pattern: the map is
 * written out past the flattener's inline room */
static MPI_Datatype b_regular_then_broken(struct ref **r)
{
	static const int bl[] = { 1, 1 };
	static const MPI_Aint dp[] = { 0, 1000 };
	struct ref *c = ref_pre(MPI_INT), *rv, *cs[2];
	ptrdiff_t d[2] = { 0, 1000 };
	MPI_Datatype v, t, ts[2];

	ck_assert_int_eq(MPI_Type_vector(20, 1, 2, MPI_INT, &v), MPI_SUCCESS);
	ts[0] = v;
	ts[1] = MPI_INT;
	ck_assert_int_eq(MPI_Type_create_struct(2, bl, dp, ts, &t),
			 MPI_SUCCESS);
	ck_assert(!(t->flags & RC_DT_REGULAR));
	ck_assert_uint_eq(t->nblocks, 21);
	ck_assert_int_eq(t->blocks[19].disp, 152);
	rv = ref_hvector(20, 1, 8, c);
	cs[0] = rv;
	cs[1] = c;
	*r = ref_blocks(2, bl, d, cs, true);
	ref_free(c);
	ref_free(rv);
	dfree(v);
	return commit(t);
}

/* an hvector of regular elements placed to continue their stride */
static MPI_Datatype b_hvector_of_vector(struct ref **r)
{
	struct ref *c = ref_pre(MPI_SHORT), *rv;
	MPI_Datatype v, t;

	ck_assert_int_eq(MPI_Type_vector(4, 1, 3, MPI_SHORT, &v), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_create_hvector(5, 1, 24, v, &t), MPI_SUCCESS);
	ck_assert(t->flags & RC_DT_REGULAR);
	ck_assert_uint_eq(t->nblocks, 20);
	ck_assert_int_eq(t->rstride, 6);
	rv = ref_hvector(4, 1, 6, c);
	*r = ref_hvector(5, 1, 24, rv);
	ref_free(c);
	ref_free(rv);
	dfree(v);
	return commit(t);
}

/* a resized regular map (dt_copy keeps it compact), negative stride */
static MPI_Datatype b_resized_regular(struct ref **r)
{
	struct ref *c = ref_pre(MPI_DOUBLE), *rv;
	MPI_Datatype v, t;

	ck_assert_int_eq(MPI_Type_vector(6, 1, -3, MPI_DOUBLE, &v),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_create_resized(v, -200, 48, &t), MPI_SUCCESS);
	ck_assert(t->flags & RC_DT_REGULAR);
	ck_assert_int_eq(t->dalign, 8);
	rv = ref_hvector(6, 1, -24, c);
	*r = ref_resized(rv, -200, 48);
	ref_free(c);
	ref_free(rv);
	dfree(v);
	return commit(t);
}

static const struct tcase_dt dt_cases[] = {
	{ "contiguous", b_contig },
	{ "vector", b_vector },
	{ "vector, negative stride", b_vector_neg },
	{ "hvector", b_hvector },
	{ "hvector, overlapping", b_hvector_overlap },
	{ "indexed", b_indexed },
	{ "hindexed", b_hindexed },
	{ "indexed_block", b_indexed_block },
	{ "hindexed_block, misaligned", b_hindexed_block },
	{ "struct", b_struct },
	{ "struct, out of order", b_struct_ooo },
	{ "struct of pair, zero block", b_struct_pair },
	{ "vector of struct", b_vector_of_struct },
	{ "indexed of resized", b_indexed_of_resized },
	{ "struct, sticky bounds", b_struct_sticky },
	{ "resized, negative extent", b_resized_neg },
	{ "subarray 2D C", b_sub2d_c },
	{ "subarray 2D Fortran", b_sub2d_f },
	{ "subarray 3D C", b_sub3d_c },
	{ "subarray 3D Fortran", b_sub3d_f },
	{ "subarray of struct", b_sub_of_struct },
	{ "contiguous of SHORT_INT", b_contig_pairs },
	{ "vector of LONG_DOUBLE_INT", b_vector_ldi },
	{ "dup of vector", b_dup },
	{ "hvector of subarray of vector", b_nested3 },
	{ "contiguous(0)", b_empty_contig },
	{ "vector, zero blocklength", b_zero_blocks },
	{ "contiguous of resized vector (regular)", b_contig_of_rvector },
	{ "contiguous of vector (written out)", b_contig_of_vector },
	{ "hindexed, merged then regular", b_hindexed_merged_regular },
	{ "struct, regular then broken", b_regular_then_broken },
	{ "hvector of vector (regular)", b_hvector_of_vector },
	{ "resized regular, negative stride", b_resized_regular },
};
#define NDT_CASES ((int)(sizeof(dt_cases) / sizeof(dt_cases[0])))

START_TEST(test_derived_vs_reference)
{
	struct ref *r = NULL;
	MPI_Datatype t;

	t = dt_cases[_i].build(&r);
	ck_assert_msg(t != NULL, "%s", dt_cases[_i].what);
	check_type(t, r);
	ref_free(r);
	dfree(t);
}
END_TEST

START_TEST(test_predefined_vs_reference)
{
	const struct pre *p = &pre_tab[_i];
	struct ref *r = ref_pre(p->dt);

	check_type(p->dt, r);
	ck_assert(rc_dt_valid(p->dt));
	ck_assert(p->dt->flags & RC_DT_PREDEFINED);
	ref_free(r);
}
END_TEST

/* ---- hand-computed values ------------------------------------------------ */

static void expect(MPI_Datatype t, size_t size, MPI_Aint lb, MPI_Aint ext,
		   MPI_Aint tlb, MPI_Aint text, size_t nblocks)
{
	ck_assert_uint_eq(t->size, size);
	ck_assert_int_eq(t->lb, lb);
	ck_assert_int_eq(rc_dt_extent(t), ext);
	ck_assert_int_eq(t->true_lb, tlb);
	ck_assert_int_eq(t->true_ub - t->true_lb, text);
	ck_assert_uint_eq(t->nblocks, nblocks);
}

START_TEST(test_hand_computed)
{
	static const int bl3[] = { 1, 1, 1 };
	static const MPI_Aint dp3[] = { 0, 8, 16 };
	MPI_Datatype ts3[] = { MPI_CHAR, MPI_DOUBLE, MPI_INT };
	MPI_Datatype t, u;

	/* vector(3, 2, 4) of double: lb 0, ub (2*4 + 2) * 8 = 80 */
	ck_assert_int_eq(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t), MPI_SUCCESS);
	expect(t, 48, 0, 80, 0, 80, 3);
	dfree(t);
	/* negative stride: elements at 0, -8, -16: lb -16, ub 4 */
	ck_assert_int_eq(MPI_Type_vector(3, 1, -2, MPI_INT, &t), MPI_SUCCESS);
	expect(t, 12, -16, 20, -16, 20, 3);
	dfree(t);
	/* struct {char@0, double@8, int@16}: ub 20 padded to 24 */
	ck_assert_int_eq(MPI_Type_create_struct(3, bl3, dp3, ts3, &t),
			 MPI_SUCCESS);
	/* blocks: the char, then double and int merged */
	expect(t, 13, 0, 24, 0, 20, 2);
	/* contiguous(2) of it: second at 24 */
	ck_assert_int_eq(MPI_Type_contiguous(2, t, &u), MPI_SUCCESS);
	expect(u, 26, 0, 48, 0, 44, 4);
	dfree(u);
	/* resized to 32, then contiguous(2): extent 64, data to 32 + 20 */
	ck_assert_int_eq(MPI_Type_create_resized(t, -8, 32, &u), MPI_SUCCESS);
	expect(u, 13, -8, 32, 0, 20, 2);
	dfree(t);
	ck_assert_int_eq(MPI_Type_contiguous(2, u, &t), MPI_SUCCESS);
	expect(t, 26, -8, 64, 0, 52, 4);
	dfree(t);
	dfree(u);
	/* subarray 2D C {5,6} sub {2,3} start {1,2} of int: first element at
	 * (1*6 + 2)*4 = 32, last at (2*6 + 4)*4 = 64; extent 120 */
	{
		static const int sz[] = { 5, 6 }, sub[] = { 2, 3 },
				 st[] = { 1, 2 };

		ck_assert_int_eq(MPI_Type_create_subarray(2, sz, sub, st,
							  MPI_ORDER_C, MPI_INT,
							  &t),
				 MPI_SUCCESS);
		expect(t, 24, 0, 120, 32, 36, 2);
		dfree(t);
		/* Fortran: first (1 + 2*5)*4 = 44, last (2 + 4*5)*4 = 88 */
		ck_assert_int_eq(MPI_Type_create_subarray(2, sz, sub, st,
							  MPI_ORDER_FORTRAN,
							  MPI_INT, &t),
				 MPI_SUCCESS);
		expect(t, 24, 0, 120, 44, 48, 3);
		dfree(t);
	}
	/* pair types: the C struct layouts */
	expect(MPI_DOUBLE_INT, 12, 0, 16, 0, 12, 1);
	expect(MPI_SHORT_INT, 6, 0, 8, 0, 8, 2);
	expect(MPI_FLOAT_INT, 8, 0, 8, 0, 8, 1);
	expect(MPI_2INT, 8, 0, 8, 0, 8, 1);
	expect(MPI_LONG_INT, sizeof(long) + 4, 0, sizeof(struct t_li), 0,
	       offsetof(struct t_li, i) + 4, 1);
	expect(MPI_LONG_DOUBLE_INT, sizeof(long double) + 4, 0,
	       sizeof(struct t_ldi), 0, offsetof(struct t_ldi, i) + 4, 1);
}
END_TEST

/* ---- flattening stays small ---------------------------------------------- */

START_TEST(test_flatten_merges)
{
	MPI_Datatype t, c, u;
	int *buf, *out;
	size_t i;

	ck_assert_int_eq(MPI_Type_contiguous(1000000, MPI_INT, &t),
			 MPI_SUCCESS);
	ck_assert_uint_eq(t->nblocks, 1);
	ck_assert_uint_eq(t->nsig, 1);
	ck_assert(rc_dt_is_contig(t, 5));
	dfree(t);

	/* vector of contiguous whose blocks touch: one block */
	ck_assert_int_eq(MPI_Type_contiguous(4, MPI_INT, &c), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_vector(3, 2, 2, c, &t), MPI_SUCCESS);
	ck_assert_uint_eq(t->nblocks, 1);
	ck_assert(rc_dt_is_contig(t, 3));
	dfree(t);
	/* with gaps: one block per vector block */
	ck_assert_int_eq(MPI_Type_vector(3, 2, 3, c, &t), MPI_SUCCESS);
	ck_assert_uint_eq(t->nblocks, 3);
	ck_assert(!rc_dt_is_contig(t, 1));
	dfree(t);
	dfree(c);

	/* a million blocks: memory stays linear, pack stays right */
	ck_assert_int_eq(MPI_Type_vector(1000000, 1, 2, MPI_INT, &t),
			 MPI_SUCCESS);
	t = commit(t);
	ck_assert_uint_eq(t->nblocks, 1000000);
	ck_assert_uint_eq(t->nsig, 1);
	/* equal blocks at a constant stride: the table-free pack loop */
	ck_assert(t->flags & RC_DT_REGULAR);
	ck_assert_int_eq(t->rstride, 8);
	buf = malloc(2000000 * sizeof(int));
	out = malloc(1000000 * sizeof(int));
	for (i = 0; i < 2000000; i++)
		buf[i] = (int)i;
	ck_assert_uint_eq(rc_dt_pack(t, 1, buf, 0, out, 4000000), 4000000);
	for (i = 0; i < 1000000; i++)
		ck_assert_int_eq(out[i], (int)(2 * i));
	/* a chunk from the middle, split inside an element */
	ck_assert_uint_eq(rc_dt_pack(t, 1, buf, 2000002, out, 10), 10);
	ck_assert_mem_eq(out, (char *)&buf[1000000] + 2, 2);
	ck_assert_mem_eq((char *)out + 2, &buf[1000002], 4);
	ck_assert_mem_eq((char *)out + 6, &buf[1000004], 4);
	free(buf);
	free(out);

	/* contiguous(2) of it: 2e6 blocks, less one: the extent ends with
	 * the last block, which touches the next copy's first */
	ck_assert_int_eq(MPI_Type_contiguous(2, t, &u), MPI_SUCCESS);
	ck_assert_uint_eq(u->nblocks, 1999999);
	dfree(u);
	dfree(t);
}
END_TEST

/* rc_copy: large copies in pieces land every byte, whatever the size's
 * remainder against RC_COPY_PIECE; so does a contiguous pack and unpack
 * through it, at an offset */
START_TEST(test_copy_pieces)
{
	const size_t P = RC_COPY_PIECE;
	const size_t lens[] = {0, 1, P - 1, P, P + 1, 3 * P + 7};
	size_t k, i, max = 3 * P + 7;
	unsigned char *s = malloc(max), *d = malloc(max + 1);

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(d);
	for (i = 0; i < max; i++)
		s[i] = (unsigned char)(i * 131 + (i >> 17));
	for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		memset(d, 0xee, max + 1);
		rc_copy(d, s, lens[k]);
		ck_assert_int_eq(memcmp(d, s, lens[k]), 0);
		ck_assert_uint_eq(d[lens[k]], 0xee); /* not one byte more */
	}
	memset(d, 0, max + 1);
	ck_assert_uint_eq(
		rc_dt_pack(rc_dt_of_basic(RC_BASIC_BYTE), max, s, 5, d, max),
		max - 5);
	ck_assert_int_eq(memcmp(d, s + 5, max - 5), 0);
	memset(s, 0, max);
	ck_assert_uint_eq(rc_dt_unpack(rc_dt_of_basic(RC_BASIC_BYTE), max, s, 5,
				       d, max - 5),
			  max - 5);
	for (i = 5; i < max; i++)
		ck_assert_uint_eq(s[i], (unsigned char)(i * 131 + (i >> 17)));
	free(s);
	free(d);
}
END_TEST

START_TEST(test_is_contig)
{
	MPI_Datatype t;
	static const int bl[] = { 1, 1 };
	static const MPI_Aint dp[] = { 0, 8 };
	MPI_Datatype ts[] = { MPI_CHAR, MPI_DOUBLE };

	ck_assert(rc_dt_is_contig(MPI_INT, 0));
	ck_assert(rc_dt_is_contig(MPI_INT, 1000));
	ck_assert(!rc_dt_is_contig(MPI_DOUBLE_INT, 2));
	ck_assert(rc_dt_is_contig(MPI_DOUBLE_INT, 1));
	ck_assert(!rc_dt_is_contig(MPI_SHORT_INT, 1));
	ck_assert_int_eq(MPI_Type_create_resized(MPI_INT, 0, 8, &t),
			 MPI_SUCCESS);
	ck_assert(rc_dt_is_contig(t, 1));
	ck_assert(!rc_dt_is_contig(t, 2));
	dfree(t);
	/* resized with lb != 0 but extent == size: still contiguous */
	ck_assert_int_eq(MPI_Type_create_resized(MPI_INT, -4, 4, &t),
			 MPI_SUCCESS);
	ck_assert(rc_dt_is_contig(t, 7));
	dfree(t);
	ck_assert_int_eq(MPI_Type_create_struct(2, bl, dp, ts, &t),
			 MPI_SUCCESS);
	ck_assert(!rc_dt_is_contig(t, 1));
	ck_assert(!(t->flags & RC_DT_REGULAR));	/* lengths 1 and 8 */
	dfree(t);
	ck_assert_int_eq(MPI_Type_contiguous(0, MPI_INT, &t), MPI_SUCCESS);
	ck_assert(rc_dt_is_contig(t, 9));
	dfree(t);
}
END_TEST

/* contig_ptr and pack with MPI_BOTTOM and absolute addresses */
START_TEST(test_bottom)
{
	int a = 11, b[3] = { 21, 22, 23 };
	MPI_Aint dp[2];
	static const int bl[] = { 1, 3 };
	MPI_Datatype ts[] = { MPI_INT, MPI_INT }, t;
	int out[4];

	ck_assert_int_eq(MPI_Get_address(&b, &dp[1]), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Get_address(&a, &dp[0]), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_create_struct(2, bl, dp, ts, &t),
			 MPI_SUCCESS);
	t = commit(t);
	ck_assert_uint_eq(rc_dt_pack(t, 1, MPI_BOTTOM, 0, out, sizeof(out)),
			  16);
	ck_assert_int_eq(out[0], 11);
	ck_assert_int_eq(out[3], 23);
	a = 0;
	memset(b, 0, sizeof(b));
	ck_assert_uint_eq(rc_dt_unpack(t, 1, MPI_BOTTOM, 0, out, 16), 16);
	ck_assert_int_eq(a, 11);
	ck_assert_int_eq(b[1], 22);
	dfree(t);
	/* a single absolute block is contiguous through MPI_BOTTOM */
	ck_assert_int_eq(MPI_Type_create_hindexed(1, &bl[1], &dp[1], MPI_INT,
						  &t),
			 MPI_SUCCESS);
	ck_assert(rc_dt_is_contig(t, 1));
	ck_assert_ptr_eq(rc_dt_contig_ptr(t, MPI_BOTTOM), b);
	dfree(t);
}
END_TEST

/* ---- names --------------------------------------------------------------- */

START_TEST(test_names)
{
	char name[MPI_MAX_OBJECT_NAME];
	int len;
	size_t i;

	for (i = 0; i < NPRE; i++) {
		ck_assert_int_eq(MPI_Type_get_name(pre_tab[i].dt, name, &len),
				 MPI_SUCCESS);
		ck_assert_str_eq(name, pre_tab[i].name);
		ck_assert_int_eq(len, (int)strlen(pre_tab[i].name));
		/* the object agrees with the basic-kind table */
		ck_assert_str_eq(rc_basic_name(pre_tab[i].dt->basic), name);
	}
	ck_assert_ptr_null(rc_basic_name(RC_BASIC_NONE));
}
END_TEST

START_TEST(test_set_name)
{
	char name[MPI_MAX_OBJECT_NAME], longname[200];
	MPI_Datatype t;
	int len;

	ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
	ck_assert_int_eq(len, 0);
	ck_assert_str_eq(name, "");
	ck_assert_int_eq(MPI_Type_set_name(t, "pair of ints"), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
	ck_assert_str_eq(name, "pair of ints");
	ck_assert_int_eq(len, 12);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ck_assert_int_eq(MPI_Type_set_name(t, longname), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
	ck_assert_int_eq(len, MPI_MAX_OBJECT_NAME - 1);
	ck_assert_int_eq(MPI_Type_set_name(t, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_get_name(t, NULL, &len), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len),
			 MPI_ERR_TYPE);
	dfree(t);
}
END_TEST

START_TEST(test_envelope)
{
	static const int bl[] = { 1, 2 }, dp[] = { 0, 3 };
	static const MPI_Aint adp[] = { 0, 8 };
	static const int sz[] = { 4, 4 }, sub[] = { 2, 2 }, st[] = { 0, 0 };
	MPI_Datatype ts[] = { MPI_INT, MPI_DOUBLE }, t;
	int ni, na, nd, comb;

#define ENV(call, i, a, d, c)                                              \
	do {                                                               \
		ck_assert_int_eq(call, MPI_SUCCESS);                       \
		ck_assert_int_eq(MPI_Type_get_envelope(t, &ni, &na, &nd,   \
						       &comb),             \
				 MPI_SUCCESS);                             \
		ck_assert_int_eq(ni, i);                                   \
		ck_assert_int_eq(na, a);                                   \
		ck_assert_int_eq(nd, d);                                   \
		ck_assert_int_eq(comb, c);                                 \
		dfree(t);                                                  \
	} while (0)

	ck_assert_int_eq(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb),
			 MPI_SUCCESS);
	ck_assert_int_eq(comb, MPI_COMBINER_NAMED);
	ck_assert_int_eq(ni + na + nd, 0);
	ENV(MPI_Type_contiguous(2, MPI_INT, &t), 1, 0, 1,
	    MPI_COMBINER_CONTIGUOUS);
	ENV(MPI_Type_vector(2, 1, 2, MPI_INT, &t), 3, 0, 1,
	    MPI_COMBINER_VECTOR);
	ENV(MPI_Type_create_hvector(2, 1, 8, MPI_INT, &t), 2, 1, 1,
	    MPI_COMBINER_HVECTOR);
	ENV(MPI_Type_indexed(2, bl, dp, MPI_INT, &t), 5, 0, 1,
	    MPI_COMBINER_INDEXED);
	ENV(MPI_Type_indexed(0, NULL, NULL, MPI_INT, &t), 1, 0, 1,
	    MPI_COMBINER_INDEXED);
	ENV(MPI_Type_create_hindexed(2, bl, adp, MPI_INT, &t), 3, 2, 1,
	    MPI_COMBINER_HINDEXED);
	ENV(MPI_Type_create_indexed_block(2, 1, dp, MPI_INT, &t), 4, 0, 1,
	    MPI_COMBINER_INDEXED_BLOCK);
	ENV(MPI_Type_create_hindexed_block(2, 1, adp, MPI_INT, &t), 2, 2, 1,
	    MPI_COMBINER_HINDEXED_BLOCK);
	ENV(MPI_Type_create_struct(2, bl, adp, ts, &t), 3, 2, 2,
	    MPI_COMBINER_STRUCT);
	ENV(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t),
	    8, 0, 1, MPI_COMBINER_SUBARRAY);
	ENV(MPI_Type_create_resized(MPI_INT, 0, 8, &t), 0, 2, 1,
	    MPI_COMBINER_RESIZED);
	ENV(MPI_Type_dup(MPI_INT, &t), 0, 0, 1, MPI_COMBINER_DUP);
#undef ENV
}
END_TEST

/* ---- counts from a status ------------------------------------------------ */

START_TEST(test_get_count_elements)
{
	static const int bl[] = { 1, 2 };
	static const MPI_Aint dp[] = { 0, 8 };
	MPI_Datatype ts[] = { MPI_INT, MPI_DOUBLE }, t, e;
	MPI_Status st = { 0 };
	MPI_Count cx;
	int c;

	/* {int, double, double}: size 20 */
	ck_assert_int_eq(MPI_Type_create_struct(2, bl, dp, ts, &t),
			 MPI_SUCCESS);
	t = commit(t);
	st.rc_count = 40;
	ck_assert_int_eq(MPI_Get_count(&st, t, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 2);
	ck_assert_int_eq(MPI_Get_elements(&st, t, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 6);
	/* one whole element plus the int and one double of the next */
	st.rc_count = 32;
	ck_assert_int_eq(MPI_Get_count(&st, t, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, MPI_UNDEFINED);
	ck_assert_int_eq(MPI_Get_elements(&st, t, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 5);
	ck_assert_int_eq(MPI_Get_elements_x(&st, t, &cx), MPI_SUCCESS);
	ck_assert_int_eq(cx, 5);
	/* half a double */
	st.rc_count = 28;
	ck_assert_int_eq(MPI_Get_elements(&st, t, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, MPI_UNDEFINED);
	ck_assert_int_eq(MPI_Get_elements_x(&st, t, &cx), MPI_SUCCESS);
	ck_assert_int_eq(cx, MPI_UNDEFINED);
	st.rc_count = 0;
	ck_assert_int_eq(MPI_Get_count(&st, t, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 0);
	ck_assert_int_eq(MPI_Get_elements(&st, t, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 0);
	dfree(t);

	/* pair types count as two basic elements each */
	st.rc_count = 32;
	ck_assert_int_eq(MPI_Get_count(&st, MPI_2INT, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 4);
	ck_assert_int_eq(MPI_Get_elements(&st, MPI_2INT, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 8);
	st.rc_count = 20;
	ck_assert_int_eq(MPI_Get_elements(&st, MPI_DOUBLE_INT, &c),
			 MPI_SUCCESS);
	ck_assert_int_eq(c, 3);
	ck_assert_int_eq(MPI_Get_count(&st, MPI_DOUBLE_INT, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, MPI_UNDEFINED);

	/* zero-size type: count 0 */
	ck_assert_int_eq(MPI_Type_contiguous(0, MPI_INT, &e), MPI_SUCCESS);
	e = commit(e);
	st.rc_count = 0;
	ck_assert_int_eq(MPI_Get_count(&st, e, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 0);
	ck_assert_int_eq(MPI_Get_elements(&st, e, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 0);
	dfree(e);

	/* too many for an int */
	st.rc_count = (MPI_Count)INT32_MAX * 4 + 8;
	ck_assert_int_eq(MPI_Get_count(&st, MPI_BYTE, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, MPI_UNDEFINED);
	ck_assert_int_eq(MPI_Get_elements_x(&st, MPI_BYTE, &cx), MPI_SUCCESS);
	ck_assert_int_eq(cx, (MPI_Count)INT32_MAX * 4 + 8);

	ck_assert_int_eq(MPI_Get_count(NULL, MPI_INT, &c), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Get_count(&st, MPI_DATATYPE_NULL, &c),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Get_elements(&st, MPI_INT, NULL), MPI_ERR_ARG);
}
END_TEST

/* ---- MPI_Pack / MPI_Unpack / MPI_Pack_size ------------------------------- */

/* MPI_Status_set_elements(_x) and MPI_Status_set_cancelled: what the
 * status then reports through the query functions. */
START_TEST(test_status_set)
{
	static const int bl[2] = { 1, 1 };
	MPI_Aint disp[2] = { 0, 8 };
	MPI_Datatype tys[2] = { MPI_INT, MPI_DOUBLE }, t;
	MPI_Status st;
	MPI_Count cx;
	int c, flag;

	memset(&st, 0, sizeof(st));
	st.MPI_ERROR = 77;
	ck_assert_int_eq(MPI_Status_set_elements(&st, MPI_INT, 5),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Get_elements(&st, MPI_INT, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 5);
	ck_assert_int_eq(MPI_Get_count(&st, MPI_INT, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 5);
	ck_assert_int_eq(MPI_Get_count(&st, MPI_SHORT, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 10);
	ck_assert_int_eq(MPI_Get_elements(&st, MPI_BYTE, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 20);
	ck_assert_int_eq(st.MPI_ERROR, 77);	/* left alone */
	/* {int, double}: 3 basic elements are one element and an int */
	ck_assert_int_eq(MPI_Type_create_struct(2, bl, disp, tys, &t),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Status_set_elements(&st, t, 3), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Get_elements(&st, t, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 3);
	ck_assert_int_eq(MPI_Get_count(&st, t, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, MPI_UNDEFINED);
	ck_assert_int_eq(MPI_Get_elements(&st, MPI_BYTE, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 12 + 4);
	ck_assert_int_eq(MPI_Status_set_elements(&st, t, 4), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Get_count(&st, t, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 2);
	MPI_Type_free(&t);
	/* a pair is two basic elements */
	ck_assert_int_eq(MPI_Status_set_elements(&st, MPI_2INT, 3),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Get_elements(&st, MPI_INT, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 3);
	/* beyond an int */
	ck_assert_int_eq(MPI_Status_set_elements_x(&st, MPI_CHAR,
						   3000000000LL),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Get_elements_x(&st, MPI_CHAR, &cx), MPI_SUCCESS);
	ck_assert_int_eq(cx, 3000000000LL);
	ck_assert_int_eq(MPI_Get_elements(&st, MPI_CHAR, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, MPI_UNDEFINED);
	ck_assert_int_eq(MPI_Get_count(&st, MPI_CHAR, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, MPI_UNDEFINED);
	ck_assert_int_eq(MPI_Status_set_elements(&st, MPI_INT, 0),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Get_count(&st, MPI_INT, &c), MPI_SUCCESS);
	ck_assert_int_eq(c, 0);
	/* cancelled */
	ck_assert_int_eq(MPI_Status_set_cancelled(&st, 1), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(MPI_Status_set_cancelled(&st, 0), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	/* errors */
	ck_assert_int_eq(MPI_Status_set_elements(&st, MPI_INT, -1),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Status_set_elements(NULL, MPI_INT, 1),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Status_set_cancelled(NULL, 1), MPI_ERR_ARG);
}
END_TEST

/* MPI-1's calls that MPI-3 removed: thin aliases, and the MPI_LB/MPI_UB
 * markers with MPI-1's sticky bounds. */
START_TEST(test_mpi1_compat)
{
	static int x[8];
	int bl[4] = { 1, 1, 1, 1 }, got[3], src[12], i;
	MPI_Aint a0, a3, d[4], lb, ub, ext;
	MPI_Datatype tys[4], t, u, w, c;
	double dd[2] = { 1.0, 2.0 }, dr[2] = { 0.5, 0.25 };

	ck_assert_int_eq(MPI_Address(&x[0], &a0), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Address(&x[3], &a3), MPI_SUCCESS);
	ck_assert_int_eq(a3 - a0, 3 * (MPI_Aint)sizeof(int));
	/* an int, then MPI_UB at 16: the classic way to set an extent */
	tys[0] = MPI_INT;
	tys[1] = MPI_UB;
	d[0] = 0;
	d[1] = 16;
	ck_assert_int_eq(MPI_Type_struct(2, bl, d, tys, &t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_extent(t, &ext), MPI_SUCCESS);
	ck_assert_int_eq(ext, 16);
	ck_assert_int_eq(MPI_Type_lb(t, &lb), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_ub(t, &ub), MPI_SUCCESS);
	ck_assert(lb == 0 && ub == 16 && t->size == sizeof(int));
	ck_assert_int_eq(t->basic, RC_BASIC_INT);	/* markers hold no data */
	ck_assert_int_eq(MPI_Type_contiguous(3, t, &c), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_commit(&c), MPI_SUCCESS);
	for (i = 0; i < 12; i++)
		src[i] = i;
	rc_dt_pack(c, 1, src, 0, got, sizeof(got));
	ck_assert(got[0] == 0 && got[1] == 4 && got[2] == 8);
	MPI_Type_free(&c);
	/* LB below the data and UB above it: no alignment padding with an
	 * UB marker */
	tys[0] = MPI_LB;
	tys[1] = MPI_INT;
	tys[2] = MPI_DOUBLE;
	tys[3] = MPI_UB;
	d[0] = -4;
	d[1] = 0;
	d[2] = 8;
	d[3] = 20;
	ck_assert_int_eq(MPI_Type_struct(4, bl, d, tys, &u), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_lb(u, &lb), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_extent(u, &ext), MPI_SUCCESS);
	ck_assert(lb == -4 && ext == 24);
	ck_assert_int_eq(u->true_lb, 0);
	ck_assert_int_eq(u->true_ub, 16);
	/* a marker wins over data beyond it: LB at 8 above an int at 0 */
	tys[0] = MPI_INT;
	tys[1] = MPI_LB;
	tys[2] = MPI_UB;
	d[0] = 0;
	d[1] = 8;
	d[2] = 12;
	ck_assert_int_eq(MPI_Type_struct(3, bl, d, tys, &w), MPI_SUCCESS);
	ck_assert(w->lb == 8 && w->ub == 12 && w->true_lb == 0);
	MPI_Type_free(&w);
	/* sticky: u's markers, 100 bytes in, decide the outer bounds, not
	 * the int at 0 */
	tys[0] = u;
	tys[1] = MPI_INT;
	d[0] = 100;
	d[1] = 0;
	ck_assert_int_eq(MPI_Type_struct(2, bl, d, tys, &w), MPI_SUCCESS);
	ck_assert_int_eq(w->lb, 96);
	ck_assert_int_eq(w->ub, 120);
	ck_assert_int_eq(w->true_lb, 0);
	MPI_Type_free(&w);
	/* decoded: the markers come back as themselves */
	{
		int iv[5];
		MPI_Aint av[4];
		MPI_Datatype dv[4];

		ck_assert_int_eq(MPI_Type_get_contents(u, 5, 4, 4, iv, av, dv),
				 MPI_SUCCESS);
		ck_assert(dv[0] == MPI_LB && dv[3] == MPI_UB);
		ck_assert(av[0] == -4 && av[3] == 20);
		ck_assert(dv[1] == MPI_INT && dv[2] == MPI_DOUBLE);
	}
	MPI_Type_free(&u);
	/* the aliases build what the MPI-2 calls build */
	ck_assert_int_eq(MPI_Type_hvector(3, 2, 40, t, &u), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_create_hvector(3, 2, 40, t, &w),
			 MPI_SUCCESS);
	ck_assert(u->combiner == MPI_COMBINER_HVECTOR &&
		  u->nblocks == w->nblocks && u->lb == w->lb &&
		  u->ub == w->ub && u->size == w->size);
	MPI_Type_free(&u);
	MPI_Type_free(&w);
	d[0] = 0;
	d[1] = 64;
	ck_assert_int_eq(MPI_Type_hindexed(2, bl, d, t, &u), MPI_SUCCESS);
	ck_assert(u->combiner == MPI_COMBINER_HINDEXED && u->ub == 80);
	MPI_Type_free(&u);
	MPI_Type_free(&t);
	/* a reduction on a type with an UB marker: still of one kind */
	tys[0] = MPI_DOUBLE;
	tys[1] = MPI_UB;
	d[0] = 0;
	d[1] = 8;
	ck_assert_int_eq(MPI_Type_struct(2, bl, d, tys, &t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Reduce_local(dd, dr, 2, t, MPI_SUM), MPI_SUCCESS);
	ck_assert(dr[0] == 1.5 && dr[1] == 2.25);
	MPI_Type_free(&t);
	/* names, sizes, errors under the old names */
	{
		char nm[MPI_MAX_OBJECT_NAME];
		int len;

		ck_assert_int_eq(MPI_Type_get_name(MPI_UB, nm, &len),
				 MPI_SUCCESS);
		ck_assert_str_eq(nm, "MPI_UB");
	}
	ck_assert_int_eq(MPI_Type_extent(MPI_LB, &ext), MPI_SUCCESS);
	ck_assert_int_eq(ext, 0);
	ck_assert_int_eq(MPI_Type_hvector(-1, 1, 8, MPI_INT, &t),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Type_extent(MPI_DATATYPE_NULL, &ext),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Address(x, NULL), MPI_ERR_ARG);
}
END_TEST

START_TEST(test_pack_api)
{
	int a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 0 };
	double d = 2.5, d2 = 0;
	char buf[64];
	int pos = 0, sz;
	MPI_Datatype v;

	ck_assert_int_eq(MPI_Type_vector(3, 1, 2, MPI_INT, &v), MPI_SUCCESS);
	/* not committed yet */
	ck_assert_int_eq(MPI_Pack(a, 1, v, buf, sizeof(buf), &pos, WORLD),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Pack_size(1, v, WORLD, &sz), MPI_ERR_TYPE);
	ck_assert_int_eq(pos, 0);
	v = commit(v);
	ck_assert_int_eq(MPI_Pack_size(2, v, WORLD, &sz), MPI_SUCCESS);
	ck_assert_int_eq(sz, 24);
	ck_assert_int_eq(MPI_Pack(a, 1, v, buf, sizeof(buf), &pos, WORLD),
			 MPI_SUCCESS);
	ck_assert_int_eq(pos, 12);
	ck_assert_int_eq(MPI_Pack(&d, 1, MPI_DOUBLE, buf, sizeof(buf), &pos,
				  WORLD),
			 MPI_SUCCESS);
	ck_assert_int_eq(pos, 20);
	/* not enough room: truncation, position unchanged */
	ck_assert_int_eq(MPI_Pack(a, 4, MPI_INT, buf, 30, &pos, WORLD),
			 MPI_ERR_TRUNCATE);
	ck_assert_int_eq(pos, 20);

	pos = 0;
	ck_assert_int_eq(MPI_Unpack(buf, 20, &pos, b, 1, v, WORLD),
			 MPI_SUCCESS);
	ck_assert_int_eq(pos, 12);
	ck_assert_int_eq(b[0], 1);
	ck_assert_int_eq(b[1], 0);
	ck_assert_int_eq(b[2], 3);
	ck_assert_int_eq(b[4], 5);
	ck_assert_int_eq(MPI_Unpack(buf, 20, &pos, &d2, 1, MPI_DOUBLE, WORLD),
			 MPI_SUCCESS);
	ck_assert(d2 == 2.5);
	ck_assert_int_eq(pos, 20);
	/* unpacking past insize */
	ck_assert_int_eq(MPI_Unpack(buf, 20, &pos, &d2, 1, MPI_DOUBLE, WORLD),
			 MPI_ERR_TRUNCATE);
	pos = 12;
	ck_assert_int_eq(MPI_Unpack(buf, 20, &pos, b, 1, v, WORLD),
			 MPI_ERR_TRUNCATE);
	ck_assert_int_eq(pos, 12);

	/* argument errors */
	ck_assert_int_eq(MPI_Pack(a, -1, MPI_INT, buf, 64, &pos, WORLD),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Pack(a, 1, MPI_DATATYPE_NULL, buf, 64, &pos,
				  WORLD),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Pack(a, 1, MPI_INT, buf, 64, NULL, WORLD),
			 MPI_ERR_ARG);
	pos = 65;
	ck_assert_int_eq(MPI_Pack(a, 1, MPI_INT, buf, 64, &pos, WORLD),
			 MPI_ERR_ARG);
	pos = 0;
	ck_assert_int_eq(MPI_Pack(a, 1, MPI_INT, buf, 64, &pos, MPI_COMM_NULL),
			 MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Unpack(buf, 64, &pos, b, -2, MPI_INT, WORLD),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Pack_size(-1, MPI_INT, WORLD, &sz),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Pack_size(1, MPI_INT, WORLD, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Pack_size(INT32_MAX, MPI_DOUBLE, WORLD, &sz),
			 MPI_ERR_ARG);
	/* zero elements into a zero-size buffer */
	pos = 0;
	ck_assert_int_eq(MPI_Pack(a, 0, MPI_INT, NULL, 0, &pos, WORLD),
			 MPI_SUCCESS);
	ck_assert_int_eq(pos, 0);
	dfree(v);
}
END_TEST

/* ---- constructor argument errors ----------------------------------------- */

START_TEST(test_constructor_errors)
{
	static const int bl[] = { 1, -1 }, dp[] = { 0, 1 };
	static const MPI_Aint adp[] = { 0, 8 };
	static const int sz[] = { 4, 4 }, sub[] = { 2, 2 }, st[] = { 0, 0 },
			 bad_sub[] = { 5, 2 }, bad_st[] = { 3, 0 },
			 zero[] = { 0, 2 };
	MPI_Datatype ts[] = { MPI_INT, MPI_DATATYPE_NULL };
	MPI_Datatype t = MPI_INT, fake;
	struct rc_dtype junk;
	int isz;

	memset(&junk, 0, sizeof(junk));
	fake = &junk;
	ck_assert_int_eq(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
	ck_assert_ptr_eq(t, MPI_INT);	/* out-param untouched */
	ck_assert_int_eq(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Type_contiguous(1, fake, &t), MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Type_contiguous(1, MPI_INT, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_vector(-3, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Type_vector(3, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_vector(3, 1, 1, MPI_DATATYPE_NULL, &t),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Type_create_hvector(-1, 1, 8, MPI_INT, &t),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Type_indexed(-1, bl, dp, MPI_INT, &t),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Type_indexed(2, bl, dp, MPI_INT, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_indexed(1, NULL, dp, MPI_INT, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_indexed(1, bl, NULL, MPI_INT, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_create_hindexed(2, bl, adp, MPI_INT, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_create_hindexed(-2, bl, adp, MPI_INT, &t),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Type_create_indexed_block(-1, 1, dp, MPI_INT, &t),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Type_create_indexed_block(1, -1, dp, MPI_INT, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_create_hindexed_block(1, 1, adp,
							MPI_DATATYPE_NULL, &t),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Type_create_struct(-1, bl, adp, ts, &t),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Type_create_struct(1, bl, adp, ts, NULL),
			 MPI_ERR_ARG);
	{
		static const int ok[] = { 1, 1 };

		ck_assert_int_eq(MPI_Type_create_struct(2, ok, adp, ts, &t),
				 MPI_ERR_TYPE);
		ck_assert_int_eq(MPI_Type_create_struct(2, ok, adp, NULL, &t),
				 MPI_ERR_ARG);
	}
	ck_assert_int_eq(MPI_Type_create_subarray(0, sz, sub, st, MPI_ORDER_C,
						  MPI_INT, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_create_subarray(2, sz, bad_sub, st,
						  MPI_ORDER_C, MPI_INT, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_create_subarray(2, sz, sub, bad_st,
						  MPI_ORDER_C, MPI_INT, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_create_subarray(2, zero, sub, st,
						  MPI_ORDER_C, MPI_INT, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_create_subarray(2, sz, zero, st,
						  MPI_ORDER_C, MPI_INT, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_create_subarray(2, sz, sub, st, 99, MPI_INT,
						  &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C,
						  MPI_DATATYPE_NULL, &t),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Type_dup(MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Type_commit(NULL), MPI_ERR_ARG);
	t = MPI_DATATYPE_NULL;
	ck_assert_int_eq(MPI_Type_commit(&t), MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Type_free(&t), MPI_ERR_TYPE);
	t = MPI_INT;
	ck_assert_int_eq(MPI_Type_free(&t), MPI_ERR_TYPE);
	ck_assert_ptr_eq(t, MPI_INT);
	ck_assert_int_eq(MPI_Type_size(MPI_DATATYPE_NULL, &isz), MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Type_size(MPI_INT, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_get_extent(MPI_INT, NULL, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Get_address(&t, NULL), MPI_ERR_ARG);
	/* a displacement product that overflows */
	ck_assert_int_eq(MPI_Type_create_resized(MPI_INT, 0, PTRDIFF_MAX / 2,
						 &fake),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_vector(2, 1, 4, fake, &t), MPI_ERR_ARG);
	dfree(fake);
}
END_TEST

START_TEST(test_commit_dup)
{
	MPI_Datatype t, d;

	ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &t), MPI_SUCCESS);
	ck_assert(!rc_dt_valid(t));
	ck_assert(rc_dt_ok(t));
	/* dup keeps the committed state */
	ck_assert_int_eq(MPI_Type_dup(t, &d), MPI_SUCCESS);
	ck_assert(!rc_dt_valid(d));
	dfree(d);
	t = commit(t);
	ck_assert(rc_dt_valid(t));
	ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_dup(t, &d), MPI_SUCCESS);
	ck_assert(rc_dt_valid(d));
	ck_assert_int_eq(d->combiner, MPI_COMBINER_DUP);
	dfree(d);
	dfree(t);
	/* committing a predefined type is allowed */
	t = MPI_DOUBLE;
	ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
	ck_assert(!rc_dt_valid(NULL));
}
END_TEST

/* A type freed while an operation still holds it stays usable. */
START_TEST(test_refcount)
{
	MPI_Datatype t, held;
	int src[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, out[4];

	ck_assert_int_eq(MPI_Type_vector(4, 1, 2, MPI_INT, &t), MPI_SUCCESS);
	t = commit(t);
	held = t;
	rc_dt_retain(held);	/* as a pending send would */
	ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
	ck_assert_ptr_eq(t, MPI_DATATYPE_NULL);
	ck_assert(rc_dt_valid(held));
	ck_assert_uint_eq(rc_dt_pack(held, 1, src, 0, out, sizeof(out)), 16);
	ck_assert_int_eq(out[3], 6);
	rc_dt_release(held);	/* the operation completes: freed now */

	/* predefined types ignore retain/release */
	rc_dt_retain(MPI_INT);
	rc_dt_release(MPI_INT);
	rc_dt_release(MPI_INT);
	ck_assert(rc_dt_valid(MPI_INT));
}
END_TEST

/* ---- the internal constructors without the API --------------------------- */

START_TEST(test_internal_ctors)
{
	struct rc_dtype *t, *u;
	static const int sz[] = { 3, 3 }, sub[] = { 1, 1 }, st[] = { 2, 2 };
	int a[9] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 }, out;

	ck_assert_int_eq(rc_dt_create_contig(3, MPI_INT, &t), RC_OK);
	ck_assert_int_eq(rc_dt_create_hvector(2, 1, 24, t, &u), RC_OK);
	ck_assert_uint_eq(u->size, 24);
	ck_assert_uint_eq(u->nblocks, 2);
	rc_dt_release(t);
	rc_dt_commit(u);
	ck_assert(rc_dt_valid(u));
	rc_dt_release(u);
	ck_assert_int_eq(rc_dt_create_subarray(2, sz, sub, st, MPI_ORDER_C,
					       MPI_INT, &t),
			 RC_OK);
	ck_assert_uint_eq(rc_dt_pack(t, 1, a, 0, &out, 4), 4);
	ck_assert_int_eq(out, 8);
	rc_dt_release(t);
}
END_TEST

/*
 * A vector of 2^30 strided blocks (MPICH's large-count test): its regular
 * map takes constant space, so it builds at once; the queries and a pack
 * at its far end are exact. Written out, the map would need 25 GB.
 */
START_TEST(test_huge_regular)
{
	const MPI_Count n = INT_MAX / 2;
	const uintptr_t dlast = (uintptr_t)(n - 1) * 48;
	MPI_Datatype four, big, rsz;
	struct rc_dtype *flat;
	struct rc_dt_map m;
	MPI_Count sz, lb, ext;
	int arr[16], out[8], back[16], isize, i;
	uintptr_t buf;

	ck_assert_int_eq(MPI_Type_contiguous(4, MPI_INT, &four), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_vector((int)n, 1, 3, four, &big),
			 MPI_SUCCESS);
	big = commit(big);
	ck_assert(big->flags & RC_DT_REGULAR);
	ck_assert_uint_eq(big->nblocks, (size_t)n);
	ck_assert_int_eq(big->rstride, 48);
	ck_assert_int_eq(MPI_Type_size_x(big, &sz), MPI_SUCCESS);
	ck_assert_int_eq(sz, n * 16);
	ck_assert_int_eq(MPI_Type_size(big, &isize), MPI_SUCCESS);
	ck_assert_int_eq(isize, MPI_UNDEFINED);
	ck_assert_int_eq(MPI_Type_get_extent_x(big, &lb, &ext), MPI_SUCCESS);
	ck_assert_int_eq(lb, 0);
	ck_assert_int_eq(ext, (MPI_Count)dlast + 16);
	ck_assert_int_eq(MPI_Type_get_true_extent_x(big, &lb, &ext),
			 MPI_SUCCESS);
	ck_assert_int_eq(lb, 0);
	ck_assert_int_eq(ext, (MPI_Count)dlast + 16);

	/* the last two blocks, 48 bytes apart, land in arr */
	for (i = 0; i < 16; i++)
		arr[i] = i;
	buf = (uintptr_t)arr - (dlast - 48);
	ck_assert_uint_eq(rc_dt_pack(big, 1, (void *)buf, (size_t)(n - 2) * 16,
				     out, 64),
			  32);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(out[i], i);
		ck_assert_int_eq(out[4 + i], 12 + i);
	}
	memset(back, 0, sizeof(back));
	buf = (uintptr_t)back - (dlast - 48);
	/* from the middle of the second-to-last block */
	ck_assert_uint_eq(rc_dt_unpack(big, 1, (void *)buf,
				       (size_t)(n - 2) * 16 + 8, &out[2], 24),
			  24);
	ck_assert_int_eq(back[1], 0);
	ck_assert_int_eq(back[2], 2);
	ck_assert_int_eq(back[3], 3);
	ck_assert_int_eq(back[11], 0);
	ck_assert_int_eq(back[12], 12);
	ck_assert_int_eq(back[15], 15);

	/* resized as the MPICH test does: still compact */
	ck_assert_int_eq(MPI_Type_create_resized(big, INT_MAX, -1024, &rsz),
			 MPI_SUCCESS);
	rsz = commit(rsz);
	ck_assert(rsz->flags & RC_DT_REGULAR);
	ck_assert_int_eq(MPI_Type_size_x(rsz, &sz), MPI_SUCCESS);
	ck_assert_int_eq(sz, n * 16);
	ck_assert_int_eq(MPI_Type_get_extent_x(rsz, &lb, &ext), MPI_SUCCESS);
	ck_assert_int_eq(lb, INT_MAX);
	ck_assert_int_eq(ext, -1024);

	/* as it travels to a target (rma): the compact map, not a list */
	rc_dt_get_map(big, &m);
	ck_assert(m.regular);
	ck_assert_int_eq(rc_dt_create_flat(RC_BASIC_INT, &m, &flat), RC_OK);
	ck_assert(flat->flags & RC_DT_REGULAR);
	ck_assert_uint_eq(flat->nblocks, (size_t)n);
	ck_assert_uint_eq(flat->size, (size_t)n * 16);
	ck_assert_int_eq(flat->true_ub, (ptrdiff_t)dlast + 16);
	buf = (uintptr_t)arr - (dlast - 48);
	memset(out, 0, sizeof(out));
	ck_assert_uint_eq(rc_dt_pack(flat, 1, (void *)buf,
				     (size_t)(n - 1) * 16, out, 16),
			  16);
	ck_assert_int_eq(out[0], 12);
	ck_assert_int_eq(out[3], 15);
	rc_dt_release(flat);
	/* a regular map of one block, or whose size overflows, is refused */
	m.nblocks = 1;
	ck_assert_int_eq(rc_dt_create_flat(RC_BASIC_INT, &m, &flat),
			 RC_ERR_INVAL);
	m.nblocks = SIZE_MAX / 8;
	ck_assert_int_eq(rc_dt_create_flat(RC_BASIC_INT, &m, &flat),
			 RC_ERR_INVAL);

	dfree(rsz);
	dfree(big);
	dfree(four);
}
END_TEST

/* ---- initialisation and the fatal handler (forked, exit code) ------------ */

START_TEST(test_before_init_is_fatal)
{
	MPI_Datatype t;

	rc_g.initialized = false;
	rc_g.world = NULL;
	MPI_Type_contiguous(1, MPI_INT, &t);
	ck_abort_msg("MPI_Type_contiguous before MPI_Init returned");
}
END_TEST

START_TEST(test_fatal_free_predefined)
{
	MPI_Datatype t = MPI_INT;

	test_world.errh = &rc_mpi_errors_are_fatal;
	MPI_Type_free(&t);
	ck_abort_msg("MPI_Type_free(MPI_INT) returned under ERRORS_ARE_FATAL");
}
END_TEST

START_TEST(test_get_address_anytime)
{
	MPI_Aint a;
	int x = 0;

	rc_g.initialized = false;
	ck_assert_int_eq(MPI_Get_address(&x, &a), MPI_SUCCESS);
	ck_assert_int_eq(a, (MPI_Aint)(uintptr_t)&x);
	ck_assert_int_eq(MPI_Aint_add(a, 4), (MPI_Aint)(uintptr_t)&x + 4);
	ck_assert_int_eq(MPI_Aint_diff(a + 12, a), 12);
}
END_TEST

static Suite *dtype_suite(void)
{
	Suite *s = suite_create("dtype");
	TCase *tc;

	tc = tcase_create("reference");
	tcase_add_checked_fixture(tc, api_setup, api_teardown);
	tcase_set_timeout(tc, TMO);
	tcase_add_loop_test(tc, test_derived_vs_reference, 0, NDT_CASES);
	tcase_add_loop_test(tc, test_predefined_vs_reference, 0, (int)NPRE);
	suite_add_tcase(s, tc);

	tc = tcase_create("engine");
	tcase_add_checked_fixture(tc, api_setup, api_teardown);
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, test_hand_computed);
	tcase_add_test(tc, test_flatten_merges);
	tcase_add_test(tc, test_is_contig);
	tcase_add_test(tc, test_copy_pieces);
	tcase_add_test(tc, test_bottom);
	tcase_add_test(tc, test_refcount);
	tcase_add_test(tc, test_internal_ctors);
	tcase_add_test(tc, test_huge_regular);
	suite_add_tcase(s, tc);

	tc = tcase_create("api");
	tcase_add_checked_fixture(tc, api_setup, api_teardown);
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_set_name);
	tcase_add_test(tc, test_envelope);
	tcase_add_test(tc, test_get_count_elements);
	tcase_add_test(tc, test_pack_api);
	tcase_add_test(tc, test_status_set);
	tcase_add_test(tc, test_mpi1_compat);
	tcase_add_test(tc, test_constructor_errors);
	tcase_add_test(tc, test_commit_dup);
	tcase_add_test(tc, test_get_address_anytime);
	suite_add_tcase(s, tc);

	tc = tcase_create("fatal");
	tcase_add_checked_fixture(tc, api_setup, api_teardown);
	tcase_set_timeout(tc, TMO);
	tcase_add_exit_test(tc, test_before_init_is_fatal, MPI_ERR_OTHER);
	tcase_add_exit_test(tc, test_fatal_free_predefined, MPI_ERR_TYPE);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return api_run_suite(dtype_suite());
}
