/*
 * bench_common.c - see bench_common.h.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench_common.h"

#define LARGE 8192

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-m min:max] [-i iters] [-x warmup] [-c]\n", prog);
}

void bench_init(struct bench *b, int *argc, char ***argv, const char *name,
		size_t min_size, int sized)
{
	int opt;
	char *colon;

	memset(b, 0, sizeof(*b));
	b->name = name;
	b->min = min_size;
	b->max = sized ? 1u << 20 : 0;
	b->iters = -1;
	b->warmup = -1;
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &b->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &b->size);
	while ((opt = getopt(*argc, *argv, "m:i:x:ch")) != -1) {
		switch (opt) {
		case 'm':
			colon = strchr(optarg, ':');
			if (colon) {
				if (colon != optarg)
					b->min = strtoul(optarg, NULL, 0);
				b->max = strtoul(colon + 1, NULL, 0);
			} else {
				b->max = strtoul(optarg, NULL, 0);
			}
			break;
		case 'i':
			b->iters = atoi(optarg);
			break;
		case 'x':
			b->warmup = atoi(optarg);
			break;
		case 'c':
			b->validate = 1;
			break;
		default:
			if (!b->rank)
				usage((*argv)[0]);
			MPI_Finalize();
			exit(opt == 'h' ? 0 : 2);
		}
	}
	if (b->min < min_size)
		b->min = min_size;
	if (!b->rank) {
		printf("# %s\n", name);
		printf("# ranks %d%s\n", b->size,
		       b->validate ? ", results validated" : "");
		if (sized)
			printf("%-10s %14s %14s %14s %14s\n", "# Size",
			       "Avg Latency(us)", "Min(us)", "Max(us)",
			       "Median(us)");
		else
			printf("%14s %14s %14s %14s\n", "# Avg Latency(us)",
			       "Min(us)", "Max(us)", "Median(us)");
		fflush(stdout);
	}
}

int bench_iters(const struct bench *b, size_t size)
{
	if (b->iters > 0)
		return b->iters;
	return size > LARGE ? 100 : 1000;
}

int bench_warmup(const struct bench *b, size_t size)
{
	if (b->warmup >= 0)
		return b->warmup;
	return size > LARGE ? 10 : 100;
}

double bench_lap(struct bench *b, int i, double dt)
{
	if (i < 0)
		return 0;
	if (i >= b->nlaps) {
		int n = i < 1024 ? 1024 : 2 * i;
		double *l = realloc(b->laps, sizeof(double) * (size_t)n);

		if (!l) {
			fprintf(stderr, "out of memory\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		b->laps = l;
		b->nlaps = n;
	}
	b->laps[i] = dt;
	return dt;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, c = *(const double *)y;

	return a < c ? -1 : a > c;
}

void bench_report(struct bench *b, size_t size, double total, int iters)
{
	double lat = total * 1e6 / iters, sum, mn, mx, med = 0, msum;

	if (b->laps && iters <= b->nlaps) {
		qsort(b->laps, (size_t)iters, sizeof(double), cmp_double);
		med = (b->laps[(iters - 1) / 2] + b->laps[iters / 2]) / 2 * 1e6;
	}
	MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(&lat, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
	MPI_Reduce(&lat, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&med, &msum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (b->rank)
		return;
	if (b->max)
		printf("%-10zu %14.2f %14.2f %14.2f %14.2f\n", size,
		       sum / b->size, mn, mx, msum / b->size);
	else
		printf("%14.2f %14.2f %14.2f %14.2f\n", sum / b->size, mn, mx,
		       msum / b->size);
	fflush(stdout);
}

void bench_fail(struct bench *b, size_t size, size_t index, double got,
		double want)
{
	if (b->failed++ < 5)
		fprintf(stderr, "%s: rank %d, size %zu: element %zu is %g, "
			"expected %g\n", b->name, b->rank, size, index, got,
			want);
}

int bench_finish(struct bench *b)
{
	int bad = b->failed, any = 0;

	free(b->laps);
	b->laps = NULL;
	MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (!b->rank && b->validate)
		printf("# validation: %s\n", any ? "FAILED" : "passed");
	MPI_Finalize();
	return any ? 1 : 0;
}

void *bench_alloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len ? len : 1)) {
		fprintf(stderr, "out of memory (%zu bytes)\n", len);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	memset(p, 0, len ? len : 1);
	return p;
}
