/*
 * osu_allreduce_persistent.c - MPI-4 persistent MPI_Allreduce latency:
 * osu_allreduce's loop with MPI_Allreduce_init once per size and
 * MPI_Start + MPI_Wait timed per iteration (MPI_FLOAT, MPI_SUM; the
 * options of bench_common.h). Run next to osu_allreduce for the saving
 * per call. Needs an MPI-4 library (Open MPI 5, MPICH 4) elsewhere.
 */
#include <mpi.h>
#include <stdlib.h>
#include "bench_common.h"

int main(int argc, char **argv)
{
	struct bench b;
	size_t size;
	float *sb, *rb;

	bench_init(&b, &argc, &argv,
		   "Persistent allreduce latency (MPI_Allreduce_init, "
		   "MPI_Start + MPI_Wait; MPI_FLOAT, MPI_SUM)",
		   sizeof(float), 1);
	sb = bench_alloc(b.max);
	rb = bench_alloc(b.max);
	for (size = b.min; size <= b.max; size *= 2) {
		int count = (int)(size / sizeof(float)), i;
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size);
		double total = 0, t0;
		MPI_Request req;

		MPI_Allreduce_init(sb, rb, count, MPI_FLOAT, MPI_SUM,
				   MPI_COMM_WORLD, MPI_INFO_NULL, &req);
		bench_red_fill(&b, sb, (size_t)count);
		for (i = 0; i < it + wu; i++) {
			t0 = MPI_Wtime();
			MPI_Start(&req);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
			if (i >= wu)
				total += bench_lap(&b, i - wu, MPI_Wtime() - t0);
			if (b.validate)
				bench_red_check(&b, rb, 0, (size_t)count, size);
			MPI_Barrier(MPI_COMM_WORLD);
		}
		MPI_Request_free(&req);
		bench_report(&b, size, total, it);
	}
	free(sb);
	free(rb);
	return bench_finish(&b);
}
