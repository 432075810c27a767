/*
 * test_thread.c - unit tests of the critical sections (runtime/thread.h).
 *
 * Below MPI_THREAD_MULTIPLE a section must take nothing: another thread
 * can lock the mutex while "inside". At MULTIPLE it must exclude other
 * threads, nest in its owner, and rc_cs_yield and rc_cs_yield_until must
 * let a waiting thread in and give the section back at the same depth.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "thread.h"

#define TMO 30

static struct rc_cs cs = RC_CS_INITIALIZER;

/* Can another thread take cs's lock word right now? */
static void *try_other(void *arg)
{
	struct rc_cs *c = arg;
	int free_ = 0;
	bool took = __atomic_compare_exchange_n(&c->word, &free_, 1, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED);

	if (took)
		__atomic_store_n(&c->word, 0, __ATOMIC_RELEASE);
	return (void *)(long)took;
}

static bool other_can_lock(struct rc_cs *c)
{
	pthread_t t;
	void *res;

	ck_assert_int_eq(pthread_create(&t, NULL, try_other, c), 0);
	ck_assert_int_eq(pthread_join(t, &res), 0);
	return res != NULL;
}

START_TEST(single_takes_nothing)
{
	bool held;

	rc_thread_multiple = false;
	held = rc_cs_enter(&cs);
	ck_assert(!held);
	ck_assert(other_can_lock(&cs));
	ck_assert(!rc_cs_held_by_me(&cs));
	rc_cs_exit(&cs, held);
	ck_assert(other_can_lock(&cs));
}
END_TEST

START_TEST(multiple_excludes_and_nests)
{
	bool a, b;

	rc_thread_multiple = true;
	a = rc_cs_enter(&cs);
	ck_assert(a);
	ck_assert(rc_cs_held_by_me(&cs));
	ck_assert(!other_can_lock(&cs));
	b = rc_cs_enter(&cs);		/* nested: no deadlock */
	ck_assert(b);
	ck_assert_int_eq(cs.depth, 2);
	rc_cs_exit(&cs, b);
	ck_assert(rc_cs_held_by_me(&cs));
	ck_assert(!other_can_lock(&cs));
	rc_cs_exit(&cs, a);
	ck_assert(!rc_cs_held_by_me(&cs));
	ck_assert(other_can_lock(&cs));
	rc_thread_multiple = false;
}
END_TEST

static int call_count;

static int counted(int v)
{
	call_count++;
	ck_assert(rc_cs_held_by_me(&cs));
	return v * 2;
}

START_TEST(call_macro_returns_value_once)
{
	rc_thread_multiple = true;
	call_count = 0;
	ck_assert_int_eq(RC_CS_CALL(&cs, counted(21)), 42);
	ck_assert_int_eq(call_count, 1);
	ck_assert(!rc_cs_held_by_me(&cs));
	rc_thread_multiple = false;
}
END_TEST

/* A second thread waits for a flag it can only set inside the section,
 * while the main thread holds it two deep and polls with rc_cs_yield. */
static volatile int flag;

static void *set_flag_inside(void *arg)
{
	bool h = rc_cs_enter(arg);

	ck_assert(h);
	flag = 1;
	rc_cs_exit(arg, h);
	return NULL;
}

START_TEST(yield_lets_others_in)
{
	pthread_t t;
	bool a, b;
	long spins = 0;

	rc_thread_multiple = true;
	flag = 0;
	a = rc_cs_enter(&cs);
	b = rc_cs_enter(&cs);
	ck_assert_int_eq(pthread_create(&t, NULL, set_flag_inside, &cs), 0);
	while (!__atomic_load_n(&flag, __ATOMIC_ACQUIRE)) {
		rc_cs_yield(&cs);
		ck_assert(rc_cs_held_by_me(&cs));
		ck_assert_int_eq(cs.depth, 2);
		ck_assert_int_lt(++spins, 100000000L);
	}
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	rc_cs_exit(&cs, b);
	rc_cs_exit(&cs, a);
	ck_assert(other_can_lock(&cs));
	rc_thread_multiple = false;
}
END_TEST

/* Fairness: a thread queued on the section gets it at the holder's next
 * rc_cs_yield (the handoff in thread.c), not after an unbounded number of
 * yields that retake a mutex the woken waiter comes too late for. */
START_TEST(yield_hands_over)
{
	pthread_t t;
	bool a;
	int round;

	rc_thread_multiple = true;
	for (round = 0; round < 50; round++) {
		flag = 0;
		a = rc_cs_enter(&cs);
		ck_assert_int_eq(
			pthread_create(&t, NULL, set_flag_inside, &cs), 0);
		while (!__atomic_load_n(&cs.waiters, __ATOMIC_RELAXED))
			sched_yield();
		rc_cs_yield(&cs);
		ck_assert_int_eq(__atomic_load_n(&flag, __ATOMIC_ACQUIRE), 1);
		rc_cs_exit(&cs, a);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
	}
	rc_thread_multiple = false;
}
END_TEST

/* Many threads increment a plain counter inside the section: exact. */
#define NTHR 4
#define NINC 20000
static long counter;

static void *add_many(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < NINC; i++) {
		bool h = rc_cs_enter(&cs);

		counter++;
		if (i % 64 == 0)
			rc_cs_yield(&cs);
		rc_cs_exit(&cs, h);
	}
	return NULL;
}

/* Run fn in NTHR threads, each given its index; wait for them all. */
static void run_threads(void *(*fn)(void *))
{
	pthread_t t[NTHR];
	long i;

	for (i = 0; i < NTHR; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, fn, (void *)i), 0);
	for (i = 0; i < NTHR; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
}

START_TEST(counter_exact)
{
	rc_thread_multiple = true;
	counter = 0;
	run_threads(add_many);
	ck_assert_int_eq(counter, (long)NTHR * NINC);
	rc_thread_multiple = false;
}
END_TEST

/* The leaf lock (struct rc_lock): nothing below MULTIPLE; at MULTIPLE it
 * excludes, with threads that sleep in the kernel on it (a holder that
 * yields inside makes the others wait past their spins). */
static struct rc_lock leaf;

static void *add_many_leaf(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < NINC; i++) {
		bool h = rc_lock_take(&leaf);

		ck_assert(h);
		counter++;
		if (i % 256 == 0)
			sched_yield();
		rc_lock_give(&leaf, h);
	}
	return NULL;
}

START_TEST(leaf_lock)
{
	bool h;

	rc_thread_multiple = false;
	h = rc_lock_take(&leaf);
	ck_assert(!h);
	ck_assert_int_eq(leaf.word, 0);
	rc_lock_give(&leaf, h);
	rc_thread_multiple = true;
	counter = 0;
	run_threads(add_many_leaf);
	ck_assert_int_eq(counter, (long)NTHR * NINC);
	ck_assert_int_eq(leaf.word, 0);
	rc_thread_multiple = false;
}
END_TEST

/*
 * rc_cs_yield_until: gives the section up, watches the flag outside it, and
 * once another thread has set the flag inside the section comes back
 * holding it at the same depth. The setter makes sure of the order: it
 * sets the flag while the waiter watches (watchers 1, the waiter not
 * queued on the word), then keeps the section until the waiter queues for
 * it, which a waiter only does once it has seen the flag.
 */
static uint8_t uflag;

static void *set_uflag_inside(void *arg)
{
	struct rc_cs *c = arg;
	bool h = rc_cs_enter(c);
	long spins;

	ck_assert(h);
	for (spins = 0; __atomic_load_n(&c->watchers, __ATOMIC_RELAXED) != 1;
	     spins++)
		ck_assert_int_lt(spins, 100000000L);
	ck_assert_uint_eq(__atomic_load_n(&c->waiters, __ATOMIC_RELAXED), 0);
	__atomic_store_n(&uflag, 1, __ATOMIC_RELEASE);
	for (spins = 0; !__atomic_load_n(&c->waiters, __ATOMIC_RELAXED) &&
			spins < 1000000000L;
	     spins++)
		__builtin_ia32_pause();
	rc_cs_exit(c, h);
	return (void *)(long)(spins < 1000000000L);
}

START_TEST(yield_until_flag)
{
	pthread_t t;
	void *queued;
	bool a, b;
	int round;

	rc_thread_multiple = true;
	for (round = 0; round < 20; round++) {
		uflag = 0;
		a = rc_cs_enter(&cs);
		b = rc_cs_enter(&cs);
		ck_assert_int_eq(
			pthread_create(&t, NULL, set_uflag_inside, &cs), 0);
		while (!__atomic_load_n(&cs.waiters, __ATOMIC_RELAXED))
			sched_yield();
		rc_cs_yield_until(&cs, &uflag, 1, round & 1);
		ck_assert(rc_cs_held_by_me(&cs));
		ck_assert_int_eq(cs.depth, 2);
		ck_assert_int_eq(uflag, 1);
		ck_assert_int_eq(pthread_join(t, &queued), 0);
		ck_assert(queued);
		ck_assert_uint_eq(
			__atomic_load_n(&cs.watchers, __ATOMIC_RELAXED), 0);
		rc_cs_exit(&cs, b);
		rc_cs_exit(&cs, a);
		ck_assert(other_can_lock(&cs));
	}
	rc_thread_multiple = false;
}
END_TEST

/*
 * The waits of MPI at MULTIPLE in miniature: each thread posts a "request"
 * (its flag, queued inside the section) and waits for it; whichever thread
 * holds the section plays the progress engine and completes the oldest
 * queued request (an atomic store, as rc_req_complete does). Every request
 * completes exactly once and nobody is left waiting: a thread that watches
 * its flag outside the section must come back in, to finish or to poll.
 */
#define NPOST 5000
static uint8_t done_flag[NTHR];
static int queue[NTHR], nqueued;
static long completed;

static void *post_and_wait(void *arg)
{
	int me = (int)(long)arg, i, j;

	for (i = 0; i < NPOST; i++) {
		bool h = rc_cs_enter(&cs);

		__atomic_store_n(&done_flag[me], 0, __ATOMIC_RELAXED);
		queue[nqueued++] = me;
		while (!done_flag[me]) {
			if (nqueued) { /* "progress": the oldest first */
				int who = queue[0];

				for (j = 1; j < nqueued; j++)
					queue[j - 1] = queue[j];
				nqueued--;
				completed++;
				__atomic_store_n(&done_flag[who], 1,
						 __ATOMIC_RELEASE);
				continue;
			}
			rc_cs_yield_until(&cs, &done_flag[me], 1, false);
		}
		rc_cs_exit(&cs, h);
	}
	return NULL;
}

START_TEST(yield_until_waiters_complete)
{
	rc_thread_multiple = true;
	completed = 0;
	nqueued = 0;
	run_threads(post_and_wait);
	ck_assert_int_eq(completed, (long)NTHR * NPOST);
	ck_assert_int_eq(nqueued, 0);
	ck_assert_uint_eq(__atomic_load_n(&cs.watchers, __ATOMIC_RELAXED), 0);
	ck_assert(other_can_lock(&cs));
	rc_thread_multiple = false;
}
END_TEST

int main(void)
{
	Suite *s = suite_create("thread");
	TCase *tc = tcase_create("cs");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, single_takes_nothing);
	tcase_add_test(tc, multiple_excludes_and_nests);
	tcase_add_test(tc, call_macro_returns_value_once);
	tcase_add_test(tc, yield_lets_others_in);
	tcase_add_test(tc, yield_hands_over);
	tcase_add_test(tc, counter_exact);
	tcase_add_test(tc, leaf_lock);
	tcase_add_test(tc, yield_until_flag);
	tcase_add_test(tc, yield_until_waiters_complete);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
