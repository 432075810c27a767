/*
 * coll_comm.c - an MPI job for communicators, groups and topologies:
 * dup (congruent, errhandler inherited, name not), split with
 * MPI_UNDEFINED, split_type, create from a group, the group functions,
 * the predefined attributes, Dims_create / Cart_create / Cart_sub and the
 * Cartesian queries, MPI_Comm_free with a collective pending, error classes
 * under MPI_ERRORS_RETURN, and hundreds of communicators created and
 * freed (context ids are reused, never shared). Standard MPI only.
 *
 * Exit status: 0 when every check passed on every rank, 1 otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jobs.h"

static int rank, size, errors;

static int sum_over(MPI_Comm c, int x)
{
	int y = 0;

	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c);
	return y;
}

/* MPI-4's hardware splits: guided by "mpi_shared_memory" gives the
 * node's ranks (want of them), with no resource type MPI_COMM_NULL;
 * unguided gives the node when the job spans several and says so in
 * info, else MPI_COMM_NULL (rcmpi knows no finer level). */
static void split_type_hw(int want)
{
	MPI_Comm node;
	MPI_Info info;
	char v[64];
	int n, flag;

	MPI_Info_create(&info);
	MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info,
			    &node);
	TALLY(node != MPI_COMM_NULL, "hw_guided: MPI_COMM_NULL");
	if (node != MPI_COMM_NULL) {
		MPI_Comm_size(node, &n);
		TALLY(n == want, "hw_guided size %d, want %d", n, want);
		MPI_Comm_free(&node);
	}
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0,
			    MPI_INFO_NULL, &node);
	TALLY(node == MPI_COMM_NULL, "hw_guided without a resource type");
	MPI_Info_delete(info, "mpi_hw_resource_type");
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, info,
			    &node);
	MPI_Info_get(info, "mpi_hw_resource_type", sizeof(v) - 1, v, &flag);
	if (want == size) {
		TALLY(node == MPI_COMM_NULL && !flag,
		      "hw_unguided on one node: not MPI_COMM_NULL");
	} else {
		TALLY(node != MPI_COMM_NULL && flag &&
			      !strcmp(v, "mpi_shared_memory"),
		      "hw_unguided across nodes");
		if (node != MPI_COMM_NULL) {
			MPI_Comm_size(node, &n);
			TALLY(n == want, "hw_unguided size %d, want %d", n,
			      want);
			MPI_Comm_free(&node);
		}
	}
	MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
	MPI_Comm dup, odd, node, evens, cart, row, c;
	MPI_Group wg, eg, g2;
	MPI_Errhandler eh;
	MPI_Request req;
	int r, n, res, flag, *val, i, k, len, x, y;
	char name[MPI_MAX_OBJECT_NAME];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	/* dup */
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_compare(MPI_COMM_WORLD, dup, &res);
	TALLY(res == MPI_CONGRUENT, "compare dup %d", res);
	MPI_Comm_get_errhandler(dup, &eh);
	TALLY(eh == MPI_ERRORS_RETURN, "dup errhandler");
	MPI_Comm_set_name(dup, "dup");
	MPI_Comm_get_name(dup, name, &len);
	TALLY(!strcmp(name, "dup") && len == 3, "name %s", name);
	TALLY(sum_over(dup, 1) == size, "allreduce on dup");
	/* split with MPI_UNDEFINED: the last rank gets MPI_COMM_NULL */
	MPI_Comm_split(MPI_COMM_WORLD, rank == size - 1 && size > 1
					       ? MPI_UNDEFINED : rank % 2,
		       rank, &odd);
	if (rank == size - 1 && size > 1) {
		TALLY(odd == MPI_COMM_NULL, "undefined color");
	} else {
		MPI_Comm_size(odd, &n);
		MPI_Comm_rank(odd, &r);
		TALLY(r == rank / 2, "split rank %d", r);
		TALLY(sum_over(odd, 1) == n, "allreduce on split");
		MPI_Comm_compare(odd, MPI_COMM_WORLD, &res);
		TALLY(size == 1 ? res == MPI_CONGRUENT : res == MPI_UNEQUAL,
		      "compare split %d", res);
		MPI_Comm_free(&odd);
	}
	/* the ranks that share this node's kernel (its boot id) */
	{
		char me[40] = "", *all = calloc(size, sizeof(me));
		FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
		int want = 0;

		if (f) {
			if (!fgets(me, sizeof(me), f))
				me[0] = 0;
			fclose(f);
		}
		MPI_Allgather(me, sizeof(me), MPI_CHAR, all, sizeof(me),
			      MPI_CHAR, MPI_COMM_WORLD);
		for (k = 0; k < size; k++)
			want += !strncmp(all + k * sizeof(me), me, sizeof(me));
		free(all);
		MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
				    MPI_INFO_NULL, &node);
		MPI_Comm_size(node, &n);
		TALLY(n == want, "split_type size %d, want %d", n, want);
		MPI_Comm_free(&node);
		split_type_hw(want);
	}
	/* groups and create */
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	{
		int ranges[1][3] = { { 0, size - 1, 2 } }, tr[2] = { 0, 1 },
		    out[2];

		MPI_Group_range_incl(wg, 1, ranges, &eg);
		MPI_Group_size(eg, &n);
		TALLY(n == (size + 1) / 2, "evens %d", n);
		MPI_Group_translate_ranks(eg, n > 1 ? 2 : 1, tr, wg, out);
		TALLY(out[0] == 0 && (n < 2 || out[1] == 2), "translate");
		MPI_Comm_create(MPI_COMM_WORLD, eg, &evens);
		if (rank % 2) {
			TALLY(evens == MPI_COMM_NULL, "create: not a member");
		} else {
			MPI_Comm_rank(evens, &r);
			TALLY(r == rank / 2, "create rank %d", r);
			TALLY(sum_over(evens, rank) == (n - 1) * n, "on evens");
			MPI_Comm_group(evens, &g2);
			MPI_Group_compare(g2, eg, &res);
			TALLY(res == MPI_IDENT, "group compare %d", res);
			MPI_Group_free(&g2);
			MPI_Comm_free(&evens);
		}
		MPI_Group_free(&eg);
		MPI_Group_free(&wg);
	}
	/* attributes */
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag);
	TALLY(flag && *val >= 32767, "tag ub");
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &val, &flag);
	TALLY(!flag || *val > 0, "universe size");
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag);
	TALLY(!flag || *val == 0 || *val == 1, "wtime is global");
	/* Cartesian: dims_create, 2-D grid periodic in dimension 0 */
	{
		int dims[2] = { 0, 0 }, periods[2] = { 1, 0 }, co[2], rem[2];
		int src, dst, nd;

		MPI_Dims_create(size, 2, dims);
		TALLY(dims[0] * dims[1] == size && dims[0] >= dims[1],
		      "dims %d x %d", dims[0], dims[1]);
		MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
		MPI_Topo_test(cart, &res);
		TALLY(res == MPI_CART, "topo test");
		MPI_Cartdim_get(cart, &nd);
		TALLY(nd == 2, "cartdim");
		MPI_Cart_coords(cart, rank, 2, co);
		TALLY(co[0] == rank / dims[1] && co[1] == rank % dims[1],
		      "coords");
		MPI_Cart_rank(cart, co, &r);
		TALLY(r == rank, "cart rank");
		MPI_Cart_shift(cart, 0, 1, &src, &dst);
		TALLY(dst == (rank + dims[1]) % size &&
		      src == (rank - dims[1] + size) % size, "shift 0");
		MPI_Cart_shift(cart, 1, 1, &src, &dst);
		TALLY(dst == (co[1] == dims[1] - 1 ? MPI_PROC_NULL : rank + 1),
		      "shift 1");
		/* neighbours exchange along dimension 0 */
		MPI_Cart_shift(cart, 0, 1, &src, &dst);
		MPI_Sendrecv(&rank, 1, MPI_INT, dst, 5, &x, 1, MPI_INT, src, 5,
			     cart, MPI_STATUS_IGNORE);
		TALLY(x == src, "sendrecv on cart");
		rem[0] = 0;
		rem[1] = 1;
		MPI_Cart_sub(cart, rem, &row);
		MPI_Comm_size(row, &n);
		MPI_Comm_rank(row, &r);
		TALLY(n == dims[1] && r == co[1], "cart sub %d/%d", r, n);
		TALLY(sum_over(row, rank) ==
		      dims[1] * co[0] * dims[1] + dims[1] * (dims[1] - 1) / 2,
		      "row sum");
		MPI_Comm_free(&row);
		MPI_Comm_dup(cart, &c);
		MPI_Topo_test(c, &res);
		TALLY(res == MPI_CART, "dup keeps the topology");
		MPI_Comm_free(&c);
		MPI_Comm_free(&cart);
	}
	/* free with a collective pending (legal; Open MPI 4.1's libnbc
	 * crashes on it, so that MPI skips it) */
	MPI_Comm_dup(dup, &c);
	x = rank;
#ifndef OPEN_MPI
	MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, c, &req);
	MPI_Comm_free(&c);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
#else
	MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, c, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Comm_free(&c);
#endif
	TALLY(y == size * (size - 1) / 2, "iallreduce on a freed comm");
	/* errors come back */
	TALLY(MPI_Bcast(&x, 1, MPI_INT, size, dup) == MPI_ERR_ROOT, "root");
	TALLY(MPI_Allreduce(&x, &y, -1, MPI_INT, MPI_SUM, dup) ==
	      MPI_ERR_COUNT, "count");
	TALLY(MPI_Allreduce(&x, &y, 1, MPI_FLOAT, MPI_BOR, dup) == MPI_ERR_OP,
	      "op");
	TALLY(MPI_Barrier(MPI_COMM_NULL) == MPI_ERR_COMM, "comm");
	/* hundreds of communicators created and freed */
	for (k = 0; k < 300; k++) {
		MPI_Comm a, b;

		MPI_Comm_dup(dup, &a);
		MPI_Comm_split(a, rank % 3, size - rank, &b);
		if (k % 50 == 0) {
			TALLY(sum_over(a, 1) == size, "loop dup");
			MPI_Comm_size(b, &n);
			TALLY(sum_over(b, 1) == n, "loop split");
		}
		MPI_Comm_free(&a);
		MPI_Comm_free(&b);
	}
	{
		MPI_Comm keep[20];

		for (i = 0; i < 20; i++)
			MPI_Comm_dup(i % 2 ? dup : MPI_COMM_WORLD, &keep[i]);
		for (i = 0; i < 20; i++)
			TALLY(sum_over(keep[i], i) == i * size, "keep %d", i);
		for (i = 0; i < 20; i++)
			MPI_Comm_free(&keep[i]);
	}
	MPI_Comm_free(&dup);
	MPI_Allreduce(&errors, &k, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("coll_comm: %d ranks %s\n", size, k ? "FAILED" : "OK");
	MPI_Finalize();
	return k ? 1 : 0;
}
