/*
 * svc_errh.c - error handlers and error codes the way libraries use them,
 * under mpirun:
 *  - a user handler on a dup of MPI_COMM_WORLD catches an invalid-rank
 *    send (an error the library raises) with the communicator and the
 *    code, keeps working after MPI_Errhandler_free, and is inherited by a
 *    dup;
 *  - a library adds an error class, a code and its string, raises it with
 *    MPI_Comm_call_errhandler; the handler sees the code, MPI_Error_class
 *    and MPI_Error_string answer for it, MPI_LASTUSEDCODE follows and is
 *    the same on every rank;
 *  - an attribute copy callback failing with that code fails MPI_Comm_dup
 *    with it;
 *  - MPI_Pcontrol is there for tools.
 * `svc_errh fatal` raises the added code under MPI_ERRORS_ARE_FATAL: the
 * job must end with its class, the message showing its string.
 */
#include <stdarg.h>
#include "jobs.h"

static MPI_Comm seen_comm;
static int seen_code, calls, lib_code;
static char seen_str[MPI_MAX_ERROR_STRING];

static void handler(MPI_Comm *comm, int *code, ...)
{
	int len;

	seen_comm = *comm;
	seen_code = *code;
	calls++;
	/* MPI works inside the handler */
	MPI_Error_string(*code, seen_str, &len);
}

static int failing_copy(MPI_Comm old, int keyval, void *extra, void *in,
			void *out, int *flag)
{
	(void)old, (void)keyval, (void)extra, (void)in, (void)out;
	*flag = 0;
	return lib_code;
}

int main(int argc, char **argv)
{
	MPI_Errhandler eh;
	MPI_Comm d, e, f = MPI_COMM_NULL;
	int rank, size, v = 1, cls, got, *last, flag, k, minmax[2], mm[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	CHECK_MPI(MPI_Add_error_class(&cls));
	CHECK_MPI(MPI_Add_error_code(cls, &lib_code));
	CHECK_MPI(MPI_Add_error_string(lib_code, "library failure"));
	if (argc > 1 && !strcmp(argv[1], "fatal")) {
		MPI_Comm_call_errhandler(MPI_COMM_WORLD, lib_code);
		printf("survived\n");
		MPI_Finalize();
		return 0;
	}

	CHECK_MPI(MPI_Comm_create_errhandler(handler, &eh));
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
	CHECK_MPI(MPI_Comm_set_errhandler(d, eh));
	CHECK_MPI(MPI_Errhandler_free(&eh));
	CHECK(MPI_Send(&v, 1, MPI_INT, size, 0, d) == MPI_ERR_RANK,
	      "send to rank %d", size);
	CHECK(calls == 1 && seen_comm == d && seen_code == MPI_ERR_RANK,
	      "handler: %d calls, code %d", calls, seen_code);
	CHECK(strstr(seen_str, "MPI_ERR_RANK"), "string %s", seen_str);

	/* the library's own code, raised on purpose; a dup inherits the
	 * handler */
	CHECK_MPI(MPI_Comm_dup(d, &e));
	CHECK_MPI(MPI_Comm_call_errhandler(e, lib_code));
	CHECK(calls == 2 && seen_comm == e && seen_code == lib_code,
	      "call_errhandler: %d calls, code %d", calls, seen_code);
	CHECK(!strcmp(seen_str, "library failure"), "string %s", seen_str);
	CHECK_MPI(MPI_Error_class(lib_code, &got));
	CHECK(got == cls, "class %d, not %d", got, cls);
	CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last,
				    &flag));
	CHECK(flag && *last == lib_code, "MPI_LASTUSEDCODE %d", *last);
	minmax[0] = *last;
	minmax[1] = -*last;
	CHECK_MPI(MPI_Allreduce(minmax, mm, 2, MPI_INT, MPI_MAX, e));
	CHECK(mm[0] == -mm[1], "ranks disagree on MPI_LASTUSEDCODE");

	/* a callback's code fails the call that ran it */
	CHECK_MPI(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN,
					 &k, NULL));
	CHECK_MPI(MPI_Comm_set_attr(e, k, NULL));
	CHECK(MPI_Comm_dup(e, &f) == lib_code, "dup with a failing copy");
	CHECK(f == MPI_COMM_NULL, "a failed dup returned a communicator");
	CHECK(calls == 3 && seen_code == lib_code, "handler on the dup");
	CHECK_MPI(MPI_Comm_free_keyval(&k));

	CHECK_MPI(MPI_Pcontrol(1));
	CHECK_MPI(MPI_Comm_free(&e));
	CHECK_MPI(MPI_Comm_free(&d));
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	if (!rank)
		printf("OK\n");
	MPI_Finalize();
	return 0;
}
