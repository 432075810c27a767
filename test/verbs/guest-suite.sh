#!/bin/bash
# guest-suite.sh - the verbs suite's cases, run inside the Soft-RoCE VM by
# run-suite.sh (one boot). Every MPI job runs with RCMPI_TRANSPORTS=verbs.
#
#   guest-suite.sh BUILD_DIR [CASE...]
#
# Prints one line per case, "ok N NAME (S s)" or "not ok N NAME: why", then
# "N verbs tests ran, M passed". For every job that moves data, rxe0's
# sent_pkts must rise and its RNR counters (rcvd_rnr_err, send_rnr_err)
# must not: credits keep a sender within the receive buffers really posted,
# and the jobs run with RCMPI_VERBS_RNR_RETRY=0 where one RNR NAK fails.
# The launcher is $RCMPI_TEST_VT_MPIRUN (default: the build's mpirun; Debian's
# Open MPI works too: "mpirun --allow-run-as-root --oversubscribe").
#
# VT_NATIVE=1 (run-suite.sh --native): on a host with a real RDMA device
# (InfiniBand or RoCE), the device is $RCMPI_VERBS_DEVICE or the first
# one; the counters are the device's own (rxe's sent_pkts, or the standard
# port_xmit_packets; rxe's or mlx5's RNR counters where they exist); the
# cases that would take the VM's port down or delete its device, and those
# tied to its veth, are left out and said so.
set -uo pipefail
B=${1:?usage: guest-suite.sh BUILD_DIR [CASE...]}
shift
B=$(cd "$B" && pwd)
T=$B/test/verbs
MPIRUN=${RCMPI_TEST_VT_MPIRUN:-$B/launcher/mpirun --oversubscribe}
NATIVE=${VT_NATIVE:-}
if [[ $NATIVE ]]; then
	DEV=${RCMPI_VERBS_DEVICE:-$(ls /sys/class/infiniband 2>/dev/null | head -n 1)}
	DEV=${DEV%%:*}
	[[ -n $DEV ]] || { echo "guest-suite.sh: no RDMA device on this host" >&2; exit 1; }
else
	DEV=${RXE_VM_DEV:-rxe0}
fi
HOST=$(hostname)
TOOLS=$(cd "$(dirname "$0")/../vm" && pwd)	# rxe-gid
LINK=$(cat "/sys/class/infiniband/$DEV/ports/1/link_layer" 2>/dev/null)
CASE_TIMEOUT=${CASE_TIMEOUT:-150}
# shellcheck source=SCRIPTDIR/../limited.sh
. "$TOOLS/../limited.sh"
STACKS_RE="^$B/test/(jobs|verbs)/"
out=$(mktemp -d /tmp/vt.XXXXXX)
n=0 passed=0 left_out=()
export RCMPI_TRANSPORTS=verbs RCMPI_VERBS_RNR_RETRY=0

# "sent N" and "rnr N" of the device's port 1: what every job checks
counters() {
	local p=/sys/class/infiniband/$DEV/ports/1 s=0 r=0 f v
	if [[ -r $p/hw_counters/sent_pkts ]]; then
		read -r s <"$p/hw_counters/sent_pkts"
	elif [[ -r $p/counters/port_xmit_packets ]]; then
		read -r s <"$p/counters/port_xmit_packets"
	fi
	for f in rcvd_rnr_err send_rnr_err rnr_nak_retry_err; do
		[[ -r $p/hw_counters/$f ]] || continue
		read -r v <"$p/hw_counters/$f"
		r=$((r + v))
	done
	echo "sent $s"
	echo "rnr $r"
}

# a case that only makes sense in the VM
vm_only() {
	if [[ $NATIVE ]]; then
		left_out+=("$1")
		return 1
	fi
}

# job NAME RANKS EXPECT [VAR=VAL...] -- PROGRAM [ARGS...]
#   EXPECT: ok        exit 0 and "vt: ...: ok" printed; traffic flowed
#           fail:RE   non-zero exit, output matching the regex RE
#           end:RE    the job ends (no hang) non-zero, output matches RE
#           ok+:RE    as ok, and the output matches RE too
job() {
	local name=$1 np=$2 expect=$3 envs=() t0 rc sent rnr why=
	shift 3
	while [[ $1 != -- ]]; do envs+=(-x "$1"); shift; done
	shift
	if [[ ${#CASES[@]} -gt 0 && " ${CASES[*]} " != *" $name "* ]]; then
		return
	fi
	n=$((n + 1))
	counters >"$out/c0"
	t0=$SECONDS
	# (past the time-out the ranks' stacks are taken: test/limited.sh)
	# shellcheck disable=SC2086 # MPIRUN is a command line
	limited "$CASE_TIMEOUT" "$out/$name.log" "$out/stacks" \
		$MPIRUN -n "$np" "${envs[@]}" "$@"
	rc=$RC
	counters >"$out/c1"
	sent=$(awk 'FNR == NR { a[$1] = $2; next } $1 == "sent" { print $2 - a[$1] }' \
		"$out/c0" "$out/c1")
	rnr=$(awk 'FNR == NR { a[$1] = $2; next } $1 == "rnr" { print $2 - a[$1] }' \
		"$out/c0" "$out/c1")
	case $expect in
	ok | ok+:*)
		[[ $rc -eq 0 ]] || why="exit status $rc"
		[[ -z $why ]] && ! grep -qE "$OK_LINE" "$out/$name.log" &&
			why="no 'ok' line"
		[[ -z $why && ${sent:-0} -le 0 ]] && why="$DEV's sent packets did not rise"
		[[ -z $why && $expect == ok+:* ]] &&
			! grep -qE -- "${expect#*:}" "$out/$name.log" &&
			why="output lacks /${expect#*:}/"
		;;
	fail:* | end:*)
		# (mpirun's own status for a rank killed by SIGKILL is 137 too)
		[[ $((SECONDS - t0)) -ge $CASE_TIMEOUT ]] &&
			why="hung (killed after ${CASE_TIMEOUT}s)"
		[[ -z $why && $rc -eq 0 ]] && why="exit status 0, expected a failure"
		[[ -z $why ]] && ! grep -qE -- "${expect#*:}" "$out/$name.log" &&
			why="output lacks /${expect#*:}/"
		;;
	esac
	[[ -z $why && $rnr -ne 0 ]] && why="RNR counters rose by $rnr"
	[[ $expect == ok* ]] || sent=${sent:-0}
	if [[ -z $why ]]; then
		passed=$((passed + 1))
		echo "ok $n $name ($((SECONDS - t0)) s, $sent packets)"
	else
		echo "not ok $n $name: $why ($((SECONDS - t0)) s)"
		sed 's/^/    | /' "$out/$name.log" | tail -n 25
		[[ -s $out/stacks ]] && sed 's/^/    = /' "$out/stacks"
	fi
}

# check NAME COMMAND... : a case that is not a job; COMMAND prints why and
# fails, or succeeds
check() {
	local name=$1 t0 why
	shift
	if [[ ${#CASES[@]} -gt 0 && " ${CASES[*]} " != *" $name "* ]]; then
		return
	fi
	n=$((n + 1))
	t0=$SECONDS
	if why=$("$@" 2>&1); then
		passed=$((passed + 1))
		echo "ok $n $name ($((SECONDS - t0)) s)"
	else
		echo "not ok $n $name: $why ($((SECONDS - t0)) s)"
	fi
}

# rcmpi_info lists the device and port, and on RoCE marks the RoCE v2
# IPv4-mapped GID (found by rxe-gid from sysfs, by type) as the one rcmpi
# picks; its transport line says verbs is usable on that port
info_lists_device() {
	local o=$out/info.txt want
	"$B/tools/rcmpi_info" --parsable >"$o" 2>&1 || { echo "exit status $?"; return 1; }
	grep -q "^device:$DEV:port:1:state:ACTIVE$" "$o" ||
		{ echo "no ACTIVE port 1 of $DEV listed"; return 1; }
	grep -q "^transport:verbs:usable:yes$" "$o" ||
		{ echo "verbs not usable: $(grep '^transport:verbs' "$o")"; return 1; }
	if [[ $LINK == Ethernet ]]; then
		want=$("$TOOLS/rxe-gid" -d "$DEV" | cut -d' ' -f1)
		grep -q "^device:$DEV:port:1:gid:$want:type:RoCE v2$" "$o" ||
			{ echo "GID $want not listed as RoCE v2"; return 1; }
		grep -q "^device:$DEV:port:1:gid_pick:$want$" "$o" ||
			{ echo "picks $(grep gid_pick "$o"), rxe-gid says $want"; return 1; }
		grep -q "^transport:verbs:state:$DEV port 1, RoCE v2 GID index $want$" "$o" ||
			{ echo "$(grep '^transport:verbs:state' "$o")"; return 1; }
	else
		grep -q "^device:$DEV:port:1:link_layer:InfiniBand$" "$o" ||
			{ echo "not listed as InfiniBand"; return 1; }
	fi
	"$B/tools/rcmpi_info" --devices | grep -q "rcmpi uses: $DEV port 1" ||
		{ echo "the human-readable form names no device in use"; return 1; }
}

# after the device is deleted: the RDMA core is there, no device
info_no_device() {
	local o=$out/info.txt
	"$B/tools/rcmpi_info" --parsable --transports >"$o" 2>&1 || { echo "exit status $?"; return 1; }
	grep -q "^transport:verbs:usable:no$" "$o" &&
		grep -q "^transport:verbs:why:no RDMA device: the kernel's RDMA core is loaded but no device is registered" "$o" ||
		{ echo "$(grep '^transport:verbs' "$o")"; return 1; }
}

CASES=("$@")
check rcmpi_info_device info_lists_device
SMALL="RCMPI_VERBS_RDMA_CHUNK=65536"
J=$B/test/jobs
# what a passing job prints: the suite's own programs, and the project's
# integration jobs (test/jobs)
OK_LINE='^vt: .*: ok|^(p2p|coll|comm|rma)_[a-z]+: [0-9]+ ranks OK( \([0-9]+ communicators\))?$|^OK [a-z0-9]+, [0-9]+ ranks x [0-9]+ threads$'

# point to point: sizes 0 B - 4 MiB, wildcards, truncation, ssend, probe,
# ordering; both wirings, every rendezvous mode, small pipeline chunks
job pt2pt_modex_get_2 2 ok -- "$T/vt_pt2pt"
job pt2pt_modex_get_4 4 ok "$SMALL" RCMPI_VERBS_MAX_RDMA=3 -- "$T/vt_pt2pt"
job pt2pt_modex_put_3 3 ok RCMPI_RNDV_MODE=put "$SMALL" -- "$T/vt_pt2pt"
job pt2pt_modex_frag_2 2 ok RCMPI_RNDV_MODE=frag -- "$T/vt_pt2pt"
job pt2pt_rdmacm_get_2 2 ok RCMPI_VERBS_CM=rdmacm -- "$T/vt_pt2pt"
job pt2pt_rdmacm_put_4 4 ok RCMPI_VERBS_CM=rdmacm RCMPI_RNDV_MODE=put \
	"$SMALL" -- "$T/vt_pt2pt"
job pt2pt_rdmacm_get_3 3 ok RCMPI_VERBS_CM=rdmacm "$SMALL" -- "$T/vt_pt2pt"
# the UD handshake wiring (no IP needed: InfiniBand without IPoIB)
job pt2pt_ud_put_3 3 ok RCMPI_VERBS_CM=ud RCMPI_RNDV_MODE=put "$SMALL" \
	-- "$T/vt_pt2pt"
# rank 1 computes 4 s outside MPI while rank 0 connects to it: its agent
# thread answers for it (timeout 1 s); without the agent the job fails
job ud_agent_compute_2 2 ok RCMPI_VERBS_CM=ud RCMPI_VERBS_UD_TIMEOUT=1000 \
	-- "$T/vt_init" compute 4
job ud_no_agent_compute_2 2 \
	"fail:rank 1 on .*no answer to our connection request over UD.*RCMPI_VERBS_UD_TIMEOUT" \
	RCMPI_VERBS_CM=ud RCMPI_VERBS_UD_TIMEOUT=1000 RCMPI_VERBS_UD_AGENT=0 \
	-- "$T/vt_init" compute 4
job pt2pt_small_eager_2 2 ok RCMPI_VERBS_EAGER_LIMIT=1024 \
	RCMPI_VERBS_INLINE=64 -- "$T/vt_pt2pt"
job pt2pt_no_rcache_2 2 ok RCMPI_VERBS_RCACHE=0 -- "$T/vt_pt2pt"
vm_only pt2pt_net_if_2 &&
	job pt2pt_net_if_2 2 ok RCMPI_NET_IF=veth0 -- "$T/vt_pt2pt"
if [[ $LINK == Ethernet ]]; then
	gid=$("$TOOLS/rxe-gid" -d "$DEV" | cut -d' ' -f1)
	job pt2pt_gid_index_2 2 ok "RCMPI_VERBS_GID_INDEX=$gid" -- "$T/vt_pt2pt"
else
	left_out+=(pt2pt_gid_index_2)	# InfiniBand: LIDs, no GID index
fi

# the project's pt2pt and collective integration jobs over verbs, at 2 to 4
# ranks: every send/receive flavour up to 4 MiB, matching, probes, floods,
# every collective (blocking and nonblocking) on world and a split
job jobs_p2p_sizes_4 4 ok "$SMALL" -- "$J/p2p_sizes" $(((4 << 20) + 13))
job jobs_p2p_match_3 3 ok -- "$J/p2p_match"
job jobs_p2p_misc_2 2 ok RCMPI_RNDV_MODE=put -- "$J/p2p_misc"
# buffered mode, MPI_Isendrecv, and cancel of an RTS (the CANCEL round
# trip over verbs, get and put rendezvous)
job jobs_p2p_bsend_2 2 ok -- "$J/p2p_bsend"
job jobs_p2p_bsend_3 3 ok RCMPI_RNDV_MODE=put -- "$J/p2p_bsend" 50000
job jobs_coll_all_2 2 ok -- "$J/coll_all"
job jobs_coll_all_4 4 ok "$SMALL" -- "$J/coll_all"
job jobs_coll_comm_3 3 ok -- "$J/coll_comm"
job jobs_coll_all_rdmacm_put_3 3 ok RCMPI_VERBS_CM=rdmacm \
	RCMPI_RNDV_MODE=put -- "$J/coll_all"
# intercommunicators (every collective and p2p across them, over every
# shape of the support library), neighbourhood collectives on every
# topology, and context ids under concurrent creation, over verbs
job jobs_coll_inter_3 3 ok -- "$J/coll_inter" inter
job jobs_coll_inter_4 4 ok RCMPI_RNDV_MODE=put -- "$J/coll_inter" inter
job jobs_coll_nbr_4 4 ok "$SMALL" -- "$J/coll_nbr"
job jobs_comm_ctx_3 3 ok -- "$J/comm_ctx"

# one-sided communication over verbs (test/jobs/rma_*): every window
# flavour (allocate_shared: load/store between the VM's ranks, one kernel,
# while messages go over verbs), operation and synchronisation mode; the
# contended counters (fetch_and_op, an exclusive lock, accumulate,
# compare_and_swap) exact, and (bulk) 160 KB accumulates beside
# single-element ones; error classes. 2 ranks: a put and a get of
# 20 MB, past rxe's 8 MiB a message (max_msg_sz): RDMA WRITEs and READs
# of at most that many bytes each
job jobs_rma_ops_2 2 ok -- "$J/rma_ops" 20000000
job jobs_rma_ops_3 3 ok "$SMALL" RCMPI_VERBS_EAGER_LIMIT=1024 -- \
	"$J/rma_ops" 200000
job jobs_rma_counter_3 3 ok -- "$J/rma_counter" 150 allocate shared dynamic \
	bulk
job jobs_rma_counter_rdmacm_2 2 ok RCMPI_VERBS_CM=rdmacm -- \
	"$J/rma_counter" 300 create
job jobs_rma_errors_2 2 ok -- "$J/rma_errors"
# the direct path, the default over verbs (the cases above): every
# contiguous put and get of create and allocate windows as one RDMA WRITE
# or READ into the target's registered memory; here the same jobs with it
# switched off (active messages) and from 4 KiB only (both paths mixed)
job jobs_rma_ops_am_3 3 ok RCMPI_RMA_DIRECT=0 -- "$J/rma_ops" 200000
job jobs_rma_counter_direct_4k_2 2 ok RCMPI_RMA_DIRECT_MIN=4096 -- \
	"$J/rma_counter" 200 allocate create
# the device as atomic agent (rma/atomic.c): every accumulate,
# get_accumulate, fetch_and_op and compare_and_swap on 64-bit integers of
# create and allocate windows as device atomics (fetch-add, compare-and-
# swap, compare-and-swap loops for the other ops), from every rank, rank
# 0 on its own window through its loopback QP; the same counters with the
# target's CPU as agent (auto would pick it here: one node)
job jobs_rma_counter_atomic_3 3 ok RCMPI_RMA_ATOMIC=device -- \
	"$J/rma_counter" 150 allocate create agent=device
# and over rdma_cm wiring: each QP made on the first atomic (or message)
job jobs_rma_counter_atomic_rdmacm_3 3 ok RCMPI_VERBS_CM=rdmacm \
	RCMPI_RMA_ATOMIC=device -- "$J/rma_counter" 150 allocate create \
	agent=device
job jobs_rma_counter_atomic_ud_3 3 ok RCMPI_VERBS_CM=ud \
	RCMPI_RMA_ATOMIC=device -- "$J/rma_counter" 150 allocate create \
	agent=device
job jobs_rma_counter_atomic_am_2 2 ok RCMPI_RMA_ATOMIC=am -- \
	"$J/rma_counter" 200 create agent=am
# the same with messages over shared memory: the device's atomics on QPs
# made for them beside it at MPI_Init, by modex wiring only (the packets
# counted are the atomics')
job jobs_rma_counter_atomic_shm_2 2 ok RCMPI_TRANSPORTS=shm,verbs \
	RCMPI_VERBS_CM=modex RCMPI_RMA_SHM=0 RCMPI_RMA_ATOMIC=device -- \
	"$J/rma_counter" 150 allocate create agent=device
# progress without the target (test/jobs/rma_progress): rank 0 computes,
# no MPI call, while the others put, get and fetch-and-add to its window,
# which it must see land before its next MPI call; meanwhile the device
# has no receive completion (rdma_recvs: no message) and sent packets.
# 64 B and 256 KiB; then with the target's CPU as the agent, which must
# fail: the fetch-and-adds wait for the target (the check can fail)
HWC=/sys/class/infiniband/$DEV/ports/1/hw_counters
[[ -r $HWC/rdma_recvs && -r $HWC/sent_pkts ]] && HWC="counters=$HWC" || HWC=
job jobs_rma_progress_3 3 ok RCMPI_RMA_ATOMIC=device -- \
	"$J/rma_progress" 50 agent=device $HWC
job jobs_rma_progress_large_2 2 ok RCMPI_RMA_ATOMIC=device -- \
	"$J/rma_progress" 20 bytes=262144 agent=device allocate $HWC
job jobs_rma_progress_am_2 2 'fail:of computing, counter 0 of' \
	RCMPI_RMA_ATOMIC=am -- "$J/rma_progress" 5 deadline=4 allocate
# non-contiguous puts and gets as lists of RDMA operations (four runs of
# 4 KiB each: within the limits for gets too); packed into active
# messages instead (RCMPI_RMA_DIRECT_LIST=0) they wait for the target,
# which must fail
job jobs_rma_progress_strided_2 2 ok RCMPI_RMA_ATOMIC=device -- \
	"$J/rma_progress" 20 strided bytes=16384 agent=device create $HWC
job jobs_rma_progress_strided_am_2 2 'fail:of computing, counter' \
	RCMPI_RMA_ATOMIC=device RCMPI_RMA_DIRECT_LIST=0 -- \
	"$J/rma_progress" 5 strided bytes=16384 deadline=4 create
# dynamic windows: after one access (the region's key, from the target's
# CPU) puts and gets go by RDMA while it computes; without the direct path
# (RCMPI_RMA_DIRECT=0) they wait for it, which must fail
job jobs_rma_progress_dynamic_3 3 ok -- "$J/rma_progress" 30 dynamic $HWC
job jobs_rma_progress_dynamic_am_2 2 'fail:of computing, counter' \
	RCMPI_RMA_DIRECT=0 -- "$J/rma_progress" 5 deadline=4 dynamic
# each round in an exclusive lock epoch of its own, with a lock-guarded
# counter: the lock passes between the origins on the device's lock words
# while rank 0 computes; with the CPU agent the locks are messages to
# rank 0, which must fail (nobody gets the lock while it computes)
job jobs_rma_progress_locks_3 3 ok RCMPI_RMA_ATOMIC=device -- \
	"$J/rma_progress" 30 locks agent=device $HWC
job jobs_rma_progress_locks_am_2 2 'fail:of computing, counter 0 of' \
	RCMPI_RMA_ATOMIC=am -- "$J/rma_progress" 5 locks deadline=4 allocate

# MPI_THREAD_MULTIPLE over verbs (test/jobs/thr_stress, issue 14): several
# threads per rank post, poll and complete on the same QPs, CQ and SRQ
# under the global critical section. all: own and shared tags and
# communicators, eager and get rendezvous, ANY_SOURCE and Mprobe/Improbe
# races, collectives per thread, communicator creation racing traffic;
# then put rendezvous in small pipeline chunks at 3 threads; then the
# Mprobe race on tiny credit windows and send queues (threads stall on
# credits and the send queue, and must not lose or double-claim a message)
job thr_all_2x2 2 ok -- "$J/thr_stress" all 2
job thr_p2p_put_3x3 3 ok RCMPI_RNDV_MODE=put "$SMALL" -- \
	"$J/thr_stress" p2p 3
job thr_mprobe_tiny_credits_3x3 3 ok RCMPI_VERBS_CREDITS=2 \
	RCMPI_VERBS_RQ_SIZE=16 RCMPI_VERBS_BOUNCE=4 RCMPI_VERBS_SQ_SIZE=16 \
	RCMPI_VERBS_SIGNAL=4 -- "$J/thr_stress" mprobe 3
# threads made before MPI_Init, fork() after MPI_Init (the parent goes on
# from its registered buffers); not yet the signals phase, which hangs
# over verbs (README "Thread support")
job thr_proc_threads_2 2 ok -- "$J/thr_proc" threads
job thr_proc_fork_2 2 ok -- "$J/thr_proc" fork
job thr_proc_signals_2 2 ok -- "$J/thr_proc" signals

# floods both ways, rnr_retry 0: no RNR, ever
job flood_modex_2 2 ok -- "$T/vt_flood"
job flood_modex_4 4 ok -- "$T/vt_flood" 1500
job flood_tiny_credits_2 2 ok RCMPI_VERBS_CREDITS=2 RCMPI_VERBS_RQ_SIZE=16 \
	RCMPI_VERBS_BOUNCE=4 RCMPI_VERBS_SQ_SIZE=16 RCMPI_VERBS_SIGNAL=4 \
	-- "$T/vt_flood" 2000
job flood_rdmacm_3 3 ok RCMPI_VERBS_CM=rdmacm -- "$T/vt_flood" 2000
job flood_ud_3 3 ok RCMPI_VERBS_CM=ud -- "$T/vt_flood" 2000
# credits taken back from silent peers (pairs other than with rank 0 say
# nothing in phase 1): 16 receive buffers for 3 peers, a look every ms;
# phase 2 then floods every pair on what each kept
job flood_reclaim_4 4 'ok+:credits taken back [1-9][0-9]* \(asked' \
	RCMPI_VERBOSE=1 RCMPI_VERBS_RQ_SIZE=16 RCMPI_VERBS_IDLE_MS=1 \
	RCMPI_VERBS_FP_RINGS=0 -- "$T/vt_flood" 1500
# one eager ring at rank 0, and senders that take turns: the ring goes
# from a peer gone silent to the busy one, again and again
job flood_ring_turns_3 3 'ok+:eager rings taken back [1-9]' \
	RCMPI_VERBOSE=1 RCMPI_VERBS_FP_RINGS=1 RCMPI_VERBS_IDLE_MS=1 \
	-- "$T/vt_flood" 1000 3
job flood_reclaim_rdmacm_3 3 'ok+:credits taken back [1-9][0-9]* \(asked' \
	RCMPI_VERBOSE=1 RCMPI_VERBS_CM=rdmacm RCMPI_VERBS_RQ_SIZE=16 \
	RCMPI_VERBS_IDLE_MS=1 RCMPI_VERBS_FP_RINGS=0 -- "$T/vt_flood" 1500
# connections follow the traffic: 48 ranks, each talking to 6 partners
# (a ring and two strides), connect on first use; every process holds
# exactly one RC QP per partner (rdma resource show qp); the memory report
# at close (RCMPI_VERBOSE) counts one QP per connected peer: 6, or 7 with
# rank 0, whom the test's final sum reaches (MPI_Finalize connects
# nobody more: it syncs through the launcher over rdma_cm), and the
# loopback QP for device atomics (vt_scale tells it by lqpn == rqpn and
# leaves it out of its count). Against it,
# modex wiring at 16 ranks: N - 1 QPs in every process whatever it talks
# to
CASE_TIMEOUT_SAVED=$CASE_TIMEOUT
CASE_TIMEOUT=180
job scale_rdmacm_sparse_48 48 \
	'ok+:verbs: memory: (6 of 47 peers connected, 7|7 of 47 peers connected, 8) RC QPs; receive' \
	RCMPI_VERBS_CM=rdmacm RCMPI_YIELD=1 RCMPI_VERBOSE=1 -- "$T/vt_scale"
CASE_TIMEOUT=$CASE_TIMEOUT_SAVED
job scale_modex_all_16 16 'ok+:memory: 15 of 15 peers connected, 1[56] RC QPs' \
	RCMPI_VERBS_CM=modex RCMPI_YIELD=1 RCMPI_VERBOSE=1 -- "$T/vt_scale" all
# the default wiring (auto) past RCMPI_VERBS_CM_AUTO_RANKS (64; 8 here)
# on RoCE: rdma_cm, so QPs to the partners only (vt_scale counts them)
job scale_auto_sparse_16 16 \
	'ok+:more than RCMPI_VERBS_CM_AUTO_RANKS=8: rdmacm wiring' \
	RCMPI_VERBS_CM=auto RCMPI_VERBS_CM_AUTO_RANKS=8 RCMPI_YIELD=1 \
	RCMPI_VERBOSE=1 -- "$T/vt_scale"
# the UD handshake, the same sparse pattern: QPs to the partners only
job scale_ud_sparse_16 16 'ok+:\(ud wiring\)' \
	RCMPI_VERBS_CM=ud RCMPI_YIELD=1 RCMPI_VERBOSE=1 -- "$T/vt_scale"

# the eager rings (RDMA-write fast path): tiny ones, so that messages of
# one pair alternate between ring and SRQ (too big for a slot, or the ring
# full) and must still arrive in order; then the rings off
FP_TINY="RCMPI_VERBS_FP_THRESHOLD=2 RCMPI_VERBS_FP_SLOTS=2 RCMPI_VERBS_FP_SIZE=128"
job flood_fp_tiny_3 3 'ok+:eager ring [1-9][0-9]*,' RCMPI_VERBOSE=1 $FP_TINY \
	-- "$T/vt_flood" 2000
job flood_fp_tiny_rdmacm_2 2 'ok+:eager ring [1-9][0-9]*,' RCMPI_VERBOSE=1 \
	RCMPI_VERBS_CM=rdmacm $FP_TINY -- "$T/vt_flood" 2000
job jobs_p2p_match_fp_3 3 'ok+:eager ring [1-9][0-9]*,' RCMPI_VERBOSE=1 \
	RCMPI_VERBS_FP_THRESHOLD=1 RCMPI_VERBS_FP_SIZE=256 -- "$J/p2p_match"
job flood_fp_off_2 2 'ok+:eager ring 0,' RCMPI_VERBOSE=1 \
	RCMPI_VERBS_FP_RINGS=0 -- "$T/vt_flood" 2000

# registration cache: memory freed and reused at the same address
job rcache_get 2 ok -- "$T/vt_rcache"
job rcache_put 2 ok RCMPI_RNDV_MODE=put -- "$T/vt_rcache"
job rcache_rdmacm_put 2 ok RCMPI_VERBS_CM=rdmacm RCMPI_RNDV_MODE=put \
	-- "$T/vt_rcache"
# glibc then mmaps every large block: the free() hook must see them go
job rcache_no_mallopt 2 ok RCMPI_VERBS_MALLOPT=0 -- "$T/vt_rcache"

# bad settings: a clear error at MPI_Init
job bad_gid_index 2 "fail:RCMPI_VERBS_GID_INDEX=999: $DEV port 1 has no GID at that index" \
	RCMPI_VERBS_GID_INDEX=999 -- "$T/vt_init"
job bad_device 2 "fail:RCMPI_VERBS_DEVICE=mlx5_9: no such device \(devices: .*$DEV" \
	RCMPI_VERBS_DEVICE=mlx5_9 -- "$T/vt_init"
job bad_port 2 "fail:$DEV has no port 99" "RCMPI_VERBS_DEVICE=$DEV:99" \
	-- "$T/vt_init"
# root has CAP_IPC_LOCK, which ignores the limit: drop it
MPIRUN_SAVED=$MPIRUN
[[ $EUID -eq 0 ]] &&
	MPIRUN="setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock $MPIRUN"
ulimit -S -l 64
job memlock_64k 2 "fail:locked-memory limit of this process is 64 KiB \(ulimit -l 64\).*raise it" \
	-- "$T/vt_init"
ulimit -S -l unlimited
MPIRUN=$MPIRUN_SAVED

# a rank dies: the job ends with a message, no hang. First with the
# launcher noticing; then hidden behind a shell, so that the survivor's
# RDMA WRITEs must fail on their own and name the dead peer.
job kill_rank 2 "end:rank 1 .*(killed by signal 9|exited on signal 9|Killed)" \
	-- "$T/vt_kill"
# (the FIN behind the writes when they all got through before the death)
job kill_mid_write 2 "end:connection to rank 1 on $HOST failed: (RDMA WRITE|send \(inline\)) completed with" \
	RCMPI_RNDV_MODE=put -- bash -c "$T/vt_kill mid; sleep $CASE_TIMEOUT"
# the same under MPI_ERRORS_RETURN: the survivor's send returns the error
job kill_mid_write_return 2 "end:rank 0 got MPI_ERR_PROC_FAILED" \
	RCMPI_RNDV_MODE=put -- bash -c "$T/vt_kill mid-return; sleep $CASE_TIMEOUT"

# one-sided, a peer dies (hidden behind a shell, so that verbs must
# notice): the target of a held exclusive lock, and a rank before a fence;
# under MPI_ERRORS_RETURN the survivor gets MPI_ERR_PROC_FAILED, no hang
job rma_kill_lock 2 "end:rank 0 got MPI_ERR_PROC_FAILED" \
	-- bash -c "$J/rma_errors kill-lock; sleep $CASE_TIMEOUT"
job rma_kill_fence 2 "end:rank 0 got MPI_ERR_PROC_FAILED" \
	-- bash -c "$J/rma_errors kill-fence; sleep $CASE_TIMEOUT"

if [[ -z $NATIVE ]]; then
	# the port goes down: a named device is an error at MPI_Init
	ip link set veth0 down
	for _ in $(seq 50); do
		grep -q DOWN "/sys/class/infiniband/$DEV/ports/1/state" && break
		sleep 0.1
	done
	job port_down 2 "fail:RCMPI_VERBS_DEVICE=$DEV: $DEV port 1 is DOWN" \
		"RCMPI_VERBS_DEVICE=$DEV" -- "$T/vt_init"
	ip link set veth0 up
	for _ in $(seq 100); do
		grep -q ACTIVE "/sys/class/infiniband/$DEV/ports/1/state" && break
		sleep 0.1
	done
	job after_port_up_2 2 ok -- "$T/vt_init"

	# no device at all (the last case: rxe0 goes away)
	rdma link delete "$DEV" 2>/dev/null
	job no_device 2 "fail:needs the verbs transport, which is not available here: no RDMA device found" \
		-- "$T/vt_init"
	check rcmpi_info_no_device info_no_device

else
	left_out+=(port_down after_port_up_2 no_device rcmpi_info_no_device)
fi

rm -rf "$out"
[[ ${#left_out[@]} -eq 0 ]] ||
	echo "# left out on this host: ${left_out[*]} (${#left_out[@]})"
echo "$n verbs tests ran, $passed passed"
[[ $passed -eq $n ]]
