/*
 * launcher_unit.c - Check tests of the launcher pieces that need no
 * process: fence bookkeeping (fence.c) with several nodes, as the head of
 * a multi-node job sees it, and per subtree; the launch tree's shape
 * (tree.c); line assembly of forwarded output (iof.c) over
 * a real pipe, fed in awkward pieces; host lists and mapping (hostfile.c);
 * HMAC-SHA-256 (libcrypto, through auth.c) against published vectors;
 * message framing (net.c) over a socketpair and the handshake MACs. The
 * handshake itself is in launcher_auth.c.
 */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher.h"

/* ---- fence ---------------------------------------------------------------- */

START_TEST(fence_one_node_completes_at_once)
{
	struct rc_fence_tab *t = rc_fence_tab_new();
	char *out = (char *)1;
	size_t len = 99;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(rc_fence_add(t, "ns:*", 1, "abc", 3, &out, &len), 1);
	ck_assert_uint_eq(len, 3);
	ck_assert_mem_eq(out, "abc", 3);
	free(out);
	rc_fence_tab_free(t);
}
END_TEST

START_TEST(fence_waits_for_every_node_and_concatenates)
{
	struct rc_fence_tab *t = rc_fence_tab_new();
	char *out = NULL;
	size_t len = 0;

	ck_assert_int_eq(rc_fence_add(t, "ns:*", 3, "AA", 2, &out, &len), 0);
	/* another collective in between does not disturb it */
	ck_assert_int_eq(rc_fence_add(t, "ns:0,ns:5", 2, "x", 1, &out, &len),
			 0);
	ck_assert_int_eq(rc_fence_add(t, "ns:*", 3, NULL, 0, &out, &len), 0);
	ck_assert_ptr_null(out);
	ck_assert_int_eq(rc_fence_add(t, "ns:*", 3, "BBB", 3, &out, &len), 1);
	ck_assert_uint_eq(len, 5);
	ck_assert_mem_eq(out, "AABBB", 5);
	free(out);
	out = NULL;
	ck_assert_int_eq(rc_fence_add(t, "ns:0,ns:5", 2, "y", 1, &out, &len),
			 1);
	ck_assert_mem_eq(out, "xy", 2);
	free(out);
	rc_fence_tab_free(t);
}
END_TEST

START_TEST(fence_barrier_has_no_data)
{
	struct rc_fence_tab *t = rc_fence_tab_new();
	char *out = (char *)1;
	size_t len = 99;

	ck_assert_int_eq(rc_fence_add(t, "ns:*", 2, NULL, 0, &out, &len), 0);
	ck_assert_int_eq(rc_fence_add(t, "ns:*", 2, NULL, 0, &out, &len), 1);
	ck_assert_ptr_null(out);
	ck_assert_uint_eq(len, 0);
	/* the same participants again: a new collective */
	ck_assert_int_eq(rc_fence_add(t, "ns:*", 2, "z", 1, &out, &len), 0);
	rc_fence_tab_free(t);	/* frees the pending one */
}
END_TEST

START_TEST(fence_reports_contributing_nodes)
{
	struct rc_fence_tab *t = rc_fence_tab_new();
	char *out = NULL;
	size_t len = 0;
	int *nodes = NULL, nn = 0;

	ck_assert_int_eq(rc_fence_add_node(t, "ns:*", 3, 2, "c", 1, &out,
					   &len, &nodes, &nn), 0);
	ck_assert_int_eq(rc_fence_add_node(t, "ns:*", 3, 0, NULL, 0, &out,
					   &len, &nodes, &nn), 0);
	ck_assert_int_eq(rc_fence_add_node(t, "ns:*", 3, 1, "ab", 2, &out,
					   &len, &nodes, &nn), 1);
	ck_assert_int_eq(nn, 3);
	ck_assert_int_eq(nodes[0], 2);
	ck_assert_int_eq(nodes[1], 0);
	ck_assert_int_eq(nodes[2], 1);
	ck_assert_mem_eq(out, "cab", 3);
	free(nodes);
	free(out);
	rc_fence_tab_free(t);
}
END_TEST

/* a subtree's combined blob counts for all its nodes */
START_TEST(fence_subtree_counts)
{
	struct rc_fence_tab *t = rc_fence_tab_new();
	char *out = NULL;
	size_t len = 0;
	int *nodes = NULL, nn = 0;

	ck_assert_int_eq(rc_fence_add_count(t, "ns:*", 6, 2, 3, "abc", 3, &out,
					    &len, &nodes, &nn),
			 0);
	ck_assert_int_eq(rc_fence_add_count(t, "ns:*", 6, 0, 1, "d", 1, &out,
					    &len, &nodes, &nn),
			 0);
	/* more than expected is refused, nothing counted */
	ck_assert_int_eq(rc_fence_add_count(t, "ns:*", 6, 1, 3, "x", 1, &out,
					    &len, &nodes, &nn),
			 -1);
	ck_assert_int_eq(rc_fence_add_count(t, "ns:*", 6, 1, 2, "ef", 2, &out,
					    &len, &nodes, &nn),
			 1);
	ck_assert_uint_eq(len, 6);
	ck_assert_mem_eq(out, "abcdef", 6);
	ck_assert_int_eq(nn, 6);
	ck_assert_int_eq(nodes[0], 2);
	ck_assert_int_eq(nodes[1], -1);
	ck_assert_int_eq(nodes[3], 0);
	ck_assert_int_eq(nodes[4], 1);
	free(out);
	free(nodes);
	rc_fence_tab_free(t);
}
END_TEST

/* ---- the launch tree ------------------------------------------------------- */

START_TEST(tree_shape)
{
	struct rc_tree t;
	int kids[64], n, i, below;

	/* 10 nodes, mpirun serves node 3, radix 2: daemons on 0,1,2,4..9 at
	 * positions 0..8; mpirun's children 0,1; position 0's: 2,3 (nodes
	 * 2,4); position 1's: 4,5 (nodes 5,6); position 2's: 6,7 (7,8) */
	ck_assert_int_eq(rc_tree_init(&t, 10, 3, 2), 0);
	ck_assert_int_eq(rc_tree_kids(&t, -1, kids, 64), 2);
	ck_assert_int_eq(kids[0], 0);
	ck_assert_int_eq(kids[1], 1);
	ck_assert_int_eq(rc_tree_kids(&t, 0, kids, 64), 2);
	ck_assert_int_eq(kids[0], 2);
	ck_assert_int_eq(kids[1], 4);
	ck_assert_int_eq(rc_tree_kids(&t, 2, kids, 64), 2);
	ck_assert_int_eq(kids[0], 7);
	ck_assert_int_eq(kids[1], 8);
	ck_assert_int_eq(rc_tree_kids(&t, 4, kids, 64), 1);
	ck_assert_int_eq(kids[0], 9);
	ck_assert_int_eq(rc_tree_kids(&t, 9, kids, 64), 0);
	ck_assert_int_eq(rc_tree_kids(&t, 3, kids, 64), 0);
	ck_assert_int_eq(rc_tree_parent(&t, 0), -1);
	ck_assert_int_eq(rc_tree_parent(&t, 1), -1);
	ck_assert_int_eq(rc_tree_parent(&t, 7), 2);
	ck_assert_int_eq(rc_tree_parent(&t, 9), 4);
	ck_assert_int_eq(rc_tree_parent(&t, 3), -1);
	ck_assert_int_eq(rc_tree_depth(&t, 9), 3);
	ck_assert_int_eq(rc_tree_depth(&t, 1), 1);
	ck_assert_int_eq(rc_tree_next_hop(&t, -1, 9), 0);
	ck_assert_int_eq(rc_tree_next_hop(&t, 0, 9), 4);
	ck_assert_int_eq(rc_tree_next_hop(&t, 4, 9), 9);
	ck_assert_int_eq(rc_tree_next_hop(&t, 1, 9), -1);
	ck_assert_int_eq(rc_tree_next_hop(&t, 9, 9), -1);
	ck_assert_int_eq(rc_tree_below(&t, 0), 5); /* 2,4,7,8,9 */
	ck_assert_int_eq(rc_tree_below(&t, 1), 2);
	ck_assert_int_eq(rc_tree_below(&t, 2), 2);
	ck_assert_int_eq(rc_tree_below(&t, 9), 0);
	/* every daemon is below exactly one of mpirun's children */
	n = rc_tree_kids(&t, -1, kids, 64);
	for (i = 0, below = 0; i < n; i++)
		below += 1 + rc_tree_below(&t, kids[i]);
	ck_assert_int_eq(below, 9);
	rc_tree_free(&t);
}
END_TEST

START_TEST(tree_flat_and_large)
{
	struct rc_tree t;
	int kids[200], n, i, j, cnt;

	/* radix 0: mpirun starts every daemon, they start none */
	ck_assert_int_eq(rc_tree_init(&t, 5, -1, 0), 0);
	ck_assert_int_eq(rc_tree_kids(&t, -1, kids, 200), 5);
	ck_assert_int_eq(rc_tree_kids(&t, 2, kids, 200), 0);
	ck_assert_int_eq(rc_tree_parent(&t, 4), -1);
	ck_assert_int_eq(rc_tree_below(&t, 0), 0);
	rc_tree_free(&t);
	/* 128 daemons, radix 4: each below its parent's range, depth 4 */
	ck_assert_int_eq(rc_tree_init(&t, 128, -1, 4), 0);
	ck_assert_int_eq(rc_tree_kids(&t, -1, kids, 200), 4);
	for (i = 0, cnt = 0; i < 128; i++) {
		n = rc_tree_kids(&t, i, kids, 200);
		cnt += n;
		ck_assert_int_le(n, 4);
		for (j = 0; j < n; j++)
			ck_assert_int_eq(rc_tree_parent(&t, kids[j]), i);
		ck_assert_int_le(rc_tree_depth(&t, i), 4);
	}
	ck_assert_int_eq(cnt, 124);
	ck_assert_int_eq(rc_tree_below(&t, 0) + rc_tree_below(&t, 1) +
				 rc_tree_below(&t, 2) + rc_tree_below(&t, 3),
			 124);
	rc_tree_free(&t);
}
END_TEST

/* ---- host lists (hostfile.c) ------------------------------------------------ */

static char tmpl_dir[] = "/tmp/rcmpi-unit.XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpl_dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* parse a -H spec; the error line on stderr is not checked here */
static int spec(struct rc_hostlist *l, const char *s)
{
	memset(l, 0, sizeof(*l));
	return rc_hosts_parse_spec(l, s);
}

START_TEST(hosts_spec)
{
	struct rc_hostlist l;

	ck_assert_int_eq(spec(&l, "a:2,b,c.x-y_z:3,a:1"), 0);
	ck_assert_int_eq(l.n, 3);
	ck_assert_str_eq(l.h[0].name, "a");
	ck_assert_int_eq(l.h[0].slots, 3);	/* named twice: summed */
	ck_assert_int_eq(l.h[1].slots, 1);	/* default */
	ck_assert_str_eq(l.h[2].name, "c.x-y_z");
	ck_assert_int_eq(l.h[2].slots, 3);
	rc_hosts_free(&l);
	ck_assert_int_eq(spec(&l, "10.0.0.1:4"), 0);
	ck_assert_int_eq(l.h[0].slots, 4);
	rc_hosts_free(&l);
}
END_TEST

START_TEST(hosts_spec_rejects)
{
	static const char *bad[] = { "", ",", "a,", "a:", "a:0", "a:-1",
		"a:x", "a:2x", "a:99999999999", "-a", "a b", "a:1:2", "a;b",
		":3", "a,,b" };
	struct rc_hostlist l;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(spec(&l, bad[i]) == -1, "accepted '%s'", bad[i]);
		rc_hosts_free(&l);
	}
}
END_TEST

START_TEST(hostfile_ok)
{
	struct rc_hostlist l = { 0 };
	const char *p = write_file("hf",
		"# a comment\n"
		"\n"
		"node1 slots=2   # trailing comment\n"
		"   node2\t slots=3\n"
		"node3\n"
		"node1 slots=1\n"
		"   \t\n");

	ck_assert_int_eq(rc_hosts_parse_file(&l, p), 0);
	ck_assert_int_eq(l.n, 3);
	ck_assert_str_eq(l.h[0].name, "node1");
	ck_assert_int_eq(l.h[0].slots, 3);
	ck_assert_int_eq(l.h[1].slots, 3);
	ck_assert_int_eq(l.h[2].slots, 1);
	rc_hosts_free(&l);
}
END_TEST

START_TEST(hostfile_rejects)
{
	static const char *bad[] = { "node1 slots=0\n", "node1 slots=x\n",
		"node1 slots=\n", "node1 slot=2\n", "node1 slots=2 slots=3\n",
		"node1:2\n", "-node\n", "# only comments\n\n", "",
		"node1 max_slots=4\n", "no/de\n" };
	struct rc_hostlist l = { 0 };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(rc_hosts_parse_file(&l, write_file("bad", bad[i]))
			      == -1, "accepted '%s'", bad[i]);
		rc_hosts_free(&l);
	}
	ck_assert_int_eq(rc_hosts_parse_file(&l, "/nonexistent/hf"), -1);
}
END_TEST

static void map_check(const char *s, int np, enum rc_mapby by, int ppr,
		      bool over, const char *want)
{
	struct rc_hostlist l;
	int host_of[64], i;
	char got[65];

	ck_assert_int_eq(spec(&l, s), 0);
	if (!want) {
		ck_assert_int_eq(rc_hosts_map(&l, np, by, ppr, over, host_of),
				 -1);
		rc_hosts_free(&l);
		return;
	}
	ck_assert_int_eq(rc_hosts_map(&l, np, by, ppr, over, host_of), 0);
	for (i = 0; i < np; i++)
		got[i] = (char)('a' + host_of[i]);
	got[np] = 0;
	ck_assert_str_eq(got, want);
	rc_hosts_free(&l);
}

static void map_expect(const char *s, int np, enum rc_mapby by, bool over,
		       const char *want)
{
	map_check(s, np, by, 0, over, want);
}

START_TEST(hosts_map)
{
	map_expect("a:2,b:2", 4, RC_MAP_SLOT, false, "aabb");
	map_expect("a:2,b:2", 3, RC_MAP_SLOT, false, "aab");
	map_expect("a:2,b:2", 4, RC_MAP_NODE, false, "abab");
	map_expect("a:3,b:1", 4, RC_MAP_NODE, false, "abaa");
	map_expect("a:2,b:2", 5, RC_MAP_SLOT, false, NULL);
	map_expect("a:2,b:1", 5, RC_MAP_SLOT, true, "aabaa");
	map_expect("a:2,b:1", 6, RC_MAP_NODE, true, "abaaba");
	/* ppr:N:node: N per host in order, within the slots */
	map_check("a:2,b:2,c:2", 6, RC_MAP_PPR, 2, false, "aabbcc");
	map_check("a:2,b:2,c:2", 3, RC_MAP_PPR, 2, false, "aab");
	map_check("a:4,b:4", 2, RC_MAP_PPR, 1, false, "ab");
	map_check("a:2,b:2", 5, RC_MAP_PPR, 2, false, NULL);
	map_check("a:2,b:1", 4, RC_MAP_PPR, 2, false, NULL);
	map_check("a:2,b:1", 4, RC_MAP_PPR, 2, true, "aabb");
}
END_TEST

START_TEST(host_is_local)
{
	ck_assert(rc_host_is_local("node1", "node1"));
	ck_assert(rc_host_is_local("localhost", "node1"));
	ck_assert(rc_host_is_local("127.0.0.1", "node1"));
	ck_assert(rc_host_is_local("node1", "node1.cluster"));
	ck_assert(rc_host_is_local("node1.cluster", "node1"));
	ck_assert(!rc_host_is_local("node1.a", "node1.b"));
	ck_assert(!rc_host_is_local("node2", "node1"));
	ck_assert(!rc_host_is_local("node", "node1"));
}
END_TEST

/* ---- batch allocations (batch.c) -------------------------------------------
 */

/* "name:slots,..." of a host list */
static const char *hl_str(const struct rc_hostlist *l)
{
	static char buf[1024];
	size_t off = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < l->n && off < sizeof(buf) - 64; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s:%d",
					i ? "," : "", l->h[i].name,
					l->h[i].slots);
	return buf;
}

static const char *expand_ok(const char *list)
{
	struct rc_hostlist l = {0};
	static char out[1024];

	ck_assert_msg(rc_batch_hostlist(&l, list, "SLURM_JOB_NODELIST") == 0,
		      "'%s': %s", list, rc_last_err);
	snprintf(out, sizeof(out), "%s", hl_str(&l));
	rc_hosts_free(&l);
	return out;
}

START_TEST(slurm_hostlist)
{
	ck_assert_str_eq(expand_ok("node[01-04,07],gpu[1-2]"),
			 "node01:1,node02:1,node03:1,node04:1,node07:1,"
			 "gpu1:1,gpu2:1");
	ck_assert_str_eq(expand_ok("single"), "single:1");
	ck_assert_str_eq(expand_ok("a,b[8-10]"), "a:1,b8:1,b9:1,b10:1");
	ck_assert_str_eq(expand_ok("x[009-011]"), "x009:1,x010:1,x011:1");
	ck_assert_str_eq(expand_ok("r[1-2]n[1-2]"),
			 "r1n1:1,r1n2:1,r2n1:1,r2n2:1");
	ck_assert_str_eq(expand_ok("c[1-2]-ib,d5"), "c1-ib:1,c2-ib:1,d5:1");
	ck_assert_str_eq(expand_ok("n[7]"), "n7:1");
}
END_TEST

START_TEST(slurm_hostlist_rejects)
{
	static const struct {
		const char *list, *why;
	} bad[] = {
		{"", "an empty host list"},
		{"a,,b", "an empty entry"},
		{"n[1-", "'[' without ']'"},
		{"n]1", "']' without '['"},
		{"n[3-1]", "a range in brackets runs backwards"},
		{"n[]", "an empty or overlong range in brackets"},
		{"n[a-b]", "a range in brackets is not a number"},
		{"n[1-x]", "a range in brackets is not a number"},
		{"n[1,,2]", "an empty or overlong range in brackets"},
		{"n[0-9999999]", "too many hosts"},
	};
	struct rc_hostlist l = {0};
	char want[256];
	size_t i;

	rc_lerr_quiet = true;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(rc_batch_hostlist(&l, bad[i].list,
						"SLURM_JOB_NODELIST") == -1,
			      "accepted '%s'", bad[i].list);
		snprintf(want, sizeof(want), "SLURM_JOB_NODELIST='%s': %s",
			 bad[i].list, bad[i].why);
		ck_assert_str_eq(rc_last_err, want);
		rc_hosts_free(&l);
	}
	rc_lerr_quiet = false;
}
END_TEST

START_TEST(slurm_counts)
{
	int c[8];

	ck_assert_int_eq(rc_batch_counts("2(x3),1", c, 4, "T"), 0);
	ck_assert_int_eq(c[0], 2);
	ck_assert_int_eq(c[2], 2);
	ck_assert_int_eq(c[3], 1);
	ck_assert_int_eq(rc_batch_counts("72(x2),36", c, 3, "T"), 0);
	ck_assert_int_eq(c[1], 72);
	ck_assert_int_eq(c[2], 36);
	ck_assert_int_eq(rc_batch_counts("5", c, 1, "T"), 0);
	ck_assert_int_eq(c[0], 5);
	rc_lerr_quiet = true;
	ck_assert_int_eq(rc_batch_counts("2(x3),1", c, 3, "T"), -1);
	ck_assert_str_eq(rc_last_err, "T='2(x3),1' names more nodes than the "
				      "allocation has (3)");
	ck_assert_int_eq(rc_batch_counts("2(x3),1", c, 5, "T"), -1);
	ck_assert_str_eq(rc_last_err, "T='2(x3),1' covers 4 nodes, the "
				      "allocation has 5");
	ck_assert_int_eq(rc_batch_counts("2(x0)", c, 1, "T"), -1);
	ck_assert_str_eq(rc_last_err, "T='2(x0)': expected counts like "
				      "2(x3),1");
	ck_assert_int_eq(rc_batch_counts("0", c, 1, "T"), -1);
	ck_assert_int_eq(rc_batch_counts("2(x3", c, 3, "T"), -1);
	ck_assert_int_eq(rc_batch_counts("2,", c, 1, "T"), -1);
	ck_assert_int_eq(rc_batch_counts("x", c, 1, "T"), -1);
	rc_lerr_quiet = false;
}
END_TEST

START_TEST(pbs_and_lsf)
{
	struct rc_hostlist l = {0};
	const char *p = write_file("pbs", "a\na\nb.cluster\n\na\n");

	ck_assert_int_eq(rc_batch_pbs(&l, p), 0);
	ck_assert_str_eq(hl_str(&l), "a:3,b.cluster:1");
	rc_hosts_free(&l);
	ck_assert_int_eq(rc_batch_lsf(&l, "h1 4 h2 2"), 0);
	ck_assert_str_eq(hl_str(&l), "h1:4,h2:2");
	rc_hosts_free(&l);
	rc_lerr_quiet = true;
	ck_assert_int_eq(rc_batch_lsf(&l, "h1 4 h2"), -1);
	ck_assert_str_eq(rc_last_err, "LSB_MCPU_HOSTS='h1 4 h2': host h2 has "
				      "no slot count");
	rc_hosts_free(&l);
	ck_assert_int_eq(rc_batch_lsf(&l, "h1 x"), -1);
	rc_hosts_free(&l);
	ck_assert_int_eq(rc_batch_pbs(&l, write_file("empty", "\n")), -1);
	ck_assert_ptr_nonnull(strstr(rc_last_err, ": no hosts in the file"));
	rc_hosts_free(&l);
	rc_lerr_quiet = false;
}
END_TEST

static void batch_env_clear(void)
{
	unsetenv("RCMPI_HOSTFILE");
	unsetenv("SLURM_JOB_NODELIST");
	unsetenv("SLURM_TASKS_PER_NODE");
	unsetenv("SLURM_JOB_CPUS_PER_NODE");
	unsetenv("SLURM_CPUS_ON_NODE");
	unsetenv("PBS_NODEFILE");
	unsetenv("LSB_MCPU_HOSTS");
}

static const char *batch(enum rc_batch want)
{
	static char out[1024];
	struct rc_hostlist l = {0};
	enum rc_batch kind;

	ck_assert_int_eq(rc_batch_hosts(&l, &kind), 0);
	ck_assert_int_eq(kind, want);
	snprintf(out, sizeof(out), "%s", hl_str(&l));
	rc_hosts_free(&l);
	return out;
}

/* which allocation wins, and where the slots come from */
START_TEST(allocation_from_environment)
{
	batch_env_clear();
	ck_assert_str_eq(batch(RC_BATCH_NONE), "");
	setenv("LSB_MCPU_HOSTS", "l1 2", 1);
	ck_assert_str_eq(batch(RC_BATCH_LSF), "l1:2");
	setenv("PBS_NODEFILE", write_file("nodes", "p1\np1\n"), 1);
	ck_assert_str_eq(batch(RC_BATCH_PBS), "p1:2");
	setenv("SLURM_JOB_NODELIST", "s[1-3]", 1);
	setenv("SLURM_CPUS_ON_NODE", "8", 1);
	ck_assert_str_eq(batch(RC_BATCH_SLURM), "s1:8,s2:8,s3:8");
	setenv("SLURM_JOB_CPUS_PER_NODE", "16(x2),4", 1);
	ck_assert_str_eq(batch(RC_BATCH_SLURM), "s1:16,s2:16,s3:4");
	ck_assert_int_eq(rc_batch_slurm_cpus(), 4);
	setenv("SLURM_TASKS_PER_NODE", "2(x3)", 1);
	ck_assert_str_eq(batch(RC_BATCH_SLURM), "s1:2,s2:2,s3:2");
	setenv("RCMPI_HOSTFILE", write_file("hf2", "h1 slots=3\n"), 1);
	ck_assert_str_eq(batch(RC_BATCH_HOSTFILE), "h1:3");
	{
		struct rc_hostlist l = {0};
		enum rc_batch kind;

		setenv("RCMPI_HOSTFILE", "/nonexistent/hosts", 1);
		rc_lerr_quiet = true;
		ck_assert_int_eq(rc_batch_hosts(&l, &kind), -1);
		rc_lerr_quiet = false;
		ck_assert_str_eq(rc_last_err,
				 "RCMPI_HOSTFILE=/nonexistent/"
				 "hosts: No such file or directory");
	}
	batch_env_clear();
	ck_assert_int_eq(rc_batch_slurm_cpus(), 0);
}
END_TEST

/* ---- HMAC, secret (auth.c) ------------------------------------------------
 */

static void hex(const unsigned char *d, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void hmac_expect(const void *key, size_t klen, const char *msg,
			const char *want)
{
	unsigned char md[RC_SHA256_LEN];
	char h[65];

	rc_hmac_sha256(key, klen, msg, strlen(msg), md);
	hex(md, sizeof(md), h);
	ck_assert_str_eq(h, want);
}

START_TEST(hmac_vectors)
{
	unsigned char k[131];

	/* RFC 4231 test cases 1, 2 and 6 (a key longer than a block): that
	 * we call libcrypto's HMAC with SHA-256, key and data as meant */
	memset(k, 0x0b, 20);
	hmac_expect(k, 20, "Hi There", "b0344c61d8db38535ca8afceaf0bf12b"
				       "881dc200c9833da726e9376c2e32cff7");
	hmac_expect("Jefe", 4, "what do ya want for nothing?",
		    "5bdcc146bf60754e6a042426089575c7"
		    "5a003f089d2739839dec58b964ec3843");
	memset(k, 0xaa, sizeof(k));
	hmac_expect(k, sizeof(k),
		    "Test Using Larger Than Block-Size Key - Hash Key First",
		    "60e431591ee0b67f0d8a26aacbf5b77f"
		    "8e0bc6213728c5140546040f0ee37f54");
}
END_TEST

START_TEST(secret_and_compare)
{
	char a[RC_SECRET_HEX + 1], b[RC_SECRET_HEX + 1];

	ck_assert_int_eq(rc_secret_new(a), 0);
	ck_assert_int_eq(rc_secret_new(b), 0);
	ck_assert_uint_eq(strlen(a), RC_SECRET_HEX);
	ck_assert_uint_eq(strspn(a, "0123456789abcdef"), RC_SECRET_HEX);
	ck_assert(strcmp(a, b));
	ck_assert(rc_ct_equal(a, a, sizeof(a)));
	b[0] = a[0];
	memcpy(b, a, sizeof(a));
	b[RC_SECRET_HEX - 1] ^= 1;
	ck_assert(!rc_ct_equal(a, b, sizeof(a)));
}
END_TEST

/* ---- framing and handshake MACs (net.c) ------------------------------------ */

START_TEST(net_roundtrip)
{
	struct rc_conn a, b;
	struct rc_wbuf w = { 0 };
	struct rc_rbuf r;
	uint32_t type;
	size_t len, big = 3u << 20, i;
	char *blob = malloc(big);
	const char *p;
	int sv[2], rc, got = 0;
	char *s;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	rc_conn_init(&a, sv[0]);
	rc_conn_init(&b, sv[1]);
	for (i = 0; i < big; i++)
		blob[i] = (char)(i * 7);
	rc_wbuf_u32(&w, 42);
	rc_wbuf_str(&w, "hello");
	rc_wbuf_bytes(&w, blob, big);
	ck_assert_int_eq(rc_conn_send(&a, RC_M_OUT, &w), 0);
	rc_wbuf_free(&w);
	ck_assert_int_eq(rc_conn_send(&a, RC_M_PING, NULL), 0);
	/* more than a socket buffer: queued, sent as the peer reads */
	while (got < 2) {
		ck_assert_int_eq(rc_conn_flush(&a), 0);
		rc = rc_conn_fill(&b);
		ck_assert_int_ne(rc, 0);
		ck_assert_int_ne(rc, -1);
		while (rc_conn_next(&b, &type, &r) == 1) {
			if (got++ == 0) {
				ck_assert_uint_eq(type, RC_M_OUT);
				ck_assert_uint_eq(rc_rbuf_u32(&r), 42);
				s = rc_rbuf_strdup(&r);
				ck_assert_str_eq(s, "hello");
				free(s);
				p = rc_rbuf_bytes(&r, &len);
				ck_assert_uint_eq(len, big);
				ck_assert_mem_eq(p, blob, big);
				ck_assert(!r.bad);
				rc_rbuf_u32(&r);	/* past the end */
				ck_assert(r.bad);
			} else {
				ck_assert_uint_eq(type, RC_M_PING);
				ck_assert_uint_eq(r.len, 0);
			}
		}
	}
	ck_assert_uint_eq(rc_conn_pending(&a), 0);
	rc_conn_close(&a);
	ck_assert_int_eq(rc_conn_fill(&b), 0);	/* EOF */
	rc_conn_close(&b);
	free(blob);
}
END_TEST

START_TEST(net_rejects_huge_frame)
{
	struct rc_conn b;
	struct rc_rbuf r;
	uint32_t type, hdr[2] = { htonl(RC_M_OUT), htonl(0xfffffff0u) };
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	rc_conn_init(&b, sv[1]);
	ck_assert_int_eq(write(sv[0], hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
	ck_assert_int_eq(rc_conn_fill(&b), 1);
	ck_assert_int_eq(rc_conn_next(&b, &type, &r), -1);
	close(sv[0]);
	rc_conn_close(&b);
}
END_TEST

START_TEST(auth_macs)
{
	unsigned char n1[RC_NONCE_LEN], n2[RC_NONCE_LEN];
	unsigned char m1[RC_SHA256_LEN], m2[RC_SHA256_LEN];
	char sa[RC_SECRET_HEX + 1], sb[RC_SECRET_HEX + 1];

	ck_assert_int_eq(rc_secret_new(sa), 0);
	ck_assert_int_eq(rc_secret_new(sb), 0);
	ck_assert_int_eq(rc_random(n1, sizeof(n1)), 0);
	ck_assert_int_eq(rc_random(n2, sizeof(n2)), 0);
	rc_auth_mac(sa, "rcmpi-daemon", n1, n2, 3, m1);
	rc_auth_mac(sa, "rcmpi-daemon", n1, n2, 3, m2);
	ck_assert_mem_eq(m1, m2, sizeof(m1));
	/* another secret, role, node or nonce order: another MAC */
	rc_auth_mac(sb, "rcmpi-daemon", n1, n2, 3, m2);
	ck_assert(!rc_ct_equal(m1, m2, sizeof(m1)));
	rc_auth_mac(sa, "rcmpi-head", n1, n2, 3, m2);
	ck_assert(!rc_ct_equal(m1, m2, sizeof(m1)));
	rc_auth_mac(sa, "rcmpi-daemon", n1, n2, 4, m2);
	ck_assert(!rc_ct_equal(m1, m2, sizeof(m1)));
	rc_auth_mac(sa, "rcmpi-daemon", n2, n1, 3, m2);
	ck_assert(!rc_ct_equal(m1, m2, sizeof(m1)));
}
END_TEST

/* ---- iof ------------------------------------------------------------------ */

struct sink {
	char buf[1 << 16];
	size_t len;
	int calls;
	int ends_mid_line;	/* emits that did not end in '\n' */
	bool count_only;
	size_t total;
};

static void sink_emit(void *arg, int rank, int stream, const char *buf,
		      size_t len)
{
	struct sink *s = arg;

	ck_assert_int_eq(rank, 7);
	ck_assert_int_eq(stream, RC_IOF_OUT);
	s->total += len;
	s->calls++;
	if (len && buf[len - 1] != '\n')
		s->ends_mid_line++;
	if (s->count_only)
		return;
	ck_assert_uint_le(s->len + len, sizeof(s->buf));
	memcpy(s->buf + s->len, buf, len);
	s->len += len;
}

static int pump(struct rc_iof_buf *b, int fd, struct sink *s)
{
	return rc_iof_pump(b, fd, 7, RC_IOF_OUT, sink_emit, s);
}

START_TEST(iof_only_whole_lines)
{
	struct rc_iof_buf b = { 0 };
	struct sink *s = calloc(1, sizeof(*s));
	int p[2];

	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	ck_assert_int_eq(write(p[1], "hel", 3), 3);
	ck_assert_int_eq(pump(&b, p[0], s), 1);
	ck_assert_int_eq(s->calls, 0);
	ck_assert_int_eq(pump(&b, p[0], s), 2);	/* nothing there */
	ck_assert_int_eq(write(p[1], "lo\nwor", 6), 6);
	ck_assert_int_eq(pump(&b, p[0], s), 1);
	ck_assert_int_eq(s->calls, 1);
	ck_assert_uint_eq(s->len, 6);
	ck_assert_mem_eq(s->buf, "hello\n", 6);
	ck_assert_int_eq(write(p[1], "ld\na\nb\nlast", 11), 11);
	ck_assert_int_eq(pump(&b, p[0], s), 1);
	ck_assert_uint_eq(s->len, 16);		/* "world\na\nb\n" in one go */
	ck_assert_int_eq(s->calls, 2);
	close(p[1]);
	ck_assert_int_eq(pump(&b, p[0], s), 0);	/* EOF */
	rc_iof_flush(&b, 7, RC_IOF_OUT, sink_emit, s);
	ck_assert_uint_eq(s->len, 20);
	ck_assert_mem_eq(s->buf, "hello\nworld\na\nb\nlast", 20);
	ck_assert_int_eq(s->ends_mid_line, 1);
	ck_assert_ptr_null(b.buf);
	close(p[0]);
	free(s);
}
END_TEST

START_TEST(iof_long_line_bounded)
{
	struct rc_iof_buf b = { 0 };
	struct sink *s = calloc(1, sizeof(*s));
	size_t chunk = 1 << 15, total = 0;
	char *junk = malloc(chunk);
	int p[2], rc;

	/* 2 MiB without a newline: handed on in pieces, never all held */
	memset(junk, 'x', chunk);
	s->count_only = true;
	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	while (total < (2u << 20)) {
		ck_assert_int_eq(write(p[1], junk, chunk), (ssize_t)chunk);
		total += chunk;
		do {
			rc = pump(&b, p[0], s);
		} while (rc == 1);
		ck_assert_int_eq(rc, 2);
		ck_assert_uint_le(b.len, 1u << 20);
	}
	ck_assert_int_ge(s->calls, 1);
	ck_assert_int_ge(s->ends_mid_line, 1);
	rc_iof_flush(&b, 7, RC_IOF_OUT, sink_emit, s);
	ck_assert_uint_eq(s->total, total);	/* nothing lost */
	close(p[0]);
	close(p[1]);
	free(junk);
	free(s);
}
END_TEST

START_TEST(iof_tagged_lines)
{
	char out[256];
	ssize_t n;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(rc_iof_write_lines(p[1], 12, true, "a\nbc\nd", 6), 0);
	ck_assert_int_eq(rc_iof_write_lines(p[1], 3, false, "e\n", 2), 0);
	close(p[1]);
	n = read(p[0], out, sizeof(out));
	ck_assert_int_eq(n, 23);
	ck_assert_mem_eq(out, "[12] a\n[12] bc\n[12] de\n", 23);
	close(p[0]);
}
END_TEST

START_TEST(iof_many_tagged_lines)
{
	static char in[100 * 4], out[100 * 9 + 16];
	size_t off = 0;
	ssize_t n;
	int p[2], i;

	/* more lines than one writev batch */
	for (i = 0; i < 100; i++)
		memcpy(in + 4 * i, "abc\n", 4);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(rc_iof_write_lines(p[1], 5, true, in, sizeof(in)), 0);
	close(p[1]);
	while ((n = read(p[0], out + off, sizeof(out) - off)) > 0)
		off += (size_t)n;
	ck_assert_uint_eq(off, 100 * 8);
	for (i = 0; i < 100; i++)
		ck_assert_mem_eq(out + 8 * i, "[5] abc\n", 8);
	close(p[0]);
}
END_TEST

/* ---- suite ---------------------------------------------------------------- */

int main(void)
{
	Suite *s = suite_create("launcher");
	TCase *tc = tcase_create("fence");
	SRunner *sr;
	int nfail;

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, fence_one_node_completes_at_once);
	tcase_add_test(tc, fence_waits_for_every_node_and_concatenates);
	tcase_add_test(tc, fence_barrier_has_no_data);
	tcase_add_test(tc, fence_reports_contributing_nodes);
	tcase_add_test(tc, fence_subtree_counts);
	tcase_add_test(tc, tree_shape);
	tcase_add_test(tc, tree_flat_and_large);
	suite_add_tcase(s, tc);
	tc = tcase_create("hosts");
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, hosts_spec);
	tcase_add_test(tc, hosts_spec_rejects);
	tcase_add_test(tc, hostfile_ok);
	tcase_add_test(tc, hostfile_rejects);
	tcase_add_test(tc, hosts_map);
	tcase_add_test(tc, host_is_local);
	suite_add_tcase(s, tc);
	tc = tcase_create("batch");
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, slurm_hostlist);
	tcase_add_test(tc, slurm_hostlist_rejects);
	tcase_add_test(tc, slurm_counts);
	tcase_add_test(tc, pbs_and_lsf);
	tcase_add_test(tc, allocation_from_environment);
	suite_add_tcase(s, tc);
	tc = tcase_create("auth");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, hmac_vectors);
	tcase_add_test(tc, secret_and_compare);
	tcase_add_test(tc, auth_macs);
	suite_add_tcase(s, tc);
	tc = tcase_create("net");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, net_roundtrip);
	tcase_add_test(tc, net_rejects_huge_frame);
	suite_add_tcase(s, tc);
	tc = tcase_create("iof");
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, iof_only_whole_lines);
	tcase_add_test(tc, iof_long_line_bounded);
	tcase_add_test(tc, iof_tagged_lines);
	tcase_add_test(tc, iof_many_tagged_lines);
	suite_add_tcase(s, tc);
	if (!mkdtemp(tmpl_dir))
		return 1;
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl_dir);
		if (system(cmd))
			nfail++;
	}
	return nfail ? 1 : 0;
}
