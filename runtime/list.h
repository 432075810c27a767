/*
 * list.h - intrusive doubly linked lists (circular, with a head sentinel).
 */
#ifndef RC_LIST_H
#define RC_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct rc_list {
	struct rc_list *next, *prev;
};

#define RC_LIST_INIT(name) { &(name), &(name) }
#define rc_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define rc_list_entry(ptr, type, member) rc_container_of(ptr, type, member)
#define rc_list_first(head, type, member) \
	rc_list_entry((head)->next, type, member)
#define rc_list_for_each(pos, head) \
	for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)
#define rc_list_for_each_safe(pos, n, head)                        \
	for ((pos) = (head)->next, (n) = (pos)->next; (pos) != (head); \
	     (pos) = (n), (n) = (pos)->next)

static inline void rc_list_init(struct rc_list *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool rc_list_empty(const struct rc_list *h)
{
	return h->next == h;
}

static inline void rc_list_add_tail(struct rc_list *h, struct rc_list *e)
{
	e->prev = h->prev;
	e->next = h;
	h->prev->next = e;
	h->prev = e;
}

static inline void rc_list_add_head(struct rc_list *h, struct rc_list *e)
{
	e->next = h->next;
	e->prev = h;
	h->next->prev = e;
	h->next = e;
}

static inline void rc_list_del(struct rc_list *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->next = e;
	e->prev = e;
}

/* Move every entry of `from` to the (uninitialised) head `to`. */
static inline void rc_list_splice_init(struct rc_list *from,
				       struct rc_list *to)
{
	if (rc_list_empty(from)) {
		rc_list_init(to);
		return;
	}
	to->next = from->next;
	to->prev = from->prev;
	to->next->prev = to;
	to->prev->next = to;
	rc_list_init(from);
}

#endif
