#!/bin/bash
# bench-guest.sh - run inside the Soft-RoCE VM by bench.sh: REPS interleaved
# repetitions of, side by side on rxe0,
#   rcmpi (RCMPI_TRANSPORTS=verbs)     vt_lat 8 B, vt_bw 1 MiB window 64
#   Open MPI + UCX (rc_verbs)          the same sources built with mpicc.openmpi
#   perftest                           ib_send_lat 8 B, ib_write_bw 1 MiB
# then the median of each (one line per figure: "median NAME VALUE UNIT").
#
#   bench-guest.sh BUILD_DIR OMPI_BIN_DIR [REPS]
set -uo pipefail
B=$1 O=$2 REPS=${3:-5}
T=$B/test/verbs
DEV=${RXE_VM_DEV:-rxe0}
gid=$(rxe-gid -d "$DEV" | cut -d' ' -f1)
ours="$B/launcher/mpirun -n 2 -x RCMPI_TRANSPORTS=verbs"
ompi="mpirun --allow-run-as-root --oversubscribe -np 2 --mca pml ucx
	-x UCX_NET_DEVICES=$DEV:1 -x UCX_TLS=rc_verbs,ud_verbs,self
	-x UCX_UD_VERBS_ETH_DGID_CHECK=n"
res=$(mktemp)

# perftest pair on one node: server in the background, client here.
# It sometimes exits 1 without a message under emulation: try again.
perf() { # tool field args...
	local tool=$1 field=$2 v
	shift 2
	for _ in 1 2 3; do
		timeout 60 "$tool" -d "$DEV" -x "$gid" "$@" >/dev/null 2>&1 &
		sleep 0.5
		v=$(timeout 60 "$tool" -d "$DEV" -x "$gid" "$@" 10.99.0.1 2>/dev/null |
			awk -v f="$field" '$1 ~ /^[0-9]+$/ && NF >= 5 { print $f; exit }')
		wait
		[[ -n $v ]] && { echo "$v"; return; }
	done
	echo nan
}

for ((r = 1; r <= REPS; r++)); do
	# shellcheck disable=SC2086 # command lines
	{
	echo "lat_rcmpi $($ours "$T/vt_lat" 8 | awk '/^lat/ { print $3 }')"
	echo "lat_ompi_ucx $($ompi "$O/vt_lat" 8 2>/dev/null | awk '/^lat/ { print $3 }')"
	echo "lat_ib_send_lat $(perf ib_send_lat 5 -s 8 -n 2000)"
	echo "bw_rcmpi $($ours "$T/vt_bw" | awk '/^bw/ { print $3 }')"
	echo "bw_ompi_ucx $($ompi "$O/vt_bw" 2>/dev/null | awk '/^bw/ { print $3 }')"
	echo "bw_ib_write_bw $(perf ib_write_bw 4 -s 1048576 -n 100)"
	} | tee -a "$res" | sed "s/^/rep $r: /"
done
for k in lat_rcmpi lat_ompi_ucx lat_ib_send_lat bw_rcmpi bw_ompi_ucx bw_ib_write_bw; do
	unit=MB/s
	[[ $k == lat_* ]] && unit=us
	echo "median $k $(awk -v k=$k '$1 == k && $2 != "nan" && $2 != "inf" && $2 != "" { print $2 }' "$res" |
		sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "nan" }') $unit"
done
rm -f "$res"
