/*
 * inst.h - the runtime instance: everything one MPI process owns.
 *
 * No engine state lives in globals: the process has exactly one instance
 * (rc_g), reached from MPI_COMM_WORLD; unit tests create several instances in
 * one process and wire them with the in-process transport.
 */
#ifndef RC_INST_H
#define RC_INST_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "boot.h"
#include "handle.h"
#include "list.h"
#include "thread.h"

struct rc_inst;
struct rc_tp;
struct rc_comm;
struct rc_req;
struct rc_p2p;
struct rc_bsend;
struct rc_ctx_agree;
struct rc_rma;

#define RC_TP_MAX 4
/* context ids (a block of four per communicator: comm.h) */
#define RC_CTX_MAX 16384
#define RC_HOST_MAX 64

/* A peer process, by world rank. 128 bytes on 64-bit hosts (asserted
 * below): a power of two, so that procs[w] costs a shift. */
struct rc_proc {
	struct rc_tp *tp;	/* the transport that reaches it */
	pid_t pid;
	char host[RC_HOST_MAX];
	/* sends to the peer handed to the section's holder and not yet
	 * started (pt2pt/engine.c; atomic): see send_mt */
	unsigned ndelegated;
	struct rc_list pending;	/* sends waiting for the transport */
	struct rc_list waiting;	/* requests whose protocol awaits it */
	int failed;		/* status the transport reported, or 0 */
	bool local;		/* same node (same kernel boot id) */
	bool failed_done;	/* pt2pt has failed what waited on it */
	/* At MPI_THREAD_MULTIPLE, when tp lets senders run at once
	 * (RC_TP_CAP_SEND_MT, read once at connect: send_mt), every message
	 * to the peer goes to tp under send_lock, and MPI_Send's path outside
	 * the critical section takes it when npending (the length of pending,
	 * written inside the section, read atomically outside) and
	 * ndelegated are 0. */
	bool send_mt;
	unsigned npending;
	struct rc_lock send_lock;
};

_Static_assert(sizeof(void *) != 8 || sizeof(struct rc_proc) == 128,
	       "struct rc_proc: keep it a power of two");

typedef unsigned (*rc_progress_fn)(struct rc_inst *inst, void *arg);
/* Up to looks looks at what blocking wait req waits on, at memory that
 * can be watched without a progress call (pt2pt's: the eager rings):
 * events at the first look that sees any, 0 after looks empty ones, or
 * RC_SPIN_NONE (no look made) when there is nothing such for req. */
typedef unsigned (*rc_spin_fn)(struct rc_inst *inst, struct rc_req *req,
			       unsigned looks);
#define RC_SPIN_NONE (~0u)

struct rc_progress_hook {
	rc_progress_fn fn;
	void *arg;
};

struct rc_inst {
	int rank, size;
	int local_rank, local_size;
	int *local_peers;
	char host[RC_HOST_MAX];
	char boot_id[40];
	char nspace[256];
	bool singleton;
	/* some peer's transport lets senders run at once (rc_proc.send_mt):
	 * MPI_Send may go outside the critical section at all */
	bool send_mt_any;
	int universe_size;
	bool oversubscribed;	/* more local ranks than cores: yield */
	/* a transport drives a device whose work the kernel does on our
	 * cores (Soft-RoCE, siw): long waits yield to it (yield_after) */
	bool soft_device;
	unsigned yield_after; /* idle polls before a wait yields (0: no;
			       * rc_inst_yield_after) */
	/* a blocking wait's looks between two progress calls (spin_polls,
	 * RCMPI_SPIN_POLLS, 0: none; spin: pt2pt's, NULL without a
	 * transport that has such a look) */
	unsigned spin_polls;
	rc_spin_fn spin;
	bool job_oversubscribed; /* some node has more ranks than cores
				  * (alike on every rank: coll choices) */

	struct rc_boot boot;
	struct rc_proc *procs;
	struct rc_tp *tps[RC_TP_MAX];
	int ntps;
	struct rc_tp *self_tp;	/* in-process transport to myself */
	/* unit tests: the in-process fabric joining several instances; when
	 * set, it is the only transport */
	void *loop_fabric;

	struct rc_p2p *p2p;	/* matching and protocol state (pt2pt) */
	struct rc_bsend *bsend;	/* the attached buffer (pt2pt/bsend.c) */
	void *coll;		/* collective module state (coll) */
	struct rc_rma *rma;	/* one-sided state (rma) */

	/* request pools (handle.h, request.h): the requests made inside the
	 * critical section, and those made outside it (locked); rc_g's
	 * serve MPI_Request_f2c */
	struct rc_hpool req_pool;
	struct rc_hpool out_pool;
	/* which instance the threads' caches of out-pool slots hold
	 * (request.c): unique per rc_req_pool_init; the live instances */
	uint64_t req_gen;
	struct rc_inst *req_live_next;
	/* requests finished outside the section, their slots not yet back
	 * in their pools (request.h; atomic) */
	struct rc_req *retired;

	struct rc_comm *world, *self;
	/* context-id blocks in use (bit b: ids 4b..4b+3), the agreements in
	 * flight (by priority) and the regions they hold (comm.h) */
	uint32_t ctx_used[RC_CTX_MAX / 4 / 32];
	struct rc_ctx_agree *ctx_agree;
	unsigned ctx_locked;

	struct rc_progress_hook hooks[8];
	int nhooks;
	int in_progress;
	unsigned idle;		/* consecutive empty progress calls */

	int thread_level;
	void *thread_main;
	bool initialized, finalized;

	/* modex blobs: ours, and peers' (fetched lazily) */
	void *modex_out;
	size_t modex_out_len;
	void **modex_in;
	size_t *modex_in_len;
};

/* The process-wide instance behind MPI_COMM_WORLD. */
extern struct rc_inst rc_g;

/* Drive every transport and protocol once; returns events handled. Never
 * blocks, never re-entered. */
unsigned rc_progress(struct rc_inst *inst);
/* The bookkeeping around one progress call, rc_progress's or a poll of
 * one transport (rc_p2p_poll_tp): never re-entered, and an empty call
 * counts towards rc_progress_idle's yield. */
static inline void rc_progress_begin(struct rc_inst *inst)
{
	assert(!inst->in_progress);
	inst->in_progress = 1;
}

static inline unsigned rc_progress_end(struct rc_inst *inst, unsigned events)
{
	inst->in_progress = 0;
	inst->idle = events ? 0 : inst->idle + 1;
	return events;
}
void rc_progress_idle_slow(struct rc_inst *inst);
/* Between two empty progress calls of a blocking wait for req: up to
 * spin_polls looks (inst->spin) at what req waits on; events seen (0:
 * none), or RC_SPIN_NONE when there is nothing to look at for req (the
 * wait then stops asking). */
unsigned rc_progress_spin(struct rc_inst *inst, struct rc_req *req);
/* Called by blocking loops that made no progress: yields when
 * oversubscribed or idle for yield_after polls (and lets other threads in
 * at MULTIPLE), else returns at once (the loop spins; inline, so that a
 * spin's poll makes no call here). */
static inline void rc_progress_idle(struct rc_inst *inst)
{
	if (RC_UNLIKELY(rc_thread_multiple || inst->oversubscribed ||
			(inst->yield_after && inst->idle >= inst->yield_after)))
		rc_progress_idle_slow(inst);
}
/* Called by a test that found nothing done (MPI_Test and its kin,
 * MPI_Iprobe, MPI_Win_test): programs poll with these in loops of their
 * own, so such a loop yields on a blocking wait's terms (oversubscribed,
 * or idle for yield_after polls). A rank polling MPI_Test must not keep
 * its core from the peer it waits for. */
static inline void rc_progress_test_idle(struct rc_inst *inst)
{
	if (RC_UNLIKELY(inst->oversubscribed ||
			(inst->yield_after && inst->idle >= inst->yield_after)))
		rc_progress_idle_slow(inst);
}
/* yield_after for an instance whose transports did (soft_device) or did
 * not open a software RDMA device: RCMPI_POLLS_BEFORE_YIELD, whose auto
 * is 1000 over one, else 0 (never). */
unsigned rc_inst_yield_after(bool soft_device);
int rc_progress_register(struct rc_inst *inst, rc_progress_fn fn, void *arg);

/* Modex: each transport adds a tagged section to this process's address
 * blob before the exchange; afterwards it reads peers' sections. */
int rc_modex_add(struct rc_inst *inst, uint16_t tag, const void *data,
		 size_t len);
int rc_modex_exchange(struct rc_inst *inst);
/* Peer's section `tag` (points into a blob the instance owns). */
int rc_modex_get(struct rc_inst *inst, int rank, uint16_t tag,
		 const void **data, size_t *len);

enum rc_modex_tag {
	RC_MODEX_PROC = 1,	/* host, boot id, pid */
	RC_MODEX_SHM,
	RC_MODEX_VERBS,
	RC_MODEX_TCP,
};

void rc_modex_free(struct rc_inst *inst);

/* End the job (all ranks) with `code`; prints msg. Does not return. */
__attribute__((noreturn)) void rc_abort(struct rc_inst *inst, int code,
					const char *msg);

#endif
