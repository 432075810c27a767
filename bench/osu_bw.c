/*
 * osu_bw.c - point-to-point bandwidth from rank 0 to rank 1, as in the
 * OSU micro-benchmarks: per iteration a window of MPI_Isend (rank 0) and
 * MPI_Irecv (rank 1), MPI_Waitall, and a 4-byte acknowledgement back
 * (bench_common.h has the options; -W sets the window, default 64).
 * Without -c every message of a window lands in one buffer, as OSU does;
 * with -c each has its own (window x max bytes) and is checked.
 */
#include <mpi.h>
#include <stdlib.h>
#include "bench_common.h"

int main(int argc, char **argv)
{
	struct bench b = {0};
	size_t size, slot;
	char *sb, *rb, ack[4];
	MPI_Request *rq;
	int j;

	bench_init_p2p(&b, &argc, &argv, "Bandwidth (rank 0 to 1, window of "
		       "MPI_Isend/MPI_Irecv)", BENCH_BW, 2, 1, 0);
	slot = b.validate ? b.max : 0;
	sb = bench_alloc(b.max);
	rb = bench_alloc(b.max + slot * (size_t)(b.window - 1));
	rq = malloc(sizeof(*rq) * (size_t)b.window);
	for (size = b.min; size <= b.max; size = bench_next(size)) {
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size), i;
		int n = (int)size;
		double t0 = 0, t;

		MPI_Barrier(MPI_COMM_WORLD);
		for (i = 0; i < it + wu; i++) {
			if (i == wu)
				t0 = MPI_Wtime();
			if (b.rank == 0) {
				if (b.validate)
					bench_fill(sb, size, (unsigned)i);
				for (j = 0; j < b.window; j++)
					MPI_Isend(sb, n, MPI_CHAR, 1, 100,
						  MPI_COMM_WORLD, &rq[j]);
				MPI_Waitall(b.window, rq, MPI_STATUSES_IGNORE);
				MPI_Recv(ack, 4, MPI_CHAR, 1, 101,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				for (j = 0; j < b.window; j++)
					MPI_Irecv(rb + slot * (size_t)j, n,
						  MPI_CHAR, 0, 100,
						  MPI_COMM_WORLD, &rq[j]);
				MPI_Waitall(b.window, rq, MPI_STATUSES_IGNORE);
				if (b.validate)
					for (j = 0; j < b.window; j++)
						if (bench_check(&b,
							rb + slot * (size_t)j,
							size, (unsigned)i,
							size))
							break;
				MPI_Send(ack, 4, MPI_CHAR, 0, 101,
					 MPI_COMM_WORLD);
			}
		}
		t = MPI_Wtime() - t0;
		bench_print(&b, size,
			    (double)size * b.window * it / t / 1e6, 0);
	}
	free(rq);
	free(sb);
	free(rb);
	return bench_finish(&b);
}
