/*
 * osu_barrier.c - MPI_Barrier latency, as in the OSU micro-benchmarks
 * (bench_common.h; -m does not apply).
 */
#include <mpi.h>
#include "bench_common.h"

int main(int argc, char **argv)
{
	struct bench b;
	int it, wu, i;
	double total = 0, t0;

	bench_init(&b, &argc, &argv, "Barrier latency", 0, 0);
	it = bench_iters(&b, 0);
	wu = bench_warmup(&b, 0);
	for (i = 0; i < it + wu; i++) {
		t0 = MPI_Wtime();
		MPI_Barrier(MPI_COMM_WORLD);
		if (i >= wu)
			total += bench_lap(&b, i - wu, MPI_Wtime() - t0);
	}
	bench_report(&b, 0, total, it);
	return bench_finish(&b);
}
