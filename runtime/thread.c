/*
 * thread.c - the slow paths of the critical sections (thread.h), taken only
 * at MPI_THREAD_MULTIPLE.
 *
 * Re-entry: the owner is recorded (atomically, as other threads read it)
 * after the mutex is taken, so "owner == me" can only be true for the
 * thread that holds it; everybody else sees another thread or none.
 */
#include <sched.h>
#include "thread.h"

bool rc_thread_multiple;
struct rc_cs rc_cs_big = RC_CS_INITIALIZER;

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

static void cs_take(struct rc_cs *cs, int depth)
{
	__atomic_add_fetch(&cs->waiters, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&cs->mu);
	__atomic_sub_fetch(&cs->waiters, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&cs->takes, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&cs->owner, pthread_self(), __ATOMIC_RELAXED);
	__atomic_store_n(&cs->held, 1, __ATOMIC_RELEASE);
	cs->depth = depth;
}

/* Give cs up completely; returns the depth this thread held. */
static int cs_drop(struct rc_cs *cs)
{
	int depth = cs->depth;

	cs->depth = 0;
	__atomic_store_n(&cs->held, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cs->mu);
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

void rc_cs_unlock(struct rc_cs *cs)
{
	if (cs->depth > 1) {
		cs->depth--;
		return;
	}
	cs_drop(cs);
}

/*
 * Fairness: a pthread mutex is not fair. A thread that unlocks and locks
 * again at once keeps it: the waiter, woken in the kernel, comes too late.
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
