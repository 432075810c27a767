/*
 * topo.c - the CPUs of this host as cores, sockets and NUMA nodes, and
 * what a local rank binds to (--bind-to core|socket|numa).
 *
 * Only the CPUs we may run on count (sched_getaffinity): inside a cgroup
 * or a Slurm step that is the allocation. For each one sysfs says its
 * package (topology/physical_package_id) and core (topology/core_id);
 * hardware threads of one core share both. NUMA nodes list their CPUs in
 * /sys/devices/system/node/nodeN/cpulist. Whatever sysfs lacks is taken
 * as one CPU per core, one socket, one NUMA node. Tests point the reads at
 * a fake tree with RCMPI_TEST_ROOT.
 *
 * Placement: local rank i goes to the i-th core (cores in the order of
 * their first CPU; around again when there are more ranks than cores),
 * and binds to that core's CPUs, or to every CPU of its socket or NUMA
 * node.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"
#include "param.h"

/* an integer from ROOT/path, or -1 */
static int topo_read_int(const char *root, const char *path)
{
	char full[4096];
	FILE *f;
	int v = -1;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* "0-3,8,10-11": is cpu in it? */
static bool topo_list_has(const char *list, int cpu)
{
	const char *p = list;
	char *end;
	long a, b;

	while (*p) {
		a = strtol(p, &end, 10);
		if (end == p)
			return false;
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (cpu >= a && cpu <= b)
			return true;
		if (*end != ',')
			return false;
		p = end + 1;
	}
	return false;
}

/* dense index of `id` in ids[0..*n), added when new */
static int topo_index(int *ids, int *n, int id)
{
	int i;

	for (i = 0; i < *n; i++)
		if (ids[i] == id)
			return i;
	ids[*n] = id;
	return (*n)++;
}

/* the NUMA nodes: ids and CPU lists (malloc'd); how many */
static int topo_numa_nodes(const char *root, int **ids, char ***lists)
{
	char path[4096], line[4096];
	struct dirent *e;
	char **l = NULL, **nl;
	int *id = NULL, *ni, n = 0;
	char *end;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "%s/sys/devices/system/node", root);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		long v;

		if (strncmp(e->d_name, "node", 4))
			continue;
		v = strtol(e->d_name + 4, &end, 10);
		if (end == e->d_name + 4 || *end || v < 0)
			continue;
		snprintf(path, sizeof(path),
			 "%s/sys/devices/system/node/%s/"
			 "cpulist",
			 root, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
		nl = realloc(l, sizeof(*l) * (n + 1));
		ni = nl ? realloc(id, sizeof(*id) * (n + 1)) : NULL;
		if (nl)
			l = nl;
		if (ni)
			id = ni;
		if (!nl || !ni || !(l[n] = strdup(line)))
			break;
		id[n++] = (int)v;
	}
	if (d)
		closedir(d);
	*ids = id;
	*lists = l;
	return n;
}

int rc_topo_load(struct rc_topo *t)
{
	const char *root = rc_param_str(RC_P_TEST_ROOT);
	int *pkg_core = NULL, *nid = NULL, i, j, n, nn;
	char path[256], **nlist = NULL;

	memset(t, 0, sizeof(*t));
	if (!root)
		root = "";
	n = rc_cpus_allowed(&t->cpu);
	if (n <= 0)
		return -1;
	t->ncpus = n;
	t->core = calloc(n, sizeof(int));
	t->socket = calloc(n, sizeof(int));
	t->numa = calloc(n, sizeof(int));
	t->socket_id = calloc(n, sizeof(int));
	t->numa_id = calloc(n, sizeof(int));
	t->core_cpu = calloc(n, sizeof(int));
	pkg_core = calloc(2 * (size_t)n, sizeof(int));
	if (!t->core || !t->socket || !t->numa || !t->socket_id ||
	    !t->numa_id || !t->core_cpu || !pkg_core)
		goto err;
	nn = topo_numa_nodes(root, &nid, &nlist);
	for (i = 0; i < n; i++) {
		int pkg, core;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/"
			 "topology/physical_package_id",
			 t->cpu[i]);
		pkg = topo_read_int(root, path);
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/"
			 "topology/core_id",
			 t->cpu[i]);
		core = topo_read_int(root, path);
		if (pkg < 0)
			pkg = 0;
		if (core < 0)
			core = -1 - t->cpu[i]; /* unknown: a core of its own */
		t->socket[i] = topo_index(t->socket_id, &t->nsockets, pkg);
		/* a core is a (package, core id) pair */
		for (j = 0; j < t->ncores; j++)
			if (pkg_core[2 * j] == pkg &&
			    pkg_core[2 * j + 1] == core)
				break;
		if (j == t->ncores) {
			pkg_core[2 * j] = pkg;
			pkg_core[2 * j + 1] = core;
			t->core_cpu[j] = t->cpu[i];
			t->ncores++;
		}
		t->core[i] = j;
		/* NUMA: the node whose cpulist has it (node 0 if none) */
		t->numa[i] = -1;
		for (j = 0; j < nn && t->numa[i] < 0; j++)
			if (topo_list_has(nlist[j], t->cpu[i]))
				t->numa[i] = topo_index(t->numa_id, &t->nnuma,
							nid[j]);
		if (t->numa[i] < 0)
			t->numa[i] = topo_index(t->numa_id, &t->nnuma, 0);
	}
	for (j = 0; j < nn; j++)
		free(nlist[j]);
	free(nlist);
	free(nid);
	free(pkg_core);
	return 0;
err:
	free(pkg_core);
	rc_topo_free(t);
	errno = ENOMEM;
	return -1;
}

void rc_topo_free(struct rc_topo *t)
{
	free(t->cpu);
	free(t->core);
	free(t->socket);
	free(t->numa);
	free(t->socket_id);
	free(t->numa_id);
	free(t->core_cpu);
	memset(t, 0, sizeof(*t));
}

/* "0-3,8" */
void rc_cpulist_str(const int *cpus, int n, char *out, size_t len)
{
	size_t off = 0;
	int i, j;

	out[0] = 0;
	for (i = 0; i < n && off + 24 < len; i = j + 1) {
		for (j = i; j + 1 < n && cpus[j + 1] == cpus[j] + 1; j++)
			;
		if (j > i)
			off += (size_t)snprintf(out + off, len - off, "%s%d-%d",
						off ? "," : "", cpus[i],
						cpus[j]);
		else
			off += (size_t)snprintf(out + off, len - off, "%s%d",
						off ? "," : "", cpus[i]);
	}
}

int rc_topo_bind(const struct rc_topo *t, enum rc_bind mode, int i, int *cpus,
		 char *desc, size_t len)
{
	int core = i % t->ncores, k, n = 0, first = -1;

	for (k = 0; k < t->ncpus; k++) {
		if (t->core[k] == core && first < 0)
			first = k;
	}
	for (k = 0; k < t->ncpus; k++) {
		bool in = mode == RC_BIND_CORE ? t->core[k] == core
			  : mode == RC_BIND_SOCKET
				  ? t->socket[k] == t->socket[first]
			  : mode == RC_BIND_NUMA ? t->numa[k] == t->numa[first]
						 : false;
		if (in)
			cpus[n++] = t->cpu[k];
	}
	if (mode == RC_BIND_CORE)
		snprintf(desc, len, "core %d", core);
	else if (mode == RC_BIND_SOCKET)
		snprintf(desc, len, "socket %d",
			 t->socket_id[t->socket[first]]);
	else
		snprintf(desc, len, "NUMA node %d", t->numa_id[t->numa[first]]);
	return n;
}
