/*
 * verbs_rcache.c - the registration cache (verbs_rcache.h has the rules).
 *
 * Index: an array of entries sorted by start address, searched by binary
 * search. Entries may overlap (a miss registers exactly the pages it needs),
 * so a lookup for [s, e) scans back from the last entry starting at or
 * before s as far as s - max_len, where max_len bounds the length of every
 * entry in the index; an invalidation of [a, b) scans the entries starting
 * in [a - max_len, b). Both scans are short: entries are few (hundreds) and
 * most are far apart.
 *
 * Locking: one mutex per cache guards the index, the lists and reference
 * counts; registration and deregistration run outside it, so a hook that
 * fires inside the verbs library (which may unmap its own memory) never
 * finds the lock held by its own thread. A process-wide registry lets the
 * hooks reach every cache.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "verbs_rcache.h"

struct rc_rcache {
	struct rc_rcache_head h; /* first: rc_rcache_gc_pending reads it */
	const struct rc_rcache_reg_ops *ops;
	void *ctx;
	bool enabled;
	size_t max_entries, max_bytes;
	pthread_mutex_t lock;
	struct rc_rcache_entry **idx; /* sorted by start */
	size_t n, cap;
	uintptr_t max_len;
	size_t bytes;
	struct rc_list lru;  /* unused indexed entries, MRU first */
	struct rc_list dead; /* invalidated, unused: to deregister */
	unsigned long gen; /* invalidations seen */
	struct rc_rcache_stats st;
	struct rc_rcache *next; /* registry */
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rc_rcache *reg_head;
static atomic_int reg_count;

static uintptr_t page_mask(void)
{
	static uintptr_t mask;

	if (!mask) {
		long ps = sysconf(_SC_PAGESIZE);

		mask = (uintptr_t)(ps > 0 ? ps : 4096) - 1;
	}
	return mask;
}

struct rc_rcache *rc_rcache_new(const struct rc_rcache_reg_ops *ops, void *ctx,
				size_t max_entries, size_t max_bytes,
				bool enabled)
{
	struct rc_rcache *rc = calloc(1, sizeof(*rc));

	if (!rc)
		return NULL;
	rc->ops = ops;
	rc->ctx = ctx;
	rc->enabled = enabled;
	rc->max_entries = max_entries ? max_entries : 1;
	rc->max_bytes = max_bytes;
	pthread_mutex_init(&rc->lock, NULL);
	rc_list_init(&rc->lru);
	rc_list_init(&rc->dead);
	page_mask();
	pthread_mutex_lock(&reg_lock);
	rc->next = reg_head;
	reg_head = rc;
	atomic_fetch_add(&reg_count, 1);
	pthread_mutex_unlock(&reg_lock);
	return rc;
}

/* First index whose entry starts at or after `start`. */
static size_t idx_lower(struct rc_rcache *rc, uintptr_t start)
{
	size_t lo = 0, hi = rc->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (rc->idx[mid]->start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int idx_insert(struct rc_rcache *rc, struct rc_rcache_entry *e)
{
	size_t i;

	if (rc->n == rc->cap) {
		size_t cap = rc->cap ? rc->cap * 2 : 64;
		void *p = realloc(rc->idx, cap * sizeof(*rc->idx));

		if (!p)
			return ENOMEM;
		rc->idx = p;
		rc->cap = cap;
	}
	i = idx_lower(rc, e->start);
	memmove(&rc->idx[i + 1], &rc->idx[i], (rc->n - i) * sizeof(*rc->idx));
	rc->idx[i] = e;
	rc->n++;
	if (e->end - e->start > rc->max_len)
		rc->max_len = e->end - e->start;
	e->indexed = true;
	rc->bytes += e->end - e->start;
	return 0;
}

static void idx_remove_at(struct rc_rcache *rc, size_t i)
{
	struct rc_rcache_entry *e = rc->idx[i];

	memmove(&rc->idx[i], &rc->idx[i + 1],
		(rc->n - i - 1) * sizeof(*rc->idx));
	rc->n--;
	if (!rc->n)
		rc->max_len = 0;
	e->indexed = false;
	rc->bytes -= e->end - e->start;
}

static void idx_remove(struct rc_rcache *rc, struct rc_rcache_entry *e)
{
	size_t i = idx_lower(rc, e->start);

	for (; i < rc->n && rc->idx[i]->start == e->start; i++) {
		if (rc->idx[i] == e) {
			idx_remove_at(rc, i);
			return;
		}
	}
}

/* An indexed entry covering [s, e), or NULL. */
static struct rc_rcache_entry *idx_find(struct rc_rcache *rc, uintptr_t s,
					uintptr_t e)
{
	size_t i = idx_lower(rc, s + 1); /* first starting after s */
	uintptr_t floor = s > rc->max_len ? s - rc->max_len : 0;

	while (i-- > 0) {
		struct rc_rcache_entry *x = rc->idx[i];

		if (x->start < floor)
			break;
		if (x->end >= e)
			return x;
	}
	return NULL;
}

static void dereg_free(struct rc_rcache *rc, struct rc_rcache_entry *e)
{
	rc->ops->dereg(rc->ctx, e->mr);
	free(e);
}

/* Deregister unused entries (LRU first) while over the limits, or all of
 * them when `all`. */
static void evict(struct rc_rcache *rc, bool all)
{
	struct rc_list victims;

	rc_list_init(&victims);
	pthread_mutex_lock(&rc->lock);
	while (!rc_list_empty(&rc->lru) &&
	       (all || rc->n > rc->max_entries ||
		(rc->max_bytes && rc->bytes > rc->max_bytes))) {
		struct rc_rcache_entry *e = rc_list_entry(
			rc->lru.prev, struct rc_rcache_entry, link);

		rc_list_del(&e->link);
		idx_remove(rc, e);
		rc_list_add_tail(&victims, &e->link);
		rc->st.evicted++;
	}
	pthread_mutex_unlock(&rc->lock);
	while (!rc_list_empty(&victims)) {
		struct rc_rcache_entry *e =
			rc_list_first(&victims, struct rc_rcache_entry, link);

		rc_list_del(&e->link);
		dereg_free(rc, e);
	}
}

int rc_rcache_get(struct rc_rcache *rc, void *addr, size_t len,
		  struct rc_rcache_entry **out)
{
	uintptr_t s = (uintptr_t)addr & ~page_mask();
	uintptr_t e = ((uintptr_t)addr + (len ? len : 1) + page_mask()) &
		      ~page_mask();
	struct rc_rcache_entry *x;
	unsigned long gen;
	int ret;

	pthread_mutex_lock(&rc->lock);
	if (rc->enabled) {
		x = idx_find(rc, s, e);
		if (x) {
			if (!x->refcnt++)
				rc_list_del(&x->link); /* off the LRU */
			rc->st.hits++;
			pthread_mutex_unlock(&rc->lock);
			*out = x;
			return 0;
		}
	}
	rc->st.misses++;
	gen = rc->gen;
	pthread_mutex_unlock(&rc->lock);

	if (rc_rcache_gc_pending(rc))
		rc_rcache_gc(rc);
	x = calloc(1, sizeof(*x));
	if (!x)
		return ENOMEM;
	x->start = s;
	x->end = e;
	x->refcnt = 1;
	rc_list_init(&x->link);
	ret = rc->ops->reg(rc->ctx, (void *)s, e - s, &x->mr, &x->lkey,
			   &x->rkey);
	if (ret && !rc_list_empty(&rc->lru)) {
		/* perhaps the locked-memory limit: make room, try again */
		evict(rc, true);
		ret = rc->ops->reg(rc->ctx, (void *)s, e - s, &x->mr, &x->lkey,
				   &x->rkey);
	}
	if (ret) {
		free(x);
		return ret;
	}
	pthread_mutex_lock(&rc->lock);
	/* an invalidation since the lookup may concern these pages: use the
	 * registration once, don't cache it */
	if (!rc->enabled || rc->gen != gen || idx_insert(rc, x))
		rc->st.uncached++;
	pthread_mutex_unlock(&rc->lock);
	evict(rc, false);
	*out = x;
	return 0;
}

void rc_rcache_put(struct rc_rcache *rc, struct rc_rcache_entry *x)
{
	bool drop = false;

	pthread_mutex_lock(&rc->lock);
	if (!--x->refcnt) {
		if (x->indexed)
			rc_list_add_head(&rc->lru, &x->link);
		else
			drop = true;
	}
	pthread_mutex_unlock(&rc->lock);
	if (drop)
		dereg_free(rc, x);
	else if (!x->refcnt)
		evict(rc, false);
}

void rc_rcache_invalidate(struct rc_rcache *rc, uintptr_t a, uintptr_t b)
{
	uintptr_t floor;
	size_t i;

	if (b <= a)
		return;
	pthread_mutex_lock(&rc->lock);
	rc->gen++;
	floor = a > rc->max_len ? a - rc->max_len : 0;
	i = idx_lower(rc, floor);
	while (i < rc->n && rc->idx[i]->start < b) {
		struct rc_rcache_entry *x = rc->idx[i];

		if (x->end <= a) {
			i++;
			continue;
		}
		idx_remove_at(rc, i);
		rc->st.invalidated++;
		if (!x->refcnt) {
			rc_list_del(&x->link);
			rc_list_add_tail(&rc->dead, &x->link);
			atomic_fetch_add(&rc->h.ndead, 1);
		}
	}
	pthread_mutex_unlock(&rc->lock);
}

bool rc_rcache_active(void)
{
	return atomic_load_explicit(&reg_count, memory_order_relaxed) != 0;
}

void rc_rcache_invalidate_all(uintptr_t a, uintptr_t b)
{
	struct rc_rcache *rc;

	if (!atomic_load_explicit(&reg_count, memory_order_acquire))
		return;
	pthread_mutex_lock(&reg_lock);
	for (rc = reg_head; rc; rc = rc->next)
		rc_rcache_invalidate(rc, a, b);
	pthread_mutex_unlock(&reg_lock);
}

void rc_rcache_gc(struct rc_rcache *rc)
{
	struct rc_list dead;

	pthread_mutex_lock(&rc->lock);
	rc_list_splice_init(&rc->dead, &dead);
	atomic_store(&rc->h.ndead, 0);
	pthread_mutex_unlock(&rc->lock);
	while (!rc_list_empty(&dead)) {
		struct rc_rcache_entry *x =
			rc_list_first(&dead, struct rc_rcache_entry, link);

		rc_list_del(&x->link);
		dereg_free(rc, x);
	}
}

void rc_rcache_stats(struct rc_rcache *rc, struct rc_rcache_stats *st)
{
	pthread_mutex_lock(&rc->lock);
	*st = rc->st;
	st->entries = rc->n;
	st->bytes = rc->bytes;
	pthread_mutex_unlock(&rc->lock);
}

void rc_rcache_free(struct rc_rcache *rc)
{
	struct rc_rcache **pp;
	size_t i;

	if (!rc)
		return;
	pthread_mutex_lock(&reg_lock);
	for (pp = &reg_head; *pp; pp = &(*pp)->next) {
		if (*pp == rc) {
			*pp = rc->next;
			break;
		}
	}
	atomic_fetch_sub(&reg_count, 1);
	pthread_mutex_unlock(&reg_lock);
	rc_rcache_gc(rc);
	/* entries still in use belong to nobody any more: drop them too */
	for (i = 0; i < rc->n; i++)
		dereg_free(rc, rc->idx[i]);
	free(rc->idx);
	pthread_mutex_destroy(&rc->lock);
	free(rc);
}
