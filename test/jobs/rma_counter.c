/*
 * rma_counter.c - contended counters on one element of rank 0's window:
 *   1. every rank adds one with MPI_Fetch_and_op (MPI_SUM, 64-bit), N
 *      times, inside one MPI_Win_lock_all epoch, flushing each time; the
 *      values fetched by each rank must rise, all ranks' values together
 *      must be 0 .. size * N - 1 once each, and the final value must be
 *      exactly size * N;
 *   2. a counter guarded by an exclusive lock: lock, get, flush, put the
 *      value plus one, unlock, N times per rank; exactly size * N at the
 *      end (two holders of the lock at once would lose increments);
 *      and inside the lock a fetch-and-add on an "inside" word must find
 *      no other holder; then locks shared and exclusive mixed: a shared
 *      holder must find no exclusive one inside, an exclusive one nobody;
 *   2b. (3 ranks or more) MPI_Win_lock_all beside nested locks, in an
 *      order that deadlocked when lock_all waited at one target at a
 *      time (lock_all_beside);
 *   3. the same fetch-and-add through MPI_Accumulate of MPI_SUM, then one
 *      MPI_Compare_and_swap race per round with exactly one winner;
 *   4. mixed accumulates on the same elements from every rank at once:
 *      MPI_MAX of 0 and MPI_SUM of 1 on one 64-bit integer (a fetch-add
 *      and a compare-and-swap loop on the shared-memory path: an update
 *      lost between them shows), MPI_SUM on a double (compare-and-swap
 *      loop), a 32-bit integer, an unaligned 64-bit integer and a short
 *      (the window's lock word); each exact at the end;
 *   5. 64-bit integers in other shapes and ops, every rank at once (N/4
 *      rounds):
 *      MPI_Get_accumulate of MPI_SUM into three words strided through a
 *      vector target type (each fetched value a multiple of that word's
 *      addend: results unpacked in order), MPI_MAX of rising values with
 *      MPI_NO_OP reads that never go down, and MPI_Fetch_and_op of
 *      MPI_REPLACE as an atomic swap: every value swapped in comes out
 *      exactly once (the sum of what all ranks fetched plus what is left
 *      equals the sum of what they swapped in);
 *   6. large accumulates (a window of its own; "bulk", below): every rank
 *      adds ones to 160000 bytes of ints, twos to every third int
 *      through a vector target type, and 32 fetch_and_ops of one on
 *      single ints of the same array, and get_accumulates ones into
 *      96000 bytes of doubles, 6 rounds: each int and double exact at
 *      the end, each fetched double a whole number below the total (an
 *      update lost between a large operation and a small one on the same
 *      element shows).
 * Done on a window of MPI_Win_allocate and, when every rank shares this
 * node, of MPI_Win_allocate_shared (on one node both take the
 * shared-memory path unless RCMPI_RMA_SHM=0: the origins apply
 * accumulates themselves, while rank 0 reads the memory directly).
 *
 * With agent=device or agent=am among the arguments, every create and
 * allocate window must report that atomic agent (the rcmpi_atomic_agent
 * key of MPI_Win_get_info; RCMPI_RMA_ATOMIC chooses it), so that a run
 * meant to test the device's atomics fails when they are not used.
 *
 * 6. runs with "bulk" among the arguments, or when no flavour is named.
 *
 *   rma_counter [N] [create|allocate|shared|dynamic|agent=A|bulk...]
 *   (default 2000, allocate and shared, bulk)
 */
#include <stdbool.h>
#include <unistd.h>
#include "jobs.h"

static int rank, size;
static const char *want_agent; /* agent=A: what create/allocate report */
static bool with_bulk;	       /* 6. as well ("bulk", or no flavour named) */
static double t_phase; /* RMA_COUNTER_TIMES set: rank 0 prints phases */

static void phase_done(const char *what, const char *phase)
{
	double t = MPI_Wtime();

	if (rank == 0 && getenv("RMA_COUNTER_TIMES"))
		fprintf(stderr, "rma_counter: %s: %s %.2f s\n", what, phase,
			t - t_phase);
	t_phase = t;
}

#define WINSZ 128
#define INSIDE 64 /* the holders' word */

/* Enter (d 1: exclusive, 1000: shared) or leave (-d) the lock's inside:
 * an exclusive holder finds nobody there, a shared one no exclusive. */
static void inside(MPI_Win w, MPI_Aint base, long long d, const char *what)
{
	long long old;

	CHECK_MPI(MPI_Fetch_and_op(&d, &old, MPI_LONG_LONG, 0, base + INSIDE,
				   MPI_SUM, w));
	CHECK_MPI(MPI_Win_flush(0, w));
	if (d == 1)
		CHECK(old == 0, "%s: exclusive lock with %lld inside", what,
		      old);
	if (d == 1000)
		CHECK(old % 1000 == 0,
		      "%s: shared lock with an exclusive holder (%lld)", what,
		      old);
}

/* 4. mixed accumulates on the same elements */
static void mixed(MPI_Win w, char *mem, MPI_Aint base, int n, const char *what)
{
	long long one = 1, zero = 0, old, ll;
	double d1 = 1, dv;
	int i1 = 1, iv;
	short s1 = 1, sv;
	int i;

	CHECK_MPI(MPI_Win_lock_all(0, w));
	for (i = 0; i < n; i++) {
		CHECK_MPI(MPI_Accumulate(&zero, 1, MPI_LONG_LONG, 0, base + 32,
					 1, MPI_LONG_LONG, MPI_MAX, w));
		CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0,
					   base + 32, MPI_SUM, w));
		CHECK_MPI(MPI_Accumulate(&d1, 1, MPI_DOUBLE, 0, base + 40, 1,
					 MPI_DOUBLE, MPI_SUM, w));
		CHECK_MPI(MPI_Accumulate(&i1, 1, MPI_INT, 0, base + 48, 1,
					 MPI_INT, MPI_SUM, w));
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, base + 53,
					 1, MPI_LONG_LONG, MPI_SUM, w));
		CHECK_MPI(MPI_Accumulate(&s1, 1, MPI_SHORT, 0, base + 62, 1,
					 MPI_SHORT, MPI_SUM, w));
		if (i % 16 == 0)
			CHECK_MPI(MPI_Win_flush(0, w));
	}
	CHECK_MPI(MPI_Win_unlock_all(w));
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank)
		return;
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
	memcpy(&ll, mem + 32, 8);
	CHECK(ll == (long long)n * size, "%s: max+sum counter %lld", what, ll);
	memcpy(&dv, mem + 40, 8);
	CHECK(dv == (double)n * size, "%s: double counter %g", what, dv);
	memcpy(&iv, mem + 48, 4);
	CHECK(iv == n * size, "%s: int counter %d", what, iv);
	memcpy(&ll, mem + 53, 8);
	CHECK(ll == (long long)n * size, "%s: unaligned counter %lld", what,
	      ll);
	memcpy(&sv, mem + 62, 2);
	CHECK(sv == (short)(n * size), "%s: short counter %d", what, sv);
	CHECK_MPI(MPI_Win_unlock(0, w));
}

/* 5. other shapes and ops on 64-bit integers */
static void shapes(MPI_Win w, char *mem, MPI_Aint base, int n, const char *what)
{
	int64_t add[3] = {1, 2, 3}, got[3], v, old, prev = -1, sums[2], all[2];
	MPI_Datatype vec;
	int i, k;

	CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT64_T, &vec));
	CHECK_MPI(MPI_Type_commit(&vec));
	sums[0] = sums[1] = 0;
	CHECK_MPI(MPI_Win_lock_all(0, w));
	for (i = 0; i < n; i++) {
		CHECK_MPI(MPI_Get_accumulate(add, 3, MPI_INT64_T, got, 3,
					     MPI_INT64_T, 0, base + 72, 1, vec,
					     MPI_SUM, w));
		v = (int64_t)rank * n + i;
		CHECK_MPI(MPI_Accumulate(&v, 1, MPI_INT64_T, 0, base + 80, 1,
					 MPI_INT64_T, MPI_MAX, w));
		CHECK_MPI(MPI_Fetch_and_op(NULL, &old, MPI_INT64_T, 0,
					   base + 80, MPI_NO_OP, w));
		v = (int64_t)rank * n + i + 1;
		sums[0] += v;
		CHECK_MPI(MPI_Fetch_and_op(&v, &v, MPI_INT64_T, 0, base + 96,
					   MPI_REPLACE, w));
		CHECK_MPI(MPI_Win_flush(0, w));
		sums[1] += v;
		for (k = 0; k < 3; k++)
			CHECK(got[k] % (k + 1) == 0 &&
				      got[k] < (int64_t)n * size * (k + 1),
			      "%s: get_accumulate word %d fetched %lld", what,
			      k, (long long)got[k]);
		CHECK(old >= prev && old >= (int64_t)rank * n + i,
		      "%s: max read %lld after %lld", what, (long long)old,
		      (long long)prev);
		prev = old;
	}
	CHECK_MPI(MPI_Win_unlock_all(w));
	MPI_Type_free(&vec);
	MPI_Allreduce(sums, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	if (rank)
		return;
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
	for (k = 0; k < 3; k++) {
		memcpy(&v, mem + 72 + 16 * k, 8);
		CHECK(v == (int64_t)n * size * (k + 1),
		      "%s: strided word %d is %lld", what, k, (long long)v);
	}
	memcpy(&v, mem + 80, 8);
	CHECK(v == (int64_t)size * n - 1, "%s: max %lld", what, (long long)v);
	memcpy(&v, mem + 96, 8);
	CHECK(all[1] + v == all[0],
	      "%s: swaps fetched %lld and left %lld of %lld", what,
	      (long long)all[1], (long long)v, (long long)all[0]);
	CHECK_MPI(MPI_Win_unlock(0, w));
}

/* Every value the fetch-and-adds fetched, over all ranks, is one of
 * 0 .. size * n - 1 exactly once: a result that came back stale (a
 * device that completed an atomic without writing its old value) shows
 * as a value twice. */
static void fetched_once(long long *got, int n, const char *what)
{
	long long *all = NULL;
	long i;

	if (!rank) {
		all = malloc(sizeof(*all) * (size_t)n * (size_t)size);
		CHECK(all, "%s: no memory for %d values", what, n * size);
	}
	MPI_Gather(got, n, MPI_LONG_LONG, all, n, MPI_LONG_LONG, 0,
		   MPI_COMM_WORLD);
	if (rank)
		return;
	i = job_not_each_once(all, (long)n * size);
	CHECK(i < 0,
	      "%s: fetch_and_op values: %lld where %ld was due (a value "
	      "fetched twice, another never)",
	      what, all[i], i);
	free(all);
}

/*
 * Rank 1 holds a shared lock at rank 0 and an exclusive one at rank 1;
 * rank 0 asks for an exclusive lock at 0 (queued behind rank 1); rank
 * 2's MPI_Win_lock_all queues behind rank 0 at target 0 and behind rank
 * 1 at target 1. Rank 1 then gives target 1 up, so that rank 2's turn
 * comes there while it waits at 0, and asks for a shared lock at 1
 * again. Rank 2 must take its turn at target 1 while it waits at 0: else
 * rank 1 waits for rank 2 at 1, rank 2 for rank 0 at 0, rank 0 for rank
 * 1 (a hang, ended by the test's time-out). The sleeps make that order;
 * a slower machine that misses it only tests less. Other ranks only meet
 * the barriers.
 */
static void lock_all_beside(MPI_Win w)
{
	if (size < 3)
		return;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w));
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
		CHECK_MPI(MPI_Win_unlock(0, w));
	} else if (rank == 1) {
		usleep(600000);
		CHECK_MPI(MPI_Win_unlock(1, w));
		usleep(300000);
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w));
		CHECK_MPI(MPI_Win_unlock(1, w));
		CHECK_MPI(MPI_Win_unlock(0, w));
	} else if (rank == 2) {
		usleep(300000);
		CHECK_MPI(MPI_Win_lock_all(0, w));
		CHECK_MPI(MPI_Win_unlock_all(w));
	}
	MPI_Barrier(MPI_COMM_WORLD);
}

static void counters(MPI_Win w, long long *mem, MPI_Aint base, int n,
		     const char *what)
{
	long long one = 1, old, prev = -1, v, *fetched;
	int i, round;

	fetched = malloc(sizeof(*fetched) * (size_t)n);
	CHECK(fetched, "%s: no memory for %d values", what, n);
	MPI_Barrier(MPI_COMM_WORLD);
	t_phase = MPI_Wtime();
	/* 1. fetch_and_op */
	CHECK_MPI(MPI_Win_lock_all(0, w));
	for (i = 0; i < n; i++) {
		CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, base,
					   MPI_SUM, w));
		CHECK_MPI(MPI_Win_flush(0, w));
		CHECK(old > prev && old < (long long)n * size,
		      "%s: fetched %lld after %lld", what, old, prev);
		prev = old;
		fetched[i] = old;
	}
	CHECK_MPI(MPI_Win_unlock_all(w));
	fetched_once(fetched, n, what);
	free(fetched);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
		CHECK(mem[0] == (long long)n * size,
		      "%s: fetch_and_op counter %lld, want %lld", what, mem[0],
		      (long long)n * size);
		CHECK_MPI(MPI_Win_unlock(0, w));
	}
	phase_done(what, "fetch_and_op");
	/* 2. exclusive lock */
	for (i = 0; i < n; i++) {
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
		inside(w, base, 1, what);
		CHECK_MPI(MPI_Get(&v, 1, MPI_LONG_LONG, 0, base + 8, 1,
				  MPI_LONG_LONG, w));
		CHECK_MPI(MPI_Win_flush(0, w));
		v++;
		CHECK_MPI(MPI_Put(&v, 1, MPI_LONG_LONG, 0, base + 8, 1,
				  MPI_LONG_LONG, w));
		inside(w, base, -1, what);
		CHECK_MPI(MPI_Win_unlock(0, w));
	}
	phase_done(what, "exclusive locks");
	/* shared and exclusive holders mixed */
	for (i = 0; i < n; i++) {
		int excl = (i + rank) % 3 == 0;

		CHECK_MPI(MPI_Win_lock(
			excl ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, 0, 0, w));
		inside(w, base, excl ? 1 : 1000, what);
		inside(w, base, excl ? -1 : -1000, what);
		CHECK_MPI(MPI_Win_unlock(0, w));
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
		CHECK(mem[1] == (long long)n * size,
		      "%s: lock-guarded counter %lld, want %lld", what, mem[1],
		      (long long)n * size);
		CHECK_MPI(MPI_Win_unlock(0, w));
	}
	phase_done(what, "mixed locks");
	lock_all_beside(w);
	phase_done(what, "lock_all beside nested locks");
	/* 3. accumulate, and compare_and_swap races */
	CHECK_MPI(MPI_Win_lock_all(0, w));
	for (i = 0; i < n; i++)
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, base + 16,
					 1, MPI_LONG_LONG, MPI_SUM, w));
	CHECK_MPI(MPI_Win_unlock_all(w));
	MPI_Barrier(MPI_COMM_WORLD);
	for (round = 0; round < 10; round++) {
		long long cmp = round, mine = 1000 + round * size + rank, got;
		int win, wins;

		CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
		CHECK_MPI(MPI_Compare_and_swap(&mine, &cmp, &got,
					       MPI_LONG_LONG, 0, base + 24, w));
		CHECK_MPI(MPI_Win_unlock(0, w));
		win = got == round;
		MPI_Allreduce(&win, &wins, 1, MPI_INT, MPI_SUM,
			      MPI_COMM_WORLD);
		CHECK(wins == 1, "%s: %d compare_and_swap winners", what, wins);
		if (rank == 0) {
			CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
			CHECK(mem[3] >= 1000 + round * size &&
				      mem[3] < 1000 + (round + 1) * size,
			      "%s: swapped in %lld", what, mem[3]);
			mem[3] = round + 1;	/* next round's compare */
			CHECK_MPI(MPI_Win_unlock(0, w));
		}
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank == 0) {
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
		CHECK(mem[2] == (long long)n * size,
		      "%s: accumulate counter %lld", what, mem[2]);
		CHECK_MPI(MPI_Win_unlock(0, w));
	}
	phase_done(what, "accumulate and compare_and_swap");
	mixed(w, (char *)mem, base, n, what);
	phase_done(what, "mixed accumulates");
	shapes(w, (char *)mem, base, n / 4 + 1, what);
	phase_done(what, "shapes");
}

/* A window of `bytes` of this flavor, zeroed; false: not here (shared,
 * when not every rank is on this node). */
static bool win_open(const char *flavor, size_t bytes, char **memp,
		     MPI_Aint *basep, MPI_Win *w)
{
	char *mem = NULL;
	MPI_Aint base = 0;
	MPI_Comm node;
	int nsize;

	if (!strcmp(flavor, "allocate")) {
		CHECK_MPI(MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL,
					   MPI_COMM_WORLD, &mem, w));
	} else if (!strcmp(flavor, "create")) {
		CHECK_MPI(MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &mem));
		CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL,
					 MPI_COMM_WORLD, w));
	} else if (!strcmp(flavor, "dynamic")) {
		mem = malloc(bytes);
		CHECK(mem, "no memory for %zu bytes", bytes);
		CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD,
						 w));
		CHECK_MPI(MPI_Win_attach(*w, mem, (MPI_Aint)bytes));
		MPI_Get_address(mem, &base);
		MPI_Bcast(&base, 1, MPI_AINT, 0, MPI_COMM_WORLD);
	} else {
		MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
				    MPI_INFO_NULL, &node);
		MPI_Comm_size(node, &nsize);
		MPI_Comm_free(&node);
		if (nsize < size)
			return false; /* not every rank on this node */
		CHECK_MPI(MPI_Win_allocate_shared((MPI_Aint)bytes, 1,
						  MPI_INFO_NULL, MPI_COMM_WORLD,
						  &mem, w));
	}
	memset(mem, 0, bytes);
	*memp = mem;
	*basep = base;
	MPI_Barrier(MPI_COMM_WORLD);
	return true;
}

static void win_close(const char *flavor, char *mem, MPI_Win *w)
{
	CHECK_MPI(MPI_Win_free(w));
	if (!strcmp(flavor, "create"))
		MPI_Free_mem(mem);
	if (!strcmp(flavor, "dynamic"))
		free(mem);
}

/* 6. large accumulates beside small ones, every rank at once: spans of
 * the shared-memory path's per-target lock (64 KiB) and the AM path's
 * stream fragments, contiguous and strided, among fetch_and_ops on
 * single elements of the same array. */
#define BULK_INTS 40000 /* 160000 bytes */
#define BULK_DBLS 12000 /* 96000 bytes, after the ints */
#define BULK_ROUNDS 6
#define BULK_FOPS 32 /* per rank and round */

static int bulk_fop_at(int r, int round, int j)
{
	return (int)(((long)r * 7919 + (long)round * 104729 + (long)j * 613) %
		     BULK_INTS);
}

static void bulk(const char *flavor)
{
	const size_t bytes =
		BULK_INTS * sizeof(int) + BULK_DBLS * sizeof(double);
	int *ones = malloc(BULK_INTS * sizeof(int)), *want;
	double *d1 = malloc(BULK_DBLS * sizeof(double)), *dgot;
	int i, k, r, round, one = 1, old;
	MPI_Datatype every3;
	MPI_Aint base;
	MPI_Win w;
	char *mem;

	dgot = malloc(BULK_DBLS * sizeof(double));
	want = calloc(BULK_INTS, sizeof(int));
	CHECK(ones && d1 && dgot && want, "bulk: no memory");
	if (!win_open(flavor, bytes, &mem, &base, &w))
		goto out;
	for (k = 0; k < BULK_INTS; k++)
		ones[k] = 1;
	for (k = 0; k < BULK_DBLS; k++)
		d1[k] = 1;
	/* every third int: twos added through a strided target type */
	CHECK_MPI(MPI_Type_vector(BULK_INTS / 3, 1, 3, MPI_INT, &every3));
	CHECK_MPI(MPI_Type_commit(&every3));
	CHECK_MPI(MPI_Win_lock_all(0, w));
	for (round = 0; round < BULK_ROUNDS; round++) {
		CHECK_MPI(MPI_Accumulate(ones, BULK_INTS, MPI_INT, 0, base,
					 BULK_INTS, MPI_INT, MPI_SUM, w));
		for (i = 0; i < BULK_FOPS; i++)
			CHECK_MPI(MPI_Fetch_and_op(
				&one, &old, MPI_INT, 0,
				base + (MPI_Aint)sizeof(int) *
						bulk_fop_at(rank, round, i),
				MPI_SUM, w));
		for (k = 0; k < BULK_INTS / 3; k++)
			want[k] = 2; /* (origin: BULK_INTS / 3 twos) */
		CHECK_MPI(MPI_Accumulate(want, BULK_INTS / 3, MPI_INT, 0, base,
					 1, every3, MPI_SUM, w));
		CHECK_MPI(MPI_Get_accumulate(
			d1, BULK_DBLS, MPI_DOUBLE, dgot, BULK_DBLS, MPI_DOUBLE,
			0, base + BULK_INTS * (MPI_Aint)sizeof(int), BULK_DBLS,
			MPI_DOUBLE, MPI_SUM, w));
		CHECK_MPI(MPI_Win_flush(0, w));
		/* each old value: a whole count of earlier sums, below all */
		for (k = 0; k < BULK_DBLS; k++)
			CHECK(dgot[k] >= round &&
				      dgot[k] < size * BULK_ROUNDS &&
				      dgot[k] == (double)(long)dgot[k],
			      "%s bulk: fetched double %g at %d, round %d",
			      flavor, dgot[k], k, round);
	}
	CHECK_MPI(MPI_Win_unlock_all(w));
	CHECK_MPI(MPI_Type_free(&every3));
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		int *iv = (int *)(void *)mem;
		double dv;

		for (k = 0; k < BULK_INTS; k++)
			want[k] = size * BULK_ROUNDS *
				  (k % 3 || k / 3 >= BULK_INTS / 3 ? 1 : 3);
		for (r = 0; r < size; r++)
			for (round = 0; round < BULK_ROUNDS; round++)
				for (i = 0; i < BULK_FOPS; i++)
					want[bulk_fop_at(r, round, i)]++;
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
		for (k = 0; k < BULK_INTS; k++)
			CHECK(iv[k] == want[k],
			      "%s bulk: int %d is %d, want %d", flavor, k,
			      iv[k], want[k]);
		for (k = 0; k < BULK_DBLS; k++) {
			memcpy(&dv,
			       mem + BULK_INTS * sizeof(int) +
				       (size_t)k * sizeof(double),
			       sizeof(dv));
			CHECK(dv == size * BULK_ROUNDS,
			      "%s bulk: double %d is %g, want %d", flavor, k,
			      dv, size * BULK_ROUNDS);
		}
		CHECK_MPI(MPI_Win_unlock(0, w));
	}
	MPI_Barrier(MPI_COMM_WORLD);
	win_close(flavor, mem, &w);
out:
	free(ones);
	free(d1);
	free(dgot);
	free(want);
}

static void run(const char *flavor, int n)
{
	char *mem;
	MPI_Aint base;
	MPI_Win w;

	if (!win_open(flavor, WINSZ, &mem, &base, &w))
		return;
	if (want_agent &&
	    (!strcmp(flavor, "allocate") || !strcmp(flavor, "create"))) {
		char agent[32] = "";
		MPI_Info used;
		int flag = 0;

		CHECK_MPI(MPI_Win_get_info(w, &used));
		CHECK_MPI(MPI_Info_get(used, "rcmpi_atomic_agent",
				       sizeof(agent) - 1, agent, &flag));
		CHECK_MPI(MPI_Info_free(&used));
		CHECK(flag && !strcmp(agent, want_agent),
		      "%s: atomic agent %s, want %s", flavor,
		      flag ? agent : "(none)", want_agent);
	}
	counters(w, (long long *)(void *)mem, base, n, flavor);
	win_close(flavor, mem, &w);
	if (!with_bulk)
		return;
	bulk(flavor);
	phase_done(flavor, "bulk");
}

int main(int argc, char **argv)
{
	int n = 2000, i, nflavors = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		n = atoi(argv[1]);
	for (i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "agent=", 6))
			want_agent = argv[i] + 6;
		else if (!strcmp(argv[i], "bulk"))
			with_bulk = true;
		else
			nflavors++;
	}
	if (nflavors) {
		for (i = 2; i < argc; i++)
			if (strncmp(argv[i], "agent=", 6) &&
			    strcmp(argv[i], "bulk"))
				run(argv[i], n);
	} else {
		with_bulk = true;
		run("allocate", n);
		run("shared", n);
	}
	MPI_Finalize();
	if (rank == 0)
		printf("rma_counter: %d ranks OK\n", size);
	return 0;
}
