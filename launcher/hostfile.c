/*
 * hostfile.c - where the ranks go: the host list (-H, --hostfile) and the
 * mapping of ranks onto it (--map-by slot|node).
 *
 *   -H host[:slots][,host[:slots]...]      slots default to 1
 *   hostfile:  one host per line, "host [slots=N]"; '#' starts a comment;
 *              blank lines are skipped; slots default to 1
 *
 * A host named twice gets the sum of its slots (Open MPI does the same).
 * Host names are letters, digits, '-', '_' and '.', starting with a letter
 * or digit (IPv4 addresses included). Every mistake is reported once with
 * where it is ("FILE:LINE: ..." or "-H 'spec': ...") and why.
 *
 * Mapping: "slot" fills each host's slots in list order (ranks 0..s0-1 on
 * the first host, and so on); "node" deals ranks round-robin, one per host
 * with a free slot per round; "ppr:N:node" (-N N) puts N ranks on each
 * host in list order. More ranks than slots need --oversubscribe: slot
 * mapping then starts another pass over the list, node mapping goes on
 * round-robin over every host, ppr may exceed a host's slots.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

#define HOST_MAX_SLOTS (1 << 20)
#define HOST_MAX_NAME 253

void rc_hosts_free(struct rc_hostlist *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->h[i].name);
	free(l->h);
	l->h = NULL;
	l->n = 0;
}

/* NULL if the name is fine, else why not */
static const char *host_name_bad(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return "empty host name";
	if (len > HOST_MAX_NAME)
		return "host name longer than 253 characters";
	if (!isalnum((unsigned char)s[0]))
		return "a host name starts with a letter or a digit";
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
			return "a host name has only letters, digits, '-', "
			       "'_' and '.'";
	return NULL;
}

int rc_hosts_add(struct rc_hostlist *l, const char *name, size_t len,
		 int slots)
{
	struct rc_host *nh;
	int i;

	for (i = 0; i < l->n; i++) {
		if (strlen(l->h[i].name) == len &&
		    !memcmp(l->h[i].name, name, len)) {
			if (l->h[i].slots > HOST_MAX_SLOTS - slots)
				return -1;
			l->h[i].slots += slots;
			return 0;
		}
	}
	nh = realloc(l->h, sizeof(*nh) * (l->n + 1));
	if (!nh)
		return -1;
	l->h = nh;
	nh[l->n].name = strndup(name, len);
	if (!nh[l->n].name)
		return -1;
	nh[l->n].slots = slots;
	l->n++;
	return 0;
}

/* "N" → slots; NULL or why not */
static const char *host_slots(const char *s, size_t len, int *out)
{
	char buf[32], *end;
	long v;

	if (!len)
		return "no number of slots";
	if (len >= sizeof(buf))
		return "the number of slots is too large";
	memcpy(buf, s, len);
	buf[len] = 0;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (*end || errno || !isdigit((unsigned char)buf[0]))
		return "the number of slots is not a whole number";
	if (v < 1)
		return "the number of slots must be at least 1";
	if (v > HOST_MAX_SLOTS)
		return "the number of slots is too large";
	*out = (int)v;
	return NULL;
}

int rc_hosts_parse_spec(struct rc_hostlist *l, const char *spec)
{
	const char *p = spec, *end, *colon, *why;
	int slots, entry = 0;

	if (!*spec) {
		rc_lerr("-H: empty host list");
		return -1;
	}
	for (;;) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		entry++;
		colon = memchr(p, ':', (size_t)(end - p));
		slots = 1;
		why = host_name_bad(p, (size_t)((colon ? colon : end) - p));
		if (!why && colon)
			why = host_slots(colon + 1,
					 (size_t)(end - colon - 1), &slots);
		if (why) {
			rc_lerr("-H '%s': entry %d '%.*s': %s", spec, entry,
				(int)(end - p), p, why);
			return -1;
		}
		if (rc_hosts_add(l, p, (size_t)((colon ? colon : end) - p),
				 slots)) {
			rc_lerr("-H '%s': too many slots or out of memory",
				spec);
			return -1;
		}
		if (!*end)
			break;
		p = end + 1;
	}
	return 0;
}

/* one line of a hostfile (comment already cut); NULL or why not */
static const char *host_line(struct rc_hostlist *l, char *line)
{
	const char *why;
	char *tok, *save, *name;
	size_t nl;
	int slots = 1;
	bool have_slots = false;

	name = strtok_r(line, " \t\r", &save);
	if (!name)
		return NULL;		/* blank */
	nl = strlen(name);
	if (memchr(name, ':', nl))
		return "use \"host slots=N\" in a hostfile, not host:N";
	why = host_name_bad(name, nl);
	if (why)
		return why;
	while ((tok = strtok_r(NULL, " \t\r", &save))) {
		if (strncmp(tok, "slots=", 6)) {
			static char msg[128];

			snprintf(msg, sizeof(msg),
				 "unknown field '%.40s' (expected slots=N)",
				 tok);
			return msg;
		}
		if (have_slots)
			return "slots given twice";
		why = host_slots(tok + 6, strlen(tok + 6), &slots);
		if (why)
			return why;
		have_slots = true;
	}
	if (rc_hosts_add(l, name, nl, slots))
		return "too many slots, or out of memory";
	return NULL;
}

int rc_hosts_parse_file(struct rc_hostlist *l, const char *path)
{
	char *line = NULL, *hash;
	size_t cap = 0;
	ssize_t len;
	const char *why;
	int lineno = 0, ret = -1, before = l->n;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		rc_lerr("--hostfile %s: %s", path, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if ((size_t)len != strlen(line)) {
			rc_lerr("%s:%d: a NUL byte in the line", path, lineno);
			goto out;
		}
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		why = host_line(l, line);
		if (why) {
			rc_lerr("%s:%d: %s", path, lineno, why);
			goto out;
		}
	}
	if (ferror(f)) {
		rc_lerr("--hostfile %s: %s", path, strerror(errno));
		goto out;
	}
	if (l->n == before) {
		rc_lerr("%s: no hosts in the file", path);
		goto out;
	}
	ret = 0;
out:
	free(line);
	fclose(f);
	return ret;
}

/* ppr: N ranks on each host in order, within its slots unless
 * oversubscribing */
static int hosts_map_ppr(const struct rc_hostlist *l, int np, int ppr,
			 bool oversubscribe, int *host_of)
{
	int r = 0, h, k;

	if ((long)ppr * l->n < np) {
		rc_lerr("%d ranks requested but %d per node on %d host%s give "
			"only %ld",
			np, ppr, l->n, l->n == 1 ? "" : "s", (long)ppr * l->n);
		return -1;
	}
	for (h = 0; h < l->n && r < np; h++) {
		if (ppr > l->h[h].slots && !oversubscribe) {
			rc_lerr("%d ranks per node but host %s has only %d "
				"slot%s; use --oversubscribe to run more ranks "
				"than slots",
				ppr, l->h[h].name, l->h[h].slots,
				l->h[h].slots == 1 ? "" : "s");
			return -1;
		}
		for (k = 0; k < ppr && r < np; k++)
			host_of[r++] = h;
	}
	return 0;
}

int rc_hosts_map(const struct rc_hostlist *l, int np, enum rc_mapby by, int ppr,
		 bool oversubscribe, int *host_of)
{
	long total = 0;
	int *placed, r = 0, h, k;
	bool progress;

	if (by == RC_MAP_PPR)
		return hosts_map_ppr(l, np, ppr, oversubscribe, host_of);
	for (h = 0; h < l->n; h++)
		total += l->h[h].slots;
	if (np > total && !oversubscribe) {
		rc_lerr("%d ranks requested but the hosts have only %ld "
			"slot%s; use --oversubscribe to run more ranks than "
			"slots", np, total, total == 1 ? "" : "s");
		return -1;
	}
	placed = calloc(l->n, sizeof(*placed));
	if (!placed) {
		rc_lerr("out of memory");
		return -1;
	}
	if (by == RC_MAP_SLOT) {
		while (r < np) {
			for (h = 0; h < l->n && r < np; h++)
				for (k = 0; k < l->h[h].slots && r < np; k++)
					host_of[r++] = h;
		}
	} else {
		while (r < np) {
			progress = false;
			for (h = 0; h < l->n && r < np; h++) {
				if (placed[h] >= l->h[h].slots)
					continue;
				placed[h]++;
				host_of[r++] = h;
				progress = true;
			}
			/* every slot taken: round-robin over every host */
			for (h = 0; !progress && h < l->n && r < np; h++)
				host_of[r++] = h;
		}
	}
	free(placed);
	return 0;
}

/* "a.b.c" → length of "a" */
static size_t host_short_len(const char *s)
{
	const char *dot = strchr(s, '.');

	return dot ? (size_t)(dot - s) : strlen(s);
}

bool rc_host_is_local(const char *name, const char *me)
{
	size_t a, b;

	if (!strcmp(name, me) || !strcmp(name, "localhost"))
		return true;
	if (rc_net_is_local_addr(name))
		return true;
	/* "node1" and "node1.cluster" are one host; "a.x" and "a.y" not */
	if (strchr(name, '.') && strchr(me, '.'))
		return false;
	a = host_short_len(name);
	b = host_short_len(me);
	return a == b && !memcmp(name, me, a) && !isdigit((unsigned char)
		name[0]);
}
