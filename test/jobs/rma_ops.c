/*
 * rma_ops.c - one-sided communication through the MPI API, at any number
 * of ranks: every window flavour (allocate_shared on the ranks of this
 * node; across nodes MPI_Win_allocate_shared over MPI_COMM_WORLD must fail
 * with MPI_ERR_RMA_SHARED), every synchronisation mode, every operation,
 * contiguous and derived datatypes on both sides, sizes from one element
 * to megabytes, the window attributes and names. Every rank checks what
 * it received and what its window holds; the first mismatch ends the job
 * with MPI_Abort(99) naming rank, file and line.
 *
 *   rma_ops [BYTES]    BYTES: the large transfers (default 1 MiB)
 */
#include <stdint.h>
#include "jobs.h"

static int rank, size;
static size_t big = 1 << 20;

/* Window memory layout (bytes): [0, 64) counters and single elements,
 * [64, 64 + size * REGION) one region per origin, then a strided area. */
#define REGION 4096
#define STRIDE_INTS 256		/* ints in the strided area */

struct win {
	MPI_Win w;
	char *mem;		/* this rank's window memory */
	MPI_Aint *addr;		/* dynamic: every rank's base address */
	int flavor;
	MPI_Comm comm;
	int rank, size;
};

static size_t win_bytes(int n)
{
	return 64 + (size_t)n * REGION + 2 * STRIDE_INTS * sizeof(int) + big;
}

static MPI_Aint disp(struct win *w, int t, size_t off)
{
	return w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? w->addr[t] + (MPI_Aint)off
						   : (MPI_Aint)off;
}

static void win_open(struct win *w, int flavor, MPI_Comm comm)
{
	size_t n;
	int *v, flag;
	void *p;
	MPI_Aint *sz;

	memset(w, 0, sizeof(*w));
	w->flavor = flavor;
	w->comm = comm;
	MPI_Comm_rank(comm, &w->rank);
	MPI_Comm_size(comm, &w->size);
	n = win_bytes(w->size);
	switch (flavor) {
	case MPI_WIN_FLAVOR_CREATE:
		CHECK_MPI(MPI_Alloc_mem((MPI_Aint)n, MPI_INFO_NULL, &w->mem));
		CHECK_MPI(MPI_Win_create(w->mem, (MPI_Aint)n, 1, MPI_INFO_NULL,
					 comm, &w->w));
		break;
	case MPI_WIN_FLAVOR_ALLOCATE:
		CHECK_MPI(MPI_Win_allocate((MPI_Aint)n, 1, MPI_INFO_NULL, comm,
					   &w->mem, &w->w));
		break;
	case MPI_WIN_FLAVOR_SHARED:
		CHECK_MPI(MPI_Win_allocate_shared((MPI_Aint)n, 1, MPI_INFO_NULL,
						  comm, &w->mem, &w->w));
		break;
	case MPI_WIN_FLAVOR_DYNAMIC: {
		MPI_Aint a;

		w->mem = malloc(n);
		w->addr = malloc(sizeof(*w->addr) * (size_t)w->size);
		CHECK(w->mem && w->addr, "malloc");
		CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &w->w));
		CHECK_MPI(MPI_Win_attach(w->w, w->mem, (MPI_Aint)n));
		MPI_Get_address(w->mem, &a);
		CHECK_MPI(MPI_Allgather(&a, 1, MPI_AINT, w->addr, 1, MPI_AINT,
					comm));
		break;
	}
	}
	memset(w->mem, 0, n);
	/* the window's attributes */
	CHECK_MPI(MPI_Win_get_attr(w->w, MPI_WIN_CREATE_FLAVOR, &v, &flag));
	CHECK(flag && *v == flavor, "flavor %d, want %d", *v, flavor);
	CHECK_MPI(MPI_Win_get_attr(w->w, MPI_WIN_MODEL, &v, &flag));
	CHECK(flag && *v == MPI_WIN_UNIFIED, "model %d", *v);
	CHECK_MPI(MPI_Win_get_attr(w->w, MPI_WIN_BASE, &p, &flag));
	CHECK(flag && p == (flavor == MPI_WIN_FLAVOR_DYNAMIC ? MPI_BOTTOM
							     : (void *)w->mem),
	      "base %p", p);
	CHECK_MPI(MPI_Win_get_attr(w->w, MPI_WIN_SIZE, &sz, &flag));
	CHECK(flag && *sz == (flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0
							       : (MPI_Aint)n),
	      "size %ld", (long)*sz);
	CHECK_MPI(MPI_Win_get_attr(w->w, MPI_WIN_DISP_UNIT, &v, &flag));
	CHECK(flag && *v == 1, "disp_unit %d", *v);
	CHECK_MPI(MPI_Win_set_errhandler(w->w, MPI_ERRORS_RETURN));
}

static void win_close(struct win *w)
{
	CHECK_MPI(MPI_Win_free(&w->w));
	CHECK(w->w == MPI_WIN_NULL, "MPI_Win_free left the handle");
	if (w->flavor == MPI_WIN_FLAVOR_CREATE)
		MPI_Free_mem(w->mem);
	if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
		free(w->mem);
		free(w->addr);
	}
}

static unsigned char pat(int o, int t, size_t i, int seed)
{
	return (unsigned char)(o * 37 + t * 11 + i * 7 + (i >> 9) + seed);
}

/* ---- fence: puts, gets, accumulates, datatypes --------------------------- */
static void t_fence(struct win *w, int seed)
{
	int n = w->size, me = w->rank, t, i;
	unsigned char src[REGION];
	int vals[STRIDE_INTS];
	MPI_Datatype vec, blocks;
	unsigned char *bigbuf;
	long one = 1, old[8];

	MPI_Type_vector(STRIDE_INTS, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	/* an indexed type on the origin: two blocks in reverse order */
	{
		int bl[2] = { REGION / 2, REGION / 2 };
		int dp[2] = { REGION / 2, 0 };

		MPI_Type_indexed(2, bl, dp, MPI_BYTE, &blocks);
		MPI_Type_commit(&blocks);
	}
	for (i = 0; i < REGION; i++)
		src[i] = pat(me, 0, (size_t)i, seed);
	for (i = 0; i < STRIDE_INTS; i++)
		vals[i] = me * 1000 + i + seed;
	CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, w->w));
	for (t = 0; t < n; t++) {
		CHECK_MPI(MPI_Put(src, 1, blocks, t,
				  disp(w, t, 64 + (size_t)me * REGION), REGION,
				  MPI_BYTE, w->w));
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t, disp(w, t, 0),
					 1, MPI_LONG, MPI_SUM, w->w));
	}
	/* rank 0 owns the strided area of rank n - 1 */
	if (me == 0)
		CHECK_MPI(MPI_Put(vals, STRIDE_INTS, MPI_INT, n - 1,
				  disp(w, n - 1, 64 + (size_t)n * REGION), 1,
				  vec, w->w));
	CHECK_MPI(MPI_Win_fence(0, w->w));
	CHECK(*(long *)w->mem == n, "counter %ld, want %d", *(long *)w->mem,
	      n);
	for (t = 0; t < n; t++)
		for (i = 0; i < REGION; i++) {
			/* the origin sent its second half first */
			size_t from = (size_t)((i + REGION / 2) % REGION);
			unsigned char want = pat(t, 0, from, seed);

			CHECK(((unsigned char *)w->mem)[64 + t * REGION + i] ==
				      want,
			      "region of %d byte %d", t, i);
		}
	if (me == n - 1) {
		int *a = (int *)(w->mem + 64 + (size_t)n * REGION);

		for (i = 0; i < 2 * STRIDE_INTS; i++)
			CHECK(a[i] == (i % 2 ? 0 : i / 2 + seed),
			      "strided int %d: %d", i, a[i]);
	}
	/* gets: my right neighbour's regions, all of them, in one call of
	 * a strided type per region... and the big area, twice */
	bigbuf = malloc(big);
	CHECK(bigbuf, "malloc");
	t = (me + 1) % n;
	for (i = 0; i < (int)big; i++)
		((unsigned char *)w->mem)[win_bytes(n) - big + i] =
			pat(me, 1, (size_t)i, seed);
	CHECK_MPI(MPI_Win_fence(0, w->w));
	CHECK_MPI(MPI_Get(bigbuf, (int)big, MPI_BYTE, t,
			  disp(w, t, win_bytes(n) - big), (int)big, MPI_BYTE,
			  w->w));
	CHECK_MPI(MPI_Get(src, REGION, MPI_BYTE, t, disp(w, t, 64),
			  REGION, MPI_BYTE, w->w));
	CHECK_MPI(MPI_Win_fence(0, w->w));
	for (i = 0; i < (int)big; i++)
		CHECK(bigbuf[i] == pat(t, 1, (size_t)i, seed),
		      "get from %d byte %d", t, i);
	for (i = 0; i < REGION; i++)
		CHECK(src[i] == pat(0, 0, (size_t)((i + REGION / 2) % REGION),
				    seed),
		      "region get byte %d", i);
	/* fetch_and_op and get_accumulate on everyone's counter; what we
	 * got of the big area goes to the left neighbour's (over verbs,
	 * past rxe's 8 MiB a message when BYTES is) */
	for (t = 0; t < n && t < 8; t++)
		CHECK_MPI(MPI_Fetch_and_op(&one, &old[t], MPI_LONG, t,
					   disp(w, t, 0), MPI_SUM, w->w));
	t = (me + n - 1) % n;
	CHECK_MPI(MPI_Put(bigbuf, (int)big, MPI_BYTE, t,
			  disp(w, t, win_bytes(n) - big), (int)big, MPI_BYTE,
			  w->w));
	CHECK_MPI(MPI_Win_fence(0, w->w));
	for (i = 0; i < (int)big; i++)
		CHECK(((unsigned char *)w->mem)[win_bytes(n) - big + i] ==
			      pat((me + 2) % n, 1, (size_t)i, seed),
		      "put from %d byte %d", (me + 1) % n, i);
	CHECK(*(long *)w->mem == n + (me < 8 ? n : 0), "counter %ld",
	      *(long *)w->mem);
	for (t = 0; t < n && t < 8; t++)
		CHECK(old[t] >= n && old[t] < 2 * n, "fetched %ld", old[t]);
	CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->w));
	free(bigbuf);
	MPI_Type_free(&vec);
	MPI_Type_free(&blocks);
}

/* ---- post/start/complete/wait: a ring, and everyone to rank 0 ------------ */
static void t_pscw(struct win *w, int seed)
{
	int n = w->size, me = w->rank, left = (me + n - 1) % n,
	    right = (me + 1) % n, v = me + seed, flag = 0, i;
	MPI_Group wg, lg, rg, all;

	MPI_Win_get_group(w->w, &wg);
	MPI_Group_incl(wg, 1, &left, &lg);
	MPI_Group_incl(wg, 1, &right, &rg);
	CHECK_MPI(MPI_Win_post(lg, 0, w->w));
	CHECK_MPI(MPI_Win_start(rg, 0, w->w));
	CHECK_MPI(MPI_Put(&v, 1, MPI_INT, right, disp(w, right, 8), 1, MPI_INT,
			  w->w));
	CHECK_MPI(MPI_Win_complete(w->w));
	CHECK_MPI(MPI_Win_wait(w->w));
	CHECK(*(int *)(w->mem + 8) == left + seed, "ring got %d from %d",
	      *(int *)(w->mem + 8), left);
	/* everyone accumulates into rank 0, which polls MPI_Win_test */
	all = wg;
	if (me == 0) {
		int others = n - 1;
		int *ranks = malloc(sizeof(int) *
				    (size_t)(others ? others : 1));

		for (i = 0; i < others; i++)
			ranks[i] = i + 1;
		MPI_Group_incl(wg, others, ranks, &all);
		free(ranks);
		*(int *)(w->mem + 12) = 0;
		CHECK_MPI(MPI_Win_post(all, MPI_MODE_NOSTORE, w->w));
		while (!flag)
			CHECK_MPI(MPI_Win_test(w->w, &flag));
		CHECK(*(int *)(w->mem + 12) == n * (n - 1) / 2,
		      "sum %d", *(int *)(w->mem + 12));
		MPI_Group_free(&all);
	} else {
		int zero = 0;
		MPI_Group g0;

		MPI_Group_incl(wg, 1, &zero, &g0);
		CHECK_MPI(MPI_Win_start(g0, 0, w->w));
		CHECK_MPI(MPI_Accumulate(&me, 1, MPI_INT, 0, disp(w, 0, 12), 1,
					 MPI_INT, MPI_SUM, w->w));
		CHECK_MPI(MPI_Win_complete(w->w));
		MPI_Group_free(&g0);
	}
	MPI_Group_free(&lg);
	MPI_Group_free(&rg);
	MPI_Group_free(&wg);
	MPI_Barrier(w->comm);
}

/* ---- passive target ------------------------------------------------------ */
static void t_passive(struct win *w, int seed)
{
	int n = w->size, me = w->rank, t, i;
	long vals[512], got[512], one = 1, res = -1, cmp, swp;
	MPI_Request rq[4];

	/* exclusive: each rank in turn adds to rank 0's long at 16 */
	for (i = 0; i < 20; i++) {
		long v;

		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->w));
		CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, 0, disp(w, 0, 16), 1,
				  MPI_LONG, w->w));
		CHECK_MPI(MPI_Win_flush(0, w->w));
		v++;
		CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, disp(w, 0, 16), 1,
				  MPI_LONG, w->w));
		CHECK_MPI(MPI_Win_unlock(0, w->w));
	}
	MPI_Barrier(w->comm);
	if (me == 0) {
		/* my own window: lock myself to read it */
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->w));
		CHECK(*(long *)(w->mem + 16) == 20L * n, "locked counter %ld",
		      *(long *)(w->mem + 16));
		CHECK_MPI(MPI_Win_unlock(0, w->w));
	}
	/* lock_all: request-based operations to the right neighbour's
	 * region of mine, flushes in between */
	t = (me + 1) % n;
	for (i = 0; i < 512; i++)
		vals[i] = me * 10000 + i + seed;
	CHECK_MPI(MPI_Win_lock_all(0, w->w));
	CHECK_MPI(MPI_Rput(vals, 512, MPI_LONG, t,
			   disp(w, t, 64 + (size_t)me * REGION), 512, MPI_LONG,
			   w->w, &rq[0]));
	CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
	memset(vals, 0, sizeof(vals));	/* locally complete */
	CHECK_MPI(MPI_Win_flush_local(t, w->w));
	CHECK_MPI(MPI_Win_flush(t, w->w));
	CHECK_MPI(MPI_Raccumulate(&one, 1, MPI_LONG, t,
				  disp(w, t, 64 + (size_t)me * REGION), 1,
				  MPI_LONG, MPI_SUM, w->w, &rq[1]));
	CHECK_MPI(MPI_Rget_accumulate(&one, 1, MPI_LONG, &res, 1, MPI_LONG, t,
				      disp(w, t, 64 + (size_t)me * REGION + 8),
				      1, MPI_LONG, MPI_SUM, w->w, &rq[2]));
	/* remotely complete before the get reads them */
	CHECK_MPI(MPI_Win_flush(t, w->w));
	CHECK_MPI(MPI_Rget(got, 512, MPI_LONG, t,
			   disp(w, t, 64 + (size_t)me * REGION), 512, MPI_LONG,
			   w->w, &rq[3]));
	CHECK_MPI(MPI_Waitall(3, &rq[1], MPI_STATUSES_IGNORE));
	CHECK(res == me * 10000 + 1 + seed, "get_accumulate gave %ld", res);
	CHECK(got[0] == me * 10000 + seed + 1 && got[1] == me * 10000 + 2 +
		      seed && got[511] == me * 10000 + 511 + seed,
	      "rget %ld %ld %ld", got[0], got[1], got[511]);
	/* compare_and_swap: swap the element at 0 of the region back */
	cmp = me * 10000 + seed + 1;
	swp = -1;
	CHECK_MPI(MPI_Compare_and_swap(&swp, &cmp, &res, MPI_LONG, t,
				       disp(w, t, 64 + (size_t)me * REGION),
				       w->w));
	CHECK_MPI(MPI_Win_flush_all(w->w));
	CHECK(res == cmp, "compare_and_swap found %ld", res);
	CHECK_MPI(MPI_Win_flush_local_all(w->w));
	CHECK_MPI(MPI_Win_unlock_all(w->w));
	MPI_Barrier(w->comm);
	CHECK_MPI(MPI_Win_sync(w->w));
	{
		long *r = (long *)(w->mem + 64 + (size_t)((me + n - 1) % n) *
						       REGION);
		int from = (me + n - 1) % n;

		CHECK(r[0] == -1 && r[1] == from * 10000 + 2 + seed &&
			      r[511] == from * 10000 + 511 + seed,
		      "region of %d: %ld %ld %ld", from, r[0], r[1], r[511]);
	}
	MPI_Barrier(w->comm);
}

/* ---- a shared window: load and store ------------------------------------- */
static void t_shared(struct win *w)
{
	int n = w->size, me = w->rank, t, du;
	MPI_Aint sz;
	char *p, *prev = NULL;

	for (t = 0; t < n; t++) {
		CHECK_MPI(MPI_Win_shared_query(w->w, t, &sz, &du, &p));
		CHECK(sz == (MPI_Aint)win_bytes(n) && du == 1, "query %d", t);
		CHECK(!prev || p == prev + sz, "not contiguous at %d", t);
		prev = p;
	}
	CHECK_MPI(MPI_Win_lock_all(0, w->w));
	CHECK_MPI(MPI_Win_shared_query(w->w, (me + 1) % n, &sz, &du, &p));
	/* a store into my neighbour's memory, a load of my own */
	*(int *)(p + 24) = 5000 + me;
	CHECK_MPI(MPI_Win_sync(w->w));
	MPI_Barrier(w->comm);
	CHECK_MPI(MPI_Win_sync(w->w));
	CHECK(*(int *)(w->mem + 24) == 5000 + (me + n - 1) % n,
	      "shared load: %d", *(int *)(w->mem + 24));
	CHECK_MPI(MPI_Win_unlock_all(w->w));
	MPI_Barrier(w->comm);
}

static void run(int flavor, MPI_Comm comm, int seed)
{
	struct win w;

	win_open(&w, flavor, comm);
	t_fence(&w, seed);
	t_pscw(&w, seed);
	t_passive(&w, seed);
	if (flavor == MPI_WIN_FLAVOR_SHARED)
		t_shared(&w);
	win_close(&w);
}

int main(int argc, char **argv)
{
	MPI_Comm node;
	int nsize, ret, cls;
	MPI_Win w;
	void *p;
	char name[MPI_MAX_OBJECT_NAME];
	MPI_Errhandler eh;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		big = (size_t)atol(argv[1]);
	run(MPI_WIN_FLAVOR_CREATE, MPI_COMM_WORLD, 1);
	run(MPI_WIN_FLAVOR_ALLOCATE, MPI_COMM_WORLD, 2);
	run(MPI_WIN_FLAVOR_DYNAMIC, MPI_COMM_WORLD, 3);
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
			    MPI_INFO_NULL, &node);
	run(MPI_WIN_FLAVOR_SHARED, node, 4);
	MPI_Comm_size(node, &nsize);
	/* across nodes, no shared window over the world */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	ret = MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &p,
				      &w);
	MPI_Error_class(ret, &cls);
	if (nsize < size) {
		CHECK(cls == MPI_ERR_RMA_SHARED, "class %d across nodes", cls);
	} else {
		CHECK(ret == MPI_SUCCESS, "allocate_shared over the node");
		/* names and handlers */
		CHECK_MPI(MPI_Win_get_name(w, name, &ret));
		CHECK(ret == 0, "default name '%s'", name);
		CHECK_MPI(MPI_Win_set_name(w, "counters"));
		CHECK_MPI(MPI_Win_get_name(w, name, &ret));
		CHECK(!strcmp(name, "counters") && ret == 8, "name '%s'", name);
		CHECK_MPI(MPI_Win_get_errhandler(w, &eh));
		CHECK(eh == MPI_ERRORS_ARE_FATAL, "default handler");
		CHECK_MPI(MPI_Win_free(&w));
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_free(&node);
	MPI_Finalize();
	if (rank == 0)
		printf("rma_ops: %d ranks OK\n", size);
	return 0;
}
