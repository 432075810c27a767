/*
 * count_yield.c - see count_yield.h.
 */
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "count_yield.h"

unsigned test_nyield;

int sched_yield(void)
{
	__atomic_add_fetch(&test_nyield, 1, __ATOMIC_RELAXED);
	return (int)syscall(SYS_sched_yield);
}
