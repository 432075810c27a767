#!/bin/bash
# rxe-vm guest stage 2: runs chrooted in the read-only host root, started by
# the initramfs /init. test/vm/rxe-vm copies it into the node's control
# share, mounted at /run/rxe-vm, next to:
#   node.conf   NODE, NODES, WORKDIR (sourced)
#   env         the environment for the command (sourced; export lines)
#   ssh/        per-run keys (two nodes only)
#   cmd.sh      the command (node1 only)
# It sets up the node (hostname, /etc/hosts, work share, network, rxe0,
# sshd), checks the verbs device, then reports to the host through files in
# the share:
#   ready       the node is up and rxe0 is ACTIVE (holds the uptime)
#   failed      setup failed (holds the reason)
#   alive       node2, every 5 s: its uptime and eth0's packet counters
#   out, rc     node1: the command's output (streamed) and exit status
# With two nodes, node1 waits for the host's "peers-ready" (node2 is ready)
# and checks "ssh node2" before it runs the command; node2 just waits until
# the host powers it off.

# shellcheck disable=SC2016 # expanded when traced
[[ $- == *x* ]] && PS4='+ $EPOCHREALTIME '
CTL=/run/rxe-vm
# shellcheck source=/dev/null
. "$CTL/node.conf"

log() { echo "rxe-vm[node$NODE]: $*"; }
# The host polls for these files: write them whole (tmp + rename).
report() { # file text
	printf '%s\n' "$2" >"$CTL/$1.tmp" && mv "$CTL/$1.tmp" "$CTL/$1"
}
fail() {
	log "FAILED: $*"
	report failed "$*"
	exit 1
}
uptime_s() { read -r u _ </proc/uptime && echo "$u"; }

export PATH=$CTL/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8

# --- identity -------------------------------------------------------------
hostname "node$NODE" || fail "hostname"
{
	echo "127.0.0.1 localhost"
	echo "::1 localhost ip6-localhost ip6-loopback"
	echo "10.99.0.1 node1"
	[ "$NODES" = 2 ] && echo "10.99.0.2 node2"
} >/run/rxe-vm-hosts
# The host root is read-only: a tmpfs file is bind-mounted over /etc/hosts.
mount --bind /run/rxe-vm-hosts /etc/hosts || fail "bind-mount /etc/hosts"

# --- work share at the same path as on the host ----------------------------
mkdir -p "$WORKDIR" 2>/dev/null # only needed (and possible) under a tmpfs
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,rw work "$WORKDIR" ||
	fail "mount the work share on $WORKDIR"

# --- network and Soft-RoCE -------------------------------------------------
# (one "ip -batch": every exec costs ~0.1 s under emulation)
if [ "$NODES" = 1 ]; then
	# rdma_cm cannot resolve routes over lo: put rxe on a veth pair.
	ifc=veth0
	ip -batch - <<-EOC || fail "veth setup"
		link set lo up
		link add veth0 type veth peer name veth1
		addr add 10.99.0.1/24 dev veth0
		addr add 10.99.0.2/24 dev veth1
		link set veth0 up
		link set veth1 up
	EOC
else
	ifc=eth0
	[ -e /sys/class/net/eth0 ] || fail "no eth0 (virtio_net not loaded?)"
	ip -batch - <<-EOC || fail "eth0 setup"
		link set lo up
		addr add 10.99.0.$NODE/24 dev eth0
		link set eth0 up
	EOC
fi
rdma link add rxe0 type rxe netdev "$ifc" ||
	fail "rdma link add rxe0 type rxe netdev $ifc (is crc32_generic loaded?)"
state=
for _ in $(seq 100); do
	read -r state </sys/class/infiniband/rxe0/ports/1/state 2>/dev/null
	[ "$state" = "4: ACTIVE" ] && break
	sleep 0.1
done
[ "$state" = "4: ACTIVE" ] || fail "rxe0 port 1 is '$state', not ACTIVE"
ibv_devices 2>&1 | grep -qw rxe0 || fail "ibv_devices does not list rxe0"

ulimit -l unlimited || fail "ulimit -l unlimited"

# shellcheck source=/dev/null
. "$CTL/env"

# --- sshd with per-run keys (two nodes) -------------------------------------
start_sshd() {
	local k=/run/rxe-vm-ssh
	mkdir -m 0755 /run/sshd && mkdir -m 0700 $k /root/.ssh || return
	install -m 0600 "$CTL/ssh/host_key" $k/host_key &&
		install -m 0600 "$CTL/ssh/id_ed25519" /root/.ssh/id_ed25519 &&
		install -m 0644 "$CTL/ssh/id_ed25519.pub" /root/.ssh/id_ed25519.pub &&
		install -m 0600 "$CTL/ssh/authorized_keys" /root/.ssh/authorized_keys &&
		install -m 0644 "$CTL/ssh/known_hosts" /root/.ssh/known_hosts ||
		return
	# Environment for "ssh nodeN cmd": the same PATH and --env variables.
	env | grep -E '^(PATH|LANG|RXE_VM_[A-Z_]*)=' >/root/.ssh/environment
	[ -s "$CTL/env.ssh" ] && cat "$CTL/env.ssh" >>/root/.ssh/environment
	cat >/root/.ssh/config <<-EOC
		Host *
		    IdentityFile /root/.ssh/id_ed25519
		    UserKnownHostsFile /root/.ssh/known_hosts
		    StrictHostKeyChecking no
		    BatchMode yes
		    LogLevel ERROR
		    ConnectTimeout 10
		    ServerAliveInterval 5
		    ServerAliveCountMax 3
		    # sntrup761 (the default) costs 1 s more per connection under TCG
		    KexAlgorithms curve25519-sha256,curve25519-sha256@libssh.org
	EOC
	cat >$k/sshd_config <<-EOC
		HostKey $k/host_key
		PidFile /run/sshd.pid
		PermitRootLogin prohibit-password
		PubkeyAuthentication yes
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		UsePAM no
		UseDNS no
		PermitUserEnvironment yes
		AuthorizedKeysFile /root/.ssh/authorized_keys
		AcceptEnv LANG LC_*
		ClientAliveInterval 5
		ClientAliveCountMax 3
		MaxStartups 100
		MaxSessions 100
	EOC
	/usr/sbin/sshd -f $k/sshd_config -E "$CTL/sshd.log"
}
if [ "$NODES" = 2 ]; then
	start_sshd || fail "sshd did not start (see sshd.log)"
fi

log "ready after $(uptime_s) s"
report ready "$(uptime_s)"

if [ "$NODE" != 1 ]; then
	# node2: serve ssh until the host powers this VM off. Every 5 s it
	# tells the host that it runs, with its link's packet counters,
	# through the control share (not the network): when a command across
	# the nodes fails, rxe-vm prints the last one, which tells a hung
	# kernel (stale) from a link that stopped (fresh, counters still).
	st=/sys/class/net/eth0/statistics
	while :; do
		report alive "uptime $(uptime_s) s, eth0 rx $(cat $st/rx_packets) tx $(cat $st/tx_packets) packets, rx dropped $(cat $st/rx_dropped)"
		sleep 5
	done
fi

if [ "$NODES" = 2 ]; then
	while [ ! -e "$CTL/peers-ready" ]; do sleep 0.1; done
	ok=
	for _ in 1 2 3; do
		out=$(ssh node2 hostname 2>&1) && [ "$out" = node2 ] && ok=1 && break
		sleep 1
	done
	[ -n "$ok" ] || fail "ssh node2 does not work: $out"
fi

log "running the command after $(uptime_s) s"
cd "$WORKDIR" || fail "cd $WORKDIR"
bash "$CTL/cmd.sh" >"$CTL/out" 2>&1 </dev/null
rc=$?
report rc "$rc"
log "command exited with status $rc after $(uptime_s) s"
