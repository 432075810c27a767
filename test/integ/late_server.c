/*
 * late_server.c - a PMIx server that starts one rank before it registers
 * the rank as a client with its PMIx library (after DELAY ms; the
 * namespace is registered first, as setup_fork needs it). Until then the
 * library closes the rank's connection, which the rank's PMIx_Init reports
 * as UNREACHABLE: a server that turns its rank away.
 *
 *	late_server DELAY_MS program [args...]
 *
 * Exits with the program's status (128 + signal when killed).
 */
#include <pmix_server.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile int done;

static void op_done(pmix_status_t status, void *cbdata)
{
	(void)cbdata;
	done = status == PMIX_SUCCESS ? 1 : -1;
}

static int wait_op(pmix_status_t rc)
{
	if (rc == PMIX_OPERATION_SUCCEEDED)
		return 0;
	if (rc != PMIX_SUCCESS)
		return -1;
	while (!done)
		usleep(1000);
	return done == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	pmix_server_module_t module;
	pmix_info_t info[6];
	char *nodemap = NULL, *procmap = NULL;
	pmix_nspace_t ns;
	pmix_proc_t proc;
	uint32_t one = 1;
	char **env = NULL, host[256];
	struct timespec ts;
	long delay;
	pid_t pid;
	int st, n, i;

	if (argc < 3) {
		fprintf(stderr, "usage: late_server DELAY_MS program [args]\n");
		return 2;
	}
	delay = atol(argv[1]);
	memset(&module, 0, sizeof(module));
	if (PMIx_server_init(&module, NULL, 0) != PMIX_SUCCESS) {
		fprintf(stderr, "late_server: PMIx_server_init failed\n");
		return 2;
	}
	PMIX_LOAD_NSPACE(ns, "late");
	PMIX_LOAD_PROCID(&proc, ns, 0);
	gethostname(host, sizeof(host));
	PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &one, PMIX_UINT32);
	PMIX_INFO_LOAD(&info[1], PMIX_LOCAL_SIZE, &one, PMIX_UINT32);
	PMIX_INFO_LOAD(&info[2], PMIX_LOCAL_PEERS, "0", PMIX_STRING);
	PMIX_INFO_LOAD(&info[3], PMIX_HOSTNAME, host, PMIX_STRING);
	if (PMIx_generate_regex(host, &nodemap) != PMIX_SUCCESS ||
	    PMIx_generate_ppn("0", &procmap) != PMIX_SUCCESS) {
		fprintf(stderr, "late_server: PMIx_generate_regex failed\n");
		return 2;
	}
	PMIX_INFO_LOAD(&info[4], PMIX_NODE_MAP, nodemap, PMIX_STRING);
	PMIX_INFO_LOAD(&info[5], PMIX_PROC_MAP, procmap, PMIX_STRING);
	done = 0;
	if (wait_op(PMIx_server_register_nspace(ns, 1, info, 6, op_done,
						NULL))) {
		fprintf(stderr, "late_server: register_nspace failed\n");
		return 2;
	}
	/* the rank gets this environment and what setup_fork adds */
	for (n = 0; environ[n]; n++)
		;
	env = calloc((size_t)n + 1, sizeof(*env));
	for (i = 0; env && i < n; i++)
		env[i] = strdup(environ[i]);
	if (!env || PMIx_server_setup_fork(&proc, &env) != PMIX_SUCCESS) {
		fprintf(stderr, "late_server: PMIx_server_setup_fork failed\n");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		execve(argv[2], argv + 2, env);
		perror("late_server: execve");
		_exit(127);
	}
	for (i = 0; env[i]; i++)
		free(env[i]);
	free(env);
	ts.tv_sec = delay / 1000;
	ts.tv_nsec = delay % 1000 * 1000000L;
	nanosleep(&ts, NULL);
	done = 0;
	if (wait_op(PMIx_server_register_client(&proc, getuid(), getgid(), NULL,
						op_done, NULL))) {
		fprintf(stderr, "late_server: register_client failed\n");
		return 2;
	}
	free(nodemap);
	free(procmap);
	for (i = 0; i < 6; i++)
		PMIX_INFO_DESTRUCT(&info[i]);
	if (waitpid(pid, &st, 0) != pid)
		return 2;
	PMIx_server_finalize();
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
