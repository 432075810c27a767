/*
 * osu_latency.c - point-to-point latency between two ranks, as in the OSU
 * micro-benchmarks: a ping-pong of blocking MPI_Send/MPI_Recv, the one-way
 * latency being half the average round trip over the timed iterations
 * (bench_common.h has the options). With -c rank 0 sends a fresh pattern
 * every iteration, rank 1 checks it and echoes it, rank 0 checks the echo.
 */
#include <mpi.h>
#include <stdlib.h>
#include "bench_common.h"

int main(int argc, char **argv)
{
	struct bench b = {0};
	size_t size;
	char *sb, *rb;

	bench_init_p2p(&b, &argc, &argv, "Latency (MPI_Send/MPI_Recv "
		       "ping-pong, half the round trip)", BENCH_LAT, 2, 1, 0);
	sb = bench_alloc(b.max);
	rb = bench_alloc(b.max);
	for (size = b.min; size <= b.max; size = bench_next(size)) {
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size), i;
		int n = (int)size;
		double t0 = 0;

		MPI_Barrier(MPI_COMM_WORLD);
		for (i = 0; i < it + wu; i++) {
			if (i == wu)
				t0 = MPI_Wtime();
			if (b.rank == 0) {
				if (b.validate)
					bench_fill(sb, size, (unsigned)i);
				MPI_Send(sb, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
				MPI_Recv(rb, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				if (b.validate)
					bench_check(&b, rb, size, (unsigned)i,
						    size);
			} else {
				MPI_Recv(rb, n, MPI_CHAR, 0, 1, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				if (b.validate)
					bench_check(&b, rb, size, (unsigned)i,
						    size);
				/* the echo: what arrived (-c), else OSU's
				 * send buffer */
				MPI_Send(b.validate ? rb : sb, n, MPI_CHAR, 0,
					 1, MPI_COMM_WORLD);
			}
		}
		bench_print(&b, size, (MPI_Wtime() - t0) * 1e6 / (2.0 * it),
			    0);
	}
	free(sb);
	free(rb);
	return bench_finish(&b);
}
