/*
 * rcmpid.c - the per-node daemon of a multi-node job. mpirun starts one on
 * every other host through its launch agent (ssh by default):
 *
 *     rcmpid --head ADDR[,ADDR...]:PORT --node I --hostname NAME
 *            [--auth secret|munge] [--verbose]
 *
 * or, started by one srun on every node, with --node-names H0,H1,...
 * instead of --node and --hostname: the job's nodes in order, of which
 * this daemon is the one named like its Slurm node (SLURMD_NODENAME).
 *
 * with the job's secret as the first line of its stdin (never in argv or
 * the environment), or, with --auth munge, no secret at all (both sides
 * prove themselves with MUNGE credentials: auth.c). It is not meant to be
 * started by hand.
 *
 * Sequence:
 *   read the secret (stdin) → connect to the first head address that
 *   answers (the one ssh came from first) → handshake (remote.c: both
 *   sides prove they know the secret) → JOB → chdir, program, this node's
 *   ranks (node.c, exactly as mpirun runs its own) → STARTED → loop.
 *
 * JOB payload: nspace, size, nnodes, nnodes host names, size node indexes,
 * program, argc + argv, count + "VAR=value" (-x), working directory,
 * whether it was given (--wdir: must exist; else fall back to $HOME),
 * binding mode, heartbeat interval and timeout (ms). STARTED: per local
 * rank its rank, pid, what it is bound to ("core 1", "" for nothing) and
 * the CPUs ("0-3").
 *
 * The loop relays: this node's PMIx events, exits and output to the head
 * (CONNECTED, FINALIZED, ABORT, FENCE, EXITED, OUT), the head's answers
 * back (FENCE_DONE → libpmix; KILL → the ranks; STDIN → rank 0's pipe,
 * acknowledged as written so the head never has more than 64 KiB in
 * flight). Once every local rank ended and its output was sent: DRAINED.
 * END (from the head): tear down (PMIx only after a normal end) and exit.
 *
 * Output a slow head cannot take piles up in the connection's queue: past
 * 8 MiB the ranks' pipes are not read until it drains (the ranks block on
 * a full pipe, as they would on a slow terminal).
 *
 * Launch tree: JOB also says the tree's radix, mpirun's node and launch
 * agent. A daemon with children (tree.c) starts them after its chdir,
 * before its own ranks, through that agent with the job's secret (remote.c,
 * as mpirun does; the secret is wiped once they are started), accepts and
 * authenticates them on its own port, passes them the JOB as it came, and
 * relays: their messages up wrapped with their node (RELAY_UP; LOST, NOTE
 * and RELAY_UP from further down as they are), RELAY_DOWN to the child
 * whose subtree holds the node, BCAST to every child and then to itself.
 * For a fence every node is in it concatenates its node's blob and its
 * children's FENCE_SUB blobs and sends one FENCE_SUB up. It pings its
 * children and reports one lost (closed connection, heartbeat, launch
 * timeout, launch agent ended first) as LOST; their launch agents'
 * output goes up as NOTE. On END it passes END down and exits once its
 * children did (at most END_WAIT_S).
 *
 * The head gone (connection closed, no heartbeat for the timeout the head
 * chose): the ranks are killed and the daemon exits. (The "head" of a
 * daemon in the tree is its parent: when a daemon dies, its subtree goes.) The daemon killed:
 * its ranks die with it (PR_SET_PDEATHSIG). A signal to the daemon is
 * reported to the head (SIGNALED), which ends the job.
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
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher.h"
#include "log.h"
#include "param.h"

#define DRAIN_S 0.5
#define SECRET_MAX_S 30.0
#define AUTH_MAX_S 30.0
#define CONNECT_EACH_S 5.0
#define OUT_BACKLOG (8u << 20)
#define SIGNAL_GRACE_S 2.0
#define LOST_REAP_S 2.0
#define END_WAIT_S 4.0

/* a daemon we started (the launch tree) */
struct kid {
	int node;
	enum { KID_LAUNCHING, KID_RUNNING, KID_GONE } state;
	struct rc_conn conn;
	struct rc_lproc ag; /* its launch agent */
	char label[320];
	struct rc_iof_buf out, err;
	bool started;	 /* sent STARTED: from then on its silence is judged */
	double t_launch; /* to connect; once connected, to start */
	int pi; /* its first pollfd: conn, agent out, err */
};

static struct {
	char *head;		/* ADDR,...:PORT */
	int me;			/* our node index */
	char *hostname;
	bool verbose;
	int auth; /* RC_AUTH_* */
	char secret[RC_SECRET_HEX + 1];
	struct rc_conn conn;
	struct rc_jobmap map;
	char *prog, *path, **argv, **xset, *wdir;
	int argc, nxset;
	bool wdir_given;
	enum rc_bind bind;
	double hb_interval, hb_timeout, t_hb;
	struct rc_node node;
	struct rc_pev *fences;	/* ours, awaiting FENCE_DONE */
	struct rc_stdin in;
	bool stdin_on, stdin_closed_sent;
	int sigfd;
	bool drained_sent, abnormal;
	double t_drain, t_sigkill;
	/* the launch tree (tree.c): the daemons we start and relay for */
	struct rc_tree tree;
	int radix, head_node;
	char *agent; /* how to start them (mpirun's agent) */
	double launch_timeout;
	char *jobmsg; /* the JOB payload, passed on to them */
	size_t joblen;
	struct kid *kids;
	int nkids;
	struct rc_remote *remote;
	struct rc_fence_tab *ftab; /* our subtree's fence blobs */
	bool ending, end_normal;
	double t_end;
} d;

static void usage(void)
{
	fprintf(stderr,
		"usage: rcmpid --head ADDR[,ADDR...]:PORT (--node I "
		"--hostname NAME | --node-names H0,H1,...)\n"
		"              [--auth secret|munge] [--verbose]\n"
		"The per-node daemon of rcmpi's mpirun, started by mpirun "
		"through its launch agent,\nwith the job's secret on stdin "
		"(--auth secret, the default). Not meant to be run by hand.\n");
}

/* ---- talking to the head ---------------------------------------------------- */

static __attribute__((noreturn)) void head_lost(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* the head is gone: nobody to report to; end the ranks and go */
static void head_lost(const char *fmt, ...)
{
	char why[512];
	va_list ap;
	double until = rc_now() + LOST_REAP_S;
	int ws;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rc_lerr_quiet = false;
	if (d.node.nalive)
		rc_lmsg("%s; killing the ranks", why);
	rc_node_kill_groups(&d.node);
	while (d.node.nalive && rc_now() < until) {
		pid = rc_procs_reap(&ws);
		if (pid > 0)
			rc_node_child(&d.node, pid, ws);
		else
			usleep(10000);
	}
	rc_node_exit(&d.node, 1, false);
}

static void send_msg(uint32_t type, struct rc_wbuf *w)
{
	int rc = rc_conn_send(&d.conn, type, w);

	rc_wbuf_free(w);
	if (rc)
		head_lost("cannot send to mpirun: %s", strerror(errno));
}

static void send_u32(uint32_t type, uint32_t v)
{
	struct rc_wbuf w = { 0 };

	rc_wbuf_u32(&w, v);
	send_msg(type, &w);
}

/* best effort, bounded: what is queued goes out before we exit */
static void flush_for(double s)
{
	double until = rc_now() + s;
	struct pollfd pfd = { .fd = d.conn.fd, .events = POLLOUT };

	while (d.conn.fd >= 0 && rc_conn_pending(&d.conn) &&
	       rc_now() < until) {
		if (poll(&pfd, 1, 100) > 0 && rc_conn_flush(&d.conn))
			break;
	}
}

/* ---- the daemons below us (launch tree)
 * -------------------------------------- */

static __attribute__((noreturn)) void start_failed(void);
static __attribute__((noreturn)) void on_end(bool normal);
static void on_msg(uint32_t type, struct rc_rbuf *rb);

/* a payload passed on as it came */
static int conn_send_raw(struct rc_conn *c, uint32_t type, const char *p,
			 size_t len)
{
	struct rc_wbuf w = {.p = (char *)p, .len = len, .cap = len};

	return rc_conn_send(c, type, &w);
}

static void send_raw(uint32_t type, const char *p, size_t len)
{
	if (conn_send_raw(&d.conn, type, p, len))
		head_lost("cannot send to mpirun: %s", strerror(errno));
}

static struct kid *kid_of(int node)
{
	int i;

	for (i = 0; i < d.nkids; i++)
		if (d.kids[i].node == node)
			return &d.kids[i];
	return NULL;
}

/* given up on (or gone at the end): its agent goes too */
static void kid_gone(struct kid *k)
{
	rc_conn_close(&k->conn);
	k->state = KID_GONE;
	if (k->ag.pid > 0 && k->ag.alive) {
		rc_procs_kill(&k->ag, SIGTERM);
		rc_procs_kill(&k->ag, SIGCONT);
	}
}

static void kid_lost(struct kid *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* a daemon below us is lost: mpirun names its host and ends the job */
static void kid_lost(struct kid *k, const char *fmt, ...)
{
	struct rc_wbuf w = {0};
	char why[512];
	va_list ap;

	if (k->state == KID_GONE)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	kid_gone(k);
	if (d.ending)
		return;
	rc_wbuf_u32(&w, (uint32_t)k->node);
	rc_wbuf_str(&w, why);
	send_msg(RC_M_LOST, &w);
}

static void kid_send(struct kid *k, uint32_t type, const char *p, size_t len)
{
	if (k->state != KID_RUNNING)
		return;
	if (conn_send_raw(&k->conn, type, p, len))
		kid_lost(k, "cannot send to its daemon: %s", strerror(errno));
}

/* remote.c: a daemon we started proved itself: the job, or the end */
static bool kid_authed(void *arg, int node, struct rc_conn *c)
{
	struct kid *k = kid_of(node);
	uint32_t zero = 0;

	if (!k || k->state != KID_LAUNCHING)
		return false;
	k->conn = *c;
	k->state = KID_RUNNING;
	k->t_launch = rc_now() + d.launch_timeout;
	if (d.ending || d.abnormal)
		kid_send(k, RC_M_END, (const char *)&zero, sizeof(zero));
	else
		kid_send(k, RC_M_JOB, d.jobmsg, d.joblen);
	return true;
}

/* one blob for our subtree's part of a fence every node is in */
static void fence_sub(const char *sig, uint32_t nnodes, int count, int node,
		      const char *data, size_t len)
{
	int below = rc_tree_below(&d.tree, d.me), rc;
	struct rc_wbuf w = {0};
	char *out = NULL;
	size_t outlen = 0;

	rc = rc_fence_add_count(d.ftab, sig, 1 + below, node, count, data, len,
				&out, &outlen, NULL, NULL);
	if (rc < 0)
		head_lost("fence %s: out of memory or too many contributions",
			  sig);
	if (rc == 0)
		return;
	rc_wbuf_str(&w, sig);
	rc_wbuf_u32(&w, nnodes);
	rc_wbuf_u32(&w, (uint32_t)(1 + below));
	rc_wbuf_bytes(&w, out, outlen);
	free(out);
	send_msg(RC_M_FENCE_SUB, &w);
}

/* a message from a daemon we started: relayed up (or combined) */
static void kid_msg(struct kid *k, uint32_t type, struct rc_rbuf *rb)
{
	const char *p0 = rb->p + rb->off, *data;
	size_t l0 = rb->len - rb->off, len;
	struct rc_wbuf w = {0};
	uint32_t nn, cnt;
	char *sig;

	switch (type) {
	case RC_M_PING:
		return;
	case RC_M_RELAY_UP:
	case RC_M_LOST:
	case RC_M_NOTE:
		/* from further down: names its node already */
		send_raw(type, p0, l0);
		return;
	case RC_M_FENCE_SUB:
		sig = rc_rbuf_strdup(rb);
		nn = rc_rbuf_u32(rb);
		cnt = rc_rbuf_u32(rb);
		data = rc_rbuf_bytes(rb, &len);
		if (rb->bad ||
		    cnt != 1 + (uint32_t)rc_tree_below(&d.tree, k->node))
			kid_lost(k, "its daemon sent a malformed message");
		else
			fence_sub(sig, nn, (int)cnt, k->node, data, len);
		free(sig);
		return;
	default:
		k->started = k->started || type == RC_M_STARTED;
		rc_wbuf_u32(&w, (uint32_t)k->node);
		rc_wbuf_u32(&w, type);
		rc_wbuf_bytes(&w, p0, l0);
		send_msg(RC_M_RELAY_UP, &w);
	}
}

static void kid_io(struct kid *k, short revents)
{
	struct rc_rbuf rb;
	uint32_t type;
	int rc, nx = 0;

	if (revents & POLLOUT && rc_conn_flush(&k->conn)) {
		kid_lost(k, "the connection to its daemon broke (%s)",
			 strerror(errno));
		return;
	}
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	rc = rc_conn_fill(&k->conn);
	while (k->state == KID_RUNNING &&
	       (nx = rc_conn_next(&k->conn, &type, &rb)) == 1)
		kid_msg(k, type, &rb);
	if (nx < 0)
		kid_lost(k, "its daemon sent a malformed message");
	if (rc > 0 || k->state != KID_RUNNING)
		return;
	if (d.ending) {
		kid_gone(k);
		return;
	}
	kid_lost(k, "its daemon closed the connection%s%s", rc < 0 ? ": " : "",
		 rc < 0 ? strerror(errno) : "");
}

/* what a child's launch agent says (ssh, the daemon before it
 * connected): up to mpirun, which prints it with the host's name */
static void kid_note(void *arg, int rank, int stream, const char *buf,
		     size_t len)
{
	struct kid *k = arg;
	const char *p, *nl, *end = buf + len;
	struct rc_wbuf w;

	for (p = buf; p < end && k->state != KID_GONE; p = nl) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl + 1 : end;
		memset(&w, 0, sizeof(w));
		rc_wbuf_u32(&w, (uint32_t)k->node);
		rc_wbuf_bytes(&w, p, (size_t)(nl - p - (nl[-1] == '\n')));
		/* a string on the wire is length + bytes */
		send_msg(RC_M_NOTE, &w);
	}
}

static int kid_pump(struct kid *k, int stream)
{
	return rc_iof_pump_close(stream == RC_IOF_OUT ? &k->out : &k->err,
				 stream == RC_IOF_OUT ? &k->ag.fd_out :
							&k->ag.fd_err,
				 stream, kid_note, k);
}

/* a child's launch agent ended: before its daemon connected, it is lost */
static void kid_agent_exited(struct kid *k, int ws)
{
	char how[64];
	int i;

	k->ag.alive = false;
	for (i = 0; i < 64 && kid_pump(k, RC_IOF_OUT) == 1; i++)
		;
	for (i = 0; i < 64 && kid_pump(k, RC_IOF_ERR) == 1; i++)
		;
	rc_wait_str(ws, how, sizeof(how));
	if (k->state == KID_LAUNCHING)
		kid_lost(k,
			 "could not start its daemon: the launch agent (%s) %s",
			 d.agent, how);
}

/* our children in the tree, started once we have the job */
static void kids_launch(void)
{
	int *nodes, n, i;

	if (!d.radix)
		return;
	nodes = calloc((size_t)d.radix, sizeof(int));
	if (!nodes) {
		rc_lerr("out of memory");
		start_failed();
	}
	n = rc_tree_kids(&d.tree, d.me, nodes, d.radix);
	d.kids = calloc(n ? (size_t)n : 1, sizeof(*d.kids));
	if (!d.kids) {
		free(nodes);
		rc_lerr("out of memory");
		start_failed();
	}
	d.nkids = n;
	for (i = 0; i < n; i++) {
		d.kids[i].node = nodes[i];
		d.kids[i].state = KID_GONE;
		d.kids[i].conn.fd = -1;
	}
	free(nodes);
	if (!n)
		return;
	d.remote = rc_remote_new(d.agent, d.auth, d.secret, d.map.nnodes,
				 kid_authed, NULL, d.verbose);
	if (!d.remote)
		start_failed();
	for (i = 0; i < n; i++) {
		struct kid *k = &d.kids[i];
		const char *host = d.map.hosts[k->node];

		k->ag.rank = -1;
		k->ag.fd_in = k->ag.fd_out = k->ag.fd_err = -1;
		k->ag.label = k->label;
		k->ag.deathsig = SIGTERM;
		snprintf(k->label, sizeof(k->label),
			 "the launch agent for host %s", host);
		if (rc_remote_launch(d.remote, k->node, host, &k->ag))
			start_failed();
		k->ag.alive = true;
		k->state = KID_LAUNCHING;
		k->t_launch = rc_now() + d.launch_timeout;
	}
}

/* END from above: pass it down, go once the daemons below went */
static void begin_end(bool normal)
{
	uint32_t v = normal;
	struct rc_wbuf w = {0};
	bool wait = false;
	int i;

	if (d.ending)
		return;
	d.ending = true;
	d.end_normal = normal;
	d.t_end = rc_now() + END_WAIT_S;
	rc_wbuf_u32(&w, v);
	for (i = 0; i < d.nkids; i++) {
		struct kid *k = &d.kids[i];

		if (k->state == KID_RUNNING) {
			kid_send(k, RC_M_END, w.p, w.len);
			wait = wait || k->state == KID_RUNNING;
		} else if (k->state == KID_LAUNCHING) {
			kid_gone(k);
		}
	}
	rc_wbuf_free(&w);
	if (!wait)
		on_end(normal);
}

/* for a daemon below us, or for us */
static void on_relay_down(struct rc_rbuf *rb)
{
	const char *p0 = rb->p + rb->off;
	size_t l0 = rb->len - rb->off;
	uint32_t node = rc_rbuf_u32(rb), type = rc_rbuf_u32(rb);
	struct rc_rbuf in = {0};
	struct kid *k;

	in.p = rc_rbuf_bytes(rb, &in.len);
	if (rb->bad || type == RC_M_RELAY_DOWN || type == RC_M_BCAST) {
		rb->bad = true;
		return;
	}
	if (node == (uint32_t)d.me) {
		on_msg(type, &in);
		return;
	}
	k = kid_of(rc_tree_next_hop(&d.tree, d.me, (int)node));
	if (!k) {
		rb->bad = true;
		return;
	}
	kid_send(k, RC_M_RELAY_DOWN, p0, l0);
}

/* for every daemon: ours first, then us (END: begin_end passes it on) */
static void on_bcast(struct rc_rbuf *rb)
{
	const char *p0 = rb->p + rb->off;
	size_t l0 = rb->len - rb->off;
	uint32_t type = rc_rbuf_u32(rb);
	struct rc_rbuf in = {0};
	int i;

	in.p = rc_rbuf_bytes(rb, &in.len);
	if (rb->bad || type == RC_M_RELAY_DOWN || type == RC_M_BCAST) {
		rb->bad = true;
		return;
	}
	if (type != RC_M_END)
		for (i = 0; i < d.nkids; i++)
			kid_send(&d.kids[i], RC_M_BCAST, p0, l0);
	on_msg(type, &in);
}

/* ---- this node's ranks (node.c callbacks) -------------------------------------- */

static void on_output(void *arg, int rank, int stream, const char *buf,
		      size_t len)
{
	struct rc_wbuf w = { 0 };

	rc_wbuf_u32(&w, (uint32_t)rank);
	rc_wbuf_u32(&w, (uint32_t)stream);
	rc_wbuf_bytes(&w, buf, len);
	send_msg(RC_M_OUT, &w);
}

static void on_state(void *arg, struct rc_lproc *p, enum rc_pev_type what)
{
	send_u32(what == RC_PEV_CONNECTED ? RC_M_CONNECTED : RC_M_FINALIZED,
		 (uint32_t)p->rank);
}

static void on_fence(void *arg, struct rc_pev *ev)
{
	struct rc_wbuf w = { 0 };

	ev->next = d.fences;
	d.fences = ev;
	if (d.radix && ev->nnodes == d.map.nnodes) {
		/* every node is in: through the tree */
		fence_sub(ev->sig, (uint32_t)ev->nnodes, 1, d.me, ev->data,
			  ev->ndata);
		return;
	}
	rc_wbuf_str(&w, ev->sig);
	rc_wbuf_u32(&w, (uint32_t)ev->nnodes);
	rc_wbuf_bytes(&w, ev->data, ev->ndata);
	send_msg(RC_M_FENCE, &w);
}

static void on_abort(void *arg, struct rc_pev *ev)
{
	struct rc_wbuf w = { 0 };

	rc_wbuf_u32(&w, (uint32_t)ev->rank);
	rc_wbuf_u32(&w, (uint32_t)ev->status);
	rc_wbuf_str(&w, ev->msg);
	send_msg(RC_M_ABORT, &w);
	/* queued before the aborting rank can exit: the head sees it first */
	rc_psrv_ack(ev, true);
	rc_pev_free(ev);
}

static void stdin_stop(void)
{
	if (d.stdin_on)
		rc_stdin_close(&d.in);
	d.stdin_on = false;
	if (!d.stdin_closed_sent && rc_node_proc(&d.node, 0)) {
		d.stdin_closed_sent = true;
		send_msg(RC_M_STDIN_CLOSED, NULL);
	}
}

static void on_exited(void *arg, struct rc_lproc *p)
{
	struct rc_wbuf w = { 0 };

	if (p->rank == 0)
		stdin_stop();
	rc_wbuf_u32(&w, (uint32_t)p->rank);
	rc_wbuf_u32(&w, (uint32_t)p->wstatus);
	send_msg(RC_M_EXITED, &w);
}

static const struct rc_node_ops node_ops = {
	.output = on_output,
	.state = on_state,
	.fence = on_fence,
	.abort = on_abort,
	.exited = on_exited,
};

/* ---- the head's messages ------------------------------------------------------- */

/* rank 0's pipe took what it could: tell the head how much */
static void stdin_push(void)
{
	size_t before = d.in.len;

	if (!d.stdin_on)
		return;
	rc_stdin_on_dst(&d.in);
	if (before > d.in.len)
		send_u32(RC_M_STDIN_ACK, (uint32_t)(before - d.in.len));
	if (d.in.closed)
		stdin_stop();
}

static __attribute__((noreturn)) void on_end(bool normal)
{
	if (!normal || d.abnormal)
		rc_node_kill_groups(&d.node);
	flush_for(2.0);
	/* the head waits for this: close before the PMIx teardown */
	rc_conn_close(&d.conn);
	rc_node_exit(&d.node, 0, normal && !d.abnormal);
}

static void on_fence_done(struct rc_rbuf *rb)
{
	struct rc_pev *ev, **pp;
	char *sig = rc_rbuf_strdup(rb), *copy = NULL;
	uint32_t ok = rc_rbuf_u32(rb);
	const char *data;
	size_t len;

	data = rc_rbuf_bytes(rb, &len);
	if (rb->bad)
		goto out;
	for (pp = &d.fences; *pp; pp = &(*pp)->next) {
		ev = *pp;
		if (strcmp(ev->sig, sig))
			continue;
		*pp = ev->next;
		ev->next = NULL;
		if (len) {
			copy = malloc(len);
			if (!copy) {
				ok = 0;
				len = 0;
			} else {
				memcpy(copy, data, len);
			}
		}
		rc_psrv_fence_done(ev, ok, copy, len);
		break;
	}
out:
	free(sig);
}

static void on_msg(uint32_t type, struct rc_rbuf *rb)
{
	const char *data;
	size_t len;
	uint32_t v;

	switch (type) {
	case RC_M_PING:
		break;
	case RC_M_KILL:
		v = rc_rbuf_u32(rb);
		if (!rb->bad && v > 0 && v < 65) {
			d.abnormal = true;
			rc_node_kill(&d.node, (int)v);
		}
		break;
	case RC_M_FENCE_DONE:
		on_fence_done(rb);
		break;
	case RC_M_STDIN:
		data = rc_rbuf_bytes(rb, &len);
		if (rb->bad)
			break;
		if (!d.stdin_on || len > sizeof(d.in.buf) - d.in.len) {
			/* nobody reads it (any more): consumed */
			send_u32(RC_M_STDIN_ACK, (uint32_t)len);
			break;
		}
		memcpy(d.in.buf + d.in.len, data, len);
		d.in.len += len;
		stdin_push();
		break;
	case RC_M_STDIN_EOF:
		d.in.eof = true;
		if (d.stdin_on && !d.in.len)
			stdin_stop();
		break;
	case RC_M_END:
		v = rc_rbuf_u32(rb);
		begin_end(!rb->bad && v);
		break;
	case RC_M_RELAY_DOWN:
		on_relay_down(rb);
		break;
	case RC_M_BCAST:
		on_bcast(rb);
		break;
	default:
		rb->bad = true;
	}
	if (rb->bad)
		head_lost("mpirun sent a malformed message (type %u)", type);
}

static void conn_io(short revents)
{
	struct rc_rbuf rb;
	uint32_t type;
	int rc, nx;

	if (revents & POLLOUT && rc_conn_flush(&d.conn))
		head_lost("the connection to mpirun broke: %s",
			  strerror(errno));
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	rc = rc_conn_fill(&d.conn);
	while ((nx = rc_conn_next(&d.conn, &type, &rb)) == 1)
		on_msg(type, &rb);
	if (nx < 0)
		head_lost("mpirun sent a malformed message");
	if (rc == 0)
		head_lost("mpirun closed the connection");
	if (rc < 0)
		head_lost("the connection to mpirun broke: %s",
			  strerror(errno));
}

/* ---- signals ------------------------------------------------------------------- */

static void on_sigfd(void)
{
	struct signalfd_siginfo si;
	bool chld = false;
	pid_t pid;
	int ws, i;

	while (read(d.sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			chld = true;
			continue;
		}
		/* the head decides; we make sure the ranks go */
		if (!d.abnormal) {
			send_u32(RC_M_SIGNALED, si.ssi_signo);
			rc_node_kill(&d.node, (int)si.ssi_signo);
			d.t_sigkill = rc_now() + SIGNAL_GRACE_S;
		} else {
			rc_node_kill(&d.node, SIGKILL);
		}
		d.abnormal = true;
	}
	if (!chld)
		return;
	while ((pid = rc_procs_reap(&ws)) > 0) {
		if (rc_node_child(&d.node, pid, ws))
			continue;
		for (i = 0; i < d.nkids; i++)
			if (d.kids[i].ag.pid == pid && d.kids[i].ag.alive)
				kid_agent_exited(&d.kids[i], ws);
	}
	rc_node_judge(&d.node);
}

/* ---- the loop ------------------------------------------------------------------- */

static int poll_ms(double t)
{
	double dl = d.t_hb, x;
	int i;

	x = d.conn.last_rx + d.hb_timeout;
	if (x < dl)
		dl = x;
	if (d.t_drain && d.t_drain < dl)
		dl = d.t_drain;
	if (d.t_sigkill && d.t_sigkill < dl)
		dl = d.t_sigkill;
	if (d.ending && d.t_end < dl)
		dl = d.t_end;
	for (i = 0; i < d.nkids; i++) {
		struct kid *k = &d.kids[i];

		x = k->state == KID_LAUNCHING ? k->t_launch
		    : k->state != KID_RUNNING ? 0
		    : k->started	      ? k->conn.last_rx + d.hb_timeout
					      : k->t_launch;
		if (x && x < dl)
			dl = x;
	}
	if (d.remote) {
		x = rc_remote_timers(d.remote, t);
		if (x && x < dl)
			dl = x;
	}
	x = (dl - t) * 1000.0 + 1;
	return x < 0 ? 0 : (int)x;
}

static void kids_timers(double t)
{
	int i, alive = 0;

	for (i = 0; i < d.nkids; i++) {
		struct kid *k = &d.kids[i];

		if (k->state == KID_LAUNCHING && t >= k->t_launch)
			kid_lost(k,
				 "its daemon did not connect back within "
				 "%g s",
				 d.launch_timeout);
		if (k->state == KID_RUNNING && !k->started && t >= k->t_launch)
			kid_lost(k,
				 "its daemon did not start within %g s "
				 "of connecting",
				 d.launch_timeout);
		if (k->state == KID_RUNNING && k->started &&
		    t - k->conn.last_rx >= d.hb_timeout)
			kid_lost(k,
				 "no heartbeat from its daemon for %g s "
				 "(stopped, or the host is down)",
				 d.hb_timeout);
		alive += k->state == KID_RUNNING;
	}
	if (d.remote)
		rc_remote_timers(d.remote, t);
	if (d.ending && (!alive || t >= d.t_end))
		on_end(d.end_normal);
}

/* the children's connections and agents' outputs, from pfd[base] */
static int kids_pollfds(struct pollfd *pfd, int base)
{
	int i, n = 0;

	for (i = 0; i < d.nkids; i++) {
		struct kid *k = &d.kids[i];

		k->pi = base + n;
		pfd[n].fd = k->state == KID_RUNNING ? k->conn.fd : -1;
		pfd[n++].events =
			POLLIN | (rc_conn_pending(&k->conn) ? POLLOUT : 0);
		pfd[n].fd = k->ag.fd_out;
		pfd[n++].events = POLLIN;
		pfd[n].fd = k->ag.fd_err;
		pfd[n++].events = POLLIN;
	}
	return n;
}

static void kids_handle(const struct pollfd *pfd)
{
	int i;

	for (i = 0; i < d.nkids; i++) {
		struct kid *k = &d.kids[i];

		if (pfd[k->pi].revents && pfd[k->pi].fd == k->conn.fd &&
		    k->state == KID_RUNNING)
			kid_io(k, pfd[k->pi].revents);
		if (pfd[k->pi + 1].revents && k->ag.fd_out >= 0)
			kid_pump(k, RC_IOF_OUT);
		if (pfd[k->pi + 2].revents && k->ag.fd_err >= 0)
			kid_pump(k, RC_IOF_ERR);
	}
}

static void loop(void)
{
	struct pollfd *pfd;
	int n, nn, pi_in, pi_remote, i;
	double t;

	pfd = calloc(3 + rc_remote_npollfd() + 3 * (size_t)d.nkids +
			     rc_node_npollfd(&d.node),
		     sizeof(*pfd));
	if (!pfd)
		head_lost("out of memory");
	for (;;) {
		t = rc_now();
		if (t >= d.t_hb) {
			send_msg(RC_M_PING, NULL);
			for (i = 0; i < d.nkids; i++)
				kid_send(&d.kids[i], RC_M_PING, NULL, 0);
			d.t_hb = t + d.hb_interval;
		}
		kids_timers(t);
		if (t - d.conn.last_rx >= d.hb_timeout)
			head_lost("no heartbeat from mpirun for %g s",
				  d.hb_timeout);
		if (d.t_sigkill && t >= d.t_sigkill) {
			rc_node_kill(&d.node, SIGKILL);
			d.t_sigkill = 0;
		}
		if (!d.node.nalive && !d.drained_sent) {
			if (!rc_node_outputs_open(&d.node) ||
			    (d.t_drain && t >= d.t_drain)) {
				rc_node_close_outputs(&d.node);
				d.drained_sent = true;
				d.t_drain = 0;
				send_msg(RC_M_DRAINED, NULL);
			} else if (!d.t_drain) {
				d.t_drain = t + DRAIN_S;
			}
		}
		n = 0;
		pfd[n].fd = d.sigfd;
		pfd[n++].events = POLLIN;
		pfd[n].fd = d.conn.fd;
		pfd[n++].events = POLLIN |
			(rc_conn_pending(&d.conn) ? POLLOUT : 0);
		pi_in = n;
		pfd[n].fd = d.stdin_on && rc_stdin_want_dst(&d.in) ?
			    d.in.dst : -1;
		pfd[n++].events = POLLOUT;
		pi_remote = n;
		if (d.remote)
			n += rc_remote_pollfds(d.remote, pfd + n);
		n += kids_pollfds(pfd + n, n);
		nn = rc_node_pollfds(&d.node, pfd + n,
				     rc_conn_pending(&d.conn) < OUT_BACKLOG);
		if (poll(pfd, n + nn, poll_ms(t)) < 0 && errno != EINTR)
			head_lost("poll: %s", strerror(errno));
		if (pfd[0].revents)
			on_sigfd();
		if (pfd[1].revents)
			conn_io(pfd[1].revents);
		if (pfd[pi_in].revents)
			stdin_push();
		kids_handle(pfd);
		if (d.remote)
			rc_remote_handle(d.remote, pfd + pi_remote);
		rc_node_handle(&d.node, pfd + n, nn);
	}
}

/* ---- start-up ------------------------------------------------------------------- */

/* the first line of stdin, byte by byte (nothing past it is consumed) */
static int read_secret(void)
{
	double until = rc_now() + SECRET_MAX_S;
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	size_t n = 0;
	ssize_t r;
	char c;

	for (;;) {
		if (poll(&pfd, 1, (int)((until - rc_now()) * 1000) + 1) <= 0) {
			rc_lerr("no job secret on stdin within %g s",
				SECRET_MAX_S);
			return -1;
		}
		r = read(0, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc_lerr("no job secret on stdin (%s)",
				r ? strerror(errno) : "end of file");
			return -1;
		}
		if (c == '\n')
			break;
		if (n >= RC_SECRET_HEX || !strchr("0123456789abcdef", c)) {
			rc_lerr("malformed job secret on stdin");
			return -1;
		}
		d.secret[n++] = c;
	}
	if (n != RC_SECRET_HEX) {
		rc_lerr("malformed job secret on stdin");
		return -1;
	}
	d.secret[n] = 0;
	return 0;
}

/*
 * Started by srun for every node at once: which one are we? Node i of the
 * job is the i-th entry of the comma-separated list; we are the entry
 * equal to our Slurm node name (SLURMD_NODENAME), else the first that
 * names this host.
 */
static int node_from_names(const char *list)
{
	const char *slurm = getenv("SLURMD_NODENAME"), *p = list, *e;
	char me[256], name[256];
	int i;

	if (gethostname(me, sizeof(me) - 1))
		strcpy(me, "localhost");
	me[sizeof(me) - 1] = 0;
	for (i = 0;; i++) {
		e = strchr(p, ',');
		snprintf(name, sizeof(name), "%.*s",
			 (int)(e ? (size_t)(e - p) : strlen(p)), p);
		if (name[0] && (slurm && *slurm ? !strcmp(name, slurm)
						: rc_host_is_local(name, me))) {
			d.me = i;
			d.hostname = strdup(name);
			return d.hostname ? 0 : -1;
		}
		if (!e)
			break;
		p = e + 1;
	}
	rc_lerr("this host (%s) is not among the job's nodes (%s)",
		slurm && *slurm ? slurm : me, list);
	return -1;
}

static int parse_args(int argc, char **argv)
{
	char *end;
	int i;

	d.me = -1;
	d.auth = RC_AUTH_SECRET;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--verbose")) {
			d.verbose = true;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage();
			exit(0);
		} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			printf("rcmpid (rcmpi) %s\n", PACKAGE_VERSION);
			exit(0);
		} else if (i + 1 < argc && !strcmp(a, "--head")) {
			d.head = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--node")) {
			d.me = (int)strtol(argv[++i], &end, 10);
			if (*end || d.me < 0)
				d.me = -1;
		} else if (i + 1 < argc && !strcmp(a, "--hostname")) {
			d.hostname = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--node-names")) {
			if (node_from_names(argv[++i]))
				return -1;
		} else if (i + 1 < argc && !strcmp(a, "--auth")) {
			char why[256];

			d.auth = rc_auth_parse(argv[++i]);
			if (d.auth < 0) {
				rc_lerr("--auth %s: expected secret or munge",
					argv[i]);
				return -1;
			}
			if (!rc_auth_available(d.auth, why, sizeof(why))) {
				rc_lerr("--auth %s: %s", argv[i], why);
				return -1;
			}
		} else {
			rc_lerr("unexpected argument '%s'", a);
			usage();
			return -1;
		}
	}
	if (!d.head || !strrchr(d.head, ':') || d.me < 0 || !d.hostname ||
	    !*d.hostname) {
		usage();
		return -1;
	}
	return 0;
}

/* ssh's client address ("SSH_CONNECTION=client port server port") */
static char *ssh_client(void)
{
	const char *sc = getenv("SSH_CONNECTION");
	size_t n;

	if (!sc || !*sc)
		return NULL;
	n = strcspn(sc, " ");
	return strndup(sc, n);
}

static int connect_head(void)
{
	char addrs[1024], why[2048], *colon, *end, *prefer;
	long port;
	int fd;

	snprintf(addrs, sizeof(addrs), "%s", d.head);
	colon = strrchr(addrs, ':');
	*colon = 0;
	port = strtol(colon + 1, &end, 10);
	if (*end || port <= 0 || port > 65535) {
		rc_lerr("--head %s: bad port", d.head);
		return -1;
	}
	prefer = ssh_client();
	fd = rc_net_connect(addrs, (int)port, prefer, CONNECT_EACH_S, why,
			    sizeof(why));
	free(prefer);
	if (fd < 0) {
		rc_lerr("%s: cannot connect to mpirun: %s", d.hostname, why);
		return -1;
	}
	rc_conn_init(&d.conn, fd);
	if (rc_remote_auth_daemon(&d.conn, d.auth, d.secret, (uint32_t)d.me,
				  rc_now() + AUTH_MAX_S, why, sizeof(why))) {
		rc_lerr("%s: authentication with mpirun failed: %s",
			d.hostname, why);
		return -1;
	}
	/* kept until our children in the tree are started (start) */
	return 0;
}

static char **read_strs(struct rc_rbuf *rb, int n)
{
	char **v = calloc(n + 1, sizeof(char *));
	int i;

	if (!v) {
		rb->bad = true;
		return NULL;
	}
	for (i = 0; i < n && !rb->bad; i++)
		v[i] = rc_rbuf_strdup(rb);
	return v;
}

static int parse_job(struct rc_rbuf *rb)
{
	struct rc_jobmap *m = &d.map;
	uint32_t size, nnodes, v, *count = NULL;
	char *ns = rc_rbuf_strdup(rb);
	int i;

	size = rc_rbuf_u32(rb);
	nnodes = rc_rbuf_u32(rb);
	if (rb->bad || !ns || strlen(ns) >= RC_NSLEN || !size ||
	    size > 1u << 20 || !nnodes || nnodes > size ||
	    (uint32_t)d.me >= nnodes)
		goto bad;
	snprintf(m->nspace, sizeof(m->nspace), "%s", ns);
	m->size = (int)size;
	m->nnodes = (int)nnodes;
	m->hosts = read_strs(rb, m->nnodes);
	m->node_of = calloc(size, sizeof(int));
	m->local_rank = calloc(size, sizeof(int));
	count = calloc(nnodes, sizeof(*count));
	if (rb->bad || !m->node_of || !m->local_rank || !count)
		goto bad;
	for (i = 0; i < m->size; i++) {
		v = rc_rbuf_u32(rb);
		if (v >= nnodes)
			goto bad;
		m->node_of[i] = (int)v;
		m->local_rank[i] = (int)count[v]++;
	}
	d.prog = rc_rbuf_strdup(rb);
	d.argc = (int)rc_rbuf_u32(rb);
	if (rb->bad || d.argc < 1 || d.argc > 1 << 16)
		goto bad;
	d.argv = read_strs(rb, d.argc);
	d.nxset = (int)rc_rbuf_u32(rb);
	if (rb->bad || d.nxset < 0 || d.nxset > 1 << 16)
		goto bad;
	d.xset = read_strs(rb, d.nxset);
	d.wdir = rc_rbuf_strdup(rb);
	d.wdir_given = rc_rbuf_u32(rb);
	v = rc_rbuf_u32(rb);
	d.bind = v <= RC_BIND_MAX ? (enum rc_bind)v : RC_BIND_DEFAULT;
	d.hb_interval = rc_rbuf_u32(rb) / 1000.0;
	d.hb_timeout = rc_rbuf_u32(rb) / 1000.0;
	if (rb->bad || d.hb_interval <= 0 || d.hb_timeout <= 0)
		goto bad;
	d.radix = (int)rc_rbuf_u32(rb);
	d.head_node = (int)rc_rbuf_u32(rb);
	d.agent = rc_rbuf_strdup(rb);
	d.launch_timeout = rc_rbuf_u32(rb) / 1000.0;
	if (rb->bad || d.radix < 0 || d.radix > 1 << 16 ||
	    d.head_node >= (int)nnodes || d.head_node == d.me ||
	    rc_tree_init(&d.tree, m->nnodes, d.head_node, d.radix))
		goto bad;
	if (d.radix) {
		d.ftab = rc_fence_tab_new();
		if (!d.ftab)
			goto bad;
	}
	free(ns);
	free(count);
	return 0;
bad:
	free(ns);
	free(count);
	rc_lerr("%s: malformed job description from mpirun", d.hostname);
	return -1;
}

static int wait_job(void)
{
	struct rc_rbuf rb;
	uint32_t type;

	if (rc_conn_wait_msg(&d.conn, rc_now() + AUTH_MAX_S, &type, &rb) !=
	    1) {
		rc_lerr("%s: no job from mpirun: %s", d.hostname,
			errno == ECONNRESET ? "connection closed" :
			strerror(errno));
		return -1;
	}
	if (type != RC_M_JOB) {
		if (type == RC_M_END)	/* the job ended before we came */
			exit(0);
		rc_lerr("%s: mpirun sent message %u, not a job", d.hostname,
			type);
		return -1;
	}
	/* the daemons we start get the same */
	d.joblen = rb.len - rb.off;
	d.jobmsg = malloc(d.joblen ? d.joblen : 1);
	if (!d.jobmsg) {
		rc_lerr("out of memory");
		return -1;
	}
	memcpy(d.jobmsg, rb.p + rb.off, d.joblen);
	return parse_job(&rb);
}

/* start-up failed after we connected: tell the head, clean up, exit */
static __attribute__((noreturn)) void start_failed(void)
{
	struct rc_wbuf w = { 0 };

	rc_node_abort_startup(&d.node);
	rc_wbuf_str(&w, rc_last_err[0] ? rc_last_err : "start-up failed");
	if (!rc_conn_send(&d.conn, RC_M_FAILED, &w))
		flush_for(2.0);
	rc_wbuf_free(&w);
	rc_conn_close(&d.conn);
	rc_node_exit(&d.node, 1, false);
}

static void start(void)
{
	const char *home = getenv("HOME");
	struct rc_wbuf w = { 0 };
	char **env;
	int i;

	if (rc_node_init(&d.node, &d.map, d.me, &node_ops, NULL)) {
		rc_lerr("out of memory");
		start_failed();
	}
	if (chdir(d.wdir)) {
		if (d.wdir_given) {
			rc_lerr("--wdir %s: %s", d.wdir, strerror(errno));
			start_failed();
		}
		/* mpirun's directory is not here: like ssh, go home */
		if (!home || chdir(home))
			(void)!chdir("/");
	}
	/* the daemons below us first: their launch takes longest */
	kids_launch();
	memset(d.secret, 0, sizeof(d.secret));
	d.path = rc_resolve_prog(d.prog);
	if (!d.path) {
		if (errno == ENOENT && !strchr(d.prog, '/'))
			rc_lerr("%s: program not found in PATH", d.prog);
		else if (errno == ENOENT)
			rc_lerr("%s: no such file", d.prog);
		else
			rc_lerr("%s: not an executable program (%s)", d.prog,
				strerror(errno));
		start_failed();
	}
	env = rc_env_base(d.xset, d.nxset);
	if (!env) {
		rc_lerr("out of memory");
		start_failed();
	}
	if (rc_node_start(&d.node, d.path, d.argv, env, d.bind))
		start_failed();
	rc_env_free(env);
	rc_wbuf_u32(&w, (uint32_t)d.node.nlocal);
	for (i = 0; i < d.node.nlocal; i++) {
		struct rc_lproc *p = &d.node.procs[i];
		char cpus[512];

		rc_cpulist_str(p->cpus, p->ncpus, cpus, sizeof(cpus));
		rc_wbuf_u32(&w, (uint32_t)p->rank);
		rc_wbuf_u32(&w, (uint32_t)p->pid);
		rc_wbuf_str(&w, p->bound);
		rc_wbuf_str(&w, cpus);
	}
	send_msg(RC_M_STARTED, &w);
	d.in.src = -1;
	d.in.dst = rc_node_stdin_fd(&d.node);
	d.stdin_on = d.in.dst >= 0;
}

int main(int argc, char **argv)
{
	static const int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP };
	sigset_t set;
	int i, fd;

	rc_progname = "rcmpid";
	rc_log_set_prog(rc_progname);
	/* this host's environment (ssh's): checked once, here */
	if (!rc_param_bool(RC_P_PARAMS_CHECKED)) {
		rc_param_check_env();
		setenv("RCMPI_PARAMS_CHECKED", "1", 1);
	}
	if (parse_args(argc, argv))
		return 2;
	if (d.auth == RC_AUTH_SECRET && read_secret())
		return 1;
	/* stdin was only for the secret */
	fd = open("/dev/null", O_RDONLY);
	if (fd > 0) {
		dup2(fd, 0);
		close(fd);
	}
	if (rc_procs_signals_setup(sigs, 4)) {
		rc_lerr("signal setup: %s", strerror(errno));
		return 1;
	}
	sigemptyset(&set);
	for (i = 0; i < 4; i++)
		sigaddset(&set, sigs[i]);
	d.sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d.sigfd < 0) {
		rc_lerr("signalfd: %s", strerror(errno));
		return 1;
	}
	if (connect_head() || wait_job())
		return 1;
	/* from now on errors go to mpirun as messages */
	rc_lerr_quiet = true;
	if (strcmp(d.map.hosts[d.me], d.hostname) && d.verbose)
		rc_lmsg("note: --hostname %s, job map says %s", d.hostname,
			d.map.hosts[d.me]);
	d.hostname = d.map.hosts[d.me];
	start();
	/* silence counts from now: what mpirun sent while we were starting
	 * the ranks is waiting in the socket */
	d.conn.last_rx = rc_now();
	d.t_hb = rc_now() + d.hb_interval;
	/* nor did the daemons below us have a chance to connect: their
	 * launch time counts from now too */
	for (i = 0; i < d.nkids; i++)
		if (d.kids[i].state == KID_LAUNCHING)
			d.kids[i].t_launch = rc_now() + d.launch_timeout;
	loop();
	return 0;
}
