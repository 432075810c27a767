/*
 * osu_multi_lat.c - multi-pair latency, as in the OSU micro-benchmarks:
 * rank i of the first half ping-pongs with rank i + N/2 (MPI_Send/
 * MPI_Recv), all pairs at once; the latency is half the round trip,
 * averaged over the pairs (bench_common.h has the options; -c checks
 * every message as osu_latency does).
 */
#include <mpi.h>
#include <stdlib.h>
#include "bench_common.h"

int main(int argc, char **argv)
{
	struct bench b = {0};
	size_t size;
	char *sb, *rb;
	int half, peer, sender;

	bench_init_p2p(&b, &argc, &argv, "Multi-pair latency (rank i with "
		       "i + N/2, MPI_Send/MPI_Recv ping-pong)", BENCH_LAT, 2,
		       0, 1);
	half = b.size / 2;
	sender = b.rank < half;
	peer = sender ? b.rank + half : b.rank - half;
	sb = bench_alloc(b.max);
	rb = bench_alloc(b.max);
	for (size = b.min; size <= b.max; size = bench_next(size)) {
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size), i;
		int n = (int)size;
		double t0 = 0, lat, sum = 0;

		MPI_Barrier(MPI_COMM_WORLD);
		for (i = 0; i < it + wu; i++) {
			if (i == wu)
				t0 = MPI_Wtime();
			if (sender) {
				if (b.validate)
					bench_fill(sb, size,
						   (unsigned)(i + b.rank));
				MPI_Send(sb, n, MPI_CHAR, peer, 1,
					 MPI_COMM_WORLD);
				MPI_Recv(rb, n, MPI_CHAR, peer, 1,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				if (b.validate)
					bench_check(&b, rb, size,
						    (unsigned)(i + b.rank),
						    size);
			} else {
				MPI_Recv(rb, n, MPI_CHAR, peer, 1,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				if (b.validate)
					bench_check(&b, rb, size,
						    (unsigned)(i + peer), size);
				MPI_Send(b.validate ? rb : sb, n, MPI_CHAR,
					 peer, 1, MPI_COMM_WORLD);
			}
		}
		lat = (MPI_Wtime() - t0) * 1e6 / (2.0 * it);
		MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0,
			   MPI_COMM_WORLD);
		bench_print(&b, size, sum / b.size, 0);
	}
	free(sb);
	free(rb);
	return bench_finish(&b);
}
