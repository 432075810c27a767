/*
 * verbs_info.h - what the verbs transport sees on this host, for
 * rcmpi_info: every RDMA device and port with its attributes and GIDs, the
 * GID the transport would pick on each Ethernet port, and the device, port
 * and address it would really use with the current RCMPI_VERBS_* settings.
 * Everything goes through rc_verbs_ops (tests use the fakes) and the
 * transport's own selection code (verbs_dev.c), so what rcmpi_info says is
 * what MPI_Init would do.
 */
#ifndef RC_VERBS_INFO_H
#define RC_VERBS_INFO_H

#include <stdbool.h>
#include <infiniband/verbs.h>

struct rc_vinfo_port {
	uint8_t num;
	int err; /* ibv_query_port failed: its errno value */
	struct ibv_port_attr attr;
	struct ibv_gid_entry *gids; /* the valid entries, by index */
	int ngids;
	int pick; /* the GID index the transport would use on
		   * this port (Ethernet), -1: none */
};

struct rc_vinfo_dev {
	char name[64];
	char err[200]; /* could not be opened or queried: why */
	struct ibv_device_attr attr;
	int max_inline; /* inline bytes a QP accepts (probed), -1 */
	struct rc_vinfo_port *ports;
	int nports;
};

struct rc_vinfo {
	struct rc_vinfo_dev *devs;
	int ndevs;
	char list_err[200]; /* no device list: why */
	/* what the transport would open (vb_dev_open with the current
	 * parameters), or why it would not */
	bool usable;
	char dev[64];
	int port;
	bool roce;
	int gid_index;
	uint16_t lid;
	char why[512];
};

/* Fill vi (0; on allocation failure -1 and a partial vi to free). */
int rc_vinfo_collect(struct rc_vinfo *vi);
void rc_vinfo_free(struct rc_vinfo *vi);

/* Names for attributes: "IBV_ATOMIC_HCA", "4X EDR", "ACTIVE", "RoCE v2". */
const char *rc_vinfo_atomic_str(enum ibv_atomic_cap cap);
/* width and speed as "4X EDR (100 Gb/s)" into buf */
void rc_vinfo_speed_str(uint8_t width, uint8_t speed, char *buf, size_t len);
const char *rc_vinfo_state_str(enum ibv_port_state s);
const char *rc_vinfo_gid_type_str(uint32_t type);
void rc_vinfo_gid_str(const uint8_t *gid, char *out, size_t len);

#endif
