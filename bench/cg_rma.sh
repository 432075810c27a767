#!/bin/bash
# cg_rma.sh - instructions per one-sided operation on one node, rcmpi and
# Open MPI side by side: bench/cg_rma at 2 ranks bound to cores, rank 0
# under valgrind --tool=callgrind counting only the loop (cg_loop; rank 1
# waits in a barrier), 10000 iterations, per iteration. Open MPI's copy is
# built from the same source with mpicc.openmpi into a temporary
# directory.
#
#   bench/cg_rma.sh [BUILD_DIR]      (default: _build)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$top/_build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc.openmpi -O2 -o "$tmp/cg_rma_ompi" "$top/bench/cg_rma.c"

# count MPI N WHAT: rank 0's instructions
count() {
	local out=$tmp/cg.out
	rm -f "$out"
	if [[ $1 == rcmpi ]]; then
		"$B/launcher/mpirun" -n 2 --bind-to core bash -c \
			'[ "$PMIX_RANK" = 0 ] && exec valgrind -q --tool=callgrind --toggle-collect=cg_loop --callgrind-out-file='"$out"' "$0" "$@"; exec "$0" "$@"' \
			"$B/bench/cg_rma" "$2" "$3"
	else
		mpirun.openmpi --allow-run-as-root -n 2 --bind-to core \
			--mca btl self,vader bash -c \
			'[ "$OMPI_COMM_WORLD_RANK" = 0 ] && exec valgrind -q --tool=callgrind --toggle-collect=cg_loop --callgrind-out-file='"$out"' "$0" "$@"; exec "$0" "$@"' \
			"$tmp/cg_rma_ompi" "$2" "$3"
	fi
	awk '/^summary:/ { print $2 }' "$out"
}

echo "| operation | rcmpi | ompi | rcmpi/ompi |"
echo "|---|---:|---:|---:|"
for what in put get lock; do
	declare -A per=()
	for m in rcmpi ompi; do
		per[$m]=$(( $(count "$m" 10000 "$what") / 10000 ))
	done
	echo "| $what | ${per[rcmpi]} | ${per[ompi]} | $(awk -v a="${per[rcmpi]}" -v b="${per[ompi]}" 'BEGIN { printf "%.2f", a / b }') |"
done
