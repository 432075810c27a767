/*
 * osu_reduce.c - MPI_Reduce latency to rank 0, MPI_FLOAT and MPI_SUM as in
 * the OSU micro-benchmarks (bench_common.h has the options).
 */
#include <mpi.h>
#include <stdlib.h>
#include "bench_common.h"

int main(int argc, char **argv)
{
	struct bench b;
	size_t size;
	float *sb, *rb;

	bench_init(&b, &argc, &argv, "Reduce latency (MPI_FLOAT, MPI_SUM, "
		   "root 0)", sizeof(float), 1);
	sb = bench_alloc(b.max);
	rb = bench_alloc(b.max);
	for (size = b.min; size <= b.max; size *= 2) {
		int count = (int)(size / sizeof(float)), i;
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size);
		double total = 0, t0;

		bench_red_fill(&b, sb, (size_t)count);
		for (i = 0; i < it + wu; i++) {
			t0 = MPI_Wtime();
			MPI_Reduce(sb, rb, count, MPI_FLOAT, MPI_SUM, 0,
				   MPI_COMM_WORLD);
			if (i >= wu)
				total += bench_lap(&b, i - wu, MPI_Wtime() - t0);
			if (b.validate && b.rank == 0)
				bench_red_check(&b, rb, 0, (size_t)count, size);
			MPI_Barrier(MPI_COMM_WORLD);
		}
		bench_report(&b, size, total, it);
	}
	free(sb);
	free(rb);
	return bench_finish(&b);
}
