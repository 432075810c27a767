/*
 * thread.c - the slow paths of the critical sections (thread.h), taken only
 * at MPI_THREAD_MULTIPLE.
 *
 * The lock is a futex word, not a pthread mutex: uncontended, taking it is
 * one compare-and-swap and giving it back one atomic exchange (callgrind:
 * pthread_mutex_trylock + unlock cost about 100 instructions per MPI call
 * more, 20 % of a small message). Contended, a thread spins a little, then
 * sleeps in the kernel on the word (value 2: someone may sleep, so the
 * unlocker wakes one). Acquire on taking, release on giving back: TSan
 * sees the ordering through the atomics.
 *
 * Re-entry: the owner is recorded (atomically, as other threads read it)
 * after the lock is taken, so "owner == me" can only be true for the
 * thread that holds it; everybody else sees another thread or none.
 */
#include <assert.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "thread.h"

/* Each on a cache line of its own: every call reads the flag, and the
 * section's holder writes its lock word at every entry and exit (sharing
 * a line, the flag's readers outside the section took a miss each time:
 * bench/mt_side objects). */
bool rc_thread_multiple __attribute__((aligned(64)));
struct rc_cs rc_cs_big __attribute__((aligned(64))) = RC_CS_INITIALIZER;

static bool cs_mine(struct rc_cs *cs)
{
	return __atomic_load_n(&cs->held, __ATOMIC_ACQUIRE) &&
	       pthread_equal(__atomic_load_n(&cs->owner, __ATOMIC_RELAXED),
			     pthread_self());
}

bool rc_cs_held_by_me(struct rc_cs *cs)
{
	return cs_mine(cs);
}

/* "not yet" answers in a row, rc_cs_poll_busy */
static __thread unsigned poll_busy_streak;

bool rc_cs_poll_busy(struct rc_cs *cs)
{
	if (poll_busy_streak < 63 && rc_cs_busy(cs)) {
		poll_busy_streak++;
		return true;
	}
	poll_busy_streak = 0;
	return false;
}

void rc_word_lock_slow(int *w)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (rc_word_trylock(w))
			return;
		__builtin_ia32_pause();
	}
	/* 2: held, and this thread may sleep; whoever gives it back wakes */
	while (__atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

void rc_word_wake(int *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The word just taken: record the owner. */
static void cs_own(struct rc_cs *cs, int depth)
{
	/* written under the lock only: a plain increment, read atomically */
	__atomic_store_n(&cs->takes, cs->takes + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&cs->owner, pthread_self(), __ATOMIC_RELAXED);
	__atomic_store_n(&cs->held, 1, __ATOMIC_RELEASE);
	cs->depth = depth;
}

static void cs_take(struct rc_cs *cs, int depth)
{
	/* Uncontended: one compare-and-swap, no counting. Contended: counted
	 * as a waiter meanwhile, for rc_cs_yield's handoff. */
	if (!rc_word_trylock(&cs->word)) {
		__atomic_add_fetch(&cs->waiters, 1, __ATOMIC_RELAXED);
		rc_word_lock_slow(&cs->word);
		__atomic_sub_fetch(&cs->waiters, 1, __ATOMIC_RELAXED);
	}
	cs_own(cs, depth);
}

/* Take cs only if nobody holds it. */
static bool cs_trytake(struct rc_cs *cs, int depth)
{
	if (!rc_word_trylock(&cs->word))
		return false;
	cs_own(cs, depth);
	return true;
}

/* Give cs up completely; returns the depth this thread held. (Inline:
 * rc_cs_unlock runs it on every MPI call at MULTIPLE.) */
static inline __attribute__((always_inline)) int cs_drop(struct rc_cs *cs)
{
	int depth = cs->depth;

	cs->depth = 0;
	__atomic_store_n(&cs->held, 0, __ATOMIC_RELEASE);
	rc_word_unlock(&cs->word);
	return depth;
}

void rc_cs_lock(struct rc_cs *cs)
{
	if (cs_mine(cs)) {
		cs->depth++;
		return;
	}
	cs_take(cs, 1);
}

bool rc_cs_trylock(struct rc_cs *cs)
{
	if (cs_mine(cs)) {
		cs->depth++;
		return true;
	}
	return cs_trytake(cs, 1);
}

void rc_cs_unlock(struct rc_cs *cs)
{
	if (cs->depth > 1) {
		cs->depth--;
		return;
	}
	cs_drop(cs);
}

/*
 * Fairness: the lock is not fair. A thread that unlocks and locks again at
 * once keeps it: the waiter, spinning on another core or woken in the
 * kernel, comes too late.
 * So a yielding thread that sees waiters hands the section over: it waits
 * (a bounded while) until another thread has taken it before it queues
 * again. Measured with test_thread's handoff case and the thr_* jobs:
 * without the handoff a thread in MPI_Wait held the section for whole
 * time slices while a sender in another thread waited.
 */
enum { CS_HANDOFF_SPINS = 100000 };

void rc_cs_yield_slow(struct rc_cs *cs)
{
	unsigned takes;
	int depth, i;

	if (!cs_mine(cs)) {
		sched_yield();
		return;
	}
	takes = __atomic_load_n(&cs->takes, __ATOMIC_RELAXED);
	depth = cs_drop(cs);
	if (!__atomic_load_n(&cs->waiters, __ATOMIC_RELAXED)) {
		sched_yield();
	} else {
		for (i = 0; i < CS_HANDOFF_SPINS &&
			    __atomic_load_n(&cs->takes, __ATOMIC_RELAXED) == takes;
		     i++)
			sched_yield();
	}
	cs_take(cs, depth);
}

/* between two looks: relax the core a while, then let the scheduler run
 * another thread (more waiting threads than cores are common here) */
static void cs_relax(unsigned i, bool yield)
{
	if (yield || i >= 64)
		sched_yield();
	else
		__builtin_ia32_pause();
}

/* Take cs, which its holder gives up soon (a thread polling, or posting):
 * queued (counted in waiters, so that watchers let it go first) but
 * spinning, never asleep in the kernel, whose wake-up would cost more
 * than the holder's whole turn. */
static void cs_take_soon(struct rc_cs *cs, int depth, bool yield)
{
	unsigned i;

	__atomic_add_fetch(&cs->waiters, 1, __ATOMIC_RELAXED);
	for (i = 0;; i++) {
		if (!__atomic_load_n(&cs->word, __ATOMIC_RELAXED) &&
		    cs_trytake(cs, depth))
			break;
		cs_relax(i, yield);
	}
	__atomic_sub_fetch(&cs->waiters, 1, __ATOMIC_RELAXED);
}

/*
 * Waiting for one flag (a request's state) at MULTIPLE. rc_cs_yield would
 * give the section up and queue for it again at once, so with several
 * threads waiting every one of them takes it in turn only to find its
 * request still pending, and the thread whose request has completed waits
 * its turn behind them.
 * Here a waiter gives the section up and watches its own flag, read
 * atomically, touching the lock word only to read it. It takes the section
 * back when its flag is set (its request is done: it finishes under the
 * section; cs_take_soon), or, to poll for everybody, when nobody holds the
 * section; then only with a try, so that waiters never queue or sleep on
 * the word against the threads that post, and never while a thread is
 * queued for it (a poster, or a waiter whose request is done).
 * A lone watcher relaxes the core between looks (yield: its caller asks
 * every 16th idle poll, so that a thread sharing its core with another
 * process's runs); with other watchers it yields at every look.
 */
/* Watch flag outside cs, which this thread has just dropped (it held it
 * at depth): true once the flag is value (cs not held); false when this
 * thread took cs back, at depth, because it fell free (to poll). */
static bool cs_watch(struct rc_cs *cs, const uint8_t *flag, uint8_t value,
		     bool yield, int depth)
{
	bool set = false;
	unsigned i;

	/* other threads watching too: more threads than cores is likely */
	if (__atomic_add_fetch(&cs->watchers, 1, __ATOMIC_RELAXED) > 1)
		yield = true;
	for (i = 0;; i++) {
		if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == value) {
			set = true;
			break;
		}
		cs_relax(i, yield);
		/* (the queued threads first: they may sleep in the kernel,
		 * and a try that took the word each time it fell free would
		 * starve them) */
		if (!__atomic_load_n(&cs->word, __ATOMIC_RELAXED) &&
		    !__atomic_load_n(&cs->waiters, __ATOMIC_RELAXED) &&
		    cs_trytake(cs, depth))
			break;
	}
	__atomic_sub_fetch(&cs->watchers, 1, __ATOMIC_RELAXED);
	return set;
}

void rc_cs_yield_until_slow(struct rc_cs *cs, const uint8_t *flag,
			    uint8_t value, bool yield)
{
	int depth;

	if (!cs_mine(cs)) {
		sched_yield();
		return;
	}
	depth = cs_drop(cs);
	if (cs_watch(cs, flag, value, yield, depth))
		cs_take_soon(cs, depth, yield);
}

bool rc_cs_unlock_watch(struct rc_cs *cs, const uint8_t *flag, uint8_t value,
			bool yield)
{
	assert(cs_mine(cs) && cs->depth == 1);
	cs_drop(cs);
	return cs_watch(cs, flag, value, yield, 1);
}
