/*
 * osu_latency_mt.c - multi-threaded latency between two ranks, as OSU's
 * osu_latency_mt: MPI_THREAD_MULTIPLE; S sender threads on rank 0 and R
 * receiver threads on rank 1 (-t [S:]R, default 1:2). Every thread uses the
 * same tags on MPI_COMM_WORLD: a sender thread sends (tag 1) and waits for
 * a reply (tag 2), a receiver thread receives (tag 1) and replies (tag 2),
 * so the receiver threads race for every message and a reply may go to
 * any sender thread. The ping-pongs are shared out among the threads of
 * each side; a sender thread's latency is half its average round trip,
 * and the line printed is the mean over the sender threads
 * (bench_common.h has the options).
 *
 * With -c each message carries a fresh pattern (its seed, modulo 256,
 * recoverable from its first byte: bench_fill's byte 0 is seed * 101 + 1);
 * receivers check what arrived and echo it, senders check the echo (the
 * exact seed with one sender thread). Messages of one byte are not checked.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench_common.h"

static struct bench b;
static pthread_barrier_t bar;
static double *lat; /* per sender thread: this size's latency (us) */

/* the seed of a bench_fill pattern, modulo 256, from its first byte
 * (101 * 109 = 1 modulo 256) */
static unsigned seed_of(const unsigned char *p)
{
	return ((unsigned)(p[0] - 1) * 109u) & 255u;
}

/* n ping-pongs out of `total` for thread t of `nt` */
static int share(int total, int t, int nt)
{
	return total / nt + (t < total % nt);
}

static void *thread_main(void *arg)
{
	int t = (int)(long)arg, nt = b.rank ? b.trecv : b.tsend;
	char *sb = bench_alloc(b.max), *rb = bench_alloc(b.max);
	size_t size;

	for (size = b.min; size <= b.max; size = bench_next(size)) {
		/* each sender thread runs `it` timed ping-pongs after `wu`
		 * untimed ones; the receivers share all of them */
		int it = (bench_iters(&b, size) + b.tsend - 1) / b.tsend;
		int wu = (bench_warmup(&b, size) + b.tsend - 1) / b.tsend;
		int n = (int)size, i, mine;
		double t0 = 0;

		pthread_barrier_wait(&bar);
		if (t == 0)
			MPI_Barrier(MPI_COMM_WORLD);
		pthread_barrier_wait(&bar);
		if (b.rank == 0) {
			for (i = 0; i < it + wu; i++) {
				unsigned seed = (unsigned)(t * 7 + i) & 255u;

				if (i == wu)
					t0 = MPI_Wtime();
				if (b.validate)
					bench_fill(sb, size, seed);
				MPI_Send(sb, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
				MPI_Recv(rb, n, MPI_CHAR, 1, 2, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				if (b.validate && size > 1)
					bench_check(
						&b, rb, size,
						b.tsend == 1
							? seed
							: seed_of((void *)rb),
						size);
			}
			lat[t] = (MPI_Wtime() - t0) * 1e6 / (2.0 * it);
		} else if (b.rank == 1) {
			mine = share((it + wu) * b.tsend, t, nt);
			for (i = 0; i < mine; i++) {
				MPI_Recv(rb, n, MPI_CHAR, 0, 1, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				if (b.validate && size > 1)
					bench_check(&b, rb, size,
						    seed_of((void *)rb), size);
				/* the echo: what arrived (-c), else OSU's
				 * send buffer */
				MPI_Send(b.validate ? rb : sb, n, MPI_CHAR, 0,
					 2, MPI_COMM_WORLD);
			}
		}
		pthread_barrier_wait(&bar);
		if (t == 0 && b.rank == 0) {
			double sum = 0;
			int j;

			for (j = 0; j < b.tsend; j++)
				sum += lat[j];
			bench_print(&b, size, sum / b.tsend, 0);
		}
	}
	free(sb);
	free(rb);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	long t, nt;

	bench_init_mt(&b, &argc, &argv,
		      "Multi-threaded latency (MPI_Send/"
		      "MPI_Recv ping-pong, rank 0's sender threads to rank 1's "
		      "receiver threads, half the round trip)",
		      BENCH_LAT, BENCH_MT_LAT, 2, 1, 0);
	nt = b.rank ? b.trecv : b.tsend;
	lat = calloc((size_t)b.tsend, sizeof(*lat));
	if (!lat || pthread_barrier_init(&bar, NULL, (unsigned)nt)) {
		fprintf(stderr, "%s: out of memory\n", b.name);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (t = 1; t < nt; t++)
		if (pthread_create(&th[t], NULL, thread_main, (void *)t)) {
			fprintf(stderr, "%s: pthread_create failed\n", b.name);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	thread_main((void *)0);
	for (t = 1; t < nt; t++)
		pthread_join(th[t], NULL);
	pthread_barrier_destroy(&bar);
	free(lat);
	return bench_finish(&b);
}
