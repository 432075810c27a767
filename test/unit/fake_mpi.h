/*
 * fake_mpi.h - a fake initialised MPI process for unit tests of the MPI
 * functions that need no transport: rc_g with MPI_COMM_WORLD (n ranks,
 * this process being world rank `rank`) and MPI_COMM_SELF, both handlers
 * MPI_ERRORS_RETURN, the handle table's predefined objects registered.
 * Nothing can be sent: a call either works locally (collectives on
 * MPI_COMM_SELF do) or must fail before it would communicate.
 */
#ifndef RC_FAKE_MPI_H
#define RC_FAKE_MPI_H

#include <check.h>

void fake_mpi_setup(int rank, int size);
void fake_mpi_teardown(void);

/* A test case with a timeout of `seconds` and the given fixture (each
 * test forked: setup/teardown run in the test's own process). */
TCase *fake_mpi_tcase(const char *name, int seconds, void (*setup)(void),
		      void (*teardown)(void));
/* Run every test of s forked; the exit status for main. */
int fake_mpi_run(Suite *s);

#endif
