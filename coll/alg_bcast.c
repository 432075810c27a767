/*
 * alg_bcast.c - MPI_Barrier and MPI_Bcast schedules.
 *
 * Barrier
 *   dissemination  round k: send to rank + 2^k, receive from rank - 2^k
 *                  (ceil(log2 n) rounds of empty messages, any n)
 *   linear         everyone sends to 0; 0 answers everyone
 * Bcast (relative rank vr = (rank - root) mod n)
 *   binomial          vr receives from vr - lowbit(vr), then sends to
 *                     vr + 2^k for the 2^k below lowbit(vr), largest first
 *   scatter_allgather the root's data cut in n blocks, scattered down the
 *                     binomial tree (each subtree gets its range of
 *                     blocks), then a ring allgather (MPICH's long-message
 *                     bcast); non-contiguous data travels packed
 *   linear            the root sends to every rank
 */
#include "coll_impl.h"

/* ---- barrier ------------------------------------------------------------- */

static int barrier_dissemination(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, d;

	for (d = 1; d < n; d <<= 1) {
		rc_sched_recv(s, NULL, 0, &rc_mpi_byte, (r - d + n) % n);
		rc_sched_send(s, NULL, 0, &rc_mpi_byte, (r + d) % n);
		rc_sched_wait(s);
	}
	return RC_OK;
}

static int barrier_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;

	if (r) {
		rc_sched_send(s, NULL, 0, &rc_mpi_byte, 0);
		rc_sched_recv(s, NULL, 0, &rc_mpi_byte, 0);
		return RC_OK;
	}
	for (i = 1; i < n; i++)
		rc_sched_recv(s, NULL, 0, &rc_mpi_byte, i);
	rc_sched_wait(s);
	for (i = 1; i < n; i++)
		rc_sched_send(s, NULL, 0, &rc_mpi_byte, i);
	return RC_OK;
}

const struct rc_coll_alg rc_barrier_algs[] = {
	{ "dissemination", barrier_dissemination, NULL, NULL },
	{ "linear", barrier_linear, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

int rc_barrier_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	return 0;
}

/* ---- bcast --------------------------------------------------------------- */

int rc_bcast_binomial(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank;
	int vr = (r - a->root + n) % n, mask;

	for (mask = 1; mask < n; mask <<= 1)
		if (vr & mask) {
			rc_sched_recv(s, a->rbuf, a->count, a->dt,
				      (r - mask + n) % n);
			rc_sched_wait(s);
			break;
		}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (vr + mask < n)
			rc_sched_send(s, a->rbuf, a->count, a->dt,
				      (r + mask) % n);
	rc_sched_wait(s);
	return RC_OK;
}

static int bcast_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;

	if (r != a->root) {
		rc_sched_recv(s, a->rbuf, a->count, a->dt, a->root);
		return RC_OK;
	}
	for (i = 0; i < n; i++)
		if (i != r)
			rc_sched_send(s, a->rbuf, a->count, a->dt, i);
	return RC_OK;
}

/* Bytes [lo, hi) of blocks [b0, b1) of size bs in a stream of len. */
static size_t blk_lo(size_t b, size_t bs, size_t len)
{
	return b * bs < len ? b * bs : len;
}

static int bcast_scatter_allgather(struct rc_sched *s,
				   const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank;
	int vr = (r - a->root + n) % n, mask, i;
	size_t len = a->count * a->dt->size, bs, lo, hi;
	bool contig = rc_dt_is_contig(a->dt, a->count);
	char *buf;

	if (n == 1 || !len)
		return RC_OK;
	if (contig) {
		buf = rc_dt_contig_ptr(a->dt, a->rbuf);
	} else {
		buf = rc_sched_tmp(s, len);
		if (!buf)
			return RC_ERR_NOMEM;
		if (r == a->root)
			rc_sched_copy(s, a->rbuf, a->count, a->dt, buf, len,
				      &rc_mpi_byte);
	}
	bs = (len + (size_t)n - 1) / (size_t)n;
	/* scatter: my subtree [vr, vr + lowbit) receives its blocks */
	for (mask = 1; mask < n; mask <<= 1)
		if (vr & mask) {
			int end = vr + mask < n ? vr + mask : n;

			lo = blk_lo((size_t)vr, bs, len);
			hi = blk_lo((size_t)end, bs, len);
			rc_sched_recv(s, buf + lo, hi - lo, &rc_mpi_byte,
				      (r - mask + n) % n);
			rc_sched_wait(s);
			break;
		}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (vr + mask < n) {
			int c = vr + mask, end = c + mask < n ? c + mask : n;

			lo = blk_lo((size_t)c, bs, len);
			hi = blk_lo((size_t)end, bs, len);
			rc_sched_send(s, buf + lo, hi - lo, &rc_mpi_byte,
				      (r + mask) % n);
		}
	rc_sched_wait(s);
	/* ring allgather of the blocks, in relative ranks */
	for (i = 0; i < n - 1; i++) {
		int sb = (vr - i + n) % n, rb = (vr - i - 1 + n) % n;

		lo = blk_lo((size_t)sb, bs, len);
		hi = blk_lo((size_t)sb + 1, bs, len);
		rc_sched_send(s, buf + lo, hi - lo, &rc_mpi_byte, (r + 1) % n);
		lo = blk_lo((size_t)rb, bs, len);
		hi = blk_lo((size_t)rb + 1, bs, len);
		rc_sched_recv(s, buf + lo, hi - lo, &rc_mpi_byte,
			      (r - 1 + n) % n);
		rc_sched_wait(s);
	}
	if (!contig && r != a->root)
		rc_sched_copy(s, buf, len, &rc_mpi_byte, a->rbuf, a->count,
			      a->dt);
	return RC_OK;
}

const struct rc_coll_alg rc_bcast_algs[] = {
	{ "binomial", rc_bcast_binomial, NULL, NULL },
	{ "scatter_allgather", bcast_scatter_allgather, NULL, NULL },
	{ "linear", bcast_linear, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

int rc_bcast_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	const struct rc_coll_tune *t = rc_coll_tune(c);
	size_t len = a->count * a->dt->size;

	/* scatter+allgather trades bandwidth for 2(n-1) message steps;
	 * with more ranks than cores (on any node) each step waits for a
	 * context switch and the tree's log2(n) rounds win (8 ranks on 2
	 * cores: 2.5x at 1 MiB) */
	if (len < t->bcast_short || (size_t)c->size < t->bcast_min_procs ||
	    c->inst->job_oversubscribed)
		return 0;
	return 1;
}
