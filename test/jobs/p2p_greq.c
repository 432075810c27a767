/*
 * p2p_greq.c - generalized requests mixed with point-to-point requests.
 * Each round every rank sends a message to its right neighbour and
 * receives one from its left (eager sizes and sizes past the eager
 * limit), and starts a generalized request whose operation is the
 * checksum of the received message: the program computes it when the
 * receive completes and then calls MPI_Grequest_complete. One request
 * array holds the receive, the generalized request and the send, and a
 * different completion call drains it each round (Waitsome, Testany,
 * Waitany, Testsome, Testall, Waitall after completing by hand). Checked:
 * the data, the status query_fn fills (tag = checksum, count), query_fn
 * and free_fn called exactly once and in that order, and a second
 * generalized request per round that is cancelled and freed before it
 * completes (free_fn at MPI_Grequest_complete, never a query).
 */
#include "jobs.h"

struct sum_req {
	const unsigned char *buf;
	size_t len;
	unsigned sum;
	int queries, frees, cancels, order;
};

static int steps; /* callbacks, in order */

static int sum_query(void *extra, MPI_Status *st)
{
	struct sum_req *s = extra;

	s->queries++;
	steps++;
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = (int)(s->sum & 0x7fff);
	MPI_Status_set_elements(st, MPI_BYTE, (int)s->len);
	MPI_Status_set_cancelled(st, 0);
	return MPI_SUCCESS;
}

static int sum_free(void *extra)
{
	struct sum_req *s = extra;

	s->frees++;
	s->order = ++steps;
	return MPI_SUCCESS;
}

static int sum_cancel(void *extra, int complete)
{
	struct sum_req *s = extra;

	CHECK(!complete, "cancel_fn: complete = %d", complete);
	s->cancels++;
	return MPI_SUCCESS;
}

static unsigned checksum(const unsigned char *b, size_t n)
{
	unsigned s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s = s * 31u + b[i];
	return s;
}

enum { RECV, GREQ, SEND, NREQ };

/* Drain reqs with the completion call of `round`; completes the
 * generalized request when the receive is done. */
static void drain(int round, MPI_Request reqs[NREQ], struct sum_req *s,
		  MPI_Status *gst)
{
	MPI_Status st[NREQ];
	int done = 0, greq_started = 1, i, n, idx[NREQ], flag;

	while (done < NREQ) {
		switch (round % 6) {
		case 0:
			CHECK_MPI(MPI_Waitsome(NREQ, reqs, &n, idx, st));
			break;
		case 1:
			CHECK_MPI(MPI_Testany(NREQ, reqs, &idx[0], &flag,
					      &st[0]));
			n = flag && idx[0] != MPI_UNDEFINED;
			break;
		case 2:
			CHECK_MPI(MPI_Waitany(NREQ, reqs, &idx[0], &st[0]));
			n = 1;
			break;
		case 3:
			CHECK_MPI(MPI_Testsome(NREQ, reqs, &n, idx, st));
			break;
		case 4:
			/* all or nothing: complete the generalized request
			 * by hand once the receive is seen done */
			if (reqs[GREQ] != MPI_REQUEST_NULL && greq_started) {
				CHECK_MPI(MPI_Request_get_status(
					reqs[RECV], &flag, MPI_STATUS_IGNORE));
				if (flag) {
					s->sum = checksum(s->buf, s->len);
					CHECK_MPI(MPI_Grequest_complete(
						reqs[GREQ]));
					greq_started = 0;
				}
			}
			CHECK_MPI(MPI_Testall(NREQ, reqs, &flag, st));
			if (!flag)
				continue;
			*gst = st[GREQ];
			return;
		default:
			if (greq_started) {
				CHECK_MPI(MPI_Wait(&reqs[RECV],
						   MPI_STATUS_IGNORE));
				s->sum = checksum(s->buf, s->len);
				CHECK_MPI(MPI_Grequest_complete(reqs[GREQ]));
				greq_started = 0;
			}
			CHECK_MPI(MPI_Waitall(NREQ, reqs, st));
			*gst = st[GREQ];
			return;
		}
		for (i = 0; i < n; i++) {
			done++;
			if (idx[i] == GREQ)
				*gst = st[i];
			if (idx[i] == RECV) {
				s->sum = checksum(s->buf, s->len);
				CHECK_MPI(MPI_Grequest_complete(reqs[GREQ]));
			}
		}
	}
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = {1, 100, 4096, 70000, 1 << 20};
	int rank, size, right, left, round = 0, errors = 0, total;
	unsigned char *sbuf, *rbuf;
	size_t k;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	right = (rank + 1) % size;
	left = (rank + size - 1) % size;
	sbuf = malloc(1 << 20);
	rbuf = malloc(1 << 20);
	CHECK(sbuf && rbuf, "out of memory");

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		int rep;

		for (rep = 0; rep < 6; rep++, round++) {
			struct sum_req s = {.buf = rbuf, .len = sizes[k]};
			struct sum_req c = {0};
			MPI_Request reqs[NREQ], creq, keep;
			MPI_Status gst;
			size_t bad;
			int count;

			job_fill(sbuf, sizes[k], rank + round);
			memset(rbuf, 0, sizes[k]);
			steps = 0;
			CHECK_MPI(MPI_Irecv(rbuf, (int)sizes[k], MPI_BYTE, left,
					    round, MPI_COMM_WORLD,
					    &reqs[RECV]));
			CHECK_MPI(MPI_Grequest_start(sum_query, sum_free,
						     sum_cancel, &s,
						     &reqs[GREQ]));
			CHECK_MPI(MPI_Isend(sbuf, (int)sizes[k], MPI_BYTE,
					    right, round, MPI_COMM_WORLD,
					    &reqs[SEND]));
			/* cancelled and freed while pending */
			CHECK_MPI(MPI_Grequest_start(sum_query, sum_free,
						     sum_cancel, &c, &creq));
			keep = creq;
			CHECK_MPI(MPI_Cancel(&creq));
			CHECK_MPI(MPI_Request_free(&creq));

			drain(round, reqs, &s, &gst);

			bad = job_verify(rbuf, sizes[k], left + round);
			TALLY(bad == (size_t)-1,
			      "round %d size %zu: byte %zu wrong", round,
			      sizes[k], bad);
			TALLY(s.queries == 1 && s.frees == 1 &&
				      s.order == steps,
			      "round %d: %d queries %d frees (order %d/%d)",
			      round, s.queries, s.frees, s.order, steps);
			TALLY(gst.MPI_TAG == (int)(s.sum & 0x7fff),
			      "round %d: tag %d, sum %u", round, gst.MPI_TAG,
			      s.sum);
			MPI_Get_count(&gst, MPI_BYTE, &count);
			TALLY(count == (int)sizes[k], "round %d: count %d",
			      round, count);
			TALLY(s.sum == checksum(rbuf, sizes[k]),
			      "round %d: sum", round);

			TALLY(c.cancels == 1 && c.frees == 0,
			      "round %d: cancelled: %d cancels %d frees", round,
			      c.cancels, c.frees);
			CHECK_MPI(MPI_Grequest_complete(keep));
			TALLY(c.frees == 1 && c.queries == 0,
			      "round %d: cancelled: %d frees %d queries", round,
			      c.frees, c.queries);
		}
	}
	free(sbuf);
	free(rbuf);
	MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0 && total == 0)
		printf("OK %d rounds\n", round);
	MPI_Finalize();
	return total ? 1 : 0;
}
