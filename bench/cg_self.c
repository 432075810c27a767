/*
 * cg_self.c - the software path of one small message, for instruction
 * counts under valgrind --tool=callgrind: N times MPI_Isend + MPI_Recv +
 * MPI_Wait of `size` bytes to oneself on MPI_COMM_SELF (the message is
 * unexpected when the receive comes: eager copy, matching, completion),
 * or with "expected", MPI_Irecv + MPI_Send + MPI_Wait (the receive is
 * posted first). Nothing waits on another process, so no spin-waiting
 * is counted; the difference of two runs with different N cancels
 * MPI_Init and MPI_Finalize (bench/compare.sh callgrind).
 *
 *   cg_self N [size [expected|unexpected [single|multiple]]]
 *
 * (default size 8, unexpected, MPI_Init). single or multiple: MPI_Init_thread
 * at MPI_THREAD_SINGLE or MPI_THREAD_MULTIPLE (one thread; issue 14's
 * instruction-count gates).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i;
	int size = argc > 2 ? atoi(argv[2]) : 8;
	int expected = argc > 3 && !strcmp(argv[3], "expected");
	const char *level = argc > 4 ? argv[4] : "";
	char sb[4096], rb[4096];
	int provided;
	MPI_Request rq;

	if (size < 0 || size > (int)sizeof(sb))
		size = 8;
	if (!strcmp(level, "multiple"))
		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	else if (!strcmp(level, "single"))
		MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
	else
		MPI_Init(&argc, &argv);
	memset(sb, 1, sizeof(sb));
	for (i = 0; i < n; i++) {
		if (expected) {
			MPI_Irecv(rb, size, MPI_CHAR, 0, 7, MPI_COMM_SELF, &rq);
			MPI_Send(sb, size, MPI_CHAR, 0, 7, MPI_COMM_SELF);
		} else {
			MPI_Isend(sb, size, MPI_CHAR, 0, 7, MPI_COMM_SELF, &rq);
			MPI_Recv(rb, size, MPI_CHAR, 0, 7, MPI_COMM_SELF,
				 MPI_STATUS_IGNORE);
		}
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
	}
	if (memcmp(sb, rb, (size_t)size))
		printf("cg_self: data mismatch\n");
	MPI_Finalize();
	return 0;
}
