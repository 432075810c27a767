/*
 * launcher.h - the pieces mpirun is built from, shared with the per-node
 * daemon (rcmpid) to come.
 *
 * A job is a namespace of `size` ranks spread over `nnodes` hosts
 * (struct rc_jobmap). On each host one PMIx server (mpirun itself, later
 * rcmpid) serves the ranks placed there:
 *
 *   opts.c        command line → struct rc_opts (mpirun only)
 *   pmix_server.c libpmix server glue; libpmix calls us on its own thread,
 *                 we queue a struct rc_pev and wake the main loop through a
 *                 pipe (rc_psrv_event_fd); the main loop answers through
 *                 rc_psrv_ack / rc_psrv_fence_done
 *   fence.c       all-gather bookkeeping: one blob per participating node,
 *                 result = concatenation (what libpmix wants back)
 *   procs.c       fork/exec of local ranks, binding, signals, reaping
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

#define RC_NSLEN 256	/* PMIX_MAX_NSLEN + 1 */

/* ---- options (opts.c) ------------------------------------------------- */
enum rc_bind { RC_BIND_DEFAULT, RC_BIND_CORE, RC_BIND_NONE };

struct rc_opts {
	int np;			/* 0: not given */
	char **xvars;		/* -x entries, as given (VAR or VAR=val) */
	int nx;
	bool tag_output;
	bool oversubscribe;
	enum rc_bind bind;
	double timeout;		/* seconds; 0: none */
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

/* ---- local processes (procs.c) ---------------------------------------- */
struct rc_lproc {
	int rank;
	int local_rank;
	int cpu;		/* bind to this CPU; -1: no binding */
	pid_t pid;		/* 0: not started */
	int fd_in, fd_out, fd_err;	/* our ends, -1 when closed */
	char **env;		/* prepared before fork */
	bool alive;
	bool connected, finalized;
	int wstatus;
};

/* CPUs we may run on (sched_getaffinity), ascending; returns count or -1 */
int rc_cpus_allowed(int **cpus);
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
/* one exited child, or 0 when none is left to collect now */
pid_t rc_procs_reap(int *wstatus);

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

#endif
