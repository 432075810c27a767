/*
 * test_typedecode.c - datatype decoding (MPI_Type_get_envelope and
 * MPI_Type_get_contents) and the constructors that only decoding reaches
 * through the API.
 *
 * Every combiner's envelope and contents are compared with arrays written
 * out here from the standard's table (MPI-3.1 4.1.13). Nested types are
 * decoded and rebuilt recursively, the way a language binding or an I/O
 * library does it, and the rebuilt type must have the same type map as the
 * original: the same flattened blocks, signature, size, bounds, true
 * bounds and basic kind, and the same packed bytes from one buffer.
 * Returned datatypes follow the standard: predefined ones are the handles
 * themselves, derived ones new references that stay valid after the user
 * freed the originals and must be freed (ASan's leak check proves it).
 *
 * As in test_dtype.c, the API runs on a minimal world with
 * MPI_ERRORS_RETURN, so errors come back as classes.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "api_env.h"
#include "dtype.h"

#define TMO 30

#define OK(call) ck_assert_int_eq((call), MPI_SUCCESS)

/* Free t unless it is predefined (named, or from MPI_Type_create_f90_*:
 * those the user never frees). */
static void free_derived(MPI_Datatype *t)
{
	int ni, na, nd, comb;

	OK(MPI_Type_get_envelope(*t, &ni, &na, &nd, &comb));
	if (comb != MPI_COMBINER_NAMED && comb != MPI_COMBINER_F90_REAL &&
	    comb != MPI_COMBINER_F90_COMPLEX &&
	    comb != MPI_COMBINER_F90_INTEGER)
		OK(MPI_Type_free(t));
}

/* ---- decoding and rebuilding --------------------------------------------- */

/*
 * A type with the same type map as t, built from its decoded contents
 * (recursively: the datatypes in the contents are rebuilt too). Named
 * types come back as they are; anything else is a new type to free.
 */
static MPI_Datatype rebuild(MPI_Datatype t)
{
	int ni, na, nd, comb, k, *iv;
	MPI_Aint *av;
	MPI_Datatype *dv, *sub, r = MPI_DATATYPE_NULL;

	OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
	if (comb == MPI_COMBINER_NAMED)
		return t;
	iv = calloc((size_t)ni + 1, sizeof(*iv));
	av = calloc((size_t)na + 1, sizeof(*av));
	dv = calloc((size_t)nd + 1, sizeof(*dv));
	sub = calloc((size_t)nd + 1, sizeof(*sub));
	ck_assert(iv && av && dv && sub);
	OK(MPI_Type_get_contents(t, ni, na, nd, iv, av, dv));
	for (k = 0; k < nd; k++)
		sub[k] = rebuild(dv[k]);
	switch (comb) {
	case MPI_COMBINER_DUP:
		OK(MPI_Type_dup(sub[0], &r));
		break;
	case MPI_COMBINER_CONTIGUOUS:
		OK(MPI_Type_contiguous(iv[0], sub[0], &r));
		break;
	case MPI_COMBINER_VECTOR:
		OK(MPI_Type_vector(iv[0], iv[1], iv[2], sub[0], &r));
		break;
	case MPI_COMBINER_HVECTOR:
		OK(MPI_Type_create_hvector(iv[0], iv[1], av[0], sub[0], &r));
		break;
	case MPI_COMBINER_INDEXED:
		OK(MPI_Type_indexed(iv[0], iv + 1, iv + 1 + iv[0], sub[0], &r));
		break;
	case MPI_COMBINER_HINDEXED:
		OK(MPI_Type_create_hindexed(iv[0], iv + 1, av, sub[0], &r));
		break;
	case MPI_COMBINER_INDEXED_BLOCK:
		OK(MPI_Type_create_indexed_block(iv[0], iv[1], iv + 2, sub[0],
						 &r));
		break;
	case MPI_COMBINER_HINDEXED_BLOCK:
		OK(MPI_Type_create_hindexed_block(iv[0], iv[1], av, sub[0],
						  &r));
		break;
	case MPI_COMBINER_STRUCT:
		OK(MPI_Type_create_struct(iv[0], iv + 1, av, sub, &r));
		break;
	case MPI_COMBINER_SUBARRAY: {
		int n = iv[0];

		OK(MPI_Type_create_subarray(n, iv + 1, iv + 1 + n,
					    iv + 1 + 2 * n, iv[1 + 3 * n],
					    sub[0], &r));
		break;
	}
	case MPI_COMBINER_RESIZED:
		OK(MPI_Type_create_resized(sub[0], av[0], av[1], &r));
		break;
	case MPI_COMBINER_F90_REAL:
		OK(MPI_Type_create_f90_real(iv[0], iv[1], &r));
		break;
	case MPI_COMBINER_F90_COMPLEX:
		OK(MPI_Type_create_f90_complex(iv[0], iv[1], &r));
		break;
	case MPI_COMBINER_F90_INTEGER:
		OK(MPI_Type_create_f90_integer(iv[0], &r));
		break;
	case MPI_COMBINER_DARRAY: {
		int n = iv[2];

		OK(MPI_Type_create_darray(iv[0], iv[1], n, iv + 3, iv + 3 + n,
					  iv + 3 + 2 * n, iv + 3 + 3 * n,
					  iv[3 + 4 * n], sub[0], &r));
		break;
	}
	default:
		ck_abort_msg("combiner %d not rebuilt", comb);
	}
	for (k = 0; k < nd; k++) {
		free_derived(&sub[k]);
		free_derived(&dv[k]);
	}
	free(iv);
	free(av);
	free(dv);
	free(sub);
	return r;
}

/* a and b have the same type map, bounds and signature. */
static void same_map(MPI_Datatype a, MPI_Datatype b)
{
	size_t i, n;
	unsigned char *src, *pa, *pb;
	ptrdiff_t lo, hi, ext;
	uintptr_t buf;

	ck_assert_uint_eq(a->size, b->size);
	ck_assert_int_eq(a->lb, b->lb);
	ck_assert_int_eq(a->ub, b->ub);
	ck_assert_int_eq(a->true_lb, b->true_lb);
	ck_assert_int_eq(a->true_ub, b->true_ub);
	ck_assert_int_eq(a->basic, b->basic);
	ck_assert_uint_eq(a->nbasic, b->nbasic);
	ck_assert_uint_eq(a->nblocks, b->nblocks);
	for (i = 0; i < a->nblocks; i++) {
		ck_assert_int_eq(rc_dt_block_at(a, i).disp,
				 rc_dt_block_at(b, i).disp);
		ck_assert_uint_eq(rc_dt_block_at(a, i).len,
				  rc_dt_block_at(b, i).len);
	}
	ck_assert_uint_eq(a->nsig, b->nsig);
	for (i = 0; i < a->nsig; i++) {
		ck_assert_int_eq(a->sig[i].basic, b->sig[i].basic);
		ck_assert_uint_eq(a->sig[i].count, b->sig[i].count);
	}
	/* and they pack two elements of one buffer alike */
	ext = rc_dt_extent(a);
	lo = ext < 0 ? a->true_lb + ext : a->true_lb;
	hi = ext > 0 ? a->true_ub + ext : a->true_ub;
	n = (size_t)(hi - lo) + 1;
	src = malloc(n);
	pa = malloc(2 * a->size + 1);
	pb = malloc(2 * a->size + 1);
	ck_assert(src && pa && pb);
	for (i = 0; i < n; i++)
		src[i] = (unsigned char)(i * 37 + 11);
	OK(MPI_Type_commit(&a));
	OK(MPI_Type_commit(&b));
	/* the buffer address that puts the lowest byte touched at src */
	buf = (uintptr_t)src - (uintptr_t)lo;
	ck_assert_uint_eq(rc_dt_pack(a, 2, (void *)buf, 0, pa, 2 * a->size),
			  2 * a->size);
	ck_assert_uint_eq(rc_dt_pack(b, 2, (void *)buf, 0, pb, 2 * b->size),
			  2 * b->size);
	ck_assert_mem_eq(pa, pb, 2 * a->size);
	free(src);
	free(pa);
	free(pb);
}

/* ---- every combiner's envelope and contents, by hand --------------------- */

struct want {
	int comb, ni, na, nd;
	const int *iv;
	const MPI_Aint *av;
	const MPI_Datatype *dv;
};

/* t decodes to exactly w; the datatypes come back as the same objects
 * (a derived one with one more reference, given back here). */
static void check_contents(MPI_Datatype t, const struct want *w)
{
	int ni, na, nd, comb, k, iv[64];
	MPI_Aint av[64];
	MPI_Datatype dv[64];

	OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
	ck_assert_int_eq(comb, w->comb);
	ck_assert_int_eq(ni, w->ni);
	ck_assert_int_eq(na, w->na);
	ck_assert_int_eq(nd, w->nd);
	ck_assert_int_le(ni, 64);
	memset(iv, 0x7f, sizeof(iv));
	OK(MPI_Type_get_contents(t, 64, 64, 64, iv, av, dv));
	if (ni)
		ck_assert_mem_eq(iv, w->iv, (size_t)ni * sizeof(int));
	ck_assert_int_eq(iv[ni], 0x7f7f7f7f);	/* nothing beyond */
	if (na)
		ck_assert_mem_eq(av, w->av, (size_t)na * sizeof(MPI_Aint));
	for (k = 0; k < nd; k++) {
		ck_assert_ptr_eq(dv[k], w->dv[k]);
		if (!(dv[k]->flags & RC_DT_PREDEFINED)) {
			int before = dv[k]->refcount;

			OK(MPI_Type_free(&dv[k]));
			ck_assert_int_eq(w->dv[k]->refcount, before - 1);
		}
	}
	/* and the type rebuilt from them has the same map */
	{
		MPI_Datatype r = rebuild(t);

		same_map(t, r);
		free_derived(&r);
	}
}

START_TEST(test_every_combiner)
{
	MPI_Datatype v, t, tys[3];
	static const int bl[3] = { 2, 0, 3 }, di[3] = { 5, 1, -2 };
	static const MPI_Aint da[3] = { 16, 0, -40 };
	static const int sz[3] = { 4, 5, 6 }, ss[3] = { 2, 3, 1 },
			 st[3] = { 1, 2, 5 };

	OK(MPI_Type_vector(2, 1, 3, MPI_SHORT, &v));
	{
		static const int iv[] = { 2, 1, 3 };
		struct want w = { MPI_COMBINER_VECTOR, 3, 0, 1, iv, NULL,
				  (MPI_Datatype[]){ MPI_SHORT } };

		check_contents(v, &w);
	}
	OK(MPI_Type_dup(v, &t));
	{
		struct want w = { MPI_COMBINER_DUP, 0, 0, 1, NULL, NULL,
				  (MPI_Datatype[]){ v } };

		check_contents(t, &w);
		OK(MPI_Type_free(&t));
	}
	OK(MPI_Type_contiguous(7, v, &t));
	{
		static const int iv[] = { 7 };
		struct want w = { MPI_COMBINER_CONTIGUOUS, 1, 0, 1, iv, NULL,
				  (MPI_Datatype[]){ v } };

		check_contents(t, &w);
		OK(MPI_Type_free(&t));
	}
	OK(MPI_Type_create_hvector(3, 2, -24, v, &t));
	{
		static const int iv[] = { 3, 2 };
		static const MPI_Aint av[] = { -24 };
		struct want w = { MPI_COMBINER_HVECTOR, 2, 1, 1, iv, av,
				  (MPI_Datatype[]){ v } };

		check_contents(t, &w);
		OK(MPI_Type_free(&t));
	}
	OK(MPI_Type_indexed(3, bl, di, MPI_DOUBLE, &t));
	{
		static const int iv[] = { 3, 2, 0, 3, 5, 1, -2 };
		struct want w = { MPI_COMBINER_INDEXED, 7, 0, 1, iv, NULL,
				  (MPI_Datatype[]){ MPI_DOUBLE } };

		check_contents(t, &w);
		OK(MPI_Type_free(&t));
	}
	OK(MPI_Type_create_hindexed(3, bl, da, v, &t));
	{
		static const int iv[] = { 3, 2, 0, 3 };
		struct want w = { MPI_COMBINER_HINDEXED, 4, 3, 1, iv, da,
				  (MPI_Datatype[]){ v } };

		check_contents(t, &w);
		OK(MPI_Type_free(&t));
	}
	OK(MPI_Type_create_indexed_block(3, 4, di, MPI_INT, &t));
	{
		static const int iv[] = { 3, 4, 5, 1, -2 };
		struct want w = { MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1, iv,
				  NULL, (MPI_Datatype[]){ MPI_INT } };

		check_contents(t, &w);
		OK(MPI_Type_free(&t));
	}
	OK(MPI_Type_create_hindexed_block(3, 2, da, MPI_INT, &t));
	{
		static const int iv[] = { 3, 2 };
		struct want w = { MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 1, iv,
				  da, (MPI_Datatype[]){ MPI_INT } };

		check_contents(t, &w);
		OK(MPI_Type_free(&t));
	}
	tys[0] = MPI_CHAR;
	tys[1] = v;
	tys[2] = MPI_DOUBLE_INT;
	OK(MPI_Type_create_struct(3, bl, da, tys, &t));
	{
		static const int iv[] = { 3, 2, 0, 3 };
		struct want w = { MPI_COMBINER_STRUCT, 4, 3, 3, iv, da, tys };

		check_contents(t, &w);
		OK(MPI_Type_free(&t));
	}
	OK(MPI_Type_create_subarray(3, sz, ss, st, MPI_ORDER_FORTRAN, v, &t));
	{
		static const int iv[] = { 3, 4, 5, 6, 2, 3, 1, 1, 2, 5,
					  MPI_ORDER_FORTRAN };
		struct want w = { MPI_COMBINER_SUBARRAY, 11, 0, 1, iv, NULL,
				  (MPI_Datatype[]){ v } };

		check_contents(t, &w);
		OK(MPI_Type_free(&t));
	}
	OK(MPI_Type_create_resized(v, -8, 100, &t));
	{
		static const MPI_Aint av[] = { -8, 100 };
		struct want w = { MPI_COMBINER_RESIZED, 0, 2, 1, NULL, av,
				  (MPI_Datatype[]){ v } };

		check_contents(t, &w);
		OK(MPI_Type_free(&t));
	}
	/* count 0 with NULL arrays: still the combiner that was called */
	OK(MPI_Type_indexed(0, NULL, NULL, MPI_INT, &t));
	{
		static const int iv[] = { 0 };
		struct want w = { MPI_COMBINER_INDEXED, 1, 0, 1, iv, NULL,
				  (MPI_Datatype[]){ MPI_INT } };

		check_contents(t, &w);
		OK(MPI_Type_free(&t));
	}
	OK(MPI_Type_create_hindexed(0, NULL, NULL, MPI_INT, &t));
	{
		static const int iv[] = { 0 };
		struct want w = { MPI_COMBINER_HINDEXED, 1, 0, 1, iv, NULL,
				  (MPI_Datatype[]){ MPI_INT } };

		check_contents(t, &w);
		OK(MPI_Type_free(&t));
	}
	OK(MPI_Type_free(&v));
}
END_TEST

/* ---- nested types, decoded and rebuilt ------------------------------------ */

START_TEST(test_rebuild_nested)
{
	MPI_Datatype a, b, c, d, e, f, g, tys[3], r;
	int bl[3] = { 1, 2, 1 }, idx[3] = { 4, 0, 9 };
	MPI_Aint da[3] = { 0, 24, 200 };
	int sz[2] = { 6, 5 }, ss[2] = { 3, 2 }, st[2] = { 2, 1 };

	OK(MPI_Type_create_resized(MPI_INT, -4, 12, &a));
	OK(MPI_Type_indexed(3, bl, idx, a, &b));
	OK(MPI_Type_create_hvector(2, 2, -300, b, &c));
	OK(MPI_Type_create_subarray(2, sz, ss, st, MPI_ORDER_C, MPI_DOUBLE,
				    &d));
	tys[0] = c;
	tys[1] = MPI_SHORT_INT;
	tys[2] = d;
	OK(MPI_Type_create_struct(3, bl, da, tys, &e));
	OK(MPI_Type_dup(e, &f));
	OK(MPI_Type_contiguous(3, f, &g));
	/* the user frees everything but the outermost: the contents keep
	 * what they name alive */
	OK(MPI_Type_free(&a));
	OK(MPI_Type_free(&b));
	OK(MPI_Type_free(&c));
	OK(MPI_Type_free(&d));
	OK(MPI_Type_free(&e));
	OK(MPI_Type_free(&f));
	r = rebuild(g);
	same_map(g, r);
	OK(MPI_Type_free(&r));
	OK(MPI_Type_free(&g));
}
END_TEST

/* A decoded derived datatype is a new reference: usable and freeable in
 * any order with the type it came from. */
START_TEST(test_contents_references)
{
	MPI_Datatype v, s, got, tys[1];
	int one = 1, iv[2];
	MPI_Aint zero = 0, av[1];
	size_t size;

	OK(MPI_Type_vector(3, 1, 2, MPI_FLOAT, &v));
	tys[0] = v;
	OK(MPI_Type_create_struct(1, &one, &zero, tys, &s));
	OK(MPI_Type_free(&v));
	OK(MPI_Type_get_contents(s, 2, 1, 1, iv, av, &got));
	OK(MPI_Type_free(&s));
	/* got outlives both user handles */
	size = got->size;
	ck_assert_uint_eq(size, 3 * sizeof(float));
	OK(MPI_Type_commit(&got));
	OK(MPI_Type_free(&got));
	ck_assert_ptr_eq(got, MPI_DATATYPE_NULL);
}
END_TEST

START_TEST(test_contents_errors)
{
	MPI_Datatype v, dv[2];
	int iv[4];
	MPI_Aint av[2];

	ck_assert_int_eq(MPI_Type_get_contents(MPI_INT, 4, 2, 2, iv, av, dv),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Type_get_contents(MPI_DATATYPE_NULL, 4, 2, 2, iv,
					       av, dv),
			 MPI_ERR_TYPE);
	OK(MPI_Type_vector(2, 1, 3, MPI_INT, &v));
	ck_assert_int_eq(MPI_Type_get_contents(v, 2, 0, 1, iv, av, dv),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_get_contents(v, 3, 0, 0, iv, av, dv),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_get_contents(v, 3, 0, 1, NULL, av, dv),
			 MPI_ERR_ARG);
	/* NULL arrays are fine where nothing goes */
	OK(MPI_Type_get_contents(v, 3, 0, 1, iv, NULL, dv));
	ck_assert_ptr_eq(dv[0], MPI_INT);
	OK(MPI_Type_free(&v));
}
END_TEST

/* ---- darray against layouts computed by hand ------------------------------ */

/* (gsizes, distribs, dargs, psizes, order), and for every rank the global
 * linear indices (in storage order) it owns, -1 ending each list. */
struct dcase {
	const char *what;
	int ndims, gsizes[3], distribs[3], dargs[3], psizes[3], order;
	int own[8][8];
};

#define B MPI_DISTRIBUTE_BLOCK
#define C MPI_DISTRIBUTE_CYCLIC
#define N MPI_DISTRIBUTE_NONE
#define D MPI_DISTRIBUTE_DFLT_DARG

static const struct dcase dcases[] = {
	{ "block 10 over 3", 1, { 10 }, { B }, { D }, { 3 }, MPI_ORDER_C,
	  { { 0, 1, 2, 3, -1 }, { 4, 5, 6, 7, -1 }, { 8, 9, -1 } } },
	{ "block(3) 10 over 4", 1, { 10 }, { B }, { 3 }, { 4 }, MPI_ORDER_C,
	  { { 0, 1, 2, -1 }, { 3, 4, 5, -1 }, { 6, 7, 8, -1 }, { 9, -1 } } },
	{ "block 5 over 4: the last one empty", 1, { 5 }, { B }, { D }, { 4 },
	  MPI_ORDER_C,
	  { { 0, 1, -1 }, { 2, 3, -1 }, { 4, -1 }, { -1 } } },
	{ "cyclic 10 over 3", 1, { 10 }, { C }, { D }, { 3 }, MPI_ORDER_C,
	  { { 0, 3, 6, 9, -1 }, { 1, 4, 7, -1 }, { 2, 5, 8, -1 } } },
	{ "cyclic(2) 10 over 3", 1, { 10 }, { C }, { 2 }, { 3 },
	  MPI_ORDER_FORTRAN,
	  { { 0, 1, 6, 7, -1 }, { 2, 3, 8, 9, -1 }, { 4, 5, -1 } } },
	/* rows by block, columns cyclic; rank = row coord * 3 + col coord */
	{ "4x6 block x cyclic over 2x3, C", 2, { 4, 6 }, { B, C }, { D, D },
	  { 2, 3 }, MPI_ORDER_C,
	  { { 0, 3, 6, 9, -1 }, { 1, 4, 7, 10, -1 }, { 2, 5, 8, 11, -1 },
	    { 12, 15, 18, 21, -1 }, { 13, 16, 19, 22, -1 },
	    { 14, 17, 20, 23, -1 } } },
	/* the same in Fortran order: index row + 4 * col, rows fastest */
	{ "4x6 block x cyclic over 2x3, Fortran", 2, { 4, 6 }, { B, C },
	  { D, D }, { 2, 3 }, MPI_ORDER_FORTRAN,
	  { { 0, 1, 12, 13, -1 }, { 4, 5, 16, 17, -1 }, { 8, 9, 20, 21, -1 },
	    { 2, 3, 14, 15, -1 }, { 6, 7, 18, 19, -1 },
	    { 10, 11, 22, 23, -1 } } },
	/* 2x3x4, dim 0 not distributed, dim 1 block over 2, dim 2 cyclic(2)
	 * over 2: index i * 12 + j * 4 + k */
	{ "2x3x4 none x block x cyclic(2), C", 3, { 2, 3, 4 }, { N, B, C },
	  { D, D, 2 }, { 1, 2, 2 }, MPI_ORDER_C,
	  { { 0, 1, 4, 5, 12, 13, 16, 17 }, { 2, 3, 6, 7, 14, 15, 18, 19 },
	    { 8, 9, 20, 21, -1 }, { 10, 11, 22, 23, -1 } } },
	/* 3x5 cyclic(2) x block(2) over 2x3, Fortran: index i + 3 * j */
	{ "3x5 cyclic(2) x block(2) over 2x3, Fortran", 2, { 3, 5 },
	  { C, B }, { 2, 2 }, { 2, 3 }, MPI_ORDER_FORTRAN,
	  { { 0, 1, 3, 4, -1 }, { 6, 7, 9, 10, -1 }, { 12, 13, -1 },
	    { 2, 5, -1 }, { 8, 11, -1 }, { 14, -1 } } },
};
#define NDCASES ((int)(sizeof(dcases) / sizeof(dcases[0])))

#undef B
#undef C
#undef N
#undef D

/* Pack a global array of elements whose value is their linear index with
 * rank r's darray type: the packed values are what r owns, in order. */
START_TEST(test_darray_by_hand)
{
	const struct dcase *c = &dcases[_i];
	int nprocs = 1, total = 1, r, k, n, i;
	int *glob, *got;
	MPI_Datatype t, pair;

	for (i = 0; i < c->ndims; i++) {
		nprocs *= c->psizes[i];
		total *= c->gsizes[i];
	}
	glob = malloc(sizeof(int) * (size_t)total * 2);
	got = malloc(sizeof(int) * (size_t)total * 2);
	for (i = 0; i < total; i++)
		glob[i] = i;
	for (r = 0; r < nprocs; r++) {
		OK(MPI_Type_create_darray(nprocs, r, c->ndims, c->gsizes,
					  c->distribs, c->dargs, c->psizes,
					  c->order, MPI_INT, &t));
		OK(MPI_Type_commit(&t));
		for (n = 0; n < 8 && c->own[r][n] >= 0; n++)
			;
		ck_assert_msg(t->size == (size_t)n * sizeof(int),
			      "%s rank %d: %zu bytes, want %d ints", c->what,
			      r, t->size, n);
		ck_assert_int_eq(t->lb, 0);
		ck_assert_int_eq(rc_dt_extent(t),
				 (ptrdiff_t)total * (ptrdiff_t)sizeof(int));
		rc_dt_pack(t, 1, glob, 0, got, t->size);
		for (k = 0; k < n; k++)
			ck_assert_msg(got[k] == c->own[r][k],
				      "%s rank %d: element %d is %d, want %d",
				      c->what, r, k, got[k], c->own[r][k]);
		/* decoded and rebuilt: the same map */
		{
			MPI_Datatype rb = rebuild(t);

			same_map(t, rb);
			OK(MPI_Type_free(&rb));
		}
		OK(MPI_Type_free(&t));
		/* an oldtype of two ints: every index doubled */
		OK(MPI_Type_contiguous(2, MPI_INT, &pair));
		OK(MPI_Type_create_darray(nprocs, r, c->ndims, c->gsizes,
					  c->distribs, c->dargs, c->psizes,
					  c->order, pair, &t));
		ck_assert_int_eq(rc_dt_extent(t),
				 (ptrdiff_t)total * 2 * (ptrdiff_t)sizeof(int));
		for (i = 0; i < 2 * total; i++)
			glob[i] = i;
		rc_dt_pack(t, 1, glob, 0, got, t->size);
		for (k = 0; k < n; k++)
			ck_assert(got[2 * k] == 2 * c->own[r][k] &&
				  got[2 * k + 1] == 2 * c->own[r][k] + 1);
		OK(MPI_Type_free(&t));
		OK(MPI_Type_free(&pair));
		for (i = 0; i < total; i++)
			glob[i] = i;
	}
	free(glob);
	free(got);
}
END_TEST

/* Many grids: the processes' pieces partition the array, each in storage
 * order (which is increasing memory offset, in both orders). */
START_TEST(test_darray_partition)
{
	static const int dist[3] = { MPI_DISTRIBUTE_BLOCK,
				     MPI_DISTRIBUTE_CYCLIC,
				     MPI_DISTRIBUTE_NONE };
	int g[2], p[2], ds[2], da[2], order, r, i, total, nprocs, cases = 0;
	int *seen, *glob, *got;
	MPI_Datatype t;

	for (g[0] = 1; g[0] <= 7; g[0] += 3)
	for (g[1] = 2; g[1] <= 9; g[1] += 7)
	for (p[0] = 1; p[0] <= 3; p[0]++)
	for (p[1] = 1; p[1] <= 4; p[1] += 3)
	for (i = 0; i < 9 * 3; i++) {
		ds[0] = dist[i % 3];
		ds[1] = dist[(i / 3) % 3];
		da[0] = (i / 9) ? (i / 9) : MPI_DISTRIBUTE_DFLT_DARG;
		da[1] = (i / 9) ? 3 - (i / 9) : MPI_DISTRIBUTE_DFLT_DARG;
		if ((ds[0] == MPI_DISTRIBUTE_NONE && p[0] != 1) ||
		    (ds[1] == MPI_DISTRIBUTE_NONE && p[1] != 1))
			continue;
		if ((ds[0] == MPI_DISTRIBUTE_BLOCK && da[0] > 0 &&
		     da[0] * p[0] < g[0]) ||
		    (ds[1] == MPI_DISTRIBUTE_BLOCK && da[1] > 0 &&
		     da[1] * p[1] < g[1]))
			continue;
		for (order = 0; order < 2; order++) {
			total = g[0] * g[1];
			nprocs = p[0] * p[1];
			seen = calloc((size_t)total, sizeof(int));
			glob = malloc(sizeof(int) * (size_t)total);
			got = malloc(sizeof(int) * (size_t)total);
			for (r = 0; r < total; r++)
				glob[r] = r;
			for (r = 0; r < nprocs; r++) {
				size_t k, n;

				OK(MPI_Type_create_darray(
					nprocs, r, 2, g, ds, da, p,
					order ? MPI_ORDER_FORTRAN : MPI_ORDER_C,
					MPI_INT, &t));
				n = t->size / sizeof(int);
				rc_dt_pack(t, 1, glob, 0, got, t->size);
				for (k = 0; k < n; k++) {
					ck_assert_int_lt(got[k], total);
					/* storage order is memory order */
					ck_assert(!k || got[k] > got[k - 1]);
					seen[got[k]]++;
				}
				OK(MPI_Type_free(&t));
			}
			for (r = 0; r < total; r++)
				ck_assert_msg(seen[r] == 1,
					      "%dx%d over %dx%d, distribs %d "
					      "%d, dargs %d %d: element %d "
					      "owned %d times",
					      g[0], g[1], p[0], p[1], ds[0],
					      ds[1], da[0], da[1], r, seen[r]);
			free(seen);
			free(glob);
			free(got);
			cases++;
		}
	}
	ck_assert_int_gt(cases, 100);
}
END_TEST

START_TEST(test_darray_errors)
{
	int g[2] = { 10, 4 }, p[2] = { 2, 2 }, d[2] = { MPI_DISTRIBUTE_BLOCK,
							 MPI_DISTRIBUTE_CYCLIC };
	int a[2] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG };
	MPI_Datatype t = MPI_DATATYPE_NULL;

	/* psizes multiply to 4, not 3 */
	ck_assert_int_eq(MPI_Type_create_darray(3, 0, 2, g, d, a, p,
						MPI_ORDER_C, MPI_INT, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_create_darray(4, 4, 2, g, d, a, p,
						MPI_ORDER_C, MPI_INT, &t),
			 MPI_ERR_ARG);
	/* block(4) over 2 cannot cover 10 */
	a[0] = 4;
	ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, d, a, p,
						MPI_ORDER_C, MPI_INT, &t),
			 MPI_ERR_ARG);
	a[0] = 0;
	ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, d, a, p,
						MPI_ORDER_C, MPI_INT, &t),
			 MPI_ERR_ARG);
	a[0] = MPI_DISTRIBUTE_DFLT_DARG;
	/* not distributed over 2 processes */
	d[0] = MPI_DISTRIBUTE_NONE;
	ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, d, a, p,
						MPI_ORDER_C, MPI_INT, &t),
			 MPI_ERR_ARG);
	d[0] = 77;
	ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, d, a, p,
						MPI_ORDER_C, MPI_INT, &t),
			 MPI_ERR_ARG);
	d[0] = MPI_DISTRIBUTE_BLOCK;
	ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, d, a, p, 3,
						MPI_INT, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, d, a, p,
						MPI_ORDER_C,
						MPI_DATATYPE_NULL, &t),
			 MPI_ERR_TYPE);
	ck_assert_ptr_eq(t, MPI_DATATYPE_NULL);
	/* and the valid call */
	OK(MPI_Type_create_darray(4, 3, 2, g, d, a, p, MPI_ORDER_C, MPI_INT,
				  &t));
	OK(MPI_Type_free(&t));
}
END_TEST

/* ---- types by property ---------------------------------------------------- */

START_TEST(test_match_size)
{
	static const struct {
		int cls, size;
		MPI_Datatype want;
	} ok[] = {
		{ MPI_TYPECLASS_REAL, 4, MPI_REAL4 },
		{ MPI_TYPECLASS_REAL, 8, MPI_REAL8 },
		{ MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1 },
		{ MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2 },
		{ MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4 },
		{ MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8 },
		{ MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8 },
		{ MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16 },
	};
	MPI_Datatype t;
	size_t k;
	int sz;

	for (k = 0; k < sizeof(ok) / sizeof(ok[0]); k++) {
		t = MPI_DATATYPE_NULL;
		OK(MPI_Type_match_size(ok[k].cls, ok[k].size, &t));
		ck_assert_ptr_eq(t, ok[k].want);
		OK(MPI_Type_size(t, &sz));
		ck_assert_int_eq(sz, ok[k].size);
	}
	t = MPI_DATATYPE_NULL;
	ck_assert_int_eq(MPI_Type_match_size(MPI_TYPECLASS_REAL, 16, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 4, &t),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_match_size(99, 4, &t), MPI_ERR_ARG);
	ck_assert_ptr_eq(t, MPI_DATATYPE_NULL);
}
END_TEST

START_TEST(test_f90)
{
	MPI_Datatype t, u, c, dv[1];
	int iv[2], sz, ni, na, nd, comb;
	float a[2] = { 1.5f, 2.0f }, b[2] = { 0.25f, -1.0f };

	/* real: the smallest kind with that precision and range */
	OK(MPI_Type_create_f90_real(6, 37, &t));
	ck_assert_int_eq(t->basic, RC_BASIC_REAL4);
	OK(MPI_Type_create_f90_real(6, 37, &u));
	ck_assert_ptr_eq(t, u);		/* one handle per (p, r) */
	OK(MPI_Type_create_f90_real(5, MPI_UNDEFINED, &u));
	ck_assert_ptr_ne(t, u);
	ck_assert_int_eq(u->basic, RC_BASIC_REAL4);
	OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
	ck_assert(comb == MPI_COMBINER_F90_REAL && ni == 2 && !na && !nd);
	OK(MPI_Type_get_contents(t, 2, 0, 0, iv, NULL, NULL));
	ck_assert(iv[0] == 6 && iv[1] == 37);
	/* predefined: reductions work, freeing does not */
	OK(MPI_Reduce_local(a, b, 2, t, MPI_SUM));
	ck_assert(b[0] == 1.75f && b[1] == 1.0f);
	ck_assert_int_eq(MPI_Type_free(&t), MPI_ERR_TYPE);
	OK(MPI_Type_create_f90_real(7, MPI_UNDEFINED, &t));
	ck_assert_int_eq(t->basic, RC_BASIC_REAL8);
	OK(MPI_Type_create_f90_real(MPI_UNDEFINED, 38, &t));
	ck_assert_int_eq(t->basic, RC_BASIC_REAL8);
	OK(MPI_Type_size(t, &sz));
	ck_assert_int_eq(sz, 8);
	ck_assert_int_eq(MPI_Type_create_f90_real(16, 10, &t), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_create_f90_real(1, 400, &t), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Type_create_f90_real(MPI_UNDEFINED,
						  MPI_UNDEFINED, &t),
			 MPI_ERR_ARG);
	/* complex */
	OK(MPI_Type_create_f90_complex(10, MPI_UNDEFINED, &t));
	ck_assert_int_eq(t->basic, RC_BASIC_COMPLEX16);
	OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
	ck_assert(comb == MPI_COMBINER_F90_COMPLEX && ni == 2);
	OK(MPI_Type_create_f90_complex(3, 3, &t));
	ck_assert_int_eq(t->basic, RC_BASIC_COMPLEX8);
	/* integer: r 2, 4, 9, 18 */
	OK(MPI_Type_create_f90_integer(2, &t));
	ck_assert_int_eq(t->basic, RC_BASIC_INTEGER1);
	OK(MPI_Type_create_f90_integer(3, &t));
	ck_assert_int_eq(t->basic, RC_BASIC_INTEGER2);
	OK(MPI_Type_create_f90_integer(9, &t));
	ck_assert_int_eq(t->basic, RC_BASIC_INTEGER4);
	OK(MPI_Type_create_f90_integer(10, &t));
	ck_assert_int_eq(t->basic, RC_BASIC_INTEGER8);
	OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
	ck_assert(comb == MPI_COMBINER_F90_INTEGER && ni == 1 && !nd);
	OK(MPI_Type_get_contents(t, 1, 0, 0, iv, NULL, NULL));
	ck_assert_int_eq(iv[0], 10);
	ck_assert_int_eq(MPI_Type_create_f90_integer(19, &t), MPI_ERR_ARG);
	/* inside a derived type: decoded as itself, not a new reference */
	OK(MPI_Type_create_f90_integer(4, &t));
	OK(MPI_Type_contiguous(3, t, &c));
	OK(MPI_Type_get_contents(c, 1, 0, 1, iv, NULL, dv));
	ck_assert_ptr_eq(dv[0], t);
	{
		MPI_Datatype r = rebuild(c);

		same_map(c, r);
		OK(MPI_Type_free(&r));
	}
	OK(MPI_Type_free(&c));
	/* MPI_Finalize frees them all */
	rc_dt_f90_fini();
}
END_TEST

START_TEST(test_value_index)
{
	static const MPI_Datatype v[] = {
		MPI_FLOAT, MPI_DOUBLE, MPI_LONG, MPI_INT, MPI_SHORT,
		MPI_LONG_DOUBLE, MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION,
	};
	static const MPI_Datatype i[] = {
		MPI_INT, MPI_INT, MPI_INT, MPI_INT, MPI_INT, MPI_INT,
		MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION,
	};
	static const MPI_Datatype want[] = {
		MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT,
		MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2INTEGER, MPI_2REAL,
		MPI_2DOUBLE_PRECISION,
	};
	MPI_Datatype t;
	size_t k;

	for (k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		OK(MPI_Type_get_value_index(v[k], i[k], &t));
		ck_assert_ptr_eq(t, want[k]);
	}
	OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_DOUBLE, &t));
	ck_assert_ptr_eq(t, MPI_DATATYPE_NULL);
	OK(MPI_Type_get_value_index(MPI_INT, MPI_LONG, &t));
	ck_assert_ptr_eq(t, MPI_DATATYPE_NULL);
	ck_assert_int_eq(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT,
						  &t),
			 MPI_ERR_TYPE);
}
END_TEST

static Suite *decode_suite(void)
{
	Suite *s = suite_create("typedecode");
	TCase *tc;

	tc = tcase_create("contents");
	tcase_add_checked_fixture(tc, api_setup, api_teardown);
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, test_every_combiner);
	tcase_add_test(tc, test_rebuild_nested);
	tcase_add_test(tc, test_contents_references);
	tcase_add_test(tc, test_contents_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("darray");
	tcase_add_checked_fixture(tc, api_setup, api_teardown);
	tcase_set_timeout(tc, TMO);
	tcase_add_loop_test(tc, test_darray_by_hand, 0, NDCASES);
	tcase_add_test(tc, test_darray_partition);
	tcase_add_test(tc, test_darray_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("by_property");
	tcase_add_checked_fixture(tc, api_setup, api_teardown);
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, test_match_size);
	tcase_add_test(tc, test_f90);
	tcase_add_test(tc, test_value_index);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return api_run_suite(decode_suite());
}
