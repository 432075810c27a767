/*
 * nbr_common.c - see nbr_common.h.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_common.h"
#include "nbr_common.h"

#define MAXDIM 8

static const char *const names[] = {
	[NBR_ALLGATHER] = "Neighbor_allgather",
	[NBR_ALLGATHERV] = "Neighbor_allgatherv",
	[NBR_ALLTOALL] = "Neighbor_alltoall",
	[NBR_ALLTOALLV] = "Neighbor_alltoallv",
	[NBR_ALLTOALLW] = "Neighbor_alltoallw",
};

/* Every rank's neighbour lists (the benchmark validates with them). */
struct hood {
	int n;
	int *nin, *nout; /* by rank */
	int **in, **out;
	int ndims, dims[MAXDIM]; /* cart */
};

static void die(const struct bench *b, const char *msg, const char *arg)
{
	if (!b->rank)
		fprintf(stderr, "%s: %s%s\n", b->name, msg, arg ? arg : "");
	MPI_Finalize();
	exit(2);
}

static void push(int **list, int *n, int v)
{
	*list = realloc(*list, sizeof(int) * (size_t)(*n + 1));
	if (!*list) {
		fprintf(stderr, "out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	(*list)[(*n)++] = v;
}

/* cart:D:R - the displacements of [-R, R]^D but 0, lexicographic, on a
 * periodic grid; the same list in and out. */
static void cart(struct bench *b, struct hood *h, int d, int r)
{
	int x, i, disp[MAXDIM], co[MAXDIM];

	if (d < 1 || d > MAXDIM || r < 1)
		die(b, "-N cart:D:R needs 1 <= D <= 8 and R >= 1", NULL);
	h->ndims = d;
	for (i = 0; i < d; i++)
		h->dims[i] = 0;
	MPI_Dims_create(h->n, d, h->dims);
	for (x = 0; x < h->n; x++) {
		int rest = x;

		for (i = d - 1; i >= 0; i--) {
			co[i] = rest % h->dims[i];
			rest /= h->dims[i];
		}
		for (i = 0; i < d; i++)
			disp[i] = -r;
		for (;;) {
			int nb = 0, zero = 1;

			for (i = 0; i < d; i++) {
				int c = ((co[i] + disp[i]) % h->dims[i] +
					 h->dims[i]) %
					h->dims[i];

				nb = nb * h->dims[i] + c;
				zero &= !disp[i];
			}
			if (!zero && nb != x) {
				push(&h->out[x], &h->nout[x], nb);
				push(&h->in[x], &h->nin[x], nb);
			}
			for (i = d - 1; i >= 0 && disp[i] == r; i--)
				disp[i] = -r;
			if (i < 0)
				break;
			disp[i]++;
		}
	}
}

/* graph:FILE - "src,dst" lines. */
static void graph(struct bench *b, struct hood *h, const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int s, t;

	if (!f)
		die(b, "cannot read the graph file ", path);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || sscanf(line, "%d,%d", &s, &t) != 2)
			continue;
		if (s < 0 || t < 0 || s >= h->n || t >= h->n) {
			fclose(f);
			die(b, "the graph names more ranks than run: ", path);
		}
		push(&h->out[s], &h->nout[s], t);
		push(&h->in[t], &h->nin[t], s);
	}
	fclose(f);
}

static void hood_make(struct bench *b, struct hood *h)
{
	const char *spec = b->nhbr ? b->nhbr : "cart:1:1";
	int d, r;

	h->n = b->size;
	h->nin = calloc((size_t)h->n, sizeof(int));
	h->nout = calloc((size_t)h->n, sizeof(int));
	h->in = calloc((size_t)h->n, sizeof(int *));
	h->out = calloc((size_t)h->n, sizeof(int *));
	if (!h->nin || !h->nout || !h->in || !h->out)
		die(b, "out of memory", NULL);
	if (sscanf(spec, "cart:%d:%d", &d, &r) == 2)
		cart(b, h, d, r);
	else if (!strncmp(spec, "graph:", 6))
		graph(b, h, spec + 6);
	else
		die(b, "-N wants cart:D:R or graph:FILE, not ", spec);
}

static void hood_free(struct hood *h)
{
	int x;

	for (x = 0; x < h->n; x++) {
		free(h->in[x]);
		free(h->out[x]);
	}
	free(h->in);
	free(h->out);
	free(h->nin);
	free(h->nout);
}

/* The out-slot of sender p that my in-slot i pairs with: the k-th time p
 * is among my in-neighbours, the k-th time I am among its out-neighbours. */
static int from_slot(const struct hood *h, int me, int i)
{
	int p = h->in[me][i], k = 0, j;

	for (j = 0; j < i; j++)
		k += h->in[me][j] == p;
	for (j = 0; j < h->nout[p]; j++)
		if (h->out[p][j] == me && k-- == 0)
			return j;
	return -1;
}

static unsigned seed_of(int rank, int slot, int it)
{
	return (unsigned)(rank * 7919 + slot * 131 + it);
}

/* One call of the collective (nonblocking: started into *req). */
struct call {
	enum nbr_kind kind;
	MPI_Comm comm;
	size_t size;
	char *sb, *rb;
	int nin, nout;
	int *scnt, *sdsp, *rcnt, *rdsp;
	MPI_Aint *sbd, *rbd;
	MPI_Datatype *st, *rt;
};

static void start(const struct call *c, MPI_Request *req)
{
	int n = (int)c->size;

	switch (c->kind) {
	case NBR_ALLGATHER:
		if (req)
			MPI_Ineighbor_allgather(c->sb, n, MPI_CHAR, c->rb, n,
						MPI_CHAR, c->comm, req);
		else
			MPI_Neighbor_allgather(c->sb, n, MPI_CHAR, c->rb, n,
					       MPI_CHAR, c->comm);
		break;
	case NBR_ALLGATHERV:
		if (req)
			MPI_Ineighbor_allgatherv(c->sb, n, MPI_CHAR, c->rb,
						 c->rcnt, c->rdsp, MPI_CHAR,
						 c->comm, req);
		else
			MPI_Neighbor_allgatherv(c->sb, n, MPI_CHAR, c->rb,
						c->rcnt, c->rdsp, MPI_CHAR,
						c->comm);
		break;
	case NBR_ALLTOALL:
		if (req)
			MPI_Ineighbor_alltoall(c->sb, n, MPI_CHAR, c->rb, n,
					       MPI_CHAR, c->comm, req);
		else
			MPI_Neighbor_alltoall(c->sb, n, MPI_CHAR, c->rb, n,
					      MPI_CHAR, c->comm);
		break;
	case NBR_ALLTOALLV:
		if (req)
			MPI_Ineighbor_alltoallv(
				c->sb, c->scnt, c->sdsp, MPI_CHAR, c->rb,
				c->rcnt, c->rdsp, MPI_CHAR, c->comm, req);
		else
			MPI_Neighbor_alltoallv(c->sb, c->scnt, c->sdsp,
					       MPI_CHAR, c->rb, c->rcnt,
					       c->rdsp, MPI_CHAR, c->comm);
		break;
	case NBR_ALLTOALLW:
		if (req)
			MPI_Ineighbor_alltoallw(c->sb, c->scnt, c->sbd, c->st,
						c->rb, c->rcnt, c->rbd, c->rt,
						c->comm, req);
		else
			MPI_Neighbor_alltoallw(c->sb, c->scnt, c->sbd, c->st,
					       c->rb, c->rcnt, c->rbd, c->rt,
					       c->comm);
		break;
	}
}

static int gathers(enum nbr_kind k)
{
	return k == NBR_ALLGATHER || k == NBR_ALLGATHERV;
}

static void fill(const struct bench *b, const struct call *c, int it)
{
	int j;

	if (gathers(c->kind)) {
		bench_fill(c->sb, c->size, seed_of(b->rank, 0, it));
		return;
	}
	for (j = 0; j < c->nout; j++)
		bench_fill(c->sb + (size_t)j * c->size, c->size,
			   seed_of(b->rank, j, it));
}

static void check(struct bench *b, const struct hood *h, const struct call *c,
		  int it)
{
	int i;

	for (i = 0; i < c->nin; i++) {
		int p = h->in[b->rank][i];
		int j = gathers(c->kind) ? 0 : from_slot(h, b->rank, i);

		if (j < 0) {
			bench_fail(b, c->size, (size_t)i, -1, 0);
			continue;
		}
		bench_check(b, c->rb + (size_t)i * c->size, c->size,
			    seed_of(p, j, it), c->size);
	}
}

static MPI_Comm make_comm(struct bench *b, const struct hood *h)
{
	MPI_Comm comm;
	double t, sum;
	int me = b->rank, i,
	    n = h->nin[me] > h->nout[me] ? h->nin[me] : h->nout[me];
	int *w = malloc(sizeof(int) * (size_t)(n + 1));

	/* weights of 1, as OSU gives */
	if (!w)
		die(b, "out of memory", NULL);
	for (i = 0; i < n; i++)
		w[i] = 1;
	t = MPI_Wtime();
	MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, h->nin[me], h->in[me], w,
				       h->nout[me], h->out[me], w,
				       MPI_INFO_NULL, 0, &comm);
	t = MPI_Wtime() - t;
	free(w);
	MPI_Reduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (!b->rank) {
		if (h->ndims) {
			printf("# Dimensions size =");
			for (i = 0; i < h->ndims; i++)
				printf(" %d", h->dims[i]);
			printf("\n");
		}
		printf("# Neighbours of rank 0: %d in, %d out\n", h->nin[0],
		       h->nout[0]);
		printf("# Time took to create topology graph: %.2f us\n",
		       sum * 1e6 / b->size);
	}
	return comm;
}

static void run_blocking(struct bench *b, const struct hood *h, struct call *c)
{
	int it = bench_iters(b, c->size), wu = bench_warmup(b, c->size), i;
	double total = 0, t0;

	for (i = 0; i < it + wu; i++) {
		if (b->validate)
			fill(b, c, i);
		t0 = MPI_Wtime();
		start(c, NULL);
		if (i >= wu)
			total += bench_lap(b, i - wu, MPI_Wtime() - t0);
		if (b->validate)
			check(b, h, c, i);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	bench_report(b, c->size, total, it);
}

/* OSU's nonblocking measurement: the call alone (pure communication),
 * then the call around a dummy computation as long as that. */
static void run_nonblocking(struct bench *b, const struct hood *h,
			    struct call *c)
{
	int it = bench_iters(b, c->size), wu = bench_warmup(b, c->size), i;
	double pure = 0, overall = 0, compute = 0, t0, tc;
	MPI_Request req;

	for (i = 0; i < it + wu; i++) {
		if (b->validate)
			fill(b, c, i);
		t0 = MPI_Wtime();
		start(c, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		if (i >= wu)
			pure += MPI_Wtime() - t0;
		if (b->validate)
			check(b, h, c, i);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	pure /= it;
	for (i = 0; i < it + wu; i++) {
		t0 = MPI_Wtime();
		start(c, &req);
		tc = bench_compute(pure, b->ntest, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		if (i >= wu) {
			overall += MPI_Wtime() - t0;
			compute += tc;
		}
		MPI_Barrier(MPI_COMM_WORLD);
	}
	bench_nbc_report(b, c->size, overall / it, compute / it, pure);
}

int nbr_main(int argc, char **argv, enum nbr_kind kind, int nonblocking)
{
	struct bench b;
	struct hood h;
	struct call c;
	char title[128];
	int i, n;

	snprintf(title, sizeof(title),
		 "%s%s latency (MPI_CHAR, size per "
		 "neighbour)",
		 nonblocking ? "Non-blocking " : "", names[kind]);
	if (nonblocking)
		bench_init_nbc(&b, &argc, &argv, title);
	else
		bench_init(&b, &argc, &argv, title, 1, 1);
	memset(&h, 0, sizeof(h));
	hood_make(&b, &h);
	memset(&c, 0, sizeof(c));
	c.kind = kind;
	c.comm = make_comm(&b, &h);
	c.nin = h.nin[b.rank];
	c.nout = h.nout[b.rank];
	n = c.nin > c.nout ? c.nin : c.nout;
	c.sb = bench_alloc(b.max * (size_t)(c.nout ? c.nout : 1));
	c.rb = bench_alloc(b.max * (size_t)(c.nin ? c.nin : 1));
	c.scnt = calloc((size_t)n + 1, sizeof(int));
	c.sdsp = calloc((size_t)n + 1, sizeof(int));
	c.rcnt = calloc((size_t)n + 1, sizeof(int));
	c.rdsp = calloc((size_t)n + 1, sizeof(int));
	c.sbd = calloc((size_t)n + 1, sizeof(MPI_Aint));
	c.rbd = calloc((size_t)n + 1, sizeof(MPI_Aint));
	c.st = calloc((size_t)n + 1, sizeof(MPI_Datatype));
	c.rt = calloc((size_t)n + 1, sizeof(MPI_Datatype));
	if (!c.scnt || !c.sdsp || !c.rcnt || !c.rdsp || !c.sbd || !c.rbd ||
	    !c.st || !c.rt)
		die(&b, "out of memory", NULL);
	for (c.size = b.min; c.size <= b.max; c.size *= 2) {
		for (i = 0; i < n; i++) {
			c.scnt[i] = c.rcnt[i] = (int)c.size;
			c.sdsp[i] = c.rdsp[i] = i * (int)c.size;
			c.sbd[i] = c.rbd[i] = (MPI_Aint)i * (MPI_Aint)c.size;
			c.st[i] = c.rt[i] = MPI_CHAR;
		}
		if (nonblocking)
			run_nonblocking(&b, &h, &c);
		else
			run_blocking(&b, &h, &c);
	}
	MPI_Comm_free(&c.comm);
	free(c.sb);
	free(c.rb);
	free(c.scnt);
	free(c.sdsp);
	free(c.rcnt);
	free(c.rdsp);
	free(c.sbd);
	free(c.rbd);
	free(c.st);
	free(c.rt);
	hood_free(&h);
	return bench_finish(&b);
}
