/*
 * osu_scatter.c - MPI_Scatter latency (MPI_CHAR, size per rank, root 0),
 * as in the OSU micro-benchmarks (bench_common.h has the options). With
 * -c the root sends a fresh pattern per block each iteration and every
 * rank checks its block.
 */
#include <mpi.h>
#include <stdlib.h>
#include "bench_common.h"

int main(int argc, char **argv)
{
	struct bench b;
	size_t size;
	char *sb, *rb;
	int r;

	bench_init(&b, &argc, &argv, "Scatter latency (MPI_CHAR, size per "
		   "rank, root 0)", 1, 1);
	sb = bench_alloc(b.rank ? 1 : b.max * (size_t)b.size);
	rb = bench_alloc(b.max);
	for (size = b.min; size <= b.max; size *= 2) {
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size), i;
		double total = 0, t0;

		for (i = 0; i < it + wu; i++) {
			if (b.validate && b.rank == 0)
				for (r = 0; r < b.size; r++)
					bench_fill(sb + r * size, size,
						   (unsigned)(r + i));
			t0 = MPI_Wtime();
			MPI_Scatter(sb, (int)size, MPI_CHAR, rb, (int)size,
				    MPI_CHAR, 0, MPI_COMM_WORLD);
			if (i >= wu)
				total += bench_lap(&b, i - wu, MPI_Wtime() - t0);
			if (b.validate)
				bench_check(&b, rb, size,
					    (unsigned)(b.rank + i), size);
			MPI_Barrier(MPI_COMM_WORLD);
		}
		bench_report(&b, size, total, it);
	}
	free(sb);
	free(rb);
	return bench_finish(&b);
}
