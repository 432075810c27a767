/*
 * p2p_errors.c - error classes of the point-to-point API under
 * MPI_ERRORS_RETURN, truncation at eager and rendezvous sizes (single and
 * multiple completion), and, with argument "fatal", the default handler:
 * a truncated receive ends the job naming function, error and rank.
 */
#include "jobs.h"

static int rank, size;
static char junk[1024];

#define EXPECT(call, cls)                                                  \
	do {                                                               \
		int rc_ = (call), c_ = -1;                                 \
		MPI_Error_class(rc_, &c_);                                 \
		CHECK(c_ == (cls), "%s returned class %d, want %s (%d)",   \
		      #call, c_, #cls, cls);                               \
	} while (0)

static void bad_arguments(void)
{
	int v = 0;
	MPI_Request rq = MPI_REQUEST_NULL, bogus;
	MPI_Status st;
	char str[MPI_MAX_ERROR_STRING];
	int len;

	EXPECT(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
	EXPECT(MPI_Send(&v, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
	EXPECT(MPI_Recv(&v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &st),
	       MPI_ERR_RANK);
	EXPECT(MPI_Send(&v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
	EXPECT(MPI_Isend(&v, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &rq),
	       MPI_ERR_TAG);
	EXPECT(MPI_Recv(&v, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &st),
	       MPI_ERR_TAG);
	EXPECT(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
	EXPECT(MPI_Irecv(&v, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, &rq),
	       MPI_ERR_COUNT);
	EXPECT(MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD),
	       MPI_ERR_TYPE);
	EXPECT(MPI_Send(NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD),
	       MPI_ERR_BUFFER);
	{
		MPI_Datatype t;

		/* not committed */
		CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
		EXPECT(MPI_Send(&v, 1, t, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
		MPI_Type_free(&t);
	}
	EXPECT(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
	EXPECT(MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st),
	       MPI_ERR_COMM);
	/* a garbage request handle (zeroed memory, big enough to read) */
	bogus = (MPI_Request)(void *)junk;
	EXPECT(MPI_Wait(&bogus, &st), MPI_ERR_REQUEST);
	EXPECT(MPI_Start(&rq), MPI_ERR_REQUEST);
	CHECK(rq == MPI_REQUEST_NULL, "request touched");
	EXPECT(MPI_Error_string(MPI_ERR_TRUNCATE, str, &len), MPI_SUCCESS);
	CHECK(strstr(str, "truncated") != NULL, "error string '%s'", str);
}

static void truncation(void)
{
	static const int lens[] = { 8, 5000, 100000, 3 << 20 };
	int k;

	if (size < 2 || rank > 1)
		return;
	for (k = 0; k < 4; k++) {
		int n = lens[k], cap = n / 2, i, cnt;
		char *buf = malloc(n + 64);
		MPI_Request rq[2];
		MPI_Status st[2];

		if (rank == 1) {
			memset(buf, 'a' + k, n);
			CHECK_MPI(MPI_Send(buf, n, MPI_CHAR, 0, 50 + k,
					   MPI_COMM_WORLD));
			CHECK_MPI(MPI_Send(buf, n, MPI_CHAR, 0, 60 + k,
					   MPI_COMM_WORLD));
			free(buf);
			continue;
		}
		memset(buf, 'z', n + 64);
		EXPECT(MPI_Recv(buf, cap, MPI_CHAR, 1, 50 + k, MPI_COMM_WORLD,
				&st[0]), MPI_ERR_TRUNCATE);
		CHECK_MPI(MPI_Get_count(&st[0], MPI_CHAR, &cnt));
		CHECK(cnt == cap, "truncated count %d want %d", cnt, cap);
		for (i = 0; i < cap; i++)
			CHECK(buf[i] == 'a' + k, "data before the cut");
		for (i = cap; i < n + 64; i++)
			CHECK(buf[i] == 'z', "byte %d past the buffer written", i);
		/* multiple completion: MPI_ERR_IN_STATUS, per-status error */
		memset(buf, 'z', n + 64);
		CHECK_MPI(MPI_Irecv(buf, cap, MPI_CHAR, 1, 60 + k,
				    MPI_COMM_WORLD, &rq[0]));
		CHECK_MPI(MPI_Isend(&k, 1, MPI_INT, 0, 70, MPI_COMM_WORLD,
				    &rq[1]));
		{
			int kk;

			CHECK_MPI(MPI_Recv(&kk, 1, MPI_INT, 0, 70,
					   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		}
		EXPECT(MPI_Waitall(2, rq, st), MPI_ERR_IN_STATUS);
		CHECK(st[0].MPI_ERROR == MPI_ERR_TRUNCATE, "status error %d",
		      st[0].MPI_ERROR);
		CHECK(st[1].MPI_ERROR == MPI_SUCCESS, "other status error %d",
		      st[1].MPI_ERROR);
		for (i = cap; i < n + 64; i++)
			CHECK(buf[i] == 'z', "byte %d past the buffer written", i);
		free(buf);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1 && !strcmp(argv[1], "fatal")) {
		char buf[4096];

		/* the default handler: rank 0 receives 4096 into 16 bytes */
		if (rank == 1) {
			memset(buf, 1, sizeof(buf));
			MPI_Send(buf, 4096, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
		} else if (rank == 0) {
			MPI_Recv(buf, 16, MPI_CHAR, 1, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			printf("survived a fatal error\n");
		}
		MPI_Finalize();
		return 0;
	}
	CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	{
		MPI_Errhandler eh;

		CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
		CHECK(eh == MPI_ERRORS_RETURN, "errhandler");
	}
	bad_arguments();
	truncation();
	if (rank == 0)
		printf("p2p_errors: %d ranks OK\n", size);
	MPI_Finalize();
	return 0;
}
