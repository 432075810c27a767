/*
 * api_env.h - the MPI API without MPI_Init, for the unit tests of the
 * local MPI functions (datatypes, ops): a minimal world communicator whose
 * handler is MPI_ERRORS_RETURN, so errors come back as classes (a case
 * that sets MPI_ERRORS_ARE_FATAL expects the exit code), and the Check
 * runner every such test ends with.
 */
#ifndef RC_TEST_API_ENV_H
#define RC_TEST_API_ENV_H

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"

static struct rc_comm test_world;

static inline void api_setup(void)
{
	memset(&test_world, 0, sizeof(test_world));
	test_world.h.magic = RC_H_LIVE(RC_HK_COMM);
	test_world.inst = &rc_g;
	test_world.errh = &rc_mpi_errors_return;
	test_world.size = 1;
	rc_g.world = &test_world;
	rc_g.initialized = true;
	rc_g.finalized = false;
}

static inline void api_teardown(void)
{
	rc_g.initialized = false;
	rc_g.world = NULL;
}

/* Run suite s, every case forked; the exit status of the test program. */
static inline int api_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
