/*
 * osu_acc_latency.c - MPI_Accumulate latency between two ranks, as OSU's:
 * one accumulate (MPI_SUM on MPI_CHAR, as OSU does, or -T's type) of
 * each size and the synchronisation of -s (default flush) per iteration
 * (bench_rma.h). -c: the target's window, zero at first, must hold n
 * times the pattern of ones and zeros after n accumulates (chars past 127
 * unchecked: signed char overflow is each MPI's own).
 */
#include "bench_rma.h"

static void op(struct bench_rma *r, size_t size, size_t off, int i, int j)
{
	int n = (int)(size / r->acc_es);

	MPI_Accumulate(r->sbuf + off, n, r->acc_dt, r->peer,
		       r->disp + (MPI_Aint)off, n, r->acc_dt, MPI_SUM, r->win);
}

int main(int argc, char **argv)
{
	struct bench_rma r;

	bench_rma_init(&r, &argc, &argv, "MPI_Accumulate latency", BENCH_LAT,
		       BENCH_SYNC_FLUSH, BENCH_SYNCS_ALL);
	bench_rma_buffers(&r, r.b.max);
	bench_rma_acc_setup(&r);
	r.lock_type = MPI_LOCK_EXCLUSIVE;
	r.op = op;
	r.final = bench_rma_acc_final;
	bench_rma_latency(&r, 0);
	return bench_rma_finish(&r);
}
