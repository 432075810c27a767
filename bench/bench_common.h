/*
 * bench_common.h - option parsing, timing and output shared by the
 * OSU-style collective benchmarks in bench/. Standard MPI only, so the
 * same sources build with any MPI's mpicc (rcmpi's or Open MPI's) and the
 * two can be compared side by side.
 *
 * Options (as in the OSU micro-benchmarks):
 *   -m min:max   message sizes in bytes, powers of two (default 1:1048576,
 *                or the benchmark's smallest meaningful size)
 *   -i iters     timed iterations per size (default 1000, 100 above 8 KiB)
 *   -x warmup    untimed iterations first (default 100, 10 above 8 KiB)
 *   -c           validate every result (outside the timed region)
 * Output: a header, then one line per size: the size and the latency in
 * microseconds averaged over iterations and ranks (as OSU), the minimum
 * and maximum of the ranks' averages, and the median over iterations
 * (averaged over ranks): on a shared machine a few preempted iterations
 * dominate the mean, the median shows the typical call. With -c a failed
 * check prints and exits with status 1.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>

struct bench {
	const char *name;
	size_t min, max;
	int iters, warmup;	/* -1: defaults by size */
	int validate;
	int rank, size;
	int failed;		/* validation failures on this rank */
	double *laps;		/* this size's timed iterations */
	int nlaps;
};

/* MPI_Init, parse argv, print the header on rank 0. Returns 0 or exits. */
void bench_init(struct bench *b, int *argc, char ***argv, const char *name,
		size_t min_size, int sized);
/* Iterations and warm-up rounds for a message of `size` bytes. */
int bench_iters(const struct bench *b, size_t size);
int bench_warmup(const struct bench *b, size_t size);
/* Record timed iteration i (>= 0; warm-up rounds pass i < 0) of dt
 * seconds; returns dt, or 0 for a warm-up round. */
double bench_lap(struct bench *b, int i, double dt);
/* Print one line from this rank's total time of `iters` calls. */
void bench_report(struct bench *b, size_t size, double total, int iters);
/* Note a validation failure (prints the first few). */
void bench_fail(struct bench *b, size_t size, size_t index, double got,
		double want);
/* MPI_Finalize; exit status 1 when any rank failed validation. */
int bench_finish(struct bench *b);
/* Page-aligned, touched buffer. */
void *bench_alloc(size_t len);

#endif
