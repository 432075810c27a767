/*
 * osu_alltoall.c - MPI_Alltoall latency, MPI_CHAR, `size` bytes per pair
 * of ranks, as in the OSU micro-benchmarks (bench_common.h).
 */
#include <mpi.h>
#include <stdlib.h>
#include "bench_common.h"

static char val(int from, int to, size_t j)
{
	return (char)(from * 7 + to * 3 + j);
}

static void check(struct bench *b, const char *rb, size_t size)
{
	size_t j;
	int r;

	for (r = 0; r < b->size; r++)
		for (j = 0; j < size; j++)
			if (rb[r * size + j] != val(r, b->rank, j)) {
				bench_fail(b, size, r * size + j,
					   rb[r * size + j],
					   val(r, b->rank, j));
				return;
			}
}

int main(int argc, char **argv)
{
	struct bench b;
	size_t size, j;
	char *sb, *rb;
	int r;

	bench_init(&b, &argc, &argv, "Alltoall latency (MPI_CHAR, size per "
		   "pair)", 1, 1);
	sb = bench_alloc(b.max * (size_t)b.size);
	rb = bench_alloc(b.max * (size_t)b.size);
	for (size = b.min; size <= b.max; size *= 2) {
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size), i;
		double total = 0, t0;

		for (r = 0; r < b.size; r++)
			for (j = 0; j < size; j++)
				sb[r * size + j] = val(b.rank, r, j);
		for (i = 0; i < it + wu; i++) {
			t0 = MPI_Wtime();
			MPI_Alltoall(sb, (int)size, MPI_CHAR, rb, (int)size,
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
