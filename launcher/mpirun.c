/*
 * mpirun.c - mpirun/mpiexec: run an MPI job on this host.
 *
 * Start-up (nothing is started unless every step succeeds):
 *   options → resolve the program on PATH → usable CPUs, oversubscription
 *   and binding → block the signals we handle, open a signalfd → private
 *   tmpdir → PMIx server, namespace "rcmpi.<host>.<pid>", clients →
 *   per-rank environment (PMIx_server_setup_fork) → fork every rank.
 *
 * Then one poll() loop over: the signalfd (SIGCHLD, SIGINT, SIGTERM,
 * SIGHUP), the PMIx event pipe, the ranks' stdout/stderr pipes, our stdin
 * and rank 0's stdin pipe; timers for --timeout and for the SIGKILL that
 * follows SIGTERM. The job is RUNNING until the first failure (a rank
 * exits non-zero, dies of a signal, exits without PMIx_Finalize after
 * PMIx_Init, calls PMIx_Abort; a signal to us; the timeout). The first
 * failure (a death by signal outranks exits and aborts seen up to 200 ms
 * before it: see job_suspect) prints one line naming rank, pid and host,
 * fixes the exit status and moves the job to TERMINATING: every rank's
 * process group gets SIGTERM (or the signal we received), SIGKILL 2 s
 * later. The loop ends when every rank was reaped and its pipes drained.
 *
 * After a normal end the PMIx server is torn down (under a watchdog);
 * after an abnormal end that is skipped (libpmix 4.2.2 can deadlock there
 * when a client died mid-handshake). Either way the private tmpdir and any
 * /dev/shm/rcmpi.<nspace>.* segment left by crashed ranks are removed.
 */
#include "config.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"

#define KILL_GRACE_S 2.0
#define SETTLE_S 0.2
#define DRAIN_S 0.5
#define TEARDOWN_MAX_S 5.0
#define EXIT_TIMEOUT 124

extern char **environ;

enum job_state { JOB_RUNNING, JOB_TERMINATING };

struct job {
	struct rc_opts opts;
	char *path;
	char host[256];
	char tmpdir[PATH_MAX];
	bool have_tmpdir;
	struct rc_jobmap map;
	int np;
	struct rc_lproc *procs;
	struct rc_lproc **batch;	/* job_reap's scratch */
	struct pollfd *pfd;	/* job_loop's: 4 + 2 per rank */
	int *who;
	struct rc_iof_buf *obuf, *ebuf;
	struct rc_stdin in;
	bool stdin_on;
	bool stdout_dead, stderr_dead;
	struct rc_fence_tab *fences;
	int sigfd;
	enum job_state state;
	int exit_code;
	bool abnormal;		/* skip PMIx teardown, kill leftovers */
	bool pmix_up;
	int nalive;
	double t_kill, t_timeout, t_drain;
	struct {		/* the failure that will be blamed (job_suspect) */
		bool active;
		int prio;
		int code;
		double deadline;
		char msg[1024];
	} suspect;
	bool verbose;		/* RCMPI_LAUNCHER_VERBOSE: narrate events */
};

static struct job job;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- cleanup ------------------------------------------------------------ */

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	remove(path);
	return 0;
}

static void cleanup_files(void)
{
	char prefix[RC_NSLEN + 16], path[PATH_MAX];
	struct dirent *de;
	size_t plen;
	DIR *d;

	if (job.have_tmpdir) {
		nftw(job.tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		job.have_tmpdir = false;
	}
	if (!job.map.nspace[0])
		return;
	/* segments of ranks that crashed before unlinking them */
	plen = (size_t)snprintf(prefix, sizeof(prefix), "rcmpi.%s.",
				job.map.nspace);
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

static void *teardown_watchdog(void *arg)
{
	struct timespec ts = { .tv_sec = (time_t)TEARDOWN_MAX_S };

	nanosleep(&ts, NULL);
	rc_lmsg("warning: PMIx server teardown hangs; exiting without it");
	cleanup_files();
	_exit(job.exit_code);
	return NULL;
}

static __attribute__((noreturn)) void job_exit(void)
{
	pthread_t wd;

	if (job.pmix_up && !job.abnormal) {
		if (!pthread_create(&wd, NULL, teardown_watchdog, NULL) &&
		    !rc_psrv_fini(job.map.nspace, TEARDOWN_MAX_S))
			job.abnormal = true;
	}
	cleanup_files();
	fflush(stdout);
	fflush(stderr);
	/* libpmix threads may still run after an abnormal end: no atexit */
	_exit(job.exit_code);
}

/* ---- output ------------------------------------------------------------- */

/* libpmix's complaints once peers are gone, and libevent's, say nothing */
static bool noise(const char *line, size_t len)
{
	char tmp[512];

	if (len >= sizeof(tmp))
		return false;
	memcpy(tmp, line, len);
	tmp[len] = 0;
	return strstr(tmp, "PMIX ERROR: UNREACHABLE") ||
	       (strstr(tmp, "Epoll ") && strstr(tmp, "Bad file descriptor"));
}

static void job_emit(void *arg, int rank, int stream, const char *buf,
		     size_t len)
{
	bool *dead = stream == RC_IOF_OUT ? &job.stdout_dead :
					    &job.stderr_dead;
	int fd = stream == RC_IOF_OUT ? 1 : 2;
	const char *p, *nl, *end = buf + len;

	if (*dead)
		return;
	if (!job.abnormal || stream != RC_IOF_ERR) {
		if (rc_iof_write_lines(fd, rank, job.opts.tag_output, buf,
				       len))
			*dead = true;
		return;
	}
	for (p = buf; p < end && !*dead; p = nl) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl + 1 : end;
		if (noise(p, (size_t)(nl - p)))
			continue;
		if (rc_iof_write_lines(fd, rank, job.opts.tag_output, p,
				       (size_t)(nl - p)))
			*dead = true;
	}
}

static void job_close_out(struct rc_lproc *p, int stream)
{
	int *fd = stream == RC_IOF_OUT ? &p->fd_out : &p->fd_err;
	struct rc_iof_buf *b = stream == RC_IOF_OUT ? &job.obuf[p->rank] :
						      &job.ebuf[p->rank];

	rc_iof_flush(b, p->rank, stream, job_emit, NULL);
	close(*fd);
	*fd = -1;
}

/* rc_iof_pump's answer; 0 once the stream is closed */
static int job_pump(struct rc_lproc *p, int stream)
{
	int fd = stream == RC_IOF_OUT ? p->fd_out : p->fd_err;
	struct rc_iof_buf *b = stream == RC_IOF_OUT ? &job.obuf[p->rank] :
						      &job.ebuf[p->rank];
	int rc;

	if (fd < 0)
		return 0;
	rc = rc_iof_pump(b, fd, p->rank, stream, job_emit, NULL);
	if (rc <= 0) {
		job_close_out(p, stream);
		return 0;
	}
	return rc;
}

/* what an exited rank wrote last, before we talk about it */
static void job_drain(struct rc_lproc *p)
{
	int i;

	for (i = 0; i < 64 && job_pump(p, RC_IOF_OUT) == 1; i++)
		;
	for (i = 0; i < 64 && job_pump(p, RC_IOF_ERR) == 1; i++)
		;
}

/* ---- job state ---------------------------------------------------------- */

static void job_signal_all(int sig)
{
	int i;

	for (i = 0; i < job.np; i++)
		if (job.procs[i].alive)
			rc_procs_kill(&job.procs[i], sig);
}

/* the first failure decides the exit status and ends the job */
static void job_fail(int code, int sig, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void job_fail(int code, int sig, const char *fmt, ...)
{
	char line[4096];
	va_list ap;

	if (job.state != JOB_RUNNING)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rc_lmsg("%s", line);
	job.state = JOB_TERMINATING;
	job.exit_code = code;
	job.abnormal = true;
	job_signal_all(sig);
	job.t_kill = now_s() + KILL_GRACE_S;
}

/*
 * Blame. One rank's failure makes others fail in turn (a fence or a
 * receive errs, they exit or call MPI_Abort), and we can see those first:
 * a killed multi-threaded rank becomes reapable only once all its threads
 * are gone, while its sockets, which tell its peers, are closed earlier.
 * So an exit or an abort is only a suspect for SETTLE_S; a rank killed by
 * a signal meanwhile takes the blame (an abort outranks an exit). A death
 * by signal is convicted at once.
 */
enum { BLAME_EXIT, BLAME_ABORT, BLAME_SIGNAL };

static void job_convict(void)
{
	if (!job.suspect.active)
		return;
	job.suspect.active = false;
	job_fail(job.suspect.code, SIGTERM, "%s", job.suspect.msg);
}

static void job_suspect(int prio, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void job_suspect(int prio, int code, const char *fmt, ...)
{
	va_list ap;

	if (job.state != JOB_RUNNING ||
	    (job.suspect.active && prio <= job.suspect.prio))
		return;
	va_start(ap, fmt);
	vsnprintf(job.suspect.msg, sizeof(job.suspect.msg), fmt, ap);
	va_end(ap);
	job.suspect.code = code;
	job.suspect.prio = prio;
	if (!job.suspect.active)
		job.suspect.deadline = now_s() + SETTLE_S;
	job.suspect.active = true;
	if (prio == BLAME_SIGNAL)
		job_convict();
}

static const char *sig_name(int sig)
{
	const char *s = strsignal(sig);

	return s ? s : "unknown signal";
}

static void job_exited(struct rc_lproc *p)
{
	int ws = p->wstatus;

	if (job.verbose && WIFSIGNALED(ws))
		rc_lmsg("rank %d (pid %d) ended: killed by signal %d", p->rank,
			(int)p->pid, WTERMSIG(ws));
	else if (job.verbose)
		rc_lmsg("rank %d (pid %d) ended: exit status %d", p->rank,
			(int)p->pid, WEXITSTATUS(ws));
	job.nalive--;
	if (p->rank == 0 && job.stdin_on)
		rc_stdin_close(&job.in);
	job_drain(p);
	if (WIFSIGNALED(ws)) {
		job_suspect(BLAME_SIGNAL, 128 + WTERMSIG(ws),
			 "rank %d (pid %d) on %s killed by signal %d (%s); "
			 "terminating the job", p->rank, (int)p->pid, job.host,
			 WTERMSIG(ws), sig_name(WTERMSIG(ws)));
	} else if (WEXITSTATUS(ws)) {
		job_suspect(BLAME_EXIT, WEXITSTATUS(ws),
			 "rank %d (pid %d) on %s exited with status %d; "
			 "terminating the job", p->rank, (int)p->pid, job.host,
			 WEXITSTATUS(ws));
	} else if (p->connected && !p->finalized) {
		job_suspect(BLAME_EXIT, 1,
			 "rank %d (pid %d) on %s exited with status 0 without "
			 "calling MPI_Finalize (PMIx_Finalize) after MPI_Init; "
			 "terminating the job", p->rank, (int)p->pid,
			 job.host);
	}
}

static void job_on_signal(int sig)
{
	if (job.state == JOB_RUNNING && job.suspect.active) {
		/* already failing: end it now (SIGTERM, then SIGKILL) */
		job_convict();
		return;
	}
	if (job.state == JOB_RUNNING) {
		job_fail(128 + sig, sig,
			 "received signal %d (%s); terminating the job", sig,
			 sig_name(sig));
		return;
	}
	/* asked again: no more grace */
	job_signal_all(SIGKILL);
	job.t_kill = 0;
}

static void job_on_fence(struct rc_pev *ev)
{
	char *out = NULL;
	size_t outlen = 0;
	int rc;

	if (job.verbose)
		rc_lmsg("fence %s: %zu bytes from this node, %d node(s)",
			ev->sig, ev->ndata, ev->nnodes);
	rc = rc_fence_add(job.fences, ev->sig, ev->nnodes, ev->data,
			  ev->ndata, &out, &outlen);
	if (rc == 1) {
		rc_psrv_fence_done(ev, true, out, outlen);
		return;
	}
	/* one node: a fence completes with its first contribution */
	rc_lerr("fence %s: %s", ev->sig,
		rc < 0 ? "out of memory" : "expects other nodes");
	rc_psrv_fence_done(ev, false, NULL, 0);
}

static void job_on_abort(struct rc_pev *ev)
{
	struct rc_lproc *p = ev->rank >= 0 && ev->rank < job.np ?
			     &job.procs[ev->rank] : NULL;
	int code = ev->status & 0xff;

	if (!code && ev->status)
		code = 1;
	job_suspect(BLAME_ABORT, code,
		    "rank %d (pid %d) on %s called MPI_Abort with error code "
		    "%d%s%s; terminating the job", ev->rank,
		    p ? (int)p->pid : -1, job.host, ev->status,
		    ev->msg && *ev->msg ? ": " : "", ev->msg ? ev->msg : "");
	rc_psrv_ack(ev, true);
	rc_pev_free(ev);
}

/*
 * Everything libpmix queued. With `aborts` non-NULL, aborts are set aside
 * there instead of being handled (see job_reap).
 */
static void job_events_defer(struct rc_pev **aborts)
{
	struct rc_pev *ev, **tail = aborts;
	struct rc_lproc *p;

	while (tail && *tail)
		tail = &(*tail)->next;
	rc_psrv_drain_wakeups();
	while ((ev = rc_psrv_next())) {
		p = ev->rank >= 0 && ev->rank < job.np ? &job.procs[ev->rank] :
							 NULL;
		switch (ev->type) {
		case RC_PEV_CONNECTED:
			if (p)
				p->connected = true;
			if (job.verbose)
				rc_lmsg("rank %d connected", ev->rank);
			break;
		case RC_PEV_FINALIZED:
			if (p)
				p->finalized = true;
			if (job.verbose)
				rc_lmsg("rank %d finalized", ev->rank);
			break;
		case RC_PEV_ABORT:
			if (tail) {
				*tail = ev;
				tail = &ev->next;
			} else {
				job_on_abort(ev);
			}
			continue;
		case RC_PEV_FENCE:
			job_on_fence(ev);
			continue;	/* freed */
		}
		rc_pev_free(ev);
	}
}

static void job_events(void)
{
	job_events_defer(NULL);
}

/*
 * Collect every child that exited, then judge them together. The first
 * failure names the job's cause, but exits that arrive together come
 * from waitpid() in no useful order: when one rank is killed, the others
 * often fail in turn (a fence returns an error, they exit or abort)
 * before we look. So: the events queued before those exits are recorded
 * first (a rank's "finalized" precedes its exit), deaths by signal are
 * judged before exits, and aborts queued meanwhile only after both.
 */
static void job_reap(void)
{
	struct rc_pev *aborts = NULL, *ev;
	int n = 0, i, pass, ws;
	pid_t pid;

	while ((pid = rc_procs_reap(&ws)) > 0) {
		for (i = 0; i < job.np; i++) {
			if (job.procs[i].pid == pid && job.procs[i].alive) {
				job.procs[i].alive = false;
				job.procs[i].wstatus = ws;
				job.batch[n++] = &job.procs[i];
				break;
			}
		}
	}
	job_events_defer(&aborts);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++)
			if (!!WIFSIGNALED(job.batch[i]->wstatus) == !pass)
				job_exited(job.batch[i]);
	while ((ev = aborts)) {
		aborts = ev->next;
		ev->next = NULL;
		job_on_abort(ev);
	}
}

static void job_on_sigfd(void)
{
	struct signalfd_siginfo si;
	bool chld = false;

	while (read(job.sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			chld = true;
		else
			job_on_signal((int)si.ssi_signo);
	}
	if (chld)
		job_reap();
}

/* ---- the loop ----------------------------------------------------------- */

static bool job_outputs_open(void)
{
	int i;

	for (i = 0; i < job.np; i++)
		if (job.procs[i].fd_out >= 0 || job.procs[i].fd_err >= 0)
			return true;
	return false;
}

static void job_close_all_outputs(void)
{
	int i;

	for (i = 0; i < job.np; i++) {
		if (job.procs[i].fd_out >= 0)
			job_close_out(&job.procs[i], RC_IOF_OUT);
		if (job.procs[i].fd_err >= 0)
			job_close_out(&job.procs[i], RC_IOF_ERR);
	}
}

static int job_timeout_ms(double t)
{
	double deadline = 0, d;

	if (job.t_timeout && job.state == JOB_RUNNING)
		deadline = job.t_timeout;
	if (job.suspect.active &&
	    (!deadline || job.suspect.deadline < deadline))
		deadline = job.suspect.deadline;
	if (job.t_kill && (!deadline || job.t_kill < deadline))
		deadline = job.t_kill;
	if (job.t_drain && (!deadline || job.t_drain < deadline))
		deadline = job.t_drain;
	if (!deadline)
		return -1;
	d = (deadline - t) * 1000.0 + 1;
	return d < 0 ? 0 : (int)d;
}

static void job_loop(void)
{
	struct pollfd *pfd = job.pfd;
	int *who = job.who, n, i, k;
	bool stdin_polled;
	double t;

	for (;;) {
		t = now_s();
		/* nobody left who could take the blame */
		if (job.nalive == 0)
			job_convict();
		if (job.nalive == 0) {
			if (!job_outputs_open())
				break;
			if (!job.t_drain)
				job.t_drain = t + DRAIN_S;
			else if (t >= job.t_drain)
				break;
		}
		n = 0;
		pfd[n].fd = job.sigfd;
		pfd[n++].events = POLLIN;
		pfd[n].fd = rc_psrv_event_fd();
		pfd[n++].events = POLLIN;
		stdin_polled = job.stdin_on;
		if (stdin_polled) {
			pfd[n].fd = job.in.src;
			pfd[n++].events = rc_stdin_want_src(&job.in);
			pfd[n].fd = job.in.dst;
			pfd[n++].events = rc_stdin_want_dst(&job.in);
			if (!pfd[n - 2].events)
				pfd[n - 2].fd = -1;
			if (!pfd[n - 1].events)
				pfd[n - 1].fd = -1;
		}
		k = n;
		for (i = 0; i < job.np; i++) {
			if (job.procs[i].fd_out >= 0) {
				who[n] = i;
				pfd[n].fd = job.procs[i].fd_out;
				pfd[n++].events = POLLIN;
			}
			if (job.procs[i].fd_err >= 0) {
				who[n] = -1 - i;
				pfd[n].fd = job.procs[i].fd_err;
				pfd[n++].events = POLLIN;
			}
		}
		if (poll(pfd, n, job_timeout_ms(t)) < 0 && errno != EINTR) {
			rc_lerr("poll: %s", strerror(errno));
			job_fail(1, SIGKILL, "internal error; terminating");
		}
		if (pfd[0].revents)
			job_on_sigfd();
		if (pfd[1].revents)
			job_events();
		/* rank 0 may have exited meanwhile: closed is checked first */
		if (stdin_polled && !job.in.closed) {
			if (pfd[2].revents)
				rc_stdin_on_src(&job.in);
			if (pfd[3].revents)
				rc_stdin_on_dst(&job.in);
		}
		if (job.in.closed)
			job.stdin_on = false;
		for (i = k; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (who[i] >= 0)
				job_pump(&job.procs[who[i]], RC_IOF_OUT);
			else
				job_pump(&job.procs[-1 - who[i]], RC_IOF_ERR);
		}
		t = now_s();
		if (job.suspect.active && (t >= job.suspect.deadline ||
		    (job.t_timeout && t >= job.t_timeout)))
			job_convict();
		if (job.state == JOB_RUNNING && job.t_timeout &&
		    t >= job.t_timeout)
			job_fail(EXIT_TIMEOUT, SIGTERM,
				 "the job ran out of time (--timeout %g s); "
				 "terminating the job", job.opts.timeout);
		if (job.t_kill && t >= job.t_kill) {
			job_signal_all(SIGKILL);
			job.t_kill = 0;
		}
	}
	job_close_all_outputs();
}

/* ---- start-up ------------------------------------------------------------ */

static void ensure_std_fds(void)
{
	int fd;

	/* pipes must not land on 0-2 */
	for (;;) {
		fd = open("/dev/null", O_RDWR);
		if (fd < 0)
			return;
		if (fd > 2) {
			close(fd);
			return;
		}
	}
}

static void env_free(char **env)
{
	char **e;

	if (!env)
		return;
	for (e = env; *e; e++)
		free(*e);
	free(env);
}

static int env_set(char ***envp, int *n, const char *name, size_t nl,
		   const char *entry)
{
	char **env = *envp, **ne;
	int i;

	for (i = 0; i < *n; i++) {
		if (!strncmp(env[i], name, nl) && env[i][nl] == '=') {
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

/* our environment without another PMIx server's variables, plus -x */
static char **env_base(void)
{
	char **env, **e, *tmp;
	const char *v;
	int n = 0, i;
	size_t nl;

	for (e = environ; *e; e++)
		n++;
	env = calloc(n + 1, sizeof(*env));
	if (!env)
		return NULL;
	n = 0;
	for (e = environ; *e; e++) {
		if (!strncmp(*e, "PMIX_", 5) && strncmp(*e, "PMIX_MCA_", 9))
			continue;
		env[n] = strdup(*e);
		if (!env[n++])
			goto err;
	}
	for (i = 0; i < job.opts.nx; i++) {
		const char *x = job.opts.xvars[i], *eq = strchr(x, '=');

		nl = eq ? (size_t)(eq - x) : strlen(x);
		if (eq) {
			if (env_set(&env, &n, x, nl, x))
				goto err;
			continue;
		}
		v = getenv(x);
		if (!v) {
			rc_lmsg("warning: -x %s: %s is not set here", x, x);
			continue;
		}
		tmp = malloc(nl + strlen(v) + 2);
		if (!tmp)
			goto err;
		sprintf(tmp, "%s=%s", x, v);
		if (env_set(&env, &n, x, nl, tmp)) {
			free(tmp);
			goto err;
		}
		free(tmp);
	}
	return env;
err:
	env_free(env);
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
			env_free(env);
			return NULL;
		}
	}
	return env;
}

static int job_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	struct stat st;

	if (!base || !*base || stat(base, &st) ||
	    !S_ISDIR(st.st_mode))
		base = "/tmp";
	snprintf(job.tmpdir, sizeof(job.tmpdir), "%s/rcmpi.%d.XXXXXX", base,
		 (int)getpid());
	if (!mkdtemp(job.tmpdir)) {
		rc_lerr("cannot create a directory in %s: %s", base,
			strerror(errno));
		return -1;
	}
	job.have_tmpdir = true;
	return 0;
}

/* program, CPUs, binding; errors before anything exists */
static int job_check(int **cpusp, int *ncpup, bool *bindp)
{
	int ncpu, *cpus = NULL;
	bool bind;

	job.path = rc_resolve_prog(job.opts.argv[0]);
	if (!job.path) {
		if (errno == ENOENT && !strchr(job.opts.argv[0], '/'))
			rc_lerr("%s: program not found in PATH",
				job.opts.argv[0]);
		else if (errno == ENOENT)
			rc_lerr("%s: no such file", job.opts.argv[0]);
		else
			rc_lerr("%s: not an executable program (%s)",
				job.opts.argv[0], strerror(errno));
		return -1;
	}
	ncpu = rc_cpus_allowed(&cpus);
	if (ncpu <= 0) {
		rc_lerr("sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	job.np = job.opts.np ? job.opts.np : ncpu;
	if (job.np > ncpu && !job.opts.oversubscribe) {
		rc_lerr("%d ranks requested but only %d usable core%s "
			"(sched_getaffinity); use --oversubscribe to run "
			"more ranks than cores", job.np, ncpu,
			ncpu == 1 ? " is" : "s are");
		goto err;
	}
	if (job.opts.bind == RC_BIND_CORE && job.np > ncpu) {
		rc_lerr("--bind-to core: %d ranks but only %d usable cores; "
			"use --bind-to none", job.np, ncpu);
		goto err;
	}
	if (job.opts.bind == RC_BIND_DEFAULT)
		bind = job.np <= ncpu;
	else
		bind = job.opts.bind == RC_BIND_CORE;
	*cpusp = cpus;
	*ncpup = ncpu;
	*bindp = bind;
	return 0;
err:
	free(cpus);
	return -1;
}

static int job_map(void)
{
	int i;

	if (gethostname(job.host, sizeof(job.host) - 1))
		strcpy(job.host, "localhost");
	job.host[sizeof(job.host) - 1] = 0;
	snprintf(job.map.nspace, sizeof(job.map.nspace), "rcmpi.%.200s.%d",
		 job.host, (int)getpid());
	job.map.size = job.np;
	job.map.nnodes = 1;
	job.map.hosts = calloc(1, sizeof(char *));
	job.map.node_of = calloc(job.np, sizeof(int));
	job.map.local_rank = calloc(job.np, sizeof(int));
	if (!job.map.hosts || !job.map.node_of || !job.map.local_rank)
		return -1;
	job.map.hosts[0] = job.host;
	for (i = 0; i < job.np; i++)
		job.map.local_rank[i] = i;
	return 0;
}

/* the environment of every rank, complete before the first fork */
static int job_envs(void)
{
	char **base = env_base();
	int i;

	if (!base) {
		rc_lerr("out of memory");
		return -1;
	}
	for (i = 0; i < job.np; i++) {
		job.procs[i].env = env_copy(base);
		if (!job.procs[i].env ||
		    rc_psrv_setup_fork(job.map.nspace, i, &job.procs[i].env)) {
			env_free(base);
			return -1;
		}
	}
	env_free(base);
	return 0;
}

/* kill what started, wait for it, clean up, exit 1 */
static __attribute__((noreturn)) void job_abort_startup(void)
{
	int i, ws;

	job.abnormal = true;
	job.exit_code = 1;
	for (i = 0; i < job.np; i++)
		if (job.procs && job.procs[i].alive)
			rc_procs_kill(&job.procs[i], SIGKILL);
	for (i = 0; i < job.np; i++)
		if (job.procs && job.procs[i].alive)
			waitpid(job.procs[i].pid, &ws, 0);
	job_exit();
}

int main(int argc, char **argv)
{
	static const int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP };
	int *cpus = NULL, ncpu = 0, i, rc;
	const char *base = strrchr(argv[0], '/');
	sigset_t set;
	bool bind;

	base = base ? base + 1 : argv[0];
	if (!strcmp(base, "mpiexec"))
		rc_progname = "mpiexec";
	ensure_std_fds();
	rc = rc_opts_parse(argc, argv, &job.opts);
	if (rc)
		return rc == 2 ? 0 : 1;
	job.exit_code = 1;
	job.verbose = getenv("RCMPI_LAUNCHER_VERBOSE") &&
		      strcmp(getenv("RCMPI_LAUNCHER_VERBOSE"), "0");
	if (job_check(&cpus, &ncpu, &bind))
		return 1;

	if (rc_procs_signals_setup(sigs, 4)) {
		rc_lerr("signal setup: %s", strerror(errno));
		return 1;
	}
	sigemptyset(&set);
	for (i = 0; i < 4; i++)
		if (sigs[i] != SIGHUP || !rc_procs_sighup_ignored())
			sigaddset(&set, sigs[i]);
	job.sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (job.sigfd < 0) {
		rc_lerr("signalfd: %s", strerror(errno));
		return 1;
	}
	job.procs = calloc(job.np, sizeof(*job.procs));
	job.batch = calloc(job.np, sizeof(*job.batch));
	job.pfd = calloc(4 + 2 * (size_t)job.np, sizeof(*job.pfd));
	job.who = calloc(4 + 2 * (size_t)job.np, sizeof(*job.who));
	job.obuf = calloc(job.np, sizeof(*job.obuf));
	job.ebuf = calloc(job.np, sizeof(*job.ebuf));
	job.fences = rc_fence_tab_new();
	if (!job.procs || !job.batch || !job.pfd || !job.who || !job.obuf ||
	    !job.ebuf || !job.fences || job_map()) {
		rc_lerr("out of memory");
		return 1;
	}
	for (i = 0; i < job.np; i++) {
		job.procs[i].rank = i;
		job.procs[i].local_rank = i;
		job.procs[i].cpu = bind ? cpus[i] : -1;
		job.procs[i].fd_in = job.procs[i].fd_out = -1;
		job.procs[i].fd_err = -1;
	}
	free(cpus);

	if (job_tmpdir())
		return 1;
	if (rc_psrv_init(job.tmpdir, job.host))
		job_abort_startup();
	job.pmix_up = true;
	if (rc_psrv_register(&job.map, 0, job.tmpdir) || job_envs())
		job_abort_startup();

	for (i = 0; i < job.np; i++) {
		if (rc_procs_spawn(&job.procs[i], job.path, job.opts.argv,
				   i == 0))
			job_abort_startup();
		job.nalive++;
		if (job.verbose)
			rc_lmsg("rank %d: pid %d, cpu %d", i,
				(int)job.procs[i].pid, job.procs[i].cpu);
	}
	job.in.src = 0;
	job.in.dst = job.procs[0].fd_in;
	job.stdin_on = job.in.dst >= 0;
	if (job.opts.timeout)
		job.t_timeout = now_s() + job.opts.timeout;
	job.exit_code = 0;
	job.state = JOB_RUNNING;

	job_loop();
	if (job.abnormal) {
		/* whatever the ranks left running in their groups */
		for (i = 0; i < job.np; i++)
			rc_procs_kill(&job.procs[i], SIGKILL);
	}
	job_exit();
}
