# shellcheck shell=bash
# limited.sh - sourced by the suites that launch jobs (test/integ/lib.sh,
# test/verbs, test/multinode): run a job under a time-out that takes its
# processes' stacks before it ends the job, so that a hang, however rare,
# shows where each process waited.
#
#   STACKS_RE   extended regex on a process's whole command line that picks
#               the processes to dump (anchor it on the build's path);
#               unset: the job's process and its descendants whose program
#               lies under one of the directories in STACKS_UNDER
#   STACKS_SSH  hosts whose processes matching STACKS_RE are dumped too,
#               over ssh (may be empty)
#
#   limited LIMIT LOG STACKS COMMAND...
#       COMMAND with stdout and stderr in LOG, stdin /dev/null, in a
#       process group of its own, SIGHUP, SIGINT, SIGQUIT and SIGTERM at
#       their defaults. Past LIMIT seconds the stacks go to STACKS, then
#       that group gets SIGTERM and, 5 s later, SIGKILL. Sets RC:
#       COMMAND's status, 124 past the limit. STACKS is empty unless the
#       limit passed.

# What one host runs for the dump: the processes in $PIDS (or those that
# STACKS_RE picks) are stopped (a process spinning on an emulated CPU slows
# gdb further: it takes 30-45 s to attach to one there), dumped 16 frames a
# thread, all at once, then continued; then the RDMA devices' non-zero
# counters (retransmissions, duplicates, errors) and their QPs' states.
# shellcheck disable=SC2016 # expanded by the shell that runs it
LIMITED_CMD='ps=${PIDS:-$(pgrep -f "$RE")}
if ! command -v gdb >/dev/null; then
	echo "$(hostname): no gdb, no stacks"
elif [ -n "$ps" ]; then
	d=$(mktemp -d)
	kill -STOP $ps 2>/dev/null
	for p in $ps; do
		{ echo "== $(hostname) pid $p: $(tr "\0" " " </proc/$p/cmdline)"
		  timeout 150 gdb -p "$p" -batch -nx \
			-ex "thread apply all bt 16" 2>/dev/null |
			grep -E "^(#|Thread)"; } >"$d/$p" 2>&1 &
	done
	wait
	kill -CONT $ps 2>/dev/null
	cat "$d"/* 2>/dev/null
	rm -rf "$d"
fi
for c in /sys/class/infiniband/*/ports/*/hw_counters; do
	[ -d "$c" ] && echo "== $(hostname) $c:" $(cd "$c" &&
		grep -H . * 2>/dev/null | grep -v ":0\$")
done
command -v rdma >/dev/null &&
	rdma resource show qp 2>/dev/null | sed "s/^/== $(hostname) /"'

# pid $1 and the processes below it whose program lies under a
# STACKS_UNDER directory
limited_tree() {
	local c e u
	e=$(readlink "/proc/$1/exe" 2>/dev/null)
	for u in ${STACKS_UNDER:-/}; do
		if [[ $e == "$u"/* ]]; then
			echo "$1"
			break
		fi
	done
	for c in $(pgrep -P "$1"); do
		limited_tree "$c"
	done
}

# the stacks of job $1's processes, here and on the STACKS_SSH hosts
# (theirs collected in files beside $2)
limited_stacks() {
	local h pids=
	[[ -z ${STACKS_RE:-} ]] && pids=$(limited_tree "$1")
	for h in ${STACKS_SSH:-}; do
		ssh -o ConnectTimeout=15 "$h" \
			"RE=$(printf %q "$STACKS_RE"); $LIMITED_CMD" \
			>"$2.$h" 2>&1 &
	done
	[[ -n ${STACKS_RE:-}$pids ]] &&
		PIDS=$pids RE=${STACKS_RE:-} bash -c "$LIMITED_CMD"
	wait
	for h in ${STACKS_SSH:-}; do
		cat "$2.$h"
		rm -f "$2.$h"
	done
}

# signal $1 to job $2's process group (or, should it have none, to it)
limited_kill() {
	kill -"$1" -- -"$2" 2>/dev/null || kill -"$1" "$2" 2>/dev/null
}

limited() {
	local limit=$1 log=$2 stk=$3 pid w
	shift 3
	rm -f "$stk" "$stk.late"
	# (a process group of its own, ended as a whole, and the signals a
	# job is told with at their defaults, as timeout(1) gives them: under
	# nohup or as a background job of this shell, SIGHUP or SIGINT would
	# come ignored, and mpirun keeps an ignored SIGHUP ignored)
	setsid env --default-signal=HUP,INT,QUIT,TERM "$@" >"$log" 2>&1 \
		</dev/null &
	pid=$!
	(
		trap 'kill $s 2>/dev/null; exit 0' TERM
		sleep "$limit" &
		s=$!
		wait $s || exit 0
		: >"$stk.late"
		limited_stacks $pid "$stk" >"$stk" 2>&1
		limited_kill TERM $pid && sleep 5 && limited_kill KILL $pid
	) &
	w=$!
	wait $pid
	RC=$?
	kill $w 2>/dev/null
	wait $w 2>/dev/null
	# shellcheck disable=SC2034 # RC: the caller's
	[[ -e $stk.late ]] && RC=124
	rm -f "$stk.late"
	return 0
}
