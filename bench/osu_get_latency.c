/*
 * osu_get_latency.c - MPI_Get latency between two ranks, as OSU's: one get
 * of each size and the synchronisation of -s (default flush) per iteration,
 * on a window of -w (default allocate) (bench_rma.h: loops, options,
 * validation).
 */
#include "bench_rma.h"

int main(int argc, char **argv)
{
	struct bench_rma r;

	bench_rma_init(&r, &argc, &argv, "MPI_Get latency", BENCH_LAT,
		       BENCH_SYNC_FLUSH, BENCH_SYNCS_ALL);
	bench_rma_buffers(&r, r.b.max);
	r.winit = bench_rma_get_winit;
	r.op = bench_rma_get_op;
	r.after = bench_rma_get_after;
	bench_rma_latency(&r, 0);
	return bench_rma_finish(&r);
}
