/*
 * test_errh.c - error handlers, error classes and codes
 * (runtime/errhandler.[ch]) through the MPI functions on a fake
 * initialised process: user handlers called with the communicator and
 * the code for errors the library raises and for MPI_Comm_call_errhandler,
 * their reference counts (a freed handler keeps working where attached,
 * dups inherit it, it goes with the last communicator), classes and codes
 * added by the program with their strings and MPI_LASTUSEDCODE, a fatal
 * error with an added code, MPI_Pcontrol, MPI-1's MPI_Errhandler_create/
 * set/get, and bad input.
 */
#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "fake_mpi.h"

#define TMO 30

static MPI_Comm seen_comm;
static int seen_code, calls;
static const char *seen_where;

static void handler(MPI_Comm *comm, int *code, ...)
{
	va_list ap;

	va_start(ap, code);
	seen_where = va_arg(ap, const char *);
	va_end(ap);
	seen_comm = *comm;
	seen_code = *code;
	calls++;
}

/* Replaces itself on its communicator while it runs. */
static void self_replacing(MPI_Comm *comm, int *code, ...)
{
	(void)code;
	calls++;
	ck_assert_int_eq(MPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN),
			 MPI_SUCCESS);
}

static void setup(void)
{
	fake_mpi_setup(0, 2);
	calls = 0;
	seen_comm = MPI_COMM_NULL;
	seen_code = 0;
}

static void teardown(void)
{
	rc_err_codes_fini();
	fake_mpi_teardown();
}

START_TEST(user_handler)
{
	MPI_Errhandler eh, got;
	MPI_Comm d;
	int v = 0;

	ck_assert_int_eq(MPI_Comm_create_errhandler(handler, &eh), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_SELF, &d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_errhandler(d, eh), MPI_SUCCESS);
	/* an error the library raises on d: an invalid rank */
	ck_assert_int_eq(MPI_Send(&v, 1, MPI_INT, 3, 0, d), MPI_ERR_RANK);
	ck_assert_int_eq(calls, 1);
	ck_assert_ptr_eq(seen_comm, d);
	ck_assert_int_eq(seen_code, MPI_ERR_RANK);
	ck_assert_str_eq(seen_where, "MPI_Send");
	/* called on purpose: MPI_SUCCESS once the handler returned */
	ck_assert_int_eq(MPI_Comm_call_errhandler(d, MPI_ERR_TAG), MPI_SUCCESS);
	ck_assert_int_eq(calls, 2);
	ck_assert_int_eq(seen_code, MPI_ERR_TAG);
	/* get gives a new reference to the same handler */
	ck_assert_int_eq(MPI_Comm_get_errhandler(d, &got), MPI_SUCCESS);
	ck_assert_ptr_eq(got, eh);
	ck_assert_int_eq(MPI_Errhandler_free(&got), MPI_SUCCESS);
	ck_assert_ptr_eq(got, MPI_ERRHANDLER_NULL);
	ck_assert_int_eq(MPI_Comm_free(&d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Errhandler_free(&eh), MPI_SUCCESS);
	/* ERRORS_RETURN: calling it does nothing but succeed */
	ck_assert_int_eq(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_ARG),
			 MPI_SUCCESS);
	ck_assert_int_eq(calls, 2);
}
END_TEST

/* MPI-1's names (mpi.h's compatibility section): the same handlers, the
 * same references, errors reported under the old names. */
START_TEST(mpi1_names)
{
	MPI_Handler_function *fn = handler;
	MPI_Errhandler eh, got;
	MPI_Comm d;
	int v = 0;

	ck_assert_int_eq(MPI_Errhandler_create(fn, &eh), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_SELF, &d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Errhandler_set(d, eh), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Send(&v, 1, MPI_INT, 3, 0, d), MPI_ERR_RANK);
	ck_assert_int_eq(calls, 1);
	ck_assert_ptr_eq(seen_comm, d);
	ck_assert_int_eq(seen_code, MPI_ERR_RANK);
	ck_assert_int_eq(MPI_Errhandler_get(d, &got), MPI_SUCCESS);
	ck_assert_ptr_eq(got, eh);
	ck_assert_int_eq(MPI_Errhandler_free(&got), MPI_SUCCESS);
	/* MPI_Comm_get_errhandler sees what MPI_Errhandler_set attached */
	ck_assert_int_eq(MPI_Comm_get_errhandler(d, &got), MPI_SUCCESS);
	ck_assert_ptr_eq(got, eh);
	ck_assert_int_eq(MPI_Errhandler_free(&got), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Errhandler_free(&eh), MPI_SUCCESS);
	/* bad input, through d's handler (still the program's) */
	ck_assert_int_eq(MPI_Errhandler_get(d, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(calls, 2);
	ck_assert_str_eq(seen_where, "MPI_Errhandler_get");
	ck_assert_int_eq(MPI_Errhandler_set(d, MPI_ERRHANDLER_NULL),
			 MPI_ERR_ARG);
	ck_assert_int_eq(calls, 3);
	ck_assert_str_eq(seen_where, "MPI_Errhandler_set");
	ck_assert_int_eq(MPI_Comm_free(&d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Errhandler_create(NULL, &eh), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Errhandler_create(handler, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Errhandler_set(MPI_COMM_NULL, MPI_ERRORS_RETURN),
			 MPI_ERR_COMM);
	ck_assert_int_eq(calls, 3);
}
END_TEST

/* Freed by the program, the handler lives where it is attached; a dup
 * inherits it; it goes with the last communicator (the teardown checks
 * nothing is left), and its stale handle is refused. */
START_TEST(refcounts)
{
	MPI_Errhandler eh, stale;
	MPI_Comm d, e;

	ck_assert_int_eq(MPI_Comm_create_errhandler(handler, &eh), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_SELF, &d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_errhandler(d, eh), MPI_SUCCESS);
	stale = eh;
	ck_assert_int_eq(MPI_Errhandler_free(&eh), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_dup(d, &e), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_free(&d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_call_errhandler(e, MPI_ERR_COUNT),
			 MPI_SUCCESS);
	ck_assert_int_eq(calls, 1);
	ck_assert_ptr_eq(seen_comm, e);
	ck_assert_int_eq(MPI_Comm_free(&e), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_SELF, stale),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Errhandler_c2f(stale) > 2, 1);
	ck_assert_ptr_null(MPI_Errhandler_f2c(MPI_Errhandler_c2f(stale)));
	/* a handler that replaces itself while it runs */
	ck_assert_int_eq(MPI_Comm_create_errhandler(self_replacing, &eh),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_SELF, &d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_errhandler(d, eh), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Errhandler_free(&eh), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_call_errhandler(d, MPI_ERR_OTHER),
			 MPI_SUCCESS);
	ck_assert_int_eq(calls, 2);
	ck_assert_int_eq(MPI_Comm_call_errhandler(d, MPI_ERR_OTHER),
			 MPI_SUCCESS);
	ck_assert_int_eq(calls, 2);
	ck_assert_int_eq(MPI_Comm_free(&d), MPI_SUCCESS);
}
END_TEST

START_TEST(bad_handlers)
{
	MPI_Errhandler eh = MPI_ERRORS_RETURN, null = MPI_ERRHANDLER_NULL;

	ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_SELF, null),
			 MPI_ERR_ARG);
	ck_assert_int_eq(
		MPI_Comm_set_errhandler(MPI_COMM_SELF,
					(MPI_Errhandler)(void *)MPI_COMM_WORLD),
		MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_NULL, eh),
			 MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Comm_create_errhandler(NULL, &eh), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Comm_create_errhandler(handler, NULL),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Comm_get_errhandler(MPI_COMM_SELF, NULL),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Errhandler_free(NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Errhandler_free(&null), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Comm_call_errhandler(MPI_COMM_NULL, 1),
			 MPI_ERR_COMM);
	/* the predefined ones may be freed (as after a get): nothing goes */
	ck_assert_int_eq(MPI_Errhandler_free(&eh), MPI_SUCCESS);
	ck_assert_ptr_eq(eh, MPI_ERRHANDLER_NULL);
	ck_assert_int_eq(
		MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN),
		MPI_SUCCESS);
}
END_TEST

START_TEST(classes_and_codes)
{
	MPI_Errhandler eh;
	char s[MPI_MAX_ERROR_STRING + 8];
	int cls, cls2, code, code2, got, len, *last, flag;

	ck_assert_int_eq(MPI_Add_error_class(&cls), MPI_SUCCESS);
	ck_assert_int_eq(cls, MPI_ERR_LASTCODE + 1);
	ck_assert_int_eq(MPI_Add_error_code(cls, &code), MPI_SUCCESS);
	ck_assert_int_eq(code, cls + 1);
	ck_assert_int_eq(MPI_Add_error_code(MPI_ERR_ARG, &code2), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Add_error_class(&cls2), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE,
					   &last, &flag),
			 MPI_SUCCESS);
	ck_assert_int_eq(*last, cls2);
	ck_assert_int_eq(MPI_Error_class(code, &got), MPI_SUCCESS);
	ck_assert_int_eq(got, cls);
	ck_assert_int_eq(MPI_Error_class(cls, &got), MPI_SUCCESS);
	ck_assert_int_eq(got, cls);
	ck_assert_int_eq(MPI_Error_class(code2, &got), MPI_SUCCESS);
	ck_assert_int_eq(got, MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Error_class(MPI_ERR_TRUNCATE, &got), MPI_SUCCESS);
	ck_assert_int_eq(got, MPI_ERR_TRUNCATE);
	/* no string yet: empty */
	ck_assert_int_eq(MPI_Error_string(code, s, &len), MPI_SUCCESS);
	ck_assert_int_eq(len, 0);
	ck_assert_int_eq(MPI_Add_error_string(code, "disk on fire"),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Add_error_string(code, "disk on fire again"),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Error_string(code, s, &len), MPI_SUCCESS);
	ck_assert_str_eq(s, "disk on fire again");
	ck_assert_int_eq(len, 18);
	ck_assert_int_eq(MPI_Add_error_string(cls, "library class"),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Error_string(cls, s, &len), MPI_SUCCESS);
	ck_assert_str_eq(s, "library class");
	/* bad input */
	ck_assert_int_eq(MPI_Add_error_code(code, &got), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Add_error_code(cls2 + 5, &got), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Add_error_code(-3, &got), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Add_error_code(cls, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Add_error_class(NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Add_error_string(MPI_ERR_TAG, "x"), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Add_error_string(cls2 + 1, "x"), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Add_error_string(code, NULL), MPI_ERR_ARG);
	memset(s, 'a', sizeof(s));
	s[MPI_MAX_ERROR_STRING] = 0;
	ck_assert_int_eq(MPI_Add_error_string(code, s), MPI_ERR_ARG);
	s[MPI_MAX_ERROR_STRING - 1] = 0;
	ck_assert_int_eq(MPI_Add_error_string(code, s), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Error_class(cls2 + 1, &got), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Error_string(cls2 + 1, s, &len), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Error_string(-1, s, &len), MPI_ERR_ARG);
	/* a handler gets the code itself */
	ck_assert_int_eq(MPI_Comm_create_errhandler(handler, &eh), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Errhandler_free(&eh), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_call_errhandler(MPI_COMM_SELF, code),
			 MPI_SUCCESS);
	ck_assert_int_eq(seen_code, code);
	ck_assert_int_eq(MPI_Pcontrol(2, "ignored", 3.0), MPI_SUCCESS);
}
END_TEST

/* An added code under MPI_ERRORS_ARE_FATAL ends the process with its
 * class as exit status. */
START_TEST(fatal_user_code)
{
	int cls, code;

	ck_assert_int_eq(MPI_Add_error_class(&cls), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Add_error_code(cls, &code), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Add_error_string(code, "user failure"),
			 MPI_SUCCESS);
	ck_assert_int_eq(
		MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL),
		MPI_SUCCESS);
	MPI_Comm_call_errhandler(MPI_COMM_SELF, code);
	ck_abort_msg("the fatal handler returned");
}
END_TEST

static Suite *errh_suite(void)
{
	Suite *s = suite_create("errh");
	TCase *tc = fake_mpi_tcase("errh", TMO, setup, teardown);

	tcase_add_test(tc, user_handler);
	tcase_add_test(tc, mpi1_names);
	tcase_add_test(tc, refcounts);
	tcase_add_test(tc, bad_handlers);
	tcase_add_test(tc, classes_and_codes);
	tcase_add_exit_test(tc, fatal_user_code, MPI_ERR_LASTCODE + 1);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fake_mpi_run(errh_suite());
}
