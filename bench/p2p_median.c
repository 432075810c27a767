/*
 * p2p_median.c - point-to-point latency and message rate per iteration,
 * the median and the mean, timed as perftest times its own (median.h), so
 * that perftest's t_typical (a median) and another MPI's figure from the
 * same program have a like for like next to them: osu_latency and
 * osu_mbw_mr print means over all iterations, which take in every stall
 * of a noisy machine.
 *
 * 2 ranks, after N / 10 untimed iterations, N timed:
 *   lat   rank 0 MPI_Send SIZE bytes, rank 1 MPI_Recv and sends them
 *         back, rank 0 MPI_Recv: half the round trip per iteration, as
 *         osu_latency (and ib_write_lat) report it; prints
 *         "SIZE MEDIAN MEAN" in µs
 *   rate  a window of W MPI_Isend of SIZE bytes (W MPI_Irecv at rank 1,
 *         each into a buffer of its own), MPI_Waitall, then a 4-byte
 *         answer from rank 1, as osu_mbw_mr with one pair; prints
 *         "SIZE MEDIAN MEAN" in messages/s: W / the median window's time
 *         and W / the mean window's
 * Every message is checked: rank 0 stamps its first byte with the
 * message's number (SIZE >= 1), lat checks the echo, rate's rank 1
 * counts wrong stamps and answers the count. A wrong one prints
 * "# validation: FAILED" and exits 1, else "# validation: passed".
 *
 *   p2p_median lat|rate [N [SIZE [W]]]        (N 10000, SIZE 8, W 64)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "median.h"

/* ping-pongs first .. first + n - 1; the counter before each and after
 * the last into t[0..n] (NULL: untimed) */
static long run_lat(int rank, int first, int n, int size, char *buf,
		    uint64_t *t)
{
	long bad = 0;
	int i;

	for (i = first; i < first + n; i++) {
		if (t)
			t[i - first] = med_ticks();
		if (!rank) {
			buf[0] = (char)i;
			MPI_Send(buf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
			buf[0] = (char)~i;
			MPI_Recv(buf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			bad += buf[0] != (char)i;
		} else {
			MPI_Recv(buf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(buf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
		}
	}
	if (t)
		t[n] = med_ticks();
	return bad;
}

/* windows first .. first + n - 1 of w messages, timed as run_lat */
static long run_rate(int rank, int first, int n, int size, int w, char *buf,
		     MPI_Request *req, uint64_t *t)
{
	long bad = 0;
	int i, k, wrong;

	for (i = first; i < first + n; i++) {
		if (t)
			t[i - first] = med_ticks();
		for (k = 0; k < w; k++) {
			char *b = buf + (size_t)k * size;

			if (!rank) {
				b[0] = (char)(i * w + k);
				MPI_Isend(b, size, MPI_CHAR, 1, 1,
					  MPI_COMM_WORLD, &req[k]);
			} else {
				MPI_Irecv(b, size, MPI_CHAR, 0, 1,
					  MPI_COMM_WORLD, &req[k]);
			}
		}
		MPI_Waitall(w, req, MPI_STATUSES_IGNORE);
		if (!rank) {
			MPI_Recv(&wrong, 1, MPI_INT, 1, 2, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			bad += wrong;
		} else {
			for (wrong = 0, k = 0; k < w; k++)
				wrong += buf[(size_t)k * size] !=
					 (char)(i * w + k);
			MPI_Send(&wrong, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
		}
	}
	if (t)
		t[n] = med_ticks();
	return bad;
}

int main(int argc, char **argv)
{
	int rate = argc > 1 && !strcmp(argv[1], "rate");
	int n = argc > 2 ? atoi(argv[2]) : 10000;
	int size = argc > 3 ? atoi(argv[3]) : 8;
	int w = argc > 4 ? atoi(argv[4]) : 64;
	int warm = n / 10 > 10 ? n / 10 : 10, rank, nranks;
	MPI_Request *req = NULL;
	uint64_t *t = NULL;
	double *lat = NULL, w0, w1, median, mean;
	char *buf = NULL;
	long bad;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if ((!rate && (argc < 2 || strcmp(argv[1], "lat"))) || n < 1 ||
	    size < 1 || w < 1 || nranks != 2) {
		if (!rank)
			fprintf(stderr,
				"usage: mpirun -n 2 p2p_median lat|rate "
				"[N [SIZE [W]]] (N, SIZE, W >= 1)\n");
		MPI_Finalize();
		return 2;
	}
	if (!rate)
		w = 1;
	buf = malloc((size_t)w * size);
	req = malloc((size_t)w * sizeof(*req));
	t = malloc((size_t)(n + 1) * sizeof(*t));
	lat = malloc((size_t)n * sizeof(*lat));
	if (!buf || !req || !t || !lat)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(buf, 'a', (size_t)w * size);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rate) {
		bad = run_rate(rank, 0, warm, size, w, buf, req, NULL);
		w0 = MPI_Wtime();
		bad += run_rate(rank, warm, n, size, w, buf, req, t);
	} else {
		bad = run_lat(rank, 0, warm, size, buf, NULL);
		w0 = MPI_Wtime();
		bad += run_lat(rank, warm, n, size, buf, t);
	}
	w1 = MPI_Wtime();
	if (!rank) {
		med_stats(t, n, w0, w1, rate ? 1 : 2, lat, &median, &mean);
		if (rate) {
			median = w / (median * 1e-6);
			mean = w / (mean * 1e-6);
		}
		printf("# p2p_median %s: %s per iteration, median and mean "
		       "of %d (%d untimed first)\n",
		       rate ? "rate" : "lat",
		       rate ? "messages/s of a window"
			    : "half a round trip (µs)",
		       n, warm);
		if (rate)
			printf("# window %d\n", w);
		printf("# Size %s %s\n",
		       rate ? "Messages/s(median)" : "Median(us)",
		       rate ? "Messages/s(mean)" : "Mean(us)");
		printf("%d %.2f %.2f\n", size, median, mean);
		printf("# validation: %s\n", bad ? "FAILED" : "passed");
		if (bad)
			fprintf(stderr,
				"p2p_median: %ld message(s) arrived "
				"wrong\n",
				bad);
	}
	MPI_Bcast(&bad, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	free(buf);
	free(req);
	free(t);
	free(lat);
	MPI_Finalize();
	return bad ? 1 : 0;
}
