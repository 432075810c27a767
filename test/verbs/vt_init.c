/*
 * vt_init.c - MPI_Init, one exchange around a ring, MPI_Finalize: the job
 * the suite starts with bad settings (no device, wrong device name, bad
 * GID index, memlock too low), where MPI_Init must fail with a message
 * that says why, and with good ones.
 */
#include "vt_common.h"

int main(int argc, char **argv)
{
	int v = -1, next, prev;

	vt_init(&argc, &argv);
	next = (vt_rank + 1) % vt_size;
	prev = (vt_rank + vt_size - 1) % vt_size;
	MPI_Sendrecv(&vt_rank, 1, MPI_INT, next, 0, &v, 1, MPI_INT, prev, 0,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	VT_CHECK(v == prev, "ring: got %d from %d", v, prev);
	return vt_finish("init");
}
