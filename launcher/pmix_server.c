/*
 * pmix_server.c - the launcher as a PMIx server (OpenPMIx server API).
 *
 * Start-up, on the main thread, before any rank exists:
 *   PMIx_server_init(private tmpdir, hostname)
 *   PMIx_server_register_nspace(ns, nlocal, job/node/proc keys) → wait
 *   PMIx_server_register_client(rank) for each local rank → wait once
 *   PMIx_server_setup_fork(rank, &env) per rank, then the caller forks.
 *
 * While the job runs libpmix calls the host module below on its own
 * progress thread. Those callbacks must not block and must not touch the
 * job: each one copies what it was given into a struct rc_pev, appends it
 * to a mutex-protected queue and writes a byte to a non-blocking pipe the
 * main loop polls. Then, per callback:
 *   client_connected   event; no reply (4.2.2 passes no cbfunc)
 *   client_finalized   event, then reply at once: the event is queued
 *                      before the client can exit, so the main loop sees
 *                      "finalized" before it reaps the process
 *   abort              event; the main loop kills the job, then replies
 *                      (rc_psrv_ack), so the abort is recorded before the
 *                      aborting rank can exit
 *   fence_nb           event with this node's blob; the main loop gathers
 *                      the blobs of every node hosting participants
 *                      (fence.c) and hands the concatenation back
 *                      (rc_psrv_fence_done). On one node libpmix completes
 *                      fences itself unless the environment has
 *                      PMIX_MCA_pmix_server_fence_localonly_opt=0.
 *
 * Registered keys: job (UNIV/JOB/MAX_PROCS/APP_SIZE, JOBID, NUM_NODES,
 * NODE_MAP and PROC_MAP regexes, TMPDIR), this node (LOCAL_SIZE,
 * NODE_SIZE, LOCAL_PEERS, LOCALLDR) and per rank a PMIX_PROC_DATA array
 * (RANK first, then NODEID, LOCAL_RANK, NODE_RANK, HOSTNAME, APPNUM).
 *
 * Teardown: rc_psrv_fini deregisters and finalizes under a watchdog, as
 * libpmix 4.2.2 can deadlock there after a client died mid-handshake;
 * callers skip it entirely after an abnormal end.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "launcher.h"

/* a queued event and what is needed to answer it */
struct psrv_ev {
	struct rc_pev pub;
	pmix_op_cbfunc_t opcb;
	pmix_modex_cbfunc_t modexcb;
	void *cbdata;
};

static struct {
	pthread_mutex_t lock;
	struct psrv_ev *head, *tail;
	int wake[2];
	bool inited;
	const struct rc_jobmap *map;
} psrv = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = { -1, -1 },
};

#define psrv_of(ev) ((struct psrv_ev *)(void *)((char *)(ev) - \
	offsetof(struct psrv_ev, pub)))

/* ---- the queue (any thread → main loop) ------------------------------- */

static void psrv_post(struct psrv_ev *e)
{
	char c = 0;
	ssize_t n;

	pthread_mutex_lock(&psrv.lock);
	if (psrv.tail)
		psrv.tail->pub.next = &e->pub;
	else
		psrv.head = e;
	psrv.tail = e;
	pthread_mutex_unlock(&psrv.lock);
	/* full pipe: a wakeup is pending anyway */
	do {
		n = write(psrv.wake[1], &c, 1);
	} while (n < 0 && errno == EINTR);
}

static struct psrv_ev *psrv_ev_new(enum rc_pev_type type, int rank)
{
	struct psrv_ev *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->pub.type = type;
	e->pub.rank = rank;
	return e;
}

int rc_psrv_event_fd(void)
{
	return psrv.wake[0];
}

void rc_psrv_drain_wakeups(void)
{
	char junk[256];

	while (read(psrv.wake[0], junk, sizeof(junk)) > 0)
		;
}

/* an event posted after the drain leaves its byte: poll wakes us again */
struct rc_pev *rc_psrv_next(void)
{
	struct psrv_ev *e;

	pthread_mutex_lock(&psrv.lock);
	e = psrv.head;
	if (e) {
		psrv.head = e->pub.next ? psrv_of(e->pub.next) : NULL;
		if (!psrv.head)
			psrv.tail = NULL;
		e->pub.next = NULL;
	}
	pthread_mutex_unlock(&psrv.lock);
	return e ? &e->pub : NULL;
}

void rc_pev_free(struct rc_pev *ev)
{
	if (!ev)
		return;
	free(ev->msg);
	free(ev->sig);
	free(ev->data);
	free(psrv_of(ev));
}

void rc_psrv_ack(struct rc_pev *ev, bool ok)
{
	struct psrv_ev *e = psrv_of(ev);

	if (e->opcb) {
		e->opcb(ok ? PMIX_SUCCESS : PMIX_ERROR, e->cbdata);
		e->opcb = NULL;
	}
}

static void psrv_release(void *cbdata)
{
	free(cbdata);
}

void rc_psrv_fence_done(struct rc_pev *ev, bool ok, char *buf, size_t len)
{
	struct psrv_ev *e = psrv_of(ev);

	if (e->modexcb)
		e->modexcb(ok ? PMIX_SUCCESS : PMIX_ERROR, buf, len,
			   e->cbdata, psrv_release, buf);
	else
		free(buf);
	rc_pev_free(ev);
}

/* ---- host module: runs on libpmix's thread ----------------------------- */

static bool psrv_ours(const pmix_proc_t *p)
{
	return psrv.map && PMIX_CHECK_NSPACE(p->nspace, psrv.map->nspace) &&
	       p->rank < (pmix_rank_t)psrv.map->size;
}

/* A client's connect or finalize: queue the event for the main loop
 * (first: the client cannot exit before we reply), then answer. */
static pmix_status_t psrv_lifecycle(enum rc_pev_type kind,
				    const pmix_proc_t *proc,
				    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct psrv_ev *e;

	if (psrv_ours(proc)) {
		e = psrv_ev_new(kind, (int)proc->rank);
		if (e)
			psrv_post(e);
	}
	if (!cbfunc)
		return PMIX_OPERATION_SUCCEEDED;
	cbfunc(PMIX_SUCCESS, cbdata);
	return PMIX_SUCCESS;
}

static pmix_status_t psrv_connected(const pmix_proc_t *proc, void *obj,
				    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return psrv_lifecycle(RC_PEV_CONNECTED, proc, cbfunc, cbdata);
}

static pmix_status_t psrv_finalized(const pmix_proc_t *proc, void *obj,
				    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return psrv_lifecycle(RC_PEV_FINALIZED, proc, cbfunc, cbdata);
}

static pmix_status_t psrv_abort(const pmix_proc_t *proc, void *obj,
				int status, const char msg[],
				pmix_proc_t procs[], size_t nprocs,
				pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct psrv_ev *e;

	if (!psrv_ours(proc))
		return PMIX_ERR_NOT_SUPPORTED;
	e = psrv_ev_new(RC_PEV_ABORT, (int)proc->rank);
	if (!e)
		return PMIX_ERR_NOMEM;
	e->pub.status = status;
	e->pub.msg = msg ? strdup(msg) : NULL;
	e->opcb = cbfunc;
	e->cbdata = cbdata;
	psrv_post(e);
	return PMIX_SUCCESS;
}

/* "ns:*" or "ns:0,ns:3,..." and how many nodes host them */
static char *psrv_fence_sig(const pmix_proc_t procs[], size_t nprocs,
			    int *nnodes)
{
	const struct rc_jobmap *m = psrv.map;
	size_t i, len = 1, off = 0;
	char *sig, *seen;
	int n = 0;

	seen = calloc(m->nnodes, 1);
	if (!seen)
		return NULL;
	for (i = 0; i < nprocs; i++)
		len += strlen(procs[i].nspace) + 16;
	sig = malloc(len);
	if (!sig)
		goto out;
	sig[0] = 0;
	for (i = 0; i < nprocs; i++) {
		const pmix_proc_t *p = &procs[i];
		bool ours = PMIX_CHECK_NSPACE(p->nspace, m->nspace);

		if (p->rank == PMIX_RANK_WILDCARD) {
			off += snprintf(sig + off, len - off, "%s%s:*",
					i ? "," : "", p->nspace);
			if (ours)
				memset(seen, 1, m->nnodes);
		} else {
			off += snprintf(sig + off, len - off, "%s%s:%u",
					i ? "," : "", p->nspace, p->rank);
			if (ours && p->rank < (pmix_rank_t)m->size)
				seen[m->node_of[p->rank]] = 1;
		}
	}
	for (i = 0; i < (size_t)m->nnodes; i++)
		n += seen[i];
	*nnodes = n ? n : 1;
out:
	free(seen);
	return sig;
}

static pmix_status_t psrv_fence(const pmix_proc_t procs[], size_t nprocs,
				const pmix_info_t info[], size_t ninfo,
				char *data, size_t ndata,
				pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	struct psrv_ev *e;

	e = psrv_ev_new(RC_PEV_FENCE, -1);
	if (!e)
		return PMIX_ERR_NOMEM;
	e->pub.sig = psrv_fence_sig(procs, nprocs, &e->pub.nnodes);
	if (!e->pub.sig)
		goto err_free;
	if (ndata) {
		e->pub.data = malloc(ndata);
		if (!e->pub.data)
			goto err_free;
		memcpy(e->pub.data, data, ndata);
		e->pub.ndata = ndata;
	}
	e->modexcb = cbfunc;
	e->cbdata = cbdata;
	psrv_post(e);
	return PMIX_SUCCESS;

err_free:
	rc_pev_free(&e->pub);
	return PMIX_ERR_NOMEM;
}

static pmix_server_module_t psrv_module = {
	.client_connected = psrv_connected,
	.client_finalized = psrv_finalized,
	.abort = psrv_abort,
	.fence_nb = psrv_fence,
};

/* ---- synchronous helpers for start-up (main thread waits) -------------- */

struct psrv_wait {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int pending;
	pmix_status_t status;
};

static struct psrv_wait *psrv_wait_new(int pending)
{
	struct psrv_wait *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->pending = pending;
	w->status = PMIX_SUCCESS;
	return w;
}

static void psrv_wait_cb(pmix_status_t status, void *cbdata)
{
	struct psrv_wait *w = cbdata;

	pthread_mutex_lock(&w->lock);
	if (status != PMIX_SUCCESS)
		w->status = status;
	w->pending--;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/*
 * Wait for every callback, at most max_s seconds; the status they gave.
 * After a timeout `w` is left to the late callbacks (leaked: we are on
 * our way out).
 */
static pmix_status_t psrv_wait_finish(struct psrv_wait *w, double max_s)
{
	pmix_status_t status;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)max_s;
	ts.tv_nsec += (long)((max_s - (time_t)max_s) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w->lock);
	while (w->pending > 0) {
		if (pthread_cond_timedwait(&w->cond, &w->lock, &ts) ==
		    ETIMEDOUT) {
			pthread_mutex_unlock(&w->lock);
			return PMIX_ERR_TIMEOUT;
		}
	}
	status = w->status;
	pthread_mutex_unlock(&w->lock);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w);
	return status;
}

/* ---- public ------------------------------------------------------------ */

int rc_psrv_init(const char *tmpdir, const char *host)
{
	pmix_info_t *info;
	pmix_rank_t srank = 0;
	char sns[RC_NSLEN];
	pmix_status_t rc;
	size_t n = 0;
	bool pci_off;

	if (pipe2(psrv.wake, O_CLOEXEC | O_NONBLOCK)) {
		rc_lerr("pipe: %s", strerror(errno));
		return -1;
	}
	snprintf(sns, sizeof(sns), "rcmpi-server.%s.%d", host, (int)getpid());
	PMIX_INFO_CREATE(info, 5);
	PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
	PMIX_INFO_LOAD(&info[n++], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
	PMIX_INFO_LOAD(&info[n++], PMIX_HOSTNAME, host, PMIX_STRING);
	PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_NSPACE, sns, PMIX_STRING);
	PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_RANK, &srank, PMIX_PROC_RANK);
	/*
	 * PMIx_server_init loads this node's hwloc topology. hwloc's PCI
	 * discovery (libpciaccess reading pci.ids, a realloc per line) costs
	 * a second, and tens of seconds under AddressSanitizer, for objects
	 * nothing here uses. Unless the user chose hwloc components, leave
	 * PCI out for this one call (the ranks' environments are built
	 * already and never see it).
	 */
	pci_off = !getenv("HWLOC_COMPONENTS") &&
		  !setenv("HWLOC_COMPONENTS", "-pci", 0);
	rc = PMIx_server_init(&psrv_module, info, n);
	if (pci_off)
		unsetenv("HWLOC_COMPONENTS");
	PMIX_INFO_FREE(info, 5);
	if (rc != PMIX_SUCCESS) {
		rc_lerr("PMIx_server_init: %s", PMIx_Error_string(rc));
		goto err_close_pipe;
	}
	psrv.inited = true;
	return 0;

err_close_pipe:
	close(psrv.wake[0]);
	close(psrv.wake[1]);
	psrv.wake[0] = psrv.wake[1] = -1;
	return -1;
}

int rc_jobmap_local(const struct rc_jobmap *m, int node, int *ranks)
{
	int r, n = 0;

	for (r = 0; r < m->size; r++)
		if (m->node_of[r] == node)
			ranks[n++] = r;
	return n;
}

/* "0,1,2" */
static char *psrv_rank_list(const int *ranks, int n)
{
	size_t len = (size_t)n * 12 + 1, off = 0;
	char *s = malloc(len);
	int i;

	if (!s)
		return NULL;
	s[0] = 0;
	for (i = 0; i < n; i++)
		off += snprintf(s + off, len - off, "%s%d", i ? "," : "",
				ranks[i]);
	return s;
}

/* NODE_MAP input "h0,h1" and PROC_MAP input "0,1;2,3" */
static int psrv_maps(const struct rc_jobmap *m, char **nodemap,
		     char **procmap)
{
	size_t hl = 1, pl = (size_t)m->size * 12 + m->nnodes + 1;
	char *hosts, *ppn, *list;
	int *ranks, i, n, ret = -1;
	pmix_status_t rc;

	for (i = 0; i < m->nnodes; i++)
		hl += strlen(m->hosts[i]) + 1;
	hosts = malloc(hl);
	ppn = malloc(pl);
	ranks = malloc(sizeof(*ranks) * (m->size + 1));
	if (!hosts || !ppn || !ranks)
		goto out;
	hosts[0] = ppn[0] = 0;
	for (i = 0; i < m->nnodes; i++) {
		if (i) {
			strcat(hosts, ",");
			strcat(ppn, ";");
		}
		strcat(hosts, m->hosts[i]);
		n = rc_jobmap_local(m, i, ranks);
		list = psrv_rank_list(ranks, n);
		if (!list)
			goto out;
		strcat(ppn, list);
		free(list);
	}
	rc = PMIx_generate_regex(hosts, nodemap);
	if (rc != PMIX_SUCCESS) {
		rc_lerr("PMIx_generate_regex: %s", PMIx_Error_string(rc));
		goto out;
	}
	rc = PMIx_generate_ppn(ppn, procmap);
	if (rc != PMIX_SUCCESS) {
		rc_lerr("PMIx_generate_ppn: %s", PMIx_Error_string(rc));
		free(*nodemap);
		goto out;
	}
	ret = 0;
out:
	free(hosts);
	free(ppn);
	free(ranks);
	return ret;
}

static void psrv_load_u32(pmix_info_t *i, const char *key, uint32_t v)
{
	PMIX_INFO_LOAD(i, key, &v, PMIX_UINT32);
}

static void psrv_load_u16(pmix_info_t *i, const char *key, uint16_t v)
{
	PMIX_INFO_LOAD(i, key, &v, PMIX_UINT16);
}

static void psrv_load_rank(pmix_info_t *i, const char *key, pmix_rank_t v)
{
	PMIX_INFO_LOAD(i, key, &v, PMIX_PROC_RANK);
}

#define PSRV_JOB_KEYS 15
#define PSRV_REGISTER_MAX_S 60.0
#define PSRV_PROC_KEYS 8

static int psrv_proc_data(pmix_info_t *slot, const struct rc_jobmap *m,
			  int rank)
{
	pmix_data_array_t *da;
	pmix_info_t *pi;
	int node = m->node_of[rank];
	size_t k = 0;

	PMIX_DATA_ARRAY_CREATE(da, PSRV_PROC_KEYS, PMIX_INFO);
	if (!da)
		return -1;
	pi = da->array;
	psrv_load_rank(&pi[k++], PMIX_RANK, (pmix_rank_t)rank);
	psrv_load_rank(&pi[k++], PMIX_GLOBAL_RANK, (pmix_rank_t)rank);
	psrv_load_rank(&pi[k++], PMIX_APP_RANK, (pmix_rank_t)rank);
	psrv_load_u32(&pi[k++], PMIX_APPNUM, 0);
	psrv_load_u32(&pi[k++], PMIX_NODEID, (uint32_t)node);
	psrv_load_u16(&pi[k++], PMIX_LOCAL_RANK, (uint16_t)m->local_rank[rank]);
	psrv_load_u16(&pi[k++], PMIX_NODE_RANK, (uint16_t)m->local_rank[rank]);
	PMIX_INFO_LOAD(&pi[k++], PMIX_HOSTNAME, m->hosts[node], PMIX_STRING);
	da->size = k;
	PMIX_LOAD_KEY(slot->key, PMIX_PROC_DATA);
	slot->value.type = PMIX_DATA_ARRAY;
	slot->value.data.darray = da;
	return 0;
}

int rc_psrv_register(const struct rc_jobmap *m, int my_node,
		     const char *tmpdir)
{
	char *nodemap = NULL, *procmap = NULL, *peers = NULL;
	size_t ninfo, k = 0;
	pmix_info_t *info;
	pmix_status_t rc;
	pmix_proc_t proc;
	int *local, nlocal, i, ret = -1;
	struct psrv_wait *w;

	psrv.map = m;
	local = malloc(sizeof(*local) * (m->size + 1));
	if (!local)
		return -1;
	nlocal = rc_jobmap_local(m, my_node, local);
	peers = psrv_rank_list(local, nlocal);
	if (!peers || psrv_maps(m, &nodemap, &procmap))
		goto out;

	ninfo = PSRV_JOB_KEYS + m->size;
	PMIX_INFO_CREATE(info, ninfo);
	if (!info)
		goto out;
	psrv_load_u32(&info[k++], PMIX_UNIV_SIZE, m->size);
	psrv_load_u32(&info[k++], PMIX_JOB_SIZE, m->size);
	psrv_load_u32(&info[k++], PMIX_MAX_PROCS, m->size);
	psrv_load_u32(&info[k++], PMIX_APP_SIZE, m->size);
	PMIX_INFO_LOAD(&info[k++], PMIX_JOBID, m->nspace, PMIX_STRING);
	psrv_load_u32(&info[k++], PMIX_NUM_NODES, m->nnodes);
	PMIX_INFO_LOAD(&info[k++], PMIX_NODE_MAP, nodemap, PMIX_STRING);
	PMIX_INFO_LOAD(&info[k++], PMIX_PROC_MAP, procmap, PMIX_STRING);
	PMIX_INFO_LOAD(&info[k++], PMIX_TMPDIR, tmpdir, PMIX_STRING);
	psrv_load_u32(&info[k++], PMIX_LOCAL_SIZE, nlocal);
	psrv_load_u32(&info[k++], PMIX_NODE_SIZE, nlocal);
	PMIX_INFO_LOAD(&info[k++], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
	if (nlocal)
		psrv_load_rank(&info[k++], PMIX_LOCALLDR,
			       (pmix_rank_t)local[0]);
	for (i = 0; i < m->size; i++)
		if (psrv_proc_data(&info[k++], m, i))
			goto out_info;

	w = psrv_wait_new(1);
	if (!w)
		goto out_info;
	rc = PMIx_server_register_nspace(m->nspace, nlocal, info, k,
					 psrv_wait_cb, w);
	if (rc == PMIX_OPERATION_SUCCEEDED || rc != PMIX_SUCCESS)
		psrv_wait_cb(rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc,
			     w);
	rc = psrv_wait_finish(w, PSRV_REGISTER_MAX_S);
	if (rc != PMIX_SUCCESS) {
		rc_lerr("PMIx_server_register_nspace: %s",
			PMIx_Error_string(rc));
		goto out_info;
	}

	/* every client at once, one wait */
	w = psrv_wait_new(nlocal);
	if (!w)
		goto out_info;
	for (i = 0; i < nlocal; i++) {
		PMIX_LOAD_PROCID(&proc, m->nspace, (pmix_rank_t)local[i]);
		rc = PMIx_server_register_client(&proc, getuid(), getgid(),
						 NULL, psrv_wait_cb, w);
		if (rc == PMIX_OPERATION_SUCCEEDED)
			psrv_wait_cb(PMIX_SUCCESS, w);
		else if (rc != PMIX_SUCCESS)
			psrv_wait_cb(rc, w);
	}
	rc = psrv_wait_finish(w, PSRV_REGISTER_MAX_S);
	if (rc != PMIX_SUCCESS) {
		rc_lerr("PMIx_server_register_client: %s",
			PMIx_Error_string(rc));
		goto out_info;
	}
	ret = 0;
out_info:
	PMIX_INFO_FREE(info, ninfo);
out:
	free(nodemap);
	free(procmap);
	free(peers);
	free(local);
	return ret;
}

int rc_psrv_setup_fork(const char *nspace, int rank, char ***env)
{
	pmix_proc_t proc;
	pmix_status_t rc;

	PMIX_LOAD_PROCID(&proc, nspace, (pmix_rank_t)rank);
	rc = PMIx_server_setup_fork(&proc, env);
	if (rc != PMIX_SUCCESS) {
		rc_lerr("PMIx_server_setup_fork(rank %d): %s", rank,
			PMIx_Error_string(rc));
		return -1;
	}
	return 0;
}

bool rc_psrv_fini(const char *nspace, double max_s)
{
	struct psrv_wait *w;
	pmix_status_t rc;

	if (!psrv.inited)
		return true;
	w = psrv_wait_new(1);
	if (!w)
		return false;
	PMIx_server_deregister_nspace(nspace, psrv_wait_cb, w);
	if (psrv_wait_finish(w, max_s) == PMIX_ERR_TIMEOUT)
		return false;
	rc = PMIx_server_finalize();
	psrv.inited = false;
	psrv.map = NULL;
	return rc == PMIX_SUCCESS;
}
