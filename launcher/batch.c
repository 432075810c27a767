/*
 * batch.c - the hosts of a batch allocation, for mpirun started inside one
 * without -H or --hostfile. The first of these that is set wins:
 *
 *   RCMPI_HOSTFILE        a hostfile ("host [slots=N]" lines, hostfile.c)
 *   SLURM_JOB_NODELIST    Slurm: compressed host list, "node[01-04,07],
 *                         gpu[1-2]"; slots per node from
 *                         SLURM_TASKS_PER_NODE ("2(x3),1": 2 on each of
 *                         the first three, 1 on the fourth), else
 *                         SLURM_JOB_CPUS_PER_NODE (same syntax), else
 *                         SLURM_CPUS_ON_NODE on every node, else 1
 *   PBS_NODEFILE          PBS/Torque: a file with one host per line, a
 *                         host once per slot
 *   LSB_MCPU_HOSTS        LSF: "host1 4 host2 4" (host, slots, ...)
 *
 * Host-list syntax (Slurm's): entries separated by commas outside
 * brackets; an entry is text with bracketed range lists, each expanded in
 * order, several brackets giving every combination ("r[1-2]n[1-2]": r1n1,
 * r1n2, r2n1, r2n2); a range "a-b" keeps the width of a ("01-04": 01, 02,
 * 03, 04). Every mistake is one line naming the variable, the value and
 * why.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"
#include "param.h"

#define BATCH_MAX_HOSTS (1 << 20)

/* ---- host lists
 * -------------------------------------------------------------- */

struct names {
	char **v;
	int n, cap;
};

static int names_add(struct names *nm, const char *s, size_t len)
{
	char **nv;

	if (nm->n >= BATCH_MAX_HOSTS)
		return -1;
	if (nm->n == nm->cap) {
		nm->cap = nm->cap ? 2 * nm->cap : 16;
		nv = realloc(nm->v, sizeof(*nv) * nm->cap);
		if (!nv)
			return -1;
		nm->v = nv;
	}
	nm->v[nm->n] = strndup(s, len);
	if (!nm->v[nm->n])
		return -1;
	nm->n++;
	return 0;
}

static void names_free(struct names *nm)
{
	int i;

	for (i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	memset(nm, 0, sizeof(*nm));
}

/*
 * Expand one entry: `pre` is what is fixed so far, `rest` the remainder
 * (up to `end`). NULL or why not.
 */
static const char *expand(struct names *nm, char *pre, size_t plen,
			  const char *rest, const char *end)
{
	const char *open = memchr(rest, '[', (size_t)(end - rest));
	const char *close, *p, *q, *why;
	char *dash, num[32];
	unsigned long a, b, v;
	size_t fixed, width;

	if (!open) {
		if (memchr(rest, ']', (size_t)(end - rest)))
			return "']' without '['";
		if (plen + (size_t)(end - rest) >= 1024)
			return "a host name is too long";
		memcpy(pre + plen, rest, (size_t)(end - rest));
		return names_add(nm, pre, plen + (size_t)(end - rest))
			       ? "too many hosts, or out of memory"
			       : NULL;
	}
	close = memchr(open, ']', (size_t)(end - open));
	if (!close)
		return "'[' without ']'";
	if (memchr(rest, ']', (size_t)(open - rest)))
		return "']' without '['";
	if (close == open + 1)
		return "an empty or overlong range in brackets";
	fixed = (size_t)(open - rest);
	if (plen + fixed + 24 >= 1024)
		return "a host name is too long";
	memcpy(pre + plen, rest, fixed);
	for (p = open + 1; p < close; p = q + 1) {
		q = memchr(p, ',', (size_t)(close - p));
		if (!q)
			q = close;
		if (q == p || (size_t)(q - p) >= sizeof(num))
			return "an empty or overlong range in brackets";
		memcpy(num, p, (size_t)(q - p));
		num[q - p] = 0;
		if (!isdigit((unsigned char)num[0]))
			return "a range in brackets is not a number";
		dash = strchr(num, '-');
		if (dash)
			*dash = 0;
		width = strlen(num);
		errno = 0;
		a = strtoul(num, NULL, 10);
		b = dash ? strtoul(dash + 1, NULL, 10) : a;
		if (strspn(num, "0123456789") != width ||
		    (dash && (!dash[1] || strspn(dash + 1, "0123456789") !=
						  strlen(dash + 1))) ||
		    errno)
			return "a range in brackets is not a number";
		if (b < a)
			return "a range in brackets runs backwards";
		if (b - a >= BATCH_MAX_HOSTS)
			return "too many hosts";
		for (v = a; v <= b; v++) {
			int n = snprintf(pre + plen + fixed, 24, "%0*lu",
					 (int)width, v);

			why = expand(nm, pre, plen + fixed + (size_t)n,
				     close + 1, end);
			if (why)
				return why;
		}
	}
	return NULL;
}

/* the names of a Slurm host list, in order; NULL or why not */
static const char *hostlist_names(struct names *nm, const char *list)
{
	char pre[1024];
	const char *p = list, *e, *why;
	int depth;

	if (!*list)
		return "an empty host list";
	for (;;) {
		for (e = p, depth = 0; *e && (depth || *e != ','); e++) {
			if (*e == '[')
				depth++;
			else if (*e == ']' && depth)
				depth--;
		}
		if (e == p)
			return "an empty entry";
		why = expand(nm, pre, 0, p, e);
		if (why)
			return why;
		if (!*e)
			return NULL;
		p = e + 1;
	}
}

int rc_batch_hostlist(struct rc_hostlist *l, const char *list, const char *what)
{
	struct names nm = {0};
	const char *why;
	int i, ret = -1;

	why = hostlist_names(&nm, list);
	if (why) {
		rc_lerr("%s='%s': %s", what, list, why);
		goto out;
	}
	for (i = 0; i < nm.n; i++) {
		if (rc_hosts_add(l, nm.v[i], strlen(nm.v[i]), 1)) {
			rc_lerr("%s: out of memory", what);
			goto out;
		}
	}
	ret = 0;
out:
	names_free(&nm);
	return ret;
}

/* ---- "2(x3),1"
 * ----------------------------------------------------------------- */

int rc_batch_counts(const char *spec, int *counts, int n, const char *what)
{
	const char *p = spec;
	char *end;
	long v, rep;
	int k = 0;

	for (;;) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v < 1 || v > 1 << 20)
			goto bad;
		rep = 1;
		if (!strncmp(end, "(x", 2)) {
			p = end + 2;
			rep = strtol(p, &end, 10);
			if (end == p || *end != ')' || rep < 1 ||
			    rep > BATCH_MAX_HOSTS)
				goto bad;
			end++;
		}
		while (rep-- > 0) {
			if (k >= n) {
				rc_lerr("%s='%s' names more nodes than the "
					"allocation has (%d)",
					what, spec, n);
				return -1;
			}
			counts[k++] = (int)v;
		}
		if (!*end)
			break;
		if (*end != ',')
			goto bad;
		p = end + 1;
	}
	if (k != n) {
		rc_lerr("%s='%s' covers %d node%s, the allocation has %d", what,
			spec, k, k == 1 ? "" : "s", n);
		return -1;
	}
	return 0;
bad:
	rc_lerr("%s='%s': expected counts like 2(x3),1", what, spec);
	return -1;
}

int rc_batch_slurm_cpus(void)
{
	const char *spec = getenv("SLURM_JOB_CPUS_PER_NODE");
	const char *on = getenv("SLURM_CPUS_ON_NODE");
	const char *p = spec;
	char *end;
	long v, min = 0;

	/* "72(x2),36": the smallest count */
	while (p && *p) {
		v = strtol(p, &end, 10);
		if (end == p || v < 1)
			return 0;
		if (!min || v < min)
			min = v;
		p = strchr(end, ',');
		if (p)
			p++;
	}
	if (!min && on)
		min = strtol(on, &end, 10);
	return min > 0 && min < 1 << 20 ? (int)min : 0;
}

/* ---- the allocations
 * ------------------------------------------------------------ */

static int batch_slurm(struct rc_hostlist *l, const char *nodes)
{
	const char *tasks = getenv("SLURM_TASKS_PER_NODE");
	const char *cpus = getenv("SLURM_JOB_CPUS_PER_NODE");
	const char *on = getenv("SLURM_CPUS_ON_NODE");
	int *counts, i, each = 1;
	char *end;

	if (rc_batch_hostlist(l, nodes, "SLURM_JOB_NODELIST"))
		return -1;
	counts = calloc(l->n, sizeof(*counts));
	if (!counts) {
		rc_lerr("out of memory");
		return -1;
	}
	if (tasks && *tasks) {
		if (rc_batch_counts(tasks, counts, l->n,
				    "SLURM_TASKS_PER_NODE"))
			goto err;
	} else if (cpus && *cpus) {
		if (rc_batch_counts(cpus, counts, l->n,
				    "SLURM_JOB_CPUS_PER_NODE"))
			goto err;
	} else {
		if (on && *on) {
			each = (int)strtol(on, &end, 10);
			if (*end || each < 1) {
				rc_lerr("SLURM_CPUS_ON_NODE='%s' is not a "
					"number of CPUs",
					on);
				goto err;
			}
		}
		for (i = 0; i < l->n; i++)
			counts[i] = each;
	}
	for (i = 0; i < l->n; i++)
		l->h[i].slots = counts[i];
	free(counts);
	return 0;
err:
	free(counts);
	return -1;
}

int rc_batch_pbs(struct rc_hostlist *l, const char *path)
{
	char *line = NULL;
	size_t cap = 0, len;
	int lineno = 0, ret = -1, before = l->n;
	ssize_t n;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		rc_lerr("PBS_NODEFILE=%s: %s", path, strerror(errno));
		return -1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		len = strcspn(line, " \t\r\n");
		if (!len)
			continue;
		if (rc_hosts_add(l, line, len, 1)) {
			rc_lerr("PBS_NODEFILE=%s: out of memory", path);
			goto out;
		}
	}
	if (l->n == before) {
		rc_lerr("PBS_NODEFILE=%s: no hosts in the file", path);
		goto out;
	}
	ret = 0;
out:
	free(line);
	fclose(f);
	return ret;
}

int rc_batch_lsf(struct rc_hostlist *l, const char *spec)
{
	char *copy = strdup(spec), *save, *host, *slots, *end;
	long v;
	int ret = -1;

	if (!copy) {
		rc_lerr("out of memory");
		return -1;
	}
	for (host = strtok_r(copy, " \t", &save); host;
	     host = strtok_r(NULL, " \t", &save)) {
		slots = strtok_r(NULL, " \t", &save);
		if (!slots) {
			rc_lerr("LSB_MCPU_HOSTS='%s': host %s has no slot "
				"count",
				spec, host);
			goto out;
		}
		v = strtol(slots, &end, 10);
		if (*end || v < 1 || v > 1 << 20) {
			rc_lerr("LSB_MCPU_HOSTS='%s': '%s' is not a number of "
				"slots",
				spec, slots);
			goto out;
		}
		if (rc_hosts_add(l, host, strlen(host), (int)v)) {
			rc_lerr("LSB_MCPU_HOSTS: out of memory");
			goto out;
		}
	}
	if (!l->n) {
		rc_lerr("LSB_MCPU_HOSTS='%s': no hosts", spec);
		goto out;
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

int rc_batch_hosts(struct rc_hostlist *l, enum rc_batch *kind)
{
	const char *v;

	*kind = RC_BATCH_NONE;
	v = rc_param_str(RC_P_HOSTFILE);
	if (v) {
		*kind = RC_BATCH_HOSTFILE;
		if (access(v, R_OK)) {
			rc_lerr("RCMPI_HOSTFILE=%s: %s", v, strerror(errno));
			return -1;
		}
		return rc_hosts_parse_file(l, v);
	}
	v = getenv("SLURM_JOB_NODELIST");
	if (v && *v) {
		*kind = RC_BATCH_SLURM;
		return batch_slurm(l, v);
	}
	v = getenv("PBS_NODEFILE");
	if (v && *v) {
		*kind = RC_BATCH_PBS;
		return rc_batch_pbs(l, v);
	}
	v = getenv("LSB_MCPU_HOSTS");
	if (v && *v) {
		*kind = RC_BATCH_LSF;
		return rc_batch_lsf(l, v);
	}
	return 0;
}

const char *rc_batch_name(enum rc_batch kind)
{
	switch (kind) {
	case RC_BATCH_HOSTFILE:
		return "RCMPI_HOSTFILE";
	case RC_BATCH_SLURM:
		return "Slurm allocation";
	case RC_BATCH_PBS:
		return "PBS allocation";
	case RC_BATCH_LSF:
		return "LSF allocation";
	case RC_BATCH_NONE:
		break;
	}
	return "none";
}
