/*
 * p2p_api.c - the MPI point-to-point functions: argument checks and the
 * mapping onto the engine (engine.c). Blocking calls keep their request on
 * the stack; MPI_Send of a small contiguous message needs none at all.
 * Buffered mode runs in bsend.c; MPI_Isendrecv(_replace) returns a request
 * over two pooled halves that report to it from their completion callbacks.
 */
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "dtype.h"
#include "info.h"
#include "pt2pt.h"
#include "request.h"
#include "thread.h"

#define RC_TAG_UB 0x7fffffff

struct rc_message rc_mpi_message_no_proc = {.h = RC_HOBJ_INIT(RC_HK_MSG)};

/* Check the arguments common to sends and receives; 0 or an error class.
 * Inline at each call: a few compares on the path of every message. */
static inline __attribute__((always_inline)) int
p2p_check(struct rc_comm *comm, const void *buf, int count, struct rc_dtype *dt,
	  int peer, int tag, bool recv)
{
	if (RC_UNLIKELY(count < 0))
		return MPI_ERR_COUNT;
	if (RC_UNLIKELY(!rc_dt_valid(dt)))
		return MPI_ERR_TYPE;
	if (RC_UNLIKELY(peer < 0 || peer >= rc_comm_psize(comm))) {
		if (peer != MPI_PROC_NULL &&
		    !(recv && peer == MPI_ANY_SOURCE))
			return MPI_ERR_RANK;
	}
	if (RC_UNLIKELY(tag < 0 || tag > RC_TAG_UB)) {
		if (!(recv && tag == MPI_ANY_TAG))
			return MPI_ERR_TAG;
	}
	/* MPI_BOTTOM (NULL) is only meaningful with absolute displacements */
	if (RC_UNLIKELY(!buf && count > 0 && (dt->flags & RC_DT_PREDEFINED)))
		return MPI_ERR_BUFFER;
	return MPI_SUCCESS;
}

/* Raise what p2p_check found (a bad datatype named in the message). */
static int p2p_raise(struct rc_comm *comm, int cls, struct rc_dtype *dt,
		     const char *fn)
{
	if (cls == MPI_ERR_TYPE)
		return rc_err_dtype(comm, dt, fn);
	return RC_ERR(comm, cls, fn);
}

#define P2P_CHECK(fn, comm, buf, count, dt, peer, tag, recv)              \
	do {                                                              \
		int cls_;                                                 \
		RC_API_CHECK_INIT(fn);                                    \
		if (RC_UNLIKELY(!rc_comm_valid(comm)))                    \
			return rc_err_handle(NULL, RC_HK_COMM, comm, fn); \
		cls_ = p2p_check(comm, buf, count, dt, peer, tag, recv);  \
		if (RC_UNLIKELY(cls_))                                    \
			return p2p_raise(comm, cls_, dt, fn);             \
	} while (0)

/* MPI_Send, MPI_Ssend, MPI_Rsend and MPI_Bsend (inline in each: MPI_Send
 * calls the engine's rc_p2p_send straight). */
static inline __attribute__((always_inline)) int
p2p_blocking_send(const void *buf, int count, MPI_Datatype dt, int dest,
		  int tag, MPI_Comm comm, enum rc_send_mode mode,
		  const char *fn)
{
	int ret;

	P2P_CHECK(fn, comm, buf, count, dt, dest, tag, false);
	ret = rc_p2p_send(comm, comm->ctx, buf, (size_t)count, dt, dest, tag,
			  mode);
	return rc_api_status(comm, ret, fn);
}

/*
 * At MPI_THREAD_MULTIPLE: may a small send go now, outside the critical
 * section? Only to a peer whose transport lets senders run at once (asked
 * first, and not at all in a process without one: it costs other sends
 * least), inline, so that other sends pay a few loads.
 */
static inline bool p2p_send_mt_peer(MPI_Comm comm, int dest)
{
	return rc_g.send_mt_any && rc_api_ready() && rc_comm_valid(comm) &&
	       dest >= 0 && dest < rc_comm_psize(comm) &&
	       comm->inst->procs[rc_comm_wrank(comm, dest)].send_mt;
}

/* Then it goes (rc_p2p_send_outside; with a request,
 * rc_p2p_isend_outside) if its arguments are good; anything else (an
 * error to raise included) takes the whole path inside. */
static __attribute__((noinline)) bool
p2p_send_outside(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
		 MPI_Comm comm, MPI_Request *request)
{
	if (p2p_check(comm, buf, count, dt, dest, tag, false))
		return false;
	if (request)
		return rc_p2p_isend_outside(comm, buf, (size_t)count, dt, dest,
					    tag, request) == RC_OK;
	return rc_p2p_send_outside(comm, buf, (size_t)count, dt, dest, tag) ==
	       RC_OK;
}

static int p2p_isend(const void *buf, int count, MPI_Datatype dt, int dest,
		     int tag, MPI_Comm comm, MPI_Request *request,
		     enum rc_send_mode mode, const char *fn);

/* A blocking send's checks and start, in the section: *started when req
 * (on the caller's stack) carries the message. */
static int send_post(struct rc_req *req, bool *started, const void *buf,
		     int count, MPI_Datatype dt, int dest, int tag,
		     MPI_Comm comm, enum rc_send_mode mode, const char *fn)
{
	int ret;

	P2P_CHECK(fn, comm, buf, count, dt, dest, tag, false);
	ret = rc_p2p_send_begin(comm, comm->ctx, buf, (size_t)count, dt, dest,
				tag, mode, req, started);
	return rc_api_status(comm, ret, fn);
}

/*
 * A blocking send at MULTIPLE that must wait (a rendezvous, a synchronous
 * send, a full ring): started in the section, then waited for as MPI_Recv
 * does (rc_req_wait_release): the section only to poll, and when done,
 * finished outside it. An error is raised in the section; a call from a
 * thread already in it (a callback) waits and finishes there.
 */
static __attribute__((noinline)) int
send_mt(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
	MPI_Comm comm, enum rc_send_mode mode, const char *fn)
{
	struct rc_req req;
	bool started = false;
	int ret;

	rc_cs_lock(&rc_cs_big);
	ret = send_post(&req, &started, buf, count, dt, dest, tag, comm, mode,
			fn);
	if (ret || !started) {
		rc_cs_unlock(&rc_cs_big);
		return ret;
	}
	if (rc_cs_nested(&rc_cs_big)) {
		rc_req_wait_done(&req);
		goto inside;
	}
	rc_req_wait_release(1, (struct rc_req *[]){&req});
	if (RC_LIKELY(req.err == RC_OK)) {
		rc_p2p_send_end(&req);
		return MPI_SUCCESS;
	}
	rc_cs_lock(&rc_cs_big);
inside:
	ret = rc_api_status(comm, rc_p2p_send_end(&req), fn);
	rc_cs_unlock(&rc_cs_big);
	return ret;
}

/* At MULTIPLE: are a send's or receive's arguments good, so that it may
 * be posted outside the section? (Anything else takes the whole path
 * inside, where the error is raised.) */
static inline bool p2p_args_ok(const void *buf, int count, MPI_Datatype dt,
			       int peer, int tag, MPI_Comm comm, bool recv)
{
	return rc_api_ready() && rc_comm_valid(comm) &&
	       !p2p_check(comm, buf, count, dt, peer, tag, recv);
}

/*
 * At MULTIPLE, for an MPI_Isend, MPI_Irsend or MPI_Issend that found the
 * section taken: handed to the thread that holds it
 * (rc_p2p_isend_delegate), so the call returns without waiting for it;
 * true when it was. Else (bad arguments, MPI_PROC_NULL, no memory for a
 * request) the section is taken, for the path inside.
 */
static __attribute__((noinline)) bool
isend_delegate(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
	       MPI_Comm comm, MPI_Request *request, enum rc_send_mode mode)
{
	if (request && dest != MPI_PROC_NULL &&
	    p2p_args_ok(buf, count, dt, dest, tag, comm, false) &&
	    rc_p2p_isend_delegate(comm, buf, (size_t)count, dt, dest, tag, mode,
				  request) == RC_OK)
		return true;
	rc_cs_lock(&rc_cs_big);
	return false;
}

/* Those calls at MULTIPLE when they did not go out at once (below): in
 * the section when it is free, else handed over (above). */
static inline __attribute__((always_inline)) int
isend_mt(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
	 MPI_Comm comm, MPI_Request *request, enum rc_send_mode mode,
	 const char *fn)
{
	int ret;

	if (RC_UNLIKELY(!rc_cs_trylock(&rc_cs_big)) &&
	    isend_delegate(buf, count, dt, dest, tag, comm, request, mode))
		return MPI_SUCCESS;
	ret = p2p_isend(buf, count, dt, dest, tag, comm, request, mode, fn);
	rc_cs_unlock(&rc_cs_big);
	return ret;
}

/* The MPI_Send, MPI_Rsend, MPI_Isend and MPI_Irsend calls (nb: the
 * nonblocking ones, request theirs): at MULTIPLE, outside the section
 * when they can (above), and a blocking one that must wait waits outside
 * it (send_mt); else inside. */
static inline __attribute__((always_inline)) int
p2p_send_api(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
	     MPI_Comm comm, MPI_Request *request, bool nb,
	     enum rc_send_mode mode, const char *fn)
{
	if (RC_LIKELY(!rc_thread_multiple))
		return nb ? p2p_isend(buf, count, dt, dest, tag, comm, request,
				      mode, fn)
			  : p2p_blocking_send(buf, count, dt, dest, tag, comm,
					      mode, fn);
	if ((!nb || request) && p2p_send_mt_peer(comm, dest) &&
	    p2p_send_outside(buf, count, dt, dest, tag, comm, request))
		return MPI_SUCCESS;
	if (!nb)
		return send_mt(buf, count, dt, dest, tag, comm, mode, fn);
	return isend_mt(buf, count, dt, dest, tag, comm, request, mode, fn);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
	      MPI_Comm comm)
{
	return p2p_send_api(buf, count, dt, dest, tag, comm, NULL, false,
			    RC_SEND_STD, "MPI_Send");
}
RC_WEAK(MPI_Send)

int PMPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
	       MPI_Comm comm)
{
	if (RC_UNLIKELY(rc_thread_multiple))
		return send_mt(buf, count, dt, dest, tag, comm, RC_SEND_SYNC,
			       "MPI_Ssend");
	return p2p_blocking_send(buf, count, dt, dest, tag, comm, RC_SEND_SYNC,
				 "MPI_Ssend");
}
RC_WEAK(MPI_Ssend)

int PMPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
	       MPI_Comm comm)
{
	return p2p_send_api(buf, count, dt, dest, tag, comm, NULL, false,
			    RC_SEND_READY, "MPI_Rsend");
}
RC_WEAK(MPI_Rsend)

/* A blocking receive's done request (on the stack): status out, and its
 * datatype reference dropped. */
static void p2p_recv_status(struct rc_req *req, MPI_Status *status)
{
	rc_req_status_out(req, status);
	rc_dt_release(req->dt);
	req->dt = NULL;
}

/* Finish a blocking receive: status out, truncation through the handler. */
static int p2p_recv_finish(struct rc_req *req, MPI_Status *status,
			   MPI_Comm comm, const char *fn)
{
	rc_req_wait_done(req);
	p2p_recv_status(req, status);
	return rc_api_status(comm, req->err, fn);
}

/* MPI_Recv's receive set up on req (on the stack), not yet posted. */
static inline __attribute__((always_inline)) void
recv_setup(struct rc_req *req, void *buf, int count, MPI_Datatype dt,
	   int source, int tag, MPI_Comm comm)
{
	rc_req_init_stack(req, comm->inst, RC_REQ_RECV);
	rc_p2p_req_setup(req, comm, comm->ctx, buf, (size_t)count, dt, source,
			 tag, RC_SEND_STD);
}

/* MPI_Recv's checks, and its receive posted on req (on the stack). */
static inline __attribute__((always_inline)) int
recv_post(struct rc_req *req, void *buf, int count, MPI_Datatype dt, int source,
	  int tag, MPI_Comm comm)
{
	P2P_CHECK("MPI_Recv", comm, buf, count, dt, source, tag, true);
	recv_setup(req, buf, count, dt, source, tag, comm);
	rc_p2p_start(req);
	return MPI_SUCCESS;
}

static int api_recv(void *buf, int count, MPI_Datatype dt, int source, int tag,
		    MPI_Comm comm, MPI_Status *status)
{
	struct rc_req req;
	int ret = recv_post(&req, buf, count, dt, source, tag, comm);

	if (ret)
		return ret;
	return p2p_recv_finish(&req, status, comm, "MPI_Recv");
}

/*
 * MPI_Recv at MULTIPLE: posted outside the section when its arguments
 * are good (rc_p2p_post_outside: onto the engine's lock-free stack), else
 * in it as api_recv does; then the wait of MPI_Wait's path outside it
 * (rc_req_wait_release), so a thread blocked in MPI_Recv takes the
 * section only to poll, and once the message is in, finishes without it.
 * An error (truncation, a dead peer) is finished and raised in the
 * section; a call from a thread already in it (a callback) waits and
 * finishes there.
 */
static __attribute__((noinline)) int recv_mt(void *buf, int count,
					     MPI_Datatype dt, int source,
					     int tag, MPI_Comm comm,
					     MPI_Status *status)
{
	struct rc_req req;
	bool posted;
	int ret;

	if (p2p_args_ok(buf, count, dt, source, tag, comm, true)) {
		recv_setup(&req, buf, count, dt, source, tag, comm);
		posted = rc_p2p_post_outside(&req);
		rc_cs_lock(&rc_cs_big);
		if (!posted)
			rc_p2p_start(&req);
	} else {
		rc_cs_lock(&rc_cs_big);
		ret = recv_post(&req, buf, count, dt, source, tag, comm);
		if (ret) {
			rc_cs_unlock(&rc_cs_big);
			return ret;
		}
	}
	if (rc_cs_nested(&rc_cs_big))
		goto inside;
	rc_req_wait_release(1, (struct rc_req *[]){&req});
	if (RC_LIKELY(req.err == RC_OK)) {
		p2p_recv_status(&req, status);
		return MPI_SUCCESS;
	}
	rc_cs_lock(&rc_cs_big);
inside:
	ret = p2p_recv_finish(&req, status, comm, "MPI_Recv");
	rc_cs_unlock(&rc_cs_big);
	return ret;
}

int PMPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag,
	      MPI_Comm comm, MPI_Status *status)
{
	if (RC_UNLIKELY(rc_thread_multiple))
		return recv_mt(buf, count, dt, source, tag, comm, status);
	return api_recv(buf, count, dt, source, tag, comm, status);
}
RC_WEAK(MPI_Recv)

static int p2p_isend(const void *buf, int count, MPI_Datatype dt, int dest,
		     int tag, MPI_Comm comm, MPI_Request *request,
		     enum rc_send_mode mode, const char *fn)
{
	int ret;

	P2P_CHECK(fn, comm, buf, count, dt, dest, tag, false);
	if (RC_UNLIKELY(!request))
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	ret = rc_p2p_isend(comm, comm->ctx, buf, (size_t)count, dt, dest, tag,
			   mode, request);
	return rc_api_status(comm, ret, fn);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
	       MPI_Comm comm, MPI_Request *request)
{
	return p2p_send_api(buf, count, dt, dest, tag, comm, request, true,
			    RC_SEND_STD, "MPI_Isend");
}
RC_WEAK(MPI_Isend)

int PMPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	if (RC_UNLIKELY(rc_thread_multiple))
		return isend_mt(buf, count, dt, dest, tag, comm, request,
				RC_SEND_SYNC, "MPI_Issend");
	return p2p_isend(buf, count, dt, dest, tag, comm, request, RC_SEND_SYNC,
			 "MPI_Issend");
}
RC_WEAK(MPI_Issend)

int PMPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	return p2p_send_api(buf, count, dt, dest, tag, comm, request, true,
			    RC_SEND_READY, "MPI_Irsend");
}
RC_WEAK(MPI_Irsend)

static inline __attribute__((always_inline)) int
api_irecv(void *buf, int count, MPI_Datatype dt, int source, int tag,
	  MPI_Comm comm, MPI_Request *request)
{
	int ret;

	P2P_CHECK("MPI_Irecv", comm, buf, count, dt, source, tag, true);
	if (RC_UNLIKELY(!request))
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Irecv");
	ret = rc_p2p_irecv(comm, comm->ctx, buf, (size_t)count, dt, source,
			   tag, request);
	return rc_api_status(comm, ret, "MPI_Irecv");
}

/*
 * MPI_Irecv at MULTIPLE: its request from the out pool, posted outside the
 * section when it can be (rc_p2p_irecv_outside), else in it; bad
 * arguments (and no memory for a request) take the whole path inside.
 */
static __attribute__((noinline)) int irecv_mt(void *buf, int count,
					      MPI_Datatype dt, int source,
					      int tag, MPI_Comm comm,
					      MPI_Request *request)
{
	struct rc_req *req = NULL;
	int ret = RC_ERR_INVAL;

	if (request && p2p_args_ok(buf, count, dt, source, tag, comm, true)) {
		ret = rc_p2p_irecv_outside(comm, buf, (size_t)count, dt, source,
					   tag, &req);
		if (ret == RC_OK) {
			*request = req;
			return MPI_SUCCESS;
		}
	}
	rc_cs_lock(&rc_cs_big);
	if (ret == RC_AGAIN) {
		rc_p2p_start(req);
		*request = req;
		ret = MPI_SUCCESS;
	} else {
		ret = api_irecv(buf, count, dt, source, tag, comm, request);
	}
	rc_cs_unlock(&rc_cs_big);
	return ret;
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag,
	       MPI_Comm comm, MPI_Request *request)
{
	if (RC_UNLIKELY(rc_thread_multiple))
		return irecv_mt(buf, count, dt, source, tag, comm, request);
	return api_irecv(buf, count, dt, source, tag, comm, request);
}
RC_WEAK(MPI_Irecv)

/* MPI_Sendrecv's send half ended with ret: on an error, the receive (posted
 * on the caller's stack) must still finish before the error is raised. */
static int sendrecv_send(struct rc_req *rreq, int ret, MPI_Comm comm)
{
	if (!ret)
		return MPI_SUCCESS;
	rc_req_wait_done(rreq);
	rc_dt_release(rreq->dt);
	rreq->dt = NULL;
	return rc_api_status(comm, ret, "MPI_Sendrecv");
}

/* MPI_Sendrecv's checks, its receive posted on rreq and its send begun on
 * sreq (*started: sreq carries it); both on the caller's stack. */
static int sendrecv_start(struct rc_req *rreq, struct rc_req *sreq,
			  bool *started, const void *sendbuf, int sendcount,
			  MPI_Datatype sendtype, int dest, int sendtag,
			  void *recvbuf, int recvcount, MPI_Datatype recvtype,
			  int source, int recvtag, MPI_Comm comm)
{
	P2P_CHECK("MPI_Sendrecv", comm, sendbuf, sendcount, sendtype, dest,
		  sendtag, false);
	P2P_CHECK("MPI_Sendrecv", comm, recvbuf, recvcount, recvtype, source,
		  recvtag, true);
	rc_req_init_stack(rreq, comm->inst, RC_REQ_RECV);
	rc_p2p_req_setup(rreq, comm, comm->ctx, recvbuf, (size_t)recvcount,
			 recvtype, source, recvtag, RC_SEND_STD);
	rc_p2p_start(rreq);
	return sendrecv_send(rreq,
			     rc_p2p_send_begin(comm, comm->ctx, sendbuf,
					       (size_t)sendcount, sendtype,
					       dest, sendtag, RC_SEND_STD, sreq,
					       started),
			     comm);
}

/* Finish both halves, in the section: the send's error first. */
static int sendrecv_finish(struct rc_req *rreq, struct rc_req *sreq,
			   bool started, MPI_Status *status, MPI_Comm comm)
{
	int ret = RC_OK;

	if (started) {
		rc_req_wait_done(sreq);
		ret = rc_p2p_send_end(sreq);
	}
	if (ret)
		return sendrecv_send(rreq, ret, comm);
	return p2p_recv_finish(rreq, status, comm, "MPI_Sendrecv");
}

static int api_sendrecv(const void *sendbuf, int sendcount,
			MPI_Datatype sendtype, int dest, int sendtag,
			void *recvbuf, int recvcount, MPI_Datatype recvtype,
			int source, int recvtag, MPI_Comm comm,
			MPI_Status *status)
{
	struct rc_req rreq, sreq;
	bool started = false;
	int ret = sendrecv_start(&rreq, &sreq, &started, sendbuf, sendcount,
				 sendtype, dest, sendtag, recvbuf, recvcount,
				 recvtype, source, recvtag, comm);

	if (ret)
		return ret;
	return sendrecv_finish(&rreq, &sreq, started, status, comm);
}

/* MPI_Sendrecv at MULTIPLE: both halves waited for as MPI_Recv's (its
 * comment). */
static __attribute__((noinline)) int
sendrecv_mt(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
	    int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
	    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	struct rc_req rreq, sreq, *both[2];
	bool started = false;
	int ret;

	rc_cs_lock(&rc_cs_big);
	ret = sendrecv_start(&rreq, &sreq, &started, sendbuf, sendcount,
			     sendtype, dest, sendtag, recvbuf, recvcount,
			     recvtype, source, recvtag, comm);
	if (ret || rc_cs_nested(&rc_cs_big))
		goto inside;
	both[0] = &rreq;
	both[1] = started ? &sreq : NULL;
	rc_req_wait_release(2, both);
	if (RC_LIKELY(rreq.err == RC_OK && (!started || sreq.err == RC_OK))) {
		if (started)
			rc_p2p_send_end(&sreq);
		p2p_recv_status(&rreq, status);
		return MPI_SUCCESS;
	}
	rc_cs_lock(&rc_cs_big);
inside:
	if (!ret)
		ret = sendrecv_finish(&rreq, &sreq, started, status, comm);
	rc_cs_unlock(&rc_cs_big);
	return ret;
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		  int dest, int sendtag, void *recvbuf, int recvcount,
		  MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
		  MPI_Status *status)
{
	if (RC_UNLIKELY(rc_thread_multiple))
		return sendrecv_mt(sendbuf, sendcount, sendtype, dest, sendtag,
				   recvbuf, recvcount, recvtype, source,
				   recvtag, comm, status);
	return api_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag,
			    recvbuf, recvcount, recvtype, source, recvtag, comm,
			    status);
}
RC_WEAK(MPI_Sendrecv)

static int api_sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest,
				int sendtag, int source, int recvtag,
				MPI_Comm comm, MPI_Status *status)
{
	struct rc_req req;
	size_t len;
	void *tmp;
	int ret;

	P2P_CHECK("MPI_Sendrecv_replace", comm, buf, count, dt, dest, sendtag,
		  false);
	P2P_CHECK("MPI_Sendrecv_replace", comm, buf, count, dt, source,
		  recvtag, true);
	/* send a packed copy, receive in place */
	len = (size_t)count * dt->size;
	tmp = malloc(len ? len : 1);
	if (!tmp)
		return RC_ERR(comm, MPI_ERR_NO_MEM, "MPI_Sendrecv_replace");
	rc_dt_pack(dt, (size_t)count, buf, 0, tmp, len);
	rc_req_init_stack(&req, comm->inst, RC_REQ_RECV);
	rc_p2p_req_setup(&req, comm, comm->ctx, buf, (size_t)count, dt, source,
			 recvtag, RC_SEND_STD);
	rc_p2p_start(&req);
	ret = rc_p2p_send(comm, comm->ctx, tmp, len, &rc_mpi_byte, dest,
			  sendtag, RC_SEND_STD);
	if (ret) {
		rc_req_wait_done(&req);
		rc_dt_release(req.dt);
		free(tmp);
		return rc_api_status(comm, ret, "MPI_Sendrecv_replace");
	}
	ret = p2p_recv_finish(&req, status, comm, "MPI_Sendrecv_replace");
	free(tmp);
	return ret;
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest,
			  int sendtag, int source, int recvtag, MPI_Comm comm,
			  MPI_Status *status)
{
	return RC_CS_CALL(&rc_cs_big,
			  api_sendrecv_replace(buf, count, dt, dest, sendtag,
					       source, recvtag, comm, status));
}
RC_WEAK(MPI_Sendrecv_replace)

/* ---- persistent requests ---------------------------------------------------- */

static int p2p_init(void *buf, int count, MPI_Datatype dt, int peer, int tag,
		    MPI_Comm comm, MPI_Request *request, enum rc_req_kind kind,
		    enum rc_send_mode mode, const char *fn)
{
	struct rc_req *req;

	P2P_CHECK(fn, comm, buf, count, dt, peer, tag, kind == RC_REQ_RECV);
	if (RC_UNLIKELY(!request))
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	req = rc_req_alloc(comm->inst, kind);
	if (!req)
		return RC_ERR(comm, MPI_ERR_NO_MEM, fn);
	rc_p2p_req_setup(req, comm, comm->ctx, buf, (size_t)count, dt, peer,
			 tag, mode);
	req->flags |= RC_REQ_PERSISTENT;
	*request = req;
	return MPI_SUCCESS;
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype dt, int dest,
		   int tag, MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, p2p_init((void *)buf, count, dt, dest,
					       tag, comm, request, RC_REQ_SEND,
					       RC_SEND_STD, "MPI_Send_init"));
}
RC_WEAK(MPI_Send_init)

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest,
		    int tag, MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, p2p_init((void *)buf, count, dt, dest,
					       tag, comm, request, RC_REQ_SEND,
					       RC_SEND_SYNC, "MPI_Ssend_init"));
}
RC_WEAK(MPI_Ssend_init)

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest,
		    int tag, MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  p2p_init((void *)buf, count, dt, dest, tag, comm,
				   request, RC_REQ_SEND, RC_SEND_READY,
				   "MPI_Rsend_init"));
}
RC_WEAK(MPI_Rsend_init)

int PMPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag,
		   MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  p2p_init(buf, count, dt, source, tag, comm, request,
				   RC_REQ_RECV, RC_SEND_STD, "MPI_Recv_init"));
}
RC_WEAK(MPI_Recv_init)

/* An inactive persistent request, else raise MPI_ERR_REQUEST: pt2pt's
 * own, or one a module above owns (req->pers: persistent collectives).
 * Either must be completed by a wait or test before it starts again: one
 * that is done but not yet waited for is still active (MPI-3.1 3.9). */
static int persistent_check(struct rc_req *req, const char *fn)
{
	if (!rc_req_valid(req))
		return rc_err_handle(NULL, RC_HK_REQ, req, fn);
	if (!(req->flags & RC_REQ_PERSISTENT) ||
	    (!req->pers && req->kind != RC_REQ_SEND &&
	     req->kind != RC_REQ_RECV))
		return RC_ERR_MSG(NULL, MPI_ERR_REQUEST, fn,
				  "not a persistent request");
	if (req->state != RC_REQ_INACTIVE)
		return RC_ERR_MSG(NULL, MPI_ERR_REQUEST, fn,
				  "request is active already");
	return MPI_SUCCESS;
}

static int persistent_start(struct rc_req *req)
{
	return req->pers ? rc_req_start(req) : rc_p2p_start(req);
}

static int start(MPI_Request *request)
{
	struct rc_req *req;
	int ret;

	RC_API_CHECK_INIT("MPI_Start");
	if (!request)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, "MPI_Start",
				  "request is NULL");
	ret = persistent_check(*request, "MPI_Start");
	if (ret)
		return ret;
	req = *request;
	ret = persistent_start(req);
	return rc_api_status(req->comm, ret, "MPI_Start");
}

static int startall(int count, MPI_Request requests[])
{
	int i, ret;

	RC_API_CHECK_INIT("MPI_Startall");
	if (count < 0)
		return RC_ERR(NULL, MPI_ERR_COUNT, "MPI_Startall");
	if (count && !requests)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Startall");
	for (i = 0; i < count; i++) {
		ret = persistent_check(requests[i], "MPI_Startall");
		if (ret)
			return ret;
	}
	for (i = 0; i < count; i++) {
		ret = persistent_start(requests[i]);
		if (ret)
			return rc_api_status(requests[i]->comm, ret,
					     "MPI_Startall");
	}
	return MPI_SUCCESS;
}

/*
 * At MULTIPLE, when another thread holds the section: MPI_Start or
 * MPI_Startall of pt2pt's persistent requests outside it
 * (rc_p2p_start_outside), all or none; true when it did. Anything that
 * would raise an error, or start inside (MPI_PROC_NULL, a buffered send,
 * a persistent collective), takes the whole call inside.
 */
static bool start_outside(int count, MPI_Request reqs[])
{
	int i;

	if (!rc_api_ready() || count < 0 || (count && !reqs))
		return false;
	for (i = 0; i < count; i++) {
		struct rc_req *r = reqs[i];

		if (!rc_req_valid(r) || !(r->flags & RC_REQ_PERSISTENT) ||
		    r->pers || r->state != RC_REQ_INACTIVE ||
		    !rc_p2p_startable_outside(r))
			return false;
	}
	for (i = 0; i < count; i++)
		rc_p2p_start_outside(reqs[i]);
	return true;
}

/* MPI_Start and MPI_Startall at MULTIPLE: in the section when it is free,
 * else outside when they can (above). */
static __attribute__((noinline)) int start_mt(int count, MPI_Request reqs[],
					      bool all)
{
	int ret;

	if (!rc_cs_trylock(&rc_cs_big)) {
		if (start_outside(count, reqs))
			return MPI_SUCCESS;
		rc_cs_lock(&rc_cs_big);
	}
	ret = all ? startall(count, reqs) : start(reqs);
	rc_cs_unlock(&rc_cs_big);
	return ret;
}

int PMPI_Start(MPI_Request *request)
{
	if (RC_UNLIKELY(rc_thread_multiple))
		return start_mt(1, request, false);
	return start(request);
}
RC_WEAK(MPI_Start)

int PMPI_Startall(int count, MPI_Request requests[])
{
	if (RC_UNLIKELY(rc_thread_multiple))
		return start_mt(count, requests, true);
	return startall(count, requests);
}
RC_WEAK(MPI_Startall)

/* ---- probe and matched receive ---------------------------------------------- */

static int probe_check(MPI_Comm comm, int source, int tag, const char *fn)
{
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	if ((source < 0 || source >= rc_comm_psize(comm)) &&
	    source != MPI_ANY_SOURCE && source != MPI_PROC_NULL)
		return RC_ERR(comm, MPI_ERR_RANK, fn);
	if ((tag < 0 || tag > RC_TAG_UB) && tag != MPI_ANY_TAG)
		return RC_ERR(comm, MPI_ERR_TAG, fn);
	return MPI_SUCCESS;
}

/* One probe attempt; spin says whether to wait for a match. */
static int probe(int source, int tag, MPI_Comm comm, int *flag,
		 MPI_Message *message, MPI_Status *status, bool spin,
		 const char *fn)
{
	struct rc_message *m;
	struct rc_umsg *u = NULL;
	int ret;

	RC_API_CHECK_INIT(fn);
	ret = probe_check(comm, source, tag, fn);
	if (ret)
		return ret;
	if (source == MPI_PROC_NULL) {
		if (status != MPI_STATUS_IGNORE)
			rc_status_set_empty(status);
		if (flag)
			*flag = 1;
		if (message)
			*message = MPI_MESSAGE_NO_PROC;
		return MPI_SUCCESS;
	}
	for (;;) {
		unsigned ev = rc_progress(comm->inst);

		if (rc_p2p_iprobe(comm, comm->ctx, source, tag, false, status,
				  NULL)) {
			if (flag)
				*flag = 1;
			if (!message)
				return MPI_SUCCESS;
			/* the handle first, so that a failure leaves the
			 * message queued; then take the same (first) match */
			m = rc_hobj_new(RC_HK_MSG, sizeof(*m));
			if (!m)
				return RC_ERR(comm, MPI_ERR_NO_MEM, fn);
			rc_p2p_iprobe(comm, comm->ctx, source, tag, true,
				      MPI_STATUS_IGNORE, &u);
			m->u = u;
			m->comm = comm;
			*message = m;
			return MPI_SUCCESS;
		}
		if (!spin) {
			rc_progress_test_idle(comm->inst);
			break;
		}
		if (!ev)
			rc_progress_idle(comm->inst);
	}
	*flag = 0;
	if (message)
		*message = MPI_MESSAGE_NULL;
	return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	return RC_CS_CALL(&rc_cs_big, probe(source, tag, comm, NULL, NULL,
					    status, true, "MPI_Probe"));
}
RC_WEAK(MPI_Probe)

static int api_iprobe(int source, int tag, MPI_Comm comm, int *flag,
		      MPI_Status *status)
{
	if (!flag)
		return RC_ERR(rc_comm_valid(comm) ? comm : NULL, MPI_ERR_ARG,
			      "MPI_Iprobe");
	return probe(source, tag, comm, flag, NULL, status, false,
		     "MPI_Iprobe");
}

/* MPI_Iprobe and MPI_Improbe at MULTIPLE while another thread holds the
 * section: good arguments may get "no message yet" at once, as MPI_Test's
 * family does (rc_cs_poll_busy). */
static bool iprobe_busy(int source, int tag, MPI_Comm comm)
{
	return rc_api_ready() && rc_comm_valid(comm) &&
	       (source == MPI_ANY_SOURCE ||
		(source >= 0 && source < rc_comm_psize(comm))) &&
	       (tag == MPI_ANY_TAG || (tag >= 0 && tag <= RC_TAG_UB)) &&
	       rc_cs_poll_busy(&rc_cs_big);
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
		MPI_Status *status)
{
	if (RC_UNLIKELY(rc_thread_multiple) && flag &&
	    iprobe_busy(source, tag, comm)) {
		*flag = 0;
		return MPI_SUCCESS;
	}
	return RC_CS_CALL(&rc_cs_big,
			  api_iprobe(source, tag, comm, flag, status));
}
RC_WEAK(MPI_Iprobe)

static int api_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
		      MPI_Status *status)
{
	if (!message)
		return RC_ERR(rc_comm_valid(comm) ? comm : NULL, MPI_ERR_ARG,
			      "MPI_Mprobe");
	return probe(source, tag, comm, NULL, message, status, true,
		     "MPI_Mprobe");
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
		MPI_Status *status)
{
	return RC_CS_CALL(&rc_cs_big,
			  api_mprobe(source, tag, comm, message, status));
}
RC_WEAK(MPI_Mprobe)

static int api_improbe(int source, int tag, MPI_Comm comm, int *flag,
		       MPI_Message *message, MPI_Status *status)
{
	if (!flag || !message)
		return RC_ERR(rc_comm_valid(comm) ? comm : NULL, MPI_ERR_ARG,
			      "MPI_Improbe");
	return probe(source, tag, comm, flag, message, status, false,
		     "MPI_Improbe");
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
		 MPI_Message *message, MPI_Status *status)
{
	if (RC_UNLIKELY(rc_thread_multiple) && flag && message &&
	    iprobe_busy(source, tag, comm)) {
		*flag = 0;
		*message = MPI_MESSAGE_NULL;
		return MPI_SUCCESS;
	}
	return RC_CS_CALL(&rc_cs_big, api_improbe(source, tag, comm, flag,
						  message, status));
}
RC_WEAK(MPI_Improbe)

/* Validate a message handle; the communicator it was probed on. */
static int mrecv_check(void *buf, int count, MPI_Datatype dt,
		       MPI_Message *message, struct rc_comm **commp,
		       const char *fn)
{
	struct rc_comm *comm;
	int cls;

	RC_API_CHECK_INIT(fn);
	if (!message)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "message is NULL");
	if (!rc_hobj_is(*message, RC_HK_MSG))
		return rc_err_handle(NULL, RC_HK_MSG, *message, fn);
	comm = *message == MPI_MESSAGE_NO_PROC ? rc_g.self : (*message)->comm;
	if (!rc_comm_valid(comm))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	cls = p2p_check(comm, buf, count, dt, MPI_ANY_SOURCE, MPI_ANY_TAG,
			true);
	if (cls)
		return p2p_raise(comm, cls, dt, fn);
	*commp = comm;
	return MPI_SUCCESS;
}

/* The message of a checked handle; the handle dies. */
static struct rc_umsg *mrecv_take(MPI_Message *message)
{
	struct rc_message *m = *message;
	struct rc_umsg *u = m->u;

	if (m != MPI_MESSAGE_NO_PROC)
		rc_hobj_free(RC_HK_MSG, m);
	*message = MPI_MESSAGE_NULL;
	return u;
}

static int api_mrecv(void *buf, int count, MPI_Datatype dt,
		     MPI_Message *message, MPI_Status *status)
{
	struct rc_comm *comm;
	struct rc_req req;
	int ret;

	ret = mrecv_check(buf, count, dt, message, &comm, "MPI_Mrecv");
	if (ret)
		return ret;
	rc_req_init_stack(&req, comm->inst, RC_REQ_RECV);
	rc_p2p_req_setup(&req, comm, comm->ctx, buf, (size_t)count, dt,
			 MPI_ANY_SOURCE, MPI_ANY_TAG, RC_SEND_STD);
	rc_p2p_mrecv_start(&req, mrecv_take(message));
	return p2p_recv_finish(&req, status, comm, "MPI_Mrecv");
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
	       MPI_Status *status)
{
	return RC_CS_CALL(&rc_cs_big,
			  api_mrecv(buf, count, dt, message, status));
}
RC_WEAK(MPI_Mrecv)

static int api_imrecv(void *buf, int count, MPI_Datatype dt,
		      MPI_Message *message, MPI_Request *request)
{
	struct rc_comm *comm;
	struct rc_req *req;
	int ret;

	ret = mrecv_check(buf, count, dt, message, &comm, "MPI_Imrecv");
	if (ret)
		return ret;
	if (!request)
		return RC_ERR(comm, MPI_ERR_ARG, "MPI_Imrecv");
	req = rc_req_alloc(comm->inst, RC_REQ_RECV);
	if (!req)
		return RC_ERR(comm, MPI_ERR_NO_MEM, "MPI_Imrecv");
	rc_p2p_req_setup(req, comm, comm->ctx, buf, (size_t)count, dt,
			 MPI_ANY_SOURCE, MPI_ANY_TAG, RC_SEND_STD);
	rc_p2p_mrecv_start(req, mrecv_take(message));
	*request = req;
	return MPI_SUCCESS;
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
		MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  api_imrecv(buf, count, dt, message, request));
}
RC_WEAK(MPI_Imrecv)

static int api_cancel(MPI_Request *request)
{
	RC_API_CHECK_INIT("MPI_Cancel");
	if (!request)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, "MPI_Cancel",
				  "request is NULL");
	if (!rc_req_valid(*request))
		return rc_err_handle(NULL, RC_HK_REQ, *request, "MPI_Cancel");
	if ((*request)->kind == RC_REQ_GREQ) {
		/* the program's cancel_fn decides (MPI-3.1 section 12.2) */
		int code = rc_greq_cancel(*request);

		if (code)
			return RC_ERR(NULL, code, "MPI_Cancel");
		return MPI_SUCCESS;
	}
	/* Receives still waiting for a match are cancelled; a send as the
	 * engine can (rc_p2p_cancel: at once, or by asking the receiver);
	 * anything else completes normally (MPI_Test_cancelled says 0). */
	rc_p2p_cancel(*request);
	return MPI_SUCCESS;
}

int PMPI_Cancel(MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, api_cancel(request));
}
RC_WEAK(MPI_Cancel)

/* ---- buffered mode (bsend.c) ---------------------------------------- */

static int buffer_attach(void *buffer, int size)
{
	static const char fn[] = "MPI_Buffer_attach";
	int ret;

	RC_API_CHECK_INIT(fn);
	if (size < 0)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "size is negative");
	if (!buffer && size)
		return RC_ERR_MSG(NULL, MPI_ERR_BUFFER, fn, "buffer is NULL");
	ret = rc_bsend_attach(&rc_g, buffer, (size_t)size);
	if (ret == RC_ERR_BUFFER)
		return RC_ERR_MSG(NULL, MPI_ERR_BUFFER, fn,
				  "a buffer is attached already");
	return rc_api_status(NULL, ret, fn);
}

int PMPI_Buffer_attach(void *buffer, int size)
{
	return RC_CS_CALL(&rc_cs_big, buffer_attach(buffer, size));
}
RC_WEAK(MPI_Buffer_attach)

static int buffer_detach(void *buffer_addr, int *size)
{
	static const char fn[] = "MPI_Buffer_detach";
	size_t len;
	void *buf;

	RC_API_CHECK_INIT(fn);
	if (!buffer_addr || !size)
		return RC_ERR(NULL, MPI_ERR_ARG, fn);
	rc_bsend_detach(&rc_g, &buf, &len);
	/* buffer_addr is really a void ** (MPI-3.1 section 3.6.1) */
	memcpy(buffer_addr, &buf, sizeof(buf));
	*size = (int)len;
	return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
	return RC_CS_CALL(&rc_cs_big, buffer_detach(buffer_addr, size));
}
RC_WEAK(MPI_Buffer_detach)

int PMPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
	       MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  p2p_blocking_send(buf, count, dt, dest, tag, comm,
					    RC_SEND_BUFFERED, "MPI_Bsend"));
}
RC_WEAK(MPI_Bsend)

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  p2p_isend(buf, count, dt, dest, tag, comm, request,
				    RC_SEND_BUFFERED, "MPI_Ibsend"));
}
RC_WEAK(MPI_Ibsend)

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest,
		    int tag, MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  p2p_init((void *)buf, count, dt, dest, tag, comm,
				   request, RC_REQ_SEND, RC_SEND_BUFFERED,
				   "MPI_Bsend_init"));
}
RC_WEAK(MPI_Bsend_init)

/*
 * ---- MPI_Isendrecv(_replace) ----
 * The request (RC_REQ_PAIR) counts its halves in p2p.inflight. Each half is
 * a pooled pt2pt request that frees itself when it completes, after its
 * callback passed its outcome on: the receive its status, either its
 * error. The last half completes the pair and frees the packed copy of a
 * replace (p2p.tmp: the send half's data; the receive lands in place).
 * MPI_Cancel leaves the pair alone: its halves complete normally.
 */
static void pair_settle(struct rc_req *pair, int err)
{
	if (err && !pair->err)
		pair->err = err;
	if (--pair->p2p.inflight)
		return;
	free(pair->p2p.tmp);
	pair->p2p.tmp = NULL;
	rc_req_complete(pair);
}

static void pair_half_done(struct rc_req *half)
{
	struct rc_req *pair = half->cb_data;

	if (half->kind == RC_REQ_RECV)
		pair->status = half->status;
	pair_settle(pair, half->err);
}

static struct rc_req *pair_half(struct rc_comm *comm, enum rc_req_kind kind,
				struct rc_req *pair)
{
	struct rc_req *half = rc_req_alloc(comm->inst, kind);

	if (!half)
		return NULL;
	half->cb = pair_half_done;
	half->cb_data = pair;
	half->flags |= RC_REQ_USER_FREED;
	return half;
}

static int isendrecv(const void *sbuf, size_t scount, struct rc_dtype *sdt,
		     int dest, int stag, void *rbuf, size_t rcount,
		     struct rc_dtype *rdt, int source, int rtag, MPI_Comm comm,
		     void *tmp, MPI_Request *request)
{
	struct rc_req *pair, *s, *r;
	int ret;

	pair = rc_req_alloc(comm->inst, RC_REQ_PAIR);
	if (!pair)
		goto err_tmp;
	s = pair_half(comm, RC_REQ_SEND, pair);
	if (!s)
		goto err_pair;
	r = pair_half(comm, RC_REQ_RECV, pair);
	if (!r)
		goto err_send;
	rc_comm_retain(comm); /* a pooled request's reference */
	pair->comm = comm;
	pair->p2p.tmp = tmp;
	pair->p2p.inflight = 2;
	pair->state = RC_REQ_ACTIVE;
	rc_p2p_req_setup(r, comm, comm->ctx, rbuf, rcount, rdt, source, rtag,
			 RC_SEND_STD);
	rc_p2p_req_setup(s, comm, comm->ctx, (void *)sbuf, scount, sdt, dest,
			 stag, RC_SEND_STD);
	rc_p2p_start(r);
	ret = rc_p2p_start(s);
	if (ret) {
		/* the receive is posted: the pair completes with it */
		rc_req_free(s);
		pair_settle(pair, ret);
	}
	*request = pair;
	return MPI_SUCCESS;

err_send:
	rc_req_free(s);
err_pair:
	rc_req_free(pair);
err_tmp:
	free(tmp);
	return RC_ERR_NOMEM;
}

static int isendrecv_api(const void *sendbuf, int sendcount,
			 MPI_Datatype sendtype, int dest, int sendtag,
			 void *recvbuf, int recvcount, MPI_Datatype recvtype,
			 int source, int recvtag, MPI_Comm comm,
			 MPI_Request *request)
{
	static const char fn[] = "MPI_Isendrecv";
	int ret;

	P2P_CHECK(fn, comm, sendbuf, sendcount, sendtype, dest, sendtag, false);
	P2P_CHECK(fn, comm, recvbuf, recvcount, recvtype, source, recvtag,
		  true);
	if (RC_UNLIKELY(!request))
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	ret = isendrecv(sendbuf, (size_t)sendcount, sendtype, dest, sendtag,
			recvbuf, (size_t)recvcount, recvtype, source, recvtag,
			comm, NULL, request);
	return rc_api_status(comm, ret, fn);
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		   int dest, int sendtag, void *recvbuf, int recvcount,
		   MPI_Datatype recvtype, int source, int recvtag,
		   MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  isendrecv_api(sendbuf, sendcount, sendtype, dest,
					sendtag, recvbuf, recvcount, recvtype,
					source, recvtag, comm, request));
}
RC_WEAK(MPI_Isendrecv)

static int isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest,
			     int sendtag, int source, int recvtag,
			     MPI_Comm comm, MPI_Request *request)
{
	static const char fn[] = "MPI_Isendrecv_replace";
	size_t len;
	void *tmp;
	int ret;

	P2P_CHECK(fn, comm, buf, count, dt, dest, sendtag, false);
	P2P_CHECK(fn, comm, buf, count, dt, source, recvtag, true);
	if (RC_UNLIKELY(!request))
		return RC_ERR(comm, MPI_ERR_ARG, fn);
	/* send a packed copy, receive in place */
	len = (size_t)count * dt->size;
	tmp = malloc(len ? len : 1);
	if (!tmp)
		return RC_ERR(comm, MPI_ERR_NO_MEM, fn);
	rc_dt_pack(dt, (size_t)count, buf, 0, tmp, len);
	ret = isendrecv(tmp, len, &rc_mpi_byte, dest, sendtag, buf,
			(size_t)count, dt, source, recvtag, comm, tmp, request);
	return rc_api_status(comm, ret, fn);
}

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest,
			   int sendtag, int source, int recvtag, MPI_Comm comm,
			   MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  isendrecv_replace(buf, count, dt, dest, sendtag,
					    source, recvtag, comm, request));
}
RC_WEAK(MPI_Isendrecv_replace)

/* ---- memory ------------------------------------------------------------------ */

static int api_alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
	void *p;

	RC_API_CHECK_INIT("MPI_Alloc_mem");
	if (size < 0 || !baseptr)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Alloc_mem");
	if (info != MPI_INFO_NULL && !rc_info_valid(info))
		return rc_err_handle(NULL, RC_HK_INFO, info, "MPI_Alloc_mem");
	/* page aligned: friendlier to registration and CMA */
	if (posix_memalign(&p, 4096, size ? (size_t)size : 1))
		return RC_ERR(NULL, MPI_ERR_NO_MEM, "MPI_Alloc_mem");
	memcpy(baseptr, &p, sizeof(p));
	return MPI_SUCCESS;
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
	return RC_CS_CALL(&rc_cs_big, api_alloc_mem(size, info, baseptr));
}
RC_WEAK(MPI_Alloc_mem)

static int api_free_mem(void *base)
{
	RC_API_CHECK_INIT("MPI_Free_mem");
	free(base);
	return MPI_SUCCESS;
}

int PMPI_Free_mem(void *base)
{
	return RC_CS_CALL(&rc_cs_big, api_free_mem(base));
}
RC_WEAK(MPI_Free_mem)
