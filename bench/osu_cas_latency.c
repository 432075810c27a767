/*
 * osu_cas_latency.c - MPI_Compare_and_swap latency between two ranks, as
 * OSU's: one compare-and-swap of one MPI_LONG_LONG (8 bytes, one line of
 * output) and the synchronisation of -s (default flush) per iteration
 * (bench_rma.h). The i-th swaps i for i + 1, so with -c each must find i,
 * and the window holds n at the end.
 */
#include "bench_rma.h"

static void op(struct bench_rma *r, size_t size, size_t off, int i, int j)
{
	*(long long *)r->sbuf = i + 1;
	*(long long *)r->tbuf = i;
	MPI_Compare_and_swap(r->sbuf, r->tbuf, r->rbuf, MPI_LONG_LONG, r->peer,
			     r->disp, r->win);
}

int main(int argc, char **argv)
{
	struct bench_rma r;

	bench_rma_init(&r, &argc, &argv, "MPI_Compare_and_swap latency",
		       BENCH_LAT, BENCH_SYNC_FLUSH, BENCH_SYNCS_ALL);
	bench_rma_buffers(&r, sizeof(long long));
	r.lock_type = MPI_LOCK_EXCLUSIVE;
	r.op = op;
	r.after = bench_rma_ll_after;
	r.final = bench_rma_ll_final;
	bench_rma_latency(&r, sizeof(long long));
	return bench_rma_finish(&r);
}
