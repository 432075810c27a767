/*
 * alg_gather.c - MPI_Gather(v), MPI_Scatter(v) and MPI_Allgather(v)
 * schedules.
 *
 * Blocks travel as packed bytes wherever they are forwarded (the standard
 * makes the send and receive type signatures equal, so a block is
 * scount * size(sendtype) = rcount * size(recvtype) bytes on every rank);
 * user buffers are read and written with their own datatypes.
 *
 * Gather / Scatter (relative rank vr = (rank - root) mod n; vr's subtree is
 * [vr, vr + lowbit(vr)) clipped to n)
 *   binomial  gather: a subtree's blocks are collected in one buffer and
 *             sent to the parent in one message, leaves send straight from
 *             the user's buffer; scatter is the mirror image
 *   linear    the root talks to every rank, straight from and into the
 *             user's buffers: chosen on 2 ranks (where the tree is one
 *             message plus two copies at the root) and for blocks of
 *             GATHER_SHORT bytes or more, where those copies cost more than
 *             the messages the tree saves
 * Gatherv / Scatterv: linear.
 * Allgather
 *   recursive_doubling  powers of two: exchange ever larger runs of blocks
 *                       in place with rank ^ 2^k
 *   bruck               any n: ceil(log2 n) steps on a rotated packed copy
 *   ring                n - 1 steps, each passing one block to the right
 * Allgatherv: ring, linear.
 */
#include "coll_impl.h"

/* Size of vr's subtree in a binomial tree over n ranks. */
static int subtree(int vr, int n)
{
	int m = 1;

	if (!vr) {
		while (m < n)
			m <<= 1;
	} else {
		m = vr & -vr;
	}
	return m < n - vr ? m : n - vr;
}

/* Lowest set bit of vr, or the power of two >= n for the root. */
static int lowbit(int vr, int n)
{
	int m = 1;

	if (vr)
		return vr & -vr;
	while (m < n)
		m <<= 1;
	return m;
}

/* Copy packed blocks T[i] (i in relative order from the root) to or from
 * the user's buffer laid out by rank, skipping relative block `skip`
 * (the root's own block under MPI_IN_PLACE; -1: none). */
static void rotate(struct rc_sched *s, char *t, size_t bs, void *ubuf,
		   size_t ucount, struct rc_dtype *udt, int root, int n,
		   bool to_user, int skip)
{
	int lo = skip == 0 ? 1 : 0;
	size_t nb;

	/* relative blocks [lo, n - root) are ranks [root + lo, n) */
	nb = (size_t)(n - root - lo);
	if (to_user)
		rc_sched_copy(s, t + lo * bs, nb * bs, &rc_mpi_byte,
			      rc_off(ubuf, (size_t)(root + lo) * ucount, udt),
			      nb * ucount, udt);
	else
		rc_sched_copy(s, rc_off(ubuf, (size_t)(root + lo) * ucount,
					udt),
			      nb * ucount, udt, t + lo * bs, nb * bs,
			      &rc_mpi_byte);
	/* relative blocks [n - root, n) are ranks [0, root) */
	nb = (size_t)root;
	if (to_user)
		rc_sched_copy(s, t + (size_t)(n - root) * bs, nb * bs,
			      &rc_mpi_byte, ubuf, nb * ucount, udt);
	else
		rc_sched_copy(s, ubuf, nb * ucount, udt,
			      t + (size_t)(n - root) * bs, nb * bs,
			      &rc_mpi_byte);
}

/* ---- gather -------------------------------------------------------------- */

static int gather_binomial(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, root = a->root;
	int vr = (r - root + n) % n, m = lowbit(vr, n), sub = subtree(vr, n);
	bool isroot = r == root, inplace = isroot && a->sbuf == MPI_IN_PLACE;
	size_t bs = isroot ? a->rcount * a->rdt->size
			   : a->scount * a->sdt->size;
	int mask;
	char *t;

	if (!isroot && sub == 1) {
		rc_sched_send(s, a->sbuf, a->scount, a->sdt,
			      (r - m + n) % n);
		return RC_OK;
	}
	if (n == 1) {
		if (!inplace)
			rc_sched_copy(s, a->sbuf, a->scount, a->sdt, a->rbuf,
				      a->rcount, a->rdt);
		return RC_OK;
	}
	t = rc_sched_tmp(s, (size_t)sub * bs);
	if (!t)
		return RC_ERR_NOMEM;
	if (!inplace)
		rc_sched_copy(s, a->sbuf, a->scount, a->sdt, t, bs,
			      &rc_mpi_byte);
	for (mask = 1; mask < m && vr + mask < n; mask <<= 1) {
		int c = vr + mask, cnt = mask < n - c ? mask : n - c;

		rc_sched_recv(s, t + (size_t)mask * bs, (size_t)cnt * bs,
			      &rc_mpi_byte, (r + mask) % n);
	}
	rc_sched_wait(s);
	if (!isroot) {
		rc_sched_send(s, t, (size_t)sub * bs, &rc_mpi_byte,
			      (r - m + n) % n);
		return RC_OK;
	}
	rotate(s, t, bs, a->rbuf, a->rcount, a->rdt, root, n, true,
	       inplace ? 0 : -1);
	return RC_OK;
}

static int gather_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;

	if (r != a->root) {
		rc_sched_send(s, a->sbuf, a->scount, a->sdt, a->root);
		return RC_OK;
	}
	for (i = 0; i < n; i++)
		if (i != r)
			rc_sched_recv(s, rc_off(a->rbuf, (size_t)i * a->rcount,
						a->rdt),
				      a->rcount, a->rdt, i);
	/* own block last: senders waiting on us are served first */
	rc_sched_wait(s);
	if (a->sbuf != MPI_IN_PLACE)
		rc_sched_copy(s, a->sbuf, a->scount, a->sdt,
			      rc_off(a->rbuf, (size_t)r * a->rcount, a->rdt),
			      a->rcount, a->rdt);
	return RC_OK;
}

/* Non-roots of the linear gather, and leaves of the binomial one, send
 * their block straight from sbuf: one message, no schedule. */
static int gather_linear_direct(struct rc_comm *c, const struct rc_cargs *a)
{
	if (c->rank == a->root)
		return RC_AGAIN;
	return rc_coll_send_direct(c, a->sbuf, a->scount, a->sdt, a->root);
}

static int gather_binomial_direct(struct rc_comm *c, const struct rc_cargs *a)
{
	int n = c->size, vr = (c->rank - a->root + n) % n;

	if (!vr || subtree(vr, n) != 1)
		return RC_AGAIN;
	return rc_coll_send_direct(c, a->sbuf, a->scount, a->sdt,
				   (c->rank - lowbit(vr, n) + n) % n);
}

const struct rc_coll_alg rc_gather_algs[] = {
	{ "binomial", gather_binomial, NULL, gather_binomial_direct },
	{ "linear", gather_linear, NULL, gather_linear_direct },
	{ NULL, NULL, NULL, NULL },
};

/* Binomial (0) for small blocks on more than two ranks, else linear (1);
 * the block size is the root's view (rcount), a non-root's (scount) for
 * gather, and the mirror for scatter: every rank decides alike because
 * the standard makes the type signatures match. */
static int tree_or_linear(const struct rc_comm *c, size_t block)
{
	return c->size > 2 && block < rc_coll_tune(c)->gather_short ? 0 : 1;
}

int rc_gather_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	return tree_or_linear(c, c->rank == a->root ?
			      a->rcount * a->rdt->size :
			      a->scount * a->sdt->size);
}

static int gatherv_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;

	if (r != a->root) {
		rc_sched_send(s, a->sbuf, a->scount, a->sdt, a->root);
		return RC_OK;
	}
	for (i = 0; i < n; i++)
		if (i != r)
			rc_sched_recv(s, rc_off(a->rbuf, (size_t)a->rdispls[i],
						a->rdt),
				      (size_t)a->rcounts[i], a->rdt, i);
	rc_sched_wait(s);
	if (a->sbuf != MPI_IN_PLACE)
		rc_sched_copy(s, a->sbuf, a->scount, a->sdt,
			      rc_off(a->rbuf, (size_t)a->rdispls[r], a->rdt),
			      (size_t)a->rcounts[r], a->rdt);
	return RC_OK;
}

const struct rc_coll_alg rc_gatherv_algs[] = {
	{ "linear", gatherv_linear, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

int rc_gatherv_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	return 0;
}

/* ---- scatter ------------------------------------------------------------- */

static int scatter_binomial(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, root = a->root;
	int vr = (r - root + n) % n, m = lowbit(vr, n), sub = subtree(vr, n);
	bool isroot = r == root, inplace = isroot && a->rbuf == MPI_IN_PLACE;
	size_t bs = isroot ? a->scount * a->sdt->size
			   : a->rcount * a->rdt->size;
	int mask;
	char *t;

	if (!isroot && sub == 1) {
		rc_sched_recv(s, a->rbuf, a->rcount, a->rdt, (r - m + n) % n);
		return RC_OK;
	}
	if (n == 1) {
		if (!inplace)
			rc_sched_copy(s, a->sbuf, a->scount, a->sdt, a->rbuf,
				      a->rcount, a->rdt);
		return RC_OK;
	}
	t = rc_sched_tmp(s, (size_t)sub * bs);
	if (!t)
		return RC_ERR_NOMEM;
	if (isroot) {
		/* the root's own block goes straight from sbuf */
		rotate(s, t, bs, (void *)a->sbuf, a->scount, a->sdt, root, n,
		       false, 0);
	} else {
		rc_sched_recv(s, t, (size_t)sub * bs, &rc_mpi_byte,
			      (r - m + n) % n);
		rc_sched_wait(s);
	}
	for (mask = m >> 1; mask > 0; mask >>= 1) {
		int c = vr + mask, cnt;

		if (c >= n)
			continue;
		cnt = mask < n - c ? mask : n - c;
		rc_sched_send(s, t + (size_t)mask * bs, (size_t)cnt * bs,
			      &rc_mpi_byte, (r + mask) % n);
	}
	if (inplace)
		return RC_OK;
	if (isroot)
		rc_sched_copy(s, rc_off(a->sbuf, (size_t)r * a->scount, a->sdt),
			      a->scount, a->sdt, a->rbuf, a->rcount, a->rdt);
	else
		rc_sched_copy(s, t, bs, &rc_mpi_byte, a->rbuf, a->rcount,
			      a->rdt);
	return RC_OK;
}

static int scatter_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;

	if (r != a->root) {
		rc_sched_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
		return RC_OK;
	}
	for (i = 0; i < n; i++)
		if (i != r)
			rc_sched_send(s, rc_off(a->sbuf, (size_t)i * a->scount,
						a->sdt),
				      a->scount, a->sdt, i);
	if (a->rbuf != MPI_IN_PLACE)
		rc_sched_copy(s, rc_off(a->sbuf, (size_t)r * a->scount, a->sdt),
			      a->scount, a->sdt, a->rbuf, a->rcount, a->rdt);
	return RC_OK;
}

const struct rc_coll_alg rc_scatter_algs[] = {
	{ "binomial", scatter_binomial, NULL, NULL },
	{ "linear", scatter_linear, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

int rc_scatter_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	return tree_or_linear(c, c->rank == a->root ?
			      a->scount * a->sdt->size :
			      a->rcount * a->rdt->size);
}

static int scatterv_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;

	if (r != a->root) {
		rc_sched_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
		return RC_OK;
	}
	for (i = 0; i < n; i++)
		if (i != r)
			rc_sched_send(s, rc_off(a->sbuf, (size_t)a->sdispls[i],
						a->sdt),
				      (size_t)a->scounts[i], a->sdt, i);
	if (a->rbuf != MPI_IN_PLACE)
		rc_sched_copy(s, rc_off(a->sbuf, (size_t)a->sdispls[r], a->sdt),
			      (size_t)a->scounts[r], a->sdt, a->rbuf, a->rcount,
			      a->rdt);
	return RC_OK;
}

const struct rc_coll_alg rc_scatterv_algs[] = {
	{ "linear", scatterv_linear, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

int rc_scatterv_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	return 0;
}

/* ---- allgather ----------------------------------------------------------- */

/* My block into its place in rbuf (unless it is there already). */
static void allgather_own(struct rc_sched *s, const struct rc_cargs *a,
			  size_t disp, size_t count)
{
	if (a->sbuf != MPI_IN_PLACE)
		rc_sched_copy(s, a->sbuf, a->scount, a->sdt,
			      rc_off(a->rbuf, disp, a->rdt), count, a->rdt);
}

static bool usable_pof2(const struct rc_comm *c, const struct rc_cargs *a)
{
	return !(c->size & (c->size - 1));
}

/* The first exchange of my own block sends it straight from sbuf and
 * copies it into rbuf while the message travels (the peer then reads
 * memory we did not just write, and the copy overlaps the transfer). */
static void send_own(struct rc_sched *s, const struct rc_cargs *a,
		     size_t disp, size_t count, int peer)
{
	if (a->sbuf == MPI_IN_PLACE)
		rc_sched_send(s, rc_off(a->rbuf, disp, a->rdt), count, a->rdt,
			      peer);
	else
		rc_sched_send(s, a->sbuf, a->scount, a->sdt, peer);
}

static int allgather_rd(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, mask;
	size_t rc = a->rcount;

	if (n == 1)
		allgather_own(s, a, 0, rc);
	for (mask = 1; mask < n; mask <<= 1) {
		int dst = r ^ mask;
		size_t mine = (size_t)(r & ~(mask - 1)) * rc;
		size_t theirs = (size_t)(dst & ~(mask - 1)) * rc;

		if (mask == 1)
			send_own(s, a, mine, rc, dst);
		else
			rc_sched_send(s, rc_off(a->rbuf, mine, a->rdt),
				      (size_t)mask * rc, a->rdt, dst);
		rc_sched_recv(s, rc_off(a->rbuf, theirs, a->rdt),
			      (size_t)mask * rc, a->rdt, dst);
		if (mask == 1)
			allgather_own(s, a, (size_t)r * rc, rc);
		rc_sched_wait(s);
	}
	return RC_OK;
}

static int allgather_bruck(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, pof;
	size_t rc = a->rcount, bs = rc * a->rdt->size;
	char *t;

	if (n == 1) {
		allgather_own(s, a, 0, rc);
		return RC_OK;
	}
	t = rc_sched_tmp(s, (size_t)n * bs);
	if (!t)
		return RC_ERR_NOMEM;
	if (a->sbuf == MPI_IN_PLACE)
		rc_sched_copy(s, rc_off(a->rbuf, (size_t)r * rc, a->rdt), rc,
			      a->rdt, t, bs, &rc_mpi_byte);
	else
		rc_sched_copy(s, a->sbuf, a->scount, a->sdt, t, bs,
			      &rc_mpi_byte);
	/* t[i] holds the block of rank r + i */
	for (pof = 1; pof < n; pof <<= 1) {
		size_t cnt = (size_t)(pof < n - pof ? pof : n - pof);

		rc_sched_send(s, t, cnt * bs, &rc_mpi_byte, (r - pof + n) % n);
		rc_sched_recv(s, t + (size_t)pof * bs, cnt * bs, &rc_mpi_byte,
			      (r + pof) % n);
		rc_sched_wait(s);
	}
	rotate(s, t, bs, a->rbuf, rc, a->rdt, r, n, true, -1);
	return RC_OK;
}

static int allgather_ring(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;
	size_t rc = a->rcount;

	if (n == 1)
		allgather_own(s, a, 0, rc);
	for (i = 0; i < n - 1; i++) {
		int sb = (r - i + n) % n, rb = (r - i - 1 + n) % n;

		if (!i)
			send_own(s, a, (size_t)r * rc, rc, (r + 1) % n);
		else
			rc_sched_send(s, rc_off(a->rbuf, (size_t)sb * rc,
						a->rdt),
				      rc, a->rdt, (r + 1) % n);
		rc_sched_recv(s, rc_off(a->rbuf, (size_t)rb * rc, a->rdt), rc,
			      a->rdt, (r - 1 + n) % n);
		if (!i)
			allgather_own(s, a, (size_t)r * rc, rc);
		rc_sched_wait(s);
	}
	return RC_OK;
}

const struct rc_coll_alg rc_allgather_algs[] = {
	{ "recursive_doubling", allgather_rd, usable_pof2, NULL },
	{ "bruck", allgather_bruck, NULL, NULL },
	{ "ring", allgather_ring, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

int rc_allgather_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	size_t total = a->rcount * a->rdt->size * (size_t)c->size;

	if (total < rc_coll_tune(c)->allgather_short)
		return usable_pof2(c, a) ? 0 : 1;
	return 2;
}

static int allgatherv_ring(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;
	const int *rc = a->rcounts, *d = a->rdispls;

	if (n == 1)
		allgather_own(s, a, (size_t)d[r], (size_t)rc[r]);
	for (i = 0; i < n - 1; i++) {
		int sb = (r - i + n) % n, rb = (r - i - 1 + n) % n;

		if (!i)
			send_own(s, a, (size_t)d[r], (size_t)rc[r],
				 (r + 1) % n);
		else
			rc_sched_send(s, rc_off(a->rbuf, (size_t)d[sb],
						a->rdt),
				      (size_t)rc[sb], a->rdt, (r + 1) % n);
		rc_sched_recv(s, rc_off(a->rbuf, (size_t)d[rb], a->rdt),
			      (size_t)rc[rb], a->rdt, (r - 1 + n) % n);
		if (!i)
			allgather_own(s, a, (size_t)d[r], (size_t)rc[r]);
		rc_sched_wait(s);
	}
	return RC_OK;
}

static int allgatherv_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;
	const int *rc = a->rcounts, *d = a->rdispls;
	const void *mine = a->sbuf;
	size_t mc = a->scount;
	struct rc_dtype *mdt = a->sdt;

	if (a->sbuf == MPI_IN_PLACE) {
		mine = rc_off(a->rbuf, (size_t)d[r], a->rdt);
		mc = (size_t)rc[r];
		mdt = a->rdt;
	}
	for (i = 0; i < n; i++) {
		if (i == r)
			continue;
		rc_sched_recv(s, rc_off(a->rbuf, (size_t)d[i], a->rdt),
			      (size_t)rc[i], a->rdt, i);
		rc_sched_send(s, mine, mc, mdt, i);
	}
	allgather_own(s, a, (size_t)d[r], (size_t)rc[r]);
	return RC_OK;
}

const struct rc_coll_alg rc_allgatherv_algs[] = {
	{ "ring", allgatherv_ring, NULL, NULL },
	{ "linear", allgatherv_linear, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

int rc_allgatherv_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	return 0;
}
