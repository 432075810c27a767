/*
 * p2p_finalize.c - MPI_Finalize completes every send the program started:
 * rank 0 sends an eager message and a rendezvous message whose request it
 * frees, then finalizes at once; rank 1 receives them a second later.
 */
#include <unistd.h>
#include "jobs.h"

int main(int argc, char **argv)
{
	enum { BIG = 3 << 20 };
	int rank, size, v = 4242;
	unsigned char *big = malloc(BIG);
	MPI_Request rq;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(size >= 2, "needs 2 ranks");
	if (rank == 0) {
		job_fill(big, BIG, 77);
		CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
		CHECK_MPI(MPI_Isend(big, BIG, MPI_BYTE, 1, 2, MPI_COMM_WORLD,
				    &rq));
		CHECK_MPI(MPI_Request_free(&rq));
		CHECK(rq == MPI_REQUEST_NULL, "request_free");
	} else if (rank == 1) {
		int got = 0;

		sleep(1);
		CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 1, MPI_COMM_WORLD,
				   MPI_STATUS_IGNORE));
		CHECK(got == 4242, "eager message lost: %d", got);
		CHECK_MPI(MPI_Recv(big, BIG, MPI_BYTE, 0, 2, MPI_COMM_WORLD,
				   MPI_STATUS_IGNORE));
		CHECK(job_verify(big, BIG, 77) == (size_t)-1,
		      "rendezvous data");
		printf("p2p_finalize: late receiver got both messages\n");
	}
	MPI_Finalize();
	free(big);
	return 0;
}
