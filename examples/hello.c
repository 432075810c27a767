/*
 * hello.c - the smallest MPI program: every rank prints its rank, the size
 * of MPI_COMM_WORLD and the host it runs on.
 *
 *   mpicc hello.c -o hello && mpirun -n 2 ./hello
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char host[MPI_MAX_PROCESSOR_NAME];
	int rank, size, len;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(host, &len);
	printf("Hello from rank %d of %d on %s\n", rank, size, host);
	MPI_Finalize();
	return 0;
}
