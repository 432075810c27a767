/*
 * alg_nbr.c - MPI_Alltoallw and the neighbourhood collectives
 * (MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v, w)) schedules.
 *
 * Alltoallw: a datatype per block, displacements in bytes.
 *   linear    every receive and send posted at once
 *   pairwise  n - 1 steps: send to rank + i, receive from rank - i
 *   On an intercommunicator: linear over the remote group.
 *   MPI_IN_PLACE (intra): the blocks are first copied, packed, out of rbuf.
 *
 * Neighbourhood collectives (linear, the only sensible shape: every
 * process talks to its own neighbours): receives from the in-neighbours
 * and sends to the out-neighbours, all posted at once, in slot order
 * (topo.h). A call takes the topology's ntags tags and each slot's
 * message carries its own offset, so a process that is a neighbour in
 * several slots gets every block in the slot the standard names
 * (Cartesian: the -1 / +1 blocks of a dimension cross; graphs: k-th edge
 * to k-th edge). MPI_PROC_NULL neighbours (Cartesian edges) are skipped:
 * their receive blocks stay untouched. A blocking call of at most 32
 * messages skips the schedule (nbr_direct: same messages, same tags).
 */
#include "coll_impl.h"
#include "pt2pt.h"
#include "topo.h"

/* ---- alltoallw ----------------------------------------------------------- */

static inline const char *swblk(const struct rc_cargs *a, int i)
{
	return (const char *)a->sbuf + a->sdispls[i];
}

static inline char *rwblk(const struct rc_cargs *a, int i)
{
	return (char *)a->rbuf + a->rdispls[i];
}

/* A block's type, or bytes for an empty block (whose type the standard
 * leaves insignificant: it may be MPI_DATATYPE_NULL). */
static inline struct rc_dtype *wdt(struct rc_dtype *const *dts, const int *n,
				   int i)
{
	return n[i] ? dts[i] : &rc_mpi_byte;
}

/* MPI_IN_PLACE: rbuf's blocks packed into scratch; b's send side is the
 * packed copy, in bytes. */
static int a2aw_inplace(struct rc_sched *s, const struct rc_cargs *a,
			struct rc_cargs *b)
{
	int n = s->comm->size, i;
	int *sc = rc_sched_tmp(s, sizeof(int) * 2 * (size_t)n), *sd;
	struct rc_dtype **st = rc_sched_tmp(s, sizeof(*st) * (size_t)n);
	size_t off = 0;
	char *t;

	*b = *a;
	if (!sc || !st)
		return RC_ERR_NOMEM;
	sd = sc + n;
	for (i = 0; i < n; i++) {
		sc[i] = (int)((size_t)a->rcounts[i] *
			      wdt(a->rdts, a->rcounts, i)->size);
		sd[i] = (int)off;
		st[i] = &rc_mpi_byte;
		off += (size_t)sc[i];
	}
	t = rc_sched_tmp(s, off);
	if (!t)
		return RC_ERR_NOMEM;
	for (i = 0; i < n; i++)
		rc_sched_copy(s, rwblk(a, i), (size_t)a->rcounts[i],
			      wdt(a->rdts, a->rcounts, i), t + sd[i],
			      (size_t)sc[i], &rc_mpi_byte);
	b->sbuf = t;
	b->scounts = sc;
	b->sdispls = sd;
	b->sdts = st;
	return RC_OK;
}

#define A2AW_PREP(s, a, b)                                   \
	do {                                                 \
		if ((a)->sbuf == MPI_IN_PLACE) {             \
			int ret_ = a2aw_inplace(s, a, &(b)); \
			if (ret_)                            \
				return ret_;                 \
			(a) = &(b);                          \
		}                                            \
	} while (0)

/* Keep every user type of the call alive until it completes. */
static void hold_types(struct rc_sched *s, const struct rc_cargs *a, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (a->sbuf != MPI_IN_PLACE)
			rc_sched_hold_dt(s, wdt(a->sdts, a->scounts, i));
		rc_sched_hold_dt(s, wdt(a->rdts, a->rcounts, i));
	}
}

static int alltoallw_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;
	struct rc_cargs b;

	hold_types(s, a, n);
	A2AW_PREP(s, a, b);
	for (i = 1; i < n; i++) {
		int src = (r - i + n) % n;

		rc_sched_recv(s, rwblk(a, src), (size_t)a->rcounts[src],
			      wdt(a->rdts, a->rcounts, src), src);
	}
	for (i = 1; i < n; i++) {
		int dst = (r + i) % n;

		rc_sched_send(s, swblk(a, dst), (size_t)a->scounts[dst],
			      wdt(a->sdts, a->scounts, dst), dst);
	}
	rc_sched_copy(s, swblk(a, r), (size_t)a->scounts[r],
		      wdt(a->sdts, a->scounts, r), rwblk(a, r),
		      (size_t)a->rcounts[r], wdt(a->rdts, a->rcounts, r));
	return RC_OK;
}

static int alltoallw_pairwise(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm->size, r = s->comm->rank, i;
	struct rc_cargs b;

	hold_types(s, a, n);
	A2AW_PREP(s, a, b);
	rc_sched_copy(s, swblk(a, r), (size_t)a->scounts[r],
		      wdt(a->sdts, a->scounts, r), rwblk(a, r),
		      (size_t)a->rcounts[r], wdt(a->rdts, a->rcounts, r));
	for (i = 1; i < n; i++) {
		int dst = (r + i) % n, src = (r - i + n) % n;

		rc_sched_send(s, swblk(a, dst), (size_t)a->scounts[dst],
			      wdt(a->sdts, a->scounts, dst), dst);
		rc_sched_recv(s, rwblk(a, src), (size_t)a->rcounts[src],
			      wdt(a->rdts, a->rcounts, src), src);
		rc_sched_wait(s);
	}
	return RC_OK;
}

const struct rc_coll_alg rc_alltoallw_algs[] = {
	{"linear", alltoallw_linear, NULL, NULL},
	{"pairwise", alltoallw_pairwise, NULL, NULL},
	{NULL, NULL, NULL, NULL},
};

int rc_alltoallw_choose(const struct rc_comm *c, const struct rc_cargs *a)
{
	(void)c;
	(void)a;
	return 0;
}

/* Intercommunicator: every remote rank's block posted at once. */
int rc_inter_alltoallw_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int m = s->comm0->rgroup->size, r = s->comm0->rank, i;

	hold_types(s, a, m);
	for (i = 0; i < m; i++) {
		int j = (r + i) % m;

		rc_sched_recv(s, rwblk(a, j), (size_t)a->rcounts[j],
			      wdt(a->rdts, a->rcounts, j), j);
	}
	for (i = 0; i < m; i++) {
		int j = (r + i) % m;

		rc_sched_send(s, swblk(a, j), (size_t)a->scounts[j],
			      wdt(a->sdts, a->scounts, j), j);
	}
	return RC_OK;
}

/* ---- neighbourhood collectives ------------------------------------------- */

/* Where block i of a neighbourhood call lives and what it holds. */
struct blk {
	const char *buf;
	size_t count;
	struct rc_dtype *dt;
};

enum { NB_ALLGATHER, NB_ALLGATHERV, NB_ALLTOALL, NB_ALLTOALLV, NB_ALLTOALLW };

static struct blk rblk(const struct rc_cargs *a, int kind, int i)
{
	struct blk b = {NULL, 0, a->rdt};

	switch (kind) {
	case NB_ALLGATHER:
	case NB_ALLTOALL:
		b.buf = rc_off(a->rbuf, (size_t)i * a->rcount, a->rdt);
		b.count = a->rcount;
		break;
	case NB_ALLGATHERV:
	case NB_ALLTOALLV:
		b.buf = rc_off(a->rbuf, (size_t)a->rdispls[i], a->rdt);
		b.count = (size_t)a->rcounts[i];
		break;
	default:
		b.buf = (char *)a->rbuf + a->rbdispls[i];
		b.count = (size_t)a->rcounts[i];
		b.dt = wdt(a->rdts, a->rcounts, i);
		break;
	}
	return b;
}

static struct blk sblk(const struct rc_cargs *a, int kind, int i)
{
	struct blk b = {NULL, 0, a->sdt};

	switch (kind) {
	case NB_ALLGATHER:
	case NB_ALLGATHERV:
		b.buf = a->sbuf;
		b.count = a->scount;
		break;
	case NB_ALLTOALL:
		b.buf = rc_off(a->sbuf, (size_t)i * a->scount, a->sdt);
		b.count = a->scount;
		break;
	case NB_ALLTOALLV:
		b.buf = rc_off(a->sbuf, (size_t)a->sdispls[i], a->sdt);
		b.count = (size_t)a->scounts[i];
		break;
	default:
		b.buf = (const char *)a->sbuf + a->sbdispls[i];
		b.count = (size_t)a->scounts[i];
		b.dt = wdt(a->sdts, a->scounts, i);
		break;
	}
	return b;
}

static int nbr(struct rc_sched *s, const struct rc_cargs *a, int kind)
{
	const struct rc_topo *t = s->comm->topo;
	int i;

	rc_coll_more_tags(s->comm, t->ntags);
	if (kind == NB_ALLTOALLW) {
		for (i = 0; i < t->nin; i++)
			rc_sched_hold_dt(s, wdt(a->rdts, a->rcounts, i));
		for (i = 0; i < t->nout; i++)
			rc_sched_hold_dt(s, wdt(a->sdts, a->scounts, i));
	}
	for (i = 0; i < t->nin; i++) {
		struct blk b = rblk(a, kind, i);

		if (t->nbr_in[i] == MPI_PROC_NULL)
			continue;
		rc_sched_tagoff(s, t->tag_in[i]);
		rc_sched_recv(s, (void *)b.buf, b.count, b.dt, t->nbr_in[i]);
	}
	for (i = 0; i < t->nout; i++) {
		struct blk b = sblk(a, kind, i);

		if (t->nbr_out[i] == MPI_PROC_NULL)
			continue;
		rc_sched_tagoff(s, t->tag_out[i]);
		rc_sched_send(s, b.buf, b.count, b.dt, t->nbr_out[i]);
	}
	rc_sched_tagoff(s, 0);
	return RC_OK;
}

/* Most requests a blocking call posts without a schedule. */
#define NBR_DIRECT_MAX 32

/* A blocking call with few neighbours: the same messages with the same
 * tags as nbr()'s schedule (so ranks may choose differently), but the
 * receives posted as plain requests, the sends leaving at once where they
 * can, and everything waited here: no schedule to build and run. */
static int nbr_direct(struct rc_comm *c, const struct rc_cargs *a, int kind)
{
	const struct rc_topo *t = c->topo;
	struct rc_req *rq[NBR_DIRECT_MAX];
	uint32_t ctx = rc_comm_coll_ctx(c);
	int n = 0, i, ret = RC_OK, r, tag;

	if (t->nin + t->nout > NBR_DIRECT_MAX)
		return RC_AGAIN;
	tag = rc_coll_next_tag(c);
	rc_coll_more_tags(c, t->ntags);
	for (i = 0; i < t->nin; i++) {
		struct blk b = rblk(a, kind, i);
		int tg = (int)((unsigned)(tag + t->tag_in[i]) & 0x7fffffffu);

		if (t->nbr_in[i] == MPI_PROC_NULL)
			continue;
		r = rc_p2p_irecv(c, ctx, (void *)b.buf, b.count, b.dt,
				 t->nbr_in[i], tg, &rq[n]);
		if (r && !ret)
			ret = r;
		n += !r;
	}
	for (i = 0; i < t->nout; i++) {
		struct blk b = sblk(a, kind, i);
		int tg = (int)((unsigned)(tag + t->tag_out[i]) & 0x7fffffffu);

		if (t->nbr_out[i] == MPI_PROC_NULL)
			continue;
		r = rc_p2p_send_now(c, ctx, b.buf, b.count, b.dt,
				    t->nbr_out[i], tg);
		if (r == RC_AGAIN) {
			r = rc_p2p_isend(c, ctx, b.buf, b.count, b.dt,
					 t->nbr_out[i], tg, RC_SEND_STD, &rq[n]);
			n += !r;
		}
		if (r && !ret)
			ret = r;
	}
	for (i = 0; i < n; i++) {
		rc_req_wait_done(rq[i]);
		if (rq[i]->err && !ret)
			ret = rq[i]->err;
		rc_req_free(rq[i]);
	}
	return ret;
}

#define NBR_ALG(name, kind)                                                    \
	static int name##_linear(struct rc_sched *s, const struct rc_cargs *a) \
	{                                                                      \
		return nbr(s, a, kind);                                        \
	}                                                                      \
	static int name##_direct(struct rc_comm *c, const struct rc_cargs *a)  \
	{                                                                      \
		return nbr_direct(c, a, kind);                                 \
	}                                                                      \
	const struct rc_coll_alg rc_##name##_algs[] = {                        \
		{"linear", name##_linear, NULL, name##_direct},                \
		{NULL, NULL, NULL, NULL},                                      \
	};                                                                     \
	int rc_##name##_choose(const struct rc_comm *c,                        \
			       const struct rc_cargs *a)                       \
	{                                                                      \
		(void)c;                                                       \
		(void)a;                                                       \
		return 0;                                                      \
	}

NBR_ALG(neighbor_allgather, NB_ALLGATHER)
NBR_ALG(neighbor_allgatherv, NB_ALLGATHERV)
NBR_ALG(neighbor_alltoall, NB_ALLTOALL)
NBR_ALG(neighbor_alltoallv, NB_ALLTOALLV)
NBR_ALG(neighbor_alltoallw, NB_ALLTOALLW)
