/*
 * coll.c - the collective module: per-instance state (the schedule cache,
 * forced algorithms, tuning parameters), algorithm selection, the entry
 * points that build and start a schedule, and the MPI_Finalize barrier.
 *
 * Selection: RCMPI_COLL_<NAME>=<algorithm> forces an algorithm for every
 * call of that collective (README.md lists the names); an algorithm that
 * cannot run a call (say, one for commutative ops only) falls back to the
 * default choice, which looks at message and communicator size like
 * MPICH's. The thresholds are parameters too (RCMPI_COLL_*_SHORT, ...).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll_impl.h"
#include "inst.h"
#include "log.h"
#include "param.h"
#include "pt2pt.h"
#include "status.h"

const struct rc_coll_desc rc_coll_descs[RC_COLL_N] = {
#define D(id, nm) [RC_COLL_##id] = { #nm, rc_##nm##_algs, rc_##nm##_choose }
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
	D(SCAN, scan),
	D(EXSCAN, exscan),
	D(ALLTOALLW, alltoallw),
	D(NBR_ALLGATHER, neighbor_allgather),
	D(NBR_ALLGATHERV, neighbor_allgatherv),
	D(NBR_ALLTOALL, neighbor_alltoall),
	D(NBR_ALLTOALLV, neighbor_alltoallv),
	D(NBR_ALLTOALLW, neighbor_alltoallw),
#undef D
};

const char *rc_coll_name(int coll)
{
	return coll >= 0 && coll < RC_COLL_N ? rc_coll_descs[coll].name : NULL;
}

static int nalgs(const struct rc_coll_desc *d)
{
	int n = 0;

	while (d->algs[n].name)
		n++;
	return n;
}

int rc_coll_nalgs(int coll)
{
	return nalgs(&rc_coll_descs[coll]);
}

int rc_coll_inter_nalgs(int coll)
{
	return nalgs(&rc_coll_inter_descs[coll]);
}

const char *rc_coll_alg_name(int coll, int alg)
{
	if (alg < 0 || alg >= rc_coll_nalgs(coll))
		return NULL;
	return rc_coll_descs[coll].algs[alg].name;
}

const char *rc_coll_inter_alg_name(int coll, int alg)
{
	if (alg < 0 || alg >= rc_coll_inter_nalgs(coll))
		return NULL;
	return rc_coll_inter_descs[coll].algs[alg].name;
}

/* Force alg (name, "auto" or NULL) for collective coll in force[]. */
static int force_in(const struct rc_coll_desc *d, int *force, const char *alg)
{
	int i;

	if (!alg || !strcmp(alg, "auto")) {
		*force = -1;
		return RC_OK;
	}
	for (i = 0; d->algs[i].name; i++)
		if (!strcmp(d->algs[i].name, alg)) {
			*force = i;
			return RC_OK;
		}
	return RC_ERR_INVAL;
}

int rc_coll_force(struct rc_inst *inst, int coll, const char *alg)
{
	struct rc_coll_state *cs = rc_coll_state(inst);

	if (!cs)
		return RC_ERR_NOMEM;
	return force_in(&rc_coll_descs[coll], &cs->force[coll], alg);
}

int rc_coll_force_inter(struct rc_inst *inst, int coll, const char *alg)
{
	struct rc_coll_state *cs = rc_coll_state(inst);

	if (!cs)
		return RC_ERR_NOMEM;
	return force_in(&rc_coll_inter_descs[coll], &cs->force_inter[coll],
			alg);
}

/* RCMPI_<key>=alg for collective c of table d into force[c]; warns with
 * the known names when alg is unknown. */
static void read_force(const struct rc_coll_desc *d, const char *prefix,
		       int *force)
{
	char key[64], known[256] = "", *p;
	const char *v;
	size_t len = 0;
	int i;

	snprintf(key, sizeof(key), "%s%s", prefix, d->name);
	for (p = key; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	*force = -1;
	/* every collective has its entry (test_coll checks); those not
	 * defined on intercommunicators have none there */
	i = rc_param_find(key);
	v = i >= 0 ? rc_param_str((enum rc_param_id)i) : NULL;
	if (!v || force_in(d, force, v) == RC_OK)
		return;
	for (i = 0; d->algs[i].name && len < sizeof(known); i++)
		len += (size_t)snprintf(known + len, sizeof(known) - len,
					"%s%s", i ? ", " : "", d->algs[i].name);
	rc_log_warn("RCMPI_%s=%s: unknown algorithm (known: %s, auto); "
		    "choosing automatically",
		    key, v, known);
}

static void coll_read_params(struct rc_inst *inst, struct rc_coll_state *cs)
{
	struct rc_coll_tune *t = &cs->tune;
	int c;

	(void)inst;
	for (c = 0; c < RC_COLL_N; c++) {
		read_force(&rc_coll_descs[c], "COLL_", &cs->force[c]);
		read_force(&rc_coll_inter_descs[c], "COLL_INTER_",
			   &cs->force_inter[c]);
	}
	t->bcast_short = (size_t)rc_param_int(RC_P_COLL_BCAST_SHORT);
	t->bcast_min_procs = (size_t)rc_param_int(RC_P_COLL_BCAST_MIN_PROCS);
	t->reduce_short = (size_t)rc_param_int(RC_P_COLL_REDUCE_SHORT);
	t->reduce_segsize = (size_t)rc_param_int(RC_P_COLL_REDUCE_SEGSIZE);
	t->allreduce_short = (size_t)rc_param_int(RC_P_COLL_ALLREDUCE_SHORT);
	t->allreduce_ring = (size_t)rc_param_int(RC_P_COLL_ALLREDUCE_RING);
	t->allgather_short = (size_t)rc_param_int(RC_P_COLL_ALLGATHER_SHORT);
	t->gather_short = (size_t)rc_param_int(RC_P_COLL_GATHER_SHORT);
	t->alltoall_short = (size_t)rc_param_int(RC_P_COLL_ALLTOALL_SHORT);
	t->alltoall_medium = (size_t)rc_param_int(RC_P_COLL_ALLTOALL_MEDIUM);
	t->redscat_short = (size_t)rc_param_int(RC_P_COLL_REDSCAT_SHORT);
	t->tmp_cache = (size_t)rc_param_int(RC_P_COLL_TMP_CACHE);
}

struct rc_coll_state *rc_coll_state(struct rc_inst *inst)
{
	struct rc_coll_state *cs = inst->coll;

	if (RC_LIKELY(cs))
		return cs;
	cs = calloc(1, sizeof(*cs));
	if (!cs)
		return NULL;
	inst->coll = cs;
	coll_read_params(inst, cs);
	return cs;
}

int rc_coll_open(struct rc_inst *inst)
{
	return rc_coll_state(inst) ? RC_OK : RC_ERR_NOMEM;
}

void rc_coll_close(struct rc_inst *inst)
{
	rc_sched_cache_free(inst);
	free(inst->coll);
	inst->coll = NULL;
}

/* The algorithm for a call: the forced one if it can run these
 * arguments, else the default choice (the collective state exists). */
static const struct rc_coll_alg *coll_pick(const struct rc_comm *comm,
					   int coll, const struct rc_cargs *a)
{
	const struct rc_coll_state *cs = comm->inst->coll;
	const struct rc_coll_desc *d = &rc_coll_descs[coll];
	int i = cs->force[coll];

	if (RC_UNLIKELY(rc_comm_is_inter(comm))) {
		d = &rc_coll_inter_descs[coll];
		i = cs->force_inter[coll];
	}

	if (i < 0 || (d->algs[i].usable && !d->algs[i].usable(comm, a)))
		i = d->choose(comm, a);
	return &d->algs[i];
}

static int append_alg(struct rc_sched *s, const struct rc_coll_alg *alg,
		      const struct rc_cargs *a)
{
	/* one op per schedule: reductions use s->op */
	if (a->op && !s->op)
		rc_sched_hold_op(s, a->op);
	return alg->build(s, a);
}

int rc_coll_append(struct rc_sched *s, int coll, const struct rc_cargs *a)
{
	return append_alg(s, coll_pick(s->comm, coll, a), a);
}

int rc_coll_send_direct(struct rc_comm *comm, const void *buf, size_t count,
			struct rc_dtype *dt, int peer)
{
	return rc_p2p_send(comm, rc_comm_coll_ctx(comm), buf, count, dt, peer,
			   rc_coll_next_tag(comm), RC_SEND_STD);
}

/* Build the schedule of algorithm alg. */
static int coll_build(struct rc_comm *comm, const struct rc_coll_alg *alg,
		      const struct rc_cargs *a, struct rc_sched **out)
{
	struct rc_sched *s = rc_sched_new(comm);
	int ret;

	if (!s)
		return RC_ERR_NOMEM;
	rc_sched_hold_dt(s, a->sdt);
	rc_sched_hold_dt(s, a->rdt);
	rc_sched_hold_dt(s, a->dt);
	ret = append_alg(s, alg, a);
	if (!ret)
		ret = s->berr;
	if (ret) {
		rc_sched_discard(s);
		return ret;
	}
	*out = s;
	return RC_OK;
}

/* A pooled RC_REQ_COLL request on comm (holding a reference on it) and
 * the built schedule of coll for it, not started. */
static int coll_req_build(struct rc_comm *comm, int coll,
			  const struct rc_cargs *a, struct rc_req **reqp,
			  struct rc_sched **sp)
{
	struct rc_req *req;
	int ret;

	if (!rc_coll_state(comm->inst))
		return RC_ERR_NOMEM;
	req = rc_req_alloc(comm->inst, RC_REQ_COLL);
	if (!req)
		return RC_ERR_NOMEM;
	/* a pooled request holds a reference on its communicator */
	rc_comm_retain(comm);
	req->comm = comm;
	ret = coll_build(comm, coll_pick(comm, coll, a), a, sp);
	if (ret) {
		rc_req_free(req);
		return ret;
	}
	*reqp = req;
	return RC_OK;
}

int rc_coll_start(struct rc_comm *comm, int coll, const struct rc_cargs *a,
		  struct rc_req **reqp)
{
	struct rc_req *req;
	struct rc_sched *s;
	int ret;

	ret = coll_req_build(comm, coll, a, &req, &s);
	if (ret)
		return ret;
	ret = rc_sched_start(s, req);
	if (ret) {
		rc_req_free(req);
		return ret;
	}
	*reqp = req;
	return RC_OK;
}

/* ---- persistent collectives (MPI-4 *_init) ----
 *
 * The schedule is built once, at init, with the tag the collective takes
 * then (every rank inits its collectives in one order, so the tags agree
 * whatever order the requests are later started in), and kept by the
 * request: each MPI_Start runs it again from its first operation. */

static int coll_pstart(struct rc_req *req)
{
	return rc_sched_start(req->coll, req);
}

static void coll_prelease(struct rc_req *req)
{
	struct rc_sched *s = req->coll;

	req->coll = NULL;
	if (s)
		rc_sched_discard(s);
}

static const struct rc_req_pers coll_pers = {
	.start = coll_pstart,
	.release = coll_prelease,
};

int rc_coll_init(struct rc_comm *comm, int coll, const struct rc_cargs *a,
		 struct rc_req **reqp)
{
	struct rc_req *req;
	struct rc_sched *s;
	int ret;

	ret = coll_req_build(comm, coll, a, &req, &s);
	if (ret)
		return ret;
	rc_sched_keep(s);
	req->coll = s;
	req->pers = &coll_pers;
	req->flags |= RC_REQ_PERSISTENT;
	*reqp = req;
	return RC_OK;
}

int rc_coll_run(struct rc_comm *comm, int coll, const struct rc_cargs *a)
{
	const struct rc_coll_alg *alg;
	struct rc_req req;
	struct rc_sched *s;
	int ret;

	if (!rc_coll_state(comm->inst))
		return RC_ERR_NOMEM;
	alg = coll_pick(comm, coll, a);
	if (alg->direct) {
		ret = alg->direct(comm, a);
		if (ret != RC_AGAIN)
			return ret;
	}
	rc_req_init_stack(&req, comm->inst, RC_REQ_COLL);
	req.comm = comm;
	ret = coll_build(comm, alg, a, &s);
	if (!ret)
		ret = rc_sched_start(s, &req);
	if (ret)
		return ret;
	rc_req_wait_done(&req);
	return req.err;
}

int rc_coll_fence(struct rc_inst *inst)
{
	struct rc_cargs a;

	memset(&a, 0, sizeof(a));
	return rc_coll_run(inst->world, RC_COLL_BARRIER, &a);
}
