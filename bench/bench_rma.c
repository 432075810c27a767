/*
 * bench_rma.c - see bench_rma.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_rma.h"

void bench_rma_init(struct bench_rma *r, int *argc, char ***argv,
		    const char *title, enum bench_kind kind, int def_sync,
		    unsigned syncs)
{
	MPI_Group wg;
	int i, window_set = 0;

	memset(r, 0, sizeof(*r));
	/* OSU's window of one-sided operations is 32, unless -W */
	for (i = 1; i < *argc; i++)
		if (!strncmp((*argv)[i], "-W", 2))
			window_set = 1;
	r->b.rma_syncs = syncs;
	r->b.win_type = BENCH_WIN_ALLOCATE;
	r->b.sync = def_sync;
	bench_init_p2p(&r->b, argc, argv, title, kind, 2, 1, 0);
	if (!window_set)
		r->b.window = 32;
	r->peer = 1 - r->b.rank;
	r->lock_type = MPI_LOCK_SHARED;
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	MPI_Group_incl(wg, 1, &r->peer, &r->group);
	MPI_Group_free(&wg);
}

void bench_rma_buffers(struct bench_rma *r, size_t bytes)
{
	r->sbuf = bench_alloc(bytes);
	r->rbuf = bench_alloc(bytes);
	r->tbuf = bench_alloc(bytes);
}

void bench_rma_win_open(struct bench_rma *r, size_t bytes)
{
	MPI_Aint mine;

	r->wbytes = bytes;
	r->disp = 0;
	switch (r->b.win_type) {
	case BENCH_WIN_CREATE:
		r->base = bench_alloc(bytes);
		MPI_Win_create(r->base, (MPI_Aint)bytes, 1, MPI_INFO_NULL,
			       MPI_COMM_WORLD, &r->win);
		break;
	case BENCH_WIN_DYNAMIC:
		r->base = bench_alloc(bytes);
		MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &r->win);
		MPI_Win_attach(r->win, r->base, (MPI_Aint)bytes);
		MPI_Get_address(r->base, &mine);
		MPI_Sendrecv(&mine, 1, MPI_AINT, r->peer, 1, &r->disp, 1,
			     MPI_AINT, r->peer, 1, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		break;
	default:
		MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL,
				 MPI_COMM_WORLD, &r->base, &r->win);
		memset(r->base, 0, bytes);
		break;
	}
	if (r->winit)
		r->winit(r, bytes);
	MPI_Barrier(MPI_COMM_WORLD);
}

void bench_rma_win_close(struct bench_rma *r)
{
	if (r->b.win_type == BENCH_WIN_DYNAMIC)
		MPI_Win_detach(r->win, r->base);
	MPI_Win_free(&r->win);
	if (r->b.win_type != BENCH_WIN_ALLOCATE)
		free(r->base);
	r->base = NULL;
}

/* One iteration's operations: n of them at offsets j * size. */
static void ops(struct bench_rma *r, size_t size, int i, int n)
{
	int j;

	for (j = 0; j < n; j++)
		r->op(r, size, (size_t)j * size, i, j);
}

static void after(struct bench_rma *r, size_t size, int i)
{
	if (r->b.validate && r->after)
		r->after(r, size, i);
}

/*
 * The timed loop of one size: n operations per iteration (1: latency),
 * `bi` both ranks as origins (bibw). Returns rank 0's seconds for `it`
 * iterations, halved where the loop times a round trip (latency with
 * fence or pscw).
 */
static double run(struct bench_rma *r, size_t size, int n, int bi)
{
	int it = bench_iters(&r->b, size), wu = bench_warmup(&r->b, size);
	int i, me = r->b.rank, lat = n == 1 && !bi, active;
	double t0 = 0, t1 = 0;

	active = r->b.sync == BENCH_SYNC_FENCE || r->b.sync == BENCH_SYNC_PSCW;
	MPI_Barrier(MPI_COMM_WORLD);
	if (r->b.sync == BENCH_SYNC_FENCE) {
		for (i = 0; i < wu + it; i++) {
			if (i == wu)
				t0 = MPI_Wtime();
			MPI_Win_fence(0, r->win);
			if (me == 0 || bi)
				ops(r, size, i, n);
			MPI_Win_fence(0, r->win);
			if (me == 0 || bi)
				after(r, size, i);
			if (!lat)
				continue;
			if (me == 1)
				ops(r, size, i, n);
			MPI_Win_fence(0, r->win);
			if (me == 1)
				after(r, size, i);
		}
		t1 = MPI_Wtime();
	} else if (r->b.sync == BENCH_SYNC_PSCW) {
		for (i = 0; i < wu + it; i++) {
			if (bi) {
				if (i == wu)
					t0 = MPI_Wtime();
				MPI_Win_post(r->group, 0, r->win);
				MPI_Win_start(r->group, 0, r->win);
				ops(r, size, i, n);
				MPI_Win_complete(r->win);
				MPI_Win_wait(r->win);
				after(r, size, i);
			} else if (me == 0) {
				MPI_Win_start(r->group, 0, r->win);
				if (i == wu)
					t0 = MPI_Wtime();
				ops(r, size, i, n);
				MPI_Win_complete(r->win);
				after(r, size, i);
				if (lat) {
					MPI_Win_post(r->group, 0, r->win);
					MPI_Win_wait(r->win);
				}
			} else {
				MPI_Win_post(r->group, 0, r->win);
				MPI_Win_wait(r->win);
				if (lat) {
					MPI_Win_start(r->group, 0, r->win);
					ops(r, size, i, n);
					MPI_Win_complete(r->win);
					after(r, size, i);
				}
			}
		}
		t1 = MPI_Wtime();
	} else if (me == 0) {
		int s = r->b.sync;

		if (s == BENCH_SYNC_FLUSH || s == BENCH_SYNC_FLUSH_LOCAL)
			MPI_Win_lock(MPI_LOCK_SHARED, r->peer, 0, r->win);
		for (i = 0; i < wu + it; i++) {
			if (i == wu)
				t0 = MPI_Wtime();
			if (s == BENCH_SYNC_LOCK)
				MPI_Win_lock(r->lock_type, r->peer, 0, r->win);
			else if (s == BENCH_SYNC_LOCK_ALL)
				MPI_Win_lock_all(0, r->win);
			ops(r, size, i, n);
			if (s == BENCH_SYNC_LOCK)
				MPI_Win_unlock(r->peer, r->win);
			else if (s == BENCH_SYNC_LOCK_ALL)
				MPI_Win_unlock_all(r->win);
			else if (s == BENCH_SYNC_FLUSH)
				MPI_Win_flush(r->peer, r->win);
			else
				MPI_Win_flush_local(r->peer, r->win);
			after(r, size, i);
		}
		t1 = MPI_Wtime();
		if (s == BENCH_SYNC_FLUSH || s == BENCH_SYNC_FLUSH_LOCAL)
			MPI_Win_unlock(r->peer, r->win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	/* this rank's window was the target of wu + it iterations when the
	 * peer was an origin */
	if (r->b.validate && r->final && (me == 1 || bi || (lat && active)))
		r->final(r, size, wu + it);
	return (t1 - t0) / (lat && active ? 2 : 1);
}

void bench_rma_latency(struct bench_rma *r, size_t fixed)
{
	size_t min = fixed ? fixed : r->b.min, max = fixed ? fixed : r->b.max;
	size_t size;

	for (size = min; size <= max; size = bench_next(size)) {
		double t;

		r->nops = 1;
		bench_rma_win_open(r, size);
		t = run(r, size, 1, 0);
		bench_print(&r->b, size,
			    t * 1e6 / bench_iters(&r->b, size), 0);
		bench_rma_win_close(r);
	}
}

void bench_rma_bandwidth(struct bench_rma *r, int bi)
{
	size_t size, min = r->b.min ? r->b.min : 1;

	for (size = min; size <= r->b.max; size = bench_next(size)) {
		size_t n = (size_t)r->b.window;
		double t;

		r->nops = r->b.window;
		bench_rma_win_open(r, size * n);
		t = run(r, size, r->b.window, bi);
		bench_print(&r->b, size,
			    (bi ? 2.0 : 1.0) * (double)size * (double)n *
				    bench_iters(&r->b, size) / t / 1e6, 0);
		bench_rma_win_close(r);
	}
}

int bench_rma_finish(struct bench_rma *r)
{
	free(r->sbuf);
	free(r->rbuf);
	free(r->tbuf);
	MPI_Group_free(&r->group);
	return bench_finish(&r->b);
}

/* ---- put and get: shared by the latency and bandwidth programs ---- */

void bench_rma_put_op(struct bench_rma *r, size_t size, size_t off, int i,
		      int j)
{
	if (r->b.validate)
		bench_fill(r->sbuf + off, size, (unsigned)(i * 64 + j));
	MPI_Put(r->sbuf + off, (int)size, MPI_CHAR, r->peer,
		r->disp + (MPI_Aint)off, (int)size, MPI_CHAR, r->win);
}

void bench_rma_put_final(struct bench_rma *r, size_t size, int n)
{
	int j;

	for (j = 0; j < r->nops; j++)
		bench_check(&r->b, r->base + (size_t)j * size, size,
			    (unsigned)((n - 1) * 64 + j), size);
}

void bench_rma_get_winit(struct bench_rma *r, size_t bytes)
{
	bench_fill(r->base, bytes, 7);
}

void bench_rma_get_op(struct bench_rma *r, size_t size, size_t off, int i,
		      int j)
{
	if (r->b.validate)
		memset(r->rbuf + off, 0, size);
	MPI_Get(r->rbuf + off, (int)size, MPI_CHAR, r->peer,
		r->disp + (MPI_Aint)off, (int)size, MPI_CHAR, r->win);
}

void bench_rma_get_after(struct bench_rma *r, size_t size, int i)
{
	/* the window's pattern runs across the operations' slots */
	bench_check(&r->b, r->rbuf, size * (size_t)r->nops, 7, size);
}

/* ---- the atomics: a counter of one long long, sums of MPI_CHAR ---- */

void bench_rma_ll_after(struct bench_rma *r, size_t size, int i)
{
	long long got = *(long long *)r->rbuf;

	if (got != i)
		bench_fail(&r->b, size, 0, (double)got, i);
}

void bench_rma_ll_final(struct bench_rma *r, size_t size, int n)
{
	long long v = *(long long *)r->base;

	if (v != n)
		bench_fail(&r->b, size, 0, (double)v, n);
}

static int acc_pattern(size_t k)
{
	return (int)((k * 7 >> 2) & 1);
}

void bench_rma_acc_setup(struct bench_rma *r)
{
	static const struct {
		const char *name;
		MPI_Datatype dt;
		size_t es;
	} types[] = {
		{"mpi_char", MPI_CHAR, 1},
		{"mpi_int", MPI_INT, sizeof(int)},
		{"mpi_float", MPI_FLOAT, sizeof(float)},
		{"mpi_double", MPI_DOUBLE, sizeof(double)},
	};
	const char *name = r->b.type ? r->b.type : "mpi_char";
	size_t i, k, n;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(name, types[i].name))
			break;
	if (i == sizeof(types) / sizeof(types[0])) {
		if (!r->b.rank)
			fprintf(stderr,
				"%s: -T %s: not mpi_char, mpi_int, "
				"mpi_float or mpi_double\n",
				r->b.name, name);
		MPI_Finalize();
		exit(2);
	}
	r->acc_dt = types[i].dt;
	r->acc_es = types[i].es;
	if (r->b.min < r->acc_es)
		r->b.min = r->acc_es;
	n = r->b.max / r->acc_es;
	for (k = 0; k < n; k++) {
		char *p = r->sbuf + k * r->acc_es;
		int v = acc_pattern(k);
		float f = (float)v;
		double d = v;

		if (r->acc_dt == MPI_CHAR)
			*p = (char)v;
		else if (r->acc_dt == MPI_INT)
			memcpy(p, &v, sizeof(v));
		else if (r->acc_dt == MPI_FLOAT)
			memcpy(p, &f, sizeof(f));
		else
			memcpy(p, &d, sizeof(d));
	}
}

void bench_rma_acc_check(struct bench_rma *r, const char *p, size_t size,
			 int n)
{
	size_t k, es = r->acc_es;

	for (k = 0; k < size / es; k++) {
		const char *q = p + k * es;
		double want = (double)n * acc_pattern(k), got;
		int iv;
		float fv;

		/* sums of MPI_CHAR past 127 are the MPI's business */
		if (r->acc_dt == MPI_CHAR && want > 127)
			continue;
		if (r->acc_dt == MPI_CHAR) {
			got = (unsigned char)*q;
		} else if (r->acc_dt == MPI_INT) {
			memcpy(&iv, q, sizeof(iv));
			got = iv;
		} else if (r->acc_dt == MPI_FLOAT) {
			memcpy(&fv, q, sizeof(fv));
			got = fv;
		} else {
			memcpy(&got, q, sizeof(got));
		}
		if (got != want) {
			bench_fail(&r->b, size, k, got, want);
			return;
		}
	}
}

void bench_rma_acc_final(struct bench_rma *r, size_t size, int n)
{
	bench_rma_acc_check(r, r->base, size, n);
}
