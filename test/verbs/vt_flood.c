/*
 * vt_flood.c - floods that must complete without the receiver ever running
 * out of posted receive buffers (the suite checks rxe's RNR counters and
 * runs with RCMPI_VERBS_RNR_RETRY=0, where one RNR NAK fails the job):
 *   1. a sleeping receiver: every rank floods rank 0 with small and
 *      medium messages while rank 0 computes for a second without calling
 *      MPI; then rank 0 takes them in order;
 *   2. everyone at once: each rank sends N messages to every other rank
 *      before receiving any, both directions of every pair loaded;
 *   3. (with a second argument T) turns: T times, each rank in turn sends
 *      rank 0 N messages while the others wait, so a peer that was busy
 *      falls silent and another gets busy (what takes eager rings and
 *      credits back from silent peers).
 * Message payloads carry (sender, sequence): order and content are checked.
 *
 *   vt_flood [N [T]]     (default 4000 messages per pair and phase, no
 *                         turns)
 */
#include <time.h>
#include <unistd.h>
#include "vt_common.h"

static size_t msg_len(int i)
{
	return i % 4 == 3 ? 2000
			  : 8 + (size_t)(i % 5) * 8; /* inline / bounce */
}

static void fill(char *b, size_t n, int src, int seq)
{
	memset(b, (char)(seq * 7 + src), n);
	memcpy(b, &seq, sizeof(seq));
	memcpy(b + 4, &src, sizeof(src));
}

static int check(const char *b, size_t n, int src, int seq)
{
	int s, r;
	size_t i;

	memcpy(&s, b, sizeof(s));
	memcpy(&r, b + 4, sizeof(r));
	if (s != seq || r != src)
		return 0;
	for (i = 8; i < n; i++)
		if (b[i] != (char)(seq * 7 + src))
			return 0;
	return 1;
}

/* Send n messages to dst (nonblocking, all outstanding at once). */
static void flood_to(int dst, int n, int tag, MPI_Request *rq, char *bufs)
{
	int i;

	for (i = 0; i < n; i++) {
		char *b = bufs + (size_t)i * 2048;

		fill(b, msg_len(i), vt_rank, i);
		MPI_Isend(b, (int)msg_len(i), MPI_BYTE, dst, tag,
			  MPI_COMM_WORLD, &rq[i]);
	}
}

static void take_from(int src, int n, int tag)
{
	char b[2048];
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		MPI_Status st;
		int cnt;

		MPI_Recv(b, sizeof(b), MPI_BYTE, src, tag, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_BYTE, &cnt);
		if (cnt != (int)msg_len(i) || !check(b, msg_len(i), src, i))
			bad++;
	}
	VT_CHECK(!bad, "flood from %d: %d of %d messages wrong", src, bad, n);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4000, p, nreq = 0, turn;
	int turns = argc > 2 ? atoi(argv[2]) : 0;
	MPI_Request *rq;
	char *bufs;

	vt_init(&argc, &argv);
	rq = malloc(sizeof(*rq) * (size_t)n * vt_size);
	bufs = malloc((size_t)n * 2048 * vt_size);

	/* 1: rank 0 sleeps while the others flood it */
	if (vt_rank) {
		flood_to(0, n, 1, rq, bufs);
		MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
	} else {
		struct timespec t = {1, 0};

		nanosleep(&t, NULL);
		for (p = 1; p < vt_size; p++)
			take_from(p, n, 1);
	}
	vt_barrier();

	/* 2: everyone floods everyone */
	for (p = 0; p < vt_size; p++) {
		if (p == vt_rank)
			continue;
		flood_to(p, n, 2, rq + nreq, bufs + (size_t)nreq * 2048);
		nreq += n;
	}
	for (p = 0; p < vt_size; p++)
		if (p != vt_rank)
			take_from(p, n, 2);
	MPI_Waitall(nreq, rq, MPI_STATUSES_IGNORE);

	/* 3: turns, one sender to rank 0 at a time */
	for (turn = 0; turn < turns; turn++)
		for (p = 1; p < vt_size; p++) {
			vt_barrier();
			if (vt_rank == p) {
				flood_to(0, n, 3, rq, bufs);
				MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
			} else if (vt_rank == 0) {
				take_from(p, n, 3);
			}
		}
	free(rq);
	free(bufs);
	return vt_finish("flood");
}
