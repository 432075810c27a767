/*
 * test_nbr.c - process topologies and neighbourhood collectives.
 *
 * Arithmetic (no communication): Cartesian shifts and neighbour slots
 * (periodic and not, dimensions of size 1 and 2, where one process is a
 * neighbour twice or is its own), graph neighbours, repeated edges and
 * self-loops, the slots' tag offsets, MPI_Graph_create's array checks.
 *
 * Over the in-process fabric (world.h): MPI_Graph_create (ranks past
 * nnodes get MPI_COMM_NULL), MPI_Dist_graph_create_adjacent and
 * MPI_Dist_graph_create (every rank's edges routed to both ends, weights
 * kept, the agreed tag count), dup of each kind; then every
 * neighbourhood collective on every topology - Cartesian rings of 1..5
 * and grids with dimensions of 1 and 2, periodic and not, graphs with
 * repeated edges and self-loops, asymmetric distributed graphs - with
 * counts 0, 1, 7 and 300 and receive buffers with holes: every block
 * must come from the neighbour, and the sender's slot, that the standard
 * names, computed here independently (MPI-4.1 §8.6: Cartesian blocks
 * cross between the -1 and +1 slots of a dimension; graphs pair the k-th
 * edge to a process with the k-th edge from it). Blocks of MPI_PROC_NULL
 * neighbours stay untouched.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll.h"
#include "coll_impl.h"
#include "comm.h"
#include "dtype.h"
#include "request.h"
#include "status.h"
#include "topo.h"
#include "world.h"

#define NMAX 8
#define DMAX 24
#define TMO 120

/* ---- arithmetic ---------------------------------------------------------- */

START_TEST(cart_arith)
{
	/* 3 x 2 x 1: periodic, non-periodic, periodic of size 1 */
	int dims[3] = {3, 2, 1}, per[3] = {1, 0, 1}, s, d, i;
	struct rc_topo *t;

	ck_assert_int_eq(rc_topo_cart_new(3, dims, per, 1, &t), RC_OK);
	ck_assert_int_eq(t->ntags, 6);
	ck_assert_int_eq(t->nin, 6);
	ck_assert_int_eq(t->nout, 6);
	/* rank 1 = (0, 1, 0): dim 0 wraps, dim 1 has no +1, dim 2 is me */
	rc_cart_shift(t, 1, 0, 1, &s, &d);
	ck_assert(s == 5 && d == 3);
	rc_cart_shift(t, 1, 1, 1, &s, &d);
	ck_assert(s == 0 && d == MPI_PROC_NULL);
	rc_cart_shift(t, 1, 2, 1, &s, &d);
	ck_assert(s == 1 && d == 1);
	rc_cart_shift(t, 1, 0, 4, &s, &d);
	ck_assert(s == 5 && d == 3);
	{
		int want[6] = {5, 3, 0, MPI_PROC_NULL, 1, 1};

		for (i = 0; i < 6; i++) {
			ck_assert_int_eq(t->nbr_in[i], want[i]);
			ck_assert_int_eq(t->nbr_out[i], want[i]);
			/* the block sent towards -1 lands in the +1 slot */
			ck_assert_int_eq(t->tag_in[i], i);
			ck_assert_int_eq(t->tag_out[i], i ^ 1);
		}
	}
	rc_topo_free(t);
	/* a ring of 2: both neighbours are the other rank */
	dims[0] = 2;
	ck_assert_int_eq(rc_topo_cart_new(1, dims, per, 0, &t), RC_OK);
	ck_assert(t->nbr_in[0] == 1 && t->nbr_in[1] == 1);
	rc_topo_free(t);
	/* zero dimensions: no neighbours */
	ck_assert_int_eq(rc_topo_cart_new(0, dims, per, 0, &t), RC_OK);
	ck_assert_int_eq(t->nin, 0);
	rc_topo_free(t);
}
END_TEST

START_TEST(graph_arith)
{
	/* 0: {1, 1, 0}, 1: {0, 0}, 2: {} (a repeated edge, a self-loop) */
	int index[3] = {3, 5, 5}, edges[5] = {1, 1, 0, 0, 0};
	struct rc_topo *t, *u;
	const int *g;
	int list[5] = {4, 2, 4, 4, 2};

	ck_assert_int_eq(rc_topo_multiplicity(list, 5), 3);
	ck_assert_int_eq(rc_topo_multiplicity(list, 0), 0);
	ck_assert_int_eq(rc_topo_graph_new(3, index, edges, 0, &t), RC_OK);
	ck_assert_int_eq(t->nedges, 5);
	ck_assert_int_eq(t->ntags, 2);
	ck_assert_int_eq(rc_graph_nbrs(t, 1, &g), 2);
	ck_assert(g[0] == 0 && g[1] == 0);
	ck_assert_int_eq(rc_graph_nbrs(t, 2, &g), 0);
	/* my slots: 1 (1st), 1 (2nd), 0 (1st) */
	ck_assert(t->nin == 3 && t->nbr_in[2] == 0);
	ck_assert(t->tag_in[0] == 0 && t->tag_in[1] == 1 && t->tag_in[2] == 0);
	ck_assert_int_eq(rc_topo_copy(t, 1, &u), RC_OK);
	ck_assert(u->nin == 2 && u->tag_out[1] == 1);
	rc_topo_free(u);
	rc_topo_free(t);
	/* distributed: in {3, 3, 5}, out {} */
	{
		int in[3] = {3, 3, 5}, w[3] = {1, 2, 3};

		ck_assert_int_eq(
			rc_topo_dist_new(3, in, w, 0, NULL, NULL, true, 2, &t),
			RC_OK);
		ck_assert(t->tag_in[1] == 1 && t->inw[2] == 3);
		ck_assert_int_eq(rc_topo_copy(t, 7, &u), RC_OK);
		ck_assert(u->weighted && u->ntags == 2 && u->inw[1] == 2);
		rc_topo_free(u);
		rc_topo_free(t);
	}
}
END_TEST

/* ---- worlds -------------------------------------------------------------- */

static void wait_all(struct tw *tw, struct rc_req **req, int n)
{
	int r;

	for (r = 0; r < n; r++) {
		tw_wait(tw, req[r]);
		ck_assert_int_eq(req[r]->err, RC_OK);
		rc_req_free(req[r]);
	}
}

/* A topology communicator on every rank of tw (NULL past a graph's
 * nodes); spec: 'c' Cartesian, 'g' graph, 'a' distributed adjacent,
 * 'd' distributed (each rank names some edges of others). */
struct topo_spec {
	char kind;
	int ndims, dims[3], periods[3];
	/* graph: nnodes, index, edges */
	int nnodes, index[NMAX], edges[DMAX];
	/* distributed: rank r's in and out lists (adjacent), or the edges
	 * rank r names (s, d) pairs (dist_graph_create) */
	int nin[NMAX], in[NMAX][DMAX], nout[NMAX], out[NMAX][DMAX];
	int nname[NMAX], name[NMAX][DMAX][2];
	const char *what;
};

static void build(struct tw *tw, const struct topo_spec *sp, struct rc_comm **c)
{
	struct rc_req *req[NMAX];
	int r, n = tw->n;

	for (r = 0; r < n; r++) {
		struct rc_comm *w = tw->inst[r]->world;
		int rc = RC_OK;

		switch (sp->kind) {
		case 'c':
			rc = rc_cart_create(w, sp->ndims, sp->dims, sp->periods,
					    &c[r], &req[r]);
			break;
		case 'g':
			rc = rc_graph_create(w, sp->nnodes, sp->index,
					     sp->edges, &c[r], &req[r]);
			break;
		case 'a': {
			int wi[DMAX], wo[DMAX], i;

			for (i = 0; i < sp->nin[r]; i++)
				wi[i] = sp->in[r][i] * 10 + r;
			for (i = 0; i < sp->nout[r]; i++)
				wo[i] = r * 10 + sp->out[r][i];
			rc = rc_dist_graph_adjacent(w, sp->nin[r], sp->in[r],
						    wi, sp->nout[r], sp->out[r],
						    wo, true, &c[r], &req[r]);
			break;
		}
		default: {
			/* rank r names its edges one source at a time */
			int src[DMAX], deg[DMAX], dst[DMAX], wt[DMAX], i;

			for (i = 0; i < sp->nname[r]; i++) {
				src[i] = sp->name[r][i][0];
				deg[i] = 1;
				dst[i] = sp->name[r][i][1];
				wt[i] = src[i] * 10 + dst[i];
			}
			rc = rc_dist_graph_create(w, sp->nname[r], src, deg,
						  dst, wt, true, &c[r],
						  &req[r]);
			break;
		}
		}
		ck_assert_int_eq(rc, RC_OK);
	}
	wait_all(tw, req, n);
}

/* ---- constructors -------------------------------------------------------- */

START_TEST(constructors)
{
	struct tw *tw = tw_open_new(5);
	struct rc_comm *c[NMAX], *d[NMAX];
	struct rc_req *req[NMAX];
	struct topo_spec g = {.kind = 'g',
			      .nnodes = 3,
			      .index = {2, 3, 5},
			      .edges = {1, 2, 0, 0, 0}};
	struct topo_spec dg = {.kind = 'd'};
	int r, i;

	/* graph over ranks 0..2; 3 and 4 get NULL */
	build(tw, &g, c);
	for (r = 0; r < 5; r++) {
		if (r >= 3) {
			ck_assert_ptr_null(c[r]);
			continue;
		}
		ck_assert_int_eq(c[r]->topo->kind, MPI_GRAPH);
		ck_assert_int_eq(c[r]->topo->nedges, 5);
		ck_assert_int_eq(c[r]->topo->ntags, 2);
		ck_assert_int_eq(c[r]->topo->nin, r == 0 ? 2 : r == 1 ? 1 : 2);
	}
	/* dup keeps it */
	for (r = 0; r < 3; r++)
		ck_assert_int_eq(rc_comm_dup(c[r], &d[r], &req[r]), RC_OK);
	wait_all(tw, req, 3);
	for (r = 0; r < 3; r++) {
		ck_assert_int_eq(d[r]->topo->kind, MPI_GRAPH);
		ck_assert_int_eq(d[r]->topo->nin, c[r]->topo->nin);
		rc_comm_release(d[r]);
		rc_comm_release(c[r]);
	}
	/* distributed, named by others: rank r names r -> r + 1 and
	 * (r + 2) -> r; rank 0 also names 3 -> 3 twice */
	for (r = 0; r < 5; r++) {
		dg.nname[r] = 2;
		dg.name[r][0][0] = r;
		dg.name[r][0][1] = (r + 1) % 5;
		dg.name[r][1][0] = (r + 2) % 5;
		dg.name[r][1][1] = r;
	}
	dg.nname[0] = 4;
	dg.name[0][2][0] = dg.name[0][2][1] = 3;
	dg.name[0][3][0] = dg.name[0][3][1] = 3;
	build(tw, &dg, c);
	for (r = 0; r < 5; r++) {
		struct rc_topo *t = c[r]->topo;
		int nin = 2 + (r == 3 ? 2 : 0), seen = 0;

		ck_assert_int_eq(t->kind, MPI_DIST_GRAPH);
		ck_assert(t->weighted);
		ck_assert_int_eq(t->indegree, nin);
		ck_assert_int_eq(t->outdegree, nin);
		ck_assert_int_eq(t->ntags, 2); /* 3 -> 3 twice */
		/* every in-edge's weight names its ends */
		for (i = 0; i < t->indegree; i++) {
			ck_assert_int_eq(t->inw[i], t->in[i] * 10 + r);
			seen += t->in[i] == (r + 4) % 5 ||
				t->in[i] == (r + 2) % 5 || t->in[i] == 3;
		}
		ck_assert_int_eq(seen, nin);
		for (i = 0; i < t->outdegree; i++)
			ck_assert_int_eq(t->outw[i], r * 10 + t->out[i]);
	}
	for (r = 0; r < 5; r++)
		ck_assert_int_eq(rc_comm_dup(c[r], &d[r], &req[r]), RC_OK);
	wait_all(tw, req, 5);
	for (r = 0; r < 5; r++) {
		ck_assert_int_eq(d[r]->topo->ntags, 2);
		ck_assert_int_eq(d[r]->topo->indegree, c[r]->topo->indegree);
		rc_comm_release(d[r]);
		rc_comm_release(c[r]);
	}
	tw_free(tw);
}
END_TEST

/* ---- neighbourhood collectives ------------------------------------------- */

static int val(int r, int slot, size_t pos, unsigned seed)
{
	return (int)(((unsigned)r << 24) ^ ((unsigned)slot << 16) ^
		     ((unsigned)pos * 2654435761u) ^ seed);
}

static struct rc_dtype *t_sint; /* an int with extent 8 */

static size_t span(size_t count, const struct rc_dtype *dt)
{
	if (!count)
		return 1;
	return (count - 1) * (size_t)rc_dt_extent(dt) + (size_t)dt->true_ub;
}

static void fill(void *buf, size_t count, struct rc_dtype *dt, int r, int slot,
		 unsigned seed)
{
	size_t n = count * dt->size / sizeof(int), j;
	int *s = tw_xmalloc(n * sizeof(int) + 1);

	for (j = 0; j < n; j++)
		s[j] = val(r, slot, j, seed);
	rc_dt_unpack(dt, count, buf, 0, s, n * sizeof(int));
	free(s);
}

static bool holds(const void *buf, size_t count, struct rc_dtype *dt, int r,
		  int slot, unsigned seed, int me, int myslot)
{
	size_t n = count * dt->size / sizeof(int), j;
	int *s = tw_xmalloc(n * sizeof(int) + 1);
	bool ok = true;

	rc_dt_pack(dt, count, buf, 0, s, n * sizeof(int));
	for (j = 0; j < n; j++)
		if (s[j] != val(r, slot, j, seed)) {
			ok = tw_note_fail(
				"rank %d slot %d: int %zu is not from "
				"rank %d's slot %d",
				me, myslot, j, r, slot);
			break;
		}
	free(s);
	return ok;
}

/* The sender's slot for receive slot i of rank me, by the standard's
 * rule (computed from the senders' own lists, not the library's tags). */
static int sender_slot(struct rc_comm **c, int me, int i)
{
	const struct rc_topo *t = c[me]->topo;
	const struct rc_topo *u;
	int p = t->nbr_in[i], k = 0, j;

	if (t->kind == MPI_CART)
		return i ^ 1;
	/* the k-th time p is among my in-neighbours ... */
	for (j = 0; j < i; j++)
		k += t->nbr_in[j] == p;
	/* ... pairs with the k-th time I am among p's out-neighbours */
	u = c[p]->topo;
	for (j = 0; j < u->nout; j++)
		if (u->nbr_out[j] == me && k-- == 0)
			return j;
	return -1;
}

/* Per-slot counts for the v / w variants: from (sender, slot). */
static size_t scnt(int r, int slot, size_t k)
{
	return ((size_t)r + (size_t)slot * 3) % 3 * k / 2 + (k ? 1 : 0);
}

static bool check_nbr(struct tw *tw, struct rc_comm **c, int coll, size_t k,
		      struct rc_dtype *rdt, unsigned seed)
{
	int n = tw->n, r, i;
	struct rc_cargs a[NMAX];
	struct rc_req *req[NMAX];
	void *sb[NMAX], *rb[NMAX];
	int rc[NMAX][DMAX], rd[NMAX][DMAX], sc[NMAX][DMAX], sd[NMAX][DMAX];
	MPI_Aint rbd[NMAX][DMAX], sbd[NMAX][DMAX];
	struct rc_dtype *rts[DMAX], *sts[DMAX];
	size_t rlen[NMAX];
	bool ok = true, v = coll == RC_COLL_NBR_ALLGATHERV ||
			    coll == RC_COLL_NBR_ALLTOALLV ||
			    coll == RC_COLL_NBR_ALLTOALLW;
	bool a2a =
		coll != RC_COLL_NBR_ALLGATHER && coll != RC_COLL_NBR_ALLGATHERV;

	for (i = 0; i < DMAX; i++) {
		rts[i] = rdt;
		sts[i] = &rc_mpi_int;
	}
	memset(a, 0, sizeof(a));
	for (r = 0; r < n; r++) {
		const struct rc_topo *t;
		size_t ro = 0, so = 0;

		sb[r] = rb[r] = NULL;
		if (!c[r])
			continue;
		t = c[r]->topo;
		/* receive blocks: the count its sender sends in that slot */
		for (i = 0; i < t->nin; i++) {
			int p = t->nbr_in[i], j;
			size_t cnt = k;

			if (v && p != MPI_PROC_NULL) {
				j = sender_slot(c, r, i);
				cnt = scnt(p, a2a ? j : 0, k);
			}
			rc[r][i] = (int)cnt;
			rd[r][i] = (int)ro;
			rbd[r][i] = (MPI_Aint)ro * rc_dt_extent(rdt);
			/* v and w: gaps between the blocks */
			ro += cnt + (v ? 1 : 0);
		}
		for (i = 0; i < t->nout; i++) {
			size_t cnt = v ? scnt(r, a2a ? i : 0, k) : k;

			sc[r][i] = (int)cnt;
			sd[r][i] = (int)so;
			sbd[r][i] = (MPI_Aint)so * (MPI_Aint)sizeof(int);
			so += a2a ? cnt + (v ? 1 : 0) : 0;
		}
		if (!a2a)
			so = v ? scnt(r, 0, k) : k;
		rlen[r] = span(ro, rdt);
		rb[r] = tw_xmalloc(rlen[r]);
		memset(rb[r], 0x77, rlen[r]);
		sb[r] = tw_xmalloc(span(so, &rc_mpi_int));
		if (a2a)
			for (i = 0; i < t->nout; i++)
				fill(rc_off(sb[r], (size_t)sd[r][i],
					    &rc_mpi_int),
				     (size_t)sc[r][i], &rc_mpi_int, r, i, seed);
		else
			fill(sb[r], so, &rc_mpi_int, r, 0, seed);
		a[r].sbuf = sb[r];
		a[r].rbuf = rb[r];
		a[r].sdt = &rc_mpi_int;
		a[r].rdt = rdt;
		a[r].scount = v ? scnt(r, 0, k) : k;
		a[r].rcount = k;
		a[r].scounts = sc[r];
		a[r].sdispls = sd[r];
		a[r].rcounts = rc[r];
		a[r].rdispls = rd[r];
		if (coll == RC_COLL_NBR_ALLTOALLW) {
			a[r].sdt = a[r].rdt = NULL;
			a[r].sdts = sts;
			a[r].rdts = rts;
			a[r].sbdispls = sbd[r];
			a[r].rbdispls = rbd[r];
		}
	}
	for (r = 0; r < n; r++)
		if (c[r])
			ck_assert_int_eq(
				rc_coll_start(c[r], coll, &a[r], &req[r]),
				RC_OK);
	for (r = n - 1; r >= 0; r--)
		if (c[r]) {
			tw_wait(tw, req[r]);
			if (req[r]->err)
				ok = tw_note_fail("rank %d: %s", r,
						  rc_status_str(req[r]->err));
			rc_req_free(req[r]);
		}
	for (r = 0; r < n && ok; r++) {
		const struct rc_topo *t;

		if (!c[r])
			continue;
		t = c[r]->topo;
		for (i = 0; i < t->nin && ok; i++) {
			int p = t->nbr_in[i], j;
			char *blk = rc_off(rb[r], (size_t)rd[r][i], rdt);

			if (p == MPI_PROC_NULL) {
				/* nothing lands in a PROC_NULL slot */
				size_t b, len = span((size_t)rc[r][i], rdt);

				for (b = 0; b < len && ok; b++)
					if ((unsigned char)blk[b] != 0x77)
						ok = tw_note_fail("rank %d: "
								  "PROC_NULL "
								  "slot %d "
								  "written",
								  r, i);
				continue;
			}
			j = sender_slot(c, r, i);
			if (j < 0)
				ok = tw_note_fail("rank %d slot %d: no sender",
						  r, i);
			else
				ok = holds(blk, (size_t)rc[r][i], rdt, p,
					   a2a ? j : 0, seed, r, i);
		}
	}
	for (r = 0; r < n; r++) {
		free(sb[r]);
		free(rb[r]);
	}
	return ok;
}

/* The topologies the collectives run on, by index. */
static void spec_of(int which, struct topo_spec *sp, int *n)
{
	int r, i;

	memset(sp, 0, sizeof(*sp));
	switch (which) {
	case 0: /* rings of 1, 2 and 3, periodic */
	case 1:
	case 2:
		sp->kind = 'c';
		sp->ndims = 1;
		sp->dims[0] = which + 1;
		sp->periods[0] = 1;
		*n = which + 1;
		sp->what = "periodic ring";
		return;
	case 3: /* a line of 4 (PROC_NULL ends) */
		sp->kind = 'c';
		sp->ndims = 1;
		sp->dims[0] = 4;
		*n = 4;
		sp->what = "line";
		return;
	case 4: /* 2 x 1 x 3: periodic 2, periodic 1, non-periodic 3 */
		sp->kind = 'c';
		sp->ndims = 3;
		sp->dims[0] = 2;
		sp->dims[1] = 1;
		sp->dims[2] = 3;
		sp->periods[0] = sp->periods[1] = 1;
		*n = 7; /* rank 6 is outside the grid */
		sp->what = "2x1x3 grid";
		return;
	case 5: /* graph: repeated edges and a self-loop, symmetric */
		sp->kind = 'g';
		sp->nnodes = 4;
		/* 0: 1 1 2, 1: 0 0 3, 2: 0 2 2, 3: 1 */
		sp->index[0] = 3;
		sp->index[1] = 6;
		sp->index[2] = 9;
		sp->index[3] = 10;
		{
			static const int e[10] = {1, 1, 2, 0, 0, 3, 0, 2, 2, 1};

			memcpy(sp->edges, e, sizeof(e));
		}
		*n = 5;
		sp->what = "graph";
		return;
	case 6: /* adjacent distributed: in = r-1, r-1, r+2; out matching */
	default:
		sp->kind = which == 6 ? 'a' : 'd';
		*n = 6;
		for (r = 0; r < 6; r++) {
			sp->nin[r] = 3;
			sp->in[r][0] = (r + 5) % 6;
			sp->in[r][1] = (r + 5) % 6;
			sp->in[r][2] = (r + 2) % 6;
			sp->nout[r] = 3;
			sp->out[r][0] = (r + 1) % 6;
			sp->out[r][1] = (r + 4) % 6;
			sp->out[r][2] = (r + 1) % 6;
		}
		/* named by someone else: r names the out-edges of r + 3 */
		for (r = 0; r < 6; r++) {
			int s = (r + 3) % 6;

			sp->nname[r] = 3;
			for (i = 0; i < 3; i++) {
				sp->name[r][i][0] = s;
				sp->name[r][i][1] = sp->out[s][i];
			}
		}
		sp->what = which == 6 ? "adjacent dist graph" : "dist graph";
		return;
	}
}

#define NSPEC 8

/* Neighbourhood collective `_i` on every topology. */
START_TEST(every_topology)
{
	static const size_t counts[] = {0, 1, 7, 300};
	int coll = RC_COLL_NBR_ALLGATHER + _i, which, ci, lay, r;

	ck_assert_int_eq(rc_dt_create_resized(&rc_mpi_int, 0, 8, &t_sint),
			 RC_OK);
	rc_dt_commit(t_sint);
	for (which = 0; which < NSPEC; which++) {
		struct topo_spec sp;
		struct rc_comm *c[NMAX];
		struct tw *tw;
		int n;

		spec_of(which, &sp, &n);
		tw = tw_open_new(n);
		build(tw, &sp, c);
		for (ci = 0; ci < 4; ci++)
			for (lay = 0; lay < 2; lay++) {
				tw_verdict[0] = 0;
				check_nbr(tw, c, coll, counts[ci],
					  lay ? t_sint : &rc_mpi_int,
					  (unsigned)(which * 17 + ci));
				ck_assert_msg(!tw_verdict[0],
					      "%s on %s, count %zu, layout "
					      "%d: %s",
					      rc_coll_name(coll), sp.what,
					      counts[ci], lay, tw_verdict);
			}
		for (r = 0; r < n; r++)
			if (c[r])
				rc_comm_release(c[r]);
		tw_free(tw);
	}
	rc_dt_release(t_sint);
}
END_TEST

/* Overlapping nonblocking neighbourhood collectives on one topology and
 * its dup, waited in reverse order (their tags must not mix). */
START_TEST(overlapping)
{
	struct topo_spec sp;
	struct rc_comm *c[NMAX], *d[NMAX], *x[NMAX];
	struct rc_req *req[NMAX][3];
	int n, r, it, i;

	spec_of(1, &sp, &n); /* ring of 2: both slots the same peer */
	n = 2;
	{
		struct tw *tw = tw_open_new(n);

		build(tw, &sp, c);
		for (r = 0; r < n; r++)
			ck_assert_int_eq(rc_comm_dup(c[r], &d[r], &req[r][0]),
					 RC_OK);
		for (r = 0; r < n; r++) {
			tw_wait(tw, req[r][0]);
			rc_req_free(req[r][0]);
		}
		for (it = 0; it < 4; it++) {
			int sbuf[NMAX][2], rbuf[NMAX][3][2];

			for (r = 0; r < n; r++) {
				struct rc_cargs a;

				sbuf[r][0] = r * 100 + it;
				sbuf[r][1] = r * 100 + 50 + it;
				for (i = 0; i < 3; i++) {
					memset(&a, 0, sizeof(a));
					x[r] = i == 1 ? d[r] : c[r];
					a.sbuf = sbuf[r];
					a.scount = 1;
					a.sdt = &rc_mpi_int;
					a.rbuf = rbuf[r][i];
					a.rcount = 1;
					a.rdt = &rc_mpi_int;
					ck_assert_int_eq(
						rc_coll_start(
							x[r],
							RC_COLL_NBR_ALLTOALL,
							&a, &req[r][i]),
						RC_OK);
				}
			}
			for (i = 2; i >= 0; i--)
				for (r = n - 1; r >= 0; r--) {
					tw_wait(tw, req[r][i]);
					ck_assert_int_eq(req[r][i]->err, RC_OK);
					rc_req_free(req[r][i]);
				}
			/* slot 0 (-1) gets the peer's +1 block, slot 1 its
			 * -1 block */
			for (r = 0; r < n; r++)
				for (i = 0; i < 3; i++) {
					int p = 1 - r;

					ck_assert_int_eq(rbuf[r][i][0],
							 p * 100 + 50 + it);
					ck_assert_int_eq(rbuf[r][i][1],
							 p * 100 + it);
				}
		}
		for (r = 0; r < n; r++) {
			rc_comm_release(d[r]);
			rc_comm_release(c[r]);
		}
		tw_free(tw);
	}
}
END_TEST

static Suite *nbr_suite(void)
{
	Suite *s = suite_create("nbr");
	TCase *tc;

	tc = tcase_create("arith");
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, cart_arith);
	tcase_add_test(tc, graph_arith);
	suite_add_tcase(s, tc);
	tc = tcase_create("fabric");
	tcase_set_timeout(tc, TMO);
	tcase_add_test(tc, constructors);
	tcase_add_loop_test(tc, every_topology, 0,
			    RC_COLL_NBR_ALLTOALLW - RC_COLL_NBR_ALLGATHER + 1);
	tcase_add_test(tc, overlapping);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(nbr_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
