#!/usr/bin/env bash
# smoke.sh: prove that the Soft-RoCE VMs work, in two boots.
#
#   test/vm/smoke.sh [1|2]...     (default: both; exit 0 only if all pass)
#
# One node (one boot): ibv_devinfo (Ethernet link layer, port active), the
# GID table and the RoCE v2 IPv4-mapped GID found by type, ibv_rc_pingpong,
# rping over rdma_cm, perftest ib_send_lat and ib_write_bw, rxe counters
# rising (and RNR counters staying zero).
# Two nodes (one boot): ssh node1 -> node2, rping and ib_write_bw across
# the link, counters on both nodes, then node2 powered off from node1 while
# an rping runs: node1's rping must fail and node2 be unreachable.
# Each check prints "ok - ..." or "FAIL - ..."; timings go to stderr.
# shellcheck disable=SC2317 # the guest functions run through declare -f
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# ------------------------------------------------ helpers (run in guest) --
ok() { echo "ok - $*"; }
bad() {
	echo "FAIL - $*"
	fails=$((fails + 1))
}
check() { # description, command...
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
# Seconds since $1 (an $EPOCHREALTIME), with one decimal.
since() {
	local us=$((${EPOCHREALTIME/./} - ${1/./}))
	printf '%d.%d' $((us / 1000000)) $((us % 1000000 / 100000))
}
# Wait until something listens on TCP port $1 (perftest, rc_pingpong).
wait_tcp() {
	local hex i
	hex=$(printf '%04X' "$1")
	for ((i = 0; i < 200; i++)); do
		grep -q ":$hex [0-9A-F:]* 0A" /proc/net/tcp /proc/net/tcp6 && return 0
		sleep 0.1
	done
	return 1
}
# A client/server pair: the server in the background, the client once the
# server is up (ready: "tcp:PORT", a local listening port, or "sleep:S").
# Perftest under emulation sometimes exits 1 without a message: the pair
# is retried once.
pair() { # name ready server-cmd client-cmd
	local name=$1 ready=$2 s=$3 c=$4 try spid rc
	for try in 1 2; do
		bash -c "$s" >"srv-$name.log" 2>&1 &
		spid=$!
		case $ready in
		tcp:*) wait_tcp "${ready#tcp:}" ;;
		sleep:*) sleep "${ready#sleep:}" ;;
		esac
		rc=0
		timeout 120 bash -c "$c" >"cli-$name.log" 2>&1 || rc=$?
		if ((rc == 0)) && timeout 30 tail --pid="$spid" -f /dev/null && wait "$spid"; then
			return 0
		fi
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		echo "# $name try $try failed (client status $rc); logs:"
		sed 's/^/#   srv: /' "srv-$name.log" | tail -5
		sed 's/^/#   cli: /' "cli-$name.log" | tail -5
	done
	return 1
}
rnr_zero() { # counters output
	[[ $(awk '$1 ~ /rnr/ { s += $2 } END { print s + 0 }' <<<"$1") == 0 ]]
}

one_node() {
	fails=0
	local idx gid before d v
	ibv_devinfo -d rxe0 >devinfo.txt
	check "ibv_devinfo: link layer Ethernet" grep -q 'link_layer:[[:space:]]*Ethernet' devinfo.txt
	check "ibv_devinfo: port active" grep -q 'state:[[:space:]]*PORT_ACTIVE' devinfo.txt
	echo "# GID table (sysfs):"
	rxe-gid -a | sed 's/^/#   /'
	ibv_devinfo -v -d rxe0 | grep -E 'GID\[' | sed 's/^[[:space:]]*/#   ibv_devinfo: /'
	read -r idx gid < <(rxe-gid)
	check "RoCE v2 IPv4-mapped GID found by type (index $idx)" \
		test "$gid" = 0000:0000:0000:0000:0000:ffff:0a63:0001
	before=$(rxe-counters)

	check "ibv_rc_pingpong" pair rcpp tcp:18515 \
		"ibv_rc_pingpong -d rxe0 -g $idx -n 100" \
		"ibv_rc_pingpong -d rxe0 -g $idx -n 100 localhost"
	grep -h 'bytes in' srv-rcpp.log cli-rcpp.log | sed 's/^/#   /'
	check "rping over rdma_cm" pair rping sleep:1 \
		"rping -s -a 10.99.0.1 -C 10" "rping -c -a 10.99.0.1 -C 10 -v"
	tail -1 cli-rping.log | sed 's/^/#   /'
	check "ib_send_lat" pair sendlat tcp:18601 \
		"ib_send_lat -d rxe0 -x $idx -F -p 18601 -n 500" \
		"ib_send_lat -d rxe0 -x $idx -F -p 18601 -n 500 10.99.0.1"
	grep -A1 't_min' cli-sendlat.log | sed 's/^/#   /'
	check "ib_write_bw 64 KiB" pair writebw tcp:18602 \
		"ib_write_bw -d rxe0 -x $idx -F -p 18602 -s 65536 -n 200" \
		"ib_write_bw -d rxe0 -x $idx -F -p 18602 -s 65536 -n 200 10.99.0.1"
	grep -A1 'BW average' cli-writebw.log | sed 's/^/#   /'

	d=$(rxe-counters -s <(echo "$before"))
	echo "# counter deltas: $(grep -E '^(sent_pkts|rcvd_pkts|.*rnr.*|duplicate_request|completer_retry_err) ' <<<"$d" | tr '\n' ' ')"
	v=$(awk '$1 == "sent_pkts" { print $2 }' <<<"$d")
	check "sent_pkts rose ($v)" test "$v" -gt 0
	check "RNR counters stayed zero" rnr_zero "$d"
	echo "# $fails failure(s)"
	((fails == 0))
}

two_nodes() {
	fails=0
	local before1 before2 d v t0 rc spid cpid n
	check "ssh node2 hostname" test "$(ssh node2 hostname)" = node2
	check "ssh node2: memlock unlimited" test "$(ssh node2 ulimit -l)" = unlimited
	before1=$(rxe-counters)
	before2=$(ssh node2 rxe-counters)

	check "rping node1 -> node2" pair rping2 sleep:3 \
		"ssh node2 rping -s -a 10.99.0.2 -C 10" \
		"rping -c -a 10.99.0.2 -C 10 -v"
	check "ib_write_bw node1 -> node2" pair writebw2 sleep:3 \
		"ssh node2 'ib_write_bw -d rxe0 -x \$(rxe-gid | cut -d\" \" -f1) -F -p 18603 -s 65536 -n 200'" \
		"ib_write_bw -d rxe0 -x $(rxe-gid | cut -d' ' -f1) -F -p 18603 -s 65536 -n 200 10.99.0.2"
	grep -A1 'BW average' cli-writebw2.log | sed 's/^/#   /'

	d=$(rxe-counters -s <(echo "$before1"))
	v=$(awk '$1 == "sent_pkts" { print $2 }' <<<"$d")
	check "node1 sent_pkts rose ($v)" test "$v" -gt 0
	check "node1 RNR counters stayed zero" rnr_zero "$d"
	d=$(ssh node2 rxe-counters -s /dev/stdin <<<"$before2")
	v=$(awk '$1 == "sent_pkts" { print $2 }' <<<"$d")
	check "node2 sent_pkts rose ($v)" test "$v" -gt 0
	check "node2 RNR counters stayed zero" rnr_zero "$d"

	# RDMA writes streaming across the link, then node2 loses power: the
	# writer's QP must exhaust its retries and fail. retry_count 6, not 7:
	# rxe treats a transport retry count of 7 as "retry forever". (An rping
	# client would not notice either: between rounds it only waits on
	# receives, which never time out.)
	ssh node2 ib_write_bw -d rxe0 -R --retry_count 6 -F -p 18604 -n 1000000 -s 4096 \
		>/dev/null 2>&1 &
	spid=$!
	sleep 3
	ib_write_bw -d rxe0 -R --retry_count 6 -F -p 18604 -n 1000000 -s 4096 10.99.0.2 \
		>cli-off.log 2>&1 &
	cpid=$!
	sleep 3
	check "ib_write_bw running before the poweroff" kill -0 "$cpid"
	before1=$(rxe-counters)
	t0=$EPOCHREALTIME
	check "rxe-vm-poweroff-node2" rxe-vm-poweroff-node2
	n=$SECONDS
	while kill -0 "$cpid" 2>/dev/null && ((SECONDS - n < 60)); do sleep 0.2; done
	if kill -0 "$cpid" 2>/dev/null; then
		kill -KILL "$cpid"
		rc=999
	else
		rc=0
		wait "$cpid" || rc=$?
	fi
	echo "# ib_write_bw ended (status $rc) $(since "$t0") s after the poweroff"
	d=$(rxe-counters -s <(echo "$before1") completer_retry_err retry_exceeded_err)
	echo "# counter deltas: $(tr '\n' ' ' <<<"$d")"
	check "node1 noticed: its ib_write_bw failed within 60 s" \
		test "$rc" -ne 0 -a "$rc" -ne 127 -a "$rc" -ne 999
	check "retry_exceeded_err rose" test "$(awk '$1 == "retry_exceeded_err" { print $2 }' <<<"$d")" -gt 0
	check "node2 no longer answers ping" bash -c '! busybox ping -c 1 -W 2 10.99.0.2 >/dev/null 2>&1'
	check "ssh node2 fails" bash -c '! timeout 20 ssh -o ConnectTimeout=5 node2 true 2>/dev/null'
	kill "$spid" 2>/dev/null
	echo "# $fails failure(s)"
	((fails == 0))
}

# ------------------------------------------------------------- host side --
guest_lib=$(declare -f ok bad check since wait_tcp pair rnr_zero one_node two_nodes)
status=0
sets=("$@")
((${#sets[@]})) || sets=(1 2)
for n in "${sets[@]}"; do
	case $n in
	1) fn=one_node ;;
	2) fn=two_nodes ;;
	*) echo "usage: $0 [1|2]..." >&2; exit 2 ;;
	esac
	echo "# --- smoke: $n node(s) ---"
	t0=$EPOCHREALTIME
	rc=0
	"$here/rxe-vm" --nodes "$n" --timeout 240 -- "$guest_lib"$'\n'"$fn" || rc=$?
	echo "# smoke with $n node(s): exit status $rc, $(since "$t0") s" >&2
	((rc == 0)) || status=1
done
exit $status
