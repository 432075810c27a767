#!/bin/bash
# run_compare.sh - the side-by-side engine of bench/compare.sh: runs jobs
# (a benchmark, its options, a rank count) under several MPIs, interleaved,
# REPS times, and prints per size the median of the runs for each MPI,
# their range, and the ratios first MPI / each other one. Sourced by
# compare.sh (functions below; the caller defines cmp_exec), or run by
# itself for the old two-MPI form:
#
#   bench/run_compare.sh RC_BIN_DIR OTHER_BIN_DIR [bench ...]
#
# RC_BIN_DIR holds rc_osu_<bench>, OTHER_BIN_DIR ompi_osu_<bench> (or set
# RC_PREFIX / OTHER_PREFIX); both are the same bench/osu_*.c built with
# each MPI's compiler. Environment: REPS (default 7), MPIRUN (default
# "mpirun --allow-run-as-root --bind-to core", for both), NP (2), SIZES
# ("1:1024 1048576:1048576", one run each), LARGE_IT (iterations per run
# from 64 KiB on, 200), COL (avg: OSU's mean per call; med: the median
# call), EXTRA (more options).
#
# Interleaving: repetition after repetition; within one, job after job;
# within one job, every MPI once, the order rotated each repetition (no MPI
# always runs first after a pause). Our boxes have two cores shared with
# other jobs: read the range before the ratio.

# the slowest CPU's figure of a cpu_probe (bench/cpu_probe.c) run now
cmp_probe() {
	$CMP_PROBE 2>/dev/null | awk '$2 > m { m = $2 } END { print m + 0 }'
}

# cmp_collect DIR REPS "LABEL..." "JOB..." - call `cmp_exec LABEL JOB`
# (the caller's: prints "size value" lines, non-zero on failure) for every
# repetition, job and MPI; values go to DIR/JOB.LABEL, one "size value" a
# line, failures to DIR/failures (the run's stderr in DIR/JOB.LABEL.err).
# With CMP_PROBE (the path of bench/cpu_probe), each run is framed by two
# probes of the CPUs, and DIR/JOB.LABEL.probed gets "size value slowest",
# slowest the larger of the two probes' slowest CPU (cmp_steady).
cmp_collect() {
	local dir=$1 reps=$2 r j k n l p0 p1
	local -a labels jobs
	read -r -a labels <<<"$3"
	read -r -a jobs <<<"$4"
	n=${#labels[@]}
	mkdir -p "$dir"
	for ((r = 1; r <= reps; r++)); do
		for j in "${jobs[@]}"; do
			for ((k = 0; k < n; k++)); do
				l=${labels[$(((k + r) % n))]}
				[[ -n ${CMP_PROBE:-} ]] && p0=$(cmp_probe)
				if ! cmp_exec "$l" "$j" >"$dir/.run" \
					2>"$dir/.err"; then
					echo "rep $r: $j under $l failed:" \
						"$(tail -c 300 "$dir/.err" | tr '\n' ' ')" \
						>>"$dir/failures"
					cat "$dir/.err" >>"$dir/$j.$l.err"
				fi
				awk 'NF >= 2 && $1 ~ /^[0-9]+$/ &&
					$2 ~ /^[0-9.e+-]+$/ { print $1, $2 }' \
					"$dir/.run" >>"$dir/$j.$l"
				[[ -n ${CMP_PROBE:-} ]] || continue
				p1=$(cmp_probe)
				awk -v p="$(awk -v a="$p0" -v b="$p1" \
					'BEGIN { print (a > b ? a : b) }')" \
					'NF >= 2 && $1 ~ /^[0-9]+$/ &&
					$2 ~ /^[0-9.e+-]+$/ { print $1, $2, p }' \
					"$dir/.run" >>"$dir/$j.$l.probed"
			done
		done
		echo "# repetition $r of $reps done ($(date +%T), load" \
			"$(cut -d' ' -f1 /proc/loadavg))" >&2
	done
	rm -f "$dir/.run" "$dir/.err"
}

# cmp_steady DIR LIMIT - the runs made on steady CPUs: DIR/steady/JOB.LABEL
# gets the "size value" lines of DIR/JOB.LABEL.probed whose slowest probe
# was at most LIMIT times the fastest probe of any CPU in any run of DIR
# (the host's own speed; a run whose probe failed, 0, never counts);
# prints that fastest figure. The tables and gates then read DIR/steady
# like DIR.
cmp_steady() {
	local dir=$1 limit=$2 f best
	mkdir -p "$dir/steady"
	rm -f "$dir/steady/"*
	best=$(cat "$dir"/*.probed 2>/dev/null | awk '$3 > 0 &&
		(!m || $3 < m) { m = $3 } END { print m + 0 }')
	for f in "$dir"/*.probed; do
		[[ -e $f ]] || continue
		awk -v m="$best" -v l="$limit" \
			'$3 > 0 && $3 <= m * l { print $1, $2 }' "$f" \
			>"$dir/steady/$(basename "$f" .probed)"
	done
	[[ -f $dir/failures ]] && cp "$dir/failures" "$dir/steady/"
	echo "$best"
}

# the median of numbers on stdin ("nan" when none)
cmp_median() {
	sort -g | awk '{ v[NR] = $1 }
		END { if (!NR) print "nan";
		      else if (NR % 2) print v[(NR + 1) / 2];
		      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# cmp_stats FILE SIZE - "median min max runs" of SIZE's values in FILE
cmp_stats() {
	local v
	v=$(awk -v s="$2" '$1 == s { print $2 }' "$1" 2>/dev/null)
	if [[ -z $v ]]; then
		echo "nan nan nan 0"
		return
	fi
	echo "$(cmp_median <<<"$v") $(sort -g <<<"$v" | head -1)" \
		"$(sort -g <<<"$v" | tail -1) $(wc -l <<<"$v")"
}

# a number with 3 significant digits (2 decimals below 100)
cmp_fmt() {
	awk -v x="$1" 'BEGIN { if (x == "nan") print "—";
		else if (x >= 100) printf "%.0f\n", x;
		else printf "%.2f\n", x }'
}

# cmp_table DIR JOB "LABEL..." lower|higher REPS - a markdown table of JOB:
# per size each MPI's median (and min-max of the runs), then first / other
# for every other MPI; DIR/JOB.dat gets "size median..." for plots.
# CMP_SIZE names the first column (default "size (B)").
cmp_table() {
	local dir=$1 job=$2 better=$4 reps=$5 size l first med mn mx cnt
	local -a labels
	local line hdr sep ratio f0 meds
	read -r -a labels <<<"$3"
	first=${labels[0]}
	hdr="| ${CMP_SIZE:-size (B)} |"
	sep="|---:|"
	for l in "${labels[@]}"; do
		hdr+=" $l |"
		sep+="---:|"
	done
	for l in "${labels[@]:1}"; do
		hdr+=" $first/$l |"
		sep+="---:|"
	done
	echo "$hdr"
	echo "$sep"
	: >"$dir/$job.dat"
	for size in $(for l in "${labels[@]}"; do cat "$dir/$job.$l"; done \
		2>/dev/null | awk '{ print $1 }' | sort -n | uniq); do
		line="| $size |"
		meds=$size
		f0=
		for l in "${labels[@]}"; do
			read -r med mn mx cnt < <(cmp_stats "$dir/$job.$l" "$size")
			[[ -z $f0 ]] && f0=$med
			meds+=" $med"
			if [[ $cnt -eq 0 ]]; then
				line+=" — |"
			else
				line+=" $(cmp_fmt "$med") ($(cmp_fmt "$mn")–$(cmp_fmt "$mx"))"
				[[ $cnt -lt $reps ]] && line+=" [$cnt runs]"
				line+=" |"
			fi
		done
		for l in "${labels[@]:1}"; do
			read -r med _ < <(cmp_stats "$dir/$job.$l" "$size")
			ratio=$(awk -v a="$f0" -v b="$med" 'BEGIN {
				if (a == "nan" || b == "nan" || b == 0) print "—";
				else printf "%.2f\n", a / b }')
			line+=" $ratio |"
		done
		echo "$line"
		echo "$meds" >>"$dir/$job.dat"
	done
	echo
	if [[ $better == lower ]]; then
		echo "Median of $reps runs (min–max of the runs); ratio < 1: $first is faster."
	else
		echo "Median of $reps runs (min–max of the runs); ratio > 1: $first moves more data."
	fi
	[[ -s $dir/failures ]] && grep -F " $job under " "$dir/failures" |
		head -3 | sed 's/^/Failed: /'
	echo
}

# cmp_gate DIR JOB FIRST OTHER lower|higher LIMIT SIZE... - one line per
# size: the ratio FIRST/OTHER of the medians and PASS or FAIL against
# LIMIT (lower: ratio <= LIMIT; higher: ratio >= LIMIT).
cmp_gate() {
	local dir=$1 job=$2 a=$3 o=$4 better=$5 limit=$6 size ma mo
	shift 6
	for size in "$@"; do
		read -r ma _ < <(cmp_stats "$dir/$job.$a" "$size")
		read -r mo _ < <(cmp_stats "$dir/$job.$o" "$size")
		awk -v j="$job" -v s="$size" -v a="$ma" -v o="$mo" -v b="$better" \
			-v l="$limit" -v an="$a" -v on="$o" 'BEGIN {
			if (a == "nan" || o == "nan" || o == 0) {
				printf "- %s %s B: no data: FAIL\n", j, s; exit }
			r = a / o
			ok = b == "lower" ? r <= l : r >= l
			printf "- %s %s B: %s %s, %s %s, %s/%s = %.2f (%s %.2f): %s\n",
				j, s, an, a, on, o, an, on, r,
				b == "lower" ? "<=" : ">=", l, ok ? "PASS" : "FAIL" }'
	done
}

# ---- the old two-MPI command line -------------------------------------
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
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
	if [[ ${COL:-avg} == med ]]; then F=5; FB=4; else F=2; FB=1; fi
	EXTRA=${EXTRA:-}
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	cmp_exec() {	# label bench
		local bin s it
		if [[ $1 == rc ]]; then bin=$RC/${RC_PREFIX}$2; else bin=$OT/${OTHER_PREFIX}$2; fi
		if [[ $2 == barrier ]]; then
			# shellcheck disable=SC2086 # command lines
			timeout 120 $MPIRUN -np "$NP" "$bin" $EXTRA |
				awk -v f=$FB '!/^#/ { print "0", $f }'
			return "${PIPESTATUS[0]}"
		fi
		for s in $SIZES; do
			it=""
			[[ ${s%%:*} -ge 65536 ]] && it="-i ${LARGE_IT:-200} -x 20"
			# shellcheck disable=SC2086
			timeout 300 $MPIRUN -np "$NP" "$bin" -m "$s" $it $EXTRA |
				awk -v f=$F '!/^#/ { print $1, $f }'
		done
	}
	cmp_collect "$TMP" "$REPS" "rc ot" "$BENCHES"
	for b in $BENCHES; do
		echo "## $b ($NP ranks, ${COL:-avg} latency, $REPS interleaved runs)"
		cmp_table "$TMP" "$b" "rc ot" lower "$REPS"
	done
fi
