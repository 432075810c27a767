/*
 * launcher.h - the pieces mpirun and the per-node daemon rcmpid are built
 * from.
 *
 * A job is a namespace of `size` ranks spread over `nnodes` hosts
 * (struct rc_jobmap). On each host one PMIx server (mpirun itself for the
 * ranks on its own host, rcmpid elsewhere) serves the ranks placed there:
 *
 *   opts.c        command line → struct rc_opts (mpirun only)
 *   hostfile.c    -H / --hostfile parsing, --map-by (mpirun only)
 *   batch.c       hosts of a Slurm, PBS or LSF allocation, RCMPI_HOSTFILE
 *   node.c        the ranks of one node: PMIx server up, environments,
 *                 fork, output pipes, reaping, teardown (both programs)
 *   net.c         the head-daemon TCP link: framing, buffered
 *                 non-blocking connections, handshake MACs (both)
 *   auth.c        the proofs of the handshake: HMAC-SHA-256 under the
 *                 job's secret (libcrypto) or MUNGE credentials (both)
 *   remote.c      mpirun's side of the daemons: launch agent, accept,
 *                 authenticate (and the daemon's half of the handshake)
 *   rcmpid.c      the daemon (rcmpid only)
 *   pmix_server.c libpmix server glue; libpmix calls us on its own thread,
 *                 we queue a struct rc_pev and wake the main loop through a
 *                 pipe (rc_psrv_event_fd); the main loop answers through
 *                 rc_psrv_ack / rc_psrv_fence_done
 *   fence.c       all-gather bookkeeping: one blob per participating node,
 *                 result = concatenation (what libpmix wants back)
 *   procs.c       fork/exec of local ranks, binding, signals, reaping
 *   topo.c        this host's cores, sockets, NUMA nodes; --bind-to
 *   iof.c         per-rank line buffers for stdout/stderr, stdin relay
 *   mpirun.c      the job state machine and the poll() loop
 *
 * Nothing here is thread-safe except rc_psrv_*'s event queue; everything
 * else runs on the main thread.
 */
#ifndef RC_LAUNCHER_H
#define RC_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pollfd;

#define RC_NSLEN 256	/* PMIX_MAX_NSLEN + 1 */

/* ---- options (opts.c) ------------------------------------------------- */
enum rc_bind {
	RC_BIND_DEFAULT, /* core when the ranks fit the cores, else none */
	RC_BIND_CORE,
	RC_BIND_NONE,
	RC_BIND_SOCKET,
	RC_BIND_NUMA,
	RC_BIND_MAX = RC_BIND_NUMA
};
enum rc_mapby { RC_MAP_SLOT, RC_MAP_NODE, RC_MAP_PPR };

struct rc_opts {
	int np;			/* 0: not given */
	char **xvars;		/* -x entries, as given (VAR or VAR=val) */
	int nx;
	bool tag_output;
	bool oversubscribe;
	enum rc_bind bind;
	double timeout;		/* seconds; 0: none */
	char *hosts;		/* -H, as given (NULL: none) */
	char *hostfile;		/* --hostfile (NULL: none) */
	enum rc_mapby mapby;
	int ppr;		/* --map-by ppr:N:node, -N: ranks per node */
	bool report_bindings;	/* --report-bindings */
	bool display_map;	/* --display-map */
	char *wdir;		/* --wdir (NULL: mpirun's directory) */
	char *agent;		/* --launch-agent (NULL: RCMPI_LAUNCH_AGENT
				 * or the default, ssh) */
	char *auth;		/* --auth (NULL: RCMPI_AUTH) */
	bool local_daemon;	/* --local-daemon: this host's ranks under a
				 * daemon too, started like the others' */
	char **argv;		/* program and its arguments (in main's argv) */
	int argc;
};

/* 0: run; 1: bad input (message printed); 2: --help/--version printed */
int rc_opts_parse(int argc, char **argv, struct rc_opts *o);
void rc_opts_free(struct rc_opts *o);
/* "mpirun: error: ..." on stderr, one line */
__attribute__((format(printf, 1, 2))) void rc_lerr(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void rc_lmsg(const char *fmt, ...);
extern const char *rc_progname;
/* the last rc_lerr line (without the prefix); rc_lerr_quiet: record only */
extern char rc_last_err[1024];
extern bool rc_lerr_quiet;

/* ---- the job's placement ---------------------------------------------- */
struct rc_jobmap {
	char nspace[RC_NSLEN];
	int size;		/* world size */
	int nnodes;
	char **hosts;		/* nnodes names */
	int *node_of;		/* size entries: rank → node index */
	int *local_rank;	/* size entries: index among its node's ranks */
};

/* the ranks of `node`, ascending; returns the count */
int rc_jobmap_local(const struct rc_jobmap *m, int node, int *ranks);

/* ---- host list (hostfile.c) ------------------------------------------ */
struct rc_host {
	char *name;
	int slots;
};

struct rc_hostlist {
	struct rc_host *h;
	int n;
};

/* "host[:slots],..." (-H); 0 or -1 (message printed) */
int rc_hosts_parse_spec(struct rc_hostlist *l, const char *spec);
/* "host [slots=N]" lines, '#' comments; 0 or -1 (message printed) */
int rc_hosts_parse_file(struct rc_hostlist *l, const char *path);
/* add `slots` to host name[0..len) (a new entry or an existing one) */
int rc_hosts_add(struct rc_hostlist *l, const char *name, size_t len,
		 int slots);
void rc_hosts_free(struct rc_hostlist *l);
/* host_of[r] = index in l of rank r's host (ppr: ranks per host for
 * RC_MAP_PPR); 0 or -1 (message printed) */
int rc_hosts_map(const struct rc_hostlist *l, int np, enum rc_mapby by, int ppr,
		 bool oversubscribe, int *host_of);
/* `name` is this host (`me` is gethostname's answer) */
bool rc_host_is_local(const char *name, const char *me);

/* ---- batch allocations (batch.c) ---------------------------------------- */
enum rc_batch {
	RC_BATCH_NONE,
	RC_BATCH_HOSTFILE, /* RCMPI_HOSTFILE */
	RC_BATCH_SLURM,
	RC_BATCH_PBS,
	RC_BATCH_LSF,
};

/* The allocation's hosts and slots (RCMPI_HOSTFILE, Slurm, PBS, LSF:
 * the first set), kind says which (RC_BATCH_NONE: none; l untouched).
 * 0, or -1 (message printed). */
int rc_batch_hosts(struct rc_hostlist *l, enum rc_batch *kind);
const char *rc_batch_name(enum rc_batch kind);
/* Slurm's compressed host list, e.g. "node[01-04,07],gpu[1-2]"; what
 * names the variable in messages */
int rc_batch_hostlist(struct rc_hostlist *l, const char *list,
		      const char *what);
/* "2(x3),1" into counts[0..n): must cover exactly n nodes */
int rc_batch_counts(const char *spec, int *counts, int n, const char *what);
/* a PBS node file; LSF's "host slots host slots ..." */
int rc_batch_pbs(struct rc_hostlist *l, const char *path);
int rc_batch_lsf(struct rc_hostlist *l, const char *spec);
/* CPUs per node of the Slurm allocation (the smallest), 0: unknown */
int rc_batch_slurm_cpus(void);

/* ---- PMIx server (pmix_server.c) -------------------------------------- */
enum rc_pev_type {
	RC_PEV_CONNECTED,	/* rank called PMIx_Init */
	RC_PEV_FINALIZED,	/* rank called PMIx_Finalize (already acked) */
	RC_PEV_ABORT,		/* rank called PMIx_Abort: ack once handled */
	RC_PEV_FENCE,		/* local part of a fence: rc_psrv_fence_done */
};

struct rc_pev {
	struct rc_pev *next;
	enum rc_pev_type type;
	int rank;
	int status;		/* abort: exit code requested */
	char *msg;		/* abort: message (may be NULL) */
	char *sig;		/* fence: participants, e.g. "ns:*" */
	int nnodes;		/* fence: nodes hosting participants */
	char *data;		/* fence: this node's blob (copied) */
	size_t ndata;
};

int rc_psrv_init(const char *tmpdir, const char *host);
/* readable when events are queued: drain the wakeups, then take events
 * until rc_psrv_next says NULL */
int rc_psrv_event_fd(void);
void rc_psrv_drain_wakeups(void);
struct rc_pev *rc_psrv_next(void);
void rc_psrv_ack(struct rc_pev *ev, bool ok);		/* abort: release caller */
/* hand the all-gathered blob (malloc'd, ownership taken) back; frees ev */
void rc_psrv_fence_done(struct rc_pev *ev, bool ok, char *buf, size_t len);
void rc_pev_free(struct rc_pev *ev);
/* register the namespace (keys for every rank) and this node's clients */
int rc_psrv_register(const struct rc_jobmap *m, int my_node,
		     const char *tmpdir);
/* add the PMIx client variables for `rank` to *env (malloc'd array) */
int rc_psrv_setup_fork(const char *nspace, int rank, char ***env);
/* deregister + finalize, bounded by a watchdog; false if it was skipped */
bool rc_psrv_fini(const char *nspace, double max_s);

/* ---- fence bookkeeping (fence.c) -------------------------------------- */
struct rc_fence_tab;
struct rc_fence_tab *rc_fence_tab_new(void);
void rc_fence_tab_free(struct rc_fence_tab *t);
/*
 * One node's contribution to the collective `sig` that expects `nexpected`
 * contributions. Returns 1 when it completed (the concatenation of all
 * contributions in *out and *outlen, malloc'd, NULL for 0 bytes), 0 while
 * pending, -1 on allocation failure.
 */
int rc_fence_add(struct rc_fence_tab *t, const char *sig, int nexpected,
		 const char *data, size_t len, char **out, size_t *outlen);
/* the same, from `node`; on completion *nodes (malloc'd, *nnodes entries)
 * lists the contributors in arrival order (nodes may be NULL) */
int rc_fence_add_node(struct rc_fence_tab *t, const char *sig,
		      int nexpected, int node, const char *data, size_t len,
		      char **out, size_t *outlen, int **nodes, int *nnodes);

/* the same for `count` nodes at once (a subtree's combined blob, from
 * its root `node`; the others are listed as -1); -1 also when more than
 * nexpected contributions would arrive */
int rc_fence_add_count(struct rc_fence_tab *t, const char *sig, int nexpected,
		       int node, int count, const char *data, size_t len,
		       char **out, size_t *outlen, int **nodes, int *nnodes);

/* ---- the launch tree (tree.c) -------------------------------------------
 *
 * The daemons' nodes (every node but the head's, in order) form a k-ary
 * tree under mpirun: positions 0..k-1 are mpirun's children, the children
 * of position p are positions (p+1)k .. (p+1)k+k-1. Radix 0: flat (every
 * daemon a child of mpirun, none has children).
 */
struct rc_tree {
	int radix;     /* 0: flat */
	int nnodes;    /* of the job */
	int ndmn;      /* nodes with a daemon */
	int *pos_node; /* ndmn: position -> node */
	int *node_pos; /* nnodes: node -> position, -1: the head's */
};
/* head_node: the node mpirun serves itself (-1: none); 0 or -1 (ENOMEM) */
int rc_tree_init(struct rc_tree *t, int nnodes, int head_node, int radix);
void rc_tree_free(struct rc_tree *t);
/* the node that started `node`'s daemon, -1: mpirun */
int rc_tree_parent(const struct rc_tree *t, int node);
/* the children of `node` (-1: mpirun's) into kids (radix or ndmn
 * entries); the count */
int rc_tree_kids(const struct rc_tree *t, int node, int *kids, int max);
/* the child of `from` (-1: mpirun) whose subtree holds `dst`, or -1 if
 * dst is not below from */
int rc_tree_next_hop(const struct rc_tree *t, int from, int dst);
/* how many daemons are below `node` (not counting itself) */
int rc_tree_below(const struct rc_tree *t, int node);
/* links between mpirun and `node` (1: a child of mpirun) */
int rc_tree_depth(const struct rc_tree *t, int node);

/* ---- local processes (procs.c) ---------------------------------------- */
struct rc_lproc {
	int rank;
	const char *label;	/* for messages; NULL: "rank N" */
	int deathsig;		/* sent when we die (0: SIGKILL) */
	int local_rank;
	int *cpus; /* bind to these CPUs (NULL: no binding) */
	int ncpus;
	char bound[64];		/* "core 1", "socket 0", "" (not bound) */
	pid_t pid;		/* 0: not started */
	int fd_in, fd_out, fd_err;	/* our ends, -1 when closed */
	char **env;		/* prepared before fork */
	bool alive;
	bool connected, finalized;
	int wstatus;
};

/* CPUs we may run on (sched_getaffinity), ascending; returns count or -1 */
int rc_cpus_allowed(int **cpus);

/* ---- this host's CPUs (topo.c) --------------------------------------------
 */
struct rc_topo {
	int ncpus;		   /* usable CPUs */
	int *cpu;		   /* their ids, ascending */
	int *core, *socket, *numa; /* per usable CPU: dense indexes */
	int ncores, nsockets, nnuma;
	int *core_cpu;		  /* per core: its first CPU */
	int *socket_id, *numa_id; /* dense index -> the system's id */
};
/* from sysfs (under RCMPI_TEST_ROOT in tests); 0 or -1 */
int rc_topo_load(struct rc_topo *t);
void rc_topo_free(struct rc_topo *t);
/* the CPUs local rank i binds to (mode CORE, SOCKET or NUMA) into cpus
 * (t->ncpus entries at most), "core 3" / "socket 0" / "NUMA node 1" into
 * desc; returns the count */
int rc_topo_bind(const struct rc_topo *t, enum rc_bind mode, int i, int *cpus,
		 char *desc, size_t len);
/* "0-3,8" */
void rc_cpulist_str(const int *cpus, int n, char *out, size_t len);
/* the absolute path of an executable `prog` (PATH search), or NULL + errno */
char *rc_resolve_prog(const char *prog);
/* call once, before any thread exists: signals we handle are blocked */
int rc_procs_signals_setup(const int *sigs, int nsigs);
/* SIGHUP was ignored when we started (nohup): do not handle or reset it */
bool rc_procs_sighup_ignored(void);
int rc_procs_spawn(struct rc_lproc *p, const char *path, char *const argv[],
		   bool want_stdin);
/* signal the rank's process group */
void rc_procs_kill(struct rc_lproc *p, int sig);
/* "exited with status N" / "was killed by signal N" */
void rc_wait_str(int ws, char *out, size_t len);
/* one exited child, or 0 when none is left to collect now */
pid_t rc_procs_reap(int *wstatus);

/* ---- auth (auth.c) ---------------------------------------------------- */
#define RC_SHA256_LEN 32
#define RC_SECRET_HEX 64
#define RC_NONCE_LEN 32

enum rc_auth_kind { RC_AUTH_SECRET = 1, RC_AUTH_MUNGE = 2 };

/* "secret" or "munge" -> RC_AUTH_*, else -1 */
int rc_auth_parse(const char *s);
const char *rc_auth_name(int kind);
/* compiled in? if not, why (one line) */
bool rc_auth_available(int kind, char *why, size_t whylen);
/* HMAC-SHA-256 (libcrypto) */
void rc_hmac_sha256(const void *key, size_t keylen, const void *data,
		    size_t len, unsigned char out[RC_SHA256_LEN]);
bool rc_ct_equal(const void *a, const void *b, size_t len);
int rc_random(void *buf, size_t len);
int rc_secret_new(char hex[RC_SECRET_HEX + 1]);
/* HMAC(secret, role '\0' n1 n2 node) */
void rc_auth_mac(const char *secret, const char *role, const unsigned char *n1,
		 const unsigned char *n2, uint32_t node,
		 unsigned char out[RC_SHA256_LEN]);
/* Append to w the proof that we are `role` in the exchange (n1, n2, node):
 * the HMAC (secret) or a MUNGE credential; 0 or -1 + why. */
struct rc_wbuf;
struct rc_rbuf;
int rc_auth_prove(int kind, const char *secret, const char *role,
		  const unsigned char *n1, const unsigned char *n2,
		  uint32_t node, struct rc_wbuf *w, char *why, size_t whylen);
/* Read the peer's proof from rb and check it; 0 or -1 + why */
int rc_auth_check(int kind, const char *secret, const char *role,
		  const unsigned char *n1, const unsigned char *n2,
		  uint32_t node, struct rc_rbuf *rb, char *why, size_t whylen);

/* ---- the head-daemon link (net.c) --------------------------------------- */
#define RC_NET_MAGIC 0x72636d70u	/* "rcmp" */
#define RC_NET_VERSION 3

/* message types; see rcmpid.c for the payloads */
enum rc_msg {
	RC_M_HELLO = 1,	   /* d→h: magic, version, node, nonce_d, auth */
	RC_M_CHALLENGE,	   /* h→d: nonce_h, head's proof (auth.c) */
	RC_M_AUTH,	   /* d→h: daemon's proof */
	RC_M_JOB,	   /* h→d: what to run */
	RC_M_KILL,	   /* h→d: signal every local rank */
	RC_M_FENCE_DONE,   /* h→d: sig, status, all nodes' blobs */
	RC_M_STDIN,	   /* h→d: bytes for rank 0 */
	RC_M_STDIN_EOF,	   /* h→d: no more */
	RC_M_END,	   /* h→d: normal?; tear down and exit */
	RC_M_PING,	   /* both: heartbeat */
	RC_M_STARTED,	   /* d→h: every local rank's pid */
	RC_M_FAILED,	   /* d→h: start-up failed (message) */
	RC_M_CONNECTED,	   /* d→h: rank called PMIx_Init */
	RC_M_FINALIZED,	   /* d→h: rank called PMIx_Finalize */
	RC_M_ABORT,	   /* d→h: rank, status, message */
	RC_M_FENCE,	   /* d→h: sig, nnodes, this node's blob */
	RC_M_EXITED,	   /* d→h: rank, wait status */
	RC_M_OUT,	   /* d→h: rank, stream, whole lines */
	RC_M_STDIN_ACK,	   /* d→h: bytes written to rank 0 */
	RC_M_STDIN_CLOSED, /* d→h: rank 0 takes no more input */
	RC_M_DRAINED,	   /* d→h: every rank ended, output all sent */
	RC_M_SIGNALED,	   /* d→h: the daemon got a signal */
	/* the launch tree (rcmpid.c) */
	RC_M_RELAY_UP,	 /* d→h: node, type, payload: from a descendant */
	RC_M_RELAY_DOWN, /* h→d: node, type, payload: for a descendant */
	RC_M_BCAST,	 /* h→d: type, payload: for every daemon below */
	RC_M_FENCE_SUB,	 /* d→h: sig, nnodes, count, a subtree's blobs */
	RC_M_LOST,	 /* d→h: node, why: a child daemon is lost */
	RC_M_NOTE,	 /* d→h: node, line: a child's launch agent said */
};

struct rc_wbuf {
	char *p;
	size_t len, cap;
	bool oom;		/* an append failed: don't send it */
};
void rc_wbuf_u32(struct rc_wbuf *w, uint32_t v);
void rc_wbuf_raw(struct rc_wbuf *w, const void *p, size_t len);
void rc_wbuf_bytes(struct rc_wbuf *w, const void *p, size_t len);
void rc_wbuf_str(struct rc_wbuf *w, const char *s);
void rc_wbuf_free(struct rc_wbuf *w);

struct rc_rbuf {
	const char *p;
	size_t len, off;
	bool bad;		/* read past the end, or malformed */
};
uint32_t rc_rbuf_u32(struct rc_rbuf *r);
const char *rc_rbuf_raw(struct rc_rbuf *r, size_t len);
const char *rc_rbuf_bytes(struct rc_rbuf *r, size_t *len);
char *rc_rbuf_strdup(struct rc_rbuf *r);	/* malloc'd; NULL if bad */

struct rc_conn {
	int fd;
	char *out;		/* queued, not yet sent: [outoff, outlen) */
	size_t outoff, outlen, outcap;
	char *in;		/* received, not yet taken: [inoff, inlen) */
	size_t inoff, inlen, incap;
	double last_rx, last_tx;	/* rc_now() */
};

double rc_now(void);	/* CLOCK_MONOTONIC seconds */
/* this process's connections (every rc_conn, handshakes included) */
struct rc_net_stats {
	int conns, conns_max;	/* open now, most at once */
	uint64_t tx_bytes, rx_bytes, tx_msgs;
};
extern struct rc_net_stats rc_net_stats;
void rc_conn_init(struct rc_conn *c, int fd);	/* non-blocking, NODELAY */
void rc_conn_close(struct rc_conn *c);
/* queue a message and send what the socket takes; -1 on error */
int rc_conn_send(struct rc_conn *c, uint32_t type, const struct rc_wbuf *w);
int rc_conn_flush(struct rc_conn *c);		/* 0 or -1 */
size_t rc_conn_pending(const struct rc_conn *c);	/* bytes queued */
/* read once: 1 read some, 2 nothing now, 0 EOF, -1 error */
int rc_conn_fill(struct rc_conn *c);
/* the next whole message: 1 (r valid until the next fill), 0 none yet,
 * -1 malformed */
int rc_conn_next(struct rc_conn *c, uint32_t *type, struct rc_rbuf *r);
/* blocking: the next message before `deadline` (rc_now()); 1 or -1 */
int rc_conn_wait_msg(struct rc_conn *c, double deadline, uint32_t *type,
		     struct rc_rbuf *r);
/* a listening TCP socket on every address, ephemeral port */
int rc_net_listen(int *port);
/* this host's IPv4 addresses, comma-separated, loopback last */
int rc_net_local_addrs(char *out, size_t len);
bool rc_net_is_local_addr(const char *s);
/* connect to the first of `addrs` (comma-separated) that answers, trying
 * `prefer` first if it is among them; fd, or -1 with the reasons in why */
int rc_net_connect(const char *addrs, int port, const char *prefer,
		   double max_each_s, char *why, size_t whylen);
/* ---- daemons, head side (remote.c) ------------------------------------- */
struct rc_remote;
/* a daemon proved it knows the secret: true if the owner takes `c`
 * (copies the struct), false to close it */
typedef bool (*rc_remote_authed_fn)(void *arg, int node, struct rc_conn *c);
/* secret (a new one; a daemon starting daemons passes the job's),
 * listening socket, agent; NULL (message printed) on failure */
struct rc_remote *rc_remote_new(const char *agent, int auth, const char *secret,
				int nnodes, rc_remote_authed_fn authed,
				void *arg, bool verbose);
/* the launch agent's command, as it is used */
const char *rc_remote_agent(const struct rc_remote *r);
void rc_remote_free(struct rc_remote *r);
/* the remote command line that starts rcmpid for `node` (malloc'd) */
char *rc_remote_command(const struct rc_remote *r, int node,
			const char *host, bool verbose);
/* start the agent for `host` into *agent (label, pid, pipes) and hand it
 * the secret; 0 or -1 (message printed) */
int rc_remote_launch(struct rc_remote *r, int node, const char *host,
		     struct rc_lproc *agent);
/* under Slurm: one srun starts a daemon on every node i with hosts[i]
 * (NULL: none there) and hands them all the secret; 0 or -1 */
int rc_remote_launch_srun(struct rc_remote *r, const char *const *hosts,
			  int nnodes, struct rc_lproc *agent);
int rc_remote_npollfd(void);
int rc_remote_pollfds(struct rc_remote *r, struct pollfd *pfd);
void rc_remote_handle(struct rc_remote *r, const struct pollfd *pfd);
/* close handshakes past their time; the next deadline (0: none) */
double rc_remote_timers(struct rc_remote *r, double now);
/* the daemon's half: HELLO, check the head's proof, AUTH; 0 or -1 + why */
int rc_remote_auth_daemon(struct rc_conn *c, int auth, const char *secret,
			  uint32_t node, double deadline, char *why,
			  size_t whylen);

/* ---- stdio forwarding (iof.c) ----------------------------------------- */
enum { RC_IOF_OUT = 1, RC_IOF_ERR = 2 };

struct rc_iof_buf {
	char *buf;
	size_t len, cap;
};

/* whole lines of `rank`'s stream; `len` ends in '\n' except at EOF */
typedef void (*rc_iof_emit_fn)(void *arg, int rank, int stream,
			       const char *buf, size_t len);

/* read fd once; emit complete lines. 1: read some, 2: nothing there now,
 * 0: EOF, -1: error */
int rc_iof_pump(struct rc_iof_buf *b, int fd, int rank, int stream,
		rc_iof_emit_fn emit, void *arg);
/* a launch agent's stream (rank -1): pump once; at its end (0) or on an
 * error, emit what is left and close *fd (set to -1); 1, 2 or 0 */
int rc_iof_pump_close(struct rc_iof_buf *b, int *fd, int stream,
		      rc_iof_emit_fn emit, void *arg);
/* emit whatever is left (a last line without '\n') and free the buffer */
void rc_iof_flush(struct rc_iof_buf *b, int rank, int stream,
		  rc_iof_emit_fn emit, void *arg);
/* write lines to fd, each prefixed with "[rank] " if tag; 0 or -1 */
int rc_iof_write_lines(int fd, int rank, bool tag, const char *buf,
		       size_t len);

/* stdin relay: our fd 0 → one rank's pipe */
struct rc_stdin {
	char buf[65536];
	size_t len;
	bool eof;		/* nothing more to read from `src` */
	bool closed;		/* destination closed */
	int src, dst;
};
/* poll events wanted on src/dst (0 if none) */
short rc_stdin_want_src(const struct rc_stdin *s);
short rc_stdin_want_dst(const struct rc_stdin *s);
void rc_stdin_on_src(struct rc_stdin *s);
void rc_stdin_on_dst(struct rc_stdin *s);
void rc_stdin_close(struct rc_stdin *s);

/* ---- one node's ranks (node.c) ------------------------------------------ */
struct rc_node_ops {
	/* whole lines of a local rank's stdout/stderr (rc_iof_emit_fn) */
	rc_iof_emit_fn output;
	/* p->connected or p->finalized was just set (may be NULL) */
	void (*state)(void *arg, struct rc_lproc *p, enum rc_pev_type what);
	/* the local part of a fence: answer with rc_psrv_fence_done */
	void (*fence)(void *arg, struct rc_pev *ev);
	/* PMIx_Abort: answer with rc_psrv_ack, then rc_pev_free */
	void (*abort)(void *arg, struct rc_pev *ev);
	/* the rank ended (p->wstatus); its output was drained */
	void (*exited)(void *arg, struct rc_lproc *p);
};

struct rc_node {
	const struct rc_jobmap *map;
	int me;			/* this node's index in map */
	int nlocal;
	struct rc_lproc *procs;	/* nlocal, ascending ranks */
	struct rc_lproc **batch;	/* reaped, not yet judged */
	int nbatch;
	struct rc_iof_buf *obuf, *ebuf;	/* per local rank */
	int *who;		/* rc_node_pollfds' fd → stream */
	int nalive;
	char tmpdir[4096];
	bool have_tmpdir, pmix_up;
	const struct rc_node_ops *ops;
	void *arg;
};

int rc_node_init(struct rc_node *n, const struct rc_jobmap *m, int me,
		 const struct rc_node_ops *ops, void *arg);
/* bind, tmpdir, PMIx server, register, environments, fork; 0 or -1
 * (message printed; then rc_node_abort_startup) */
int rc_node_start(struct rc_node *n, const char *path, char *const argv[],
		  char **env_base, enum rc_bind bind);
void rc_node_abort_startup(struct rc_node *n);	/* SIGKILL, wait */
struct rc_lproc *rc_node_proc(struct rc_node *n, int rank);
int rc_node_stdin_fd(struct rc_node *n);	/* rank 0's, or -1 */
void rc_node_kill(struct rc_node *n, int sig);	/* the live ranks */
void rc_node_kill_groups(struct rc_node *n);	/* every group, SIGKILL */
void rc_node_events(struct rc_node *n);		/* drain PMIx events */
/* a reaped child: true (and queued for rc_node_judge) if it is a rank */
bool rc_node_child(struct rc_node *n, pid_t pid, int wstatus);
void rc_node_judge(struct rc_node *n);		/* report the batch */
int rc_node_npollfd(const struct rc_node *n);
/* this node's fds into pfd (outputs only if `outputs`); the count */
int rc_node_pollfds(struct rc_node *n, struct pollfd *pfd, bool outputs);
void rc_node_handle(struct rc_node *n, const struct pollfd *pfd, int cnt);
bool rc_node_outputs_open(const struct rc_node *n);
void rc_node_close_outputs(struct rc_node *n);
void rc_node_cleanup(struct rc_node *n);	/* tmpdir, shm segments */
/* PMIx teardown (normal end only, under a watchdog), cleanup, _exit */
__attribute__((noreturn)) void rc_node_exit(struct rc_node *n, int code,
					    bool normal);

/* our environment without a foreign PMIx server's variables, plus `set`
 * ("VAR=value" entries) */
char **rc_env_base(char *const *set, int nset);
void rc_env_free(char **env);

#endif
