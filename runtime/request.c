/*
 * request.c - the request pool and the request state machine.
 *
 * Requests come from per-instance slabs, so starting an operation never
 * calls malloc once the pool is warm. Blocking calls put a request on their
 * own stack instead (it cannot outlive the call). A pooled request holds a
 * reference on req->comm, released with the request.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "comm.h"
#include "dtype.h"
#include "inst.h"
#include "request.h"
#include "status.h"

#define RC_REQ_SLAB 64

static int req_pool_grow(struct rc_inst *inst)
{
	struct rc_req *slab = calloc(RC_REQ_SLAB, sizeof(*slab));
	void **slabs;
	int i;

	if (!slab)
		return RC_ERR_NOMEM;
	slabs = realloc(inst->req_slabs,
			(inst->nreq_slabs + 1) * sizeof(*inst->req_slabs));
	if (!slabs) {
		free(slab);
		return RC_ERR_NOMEM;
	}
	inst->req_slabs = slabs;
	inst->req_slabs[inst->nreq_slabs++] = slab;
	for (i = 0; i < RC_REQ_SLAB; i++) {
		slab[i].pool_next = inst->req_free;
		inst->req_free = &slab[i];
	}
	return RC_OK;
}

void rc_req_pool_init(struct rc_inst *inst)
{
	inst->req_free = NULL;
	inst->req_slabs = NULL;
	inst->nreq_slabs = 0;
}

void rc_req_pool_fini(struct rc_inst *inst)
{
	size_t i;

	for (i = 0; i < inst->nreq_slabs; i++)
		free(inst->req_slabs[i]);
	free(inst->req_slabs);
	rc_req_pool_init(inst);
}

static void req_init(struct rc_req *req, struct rc_inst *inst,
		     enum rc_req_kind kind)
{
	memset(req, 0, sizeof(*req));
	req->inst = inst;
	req->kind = kind;
	req->state = RC_REQ_INACTIVE;
	rc_list_init(&req->link);
}

struct rc_req *rc_req_alloc(struct rc_inst *inst, enum rc_req_kind kind)
{
	struct rc_req *req;

	if (!inst->req_free && req_pool_grow(inst))
		return NULL;
	req = inst->req_free;
	inst->req_free = req->pool_next;
	req_init(req, inst, kind);
	req->flags = RC_REQ_POOLED;
	return req;
}

void rc_req_init_stack(struct rc_req *req, struct rc_inst *inst,
		       enum rc_req_kind kind)
{
	req_init(req, inst, kind);
}

void rc_req_free(struct rc_req *req)
{
	struct rc_inst *inst = req->inst;

	assert(req->state != RC_REQ_ACTIVE);
	if (req->dt)
		rc_dt_release(req->dt);
	req->dt = NULL;
	if (!(req->flags & RC_REQ_POOLED))
		return;
	/* a pooled request holds a reference on its communicator, so that
	 * MPI_Comm_free with operations pending is safe (comm.h) */
	if (req->comm)
		rc_comm_release(req->comm);
	req->comm = NULL;
	req->state = RC_REQ_INACTIVE;
	req->kind = 0;		/* stale handles fail validation */
	req->pool_next = inst->req_free;
	inst->req_free = req;
}

void rc_req_complete(struct rc_req *req)
{
	assert(req->state == RC_REQ_ACTIVE);
	req->state = RC_REQ_DONE;
	if (req->cb)
		req->cb(req);
	if ((req->flags & RC_REQ_USER_FREED) &&
	    !(req->flags & RC_REQ_PERSISTENT))
		rc_req_free(req);
}

void rc_req_wait_done(struct rc_req *req)
{
	struct rc_inst *inst = req->inst;

	while (req->state != RC_REQ_DONE) {
		if (!rc_progress(inst) && req->state != RC_REQ_DONE)
			rc_progress_idle(inst);
	}
}

int rc_req_finish(struct rc_req **reqp, MPI_Status *status)
{
	struct rc_req *req = *reqp;
	int err = req->err;

	assert(req->state == RC_REQ_DONE);
	if (status != MPI_STATUS_IGNORE) {
		int keep = status->MPI_ERROR;

		*status = req->status;
		status->MPI_ERROR = keep;
	}
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
