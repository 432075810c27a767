/*
 * p2p_bsend.c - buffered mode, MPI_Isendrecv(_replace) and send
 * cancellation between real processes, in a ring (each rank sends to its
 * right neighbour, receives from its left).
 *
 * Buffered: MPI_ERR_BUFFER without a buffer and when the buffer sized by
 * MPI_Pack_size + MPI_BSEND_OVERHEAD is full; Bsend, Ibsend and a
 * Bsend_init started twice, the user buffers overwritten at once; detach
 * returns the buffer as attached only after the messages left (the pool is
 * overwritten right after detach, and the receiver, which reads the
 * rendezvous data from it under RGET, must still see the message); a
 * buffered send still pending at MPI_Finalize. Isendrecv with a vector
 * type, MPI_ANY_SOURCE and MPI_PROC_NULL; Isendrecv_replace. Cancel: an
 * unmatched rendezvous send and an unmatched MPI_Issend are cancelled and
 * never seen; a matched one and an eager one are not cancelled and arrive.
 * argv[1]: elements of the large messages (default 200000 ints), or
 * "fatal": a buffered send without room ends the job.
 */
#include "jobs.h"

static int rank, size, right, left;

static void fill(int *b, int n, int seed)
{
	for (int i = 0; i < n; i++)
		b[i] = i * 13 + seed;
}

static int first_bad(const int *b, int n, int seed)
{
	for (int i = 0; i < n; i++)
		if (b[i] != i * 13 + seed)
			return i;
	return -1;
}

static void recv_expect(int n, int tag, int seed)
{
	int *b = malloc(sizeof(int) * (size_t)(n + 1));
	MPI_Status st;
	int cnt, bad;

	CHECK_MPI(MPI_Recv(b, n + 1, MPI_INT, left, tag, MPI_COMM_WORLD, &st));
	MPI_Get_count(&st, MPI_INT, &cnt);
	CHECK(cnt == n, "tag %d: count %d, want %d", tag, cnt, n);
	bad = first_bad(b, n, seed);
	CHECK(bad < 0, "tag %d: element %d is %d", tag, bad, b[bad]);
	free(b);
}

static void buffered(int big)
{
	int *m1 = malloc(sizeof(int) * (size_t)big);
	int *m2 = malloc(sizeof(int) * (size_t)big);
	int small[10], ps_big, ps_small, bufsize, got_size;
	char *pool, *pool2;
	MPI_Request r1, p;
	void *got;

	EXPECT_CLASS(MPI_Bsend(small, 10, MPI_INT, right, 1, MPI_COMM_WORLD),
		     MPI_ERR_BUFFER);
	MPI_Pack_size(big, MPI_INT, MPI_COMM_WORLD, &ps_big);
	MPI_Pack_size(10, MPI_INT, MPI_COMM_WORLD, &ps_small);
	bufsize = 3 * (ps_big + MPI_BSEND_OVERHEAD) + ps_small +
		  MPI_BSEND_OVERHEAD;
	pool = malloc((size_t)bufsize);
	CHECK_MPI(MPI_Buffer_attach(pool, bufsize));
	EXPECT_CLASS(MPI_Buffer_attach(pool, bufsize), MPI_ERR_BUFFER);

	fill(small, 10, 1);
	CHECK_MPI(MPI_Bsend(small, 10, MPI_INT, right, 1, MPI_COMM_WORLD));
	fill(small, 10, -1);
	fill(m1, big, 2);
	CHECK_MPI(MPI_Ibsend(m1, big, MPI_INT, right, 2, MPI_COMM_WORLD, &r1));
	fill(m1, big, -2);
	CHECK_MPI(MPI_Wait(&r1, MPI_STATUS_IGNORE));
	CHECK_MPI(
		MPI_Bsend_init(m2, big, MPI_INT, right, 3, MPI_COMM_WORLD, &p));
	fill(m2, big, 3);
	CHECK_MPI(MPI_Start(&p));
	fill(m2, big, 4);
	CHECK_MPI(MPI_Wait(&p, MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Start(&p));
	CHECK_MPI(MPI_Wait(&p, MPI_STATUS_IGNORE));
	fill(m2, big, -3);
	/* three large messages wait for their receiver: no room */
	EXPECT_CLASS(MPI_Bsend(m1, big, MPI_INT, right, 9, MPI_COMM_WORLD),
		     MPI_ERR_BUFFER);
	EXPECT_CLASS(MPI_Start(&p), MPI_ERR_BUFFER);
	MPI_Barrier(MPI_COMM_WORLD);
	recv_expect(10, 1, 1);
	recv_expect(big, 2, 2);
	recv_expect(big, 3, 3);
	recv_expect(big, 3, 4);
	CHECK_MPI(MPI_Buffer_detach(&got, &got_size));
	CHECK(got == pool && got_size == bufsize, "detach gave %p %d", got,
	      got_size);
	CHECK_MPI(MPI_Request_free(&p));

	/* detach waits until the message has left the pool */
	pool2 = malloc((size_t)bufsize);
	CHECK_MPI(MPI_Buffer_attach(pool2, bufsize));
	fill(m1, big, 5);
	CHECK_MPI(MPI_Bsend(m1, big, MPI_INT, right, 5, MPI_COMM_WORLD));
	if (rank % 2) {
		CHECK_MPI(MPI_Buffer_detach(&got, &got_size));
		memset(pool2, 0x5a, (size_t)bufsize);
		recv_expect(big, 5, 5);
	} else {
		recv_expect(big, 5, 5);
		CHECK_MPI(MPI_Buffer_detach(&got, &got_size));
		memset(pool2, 0x5a, (size_t)bufsize);
	}
	CHECK(got == pool2, "second detach gave %p", got);
	MPI_Barrier(MPI_COMM_WORLD);
	free(pool2);
	free(pool);
	free(m1);
	free(m2);
}

static void sendrecv(int big)
{
	int n = big / 2, *s = malloc(sizeof(int) * 2 * (size_t)n);
	int *r = malloc(sizeof(int) * (size_t)n), bad, cnt, v;
	MPI_Datatype vec;
	MPI_Request req;
	MPI_Status st;

	MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	for (int i = 0; i < n; i++)
		s[2 * i] = i * 13 + rank;
	CHECK_MPI(MPI_Isendrecv(s, 1, vec, right, 7, r, n, MPI_INT,
				rank % 2 ? MPI_ANY_SOURCE : left, 7,
				MPI_COMM_WORLD, &req));
	CHECK_MPI(MPI_Wait(&req, &st));
	CHECK(req == MPI_REQUEST_NULL, "request not freed");
	MPI_Get_count(&st, MPI_INT, &cnt);
	CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7 && cnt == n,
	      "status %d %d %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
	bad = first_bad(r, n, left);
	CHECK(bad < 0, "isendrecv: element %d", bad);

	/* replace, in place through the vector */
	for (int i = 0; i < 2 * n; i++)
		s[i] = i % 2 ? -1 : (i / 2) * 13 + rank;
	CHECK_MPI(MPI_Isendrecv_replace(s, 1, vec, right, 8, left, 8,
					MPI_COMM_WORLD, &req));
	CHECK_MPI(MPI_Wait(&req, &st));
	bad = -1;
	for (int i = 0; i < 2 * n && bad < 0; i++)
		if (s[i] != (i % 2 ? -1 : (i / 2) * 13 + left))
			bad = i;
	CHECK(bad < 0, "isendrecv_replace: element %d", bad);
	CHECK(st.MPI_SOURCE == left, "replace status source %d", st.MPI_SOURCE);

	v = 3;
	CHECK_MPI(MPI_Isendrecv_replace(&v, 1, MPI_INT, MPI_PROC_NULL, 1,
					MPI_PROC_NULL, 1, MPI_COMM_WORLD,
					&req));
	CHECK_MPI(MPI_Wait(&req, &st));
	CHECK(st.MPI_SOURCE == MPI_PROC_NULL && v == 3, "proc_null: %d %d",
	      st.MPI_SOURCE, v);
	EXPECT_CLASS(MPI_Isendrecv(&v, 1, MPI_INT, size, 1, &v, 1, MPI_INT,
				   left, 1, MPI_COMM_WORLD, &req),
		     MPI_ERR_RANK);
	MPI_Type_free(&vec);
	free(s);
	free(r);
}

static int cancel_send(MPI_Request *req)
{
	MPI_Status st;
	int flag;

	CHECK_MPI(MPI_Cancel(req));
	CHECK_MPI(MPI_Wait(req, &st));
	CHECK_MPI(MPI_Test_cancelled(&st, &flag));
	return flag;
}

static void cancel(int big)
{
	int *m = malloc(sizeof(int) * (size_t)big), small[4], flag;
	int *rb = malloc(sizeof(int) * (size_t)(big + 1));
	MPI_Request req, rreq;
	MPI_Status st;

	/* unmatched rendezvous and synchronous sends: cancelled */
	fill(m, big, 20);
	CHECK_MPI(MPI_Isend(m, big, MPI_INT, right, 20, MPI_COMM_WORLD, &req));
	CHECK(cancel_send(&req) == 1, "unmatched rendezvous not cancelled");
	fill(small, 4, 21);
	CHECK_MPI(
		MPI_Issend(small, 4, MPI_INT, right, 21, MPI_COMM_WORLD, &req));
	CHECK(cancel_send(&req) == 1, "unmatched ssend not cancelled");
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Iprobe(left, 20, MPI_COMM_WORLD, &flag, &st));
	CHECK(!flag, "a cancelled rendezvous message is visible");
	CHECK_MPI(MPI_Iprobe(left, 21, MPI_COMM_WORLD, &flag, &st));
	CHECK(!flag, "a cancelled ssend is visible");
	MPI_Barrier(MPI_COMM_WORLD);

	/* matched before the cancel: not cancelled, data arrives */
	CHECK_MPI(MPI_Irecv(rb, big + 1, MPI_INT, left, 22, MPI_COMM_WORLD,
			    &rreq));
	MPI_Barrier(MPI_COMM_WORLD);
	fill(m, big, 22);
	CHECK_MPI(MPI_Isend(m, big, MPI_INT, right, 22, MPI_COMM_WORLD, &req));
	CHECK(cancel_send(&req) == 0, "matched rendezvous cancelled");
	CHECK_MPI(MPI_Wait(&rreq, &st));
	CHECK(first_bad(rb, big, 22) < 0, "matched: data wrong");

	/* eager and out: not cancelled */
	fill(small, 4, 23);
	CHECK_MPI(
		MPI_Isend(small, 4, MPI_INT, right, 23, MPI_COMM_WORLD, &req));
	CHECK(cancel_send(&req) == 0, "eager send cancelled");
	recv_expect(4, 23, 23);

	/* the tags of the cancelled sends carry the next messages */
	fill(m, big, 24);
	CHECK_MPI(MPI_Isend(m, big, MPI_INT, right, 20, MPI_COMM_WORLD, &req));
	recv_expect(big, 20, 24);
	CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
	free(rb);
	free(m);
}

int main(int argc, char **argv)
{
	int big = argc > 1 ? atoi(argv[1]) : 200000;
	static int last[100000];
	char *pool;
	int ps;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1 && !strcmp(argv[1], "fatal")) {
		/* no room, under MPI_ERRORS_ARE_FATAL: the message says why */
		static char small[64];

		CHECK_MPI(MPI_Buffer_attach(small, sizeof(small)));
		MPI_Bsend(last, 1000, MPI_INT, rank, 1, MPI_COMM_WORLD);
		printf("survived\n");
		MPI_Finalize();
		return 0;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	right = (rank + 1) % size;
	left = (rank + size - 1) % size;
	buffered(big);
	sendrecv(big);
	cancel(big);

	/* a buffered send still pending at MPI_Finalize */
	MPI_Pack_size(100000, MPI_INT, MPI_COMM_WORLD, &ps);
	pool = malloc((size_t)ps + MPI_BSEND_OVERHEAD);
	CHECK_MPI(MPI_Buffer_attach(pool, ps + MPI_BSEND_OVERHEAD));
	fill(last, 100000, 30);
	CHECK_MPI(MPI_Bsend(last, 100000, MPI_INT, right, 30, MPI_COMM_WORLD));
	recv_expect(100000, 30, 30);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("p2p_bsend: %d ranks OK\n", size);
	MPI_Finalize();
	free(pool);
	return 0;
}
