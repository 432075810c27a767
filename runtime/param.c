/*
 * param.c - RCMPI_<NAME> environment parameters: the table built from
 * param_list.h, its readers and parsers, and the check for names that are
 * not in it (a misspelled parameter would otherwise be ignored silently).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "log.h"
#include "param.h"

extern char **environ;

const struct rc_param_def rc_params[RC_P_COUNT] = {
#define RC_PARAM(name, type, def, min, max, who, desc) \
	{#name, RC_PT_##type, def, min, max, who, desc},
#include "param_list.h"
#undef RC_PARAM
};

/* the test harness's own variables (scripts), never "unknown" */
static const char *const param_harness[] = {"RCMPI_TEST_", "RCMPI_VM_"};

const char *rc_param_type_name(enum rc_param_type t)
{
	static const char *const names[] = {
		[RC_PT_BOOL] = "bool",	[RC_PT_INT] = "int",
		[RC_PT_SIZE] = "size",	[RC_PT_SECONDS] = "seconds",
		[RC_PT_STR] = "string", [RC_PT_LIST] = "list",
	};

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

/* name[0..len) with or without the RCMPI_ prefix */
static int param_find_n(const char *name, size_t len)
{
	int i;

	if (len > 6 && !strncmp(name, "RCMPI_", 6)) {
		name += 6;
		len -= 6;
	}
	for (i = 0; i < RC_P_COUNT; i++)
		if (strlen(rc_params[i].name) == len &&
		    !memcmp(rc_params[i].name, name, len))
			return i;
	return -1;
}

int rc_param_find(const char *name)
{
	return param_find_n(name, strlen(name));
}

const char *rc_param_raw(enum rc_param_id id)
{
	char key[128];
	const char *v;

	snprintf(key, sizeof(key), "RCMPI_%s", rc_params[id].name);
	v = getenv(key);
	return v && *v ? v : NULL;
}

/* ---- parsers ------------------------------------------------------------- */

bool rc_param_parse_long(const char *v, long min, long max, long *out)
{
	char *end;
	long val;
	int shift = 0;

	errno = 0;
	val = strtol(v, &end, 0);
	if (errno || end == v)
		return false;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	}
	if (*end)
		return false;
	if (shift && (val > LONG_MAX >> shift || val < LONG_MIN >> shift))
		return false;
	val = shift ? (long)((unsigned long)val << shift) : val;
	if (val < min || val > max)
		return false;
	*out = val;
	return true;
}

bool rc_param_parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "1") || !strcasecmp(v, "yes") ||
	    !strcasecmp(v, "true") || !strcasecmp(v, "on")) {
		*out = true;
		return true;
	}
	if (!strcmp(v, "0") || !strcasecmp(v, "no") ||
	    !strcasecmp(v, "false") || !strcasecmp(v, "off")) {
		*out = false;
		return true;
	}
	return false;
}

bool rc_param_parse_seconds(const char *v, double max, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (end == v || *end || errno || !isfinite(x) || !(x > 0) || x > max)
		return false;
	*out = x;
	return true;
}

bool rc_param_valid(const struct rc_param_def *d, const char *v, char *why,
		    size_t whylen)
{
	bool b;
	double s;
	long l;

	switch (d->type) {
	case RC_PT_BOOL:
		if (rc_param_parse_bool(v, &b))
			return true;
		snprintf(why, whylen,
			 "not a boolean (1/0, yes/no, true/false, on/off)");
		return false;
	case RC_PT_INT:
	case RC_PT_SIZE:
		if (!strcmp(d->def, "auto") && !strcmp(v, "auto"))
			return true;
		if (rc_param_parse_long(v, d->min, d->max, &l))
			return true;
		snprintf(why, whylen, "not a number in [%ld, %ld]%s", d->min,
			 d->max,
			 d->type == RC_PT_SIZE ? " (k, m, g suffixes allowed)"
					       : "");
		return false;
	case RC_PT_SECONDS:
		if (rc_param_parse_seconds(v, (double)d->max, &s))
			return true;
		snprintf(why, whylen,
			 "not a number of seconds > 0 (at most %ld)", d->max);
		return false;
	case RC_PT_STR:
	case RC_PT_LIST:
		return true;
	}
	snprintf(why, whylen, "unknown type");
	return false;
}

/* ---- readers ------------------------------------------------------------- */

static long param_long(enum rc_param_id id, long def, long max)
{
	const struct rc_param_def *d = &rc_params[id];
	const char *v = rc_param_raw(id);
	long val;

	if (!v)
		return def;
	if (!strcmp(d->def, "auto") && !strcmp(v, "auto"))
		return def;
	if (rc_param_parse_long(v, d->min, max, &val))
		return val;
	rc_log_warn("RCMPI_%s=%s is not a number in [%ld, %ld]; using %ld",
		    d->name, v, d->min, max, def);
	return def;
}

long rc_param_int_max(enum rc_param_id id, long max)
{
	const struct rc_param_def *d = &rc_params[id];
	long def = d->min;

	/* the table's default is valid (test_param checks it) */
	rc_param_parse_long(d->def, d->min, d->max, &def);
	return param_long(id, def, max < d->max ? max : d->max);
}

long rc_param_int(enum rc_param_id id)
{
	return rc_param_int_max(id, rc_params[id].max);
}

long rc_param_int_at(enum rc_param_id id, long def, long max)
{
	return param_long(id, def,
			  max < rc_params[id].max ? max : rc_params[id].max);
}

bool rc_param_bool(enum rc_param_id id)
{
	const struct rc_param_def *d = &rc_params[id];
	const char *v = rc_param_raw(id);
	bool def = false, val;

	rc_param_parse_bool(d->def, &def);
	if (!v)
		return def;
	if (rc_param_parse_bool(v, &val))
		return val;
	rc_log_warn("RCMPI_%s=%s is not a boolean; using %d", d->name, v, def);
	return def;
}

const char *rc_param_str(enum rc_param_id id)
{
	const char *v = rc_param_raw(id);

	if (v)
		return v;
	return rc_params[id].def[0] ? rc_params[id].def : NULL;
}

bool rc_param_list_has(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

/* ---- unknown names ------------------------------------------------------- */

/* edit distance of a[0..la) and b[0..lb), capped at 99 */
static unsigned param_distance(const char *a, size_t la, const char *b,
			       size_t lb)
{
	unsigned row[64], prev, tmp, best;
	size_t i, j;

	if (la >= 64 || lb >= 64)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (unsigned)i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

bool rc_param_unknown(const char *var, char *hint, size_t hintlen)
{
	const char *eq = strchr(var, '=');
	size_t len = eq ? (size_t)(eq - var) : strlen(var);
	unsigned best = 99, dist;
	int i, pick = -1;
	size_t k;

	if (hintlen)
		hint[0] = 0;
	if (len < 6 || strncmp(var, "RCMPI_", 6))
		return false;
	for (k = 0; k < sizeof(param_harness) / sizeof(param_harness[0]); k++)
		if (!strncmp(var, param_harness[k], strlen(param_harness[k])))
			return false;
	if (param_find_n(var, len) >= 0)
		return false;
	for (i = 0; i < RC_P_COUNT; i++) {
		dist = param_distance(var + 6, len - 6, rc_params[i].name,
				      strlen(rc_params[i].name));
		if (dist < best) {
			best = dist;
			pick = i;
		}
	}
	/* close enough to be a slip: a third of the name at most */
	if (pick >= 0 && best * 3 <= len - 6 && hintlen)
		snprintf(hint, hintlen, "RCMPI_%s", rc_params[pick].name);
	return true;
}

int rc_param_check_env(void)
{
	static bool done;
	char **e, hint[128];
	int n = 0;

	if (done)
		return 0;
	done = true;
	for (e = environ; e && *e; e++) {
		if (!rc_param_unknown(*e, hint, sizeof(hint)))
			continue;
		n++;
		if (hint[0])
			rc_log_warn("%.*s is not an rcmpi parameter (did you "
				    "mean %s?); ignored",
				    (int)strcspn(*e, "="), *e, hint);
		else
			rc_log_warn(
				"%.*s is not an rcmpi parameter (rcmpi_info "
				"--param lists them); ignored",
				(int)strcspn(*e, "="), *e);
	}
	return n;
}
