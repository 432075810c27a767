/*
 * vt_init.c - MPI_Init, one exchange around a ring, MPI_Finalize: the job
 * the suite starts with bad settings (no device, wrong device name, bad
 * GID index, memlock too low), where MPI_Init must fail with a message
 * that says why, and with good ones.
 *
 *   vt_init [compute SECS]   odd ranks first compute SECS seconds outside
 *                            MPI (the UD handshake's agent answers for
 *                            them while their neighbours connect)
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "vt_common.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int v = -1, next, prev;

	vt_init(&argc, &argv);
	if (argc > 2 && !strcmp(argv[1], "compute") && vt_rank % 2) {
		volatile unsigned long spins = 0;
		double t0 = now(), secs = atof(argv[2]);

		while (now() - t0 < secs)
			spins++;
	}
	next = (vt_rank + 1) % vt_size;
	prev = (vt_rank + vt_size - 1) % vt_size;
	MPI_Sendrecv(&vt_rank, 1, MPI_INT, next, 0, &v, 1, MPI_INT, prev, 0,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	VT_CHECK(v == prev, "ring: got %d from %d", v, prev);
	return vt_finish("init");
}
