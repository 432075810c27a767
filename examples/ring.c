/*
 * ring.c - pass a token around MPI_COMM_WORLD with MPI_Send/MPI_Recv.
 *
 * Rank 0 starts the token at 0 and sends it to rank 1; every rank adds its
 * own rank plus one and passes it on to the next; after each lap rank 0
 * checks that the token grew by size * (size + 1) / 2. A wrong token ends
 * the job with MPI_Abort(…, 2). Optional argument: the number of laps
 * (default 10).
 *
 *   mpicc ring.c -o ring && mpirun -n 4 ./ring 100
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, next, prev, lap, laps = 10;
	long token = 0, expect = 0, per_lap;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		laps = atoi(argv[1]);
	next = (rank + 1) % size;
	prev = (rank + size - 1) % size;
	per_lap = (long)size * (size + 1) / 2;

	for (lap = 0; lap < laps; lap++) {
		if (rank == 0) {
			token += 1;
			MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
			MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			expect += per_lap;
			if (token != expect) {
				fprintf(stderr, "ring: lap %d: token %ld, "
					"expected %ld\n", lap, token, expect);
				MPI_Abort(MPI_COMM_WORLD, 2);
			}
		} else {
			MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			token += rank + 1;
			MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("ring: %d ranks, %d laps, token %ld ok\n", size, laps,
		       token);
	MPI_Finalize();
	return 0;
}
