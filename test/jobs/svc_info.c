/*
 * svc_info.c - info the way programs and libraries use it, under mpirun:
 * MPI_INFO_ENV describes the launch (command, argv, maxprocs, host,
 * thread_level as requested from MPI_Init_thread), hints travel with
 * MPI_Comm_dup and are replaced by MPI_Comm_dup_with_info on every rank,
 * and bad keys, values and handles get their classes through the handler.
 * MPI-4's MPI_Info_create_env builds the same from main's arguments;
 * MPI_Comm_idup_with_info takes the hints given at the call (on an intra-
 * and an intercommunicator) and copies attributes; MPI_Comm_disconnect
 * frees a communicator with freed sends still in flight on it. Info
 * objects work before MPI_Init and after MPI_Finalize (MPI-4.0 11.4.1).
 *
 * Run as `svc_info alpha beta`: the arguments are checked in "argv".
 */
#include <stdbool.h>
#include "jobs.h"

static const char *get(MPI_Info info, const char *key)
{
	static char v[MPI_MAX_INFO_VAL];
	int flag;

	CHECK_MPI(MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, v, &flag));
	return flag ? v : NULL;
}

static int copied;

static int copy_fn(MPI_Comm comm, int kv, void *extra, void *in, void *out,
		   int *flag)
{
	(void)comm;
	(void)kv;
	(void)extra;
	copied++;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

/* idup_with_info of comm with a hint of this rank's (info freed before the
 * wait): the new comm has that hint only, the attribute, and works */
static void idup_info(MPI_Comm comm, int rank)
{
	MPI_Comm nc;
	MPI_Request req;
	MPI_Info info, used;
	char v[16];
	const char *got;
	int kv, flag, n, sum, ref, *attr, before = copied;

	CHECK_MPI(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &kv,
					 NULL));
	CHECK_MPI(MPI_Comm_set_attr(comm, kv, &copied));
	CHECK_MPI(MPI_Info_create(&info));
	snprintf(v, sizeof(v), "%d", rank);
	CHECK_MPI(MPI_Info_set(info, "rcmpi_idup", v));
	CHECK_MPI(MPI_Comm_idup_with_info(comm, info, &nc, &req));
	CHECK_MPI(MPI_Info_free(&info));
	CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
	CHECK(copied == before + 1, "copy callback ran %d times",
	      copied - before);
	CHECK_MPI(MPI_Comm_get_attr(nc, kv, &attr, &flag));
	CHECK(flag && attr == &copied, "attribute not copied");
	CHECK_MPI(MPI_Comm_get_info(nc, &used));
	CHECK_MPI(MPI_Info_get_nkeys(used, &n));
	got = get(used, "rcmpi_idup");
	CHECK(n == 1 && got && atoi(got) == rank, "idup hints: %d, %s", n,
	      got ? got : "(none)");
	CHECK_MPI(MPI_Info_free(&used));
	/* the same group(s) as comm's */
	CHECK_MPI(MPI_Allreduce(&rank, &ref, 1, MPI_INT, MPI_SUM, comm));
	CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, nc));
	CHECK(sum == ref, "sum %d, on the parent %d", sum, ref);
	CHECK_MPI(MPI_Comm_free(&nc));
	CHECK_MPI(MPI_Comm_delete_attr(comm, kv));
	CHECK_MPI(MPI_Comm_free_keyval(&kv));
}

/* Freed sends, received, then disconnect: around a ring, or on an
 * intercommunicator each rank r with the other group's r where it has one */
static void disconnect(MPI_Comm comm, int wrank)
{
	MPI_Comm d;
	MPI_Request req;
	int msg[256], in[256], i, inter, rank, size, to, from;

	CHECK_MPI(MPI_Comm_dup(comm, &d));
	CHECK_MPI(MPI_Comm_test_inter(d, &inter));
	CHECK_MPI(MPI_Comm_rank(d, &rank));
	if (inter) {
		CHECK_MPI(MPI_Comm_remote_size(d, &size));
		to = from = rank < size ? rank : MPI_PROC_NULL;
	} else {
		CHECK_MPI(MPI_Comm_size(d, &size));
		to = (rank + 1) % size;
		from = (rank + size - 1) % size;
	}
	for (i = 0; i < 256; i++)
		msg[i] = wrank * 1000 + i;
	in[255] = -1;
	CHECK_MPI(MPI_Isend(msg, 256, MPI_INT, to, 5, d, &req));
	CHECK_MPI(MPI_Request_free(&req));
	CHECK_MPI(MPI_Recv(in, 256, MPI_INT, from, 5, d, MPI_STATUS_IGNORE));
	CHECK(from == MPI_PROC_NULL || in[255] % 1000 == 255, "got %d",
	      in[255]);
	CHECK_MPI(MPI_Comm_disconnect(&d));
	CHECK(d == MPI_COMM_NULL, "disconnect left the handle");
}

/* before MPI_Init and after MPI_Finalize: no MPI_Comm_rank in the check */
#define NOMPI_CHECK(cond, what)                                           \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "FAIL %s:%d: %s: %s\n", __FILE__, \
				__LINE__, #cond, what);                   \
			exit(1);                                          \
		}                                                         \
	} while (0)

#define NPRE 40

/* Info objects before MPI_Init: made, set, duplicated and converted. */
static void info_before_init(MPI_Info *pre, int argc, char **argv)
{
	char v[MPI_MAX_INFO_VAL];
	MPI_Info env, d;
	int i, n, flag, len = sizeof(v);

	for (i = 0; i < NPRE; i++) {
		NOMPI_CHECK(MPI_Info_create(&pre[i]) == MPI_SUCCESS, "create");
		snprintf(v, sizeof(v), "%d", i);
		NOMPI_CHECK(MPI_Info_set(pre[i], "pre", v) == MPI_SUCCESS,
			    "set");
	}
	/* replace every other one by its duplicate */
	for (i = 0; i < NPRE; i += 2) {
		NOMPI_CHECK(MPI_Info_dup(pre[i], &d) == MPI_SUCCESS, "dup");
		NOMPI_CHECK(MPI_Info_free(&pre[i]) == MPI_SUCCESS &&
				    pre[i] == MPI_INFO_NULL,
			    "free");
		pre[i] = d;
	}
	NOMPI_CHECK(MPI_Info_f2c(MPI_Info_c2f(pre[1])) == pre[1], "c2f");
	NOMPI_CHECK(MPI_Info_get_string(pre[3], "pre", &len, v, &flag) ==
				    MPI_SUCCESS &&
			    flag && !strcmp(v, "3"),
		    "get_string");
	NOMPI_CHECK(MPI_Info_create_env(argc, argv, &env) == MPI_SUCCESS,
		    "create_env");
	NOMPI_CHECK(MPI_Info_get(env, "argv", sizeof(v) - 1, v, &flag) ==
				    MPI_SUCCESS &&
			    flag && !strcmp(v, "alpha beta"),
		    "create_env argv");
	/* what only MPI_Init knows is left out */
	NOMPI_CHECK(MPI_Info_get(env, "maxprocs", sizeof(v) - 1, v, &flag) ==
				    MPI_SUCCESS &&
			    !flag,
		    "create_env maxprocs before MPI_Init");
	NOMPI_CHECK(MPI_Info_get_nkeys(env, &n) == MPI_SUCCESS && n >= 2,
		    "create_env keys");
	NOMPI_CHECK(MPI_Info_free(&env) == MPI_SUCCESS, "free env");
}

/* Each of pre still holds its key, after MPI_Init or MPI_Finalize; then
 * a second key, and the objects are freed (last) or kept. */
static void info_check_pre(MPI_Info *pre, bool last)
{
	char v[MPI_MAX_INFO_VAL], want[16];
	int i, n, flag;

	for (i = 0; i < NPRE; i++) {
		snprintf(want, sizeof(want), "%d", i);
		NOMPI_CHECK(MPI_Info_get(pre[i], "pre", sizeof(v) - 1, v,
					 &flag) == MPI_SUCCESS &&
				    flag && !strcmp(v, want),
			    "an info made before MPI_Init lost its key");
		NOMPI_CHECK(MPI_Info_set(pre[i], last ? "post" : "mid", "x") ==
				    MPI_SUCCESS,
			    "set");
		NOMPI_CHECK(MPI_Info_get_nkeys(pre[i], &n) == MPI_SUCCESS &&
				    n == (last ? 3 : 2),
			    "nkeys");
		if (last)
			NOMPI_CHECK(MPI_Info_free(&pre[i]) == MPI_SUCCESS,
				    "free after MPI_Finalize");
	}
}

int main(int argc, char **argv)
{
	MPI_Info pre[NPRE];
	char name[MPI_MAX_PROCESSOR_NAME], key[MPI_MAX_INFO_KEY];
	char big[MPI_MAX_INFO_VAL + 1];
	const char *v;
	MPI_Info info, used;
	MPI_Comm dup, dupi;
	int provided, rank, size, n, len, sum;

	NOMPI_CHECK(argc == 3, "run as svc_info alpha beta");
	info_before_init(pre, argc, argv);
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	info_check_pre(pre, false);

	v = get(MPI_INFO_ENV, "command");
	CHECK(v && strstr(v, "svc_info"), "command %s", v ? v : "(none)");
	v = get(MPI_INFO_ENV, "argv");
	CHECK(v && !strcmp(v, "alpha beta"), "argv %s", v ? v : "(none)");
	v = get(MPI_INFO_ENV, "maxprocs");
	CHECK(v && atoi(v) == size, "maxprocs %s", v ? v : "(none)");
	v = get(MPI_INFO_ENV, "thread_level");
	CHECK(v && !strcmp(v, "MPI_THREAD_FUNNELED"), "thread_level %s",
	      v ? v : "(none)");
	CHECK_MPI(MPI_Get_processor_name(name, &len));
	v = get(MPI_INFO_ENV, "host");
	CHECK(v && !strcmp(v, name), "host %s, not %s", v ? v : "(none)", name);
	CHECK_MPI(MPI_Info_create_env(argc, argv, &info));
	v = get(info, "command");
	CHECK(v && !strcmp(v, argv[0]), "create_env command %s",
	      v ? v : "(none)");
	v = get(info, "argv");
	CHECK(v && !strcmp(v, "alpha beta"), "create_env argv %s",
	      v ? v : "(none)");
	v = get(info, "maxprocs");
	CHECK(v && atoi(v) == size, "create_env maxprocs %s", v ? v : "(none)");
	v = get(info, "thread_level");
	CHECK(v && !strcmp(v, "MPI_THREAD_FUNNELED"),
	      "create_env thread_level %s", v ? v : "(none)");
	CHECK_MPI(MPI_Info_free(&info));

	/* hints: set on a dup, copied by the next dup, replaced by
	 * dup_with_info; a rank-dependent value shows nothing is shared */
	CHECK_MPI(MPI_Info_create(&info));
	snprintf(big, sizeof(big), "%d", rank);
	CHECK_MPI(MPI_Info_set(info, "rcmpi_test_rank", big));
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	CHECK_MPI(MPI_Comm_set_info(dup, info));
	CHECK_MPI(MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &dupi));
	CHECK_MPI(MPI_Comm_get_info(dupi, &used));
	CHECK_MPI(MPI_Info_get_nkeys(used, &n));
	CHECK(n == 0, "dup_with_info(MPI_INFO_NULL) kept %d hints", n);
	CHECK_MPI(MPI_Info_free(&used));
	CHECK_MPI(MPI_Comm_free(&dupi));
	CHECK_MPI(MPI_Comm_dup(dup, &dupi));
	CHECK_MPI(MPI_Comm_get_info(dupi, &used));
	v = get(used, "rcmpi_test_rank");
	CHECK(v && atoi(v) == rank, "dup's hint %s", v ? v : "(none)");
	CHECK_MPI(MPI_Info_get_nthkey(used, 0, key));
	CHECK(!strcmp(key, "rcmpi_test_rank"), "nthkey %s", key);
	CHECK_MPI(MPI_Info_free(&used));
	/* the dups work */
	CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dupi));
	CHECK(sum == size * (size - 1) / 2, "sum %d", sum);

	idup_info(dupi, rank);
	CHECK_MPI(MPI_Comm_free(&dupi));
	if (size > 1) {
		MPI_Comm half, inter;

		CHECK_MPI(
			MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
		CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD,
					       rank % 2 ? 0 : 1, 7, &inter));
		idup_info(inter, rank);
		disconnect(inter, rank);
		CHECK_MPI(MPI_Comm_free(&inter));
		CHECK_MPI(MPI_Comm_free(&half));
	}

	/* bad input through the handler */
	CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	CHECK(MPI_Info_set(info, "k", big) == MPI_ERR_INFO_VALUE, "long val");
	big[MPI_MAX_INFO_KEY] = 0;
	CHECK(MPI_Info_set(info, big, "v") == MPI_ERR_INFO_KEY, "long key");
	CHECK(MPI_Info_delete(info, "absent") == MPI_ERR_INFO_NOKEY, "nokey");
	CHECK(MPI_Info_get_nthkey(info, 1, key) == MPI_ERR_ARG, "nthkey");
	used = info;
	CHECK_MPI(MPI_Info_free(&info));
	CHECK(MPI_Info_get_nkeys(used, &n) == MPI_ERR_INFO, "stale info");
	CHECK(MPI_Comm_set_info(dup, used) == MPI_ERR_INFO, "stale hints");
	dupi = MPI_COMM_WORLD;
	CHECK(MPI_Comm_disconnect(&dupi) == MPI_ERR_COMM &&
		      dupi == MPI_COMM_WORLD,
	      "disconnect of MPI_COMM_WORLD");
	CHECK_MPI(MPI_Comm_dup(dup, &dupi));
	CHECK_MPI(MPI_Comm_free(&dupi));
	CHECK_MPI(MPI_Comm_free(&dup));
	disconnect(MPI_COMM_WORLD, rank);
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	MPI_Finalize();
	info_check_pre(pre, true);
	/* and new ones after MPI_Finalize */
	for (n = 0; n < NPRE; n++)
		NOMPI_CHECK(MPI_Info_create(&pre[n]) == MPI_SUCCESS &&
				    MPI_Info_set(pre[n], "k", "v") ==
					    MPI_SUCCESS,
			    "create after MPI_Finalize");
	for (n = 0; n < NPRE; n++)
		NOMPI_CHECK(MPI_Info_free(&pre[n]) == MPI_SUCCESS, "free");
	if (!rank)
		printf("OK\n");
	return 0;
}
