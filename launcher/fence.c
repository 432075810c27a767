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
 * job feeds this table with its own node's blob and the blobs the daemons
 * relay, and learns on completion which nodes to answer.
 *
 * In a launch tree (tree.c) every daemon feeds its own table with its
 * node's blob and its children's combined blobs for fences every node
 * takes part in, and passes one blob up that counts for its whole subtree
 * (rc_fence_add_count): the concatenation is the same, only built in
 * steps.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "launcher.h"

struct fence_coll {
	struct fence_coll *next;
	char *sig;
	int nexpected, ngot;
	int *nodes;		/* who contributed, in order */
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
	free(c->nodes);
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
	c->nodes = calloc(nexpected > 0 ? nexpected : 1, sizeof(int));
	if (!c->nodes) {
		free(c->sig);
		free(c);
		return NULL;
	}
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

int rc_fence_add_node(struct rc_fence_tab *t, const char *sig,
		      int nexpected, int node, const char *data, size_t len,
		      char **out, size_t *outlen, int **nodes, int *nnodes)
{
	return rc_fence_add_count(t, sig, nexpected, node, 1, data, len, out,
				  outlen, nodes, nnodes);
}

int rc_fence_add_count(struct rc_fence_tab *t, const char *sig, int nexpected,
		       int node, int count, const char *data, size_t len,
		       char **out, size_t *outlen, int **nodes, int *nnodes)
{
	struct fence_coll *c = fence_find(t, sig, nexpected);
	char *nb;
	int i;

	if (!c)
		return -1;
	if (count < 1 || c->ngot + count > c->nexpected)
		return -1;
	if (len) {
		nb = realloc(c->buf, c->len + len);
		if (!nb)
			return -1;
		memcpy(nb + c->len, data, len);
		c->buf = nb;
		c->len += len;
	}
	/* a subtree's combined blob: its root stands for all of them */
	for (i = 0; i < count; i++)
		c->nodes[c->ngot + i] = i ? -1 : node;
	c->ngot += count;
	if (c->ngot < c->nexpected)
		return 0;
	fence_unlink(t, c);
	*out = c->buf;
	*outlen = c->len;
	c->buf = NULL;
	if (nodes) {
		*nodes = c->nodes;
		*nnodes = c->nexpected;
		c->nodes = NULL;
	}
	fence_coll_free(c);
	return 1;
}

int rc_fence_add(struct rc_fence_tab *t, const char *sig, int nexpected,
		 const char *data, size_t len, char **out, size_t *outlen)
{
	return rc_fence_add_node(t, sig, nexpected, -1, data, len, out,
				 outlen, NULL, NULL);
}
