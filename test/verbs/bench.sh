#!/bin/bash
# bench.sh - rcmpi over verbs vs Open MPI + UCX vs perftest, side by side in
# ONE Soft-RoCE VM boot: REPS interleaved repetitions, medians. Absolute
# figures under TCG emulation mean little; the ratios in one boot do.
#
#   test/verbs/bench.sh [BUILD_DIR] [REPS]     (default ./_build, 5)
#
# Needs Debian's Open MPI (mpicc.openmpi, mpirun) and perftest in the host
# root (test/vm/deps.sh --mpi). The Open MPI binaries of vt_lat.c/vt_bw.c
# are built into BUILD_DIR/bench-ompi.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/_build}" && pwd) || exit 1
reps=${2:-5}
"$top/test/vm/deps.sh" --mpi >/dev/null || exit 1
make -C "$build" -j2 verbs-progs launcher/mpirun >/dev/null || exit 1
mkdir -p "$build/bench-ompi"
for p in vt_lat vt_bw; do
	mpicc.openmpi -O2 -o "$build/bench-ompi/$p" "$top/test/verbs/$p.c" ||
		exit 1
done
out=$(mktemp)
"$top/test/vm/rxe-vm" --quiet --timeout 1500 -- \
	"bash $top/test/verbs/bench-guest.sh $build $build/bench-ompi $reps" |
	tee "$out"
m() { awk -v k="$1" '$1 == "median" && $2 == k { print $3 }' "$out"; }
echo
echo "| rxe0, one VM, median of $reps | 8 B latency (us) | 1 MiB bandwidth (MB/s) |"
echo "|---|---|---|"
echo "| rcmpi, RCMPI_TRANSPORTS=verbs | $(m lat_rcmpi) | $(m bw_rcmpi) |"
echo "| Open MPI 4.1 + UCX 1.13 rc_verbs | $(m lat_ompi_ucx) | $(m bw_ompi_ucx) |"
echo "| perftest ib_send_lat / ib_write_bw | $(m lat_ib_send_lat) | $(m bw_ib_write_bw) |"
rm -f "$out"
