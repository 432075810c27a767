/*
 * svc_attr.c - attribute caching the way bindings and tools use it, under
 * mpirun:
 *  - a binding caches a per-communicator object (malloc'd) with a keyval
 *    whose copy callback deep-copies it and whose delete callback frees
 *    it; dups get their own copy, frees delete it, nothing is left;
 *  - the copy and delete callbacks fire in the standard's order (copies in
 *    the order of setting, deletes in reverse);
 *  - a tool caches attributes on MPI_COMM_SELF (and one on
 *    MPI_COMM_WORLD): MPI_Finalize deletes SELF's first, in reverse order
 *    of setting, while MPI still works (one callback reduces over
 *    MPI_COMM_WORLD), then WORLD's. main checks the record after
 *    MPI_Finalize returns and prints OK only if it is right.
 */
#include "jobs.h"

struct cache {
	int magic;
	int comm_size;
	int serial;
};

static int live_caches, next_serial;
static char order[16];
static int norder, finalize_sum = -1, finalized_in_cb = -1;

static int cache_copy(MPI_Comm old, int keyval, void *extra, void *in,
		      void *out, int *flag)
{
	struct cache *c = in, *n = malloc(sizeof(*n));

	(void)keyval, (void)extra;
	if (!n || c->magic != 0xcace)
		return MPI_ERR_OTHER;
	*n = *c;
	n->serial = ++next_serial;
	MPI_Comm_size(old, &n->comm_size);
	live_caches++;
	memcpy(out, &n, sizeof(n));
	*flag = 1;
	return MPI_SUCCESS;
}

static int cache_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
	struct cache *c = val;

	(void)comm, (void)keyval, (void)extra;
	if (c->magic != 0xcace)
		return MPI_ERR_OTHER;
	c->magic = 0;
	free(c);
	live_caches--;
	return MPI_SUCCESS;
}

/* Records its extra_state (a letter); 'A' also reduces over world. */
static int note_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
	char c = (char)(intptr_t)extra;

	(void)comm, (void)keyval, (void)val;
	if (norder < (int)sizeof(order) - 1)
		order[norder++] = c;
	if (c == 'A') {
		int one = 1;

		MPI_Finalized(&finalized_in_cb);
		MPI_Allreduce(&one, &finalize_sum, 1, MPI_INT, MPI_SUM,
			      MPI_COMM_WORLD);
	}
	return MPI_SUCCESS;
}

static int note_copy(MPI_Comm old, int keyval, void *extra, void *in, void *out,
		     int *flag)
{
	(void)old, (void)keyval;
	if (norder < (int)sizeof(order) - 1)
		order[norder++] = (char)(intptr_t)extra;
	memcpy(out, &in, sizeof(in));
	*flag = 1;
	return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
	MPI_Comm a, b, c;
	struct cache *mine, *got;
	int rank, size, kc, kx, ky, kz, kw, flag, *tag_ub;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* a binding's per-communicator cache */
	CHECK_MPI(MPI_Comm_create_keyval(cache_copy, cache_delete, &kc, NULL));
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
	mine = malloc(sizeof(*mine));
	CHECK(mine, "malloc");
	mine->magic = 0xcace;
	mine->comm_size = size;
	mine->serial = 0;
	live_caches = 1;
	CHECK_MPI(MPI_Comm_set_attr(a, kc, mine));
	CHECK_MPI(MPI_Comm_dup(a, &b));
	CHECK_MPI(MPI_Comm_dup(b, &c));
	CHECK(live_caches == 3, "%d caches", live_caches);
	CHECK_MPI(MPI_Comm_get_attr(c, kc, &got, &flag));
	CHECK(flag && got != mine && got->serial == 2 && got->comm_size == size,
	      "c's cache");
	/* the keyval may go while caches use it */
	CHECK_MPI(MPI_Comm_free_keyval(&kc));
	CHECK(kc == MPI_KEYVAL_INVALID, "keyval not invalidated");
	CHECK_MPI(MPI_Comm_free(&b));
	CHECK(live_caches == 2, "%d caches after one free", live_caches);
	CHECK_MPI(MPI_Comm_get_attr(a, MPI_TAG_UB, &tag_ub, &flag));
	CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB on a dup");
	CHECK_MPI(MPI_Comm_free(&a));
	CHECK_MPI(MPI_Comm_free(&c));
	CHECK(live_caches == 0, "%d caches left", live_caches);

	/* the order of copies and deletes */
	CHECK_MPI(MPI_Comm_create_keyval(note_copy, note_delete, &kx,
					 (void *)(intptr_t)'x'));
	CHECK_MPI(MPI_Comm_create_keyval(note_copy, note_delete, &ky,
					 (void *)(intptr_t)'y'));
	CHECK_MPI(MPI_Comm_create_keyval(note_copy, note_delete, &kz,
					 (void *)(intptr_t)'z'));
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
	CHECK_MPI(MPI_Comm_set_attr(a, kz, NULL));
	CHECK_MPI(MPI_Comm_set_attr(a, kx, NULL));
	CHECK_MPI(MPI_Comm_set_attr(a, ky, NULL));
	CHECK_MPI(MPI_Comm_dup(a, &b));
	CHECK_MPI(MPI_Comm_free(&a));
	CHECK_MPI(MPI_Comm_free(&b));
	order[norder] = 0;
	CHECK(!strcmp(order, "zxyyxzyxz"), "copy/delete order %s", order);

	/* the tool: on SELF (an 'x' whose keyval is freed at once, then A B
	 * C), and W on WORLD: Finalize must delete C B A x, then W */
	norder = 0;
	CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kx, NULL));
	CHECK_MPI(MPI_Comm_free_keyval(&kx));
	CHECK_MPI(MPI_Comm_free_keyval(&ky));
	CHECK_MPI(MPI_Comm_free_keyval(&kz));
	CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, note_delete,
					 &kx, (void *)(intptr_t)'A'));
	CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, note_delete,
					 &ky, (void *)(intptr_t)'B'));
	CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, note_delete,
					 &kz, (void *)(intptr_t)'C'));
	CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, note_delete,
					 &kw, (void *)(intptr_t)'W'));
	CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, kw, NULL));
	CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kx, NULL));
	CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, ky, NULL));
	CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kz, NULL));
	CHECK(norder == 0, "%d deletes before MPI_Finalize", norder);
	CHECK_MPI(MPI_Finalize());
	order[norder] = 0;
	if (strcmp(order, "CBAxW") || finalize_sum != size ||
	    finalized_in_cb != 0) {
		fprintf(stderr,
			"rank %d: finalize deleted %s (want CBAxW), "
			"sum %d (want %d), finalized %d in the callback\n",
			rank, order, finalize_sum, size, finalized_in_cb);
		return 1;
	}
	if (!rank)
		printf("OK\n");
	return 0;
}
