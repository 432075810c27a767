/*
 * mpirun.c - mpirun/mpiexec: run an MPI job on this host and on others.
 *
 * mpirun is the head of the job. Start-up (nothing runs unless every local
 * step succeeds):
 *   options → host list and mapping (hostfile.c; without one: this host,
 *   as many ranks as usable cores) → the program → -x values → block the
 *   signals we handle, signalfd → for every other host: listening socket,
 *   secret, launch agent (remote.c) → this host's ranks (node.c: PMIx
 *   server, namespace "rcmpi.<host>.<pid>", fork).
 *
 * Then one poll() loop over the signalfd, this node's PMIx events and rank
 * pipes, stdin, the listening socket and handshakes, and per daemon its
 * connection and its agent's stdout/stderr. Each daemon (rcmpid.c) serves
 * its host's ranks and reports to the head what node.c reports to us for
 * ours, so the job logic below sees every rank alike:
 *
 *   daemon → head: STARTED (pids), CONNECTED, FINALIZED, ABORT, FENCE (its
 *                  node's blob), EXITED (wait status), OUT (whole lines),
 *                  STDIN_ACK/CLOSED, DRAINED, FAILED, SIGNALED, PING
 *   head → daemon: JOB, KILL (signal), FENCE_DONE (every node's blobs),
 *                  STDIN/STDIN_EOF (rank 0's input), END, PING
 *
 * Launch tree (tree.c, RCMPI_LAUNCH_RADIX; 0 or under Slurm: flat): we
 * start and hold connections to our children only; each daemon starts
 * its own children once it has the JOB. A daemon below reports through
 * its parent (RELAY_UP: node, type, payload, handled by dmn_relayed as if
 * it came from its own connection; its first one says it is up); ours to
 * one daemon go down the same way (dmn_send), KILL, END and the results
 * of fences every node is in to all (dmn_bcast); a parent reports a lost
 * child (LOST), and a lost daemon takes its subtree with it (dmn_gone).
 * Heartbeats are per link: we check our children, each daemon its own.
 *
 * Fences: each node's blob (ours from libpmix, the daemons' relayed) goes
 * into fence.c; when every node hosting participants contributed, the
 * concatenation goes back to each of them. In a tree, a fence every node
 * is in arrives as one blob per child's subtree (FENCE_SUB) and goes back
 * as one broadcast.
 *
 * The job is RUNNING until the first failure: a rank exits non-zero, dies
 * of a signal, exits without PMIx_Finalize after PMIx_Init, calls
 * PMIx_Abort; a signal to us; --timeout; a host lost (its launch agent
 * failed, its daemon did not connect within RCMPI_LAUNCH_TIMEOUT or,
 * connected, did not start within as long again (it is silent while it
 * starts its ranks), closed the connection, or, started, sent nothing for
 * RCMPI_HEARTBEAT_TIMEOUT seconds — both sides send a PING every second).
 * The first failure (a death by signal outranks exits and aborts seen up
 * to 200 ms before it: see job_suspect) prints one line naming rank, pid,
 * host and cause, fixes the exit status and moves the job to TERMINATING:
 * every rank on every node gets SIGTERM (or the signal we received),
 * SIGKILL 2 s later; a daemon that has not reported its ranks' end 5 s
 * after that is given up.
 *
 * End: once every rank ended and every output was drained (daemons say
 * DRAINED), the daemons get END and exit; their agents are reaped (killed
 * after 5 s). After a normal end our PMIx server is torn down (under a
 * watchdog); after an abnormal end that is skipped (libpmix 4.2.2 can
 * deadlock there when a client died mid-handshake). Either way the
 * private tmpdir and any /dev/shm/rcmpi.<nspace>.* segment left by crashed
 * ranks are removed, on every node.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher.h"
#include "log.h"
#include "param.h"

#define KILL_GRACE_S 2.0
#define SETTLE_S 0.2
#define DRAIN_S 0.5
#define REMOTE_DRAIN_S 3.0
#define GIVEUP_S 5.0
#define AGENT_GRACE_S 2.0
#define END_MAX_S 5.0
#define HB_INTERVAL_S 1.0
#define STDIN_WINDOW 65536
#define EXIT_TIMEOUT 124
#define EXIT_LOST 1

enum job_state { JOB_RUNNING, JOB_TERMINATING };
enum job_phase { PHASE_RUN, PHASE_END };
enum dmn_state { DMN_LAUNCHING, DMN_RUNNING, DMN_ENDING, DMN_GONE };

struct rank {
	int node;
	pid_t pid;		/* on its host; 0 until known */
	bool ended, connected, finalized;
};

/*
 * A launch agent: the process that starts daemons. With ssh (or
 * --launch-agent) one per daemon; under Slurm one srun for all of them.
 */
struct agent {
	struct rc_lproc p;
	char label[320]; /* for rc_procs' messages */
	char name[256];	 /* in ours: "ssh", the agent given, "srun" */
	const char *who; /* prefix of its output lines (host, "srun") */
	bool alive, reaped, shared;
	int ws;
	struct rc_iof_buf out, err;
	double t_kill;	    /* SIGKILL it then (0: no, -1: done) */
	int pi_out, pi_err; /* indexes in pfd, -1: none */
};

struct daemon {
	enum dmn_state state;
	struct agent *ag;	/* what started it (NULL: nothing) */
	struct rc_conn conn;	/* fd -1 until authenticated */
	bool drained;
	bool started; /* sent STARTED: from then on its silence is judged */
	/* must have authenticated by then; once authenticated, must have
	 * started (its ranks forked, its PMIx server up: it sends nothing
	 * while it does that) */
	double t_launch;
	size_t stdin_inflight;
	int pi_conn; /* index in pfd, -1: none */
};

static struct job {
	struct rc_opts opts;
	char *path;		/* this host's program (if it has ranks) */
	char *rprog;		/* what the daemons run */
	char host[256];
	char cwd[PATH_MAX];
	struct rc_jobmap map;
	int me;			/* our node, -1 if we host no rank */
	struct rc_node node;
	struct rank *ranks;
	int nalive;		/* ranks not ended (remote: not reported) */
	struct daemon *dmn;	/* per node; ours unused */
	int ndmn;
	struct agent *agents; /* per node (ssh), or one (srun) */
	int nagents;
	bool srun;	     /* daemons started by one srun */
	enum rc_batch batch; /* where the hosts came from, if not -H */
	struct rc_remote *remote;
	struct rc_tree tree;	/* who starts and relays for whom */
	char **xset;		/* -x as VAR=value */
	int nxset;
	struct pollfd *pfd;
	int npfd;
	int pi_node, n_node, pi_stdin, pi_remote;	/* job_fill_poll's */
	struct rc_stdin in;	/* our stdin → a local rank 0 */
	bool stdin_on;
	bool rstdin_on;		/* our stdin → a remote rank 0 */
	bool stdout_dead, stderr_dead;
	struct rc_fence_tab *fences;
	struct rc_pev *lfences;	/* our node's fences awaiting the rest */
	int sigfd;
	enum job_state state;
	enum job_phase phase;
	int exit_code;
	bool abnormal;		/* skip PMIx teardown, kill leftovers */
	double t_kill, t_giveup, t_timeout, t_drain, t_hb, t_end;
	double hb_timeout, launch_timeout;
	int auth;		/* RC_AUTH_*: --auth, RCMPI_AUTH */
	struct {		/* the failure that will be blamed (job_suspect) */
		bool active;
		int prio;
		int code;
		double deadline;
		char msg[1024];
	} suspect;
	bool verbose;		/* RCMPI_LAUNCHER_VERBOSE: narrate events */
} job;

static const char *host_of(int rank)
{
	return job.map.hosts[job.ranks[rank].node];
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

/* is any daemon of a still wanted? */
static bool ag_needed(const struct agent *a)
{
	int i;

	for (i = 0; i < job.map.nnodes; i++)
		if (i != job.me && job.dmn[i].ag == a &&
		    job.dmn[i].state != DMN_GONE)
			return true;
	return false;
}

/* a launch agent's output (ssh, srun, rcmpid before it connected): our
 * stderr */
static void agent_emit(void *arg, int rank, int stream, const char *buf,
		       size_t len)
{
	struct agent *a = arg;
	const char *p, *nl, *end = buf + len;

	/* given up on: what it says now is only about that */
	if (!ag_needed(a) && !job.verbose)
		return;
	for (p = buf; p < end; p = nl) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl + 1 : end;
		if (job.abnormal && noise(p, (size_t)(nl - p)))
			continue;
		/* srun says this for --cpu-bind=none where Slurm binds
		 * nothing anyway (TaskPlugin=task/none) */
		if (a->shared && memmem(p, (size_t)(nl - p),
					"lacks support "
					"for cpu binding",
					28))
			continue;
		if (a->who)
			rc_lmsg("%s: %.*s", a->who,
				(int)(nl - p - (nl[-1] == '\n')), p);
		else
			rc_lmsg("%.*s", (int)(nl - p - (nl[-1] == '\n')), p);
	}
}

/* ---- job state ---------------------------------------------------------- */

static void dmn_send(struct daemon *d, uint32_t type, struct rc_wbuf *w);
static void dmn_bcast(uint32_t type, const struct rc_wbuf *w);
static void dmn_abandon(struct daemon *d);

static void job_signal_all(int sig)
{
	struct rc_wbuf w = {0};

	rc_node_kill(&job.node, sig);
	rc_wbuf_u32(&w, (uint32_t)sig);
	dmn_bcast(RC_M_KILL, &w);
	rc_wbuf_free(&w);
}

/* the first failure decides the exit status and ends the job */
static void job_fail(int code, int sig, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void job_fail(int code, int sig, const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	int i;

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
	/* hosts whose daemon is not there yet will not be needed */
	for (i = 0; i < job.map.nnodes; i++)
		if (i != job.me && job.dmn[i].state == DMN_LAUNCHING)
			dmn_abandon(&job.dmn[i]);
	job.t_kill = rc_now() + KILL_GRACE_S;
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
		job.suspect.deadline = rc_now() + SETTLE_S;
	job.suspect.active = true;
	if (prio == BLAME_SIGNAL)
		job_convict();
}

static const char *sig_name(int sig)
{
	const char *s = strsignal(sig);

	return s ? s : "unknown signal";
}

/* rank 0 takes no more input */
static void job_stdin_stop(void)
{
	if (job.stdin_on)
		rc_stdin_close(&job.in);
	job.stdin_on = false;
	job.rstdin_on = false;
}

static void job_rank_exited(int rank, int ws)
{
	struct rank *k = &job.ranks[rank];
	const char *host = host_of(rank);

	if (k->ended)
		return;
	k->ended = true;
	job.nalive--;
	if (job.verbose && WIFSIGNALED(ws))
		rc_lmsg("rank %d (pid %d) ended: killed by signal %d", rank,
			(int)k->pid, WTERMSIG(ws));
	else if (job.verbose)
		rc_lmsg("rank %d (pid %d) ended: exit status %d", rank,
			(int)k->pid, WEXITSTATUS(ws));
	if (rank == 0)
		job_stdin_stop();
	if (WIFSIGNALED(ws)) {
		job_suspect(BLAME_SIGNAL, 128 + WTERMSIG(ws),
			    "rank %d (pid %d) on %s killed by signal %d (%s); "
			    "terminating the job", rank, (int)k->pid, host,
			    WTERMSIG(ws), sig_name(WTERMSIG(ws)));
	} else if (WEXITSTATUS(ws)) {
		job_suspect(BLAME_EXIT, WEXITSTATUS(ws),
			    "rank %d (pid %d) on %s exited with status %d; "
			    "terminating the job", rank, (int)k->pid, host,
			    WEXITSTATUS(ws));
	} else if (k->connected && !k->finalized) {
		job_suspect(BLAME_EXIT, 1,
			    "rank %d (pid %d) on %s exited with status 0 "
			    "without calling MPI_Finalize (PMIx_Finalize) after "
			    "MPI_Init; terminating the job", rank, (int)k->pid,
			    host);
	}
}

static void job_rank_abort(int rank, int status, const char *msg)
{
	int code = status & 0xff;

	if (!code && status)
		code = 1;
	job_suspect(BLAME_ABORT, code,
		    "rank %d (pid %d) on %s called MPI_Abort with error code "
		    "%d%s%s; terminating the job", rank,
		    (int)job.ranks[rank].pid, host_of(rank), status,
		    msg && *msg ? ": " : "", msg ? msg : "");
}

static void job_rank_state(int rank, enum rc_pev_type what)
{
	if (what == RC_PEV_CONNECTED)
		job.ranks[rank].connected = true;
	else
		job.ranks[rank].finalized = true;
	if (job.verbose)
		rc_lmsg("rank %d %s", rank, what == RC_PEV_CONNECTED ?
			"connected" : "finalized");
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
	if (!job.t_giveup)
		job.t_giveup = rc_now() + GIVEUP_S;
}

/* ---- fences --------------------------------------------------------------- */

/*
 * A fence every node takes part in travels the launch tree: each daemon
 * passes up one blob for its subtree (RC_M_FENCE_SUB), the result goes
 * down as a broadcast. Other fences (some nodes only) go node by node.
 */
static bool job_tree_fence(int nnodes)
{
	return job.tree.radix > 0 && nnodes == job.map.nnodes;
}

static void job_fence_add(int node, const char *sig, int nnodes, int count,
			  const char *data, size_t len)
{
	struct rc_pev *ev, **pp;
	struct rc_wbuf w = { 0 };
	char *out = NULL;
	size_t outlen = 0;
	int *nodes = NULL, nn = 0, i, rc;
	bool ours = false;

	rc = rc_fence_add_count(job.fences, sig, nnodes, node, count, data, len,
				&out, &outlen, &nodes, &nn);
	if (rc < 0) {
		job_fail(1, SIGTERM, "fence %s: out of memory; terminating "
			 "the job", sig);
		return;
	}
	if (rc == 0)
		return;
	rc_wbuf_str(&w, sig);
	rc_wbuf_u32(&w, 1);
	rc_wbuf_bytes(&w, out, outlen);
	if (job_tree_fence(nnodes)) {
		dmn_bcast(RC_M_FENCE_DONE, &w);
		ours = job.me >= 0;
		nn = 0;
	}
	for (i = 0; i < nn; i++) {
		if (nodes[i] == job.me)
			ours = true;
		else if (nodes[i] >= 0 &&
			 job.dmn[nodes[i]].state == DMN_RUNNING)
			dmn_send(&job.dmn[nodes[i]], RC_M_FENCE_DONE, &w);
	}
	rc_wbuf_free(&w);
	free(nodes);
	for (pp = &job.lfences; ours && *pp; pp = &(*pp)->next) {
		ev = *pp;
		if (strcmp(ev->sig, sig))
			continue;
		*pp = ev->next;
		ev->next = NULL;
		rc_psrv_fence_done(ev, true, out, outlen);	/* takes out */
		return;
	}
	free(out);
}

/* ---- our own node's ranks (node.c callbacks) -------------------------------- */

static void local_state(void *arg, struct rc_lproc *p, enum rc_pev_type what)
{
	job_rank_state(p->rank, what);
}

static void local_fence(void *arg, struct rc_pev *ev)
{
	if (job.verbose)
		rc_lmsg("fence %s: %zu bytes from this node, %d node(s)",
			ev->sig, ev->ndata, ev->nnodes);
	ev->next = job.lfences;
	job.lfences = ev;
	job_fence_add(job.me, ev->sig, ev->nnodes, 1, ev->data, ev->ndata);
}

static void local_abort(void *arg, struct rc_pev *ev)
{
	if (ev->rank >= 0 && ev->rank < job.map.size)
		job_rank_abort(ev->rank, ev->status, ev->msg);
	rc_psrv_ack(ev, true);
	rc_pev_free(ev);
}

static void local_exited(void *arg, struct rc_lproc *p)
{
	job_rank_exited(p->rank, p->wstatus);
}

static const struct rc_node_ops local_ops = {
	.output = job_emit,
	.state = local_state,
	.fence = local_fence,
	.abort = local_abort,
	.exited = local_exited,
};

/* ---- daemons ------------------------------------------------------------------ */

static const char *dmn_host(const struct daemon *d)
{
	return job.map.hosts[d - job.dmn];
}

/* ranks of d's node not yet ended */
static int dmn_alive(const struct daemon *d)
{
	int r, n = 0, node = (int)(d - job.dmn);

	for (r = 0; r < job.map.size; r++)
		n += job.ranks[r].node == node && !job.ranks[r].ended;
	return n;
}

/* d's ranks will never report: count them as ended */
static void dmn_end_ranks(struct daemon *d)
{
	int r, node = (int)(d - job.dmn);

	for (r = 0; r < job.map.size; r++) {
		if (job.ranks[r].node != node || job.ranks[r].ended)
			continue;
		job.ranks[r].ended = true;
		job.nalive--;
		if (r == 0)
			job_stdin_stop();
	}
}

/*
 * Give up on an agent (ssh, srun, or with a local agent the daemon
 * itself): SIGTERM, with SIGCONT for a stopped one, so a daemon still
 * alive kills its ranks and cleans up; SIGKILL AGENT_GRACE_S later.
 */
static void ag_kill(struct agent *a)
{
	if (!a || !a->alive || a->t_kill)
		return;
	rc_procs_kill(&a->p, SIGTERM);
	rc_procs_kill(&a->p, SIGCONT);
	a->t_kill = rc_now() + AGENT_GRACE_S;
}

/* d is given up on (call after dmn_gone): its agent too, unless an srun
 * still serves other daemons */
static void dmn_kill_agent(struct daemon *d)
{
	if (d->ag && (!d->ag->shared || !ag_needed(d->ag)))
		ag_kill(d->ag);
}

/* d is gone, and with it every daemon below it in the tree */
static void dmn_gone(struct daemon *d)
{
	int node = (int)(d - job.dmn), i;

	rc_conn_close(&d->conn);
	d->state = DMN_GONE;
	/* its subtree (nodes after it in the tree's order) */
	for (i = 0; i < job.map.nnodes; i++) {
		if (i == job.me || job.dmn[i].state == DMN_GONE ||
		    rc_tree_parent(&job.tree, i) != node)
			continue;
		dmn_end_ranks(&job.dmn[i]);
		dmn_gone(&job.dmn[i]);
	}
}

/* not needed any more before it connected */
static void dmn_abandon(struct daemon *d)
{
	dmn_end_ranks(d);
	dmn_gone(d);
	dmn_kill_agent(d);
}

static void dmn_lost(struct daemon *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void dmn_lost(struct daemon *d, const char *fmt, ...)
{
	char why[1024];
	va_list ap;

	if (d->state == DMN_GONE)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (d->state != DMN_ENDING && (dmn_alive(d) || !d->drained)) {
		/* a rank's failure seen just before came first */
		if (job.suspect.active)
			job_convict();
		if (job.state == JOB_RUNNING)
			job_fail(EXIT_LOST, SIGTERM, "lost host %s: %s; "
				 "terminating the job", dmn_host(d), why);
		else if (job.verbose)	/* the job is ending anyway */
			rc_lmsg("host %s: %s", dmn_host(d), why);
	}
	dmn_end_ranks(d);
	dmn_gone(d);
	dmn_kill_agent(d);
}

/* one of our children in the launch tree (it has a connection to us) */
static bool dmn_direct(const struct daemon *d)
{
	return rc_tree_parent(&job.tree, (int)(d - job.dmn)) < 0;
}

/* `type` + payload w wrapped as `wrap`, preceded by node (>= 0) */
static void wrap_msg(struct rc_wbuf *out, int node, uint32_t type,
		     const struct rc_wbuf *w)
{
	if (node >= 0)
		rc_wbuf_u32(out, (uint32_t)node);
	rc_wbuf_u32(out, type);
	rc_wbuf_bytes(out, w ? w->p : NULL, w ? w->len : 0);
	if (w && w->oom)
		out->oom = true;
}

static void dmn_send(struct daemon *d, uint32_t type, struct rc_wbuf *w)
{
	struct rc_wbuf rw = {0};
	int node = (int)(d - job.dmn), hop;

	if (d->state != DMN_RUNNING && d->state != DMN_ENDING)
		return;
	if (!dmn_direct(d)) {
		/* down the tree, through the child above it */
		hop = rc_tree_next_hop(&job.tree, -1, node);
		if (hop < 0)
			return;
		wrap_msg(&rw, node, type, w);
		dmn_send(&job.dmn[hop], RC_M_RELAY_DOWN, &rw);
		rc_wbuf_free(&rw);
		return;
	}
	if (rc_conn_send(&d->conn, type, w))
		dmn_lost(d, "cannot send to its daemon: %s", w && w->oom ?
			 "out of memory" : strerror(errno));
}

/* to every daemon in the tree: our children forward it down */
static void dmn_bcast(uint32_t type, const struct rc_wbuf *w)
{
	struct rc_wbuf bw = {0};
	int i;

	wrap_msg(&bw, -1, type, w);
	for (i = 0; i < job.map.nnodes; i++)
		if (i != job.me && dmn_direct(&job.dmn[i]) &&
		    job.dmn[i].state == DMN_RUNNING)
			dmn_send(&job.dmn[i], RC_M_BCAST, &bw);
	rc_wbuf_free(&bw);
}

static void dmn_send_job(struct daemon *d)
{
	struct rc_wbuf w = { 0 };
	int i;

	rc_wbuf_str(&w, job.map.nspace);
	rc_wbuf_u32(&w, (uint32_t)job.map.size);
	rc_wbuf_u32(&w, (uint32_t)job.map.nnodes);
	for (i = 0; i < job.map.nnodes; i++)
		rc_wbuf_str(&w, job.map.hosts[i]);
	for (i = 0; i < job.map.size; i++)
		rc_wbuf_u32(&w, (uint32_t)job.map.node_of[i]);
	rc_wbuf_str(&w, job.rprog);
	rc_wbuf_u32(&w, (uint32_t)job.opts.argc);
	for (i = 0; i < job.opts.argc; i++)
		rc_wbuf_str(&w, job.opts.argv[i]);
	rc_wbuf_u32(&w, (uint32_t)job.nxset);
	for (i = 0; i < job.nxset; i++)
		rc_wbuf_str(&w, job.xset[i]);
	rc_wbuf_str(&w, job.opts.wdir ? job.opts.wdir : job.cwd);
	rc_wbuf_u32(&w, job.opts.wdir != NULL);
	rc_wbuf_u32(&w, (uint32_t)job.opts.bind);
	rc_wbuf_u32(&w, (uint32_t)(HB_INTERVAL_S * 1000));
	rc_wbuf_u32(&w, (uint32_t)(job.hb_timeout * 1000));
	/* the launch tree: its shape, and how daemons start daemons */
	rc_wbuf_u32(&w, (uint32_t)job.tree.radix);
	rc_wbuf_u32(&w, (uint32_t)job.me); /* -1: none */
	rc_wbuf_str(&w, rc_remote_agent(job.remote));
	rc_wbuf_u32(&w, (uint32_t)(job.launch_timeout * 1000));
	dmn_send(d, RC_M_JOB, &w);
	rc_wbuf_free(&w);
}

/* remote.c: a daemon proved itself */
static bool job_authed(void *arg, int node, struct rc_conn *c)
{
	struct daemon *d;
	struct rc_wbuf w = { 0 };

	if (node < 0 || node >= job.map.nnodes || node == job.me)
		return false;
	d = &job.dmn[node];
	if (d->state != DMN_LAUNCHING || job.phase != PHASE_RUN ||
	    !dmn_direct(d))
		return false;
	d->conn = *c;
	d->state = DMN_RUNNING;
	d->t_launch = rc_now() + job.launch_timeout;
	if (job.verbose)
		rc_lmsg("host %s: daemon connected", dmn_host(d));
	dmn_send_job(d);
	if (job.state != JOB_RUNNING && d->state == DMN_RUNNING) {
		/* too late: the job is ending */
		rc_wbuf_u32(&w, 0);
		dmn_send(d, RC_M_END, &w);
		rc_wbuf_free(&w);
		d->state = DMN_ENDING;
		dmn_end_ranks(d);
	}
	return true;
}

/* a rank started: --report-bindings, RCMPI_LAUNCHER_VERBOSE */
static void job_report_rank(int rank, pid_t pid, const char *host,
			    const char *bound, const char *cpus)
{
	if (job.opts.report_bindings) {
		if (bound && *bound)
			rc_lmsg("rank %d (pid %d) on %s: bound to %s (CPUs "
				"%s)",
				rank, (int)pid, host, bound, cpus);
		else
			rc_lmsg("rank %d (pid %d) on %s: not bound", rank,
				(int)pid, host);
	}
	if (job.verbose)
		rc_lmsg("rank %d: pid %d on %s, CPUs %s", rank, (int)pid, host,
			cpus && *cpus ? cpus : "any");
}

static void dmn_relayed(struct daemon *via, struct rc_rbuf *rb);

static void dmn_msg(struct daemon *d, uint32_t type, struct rc_rbuf *rb)
{
	uint32_t rank = 0, n, i, v;
	const char *data;
	size_t len;
	char *s = NULL, *sig = NULL;

	switch (type) {
	case RC_M_PING:
		return;
	case RC_M_STARTED:
		d->started = true;
		n = rc_rbuf_u32(rb);
		for (i = 0; i < n && !rb->bad; i++) {
			char *bound, *cpus;

			rank = rc_rbuf_u32(rb);
			v = rc_rbuf_u32(rb);
			bound = rc_rbuf_strdup(rb);
			cpus = rc_rbuf_strdup(rb);
			if (!rb->bad && rank < (uint32_t)job.map.size) {
				job.ranks[rank].pid = (pid_t)v;
				job_report_rank((int)rank, (pid_t)v,
						dmn_host(d), bound, cpus);
			}
			free(bound);
			free(cpus);
		}
		break;
	case RC_M_FAILED:
		s = rc_rbuf_strdup(rb);
		if (rb->bad)
			break;
		/* it exits by itself: nothing more to send it */
		dmn_end_ranks(d);
		d->state = DMN_ENDING;
		job_fail(1, SIGTERM, "host %s: %s; terminating the job",
			 dmn_host(d), s);
		break;
	case RC_M_SIGNALED:
		v = rc_rbuf_u32(rb);
		if (!rb->bad && v < 65)
			job_fail(128 + (int)v, SIGTERM, "the daemon on host %s "
				 "received signal %u (%s); terminating the job",
				 dmn_host(d), v, sig_name((int)v));
		break;
	case RC_M_CONNECTED:
	case RC_M_FINALIZED:
		rank = rc_rbuf_u32(rb);
		if (!rb->bad && rank < (uint32_t)job.map.size)
			job_rank_state((int)rank, type == RC_M_CONNECTED ?
				       RC_PEV_CONNECTED : RC_PEV_FINALIZED);
		break;
	case RC_M_ABORT:
		rank = rc_rbuf_u32(rb);
		v = rc_rbuf_u32(rb);
		s = rc_rbuf_strdup(rb);
		if (!rb->bad && rank < (uint32_t)job.map.size)
			job_rank_abort((int)rank, (int)v, s);
		break;
	case RC_M_FENCE:
		sig = rc_rbuf_strdup(rb);
		v = rc_rbuf_u32(rb);
		data = rc_rbuf_bytes(rb, &len);
		if (rb->bad)
			break;
		if (job.verbose)
			rc_lmsg("fence %s: %zu bytes from %s, %u node(s)", sig,
				len, dmn_host(d), v);
		job_fence_add((int)(d - job.dmn), sig, (int)v, 1, data, len);
		break;
	case RC_M_EXITED:
		rank = rc_rbuf_u32(rb);
		v = rc_rbuf_u32(rb);
		if (!rb->bad && rank < (uint32_t)job.map.size &&
		    job.ranks[rank].node == (int)(d - job.dmn))
			job_rank_exited((int)rank, (int)v);
		break;
	case RC_M_OUT:
		rank = rc_rbuf_u32(rb);
		v = rc_rbuf_u32(rb);
		data = rc_rbuf_bytes(rb, &len);
		if (!rb->bad && rank < (uint32_t)job.map.size &&
		    (v == RC_IOF_OUT || v == RC_IOF_ERR))
			job_emit(NULL, (int)rank, (int)v, data, len);
		break;
	case RC_M_STDIN_ACK:
		v = rc_rbuf_u32(rb);
		d->stdin_inflight -= v < d->stdin_inflight ? v :
				     d->stdin_inflight;
		break;
	case RC_M_STDIN_CLOSED:
		job.rstdin_on = false;
		break;
	case RC_M_DRAINED:
		d->drained = true;
		break;
	case RC_M_RELAY_UP:
		dmn_relayed(d, rb);
		break;
	case RC_M_FENCE_SUB:
		sig = rc_rbuf_strdup(rb);
		v = rc_rbuf_u32(rb);
		n = rc_rbuf_u32(rb);
		data = rc_rbuf_bytes(rb, &len);
		if (rb->bad || !dmn_direct(d) ||
		    n != 1 + (uint32_t)rc_tree_below(&job.tree,
						     (int)(d - job.dmn))) {
			rb->bad = true;
			break;
		}
		if (job.verbose && n == 1)
			rc_lmsg("fence %s: %zu bytes from %s, %u node(s)", sig,
				len, dmn_host(d), v);
		else if (job.verbose)
			rc_lmsg("fence %s: %zu bytes from %s and the %u "
				"daemon(s) below it, %u node(s)", sig, len,
				dmn_host(d), n - 1, v);
		job_fence_add((int)(d - job.dmn), sig, (int)v, (int)n, data,
			      len);
		break;
	case RC_M_LOST:
	case RC_M_NOTE:
		v = rc_rbuf_u32(rb);
		s = rc_rbuf_strdup(rb);
		if (rb->bad || !dmn_direct(d) ||
		    rc_tree_next_hop(&job.tree, -1, (int)v) !=
			    (int)(d - job.dmn) ||
		    (int)v == (int)(d - job.dmn)) {
			rb->bad = true;
			break;
		}
		if (type == RC_M_LOST)
			dmn_lost(&job.dmn[v], "%s", s);
		else if (job.dmn[v].state != DMN_GONE || job.verbose)
			rc_lmsg("%s: %s", job.map.hosts[v], s);
		break;
	default:
		rb->bad = true;
	}
	if (rb->bad)
		dmn_lost(d, "its daemon sent a malformed message (type %u)",
			 type);
	free(s);
	free(sig);
}

/*
 * A message of a daemon below one of our children, relayed up by its
 * parent (node, type, payload): handled as if it came from its own
 * connection. Its first one says it connected and got the job.
 */
static void dmn_relayed(struct daemon *via, struct rc_rbuf *rb)
{
	uint32_t node = rc_rbuf_u32(rb), type = rc_rbuf_u32(rb);
	struct rc_rbuf in = {0};
	struct daemon *d;

	in.p = rc_rbuf_bytes(rb, &in.len);
	if (rb->bad || !dmn_direct(via) || node >= (uint32_t)job.map.nnodes ||
	    rc_tree_next_hop(&job.tree, -1, (int)node) !=
		    (int)(via - job.dmn) ||
	    (int)node == (int)(via - job.dmn) || type == RC_M_RELAY_UP) {
		rb->bad = true;
		return;
	}
	d = &job.dmn[node];
	if (d->state == DMN_LAUNCHING && job.phase == PHASE_RUN) {
		d->state = DMN_RUNNING;
		if (job.verbose)
			rc_lmsg("host %s: daemon connected (through %s)",
				dmn_host(d), dmn_host(via));
		if (job.state != JOB_RUNNING) {
			/* too late: the job is ending (it got the KILL) */
			dmn_end_ranks(d);
		}
	}
	if (d->state == DMN_RUNNING)
		dmn_msg(d, type, &in);
}

static void dmn_conn_io(struct daemon *d, short revents)
{
	struct rc_rbuf rb;
	uint32_t type;
	int rc = 2, nx;

	if (d->state == DMN_GONE)
		return;
	if (revents & POLLOUT && rc_conn_flush(&d->conn)) {
		dmn_lost(d, "the connection to its daemon broke (%s)",
			 strerror(errno));
		return;
	}
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	rc = rc_conn_fill(&d->conn);
	while (d->state == DMN_RUNNING || d->state == DMN_ENDING) {
		nx = rc_conn_next(&d->conn, &type, &rb);
		if (nx < 0)
			dmn_lost(d, "its daemon sent a malformed message");
		if (nx <= 0)
			break;
		if (d->state == DMN_RUNNING)
			dmn_msg(d, type, &rb);
	}
	if (rc > 0 || d->state == DMN_GONE)
		return;
	if (d->state == DMN_ENDING) {
		dmn_gone(d);
		return;
	}
	dmn_lost(d, "its daemon closed the connection%s%s",
		 rc < 0 ? ": " : "", rc < 0 ? strerror(errno) : "");
}

static int ag_pump(struct agent *a, int stream)
{
	return rc_iof_pump_close(stream == RC_IOF_OUT ? &a->out : &a->err,
				 stream == RC_IOF_OUT ? &a->p.fd_out :
							&a->p.fd_err,
				 stream, agent_emit, a);
}

static void ag_exited(struct agent *a)
{
	int ws = a->ws, i;
	char how[64];

	for (i = 0; i < 64 && ag_pump(a, RC_IOF_OUT) == 1; i++)
		;
	for (i = 0; i < 64 && ag_pump(a, RC_IOF_ERR) == 1; i++)
		;
	rc_wait_str(ws, how, sizeof(how));
	if (job.verbose)
		rc_lmsg("%s: the launch agent %s", a->who ? a->who : a->name,
			how);
	/* connected daemons are judged by their connection */
	for (i = 0; i < job.map.nnodes; i++)
		if (i != job.me && job.dmn[i].ag == a &&
		    job.dmn[i].state == DMN_LAUNCHING)
			dmn_lost(&job.dmn[i],
				 "could not start its daemon: the "
				 "launch agent (%s) %s",
				 a->name, how);
}

static void ag_init(struct agent *a, const char *name, const char *who)
{
	a->p.rank = -1;
	a->p.fd_in = a->p.fd_out = a->p.fd_err = -1;
	a->p.label = a->label;
	a->p.deathsig = SIGTERM;
	a->pi_out = a->pi_err = -1;
	snprintf(a->name, sizeof(a->name), "%s", name);
	a->who = who;
}

static void dmn_launching(struct daemon *d, struct agent *a)
{
	d->ag = a;
	d->state = DMN_LAUNCHING;
	d->t_launch = rc_now() + job.launch_timeout;
}

/* under Slurm: one srun starts every daemon (remote.c) */
static int job_launch_srun(void)
{
	struct agent *a = &job.agents[0];
	const char **hosts;
	int i, ret;

	hosts = calloc(job.map.nnodes, sizeof(*hosts));
	if (!hosts) {
		rc_lerr("out of memory");
		return -1;
	}
	for (i = 0; i < job.map.nnodes; i++)
		hosts[i] = i == job.me ? NULL : job.map.hosts[i];
	ag_init(a, "srun", NULL); /* its lines say "srun:" */
	a->shared = true;
	snprintf(a->label, sizeof(a->label), "srun (the daemons' launcher)");
	ret = rc_remote_launch_srun(job.remote, hosts, job.map.nnodes, &a->p);
	free(hosts);
	if (ret)
		return -1;
	a->alive = true;
	job.nagents = 1;
	for (i = 0; i < job.map.nnodes; i++)
		if (i != job.me)
			dmn_launching(&job.dmn[i], a);
	return 0;
}

static int job_launch_daemons(void)
{
	const char *name = job.opts.agent ? job.opts.agent
			   : rc_param_raw(RC_P_LAUNCH_AGENT)
				   ? rc_param_raw(RC_P_LAUNCH_AGENT)
				   : "ssh";
	int i;

	job.remote =
		rc_remote_new(job.opts.agent, job.auth, NULL, job.map.nnodes,
			      job_authed, NULL, job.verbose);
	if (!job.remote)
		return -1;
	if (job.srun)
		return job_launch_srun();
	for (i = 0; i < job.map.nnodes; i++) {
		struct agent *a = &job.agents[job.nagents];

		if (i == job.me)
			continue;
		if (!dmn_direct(&job.dmn[i])) {
			/* started by its parent; the parent reports it lost
			 * first: each daemon above it had the launch timeout
			 * to connect and again to start */
			dmn_launching(&job.dmn[i], NULL);
			job.dmn[i].t_launch =
				rc_now() + 1.0 +
				2 * job.launch_timeout *
					rc_tree_depth(&job.tree, i);
			continue;
		}
		ag_init(a, name, job.map.hosts[i]);
		snprintf(a->label, sizeof(a->label),
			 "the launch agent for host %s", job.map.hosts[i]);
		if (rc_remote_launch(job.remote, i, job.map.hosts[i], &a->p))
			return -1;
		a->alive = true;
		job.nagents++;
		dmn_launching(&job.dmn[i], a);
	}
	return 0;
}

/* ---- signals and children ---------------------------------------------------- */

static void job_reap(void)
{
	int ws, i;
	pid_t pid;

	while ((pid = rc_procs_reap(&ws)) > 0) {
		if (rc_node_child(&job.node, pid, ws))
			continue;
		for (i = 0; i < job.nagents; i++) {
			struct agent *a = &job.agents[i];

			if (a->alive && a->p.pid == pid) {
				a->alive = false;
				a->p.alive = false;
				a->reaped = true;
				a->ws = ws;
			}
		}
	}
	rc_node_judge(&job.node);
	for (i = 0; i < job.nagents; i++) {
		if (job.agents[i].reaped) {
			job.agents[i].reaped = false;
			ag_exited(&job.agents[i]);
		}
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

/* ---- stdin to a remote rank 0 ---------------------------------------------- */

static struct daemon *job_rstdin_daemon(void)
{
	struct daemon *d;

	if (!job.rstdin_on)
		return NULL;
	d = &job.dmn[job.ranks[0].node];
	return d->state == DMN_RUNNING ? d : NULL;
}

static void job_rstdin_read(struct daemon *d)
{
	char buf[STDIN_WINDOW];
	struct rc_wbuf w = { 0 };
	ssize_t n;

	do {
		n = read(0, buf, STDIN_WINDOW - d->stdin_inflight);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n > 0) {
		rc_wbuf_bytes(&w, buf, (size_t)n);
		d->stdin_inflight += (size_t)n;
		dmn_send(d, RC_M_STDIN, &w);
		rc_wbuf_free(&w);
		return;
	}
	dmn_send(d, RC_M_STDIN_EOF, NULL);
	job.rstdin_on = false;
}

/* ---- the loop ---------------------------------------------------------------- */

static void dl_min(double *dl, double t)
{
	if (t > 0 && (!*dl || t < *dl))
		*dl = t;
}

static int job_poll_ms(double t)
{
	double dl = 0, x;
	int i;

	if (job.state == JOB_RUNNING)
		dl_min(&dl, job.t_timeout);
	if (job.suspect.active)
		dl_min(&dl, job.suspect.deadline);
	dl_min(&dl, job.t_kill);
	dl_min(&dl, job.t_giveup);
	dl_min(&dl, job.t_drain);
	dl_min(&dl, job.t_end);
	if (job.ndmn)
		dl_min(&dl, job.t_hb);
	for (i = 0; i < job.map.nnodes; i++) {
		struct daemon *d = &job.dmn[i];

		if (i == job.me)
			continue;
		if (d->state == DMN_LAUNCHING)
			dl_min(&dl, d->t_launch);
		if (d->state == DMN_RUNNING && d->conn.fd >= 0)
			dl_min(&dl, d->started
					    ? d->conn.last_rx + job.hb_timeout
					    : d->t_launch);
	}
	for (i = 0; i < job.nagents; i++)
		if (job.agents[i].alive)
			dl_min(&dl, job.agents[i].t_kill);
	if (job.remote) {
		x = rc_remote_timers(job.remote, t);
		dl_min(&dl, x);
	}
	if (!dl)
		return -1;
	x = (dl - t) * 1000.0 + 1;
	return x < 0 ? 0 : (int)x;
}

static void job_timers(double t)
{
	struct rc_wbuf w = { 0 };
	int i;

	if (job.suspect.active && (t >= job.suspect.deadline ||
	    (job.t_timeout && t >= job.t_timeout)))
		job_convict();
	if (job.state == JOB_RUNNING && job.t_timeout && t >= job.t_timeout)
		job_fail(EXIT_TIMEOUT, SIGTERM,
			 "the job ran out of time (--timeout %g s); "
			 "terminating the job", job.opts.timeout);
	if (job.t_kill && t >= job.t_kill) {
		job_signal_all(SIGKILL);
		job.t_kill = 0;
		job.t_giveup = t + GIVEUP_S;
	}
	for (i = 0; i < job.map.nnodes; i++) {
		struct daemon *d = &job.dmn[i];

		if (i == job.me)
			continue;
		if (d->state == DMN_LAUNCHING && t >= d->t_launch)
			dmn_lost(d, "its daemon did not connect back within "
				 "%g s", job.launch_timeout);
		if (d->state == DMN_RUNNING && d->conn.fd >= 0 && !d->started &&
		    t >= d->t_launch)
			dmn_lost(d,
				 "its daemon did not start within %g s "
				 "of connecting",
				 job.launch_timeout);
		if (d->state == DMN_RUNNING && d->conn.fd >= 0 && d->started &&
		    t - d->conn.last_rx >= job.hb_timeout)
			dmn_lost(d, "no heartbeat from its daemon for %g s "
				 "(stopped, or the host is down)",
				 job.hb_timeout);
		if (job.t_giveup && t >= job.t_giveup &&
		    d->state == DMN_RUNNING && dmn_alive(d))
			dmn_lost(d, "its daemon did not report its ranks' end "
				 "%g s after SIGKILL", GIVEUP_S);
	}
	for (i = 0; i < job.nagents; i++) {
		struct agent *a = &job.agents[i];

		if (a->alive && a->t_kill > 0 && t >= a->t_kill) {
			rc_procs_kill(&a->p, SIGKILL);
			a->t_kill = -1;
		}
	}
	if (job.ndmn && t >= job.t_hb) {
		for (i = 0; i < job.map.nnodes; i++)
			if (i != job.me && job.dmn[i].conn.fd >= 0 &&
			    (job.dmn[i].state == DMN_RUNNING ||
			     job.dmn[i].state == DMN_ENDING))
				dmn_send(&job.dmn[i], RC_M_PING, &w);
		job.t_hb = t + HB_INTERVAL_S;
	}
	if (job.remote)
		rc_remote_timers(job.remote, t);
}

static bool job_outputs_done(void)
{
	int i;

	if (rc_node_outputs_open(&job.node))
		return false;
	for (i = 0; i < job.map.nnodes; i++)
		if (i != job.me && job.dmn[i].state == DMN_RUNNING &&
		    !job.dmn[i].drained)
			return false;
	return true;
}

/* every rank ended, output drained: tell the daemons to go */
static void job_begin_end(double t)
{
	struct rc_wbuf w = { 0 };
	int i;

	job.phase = PHASE_END;
	job.t_drain = 0;
	job.t_end = t + END_MAX_S;
	job.stdin_on = job.rstdin_on = false;
	rc_node_close_outputs(&job.node);
	rc_wbuf_u32(&w, !job.abnormal);
	/* our children pass it down and go once their children went */
	dmn_bcast(RC_M_END, &w);
	for (i = 0; i < job.map.nnodes; i++) {
		struct daemon *d = &job.dmn[i];

		if (i != job.me && d->state == DMN_RUNNING)
			d->state = DMN_ENDING;
	}
	rc_wbuf_free(&w);
}

static bool job_daemons_done(void)
{
	int i;

	for (i = 0; i < job.map.nnodes; i++)
		if (i != job.me && job.dmn[i].state != DMN_GONE)
			return false;
	for (i = 0; i < job.nagents; i++)
		if (job.agents[i].alive || job.agents[i].p.fd_out >= 0 ||
		    job.agents[i].p.fd_err >= 0)
			return false;
	return true;
}

static int job_fill_poll(void)
{
	struct pollfd *pfd = job.pfd;
	struct daemon *rd = job_rstdin_daemon();
	int n = 0, i;

	pfd[n].fd = job.sigfd;
	pfd[n++].events = POLLIN;
	job.pi_node = n;
	job.n_node = rc_node_pollfds(&job.node, pfd + n, true);
	n += job.n_node;
	/* local stdin relay (source, destination), remote relay */
	job.pi_stdin = n;
	pfd[n].fd = job.stdin_on && rc_stdin_want_src(&job.in) ? job.in.src :
								   -1;
	pfd[n++].events = POLLIN;
	pfd[n].fd = job.stdin_on && rc_stdin_want_dst(&job.in) ? job.in.dst :
								   -1;
	pfd[n++].events = POLLOUT;
	pfd[n].fd = rd && rd->stdin_inflight < STDIN_WINDOW ? 0 : -1;
	pfd[n++].events = POLLIN;
	job.pi_remote = n;
	if (job.remote)
		n += rc_remote_pollfds(job.remote, pfd + n);
	for (i = 0; i < job.map.nnodes; i++) {
		struct daemon *d = &job.dmn[i];

		d->pi_conn = -1;
		if (i == job.me)
			continue;
		if (d->conn.fd >= 0 && d->state != DMN_GONE) {
			d->pi_conn = n;
			pfd[n].fd = d->conn.fd;
			pfd[n++].events = POLLIN |
				(rc_conn_pending(&d->conn) ? POLLOUT : 0);
		}
	}
	for (i = 0; i < job.nagents; i++) {
		struct agent *a = &job.agents[i];

		a->pi_out = a->pi_err = -1;
		if (a->p.fd_out >= 0) {
			a->pi_out = n;
			pfd[n].fd = a->p.fd_out;
			pfd[n++].events = POLLIN;
		}
		if (a->p.fd_err >= 0) {
			a->pi_err = n;
			pfd[n].fd = a->p.fd_err;
			pfd[n++].events = POLLIN;
		}
	}
	return n;
}

static void job_loop(void)
{
	struct pollfd *pfd = job.pfd;
	int k, i, n;
	double t;

	for (;;) {
		t = rc_now();
		job_timers(t);
		if (job.phase == PHASE_RUN && job.nalive == 0) {
			/* nobody left who could take the blame */
			job_convict();
			if (job_outputs_done()) {
				job_begin_end(t);
			} else if (!job.t_drain) {
				job.t_drain = t + (job.ndmn ? REMOTE_DRAIN_S :
						   DRAIN_S);
			} else if (t >= job.t_drain) {
				job_begin_end(t);
			}
		}
		if (job.phase == PHASE_END) {
			if (job_daemons_done())
				break;
			if (t >= job.t_end) {
				for (i = 0; i < job.nagents; i++)
					ag_kill(&job.agents[i]);
				if (t >= job.t_end + AGENT_GRACE_S + 1.0)
					break;
			}
		}
		n = job_fill_poll();
		if (poll(pfd, n, job_poll_ms(t)) < 0 && errno != EINTR) {
			rc_lerr("poll: %s", strerror(errno));
			job_fail(1, SIGKILL, "internal error; terminating");
		}
		if (pfd[0].revents)
			job_on_sigfd();
		rc_node_handle(&job.node, pfd + job.pi_node, job.n_node);
		/* rank 0 may have exited meanwhile: closed is checked first */
		k = job.pi_stdin;
		if (job.stdin_on && !job.in.closed) {
			if (pfd[k].revents)
				rc_stdin_on_src(&job.in);
			if (pfd[k + 1].revents)
				rc_stdin_on_dst(&job.in);
		}
		if (job.in.closed)
			job.stdin_on = false;
		if (pfd[k + 2].revents && job_rstdin_daemon())
			job_rstdin_read(job_rstdin_daemon());
		for (i = 0; i < job.map.nnodes; i++) {
			struct daemon *d = &job.dmn[i];

			if (i == job.me)
				continue;
			if (d->pi_conn >= 0 && pfd[d->pi_conn].revents)
				dmn_conn_io(d, pfd[d->pi_conn].revents);
		}
		for (i = 0; i < job.nagents; i++) {
			struct agent *a = &job.agents[i];

			if (a->pi_out >= 0 && pfd[a->pi_out].revents)
				ag_pump(a, RC_IOF_OUT);
			if (a->pi_err >= 0 && pfd[a->pi_err].revents)
				ag_pump(a, RC_IOF_ERR);
		}
		/* handshakes last: a new daemon's fd is not in this round */
		if (job.remote)
			rc_remote_handle(job.remote, pfd + job.pi_remote);
	}
}

/* ---- start-up ------------------------------------------------------------------ */

/* RCMPI_LAUNCHER_STATS: what the job cost mpirun itself (bench/) */
static void job_stats(void)
{
	struct rusage ru;
	int i, depth = 0, kids = 0;

	getrusage(RUSAGE_SELF, &ru);
	for (i = 0; i < job.map.nnodes; i++) {
		if (i == job.me)
			continue;
		if (rc_tree_depth(&job.tree, i) > depth)
			depth = rc_tree_depth(&job.tree, i);
		kids += rc_tree_parent(&job.tree, i) < 0;
	}
	rc_lmsg("stats: hosts %d daemons %d radix %d children %d depth %d "
		"connections-max %d sent %llu B %llu msgs received %llu B "
		"cpu %.3f s (user %.3f sys %.3f)",
		job.map.nnodes, job.ndmn, job.tree.radix, kids, depth,
		rc_net_stats.conns_max,
		(unsigned long long)rc_net_stats.tx_bytes,
		(unsigned long long)rc_net_stats.tx_msgs,
		(unsigned long long)rc_net_stats.rx_bytes,
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
			ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
}

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

static int env_seconds(enum rc_param_id id, double *out)
{
	const struct rc_param_def *d = &rc_params[id];
	const char *v = rc_param_raw(id);

	if (!rc_param_parse_seconds(v ? v : d->def, (double)d->max, out)) {
		rc_lerr("RCMPI_%s='%s' is not a number of seconds > 0", d->name,
			v ? v : d->def);
		return -1;
	}
	return 0;
}

/*
 * Inside a Slurm allocation, with no launch agent asked for, one srun
 * starts the daemons (Slurm accounts for them and cleans them up).
 */
static bool job_use_srun(void)
{
	char *path;

	if (job.opts.agent || rc_param_raw(RC_P_LAUNCH_AGENT) ||
	    !getenv("SLURM_JOB_ID"))
		return false;
	path = rc_resolve_prog("srun");
	if (!path) {
		rc_lmsg("warning: inside a Slurm allocation, but srun is not "
			"in PATH: starting the daemons with ssh");
		return false;
	}
	free(path);
	return true;
}

/* --auth, else RCMPI_AUTH */
static int job_auth(void)
{
	const char *a = job.opts.auth ? job.opts.auth : rc_param_str(RC_P_AUTH);
	char why[256];

	job.auth = rc_auth_parse(a);
	if (job.auth < 0) {
		rc_lerr("RCMPI_AUTH=%s: expected secret or munge", a);
		return -1;
	}
	if (!rc_auth_available(job.auth, why, sizeof(why))) {
		rc_lerr("--auth %s: %s", a, why);
		return -1;
	}
	return 0;
}

/* this host only, as many ranks as usable cores (the checks of old) */
static int job_hosts_local(struct rc_hostlist *hl, int *np)
{
	int *cpus = NULL, ncpu;

	ncpu = rc_cpus_allowed(&cpus);
	free(cpus);
	if (ncpu <= 0) {
		rc_lerr("sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	if (job.opts.mapby == RC_MAP_PPR) {
		/* rc_hosts_map checks -n against ppr */
		*np = job.opts.np ? job.opts.np : job.opts.ppr;
		if (job.opts.ppr > ncpu && !job.opts.oversubscribe) {
			rc_lerr("%d ranks per node but only %d usable core%s "
				"(sched_getaffinity); use --oversubscribe to "
				"run more ranks than cores",
				job.opts.ppr, ncpu,
				ncpu == 1 ? " is" : "s are");
			return -1;
		}
		return rc_hosts_add(hl, job.host, strlen(job.host),
				    job.opts.ppr > ncpu ? job.opts.ppr : ncpu);
	}
	*np = job.opts.np ? job.opts.np : ncpu;
	if (*np > ncpu && !job.opts.oversubscribe) {
		rc_lerr("%d ranks requested but only %d usable core%s "
			"(sched_getaffinity); use --oversubscribe to run "
			"more ranks than cores", *np, ncpu,
			ncpu == 1 ? " is" : "s are");
		return -1;
	}
	if (job.opts.bind == RC_BIND_CORE && *np > ncpu) {
		rc_lerr("--bind-to core: %d ranks but only %d usable cores; "
			"use --bind-to none", *np, ncpu);
		return -1;
	}
	return rc_hosts_add(hl, job.host, strlen(job.host), *np);
}

/*
 * The job map: the hosts that get ranks, in the order of their first
 * rank; every name for this host is one node, named as gethostname says.
 */
static int job_map(void)
{
	struct rc_hostlist hl = { 0 };
	int *host_of = NULL, *nodeidx = NULL, *count = NULL;
	int np = 0, i, r, h, ret = -1;
	long total = 0;

	if (gethostname(job.host, sizeof(job.host) - 1))
		strcpy(job.host, "localhost");
	job.host[sizeof(job.host) - 1] = 0;
	snprintf(job.map.nspace, sizeof(job.map.nspace), "rcmpi.%.200s.%d",
		 job.host, (int)getpid());
	if (!job.opts.hosts && !job.opts.hostfile) {
		/* inside an allocation (or with RCMPI_HOSTFILE): its hosts */
		if (rc_batch_hosts(&hl, &job.batch))
			goto out;
		if (job.verbose && job.batch != RC_BATCH_NONE)
			rc_lmsg("hosts from the %s: %d host%s",
				rc_batch_name(job.batch), hl.n,
				hl.n == 1 ? "" : "s");
	}
	if (!job.opts.hosts && !job.opts.hostfile && !hl.n) {
		if (job_hosts_local(&hl, &np))
			goto out;
	} else {
		if (job.opts.hosts ? rc_hosts_parse_spec(&hl, job.opts.hosts)
		    : job.opts.hostfile
			    ? rc_hosts_parse_file(&hl, job.opts.hostfile)
			    : 0)
			goto out;
		for (h = 0; h < hl.n; h++)
			total += hl.h[h].slots;
		if (job.opts.mapby == RC_MAP_PPR)
			total = (long)job.opts.ppr * hl.n;
		np = job.opts.np ? job.opts.np :
		     total > 1 << 20 ? 1 << 20 : (int)total;
	}
	host_of = calloc(np, sizeof(int));
	nodeidx = malloc(sizeof(int) * hl.n);
	job.map.hosts = calloc(hl.n + 1, sizeof(char *));
	job.map.node_of = calloc(np, sizeof(int));
	job.map.local_rank = calloc(np, sizeof(int));
	count = calloc(hl.n + 1, sizeof(int));
	if (!host_of || !nodeidx || !job.map.hosts || !job.map.node_of ||
	    !job.map.local_rank || !count) {
		rc_lerr("out of memory");
		goto out;
	}
	if (rc_hosts_map(&hl, np, job.opts.mapby, job.opts.ppr,
			 job.opts.oversubscribe, host_of))
		goto out;
	job.me = -1;
	for (h = 0; h < hl.n; h++)
		nodeidx[h] = -1;
	for (r = 0; r < np; r++) {
		h = host_of[r];
		if (nodeidx[h] < 0 && !job.opts.local_daemon &&
		    rc_host_is_local(hl.h[h].name, job.host)) {
			if (job.me < 0) {
				job.me = job.map.nnodes;
				job.map.hosts[job.map.nnodes++] = job.host;
			}
			nodeidx[h] = job.me;
		} else if (nodeidx[h] < 0) {
			nodeidx[h] = job.map.nnodes;
			job.map.hosts[job.map.nnodes] = strdup(hl.h[h].name);
			if (!job.map.hosts[job.map.nnodes++]) {
				rc_lerr("out of memory");
				goto out;
			}
		}
		job.map.node_of[r] = nodeidx[h];
		job.map.local_rank[r] = count[nodeidx[h]]++;
	}
	job.map.size = np;
	job.ndmn = job.map.nnodes - (job.me >= 0);
	if (job.verbose)
		for (i = 0; i < job.map.nnodes; i++)
			rc_lmsg("node %d: %s, %d rank%s%s", i, job.map.hosts[i],
				count[i], count[i] == 1 ? "" : "s",
				i == job.me ? " (this host)" : "");
	ret = 0;
out:
	rc_hosts_free(&hl);
	free(host_of);
	free(nodeidx);
	free(count);
	return ret;
}

/* "0-3,7" of the ranks of node i */
static void job_node_ranks(int node, char *out, size_t len)
{
	size_t off = 0;
	int r, e;

	out[0] = 0;
	for (r = 0; r < job.map.size && off + 24 < len; r = e + 1) {
		e = r;
		if (job.map.node_of[r] != node)
			continue;
		while (e + 1 < job.map.size && job.map.node_of[e + 1] == node)
			e++;
		off += (size_t)(e > r ? snprintf(out + off, len - off,
						 "%s%d-%d", off ? "," : "", r,
						 e)
				      : snprintf(out + off, len - off, "%s%d",
						 off ? "," : "", r));
	}
}

/* --display-map: where every rank runs, before anything starts */
static void job_display_map(void)
{
	static const char *const maps[] = {"slot", "node", "ppr"};
	static const char *const binds[] = {"core if the ranks fit the cores",
					    "core", "none", "socket",
					    "NUMA node"};
	char ranks[1024];
	int i;

	rc_lmsg("job map: %d rank%s on %d host%s (hosts from %s; --map-by "
		"%s; binding: %s)",
		job.map.size, job.map.size == 1 ? "" : "s", job.map.nnodes,
		job.map.nnodes == 1 ? "" : "s",
		job.opts.hosts		     ? "-H"
		: job.opts.hostfile	     ? "--hostfile"
		: job.batch != RC_BATCH_NONE ? rc_batch_name(job.batch)
					     : "this host",
		maps[job.opts.mapby], binds[job.opts.bind]);
	for (i = 0; i < job.map.nnodes; i++) {
		job_node_ranks(i, ranks, sizeof(ranks));
		rc_lmsg("  %s: rank%s %s (%s)", job.map.hosts[i],
			strpbrk(ranks, ",-") ? "s" : "", ranks,
			i == job.me ? "this host, under mpirun"
			: job.srun  ? "daemon started by srun"
				    : "daemon started by the launch agent");
	}
}

/* the program here (if we host ranks), and for the daemons */
static int job_prog(void)
{
	const char *a0 = job.opts.argv[0];

	if (job.me >= 0) {
		job.path = rc_resolve_prog(a0);
		if (!job.path) {
			if (errno == ENOENT && !strchr(a0, '/'))
				rc_lerr("%s: program not found in PATH", a0);
			else if (errno == ENOENT)
				rc_lerr("%s: no such file", a0);
			else
				rc_lerr("%s: not an executable program (%s)",
					a0, strerror(errno));
			return -1;
		}
	}
	if (!job.ndmn)
		return 0;
	/* a relative path is relative to our directory, on every host */
	if (strchr(a0, '/') && a0[0] != '/') {
		job.rprog = malloc(strlen(job.cwd) + strlen(a0) + 2);
		if (job.rprog)
			sprintf(job.rprog, "%s/%s", job.cwd, a0);
	} else {
		job.rprog = strdup(a0);
	}
	if (!job.rprog) {
		rc_lerr("out of memory");
		return -1;
	}
	return 0;
}

/* -x VAR[=value] as VAR=value, the same for every host */
static int job_xset(void)
{
	const char *x, *v;
	int i;

	job.xset = calloc(job.opts.nx + 1, sizeof(char *));
	if (!job.xset)
		goto err_nomem;
	for (i = 0; i < job.opts.nx; i++) {
		x = job.opts.xvars[i];
		if (strchr(x, '=')) {
			job.xset[job.nxset] = strdup(x);
		} else {
			v = getenv(x);
			if (!v) {
				rc_lmsg("warning: -x %s: %s is not set here", x,
					x);
				continue;
			}
			job.xset[job.nxset] = malloc(strlen(x) + strlen(v) + 2);
			if (job.xset[job.nxset])
				sprintf(job.xset[job.nxset], "%s=%s", x, v);
		}
		if (!job.xset[job.nxset++])
			goto err_nomem;
	}
	return 0;
err_nomem:
	rc_lerr("out of memory");
	return -1;
}

/* --wdir relative to our directory, as every host will see it */
static int job_wdir(void)
{
	char *abs;

	if (!getcwd(job.cwd, sizeof(job.cwd)))
		strcpy(job.cwd, "/");
	if (!job.opts.wdir || job.opts.wdir[0] == '/')
		return 0;
	abs = malloc(strlen(job.cwd) + strlen(job.opts.wdir) + 2);
	if (!abs) {
		rc_lerr("out of memory");
		return -1;
	}
	sprintf(abs, "%s/%s", job.cwd, job.opts.wdir);
	free(job.opts.wdir);
	job.opts.wdir = abs;
	return 0;
}

/* kill what started, wait for it, clean up, exit 1 */
static __attribute__((noreturn)) void job_abort_startup(void)
{
	int i, ws;

	job.abnormal = true;
	rc_node_abort_startup(&job.node);
	for (i = 0; i < job.nagents; i++) {
		struct agent *a = &job.agents[i];

		if (!a->alive)
			continue;
		rc_procs_kill(&a->p, SIGKILL);
		waitpid(a->p.pid, &ws, 0);
	}
	rc_node_exit(&job.node, 1, false);
}

static int job_alloc(void)
{
	int i, npfd;

	job.ranks = calloc(job.map.size, sizeof(*job.ranks));
	job.dmn = calloc(job.map.nnodes, sizeof(*job.dmn));
	job.fences = rc_fence_tab_new();
	if (!job.ranks || !job.dmn || !job.fences ||
	    rc_node_init(&job.node, &job.map, job.me, &local_ops, NULL))
		return -1;
	for (i = 0; i < job.map.size; i++)
		job.ranks[i].node = job.map.node_of[i];
	job.nalive = job.map.size;
	for (i = 0; i < job.map.nnodes; i++) {
		struct daemon *d = &job.dmn[i];

		d->state = DMN_GONE;
		d->conn.fd = -1;
	}
	job.agents = calloc(job.map.nnodes, sizeof(*job.agents));
	if (!job.agents)
		return -1;
	npfd = 1 + rc_node_npollfd(&job.node) + 3 + rc_remote_npollfd() +
	       3 * job.map.nnodes; /* per node: connection, agent's 2 */
	job.pfd = calloc(npfd, sizeof(*job.pfd));
	return job.pfd ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP };
	const char *base = strrchr(argv[0], '/');
	struct rc_lproc *p;
	char **env;
	sigset_t set;
	int i, rc;

	base = base ? base + 1 : argv[0];
	if (!strcmp(base, "mpiexec"))
		rc_progname = "mpiexec";
	ensure_std_fds();
	rc = rc_opts_parse(argc, argv, &job.opts);
	if (rc)
		return rc == 2 ? 0 : 1;
	job.exit_code = 1;
	rc_log_set_prog(rc_progname);
	/* misspelled RCMPI_ names: said once, here, not again by the ranks
	 * and daemons that inherit this environment */
	rc_param_check_env();
	setenv("RCMPI_PARAMS_CHECKED", "1", 1);
	job.verbose = rc_param_bool(RC_P_LAUNCHER_VERBOSE);
	if (env_seconds(RC_P_LAUNCH_TIMEOUT, &job.launch_timeout) ||
	    env_seconds(RC_P_HEARTBEAT_TIMEOUT, &job.hb_timeout) ||
	    job_auth() || job_wdir() || job_map() || job_prog() || job_xset())
		return 1;
	job.srun = job.ndmn && job_use_srun();
	if (job.opts.display_map)
		job_display_map();

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
	if (job_alloc()) {
		rc_lerr("out of memory");
		return 1;
	}

	/* under Slurm, srun fans out itself: no tree */
	if (rc_tree_init(&job.tree, job.map.nnodes, job.me,
			 job.srun ? 0 : (int)rc_param_int(RC_P_LAUNCH_RADIX))) {
		rc_lerr("out of memory");
		return 1;
	}
	/* the daemons first: ssh takes longer than anything here */
	if (job.ndmn && job_launch_daemons())
		job_abort_startup();
	if (job.opts.wdir && job.me >= 0 && chdir(job.opts.wdir)) {
		rc_lerr("--wdir %s: %s", job.opts.wdir, strerror(errno));
		job_abort_startup();
	}
	env = rc_env_base(job.xset, job.nxset);
	if (!env) {
		rc_lerr("out of memory");
		job_abort_startup();
	}
	if (rc_node_start(&job.node, job.path, job.opts.argv, env,
			  job.opts.bind))
		job_abort_startup();
	rc_env_free(env);
	for (i = 0; i < job.node.nlocal; i++) {
		char cpus[512];

		p = &job.node.procs[i];
		job.ranks[p->rank].pid = p->pid;
		rc_cpulist_str(p->cpus, p->ncpus, cpus, sizeof(cpus));
		job_report_rank(p->rank, p->pid, job.host, p->bound, cpus);
	}
	if (job.me >= 0 && job.ranks[0].node == job.me) {
		job.in.src = 0;
		job.in.dst = rc_node_stdin_fd(&job.node);
		job.stdin_on = job.in.dst >= 0;
	} else {
		job.rstdin_on = true;
	}
	if (job.opts.timeout)
		job.t_timeout = rc_now() + job.opts.timeout;
	job.t_hb = rc_now() + HB_INTERVAL_S;
	job.exit_code = 0;
	job.state = JOB_RUNNING;

	job_loop();
	if (rc_param_bool(RC_P_LAUNCHER_STATS))
		job_stats();
	if (job.abnormal)
		rc_node_kill_groups(&job.node);
	rc_remote_free(job.remote);
	rc_node_exit(&job.node, job.exit_code, !job.abnormal);
}
