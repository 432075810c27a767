/*
 * param.c - RCMPI_<NAME> environment parameters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "log.h"
#include "param.h"

static const char *rc_param_get(const char *name, char *key, size_t keylen)
{
	snprintf(key, keylen, "RCMPI_%s", name);
	return getenv(key);
}

long rc_param_int(const char *name, long def, long min, long max)
{
	char key[128], *end;
	const char *v = rc_param_get(name, key, sizeof(key));
	long val;

	if (!v || !*v)
		return def;
	errno = 0;
	val = strtol(v, &end, 0);
	if (errno || end == v)
		goto bad;
	switch (*end) {
	case 'k': case 'K': val <<= 10; end++; break;
	case 'm': case 'M': val <<= 20; end++; break;
	case 'g': case 'G': val <<= 30; end++; break;
	}
	if (*end || val < min || val > max)
		goto bad;
	return val;
bad:
	rc_log_warn("%s=%s is not a number in [%ld, %ld]; using %ld", key, v,
		    min, max, def);
	return def;
}

const char *rc_param_str(const char *name, const char *def)
{
	char key[128];
	const char *v = rc_param_get(name, key, sizeof(key));

	return v && *v ? v : def;
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

bool rc_param_bool(const char *name, bool def)
{
	char key[128];
	const char *v = rc_param_get(name, key, sizeof(key));

	if (!v || !*v)
		return def;
	if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
	    !strcasecmp(v, "on"))
		return true;
	if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") ||
	    !strcasecmp(v, "off"))
		return false;
	rc_log_warn("%s=%s is not a boolean; using %d", key, v, def);
	return def;
}
