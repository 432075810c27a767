/*
 * param.h - run-time parameters: RCMPI_<NAME> environment variables. Each
 * module reads its own at open; README.md documents every one.
 */
#ifndef RC_PARAM_H
#define RC_PARAM_H

#include <stdbool.h>
#include <stddef.h>

/* RCMPI_<name> as an integer (with k/m/g suffixes) within [min, max];
 * an unparsable or out-of-range value is reported and `def` is used. */
long rc_param_int(const char *name, long def, long min, long max);
/* RCMPI_<name> or def. */
const char *rc_param_str(const char *name, const char *def);
bool rc_param_bool(const char *name, bool def);
/* Is `name` one of the comma-separated words of `list`? */
bool rc_param_list_has(const char *list, const char *name);

#endif
