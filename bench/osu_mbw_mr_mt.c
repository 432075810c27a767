/*
 * osu_mbw_mr_mt.c - multi-threaded multi-pair bandwidth and message rate:
 * osu_mbw_mr with MPI_THREAD_MULTIPLE and T threads per rank (-t T,
 * default 2). Rank i of the first half and rank i + N/2 form a pair; thread
 * t of each has a communicator of its own (a duplicate of MPI_COMM_WORLD
 * per thread index), on which the sender thread streams windows of
 * MPI_Isend and the receiver thread posts MPI_Irecv and acknowledges each
 * window with 4 bytes, every thread of every pair at once. Aggregate MB/s
 * and messages/s over all threads of all pairs, from the slowest sender
 * thread's time (bench_common.h has the options; -W sets the window,
 * default 64; -c checks every message of every window against a pattern
 * of its rank, thread and iteration).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench_common.h"

static struct bench b;
static pthread_barrier_t bar;
static MPI_Comm *comm; /* one per thread */
static double *secs;   /* per thread: this size's time (senders) */
static int half, sender, peer;

static void *thread_main(void *arg)
{
	int t = (int)(long)arg, j;
	MPI_Comm c = comm[t];
	size_t slot = b.validate ? b.max : 0, size;
	char *sb = bench_alloc(b.max), ack[4] = {0};
	char *rb = bench_alloc(b.max + slot * (size_t)(b.window - 1));
	MPI_Request *rq = malloc(sizeof(*rq) * (size_t)b.window);

	if (!rq) {
		fprintf(stderr, "%s: out of memory\n", b.name);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (size = b.min; size <= b.max; size = bench_next(size)) {
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size), i;
		int n = (int)size;
		double t0 = 0, tmax = 0, tall = 0, msgs;

		pthread_barrier_wait(&bar);
		if (t == 0)
			MPI_Barrier(MPI_COMM_WORLD);
		pthread_barrier_wait(&bar);
		for (i = 0; i < it + wu; i++) {
			unsigned seed = (unsigned)(i + 31 * t + b.rank);

			if (i == wu)
				t0 = MPI_Wtime();
			if (sender) {
				if (b.validate)
					bench_fill(sb, size, seed);
				for (j = 0; j < b.window; j++)
					MPI_Isend(sb, n, MPI_CHAR, peer, 100, c,
						  &rq[j]);
				MPI_Waitall(b.window, rq, MPI_STATUSES_IGNORE);
				MPI_Recv(ack, 4, MPI_CHAR, peer, 101, c,
					 MPI_STATUS_IGNORE);
				continue;
			}
			for (j = 0; j < b.window; j++)
				MPI_Irecv(rb + slot * (size_t)j, n, MPI_CHAR,
					  peer, 100, c, &rq[j]);
			MPI_Waitall(b.window, rq, MPI_STATUSES_IGNORE);
			if (b.validate)
				for (j = 0; j < b.window; j++)
					if (bench_check(
						    &b, rb + slot * (size_t)j,
						    size, seed - b.rank + peer,
						    size))
						break;
			MPI_Send(ack, 4, MPI_CHAR, peer, 101, c);
		}
		secs[t] = sender ? MPI_Wtime() - t0 : 0;
		pthread_barrier_wait(&bar);
		if (t != 0)
			continue;
		for (j = 0; j < b.tsend; j++)
			if (secs[j] > tmax)
				tmax = secs[j];
		MPI_Reduce(&tmax, &tall, 1, MPI_DOUBLE, MPI_MAX, 0,
			   MPI_COMM_WORLD);
		msgs = (double)half * b.tsend * b.window * it;
		if (b.rank == 0)
			bench_print(&b, size, msgs * (double)size / tall / 1e6,
				    msgs / tall);
	}
	free(rq);
	free(sb);
	free(rb);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	long t;

	bench_init_mt(&b, &argc, &argv,
		      "Multi-threaded multi-pair bandwidth "
		      "and message rate (rank i to i + N/2, each thread on a "
		      "communicator of its own, windows of MPI_Isend/"
		      "MPI_Irecv)",
		      BENCH_RATE, BENCH_MT_RATE, 2, 0, 1);
	half = b.size / 2;
	sender = b.rank < half;
	peer = sender ? b.rank + half : b.rank - half;
	comm = calloc((size_t)b.tsend, sizeof(*comm));
	secs = calloc((size_t)b.tsend, sizeof(*secs));
	if (!comm || !secs ||
	    pthread_barrier_init(&bar, NULL, (unsigned)b.tsend)) {
		fprintf(stderr, "%s: out of memory\n", b.name);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (t = 0; t < b.tsend; t++)
		MPI_Comm_dup(MPI_COMM_WORLD, &comm[t]);
	for (t = 1; t < b.tsend; t++)
		if (pthread_create(&th[t], NULL, thread_main, (void *)t)) {
			fprintf(stderr, "%s: pthread_create failed\n", b.name);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	thread_main((void *)0);
	for (t = 1; t < b.tsend; t++)
		pthread_join(th[t], NULL);
	for (t = 0; t < b.tsend; t++)
		MPI_Comm_free(&comm[t]);
	pthread_barrier_destroy(&bar);
	free(comm);
	free(secs);
	return bench_finish(&b);
}
