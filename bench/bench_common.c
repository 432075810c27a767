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

static void usage(const struct bench *b, const char *prog)
{
	const char *t = "calls";

	if (b->mt == BENCH_MT_LAT)
		t = "[senders:]receivers";
	else if (b->mt == BENCH_MT_RATE)
		t = "threads";
	fprintf(stderr,
		"usage: %s [-m [min:]max] [-i iters] [-x warmup] [-W window] "
		"%s[-c] [-N cart:D:R|graph:FILE] [-t %s]\n",
		prog,
		b->rma_syncs ? "[-w create|allocate|dynamic] [-s sync] "
			       "[-T mpi_char|mpi_int|mpi_float|mpi_double] "
			     : "",
		t);
}

/* -w and -s of the one-sided benchmarks (OSU's names); false if unknown */
static int rma_opt(struct bench *b, int opt, const char *arg)
{
	static const char *const wins[] = { "create", "allocate", "dynamic" };
	static const char *const syncs[] = { "lock", "pscw", "fence", "flush",
					     "flush_local", "lock_all" };
	int i;

	if (opt == 'w') {
		for (i = 0; i < 3; i++)
			if (!strcmp(arg, wins[i])) {
				b->win_type = i;
				return 1;
			}
		return 0;
	}
	for (i = 0; i < 6; i++)
		if (!strcmp(arg, syncs[i]) && (b->rma_syncs & (1u << i))) {
			b->sync = i;
			return 1;
		}
	return 0;
}

#define MAX_THREADS 64

/* -t of the multi-threaded benchmarks: [S:]R or T; false if malformed */
static int mt_threads(struct bench *b, const char *arg)
{
	char *end;
	long s = b->tsend, r = strtol(arg, &end, 10);

	if (b->mt == BENCH_MT_LAT && *end == ':') {
		s = r;
		r = strtol(end + 1, &end, 10);
	} else if (b->mt == BENCH_MT_RATE) {
		s = r;
	}
	if (*end || s < 1 || r < 1 || s > MAX_THREADS || r > MAX_THREADS) {
		if (!b->rank)
			fprintf(stderr, "%s: -t %s: want %s, each 1 to %d\n",
				b->name, arg,
				b->mt == BENCH_MT_LAT ? "[senders:]receivers"
						      : "threads",
				MAX_THREADS);
		return 0;
	}
	b->tsend = (int)s;
	b->trecv = (int)r;
	return 1;
}

/* MPI_Init, the options, then the title lines on rank 0 */
static void init(struct bench *b, int *argc, char ***argv, const char *name)
{
	int opt;
	char *colon;
	size_t min = b->min;

	if (b->mt) {
		int provided;

		MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
		if (provided < MPI_THREAD_MULTIPLE) {
			fprintf(stderr,
				"%s: the MPI provides thread level %d, "
				"not MPI_THREAD_MULTIPLE\n",
				(*argv)[0], provided);
			MPI_Finalize();
			exit(2);
		}
	} else {
		MPI_Init(argc, argv);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &b->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &b->size);
	b->name = strrchr((*argv)[0], '/') ? strrchr((*argv)[0], '/') + 1 :
		(*argv)[0];
	b->iters = -1;
	b->warmup = -1;
	b->window = 64;
	while ((opt = getopt(*argc, *argv,
			     b->rma_syncs ? "m:i:x:W:w:s:T:cN:t:h"
					  : "m:i:x:W:cN:t:h")) != -1) {
		switch (opt) {
		case 'w':
		case 's':
			if (rma_opt(b, opt, optarg))
				break;
			if (!b->rank)
				fprintf(stderr, "%s: -%c %s: not one of OSU's "
					"choices for this benchmark\n",
					(*argv)[0], opt, optarg);
			if (!b->rank)
				usage(b, (*argv)[0]);
			MPI_Finalize();
			exit(2);
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
		case 'W':
			b->window = atoi(optarg);
			if (b->window < 1)
				b->window = 1;
			break;
		case 'c':
			b->validate = 1;
			break;
		case 'N':
			b->nhbr = optarg;
			break;
		case 'T':
			b->type = optarg;
			break;
		case 't':
			if (!b->mt) {
				b->ntest = atoi(optarg);
				break;
			}
			if (!mt_threads(b, optarg))
				goto bad;
			break;
		default:
		bad:
			if (!b->rank)
				usage(b, (*argv)[0]);
			MPI_Finalize();
			exit(opt == 'h' ? 0 : 2);
		}
	}
	if (b->min < min)
		b->min = min;
	if (!b->rank) {
		printf("# %s: %s\n", b->name, name);
		printf("# ranks %d%s\n", b->size,
		       b->validate ? ", results validated" : "");
		if (b->mt == BENCH_MT_LAT)
			printf("# Number of Sender threads: %d\n"
			       "# Number of Receiver threads: %d\n",
			       b->tsend, b->trecv);
		else if (b->mt == BENCH_MT_RATE)
			printf("# Threads per rank: %d\n", b->tsend);
	}
}

static void coll_init(struct bench *b, int *argc, char ***argv,
		      const char *name, size_t min_size, int sized, int nbc)
{
	memset(b, 0, sizeof(*b));
	b->kind = BENCH_COLL;
	b->sized = sized;
	b->min = min_size;
	b->max = sized ? 1u << 20 : 0;
	init(b, argc, argv, name);
	if (!sized)
		b->min = b->max = 0;
	if (!b->rank && nbc) {
		printf("# Overall = Coll. Init + Compute + MPI_Test + "
		       "MPI_Wait\n");
		printf("%-10s %14s %14s %16s %14s\n", "# Size", "Overall(us)",
		       "Compute(us)", "Pure Comm.(us)", "Overlap(%)");
		fflush(stdout);
	} else if (!b->rank) {
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

void bench_init(struct bench *b, int *argc, char ***argv, const char *name,
		size_t min_size, int sized)
{
	coll_init(b, argc, argv, name, min_size, sized, 0);
}

void bench_init_nbc(struct bench *b, int *argc, char ***argv, const char *name)
{
	coll_init(b, argc, argv, name, 1, 1, 1);
}

void bench_init_p2p(struct bench *b, int *argc, char ***argv,
		    const char *name, enum bench_kind kind, int min_ranks,
		    int exact, int even)
{
	unsigned syncs = b->rma_syncs;
	int win = b->win_type, sync = b->sync;
	int mt = b->mt, tsend = b->tsend, trecv = b->trecv;

	/* (bench_rma_init and bench_init_mt set their fields first) */
	memset(b, 0, sizeof(*b));
	b->rma_syncs = syncs;
	b->win_type = win;
	b->sync = sync;
	b->mt = mt;
	b->tsend = tsend;
	b->trecv = trecv;
	b->kind = kind;
	b->sized = 1;
	b->min = kind == BENCH_RATE ? 1 : 0;
	b->max = 1u << 22;
	init(b, argc, argv, name);
	if (b->size < min_ranks || (exact && b->size != min_ranks) ||
	    (even && b->size % 2)) {
		if (!b->rank)
			fprintf(stderr, "%s: needs %s%d ranks%s, not %d\n",
				(*argv)[0], exact ? "exactly " : "at least ",
				min_ranks, even ? " (an even number)" : "",
				b->size);
		MPI_Finalize();
		exit(2);
	}
	if (b->rank)
		return;
	if (b->rma_syncs) {
		static const char *const wnames[] = {
			"MPI_Win_create", "MPI_Win_allocate",
			"MPI_Win_create_dynamic"
		};
		static const char *const snames[] = {
			"MPI_Win_lock/unlock",
			"MPI_Win_post/start/complete/wait", "MPI_Win_fence",
			"MPI_Win_flush", "MPI_Win_flush_local",
			"MPI_Win_lock_all/unlock_all"
		};

		printf("# Window creation: %s\n", wnames[b->win_type]);
		printf("# Synchronization: %s\n", snames[b->sync]);
		if (b->type)
			printf("# Datatype: %s\n", b->type);
	}
	if (kind == BENCH_LAT)
		printf("%-10s%18s\n", "# Size", "Latency (us)");
	else if (kind == BENCH_BW)
		printf("%-10s%18s\n", "# Size", "Bandwidth (MB/s)");
	else
		printf("%-10s%18s%18s\n", "# Size", "MB/s", "Messages/s");
	fflush(stdout);
}

void bench_init_mt(struct bench *b, int *argc, char ***argv, const char *name,
		   enum bench_kind kind, int mt, int min_ranks, int exact,
		   int even)
{
	memset(b, 0, sizeof(*b));
	b->mt = mt;
	/* OSU's osu_latency_mt: one sender, two receivers */
	b->tsend = mt == BENCH_MT_LAT ? 1 : 2;
	b->trecv = 2;
	bench_init_p2p(b, argc, argv, name, kind, min_ranks, exact, even);
}

size_t bench_next(size_t size)
{
	return size ? size * 2 : 1;
}

/* OSU's defaults: small / large iterations and warm-up rounds */
static const int defaults[][4] = {
	[BENCH_COLL] = { 1000, 100, 100, 10 },
	[BENCH_LAT] = { 10000, 1000, 100, 10 },
	[BENCH_BW] = { 100, 20, 10, 2 },
	[BENCH_RATE] = { 100, 20, 10, 2 },
};

int bench_iters(const struct bench *b, size_t size)
{
	if (b->iters > 0)
		return b->iters;
	return defaults[b->kind][size > LARGE];
}

int bench_warmup(const struct bench *b, size_t size)
{
	if (b->warmup >= 0)
		return b->warmup;
	return defaults[b->kind][2 + (size > LARGE)];
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
	if (b->sized)
		printf("%-10zu %14.2f %14.2f %14.2f %14.2f\n", size,
		       sum / b->size, mn, mx, msum / b->size);
	else
		printf("%14.2f %14.2f %14.2f %14.2f\n", sum / b->size, mn, mx,
		       msum / b->size);
	fflush(stdout);
}

void bench_nbc_report(struct bench *b, size_t size, double overall,
		      double compute, double pure)
{
	double v[3] = {overall * 1e6, compute * 1e6, pure * 1e6}, s[3];
	double ov;

	MPI_Reduce(v, s, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (b->rank)
		return;
	s[0] /= b->size;
	s[1] /= b->size;
	s[2] /= b->size;
	ov = s[2] > 0 ? 100 * (1 - (s[0] - s[1]) / s[2]) : 0;
	if (ov < 0)
		ov = 0;
	if (ov > 100)
		ov = 100;
	printf("%-10zu %14.2f %14.2f %16.2f %14.2f\n", size, s[0], s[1], s[2],
	       ov);
	fflush(stdout);
}

double bench_compute(double seconds, int tests, void *req)
{
	MPI_Request *r = req;
	double t0 = MPI_Wtime(), next = seconds / (tests + 1), now;
	int done = 0, flag;

	while ((now = MPI_Wtime() - t0) < seconds)
		if (tests && r && *r != MPI_REQUEST_NULL && now >= next) {
			MPI_Test(r, &flag, MPI_STATUS_IGNORE);
			next += seconds / (tests + 1);
			if (++done == tests)
				tests = 0;
		}
	return MPI_Wtime() - t0;
}

void bench_print(const struct bench *b, size_t size, double v1, double v2)
{
	if (b->rank)
		return;
	if (b->kind == BENCH_RATE)
		printf("%-10zu%18.2f%18.2f\n", size, v1, v2);
	else
		printf("%-10zu%18.2f\n", size, v1);
	fflush(stdout);
}

/* byte i of pattern `seed`: changes with the seed, the offset and the
 * page, so a stale, shifted or misplaced block shows */
static unsigned char pattern(size_t i, unsigned seed)
{
	return (unsigned char)(i * 31 + (i >> 12) * 7 + seed * 101 + 1);
}

void bench_fill(void *buf, size_t len, unsigned seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pattern(i, seed);
}

int bench_check(struct bench *b, const void *buf, size_t len, unsigned seed,
		size_t size)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern(i, seed)) {
			bench_fail(b, size, i, p[i], pattern(i, seed));
			return -1;
		}
	return 0;
}

void bench_red_fill(const struct bench *b, float *sb, size_t n)
{
	size_t j;

	for (j = 0; j < n; j++)
		sb[j] = (float)(b->rank + j % 7);
}

int bench_red_check(struct bench *b, const float *rb, size_t first, size_t n,
		    size_t size)
{
	size_t j;

	for (j = 0; j < n; j++) {
		size_t g = first + j;
		float want = (float)(b->size * (g % 7) +
				     b->size * (b->size - 1) / 2);

		if (rb[j] != want) {
			bench_fail(b, size, j, rb[j], want);
			return -1;
		}
	}
	return 0;
}

void bench_fail(struct bench *b, size_t size, size_t index, double got,
		double want)
{
	if (__atomic_fetch_add(&b->failed, 1, __ATOMIC_RELAXED) < 5)
		fprintf(stderr, "%s: rank %d, size %zu: element %zu is %g, "
			"expected %g\n", b->name, b->rank, size, index, got,
			want);
}

/* this process's peak resident set (KiB), 0 where /proc has none */
static long vmhwm(void)
{
	char line[256];
	long kib = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6)) {
			kib = strtol(line + 6, NULL, 10);
			break;
		}
	fclose(f);
	return kib;
}

int bench_finish(struct bench *b)
{
	int bad = b->failed, any = 0;
	long hwm = vmhwm(), mn = 0, mx = 0, sum = 0;

	free(b->laps);
	b->laps = NULL;
	MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Reduce(&hwm, &mn, 1, MPI_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
	MPI_Reduce(&hwm, &mx, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&hwm, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (!b->rank)
		printf("# VmHWM per rank (KiB): min %ld avg %ld max %ld\n", mn,
		       sum / b->size, mx);
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
