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
struct rc_tp;

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

/* Poll transport tp alone, as one progress call would (never re-entered):
 * for a short wait whose completions only tp brings (a one-sided flush of
 * RDMA and device atomics). It skips the other transports and the
 * engine's other work (queued sends, failed peers, schedules), so such a
 * wait still calls rc_progress every few turns. */
unsigned rc_p2p_poll_tp(struct rc_inst *inst, struct rc_tp *tp);

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

/* MPI_Send outside the critical section (MPI_THREAD_MULTIPLE, arguments
 * checked): one eager message of a contiguous buffer to a peer whose
 * transport lets senders run at once (RC_TP_CAP_SEND_MT) and that has no
 * sends queued, under the peer's send lock alone. RC_OK: sent; RC_AGAIN:
 * take the whole path (rc_p2p_send) inside the section. */
int rc_p2p_send_outside(struct rc_comm *comm, const void *buf, size_t count,
			struct rc_dtype *dt, int dst, int tag);
/* MPI_Isend the same way: on RC_OK *reqp is a done request of kind
 * RC_REQ_SENT, which a wait or test finishes outside the section too. */
int rc_p2p_isend_outside(struct rc_comm *comm, const void *buf, size_t count,
			 struct rc_dtype *dt, int dst, int tag,
			 struct rc_req **reqp);

/* Blocking send with the eager fast path (no request when it fits). */
int rc_p2p_send(struct rc_comm *comm, uint32_t ctx, const void *buf,
		size_t count, struct rc_dtype *dt, int dst, int tag,
		enum rc_send_mode mode);
/* rc_p2p_send in two halves, for a caller that waits its own way (MPI_Send
 * at MULTIPLE): begin returns RC_OK with *started false when the message
 * is sent (or was nothing to send), with *started true when req, on the
 * caller's stack, carries it: wait until it is done, then
 * rc_p2p_send_end (its status). */
int rc_p2p_send_begin(struct rc_comm *comm, uint32_t ctx, const void *buf,
		      size_t count, struct rc_dtype *dt, int dst, int tag,
		      enum rc_send_mode mode, struct rc_req *req,
		      bool *started);
int rc_p2p_send_end(struct rc_req *req);

/* Look for a matching unexpected message (after one progress call).
 * remove: take it off the queue (MPI_Improbe) and return it in *msg. */
bool rc_p2p_iprobe(struct rc_comm *comm, uint32_t ctx, int src, int tag,
		   bool remove, MPI_Status *status, struct rc_umsg **msg);
/* Start receiving a message taken by rc_p2p_iprobe(remove); u NULL: the
 * message of MPI_MESSAGE_NO_PROC (completes at once, empty). */
int rc_p2p_mrecv_start(struct rc_req *req, struct rc_umsg *msg);

/*
 * At MPI_THREAD_MULTIPLE, receives posted outside the critical section
 * (engine.c: onto a lock-free stack, which the section's holder queues
 * and matches in order at each progress call, post, probe and cancel).
 * rc_p2p_post_outside: req new (rc_req_alloc_out, rc_req_init_stack)
 * and set up (rc_p2p_req_setup); true when posted, false for
 * MPI_PROC_NULL: then rc_p2p_start completes it inside.
 * rc_p2p_irecv_outside: the same for MPI_Irecv with a request from the
 * out pool (request.h): RC_OK posted; RC_AGAIN *reqp set up, for
 * rc_p2p_start inside; RC_ERR_NOMEM no request.
 */
bool rc_p2p_post_outside(struct rc_req *req);
int rc_p2p_irecv_outside(struct rc_comm *comm, void *buf, size_t count,
			 struct rc_dtype *dt, int src, int tag,
			 struct rc_req **reqp);

/*
 * At MPI_THREAD_MULTIPLE, MPI_Isend (and kin) from a thread that found the
 * critical section taken (arguments checked; not to MPI_PROC_NULL, not
 * buffered): handed to the section's holder, which starts it at its next
 * progress call, post or cancel, after the sends this thread handed over
 * before (engine.c). RC_OK: *reqp is active, from the out pool; the
 * engine hands it over when done (request.h). RC_ERR_NOMEM: no request.
 */
int rc_p2p_isend_delegate(struct rc_comm *comm, const void *buf, size_t count,
			  struct rc_dtype *dt, int dst, int tag,
			  enum rc_send_mode mode, struct rc_req **reqp);
/* May MPI_Start start this persistent send or receive of pt2pt's outside
 * the section? Not to or from MPI_PROC_NULL, not a buffered send: those
 * start inside. */
static inline bool rc_p2p_startable_outside(const struct rc_req *req)
{
	return req->peer != MPI_PROC_NULL &&
	       (req->kind == RC_REQ_RECV ||
		(req->kind == RC_REQ_SEND && req->mode != RC_SEND_BUFFERED));
}
/* MPI_Start of such a request (inactive, startable), outside the section
 * at MULTIPLE (the owner's own request): a receive posted onto the stack
 * of receives, a send handed over as above. */
void rc_p2p_start_outside(struct rc_req *req);

/* MPI_Cancel: a receive still on the posted queue is cancelled at once; a
 * send not yet handed to a transport too; a send whose RTS (or synchronous
 * eager message) is out asks the receiver, whose answer completes the
 * request from progress (cancelled when the message was not yet matched);
 * anything else completes normally (not cancelled). */
void rc_p2p_cancel(struct rc_req *req);

/*
 * ---- buffered mode (bsend.c) ----
 * attach: RC_ERR_BUFFER when a buffer is attached already. detach: spins on
 * progress until every buffered send has left, then returns the buffer as
 * attached (NULL, 0 when none is). post: pack the message into the buffer
 * and start sending it; RC_ERR_BUFFER when it does not fit (or no buffer).
 * fini: after rc_p2p_drain, forget the buffer (MPI_Finalize).
 */
int rc_bsend_attach(struct rc_inst *inst, void *buf, size_t size);
int rc_bsend_detach(struct rc_inst *inst, void **buf, size_t *size);
int rc_bsend_post(struct rc_comm *comm, uint32_t ctx, const void *buf,
		  size_t count, struct rc_dtype *dt, int dst, int tag);
bool rc_bsend_busy(struct rc_inst *inst);
void rc_bsend_fini(struct rc_inst *inst);

/*
 * ---- active messages for the layers above (rma/) ----
 * An upper layer registers handlers under an id once per instance; a
 * message it sends to a world rank is delivered there, during that rank's
 * progress, to the handler of the same id with the bytes given (header then
 * payload, contiguous, valid only during the call). Messages to one peer
 * leave through the peer's one transport in the order they are handed over,
 * behind everything the engine sent or queued for that peer before, so an
 * upper layer's messages are ordered among themselves and with pt2pt's.
 * Nothing is dropped: what the transport cannot take now waits in the
 * peer's queue (a copy, or the stream object) and progress retries it.
 */
enum rc_am_id {
	RC_AM_RMA = 0,		/* one-sided communication (rma/) */
	RC_AM_NIDS
};

#define RC_AM_HDR_MAX 256	/* largest upper-layer header */

struct rc_am_ops {
	/* a message from world rank wsrc */
	void (*recv)(struct rc_inst *inst, int wsrc, const void *msg,
		     size_t len);
	/* world rank w failed (status, e.g. RC_ERR_PEER): nothing more comes
	 * from it, nothing queued for it will leave; called from progress
	 * (optional) */
	void (*failed)(struct rc_inst *inst, int w, int status);
};

void rc_am_register(struct rc_inst *inst, unsigned id,
		    const struct rc_am_ops *ops);
/* Largest header + payload of one message to world rank w, and the payload
 * a streaming layer should put in one message (the transport's eager
 * limit: what travels without rendezvous on every transport). */
size_t rc_am_max(struct rc_inst *inst, int w);
size_t rc_am_frag(struct rc_inst *inst, int w);
/* Send one message (hlen <= RC_AM_HDR_MAX, hlen + len <= rc_am_max): now,
 * or copied into the peer's queue. RC_OK: the buffers may be reused;
 * RC_ERR_PEER: the peer has failed (nothing sent). */
int rc_am_send(struct rc_inst *inst, int w, unsigned id, const void *hdr,
	       size_t hlen, const void *payload, size_t len);

/*
 * A stream: a producer of several messages that must leave in order
 * without being copied (large one-sided transfers). When its turn in the
 * peer's queue comes (at once in rc_am_stream_start when nothing waits for
 * the peer, else from progress) the engine calls push(), which hands
 * messages to rc_am_send_now() until it is done (return RC_OK: the engine
 * forgets the stream) or until the transport answers RC_AGAIN (return
 * RC_AGAIN: push is called again later). Another status fails the peer.
 * If the peer fails while the stream waits, drop() is called instead and
 * the stream is forgotten.
 */
struct rc_am_stream {
	int (*push)(struct rc_am_stream *s);
	void (*drop)(struct rc_am_stream *s, int status);
	int wrank;		/* the peer (world rank) */
};

void rc_am_stream_start(struct rc_inst *inst, struct rc_am_stream *s);
/* Inside push() only: one message straight to the transport (RC_OK,
 * RC_AGAIN, or the transport's error). */
int rc_am_send_now(struct rc_inst *inst, int w, unsigned id, const void *hdr,
		   size_t hlen, const void *payload, size_t len);

/* The name of a node-wide shared-memory segment of this job:
 * "/rcmpi.<nspace>.<what>", the prefix the launcher sweeps after a crash. */
void rc_shm_seg_name(char *out, size_t len, const char *nspace,
		     const char *what);
/* Reserve len bytes of a segment's pages now (a full /dev/shm is an error
 * here, not a SIGBUS later), through signals: 0 or an errno. */
int rc_shm_reserve(int fd, size_t len);

/* The shared-memory eager limit that RCMPI_SHM_EAGER_LIMIT=auto picks from
 * measured costs (tp_shm.c): one CMA call costs fixed_ns + cma_ns_per_byte
 * per byte, one memcpy copy_ns_per_byte; at least RC_SHM_EAGER_FLOOR,
 * at most max. */
#define RC_SHM_EAGER_FLOOR 4096
size_t rc_shm_eager_model(double fixed_ns, double cma_ns_per_byte,
			  double copy_ns_per_byte, size_t max);

#endif
