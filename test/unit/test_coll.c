/*
 * test_coll.c - the collectives over the in-process fabric: several ranks'
 * engines in one process (world.h), each collective started on every rank
 * through the nonblocking entry point (rc_coll_start) with one algorithm
 * forced (rc_coll_force), progress driven for all ranks, and every rank's
 * result compared with a reference computed here.
 *
 * Data-moving collectives are checked on packed streams: rank r's send
 * stream is a pattern of ints made from (r, position, seed), unpacked into
 * whatever layout the case uses (contiguous ints, or ints with holes
 * between elements), and the receive buffers are packed back and compared
 * with the concatenations the collective must produce. Reductions are
 * checked against a fold in rank order with rc_op_apply (exact: the values
 * are small integers), element by element per basic kind, so long double
 * padding does not count.
 *
 * Cases: every algorithm of every collective on 1..9 ranks, counts 0, 1,
 * 7 and 1000 elements, roots 0 and last, with and without MPI_IN_PLACE,
 * contiguous and strided layouts; over a megabyte on 2, 3 and 8 ranks;
 * sub-communicators from split with keys that reverse the order; every
 * predefined op on every type it allows; a non-commutative user op
 * (2x2 matrix product) through every reduction algorithm; uneven v-counts
 * with zeros; overlapping nonblocking collectives waited in reverse order;
 * count 0 with NULL buffers through every algorithm.
 * Check records every assertion, so a case collects its tw_verdict first and
 * asserts once.
 */
#include <check.h>
#include <complex.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll.h"
#include "coll_impl.h"
#include "comm.h"
#include "dtype.h"
#include "info.h"
#include "op.h"
#include "param.h"
#include "pt2pt.h"
#include "request.h"
#include "status.h"
#include "topo.h"
#include "world.h"

#define NMAX 9
#define TMO 300

/* ---- types --------------------------------------------------------------- */

static struct rc_dtype *t_sint;	/* an int with extent 8: holes */
static struct rc_dtype *t_off;	/* an int at offset 8, extent 16:
				 * true lower bound > 0 */
static struct rc_dtype *t_mat;	/* 2x2 int matrix */
static struct rc_op *op_matmul;	/* non-commutative */

static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int *a = in, *b = inout, i;

	for (i = 0; i < *len; i++, a += 4, b += 4) {
		int c0 = a[0] * b[0] + a[1] * b[2];
		int c1 = a[0] * b[1] + a[1] * b[3];
		int c2 = a[2] * b[0] + a[3] * b[2];
		int c3 = a[2] * b[1] + a[3] * b[3];

		b[0] = c0;
		b[1] = c1;
		b[2] = c2;
		b[3] = c3;
	}
}

static void types_setup(void)
{
	ck_assert_int_eq(rc_dt_create_resized(&rc_mpi_int, 0, 8, &t_sint),
			 RC_OK);
	rc_dt_commit(t_sint);
	{
		MPI_Aint d8 = 8;
		struct rc_dtype *x;

		ck_assert_int_eq(rc_dt_create_hindexed(1, NULL, 1, &d8,
						       &rc_mpi_int, &x), RC_OK);
		ck_assert_int_eq(rc_dt_create_resized(x, 0, 16, &t_off),
				 RC_OK);
		rc_dt_release(x);
		rc_dt_commit(t_off);
	}
	ck_assert_int_eq(rc_dt_create_contig(4, &rc_mpi_int, &t_mat), RC_OK);
	rc_dt_commit(t_mat);
	ck_assert_int_eq(rc_op_create(matmul, false, &op_matmul), RC_OK);
}

static void types_teardown(void)
{
	rc_dt_release(t_sint);
	rc_dt_release(t_off);
	rc_dt_release(t_mat);
	rc_op_release(op_matmul);
}

/* Bytes a buffer of count elements of dt spans from its start. */
static size_t span(size_t count, const struct rc_dtype *dt)
{
	if (!count)
		return 1;
	return (count - 1) * (size_t)rc_dt_extent(dt) +
	       (size_t)(dt->true_ub);
}

/* ---- worlds and communicators -------------------------------------------- */

/* A communicator on each participating world rank, by comm rank. */
struct group {
	struct tw *tw;
	int m;			/* size */
	struct rc_comm *c[NMAX];	/* by comm rank */
};

static void force(struct tw *tw, int coll, const char *alg)
{
	int r;

	for (r = 0; r < tw->n; r++)
		ck_assert_int_eq(rc_coll_force(tw->inst[r], coll, alg), RC_OK);
}

static struct group world_group(struct tw *tw)
{
	struct group g;
	int r;

	memset(&g, 0, sizeof(g));
	g.tw = tw;
	g.m = tw->n;
	for (r = 0; r < tw->n; r++)
		g.c[r] = tw->inst[r]->world;
	return g;
}

/* Split tw's world by color(r) with key(r); the group that world rank
 * `pick` lands in, and every rank's new comm in out[] (world order). */
static struct group split_group(struct tw *tw, int (*color)(int),
				int (*key)(int), int pick,
				struct rc_comm **out)
{
	struct rc_req *req[NMAX];
	struct group g;
	int r;

	for (r = 0; r < tw->n; r++)
		ck_assert_int_eq(rc_comm_split(tw->inst[r]->world, color(r),
					       key(r), &out[r], &req[r]),
				 RC_OK);
	for (r = 0; r < tw->n; r++) {
		tw_wait(tw, req[r]);
		ck_assert_int_eq(req[r]->err, RC_OK);
		rc_req_free(req[r]);
	}
	memset(&g, 0, sizeof(g));
	g.tw = tw;
	for (r = 0; r < tw->n; r++)
		if (out[r] && color(r) == color(pick)) {
			ck_assert_int_lt(out[r]->rank, NMAX);
			g.c[out[r]->rank] = out[r];
			g.m++;
		}
	for (r = 0; r < g.m; r++)
		ck_assert_ptr_nonnull(g.c[r]);
	return g;
}

/* Start coll on every member with args[i] (by comm rank), wait all. */
static bool run(struct group *g, int coll, struct rc_cargs *args)
{
	struct rc_req *req[NMAX];
	bool ok = true;
	int i;

	for (i = 0; i < g->m; i++)
		if (rc_coll_start(g->c[i], coll, &args[i], &req[i]) != RC_OK)
			return tw_note_fail("rc_coll_start failed on rank %d",
					    i);
	for (i = g->m - 1; i >= 0; i--) {
		tw_wait(g->tw, req[i]);
		if (req[i]->err)
			ok = tw_note_fail("rank %d: %s", i,
					  rc_status_str(req[i]->err));
		rc_req_free(req[i]);
	}
	return ok;
}

/* ---- packed int streams -------------------------------------------------- */

static int pat(int r, size_t j, unsigned seed)
{
	return (int)(((unsigned)r << 20) ^ ((unsigned)j * 2654435761u) ^ seed);
}

/* Fill count elements of dt at buf with rank r's stream from position
 * `from` (in ints). */
static void fill(void *buf, size_t count, struct rc_dtype *dt, int r,
		 size_t from, unsigned seed)
{
	size_t n = count * dt->size / sizeof(int), j;
	int *s = tw_xmalloc(n * sizeof(int) + 1);

	for (j = 0; j < n; j++)
		s[j] = pat(r, from + j, seed);
	rc_dt_unpack(dt, count, buf, 0, s, n * sizeof(int));
	free(s);
}

/* Does (buf, count, dt) hold rank r's stream from `from`? */
static bool holds(const void *buf, size_t count, struct rc_dtype *dt, int r,
		  size_t from, unsigned seed, const char *what, int rank)
{
	size_t n = count * dt->size / sizeof(int), j;
	int *s = tw_xmalloc(n * sizeof(int) + 1);
	bool ok = true;

	rc_dt_pack(dt, count, buf, 0, s, n * sizeof(int));
	for (j = 0; j < n; j++)
		if (s[j] != pat(r, from + j, seed)) {
			ok = tw_note_fail(
				"%s on rank %d: int %zu is %d, want %d "
				"(from rank %d)",
				what, rank, j, s[j], pat(r, from + j, seed), r);
			break;
		}
	free(s);
	return ok;
}

/* ---- data-moving collectives -------------------------------------------- */

struct mcase {
	int coll;
	size_t count;		/* elements per block */
	struct rc_dtype *sdt, *rdt;
	int root;
	bool inplace;
	bool uneven;		/* v-collectives: uneven counts, zeros */
	unsigned seed;
};

/* Uneven block counts for rank i (zeros included), and displacements
 * with a one-element gap between blocks. */
static int vcount(const struct mcase *c, int i)
{
	if (!c->uneven)
		return (int)c->count;
	return (int)(((size_t)i * 3 + c->seed) % 4 * c->count / 2);
}

static void vlayout(const struct mcase *c, int m, int *cnt, int *dsp,
		    size_t *total)
{
	int i, d = 0;

	for (i = 0; i < m; i++) {
		cnt[i] = vcount(c, i);
		dsp[i] = d;
		d += cnt[i] + 1;
	}
	*total = (size_t)d;
}

static bool check_move(struct group *g, const struct mcase *c)
{
	int m = g->m, i, j, cnt[NMAX][NMAX], dsp[NMAX][NMAX];
	struct rc_cargs a[NMAX];
	void *sb[NMAX], *rb[NMAX];
	size_t tot[NMAX], k = c->count;
	bool ok = true;
	unsigned seed = c->seed;
	/* alltoallw: alltoallv's layout, described in bytes and types */
	int kc = c->coll == RC_COLL_ALLTOALLW ? RC_COLL_ALLTOALLV : c->coll;
	int wsd[NMAX][NMAX], wrd[NMAX][NMAX];
	struct rc_dtype *wst[NMAX], *wrt[NMAX];

	memset(a, 0, sizeof(a));
	memset(sb, 0, sizeof(sb));
	memset(rb, 0, sizeof(rb));
	for (i = 0; i < m; i++) {
		struct rc_cargs *x = &a[i];
		size_t ns = 0, nr = 0;

		x->sdt = c->sdt;
		x->rdt = c->rdt;
		x->root = c->root;
		x->scount = k;
		x->rcount = k;
		switch (kc) {
		case RC_COLL_BCAST:
			x->dt = c->sdt;
			x->count = k;
			rb[i] = tw_xmalloc(span(k, c->sdt));
			if (i == c->root)
				fill(rb[i], k, c->sdt, i, 0, seed);
			x->rbuf = rb[i];
			x->sdt = x->rdt = NULL;
			continue;
		case RC_COLL_GATHER:
		case RC_COLL_SCATTER:
		case RC_COLL_ALLGATHER:
		case RC_COLL_ALLTOALL:
			ns = kc == RC_COLL_GATHER || kc == RC_COLL_ALLGATHER
				     ? k
				     : k * (size_t)m;
			nr = kc == RC_COLL_SCATTER ? k : k * (size_t)m;
			break;
		case RC_COLL_GATHERV:
		case RC_COLL_SCATTERV:
		case RC_COLL_ALLGATHERV:
		case RC_COLL_ALLTOALLV:
			vlayout(c, m, cnt[i], dsp[i], &tot[i]);
			if (kc == RC_COLL_ALLTOALLV) {
				/* rank i sends vcount(i + j) to j: symmetric,
				 * as MPI_IN_PLACE needs */
				int d = 0;

				for (j = 0; j < m; j++) {
					cnt[i][j] = vcount(c, i + j);
					dsp[i][j] = d;
					d += cnt[i][j] + 1;
				}
				tot[i] = (size_t)d;
			}
			ns = kc == RC_COLL_SCATTERV || kc == RC_COLL_ALLTOALLV
				     ? tot[i]
				     : (size_t)vcount(c, i);
			nr = kc == RC_COLL_SCATTERV ? (size_t)vcount(c, i)
						    : tot[i];
			x->scount = (size_t)vcount(c, i);
			x->rcount = (size_t)vcount(c, i);
			x->scounts = x->rcounts = cnt[i];
			x->sdispls = x->rdispls = dsp[i];
			break;
		}
		sb[i] = tw_xmalloc(span(ns, c->sdt));
		rb[i] = tw_xmalloc(span(nr, c->rdt));
		memset(rb[i], 0xab, span(nr, c->rdt));
		x->sbuf = sb[i];
		x->rbuf = rb[i];
	}
	/* send data: rank i's stream, laid out per collective */
	for (i = 0; i < m; i++) {
		struct rc_cargs *x = &a[i];

		switch (kc) {
		case RC_COLL_GATHER:
		case RC_COLL_ALLGATHER:
			fill(sb[i], k, c->sdt, i, 0, seed);
			if (c->inplace &&
			    (kc == RC_COLL_ALLGATHER || i == c->root)) {
				fill(rc_off(rb[i], (size_t)i * k, c->rdt), k,
				     c->rdt, i, 0, seed);
				x->sbuf = MPI_IN_PLACE;
			}
			break;
		case RC_COLL_GATHERV:
		case RC_COLL_ALLGATHERV:
			fill(sb[i], x->scount, c->sdt, i, 0, seed);
			if (c->inplace &&
			    (kc == RC_COLL_ALLGATHERV || i == c->root)) {
				fill(rc_off(rb[i], (size_t)dsp[i][i], c->rdt),
				     (size_t)cnt[i][i], c->rdt, i, 0, seed);
				x->sbuf = MPI_IN_PLACE;
			}
			break;
		case RC_COLL_SCATTER:
		case RC_COLL_ALLTOALL:
			/* block j of rank i: stream position j * k */
			fill(sb[i], k * (size_t)m, c->sdt, i, 0, seed);
			if (c->inplace && kc == RC_COLL_SCATTER && i == c->root)
				x->rbuf = MPI_IN_PLACE;
			if (c->inplace && kc == RC_COLL_ALLTOALL) {
				fill(rb[i], k * (size_t)m, c->rdt, i, 0, seed);
				x->sbuf = MPI_IN_PLACE;
			}
			break;
		case RC_COLL_SCATTERV:
			for (j = 0; j < m; j++)
				fill(rc_off(sb[i], (size_t)dsp[i][j], c->sdt),
				     (size_t)cnt[i][j], c->sdt, i,
				     (size_t)j * 100000, seed);
			if (c->inplace && i == c->root)
				x->rbuf = MPI_IN_PLACE;
			break;
		case RC_COLL_ALLTOALLV:
			for (j = 0; j < m; j++)
				fill(rc_off(sb[i], (size_t)dsp[i][j], c->sdt),
				     (size_t)cnt[i][j], c->sdt, i,
				     (size_t)j * 100000, seed);
			if (c->inplace) {
				for (j = 0; j < m; j++)
					fill(rc_off(rb[i], (size_t)dsp[i][j],
						    c->rdt),
					     (size_t)cnt[i][j], c->rdt, i,
					     (size_t)j * 100000, seed);
				x->sbuf = MPI_IN_PLACE;
			}
			break;
		}
		if (x->sbuf == MPI_IN_PLACE)
			x->sdt = NULL;
		if (c->coll == RC_COLL_ALLTOALLW) {
			for (j = 0; j < m; j++) {
				wsd[i][j] =
					dsp[i][j] * (int)rc_dt_extent(c->sdt);
				wrd[i][j] =
					dsp[i][j] * (int)rc_dt_extent(c->rdt);
				wst[j] = c->sdt;
				wrt[j] = c->rdt;
			}
			x->sdispls = wsd[i];
			x->rdispls = wrd[i];
			x->sdts = wst;
			x->rdts = wrt;
			x->sdt = x->rdt = NULL;
		}
	}
	if (!run(g, c->coll, a))
		ok = false;
	for (i = 0; i < m && ok; i++) {
		switch (kc) {
		case RC_COLL_BCAST:
			ok = holds(rb[i], k, c->sdt, c->root, 0, seed, "bcast",
				   i);
			break;
		case RC_COLL_GATHER:
		case RC_COLL_ALLGATHER:
			if (kc == RC_COLL_GATHER && i != c->root)
				break;
			for (j = 0; j < m && ok; j++)
				ok = holds(rc_off(rb[i], (size_t)j * k, c->rdt),
					   k, c->rdt, j, 0, seed, "gather", i);
			break;
		case RC_COLL_GATHERV:
		case RC_COLL_ALLGATHERV:
			if (kc == RC_COLL_GATHERV && i != c->root)
				break;
			for (j = 0; j < m && ok; j++)
				ok = holds(rc_off(rb[i], (size_t)dsp[i][j],
						  c->rdt),
					   (size_t)cnt[i][j], c->rdt, j, 0,
					   seed, "gatherv", i);
			break;
		case RC_COLL_SCATTER:
			if (c->inplace && i == c->root)
				break;
			ok = holds(rb[i], k, c->rdt, c->root, (size_t)i * k,
				   seed, "scatter", i);
			break;
		case RC_COLL_SCATTERV:
			if (c->inplace && i == c->root)
				break;
			ok = holds(rb[i], (size_t)vcount(c, i), c->rdt,
				   c->root, (size_t)i * 100000, seed,
				   "scatterv", i);
			break;
		case RC_COLL_ALLTOALL:
			for (j = 0; j < m && ok; j++)
				ok = holds(rc_off(rb[i], (size_t)j * k, c->rdt),
					   k, c->rdt, j, (size_t)i * k, seed,
					   "alltoall", i);
			break;
		case RC_COLL_ALLTOALLV:
			/* block from j: j's block for i, at j's position i */
			for (j = 0; j < m && ok; j++) {
				ok = holds(rc_off(rb[i], (size_t)dsp[i][j],
						  c->rdt),
					   (size_t)cnt[i][j], c->rdt, j,
					   (size_t)i * 100000, seed,
					   "alltoallv", i);
			}
			break;
		}
	}
	for (i = 0; i < m; i++) {
		free(sb[i]);
		free(rb[i]);
	}
	return ok;
}

/* ---- reductions ---------------------------------------------------------- */

/* Small integer values of any basic kind; pair types get index r % 3. */
static void put_val(enum rc_basic b, char *p, int v, int idx)
{
	switch (b) {
#define X(name, ctype, str)                                    \
	case RC_BASIC_##name: {                                \
		ctype t = (ctype)v;                            \
		memcpy(p, &t, sizeof(t));                      \
		break;                                         \
	}
	RC_BASIC_TABLE(X)
#undef X
#define X(name, vtype, vb, itype, ib, str)                     \
	case RC_BASIC_##name: {                                \
		vtype t = (vtype)v;                            \
		itype ti = (itype)idx;                         \
		memcpy(p, &t, sizeof(t));                      \
		memcpy(p + sizeof(t), &ti, sizeof(ti));        \
		break;                                         \
	}
	RC_PAIR_TABLE(X)
#undef X
	default:
		ck_abort();
	}
	if (b == RC_BASIC_C_FLOAT_COMPLEX || b == RC_BASIC_COMPLEX ||
	    b == RC_BASIC_COMPLEX8 || b == RC_BASIC_CXX_FLOAT_COMPLEX) {
		float _Complex z = (float)v + (float)(v - 1) * I;

		memcpy(p, &z, sizeof(z));
	} else if (b == RC_BASIC_C_DOUBLE_COMPLEX ||
		   b == RC_BASIC_DOUBLE_COMPLEX || b == RC_BASIC_COMPLEX16 ||
		   b == RC_BASIC_CXX_DOUBLE_COMPLEX) {
		double _Complex z = (double)v + (double)(v - 1) * I;

		memcpy(p, &z, sizeof(z));
	} else if (b == RC_BASIC_C_LONG_DOUBLE_COMPLEX ||
		   b == RC_BASIC_CXX_LONG_DOUBLE_COMPLEX) {
		long double _Complex z =
			(long double)v + (long double)(v - 1) * I;

		memcpy(p, &z, sizeof(z));
	}
}

/* Equal elements of kind b in packed streams (long double by value). */
static bool same_val(enum rc_basic b, const char *p, const char *q)
{
	long double x, y;

	switch (b) {
	case RC_BASIC_LONG_DOUBLE:
	case RC_BASIC_LONG_DOUBLE_INT:
		memcpy(&x, p, sizeof(x));
		memcpy(&y, q, sizeof(y));
		if (x != y)
			return false;
		return b == RC_BASIC_LONG_DOUBLE ||
		       !memcmp(p + sizeof(x), q + sizeof(y), sizeof(int));
	case RC_BASIC_C_LONG_DOUBLE_COMPLEX:
	case RC_BASIC_CXX_LONG_DOUBLE_COMPLEX: {
		long double _Complex z, w;

		memcpy(&z, p, sizeof(z));
		memcpy(&w, q, sizeof(w));
		return z == w;
	}
	case RC_BASIC_C_BOOL:
	case RC_BASIC_CXX_BOOL:
		return !*p == !*q;
	/* by value: a product's zero may come out signed either way */
	case RC_BASIC_FLOAT:
	case RC_BASIC_REAL:
	case RC_BASIC_REAL4: {
		float f, g;

		memcpy(&f, p, sizeof(f));
		memcpy(&g, q, sizeof(g));
		return f == g;
	}
	case RC_BASIC_DOUBLE:
	case RC_BASIC_DOUBLE_PRECISION:
	case RC_BASIC_REAL8: {
		double f, g;

		memcpy(&f, p, sizeof(f));
		memcpy(&g, q, sizeof(g));
		return f == g;
	}
	case RC_BASIC_C_FLOAT_COMPLEX:
	case RC_BASIC_COMPLEX:
	case RC_BASIC_COMPLEX8:
	case RC_BASIC_CXX_FLOAT_COMPLEX: {
		float _Complex z, w;

		memcpy(&z, p, sizeof(z));
		memcpy(&w, q, sizeof(w));
		return z == w;
	}
	case RC_BASIC_C_DOUBLE_COMPLEX:
	case RC_BASIC_DOUBLE_COMPLEX:
	case RC_BASIC_COMPLEX16:
	case RC_BASIC_CXX_DOUBLE_COMPLEX: {
		double _Complex z, w;

		memcpy(&z, p, sizeof(z));
		memcpy(&w, q, sizeof(w));
		return z == w;
	}
	default:
		return !memcmp(p, q, rc_basic_size(b));
	}
}

struct rcase {
	int coll;
	size_t count;
	struct rc_dtype *dt;
	struct rc_op *op;
	int root;
	bool inplace;
	bool uneven;
	unsigned seed;
};

/* Rank r's input: `count` elements of dt (basic kind b throughout). */
static void red_input(void *buf, size_t count, struct rc_dtype *dt, int r,
		      unsigned seed)
{
	enum rc_basic b = dt->basic;
	size_t bs = rc_basic_size(b), n = count * dt->size / bs, j;
	char *s = tw_xmalloc(n * bs + 1);

	for (j = 0; j < n; j++) {
		int v = (int)(((unsigned)r * 7 + (unsigned)j * 3 + seed) % 6)
			- 2;

		if (dt == t_mat)	/* keep matrix products small */
			v = (int)((r + j + seed) % 3) - 1;
		put_val(b, s + j * bs, v, (int)((r + j) % 3));
	}
	rc_dt_unpack(dt, count, buf, 0, s, n * bs);
	free(s);
}

/* Is (buf, count, dt) equal to the reference? */
static bool red_same(const void *buf, const void *ref, size_t count,
		     struct rc_dtype *dt, const char *what, int rank)
{
	enum rc_basic b = dt->basic;
	size_t bs = rc_basic_size(b), len = count * dt->size, j;
	char *p = tw_xmalloc(len + 1), *q = tw_xmalloc(len + 1);
	bool ok = true;

	rc_dt_pack(dt, count, buf, 0, p, len);
	rc_dt_pack(dt, count, ref, 0, q, len);
	for (j = 0; j < len; j += bs)
		if (!same_val(b, p + j, q + j)) {
			ok = tw_note_fail("%s on rank %d: element %zu of %zu "
					  "differs",
					  what, rank, j / bs, len / bs);
			break;
		}
	free(p);
	free(q);
	return ok;
}

/* ref[r] = x[0] op x[1] ... op x[r] (prefixes), computed in rank order. */
static void **prefixes(void **x, int m, size_t count, struct rc_dtype *dt,
		       struct rc_op *op)
{
	void **ref = calloc((size_t)m, sizeof(void *));
	size_t sp = span(count, dt);
	int r;

	ck_assert_ptr_nonnull(ref);
	for (r = 0; r < m; r++) {
		ref[r] = tw_xmalloc(sp);
		memcpy(ref[r], x[r], sp);
		if (r)
			rc_op_apply(op, ref[r - 1], ref[r], count, dt);
	}
	return ref;
}

static bool check_red(struct group *g, const struct rcase *c)
{
	int m = g->m, i, cnt[NMAX];
	struct rc_cargs a[NMAX];
	void *x[NMAX], *sb[NMAX], *rb[NMAX], **ref;
	size_t total, disp[NMAX + 1], k = c->count, nin;
	struct rc_dtype *dt = c->dt;
	bool ok = true, blk = c->coll == RC_COLL_REDUCE_SCATTER_BLOCK,
	     rs = c->coll == RC_COLL_REDUCE_SCATTER;

	/* elements in one rank's input */
	disp[0] = 0;
	for (i = 0; i < m; i++) {
		cnt[i] = rs ? (c->uneven ? (int)(((size_t)i * 3 + c->seed) %
						 4 * k / 2) : (int)k)
			    : (int)k;
		disp[i + 1] = disp[i] + (size_t)cnt[i];
	}
	total = disp[m];
	nin = rs || blk ? (blk ? k * (size_t)m : total) : k;
	memset(a, 0, sizeof(a));
	for (i = 0; i < m; i++) {
		x[i] = tw_xmalloc(span(nin, dt));
		red_input(x[i], nin, dt, i, c->seed);
		sb[i] = tw_xmalloc(span(nin, dt));
		rb[i] = tw_xmalloc(span(nin, dt));
		memcpy(sb[i], x[i], span(nin, dt));
		memset(rb[i], 0x5a, span(nin, dt));
		a[i].sbuf = sb[i];
		a[i].rbuf = rb[i];
		a[i].count = k;
		a[i].dt = dt;
		a[i].op = c->op;
		a[i].root = c->root;
		a[i].rcounts = cnt;
		if (c->inplace && (c->coll != RC_COLL_REDUCE || i == c->root)) {
			memcpy(rb[i], x[i], span(nin, dt));
			a[i].sbuf = MPI_IN_PLACE;
		}
	}
	if (!run(g, c->coll, a))
		ok = false;
	ref = prefixes(x, m, nin, dt, c->op);
	for (i = 0; i < m && ok; i++) {
		switch (c->coll) {
		case RC_COLL_REDUCE:
			if (i == c->root)
				ok = red_same(rb[i], ref[m - 1], k, dt,
					      "reduce", i);
			break;
		case RC_COLL_ALLREDUCE:
			ok = red_same(rb[i], ref[m - 1], k, dt, "allreduce", i);
			break;
		case RC_COLL_SCAN:
			ok = red_same(rb[i], ref[i], k, dt, "scan", i);
			break;
		case RC_COLL_EXSCAN:
			if (i)
				ok = red_same(rb[i], ref[i - 1], k, dt,
					      "exscan", i);
			break;
		case RC_COLL_REDUCE_SCATTER_BLOCK:
			ok = red_same(rb[i], rc_off(ref[m - 1], (size_t)i * k,
						    dt),
				      k, dt, "reduce_scatter_block", i);
			break;
		case RC_COLL_REDUCE_SCATTER:
			ok = red_same(rb[i], rc_off(ref[m - 1], disp[i], dt),
				      (size_t)cnt[i], dt, "reduce_scatter", i);
			break;
		}
	}
	for (i = 0; i < m; i++) {
		free(x[i]);
		free(sb[i]);
		free(rb[i]);
		free(ref[i]);
	}
	free(ref);
	return ok;
}

static bool is_red(int coll)
{
	return coll == RC_COLL_REDUCE || coll == RC_COLL_ALLREDUCE ||
	       coll == RC_COLL_SCAN || coll == RC_COLL_EXSCAN ||
	       coll == RC_COLL_REDUCE_SCATTER ||
	       coll == RC_COLL_REDUCE_SCATTER_BLOCK;
}

static bool is_rooted(int coll)
{
	return coll == RC_COLL_BCAST || coll == RC_COLL_REDUCE ||
	       coll == RC_COLL_GATHER || coll == RC_COLL_GATHERV ||
	       coll == RC_COLL_SCATTER || coll == RC_COLL_SCATTERV;
}

static bool has_inplace(int coll)
{
	return coll != RC_COLL_BCAST && coll != RC_COLL_BARRIER;
}

/* A barrier case: every rank's request completes only once all started. */
static bool check_barrier(struct group *g)
{
	struct rc_req *req[NMAX];
	struct rc_cargs a;
	bool ok = true;
	int i;

	memset(&a, 0, sizeof(a));
	for (i = 0; i < g->m; i++) {
		if (i == g->m - 1 && g->m > 1) {
			/* nobody may leave before the last one arrives */
			tw_quiesce(g->tw);
			for (int j = 0; j < i; j++)
				if (rc_req_done(req[j]))
					ok = tw_note_fail("barrier: rank %d "
							  "left early",
							  j);
		}
		ck_assert_int_eq(rc_coll_start(g->c[i], RC_COLL_BARRIER, &a,
					       &req[i]),
				 RC_OK);
	}
	for (i = 0; i < g->m; i++) {
		tw_wait(g->tw, req[i]);
		rc_req_free(req[i]);
	}
	return ok;
}

static struct rc_dtype *lay_type(int lay)
{
	return lay == 1 ? t_sint : lay == 2 ? t_off : &rc_mpi_int;
}

/* One case of collective coll on group g, element layout by `lay`:
 * 0 contiguous ints, 1 ints with holes, 2 ints at an offset (true lower
 * bound 8) - the receive side, or both for reductions and bcast - and,
 * for reductions, 3: 2x2 matrices with the non-commutative product. */
static bool one(struct group *g, int coll, size_t count, int root,
		bool inplace, int lay, unsigned seed)
{
	if (coll == RC_COLL_BARRIER)
		return check_barrier(g);
	if (is_red(coll)) {
		struct rcase c = {
			.coll = coll, .count = count,
			.dt = lay_type(lay), .op = &rc_mpi_sum,
			.root = root, .inplace = inplace, .uneven = true,
			.seed = seed,
		};

		if (lay == 3) {
			c.dt = t_mat;
			c.op = op_matmul;
		}
		return check_red(g, &c);
	}
	struct mcase c = {
		.coll = coll, .count = count, .sdt = &rc_mpi_int,
		.rdt = lay_type(lay), .root = root,
		.inplace = inplace, .uneven = true, .seed = seed,
	};
	if (coll == RC_COLL_BCAST)
		c.sdt = lay_type(lay);
	return check_move(g, &c);
}

/* ---- tests --------------------------------------------------------------- */

/* Every case of collective coll with algorithm alg on g (size n): counts,
 * roots 0 and last, with and without MPI_IN_PLACE, every layout. */
static void alg_cases(struct group *g, int coll, const char *alg, int n)
{
	static const size_t counts[] = { 0, 1, 7, 1000 };
	int ci, rs, ip, lay, root;
	int nroot = is_rooted(coll) ? 2 : 1, nip = has_inplace(coll) ? 2 : 1;
	int nlay = is_red(coll) ? 4 : 3;

	for (ci = 0; ci < (coll == RC_COLL_BARRIER ? 1 : 4); ci++)
		for (rs = 0; rs < nroot; rs++)
			for (ip = 0; ip < nip; ip++)
				for (lay = 0; lay < nlay; lay++) {
					if (lay >= 2 && ci == 3)
						continue;
					root = rs ? n - 1 : 0;
					tw_verdict[0] = 0;
					one(g, coll, counts[ci], root, ip, lay,
					    (unsigned)(n * 131 + ci));
					ck_assert_msg(!tw_verdict[0],
						      "%s/%s n=%d count=%zu "
						      "root=%d inplace=%d "
						      "layout=%d: %s",
						      rc_coll_name(coll), alg,
						      n, counts[ci], root, ip,
						      lay, tw_verdict);
				}
}

typedef void (*cases_fn)(struct group *g, int coll, const char *alg, int n);

/* cases(g, coll, alg, n) for every algorithm of coll forced on worlds of
 * 1..9 ranks. */
static void each_algorithm(int coll, cases_fn cases)
{
	int n, alg, nalgs = rc_coll_nalgs(coll);

	types_setup();
	for (n = 1; n <= NMAX; n++) {
		struct tw *tw = tw_open_new(n);
		struct group g = world_group(tw);

		for (alg = 0; alg < nalgs; alg++) {
			const char *an = rc_coll_alg_name(coll, alg);

			force(tw, coll, an);
			cases(&g, coll, an, n);
		}
		tw_free(tw);
	}
	types_teardown();
}

/* Every algorithm of collective `_i` on 1..9 ranks. */
START_TEST(every_algorithm)
{
	each_algorithm(_i, alg_cases);
}
END_TEST

/* Over a megabyte per rank, every algorithm, on 2, 3 and 8 ranks. */
START_TEST(large)
{
	static const int sizes[] = { 2, 3, 8 };
	int coll = _i, si, alg, nalgs = rc_coll_nalgs(coll);

	if (coll == RC_COLL_BARRIER)
		return;
	types_setup();
	for (si = 0; si < 3; si++) {
		int n = sizes[si];
		struct tw *tw = tw_open_new(n);
		struct group g = world_group(tw);
		/* bcast/reductions: 1.2 MB vectors; the rest: 1.2 MB per
		 * rank in total */
		size_t count = 300000;

		if (!is_red(coll) && coll != RC_COLL_BCAST)
			count = 300000 / (size_t)n;
		for (alg = 0; alg < nalgs; alg++) {
			const char *an = rc_coll_alg_name(coll, alg);

			force(tw, coll, an);
			tw_verdict[0] = 0;
			one(&g, coll, count, n - 1, false, 0, 7);
			ck_assert_msg(
				!tw_verdict[0], "%s/%s n=%d count=%zu: %s",
				rc_coll_name(coll), an, n, count, tw_verdict);
		}
		tw_free(tw);
	}
	types_teardown();
}
END_TEST

/* Collective coll with count 0 and NULL buffers on g: MPI_IN_PLACE (with
 * a NULL receive buffer) where the call allows it, if inplace. */
static void null_case(struct group *g, int coll, int root, bool inplace,
		      struct rc_dtype *dt)
{
	static const int zeros[NMAX];
	struct rc_cargs a[NMAX];
	int i;

	memset(a, 0, sizeof(a));
	for (i = 0; i < g->m; i++) {
		struct rc_cargs *x = &a[i];

		x->dt = x->sdt = x->rdt = dt;
		x->op = &rc_mpi_sum;
		x->root = root;
		x->scounts = x->sdispls = x->rcounts = x->rdispls = zeros;
		if (!inplace || !has_inplace(coll))
			continue;
		if (coll == RC_COLL_SCATTER || coll == RC_COLL_SCATTERV) {
			if (i == root)
				x->rbuf = MPI_IN_PLACE;
		} else if (!is_rooted(coll) || i == root) {
			x->sbuf = MPI_IN_PLACE;
		}
	}
	run(g, coll, a);
}

/* Roots 0 and last, MPI_INT and a type with holes, with and without
 * MPI_IN_PLACE: every rank must complete without an error. */
static void null_cases(struct group *g, int coll, const char *alg, int n)
{
	int k, root;

	for (k = 0; k < 8; k++) {
		root = k & 1 ? n - 1 : 0;
		tw_verdict[0] = 0;
		null_case(g, coll, root, k & 2, k & 4 ? t_sint : &rc_mpi_int);
		ck_assert_msg(!tw_verdict[0],
			      "%s/%s n=%d root=%d inplace=%d holes=%d: %s",
			      rc_coll_name(coll), alg, n, root, !!(k & 2),
			      !!(k & 4), tw_verdict);
	}
}

/* Count 0 and NULL buffers (issue 13, defect 2): every algorithm of
 * collective `_i` on 1..9 ranks. */
START_TEST(null_zero)
{
	each_algorithm(_i, null_cases);
}
END_TEST

static int color_odd(int r) { return r % 2; }
static int color_mod3(int r) { return r % 3; }
static int key_rev(int r) { return -r; }
static int key_same(int r) { return 0; }

/* Every algorithm on sub-communicators of a 9-rank world: odd/even with
 * reversed keys (sizes 5 and 4, ranks in reverse order) and r mod 3 with
 * equal keys (size 3, order by world rank). */
START_TEST(subcomm)
{
	int coll = _i, alg, nalgs = rc_coll_nalgs(coll), sp, r;
	struct tw *tw;

	types_setup();
	tw = tw_open_new(9);
	for (sp = 0; sp < 3; sp++) {
		struct rc_comm *sub[NMAX];
		struct group g = sp == 0 ? split_group(tw, color_odd, key_rev,
						       0, sub)
				 : sp == 1 ? split_group(tw, color_odd,
							 key_rev, 1, sub)
					   : split_group(tw, color_mod3,
							 key_same, 2, sub);

		/* reversed keys: comm rank 0 is the highest world rank */
		if (sp < 2)
			ck_assert_int_eq(rc_comm_wrank(g.c[0], 0),
					 sp == 0 ? 8 : 7);
		for (alg = 0; alg < nalgs; alg++) {
			const char *an = rc_coll_alg_name(coll, alg);
			int lay;

			force(tw, coll, an);
			for (lay = 0; lay < (is_red(coll) ? 4 : 3); lay++) {
				tw_verdict[0] = 0;
				one(&g, coll, 13, g.m > 2 ? 2 : 0,
				    has_inplace(coll) && lay == 0, lay,
				    (unsigned)(sp + 3));
				ck_assert_msg(!tw_verdict[0],
					      "%s/%s split %d (size %d) "
					      "layout %d: %s",
					      rc_coll_name(coll), an, sp, g.m,
					      lay, tw_verdict);
			}
		}
		for (r = 0; r < tw->n; r++)
			if (sub[r])
				rc_comm_release(sub[r]);
	}
	tw_free(tw);
	types_teardown();
}
END_TEST

/* Every predefined op on every basic type it is defined on, for the
 * reductions, count 5, on 4 ranks (recursive halving etc.) and 3 (non
 * powers of two). */
START_TEST(ops_types)
{
	static struct rc_op *const ops[] = {
		&rc_mpi_max, &rc_mpi_min, &rc_mpi_sum, &rc_mpi_prod,
		&rc_mpi_land, &rc_mpi_band, &rc_mpi_lor, &rc_mpi_bor,
		&rc_mpi_lxor, &rc_mpi_bxor, &rc_mpi_maxloc, &rc_mpi_minloc,
		&rc_mpi_replace, &rc_mpi_no_op,
	};
	static struct rc_dtype *const types[] = {
		&rc_mpi_char, &rc_mpi_signed_char, &rc_mpi_unsigned_char,
		&rc_mpi_byte, &rc_mpi_short, &rc_mpi_unsigned_short,
		&rc_mpi_int, &rc_mpi_unsigned, &rc_mpi_long,
		&rc_mpi_unsigned_long, &rc_mpi_long_long,
		&rc_mpi_unsigned_long_long, &rc_mpi_float, &rc_mpi_double,
		&rc_mpi_long_double, &rc_mpi_wchar, &rc_mpi_c_bool,
		&rc_mpi_int8_t, &rc_mpi_int16_t, &rc_mpi_int32_t,
		&rc_mpi_int64_t, &rc_mpi_uint8_t, &rc_mpi_uint16_t,
		&rc_mpi_uint32_t, &rc_mpi_uint64_t, &rc_mpi_c_float_complex,
		&rc_mpi_c_double_complex, &rc_mpi_c_long_double_complex,
		&rc_mpi_aint, &rc_mpi_offset, &rc_mpi_count,
		&rc_mpi_float_int, &rc_mpi_double_int, &rc_mpi_long_int,
		&rc_mpi_2int, &rc_mpi_short_int, &rc_mpi_long_double_int,
		/* the Fortran and C++ named types */
		&rc_mpi_character, &rc_mpi_logical, &rc_mpi_integer,
		&rc_mpi_real, &rc_mpi_double_precision, &rc_mpi_complex,
		&rc_mpi_double_complex, &rc_mpi_integer1, &rc_mpi_integer2,
		&rc_mpi_integer4, &rc_mpi_integer8, &rc_mpi_real4,
		&rc_mpi_real8, &rc_mpi_complex8, &rc_mpi_complex16,
		&rc_mpi_2integer, &rc_mpi_2real, &rc_mpi_2double_precision,
		&rc_mpi_cxx_bool, &rc_mpi_cxx_float_complex,
		&rc_mpi_cxx_double_complex, &rc_mpi_cxx_long_double_complex,
	};
	static const int colls[] = {
		RC_COLL_REDUCE, RC_COLL_ALLREDUCE, RC_COLL_SCAN,
		RC_COLL_EXSCAN, RC_COLL_REDUCE_SCATTER_BLOCK,
		RC_COLL_REDUCE_SCATTER,
	};
	int n, o, t, ci, tested = 0;

	for (n = 3; n <= 4; n++) {
		struct tw *tw = tw_open_new(n);
		struct group g = world_group(tw);

		for (o = 0; o < (int)(sizeof(ops) / sizeof(ops[0])); o++)
			for (t = 0; t < (int)(sizeof(types) / sizeof(types[0]));
			     t++) {
				if (!rc_op_valid_for(ops[o], types[t]))
					continue;
				for (ci = 0; ci < 6; ci++) {
					struct rcase c = {
						.coll = colls[ci], .count = 5,
						.dt = types[t], .op = ops[o],
						.root = 1, .uneven = true,
						.seed = (unsigned)(o * 7 + t),
					};

					tw_verdict[0] = 0;
					check_red(&g, &c);
					ck_assert_msg(
						!tw_verdict[0],
						"%s, %s on %s, %d ranks: %s",
						rc_coll_name(colls[ci]),
						ops[o]->name,
						rc_basic_name(types[t]->basic),
						n, tw_verdict);
					tested++;
				}
			}
		tw_free(tw);
	}
	ck_assert_int_gt(tested, 900);
}
END_TEST

/* Nonblocking collectives overlapping on one communicator, started in the
 * same order everywhere and completed in reverse order; then a second
 * round on a dup and the world at once. */
START_TEST(overlap)
{
	int n = 5, i, r, it;
	struct tw *tw;

	types_setup();
	tw = tw_open_new(n);
	for (it = 0; it < 3; it++) {
		int bc[NMAX][64], sum[NMAX][300], in[NMAX][300];
		int a2a[NMAX][NMAX], out[NMAX][NMAX];
		struct rc_req *req[NMAX][4];

		for (r = 0; r < n; r++) {
			struct rc_comm *w = tw->inst[r]->world;
			struct rc_cargs a;

			for (i = 0; i < 64; i++)
				bc[r][i] = r == 1 ? i * 3 + it : -1;
			for (i = 0; i < 300; i++)
				in[r][i] = r + i;
			for (i = 0; i < n; i++)
				a2a[r][i] = r * 10 + i;
			memset(&a, 0, sizeof(a));
			a.rbuf = bc[r];
			a.count = 64;
			a.dt = &rc_mpi_int;
			a.root = 1;
			ck_assert_int_eq(rc_coll_start(w, RC_COLL_BCAST, &a,
						       &req[r][0]), RC_OK);
			memset(&a, 0, sizeof(a));
			a.sbuf = in[r];
			a.rbuf = sum[r];
			a.count = 300;
			a.dt = &rc_mpi_int;
			a.op = &rc_mpi_sum;
			ck_assert_int_eq(rc_coll_start(w, RC_COLL_ALLREDUCE, &a,
						       &req[r][1]), RC_OK);
			memset(&a, 0, sizeof(a));
			ck_assert_int_eq(rc_coll_start(w, RC_COLL_BARRIER, &a,
						       &req[r][2]), RC_OK);
			a.sbuf = a2a[r];
			a.rbuf = out[r];
			a.scount = a.rcount = 1;
			a.sdt = a.rdt = &rc_mpi_int;
			ck_assert_int_eq(rc_coll_start(w, RC_COLL_ALLTOALL, &a,
						       &req[r][3]), RC_OK);
		}
		for (i = 3; i >= 0; i--)
			for (r = n - 1; r >= 0; r--) {
				tw_wait(tw, req[r][i]);
				ck_assert_int_eq(req[r][i]->err, RC_OK);
				rc_req_free(req[r][i]);
			}
		for (r = 0; r < n; r++) {
			int bad = -1;

			for (i = 0; i < 64 && bad < 0; i++)
				if (bc[r][i] != i * 3 + it)
					bad = i;
			for (i = 0; i < 300 && bad < 0; i++)
				if (sum[r][i] != n * i + n * (n - 1) / 2)
					bad = 100 + i;
			for (i = 0; i < n && bad < 0; i++)
				if (out[r][i] != i * 10 + r)
					bad = 1000 + i;
			ck_assert_msg(bad < 0, "rank %d: bad result %d", r,
				      bad);
		}
	}
	tw_free(tw);
	types_teardown();
}
END_TEST

/* Communicators released with a collective pending keep their context
 * until the collective completes; then the context is free again. */
START_TEST(free_pending)
{
	int n = 3, r, x[NMAX], y[NMAX];
	struct rc_comm *d[NMAX];
	struct rc_req *req[NMAX];
	struct tw *tw = tw_open_new(n);
	uint32_t ctx;

	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_comm_dup(tw->inst[r]->world, &d[r],
					     &req[r]), RC_OK);
	for (r = 0; r < n; r++) {
		tw_wait(tw, req[r]);
		rc_req_free(req[r]);
	}
	ctx = d[0]->ctx;
	for (r = 0; r < n; r++) {
		struct rc_cargs a;

		memset(&a, 0, sizeof(a));
		x[r] = r + 1;
		a.sbuf = &x[r];
		a.rbuf = &y[r];
		a.count = 1;
		a.dt = &rc_mpi_int;
		a.op = &rc_mpi_sum;
		ck_assert_int_eq(rc_coll_start(d[r], RC_COLL_ALLREDUCE, &a,
					       &req[r]), RC_OK);
		/* MPI_Comm_free right after starting */
		rc_comm_release(d[r]);
		ck_assert(rc_ctx_used(tw->inst[r], ctx));
	}
	for (r = 0; r < n; r++) {
		tw_wait(tw, req[r]);
		ck_assert_int_eq(req[r]->err, RC_OK);
		ck_assert_int_eq(y[r], 6);
		ck_assert(rc_ctx_used(tw->inst[r], ctx));
		rc_req_free(req[r]);
		/* the request held the last reference */
		ck_assert(!rc_ctx_used(tw->inst[r], ctx));
	}
	tw_free(tw);
}
END_TEST

/* Context ids: hundreds of communicators created and freed in a pattern
 * that fragments the bitmap; live communicators never share a context on
 * any rank, splits with MPI_UNDEFINED give NULL, and exhaustion fails
 * alike everywhere. */
START_TEST(ctx_stress)
{
	enum { NLIVE = 40, ROUNDS = 300 };
	int n = 4, r, i, k;
	struct tw *tw = tw_open_new(n);
	struct rc_comm *live[NLIVE][NMAX];
	struct rc_req *req[NMAX];
	unsigned seed = 1;

	memset(live, 0, sizeof(live));
	for (k = 0; k < ROUNDS; k++) {
		int slot = (int)((seed = seed * 1103515245u + 12345u) >> 8) %
			   NLIVE;
		bool split = k % 3 == 1;

		for (r = 0; r < n; r++)
			if (live[slot][r]) {
				rc_comm_release(live[slot][r]);
				live[slot][r] = NULL;
			}
		for (r = 0; r < n; r++) {
			if (split)
				ck_assert_int_eq(rc_comm_split(
					tw->inst[r]->world,
					r == 3 ? MPI_UNDEFINED : r % 2, r,
					&live[slot][r], &req[r]), RC_OK);
			else
				ck_assert_int_eq(rc_comm_dup(tw->inst[r]->world,
							     &live[slot][r],
							     &req[r]),
						 RC_OK);
		}
		for (r = 0; r < n; r++) {
			tw_wait(tw, req[r]);
			ck_assert_int_eq(req[r]->err, RC_OK);
			rc_req_free(req[r]);
		}
		if (split)
			ck_assert_ptr_null(live[slot][3]);
		/* no two live communicators of a rank share a context */
		for (r = 0; r < n; r++) {
			bool seen[RC_CTX_MAX] = {false};

			seen[0] = seen[RC_CTX_BLOCK] = true; /* world, self */
			for (i = 0; i < NLIVE; i++) {
				struct rc_comm *c = live[i][r];

				if (!c)
					continue;
				ck_assert_msg(!seen[c->ctx],
					      "round %d: context %u twice on "
					      "rank %d",
					      k, c->ctx, r);
				ck_assert_int_eq(c->ctx % RC_CTX_BLOCK, 0);
				seen[c->ctx] = true;
				ck_assert(rc_ctx_used(tw->inst[r], c->ctx));
			}
		}
	}
	/* a collective on every live communicator still works */
	for (i = 0; i < NLIVE; i++) {
		int x[NMAX], y[NMAX], m = 0;

		for (r = 0; r < n; r++)
			if (live[i][r]) {
				struct rc_cargs a;

				memset(&a, 0, sizeof(a));
				x[r] = 1;
				a.sbuf = &x[r];
				a.rbuf = &y[r];
				a.count = 1;
				a.dt = &rc_mpi_int;
				a.op = &rc_mpi_sum;
				ck_assert_int_eq(rc_coll_start(live[i][r],
					RC_COLL_ALLREDUCE, &a, &req[r]), RC_OK);
				m++;
			}
		for (r = 0; r < n; r++)
			if (live[i][r]) {
				tw_wait(tw, req[r]);
				rc_req_free(req[r]);
				ck_assert_int_eq(y[r], live[i][r]->size);
			}
		ck_assert_int_gt(m, 0);
	}
	for (i = 0; i < NLIVE; i++)
		for (r = 0; r < n; r++)
			if (live[i][r])
				rc_comm_release(live[i][r]);
	/* everything is free again but world and self */
	for (r = 0; r < n; r++) {
		ck_assert_uint_eq(tw->inst[r]->ctx_used[0], 0x3);
		for (i = 1; i < RC_CTX_WORDS; i++)
			ck_assert_uint_eq(tw->inst[r]->ctx_used[i], 0);
	}
	/* exhaustion: every pair taken on rank 2 only */
	for (i = 0; i < RC_CTX_WORDS; i++)
		tw->inst[2]->ctx_used[i] = ~0u;
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_comm_dup(tw->inst[r]->world,
					     &live[0][r], &req[r]), RC_OK);
	for (r = 0; r < n; r++) {
		tw_wait(tw, req[r]);
		ck_assert_int_eq(req[r]->err, RC_ERR_NOCTX);
		ck_assert_ptr_null(live[0][r]);
		rc_req_free(req[r]);
	}
	tw_free(tw);
}
END_TEST

/* One split_type on every rank of tw's world with an info each (NULL:
 * none); the results in c. */
static void split_type_all(struct tw *tw, int type, struct rc_info **info,
			   struct rc_comm **c)
{
	struct rc_req *req[NMAX];
	int r, n = tw->n;

	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_comm_split_type(tw->inst[r]->world, type, r,
						    info ? info[r] : NULL,
						    &c[r], &req[r]),
				 RC_OK);
	for (r = 0; r < n; r++) {
		tw_wait(tw, req[r]);
		rc_req_free(req[r]);
	}
}

/* MPI-4's hardware splits over "nodes" {0,1,2} and {3,4,5}: guided by
 * "mpi_shared_memory" gives the nodes, by any other resource type or
 * none gives NULL; unguided gives the nodes (a strict subset) and says
 * so in each rank's info, and NULL once a comm is on one node. */
static void split_type_hw(struct tw *tw)
{
	struct rc_comm *c[NMAX], *sub[NMAX];
	struct rc_info *info[NMAX];
	struct rc_req *req[NMAX];
	const char *v;
	int r, n = tw->n;

	for (r = 0; r < n; r++) {
		ck_assert_int_eq(rc_info_new(&info[r]), RC_OK);
		ck_assert_int_eq(rc_info_set(info[r], "mpi_hw_resource_type",
					     "mpi_shared_memory"),
				 RC_OK);
	}
	split_type_all(tw, MPI_COMM_TYPE_HW_GUIDED, info, c);
	for (r = 0; r < n; r++) {
		ck_assert_ptr_nonnull(c[r]);
		ck_assert_int_eq(c[r]->size, 3);
		ck_assert_int_eq(c[r]->rank, r % 3);
		rc_comm_release(c[r]);
		ck_assert_int_eq(
			rc_info_set(info[r], "mpi_hw_resource_type", "socket"),
			RC_OK);
	}
	split_type_all(tw, MPI_COMM_TYPE_HW_GUIDED, info, c);
	for (r = 0; r < n; r++)
		ck_assert_ptr_null(c[r]);
	split_type_all(tw, MPI_COMM_TYPE_HW_GUIDED, NULL, c);
	for (r = 0; r < n; r++) {
		ck_assert_ptr_null(c[r]);
		ck_assert(rc_info_delete(info[r], "mpi_hw_resource_type"));
	}

	split_type_all(tw, MPI_COMM_TYPE_HW_UNGUIDED, info, c);
	for (r = 0; r < n; r++) {
		ck_assert_ptr_nonnull(c[r]);
		ck_assert_int_eq(c[r]->size, 3);
		ck_assert_int_eq(rc_comm_wrank(c[r], r % 3), r);
		v = rc_info_get(info[r], "mpi_hw_resource_type");
		ck_assert_ptr_nonnull(v);
		ck_assert_str_eq(v, "mpi_shared_memory");
		ck_assert(rc_info_delete(info[r], "mpi_hw_resource_type"));
	}
	/* within one node: nothing smaller that rcmpi knows */
	for (r = 0; r < n; r++)
		ck_assert_int_eq(
			rc_comm_split_type(c[r], MPI_COMM_TYPE_HW_UNGUIDED, 0,
					   info[r], &sub[r], &req[r]),
			RC_OK);
	for (r = 0; r < n; r++) {
		tw_wait(tw, req[r]);
		rc_req_free(req[r]);
	}
	for (r = 0; r < n; r++) {
		ck_assert_ptr_null(sub[r]);
		ck_assert_ptr_null(
			rc_info_get(info[r], "mpi_hw_resource_type"));
		rc_comm_release(c[r]);
		rc_info_free(info[r]);
	}
}
/* Comm_create, split_type, Cart_create / Cart_sub over the fabric. */
START_TEST(constructors)
{
	int n = 6, r, i;
	struct tw *tw = tw_open_new(n);
	struct rc_comm *c[NMAX], *sub[NMAX];
	struct rc_req *req[NMAX];
	struct rc_group *g = rc_group_new(3);
	int dims[2] = { 3, 2 }, periods[2] = { 1, 0 }, remain[2] = { 1, 0 };

	/* create from the group {4, 1, 2} */
	g->wranks[0] = 4;
	g->wranks[1] = 1;
	g->wranks[2] = 2;
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_comm_create(tw->inst[r]->world, g, &c[r],
						&req[r]), RC_OK);
	for (r = 0; r < n; r++) {
		tw_wait(tw, req[r]);
		rc_req_free(req[r]);
	}
	for (r = 0; r < n; r++) {
		int want = r == 4 ? 0 : r == 1 ? 1 : r == 2 ? 2 : -1;

		if (want < 0) {
			ck_assert_ptr_null(c[r]);
			continue;
		}
		ck_assert_ptr_nonnull(c[r]);
		ck_assert_int_eq(c[r]->rank, want);
		ck_assert_int_eq(c[r]->size, 3);
		rc_comm_release(c[r]);
	}
	rc_group_release(g);
	/* split_type: "nodes" of world ranks {0,1,2} and {3,4,5} */
	for (r = 0; r < n; r++)
		for (i = 0; i < n; i++)
			tw->inst[r]->procs[i].local = i / 3 == r / 3;
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_comm_split_type(tw->inst[r]->world,
						    MPI_COMM_TYPE_SHARED, -r,
						    NULL, &c[r], &req[r]),
				 RC_OK);
	for (r = 0; r < n; r++) {
		tw_wait(tw, req[r]);
		rc_req_free(req[r]);
	}
	for (r = 0; r < n; r++) {
		ck_assert_int_eq(c[r]->size, 3);
		ck_assert_int_eq(c[r]->rank, 2 - r % 3);
		for (i = 0; i < 3; i++)
			ck_assert_int_eq(rc_comm_wrank(c[r], i),
					 r / 3 * 3 + 2 - i);
		rc_comm_release(c[r]);
	}
	split_type_hw(tw);
	/* Cartesian 3 x 2, periodic in the first dimension */
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_cart_create(tw->inst[r]->world, 2, dims,
						periods, &c[r], &req[r]),
				 RC_OK);
	for (r = 0; r < n; r++) {
		tw_wait(tw, req[r]);
		rc_req_free(req[r]);
	}
	for (r = 0; r < n; r++) {
		ck_assert_ptr_nonnull(c[r]->topo);
		ck_assert_int_eq(c[r]->topo->coords[0], r / 2);
		ck_assert_int_eq(c[r]->topo->coords[1], r % 2);
	}
	/* keep the first dimension: columns of 3 */
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_cart_sub(c[r], remain, &sub[r], &req[r]),
				 RC_OK);
	for (r = 0; r < n; r++) {
		tw_wait(tw, req[r]);
		rc_req_free(req[r]);
	}
	for (r = 0; r < n; r++) {
		ck_assert_int_eq(sub[r]->size, 3);
		ck_assert_int_eq(sub[r]->rank, r / 2);
		ck_assert_int_eq(sub[r]->topo->ndims, 1);
		ck_assert_int_eq(sub[r]->topo->dims[0], 3);
		ck_assert_int_eq(sub[r]->topo->periods[0], 1);
		for (i = 0; i < 3; i++)
			ck_assert_int_eq(rc_comm_wrank(sub[r], i),
					 i * 2 + r % 2);
		rc_comm_release(sub[r]);
		rc_comm_release(c[r]);
	}
	tw_free(tw);
}
END_TEST

/* A transport that refuses sends and tiny queues: schedules must cope
 * with RC_AGAIN everywhere, under each rendezvous protocol. */
START_TEST(pressure)
{
	static const int colls[] = {
		RC_COLL_ALLREDUCE, RC_COLL_BCAST, RC_COLL_ALLGATHER,
		RC_COLL_ALLTOALL, RC_COLL_REDUCE_SCATTER_BLOCK,
	};
	int ci, n = 5;

	types_setup();
	for (ci = 0; ci < 5; ci++) {
		struct tw *tw = tw_new(n);
		struct group g;
		int alg;

		/* and each rendezvous protocol in turn */
		setenv("RCMPI_RNDV_MODE", ci % 3 == 0 ? "get"
					  : ci % 3 == 1 ? "put" : "frag", 1);
		tw->fab->max_queued = 1;
		tw->fab->again_every = 3;
		tw->fab->eager_limit = 512;
		tw->fab->max_am = 2048;
		tw_open(tw);
		g = world_group(tw);
		for (alg = 0; alg < rc_coll_nalgs(colls[ci]); alg++) {
			force(tw, colls[ci], rc_coll_alg_name(colls[ci], alg));
			tw_verdict[0] = 0;
			one(&g, colls[ci], 3000, 2, false, 1, 9);
			ck_assert_msg(!tw_verdict[0], "%s/%s: %s",
				      rc_coll_name(colls[ci]),
				      rc_coll_alg_name(colls[ci], alg),
				      tw_verdict);
		}
		tw_free(tw);
	}
	types_teardown();
}
END_TEST

/* Binomial reduce in segments (RCMPI_COLL_REDUCE_SEGSIZE, here 100
 * bytes: 25 ints, 6.25 matrices), as reduce, inside allreduce's
 * reduce_bcast and reduce_scatter's reduce_scatterv. */
START_TEST(segmented)
{
	static const int colls[] = { RC_COLL_REDUCE, RC_COLL_ALLREDUCE,
				      RC_COLL_REDUCE_SCATTER };
	static const char *const algs[] = { "binomial", "reduce_bcast",
					    "reduce_scatterv" };
	static const size_t counts[] = { 1, 26, 1000, 3001 };
	int n, ci, k, lay;

	types_setup();
	setenv("RCMPI_COLL_REDUCE_SEGSIZE", "100", 1);
	for (n = 1; n <= NMAX; n++) {
		struct tw *tw = tw_open_new(n);
		struct group g = world_group(tw);

		for (ci = 0; ci < 3; ci++) {
			force(tw, colls[ci], algs[ci]);
			for (k = 0; k < 4; k++)
				for (lay = 0; lay < 4; lay++) {
					tw_verdict[0] = 0;
					one(&g, colls[ci], counts[k], n / 2,
					    lay == 1, lay, (unsigned)k);
					ck_assert_msg(!tw_verdict[0],
						      "%s/%s n=%d count=%zu "
						      "layout=%d: %s",
						      rc_coll_name(colls[ci]),
						      algs[ci], n, counts[k],
						      lay, tw_verdict);
				}
		}
		tw_free(tw);
	}
	unsetenv("RCMPI_COLL_REDUCE_SEGSIZE");
	types_teardown();
}
END_TEST

/* Algorithm names and forcing. */
START_TEST(names)
{
	struct tw *tw = tw_open_new(1);
	int c, a;

	for (c = 0; c < RC_COLL_N; c++) {
		ck_assert_ptr_nonnull(rc_coll_name(c));
		ck_assert_int_gt(rc_coll_nalgs(c), 0);
		for (a = 0; a < rc_coll_nalgs(c); a++)
			ck_assert_int_eq(rc_coll_force(tw->inst[0], c,
						       rc_coll_alg_name(c, a)),
					 RC_OK);
		ck_assert_int_eq(rc_coll_force(tw->inst[0], c, "nonsense"),
				 RC_ERR_INVAL);
		ck_assert_int_eq(rc_coll_force(tw->inst[0], c, "auto"), RC_OK);
	}
	tw_free(tw);
}
END_TEST

/* RCMPI_COLL_<NAME> of every collective is in the parameter table */
START_TEST(param_per_collective)
{
	char key[64], *p;
	int c;

	for (c = 0; c < RC_COLL_N; c++) {
		snprintf(key, sizeof(key), "COLL_%s", rc_coll_descs[c].name);
		for (p = key; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		ck_assert_msg(rc_param_find(key) >= 0,
			      "RCMPI_%s is not in the "
			      "parameter table",
			      key);
		if (!rc_coll_inter_nalgs(c))
			continue;
		snprintf(key, sizeof(key), "COLL_INTER_%s",
			 rc_coll_inter_descs[c].name);
		for (p = key; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		ck_assert_msg(rc_param_find(key) >= 0,
			      "RCMPI_%s is not in the parameter table", key);
	}
}
END_TEST

static Suite *coll_suite(void)
{
	Suite *s = suite_create("coll");
	TCase *tc;

	tc = tcase_create("params");
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, param_per_collective);
	suite_add_tcase(s, tc);
	tc = tcase_create("every_algorithm");
	tcase_set_timeout(tc, TMO);
	tcase_add_loop_test(tc, every_algorithm, 0, RC_COLL_NBR_ALLGATHER);
	suite_add_tcase(s, tc);
	tc = tcase_create("large");
	tcase_set_timeout(tc, TMO);
	tcase_add_loop_test(tc, large, 0, RC_COLL_NBR_ALLGATHER);
	suite_add_tcase(s, tc);
	tc = tcase_create("null_zero");
	tcase_set_timeout(tc, TMO);
	tcase_add_loop_test(tc, null_zero, 0, RC_COLL_NBR_ALLGATHER);
	suite_add_tcase(s, tc);
	tc = tcase_create("subcomm");
	tcase_set_timeout(tc, TMO);
	tcase_add_loop_test(tc, subcomm, 0, RC_COLL_NBR_ALLGATHER);
	suite_add_tcase(s, tc);
	tc = tcase_create("misc");
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, ops_types);
	tcase_add_test(tc, overlap);
	tcase_add_test(tc, free_pending);
	tcase_add_test(tc, ctx_stress);
	tcase_add_test(tc, constructors);
	tcase_add_test(tc, pressure);
	tcase_add_test(tc, segmented);
	tcase_add_test(tc, names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(coll_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
