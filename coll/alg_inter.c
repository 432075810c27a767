/*
 * alg_inter.c - the collectives on intercommunicators (MPI-3.1 §5.2.2):
 * every one of them moves data between the two groups.
 *
 * A schedule on an intercommunicator has two sides (sched.c): side 0
 * talks to the remote group (ranks are remote ranks, the
 * intercommunicator's collective context), side 1 to the local group (the
 * intercommunicator's local intracommunicator, context RC_CTX_GROUP), both
 * with the collective's one tag. Local steps are the intracommunicator
 * algorithms appended on side 1 (chosen as for a call of their own);
 * "leader" below is local rank 0. Packed bytes travel wherever blocks are
 * forwarded, as in alg_gather.c.
 *
 * Rooted collectives: the root passes MPI_ROOT, the rest of its group
 * MPI_PROC_NULL (nothing to do), the other group the root's rank.
 *   barrier        local barrier, the leaders swap an empty message, local
 *                  bcast of one byte: nobody leaves before both groups came
 *   bcast          leader: root -> leader -> local bcast; linear: root ->
 *                  every remote rank
 *   gather         leader: local gather at the leader, one message to the
 *                  root (blocks < GATHER_SHORT); linear: each -> root
 *   scatter        the mirror images; gatherv, scatterv: linear
 *   allgather      leader: local gathers, leaders swap, local bcasts;
 *                  linear: everyone with every remote rank
 *   allgatherv     linear
 *   alltoall(v/w)  linear: every remote rank's block posted at once (w:
 *                  alg_nbr.c)
 *   reduce         leader: local reduce, one message to the root (in rank
 *                  order: non-commutative ops are fine); linear: the root
 *                  reduces every remote rank's vector in rank order
 *   allreduce      local reduce, leaders swap, local bcast
 *   reduce_scatter(_block)  local reduce, leaders swap, local scatter(v)
 * Scan and exscan are not defined on intercommunicators (the API refuses
 * them), nor is MPI_IN_PLACE.
 */
#include <string.h>
#include "coll_impl.h"

enum { LOCAL = 1, REMOTE = 0 };

/* Bytes of count elements of dt. */
static inline size_t nbytes(size_t count, const struct rc_dtype *dt)
{
	return dt ? count * dt->size : 0;
}

static int rsize(const struct rc_sched *s)
{
	return s->comm0->rgroup->size;
}

/* Append intra collective coll on the local side. */
static void local(struct rc_sched *s, int coll, const struct rc_cargs *a)
{
	rc_sched_use(s, LOCAL);
	if (!s->berr)
		s->berr = rc_coll_append(s, coll, a);
	rc_sched_wait(s);
	rc_sched_use(s, REMOTE);
}

static void local_bcast(struct rc_sched *s, void *buf, size_t count,
			struct rc_dtype *dt)
{
	struct rc_cargs b;

	memset(&b, 0, sizeof(b));
	b.rbuf = buf;
	b.count = count;
	b.dt = dt;
	local(s, RC_COLL_BCAST, &b);
}

static bool leader(const struct rc_sched *s)
{
	return s->comm0->rank == 0;
}

/* ---- barrier ------------------------------------------------------------- */

static int ibarrier_leader(struct rc_sched *s, const struct rc_cargs *a)
{
	struct rc_cargs b;
	char *t = rc_sched_tmp(s, 1);

	(void)a;
	memset(&b, 0, sizeof(b));
	local(s, RC_COLL_BARRIER, &b);
	if (leader(s)) {
		rc_sched_send(s, NULL, 0, &rc_mpi_byte, 0);
		rc_sched_recv(s, NULL, 0, &rc_mpi_byte, 0);
		rc_sched_wait(s);
	}
	local_bcast(s, t, 1, &rc_mpi_byte);
	return RC_OK;
}

/* ---- bcast --------------------------------------------------------------- */

static int ibcast_leader(struct rc_sched *s, const struct rc_cargs *a)
{
	if (a->root == MPI_PROC_NULL)
		return RC_OK;
	if (a->root == MPI_ROOT) {
		rc_sched_send(s, a->rbuf, a->count, a->dt, 0);
		return RC_OK;
	}
	if (leader(s)) {
		rc_sched_recv(s, a->rbuf, a->count, a->dt, a->root);
		rc_sched_wait(s);
	}
	local_bcast(s, a->rbuf, a->count, a->dt);
	return RC_OK;
}

static int ibcast_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int i;

	if (a->root == MPI_PROC_NULL)
		return RC_OK;
	if (a->root == MPI_ROOT) {
		for (i = 0; i < rsize(s); i++)
			rc_sched_send(s, a->rbuf, a->count, a->dt, i);
		return RC_OK;
	}
	rc_sched_recv(s, a->rbuf, a->count, a->dt, a->root);
	return RC_OK;
}

/* ---- gather, scatter ----------------------------------------------------- */

static int igather_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int i;

	if (a->root == MPI_PROC_NULL)
		return RC_OK;
	if (a->root != MPI_ROOT) {
		rc_sched_send(s, a->sbuf, a->scount, a->sdt, a->root);
		return RC_OK;
	}
	for (i = 0; i < rsize(s); i++)
		rc_sched_recv(s, rc_off(a->rbuf, (size_t)i * a->rcount, a->rdt),
			      a->rcount, a->rdt, i);
	return RC_OK;
}

static int igather_leader(struct rc_sched *s, const struct rc_cargs *a)
{
	size_t bs = nbytes(a->scount, a->sdt);
	int n = s->comm0->size;
	struct rc_cargs b;
	char *t;

	if (a->root == MPI_PROC_NULL)
		return RC_OK;
	if (a->root == MPI_ROOT) {
		/* one message: every remote block, in rank order */
		rc_sched_recv(s, a->rbuf, a->rcount * (size_t)rsize(s), a->rdt,
			      0);
		return RC_OK;
	}
	t = leader(s) ? rc_sched_tmp(s, bs * (size_t)n) : NULL;
	memset(&b, 0, sizeof(b));
	b.sbuf = a->sbuf;
	b.scount = a->scount;
	b.sdt = a->sdt;
	b.rbuf = t;
	b.rcount = bs;
	b.rdt = &rc_mpi_byte;
	local(s, RC_COLL_GATHER, &b);
	if (leader(s))
		rc_sched_send(s, t, bs * (size_t)n, &rc_mpi_byte, a->root);
	return RC_OK;
}

static int igatherv_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int i;

	if (a->root == MPI_PROC_NULL)
		return RC_OK;
	if (a->root != MPI_ROOT) {
		rc_sched_send(s, a->sbuf, a->scount, a->sdt, a->root);
		return RC_OK;
	}
	for (i = 0; i < rsize(s); i++)
		rc_sched_recv(s, rc_off(a->rbuf, (size_t)a->rdispls[i], a->rdt),
			      (size_t)a->rcounts[i], a->rdt, i);
	return RC_OK;
}

static int iscatter_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int i;

	if (a->root == MPI_PROC_NULL)
		return RC_OK;
	if (a->root != MPI_ROOT) {
		rc_sched_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
		return RC_OK;
	}
	for (i = 0; i < rsize(s); i++)
		rc_sched_send(s, rc_off(a->sbuf, (size_t)i * a->scount, a->sdt),
			      a->scount, a->sdt, i);
	return RC_OK;
}

static int iscatter_leader(struct rc_sched *s, const struct rc_cargs *a)
{
	size_t bs = nbytes(a->rcount, a->rdt);
	int n = s->comm0->size;
	struct rc_cargs b;
	char *t;

	if (a->root == MPI_PROC_NULL)
		return RC_OK;
	if (a->root == MPI_ROOT) {
		rc_sched_send(s, a->sbuf, a->scount * (size_t)rsize(s), a->sdt,
			      0);
		return RC_OK;
	}
	t = leader(s) ? rc_sched_tmp(s, bs * (size_t)n) : NULL;
	if (leader(s)) {
		rc_sched_recv(s, t, bs * (size_t)n, &rc_mpi_byte, a->root);
		rc_sched_wait(s);
	}
	memset(&b, 0, sizeof(b));
	b.sbuf = t;
	b.scount = bs;
	b.sdt = &rc_mpi_byte;
	b.rbuf = a->rbuf;
	b.rcount = a->rcount;
	b.rdt = a->rdt;
	local(s, RC_COLL_SCATTER, &b);
	return RC_OK;
}

static int iscatterv_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int i;

	if (a->root == MPI_PROC_NULL)
		return RC_OK;
	if (a->root != MPI_ROOT) {
		rc_sched_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
		return RC_OK;
	}
	for (i = 0; i < rsize(s); i++)
		rc_sched_send(s, rc_off(a->sbuf, (size_t)a->sdispls[i], a->sdt),
			      (size_t)a->scounts[i], a->sdt, i);
	return RC_OK;
}

/* ---- allgather ----------------------------------------------------------- */

static int iallgather_leader(struct rc_sched *s, const struct rc_cargs *a)
{
	size_t bs = nbytes(a->scount, a->sdt);
	int n = s->comm0->size, m = rsize(s);
	struct rc_cargs b;
	char *t = leader(s) ? rc_sched_tmp(s, bs * (size_t)n) : NULL;

	memset(&b, 0, sizeof(b));
	b.sbuf = a->sbuf;
	b.scount = a->scount;
	b.sdt = a->sdt;
	b.rbuf = t;
	b.rcount = bs;
	b.rdt = &rc_mpi_byte;
	local(s, RC_COLL_GATHER, &b);
	if (leader(s)) {
		rc_sched_send(s, t, bs * (size_t)n, &rc_mpi_byte, 0);
		rc_sched_recv(s, a->rbuf, a->rcount * (size_t)m, a->rdt, 0);
		rc_sched_wait(s);
	}
	local_bcast(s, a->rbuf, a->rcount * (size_t)m, a->rdt);
	return RC_OK;
}

static int iallgather_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int i, m = rsize(s);

	for (i = 0; i < m; i++)
		rc_sched_recv(s, rc_off(a->rbuf, (size_t)i * a->rcount, a->rdt),
			      a->rcount, a->rdt, i);
	for (i = 0; i < m; i++)
		rc_sched_send(s, a->sbuf, a->scount, a->sdt, i);
	return RC_OK;
}

static int iallgatherv_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int i, m = rsize(s);

	for (i = 0; i < m; i++)
		rc_sched_recv(s, rc_off(a->rbuf, (size_t)a->rdispls[i], a->rdt),
			      (size_t)a->rcounts[i], a->rdt, i);
	for (i = 0; i < m; i++)
		rc_sched_send(s, a->sbuf, a->scount, a->sdt, i);
	return RC_OK;
}

/* ---- alltoall(v, w) ------------------------------------------------------ */

/* Every remote rank's block posted at once, receives first, starting
 * from my own rank's position (so ranks do not all send to 0 first). */
static int ialltoall_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int i, m = rsize(s), r = s->comm0->rank;

	for (i = 0; i < m; i++) {
		int j = (r + i) % m;

		rc_sched_recv(s, rc_off(a->rbuf, (size_t)j * a->rcount, a->rdt),
			      a->rcount, a->rdt, j);
	}
	for (i = 0; i < m; i++) {
		int j = (r + i) % m;

		rc_sched_send(s, rc_off(a->sbuf, (size_t)j * a->scount, a->sdt),
			      a->scount, a->sdt, j);
	}
	return RC_OK;
}

static int ialltoallv_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int i, m = rsize(s), r = s->comm0->rank;

	for (i = 0; i < m; i++) {
		int j = (r + i) % m;

		rc_sched_recv(s, rc_off(a->rbuf, (size_t)a->rdispls[j], a->rdt),
			      (size_t)a->rcounts[j], a->rdt, j);
	}
	for (i = 0; i < m; i++) {
		int j = (r + i) % m;

		rc_sched_send(s, rc_off(a->sbuf, (size_t)a->sdispls[j], a->sdt),
			      (size_t)a->scounts[j], a->sdt, j);
	}
	return RC_OK;
}

/* ---- reductions ---------------------------------------------------------- */

static int ireduce_leader(struct rc_sched *s, const struct rc_cargs *a)
{
	struct rc_cargs b;
	void *t;

	if (a->root == MPI_PROC_NULL)
		return RC_OK;
	if (a->root == MPI_ROOT) {
		rc_sched_recv(s, a->rbuf, a->count, a->dt, 0);
		return RC_OK;
	}
	t = leader(s) ? rc_sched_tmp_dt(s, a->count, a->dt) : NULL;
	memset(&b, 0, sizeof(b));
	b.sbuf = a->sbuf;
	b.rbuf = t;
	b.count = a->count;
	b.dt = a->dt;
	b.op = a->op;
	local(s, RC_COLL_REDUCE, &b);
	if (leader(s))
		rc_sched_send(s, t, a->count, a->dt, a->root);
	return RC_OK;
}

/* The root receives every remote vector at once and folds them in rank
 * order: acc = v0 (in rbuf), then v_i = acc op v_i and back into rbuf
 * (rc_op_apply's `in` is the left operand). */
static int ireduce_linear(struct rc_sched *s, const struct rc_cargs *a)
{
	int i, m = rsize(s);
	char *t;
	ptrdiff_t span;

	if (a->root == MPI_PROC_NULL)
		return RC_OK;
	if (a->root != MPI_ROOT) {
		rc_sched_send(s, a->sbuf, a->count, a->dt, a->root);
		return RC_OK;
	}
	rc_sched_recv(s, a->rbuf, a->count, a->dt, 0);
	if (m == 1)
		return RC_OK;
	t = rc_sched_tmp_dt(s, a->count * (size_t)(m - 1), a->dt);
	if (!t)
		return RC_ERR_NOMEM;
	span = (ptrdiff_t)a->count * rc_dt_extent(a->dt);
	for (i = 1; i < m; i++)
		rc_sched_recv(s, t + (i - 1) * span, a->count, a->dt, i);
	rc_sched_wait(s);
	for (i = 1; i < m; i++) {
		rc_sched_reduce(s, a->rbuf, t + (i - 1) * span, a->count,
				a->dt);
		rc_sched_copy(s, t + (i - 1) * span, a->count, a->dt, a->rbuf,
			      a->count, a->dt);
	}
	return RC_OK;
}

/* Local reduce of my group's vectors (count elements) into t at the
 * leader; the leaders swap their groups' results (the other group's
 * lands in r). */
static void reduce_swap(struct rc_sched *s, const struct rc_cargs *a,
			size_t count, void *t, void *r)
{
	struct rc_cargs b;

	memset(&b, 0, sizeof(b));
	b.sbuf = a->sbuf;
	b.rbuf = t;
	b.count = count;
	b.dt = a->dt;
	b.op = a->op;
	local(s, RC_COLL_REDUCE, &b);
	if (leader(s)) {
		rc_sched_send(s, t, count, a->dt, 0);
		rc_sched_recv(s, r, count, a->dt, 0);
		rc_sched_wait(s);
	}
}

static int iallreduce_leader(struct rc_sched *s, const struct rc_cargs *a)
{
	void *t = leader(s) ? rc_sched_tmp_dt(s, a->count, a->dt) : NULL;

	reduce_swap(s, a, a->count, t, a->rbuf);
	local_bcast(s, a->rbuf, a->count, a->dt);
	return RC_OK;
}

/* Reduce-scatter: my group's vector has `total` elements; the other
 * group's reduction is scattered over my group as counts[] say. */
static int redscat(struct rc_sched *s, const struct rc_cargs *a, size_t total,
		   const int *counts, int *displs)
{
	int n = s->comm0->size, i, d = 0;
	void *t = NULL, *r = NULL;
	struct rc_cargs b;

	if (leader(s)) {
		t = rc_sched_tmp_dt(s, total, a->dt);
		r = rc_sched_tmp_dt(s, total, a->dt);
	}
	reduce_swap(s, a, total, t, r);
	memset(&b, 0, sizeof(b));
	b.sbuf = r;
	b.sdt = a->dt;
	b.rbuf = a->rbuf;
	b.rdt = a->dt;
	if (counts) {
		for (i = 0; i < n; i++) {
			displs[i] = d;
			d += counts[i];
		}
		b.scounts = counts;
		b.sdispls = displs;
		b.rcount = (size_t)counts[s->comm0->rank];
		local(s, RC_COLL_SCATTERV, &b);
	} else {
		b.scount = b.rcount = a->count;
		local(s, RC_COLL_SCATTER, &b);
	}
	return RC_OK;
}

static int iredscat_block_leader(struct rc_sched *s, const struct rc_cargs *a)
{
	return redscat(s, a, a->count * (size_t)s->comm0->size, NULL, NULL);
}

static int iredscat_leader(struct rc_sched *s, const struct rc_cargs *a)
{
	int n = s->comm0->size, i;
	size_t total = 0;
	int *displs = rc_sched_tmp(s, sizeof(int) * (size_t)n);

	if (!displs)
		return RC_ERR_NOMEM;
	for (i = 0; i < n; i++)
		total += (size_t)a->rcounts[i];
	return redscat(s, a, total, a->rcounts, displs);
}

/* ---- tables -------------------------------------------------------------- */

#define ONE(name, alg, fn)                                            \
	static const struct rc_coll_alg rc_inter_##name##_algs[] = {  \
		{alg, fn, NULL, NULL},                                \
		{NULL, NULL, NULL, NULL},                             \
	};                                                            \
	static int rc_inter_##name##_choose(const struct rc_comm *c,  \
					    const struct rc_cargs *a) \
	{                                                             \
		(void)c;                                              \
		(void)a;                                              \
		return 0;                                             \
	}

ONE(barrier, "leader", ibarrier_leader)
ONE(gatherv, "linear", igatherv_linear)
ONE(scatterv, "linear", iscatterv_linear)
ONE(allgatherv, "linear", iallgatherv_linear)
ONE(alltoall, "linear", ialltoall_linear)
ONE(alltoallv, "linear", ialltoallv_linear)
ONE(allreduce, "leader", iallreduce_leader)
ONE(reduce_scatter, "leader", iredscat_leader)
ONE(reduce_scatter_block, "leader", iredscat_block_leader)
ONE(alltoallw, "linear", rc_inter_alltoallw_linear)

static const struct rc_coll_alg rc_inter_bcast_algs[] = {
	{"leader", ibcast_leader, NULL, NULL},
	{"linear", ibcast_linear, NULL, NULL},
	{NULL, NULL, NULL, NULL},
};

/* The size of the group without the root (the one that receives in a
 * bcast or scatter, sends in a gather): both sides must choose alike, so
 * they look at the same group. */
static int nonroot_size(const struct rc_comm *c, const struct rc_cargs *a)
{
	return a->root == MPI_ROOT || a->root == MPI_PROC_NULL ? c->rgroup->size
							       : c->size;
}

/* Up to two receivers, the root's messages cost less than a relay. */
static int rc_inter_bcast_choose(const struct rc_comm *c,
				 const struct rc_cargs *a)
{
	return nonroot_size(c, a) <= 2 ? 1 : 0;
}

static const struct rc_coll_alg rc_inter_gather_algs[] = {
	{"leader", igather_leader, NULL, NULL},
	{"linear", igather_linear, NULL, NULL},
	{NULL, NULL, NULL, NULL},
};

/* The root's side does not know the block size the senders use beyond
 * its own rcount (the same bytes): choose on bytes per block, alike on
 * both sides. */
static size_t block_bytes(const struct rc_comm *c, const struct rc_cargs *a,
			  bool gather)
{
	bool root = a->root == MPI_ROOT;

	(void)c;
	if (gather)
		return root ? nbytes(a->rcount, a->rdt)
			    : nbytes(a->scount, a->sdt);
	return root ? nbytes(a->scount, a->sdt) : nbytes(a->rcount, a->rdt);
}

static int rc_inter_gather_choose(const struct rc_comm *c,
				  const struct rc_cargs *a)
{
	return nonroot_size(c, a) > 1 && block_bytes(c, a, true) <
						 rc_coll_tune(c)->gather_short
		       ? 0
		       : 1;
}

static const struct rc_coll_alg rc_inter_scatter_algs[] = {
	{"leader", iscatter_leader, NULL, NULL},
	{"linear", iscatter_linear, NULL, NULL},
	{NULL, NULL, NULL, NULL},
};

static int rc_inter_scatter_choose(const struct rc_comm *c,
				   const struct rc_cargs *a)
{
	return nonroot_size(c, a) > 1 && block_bytes(c, a, false) <
						 rc_coll_tune(c)->gather_short
		       ? 0
		       : 1;
}

static const struct rc_coll_alg rc_inter_allgather_algs[] = {
	{"leader", iallgather_leader, NULL, NULL},
	{"linear", iallgather_linear, NULL, NULL},
	{NULL, NULL, NULL, NULL},
};

/* Both groups of one: linear is one message each way. The groups' sizes
 * are the same pair seen from either side. */
static int rc_inter_allgather_choose(const struct rc_comm *c,
				     const struct rc_cargs *a)
{
	(void)a;
	return c->size * c->rgroup->size <= 4 ? 1 : 0;
}

static const struct rc_coll_alg rc_inter_reduce_algs[] = {
	{"leader", ireduce_leader, NULL, NULL},
	{"linear", ireduce_linear, NULL, NULL},
	{NULL, NULL, NULL, NULL},
};

static int rc_inter_reduce_choose(const struct rc_comm *c,
				  const struct rc_cargs *a)
{
	(void)c;
	(void)a;
	return 0;
}

/* Scan and exscan: none (refused before selection). */
static const struct rc_coll_alg rc_inter_none_algs[] = {
	{NULL, NULL, NULL, NULL},
};

static int rc_inter_none_choose(const struct rc_comm *c,
				const struct rc_cargs *a)
{
	(void)c;
	(void)a;
	return -1;
}

const struct rc_coll_desc rc_coll_inter_descs[RC_COLL_N] = {
#define D(id, nm) \
	[RC_COLL_##id] = {#nm, rc_inter_##nm##_algs, rc_inter_##nm##_choose}
	D(BARRIER, barrier),
	D(BCAST, bcast),
	D(REDUCE, reduce),
	D(ALLREDUCE, allreduce),
	D(GATHER, gather),
	D(GATHERV, gatherv),
	D(SCATTER, scatter),
	D(SCATTERV, scatterv),
	D(ALLGATHER, allgather),
	D(ALLGATHERV, allgatherv),
	D(ALLTOALL, alltoall),
	D(ALLTOALLV, alltoallv),
	D(REDUCE_SCATTER, reduce_scatter),
	D(REDUCE_SCATTER_BLOCK, reduce_scatter_block),
	[RC_COLL_SCAN] = {"scan", rc_inter_none_algs, rc_inter_none_choose},
	[RC_COLL_EXSCAN] = {"exscan", rc_inter_none_algs, rc_inter_none_choose},
	D(ALLTOALLW, alltoallw),
	/* intercommunicators have no process topology */
	[RC_COLL_NBR_ALLGATHER] = {"neighbor_allgather", rc_inter_none_algs,
				   rc_inter_none_choose},
	[RC_COLL_NBR_ALLGATHERV] = {"neighbor_allgatherv", rc_inter_none_algs,
				    rc_inter_none_choose},
	[RC_COLL_NBR_ALLTOALL] = {"neighbor_alltoall", rc_inter_none_algs,
				  rc_inter_none_choose},
	[RC_COLL_NBR_ALLTOALLV] = {"neighbor_alltoallv", rc_inter_none_algs,
				   rc_inter_none_choose},
	[RC_COLL_NBR_ALLTOALLW] = {"neighbor_alltoallw", rc_inter_none_algs,
				   rc_inter_none_choose},
#undef D
};
