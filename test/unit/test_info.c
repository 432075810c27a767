/*
 * test_info.c - info objects (runtime/info.[ch], info_api.c) through the
 * MPI functions on a fake initialised process: keys in the order first
 * set, replacement in place, truncating gets, MPI-4's get_string, the
 * limits MPI_MAX_INFO_KEY / _VAL and every error class; MPI_INFO_ENV's
 * keys and MPI-4's MPI_Info_create_env; communicator hints (set merges,
 * get copies, dup copies, dup_with_info and idup_with_info replace),
 * MPI_Comm_disconnect and MPI_Comm_get_parent.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "api.h"
#include "fake_mpi.h"
#include "info.h"

#define TMO 30

static void setup(void)
{
	fake_mpi_setup(1, 4);
}

static int nkeys(MPI_Info info)
{
	int n = -1;

	ck_assert_int_eq(MPI_Info_get_nkeys(info, &n), MPI_SUCCESS);
	return n;
}

/* The value of key ("" with flag 0 when absent). */
static const char *get(MPI_Info info, const char *key)
{
	static char v[MPI_MAX_INFO_VAL];
	int flag = -1;

	ck_assert_int_eq(
		MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, v, &flag),
		MPI_SUCCESS);
	ck_assert(flag == 0 || flag == 1);
	if (!flag)
		v[0] = 0;
	return v;
}

START_TEST(basics)
{
	MPI_Info info, dup;
	char key[MPI_MAX_INFO_KEY], v[8];
	int len, flag;

	ck_assert_int_eq(MPI_Info_create(&info), MPI_SUCCESS);
	ck_assert_int_eq(nkeys(info), 0);
	ck_assert_int_eq(MPI_Info_set(info, "b", "one"), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Info_set(info, "a", "two"), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Info_set(info, "c", "three"), MPI_SUCCESS);
	/* replacing keeps the key's place */
	ck_assert_int_eq(MPI_Info_set(info, "b", "uno"), MPI_SUCCESS);
	ck_assert_int_eq(nkeys(info), 3);
	ck_assert_int_eq(MPI_Info_get_nthkey(info, 0, key), MPI_SUCCESS);
	ck_assert_str_eq(key, "b");
	ck_assert_int_eq(MPI_Info_get_nthkey(info, 2, key), MPI_SUCCESS);
	ck_assert_str_eq(key, "c");
	ck_assert_str_eq(get(info, "b"), "uno");
	ck_assert_str_eq(get(info, "nope"), "");
	ck_assert_int_eq(MPI_Info_get_valuelen(info, "c", &len, &flag),
			 MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(len, 5);
	len = 77;
	ck_assert_int_eq(MPI_Info_get_valuelen(info, "x", &len, &flag),
			 MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(len, 77);
	/* valuelen characters and a null */
	memset(v, 'z', sizeof(v));
	ck_assert_int_eq(MPI_Info_get(info, "c", 3, v, &flag), MPI_SUCCESS);
	ck_assert_str_eq(v, "thr");
	ck_assert_int_eq(MPI_Info_get(info, "c", 0, v, &flag), MPI_SUCCESS);
	ck_assert_str_eq(v, "");
	/* a dup is independent */
	ck_assert_int_eq(MPI_Info_dup(info, &dup), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Info_delete(info, "b"), MPI_SUCCESS);
	ck_assert_int_eq(nkeys(info), 2);
	ck_assert_int_eq(MPI_Info_get_nthkey(info, 0, key), MPI_SUCCESS);
	ck_assert_str_eq(key, "a");
	ck_assert_int_eq(nkeys(dup), 3);
	ck_assert_str_eq(get(dup, "b"), "uno");
	ck_assert_int_eq(MPI_Info_free(&dup), MPI_SUCCESS);
	ck_assert_ptr_eq(dup, MPI_INFO_NULL);
	ck_assert_int_eq(MPI_Info_free(&info), MPI_SUCCESS);
}
END_TEST

START_TEST(get_string)
{
	MPI_Info info;
	char v[16];
	int len, flag;

	ck_assert_int_eq(MPI_Info_create(&info), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Info_set(info, "k", "abcdef"), MPI_SUCCESS);
	len = 0;
	ck_assert_int_eq(MPI_Info_get_string(info, "k", &len, NULL, &flag),
			 MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(len, 7);
	len = 4;
	ck_assert_int_eq(MPI_Info_get_string(info, "k", &len, v, &flag),
			 MPI_SUCCESS);
	ck_assert_str_eq(v, "abc");
	ck_assert_int_eq(len, 7);
	len = sizeof(v);
	ck_assert_int_eq(MPI_Info_get_string(info, "k", &len, v, &flag),
			 MPI_SUCCESS);
	ck_assert_str_eq(v, "abcdef");
	len = 5;
	ck_assert_int_eq(MPI_Info_get_string(info, "q", &len, v, &flag),
			 MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(len, 5);
	ck_assert_int_eq(MPI_Info_free(&info), MPI_SUCCESS);
}
END_TEST

/* Limits: a key of MPI_MAX_INFO_KEY - 1 characters fits in a buffer of
 * MPI_MAX_INFO_KEY, one more is refused; the same for values. */
START_TEST(limits_and_errors)
{
	char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
	char out[MPI_MAX_INFO_KEY];
	MPI_Info info, stale, env = MPI_INFO_ENV;
	int flag, n;

	ck_assert_int_eq(MPI_Info_create(&info), MPI_SUCCESS);
	memset(key, 'k', sizeof(key));
	key[MPI_MAX_INFO_KEY - 1] = 0;
	ck_assert_int_eq(MPI_Info_set(info, key, "v"), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Info_get_nthkey(info, 0, out), MPI_SUCCESS);
	ck_assert_int_eq((int)strlen(out), MPI_MAX_INFO_KEY - 1);
	key[MPI_MAX_INFO_KEY - 1] = 'k';
	key[MPI_MAX_INFO_KEY] = 0;
	ck_assert_int_eq(MPI_Info_set(info, key, "v"), MPI_ERR_INFO_KEY);
	ck_assert_int_eq(MPI_Info_get(info, key, 1, out, &flag),
			 MPI_ERR_INFO_KEY);
	ck_assert_int_eq(MPI_Info_delete(info, key), MPI_ERR_INFO_KEY);
	ck_assert_int_eq(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
	ck_assert_int_eq(MPI_Info_set(info, NULL, "v"), MPI_ERR_INFO_KEY);
	memset(val, 'v', sizeof(val));
	val[MPI_MAX_INFO_VAL - 1] = 0;
	ck_assert_int_eq(MPI_Info_set(info, "big", val), MPI_SUCCESS);
	val[MPI_MAX_INFO_VAL - 1] = 'v';
	val[MPI_MAX_INFO_VAL] = 0;
	ck_assert_int_eq(MPI_Info_set(info, "big", val), MPI_ERR_INFO_VALUE);
	ck_assert_int_eq(MPI_Info_set(info, "e", ""), MPI_ERR_INFO_VALUE);
	ck_assert_int_eq(MPI_Info_set(info, "e", NULL), MPI_ERR_INFO_VALUE);
	ck_assert_int_eq(nkeys(info), 2);
	ck_assert_int_eq(MPI_Info_delete(info, "absent"), MPI_ERR_INFO_NOKEY);
	ck_assert_int_eq(MPI_Info_get_nthkey(info, 2, out), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Info_get_nthkey(info, -1, out), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Info_get(info, "big", -1, out, &flag),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Info_get(info, "big", 1, out, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Info_get_nkeys(info, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Info_create(NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Info_dup(info, NULL), MPI_ERR_ARG);
	/* null, freed and wrong-kind handles */
	ck_assert_int_eq(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO);
	ck_assert_int_eq(MPI_Info_get_nkeys((MPI_Info)(void *)MPI_INT, &n),
			 MPI_ERR_INFO);
	stale = info;
	n = MPI_Info_c2f(info);
	ck_assert_ptr_eq(MPI_Info_f2c(n), info);
	ck_assert_int_eq(MPI_Info_free(&info), MPI_SUCCESS);
	ck_assert_ptr_null(MPI_Info_f2c(n));
	ck_assert_int_eq(MPI_Info_get_nkeys(stale, &n), MPI_ERR_INFO);
	ck_assert_int_eq(MPI_Info_free(&stale), MPI_ERR_INFO);
	ck_assert_int_eq(MPI_Info_free(&env), MPI_ERR_INFO);
	ck_assert_ptr_eq(env, MPI_INFO_ENV);
	ck_assert_int_eq(MPI_Info_c2f(MPI_INFO_ENV), 1);
	ck_assert_int_eq(MPI_Info_c2f(MPI_INFO_NULL), 0);
}
END_TEST

START_TEST(info_env)
{
	MPI_Info dup;
	char cwd[MPI_MAX_INFO_VAL];

	rc_info_env_fill(&rc_g, MPI_THREAD_FUNNELED);
	ck_assert_str_eq(get(MPI_INFO_ENV, "maxprocs"), "4");
	ck_assert_str_eq(get(MPI_INFO_ENV, "thread_level"),
			 "MPI_THREAD_FUNNELED");
	ck_assert_ptr_nonnull(
		strstr(get(MPI_INFO_ENV, "command"), "test_info"));
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_str_eq(get(MPI_INFO_ENV, "wdir"), cwd);
	ck_assert_str_ne(get(MPI_INFO_ENV, "arch"), "");
	ck_assert_str_eq(get(MPI_INFO_ENV, "soft"), "");
	ck_assert_int_eq(MPI_Info_dup(MPI_INFO_ENV, &dup), MPI_SUCCESS);
	ck_assert_int_eq(nkeys(dup), nkeys(MPI_INFO_ENV));
	ck_assert_int_eq(MPI_Info_free(&dup), MPI_SUCCESS);
}
END_TEST

/* MPI-4's MPI_Info_create_env: MPI_INFO_ENV's keys in a new info, command
 * and argv from the arguments given, or the process's without them. */
START_TEST(info_create_env)
{
	char *argv[] = {"prog", "a b", "c", NULL};
	char *big[3], arg[MPI_MAX_INFO_VAL / 2 + 1];
	MPI_Info e;

	rc_info_env_fill(&rc_g, MPI_THREAD_FUNNELED);
	ck_assert_int_eq(MPI_Info_create_env(3, argv, &e), MPI_SUCCESS);
	ck_assert_ptr_ne(e, MPI_INFO_ENV);
	ck_assert_str_eq(get(e, "command"), "prog");
	ck_assert_str_eq(get(e, "argv"), "a b c");
	ck_assert_str_eq(get(e, "maxprocs"), "4");
	ck_assert_str_eq(get(e, "wdir"), get(MPI_INFO_ENV, "wdir"));
	ck_assert_str_eq(get(e, "host"), get(MPI_INFO_ENV, "host"));
	ck_assert_str_eq(get(e, "arch"), get(MPI_INFO_ENV, "arch"));
	ck_assert_str_ne(get(e, "thread_level"), "");
	/* its own object: MPI_INFO_ENV keeps its keys */
	ck_assert_int_eq(MPI_Info_delete(e, "command"), MPI_SUCCESS);
	ck_assert_ptr_nonnull(
		strstr(get(MPI_INFO_ENV, "command"), "test_info"));
	ck_assert_int_eq(MPI_Info_free(&e), MPI_SUCCESS);
	/* no arguments: this process's command line */
	ck_assert_int_eq(MPI_Info_create_env(0, NULL, &e), MPI_SUCCESS);
	ck_assert_ptr_nonnull(strstr(get(e, "command"), "test_info"));
	ck_assert_int_eq(MPI_Info_free(&e), MPI_SUCCESS);
	/* arguments past MPI_MAX_INFO_VAL together: argv is left out */
	memset(arg, 'a', sizeof(arg) - 1);
	arg[sizeof(arg) - 1] = 0;
	big[0] = "prog";
	big[1] = big[2] = arg;
	ck_assert_int_eq(MPI_Info_create_env(3, big, &e), MPI_SUCCESS);
	ck_assert_str_eq(get(e, "command"), "prog");
	ck_assert_str_eq(get(e, "argv"), "");
	ck_assert_int_eq(MPI_Info_free(&e), MPI_SUCCESS);
	/* bad input */
	ck_assert_int_eq(MPI_Info_create_env(0, NULL, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Info_create_env(-1, argv, &e), MPI_ERR_ARG);
}
END_TEST

START_TEST(comm_hints)
{
	MPI_Info a, b, got;
	MPI_Comm d1, d2, d3, parent = MPI_COMM_WORLD;
	MPI_Request req, r2;
	void *mem;
	int res;

	ck_assert_int_eq(MPI_Info_create(&a), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Info_create(&b), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Info_set(a, "x", "1"), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Info_set(b, "y", "2"), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_get_info(MPI_COMM_SELF, &got), MPI_SUCCESS);
	ck_assert_int_eq(nkeys(got), 0);
	ck_assert_int_eq(MPI_Info_free(&got), MPI_SUCCESS);
	/* set merges: x stays when y is set */
	ck_assert_int_eq(MPI_Comm_set_info(MPI_COMM_SELF, a), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_info(MPI_COMM_SELF, b), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Info_set(a, "x", "changed"), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_get_info(MPI_COMM_SELF, &got), MPI_SUCCESS);
	ck_assert_int_eq(nkeys(got), 2);
	ck_assert_str_eq(get(got, "x"), "1");
	ck_assert_str_eq(get(got, "y"), "2");
	ck_assert_int_eq(MPI_Info_free(&got), MPI_SUCCESS);
	/* dup copies the hints, dup_with_info takes the given ones */
	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_SELF, &d1), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_get_info(d1, &got), MPI_SUCCESS);
	ck_assert_int_eq(nkeys(got), 2);
	ck_assert_int_eq(MPI_Info_free(&got), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_dup_with_info(MPI_COMM_SELF, a, &d2),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_get_info(d2, &got), MPI_SUCCESS);
	ck_assert_int_eq(nkeys(got), 1);
	ck_assert_str_eq(get(got, "x"), "changed");
	ck_assert_int_eq(MPI_Info_free(&got), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_dup_with_info(d2, MPI_INFO_NULL, &d3),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_get_info(d3, &got), MPI_SUCCESS);
	ck_assert_int_eq(nkeys(got), 0);
	ck_assert_int_eq(MPI_Info_free(&got), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_free(&d1), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_free(&d3), MPI_SUCCESS);
	/* idup_with_info takes a copy of the given hints at the call: a
	 * changed or freed info after it does not reach the new comm */
	ck_assert_int_eq(MPI_Info_dup(a, &got), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_idup_with_info(d2, got, &d1, &req),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Info_set(got, "x", "later"), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Info_set(got, "z", "later"), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Info_free(&got), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_idup_with_info(d2, MPI_INFO_NULL, &d3, &r2),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Wait(&r2, MPI_STATUS_IGNORE), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_get_info(d1, &got), MPI_SUCCESS);
	ck_assert_int_eq(nkeys(got), 1);
	ck_assert_str_eq(get(got, "x"), "changed");
	ck_assert_int_eq(MPI_Info_free(&got), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_get_info(d3, &got), MPI_SUCCESS);
	ck_assert_int_eq(nkeys(got), 0);
	ck_assert_int_eq(MPI_Info_free(&got), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_compare(d1, d2, &res), MPI_SUCCESS);
	ck_assert_int_eq(res, MPI_CONGRUENT);
	/* disconnect: freed, the handle MPI_COMM_NULL */
	ck_assert_int_eq(MPI_Comm_disconnect(&d1), MPI_SUCCESS);
	ck_assert_ptr_eq(d1, MPI_COMM_NULL);
	ck_assert_int_eq(MPI_Comm_free(&d2), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_free(&d3), MPI_SUCCESS);
	/* bad input */
	d1 = MPI_COMM_SELF;
	ck_assert_int_eq(MPI_Comm_disconnect(&d1), MPI_ERR_COMM);
	ck_assert_ptr_eq(d1, MPI_COMM_SELF);
	ck_assert_int_eq(MPI_Comm_disconnect(NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Comm_idup_with_info(MPI_COMM_SELF, a, &d1, NULL),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Comm_set_info(MPI_COMM_SELF, MPI_INFO_NULL),
			 MPI_ERR_INFO);
	ck_assert_int_eq(MPI_Comm_get_info(MPI_COMM_SELF, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Comm_get_info(MPI_COMM_NULL, &got), MPI_ERR_COMM);
	got = b;
	ck_assert_int_eq(MPI_Info_free(&b), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_dup_with_info(MPI_COMM_SELF, got, &d1),
			 MPI_ERR_INFO);
	ck_assert_int_eq(MPI_Comm_idup_with_info(MPI_COMM_SELF, got, &d1, &req),
			 MPI_ERR_INFO);
	ck_assert_int_eq(MPI_Comm_split_type(MPI_COMM_SELF,
					     MPI_COMM_TYPE_SHARED, 0, got, &d1),
			 MPI_ERR_INFO);
	ck_assert_int_eq(MPI_Alloc_mem(8, got, &mem), MPI_ERR_INFO);
	ck_assert_int_eq(MPI_Info_free(&a), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_get_parent(&parent), MPI_SUCCESS);
	ck_assert_ptr_eq(parent, MPI_COMM_NULL);
	ck_assert_int_eq(MPI_Comm_get_parent(NULL), MPI_ERR_ARG);
}
END_TEST

static Suite *info_suite(void)
{
	Suite *s = suite_create("info");
	TCase *tc = fake_mpi_tcase("info", TMO, setup, fake_mpi_teardown);

	tcase_add_test(tc, basics);
	tcase_add_test(tc, get_string);
	tcase_add_test(tc, limits_and_errors);
	tcase_add_test(tc, info_env);
	tcase_add_test(tc, info_create_env);
	tcase_add_test(tc, comm_hints);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fake_mpi_run(info_suite());
}
