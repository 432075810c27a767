# shellcheck shell=bash
# limited.sh - sourced by the VM suites (test/verbs, test/multinode): run
# a job under a time-out that takes every rank's stacks before it ends the
# job, so that a hang, however rare, shows where each rank waited.
#
#   STACKS_RE   extended regex on a process's whole command line that picks
#               the ranks (anchor it on the build's path)
#   STACKS_SSH  hosts whose ranks are dumped too, over ssh (may be empty)
#
#   limited LIMIT LOG STACKS COMMAND...
#       COMMAND with stdout and stderr in LOG, stdin /dev/null. Past LIMIT
#       seconds the ranks' stacks go to STACKS, then COMMAND gets SIGTERM
#       and, 5 s later, SIGKILL. Sets RC: COMMAND's status, 124 past the
#       limit. STACKS is empty unless the limit passed.

# Every rank's threads' stacks here and on the STACKS_SSH hosts, all at
# once: the ranks are stopped meanwhile (a rank spinning on an emulated
# CPU slows gdb further: it takes 30-45 s to attach to one there), dumped
# 16 frames a thread, then continued; then the RDMA devices' non-zero
# counters (retransmissions, duplicates, errors) and QPs with their states.
limited_stacks() {
	local h cmd
	# shellcheck disable=SC2016 # expanded by the shell that runs it
	cmd='command -v gdb >/dev/null || { echo "$(hostname): no gdb, no stacks"; exit 0; }
	d=$(mktemp -d) ps=$(pgrep -f '"$(printf %q "$STACKS_RE")"')
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
	for c in /sys/class/infiniband/*/ports/*/hw_counters; do
		[ -d "$c" ] && echo "== $(hostname) $c:" $(cd "$c" &&
			grep -H . * 2>/dev/null | grep -v ":0\$")
	done
	command -v rdma >/dev/null &&
		rdma resource show qp 2>/dev/null | sed "s/^/== $(hostname) /"'
	for h in ${STACKS_SSH:-}; do
		ssh -o ConnectTimeout=15 "$h" "$cmd" >"$LIMITED_DIR/stacks.$h" 2>&1 &
	done
	bash -c "$cmd"
	wait
	for h in ${STACKS_SSH:-}; do
		cat "$LIMITED_DIR/stacks.$h"
		rm -f "$LIMITED_DIR/stacks.$h"
	done
}

limited() {
	local limit=$1 log=$2 stk=$3 pid w
	shift 3
	LIMITED_DIR=$(dirname "$stk")
	rm -f "$stk" "$stk.late"
	"$@" >"$log" 2>&1 </dev/null &
	pid=$!
	(
		trap 'kill $s 2>/dev/null; exit 0' TERM
		sleep "$limit" &
		s=$!
		wait $s || exit 0
		: >"$stk.late"
		limited_stacks >"$stk" 2>&1
		kill -TERM $pid 2>/dev/null && sleep 5 &&
			kill -KILL $pid 2>/dev/null
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
