/*
 * p2p_sizes.c - every point-to-point send and receive flavour at sizes from
 * 0 bytes to 64 MiB (eager, rendezvous, pipelined), contents verified.
 * Ranks pair up (r, r ^ 1); with an odd count the last rank talks to itself.
 * Usage: p2p_sizes [max_bytes]
 */
#include <stdint.h>
#include "jobs.h"

static int rank, size, peer;

static const size_t sizes[] = {
	0, 1, 7, 8, 48, 100, 4095, 4096, 4097, 8192, 16385, 65535, 65537,
	(1 << 20), (4 << 20) + 13, (64 << 20)
};

enum method {
	M_SEND_RECV, M_ISEND_IRECV, M_SENDRECV, M_SENDRECV_REPLACE, M_SSEND,
	M_ISSEND, M_RSEND, M_PERSISTENT, M_TEST_LOOP, M_IRSEND, M_NMETHODS
};

static const char *const names[] = {
	"send/recv", "isend/irecv", "sendrecv", "sendrecv_replace", "ssend",
	"issend", "rsend", "persistent", "test-loop", "irsend"
};

/* Exchange n bytes with the peer by method m; seed distinguishes rounds. */
static void exchange(enum method m, size_t n, unsigned char *out,
		     unsigned char *in, int seed)
{
	int cnt = (int)n, tag = seed & 0x7fff, me = rank, flag = 0, round;
	MPI_Request rq[2];
	MPI_Status st;

	job_fill(out, n, seed * 2 + me);
	memset(in, 0xee, n);
	switch (m) {
	case M_SEND_RECV:
		if (me < peer || peer == me) {
			if (peer == me) {
				CHECK_MPI(MPI_Isend(out, cnt, MPI_BYTE, peer, tag,
						    MPI_COMM_WORLD, &rq[0]));
				CHECK_MPI(MPI_Recv(in, cnt, MPI_BYTE, peer, tag,
						   MPI_COMM_WORLD, &st));
				CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
			} else {
				CHECK_MPI(MPI_Send(out, cnt, MPI_BYTE, peer, tag,
						   MPI_COMM_WORLD));
				CHECK_MPI(MPI_Recv(in, cnt, MPI_BYTE, peer, tag,
						   MPI_COMM_WORLD, &st));
			}
		} else {
			CHECK_MPI(MPI_Recv(in, cnt, MPI_BYTE, peer, tag,
					   MPI_COMM_WORLD, &st));
			CHECK_MPI(MPI_Send(out, cnt, MPI_BYTE, peer, tag,
					   MPI_COMM_WORLD));
		}
		break;
	case M_ISEND_IRECV:
		CHECK_MPI(MPI_Irecv(in, cnt, MPI_BYTE, peer, tag,
				    MPI_COMM_WORLD, &rq[0]));
		CHECK_MPI(MPI_Isend(out, cnt, MPI_BYTE, peer, tag,
				    MPI_COMM_WORLD, &rq[1]));
		CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
		break;
	case M_SENDRECV:
		CHECK_MPI(MPI_Sendrecv(out, cnt, MPI_BYTE, peer, tag, in, cnt,
				       MPI_BYTE, peer, tag, MPI_COMM_WORLD,
				       &st));
		CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == tag, "status");
		break;
	case M_SENDRECV_REPLACE:
		memcpy(in, out, n);
		CHECK_MPI(MPI_Sendrecv_replace(in, cnt, MPI_BYTE, peer, tag,
					       peer, tag, MPI_COMM_WORLD, &st));
		break;
	case M_SSEND:
	case M_ISSEND:
		CHECK_MPI(MPI_Irecv(in, cnt, MPI_BYTE, peer, tag,
				    MPI_COMM_WORLD, &rq[0]));
		if (m == M_SSEND && peer != me) {
			CHECK_MPI(MPI_Ssend(out, cnt, MPI_BYTE, peer, tag,
					    MPI_COMM_WORLD));
			rq[1] = MPI_REQUEST_NULL;
		} else {
			CHECK_MPI(MPI_Issend(out, cnt, MPI_BYTE, peer, tag,
					     MPI_COMM_WORLD, &rq[1]));
		}
		CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
		break;
	case M_RSEND:
	case M_IRSEND:
		/* the receive is posted before the token says so */
		CHECK_MPI(MPI_Irecv(in, cnt, MPI_BYTE, peer, tag,
				    MPI_COMM_WORLD, &rq[0]));
		CHECK_MPI(MPI_Sendrecv(&flag, 1, MPI_INT, peer, 30000, &round,
				       1, MPI_INT, peer, 30000, MPI_COMM_WORLD,
				       MPI_STATUS_IGNORE));
		if (m == M_RSEND) {
			CHECK_MPI(MPI_Rsend(out, cnt, MPI_BYTE, peer, tag,
					    MPI_COMM_WORLD));
			rq[1] = MPI_REQUEST_NULL;
		} else {
			CHECK_MPI(MPI_Irsend(out, cnt, MPI_BYTE, peer, tag,
					     MPI_COMM_WORLD, &rq[1]));
		}
		CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
		break;
	case M_PERSISTENT:
		CHECK_MPI(MPI_Recv_init(in, cnt, MPI_BYTE, peer, tag,
					MPI_COMM_WORLD, &rq[0]));
		CHECK_MPI(MPI_Send_init(out, cnt, MPI_BYTE, peer, tag,
					MPI_COMM_WORLD, &rq[1]));
		for (round = 0; round < 3; round++) {
			size_t bad;

			job_fill(out, n, seed * 2 + me + round * 1000);
			CHECK_MPI(MPI_Startall(2, rq));
			CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
			CHECK(rq[0] != MPI_REQUEST_NULL, "persistent freed");
			bad = job_verify(in, n, seed * 2 + peer + round * 1000);
			CHECK(bad == (size_t)-1, "persistent round %d byte %zu",
			      round, bad);
		}
		CHECK_MPI(MPI_Request_free(&rq[0]));
		CHECK_MPI(MPI_Request_free(&rq[1]));
		return;
	case M_TEST_LOOP:
		CHECK_MPI(MPI_Irecv(in, cnt, MPI_BYTE, peer, tag,
				    MPI_COMM_WORLD, &rq[0]));
		CHECK_MPI(MPI_Isend(out, cnt, MPI_BYTE, peer, tag,
				    MPI_COMM_WORLD, &rq[1]));
		while (!flag)
			CHECK_MPI(MPI_Testall(2, rq, &flag,
					      MPI_STATUSES_IGNORE));
		break;
	default:
		break;
	}
	{
		size_t bad = job_verify(in, n, seed * 2 + peer);

		CHECK(bad == (size_t)-1, "%s of %zu bytes: byte %zu wrong",
		      names[m], n, bad);
	}
}

/* Strided and struct datatypes on both sides. */
static void derived(size_t nints, int seed)
{
	MPI_Datatype vec, st;
	int *sbuf = malloc(sizeof(int) * (2 * nints + 2));
	int *rbuf = malloc(sizeof(int) * (2 * nints + 2));
	int blens[2] = { 1, 1 };
	MPI_Aint disps[2] = { 0, sizeof(int) * 2 };
	MPI_Datatype types[2] = { MPI_INT, MPI_INT };
	size_t i;

	CHECK_MPI(MPI_Type_vector((int)nints, 1, 2, MPI_INT, &vec));
	CHECK_MPI(MPI_Type_commit(&vec));
	/* pairs of ints 2 apart, extent 3 ints: a struct with a hole */
	CHECK_MPI(MPI_Type_create_struct(2, blens, disps, types, &st));
	CHECK_MPI(MPI_Type_commit(&st));
	for (i = 0; i < 2 * nints + 2; i++) {
		sbuf[i] = (int)(i * 3 + seed + rank);
		rbuf[i] = -1;
	}
	/* strided out, contiguous in */
	CHECK_MPI(MPI_Sendrecv(sbuf, 1, vec, peer, 7, rbuf, (int)nints, MPI_INT,
			       peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	for (i = 0; i < nints; i++)
		CHECK(rbuf[i] == (int)(2 * i * 3 + seed + peer),
		      "vector->contig %zu of %zu", i, nints);
	/* contiguous out, strided in */
	for (i = 0; i < 2 * nints + 2; i++)
		rbuf[i] = -1;
	CHECK_MPI(MPI_Sendrecv(sbuf, (int)nints, MPI_INT, peer, 8, rbuf, 1, vec,
			       peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	for (i = 0; i < nints; i++) {
		CHECK(rbuf[2 * i] == (int)(i * 3 + seed + peer), "contig->vector");
		CHECK(rbuf[2 * i + 1] == -1, "gap written");
	}
	MPI_Type_free(&vec);
	MPI_Type_free(&st);
	CHECK(vec == MPI_DATATYPE_NULL, "Type_free sets NULL");
	free(sbuf);
	free(rbuf);
}

int main(int argc, char **argv)
{
	size_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : (64u << 20);
	unsigned char *out, *in;
	unsigned s, m;
	int seed = 1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = rank ^ 1;
	if (peer >= size)
		peer = rank;
	out = malloc(max + 1);
	in = malloc(max + 1);
	CHECK(out && in, "malloc");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		if (sizes[s] > max)
			break;
		for (m = 0; m < M_NMETHODS; m++) {
			/* the largest size once, to keep the job short */
			if (sizes[s] >= (64u << 20) && m != M_ISEND_IRECV)
				continue;
			exchange(m, sizes[s], out, in, seed++);
		}
	}
	derived(1, 1);
	derived(3000, 2);
	derived(300000, 3);
	free(out);
	free(in);
	if (rank == 0)
		printf("p2p_sizes: %d ranks OK\n", size);
	MPI_Finalize();
	return 0;
}
