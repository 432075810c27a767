/*
 * pt2pt.h - the point-to-point engine's internal interface, used by the MPI
 * API files, by coll/ and by the runtime's init/finalize.
 *
 * A request names (buf, count, dt, peer, tag, ctx, comm); the engine picks
 * the peer's transport and protocol (eager or rendezvous) and completes the
 * request from progress. Collectives pass their communicator's collective
 * context id (rc_comm_coll_ctx) so they never match user traffic.
 */
#ifndef RC_PT2PT_H
#define RC_PT2PT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "list.h"
#include "request.h"

struct rc_inst;
struct rc_comm;
struct rc_dtype;

/* An unexpected message. */
struct rc_umsg {
	struct rc_list link;
	uint32_t ctx;
	int src;		/* comm rank of the sender */
	int tag;
	int wsrc;		/* world rank of the sender */
	uint8_t type;		/* protocol message that announced it */
	uint8_t flags;		/* RTS flags */
	size_t len;		/* bytes of the whole message */
	uint64_t sreq;		/* sender's request id (sync, rendezvous) */
	uint64_t raddr;		/* rendezvous: sender's exposed buffer */
	uint8_t rkey[32];
	void *data;		/* eager payload (len bytes) */
	bool small;		/* from the engine's free list */
};

/*
 * An MPI_Message handle (handle.h): a message MPI_Mprobe took off the
 * unexpected queue, until MPI_Mrecv/MPI_Imrecv starts receiving it (the
 * handle dies then). MPI_MESSAGE_NO_PROC has no message (u NULL).
 */
struct rc_message {
	struct rc_hobj h;
	struct rc_umsg *u;
	struct rc_comm *comm; /* the communicator it was probed on */
};

/* Open the transports, add their addresses to the modex (before the
 * exchange); connect peers after it. */
int rc_p2p_open(struct rc_inst *inst);
int rc_p2p_connect(struct rc_inst *inst);
/* Complete every send this process started (they may need the peers'
 * progress), then close the transports. */
int rc_p2p_drain(struct rc_inst *inst);
void rc_p2p_close(struct rc_inst *inst);

/* Fill a request for a send / receive (kind set by the caller's alloc). */
void rc_p2p_req_setup(struct rc_req *req, struct rc_comm *comm, uint32_t ctx,
		      void *buf, size_t count, struct rc_dtype *dt, int peer,
		      int tag, enum rc_send_mode mode);
/* Start a set-up request (also MPI_Start on a persistent one). */
int rc_p2p_start(struct rc_req *req);

/* Nonblocking send/receive from the pool: the common path for coll/. */
int rc_p2p_isend(struct rc_comm *comm, uint32_t ctx, const void *buf,
		 size_t count, struct rc_dtype *dt, int dst, int tag,
		 enum rc_send_mode mode, struct rc_req **reqp);
int rc_p2p_irecv(struct rc_comm *comm, uint32_t ctx, void *buf, size_t count,
		 struct rc_dtype *dt, int src, int tag, struct rc_req **reqp);

/* Standard-mode send without a request, when it goes now in one eager
 * message: RC_OK (sent; the buffer is free), RC_AGAIN (it needs a request:
 * not contiguous, too large, or sends are queued for the peer), or a
 * transport error. Never blocks; safe inside progress callbacks. */
int rc_p2p_send_now(struct rc_comm *comm, uint32_t ctx, const void *buf,
		    size_t count, struct rc_dtype *dt, int dst, int tag);

/* Blocking send with the eager fast path (no request when it fits). */
int rc_p2p_send(struct rc_comm *comm, uint32_t ctx, const void *buf,
		size_t count, struct rc_dtype *dt, int dst, int tag,
		enum rc_send_mode mode);

/* Look for a matching unexpected message (after one progress call).
 * remove: take it off the queue (MPI_Improbe) and return it in *msg. */
bool rc_p2p_iprobe(struct rc_comm *comm, uint32_t ctx, int src, int tag,
		   bool remove, MPI_Status *status, struct rc_umsg **msg);
/* Start receiving a message taken by rc_p2p_iprobe(remove); u NULL: the
 * message of MPI_MESSAGE_NO_PROC (completes at once, empty). */
int rc_p2p_mrecv_start(struct rc_req *req, struct rc_umsg *msg);

/* Cancel a receive still on the posted queue. */
void rc_p2p_cancel(struct rc_req *req);

#endif
