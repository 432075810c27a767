/*
 * commsuite.c - see commsuite.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include "commsuite.h"

enum {
	/* intra */
	S_WORLD,
	S_DUP,
	S_REVERSED,
	S_HALVES,
	S_ODDEVEN,
	S_GROUP_EVENS,
	S_GROUP_ODDS,
	S_CREATE_LOW,
	S_MERGE_LOW,
	S_MERGE_HIGH,
	S_SELF,
	S_NINTRA,
	/* inter */
	S_I_HALVES = S_NINTRA,
	S_I_ODDEVEN,
	S_I_ONE,
	S_I_LAST,
	S_I_THIRD,
	S_I_DUP,
	S_I_IDUP,
	S_I_SPLIT,
	S_I_CREATE,
	S_I_GROUPS,
	S_N
};

static const char *const names[S_N] = {
	"world",
	"dup",
	"reversed",
	"halves",
	"odd/even",
	"create_group evens",
	"create_group odds",
	"create lower half",
	"merge (low first)",
	"merge (high first)",
	"self",
	"inter halves",
	"inter odd/even",
	"inter one/rest",
	"inter rest/one",
	"inter third",
	"inter dup",
	"inter idup",
	"inter split",
	"inter create",
	"inter over create_group",
};

/* An intercommunicator between the ranks of color 0 and of color 1
 * (every rank has one), leaders their lowest world ranks. */
static MPI_Comm inter_by(int color, MPI_Comm local)
{
	int rank, size, r, other = -1, *colors;
	MPI_Comm ic;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	colors = malloc(sizeof(int) * (size_t)size);
	MPI_Allgather(&color, 1, MPI_INT, colors, 1, MPI_INT, MPI_COMM_WORLD);
	for (r = 0; r < size && other < 0; r++)
		if (colors[r] != color)
			other = r;
	free(colors);
	MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, other, 123, &ic);
	return ic;
}

static MPI_Comm inter_split(int color)
{
	MPI_Comm local, ic;
	int rank;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
	ic = inter_by(color, local);
	MPI_Comm_free(&local);
	return ic;
}

/* MPI_Comm_create_group of world ranks lo, lo + step, ... < hi. */
static MPI_Comm group_of(int lo, int hi, int step, int tag)
{
	MPI_Group wg, g;
	MPI_Comm c = MPI_COMM_NULL;
	int rank, range[1][3] = {{lo, hi - 1, step}};

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	MPI_Group_range_incl(wg, 1, range, &g);
	if (rank >= lo && rank < hi && (rank - lo) % step == 0)
		MPI_Comm_create_group(MPI_COMM_WORLD, g, tag, &c);
	MPI_Group_free(&g);
	MPI_Group_free(&wg);
	return c;
}

static MPI_Comm make(int s, int size, int rank)
{
	MPI_Comm c = MPI_COMM_NULL, t, u;
	MPI_Group wg, g;
	MPI_Request req;
	int range[1][3] = {{0, (size - 1) / 2, 1}};

	switch (s) {
	case S_WORLD:
		return MPI_COMM_WORLD;
	case S_SELF:
		return MPI_COMM_SELF;
	case S_DUP:
		MPI_Comm_dup(MPI_COMM_WORLD, &c);
		return c;
	case S_REVERSED:
		MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &c);
		return c;
	case S_HALVES:
		MPI_Comm_split(MPI_COMM_WORLD, rank >= size / 2, rank, &c);
		return c;
	case S_ODDEVEN:
		MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
		return c;
	case S_GROUP_EVENS:
		return group_of(0, size, 2, 1);
	case S_GROUP_ODDS:
		return size > 1 ? group_of(1, size, 2, 2) : MPI_COMM_NULL;
	case S_CREATE_LOW:
		MPI_Comm_group(MPI_COMM_WORLD, &wg);
		MPI_Group_range_incl(wg, 1, range, &g);
		MPI_Comm_create(MPI_COMM_WORLD, g, &c);
		MPI_Group_free(&g);
		MPI_Group_free(&wg);
		return c;
	case S_MERGE_LOW:
	case S_MERGE_HIGH:
		if (size < 2)
			return MPI_COMM_NULL;
		t = inter_split(rank >= size / 2);
		MPI_Intercomm_merge(t, (rank >= size / 2) == (s == S_MERGE_LOW),
				    &c);
		MPI_Comm_free(&t);
		return c;
	}
	if (size < 2 || (s == S_I_THIRD && size < 3))
		return MPI_COMM_NULL;
	switch (s) {
	case S_I_HALVES:
		return inter_split(rank >= size / 2);
	case S_I_ODDEVEN:
		return inter_split(rank % 2);
	case S_I_ONE:
		return inter_split(rank != 0);
	case S_I_LAST:
		return inter_split(rank == size - 1);
	case S_I_THIRD:
		return inter_split(rank % 3 != 0);
	case S_I_DUP:
	case S_I_IDUP:
		t = inter_split(rank >= size / 2);
		if (s == S_I_DUP) {
			MPI_Comm_dup(t, &c);
		} else {
			MPI_Comm_idup(t, &c, &req);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
		}
		MPI_Comm_free(&t);
		return c;
	case S_I_SPLIT:
		/* odd/even split by world rank / 2 parity: both sides keep
		 * each color wherever there are ranks enough */
		t = inter_split(rank % 2);
		MPI_Comm_split(t, (rank / 2) % 2, -rank, &c);
		MPI_Comm_free(&t);
		return c;
	case S_I_CREATE:
		t = inter_split(rank >= size / 2);
		MPI_Comm_group(t, &g);
		if (rank < size / 2) {
			/* the low group keeps its first rank only */
			int first[1] = {0};

			MPI_Group_incl(g, 1, first, &wg);
			MPI_Group_free(&g);
			g = wg;
		}
		MPI_Comm_create(t, g, &c);
		MPI_Group_free(&g);
		MPI_Comm_free(&t);
		return c;
	case S_I_GROUPS:
		u = rank % 2 ? group_of(1, size, 2, 3)
			     : group_of(0, size, 2, 4);
		c = inter_by(rank % 2, u);
		MPI_Comm_free(&u);
		return c;
	}
	return MPI_COMM_NULL;
}

int cs_next(struct cs_iter *it, int kinds, MPI_Comm *comm, const char **name)
{
	int rank, size, s;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (;;) {
		s = it->next++;
		if (s >= S_N)
			return 0;
		if (!(kinds & (s < S_NINTRA ? CS_INTRA : CS_INTER)))
			continue;
		/* shapes that do not exist at this size are skipped alike on
		 * every rank */
		if (s >= S_NINTRA && (size < 2 || (s == S_I_THIRD && size < 3)))
			continue;
		if ((s == S_MERGE_LOW || s == S_MERGE_HIGH) && size < 2)
			continue;
		*comm = make(s, size, rank);
		*name = names[s];
		return 1;
	}
}

void cs_free(MPI_Comm *comm)
{
	if (*comm != MPI_COMM_NULL && *comm != MPI_COMM_WORLD &&
	    *comm != MPI_COMM_SELF)
		MPI_Comm_free(comm);
	*comm = MPI_COMM_NULL;
}
