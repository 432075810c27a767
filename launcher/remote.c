/*
 * remote.c - mpirun's side of its daemons, up to the moment a daemon is
 * known to be genuine: the listening socket, the launch agent, and the
 * handshake with every connection that comes in.
 *
 * Launch: for a host H, mpirun runs
 *
 *     AGENT... H "exec '/path/rcmpid' --head A1,A2,...:PORT --node I
 *                 --hostname 'H' [--auth munge]"
 *
 * or, inside a Slurm allocation, for every host at once (rc_remote_launch_
 * srun; srun --input=all broadcasts the secret to every daemon's stdin):
 *
 *     srun --nodes=K --ntasks=K --ntasks-per-node=1 --nodelist H1,...
 *          --overlap --cpu-bind=none --mpi=none [--cpus-per-task=C]
 *          --job-name=rcmpid --quiet --input=all
 *          /path/rcmpid --head A1,...:PORT --node-names H0,H1,... [...]
 *
 * (AGENT from --launch-agent, $RCMPI_LAUNCH_AGENT, or "ssh ..."; split on
 * blanks; the remote command is one shell-quoted string, as ssh wants it)
 * and writes the job's secret, one line, to the agent's stdin, which ssh
 * forwards to rcmpid's stdin. The agent's stdout and stderr come back to
 * mpirun (ssh's complaints, rcmpid's messages before it connected).
 * Nothing in any argv or environment holds the secret, so ps and
 * /proc/PID/cmdline show nobody anything that would let them in.
 *
 * Connections: anyone may connect to the port, so nothing is believed
 * before the handshake (net.c) proves the peer knows the secret. Each
 * pending connection has RC_PEND_MAX_S to complete it; at most
 * RC_PEND_MAX are pending at once (more are closed at once). A failed
 * handshake closes the connection and is reported (the first few).
 * A daemon that completed it is handed to the owner (authed callback),
 * which decides whether that node was expected. The daemon's half of the
 * handshake is here too (rc_remote_auth_daemon), next to the head's.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher.h"
#include "param.h"

#define RC_PEND_MAX 64
#define RC_PEND_MAX_S 10.0
#define RC_REFUSED_REPORTS 5

extern char **environ;

struct pend {
	bool used;
	int step;		/* 0: waiting for HELLO, 1: for AUTH */
	struct rc_conn c;
	unsigned char nh[RC_NONCE_LEN], nd[RC_NONCE_LEN];
	uint32_t node;
	double deadline;
	char peer[64];
};

struct rc_remote {
	int auth;			/* RC_AUTH_* */
	char secret[RC_SECRET_HEX + 1]; /* RC_AUTH_SECRET */
	int lfd, port;
	char addrs[1024];
	char *agent_cmd;	/* the launch agent, as given */
	char **agent;		/* argv of the launch agent */
	int nagent;
	char *daemon;		/* rcmpid's path on the other hosts */
	int nnodes;
	struct pend pend[RC_PEND_MAX];
	int nrefused;
	rc_remote_authed_fn authed;
	void *arg;
	bool verbose;
};

/* ---- set-up ----------------------------------------------------------------- */

static int remote_split(struct rc_remote *r, const char *cmd)
{
	char *copy = strdup(cmd), *save, *w, **na;

	if (!copy)
		return -1;
	for (w = strtok_r(copy, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		na = realloc(r->agent, sizeof(*na) * (r->nagent + 4));
		if (!na)
			goto err;
		r->agent = na;
		r->agent[r->nagent] = strdup(w);
		if (!r->agent[r->nagent])
			goto err;
		r->nagent++;
	}
	free(copy);
	return r->nagent ? 0 : -1;
err:
	free(copy);
	return -1;
}

/* rcmpid next to our own executable, unless RCMPI_DAEMON says otherwise */
static char *remote_daemon_path(void)
{
	const char *env = rc_param_str(RC_P_DAEMON);
	char self[PATH_MAX], *slash, *out;
	ssize_t n;

	if (env)
		return strdup(env);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return strdup("rcmpid");
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return strdup("rcmpid");
	slash[1] = 0;
	out = malloc(strlen(self) + 8);
	if (out)
		sprintf(out, "%srcmpid", self);
	return out;
}

struct rc_remote *rc_remote_new(const char *agent, int auth, const char *secret,
				int nnodes, rc_remote_authed_fn authed,
				void *arg, bool verbose)
{
	struct rc_remote *r = calloc(1, sizeof(*r));
	/* RCMPI_HEAD_ADDRESS is mpirun's: a daemon offers all of its own */
	const char *addrs = secret ? NULL : rc_param_str(RC_P_HEAD_ADDRESS);

	if (!r) {
		rc_lerr("out of memory");
		return NULL;
	}
	r->lfd = -1;
	r->auth = auth;
	r->nnodes = nnodes;
	r->authed = authed;
	r->arg = arg;
	r->verbose = verbose;
	if (!agent || !*agent)
		agent = rc_param_str(RC_P_LAUNCH_AGENT);
	if (!agent[strspn(agent, " \t")])
		agent = rc_params[RC_P_LAUNCH_AGENT].def;
	r->agent_cmd = strdup(agent);
	if (!r->agent_cmd || remote_split(r, agent)) {
		rc_lerr("launch agent '%s': no command (or out of memory)",
			agent);
		goto err;
	}
	r->daemon = remote_daemon_path();
	if (secret)
		snprintf(r->secret, sizeof(r->secret), "%s", secret);
	if (!r->daemon ||
	    (auth == RC_AUTH_SECRET && !secret && rc_secret_new(r->secret))) {
		rc_lerr("cannot make the job's secret: %s", strerror(errno));
		goto err;
	}
	r->lfd = rc_net_listen(&r->port);
	if (r->lfd < 0) {
		rc_lerr("cannot listen for the daemons: %s", strerror(errno));
		goto err;
	}
	if (addrs)
		snprintf(r->addrs, sizeof(r->addrs), "%s", addrs);
	else if (rc_net_local_addrs(r->addrs, sizeof(r->addrs)))
		snprintf(r->addrs, sizeof(r->addrs), "127.0.0.1");
	if (verbose)
		rc_lmsg("daemons connect to %s port %d", r->addrs, r->port);
	return r;
err:
	rc_remote_free(r);
	return NULL;
}

void rc_remote_free(struct rc_remote *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < RC_PEND_MAX; i++)
		if (r->pend[i].used)
			rc_conn_close(&r->pend[i].c);
	if (r->lfd >= 0)
		close(r->lfd);
	for (i = 0; i < r->nagent; i++)
		free(r->agent[i]);
	free(r->agent);
	free(r->agent_cmd);
	free(r->daemon);
	memset(r->secret, 0, sizeof(r->secret));
	free(r);
}

const char *rc_remote_agent(const struct rc_remote *r)
{
	return r->agent_cmd;
}

/* 'it'\''s' */
static size_t remote_quote(char *out, const char *s)
{
	size_t n = 0;

	out[n++] = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(out + n, "'\\''", 4);
			n += 4;
		} else {
			out[n++] = *s;
		}
	}
	out[n++] = '\'';
	out[n] = 0;
	return n;
}

/* the daemon's last arguments, as separate words */
static int remote_daemon_args(const struct rc_remote *r, bool verbose,
			      const char **v)
{
	int n = 0;

	if (r->auth == RC_AUTH_MUNGE) {
		v[n++] = "--auth";
		v[n++] = "munge";
	}
	if (verbose)
		v[n++] = "--verbose";
	return n;
}

char *rc_remote_command(const struct rc_remote *r, int node,
			const char *host, bool verbose)
{
	char head[1100], nodestr[16];
	const char *parts[16] = {r->daemon, "--head",	  head, "--node",
				 nodestr,   "--hostname", host};
	size_t len = 8, i, n = 7;
	char *cmd;

	snprintf(head, sizeof(head), "%s:%d", r->addrs, r->port);
	snprintf(nodestr, sizeof(nodestr), "%d", node);
	n += (size_t)remote_daemon_args(r, verbose, parts + n);
	for (i = 0; i < n; i++)
		len += 4 * strlen(parts[i]) + 3;
	cmd = malloc(len);
	if (!cmd)
		return NULL;
	strcpy(cmd, "exec");
	len = 4;
	for (i = 0; i < n; i++) {
		cmd[len++] = ' ';
		len += remote_quote(cmd + len, parts[i]);
	}
	return cmd;
}

/*
 * Start an agent and hand it the secret: one line on its stdin (an empty
 * pipe takes it whole), then EOF; with MUNGE there is none. A short write
 * means the agent is gone: its exit says why.
 */
static int remote_spawn(struct rc_remote *r, struct rc_lproc *agent,
			const char *path, char *const argv[])
{
	char line[RC_SECRET_HEX + 2];
	ssize_t n;

	if (rc_procs_spawn(agent, path, argv, true))
		return -1;
	if (r->auth == RC_AUTH_SECRET) {
		snprintf(line, sizeof(line), "%s\n", r->secret);
		do {
			n = write(agent->fd_in, line, strlen(line));
		} while (n < 0 && errno == EINTR);
		memset(line, 0, sizeof(line));
	}
	close(agent->fd_in);
	agent->fd_in = -1;
	return 0;
}

int rc_remote_launch(struct rc_remote *r, int node, const char *host,
		     struct rc_lproc *agent)
{
	char **argv, *cmd, *path = NULL;
	int i, ret = -1;

	cmd = rc_remote_command(r, node, host, r->verbose);
	argv = calloc(r->nagent + 3, sizeof(*argv));
	if (!cmd || !argv) {
		rc_lerr("out of memory");
		goto out;
	}
	for (i = 0; i < r->nagent; i++)
		argv[i] = r->agent[i];
	argv[i++] = (char *)host;
	argv[i++] = cmd;
	argv[i] = NULL;
	agent->env = environ;
	agent->cpus = NULL;
	agent->ncpus = 0;
	if (r->verbose)
		rc_lmsg("host %s: %s %s '%s'", host, r->agent[0], host, cmd);
	path = rc_resolve_prog(r->agent[0]);
	if (!path) {
		rc_lerr("launch agent '%s': %s", r->agent[0],
			errno == ENOENT ? "not found" : strerror(errno));
		goto out;
	}
	if (remote_spawn(r, agent, path, argv))
		goto out;
	ret = 0;
out:
	free(path);
	free(cmd);
	free(argv);
	return ret;
}

int rc_remote_launch_srun(struct rc_remote *r, const char *const *hosts,
			  int nnodes, struct rc_lproc *agent)
{
	char *nodelist = NULL, *names = NULL, *path = NULL, head[1100];
	char opt_n[32], opt_nt[32], opt_cpus[32];
	const char *argv[40];
	size_t len = 16;
	int i, k = 0, argc = 0, cpus, ret = -1;

	for (i = 0; i < nnodes; i++)
		len += (hosts[i] ? strlen(hosts[i]) : 0) + 1;
	nodelist = calloc(1, len);
	names = calloc(1, len);
	if (!nodelist || !names) {
		rc_lerr("out of memory");
		goto out;
	}
	/* Slurm's node list of the daemons; the daemons' own list names
	 * every node of the job in order ("" where mpirun runs the ranks):
	 * a daemon finds its index by its Slurm node name */
	for (i = 0; i < nnodes; i++) {
		if (i)
			strcat(names, ",");
		if (!hosts[i])
			continue;
		strcat(names, hosts[i]);
		if (k++)
			strcat(nodelist, ",");
		strcat(nodelist, hosts[i]);
	}
	snprintf(opt_n, sizeof(opt_n), "--nodes=%d", k);
	snprintf(opt_nt, sizeof(opt_nt), "--ntasks=%d", k);
	argv[argc++] = "srun";
	argv[argc++] = opt_n;
	argv[argc++] = opt_nt;
	argv[argc++] = "--ntasks-per-node=1";
	argv[argc++] = "--nodelist";
	argv[argc++] = nodelist;
	/* Slurm 22.05: a step that shares the allocation's CPUs with the
	 * job's other steps, binds nothing and is no MPI job itself; the
	 * ranks may use all CPUs of each node */
	argv[argc++] = "--overlap";
	argv[argc++] = "--cpu-bind=none";
	argv[argc++] = "--mpi=none";
	cpus = rc_batch_slurm_cpus();
	if (cpus > 0) {
		snprintf(opt_cpus, sizeof(opt_cpus), "--cpus-per-task=%d",
			 cpus);
		argv[argc++] = opt_cpus;
	}
	argv[argc++] = "--job-name=rcmpid";
	argv[argc++] = "--quiet";
	/* the secret, one line on srun's stdin, reaches every daemon */
	argv[argc++] =
		r->auth == RC_AUTH_SECRET ? "--input=all" : "--input=none";
	argv[argc++] = r->daemon;
	snprintf(head, sizeof(head), "%s:%d", r->addrs, r->port);
	argv[argc++] = "--head";
	argv[argc++] = head;
	argv[argc++] = "--node-names";
	argv[argc++] = names;
	argc += remote_daemon_args(r, r->verbose, argv + argc);
	argv[argc] = NULL;
	agent->env = environ;
	agent->cpus = NULL;
	agent->ncpus = 0;
	if (r->verbose) {
		char cmd[4096];
		size_t off = 0;

		for (i = 0; i < argc && off < sizeof(cmd) - 1; i++)
			off += (size_t)snprintf(cmd + off, sizeof(cmd) - off,
						"%s%s", i ? " " : "", argv[i]);
		rc_lmsg("daemons on %d host%s through Slurm: %s", k,
			k == 1 ? "" : "s", cmd);
	}
	path = rc_resolve_prog("srun");
	if (!path) {
		rc_lerr("srun: %s", errno == ENOENT ? "not found in PATH"
						    : strerror(errno));
		goto out;
	}
	if (remote_spawn(r, agent, path, (char *const *)argv))
		goto out;
	ret = 0;
out:
	free(path);
	free(nodelist);
	free(names);
	return ret;
}

/* ---- the handshake, head side ----------------------------------------------- */

static void pend_close(struct rc_remote *r, struct pend *p, const char *why)
{
	if (why && r->nrefused++ < RC_REFUSED_REPORTS)
		rc_lmsg("warning: refused a connection from %s: %s%s",
			p->peer, why, r->nrefused == RC_REFUSED_REPORTS ?
			" (not reporting more)" : "");
	rc_conn_close(&p->c);
	p->used = false;
}

static void remote_accept(struct rc_remote *r)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	struct pend *p = NULL;
	char ip[INET_ADDRSTRLEN] = "?";
	int fd, i;

	fd = accept4(r->lfd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	for (i = 0; i < RC_PEND_MAX && !p; i++)
		if (!r->pend[i].used)
			p = &r->pend[i];
	if (!p) {
		close(fd);
		return;
	}
	memset(p, 0, sizeof(*p));
	p->used = true;
	rc_conn_init(&p->c, fd);
	if (sa.sin_family == AF_INET)
		inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
	snprintf(p->peer, sizeof(p->peer), "%s:%d", ip,
		 sa.sin_family == AF_INET ? ntohs(sa.sin_port) : 0);
	p->deadline = rc_now() + RC_PEND_MAX_S;
}

static void pend_msg(struct rc_remote *r, struct pend *p, uint32_t type,
		     struct rc_rbuf *rb)
{
	struct rc_wbuf w = { 0 };
	char why[300];
	const char *nd;

	if (p->step == 0 && type == RC_M_HELLO) {
		uint32_t magic = rc_rbuf_u32(rb), ver = rc_rbuf_u32(rb), auth;

		p->node = rc_rbuf_u32(rb);
		nd = rc_rbuf_raw(rb, RC_NONCE_LEN);
		auth = rc_rbuf_u32(rb);
		if (magic != RC_NET_MAGIC ||
		    (rb->bad && ver == RC_NET_VERSION)) {
			pend_close(r, p, "not an rcmpid hello");
			return;
		}
		if (ver != RC_NET_VERSION) {
			pend_close(r, p, "rcmpid of another version");
			return;
		}
		if (p->node >= (uint32_t)r->nnodes) {
			pend_close(r, p, "no such node");
			return;
		}
		if (auth != (uint32_t)r->auth) {
			snprintf(why, sizeof(why),
				 "the daemon authenticates "
				 "with %s, this job with %s",
				 rc_auth_name((int)auth),
				 rc_auth_name(r->auth));
			pend_close(r, p, why);
			return;
		}
		memcpy(p->nd, nd, RC_NONCE_LEN);
		if (rc_random(p->nh, RC_NONCE_LEN)) {
			pend_close(r, p, "no random numbers");
			return;
		}
		rc_wbuf_raw(&w, p->nh, RC_NONCE_LEN);
		if (rc_auth_prove(r->auth, r->secret, "rcmpi-head", p->nd,
				  p->nh, p->node, &w, why, sizeof(why))) {
			rc_wbuf_free(&w);
			pend_close(r, p, why);
			return;
		}
		if (rc_conn_send(&p->c, RC_M_CHALLENGE, &w))
			pend_close(r, p, NULL);
		else
			p->step = 1;
		rc_wbuf_free(&w);
		return;
	}
	if (p->step == 1 && type == RC_M_AUTH) {
		if (rc_auth_check(r->auth, r->secret, "rcmpi-daemon", p->nh,
				  p->nd, p->node, rb, why, sizeof(why))) {
			pend_close(r, p, why);
			return;
		}
		if (r->verbose)
			rc_lmsg("daemon of node %u authenticated (%s, %s)",
				p->node, p->peer, rc_auth_name(r->auth));
		if (r->authed(r->arg, (int)p->node, &p->c)) {
			p->used = false;	/* the owner's now */
			return;
		}
		/* ours, but given up on meanwhile (or a duplicate) */
		if (r->verbose)
			rc_lmsg("daemon of node %u: not expected (any more)",
				p->node);
		pend_close(r, p, NULL);
		return;
	}
	pend_close(r, p, "protocol error before authentication");
}

static void pend_io(struct rc_remote *r, struct pend *p, short revents)
{
	struct rc_rbuf rb;
	uint32_t type;
	int rc;

	if (revents & POLLOUT && rc_conn_flush(&p->c)) {
		pend_close(r, p, NULL);
		return;
	}
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	rc = rc_conn_fill(&p->c);
	if (rc == 0 || rc < 0) {
		/* a daemon with another secret hangs up on our challenge;
		 * so does one killed because the job is ending */
		if (r->verbose && p->step)
			rc_lmsg("a connection from %s closed during the "
				"handshake", p->peer);
		pend_close(r, p, NULL);
		return;
	}
	while (p->used && (rc = rc_conn_next(&p->c, &type, &rb)) == 1)
		pend_msg(r, p, type, &rb);
	if (p->used && rc < 0)
		pend_close(r, p, "malformed message");
}

int rc_remote_npollfd(void)
{
	return 1 + RC_PEND_MAX;
}

int rc_remote_pollfds(struct rc_remote *r, struct pollfd *pfd)
{
	int i, k = 0;

	pfd[k].fd = r->lfd;
	pfd[k++].events = POLLIN;
	for (i = 0; i < RC_PEND_MAX; i++) {
		pfd[k].fd = r->pend[i].used ? r->pend[i].c.fd : -1;
		pfd[k++].events = POLLIN |
			(r->pend[i].used && rc_conn_pending(&r->pend[i].c) ?
			 POLLOUT : 0);
	}
	return k;
}

void rc_remote_handle(struct rc_remote *r, const struct pollfd *pfd)
{
	int i;

	for (i = 0; i < RC_PEND_MAX; i++)
		if (r->pend[i].used && pfd[1 + i].revents &&
		    pfd[1 + i].fd == r->pend[i].c.fd)
			pend_io(r, &r->pend[i], pfd[1 + i].revents);
	if (pfd[0].revents & POLLIN)
		remote_accept(r);
}

double rc_remote_timers(struct rc_remote *r, double now)
{
	double next = 0;
	int i;

	for (i = 0; i < RC_PEND_MAX; i++) {
		struct pend *p = &r->pend[i];

		if (!p->used)
			continue;
		if (now >= p->deadline) {
			pend_close(r, p, "no handshake in time");
			continue;
		}
		if (!next || p->deadline < next)
			next = p->deadline;
	}
	return next;
}

/* ---- the handshake, daemon side ---------------------------------------------- */

int rc_remote_auth_daemon(struct rc_conn *c, int auth, const char *secret,
			  uint32_t node, double deadline, char *why,
			  size_t whylen)
{
	unsigned char nd[RC_NONCE_LEN];
	const char *nh;
	struct rc_wbuf w = { 0 };
	struct rc_rbuf rb;
	uint32_t type;

	if (rc_random(nd, sizeof(nd))) {
		snprintf(why, whylen, "no random numbers");
		return -1;
	}
	rc_wbuf_u32(&w, RC_NET_MAGIC);
	rc_wbuf_u32(&w, RC_NET_VERSION);
	rc_wbuf_u32(&w, node);
	rc_wbuf_raw(&w, nd, sizeof(nd));
	rc_wbuf_u32(&w, (uint32_t)auth);
	if (rc_conn_send(c, RC_M_HELLO, &w))
		goto err_io;
	rc_wbuf_free(&w);
	if (rc_conn_wait_msg(c, deadline, &type, &rb) != 1)
		goto err_io;
	nh = rc_rbuf_raw(&rb, RC_NONCE_LEN);
	if (type != RC_M_CHALLENGE || rb.bad) {
		snprintf(why, whylen, "the head sent no challenge");
		return -1;
	}
	if (rc_auth_check(auth, secret, "rcmpi-head", nd,
			  (const unsigned char *)nh, node, &rb, why, whylen)) {
		if (auth == RC_AUTH_SECRET)
			snprintf(why, whylen,
				 "the head does not know the "
				 "job's secret");
		return -1;
	}
	if (rc_auth_prove(auth, secret, "rcmpi-daemon",
			  (const unsigned char *)nh, nd, node, &w, why,
			  whylen)) {
		rc_wbuf_free(&w);
		return -1;
	}
	if (rc_conn_send(c, RC_M_AUTH, &w))
		goto err_io;
	rc_wbuf_free(&w);
	return 0;
err_io:
	rc_wbuf_free(&w);
	snprintf(why, whylen, "%s", errno == ECONNRESET ?
		 "the head closed the connection (wrong secret?)" :
		 strerror(errno));
	return -1;
}
