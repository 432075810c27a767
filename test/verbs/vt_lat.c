/*
 * vt_lat.c - ping-pong latency between ranks 0 and 1, OSU style: one-way
 * latency = half the round trip, averaged over the timed iterations after
 * a warm-up. Plain MPI: also built with Open MPI's mpicc for side-by-side
 * runs.
 *
 *   vt_lat [size ...]     (bytes, default 8; prints "lat SIZE USEC")
 *   VT_ITERS=n            timed iterations (default 2000, 100 above 64 KiB)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, i, a, iters, warm;
	char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (a = 1; a < argc || a == 1; a++) {
		int size = argc > 1 ? atoi(argv[a]) : 8;
		double t0 = 0;

		iters = size > 65536 ? 100 : 2000;
		if (getenv("VT_ITERS"))
			iters = atoi(getenv("VT_ITERS"));
		warm = iters / 10;
		buf = malloc(size ? size : 1);
		memset(buf, 0, size ? size : 1);
		for (i = 0; i < iters + warm; i++) {
			if (i == warm)
				t0 = MPI_Wtime();
			if (rank == 0) {
				MPI_Send(buf, size, MPI_BYTE, 1, 1,
					 MPI_COMM_WORLD);
				MPI_Recv(buf, size, MPI_BYTE, 1, 1,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else if (rank == 1) {
				MPI_Recv(buf, size, MPI_BYTE, 0, 1,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(buf, size, MPI_BYTE, 0, 1,
					 MPI_COMM_WORLD);
			}
		}
		if (rank == 0)
			printf("lat %d %.2f\n", size,
			       (MPI_Wtime() - t0) * 1e6 / (2.0 * iters));
		free(buf);
	}
	MPI_Finalize();
	return 0;
}
