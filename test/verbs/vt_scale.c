/*
 * vt_scale.c - connections follow the traffic: many ranks, a sparse
 * pattern, and each process's QPs counted against its partners.
 *
 * Rank r talks to r +- 1 (a ring) and r +- s for two strides s derived
 * from the job size (a few "random" partners, the same on both sides of
 * every pair): ROUNDS rounds of one message each way with every partner,
 * sizes across the eager limit. Then a barrier along the ring only, a
 * moment of progress (a losing rdma_cm attempt is dropped), another ring
 * barrier, and each rank counts the RC QPs its own pid holds in
 * `rdma resource show qp`: with connections made on first use
 * (RCMPI_VERBS_CM=rdmacm) that must be exactly its number of partners.
 * Only then does anything talk to a non-partner (the final sum).
 *
 *   vt_scale [expect: partners (default) | all]
 *     all: every other rank (modex wiring makes N - 1 QPs at MPI_Init)
 */
#include <time.h>
#include <unistd.h>
#include "vt_common.h"

#define ROUNDS 4
#define MAXP 6

static int partners(int *p)
{
	int n = vt_size, st[3] = {1, 0, 0}, np = 0, i, k, d;

	st[1] = n / 3 > 1 ? n / 3 : 2;
	st[2] = n / 5 * 2 + 1;
	for (i = 0; i < 3; i++)
		for (d = -1; d <= 1; d += 2) {
			int q = ((vt_rank + d * st[i]) % n + n) % n;

			if (q == vt_rank)
				continue;
			for (k = 0; k < np && p[k] != q; k++)
				;
			if (k == np)
				p[np++] = q;
		}
	return np;
}

/* A barrier along the ring: a token goes round twice. */
static void ring_barrier(void)
{
	int next = (vt_rank + 1) % vt_size;
	int prev = (vt_rank + vt_size - 1) % vt_size, t = 0, i;

	for (i = 0; i < 2; i++) {
		if (vt_rank == 0) {
			MPI_Send(&t, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
			MPI_Recv(&t, 1, MPI_INT, prev, 7, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&t, 1, MPI_INT, prev, 7, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(&t, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
		}
	}
}

/* This process's RC QPs to other processes in `rdma resource show qp`
 * (-1: no tool); *loops: those connected to themselves (the loopback QP
 * for device atomics, lqpn == rqpn). */
static int count_qps(char *list, size_t len, int *loops)
{
	char line[512], *tok, *save;
	FILE *f = popen("rdma resource show qp 2>/dev/null", "r");
	int n = 0, seen = 0;

	list[0] = 0;
	*loops = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		long pid = -1, lqpn = -1, rqpn = -2;
		int rc = 0;
		char copy[512];

		seen = 1;
		snprintf(copy, sizeof(copy), "%s", line);
		for (tok = strtok_r(line, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			if (!strcmp(tok, "pid") &&
			    (tok = strtok_r(NULL, " \t\n", &save)))
				pid = atol(tok);
			else if (!strcmp(tok, "lqpn") &&
				 (tok = strtok_r(NULL, " \t\n", &save)))
				lqpn = atol(tok);
			else if (!strcmp(tok, "rqpn") &&
				 (tok = strtok_r(NULL, " \t\n", &save)))
				rqpn = atol(tok);
			else if (!strcmp(tok, "type") &&
				 (tok = strtok_r(NULL, " \t\n", &save)))
				rc = !strcmp(tok, "RC");
			if (!tok)
				break;
		}
		if (pid == (long)getpid() && rc && lqpn == rqpn) {
			(*loops)++;
		} else if (pid == (long)getpid() && rc) {
			n++;
			if (strlen(list) + strlen(copy) < len)
				strcat(list, copy);
		}
	}
	if (pclose(f) != 0 || !seen)
		return -1;
	return n;
}

int main(int argc, char **argv)
{
	int all = argc > 1 && !strcmp(argv[1], "all");
	static char sb[MAXP][20000], rb[MAXP][20000], list[8192];
	MPI_Request rq[2 * MAXP];
	int p[MAXP], np, i, r, want, got, loops;

	vt_init(&argc, &argv);
	np = partners(p);
	for (r = 0; r < ROUNDS; r++) {
		size_t len = r % 2 ? 16384 + (size_t)r : 64 + (size_t)r;

		for (i = 0; i < np; i++) {
			vt_fill(sb[i], len, vt_rank, r);
			MPI_Irecv(rb[i], (int)len, MPI_BYTE, p[i], r,
				  MPI_COMM_WORLD, &rq[i]);
		}
		for (i = 0; i < np; i++)
			MPI_Isend(sb[i], (int)len, MPI_BYTE, p[i], r,
				  MPI_COMM_WORLD, &rq[np + i]);
		MPI_Waitall(2 * np, rq, MPI_STATUSES_IGNORE);
		for (i = 0; i < np; i++)
			VT_CHECK(vt_verify(rb[i], len, p[i], r) < 0,
				 "round %d: bad data from rank %d", r, p[i]);
	}
	ring_barrier();
	{
		struct timespec t0, t;
		int flag;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag,
				   MPI_STATUS_IGNORE);
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while ((t.tv_sec - t0.tv_sec) * 1000 +
				 (t.tv_nsec - t0.tv_nsec) / 1000000 <
			 300);
	}
	ring_barrier();
	got = count_qps(list, sizeof(list), &loops);
	want = all ? vt_size - 1 : np;
	VT_CHECK(got >= 0, "cannot run 'rdma resource show qp'");
	/* (and a loopback QP for device atomics, when the device has them) */
	VT_CHECK(got < 0 || (got == want && loops <= 1),
		 "%d RC QPs for %d %s, %d loopback:\n%s", got, want,
		 all ? "peers" : "partners", loops, list);
	ring_barrier();
	if (vt_rank == 0) {
		printf("vt: scale: %d ranks, %d partners each, rank 0 holds %d "
		       "QPs\n",
		       vt_size, np, got);
		fflush(stdout);
	}
	return vt_finish("scale");
}
