/*
 * inst.c - the process-wide instance, the progress engine and the modex.
 *
 * Progress has fixed phases: each registered hook runs once per call, in
 * registration order (pt2pt first: it polls the transports and retries
 * queued sends; completions then drive collective schedules through request
 * callbacks). It never blocks and is never re-entered.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "inst.h"
#include "log.h"
#include "status.h"
#include "request.h"
#include "thread.h"

struct rc_inst rc_g;

unsigned rc_progress(struct rc_inst *inst)
{
	unsigned events = 0;
	int i;

	/* requests finished outside the section go back to their pools
	 * here too: a thread that posts and waits outside it allocates
	 * nothing inside (request.h; one load below MULTIPLE) */
	if (RC_UNLIKELY(__atomic_load_n(&inst->retired, __ATOMIC_RELAXED)))
		rc_req_reap(inst);
	rc_progress_begin(inst);
	for (i = 0; i < inst->nhooks; i++)
		events += inst->hooks[i].fn(inst, inst->hooks[i].arg);
	return rc_progress_end(inst, events);
}

/* About this many looks cost one empty progress call (verbs, one ring
 * open, in the Soft-RoCE VM: 160-190 against 660-820 cycles): an empty
 * spin counts as spin_polls / RC_SPIN_LOOKS_PER_POLL more towards
 * rc_progress_idle's yield, so that a long wait still yields after about
 * the same time. */
#define RC_SPIN_LOOKS_PER_POLL 4

unsigned rc_progress_spin(struct rc_inst *inst, struct rc_req *req)
{
	unsigned n = 0;

	rc_progress_begin(inst);
	if (inst->spin_polls)
		n = inst->spin(inst, req, inst->spin_polls);
	inst->in_progress = 0;
	if (n == RC_SPIN_NONE)
		return RC_SPIN_NONE;
	if (n)
		inst->idle = 0;
	else
		inst->idle += inst->spin_polls / RC_SPIN_LOOKS_PER_POLL;
	return n;
}

void rc_progress_idle_slow(struct rc_inst *inst)
{
	/* At MPI_THREAD_MULTIPLE, the thread waiting here lets the others
	 * into the library (they may post what it waits for); nothing
	 * below MULTIPLE. */
	rc_cs_yield(&rc_cs_big);
	/* With more ranks than cores the peer we wait for may need our core
	 * (RCMPI_YIELD asks for this too). Otherwise spin, as Open MPI
	 * does; over a software RDMA device (yield_after, from
	 * RCMPI_POLLS_BEFORE_YIELD) yield after that many empty polls in a
	 * row: a long wait then lets the kernel's work for the device on
	 * this core go first, and a short one, a message's round trip,
	 * never pays a system call.
	 * The spin has no PAUSE, as Open MPI's, MPICH's and UCX's progress
	 * loops have none: it delays seeing a message by up to its own
	 * length (about 140 cycles on recent x86 cores, and 145 ns under
	 * qemu's binary translation, where it ends the translated block),
	 * which a ping-pong pays on both sides. */
	if (inst->oversubscribed ||
	    (inst->yield_after && inst->idle >= inst->yield_after))
		sched_yield();
}

int rc_progress_register(struct rc_inst *inst, rc_progress_fn fn, void *arg)
{
	if (inst->nhooks == (int)(sizeof(inst->hooks) / sizeof(inst->hooks[0])))
		return RC_ERR_INTERN;
	inst->hooks[inst->nhooks].fn = fn;
	inst->hooks[inst->nhooks].arg = arg;
	inst->nhooks++;
	return RC_OK;
}

void rc_abort(struct rc_inst *inst, int code, const char *msg)
{
	if (msg)
		rc_log_err("%s", msg);
	if (inst && inst->boot.ops && inst->boot.ops->abort)
		inst->boot.ops->abort(&inst->boot, code, msg);
	_exit(code ? code : 1);
}

/* ---- modex ---------------------------------------------------------------
 * Blob layout: sections of { u16 tag, u16 zero, u32 len, data, pad to 8 }.
 */
struct rc_modex_sec {
	uint16_t tag;
	uint16_t zero;
	uint32_t len;
};

#define RC_ALIGN8(x) (((x) + 7) & ~(size_t)7)

int rc_modex_add(struct rc_inst *inst, uint16_t tag, const void *data,
		 size_t len)
{
	size_t need = sizeof(struct rc_modex_sec) + RC_ALIGN8(len);
	struct rc_modex_sec sec = { .tag = tag, .len = (uint32_t)len };
	char *p = realloc(inst->modex_out, inst->modex_out_len + need);

	if (!p)
		return RC_ERR_NOMEM;
	memset(p + inst->modex_out_len, 0, need);
	memcpy(p + inst->modex_out_len, &sec, sizeof(sec));
	memcpy(p + inst->modex_out_len + sizeof(sec), data, len);
	inst->modex_out = p;
	inst->modex_out_len += need;
	return RC_OK;
}

int rc_modex_exchange(struct rc_inst *inst)
{
	int ret;

	inst->modex_in = calloc(inst->size, sizeof(*inst->modex_in));
	inst->modex_in_len = calloc(inst->size, sizeof(*inst->modex_in_len));
	if (!inst->modex_in || !inst->modex_in_len)
		return RC_ERR_NOMEM;
	ret = inst->boot.ops->put(&inst->boot, inst->modex_out,
				  inst->modex_out_len);
	if (ret)
		return ret;
	return inst->boot.ops->fence(&inst->boot, true);
}

int rc_modex_get(struct rc_inst *inst, int rank, uint16_t tag,
		 const void **data, size_t *len)
{
	const char *p, *end;
	int ret;

	if (rank == inst->rank) {
		p = inst->modex_out;
		end = p + inst->modex_out_len;
	} else {
		if (!inst->modex_in[rank]) {
			ret = inst->boot.ops->get(&inst->boot, rank,
						  &inst->modex_in[rank],
						  &inst->modex_in_len[rank]);
			if (ret)
				return ret;
		}
		p = inst->modex_in[rank];
		end = p + inst->modex_in_len[rank];
	}
	while (p + sizeof(struct rc_modex_sec) <= end) {
		struct rc_modex_sec sec;

		memcpy(&sec, p, sizeof(sec));
		if (p + sizeof(sec) + sec.len > end)
			break;
		if (sec.tag == tag) {
			*data = p + sizeof(sec);
			*len = sec.len;
			return RC_OK;
		}
		p += sizeof(sec) + RC_ALIGN8(sec.len);
	}
	return RC_ERR_INVAL;
}


void rc_modex_free(struct rc_inst *inst)
{
	int i;

	if (inst->modex_in)
		for (i = 0; i < inst->size; i++)
			free(inst->modex_in[i]);
	free(inst->modex_in);
	free(inst->modex_in_len);
	free(inst->modex_out);
	inst->modex_in = NULL;
	inst->modex_in_len = NULL;
	inst->modex_out = NULL;
	inst->modex_out_len = 0;
}
