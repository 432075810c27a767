/*
 * bench_rma.h - the one-sided benchmarks' shared part: OSU's window
 * creation (-w create|allocate|dynamic, default allocate) and
 * synchronisation (-s lock|flush|flush_local|lock_all|fence|pscw, default
 * flush; bibw: fence|pscw, default pscw) on top of bench_common.h, a
 * window per message size as OSU creates one, and OSU's timed loops:
 *
 *   latency     lock: lock, op, unlock each iteration (exclusive for the
 *               atomics, shared else); flush / flush_local: one shared
 *               lock, op then the flush each iteration; lock_all: lock_all,
 *               op, unlock_all; fence: rank 0 fence op fence fence, rank 1
 *               fence fence op fence; pscw: rank 0 start op complete post
 *               wait, rank 1 the mirror - both fence and pscw time a round
 *               trip and report half of it
 *   bandwidth   the same with a window of -W operations (default 32) per
 *               synchronisation, rank 1 only the target (fence: fence
 *               fence; pscw: post wait)
 *   bi-bandwidth fence or pscw, both ranks -W operations per epoch
 *
 * Validation (-c): each benchmark's `after` checks what an origin got
 * once the synchronisation completed it (inside the timed loop), its
 * `final` checks each target's window after the size's loop.
 */
#ifndef BENCH_RMA_H
#define BENCH_RMA_H

#include <mpi.h>
#include "bench_common.h"

enum { BENCH_WIN_CREATE, BENCH_WIN_ALLOCATE, BENCH_WIN_DYNAMIC };
enum {
	BENCH_SYNC_LOCK,
	BENCH_SYNC_PSCW,
	BENCH_SYNC_FENCE,
	BENCH_SYNC_FLUSH,
	BENCH_SYNC_FLUSH_LOCAL,
	BENCH_SYNC_LOCK_ALL,
};
#define BENCH_SYNCS_ALL 0x3fu
#define BENCH_SYNCS_ACTIVE ((1u << BENCH_SYNC_PSCW) | (1u << BENCH_SYNC_FENCE))

struct bench_rma;
/* Issue this rank's operation j of iteration i to the peer (window
 * offset `off` of size bytes). */
typedef void (*bench_rma_op)(struct bench_rma *r, size_t size, size_t off,
			     int i, int j);
/* After an epoch that completed this rank's iteration i (validation). */
typedef void (*bench_rma_after)(struct bench_rma *r, size_t size, int i);
/* After the size's loop: this rank's window after n operations reached
 * it (validation). */
typedef void (*bench_rma_final)(struct bench_rma *r, size_t size, int n);

struct bench_rma {
	struct bench b;
	int peer;		/* the other rank */
	int lock_type;		/* -s lock: MPI_LOCK_SHARED or EXCL. */
	MPI_Win win;
	char *base;		/* this rank's window memory */
	size_t wbytes;
	MPI_Aint disp;		/* where the peer's window starts */
	MPI_Group group;	/* the peer */
	char *sbuf, *rbuf, *tbuf;	/* origin, result, compare buffers */
	int nops;		/* operations per iteration (bandwidth: -W) */
	MPI_Datatype acc_dt;	/* accumulates: -T, MPI_CHAR by default */
	size_t acc_es;		/* its size */
	/* fills a new window (NULL: zeros), before the peer can touch it */
	void (*winit)(struct bench_rma *r, size_t bytes);
	bench_rma_op op;
	bench_rma_after after;
	bench_rma_final final;
};

/* MPI_Init and the options; exactly 2 ranks. kind BENCH_LAT or BENCH_BW
 * (bibw: BENCH_BW with syncs BENCH_SYNCS_ACTIVE). */
void bench_rma_init(struct bench_rma *r, int *argc, char ***argv,
		    const char *title, enum bench_kind kind, int def_sync,
		    unsigned syncs);
/* Buffers of `bytes` each (page-aligned). */
void bench_rma_buffers(struct bench_rma *r, size_t bytes);
/* A window of `bytes` (OSU: one per size), filled by r->winit. */
void bench_rma_win_open(struct bench_rma *r, size_t bytes);
void bench_rma_win_close(struct bench_rma *r);
/* The sizes loop of a latency benchmark; `fixed`: one size only (the
 * atomics: 8 bytes). */
void bench_rma_latency(struct bench_rma *r, size_t fixed);
/* The sizes loop of a bandwidth benchmark (bi: both ways). */
void bench_rma_bandwidth(struct bench_rma *r, int bi);
int bench_rma_finish(struct bench_rma *r);

/* Put (-c: fresh patterns, the target checks the last ones) and get (-c:
 * the window holds a pattern, each get clears its buffer first and checks
 * it after the synchronisation), for every put and get program. */
void bench_rma_put_op(struct bench_rma *r, size_t size, size_t off, int i,
		      int j);
void bench_rma_put_final(struct bench_rma *r, size_t size, int n);
void bench_rma_get_winit(struct bench_rma *r, size_t bytes);
void bench_rma_get_op(struct bench_rma *r, size_t size, size_t off, int i,
		      int j);
void bench_rma_get_after(struct bench_rma *r, size_t size, int i);
/* fetch_and_op and compare_and_swap: the i-th fetches i (rbuf), the
 * window holds n at the end. */
void bench_rma_ll_after(struct bench_rma *r, size_t size, int i);
void bench_rma_ll_final(struct bench_rma *r, size_t size, int n);
/* Accumulates of MPI_SUM on -T's type (OSU's names; MPI_CHAR, as OSU,
 * by default; exits on an unknown one): the smallest size raised to one
 * element, sbuf filled with ones and zeros in a pattern, so sums stay
 * exact (chars past 127 are not checked: signed char overflow is each
 * MPI's own); check: p holds n times it. */
void bench_rma_acc_setup(struct bench_rma *r);
void bench_rma_acc_check(struct bench_rma *r, const char *p, size_t size,
			 int n);
void bench_rma_acc_final(struct bench_rma *r, size_t size, int n);

#endif
