/*
 * osu_bcast.c - MPI_Bcast latency from rank 0, MPI_CHAR as in the OSU
 * micro-benchmarks (bench_common.h has the options).
 */
#include <mpi.h>
#include <stdlib.h>
#include "bench_common.h"

int main(int argc, char **argv)
{
	struct bench b;
	size_t size, j;
	char *buf;

	bench_init(&b, &argc, &argv, "Bcast latency (MPI_CHAR, root 0)", 1, 1);
	buf = bench_alloc(b.max);
	for (size = b.min; size <= b.max; size *= 2) {
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size), i;
		double total = 0, t0;

		for (i = 0; i < it + wu; i++) {
			if (b.validate)
				for (j = 0; j < size; j++)
					buf[j] = b.rank ? 0 : (char)(j + i);
			t0 = MPI_Wtime();
			MPI_Bcast(buf, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
			if (i >= wu)
				total += bench_lap(&b, i - wu, MPI_Wtime() - t0);
			if (b.validate)
				for (j = 0; j < size; j++)
					if (buf[j] != (char)(j + i)) {
						bench_fail(&b, size, j, buf[j],
							   (char)(j + i));
						break;
					}
			MPI_Barrier(MPI_COMM_WORLD);
		}
		bench_report(&b, size, total, it);
	}
	free(buf);
	return bench_finish(&b);
}
