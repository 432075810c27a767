/*
 * thr_proc.c - the process around MPI (issue 14): threads created before
 * MPI_Init, signals that interrupt MPI calls, fork() after MPI_Init. What
 * README.md's "Thread support" promises for each, checked with data.
 *
 *	thr_proc [phase]	(default all: threads, signals, fork)
 *
 *   threads  two threads start before MPI_Init_thread(MULTIPLE) and wait;
 *            after it they exchange messages with the other ranks' threads
 *            and see MPI_Is_thread_main false (true in main).
 *   signals  an interval timer fires every 200 us, a handler installed
 *            without SA_RESTART, while ranks exchange messages of every
 *            protocol (eager, rendezvous by CMA or verbs, fragments) and
 *            run collectives and make 8 MiB shared windows: each call
 *            must finish with the right data, EINTR never reaching the
 *            program.
 *   fork     after MPI_Init each rank forks twice: a child that leaves
 *            with _exit, and one that runs exit() (atexit handlers and
 *            library destructors run in it), each after writing its copy
 *            of the parent's memory. The parent's MPI traffic before,
 *            while (from the buffers it used before the fork) and after
 *            is checked.
 *
 * Prints "OK <phase>, N ranks x 3 threads" on rank 0; MPI_Abort(99) on the first mismatch (jobs.h).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "jobs.h"

#define LEN (1 << 20)
#define NT 2
#define WIN_LEN (8 << 20)

static int rank, nranks;

/* Every size class to the right neighbour, from the left one, checked. */
static void ring_exchange(MPI_Comm c, int tag, int seed)
{
	static const int sizes[] = {0, 8, 4000, 70000, 300000, LEN};
	unsigned char *sb = malloc(LEN), *rb = malloc(LEN);
	int i, right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;

	CHECK(sb && rb, "malloc");
	for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
		MPI_Status st;
		size_t bad;
		int got;

		job_fill(sb, (size_t)sizes[i], seed + i * 10 + rank);
		CHECK_MPI(MPI_Sendrecv(sb, sizes[i], MPI_BYTE, right, tag, rb,
				       LEN, MPI_BYTE, left, tag, c, &st));
		MPI_Get_count(&st, MPI_BYTE, &got);
		CHECK(got == sizes[i], "size %d: got %d", sizes[i], got);
		bad = job_verify(rb, (size_t)got, seed + i * 10 + left);
		CHECK(bad == (size_t)-1, "size %d: byte %zu wrong", sizes[i],
		      bad);
	}
	free(sb);
	free(rb);
}

/* ---- threads created before MPI_Init ------------------------------------ */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int inited;
static MPI_Comm tcomm[NT];

static void *early_thread(void *arg)
{
	int t = (int)(long)arg, flag = -1;

	pthread_mutex_lock(&mu);
	while (!inited)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	if (inited < 0)
		return NULL; /* another phase */
	CHECK_MPI(MPI_Is_thread_main(&flag));
	CHECK(flag == 0, "a thread made before MPI_Init is main");
	ring_exchange(tcomm[t], 40 + t, 1000 * (t + 1));
	return NULL;
}

/* ---- signals ------------------------------------------------------------- */

static volatile sig_atomic_t ticks;

static void on_tick(int sig)
{
	(void)sig;
	ticks++;
}

static void signals_phase(void)
{
	struct sigaction sa;
	struct itimerval it = {{0, 200}, {0, 200}}, off = {{0, 0}, {0, 0}};
	long v, sum;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick; /* no SA_RESTART: syscalls see EINTR */
	sigemptyset(&sa.sa_mask);
	CHECK(!sigaction(SIGALRM, &sa, NULL), "sigaction");
	CHECK(!setitimer(ITIMER_REAL, &it, NULL), "setitimer");
	for (i = 0; i < 20; i++) {
		ring_exchange(MPI_COMM_WORLD, 50, 77 * i);
		v = rank + i;
		CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM,
					MPI_COMM_WORLD));
		CHECK(sum == (long)nranks * (nranks - 1) / 2 + (long)nranks * i,
		      "allreduce %ld", sum);
		CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	}
	/* a shared window: its segment is reserved while the timer fires */
	for (i = 0; i < 3; i++) {
		MPI_Aint sz;
		MPI_Win win;
		long *mine, *theirs;
		int du, k, left = (rank + nranks - 1) % nranks;

		CHECK_MPI(MPI_Win_allocate_shared(WIN_LEN, sizeof(long),
						  MPI_INFO_NULL, MPI_COMM_WORLD,
						  &mine, &win));
		CHECK_MPI(MPI_Win_fence(0, win));
		for (k = 0; k < WIN_LEN / (int)sizeof(long); k += 512)
			mine[k] = rank * 100000L + k + i;
		CHECK_MPI(MPI_Win_fence(0, win));
		CHECK_MPI(MPI_Win_shared_query(win, left, &sz, &du, &theirs));
		CHECK(sz == WIN_LEN, "window size %ld", (long)sz);
		for (k = 0; k < WIN_LEN / (int)sizeof(long); k += 512)
			CHECK(theirs[k] == left * 100000L + k + i,
			      "window word %d: %ld", k, theirs[k]);
		CHECK_MPI(MPI_Win_fence(0, win));
		CHECK_MPI(MPI_Win_free(&win));
	}
	CHECK(!setitimer(ITIMER_REAL, &off, NULL), "setitimer off");
	signal(SIGALRM, SIG_DFL);
	CHECK(ticks > 0, "the timer never fired");
}

/* ---- fork after MPI_Init ------------------------------------------------- */

static void fork_phase(void)
{
	unsigned char *buf = malloc(LEN), *rb = malloc(LEN);
	unsigned char *scratch = malloc(LEN);
	int how, right = (rank + 1) % nranks,
		 left = (rank + nranks - 1) % nranks;

	CHECK(buf && rb && scratch, "malloc");
	memset(scratch, 1, LEN);
	ring_exchange(MPI_COMM_WORLD, 60, 5);
	for (how = 0; how < 2; how++) {
		MPI_Request rq[2];
		pid_t pid;
		int status;
		size_t bad;

		/* the buffer has been sent from (registered or exposed) */
		job_fill(buf, LEN, 300 + rank + how);
		CHECK_MPI(MPI_Sendrecv(buf, LEN, MPI_BYTE, right, 61, rb, LEN,
				       MPI_BYTE, left, 61, MPI_COMM_WORLD,
				       MPI_STATUS_IGNORE));
		fflush(NULL);
		pid = fork();
		CHECK(pid >= 0, "fork: %s", strerror(errno));
		if (pid == 0) {
			/* the child writes its copy of the parent's memory
			 * (not what the parent communicated from: over verbs
			 * ibv_fork_init may leave registered pages out of the
			 * child) */
			memset(scratch, 0xee, LEN);
			if (how)
				exit(0);
			_exit(0);
		}
		/* traffic while the child lives, from the same buffers */
		job_fill(buf, LEN, 400 + rank + how);
		CHECK_MPI(MPI_Irecv(rb, LEN, MPI_BYTE, left, 62, MPI_COMM_WORLD,
				    &rq[0]));
		CHECK_MPI(MPI_Isend(buf, LEN, MPI_BYTE, right, 62,
				    MPI_COMM_WORLD, &rq[1]));
		CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
		bad = job_verify(rb, LEN, 400 + left + how);
		CHECK(bad == (size_t)-1, "after fork: byte %zu wrong", bad);
		CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child status %#x", status);
		ring_exchange(MPI_COMM_WORLD, 63, 500 + how);
		CHECK(scratch[0] == 1 && scratch[LEN - 1] == 1,
		      "the child wrote the parent's memory");
	}
	free(scratch);
	free(buf);
	free(rb);
}

int main(int argc, char **argv)
{
	const char *phase = argc > 1 ? argv[1] : "all";
	int all = !strcmp(phase, "all"), provided, flag = -1, t;
	pthread_t th[NT];

	/* threads before MPI_Init: they start now and wait for it */
	for (t = 0; t < NT; t++)
		if (pthread_create(&th[t], NULL, early_thread, (void *)(long)t))
			return 2;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	CHECK_MPI(MPI_Is_thread_main(&flag));
	CHECK(flag == 1, "the thread that called MPI_Init is not main");
	for (t = 0; t < NT; t++)
		CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]));
	pthread_mutex_lock(&mu);
	inited = all || !strcmp(phase, "threads") ? 1 : -1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (t = 0; t < NT; t++)
		CHECK(!pthread_join(th[t], NULL), "pthread_join");
	for (t = 0; t < NT; t++)
		CHECK_MPI(MPI_Comm_free(&tcomm[t]));

	if (all || !strcmp(phase, "signals"))
		signals_phase();
	if (all || !strcmp(phase, "fork"))
		fork_phase();
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	if (rank == 0)
		printf("OK %s, %d ranks x %d threads\n", phase, nranks, NT + 1);
	MPI_Finalize();
	return 0;
}
