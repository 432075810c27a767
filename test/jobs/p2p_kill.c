/*
 * p2p_kill.c - a rank dies in the middle of an exchange; the transport
 * must notice it on its own (run it behind a shell, `bash -c "p2p_kill;
 * sleep 60"`, so that the launcher does not see the death first).
 *
 *   p2p_kill          rank 0 and rank 1 bounce 4 MiB messages (rendezvous);
 *                     rank 1 dies (SIGKILL) before round 3. Rank 0's
 *                     transport ends the job, naming rank 1 and its host
 *                     (MPI_ERRORS_ARE_FATAL).
 *   p2p_kill return   the same under MPI_ERRORS_RETURN: rank 0's call
 *                     returns MPI_ERR_PROC_FAILED; rank 0 prints "rank 0
 *                     got MPI_ERR_PROC_FAILED" and calls MPI_Abort(3).
 *   p2p_kill silent CMD FILE
 *                     as return, but before round 3 rank 1 goes silent
 *                     instead of dying: a second after its last call it
 *                     runs CMD (a shell command that cuts its network,
 *                     e.g. a firewall rule dropping its TCP port; run by
 *                     a child, so $PPID is rank 1), creates FILE and sleeps
 *                     without MPI calls. Rank 0 waits for FILE, then only
 *                     receives from rank 1 (nothing of its own in flight):
 *                     only a keepalive can tell it the peer is gone. It
 *                     also prints how long after FILE its call returned.
 * Other ranks wait to be ended.
 */
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>
#include "jobs.h"

/* rank 1 of `silent`: cut the network, say so in FILE, never answer */
static void go_silent(const char *cmd, const char *file)
{
	FILE *f;

	sleep(1); /* the cut (p2p.test) also waits for its sends to be acked */
	CHECK(system(cmd) == 0, "silent: '%s' failed", cmd);
	f = fopen(file, "w");
	CHECK(f, "silent: cannot create %s", file);
	fclose(f);
	printf("p2p_kill: rank 1 is silent now\n");
	fflush(stdout);
	for (;;)
		sleep(1);
}

/* rank 0 of `silent`: FILE appears within a minute */
static double wait_silent(const char *file)
{
	struct stat st;
	int i;

	for (i = 0; i < 6000 && stat(file, &st); i++)
		usleep(10000);
	CHECK(i < 6000, "silent: %s never appeared", file);
	return MPI_Wtime();
}

int main(int argc, char **argv)
{
	bool silent = argc > 3 && !strcmp(argv[1], "silent");
	bool ret = silent || (argc > 1 && !strcmp(argv[1], "return"));
	size_t len = 4 << 20;
	int rank, size, i, rc = MPI_SUCCESS;
	double t_silent = 0;
	unsigned char *b;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(size >= 2, "needs 2 ranks");
	if (ret)
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	b = malloc(len);
	CHECK(b, "malloc");
	job_fill(b, len, 1);
	for (i = 0; rank < 2 && rc == MPI_SUCCESS; i++) {
		if (silent && i == 3) {
			if (rank == 1)
				go_silent(argv[2], argv[3]);
			t_silent = wait_silent(argv[3]);
			rc = MPI_Recv(b, (int)len, MPI_BYTE, 1, 0,
				      MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			CHECK(rc != MPI_SUCCESS, "silent: a message came");
			break;
		}
		if (rank == 1 && i == 3) {
			printf("p2p_kill: rank 1 dies now\n");
			fflush(stdout);
			raise(SIGKILL);
		}
		if (rank == 0) {
			rc = MPI_Send(b, (int)len, MPI_BYTE, 1, 0,
				      MPI_COMM_WORLD);
			if (rc == MPI_SUCCESS)
				rc = MPI_Recv(b, (int)len, MPI_BYTE, 1, 0,
					      MPI_COMM_WORLD,
					      MPI_STATUS_IGNORE);
		} else {
			rc = MPI_Recv(b, (int)len, MPI_BYTE, 0, 0,
				      MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (rc == MPI_SUCCESS)
				rc = MPI_Send(b, (int)len, MPI_BYTE, 0, 0,
					      MPI_COMM_WORLD);
		}
		CHECK(rc != MPI_SUCCESS || job_verify(b, len, 1) == (size_t)-1,
		      "round %d: data corrupted", i);
	}
	if (rank == 0) {
		printf("p2p_kill: rank 0 got %s\n",
		       job_class(rc) == MPI_ERR_PROC_FAILED
			       ? "MPI_ERR_PROC_FAILED"
			       : "another class");
		if (silent)
			printf("p2p_kill: %.0f ms after the peer went silent\n",
			       (MPI_Wtime() - t_silent) * 1e3);
		fflush(stdout);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	for (;;)
		sleep(1);
}
