/*
 * fence.c - the all-gather behind PMIx_Fence.
 *
 * libpmix hands each server one blob per fence: the packed contributions
 * of its local participants. The job's fence is complete when every node
 * that hosts a participant has contributed; the answer handed back to
 * every server is the plain concatenation of the node blobs (libpmix
 * unpacks them in any order). Zero-byte contributions count: a fence
 * without data collection is a barrier.
 *
 * Collectives are told apart by their participant signature ("ns:*"). Two
 * fences over the same participants cannot overlap on any node (a node
 * enters the second only after the first completed everywhere), so the
 * signature is a sufficient key. On a single node (mpirun alone) each
 * fence completes with its first contribution; the head of a multi-node
 * job feeds this table with the blobs the daemons relay.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "launcher.h"

struct fence_coll {
	struct fence_coll *next;
	char *sig;
	int nexpected, ngot;
	char *buf;
	size_t len;
};

struct rc_fence_tab {
	struct fence_coll *head;
};

struct rc_fence_tab *rc_fence_tab_new(void)
{
	return calloc(1, sizeof(struct rc_fence_tab));
}

static void fence_coll_free(struct fence_coll *c)
{
	free(c->sig);
	free(c->buf);
	free(c);
}

void rc_fence_tab_free(struct rc_fence_tab *t)
{
	struct fence_coll *c, *n;

	if (!t)
		return;
	for (c = t->head; c; c = n) {
		n = c->next;
		fence_coll_free(c);
	}
	free(t);
}

static struct fence_coll *fence_find(struct rc_fence_tab *t, const char *sig,
				     int nexpected)
{
	struct fence_coll *c;

	for (c = t->head; c; c = c->next)
		if (!strcmp(c->sig, sig))
			return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->sig = strdup(sig);
	if (!c->sig) {
		free(c);
		return NULL;
	}
	c->nexpected = nexpected;
	c->next = t->head;
	t->head = c;
	return c;
}

static void fence_unlink(struct rc_fence_tab *t, struct fence_coll *c)
{
	struct fence_coll **pp;

	for (pp = &t->head; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			return;
		}
	}
}

int rc_fence_add(struct rc_fence_tab *t, const char *sig, int nexpected,
		 const char *data, size_t len, char **out, size_t *outlen)
{
	struct fence_coll *c = fence_find(t, sig, nexpected);
	char *nb;

	if (!c)
		return -1;
	if (len) {
		nb = realloc(c->buf, c->len + len);
		if (!nb)
			return -1;
		memcpy(nb + c->len, data, len);
		c->buf = nb;
		c->len += len;
	}
	if (++c->ngot < c->nexpected)
		return 0;
	fence_unlink(t, c);
	*out = c->buf;
	*outlen = c->len;
	c->buf = NULL;
	fence_coll_free(c);
	return 1;
}
