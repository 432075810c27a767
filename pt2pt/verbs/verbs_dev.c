/*
 * verbs_dev.c - the transport's parameters, and which device, port and
 * address it uses.
 *
 * Device and port: the first ACTIVE port of the first device, unless
 * RCMPI_VERBS_DEVICE=name[:port] names one, or RCMPI_NET_IF=ifname names
 * the network interface whose RDMA device to use (its IPv4 address is
 * bound with rdma_bind_addr on an rdma_cm id, which reports the device and
 * port behind it). A named device or port that does not exist or is not
 * ACTIVE is an error; no device at all is RC_ERR_NODEV, which the engine
 * reports only if a peer needs verbs.
 *
 * Address: the port's link layer decides. InfiniBand: the port's LID (no
 * GRH; service level RCMPI_VERBS_SL). Ethernet (RoCE): a GID chosen from the
 * port's GID table by type - RoCE v2, IPv4-mapped first (the one of
 * RCMPI_NET_IF's address when given), never a fixed index -
 * unless RCMPI_VERBS_GID_INDEX picks one; a bad index is an error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "inst.h"
#include "log.h"
#include "param.h"
#include "status.h"
#include "tp_verbs.h"
#include "verbs.h"
#include "verbs_hooks.h"

static char open_error[512];

void vb_set_open_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(open_error, sizeof(open_error), fmt, ap);
	va_end(ap);
}

const char *rc_tp_verbs_open_error(void)
{
	return open_error[0] ? open_error : "the verbs transport did not open";
}

const char *vb_memlock_hint(int err)
{
	static char hint[320];
	struct rlimit rl;

	if (err != ENOMEM && err != EAGAIN && err != EPERM)
		return "";
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return "";
	snprintf(hint, sizeof(hint),
		 "; the locked-memory limit of this process is %llu KiB "
		 "(ulimit -l %llu), too low for RDMA: raise it with "
		 "'ulimit -l unlimited' before starting the job (or "
		 "'* - memlock unlimited' in /etc/security/limits.conf, "
		 "LimitMEMLOCK=infinity for systemd services, "
		 "--ulimit memlock=-1 for containers)",
		 (unsigned long long)rl.rlim_cur / 1024,
		 (unsigned long long)rl.rlim_cur / 1024);
	return hint;
}

bool vb_gid_is_v4mapped(const uint8_t *g)
{
	static const uint8_t pfx[12] = {0, 0, 0, 0, 0,	  0,
					0, 0, 0, 0, 0xff, 0xff};

	return !memcmp(g, pfx, sizeof(pfx));
}

void vb_gid_str(const uint8_t *g, char *out, size_t len)
{
	if (vb_gid_is_v4mapped(g))
		snprintf(out, len, "::ffff:%u.%u.%u.%u", g[12], g[13], g[14],
			 g[15]);
	else if (!inet_ntop(AF_INET6, g, out, (socklen_t)len))
		snprintf(out, len, "?");
}

const char *vb_port_state_str(enum ibv_port_state s)
{
	switch (s) {
	case IBV_PORT_DOWN:
		return "DOWN";
	case IBV_PORT_INIT:
		return "INIT";
	case IBV_PORT_ARMED:
		return "ARMED";
	case IBV_PORT_ACTIVE:
		return "ACTIVE";
	case IBV_PORT_ACTIVE_DEFER:
		return "ACTIVE_DEFER";
	default:
		return "NOP";
	}
}

const char *vb_gid_type_str(uint32_t t)
{
	return t == IBV_GID_TYPE_ROCE_V2   ? "RoCE v2"
	       : t == IBV_GID_TYPE_ROCE_V1 ? "RoCE v1"
					   : "IB";
}

/* A strict integer parameter: absent or "auto" -> def; garbage -> error. */
static int param_strict(enum rc_param_id id, long def, long *out)
{
	const struct rc_param_def *d = &rc_params[id];
	const char *v = rc_param_raw(id);

	if (!v || !strcmp(v, "auto")) {
		*out = def;
		return RC_OK;
	}
	if (!rc_param_parse_long(v, d->min, d->max, out)) {
		rc_log_err("RCMPI_%s=%s: expected a number in [%ld, %ld]",
			   d->name, v, d->min, d->max);
		vb_set_open_error("RCMPI_%s=%s is invalid", d->name, v);
		return RC_ERR_INVAL;
	}
	return RC_OK;
}

enum vb_wiring vb_wiring_asked(int nranks)
{
	const char *cm = rc_param_str(RC_P_VERBS_CM);

	if (!strcmp(cm, "modex"))
		return VB_WIRE_MODEX;
	if (!strcmp(cm, "rdmacm"))
		return VB_WIRE_RDMACM;
	if (!strcmp(cm, "ud"))
		return VB_WIRE_UD;
	if (strcmp(cm, "auto"))
		return VB_WIRE_BAD;
	return nranks > rc_param_int(RC_P_VERBS_CM_AUTO_RANKS) ? VB_WIRE_AUTO_CM
							       : VB_WIRE_MODEX;
}

int vb_params_read(struct vb_params *p, int nranks)
{
	enum vb_wiring wire = vb_wiring_asked(nranks);
	long gid, v;
	int ret;

	memset(p, 0, sizeof(*p));
	p->device = rc_param_str(RC_P_VERBS_DEVICE);
	p->netif = rc_param_str(RC_P_NET_IF);
	ret = param_strict(RC_P_VERBS_GID_INDEX, -1, &gid);
	if (ret)
		return ret;
	p->gid_index = (int)gid;
	if (wire == VB_WIRE_BAD) {
		const char *cm = rc_param_str(RC_P_VERBS_CM);

		rc_log_err("RCMPI_VERBS_CM=%s: expected auto, modex, rdmacm "
			   "or ud",
			   cm);
		vb_set_open_error("RCMPI_VERBS_CM=%s is invalid", cm);
		return RC_ERR_INVAL;
	}
	p->cm = wire == VB_WIRE_RDMACM || wire == VB_WIRE_UD;
	p->ud = wire == VB_WIRE_UD;
	p->cm_auto = wire == VB_WIRE_AUTO_CM;
	p->sl = (unsigned)rc_param_int(RC_P_VERBS_SL);
	p->tc = (unsigned)rc_param_int(RC_P_VERBS_TC);
	p->hop_limit = (unsigned)rc_param_int(RC_P_VERBS_HOP_LIMIT);
	p->eager_limit = (size_t)rc_param_int(RC_P_VERBS_EAGER_LIMIT);
	p->inline_max = (unsigned)rc_param_int(RC_P_VERBS_INLINE);
	p->rq_size = (unsigned)rc_param_int(RC_P_VERBS_RQ_SIZE);
	p->rx_batch = (unsigned)rc_param_int(RC_P_VERBS_RX_BATCH);
	p->credits = (unsigned)rc_param_int(RC_P_VERBS_CREDITS);
	p->credits_min = p->credits < 4 ? p->credits : 4;
	p->bounce = (unsigned)rc_param_int(RC_P_VERBS_BOUNCE);
	p->sq_size = (unsigned)rc_param_int(RC_P_VERBS_SQ_SIZE);
	p->signal_every =
		(unsigned)rc_param_int_max(RC_P_VERBS_SIGNAL, p->sq_size / 4);
	p->send_cqe = (unsigned)rc_param_int(RC_P_VERBS_SEND_CQE);
	p->rdma_chunk = (size_t)rc_param_int(RC_P_VERBS_RDMA_CHUNK);
	p->max_rdma = (unsigned)rc_param_int(RC_P_VERBS_MAX_RDMA);
	p->rd_atom = (unsigned)rc_param_int(RC_P_VERBS_RD_ATOM);
	ret = param_strict(RC_P_VERBS_RD_FENCE, -1, &v);
	if (ret)
		return ret;
	p->rd_fence = (int)v;
	p->timeout = (unsigned)rc_param_int(RC_P_VERBS_TIMEOUT);
	p->retry = (unsigned)rc_param_int(RC_P_VERBS_RETRY);
	p->rnr_retry = (unsigned)rc_param_int(RC_P_VERBS_RNR_RETRY);
	/* (no memory hooks, no cache: ThreadSanitizer builds) */
	p->rcache = rc_param_bool(RC_P_VERBS_RCACHE) && rc_verbs_hooks_live();
	p->rcache_entries = (size_t)rc_param_int(RC_P_VERBS_RCACHE_ENTRIES);
	p->rcache_bytes = (size_t)rc_param_int(RC_P_VERBS_RCACHE_SIZE);
	p->mallopt = rc_param_bool(RC_P_VERBS_MALLOPT);
	p->cm_timeout_ms = (unsigned)rc_param_int(RC_P_VERBS_CM_TIMEOUT);
	p->ud_timeout_ms = (unsigned)rc_param_int(RC_P_VERBS_UD_TIMEOUT);
	p->ud_agent = rc_param_bool(RC_P_VERBS_UD_AGENT);
	p->fp_rings = (unsigned)rc_param_int(RC_P_VERBS_FP_RINGS);
	p->fp_slots = (unsigned)rc_param_int(RC_P_VERBS_FP_SLOTS);
	p->fp_size = (unsigned)rc_param_int(RC_P_VERBS_FP_SIZE) & ~63u;
	p->fp_threshold = (unsigned)rc_param_int(RC_P_VERBS_FP_THRESHOLD);
	p->idle_ms = (unsigned)rc_param_int(RC_P_VERBS_IDLE_MS);
	return RC_OK;
}

/* RCMPI_NET_IF: the interface's IPv4 address, and the RDMA device and
 * port rdma_cm binds it to. */
static int netif_lookup(struct vb_tp *vt, char *dev, size_t devlen, int *port)
{
	const struct rc_verbs_ops *ops = vt->ops;
	const char *ifn = vt->prm.netif;
	struct rdma_event_channel *ch;
	struct sockaddr_in sin;
	struct rdma_cm_id *id;
	struct ifaddrs *ifa, *i;
	int ret = RC_ERR_INVAL;
	bool found = false;

	if (getifaddrs(&ifa)) {
		rc_log_err("RCMPI_NET_IF=%s: getifaddrs: %s", ifn,
			   strerror(errno));
		return RC_ERR_IO;
	}
	memset(&sin, 0, sizeof(sin));
	for (i = ifa; i; i = i->ifa_next) {
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    !strcmp(i->ifa_name, ifn)) {
			memcpy(&sin, i->ifa_addr, sizeof(sin));
			found = true;
			break;
		}
	}
	freeifaddrs(ifa);
	if (!found) {
		rc_log_err("RCMPI_NET_IF=%s: %s", ifn,
			   if_nametoindex(ifn)
				   ? "the interface has no IPv4 address"
				   : "no such network interface");
		vb_set_open_error("RCMPI_NET_IF=%s is unusable", ifn);
		return RC_ERR_INVAL;
	}
	sin.sin_port = 0;
	vt->ipv4 = sin.sin_addr.s_addr;
	ch = ops->cm_create_event_channel();
	if (!ch) {
		rc_log_err("RCMPI_NET_IF=%s: rdma_create_event_channel: %s",
			   ifn, strerror(errno));
		return RC_ERR_NODEV;
	}
	if (ops->cm_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		rc_log_err("RCMPI_NET_IF=%s: rdma_create_id: %s", ifn,
			   strerror(errno));
		ret = RC_ERR_NODEV;
		goto err_destroy_channel;
	}
	if (ops->cm_bind_addr(id, (struct sockaddr *)&sin) || !id->verbs) {
		rc_log_err("RCMPI_NET_IF=%s: no RDMA device behind %s "
			   "(rdma_bind_addr: %s)",
			   ifn, inet_ntoa(sin.sin_addr),
			   id->verbs ? strerror(errno) : "no device");
		vb_set_open_error("RCMPI_NET_IF=%s has no RDMA device", ifn);
		goto err_destroy_id;
	}
	snprintf(dev, devlen, "%s", ops->get_device_name(id->verbs->device));
	*port = id->port_num;
	ret = RC_OK;
err_destroy_id:
	ops->cm_destroy_id(id);
err_destroy_channel:
	ops->cm_destroy_event_channel(ch);
	return ret;
}

/* Score of a GID for RoCE: higher is better, 0 unusable. */
static int gid_score(const struct ibv_gid_entry *e, uint32_t ipv4)
{
	static const uint8_t zero[16];
	int s;

	if (e->gid_type != IBV_GID_TYPE_ROCE_V2 ||
	    !memcmp(e->gid.raw, zero, 16))
		return 0;
	s = 1;
	if (vb_gid_is_v4mapped(e->gid.raw)) {
		s = 2;
		if (ipv4 && !memcmp(e->gid.raw + 12, &ipv4, 4))
			s = 3;
	}
	return s;
}

const struct ibv_gid_entry *vb_gid_pick(const struct ibv_gid_entry *g, int n,
					int forced, uint32_t ipv4)
{
	const struct ibv_gid_entry *best = NULL;
	int i, score = 0;

	for (i = 0; i < n; i++) {
		int sc = forced >= 0 ? g[i].gid_index == (uint32_t)forced
				     : gid_score(&g[i], ipv4);

		if (sc > score) {
			score = sc;
			best = &g[i];
		}
	}
	return best;
}

int vb_gid_entries(const struct rc_verbs_ops *ops, struct ibv_context *ctx,
		   const struct ibv_device_attr *dattr, uint8_t port,
		   const struct ibv_port_attr *pattr,
		   struct ibv_gid_entry **out, int *n)
{
	int len = pattr->gid_tbl_len > 0 ? pattr->gid_tbl_len : 1;
	size_t max = (size_t)len * dattr->phys_port_cnt;
	struct ibv_gid_entry *all = calloc(max ? max : 1, sizeof(*all));
	ssize_t got;
	int i, k = 0;

	if (!all)
		return RC_ERR_NOMEM;
	got = ops->query_gid_table(ctx, all, max);
	if (got >= 0) {
		for (i = 0; i < got; i++)
			if (all[i].port_num == port)
				all[k++] = all[i];
	} else {
		for (i = 0; i < len; i++) {
			if (ops->query_gid_ex(ctx, port, (uint32_t)i, &all[k]))
				continue; /* empty entry */
			all[k].gid_index = (uint32_t)i;
			k++;
		}
	}
	*out = all;
	*n = k;
	return RC_OK;
}

static void gid_list(const struct ibv_gid_entry *g, int n, char *out,
		     size_t len)
{
	size_t off = 0;
	int i;

	out[0] = 0;
	for (i = 0; i < n && off + 64 < len; i++) {
		char s[64];

		vb_gid_str(g[i].gid.raw, s, sizeof(s));
		off += (size_t)snprintf(out + off, len - off, "%s%u (%s %s)",
					i ? ", " : "", g[i].gid_index,
					vb_gid_type_str(g[i].gid_type), s);
	}
	if (!n)
		snprintf(out, len, "none");
}

static int gid_select(struct vb_tp *vt)
{
	struct ibv_gid_entry *g, *best;
	char list[400], s[64];
	int n, ret;

	ret = vb_gid_entries(vt->ops, vt->ctx, &vt->dattr, vt->port, &vt->pattr,
			     &g, &n);
	if (ret)
		return ret;
	best = (struct ibv_gid_entry *)vb_gid_pick(g, n, vt->prm.gid_index,
						   vt->ipv4);
	if (vt->prm.gid_index >= 0) {
		if (!best) {
			gid_list(g, n, list, sizeof(list));
			rc_log_err(
				"RCMPI_VERBS_GID_INDEX=%d: %s port %u has no "
				"GID at that index (table size %d; valid: %s)",
				vt->prm.gid_index, vt->dev_name, vt->port,
				vt->pattr.gid_tbl_len, list);
			vb_set_open_error("RCMPI_VERBS_GID_INDEX=%d is not a "
					  "valid GID index of %s port %u",
					  vt->prm.gid_index, vt->dev_name,
					  vt->port);
			free(g);
			return RC_ERR_INVAL;
		}
		if (best->gid_type != IBV_GID_TYPE_ROCE_V2)
			rc_log_warn("RCMPI_VERBS_GID_INDEX=%d on %s port %u is "
				    "a %s GID: peers must use the same type",
				    vt->prm.gid_index, vt->dev_name, vt->port,
				    vb_gid_type_str(best->gid_type));
	} else {
		if (!best) {
			gid_list(g, n, list, sizeof(list));
			rc_log_debug("%s port %u: no RoCE v2 GID (GIDs: %s)",
				     vt->dev_name, vt->port, list);
			vb_set_open_error(
				"%s port %u (Ethernet) has no RoCE v2 "
				"GID: does its interface have an IP "
				"address? (GIDs: %s; "
				"RCMPI_VERBS_GID_INDEX picks one)",
				vt->dev_name, vt->port, list);
			free(g);
			return RC_ERR_NODEV;
		}
	}
	vt->gid_index = (int)best->gid_index;
	memcpy(vt->gid.raw, best->gid.raw, 16);
	if (!vt->ipv4 && vb_gid_is_v4mapped(vt->gid.raw))
		memcpy(&vt->ipv4, vt->gid.raw + 12, 4);
	vb_gid_str(vt->gid.raw, s, sizeof(s));
	rc_log_debug("%s port %u: RoCE v2 GID index %d (%s)", vt->dev_name,
		     vt->port, vt->gid_index, s);
	free(g);
	return RC_OK;
}

/* Split "name[:port]". */
static int parse_device(const char *spec, char *name, size_t len, int *port)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	char *end;

	*port = 0;
	if (!n || n >= len)
		goto bad;
	memcpy(name, spec, n);
	name[n] = 0;
	if (colon) {
		long p = strtol(colon + 1, &end, 10);

		if (end == colon + 1 || *end || p < 1 || p > 255)
			goto bad;
		*port = (int)p;
	}
	return RC_OK;
bad:
	rc_log_err("RCMPI_VERBS_DEVICE=%s: expected name[:port], e.g. mlx5_0:1",
		   spec);
	vb_set_open_error("RCMPI_VERBS_DEVICE=%s is invalid", spec);
	return RC_ERR_INVAL;
}

/* Look at ports of an open device: the first ACTIVE one (or `want`). */
static int pick_port(struct vb_tp *vt, int want, char *why, size_t whylen)
{
	const struct rc_verbs_ops *ops = vt->ops;
	int p, first = want ? want : 1;
	int last = want ? want : vt->dattr.phys_port_cnt;
	size_t off = strlen(why);

	if (want > vt->dattr.phys_port_cnt) {
		snprintf(why + off, whylen - off,
			 "%s%s has no port %d (ports 1-%d)", off ? "; " : "",
			 vt->dev_name, want, vt->dattr.phys_port_cnt);
		return RC_ERR_INVAL;
	}
	for (p = first; p <= last; p++) {
		struct ibv_port_attr pa;
		int err = ops->query_port(vt->ctx, (uint8_t)p, &pa);

		if (err) {
			off = strlen(why);
			snprintf(why + off, whylen - off,
				 "%s%s port %d: ibv_query_port: %s",
				 off ? "; " : "", vt->dev_name, p,
				 strerror(err));
			continue;
		}
		if (pa.state == IBV_PORT_ACTIVE) {
			vt->port = (uint8_t)p;
			vt->pattr = pa;
			return RC_OK;
		}
		off = strlen(why);
		snprintf(why + off, whylen - off, "%s%s port %d is %s",
			 off ? "; " : "", vt->dev_name, p,
			 vb_port_state_str(pa.state));
	}
	return RC_ERR_NODEV;
}

static void dev_ctx_release(struct vb_tp *vt)
{
	if (vt->ctx && vt->ctx_owned)
		vt->ops->close_device(vt->ctx);
	vt->ctx = NULL;
	vt->ctx_owned = false;
}

int vb_dev_open(struct vb_tp *vt)
{
	const struct rc_verbs_ops *ops = vt->ops;
	struct ibv_device **dlist = NULL;
	struct ibv_context **clist = NULL;
	char want[64] = "", why[512] = "", names[256] = "";
	int n = 0, i, want_port = 0, ret;
	bool named, cml;

	if (vt->prm.device) {
		ret = parse_device(vt->prm.device, want, sizeof(want),
				   &want_port);
		if (ret)
			return ret;
	}
	if (vt->prm.netif) {
		char ndev[64];
		int nport;

		ret = netif_lookup(vt, ndev, sizeof(ndev), &nport);
		if (ret)
			return ret;
		if (want[0] && strcmp(want, ndev)) {
			rc_log_err(
				"RCMPI_VERBS_DEVICE=%s but RCMPI_NET_IF=%s is "
				"on %s",
				vt->prm.device, vt->prm.netif, ndev);
			vb_set_open_error("RCMPI_VERBS_DEVICE and RCMPI_NET_IF "
					  "disagree");
			return RC_ERR_INVAL;
		}
		snprintf(want, sizeof(want), "%s", ndev);
		want_port = nport;
	}
	named = want[0] != 0;

	/* rdma_cm's connections need its own device contexts (their PD
	 * must be on them); auto wiring takes them too, if librdmacm
	 * lists devices here, so that it may still choose rdma_cm once it
	 * knows the port */
	errno = 0;
	cml = (vt->prm.cm && !vt->prm.ud) || vt->prm.cm_auto;
	if (cml)
		clist = ops->cm_get_devices(&n);
	if (!clist && vt->prm.cm_auto) {
		rc_log_debug("verbs: rdma_get_devices: %s: no rdma_cm, the "
			     "UD handshake wires on demand",
			     errno ? strerror(errno) : "none");
		vt->prm.ud = true;
		cml = false;
		errno = 0;
	}
	if (!cml)
		dlist = ops->get_device_list(&n);
	if ((cml ? !clist : !dlist) || n <= 0) {
		int err = errno;

		vb_set_open_error(
			"no RDMA device found (%s%s%s)",
			cml ? "rdma_get_devices" : "ibv_get_device_list",
			err ? ": " : " lists none", err ? strerror(err) : "");
		rc_log_debug("%s", rc_tp_verbs_open_error());
		ret = named ? RC_ERR_INVAL : RC_ERR_NODEV;
		if (named)
			rc_log_err("RCMPI_VERBS_DEVICE=%s: %s", want,
				   rc_tp_verbs_open_error());
		goto err_free_list;
	}

	ret = RC_ERR_NODEV;
	for (i = 0; i < n; i++) {
		const char *name = cml ? ops->get_device_name(clist[i]->device)
				       : ops->get_device_name(dlist[i]);
		size_t off = strlen(names);
		int err;

		snprintf(names + off, sizeof(names) - off, "%s%s",
			 off ? ", " : "", name);
		if (named && strcmp(name, want))
			continue;
		snprintf(vt->dev_name, sizeof(vt->dev_name), "%s", name);
		if (cml) {
			vt->ctx = clist[i];
		} else {
			vt->ctx = ops->open_device(dlist[i]);
			if (!vt->ctx) {
				off = strlen(why);
				snprintf(why + off, sizeof(why) - off,
					 "%sibv_open_device(%s): %s",
					 off ? "; " : "", name,
					 strerror(errno));
				continue;
			}
			vt->ctx_owned = true;
		}
		err = ops->query_device(vt->ctx, &vt->dattr);
		if (err) {
			off = strlen(why);
			snprintf(why + off, sizeof(why) - off,
				 "%sibv_query_device(%s): %s", off ? "; " : "",
				 name, strerror(err));
			dev_ctx_release(vt);
			continue;
		}
		ret = pick_port(vt, want_port, why, sizeof(why));
		if (ret == RC_OK)
			break;
		dev_ctx_release(vt);
	}
	if (ret) {
		if (named) {
			if (!why[0])
				snprintf(why, sizeof(why),
					 "no such device (devices: %s)", names);
			rc_log_err("RCMPI_%s=%s: %s",
				   vt->prm.netif ? "NET_IF" : "VERBS_DEVICE",
				   vt->prm.netif ? vt->prm.netif
						 : vt->prm.device,
				   why);
			vb_set_open_error(
				"RCMPI_%s=%s: %s",
				vt->prm.netif ? "NET_IF" : "VERBS_DEVICE",
				vt->prm.netif ? vt->prm.netif : vt->prm.device,
				why);
			ret = RC_ERR_INVAL;
		} else {
			vb_set_open_error("no active RDMA port (%s)", why);
			rc_log_debug("%s", rc_tp_verbs_open_error());
			ret = RC_ERR_NODEV;
		}
		goto err_free_list;
	}
	if (dlist)
		ops->free_device_list(dlist);
	dlist = NULL;
	vt->cm_devs = clist;

	if (vt->pattr.link_layer == IBV_LINK_LAYER_ETHERNET) {
		ret = gid_select(vt);
		if (ret) {
			if (ret == RC_ERR_NODEV && named) {
				rc_log_err("%s", rc_tp_verbs_open_error());
				ret = RC_ERR_INVAL;
			}
			goto err_close;
		}
	} else if (!vt->pattr.lid) {
		vb_set_open_error("%s port %u (InfiniBand) has no LID: is a "
				  "subnet manager running?",
				  vt->dev_name, vt->port);
		rc_log_debug("%s", rc_tp_verbs_open_error());
		ret = named ? RC_ERR_INVAL : RC_ERR_NODEV;
		if (named)
			rc_log_err("%s", rc_tp_verbs_open_error());
		goto err_close;
	}
	if (vt->prm.cm_auto) {
		/* past RCMPI_VERBS_CM_AUTO_RANKS: connections on first use,
		 * by rdma_cm over RoCE, whose port has the IPv4 address it
		 * needs (its GID is one), else by the UD handshake, which
		 * needs no IP (InfiniBand without IPoIB) */
		vt->prm.cm = true;
		if (!vt->prm.ud)
			vt->prm.ud = vt->pattr.link_layer !=
					     IBV_LINK_LAYER_ETHERNET ||
				     !vt->ipv4;
		rc_log_debug("verbs: %d ranks, more than "
			     "RCMPI_VERBS_CM_AUTO_RANKS=%ld: %s wiring",
			     vt->inst->size,
			     rc_param_int(RC_P_VERBS_CM_AUTO_RANKS),
			     vt->prm.ud ? "ud" : "rdmacm");
	}
	rc_log_debug(
		"verbs: %s port %u, %s, MTU %d, LID %u", vt->dev_name, vt->port,
		vt->pattr.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE"
								: "InfiniBand",
		128 << vt->pattr.active_mtu, vt->pattr.lid);
	return RC_OK;

err_close:
	vt->cm_devs = NULL;
	dev_ctx_release(vt);
err_free_list:
	if (dlist)
		ops->free_device_list(dlist);
	if (clist)
		ops->cm_free_devices(clist);
	return ret;
}

void vb_dev_close(struct vb_tp *vt)
{
	dev_ctx_release(vt);
	if (vt->cm_devs)
		vt->ops->cm_free_devices(vt->cm_devs);
	vt->cm_devs = NULL;
	vt->ctx = NULL;
}
