/*
 * services.c - what a parallel library does with the communicator
 * services: it keeps its state in an attribute of the user's
 * communicator (created once, copied by MPI_Comm_dup, freed with the
 * communicator), reads a hint from an info object, reports its own error
 * class through a handler, and stores handles as integers.
 *
 *   mpicc -O2 examples/services.c -o services && mpirun -n 2 ./services
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lib_state {
	int calls;
	int chunk;
};

static int lib_keyval = MPI_KEYVAL_INVALID;
static int lib_err;

static int state_copy(MPI_Comm old, int keyval, void *extra, void *in,
		      void *out, int *flag)
{
	struct lib_state *s = malloc(sizeof(*s));

	(void)old, (void)keyval, (void)extra;
	if (!s)
		return MPI_ERR_NO_MEM;
	*s = *(struct lib_state *)in;
	s->calls = 0;
	*(struct lib_state **)out = s;
	*flag = 1;
	return MPI_SUCCESS;
}

static int state_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
	(void)comm, (void)keyval, (void)extra;
	free(val);
	return MPI_SUCCESS;
}

static void lib_handler(MPI_Comm *comm, int *code, ...)
{
	char s[MPI_MAX_ERROR_STRING];
	int len, rank;

	MPI_Error_string(*code, s, &len);
	MPI_Comm_rank(*comm, &rank);
	printf("rank %d: library error: %s\n", rank, s);
}

/* The library's state on comm, made on first use with the hints. */
static struct lib_state *lib_state(MPI_Comm comm, MPI_Info hints)
{
	struct lib_state *s;
	char v[16];
	int flag;

	if (lib_keyval == MPI_KEYVAL_INVALID) {
		MPI_Comm_create_keyval(state_copy, state_delete, &lib_keyval,
				       NULL);
		MPI_Add_error_class(&lib_err);
		MPI_Add_error_string(lib_err, "chunk size must be positive");
	}
	MPI_Comm_get_attr(comm, lib_keyval, &s, &flag);
	if (flag)
		return s;
	s = calloc(1, sizeof(*s));
	s->chunk = 64;
	MPI_Info_get(hints, "lib_chunk", sizeof(v) - 1, v, &flag);
	if (flag)
		s->chunk = atoi(v);
	MPI_Comm_set_attr(comm, lib_keyval, s);
	return s;
}

static int lib_sum(MPI_Comm comm, MPI_Info hints, int x, int *sum)
{
	struct lib_state *s = lib_state(comm, hints);

	if (s->chunk <= 0)
		return MPI_Comm_call_errhandler(comm, lib_err), lib_err;
	s->calls++;
	return MPI_Allreduce(&x, sum, 1, MPI_INT, MPI_SUM, comm);
}

int main(int argc, char **argv)
{
	MPI_Comm mine, copy;
	MPI_Errhandler eh;
	MPI_Info hints;
	MPI_Fint f;
	int rank, size, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Info_create(&hints);
	MPI_Info_set(hints, "lib_chunk", "128");
	MPI_Comm_dup(MPI_COMM_WORLD, &mine);
	MPI_Comm_create_errhandler(lib_handler, &eh);
	MPI_Comm_set_errhandler(mine, eh);
	MPI_Errhandler_free(&eh);

	lib_sum(mine, hints, rank + 1, &sum);
	/* handles as integers, as a Fortran caller would pass them */
	f = MPI_Comm_c2f(mine);
	MPI_Comm_dup(MPI_Comm_f2c(f), &copy);
	lib_sum(copy, MPI_INFO_NULL, 1, &sum);
	lib_state(copy, MPI_INFO_NULL)->chunk = 0;
	if (lib_sum(copy, MPI_INFO_NULL, 1, &sum) != lib_err)
		printf("rank %d: the library error was not returned\n", rank);
	if (rank == 0)
		printf("sum %d over %d ranks, chunk %d, %d calls on mine\n",
		       sum, size, lib_state(mine, MPI_INFO_NULL)->chunk,
		       lib_state(mine, MPI_INFO_NULL)->calls);
	MPI_Comm_free(&copy);
	MPI_Comm_free(&mine);
	MPI_Comm_free_keyval(&lib_keyval);
	MPI_Info_free(&hints);
	MPI_Finalize();
	return 0;
}
