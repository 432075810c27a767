/*
 * p2p_match.c - matching in real jobs: wildcard receives keep each sender's
 * order across eager and rendezvous sizes; probes (blocking, nonblocking,
 * matched) report source, tag and count; Waitany/Waitsome/Testany/Testsome;
 * a flood of unexpected messages; two ranks flooding each other with large
 * messages; receive cancellation; MPI_PROC_NULL.
 */
#include <unistd.h>
#include "jobs.h"

static int rank, size;

/* A barrier from point-to-point alone (collectives are tested elsewhere),
 * so one phase's wildcard receives never see the next phase's messages. */
static void phase_end(void)
{
	int i, t = 0;

	/* rank 0 releases the others only once it has finished receiving;
	 * their acknowledgements use a tag rank 0 asks for by name */
	if (rank == 0) {
		for (i = 1; i < size; i++)
			CHECK_MPI(MPI_Send(&t, 1, MPI_INT, i, 999,
					   MPI_COMM_WORLD));
		for (i = 1; i < size; i++)
			CHECK_MPI(MPI_Recv(&t, 1, MPI_INT, i, 998,
					   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	} else {
		CHECK_MPI(MPI_Recv(&t, 1, MPI_INT, 0, 999, MPI_COMM_WORLD,
				   MPI_STATUS_IGNORE));
		CHECK_MPI(MPI_Send(&t, 1, MPI_INT, 0, 998, MPI_COMM_WORLD));
	}
}

/* Everyone sends N messages of alternating sizes to rank 0, which receives
 * with MPI_ANY_SOURCE / MPI_ANY_TAG and checks per-sender order. */
static void wildcard_order(void)
{
	enum { N = 60 };
	static const int lens[] = { 4, 40000, 0, 9000, 100, 300000 };
	unsigned char *buf = malloc(300000);
	int i, *next;

	if (rank != 0) {
		for (i = 0; i < N; i++) {
			int len = lens[i % 6];

			job_fill(buf, (size_t)len, rank * 1000 + i);
			if (len >= 4)
				memcpy(buf, &i, sizeof(i));
			CHECK_MPI(MPI_Send(buf, len, MPI_BYTE, 0, i % 5,
					   MPI_COMM_WORLD));
		}
		free(buf);
		return;
	}
	next = calloc(size, sizeof(int));
	for (i = 0; i < N * (size - 1); i++) {
		MPI_Status st;
		int src, len, cnt, seq;

		CHECK_MPI(MPI_Recv(buf, 300000, MPI_BYTE, MPI_ANY_SOURCE,
				   MPI_ANY_TAG, MPI_COMM_WORLD, &st));
		src = st.MPI_SOURCE;
		CHECK(src > 0 && src < size, "source %d", src);
		seq = next[src]++;
		len = lens[seq % 6];
		CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &cnt));
		CHECK(cnt == len, "count %d want %d", cnt, len);
		CHECK(st.MPI_TAG == seq % 5, "tag %d want %d", st.MPI_TAG,
		      seq % 5);
		if (len >= 4) {
			unsigned char *ref = malloc(len);
			int got;

			memcpy(&got, buf, sizeof(got));
			CHECK(got == seq, "from %d: message %d arrived as %d",
			      src, seq, got);
			job_fill(ref, (size_t)len, src * 1000 + seq);
			CHECK(!memcmp(ref + 4, buf + 4, len - 4),
			      "payload of %d bytes from %d", len, src);
			free(ref);
		}
	}
	free(next);
	free(buf);
}

/* Probe flavours against messages from rank 1 (eager and rendezvous). */
static void probes(void)
{
	int small = 1234, flag = 0, cnt, *big;
	MPI_Message msg;
	MPI_Request rq;
	MPI_Status st;

	if (size < 2)
		return;
	big = calloc(200000, sizeof(int));
	if (rank == 1) {
		big[199999] = 99;
		CHECK_MPI(MPI_Send(&small, 1, MPI_INT, 0, 11, MPI_COMM_WORLD));
		CHECK_MPI(MPI_Send(big, 200000, MPI_INT, 0, 12, MPI_COMM_WORLD));
		CHECK_MPI(MPI_Send(&small, 1, MPI_INT, 0, 13, MPI_COMM_WORLD));
		CHECK_MPI(MPI_Send(big, 200000, MPI_INT, 0, 14, MPI_COMM_WORLD));
	} else if (rank == 0) {
		CHECK_MPI(MPI_Probe(1, 12, MPI_COMM_WORLD, &st));
		CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
		CHECK(cnt == 200000 && st.MPI_TAG == 12, "probe count %d", cnt);
		while (!flag)
			CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 11, MPI_COMM_WORLD,
					     &flag, &st));
		CHECK(st.MPI_SOURCE == 1, "iprobe source");
		CHECK_MPI(MPI_Mprobe(1, 12, MPI_COMM_WORLD, &msg, &st));
		/* a wildcard receive must not take the matched message */
		CHECK_MPI(MPI_Recv(&cnt, 1, MPI_INT, 1, MPI_ANY_TAG,
				   MPI_COMM_WORLD, &st));
		CHECK(st.MPI_TAG == 11 && cnt == 1234, "first small");
		CHECK_MPI(MPI_Mrecv(big, 200000, MPI_INT, &msg, &st));
		CHECK(msg == MPI_MESSAGE_NULL && big[199999] == 99, "mrecv");
		flag = 0;
		while (!flag)
			CHECK_MPI(MPI_Improbe(1, 14, MPI_COMM_WORLD, &flag, &msg,
					      &st));
		memset(big, 0, sizeof(int) * 200000);
		CHECK_MPI(MPI_Imrecv(big, 200000, MPI_INT, &msg, &rq));
		CHECK_MPI(MPI_Wait(&rq, &st));
		CHECK(big[199999] == 99 && st.MPI_TAG == 14, "imrecv");
		CHECK_MPI(MPI_Recv(&cnt, 1, MPI_INT, 1, 13, MPI_COMM_WORLD, &st));
	}
	free(big);
}

/* Waitany / Waitsome / Testany / Testsome over receives from everyone. */
static void multi_completion(void)
{
	int n = size, i, done = 0, outcount, idx, flag;
	MPI_Request *rq = malloc(sizeof(*rq) * n);
	int *in = malloc(sizeof(int) * n), *ind = malloc(sizeof(int) * n);
	int *seen = calloc(n, sizeof(int));
	MPI_Status *sts = malloc(sizeof(*sts) * n);

	for (i = 0; i < n; i++)
		CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_INT, i, 21, MPI_COMM_WORLD,
				    &rq[i]));
	for (i = 0; i < n; i++)
		CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, i, 21, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Waitany(n, rq, &idx, &sts[0]));
	CHECK(in[idx] == idx && sts[0].MPI_SOURCE == idx, "waitany");
	seen[idx] = 1;
	done = 1;
	while (done < n) {
		CHECK_MPI(MPI_Waitsome(n, rq, &outcount, ind, sts));
		CHECK(outcount > 0, "waitsome outcount %d", outcount);
		for (i = 0; i < outcount; i++) {
			CHECK(!seen[ind[i]] && in[ind[i]] == ind[i], "waitsome");
			seen[ind[i]] = 1;
		}
		done += outcount;
	}
	CHECK_MPI(MPI_Waitsome(n, rq, &outcount, ind, sts));
	CHECK(outcount == MPI_UNDEFINED, "all null: MPI_UNDEFINED");
	CHECK_MPI(MPI_Waitany(n, rq, &idx, &sts[0]));
	CHECK(idx == MPI_UNDEFINED, "waitany of nulls");

	/* the same with Testany / Testsome polling */
	memset(seen, 0, sizeof(int) * n);
	for (i = 0; i < n; i++)
		CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_INT, i, 22, MPI_COMM_WORLD,
				    &rq[i]));
	for (i = 0; i < n; i++)
		CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, i, 22, MPI_COMM_WORLD));
	flag = 0;
	while (!flag)
		CHECK_MPI(MPI_Testany(n, rq, &idx, &flag, &sts[0]));
	seen[idx] = 1;
	done = 1;
	while (done < n) {
		CHECK_MPI(MPI_Testsome(n, rq, &outcount, ind,
				       MPI_STATUSES_IGNORE));
		for (i = 0; i < outcount; i++) {
			CHECK(!seen[ind[i]], "testsome twice");
			seen[ind[i]] = 1;
		}
		done += outcount;
	}
	free(rq);
	free(in);
	free(ind);
	free(seen);
	free(sts);
}

/* Everybody floods rank 0 with small unexpected messages before it posts
 * a receive, then pairs flood each other with large ones both ways. */
static void floods(void)
{
	enum { N = 20000, BIG = 64, BIGLEN = 1 << 18 };
	MPI_Request *rq;
	int i, v;

	if (rank != 0) {
		for (i = 0; i < N; i++)
			CHECK_MPI(MPI_Send(&i, 1, MPI_INT, 0, 31, MPI_COMM_WORLD));
	} else {
		int *next = calloc(size, sizeof(int));
		MPI_Status st;

		usleep(200000);	/* let the flood pile up unexpected */
		for (i = 0; i < N * (size - 1); i++) {
			CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 31,
					   MPI_COMM_WORLD, &st));
			CHECK(v == next[st.MPI_SOURCE]++, "flood order");
		}
		free(next);
	}
	if (size >= 2 && (rank ^ 1) < size) {
		int peer = rank ^ 1;
		char **out = malloc(sizeof(char *) * BIG);
		char **in = malloc(sizeof(char *) * BIG);

		rq = malloc(sizeof(*rq) * 2 * BIG);
		/* sends first on both sides: nobody has posted a receive */
		for (i = 0; i < BIG; i++) {
			out[i] = malloc(BIGLEN);
			in[i] = malloc(BIGLEN);
			memset(out[i], i + rank, BIGLEN);
			CHECK_MPI(MPI_Isend(out[i], BIGLEN, MPI_CHAR, peer, 32,
					    MPI_COMM_WORLD, &rq[i]));
		}
		for (i = 0; i < BIG; i++)
			CHECK_MPI(MPI_Irecv(in[i], BIGLEN, MPI_CHAR, peer, 32,
					    MPI_COMM_WORLD, &rq[BIG + i]));
		CHECK_MPI(MPI_Waitall(2 * BIG, rq, MPI_STATUSES_IGNORE));
		for (i = 0; i < BIG; i++) {
			CHECK(in[i][0] == (char)(i + peer) &&
				      in[i][BIGLEN - 1] == (char)(i + peer),
			      "big flood %d", i);
			free(out[i]);
			free(in[i]);
		}
		free(out);
		free(in);
		free(rq);
	}
}

/* Cancelled receives complete as cancelled; a matched one does not. */
static void cancels(void)
{
	MPI_Request rq;
	MPI_Status st;
	int flag, v = 5, got = 0;

	CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 41,
			    MPI_COMM_WORLD, &rq));
	CHECK_MPI(MPI_Cancel(&rq));
	CHECK_MPI(MPI_Wait(&rq, &st));
	CHECK_MPI(MPI_Test_cancelled(&st, &flag));
	CHECK(flag, "receive not cancelled");
	/* a message sent afterwards is still received normally */
	CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, rank, 41, MPI_COMM_WORLD, &rq));
	CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, rank, 41, MPI_COMM_WORLD, &st));
	CHECK(got == 5, "after cancel");
	CHECK_MPI(MPI_Wait(&rq, &st));
	CHECK_MPI(MPI_Test_cancelled(&st, &flag));
	CHECK(!flag, "send reported cancelled");
	/* PROC_NULL: immediate, empty status */
	CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD,
			   &st));
	CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
	      "proc null status");
	CHECK_MPI(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	wildcard_order();
	phase_end();
	probes();
	phase_end();
	multi_completion();
	phase_end();
	floods();
	phase_end();
	cancels();
	if (rank == 0)
		printf("p2p_match: %d ranks OK\n", size);
	MPI_Finalize();
	return 0;
}
