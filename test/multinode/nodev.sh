#!/bin/bash
# nodev.sh PROGRAM [ARGS...] - runs PROGRAM; on node2 with the RDMA devices
# out of its sight (empty mounts over their sysfs classes and device
# files, in a mount namespace of its own): a node without RDMA beside one
# with it, for guest-suite.sh's mpi_tcp_node2_without_rdma.
if [[ $(hostname) == node2 ]]; then
	exec unshare -m bash -c 'for d in /sys/class/infiniband_verbs \
		/sys/class/infiniband /dev/infiniband; do
		[[ -d $d ]] && mount -t tmpfs none "$d"
	done && exec "$@"' nodev "$@"
fi
exec "$@"
