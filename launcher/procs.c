/*
 * procs.c - starting, binding, signalling and reaping the local ranks.
 *
 * The launcher is multi-threaded (libpmix runs its own progress thread),
 * so everything a child needs is prepared before fork(): the resolved
 * path, argv, the full environment, the CPU mask, the pipes and the
 * error text. Between fork() and execve() the child makes only
 * async-signal-safe calls: restore the signal mask and SIGPIPE,
 * setpgid (each rank leads its own process group, so a signal reaches
 * whatever the rank started too, and the terminal's ^C reaches only
 * mpirun, which forwards it), PR_SET_PDEATHSIG (ranks die with a
 * launcher killed by SIGKILL; a launch agent gets SIGTERM, so that a
 * daemon can still clean up), sched_setaffinity, dup2, execve.
 *
 * Signals the launcher handles are blocked in every thread from the start
 * (rc_procs_signals_setup, called before libpmix creates threads) and read
 * from a signalfd by the main loop; children get the original mask back.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher.h"

static sigset_t procs_origmask;
static int procs_devnull = -1;
static bool procs_keep_sighup_ign;	/* started under nohup */

int rc_cpus_allowed(int **cpus)
{
	cpu_set_t *set;
	size_t size;
	int ncpu = 1024, i, n = 0;
	int *list;

	/* masks larger than 1024 CPUs: grow until the kernel accepts */
	for (;;) {
		set = CPU_ALLOC(ncpu);
		if (!set)
			return -1;
		size = CPU_ALLOC_SIZE(ncpu);
		CPU_ZERO_S(size, set);
		if (!sched_getaffinity(0, size, set))
			break;
		CPU_FREE(set);
		if (errno != EINVAL || ncpu >= 1 << 20)
			return -1;
		ncpu *= 2;
	}
	list = malloc(sizeof(*list) * CPU_COUNT_S(size, set));
	if (!list) {
		CPU_FREE(set);
		return -1;
	}
	for (i = 0; i < ncpu; i++)
		if (CPU_ISSET_S(i, size, set))
			list[n++] = i;
	CPU_FREE(set);
	*cpus = list;
	return n;
}

static bool procs_is_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return false;
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EACCES;
		return false;
	}
	return access(path, X_OK) == 0;
}

char *rc_resolve_prog(const char *prog)
{
	const char *path, *p, *end;
	char buf[PATH_MAX], *abs;
	int saved = ENOENT;
	size_t dl;

	if (strchr(prog, '/')) {
		if (!procs_is_exec(prog))
			return NULL;
		abs = realpath(prog, NULL);
		return abs ? abs : strdup(prog);
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = end + 1) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		dl = (size_t)(end - p);
		/* an empty element means the current directory */
		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)dl,
			     dl ? p : ".", "/", prog) < (int)sizeof(buf)) {
			if (procs_is_exec(buf))
				return strdup(buf);
			if (errno != ENOENT && errno != ENOTDIR)
				saved = errno;
		}
		if (!*end)
			break;
	}
	errno = saved;
	return NULL;
}

bool rc_procs_sighup_ignored(void)
{
	return procs_keep_sighup_ign;
}

int rc_procs_signals_setup(const int *sigs, int nsigs)
{
	struct sigaction sa;
	sigset_t set;
	int i;

	memset(&sa, 0, sizeof(sa));
	if (!sigaction(SIGHUP, NULL, &sa) && sa.sa_handler == SIG_IGN)
		procs_keep_sighup_ign = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	/* a closed stdout must not kill the launcher: write() says EPIPE */
	sigaction(SIGPIPE, &sa, NULL);
	/* a background launcher reading a terminal gets EIO, not stopped */
	sigaction(SIGTTIN, &sa, NULL);
	sigemptyset(&set);
	for (i = 0; i < nsigs; i++)
		sigaddset(&set, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &set, &procs_origmask))
		return -1;
	procs_devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	return procs_devnull < 0 ? -1 : 0;
}

/* async-signal-safe write of a few strings */
static void procs_say(int fd, const char *const *parts)
{
	for (; *parts; parts++) {
		size_t len = strlen(*parts);
		ssize_t n;

		while (len) {
			n = write(fd, *parts, len);
			if (n <= 0)
				return;
			len -= (size_t)n;
		}
	}
}

static void procs_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int rc_procs_spawn(struct rc_lproc *p, const char *path, char *const argv[],
		   bool want_stdin)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
	struct sigaction dfl;
	cpu_set_t *mask = NULL;
	size_t masksize = 0;
	pid_t parent = getpid(), pid;
	char rankstr[64], **sh_argv;
	int i, argc = 0;

	/* "rank N", or what else this is (a launch agent) */
	if (p->label)
		snprintf(rankstr, sizeof(rankstr), "%s", p->label);
	else
		snprintf(rankstr, sizeof(rankstr), "rank %d", p->rank);
	if (p->ncpus > 0) {
		int top = p->cpus[p->ncpus - 1] + 1;

		mask = CPU_ALLOC(top);
		if (!mask) {
			rc_lerr("cannot start %s: out of memory", rankstr);
			return -1;
		}
		masksize = CPU_ALLOC_SIZE(top);
		CPU_ZERO_S(masksize, mask);
		for (i = 0; i < p->ncpus; i++)
			CPU_SET_S(p->cpus[i], masksize, mask);
	}
	/* execvp's fallback for scripts without "#!": run them with sh */
	while (argv[argc])
		argc++;
	sh_argv = calloc(argc + 2, sizeof(*sh_argv));
	if (!sh_argv) {
		rc_lerr("cannot start %s: out of memory", rankstr);
		goto err_mask;
	}
	sh_argv[0] = "/bin/sh";
	sh_argv[1] = (char *)path;
	for (i = 1; i < argc; i++)
		sh_argv[i + 1] = argv[i];
	if (want_stdin && pipe2(in, O_CLOEXEC))
		goto err_pipes;
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		goto err_pipes;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;

	pid = fork();
	if (pid < 0)
		goto err_pipes;
	if (pid == 0) {
		const char *msg[] = { rc_progname, ": error: ", rankstr,
				      ": cannot execute ", path, ": ", NULL,
				      "\n", NULL };

		/*
		 * Fresh dispositions: a shell without job control starts
		 * background commands with SIGINT and SIGQUIT ignored, and
		 * ranks must die of the signals we forward. nohup is kept.
		 */
		for (i = 1; i < NSIG; i++)
			if (i != SIGKILL && i != SIGSTOP &&
			    !(i == SIGHUP && procs_keep_sighup_ign))
				sigaction(i, &dfl, NULL);
		sigprocmask(SIG_SETMASK, &procs_origmask, NULL);
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, p->deathsig ? p->deathsig : SIGKILL);
		if (getppid() != parent)
			_exit(127);
		if (mask)
			sched_setaffinity(0, masksize, mask);
		if (dup2(want_stdin ? in[0] : procs_devnull, 0) < 0 ||
		    dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
			_exit(127);
		execve(path, argv, p->env);
		if (errno == ENOEXEC)
			execve(sh_argv[0], sh_argv, p->env);
		msg[6] = strerrordesc_np(errno);
		if (!msg[6])
			msg[6] = "error";
		procs_say(2, msg);
		_exit(127);
	}
	/* both sides set the group: no window where a signal misses it */
	setpgid(pid, pid);
	free(sh_argv);
	if (mask)
		CPU_FREE(mask);
	p->pid = pid;
	p->alive = true;
	procs_close(&in[0]);
	procs_close(&out[1]);
	procs_close(&err[1]);
	p->fd_in = in[1];
	p->fd_out = out[0];
	p->fd_err = err[0];
	if (p->fd_in >= 0)
		fcntl(p->fd_in, F_SETFL, O_NONBLOCK);
	fcntl(p->fd_out, F_SETFL, O_NONBLOCK);
	fcntl(p->fd_err, F_SETFL, O_NONBLOCK);
	return 0;

err_pipes:
	rc_lerr("cannot start %s: %s", rankstr, strerror(errno));
	procs_close(&in[0]);
	procs_close(&in[1]);
	procs_close(&out[0]);
	procs_close(&out[1]);
	procs_close(&err[0]);
	procs_close(&err[1]);
	free(sh_argv);
err_mask:
	if (mask)
		CPU_FREE(mask);
	return -1;
}

void rc_procs_kill(struct rc_lproc *p, int sig)
{
	if (p->pid <= 0)
		return;
	/* the group outlives its leader while the rank's children live */
	if (kill(-p->pid, sig) && p->alive)
		kill(p->pid, sig);
}

pid_t rc_procs_reap(int *wstatus)
{
	pid_t pid;

	do {
		pid = waitpid(-1, wstatus, WNOHANG);
	} while (pid < 0 && errno == EINTR);
	return pid < 0 ? 0 : pid;
}

void rc_wait_str(int ws, char *out, size_t len)
{
	if (WIFSIGNALED(ws))
		snprintf(out, len, "was killed by signal %d", WTERMSIG(ws));
	else
		snprintf(out, len, "exited with status %d", WEXITSTATUS(ws));
}
