/*
 * test_attr.c - attribute caching (runtime/attr.[ch], attr_api.c) through
 * the MPI functions on a fake initialised process: keyvals and their
 * callbacks on communicators (dups of MPI_COMM_SELF, which need no
 * transport) and datatypes; the order of copies (order of setting) and
 * deletes (reverse order); replacement; callbacks that fail; keyvals
 * freed while attributes still use them; the predefined keys; the MPI-1
 * names; and every bad keyval.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "attr.h"
#include "fake_mpi.h"

#define TMO 30

/* What the callbacks saw, in order. */
struct ev {
	char what; /* 'c' copy, 'd' delete */
	int keyval;
	intptr_t val;
	void *obj;
};
static struct ev ev[64];
static int nev;
static int fail_copy, fail_delete; /* keyval whose callback fails */

static void log_ev(char what, int keyval, void *val, void *obj)
{
	ck_assert_int_lt(nev, 64);
	ev[nev].what = what;
	ev[nev].keyval = keyval;
	ev[nev].val = (intptr_t)val;
	ev[nev].obj = obj;
	nev++;
}

/* Copies val + 1 and checks extra_state is the keyval's own number. */
static int copy_cb(MPI_Comm old, int keyval, void *extra, void *in, void *out,
		   int *flag)
{
	void *v = (void *)((intptr_t)in + 1);

	ck_assert_int_eq((int)(intptr_t)extra, keyval);
	log_ev('c', keyval, in, old);
	if (keyval == fail_copy)
		return MPI_ERR_OTHER;
	memcpy(out, &v, sizeof(v));
	*flag = 1;
	return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int keyval, void *val, void *extra)
{
	(void)extra;
	log_ev('d', keyval, val, comm);
	return keyval == fail_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int type_copy_cb(MPI_Datatype old, int keyval, void *extra, void *in,
			void *out, int *flag)
{
	(void)extra;
	log_ev('c', keyval, in, old);
	memcpy(out, &in, sizeof(in));
	*flag = 1;
	return MPI_SUCCESS;
}

static int type_delete_cb(MPI_Datatype t, int keyval, void *val, void *extra)
{
	(void)extra;
	log_ev('d', keyval, val, t);
	return MPI_SUCCESS;
}

static void setup(void)
{
	fake_mpi_setup(0, 3);
	nev = 0;
	fail_copy = fail_delete = 0;
}

/* A communicator keyval with the logging callbacks; extra = its number
 * (known only after creation: set through the keyval object). */
static int new_keyval(void)
{
	struct rc_keyval *kv;
	char why[64];
	int k;

	ck_assert_int_eq(MPI_Comm_create_keyval(copy_cb, delete_cb, &k, NULL),
			 MPI_SUCCESS);
	ck_assert_int_eq(rc_keyval_lookup(RC_AK_COMM, k, &kv, why, sizeof(why)),
			 MPI_SUCCESS);
	kv->extra_state = (void *)(intptr_t)k;
	return k;
}

static void expect(int i, char what, int keyval, intptr_t val)
{
	ck_assert_int_lt(i, nev);
	ck_assert_msg(ev[i].what == what && ev[i].keyval == keyval &&
			      ev[i].val == val,
		      "event %d: %c %d %ld, expected %c %d %ld", i, ev[i].what,
		      ev[i].keyval, (long)ev[i].val, what, keyval, (long)val);
}

static void *get_attr(MPI_Comm c, int k, int *flag)
{
	void *v = NULL;

	ck_assert_int_eq(MPI_Comm_get_attr(c, k, &v, flag), MPI_SUCCESS);
	return v;
}

START_TEST(set_get_delete)
{
	MPI_Comm d;
	int k = new_keyval(), flag;

	ck_assert_int_gt(k, MPI_LASTUSEDCODE);
	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_SELF, &d), MPI_SUCCESS);
	get_attr(d, k, &flag);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(MPI_Comm_set_attr(d, k, (void *)10), MPI_SUCCESS);
	ck_assert_ptr_eq(get_attr(d, k, &flag), (void *)10);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(nev, 0);
	/* replacing deletes the old value through the callback */
	ck_assert_int_eq(MPI_Comm_set_attr(d, k, (void *)11), MPI_SUCCESS);
	ck_assert_int_eq(nev, 1);
	expect(0, 'd', k, 10);
	ck_assert_ptr_eq(ev[0].obj, d);
	ck_assert_ptr_eq(get_attr(d, k, &flag), (void *)11);
	ck_assert_int_eq(MPI_Comm_delete_attr(d, k), MPI_SUCCESS);
	expect(1, 'd', k, 11);
	get_attr(d, k, &flag);
	ck_assert_int_eq(flag, 0);
	/* deleting what is not there is no error and calls nothing */
	ck_assert_int_eq(MPI_Comm_delete_attr(d, k), MPI_SUCCESS);
	ck_assert_int_eq(nev, 2);
	ck_assert_int_eq(MPI_Comm_free(&d), MPI_SUCCESS);
	ck_assert_int_eq(nev, 2);
	ck_assert_int_eq(MPI_Comm_free_keyval(&k), MPI_SUCCESS);
	ck_assert_int_eq(k, MPI_KEYVAL_INVALID);
}
END_TEST

/* dup copies in the order of setting, free deletes in reverse; a key set
 * again counts as set last. */
START_TEST(copy_and_delete_order)
{
	MPI_Comm d, e;
	int k1 = new_keyval(), k2 = new_keyval(), k3 = new_keyval();
	int kn, kd, flag;

	ck_assert_int_eq(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
						MPI_COMM_NULL_DELETE_FN, &kn,
						NULL),
			 MPI_SUCCESS);
	ck_assert_int_eq(
		MPI_Comm_create_keyval(MPI_COMM_DUP_FN, NULL, &kd, NULL),
		MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_SELF, &d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_attr(d, k1, (void *)100), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_attr(d, k2, (void *)200), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_attr(d, kn, (void *)1), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_attr(d, k3, (void *)300), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_attr(d, kd, (void *)7), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_attr(d, k1, (void *)101), MPI_SUCCESS);
	expect(0, 'd', k1, 100);
	nev = 0;
	ck_assert_int_eq(MPI_Comm_dup(d, &e), MPI_SUCCESS);
	ck_assert_int_eq(nev, 3);
	expect(0, 'c', k2, 200);
	expect(1, 'c', k3, 300);
	expect(2, 'c', k1, 101);
	ck_assert_ptr_eq(ev[0].obj, d);
	ck_assert_ptr_eq(get_attr(e, k1, &flag), (void *)102);
	ck_assert_ptr_eq(get_attr(e, kd, &flag), (void *)7);
	ck_assert_int_eq(flag, 1);
	get_attr(e, kn, &flag);
	ck_assert_int_eq(flag, 0);
	nev = 0;
	ck_assert_int_eq(MPI_Comm_free(&d), MPI_SUCCESS);
	ck_assert_int_eq(nev, 3);
	expect(0, 'd', k1, 101);
	expect(1, 'd', k3, 300);
	expect(2, 'd', k2, 200);
	nev = 0;
	ck_assert_int_eq(MPI_Comm_free(&e), MPI_SUCCESS);
	expect(0, 'd', k1, 102);
	expect(1, 'd', k3, 301);
	expect(2, 'd', k2, 201);
	ck_assert_int_eq(MPI_Comm_free_keyval(&k1), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_free_keyval(&k2), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_free_keyval(&k3), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_free_keyval(&kn), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_free_keyval(&kd), MPI_SUCCESS);
}
END_TEST

/* A failing copy fails the dup with its code, and the copies made before
 * it are deleted again; a failing delete fails delete_attr and free, and
 * leaves the attribute (and the communicator) in place. */
START_TEST(failing_callbacks)
{
	MPI_Comm d, e = MPI_COMM_SELF, keep;
	int k1 = new_keyval(), k2 = new_keyval(), flag;

	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_SELF, &d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_attr(d, k1, (void *)1), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_attr(d, k2, (void *)2), MPI_SUCCESS);
	fail_copy = k2;
	ck_assert_int_eq(MPI_Comm_dup(d, &e), MPI_ERR_OTHER);
	ck_assert_ptr_eq(e, MPI_COMM_NULL); /* set, not left as it was */
	ck_assert_int_eq(nev, 3);
	expect(0, 'c', k1, 1);
	expect(1, 'c', k2, 2);
	expect(2, 'd', k1, 2); /* the copy of k1 on the new one */
	fail_copy = 0;
	nev = 0;
	fail_delete = k1;
	ck_assert_int_eq(MPI_Comm_delete_attr(d, k1), MPI_ERR_OTHER);
	ck_assert_ptr_eq(get_attr(d, k1, &flag), (void *)1);
	ck_assert_int_eq(MPI_Comm_set_attr(d, k1, (void *)5), MPI_ERR_OTHER);
	ck_assert_ptr_eq(get_attr(d, k1, &flag), (void *)1);
	keep = d;
	ck_assert_int_eq(MPI_Comm_free(&d), MPI_ERR_OTHER);
	ck_assert_ptr_eq(d, keep);
	ck_assert(rc_comm_valid(d));
	fail_delete = 0;
	nev = 0;
	ck_assert_int_eq(MPI_Comm_free(&d), MPI_SUCCESS);
	/* k2 went before the failure: only k1 is left to delete */
	ck_assert_int_eq(nev, 1);
	expect(0, 'd', k1, 1);
	ck_assert_int_eq(MPI_Comm_free_keyval(&k1), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_free_keyval(&k2), MPI_SUCCESS);
}
END_TEST

/* A freed keyval lives on with its attributes (as in MPICH and Open MPI):
 * its number still gets, sets and deletes them, and freeing it again does
 * nothing. With its last attribute it goes (the teardown checks no keyval
 * is left alive), and then its number is an error. */
START_TEST(keyval_freed_in_use)
{
	MPI_Comm d, e;
	int k = new_keyval(), old = k, again = k, flag;
	void *v;

	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_SELF, &d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_attr(d, k, (void *)40), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_free_keyval(&k), MPI_SUCCESS);
	ck_assert_int_eq(k, MPI_KEYVAL_INVALID);
	ck_assert_int_eq(MPI_Comm_free_keyval(&again), MPI_SUCCESS);
	ck_assert_int_eq(again, MPI_KEYVAL_INVALID);
	ck_assert_int_eq(MPI_Comm_get_attr(d, old, &v, &flag), MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_ptr_eq(v, (void *)40);
	ck_assert_int_eq(MPI_Comm_dup(d, &e), MPI_SUCCESS);
	expect(0, 'c', old, 40);
	/* deleting one copy keeps the keyval for the other */
	ck_assert_int_eq(MPI_Comm_delete_attr(e, old), MPI_SUCCESS);
	expect(1, 'd', old, 41);
	ck_assert_ptr_nonnull(rc_hpool_at(&rc_hpools[RC_HK_KEYVAL], old));
	ck_assert_int_eq(MPI_Comm_set_attr(e, old, (void *)42), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_free(&d), MPI_SUCCESS);
	expect(2, 'd', old, 40);
	ck_assert_int_eq(MPI_Comm_free(&e), MPI_SUCCESS);
	expect(3, 'd', old, 42);
	ck_assert_int_eq(nev, 4);
	/* the last attribute took the keyval with it */
	ck_assert_ptr_null(rc_hpool_at(&rc_hpools[RC_HK_KEYVAL], old));
	again = old;
	ck_assert_int_eq(MPI_Comm_free_keyval(&again), MPI_ERR_KEYVAL);
	ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_SELF, old, &v, &flag),
			 MPI_ERR_KEYVAL);
}
END_TEST

START_TEST(predefined_keys)
{
	MPI_Comm d;
	int *v, flag, k;

	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_SELF, &d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_get_attr(d, MPI_TAG_UB, &v, &flag),
			 MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_ge(*v, 32767);
	ck_assert_int_eq(
		MPI_Attr_get(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag),
		MPI_SUCCESS);
	ck_assert_int_eq(*v, 5);
	ck_assert_int_eq(MPI_Comm_get_attr(d, MPI_LASTUSEDCODE, &v, &flag),
			 MPI_SUCCESS);
	ck_assert_int_eq(*v, MPI_ERR_LASTCODE);
	ck_assert_int_eq(MPI_Comm_get_attr(d, MPI_APPNUM, &v, &flag),
			 MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(MPI_Comm_set_attr(d, MPI_TAG_UB, &flag),
			 MPI_ERR_KEYVAL);
	ck_assert_int_eq(MPI_Attr_put(d, MPI_HOST, &flag), MPI_ERR_KEYVAL);
	ck_assert_int_eq(MPI_Comm_delete_attr(d, MPI_IO), MPI_ERR_KEYVAL);
	k = MPI_WTIME_IS_GLOBAL;
	ck_assert_int_eq(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL);
	ck_assert_int_eq(k, MPI_WTIME_IS_GLOBAL);
	/* they are communicator keys */
	ck_assert_int_eq(MPI_Type_get_attr(MPI_INT, MPI_TAG_UB, &v, &flag),
			 MPI_ERR_KEYVAL);
	ck_assert_int_eq(MPI_Comm_free(&d), MPI_SUCCESS);
}
END_TEST

START_TEST(bad_keyvals)
{
	MPI_Comm d;
	int kc = new_keyval(), kt, flag, bogus = 1 << 20;
	void *v;

	ck_assert_int_eq(MPI_Type_create_keyval(MPI_TYPE_DUP_FN,
						MPI_TYPE_NULL_DELETE_FN, &kt,
						NULL),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_SELF, &d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_set_attr(d, kt, &v), MPI_ERR_KEYVAL);
	ck_assert_int_eq(MPI_Type_set_attr(MPI_INT, kc, &v), MPI_ERR_KEYVAL);
	ck_assert_int_eq(MPI_Comm_free_keyval(&kt), MPI_ERR_KEYVAL);
	ck_assert_int_eq(MPI_Type_free_keyval(&kc), MPI_ERR_KEYVAL);
	ck_assert_int_eq(MPI_Comm_get_attr(d, bogus, &v, &flag),
			 MPI_ERR_KEYVAL);
	ck_assert_int_eq(MPI_Comm_get_attr(d, MPI_KEYVAL_INVALID, &v, &flag),
			 MPI_ERR_KEYVAL);
	ck_assert_int_eq(MPI_Comm_get_attr(d, 0, &v, &flag), MPI_ERR_KEYVAL);
	ck_assert_int_eq(MPI_Comm_get_attr(d, kc, &v, NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Comm_get_attr(d, kc, NULL, &flag), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Comm_create_keyval(NULL, NULL, NULL, NULL),
			 MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Comm_free_keyval(NULL), MPI_ERR_ARG);
	ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_NULL, kc, &v),
			 MPI_ERR_COMM);
	ck_assert_int_eq(MPI_Type_set_attr(MPI_DATATYPE_NULL, kt, &v),
			 MPI_ERR_TYPE);
	ck_assert_int_eq(MPI_Comm_free(&d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_free_keyval(&kc), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_free_keyval(&kt), MPI_SUCCESS);
	/* freed keyvals are told apart from ones that never were */
	ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_SELF, bogus, &v, &flag),
			 MPI_ERR_KEYVAL);
}
END_TEST

START_TEST(datatypes)
{
	MPI_Datatype t, u;
	int k, flag;
	void *v;

	ck_assert_int_eq(
		MPI_Type_create_keyval(type_copy_cb, type_delete_cb, &k, NULL),
		MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &t), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_set_attr(t, k, (void *)9), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_dup(t, &u), MPI_SUCCESS);
	expect(0, 'c', k, 9);
	ck_assert_ptr_eq(ev[0].obj, t);
	ck_assert_int_eq(MPI_Type_get_attr(u, k, &v, &flag), MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_ptr_eq(v, (void *)9);
	ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
	expect(1, 'd', k, 9);
	ck_assert_int_eq(MPI_Type_delete_attr(u, k), MPI_SUCCESS);
	expect(2, 'd', k, 9);
	ck_assert_int_eq(MPI_Type_free(&u), MPI_SUCCESS);
	ck_assert_int_eq(nev, 3);
	/* attributes on a predefined datatype */
	ck_assert_int_eq(MPI_Type_set_attr(MPI_DOUBLE, k, (void *)3),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Type_get_attr(MPI_DOUBLE, k, &v, &flag),
			 MPI_SUCCESS);
	ck_assert_ptr_eq(v, (void *)3);
	ck_assert_int_eq(MPI_Type_delete_attr(MPI_DOUBLE, k), MPI_SUCCESS);
	expect(3, 'd', k, 3);
	ck_assert_int_eq(MPI_Type_free_keyval(&k), MPI_SUCCESS);
}
END_TEST

/* The MPI-1 names and MPI_DUP_FN / MPI_NULL_COPY_FN / MPI_NULL_DELETE_FN */
START_TEST(mpi1_names)
{
	MPI_Comm d, e;
	int k, kn, flag;
	void *v;

	ck_assert_int_eq(
		MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k, NULL),
		MPI_SUCCESS);
	ck_assert_int_eq(MPI_Keyval_create(MPI_NULL_COPY_FN, NULL, &kn, NULL),
			 MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_SELF, &d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Attr_put(d, k, (void *)5), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Attr_put(d, kn, (void *)6), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_dup(d, &e), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Attr_get(e, k, &v, &flag), MPI_SUCCESS);
	ck_assert_int_eq(flag, 1);
	ck_assert_ptr_eq(v, (void *)5);
	ck_assert_int_eq(MPI_Attr_get(e, kn, &v, &flag), MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(MPI_Attr_delete(e, k), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Attr_get(e, k, &v, &flag), MPI_SUCCESS);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_eq(MPI_Comm_free(&e), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Comm_free(&d), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Keyval_free(&k), MPI_SUCCESS);
	ck_assert_int_eq(MPI_Keyval_free(&kn), MPI_SUCCESS);
	ck_assert_int_eq(k, MPI_KEYVAL_INVALID);
}
END_TEST

static Suite *attr_suite(void)
{
	Suite *s = suite_create("attr");
	TCase *tc = fake_mpi_tcase("attr", TMO, setup, fake_mpi_teardown);

	tcase_add_test(tc, set_get_delete);
	tcase_add_test(tc, copy_and_delete_order);
	tcase_add_test(tc, failing_callbacks);
	tcase_add_test(tc, keyval_freed_in_use);
	tcase_add_test(tc, predefined_keys);
	tcase_add_test(tc, bad_keyvals);
	tcase_add_test(tc, datatypes);
	tcase_add_test(tc, mpi1_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fake_mpi_run(attr_suite());
}
