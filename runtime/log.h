/*
 * log.h - diagnostics. Every message names the process (rank and host), so a
 * line in a job's output says where it came from.
 */
#ifndef RC_LOG_H
#define RC_LOG_H

#include <stdarg.h>

__attribute__((format(printf, 1, 2))) void rc_log_err(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void rc_log_warn(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void rc_log_debug(const char *fmt, ...);

/* Set what the log prefix says about this process ("rank 3 on node1"). */
void rc_log_set_identity(int rank, const char *host);
int rc_log_level(void);
/* The program named at the start of each line ("rcmpi" by default; the
 * launcher says "mpirun" or "rcmpid"). */
void rc_log_set_prog(const char *prog);

#endif
