#!/bin/bash
# cg_rma_verbs.sh - instructions per one-sided operation plus flush over
# Soft-RoCE, rcmpi next to perftest's clients on the same device, in ONE
# Soft-RoCE VM boot (test/vm/rxe-vm): bench/cg_rma at 2 ranks
# (RCMPI_TRANSPORTS=verbs, the device as atomic agent), rank 0 under
# valgrind --tool=callgrind counting only the loop (cg_loop), per
# iteration; perftest's client (ib_write_lat, ib_read_lat, ib_atomic_lat
# FETCH_AND_ADD and CMP_AND_SWAP) under callgrind at -n 1000 and -n 3000,
# the difference per iteration (its binaries have no symbols to toggle
# on). Polling while a completion is awaited counts on both sides.
#
#   bench/cg_rma_verbs.sh [BUILD_DIR]      (default: _build)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$top/_build}" && pwd)
if [[ ${CG_RMA_VERBS_GUEST:-} != 1 ]]; then
	work=$B/bench-compare/cg-rma-verbs
	rm -rf "$work"
	mkdir -p "$work"
	exec "$top/test/vm/rxe-vm" --quiet --timeout 1500 --workdir "$work" \
		--env CG_RMA_VERBS_GUEST=1 -- "bash $top/bench/cg_rma_verbs.sh $B"
fi
out=$PWD
gid=$(rxe-gid -d rxe0 | cut -d' ' -f1)
N=2000

# perftest: instructions of the client's run of $2 iterations
perf_count() {	# out-name n tool args...
	local f=$out/$1.$2.cg n=$2
	shift 2
	timeout 120 "$@" -d rxe0 -x "$gid" -n "$n" >/dev/null 2>&1 &
	sleep 1
	timeout 120 valgrind -q --tool=callgrind --callgrind-out-file="$f" \
		"$@" -d rxe0 -x "$gid" -n "$n" 10.99.0.1 >/dev/null 2>&1
	wait
	awk '/^summary:/ { print $2 }' "$f"
}

rcmpi_count() {	# what
	local f=$out/rcmpi.$1.cg
	"$B/launcher/mpirun" -n 2 --bind-to core -x RCMPI_TRANSPORTS=verbs \
		-x RCMPI_RMA_ATOMIC=device bash -c \
		'[ "$PMIX_RANK" = 0 ] && exec valgrind -q --tool=callgrind --toggle-collect=cg_loop --callgrind-out-file='"$f"' "$0" "$@"; exec "$0" "$@"' \
		"$B/bench/cg_rma" "$N" "$1" >/dev/null
	awk -v n="$N" '/^summary:/ { printf "%d", $2 / n }' "$f"
}

echo "| operation + flush | rcmpi | perftest | its client | rcmpi/perftest |"
echo "|---|---:|---:|---|---:|"
for what in put get fop cas; do
	case $what in
	put) tool=(ib_write_lat -s 8) ;;
	get) tool=(ib_read_lat -s 8) ;;
	fop) tool=(ib_atomic_lat -A FETCH_AND_ADD) ;;
	cas) tool=(ib_atomic_lat -A CMP_AND_SWAP) ;;
	esac
	a=$(perf_count "$what" 1000 "${tool[@]}")
	b=$(perf_count "$what" 3000 "${tool[@]}")
	p=$(( (b - a) / 2000 ))
	r=$(rcmpi_count "$what")
	echo "| $what | $r | $p | \`${tool[*]}\` | $(awk -v a="$r" -v b="$p" 'BEGIN { printf "%.2f", a / b }') |"
done
