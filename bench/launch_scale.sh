#!/bin/bash
# launch_scale.sh - what mpirun itself does against the number of hosts,
# flat (RCMPI_LAUNCH_RADIX=0: mpirun starts and serves every daemon) against
# the launch tree (issue 17). All "hosts" are made-up names on this machine,
# their daemons started by test/integ/local-agent, one rank each
# (test/integ/pmix_client: PMIx_Init, a fence with every rank's data,
# PMIx_Finalize), --bind-to none.
#
# Per run mpirun prints (RCMPI_LAUNCHER_STATS=1) its own costs: daemon
# connections it held at most, bytes and messages it sent, bytes it
# received, its CPU time (getrusage RUSAGE_SELF: mpirun only, not the
# daemons or ranks), the tree's depth. Wall time is printed too, but on a
# small machine it measures the scheduler (2 processes per host).
#
#   BUILD=_build_gcc SIZES="1 4 16 32 64 128" RADIXES="0 16 4" REPS=3 \
#       bench/launch_scale.sh
#
# Needs the build's test/integ/pmix_client (make check, or
# make test/integ/pmix_client in BUILD). Prints a markdown table: per host
# count and radix the median CPU time of REPS runs (with the range), the
# other counters of that run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${BUILD:-$top/_build}" && pwd)
SIZES=${SIZES:-"1 4 16 32 64 128"}
RADIXES=${RADIXES:-"0 16 4"}
REPS=${REPS:-3}
MPIRUN=$BUILD/launcher/mpirun
CLIENT=$BUILD/test/integ/pmix_client
AGENT=$top/test/integ/local-agent
[[ -x $CLIENT ]] || { echo "no $CLIENT: make check first" >&2; exit 1; }
export RCMPI_LAUNCHER_STATS=1 RCMPI_HEARTBEAT_TIMEOUT=300 \
	RCMPI_LAUNCH_TIMEOUT=600
export TMPDIR=$(mktemp -d)
trap 'rm -rf "$TMPDIR"' EXIT

# one run: "cpu wall line" or nothing on failure
one() {
	local n=$1 r=$2 hosts t0 t1 line
	hosts=$(for ((i = 1; i <= n; i++)); do printf 'b%d:1,' "$i"; done)
	t0=$(date +%s.%N)
	line=$(RCMPI_LAUNCH_RADIX=$r timeout 900 "$MPIRUN" \
		--launch-agent "$AGENT" --bind-to none -H "${hosts%,}" \
		"$CLIENT" init fence fin 2>&1 >"$TMPDIR/out" |
		grep '^mpirun: stats:')
	t1=$(date +%s.%N)
	[[ -n $line && $(grep -c '^fence ok' "$TMPDIR/out") -eq $n ]] ||
		return 1
	echo "$(sed 's/.* cpu \([0-9.]*\) s.*/\1/' <<<"$line")" \
		"$(echo "$t1 - $t0" | bc)" "$line"
}

field() { sed -n "s/.* $1 \([0-9]*\).*/\1/p" <<<"$2"; }

echo "| hosts | radix | mpirun's children | depth | connections (max) | sent KiB | messages sent | received KiB | mpirun CPU s (median, range) | wall s |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for n in $SIZES; do
	for r in $RADIXES; do
		runs=()
		for ((k = 0; k < REPS; k++)); do
			out=$(one "$n" "$r") && runs+=("$out")
		done
		if [[ ${#runs[@]} -eq 0 ]]; then
			echo "| $n | $r | failed |||||||"
			continue
		fi
		mapfile -t runs < <(printf '%s\n' "${runs[@]}" | sort -n)
		med=${runs[$((${#runs[@]} / 2))]}
		read -r cpu wall line <<<"$med"
		lo=${runs[0]%% *}
		hi=${runs[-1]%% *}
		printf '| %d | %s | %s | %s | %s | %.1f | %s | %.1f | %s (%s-%s) | %.1f |\n' \
			"$n" "$([[ $r == 0 ]] && echo "0 (flat)" || echo "$r")" \
			"$(field children "$line")" "$(field depth "$line")" \
			"$(field connections-max "$line")" \
			"$(echo "$(sed -n 's/.* sent \([0-9]*\) B.*/\1/p' <<<"$line") / 1024" | bc -l)" \
			"$(sed -n 's/.* B \([0-9]*\) msgs.*/\1/p' <<<"$line")" \
			"$(echo "$(sed -n 's/.* received \([0-9]*\) B.*/\1/p' <<<"$line") / 1024" | bc -l)" \
			"$cpu" "$lo" "$hi" "$wall"
	done
done
