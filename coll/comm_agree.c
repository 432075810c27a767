/*
 * comm_agree.c - context-id agreement inside a constructor's schedule: the
 * rounds of messages around runtime/ctxid.c's local half (comm.h tells the
 * protocol), for the participants of one intracommunicator or of the two
 * groups of an intercommunicator, and running a constructor's schedule.
 *
 * A round, appended by the schedule itself while it runs:
 *   intra: propose -> allreduce(BAND) over side lside -> settle
 *   inter: propose -> reduce(BAND) to the local leader (lside) -> the
 *          leaders swap their groups' ANDs (rside) and AND them -> bcast
 *          from the leader (lside) -> settle
 *   settle: done, or another round; a round among one process waits for
 *          a message to itself first, so it cannot spin without progress.
 */
#include <string.h>
#include "comm_cc.h"
#include "info.h"
#include "request.h"

static void agree_settle(struct rc_sched *s, void *arg);

/* Append a round (from a CALL: the schedule is running). */
static void agree_round(struct rc_sched *s, void *arg)
{
	struct rc_cc_agree *g = arg;
	unsigned n = rc_ctx_round_words(&g->a);
	struct rc_cargs a;

	rc_ctx_propose(s->inst, &g->a, g->mask);
	memset(&a, 0, sizeof(a));
	a.dt = &rc_mpi_uint32_t;
	a.op = &rc_mpi_band;
	a.count = n;
	rc_sched_use(s, g->lside);
	if (g->rside < 0) {
		a.sbuf = MPI_IN_PLACE;
		a.rbuf = g->mask;
		rc_coll_append(s, RC_COLL_ALLREDUCE, &a);
	} else {
		/* the group's AND at its leader */
		bool leader = s->comm->rank == g->lroot;

		a.root = g->lroot;
		a.sbuf = leader ? MPI_IN_PLACE : g->mask;
		a.rbuf = leader ? g->mask : NULL;
		rc_coll_append(s, RC_COLL_REDUCE, &a);
		rc_sched_wait(s);
		if (g->rleader >= 0) {
			rc_sched_use(s, g->rside);
			rc_sched_send(s, g->mask, n, &rc_mpi_uint32_t,
				      g->rleader);
			rc_sched_recv(s, g->rmask, n, &rc_mpi_uint32_t,
				      g->rleader);
			rc_sched_wait(s);
			rc_sched_reduce(s, g->rmask, g->mask, n,
					&rc_mpi_uint32_t);
			rc_sched_wait(s);
			rc_sched_use(s, g->lside);
		}
		a.sbuf = NULL;
		a.rbuf = g->mask;
		rc_coll_append(s, RC_COLL_BCAST, &a);
	}
	rc_sched_wait(s);
	rc_sched_use(s, 0);
	rc_sched_call(s, agree_settle, g);
	if (s->berr && !s->err)
		s->err = s->berr;
}

static void agree_settle(struct rc_sched *s, void *arg)
{
	struct rc_cc_agree *g = arg;
	int ret;

	if (s->err) {
		rc_ctx_abandon(s->inst, &g->a);
	} else {
		ret = rc_ctx_settle(s->inst, &g->a, g->mask, &g->ctx);
		if (ret == RC_AGAIN) {
			rc_sched_use(s, g->lside);
			if (g->rside < 0 && s->comm->size == 1) {
				/* a round of one runs without messages: wait
				 * for progress (a message to myself) before
				 * the next, or it would spin here while what
				 * it waits for cannot move */
				rc_sched_send(s, NULL, 0, &rc_mpi_byte, 0);
				rc_sched_recv(s, NULL, 0, &rc_mpi_byte, 0);
				rc_sched_wait(s);
			}
			rc_sched_use(s, 0);
			rc_sched_call(s, agree_round, g);
			if (s->berr && !s->err)
				s->err = s->berr;
			return;
		}
		if (ret)
			s->err = ret;
	}
	rc_sched_call(s, g->done, g->arg);
	if (s->berr && !s->err)
		s->err = s->berr;
}

/* The key of an agreement whose messages run on s's own context and tag
 * (unique among the agreements that share a process: comm.h). */
struct rc_ctx_key rc_cc_key(const struct rc_sched *s)
{
	struct rc_ctx_key k = {
		.hi = (uint64_t)s->ctx << 32 | (uint32_t)s->tag,
		.lo = 0,
	};

	return k;
}

/* Set up g in s's scratch (NOMEM: s->berr); the rounds start when the
 * schedule reaches the call appended here. */
void rc_cc_agree(struct rc_sched *s, struct rc_cc_agree *g,
		 struct rc_ctx_key key, bool member, rc_sched_fn done,
		 void *arg)
{
	rc_ctx_agree_init(&g->a, key, member);
	g->mask = rc_sched_tmp(s, sizeof(uint32_t) * RC_CTX_FULL_WORDS);
	g->done = done;
	g->arg = arg;
	if (g->rside >= 0)
		g->rmask =
			rc_sched_tmp(s, sizeof(uint32_t) * RC_CTX_FULL_WORDS);
	rc_sched_wait(s);
	rc_sched_call(s, agree_round, g);
}

/* Start or run a built schedule as the constructor's request (req->comm:
 * `owner`, retained by a pooled request). */
int rc_cc_run(struct rc_sched *s, struct rc_comm *owner, struct rc_req **reqp)
{
	struct rc_req req, *r;
	int ret;

	if (s->berr) {
		ret = s->berr;
		rc_sched_discard(s);
		return ret;
	}
	if (reqp) {
		r = rc_req_alloc(owner->inst, RC_REQ_COLL);
		if (!r) {
			rc_sched_discard(s);
			return RC_ERR_NOMEM;
		}
		rc_comm_retain(owner);
		r->comm = owner;
		ret = rc_sched_start(s, r);
		if (ret) {
			rc_req_free(r);
			return ret;
		}
		*reqp = r;
		return RC_OK;
	}
	rc_req_init_stack(&req, owner->inst, RC_REQ_COLL);
	req.comm = owner;
	ret = rc_sched_start(s, &req);
	if (ret)
		return ret;
	rc_req_wait_done(&req);
	return req.err;
}

/* A string copied into s's scratch (NULL when it does not fit). */
static char *dup_str(struct rc_sched *s, const char *src)
{
	size_t n = strlen(src) + 1;
	char *p = rc_sched_tmp(s, n);

	if (p)
		memcpy(p, src, n);
	return p;
}

int rc_cc_dup_init(struct rc_sched *s, struct rc_cc_dup *d,
		   const struct rc_cc_dup *want)
{
	const struct rc_info *info = want->info;
	struct rc_info *t;
	int i;

	*d = *want;
	d->info = NULL;
	if (!want->with_info || !info)
		return RC_OK;
	/* read-only: nothing frees or grows it, rc_comm_dup_cache copies it */
	t = rc_sched_tmp(s, sizeof(*t));
	if (!t)
		return RC_ERR_NOMEM;
	memset(t, 0, sizeof(*t));
	t->ent = rc_sched_tmp(s, sizeof(*t->ent) * (size_t)(info->n + 1));
	if (!t->ent)
		return RC_ERR_NOMEM;
	for (i = 0; i < info->n; i++) {
		t->ent[i].key = dup_str(s, info->ent[i].key);
		t->ent[i].val = dup_str(s, info->ent[i].val);
		if (!t->ent[i].key || !t->ent[i].val)
			return RC_ERR_NOMEM;
	}
	t->n = t->cap = info->n;
	d->info = t;
	return RC_OK;
}

int rc_cc_dup_copy(const struct rc_cc_dup *d, struct rc_comm *p,
		   struct rc_comm *nc)
{
	if (!d->cache)
		return RC_OK;
	return rc_comm_dup_cache(p, nc, d->info, d->with_info) ? RC_ERR_CALLBACK
							       : RC_OK;
}
