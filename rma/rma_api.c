/*
 * rma_api.c - the MPI one-sided functions: argument checks, error classes
 * through the window's error handler, and the mapping onto the module
 * (rma.h). Calls that wait start a machine and wait on its request,
 * spinning on the one progress engine.
 *
 * Errors: creation errors are raised on the communicator, everything else
 * on the window (its handler is MPI_ERRORS_ARE_FATAL until the program
 * sets another). The handler lives on the window's private communicator,
 * which names the window (comm->eh_handle), so that everything raised
 * there -- by these functions, by MPI_Wait on a request of MPI_Rput & co.
 * -- reaches the window's handler, and a user handler gets the window.
 * An invalid window handle raises MPI_ERR_WIN on MPI_COMM_WORLD, saying
 * what is wrong with it (handle.h: "window handle 0x... was freed").
 * Every body runs inside the critical section.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "info.h"
#include "rma_impl.h"
#include "thread.h"

#define ASSERT_FENCE                                                     \
	(MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |        \
	 MPI_MODE_NOSUCCEED)
#define ASSERT_POST (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT)

#define WIN_ENTER(fn, win)                                                \
	do {                                                              \
		RC_API_CHECK_INIT(fn);                                    \
		if (RC_UNLIKELY(!rc_win_valid(win)))                      \
			return rc_err_handle(NULL, RC_HK_WIN, (win), fn); \
	} while (0)

/* Raise cls on win from fn. */
static int win_err(struct rc_win *win, int cls, const char *fn,
		   const char *msg)
{
	return rc_err_raise(win->comm, cls, fn, msg);
}

/* Wait for a machine's request; its status. */
static int rma_wait(struct rc_req *req)
{
	int err;

	rc_req_wait_done(req);
	err = req->err;
	rc_req_free(req);
	return err;
}

/* ---- hints --------------------------------------------------------------- */

/* An info value that is "true" or "false": 1, 0, or -1 for anything else
 * (ignored, as a hint may be). */
static int hint_bool(const char *v)
{
	if (!v)
		return -1;
	if (!strcmp(v, "true"))
		return 1;
	return strcmp(v, "false") ? -1 : 0;
}

/* accumulate_ordering: "none" or a comma-separated list of rar, raw, war,
 * waw (blanks allowed); false when it is neither. */
static bool hint_acc_order(const char *v, unsigned *bits)
{
	static const char *const name[] = {"rar", "raw", "war", "waw"};
	static const unsigned bit[] = {RC_ACC_RAR, RC_ACC_RAW, RC_ACC_WAR,
				       RC_ACC_WAW};
	unsigned b = 0;
	size_t n, i;

	while (*v == ' ')
		v++;
	if (!strcmp(v, "none")) {
		*bits = 0;
		return true;
	}
	for (;;) {
		while (*v == ' ')
			v++;
		n = strcspn(v, ", ");
		for (i = 0; i < 4; i++)
			if (n == 3 && !strncmp(v, name[i], 3))
				break;
		if (i == 4)
			return false;
		b |= bit[i];
		v += n;
		while (*v == ' ')
			v++;
		if (!*v)
			break;
		if (*v++ != ',')
			return false;
	}
	*bits = b;
	return true;
}

/*
 * The window hints of info (MPI_INFO_NULL: none) over *flags, *order and
 * *same_op; a value that does not parse leaves its hint as it was. At
 * creation every hint counts; later (MPI_Win_set_info) those fixed by the
 * creation (same_size, same_disp_unit, alloc_shared_noncontig) do not.
 */
static void hints_read(const struct rc_info *info, bool create, unsigned *flags,
		       unsigned *order, bool *same_op)
{
	static const struct {
		const char *key;
		unsigned bit;
		bool create_only;
	} bools[] = {
		{"no_locks", RC_WIN_NO_LOCKS, false},
		{"same_size", RC_WIN_SAME_SIZE, true},
		{"same_disp_unit", RC_WIN_SAME_DISP, true},
		{"alloc_shared_noncontig", RC_WIN_NONCONTIG, true},
	};
	const char *v;
	size_t i;
	int b;

	if (info == MPI_INFO_NULL)
		return;
	for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		if (bools[i].create_only && !create)
			continue;
		b = hint_bool(rc_info_get(info, bools[i].key));
		if (b == 1)
			*flags |= bools[i].bit;
		else if (b == 0)
			*flags &= ~bools[i].bit;
	}
	v = rc_info_get(info, "accumulate_ordering");
	if (v)
		hint_acc_order(v, order);
	v = rc_info_get(info, "accumulate_ops");
	if (v && !strcmp(v, "same_op"))
		*same_op = true;
	else if (v && !strcmp(v, "same_op_no_op"))
		*same_op = false;
}

/* The hints in effect on win, as a new info object. */
static int hints_write(const struct rc_win *win, struct rc_info **out)
{
	static const char *const name[] = {"rar", "raw", "war", "waw"};
	struct rc_info *i;
	char order[32] = "";
	size_t k;
	int err;

	err = rc_info_new(&i);
	if (err)
		return err;
	for (k = 0; k < 4; k++)
		if (win->acc_order & (1u << k))
			snprintf(order + strlen(order),
				 sizeof(order) - strlen(order), "%s%s",
				 *order ? "," : "", name[k]);
#define BOOLSTR(bit) ((win->info & (bit)) ? "true" : "false")
	err = rc_info_set(i, "no_locks", BOOLSTR(RC_WIN_NO_LOCKS));
	if (!err)
		err = rc_info_set(i, "accumulate_ordering",
				  *order ? order : "none");
	if (!err)
		err = rc_info_set(i, "accumulate_ops",
				  win->acc_same_op ? "same_op"
						   : "same_op_no_op");
	if (!err)
		err = rc_info_set(i, "same_size", BOOLSTR(RC_WIN_SAME_SIZE));
	if (!err)
		err = rc_info_set(i, "same_disp_unit",
				  BOOLSTR(RC_WIN_SAME_DISP));
	if (!err && win->flavor == MPI_WIN_FLAVOR_SHARED)
		err = rc_info_set(i, "alloc_shared_noncontig",
				  BOOLSTR(RC_WIN_NONCONTIG));
	/* rcmpi's own: who applies accumulates (rma/README.md, "Agents") */
	if (!err)
		err = rc_info_set(i, "rcmpi_atomic_agent",
				  win->shm_path	    ? "shm"
				  : win->dev_atomic ? "device"
						    : "am");
#undef BOOLSTR
	if (err) {
		rc_info_free(i);
		return err;
	}
	*out = i;
	return RC_OK;
}

/* ---- windows ------------------------------------------------------------- */

static int win_new(MPI_Comm comm, int flavor, void *base, MPI_Aint size,
		   int disp_unit, MPI_Info info, void *baseptr, MPI_Win *win,
		   const char *fn)
{
	struct rc_win_args a;
	struct rc_req *req;
	struct rc_win *w = NULL;
	int ret;

	RC_API_CHECK_INIT(fn);
	if (!rc_comm_valid(comm))
		return RC_ERR(NULL, MPI_ERR_COMM, fn);
	if (!win || (!baseptr && (flavor == MPI_WIN_FLAVOR_ALLOCATE ||
				  flavor == MPI_WIN_FLAVOR_SHARED)))
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn, "NULL out-argument");
	if (size < 0)
		return RC_ERR_MSG(comm, MPI_ERR_SIZE, fn, "negative size");
	if (disp_unit <= 0)
		return RC_ERR_MSG(comm, MPI_ERR_DISP, fn,
				  "disp_unit must be positive");
	if (flavor == MPI_WIN_FLAVOR_CREATE && !base && size > 0)
		return RC_ERR_MSG(comm, MPI_ERR_BASE, fn,
				  "no memory at a NULL base");
	memset(&a, 0, sizeof(a));
	a.flavor = flavor;
	a.base = base;
	a.size = (size_t)size;
	a.disp_unit = disp_unit;
	a.acc_order = RC_ACC_ALL;
	if (info != MPI_INFO_NULL && !rc_info_valid(info))
		return rc_err_handle(comm, RC_HK_INFO, info, fn);
	hints_read(info, true, &a.info, &a.acc_order, &a.acc_same_op);
	ret = rc_win_create_start(comm, &a, &w, &req);
	if (!ret)
		ret = rma_wait(req);
	if (ret)
		return rc_api_status(comm, ret, fn);
	*win = w;
	if (baseptr) {
		void *b = rc_win_base(w);

		memcpy(baseptr, &b, sizeof(b));
	}
	return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
		    MPI_Comm comm, MPI_Win *win)
{
	return RC_CS_CALL(&rc_cs_big,
			  win_new(comm, MPI_WIN_FLAVOR_CREATE, base, size,
				  disp_unit, info, NULL, win,
				  "MPI_Win_create"));
}
RC_WEAK(MPI_Win_create)

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info,
		      MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	return RC_CS_CALL(&rc_cs_big,
			  win_new(comm, MPI_WIN_FLAVOR_ALLOCATE, NULL, size,
				  disp_unit, info, baseptr, win,
				  "MPI_Win_allocate"));
}
RC_WEAK(MPI_Win_allocate)

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
			     MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	return RC_CS_CALL(&rc_cs_big,
			  win_new(comm, MPI_WIN_FLAVOR_SHARED, NULL, size,
				  disp_unit, info, baseptr, win,
				  "MPI_Win_allocate_shared"));
}
RC_WEAK(MPI_Win_allocate_shared)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	return RC_CS_CALL(&rc_cs_big,
			  win_new(comm, MPI_WIN_FLAVOR_DYNAMIC, MPI_BOTTOM, 0,
				  1, info, NULL, win,
				  "MPI_Win_create_dynamic"));
}
RC_WEAK(MPI_Win_create_dynamic)

static int win_shared_query(MPI_Win win, int rank, MPI_Aint *size,
			    int *disp_unit, void *baseptr)
{
	static const char fn[] = "MPI_Win_shared_query";
	struct rma_target *tg;
	void *b;
	int t;

	WIN_ENTER(fn, win);
	if (win->flavor != MPI_WIN_FLAVOR_SHARED)
		return win_err(win, MPI_ERR_RMA_FLAVOR, fn,
			       "not a window of MPI_Win_allocate_shared");
	if (!size || !disp_unit || !baseptr)
		return win_err(win, MPI_ERR_ARG, fn, "NULL out-argument");
	if (rank == MPI_PROC_NULL) {
		/* the lowest rank with memory */
		for (t = 0; t < win->comm->size - 1; t++)
			if (win->tg[t].size)
				break;
		rank = t;
	} else if (rank < 0 || rank >= win->comm->size) {
		return win_err(win, MPI_ERR_RANK, fn, NULL);
	}
	tg = &win->tg[rank];
	*size = (MPI_Aint)tg->size;
	*disp_unit = tg->disp_unit;
	/* contiguous: where the part would be; a part of its own that is
	 * empty has no address (NULL, as in Open MPI and MPICH) */
	b = !tg->size && (win->info & RC_WIN_NONCONTIG) ? NULL : tg->local;
	memcpy(baseptr, &b, sizeof(b));
	return MPI_SUCCESS;
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size,
			  int *disp_unit, void *baseptr)
{
	return RC_CS_CALL(&rc_cs_big, win_shared_query(win, rank, size,
						       disp_unit, baseptr));
}
RC_WEAK(MPI_Win_shared_query)

static int win_attach(MPI_Win win, void *base, MPI_Aint size, bool detach)
{
	const char *fn = detach ? "MPI_Win_detach" : "MPI_Win_attach";
	int ret;

	WIN_ENTER(fn, win);
	if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
		return win_err(win, MPI_ERR_RMA_FLAVOR, fn,
			       "not a window of MPI_Win_create_dynamic");
	if (size < 0)
		return win_err(win, MPI_ERR_SIZE, fn, "negative size");
	if (!detach && !base && size > 0)
		return win_err(win, MPI_ERR_RMA_ATTACH, fn,
			       "no memory at a NULL base");
	ret = detach ? rc_win_detach(win, base)
		     : rc_win_attach(win, base, (size_t)size);
	if (ret == RC_ERR_INVAL)
		return win_err(win, MPI_ERR_RMA_ATTACH, fn,
			       detach ? "no region attached at that address"
				      : "overlaps an attached region");
	return rc_api_status(win->comm, ret, fn);
}

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
	return RC_CS_CALL(&rc_cs_big, win_attach(win, base, size, false));
}
RC_WEAK(MPI_Win_attach)

int PMPI_Win_detach(MPI_Win win, const void *base)
{
	return RC_CS_CALL(&rc_cs_big, win_attach(win, (void *)base, 0, true));
}
RC_WEAK(MPI_Win_detach)

static int win_free(MPI_Win *win)
{
	static const char fn[] = "MPI_Win_free";
	struct rc_req *req;
	int ret;

	RC_API_CHECK_INIT(fn);
	if (!win)
		return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn, "win is NULL");
	if (!rc_win_valid(*win))
		return rc_err_handle(NULL, RC_HK_WIN, *win, fn);
	/* the delete callbacks first, while the window is whole (as Open
	 * MPI and MPICH do); one that fails keeps the window */
	ret = rc_attr_delete_all(RC_AK_WIN, *win, &(*win)->attrs);
	if (ret)
		return win_err(*win, ret, fn,
			       "an attribute delete callback failed");
	ret = rc_win_free_start(*win, &req);
	if (!ret)
		ret = rma_wait(req);
	if (ret == RC_ERR_RMA_SYNC)
		return win_err(*win, MPI_ERR_RMA_SYNC, fn,
			       "an epoch or operations still open on some "
			       "rank");
	if (ret)
		return rc_api_status((*win)->comm, ret, fn);
	*win = MPI_WIN_NULL;
	return MPI_SUCCESS;
}

int PMPI_Win_free(MPI_Win *win)
{
	return RC_CS_CALL(&rc_cs_big, win_free(win));
}
RC_WEAK(MPI_Win_free)

/* ---- communication ------------------------------------------------------- */

/* A buffer and its datatype: 0 or an error class. */
static int buf_check(const void *buf, int count, struct rc_dtype *dt)
{
	if (count < 0)
		return MPI_ERR_COUNT;
	if (!rc_dt_valid(dt))
		return MPI_ERR_TYPE;
	if (!buf && count > 0 && (dt->flags & RC_DT_PREDEFINED))
		return MPI_ERR_BUFFER;
	return MPI_SUCCESS;
}

/* Data of accumulate operations: one basic kind, the target's; or no
 * data on either side (empty signatures match, whatever the types). */
static bool acc_types(const struct rc_dtype *a, size_t na,
		      const struct rc_dtype *t, size_t nt)
{
	if (na * a->size == 0 && nt * t->size == 0)
		return true;
	return a->basic != RC_BASIC_NONE && a->basic == t->basic &&
	       na * a->size == nt * t->size;
}

/* What an operation's start said, as the API says it. */
static int op_fail(struct rc_win *win, int ret, const char *fn)
{
	if (ret == RC_ERR_RMA_SYNC)
		return win_err(win, MPI_ERR_RMA_SYNC, fn,
			       "no access epoch is open to that target");
	if (ret == RC_ERR_RMA_RANGE)
		return win_err(win, MPI_ERR_RMA_RANGE, fn,
			       "the target datatype reaches beyond the "
			       "target's window");
	return rc_api_status(win->comm, ret, fn);
}

static int rma_go(struct rc_win *win, struct rc_rma_args *a,
		  MPI_Request *request, const char *fn)
{
	int ret;

	if (request)
		*request = MPI_REQUEST_NULL;
	ret = rc_rma_op(win, a, request);
	return RC_LIKELY(!ret) ? MPI_SUCCESS : op_fail(win, ret, fn);
}

#define ARG_CHECK(win, cond, cls, fn, msg)                               \
	do {                                                             \
		if (RC_UNLIKELY(cond))                                   \
			return win_err(win, cls, fn, msg);               \
	} while (0)

static inline int target_check(struct rc_win *win, int target, int tcount,
			       struct rc_dtype *tdt, const char *fn)
{
	ARG_CHECK(win, target != MPI_PROC_NULL &&
		  (target < 0 || target >= win->comm->size), MPI_ERR_RANK, fn,
		  "target rank out of range");
	ARG_CHECK(win, tcount < 0, MPI_ERR_COUNT, fn, "negative target count");
	ARG_CHECK(win, !rc_dt_valid(tdt), MPI_ERR_TYPE, fn,
		  "invalid or uncommitted target datatype");
	return MPI_SUCCESS;
}

/* Request-based calls (rq) must pass a request pointer. */
#define REQ_CHECK(rq, request, fn)                                       \
	do {                                                             \
		if ((rq) && !(request))                                  \
			return RC_ERR_MSG(NULL, MPI_ERR_ARG, fn,         \
					  "request is NULL");            \
	} while (0)

/* put_get's general case: the argument block, rc_rma_op (out of line:
 * the block's address taken would cost every call a stack guard). */
static __attribute__((noinline)) int
put_get_op(bool get, const void *obuf, int ocount, MPI_Datatype odt, int target,
	   MPI_Aint disp, int tcount, MPI_Datatype tdt, MPI_Win win,
	   MPI_Request *request, const char *fn)
{
	struct rc_rma_args a;

	memset(&a, 0, sizeof(a));
	a.kind = get ? RC_RMA_GET : RC_RMA_PUT;
	a.obuf = obuf;
	a.ocount = (size_t)ocount;
	a.odt = odt;
	a.target = target;
	a.disp = disp;
	a.tcount = (size_t)tcount;
	a.tdt = tdt;
	return rma_go(win, &a, request, fn);
}

static int put_get(bool get, const void *obuf, int ocount,
		   MPI_Datatype odt, int target, MPI_Aint disp, int tcount,
		   MPI_Datatype tdt, MPI_Win win, bool rq,
		   MPI_Request *request, const char *fn)
{
	int cls;

	REQ_CHECK(rq, request, fn);
	WIN_ENTER(fn, win);
	cls = buf_check(obuf, ocount, odt);
	ARG_CHECK(win, cls, cls, fn, "origin buffer");
	cls = target_check(win, target, tcount, tdt, fn);
	if (cls)
		return cls;
	ARG_CHECK(win, (size_t)ocount * odt->size != (size_t)tcount * tdt->size,
		  MPI_ERR_TYPE, fn,
		  "origin and target type signatures differ in size");
	if (!win->shm_path || rq)
		return put_get_op(get, obuf, ocount, odt, target, disp, tcount,
				  tdt, win, request, fn);
	/* (OSU-style loops: no argument block to build and pass on) */
	cls = rc_rma_shm_put_get(win, get, obuf, (size_t)ocount, odt, target,
				 disp, (size_t)tcount, tdt);
	return RC_LIKELY(!cls) ? MPI_SUCCESS : op_fail(win, cls, fn);
}

int PMPI_Put(const void *origin_addr, int origin_count,
	     MPI_Datatype origin_datatype, int target_rank,
	     MPI_Aint target_disp, int target_count,
	     MPI_Datatype target_datatype, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big,
			  put_get(false, origin_addr, origin_count,
				  origin_datatype, target_rank, target_disp,
				  target_count, target_datatype, win, false,
				  NULL, "MPI_Put"));
}
RC_WEAK(MPI_Put)

int PMPI_Get(void *origin_addr, int origin_count,
	     MPI_Datatype origin_datatype, int target_rank,
	     MPI_Aint target_disp, int target_count,
	     MPI_Datatype target_datatype, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big,
			  put_get(true, origin_addr, origin_count,
				  origin_datatype, target_rank, target_disp,
				  target_count, target_datatype, win, false,
				  NULL, "MPI_Get"));
}
RC_WEAK(MPI_Get)

int PMPI_Rput(const void *origin_addr, int origin_count,
	      MPI_Datatype origin_datatype, int target_rank,
	      MPI_Aint target_disp, int target_count,
	      MPI_Datatype target_datatype, MPI_Win win,
	      MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  put_get(false, origin_addr, origin_count,
				  origin_datatype, target_rank, target_disp,
				  target_count, target_datatype, win, true,
				  request, "MPI_Rput"));
}
RC_WEAK(MPI_Rput)

int PMPI_Rget(void *origin_addr, int origin_count,
	      MPI_Datatype origin_datatype, int target_rank,
	      MPI_Aint target_disp, int target_count,
	      MPI_Datatype target_datatype, MPI_Win win,
	      MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  put_get(true, origin_addr, origin_count,
				  origin_datatype, target_rank, target_disp,
				  target_count, target_datatype, win, true,
				  request, "MPI_Rget"));
}
RC_WEAK(MPI_Rget)

/* accumulate (rbuf NULL) and get_accumulate */
static int accumulate(const void *obuf, int ocount, MPI_Datatype odt,
		      void *rbuf, int rcount, MPI_Datatype rdt, int target,
		      MPI_Aint disp, int tcount, MPI_Datatype tdt, MPI_Op op,
		      MPI_Win win, bool rq, MPI_Request *request, bool gacc,
		      const char *fn)
{
	struct rc_rma_args a;
	int cls;

	REQ_CHECK(rq, request, fn);
	WIN_ENTER(fn, win);
	cls = target_check(win, target, tcount, tdt, fn);
	if (cls)
		return cls;
	ARG_CHECK(win, !rc_op_ok(op) || op->kind == RC_OP_USER, MPI_ERR_OP,
		  fn, "one-sided accumulates take predefined ops only");
	ARG_CHECK(win, !gacc && op->kind == RC_OP_NO_OP, MPI_ERR_OP, fn,
		  "MPI_NO_OP is for MPI_Get_accumulate");
	/* (a type without data has no basic type to check) */
	ARG_CHECK(win, tdt->size && tdt->basic == RC_BASIC_NONE, MPI_ERR_TYPE,
		  fn, "target datatype mixes basic types");
	ARG_CHECK(win, tdt->size && !rma_acc_valid(op, tdt), MPI_ERR_OP, fn,
		  "op not defined on the datatype");
	if (op->kind != RC_OP_NO_OP) {
		cls = buf_check(obuf, ocount, odt);
		ARG_CHECK(win, cls, cls, fn, "origin buffer");
		ARG_CHECK(win, !acc_types(odt, (size_t)ocount, tdt,
					  (size_t)tcount),
			  MPI_ERR_TYPE, fn,
			  "origin and target type signatures differ");
	}
	if (gacc) {
		cls = buf_check(rbuf, rcount, rdt);
		ARG_CHECK(win, cls, cls, fn, "result buffer");
		ARG_CHECK(win, !acc_types(rdt, (size_t)rcount, tdt,
					  (size_t)tcount),
			  MPI_ERR_TYPE, fn,
			  "result and target type signatures differ");
	}
	memset(&a, 0, sizeof(a));
	a.kind = gacc ? RC_RMA_GACC : RC_RMA_ACC;
	a.obuf = obuf;
	a.ocount = op->kind == RC_OP_NO_OP ? 0 : (size_t)ocount;
	a.odt = op->kind == RC_OP_NO_OP ? tdt : odt;
	a.rbuf = rbuf;
	a.rcount = (size_t)rcount;
	a.rdt = rdt;
	a.target = target;
	a.disp = disp;
	a.tcount = (size_t)tcount;
	a.tdt = tdt;
	a.op = op;
	return rma_go(win, &a, request, fn);
}

int PMPI_Accumulate(const void *origin_addr, int origin_count,
		    MPI_Datatype origin_datatype, int target_rank,
		    MPI_Aint target_disp, int target_count,
		    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big,
			  accumulate(origin_addr, origin_count,
				     origin_datatype, NULL, 0, NULL,
				     target_rank, target_disp, target_count,
				     target_datatype, op, win, false, NULL,
				     false, "MPI_Accumulate"));
}
RC_WEAK(MPI_Accumulate)

int PMPI_Raccumulate(const void *origin_addr, int origin_count,
		     MPI_Datatype origin_datatype, int target_rank,
		     MPI_Aint target_disp, int target_count,
		     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
		     MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  accumulate(origin_addr, origin_count,
				     origin_datatype, NULL, 0, NULL,
				     target_rank, target_disp, target_count,
				     target_datatype, op, win, true, request,
				     false, "MPI_Raccumulate"));
}
RC_WEAK(MPI_Raccumulate)

int PMPI_Get_accumulate(const void *origin_addr, int origin_count,
			MPI_Datatype origin_datatype, void *result_addr,
			int result_count, MPI_Datatype result_datatype,
			int target_rank, MPI_Aint target_disp,
			int target_count, MPI_Datatype target_datatype,
			MPI_Op op, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big,
			  accumulate(origin_addr, origin_count,
				     origin_datatype, result_addr,
				     result_count, result_datatype,
				     target_rank, target_disp, target_count,
				     target_datatype, op, win, false, NULL,
				     true, "MPI_Get_accumulate"));
}
RC_WEAK(MPI_Get_accumulate)

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
			 MPI_Datatype origin_datatype, void *result_addr,
			 int result_count, MPI_Datatype result_datatype,
			 int target_rank, MPI_Aint target_disp,
			 int target_count, MPI_Datatype target_datatype,
			 MPI_Op op, MPI_Win win, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  accumulate(origin_addr, origin_count,
				     origin_datatype, result_addr,
				     result_count, result_datatype,
				     target_rank, target_disp, target_count,
				     target_datatype, op, win, true, request,
				     true, "MPI_Rget_accumulate"));
}
RC_WEAK(MPI_Rget_accumulate)

/* One predefined 8-byte integer at a rank of the window: every argument
 * check of fetch_and_op and compare_and_swap then holds but the buffers'
 * (rc_rma_word's case; the others take the general path, which says what
 * is wrong). */
static inline bool word_args(const struct rc_win *win, int target,
			     const struct rc_dtype *dt)
{
	return target >= 0 && target < win->comm->size && rc_dt_ok(dt) &&
	       (dt->flags & RC_DT_PREDEFINED) && dt->size == 8 &&
	       rma_basic_is_int(dt->basic);
}

/* rc_rma_word for the API (obuf NULL: add 0): true when it took the call,
 * with its MPI status in *cls. */
static bool word_go(struct rc_win *win, bool cas, const void *obuf,
		    const void *cbuf, void *rbuf, struct rc_dtype *dt,
		    int target, MPI_Aint disp, const char *fn, int *cls)
{
	uint64_t in = 0, cmp = 0;
	int ret;

	if (obuf)
		memcpy(&in, obuf, 8);
	if (cbuf)
		memcpy(&cmp, cbuf, 8);
	ret = rc_rma_word(win, cas, in, cmp, rbuf, target, disp, dt);
	if (ret == RC_AGAIN)
		return false;
	*cls = RC_LIKELY(!ret) ? MPI_SUCCESS : op_fail(win, ret, fn);
	return true;
}

static int fetch_and_op(const void *obuf, void *rbuf, MPI_Datatype dt,
			int target, MPI_Aint disp, MPI_Op op, MPI_Win win)
{
	static const char fn[] = "MPI_Fetch_and_op";
	int cls;

	WIN_ENTER(fn, win);
	if (word_args(win, target, dt) && rbuf &&
	    ((op == &rc_mpi_sum && obuf) || op == &rc_mpi_no_op) &&
	    word_go(win, false, op == &rc_mpi_sum ? obuf : NULL, NULL, rbuf, dt,
		    target, disp, fn, &cls))
		return cls;
	/* one element of a predefined type: get_accumulate */
	if (rc_dt_ok(dt) && !(dt->flags & RC_DT_PREDEFINED))
		return win_err(win, MPI_ERR_TYPE, fn,
			       "a predefined datatype is required");
	return accumulate(obuf, 1, dt, rbuf, 1, dt, target, disp, 1, dt, op,
			  win, false, NULL, true, fn);
}

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr,
		      MPI_Datatype datatype, int target_rank,
		      MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big,
			  fetch_and_op(origin_addr, result_addr, datatype,
				       target_rank, target_disp, op, win));
}
RC_WEAK(MPI_Fetch_and_op)

static int compare_and_swap(const void *obuf, const void *cbuf, void *rbuf,
			    MPI_Datatype dt, int target, MPI_Aint disp,
			    MPI_Win win)
{
	static const char fn[] = "MPI_Compare_and_swap";
	struct rc_rma_args a;
	int cls;

	WIN_ENTER(fn, win);
	if (word_args(win, target, dt) && obuf && cbuf && rbuf &&
	    word_go(win, true, obuf, cbuf, rbuf, dt, target, disp, fn, &cls))
		return cls;
	cls = target_check(win, target, 1, dt, fn);
	if (cls)
		return cls;
	/* C integer, multi-language, byte (where MPI_BAND is defined) and
	 * logical types */
	ARG_CHECK(win, !(dt->flags & RC_DT_PREDEFINED) ||
		  !(rc_op_valid_for(&rc_mpi_band, dt) ||
		    dt->basic == RC_BASIC_C_BOOL), MPI_ERR_TYPE, fn,
		  "an integer, logical or byte datatype is required");
	ARG_CHECK(win, !obuf || !cbuf || !rbuf, MPI_ERR_BUFFER, fn,
		  "NULL buffer");
	memset(&a, 0, sizeof(a));
	a.kind = RC_RMA_CAS;
	a.obuf = obuf;
	a.ocount = 1;
	a.odt = dt;
	a.cbuf = cbuf;
	a.rbuf = rbuf;
	a.rcount = 1;
	a.rdt = dt;
	a.target = target;
	a.disp = disp;
	a.tcount = 1;
	a.tdt = dt;
	return rma_go(win, &a, NULL, fn);
}

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
			  void *result_addr, MPI_Datatype datatype,
			  int target_rank, MPI_Aint target_disp, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big,
			  compare_and_swap(origin_addr, compare_addr,
					   result_addr, datatype, target_rank,
					   target_disp, win));
}
RC_WEAK(MPI_Compare_and_swap)

/* ---- synchronisation ----------------------------------------------------- */

/* Map a start/sync status to the window's handler. */
static int sync_fail(struct rc_win *win, int ret, const char *fn)
{
	if (ret == RC_ERR_RMA_SYNC)
		return win_err(win, MPI_ERR_RMA_SYNC, fn,
			       "does not match the window's open epochs");
	if (ret == RC_ERR_RMA_RANGE)
		return win_err(win, MPI_ERR_RMA_RANGE, fn,
			       "an operation reached beyond a target's "
			       "window");
	return rc_api_status(win->comm, ret, fn);
}

static inline int sync_status(struct rc_win *win, int ret, const char *fn)
{
	return RC_LIKELY(!ret) ? MPI_SUCCESS : sync_fail(win, ret, fn);
}

/* Start a machine with `start`, wait for it. */
#define SYNC_RUN(win, fn, start)                              \
	({                                                    \
		struct rc_req *req_ = NULL;                   \
		int ret_ = (start);                           \
		if (!ret_ && req_) /* (NULL: done at once) */ \
			ret_ = rma_wait(req_);                \
		sync_status(win, ret_, fn);                   \
	})

/* A lock's start: on the SHM path taken at once when nobody holds it. */
static int lock_start(struct rc_win *win, int type, int target, int assert,
		      struct rc_req **reqp)
{
	if (win->shm_path)
		return rc_win_lock_shm(win, type, target, assert, reqp);
	return rc_win_lock_start(win, type, target, assert, reqp);
}

static int win_fence(int assert, MPI_Win win)
{
	static const char fn[] = "MPI_Win_fence";

	WIN_ENTER(fn, win);
	ARG_CHECK(win, assert & ~ASSERT_FENCE, MPI_ERR_ASSERT, fn,
		  "assert not valid for MPI_Win_fence");
	return SYNC_RUN(win, fn, rc_win_fence_start(win, assert, &req_));
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big, win_fence(assert, win));
}
RC_WEAK(MPI_Win_fence)

/* A group's members as window ranks (malloc'd); an error class. */
static int grp_ranks(struct rc_win *win, MPI_Group group, int **out,
		     const char *fn)
{
	int *r, i;

	ARG_CHECK(win, !rc_group_valid(group), MPI_ERR_GROUP, fn,
		  "invalid group");
	r = malloc(sizeof(*r) * (size_t)(group->size ? group->size : 1));
	if (!r)
		return win_err(win, MPI_ERR_NO_MEM, fn, NULL);
	for (i = 0; i < group->size; i++) {
		r[i] = rma_win_rank(win, group->wranks[i]);
		if (r[i] < 0) {
			free(r);
			return win_err(win, MPI_ERR_GROUP, fn,
				       "a group member is not in the window");
		}
	}
	*out = r;
	return MPI_SUCCESS;
}

static int win_post(MPI_Group group, int assert, MPI_Win win)
{
	static const char fn[] = "MPI_Win_post";
	int *r, ret;

	WIN_ENTER(fn, win);
	ARG_CHECK(win, assert & ~ASSERT_POST, MPI_ERR_ASSERT, fn,
		  "assert not valid for MPI_Win_post");
	ret = grp_ranks(win, group, &r, fn);
	if (ret)
		return ret;
	ret = rc_win_post(win, r, group->size, assert);
	free(r);
	return sync_status(win, ret, fn);
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big, win_post(group, assert, win));
}
RC_WEAK(MPI_Win_post)

static int win_start(MPI_Group group, int assert, MPI_Win win)
{
	static const char fn[] = "MPI_Win_start";
	int *r, ret;

	WIN_ENTER(fn, win);
	ARG_CHECK(win, assert & ~MPI_MODE_NOCHECK, MPI_ERR_ASSERT, fn,
		  "assert not valid for MPI_Win_start");
	ret = grp_ranks(win, group, &r, fn);
	if (ret)
		return ret;
	ret = SYNC_RUN(win, fn,
		       rc_win_start_start(win, r, group->size, assert, &req_));
	free(r);
	return ret;
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big, win_start(group, assert, win));
}
RC_WEAK(MPI_Win_start)

static int win_complete(MPI_Win win)
{
	static const char fn[] = "MPI_Win_complete";

	WIN_ENTER(fn, win);
	return SYNC_RUN(win, fn, rc_win_complete_start(win, &req_));
}

int PMPI_Win_complete(MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big, win_complete(win));
}
RC_WEAK(MPI_Win_complete)

static int win_wait(MPI_Win win)
{
	static const char fn[] = "MPI_Win_wait";

	WIN_ENTER(fn, win);
	return SYNC_RUN(win, fn, rc_win_wait_start(win, &req_));
}

int PMPI_Win_wait(MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big, win_wait(win));
}
RC_WEAK(MPI_Win_wait)

static int win_test(MPI_Win win, int *flag)
{
	static const char fn[] = "MPI_Win_test";
	int err;

	WIN_ENTER(fn, win);
	ARG_CHECK(win, !flag, MPI_ERR_ARG, fn, "flag is NULL");
	if (!win->posted)
		return sync_status(win, RC_ERR_RMA_SYNC, fn);
	*flag = rc_win_test(win, &err);
	return sync_status(win, *flag ? err : RC_OK, fn);
}

int PMPI_Win_test(MPI_Win win, int *flag)
{
	return RC_CS_CALL(&rc_cs_big, win_test(win, flag));
}
RC_WEAK(MPI_Win_test)

static int lock_args(struct rc_win *win, int rank, const char *fn)
{
	ARG_CHECK(win, rank != MPI_PROC_NULL &&
		  (rank < 0 || rank >= win->comm->size), MPI_ERR_RANK, fn,
		  "rank out of range");
	return MPI_SUCCESS;
}

static int win_lock(int type, int rank, int assert, MPI_Win win)
{
	static const char fn[] = "MPI_Win_lock";
	int ret;

	WIN_ENTER(fn, win);
	ARG_CHECK(win, type != MPI_LOCK_SHARED && type != MPI_LOCK_EXCLUSIVE,
		  MPI_ERR_LOCKTYPE, fn,
		  "neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE");
	ARG_CHECK(win, assert & ~MPI_MODE_NOCHECK, MPI_ERR_ASSERT, fn,
		  "assert not valid for MPI_Win_lock");
	ret = lock_args(win, rank, fn);
	if (ret || rank == MPI_PROC_NULL)
		return ret;
	return SYNC_RUN(win, fn, lock_start(win, type, rank, assert, &req_));
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big, win_lock(lock_type, rank, assert, win));
}
RC_WEAK(MPI_Win_lock)

static int win_lock_all(int assert, MPI_Win win)
{
	static const char fn[] = "MPI_Win_lock_all";

	WIN_ENTER(fn, win);
	ARG_CHECK(win, assert & ~MPI_MODE_NOCHECK, MPI_ERR_ASSERT, fn,
		  "assert not valid for MPI_Win_lock_all");
	return SYNC_RUN(win, fn,
			lock_start(win, MPI_LOCK_SHARED, -1, assert, &req_));
}

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big, win_lock_all(assert, win));
}
RC_WEAK(MPI_Win_lock_all)

static int win_unlock(int rank, MPI_Win win)
{
	static const char fn[] = "MPI_Win_unlock";
	int ret;

	WIN_ENTER(fn, win);
	ret = lock_args(win, rank, fn);
	if (ret || rank == MPI_PROC_NULL)
		return ret;
	if (rc_win_unlock_direct(win, rank, &ret))
		return sync_status(win, ret, fn);
	return SYNC_RUN(win, fn, rc_win_unlock_start(win, rank, &req_));
}

int PMPI_Win_unlock(int rank, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big, win_unlock(rank, win));
}
RC_WEAK(MPI_Win_unlock)

static int win_unlock_all(MPI_Win win)
{
	static const char fn[] = "MPI_Win_unlock_all";
	int ret;

	WIN_ENTER(fn, win);
	if (rc_win_unlock_direct(win, -1, &ret))
		return sync_status(win, ret, fn);
	return SYNC_RUN(win, fn, rc_win_unlock_start(win, -1, &req_));
}

int PMPI_Win_unlock_all(MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big, win_unlock_all(win));
}
RC_WEAK(MPI_Win_unlock_all)

static int win_flush(int rank, MPI_Win win, bool all, bool local,
		     const char *fn)
{
	int ret;

	WIN_ENTER(fn, win);
	if (!all) {
		ret = lock_args(win, rank, fn);
		if (ret || rank == MPI_PROC_NULL)
			return ret;
	}
	if (rc_win_flush_direct(win, all ? -1 : rank, &ret))
		return sync_status(win, ret, fn);
	return SYNC_RUN(win, fn,
			rc_win_flush_start(win, all ? -1 : rank, local, &req_));
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big,
			  win_flush(rank, win, false, false, "MPI_Win_flush"));
}
RC_WEAK(MPI_Win_flush)

int PMPI_Win_flush_all(MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big,
			  win_flush(0, win, true, false, "MPI_Win_flush_all"));
}
RC_WEAK(MPI_Win_flush_all)

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big, win_flush(rank, win, false, true,
						"MPI_Win_flush_local"));
}
RC_WEAK(MPI_Win_flush_local)

int PMPI_Win_flush_local_all(MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big, win_flush(0, win, true, true,
						"MPI_Win_flush_local_all"));
}
RC_WEAK(MPI_Win_flush_local_all)

static int win_sync(MPI_Win win)
{
	WIN_ENTER("MPI_Win_sync", win);
	rc_win_sync(win);
	return MPI_SUCCESS;
}

int PMPI_Win_sync(MPI_Win win)
{
	return RC_CS_CALL(&rc_cs_big, win_sync(win));
}
RC_WEAK(MPI_Win_sync)

/* ---- window services ----------------------------------------------------- */

/* A predefined window attribute's value: a pointer to it (MPI_WIN_BASE:
 * the base itself). */
static void *win_predef(void *handle, int key)
{
	struct rc_win *win = handle;

	switch (key) {
	case MPI_WIN_BASE:
		return win->base;
	case MPI_WIN_SIZE:
		return &win->size;
	case MPI_WIN_DISP_UNIT:
		return &win->disp_unit;
	case MPI_WIN_CREATE_FLAVOR:
		return &win->flavor;
	case MPI_WIN_MODEL:
		return &win->model;
	default:
		return NULL;
	}
}

static int win_obj(MPI_Win win, struct rc_attr_obj *o, const char *fn)
{
	WIN_ENTER(fn, win);
	*o = (struct rc_attr_obj){RC_AK_WIN, win, &win->attrs, win->comm,
				  win_predef};
	return MPI_SUCCESS;
}

static int win_get_attr(MPI_Win win, int key, void *val, int *flag)
{
	static const char fn[] = "MPI_Win_get_attr";
	struct rc_attr_obj o;
	int err = win_obj(win, &o, fn);

	if (err)
		return err;
	err = rc_attr_api_get(&o, key, val, flag, fn);
	/* MPI_WIN_BASE of a window without memory is NULL, and set */
	if (!err && key == MPI_WIN_BASE) {
		memcpy(val, &win->base, sizeof(win->base));
		*flag = 1;
	}
	return err;
}

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val,
		      int *flag)
{
	return RC_CS_CALL(&rc_cs_big,
			  win_get_attr(win, win_keyval, attribute_val, flag));
}
RC_WEAK(MPI_Win_get_attr)

static int win_set_attr(MPI_Win win, int key, void *val)
{
	static const char fn[] = "MPI_Win_set_attr";
	struct rc_attr_obj o;
	int err = win_obj(win, &o, fn);

	return err ? err : rc_attr_api_set(&o, key, val, fn);
}

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
	return RC_CS_CALL(&rc_cs_big,
			  win_set_attr(win, win_keyval, attribute_val));
}
RC_WEAK(MPI_Win_set_attr)

static int win_delete_attr(MPI_Win win, int key)
{
	static const char fn[] = "MPI_Win_delete_attr";
	struct rc_attr_obj o;
	int err = win_obj(win, &o, fn);

	return err ? err : rc_attr_api_delete(&o, key, fn);
}

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
	return RC_CS_CALL(&rc_cs_big, win_delete_attr(win, win_keyval));
}
RC_WEAK(MPI_Win_delete_attr)

static int win_get_group(MPI_Win win, MPI_Group *group)
{
	WIN_ENTER("MPI_Win_get_group", win);
	ARG_CHECK(win, !group, MPI_ERR_ARG, "MPI_Win_get_group",
		  "group is NULL");
	rc_group_retain(win->comm->group);
	*group = win->comm->group;
	return MPI_SUCCESS;
}

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
	return RC_CS_CALL(&rc_cs_big, win_get_group(win, group));
}
RC_WEAK(MPI_Win_get_group)

static int win_set_name(MPI_Win win, const char *name)
{
	WIN_ENTER("MPI_Win_set_name", win);
	ARG_CHECK(win, !name, MPI_ERR_ARG, "MPI_Win_set_name", "name is NULL");
	/* longer names are truncated, as the standard allows */
	snprintf(win->name, sizeof(win->name), "%s", name);
	return MPI_SUCCESS;
}

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
	return RC_CS_CALL(&rc_cs_big, win_set_name(win, win_name));
}
RC_WEAK(MPI_Win_set_name)

static int win_get_name(MPI_Win win, char *name, int *resultlen)
{
	WIN_ENTER("MPI_Win_get_name", win);
	ARG_CHECK(win, !name || !resultlen, MPI_ERR_ARG, "MPI_Win_get_name",
		  "NULL out-argument");
	snprintf(name, MPI_MAX_OBJECT_NAME, "%s", win->name);
	*resultlen = (int)strlen(name);
	return MPI_SUCCESS;
}

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
	return RC_CS_CALL(&rc_cs_big, win_get_name(win, win_name, resultlen));
}
RC_WEAK(MPI_Win_get_name)

static int win_set_errhandler(MPI_Win win, MPI_Errhandler eh)
{
	static const char fn[] = "MPI_Win_set_errhandler";

	WIN_ENTER(fn, win);
	if (!rc_hobj_is(eh, RC_HK_ERRH))
		return rc_err_handle(win->comm, RC_HK_ERRH, eh, fn);
	ARG_CHECK(win, !rc_errh_serves(eh, RC_EHO_WIN), MPI_ERR_ARG, fn,
		  "the error handler is not a window's");
	rc_errh_retain(eh);
	rc_errh_release(win->comm->errh);
	win->comm->errh = eh;
	return MPI_SUCCESS;
}

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
	return RC_CS_CALL(&rc_cs_big, win_set_errhandler(win, errhandler));
}
RC_WEAK(MPI_Win_set_errhandler)

static int win_get_errhandler(MPI_Win win, MPI_Errhandler *eh)
{
	WIN_ENTER("MPI_Win_get_errhandler", win);
	ARG_CHECK(win, !eh, MPI_ERR_ARG, "MPI_Win_get_errhandler",
		  "errhandler is NULL");
	/* a new reference: the program frees it */
	rc_errh_retain(win->comm->errh);
	*eh = win->comm->errh;
	return MPI_SUCCESS;
}

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
	return RC_CS_CALL(&rc_cs_big, win_get_errhandler(win, errhandler));
}
RC_WEAK(MPI_Win_get_errhandler)

static int win_call_errhandler(MPI_Win win, int code)
{
	WIN_ENTER("MPI_Win_call_errhandler", win);
	/* the handler ran (and returned): success, whatever the code */
	win_err(win, code, "MPI_Win_call_errhandler", NULL);
	return MPI_SUCCESS;
}

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
	return RC_CS_CALL(&rc_cs_big, win_call_errhandler(win, errorcode));
}
RC_WEAK(MPI_Win_call_errhandler)

static int win_set_info(MPI_Win win, MPI_Info info)
{
	static const char fn[] = "MPI_Win_set_info";

	WIN_ENTER(fn, win);
	if (!rc_info_valid(info))
		return rc_err_handle(win->comm, RC_HK_INFO, info, fn);
	/* hints not named keep their values */
	hints_read(info, false, &win->info, &win->acc_order, &win->acc_same_op);
	return MPI_SUCCESS;
}

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
	return RC_CS_CALL(&rc_cs_big, win_set_info(win, info));
}
RC_WEAK(MPI_Win_set_info)

static int win_get_info(MPI_Win win, MPI_Info *info_used)
{
	static const char fn[] = "MPI_Win_get_info";
	struct rc_info *i;

	WIN_ENTER(fn, win);
	ARG_CHECK(win, !info_used, MPI_ERR_ARG, fn, "info_used is NULL");
	if (hints_write(win, &i))
		return win_err(win, MPI_ERR_NO_MEM, fn, NULL);
	*info_used = i;
	return MPI_SUCCESS;
}

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
	return RC_CS_CALL(&rc_cs_big, win_get_info(win, info_used));
}
RC_WEAK(MPI_Win_get_info)
