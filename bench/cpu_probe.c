/*
 * cpu_probe.c - how fast each CPU runs right now: for every CPU this
 * process may run on, pinned there, the best of 3 timings of a fixed
 * loop of plain integer work; prints "CPU MS" per line.
 *
 * Why: on a shared host a core's speed can drop 2-3 times for seconds
 * while a neighbour works on its sibling (seen on our 2-core boxes: a
 * 50-million-step loop took 15 ms on one core and 43 ms on the other, then
 * both 15 ms a second later), and the cores of a qemu guest slow down
 * with the host's. A benchmark run made meanwhile measures the host, not
 * the MPI. bench/compare.sh runs this before and after each run and can
 * set apart the runs made on steady cores (run_compare.sh, cmp_steady).
 *
 *   cpu_probe [STEPS]        (default 2000000: about 0.6 ms natively,
 *                             5 ms under qemu's binary translation)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* (config.h defines it in the build) */
#endif
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* the loop's sum: volatile, so that every step is made */
static volatile unsigned long sink;

static double probe(unsigned long steps)
{
	double best = 1e30, t;
	unsigned long i;
	int k;

	for (k = 0; k < 3; k++) {
		t = now_ms();
		for (i = 0; i < steps; i++)
			sink += i;
		t = now_ms() - t;
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	unsigned long steps = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000000;
	cpu_set_t all, one;
	int c;

	if (sched_getaffinity(0, sizeof(all), &all)) {
		perror("cpu_probe: sched_getaffinity");
		return 1;
	}
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		printf("%d %.3f\n", c, probe(steps));
	}
	return 0;
}
