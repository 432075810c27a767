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
 * Other ranks wait to be ended.
 */
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>
#include "jobs.h"

int main(int argc, char **argv)
{
	bool ret = argc > 1 && !strcmp(argv[1], "return");
	size_t len = 4 << 20;
	int rank, size, i, rc = MPI_SUCCESS;
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
		fflush(stdout);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	for (;;)
		sleep(1);
}
