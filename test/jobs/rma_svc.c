/*
 * rma_svc.c - window services (issue 11): windows as handle-table objects
 * (MPI_Win_c2f / _f2c, a freed handle), attributes on window keyvals with
 * their callbacks, the program's own window error handlers, and the hints
 * of every creation call with MPI_Win_get_info / _set_info.
 *
 *   rma_svc              (any number of ranks) every check; the errors
 *                        under MPI_ERRORS_RETURN or a user handler
 *   rma_svc fatal-freed  MPI_Win_fence on a freed window under the
 *                        default handler: the job ends with MPI_ERR_WIN
 *                        and says the handle was freed
 */
#include <stdbool.h>
#include "jobs.h"

static int rank, size;

/* ---- attributes ---------------------------------------------------------- */

static int extra_state = 42;
static MPI_Win del_win; /* the window the callbacks expect */
static int ndel, del_fail, del_order[8];

static int del_fn(MPI_Win win, int keyval, void *val, void *extra)
{
	CHECK(win == del_win, "delete callback got another window");
	CHECK(extra == &extra_state, "delete callback: extra_state");
	(void)keyval;
	if (del_fail)
		return MPI_ERR_OTHER;
	if (ndel < 8)
		del_order[ndel] = (int)(MPI_Aint)val;
	ndel++;
	return MPI_SUCCESS;
}

static void attributes(void)
{
	int k1, k2, kn, ck, flag, *mem, *pv;
	MPI_Aint *psz;
	void *p, *out;
	MPI_Win w;

	CHECK_MPI(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL,
				   MPI_COMM_WORLD, &mem, &w));
	CHECK_MPI(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
	del_win = w;
	CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &k1,
					&extra_state));
	CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_DUP_FN, del_fn, &k2,
					&extra_state));
	CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN,
					MPI_WIN_NULL_DELETE_FN, &kn, NULL));

	/* not set yet */
	CHECK_MPI(MPI_Win_get_attr(w, k1, &p, &flag));
	CHECK(!flag, "unset attribute found");
	/* set, get, set again (the old value's delete runs), delete */
	CHECK_MPI(MPI_Win_set_attr(w, k1, (void *)1));
	CHECK_MPI(MPI_Win_set_attr(w, k2, (void *)2));
	CHECK_MPI(MPI_Win_set_attr(w, kn, (void *)3));
	CHECK_MPI(MPI_Win_get_attr(w, k1, &p, &flag));
	CHECK(flag && p == (void *)1, "k1: flag %d value %p", flag, p);
	CHECK_MPI(MPI_Win_set_attr(w, k1, (void *)4));
	CHECK(ndel == 1 && del_order[0] == 1, "replacing: %d deletes", ndel);
	CHECK_MPI(MPI_Win_get_attr(w, k1, &p, &flag));
	CHECK(flag && p == (void *)4, "k1 again: flag %d value %p", flag, p);
	CHECK_MPI(MPI_Win_delete_attr(w, k2));
	CHECK(ndel == 2 && del_order[1] == 2, "delete_attr: %d", ndel);
	CHECK_MPI(MPI_Win_get_attr(w, k2, &p, &flag));
	CHECK(!flag, "deleted attribute found");
	CHECK_MPI(MPI_Win_get_attr(w, kn, &p, &flag));
	CHECK(flag && p == (void *)3, "kn: flag %d value %p", flag, p);

	/* the predefined ones are still there */
	CHECK_MPI(MPI_Win_get_attr(w, MPI_WIN_BASE, &p, &flag));
	CHECK(flag && p == mem, "MPI_WIN_BASE %p, want %p", p, (void *)mem);
	CHECK_MPI(MPI_Win_get_attr(w, MPI_WIN_SIZE, &psz, &flag));
	CHECK(flag && *psz == 16 * (MPI_Aint)sizeof(int), "MPI_WIN_SIZE");
	CHECK_MPI(MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, &pv, &flag));
	CHECK(flag && *pv == (int)sizeof(int), "MPI_WIN_DISP_UNIT");
	CHECK_MPI(MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &pv, &flag));
	CHECK(flag && *pv == MPI_WIN_FLAVOR_ALLOCATE, "flavor %d", *pv);
	CHECK_MPI(MPI_Win_get_attr(w, MPI_WIN_MODEL, &pv, &flag));
	CHECK(flag && *pv == MPI_WIN_UNIFIED, "model %d", *pv);

	/* bad keyvals: MPI_ERR_KEYVAL on the window's handler */
	EXPECT_CLASS(MPI_Win_set_attr(w, MPI_WIN_BASE, NULL), MPI_ERR_KEYVAL);
	EXPECT_CLASS(MPI_Win_delete_attr(w, MPI_WIN_SIZE), MPI_ERR_KEYVAL);
	EXPECT_CLASS(MPI_Win_set_attr(w, MPI_KEYVAL_INVALID, NULL),
		     MPI_ERR_KEYVAL);
	EXPECT_CLASS(MPI_Win_get_attr(w, MPI_TAG_UB, &p, &flag),
		     MPI_ERR_KEYVAL);
	EXPECT_CLASS(MPI_Win_get_attr(w, 1 << 20, &p, &flag), MPI_ERR_KEYVAL);
	EXPECT_CLASS(MPI_Win_get_attr(w, k1, NULL, &flag), MPI_ERR_ARG);
	CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
					 MPI_COMM_NULL_DELETE_FN, &ck, NULL));
	EXPECT_CLASS(MPI_Win_set_attr(w, ck, NULL), MPI_ERR_KEYVAL);
	EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, k1, NULL),
		     MPI_ERR_KEYVAL);
	EXPECT_CLASS(MPI_Win_free_keyval(&ck), MPI_ERR_KEYVAL);
	CHECK_MPI(MPI_Comm_free_keyval(&ck));
	{
		int pre = MPI_WIN_MODEL;

		EXPECT_CLASS(MPI_Win_free_keyval(&pre), MPI_ERR_KEYVAL);
	}

	/* the predefined callbacks (windows are never copied: called here) */
	out = NULL;
	flag = -1;
	CHECK_MPI(MPI_WIN_DUP_FN(w, k2, NULL, (void *)9, &out, &flag));
	CHECK(flag == 1 && out == (void *)9, "MPI_WIN_DUP_FN");
	CHECK_MPI(MPI_WIN_NULL_COPY_FN(w, k2, NULL, (void *)9, &out, &flag));
	CHECK(flag == 0, "MPI_WIN_NULL_COPY_FN");
	CHECK_MPI(MPI_WIN_NULL_DELETE_FN(w, k2, NULL, NULL));

	/* a freed keyval lives on with its attribute: its number still
	 * gets it, and freeing it again does nothing */
	{
		int dead = k2;

		CHECK_MPI(MPI_Win_set_attr(w, k2, (void *)5));
		CHECK_MPI(MPI_Win_free_keyval(&k2));
		CHECK(k2 == MPI_KEYVAL_INVALID, "free_keyval left the keyval");
		p = NULL;
		CHECK_MPI(MPI_Win_get_attr(w, dead, &p, &flag));
		CHECK(flag && p == (void *)5, "a freed keyval's attribute");
		k2 = dead;
		CHECK_MPI(MPI_Win_free_keyval(&k2));
		CHECK(k2 == MPI_KEYVAL_INVALID, "a second free_keyval");
	}

	/* a failing delete callback fails MPI_Win_free (on every rank
	 * alike), and the window lives on */
	del_fail = 1;
	ndel = 0;
	EXPECT_CLASS(MPI_Win_free(&w), MPI_ERR_OTHER);
	CHECK(w != MPI_WIN_NULL, "the handle went with a failed free");
	CHECK_MPI(MPI_Win_fence(0, w));
	CHECK_MPI(MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT,
			  w));
	CHECK_MPI(MPI_Win_fence(0, w));
	CHECK(mem[0] == (rank + size - 1) % size, "put after a failed free");
	/* then the delete callbacks run at MPI_Win_free, newest first */
	del_fail = 0;
	CHECK_MPI(MPI_Win_free(&w));
	CHECK(ndel == 2 && del_order[0] == 5 && del_order[1] == 4,
	      "MPI_Win_free: %d deletes (%d, %d)", ndel, del_order[0],
	      del_order[1]);
	CHECK_MPI(MPI_Win_free_keyval(&k1));
	CHECK_MPI(MPI_Win_free_keyval(&kn));

	/* a window without memory has MPI_WIN_BASE set */
	CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
	p = &flag;
	CHECK_MPI(MPI_Win_get_attr(w, MPI_WIN_BASE, &p, &flag));
	CHECK(flag && p == NULL, "dynamic MPI_WIN_BASE %p", p);
	CHECK_MPI(MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &pv, &flag));
	CHECK(flag && *pv == MPI_WIN_FLAVOR_DYNAMIC, "dynamic flavor");
	CHECK_MPI(MPI_Win_free(&w));
}

/* ---- handles ------------------------------------------------------------- */

static void handles(void)
{
	MPI_Win w, stale;
	MPI_Fint f;
	int *mem;

	CHECK(MPI_Win_c2f(MPI_WIN_NULL) == 0, "c2f(MPI_WIN_NULL)");
	CHECK(MPI_Win_f2c(0) == MPI_WIN_NULL, "f2c(0)");
	CHECK(MPI_Win_f2c(-1) == MPI_WIN_NULL, "f2c(-1)");
	CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL,
				   MPI_COMM_WORLD, &mem, &w));
	f = MPI_Win_c2f(w);
	CHECK(f > 0, "c2f of a window: %d", (int)f);
	CHECK(MPI_Win_f2c(f) == w, "f2c(c2f(w)) is not w");
	/* the Fortran handle works as a window */
	CHECK_MPI(MPI_Win_fence(0, MPI_Win_f2c(f)));
	CHECK_MPI(MPI_Win_fence(0, w));
	stale = w;
	CHECK_MPI(MPI_Win_free(&w));
	CHECK(w == MPI_WIN_NULL, "MPI_Win_free left the handle");
	CHECK(MPI_Win_f2c(f) == MPI_WIN_NULL, "f2c of a freed window");
	/* a freed handle: MPI_ERR_WIN on MPI_COMM_WORLD, no crash */
	EXPECT_CLASS(MPI_Win_fence(0, stale), MPI_ERR_WIN);
	EXPECT_CLASS(MPI_Win_set_attr(stale, MPI_WIN_BASE, NULL), MPI_ERR_WIN);
	EXPECT_CLASS(MPI_Win_get_info(stale, &(MPI_Info){0}), MPI_ERR_WIN);
	EXPECT_CLASS(MPI_Win_call_errhandler(stale, MPI_ERR_OTHER),
		     MPI_ERR_WIN);
	EXPECT_CLASS(MPI_Win_free(&stale), MPI_ERR_WIN);
	/* a communicator is not a window */
	EXPECT_CLASS(MPI_Win_fence(0, (MPI_Win)(void *)MPI_COMM_WORLD),
		     MPI_ERR_WIN);
}

/* ---- error handlers ------------------------------------------------------ */

static MPI_Win eh_win;
static int eh_calls, eh_code;

static void win_handler(MPI_Win *win, int *code, ...)
{
	CHECK(*win == eh_win, "window handler got another window");
	eh_calls++;
	eh_code = *code;
}

static void comm_handler(MPI_Comm *comm, int *code, ...)
{
	(void)comm, (void)code;
}

static void errhandlers(void)
{
	MPI_Errhandler eh, ceh, got;
	MPI_Win w;
	int *mem, v = 1, mycode, cls;

	CHECK_MPI(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL,
				   MPI_COMM_WORLD, &mem, &w));
	eh_win = w;
	/* the default handler is MPI_ERRORS_ARE_FATAL */
	CHECK_MPI(MPI_Win_get_errhandler(w, &got));
	CHECK(got == MPI_ERRORS_ARE_FATAL, "default window handler");
	CHECK_MPI(MPI_Errhandler_free(&got));
	CHECK_MPI(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));

	EXPECT_CLASS(MPI_Win_create_errhandler(NULL, &eh), MPI_ERR_ARG);
	CHECK_MPI(MPI_Win_create_errhandler(win_handler, &eh));
	CHECK_MPI(MPI_Comm_create_errhandler(comm_handler, &ceh));
	/* a handler of the wrong kind, or no handler */
	EXPECT_CLASS(MPI_Win_set_errhandler(w, ceh), MPI_ERR_ARG);
	EXPECT_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh), MPI_ERR_ARG);
	EXPECT_CLASS(MPI_Win_set_errhandler(w, MPI_ERRHANDLER_NULL),
		     MPI_ERR_ARG);
	CHECK_MPI(MPI_Errhandler_free(&ceh));

	CHECK_MPI(MPI_Win_set_errhandler(w, eh));
	/* freed by the program, it works on where it is attached */
	CHECK_MPI(MPI_Errhandler_free(&eh));
	CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free left the handle");
	CHECK_MPI(MPI_Win_get_errhandler(w, &got));
	CHECK(got != MPI_ERRORS_ARE_FATAL && got != MPI_ERRORS_RETURN,
	      "get_errhandler: not the user's");

	/* errors of the one-sided calls reach it with the window and code */
	CHECK_MPI(MPI_Win_fence(0, w));
	eh_calls = 0;
	EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, w),
		     MPI_ERR_RANK);
	CHECK(eh_calls == 1 && job_class(eh_code) == MPI_ERR_RANK,
	      "MPI_Put: %d calls, code %d", eh_calls, eh_code);
	EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, 0, 100, 1, MPI_INT, w),
		     MPI_ERR_RMA_RANGE);
	CHECK(eh_calls == 2 && job_class(eh_code) == MPI_ERR_RMA_RANGE,
	      "range: %d calls, code %d", eh_calls, eh_code);
	EXPECT_CLASS(MPI_Win_unlock(0, w), MPI_ERR_RMA_SYNC);
	CHECK(eh_calls == 3 && job_class(eh_code) == MPI_ERR_RMA_SYNC,
	      "unlock: %d calls, code %d", eh_calls, eh_code);
	EXPECT_CLASS(MPI_Win_lock(99, 0, 0, w), MPI_ERR_LOCKTYPE);
	EXPECT_CLASS(MPI_Win_get_attr(w, MPI_TAG_UB, &mem, &v), MPI_ERR_KEYVAL);
	EXPECT_CLASS(MPI_Win_get_info(w, NULL), MPI_ERR_ARG);
	CHECK(eh_calls == 6, "%d handler calls, want 6", eh_calls);
	CHECK_MPI(MPI_Win_fence(0, w));

	/* MPI_Win_call_errhandler: the code as given, success returned */
	CHECK_MPI(MPI_Add_error_class(&cls));
	CHECK_MPI(MPI_Add_error_code(cls, &mycode));
	CHECK_MPI(MPI_Win_call_errhandler(w, mycode));
	CHECK(eh_calls == 7 && eh_code == mycode, "call_errhandler: code %d",
	      eh_code);

	/* back to MPI_ERRORS_RETURN: the user handler is released */
	CHECK_MPI(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
	EXPECT_CLASS(MPI_Win_call_errhandler(w, MPI_ERR_OTHER), MPI_SUCCESS);
	EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, w),
		     MPI_ERR_RANK);
	CHECK(eh_calls == 7, "the old handler ran");
	/* the reference of MPI_Win_get_errhandler still works */
	CHECK_MPI(MPI_Win_set_errhandler(w, got));
	CHECK_MPI(MPI_Errhandler_free(&got));
	EXPECT_CLASS(MPI_Put(&v, 1, MPI_INT, -5, 0, 1, MPI_INT, w),
		     MPI_ERR_RANK);
	CHECK(eh_calls == 8, "handler after its handles were freed");
	CHECK_MPI(MPI_Win_free(&w));
}

/* ---- hints --------------------------------------------------------------- */

/* The value of key in the window's info in effect ("" when absent). */
static const char *hint(MPI_Win w, const char *key)
{
	static char val[MPI_MAX_INFO_VAL];
	MPI_Info i;
	int flag;

	CHECK_MPI(MPI_Win_get_info(w, &i));
	CHECK_MPI(MPI_Info_get(i, key, MPI_MAX_INFO_VAL - 1, val, &flag));
	if (!flag)
		val[0] = 0;
	CHECK_MPI(MPI_Info_free(&i));
	return val;
}

#define HINT(w, key, want)                                                   \
	CHECK(!strcmp(hint(w, key), want), "%s is \"%s\", want \"%s\"", key, \
	      hint(w, key), want)

static void hints(void)
{
	MPI_Info info, bad;
	MPI_Win w;
	int *mem, i, *buf, sum;
	long *lm;
	MPI_Aint sz;
	int du;

	/* the defaults */
	CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
	HINT(w, "no_locks", "false");
	HINT(w, "accumulate_ordering", "rar,raw,war,waw");
	HINT(w, "accumulate_ops", "same_op_no_op");
	HINT(w, "same_size", "false");
	HINT(w, "same_disp_unit", "false");
	HINT(w, "alloc_shared_noncontig", "");
	CHECK_MPI(MPI_Win_free(&w));

	/* every creation call takes them */
	CHECK_MPI(MPI_Info_create(&info));
	CHECK_MPI(MPI_Info_set(info, "no_locks", "true"));
	CHECK_MPI(MPI_Info_set(info, "accumulate_ordering", "waw, rar"));
	CHECK_MPI(MPI_Info_set(info, "accumulate_ops", "same_op"));
	CHECK_MPI(MPI_Info_set(info, "same_size", "true"));
	CHECK_MPI(MPI_Info_set(info, "same_disp_unit", "true"));
	CHECK_MPI(MPI_Info_set(info, "rcmpi_unknown_hint", "1"));
	CHECK_MPI(MPI_Win_allocate(4 * sizeof(int), sizeof(int), info,
				   MPI_COMM_WORLD, &mem, &w));
	HINT(w, "no_locks", "true");
	HINT(w, "accumulate_ordering", "rar,waw");
	HINT(w, "accumulate_ops", "same_op");
	HINT(w, "same_size", "true");
	HINT(w, "same_disp_unit", "true");
	HINT(w, "rcmpi_unknown_hint", "");
	/* the window works under them: accumulates with one op, fences */
	mem[0] = 0;
	CHECK_MPI(MPI_Win_fence(0, w));
	for (i = 0; i < size; i++)
		CHECK_MPI(MPI_Accumulate(&rank, 1, MPI_INT, i, 0, 1, MPI_INT,
					 MPI_SUM, w));
	CHECK_MPI(MPI_Win_fence(0, w));
	sum = size * (size - 1) / 2;
	CHECK(mem[0] == sum, "accumulate: %d, want %d", mem[0], sum);

	/* MPI_Win_set_info: what may change changes, bad values are
	 * ignored, hints fixed at creation stay */
	CHECK_MPI(MPI_Info_create(&bad));
	CHECK_MPI(MPI_Info_set(bad, "no_locks", "maybe"));
	CHECK_MPI(MPI_Info_set(bad, "accumulate_ordering", "rar,xyz"));
	CHECK_MPI(MPI_Info_set(bad, "accumulate_ops", "any"));
	CHECK_MPI(MPI_Win_set_info(w, bad));
	HINT(w, "no_locks", "true");
	HINT(w, "accumulate_ordering", "rar,waw");
	HINT(w, "accumulate_ops", "same_op");
	CHECK_MPI(MPI_Info_set(bad, "no_locks", "false"));
	CHECK_MPI(MPI_Info_set(bad, "accumulate_ordering", "none"));
	CHECK_MPI(MPI_Info_set(bad, "accumulate_ops", "same_op_no_op"));
	CHECK_MPI(MPI_Info_set(bad, "same_size", "false"));
	CHECK_MPI(MPI_Win_set_info(w, bad));
	HINT(w, "no_locks", "false");
	HINT(w, "accumulate_ordering", "none");
	HINT(w, "accumulate_ops", "same_op_no_op");
	HINT(w, "same_size", "true");
	CHECK_MPI(MPI_Info_free(&bad));
	/* passive target once no_locks is off */
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
	CHECK_MPI(MPI_Win_unlock(0, w));
	/* a bad info handle */
	CHECK_MPI(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
	bad = MPI_INFO_NULL;
	EXPECT_CLASS(MPI_Win_set_info(w, bad), MPI_ERR_INFO);
	CHECK_MPI(MPI_Info_create(&bad));
	{
		MPI_Info dead = bad;

		CHECK_MPI(MPI_Info_free(&bad));
		EXPECT_CLASS(MPI_Win_set_info(w, dead), MPI_ERR_INFO);
		EXPECT_CLASS(
			MPI_Win_create(mem, 4, 1, dead, MPI_COMM_WORLD, &w),
			MPI_ERR_INFO);
	}
	CHECK_MPI(MPI_Win_free(&w));

	CHECK_MPI(MPI_Win_create(mem, 0, 1, info, MPI_COMM_WORLD, &w));
	HINT(w, "accumulate_ordering", "rar,waw");
	HINT(w, "alloc_shared_noncontig", "");
	CHECK_MPI(MPI_Win_free(&w));
	CHECK_MPI(MPI_Win_create_dynamic(info, MPI_COMM_WORLD, &w));
	HINT(w, "no_locks", "true");
	CHECK_MPI(MPI_Win_free(&w));

	/* shared windows: alloc_shared_noncontig, and each rank's memory
	 * where MPI_Win_shared_query says */
	CHECK_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
	CHECK_MPI(MPI_Win_allocate_shared(sizeof(long), sizeof(long), info,
					  MPI_COMM_WORLD, &lm, &w));
	HINT(w, "alloc_shared_noncontig", "true");
	HINT(w, "same_size", "true");
	*lm = 1000 + rank;
	CHECK_MPI(MPI_Win_fence(0, w));
	CHECK_MPI(MPI_Win_shared_query(w, (rank + 1) % size, &sz, &du, &buf));
	CHECK(sz == (MPI_Aint)sizeof(long) &&
		      *(long *)buf == 1000 + (rank + 1) % size,
	      "shared_query on a noncontiguous window");
	CHECK_MPI(MPI_Win_fence(0, w));
	CHECK_MPI(MPI_Win_free(&w));
	/* odd ranks without memory: a noncontiguous part of their own that
	 * is empty has no address (NULL, as in Open MPI and MPICH); a
	 * contiguous one is where the next part starts */
	CHECK_MPI(MPI_Win_allocate_shared(rank % 2 ? 0 : sizeof(long),
					  sizeof(long), info, MPI_COMM_WORLD,
					  &lm, &w));
	if (size > 1) {
		CHECK_MPI(MPI_Win_shared_query(w, 1, &sz, &du, &buf));
		CHECK(sz == 0 && !buf, "an empty noncontiguous part's address");
	}
	CHECK_MPI(MPI_Win_free(&w));
	CHECK_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "false"));
	CHECK_MPI(MPI_Win_allocate_shared(rank % 2 ? 0 : sizeof(long),
					  sizeof(long), info, MPI_COMM_WORLD,
					  &lm, &w));
	HINT(w, "alloc_shared_noncontig", "false");
	if (size > 1) {
		long *first;

		CHECK_MPI(MPI_Win_shared_query(w, 0, &sz, &du, &first));
		CHECK_MPI(MPI_Win_shared_query(w, 1, &sz, &du, &buf));
		CHECK(sz == 0 && (long *)buf == first + 1,
		      "an empty contiguous part's address");
	}
	CHECK_MPI(MPI_Win_free(&w));
	CHECK_MPI(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1 && !strcmp(argv[1], "fatal-freed")) {
		MPI_Win w, stale;

		CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD,
						 &w));
		stale = w;
		CHECK_MPI(MPI_Win_free(&w));
		MPI_Win_fence(0, stale);
		printf("rma_svc: survived\n");
		return 0;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	handles();
	attributes();
	errhandlers();
	hints();
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("rma_svc: %d ranks OK\n", size);
	MPI_Finalize();
	return 0;
}
