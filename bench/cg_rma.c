/*
 * cg_rma.c - the software path of one-sided operations on one node, for
 * instruction counts under valgrind --tool=callgrind (bench/cg_rma.sh):
 * 2 ranks, a window of MPI_Win_allocate, rank 0 inside a shared lock on
 * rank 1 repeats N times
 *   put     MPI_Put of 8 bytes, MPI_Win_flush
 *   get     MPI_Get of 8 bytes, MPI_Win_flush
 *   lock    MPI_Win_unlock, an exclusive MPI_Win_lock, MPI_Put of 8
 *           bytes, MPI_Win_unlock, a shared MPI_Win_lock again
 * while rank 1 waits in a barrier. The loop is a function of its own,
 * cg_loop, so that callgrind counts it alone (--toggle-collect=cg_loop):
 * no waiting for the other rank is counted, however busy the machine.
 *
 *   cg_rma N put|get|lock
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __attribute__((noinline)) void cg_loop(long n, int mode, char *buf,
					      MPI_Win w)
{
	long i;

	for (i = 0; i < n; i++) {
		if (mode == 0) {
			MPI_Put(buf, 8, MPI_CHAR, 1, 0, 8, MPI_CHAR, w);
			MPI_Win_flush(1, w);
		} else if (mode == 1) {
			MPI_Get(buf, 8, MPI_CHAR, 1, 0, 8, MPI_CHAR, w);
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
	int mode = !strcmp(what, "put") ? 0 : !strcmp(what, "get") ? 1 : 2;
	char *base, buf[8] = {0};
	int rank;
	MPI_Win w;

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
