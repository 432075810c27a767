/*
 * rma_progress.c - one-sided operations that complete while the target
 * computes and never calls MPI (issue 15: RDMA and device atomics need no
 * target CPU).
 *
 * Rank 0 is the target. After a barrier it computes (a floating-point
 * loop, no MPI call, no system call but clock reads) until it has seen,
 * by reading its own window memory, everything the origins do, or until
 * a deadline (fail: something waited for the target's CPU). Every other
 * rank, inside MPI_Win_lock_all with MPI_MODE_NOCHECK (no lock message),
 * N times: puts its pattern into its slot of rank 0's window, gets rank
 * 0's read-only area and checks it, fetch-and-adds one to a 64-bit
 * counter (values fetched must rise), flushes; then adds its rank to its
 * done word (an accumulate) after the last flush, and waits, reading rank
 * 0's release area, until rank 0 has seen everything (so that no rank
 * sends a message while rank 0 counts). Rank 0 must find every slot,
 * every done word and the counter at N * (size - 1) before its next MPI
 * call: the origins' flushes returned while it computed.
 *
 * With counters=DIR (a device's hw_counters directory, e.g.
 * /sys/class/infiniband/rxe0/ports/1/hw_counters): rank 0 reads DIR's
 * rdma_recvs once the barrier's traffic has settled (SETTLE into its
 * loop, before any origin starts) and again when it has seen everything:
 * it must not have risen (no receive completion on the target's device:
 * no message was involved); each origin's sent_pkts must rise over its
 * own phase (the operations went out on the device).
 *
 * With locks, each origin's round is an exclusive lock epoch of its own
 * instead (MPI_Win_lock, the same operations, then a lock-guarded
 * counter: get it, flush, put it plus one; MPI_Win_unlock): the lock
 * too must pass between the origins while rank 0 computes (on the
 * device's lock words), and the guarded counter must be exact, N *
 * (size - 1).
 *
 * With agent=A, each window must report that atomic agent
 * (rcmpi_atomic_agent of MPI_Win_get_info): a run meant to use the
 * device's atomics fails when they are not used.
 *
 * With dynamic, the window is MPI_Win_create_dynamic with rank 0's memory
 * attached: each origin gets a byte of it before the barrier (the first
 * access, which learns the region's key through the target's CPU), and
 * the rounds have no fetch-and-add (an accumulate on a dynamic window is
 * the target CPU's) and the done word is a put.
 *
 * With strided, each origin's put and get move their B bytes from and to
 * four chunks of B/4 at a stride of B/2 in its own memory (a vector
 * type: a list of four RDMA operations, rma/ops.c direct_list).
 *
 *   rma_progress [N] [bytes=B] [counters=DIR] [agent=A] [deadline=S]
 *                [locks] [strided] [create|allocate|dynamic]...
 *   (default 50 rounds, 64 bytes, 60 s, both flavours)
 * Puts and gets of B bytes go by RDMA when B reaches RCMPI_RMA_DIRECT_MIN.
 */
#include "jobs.h"

#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#define SETTLE 0.5   /* s into rank 0's loop: its counter snapshot */
#define START 1.0    /* s after the barrier: the origins start */
#define HW_LIFESPAN 0.1 /* s: well past the kernel's counter cache */

static int rank, size, rounds = 50;
static size_t bytes = 64;
static double deadline = 60; /* s: rank 0 gives up */
static const char *cdir, *want_agent;
static bool locks, strided, dyn;
static MPI_Aint dbase; /* dynamic: rank 0's memory; displacements add it */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A counter of the device, or -1 when there is none to read. */
static long long hw_counter(const char *name)
{
	char path[512];
	long long v = -1;
	FILE *f;

	if (!cdir)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", cdir, name);
	f = fopen(path, "r");
	CHECK(f, "cannot read %s", path);
	CHECK(fscanf(f, "%lld", &v) == 1, "no number in %s", path);
	fclose(f);
	return v;
}

/* Layout of rank 0's window: the counter, one done word per origin, the
 * read-only area, the release area, one slot of `bytes` per origin
 * (areas and slots of `bytes`: puts and gets of that size), then the
 * lock-guarded counter. */
static size_t off_done(int r) { return 8 * (size_t)r; }
static size_t off_ro(void) { return 8 * (size_t)size; }
static size_t off_rel(void) { return off_ro() + bytes; }
static size_t off_slot(int r) { return off_rel() + bytes * (size_t)r; }
static size_t off_guard(void) { return (off_slot(size) + 7) & ~(size_t)7; }
static size_t win_bytes(void) { return off_guard() + 8; }

/* Rank 0: compute until every origin's work is visible. */
static void target(volatile unsigned char *mem, const char *what)
{
	volatile long long *ctr = (volatile long long *)mem;
	volatile long long *guard = (volatile long long *)(mem + off_guard());
	double t0 = now(), t, x = 1.0;
	long long recvs0 = -1, recvs1;
	long long want = dyn ? 0 : (long long)rounds * (size - 1);
	int all = 0;
	int r;

	while (!all) {
		int k;

		for (k = 0; k < 100000; k++) /* the computation */
			x = x * 1.0000001 + 1e-9;
		t = now() - t0;
		if (recvs0 < 0 && t >= SETTLE)
			recvs0 = hw_counter("rdma_recvs");
		if (t < START)
			continue;
		CHECK(t < deadline,
		      "%s: after %.0f s of computing, counter %lld of %lld, "
		      "guarded counter %lld",
		      what, t, *ctr, want, *guard);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		all = *ctr == want && (!locks || *guard == want);
		for (r = 1; all && r < size; r++)
			all = *(volatile long long *)(mem + off_done(r)) == r;
	}
	/* go on computing past the counters' cache lifespan, so that the
	 * value read is no older than the last operation */
	t = now();
	while (cdir && now() - t < HW_LIFESPAN)
		x = x * 1.0000001 + 1e-9;
	recvs1 = hw_counter("rdma_recvs");
	/* the origins may go on (until now they wait by reading this) */
	__atomic_store_n(mem + off_rel(), 1, __ATOMIC_RELEASE);
	/* everything arrived while rank 0 made no MPI call */
	for (r = 1; r < size; r++) {
		size_t i;

		for (i = 0; i < bytes; i++)
			CHECK(mem[off_slot(r) + i] == job_byte(i, r),
			      "%s: rank %d's slot byte %zu", what, r, i);
	}
	CHECK(recvs1 == recvs0,
	      "%s: the target's device had %lld receive completions while it "
	      "computed (rdma_recvs %lld -> %lld): a message was involved",
	      what, recvs1 - recvs0, recvs0, recvs1);
	printf("vt: %s: target computed %.2f s (x %.3f), every operation "
	       "landed meanwhile\n",
	       what, now() - t0, x);
}

/* The other ranks: put, get, fetch-and-add, flush; then the done word. */
static void origin(MPI_Win w, const char *what)
{
	unsigned char *src = malloc(bytes), *got = malloc(bytes);
	/* strided: src and got in four chunks of bytes / 4 */
	unsigned char *ssrc = malloc(2 * bytes), *sgot = malloc(2 * bytes);
	size_t c = bytes / 4;
	long long one = 1, old, prev = -1, done = rank, sent0, sent1, g;
	MPI_Datatype otype = MPI_BYTE;
	void *obuf = src, *gbuf = got;
	int ocount = (int)bytes;
	double t0;
	int i;
	size_t j;

	CHECK(src && got && ssrc && sgot, "out of memory");
	job_fill(src, bytes, rank);
	if (strided) {
		CHECK_MPI(MPI_Type_vector(4, (int)c, (int)(2 * c), MPI_BYTE,
					  &otype));
		CHECK_MPI(MPI_Type_commit(&otype));
		for (j = 0; j < 4; j++)
			memcpy(ssrc + 2 * c * j, src + c * j, c);
		obuf = ssrc;
		gbuf = sgot;
		ocount = 1;
	}
	if (!locks)
		CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, w));
	usleep((useconds_t)(START * 1e6));
	sent0 = hw_counter("sent_pkts");
	t0 = now();
	for (i = 0; i < rounds; i++) {
		if (locks)
			CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
		CHECK_MPI(MPI_Put(obuf, ocount, otype, 0,
				  dbase + (MPI_Aint)off_slot(rank), (int)bytes,
				  MPI_BYTE, w));
		CHECK_MPI(MPI_Get(gbuf, ocount, otype, 0,
				  dbase + (MPI_Aint)off_ro(), (int)bytes, MPI_BYTE,
				  w));
		if (dyn)
			old = prev + 1; /* (no fetch-and-add) */
		else
			CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0,
						   0, MPI_SUM, w));
		CHECK_MPI(MPI_Win_flush(0, w));
		if (locks) {
			CHECK_MPI(MPI_Get(&g, 1, MPI_LONG_LONG, 0,
					  (MPI_Aint)off_guard(), 1,
					  MPI_LONG_LONG, w));
			CHECK_MPI(MPI_Win_flush(0, w));
			g++;
			CHECK_MPI(MPI_Put(&g, 1, MPI_LONG_LONG, 0,
					  (MPI_Aint)off_guard(), 1,
					  MPI_LONG_LONG, w));
			CHECK_MPI(MPI_Win_unlock(0, w));
		}
		CHECK(old > prev && (dyn || old < (long long)rounds * (size - 1)),
		      "%s: fetched %lld after %lld", what, old, prev);
		prev = old;
		for (j = 0; strided && j < 4; j++)
			memcpy(got + c * j, sgot + 2 * c * j, c);
		j = job_verify(got, bytes, 0);
		CHECK(j == (size_t)-1, "%s: got byte %zu wrong", what, j);
	}
	/* the kernel caches a device's counters for ~10 ms (its
	 * hw_counters/lifespan): a read this soon could show the old value */
	while (cdir && now() - t0 < HW_LIFESPAN)
		usleep(10000);
	sent1 = hw_counter("sent_pkts");
	CHECK(!cdir || sent1 > sent0,
	      "%s: the device sent nothing (sent_pkts %lld -> %lld in %.3f s)",
	      what, sent0, sent1, now() - t0);
	if (locks)
		CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, w));
	/* (an accumulate: a put this small would be a message, but on a
	 * dynamic window, where an accumulate is one, a put by RDMA) */
	if (dyn)
		CHECK_MPI(MPI_Put(&done, 1, MPI_INT64_T, 0,
				  dbase + (MPI_Aint)off_done(rank), 1,
				  MPI_INT64_T, w));
	else
		CHECK_MPI(MPI_Accumulate(&done, 1, MPI_INT64_T, 0,
					 (MPI_Aint)off_done(rank), 1,
					 MPI_INT64_T, MPI_SUM, w));
	CHECK_MPI(MPI_Win_flush(0, w));
	/* no message before rank 0 has read its counter: wait for its
	 * word by reading the release area */
	t0 = now();
	do {
		CHECK(now() - t0 < deadline + 5, "%s: rank 0 never released us",
		      what);
		CHECK_MPI(MPI_Get(got, (int)bytes, MPI_BYTE, 0,
				  dbase + (MPI_Aint)off_rel(), (int)bytes,
				  MPI_BYTE, w));
		CHECK_MPI(MPI_Win_flush(0, w));
	} while (!got[0]);
	CHECK_MPI(MPI_Win_unlock_all(w));
	if (strided)
		CHECK_MPI(MPI_Type_free(&otype));
	free(src);
	free(got);
	free(ssrc);
	free(sgot);
}

static void check_agent(MPI_Win w, const char *what)
{
	char v[64];
	int flag;
	MPI_Info used;

	if (!want_agent)
		return;
	CHECK_MPI(MPI_Win_get_info(w, &used));
	CHECK_MPI(MPI_Info_get(used, "rcmpi_atomic_agent", sizeof(v) - 1, v,
			       &flag));
	CHECK(flag && !strcmp(v, want_agent), "%s: atomic agent %s, want %s",
	      what, flag ? v : "(none)", want_agent);
	MPI_Info_free(&used);
}

static void run(const char *flavour)
{
	unsigned char *mem = NULL;
	MPI_Win w;
	MPI_Aint sz = rank ? 0 : (MPI_Aint)win_bytes();

	dyn = !strcmp(flavour, "dynamic");
	dbase = 0;
	CHECK(!dyn || !locks,
	      "locks: not with dynamic (its locks are the target's messages)");
	if (!strcmp(flavour, "create") || dyn) {
		if (sz) {
			mem = calloc(1, (size_t)sz);
			CHECK(mem, "out of memory");
		}
		if (dyn) {
			CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL,
							 MPI_COMM_WORLD, &w));
			if (sz) {
				CHECK_MPI(MPI_Win_attach(w, mem, sz));
				CHECK_MPI(MPI_Get_address(mem, &dbase));
			}
			CHECK_MPI(MPI_Bcast(&dbase, 1, MPI_AINT, 0,
					    MPI_COMM_WORLD));
		} else {
			CHECK_MPI(MPI_Win_create(mem, sz, 1, MPI_INFO_NULL,
						 MPI_COMM_WORLD, &w));
		}
	} else {
		CHECK_MPI(MPI_Win_allocate(sz, 1, MPI_INFO_NULL,
					   MPI_COMM_WORLD, &mem, &w));
		if (sz)
			memset(mem, 0, (size_t)sz);
	}
	if (!dyn)
		check_agent(w, flavour);
	if (!rank)
		job_fill(mem + off_ro(), bytes, 0);
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	if (dyn && rank) {
		/* the first access: the region's key, from rank 0's CPU
		 * (inside the barrier below) */
		unsigned char b;

		CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, w));
		CHECK_MPI(MPI_Get(&b, 1, MPI_BYTE, 0,
				  dbase + (MPI_Aint)off_ro(), 1, MPI_BYTE, w));
		CHECK_MPI(MPI_Win_unlock_all(w));
	}
	if (dyn)
		CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	if (!rank)
		target(mem, flavour);
	else
		origin(w, flavour);
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	if (dyn && sz)
		CHECK_MPI(MPI_Win_detach(w, mem));
	CHECK_MPI(MPI_Win_free(&w));
	if (!strcmp(flavour, "create") || dyn)
		free(mem);
}

int main(int argc, char **argv)
{
	const char *flavours[4];
	int nfl = 0, i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "bytes=", 6))
			bytes = strtoul(argv[i] + 6, NULL, 0);
		else if (!strncmp(argv[i], "counters=", 9))
			cdir = argv[i] + 9;
		else if (!strncmp(argv[i], "deadline=", 9))
			deadline = atof(argv[i] + 9);
		else if (!strncmp(argv[i], "agent=", 6))
			want_agent = argv[i] + 6;
		else if (!strcmp(argv[i], "locks"))
			locks = true;
		else if (!strcmp(argv[i], "strided"))
			strided = true;
		else if (!strcmp(argv[i], "create") ||
			 !strcmp(argv[i], "allocate") ||
			 !strcmp(argv[i], "dynamic")) {
			CHECK(nfl < 4, "too many flavours");
			flavours[nfl++] = argv[i];
		} else
			rounds = atoi(argv[i]);
	}
	CHECK(size >= 2 && rounds > 0 && bytes > 0 && bytes < (1u << 30) &&
		      (!strided || bytes % 4 == 0),
	      "usage: at least 2 ranks, N > 0, 0 < B < 1 GiB (strided: a "
	      "multiple of 4)");
	if (!nfl) {
		flavours[nfl++] = "allocate";
		flavours[nfl++] = "create";
	}
	for (i = 0; i < nfl; i++)
		run(flavours[i]);
	if (!rank)
		printf("vt: rma_progress: %d ranks, %d rounds of %zu B%s%s: "
		       "ok\n",
		       size, rounds, bytes, strided ? " strided" : "",
		       locks ? " in exclusive locks" : "");
	MPI_Finalize();
	return 0;
}
