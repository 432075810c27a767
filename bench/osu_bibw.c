/*
 * osu_bibw.c - bidirectional bandwidth between ranks 0 and 1, as in the
 * OSU micro-benchmarks: per iteration both ranks post a window of
 * MPI_Irecv, then a window of MPI_Isend, and wait for all; the bandwidth
 * counts both directions (bench_common.h has the options; -W sets the
 * window, default 64). Without -c every message of a window lands in one
 * buffer, as OSU does; with -c each has its own and is checked.
 */
#include <mpi.h>
#include <stdlib.h>
#include "bench_common.h"

int main(int argc, char **argv)
{
	struct bench b = {0};
	size_t size, slot;
	char *sb, *rb;
	MPI_Request *rq;
	int j, peer;

	bench_init_p2p(&b, &argc, &argv, "Bidirectional bandwidth (ranks 0 "
		       "and 1, windows of MPI_Isend/MPI_Irecv both ways)",
		       BENCH_BW, 2, 1, 0);
	peer = 1 - b.rank;
	slot = b.validate ? b.max : 0;
	sb = bench_alloc(b.max);
	rb = bench_alloc(b.max + slot * (size_t)(b.window - 1));
	rq = malloc(sizeof(*rq) * 2 * (size_t)b.window);
	for (size = b.min; size <= b.max; size = bench_next(size)) {
		int it = bench_iters(&b, size), wu = bench_warmup(&b, size), i;
		int n = (int)size;
		double t0 = 0, t;

		MPI_Barrier(MPI_COMM_WORLD);
		for (i = 0; i < it + wu; i++) {
			if (i == wu)
				t0 = MPI_Wtime();
			if (b.validate)
				bench_fill(sb, size, (unsigned)(2 * i + b.rank));
			for (j = 0; j < b.window; j++)
				MPI_Irecv(rb + slot * (size_t)j, n, MPI_CHAR,
					  peer, 100, MPI_COMM_WORLD, &rq[j]);
			for (j = 0; j < b.window; j++)
				MPI_Isend(sb, n, MPI_CHAR, peer, 100,
					  MPI_COMM_WORLD, &rq[b.window + j]);
			MPI_Waitall(2 * b.window, rq, MPI_STATUSES_IGNORE);
			if (b.validate)
				for (j = 0; j < b.window; j++)
					if (bench_check(&b,
							rb + slot * (size_t)j,
							size,
							(unsigned)(2 * i + peer),
							size))
						break;
		}
		t = MPI_Wtime() - t0;
		bench_print(&b, size,
			    2.0 * (double)size * b.window * it / t / 1e6, 0);
	}
	free(rq);
	free(sb);
	free(rb);
	return bench_finish(&b);
}
