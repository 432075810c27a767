/*
 * vt_pt2pt.c - point-to-point over the verbs transport, 2-4 ranks:
 *   all-pairs exchange at sizes 0 B .. 4 MiB (eager inline, eager from
 *   bounce buffers, rendezvous in several chunks) with verified contents,
 *   every pair sending first at once (rdma_cm: simultaneous connects);
 *   strided datatypes on either side of a rendezvous; MPI_ANY_SOURCE and
 *   MPI_ANY_TAG; truncation (MPI_ERR_TRUNCATE, eager and rendezvous);
 *   MPI_Ssend (eager and rendezvous); MPI_Probe / MPI_Iprobe /
 *   MPI_Mprobe + MPI_Mrecv with counts; non-overtaking order mixing
 *   eager and rendezvous messages on one tag.
 */
#include "vt_common.h"

static const size_t sizes[] = {
	0,     1,     8,      100,     400,	      480,
	500,   1000,  4096,   8000,    8192,	      8193,
	12000, 65536, 100000, 1 << 20, (1 << 20) + 3, 4 << 20};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Every rank exchanges one message of each size with every other rank. */
static void all_pairs(void)
{
	size_t max = 4 << 20, k;
	int peers = vt_size - 1, i;
	unsigned char **sb = calloc(vt_size, sizeof(*sb));
	unsigned char **rb = calloc(vt_size, sizeof(*rb));
	MPI_Request *rq = calloc(2 * vt_size, sizeof(*rq));

	for (i = 0; i < vt_size; i++) {
		sb[i] = malloc(max);
		rb[i] = malloc(max);
	}
	for (k = 0; k < NSIZES; k++) {
		size_t n = sizes[k];
		int nr = 0;

		for (i = 0; i < vt_size; i++) {
			if (i == vt_rank)
				continue;
			vt_fill(sb[i], n, vt_rank, (int)k + 100 * i);
			memset(rb[i], 0xee, n + 1 < max ? n + 1 : max);
			MPI_Irecv(rb[i], (int)n, MPI_BYTE, i, (int)k,
				  MPI_COMM_WORLD, &rq[nr++]);
		}
		for (i = 0; i < vt_size; i++)
			if (i != vt_rank)
				MPI_Isend(sb[i], (int)n, MPI_BYTE, i, (int)k,
					  MPI_COMM_WORLD, &rq[nr++]);
		MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
		for (i = 0; i < vt_size; i++) {
			long bad;

			if (i == vt_rank)
				continue;
			bad = vt_verify(rb[i], n, i, (int)k + 100 * vt_rank);
			VT_CHECK(bad < 0, "size %zu from %d: byte %ld wrong", n,
				 i, bad);
			if (n + 1 < max)
				VT_CHECK(rb[i][n] == 0xee,
					 "size %zu from %d: overrun", n, i);
		}
	}
	(void)peers;
	for (i = 0; i < vt_size; i++) {
		free(sb[i]);
		free(rb[i]);
	}
	free(sb);
	free(rb);
	free(rq);
}

/* Strided send and receive types on a rendezvous-sized message. */
static void strided(void)
{
	int n = 300000, i, peer = vt_rank ^ 1;
	int *a = malloc(2 * n * sizeof(int));
	MPI_Datatype vec;

	if (peer >= vt_size)
		goto out;
	MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	if (vt_rank < peer) {
		for (i = 0; i < 2 * n; i++)
			a[i] = i % 2 ? -1 : i * 7 + 1;
		MPI_Send(a, 1, vec, peer, 5, MPI_COMM_WORLD); /* strided */
		for (i = 0; i < n; i++)
			a[i] = i * 3;
		MPI_Send(a, n, MPI_INT, peer, 6, MPI_COMM_WORLD); /* contig */
	} else {
		int bad = 0;

		MPI_Recv(a, n, MPI_INT, peer, 5, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		for (i = 0; i < n; i++)
			bad += a[i] != i * 14 + 1;
		VT_CHECK(!bad, "strided send: %d ints wrong", bad);
		for (i = 0; i < 2 * n; i++)
			a[i] = -5;
		MPI_Recv(a, 1, vec, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		bad = 0;
		for (i = 0; i < 2 * n; i++)
			bad += a[i] != (i % 2 ? -5 : (i / 2) * 3);
		VT_CHECK(!bad, "strided receive: %d ints wrong", bad);
	}
	MPI_Type_free(&vec);
out:
	free(a);
}

/* Rank 0 receives from everyone with wildcards. */
static void wildcards(void)
{
	int i, v, got[64] = {0};
	MPI_Status st;

	if (vt_rank) {
		v = 1000 + vt_rank;
		MPI_Send(&v, 1, MPI_INT, 0, vt_rank * 10, MPI_COMM_WORLD);
		/* nothing else may reach rank 0's MPI_ANY_TAG receives */
		MPI_Recv(&v, 1, MPI_INT, 0, 11, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		return;
	}
	for (i = 1; i < vt_size; i++) {
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
			 MPI_COMM_WORLD, &st);
		VT_CHECK(v == 1000 + st.MPI_SOURCE &&
				 st.MPI_TAG == st.MPI_SOURCE * 10,
			 "wildcard: value %d from %d tag %d", v, st.MPI_SOURCE,
			 st.MPI_TAG);
		got[st.MPI_SOURCE]++;
	}
	for (i = 1; i < vt_size; i++)
		VT_CHECK(got[i] == 1, "wildcard: %d messages from %d", got[i],
			 i);
	for (i = 1; i < vt_size; i++)
		MPI_Send(&v, 1, MPI_INT, i, 11, MPI_COMM_WORLD);
}

static void truncation(void)
{
	size_t lens[2] = {1000, 2 << 20};
	int peer = vt_rank ^ 1, k;

	if (peer >= vt_size)
		return;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (k = 0; k < 2; k++) {
		char *b = malloc(lens[k]);

		if (vt_rank < peer) {
			vt_fill(b, lens[k], vt_rank, k);
			MPI_Send(b, (int)lens[k], MPI_BYTE, peer, 7,
				 MPI_COMM_WORLD);
		} else {
			MPI_Status st;
			int rc, cnt, cls;

			memset(b, 0, lens[k]);
			rc = MPI_Recv(b, (int)lens[k] / 2, MPI_BYTE, peer, 7,
				      MPI_COMM_WORLD, &st);
			MPI_Error_class(rc, &cls);
			MPI_Get_count(&st, MPI_BYTE, &cnt);
			VT_CHECK(cls == MPI_ERR_TRUNCATE,
				 "truncation %zu: error class %d", lens[k],
				 cls);
			VT_CHECK(cnt == (int)lens[k] / 2,
				 "truncation %zu: count %d", lens[k], cnt);
			VT_CHECK(vt_verify(b, lens[k] / 2, peer, k) < 0,
				 "truncation %zu: data", lens[k]);
		}
		free(b);
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void ssend(void)
{
	size_t lens[3] = {0, 64, 1 << 20};
	int peer = vt_rank ^ 1, k;

	if (peer >= vt_size)
		return;
	for (k = 0; k < 3; k++) {
		char *b = malloc(lens[k] + 1);

		if (vt_rank < peer) {
			vt_fill(b, lens[k], vt_rank, k + 50);
			MPI_Ssend(b, (int)lens[k], MPI_BYTE, peer, 8,
				  MPI_COMM_WORLD);
		} else {
			MPI_Recv(b, (int)lens[k], MPI_BYTE, peer, 8,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			VT_CHECK(vt_verify(b, lens[k], peer, k + 50) < 0,
				 "ssend %zu: data", lens[k]);
		}
		free(b);
	}
}

static void probes(void)
{
	size_t lens[3] = {17, 5000, 3 << 20};
	int peer = vt_rank ^ 1, k;

	if (peer >= vt_size)
		return;
	for (k = 0; k < 3; k++) {
		if (vt_rank < peer) {
			char *b = malloc(lens[k]);

			vt_fill(b, lens[k], vt_rank, k + 70);
			MPI_Send(b, (int)lens[k], MPI_BYTE, peer, 20 + k,
				 MPI_COMM_WORLD);
			free(b);
		} else {
			MPI_Status st;
			MPI_Message msg;
			int cnt, flag = 0;
			char *b;

			if (k == 0) {
				MPI_Probe(peer, MPI_ANY_TAG, MPI_COMM_WORLD,
					  &st);
			} else if (k == 1) {
				while (!flag)
					MPI_Iprobe(MPI_ANY_SOURCE, 21,
						   MPI_COMM_WORLD, &flag, &st);
			} else {
				MPI_Mprobe(peer, 22, MPI_COMM_WORLD, &msg, &st);
			}
			MPI_Get_count(&st, MPI_BYTE, &cnt);
			VT_CHECK(cnt == (int)lens[k] && st.MPI_TAG == 20 + k,
				 "probe %d: count %d tag %d", k, cnt,
				 st.MPI_TAG);
			b = malloc(cnt);
			if (k == 2)
				MPI_Mrecv(b, cnt, MPI_BYTE, &msg, &st);
			else
				MPI_Recv(b, cnt, MPI_BYTE, peer, 20 + k,
					 MPI_COMM_WORLD, &st);
			VT_CHECK(vt_verify(b, lens[k], peer, k + 70) < 0,
				 "probe %d: data", k);
			free(b);
		}
	}
}

/* Eager and rendezvous messages on one tag arrive in order. */
static void ordering(void)
{
	int peer = vt_rank ^ 1, k, n = 24;
	size_t len[24];

	if (peer >= vt_size)
		return;
	for (k = 0; k < n; k++)
		len[k] = k % 3 == 0 ? 200000 : k % 3 == 1 ? 16 : 3000;
	if (vt_rank < peer) {
		MPI_Request rq[24];
		char *b[24];

		for (k = 0; k < n; k++) {
			b[k] = malloc(len[k]);
			vt_fill(b[k], len[k], vt_rank, k + 200);
			MPI_Isend(b[k], (int)len[k], MPI_BYTE, peer, 9,
				  MPI_COMM_WORLD, &rq[k]);
		}
		MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
		for (k = 0; k < n; k++)
			free(b[k]);
	} else {
		char *b = malloc(200000);

		for (k = 0; k < n; k++) {
			MPI_Status st;
			int cnt;

			MPI_Recv(b, 200000, MPI_BYTE, peer, 9, MPI_COMM_WORLD,
				 &st);
			MPI_Get_count(&st, MPI_BYTE, &cnt);
			VT_CHECK(cnt == (int)len[k] &&
					 vt_verify(b, len[k], peer, k + 200) <
						 0,
				 "ordering: message %d (count %d)", k, cnt);
		}
		free(b);
	}
}

int main(int argc, char **argv)
{
	vt_init(&argc, &argv);
	all_pairs();
	strided();
	wildcards();
	truncation();
	ssend();
	probes();
	ordering();
	vt_barrier();
	return vt_finish("pt2pt");
}
