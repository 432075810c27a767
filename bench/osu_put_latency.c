/*
 * osu_put_latency.c - MPI_Put latency between two ranks, as OSU's: one put
 * of each size and the synchronisation of -s (default flush) per iteration,
 * on a window of -w (default allocate) (bench_rma.h: loops, options,
 * validation).
 */
#include "bench_rma.h"

int main(int argc, char **argv)
{
	struct bench_rma r;

	bench_rma_init(&r, &argc, &argv, "MPI_Put latency", BENCH_LAT,
		       BENCH_SYNC_FLUSH, BENCH_SYNCS_ALL);
	bench_rma_buffers(&r, r.b.max);
	r.op = bench_rma_put_op;
	r.final = bench_rma_put_final;
	bench_rma_latency(&r, 0);
	return bench_rma_finish(&r);
}
