/*
 * verbs_rcache.h - the registration cache: memory registrations kept after
 * use so that sending again from the same buffer does not register again,
 * and dropped when the memory behind them is unmapped.
 *
 * Registrations cover whole pages. A lookup returns a cached registration
 * that covers the range asked for; a miss registers the pages of the range
 * and caches them. Unused entries sit on an LRU list and are deregistered
 * when the cache holds more than max_entries or max_bytes, or when a
 * registration fails (memlock limit) and is retried.
 *
 * Invalidation: rc_rcache_invalidate_all() is called by the memory hooks
 * (verbs_hooks.c: munmap, mremap, madvise, brk, sbrk, shmdt, mmap with
 * MAP_FIXED) from any thread, before the memory goes away. Overlapping
 * entries leave the index at once, so no later lookup can find them; an
 * entry still in use is deregistered when its last user releases it, an
 * unused one by the owner at its next call (rc_rcache_gc), never from the
 * hook itself. A registration that raced with an invalidation is used once
 * and not cached.
 *
 * The registration itself is a callback, so the cache is tested without a
 * device.
 */
#ifndef RC_VERBS_RCACHE_H
#define RC_VERBS_RCACHE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "list.h"

struct rc_rcache;

/* What every progress call reads of a cache, inline (the rest is
 * verbs_rcache.c's): the first member of struct rc_rcache. */
struct rc_rcache_head {
	atomic_int ndead; /* invalidated entries left to deregister */
};

struct rc_rcache_reg_ops {
	/* Register [addr, addr + len): 0, or an errno value. */
	int (*reg)(void *ctx, void *addr, size_t len, void **mr, uint32_t *lkey,
		   uint32_t *rkey);
	void (*dereg)(void *ctx, void *mr);
};

struct rc_rcache_entry {
	uintptr_t start, end; /* pages [start, end) */
	void *mr;
	uint32_t lkey, rkey;
	int refcnt;
	bool indexed;	     /* findable by lookups */
	struct rc_list link; /* LRU (unused and indexed) or dead list */
};

struct rc_rcache_stats {
	unsigned long hits, misses, invalidated, evicted, uncached;
	size_t entries, bytes;
};

/* enabled false: every get registers and every put deregisters. */
struct rc_rcache *rc_rcache_new(const struct rc_rcache_reg_ops *ops, void *ctx,
				size_t max_entries, size_t max_bytes,
				bool enabled);
/* Deregister everything (entries still in use too) and free. */
void rc_rcache_free(struct rc_rcache *rc);

/* A registration covering [addr, addr + len). 0 or the errno of the
 * registration that failed (after evicting unused entries and retrying). */
int rc_rcache_get(struct rc_rcache *rc, void *addr, size_t len,
		  struct rc_rcache_entry **out);
void rc_rcache_put(struct rc_rcache *rc, struct rc_rcache_entry *e);

/* Forget registrations overlapping [start, end) in every cache of the
 * process. Any thread; never deregisters itself. */
void rc_rcache_invalidate_all(uintptr_t start, uintptr_t end);
/* The same for one cache. */
void rc_rcache_invalidate(struct rc_rcache *rc, uintptr_t start, uintptr_t end);
/* Does any cache hold entries? (cheap, unlocked: the hooks' fast path) */
bool rc_rcache_active(void);
/* Deregister what invalidations left behind (owner thread). */
void rc_rcache_gc(struct rc_rcache *rc);
/* Is there anything for rc_rcache_gc to do? (cheap, unlocked) */
static inline bool rc_rcache_gc_pending(const struct rc_rcache *rc)
{
	const struct rc_rcache_head *h = (const struct rc_rcache_head *)rc;

	return atomic_load_explicit(&h->ndead, memory_order_relaxed) != 0;
}

void rc_rcache_stats(struct rc_rcache *rc, struct rc_rcache_stats *st);

#endif
