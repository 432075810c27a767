#!/bin/bash
# run_compare.sh - rcmpi against another MPI, side by side, 2 ranks each
# bound to its own core: REPS interleaved repetitions of every benchmark;
# per size the median latency and the best (lowest) run of each, and the
# ratios rcmpi / other of both. On a shared box the best runs are the ones
# no other job preempted; the spread (max/min) says how noisy it was.
#
#   bench/run_compare.sh RC_BIN_DIR OTHER_BIN_DIR [bench ...]
# RC_BIN_DIR holds rc_osu_<bench>, OTHER_BIN_DIR ompi_osu_<bench> (or set
# RC_PREFIX / OTHER_PREFIX); both are the same bench/osu_*.c built with
# each MPI's compiler. Environment: REPS (default 7), MPIRUN (default
# "mpirun --allow-run-as-root --bind-to core"), NP (2), SIZES ("1:1024"
# and "1048576:1048576" by default, one run each), LARGE_IT (iterations
# per run from 64 KiB on, 200), COL (avg: OSU's mean per call, the
# default; med: the median call), EXTRA (more options).
set -u
RC=${1:?rcmpi binaries}
OT=${2:?other MPI binaries}
shift 2
BENCHES=${*:-allreduce bcast reduce allgather alltoall barrier}
REPS=${REPS:-7}
NP=${NP:-2}
MPIRUN=${MPIRUN:-mpirun --allow-run-as-root --bind-to core}
RC_PREFIX=${RC_PREFIX:-rc_}
OTHER_PREFIX=${OTHER_PREFIX:-ompi_}
SIZES=${SIZES:-1:1024 1048576:1048576}
COL=${COL:-avg}
if [ "$COL" = med ]; then F=5; FB=4; else F=2; FB=1; fi
EXTRA=${EXTRA:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

for b in $BENCHES; do
	for rep in $(seq "$REPS"); do
		for who in rc ot; do
			if [ $who = rc ]; then bin=$RC/${RC_PREFIX}$b; else bin=$OT/${OTHER_PREFIX}$b; fi
			if [ "$b" = barrier ]; then
				timeout 120 $MPIRUN -np "$NP" "$bin" $EXTRA |
					awk -v f=$FB '!/^#/ {print "0", $f}' >>"$TMP/$b.$who"
				continue
			fi
			for s in $SIZES; do
				it=""
				[ "${s%%:*}" -ge 65536 ] && it="-i ${LARGE_IT:-200} -x 20"
				timeout 300 $MPIRUN -np "$NP" "$bin" -m "$s" $it $EXTRA |
					awk -v f=$F '!/^#/ {print $1, $f}' >>"$TMP/$b.$who"
			done
		done
	done
	echo "## $b ($NP ranks, $COL latency, $REPS interleaved runs: median, spread = max/min, best = min)"
	printf "%-9s %10s %7s %10s %10s %7s %10s %7s %7s\n" size rc_med spread rc_best \
		ot_med spread ot_best ratio r_best
	for size in $(awk '{print $1}' "$TMP/$b.rc" | sort -n | uniq); do
		r=$(awk -v s="$size" '$1 == s {print $2}' "$TMP/$b.rc" | median)
		o=$(awk -v s="$size" '$1 == s {print $2}' "$TMP/$b.ot" | median)
		rb=$(awk -v s="$size" '$1 == s {print $2}' "$TMP/$b.rc" | sort -g | head -1)
		ob=$(awk -v s="$size" '$1 == s {print $2}' "$TMP/$b.ot" | sort -g | head -1)
		rs=$(awk -v s="$size" '$1 == s {print $2}' "$TMP/$b.rc" | sort -g | awk 'NR==1{m=$1} {x=$1} END {printf "%.1f", x/m}')
		os=$(awk -v s="$size" '$1 == s {print $2}' "$TMP/$b.ot" | sort -g | awk 'NR==1{m=$1} {x=$1} END {printf "%.1f", x/m}')
		printf "%-9s %10s %7s %10s %10s %7s %10s %7.2f %7.2f\n" "$size" "$r" "$rs" "$rb" \
			"$o" "$os" "$ob" "$(echo "$r / $o" | bc -l)" "$(echo "$rb / $ob" | bc -l)"
	done
	echo
done
