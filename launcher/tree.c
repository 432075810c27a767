/*
 * tree.c - the launch tree: which daemon starts which, and the way a
 * message takes between mpirun and any daemon (launcher.h has the shape).
 *
 * mpirun starts its children; each daemon starts its own children once it
 * has the job, so a launch takes O(log_k hosts) steps and mpirun holds k
 * connections. Messages from a daemon below go up hop by hop
 * (RC_M_RELAY_UP), mpirun's to one daemon go down the same way
 * (RC_M_RELAY_DOWN), what is for all of them is forwarded by every
 * daemon to its children (RC_M_BCAST). Everything here is arithmetic on
 * positions: mpirun and every daemon compute the same tree from the job
 * map, the head's node and the radix, all in the JOB message.
 */
#include "config.h"

#include <stdlib.h>

#include "launcher.h"

int rc_tree_init(struct rc_tree *t, int nnodes, int head_node, int radix)
{
	int i;

	t->radix = radix > 0 ? radix : 0;
	t->nnodes = nnodes;
	t->ndmn = 0;
	t->pos_node = calloc(nnodes > 0 ? nnodes : 1, sizeof(int));
	t->node_pos = calloc(nnodes > 0 ? nnodes : 1, sizeof(int));
	if (!t->pos_node || !t->node_pos) {
		rc_tree_free(t);
		return -1;
	}
	for (i = 0; i < nnodes; i++) {
		t->node_pos[i] = -1;
		if (i == head_node)
			continue;
		t->node_pos[i] = t->ndmn;
		t->pos_node[t->ndmn++] = i;
	}
	return 0;
}

void rc_tree_free(struct rc_tree *t)
{
	free(t->pos_node);
	free(t->node_pos);
	t->pos_node = t->node_pos = NULL;
}

static int tree_pos(const struct rc_tree *t, int node)
{
	return node >= 0 && node < t->nnodes ? t->node_pos[node] : -1;
}

int rc_tree_parent(const struct rc_tree *t, int node)
{
	int p = tree_pos(t, node);

	if (p < 0 || !t->radix || p < t->radix)
		return -1;
	return t->pos_node[p / t->radix - 1];
}

int rc_tree_kids(const struct rc_tree *t, int node, int *kids, int max)
{
	int first, n, k = 0, p;

	if (node < 0) {
		first = 0;
		n = t->radix ? t->radix : t->ndmn;
	} else {
		p = tree_pos(t, node);
		if (p < 0 || !t->radix)
			return 0;
		first = (p + 1) * t->radix;
		n = t->radix;
	}
	for (p = first; p < first + n && p < t->ndmn && k < max; p++)
		kids[k++] = t->pos_node[p];
	return k;
}

int rc_tree_next_hop(const struct rc_tree *t, int from, int dst)
{
	int x = dst, up;

	if (tree_pos(t, dst) < 0 || x == from)
		return -1;
	for (;;) {
		up = rc_tree_parent(t, x);
		if (up == from)
			return x;
		if (up < 0)
			return -1;
		x = up;
	}
}

int rc_tree_below(const struct rc_tree *t, int node)
{
	int p = tree_pos(t, node), lo, hi, n = 0;

	if (p < 0 || !t->radix)
		return 0;
	/* level by level: the positions below p form one range per level */
	lo = hi = p;
	for (;;) {
		lo = (lo + 1) * t->radix;
		hi = (hi + 1) * t->radix + t->radix - 1;
		if (lo >= t->ndmn)
			return n;
		n += (hi < t->ndmn ? hi : t->ndmn - 1) - lo + 1;
	}
}

int rc_tree_depth(const struct rc_tree *t, int node)
{
	int d = 1;

	if (tree_pos(t, node) < 0)
		return 0;
	while ((node = rc_tree_parent(t, node)) >= 0)
		d++;
	return d;
}
