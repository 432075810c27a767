/*
 * osu_allgather.c - MPI_Allgather latency, MPI_CHAR, `size` bytes from
 * every rank, as in the OSU micro-benchmarks (bench_common.h).
 */
#include <mpi.h>
#include <stdlib.h>
#include "bench_common.h"

static void check(struct bench *b, const char *rb, size_t size)
{
	size_t j;
	int r;

	for (r = 0; r < b->size; r++)
		for (j = 0; j < size; j++)
			if (rb[r * size + j] != (char)(r * 7 + j)) {
				bench_fail(b, size, r * size + j,
					   rb[r * size + j], (char)(r * 7 + j));
				return;
			}
}

int main(int argc, char **argv)
{
	struct bench b;
	size_t size, j;
	char *sb, *rb;

	bench_init(&b, &argc, &argv, "Allgather latency (MPI_CHAR, size per "
		   "rank)", 1, 1);
	sb = bench_alloc(b.max);
	rb = bench_alloc(b.max * (size_t)b.size);
	for (size = b.min; size <= b.max; size *= 2) {
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size), i;
		double total = 0, t0;

		for (j = 0; j < size; j++)
			sb[j] = (char)(b.rank * 7 + j);
		for (i = 0; i < it + wu; i++) {
			t0 = MPI_Wtime();
			MPI_Allgather(sb, (int)size, MPI_CHAR, rb, (int)size,
				      MPI_CHAR, MPI_COMM_WORLD);
			if (i >= wu)
				total += bench_lap(&b, i - wu, MPI_Wtime() - t0);
			if (b.validate)
				check(&b, rb, size);
			MPI_Barrier(MPI_COMM_WORLD);
		}
		bench_report(&b, size, total, it);
	}
	free(sb);
	free(rb);
	return bench_finish(&b);
}
