/*
 * jobs.h - helpers for the integration jobs: standard MPI programs that
 * check their own results and end with MPI_Abort(99) on the first mismatch,
 * naming the rank, file and line.
 */
#ifndef RC_JOBS_H
#define RC_JOBS_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                    \
	do {                                                                \
		if (!(cond)) {                                              \
			int r_;                                             \
			MPI_Comm_rank(MPI_COMM_WORLD, &r_);                 \
			fprintf(stderr, "FAIL rank %d %s:%d: %s: ", r_,     \
				__FILE__, __LINE__, #cond);                 \
			fprintf(stderr, __VA_ARGS__);                       \
			fprintf(stderr, "\n");                              \
			fflush(stderr);                                     \
			MPI_Abort(MPI_COMM_WORLD, 99);                      \
		}                                                           \
	} while (0)

#define CHECK_MPI(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

/* The error class of a return code, and a call that must fail with
 * class `want` (under MPI_ERRORS_RETURN or a handler that returns). */
static inline int job_class(int ret)
{
	int cls;

	MPI_Error_class(ret, &cls);
	return cls;
}

#define EXPECT_CLASS(call, want)                                             \
	do {                                                                 \
		int c_ = job_class(call);                                    \
		CHECK(c_ == (want), "%s: class %d, want %s (%d)", #call, c_, \
		      #want, want);                                          \
	} while (0)

/* The non-fatal kind, for jobs that run everything and report at the end:
 * counts a mismatch in the job's own `errors` and prints the first ten,
 * naming the job's `rank`, the file and the line. */
#define TALLY(cond, ...)                                                    \
	do {                                                                \
		if (!(cond)) {                                              \
			if (errors++ < 10) {                                \
				fprintf(stderr, "rank %d: %s:%d: ", rank,   \
					__FILE__, __LINE__);                \
				fprintf(stderr, __VA_ARGS__);               \
				fputc('\n', stderr);                        \
			}                                                   \
		}                                                           \
	} while (0)

static inline unsigned char job_byte(size_t i, int seed)
{
	return (unsigned char)(i * 131u + (unsigned)seed * 7u + (i >> 12));
}

static inline void job_fill(unsigned char *b, size_t n, int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = job_byte(i, seed);
}

/* Index of the first wrong byte, or (size_t)-1. */
static inline size_t job_verify(const unsigned char *b, size_t n, int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != job_byte(i, seed))
			return i;
	return (size_t)-1;
}

static inline int job_cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* The n values (sorted in place) should be 0 .. n - 1, each once, as the
 * old values of n fetch-and-adds of one are: the index of the first that
 * is not, or -1. */
static inline long job_not_each_once(long long *v, long n)
{
	long i;

	qsort(v, (size_t)n, sizeof(*v), job_cmp_ll);
	for (i = 0; i < n; i++)
		if (v[i] != i)
			return i;
	return -1;
}

#endif
