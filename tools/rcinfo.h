/*
 * rcinfo.h - rcmpi_info's probes and report, as a library so that unit
 * tests can drive them (fake verbs, a fake /proc and /sys).
 *
 * Probes read the system under a root prefix: "" for the real one, or the
 * folder in RCMPI_TEST_ROOT (tests only) holding proc/sys/kernel/yama/
 * ptrace_scope, dev/shm and sys/class/infiniband. Limits and capabilities
 * are the process's own (getrlimit, /proc/self/status).
 */
#ifndef RC_INFO_H
#define RC_INFO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* one finding: usable or not, why, and what to do about it */
struct rc_finding {
	bool ok;
	char what[256]; /* what was found (always) */
	char why[512];	/* not ok: the cause */
	char fix[512];	/* not ok: the remedy, "" if none */
};

/* /dev/shm: exists, a directory, writable, enough free space */
struct rc_shm_state {
	bool exists, isdir, writable;
	unsigned long long free_bytes;
};
void rc_info_shm_judge(const struct rc_shm_state *s, const char *path,
		       struct rc_finding *f);
void rc_info_probe_shm(const char *root, struct rc_finding *f);

/* CMA (process_vm_readv between ranks): Yama's ptrace_scope (-1: no
 * Yama), RCMPI_SHM_CMA, and where the root is the real one, a live try */
void rc_info_cma_judge(int ptrace_scope, bool disabled, int live_errno,
		       struct rc_finding *f);
void rc_info_probe_cma(const char *root, struct rc_finding *f);

/* the locked-memory limit (RLIM_INFINITY: unlimited) and CAP_IPC_LOCK */
void rc_info_memlock_judge(unsigned long long limit, bool cap_ipc_lock,
			   struct rc_finding *f);
void rc_info_probe_memlock(struct rc_finding *f);

/* TCP: the address the transport would listen on (RCMPI_TCP_IF) */
void rc_info_probe_tcp(struct rc_finding *f);

enum rc_info_section {
	RC_INFO_BUILD = 1,
	RC_INFO_TRANSPORTS = 2,
	RC_INFO_DEVICES = 4,
	RC_INFO_PARAMS = 8,
	RC_INFO_ALL = 15,
};

/* The report: sections (RC_INFO_*), human-readable or "key:value" lines.
 * params: names to show (NULL: all). Returns 0, or 1 if a named parameter
 * does not exist. */
int rc_info_report(FILE *out, const char *root, unsigned sections,
		   bool parsable, char *const *params, int nparams);

#endif
