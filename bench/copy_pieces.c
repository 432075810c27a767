/*
 * copy_pieces.c - is a large memcpy faster in pieces on this host? For
 * each copy size, the median MB/s of one memcpy per copy against copies
 * made in pieces of 64 to 512 KiB (runtime/copy.h's rc_copy makes them
 * in RC_COPY_PIECE), the layouts interleaved round by round so that each
 * round's host speed is shared. Not MPI.
 *
 * Why: glibc's memcpy changes method by size, and on AMD CPUs stops
 * using REP MOVSB at the L2's size (x86_rep_movsb_stop_threshold, shown
 * by `ld.so --list-diagnostics`): one-sided shared-memory bandwidth at
 * 1 MiB followed that switch (bench/RESULTS.md).
 *
 *   copy_pieces [ROUNDS]     (default 15; 256 MiB of buffers per size)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "copy.h"

#define NPIECE 5
#define MAXROUNDS 101

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* copy total bytes as copies of op bytes, each in pieces of piece (0:
 * one memcpy per copy) */
static void copy_all(char *d, const char *s, size_t total, size_t op,
		     size_t piece)
{
	size_t o, p, n;

	for (o = 0; o < total; o += op) {
		if (!piece) {
			memcpy(d + o, s + o, op);
			continue;
		}
		for (p = 0; p < op; p += n) {
			n = op - p < piece ? op - p : piece;
			memcpy(d + o + p, s + o + p, n);
		}
	}
}

int main(int argc, char **argv)
{
	static const size_t pieces[NPIECE] = {0, 64 << 10, 128 << 10, 256 << 10,
					      512 << 10};
	static const size_t ops[] = {1 << 20, 4 << 20, 16 << 20, 64 << 20,
				     256 << 20};
	static double t[NPIECE][MAXROUNDS];
	size_t total = (size_t)256 << 20, i;
	int rounds = argc > 1 ? atoi(argv[1]) : 15, r, k;
	char *s, *d;

	if (rounds < 1 || rounds > MAXROUNDS) {
		fprintf(stderr, "copy_pieces: ROUNDS from 1 to %d\n",
			MAXROUNDS);
		return 2;
	}
	s = malloc(total);
	d = malloc(total);
	if (!s || !d) {
		fprintf(stderr, "copy_pieces: out of memory\n");
		return 1;
	}
	memset(s, 1, total);
	memset(d, 0, total);
	printf("# copy_pieces: median MB/s of %d rounds, %zu MiB a round; "
	       "rc_copy's piece: %zu KiB\n",
	       rounds, total >> 20, RC_COPY_PIECE >> 10);
	printf("# %-9s %10s %10s %10s %10s %10s\n", "copy", "one call",
	       "64 KiB", "128 KiB", "256 KiB", "512 KiB");
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		printf("%7zu MiB", ops[i] >> 20);
		for (r = 0; r < rounds; r++)
			for (k = 0; k < NPIECE; k++) {
				double t0 = now();

				copy_all(d, s, total, ops[i], pieces[k]);
				t[k][r] = now() - t0;
			}
		for (k = 0; k < NPIECE; k++) {
			qsort(t[k], (size_t)rounds, sizeof(double), cmp_double);
			printf(" %10.0f",
			       (double)total / t[k][rounds / 2] / 1e6);
		}
		printf("\n");
	}
	/* (rc_copy itself: the same bytes, checked) */
	memset(d, 0, total);
	rc_copy(d, s, total);
	if (memcmp(d, s, total)) {
		fprintf(stderr, "copy_pieces: rc_copy lost bytes\n");
		return 1;
	}
	free(s);
	free(d);
	return 0;
}
