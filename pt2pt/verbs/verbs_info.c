/*
 * verbs_info.c - see verbs_info.h.
 *
 * For each device: open, query, and per port query the attributes and the
 * GID table (vb_gid_entries) and let vb_gid_pick say which GID the
 * transport would use there. The inline limit is probed as the transport
 * does: a PD, a CQ and an RC QP asking RCMPI_VERBS_INLINE bytes, halved
 * until the device accepts (vb_qp_create_fit), all released at once. Then
 * vb_dev_open runs with the current parameters, exactly as at MPI_Init,
 * and its answer (device, port, GID or LID, or why not) is recorded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "param.h"
#include "status.h"
#include "tp_verbs.h"
#include "verbs.h"
#include "verbs_info.h"

const char *rc_vinfo_atomic_str(enum ibv_atomic_cap cap)
{
	switch (cap) {
	case IBV_ATOMIC_NONE:
		return "IBV_ATOMIC_NONE";
	case IBV_ATOMIC_HCA:
		return "IBV_ATOMIC_HCA";
	case IBV_ATOMIC_GLOB:
		return "IBV_ATOMIC_GLOB";
	}
	return "?";
}

void rc_vinfo_speed_str(uint8_t width, uint8_t speed, char *buf, size_t len)
{
	static const struct {
		uint8_t code;
		const char *name;
		double gbps; /* per lane */
	} speeds[] = {
		{1, "SDR", 2.5},  {2, "DDR", 5},     {4, "QDR", 10},
		{8, "FDR10", 10}, {16, "FDR", 14},   {32, "EDR", 25},
		{64, "HDR", 50},  {128, "NDR", 100},
	};
	int lanes = width == 1	  ? 1
		    : width == 2  ? 4
		    : width == 4  ? 8
		    : width == 8  ? 12
		    : width == 16 ? 2
				  : 0;
	size_t i;

	for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].code == speed && lanes) {
			snprintf(buf, len, "%dX %s (%g Gb/s)", lanes,
				 speeds[i].name, lanes * speeds[i].gbps);
			return;
		}
	snprintf(buf, len, "unknown (width %u, speed %u)", width, speed);
}

const char *rc_vinfo_state_str(enum ibv_port_state s)
{
	return vb_port_state_str(s);
}

const char *rc_vinfo_gid_type_str(uint32_t type)
{
	return vb_gid_type_str(type);
}

void rc_vinfo_gid_str(const uint8_t *gid, char *out, size_t len)
{
	vb_gid_str(gid, out, len);
}

/* the largest inline send an RC QP of this device accepts */
static int vinfo_inline(const struct rc_verbs_ops *ops, struct ibv_context *ctx)
{
	struct ibv_qp_init_attr ia;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int ret = -1;

	pd = ops->alloc_pd(ctx);
	if (!pd)
		return -1;
	cq = ops->create_cq(ctx, 16);
	if (!cq)
		goto err_dealloc_pd;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = (uint32_t)rc_param_int(RC_P_VERBS_INLINE);
	qp = vb_qp_create_fit(ops, pd, &ia);
	if (qp) {
		ret = (int)ia.cap.max_inline_data;
		ops->destroy_qp(qp);
	}
	ops->destroy_cq(cq);
err_dealloc_pd:
	ops->dealloc_pd(pd);
	return ret;
}

static int vinfo_port(const struct rc_verbs_ops *ops, struct ibv_context *ctx,
		      struct rc_vinfo_dev *d, struct rc_vinfo_port *p,
		      int forced)
{
	const struct ibv_gid_entry *g;

	p->pick = -1;
	p->err = ops->query_port(ctx, p->num, &p->attr);
	if (p->err)
		return 0;
	if (vb_gid_entries(ops, ctx, &d->attr, p->num, &p->attr, &p->gids,
			   &p->ngids))
		return -1;
	if (p->attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
		g = vb_gid_pick(p->gids, p->ngids, forced, 0);
		if (g)
			p->pick = (int)g->gid_index;
	}
	return 0;
}

static int vinfo_dev(const struct rc_verbs_ops *ops, struct ibv_device *dev,
		     struct rc_vinfo_dev *d, int forced)
{
	struct ibv_context *ctx;
	int err, i, ret = 0;

	snprintf(d->name, sizeof(d->name), "%s", ops->get_device_name(dev));
	d->max_inline = -1;
	ctx = ops->open_device(dev);
	if (!ctx) {
		snprintf(d->err, sizeof(d->err), "ibv_open_device: %s",
			 strerror(errno));
		return 0;
	}
	err = ops->query_device(ctx, &d->attr);
	if (err) {
		snprintf(d->err, sizeof(d->err), "ibv_query_device: %s",
			 strerror(err));
		goto out;
	}
	d->ports = calloc(d->attr.phys_port_cnt + 1, sizeof(*d->ports));
	if (!d->ports) {
		ret = -1;
		goto out;
	}
	for (i = 0; i < d->attr.phys_port_cnt && !ret; i++) {
		d->ports[i].num = (uint8_t)(i + 1);
		d->nports++;
		ret = vinfo_port(ops, ctx, d, &d->ports[i], forced);
	}
	d->max_inline = vinfo_inline(ops, ctx);
out:
	ops->close_device(ctx);
	return ret;
}

/* what MPI_Init would open */
static void vinfo_choice(struct rc_vinfo *vi)
{
	struct vb_tp *vt = calloc(1, sizeof(*vt));

	if (!vt) {
		snprintf(vi->why, sizeof(vi->why), "out of memory");
		return;
	}
	vt->ops = rc_verbs_ops;
	vb_set_open_error("%s", "");
	/* (a job of one: auto wiring is modex) */
	if (vb_params_read(&vt->prm, 1) == RC_OK && vb_dev_open(vt) == RC_OK) {
		vi->usable = true;
		snprintf(vi->dev, sizeof(vi->dev), "%s", vt->dev_name);
		vi->port = vt->port;
		vi->roce = vt->pattr.link_layer == IBV_LINK_LAYER_ETHERNET;
		vi->gid_index = vi->roce ? vt->gid_index : -1;
		vi->lid = vt->pattr.lid;
		vb_dev_close(vt);
	} else {
		snprintf(vi->why, sizeof(vi->why), "%s",
			 rc_tp_verbs_open_error());
	}
	free(vt);
}

int rc_vinfo_collect(struct rc_vinfo *vi)
{
	const struct rc_verbs_ops *ops = rc_verbs_ops;
	struct ibv_device **list;
	struct vb_params prm;
	int n = 0, i, ret = 0, forced = -1;

	memset(vi, 0, sizeof(*vi));
	/* the GID index the user forces applies to every port's pick */
	if (vb_params_read(&prm, 1) == RC_OK)
		forced = prm.gid_index;
	errno = 0;
	list = ops->get_device_list(&n);
	if (!list || n <= 0) {
		snprintf(vi->list_err, sizeof(vi->list_err),
			 "ibv_get_device_list: %s",
			 list ? "no devices" : strerror(errno));
		if (list)
			ops->free_device_list(list);
	} else {
		vi->devs = calloc(n, sizeof(*vi->devs));
		if (!vi->devs) {
			ops->free_device_list(list);
			return -1;
		}
		for (i = 0; i < n && !ret; i++) {
			vi->ndevs++;
			ret = vinfo_dev(ops, list[i], &vi->devs[i], forced);
		}
		ops->free_device_list(list);
		if (ret)
			return -1;
	}
	vinfo_choice(vi);
	return 0;
}

void rc_vinfo_free(struct rc_vinfo *vi)
{
	int i, j;

	for (i = 0; i < vi->ndevs; i++) {
		for (j = 0; j < vi->devs[i].nports; j++)
			free(vi->devs[i].ports[j].gids);
		free(vi->devs[i].ports);
	}
	free(vi->devs);
	memset(vi, 0, sizeof(*vi));
}
