/*
 * rma_median.c - the median and the mean of one-sided operations' latency
 * per iteration, timed as perftest times its own (a cycle counter read
 * once per iteration), so that its t_typical (a median) has a like for
 * like next to it: OSU's one-sided latencies are means over all
 * iterations, which take in every stall of a noisy machine.
 *
 * 2 ranks, a window of MPI_Win_allocate, rank 0 inside a shared lock on
 * rank 1 repeats N times (after 100 untimed)
 *   put     MPI_Put of 8 bytes, MPI_Win_flush
 *   get     MPI_Get of 8 bytes, MPI_Win_flush
 *   fop     MPI_Fetch_and_op (MPI_SUM, MPI_LONG_LONG), MPI_Win_flush
 *   cas     MPI_Compare_and_swap (MPI_LONG_LONG), MPI_Win_flush
 * and prints "OP median M mean A us (n N)", then "OP tail p99 P p99.9 Q
 * max X us" (perftest prints the same percentiles); rank 1 then checks
 * the word the operations reached (put: 1, fop: the number of operations,
 * get and cas: untouched 0: cas compares with 1) and exits 1 if it is
 * wrong.
 * The timing: median.h.
 *
 * Rank 1 waits for rank 0 in MPI_Barrier, polling as MPI does; with
 * "idle" it waits in MPI_Ibarrier instead, asleep 1 ms between
 * MPI_Test calls, as perftest's passive side sleeps.
 *
 *   rma_median put|get|fop|cas [N [idle]]        (N: 10000)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "median.h"

static void op(int mode, MPI_Win w)
{
	long long one = 1, two = 2, old;

	switch (mode) {
	case 0:
		MPI_Put(&one, 1, MPI_LONG_LONG, 1, 0, 1, MPI_LONG_LONG, w);
		break;
	case 1:
		MPI_Get(&old, 1, MPI_LONG_LONG, 1, 0, 1, MPI_LONG_LONG, w);
		break;
	case 2:
		MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 1, 0, MPI_SUM, w);
		break;
	default:
		MPI_Compare_and_swap(&two, &one, &old, MPI_LONG_LONG, 1, 0, w);
		break;
	}
	MPI_Win_flush(1, w);
}

int main(int argc, char **argv)
{
	static const char *const names[] = {"put", "get", "fop", "cas"};
	int n = argc > 2 ? atoi(argv[2]) : 10000, mode = -1, rank, size, i;
	int idle = argc > 3 && !strcmp(argv[3], "idle");
	uint64_t *t = NULL;
	double *lat = NULL;
	long long *base;
	MPI_Win w;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; argc > 1 && i < 4; i++)
		if (!strcmp(argv[1], names[i]))
			mode = i;
	if (mode < 0 || n < 1 || size != 2) {
		if (!rank)
			fprintf(stderr, "usage: mpirun -n 2 rma_median "
					"put|get|fop|cas [N [idle]]\n");
		MPI_Finalize();
		return 2;
	}
	MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
	base[0] = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	if (!rank) {
		double t0, t1, median, mean;

		t = malloc((size_t)(n + 1) * sizeof(*t));
		lat = malloc((size_t)n * sizeof(*lat));
		if (!t || !lat)
			MPI_Abort(MPI_COMM_WORLD, 1);
		MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w);
		for (i = 0; i < 100; i++)
			op(mode, w);
		t0 = MPI_Wtime();
		for (i = 0; i < n; i++) {
			t[i] = med_ticks();
			op(mode, w);
		}
		t[n] = med_ticks();
		t1 = MPI_Wtime();
		MPI_Win_unlock(1, w);
		med_stats(t, n, t0, t1, 1, lat, &median, &mean);
		printf("%s median %.2f mean %.2f us (n %d)\n", names[mode],
		       median, mean, n);
		/* the tail, as perftest's 99 % and 99.9 % columns: what takes
		 * the mean away from the median */
		printf("%s tail p99 %.2f p99.9 %.2f max %.2f us\n", names[mode],
		       lat[(size_t)n * 99 / 100], lat[(size_t)n * 999 / 1000],
		       lat[n - 1]);
		free(t);
		free(lat);
	}
	if (idle) {
		MPI_Request req;
		int done = 0;

		MPI_Ibarrier(MPI_COMM_WORLD, &req);
		if (!rank)
			MPI_Wait(&req, MPI_STATUS_IGNORE);
		else
			while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) ==
				       MPI_SUCCESS &&
			       !done)
				usleep(1000);
	} else {
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank) {
		long long want = mode == 0 ? 1 : mode == 2 ? n + 100 : 0;

		MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w);
		if (base[0] != want) {
			fprintf(stderr,
				"rma_median: %s: the word is %lld, not "
				"%lld\n",
				names[mode], base[0], want);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		MPI_Win_unlock(1, w);
	}
	MPI_Win_free(&w);
	MPI_Finalize();
	return 0;
}
