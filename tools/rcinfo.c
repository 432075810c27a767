/*
 * rcinfo.c - rcmpi_info's probes and report (see rcinfo.h and
 * tools/README.md). Every "not usable" says why and, where there is one,
 * the fix; the parsable form has one "key:value" line per fact, keys made
 * of fixed words and names (device, port, parameter), values last.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <pmix.h>

#include "rcinfo.h"
#include "param.h"
#include "verbs_info.h"
#include "status.h"
#include "tp_tcp.h"

#define SHM_MIN_FREE (32ull << 20)  /* two ranks' segments */
#define MEMLOCK_MIN (4ull << 20)    /* the verbs transport's own buffers */
#define MEMLOCK_SMALL (64ull << 20) /* below: small jobs only */

/* ---- findings ------------------------------------------------------------ */

static void fset(char *dst, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fset(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

#define FSET(f, field, ...) fset((f)->field, sizeof((f)->field), __VA_ARGS__)

static void finding_init(struct rc_finding *f)
{
	memset(f, 0, sizeof(*f));
}

static void human_bytes(unsigned long long b, char *buf, size_t len)
{
	if (b >= 1ull << 30)
		snprintf(buf, len, "%.1f GiB", (double)b / (1ull << 30));
	else if (b >= 1ull << 20)
		snprintf(buf, len, "%.1f MiB", (double)b / (1ull << 20));
	else
		snprintf(buf, len, "%llu KiB", b >> 10);
}

/* ---- shared memory ------------------------------------------------------- */

void rc_info_shm_judge(const struct rc_shm_state *s, const char *path,
		       struct rc_finding *f)
{
	char freeb[32];

	finding_init(f);
	human_bytes(s->free_bytes, freeb, sizeof(freeb));
	if (!s->exists || !s->isdir) {
		FSET(f, what, "%s: %s", path,
		     s->exists ? "not a directory" : "missing");
		FSET(f, why, "no shared memory: %s is %s", path,
		     s->exists ? "not a directory" : "missing");
		FSET(f, fix,
		     "mount a tmpfs there: mount -t tmpfs -o "
		     "mode=1777 tmpfs /dev/shm (containers: --shm-size=1g)");
		return;
	}
	FSET(f, what, "%s: %s free", path, freeb);
	if (!s->writable) {
		FSET(f, why, "no shared memory: %s is not writable", path);
		FSET(f, fix, "chmod 1777 /dev/shm");
		return;
	}
	if (s->free_bytes < SHM_MIN_FREE) {
		FSET(f, why,
		     "no shared memory: %s is full (%s free; a node "
		     "of ranks needs about 16 MiB per rank)",
		     path, freeb);
		FSET(f, fix,
		     "remove stale files there (rm /dev/shm/rcmpi.*"
		     " of jobs that are gone) or enlarge it: mount -o "
		     "remount,size=50%% /dev/shm");
		return;
	}
	f->ok = true;
}

void rc_info_probe_shm(const char *root, struct rc_finding *f)
{
	struct rc_shm_state s = {0};
	struct statvfs vfs;
	struct stat st;
	char path[4096];

	snprintf(path, sizeof(path), "%s/dev/shm", root);
	s.exists = stat(path, &st) == 0;
	s.isdir = s.exists && S_ISDIR(st.st_mode);
	s.writable = s.isdir && access(path, W_OK | X_OK) == 0;
	if (s.isdir && statvfs(path, &vfs) == 0)
		s.free_bytes = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
	rc_info_shm_judge(&s, path, f);
}

/* ---- CMA ------------------------------------------------------------------
 */

void rc_info_cma_judge(int scope, bool disabled, int live_errno,
		       struct rc_finding *f)
{
	finding_init(f);
	if (scope < 0)
		FSET(f, what, "no Yama ptrace restrictions");
	else
		FSET(f, what, "kernel.yama.ptrace_scope = %d", scope);
	if (disabled) {
		FSET(f, why,
		     "single-copy rendezvous turned off "
		     "(RCMPI_SHM_CMA=0): two copies through the rings");
		FSET(f, fix, "unset RCMPI_SHM_CMA");
		return;
	}
	if (live_errno == 0 || (live_errno < 0 && scope <= 0)) {
		f->ok = true;
		return;
	}
	if (scope >= 1) {
		FSET(f, why,
		     "CMA blocked: kernel.yama.ptrace_scope = %d lets "
		     "no rank read another's memory (process_vm_readv), so "
		     "large messages take two copies through the rings",
		     scope);
		if (scope == 3)
			FSET(f, fix,
			     "ptrace_scope 3 cannot be lowered until "
			     "a reboot: set kernel.yama.ptrace_scope = 0 in "
			     "/etc/sysctl.d/ and reboot");
		else
			FSET(f, fix,
			     "sysctl kernel.yama.ptrace_scope=0 (as "
			     "root; to keep it: kernel.yama.ptrace_scope = 0 "
			     "in /etc/sysctl.d/10-ptrace.conf)");
		return;
	}
	FSET(f, why,
	     "CMA blocked: process_vm_readv fails (%s) although "
	     "Yama allows it: a seccomp filter or container policy",
	     strerror(live_errno));
	FSET(f, fix,
	     "in a container, allow process_vm_readv (Docker: "
	     "--cap-add SYS_PTRACE, or a seccomp profile that permits it)");
}

/* a child reads its parent's memory: as two sibling ranks would, the
 * reader is not the target's ancestor. 0 or the errno value. */
static int cma_live(void)
{
	static volatile int marker = 0x5eed;
	pid_t parent = getpid(), pid;
	int ws;

	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		int got = 0;
		struct iovec l = {&got, sizeof(got)};
		struct iovec r = {(void *)&marker, sizeof(marker)};

		if (process_vm_readv(parent, &l, 1, &r, 1, 0) !=
		    (ssize_t)sizeof(got))
			_exit(errno ? errno & 0x7f : 1);
		_exit(got == 0x5eed ? 0 : EFAULT);
	}
	if (waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws))
		return ECHILD;
	return WEXITSTATUS(ws);
}

void rc_info_probe_cma(const char *root, struct rc_finding *f)
{
	char path[4096];
	int scope = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/proc/sys/kernel/yama/ptrace_scope",
		 root);
	fp = fopen(path, "r");
	if (fp) {
		if (fscanf(fp, "%d", &scope) != 1)
			scope = -1;
		fclose(fp);
	}
	rc_info_cma_judge(scope, !rc_param_bool(RC_P_SHM_CMA),
			  root[0] ? -1 : cma_live(), f);
}

/* ---- memlock --------------------------------------------------------------
 */

void rc_info_memlock_judge(unsigned long long limit, bool cap_ipc_lock,
			   struct rc_finding *f)
{
	char b[32];

	finding_init(f);
	if (limit == (unsigned long long)RLIM_INFINITY) {
		FSET(f, what, "unlimited");
		f->ok = true;
		return;
	}
	human_bytes(limit, b, sizeof(b));
	if (cap_ipc_lock) {
		FSET(f, what,
		     "%s (ulimit -l %llu), not binding: this process "
		     "has CAP_IPC_LOCK",
		     b, limit >> 10);
		f->ok = true;
		return;
	}
	if (limit >= MEMLOCK_SMALL) {
		FSET(f, what, "%s (ulimit -l %llu)", b, limit >> 10);
		f->ok = true;
		return;
	}
	if (limit >= MEMLOCK_MIN) {
		FSET(f, what,
		     "%s (ulimit -l %llu): enough for small jobs "
		     "(about 3 MiB per rank at the defaults); large messages "
		     "and many peers need more: ulimit -l unlimited",
		     b, limit >> 10);
		f->ok = true;
		return;
	}
	FSET(f, what, "%s (ulimit -l %llu)", b, limit >> 10);
	FSET(f, why,
	     "the locked-memory limit is too low for RDMA: the verbs "
	     "transport registers about 3 MiB per rank");
	FSET(f, fix,
	     "ulimit -l unlimited before starting the job; for good: "
	     "'* - memlock unlimited' in /etc/security/limits.conf "
	     "(LimitMEMLOCK=infinity for systemd services, --ulimit "
	     "memlock=-1 for containers)");
}

/* bit 14 of CapEff */
static bool has_cap_ipc_lock(void)
{
	unsigned long long caps = 0;
	char line[256];
	FILE *fp = fopen("/proc/self/status", "r");

	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(fp);
	return caps & (1ull << 14);
}

void rc_info_probe_memlock(struct rc_finding *f)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl)) {
		finding_init(f);
		FSET(f, what, "unknown");
		FSET(f, why, "getrlimit: %s", strerror(errno));
		return;
	}
	rc_info_memlock_judge(rl.rlim_cur == RLIM_INFINITY
				      ? (unsigned long long)RLIM_INFINITY
				      : (unsigned long long)rl.rlim_cur,
			      has_cap_ipc_lock(), f);
}

/* TCP: the address the transport would listen on (RCMPI_TCP_IF) */
void rc_info_probe_tcp(struct rc_finding *f)
{
	const char *want = rc_param_str(RC_P_TCP_IF);
	char ifname[64], ip[INET_ADDRSTRLEN];
	struct in_addr a;
	int ret;

	finding_init(f);
	ret = rc_tcp_pick_addr(want, &a, ifname, sizeof(ifname));
	if (ret) {
		FSET(f, what, "no address to listen on");
		if (want)
			FSET(f, why,
			     "RCMPI_TCP_IF=%s: no interface that is up has "
			     "that name or an IPv4 address in that subnet",
			     want);
		else
			FSET(f, why, "getifaddrs: %s", strerror(errno));
		FSET(f, fix,
		     "unset RCMPI_TCP_IF or name an interface, an "
		     "address or a subnet of `ip -4 addr`");
		return;
	}
	inet_ntop(AF_INET, &a, ip, sizeof(ip));
	f->ok = true;
	if ((ntohl(a.s_addr) >> 24) == 127)
		FSET(f, what,
		     "listens on %s (%s): loopback, reaches ranks of "
		     "this node only",
		     ip, ifname);
	else
		FSET(f, what, "listens on %s (%s)", ip, ifname);
}

/* ---- verbs ----------------------------------------------------------------
 */

/* why libibverbs lists nothing: what the kernel has */
static void verbs_cause(const char *root, struct rc_finding *f)
{
	char path[4096], names[256] = "";
	struct dirent *e;
	size_t off = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/sys/class/infiniband", root);
	d = opendir(path);
	if (d) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.' && off + 40 < sizeof(names))
				off += (size_t)snprintf(
					names + off, sizeof(names) - off,
					"%s%s", off ? ", " : "", e->d_name);
		closedir(d);
	}
	if (!d) {
		FSET(f, why,
		     "no RDMA device: the kernel has no RDMA support "
		     "loaded (%s is missing)",
		     path);
		FSET(f, fix,
		     "load your adapter's RDMA driver (e.g. modprobe "
		     "mlx5_ib), or make a Soft-RoCE device on an Ethernet "
		     "interface: rdma link add rxe0 type rxe netdev eth0; "
		     "jobs within one node need none (shared memory)");
	} else if (!names[0]) {
		FSET(f, why,
		     "no RDMA device: the kernel's RDMA core is loaded "
		     "but no device is registered (%s is empty)",
		     path);
		FSET(f, fix,
		     "load your adapter's driver (e.g. modprobe "
		     "mlx5_ib) or add a Soft-RoCE device: rdma link add rxe0 "
		     "type rxe netdev eth0");
	} else {
		FSET(f, why,
		     "no RDMA device usable from user space: the "
		     "kernel has %s, but libibverbs lists none",
		     names);
		FSET(f, fix,
		     "install the user-space drivers (Debian: "
		     "apt-get install ibverbs-providers rdma-core) and check "
		     "/dev/infiniband/uverbs* are readable");
	}
}

static void verbs_finding(const char *root, const struct rc_vinfo *vi,
			  struct rc_finding *f)
{
	finding_init(f);
	if (vi->usable) {
		f->ok = true;
		if (vi->roce)
			FSET(f, what, "%s port %d, RoCE v2 GID index %d",
			     vi->dev, vi->port, vi->gid_index);
		else
			FSET(f, what, "%s port %d, InfiniBand LID %u", vi->dev,
			     vi->port, vi->lid);
		return;
	}
	if (!vi->ndevs) {
		FSET(f, what, "no RDMA device");
		verbs_cause(root, f);
		return;
	}
	FSET(f, what, "%d device%s, none usable", vi->ndevs,
	     vi->ndevs == 1 ? "" : "s");
	FSET(f, why, "%s", vi->why);
	if (strstr(vi->why, "no active RDMA port"))
		FSET(f, fix,
		     "check the cable and the link (ibstat, rdma link); "
		     "InfiniBand needs a subnet manager (opensm)");
	else if (strstr(vi->why, "RoCE v2 GID"))
		FSET(f, fix,
		     "give the Ethernet interface behind the device an "
		     "IP address, or choose a GID with RCMPI_VERBS_GID_INDEX");
	else if (strstr(vi->why, "RCMPI_"))
		FSET(f, fix, "correct the parameter named, or unset it");
}

/* ---- the report -------------------------------------------------------------
 */

struct out {
	FILE *f;
	bool p; /* parsable */
};

/* "key:value" (parsable) or "  Label: value" */
static void kv(struct out *o, const char *key, const char *label,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void kv(struct out *o, const char *key, const char *label,
	       const char *fmt, ...)
{
	va_list ap;

	if (o->p)
		fprintf(o->f, "%s:", key);
	else
		fprintf(o->f, "  %-18s ", label);
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
	fputc('\n', o->f);
}

static void report_build(struct out *o)
{
	if (!o->p)
		fprintf(o->f, "rcmpi %s\nBuild:\n", PACKAGE_VERSION);
	else
		kv(o, "version:rcmpi", "", "%s", PACKAGE_VERSION);
	kv(o, "build:configure", "configure:", "%s", RC_BUILD_CONFIGURE);
	kv(o, "build:compiler", "compiler:", "%s", RC_BUILD_CC);
	kv(o, "build:cflags", "CFLAGS:", "%s", RC_BUILD_CFLAGS);
	kv(o, "build:sanitizers", "sanitizers:", "%s", RC_BUILD_SANITIZERS);
	kv(o, "build:pmix", "PMIx:", "%s (built with); %s (running)",
	   RC_BUILD_PMIX, PMIx_Get_version());
	kv(o, "build:libibverbs", "libibverbs:", "%s", RC_BUILD_VERBS);
	kv(o, "build:librdmacm", "librdmacm:", "%s", RC_BUILD_RDMACM);
	kv(o, "build:libcrypto", "libcrypto:", "%s (launcher: HMAC-SHA-256)",
	   RC_BUILD_CRYPTO);
	kv(o, "build:munge", "MUNGE:", "%s", RC_BUILD_MUNGE);
	kv(o, "build:auth", "launcher auth:", "%s (RCMPI_AUTH=%s)",
#ifdef HAVE_MUNGE
	   "secret, munge",
#else
	   "secret",
#endif
	   rc_param_str(RC_P_AUTH));
}

static void report_finding(struct out *o, const char *key, const char *label,
			   const struct rc_finding *f)
{
	char k[128];

	if (o->p) {
		snprintf(k, sizeof(k), "%s:usable", key);
		kv(o, k, "", "%s", f->ok ? "yes" : "no");
		snprintf(k, sizeof(k), "%s:state", key);
		kv(o, k, "", "%s", f->what);
		if (!f->ok) {
			snprintf(k, sizeof(k), "%s:why", key);
			kv(o, k, "", "%s", f->why);
		}
		if (!f->ok && f->fix[0]) {
			snprintf(k, sizeof(k), "%s:fix", key);
			kv(o, k, "", "%s", f->fix);
		}
		return;
	}
	kv(o, "", label, "%s: %s", f->ok ? "usable" : "NOT USABLE", f->what);
	if (!f->ok)
		kv(o, "", "", "why: %s", f->why);
	if (!f->ok && f->fix[0])
		kv(o, "", "", "fix: %s", f->fix);
}

static void report_transports(struct out *o, const char *root,
			      const struct rc_vinfo *vi)
{
	struct rc_finding shm, cma, verbs, tcp, mem;

	rc_info_probe_shm(root, &shm);
	rc_info_probe_cma(root, &cma);
	rc_info_probe_memlock(&mem);
	verbs_finding(root, vi, &verbs);
	rc_info_probe_tcp(&tcp);
	if (!o->p)
		fprintf(o->f,
			"Transports (compiled in: self, shm, verbs, tcp; "
			"chosen by RCMPI_TRANSPORTS=%s):\n",
			rc_param_str(RC_P_TRANSPORTS));
	if (o->p) {
		kv(o, "transport:compiled", "", "self,shm,verbs,tcp");
		kv(o, "transport:selected", "", "%s",
		   rc_param_str(RC_P_TRANSPORTS));
	}
	report_finding(o, "transport:shm", "shm", &shm);
	report_finding(o, "transport:shm:cma", "shm single-copy", &cma);
	report_finding(o, "transport:verbs", "verbs", &verbs);
	report_finding(o, "transport:tcp", "tcp", &tcp);
	report_finding(o, "limit:memlock", "locked memory", &mem);
}

static void report_port(struct out *o, const struct rc_vinfo_dev *d,
			const struct rc_vinfo_port *p)
{
	const struct ibv_port_attr *a = &p->attr;
	bool eth = a->link_layer == IBV_LINK_LAYER_ETHERNET;
	char k[160], speed[64], gid[64];
	int i;

#define PK(field)                                                        \
	(snprintf(k, sizeof(k), "device:%s:port:%u:%s", d->name, p->num, \
		  field),                                                \
	 k)
	if (p->err) {
		kv(o, PK("error"), "", "ibv_query_port: %s", strerror(p->err));
		if (!o->p)
			fprintf(o->f, "    port %u: ibv_query_port: %s\n",
				p->num, strerror(p->err));
		return;
	}
	rc_vinfo_speed_str(a->active_width, a->active_speed, speed,
			   sizeof(speed));
	if (!o->p) {
		fprintf(o->f, "    port %u: %s, %s, MTU %d (max %d), %s",
			p->num, rc_vinfo_state_str(a->state),
			eth ? "Ethernet (RoCE)" : "InfiniBand",
			128 << a->active_mtu, 128 << a->max_mtu, speed);
		if (!eth)
			fprintf(o->f, ", LID %u", a->lid);
		fputc('\n', o->f);
		for (i = 0; i < p->ngids; i++) {
			rc_vinfo_gid_str(p->gids[i].gid.raw, gid, sizeof(gid));
			fprintf(o->f, "      GID %-3u %-8s %s%s\n",
				p->gids[i].gid_index,
				rc_vinfo_gid_type_str(p->gids[i].gid_type), gid,
				eth && (int)p->gids[i].gid_index == p->pick
					? "   <- rcmpi picks this one"
					: "");
		}
		if (eth && p->pick < 0)
			fprintf(o->f, "      no RoCE v2 GID: rcmpi cannot use "
				      "this port\n");
		return;
	}
	kv(o, PK("state"), "", "%s", rc_vinfo_state_str(a->state));
	kv(o, PK("link_layer"), "", "%s", eth ? "Ethernet" : "InfiniBand");
	kv(o, PK("lid"), "", "%u", a->lid);
	kv(o, PK("mtu"), "", "%d", 128 << a->active_mtu);
	kv(o, PK("max_mtu"), "", "%d", 128 << a->max_mtu);
	kv(o, PK("speed"), "", "%s", speed);
	for (i = 0; i < p->ngids; i++) {
		rc_vinfo_gid_str(p->gids[i].gid.raw, gid, sizeof(gid));
		snprintf(k, sizeof(k), "device:%s:port:%u:gid:%u:type", d->name,
			 p->num, p->gids[i].gid_index);
		kv(o, k, "", "%s", rc_vinfo_gid_type_str(p->gids[i].gid_type));
		snprintf(k, sizeof(k), "device:%s:port:%u:gid:%u:addr", d->name,
			 p->num, p->gids[i].gid_index);
		kv(o, k, "", "%s", gid);
	}
	if (eth)
		kv(o, PK("gid_pick"), "", "%d", p->pick);
#undef PK
}

static void report_devices(struct out *o, const struct rc_vinfo *vi)
{
	char k[160];
	int i, j;

	if (!o->p)
		fprintf(o->f, "RDMA devices:%s\n", vi->ndevs ? "" : " none");
	if (o->p)
		kv(o, "devices:count", "", "%d", vi->ndevs);
	for (i = 0; i < vi->ndevs; i++) {
		const struct rc_vinfo_dev *d = &vi->devs[i];

#define DK(field) (snprintf(k, sizeof(k), "device:%s:%s", d->name, field), k)
		if (d->err[0]) {
			if (o->p)
				kv(o, DK("error"), "", "%s", d->err);
			else
				fprintf(o->f, "  %s: %s\n", d->name, d->err);
			continue;
		}
		if (!o->p) {
			fprintf(o->f,
				"  %s: node GUID %016llx, firmware %s, "
				"%d port%s\n",
				d->name,
				(unsigned long long)be64toh(d->attr.node_guid),
				d->attr.fw_ver[0] ? d->attr.fw_ver : "?",
				d->attr.phys_port_cnt,
				d->attr.phys_port_cnt == 1 ? "" : "s");
			fprintf(o->f,
				"    atomics %s, max inline %d bytes, "
				"max QP WRs %d, max SGEs %d, max RDMA reads "
				"%d\n",
				rc_vinfo_atomic_str(d->attr.atomic_cap),
				d->max_inline, d->attr.max_qp_wr,
				d->attr.max_sge, d->attr.max_qp_rd_atom);
		} else {
			kv(o, DK("node_guid"), "", "%016llx",
			   (unsigned long long)be64toh(d->attr.node_guid));
			kv(o, DK("fw_ver"), "", "%s", d->attr.fw_ver);
			kv(o, DK("ports"), "", "%d", d->attr.phys_port_cnt);
			kv(o, DK("atomics"), "", "%s",
			   rc_vinfo_atomic_str(d->attr.atomic_cap));
			kv(o, DK("max_inline"), "", "%d", d->max_inline);
			kv(o, DK("max_qp_wr"), "", "%d", d->attr.max_qp_wr);
			kv(o, DK("max_sge"), "", "%d", d->attr.max_sge);
			kv(o, DK("max_qp_rd_atom"), "", "%d",
			   d->attr.max_qp_rd_atom);
		}
#undef DK
		for (j = 0; j < d->nports; j++)
			report_port(o, d, &d->ports[j]);
	}
	if (vi->usable && !o->p)
		fprintf(o->f, "  rcmpi uses: %s port %d, %s %d\n", vi->dev,
			vi->port, vi->roce ? "RoCE v2 GID index" : "LID",
			vi->roce ? vi->gid_index : vi->lid);
}

static void report_param(struct out *o, int i)
{
	const struct rc_param_def *d = &rc_params[i];
	const char *v = rc_param_raw((enum rc_param_id)i);
	char why[256] = "", range[64] = "", k[160];
	bool bad = v && !rc_param_valid(d, v, why, sizeof(why));

	if (d->type == RC_PT_INT || d->type == RC_PT_SIZE)
		snprintf(range, sizeof(range), "%ld..%ld", d->min, d->max);
	if (!o->p) {
		fprintf(o->f, "  RCMPI_%s = %s%s%s (default %s; %s%s%s; %s)\n",
			d->name,
			v	    ? v
			: d->def[0] ? d->def
				    : "(unset)",
			bad ? " INVALID: " : "", bad ? why : "",
			d->def[0] ? d->def : "unset",
			rc_param_type_name(d->type), range[0] ? " " : "", range,
			d->who);
		fprintf(o->f, "      %s\n", d->desc);
		return;
	}
#define PK(field) \
	(snprintf(k, sizeof(k), "param:RCMPI_%s:%s", d->name, field), k)
	kv(o, PK("type"), "", "%s", rc_param_type_name(d->type));
	kv(o, PK("default"), "", "%s", d->def);
	kv(o, PK("value"), "", "%s", v ? v : d->def);
	kv(o, PK("source"), "", "%s",
	   !v	 ? "default"
	   : bad ? "environment "
		   "(invalid: the default is used)"
		 : "environment");
	if (bad)
		kv(o, PK("invalid"), "", "%s", why);
	if (range[0])
		kv(o, PK("range"), "", "%s", range);
	kv(o, PK("reader"), "", "%s", d->who);
	kv(o, PK("description"), "", "%s", d->desc);
#undef PK
}

extern char **environ;

static int report_params(struct out *o, char *const *names, int n)
{
	char hint[128], name[128];
	char **e;
	int i, id, ret = 0;

	if (!o->p)
		fprintf(o->f, "Parameters (RCMPI_*: value now, default, type, "
			      "reader):\n");
	if (names && n) {
		for (i = 0; i < n; i++) {
			id = rc_param_find(names[i]);
			if (id >= 0) {
				report_param(o, id);
				continue;
			}
			rc_param_unknown(names[i][0] == 'R' ? names[i] : "",
					 hint, sizeof(hint));
			fprintf(stderr, "rcmpi_info: no parameter %s%s%s%s\n",
				names[i], hint[0] ? " (did you mean " : "",
				hint, hint[0] ? "?)" : "");
			ret = 1;
		}
		return ret;
	}
	for (i = 0; i < RC_P_COUNT; i++)
		report_param(o, i);
	for (e = environ; *e; e++) {
		if (!rc_param_unknown(*e, hint, sizeof(hint)))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(*e, "="), *e);
		if (o->p)
			fprintf(o->f, "param-unknown:%s:closest:%s\n", name,
				hint);
		else
			fprintf(o->f, "  %s: not an rcmpi parameter%s%s%s\n",
				name, hint[0] ? " (did you mean " : "", hint,
				hint[0] ? "?)" : "");
	}
	return 0;
}

int rc_info_report(FILE *f, const char *root, unsigned sections, bool parsable,
		   char *const *params, int nparams)
{
	struct out o = {f, parsable};
	struct rc_vinfo vi;
	int ret = 0;

	if (sections & RC_INFO_BUILD)
		report_build(&o);
	if (sections & (RC_INFO_TRANSPORTS | RC_INFO_DEVICES)) {
		if (rc_vinfo_collect(&vi)) {
			fprintf(stderr, "rcmpi_info: out of memory\n");
			rc_vinfo_free(&vi);
			return 1;
		}
		if (sections & RC_INFO_TRANSPORTS)
			report_transports(&o, root, &vi);
		if (sections & RC_INFO_DEVICES)
			report_devices(&o, &vi);
		rc_vinfo_free(&vi);
	}
	if (sections & RC_INFO_PARAMS)
		ret = report_params(&o, params, nparams);
	fflush(f);
	return ret;
}
