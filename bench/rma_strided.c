/*
 * rma_strided.c - one-sided put and get of a strided (vector) type: the
 * latency of one operation and its flush as the number of runs grows,
 * for several run sizes. What RCMPI_RMA_DIRECT_LIST's default comes from
 * (rma/README.md): run it once with the list path off
 * (RCMPI_RMA_DIRECT_LIST=0: packed into active messages) and once with
 * it unlimited, and find where the list stops being faster.
 *
 * Rank 0 is the origin, rank 1 the target (it waits in the barrier at the
 * end, which makes progress for the active-message path as a target that
 * calls MPI would). Window: MPI_Win_allocate, one shared lock_all epoch;
 * each iteration is MPI_Put (or MPI_Get) of one vector of RUNS blocks of
 * B bytes at a stride of 2B in the origin's memory into contiguous
 * target memory, then MPI_Win_flush; the get brings the put's bytes back
 * into a cleared buffer, which is checked (a wrong byte aborts). The
 * median of the iterations' times, in microseconds.
 *
 * With -s 1, each run is an MPI_Put or MPI_Get of its own (contiguous on
 * both sides) instead: what the same runs cost as separate operations.
 *
 *   rma_strided [-i iters] [-r r1,r2,...] [-b b1,b2,...] [-s 1]
 *   (defaults: 200 iterations; runs 1,2,4,8,16,32,64,128; B 8,64,512,4096)
 * Output: "# rma_strided", then "op B runs usec" lines.
 * Standard MPI only: builds with any MPI's mpicc.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXL 32

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The runs of the vector as operations of their own (-s 1). */
static void one_by_one(int get, char *buf, long runs, long b, MPI_Win win)
{
	long r;

	for (r = 0; r < runs; r++) {
		if (get)
			MPI_Get(buf + 2 * b * r, (int)b, MPI_BYTE, 1,
				(MPI_Aint)(b * r), (int)b, MPI_BYTE, win);
		else
			MPI_Put(buf + 2 * b * r, (int)b, MPI_BYTE, 1,
				(MPI_Aint)(b * r), (int)b, MPI_BYTE, win);
	}
}

/* "1,2,4" into v (at most MAXL); the count. */
static int parse_list(const char *s, long *v)
{
	int n = 0;
	char *end;

	while (*s && n < MAXL) {
		v[n] = strtol(s, &end, 10);
		if (end == s || v[n] <= 0)
			return -1;
		n++;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

int main(int argc, char **argv)
{
	long runs[MAXL] = {1, 2, 4, 8, 16, 32, 64, 128};
	long bsz[MAXL] = {8, 64, 512, 4096};
	int nruns = 8, nb = 4, iters = 200, rank, size, i, k, op, bi, ri;
	int split = 0;
	long maxr = 0, maxb = 0;
	double *t;
	char *buf, *wmem;
	MPI_Win win;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-i"))
			iters = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-r"))
			nruns = parse_list(argv[i + 1], runs);
		else if (!strcmp(argv[i], "-b"))
			nb = parse_list(argv[i + 1], bsz);
		else if (!strcmp(argv[i], "-s"))
			split = atoi(argv[i + 1]);
		else
			nruns = -1;
	}
	if (size != 2 || iters <= 0 || nruns <= 0 || nb <= 0) {
		if (!rank)
			fprintf(stderr, "usage: 2 ranks; rma_strided [-i iters] "
					"[-r r1,r2,...] [-b b1,b2,...]\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (i = 0; i < nruns; i++)
		maxr = runs[i] > maxr ? runs[i] : maxr;
	for (i = 0; i < nb; i++)
		maxb = bsz[i] > maxb ? bsz[i] : maxb;
	buf = calloc(2, (size_t)(maxr * maxb));
	t = calloc((size_t)iters, sizeof(*t));
	if (!buf || !t)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Win_allocate((MPI_Aint)(maxr * maxb), 1, MPI_INFO_NULL,
			 MPI_COMM_WORLD, &wmem, &win);
	if (!rank)
		printf("# rma_strided\n# op B runs usec\n");
	MPI_Win_lock_all(0, win);
	for (bi = 0; bi < nb && !rank; bi++) {
		for (ri = 0; ri < nruns; ri++) {
			size_t n = (size_t)(runs[ri] * bsz[bi]), j;
			MPI_Datatype vec;

			MPI_Type_vector((int)runs[ri], (int)bsz[bi],
					(int)(2 * bsz[bi]), MPI_BYTE, &vec);
			MPI_Type_commit(&vec);
			for (op = 0; op < 2; op++) {
				/* put: the runs of a pattern; get: into a
				 * cleared buffer, checked after */
				for (j = 0; j < 2 * n; j++)
					buf[j] = op ? 0 : (char)(j * 7 + ri + bi);
				for (k = -10; k < iters; k++) {
					double t0 = MPI_Wtime();

					if (split)
						one_by_one(op, buf, runs[ri],
							   bsz[bi], win);
					else if (!op)
						MPI_Put(buf, 1, vec, 1, 0,
							(int)n, MPI_BYTE, win);
					else
						MPI_Get(buf, 1, vec, 1, 0,
							(int)n, MPI_BYTE, win);
					MPI_Win_flush(1, win);
					if (k >= 0)
						t[k] = MPI_Wtime() - t0;
				}
				qsort(t, (size_t)iters, sizeof(*t), cmp_double);
				printf("%s %ld %ld %.2f\n", op ? "get" : "put",
				       bsz[bi], runs[ri], t[iters / 2] * 1e6);
				fflush(stdout);
			}
			for (j = 0; j < 2 * n; j++) {
				char want = (j / (size_t)bsz[bi]) % 2
						    ? 0
						    : (char)(j * 7 + ri + bi);

				if (buf[j] != want) {
					fprintf(stderr,
						"rma_strided: B %ld runs %ld: "
						"byte %zu is %d, not %d\n",
						bsz[bi], runs[ri], j, buf[j],
						want);
					MPI_Abort(MPI_COMM_WORLD, 1);
				}
			}
			MPI_Type_free(&vec);
		}
	}
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&win);
	free(buf);
	free(t);
	MPI_Finalize();
	return 0;
}
