/*
 * flist.h - a bounded free list of equal blocks, kept for reuse instead
 * of going back to malloc each time (records of operations that come and
 * go by the million). No lock: the caller's critical section covers it.
 * A block on the list has its first pointer-sized bytes overwritten; the
 * caller re-initialises what it takes.
 */
#ifndef RC_FLIST_H
#define RC_FLIST_H

#include <stdbool.h>
#include <stdlib.h>

struct rc_flist {
	void *head;
	unsigned n;
	unsigned max; /* blocks kept at most */
};

#define RC_FLIST_INIT(max_)                         \
	{                                           \
		.head = NULL, .n = 0, .max = (max_) \
	}

/* A kept block, or NULL. */
static inline void *rc_flist_get(struct rc_flist *f)
{
	void *b = f->head;

	if (b) {
		f->head = *(void **)b;
		f->n--;
	}
	return b;
}

/* Keep block b; false: the list is full (the caller frees it). */
static inline bool rc_flist_put(struct rc_flist *f, void *b)
{
	if (f->n >= f->max)
		return false;
	*(void **)b = f->head;
	f->head = b;
	f->n++;
	return true;
}

/* free() every kept block. */
static inline void rc_flist_drain(struct rc_flist *f)
{
	void *b;

	while ((b = rc_flist_get(f)))
		free(b);
}

#endif
