/*
 * osu_mbw_mr.c - multi-pair bandwidth and message rate, as in the OSU
 * micro-benchmarks: rank i of the first half streams windows of MPI_Isend
 * to rank i + N/2 (which posts MPI_Irecv and acknowledges each window with
 * 4 bytes), all pairs at once. Aggregate MB/s and messages/s over the
 * pairs, from the slowest sender's time (bench_common.h has the options;
 * -W sets the window, default 64; -c checks as osu_bw does).
 */
#include <mpi.h>
#include <stdlib.h>
#include "bench_common.h"

int main(int argc, char **argv)
{
	struct bench b = {0};
	size_t size, slot;
	char *sb, *rb, ack[4];
	MPI_Request *rq;
	int j, half, peer, sender;

	bench_init_p2p(&b, &argc, &argv, "Multi-pair bandwidth and message "
		       "rate (rank i to i + N/2, windows of MPI_Isend/"
		       "MPI_Irecv)", BENCH_RATE, 2, 0, 1);
	half = b.size / 2;
	sender = b.rank < half;
	peer = sender ? b.rank + half : b.rank - half;
	slot = b.validate ? b.max : 0;
	sb = bench_alloc(b.max);
	rb = bench_alloc(b.max + slot * (size_t)(b.window - 1));
	rq = malloc(sizeof(*rq) * (size_t)b.window);
	for (size = b.min; size <= b.max; size = bench_next(size)) {
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size), i;
		int n = (int)size;
		double t0 = 0, t, tmax = 0, msgs;

		MPI_Barrier(MPI_COMM_WORLD);
		for (i = 0; i < it + wu; i++) {
			if (i == wu)
				t0 = MPI_Wtime();
			if (sender) {
				if (b.validate)
					bench_fill(sb, size,
						   (unsigned)(i + b.rank));
				for (j = 0; j < b.window; j++)
					MPI_Isend(sb, n, MPI_CHAR, peer, 100,
						  MPI_COMM_WORLD, &rq[j]);
				MPI_Waitall(b.window, rq, MPI_STATUSES_IGNORE);
				MPI_Recv(ack, 4, MPI_CHAR, peer, 101,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				for (j = 0; j < b.window; j++)
					MPI_Irecv(rb + slot * (size_t)j, n,
						  MPI_CHAR, peer, 100,
						  MPI_COMM_WORLD, &rq[j]);
				MPI_Waitall(b.window, rq, MPI_STATUSES_IGNORE);
				if (b.validate)
					for (j = 0; j < b.window; j++)
						if (bench_check(&b,
							rb + slot * (size_t)j,
							size,
							(unsigned)(i + peer),
							size))
							break;
				MPI_Send(ack, 4, MPI_CHAR, peer, 101,
					 MPI_COMM_WORLD);
			}
		}
		t = sender ? MPI_Wtime() - t0 : 0;
		MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0,
			   MPI_COMM_WORLD);
		msgs = (double)half * b.window * it;
		if (b.rank == 0)
			bench_print(&b, size, msgs * (double)size / tmax / 1e6,
				    msgs / tmax);
	}
	free(rq);
	free(sb);
	free(rb);
	return bench_finish(&b);
}
