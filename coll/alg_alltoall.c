/*
 * alg_alltoall.c - MPI_Alltoall and MPI_Alltoallv schedules.
 *
 * Alltoall
 *   bruck     ceil(log2 n) steps (small blocks, many ranks): rotate the
 *             blocks so block i goes to rank + i, then in step k send every
 *             block whose index has bit k set to rank + 2^k, and finally
 *             undo the rotation (packed bytes throughout)
 *   linear    every receive and send posted at once (MPICH's
 *             isend/irecv algorithm for medium sizes)
 *   pairwise  n - 1 steps: send to rank + i, receive from rank - i
 * Alltoallv: linear, pairwise.
 * MPI_IN_PLACE: the blocks are first copied, packed, out of rbuf, which
 * then serves as the send buffer's twin (every algorithm).
 */
#include "coll_impl.h"

/* MPI_IN_PLACE: a packed copy of rbuf as the send side of b. */
static int a2a_inplace(struct rc_sched *s, const struct rc_cargs *a,
		       struct rc_cargs *b)
{
	int n = s->comm->size;
	size_t bs = a->rcount * a->rdt->size;
	char *t = rc_sched_tmp(s, (size_t)n * bs);

	*b = *a;
	if (!t)
		return RC_ERR_NOMEM;
	rc_sched_copy(s, a->rbuf, (size_t)n * a->rcount, a->rdt, t,
		      (size_t)n * bs, &rc_mpi_byte);
	b->sbuf = t;
	b->scount = bs;
	b->sdt = &rc_mpi_byte;
	return RC_OK;
}

#define A2A_PREP(s, a, b)                                                  \
	do {                                                               \
		if ((a)->sbuf == MPI_IN_PLACE) {                           \
			int ret_ = a2a_inplace(s, a, &(b));                \
			if (ret_)                                          \
				return ret_;                               \
			(a) = &(b);                                        \
		}                                                          \
	} while (0)

static inline const char *sblk(const struct rc_cargs *a, int i)
{
	return rc_off(a->sbuf, (size_t)i * a->scount, a->sdt);
}

static inline char *rblk(const struct rc_cargs *a, int i)
{
	return rc_off(a->rbuf, (size_t)i * a->rcount, a->rdt);
}

static int alltoall_pairwise(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;
	struct rc_cargs b;

	A2A_PREP(s, a, b);
	for (i = 1; i < n; i++) {
		int dst = (r + i) % n, src = (r - i + n) % n;

		rc_sched_send(s, sblk(a, dst), a->scount, a->sdt, dst);
		rc_sched_recv(s, rblk(a, src), a->rcount, a->rdt, src);
		/* my own block while the first messages travel */
		if (i == 1)
			rc_sched_copy(s, sblk(a, r), a->scount, a->sdt,
				      rblk(a, r), a->rcount, a->rdt);
		rc_sched_wait(s);
	}
	if (n == 1)
		rc_sched_copy(s, sblk(a, r), a->scount, a->sdt, rblk(a, r),
			      a->rcount, a->rdt);
	return RC_OK;
}

static int alltoall_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;
	struct rc_cargs b;

	A2A_PREP(s, a, b);
	for (i = 1; i < n; i++) {
		int src = (r - i + n) % n;

		rc_sched_recv(s, rblk(a, src), a->rcount, a->rdt, src);
	}
	for (i = 1; i < n; i++) {
		int dst = (r + i) % n;

		rc_sched_send(s, sblk(a, dst), a->scount, a->sdt, dst);
	}
	rc_sched_copy(s, sblk(a, r), a->scount, a->sdt, rblk(a, r), a->rcount,
		      a->rdt);
	return RC_OK;
}

static int alltoall_bruck(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, pof, i;
	size_t bs = a->rcount * a->rdt->size, half = (size_t)(n + 1) / 2, k;
	char *t, *p, *q;

	if (n == 1)
		return alltoall_pairwise(s, a);
	t = rc_sched_tmp(s, (size_t)n * bs);
	p = rc_sched_tmp(s, half * bs);
	q = rc_sched_tmp(s, half * bs);
	if (!t || !p || !q)
		return RC_ERR_NOMEM;
	/* t[i] = my block for rank r + i (under MPI_IN_PLACE sbuf is rbuf,
	 * read here before anything writes it) */
	if (a->sbuf == MPI_IN_PLACE) {
		rc_sched_copy(s, rblk(a, r), (size_t)(n - r) * a->rcount,
			      a->rdt, t, (size_t)(n - r) * bs, &rc_mpi_byte);
		rc_sched_copy(s, a->rbuf, (size_t)r * a->rcount, a->rdt,
			      t + (size_t)(n - r) * bs, (size_t)r * bs,
			      &rc_mpi_byte);
	} else {
		rc_sched_copy(s, sblk(a, r), (size_t)(n - r) * a->scount,
			      a->sdt, t, (size_t)(n - r) * bs, &rc_mpi_byte);
		rc_sched_copy(s, a->sbuf, (size_t)r * a->scount, a->sdt,
			      t + (size_t)(n - r) * bs, (size_t)r * bs,
			      &rc_mpi_byte);
	}
	for (pof = 1; pof < n; pof <<= 1) {
		for (i = 0, k = 0; i < n; i++)
			if (i & pof)
				rc_sched_copy(s, t + (size_t)i * bs, bs,
					      &rc_mpi_byte, p + k++ * bs, bs,
					      &rc_mpi_byte);
		rc_sched_send(s, p, k * bs, &rc_mpi_byte, (r + pof) % n);
		rc_sched_recv(s, q, k * bs, &rc_mpi_byte, (r - pof + n) % n);
		rc_sched_wait(s);
		for (i = 0, k = 0; i < n; i++)
			if (i & pof)
				rc_sched_copy(s, q + k++ * bs, bs, &rc_mpi_byte,
					      t + (size_t)i * bs, bs,
					      &rc_mpi_byte);
	}
	/* t[i] came from rank r - i */
	for (i = 0; i < n; i++)
		rc_sched_copy(s, t + (size_t)i * bs, bs, &rc_mpi_byte,
			      rblk(a, (r - i + n) % n), a->rcount, a->rdt);
	return RC_OK;
}

const struct rc_coll_alg rc_alltoall_algs[] = {
	{ "bruck", alltoall_bruck, NULL, NULL },
	{ "linear", alltoall_linear, NULL, NULL },
	{ "pairwise", alltoall_pairwise, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

int rc_alltoall_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	const struct rc_coll_tune *t = rc_coll_tune(c);
	size_t bs = a->rcount * a->rdt->size;

	if (bs <= t->alltoall_short && c->size >= 8)
		return 0;
	if (bs <= t->alltoall_medium)
		return 1;
	return 2;
}

/* ---- alltoallv ----------------------------------------------------------- */

/* MPI_IN_PLACE: pack rbuf's blocks into scratch, described in bytes. */
static int a2av_inplace(struct rc_sched *s, const struct rc_cargs *a,
			struct rc_cargs *b)
{
	int n = s->comm->size, i;
	size_t rsz = a->rdt->size, off = 0;
	int *sc = rc_sched_tmp(s, sizeof(int) * 2 * (size_t)n), *sd;
	char *t;

	*b = *a;
	if (!sc)
		return RC_ERR_NOMEM;
	sd = sc + n;
	for (i = 0; i < n; i++) {
		sc[i] = (int)((size_t)a->rcounts[i] * rsz);
		sd[i] = (int)off;
		off += (size_t)sc[i];
	}
	t = rc_sched_tmp(s, off);
	if (!t)
		return RC_ERR_NOMEM;
	for (i = 0; i < n; i++)
		rc_sched_copy(s, rc_off(a->rbuf, (size_t)a->rdispls[i], a->rdt),
			      (size_t)a->rcounts[i], a->rdt, t + sd[i],
			      (size_t)sc[i], &rc_mpi_byte);
	b->sbuf = t;
	b->scounts = sc;
	b->sdispls = sd;
	b->sdt = &rc_mpi_byte;
	return RC_OK;
}

#define A2AV_PREP(s, a, b)                                                 \
	do {                                                               \
		if ((a)->sbuf == MPI_IN_PLACE) {                           \
			int ret_ = a2av_inplace(s, a, &(b));               \
			if (ret_)                                          \
				return ret_;                               \
			(a) = &(b);                                        \
		}                                                          \
	} while (0)

static inline const char *svblk(const struct rc_cargs *a, int i)
{
	return rc_off(a->sbuf, (size_t)a->sdispls[i], a->sdt);
}

static inline char *rvblk(const struct rc_cargs *a, int i)
{
	return rc_off(a->rbuf, (size_t)a->rdispls[i], a->rdt);
}

static int alltoallv_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;
	struct rc_cargs b;

	A2AV_PREP(s, a, b);
	for (i = 1; i < n; i++) {
		int src = (r - i + n) % n;

		rc_sched_recv(s, rvblk(a, src), (size_t)a->rcounts[src],
			      a->rdt, src);
	}
	for (i = 1; i < n; i++) {
		int dst = (r + i) % n;

		rc_sched_send(s, svblk(a, dst), (size_t)a->scounts[dst],
			      a->sdt, dst);
	}
	rc_sched_copy(s, svblk(a, r), (size_t)a->scounts[r], a->sdt,
		      rvblk(a, r), (size_t)a->rcounts[r], a->rdt);
	return RC_OK;
}

static int alltoallv_pairwise(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;
	struct rc_cargs b;

	A2AV_PREP(s, a, b);
	for (i = 1; i < n; i++) {
		int dst = (r + i) % n, src = (r - i + n) % n;

		rc_sched_send(s, svblk(a, dst), (size_t)a->scounts[dst],
			      a->sdt, dst);
		rc_sched_recv(s, rvblk(a, src), (size_t)a->rcounts[src],
			      a->rdt, src);
		if (i == 1)
			rc_sched_copy(s, svblk(a, r), (size_t)a->scounts[r],
				      a->sdt, rvblk(a, r),
				      (size_t)a->rcounts[r], a->rdt);
		rc_sched_wait(s);
	}
	if (n == 1)
		rc_sched_copy(s, svblk(a, r), (size_t)a->scounts[r], a->sdt,
			      rvblk(a, r), (size_t)a->rcounts[r], a->rdt);
	return RC_OK;
}

const struct rc_coll_alg rc_alltoallv_algs[] = {
	{ "linear", alltoallv_linear, NULL, NULL },
	{ "pairwise", alltoallv_pairwise, NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

int rc_alltoallv_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	return 0;
}
