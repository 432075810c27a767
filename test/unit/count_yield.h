/*
 * count_yield.h - sched_yield, counted: the library's calls land in
 * count_yield.c's sched_yield, linked into the unit tests that check when
 * rcmpi gives up the CPU (test_p2p, test_rma, test_greq).
 */
#ifndef RC_TEST_COUNT_YIELD_H
#define RC_TEST_COUNT_YIELD_H

/* calls so far (atomic: threads of a test yield too); tests reset it */
extern unsigned test_nyield;

#endif
