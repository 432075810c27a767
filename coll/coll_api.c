/*
 * coll_api.c - the MPI collective functions, blocking and nonblocking:
 * argument checks (error classes raised on the communicator), then one
 * schedule (coll.c) - run to completion on the caller's stack for the
 * blocking call, started as a pooled request for the I-variant.
 *
 * Arguments that the standard calls insignificant on a rank (the receive
 * side of a gather on non-roots, the send side under MPI_IN_PLACE, ...)
 * are neither checked nor used there. Errors: MPI_ERR_COMM, MPI_ERR_ROOT,
 * MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_OP (also an op not defined on the
 * type), MPI_ERR_BUFFER (MPI_IN_PLACE where not allowed, a NULL buffer
 * with data, one pointer for send and receive buffers whose touched bytes
 * overlap: see aliased() below), MPI_ERR_ARG (a NULL request or count
 * array). Intercommunicators: below. The persistent calls of MPI-4
 * (MPI_Bcast_init, ...) check and build like the nonblocking ones and
 * make a persistent request (rc_coll_init) that MPI_Start runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "coll_impl.h"
#include "dtype.h"
#include "info.h"
#include "op.h"
#include "thread.h"
#include "topo.h"

/*
 * The handle a check below found bad, for the error message: the checks
 * return a class, and CHK names the handle (one MPI call at a time per
 * thread, and only on the error path).
 */
static __thread const void *chk_bad;
static __thread enum rc_hkind chk_bad_kind;
static __thread bool chk_bad_set;

static int chk_bad_handle(enum rc_hkind kind, const void *h)
{
	chk_bad = h;
	chk_bad_kind = kind;
	chk_bad_set = true;
	return rc_hkind_class(kind);
}

static int chk_raise(struct rc_comm *comm, int cls, const char *fn,
		     const char *msg)
{
	const void *h = chk_bad;
	bool set = chk_bad_set;

	chk_bad_set = false;
	if (msg || !set || cls != rc_hkind_class(chk_bad_kind))
		return RC_ERR_MSG(comm, cls, fn, msg);
	if (chk_bad_kind == RC_HK_DTYPE)
		return rc_err_dtype(comm, (const struct rc_dtype *)h, fn);
	return rc_err_handle(comm, chk_bad_kind, h, fn);
}

/* Common checks; each returns 0 or an MPI error class. */
static int chk_data(const void *buf, int count, struct rc_dtype *dt)
{
	if (RC_UNLIKELY(count < 0))
		return MPI_ERR_COUNT;
	if (RC_UNLIKELY(!rc_dt_valid(dt)))
		return chk_bad_handle(RC_HK_DTYPE, dt);
	if (RC_UNLIKELY(buf == MPI_IN_PLACE))
		return MPI_ERR_BUFFER;
	if (RC_UNLIKELY(!buf && count > 0 && (dt->flags & RC_DT_PREDEFINED)))
		return MPI_ERR_BUFFER;
	return MPI_SUCCESS;
}

static int chk_counts(const int *counts, const int *displs, int n,
		      struct rc_dtype *dt, const void *buf)
{
	int i;

	if (RC_UNLIKELY(!counts || !displs))
		return MPI_ERR_ARG;
	if (RC_UNLIKELY(!rc_dt_valid(dt)))
		return chk_bad_handle(RC_HK_DTYPE, dt);
	if (RC_UNLIKELY(buf == MPI_IN_PLACE))
		return MPI_ERR_BUFFER;
	for (i = 0; i < n; i++)
		if (RC_UNLIKELY(counts[i] < 0))
			return MPI_ERR_COUNT;
	return MPI_SUCCESS;
}

static int chk_op(struct rc_op *op, struct rc_dtype *dt)
{
	if (RC_UNLIKELY(!rc_op_ok(op)))
		return chk_bad_handle(RC_HK_OP, op);
	if (RC_UNLIKELY(!rc_op_valid_for(op, dt)))
		return MPI_ERR_OP;
	return MPI_SUCCESS;
}

/*
 * Aliasing: the standard forbids send and receive buffers that overlap
 * (MPI_IN_PLACE is the way to share one). We refuse them when the bytes
 * the call really touches on each side meet, wherever the two pointers
 * point: zero counts touch nothing (language bindings pass one address
 * for every empty array), and disjoint parts of one buffer are legal. Not
 * only one pointer passed for both: MPI_Allgather's sendbuf at the
 * caller's own slot of recvbuf is refused at rank 0 as one pointer, so it
 * must be at every other rank too, or they would wait for rank 0 forever.
 * A side is one run of `count` elements, or, for the v-forms, n blocks of
 * counts[i] elements at displs[i] extents; a block's bytes are taken as
 * the span from its first to its last data byte.
 */
struct side {
	const struct rc_dtype *dt;
	size_t count;		    /* one block (counts NULL) */
	const int *counts, *displs; /* v-forms: n blocks */
	int n;
	ptrdiff_t base; /* the buffer's address (aliased() sets it) */
};

struct span {
	ptrdiff_t lo, hi; /* [lo, hi): addresses */
};

static struct side side1(const struct rc_dtype *dt, size_t count)
{
	return (struct side){ .dt = dt, .count = count, .n = 1 };
}

static struct side sidev(const struct rc_dtype *dt, const int *counts,
			 const int *displs, int n)
{
	return (struct side){ .dt = dt, .counts = counts, .displs = displs,
			      .n = n };
}

/* Block i's span; false when it touches nothing. Arithmetic that
 * overflows saturates (such a call fails later in any case). */
static bool block_span(const struct side *sd, int i, struct span *sp)
{
	const struct rc_dtype *dt = sd->dt;
	ptrdiff_t ext = rc_dt_extent(dt), at = 0;
	size_t n = sd->counts ? (size_t)sd->counts[i] : sd->count;

	if (sd->counts &&
	    __builtin_mul_overflow((ptrdiff_t)sd->displs[i], ext, &at))
		at = (sd->displs[i] < 0) == (ext < 0) ? PTRDIFF_MAX / 2
						      : PTRDIFF_MIN / 2;
	return rc_dt_span(dt, n, sd->base + at, &sp->lo, &sp->hi);
}

/* The span of all of a side's blocks; false when it touches nothing. */
static bool side_hull(const struct side *sd, struct span *h)
{
	struct span sp;
	bool any = false;
	int i;

	for (i = 0; i < sd->n; i++) {
		if (!block_span(sd, i, &sp))
			continue;
		if (!any || sp.lo < h->lo)
			h->lo = sp.lo;
		if (!any || sp.hi > h->hi)
			h->hi = sp.hi;
		any = true;
	}
	return any;
}

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Does any block of a meet one of b's? */
static bool sides_meet(const struct side *a, const struct side *b)
{
	struct span sa, sb, *v;
	int i, j, k, lo, hi, m;
	bool meet = false;

	/* separate buffers, the usual case: their hulls do not meet */
	if (!side_hull(a, &sa) || !side_hull(b, &sb) || sa.hi <= sb.lo ||
	    sb.hi <= sa.lo)
		return false;
	if (a->n > b->n) {
		const struct side *t = a;

		a = b;
		b = t;
	}
	if (a->n == 1) {
		if (!block_span(a, 0, &sa))
			return false;
		for (j = 0; j < b->n; j++)
			if (block_span(b, j, &sb) && sb.lo < sa.hi &&
			    sa.lo < sb.hi)
				return true;
		return false;
	}
	/* both v-forms: a's blocks sorted and merged, each of b's searched */
	v = malloc(sizeof(*v) * (size_t)a->n);
	if (!v)
		return false; /* cannot tell: let the call proceed */
	for (i = k = 0; i < a->n; i++)
		if (block_span(a, i, &v[k]))
			k++;
	qsort(v, (size_t)k, sizeof(*v), span_cmp);
	for (i = 0, m = 0; i < k; i++) {
		if (m && v[i].lo < v[m - 1].hi) {
			if (v[i].hi > v[m - 1].hi)
				v[m - 1].hi = v[i].hi;
		} else {
			v[m++] = v[i];
		}
	}
	for (j = 0; j < b->n && !meet; j++) {
		if (!block_span(b, j, &sb))
			continue;
		/* the last merged span starting below sb.hi */
		for (lo = 0, hi = m; lo < hi;) {
			int mid = lo + (hi - lo) / 2;

			if (v[mid].lo < sb.hi)
				lo = mid + 1;
			else
				hi = mid;
		}
		meet = lo > 0 && v[lo - 1].hi > sb.lo;
	}
	free(v);
	return meet;
}

/* Send and receive buffers (not IN_PLACE) whose touched bytes meet. */
static bool aliased(const void *s, struct side *ss, const void *r,
		    struct side *rs)
{
	if (s == MPI_IN_PLACE)
		return false;
	ss->base = (ptrdiff_t)(intptr_t)s;
	rs->base = (ptrdiff_t)(intptr_t)r;
	return sides_meet(ss, rs);
}

#define CHK_ALIAS(comm, fn, s, ss, r, rs)                                     \
	do {                                                                  \
		struct side ss_ = (ss), rs_ = (rs);                           \
		CHK(comm, aliased((s), &ss_, (r), &rs_) ? MPI_ERR_BUFFER : 0, \
		    fn, "sendbuf and recvbuf overlap");                       \
	} while (0)

#define COLL_ENTER(fn, comm, req)                                          \
	do {                                                               \
		RC_API_CHECK_INIT(fn);                                     \
		if (RC_UNLIKELY(!rc_comm_valid(comm)))                     \
			return rc_err_handle(NULL, RC_HK_COMM, comm, fn);  \
		if (RC_UNLIKELY((req) == RC_NOREQ_BAD))                    \
			return RC_ERR(comm, MPI_ERR_ARG, fn);              \
	} while (0)

/* Nonblocking calls must pass a request pointer; blocking calls pass
 * RC_BLOCKING. */
static MPI_Request rc_blocking_slot;
#define RC_BLOCKING (&rc_blocking_slot)
#define RC_NOREQ_BAD ((MPI_Request *)0)

#define CHK(comm, cls, fn, msg)                              \
	do {                                                 \
		int c_ = (cls);                              \
		if (RC_UNLIKELY(c_))                         \
			return chk_raise(comm, c_, fn, msg); \
	} while (0)

#define CHK_ROOT(comm, root, fn)                                           \
	CHK(comm, ((root) < 0 || (root) >= (comm)->size) ? MPI_ERR_ROOT : 0, \
	    fn, "root out of range")

/* Persistent calls (*_init) pass their request pointer with its low bit
 * set (a pointer to an MPI_Request is aligned): the checks and argument
 * building below are the nonblocking call's, coll_go makes the request. */
#define RC_PERSIST(req) ((MPI_Request *)((uintptr_t)(req) | 1u))
#define RC_IS_PERSIST(req) (((uintptr_t)(req)&1u) != 0)
#define RC_UNPERSIST(req) ((MPI_Request *)((uintptr_t)(req) & ~(uintptr_t)1u))

static int coll_go(MPI_Comm comm, int coll, struct rc_cargs *a,
		   MPI_Request *req, const char *fn)
{
	int ret;

	if (req == RC_BLOCKING)
		ret = rc_coll_run(comm, coll, a);
	else if (RC_UNLIKELY(RC_IS_PERSIST(req)))
		ret = rc_coll_init(comm, coll, a, RC_UNPERSIST(req));
	else
		ret = rc_coll_start(comm, coll, a, req);
	return rc_api_status(comm, ret, fn);
}

/* ---- intercommunicators -------------------------------------------------- */

/*
 * On an intercommunicator (MPI-3.1 §5.2.2) the rooted collectives take
 * MPI_ROOT at the root, MPI_PROC_NULL in the rest of its group (nothing
 * of theirs is significant) and the root's rank in the other group;
 * counts and displacements name the remote group's ranks; MPI_IN_PLACE is
 * invalid everywhere (MPI_ERR_BUFFER) and scan / exscan do not exist
 * (MPI_ERR_COMM).
 */
static int chk_inplace(MPI_Comm comm, const void *buf)
{
	return buf == MPI_IN_PLACE && rc_comm_is_inter(comm) ? MPI_ERR_BUFFER
							     : 0;
}

#define NO_INPLACE_MSG "MPI_IN_PLACE on an intercommunicator"

static int chk_inter_root(MPI_Comm comm, int root)
{
	if (root == MPI_ROOT || root == MPI_PROC_NULL)
		return 0;
	return root < 0 || root >= comm->rgroup->size ? MPI_ERR_ROOT : 0;
}

static int inter_bcast(void *buf, int count, MPI_Datatype dt, int root,
		       MPI_Comm comm, MPI_Request *req, const char *fn)
{
	struct rc_cargs a;

	CHK(comm, chk_inter_root(comm, root), fn, "root out of range");
	memset(&a, 0, sizeof(a));
	a.root = root;
	if (root != MPI_PROC_NULL) {
		CHK(comm, chk_data(buf, count, dt), fn, NULL);
		a.rbuf = buf;
		a.count = (size_t)count;
		a.dt = dt;
	}
	return coll_go(comm, RC_COLL_BCAST, &a, req, fn);
}

static int inter_reduce(const void *sbuf, void *rbuf, int count,
			MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
			MPI_Request *req, const char *fn)
{
	struct rc_cargs a;

	CHK(comm, chk_inter_root(comm, root), fn, "root out of range");
	memset(&a, 0, sizeof(a));
	a.root = root;
	if (root == MPI_PROC_NULL)
		return coll_go(comm, RC_COLL_REDUCE, &a, req, fn);
	/* the root receives, the other group sends */
	CHK(comm, chk_data(root == MPI_ROOT ? rbuf : sbuf, count, dt), fn,
	    NULL);
	CHK(comm, chk_op(op, dt), fn, NULL);
	if (root == MPI_ROOT)
		a.rbuf = rbuf;
	else
		a.sbuf = sbuf;
	a.count = (size_t)count;
	a.dt = dt;
	a.op = op;
	return coll_go(comm, RC_COLL_REDUCE, &a, req, fn);
}

/* Gather(v) and scatter(v): the root's side (counts over the remote
 * group) and the other group's single block. */
static int inter_rooted(int coll, const void *sbuf, int scount,
			const int *scounts, const int *sdispls,
			MPI_Datatype sdt, void *rbuf, int rcount,
			const int *rcounts, const int *rdispls,
			MPI_Datatype rdt, int root, MPI_Comm comm,
			MPI_Request *req, const char *fn)
{
	bool gather = coll == RC_COLL_GATHER || coll == RC_COLL_GATHERV;
	bool v = coll == RC_COLL_GATHERV || coll == RC_COLL_SCATTERV;
	int m = comm->rgroup->size;
	struct rc_cargs a;

	CHK(comm, chk_inter_root(comm, root), fn, "root out of range");
	memset(&a, 0, sizeof(a));
	a.root = root;
	if (root == MPI_ROOT && gather) {
		CHK(comm,
		    v ? chk_counts(rcounts, rdispls, m, rdt, rbuf)
		      : chk_data(rbuf, rcount, rdt),
		    fn, NULL);
		a.rbuf = rbuf;
		a.rcount = v ? 0 : (size_t)rcount;
		a.rcounts = rcounts;
		a.rdispls = rdispls;
		a.rdt = rdt;
	} else if (root == MPI_ROOT) {
		CHK(comm,
		    v ? chk_counts(scounts, sdispls, m, sdt, sbuf)
		      : chk_data(sbuf, scount, sdt),
		    fn, NULL);
		a.sbuf = sbuf;
		a.scount = v ? 0 : (size_t)scount;
		a.scounts = scounts;
		a.sdispls = sdispls;
		a.sdt = sdt;
	} else if (root != MPI_PROC_NULL && gather) {
		CHK(comm, chk_data(sbuf, scount, sdt), fn, NULL);
		a.sbuf = sbuf;
		a.scount = (size_t)scount;
		a.sdt = sdt;
	} else if (root != MPI_PROC_NULL) {
		CHK(comm, chk_data(rbuf, rcount, rdt), fn, NULL);
		a.rbuf = rbuf;
		a.rcount = (size_t)rcount;
		a.rdt = rdt;
	}
	return coll_go(comm, coll, &a, req, fn);
}

/* ---- barrier, bcast ------------------------------------------------------ */

static int barrier(MPI_Comm comm, MPI_Request *req, const char *fn)
{
	struct rc_cargs a;

	COLL_ENTER(fn, comm, req);
	memset(&a, 0, sizeof(a));
	return coll_go(comm, RC_COLL_BARRIER, &a, req, fn);
}

int PMPI_Barrier(MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  barrier(comm, RC_BLOCKING, "MPI_Barrier"));
}
RC_WEAK(MPI_Barrier)

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, barrier(comm, request, "MPI_Ibarrier"));
}
RC_WEAK(MPI_Ibarrier)

static int bcast(void *buf, int count, MPI_Datatype dt, int root,
		 MPI_Comm comm, MPI_Request *req, const char *fn)
{
	struct rc_cargs a;

	COLL_ENTER(fn, comm, req);
	if (RC_UNLIKELY(rc_comm_is_inter(comm)))
		return inter_bcast(buf, count, dt, root, comm, req, fn);
	CHK_ROOT(comm, root, fn);
	CHK(comm, chk_data(buf, count, dt), fn, NULL);
	memset(&a, 0, sizeof(a));
	a.rbuf = buf;
	a.count = (size_t)count;
	a.dt = dt;
	a.root = root;
	return coll_go(comm, RC_COLL_BCAST, &a, req, fn);
}

int PMPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big, bcast(buf, count, dt, root, comm,
					    RC_BLOCKING, "MPI_Bcast"));
}
RC_WEAK(MPI_Bcast)

int PMPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root,
		MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, bcast(buf, count, dt, root, comm, request,
					    "MPI_Ibcast"));
}
RC_WEAK(MPI_Ibcast)

/* ---- reductions ---------------------------------------------------------- */

/* sendbuf may be IN_PLACE (when in_place_ok), recvbuf may not; the
 * receive side holds count elements, the send side scount. */
static int chk_red(const void *sbuf, const void *rbuf, int count, size_t scount,
		   struct rc_dtype *dt, struct rc_op *op, bool in_place_ok,
		   bool check_rbuf)
{
	struct side ss, rs;
	int cls;

	if (sbuf == MPI_IN_PLACE) {
		if (!in_place_ok)
			return MPI_ERR_BUFFER;
		if (count < 0)
			return MPI_ERR_COUNT;
		if (!rc_dt_valid(dt))
			return chk_bad_handle(RC_HK_DTYPE, dt);
	} else {
		cls = chk_data(sbuf, count, dt);
		if (cls)
			return cls;
	}
	if (check_rbuf) {
		cls = chk_data(rbuf, count, dt);
		if (cls)
			return cls;
		ss = side1(dt, scount);
		rs = side1(dt, (size_t)count);
		if (aliased(sbuf, &ss, rbuf, &rs))
			return MPI_ERR_BUFFER;
	}
	return chk_op(op, dt);
}

static void red_args(struct rc_cargs *a, const void *sbuf, void *rbuf,
		     int count, MPI_Datatype dt, MPI_Op op, int root)
{
	memset(a, 0, sizeof(*a));
	a->sbuf = sbuf;
	a->rbuf = rbuf;
	a->count = (size_t)count;
	a->dt = dt;
	a->op = op;
	a->root = root;
}

static int reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
		  MPI_Op op, int root, MPI_Comm comm, MPI_Request *req,
		  const char *fn)
{
	struct rc_cargs a;
	bool isroot;

	COLL_ENTER(fn, comm, req);
	if (RC_UNLIKELY(rc_comm_is_inter(comm)))
		return inter_reduce(sbuf, rbuf, count, dt, op, root, comm, req,
				    fn);
	CHK_ROOT(comm, root, fn);
	isroot = comm->rank == root;
	CHK(comm,
	    chk_red(sbuf, rbuf, count, (size_t)count, dt, op, isroot, isroot),
	    fn, NULL);
	red_args(&a, sbuf, isroot ? rbuf : NULL, count, dt, op, root);
	return coll_go(comm, RC_COLL_REDUCE, &a, req, fn);
}

int PMPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
		MPI_Op op, int root, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big, reduce(sbuf, rbuf, count, dt, op, root,
					     comm, RC_BLOCKING, "MPI_Reduce"));
}
RC_WEAK(MPI_Reduce)

int PMPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
		 MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, reduce(sbuf, rbuf, count, dt, op, root,
					     comm, request, "MPI_Ireduce"));
}
RC_WEAK(MPI_Ireduce)

/* Allreduce, Scan, Exscan: the same arguments. */
static int allred(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
		  MPI_Op op, MPI_Comm comm, MPI_Request *req, int coll,
		  const char *fn)
{
	struct rc_cargs a;

	COLL_ENTER(fn, comm, req);
	if (RC_UNLIKELY(rc_comm_is_inter(comm) && coll != RC_COLL_ALLREDUCE))
		return RC_ERR_MSG(comm, MPI_ERR_COMM, fn,
				  "not defined on an intercommunicator");
	CHK(comm, chk_inplace(comm, sbuf), fn, NO_INPLACE_MSG);
	CHK(comm, chk_red(sbuf, rbuf, count, (size_t)count, dt, op, true, true),
	    fn, NULL);
	red_args(&a, sbuf, rbuf, count, dt, op, 0);
	return coll_go(comm, coll, &a, req, fn);
}

int PMPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
		   MPI_Op op, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  allred(sbuf, rbuf, count, dt, op, comm, RC_BLOCKING,
				 RC_COLL_ALLREDUCE, "MPI_Allreduce"));
}
RC_WEAK(MPI_Allreduce)

int PMPI_Iallreduce(const void *sbuf, void *rbuf, int count,
		    MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
		    MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  allred(sbuf, rbuf, count, dt, op, comm, request,
				 RC_COLL_ALLREDUCE, "MPI_Iallreduce"));
}
RC_WEAK(MPI_Iallreduce)

int PMPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
	      MPI_Op op, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  allred(sbuf, rbuf, count, dt, op, comm, RC_BLOCKING,
				 RC_COLL_SCAN, "MPI_Scan"));
}
RC_WEAK(MPI_Scan)

int PMPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
	       MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  allred(sbuf, rbuf, count, dt, op, comm, request,
				 RC_COLL_SCAN, "MPI_Iscan"));
}
RC_WEAK(MPI_Iscan)

int PMPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
		MPI_Op op, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  allred(sbuf, rbuf, count, dt, op, comm, RC_BLOCKING,
				 RC_COLL_EXSCAN, "MPI_Exscan"));
}
RC_WEAK(MPI_Exscan)

int PMPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
		 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  allred(sbuf, rbuf, count, dt, op, comm, request,
				 RC_COLL_EXSCAN, "MPI_Iexscan"));
}
RC_WEAK(MPI_Iexscan)

/* The send side: rcount elements for each process of the caller's own
 * group (an intercommunicator's too: its vector is scattered over the
 * other group, whose processes take that group's rcount each). */
static int redscat_block(const void *sbuf, void *rbuf, int rcount,
			 MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
			 MPI_Request *req, const char *fn)
{
	struct rc_cargs a;

	COLL_ENTER(fn, comm, req);
	CHK(comm, chk_inplace(comm, sbuf), fn, NO_INPLACE_MSG);
	CHK(comm,
	    chk_red(sbuf, rbuf, rcount,
		    (size_t)(rcount > 0 ? rcount : 0) * (size_t)comm->size, dt,
		    op, true, true),
	    fn, NULL);
	red_args(&a, sbuf, rbuf, rcount, dt, op, 0);
	return coll_go(comm, RC_COLL_REDUCE_SCATTER_BLOCK, &a, req, fn);
}

int PMPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
			      MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  redscat_block(sbuf, rbuf, rcount, dt, op, comm,
					RC_BLOCKING,
					"MPI_Reduce_scatter_block"));
}
RC_WEAK(MPI_Reduce_scatter_block)

int PMPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
			       MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
			       MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  redscat_block(sbuf, rbuf, rcount, dt, op, comm,
					request, "MPI_Ireduce_scatter_block"));
}
RC_WEAK(MPI_Ireduce_scatter_block)

static int redscat(const void *sbuf, void *rbuf, const int rcounts[],
		   MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
		   MPI_Request *req, const char *fn)
{
	struct rc_cargs a;
	size_t total = 0;
	int i;

	COLL_ENTER(fn, comm, req);
	if (!rcounts)
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn, "recvcounts is NULL");
	for (i = 0; i < comm->size; i++) {
		CHK(comm, rcounts[i] < 0 ? MPI_ERR_COUNT : 0, fn,
		    "negative receive count");
		total += (size_t)rcounts[i];
	}
	CHK(comm, chk_inplace(comm, sbuf), fn, NO_INPLACE_MSG);
	CHK(comm,
	    chk_red(sbuf, rbuf, rcounts[comm->rank], total, dt, op, true, true),
	    fn, NULL);
	red_args(&a, sbuf, rbuf, 0, dt, op, 0);
	a.rcounts = rcounts;
	return coll_go(comm, RC_COLL_REDUCE_SCATTER, &a, req, fn);
}

int PMPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
			MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  redscat(sbuf, rbuf, rcounts, dt, op, comm,
				  RC_BLOCKING, "MPI_Reduce_scatter"));
}
RC_WEAK(MPI_Reduce_scatter)

int PMPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
			 MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
			 MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, redscat(sbuf, rbuf, rcounts, dt, op, comm,
					      request, "MPI_Ireduce_scatter"));
}
RC_WEAK(MPI_Ireduce_scatter)

/* ---- gather, scatter ----------------------------------------------------- */

static void xfer_args(struct rc_cargs *a, const void *sbuf, int scount,
		      MPI_Datatype sdt, void *rbuf, int rcount,
		      MPI_Datatype rdt, int root)
{
	memset(a, 0, sizeof(*a));
	a->sbuf = sbuf;
	a->scount = scount > 0 ? (size_t)scount : 0;
	a->sdt = sdt;
	a->rbuf = rbuf;
	a->rcount = rcount > 0 ? (size_t)rcount : 0;
	a->rdt = rdt;
	a->root = root;
}

static int gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
		  int rcount, MPI_Datatype rdt, const int *rcounts,
		  const int *rdispls, int root, MPI_Comm comm,
		  MPI_Request *req, bool v, const char *fn)
{
	struct rc_cargs a;
	bool isroot, inplace;

	COLL_ENTER(fn, comm, req);
	if (RC_UNLIKELY(rc_comm_is_inter(comm)))
		return inter_rooted(v ? RC_COLL_GATHERV : RC_COLL_GATHER, sbuf,
				    scount, NULL, NULL, sdt, rbuf, rcount,
				    rcounts, rdispls, rdt, root, comm, req, fn);
	CHK_ROOT(comm, root, fn);
	isroot = comm->rank == root;
	inplace = isroot && sbuf == MPI_IN_PLACE;
	if (!inplace)
		CHK(comm, chk_data(sbuf, scount, sdt), fn, NULL);
	if (isroot) {
		if (v)
			CHK(comm, chk_counts(rcounts, rdispls, comm->size, rdt,
					     rbuf),
			    fn, NULL);
		else
			CHK(comm, chk_data(rbuf, rcount, rdt), fn, NULL);
		if (!inplace)
			CHK_ALIAS(comm, fn, sbuf, side1(sdt, (size_t)scount),
				  rbuf,
				  v ? sidev(rdt, rcounts, rdispls, comm->size)
				    : side1(rdt, (size_t)rcount *
							 (size_t)comm->size));
	}
	xfer_args(&a, sbuf, scount, inplace ? NULL : sdt, isroot ? rbuf : NULL,
		  rcount, isroot ? rdt : NULL, root);
	if (v && isroot) {
		a.rcounts = rcounts;
		a.rdispls = rdispls;
	}
	return coll_go(comm, v ? RC_COLL_GATHERV : RC_COLL_GATHER, &a, req, fn);
}

int PMPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
		int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big, gather(sbuf, scount, sdt, rbuf, rcount,
					     rdt, NULL, NULL, root, comm,
					     RC_BLOCKING, false, "MPI_Gather"));
}
RC_WEAK(MPI_Gather)

int PMPI_Igather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
		 int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
		 MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, gather(sbuf, scount, sdt, rbuf, rcount,
					     rdt, NULL, NULL, root, comm,
					     request, false, "MPI_Igather"));
}
RC_WEAK(MPI_Igather)

int PMPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
		 const int rcounts[], const int displs[], MPI_Datatype rdt,
		 int root, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big, gather(sbuf, scount, sdt, rbuf, 0, rdt,
					     rcounts, displs, root, comm,
					     RC_BLOCKING, true, "MPI_Gatherv"));
}
RC_WEAK(MPI_Gatherv)

int PMPI_Igatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
		  const int rcounts[], const int displs[], MPI_Datatype rdt,
		  int root, MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, gather(sbuf, scount, sdt, rbuf, 0, rdt,
					     rcounts, displs, root, comm,
					     request, true, "MPI_Igatherv"));
}
RC_WEAK(MPI_Igatherv)

static int scatter(const void *sbuf, int scount, const int *scounts,
		   const int *sdispls, MPI_Datatype sdt, void *rbuf,
		   int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
		   MPI_Request *req, bool v, const char *fn)
{
	struct rc_cargs a;
	bool isroot, inplace;

	COLL_ENTER(fn, comm, req);
	if (RC_UNLIKELY(rc_comm_is_inter(comm)))
		return inter_rooted(v ? RC_COLL_SCATTERV : RC_COLL_SCATTER,
				    sbuf, scount, scounts, sdispls, sdt, rbuf,
				    rcount, NULL, NULL, rdt, root, comm, req,
				    fn);
	CHK_ROOT(comm, root, fn);
	isroot = comm->rank == root;
	inplace = isroot && rbuf == MPI_IN_PLACE;
	if (!inplace)
		CHK(comm, chk_data(rbuf, rcount, rdt), fn, NULL);
	if (isroot) {
		if (v)
			CHK(comm, chk_counts(scounts, sdispls, comm->size, sdt,
					     sbuf),
			    fn, NULL);
		else
			CHK(comm, chk_data(sbuf, scount, sdt), fn, NULL);
		if (!inplace)
			CHK_ALIAS(comm, fn, sbuf,
				  v ? sidev(sdt, scounts, sdispls, comm->size)
				    : side1(sdt, (size_t)scount *
							 (size_t)comm->size),
				  rbuf, side1(rdt, (size_t)rcount));
	}
	xfer_args(&a, isroot ? sbuf : NULL, scount, isroot ? sdt : NULL, rbuf,
		  rcount, inplace ? NULL : rdt, root);
	if (v && isroot) {
		a.scounts = scounts;
		a.sdispls = sdispls;
	}
	return coll_go(comm, v ? RC_COLL_SCATTERV : RC_COLL_SCATTER, &a, req,
		       fn);
}

int PMPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
		 int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  scatter(sbuf, scount, NULL, NULL, sdt, rbuf, rcount,
				  rdt, root, comm, RC_BLOCKING, false,
				  "MPI_Scatter"));
}
RC_WEAK(MPI_Scatter)

int PMPI_Iscatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
		  int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
		  MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, scatter(sbuf, scount, NULL, NULL, sdt,
					      rbuf, rcount, rdt, root, comm,
					      request, false, "MPI_Iscatter"));
}
RC_WEAK(MPI_Iscatter)

int PMPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
		  MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt,
		  int root, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  scatter(sbuf, 0, scounts, displs, sdt, rbuf, rcount,
				  rdt, root, comm, RC_BLOCKING, true,
				  "MPI_Scatterv"));
}
RC_WEAK(MPI_Scatterv)

int PMPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[],
		   MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt,
		   int root, MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, scatter(sbuf, 0, scounts, displs, sdt,
					      rbuf, rcount, rdt, root, comm,
					      request, true, "MPI_Iscatterv"));
}
RC_WEAK(MPI_Iscatterv)

/* ---- allgather, alltoall ------------------------------------------------- */

static int allgather(const void *sbuf, int scount, MPI_Datatype sdt,
		     void *rbuf, int rcount, const int *rcounts,
		     const int *rdispls, MPI_Datatype rdt, MPI_Comm comm,
		     MPI_Request *req, bool v, const char *fn)
{
	struct rc_cargs a;
	bool inplace = sbuf == MPI_IN_PLACE;

	COLL_ENTER(fn, comm, req);
	CHK(comm, chk_inplace(comm, sbuf), fn, NO_INPLACE_MSG);
	if (!inplace)
		CHK(comm, chk_data(sbuf, scount, sdt), fn, NULL);
	if (v)
		CHK(comm,
		    chk_counts(rcounts, rdispls, rc_comm_psize(comm), rdt,
			       rbuf),
		    fn, NULL);
	else
		CHK(comm, chk_data(rbuf, rcount, rdt), fn, NULL);
	if (!inplace)
		CHK_ALIAS(comm, fn, sbuf, side1(sdt, (size_t)scount), rbuf,
			  v ? sidev(rdt, rcounts, rdispls, rc_comm_psize(comm))
			    : side1(rdt, (size_t)rcount *
						 (size_t)rc_comm_psize(comm)));
	xfer_args(&a, sbuf, scount, inplace ? NULL : sdt, rbuf, rcount, rdt,
		  0);
	a.rcounts = rcounts;
	a.rdispls = rdispls;
	return coll_go(comm, v ? RC_COLL_ALLGATHERV : RC_COLL_ALLGATHER, &a,
		       req, fn);
}

int PMPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt,
		   void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  allgather(sbuf, scount, sdt, rbuf, rcount, NULL, NULL,
				    rdt, comm, RC_BLOCKING, false,
				    "MPI_Allgather"));
}
RC_WEAK(MPI_Allgather)

int PMPI_Iallgather(const void *sbuf, int scount, MPI_Datatype sdt,
		    void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm,
		    MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big, allgather(sbuf, scount, sdt, rbuf, rcount,
						NULL, NULL, rdt, comm, request,
						false, "MPI_Iallgather"));
}
RC_WEAK(MPI_Iallgather)

int PMPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt,
		    void *rbuf, const int rcounts[], const int displs[],
		    MPI_Datatype rdt, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  allgather(sbuf, scount, sdt, rbuf, 0, rcounts, displs,
				    rdt, comm, RC_BLOCKING, true,
				    "MPI_Allgatherv"));
}
RC_WEAK(MPI_Allgatherv)

int PMPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype sdt,
		     void *rbuf, const int rcounts[], const int displs[],
		     MPI_Datatype rdt, MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  allgather(sbuf, scount, sdt, rbuf, 0, rcounts, displs,
				    rdt, comm, request, true,
				    "MPI_Iallgatherv"));
}
RC_WEAK(MPI_Iallgatherv)

static int alltoall(const void *sbuf, int scount, MPI_Datatype sdt,
		    void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm,
		    MPI_Request *req, const char *fn)
{
	struct rc_cargs a;
	bool inplace = sbuf == MPI_IN_PLACE;

	COLL_ENTER(fn, comm, req);
	CHK(comm, chk_inplace(comm, sbuf), fn, NO_INPLACE_MSG);
	if (!inplace)
		CHK(comm, chk_data(sbuf, scount, sdt), fn, NULL);
	CHK(comm, chk_data(rbuf, rcount, rdt), fn, NULL);
	if (!inplace)
		CHK_ALIAS(comm, fn, sbuf,
			  side1(sdt,
				(size_t)scount * (size_t)rc_comm_psize(comm)),
			  rbuf,
			  side1(rdt,
				(size_t)rcount * (size_t)rc_comm_psize(comm)));
	xfer_args(&a, sbuf, scount, inplace ? NULL : sdt, rbuf, rcount, rdt,
		  0);
	return coll_go(comm, RC_COLL_ALLTOALL, &a, req, fn);
}

int PMPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
		  int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm,
				   RC_BLOCKING, "MPI_Alltoall"));
}
RC_WEAK(MPI_Alltoall)

int PMPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype sdt,
		   void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm,
		   MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm,
				   request, "MPI_Ialltoall"));
}
RC_WEAK(MPI_Ialltoall)

static int alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
		     MPI_Datatype sdt, void *rbuf, const int *rcounts,
		     const int *rdispls, MPI_Datatype rdt, MPI_Comm comm,
		     MPI_Request *req, const char *fn)
{
	struct rc_cargs a;
	bool inplace = sbuf == MPI_IN_PLACE;

	COLL_ENTER(fn, comm, req);
	CHK(comm, chk_inplace(comm, sbuf), fn, NO_INPLACE_MSG);
	if (!inplace)
		CHK(comm,
		    chk_counts(scounts, sdispls, rc_comm_psize(comm), sdt,
			       sbuf),
		    fn, NULL);
	CHK(comm, chk_counts(rcounts, rdispls, rc_comm_psize(comm), rdt, rbuf),
	    fn, NULL);
	if (!inplace)
		CHK_ALIAS(comm, fn, sbuf,
			  sidev(sdt, scounts, sdispls, rc_comm_psize(comm)),
			  rbuf, sidev(rdt, rcounts, rdispls, rc_comm_psize(comm)));
	xfer_args(&a, sbuf, 0, inplace ? NULL : sdt, rbuf, 0, rdt, 0);
	if (!inplace) {
		a.scounts = scounts;
		a.sdispls = sdispls;
	}
	a.rcounts = rcounts;
	a.rdispls = rdispls;
	return coll_go(comm, RC_COLL_ALLTOALLV, &a, req, fn);
}

int PMPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
		   MPI_Datatype sdt, void *rbuf, const int rcounts[],
		   const int rdispls[], MPI_Datatype rdt, MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts,
				    rdispls, rdt, comm, RC_BLOCKING,
				    "MPI_Alltoallv"));
}
RC_WEAK(MPI_Alltoallv)

int PMPI_Ialltoallv(const void *sbuf, const int scounts[],
		    const int sdispls[], MPI_Datatype sdt, void *rbuf,
		    const int rcounts[], const int rdispls[], MPI_Datatype rdt,
		    MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts,
				    rdispls, rdt, comm, request,
				    "MPI_Ialltoallv"));
}
RC_WEAK(MPI_Ialltoallv)

/* ---- alltoallw ----------------------------------------------------------- */

/* n blocks of (counts, byte displacements, types): 0 or an error class.
 * An empty block's type is not significant. */
static int chk_wblocks(const int *counts, const void *displs,
		       MPI_Datatype const *types, int n)
{
	int i;

	if (RC_UNLIKELY(n && (!counts || !displs || !types)))
		return MPI_ERR_ARG;
	for (i = 0; i < n; i++) {
		if (RC_UNLIKELY(counts[i] < 0))
			return MPI_ERR_COUNT;
		if (RC_UNLIKELY(counts[i] && !rc_dt_valid(types[i])))
			return MPI_ERR_TYPE;
	}
	return MPI_SUCCESS;
}

/* Does any block hold data? (send and receive buffers may then alias) */
static bool any_data(const int *counts, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (counts[i])
			return true;
	return false;
}

static int alltoallw(const void *sbuf, const int *scounts, const int *sdispls,
		     MPI_Datatype const *sdts, void *rbuf, const int *rcounts,
		     const int *rdispls, MPI_Datatype const *rdts,
		     MPI_Comm comm, MPI_Request *req, const char *fn)
{
	struct rc_cargs a;
	bool inplace = sbuf == MPI_IN_PLACE;
	int n;

	COLL_ENTER(fn, comm, req);
	n = rc_comm_psize(comm);
	CHK(comm, chk_inplace(comm, sbuf), fn, NO_INPLACE_MSG);
	CHK(comm, rbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : 0, fn, NULL);
	if (!inplace) {
		CHK(comm, chk_wblocks(scounts, sdispls, sdts, n), fn, NULL);
		CHK(comm,
		    sbuf == rbuf && sbuf && any_data(scounts, n)
			    ? MPI_ERR_BUFFER
			    : 0,
		    fn, "sendbuf and recvbuf are the same");
	}
	CHK(comm, chk_wblocks(rcounts, rdispls, rdts, n), fn, NULL);
	memset(&a, 0, sizeof(a));
	a.sbuf = sbuf;
	a.rbuf = rbuf;
	if (!inplace) {
		a.scounts = scounts;
		a.sdispls = sdispls;
		a.sdts = sdts;
	}
	a.rcounts = rcounts;
	a.rdispls = rdispls;
	a.rdts = rdts;
	return coll_go(comm, RC_COLL_ALLTOALLW, &a, req, fn);
}

int PMPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
		   const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
		   const int rdispls[], const MPI_Datatype rdts[],
		   MPI_Comm comm)
{
	return RC_CS_CALL(&rc_cs_big,
			  alltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts,
				    rdispls, rdts, comm, RC_BLOCKING,
				    "MPI_Alltoallw"));
}
RC_WEAK(MPI_Alltoallw)

int PMPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
		    const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
		    const int rdispls[], const MPI_Datatype rdts[],
		    MPI_Comm comm, MPI_Request *request)
{
	return RC_CS_CALL(&rc_cs_big,
			  alltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts,
				    rdispls, rdts, comm, request,
				    "MPI_Ialltoallw"));
}
RC_WEAK(MPI_Ialltoallw)

/* ---- neighbourhood collectives ----------------------------------------------
 *
 * On a communicator with a process topology only (MPI_ERR_TOPOLOGY
 * otherwise, intercommunicators included); block counts over the
 * in-neighbours (receive) and out-neighbours (send); no MPI_IN_PLACE.
 */

enum { NB_GATHER, NB_GATHERV, NB_A2A, NB_A2AV, NB_A2AW };

/* The arguments of one neighbourhood call (unused ones zero). */
struct nbr_args {
	const void *sbuf;
	int scount;
	const int *scounts, *sdispls;
	const MPI_Aint *sbd; /* alltoallw: byte displacements */
	MPI_Datatype sdt;
	MPI_Datatype const *sdts;
	void *rbuf;
	int rcount;
	const int *rcounts, *rdispls;
	const MPI_Aint *rbd;
	MPI_Datatype rdt;
	MPI_Datatype const *rdts;
};

static int neighbor(int kind, const struct nbr_args *x, MPI_Comm comm,
		    MPI_Request *req, const char *fn)
{
	const void *sbuf = x->sbuf;
	void *rbuf = x->rbuf;
	int scount = x->scount, rcount = x->rcount;
	const int *scounts = x->scounts, *sdispls = x->sdispls;
	const int *rcounts = x->rcounts, *rdispls = x->rdispls;
	const MPI_Aint *sbd = x->sbd, *rbd = x->rbd;
	MPI_Datatype sdt = x->sdt, rdt = x->rdt;
	MPI_Datatype const *sdts = x->sdts, *rdts = x->rdts;
	static const int coll[] = {
		RC_COLL_NBR_ALLGATHER, RC_COLL_NBR_ALLGATHERV,
		RC_COLL_NBR_ALLTOALL,  RC_COLL_NBR_ALLTOALLV,
		RC_COLL_NBR_ALLTOALLW,
	};
	const struct rc_topo *t;
	struct rc_cargs a;
	int nin, nout;

	COLL_ENTER(fn, comm, req);
	t = comm->topo;
	if (RC_UNLIKELY(!t))
		return RC_ERR_MSG(comm, MPI_ERR_TOPOLOGY, fn,
				  "the communicator has no process topology");
	nin = t->nin;
	nout = t->nout;
	CHK(comm,
	    sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE ? MPI_ERR_BUFFER : 0,
	    fn, "MPI_IN_PLACE in a neighbourhood collective");
	memset(&a, 0, sizeof(a));
	switch (kind) {
	case NB_GATHER:
	case NB_A2A:
		CHK(comm, chk_data(sbuf, scount, sdt), fn, NULL);
		CHK(comm, chk_data(rbuf, rcount, rdt), fn, NULL);
		break;
	case NB_GATHERV:
		CHK(comm, chk_data(sbuf, scount, sdt), fn, NULL);
		CHK(comm, chk_counts(rcounts, rdispls, nin, rdt, rbuf), fn,
		    NULL);
		break;
	case NB_A2AV:
		CHK(comm, chk_counts(scounts, sdispls, nout, sdt, sbuf), fn,
		    NULL);
		CHK(comm, chk_counts(rcounts, rdispls, nin, rdt, rbuf), fn,
		    NULL);
		break;
	default:
		CHK(comm, chk_wblocks(scounts, sbd, sdts, nout), fn, NULL);
		CHK(comm, chk_wblocks(rcounts, rbd, rdts, nin), fn, NULL);
		break;
	}
	a.sbuf = sbuf;
	a.scount = scount > 0 ? (size_t)scount : 0;
	a.scounts = scounts;
	a.sdispls = sdispls;
	a.sdt = kind == NB_A2AW ? NULL : sdt;
	a.sdts = sdts;
	a.rbuf = rbuf;
	a.rcount = rcount > 0 ? (size_t)rcount : 0;
	a.rcounts = rcounts;
	a.rdispls = rdispls;
	a.rdt = kind == NB_A2AW ? NULL : rdt;
	a.rdts = rdts;
	a.sbdispls = sbd;
	a.rbdispls = rbd;
	return coll_go(comm, coll[kind], &a, req, fn);
}

int PMPI_Neighbor_allgather(const void *sbuf, int scount, MPI_Datatype sdt,
			    void *rbuf, int rcount, MPI_Datatype rdt,
			    MPI_Comm comm)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scount = scount,
			     .sdt = sdt,
			     .rbuf = rbuf,
			     .rcount = rcount,
			     .rdt = rdt};

	return RC_CS_CALL(&rc_cs_big, neighbor(NB_GATHER, &x, comm, RC_BLOCKING,
					       "MPI_Neighbor_allgather"));
}
RC_WEAK(MPI_Neighbor_allgather)

int PMPI_Ineighbor_allgather(const void *sbuf, int scount, MPI_Datatype sdt,
			     void *rbuf, int rcount, MPI_Datatype rdt,
			     MPI_Comm comm, MPI_Request *request)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scount = scount,
			     .sdt = sdt,
			     .rbuf = rbuf,
			     .rcount = rcount,
			     .rdt = rdt};

	return RC_CS_CALL(&rc_cs_big, neighbor(NB_GATHER, &x, comm, request,
					       "MPI_Ineighbor_allgather"));
}
RC_WEAK(MPI_Ineighbor_allgather)

int PMPI_Neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt,
			     void *rbuf, const int rcounts[],
			     const int displs[], MPI_Datatype rdt,
			     MPI_Comm comm)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scount = scount,
			     .sdt = sdt,
			     .rbuf = rbuf,
			     .rcounts = rcounts,
			     .rdispls = displs,
			     .rdt = rdt};

	return RC_CS_CALL(&rc_cs_big,
			  neighbor(NB_GATHERV, &x, comm, RC_BLOCKING,
				   "MPI_Neighbor_allgatherv"));
}
RC_WEAK(MPI_Neighbor_allgatherv)

int PMPI_Ineighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt,
			      void *rbuf, const int rcounts[],
			      const int displs[], MPI_Datatype rdt,
			      MPI_Comm comm, MPI_Request *request)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scount = scount,
			     .sdt = sdt,
			     .rbuf = rbuf,
			     .rcounts = rcounts,
			     .rdispls = displs,
			     .rdt = rdt};

	return RC_CS_CALL(&rc_cs_big, neighbor(NB_GATHERV, &x, comm, request,
					       "MPI_Ineighbor_allgatherv"));
}
RC_WEAK(MPI_Ineighbor_allgatherv)

int PMPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype sdt,
			   void *rbuf, int rcount, MPI_Datatype rdt,
			   MPI_Comm comm)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scount = scount,
			     .sdt = sdt,
			     .rbuf = rbuf,
			     .rcount = rcount,
			     .rdt = rdt};

	return RC_CS_CALL(&rc_cs_big, neighbor(NB_A2A, &x, comm, RC_BLOCKING,
					       "MPI_Neighbor_alltoall"));
}
RC_WEAK(MPI_Neighbor_alltoall)

int PMPI_Ineighbor_alltoall(const void *sbuf, int scount, MPI_Datatype sdt,
			    void *rbuf, int rcount, MPI_Datatype rdt,
			    MPI_Comm comm, MPI_Request *request)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scount = scount,
			     .sdt = sdt,
			     .rbuf = rbuf,
			     .rcount = rcount,
			     .rdt = rdt};

	return RC_CS_CALL(&rc_cs_big, neighbor(NB_A2A, &x, comm, request,
					       "MPI_Ineighbor_alltoall"));
}
RC_WEAK(MPI_Ineighbor_alltoall)

int PMPI_Neighbor_alltoallv(const void *sbuf, const int scounts[],
			    const int sdispls[], MPI_Datatype sdt, void *rbuf,
			    const int rcounts[], const int rdispls[],
			    MPI_Datatype rdt, MPI_Comm comm)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scounts = scounts,
			     .sdispls = sdispls,
			     .sdt = sdt,
			     .rbuf = rbuf,
			     .rcounts = rcounts,
			     .rdispls = rdispls,
			     .rdt = rdt};

	return RC_CS_CALL(&rc_cs_big, neighbor(NB_A2AV, &x, comm, RC_BLOCKING,
					       "MPI_Neighbor_alltoallv"));
}
RC_WEAK(MPI_Neighbor_alltoallv)

int PMPI_Ineighbor_alltoallv(const void *sbuf, const int scounts[],
			     const int sdispls[], MPI_Datatype sdt, void *rbuf,
			     const int rcounts[], const int rdispls[],
			     MPI_Datatype rdt, MPI_Comm comm,
			     MPI_Request *request)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scounts = scounts,
			     .sdispls = sdispls,
			     .sdt = sdt,
			     .rbuf = rbuf,
			     .rcounts = rcounts,
			     .rdispls = rdispls,
			     .rdt = rdt};

	return RC_CS_CALL(&rc_cs_big, neighbor(NB_A2AV, &x, comm, request,
					       "MPI_Ineighbor_alltoallv"));
}
RC_WEAK(MPI_Ineighbor_alltoallv)

int PMPI_Neighbor_alltoallw(const void *sbuf, const int scounts[],
			    const MPI_Aint sdispls[], const MPI_Datatype sdts[],
			    void *rbuf, const int rcounts[],
			    const MPI_Aint rdispls[], const MPI_Datatype rdts[],
			    MPI_Comm comm)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scounts = scounts,
			     .sbd = sdispls,
			     .sdts = sdts,
			     .rbuf = rbuf,
			     .rcounts = rcounts,
			     .rbd = rdispls,
			     .rdts = rdts};

	return RC_CS_CALL(&rc_cs_big, neighbor(NB_A2AW, &x, comm, RC_BLOCKING,
					       "MPI_Neighbor_alltoallw"));
}
RC_WEAK(MPI_Neighbor_alltoallw)

int PMPI_Ineighbor_alltoallw(const void *sbuf, const int scounts[],
			     const MPI_Aint sdispls[],
			     const MPI_Datatype sdts[], void *rbuf,
			     const int rcounts[], const MPI_Aint rdispls[],
			     const MPI_Datatype rdts[], MPI_Comm comm,
			     MPI_Request *request)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scounts = scounts,
			     .sbd = sdispls,
			     .sdts = sdts,
			     .rbuf = rbuf,
			     .rcounts = rcounts,
			     .rbd = rdispls,
			     .rdts = rdts};

	return RC_CS_CALL(&rc_cs_big, neighbor(NB_A2AW, &x, comm, request,
					       "MPI_Ineighbor_alltoallw"));
}
RC_WEAK(MPI_Ineighbor_alltoallw)

/* ---- persistent collectives (MPI-4) -----------------------------------------
 *
 * The nonblocking call's checks and arguments, then a persistent request
 * (RC_PERSIST): the algorithm, its schedule and the collective's tag are
 * fixed here, so every rank must init its collectives in one order and
 * may then start them in any order, any number of times. The info
 * argument is checked and otherwise ignored (no hint is defined).
 */

static int pinit_check(MPI_Comm comm, MPI_Info info, MPI_Request *request,
		       const char *fn)
{
	RC_API_CHECK_INIT(fn);
	if (RC_UNLIKELY(!rc_comm_valid(comm)))
		return rc_err_handle(NULL, RC_HK_COMM, comm, fn);
	if (RC_UNLIKELY(!request))
		return RC_ERR_MSG(comm, MPI_ERR_ARG, fn, "request is NULL");
	if (RC_UNLIKELY(info != MPI_INFO_NULL && !rc_info_valid(info)))
		return rc_err_handle(comm, RC_HK_INFO, info, fn);
	return MPI_SUCCESS;
}

/* Check, then `call` (which passes RC_PERSIST(request)), in the big
 * critical section. */
#define PINIT(comm, info, request, fn, call)                    \
	RC_CS_CALL(&rc_cs_big, ({                               \
		int pi_ = pinit_check(comm, info, request, fn); \
		pi_ ? pi_ : (call);                             \
	}))

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Barrier_init",
		     barrier(comm, RC_PERSIST(request), "MPI_Barrier_init"));
}
RC_WEAK(MPI_Barrier_init)

int PMPI_Bcast_init(void *buf, int count, MPI_Datatype dt, int root,
		    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Bcast_init",
		     bcast(buf, count, dt, root, comm, RC_PERSIST(request),
			   "MPI_Bcast_init"));
}
RC_WEAK(MPI_Bcast_init)

int PMPI_Reduce_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
		     MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
		     MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Reduce_init",
		     reduce(sbuf, rbuf, count, dt, op, root, comm,
			    RC_PERSIST(request), "MPI_Reduce_init"));
}
RC_WEAK(MPI_Reduce_init)

int PMPI_Allreduce_init(const void *sbuf, void *rbuf, int count,
			MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
			MPI_Info info, MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Allreduce_init",
		     allred(sbuf, rbuf, count, dt, op, comm,
			    RC_PERSIST(request), RC_COLL_ALLREDUCE,
			    "MPI_Allreduce_init"));
}
RC_WEAK(MPI_Allreduce_init)

int PMPI_Scan_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
		   MPI_Op op, MPI_Comm comm, MPI_Info info,
		   MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Scan_init",
		     allred(sbuf, rbuf, count, dt, op, comm,
			    RC_PERSIST(request), RC_COLL_SCAN,
			    "MPI_Scan_init"));
}
RC_WEAK(MPI_Scan_init)

int PMPI_Exscan_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
		     MPI_Op op, MPI_Comm comm, MPI_Info info,
		     MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Exscan_init",
		     allred(sbuf, rbuf, count, dt, op, comm,
			    RC_PERSIST(request), RC_COLL_EXSCAN,
			    "MPI_Exscan_init"));
}
RC_WEAK(MPI_Exscan_init)

int PMPI_Reduce_scatter_block_init(const void *sbuf, void *rbuf, int rcount,
				   MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
				   MPI_Info info, MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Reduce_scatter_block_init",
		     redscat_block(sbuf, rbuf, rcount, dt, op, comm,
				   RC_PERSIST(request),
				   "MPI_Reduce_scatter_block_init"));
}
RC_WEAK(MPI_Reduce_scatter_block_init)

int PMPI_Reduce_scatter_init(const void *sbuf, void *rbuf, const int rcounts[],
			     MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
			     MPI_Info info, MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Reduce_scatter_init",
		     redscat(sbuf, rbuf, rcounts, dt, op, comm,
			     RC_PERSIST(request), "MPI_Reduce_scatter_init"));
}
RC_WEAK(MPI_Reduce_scatter_init)

int PMPI_Gather_init(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
		     int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
		     MPI_Info info, MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Gather_init",
		     gather(sbuf, scount, sdt, rbuf, rcount, rdt, NULL, NULL,
			    root, comm, RC_PERSIST(request), false,
			    "MPI_Gather_init"));
}
RC_WEAK(MPI_Gather_init)

int PMPI_Gatherv_init(const void *sbuf, int scount, MPI_Datatype sdt,
		      void *rbuf, const int rcounts[], const int displs[],
		      MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Info info,
		      MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Gatherv_init",
		     gather(sbuf, scount, sdt, rbuf, 0, rdt, rcounts, displs,
			    root, comm, RC_PERSIST(request), true,
			    "MPI_Gatherv_init"));
}
RC_WEAK(MPI_Gatherv_init)

int PMPI_Scatter_init(const void *sbuf, int scount, MPI_Datatype sdt,
		      void *rbuf, int rcount, MPI_Datatype rdt, int root,
		      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Scatter_init",
		     scatter(sbuf, scount, NULL, NULL, sdt, rbuf, rcount, rdt,
			     root, comm, RC_PERSIST(request), false,
			     "MPI_Scatter_init"));
}
RC_WEAK(MPI_Scatter_init)

int PMPI_Scatterv_init(const void *sbuf, const int scounts[],
		       const int displs[], MPI_Datatype sdt, void *rbuf,
		       int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
		       MPI_Info info, MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Scatterv_init",
		     scatter(sbuf, 0, scounts, displs, sdt, rbuf, rcount, rdt,
			     root, comm, RC_PERSIST(request), true,
			     "MPI_Scatterv_init"));
}
RC_WEAK(MPI_Scatterv_init)

int PMPI_Allgather_init(const void *sbuf, int scount, MPI_Datatype sdt,
			void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm,
			MPI_Info info, MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Allgather_init",
		     allgather(sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt,
			       comm, RC_PERSIST(request), false,
			       "MPI_Allgather_init"));
}
RC_WEAK(MPI_Allgather_init)

int PMPI_Allgatherv_init(const void *sbuf, int scount, MPI_Datatype sdt,
			 void *rbuf, const int rcounts[], const int displs[],
			 MPI_Datatype rdt, MPI_Comm comm, MPI_Info info,
			 MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Allgatherv_init",
		     allgather(sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt,
			       comm, RC_PERSIST(request), true,
			       "MPI_Allgatherv_init"));
}
RC_WEAK(MPI_Allgatherv_init)

int PMPI_Alltoall_init(const void *sbuf, int scount, MPI_Datatype sdt,
		       void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm,
		       MPI_Info info, MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Alltoall_init",
		     alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm,
			      RC_PERSIST(request), "MPI_Alltoall_init"));
}
RC_WEAK(MPI_Alltoall_init)

int PMPI_Alltoallv_init(const void *sbuf, const int scounts[],
			const int sdispls[], MPI_Datatype sdt, void *rbuf,
			const int rcounts[], const int rdispls[],
			MPI_Datatype rdt, MPI_Comm comm, MPI_Info info,
			MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Alltoallv_init",
		     alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts,
			       rdispls, rdt, comm, RC_PERSIST(request),
			       "MPI_Alltoallv_init"));
}
RC_WEAK(MPI_Alltoallv_init)

int PMPI_Alltoallw_init(const void *sbuf, const int scounts[],
			const int sdispls[], const MPI_Datatype sdts[],
			void *rbuf, const int rcounts[], const int rdispls[],
			const MPI_Datatype rdts[], MPI_Comm comm, MPI_Info info,
			MPI_Request *request)
{
	return PINIT(comm, info, request, "MPI_Alltoallw_init",
		     alltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts,
			       rdispls, rdts, comm, RC_PERSIST(request),
			       "MPI_Alltoallw_init"));
}
RC_WEAK(MPI_Alltoallw_init)

/* Persistent neighbourhood collectives: the topology's tags are taken at
 * init like every persistent collective's. */
int PMPI_Neighbor_allgather_init(const void *sbuf, int scount, MPI_Datatype sdt,
				 void *rbuf, int rcount, MPI_Datatype rdt,
				 MPI_Comm comm, MPI_Info info,
				 MPI_Request *request)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scount = scount,
			     .sdt = sdt,
			     .rbuf = rbuf,
			     .rcount = rcount,
			     .rdt = rdt};

	return PINIT(comm, info, request, "MPI_Neighbor_allgather_init",
		     neighbor(NB_GATHER, &x, comm, RC_PERSIST(request),
			      "MPI_Neighbor_allgather_init"));
}
RC_WEAK(MPI_Neighbor_allgather_init)

int PMPI_Neighbor_allgatherv_init(const void *sbuf, int scount,
				  MPI_Datatype sdt, void *rbuf,
				  const int rcounts[], const int displs[],
				  MPI_Datatype rdt, MPI_Comm comm,
				  MPI_Info info, MPI_Request *request)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scount = scount,
			     .sdt = sdt,
			     .rbuf = rbuf,
			     .rcounts = rcounts,
			     .rdispls = displs,
			     .rdt = rdt};

	return PINIT(comm, info, request, "MPI_Neighbor_allgatherv_init",
		     neighbor(NB_GATHERV, &x, comm, RC_PERSIST(request),
			      "MPI_Neighbor_allgatherv_init"));
}
RC_WEAK(MPI_Neighbor_allgatherv_init)

int PMPI_Neighbor_alltoall_init(const void *sbuf, int scount, MPI_Datatype sdt,
				void *rbuf, int rcount, MPI_Datatype rdt,
				MPI_Comm comm, MPI_Info info,
				MPI_Request *request)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scount = scount,
			     .sdt = sdt,
			     .rbuf = rbuf,
			     .rcount = rcount,
			     .rdt = rdt};

	return PINIT(comm, info, request, "MPI_Neighbor_alltoall_init",
		     neighbor(NB_A2A, &x, comm, RC_PERSIST(request),
			      "MPI_Neighbor_alltoall_init"));
}
RC_WEAK(MPI_Neighbor_alltoall_init)

int PMPI_Neighbor_alltoallv_init(const void *sbuf, const int scounts[],
				 const int sdispls[], MPI_Datatype sdt,
				 void *rbuf, const int rcounts[],
				 const int rdispls[], MPI_Datatype rdt,
				 MPI_Comm comm, MPI_Info info,
				 MPI_Request *request)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scounts = scounts,
			     .sdispls = sdispls,
			     .sdt = sdt,
			     .rbuf = rbuf,
			     .rcounts = rcounts,
			     .rdispls = rdispls,
			     .rdt = rdt};

	return PINIT(comm, info, request, "MPI_Neighbor_alltoallv_init",
		     neighbor(NB_A2AV, &x, comm, RC_PERSIST(request),
			      "MPI_Neighbor_alltoallv_init"));
}
RC_WEAK(MPI_Neighbor_alltoallv_init)

int PMPI_Neighbor_alltoallw_init(const void *sbuf, const int scounts[],
				 const MPI_Aint sdispls[],
				 const MPI_Datatype sdts[], void *rbuf,
				 const int rcounts[], const MPI_Aint rdispls[],
				 const MPI_Datatype rdts[], MPI_Comm comm,
				 MPI_Info info, MPI_Request *request)
{
	struct nbr_args x = {.sbuf = sbuf,
			     .scounts = scounts,
			     .sbd = sdispls,
			     .sdts = sdts,
			     .rbuf = rbuf,
			     .rcounts = rcounts,
			     .rbd = rdispls,
			     .rdts = rdts};

	return PINIT(comm, info, request, "MPI_Neighbor_alltoallw_init",
		     neighbor(NB_A2AW, &x, comm, RC_PERSIST(request),
			      "MPI_Neighbor_alltoallw_init"));
}
RC_WEAK(MPI_Neighbor_alltoallw_init)
