/*
 * fake_mpi.c - see fake_mpi.h.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "coll.h"
#include "comm.h"
#include "fake_mpi.h"
#include "info.h"
#include "request.h"

void fake_mpi_setup(int rank, int size)
{
	memset(&rc_g, 0, sizeof(rc_g));
	rc_g.rank = rank;
	rc_g.size = size;
	rc_g.universe_size = size + 2;
	rc_handles_init();
	rc_req_pool_init(&rc_g);
	ck_assert_int_eq(rc_comm_init_world(&rc_g, &rc_mpi_comm_world,
					    &rc_mpi_comm_self),
			 RC_OK);
	rc_g.world->errh = &rc_mpi_errors_return;
	rc_g.self->errh = &rc_mpi_errors_return;
	rc_g.initialized = true;
}

void fake_mpi_teardown(void)
{
	unsigned k;

	rc_req_reap(&rc_g); /* as rc_inst_close */
	rc_coll_close(&rc_g);
	rc_comm_fini_world(&rc_g);
	/* whatever the test made, it freed (objects are in pools that
	 * LeakSanitizer sees as reachable, so count them here) */
	for (k = 0; k < RC_HK_NKINDS; k++)
		ck_assert_msg(rc_hpool_nlive(&rc_hpools[k]) == 0,
			      "%u %s objects left",
			      rc_hpool_nlive(&rc_hpools[k]), rc_hkind_name(k));
	ck_assert_msg(rc_hpool_nlive(&rc_g.req_pool) == 0, "%u requests left",
		      rc_hpool_nlive(&rc_g.req_pool));
	ck_assert_msg(rc_hpool_nlive_scan(&rc_g.out_pool) == 0, "%u sends left",
		      rc_hpool_nlive_scan(&rc_g.out_pool));
	rc_req_pool_fini(&rc_g);
	rc_info_free(&rc_mpi_info_env); /* its entries, as MPI_Finalize */
	rc_handles_fini();
	rc_g.initialized = false;
}

TCase *fake_mpi_tcase(const char *name, int seconds, void (*setup)(void),
		      void (*teardown)(void))
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, seconds);
	if (setup)
		tcase_add_checked_fixture(tc, setup, teardown);
	return tc;
}

int fake_mpi_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
