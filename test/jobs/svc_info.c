/*
 * svc_info.c - info the way programs and libraries use it, under mpirun:
 * MPI_INFO_ENV describes the launch (command, argv, maxprocs, host,
 * thread_level as requested from MPI_Init_thread), hints travel with
 * MPI_Comm_dup and are replaced by MPI_Comm_dup_with_info on every rank,
 * and bad keys, values and handles get their classes through the handler.
 *
 * Run as `svc_info alpha beta`: the arguments are checked in "argv".
 */
#include "jobs.h"

static const char *get(MPI_Info info, const char *key)
{
	static char v[MPI_MAX_INFO_VAL];
	int flag;

	CHECK_MPI(MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, v, &flag));
	return flag ? v : NULL;
}

int main(int argc, char **argv)
{
	char name[MPI_MAX_PROCESSOR_NAME], key[MPI_MAX_INFO_KEY];
	char big[MPI_MAX_INFO_VAL + 1];
	const char *v;
	MPI_Info info, used;
	MPI_Comm dup, dupi;
	int provided, rank, size, n, len, sum;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(argc == 3, "run as svc_info alpha beta");

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
	CHECK_MPI(MPI_Comm_free(&dupi));
	CHECK_MPI(MPI_Comm_free(&dup));
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	if (!rank)
		printf("OK\n");
	MPI_Finalize();
	return 0;
}
