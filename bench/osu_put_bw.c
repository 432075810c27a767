/*
 * osu_put_bw.c - MPI_Put bandwidth between two ranks, as OSU's: -W puts
 * (default 32) of each size into consecutive slots of the window per
 * synchronisation (-s, default flush, -w default allocate); rank 1 is only
 * the target (bench_rma.h: loops, options, validation).
 */
#include "bench_rma.h"

int main(int argc, char **argv)
{
	struct bench_rma r;

	bench_rma_init(&r, &argc, &argv, "MPI_Put bandwidth", BENCH_BW,
		       BENCH_SYNC_FLUSH, BENCH_SYNCS_ALL);
	bench_rma_buffers(&r, r.b.max * (size_t)r.b.window);
	r.op = bench_rma_put_op;
	r.final = bench_rma_put_final;
	bench_rma_bandwidth(&r, 0);
	return bench_rma_finish(&r);
}
