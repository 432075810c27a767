/*
 * test_inter.c - intercommunicators over the in-process fabric (world.h):
 * several ranks' engines in one process, the two groups cut from world by
 * a color (halves, odd/even, one against the rest, the rest against one,
 * a third against two thirds), joined by rc_intercomm_create.
 *
 * Constructors: sizes, ranks, remote groups, point-to-point across (ranks
 * name the remote group), merge in both orders and with equal `high`,
 * dup and idup, split (colors present on one side only give
 * MPI_COMM_NULL), create from subsets (an empty one gives MPI_COMM_NULL
 * on both sides), overlapping groups refused alike on every rank.
 *
 * Collectives: every intercommunicator collective with every algorithm,
 * counts 0, 1, 7 and 300, roots at either end of either group (the rest of
 * the root's group passing MPI_PROC_NULL, whose buffers must stay
 * untouched), receive buffers with holes, uneven v-counts with zeros, and
 * for reductions a non-commutative op (2x2 matrix product) that must fold
 * the other group in rank order. Every rank's result is compared with a
 * reference computed here.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll.h"
#include "coll_impl.h"
#include "comm.h"
#include "dtype.h"
#include "op.h"
#include "pt2pt.h"
#include "request.h"
#include "status.h"
#include "world.h"

#define NMAX 9
#define TMO 300

/* ---- types --------------------------------------------------------------- */

static struct rc_dtype *t_sint; /* an int with extent 8: holes */
static struct rc_dtype *t_mat;	/* 2x2 int matrix */
static struct rc_op *op_matmul; /* non-commutative */

static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int *a = in, *b = inout, i;

	(void)dt;
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
	ck_assert_int_eq(rc_dt_create_contig(4, &rc_mpi_int, &t_mat), RC_OK);
	rc_dt_commit(t_mat);
	ck_assert_int_eq(rc_op_create(matmul, false, &op_matmul), RC_OK);
}

static void types_teardown(void)
{
	rc_dt_release(t_sint);
	rc_dt_release(t_mat);
	rc_op_release(op_matmul);
}

static size_t span(size_t count, const struct rc_dtype *dt)
{
	if (!count)
		return 1;
	return (count - 1) * (size_t)rc_dt_extent(dt) + (size_t)dt->true_ub;
}

/* ---- the two groups ------------------------------------------------------ */

struct ix {
	struct tw *tw;
	int n;
	int g[NMAX], lr[NMAX]; /* world rank -> (group, local rank) */
	int size[2];
	int w[2][NMAX]; /* (group, local rank) -> world rank */
	struct rc_comm *local[NMAX], *ic[NMAX];
};

enum { SH_HALVES, SH_ODDEVEN, SH_ONE, SH_LAST, SH_THIRD, SH_N };

static int shape_color(int shape, int r, int n)
{
	switch (shape) {
	case SH_HALVES:
		return r >= n / 2;
	case SH_ODDEVEN:
		return r % 2;
	case SH_ONE:
		return r != 0;
	case SH_LAST:
		return r == n - 1;
	default:
		return r % 3 != 0;
	}
}

static const char *const shape_name[SH_N] = {
	"halves", "odd/even", "one/rest", "rest/one", "third",
};

static void wait_all(struct tw *tw, struct rc_req **req, int n)
{
	int r;

	for (r = 0; r < n; r++) {
		tw_wait(tw, req[r]);
		ck_assert_int_eq(req[r]->err, RC_OK);
		rc_req_free(req[r]);
	}
}

/* Groups by shape over n (>= 2) ranks; intercommunicators joined with
 * local leaders `la`, `lb` (local ranks) over world, tag 77. */
static void ix_open(struct ix *x, int shape, int n, int la, int lb)
{
	struct rc_req *req[NMAX];
	int r, g;

	memset(x, 0, sizeof(*x));
	x->n = n;
	x->tw = tw_new(n);
	tw_open(x->tw);
	for (r = 0; r < n; r++) {
		g = shape_color(shape, r, n);
		x->g[r] = g;
		x->lr[r] = x->size[g];
		x->w[g][x->size[g]++] = r;
	}
	ck_assert(x->size[0] && x->size[1]);
	if (la >= x->size[0])
		la = x->size[0] - 1;
	if (lb >= x->size[1])
		lb = x->size[1] - 1;
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_comm_split(x->tw->inst[r]->world, x->g[r],
					       r, &x->local[r], &req[r]),
				 RC_OK);
	wait_all(x->tw, req, n);
	for (r = 0; r < n; r++) {
		int mine = x->g[r] ? lb : la, other = x->g[r] ? la : lb;

		ck_assert_int_eq(rc_intercomm_create(x->local[r], mine,
						     x->tw->inst[r]->world,
						     x->w[!x->g[r]][other], 77,
						     &x->ic[r], &req[r]),
				 RC_OK);
	}
	wait_all(x->tw, req, n);
}

static void ix_close(struct ix *x)
{
	int r;

	for (r = 0; r < x->n; r++) {
		rc_comm_release(x->ic[r]);
		rc_comm_release(x->local[r]);
	}
	tw_free(x->tw);
}

/* ---- constructors -------------------------------------------------------- */

/* Sizes, ranks, groups; point-to-point from every rank to every remote
 * rank and back, with ranks naming the remote group. */
static void check_inter(struct ix *x, struct rc_comm **ic)
{
	struct rc_req *sr[NMAX][NMAX], *rr[NMAX][NMAX];
	int got[NMAX][NMAX], val[NMAX], r, j;

	for (r = 0; r < x->n; r++) {
		struct rc_comm *c = ic[r];
		int g = x->g[r];

		ck_assert(rc_comm_is_inter(c));
		ck_assert_int_eq(c->size, x->size[g]);
		ck_assert_int_eq(c->rank, x->lr[r]);
		ck_assert_int_eq(c->rgroup->size, x->size[!g]);
		ck_assert_int_eq(c->rgroup->rank, MPI_UNDEFINED);
		for (j = 0; j < x->size[!g]; j++)
			ck_assert_int_eq(rc_comm_wrank(c, j), x->w[!g][j]);
		for (j = 0; j < x->size[g]; j++)
			ck_assert_int_eq(c->group->wranks[j], x->w[g][j]);
	}
	for (r = 0; r < x->n; r++) {
		struct rc_comm *c = ic[r];

		val[r] = 1000 + r;
		for (j = 0; j < c->rgroup->size; j++) {
			ck_assert_int_eq(rc_p2p_irecv(c, c->ctx, &got[r][j], 1,
						      &rc_mpi_int, j, 3,
						      &rr[r][j]),
					 RC_OK);
			ck_assert_int_eq(rc_p2p_isend(c, c->ctx, &val[r], 1,
						      &rc_mpi_int, j, 3,
						      RC_SEND_STD, &sr[r][j]),
					 RC_OK);
		}
	}
	for (r = 0; r < x->n; r++)
		for (j = 0; j < ic[r]->rgroup->size; j++) {
			tw_wait(x->tw, rr[r][j]);
			tw_wait(x->tw, sr[r][j]);
			/* the source is the sender's rank in its own group */
			ck_assert_int_eq(rr[r][j]->status.MPI_SOURCE, j);
			rc_req_free(rr[r][j]);
			rc_req_free(sr[r][j]);
			ck_assert_int_eq(got[r][j], 1000 + x->w[!x->g[r]][j]);
		}
}

START_TEST(constructors)
{
	int shape = _i, n;

	for (n = 2; n <= NMAX; n += 1 + (n > 4)) {
		struct ix x;
		struct rc_comm *d[NMAX], *sp[NMAX], *m[NMAX], *cr[NMAX];
		struct rc_req *req[NMAX];
		int r, i, hi;

		if (shape == SH_THIRD && n < 3)
			continue;
		ix_open(&x, shape, n, 0, n > 3 ? 1 : 0);
		check_inter(&x, x.ic);
		/* dup (idup): the same groups, a new context */
		for (r = 0; r < n; r++)
			ck_assert_int_eq(rc_comm_dup(x.ic[r], &d[r], &req[r]),
					 RC_OK);
		wait_all(x.tw, req, n);
		check_inter(&x, d);
		for (r = 0; r < n; r++) {
			ck_assert_int_ne(d[r]->ctx, x.ic[r]->ctx);
			ck_assert_int_eq(d[r]->ctx, d[0]->ctx);
		}
		/* merge: group 0 high, then group 1 high, then both low
		 * (the group with the lower leader first) */
		for (hi = 0; hi < 3; hi++) {
			for (r = 0; r < n; r++)
				ck_assert_int_eq(
					rc_intercomm_merge(
						d[r],
						hi == 2 ? false : x.g[r] == hi,
						&m[r], &req[r]),
					RC_OK);
			wait_all(x.tw, req, n);
			for (r = 0; r < n; r++) {
				int first = hi == 0		    ? 1
					    : hi == 1		    ? 0
					    : x.w[0][0] < x.w[1][0] ? 0
								    : 1;
				int g = x.g[r];
				int want = g == first ? x.lr[r]
						      : x.size[first] + x.lr[r];

				ck_assert(!rc_comm_is_inter(m[r]));
				ck_assert_int_eq(m[r]->size, n);
				ck_assert_int_eq(m[r]->rank, want);
				for (i = 0; i < n; i++) {
					int gi = i < x.size[first] ? first
								   : !first;
					int li = gi == first
							 ? i
							 : i - x.size[first];

					ck_assert_int_eq(rc_comm_wrank(m[r], i),
							 x.w[gi][li]);
				}
			}
			for (r = 0; r < n; r++)
				rc_comm_release(m[r]);
		}
		/* split: color by local rank parity, key reverses; color 1
		 * exists on a side only with 2+ ranks */
		for (r = 0; r < n; r++)
			ck_assert_int_eq(rc_comm_split(x.ic[r], x.lr[r] % 2,
						       -x.lr[r], &sp[r],
						       &req[r]),
					 RC_OK);
		wait_all(x.tw, req, n);
		for (r = 0; r < n; r++) {
			int g = x.g[r], col = x.lr[r] % 2;
			int nl = (x.size[g] + 1 - col) / 2;
			int nr = (x.size[!g] + 1 - col) / 2;

			if (!nr) {
				ck_assert_ptr_null(sp[r]);
				continue;
			}
			ck_assert_ptr_nonnull(sp[r]);
			ck_assert_int_eq(sp[r]->size, nl);
			ck_assert_int_eq(sp[r]->rgroup->size, nr);
			/* keys reverse the order */
			ck_assert_int_eq(sp[r]->rank, nl - 1 - x.lr[r] / 2);
			ck_assert_int_eq(rc_comm_wrank(sp[r], 0),
					 x.w[!g][col + 2 * (nr - 1)]);
			rc_comm_release(sp[r]);
		}
		/* create: group 0 keeps its first rank, group 1 all; then
		 * group 1 passes the empty group: NULL everywhere */
		for (i = 0; i < 2; i++) {
			for (r = 0; r < n; r++) {
				int g = x.g[r];
				int k = g == 0 ? 1 : i == 0 ? x.size[1] : 0;
				struct rc_group *sub = rc_group_new(k);

				memcpy(sub->wranks, x.w[g],
				       sizeof(int) * (size_t)k);
				sub->rank = rc_group_rank_of(sub, r);
				ck_assert_int_eq(rc_comm_create(x.ic[r], sub,
								&cr[r],
								&req[r]),
						 RC_OK);
				rc_group_release(sub);
			}
			wait_all(x.tw, req, n);
			for (r = 0; r < n; r++) {
				bool in =
					i == 0 && (x.g[r] == 1 || x.lr[r] == 0);

				ck_assert_int_eq(cr[r] != NULL, in);
				if (!cr[r])
					continue;
				ck_assert_int_eq(cr[r]->size,
						 x.g[r] ? x.size[1] : 1);
				ck_assert_int_eq(cr[r]->rgroup->size,
						 x.g[r] ? 1 : x.size[1]);
				rc_comm_release(cr[r]);
			}
		}
		for (r = 0; r < n; r++)
			rc_comm_release(d[r]);
		ix_close(&x);
	}
}
END_TEST

/* Overlapping groups (an erroneous program that gets as far as the
 * agreement): world rank 1 leads A = {0, 1} and is a member of B = {1, 2},
 * led by 2. Every rank that takes part learns of it, alike. */
START_TEST(overlap)
{
	static const int ga[] = {0, 1}, gb[] = {1, 2};
	struct tw *tw = tw_new(3);
	struct rc_comm *loc[3], *out[3];
	struct rc_req *req[3];
	int r;

	tw_open(tw);
	for (r = 0; r < 3; r++) {
		struct rc_group *g = rc_group_new(2);

		memcpy(g->wranks, r < 2 ? ga : gb, sizeof(ga));
		g->rank = rc_group_rank_of(g, r);
		rc_ctx_mark(tw->inst[r], r < 2 ? 400 : 404, true);
		ck_assert_int_eq(rc_comm_new(tw->inst[r], g, r < 2 ? 400 : 404,
					     tw->inst[r]->world, &loc[r]),
				 RC_OK);
		rc_group_release(g);
		ck_assert_int_eq(rc_intercomm_create(
					 loc[r], 1, tw->inst[r]->world,
					 r == 1 ? 2 : 1, 5, &out[r], &req[r]),
				 RC_OK);
	}
	for (r = 0; r < 3; r++) {
		tw_wait(tw, req[r]);
		ck_assert_int_eq(req[r]->err, RC_ERR_INVAL);
		ck_assert_ptr_null(out[r]);
		rc_req_free(req[r]);
		rc_comm_release(loc[r]);
	}
	tw_free(tw);
}
END_TEST

/* ---- collectives --------------------------------------------------------- */

static int val(int g, int i, size_t pos, unsigned seed)
{
	return (int)(((unsigned)g << 28) ^ ((unsigned)i << 20) ^
		     ((unsigned)pos * 2654435761u) ^ seed);
}

static void fill(void *buf, size_t count, struct rc_dtype *dt, int g, int i,
		 size_t from, unsigned seed)
{
	size_t n = count * dt->size / sizeof(int), j;
	int *s = tw_xmalloc(n * sizeof(int) + 1);

	for (j = 0; j < n; j++)
		s[j] = val(g, i, from + j, seed);
	rc_dt_unpack(dt, count, buf, 0, s, n * sizeof(int));
	free(s);
}

static bool holds(const void *buf, size_t count, struct rc_dtype *dt, int g,
		  int i, size_t from, unsigned seed, const char *what, int w)
{
	size_t n = count * dt->size / sizeof(int), j;
	int *s = tw_xmalloc(n * sizeof(int) + 1);
	bool ok = true;

	rc_dt_pack(dt, count, buf, 0, s, n * sizeof(int));
	for (j = 0; j < n; j++)
		if (s[j] != val(g, i, from + j, seed)) {
			ok = tw_note_fail("%s on world rank %d: int %zu of the "
					  "block from (%d, %d) is wrong",
					  what, w, j, g, i);
			break;
		}
	free(s);
	return ok;
}

/* Elements from (g, i) to remote rank j in a v-collective: uneven, with
 * zeros. */
static size_t vcnt(int g, int i, int j, size_t k, unsigned seed)
{
	return ((size_t)i * 3 + (size_t)j * 5 + (size_t)g + seed) % 4 * k / 2;
}

struct icase {
	int coll;
	size_t k;
	struct rc_dtype *rdt; /* receive layout; reductions: the type */
	struct rc_op *op;     /* reductions */
	int rg, rr;	      /* root: group, local rank */
	unsigned seed;
};

/* Start coll on every rank with args[w], wait for all (in reverse). */
static bool run(struct ix *x, int coll, struct rc_cargs *a)
{
	struct rc_req *req[NMAX];
	bool ok = true;
	int w;

	for (w = 0; w < x->n; w++)
		if (rc_coll_start(x->ic[w], coll, &a[w], &req[w]) != RC_OK)
			return tw_note_fail("rc_coll_start failed on %d", w);
	for (w = x->n - 1; w >= 0; w--) {
		tw_wait(x->tw, req[w]);
		if (req[w]->err)
			ok = tw_note_fail("world rank %d: %s", w,
					  rc_status_str(req[w]->err));
		rc_req_free(req[w]);
	}
	return ok;
}

static bool check_barrier(struct ix *x)
{
	struct rc_req *req[NMAX];
	struct rc_cargs a;
	bool ok = true;
	int w, j;

	memset(&a, 0, sizeof(a));
	for (w = 0; w < x->n; w++) {
		if (w == x->n - 1) {
			tw_quiesce(x->tw);
			for (j = 0; j < w; j++)
				if (rc_req_done(req[j]))
					ok = tw_note_fail("barrier: %d left "
							  "early",
							  j);
		}
		ck_assert_int_eq(
			rc_coll_start(x->ic[w], RC_COLL_BARRIER, &a, &req[w]),
			RC_OK);
	}
	for (w = 0; w < x->n; w++) {
		tw_wait(x->tw, req[w]);
		rc_req_free(req[w]);
	}
	return ok;
}

/* A call's role on world rank w (R_ALL: not a rooted collective). */
enum { R_ROOT, R_NULL, R_OTHER, R_ALL };

static bool is_rooted(int coll);

static int role(const struct ix *x, const struct icase *c, int w)
{
	if (!is_rooted(c->coll))
		return R_ALL;
	if (x->g[w] != c->rg)
		return R_OTHER;
	return x->lr[w] == c->rr ? R_ROOT : R_NULL;
}

static int root_arg(const struct ix *x, const struct icase *c, int w)
{
	int r = role(x, c, w);

	return r == R_ROOT ? MPI_ROOT : r == R_NULL ? MPI_PROC_NULL : c->rr;
}

static bool untouched(const void *buf, size_t len, int w)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != 0x77)
			return tw_note_fail(
				"world rank %d (MPI_PROC_NULL): its "
				"buffer was written",
				w);
	return true;
}

static bool check_move(struct ix *x, const struct icase *c)
{
	int n = x->n, w, j, cnt[NMAX][NMAX], dsp[NMAX][NMAX], scn[NMAX][NMAX],
	    sdp[NMAX][NMAX];
	struct rc_cargs a[NMAX];
	void *sb[NMAX], *rb[NMAX];
	size_t slen[NMAX], rlen[NMAX], k = c->k;
	struct rc_dtype *rdt = c->rdt, *in = &rc_mpi_int;
	unsigned seed = c->seed;
	bool ok = true;
	/* alltoallw: alltoallv's layout, described in bytes and types */
	int kc = c->coll == RC_COLL_ALLTOALLW ? RC_COLL_ALLTOALLV : c->coll;
	int wsd[NMAX][NMAX], wrd[NMAX][NMAX];
	struct rc_dtype *wst[NMAX], *wrt[NMAX];

	memset(a, 0, sizeof(a));
	for (w = 0; w < n; w++) {
		int g = x->g[w], i = x->lr[w], m = x->size[!g];
		int ro = role(x, c, w);
		size_t ns = 0, nr = 0, d;
		struct rc_cargs *p = &a[w];

		p->root = root_arg(x, c, w);
		switch (kc) {
		case RC_COLL_BCAST:
			nr = k;
			break;
		case RC_COLL_GATHER:
			nr = ro == R_ROOT ? k * (size_t)m : 0;
			ns = ro == R_OTHER ? k : 0;
			break;
		case RC_COLL_SCATTER:
			ns = ro == R_ROOT ? k * (size_t)m : 0;
			nr = ro == R_OTHER ? k : 0;
			break;
		case RC_COLL_GATHERV:
		case RC_COLL_SCATTERV:
		case RC_COLL_ALLGATHERV:
		case RC_COLL_ALLTOALLV:
			/* receive counts: from remote j; send counts: to j */
			for (j = 0, d = 0; j < m; j++) {
				cnt[w][j] =
					(int)(kc == RC_COLL_ALLTOALLV
						      ? vcnt(!g, j, i, k, seed)
					      : kc == RC_COLL_SCATTERV
						      ? vcnt(!g, j, 0, k, seed)
						      : vcnt(!g, j, 0, k,
							     seed));
				dsp[w][j] = (int)d;
				d += (size_t)cnt[w][j] + 1;
			}
			nr = d;
			for (j = 0, d = 0; j < m; j++) {
				scn[w][j] =
					(int)(kc == RC_COLL_ALLTOALLV
						      ? vcnt(g, i, j, k, seed)
						      : vcnt(!g, j, 0, k,
							     seed));
				sdp[w][j] = (int)d;
				d += (size_t)scn[w][j] + 1;
			}
			ns = d;
			if (kc == RC_COLL_GATHERV) {
				ns = ro == R_OTHER ? vcnt(g, i, 0, k, seed) : 0;
				nr = ro == R_ROOT ? nr : 0;
			} else if (kc == RC_COLL_SCATTERV) {
				nr = ro == R_OTHER ? vcnt(g, i, 0, k, seed) : 0;
				ns = ro == R_ROOT ? ns : 0;
			} else if (kc == RC_COLL_ALLGATHERV) {
				ns = vcnt(g, i, 0, k, seed);
			}
			break;
		case RC_COLL_ALLGATHER:
			ns = k;
			nr = k * (size_t)m;
			break;
		case RC_COLL_ALLTOALL:
			ns = nr = k * (size_t)m;
			break;
		}
		slen[w] = span(ns, in);
		rlen[w] = span(nr, rdt);
		sb[w] = tw_xmalloc(slen[w]);
		rb[w] = tw_xmalloc(rlen[w]);
		memset(sb[w], 0x77, slen[w]);
		memset(rb[w], 0x77, rlen[w]);
		if (ro == R_NULL)
			continue; /* nothing of it is significant */
		switch (kc) {
		case RC_COLL_BCAST:
			p->rbuf = rb[w];
			p->count = k;
			p->dt = rdt;
			if (ro == R_ROOT)
				fill(rb[w], k, rdt, g, i, 0, seed);
			break;
		case RC_COLL_GATHER:
		case RC_COLL_SCATTER:
			p->sbuf = sb[w];
			p->scount =
				ro == R_ROOT || kc == RC_COLL_GATHER ? k : 0;
			p->sdt = in;
			p->rbuf = rb[w];
			p->rcount = k;
			p->rdt = rdt;
			if (kc == RC_COLL_GATHER && ro == R_OTHER)
				fill(sb[w], k, in, g, i, 0, seed);
			if (kc == RC_COLL_SCATTER && ro == R_ROOT)
				fill(sb[w], k * (size_t)m, in, g, i, 0, seed);
			break;
		case RC_COLL_GATHERV:
			p->sbuf = sb[w];
			p->scount = ns;
			p->sdt = in;
			p->rbuf = rb[w];
			p->rcounts = cnt[w];
			p->rdispls = dsp[w];
			p->rdt = rdt;
			if (ro == R_OTHER)
				fill(sb[w], ns, in, g, i, 0, seed);
			break;
		case RC_COLL_SCATTERV:
			p->sbuf = sb[w];
			p->scounts = scn[w];
			p->sdispls = sdp[w];
			p->sdt = in;
			p->rbuf = rb[w];
			p->rcount = nr;
			p->rdt = rdt;
			if (ro == R_ROOT)
				for (j = 0; j < m; j++)
					fill(rc_off(sb[w], (size_t)sdp[w][j],
						    in),
					     (size_t)scn[w][j], in, g, i,
					     (size_t)j * 100000, seed);
			break;
		case RC_COLL_ALLGATHER:
			p->sbuf = sb[w];
			p->scount = k;
			p->sdt = in;
			p->rbuf = rb[w];
			p->rcount = k;
			p->rdt = rdt;
			fill(sb[w], k, in, g, i, 0, seed);
			break;
		case RC_COLL_ALLGATHERV:
			p->sbuf = sb[w];
			p->scount = ns;
			p->sdt = in;
			p->rbuf = rb[w];
			p->rcounts = cnt[w];
			p->rdispls = dsp[w];
			p->rdt = rdt;
			fill(sb[w], ns, in, g, i, 0, seed);
			break;
		case RC_COLL_ALLTOALL:
			p->sbuf = sb[w];
			p->scount = k;
			p->sdt = in;
			p->rbuf = rb[w];
			p->rcount = k;
			p->rdt = rdt;
			fill(sb[w], k * (size_t)m, in, g, i, 0, seed);
			break;
		case RC_COLL_ALLTOALLV:
			p->sbuf = sb[w];
			p->scounts = scn[w];
			p->sdispls = sdp[w];
			p->sdt = in;
			p->rbuf = rb[w];
			p->rcounts = cnt[w];
			p->rdispls = dsp[w];
			p->rdt = rdt;
			for (j = 0; j < m; j++)
				fill(rc_off(sb[w], (size_t)sdp[w][j], in),
				     (size_t)scn[w][j], in, g, i,
				     (size_t)j * 100000, seed);
			break;
		}
		if (c->coll == RC_COLL_ALLTOALLW) {
			for (j = 0; j < m; j++) {
				wsd[w][j] = sdp[w][j] * (int)rc_dt_extent(in);
				wrd[w][j] = dsp[w][j] * (int)rc_dt_extent(rdt);
				wst[j] = in;
				wrt[j] = rdt;
			}
			p->sdispls = wsd[w];
			p->rdispls = wrd[w];
			p->sdts = wst;
			p->rdts = wrt;
			p->sdt = p->rdt = NULL;
		}
	}
	if (!run(x, c->coll, a))
		ok = false;
	for (w = 0; w < n && ok; w++) {
		int g = x->g[w], i = x->lr[w], m = x->size[!g];
		int ro = role(x, c, w), rw = x->w[c->rg][c->rr];

		if (ro == R_NULL) {
			ok = untouched(rb[w], rlen[w], w);
			continue;
		}
		switch (kc) {
		case RC_COLL_BCAST:
			ok = holds(rb[w], k, rdt, c->rg, c->rr, 0, seed,
				   "bcast", w);
			break;
		case RC_COLL_GATHER:
			for (j = 0; ro == R_ROOT && j < m && ok; j++)
				ok = holds(rc_off(rb[w], (size_t)j * k, rdt), k,
					   rdt, !g, j, 0, seed, "gather", w);
			break;
		case RC_COLL_GATHERV:
			for (j = 0; ro == R_ROOT && j < m && ok; j++)
				ok = holds(
					rc_off(rb[w], (size_t)dsp[w][j], rdt),
					(size_t)cnt[w][j], rdt, !g, j, 0, seed,
					"gatherv", w);
			break;
		case RC_COLL_SCATTER:
			if (ro == R_OTHER)
				ok = holds(rb[w], k, rdt, c->rg, c->rr,
					   (size_t)i * k, seed, "scatter", w);
			break;
		case RC_COLL_SCATTERV:
			if (ro == R_OTHER)
				ok = holds(rb[w], vcnt(g, i, 0, k, seed), rdt,
					   c->rg, c->rr, (size_t)i * 100000,
					   seed, "scatterv", w);
			break;
		case RC_COLL_ALLGATHER:
			for (j = 0; j < m && ok; j++)
				ok = holds(rc_off(rb[w], (size_t)j * k, rdt), k,
					   rdt, !g, j, 0, seed, "allgather", w);
			break;
		case RC_COLL_ALLGATHERV:
			for (j = 0; j < m && ok; j++)
				ok = holds(
					rc_off(rb[w], (size_t)dsp[w][j], rdt),
					(size_t)cnt[w][j], rdt, !g, j, 0, seed,
					"allgatherv", w);
			break;
		case RC_COLL_ALLTOALL:
			for (j = 0; j < m && ok; j++)
				ok = holds(rc_off(rb[w], (size_t)j * k, rdt), k,
					   rdt, !g, j, (size_t)i * k, seed,
					   "alltoall", w);
			break;
		case RC_COLL_ALLTOALLV:
			for (j = 0; j < m && ok; j++)
				ok = holds(
					rc_off(rb[w], (size_t)dsp[w][j], rdt),
					(size_t)cnt[w][j], rdt, !g, j,
					(size_t)i * 100000, seed, "alltoallv",
					w);
			break;
		}
		(void)rw;
	}
	for (w = 0; w < n; w++) {
		free(sb[w]);
		free(rb[w]);
	}
	return ok;
}

/* ---- reductions ---------------------------------------------------------- */

static void red_input(void *buf, size_t count, struct rc_dtype *dt, int g,
		      int i, unsigned seed)
{
	size_t n = count * dt->size / sizeof(int), j;
	int *s = tw_xmalloc(n * sizeof(int) + 1);

	for (j = 0; j < n; j++)
		s[j] = dt == t_mat
			       ? (int)((g + i * 2 + j + seed) % 3) - 1
			       : (int)((g * 5 + i * 7 + j * 3 + seed) % 5) - 2;
	rc_dt_unpack(dt, count, buf, 0, s, n * sizeof(int));
	free(s);
}

/* The fold of group g's inputs (len elements) in rank order. */
static void *fold(struct ix *x, int g, size_t len, struct rc_dtype *dt,
		  struct rc_op *op, unsigned seed)
{
	size_t sp = span(len, dt);
	void *acc = tw_xmalloc(sp), *v = tw_xmalloc(sp);
	int i;

	red_input(acc, len, dt, g, 0, seed);
	for (i = 1; i < x->size[g]; i++) {
		red_input(v, len, dt, g, i, seed);
		rc_op_apply(op, acc, v, len, dt); /* v = acc op v */
		memcpy(acc, v, sp);
	}
	free(v);
	return acc;
}

static bool same(const void *buf, const void *ref, size_t count,
		 struct rc_dtype *dt, const char *what, int w)
{
	size_t len = count * dt->size;
	char *p = tw_xmalloc(len + 1), *q = tw_xmalloc(len + 1);
	bool ok = true;

	rc_dt_pack(dt, count, buf, 0, p, len);
	rc_dt_pack(dt, count, ref, 0, q, len);
	if (memcmp(p, q, len))
		ok = tw_note_fail("%s on world rank %d: wrong result", what, w);
	free(p);
	free(q);
	return ok;
}

/* Uneven counts over a group of n summing to total (zeros possible). */
static void split_counts(size_t total, int n, int *cnt)
{
	size_t base = total / (size_t)n, sum = 0;
	int i;

	for (i = 0; i < n - 1; i++) {
		cnt[i] = (int)(i % 2 ? base / 2 : base + base / 2);
		sum += (size_t)cnt[i];
	}
	cnt[n - 1] = (int)(total - sum);
}

static bool check_red(struct ix *x, const struct icase *c)
{
	int n = x->n, w, cnt[2][NMAX];
	struct rc_cargs a[NMAX];
	void *sb[NMAX], *rb[NMAX], *ref[2];
	size_t k = c->k, len, rlen[NMAX],
	       T = k * (size_t)x->size[0] * (size_t)x->size[1];
	struct rc_dtype *dt = c->rdt;
	bool ok = true;

	split_counts(T, x->size[0], cnt[0]);
	split_counts(T, x->size[1], cnt[1]);
	len = c->coll == RC_COLL_REDUCE || c->coll == RC_COLL_ALLREDUCE ? k : T;
	memset(a, 0, sizeof(a));
	for (w = 0; w < n; w++) {
		int g = x->g[w], i = x->lr[w], ro = R_OTHER;

		if (c->coll == RC_COLL_REDUCE)
			ro = role(x, c, w);
		rlen[w] = span(len, dt);
		sb[w] = tw_xmalloc(span(len, dt));
		rb[w] = tw_xmalloc(rlen[w]);
		memset(rb[w], 0x77, rlen[w]);
		red_input(sb[w], len, dt, g, i, c->seed);
		a[w].dt = dt;
		a[w].op = c->op;
		a[w].count = k;
		if (c->coll == RC_COLL_REDUCE_SCATTER_BLOCK)
			a[w].count = k * (size_t)x->size[!g];
		a[w].rcounts = cnt[g];
		if (c->coll == RC_COLL_REDUCE) {
			a[w].root = root_arg(x, c, w);
			if (ro == R_NULL) {
				memset(&a[w], 0, sizeof(a[w]));
				a[w].root = MPI_PROC_NULL;
				continue;
			}
			if (ro == R_ROOT)
				a[w].rbuf = rb[w];
			else
				a[w].sbuf = sb[w];
			continue;
		}
		a[w].sbuf = sb[w];
		a[w].rbuf = rb[w];
	}
	if (!run(x, c->coll, a))
		ok = false;
	ref[0] = fold(x, 0, len, dt, c->op, c->seed);
	ref[1] = fold(x, 1, len, dt, c->op, c->seed);
	for (w = 0; w < n && ok; w++) {
		int g = x->g[w], i = x->lr[w], d = 0, j;

		switch (c->coll) {
		case RC_COLL_REDUCE:
			if (role(x, c, w) == R_ROOT)
				ok = same(rb[w], ref[!g], k, dt, "reduce", w);
			else
				ok = untouched(rb[w], rlen[w], w);
			break;
		case RC_COLL_ALLREDUCE:
			ok = same(rb[w], ref[!g], k, dt, "allreduce", w);
			break;
		case RC_COLL_REDUCE_SCATTER_BLOCK:
			ok = same(rb[w],
				  rc_off(ref[!g],
					 (size_t)i * k * (size_t)x->size[!g],
					 dt),
				  k * (size_t)x->size[!g], dt,
				  "reduce_scatter_block", w);
			break;
		case RC_COLL_REDUCE_SCATTER:
			for (j = 0; j < i; j++)
				d += cnt[g][j];
			ok = same(rb[w], rc_off(ref[!g], (size_t)d, dt),
				  (size_t)cnt[g][i], dt, "reduce_scatter", w);
			break;
		}
	}
	for (w = 0; w < n; w++) {
		free(sb[w]);
		free(rb[w]);
	}
	free(ref[0]);
	free(ref[1]);
	return ok;
}

static bool is_red(int coll)
{
	return coll == RC_COLL_REDUCE || coll == RC_COLL_ALLREDUCE ||
	       coll == RC_COLL_REDUCE_SCATTER ||
	       coll == RC_COLL_REDUCE_SCATTER_BLOCK;
}

static bool is_rooted(int coll)
{
	return coll == RC_COLL_BCAST || coll == RC_COLL_REDUCE ||
	       coll == RC_COLL_GATHER || coll == RC_COLL_GATHERV ||
	       coll == RC_COLL_SCATTER || coll == RC_COLL_SCATTERV;
}

static void force(struct ix *x, int coll, const char *alg)
{
	int r;

	for (r = 0; r < x->n; r++)
		ck_assert_int_eq(rc_coll_force_inter(x->tw->inst[r], coll, alg),
				 RC_OK);
}

/* Every case of coll with its algorithm alg on x. */
static void cases(struct ix *x, int coll, const char *alg, const char *sh)
{
	static const size_t counts[] = {0, 1, 7, 300};
	int ci, rs, lay, nroot = is_rooted(coll) ? 4 : 1;
	int nlay = is_red(coll) ? 3 : 2;

	if (coll == RC_COLL_BARRIER) {
		tw_verdict[0] = 0;
		check_barrier(x);
		ck_assert_msg(!tw_verdict[0], "barrier/%s %s n=%d: %s", alg, sh,
			      x->n, tw_verdict);
		return;
	}
	for (ci = 0; ci < 4; ci++)
		for (rs = 0; rs < nroot; rs++)
			for (lay = 0; lay < nlay; lay++) {
				struct icase c = {
					.coll = coll,
					.k = counts[ci],
					.rdt = lay ? t_sint : &rc_mpi_int,
					.op = &rc_mpi_sum,
					.rg = rs / 2,
					.rr = rs % 2 ? NMAX : 0,
					.seed = (unsigned)(x->n * 131 + ci),
				};

				if (c.rr >= x->size[c.rg])
					c.rr = x->size[c.rg] - 1;
				if (lay == 2) {
					c.rdt = t_mat;
					c.op = op_matmul;
				}
				tw_verdict[0] = 0;
				if (is_red(coll))
					check_red(x, &c);
				else
					check_move(x, &c);
				ck_assert_msg(!tw_verdict[0],
					      "%s/%s %s n=%d count=%zu root="
					      "(%d,%d) layout=%d: %s",
					      rc_coll_name(coll), alg, sh, x->n,
					      c.k, c.rg, c.rr, lay, tw_verdict);
			}
}

/* Collective `_i` (scan and exscan excepted), every algorithm, on groups
 * of 1 + 1, 1 + 2, 2 + 2 interleaved, 1 + 4, 2 + 3, 3 + 4 (a third),
 * 5 + 4 interleaved and 3 + 6. */
START_TEST(every_algorithm)
{
	static const int cfg[][2] = {
		{2, SH_HALVES}, {3, SH_LAST},  {4, SH_ODDEVEN}, {5, SH_ONE},
		{5, SH_HALVES}, {7, SH_THIRD}, {9, SH_ODDEVEN}, {9, SH_THIRD},
	};
	int coll = _i, ci, alg;

	if (coll == RC_COLL_SCAN || coll == RC_COLL_EXSCAN ||
	    coll >= RC_COLL_NBR_ALLGATHER)
		return;
	types_setup();
	for (ci = 0; ci < (int)(sizeof(cfg) / sizeof(cfg[0])); ci++) {
		struct ix x;

		ix_open(&x, cfg[ci][1], cfg[ci][0], 0, 0);
		for (alg = 0; alg < rc_coll_inter_nalgs(coll); alg++) {
			const char *an = rc_coll_inter_alg_name(coll, alg);

			force(&x, coll, an);
			cases(&x, coll, an, shape_name[cfg[ci][1]]);
		}
		ix_close(&x);
	}
	types_teardown();
}
END_TEST

/* Over a megabyte per rank through the default choices, 3 against 5. */
START_TEST(large)
{
	int coll = _i;
	struct ix x;
	struct icase c = {
		.coll = coll,
		.k = 300000,
		.op = &rc_mpi_sum,
		.rg = 1,
		.rr = 2,
		.seed = 5,
	};

	if (coll == RC_COLL_SCAN || coll == RC_COLL_EXSCAN ||
	    coll == RC_COLL_BARRIER || coll >= RC_COLL_NBR_ALLGATHER)
		return;
	types_setup();
	c.rdt = &rc_mpi_int;
	ix_open(&x, SH_HALVES, 8, 1, 2);
	if (!is_red(coll) && coll != RC_COLL_BCAST)
		c.k = 300000 / 5;
	if (coll == RC_COLL_REDUCE_SCATTER ||
	    coll == RC_COLL_REDUCE_SCATTER_BLOCK)
		c.k = 300000 / 16;
	tw_verdict[0] = 0;
	if (is_red(coll))
		check_red(&x, &c);
	else
		check_move(&x, &c);
	ck_assert_msg(!tw_verdict[0], "%s large: %s", rc_coll_name(coll),
		      tw_verdict);
	ix_close(&x);
	types_teardown();
}
END_TEST

/* Overlapping nonblocking collectives on one intercommunicator and its
 * dup, completed in reverse order. */
START_TEST(overlapping)
{
	struct ix x;
	struct rc_comm *d[NMAX];
	struct rc_req *req[NMAX][3];
	int in[NMAX][64], out[NMAX][64], bc[NMAX][16], r, i, it;

	ix_open(&x, SH_THIRD, 7, 1, 2);
	for (r = 0; r < 7; r++)
		ck_assert_int_eq(rc_comm_dup(x.ic[r], &d[r], &req[r][0]),
				 RC_OK);
	for (r = 0; r < 7; r++) {
		tw_wait(x.tw, req[r][0]);
		rc_req_free(req[r][0]);
	}
	for (it = 0; it < 3; it++) {
		for (r = 0; r < 7; r++) {
			struct rc_cargs a;
			int g = x.g[r];

			for (i = 0; i < 64; i++)
				in[r][i] = g * 100 + i + it;
			memset(&a, 0, sizeof(a));
			a.sbuf = in[r];
			a.rbuf = out[r];
			a.count = 64;
			a.dt = &rc_mpi_int;
			a.op = &rc_mpi_sum;
			ck_assert_int_eq(rc_coll_start(x.ic[r],
						       RC_COLL_ALLREDUCE, &a,
						       &req[r][0]),
					 RC_OK);
			memset(&a, 0, sizeof(a));
			ck_assert_int_eq(rc_coll_start(d[r], RC_COLL_BARRIER,
						       &a, &req[r][1]),
					 RC_OK);
			for (i = 0; i < 16; i++)
				bc[r][i] = g == 0 && x.lr[r] == 0 ? i * it : -1;
			a.rbuf = bc[r];
			a.count = 16;
			a.dt = &rc_mpi_int;
			a.root = g == 1		? 0
				 : x.lr[r] == 0 ? MPI_ROOT
						: MPI_PROC_NULL;
			ck_assert_int_eq(rc_coll_start(x.ic[r], RC_COLL_BCAST,
						       &a, &req[r][2]),
					 RC_OK);
		}
		for (i = 2; i >= 0; i--)
			for (r = 6; r >= 0; r--) {
				tw_wait(x.tw, req[r][i]);
				ck_assert_int_eq(req[r][i]->err, RC_OK);
				rc_req_free(req[r][i]);
			}
		for (r = 0; r < 7; r++) {
			int g = x.g[r], m = x.size[!g];

			for (i = 0; i < 64; i++)
				ck_assert_int_eq(out[r][i],
						 m * (!g * 100 + i + it));
			for (i = 0; i < 16; i++)
				ck_assert_int_eq(bc[r][i], g == 1 ? i * it
							   : x.lr[r] == 0
								   ? i * it
								   : -1);
		}
	}
	for (r = 0; r < 7; r++)
		rc_comm_release(d[r]);
	ix_close(&x);
}
END_TEST

static Suite *inter_suite(void)
{
	Suite *s = suite_create("inter");
	TCase *tc;

	tc = tcase_create("constructors");
	tcase_set_timeout(tc, TMO);
	tcase_add_loop_test(tc, constructors, 0, SH_N);
	tcase_add_test(tc, overlap);
	suite_add_tcase(s, tc);
	tc = tcase_create("collectives");
	tcase_set_timeout(tc, TMO);
	tcase_add_loop_test(tc, every_algorithm, 0, RC_COLL_NBR_ALLGATHER);
	tcase_add_loop_test(tc, large, 0, RC_COLL_NBR_ALLGATHER);
	tcase_add_test(tc, overlapping);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(inter_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
