/*
 * osu_alltoallw.c - MPI_Alltoallw latency, MPI_CHAR, `size` bytes per pair
 * of ranks (every block's type MPI_CHAR, displacements i * size bytes), as
 * in the OSU micro-benchmarks (bench_common.h).
 */
#include <mpi.h>
#include <stdlib.h>
#include "bench_common.h"

static char val(int from, int to, size_t j, int it)
{
	return (char)(from * 7 + to * 3 + j + (size_t)it * 5);
}

static void check(struct bench *b, const char *rb, size_t size, int it)
{
	size_t j;
	int r;

	for (r = 0; r < b->size; r++)
		for (j = 0; j < size; j++)
			if (rb[r * size + j] != val(r, b->rank, j, it)) {
				bench_fail(b, size, r * size + j,
					   rb[r * size + j],
					   val(r, b->rank, j, it));
				return;
			}
}

int main(int argc, char **argv)
{
	struct bench b;
	size_t size, j;
	char *sb, *rb;
	int r, *cnt, *dsp;
	MPI_Datatype *types;

	bench_init(&b, &argc, &argv,
		   "Alltoallw latency (MPI_CHAR, size per "
		   "pair)",
		   1, 1);
	sb = bench_alloc(b.max * (size_t)b.size);
	rb = bench_alloc(b.max * (size_t)b.size);
	cnt = malloc(sizeof(int) * 2 * (size_t)b.size);
	types = malloc(sizeof(MPI_Datatype) * (size_t)b.size);
	if (!cnt || !types)
		MPI_Abort(MPI_COMM_WORLD, 1);
	dsp = cnt + b.size;
	for (r = 0; r < b.size; r++)
		types[r] = MPI_CHAR;
	for (size = b.min; size <= b.max; size *= 2) {
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size), i;
		double total = 0, t0;

		for (r = 0; r < b.size; r++) {
			cnt[r] = (int)size;
			dsp[r] = r * (int)size;
		}
		for (i = 0; i < it + wu; i++) {
			if (b.validate)
				for (r = 0; r < b.size; r++)
					for (j = 0; j < size; j++)
						sb[r * size + j] =
							val(b.rank, r, j, i);
			t0 = MPI_Wtime();
			MPI_Alltoallw(sb, cnt, dsp, types, rb, cnt, dsp, types,
				      MPI_COMM_WORLD);
			if (i >= wu)
				total +=
					bench_lap(&b, i - wu, MPI_Wtime() - t0);
			if (b.validate)
				check(&b, rb, size, i);
			MPI_Barrier(MPI_COMM_WORLD);
		}
		bench_report(&b, size, total, it);
	}
	free(sb);
	free(rb);
	free(cnt);
	free(types);
	return bench_finish(&b);
}
