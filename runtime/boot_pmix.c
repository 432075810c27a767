/*
 * boot_pmix.c - bootstrap over PMIx, as a client of whatever PMIx server
 * started us (rcmpi's mpirun or rcmpid, Slurm's srun --mpi=pmix, PRRTE,
 * Open MPI's mpirun). Only standard keys are read, tolerantly typed.
 *
 * Sequence: PMIx_Init -> job size, local peers, hostname -> (transports
 * open) -> PMIx_Put one byte object "rcmpi.addr" -> PMIx_Commit ->
 * PMIx_Fence(collect) -> PMIx_Get per peer when the runtime asks.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>
#include "boot.h"
#include "env.h"
#include "log.h"
#include "param.h"
#include "status.h"

#define RC_PMIX_KEY "rcmpi.addr"

struct boot_pmix {
	pmix_proc_t me;
	pmix_proc_t wild;
};

static bool pmix_value_long(const pmix_value_t *v, long *out)
{
	switch (v->type) {
	case PMIX_INT: *out = v->data.integer; return true;
	case PMIX_INT8: *out = v->data.int8; return true;
	case PMIX_INT16: *out = v->data.int16; return true;
	case PMIX_INT32: *out = v->data.int32; return true;
	case PMIX_INT64: *out = (long)v->data.int64; return true;
	case PMIX_UINT: *out = (long)v->data.uint; return true;
	case PMIX_UINT8: *out = v->data.uint8; return true;
	case PMIX_UINT16: *out = v->data.uint16; return true;
	case PMIX_UINT32: *out = (long)v->data.uint32; return true;
	case PMIX_UINT64: *out = (long)v->data.uint64; return true;
	case PMIX_SIZE: *out = (long)v->data.size; return true;
	case PMIX_PROC_RANK: *out = (long)v->data.rank; return true;
	default: return false;
	}
}

static int pmix_get_long(const pmix_proc_t *p, const char *key, long *out)
{
	pmix_value_t *v = NULL;
	pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
	bool ok;

	if (rc != PMIX_SUCCESS || !v)
		return RC_ERR_BOOT;
	ok = pmix_value_long(v, out);
	PMIX_VALUE_RELEASE(v);
	return ok ? RC_OK : RC_ERR_BOOT;
}

static char *pmix_get_string(const pmix_proc_t *p, const char *key)
{
	pmix_value_t *v = NULL;
	char *s = NULL;

	if (PMIx_Get(p, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
		return NULL;
	if (v->type == PMIX_STRING && v->data.string)
		s = strdup(v->data.string);
	PMIX_VALUE_RELEASE(v);
	return s;
}

static int parse_peers(const char *list, struct rc_boot_info *info)
{
	const char *p = list;
	int n = 1, i = 0;

	for (; *p; p++)
		n += *p == ',';
	info->local_peers = calloc(n, sizeof(int));
	if (!info->local_peers)
		return RC_ERR_NOMEM;
	for (p = list; *p && i < n; i++) {
		char *end;

		info->local_peers[i] = (int)strtol(p, &end, 10);
		p = *end == ',' ? end + 1 : end;
	}
	info->local_size = i;
	return RC_OK;
}

/*
 * After a failed PMIx_Init: connect once more to the server's TCP address
 * from the environment (tcp4 only) and say what it did, which libpmix
 * does not: refused (no server there), accepted and said nothing within
 * 0.1 s, or accepted and closed at once (it turned this process away
 * before any handshake; libpmix closes the connection of a rank it does
 * not know). Empty when there is no such address. True when the server
 * accepted the connection: it is alive.
 */
static bool server_probe(char *out, size_t len)
{
	const char *uri = getenv("PMIX_SERVER_URI4");
	struct sockaddr_in sa = {.sin_family = AF_INET};
	struct pollfd pfd = {.events = POLLIN};
	char host[INET_ADDRSTRLEN], c;
	const char *p;
	unsigned port;
	bool alive = false;
	ssize_t n;

	out[0] = 0;
	p = uri ? strstr(uri, "tcp4://") : NULL;
	if (!p || sscanf(p + 7, "%15[0-9.]:%u", host, &port) != 2 ||
	    port > 65535 || inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return false;
	sa.sin_port = htons((uint16_t)port);
	pfd.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (pfd.fd < 0)
		return false;
	if (connect(pfd.fd, (struct sockaddr *)&sa, sizeof(sa))) {
		snprintf(out, len, "; the server's address %s:%u: %s", host,
			 port, strerror(errno));
		goto out;
	}
	alive = true;
	/* the server reads our handshake first: silence means it is alive */
	if (poll(&pfd, 1, 100) <= 0) {
		snprintf(out, len, "; the server at %s:%u accepts connections",
			 host, port);
		goto out;
	}
	n = recv(pfd.fd, &c, 1, MSG_DONTWAIT);
	snprintf(out, len, "; the server at %s:%u accepts connections but %s",
		 host, port, n == 0 ? "closed this one" : "reset this one");
out:
	close(pfd.fd);
	return alive;
}

/* This program's arguments as it was started, from /proc; NULL-ended,
 * pointing into *buf. */
static char **boot_cmdline(char **buf)
{
	size_t len, n = 0, i;
	char **argv;

	*buf = rc_proc_cmdline(&len);
	for (i = 0; i < len; i++)
		n += !(*buf)[i];
	/* +2: the last argument may lack its NUL; the NULL at the end */
	argv = len ? calloc(n + 2, sizeof(*argv)) : NULL;
	if (!argv) {
		free(*buf);
		*buf = NULL;
		return NULL;
	}
	for (i = 0, n = 0; i < len; i += strlen(*buf + i) + 1)
		argv[n++] = *buf + i;
	return argv;
}

/* Run this program again. The path /proc/self/exe names is taken first:
 * under valgrind, /proc/self/exe itself is valgrind's tool, while
 * readlink gives the program's own path. */
static void boot_exec(char **argv)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n > 0) {
		path[n] = 0;
		execv(path, argv);
	}
	execv("/proc/self/exe", argv);
}

/*
 * libpmix 4.2.2 connects once per process: a PMIx_Init after a failed
 * one reads the singleton's job data, and one after PMIx_Finalize
 * crashes. So a rank that a live server turned away starts its program
 * again from the top: the same executable, arguments and environment and
 * the same pid (the launcher still knows it), up to RCMPI_BOOT_RETRIES
 * times, waiting 0.1, 0.2, 0.4, then 0.8 s first. Output the program
 * buffered is dropped; it writes it again. Returns when it does not start
 * again.
 * (Seen in CI: once in hundreds of jobs, ranks of one job turned away by
 * rcmpi's own launcher, cause not found; a late registration does the
 * same, test/integ/late_server.c.)
 */
static void boot_again(const char *err, const char *why)
{
	long tries = rc_param_int(RC_P_BOOT_TRY);
	long max = rc_param_int(RC_P_BOOT_RETRIES);
	struct timespec ts;
	char **argv, *buf, num[24];

	if (tries >= max)
		return;
	argv = boot_cmdline(&buf);
	if (!argv)
		return;
	rc_log_warn("PMIx_Init failed: %s%s; starting the program again "
		    "(%ld of %ld)",
		    err, why, tries + 1, max);
	snprintf(num, sizeof(num), "%ld", tries + 1);
	setenv("RCMPI_BOOT_TRY", num, 1);
	ts.tv_sec = 0; /* (0.8 s at most) */
	ts.tv_nsec = 100000000L << (tries < 3 ? tries : 3);
	nanosleep(&ts, NULL);
	boot_exec(argv);
	rc_log_warn("cannot start the program again: %s", strerror(errno));
	free(argv);
	free(buf);
}

static int boot_pmix_init(struct rc_boot *b, struct rc_boot_info *info)
{
	struct boot_pmix *bp;
	pmix_status_t rc;
	long size, val;
	char *peers;
	int ret;

	/* No server in the environment: don't let libpmix search for one. */
	if (!getenv("PMIX_NAMESPACE") && !getenv("PMIX_SERVER_URI4") &&
	    !getenv("PMIX_SERVER_URI3") && !getenv("PMIX_SERVER_URI2") &&
	    !getenv("PMIX_SERVER_URI21") && !getenv("PMIX_SERVER_URI41"))
		return RC_ERR_UNREACH;

	bp = calloc(1, sizeof(*bp));
	if (!bp)
		return RC_ERR_NOMEM;
	rc = PMIx_Init(&bp->me, NULL, 0);
	if (rc != PMIX_SUCCESS) {
		char why[160];

		if (server_probe(why, sizeof(why)) && rc == PMIX_ERR_UNREACH)
			boot_again(PMIx_Error_string(rc), why);
		rc_log_err("PMIx_Init failed: %s (is the launcher alive? "
			   "PMIX_MCA_ptl_base_verbose=8 says why)%s",
			   PMIx_Error_string(rc), why);
		free(bp);
		return RC_ERR_BOOT;
	}
	/* (a restart's count is not for what this program starts) */
	if (getenv("RCMPI_BOOT_TRY"))
		unsetenv("RCMPI_BOOT_TRY");
	PMIX_LOAD_PROCID(&bp->wild, bp->me.nspace, PMIX_RANK_WILDCARD);
	b->priv = bp;

	/* The job size, not UNIV_SIZE (Open MPI sets that to the slots). */
	if (pmix_get_long(&bp->wild, PMIX_JOB_SIZE, &size) &&
	    pmix_get_long(&bp->wild, PMIX_UNIV_SIZE, &size)) {
		rc_log_err("PMIx server provided no job size");
		ret = RC_ERR_BOOT;
		goto err_fini;
	}
	info->rank = (int)bp->me.rank;
	info->size = (int)size;
	info->universe_size = (int)size;
	if (!pmix_get_long(&bp->wild, PMIX_UNIV_SIZE, &val) && val >= size)
		info->universe_size = (int)val;
	snprintf(info->nspace, sizeof(info->nspace), "%s", bp->me.nspace);

	peers = pmix_get_string(&bp->wild, PMIX_LOCAL_PEERS);
	if (peers) {
		ret = parse_peers(peers, info);
		free(peers);
		if (ret)
			goto err_fini;
	} else {
		info->local_peers = calloc(1, sizeof(int));
		if (!info->local_peers) {
			ret = RC_ERR_NOMEM;
			goto err_fini;
		}
		info->local_peers[0] = info->rank;
		info->local_size = 1;
	}
	info->local_rank = 0;
	if (!pmix_get_long(&bp->me, PMIX_LOCAL_RANK, &val))
		info->local_rank = (int)val;
	info->singleton = false;
	return RC_OK;

err_fini:
	PMIx_Finalize(NULL, 0);
	free(bp);
	b->priv = NULL;
	return ret;
}

static int boot_pmix_put(struct rc_boot *b, const void *blob, size_t len)
{
	pmix_value_t v;
	pmix_status_t rc;

	PMIX_VALUE_CONSTRUCT(&v);
	v.type = PMIX_BYTE_OBJECT;
	v.data.bo.bytes = (char *)blob;
	v.data.bo.size = len;
	rc = PMIx_Put(PMIX_GLOBAL, RC_PMIX_KEY, &v);
	if (rc != PMIX_SUCCESS) {
		rc_log_err("PMIx_Put(%s): %s", RC_PMIX_KEY, PMIx_Error_string(rc));
		return RC_ERR_BOOT;
	}
	rc = PMIx_Commit();
	if (rc != PMIX_SUCCESS) {
		rc_log_err("PMIx_Commit: %s", PMIx_Error_string(rc));
		return RC_ERR_BOOT;
	}
	return RC_OK;
}

static int boot_pmix_fence(struct rc_boot *b, bool collect)
{
	pmix_info_t info;
	bool flag = true;
	pmix_status_t rc;

	if (collect) {
		PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
		rc = PMIx_Fence(NULL, 0, &info, 1);
		PMIX_INFO_DESTRUCT(&info);
	} else {
		rc = PMIx_Fence(NULL, 0, NULL, 0);
	}
	if (rc != PMIX_SUCCESS) {
		rc_log_err("PMIx_Fence: %s", PMIx_Error_string(rc));
		return RC_ERR_BOOT;
	}
	return RC_OK;
}

/* (PMIx's progress thread) */
static void boot_pmix_fenced(pmix_status_t status, void *cbdata)
{
	__atomic_store_n((int *)cbdata, status == PMIX_SUCCESS ? 1 : -1,
			 __ATOMIC_RELEASE);
}

static int boot_pmix_fence_start(struct rc_boot *b, int *done)
{
	pmix_status_t rc;

	*done = 0;
	rc = PMIx_Fence_nb(NULL, 0, NULL, 0, boot_pmix_fenced, done);
	if (rc != PMIX_SUCCESS) {
		rc_log_err("PMIx_Fence_nb: %s", PMIx_Error_string(rc));
		return RC_ERR_BOOT;
	}
	return RC_OK;
}

static int boot_pmix_get(struct rc_boot *b, int rank, void **blob,
			 size_t *len)
{
	struct boot_pmix *bp = b->priv;
	pmix_proc_t peer;
	pmix_value_t *v = NULL;
	pmix_status_t rc;
	void *copy;

	PMIX_LOAD_PROCID(&peer, bp->me.nspace, (pmix_rank_t)rank);
	rc = PMIx_Get(&peer, RC_PMIX_KEY, NULL, 0, &v);
	if (rc != PMIX_SUCCESS || !v) {
		rc_log_err("PMIx_Get(rank %d, %s): %s", rank, RC_PMIX_KEY,
			   PMIx_Error_string(rc));
		return RC_ERR_BOOT;
	}
	if (v->type != PMIX_BYTE_OBJECT) {
		PMIX_VALUE_RELEASE(v);
		return RC_ERR_BOOT;
	}
	copy = malloc(v->data.bo.size ? v->data.bo.size : 1);
	if (!copy) {
		PMIX_VALUE_RELEASE(v);
		return RC_ERR_NOMEM;
	}
	memcpy(copy, v->data.bo.bytes, v->data.bo.size);
	*blob = copy;
	*len = v->data.bo.size;
	PMIX_VALUE_RELEASE(v);
	return RC_OK;
}

static void boot_pmix_abort(struct rc_boot *b, int code, const char *msg)
{
	/* The server kills every rank, us included; don't outlive it. */
	PMIx_Abort(code, msg ? msg : "MPI job aborted", NULL, 0);
	_exit(code ? code : 1);
}

static void boot_pmix_fini(struct rc_boot *b)
{
	if (!b->priv)
		return;
	PMIx_Finalize(NULL, 0);
	free(b->priv);
	b->priv = NULL;
}

const struct rc_boot_ops rc_boot_pmix_ops = {
	.name = "pmix",
	.init = boot_pmix_init,
	.put = boot_pmix_put,
	.fence = boot_pmix_fence,
	.fence_start = boot_pmix_fence_start,
	.get = boot_pmix_get,
	.abort = boot_pmix_abort,
	.fini = boot_pmix_fini,
};
