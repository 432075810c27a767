/*
 * request_api.c - MPI_Wait / MPI_Test and their families, MPI_Request_free,
 * MPI_Test_cancelled, and generalized requests (MPI_Grequest_start and
 * _complete). They work on any request kind (pt2pt, collective, one-sided,
 * generalized): each spins on the one progress engine until the requests
 * it needs are done.
 *
 * Errors: single-completion calls return the request's error class through
 * its communicator's handler; multiple-completion calls set MPI_ERROR in
 * every status and return MPI_ERR_IN_STATUS. A generalized request's error
 * is the code its query_fn or free_fn returned, raised on MPI_COMM_WORLD.
 *
 * At MPI_THREAD_MULTIPLE, MPI_Wait, MPI_Test, their _all, _any and _some
 * forms and MPI_Request_free wait for and finish the requests the engine
 * hands over (request.h: those of MPI_Isend, MPI_Irecv and their kin)
 * outside the critical section, taking it only to poll; everything else
 * runs in it.
 */
#include <stdlib.h>
#include "api.h"
#include "request.h"
#include "thread.h"

/* The status of a null or inactive request. */
static void status_empty(MPI_Status *st)
{
	if (st == MPI_STATUS_IGNORE)
		return;
	st->MPI_SOURCE = MPI_ANY_SOURCE;
	st->MPI_TAG = MPI_ANY_TAG;
	st->MPI_ERROR = MPI_SUCCESS;
	st->rc_count = 0;
	st->rc_cancelled = 0;
}

static inline bool req_active(const struct rc_req *r)
{
	return r && r->state != RC_REQ_INACTIVE;
}

/*
 * MPI_Test and its family at MULTIPLE while another thread is inside the
 * critical section: when one request of the array is active and none is
 * done (for MPI_Testall, `all`: one is active and not done; the state,
 * read atomically, is what the completing thread stores), the answer may
 * be "not yet", at once (rc_cs_poll_busy). Returns true when it is.
 */
static bool test_busy(int count, MPI_Request reqs[], bool all)
{
	int i, pending = 0;
	uint8_t st;

	if (!rc_api_ready() || count < 0 || (count && !reqs))
		return false;
	for (i = 0; i < count; i++) {
		if (!reqs[i])
			continue;
		if (!rc_req_valid(reqs[i]))
			return false;
		st = __atomic_load_n(&reqs[i]->state, __ATOMIC_ACQUIRE);
		if (st == RC_REQ_DONE && !all)
			return false;
		pending += st == RC_REQ_ACTIVE;
	}
	return pending && rc_cs_poll_busy(&rc_cs_big);
}

/*
 * ---- outside the critical section, at MULTIPLE ----------------------------
 *
 * The requests that the engine hands over once done (rc_req_handed,
 * request.h: the sends done in their MPI_Isend, and the pooled sends and
 * receives of MPI_Isend, MPI_Irecv, their kin and the persistent ones)
 * are waited for, tested and finished outside the section. The section
 * is taken only to poll. Anything else in the array (a collective, an
 * inactive persistent request, an error to raise) takes the whole call
 * inside, where these finish like any other request.
 */

/* Is every request of the array null or one the engine hands over, and
 * one at least? Their kinds are fixed while the handles live. */
static inline __attribute__((always_inline)) bool all_handed(int count,
							     MPI_Request reqs[])
{
	int i, n = 0;

	if (!rc_api_ready() || count <= 0 || !reqs)
		return false;
	for (i = 0; i < count; i++) {
		if (!reqs[i])
			continue;
		if (!rc_req_valid(reqs[i]) || !rc_req_handed(reqs[i]))
			return false;
		n++;
	}
	return n > 0;
}

static inline uint8_t state_of(const struct rc_req *r)
{
	return __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
}

/* The request to wait for while not all (all) or none (!all) of the array
 * are done: the first still pending; NULL when the wait is over (for !all,
 * also when none is active). */
static inline __attribute__((always_inline)) struct rc_req *
waiting_on(int count, MPI_Request reqs[], bool all)
{
	struct rc_req *first = NULL;
	int i;

	for (i = 0; i < count; i++) {
		uint8_t st;

		if (!reqs[i])
			continue;
		st = state_of(reqs[i]);
		if (st == RC_REQ_DONE && !all)
			return NULL;
		if (st == RC_REQ_ACTIVE && !first) {
			first = reqs[i];
			if (all)
				break;
		}
	}
	return first;
}

/*
 * Wait until every request of the array (all) or one of them (!all) is
 * done, r the first pending one, and return with the section given up.
 * The section is held only to poll: between polls this thread gives it up
 * and watches r's state (rc_cs_unlock_watch), as rc_req_idle does inside.
 * held: the caller holds the section once already. (Inline: each caller
 * has its own copy, MPI_Wait's for one request.)
 */
static inline __attribute__((always_inline)) void
wait_loop(int count, MPI_Request reqs[], bool all, struct rc_req *r, bool held)
{
	struct rc_inst *inst = &rc_g;

	do {
		if (!held) {
			rc_cs_lock(&rc_cs_big);
			held = true;
		} else if (!rc_progress(inst) && state_of(r) != RC_REQ_DONE) {
			held = !rc_cs_unlock_watch(
				&rc_cs_big, &r->state, RC_REQ_DONE,
				inst->oversubscribed || !(inst->idle & 15));
		}
	} while ((r = waiting_on(count, reqs, all)));
	if (held)
		rc_cs_unlock(&rc_cs_big);
}

/* wait_loop for a call that holds no section: false, having waited for
 * nothing, when the array is not all handed over or this thread holds the
 * section already (a call from a callback: it waits inside). */
static inline __attribute__((always_inline)) bool
wait_outside(int count, MPI_Request reqs[], bool all)
{
	struct rc_req *r;

	if (!all_handed(count, reqs))
		return false;
	r = waiting_on(count, reqs, all);
	if (!r)
		return true;
	rc_cs_lock(&rc_cs_big);
	if (rc_cs_nested(&rc_cs_big)) {
		rc_cs_unlock(&rc_cs_big);
		return false;
	}
	wait_loop(count, reqs, all, r, true);
	return true;
}

static inline __attribute__((always_inline)) void
wait_release(int count, struct rc_req **reqs)
{
	struct rc_req *r = waiting_on(count, reqs, true);

	if (!r)
		rc_cs_unlock(&rc_cs_big);
	else
		wait_loop(count, reqs, true, r, true);
}

void rc_req_wait_release(int count, struct rc_req **reqs)
{
	/* (one request, MPI_Recv's and MPI_Send's: a copy of its own) */
	if (count == 1)
		wait_release(1, reqs);
	else
		wait_release(count, reqs);
}

/* Is every live request of the array done, to be finished outside? */
static bool all_done_outside(int count, MPI_Request reqs[])
{
	int i;

	for (i = 0; i < count; i++)
		if (reqs[i] && !rc_req_done_outside(reqs[i]))
			return false;
	return true;
}

/* Finish such an array, as finish_all would. */
static void finish_all_outside(int count, MPI_Request reqs[],
			       MPI_Status statuses[])
{
	struct rc_req_chain chain = {NULL, NULL};
	int i;

	for (i = 0; i < count; i++) {
		MPI_Status *st = statuses == MPI_STATUSES_IGNORE
					 ? MPI_STATUS_IGNORE
					 : &statuses[i];

		if (!reqs[i]) {
			status_empty(st);
			continue;
		}
		rc_req_finish_outside(&reqs[i], st, &chain);
		if (st != MPI_STATUS_IGNORE)
			st->MPI_ERROR = MPI_SUCCESS;
	}
	rc_req_chain_retire(&chain);
}

/* The first done request of such an array, or -1 (find_done's pick). */
static int first_done(int count, MPI_Request reqs[])
{
	int i;

	for (i = 0; i < count; i++)
		if (reqs[i] && state_of(reqs[i]) == RC_REQ_DONE)
			return i;
	return -1;
}

/* The first request of the array that is neither null nor live, or -1. */
static int reqs_bad(int count, MPI_Request reqs[])
{
	int i;

	for (i = 0; i < count; i++)
		if (reqs[i] && !rc_req_valid(reqs[i]))
			return i;
	return -1;
}

/*
 * Finish a done generalized request: query_fn fills its status, free_fn
 * runs, the request goes. The first error code of the two (a generalized
 * request has no communicator: it is raised on MPI_COMM_WORLD).
 */
static int greq_finish(MPI_Request *r, MPI_Status *st)
{
	int code = rc_greq_query(*r, &(*r)->status);
	int fcode = rc_greq_release(*r);

	rc_req_finish(r, st);
	return code ? code : fcode;
}

/*
 * Finish a done request into status; its MPI error class. On an error,
 * *commp (if still NULL) gets the request's communicator with a reference
 * of its own: finishing drops the request's reference, and the user may
 * have freed the communicator, yet its error handler must still run.
 */
static int finish(MPI_Request *r, MPI_Status *st, struct rc_comm **commp)
{
	struct rc_comm *comm = (*r)->comm;
	int cls;

	if ((*r)->kind == RC_REQ_GREQ)
		return greq_finish(r, st);
	cls = rc_status_to_mpi((*r)->err);

	if (cls && comm && !*commp) {
		rc_comm_retain(comm);
		*commp = comm;
	}
	rc_req_finish(r, st);
	return cls;
}

/* Raise cls from fn on the communicator finish() kept, then let it go. */
static int raise_on(struct rc_comm *comm, int cls, const char *fn)
{
	int ret = rc_err_raise(comm, cls, fn, NULL);

	if (comm)
		rc_comm_release(comm);
	return ret;
}

static int api_wait(MPI_Request *request, MPI_Status *status)
{
	struct rc_comm *comm;
	int cls;

	RC_API_CHECK_INIT("MPI_Wait");
	if (!request)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, "MPI_Wait",
				  "request is NULL");
	if (*request && !rc_req_valid(*request))
		return rc_err_handle(NULL, RC_HK_REQ, *request, "MPI_Wait");
	if (!req_active(*request)) {
		status_empty(status);
		return MPI_SUCCESS;
	}
	rc_req_wait_done(*request);
	comm = NULL;
	cls = finish(request, status, &comm);
	if (cls)
		return raise_on(comm, cls, "MPI_Wait");
	return MPI_SUCCESS;
}

/* At MULTIPLE: the whole MPI_Wait outside the section, when it can. */
static __attribute__((noinline)) bool wait_one_outside(MPI_Request *request,
						       MPI_Status *status)
{
	if (!request || !wait_outside(1, request, true) ||
	    !rc_req_done_outside(*request))
		return false;
	rc_req_finish_outside(request, status, NULL);
	return true;
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
	return RC_CS_CALL_UNLESS(&rc_cs_big, wait_one_outside(request, status),
				 MPI_SUCCESS, api_wait(request, status));
}
RC_WEAK(MPI_Wait)

static int api_test(MPI_Request *request, int *flag, MPI_Status *status)
{
	struct rc_comm *comm;
	int cls;

	RC_API_CHECK_INIT("MPI_Test");
	if (!request || !flag)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, "MPI_Test",
				  !flag ? "flag is NULL" : "request is NULL");
	if (*request && !rc_req_valid(*request))
		return rc_err_handle(NULL, RC_HK_REQ, *request, "MPI_Test");
	if (!req_active(*request)) {
		*flag = 1;
		status_empty(status);
		return MPI_SUCCESS;
	}
	if (!rc_req_done(*request))
		rc_progress((*request)->inst);
	if (!rc_req_done(*request)) {
		rc_progress_test_idle((*request)->inst);
		*flag = 0;
		return MPI_SUCCESS;
	}
	*flag = 1;
	comm = NULL;
	cls = finish(request, status, &comm);
	if (cls)
		return raise_on(comm, cls, "MPI_Test");
	return MPI_SUCCESS;
}

/* At MULTIPLE, outside the section: a request done and handed over, or
 * "not yet" while another thread holds the section (test_busy). */
static __attribute__((noinline)) bool
test_outside(MPI_Request *request, int *flag, MPI_Status *status)
{
	if (!request || !flag)
		return false;
	if (all_handed(1, request) && rc_req_done_outside(*request)) {
		*flag = 1;
		rc_req_finish_outside(request, status, NULL);
		return true;
	}
	if (test_busy(1, request, false)) {
		*flag = 0;
		return true;
	}
	return false;
}

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	return RC_CS_CALL_UNLESS(&rc_cs_big,
				 test_outside(request, flag, status),
				 MPI_SUCCESS, api_test(request, flag, status));
}
RC_WEAK(MPI_Test)

/* Complete every done request of the array; returns MPI_ERR_IN_STATUS when
 * one failed (statuses get MPI_ERROR), else MPI_SUCCESS. */
static int finish_all(int count, MPI_Request reqs[], MPI_Status statuses[],
		      struct rc_comm **errcomm)
{
	int i, ret = MPI_SUCCESS;

	for (i = 0; i < count; i++) {
		MPI_Status *st = statuses == MPI_STATUSES_IGNORE
					 ? MPI_STATUS_IGNORE : &statuses[i];
		int cls;

		if (!req_active(reqs[i])) {
			status_empty(st);
			continue;
		}
		cls = finish(&reqs[i], st, errcomm);
		if (st != MPI_STATUS_IGNORE)
			st->MPI_ERROR = cls;
		if (cls)
			ret = MPI_ERR_IN_STATUS;
	}
	return ret;
}

/* The first request of the array still pending, or NULL. */
static struct rc_req *pending(int count, MPI_Request reqs[])
{
	int i;

	for (i = 0; i < count; i++)
		if (req_active(reqs[i]) && !rc_req_done(reqs[i]))
			return reqs[i];
	return NULL;
}

/* Nothing done yet in a Waitany or Waitsome: at MULTIPLE, watch the first
 * pending request outside the section (another's completion is found
 * when this thread next holds the section: it takes it whenever it falls
 * free, to poll). */
static void idle_any(int count, MPI_Request reqs[])
{
	struct rc_req *r = pending(count, reqs);

	if (r)
		rc_req_idle(r);
	else
		rc_progress_idle(&rc_g);
}

static int check_array(int count, MPI_Request reqs[], const char *fn)
{
	int bad;

	if (count < 0)
		return RC_ERR(NULL, MPI_ERR_COUNT, fn);
	if (count && !reqs)
		return RC_ERR(NULL, MPI_ERR_ARG, fn);
	bad = reqs_bad(count, reqs);
	if (bad >= 0)
		return rc_err_handle(NULL, RC_HK_REQ, reqs[bad], fn);
	return MPI_SUCCESS;
}

static int api_waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
	struct rc_comm *errcomm = NULL;
	struct rc_inst *inst = &rc_g;
	struct rc_req *r;
	int ret;

	RC_API_CHECK_INIT("MPI_Waitall");
	ret = check_array(count, reqs, "MPI_Waitall");
	if (ret)
		return ret;
	while ((r = pending(count, reqs))) {
		if (!rc_progress(inst) && !rc_req_done(r))
			rc_req_idle(r); /* (waits for one at a time) */
	}
	ret = finish_all(count, reqs, statuses, &errcomm);
	if (ret)
		return raise_on(errcomm, ret, "MPI_Waitall");
	return MPI_SUCCESS;
}

/* At MULTIPLE, outside the section, as wait_one_outside. */
static __attribute__((noinline)) bool
waitall_outside(int count, MPI_Request reqs[], MPI_Status statuses[])
{
	if (!wait_outside(count, reqs, true) || !all_done_outside(count, reqs))
		return false;
	finish_all_outside(count, reqs, statuses);
	return true;
}

int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
	return RC_CS_CALL_UNLESS(
		&rc_cs_big, waitall_outside(count, reqs, statuses), MPI_SUCCESS,
		api_waitall(count, reqs, statuses));
}
RC_WEAK(MPI_Waitall)

static int api_testall(int count, MPI_Request reqs[], int *flag,
		       MPI_Status statuses[])
{
	struct rc_comm *errcomm = NULL;
	int ret;

	RC_API_CHECK_INIT("MPI_Testall");
	ret = check_array(count, reqs, "MPI_Testall");
	if (ret)
		return ret;
	if (!flag)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Testall");
	if (pending(count, reqs))
		rc_progress(&rc_g);
	if (pending(count, reqs)) {
		rc_progress_test_idle(&rc_g);
		*flag = 0;
		return MPI_SUCCESS;
	}
	*flag = 1;
	ret = finish_all(count, reqs, statuses, &errcomm);
	if (ret)
		return raise_on(errcomm, ret, "MPI_Testall");
	return MPI_SUCCESS;
}

/* At MULTIPLE, outside the section, as test_outside. */
static __attribute__((noinline)) bool
testall_outside(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
	if (!flag)
		return false;
	if (all_handed(count, reqs) && all_done_outside(count, reqs)) {
		*flag = 1;
		finish_all_outside(count, reqs, statuses);
		return true;
	}
	if (test_busy(count, reqs, true)) {
		*flag = 0;
		return true;
	}
	return false;
}

int PMPI_Testall(int count, MPI_Request reqs[], int *flag,
		 MPI_Status statuses[])
{
	return RC_CS_CALL_UNLESS(
		&rc_cs_big, testall_outside(count, reqs, flag, statuses),
		MPI_SUCCESS, api_testall(count, reqs, flag, statuses));
}
RC_WEAK(MPI_Testall)

/* Index of a done active request, MPI_UNDEFINED if none is active, or -1. */
static int find_done(int count, MPI_Request reqs[])
{
	int i, active = 0;

	for (i = 0; i < count; i++) {
		if (!req_active(reqs[i]))
			continue;
		active++;
		if (rc_req_done(reqs[i]))
			return i;
	}
	return active ? -1 : MPI_UNDEFINED;
}

/* At MULTIPLE, outside the section: finish the first done request of an
 * array that all_handed (or wait_outside) accepted, as MPI_Waitany and
 * MPI_Testany do inside. False when none is done, or it must be finished
 * inside. */
static bool any_done_outside(int count, MPI_Request reqs[], int *index,
			     int *flag, MPI_Status *status)
{
	int i = first_done(count, reqs);

	if (i < 0 || !rc_req_done_outside(reqs[i]))
		return false;
	rc_req_finish_outside(&reqs[i], status, NULL);
	*index = i;
	if (flag)
		*flag = 1;
	return true;
}

static __attribute__((noinline)) bool
waitany_outside(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
	return index && wait_outside(count, reqs, false) &&
	       any_done_outside(count, reqs, index, NULL, status);
}

static int any(int count, MPI_Request reqs[], int *index, int *flag,
	       MPI_Status *status, bool wait, const char *fn)
{
	struct rc_comm *comm;
	int i, cls, ret;

	RC_API_CHECK_INIT(fn);
	ret = check_array(count, reqs, fn);
	if (ret)
		return ret;
	if (!index || (!wait && !flag))
		return RC_ERR(NULL, MPI_ERR_ARG, fn);
	for (;;) {
		i = find_done(count, reqs);
		if (i != -1)
			break;
		if (!rc_progress(&rc_g)) {
			i = find_done(count, reqs);
			if (i != -1)
				break;
			if (!wait) {
				rc_progress_test_idle(&rc_g);
				break;
			}
			idle_any(count, reqs);
		}
	}
	if (flag)
		*flag = i != -1;
	if (i == -1) {
		*index = MPI_UNDEFINED; /* Testany, nothing done */
		return MPI_SUCCESS;
	}
	*index = i;
	if (i == MPI_UNDEFINED) {
		status_empty(status);
		return MPI_SUCCESS;
	}
	comm = NULL;
	cls = finish(&reqs[i], status, &comm);
	if (cls)
		return raise_on(comm, cls, fn);
	return MPI_SUCCESS;
}

int PMPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
	return RC_CS_CALL_UNLESS(
		&rc_cs_big, waitany_outside(count, reqs, index, status),
		MPI_SUCCESS,
		any(count, reqs, index, NULL, status, true, "MPI_Waitany"));
}
RC_WEAK(MPI_Waitany)

/* At MULTIPLE, outside the section, as test_outside. */
static __attribute__((noinline)) bool testany_outside(int count,
						      MPI_Request reqs[],
						      int *index, int *flag,
						      MPI_Status *status)
{
	if (!index || !flag)
		return false;
	if (all_handed(count, reqs) &&
	    any_done_outside(count, reqs, index, flag, status))
		return true;
	if (test_busy(count, reqs, false)) {
		*index = MPI_UNDEFINED;
		*flag = 0;
		return true;
	}
	return false;
}

int PMPI_Testany(int count, MPI_Request reqs[], int *index, int *flag,
		 MPI_Status *status)
{
	return RC_CS_CALL_UNLESS(
		&rc_cs_big, testany_outside(count, reqs, index, flag, status),
		MPI_SUCCESS,
		any(count, reqs, index, flag, status, false, "MPI_Testany"));
}
RC_WEAK(MPI_Testany)

/* At MULTIPLE, outside the section, as any_done_outside: MPI_Waitsome and
 * MPI_Testsome finish every done one, as inside; all of them outside, or
 * none (false). */
static bool some_done_outside(int incount, MPI_Request reqs[], int *outcount,
			      int indices[], MPI_Status statuses[])
{
	struct rc_req_chain chain = {NULL, NULL};
	int i, n = 0;

	if (first_done(incount, reqs) < 0)
		return false;
	for (i = 0; i < incount; i++)
		if (reqs[i] && state_of(reqs[i]) == RC_REQ_DONE &&
		    !rc_req_done_outside(reqs[i]))
			return false;
	for (i = 0; i < incount; i++) {
		MPI_Status *st;

		/* (one done since the check above, with an error, waits) */
		if (!reqs[i] || !rc_req_done_outside(reqs[i]))
			continue;
		st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE
						     : &statuses[n];
		rc_req_finish_outside(&reqs[i], st, &chain);
		if (st != MPI_STATUS_IGNORE)
			st->MPI_ERROR = MPI_SUCCESS;
		indices[n++] = i;
	}
	rc_req_chain_retire(&chain);
	*outcount = n;
	return true;
}

static int some(int incount, MPI_Request reqs[], int *outcount, int indices[],
		MPI_Status statuses[], bool wait, const char *fn)
{
	struct rc_comm *errcomm = NULL;
	int i, n, ret = MPI_SUCCESS;

	RC_API_CHECK_INIT(fn);
	ret = check_array(incount, reqs, fn);
	if (ret)
		return ret;
	if (!outcount || (incount && !indices))
		return RC_ERR(NULL, MPI_ERR_ARG, fn);
	for (;;) {
		i = find_done(incount, reqs);
		if (i == MPI_UNDEFINED) {
			*outcount = MPI_UNDEFINED;
			return MPI_SUCCESS;
		}
		if (i >= 0)
			break;
		if (!rc_progress(&rc_g)) {
			if (find_done(incount, reqs) >= 0)
				break;
			if (!wait) {
				rc_progress_test_idle(&rc_g);
				*outcount = 0;
				return MPI_SUCCESS;
			}
			idle_any(incount, reqs);
		}
	}
	for (i = 0, n = 0; i < incount; i++) {
		MPI_Status *st;
		int cls;

		if (!req_active(reqs[i]) || !rc_req_done(reqs[i]))
			continue;
		st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE
						     : &statuses[n];
		cls = finish(&reqs[i], st, &errcomm);
		if (st != MPI_STATUS_IGNORE)
			st->MPI_ERROR = cls;
		if (cls)
			ret = MPI_ERR_IN_STATUS;
		indices[n++] = i;
	}
	*outcount = n;
	if (ret)
		return raise_on(errcomm, ret, fn);
	return MPI_SUCCESS;
}

static __attribute__((noinline)) bool
waitsome_outside(int incount, MPI_Request reqs[], int *outcount, int indices[],
		 MPI_Status statuses[])
{
	return outcount && indices && wait_outside(incount, reqs, false) &&
	       some_done_outside(incount, reqs, outcount, indices, statuses);
}

int PMPI_Waitsome(int incount, MPI_Request reqs[], int *outcount,
		  int indices[], MPI_Status statuses[])
{
	return RC_CS_CALL_UNLESS(
		&rc_cs_big,
		waitsome_outside(incount, reqs, outcount, indices, statuses),
		MPI_SUCCESS,
		some(incount, reqs, outcount, indices, statuses, true,
		     "MPI_Waitsome"));
}
RC_WEAK(MPI_Waitsome)

/* At MULTIPLE, outside the section, as test_outside. */
static __attribute__((noinline)) bool
testsome_outside(int incount, MPI_Request reqs[], int *outcount, int indices[],
		 MPI_Status statuses[])
{
	if (!outcount || (incount && !indices))
		return false;
	if (all_handed(incount, reqs) &&
	    some_done_outside(incount, reqs, outcount, indices, statuses))
		return true;
	if (test_busy(incount, reqs, false)) {
		*outcount = 0;
		return true;
	}
	return false;
}

int PMPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
		  MPI_Status statuses[])
{
	return RC_CS_CALL_UNLESS(
		&rc_cs_big,
		testsome_outside(incount, reqs, outcount, indices, statuses),
		MPI_SUCCESS,
		some(incount, reqs, outcount, indices, statuses, false,
		     "MPI_Testsome"));
}
RC_WEAK(MPI_Testsome)

static int api_request_free(MPI_Request *request)
{
	struct rc_req *req;

	RC_API_CHECK_INIT("MPI_Request_free");
	if (!request)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, "MPI_Request_free",
				  "request is NULL");
	if (!rc_req_valid(*request))
		return rc_err_handle(NULL, RC_HK_REQ, *request,
				     "MPI_Request_free");
	req = *request;
	*request = MPI_REQUEST_NULL;
	if (req->state == RC_REQ_ACTIVE) {
		/* released by rc_req_complete (a generalized request's free_fn
		 * runs in MPI_Grequest_complete) */
		req->flags |= RC_REQ_USER_FREED;
		req->flags &= ~RC_REQ_PERSISTENT;
		return MPI_SUCCESS;
	}
	if (req->kind == RC_REQ_GREQ) {
		int code = rc_greq_release(req);

		rc_req_free(req);
		if (code)
			return RC_ERR(NULL, code, "MPI_Request_free");
		return MPI_SUCCESS;
	}
	rc_req_free(req);
	return MPI_SUCCESS;
}

/* At MULTIPLE: free a request done and handed over, outside the
 * section (an active one is marked inside, for rc_req_complete). */
static __attribute__((noinline)) bool free_outside(MPI_Request *request)
{
	if (!request || !all_handed(1, request) ||
	    !rc_req_done_outside(*request))
		return false;
	rc_req_free_outside(*request);
	*request = MPI_REQUEST_NULL;
	return true;
}

int PMPI_Request_free(MPI_Request *request)
{
	return RC_CS_CALL_UNLESS(&rc_cs_big, free_outside(request), MPI_SUCCESS,
				 api_request_free(request));
}
RC_WEAK(MPI_Request_free)

static int api_request_get_status(MPI_Request request, int *flag,
				  MPI_Status *status)
{
	RC_API_CHECK_INIT("MPI_Request_get_status");
	if (!flag)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, "MPI_Request_get_status",
				  "flag is NULL");
	if (request && !rc_req_valid(request))
		return rc_err_handle(NULL, RC_HK_REQ, request,
				     "MPI_Request_get_status");
	if (!req_active(request)) {
		*flag = 1;
		status_empty(status);
		return MPI_SUCCESS;
	}
	if (!rc_req_done(request))
		rc_progress(request->inst);
	*flag = rc_req_done(request);
	if (!*flag)
		rc_progress_test_idle(request->inst);
	if (*flag && request->kind == RC_REQ_GREQ) {
		/* query_fn runs on every call that sees it done */
		MPI_Status tmp = {.MPI_ERROR = MPI_SUCCESS};
		int code;

		if (status == MPI_STATUS_IGNORE)
			status = &tmp;
		code = rc_greq_query(request, status);
		if (code)
			return RC_ERR(NULL, code, "MPI_Request_get_status");
		return MPI_SUCCESS;
	}
	if (*flag)
		rc_req_status_out(request, status);
	return MPI_SUCCESS;
}

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
	if (RC_UNLIKELY(rc_thread_multiple) && flag &&
	    test_busy(1, &request, false)) {
		*flag = 0;
		return MPI_SUCCESS;
	}
	return RC_CS_CALL(&rc_cs_big,
			  api_request_get_status(request, flag, status));
}
RC_WEAK(MPI_Request_get_status)

/* Reads only the caller's status: outside the critical section. */
int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
	RC_API_CHECK_INIT("MPI_Test_cancelled");
	if (!status || !flag)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Test_cancelled");
	*flag = status->rc_cancelled;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Test_cancelled)

/* ---- generalized requests (MPI-3.1 section 12.2) ----------------------- */

static int grequest_start(MPI_Grequest_query_function *query_fn,
			  MPI_Grequest_free_function *free_fn,
			  MPI_Grequest_cancel_function *cancel_fn,
			  void *extra_state, MPI_Request *request)
{
	struct rc_req *req;

	RC_API_CHECK_INIT("MPI_Grequest_start");
	if (!request)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, "MPI_Grequest_start",
				  "request is NULL");
	if (!query_fn || !free_fn || !cancel_fn)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, "MPI_Grequest_start",
				  "a callback is NULL");
	req = rc_req_alloc(&rc_g, RC_REQ_GREQ);
	if (!req)
		return RC_ERR(NULL, MPI_ERR_NO_MEM, "MPI_Grequest_start");
	req->greq.query = query_fn;
	req->greq.free = free_fn;
	req->greq.cancel = cancel_fn;
	req->greq.extra = extra_state;
	req->state = RC_REQ_ACTIVE;
	*request = req;
	return MPI_SUCCESS;
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
			MPI_Grequest_free_function *free_fn,
			MPI_Grequest_cancel_function *cancel_fn,
			void *extra_state, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  grequest_start(query_fn, free_fn, cancel_fn,
					 extra_state, request));
}
RC_WEAK(MPI_Grequest_start)

static int grequest_complete(MPI_Request request)
{
	int code = MPI_SUCCESS;

	RC_API_CHECK_INIT("MPI_Grequest_complete");
	if (!rc_req_valid(request))
		return rc_err_handle(NULL, RC_HK_REQ, request,
				     "MPI_Grequest_complete");
	if (request->kind != RC_REQ_GREQ)
		return RC_ERR_MSG(NULL, MPI_ERR_REQUEST,
				  "MPI_Grequest_complete",
				  "not a generalized request");
	if (request->state != RC_REQ_ACTIVE)
		return RC_ERR_MSG(NULL, MPI_ERR_REQUEST,
				  "MPI_Grequest_complete",
				  "the request is already complete");
	/* freed by MPI_Request_free already: rc_req_complete releases it,
	 * and free_fn runs now, the later of the two calls */
	if (request->flags & RC_REQ_USER_FREED)
		code = rc_greq_release(request);
	rc_req_complete(request);
	if (code)
		return RC_ERR(NULL, code, "MPI_Grequest_complete");
	return MPI_SUCCESS;
}

int PMPI_Grequest_complete(MPI_Request request)
{
	return RC_CS_CALL(&rc_cs_big, grequest_complete(request));
}
RC_WEAK(MPI_Grequest_complete)
