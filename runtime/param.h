/*
 * param.h - run-time parameters: RCMPI_<NAME> environment variables, all
 * of them declared once in param_list.h (name, type, default, range, who
 * reads it, description). Code reads a parameter by its id, RC_P_<NAME>,
 * so a misspelled name does not compile and every default lives in the
 * table. The launcher compiles this file in too (it does not link the
 * library), so mpirun, rcmpid, the library and rcmpi_info share one table.
 */
#ifndef RC_PARAM_H
#define RC_PARAM_H

#include <stdbool.h>
#include <stddef.h>

enum rc_param_type {
	RC_PT_BOOL,
	RC_PT_INT,
	RC_PT_SIZE,
	RC_PT_SECONDS,
	RC_PT_STR,
	RC_PT_LIST,
};

enum rc_param_id {
#define RC_PARAM(name, type, def, min, max, who, desc) RC_P_##name,
#include "param_list.h"
#undef RC_PARAM
	RC_P_COUNT
};

struct rc_param_def {
	const char *name; /* without RCMPI_ */
	enum rc_param_type type;
	const char *def; /* "" none, "auto" computed at run time */
	long min, max;
	const char *who;
	const char *desc;
};

extern const struct rc_param_def rc_params[RC_P_COUNT];

/* "bool", "int", "size", "seconds", "string", "list" */
const char *rc_param_type_name(enum rc_param_type t);
/* The id of RCMPI_<name> (name with or without the prefix), or -1. */
int rc_param_find(const char *name);
/* The value in the environment, or NULL when unset or empty. */
const char *rc_param_raw(enum rc_param_id id);

/*
 * Readers. A value that does not parse or is out of range is reported once
 * per read ("RCMPI_X=v is not a number in [min, max]; using def") and the
 * default is used.
 */
long rc_param_int(enum rc_param_id id);
/* the same with a default computed by the caller (used when the table
 * says "auto", or the value is "auto") and a narrower maximum */
long rc_param_int_at(enum rc_param_id id, long def, long max);
/* the table's default, with a narrower maximum */
long rc_param_int_max(enum rc_param_id id, long max);
bool rc_param_bool(enum rc_param_id id);
/* the value, or the table's default (NULL when that is "") */
const char *rc_param_str(enum rc_param_id id);

/*
 * Parsers, for readers that treat a bad value as an error rather than a
 * warning. Each returns true and writes *out only when v is valid.
 * Integers: strtol base 0 (decimal, 0x hex, 0 octal), optional k/m/g
 * suffix (x 2^10, 2^20, 2^30), within [min, max].
 */
bool rc_param_parse_long(const char *v, long min, long max, long *out);
bool rc_param_parse_bool(const char *v, bool *out);
/* a decimal number of seconds, > 0 and <= max */
bool rc_param_parse_seconds(const char *v, double max, double *out);
/* Is v a valid value of d? If not, why (one line) in why. */
bool rc_param_valid(const struct rc_param_def *d, const char *v, char *why,
		    size_t whylen);

/* Is `name` one of the comma-separated words of `list`? */
bool rc_param_list_has(const char *list, const char *name);

/*
 * Unknown RCMPI_ names. rc_param_unknown: is `var` ("RCMPI_X" or
 * "RCMPI_X=value") an RCMPI_ name outside the table (and not the test
 * harness's)? If so, the closest known name (with prefix) goes to hint,
 * or "" when none is close. rc_param_check_env warns once per process for
 * every unknown name in the environment; returns how many there were.
 */
bool rc_param_unknown(const char *var, char *hint, size_t hintlen);
int rc_param_check_env(void);

#endif
