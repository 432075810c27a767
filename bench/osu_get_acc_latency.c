/*
 * osu_get_acc_latency.c - MPI_Get_accumulate latency between two ranks,
 * as OSU's: one get_accumulate (MPI_SUM on MPI_CHAR) of each size and the
 * synchronisation of -s (default flush) per iteration (bench_rma.h). -c:
 * after the i-th, the result is i times the pattern of ones and zeros
 * (the window starts at zero, one origin per window), and the window n
 * times it at the end (bytes past 127 unchecked).
 */
#include "bench_rma.h"

static void op(struct bench_rma *r, size_t size, size_t off, int i, int j)
{
	MPI_Get_accumulate(r->sbuf + off, (int)size, MPI_CHAR, r->rbuf + off,
			   (int)size, MPI_CHAR, r->peer,
			   r->disp + (MPI_Aint)off, (int)size, MPI_CHAR,
			   MPI_SUM, r->win);
}

static void check(struct bench_rma *r, const char *p, size_t size, int n)
{
	size_t k;

	for (k = 0; k < size; k++) {
		unsigned char want = (unsigned char)(n * r->sbuf[k]);

		/* sums of MPI_CHAR past 127 are the MPI's business */
		if (n * r->sbuf[k] > 127)
			continue;

		if ((unsigned char)p[k] != want) {
			bench_fail(&r->b, size, k, (unsigned char)p[k], want);
			return;
		}
	}
}

static void after(struct bench_rma *r, size_t size, int i)
{
	check(r, r->rbuf, size, i);
}

static void final(struct bench_rma *r, size_t size, int n)
{
	check(r, r->base, size, n);
}

/* ones and zeros in a pattern: sums stay exact for 127 operations */
static void acc_fill(char *b, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		b[k] = (char)((k * 7 >> 2) & 1);
}

int main(int argc, char **argv)
{
	struct bench_rma r;

	bench_rma_init(&r, &argc, &argv, "MPI_Get_accumulate latency",
		       BENCH_LAT, BENCH_SYNC_FLUSH, BENCH_SYNCS_ALL);
	bench_rma_buffers(&r, r.b.max);
	acc_fill(r.sbuf, r.b.max);
	r.lock_type = MPI_LOCK_EXCLUSIVE;
	r.op = op;
	r.after = after;
	r.final = final;
	bench_rma_latency(&r, 0);
	return bench_rma_finish(&r);
}
