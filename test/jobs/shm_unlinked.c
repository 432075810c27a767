/*
 * shm_unlinked.c - once MPI_Init returns on every rank (and each rank has
 * exchanged a message with every other), no shared-memory segment of this
 * job is left in /dev/shm: they are unlinked as soon as all local ranks
 * have attached, so even a crash leaves nothing behind.
 */
#include <dirent.h>
#include "jobs.h"

int main(int argc, char **argv)
{
	const char *ns = getenv("PMIX_NAMESPACE");
	int rank, size, i, v = 0, found = 0;
	struct dirent *de;
	DIR *d;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(ns != NULL, "PMIX_NAMESPACE not set: not under a PMIx launcher");
	for (i = 0; i < size; i++)
		CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, i, 0, &v, 1, MPI_INT,
				       MPI_ANY_SOURCE, 0, MPI_COMM_WORLD,
				       MPI_STATUS_IGNORE));
	d = opendir("/dev/shm");
	CHECK(d != NULL, "opendir /dev/shm");
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "rcmpi.", 6) &&
		    strstr(de->d_name, ns)) {
			fprintf(stderr, "left in /dev/shm: %s\n", de->d_name);
			found++;
		}
	closedir(d);
	CHECK(!found, "%d segments of this job still linked", found);
	if (rank == 0)
		printf("shm_unlinked: %d ranks OK\n", size);
	MPI_Finalize();
	return 0;
}
