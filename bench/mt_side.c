/*
 * mt_side.c - MPI_THREAD_MULTIPLE: what a second thread's calls cost a
 * thread that communicates (issue 14). One rank, two threads, on a
 * duplicate of MPI_COMM_SELF, 8-byte messages in windows of 64:
 *
 *	mt_side query [windows]   thread 0 streams windows of MPI_Irecv +
 *	                          MPI_Isend to itself (MPI_Waitall); thread 1
 *	                          meanwhile calls MPI_Comm_rank, MPI_Comm_size
 *	                          on that communicator and MPI_Type_size in a
 *	                          loop
 *	mt_side objects [windows] as query, but thread 1 makes datatypes:
 *	                          MPI_Type_vector, MPI_Type_commit, MPI_Pack
 *	                          of one element (checked), MPI_Type_free
 *	mt_side test [windows]    thread 0 sends windows to thread 1, which
 *	                          receives them (tag 1); both complete each
 *	                          window by MPI_Testall in a loop; thread 1
 *	                          acknowledges each window (tag 2)
 *
 * Prints OSU-style "size messages/s calls/s" (calls/s: thread 1's rounds
 * per second in query and objects modes, 0 in test mode). Every message carries
 * its window and slot, checked on receipt, and every query's answer is
 * checked: a wrong one aborts. Standard MPI: built with each MPI's mpicc
 * by bench/compare.sh (shm-mt).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIN 64
#define LEN 8

static MPI_Comm comm;
static int windows = 20000, query_mode, objects_mode, stop;
static double calls_per_s;

/* One round of objects mode: a vector type made, used and freed. */
static void object_round(long n)
{
	int in[3] = {(int)n, -1, (int)n + 1}, out[2] = {0, 0}, pos = 0;
	MPI_Datatype t;

	MPI_Type_vector(2, 1, 2, MPI_INT, &t);
	MPI_Type_commit(&t);
	MPI_Pack(in, 1, t, out, (int)sizeof(out), &pos, comm);
	MPI_Type_free(&t);
	if (pos != (int)sizeof(out) || out[0] != in[0] || out[1] != in[2]) {
		fprintf(stderr, "mt_side: packed %d bytes: %d %d\n", pos,
			out[0], out[1]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static void *querier(void *arg)
{
	double t0 = MPI_Wtime();
	long n = 0;
	int r, s, ts;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		if (objects_mode) {
			object_round(n++);
			continue;
		}
		MPI_Comm_rank(comm, &r);
		MPI_Comm_size(comm, &s);
		MPI_Type_size(MPI_INT, &ts);
		if (r != 0 || s != 1 || ts != (int)sizeof(int)) {
			fprintf(stderr, "mt_side: rank %d size %d int %d\n", r,
				s, ts);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		n++;
	}
	calls_per_s = (double)n / (MPI_Wtime() - t0);
	return NULL;
}

/* the first byte of message j of window i */
static char stamp(int i, int j)
{
	return (char)(i * 7 + j);
}

static void check(const char (*b)[LEN], int i)
{
	int j;

	for (j = 0; j < WIN; j++)
		if (b[j][0] != stamp(i, j)) {
			fprintf(stderr, "mt_side: window %d message %d wrong\n",
				i, j);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
}

static void stream_self(void)
{
	char sb[WIN][LEN] = {{0}}, rb[WIN][LEN];
	MPI_Request rq[2 * WIN];
	int i, j;

	for (i = 0; i < windows; i++) {
		for (j = 0; j < WIN; j++) {
			sb[j][0] = stamp(i, j);
			MPI_Irecv(rb[j], LEN, MPI_CHAR, 0, 1, comm, &rq[j]);
			MPI_Isend(sb[j], LEN, MPI_CHAR, 0, 1, comm,
				  &rq[WIN + j]);
		}
		MPI_Waitall(2 * WIN, rq, MPI_STATUSES_IGNORE);
		check(rb, i);
	}
}

static void testall(MPI_Request *rq)
{
	int flag = 0;

	while (!flag)
		MPI_Testall(WIN, rq, &flag, MPI_STATUSES_IGNORE);
}

static void *exchanger(void *arg)
{
	int t = (int)(long)arg, i, j;
	char buf[WIN][LEN] = {{0}}, ack = 0;
	MPI_Request rq[WIN];

	for (i = 0; i < windows; i++) {
		for (j = 0; j < WIN; j++)
			if (t == 0) {
				buf[j][0] = stamp(i, j);
				MPI_Isend(buf[j], LEN, MPI_CHAR, 0, 1, comm,
					  &rq[j]);
			} else {
				MPI_Irecv(buf[j], LEN, MPI_CHAR, 0, 1, comm,
					  &rq[j]);
			}
		testall(rq);
		if (t == 1)
			check(buf, i);
		if (t == 0)
			MPI_Recv(&ack, 1, MPI_CHAR, 0, 2, comm,
				 MPI_STATUS_IGNORE);
		else
			MPI_Send(&ack, 1, MPI_CHAR, 0, 2, comm);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int provided;
	double t;

	if (argc < 2 || (strcmp(argv[1], "query") && strcmp(argv[1], "test") &&
			 strcmp(argv[1], "objects"))) {
		fprintf(stderr,
			"usage: mt_side query|objects|test [windows]\n");
		return 2;
	}
	objects_mode = !strcmp(argv[1], "objects");
	query_mode = objects_mode || !strcmp(argv[1], "query");
	if (argc > 2)
		windows = atoi(argv[2]);
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided != MPI_THREAD_MULTIPLE || windows < 1) {
		fprintf(stderr, "mt_side: thread level %d, %d windows\n",
			provided, windows);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Comm_dup(MPI_COMM_SELF, &comm);
	t = MPI_Wtime();
	if (query_mode) {
		pthread_create(&th, NULL, querier, NULL);
		stream_self();
	} else {
		pthread_create(&th, NULL, exchanger, (void *)1L);
		exchanger((void *)0L);
	}
	t = MPI_Wtime() - t;
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	printf("# mt_side %s: 1 rank, 2 threads, windows of %d\n", argv[1],
	       WIN);
	printf("# Size    Messages/s    Calls/s\n");
	printf("%-8d %13.0f %10.0f\n", LEN, (double)windows * WIN / t,
	       calls_per_s);
	MPI_Comm_free(&comm);
	MPI_Finalize();
	return 0;
}
