/*
 * coll_inter.c - every collective, blocking and nonblocking, over every
 * communicator the test-suite-style library (commsuite.h) hands out:
 * intracommunicators of every shape (dups, splits, MPI_Comm_create_group,
 * merges) and intercommunicators (halves, odd/even, one against the rest
 * and back, dup, idup, split, create, over create_group groups). On an
 * intercommunicator the rooted collectives run with MPI_ROOT /
 * MPI_PROC_NULL in the root's group (whose other buffers must stay
 * untouched) and every result comes from the other group; MPI_Scan and
 * MPI_Exscan must fail there with MPI_ERR_COMM, MPI_IN_PLACE with
 * MPI_ERR_BUFFER; point-to-point across must name the remote group.
 * Small messages and ones that go by rendezvous. Standard MPI only.
 *
 * Exit status: 0 when every check passed on every rank, 1 otherwise.
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commsuite.h"
#include "jobs.h"

static int rank, size, errors;

#define RUN(nb, blocking, ...)                                        \
	do {                                                          \
		if (nb) {                                             \
			MPI_Request rq_;                              \
			CHECK_MPI(__VA_ARGS__);                       \
			CHECK_MPI(MPI_Wait(&rq_, MPI_STATUS_IGNORE)); \
		} else {                                              \
			CHECK_MPI(blocking);                          \
		}                                                     \
	} while (0)

struct view {
	MPI_Comm c;
	bool inter;
	int r, n, m;  /* my rank, local size, peers' size */
	int *lw, *pw; /* world ranks: local group, peers */
	bool a;	      /* inter: in the group of the root */
};

static int *world_of(MPI_Group g, int n)
{
	MPI_Group wg;
	int *in = malloc(sizeof(int) * (size_t)(n + 1));
	int *out = malloc(sizeof(int) * (size_t)(n + 1)), i;

	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	for (i = 0; i < n; i++)
		in[i] = i;
	MPI_Group_translate_ranks(g, n, in, wg, out);
	MPI_Group_free(&wg);
	free(in);
	return out;
}

static void view_of(MPI_Comm c, struct view *v)
{
	MPI_Group g;
	int flag;

	v->c = c;
	MPI_Comm_test_inter(c, &flag);
	v->inter = flag;
	MPI_Comm_rank(c, &v->r);
	MPI_Comm_size(c, &v->n);
	MPI_Comm_group(c, &g);
	v->lw = world_of(g, v->n);
	MPI_Group_free(&g);
	if (v->inter) {
		MPI_Comm_remote_size(c, &v->m);
		MPI_Comm_remote_group(c, &g);
		v->pw = world_of(g, v->m);
		MPI_Group_free(&g);
		/* the root's group: the one whose leader is lower in world */
		v->a = v->lw[0] < v->pw[0];
	} else {
		v->m = v->n;
		v->pw = v->lw;
		v->a = true;
	}
}

/* The root argument: intra rank n - 1; inter: rank 0 of group a. */
static int root_of(const struct view *v)
{
	if (!v->inter)
		return v->n - 1;
	if (!v->a)
		return 0;
	return v->r == 0 ? MPI_ROOT : MPI_PROC_NULL;
}

static bool is_root(const struct view *v)
{
	return v->inter ? v->a && v->r == 0 : v->r == v->n - 1;
}

/* Does this rank receive in a rooted "to everyone" collective? */
static bool receives(const struct view *v)
{
	return !v->inter || !v->a;
}

/* A sender's contribution: a function of its world rank. */
static int cv(int w, int i)
{
	return w * 1000 + i;
}

static void run_all(const struct view *v, int k, bool nb, const char *name)
{
	MPI_Comm c = v->c;
	int root = root_of(v), n = v->n, m = v->m, i, j, e, sum, d;
	int me = rank, *a, *b, *cnt, *dsp, *scnt, *sdsp;
	size_t big = (size_t)k * (size_t)(n + 4) * (size_t)(m + 4) + 64;
	bool nullr = v->inter && v->a && v->r != 0; /* MPI_PROC_NULL */

	a = malloc(big * sizeof(int));
	b = malloc(big * sizeof(int));
	cnt = malloc(sizeof(int) * (size_t)(m + n));
	dsp = malloc(sizeof(int) * (size_t)(m + n));
	scnt = malloc(sizeof(int) * (size_t)(m + n));
	sdsp = malloc(sizeof(int) * (size_t)(m + n));

	RUN(nb, MPI_Barrier(c), MPI_Ibarrier(c, &rq_));

	/* bcast */
	for (i = 0; i < k; i++)
		b[i] = is_root(v) ? cv(me, i) : -1;
	RUN(nb, MPI_Bcast(b, k, MPI_INT, root, c),
	    MPI_Ibcast(b, k, MPI_INT, root, c, &rq_));
	for (i = 0; i < k; i++) {
		/* the root: local rank 0 of group a, or intra rank n - 1 */
		int rw = !v->inter ? v->lw[n - 1] : v->a ? v->lw[0] : v->pw[0];
		int want = nullr ? -1 : cv(rw, i);

		TALLY(b[i] == want, "%s: bcast [%d] %d != %d", name, i, b[i],
		      want);
		if (b[i] != want)
			break;
	}

	/* reduce: sum of the senders' contributions at the root */
	for (i = 0; i < k; i++) {
		a[i] = cv(me, i);
		b[i] = -1;
	}
	RUN(nb, MPI_Reduce(a, b, k, MPI_INT, MPI_SUM, root, c),
	    MPI_Ireduce(a, b, k, MPI_INT, MPI_SUM, root, c, &rq_));
	if (is_root(v))
		for (i = 0; i < k; i++) {
			for (j = 0, sum = 0; j < m; j++)
				sum += cv(v->pw[j], i);
			TALLY(b[i] == sum, "%s: reduce [%d]", name, i);
		}
	else
		TALLY(k == 0 || b[0] == -1, "%s: reduce wrote", name);

	/* allreduce: everyone gets the peers' sum */
	RUN(nb, MPI_Allreduce(a, b, k, MPI_INT, MPI_SUM, c),
	    MPI_Iallreduce(a, b, k, MPI_INT, MPI_SUM, c, &rq_));
	for (i = 0; i < k; i++) {
		for (j = 0, sum = 0; j < m; j++)
			sum += cv(v->pw[j], i);
		TALLY(b[i] == sum, "%s: allreduce [%d]", name, i);
	}

	/* gather, gatherv: block j from peer j */
	for (i = 0; i < k; i++)
		a[i] = cv(me, i);
	for (i = 0; i < k * m; i++)
		b[i] = -1;
	RUN(nb, MPI_Gather(a, k, MPI_INT, b, k, MPI_INT, root, c),
	    MPI_Igather(a, k, MPI_INT, b, k, MPI_INT, root, c, &rq_));
	if (is_root(v))
		for (j = 0; j < m; j++)
			for (i = 0; i < k; i++)
				TALLY(b[j * k + i] == cv(v->pw[j], i),
				      "%s: gather %d/%d", name, j, i);
	for (j = 0, d = 0; j < m; j++) {
		cnt[j] = (v->pw[j] % 3) * k / 2;
		dsp[j] = d;
		d += cnt[j] + 1;
	}
	for (i = 0; i < d; i++)
		b[i] = -1;
	RUN(nb,
	    MPI_Gatherv(a, (me % 3) * k / 2, MPI_INT, b, cnt, dsp, MPI_INT,
			root, c),
	    MPI_Igatherv(a, (me % 3) * k / 2, MPI_INT, b, cnt, dsp, MPI_INT,
			 root, c, &rq_));
	if (is_root(v))
		for (j = 0; j < m; j++)
			for (i = 0; i < cnt[j]; i++)
				TALLY(b[dsp[j] + i] == cv(v->pw[j], i),
				      "%s: gatherv %d/%d", name, j, i);

	/* scatter, scatterv: peer j gets block j */
	for (j = 0; j < m; j++)
		for (i = 0; i < k; i++)
			a[j * k + i] = cv(v->pw[j], i) + 7;
	for (i = 0; i < k; i++)
		b[i] = -1;
	RUN(nb, MPI_Scatter(a, k, MPI_INT, b, k, MPI_INT, root, c),
	    MPI_Iscatter(a, k, MPI_INT, b, k, MPI_INT, root, c, &rq_));
	for (i = 0; i < k; i++)
		TALLY(b[i] == (receives(v) ? cv(me, i) + 7 : -1),
		      "%s: scatter [%d]", name, i);
	for (j = 0; j < m; j++)
		for (i = 0; i < cnt[j]; i++)
			a[dsp[j] + i] = cv(v->pw[j], i) + 9;
	for (i = 0; i < k; i++)
		b[i] = -1;
	RUN(nb,
	    MPI_Scatterv(a, cnt, dsp, MPI_INT, b, (me % 3) * k / 2, MPI_INT,
			 root, c),
	    MPI_Iscatterv(a, cnt, dsp, MPI_INT, b, (me % 3) * k / 2, MPI_INT,
			  root, c, &rq_));
	if (receives(v))
		for (i = 0; i < (me % 3) * k / 2; i++)
			TALLY(b[i] == cv(me, i) + 9, "%s: scatterv [%d]", name,
			      i);

	/* allgather(v): block j from peer j */
	for (i = 0; i < k; i++)
		a[i] = cv(me, i);
	RUN(nb, MPI_Allgather(a, k, MPI_INT, b, k, MPI_INT, c),
	    MPI_Iallgather(a, k, MPI_INT, b, k, MPI_INT, c, &rq_));
	for (j = 0; j < m; j++)
		for (i = 0; i < k; i++)
			TALLY(b[j * k + i] == cv(v->pw[j], i),
			      "%s: allgather %d/%d", name, j, i);
	RUN(nb,
	    MPI_Allgatherv(a, (me % 3) * k / 2, MPI_INT, b, cnt, dsp, MPI_INT,
			   c),
	    MPI_Iallgatherv(a, (me % 3) * k / 2, MPI_INT, b, cnt, dsp, MPI_INT,
			    c, &rq_));
	for (j = 0; j < m; j++)
		for (i = 0; i < cnt[j]; i++)
			TALLY(b[dsp[j] + i] == cv(v->pw[j], i),
			      "%s: allgatherv %d/%d", name, j, i);

	/* alltoall(v): from peer j, its block for me */
	for (j = 0; j < m; j++)
		for (i = 0; i < k; i++)
			a[j * k + i] = cv(me, i) ^ (v->pw[j] << 20);
	RUN(nb, MPI_Alltoall(a, k, MPI_INT, b, k, MPI_INT, c),
	    MPI_Ialltoall(a, k, MPI_INT, b, k, MPI_INT, c, &rq_));
	for (j = 0; j < m; j++)
		for (i = 0; i < k; i++)
			TALLY(b[j * k + i] == (cv(v->pw[j], i) ^ (me << 20)),
			      "%s: alltoall %d/%d", name, j, i);
	for (j = 0, d = 0, e = 0; j < m; j++) {
		/* me -> peer j: (me + pw[j]) % 3 * k / 2 elements */
		scnt[j] = (me + v->pw[j]) % 3 * k / 2;
		sdsp[j] = e;
		e += scnt[j] + 2;
		cnt[j] = scnt[j];
		dsp[j] = d;
		d += cnt[j] + 1;
		for (i = 0; i < scnt[j]; i++)
			a[sdsp[j] + i] = cv(me, i) ^ (v->pw[j] << 20);
	}
	RUN(nb, MPI_Alltoallv(a, scnt, sdsp, MPI_INT, b, cnt, dsp, MPI_INT, c),
	    MPI_Ialltoallv(a, scnt, sdsp, MPI_INT, b, cnt, dsp, MPI_INT, c,
			   &rq_));
	for (j = 0; j < m; j++)
		for (i = 0; i < cnt[j]; i++)
			TALLY(b[dsp[j] + i] == (cv(v->pw[j], i) ^ (me << 20)),
			      "%s: alltoallv %d/%d", name, j, i);
	/* alltoallw: the same blocks by bytes, a type per peer (a derived
	 * type of one int for odd peers: the same signature) */
	{
		MPI_Datatype int1;
		MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * (size_t)m);
		MPI_Datatype *rt = malloc(sizeof(MPI_Datatype) * (size_t)m);
		int *wsc = malloc(sizeof(int) * 4 * (size_t)m);
		int *wsd = wsc + m, *wrc = wsd + m, *wrd = wrc + m;

		MPI_Type_contiguous(1, MPI_INT, &int1);
		MPI_Type_commit(&int1);
		for (j = 0; j < m; j++) {
			st[j] = v->pw[j] % 2 ? int1 : MPI_INT;
			wsc[j] = scnt[j];
			wsd[j] = sdsp[j] * (int)sizeof(int);
			rt[j] = MPI_INT;
			wrc[j] = cnt[j];
			wrd[j] = dsp[j] * (int)sizeof(int);
		}
		for (i = 0; i < d; i++)
			b[i] = -1;
		RUN(nb, MPI_Alltoallw(a, wsc, wsd, st, b, wrc, wrd, rt, c),
		    MPI_Ialltoallw(a, wsc, wsd, st, b, wrc, wrd, rt, c, &rq_));
		for (j = 0; j < m; j++)
			for (i = 0; i < cnt[j]; i++)
				TALLY(b[dsp[j] + i] ==
					      (cv(v->pw[j], i) ^ (me << 20)),
				      "%s: alltoallw %d/%d", name, j, i);
		MPI_Type_free(&int1);
		free(st);
		free(rt);
		free(wsc);
	}

	/* reduce_scatter(_block): my group's vectors have T = k * n * m
	 * elements; the peers' sum is scattered over my group */
	{
		int T = k * n * m, rc = k * m;

		for (e = 0; e < T; e++)
			a[e] = me + e;
		RUN(nb, MPI_Reduce_scatter_block(a, b, rc, MPI_INT, MPI_SUM, c),
		    MPI_Ireduce_scatter_block(a, b, rc, MPI_INT, MPI_SUM, c,
					      &rq_));
		for (j = 0, sum = 0; j < m; j++)
			sum += v->pw[j];
		for (i = 0; i < rc; i++)
			TALLY(b[i] == sum + m * (v->r * rc + i),
			      "%s: reduce_scatter_block [%d]", name, i);
		/* uneven counts over my group, zeros included */
		for (j = 0, d = 0; j < n - 1; j++) {
			cnt[j] = j % 2 ? 0 : T / n + T / (2 * n);
			if (d + cnt[j] > T)
				cnt[j] = T - d;
			d += cnt[j];
		}
		cnt[n - 1] = T - d;
		for (j = 0, d = 0; j < v->r; j++)
			d += cnt[j];
		RUN(nb, MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, c),
		    MPI_Ireduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, c, &rq_));
		for (i = 0; i < cnt[v->r]; i++)
			TALLY(b[i] == sum + m * (d + i),
			      "%s: reduce_scatter [%d]", name, i);
	}

	/* scan, exscan: intra only */
	for (i = 0; i < k; i++)
		a[i] = cv(me, i);
	if (v->inter) {
		TALLY(MPI_Scan(a, b, k, MPI_INT, MPI_SUM, c) == MPI_ERR_COMM,
		      "%s: scan on an intercommunicator", name);
		MPI_Request rq = MPI_REQUEST_NULL;

		TALLY(MPI_Iexscan(a, b, k, MPI_INT, MPI_SUM, c, &rq) ==
				      MPI_ERR_COMM &&
			      rq == MPI_REQUEST_NULL,
		      "%s: iexscan on an intercommunicator", name);
		TALLY(MPI_Allreduce(MPI_IN_PLACE, b, k, MPI_INT, MPI_SUM, c) ==
			      MPI_ERR_BUFFER,
		      "%s: MPI_IN_PLACE on an intercommunicator", name);
	} else {
		RUN(nb, MPI_Scan(a, b, k, MPI_INT, MPI_SUM, c),
		    MPI_Iscan(a, b, k, MPI_INT, MPI_SUM, c, &rq_));
		for (i = 0; i < k; i++) {
			for (j = 0, sum = 0; j <= v->r; j++)
				sum += cv(v->lw[j], i);
			TALLY(b[i] == sum, "%s: scan [%d]", name, i);
		}
		RUN(nb, MPI_Exscan(a, b, k, MPI_INT, MPI_SUM, c),
		    MPI_Iexscan(a, b, k, MPI_INT, MPI_SUM, c, &rq_));
		for (i = 0; v->r && i < k; i++) {
			for (j = 0, sum = 0; j < v->r; j++)
				sum += cv(v->lw[j], i);
			TALLY(b[i] == sum, "%s: exscan [%d]", name, i);
		}
	}
	free(a);
	free(b);
	free(cnt);
	free(dsp);
	free(scnt);
	free(sdsp);
}

/* Point-to-point: every rank sends its world rank to every peer and
 * receives from every peer; then each sends one message to peer
 * (my rank mod peers) and receives its share with MPI_ANY_SOURCE, whose
 * status must name the sender by its rank in the sender's group. */
static void p2p(const struct view *v, const char *name)
{
	MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * (size_t)v->m);
	int *got = malloc(sizeof(int) * (size_t)v->m), j, x, nin = 0;
	MPI_Status st;

	for (j = 0; j < v->m; j++)
		MPI_Irecv(&got[j], 1, MPI_INT, j, 9, v->c, &rq[j]);
	for (j = 0; j < v->m; j++)
		MPI_Isend(&rank, 1, MPI_INT, j, 9, v->c, &rq[v->m + j]);
	MPI_Waitall(2 * v->m, rq, MPI_STATUSES_IGNORE);
	for (j = 0; j < v->m; j++)
		TALLY(got[j] == v->pw[j], "%s: p2p from %d: %d", name, j,
		      got[j]);
	MPI_Isend(&rank, 1, MPI_INT, v->r % v->m, 10, v->c, &rq[0]);
	/* peers j with j % (my group's size) == my rank send to me */
	for (j = 0; j < v->m; j++)
		nin += j % v->n == v->r;
	for (j = 0; j < nin; j++) {
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 10, v->c, &st);
		TALLY(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < v->m &&
			      v->pw[st.MPI_SOURCE] == x,
		      "%s: any-source from %d: %d", name, st.MPI_SOURCE, x);
	}
	MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	free(rq);
	free(got);
}

int main(int argc, char **argv)
{
	struct cs_iter it = CS_ITER_INIT;
	const char *name;
	MPI_Comm c;
	int k, total = 0, ninter = 0, nb;
	/* "inter": intercommunicators only, 3 and 3000 elements (the verbs
	 * suite's subset) */
	int quick = argc > 1 && !strcmp(argv[1], "inter");

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while (cs_next(&it, quick ? CS_INTER : CS_INTRA | CS_INTER, &c,
		       &name)) {
		if (c != MPI_COMM_NULL) {
			struct view v;

			MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
			view_of(c, &v);
			ninter += v.inter;
			p2p(&v, name);
			for (nb = 0; nb < 2; nb++)
				for (k = 0; k <= 3000; k += k ? 2997 : 3) {
					if (!quick && k > 2000)
						k = 2000;
					run_all(&v, k, nb, name);
				}
			free(v.lw);
			if (v.inter)
				free(v.pw);
		}
		total++;
		cs_free(&c);
	}
	TALLY(size < 2 || ninter > 0, "no intercommunicator");
	MPI_Allreduce(&errors, &k, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("coll_inter: %d ranks %s (%d communicators)\n", size,
		       k ? "FAILED" : "OK", total);
	MPI_Finalize();
	return k ? 1 : 0;
}
