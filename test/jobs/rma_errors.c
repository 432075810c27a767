/*
 * rma_errors.c - bad input and wrong synchronisation get their MPI error
 * class, through the right error handler, and nothing hangs.
 *
 *   rma_errors           (>= 2 ranks) every check under MPI_ERRORS_RETURN
 *   rma_errors fatal     MPI_Put outside an epoch under the default
 *                        handler: the job ends, the exit code is
 *                        MPI_ERR_RMA_SYNC
 *   rma_errors kill-lock rank 0 holds an exclusive lock on rank 1's window;
 *                        rank 1 dies (SIGKILL); rank 0's put and unlock
 *                        must return MPI_ERR_PROC_FAILED (MPI_ERRORS_RETURN)
 *                        - for transports that notice a dead peer (verbs);
 *                        run it behind a shell so that the launcher does
 *                        not end the job first
 *   rma_errors kill-fence rank 1 dies before a fence; rank 0's fence must
 *                        return an error
 * The kill modes print "rank 0 got MPI_ERR_PROC_FAILED" (or the class)
 * and end the job with MPI_Abort(3).
 */
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>
#include "jobs.h"

static int rank, size;

static void killed(bool lock)
{
	long *mem;
	long v = 7;
	MPI_Win w;
	int ret;

	CHECK_MPI(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
				   &w));
	MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (lock) {
		if (rank == 0) {
			CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w));
			CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG,
					  w));
			CHECK_MPI(MPI_Win_flush(1, w));
		}
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 1) {
			printf("rma_errors: rank 1 dies holding nothing, its "
			       "window locked\n");
			fflush(stdout);
			raise(SIGKILL);
		}
		if (rank == 0) {
			sleep(1);
			ret = MPI_Put(&v, 1, MPI_LONG, 1, 8, 1, MPI_LONG, w);
			if (ret == MPI_SUCCESS)
				ret = MPI_Win_unlock(1, w);
			printf("rma_errors: rank 0 got %s\n",
			       job_class(ret) == MPI_ERR_PROC_FAILED
				       ? "MPI_ERR_PROC_FAILED"
				       : "another class");
			fflush(stdout);
			MPI_Abort(MPI_COMM_WORLD, 3);
		}
	} else {
		CHECK_MPI(MPI_Win_fence(0, w));
		if (rank == 1) {
			printf("rma_errors: rank 1 dies before the fence\n");
			fflush(stdout);
			raise(SIGKILL);
		}
		if (rank == 0)
			CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG,
					  w));
		ret = MPI_Win_fence(0, w);
		if (rank == 0) {
			printf("rma_errors: rank 0 got %s\n",
			       job_class(ret) == MPI_ERR_PROC_FAILED
				       ? "MPI_ERR_PROC_FAILED"
			       : ret ? "another class"
				     : "no error");
			fflush(stdout);
			MPI_Abort(MPI_COMM_WORLD, 3);
		}
	}
	/* the other ranks wait to be ended */
	for (;;)
		sleep(1);
}

int main(int argc, char **argv)
{
	int *mem, v = 1, r, flag;
	MPI_Win w, dw;
	MPI_Group g;
	char buf[64];
	double d = 1;
	void *p;
	MPI_Aint sz;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(size >= 2, "needs 2 ranks");
	if (argc > 1 && !strcmp(argv[1], "kill-lock"))
		killed(true);
	if (argc > 1 && !strcmp(argv[1], "kill-fence"))
		killed(false);
	CHECK_MPI(MPI_Win_allocate(64, sizeof(int), MPI_INFO_NULL,
				   MPI_COMM_WORLD, &mem, &w));
	if (argc > 1 && !strcmp(argv[1], "fatal")) {
		MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, w);
		printf("rma_errors: survived\n");
		return 0;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_MPI(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
	MPI_Win_get_group(w, &g);

	/* handles and creation arguments */
	EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_WIN_NULL),
		     MPI_ERR_WIN);
	EXPECT_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
	EXPECT_CLASS(
		MPI_Win_create(buf, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &dw),
		MPI_ERR_SIZE);
	EXPECT_CLASS(
		MPI_Win_create(NULL, 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &dw),
		MPI_ERR_BASE);
	EXPECT_CLASS(
		MPI_Win_allocate(8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &dw),
		MPI_ERR_DISP);
	EXPECT_CLASS(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_NULL, &dw),
		     MPI_ERR_COMM);

	/* outside any epoch */
	EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, w),
		     MPI_ERR_RMA_SYNC);
	EXPECT_CLASS(MPI_Win_unlock(1, w), MPI_ERR_RMA_SYNC);
	EXPECT_CLASS(MPI_Win_unlock_all(w), MPI_ERR_RMA_SYNC);
	EXPECT_CLASS(MPI_Win_flush(1, w), MPI_ERR_RMA_SYNC);
	EXPECT_CLASS(MPI_Win_complete(w), MPI_ERR_RMA_SYNC);
	EXPECT_CLASS(MPI_Win_wait(w), MPI_ERR_RMA_SYNC);
	EXPECT_CLASS(MPI_Win_test(w, &flag), MPI_ERR_RMA_SYNC);

	/* arguments */
	CHECK_MPI(MPI_Win_fence(0, w));
	EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, w),
		     MPI_ERR_RANK);
	EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, 1, 0, 2, MPI_INT, w),
		     MPI_ERR_TYPE);
	EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, 1, 16, 1, MPI_INT, w),
		     MPI_ERR_RMA_RANGE);
	EXPECT_CLASS(MPI_Get(&v, 2, MPI_INT, 1, 15, 2, MPI_INT, w),
		     MPI_ERR_RMA_RANGE);
	EXPECT_CLASS(MPI_Accumulate(&d, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE,
				    MPI_BOR, w),
		     MPI_ERR_OP);
	EXPECT_CLASS(
		MPI_Accumulate(&v, 1, MPI_INT, 1, 0, 1, MPI_FLOAT, MPI_SUM, w),
		MPI_ERR_TYPE);
	EXPECT_CLASS(MPI_Compare_and_swap(&d, &d, &d, MPI_DOUBLE, 1, 0, w),
		     MPI_ERR_TYPE);
	EXPECT_CLASS(MPI_Win_fence(MPI_MODE_NOCHECK, w), MPI_ERR_ASSERT);
	EXPECT_CLASS(MPI_Win_attach(w, buf, 8), MPI_ERR_RMA_FLAVOR);
	EXPECT_CLASS(MPI_Win_shared_query(w, 0, &sz, &v, &p),
		     MPI_ERR_RMA_FLAVOR);
	/* mixing: a lock inside a fence epoch with operations */
	CHECK_MPI(MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT,
			  w));
	EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w), MPI_ERR_RMA_SYNC);
	EXPECT_CLASS(MPI_Win_start(g, 0, w), MPI_ERR_RMA_SYNC);
	CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
	CHECK(mem[0] == (rank + size - 1) % size, "fence put %d", mem[0]);
	EXPECT_CLASS(MPI_Win_lock(99, 0, 0, w), MPI_ERR_LOCKTYPE);
	EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOSUCCEED, w),
		     MPI_ERR_ASSERT);

	/* a fence inside a lock epoch; freeing with the lock held: every
	 * rank gets the error, nobody hangs, the window lives on */
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, (rank + 1) % size, 0, w));
	EXPECT_CLASS(MPI_Win_fence(0, w), MPI_ERR_RMA_SYNC);
	EXPECT_CLASS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (rank + 1) % size, 0, w),
		     MPI_ERR_RMA_SYNC);
	if (rank == 0) {
		EXPECT_CLASS(MPI_Win_free(&w), MPI_ERR_RMA_SYNC);
		CHECK(w != MPI_WIN_NULL, "handle gone after a failed free");
	}
	CHECK_MPI(MPI_Win_unlock((rank + 1) % size, w));
	if (rank != 0)
		EXPECT_CLASS(MPI_Win_free(&w), MPI_ERR_RMA_SYNC);

	/* dynamic: only the target knows its regions; the unlock says so */
	CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw));
	CHECK_MPI(MPI_Win_set_errhandler(dw, MPI_ERRORS_RETURN));
	CHECK_MPI(MPI_Win_attach(dw, buf, sizeof(buf)));
	EXPECT_CLASS(MPI_Win_attach(dw, buf + 8, 8), MPI_ERR_RMA_ATTACH);
	EXPECT_CLASS(MPI_Win_detach(dw, &v), MPI_ERR_RMA_ATTACH);
	EXPECT_CLASS(MPI_Win_attach(dw, NULL, 8), MPI_ERR_RMA_ATTACH);
	{
		MPI_Aint a, all[64];

		MPI_Get_address(buf, &a);
		MPI_Allgather(&a, 1, MPI_AINT, all, 1, MPI_AINT,
			      MPI_COMM_WORLD);
		r = (rank + 1) % size;
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, dw));
		CHECK_MPI(MPI_Put(&v, 1, MPI_INT, r, all[r] + 64, 1, MPI_INT,
				  dw));
		EXPECT_CLASS(MPI_Win_unlock(r, dw), MPI_ERR_RMA_RANGE);
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, dw));
		CHECK_MPI(MPI_Put(&v, 1, MPI_INT, r, all[r] + 8, 1, MPI_INT,
				  dw));
		CHECK_MPI(MPI_Win_unlock(r, dw));
	}
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Win_detach(dw, buf));
	CHECK_MPI(MPI_Win_free(&dw));
	CHECK_MPI(MPI_Win_free(&w));
	MPI_Group_free(&g);
	MPI_Finalize();
	if (rank == 0)
		printf("rma_errors: %d ranks OK\n", size);
	return 0;
}
