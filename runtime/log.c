/*
 * log.c - diagnostics on stderr, one whole line per write so that lines from
 * several ranks never interleave. Verbosity: RCMPI_VERBOSE (0 errors and
 * warnings, 1 and up debug).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "param.h"

static struct {
	const char *prog;
	int rank;
	char host[64];
	int level;
	int level_read;
} rc_log_id = {.prog = "rcmpi", .rank = -1};

void rc_log_set_identity(int rank, const char *host)
{
	rc_log_id.rank = rank;
	snprintf(rc_log_id.host, sizeof(rc_log_id.host), "%s", host);
}

void rc_log_set_prog(const char *prog)
{
	rc_log_id.prog = prog;
}

int rc_log_level(void)
{
	if (!rc_log_id.level_read) {
		rc_log_id.level_read = 1;
		rc_log_id.level = (int)rc_param_int(RC_P_VERBOSE);
	}
	return rc_log_id.level;
}

static void rc_log_emit(const char *what, const char *fmt, va_list ap)
{
	char line[1024];
	int n;

	if (rc_log_id.rank >= 0)
		n = snprintf(line, sizeof(line),
			     "%s: %s: rank %d on %s: ", rc_log_id.prog, what,
			     rc_log_id.rank, rc_log_id.host);
	else
		n = snprintf(line, sizeof(line), "%s: %s: ", rc_log_id.prog,
			     what);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	n = strlen(line);
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

void rc_log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc_log_emit("error", fmt, ap);
	va_end(ap);
}

void rc_log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc_log_emit("warning", fmt, ap);
	va_end(ap);
}

void rc_log_debug(const char *fmt, ...)
{
	va_list ap;

	if (rc_log_level() < 1)
		return;
	va_start(ap, fmt);
	rc_log_emit("debug", fmt, ap);
	va_end(ap);
}
