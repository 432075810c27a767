/*
 * bench_common.h - option parsing, timing, validation and output shared by
 * the OSU-style benchmarks in bench/. Standard MPI only, so the same
 * sources build with any MPI's mpicc (rcmpi's, Open MPI's, MPICH's) and
 * the MPIs can be compared side by side (bench/compare.sh).
 *
 * Options (as in the OSU micro-benchmarks):
 *   -m [min:]max message sizes in bytes, powers of two (defaults: 0 B -
 *                4 MiB for point-to-point, 1 B - 1 MiB for collectives,
 *                or the benchmark's smallest meaningful size)
 *   -i iters     timed iterations per size (OSU's defaults: latency 10000,
 *                1000 above 8 KiB; bandwidth 100, 20 above 8 KiB;
 *                collectives 1000, 100 above 8 KiB)
 *   -x warmup    untimed iterations first (latency 100/10, bandwidth
 *                10/2, collectives 100/10)
 *   -W window    messages in flight per iteration (bandwidth, message
 *                rate; default 64)
 *   -w, -s       one-sided benchmarks only (bench_rma.h): window creation
 *                and synchronisation, as OSU's
 *   -c           validate received data (a fresh pattern every iteration;
 *                the checks run inside the timed loop of the point-to-point
 *                benchmarks: don't compare validated timings)
 *   -N TYPE:ARGS neighbourhood benchmarks (nbr_common.h): cart:D:R (a
 *                periodic D-dimensional grid, every rank within R steps a
 *                neighbour; default cart:1:1) or graph:FILE ("src,dst" a
 *                line, '#' comments)
 *   -t CALLS     nonblocking benchmarks: MPI_Test calls spread over the
 *                dummy computation (default 0)
 *   -t [S:]R     multi-threaded latency (bench_init_mt, BENCH_MT_LAT): S
 *                sender threads on rank 0 (default 1), R receiver threads
 *                on rank 1 (default 2), as OSU's osu_latency_mt
 *   -t T         multi-threaded message rate (BENCH_MT_RATE): T threads
 *                per rank (default 2)
 * Output: a header ("# program: title", "# ranks N"), a column line, then one
 * line per size in OSU's layout: point-to-point "size latency(us)", "size
 * MB/s", "size MB/s messages/s"; collectives the size, the latency in
 * microseconds averaged over iterations and ranks (as OSU), the minimum
 * and maximum of the ranks' averages, and the median call (averaged over
 * ranks: on a shared machine a few preempted iterations dominate the mean,
 * the median shows the typical call). Last, "# VmHWM" with the ranks'
 * peak resident memory (KiB, from /proc/self/status before
 * MPI_Finalize) and, with -c, "# validation: passed|FAILED"; a failed
 * check exits with status 1.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>

enum bench_kind {
	BENCH_COLL,	/* collective latency, avg/min/max/median columns */
	BENCH_LAT,	/* point-to-point latency (us) */
	BENCH_BW,	/* point-to-point bandwidth (MB/s) */
	BENCH_RATE,	/* aggregate bandwidth (MB/s) and messages/s */
};

struct bench {
	const char *name;	/* the program's name */
	enum bench_kind kind;
	size_t min, max;
	int sized;		/* 0: one line, no size (barrier) */
	int iters, warmup;	/* -1: defaults by size */
	int window;
	int validate;
	const char *nhbr; /* -N, or NULL */
	const char *type; /* -T (one-sided accumulates), or NULL */
	int ntest;	  /* -t */
	int rank, size;
	/* one-sided (bench_rma.h): -w and -s, the sync modes allowed */
	unsigned rma_syncs;
	int win_type, sync;
	/* multi-threaded (bench_init_mt): 0, BENCH_MT_LAT or BENCH_MT_RATE;
	 * thread counts from -t */
	int mt;
	int tsend, trecv;
	int failed;		/* validation failures on this rank (atomic) */
	double *laps;		/* this size's timed iterations */
	int nlaps;
};

/* Collectives: MPI_Init, parse argv, print the header on rank 0. Returns
 * or exits. `sized` 0: the benchmark has no message size (barrier). */
void bench_init(struct bench *b, int *argc, char ***argv, const char *name,
		size_t min_size, int sized);
/* Point-to-point: the same with OSU's point-to-point defaults for `kind`;
 * exits with a message unless the number of ranks is at least `min_ranks`
 * (exactly, when `exact`) and even when `even`. */
void bench_init_p2p(struct bench *b, int *argc, char ***argv,
		    const char *name, enum bench_kind kind, int min_ranks,
		    int exact, int even);
/* Multi-threaded point-to-point benchmarks: bench_init_p2p after
 * MPI_Init_thread(MPI_THREAD_MULTIPLE) (exits with a message when the MPI
 * provides less), -t parsed as the thread counts of `mt`, and the counts
 * printed in the header. */
#define BENCH_MT_LAT 1	/* -t [S:]R: sender and receiver threads */
#define BENCH_MT_RATE 2 /* -t T: threads per rank */
void bench_init_mt(struct bench *b, int *argc, char ***argv, const char *name,
		   enum bench_kind kind, int mt, int min_ranks, int exact,
		   int even);
/* The next size of the loop: 0, 1, 2, 4, ... */
size_t bench_next(size_t size);
/* Iterations and warm-up rounds for a message of `size` bytes. */
int bench_iters(const struct bench *b, size_t size);
int bench_warmup(const struct bench *b, size_t size);
/* Record timed iteration i (>= 0; warm-up rounds pass i < 0) of dt
 * seconds; returns dt, or 0 for a warm-up round. */
double bench_lap(struct bench *b, int i, double dt);
/* Collectives: print one line from this rank's total time of `iters`
 * calls (collective over MPI_COMM_WORLD). */
void bench_report(struct bench *b, size_t size, double total, int iters);
/* Nonblocking collectives, OSU's layout: bench_init with the column line
 * "# Size Overall(us) Compute(us) Pure Comm.(us) Overlap(%)", then each
 * size reported from this rank's means (seconds): the call plus a dummy
 * computation as long as the pure communication (overall), that
 * computation, and the call alone (pure); each averaged over the ranks,
 * overlap = 100 (1 - (overall - compute) / pure) clipped to [0, 100]. */
void bench_init_nbc(struct bench *b, int *argc, char ***argv, const char *name);
void bench_nbc_report(struct bench *b, size_t size, double overall,
		      double compute, double pure);
/* Busy for `seconds`, calling MPI_Test on req `tests` times spread over
 * it (MPI_REQUEST_NULL: none); returns the time it took. */
double bench_compute(double seconds, int tests, void *req);
/* Point-to-point: rank 0 prints "size v1 [v2]" (v2 for BENCH_RATE). */
void bench_print(const struct bench *b, size_t size, double v1, double v2);
/* Fill `len` bytes with the pattern of `seed`; check a buffer against it
 * (a mismatch is noted with bench_fail; returns 0 when it matches). */
void bench_fill(void *buf, size_t len, unsigned seed);
int bench_check(struct bench *b, const void *buf, size_t len, unsigned seed,
		size_t size);
/* Reductions (MPI_FLOAT, MPI_SUM): rank r contributes element j = r + j % 7,
 * so element g of the sum over all ranks is size * (g % 7) + size(size-1)/2
 * (exact in float at our sizes). Fill n elements; check n result elements
 * that start at global element `first`. */
void bench_red_fill(const struct bench *b, float *sb, size_t n);
int bench_red_check(struct bench *b, const float *rb, size_t first, size_t n,
		    size_t size);
/* Note a validation failure (prints the first few; any thread). */
void bench_fail(struct bench *b, size_t size, size_t index, double got,
		double want);
/* Peak RSS line, MPI_Finalize; exit status 1 when any rank failed
 * validation. */
int bench_finish(struct bench *b);
/* Page-aligned, touched buffer. */
void *bench_alloc(size_t len);

#endif
