/*
 * request.h - requests: one object per nonblocking operation (pt2pt send or
 * receive, collective schedule), from a per-instance pool.
 *
 * State machine (asserted):
 *   INACTIVE --start--> ACTIVE --rc_req_complete--> DONE
 *   DONE --wait/test: persistent--> INACTIVE; non-persistent--> freed
 * MPI_Request_free on an ACTIVE request sets RC_REQ_USER_FREED and the
 * request is freed when it completes.
 *
 * A request of kind RC_REQ_SENT is born DONE: an eager send that went out
 * before its MPI_Isend returned, outside the critical section
 * (rc_p2p_isend_outside). It holds no communicator, datatype or engine
 * state, so a wait or test finishes it outside the section too.
 *
 * Requests made outside the section (such sends, and the receives of
 * MPI_Irecv posted outside it, engine.c) come from a pool of their own,
 * inst->out_pool, behind its leaf lock, through a small cache in each
 * thread that takes and gives back slots in batches (request.c):
 * rc_req_alloc_out outside the section, rc_req_free inside or out
 * (RC_REQ_OUT_POOL says where a request goes back). Every other request
 * comes from inst->req_pool, used inside
 * the section alone and not locked. The out pool's handles are numbered
 * from RC_REQ_OUT_BASE, so MPI_Request_f2c knows which pool to look in
 * (rc_req_f2c_pool).
 *
 * The engine hands over the sends and receives that a user's MPI_Isend,
 * MPI_Irecv (and their kin, persistent ones and MPI_Isendrecv's pair
 * included) make, and those on
 * the stack of the blocking calls: no completion callback, no owner above
 * pt2pt (rc_req_handed). Storing DONE is rc_req_complete's last touch of
 * such a request (unless the user freed it), and no caller of it reads
 * the request after it, so at MULTIPLE a wait or test finishes it
 * outside the section once it is DONE without error:
 * rc_req_finish_outside copies its status out and either re-arms it
 * (persistent) or retires it. A retired request's slot and references go
 * back inside the section, at the next rc_req_alloc or rc_req_reap: the
 * retired requests are a lock-free stack, inst->retired, pushed by any
 * thread and taken whole by the one in the section.
 */
#ifndef RC_REQUEST_H
#define RC_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "handle.h"
#include "list.h"

struct rc_inst;
struct rc_comm;
struct rc_dtype;
struct rc_umsg;

enum rc_req_kind {
	RC_REQ_SEND = 1,
	RC_REQ_RECV,
	RC_REQ_COLL, /* a collective schedule */
	RC_REQ_SENT, /* an eager send done within its own call (below) */
	RC_REQ_RMA,  /* one-sided: an operation or a synchronisation (rma/) */
	RC_REQ_GREQ, /* generalized request (MPI_Grequest_start) */
	RC_REQ_PAIR, /* MPI_Isendrecv(_replace): a send and a receive */
};

enum rc_req_state {
	RC_REQ_INACTIVE = 0,
	RC_REQ_ACTIVE,
	RC_REQ_DONE,
};

enum rc_send_mode {
	RC_SEND_STD = 0,
	RC_SEND_SYNC,
	RC_SEND_READY,
	RC_SEND_BUFFERED,	/* copied into the attached buffer (bsend.c) */
};

#define RC_REQ_PERSISTENT 0x1u /* MPI_Send_init, MPI_Bcast_init, ... */
#define RC_REQ_USER_FREED 0x2u	/* MPI_Request_free while active */
#define RC_REQ_POOLED 0x4u	/* from the pool (not on a caller's stack) */
#define RC_REQ_CANCELLED 0x8u
#define RC_REQ_POSTED 0x10u	/* on a posted-receive queue */
#define RC_REQ_OUT_POOL 0x20u	/* from inst->out_pool (above) */

/* Protocol state, owned by pt2pt. */
struct rc_p2p_state {
	int wpeer;		/* world rank of the peer once known */
	size_t len;		/* bytes the protocol moves (packed) */
	size_t sent;		/* bytes handed to the transport / fetched */
	size_t acked;		/* bytes known to be done */
	unsigned inflight;	/* transport operations outstanding */
	uint64_t remote_id;	/* peer's request id (rendezvous, ssend) */
	uint64_t raddr;		/* peer buffer for RGET/RPUT */
	uint8_t rkey[32];	/* peer's memory key, transport-defined */
	void *tmp;		/* packing buffer for non-contiguous data */
	void *mreg;		/* transport memory registration */
	uint8_t proto;		/* chosen protocol (pt2pt/engine.c) */
	uint8_t cancel;		/* send cancellation state (engine.c) */
	struct rc_list plink;	/* on the peer's waiting list */
};

/*
 * A persistent request that a module above pt2pt owns (coll/: the
 * persistent collectives of MPI-4): MPI_Start runs start (on an inactive
 * request), rc_req_free calls release before the request goes back to the
 * pool. pt2pt's persistent requests have none.
 */
struct rc_req_pers {
	int (*start)(struct rc_req *req);
	void (*release)(struct rc_req *req);
};

/* A generalized request's callbacks (MPI-3.1 section 12.2). */
struct rc_greq_state {
	MPI_Grequest_query_function *query;
	MPI_Grequest_free_function *free;
	MPI_Grequest_cancel_function *cancel;
	void *extra;
	bool freed;		/* free has run */
};

struct rc_req {
	struct rc_hobj h; /* handle.h; live on the stack too */
	struct rc_inst *inst;
	uint8_t kind;
	uint8_t state;
	uint16_t flags;
	int err;		/* internal status (status.h) */
	struct rc_comm *comm;
	MPI_Status status;
	/* called inside progress when the request completes */
	void (*cb)(struct rc_req *req);
	void *cb_data;
	struct rc_list link;	/* posted-receive queue, pending list */
	/* on a lock-free stack (rc_req_stack_push): the receives posted and
	 * the sends handed over outside the section (pt2pt/engine.c), later
	 * inst->retired (above) */
	struct rc_req *stack_next;

	/* the operation */
	void *buf;
	size_t count;
	struct rc_dtype *dt;
	int peer;		/* comm rank, MPI_ANY_SOURCE, MPI_PROC_NULL */
	int tag;
	uint32_t ctx;
	uint8_t mode;		/* enum rc_send_mode */
	struct rc_umsg *msg;	/* MPI_Imrecv: the message to receive */

	struct rc_p2p_state p2p;
	void *coll; /* collective schedule (coll/) */
	const struct rc_req_pers *pers; /* owner of a persistent request */
	struct rc_greq_state greq;
};

/* Allocate from the instance's pool; fields zeroed, state INACTIVE. */
struct rc_req *rc_req_alloc(struct rc_inst *inst, enum rc_req_kind kind);
/* Initialise a request that lives on the caller's stack (blocking calls). */
void rc_req_init_stack(struct rc_req *req, struct rc_inst *inst,
		       enum rc_req_kind kind);
void rc_req_free(struct rc_req *req);
/* A request from inst->out_pool, safe outside the critical section (this
 * thread's cache, refilled under the pool's lock): kind RC_REQ_SENT is
 * born DONE, any other INACTIVE. NULL when out of memory. */
struct rc_req *rc_req_alloc_out(struct rc_inst *inst, enum rc_req_kind kind);

#define RC_REQ_OUT_BASE (1u << 30)
/* The pool where MPI_Request_f2c looks up index f. */
struct rc_hpool *rc_req_f2c_pool(struct rc_inst *inst, MPI_Fint f);
/* Start an inactive persistent request that has an owner (req->pers);
 * RC_ERR_INVAL when it has none or is not inactive. */
int rc_req_start(struct rc_req *req);

/* Is req one that the engine hands over once done (above)? Fixed while
 * the handle lives: safe to ask outside the section. */
static inline bool rc_req_handed(const struct rc_req *req)
{
	return req->kind == RC_REQ_SENT ||
	       ((req->kind == RC_REQ_SEND || req->kind == RC_REQ_RECV ||
		 req->kind == RC_REQ_PAIR) &&
		!req->cb && !req->pers);
}

/* Outside the section: is req, one that rc_req_handed accepted, done
 * without error, so that rc_req_finish_outside may finish it? */
static inline bool rc_req_done_outside(const struct rc_req *req)
{
	if (req->kind == RC_REQ_SENT)
		return true;
	/* the engine stored DONE last (release), after the status; after
	 * it, nobody else writes flags or err */
	return __atomic_load_n(&req->state, __ATOMIC_ACQUIRE) == RC_REQ_DONE &&
	       (req->flags & (RC_REQ_POOLED | RC_REQ_USER_FREED)) ==
		       RC_REQ_POOLED &&
	       req->err == 0 /* RC_OK */;
}
/* Push the chain first .. last (linked by stack_next) onto the lock-free
 * stack *top in one compare-and-swap: any thread. The one that takes the
 * stack takes it whole (an exchange), so there is no ABA. */
static inline void rc_req_stack_push(struct rc_req **top, struct rc_req *first,
				     struct rc_req *last)
{
	struct rc_req *head = __atomic_load_n(top, __ATOMIC_RELAXED);

	do
		last->stack_next = head;
	while (!__atomic_compare_exchange_n(
		top, &head, first, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* Requests finished outside the section, to be retired in one push. */
struct rc_req_chain {
	struct rc_req *first, *last;
};
/* rc_req_finish for such a request, outside the section (or in it): a
 * persistent one goes back to INACTIVE; any other is retired, or put on
 * chain (when not NULL) for the caller to retire with others
 * (rc_req_chain_retire). */
void rc_req_finish_outside(struct rc_req **reqp, MPI_Status *status,
			   struct rc_req_chain *chain);
void rc_req_chain_retire(struct rc_req_chain *chain);
/* MPI_Request_free of such a request, outside the section. */
void rc_req_free_outside(struct rc_req *req);
/* At MULTIPLE, from a thread that holds the section once: wait for every
 * request of reqs (ones the engine hands over, on the caller's stack too;
 * NULL ones skipped), taking the section only to poll as MPI_Wait does
 * outside it; returns with them done and the section given up (MPI_Recv,
 * MPI_Send, MPI_Sendrecv). */
void rc_req_wait_release(int count, struct rc_req **reqs);
/* Inside the section: give back what the retired requests hold. */
void rc_req_reap(struct rc_inst *inst);

/* Mark the request done and run its completion callback. Storing DONE is
 * its last touch of a request that has no callback and that the user did
 * not free: the waiting thread may take it from there, outside the
 * section (a request on its stack too). */
void rc_req_complete(struct rc_req *req);

static inline bool rc_req_done(const struct rc_req *req)
{
	return req->state == RC_REQ_DONE;
}

/* Is req a live request handle? */
static inline bool rc_req_valid(const struct rc_req *req)
{
	return rc_hobj_is(req, RC_HK_REQ);
}

/* Spin on progress until req is done (never returns early). */
void rc_req_wait_done(struct rc_req *req);
/* A wait loop for req found nothing to do: relax (rc_progress_idle), or at
 * MPI_THREAD_MULTIPLE let the other threads in until req is done or the
 * section falls free (rc_cs_yield_until). */
void rc_req_idle(struct rc_req *req);

/* A done request's status into *status (unless MPI_STATUS_IGNORE), the
 * caller's MPI_ERROR field kept. */
static inline void rc_req_status_out(const struct rc_req *req,
				     MPI_Status *status)
{
	if (status != MPI_STATUS_IGNORE) {
		int keep = status->MPI_ERROR;

		*status = req->status;
		status->MPI_ERROR = keep;
	}
}

/* After DONE: copy status out, release or re-arm per the rules above.
 * Returns the request's internal status. */
int rc_req_finish(struct rc_req **reqp, MPI_Status *status);

/*
 * Generalized requests. Each returns the error code of the callback it
 * ran (MPI_SUCCESS when there is none to run). rc_greq_query fills *st
 * through query_fn (req must be done); rc_greq_release runs free_fn, once
 * in the request's life; rc_greq_cancel runs cancel_fn.
 */
int rc_greq_query(struct rc_req *req, MPI_Status *st);
int rc_greq_release(struct rc_req *req);
int rc_greq_cancel(struct rc_req *req);

void rc_req_pool_init(struct rc_inst *inst);
void rc_req_pool_fini(struct rc_inst *inst);

/* A status for an operation with nothing to receive (PROC_NULL). */
void rc_status_set_empty(MPI_Status *st);

#endif
