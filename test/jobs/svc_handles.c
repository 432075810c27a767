/*
 * svc_handles.c - handles the way bindings use them: every kind converted
 * to MPI_Fint and back (predefined and user objects), a Fortran status,
 * and every kind used after MPI freed it (stale copies of the handle):
 * the kind's error class under MPI_ERRORS_RETURN, and in an ASan build no
 * read of freed memory. Message handles come from a real MPI_Mprobe of a
 * message each rank sends to its right neighbour.
 *
 * `svc_handles fatal` uses a freed datatype under MPI_ERRORS_ARE_FATAL:
 * the job must end with MPI_ERR_TYPE, the message naming the handle.
 */
#include "jobs.h"

static void fatal_stale_type(void)
{
	MPI_Datatype t, stale;
	int n;

	CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &t));
	stale = t;
	CHECK_MPI(MPI_Type_free(&t));
	MPI_Type_size(stale, &n);
	printf("survived\n");
}

int main(int argc, char **argv)
{
	MPI_Comm c, cs;
	MPI_Group g, g1, gs;
	MPI_Datatype t, ts;
	MPI_Op op, ops;
	MPI_Request r, rs;
	MPI_Message m, ms;
	MPI_Status st;
	MPI_Fint f, fs[MPI_F_STATUS_SIZE];
	int rank, size, n, flag, v, in = -1, zero = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1 && !strcmp(argv[1], "fatal")) {
		fatal_stale_type();
		MPI_Finalize();
		return 0;
	}
	CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

	/* predefined handles convert to fixed indices and back */
	CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD,
	      "world");
	CHECK(MPI_Comm_c2f(MPI_COMM_NULL) == 0, "null comm");
	CHECK(MPI_Comm_f2c(0) == MPI_COMM_NULL, "f2c(0)");
	CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "double");
	CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "sum");
	CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY,
	      "empty group");
	CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) ==
		      MPI_ERRORS_RETURN,
	      "errors return");

	/* communicator: works through its index, then goes stale */
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
	f = MPI_Comm_c2f(c);
	CHECK(f > 0 && MPI_Comm_f2c(f) == c, "dup index %d", (int)f);
	CHECK_MPI(MPI_Comm_size(MPI_Comm_f2c(f), &n));
	CHECK(n == size, "size through f2c");
	cs = c;
	CHECK_MPI(MPI_Comm_free(&c));
	CHECK(MPI_Comm_f2c(f) == MPI_COMM_NULL, "freed comm index");
	CHECK(MPI_Comm_rank(cs, &n) == MPI_ERR_COMM, "stale comm rank");
	CHECK(MPI_Send(&v, 1, MPI_INT, 0, 0, cs) == MPI_ERR_COMM, "send");
	CHECK(MPI_Barrier(cs) == MPI_ERR_COMM, "barrier");
	CHECK(MPI_Comm_free(&cs) == MPI_ERR_COMM, "double free");

	/* group */
	CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &g));
	CHECK_MPI(MPI_Group_incl(g, 1, &zero, &g1));
	f = MPI_Group_c2f(g1);
	CHECK(MPI_Group_f2c(f) == g1, "group index");
	gs = g1;
	CHECK_MPI(MPI_Group_free(&g1));
	CHECK(MPI_Group_f2c(f) == MPI_GROUP_NULL, "freed group index");
	CHECK(MPI_Group_size(gs, &n) == MPI_ERR_GROUP, "stale group");
	CHECK(MPI_Comm_create(MPI_COMM_WORLD, gs, &c) == MPI_ERR_GROUP,
	      "create from stale group");
	CHECK_MPI(MPI_Group_free(&g));

	/* datatype */
	CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
	CHECK_MPI(MPI_Type_commit(&t));
	f = MPI_Type_c2f(t);
	CHECK(MPI_Type_f2c(f) == t, "type index");
	ts = t;
	CHECK_MPI(MPI_Type_free(&t));
	CHECK(MPI_Type_f2c(f) == MPI_DATATYPE_NULL, "freed type index");
	CHECK(MPI_Type_size(ts, &n) == MPI_ERR_TYPE, "stale type");
	CHECK(MPI_Send(&v, 1, ts, rank, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE,
	      "send with stale type");
	CHECK(MPI_Bcast(&v, 1, ts, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE,
	      "bcast with stale type");
	CHECK(MPI_Type_free(&ts) == MPI_ERR_TYPE, "double type free");

	/* op */
	CHECK_MPI(MPI_Op_create((MPI_User_function *)1, 1, &op));
	f = MPI_Op_c2f(op);
	CHECK(MPI_Op_f2c(f) == op, "op index");
	ops = op;
	CHECK_MPI(MPI_Op_free(&op));
	CHECK(MPI_Op_f2c(f) == MPI_OP_NULL, "freed op index");
	CHECK(MPI_Allreduce(&v, &n, 1, MPI_INT, ops, MPI_COMM_WORLD) ==
		      MPI_ERR_OP,
	      "allreduce with stale op");

	/* request and message: each rank sends to its right neighbour */
	v = rank;
	CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, (rank + 1) % size, 5,
			    MPI_COMM_WORLD, &r));
	f = MPI_Request_c2f(r);
	CHECK(MPI_Request_f2c(f) == r, "request index");
	rs = r;
	CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &m, &st));
	CHECK(MPI_Message_f2c(MPI_Message_c2f(m)) == m, "message index");
	ms = m;
	CHECK_MPI(MPI_Mrecv(&in, 1, MPI_INT, &m, &st));
	CHECK(m == MPI_MESSAGE_NULL, "message handle not nulled");
	CHECK(in == (rank + size - 1) % size, "received %d", in);
	CHECK(MPI_Mrecv(&in, 1, MPI_INT, &ms, &st) == MPI_ERR_REQUEST,
	      "stale message");
	CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
	CHECK(MPI_Request_f2c(f) == MPI_REQUEST_NULL, "freed request index");
	CHECK(MPI_Wait(&rs, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST,
	      "stale request wait");
	CHECK(MPI_Test(&rs, &flag, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST,
	      "stale request test");
	CHECK(MPI_Cancel(&rs) == MPI_ERR_REQUEST, "stale request cancel");
	CHECK(MPI_Request_free(&rs) == MPI_ERR_REQUEST, "stale request free");

	/* the status of that receive as a Fortran status and back */
	CHECK_MPI(MPI_Status_c2f(&st, fs));
	CHECK(fs[MPI_F_SOURCE] == (rank + size - 1) % size, "f source");
	CHECK(fs[MPI_F_TAG] == 5, "f tag");
	memset(&st, 0, sizeof(st));
	CHECK_MPI(MPI_Status_f2c(fs, &st));
	CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
	CHECK(n == 1 && st.MPI_TAG == 5, "status round trip");

	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	if (!rank)
		printf("OK\n");
	MPI_Finalize();
	return 0;
}
