/*
 * test_rcinfo.c - unit tests of rcmpi_info's probes and report (tools/rcinfo.c)
 * over fake verbs (verbs_fake.c) and a fake root folder standing for /
 * (proc/sys/kernel/yama/ptrace_scope, dev/shm, sys/class/infiniband).
 *
 * Devices: an InfiniBand port with a LID next to a RoCE port whose GID
 * table has RoCE v2 link-local, RoCE v1 and RoCE v2 IPv4-mapped entries:
 * the report must list them with their types and mark the one the verbs
 * transport picks, and say which device and port MPI_Init would use.
 * Every failure rcmpi_info diagnoses has its case here: no device (three
 * causes), port down, CMA blocked by ptrace_scope, /dev/shm missing or
 * full, memlock too low; each with its fix.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rcinfo.h"
#include "param.h"
#include "verbs_fake.h"

#define TMO 30

static char root[256];
static char *text;
static size_t textlen;

static void mkpath(const char *rel)
{
	char path[512], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static void put(const char *rel, const char *content)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(content, f);
	fclose(f);
}

/* a fake root: no Yama, a /dev/shm, no RDMA in the kernel */
static void setup(void)
{
	snprintf(root, sizeof(root), "%s/rcinfo.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(root));
	mkpath("dev/shm");
	mkpath("proc/sys/kernel");
	fk_reset();
	rc_verbs_ops = &fk_ops;
	unsetenv("RCMPI_VERBS_GID_INDEX");
	unsetenv("RCMPI_VERBS_DEVICE");
	unsetenv("RCMPI_SHM_CMA");
}

static void teardown(void)
{
	char cmd[300];

	free(text);
	text = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

static void report(unsigned sections, bool parsable)
{
	FILE *f;

	free(text);
	text = NULL;
	fk.nctx = 0; /* the same addresses in every report */
	f = open_memstream(&text, &textlen);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(rc_info_report(f, root, sections, parsable, NULL, 0),
			 0);
	fclose(f);
	/* everything opened was closed again */
	ck_assert_int_eq(fk_live_total(), 0);
}

#define HAS(s) ck_assert_msg(strstr(text, s), "missing '%s' in:\n%s", s, text)
#define LACKS(s) \
	ck_assert_msg(!strstr(text, s), "unexpected '%s' in:\n%s", s, text)

/* ---- devices ---- */

static void two_devices(void)
{
	fk.ndevices = 2;
	fk.dev_link_layer[0] = IBV_LINK_LAYER_INFINIBAND;
	fk.dev_link_layer[1] = IBV_LINK_LAYER_ETHERNET;
	fk.atomic_cap = IBV_ATOMIC_HCA;
	fk.max_inline = 256; /* asked 512: halved once */
}

START_TEST(ib_and_roce_ports)
{
	two_devices();
	report(RC_INFO_DEVICES, true);
	HAS("devices:count:2\n");
	HAS("device:fake0:atomics:IBV_ATOMIC_HCA\n");
	HAS("device:fake0:max_inline:256\n");
	HAS("device:fake0:port:1:state:ACTIVE\n");
	HAS("device:fake0:port:1:link_layer:InfiniBand\n");
	HAS("device:fake0:port:1:lid:10\n");
	HAS("device:fake0:port:1:mtu:1024\n");
	HAS("device:fake0:port:1:gid:0:type:IB\n");
	LACKS("device:fake0:port:1:gid_pick");
	HAS("device:fake1:port:1:link_layer:Ethernet\n");
	HAS("device:fake1:port:1:gid:0:type:RoCE v2\n");
	HAS("device:fake1:port:1:gid:0:addr:fe80::2\n");
	HAS("device:fake1:port:1:gid:1:type:RoCE v1\n");
	HAS("device:fake1:port:1:gid:1:addr:::ffff:10.0.0.2\n");
	HAS("device:fake1:port:1:gid:2:type:RoCE v2\n");
	HAS("device:fake1:port:1:gid:2:addr:::ffff:10.0.0.2\n");
	/* RoCE v2 and IPv4-mapped: index 2, not the link-local 0 or v1 */
	HAS("device:fake1:port:1:gid_pick:2\n");

	report(RC_INFO_DEVICES, false);
	HAS("  fake0: node GUID 0002c90300000000");
	HAS("atomics IBV_ATOMIC_HCA, max inline 256 bytes");
	HAS("    port 1: ACTIVE, InfiniBand, MTU 1024 (max 4096)");
	HAS(", LID 10\n");
	HAS("    port 1: ACTIVE, Ethernet (RoCE), MTU 1024");
	HAS("GID 2   RoCE v2  ::ffff:10.0.0.2   <- rcmpi picks this one\n");
	LACKS("GID 1   RoCE v1  ::ffff:10.0.0.2   <-");
	/* the first device with an ACTIVE port wins: the InfiniBand one */
	HAS("  rcmpi uses: fake0 port 1, LID 12\n");
}
END_TEST

START_TEST(forced_gid_index_is_picked)
{
	two_devices();
	setenv("RCMPI_VERBS_GID_INDEX", "1", 1);
	setenv("RCMPI_VERBS_DEVICE", "fake1", 1);
	report(RC_INFO_DEVICES | RC_INFO_TRANSPORTS, true);
	HAS("device:fake1:port:1:gid_pick:1\n");
	HAS("transport:verbs:usable:yes\n");
	HAS("transport:verbs:state:fake1 port 1, RoCE v2 GID index 1\n");
}
END_TEST

START_TEST(port_down)
{
	fk.port_state = IBV_PORT_DOWN;
	report(RC_INFO_DEVICES | RC_INFO_TRANSPORTS, true);
	HAS("device:fake0:port:1:state:DOWN\n");
	HAS("transport:verbs:usable:no\n");
	HAS("transport:verbs:why:no active RDMA port (fake0 port 1 is DOWN)");
	HAS("transport:verbs:fix:check the cable and the link");
}
END_TEST

/* ---- no device: three causes ---- */

START_TEST(no_device_no_kernel_support)
{
	fk.ndevices = 0;
	report(RC_INFO_TRANSPORTS | RC_INFO_DEVICES, true);
	HAS("devices:count:0\n");
	HAS("transport:verbs:usable:no\n");
	HAS("transport:verbs:state:no RDMA device\n");
	HAS("the kernel has no RDMA support loaded");
	HAS("sys/class/infiniband is missing)\n");
	HAS("transport:verbs:fix:load your adapter's RDMA driver");
	HAS("rdma link add rxe0 type rxe netdev eth0");
}
END_TEST

START_TEST(no_device_none_registered)
{
	fk.ndevices = 0;
	mkpath("sys/class/infiniband");
	report(RC_INFO_TRANSPORTS, true);
	HAS("transport:verbs:why:no RDMA device: the kernel's RDMA core is "
	    "loaded but no device is registered");
}
END_TEST

START_TEST(no_device_no_user_space_driver)
{
	fk.ndevices = 0;
	mkpath("sys/class/infiniband/mlx5_0");
	report(RC_INFO_TRANSPORTS, false);
	HAS("  verbs              NOT USABLE: no RDMA device\n");
	HAS("why: no RDMA device usable from user space: the kernel has "
	    "mlx5_0, but libibverbs lists none");
	HAS("fix: install the user-space drivers (Debian: apt-get install "
	    "ibverbs-providers rdma-core)");
}
END_TEST

/* ---- shared memory and CMA ---- */

START_TEST(cma_and_ptrace_scope)
{
	report(RC_INFO_TRANSPORTS, true);
	HAS("transport:shm:usable:yes\n");
	HAS("transport:shm:cma:usable:yes\n");
	HAS("transport:shm:cma:state:no Yama ptrace restrictions\n");
	mkpath("proc/sys/kernel/yama");
	put("proc/sys/kernel/yama/ptrace_scope", "0\n");
	report(RC_INFO_TRANSPORTS, true);
	HAS("transport:shm:cma:usable:yes\n");
	HAS("transport:shm:cma:state:kernel.yama.ptrace_scope = 0\n");
	put("proc/sys/kernel/yama/ptrace_scope", "1\n");
	report(RC_INFO_TRANSPORTS, true);
	HAS("transport:shm:cma:usable:no\n");
	HAS("transport:shm:cma:why:CMA blocked: kernel.yama.ptrace_scope = 1");
	HAS("transport:shm:cma:fix:sysctl kernel.yama.ptrace_scope=0");
	/* shared memory itself still works, with two copies */
	HAS("transport:shm:usable:yes\n");
	put("proc/sys/kernel/yama/ptrace_scope", "3\n");
	report(RC_INFO_TRANSPORTS, true);
	HAS("cannot be lowered until a reboot");
	setenv("RCMPI_SHM_CMA", "0", 1);
	put("proc/sys/kernel/yama/ptrace_scope", "0\n");
	report(RC_INFO_TRANSPORTS, true);
	HAS("transport:shm:cma:why:single-copy rendezvous turned off "
	    "(RCMPI_SHM_CMA=0)");
}
END_TEST

START_TEST(shm_missing)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/dev/shm", root);
	ck_assert_int_eq(rmdir(path), 0);
	report(RC_INFO_TRANSPORTS, true);
	HAS("transport:shm:usable:no\n");
	HAS("/dev/shm is missing\n");
	HAS("transport:shm:fix:mount a tmpfs there: mount -t tmpfs");
	put("dev/shm", "a file\n");
	report(RC_INFO_TRANSPORTS, true);
	HAS("/dev/shm is not a directory\n");
}
END_TEST

START_TEST(shm_full)
{
	struct rc_shm_state s = {true, true, true, 1 << 20};
	struct rc_finding f;

	rc_info_shm_judge(&s, "/dev/shm", &f);
	ck_assert(!f.ok);
	ck_assert_str_eq(f.what, "/dev/shm: 1.0 MiB free");
	ck_assert_msg(strstr(f.why, "/dev/shm is full (1.0 MiB free"), "%s",
		      f.why);
	ck_assert_msg(strstr(f.fix, "rm /dev/shm/rcmpi.*"), "%s", f.fix);
	s.free_bytes = 8ull << 30;
	rc_info_shm_judge(&s, "/dev/shm", &f);
	ck_assert(f.ok);
	ck_assert_str_eq(f.what, "/dev/shm: 8.0 GiB free");
	s.writable = false;
	rc_info_shm_judge(&s, "/dev/shm", &f);
	ck_assert(!f.ok);
	ck_assert_str_eq(f.fix, "chmod 1777 /dev/shm");
}
END_TEST

/* ---- locked memory ---- */

START_TEST(memlock_limits)
{
	struct rc_finding f;

	rc_info_memlock_judge(64 << 10, false, &f);
	ck_assert(!f.ok);
	ck_assert_str_eq(f.what, "64 KiB (ulimit -l 64)");
	ck_assert_msg(strstr(f.why, "too low for RDMA"), "%s", f.why);
	ck_assert_msg(strstr(f.fix, "ulimit -l unlimited") &&
			      strstr(f.fix, "'* - memlock unlimited' in "
					    "/etc/security/limits.conf"),
		      "%s", f.fix);
	/* CAP_IPC_LOCK makes the limit moot */
	rc_info_memlock_judge(64 << 10, true, &f);
	ck_assert(f.ok);
	ck_assert_msg(strstr(f.what, "CAP_IPC_LOCK"), "%s", f.what);
	/* Debian's default: small jobs only */
	rc_info_memlock_judge(8 << 20, false, &f);
	ck_assert(f.ok);
	ck_assert_msg(strstr(f.what, "enough for small jobs"), "%s", f.what);
	rc_info_memlock_judge((unsigned long long)-1, false, &f);
	ck_assert(f.ok);
	ck_assert_str_eq(f.what, "unlimited");
}
END_TEST

/* ---- build and parameters ---- */

START_TEST(build_and_params)
{
	report(RC_INFO_BUILD | RC_INFO_PARAMS, true);
	HAS("version:rcmpi:" PACKAGE_VERSION "\n");
	HAS("build:pmix:");
	HAS("build:libibverbs:");
	HAS("build:sanitizers:");
	HAS("param:RCMPI_VERBS_SL:type:int\n");
	HAS("param:RCMPI_VERBS_SL:default:0\n");
	HAS("param:RCMPI_VERBS_SL:value:0\n");
	HAS("param:RCMPI_VERBS_SL:source:default\n");
	HAS("param:RCMPI_VERBS_SL:range:0..15\n");
	HAS("param:RCMPI_VERBS_SL:reader:verbs\n");
	HAS("param:RCMPI_VERBS_SL:description:InfiniBand service level\n");
	HAS("param:RCMPI_SHM_CMA_CHUNK:default:4m\n");
	setenv("RCMPI_VERBS_SL", "99", 1);
	setenv("RCMPI_RNDV_MODE", "put", 1);
	setenv("RCMPI_EAGER_LIMT", "1", 1);
	report(RC_INFO_PARAMS, true);
	HAS("param:RCMPI_VERBS_SL:value:99\n");
	HAS("param:RCMPI_VERBS_SL:source:environment (invalid: the default "
	    "is used)\n");
	HAS("param:RCMPI_VERBS_SL:invalid:not a number in [0, 15]\n");
	HAS("param:RCMPI_RNDV_MODE:value:put\n");
	HAS("param:RCMPI_RNDV_MODE:source:environment\n");
	HAS("param-unknown:RCMPI_EAGER_LIMT:closest:RCMPI_EAGER_LIMIT\n");
	report(RC_INFO_PARAMS, false);
	HAS("  RCMPI_VERBS_SL = 99 INVALID: not a number in [0, 15] (default "
	    "0; int 0..15; verbs)\n      InfiniBand service level\n");
	HAS("  RCMPI_EAGER_LIMT: not an rcmpi parameter (did you mean "
	    "RCMPI_EAGER_LIMIT?)\n");
}
END_TEST

/* the parsable form: "key:value" lines, the key's words never empty */
START_TEST(parsable_lines)
{
	const char *line, *nl;
	int n = 0;

	two_devices();
	report(RC_INFO_ALL, true);
	for (line = text; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		ck_assert_ptr_nonnull(nl);
		const char *colon = memchr(line, ':', (size_t)(nl - line));

		ck_assert_msg(line[0] >= 'a' && line[0] <= 'z' && colon &&
				      colon > line + 2 && colon[1] != ':',
			      "bad line: %.*s", (int)(nl - line), line);
		n++;
	}
	ck_assert_int_gt(n, RC_P_COUNT * 6);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("info");
	TCase *tc = tcase_create("info");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, TMO);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ib_and_roce_ports);
	tcase_add_test(tc, forced_gid_index_is_picked);
	tcase_add_test(tc, port_down);
	tcase_add_test(tc, no_device_no_kernel_support);
	tcase_add_test(tc, no_device_none_registered);
	tcase_add_test(tc, no_device_no_user_space_driver);
	tcase_add_test(tc, cma_and_ptrace_scope);
	tcase_add_test(tc, shm_missing);
	tcase_add_test(tc, shm_full);
	tcase_add_test(tc, memlock_limits);
	tcase_add_test(tc, build_and_params);
	tcase_add_test(tc, parsable_lines);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
