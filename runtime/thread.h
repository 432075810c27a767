/*
 * thread.h - critical sections for MPI_THREAD_MULTIPLE.
 *
 * The thread level the program asked for decides the cost. Below
 * MPI_THREAD_MULTIPLE every call here is one predictable branch on
 * rc_thread_multiple, read once per MPI call into a local: no lock, no
 * atomic, nothing else on the path. At MULTIPLE the section's lock is taken.
 *
 * Sections nest in one thread: an API function that calls a PMPI_ function,
 * or a user callback (error handler, reduction op, attribute copy) that
 * calls MPI, re-enters without deadlock. A thread that must wait for
 * another (MPI_Wait, MPI_Recv, a blocking collective) lets the others in
 * between polls through rc_progress_idle(), which calls rc_cs_yield().
 *
 * How an API function places its section:
 *
 *	int PMPI_Foo(...)
 *	{
 *		return RC_CS_CALL(&rc_cs_big, foo(...));
 *	}
 *
 * or, around part of a body:
 *
 *	bool held = rc_cs_enter(&rc_cs_big);
 *	...
 *	rc_cs_exit(&rc_cs_big, held);
 *
 * One section, rc_cs_big, covers every call that communicates or touches
 * communicators, windows, requests, attributes or error handlers. Finer
 * sections (per communicator, per peer) will be more struct rc_cs objects
 * with the same functions. Outside it: calls that read nothing shared;
 * queries of what is fixed while a handle lives (MPI_Comm_rank,
 * MPI_Type_size, ...: the section only when they fail); MPI_Test's family
 * and MPI_Iprobe when another thread holds it and nothing is done yet
 * (rc_cs_poll_busy); small eager sends to ranks on the node (the peer's
 * send lock instead); the posting of receives (MPI_Irecv, MPI_Recv: onto
 * a lock-free stack that the section's holder drains, pt2pt/engine.c);
 * MPI_Isend, MPI_Irsend and MPI_Issend, MPI_Start and MPI_Startall when
 * another thread holds the section (rc_cs_trylock fails: sends handed to
 * it on a second such stack, receives onto the first); the
 * waits, tests and finishing of the requests that
 * the engine hands over (request.h: MPI_Isend's, MPI_Irecv's, MPI_Recv's),
 * which take the section only to poll (rc_cs_unlock_watch); and the
 * object calls (RC_CS_OUTSIDE below), whose shared parts have leaf locks
 * of their own (struct rc_lock).
 */
#ifndef RC_THREAD_H
#define RC_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "compiler.h"

/* Set once by MPI_Init_thread when it provides MPI_THREAD_MULTIPLE, before
 * any other thread may call MPI; cleared by MPI_Finalize. Hidden: read
 * straight, not through the GOT, by every MPI call (the library exports
 * every other symbol). */
extern bool rc_thread_multiple __attribute__((visibility("hidden")));

/* A critical section: a lock that its holder may re-enter, on a lock word
 * (rc_word_*, below: 0 free, 1 held, 2 held and a thread may sleep). */
struct rc_cs {
	int word;
	pthread_t owner;	/* valid while depth > 0 */
	int depth;		/* nesting of the owning thread */
	int held;		/* 1 while owned; read by other threads */
	unsigned waiters;	/* threads waiting to take word (atomic) */
	unsigned takes;		/* times word was taken (atomic): handoff */
	unsigned watchers;	/* threads in rc_cs_yield_until (atomic) */
};

#define RC_CS_INITIALIZER { .word = 0 }

/* The one section of the first implementation (every MPI call). */
extern struct rc_cs rc_cs_big __attribute__((visibility("hidden")));

void rc_cs_lock(struct rc_cs *cs);
/* rc_cs_lock only if no other thread holds cs; true when taken (or
 * entered again), for rc_cs_unlock. */
bool rc_cs_trylock(struct rc_cs *cs);
void rc_cs_unlock(struct rc_cs *cs);
void rc_cs_yield_slow(struct rc_cs *cs);
void rc_cs_yield_until_slow(struct rc_cs *cs, const uint8_t *flag,
			    uint8_t value, bool yield);

/* Enter cs when the process runs at MPI_THREAD_MULTIPLE. Returns whether
 * it did: pass that to rc_cs_exit, so the flag is read once per call. */
static inline bool rc_cs_enter(struct rc_cs *cs)
{
	if (RC_LIKELY(!rc_thread_multiple))
		return false;
	rc_cs_lock(cs);
	return true;
}

static inline void rc_cs_exit(struct rc_cs *cs, bool held)
{
	if (RC_UNLIKELY(held))
		rc_cs_unlock(cs);
}

/* In a loop waiting for another thread's work: release cs completely (at
 * whatever depth this thread holds it), let another thread run, take it
 * back at the same depth. Nothing below MULTIPLE. */
static inline void rc_cs_yield(struct rc_cs *cs)
{
	if (RC_UNLIKELY(rc_thread_multiple))
		rc_cs_yield_slow(cs);
}

/* Like rc_cs_yield, for a thread that waits for one flag (its request's
 * state) to become value, which another thread sets inside cs with an
 * atomic store (release): outside cs it watches the flag, and takes cs back
 * once the flag is set or nobody holds cs (to poll). Only at MULTIPLE. */
static inline void rc_cs_yield_until(struct rc_cs *cs, const uint8_t *flag,
				     uint8_t value, bool yield)
{
	if (RC_UNLIKELY(rc_thread_multiple))
		rc_cs_yield_until_slow(cs, flag, value, yield);
}

/*
 * For a thread that holds cs once and waits for flag to become value, and
 * finishes outside cs once it is (the engine hands its request over:
 * request.h): give cs up and watch the flag as rc_cs_yield_until does.
 * True once the flag is set, cs not held; false when cs fell free and this
 * thread took it back, to poll. Only at MULTIPLE.
 */
bool rc_cs_unlock_watch(struct rc_cs *cs, const uint8_t *flag, uint8_t value,
			bool yield);

/* Evaluate `expr` inside section cs; the value of the expression is that
 * of expr (not void). */
#define RC_CS_CALL(cs, expr)                                  \
	({                                                    \
		bool rc_cs_held_ = rc_cs_enter(cs);           \
		__typeof__(expr) rc_cs_ret_ = (expr);         \
		rc_cs_exit((cs), rc_cs_held_);                \
		rc_cs_ret_;                                   \
	})

/*
 * RC_CS_CALL for a call that has a path outside cs at MULTIPLE: there
 * `outside` is tried first (a call that does the whole MPI call outside
 * the section when it can, and is then true: the value is `done`), and
 * expr runs inside cs when it could not. Below MULTIPLE, expr alone, after
 * the one branch on the flag.
 */
#define RC_CS_CALL_UNLESS(cs, outside, done, expr)                \
	({                                                        \
		bool rc_cs_mt_ = RC_UNLIKELY(rc_thread_multiple); \
		__typeof__(expr) rc_cs_ret_ = (done);             \
		if (!rc_cs_mt_ || !(outside)) {                   \
			if (rc_cs_mt_)                            \
				rc_cs_lock(cs);                   \
			rc_cs_ret_ = (expr);                      \
			if (rc_cs_mt_)                            \
				rc_cs_unlock(cs);                 \
		}                                                 \
		rc_cs_ret_;                                       \
	})

/*
 * Calls that run outside every section, at any level: those that touch
 * only objects their own handles reach, plus what they share with the
 * rest of MPI, each shared part locked on its own. They are the queries
 * of what is fixed while a handle lives (MPI_Comm_rank, MPI_Comm_size,
 * MPI_Type_size, extents, MPI_Get_count, ...) and the object calls:
 * datatypes (constructors, commit, free, names, decoding, pack and
 * unpack), ops (create, free, MPI_Reduce_local), info and groups.
 * What they share, and how:
 *   - the handle pools (handle.h): each behind an rc_lock of its own;
 *   - reference counts (datatypes, ops, groups): atomic, so that the last
 *     release, wherever it runs, frees once;
 *   - the error handler: rc_err_raise enters rc_cs_big to run it;
 *   - attribute callbacks: MPI_Type_dup and MPI_Type_free of a type that
 *     has attributes run inside rc_cs_big, as attribute calls do.
 * Two threads that use one object at once, one of them changing it (its
 * name, a commit, a free), are the program's race, as in MPI-3.1 12.4.
 */
#define RC_CS_OUTSIDE(expr) (expr)

/*
 * A leaf lock: held for a few instructions around one shared structure (a
 * handle pool), never while calling out, and no other lock is taken under
 * it: so it needs no order with the sections and no re-entry. Below
 * MULTIPLE it is one predictable branch, like the sections.
 */
struct rc_lock {
	int word; /* a lock word, below */
};

/*
 * The lock word of both rc_lock and rc_cs: 0 free, 1 held, 2 held and a
 * thread may sleep on it (futex), so whoever gives it back wakes one.
 */
void rc_word_lock_slow(int *w);
void rc_word_wake(int *w);

static inline bool rc_word_trylock(int *w)
{
	int c = 0;

	return __atomic_compare_exchange_n(w, &c, 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static inline void rc_word_unlock(int *w)
{
	if (RC_UNLIKELY(__atomic_exchange_n(w, 0, __ATOMIC_RELEASE) == 2))
		rc_word_wake(w);
}

/* Take and give back l at any level (callers that know it is MULTIPLE). */
static inline void rc_lock_hold(struct rc_lock *l)
{
	if (RC_UNLIKELY(!rc_word_trylock(&l->word)))
		rc_word_lock_slow(&l->word);
}

static inline void rc_lock_release(struct rc_lock *l)
{
	rc_word_unlock(&l->word);
}

/* Take l at MULTIPLE; returns whether it did, for rc_lock_give. */
static inline bool rc_lock_take(struct rc_lock *l)
{
	if (RC_LIKELY(!rc_thread_multiple))
		return false;
	rc_lock_hold(l);
	return true;
}

static inline void rc_lock_give(struct rc_lock *l, bool held)
{
	if (RC_UNLIKELY(held))
		rc_lock_release(l);
}

/* For a thread that holds cs: had it entered cs already before its last
 * rc_cs_lock (a call from a callback, inside MPI)? */
static inline bool rc_cs_nested(const struct rc_cs *cs)
{
	return cs->depth > 1;
}

/* Does the calling thread hold cs? (assertions, tests) */
bool rc_cs_held_by_me(struct rc_cs *cs);

/* Does another thread hold cs now? A hint: it may fall free at once. */
static inline bool rc_cs_busy(struct rc_cs *cs)
{
	return __atomic_load_n(&cs->word, __ATOMIC_RELAXED) &&
	       !rc_cs_held_by_me(cs);
}

/*
 * For a call that polls (MPI_Test's family, MPI_Iprobe) and found nothing
 * it could answer outside cs: may it answer "not yet" without entering?
 * True while another thread holds cs -- that thread is inside MPI and
 * polls itself; queueing behind it would only find the same -- but at
 * most 63 times in a row per thread, so that a thread that keeps asking
 * enters and drives progress with its own polls.
 */
bool rc_cs_poll_busy(struct rc_cs *cs);

#endif
