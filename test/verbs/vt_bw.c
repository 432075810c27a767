/*
 * vt_bw.c - streaming bandwidth from rank 0 to rank 1, OSU style: a window
 * of nonblocking sends, one small acknowledgement per window, repeated.
 * Plain MPI: also built with Open MPI's mpicc for side-by-side runs.
 *
 *   vt_bw [size [window [loops]]]   (default 1 MiB, 64, 5; prints
 *                                    "bw SIZE MB/s")
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int size = argc > 1 ? atoi(argv[1]) : 1 << 20;
	int win = argc > 2 ? atoi(argv[2]) : 64;
	int loops = argc > 3 ? atoi(argv[3]) : 5;
	int rank, i, l, ack = 0;
	MPI_Request *rq;
	double t0 = 0;
	char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	rq = malloc(sizeof(*rq) * win);
	buf = malloc((size_t)size);
	memset(buf, 1, (size_t)size);
	for (l = 0; l < loops + 1; l++) {
		if (l == 1)
			t0 = MPI_Wtime(); /* the first window warms up */
		if (rank == 0) {
			for (i = 0; i < win; i++)
				MPI_Isend(buf, size, MPI_BYTE, 1, 2,
					  MPI_COMM_WORLD, &rq[i]);
			MPI_Waitall(win, rq, MPI_STATUSES_IGNORE);
			MPI_Recv(&ack, 1, MPI_INT, 1, 3, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			for (i = 0; i < win; i++)
				MPI_Irecv(buf, size, MPI_BYTE, 0, 2,
					  MPI_COMM_WORLD, &rq[i]);
			MPI_Waitall(win, rq, MPI_STATUSES_IGNORE);
			MPI_Send(&ack, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("bw %d %.2f\n", size,
		       (double)size * win * loops / (MPI_Wtime() - t0) / 1e6);
	free(buf);
	free(rq);
	MPI_Finalize();
	return 0;
}
