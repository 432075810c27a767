/*
 * osu_fop_latency.c - MPI_Fetch_and_op latency between two ranks, as
 * OSU's: one fetch-and-add of one MPI_LONG_LONG (8 bytes, one line of
 * output) and the synchronisation of -s (default flush) per iteration
 * (bench_rma.h). -c: the i-th fetch returns i, the window holds n at the
 * end.
 */
#include "bench_rma.h"

static void op(struct bench_rma *r, size_t size, size_t off, int i, int j)
{
	MPI_Fetch_and_op(r->sbuf, r->rbuf, MPI_LONG_LONG, r->peer, r->disp,
			 MPI_SUM, r->win);
}

int main(int argc, char **argv)
{
	struct bench_rma r;

	bench_rma_init(&r, &argc, &argv, "MPI_Fetch_and_op latency",
		       BENCH_LAT, BENCH_SYNC_FLUSH, BENCH_SYNCS_ALL);
	bench_rma_buffers(&r, sizeof(long long));
	*(long long *)r.sbuf = 1;
	r.lock_type = MPI_LOCK_EXCLUSIVE;
	r.op = op;
	r.after = bench_rma_ll_after;
	r.final = bench_rma_ll_final;
	bench_rma_latency(&r, sizeof(long long));
	return bench_rma_finish(&r);
}
