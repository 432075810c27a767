/*
 * env.h - facts about this process that MPI_Init and later calls look up
 * (env.c).
 */
#ifndef RC_ENV_H
#define RC_ENV_H

#include <stddef.h>

/* The command line this process was started with, from /proc: the
 * arguments separated by NULs, NUL-terminated, *len bytes before the
 * last NUL. malloc'd; NULL when it cannot be read. */
char *rc_proc_cmdline(size_t *len);

#endif
