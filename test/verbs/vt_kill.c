/*
 * vt_kill.c - a rank dies in the middle of rendezvous transfers: rank 0
 * streams 4 MiB messages to rank 1 (and back), rank 1 kills itself with
 * SIGKILL after a few. The job must end with a message, never hang (the
 * suite bounds it); rank 0 sees its transfer fail through the QP's
 * retry limit or is ended by the launcher, whichever comes first.
 *
 *   vt_kill [iterations before the kill] (default 3)
 */
#include <signal.h>
#include "vt_common.h"

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 3, i;
	size_t len = 4 << 20;
	char *b;

	vt_init(&argc, &argv);
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
