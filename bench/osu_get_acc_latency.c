/*
 * osu_get_acc_latency.c - MPI_Get_accumulate latency between two ranks,
 * as OSU's: one get_accumulate (MPI_SUM on MPI_CHAR, or -T's type) of
 * each size and the synchronisation of -s (default flush) per iteration
 * (bench_rma.h). -c: after the i-th, the result is i times the pattern
 * of ones and zeros (the window starts at zero, one origin per window),
 * and the window n times it at the end (chars past 127 unchecked).
 */
#include "bench_rma.h"

static void op(struct bench_rma *r, size_t size, size_t off, int i, int j)
{
	int n = (int)(size / r->acc_es);

	MPI_Get_accumulate(r->sbuf + off, n, r->acc_dt, r->rbuf + off, n,
			   r->acc_dt, r->peer, r->disp + (MPI_Aint)off, n,
			   r->acc_dt, MPI_SUM, r->win);
}

static void after(struct bench_rma *r, size_t size, int i)
{
	bench_rma_acc_check(r, r->rbuf, size, i);
}

int main(int argc, char **argv)
{
	struct bench_rma r;

	bench_rma_init(&r, &argc, &argv, "MPI_Get_accumulate latency",
		       BENCH_LAT, BENCH_SYNC_FLUSH, BENCH_SYNCS_ALL);
	bench_rma_buffers(&r, r.b.max);
	bench_rma_acc_setup(&r);
	r.lock_type = MPI_LOCK_EXCLUSIVE;
	r.op = op;
	r.after = after;
	r.final = bench_rma_acc_final;
	bench_rma_latency(&r, 0);
	return bench_rma_finish(&r);
}
