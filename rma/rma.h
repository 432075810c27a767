/*
 * rma.h - one-sided communication (MPI-3.1 chapter 11): the module's
 * interface to the runtime (open and close, from runtime/init.c), to the
 * MPI API file (rma_api.c) and to unit tests.
 *
 * Every call that waits for other processes (creation, free, fence, lock,
 * unlock, flush, start, complete, wait) is started here as a pooled
 * RC_REQ_RMA request that completes from progress; the MPI functions wait
 * on it, unit tests start it on several ranks' instances and drive their
 * progress together. Status codes: RC_ERR_RMA_SYNC (wrong synchronisation),
 * RC_ERR_RMA_RANGE (outside the target's window), RC_ERR_RMA_SHARED (a
 * shared window across nodes), RC_ERR_PEER (a peer failed), RC_ERR_INVAL.
 */
#ifndef RC_RMA_H
#define RC_RMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

struct rc_inst;
struct rc_comm;
struct rc_dtype;
struct rc_op;
struct rc_req;
struct rc_win;

int rc_rma_open(struct rc_inst *inst);
void rc_rma_close(struct rc_inst *inst);
/* Once every instance's transports are closed (no device writes into our
 * memory any more): free the lock state that rc_rma_close had to leave
 * to the device of a dead target (rma/dlock.c). */
void rc_rma_reap(void);

/* Info keys, as bits (rma_api.c reads them from an MPI_Info). */
#define RC_WIN_NO_LOCKS 0x1u
#define RC_WIN_SAME_SIZE 0x2u
#define RC_WIN_SAME_DISP 0x4u
#define RC_WIN_NONCONTIG 0x8u	/* alloc_shared_noncontig */

/* accumulate_ordering bits (default: all four) */
#define RC_ACC_RAR 0x1u
#define RC_ACC_RAW 0x2u
#define RC_ACC_WAR 0x4u
#define RC_ACC_WAW 0x8u
#define RC_ACC_ALL 0xfu

struct rc_win_args {
	int flavor;		/* MPI_WIN_FLAVOR_* */
	void *base;		/* create: the user's memory */
	size_t size;
	int disp_unit;
	unsigned info;		/* RC_WIN_* */
	unsigned acc_order;	/* RC_ACC_* */
	bool acc_same_op;	/* accumulate_ops=same_op */
};

/*
 * Collective over comm: a new window. *winp is written when *reqp
 * completes without error (allocate and allocate_shared: the base is then
 * rc_win_base(*winp)).
 */
int rc_win_create_start(struct rc_comm *comm, const struct rc_win_args *a,
			struct rc_win **winp, struct rc_req **reqp);
/* Collective: free it (RC_ERR_RMA_SYNC on every rank when any rank still
 * has an epoch open or operations pending; the window then lives on). */
int rc_win_free_start(struct rc_win *win, struct rc_req **reqp);
void *rc_win_base(const struct rc_win *win);
bool rc_win_valid(const struct rc_win *win);

/* Dynamic windows (local). */
int rc_win_attach(struct rc_win *win, void *base, size_t size);
int rc_win_detach(struct rc_win *win, const void *base);

/* ---- communication ---- */
enum rc_rma_kind {
	RC_RMA_PUT = 1,
	RC_RMA_GET,
	RC_RMA_ACC,
	RC_RMA_GACC,	/* get_accumulate and fetch_and_op */
	RC_RMA_CAS,
};

struct rc_rma_args {
	int kind;
	const void *obuf;	/* origin data (get: the result buffer) */
	size_t ocount;
	struct rc_dtype *odt;
	void *rbuf;		/* get_accumulate, cas: result */
	size_t rcount;
	struct rc_dtype *rdt;
	const void *cbuf;	/* cas: compare value (one element of odt) */
	int target;		/* window rank or MPI_PROC_NULL */
	MPI_Aint disp;
	size_t tcount;
	struct rc_dtype *tdt;
	struct rc_op *op;	/* acc, gacc */
};

/*
 * Start one operation (arguments checked by the caller: datatypes valid,
 * signatures matching, op defined on the type). reqp NULL: no request
 * (completed by synchronisation); else a request that completes when the
 * origin buffers may be reused (put, accumulate) or the result has
 * arrived (get, get_accumulate, cas). RC_ERR_RMA_SYNC outside an access
 * epoch to target, RC_ERR_RMA_RANGE outside the target's window.
 */
int rc_rma_op(struct rc_win *win, const struct rc_rma_args *a,
	      struct rc_req **reqp);
/* MPI_Fetch_and_op (SUM: in, NO_OP: 0) and MPI_Compare_and_swap (swap in
 * for cmp) without a request, on one predefined 8-byte integer dt at disp
 * of target (a window rank), the arguments checked: one device atomic
 * that copies the old value into res, when the window's agent is the
 * device and nothing is queued at the target (rc_rma_op's checks, without
 * its argument block). RC_AGAIN: not this case (take rc_rma_op). */
int rc_rma_word(struct rc_win *win, bool cas, uint64_t in, uint64_t cmp,
		void *res, int target, MPI_Aint disp,
		const struct rc_dtype *dt);
/* MPI_Put / MPI_Get without a request on a window of the shared-memory
 * path (win->shm_path): rc_rma_op's checks and the copy, without its
 * argument block. */
int rc_rma_shm_put_get(struct rc_win *win, bool get, const void *obuf,
		       size_t ocount, struct rc_dtype *odt, int target,
		       MPI_Aint disp, size_t tcount, struct rc_dtype *tdt);

/* ---- synchronisation (MPI_MODE_* asserts already checked) ---- */
int rc_win_fence_start(struct rc_win *win, int assert, struct rc_req **reqp);
/* target -1: every rank (lock_all, unlock_all, flush_all) */
int rc_win_lock_start(struct rc_win *win, int type, int target, int assert,
		      struct rc_req **reqp);
/* The same on the SHM path (win->shm_path): *reqp NULL when every lock
 * was granted at once (nobody held it: no machine), else the machine that
 * waits for them. */
int rc_win_lock_shm(struct rc_win *win, int type, int target, int assert,
		    struct rc_req **reqp);
int rc_win_unlock_start(struct rc_win *win, int target, struct rc_req **reqp);
/* Unlock on the SHM path, where every operation completed when its call
 * returned: true, with the result in *ret; false: use rc_win_unlock_start. */
bool rc_win_unlock_direct(struct rc_win *win, int target, int *ret);
int rc_win_flush_start(struct rc_win *win, int target, bool local,
		       struct rc_req **reqp);
/* Flush where every operation completed when its call returned (the SHM
 * path), or where only direct operations (RDMA, device atomics) are
 * outstanding and complete within a short wait: true, with the result in
 * *ret; false: use rc_win_flush_start. */
bool rc_win_flush_direct(struct rc_win *win, int target, int *ret);
/* PSCW: groups as window ranks (n of them, copied) */
int rc_win_post(struct rc_win *win, const int *ranks, int n, int assert);
int rc_win_start_start(struct rc_win *win, const int *ranks, int n,
		       int assert, struct rc_req **reqp);
int rc_win_complete_start(struct rc_win *win, struct rc_req **reqp);
int rc_win_wait_start(struct rc_win *win, struct rc_req **reqp);
/* MPI_Win_test: true (and *err) when the exposure epoch has ended */
bool rc_win_test(struct rc_win *win, int *err);
/* MPI_Win_sync: memory barrier, and progress */
void rc_win_sync(struct rc_win *win);

#endif
