#!/bin/bash
# run-suite.sh - jobs across two real kernels: ONE boot of two Soft-RoCE
# VMs (test/vm/rxe-vm --nodes 2, node1 and node2 linked over a virtual
# Ethernet, ssh between them) that runs every case of guest-suite.sh on
# node1: mpirun there starts rcmpid on node2 over ssh. Ends with "N
# multinode tests ran, M passed" and fails unless all EXPECTED cases ran
# and passed. A VM that cannot boot is a failure, never a skip.
#
#   test/multinode/run-suite.sh [BUILD_DIR] [CASE...]   (default: ./_build)
#
# BUILD_DIR must be visible in the guest (not under /tmp). Environment:
# RXE_VM (the harness, default test/vm/rxe-vm), MN_TIMEOUT (VM command
# limit, default 900 s). 8-10 minutes under TCG on 2 cores.
set -uo pipefail
EXPECTED=18
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/_build}" 2>/dev/null && pwd) || {
	echo "run-suite.sh: no build directory ${1:-$top/_build}" >&2
	exit 1
}
shift $(($# > 0 ? 1 : 0))
rxe_vm=${RXE_VM:-$top/test/vm/rxe-vm}
t0=$SECONDS

case $build in
/tmp/* | /tmp) echo "run-suite.sh: $build is under /tmp, which the VM does not see" >&2
	exit 1 ;;
esac
[[ -x $rxe_vm ]] || { echo "run-suite.sh: no VM harness at $rxe_vm" >&2; exit 1; }
progs="launcher/mpirun launcher/rcmpid test/integ/pmix_client
test/jobs/p2p_sizes test/jobs/p2p_match test/jobs/rma_ops
test/jobs/rma_counter test/jobs/rma_progress"
# shellcheck disable=SC2086 # a list of targets
make -C "$build" -j2 $progs >"$build/multinode-suite-make.log" 2>&1 || {
	tail -30 "$build/multinode-suite-make.log"
	echo "run-suite.sh: building the suite's programs failed" >&2
	exit 1
}
# the collectives' jobs, where the build has them
make -C "$build" -j2 check TESTS= >>"$build/multinode-suite-make.log" 2>&1

vmlog=$(mktemp)
"$rxe_vm" --nodes 2 --quiet --timeout "${MN_TIMEOUT:-900}" -- \
	"bash $top/test/multinode/guest-suite.sh $build $*" 2>&1 | tee "$vmlog"
vmrc=${PIPESTATUS[0]}
ran=$(grep -cE '^(ok|not ok) [0-9]+ ' "$vmlog")
ok=$(grep -cE '^ok [0-9]+ ' "$vmlog")
rm -f "$vmlog"
if [[ $vmrc -eq 125 ]]; then
	echo "run-suite.sh: the VMs could not be set up (see above): FAILED" >&2
elif [[ $vmrc -eq 124 ]]; then
	echo "run-suite.sh: the VMs ran past ${MN_TIMEOUT:-900} s: FAILED" >&2
fi
echo "run-suite.sh: $ran multinode tests ran, $ok passed ($((SECONDS - t0)) s)"
[[ $vmrc -eq 0 && $ok -eq $ran ]] || exit 1
if [[ $# -eq 0 && $ran -ne $EXPECTED ]]; then
	echo "run-suite.sh: expected $EXPECTED cases" >&2
	exit 1
fi
exit 0
