/*
 * commsuite.h - a support library in the style MPI test suites ship: it
 * builds communicators of every shape, intra and inter, and hands them out
 * one after the other, so a test can run the same checks over all of them.
 * Standard MPI only (it builds against any MPI).
 *
 *	struct cs_iter it = CS_ITER_INIT;
 *	MPI_Comm c;
 *	const char *name;
 *
 *	while (cs_next(&it, CS_INTRA | CS_INTER, &c, &name)) {
 *		if (c != MPI_COMM_NULL)
 *			run_checks(c);
 *		cs_free(&c);
 *	}
 *
 * Intracommunicators: MPI_COMM_WORLD, a dup, a split that reverses the
 * ranks, the halves, odd/even, MPI_Comm_create_group of the evens and of
 * the odds (tags differ), MPI_Comm_create of the lower half, the merge of
 * the halves' intercommunicator (both orders), MPI_COMM_SELF.
 * Intercommunicators (2+ ranks): the halves, odd/even, one against the
 * rest, the rest against one, a third against two thirds (3+), a dup and
 * an idup of the halves, a split of odd/even, MPI_Comm_create on the
 * halves keeping the first rank of the low group, and one whose local
 * groups come from MPI_Comm_create_group. A rank outside a communicator
 * gets MPI_COMM_NULL. cs_next is collective over MPI_COMM_WORLD.
 */
#ifndef RC_COMMSUITE_H
#define RC_COMMSUITE_H

#include <mpi.h>

#define CS_INTRA 0x1
#define CS_INTER 0x2

struct cs_iter {
	int next;
};

#define CS_ITER_INIT \
	{            \
		0    \
	}

/* The next communicator of the kinds asked for in *comm (MPI_COMM_NULL
 * where this rank is not in it) and its name; 0 when there are no more. */
int cs_next(struct cs_iter *it, int kinds, MPI_Comm *comm, const char **name);
/* Free what cs_next handed out (not the predefined ones). */
void cs_free(MPI_Comm *comm);

#endif
