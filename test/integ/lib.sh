# lib.sh - shared by the test/integ/*.test scripts (bash).
#
# A test script defines functions case_<name> and ends with `run_cases "$@"`.
# Every case runs in its own process (the script re-invoked with --case
# NAME) under its own time-out (test/limited.sh: past it, the stacks of
# its processes go in its log), in its own directory $D with a private
# TMPDIR, and prints one line: PASS, FAIL or SKIP and its name; the script
# ends with a total. Inside a case, `fail MSG` records a failure and goes on,
# `skip MSG` ends the case as skipped. Run from the top build directory
# (as `make check` does), or set top_builddir.
#
# Arguments: case names to run only those (without the case_ prefix).

set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
srcdir=$(cd "${srcdir:-$(dirname "$0")/../..}" && pwd)
MPIRUN=$top_builddir/launcher/mpirun
MPIEXEC=$top_builddir/launcher/mpiexec
CLIENT=$top_builddir/test/integ/pmix_client
HOST=$(hostname)
CASE_TIMEOUT=${CASE_TIMEOUT:-60}
# a case past its time-out: the stacks of its processes that run the
# build's programs, or programs a case built (under WORKDIR, run_cases)
# shellcheck source=SCRIPTDIR/../limited.sh
. "$srcdir/test/limited.sh"
STACKS_RE='' STACKS_SSH=''

CASE_FAILED=0

fail() {
	echo "    FAIL: $*"
	CASE_FAILED=1
}

skip() {
	echo "    SKIP: $*"
	exit 77
}

# microseconds since the epoch
now_us() {
	local t=$EPOCHREALTIME
	echo "${t/./}"
}

# the shell's allowed CPUs, one per line
allowed_cpus() {
	local list part a b
	list=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
	for part in ${list//,/ }; do
		if [[ $part == *-* ]]; then
			a=${part%-*}
			b=${part#*-}
			seq "$a" "$b"
		else
			echo "$part"
		fi
	done
}

NCPU=$(allowed_cpus | wc -l)

# run mpirun (or $RUNNER) in the background so that its pid is known:
# sets MPID, RC, ELAPSED_MS; output in $D/out and $D/err; stdin from
# $STDIN_FILE (default /dev/null). Then checks that nothing was left.
mpirun_run() {
	local t0 t1
	t0=$(now_us)
	"${RUNNER:-$MPIRUN}" "$@" >"$D/out" 2>"$D/err" \
		<"${STDIN_FILE:-/dev/null}" &
	MPID=$!
	wait "$MPID"
	RC=$?
	t1=$(now_us)
	END_US=$t1
	ELAPSED_MS=$(((t1 - t0) / 1000))
	check_clean
}

# no rank process left (by marker), no PMIx tmpdir, no shm segment
check_clean() {
	local left
	left=$(pgrep -f -- "$MARK" || true)
	if [[ -n $left ]]; then
		fail "processes left behind: $(ps -o pid=,stat=,args= -p "${left//$'\n'/,}")"
		kill -KILL $left 2>/dev/null
	fi
	left=$(ls -A "$TMPDIR")
	[[ -z $left ]] || fail "left in TMPDIR: $left"
	left=$(ls -d /dev/shm/rcmpi.rcmpi.*."$MPID".* 2>/dev/null)
	[[ -z $left ]] || fail "shm segments left: $left"
	left=$(ls -d /tmp/rcmpi."$MPID".* 2>/dev/null)
	[[ -z $left ]] || fail "PMIx dirs left in /tmp: $left"
}

# this build's daemons (rcmpid) that belong to this case: they inherit its
# TMPDIR (tests that start daemons may run at the same time: make -j)
own_daemons() {
	local pids
	pids=$(pgrep -f -- "^$top_builddir/launcher/rcmpid ") || return 0
	# one grep for all of them; a daemon gone meanwhile is not listed
	grep -lzxF -- "TMPDIR=$TMPDIR" $(printf '/proc/%s/environ ' $pids) \
		2>/dev/null | cut -d/ -f3
	return 0
}

# the client with this case's marker
client() {
	echo "$CLIENT" "--mark=$MARK"
}

expect_rc() {
	[[ $RC -eq $1 ]] || fail "exit status $RC, expected $1"
}

expect_err() {
	grep -qE -- "$1" "$D/err" || fail "stderr lacks /$1/"
}

expect_out() {
	grep -qE -- "$1" "$D/out" || fail "stdout lacks /$1/"
}

expect_lines() {	# file count regex
	local n
	n=$(grep -cE -- "$3" "$1")
	[[ $n -eq $2 ]] || fail "$(basename "$1"): $n lines match /$3/, expected $2"
}

# the job ended within MS of the last "stamp" a rank printed (the client's
# step just before the event that must end the job): start-up, which a
# loaded machine or a sanitizer build slows, is not counted
expect_ended_within() {	# ms
	local s ms
	s=$(awk '$1 == "stamp" { if ($4 > m) m = $4 } END { printf "%.0f\n", m }' "$D/out")
	if [[ $s -eq 0 ]]; then
		fail "no rank printed a stamp"
		return
	fi
	ms=$(((END_US - s) / 1000))
	[[ $ms -lt $1 ]] || fail "ended $ms ms after the event, limit $1 ms"
}

expect_faster() {	# ms
	[[ $ELAPSED_MS -lt $1 ]] || fail "took ${ELAPSED_MS} ms, limit $1 ms"
}

show_output() {
	echo "    --- stdout (head):"
	head -c 2000 "$D/out" 2>/dev/null | head -n 15 | cut -c1-160 | sed 's/^/    | /'
	echo "    --- stderr (head):"
	head -c 2000 "$D/err" 2>/dev/null | head -n 15 | cut -c1-160 | sed 's/^/    | /'
}

# every line of pmix_client's "spam:L:W" intact and there once (tagged:
# each line starts with "[rank] " of the rank that wrote it)
check_spam() {	# stream file nranks lines width tagged
	local bad
	bad=$(awk -v s="$1" -v n="$3" -v lines="$4" -v w="$5" -v tagged="$6" '
		BEGIN { abc = "abcdefghijklmnopqrstuvwxyz" }
		{
			line = $0
			if (tagged != "") {
				if (!match(line, /^\[[0-9]+\] /)) { bad++; next }
				tag = substr(line, 2, RLENGTH - 3)
				line = substr(line, RLENGTH + 1)
			}
			split(line, f, " ")
			r = substr(f[1], 2); l = f[3]
			c = substr(abc, l % 26 + 1, 1)
			head = "r" r " " s " " l " "
			body = substr(line, length(head) + 1)
			if (substr(line, 1, length(head)) != head ||
			    length(line) != w || body !~ ("^" c "+$") ||
			    (tagged != "" && tag != r)) { bad++; next }
			seen[r, l]++
		}
		END {
			for (r = 0; r < n; r++)
				for (l = 0; l < lines; l++)
					if (seen[r, l] != 1) missing++
			printf "%d %d", bad, missing
		}' "$2")
	[[ $bad == "0 0" ]] || fail "$1: broken/missing lines: $bad"
}

# wait until $D/out has N lines matching regex (at most S seconds)
wait_for_lines() {
	local n=$1 re=$2 s=${3:-10} i
	for ((i = 0; i < s * 20; i++)); do
		[[ $(grep -cE -- "$re" "$D/out" 2>/dev/null) -ge $n ]] &&
			return 0
		sleep 0.05
	done
	fail "never saw $n lines /$re/"
	return 1
}

# ranks N... - the rank counts among N... that this run covers: all of
# them, or those also in RCMPI_TEST_RANKS (a space-separated list; the
# sanitizer stage of test/run-all.sh keeps the oversubscribed 5-9 rank
# shapes to the plain build, where they run four times faster).
ranks() {
	local n
	for n in "$@"; do
		if [[ -z ${RCMPI_TEST_RANKS:-} || " $RCMPI_TEST_RANKS " == *" $n "* ]]; then
			echo "$n"
		fi
	done
}

run_one_case() {
	local name=$1
	D=$WORKDIR/$name
	mkdir -p "$D/tmp"
	export TMPDIR=$D/tmp
	MARK=rcmpitest-$name-$$
	RC=0
	MPID=0
	ELAPSED_MS=0
	cd "$D" || exit 1
	if ! declare -F "case_$name" >/dev/null; then
		echo "    no such case: $name"
		exit 1
	fi
	"case_$name"
	if [[ $CASE_FAILED -ne 0 ]]; then
		show_output
		exit 1
	fi
	exit 0
}

run_cases() {
	local names=() name rc npass=0 nfail=0 nskip=0 t0 t1
	if [[ ${1:-} == --case ]]; then
		run_one_case "$2"
	fi
	if [[ $# -gt 0 ]]; then
		names=("$@")
	else
		mapfile -t names < <(declare -F | awk '{ print $3 }' |
			sed -n 's/^case_//p')
	fi
	WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/rcmpi-integ.XXXXXX")
	STACKS_UNDER="$top_builddir $WORKDIR"
	export WORKDIR
	for name in "${names[@]}"; do
		t0=$(now_us)
		# (past the time-out, the stacks of the case's processes)
		limited "$CASE_TIMEOUT" "$WORKDIR/$name.log" \
			"$WORKDIR/$name.stacks" "$0" --case "$name"
		rc=$RC
		t1=$(now_us)
		[[ -s $WORKDIR/$name.stacks ]] &&
			sed 's/^/    = /' "$WORKDIR/$name.stacks" \
				>>"$WORKDIR/$name.log"
		case $rc in
		0) echo "PASS: $name ($(((t1 - t0) / 1000)) ms)"
		   npass=$((npass + 1)) ;;
		77) echo "SKIP: $name"; sed 's/^/  /' "$WORKDIR/$name.log"
		   nskip=$((nskip + 1)) ;;
		*) [[ $rc -eq 124 ]] && echo "    (timed out after ${CASE_TIMEOUT}s)" >>"$WORKDIR/$name.log"
		   echo "FAIL: $name"; cat "$WORKDIR/$name.log"
		   nfail=$((nfail + 1)) ;;
		esac
	done
	echo "# $(basename "$0"): $npass passed, $nfail failed, $nskip skipped"
	if [[ $nfail -eq 0 ]]; then
		rm -rf "$WORKDIR"
	else
		echo "# case directories kept in $WORKDIR"
	fi
	[[ $nfail -gt 0 ]] && exit 1
	[[ $npass -eq 0 && $nskip -gt 0 ]] && exit 77
	exit 0
}
