/*
 * init.c - MPI_Init and MPI_Finalize: bring the layers up and down, in order.
 *
 * Init:  bootstrap (PMIx or singleton) -> this process's modex section ->
 *        pt2pt opens its transports (each adds its address) -> one
 *        collecting fence -> peers' host, pid and boot id -> pt2pt picks a
 *        transport per peer and connects -> MPI_COMM_WORLD / MPI_COMM_SELF.
 * Finalize: complete every send this process started (peers may need to
 *        make progress for that, so it spins on progress) -> a barrier over
 *        pt2pt that keeps progressing (over rdma_cm wiring the launcher's
 *        fence, progressing meanwhile: no connection made to say goodbye)
 *        -> close transports -> PMIx_Finalize.
 *
 * This file is the one place where the runtime calls up into pt2pt (and
 * coll and rma): it orchestrates the layers' start and end.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "api.h"
#include "attr.h"
#include "coll.h"
#include "dtype.h"
#include "info.h"
#include "log.h"
#include "param.h"
#include "pt2pt.h"
#include "request.h"
#include "rma.h"
#include "thread.h"
#include "verbs/tp_verbs.h"

/* What every rank publishes about itself. */
struct rc_proc_info {
	int32_t pid;
	int32_t cores;		/* the node's online cores */
	char boot_id[40];
	char host[RC_HOST_MAX];
};

static void read_boot_id(char *out, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	out[0] = 0;
	if (f) {
		if (!fgets(out, (int)len, f))
			out[0] = 0;
		fclose(f);
	}
	out[strcspn(out, "\n")] = 0;
	if (!out[0])
		snprintf(out, len, "unknown-boot-id");
}

static int usable_cores(void)
{
	cpu_set_t set;
	long n;

	/* The node's cores, not our binding: a rank bound to one core still
	 * shares the node with its peers. */
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n > 0)
		return (int)n;
	if (!sched_getaffinity(0, sizeof(set), &set))
		return CPU_COUNT(&set);
	return 1;
}

static int inst_boot(struct rc_inst *inst)
{
	struct rc_boot_info info;
	int ret;

	memset(&info, 0, sizeof(info));
	inst->boot.ops = &rc_boot_pmix_ops;
	ret = inst->boot.ops->init(&inst->boot, &info);
	if (ret == RC_ERR_UNREACH) {
		inst->boot.ops = &rc_boot_single_ops;
		ret = inst->boot.ops->init(&inst->boot, &info);
	}
	if (ret) {
		inst->boot.ops = NULL;
		return ret;
	}
	inst->rank = info.rank;
	inst->size = info.size;
	inst->local_rank = info.local_rank;
	inst->local_size = info.local_size;
	inst->local_peers = info.local_peers;
	inst->singleton = info.singleton;
	inst->universe_size = info.universe_size;
	snprintf(inst->nspace, sizeof(inst->nspace), "%s", info.nspace);
	return RC_OK;
}

/* Ranks and cores of each node seen in the exchange (by boot id). */
struct node_count {
	char boot_id[40];
	int ranks, cores;
};

/* Count one rank (its info pi) on its node; nodes are few and the ranks
 * of a node usually adjacent, so the last node found is tried first. */
static void count_node(struct node_count *nodes, int *nnodes, int *last,
		       const struct rc_proc_info *pi)
{
	int i;

	if (*nnodes && !strcmp(nodes[*last].boot_id, pi->boot_id))
		i = *last;
	else
		for (i = 0; i < *nnodes; i++)
			if (!strcmp(nodes[i].boot_id, pi->boot_id))
				break;
	if (i == *nnodes) {
		snprintf(nodes[i].boot_id, sizeof(nodes[i].boot_id), "%s",
			 pi->boot_id);
		nodes[i].cores = pi->cores;
		(*nnodes)++;
	}
	nodes[i].ranks++;
	*last = i;
}

/* After the exchange: who is where. */
static int inst_learn_peers(struct rc_inst *inst)
{
	int w, nlocal = 0, ret, nnodes = 0, last = 0;
	struct node_count *nodes = calloc(inst->size, sizeof(*nodes));

	if (!nodes)
		return RC_ERR_NOMEM;
	for (w = 0; w < inst->size; w++) {
		struct rc_proc *p = &inst->procs[w];
		struct rc_proc_info pi;
		const void *data;
		size_t len;

		ret = rc_modex_get(inst, w, RC_MODEX_PROC, &data, &len);
		if (ret || len != sizeof(pi)) {
			rc_log_err("no address information from rank %d", w);
			free(nodes);
			return ret ? ret : RC_ERR_BOOT;
		}
		memcpy(&pi, data, sizeof(pi));
		pi.host[sizeof(pi.host) - 1] = 0;
		pi.boot_id[sizeof(pi.boot_id) - 1] = 0;
		p->pid = pi.pid;
		snprintf(p->host, sizeof(p->host), "%s", pi.host);
		/* locality is the kernel, not the host name */
		p->local = !strcmp(pi.boot_id, inst->boot_id);
		nlocal += p->local;
		count_node(nodes, &nnodes, &last, &pi);
	}
	inst->oversubscribed =
		nlocal > usable_cores() || rc_param_bool(RC_P_YIELD);
	inst->yield_after = rc_inst_yield_after(inst->soft_device);
	inst->spin_polls = (unsigned)rc_param_int(RC_P_SPIN_POLLS);
	/* the same answer on every rank: what collectives may choose by */
	inst->job_oversubscribed = false;
	for (w = 0; w < nnodes; w++)
		if (nodes[w].ranks > nodes[w].cores)
			inst->job_oversubscribed = true;
	free(nodes);
	return RC_OK;
}

/* Yielding in a long wait helps when the kernel does a device's work on
 * our cores; elsewhere it hands the core to whatever else runs there, for
 * a whole time slice per wait (a loaded node: LAMMPS's min.box at 2 ranks
 * beside 6 busy loops, 18 s spinning, over 60 s yielding; Open MPI 18 s). */
unsigned rc_inst_yield_after(bool soft_device)
{
	return (unsigned)rc_param_int_at(RC_P_POLLS_BEFORE_YIELD,
					 soft_device ? 1000 : 0, 1L << 30);
}

int rc_inst_open(struct rc_inst *inst);
int rc_inst_open(struct rc_inst *inst)
{
	struct rc_proc_info pi;
	int ret;

	rc_handles_init();
	ret = inst_boot(inst);
	if (ret)
		return ret;
	rc_req_pool_init(inst);
	read_boot_id(inst->boot_id, sizeof(inst->boot_id));
	memset(&pi, 0, sizeof(pi));
	pi.pid = (int32_t)getpid();
	pi.cores = usable_cores();
	snprintf(pi.boot_id, sizeof(pi.boot_id), "%s", inst->boot_id);
	snprintf(pi.host, sizeof(pi.host), "%s", inst->host);
	rc_log_set_identity(inst->rank, inst->host);
	/* misspelled parameters: once per job (our launchers checked their
	 * environment already and say so) */
	if (inst->rank == 0 && !rc_param_bool(RC_P_PARAMS_CHECKED))
		rc_param_check_env();

	inst->procs = calloc(inst->size, sizeof(*inst->procs));
	if (!inst->procs)
		return RC_ERR_NOMEM;
	ret = rc_modex_add(inst, RC_MODEX_PROC, &pi, sizeof(pi));
	if (ret)
		return ret;
	ret = rc_p2p_open(inst);
	if (ret)
		return ret;
	ret = rc_modex_exchange(inst);
	if (ret)
		return ret;
	ret = inst_learn_peers(inst);
	if (ret)
		return ret;
	ret = rc_p2p_connect(inst);
	if (ret)
		return ret;
	ret = rc_comm_init_world(inst, &rc_mpi_comm_world, &rc_mpi_comm_self);
	if (ret)
		return ret;
	ret = rc_coll_open(inst);
	if (ret)
		return ret;
	return rc_rma_open(inst);
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	struct rc_inst *inst = &rc_g;
	int ret;

	if (inst->initialized || inst->finalized)
		return RC_ERR_MSG(NULL, MPI_ERR_OTHER, "MPI_Init",
				  inst->finalized ? "called after MPI_Finalize"
						  : "MPI is already initialised");
	if (gethostname(inst->host, sizeof(inst->host)))
		snprintf(inst->host, sizeof(inst->host), "unknown");
	inst->host[sizeof(inst->host) - 1] = 0;
	ret = rc_inst_open(inst);
	if (ret) {
		char msg[160];

		snprintf(msg, sizeof(msg), "MPI_Init failed: %s",
			 rc_status_str(ret));
		rc_abort(inst, 1, msg);
	}
	/* The level asked for is the level provided (MPI_THREAD_MULTIPLE
	 * on every transport: runtime/thread.h's sections are taken from
	 * here on). Below MULTIPLE no lock is ever taken. */
	inst->thread_level = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE
			     : required > MPI_THREAD_MULTIPLE
				     ? MPI_THREAD_MULTIPLE
				     : required;
	rc_thread_multiple = inst->thread_level == MPI_THREAD_MULTIPLE;
	inst->thread_main = (void *)pthread_self();
	rc_info_env_fill(inst, required);
	inst->initialized = true;
	if (provided)
		*provided = inst->thread_level;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Init_thread)

int PMPI_Init(int *argc, char ***argv)
{
	int provided;

	return PMPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}
RC_WEAK(MPI_Init)

/* Initialized, Finalized, Query_thread and Is_thread_main stay outside the
 * critical section (runtime/thread.h): they read what MPI_Init_thread and
 * MPI_Finalize write, and no other thread runs while those do (MPI-3.1
 * 12.4.3); they may be called before MPI_Init, when there is no section. */
int PMPI_Initialized(int *flag)
{
	if (!flag)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Initialized");
	*flag = rc_g.initialized;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Initialized)

int PMPI_Finalized(int *flag)
{
	if (!flag)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Finalized");
	*flag = rc_g.finalized;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Finalized)

int PMPI_Query_thread(int *provided)
{
	RC_API_CHECK_INIT("MPI_Query_thread");
	if (!provided)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Query_thread");
	*provided = rc_g.thread_level;
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Query_thread)

int PMPI_Is_thread_main(int *flag)
{
	RC_API_CHECK_INIT("MPI_Is_thread_main");
	if (!flag)
		return RC_ERR(NULL, MPI_ERR_ARG, "MPI_Is_thread_main");
	*flag = pthread_equal(pthread_self(), (pthread_t)rc_g.thread_main);
	return MPI_SUCCESS;
}
RC_WEAK(MPI_Is_thread_main)

void rc_inst_close(struct rc_inst *inst);
void rc_inst_close(struct rc_inst *inst)
{
	rc_req_reap(inst); /* before the communicators they hold go */
	rc_rma_close(inst);
	rc_coll_close(inst);
	rc_p2p_close(inst);
	rc_rma_reap();
	rc_comm_fini_world(inst);
	rc_modex_free(inst);
	rc_req_pool_fini(inst);
	free(inst->procs);
	inst->procs = NULL;
	free(inst->local_peers);
	inst->local_peers = NULL;
}

/* Delete every attribute of one object (reverse order of setting); the
 * first failing callback's code, the attributes it left dropped. */
static int finalize_attrs_of(enum rc_akind kind, void *obj,
			     struct rc_attr **list, int err)
{
	int e = rc_attr_delete_all(kind, obj, list);

	rc_attr_discard(list);
	return err ? err : e;
}

/*
 * Attributes go first, while every MPI call still works: MPI_COMM_SELF's
 * in the reverse order of setting (MPI-3.1 8.7.1; tools rely on it), then
 * MPI_COMM_WORLD's and those of the predefined datatypes. A failing
 * delete callback does not stop the others; its code is raised on world.
 */
static int finalize_attrs(struct rc_inst *inst)
{
	int err = 0;
	size_t i;

	err = finalize_attrs_of(RC_AK_COMM, inst->self, &inst->self->attrs,
				err);
	err = finalize_attrs_of(RC_AK_COMM, inst->world, &inst->world->attrs,
				err);
	for (i = 0; i < rc_dt_npredefined; i++)
		err = finalize_attrs_of(RC_AK_TYPE, rc_dt_predefined[i],
					&rc_dt_predefined[i]->attrs, err);
	return err;
}

/*
 * Every process has drained before any closes its transports; until then
 * each keeps progressing (a peer's drain may need our credits or
 * acknowledgements). A barrier over pt2pt does both, but over rdma_cm
 * wiring it would connect each process to log2 N new partners only to
 * say goodbye: there the launcher's fence, started without blocking,
 * while we progress.
 */
static int finalize_sync(struct rc_inst *inst)
{
	int done = 0, ret;

	if (!inst->boot.ops->fence_start || !rc_tp_verbs_on_demand(inst))
		return rc_coll_fence(inst);
	ret = inst->boot.ops->fence_start(&inst->boot, &done);
	if (ret)
		return ret;
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		if (!rc_progress(inst))
			rc_progress_idle(inst);
	return done > 0 ? RC_OK : RC_ERR_BOOT;
}

static int api_finalize(void)
{
	struct rc_inst *inst = &rc_g;
	int ret, aerr;

	RC_API_CHECK_INIT("MPI_Finalize");
	aerr = finalize_attrs(inst);
	if (aerr)
		aerr = RC_ERR(inst->world, aerr, "MPI_Finalize");
	ret = rc_p2p_drain(inst);
	if (!ret)
		ret = finalize_sync(inst);
	if (ret)
		return rc_api_status(inst->world, ret, "MPI_Finalize");
	rc_inst_close(inst);
	inst->boot.ops->fini(&inst->boot);
	rc_dt_f90_fini();
	rc_info_free(&rc_mpi_info_env); /* its entries */
	rc_err_codes_fini();
	rc_handles_fini();
	inst->finalized = true;
	/* The other threads have stopped calling MPI (MPI-3.1 12.4.3); the
	 * caller's section is released by PMPI_Finalize on its way out. */
	rc_thread_multiple = false;
	return aerr;
}

int PMPI_Finalize(void)
{
	return RC_CS_CALL(&rc_cs_big, api_finalize());
}
RC_WEAK(MPI_Finalize)

/* Outside the critical section: it must end the job even while another
 * thread of this process holds the section in a blocking call. */
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
	char msg[200];

	snprintf(msg, sizeof(msg), "MPI_Abort(%s, %d) called",
		 comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD"
		 : comm == MPI_COMM_SELF ? "MPI_COMM_SELF"
					 : "comm",
		 errorcode);
	rc_abort(&rc_g, errorcode, msg);
}
RC_WEAK(MPI_Abort)
