/*
 * osu_put_bibw.c - MPI_Put bi-directional bandwidth between two ranks, as
 * OSU's: both ranks put -W messages (default 32) of each size into each
 * other's window per epoch, synchronised by pscw (default) or fence
 * (bench_rma.h: loops, options, validation).
 */
#include "bench_rma.h"

int main(int argc, char **argv)
{
	struct bench_rma r;

	bench_rma_init(&r, &argc, &argv, "MPI_Put bi-directional bandwidth",
		       BENCH_BW, BENCH_SYNC_PSCW, BENCH_SYNCS_ACTIVE);
	bench_rma_buffers(&r, r.b.max * (size_t)r.b.window);
	r.op = bench_rma_put_op;
	r.final = bench_rma_put_final;
	bench_rma_bandwidth(&r, 1);
	return bench_rma_finish(&r);
}
