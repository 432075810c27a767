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
 * section have a pool of their own, locked (request.h), that each thread
 * reaches through a small cache of its own (below).
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "comm.h"
#include "dtype.h"
#include "inst.h"
#include "request.h"
#include "status.h"
#include "thread.h"

/* ---- the threads' caches of out-pool slots --------------------------------
 *
 * Each thread keeps up to REQ_CACHE slots of one instance's out pool ready
 * to hand out, and up to as many that it freed, so that the requests made
 * and freed outside the section take the pool's lock once per REQ_CACHE
 * rather than once each (and two threads do not pass the lock's cache
 * line to and fro at every message). Slots move between the pool and a
 * cache in batches, under the lock (rc_hpool_get_batch, and
 * rc_hpool_put_chain in the order freed): the pool's quarantine holds as
 * before. In a cache a slot is not live, so a stale handle to it is
 * refused (rc_hpool_nlive_scan counts what is live).
 *
 * A cache names its instance by address and generation (inst->req_gen,
 * unique per rc_req_pool_init). It gives its slots back when its thread
 * exits (cache_key's destructor) or turns to another instance (a
 * session's), if the instance still lives (cache_insts, under cache_mu),
 * and otherwise forgets them untouched: rc_hpool_fini freed them.
 */
#define REQ_CACHE 16

struct req_cache {
	struct rc_inst *inst;		  /* whose slots (NULL: none), ... */
	uint64_t gen;			  /* ... its req_gen then (0: none) */
	struct rc_hobj *ready;		  /* from the pool, to hand out */
	struct rc_hobj *gone, *gone_tail; /* freed here, in order */
	unsigned ngone;
};

static __thread struct req_cache req_cache
	__attribute__((tls_model("initial-exec")));
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct rc_inst *cache_insts; /* the live ones, by req_live_next */
static uint64_t cache_gen;	    /* the last generation given */
static pthread_key_t cache_key;
static bool cache_key_ok; /* else a thread's cache is lost as it exits */
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;

/* Under inst's out-pool lock: c's freed slots back, in the order freed. */
static void cache_put_gone(struct rc_inst *inst, struct req_cache *c)
{
	if (c->gone)
		rc_hpool_put_chain(&inst->out_pool, c->gone, c->gone_tail,
				   c->ngone);
	c->gone = c->gone_tail = NULL;
	c->ngone = 0;
}

/* Everything c holds back to its instance if that lives; c empty. */
static void cache_release(struct req_cache *c)
{
	struct rc_inst *i;

	if (!c->inst)
		return;
	pthread_mutex_lock(&cache_mu);
	/* (c->inst compared, not read: it may be gone) */
	for (i = cache_insts; i; i = i->req_live_next)
		if (i == c->inst && i->req_gen == c->gen)
			break;
	if (i) {
		rc_lock_hold(&i->out_pool.lock);
		cache_put_gone(i, c);
		while (c->ready) {
			struct rc_hobj *o = c->ready;

			c->ready = o->next;
			rc_hpool_put(&i->out_pool, o);
		}
		rc_lock_release(&i->out_pool.lock);
	}
	pthread_mutex_unlock(&cache_mu);
	memset(c, 0, sizeof(*c));
}

static void cache_exit(void *c)
{
	cache_release(c);
}

static void cache_key_make(void)
{
	cache_key_ok = !pthread_key_create(&cache_key, cache_exit);
}

static __attribute__((noinline)) struct req_cache *
cache_adopt(struct req_cache *c, struct rc_inst *inst)
{
	cache_release(c);
	pthread_once(&cache_once, cache_key_make);
	if (cache_key_ok)
		pthread_setspecific(cache_key, c);
	c->inst = inst;
	c->gen = inst->req_gen;
	return c;
}

/* This thread's cache, for inst. */
static inline struct req_cache *cache_of(struct rc_inst *inst)
{
	struct req_cache *c = &req_cache;

	/* (generations are unique: no need to compare inst too) */
	if (RC_LIKELY(c->gen == inst->req_gen))
		return c;
	return cache_adopt(c, inst);
}

/* Up to REQ_CACHE slots from the pool, the freed ones back in the same
 * hold of its lock; false when the pool has no memory. */
static bool cache_fill(struct rc_inst *inst, struct req_cache *c)
{
	struct rc_hpool *p = &inst->out_pool;

	rc_lock_hold(&p->lock);
	cache_put_gone(inst, c);
	/* (c->ready is NULL: left so when the pool has no memory) */
	rc_hpool_get_batch(p, sizeof(struct rc_req), &c->ready, REQ_CACHE);
	rc_lock_release(&p->lock);
	return c->ready;
}

static __attribute__((noinline)) void cache_flush(struct rc_inst *inst,
						  struct req_cache *c)
{
	rc_lock_hold(&inst->out_pool.lock);
	cache_put_gone(inst, c);
	rc_lock_release(&inst->out_pool.lock);
}

/* req's slot (released) back to the out pool through this thread. */
static inline void cache_free(struct rc_inst *inst, struct rc_req *req)
{
	struct req_cache *c = cache_of(inst);
	struct rc_hobj *o = &req->h;

	o->magic = inst->out_pool.freed;
	o->next = NULL;
	rc_hobj_chain_add(&c->gone, &c->gone_tail, o, o);
	if (RC_UNLIKELY(++c->ngone >= REQ_CACHE))
		cache_flush(inst, c);
}

void rc_req_pool_init(struct rc_inst *inst)
{
	rc_hpool_init(&inst->req_pool, RC_HK_REQ);
	rc_hpool_init_at(&inst->out_pool, RC_HK_REQ, RC_REQ_OUT_BASE);
	pthread_mutex_lock(&cache_mu);
	inst->req_gen = ++cache_gen;
	inst->req_live_next = cache_insts;
	cache_insts = inst;
	pthread_mutex_unlock(&cache_mu);
}

void rc_req_pool_fini(struct rc_inst *inst)
{
	struct rc_inst **pp;

	assert(!inst->retired); /* rc_inst_close reaped them */
	pthread_mutex_lock(&cache_mu);
	for (pp = &cache_insts; *pp && *pp != inst; pp = &(*pp)->req_live_next)
		;
	assert(*pp);
	if (*pp)
		*pp = inst->req_live_next;
	pthread_mutex_unlock(&cache_mu);
	/* the other threads' caches forget their slots at their next use */
	if (req_cache.inst == inst)
		memset(&req_cache, 0, sizeof(req_cache));
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
	struct req_cache *c = cache_of(inst);
	struct rc_req *req;

	if (RC_UNLIKELY(!c->ready) && !cache_fill(inst, c))
		return NULL;
	req = (struct rc_req *)c->ready;
	c->ready = req->h.next;
	req->h.magic = inst->out_pool.live;
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

/* (out of line: rc_req_free's path for the main pool stays as short as
 * before the caches, bench/cg_self at SINGLE) */
static __attribute__((noinline)) void req_free_out(struct rc_req *req)
{
	cache_free(req->inst, req);
}

void rc_req_free(struct rc_req *req)
{
	if (!req_release(req))
		return;
	if (RC_UNLIKELY(req->flags & RC_REQ_OUT_POOL)) {
		req_free_out(req);
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

	/* (the usual case is one, MPI_Wait's: the loop's first round) */
	while (req) {
		struct rc_req *next = req->stack_next;

		if (!req_release(req)) {
			/* not pooled */
		} else if (req->flags & RC_REQ_OUT_POOL) {
			cache_free(inst, req);
		} else {
			rc_hpool_put(&inst->req_pool, req);
		}
		req = next;
	}
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

/* rc_req_idle, inline here: below MULTIPLE a spinning wait's poll then
 * makes no call (rc_progress_idle calls out only to yield) */
static inline void req_idle(struct rc_req *req)
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

void rc_req_idle(struct rc_req *req)
{
	req_idle(req);
}

/* Below MULTIPLE, an empty progress call is followed by a spin of looks at
 * what req waits on (rc_progress_spin: a peer's eager ring), which sees a
 * message sooner than the next progress call would: a progress call
 * polls every transport and CQ, a look reads one word. Once a spin finds
 * nothing to look at for req (a shared-memory peer, MPI_ANY_SOURCE, a
 * message already matched, no ring from the peer yet), the rest of this
 * wait only polls: only the last can change while req waits, and a ring
 * that opens then serves the next wait. */
void rc_req_wait_done(struct rc_req *req)
{
	struct rc_inst *inst = req->inst;
	bool spin = inst->spin && inst->spin_polls && !rc_thread_multiple;
	unsigned n;

	while (req->state != RC_REQ_DONE) {
		if (rc_progress(inst) || req->state == RC_REQ_DONE)
			continue;
		if (spin) {
			n = rc_progress_spin(inst, req);
			if (n == RC_SPIN_NONE)
				spin = false;
			else if (n)
				continue;
		}
		req_idle(req);
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
