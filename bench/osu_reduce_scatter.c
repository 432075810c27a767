/*
 * osu_reduce_scatter.c - MPI_Reduce_scatter latency (MPI_FLOAT, MPI_SUM),
 * as in the OSU micro-benchmarks: the size is the whole vector each rank
 * contributes, every rank receives about size/N bytes of the sum (the
 * first count % N ranks one element more). bench_common.h has the
 * options; -c checks every rank's block.
 */
#include <mpi.h>
#include <stdlib.h>
#include "bench_common.h"

int main(int argc, char **argv)
{
	struct bench b;
	size_t size;
	float *sb, *rb;
	int *counts, r;

	bench_init(&b, &argc, &argv, "Reduce_scatter latency (MPI_FLOAT, "
		   "MPI_SUM, size = whole vector)", sizeof(float), 1);
	sb = bench_alloc(b.max);
	rb = bench_alloc(b.max);
	counts = malloc(sizeof(*counts) * (size_t)b.size);
	for (size = b.min; size <= b.max; size *= 2) {
		int count = (int)(size / sizeof(float)), first = 0, i;
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size);
		double total = 0, t0;

		for (r = 0; r < b.size; r++) {
			counts[r] = count / b.size + (r < count % b.size);
			if (r < b.rank)
				first += counts[r];
		}
		bench_red_fill(&b, sb, (size_t)count);
		for (i = 0; i < it + wu; i++) {
			t0 = MPI_Wtime();
			MPI_Reduce_scatter(sb, rb, counts, MPI_FLOAT, MPI_SUM,
					   MPI_COMM_WORLD);
			if (i >= wu)
				total += bench_lap(&b, i - wu, MPI_Wtime() - t0);
			if (b.validate)
				bench_red_check(&b, rb, (size_t)first,
						(size_t)counts[b.rank], size);
			MPI_Barrier(MPI_COMM_WORLD);
		}
		bench_report(&b, size, total, it);
	}
	free(counts);
	free(sb);
	free(rb);
	return bench_finish(&b);
}
