/*
 * test_rma.c - one-sided communication over the in-process fabric: several
 * ranks' engines in one process (world.h), every window flavour (create,
 * allocate, dynamic, allocate_shared: the instances share one kernel, so
 * shared windows really map one segment), every synchronisation started
 * on each rank through the module's nonblocking entry points (rma.h) and
 * progress driven for all ranks together; operations started through the
 * MPI functions (which only start work), so their argument checks run too.
 *
 * Fabric pressure (loop index % 3): none; at most one message queued
 * towards a rank (RC_AGAIN everywhere, every stream queued); every third
 * send refused with a 2 KiB eager limit (many fragments). Data checks
 * compare whole buffers against patterns computed here, gaps of strided
 * layouts included; accumulates are checked against folds computed with
 * rc_op_apply on small exact values.
 */
#include <check.h>
#include <complex.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "api.h"
#include "count_yield.h"
#include "dtype.h"
#include "op.h"
#include "request.h"
#include "rma.h"
#include "rma_impl.h"
#include "status.h"
#include "world.h"

#define NMAX 8
#define TMO 120

/* MPI_Win_allocate with RCMPI_RMA_SHM=0: part 1's active-message path */
#define FLAVOR_ALLOCATE_AM 0x100
static const int flavors[] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
			      MPI_WIN_FLAVOR_DYNAMIC, MPI_WIN_FLAVOR_SHARED,
			      FLAVOR_ALLOCATE_AM};
#define NFLAVORS 5
/* loop index: flavour x pressure (3), and past 3 * NFLAVORS the same with
 * every contiguous put and get on the direct path (RCMPI_RMA_DIRECT_MIN=0:
 * the loop transport's get/put) */
#define FLAVOR_OF(i) flavors[((i) / 3) % NFLAVORS]
#define DIRECT(i) ((i) >= 3 * NFLAVORS)
/* past 6 * NFLAVORS, also the device agent (the fabric's atomics,
 * RCMPI_RMA_ATOMIC=device) on windows in private memory */
#define ATOMIC(i) ((i) >= 6 * NFLAVORS)

static const char *flavor_name(int f)
{
	switch (f) {
	case MPI_WIN_FLAVOR_CREATE:
		return "create";
	case MPI_WIN_FLAVOR_ALLOCATE:
		return "allocate";
	case MPI_WIN_FLAVOR_DYNAMIC:
		return "dynamic";
	case FLAVOR_ALLOCATE_AM:
		return "allocate-am";
	default:
		return "shared";
	}
}

/* ---- a world of ranks and a window on each ------------------------------- */

struct rw {
	struct tw *tw;
	int n;
	int flavor;
	size_t size;
	struct rc_win *w[NMAX];
	char *mem[NMAX];	/* each rank's window memory */
	char *own[NMAX];	/* memory the test allocated */
};

/* the fabric's largest get/put for the next rw_open (0: any) */
static size_t rw_rdma_max;

static struct tw *rw_world(int n, int pressure)
{
	struct tw *tw = tw_new(n);
	int r, w;

	tw->fab->atomics = ATOMIC(pressure);
	tw->fab->rdma_max = rw_rdma_max;
	switch (pressure % 3) {
	case 1:
		tw->fab->max_queued = 1;
		break;
	case 2:
		tw->fab->again_every = 3;
		tw->fab->rdma_again_every = 3;
		tw->fab->max_am = 3000;
		tw->fab->eager_limit = 2048;
		break;
	}
	tw_open(tw);
	/* one process, one kernel: every rank is local to every other */
	for (r = 0; r < n; r++)
		for (w = 0; w < n; w++)
			tw->inst[r]->procs[w].local = true;
	rc_g.initialized = true;	/* the MPI functions' init check */
	return tw;
}

/* Wait for one request per rank; each one's status into errs (NULL: all
 * must succeed). */
static void wait_each(struct tw *tw, struct rc_req **req, int n, int *errs)
{
	int r;

	for (r = 0; r < n; r++) {
		if (!req[r])
			continue;
		tw_wait(tw, req[r]);
		if (errs)
			errs[r] = req[r]->err;
		else
			ck_assert_msg(!req[r]->err, "rank %d: %s", r,
				      rc_status_str(req[r]->err));
		rc_req_free(req[r]);
		req[r] = NULL;
	}
}

static struct rw *rw_open(int n, int pressure, int flavor, size_t size,
			  int disp_unit)
{
	struct rw *rw = calloc(1, sizeof(*rw));
	struct rc_req *req[NMAX];
	struct rc_win_args a;
	bool am = flavor == FLAVOR_ALLOCATE_AM;
	int r;

	ck_assert_ptr_nonnull(rw);
	if (am) {
		flavor = MPI_WIN_FLAVOR_ALLOCATE;
		setenv("RCMPI_RMA_SHM", "0", 1);
	}
	if (DIRECT(pressure))
		setenv("RCMPI_RMA_DIRECT_MIN", "0", 1);
	if (ATOMIC(pressure))
		setenv("RCMPI_RMA_ATOMIC", "device", 1);
	rw->tw = rw_world(n, pressure);
	rw->n = n;
	rw->flavor = flavor;
	rw->size = size;
	for (r = 0; r < n; r++) {
		memset(&a, 0, sizeof(a));
		a.flavor = flavor;
		a.size = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : size;
		a.disp_unit = disp_unit;
		a.acc_order = RC_ACC_ALL;
		if (flavor == MPI_WIN_FLAVOR_CREATE ||
		    flavor == MPI_WIN_FLAVOR_DYNAMIC) {
			rw->own[r] = calloc(1, size ? size : 1);
			ck_assert_ptr_nonnull(rw->own[r]);
			a.base = rw->own[r];
		}
		ck_assert_int_eq(rc_win_create_start(rw->tw->inst[r]->world,
						     &a, &rw->w[r], &req[r]),
				 RC_OK);
	}
	wait_each(rw->tw, req, n, NULL);
	unsetenv("RCMPI_RMA_SHM");
	unsetenv("RCMPI_RMA_DIRECT_MIN");
	unsetenv("RCMPI_RMA_ATOMIC");
	for (r = 0; r < n; r++) {
		int t;

		ck_assert(rc_win_valid(rw->w[r]));
		/* the direct path to every other member of a window in
		 * private memory (create, allocate off the SHM path) */
		for (t = 0; t < n; t++)
			ck_assert_int_eq(
				rw->w[r]->tg[t].direct,
				t != r && size &&
					(flavor == MPI_WIN_FLAVOR_CREATE ||
					 (flavor == MPI_WIN_FLAVOR_ALLOCATE &&
					  am)));
		/* the device agent wherever it was asked for and the
		 * memory is exposed (dynamic windows: never; members
		 * without memory need none) */
		ck_assert_int_eq(
			rw->w[r]->dev_atomic,
			ATOMIC(pressure) &&
				(flavor == MPI_WIN_FLAVOR_CREATE ||
				 (flavor == MPI_WIN_FLAVOR_ALLOCATE && am)));
		/* the path: shared memory wherever every member is here
		 * (all of them: one process) and it is not switched off */
		ck_assert_int_eq(
			rw->w[r]->shm_path,
			flavor == MPI_WIN_FLAVOR_SHARED ||
				(flavor == MPI_WIN_FLAVOR_ALLOCATE && !am));
		rw->w[r]->comm->errh = &rc_mpi_errors_return;
		rw->mem[r] = flavor == MPI_WIN_FLAVOR_CREATE ||
					     flavor == MPI_WIN_FLAVOR_DYNAMIC
				     ? rw->own[r]
				     : rc_win_base(rw->w[r]);
		if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
			ck_assert_int_eq(rc_win_attach(rw->w[r], rw->mem[r],
						       size), RC_OK);
		memset(rw->mem[r], 0, size);
	}
	return rw;
}

static void rw_close(struct rw *rw)
{
	struct rc_req *req[NMAX];
	int r;

	for (r = 0; r < rw->n; r++)
		ck_assert_int_eq(rc_win_free_start(rw->w[r], &req[r]), RC_OK);
	wait_each(rw->tw, req, rw->n, NULL);
	for (r = 0; r < rw->n; r++)
		free(rw->own[r]);
	tw_free(rw->tw);
	rc_g.initialized = false;
	free(rw);
}

/* After a rank died: no collective free; tw_free drops the windows. */
static void rw_abandon(struct rw *rw)
{
	int r;

	tw_free(rw->tw);
	rc_g.initialized = false;
	for (r = 0; r < rw->n; r++)
		free(rw->own[r]);
	free(rw);
}

/* The target displacement of byte offset off of rank t's window. */
static MPI_Aint rw_disp(struct rw *rw, int t, size_t off, int disp_unit)
{
	if (rw->flavor == MPI_WIN_FLAVOR_DYNAMIC)
		return (MPI_Aint)(uintptr_t)(rw->mem[t] + off);
	return (MPI_Aint)(off / (size_t)disp_unit);
}

static void fence_all(struct rw *rw, int assert)
{
	struct rc_req *req[NMAX];
	int r;

	for (r = 0; r < rw->n; r++)
		ck_assert_int_eq(rc_win_fence_start(rw->w[r], assert, &req[r]),
				 RC_OK);
	wait_each(rw->tw, req, rw->n, NULL);
}

/* Let everything that can happen happen. A waiter for a device lock
 * polls the lock words as long as it waits, so the world never goes
 * quiet there: a fixed number of rounds instead. */
static void rw_settle(struct rw *rw)
{
	int k;

	if (!rw->w[0]->dev_atomic) {
		tw_quiesce(rw->tw);
		return;
	}
	for (k = 0; k < 2000; k++)
		tw_progress(rw->tw);
}

/* Rank r asks for a lock on t's window: the request, running. */
static struct rc_req *rw_lock(struct rw *rw, int r, int type, int t)
{
	struct rc_req *req;

	ck_assert_int_eq(rc_win_lock_start(rw->w[r], type, t, 0, &req),
			 RC_OK);
	return req;
}

/* Rank r unlocks t: started, waited for, successful. */
static void rw_unlock(struct rw *rw, int r, int t)
{
	struct rc_req *u;

	ck_assert_int_eq(rc_win_unlock_start(rw->w[r], t, &u), RC_OK);
	tw_wait(rw->tw, u);
	ck_assert_int_eq(u->err, RC_OK);
	rc_req_free(u);
}

/* ---- patterns ------------------------------------------------------------ */

static unsigned char pat(int origin, int target, size_t i)
{
	return (unsigned char)(origin * 37 + target * 11 + i * 7 + (i >> 9));
}

/* First index where b[i] != pat(o, t, i), or -1. */
static long bad_pat(const unsigned char *b, size_t n, int o, int t)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != pat(o, t, i))
			return (long)i;
	return -1;
}

static struct rc_dtype *vec_int(size_t count, size_t stride)
{
	struct rc_dtype *dt;

	ck_assert_int_eq(rc_dt_create_vector(count, 1, (ptrdiff_t)stride,
					     &rc_mpi_int, &dt), RC_OK);
	rc_dt_commit(dt);
	return dt;
}

/* ---- put and get under fences, every flavour --------------------------------
 * Each origin owns a region of every target's window (REG bytes at
 * origin * REG): a contiguous put of it, large enough to stream; then a
 * strided put of ints into a vector layout (every third int) of a second
 * area; after a fence the targets check both, gaps untouched; then every
 * rank gets its neighbour's regions back into a strided buffer.
 */
#define REG 20000
#define VEC 700		/* ints in the strided area */

START_TEST(put_get_fence)
{
	int flavor = FLAVOR_OF(_i), n = 3, o, t;
	size_t size = (size_t)n * REG + (size_t)n * VEC * 3 * sizeof(int);
	struct rw *rw = rw_open(n, _i, flavor, size, 1);
	struct rc_dtype *tvec = vec_int(VEC, 3), *ovec = vec_int(REG / 4, 2);
	struct rc_dtype *mixed, *mtypes[2] = {&rc_mpi_long, &rc_mpi_int};
	int mblen[2] = {1, 1};
	MPI_Aint mdisp[2] = {0, 8};
	unsigned char *src[NMAX], mixed_got[NMAX][12];
	int *isrc[NMAX], *got[NMAX];

	ck_assert_int_eq(rc_dt_create_struct(2, mblen, mdisp, mtypes, &mixed),
			 RC_OK);
	rc_dt_commit(mixed);
	fence_all(rw, MPI_MODE_NOPRECEDE);
	for (o = 0; o < n; o++) {
		src[o] = malloc(REG);
		isrc[o] = malloc(VEC * sizeof(int));
		for (t = 0; t < REG; t++)
			src[o][t] = pat(o, 0, (size_t)t);
		for (t = 0; t < VEC; t++)
			isrc[o][t] = o * 100000 + t;
		for (t = 0; t < n; t++) {
			size_t voff = (size_t)n * REG +
				      (size_t)o * VEC * 3 * sizeof(int);

			ck_assert_int_eq(MPI_Put(src[o], REG, MPI_BYTE, t,
						 rw_disp(rw, t, (size_t)o * REG,
							 1),
						 REG, MPI_BYTE, rw->w[o]),
					 MPI_SUCCESS);
			ck_assert_int_eq(MPI_Put(isrc[o], VEC, MPI_INT, t,
						 rw_disp(rw, t, voff, 1), 1,
						 tvec, rw->w[o]),
					 MPI_SUCCESS);
		}
	}
	fence_all(rw, 0);
	for (t = 0; t < n; t++)
		for (o = 0; o < n; o++) {
			int *v = (int *)(rw->mem[t] + (size_t)n * REG +
					 (size_t)o * VEC * 3 * sizeof(int));
			long bad = bad_pat((unsigned char *)rw->mem[t] +
						   (size_t)o * REG,
					   REG, o, 0);
			int i;

			ck_assert_msg(bad < 0,
				      "%s: target %d region %d byte %ld",
				      flavor_name(flavor), t, o, bad);
			for (i = 0; i < 3 * VEC; i++)
				if (v[i] != (i % 3 ? 0 : o * 100000 + i / 3))
					ck_abort_msg("%s: target %d vector of "
						     "%d: int %d is %d",
						     flavor_name(flavor), t, o,
						     i, v[i]);
		}
	/* gets into every other byte-pair... into a strided int buffer; and
	 * one of a target type that mixes basic types (a struct of a long
	 * and an int), into bytes */
	for (o = 0; o < n; o++) {
		got[o] = calloc(REG / 4 * 2, sizeof(int));
		t = (o + 1) % n;
		ck_assert_int_eq(MPI_Get(got[o], 1, ovec, t,
					 rw_disp(rw, t, (size_t)o * REG, 1),
					 REG, MPI_BYTE, rw->w[o]),
				 MPI_SUCCESS);
		ck_assert_int_eq(MPI_Get(mixed_got[o], 12, MPI_BYTE, t,
					 rw_disp(rw, t, (size_t)o * REG, 1), 1,
					 mixed, rw->w[o]),
				 MPI_SUCCESS);
	}
	fence_all(rw, MPI_MODE_NOSUCCEED);
	for (o = 0; o < n; o++) {
		unsigned char want[12];
		int i;

		for (i = 0; i < 12; i++)
			want[i] = pat(o, 0, (size_t)i);
		ck_assert_msg(!memcmp(mixed_got[o], want, 12),
			      "%s: get of a mixed type, rank %d",
			      flavor_name(flavor), o);
	}
	/* the REG-byte puts and gets went by the transport's get/put where
	 * the window is direct, never where it is not */
	if (flavor != MPI_WIN_FLAVOR_DYNAMIC) /* (dynamic_direct) */
		ck_assert(rw->w[0]->tg[1].direct == (rw->tw->fab->nrdma > 0));
	for (o = 0; o < n; o++) {
		unsigned char packed[REG];
		int i;

		rc_dt_pack(ovec, 1, got[o], 0, packed, REG);
		ck_assert_msg(bad_pat(packed, REG, o, 0) < 0,
			      "%s: get of rank %d", flavor_name(flavor), o);
		for (i = 0; i < REG / 4; i++)
			ck_assert_int_eq(got[o][2 * i + 1], 0);
		free(got[o]);
		free(src[o]);
		free(isrc[o]);
	}
	rc_dt_release(tvec);
	rc_dt_release(ovec);
	rc_dt_release(mixed);
	rw_close(rw);
}
END_TEST


/* ---- accumulates: every predefined op on every type it allows ---------------
 * Small exact values, so any order of application gives the same result:
 * every rank accumulates K elements into rank 0 (MPI_REPLACE: rank 1
 * alone), and rank o get_accumulates into rank (o + 1) % n alone, whose
 * result must be the values before and whose memory the fold.
 */
#define K 5

static void set_val(enum rc_basic b, void *p, int v, int idx)
{
	switch (b) {
#define X_SET(name, ctype, str)                 \
	case RC_BASIC_##name:                   \
		*(ctype *)p = (ctype)v;         \
		break;
		RC_BASIC_TABLE(X_SET)
#undef X_SET
#define X_PSET(pn, vtype, vb, itype, ib, str)                \
	case RC_BASIC_##pn:                                  \
		((struct rc_pair_##pn *)p)->v = (vtype)v;    \
		((struct rc_pair_##pn *)p)->i = (itype)idx; \
		break;
		RC_PAIR_TABLE(X_PSET)
#undef X_PSET
	default:
		break;
	}
	if (b == RC_BASIC_C_BOOL)
		*(_Bool *)p = v & 1;
}

/* Equal values (long double padding and pair holes do not count). */
static bool eq_val(enum rc_basic b, const void *p, const void *q)
{
	switch (b) {
	case RC_BASIC_LONG_DOUBLE:
		return *(const long double *)p == *(const long double *)q;
	case RC_BASIC_C_LONG_DOUBLE_COMPLEX:
		return *(const long double _Complex *)p ==
		       *(const long double _Complex *)q;
#define X_PEQ(pn, vtype, vb, itype, ib, str)                               \
	case RC_BASIC_##pn:                                                \
		return ((const struct rc_pair_##pn *)p)->v ==              \
			       ((const struct rc_pair_##pn *)q)->v &&      \
		       ((const struct rc_pair_##pn *)p)->i ==              \
			       ((const struct rc_pair_##pn *)q)->i;
		RC_PAIR_TABLE(X_PEQ)
#undef X_PEQ
	default:
		return !memcmp(p, q, rc_basic_size(b));
	}
}

/* A small value for (rank, element, op): PROD stays small, logical ops
 * see zeros and ones. */
static int val_for(int o, int i, enum rc_op_kind k)
{
	if (k == RC_OP_PROD)
		return 1 + (o + i) % 2;
	if (k == RC_OP_LAND || k == RC_OP_LOR || k == RC_OP_LXOR)
		return (o + i) % 3 == 0;
	return (o * 7 + i * 3) % 11 + 1;
}

static bool acc_case(struct rw *rw, const struct rc_op *op, enum rc_basic b)
{
	struct rc_dtype *dt = rc_dt_of_basic(b);
	/* the folds: MPI_CHAR computes as the char it is */
	struct rc_dtype *fdt = rc_dt_of_basic(rma_acc_basic(b));
	size_t ext = (size_t)rc_dt_extent(dt), i;
	char src[NMAX][K * 32], want[NMAX][K * 32], res[NMAX][K * 32];
	char init[NMAX][K * 32];
	int n = rw->n, o, t;

	/* initial values everywhere, folds computed here */
	for (t = 0; t < n; t++) {
		for (i = 0; i < K; i++)
			set_val(b, rw->mem[t] + i * ext,
				val_for(t + 3, (int)i, op->kind), (int)i);
		memcpy(init[t], rw->mem[t], K * ext);
		memcpy(want[t], rw->mem[t], K * ext);
	}
	for (o = 0; o < n; o++)
		for (i = 0; i < K; i++)
			set_val(b, src[o] + i * ext,
				val_for(o, (int)i, op->kind),
				(int)(i + (size_t)o));
	for (o = 0; o < n; o++) {
		bool all = op->kind != RC_OP_REPLACE;

		if (all || o == 1 % n)
			rc_op_apply(op, src[o], want[0], K, fdt);
		if ((o + 1) % n != 0)
			rc_op_apply(op, src[o], want[(o + 1) % n], K, fdt);
	}
	if (n == 1)
		rc_op_apply(op, src[0], want[0], K, fdt);	/* its gacc */
	fence_all(rw, 0);
	for (o = 0; o < n; o++) {
		int to = (o + 1) % n;

		if (op->kind != RC_OP_REPLACE || o == 1 % n)
			if (MPI_Accumulate(src[o], K, dt, 0,
					   rw_disp(rw, 0, 0, (int)ext), K, dt,
					   (MPI_Op)op, rw->w[o]) != MPI_SUCCESS)
				return false;
		if (to == 0 && n > 1)
			continue;	/* rank 0 has its accumulates */
		if (MPI_Get_accumulate(src[o], K, dt, res[o], K, dt, to,
				       rw_disp(rw, to, 0, (int)ext), K, dt,
				       (MPI_Op)op, rw->w[o]) != MPI_SUCCESS)
			return false;
	}
	fence_all(rw, 0);
	for (t = 0; t < n; t++)
		for (i = 0; i < K; i++)
			if (!eq_val(b, rw->mem[t] + i * ext,
				    want[t] + i * ext)) {
				ck_abort_msg("%s %s on %s: rank %d element %zu",
					     op->name, rc_basic_name(b),
					     flavor_name(rw->flavor), t, i);
				return false;
			}
	for (o = 0; o < n; o++) {
		int to = (o + 1) % n;

		if (to == 0 && n > 1)
			continue;
		for (i = 0; i < K; i++)
			if (!eq_val(b, res[o] + i * ext, init[to] + i * ext)) {
				ck_abort_msg("%s %s: get_accumulate result "
					     "of rank %d element %zu",
					     op->name, rc_basic_name(b), o, i);
				return false;
			}
	}
	return true;
}

START_TEST(acc_every_op)
{
	int flavor = FLAVOR_OF(_i), k, b;
	struct rw *rw = rw_open(3, _i, flavor, K * 32, 1);
	int cases = 0;

	for (k = RC_OP_MAX; k <= RC_OP_REPLACE; k++) {
		const struct rc_op *op = rc_op_of_kind(k);

		for (b = RC_BASIC_NONE + 1; b < RC_BASIC_NKINDS; b++) {
			struct rc_dtype *dt = rc_dt_of_basic(b);

			if (!dt || !rma_acc_valid(op, dt) ||
			    ((b == RC_BASIC_PACKED || b == RC_BASIC_WCHAR) &&
			     op->kind != RC_OP_REPLACE))
				continue;
			acc_case(rw, op, (enum rc_basic)b);
			cases++;
		}
	}
	/* every op of MPI-3.1 5.9.2 on its types, and REPLACE on all */
	ck_assert_int_gt(cases, 200);
	rw_close(rw);
}
END_TEST

/* MPI_NO_OP fetches; accumulates on a strided target datatype, long
 * enough to stream, chunked at the target. */
START_TEST(acc_strided_and_no_op)
{
	int flavor = FLAVOR_OF(_i), n = 3, o, i;
	const int cnt = 3000;
	struct rw *rw = rw_open(n, _i, flavor, 2 * cnt * sizeof(double), 1);
	struct rc_dtype *tv;
	double *src = malloc(cnt * sizeof(double));
	double *res = malloc(cnt * sizeof(double));
	double *tgt = (double *)rw->mem[0];

	ck_assert_int_eq(rc_dt_create_vector(cnt, 1, 2, &rc_mpi_double, &tv),
			 RC_OK);
	rc_dt_commit(tv);
	for (i = 0; i < 2 * cnt; i++)
		tgt[i] = i % 2 ? -1.0 : (double)i;
	for (i = 0; i < cnt; i++)
		src[i] = (double)(i % 17);
	fence_all(rw, 0);
	for (o = 0; o < n; o++)
		ck_assert_int_eq(MPI_Accumulate(src, cnt, MPI_DOUBLE, 0,
						rw_disp(rw, 0, 0, 1), 1, tv,
						MPI_SUM, rw->w[o]),
				 MPI_SUCCESS);
	fence_all(rw, 0);
	for (i = 0; i < 2 * cnt; i++)
		ck_assert(tgt[i] ==
			  (i % 2 ? -1.0
				 : (double)i + n * (double)((i / 2) % 17)));
	/* NO_OP: the values, unchanged; origin arguments ignored */
	ck_assert_int_eq(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, res,
					    cnt, MPI_DOUBLE, 0,
					    rw_disp(rw, 0, 0, 1), 1, tv,
					    MPI_NO_OP, rw->w[2]),
			 MPI_SUCCESS);
	fence_all(rw, MPI_MODE_NOSUCCEED);
	for (i = 0; i < cnt; i++)
		ck_assert(res[i] == tgt[2 * i]);
	for (i = 0; i < 2 * cnt; i += 2)
		ck_assert(tgt[i + 1] == -1.0);
	rc_dt_release(tv);
	free(src);
	free(res);
	rw_close(rw);
}
END_TEST

/* ---- ordering: accumulates from one origin apply in issue order ---------- */
START_TEST(acc_ordering)
{
	int flavor = FLAVOR_OF(_i), v, got = -1, big[4096], i;
	struct rw *rw = rw_open(2, _i, flavor, sizeof(big) + 64, 1);
	int *t = (int *)rw->mem[1];

	fence_all(rw, 0);
	for (v = 1; v <= 60; v++) {
		/* a large one now and then: streams queue behind */
		if (v % 20 == 0) {
			for (i = 0; i < 4096; i++)
				big[i] = v;
			ck_assert_int_eq(MPI_Accumulate(big, 4096, MPI_INT, 1,
							rw_disp(rw, 1, 64, 1),
							4096, MPI_INT,
							MPI_REPLACE, rw->w[0]),
					 MPI_SUCCESS);
		}
		ck_assert_int_eq(MPI_Accumulate(&v, 1, MPI_INT, 1,
						rw_disp(rw, 1, 0, 1), 1,
						MPI_INT, MPI_REPLACE, rw->w[0]),
				 MPI_SUCCESS);
	}
	ck_assert_int_eq(MPI_Fetch_and_op(NULL, &got, MPI_INT, 1,
					  rw_disp(rw, 1, 0, 1), MPI_NO_OP,
					  rw->w[0]),
			 MPI_SUCCESS);
	i = 0;
	ck_assert_int_eq(MPI_Get_accumulate(NULL, 0, MPI_INT, &i, 1, MPI_INT,
					    1, rw_disp(rw, 1, 64 + 4 * 4095, 1),
					    1, MPI_INT, MPI_NO_OP, rw->w[0]),
			 MPI_SUCCESS);
	fence_all(rw, 0);
	ck_assert_int_eq(got, 60);	/* after all 60 writes */
	ck_assert_int_eq(i, 60);
	ck_assert_int_eq(t[0], 60);
	rw_close(rw);
}
END_TEST

/* ---- contended counters -------------------------------------------------- */

/* Every rank adds one, N times, to one 64-bit element of rank 0 with
 * MPI_Fetch_and_op under lock_all, flushing each time: the final value is
 * exact and the values fetched are all different. */
START_TEST(counter_fetch_and_op)
{
	int flavor = FLAVOR_OF(_i), n = 4, r, k;
	const int N = 150;
	struct rw *rw = rw_open(n, _i, flavor, 64, 1);
	struct rc_req *req[NMAX];
	long long one = 1, *got = calloc((size_t)(n * N), sizeof(*got));
	char *seen = calloc((size_t)(n * N), 1);

	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_win_lock_start(rw->w[r], MPI_LOCK_SHARED,
						   -1, 0, &req[r]), RC_OK);
	wait_each(rw->tw, req, n, NULL);
	for (k = 0; k < N; k++) {
		for (r = 0; r < n; r++) {
			ck_assert_int_eq(MPI_Fetch_and_op(&one, &got[r * N + k],
							  MPI_LONG_LONG, 0,
							  rw_disp(rw, 0, 8, 1),
							  MPI_SUM, rw->w[r]),
					 MPI_SUCCESS);
			ck_assert_int_eq(rc_win_flush_start(rw->w[r], 0, false,
							    &req[r]), RC_OK);
		}
		wait_each(rw->tw, req, n, NULL);
	}
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_win_unlock_start(rw->w[r], -1, &req[r]),
				 RC_OK);
	wait_each(rw->tw, req, n, NULL);
	ck_assert_int_eq(*(long long *)(rw->mem[0] + 8), (long long)n * N);
	for (k = 0; k < n * N; k++) {
		ck_assert(got[k] >= 0 && got[k] < n * N);
		ck_assert_msg(!seen[got[k]], "value %lld fetched twice",
			      got[k]);
		seen[got[k]] = 1;
	}
	free(got);
	free(seen);
	rw_close(rw);
}
END_TEST

/* A counter guarded by passive-target locks on rank 0's window, n ranks
 * each a machine of its own, N rounds each, all racing for the lock:
 * lock; get, flush; put + 1 (exclusive holders), unlock. Two holders at
 * once would lose updates; a holder also checks who else holds
 * (exclusive: nobody; shared: no exclusive holder) and that the count it
 * reads never goes down. mixed: a rank's every third round exclusive, the
 * others shared, and the ranks' progress called in a random order, some
 * twice, some machines left out of a round, from the seed: many
 * interleavings of the lock's tickets, grants, polls and releases; else
 * every round exclusive and progress in rank order. Returns the
 * exclusive rounds. */
static int counter_locks(struct rw *rw, int N, bool mixed, unsigned seed)
{
	int n = rw->n, r, o, done = 0, nexcl = 0;
	struct rc_req *req[NMAX] = {0};
	int state[NMAX] = {0}, count[NMAX] = {0}, val[NMAX];
	int seen[NMAX], holds[NMAX] = {0}, order[NMAX];
	unsigned long spins = 0;

	for (r = 0; r < n; r++)
		seen[r] = -1;
	while (done < n) {
		for (r = 0; r < n; r++) {
			struct rc_win *w = rw->w[r];
			int excl = !mixed || (count[r] + r) % 3 == 0;

			if (count[r] == N || (mixed && rand_r(&seed) % 4 == 0))
				continue;
			if (req[r] && !rc_req_done(req[r]))
				continue;
			if (req[r]) {
				ck_assert_int_eq(req[r]->err, RC_OK);
				rc_req_free(req[r]);
				req[r] = NULL;
			}
			switch (state[r]) {
			case 0:
				ck_assert_int_eq(
					rc_win_lock_start(
						w,
						excl ? MPI_LOCK_EXCLUSIVE
						     : MPI_LOCK_SHARED,
						0, 0, &req[r]),
					RC_OK);
				/* only one exclusive holder at the target */
				ck_assert(rw->w[0]->excl < 0 ||
					  !rw->w[0]->nshared);
				break;
			case 1:
				/* granted: who else holds it (from the grant
				 * to the start of the unlock) */
				for (o = 0; o < n; o++)
					ck_assert_msg(
						o == r || !holds[o] ||
							(!excl &&
							 holds[o] == 1),
						"rank %d (%s) and rank %d "
						"(%s) hold the lock",
						r,
						excl ? "exclusive" : "shared",
						o,
						holds[o] == 2 ? "exclusive"
							      : "shared");
				holds[r] = excl ? 2 : 1;
				ck_assert_int_eq(MPI_Get(&val[r], 1, MPI_INT, 0,
							 rw_disp(rw, 0, 0, 1),
							 1, MPI_INT, w),
						 MPI_SUCCESS);
				ck_assert_int_eq(rc_win_flush_start(w, 0, false,
								    &req[r]),
						 RC_OK);
				break;
			case 2:
				ck_assert_msg(val[r] >= seen[r],
					      "rank %d read %d after %d", r,
					      val[r], seen[r]);
				seen[r] = val[r];
				if (excl) {
					val[r]++;
					nexcl++;
					ck_assert_int_eq(
						MPI_Put(&val[r], 1, MPI_INT, 0,
							rw_disp(rw, 0, 0, 1), 1,
							MPI_INT, w),
						MPI_SUCCESS);
				}
				holds[r] = 0;
				ck_assert_int_eq(
					rc_win_unlock_start(w, 0, &req[r]),
					RC_OK);
				break;
			case 3:
				if (++count[r] == N)
					done++;
				break;
			}
			state[r] = (state[r] + 1) % 4;
		}
		/* every rank's progress: in rank order, or shuffled */
		for (r = 0; r < n; r++)
			order[r] = r;
		for (r = n - 1; mixed && r > 0; r--) {
			int k = (int)(rand_r(&seed) % (unsigned)(r + 1)), t;

			t = order[r];
			order[r] = order[k];
			order[k] = t;
		}
		for (r = 0; r < n; r++) {
			rc_progress(rw->tw->inst[order[r]]);
			if (mixed && rand_r(&seed) % 8 == 0)
				rc_progress(rw->tw->inst[order[r]]);
		}
		ck_assert(++spins < 10000000);
	}
	tw_quiesce(rw->tw);
	ck_assert_int_eq(*(int *)rw->mem[0], nexcl);
	return nexcl;
}

/* Every round exclusive. */
START_TEST(counter_exclusive_lock)
{
	const int n = 4, N = 40;
	struct rw *rw = rw_open(n, _i, FLAVOR_OF(_i), 64, 1);
	int o;

	ck_assert_int_eq(counter_locks(rw, N, false, 0), n * N);
	if (rw->w[0]->dev_atomic) {
		/* the device's lock words did it, not the target's queue:
		 * one ticket per lock, every one passed on; each holder word
		 * still names its last exclusive ticket, long passed (state
		 * WAIT_EX, 2, in the high byte: dlock.c) */
		const uint64_t *lw = rw->w[0]->dlblk;
		uint64_t k = (uint64_t)(n * N);

		/* the three counters, nothing in their guard bits */
		ck_assert_uint_eq(lw[RMA_DL_LOCK], k << RMA_DL_NEXT |
							   k << RMA_DL_WRITE |
							   k << RMA_DL_READ);
		for (o = 0; o < n; o++) {
			uint64_t h = lw[RMA_DL_HOLDER + o];

			ck_assert_uint_eq(h >> 56, 2);
			ck_assert_uint_lt(h & ((UINT64_C(1) << 56) - 1), k);
		}
	}
	rw_close(rw);
}
END_TEST

/* Shared and exclusive mixed, in random interleavings (a seed per loop
 * index, so that a failure repeats). */
START_TEST(counter_mixed_locks)
{
	struct rw *rw = rw_open(4, _i, FLAVOR_OF(_i), 64, 1);

	counter_locks(rw, 60, true, 0x9e3779b9u * (unsigned)(_i + 1));
	rw_close(rw);
}
END_TEST

/* The shared-memory path's direct lock and unlock (MPI_Win_lock and
 * MPI_Win_unlock on such a window): uncontended, the lock is granted in
 * the call and no synchronisation machine runs; held by another rank, the
 * call hands back a machine that completes once that rank unlocks, and
 * the put made under each lock lands. */
START_TEST(shm_lock_direct)
{
	struct rw *rw = rw_open(3, _i, FLAVOR_OF(_i), 64, 1);
	struct rc_win *w1 = rw->w[1];
	struct rc_req *req;
	int one = 1, two = 2, ret;

	if (!w1->shm_path)
		goto out;
	ck_assert_int_eq(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w1),
			 MPI_SUCCESS);
	ck_assert_uint_eq(w1->nsyncs, 0);
	ck_assert(w1->tg[0].granted);
	ck_assert_int_eq(MPI_Put(&one, 1, MPI_INT, 0, rw_disp(rw, 0, 0, 1), 1,
				 MPI_INT, w1),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Win_unlock(0, w1), MPI_SUCCESS);
	ck_assert_uint_eq(w1->nsyncs, 0);
	ck_assert_int_eq(*(int *)rw->mem[0], 1);
	/* rank 2 holds it: rank 1 waits in a machine */
	req = rw_lock(rw, 2, MPI_LOCK_EXCLUSIVE, 0);
	tw_wait(rw->tw, req);
	rc_req_free(req);
	ck_assert_int_eq(rc_win_lock_shm(w1, MPI_LOCK_EXCLUSIVE, 0, 0, &req),
			 RC_OK);
	ck_assert_ptr_nonnull(req);
	rw_settle(rw);
	ck_assert(!rc_req_done(req));
	rw_unlock(rw, 2, 0);
	tw_wait(rw->tw, req);
	ck_assert_int_eq(req->err, RC_OK);
	rc_req_free(req);
	ck_assert_int_eq(MPI_Put(&two, 1, MPI_INT, 0, rw_disp(rw, 0, 0, 1), 1,
				 MPI_INT, w1),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Win_unlock(0, w1), MPI_SUCCESS);
	ck_assert_int_eq(*(int *)rw->mem[0], 2);
	/* a second lock on the same target is an error; so is an unlock
	 * without one */
	ck_assert_int_eq(rc_win_lock_shm(w1, MPI_LOCK_SHARED, 0, 0, &req),
			 RC_OK);
	ck_assert_ptr_null(req);
	ck_assert_int_eq(rc_win_lock_shm(w1, MPI_LOCK_SHARED, 0, 0, &req),
			 RC_ERR_RMA_SYNC);
	ck_assert(rc_win_unlock_direct(w1, 0, &ret));
	ck_assert_int_eq(ret, RC_OK);
	ck_assert(rc_win_unlock_direct(w1, 0, &ret));
	ck_assert_int_eq(ret, RC_ERR_RMA_SYNC);
out:
	rw_close(rw);
}
END_TEST

/* Rank 2 "holds" target 0's accumulate lock on a shared window (its
 * identity in the lock word), and releases it 1.2 s later from another
 * thread. */
struct acc_holder {
	uint32_t *word;
};

static void *acc_release_later(void *arg)
{
	struct acc_holder *h = arg;

	usleep(1200 * 1000);
	__atomic_store_n(h->word, 0, __ATOMIC_RELEASE);
	return NULL;
}

/* Rank 1's accumulate into rank 0's memory of a shared window while
 * rank 2 holds that target's accumulate lock: with rank 2 alive the
 * accumulate waits for its release (no warning, 1.2 s); with rank 2's
 * process gone (its pid that of a reaped child), the waiter releases the
 * lock in its place after ACC_PATIENCE_S and goes on, with a warning.
 * Either way the sum lands exactly once. */
START_TEST(shm_acc_holder_gone)
{
	struct rw *rw = rw_open(3, 0, MPI_WIN_FLAVOR_SHARED, 64, 1);
	struct rc_win *w1 = rw->w[1];
	char path[] = "/tmp/rc_accl_XXXXXX", buf[4096];
	struct rc_proc *p2;
	struct acc_holder h;
	pthread_t th;
	pid_t keep, child;
	int one = 1, fd, saved, st;
	double t0, dt;
	ssize_t n;

	ck_assert(w1->shm_path);
	p2 = &w1->inst->procs[w1->tg[2].wrank];
	keep = p2->pid;
	h.word = &w1->shm->acc[0].holder;
	ck_assert_ptr_eq((char *)&w1->shm->acc[0], (char *)w1->shm->seg);
	*(int *)rw->mem[0] = 0;
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	saved = dup(STDERR_FILENO);
	ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
	ck_assert_int_eq(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w1), MPI_SUCCESS);
	/* alive: wait for the release */
	p2->pid = getpid();
	__atomic_store_n(h.word, 3, __ATOMIC_RELEASE);
	ck_assert_int_eq(pthread_create(&th, NULL, acc_release_later, &h), 0);
	t0 = rma_now();
	ck_assert_int_eq(MPI_Accumulate(&one, 1, MPI_INT, 0,
					rw_disp(rw, 0, 0, 1), 1, MPI_INT,
					MPI_SUM, w1),
			 MPI_SUCCESS);
	dt = rma_now() - t0;
	pthread_join(th, NULL);
	ck_assert_msg(dt >= 1.1, "accumulate took %.2f s", dt);
	ck_assert_int_eq(*(int *)rw->mem[0], 1);
	/* gone: released in its place */
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child)
		_exit(0);
	ck_assert_int_eq(waitpid(child, &st, 0), child);
	p2->pid = child;
	__atomic_store_n(h.word, 3, __ATOMIC_RELEASE);
	ck_assert_int_eq(MPI_Accumulate(&one, 1, MPI_INT, 0,
					rw_disp(rw, 0, 0, 1), 1, MPI_INT,
					MPI_SUM, w1),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Win_unlock(0, w1), MPI_SUCCESS);
	dup2(saved, STDERR_FILENO);
	close(saved);
	p2->pid = keep;
	ck_assert_int_eq(*(int *)rw->mem[0], 2);
	ck_assert_uint_eq(__atomic_load_n(h.word, __ATOMIC_ACQUIRE), 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	ck_assert_int_gt(n, 0);
	buf[n] = 0;
	ck_assert_msg(strstr(buf, "died holding the accumulate lock of rank "),
		      "%s", buf);
	ck_assert_msg(!strstr(strstr(buf, "died") + 1, "died"), "%s", buf);
	rw_close(rw);
}
END_TEST

/* The fabric's gets, puts and atomics since *last (updating it). */
static unsigned long rdma_delta(struct rw *rw, unsigned long *last)
{
	unsigned long d = rw->tw->fab->nrdma - *last;

	*last = rw->tw->fab->nrdma;
	return d;
}

/* The device's lock word from close to its counters' wrap: rank 1 takes
 * the exclusive lock at rank 0 six times with nothing in the epoch, then
 * ranks 1 and 2 share it twice each. Uncontended, an exclusive epoch is
 * three atomics (the ticket that reads the turn too, the holder word, one
 * release for both counters), a shared one five (ticket, holder, read
 * passed on; holder cleared, write), and the epoch where read and write
 * wrap two more, which clear their carries from the guard bits: the
 * counters stand at 3 and 7 afterwards with no guard bit set (next's
 * carry leaves the word at the top, in bit 62). */
START_TEST(lock_word_wrap)
{
	const uint64_t top = (UINT64_C(1) << RMA_DL_BITS) - 1;
	struct rw *rw = rw_open(3, _i, FLAVOR_OF(_i), 64, 1);
	const uint64_t guards = UINT64_C(1) << (RMA_DL_READ + RMA_DL_BITS) |
				UINT64_C(1) << (RMA_DL_WRITE + RMA_DL_BITS);
	uint64_t *lw, v;
	unsigned long last;
	struct rc_req *req[2];
	int e, r;

	if (!rw->w[0]->dev_atomic)
		goto out;
	lw = rw->w[0]->dlblk;
	v = top - 2;
	lw[RMA_DL_LOCK] = v << RMA_DL_NEXT | v << RMA_DL_WRITE |
			  v << RMA_DL_READ;
	last = rw->tw->fab->nrdma;
	for (e = 0; e < 6; e++) {
		req[0] = rw_lock(rw, 1, MPI_LOCK_EXCLUSIVE, 0);
		tw_wait(rw->tw, req[0]);
		ck_assert_int_eq(req[0]->err, RC_OK);
		rc_req_free(req[0]);
		rw_unlock(rw, 1, 0);
		rw_settle(rw);
		ck_assert_uint_eq(rdma_delta(rw, &last), (e == 2 ? 5 : 3));
	}
	ck_assert_uint_eq(lw[RMA_DL_LOCK] & ~(UINT64_C(3) << 62),
			  UINT64_C(3) << RMA_DL_NEXT |
				  UINT64_C(3) << RMA_DL_WRITE |
				  UINT64_C(3) << RMA_DL_READ);
	for (e = 0; e < 2; e++) {
		for (r = 0; r < 2; r++)
			req[r] = rw_lock(rw, r + 1, MPI_LOCK_SHARED, 0);
		for (r = 0; r < 2; r++) {
			tw_wait(rw->tw, req[r]);
			ck_assert_int_eq(req[r]->err, RC_OK);
			rc_req_free(req[r]);
		}
		for (r = 0; r < 2; r++)
			rw_unlock(rw, r + 1, 0);
		rw_settle(rw);
	}
	v = lw[RMA_DL_LOCK];
	ck_assert_uint_eq(v & guards, 0);
	ck_assert_uint_eq(rma_dl_field(v, RMA_DL_NEXT), 7);
	ck_assert_uint_eq(rma_dl_field(v, RMA_DL_WRITE), 7);
	ck_assert_uint_eq(rma_dl_field(v, RMA_DL_READ), 7);
	/* 4 shared epochs, 5 atomics each, and the polls of a waiter that
	 * found the other's ticket ahead of it: at least */
	ck_assert_uint_ge(rdma_delta(rw, &last), 4 * 5);
out:
	rw_close(rw);
}
END_TEST

/* compare_and_swap: one winner per round */
START_TEST(cas_one_winner)
{
	int flavor = FLAVOR_OF(_i), n = 4, r, round, winners;
	struct rw *rw = rw_open(n, _i, flavor, 64, 1);
	long cmp, val, res[NMAX];

	fence_all(rw, 0);
	for (round = 0; round < 5; round++) {
		*(long *)rw->mem[2 % n] = round * 100;
		fence_all(rw, 0);
		for (r = 0; r < n; r++) {
			cmp = round * 100;
			val = round * 100 + r + 1;
			ck_assert_int_eq(MPI_Compare_and_swap(
					&val, &cmp, &res[r], MPI_LONG, 2 % n,
					rw_disp(rw, 2 % n, 0, 1), rw->w[r]),
					 MPI_SUCCESS);
		}
		fence_all(rw, 0);
		for (r = 0, winners = 0; r < n; r++)
			if (res[r] == round * 100) {
				winners++;
				ck_assert_int_eq(*(long *)rw->mem[2 % n],
						 round * 100 + r + 1);
			} else {
				ck_assert_int_eq(res[r],
						 *(long *)rw->mem[2 % n]);
			}
		ck_assert_int_eq(winners, 1);
	}
	rw_close(rw);
}
END_TEST

/* ---- post/start/complete/wait -----------------------------------------------
 * A ring: rank r exposes its window to r - 1 and accesses r + 1; with and
 * without MPI_MODE_NOCHECK (posts all made before any start), waiting with
 * MPI_Win_wait or polling MPI_Win_test (on an oversubscribed node: each
 * MPI_Win_test that finds the epoch open yields the CPU).
 */
START_TEST(pscw_ring)
{
	int flavor = FLAVOR_OF(_i), n = 4, r, iter;
	struct rw *rw = rw_open(n, _i, flavor, 64 + 8000, 1);
	struct rc_req *req[NMAX];
	static char buf[NMAX][8000];	/* in use until complete */
	static int val[NMAX];		/* the same */

	for (iter = 0; iter < 6; iter++) {
		int nocheck = iter % 2 ? MPI_MODE_NOCHECK : 0;

		for (r = 0; r < n; r++) {
			int from = (r + n - 1) % n;

			ck_assert_int_eq(rc_win_post(rw->w[r], &from, 1,
						     nocheck), RC_OK);
		}
		for (r = 0; r < n; r++) {
			int to = (r + 1) % n;

			ck_assert_int_eq(rc_win_start_start(rw->w[r], &to, 1,
							    nocheck, &req[r]),
					 RC_OK);
		}
		wait_each(rw->tw, req, n, NULL);
		for (r = 0; r < n; r++) {
			int to = (r + 1) % n, v = iter * 10 + r;

			memset(buf[r], v, sizeof(buf[r]));
			val[r] = v;
			ck_assert_int_eq(MPI_Put(&val[r], 1, MPI_INT, to,
						 rw_disp(rw, to, 0, 1), 1,
						 MPI_INT, rw->w[r]),
					 MPI_SUCCESS);
			ck_assert_int_eq(MPI_Put(buf[r], sizeof(buf[r]),
						 MPI_BYTE, to,
						 rw_disp(rw, to, 64, 1),
						 sizeof(buf[r]), MPI_BYTE,
						 rw->w[r]),
					 MPI_SUCCESS);
			/* outside the start group */
			if (n > 2)
				ck_assert_int_eq(
					MPI_Put(&v, 1, MPI_INT, (r + 2) % n,
						rw_disp(rw, (r + 2) % n, 0, 1),
						1, MPI_INT, rw->w[r]),
					MPI_ERR_RMA_SYNC);
			ck_assert_int_eq(rc_win_complete_start(rw->w[r],
							       &req[r]),
					 RC_OK);
		}
		wait_each(rw->tw, req, n, NULL);
		for (r = 0; r < n; r++) {
			if (iter % 3 == 2) {
				int flag = 0, err;
				unsigned long spins = 0;
				unsigned y;

				rw->w[r]->inst->oversubscribed = true;
				for (;;) {
					y = test_nyield;
					flag = rc_win_test(rw->w[r], &err);
					ck_assert_uint_eq(test_nyield,
							  y + !flag);
					if (flag)
						break;
					tw_progress(rw->tw);
					ck_assert(++spins < 1000000);
				}
				rw->w[r]->inst->oversubscribed = false;
				ck_assert_int_eq(err, RC_OK);
				req[r] = NULL;
			} else {
				ck_assert_int_eq(rc_win_wait_start(rw->w[r],
								   &req[r]),
						 RC_OK);
			}
		}
		wait_each(rw->tw, req, n, NULL);
		for (r = 0; r < n; r++) {
			int from = (r + n - 1) % n;

			ck_assert_int_eq(*(int *)rw->mem[r], iter * 10 + from);
			ck_assert_int_eq((unsigned char)rw->mem[r][64 + 7999],
					 (unsigned char)(iter * 10 + from));
		}
	}
	rw_close(rw);
}
END_TEST

/* ---- passive target: lock_all, flushes, gets under shared locks ---------- */
START_TEST(passive_flushes)
{
	int flavor = FLAVOR_OF(_i), n = 3, r, t, i;
	struct rw *rw = rw_open(n, _i, flavor, 3 * 6000, 1);
	struct rc_req *req[NMAX];
	unsigned char out[NMAX][6000], in[NMAX][6000];

	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_win_lock_start(rw->w[r], MPI_LOCK_SHARED,
						   -1, _i % 2 ? MPI_MODE_NOCHECK
							      : 0, &req[r]),
				 RC_OK);
	wait_each(rw->tw, req, n, NULL);
	for (r = 0; r < n; r++) {
		for (i = 0; i < 6000; i++)
			out[r][i] = pat(r, 5, (size_t)i);
		for (t = 0; t < n; t++)
			ck_assert_int_eq(MPI_Put(out[r], 6000, MPI_BYTE, t,
						 rw_disp(rw, t,
							 (size_t)r * 6000, 1),
						 6000, MPI_BYTE, rw->w[r]),
					 MPI_SUCCESS);
		/* local completion: the buffer may change */
		ck_assert_int_eq(rc_win_flush_start(rw->w[r], -1, true,
						    &req[r]), RC_OK);
	}
	wait_each(rw->tw, req, n, NULL);
	for (r = 0; r < n; r++) {
		memset(out[r], 0xee, sizeof(out[r]));
		ck_assert_int_eq(rc_win_flush_start(rw->w[r], -1, false,
						    &req[r]), RC_OK);
	}
	wait_each(rw->tw, req, n, NULL);
	/* remotely complete: everybody reads everybody's region */
	for (r = 0; r < n; r++) {
		t = (r + 1) % n;
		ck_assert_int_eq(MPI_Get(in[r], 6000, MPI_BYTE, t,
					 rw_disp(rw, t, (size_t)((r + 2) % n) *
								6000, 1),
					 6000, MPI_BYTE, rw->w[r]),
				 MPI_SUCCESS);
		ck_assert_int_eq(rc_win_flush_start(rw->w[r], t, true, &req[r]),
				 RC_OK);
	}
	wait_each(rw->tw, req, n, NULL);
	for (r = 0; r < n; r++)
		ck_assert_int_eq(bad_pat(in[r], 6000, (r + 2) % n, 5), -1);
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_win_unlock_start(rw->w[r], -1, &req[r]),
				 RC_OK);
	wait_each(rw->tw, req, n, NULL);
	rw_close(rw);
}
END_TEST

/* A flush where only direct operations (RDMA, device atomics) are
 * outstanding waits for their completions in the call, without a machine
 * (rc_win_flush_direct); after an operation sent as a message, which needs
 * the target's acknowledgement, it leaves the flush to the machine. */
START_TEST(flush_direct)
{
	struct rw *rw = rw_open(2, 6 * NFLAVORS, MPI_WIN_FLAVOR_CREATE, 64, 1);
	struct rc_rma *rma = rma_of(rw->tw->inst[0]);
	struct rc_req *req[NMAX] = {NULL};
	long long v = 7, one = 1, old = -1;
	long long *mem = (long long *)rw->mem[1];
	int two = 2;
	int ret = -1;

	ck_assert_int_eq(rc_win_lock_start(rw->w[0], MPI_LOCK_SHARED, 1,
					   MPI_MODE_NOCHECK, &req[0]),
			 RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	*(int *)&mem[2] = 3;
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_LONG_LONG, 1, rw_disp(rw, 1, 0, 1),
				 1, MPI_LONG_LONG, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 1,
					  rw_disp(rw, 1, 8, 1), MPI_SUM,
					  rw->w[0]),
			 MPI_SUCCESS);
	ck_assert(!rma_local_done(rw->w[0], 1)); /* (the fabric's queue) */
	ck_assert(rc_win_flush_direct(rw->w[0], 1, &ret));
	ck_assert_int_eq(ret, RC_OK);
	ck_assert(rc_list_empty(&rma->syncs));
	ck_assert_int_eq(mem[0], 7);
	ck_assert_int_eq(mem[1], 1);
	ck_assert_int_eq(old, 0);
	/* a 4-byte integer is not the device's: a message to the target */
	ck_assert_int_eq(MPI_Accumulate(&two, 1, MPI_INT, 1,
					rw_disp(rw, 1, 16, 1), 1, MPI_INT,
					MPI_PROD, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert(!rc_win_flush_direct(rw->w[0], 1, &ret));
	ck_assert_int_eq(rc_win_flush_start(rw->w[0], 1, false, &req[0]),
			 RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	ck_assert_int_eq(*(int *)&mem[2], 6);
	ck_assert_int_eq(rc_win_unlock_start(rw->w[0], 1, &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	rw_close(rw);
}
END_TEST

/* The flush's wait polls only the device's transport most turns; every
 * few turns it runs the whole engine, which retries what waits for room
 * (rma->rooms). Here the fabric refuses every third atomic: an element
 * of a two-element accumulate that the device refused waits for room,
 * and the flush still ends in the call with every sum in. */
START_TEST(flush_direct_room)
{
	struct rw *rw =
		rw_open(2, 6 * NFLAVORS + 2, MPI_WIN_FLAVOR_CREATE, 64, 1);
	struct rc_req *req[NMAX] = {NULL};
	long long two[2] = {1, 10};
	long long *mem = (long long *)rw->mem[1];
	int i, ret = -1;

	ck_assert_int_eq(rc_win_lock_start(rw->w[0], MPI_LOCK_SHARED, 1,
					   MPI_MODE_NOCHECK, &req[0]),
			 RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(MPI_Accumulate(two, 2, MPI_LONG_LONG, 1,
						rw_disp(rw, 1, 0, 1), 2,
						MPI_LONG_LONG, MPI_SUM,
						rw->w[0]),
				 MPI_SUCCESS);
	ck_assert(!rc_list_empty(&rma_of(rw->tw->inst[0])->rooms));
	ck_assert(rc_win_flush_direct(rw->w[0], 1, &ret));
	ck_assert_int_eq(ret, RC_OK);
	ck_assert(rc_list_empty(&rma_of(rw->tw->inst[0])->rooms));
	ck_assert_int_eq(mem[0], 4);
	ck_assert_int_eq(mem[1], 40);
	ck_assert_int_eq(rc_win_unlock_start(rw->w[0], 1, &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	rw_close(rw);
}
END_TEST

/* One-element device atomics (fetch_and_op SUM and NO_OP, accumulate
 * SUM, compare_and_swap) go straight to the transport, their block never
 * queued at the target (rc_rma_word from MPI_Fetch_and_op and
 * MPI_Compare_and_swap, atomic_one from accumulate); the results land,
 * into a misaligned buffer too; the word path reports what the general
 * path would; an op the device has not (PROD) takes the general path, and
 * a SUM after it waits behind it. */
START_TEST(atomic_one)
{
	struct rw *rw = rw_open(2, 6 * NFLAVORS, MPI_WIN_FLAVOR_CREATE, 64, 1);
	struct rma_target *tg = &rw->w[0]->tg[1];
	struct rc_req *req[NMAX] = {NULL};
	long long one = 1, five = 5, old = -1, nv = 9, cmpv = 6, three = 3;
	long long *mem = (long long *)rw->mem[1];
	char odd[16];
	int ret;

	/* the word path's checks are the general path's */
	ck_assert_int_eq(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 1, 8,
					  MPI_SUM, rw->w[0]),
			 MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(rc_win_lock_start(rw->w[0], MPI_LOCK_SHARED, 1,
					   MPI_MODE_NOCHECK, &req[0]),
			 RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	ck_assert_int_eq(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 1, 64,
					  MPI_SUM, rw->w[0]),
			 MPI_ERR_RMA_RANGE);
	ck_assert_int_eq(MPI_Compare_and_swap(&one, &five, &old, MPI_LONG_LONG,
					      1, 60, rw->w[0]),
			 MPI_ERR_RMA_RANGE);
	ck_assert_int_eq(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 2, 8,
					  MPI_SUM, rw->w[0]),
			 MPI_ERR_RANK);
	ck_assert_int_eq(MPI_Fetch_and_op(&one, NULL, MPI_LONG_LONG, 1, 8,
					  MPI_SUM, rw->w[0]),
			 MPI_ERR_BUFFER);
	ck_assert_int_eq(old, -1);
	ck_assert(rc_list_empty(&tg->aq));
	ck_assert_uint_eq(tg->nout, 0);
#define FLUSH()                                                    \
	do {                                                       \
		ck_assert(rc_win_flush_direct(rw->w[0], 1, &ret)); \
		ck_assert_int_eq(ret, RC_OK);                      \
	} while (0)
	ck_assert_int_eq(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 1, 8,
					  MPI_SUM, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert(rc_list_empty(&tg->aq));
	ck_assert_uint_eq(tg->nout, 1);
	FLUSH();
	ck_assert_int_eq(old, 0);
	ck_assert_int_eq(mem[1], 1);
	ck_assert_int_eq(MPI_Accumulate(&five, 1, MPI_LONG_LONG, 1, 8, 1,
					MPI_LONG_LONG, MPI_SUM, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert(rc_list_empty(&tg->aq));
	FLUSH();
	ck_assert_int_eq(mem[1], 6);
	ck_assert_int_eq(MPI_Fetch_and_op(NULL, odd + 1, MPI_LONG_LONG, 1, 8,
					  MPI_NO_OP, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert(rc_list_empty(&tg->aq));
	FLUSH();
	memcpy(&old, odd + 1, 8);
	ck_assert_int_eq(old, 6);
	ck_assert_int_eq(MPI_Compare_and_swap(&nv, &cmpv, &old, MPI_LONG_LONG,
					      1, 8, rw->w[0]),
			 MPI_SUCCESS);
	FLUSH();
	ck_assert_int_eq(old, 6);
	ck_assert_int_eq(mem[1], 9);
	ck_assert_int_eq(MPI_Compare_and_swap(&one, &cmpv, &old, MPI_LONG_LONG,
					      1, 8, rw->w[0]),
			 MPI_SUCCESS);
	FLUSH();
	ck_assert_int_eq(old, 9);
	ck_assert_int_eq(mem[1], 9);
	/* PROD: a read and a compare-and-swap loop, queued */
	ck_assert_int_eq(MPI_Fetch_and_op(&three, &old, MPI_LONG_LONG, 1, 8,
					  MPI_PROD, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert(!rc_list_empty(&tg->aq));
	/* a SUM behind it waits in the queue too: it sees the product */
	ck_assert_int_eq(MPI_Fetch_and_op(&one, &nv, MPI_LONG_LONG, 1, 8,
					  MPI_SUM, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_uint_eq(tg->nout, 2);
	FLUSH();
	ck_assert(rc_list_empty(&tg->aq));
	ck_assert_int_eq(old, 9);
	ck_assert_int_eq(nv, 27);
	ck_assert_int_eq(mem[1], 28);
#undef FLUSH
	ck_assert_int_eq(rc_win_unlock_start(rw->w[0], 1, &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	rw_close(rw);
}
END_TEST

/* The target's queue: a waiting exclusive request is not overtaken by
 * shared ones that come after it; shared ones in a row go together. */
/*
 * A wait for a device lock past rma_dl_tell_after is reported once, on
 * stderr, with the ticket and the lock word's counters as last read
 * (dlock.c dl_tell): rank 1 holds the exclusive lock at rank 0, rank 2
 * waits behind it with the threshold at 0 s.
 */
START_TEST(lock_wait_told)
{
	struct rw *rw = rw_open(3, _i, FLAVOR_OF(_i), 64, 1);
	char path[] = "/tmp/rc_told_XXXXXX", buf[4096];
	const double keep = rma_dl_tell_after;
	const char *p;
	struct rc_req *req[2];
	int fd, saved, k, told = 0;
	ssize_t n;

	if (!rw->w[0]->dev_atomic)
		goto out;
	req[0] = rw_lock(rw, 1, MPI_LOCK_EXCLUSIVE, 0);
	tw_wait(rw->tw, req[0]);
	ck_assert_int_eq(req[0]->err, RC_OK);
	rc_req_free(req[0]);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	saved = dup(STDERR_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
	rma_dl_tell_after = 0;
	req[1] = rw_lock(rw, 2, MPI_LOCK_EXCLUSIVE, 0);
	for (k = 0; k < 2000; k++)
		tw_progress(rw->tw);
	rma_dl_tell_after = keep;
	dup2(saved, STDERR_FILENO);
	close(saved);
	ck_assert(!rc_req_done(req[1]));
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	ck_assert_int_gt(n, 0);
	buf[n] = 0;
	ck_assert_msg(strstr(buf, "for the exclusive lock at rank 0: "
				  "ticket 1; the lock word as last read: "),
		      "%s", buf);
	ck_assert_msg(strstr(buf, ", write 0, read 0;"), "%s", buf);
	for (p = buf; (p = strstr(p, "waiting")); p++)
		told++;
	ck_assert_int_eq(told, 1);
	/* and the wait ends as before */
	rw_unlock(rw, 1, 0);
	tw_wait(rw->tw, req[1]);
	ck_assert_int_eq(req[1]->err, RC_OK);
	rc_req_free(req[1]);
	rw_unlock(rw, 2, 0);
	rw_settle(rw);
out:
	rw_close(rw);
}
END_TEST

START_TEST(lock_queue_fair)
{
	struct rw *rw = rw_open(4, _i, FLAVOR_OF(_i), 64, 1);
	struct rc_req *r1, *r2, *r3;

	r1 = rw_lock(rw, 1, MPI_LOCK_SHARED, 0);
	tw_wait(rw->tw, r1);
	r2 = rw_lock(rw, 2, MPI_LOCK_EXCLUSIVE, 0);
	rw_settle(rw);
	r3 = rw_lock(rw, 3, MPI_LOCK_SHARED, 0);
	rw_settle(rw);
	ck_assert(!rc_req_done(r2));
	ck_assert(!rc_req_done(r3));	/* behind the exclusive waiter */
	rw_unlock(rw, 1, 0);
	tw_wait(rw->tw, r2);
	rw_settle(rw);
	ck_assert(!rc_req_done(r3));
	rw_unlock(rw, 2, 0);
	tw_wait(rw->tw, r3);
	rw_unlock(rw, 3, 0);
	rc_req_free(r1);
	rc_req_free(r2);
	rc_req_free(r3);
	rw_close(rw);
}
END_TEST

/* ---- request-based operations -------------------------------------------- */
START_TEST(request_ops)
{
	int flavor = FLAVOR_OF(_i);
	struct rw *rw = rw_open(2, _i, flavor, 40000, 8);
	struct rc_req *req[2];
	MPI_Request rq[6];
	long a[4000], b[4000], c[4000], one = 1, old = -1;
	int i;

	for (i = 0; i < 4000; i++)
		a[i] = i;
	ck_assert_int_eq(rc_win_lock_start(rw->w[0], MPI_LOCK_EXCLUSIVE, 1, 0,
					   &req[0]), RC_OK);
	req[1] = NULL;
	wait_each(rw->tw, req, 1, NULL);
	ck_assert_int_eq(MPI_Rput(a, 4000, MPI_LONG, 1, rw_disp(rw, 1, 0, 8),
				  4000, MPI_LONG, rw->w[0], &rq[0]),
			 MPI_SUCCESS);
	/* a put and an accumulate on one location conflict unless a flush
	 * separates them (the put may go direct, the accumulate never) */
	ck_assert_int_eq(rc_win_flush_start(rw->w[0], 1, false, &req[0]),
			 RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	ck_assert(rc_req_done(rq[0]));
	ck_assert_int_eq(MPI_Raccumulate(a, 4000, MPI_LONG, 1,
					 rw_disp(rw, 1, 0, 8), 4000, MPI_LONG,
					 MPI_SUM, rw->w[0], &rq[1]),
			 MPI_SUCCESS);
	/* ordered after it: an accumulate-class read */
	ck_assert_int_eq(MPI_Rget_accumulate(NULL, 0, MPI_LONG, b, 4000,
					     MPI_LONG, 1, rw_disp(rw, 1, 0, 8),
					     4000, MPI_LONG, MPI_NO_OP,
					     rw->w[0], &rq[2]),
			 MPI_SUCCESS);
	/* (not on what the get reads: a get and an accumulate on one
	 * location in one epoch conflict) */
	((long *)rw->mem[1])[4500] = 77;
	ck_assert_int_eq(MPI_Rget_accumulate(&one, 1, MPI_LONG, &old, 1,
					     MPI_LONG, 1,
					     rw_disp(rw, 1, 8 * 4500, 8), 1,
					     MPI_LONG, MPI_SUM, rw->w[0],
					     &rq[3]),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Rget(c, 4000, MPI_LONG, MPI_PROC_NULL, 0, 4000,
				  MPI_LONG, rw->w[0], &rq[4]),
			 MPI_SUCCESS);
	ck_assert(rc_req_done(rq[4]));
	for (i = 0; i < 4; i++)
		tw_wait(rw->tw, rq[i]);
	for (i = 0; i < 5; i++) {
		ck_assert_int_eq(rq[i]->err, RC_OK);
		rc_req_finish(&rq[i], MPI_STATUS_IGNORE);
	}
	/* results of ordered operations from one origin */
	for (i = 0; i < 4000; i++)
		ck_assert_int_eq(b[i], 2 * i);
	ck_assert_int_eq(old, 77);
	ck_assert_int_eq(rc_win_unlock_start(rw->w[0], 1, &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	ck_assert_int_eq(((long *)rw->mem[1])[4500], 78);
	rw_close(rw);
}
END_TEST

/* ---- shared windows: load/store, layout ---------------------------------- */
START_TEST(shared_layout)
{
	struct rw *rw;
	struct rc_req *req[NMAX];
	struct rc_win_args a;
	struct rc_win *w[NMAX];
	int n = 4, r;
	size_t sizes[] = { 100, 0, 4097, 3 };
	struct tw *tw = rw_world(n, 0);

	for (r = 0; r < n; r++) {
		memset(&a, 0, sizeof(a));
		a.flavor = MPI_WIN_FLAVOR_SHARED;
		a.size = sizes[r];
		a.disp_unit = 1;
		a.info = _i ? RC_WIN_NONCONTIG : 0;
		ck_assert_int_eq(rc_win_create_start(tw->inst[r]->world, &a,
						     &w[r], &req[r]), RC_OK);
	}
	wait_each(tw, req, n, NULL);
	for (r = 0; r < n; r++) {
		int t;

		for (t = 0; t < n; t++) {
			/* every rank maps every part at the same offsets */
			ck_assert_int_eq(w[r]->tg[t].local - w[r]->tg[0].local,
					 w[0]->tg[t].local - w[0]->tg[0].local);
			ck_assert_uint_eq(w[r]->tg[t].size, sizes[t]);
			if (t && !_i)	/* contiguous */
				ck_assert_ptr_eq(w[r]->tg[t].local,
						 w[r]->tg[t - 1].local +
							 sizes[t - 1]);
			if (_i)
				ck_assert_int_eq((uintptr_t)w[r]->tg[t].local %
							 4096, 0);
		}
		ck_assert_ptr_eq(rc_win_base(w[r]), w[r]->tg[r].local);
	}
	/* a store through one mapping is seen through another */
	w[1]->tg[2].local[4096] = 42;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ck_assert_int_eq(((char *)rc_win_base(w[2]))[4096], 42);
	ck_assert_int_eq(w[3]->tg[2].local[4096], 42);
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_win_free_start(w[r], &req[r]), RC_OK);
	wait_each(tw, req, n, NULL);
	tw_free(tw);
	rc_g.initialized = false;
	(void)rw;
}
END_TEST

/* MPI_Win_allocate where one member does not see another on its node:
 * every member falls back to private memory and active messages alike
 * (cr_no_seg: also where the segment cannot be made), and the window
 * works. */
START_TEST(allocate_fallback)
{
	struct rc_req *req[NMAX];
	struct rc_win_args a;
	struct rc_win *w[NMAX];
	int n = 3, r, v[NMAX], got[NMAX];
	struct tw *tw = rw_world(n, 0);

	tw->inst[1]->procs[tw->inst[2]->rank].local = false;
	for (r = 0; r < n; r++) {
		memset(&a, 0, sizeof(a));
		a.flavor = MPI_WIN_FLAVOR_ALLOCATE;
		a.size = 64;
		a.disp_unit = 4;
		a.acc_order = RC_ACC_ALL;
		ck_assert_int_eq(rc_win_create_start(tw->inst[r]->world, &a,
						     &w[r], &req[r]),
				 RC_OK);
	}
	wait_each(tw, req, n, NULL);
	for (r = 0; r < n; r++) {
		ck_assert(!w[r]->shm_path);
		ck_assert_ptr_null(w[r]->shm);
		ck_assert_ptr_nonnull(w[r]->mem);
		w[r]->comm->errh = &rc_mpi_errors_return;
	}
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_win_fence_start(w[r], 0, &req[r]), RC_OK);
	wait_each(tw, req, n, NULL);
	for (r = 0; r < n; r++) {
		v[r] = 100 + r;
		ck_assert_int_eq(MPI_Put(&v[r], 1, MPI_INT, (r + 1) % n, r, 1,
					 MPI_INT, w[r]),
				 MPI_SUCCESS);
	}
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_win_fence_start(w[r], 0, &req[r]), RC_OK);
	wait_each(tw, req, n, NULL);
	for (r = 0; r < n; r++) {
		ck_assert_int_eq(((int *)rc_win_base(w[(r + 1) % n]))[r],
				 100 + r);
		ck_assert_int_eq(MPI_Get(&got[r], 1, MPI_INT, (r + 1) % n, r, 1,
					 MPI_INT, w[r]),
				 MPI_SUCCESS);
	}
	for (r = 0; r < n; r++)
		ck_assert_int_eq(
			rc_win_fence_start(w[r], MPI_MODE_NOSUCCEED, &req[r]),
			RC_OK);
	wait_each(tw, req, n, NULL);
	for (r = 0; r < n; r++) {
		ck_assert_int_eq(got[r], 100 + r);
		ck_assert_int_eq(rc_win_free_start(w[r], &req[r]), RC_OK);
	}
	wait_each(tw, req, n, NULL);
	tw_free(tw);
	rc_g.initialized = false;
}
END_TEST

/* Zero-size windows, MPI_PROC_NULL targets, disp_unit scaling. */
START_TEST(zero_and_proc_null)
{
	int flavor = FLAVOR_OF(_i);
	struct rw *rw = rw_open(2, _i, flavor, 0, 4);
	struct rc_dtype *empty;
	int v = 5, got = 7;
	MPI_Request rq;

	fence_all(rw, 0);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT,
				 rw->w[0]), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Get(&got, 1, MPI_INT, MPI_PROC_NULL, 0, 1,
				 MPI_INT, rw->w[0]), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Rput(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT,
				  rw->w[0], &rq), MPI_SUCCESS);
	ck_assert(rc_req_done(rq));
	rc_req_finish(&rq, MPI_STATUS_IGNORE);
	/* nothing to move: fine even at a zero-size window, and empty
	 * signatures match whatever the types (no buffer needed); a
	 * zero-size type's count does not matter */
	ck_assert_int_eq(MPI_Put(&v, 0, MPI_INT, 1, 0, 0, MPI_INT, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_int_eq(rc_dt_create_contig(0, &rc_mpi_int, &empty), RC_OK);
	rc_dt_commit(empty);
	ck_assert_int_eq(MPI_Accumulate(NULL, 0, MPI_INT, 1, 0, 0, MPI_DOUBLE,
					MPI_SUM, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Accumulate(&v, 2, empty, 1, 0, 0, MPI_DOUBLE,
					MPI_SUM, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Accumulate(NULL, 0, MPI_DOUBLE, 1, 0, 3, empty,
					MPI_SUM, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Get_accumulate(&v, 1, empty, NULL, 0, MPI_INT, 1,
					    0, 2, empty, MPI_SUM, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Get(&got, 1, empty, 1, 0, 0, MPI_DOUBLE, rw->w[0]),
			 MPI_SUCCESS);
	/* data on one side only: the signatures differ */
	ck_assert_int_eq(MPI_Accumulate(&v, 1, MPI_INT, 1, 0, 4, empty, MPI_SUM,
					rw->w[0]),
			 MPI_ERR_TYPE);
	rc_dt_release(empty);
	if (flavor != MPI_WIN_FLAVOR_DYNAMIC)
		ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT,
					 rw->w[0]), MPI_ERR_RMA_RANGE);
	fence_all(rw, 0);
	ck_assert_int_eq(got, 7);
	rw_close(rw);
	/* disp_unit 4: displacement 3 is byte 12 */
	if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
		return;
	rw = rw_open(2, _i, flavor, 16, 4);
	fence_all(rw, 0);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 1, 3, 1, MPI_INT, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 1, 4, 1, MPI_INT, rw->w[0]),
			 MPI_ERR_RMA_RANGE);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 1, -1, 1, MPI_INT, rw->w[0]),
			 MPI_ERR_RMA_RANGE);
	fence_all(rw, 0);
	ck_assert_int_eq(((int *)rw->mem[1])[3], 5);
	rw_close(rw);
}
END_TEST


/* ---- wrong synchronisation ----------------------------------------------- */
START_TEST(errors_sync)
{
	int flavor = flavors[_i], n = 3, r, v = 1, errs[NMAX];
	struct rw *rw = rw_open(n, 0, flavor, 64, 1);
	struct rc_req *req[NMAX];
	struct rc_win *w = rw->w[0];
	MPI_Group g;

	ck_assert_int_eq(MPI_Win_get_group(w, &g), MPI_SUCCESS);
	/* no epoch at all */
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, w),
			 MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_unlock(1, w), MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_unlock_all(w), MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_flush(1, w), MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_flush_local_all(w), MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_complete(w), MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_wait(w), MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_test(w, &v), MPI_ERR_RMA_SYNC);
	/* a fence epoch with operations: no lock, no start */
	fence_all(rw, 0);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 1, rw_disp(rw, 1, 0, 1), 1,
				 MPI_INT, w), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w),
			 MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_lock_all(0, w), MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_start(g, 0, w), MPI_ERR_RMA_SYNC);
	fence_all(rw, MPI_MODE_NOSUCCEED);
	/* NOSUCCEED closed it */
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 1, rw_disp(rw, 1, 0, 1), 1,
				 MPI_INT, w), MPI_ERR_RMA_SYNC);
	/* a lock epoch: no fence, no second lock on the target, no
	 * lock_all, no access to other targets */
	ck_assert_int_eq(rc_win_lock_start(w, MPI_LOCK_SHARED, 1, 0, &req[0]),
			 RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	ck_assert_int_eq(MPI_Win_fence(0, w), MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w),
			 MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_lock_all(0, w), MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 2, rw_disp(rw, 2, 0, 1), 1,
				 MPI_INT, w), MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_flush(2, w), MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_unlock(2, w), MPI_ERR_RMA_SYNC);
	/* freeing with the lock still held: every rank is told, nobody
	 * hangs, the window lives on */
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_win_free_start(rw->w[r], &req[r]), RC_OK);
	wait_each(rw->tw, req, n, errs);
	for (r = 0; r < n; r++) {
		ck_assert_int_eq(errs[r], RC_ERR_RMA_SYNC);
		ck_assert(rc_win_valid(rw->w[r]));
	}
	ck_assert_int_eq(rc_win_unlock_start(w, 1, &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	/* exposure: posting twice, freeing while exposed */
	ck_assert_int_eq(MPI_Win_post(g, 0, rw->w[1]), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Win_post(g, 0, rw->w[1]), MPI_ERR_RMA_SYNC);
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_win_free_start(rw->w[r], &req[r]), RC_OK);
	wait_each(rw->tw, req, n, errs);
	for (r = 0; r < n; r++)
		ck_assert_int_eq(errs[r], RC_ERR_RMA_SYNC);
	/* end that epoch: every member of the group starts and completes */
	for (r = 0; r < n; r++) {
		int one = 1;

		ck_assert_int_eq(rc_win_start_start(rw->w[r], &one, 1, 0,
						    &req[r]), RC_OK);
	}
	wait_each(rw->tw, req, n, NULL);
	for (r = 0; r < n; r++)
		ck_assert_int_eq(rc_win_complete_start(rw->w[r], &req[r]),
				 RC_OK);
	wait_each(rw->tw, req, n, NULL);
	ck_assert_int_eq(rc_win_wait_start(rw->w[1], &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	MPI_Group_free(&g);
	rw_close(rw);
}
END_TEST

static void user_op(void *in, void *io, int *len, MPI_Datatype *dt)
{
}

/* ---- bad arguments ------------------------------------------------------- */
START_TEST(errors_args)
{
	int flavor = flavors[_i];
	struct rw *rw = rw_open(2, 0, flavor, 64, 1);
	struct rc_win *w = rw->w[0];
	struct rc_dtype *unc, *mixed, *vec;
	struct rc_op *uop;
	int v = 1, res, blen[2] = { 1, 1 };
	MPI_Aint disp[2] = { 0, 8 }, size;
	struct rc_dtype *types[2] = { &rc_mpi_int, &rc_mpi_double };
	double d = 1.0;
	void *p;
	char buf[64];

	ck_assert_int_eq(rc_dt_create_contig(2, &rc_mpi_int, &unc), RC_OK);
	ck_assert_int_eq(rc_dt_create_struct(2, blen, disp, types, &mixed),
			 RC_OK);
	rc_dt_commit(mixed);
	vec = vec_int(2, 2);
	ck_assert_int_eq(rc_op_create(user_op, 1, &uop), RC_OK);
	fence_all(rw, 0);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 2, 0, 1, MPI_INT, w),
			 MPI_ERR_RANK);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, -5, 0, 1, MPI_INT, w),
			 MPI_ERR_RANK);
	ck_assert_int_eq(MPI_Put(&v, -1, MPI_INT, 1, 0, 1, MPI_INT, w),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Get(&v, 1, MPI_INT, 1, 0, -1, MPI_INT, w),
			 MPI_ERR_COUNT);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 1, 0, 2, MPI_INT, w),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Put(&v, 1, unc, 1, 0, 1, unc, w), MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_DATATYPE_NULL, 1, 0, 1, MPI_INT, w),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Accumulate(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, uop,
					w), MPI_ERR_OP);
	ck_assert_int_eq(MPI_Accumulate(&v, 1, MPI_INT, 1, 0, 1, MPI_INT,
					MPI_NO_OP, w), MPI_ERR_OP);
	ck_assert_int_eq(MPI_Accumulate(&d, 1, MPI_DOUBLE, 1, 0, 1,
					MPI_DOUBLE, MPI_BAND, w), MPI_ERR_OP);
	ck_assert_int_eq(MPI_Accumulate(&v, 1, MPI_INT, 1, 0, 1, MPI_UNSIGNED,
					MPI_SUM, w), MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Accumulate(buf, 1, mixed, 1, 0, 1, mixed,
					MPI_REPLACE, w), MPI_ERR_TYPE);
	/* (MPI_ERR_WIN goes to MPI_COMM_WORLD's handler: test/jobs) */
	ck_assert_int_eq(MPI_Get_accumulate(&v, 1, MPI_INT, &res, 2, MPI_INT,
					    1, 0, 1, MPI_INT, MPI_SUM, w),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Fetch_and_op(&v, &res, vec, 1, 0, MPI_SUM, w),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Compare_and_swap(&d, &d, &d, MPI_DOUBLE, 1, 0, w),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Compare_and_swap(&v, &v, &res, MPI_INT, 1,
					      rw_disp(rw, 1, 0, 1), w),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Win_fence(MPI_MODE_NOCHECK, w), MPI_ERR_ASSERT);
	ck_assert_int_eq(MPI_Win_lock(7, 1, 0, w), MPI_ERR_LOCKTYPE);
	ck_assert_int_eq(MPI_Win_lock(MPI_LOCK_SHARED, 1, MPI_MODE_NOPUT, w),
			 MPI_ERR_ASSERT);
	ck_assert_int_eq(MPI_Win_lock(MPI_LOCK_SHARED, 9, 0, w), MPI_ERR_RANK);
	ck_assert_int_eq(MPI_Win_start(MPI_GROUP_EMPTY, MPI_MODE_NOSTORE, w),
			 MPI_ERR_ASSERT);
	ck_assert_int_eq(MPI_Win_post(MPI_GROUP_NULL, 0, w), MPI_ERR_GROUP);
	if (flavor != MPI_WIN_FLAVOR_DYNAMIC) {
		ck_assert_int_eq(MPI_Win_attach(w, buf, 8),
				 MPI_ERR_RMA_FLAVOR);
		ck_assert_int_eq(MPI_Win_detach(w, buf), MPI_ERR_RMA_FLAVOR);
	} else {
		ck_assert_int_eq(MPI_Win_attach(w, rw->mem[0] + 8, 8),
				 MPI_ERR_RMA_ATTACH);
		ck_assert_int_eq(MPI_Win_detach(w, buf), MPI_ERR_RMA_ATTACH);
		ck_assert_int_eq(MPI_Win_attach(w, buf, -1), MPI_ERR_SIZE);
		ck_assert_int_eq(MPI_Win_attach(w, buf, 8), MPI_SUCCESS);
		ck_assert_int_eq(MPI_Win_detach(w, buf), MPI_SUCCESS);
		/* an empty region is attached too */
		ck_assert_int_eq(MPI_Win_attach(w, buf, 0), MPI_SUCCESS);
		ck_assert_int_eq(MPI_Win_detach(w, buf), MPI_SUCCESS);
		ck_assert_int_eq(MPI_Win_detach(w, buf), MPI_ERR_RMA_ATTACH);
	}
	if (flavor != MPI_WIN_FLAVOR_SHARED) {
		ck_assert_int_eq(MPI_Win_shared_query(w, 0, &size, &v, &p),
				 MPI_ERR_RMA_FLAVOR);
	} else {
		ck_assert_int_eq(MPI_Win_shared_query(w, 1, &size, &v, &p),
				 MPI_SUCCESS);
		/* (rank 0's mapping: contiguous after its own part) */
		ck_assert_ptr_eq(p, rw->mem[0] + 64);
		ck_assert_int_eq(size, 64);
		ck_assert_int_eq(v, 1);
		ck_assert_int_eq(MPI_Win_shared_query(w, 2, &size, &v, &p),
				 MPI_ERR_RANK);
	}
	fence_all(rw, 0);
	rc_dt_release(unc);
	rc_dt_release(mixed);
	rc_dt_release(vec);
	rc_op_release(uop);
	rw_close(rw);
}
END_TEST

/* ---- dynamic windows: the target finds accesses outside its regions ------ */
START_TEST(dynamic_range_errors)
{
	struct rw *rw = rw_open(2, _i, MPI_WIN_FLAVOR_DYNAMIC, 64, 1);
	struct rc_req *req[NMAX];
	int errs[NMAX], v = 3, big[3000];
	MPI_Aint out = (MPI_Aint)(uintptr_t)(rw->mem[1] + 64);
	MPI_Request rq;
	int one = 1;

	/* fence: the put fails at the target, the origin's fence says so */
	fence_all(rw, 0);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 1, out, 1, MPI_INT, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_int_eq(rc_win_fence_start(rw->w[0], 0, &req[0]), RC_OK);
	ck_assert_int_eq(rc_win_fence_start(rw->w[1], 0, &req[1]), RC_OK);
	wait_each(rw->tw, req, 2, errs);
	ck_assert_int_eq(errs[0], RC_ERR_RMA_RANGE);
	ck_assert_int_eq(errs[1], RC_OK);
	/* a request-based get: its request fails */
	ck_assert_int_eq(MPI_Rget(big, 3000, MPI_INT, 1, out - 8, 3000,
				  MPI_INT, rw->w[0], &rq), MPI_SUCCESS);
	tw_wait(rw->tw, rq);
	ck_assert_int_eq(rq->err, RC_ERR_RMA_RANGE);
	rc_req_finish(&rq, MPI_STATUS_IGNORE);
	fence_all(rw, MPI_MODE_NOSUCCEED);
	/* a lock epoch: the unlock says so; a detached region is gone */
	ck_assert_int_eq(MPI_Win_detach(rw->w[1], rw->mem[1]), MPI_SUCCESS);
	ck_assert_int_eq(rc_win_lock_start(rw->w[0], MPI_LOCK_EXCLUSIVE, 1, 0,
					   &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	ck_assert_int_eq(MPI_Accumulate(&one, 1, MPI_INT, 1,
					(MPI_Aint)(uintptr_t)rw->mem[1], 1,
					MPI_INT, MPI_SUM, rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_int_eq(rc_win_unlock_start(rw->w[0], 1, &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, errs);
	ck_assert_int_eq(errs[0], RC_ERR_RMA_RANGE);
	/* PSCW: complete waits for the target's word on dynamic windows */
	ck_assert_int_eq(MPI_Win_attach(rw->w[1], rw->mem[1], 64), MPI_SUCCESS);
	ck_assert_int_eq(rc_win_post(rw->w[1], (int[]){ 0 }, 1, 0), RC_OK);
	ck_assert_int_eq(rc_win_start_start(rw->w[0], (int[]){ 1 }, 1, 0,
					    &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 1, out + 100, 1, MPI_INT,
				 rw->w[0]), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 1, out - 64, 1, MPI_INT,
				 rw->w[0]), MPI_SUCCESS);
	ck_assert_int_eq(rc_win_complete_start(rw->w[0], &req[0]), RC_OK);
	ck_assert_int_eq(rc_win_wait_start(rw->w[1], &req[1]), RC_OK);
	wait_each(rw->tw, req, 2, errs);
	ck_assert_int_eq(errs[0], RC_ERR_RMA_RANGE);
	ck_assert_int_eq(errs[1], RC_OK);
	ck_assert_int_eq(*(int *)rw->mem[1], 3);	/* the good one */
	rw_close(rw);
}
END_TEST

/* ---- a peer dies --------------------------------------------------------- */

/* The target of a held lock dies: operations to it and the unlock fail,
 * nothing hangs; the survivors' windows still work between them. */
START_TEST(failure_lock_target)
{
	struct rw *rw = rw_open(3, _i, FLAVOR_OF(_i), 64, 1);
	struct rc_req *req[NMAX];
	int errs[NMAX], v = 1;

	if (rw->flavor == MPI_WIN_FLAVOR_SHARED) {
		/* no messages carry data: nothing to fail but sync */
	}
	ck_assert_int_eq(rc_win_lock_start(rw->w[0], MPI_LOCK_EXCLUSIVE, 2, 0,
					   &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	tw_kill(rw->tw, 2);
	tw_quiesce(rw->tw);
	if (rw->flavor != MPI_WIN_FLAVOR_SHARED)
		ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 2,
					 rw_disp(rw, 2, 0, 1), 1, MPI_INT,
					 rw->w[0]), MPI_ERR_PROC_FAILED);
	ck_assert_int_eq(rc_win_unlock_start(rw->w[0], 2, &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, errs);
	ck_assert_int_eq(errs[0], RC_ERR_PEER);
	/* a fence with the dead rank fails on the survivors */
	ck_assert_int_eq(rc_win_fence_start(rw->w[0], 0, &req[0]), RC_OK);
	ck_assert_int_eq(rc_win_fence_start(rw->w[1], 0, &req[1]), RC_OK);
	wait_each(rw->tw, req, 2, errs);
	ck_assert_int_ne(errs[0], RC_OK);
	ck_assert_int_ne(errs[1], RC_OK);
	rw_abandon(rw);
}
END_TEST

/* The holder of an exclusive lock dies: the target gives the lock to the
 * next in its queue. An origin waiting for a reply from a target that
 * dies gets the error, in its request and from the flush. */
START_TEST(failure_lock_holder)
{
	struct rw *rw = rw_open(3, _i, FLAVOR_OF(_i), 64000, 1);
	struct rc_req *req[NMAX], *r1;
	int errs[NMAX];
	MPI_Request rq;
	static char big[64000];

	ck_assert_int_eq(rc_win_lock_start(rw->w[2], MPI_LOCK_EXCLUSIVE, 0, 0,
					   &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	ck_assert_int_eq(rc_win_lock_start(rw->w[1], MPI_LOCK_EXCLUSIVE, 0, 0,
					   &r1), RC_OK);
	rw_settle(rw);
	ck_assert(!rc_req_done(r1));
	tw_kill(rw->tw, 2);
	tw_wait(rw->tw, r1);
	ck_assert_int_eq(r1->err, RC_OK);
	rc_req_free(r1);
	ck_assert_int_eq(rc_win_unlock_start(rw->w[1], 0, &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	if (rw->w[1]->shm_path)
		goto out; /* a dead target's memory is still mapped */
	/* a large get from rank 0, which dies before it answers */
	ck_assert_int_eq(rc_win_lock_start(rw->w[1], MPI_LOCK_SHARED, 0, 0,
					   &req[0]), RC_OK);
	wait_each(rw->tw, req, 1, NULL);
	ck_assert_int_eq(MPI_Rget(big, 64000, MPI_BYTE, 0, rw_disp(rw, 0, 0, 1),
				  64000, MPI_BYTE, rw->w[1], &rq),
			 MPI_SUCCESS);
	tw_kill(rw->tw, 0);
	tw_wait(rw->tw, rq);
	ck_assert_int_eq(rq->err, RC_ERR_PEER);
	rc_req_finish(&rq, MPI_STATUS_IGNORE);
	ck_assert_int_eq(rc_win_flush_start(rw->w[1], 0, false, &req[0]),
			 RC_OK);
	wait_each(rw->tw, req, 1, errs);
	ck_assert_int_eq(errs[0], RC_ERR_PEER);
out:
	rw_abandon(rw);
}
END_TEST

/* Dead members in the queue of a lock: a shared holder that never lets
 * go, then a shared waiter that dies before its turn. The survivors get
 * the lock in order all the same (on the device's lock words: a waiter
 * releases in the dead member's place). */
START_TEST(failure_lock_shared)
{
	struct rw *rw = rw_open(4, _i, FLAVOR_OF(_i), 64, 1);
	struct rc_req *r0, *r1, *r2;

	/* rank 2 holds it shared, rank 1 waits exclusive; rank 2 dies */
	r2 = rw_lock(rw, 2, MPI_LOCK_SHARED, 0);
	tw_wait(rw->tw, r2);
	rc_req_free(r2);
	r1 = rw_lock(rw, 1, MPI_LOCK_EXCLUSIVE, 0);
	rw_settle(rw);
	ck_assert(!rc_req_done(r1));
	tw_kill(rw->tw, 2);
	tw_wait(rw->tw, r1);
	ck_assert_int_eq(r1->err, RC_OK);
	rc_req_free(r1);
	/* rank 1 holds it; rank 3 waits shared, rank 0 exclusive behind
	 * it; rank 3 dies waiting; rank 1 lets go: rank 0 gets it */
	r2 = rw_lock(rw, 3, MPI_LOCK_SHARED, 0);
	rw_settle(rw);
	r0 = rw_lock(rw, 0, MPI_LOCK_EXCLUSIVE, 0);
	rw_settle(rw);
	ck_assert(!rc_req_done(r2));
	ck_assert(!rc_req_done(r0));
	tw_kill(rw->tw, 3);
	rw_settle(rw);
	ck_assert(!rc_req_done(r0)); /* rank 1 still holds it */
	rw_unlock(rw, 1, 0);
	tw_wait(rw->tw, r0);
	ck_assert_int_eq(r0->err, RC_OK);
	rc_req_free(r0);
	rw_unlock(rw, 0, 0);
	rw_settle(rw); /* the unlock's release, which finishes in progress */
	rw_abandon(rw);
}
END_TEST

/* PSCW with a dead peer: start waiting for its post, wait waiting for
 * its complete, both end with the error. */
START_TEST(failure_pscw)
{
	struct rw *rw = rw_open(3, _i, FLAVOR_OF(_i), 64, 1);
	struct rc_req *req[NMAX];
	int errs[NMAX], g[2] = { 1, 2 };

	ck_assert_int_eq(rc_win_start_start(rw->w[0], &g[1], 1, 0, &req[0]),
			 RC_OK);
	ck_assert_int_eq(rc_win_post(rw->w[0], g, 2, 0), RC_OK);
	ck_assert_int_eq(rc_win_start_start(rw->w[1], (int[]){ 0 }, 1, 0,
					    &req[1]), RC_OK);
	tw_quiesce(rw->tw);
	ck_assert(!rc_req_done(req[0]));
	tw_kill(rw->tw, 2);
	wait_each(rw->tw, req, 2, errs);
	ck_assert_int_eq(errs[0], RC_ERR_PEER);
	ck_assert_int_eq(errs[1], RC_OK);
	ck_assert_int_eq(rc_win_complete_start(rw->w[1], &req[1]), RC_OK);
	ck_assert_int_eq(rc_win_wait_start(rw->w[0], &req[0]), RC_OK);
	wait_each(rw->tw, req, 2, errs);
	ck_assert_int_eq(errs[0], RC_ERR_PEER);
	ck_assert_int_eq(errs[1], RC_OK);
	rw_abandon(rw);
}
END_TEST


/* RCMPI_EAGER_LIMIT of one byte: messages still carry whole elements of
 * every kind (a floor of their own), streams and replies alike. */
START_TEST(tiny_eager_limit)
{
	struct rw *rw;
	struct rc_dtype *pdt = &rc_mpi_long_double_int;
	struct rc_pair_LONG_DOUBLE_INT src[300], res[300], *t;
	int i;

	setenv("RCMPI_EAGER_LIMIT", "1", 1);
	rw = rw_open(2, _i, FLAVOR_OF(_i), sizeof(src), 1);
	t = (struct rc_pair_LONG_DOUBLE_INT *)rw->mem[1];
	for (i = 0; i < 300; i++) {
		src[i].v = i;
		src[i].i = 1000 + i;
		t[i].v = 150;
		t[i].i = 7;
	}
	fence_all(rw, 0);
	ck_assert_int_eq(MPI_Accumulate(src, 300, pdt, 1, rw_disp(rw, 1, 0, 1),
					300, pdt, MPI_MAXLOC, rw->w[0]),
			 MPI_SUCCESS);
	fence_all(rw, 0);
	ck_assert_int_eq(MPI_Get(res, 300, pdt, 1, rw_disp(rw, 1, 0, 1), 300,
				 pdt, rw->w[0]), MPI_SUCCESS);
	fence_all(rw, MPI_MODE_NOSUCCEED);
	for (i = 0; i < 300; i++) {
		ck_assert(res[i].v == (i > 150 ? i : 150));
		/* a tie keeps the lower index */
		ck_assert_int_eq(res[i].i, i > 150 ? 1000 + i : 7);
	}
	rw_close(rw);
	unsetenv("RCMPI_EAGER_LIMIT");
}
END_TEST

/* ---- accumulate_ordering on the device agent ------------------------------
 * A loop operation (MAX: read, then compare-and-swap) holds back what
 * follows it at its target unless the window's accumulate_ordering lets
 * the follower pass (atomic.c may_pass): counted as the device
 * operations posted before any completes.
 */
START_TEST(acc_ordering_relaxed)
{
	static const struct {
		unsigned order;
		int follower;		/* 0: accumulate SUM, 1: fetch SUM,
					 * 2: fetch NO_OP */
		unsigned long posted;	/* by the two calls */
	} c[] = {
		{RC_ACC_ALL, 0, 1},
		{RC_ACC_RAR | RC_ACC_RAW, 0, 2},
		{RC_ACC_RAR | RC_ACC_RAW, 1, 1},
		{0, 1, 2},
		{RC_ACC_WAR | RC_ACC_WAW, 2, 2},
		{RC_ACC_RAW, 2, 1},
	};
	int flavor = FLAVOR_OF(_i);
	struct rw *rw = rw_open(2, _i, flavor, 64, 1);
	int64_t *t = (int64_t *)rw->mem[1], v = 5, add = 3, old;
	bool exact = rw->w[0]->dev_atomic && _i % 3 == 0;
	unsigned long last, posted;
	size_t k;

	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		fence_all(rw, 0);
		t[0] = 1;
		t[1] = 10;
		fence_all(rw, 0);
		rw->w[0]->acc_order = c[k].order;
		last = rw->tw->fab->nrdma;
		old = -1;
		ck_assert_int_eq(MPI_Accumulate(&v, 1, MPI_INT64_T, 1,
						rw_disp(rw, 1, 0, 1), 1,
						MPI_INT64_T, MPI_MAX, rw->w[0]),
				 MPI_SUCCESS);
		if (!c[k].follower)
			ck_assert_int_eq(
				MPI_Accumulate(&add, 1, MPI_INT64_T, 1,
					       rw_disp(rw, 1, 8, 1), 1,
					       MPI_INT64_T, MPI_SUM, rw->w[0]),
				MPI_SUCCESS);
		else
			ck_assert_int_eq(
				MPI_Fetch_and_op(&add, &old, MPI_INT64_T, 1,
						 rw_disp(rw, 1, 8, 1),
						 c[k].follower == 1 ? MPI_SUM
								    : MPI_NO_OP,
						 rw->w[0]),
				MPI_SUCCESS);
		posted = rdma_delta(rw, &last);
		if (exact)
			ck_assert_msg(posted == c[k].posted,
				      "case %zu: %lu posted, want %lu", k,
				      posted, c[k].posted);
		fence_all(rw, 0);
		ck_assert_int_eq(t[0], 5);
		ck_assert_int_eq(t[1], c[k].follower == 2 ? 10 : 13);
		if (c[k].follower)
			ck_assert_int_eq(old, 10);
	}
	rw->w[0]->acc_order = RC_ACC_ALL;
	rw_close(rw);
}
END_TEST

/* ---- lists of RDMA operations ---------------------------------------------
 * Non-contiguous puts and gets to a direct target are one transport
 * get/put per run contiguous on both sides (ops.c direct_list): counted
 * exactly on the fabric (under pressure 2 a refused first run sends the
 * whole operation by active messages, and refused later ones wait for
 * room: there the data alone is checked); past RCMPI_RMA_DIRECT_LIST
 * runs, or RCMPI_RMA_DIRECT_LIST_SMALL small ones, active messages.
 */
static struct rc_dtype *vec_ints(size_t count, size_t blen, size_t stride)
{
	struct rc_dtype *dt;

	ck_assert_int_eq(rc_dt_create_vector(count, blen, (ptrdiff_t)stride,
					     &rc_mpi_int, &dt), RC_OK);
	rc_dt_commit(dt);
	return dt;
}

/* Dynamic windows: each origin puts one int at byte off of the next
 * rank's region (active messages: it learns the region's key), then a
 * fence; later accesses there may go direct. */
static void learn_keys(struct rw *rw, size_t off)
{
	int o;

	for (o = 0; o < rw->n; o++)
		ck_assert_int_eq(MPI_Put(&o, 1, MPI_INT, (o + 1) % rw->n,
					 rw_disp(rw, (o + 1) % rw->n, off, 1),
					 1, MPI_INT, rw->w[o]),
				 MPI_SUCCESS);
	fence_all(rw, 0);
}

START_TEST(put_get_lists)
{
	enum { N = 2, AREA = 256 }; /* ints per region of the window */
	int flavor = FLAVOR_OF(_i), o, i;
	struct rw *rw = rw_open(N, _i, flavor, 4 * AREA * sizeof(int), 1);
	/* A: blocks of 1 int at stride 3; B: 2 of 3 ints, C: 3 of 4 (zipped:
	 * cuts where either has one, 8 runs for 12 ints); D: 1 of 2 ints,
	 * two elements of extent 3 ints (runs 0, 2-3, 5: 3); E: 40 runs */
	struct rc_dtype *a = vec_ints(8, 1, 3), *b = vec_ints(6, 2, 3),
			*c = vec_ints(4, 3, 4), *d = vec_ints(2, 1, 2),
			*e = vec_ints(40, 1, 2);
	bool exact = _i % 3 != 2;
	bool dyn = flavor == MPI_WIN_FLAVOR_DYNAMIC; /* direct once known */
	unsigned long last = rw->tw->fab->nrdma, got;
	int src[N][64], dst[N][3 * AREA];
	size_t lmax;

	fence_all(rw, MPI_MODE_NOPRECEDE);
	if (dyn) {
		learn_keys(rw, 0);
		last = rw->tw->fab->nrdma;
	}
	for (o = 0; o < N; o++) {
		int t = (o + 1) % N;
		bool direct = rw->w[o]->tg[t].direct || dyn;

		for (i = 0; i < 64; i++)
			src[o][i] = 1000 * (o + 1) + i;
		/* A's 8 small runs are past RCMPI_RMA_DIRECT_LIST_SMALL (4):
		 * packed; then with 16 allowed (B's 8 gets count 16), 8 runs
		 * (region 0 both times) */
		if (direct)
			ck_assert_uint_eq(rw->w[o]->list_small, 4);
		ck_assert_int_eq(MPI_Put(src[o], 8, MPI_INT, t,
					 rw_disp(rw, t, 0, 1), 1, a, rw->w[o]),
				 MPI_SUCCESS);
		ck_assert_uint_eq(rdma_delta(rw, &last), 0);
		rw->w[o]->list_small = 16;
		ck_assert_int_eq(MPI_Put(src[o], 8, MPI_INT, t,
					 rw_disp(rw, t, 0, 1), 1, a, rw->w[o]),
				 MPI_SUCCESS);
		got = rdma_delta(rw, &last);
		if (exact)
			ck_assert_uint_eq(got, direct ? 8 : 0);
		/* D: 3 runs into region 1 */
		ck_assert_int_eq(MPI_Put(src[o] + 8, 4, MPI_INT, t,
					 rw_disp(rw, t, AREA * sizeof(int), 1),
					 2, d, rw->w[o]),
				 MPI_SUCCESS);
		got = rdma_delta(rw, &last);
		if (exact)
			ck_assert_uint_eq(got, direct ? 3 : 0);
		/* E: past the limit, packed into active messages */
		ck_assert_int_eq(MPI_Put(src[o] + 12, 40, MPI_INT, t,
					 rw_disp(rw, t, 2 * AREA * sizeof(int),
						 1),
					 1, e, rw->w[o]),
				 MPI_SUCCESS);
		ck_assert_uint_eq(rdma_delta(rw, &last), 0);
	}
	fence_all(rw, 0);
	for (o = 0; o < N; o++) {
		int t = (o + 1) % N, *m = (int *)rw->mem[t];

		for (i = 0; i < 3 * 8; i++)
			ck_assert_int_eq(m[i], i % 3 ? 0 : src[o][i / 3]);
		ck_assert_int_eq(m[AREA + 0], src[o][8]);
		ck_assert_int_eq(m[AREA + 1], 0);
		ck_assert_int_eq(m[AREA + 2], src[o][9]);
		ck_assert_int_eq(m[AREA + 3], src[o][10]);
		ck_assert_int_eq(m[AREA + 4], 0);
		ck_assert_int_eq(m[AREA + 5], src[o][11]);
		for (i = 0; i < 80; i++)
			ck_assert_int_eq(m[2 * AREA + i],
					 i % 2 ? 0 : src[o][12 + i / 2]);
		/* region 3: what B gets back, C's layout */
		for (i = 0; i < 16; i++)
			m[3 * AREA + i] = i % 4 == 3 ? -1 : 5000 * (t + 1) + i;
	}
	fence_all(rw, 0);
	for (o = 0; o < N; o++) {
		int t = (o + 1) % N;

		memset(dst[o], 0, sizeof(dst[o]));
		ck_assert_int_eq(MPI_Get(dst[o], 1, b, t,
					 rw_disp(rw, t, 3 * AREA * sizeof(int),
						 1),
					 1, c, rw->w[o]),
				 MPI_SUCCESS);
		got = rdma_delta(rw, &last);
		if (exact)
			ck_assert_uint_eq(got, rw->w[o]->tg[t].direct || dyn
						       ? 8
						       : 0);
		/* a get's runs count twice: 8 are past a limit of 15 (the
		 * same bytes again, packed) */
		lmax = rw->w[o]->list_max;
		rw->w[o]->list_max = 15;
		ck_assert_int_eq(MPI_Get(dst[o], 1, b, t,
					 rw_disp(rw, t, 3 * AREA * sizeof(int),
						 1),
					 1, c, rw->w[o]),
				 MPI_SUCCESS);
		ck_assert_uint_eq(rdma_delta(rw, &last), 0);
		rw->w[o]->list_max = lmax;
	}
	fence_all(rw, MPI_MODE_NOSUCCEED);
	for (o = 0; o < N; o++) {
		int t = (o + 1) % N, k = 0;

		/* C's 12 ints in order, into B's blocks */
		for (i = 0; i < 18; i++) {
			int want = 0;

			if (i % 3 != 2) {
				want = 5000 * (t + 1) + k + k / 3;
				k++;
			}
			ck_assert_msg(dst[o][i] == want,
				      "%s: get of %d: int %d is %d, not %d",
				      flavor_name(flavor), o, i, dst[o][i],
				      want);
		}
	}
	rc_dt_release(a);
	rc_dt_release(b);
	rc_dt_release(c);
	rc_dt_release(d);
	rc_dt_release(e);
	rw_close(rw);
}
END_TEST

/* ---- transfers bigger than one get or put ----------------------------------
 * A transport carries at most rdma_max bytes per get or put (a verbs
 * port's max_msg_sz: 8 MiB on rxe); the loop fabric fails longer ones as
 * a device does. Direct puts and gets past it, contiguous and as lists of
 * long runs, go as pieces of at most rdma_max bytes, in order.
 */
START_TEST(put_get_split)
{
	enum { N = 2, MAX = 4096, CONTIG = 10000, VAREA = 16384, BLK = 1500 };
	int flavor = FLAVOR_OF(_i), o, i;
	/* 2 runs of 6000 B at the target; 12000 B in one run at the origin
	 * (its 2 blocks adjacent) */
	struct rc_dtype *v = vec_ints(2, BLK, 2000);
	struct rc_dtype *ov = vec_ints(1, BLK, BLK);
	struct rw *rw;
	bool exact = _i % 3 != 2, dyn = flavor == MPI_WIN_FLAVOR_DYNAMIC;
	unsigned long last;
	static unsigned char src[N][CONTIG], back[N][CONTIG];
	static int isrc[N][2 * BLK], iback[N][2 * BLK];

	rw_rdma_max = MAX;
	rw = rw_open(N, _i, flavor, 3 * VAREA, 1);
	rw_rdma_max = 0;
	fence_all(rw, MPI_MODE_NOPRECEDE);
	if (dyn)
		learn_keys(rw, 2 * VAREA);
	last = rw->tw->fab->nrdma;
	for (o = 0; o < N; o++) {
		int t = (o + 1) % N;
		bool direct = rw->w[o]->tg[t].direct || dyn;

		for (i = 0; i < CONTIG; i++)
			src[o][i] = (unsigned char)(i * 7 + o * 13 + 1);
		for (i = 0; i < 2 * BLK; i++)
			isrc[o][i] = 100000 * (o + 1) + i;
		/* 10000 contiguous bytes: 4096 + 4096 + 1808 */
		ck_assert_int_eq(MPI_Put(src[o], CONTIG, MPI_BYTE, t,
					 rw_disp(rw, t, 0, 1), CONTIG, MPI_BYTE,
					 rw->w[o]),
				 MPI_SUCCESS);
		if (exact)
			ck_assert_uint_eq(rdma_delta(rw, &last),
					  direct ? 3 : 0);
		/* two runs of 6000 bytes: 4096 + 1904 each */
		ck_assert_int_eq(MPI_Put(isrc[o], 2, ov, t,
					 rw_disp(rw, t, VAREA, 1), 1, v,
					 rw->w[o]),
				 MPI_SUCCESS);
		if (exact)
			ck_assert_uint_eq(rdma_delta(rw, &last),
					  direct ? 4 : 0);
		rdma_delta(rw, &last);
	}
	fence_all(rw, 0);
	for (o = 0; o < N; o++) {
		int t = (o + 1) % N;
		int *m = (int *)(rw->mem[t] + VAREA);

		ck_assert(!memcmp(rw->mem[t], src[o], CONTIG));
		for (i = 0; i < BLK; i++) {
			ck_assert_int_eq(m[i], isrc[o][i]);
			ck_assert_int_eq(m[2000 + i], isrc[o][BLK + i]);
		}
		for (i = BLK; i < 2000; i++)
			ck_assert_int_eq(m[i], 0);
		memset(back[o], 0, CONTIG);
		memset(iback[o], 0, sizeof(iback[o]));
		ck_assert_int_eq(MPI_Get(back[o], CONTIG, MPI_BYTE, t,
					 rw_disp(rw, t, 0, 1), CONTIG, MPI_BYTE,
					 rw->w[o]),
				 MPI_SUCCESS);
		ck_assert_int_eq(MPI_Get(iback[o], 2, ov, t,
					 rw_disp(rw, t, VAREA, 1), 1, v,
					 rw->w[o]),
				 MPI_SUCCESS);
		if (exact)
			ck_assert_uint_eq(rdma_delta(rw, &last),
					  rw->w[o]->tg[t].direct || dyn ? 7
									: 0);
		rdma_delta(rw, &last);
	}
	fence_all(rw, MPI_MODE_NOSUCCEED);
	for (o = 0; o < N; o++) {
		ck_assert(!memcmp(back[o], src[o], CONTIG));
		ck_assert(!memcmp(iback[o], isrc[o], sizeof(iback[o])));
	}
	rc_dt_release(v);
	rc_dt_release(ov);
	rw_close(rw);
}
END_TEST

/* ---- dynamic windows' direct path ------------------------------------------
 * The first access to an attached region takes active messages and asks
 * the target for the region's key; later ones inside the region go by
 * the transport's get/put; a detach makes the origin forget the key, so
 * memory attached after it takes the question again. (_i: pressure,
 * always with RCMPI_RMA_DIRECT_MIN=0.)
 */
START_TEST(dynamic_direct)
{
	enum { SZ = 4096 };
	struct rw *rw = rw_open(2, 3 * NFLAVORS + _i, MPI_WIN_FLAVOR_DYNAMIC,
				SZ, 1);
	struct rma_target *tg = &rw->w[0]->tg[1];
	bool exact = _i % 3 != 2; /* pressure 2 refuses gets and puts */
	struct rc_req *req[NMAX];
	unsigned long last, got_n;
	char src[1024], got[1024], *fresh, *other = calloc(1, SZ);
	int errs[NMAX], i;

	ck_assert_ptr_nonnull(other);
	for (i = 0; i < 1024; i++)
		src[i] = (char)(i * 3 + 1);
	memset(rw->mem[1] + 2048, 7, 1024);
	ck_assert(rw->w[0]->dyn_direct);
	fence_all(rw, 0);
	last = rw->tw->fab->nrdma;
	/* unknown: active messages, and the question */
	ck_assert_int_eq(MPI_Put(src, 1024, MPI_BYTE, 1,
				 rw_disp(rw, 1, 0, 1), 1024, MPI_BYTE,
				 rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_uint_eq(rdma_delta(rw, &last), 0);
	ck_assert(tg->regq);
	fence_all(rw, 0);
	ck_assert(!tg->regq);
	ck_assert_uint_eq(tg->ndreg, 1);
	ck_assert(rw->w[1]->tg[0].told);
	/* known: the transport's put and get */
	ck_assert_int_eq(MPI_Put(src, 1024, MPI_BYTE, 1,
				 rw_disp(rw, 1, 1024, 1), 1024, MPI_BYTE,
				 rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Get(got, 1024, MPI_BYTE, 1,
				 rw_disp(rw, 1, 2048, 1), 1024, MPI_BYTE,
				 rw->w[0]),
			 MPI_SUCCESS);
	got_n = rdma_delta(rw, &last);
	ck_assert_uint_le(got_n, 2);
	if (exact)
		ck_assert_uint_eq(got_n, 2);
	/* past the region's end: not this region's key (the target finds
	 * the range error) */
	ck_assert_int_eq(MPI_Put(src, 16, MPI_BYTE, 1,
				 rw_disp(rw, 1, SZ - 8, 1), 16, MPI_BYTE,
				 rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_uint_eq(rdma_delta(rw, &last), 0);
	ck_assert_int_eq(rc_win_fence_start(rw->w[0], 0, &req[0]), RC_OK);
	ck_assert_int_eq(rc_win_fence_start(rw->w[1], 0, &req[1]), RC_OK);
	wait_each(rw->tw, req, 2, errs);
	ck_assert_int_eq(errs[0], RC_ERR_RMA_RANGE);
	ck_assert_int_eq(errs[1], RC_OK);
	ck_assert_int_eq(memcmp(rw->mem[1], src, 1024), 0);
	ck_assert_int_eq(memcmp(rw->mem[1] + 1024, src, 1024), 0);
	for (i = 0; i < 1024; i++)
		ck_assert_int_eq(got[i], 7);
	/* detached: the origin forgets the key; memory attached after it
	 * is asked about again */
	ck_assert_int_eq(rc_win_detach(rw->w[1], rw->mem[1]), RC_OK);
	fence_all(rw, 0);
	ck_assert_uint_eq(tg->ndreg, 0);
	fresh = calloc(1, SZ);
	ck_assert_ptr_nonnull(fresh);
	ck_assert_int_eq(rc_win_attach(rw->w[1], fresh, SZ), RC_OK);
	fence_all(rw, 0);
	ck_assert_int_eq(MPI_Put(src, 1024, MPI_BYTE, 1,
				 (MPI_Aint)(uintptr_t)fresh, 1024, MPI_BYTE,
				 rw->w[0]),
			 MPI_SUCCESS);
	ck_assert_uint_eq(rdma_delta(rw, &last), 0);
	fence_all(rw, 0);
	ck_assert_int_eq(memcmp(fresh, src, 1024), 0);
	ck_assert_uint_eq(tg->ndreg, 1);
	ck_assert_int_eq(MPI_Put(src + 512, 512, MPI_BYTE, 1,
				 (MPI_Aint)(uintptr_t)fresh + 2048, 512,
				 MPI_BYTE, rw->w[0]),
			 MPI_SUCCESS);
	got_n = rdma_delta(rw, &last);
	if (exact)
		ck_assert_uint_eq(got_n, 1);
	fence_all(rw, 0);
	ck_assert_int_eq(memcmp(fresh + 2048, src + 512, 512), 0);
	/* a region the target cannot expose (as when its registration
	 * fails) is known without a key: active messages, no new question */
	rw->w[1]->dyn_direct = false;
	ck_assert_int_eq(rc_win_attach(rw->w[1], other, SZ), RC_OK);
	rw->w[1]->dyn_direct = true;
	fence_all(rw, 0);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(MPI_Put(src, 64, MPI_BYTE, 1,
					 (MPI_Aint)(uintptr_t)other + 64 * i,
					 64, MPI_BYTE, rw->w[0]),
				 MPI_SUCCESS);
		ck_assert_uint_eq(rdma_delta(rw, &last), 0);
		ck_assert(tg->regq == !i); /* asked the first time only */
		fence_all(rw, 0);
		ck_assert_uint_eq(tg->ndreg, 2);
	}
	ck_assert_int_eq(memcmp(other + 64, src, 64), 0);
	fence_all(rw, MPI_MODE_NOSUCCEED);
	/* the window's free releases what is still attached */
	rw_close(rw);
	free(fresh);
	free(other);
}
END_TEST

/* ---- window services ----------------------------------------------------- */

static MPI_Win svc_win;
static int svc_calls, svc_code;

static void svc_handler(MPI_Win *win, int *code, ...)
{
	ck_assert_ptr_eq(*win, svc_win);
	svc_calls++;
	svc_code = *code;
}

/*
 * Windows are handle-table objects: an index for Fortran, a tombstone
 * once freed ("window handle 0x... was freed"); a user handler set on a
 * window gets the window and the code of errors raised on it, requests'
 * included (they raise on its private communicator).
 */
START_TEST(handles_and_handlers)
{
	int flavor = flavors[_i];
	struct rw *rw = rw_open(2, 0, flavor, 16, 4);
	struct rc_win *w0 = rw->w[0];
	MPI_Errhandler eh;
	MPI_Fint f;
	char why[160];
	int v = 1;

	f = rc_handle_c2f(RC_HK_WIN, w0);
	ck_assert_int_gt(f, 0);
	ck_assert_ptr_eq(rc_handle_f2c(&rc_hpools[RC_HK_WIN], f), w0);
	ck_assert_int_ne(f, rc_handle_c2f(RC_HK_WIN, rw->w[1]));

	ck_assert_int_eq(MPI_Win_create_errhandler(svc_handler, &eh),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Win_set_errhandler(w0, eh), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Errhandler_free(&eh), MPI_SUCCESS);
	svc_win = w0;
	svc_calls = 0;
	fence_all(rw, 0);
	ck_assert_int_eq(MPI_Put(&v, 1, MPI_INT, 7, 0, 1, MPI_INT, w0),
			 MPI_ERR_RANK);
	ck_assert_int_eq(svc_calls, 1);
	ck_assert_int_eq(svc_code, MPI_ERR_RANK);
	/* raised on the private communicator: the window's handler */
	ck_assert_int_eq(rc_err_raise(w0->comm, MPI_ERR_RMA_SYNC, "test", NULL),
			 MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(svc_calls, 2);
	ck_assert_int_eq(svc_code, MPI_ERR_RMA_SYNC);
	ck_assert_int_eq(MPI_Win_call_errhandler(w0, MPI_ERR_OTHER),
			 MPI_SUCCESS);
	ck_assert_int_eq(svc_calls, 3);
	ck_assert_int_eq(svc_code, MPI_ERR_OTHER);
	fence_all(rw, 0);
	rw_close(rw);

	ck_assert(!rc_win_valid(w0));
	ck_assert_ptr_null(rc_handle_f2c(&rc_hpools[RC_HK_WIN], f));
	rc_handle_explain(RC_HK_WIN, w0, why, sizeof(why));
	ck_assert_msg(strstr(why, "window handle") && strstr(why, "was freed"),
		      "%s", why);
}
END_TEST

static Suite *rma_suite(void)
{
	Suite *s = suite_create("rma");
#define CASE(fn, loops)                                            \
	do {                                                       \
		TCase *tc = tcase_create(#fn);                     \
		tcase_set_timeout(tc, TMO);                        \
		if (loops)                                         \
			tcase_add_loop_test(tc, fn, 0, loops);     \
		else                                               \
			tcase_add_test(tc, fn);                    \
		suite_add_tcase(s, tc);                            \
	} while (0)
	CASE(put_get_fence, 3 * NFLAVORS);
	CASE(acc_every_op, 3 * NFLAVORS);
	CASE(acc_strided_and_no_op, 3 * NFLAVORS);
	CASE(acc_ordering, 3 * NFLAVORS);
	CASE(counter_fetch_and_op, 3 * NFLAVORS);
	CASE(counter_exclusive_lock, 3 * NFLAVORS);
	CASE(counter_mixed_locks, 3 * NFLAVORS);
	CASE(cas_one_winner, 3 * NFLAVORS);
	CASE(pscw_ring, 3 * NFLAVORS);
	CASE(passive_flushes, 3 * NFLAVORS);
	CASE(lock_queue_fair, 3 * NFLAVORS);
	CASE(request_ops, 3 * NFLAVORS);
	CASE(shared_layout, 2);
	CASE(allocate_fallback, 0);
	CASE(zero_and_proc_null, 3 * NFLAVORS);
	CASE(tiny_eager_limit, 3 * NFLAVORS);
	CASE(errors_sync, NFLAVORS);
	CASE(errors_args, NFLAVORS);
	CASE(dynamic_range_errors, 3);
	CASE(failure_lock_target, 3 * NFLAVORS);
	CASE(failure_lock_holder, 3 * NFLAVORS);
	CASE(failure_lock_shared, 3 * NFLAVORS);
	CASE(failure_pscw, 3 * NFLAVORS);
	CASE(handles_and_handlers, NFLAVORS);
	CASE(shm_lock_direct, 3 * NFLAVORS);
	CASE(shm_acc_holder_gone, 0);
	CASE(flush_direct, 0);
	CASE(flush_direct_room, 0);
	CASE(atomic_one, 0);
	/* the loops from..to of fn, as its own case named fn##suffix */
#define RANGE(fn, suffix, from, to)                              \
	do {                                                     \
		TCase *tc = tcase_create(#fn suffix);            \
		tcase_set_timeout(tc, TMO);                      \
		tcase_add_loop_test(tc, fn, from, to);           \
		suite_add_tcase(s, tc);                          \
	} while (0)
	/* the same over the direct path */
#define DCASE(fn) RANGE(fn, "_direct", 3 * NFLAVORS, 6 * NFLAVORS)
	DCASE(put_get_fence);
	DCASE(put_get_lists);
	DCASE(put_get_split);
	CASE(dynamic_direct, 3);
	DCASE(counter_exclusive_lock);
	DCASE(counter_mixed_locks);
	DCASE(passive_flushes);
	DCASE(request_ops);
	DCASE(pscw_ring);
	DCASE(tiny_eager_limit);
	DCASE(failure_lock_target);
	DCASE(failure_pscw);
	/* the same with the device agent: 64-bit integer accumulates as
	 * the fabric's atomics, refused now and then under pressure */
#define ACASE(fn) RANGE(fn, "_atomic", 6 * NFLAVORS, 9 * NFLAVORS)
	ACASE(acc_every_op);
	ACASE(acc_ordering_relaxed);
	ACASE(acc_strided_and_no_op);
	ACASE(counter_fetch_and_op);
	ACASE(cas_one_winner);
	ACASE(request_ops);
	ACASE(failure_lock_target);
	/* passive-target locks as the fabric's atomics on lock words */
	ACASE(counter_exclusive_lock);
	ACASE(counter_mixed_locks);
	ACASE(lock_queue_fair);
	ACASE(lock_wait_told);
	ACASE(passive_flushes);
	ACASE(failure_lock_holder);
	ACASE(failure_lock_shared);
	ACASE(lock_word_wrap);
#undef ACASE
#undef DCASE
#undef RANGE
#undef CASE
	return s;
}

/* The whole run's limit without fork (CK_FORK=no), where Check times no
 * case: the ASan stage runs this binary so (Makefile.am), about 20 s. */
#define NOFORK_TMO 600

int main(void)
{
	SRunner *sr = srunner_create(rma_suite());
	int failed;

	if (srunner_fork_status(sr) == CK_NOFORK)
		alarm(NOFORK_TMO);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
