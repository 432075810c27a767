/*
 * vt_kill.c - a rank dies in the middle of transfers.
 *
 *   vt_kill [N]   rank 0 and rank 1 bounce 4 MiB messages; rank 1 kills
 *                 itself with SIGKILL before round N (default 3). The job
 *                 must end with a message, never hang.
 *   vt_kill mid   rank 1 posts a 256 MiB receive and dies 0.3 s later, in
 *                 the middle of rank 0's RDMA WRITEs (run with
 *                 RCMPI_RNDV_MODE=put): rank 0's writes must fail on the
 *                 QP's retry limit and end the job with a message naming
 *                 both ranks and the completion status, even when the
 *                 launcher has not noticed the death.
 *   vt_kill mid-return   the same under MPI_ERRORS_RETURN: rank 0's
 *                 MPI_Send returns MPI_ERR_PROC_FAILED (no hang, no abort
 *                 from inside the library); rank 0 reports it and calls
 *                 MPI_Abort(3).
 */
#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include "vt_common.h"

static int mid(bool ret)
{
	size_t len = 256 << 20;
	char *b = malloc(len);
	MPI_Request rq;

	memset(b, 1, len);
	/* connected before anyone dies (on-demand wirings connect on first
	 * use): what fails is the writes, not a handshake */
	MPI_Barrier(MPI_COMM_WORLD);
	if (vt_rank == 0) {
		int rc, cls = -1;

		if (ret)
			MPI_Comm_set_errhandler(MPI_COMM_WORLD,
						MPI_ERRORS_RETURN);
		rc = MPI_Send(b, (int)len, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
		MPI_Error_class(rc, &cls);
		if (ret && cls == MPI_ERR_PROC_FAILED) {
			printf("vt: kill: rank 0 got MPI_ERR_PROC_FAILED\n");
			fflush(stdout);
			MPI_Abort(MPI_COMM_WORLD, 3);
		}
		printf("vt: kill: rank 0 finished its send (class %d)\n", cls);
	} else if (vt_rank == 1) {
		struct timespec t = {0, 300000000};

		MPI_Irecv(b, (int)len, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &rq);
		/* answer the RTS, then die while the writes stream in */
		while (t.tv_nsec > 0) {
			int flag;

			MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
			nanosleep(&(struct timespec){0, 1000000}, NULL);
			t.tv_nsec -= 1000000;
		}
		printf("vt: kill: rank 1 dies now\n");
		fflush(stdout);
		raise(SIGKILL);
	}
	MPI_Finalize();
	return 0;
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 3, i;
	size_t len = 4 << 20;
	char *b;

	vt_init(&argc, &argv);
	if (argc > 1 && !strcmp(argv[1], "mid"))
		return mid(false);
	if (argc > 1 && !strcmp(argv[1], "mid-return"))
		return mid(true);
	b = malloc(len);
	memset(b, 1, len);
	for (i = 0; i < 1000000; i++) {
		if (vt_rank == 1 && i == k) {
			printf("vt: kill: rank 1 dies now\n");
			fflush(stdout);
			raise(SIGKILL);
		}
		if (vt_rank == 0) {
			MPI_Send(b, (int)len, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(b, (int)len, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else if (vt_rank == 1) {
			MPI_Recv(b, (int)len, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(b, (int)len, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
		}
	}
	printf("vt: kill: rank %d survived\n", vt_rank);
	MPI_Finalize();
	return 0;
}
