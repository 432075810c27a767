/*
 * alg_reduce.c - MPI_Reduce and MPI_Allreduce schedules.
 *
 * Operand order: rc_op_apply(in, inout) computes inout = in op inout, so
 * the buffer holding the lower ranks' part is always passed as `in`. The
 * order-preserving algorithms keep the accumulated value in whichever of
 * two buffers the last reduction wrote (decided while building, so it costs
 * no copy), which makes them correct for non-commutative ops.
 *
 * Reduce
 *   binomial     children vr + 2^k send their subtree's value, reduced in
 *                rank order; non-commutative ops reduce to rank 0 (so
 *                relative order is rank order) and 0 sends to the root
 *   rabenseifner commutative: reduce-scatter by recursive halving, then a
 *                binomial gather of the pieces to the root (MPICH's
 *                long-message reduce); n not a power of two: the first
 *                2 * rem ranks pair up first
 *   linear       the root receives everything and reduces in rank order
 * Allreduce
 *   recursive_doubling  log2 exchanges of the whole vector (MPICH; pairs
 *                first for non-powers of two; order-preserving)
 *   rabenseifner        commutative: recursive-halving reduce-scatter plus
 *                       recursive-doubling allgather
 *   ring                commutative: ring reduce-scatter plus ring allgather
 *                       (n - 1 steps each, bandwidth-optimal)
 *   reduce_bcast        binomial reduce to 0 then binomial bcast
 */
#include "coll_impl.h"

/* World of a power-of-two subset: rank r's new rank, and back. The first
 * 2 * rem ranks pair up (even gives to odd) so pof2 ranks remain. */
static inline int pof2_newrank(int r, int rem)
{
	if (r < 2 * rem)
		return r % 2 ? r / 2 : -1;
	return r - rem;
}

static inline int pof2_oldrank(int nr, int rem)
{
	return nr < rem ? nr * 2 + 1 : nr + rem;
}

/* ---- reduce -------------------------------------------------------------- */

int rc_reduce_binomial(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, root = a->root;
	int lroot = rc_commutative(a) ? root : 0;
	int vr = (r - lroot + n) % n, k = 0, i, m;
	const void *in = rc_red_in(a), *acc = in;
	struct rc_dtype *dt = a->dt;
	size_t count = a->count, seg, segsize, j;
	void *res = NULL, *x[2] = { NULL, NULL };

	/* children: vr + m for the m below vr's lowest set bit */
	for (m = 1; m < n && !(vr & m); m <<= 1)
		if (vr + m < n)
			k++;
	if (r == lroot) {
		/* the user's buffer may be NULL (count 0, MPI_BOTTOM): only
		 * the schedule's berr says an allocation failed */
		res = r == root ? a->rbuf : rc_sched_tmp_dt(s, count, dt);
		if (s->berr)
			return s->berr;
		if (!k) {
			rc_sched_copy(s, in, count, dt, res, count, dt);
		} else {
			void *t = rc_sched_tmp_dt(s, count, dt);

			if (!t)
				return RC_ERR_NOMEM;
			/* the k-th accumulation must land in res */
			x[(k - 1) % 2] = res;
			x[k % 2] = t;
			if (acc == res && x[0] == res) {
				/* IN_PLACE with k odd: keep the input safe */
				rc_sched_copy(s, in, count, dt, t, count, dt);
				acc = t;
			}
		}
	} else if (k) {
		x[0] = rc_sched_tmp_dt(s, count, dt);
		x[1] = k > 1 ? rc_sched_tmp_dt(s, count, dt) : NULL;
		if (!x[0] || (k > 1 && !x[1]))
			return RC_ERR_NOMEM;
	}
	/* large vectors travel in segments: a segment is reduced while the
	 * next one arrives, and it is still in cache when it is reduced */
	seg = count;
	segsize = rc_coll_tune(s->comm)->reduce_segsize;
	if (segsize && dt->size && count * dt->size > 2 * segsize)
		seg = segsize / dt->size ? segsize / dt->size : 1;
	i = 0;
	for (m = 1; m < n; m <<= 1) {
		if (vr & m) {
			for (j = 0; j < count; j += seg)
				rc_sched_send(s, rc_off(acc, j, dt),
					      count - j < seg ? count - j : seg,
					      dt, ((vr - m) + lroot) % n);
			break;
		}
		if (vr + m < n) {
			void *xi = x[i % 2];
			int src = (vr + m + lroot) % n;

			for (j = 0; j < count; j += seg) {
				size_t nj = count - j < seg ? count - j : seg;

				rc_sched_recv(s, rc_off(xi, j, dt), nj, dt, src);
				if (j)
					rc_sched_reduce(s, rc_off(acc, j - seg, dt),
							rc_off(xi, j - seg, dt),
							seg, dt);
				rc_sched_wait(s);
			}
			j = count ? (count - 1) / seg * seg : 0;
			rc_sched_reduce(s, rc_off(acc, j, dt), rc_off(xi, j, dt),
					count - j, dt);
			acc = xi;
			i++;
		}
	}
	if (lroot != root) {
		rc_sched_wait(s);
		if (r == lroot)
			rc_sched_send(s, acc, count, dt, root);
		else if (r == root)
			rc_sched_recv(s, a->rbuf, count, dt, lroot);
	}
	rc_sched_wait(s);
	return RC_OK;
}

/* A leaf of rc_reduce_binomial's tree (not the root, no children) sends
 * its input to its parent in one message: no schedule needed. */
static int reduce_binomial_direct(struct rc_comm *c, const struct rc_cargs *a)
{
	int n = c->size, root = a->root;
	int lroot = rc_commutative(a) ? root : 0;
	int vr = (c->rank - lroot + n) % n;
	size_t segsize = rc_coll_tune(c)->reduce_segsize;

	if (c->rank == root || !vr || !a->count ||
	    (!(vr & 1) && vr + 1 < n) ||
	    (segsize && a->count * a->dt->size > 2 * segsize))
		return RC_AGAIN;
	return rc_coll_send_direct(c, rc_red_in(a), a->count, a->dt,
				   (vr - (vr & -vr) + lroot) % n);
}

static int reduce_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, root = a->root, i;
	const void *in = rc_red_in(a);
	struct rc_dtype *dt = a->dt;
	size_t count = a->count;
	ptrdiff_t span;
	char *x;
	void *acc;

	if (r != root) {
		rc_sched_send(s, in, count, dt, root);
		return RC_OK;
	}
	acc = a->sbuf == MPI_IN_PLACE ? rc_sched_tmp_dt(s, count, dt)
				      : a->rbuf;
	/* x[i]: rank i's input; n - 1 lands straight in acc */
	span = (ptrdiff_t)count * rc_dt_extent(dt);
	x = n > 1 ? rc_sched_tmp_dt(s, count * (size_t)(n - 1), dt) : NULL;
	if (s->berr)
		return s->berr;
	if (root == n - 1)
		rc_sched_copy(s, in, count, dt, acc, count, dt);
	else
		rc_sched_recv(s, acc, count, dt, n - 1);
	for (i = 0; i < n - 1; i++)
		if (i != root)
			rc_sched_recv(s, x + span * i, count, dt, i);
	rc_sched_wait(s);
	for (i = n - 2; i >= 0; i--)
		rc_sched_reduce(s, i == root ? in : x + span * i, acc, count,
				dt);
	rc_sched_copy(s, acc, count, dt, a->rbuf, count, dt);
	return RC_OK;
}

/* Block layout of a vector of count elements cut in nb blocks. */
static void blocks(size_t count, int nb, size_t *cnt, size_t *disp)
{
	size_t q = count / (size_t)nb, rm = count % (size_t)nb, d = 0;
	int i;

	for (i = 0; i < nb; i++) {
		cnt[i] = q + ((size_t)i < rm);
		disp[i] = d;
		d += cnt[i];
	}
	disp[nb] = d;
}

/* One step of recursive halving: partner and the block ranges. */
struct halving_step {
	int peer;		/* comm rank */
	int ss, se;		/* blocks sent: [ss, se) */
	int rs, re;		/* blocks kept and reduced: [rs, re) */
};

/* Plan recursive halving for newrank among pof2 (masks ascending, as
 * MPICH's allreduce): fills steps, returns how many. */
static int halving_plan(int newrank, int pof2, int rem,
			struct halving_step *st)
{
	int send_idx = 0, recv_idx = 0, last_idx = pof2, mask, k = 0;

	for (mask = 1; mask < pof2; mask <<= 1, k++) {
		int newdst = newrank ^ mask;

		st[k].peer = pof2_oldrank(newdst, rem);
		if (newrank < newdst) {
			send_idx = recv_idx + pof2 / (mask * 2);
			st[k].ss = send_idx;
			st[k].se = last_idx;
			st[k].rs = recv_idx;
			st[k].re = send_idx;
		} else {
			recv_idx = send_idx + pof2 / (mask * 2);
			st[k].ss = send_idx;
			st[k].se = recv_idx;
			st[k].rs = recv_idx;
			st[k].re = last_idx;
		}
		send_idx = recv_idx;
		last_idx = recv_idx + pof2 / (mask * 2);
	}
	return k;
}

/* Append the halving steps: W[kept blocks] = T op W (commutative). When
 * `in` is set, W does not hold the input yet: the first step sends its
 * half straight from `in` and copies only the half it keeps into W. */
static void halving_run(struct rc_sched *s, const struct halving_step *st,
			int nst, void *w, void *t, const void *in,
			const size_t *disp, struct rc_dtype *dt)
{
	int k;

	for (k = 0; k < nst; k++) {
		size_t so = disp[st[k].ss], sn = disp[st[k].se] - so;
		size_t ro = disp[st[k].rs], rn = disp[st[k].re] - ro;

		rc_sched_send(s, rc_off(k || !in ? w : in, so, dt), sn, dt,
			      st[k].peer);
		rc_sched_recv(s, rc_off(t, ro, dt), rn, dt, st[k].peer);
		if (!k && in)
			rc_sched_copy(s, rc_off(in, ro, dt), rn, dt,
				      rc_off(w, ro, dt), rn, dt);
		rc_sched_wait(s);
		rc_sched_reduce(s, rc_off(t, ro, dt), rc_off(w, ro, dt), rn,
				dt);
	}
}

struct rab {
	int pof2, rem, newrank, nst;
	size_t *disp;		/* pof2 + 1 entries */
	struct halving_step st[32];
};

/* Common start of both Rabenseifner algorithms: block layout, the
 * non-power-of-two pairing step (even ranks below 2 * rem send their input
 * and leave), and the reduce-scatter into w (which need not hold the
 * input: only the parts that are reduced are copied there). */
static int rab_start(struct rc_sched *s, const struct rc_cargs *a, void *w,
		     void *t, const void *in, struct rab *rb)
{
	const void *lazy = in == w ? NULL : in;
	int n = s->comm->size, r = s->comm->rank;
	size_t count = a->count;
	struct rc_dtype *dt = a->dt;

	rb->pof2 = rc_pof2_floor(n);
	rb->rem = n - rb->pof2;
	rb->newrank = pof2_newrank(r, rb->rem);
	rb->disp = rc_sched_tmp(s, sizeof(size_t) * (size_t)(2 * rb->pof2 + 1));
	if (!rb->disp)
		return RC_ERR_NOMEM;
	/* counts in the first pof2 entries are scratch; disps after */
	blocks(count, rb->pof2, rb->disp + rb->pof2 + 1, rb->disp);
	rb->nst = 0;
	if (r < 2 * rb->rem) {
		if (r % 2 == 0) {
			rc_sched_send(s, in, count, dt, r + 1);
			rc_sched_wait(s);
			return RC_OK;
		}
		rc_sched_recv(s, t, count, dt, r - 1);
		if (lazy)
			rc_sched_copy(s, in, count, dt, w, count, dt);
		lazy = NULL;
		rc_sched_wait(s);
		rc_sched_reduce(s, t, w, count, dt);
	}
	rb->nst = halving_plan(rb->newrank, rb->pof2, rb->rem, rb->st);
	halving_run(s, rb->st, rb->nst, w, t, lazy, rb->disp, dt);
	return RC_OK;
}

static bool usable_commutative(const struct rc_comm *c,
			       const struct rc_cargs *a)
{
	return rc_commutative(a);
}

static int reduce_rabenseifner(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, root = a->root;
	size_t count = a->count;
	struct rc_dtype *dt = a->dt;
	const void *in = rc_red_in(a);
	int newroot, rootreal, k, ret;
	bool participate, root_in;
	void *w, *t;
	struct rab rb;

	if (n == 1) {
		rc_sched_copy(s, in, count, dt, a->rbuf, count, dt);
		return RC_OK;
	}
	rb.pof2 = rc_pof2_floor(n);
	rb.rem = n - rb.pof2;
	participate = pof2_newrank(r, rb.rem) >= 0;
	root_in = pof2_newrank(root, rb.rem) >= 0;
	w = t = NULL;
	if (participate || r < 2 * rb.rem) {
		t = rc_sched_tmp_dt(s, count, dt);
		w = r == root ? a->rbuf : rc_sched_tmp_dt(s, count, dt);
		if (s->berr)
			return s->berr;
	}
	ret = rab_start(s, a, w, t, in, &rb);
	if (ret)
		return ret;
	/* binomial gather of the pieces, the halving steps in reverse */
	rootreal = root_in ? root : root + 1;
	newroot = pof2_newrank(rootreal, rb.rem);
	if (participate) {
		for (k = rb.nst - 1; k >= 0; k--) {
			const struct halving_step *st = &rb.st[k];
			int m = 1 << k;
			size_t o;

			if ((rb.newrank & m) == (newroot & m)) {
				o = rb.disp[st->ss];
				rc_sched_recv(s, rc_off(w, o, dt),
					      rb.disp[st->se] - o, dt,
					      st->peer);
			} else {
				o = rb.disp[st->rs];
				rc_sched_send(s, rc_off(w, o, dt),
					      rb.disp[st->re] - o, dt,
					      st->peer);
				rc_sched_wait(s);
				break;
			}
			rc_sched_wait(s);
		}
		if (r == rootreal && r != root)
			rc_sched_send(s, w, count, dt, root);
	}
	if (r == root && !root_in)
		rc_sched_recv(s, a->rbuf, count, dt, rootreal);
	rc_sched_wait(s);
	return RC_OK;
}

const struct rc_coll_alg rc_reduce_algs[] = {
	{ "binomial", rc_reduce_binomial, NULL, reduce_binomial_direct },
	{ "rabenseifner", reduce_rabenseifner, usable_commutative, NULL },
	{ "linear", reduce_linear, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

int rc_reduce_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	size_t len = a->count * a->dt->size;

	/* on two ranks the binomial tree is one message and one local
	 * reduction: nothing to gain from splitting the vector */
	if (rc_commutative(a) && c->size > 2 &&
	    len > rc_coll_tune(c)->reduce_short &&
	    a->count >= (size_t)rc_pof2_floor(c->size))
		return 1;
	return 0;
}

/* ---- allreduce ----------------------------------------------------------- */

static int allreduce_rd(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank;
	int pof2 = rc_pof2_floor(n), rem = n - pof2;
	int newrank = pof2_newrank(r, rem), mask;
	size_t count = a->count;
	struct rc_dtype *dt = a->dt;
	const void *in = rc_red_in(a), *first = in;
	void *acc = a->rbuf, *other;
	bool comm = rc_commutative(a);

	if (n == 1) {
		rc_sched_copy(s, in, count, dt, a->rbuf, count, dt);
		return RC_OK;
	}
	other = rc_sched_tmp_dt(s, count, dt);
	if (!other)
		return RC_ERR_NOMEM;
	if (r < 2 * rem && r % 2 == 0) {
		/* give my input to r + 1, get the result back at the end */
		rc_sched_send(s, in, count, dt, r + 1);
		rc_sched_wait(s);
		rc_sched_recv(s, a->rbuf, count, dt, r + 1);
		return RC_OK;
	}
	if (r < 2 * rem) {
		rc_sched_recv(s, other, count, dt, r - 1);
		rc_sched_copy(s, in, count, dt, acc, count, dt);
		rc_sched_wait(s);
		rc_sched_reduce(s, other, acc, count, dt);
		first = acc;
	}
	for (mask = 1; mask < pof2; mask <<= 1) {
		int dst = pof2_oldrank(newrank ^ mask, rem);

		/* the first exchange sends straight from the input and copies
		 * it while the message travels */
		rc_sched_send(s, first, count, dt, dst);
		rc_sched_recv(s, other, count, dt, dst);
		if (first != acc) {
			rc_sched_copy(s, first, count, dt, acc, count, dt);
			first = acc;
		}
		rc_sched_wait(s);
		if (comm || dst < r) {
			rc_sched_reduce(s, other, acc, count, dt);
		} else {
			void *t = acc;

			rc_sched_reduce(s, acc, other, count, dt);
			acc = other;
			other = t;
			first = acc;
		}
	}
	if (r < 2 * rem)
		rc_sched_send(s, acc, count, dt, r - 1);
	rc_sched_copy(s, acc, count, dt, a->rbuf, count, dt);
	rc_sched_wait(s);
	return RC_OK;
}

static int allreduce_rabenseifner(struct rc_sched *s,
				  const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, k, ret;
	size_t count = a->count;
	struct rc_dtype *dt = a->dt;
	const void *in = rc_red_in(a);
	void *w = a->rbuf, *t;
	struct rab rb;

	if (n == 1) {
		rc_sched_copy(s, in, count, dt, w, count, dt);
		return RC_OK;
	}
	t = rc_sched_tmp_dt(s, count, dt);
	if (!t)
		return RC_ERR_NOMEM;
	ret = rab_start(s, a, w, t, in, &rb);
	if (ret)
		return ret;
	if (rb.newrank < 0) {
		rc_sched_recv(s, w, count, dt, r + 1);
		return RC_OK;
	}
	/* recursive doubling allgather: the halving steps in reverse */
	for (k = rb.nst - 1; k >= 0; k--) {
		const struct halving_step *st = &rb.st[k];
		size_t so = rb.disp[st->rs], ro = rb.disp[st->ss];

		rc_sched_send(s, rc_off(w, so, dt), rb.disp[st->re] - so, dt,
			      st->peer);
		rc_sched_recv(s, rc_off(w, ro, dt), rb.disp[st->se] - ro, dt,
			      st->peer);
		rc_sched_wait(s);
	}
	if (r < 2 * rb.rem)
		rc_sched_send(s, w, count, dt, r - 1);
	return RC_OK;
}

static int allreduce_ring(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, k;
	int right = (r + 1) % n, left = (r - 1 + n) % n;
	size_t count = a->count, *cnt, *disp;
	struct rc_dtype *dt = a->dt;
	void *w = a->rbuf, *t;

	rc_sched_copy(s, rc_red_in(a), count, dt, w, count, dt);
	if (n == 1)
		return RC_OK;
	cnt = rc_sched_tmp(s, sizeof(size_t) * (size_t)(2 * n + 1));
	if (!cnt)
		return RC_ERR_NOMEM;
	disp = cnt + n;
	blocks(count, n, cnt, disp);
	t = rc_sched_tmp_dt(s, cnt[0], dt);
	if (!t)
		return RC_ERR_NOMEM;
	for (k = 0; k < n - 1; k++) {
		int sb = (r - k + n) % n, rb = (r - k - 1 + n) % n;

		rc_sched_send(s, rc_off(w, disp[sb], dt), cnt[sb], dt, right);
		rc_sched_recv(s, t, cnt[rb], dt, left);
		rc_sched_wait(s);
		rc_sched_reduce(s, t, rc_off(w, disp[rb], dt), cnt[rb], dt);
	}
	for (k = 0; k < n - 1; k++) {
		int sb = (r + 1 - k + n) % n, rb = (r - k + n) % n;

		rc_sched_send(s, rc_off(w, disp[sb], dt), cnt[sb], dt, right);
		rc_sched_recv(s, rc_off(w, disp[rb], dt), cnt[rb], dt, left);
		rc_sched_wait(s);
	}
	return RC_OK;
}

static int allreduce_reduce_bcast(struct rc_sched *s,
				  const struct rc_cargs *a)
{
	struct rc_cargs b = *a;
	int ret;

	b.root = 0;
	if (s->comm->rank != 0 && a->sbuf == MPI_IN_PLACE)
		b.sbuf = a->rbuf;	/* reduce's IN_PLACE is the root's */
	ret = rc_reduce_binomial(s, &b);
	if (ret)
		return ret;
	rc_sched_wait(s);
	return rc_bcast_binomial(s, &b);
}

const struct rc_coll_alg rc_allreduce_algs[] = {
	{ "recursive_doubling", allreduce_rd, NULL, NULL },
	{ "rabenseifner", allreduce_rabenseifner, usable_commutative, NULL },
	{ "ring", allreduce_ring, usable_commutative, NULL },
	{ "reduce_bcast", allreduce_reduce_bcast, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

int rc_allreduce_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	const struct rc_coll_tune *t = rc_coll_tune(c);
	size_t len = a->count * a->dt->size;

	if (!rc_commutative(a) || len <= t->allreduce_short ||
	    a->count < (size_t)rc_pof2_floor(c->size))
		return 0;
	if (t->allreduce_ring && len >= t->allreduce_ring)
		return 2;
	return 1;
}
