/*
 * median.h - timing per iteration as perftest times its own, for the
 * like-for-like benchmarks (rma_median, p2p_median): a cycle counter read
 * once per iteration, its rate taken from MPI_Wtime over the whole loop,
 * then the median and the mean of the iterations. In a VM whose clock
 * source is the HPET, clock_gettime is a system call, too slow to read
 * per iteration; on x86-64 the counter is the TSC, elsewhere MPI_Wtime.
 * Standard MPI only (the programs build with any MPI's mpicc).
 */
#ifndef BENCH_MEDIAN_H
#define BENCH_MEDIAN_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#ifdef __x86_64__
#include <x86intrin.h>
#endif

/* the counter read once per iteration (its rate: from MPI_Wtime) */
static inline uint64_t med_ticks(void)
{
#ifdef __x86_64__
	return __rdtsc();
#else
	return (uint64_t)(MPI_Wtime() * 1e9);
#endif
}

static inline int med_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * t[0..n]: the counter before each of n iterations and after the last,
 * over [w0, w1] seconds of MPI_Wtime. Each iteration's time in µs, divided
 * by div (2: half a round trip), goes to lat[0..n-1], sorted; *median and
 * *mean get their median and mean.
 */
static inline void med_stats(const uint64_t *t, int n, double w0, double w1,
			     double div, double *lat, double *median,
			     double *mean)
{
	double rate = (double)(t[n] - t[0]) / (w1 - w0), sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		lat[i] = (double)(t[i + 1] - t[i]) / rate * 1e6 / div;
		sum += lat[i];
	}
	qsort(lat, (size_t)n, sizeof(*lat), med_cmp_double);
	*median = lat[n / 2];
	*mean = sum / n;
}

#endif
