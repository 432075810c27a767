/*
 * alg_scan.c - MPI_Reduce_scatter, MPI_Reduce_scatter_block, MPI_Scan and
 * MPI_Exscan schedules.
 *
 * Reduce_scatter (and _block, the same code with equal counts)
 *   recursive_halving  commutative: MPICH's recursive halving on the
 *                      vector (the first 2 * rem ranks pair up first),
 *                      each rank keeps halving towards its own block
 *   pairwise           commutative: n - 1 steps, step i sends rank + i its
 *                      block and reduces the one from rank - i
 *   reduce_scatterv    any op: order-preserving binomial reduce to rank 0,
 *                      then 0 sends every rank its block
 * Scan / Exscan
 *   recursive_doubling MPICH's: partial results exchanged with rank ^ 2^k,
 *                      lower partners folded in on the left (any op)
 *   linear             a chain: rank i waits for i - 1's prefix
 */
#include "coll_impl.h"

static bool usable_commutative(const struct rc_comm *c,
			       const struct rc_cargs *a)
{
	return rc_commutative(a);
}

/* Prefix sums of n counts (n + 1 entries) into scratch; total in *tot. */
static size_t *rs_disps(struct rc_sched *s, const int *rc, int n)
{
	size_t *d = rc_sched_tmp(s, sizeof(size_t) * (size_t)(n + 1));
	int i;

	if (!d)
		return NULL;
	d[0] = 0;
	for (i = 0; i < n; i++)
		d[i + 1] = d[i] + (size_t)rc[i];
	return d;
}

static int rs_halving(struct rc_sched *s, const struct rc_cargs *a,
		      const int *rc)
{
	int n = s->comm->size, r = s->comm->rank;
	int pof2 = rc_pof2_floor(n), rem = n - pof2, newrank;
	int mask, send_idx = 0, recv_idx = 0, last_idx = pof2, i;
	struct rc_dtype *dt = a->dt;
	const void *in = rc_red_in(a);
	size_t *disp = rs_disps(s, rc, n), *nd, total;
	void *w, *t;

	if (!disp)
		return RC_ERR_NOMEM;
	total = disp[n];
	if (n == 1) {
		rc_sched_copy(s, in, total, dt, a->rbuf, total, dt);
		return RC_OK;
	}
	if (r < 2 * rem && r % 2 == 0) {
		rc_sched_send(s, in, total, dt, r + 1);
		rc_sched_wait(s);
		rc_sched_recv(s, a->rbuf, (size_t)rc[r], dt, r + 1);
		return RC_OK;
	}
	w = rc_sched_tmp_dt(s, total, dt);
	t = rc_sched_tmp_dt(s, total, dt);
	nd = rc_sched_tmp(s, sizeof(size_t) * (size_t)(pof2 + 1));
	if (!w || !t || !nd)
		return RC_ERR_NOMEM;
	rc_sched_copy(s, in, total, dt, w, total, dt);
	if (r < 2 * rem) {
		rc_sched_recv(s, t, total, dt, r - 1);
		rc_sched_wait(s);
		rc_sched_reduce(s, t, w, total, dt);
		newrank = r / 2;
	} else {
		newrank = r - rem;
	}
	/* new rank i stands for old ranks 2i, 2i + 1 (i < rem) or i + rem */
	for (i = 0; i < pof2; i++)
		nd[i] = disp[i < rem ? 2 * i : i + rem];
	nd[pof2] = total;
	for (mask = pof2 >> 1; mask > 0; mask >>= 1) {
		int newdst = newrank ^ mask;
		int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
		size_t so, sn, ro, rn;

		if (newrank < newdst) {
			send_idx = recv_idx + mask;
			so = nd[send_idx];
			sn = nd[last_idx] - so;
			ro = nd[recv_idx];
			rn = nd[send_idx] - ro;
		} else {
			recv_idx = send_idx + mask;
			so = nd[send_idx];
			sn = nd[recv_idx] - so;
			ro = nd[recv_idx];
			rn = nd[last_idx] - ro;
		}
		rc_sched_send(s, rc_off(w, so, dt), sn, dt, dst);
		rc_sched_recv(s, rc_off(t, ro, dt), rn, dt, dst);
		rc_sched_wait(s);
		rc_sched_reduce(s, rc_off(t, ro, dt), rc_off(w, ro, dt), rn,
				dt);
		send_idx = recv_idx;
		last_idx = recv_idx + mask;
	}
	rc_sched_copy(s, rc_off(w, disp[r], dt), (size_t)rc[r], dt, a->rbuf,
		      (size_t)rc[r], dt);
	if (r < 2 * rem)
		rc_sched_send(s, rc_off(w, disp[r - 1], dt), (size_t)rc[r - 1],
			      dt, r - 1);
	rc_sched_wait(s);
	return RC_OK;
}

static int rs_pairwise(struct rc_sched *s, const struct rc_cargs *a,
		       const int *rc)
{
	int n = s->comm->size, r = s->comm->rank, i;
	struct rc_dtype *dt = a->dt;
	const void *in = rc_red_in(a);
	size_t *disp = rs_disps(s, rc, n), mine;
	void *t;

	if (!disp)
		return RC_ERR_NOMEM;
	mine = (size_t)rc[r];
	if (a->sbuf == MPI_IN_PLACE && n > 1) {
		/* the input shares rbuf with my result: work on a copy */
		void *c = rc_sched_tmp_dt(s, disp[n], dt);

		if (!c)
			return RC_ERR_NOMEM;
		rc_sched_copy(s, in, disp[n], dt, c, disp[n], dt);
		in = c;
	}
	rc_sched_copy(s, rc_off(in, disp[r], dt), mine, dt, a->rbuf, mine,
		      dt);
	t = rc_sched_tmp_dt(s, mine, dt);
	if (!t)
		return RC_ERR_NOMEM;
	for (i = 1; i < n; i++) {
		int dst = (r + i) % n, src = (r - i + n) % n;

		rc_sched_send(s, rc_off(in, disp[dst], dt), (size_t)rc[dst],
			      dt, dst);
		rc_sched_recv(s, t, mine, dt, src);
		rc_sched_wait(s);
		rc_sched_reduce(s, t, a->rbuf, mine, dt);
	}
	return RC_OK;
}

static int rs_reduce_scatterv(struct rc_sched *s, const struct rc_cargs *a,
			      const int *rc)
{
	int n = s->comm->size, r = s->comm->rank, i, ret;
	struct rc_dtype *dt = a->dt;
	size_t *disp = rs_disps(s, rc, n);
	struct rc_cargs b = *a;
	void *res = NULL;

	if (!disp)
		return RC_ERR_NOMEM;
	if (r == 0) {
		res = rc_sched_tmp_dt(s, disp[n], dt);
		if (!res)
			return RC_ERR_NOMEM;
	}
	b.sbuf = rc_red_in(a);
	b.rbuf = res;
	b.count = disp[n];
	b.root = 0;
	ret = rc_reduce_binomial(s, &b);
	if (ret)
		return ret;
	rc_sched_wait(s);
	if (r) {
		rc_sched_recv(s, a->rbuf, (size_t)rc[r], dt, 0);
		return RC_OK;
	}
	for (i = 1; i < n; i++)
		rc_sched_send(s, rc_off(res, disp[i], dt), (size_t)rc[i], dt,
			      i);
	rc_sched_copy(s, res, (size_t)rc[0], dt, a->rbuf, (size_t)rc[0], dt);
	return RC_OK;
}

/* Reduce_scatter: counts from the arguments. */
#define RS_V(name, fn)                                                     \
	static int name(struct rc_sched *s, const struct rc_cargs *a)       \
	{                                                                   \
		return fn(s, a, a->rcounts);                                \
	}
RS_V(reduce_scatter_halving, rs_halving)
RS_V(reduce_scatter_pairwise, rs_pairwise)
RS_V(reduce_scatter_reduce_scatterv, rs_reduce_scatterv)

/* Reduce_scatter_block: every count is a->count. */
#define RS_B(name, fn)                                                     \
	static int name(struct rc_sched *s, const struct rc_cargs *a)       \
	{                                                                   \
		int n = s->comm->size, i, *rc;                              \
		rc = rc_sched_tmp(s, sizeof(int) * (size_t)n);              \
		if (!rc)                                                    \
			return RC_ERR_NOMEM;                                \
		for (i = 0; i < n; i++)                                     \
			rc[i] = (int)a->count;                              \
		return fn(s, a, rc);                                        \
	}
RS_B(reduce_scatter_block_halving, rs_halving)
RS_B(reduce_scatter_block_pairwise, rs_pairwise)
RS_B(reduce_scatter_block_reduce_scatterv, rs_reduce_scatterv)

const struct rc_coll_alg rc_reduce_scatter_algs[] = {
	{ "recursive_halving", reduce_scatter_halving, usable_commutative,
	  NULL },
	{ "pairwise", reduce_scatter_pairwise, usable_commutative, NULL },
	{ "reduce_scatterv", reduce_scatter_reduce_scatterv, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

const struct rc_coll_alg rc_reduce_scatter_block_algs[] = {
	{ "recursive_halving", reduce_scatter_block_halving,
	  usable_commutative, NULL },
	{ "pairwise", reduce_scatter_block_pairwise, usable_commutative, NULL },
	{ "reduce_scatterv", reduce_scatter_block_reduce_scatterv, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

static int rs_choose(const struct rc_comm *c, const struct rc_cargs *a,
		     size_t total)
{
	if (!rc_commutative(a))
		return 2;
	if (total * a->dt->size < rc_coll_tune(c)->redscat_short)
		return 0;
	return 1;
}

int rc_reduce_scatter_choose(const struct rc_comm *c,
			     const struct rc_cargs *a)
{
	size_t total = 0;
	int i;

	for (i = 0; i < c->size; i++)
		total += (size_t)a->rcounts[i];
	return rs_choose(c, a, total);
}

int rc_reduce_scatter_block_choose(const struct rc_comm *c,
				   const struct rc_cargs *a)
{
	return rs_choose(c, a, a->count * (size_t)c->size);
}

/* ---- scan, exscan -------------------------------------------------------- */

static int scan_rd(struct rc_sched *s, const struct rc_cargs *a, bool ex)
{
	int n = s->comm->size, r = s->comm->rank, mask;
	struct rc_dtype *dt = a->dt;
	size_t count = a->count;
	const void *in = rc_red_in(a);
	bool first = true;
	void *p, *t;

	if (!ex)
		rc_sched_copy(s, in, count, dt, a->rbuf, count, dt);
	if (n == 1)
		return RC_OK;
	p = rc_sched_tmp_dt(s, count, dt);
	t = rc_sched_tmp_dt(s, count, dt);
	if (!p || !t)
		return RC_ERR_NOMEM;
	rc_sched_copy(s, in, count, dt, p, count, dt);
	for (mask = 1; mask < n; mask <<= 1) {
		int dst = r ^ mask;

		if (dst >= n)
			continue;
		rc_sched_send(s, p, count, dt, dst);
		rc_sched_recv(s, t, count, dt, dst);
		rc_sched_wait(s);
		if (r > dst) {
			rc_sched_reduce(s, t, p, count, dt);
			if (ex && first)
				rc_sched_copy(s, t, count, dt, a->rbuf, count,
					      dt);
			else
				rc_sched_reduce(s, t, a->rbuf, count, dt);
			first = false;
		} else if (rc_commutative(a)) {
			rc_sched_reduce(s, t, p, count, dt);
		} else {
			void *x = p;

			rc_sched_reduce(s, p, t, count, dt);
			p = t;
			t = x;
		}
	}
	return RC_OK;
}

static int scan_linear(struct rc_sched *s, const struct rc_cargs *a, bool ex)
{
	int n = s->comm->size, r = s->comm->rank;
	struct rc_dtype *dt = a->dt;
	size_t count = a->count;
	const void *in = rc_red_in(a);
	void *t;

	if (r == 0) {
		if (ex) {
			if (n > 1)
				rc_sched_send(s, in, count, dt, 1);
			return RC_OK;
		}
		rc_sched_copy(s, in, count, dt, a->rbuf, count, dt);
		if (n > 1)
			rc_sched_send(s, a->rbuf, count, dt, 1);
		return RC_OK;
	}
	if (ex) {
		/* result = prefix of 0..r-1; pass on prefix op mine */
		t = NULL;
		if (r < n - 1) {
			t = rc_sched_tmp_dt(s, count, dt);
			if (!t)
				return RC_ERR_NOMEM;
			rc_sched_copy(s, in, count, dt, t, count, dt);
		}
		rc_sched_recv(s, a->rbuf, count, dt, r - 1);
		rc_sched_wait(s);
		if (t) {
			rc_sched_reduce(s, a->rbuf, t, count, dt);
			rc_sched_send(s, t, count, dt, r + 1);
		}
		return RC_OK;
	}
	t = rc_sched_tmp_dt(s, count, dt);
	if (!t)
		return RC_ERR_NOMEM;
	rc_sched_recv(s, t, count, dt, r - 1);
	rc_sched_copy(s, in, count, dt, a->rbuf, count, dt);
	rc_sched_wait(s);
	rc_sched_reduce(s, t, a->rbuf, count, dt);
	if (r < n - 1)
		rc_sched_send(s, a->rbuf, count, dt, r + 1);
	return RC_OK;
}

static int scan_rd_in(struct rc_sched *s, const struct rc_cargs *a)
{
	return scan_rd(s, a, false);
}

static int scan_linear_in(struct rc_sched *s, const struct rc_cargs *a)
{
	return scan_linear(s, a, false);
}

static int exscan_rd(struct rc_sched *s, const struct rc_cargs *a)
{
	return scan_rd(s, a, true);
}

static int exscan_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	return scan_linear(s, a, true);
}

const struct rc_coll_alg rc_scan_algs[] = {
	{ "recursive_doubling", scan_rd_in, NULL, NULL },
	{ "linear", scan_linear_in, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

const struct rc_coll_alg rc_exscan_algs[] = {
	{ "recursive_doubling", exscan_rd, NULL, NULL },
	{ "linear", exscan_linear, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

int rc_scan_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	return 0;
}

int rc_exscan_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	return 0;
}
