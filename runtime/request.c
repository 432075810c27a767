/*
 * request.c - the request pool and the request state machine.
 *
 * Requests come from the instance's pool of request slots (handle.h), so
 * starting an operation never calls malloc once the pool is warm, and a
 * freed request is a tombstone that a stale handle cannot revive until its
 * slot is reused (RCMPI_REQ_QUARANTINE frees later). Blocking calls put a
 * request on their own stack instead (it cannot outlive the call, and is
 * never a handle). A pooled request holds a reference on req->comm,
 * released with the request. The requests made outside the critical
 * section have a pool of their own, locked (request.h).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "comm.h"
#include "dtype.h"
#include "inst.h"
#include "request.h"
#include "status.h"
#include "thread.h"

void rc_req_pool_init(struct rc_inst *inst)
{
	rc_hpool_init(&inst->req_pool, RC_HK_REQ);
	rc_hpool_init_at(&inst->out_pool, RC_HK_REQ, RC_REQ_OUT_BASE);
}

void rc_req_pool_fini(struct rc_inst *inst)
{
	assert(!inst->retired); /* rc_inst_close reaped them */
	rc_hpool_fini(&inst->req_pool);
	rc_hpool_fini(&inst->out_pool);
}

struct rc_hpool *rc_req_f2c_pool(struct rc_inst *inst, MPI_Fint f)
{
	return f > (MPI_Fint)RC_REQ_OUT_BASE ? &inst->out_pool
					     : &inst->req_pool;
}

/* Everything after the handle header (its index stays with the slot). */
static void req_init(struct rc_req *req, struct rc_inst *inst,
		     enum rc_req_kind kind)
{
	memset(&req->h + 1, 0, sizeof(*req) - sizeof(req->h));
	req->inst = inst;
	req->kind = kind;
	req->state = RC_REQ_INACTIVE;
	rc_list_init(&req->link);
}

struct rc_req *rc_req_alloc(struct rc_inst *inst, enum rc_req_kind kind)
{
	struct rc_req *req;

	/* (one load below MULTIPLE, where nothing retires) */
	if (RC_UNLIKELY(__atomic_load_n(&inst->retired, __ATOMIC_RELAXED)))
		rc_req_reap(inst);
	req = rc_hpool_get(&inst->req_pool, sizeof(*req));
	if (RC_UNLIKELY(!req))
		return NULL;
	req_init(req, inst, kind);
	req->flags = RC_REQ_POOLED;
	return req;
}

struct rc_req *rc_req_alloc_out(struct rc_inst *inst, enum rc_req_kind kind)
{
	struct rc_req *req;

	rc_lock_hold(&inst->out_pool.lock);
	req = rc_hpool_get(&inst->out_pool, sizeof(*req));
	rc_lock_release(&inst->out_pool.lock);
	if (RC_UNLIKELY(!req))
		return NULL;
	req_init(req, inst, kind);
	req->flags = RC_REQ_POOLED | RC_REQ_OUT_POOL;
	if (kind == RC_REQ_SENT)
		req->state = RC_REQ_DONE;
	return req;
}

void rc_req_init_stack(struct rc_req *req, struct rc_inst *inst,
		       enum rc_req_kind kind)
{
	req->h.magic = RC_H_LIVE(RC_HK_REQ);
	req->h.idx = 0;
	req_init(req, inst, kind);
}

/* What req holds, given back; true when its slot goes back to a pool. */
static inline bool req_release(struct rc_req *req)
{
	assert(req->state != RC_REQ_ACTIVE);
	if (req->pers) {
		const struct rc_req_pers *pers = req->pers;

		req->pers = NULL;
		pers->release(req);
	}
	if (req->dt)
		rc_dt_release(req->dt);
	req->dt = NULL;
	if (!(req->flags & RC_REQ_POOLED))
		return false;
	/* a pooled request holds a reference on its communicator, so that
	 * MPI_Comm_free with operations pending is safe (comm.h) */
	if (req->comm)
		rc_comm_release(req->comm);
	req->comm = NULL;
	req->state = RC_REQ_INACTIVE;
	return true;
}

void rc_req_free(struct rc_req *req)
{
	if (!req_release(req))
		return;
	if (RC_UNLIKELY(req->flags & RC_REQ_OUT_POOL)) {
		rc_lock_hold(&req->inst->out_pool.lock);
		rc_hpool_put(&req->inst->out_pool, req);
		rc_lock_release(&req->inst->out_pool.lock);
		return;
	}
	rc_hpool_put(&req->inst->req_pool, req);
}

/* ---- finishing outside the critical section (request.h) ------------------ */

/* req at the end of chain (linked by stack_next) */
static inline void chain_add(struct rc_req_chain *chain, struct rc_req *req)
{
	req->stack_next = NULL;
	if (chain->last)
		chain->last->stack_next = req;
	else
		chain->first = req;
	chain->last = req;
}

/* Onto inst->retired, in one push, the chain first .. last (linked by
 * stack_next): their slots and references go back in the section. */
static void req_retire(struct rc_req *first, struct rc_req *last)
{
	rc_req_stack_push(&first->inst->retired, first, last);
}

void rc_req_chain_retire(struct rc_req_chain *chain)
{
	if (chain->first)
		req_retire(chain->first, chain->last);
	chain->first = chain->last = NULL;
}

void rc_req_reap(struct rc_inst *inst)
{
	/* taken whole: no other thread pops, so no ABA */
	struct rc_req *req =
		__atomic_exchange_n(&inst->retired, NULL, __ATOMIC_ACQUIRE);
	struct rc_req_chain out = {NULL, NULL};

	if (req && !req->stack_next) {
		/* the usual case: one (MPI_Wait's) */
		rc_req_free(req);
		return;
	}
	while (req) {
		struct rc_req *next = req->stack_next;

		if (!req_release(req)) {
			/* not pooled */
		} else if (req->flags & RC_REQ_OUT_POOL) {
			chain_add(&out, req);
		} else {
			rc_hpool_put(&inst->req_pool, req);
		}
		req = next;
	}
	if (!out.first)
		return;
	/* the out pool's slots, in order, under one hold of its lock */
	rc_lock_hold(&inst->out_pool.lock);
	for (req = out.first; req; req = out.first) {
		out.first = req->stack_next;
		rc_hpool_put(&inst->out_pool, req);
	}
	rc_lock_release(&inst->out_pool.lock);
}

/* Free req outside the section: onto chain (NULL: retired at once). */
static void req_free_outside(struct rc_req *req, struct rc_req_chain *chain)
{
	if (req->kind == RC_REQ_SENT) {
		rc_req_free(req);
	} else if (!chain) {
		req_retire(req, req);
	} else {
		/* in order: reaped in the order a section's frees would be */
		chain_add(chain, req);
	}
}

void rc_req_finish_outside(struct rc_req **reqp, MPI_Status *status,
			   struct rc_req_chain *chain)
{
	struct rc_req *req = *reqp;

	rc_req_status_out(req, status);
	if (req->flags & RC_REQ_PERSISTENT) {
		/* (MPI_Start, in the section, follows in program order) */
		__atomic_store_n(&req->state, RC_REQ_INACTIVE,
				 __ATOMIC_RELAXED);
		return;
	}
	*reqp = NULL;
	req_free_outside(req, chain);
}

void rc_req_free_outside(struct rc_req *req)
{
	req_free_outside(req, NULL);
}

int rc_req_start(struct rc_req *req)
{
	if (!req->pers || req->state != RC_REQ_INACTIVE)
		return RC_ERR_INVAL;
	return req->pers->start(req);
}

void rc_req_complete(struct rc_req *req)
{
	assert(req->state == RC_REQ_ACTIVE);
	/* atomic: a waiting thread may watch it outside the section
	 * (rc_req_idle); a plain store on x86. For most requests the last
	 * touch (request.h). (The store is written twice: with one store
	 * and a flag read before it, gcc's code costs 3-6 instructions more
	 * per message, bench/cg_self.) */
	if (RC_LIKELY(!req->cb && !(req->flags & RC_REQ_USER_FREED))) {
		__atomic_store_n(&req->state, RC_REQ_DONE, __ATOMIC_RELEASE);
		return;
	}
	__atomic_store_n(&req->state, RC_REQ_DONE, __ATOMIC_RELEASE);
	if (req->cb)
		req->cb(req);
	if ((req->flags & RC_REQ_USER_FREED) &&
	    !(req->flags & RC_REQ_PERSISTENT))
		rc_req_free(req);
}

void rc_req_idle(struct rc_req *req)
{
	struct rc_inst *inst = req->inst;

	/* At MULTIPLE the waiting thread watches its request outside the
	 * section (thread.h), yielding every 16th idle poll: a lone thread
	 * that never yields keeps a core from the other threads on it. */
	if (RC_UNLIKELY(rc_thread_multiple))
		rc_cs_yield_until(&rc_cs_big, &req->state, RC_REQ_DONE,
				  inst->oversubscribed || !(inst->idle & 15));
	else
		rc_progress_idle(inst);
}

void rc_req_wait_done(struct rc_req *req)
{
	struct rc_inst *inst = req->inst;

	while (req->state != RC_REQ_DONE) {
		if (!rc_progress(inst) && req->state != RC_REQ_DONE)
			rc_req_idle(req);
	}
}

int rc_req_finish(struct rc_req **reqp, MPI_Status *status)
{
	struct rc_req *req = *reqp;
	int err = req->err;

	assert(req->state == RC_REQ_DONE);
	rc_req_status_out(req, status);
	if (req->flags & RC_REQ_PERSISTENT) {
		req->state = RC_REQ_INACTIVE;
	} else {
		rc_req_free(req);
		*reqp = NULL;
	}
	return err;
}

void rc_status_set_empty(MPI_Status *st)
{
	st->MPI_SOURCE = MPI_PROC_NULL;
	st->MPI_TAG = MPI_ANY_TAG;
	st->rc_count = 0;
	st->rc_cancelled = 0;
}

/* ---- generalized requests ------------------------------------------------ */

int rc_greq_query(struct rc_req *req, MPI_Status *st)
{
	assert(req->kind == RC_REQ_GREQ && req->state == RC_REQ_DONE);
	/* what the status says if query_fn leaves a field alone */
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = MPI_UNDEFINED;
	st->rc_count = 0;
	st->rc_cancelled = 0;
	return req->greq.query(req->greq.extra, st);
}

int rc_greq_release(struct rc_req *req)
{
	assert(req->kind == RC_REQ_GREQ);
	if (req->greq.freed)
		return MPI_SUCCESS;
	req->greq.freed = true;
	return req->greq.free(req->greq.extra);
}

int rc_greq_cancel(struct rc_req *req)
{
	assert(req->kind == RC_REQ_GREQ);
	return req->greq.cancel(req->greq.extra, rc_req_done(req));
}
