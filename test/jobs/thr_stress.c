/*
 * thr_stress.c - MPI_THREAD_MULTIPLE under load (issue 14): several threads
 * per rank call MPI at once; every message and every result is checked.
 *
 *	thr_stress [phase] [threads]
 *
 * phase (default all):
 *   p2p     each thread exchanges messages of mixed sizes (eager and
 *           rendezvous on shm and verbs) with every other rank: even
 *           threads on a tag of their own on MPI_COMM_WORLD, odd threads on
 *           a communicator of their own; and all threads on one shared tag
 *           of one shared communicator, where any thread may receive any
 *           message (headers checked, totals counted per sender thread).
 *           The own-tag exchanges complete by MPI_Waitall, MPI_Waitany and
 *           MPI_Waitsome in turn.
 *   anysrc  every thread receives with MPI_ANY_SOURCE and MPI_ANY_TAG on a
 *           communicator shared by the threads; the totals per sender
 *           must be exact.
 *   mprobe  as anysrc, with MPI_Mprobe / MPI_Improbe + MPI_Mrecv/Imrecv:
 *           a message goes to exactly one thread (no loss, no duplicate).
 *   coll    each thread runs collectives on a communicator of its own.
 *   dup     two threads per rank duplicate and free communicators made
 *           from two parents, the thread-to-parent mapping opposite on even
 *           and odd ranks, while a third thread sends on MPI_COMM_WORLD;
 *           each new communicator carries an allreduce that a context-id
 *           clash would corrupt.
 *   nowait  one thread stays inside MPI (in a user error handler, which
 *           runs in the critical section) until a second thread has made
 *           the calls that must not wait for it: queries of fixed state
 *           (rank, size, datatype extents, MPI_Get_count), tests of a
 *           receive that cannot complete yet (MPI_Test, Testany, Testall,
 *           Testsome, Request_get_status answer "not yet"), probes for no
 *           message (MPI_Iprobe, Improbe), receives that no message
 *           waits for yet (MPI_Irecv, a specific tag and MPI_ANY_TAG:
 *           posted outside the section; they get their messages after,
 *           in order), sends (MPI_Isend: a rendezvous, then a small
 *           one to the same rank, which must not overtake it;
 *           MPI_Issend to itself: handed to the thread inside, they come
 *           after, in order; MPI_Startall of a persistent receive and
 *           send), and the object calls (datatype
 *           constructors, commit, pack, free; info; groups; ops and
 *           MPI_Reduce_local). A call that waited for the section would
 *           hang both; the handler gives up after 20 s. Then queries
 *           and receives (MPI_Irecv, MPI_Recv) and sends (MPI_Isend,
 *           MPI_Issend, MPI_Send) with bad arguments, and truncated
 *           receives: their errors reach the handlers.
 *   sendout (shared memory only, not in all) as nowait, the second
 *           thread making the small sends that leave the critical section
 *           at MULTIPLE, to the next rank: MPI_Send, MPI_Rsend, and
 *           MPI_Isend / MPI_Irsend completed by MPI_Wait, MPI_Test and
 *           their _all, _any and _some forms and MPI_Request_free.
 *   doneout as nowait, the second thread finishing receives and
 *           synchronous sends that the engine has completed (on any
 *           transport), a persistent pair and an MPI_Isendrecv, by MPI_Wait,
 *           MPI_Test and their _all, _any and _some forms and
 *           MPI_Request_free: at MULTIPLE each of those
 *           finishes them outside the critical section. Then MPI_Recv,
 *           MPI_Ssend and waits from inside it (an error handler), which
 *           must wait there.
 *   order   each thread sends NSEQ messages of mixed sizes to every other
 *           rank on one communicator, tag its own, by MPI_Send (small
 *           ones go outside the critical section on shared memory) and
 *           MPI_Isend (completed later, or at once by a wait or test) in
 *           turn, into receives posted first; each receive
 *           must get the next message of its sender thread (MPI's order
 *           per sender, tag and communicator), with the right bytes. With
 *           a small ring (thr.test) sends queue, and a later small
 *           MPI_Send must not overtake them.
 *   rma     each thread creates a window on its communicator and, to
 *           the ranks in turn, under shared locks, accumulates into its
 *           rank's counter, puts into its slot, flushes and gets the slot
 *           back; and every thread of every rank makes MPI_Fetch_and_op
 *           on one counter in one MPI_Win_lock_all epoch: the counters
 *           exact, the fetched values all different.
 *   svc     each thread, on its communicator: keyvals with copy and
 *           delete callbacks, attributes, duplicates (the copies read
 *           back), names, error handlers and info; callbacks counted.
 *   objects threads 1.. create, use and free datatypes, info objects,
 *           groups and ops (and convert their handles) in loops, while
 *           thread 0 exchanges messages in derived datatypes that it frees
 *           before the messages complete (their last reference goes in
 *           the engine, while the other threads use the same pools).
 *
 * Prints OK on rank 0; MPI_Abort(99) on the first mismatch (jobs.h).
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include "jobs.h"

#define MAXT 8
#define NITER 24
#define MAXLEN (256 * 1024)

static const int sizes[] = {0, 1, 100, 4000, 5000, 70000, MAXLEN};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

static int rank, nranks, nthr;
static MPI_Comm own[MAXT], shared, race;

/* A message: a header (sender rank, sender thread, iteration) followed by
 * bytes that depend on it. */
struct hdr {
	int32_t src, thr, iter, len;
};

static int msg_len(int iter, int thr)
{
	int n = sizes[(iter + thr) % NSIZES];

	return n < (int)sizeof(struct hdr) ? (int)sizeof(struct hdr) : n;
}

static void msg_fill(unsigned char *b, int src, int thr, int iter, int len)
{
	struct hdr h = {src, thr, iter, len};

	memcpy(b, &h, sizeof(h));
	job_fill(b + sizeof(h), (size_t)len - sizeof(h),
		 src * 1000 + thr * 100 + iter);
}

/* Checks a received message; returns its header. */
static struct hdr msg_check(const unsigned char *b, int got)
{
	struct hdr h;
	size_t bad;

	CHECK(got >= (int)sizeof(h), "short message (%d bytes)", got);
	memcpy(&h, b, sizeof(h));
	CHECK(h.len == got && h.src >= 0 && h.src < nranks && h.thr >= 0 &&
		      h.thr < nthr && h.iter >= 0 && h.iter < NITER,
	      "bad header src %d thr %d iter %d len %d (got %d)", h.src, h.thr,
	      h.iter, h.len, got);
	CHECK(h.len == msg_len(h.iter, h.thr), "length %d for iter %d thr %d",
	      h.len, h.iter, h.thr);
	bad = job_verify(b + sizeof(h), (size_t)got - sizeof(h),
			 h.src * 1000 + h.thr * 100 + h.iter);
	CHECK(bad == (size_t)-1, "byte %zu wrong from %d thr %d iter %d", bad,
	      h.src, h.thr, h.iter);
	return h;
}

/* Messages received per (sender rank, sender thread); several threads add. */
static int counts[64][MAXT];

static void count(struct hdr h)
{
	__atomic_add_fetch(&counts[h.src][h.thr], 1, __ATOMIC_RELAXED);
}

static void counts_expect(int want, const char *phase)
{
	int r, t;

	for (r = 0; r < nranks; r++)
		for (t = 0; t < nthr; t++) {
			int got = counts[r][t];

			CHECK(r == rank ? got == 0 : got == want,
			      "%s: %d messages from rank %d thread %d, want %d",
			      phase, got, r, t, r == rank ? 0 : want);
		}
	memset(counts, 0, sizeof(counts));
}

/* Phases share communicators and tags (anysrc and mprobe: race, tag =
 * iteration): a rank that is done with a phase must not send the next
 * one's messages while another still receives this one's. */
static void phase_end(void)
{
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void run_threads(void *(*fn)(void *), int n)
{
	pthread_t t[MAXT];
	long i;

	for (i = 0; i < n; i++)
		CHECK(!pthread_create(&t[i], NULL, fn, (void *)i),
		      "pthread_create");
	for (i = 0; i < n; i++)
		CHECK(!pthread_join(t[i], NULL), "pthread_join");
}

/* ---- p2p: own tags, own communicators, one shared tag ------------------- */

/* Complete n requests: how 0 MPI_Waitall, 1 MPI_Waitany, 2 MPI_Waitsome;
 * each request's status lands at its index, as Waitall puts it. */
static void complete_all(int n, MPI_Request *rq, MPI_Status *st, int how)
{
	MPI_Status one[2 * 64];
	int left = n, idx, out, k, ids[2 * 64];

	if (how == 0) {
		CHECK_MPI(MPI_Waitall(n, rq, st));
		return;
	}
	while (left) {
		if (how == 1) {
			CHECK_MPI(MPI_Waitany(n, rq, &idx, &one[0]));
			CHECK(idx >= 0 && idx < n, "waitany: index %d", idx);
			st[idx] = one[0];
			left--;
			continue;
		}
		CHECK_MPI(MPI_Waitsome(n, rq, &out, ids, one));
		CHECK(out > 0 && out <= left, "waitsome: %d of %d", out, left);
		for (k = 0; k < out; k++)
			st[ids[k]] = one[k];
		left -= out;
	}
}

static void *p2p_thread(void *arg)
{
	int t = (int)(long)arg, i, p, n = 0;
	MPI_Comm c = t % 2 ? own[t] : MPI_COMM_WORLD;
	int tag = t % 2 ? 7 : 100 + t;
	unsigned char *sb = malloc((size_t)MAXLEN * nranks);
	unsigned char *rb = malloc((size_t)MAXLEN * nranks);
	MPI_Request rq[2 * 64], *srq = malloc(sizeof(*srq) * NITER * nranks);
	MPI_Status st[2 * 64];
	unsigned char *sbi[NITER];

	CHECK(sb && rb && srq, "malloc");
	for (i = 0; i < NITER; i++) {
		int len = msg_len(i, t);

		n = 0;
		for (p = 0; p < nranks; p++) {
			if (p == rank)
				continue;
			msg_fill(sb + (size_t)p * MAXLEN, rank, t, i, len);
			CHECK_MPI(MPI_Irecv(rb + (size_t)p * MAXLEN, MAXLEN,
					    MPI_BYTE, p, tag, c, &rq[n++]));
			CHECK_MPI(MPI_Isend(sb + (size_t)p * MAXLEN, len,
					    MPI_BYTE, p, tag, c, &rq[n++]));
		}
		complete_all(n, rq, st, i % 3);
		for (p = 0, n = 0; p < nranks; p++) {
			struct hdr h;
			int got;

			if (p == rank)
				continue;
			MPI_Get_count(&st[n], MPI_BYTE, &got);
			h = msg_check(rb + (size_t)p * MAXLEN, got);
			/* own tag: this thread's partner thread, in order */
			CHECK(h.src == p && h.thr == t && h.iter == i,
			      "p2p: from %d thr %d iter %d, want %d %d %d",
			      h.src, h.thr, h.iter, p, t, i);
			n += 2;
		}
	}
	/* Shared tag on the shared communicator: any thread gets any
	 * message. A thread waits for its receives of an iteration but keeps
	 * its sends outstanding until the end: another rank's threads may
	 * have claimed more of the messages sent to them than this thread's
	 * partner, and a thread that waited for a rendezvous send there could
	 * wait for a receive that only its own next iteration would post. */
	n = 0;
	for (i = 0; i < NITER; i++) {
		int len = msg_len(i, t);

		sbi[i] = malloc((size_t)len);
		CHECK(sbi[i], "malloc");
		msg_fill(sbi[i], rank, t, i, len);
		for (p = 0; p < nranks - 1; p++)
			CHECK_MPI(MPI_Irecv(rb + (size_t)p * MAXLEN, MAXLEN,
					    MPI_BYTE, MPI_ANY_SOURCE, 5, shared,
					    &rq[p]));
		for (p = 0; p < nranks; p++)
			if (p != rank)
				CHECK_MPI(MPI_Isend(sbi[i], len, MPI_BYTE, p, 5,
						    shared, &srq[n++]));
		CHECK_MPI(MPI_Waitall(nranks - 1, rq, st));
		for (p = 0; p < nranks - 1; p++) {
			int got;

			MPI_Get_count(&st[p], MPI_BYTE, &got);
			CHECK(st[p].MPI_SOURCE != rank, "from myself");
			count(msg_check(rb + (size_t)p * MAXLEN, got));
		}
	}
	CHECK_MPI(MPI_Waitall(n, srq, MPI_STATUSES_IGNORE));
	for (i = 0; i < NITER; i++)
		free(sbi[i]);
	free(srq);
	free(sb);
	free(rb);
	return NULL;
}

/* ---- anysrc and mprobe: receivers race for the messages ---------------- */

static int use_mprobe;
static int claimed; /* messages this rank's threads set out to receive */

/* Each thread sends all its messages first (one buffer per iteration,
 * shared by the sends to every peer), then the threads receive until the
 * rank has claimed every message sent to it: a thread blocks in a receive
 * only for a message that is owed, so none waits for ever. */
static void *race_thread(void *arg)
{
	int t = (int)(long)arg, i, p, n = 0;
	int total = (nranks - 1) * nthr * NITER;
	unsigned char *sb[NITER], *rb = malloc(MAXLEN);
	MPI_Request *rq = malloc(sizeof(*rq) * NITER * nranks);

	CHECK(rb && rq, "malloc");
	for (i = 0; i < NITER; i++) {
		int len = msg_len(i, t);

		sb[i] = malloc((size_t)len);
		CHECK(sb[i] != NULL, "malloc");
		msg_fill(sb[i], rank, t, i, len);
		for (p = 0; p < nranks; p++)
			if (p != rank)
				CHECK_MPI(MPI_Isend(sb[i], len, MPI_BYTE, p, i,
						    race, &rq[n++]));
	}
	for (i = 0; __atomic_fetch_add(&claimed, 1, __ATOMIC_RELAXED) < total;
	     i++) {
		MPI_Status s;
		struct hdr h;
		int got;

		if (!use_mprobe) {
			CHECK_MPI(MPI_Recv(rb, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE,
					   MPI_ANY_TAG, race, &s));
		} else {
			MPI_Message m;
			MPI_Request r;
			int flag = 0;

			if (t % 2) {
				CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE,
						     MPI_ANY_TAG, race, &m,
						     &s));
			} else {
				while (!flag)
					CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE,
							      MPI_ANY_TAG,
							      race, &flag,
							      &m, &s));
			}
			MPI_Get_count(&s, MPI_BYTE, &got);
			CHECK(got <= MAXLEN, "probe count %d", got);
			if (i % 2) {
				CHECK_MPI(MPI_Mrecv(rb, got, MPI_BYTE, &m, &s));
			} else {
				CHECK_MPI(MPI_Imrecv(rb, got, MPI_BYTE, &m,
						     &r));
				CHECK_MPI(MPI_Wait(&r, &s));
			}
			CHECK(m == MPI_MESSAGE_NULL, "message kept");
		}
		MPI_Get_count(&s, MPI_BYTE, &got);
		h = msg_check(rb, got);
		CHECK(h.iter == s.MPI_TAG && h.src == s.MPI_SOURCE,
		      "status tag %d src %d, header %d %d", s.MPI_TAG,
		      s.MPI_SOURCE, h.iter, h.src);
		count(h);
	}
	CHECK_MPI(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
	for (i = 0; i < NITER; i++)
		free(sb[i]);
	free(rq);
	free(rb);
	return NULL;
}

/* ---- coll: each thread on its own communicator -------------------------- */

static void *coll_thread(void *arg)
{
	int t = (int)(long)arg, i, j;
	MPI_Comm c = own[t];
	long v, sum, want = 0, *all = malloc(sizeof(long) * nranks);

	CHECK(all != NULL, "malloc");
	for (j = 0; j < nranks; j++)
		want += j * 10 + t;
	for (i = 0; i < NITER; i++) {
		v = rank * 10 + t;
		CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, c));
		CHECK(sum == want, "allreduce %ld, want %ld", sum,
		      want);
		v = i % nranks == rank ? 1000L * t + i : -1;
		CHECK_MPI(MPI_Bcast(&v, 1, MPI_LONG, i % nranks, c));
		CHECK(v == 1000L * t + i, "bcast %ld", v);
		v = rank + 100L * t;
		CHECK_MPI(MPI_Allgather(&v, 1, MPI_LONG, all, 1, MPI_LONG, c));
		for (j = 0; j < nranks; j++)
			CHECK(all[j] == j + 100L * t, "allgather[%d] %ld", j,
			      all[j]);
		if (i % 4 == 0)
			CHECK_MPI(MPI_Barrier(c));
	}
	free(all);
	return NULL;
}

/* ---- dup: communicator creation racing with itself and with traffic ----- */

#define NDUP 30
static MPI_Comm parent[2];
static volatile int dups_done;

static void *dup_thread(void *arg)
{
	int t = (int)(long)arg, i;
	/* opposite mapping on even and odd ranks */
	int which = rank % 2 ? 1 - t : t;
	MPI_Comm p = parent[which];

	for (i = 0; i < NDUP; i++) {
		MPI_Comm nc, nc2;
		long v = 1 + which * 1000 + i, sum;

		CHECK_MPI(MPI_Comm_dup(p, &nc));
		CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, nc));
		CHECK(sum == v * nranks, "allreduce on dup of parent %d: %ld",
		      which, sum);
		if (i % 3 == 0) {
			/* a second level: a child of the new communicator */
			CHECK_MPI(MPI_Comm_split(nc, 0, nranks - rank, &nc2));
			CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_MAX,
						nc2));
			CHECK(sum == v, "allreduce on split: %ld", sum);
			CHECK_MPI(MPI_Comm_free(&nc2));
		}
		CHECK_MPI(MPI_Comm_free(&nc));
	}
	__atomic_add_fetch(&dups_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Ring traffic on MPI_COMM_WORLD while the other two threads create. */
static void *traffic_thread(void *arg)
{
	int i, to = (rank + 1) % nranks, from = (rank + nranks - 1) % nranks;
	unsigned char sb[5000], rb[5000];

	(void)arg;
	for (i = 0; i < 4 * NDUP; i++) {
		int len = i % 2 ? 64 : (int)sizeof(sb);

		job_fill(sb, (size_t)len, rank * 10000 + i);
		CHECK_MPI(MPI_Sendrecv(sb, len, MPI_BYTE, to, 77, rb,
				       (int)sizeof(rb), MPI_BYTE, from, 77,
				       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		CHECK(job_verify(rb, (size_t)len, from * 10000 + i) ==
			      (size_t)-1,
		      "ring message %d", i);
	}
	return NULL;
}

static void *dup_phase_thread(void *arg)
{
	return (long)arg < 2 ? dup_thread(arg) : traffic_thread(arg);
}

/* ---- nowait: calls that do not wait for a thread inside MPI -------------- */

static int nw_go, nw_done, nw_buf;
static MPI_Request nw_req, nw_late_req[2];
static int nw_late[2];
/* sends made while the section is held: a rendezvous and a small one to
 * the next rank, a synchronous one to this rank, on nw_comm */
#define NW_BIG (64 * 1024)
static MPI_Comm nw_comm;
static MPI_Request nw_sreq[3], nw_preq[2];
static int *nw_big, nw_small[2], nw_pval[2];
static MPI_Status nw_st;
static MPI_Datatype nw_vec;

/* inoutbuf = max(inbuf, inoutbuf), ints */
static void op_imax(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int i;

	(void)dt;
	for (i = 0; i < *len; i++)
		if (((int *)in)[i] > ((int *)inout)[i])
			((int *)inout)[i] = ((int *)in)[i];
}

/* One round of the object calls, which run outside the critical section
 * (thread.h): a vector type packed, unpacked and converted, an info
 * object, a group, a user op; seed varies the values. */
static void object_calls(int seed)
{
	int in[4] = {seed, seed + 1, seed + 2, seed + 3}, out[2], pos = 0;
	int zero[1] = {0}, tr = -1, flag, ni, na, nd, comb, x;
	char buf[64], val[16], want[16];
	MPI_Datatype t, d;
	MPI_Info info, dup;
	MPI_Group self, g;
	MPI_Op op;

	CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
	CHECK_MPI(MPI_Type_dup(t, &d));
	CHECK_MPI(MPI_Type_commit(&d));
	CHECK_MPI(MPI_Type_get_envelope(d, &ni, &na, &nd, &comb));
	CHECK(comb == MPI_COMBINER_DUP && nd == 1, "envelope %d %d", comb, nd);
	CHECK_MPI(MPI_Pack(in, 1, d, buf, (int)sizeof(buf), &pos,
			   MPI_COMM_WORLD));
	CHECK(pos == 2 * (int)sizeof(int), "MPI_Pack position %d", pos);
	pos = 0;
	CHECK_MPI(MPI_Unpack(buf, (int)sizeof(buf), &pos, out, 2, MPI_INT,
			     MPI_COMM_WORLD));
	CHECK(out[0] == seed && out[1] == seed + 2, "MPI_Unpack %d %d", out[0],
	      out[1]);
	CHECK(MPI_Type_f2c(MPI_Type_c2f(d)) == d, "MPI_Type_f2c");
	CHECK_MPI(MPI_Type_free(&t));
	CHECK_MPI(MPI_Type_free(&d));

	snprintf(want, sizeof(want), "%d", seed);
	CHECK_MPI(MPI_Info_create(&info));
	CHECK_MPI(MPI_Info_set(info, "seed", want));
	CHECK_MPI(MPI_Info_dup(info, &dup));
	CHECK_MPI(MPI_Info_free(&info));
	CHECK_MPI(MPI_Info_get(dup, "seed", (int)sizeof(val) - 1, val, &flag));
	CHECK(flag && !strcmp(val, want), "MPI_Info_get %d '%s'", flag, val);
	CHECK(MPI_Info_f2c(MPI_Info_c2f(dup)) == dup, "MPI_Info_f2c");
	CHECK_MPI(MPI_Info_free(&dup));

	CHECK_MPI(MPI_Comm_group(MPI_COMM_SELF, &self));
	CHECK_MPI(MPI_Group_incl(self, 1, zero, &g));
	CHECK_MPI(MPI_Group_compare(g, self, &x));
	CHECK(x == MPI_IDENT, "MPI_Group_compare %d", x);
	CHECK_MPI(MPI_Group_translate_ranks(g, 1, zero, self, &tr));
	CHECK(tr == 0, "MPI_Group_translate_ranks %d", tr);
	CHECK_MPI(MPI_Group_free(&self));
	CHECK_MPI(MPI_Group_free(&g));

	CHECK_MPI(MPI_Op_create(op_imax, 1, &op));
	x = seed - 1;
	CHECK_MPI(MPI_Reduce_local(&seed, &x, 1, MPI_INT, op));
	CHECK(x == seed, "MPI_Reduce_local %d", x);
	CHECK_MPI(MPI_Op_free(&op));
}

static void *nowait_thread(void *arg)
{
	MPI_Request arr[2] = {MPI_REQUEST_NULL, nw_req};
	MPI_Message msg;
	MPI_Aint lb, ext;
	int v, flag, idx, n, ind[2];

	(void)arg;
	while (!__atomic_load_n(&nw_go, __ATOMIC_ACQUIRE))
		sched_yield();
	CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &v));
	CHECK(v == rank, "MPI_Comm_rank %d", v);
	CHECK_MPI(MPI_Comm_size(own[0], &v));
	CHECK(v == nranks, "MPI_Comm_size %d", v);
	CHECK_MPI(MPI_Comm_test_inter(shared, &v));
	CHECK(!v, "MPI_Comm_test_inter %d", v);
	CHECK_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &v));
	CHECK(v == 0, "MPI_Group_size %d", v);
	CHECK_MPI(MPI_Type_size(nw_vec, &v));
	CHECK(v == 2 * (int)sizeof(int), "MPI_Type_size %d", v);
	CHECK_MPI(MPI_Type_get_extent(nw_vec, &lb, &ext));
	CHECK(lb == 0 && ext == 4 * (MPI_Aint)sizeof(int),
	      "MPI_Type_get_extent %ld %ld", (long)lb, (long)ext);
	CHECK_MPI(MPI_Type_get_true_extent(nw_vec, &lb, &ext));
	CHECK(lb == 0 && ext == 4 * (MPI_Aint)sizeof(int),
	      "MPI_Type_get_true_extent %ld %ld", (long)lb, (long)ext);
	CHECK_MPI(MPI_Get_count(&nw_st, MPI_INT, &v));
	CHECK(v == 3, "MPI_Get_count %d", v);
	CHECK(MPI_Request_c2f(nw_req) > 0, "MPI_Request_c2f");
	CHECK_MPI(MPI_Test(&nw_req, &flag, MPI_STATUS_IGNORE));
	CHECK(!flag && nw_req != MPI_REQUEST_NULL, "MPI_Test flag %d", flag);
	CHECK_MPI(MPI_Testany(2, arr, &idx, &flag, MPI_STATUS_IGNORE));
	CHECK(!flag && idx == MPI_UNDEFINED, "MPI_Testany %d %d", flag, idx);
	CHECK_MPI(MPI_Testall(2, arr, &flag, MPI_STATUSES_IGNORE));
	CHECK(!flag, "MPI_Testall %d", flag);
	CHECK_MPI(MPI_Testsome(2, arr, &n, ind, MPI_STATUSES_IGNORE));
	CHECK(n == 0, "MPI_Testsome %d", n);
	CHECK_MPI(MPI_Request_get_status(nw_req, &flag, MPI_STATUS_IGNORE));
	CHECK(!flag, "MPI_Request_get_status %d", flag);
	CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &flag,
			     MPI_STATUS_IGNORE));
	CHECK(!flag, "MPI_Iprobe %d", flag);
	CHECK_MPI(MPI_Improbe(rank, MPI_ANY_TAG, own[0], &flag, &msg,
			      MPI_STATUS_IGNORE));
	CHECK(!flag && msg == MPI_MESSAGE_NULL, "MPI_Improbe %d", flag);
	/* receives that no message waits for: on their queue, outside */
	CHECK_MPI(MPI_Irecv(&nw_late[0], 1, MPI_INT, rank, 8, MPI_COMM_WORLD,
			    &nw_late_req[0]));
	CHECK_MPI(MPI_Irecv(&nw_late[1], 1, MPI_INT, rank, MPI_ANY_TAG,
			    MPI_COMM_WORLD, &nw_late_req[1]));
	CHECK_MPI(MPI_Testany(2, nw_late_req, &idx, &flag, MPI_STATUS_IGNORE));
	CHECK(!flag, "MPI_Testany on the new receives %d", flag);
	/* sends: handed to the thread inside MPI, which starts them later;
	 * the small one must not overtake the rendezvous before it */
	CHECK_MPI(MPI_Isend(nw_big, NW_BIG, MPI_INT, (rank + 1) % nranks, 20,
			    nw_comm, &nw_sreq[0]));
	CHECK_MPI(MPI_Isend(&nw_small[0], 1, MPI_INT, (rank + 1) % nranks, 20,
			    nw_comm, &nw_sreq[1]));
	CHECK_MPI(MPI_Issend(&nw_small[1], 1, MPI_INT, rank, 21, nw_comm,
			     &nw_sreq[2]));
	CHECK_MPI(MPI_Testall(3, nw_sreq, &flag, MPI_STATUSES_IGNORE));
	CHECK(!flag, "MPI_Testall on the new sends %d", flag);
	/* a persistent receive and send, started outside */
	CHECK_MPI(MPI_Startall(2, nw_preq));
	object_calls(rank + 10);
	__atomic_store_n(&nw_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Runs inside the critical section, as every error handler does. */
static void nowait_handler(MPI_Comm *comm, int *code, ...)
{
	double t0 = MPI_Wtime();

	(void)comm;
	(void)code;
	__atomic_store_n(&nw_go, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&nw_done, __ATOMIC_ACQUIRE)) {
		CHECK(MPI_Wtime() - t0 < 20,
		      "a query, test or object call waited for the thread "
		      "inside MPI");
		sched_yield();
	}
}

/*
 * Run fn in a second thread while this one stays inside MPI: an error
 * raised on a communicator whose handler (nowait_handler) waits until fn
 * is done. fn waits for nw_go and sets nw_done.
 */
static void hold_section(void *(*fn)(void *))
{
	int sb = 1, err;
	pthread_t th;
	MPI_Errhandler eh;
	MPI_Comm c;

	nw_go = nw_done = 0;
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &c));
	CHECK_MPI(MPI_Comm_create_errhandler(nowait_handler, &eh));
	CHECK_MPI(MPI_Comm_set_errhandler(c, eh));
	CHECK(!pthread_create(&th, NULL, fn, NULL), "thread");
	/* rank 1 of a communicator of one: the handler runs */
	err = MPI_Send(&sb, 1, MPI_INT, 1, 0, c);
	CHECK(err != MPI_SUCCESS, "MPI_Send to rank 1 of MPI_COMM_SELF");
	CHECK(!pthread_join(th, NULL), "join");
	CHECK_MPI(MPI_Errhandler_free(&eh));
	CHECK_MPI(MPI_Comm_free(&c));
}

/* A query's error at MULTIPLE (queries run outside the section; the
 * handler runs inside it, and may call MPI): counted. */
static int query_errors;

static void query_handler(MPI_Comm *comm, int *code, ...)
{
	int r;

	(void)code;
	CHECK_MPI(MPI_Comm_rank(*comm, &r));
	CHECK(r == rank, "handler: rank %d", r);
	query_errors++;
}

static void query_error_checks(void)
{
	MPI_Errhandler eh;
	MPI_Request r;
	MPI_Comm c;
	int v, two[2] = {1, 2};

	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
	CHECK_MPI(MPI_Comm_create_errhandler(query_handler, &eh));
	CHECK_MPI(MPI_Comm_set_errhandler(c, eh));
	query_errors = 0;
	EXPECT_CLASS(MPI_Comm_size(c, NULL), MPI_ERR_ARG);
	EXPECT_CLASS(MPI_Comm_rank(c, NULL), MPI_ERR_ARG);
	EXPECT_CLASS(MPI_Comm_test_inter(c, NULL), MPI_ERR_ARG);
	CHECK(query_errors == 3, "the handler ran %d times", query_errors);
	/* receives' bad arguments and truncation at MULTIPLE, through the
	 * paths that post outside the section, reach the handler too */
	EXPECT_CLASS(MPI_Irecv(&v, 1, MPI_INT, nranks, 0, c, &r), MPI_ERR_RANK);
	EXPECT_CLASS(MPI_Irecv(&v, 1, MPI_INT, rank, -5, c, &r), MPI_ERR_TAG);
	EXPECT_CLASS(MPI_Irecv(&v, 1, MPI_INT, rank, 0, c, NULL), MPI_ERR_ARG);
	EXPECT_CLASS(MPI_Recv(&v, -1, MPI_INT, rank, 0, c, MPI_STATUS_IGNORE),
		     MPI_ERR_COUNT);
	EXPECT_CLASS(MPI_Isend(&v, 1, MPI_INT, nranks, 0, c, &r), MPI_ERR_RANK);
	EXPECT_CLASS(MPI_Isend(&v, 1, MPI_INT, rank, -5, c, &r), MPI_ERR_TAG);
	EXPECT_CLASS(MPI_Issend(&v, 1, MPI_INT, rank, 0, c, NULL), MPI_ERR_ARG);
	EXPECT_CLASS(MPI_Send(&v, -1, MPI_INT, rank, 0, c), MPI_ERR_COUNT);
	CHECK_MPI(MPI_Send(two, 2, MPI_INT, rank, 1, c));
	CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, rank, 1, c, &r));
	EXPECT_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
	CHECK(r == MPI_REQUEST_NULL, "MPI_Wait left a truncated receive");
	CHECK_MPI(MPI_Send(two, 2, MPI_INT, rank, 2, c));
	EXPECT_CLASS(MPI_Recv(&v, 1, MPI_INT, rank, 2, c, MPI_STATUS_IGNORE),
		     MPI_ERR_TRUNCATE);
	CHECK(query_errors == 13, "the handler ran %d times", query_errors);
	CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	EXPECT_CLASS(MPI_Comm_rank(MPI_COMM_NULL, &v), MPI_ERR_COMM);
	EXPECT_CLASS(MPI_Type_size(MPI_DATATYPE_NULL, &v), MPI_ERR_TYPE);
	EXPECT_CLASS(MPI_Group_size(MPI_GROUP_NULL, &v), MPI_ERR_GROUP);
	CHECK_MPI(
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
	CHECK_MPI(MPI_Errhandler_free(&eh));
	CHECK_MPI(MPI_Comm_free(&c));
}

static void nowait_phase(void)
{
	int sb[3] = {1, 2, 3}, rb[3], from = (rank + nranks - 1) % nranks, i, n;
	int *big;
	MPI_Status late_st[2], st;

	CHECK_MPI(MPI_Sendrecv(sb, 3, MPI_INT, rank, 5, rb, 3, MPI_INT, rank, 5,
			       MPI_COMM_WORLD, &nw_st));
	CHECK_MPI(MPI_Irecv(&nw_buf, 1, MPI_INT, rank, 6, MPI_COMM_WORLD,
			    &nw_req));
	CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_INT, &nw_vec));
	CHECK_MPI(MPI_Type_commit(&nw_vec));
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &nw_comm));
	nw_big = malloc(sizeof(int) * NW_BIG);
	big = malloc(sizeof(int) * NW_BIG);
	CHECK(nw_big && big, "malloc");
	for (i = 0; i < NW_BIG; i++)
		nw_big[i] = rank * 7 + i;
	nw_small[0] = rank + 300;
	nw_small[1] = rank + 400;
	CHECK_MPI(MPI_Recv_init(&nw_pval[0], 1, MPI_INT, rank, 22, nw_comm,
				&nw_preq[0]));
	CHECK_MPI(MPI_Send_init(&nw_pval[1], 1, MPI_INT, rank, 22, nw_comm,
				&nw_preq[1]));
	nw_pval[0] = -1;
	nw_pval[1] = rank + 500;
	hold_section(nowait_thread);
	query_error_checks();
	CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, rank, 6, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Wait(&nw_req, MPI_STATUS_IGNORE));
	CHECK(nw_buf == rank, "received %d", nw_buf);
	/* the receives the thread posted, in their order */
	sb[0] = rank + 100;
	sb[1] = rank + 200;
	CHECK_MPI(MPI_Send(&sb[0], 1, MPI_INT, rank, 8, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Send(&sb[1], 1, MPI_INT, rank, 9, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Waitall(2, nw_late_req, late_st));
	CHECK(nw_late[0] == rank + 100 && late_st[0].MPI_TAG == 8 &&
		      nw_late[1] == rank + 200 && late_st[1].MPI_TAG == 9,
	      "the thread's receives got %d (tag %d), %d (tag %d)", nw_late[0],
	      late_st[0].MPI_TAG, nw_late[1], late_st[1].MPI_TAG);
	CHECK_MPI(MPI_Type_free(&nw_vec));
	/* the thread's sends, in their order */
	CHECK_MPI(MPI_Recv(big, NW_BIG, MPI_INT, from, 20, nw_comm, &st));
	CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
	CHECK(n == NW_BIG, "the rendezvous send: %d ints", n);
	for (i = 0; i < NW_BIG; i++)
		CHECK(big[i] == from * 7 + i, "the rendezvous send: int %d", i);
	CHECK_MPI(
		MPI_Recv(&n, 1, MPI_INT, from, 20, nw_comm, MPI_STATUS_IGNORE));
	CHECK(n == from + 300, "the small send: %d", n);
	CHECK_MPI(
		MPI_Recv(&n, 1, MPI_INT, rank, 21, nw_comm, MPI_STATUS_IGNORE));
	CHECK(n == rank + 400, "the synchronous send: %d", n);
	CHECK_MPI(MPI_Waitall(3, nw_sreq, MPI_STATUSES_IGNORE));
	/* the persistent pair the thread started, then again from here */
	for (i = 0; i < 2; i++) {
		CHECK_MPI(MPI_Waitall(2, nw_preq, MPI_STATUSES_IGNORE));
		CHECK(nw_pval[0] == rank + 500 + i, "persistent receive: %d",
		      nw_pval[0]);
		nw_pval[1]++;
		if (!i)
			CHECK_MPI(MPI_Startall(2, nw_preq));
	}
	CHECK_MPI(MPI_Request_free(&nw_preq[0]));
	CHECK_MPI(MPI_Request_free(&nw_preq[1]));
	CHECK_MPI(MPI_Comm_free(&nw_comm));
	free(nw_big);
	free(big);
}

/* ---- sendout: small sends that do not wait for a thread inside MPI ------ */

#define NOUT 15
static int out_vals[NOUT];

/* To the next rank (on this node, shared memory): small sends and their
 * completions, each of which runs outside the critical section. */
static void *sendout_thread(void *arg)
{
	int to = (rank + 1) % nranks, i, flag, n, ind[2];
	MPI_Request r[2], f;
	MPI_Status st[2];

	(void)arg;
	while (!__atomic_load_n(&nw_go, __ATOMIC_ACQUIRE))
		sched_yield();
	for (i = 0; i < NOUT; i++)
		out_vals[i] = rank * 100 + i;
	CHECK_MPI(MPI_Send(&out_vals[0], 1, MPI_INT, to, 7, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Rsend(&out_vals[1], 1, MPI_INT, to, 7, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Isend(&out_vals[2], 1, MPI_INT, to, 7, MPI_COMM_WORLD,
			    &r[0]));
	CHECK(MPI_Request_f2c(MPI_Request_c2f(r[0])) == r[0],
	      "MPI_Request_f2c");
	CHECK_MPI(MPI_Wait(&r[0], &st[0]));
	CHECK(r[0] == MPI_REQUEST_NULL, "MPI_Wait left the request");
	CHECK_MPI(MPI_Test_cancelled(&st[0], &flag));
	CHECK(!flag, "a send cancelled");
	CHECK_MPI(MPI_Irsend(&out_vals[3], 1, MPI_INT, to, 7, MPI_COMM_WORLD,
			     &r[0]));
	do
		CHECK_MPI(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
	while (!flag);
	CHECK(r[0] == MPI_REQUEST_NULL, "MPI_Test left the request");
	CHECK_MPI(MPI_Isend(&out_vals[4], 1, MPI_INT, to, 7, MPI_COMM_WORLD,
			    &r[0]));
	CHECK_MPI(MPI_Isend(&out_vals[5], 1, MPI_INT, to, 7, MPI_COMM_WORLD,
			    &r[1]));
	st[0].MPI_ERROR = st[1].MPI_ERROR = -1;
	CHECK_MPI(MPI_Waitall(2, r, st));
	CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL &&
		      st[0].MPI_ERROR == MPI_SUCCESS &&
		      st[1].MPI_ERROR == MPI_SUCCESS,
	      "MPI_Waitall");
	r[0] = MPI_REQUEST_NULL;
	CHECK_MPI(MPI_Isend(&out_vals[6], 1, MPI_INT, to, 7, MPI_COMM_WORLD,
			    &r[1]));
	do
		CHECK_MPI(MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE));
	while (!flag);
	CHECK(r[1] == MPI_REQUEST_NULL, "MPI_Testall left the request");
	CHECK_MPI(
		MPI_Isend(&out_vals[7], 1, MPI_INT, to, 7, MPI_COMM_WORLD, &f));
	CHECK_MPI(MPI_Request_free(&f));
	CHECK(f == MPI_REQUEST_NULL, "MPI_Request_free left the request");
	for (i = 8; i < 10; i++)
		CHECK_MPI(MPI_Isend(&out_vals[i], 1, MPI_INT, to, 7,
				    MPI_COMM_WORLD, &r[i - 8]));
	CHECK_MPI(MPI_Waitany(2, r, &n, &st[0]));
	CHECK(n == 0 && r[0] == MPI_REQUEST_NULL, "MPI_Waitany: %d", n);
	CHECK_MPI(MPI_Testany(2, r, &n, &flag, &st[0]));
	CHECK(flag && n == 1 && r[1] == MPI_REQUEST_NULL, "MPI_Testany: %d %d",
	      flag, n);
	for (i = 10; i < 12; i++)
		CHECK_MPI(MPI_Isend(&out_vals[i], 1, MPI_INT, to, 7,
				    MPI_COMM_WORLD, &r[i - 10]));
	CHECK_MPI(MPI_Waitsome(2, r, &n, ind, st));
	CHECK(n == 2 && ind[0] == 0 && ind[1] == 1 &&
		      r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL,
	      "MPI_Waitsome: %d", n);
	CHECK_MPI(MPI_Isend(&out_vals[12], 1, MPI_INT, to, 7, MPI_COMM_WORLD,
			    &r[1]));
	CHECK_MPI(MPI_Testsome(2, r, &n, ind, MPI_STATUSES_IGNORE));
	CHECK(n == 1 && ind[0] == 1 && r[1] == MPI_REQUEST_NULL,
	      "MPI_Testsome: %d", n);
	CHECK_MPI(MPI_Isend(&out_vals[13], 1, MPI_INT, to, 7, MPI_COMM_WORLD,
			    &r[0]));
	CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Send(&out_vals[14], 1, MPI_INT, to, 7, MPI_COMM_WORLD));
	__atomic_store_n(&nw_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void sendout_phase(void)
{
	int from = (rank + nranks - 1) % nranks, rb[NOUT], i;
	MPI_Request rq[NOUT];

	/* posted first: MPI_Rsend and MPI_Irsend need them */
	for (i = 0; i < NOUT; i++)
		CHECK_MPI(MPI_Irecv(&rb[i], 1, MPI_INT, from, 7, MPI_COMM_WORLD,
				    &rq[i]));
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	hold_section(sendout_thread);
	CHECK_MPI(MPI_Waitall(NOUT, rq, MPI_STATUSES_IGNORE));
	for (i = 0; i < NOUT; i++)
		CHECK(rb[i] == from * 100 + i, "sendout: message %d is %d", i,
		      rb[i]);
	/* the peer's last send is done: its freed request's is too */
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* ---- doneout: requests the engine completed, finished outside ----------- */

#define NDONE 6
static int done_rb[NDONE], done_sb[NDONE], nested_ran;
static MPI_Request done_rr[NDONE], done_ss[NDONE];
/* a persistent receive and send, started (tag 30) */
static int done_prb = -1;
static MPI_Request done_p[2];
/* an MPI_Isendrecv (tag 31) */
static int done_xrb = -1;
static MPI_Request done_x;

/* One received message's status: from the previous rank, tag 20 + i, one
 * int, the value it sent. */
static void done_check(int i, const MPI_Status *st)
{
	int from = (rank + nranks - 1) % nranks, n;

	CHECK(st->MPI_SOURCE == from && st->MPI_TAG == 20 + i,
	      "doneout: receive %d from %d tag %d", i, st->MPI_SOURCE,
	      st->MPI_TAG);
	CHECK_MPI(MPI_Get_count(st, MPI_INT, &n));
	CHECK(n == 1 && done_rb[i] == from * 100 + i,
	      "doneout: receive %d: %d ints, %d", i, n, done_rb[i]);
}

/* The receives and synchronous sends of doneout_phase, all done (the
 * engine completed them), finished by every completion call while the
 * other thread holds the section: each must finish them outside it. */
static void *doneout_thread(void *arg)
{
	MPI_Request r[2];
	MPI_Status st[2];
	int flag, n, ind[2];

	(void)arg;
	while (!__atomic_load_n(&nw_go, __ATOMIC_ACQUIRE))
		sched_yield();
	CHECK_MPI(MPI_Wait(&done_rr[0], &st[0]));
	done_check(0, &st[0]);
	CHECK_MPI(MPI_Test(&done_rr[1], &flag, &st[0]));
	CHECK(flag && done_rr[1] == MPI_REQUEST_NULL, "doneout: MPI_Test");
	done_check(1, &st[0]);
	r[0] = done_rr[2];
	r[1] = done_ss[0];
	st[0].MPI_ERROR = st[1].MPI_ERROR = -1;
	CHECK_MPI(MPI_Waitall(2, r, st));
	CHECK(!r[0] && !r[1] && st[0].MPI_ERROR == MPI_SUCCESS &&
		      st[1].MPI_ERROR == MPI_SUCCESS,
	      "doneout: MPI_Waitall");
	done_check(2, &st[0]);
	r[0] = done_ss[1];
	r[1] = done_ss[2];
	CHECK_MPI(MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE));
	CHECK(flag && !r[0] && !r[1], "doneout: MPI_Testall");
	r[0] = done_rr[3];
	r[1] = done_ss[3];
	CHECK_MPI(MPI_Waitany(2, r, &n, &st[0]));
	CHECK(n == 0 && !r[0] && r[1], "doneout: MPI_Waitany %d", n);
	done_check(3, &st[0]);
	CHECK_MPI(MPI_Testany(2, r, &n, &flag, MPI_STATUS_IGNORE));
	CHECK(flag && n == 1 && !r[1], "doneout: MPI_Testany %d", n);
	r[0] = done_rr[4];
	r[1] = done_rr[5];
	CHECK_MPI(MPI_Waitsome(2, r, &n, ind, st));
	CHECK(n == 2 && ind[0] == 0 && ind[1] == 1 && !r[0] && !r[1],
	      "doneout: MPI_Waitsome %d", n);
	done_check(4, &st[0]);
	done_check(5, &st[1]);
	CHECK_MPI(MPI_Testsome(1, &done_ss[4], &n, ind, MPI_STATUSES_IGNORE));
	CHECK(n == 1 && !done_ss[4], "doneout: MPI_Testsome %d", n);
	CHECK_MPI(MPI_Request_free(&done_ss[5]));
	CHECK_MPI(MPI_Wait(&done_x, &st[0]));
	CHECK(!done_x && st[0].MPI_TAG == 31 &&
		      done_xrb == (rank + nranks - 1) % nranks,
	      "doneout: MPI_Isendrecv: tag %d, %d", st[0].MPI_TAG, done_xrb);
	/* persistent: finished, and left inactive for the next start */
	CHECK_MPI(MPI_Waitall(2, done_p, st));
	CHECK(done_p[0] && done_p[1] && st[0].MPI_TAG == 30 &&
		      done_prb == (rank + nranks - 1) % nranks,
	      "doneout: persistent: tag %d, %d", st[0].MPI_TAG, done_prb);
	__atomic_store_n(&nw_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Blocking calls from inside the section (an error handler runs in it),
 * with the next and previous ranks: the ones that wait outside it at
 * MULTIPLE must wait inside here. */
static MPI_Comm nest_world;

static void nested_handler(MPI_Comm *comm, int *code, ...)
{
	int from = (rank + nranks - 1) % nranks, to = (rank + 1) % nranks;
	int w = -1;
	MPI_Request r;

	(void)comm;
	(void)code;
	CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, to, 3, nest_world));
	CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, from, 3, nest_world,
			   MPI_STATUS_IGNORE));
	CHECK(w == from, "nested: MPI_Recv: %d", w);
	w = -1;
	CHECK_MPI(MPI_Irecv(&w, 1, MPI_INT, from, 4, nest_world, &r));
	CHECK_MPI(MPI_Ssend(&rank, 1, MPI_INT, to, 4, nest_world));
	CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
	CHECK(w == from, "nested: MPI_Ssend and MPI_Wait: %d", w);
	w = -1;
	CHECK_MPI(MPI_Irecv(&w, 1, MPI_INT, from, 5, nest_world, &r));
	CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, to, 5, nest_world));
	CHECK_MPI(MPI_Waitall(1, &r, MPI_STATUSES_IGNORE));
	CHECK(w == from, "nested: MPI_Waitall: %d", w);
	w = -1;
	CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, to, 6, &w, 1, MPI_INT, from,
			       6, nest_world, MPI_STATUS_IGNORE));
	CHECK(w == from, "nested: MPI_Sendrecv: %d", w);
	nested_ran++;
}

static void nested_calls(void)
{
	int sb = 1;
	MPI_Errhandler eh;
	MPI_Comm c;

	nested_ran = 0;
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &nest_world));
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &c));
	CHECK_MPI(MPI_Comm_create_errhandler(nested_handler, &eh));
	CHECK_MPI(MPI_Comm_set_errhandler(c, eh));
	CHECK(MPI_Send(&sb, 1, MPI_INT, 1, 0, c) != MPI_SUCCESS,
	      "MPI_Send to rank 1 of MPI_COMM_SELF");
	CHECK(nested_ran == 1, "nested: the handler ran %d times", nested_ran);
	CHECK_MPI(MPI_Errhandler_free(&eh));
	CHECK_MPI(MPI_Comm_free(&c));
	CHECK_MPI(MPI_Comm_free(&nest_world));
}

/* Receives from the previous rank and synchronous sends to the next (the
 * engine completes both, on any transport), polled until done with
 * MPI_Request_get_status, which leaves them; then doneout_thread. */
static void doneout_phase(void)
{
	int from = (rank + nranks - 1) % nranks, to = (rank + 1) % nranks;
	int i, left, flag;

	for (i = 0; i < NDONE; i++) {
		done_sb[i] = rank * 100 + i;
		CHECK_MPI(MPI_Irecv(&done_rb[i], 1, MPI_INT, from, 20 + i,
				    MPI_COMM_WORLD, &done_rr[i]));
	}
	CHECK_MPI(MPI_Recv_init(&done_prb, 1, MPI_INT, from, 30, MPI_COMM_WORLD,
				&done_p[0]));
	CHECK_MPI(MPI_Send_init(&rank, 1, MPI_INT, to, 30, MPI_COMM_WORLD,
				&done_p[1]));
	CHECK_MPI(MPI_Startall(1, &done_p[0]));
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	CHECK_MPI(MPI_Startall(1, &done_p[1]));
	CHECK_MPI(MPI_Isendrecv(&rank, 1, MPI_INT, to, 31, &done_xrb, 1,
				MPI_INT, from, 31, MPI_COMM_WORLD, &done_x));
	for (i = 0; i < NDONE; i++)
		CHECK_MPI(MPI_Issend(&done_sb[i], 1, MPI_INT, to, 20 + i,
				     MPI_COMM_WORLD, &done_ss[i]));
	do {
		for (i = 0, left = 0; i < NDONE; i++) {
			CHECK_MPI(MPI_Request_get_status(done_rr[i], &flag,
							 MPI_STATUS_IGNORE));
			left += !flag;
			CHECK_MPI(MPI_Request_get_status(done_ss[i], &flag,
							 MPI_STATUS_IGNORE));
			left += !flag;
		}
		for (i = 0; i < 2; i++) {
			CHECK_MPI(MPI_Request_get_status(done_p[i], &flag,
							 MPI_STATUS_IGNORE));
			left += !flag;
		}
		CHECK_MPI(MPI_Request_get_status(done_x, &flag,
						 MPI_STATUS_IGNORE));
		left += !flag;
	} while (left);
	hold_section(doneout_thread);
	/* the persistent pair again, waited for (outside) and freed */
	done_prb = -1;
	CHECK_MPI(MPI_Start(&done_p[0]));
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	CHECK_MPI(MPI_Start(&done_p[1]));
	CHECK_MPI(MPI_Wait(&done_p[1], MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Wait(&done_p[0], MPI_STATUS_IGNORE));
	CHECK(done_p[0] && done_prb == from, "doneout: persistent again: %d",
	      done_prb);
	CHECK_MPI(MPI_Request_free(&done_p[0]));
	CHECK_MPI(MPI_Request_free(&done_p[1]));
	/* the blocking exchange of both halves, waited for outside */
	i = -1;
	CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, to, 7, &i, 1, MPI_INT, from,
			       7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(i == from, "doneout: MPI_Sendrecv: %d", i);
	nested_calls();
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* ---- order: one thread's messages in order, whatever path they take ----- */

#define NSEQ 32

static const int seq_sizes[] = {8, 100, 0, 4000, 8, 70000, 1000, 16};
#define NSEQ_SIZES ((int)(sizeof(seq_sizes) / sizeof(seq_sizes[0])))

static int seq_len(int i, int t)
{
	int n = seq_sizes[(i + t) % NSEQ_SIZES];

	return n < (int)sizeof(struct hdr) ? (int)sizeof(struct hdr) : n;
}

/* MPI_Isend, completed at once by MPI_Wait, Test, Waitall or Testall
 * (how, mod 4): the small ones on shared memory complete outside the
 * critical section at MULTIPLE. */
static void isend_done(const void *b, int len, int to, int tag, int how)
{
	MPI_Request r;
	int flag = 0;

	CHECK_MPI(MPI_Isend(b, len, MPI_BYTE, to, tag, shared, &r));
	switch (how % 4) {
	case 0:
		CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
		break;
	case 1:
		while (!flag)
			CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
		break;
	case 2:
		CHECK_MPI(MPI_Waitall(1, &r, MPI_STATUSES_IGNORE));
		break;
	default:
		while (!flag)
			CHECK_MPI(
				MPI_Testall(1, &r, &flag, MPI_STATUSES_IGNORE));
	}
	CHECK(r == MPI_REQUEST_NULL, "order: a send's request left");
}

static void *order_thread(void *arg)
{
	int t = (int)(long)arg, np = nranks - 1, i, k, p, len;
	unsigned char *rb = malloc((size_t)np * NSEQ * 70000);
	unsigned char *sb = malloc((size_t)np * NSEQ * 70000);
	MPI_Request *rq = malloc(sizeof(*rq) * 2 * (size_t)np * NSEQ);
	MPI_Status *st = malloc(sizeof(*st) * 2 * (size_t)np * NSEQ);
	int nsq = 0;

	CHECK(rb && sb && rq && st, "order: out of memory");
	for (k = 0, p = 0; p < nranks; p++) {
		if (p == rank)
			continue;
		for (i = 0; i < NSEQ; i++, k++)
			CHECK_MPI(MPI_Irecv(rb + (size_t)k * 70000, 70000,
					    MPI_BYTE, p, 100 + t, shared,
					    &rq[k]));
	}
	/* everybody's receives are posted before the first send: the
	 * rendezvous sends below find them */
	CHECK_MPI(MPI_Barrier(own[t]));
	for (i = 0; i < NSEQ; i++)
		for (k = 0, p = 0; p < nranks; p++) {
			unsigned char *b;

			if (p == rank)
				continue;
			b = sb + ((size_t)k++ * NSEQ + i) * 70000;
			len = seq_len(i, t);
			msg_fill(b, rank, t, i, len);
			if (i % 6 == 1)
				CHECK_MPI(MPI_Isend(b, len, MPI_BYTE, p,
						    100 + t, shared,
						    &rq[np * NSEQ + nsq++]));
			else if (i % 6 == 4)
				isend_done(b, len, p, 100 + t, i / 6);
			else
				CHECK_MPI(MPI_Send(b, len, MPI_BYTE, p, 100 + t,
						   shared));
		}
	CHECK_MPI(MPI_Waitall(np * NSEQ + nsq, rq, st));
	for (k = 0, p = 0; p < nranks; p++) {
		if (p == rank)
			continue;
		for (i = 0; i < NSEQ; i++, k++) {
			struct hdr h;
			int got;

			CHECK_MPI(MPI_Get_count(&st[k], MPI_BYTE, &got));
			CHECK(got >= (int)sizeof(h), "order: %d bytes", got);
			memcpy(&h, rb + (size_t)k * 70000, sizeof(h));
			CHECK(h.src == p && h.thr == t && h.iter == i,
			      "order: receive %d from rank %d thread %d got "
			      "message %d of rank %d thread %d",
			      i, p, t, h.iter, h.src, h.thr);
			CHECK(h.len == got && got == seq_len(i, t),
			      "order: message %d: %d bytes, want %d", i, got,
			      seq_len(i, t));
			CHECK(job_verify(rb + (size_t)k * 70000 + sizeof(h),
					 (size_t)got - sizeof(h),
					 p * 1000 + t * 100 + i) == (size_t)-1,
			      "order: message %d from rank %d thread %d: bytes",
			      i, p, t);
		}
	}
	free(rb);
	free(sb);
	free(rq);
	free(st);
	return NULL;
}

/* ---- rma: one-sided communication from every thread ---------------------- */

#define RMA_N 16	/* ints each origin puts in its own slot of a window */
static MPI_Win rma_win; /* on `shared`, in the main thread's lock_all */
static long long rma_fetched[MAXT][NITER];

/* Byte displacement of origin o's slot of ints in a thread's window, after
 * one long counter per origin. */
static MPI_Aint rma_slot(int o)
{
	return (MPI_Aint)(sizeof(long) * nranks + sizeof(int) * RMA_N * o);
}

/*
 * Each thread: a window of its own on its own communicator (created and
 * freed while the other threads do the same), and per iteration, to the
 * ranks in turn, under a shared lock, an MPI_Accumulate on the origin's
 * counter and an MPI_Put into its slot, a flush, an MPI_Get of the slot
 * back (the bytes just put); and one MPI_Fetch_and_op on the counter of
 * rma_win at rank 0 (all threads of all ranks, one epoch). Then each
 * window's counters must be exact.
 */
static void *rma_thread(void *arg)
{
	int t = (int)(long)arg, i, k, o, r, buf[RMA_N], got[RMA_N];
	MPI_Aint size = rma_slot(nranks);
	MPI_Comm c = own[t];
	long one = 1, *base;
	long long one_ll = 1;
	MPI_Win win;

	CHECK_MPI(MPI_Win_allocate(size, 1, MPI_INFO_NULL, c, &base, &win));
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
	memset(base, 0, (size_t)size);
	CHECK_MPI(MPI_Win_unlock(rank, win));
	CHECK_MPI(MPI_Barrier(c));
	for (i = 0; i < NITER; i++) {
		r = (rank + 1 + i) % nranks;
		for (k = 0; k < RMA_N; k++)
			buf[k] = rank * 100000 + t * 1000 + i * RMA_N + k;
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, r, 0, win));
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, r,
					 (MPI_Aint)sizeof(long) * rank, 1,
					 MPI_LONG, MPI_SUM, win));
		CHECK_MPI(MPI_Put(buf, RMA_N, MPI_INT, r, rma_slot(rank), RMA_N,
				  MPI_INT, win));
		CHECK_MPI(MPI_Win_flush(r, win));
		CHECK_MPI(MPI_Get(got, RMA_N, MPI_INT, r, rma_slot(rank), RMA_N,
				  MPI_INT, win));
		CHECK_MPI(MPI_Win_unlock(r, win));
		for (k = 0; k < RMA_N; k++)
			CHECK(got[k] == buf[k],
			      "thread %d: MPI_Get from %d int %d: %d, want %d",
			      t, r, k, got[k], buf[k]);
		CHECK_MPI(MPI_Fetch_and_op(&one_ll, &rma_fetched[t][i],
					   MPI_LONG_LONG, 0, 0, MPI_SUM,
					   rma_win));
		CHECK_MPI(MPI_Win_flush(0, rma_win));
	}
	CHECK_MPI(MPI_Barrier(c));
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
	for (o = 0; o < nranks; o++) {
		long want = 0;

		for (i = 0; i < NITER; i++)
			want += (o + 1 + i) % nranks == rank;
		CHECK(base[o] == want,
		      "thread %d: %ld accumulates from rank %d, want %ld", t,
		      base[o], o, want);
	}
	CHECK_MPI(MPI_Win_unlock(rank, win));
	CHECK_MPI(MPI_Win_free(&win));
	return NULL;
}

static void rma_phase(void)
{
	long total = (long)nranks * nthr * NITER, i;
	long long *cnt, *all = NULL;

	CHECK_MPI(MPI_Win_allocate(sizeof(long long), sizeof(long long),
				   MPI_INFO_NULL, shared, &cnt, &rma_win));
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, rma_win));
	*cnt = 0;
	CHECK_MPI(MPI_Win_unlock(rank, rma_win));
	CHECK_MPI(MPI_Barrier(shared));
	CHECK_MPI(MPI_Win_lock_all(0, rma_win));
	run_threads(rma_thread, nthr);
	CHECK_MPI(MPI_Win_unlock_all(rma_win));
	CHECK_MPI(MPI_Barrier(shared));
	/* every fetch-and-op saw a different count: 0 .. total - 1 */
	if (rank == 0) {
		all = malloc(sizeof(long long) * total);
		CHECK(all != NULL, "malloc");
	}
	for (i = 0; i < nthr; i++)
		CHECK_MPI(MPI_Gather(rma_fetched[i], NITER, MPI_LONG_LONG,
				     all ? all + i * nranks * NITER : NULL,
				     NITER, MPI_LONG_LONG, 0, shared));
	if (rank == 0) {
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, rma_win));
		CHECK(*cnt == total, "the shared counter %lld, want %ld", *cnt,
		      total);
		CHECK_MPI(MPI_Win_unlock(0, rma_win));
		i = job_not_each_once(all, total);
		CHECK(i < 0, "MPI_Fetch_and_op: fetched %lld at %ld of %ld",
		      all[i], i, total);
		free(all);
	}
	CHECK_MPI(MPI_Win_free(&rma_win));
}

/* ---- svc: communicator services from every thread ----------------------- */

static int svc_copies, svc_deletes; /* atomic */

/* attribute values are integers: a copy adds one */
static int svc_copy(MPI_Comm c, int key, void *extra, void *in, void *out,
		    int *flag)
{
	(void)c;
	(void)key;
	(void)extra;
	*(void **)out = (void *)((intptr_t)in + 1);
	*flag = 1;
	__atomic_add_fetch(&svc_copies, 1, __ATOMIC_RELAXED);
	return MPI_SUCCESS;
}

static int svc_delete(MPI_Comm c, int key, void *val, void *extra)
{
	(void)c;
	(void)key;
	(void)val;
	(void)extra;
	__atomic_add_fetch(&svc_deletes, 1, __ATOMIC_RELAXED);
	return MPI_SUCCESS;
}

/*
 * Each thread, on its own communicator: a keyval with callbacks, an
 * attribute, a duplicate (the copy callback), the copy read back, a name,
 * an error handler and info on the duplicate, then the duplicate freed
 * and the attribute deleted (the delete callback, twice), the keyval freed.
 */
static void *svc_thread(void *arg)
{
	int t = (int)(long)arg, i, key, flag, len;
	char name[MPI_MAX_OBJECT_NAME], want[MPI_MAX_OBJECT_NAME];
	MPI_Errhandler eh;
	MPI_Info info;
	MPI_Comm d;
	void *v;

	for (i = 0; i < NITER; i++) {
		intptr_t val = t * 1000 + i;

		CHECK_MPI(MPI_Comm_create_keyval(svc_copy, svc_delete, &key,
						 NULL));
		CHECK_MPI(MPI_Comm_set_attr(own[t], key, (void *)val));
		CHECK_MPI(MPI_Comm_dup(own[t], &d));
		CHECK_MPI(MPI_Comm_get_attr(d, key, &v, &flag));
		CHECK(flag && (intptr_t)v == val + 1,
		      "thread %d: the copied attribute %ld, want %ld", t,
		      (long)(intptr_t)v, (long)val + 1);
		snprintf(want, sizeof(want), "thread %d dup %d", t, i);
		CHECK_MPI(MPI_Comm_set_name(d, want));
		CHECK_MPI(MPI_Comm_get_name(d, name, &len));
		CHECK(!strcmp(name, want), "thread %d: name '%s'", t, name);
		CHECK_MPI(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
		CHECK_MPI(MPI_Comm_get_errhandler(d, &eh));
		CHECK(eh == MPI_ERRORS_RETURN, "thread %d: error handler", t);
		CHECK_MPI(MPI_Errhandler_free(&eh));
		CHECK_MPI(MPI_Info_create(&info));
		CHECK_MPI(MPI_Info_set(info, "thr_stress", want));
		CHECK_MPI(MPI_Comm_set_info(d, info));
		CHECK_MPI(MPI_Info_free(&info));
		CHECK_MPI(MPI_Comm_get_info(d, &info));
		CHECK_MPI(MPI_Info_free(&info));
		CHECK_MPI(MPI_Comm_free(&d));
		CHECK_MPI(MPI_Comm_delete_attr(own[t], key));
		CHECK_MPI(MPI_Comm_free_keyval(&key));
	}
	return NULL;
}

static void svc_phase(void)
{
	svc_copies = svc_deletes = 0;
	run_threads(svc_thread, nthr);
	CHECK(svc_copies == nthr * NITER && svc_deletes == 2 * nthr * NITER,
	      "svc: %d copies, %d deletes, want %d and %d", svc_copies,
	      svc_deletes, nthr * NITER, 2 * nthr * NITER);
}

/* ---- objects: object calls racing each other and the engine ------------- */

#define NOBJ 200

/* Thread 0: ring exchanges in a fresh vector type each time, freed while
 * its messages are in flight; the others: object_calls in a loop. */
static void *objects_thread(void *arg)
{
	static int sb[MAXT][2 * 1000], rb[MAXT][2 * 1000];
	int i, k, t = (int)(long)arg, to = (rank + 1) % nranks,
		  from = (rank + nranks - 1) % nranks;

	if (t > 0) {
		for (i = 0; i < NOBJ; i++)
			object_calls(rank * 100000 + t * 1000 + i);
		return NULL;
	}
	for (i = 0; i < NOBJ; i++) {
		int n = i % 2 ? 3 : 1000; /* eager and rendezvous */
		MPI_Request rq[2];
		MPI_Datatype vec;

		for (k = 0; k < 2 * n; k++) {
			sb[t][k] = rank * 7919 + i * 31 + k;
			rb[t][k] = -1;
		}
		CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, &vec));
		CHECK_MPI(MPI_Type_commit(&vec));
		CHECK_MPI(MPI_Irecv(rb[t], 1, vec, from, 40, own[0], &rq[0]));
		CHECK_MPI(MPI_Isend(sb[t], 1, vec, to, 40, own[0], &rq[1]));
		CHECK_MPI(MPI_Type_free(&vec));
		CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
		for (k = 0; k < 2 * n; k++)
			CHECK(rb[t][k] ==
				      (k % 2 ? -1 : from * 7919 + i * 31 + k),
			      "objects: element %d of message %d", k, i);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *phase = argc > 1 ? argv[1] : "all";
	int provided, t, all = !strcmp(phase, "all");

	nthr = argc > 2 ? atoi(argv[2]) : 3;
	CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE,
				  &provided));
	CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	CHECK(nthr >= 1 && nthr <= MAXT && nranks <= 64, "threads %d", nthr);
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &shared));
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &race));
	for (t = 0; t < nthr; t++)
		CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &own[t]));

	if (all || !strcmp(phase, "p2p")) {
		run_threads(p2p_thread, nthr);
		counts_expect(NITER, "p2p shared tag");
		phase_end();
	}
	if (all || !strcmp(phase, "anysrc")) {
		use_mprobe = 0;
		claimed = 0;
		run_threads(race_thread, nthr);
		counts_expect(NITER, "anysrc");
		phase_end();
	}
	if (all || !strcmp(phase, "mprobe")) {
		use_mprobe = 1;
		claimed = 0;
		run_threads(race_thread, nthr);
		counts_expect(NITER, "mprobe");
		phase_end();
	}
	if (all || !strcmp(phase, "coll")) {
		run_threads(coll_thread, nthr);
		phase_end();
	}
	if (all || !strcmp(phase, "dup")) {
		CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parent[0]));
		CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parent[1]));
		dups_done = 0;
		run_threads(dup_phase_thread, 3);
		CHECK(dups_done == 2, "dup threads %d", dups_done);
		CHECK_MPI(MPI_Comm_free(&parent[0]));
		CHECK_MPI(MPI_Comm_free(&parent[1]));
	}
	if (all || !strcmp(phase, "nowait"))
		nowait_phase();
	/* shared memory only: over other transports these sends wait */
	if (!strcmp(phase, "sendout"))
		sendout_phase();
	if (all || !strcmp(phase, "doneout"))
		doneout_phase();
	if (all || !strcmp(phase, "order")) {
		run_threads(order_thread, nthr);
		phase_end();
	}
	if (all || !strcmp(phase, "rma")) {
		rma_phase();
		phase_end();
	}
	if (all || !strcmp(phase, "svc")) {
		svc_phase();
		phase_end();
	}
	if (all || !strcmp(phase, "objects")) {
		run_threads(objects_thread, nthr);
		phase_end();
	}

	for (t = 0; t < nthr; t++)
		CHECK_MPI(MPI_Comm_free(&own[t]));
	CHECK_MPI(MPI_Comm_free(&shared));
	CHECK_MPI(MPI_Comm_free(&race));
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	if (rank == 0)
		printf("OK %s, %d ranks x %d threads\n", phase, nranks, nthr);
	MPI_Finalize();
	return 0;
}
