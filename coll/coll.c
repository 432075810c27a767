/*
 * coll.c - the collective module: set-up, and the finalize fence.
 *
 * The fence is a dissemination barrier over pt2pt in world's collective
 * context with a tag no collective uses, so it cannot match anything else.
 * Unlike a PMIx fence it keeps progressing while it waits, which matters:
 * a peer may still need our progress to drain the sends it started.
 */
#include "comm.h"
#include "dtype.h"
#include "inst.h"
#include "pt2pt.h"
#include "request.h"
#include "status.h"
#include "coll.h"

#define RC_COLL_TAG_FENCE (-7)

int rc_coll_open(struct rc_inst *inst)
{
	return RC_OK;
}

void rc_coll_close(struct rc_inst *inst)
{
}

int rc_coll_fence(struct rc_inst *inst)
{
	struct rc_comm *w = inst->world;
	uint32_t ctx = rc_comm_coll_ctx(w);
	int dist, ret;
	char token = 0, sink;

	for (dist = 1; dist < w->size; dist <<= 1) {
		struct rc_req *rreq, *sreq;

		ret = rc_p2p_irecv(w, ctx, &sink, 1, &rc_mpi_byte,
				   (w->rank - dist + w->size) % w->size,
				   RC_COLL_TAG_FENCE, &rreq);
		if (ret)
			return ret;
		ret = rc_p2p_isend(w, ctx, &token, 1, &rc_mpi_byte,
				   (w->rank + dist) % w->size,
				   RC_COLL_TAG_FENCE, RC_SEND_STD, &sreq);
		if (ret)
			return ret;
		rc_req_wait_done(sreq);
		rc_req_wait_done(rreq);
		rc_req_finish(&sreq, MPI_STATUS_IGNORE);
		rc_req_finish(&rreq, MPI_STATUS_IGNORE);
	}
	return RC_OK;
}
