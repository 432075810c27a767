/*
 * node.c - the ranks of one node, as both mpirun (for the ranks on its own
 * host) and rcmpid (for the ranks on its host) run them.
 *
 * Start-up (rc_node_start; nothing is left half-done on failure once
 * rc_node_abort_startup ran): usable CPUs and binding → private tmpdir →
 * PMIx server (this node's name from the job map) → namespace with the
 * whole job's maps and this node's clients → one environment per rank
 * (PMIx_server_setup_fork over a common base) → fork every local rank.
 *
 * While the job runs the owner's poll() loop includes this node's fds
 * (rc_node_pollfds / rc_node_handle) and hands every child it reaps to
 * rc_node_child, then calls rc_node_judge once per batch. What happens is
 * reported through the owner's callbacks (struct rc_node_ops), in an order
 * that lets the owner blame the right rank:
 *   - PMIx events queued before a batch of exits first ("finalized"
 *     precedes the exit of a rank that finalized);
 *   - then the exits of the batch, deaths by signal before plain exits
 *     (a killed rank's peers fail in turn and are often reaped with it);
 *   - then the aborts queued meanwhile.
 * A rank's remaining output is drained before its exit is reported.
 *
 * Teardown (rc_node_exit): after a normal end libpmix is torn down under a
 * watchdog; after an abnormal one that is skipped (libpmix 4.2.2 can hang
 * when a client died mid-handshake). The tmpdir and any
 * /dev/shm/rcmpi.<nspace>.* segment left by crashed ranks are removed.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"

#define NODE_TEARDOWN_MAX_S 5.0

extern char **environ;

/* ---- environments -------------------------------------------------------- */

void rc_env_free(char **env)
{
	char **e;

	if (!env)
		return;
	for (e = env; *e; e++)
		free(*e);
	free(env);
}

static int env_set(char ***envp, int *n, const char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t nl = eq ? (size_t)(eq - entry) : strlen(entry);
	char **env = *envp, **ne;
	int i;

	for (i = 0; i < *n; i++) {
		if (!strncmp(env[i], entry, nl) && env[i][nl] == '=') {
			free(env[i]);
			env[i] = strdup(entry);
			return env[i] ? 0 : -1;
		}
	}
	ne = realloc(env, sizeof(*ne) * (*n + 2));
	if (!ne)
		return -1;
	*envp = ne;
	ne[*n] = strdup(entry);
	if (!ne[*n])
		return -1;
	ne[++*n] = NULL;
	return 0;
}

char **rc_env_base(char *const *set, int nset)
{
	char **env, **e;
	int n = 0, i;

	for (e = environ; *e; e++)
		n++;
	env = calloc(n + 1, sizeof(*env));
	if (!env)
		return NULL;
	n = 0;
	for (e = environ; *e; e++) {
		/* another PMIx server's variables (we may run under one) */
		if (!strncmp(*e, "PMIX_", 5) && strncmp(*e, "PMIX_MCA_", 9))
			continue;
		env[n] = strdup(*e);
		if (!env[n++])
			goto err;
	}
	for (i = 0; i < nset; i++)
		if (env_set(&env, &n, set[i]))
			goto err;
	return env;
err:
	rc_env_free(env);
	return NULL;
}

static char **env_copy(char **base)
{
	char **env;
	int n = 0, i;

	while (base[n])
		n++;
	env = calloc(n + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0; i < n; i++) {
		env[i] = strdup(base[i]);
		if (!env[i]) {
			rc_env_free(env);
			return NULL;
		}
	}
	return env;
}

/* ---- files ----------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	remove(path);
	return 0;
}

void rc_node_cleanup(struct rc_node *n)
{
	char prefix[RC_NSLEN + 16], path[PATH_MAX];
	struct dirent *de;
	size_t plen;
	DIR *d;

	if (n->have_tmpdir) {
		nftw(n->tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		n->have_tmpdir = false;
	}
	if (!n->map || !n->map->nspace[0] || !n->nlocal)
		return;
	/* segments of ranks that crashed before unlinking them */
	plen = (size_t)snprintf(prefix, sizeof(prefix), "rcmpi.%s.",
				n->map->nspace);
	d = opendir("/dev/shm");
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, plen))
			continue;
		snprintf(path, sizeof(path), "/dev/shm/%s", de->d_name);
		unlink(path);
	}
	closedir(d);
}

static int node_tmpdir(struct rc_node *n)
{
	const char *base = getenv("TMPDIR");
	struct stat st;

	if (!base || !*base || stat(base, &st) || !S_ISDIR(st.st_mode))
		base = "/tmp";
	snprintf(n->tmpdir, sizeof(n->tmpdir), "%s/rcmpi.%d.XXXXXX", base,
		 (int)getpid());
	if (!mkdtemp(n->tmpdir)) {
		rc_lerr("cannot create a directory in %s: %s", base,
			strerror(errno));
		return -1;
	}
	n->have_tmpdir = true;
	return 0;
}

/* ---- exit ------------------------------------------------------------------ */

static struct {
	struct rc_node *node;
	int code;
} node_exiting;

static void *node_watchdog(void *arg)
{
	struct timespec ts = { .tv_sec = (time_t)NODE_TEARDOWN_MAX_S };

	nanosleep(&ts, NULL);
	rc_lmsg("warning: PMIx server teardown hangs; exiting without it");
	rc_node_cleanup(node_exiting.node);
	_exit(node_exiting.code);
	return NULL;
}

void rc_node_exit(struct rc_node *n, int code, bool normal)
{
	pthread_t wd;

	node_exiting.node = n;
	node_exiting.code = code;
	if (n->pmix_up && normal &&
	    !pthread_create(&wd, NULL, node_watchdog, NULL))
		rc_psrv_fini(n->map->nspace, NODE_TEARDOWN_MAX_S);
	rc_node_cleanup(n);
	fflush(stdout);
	fflush(stderr);
	/* libpmix threads may still run after an abnormal end: no atexit */
	_exit(code);
}

/* ---- start-up ---------------------------------------------------------------- */

int rc_node_init(struct rc_node *n, const struct rc_jobmap *m, int me,
		 const struct rc_node_ops *ops, void *arg)
{
	int *local, i;

	memset(n, 0, sizeof(*n));
	n->map = m;
	n->me = me;
	n->ops = ops;
	n->arg = arg;
	local = malloc(sizeof(*local) * (m->size + 1));
	if (!local)
		return -1;
	n->nlocal = rc_jobmap_local(m, me, local);
	n->procs = calloc(n->nlocal + 1, sizeof(*n->procs));
	n->batch = calloc(n->nlocal + 1, sizeof(*n->batch));
	n->obuf = calloc(n->nlocal + 1, sizeof(*n->obuf));
	n->ebuf = calloc(n->nlocal + 1, sizeof(*n->ebuf));
	n->who = calloc(2 * (size_t)n->nlocal + 1, sizeof(*n->who));
	if (!n->procs || !n->batch || !n->obuf || !n->ebuf || !n->who) {
		free(local);
		return -1;
	}
	for (i = 0; i < n->nlocal; i++) {
		struct rc_lproc *p = &n->procs[i];

		p->rank = local[i];
		p->local_rank = i;
		p->fd_in = p->fd_out = p->fd_err = -1;
	}
	free(local);
	return 0;
}

/*
 * Binding: local rank i to the i-th core (topo.c), or to that core's
 * socket or NUMA node. By default ranks are bound to cores when they fit.
 */
static int node_bind(struct rc_node *n, enum rc_bind mode)
{
	struct rc_topo t;
	int i, cnt;

	if (rc_topo_load(&t)) {
		rc_lerr("sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	if (mode == RC_BIND_CORE && n->nlocal > t.ncores) {
		rc_lerr("--bind-to core: %d ranks on %s but only %d usable "
			"cores; use --bind-to none",
			n->nlocal, n->map->hosts[n->me], t.ncores);
		rc_topo_free(&t);
		return -1;
	}
	if (mode == RC_BIND_DEFAULT)
		mode = n->nlocal <= t.ncores ? RC_BIND_CORE : RC_BIND_NONE;
	for (i = 0; i < n->nlocal && mode != RC_BIND_NONE; i++) {
		struct rc_lproc *p = &n->procs[i];

		p->cpus = calloc(t.ncpus, sizeof(int));
		if (!p->cpus) {
			rc_lerr("out of memory");
			rc_topo_free(&t);
			return -1;
		}
		cnt = rc_topo_bind(&t, mode, i, p->cpus, p->bound,
				   sizeof(p->bound));
		p->ncpus = cnt;
	}
	rc_topo_free(&t);
	return 0;
}

int rc_node_start(struct rc_node *n, const char *path, char *const argv[],
		  char **env_base, enum rc_bind bind)
{
	int i;

	if (!n->nlocal)
		return 0;
	if (node_bind(n, bind) || node_tmpdir(n))
		return -1;
	if (rc_psrv_init(n->tmpdir, n->map->hosts[n->me]))
		return -1;
	n->pmix_up = true;
	if (rc_psrv_register(n->map, n->me, n->tmpdir))
		return -1;
	for (i = 0; i < n->nlocal; i++) {
		n->procs[i].env = env_copy(env_base);
		if (!n->procs[i].env) {
			rc_lerr("out of memory");
			return -1;
		}
		if (rc_psrv_setup_fork(n->map->nspace, n->procs[i].rank,
				       &n->procs[i].env))
			return -1;
	}
	for (i = 0; i < n->nlocal; i++) {
		/* rank 0's stdin is a pipe; the others read /dev/null */
		if (rc_procs_spawn(&n->procs[i], path, argv,
				   n->procs[i].rank == 0))
			return -1;
		n->nalive++;
	}
	return 0;
}

void rc_node_abort_startup(struct rc_node *n)
{
	int i, ws;

	for (i = 0; i < n->nlocal; i++)
		if (n->procs[i].alive)
			rc_procs_kill(&n->procs[i], SIGKILL);
	for (i = 0; i < n->nlocal; i++) {
		if (n->procs[i].alive) {
			waitpid(n->procs[i].pid, &ws, 0);
			n->procs[i].alive = false;
		}
	}
	n->nalive = 0;
}

struct rc_lproc *rc_node_proc(struct rc_node *n, int rank)
{
	int i;

	for (i = 0; i < n->nlocal; i++)
		if (n->procs[i].rank == rank)
			return &n->procs[i];
	return NULL;
}

int rc_node_stdin_fd(struct rc_node *n)
{
	struct rc_lproc *p = rc_node_proc(n, 0);

	return p ? p->fd_in : -1;
}

void rc_node_kill(struct rc_node *n, int sig)
{
	int i;

	for (i = 0; i < n->nlocal; i++)
		if (n->procs[i].alive)
			rc_procs_kill(&n->procs[i], sig);
}

void rc_node_kill_groups(struct rc_node *n)
{
	int i;

	/* whatever the ranks left running in their process groups */
	for (i = 0; i < n->nlocal; i++)
		rc_procs_kill(&n->procs[i], SIGKILL);
}

/* ---- output -------------------------------------------------------------- */

static void node_close_out(struct rc_node *n, struct rc_lproc *p, int stream)
{
	int *fd = stream == RC_IOF_OUT ? &p->fd_out : &p->fd_err;
	struct rc_iof_buf *b = stream == RC_IOF_OUT ? &n->obuf[p->local_rank] :
						      &n->ebuf[p->local_rank];

	rc_iof_flush(b, p->rank, stream, n->ops->output, n->arg);
	close(*fd);
	*fd = -1;
}

/* rc_iof_pump's answer; 0 once the stream is closed */
static int node_pump(struct rc_node *n, struct rc_lproc *p, int stream)
{
	int fd = stream == RC_IOF_OUT ? p->fd_out : p->fd_err;
	struct rc_iof_buf *b = stream == RC_IOF_OUT ? &n->obuf[p->local_rank] :
						      &n->ebuf[p->local_rank];
	int rc;

	if (fd < 0)
		return 0;
	rc = rc_iof_pump(b, fd, p->rank, stream, n->ops->output, n->arg);
	if (rc <= 0) {
		node_close_out(n, p, stream);
		return 0;
	}
	return rc;
}

/* what an exited rank wrote last, before we talk about it */
static void node_drain(struct rc_node *n, struct rc_lproc *p)
{
	int i;

	for (i = 0; i < 64 && node_pump(n, p, RC_IOF_OUT) == 1; i++)
		;
	for (i = 0; i < 64 && node_pump(n, p, RC_IOF_ERR) == 1; i++)
		;
}

bool rc_node_outputs_open(const struct rc_node *n)
{
	int i;

	for (i = 0; i < n->nlocal; i++)
		if (n->procs[i].fd_out >= 0 || n->procs[i].fd_err >= 0)
			return true;
	return false;
}

void rc_node_close_outputs(struct rc_node *n)
{
	int i;

	for (i = 0; i < n->nlocal; i++) {
		if (n->procs[i].fd_out >= 0)
			node_close_out(n, &n->procs[i], RC_IOF_OUT);
		if (n->procs[i].fd_err >= 0)
			node_close_out(n, &n->procs[i], RC_IOF_ERR);
	}
}

/* ---- events ---------------------------------------------------------------- */

/*
 * Everything libpmix queued. With `aborts` non-NULL, aborts are set aside
 * there instead of being handed on (see rc_node_judge).
 */
static void node_events_defer(struct rc_node *n, struct rc_pev **aborts)
{
	struct rc_pev *ev, **tail = aborts;
	struct rc_lproc *p;

	if (!n->pmix_up)
		return;
	while (tail && *tail)
		tail = &(*tail)->next;
	rc_psrv_drain_wakeups();
	while ((ev = rc_psrv_next())) {
		p = rc_node_proc(n, ev->rank);
		switch (ev->type) {
		case RC_PEV_CONNECTED:
		case RC_PEV_FINALIZED:
			if (p && ev->type == RC_PEV_CONNECTED)
				p->connected = true;
			else if (p)
				p->finalized = true;
			if (p && n->ops->state)
				n->ops->state(n->arg, p, ev->type);
			break;
		case RC_PEV_ABORT:
			if (tail) {
				*tail = ev;
				tail = &ev->next;
			} else {
				n->ops->abort(n->arg, ev);
			}
			continue;
		case RC_PEV_FENCE:
			n->ops->fence(n->arg, ev);
			continue;	/* the owner's now */
		}
		rc_pev_free(ev);
	}
}

void rc_node_events(struct rc_node *n)
{
	node_events_defer(n, NULL);
}

bool rc_node_child(struct rc_node *n, pid_t pid, int wstatus)
{
	int i;

	for (i = 0; i < n->nlocal; i++) {
		struct rc_lproc *p = &n->procs[i];

		if (p->pid == pid && p->alive) {
			p->alive = false;
			p->wstatus = wstatus;
			n->batch[n->nbatch++] = p;
			n->nalive--;
			return true;
		}
	}
	return false;
}

void rc_node_judge(struct rc_node *n)
{
	struct rc_pev *aborts = NULL, *ev;
	int i, pass;

	if (!n->nbatch)
		return;
	node_events_defer(n, &aborts);
	for (i = 0; i < n->nbatch; i++)
		node_drain(n, n->batch[i]);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n->nbatch; i++)
			if (!!WIFSIGNALED(n->batch[i]->wstatus) == !pass)
				n->ops->exited(n->arg, n->batch[i]);
	n->nbatch = 0;
	while ((ev = aborts)) {
		aborts = ev->next;
		ev->next = NULL;
		n->ops->abort(n->arg, ev);
	}
}

/* ---- poll ------------------------------------------------------------------- */

int rc_node_npollfd(const struct rc_node *n)
{
	return 1 + 2 * n->nlocal;
}

int rc_node_pollfds(struct rc_node *n, struct pollfd *pfd, bool outputs)
{
	int k = 0, i;

	pfd[k].fd = n->pmix_up ? rc_psrv_event_fd() : -1;
	pfd[k++].events = POLLIN;
	for (i = 0; outputs && i < n->nlocal; i++) {
		if (n->procs[i].fd_out >= 0) {
			n->who[k] = i;
			pfd[k].fd = n->procs[i].fd_out;
			pfd[k++].events = POLLIN;
		}
		if (n->procs[i].fd_err >= 0) {
			n->who[k] = -1 - i;
			pfd[k].fd = n->procs[i].fd_err;
			pfd[k++].events = POLLIN;
		}
	}
	return k;
}

void rc_node_handle(struct rc_node *n, const struct pollfd *pfd, int cnt)
{
	int i;

	if (cnt > 0 && pfd[0].revents)
		rc_node_events(n);
	for (i = 1; i < cnt; i++) {
		if (!pfd[i].revents)
			continue;
		if (n->who[i] >= 0)
			node_pump(n, &n->procs[n->who[i]], RC_IOF_OUT);
		else
			node_pump(n, &n->procs[-1 - n->who[i]], RC_IOF_ERR);
	}
}
