/*
 * cg_rma.c - the software path of one-sided operations on one node, for
 * instruction counts under valgrind --tool=callgrind (bench/cg_rma.sh):
 * 2 ranks, a window of MPI_Win_allocate, rank 0 inside a shared lock on
 * rank 1 repeats N times
 *   put     MPI_Put of 8 bytes, MPI_Win_flush
 *   get     MPI_Get of 8 bytes, MPI_Win_flush
 *   lock    MPI_Win_unlock, an exclusive MPI_Win_lock, MPI_Put of 8
 *           bytes, MPI_Win_unlock, a shared MPI_Win_lock again
 *   fop     MPI_Fetch_and_op (MPI_SUM, MPI_LONG_LONG), MPI_Win_flush
 *   cas     MPI_Compare_and_swap (MPI_LONG_LONG), MPI_Win_flush
 * while rank 1 waits in a barrier. The loop is a function of its own,
 * cg_loop, so that callgrind counts it alone (--toggle-collect=cg_loop):
 * no waiting for the other rank is counted, however busy the machine.
 *
 *   cg_rma N put|get|lock|fop|cas
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __attribute__((noinline)) void cg_loop(long n, int mode, char *buf,
					      MPI_Win w)
{
	long long one = 1, old = 0;
	long i;

	for (i = 0; i < n; i++) {
		if (mode == 0) {
			MPI_Put(buf, 8, MPI_CHAR, 1, 0, 8, MPI_CHAR, w);
			MPI_Win_flush(1, w);
		} else if (mode == 1) {
			MPI_Get(buf, 8, MPI_CHAR, 1, 0, 8, MPI_CHAR, w);
			MPI_Win_flush(1, w);
		} else if (mode == 3) {
			MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 1, 0,
					 MPI_SUM, w);
			MPI_Win_flush(1, w);
		} else if (mode == 4) {
			MPI_Compare_and_swap(&one, &old, &old, MPI_LONG_LONG, 1,
					     0, w);
			MPI_Win_flush(1, w);
		} else {
			MPI_Win_unlock(1, w);
			MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w);
			MPI_Put(buf, 8, MPI_CHAR, 1, 0, 8, MPI_CHAR, w);
			MPI_Win_unlock(1, w);
			MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w);
		}
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	const char *what = argc > 2 ? argv[2] : "put";
	static const char *const modes[] = {"put", "get", "lock", "fop", "cas"};
	int mode = 0;
	char *base, buf[8] = {0};
	int rank;
	MPI_Win w;

	while (mode < 5 && strcmp(what, modes[mode]))
		mode++;
	if (mode == 5) {
		fprintf(stderr, "cg_rma: put, get, lock, fop or cas\n");
		return 2;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_allocate(1 << 20, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w);
		cg_loop(n, mode, buf, w);
		MPI_Win_unlock(1, w);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&w);
	MPI_Finalize();
	return 0;
}
