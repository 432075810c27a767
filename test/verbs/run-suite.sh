#!/bin/bash
# run-suite.sh - the verbs suite (test/verbs/README.md): one job on this
# host, which has no RDMA device (a job that forces verbs must fail at
# MPI_Init and say why), then ONE Soft-RoCE VM boot (test/vm/rxe-vm) that
# runs every case of guest-suite.sh. Ends with "N verbs tests ran, M
# passed" and fails unless all EXPECTED cases ran and passed. A VM that
# cannot boot, or a missing rxe device, is a failure, never a skip.
#
#   test/verbs/run-suite.sh [BUILD_DIR] [CASE...]   (default: ./_build)
#   test/verbs/run-suite.sh --native [BUILD_DIR] [CASE...]
#   test/verbs/run-suite.sh --wiring W [BUILD_DIR] [CASE...]
#
# --wiring W (modex, rdmacm, ud, auto): the sweep. Every case runs with
# RCMPI_VERBS_CM=W unless it names its own wiring (the cases that test
# one wiring's behaviour do). Not in CI (about 15 minutes a wiring).
#
# --native: this host has a real RDMA device (a cluster node): run the same
# cases on it directly, no VM (guest-suite.sh with VT_NATIVE=1; the cases
# that would take the VM's port down or delete its device are left out, and
# said so). A host without a device is a failure in this mode.
#
# BUILD_DIR must be visible in the guest (not under /tmp). Environment:
# RCMPI_TEST_VT_MPIRUN (the launcher, default the build's mpirun), RXE_VM (the
# harness, default test/vm/rxe-vm), VT_TIMEOUT (VM command limit, 1500 s).
set -uo pipefail
EXPECTED=89	# 1 on the host + 88 in the VM
top=$(cd "$(dirname "$0")/../.." && pwd)
native=
wiring=
if [[ ${1:-} == --native ]]; then
	native=1
	shift
fi
if [[ ${1:-} == --wiring ]]; then
	wiring=${2:?--wiring needs modex, rdmacm, ud or auto}
	shift 2
fi
build=$(cd "${1:-$top/_build}" 2>/dev/null && pwd) || {
	echo "run-suite.sh: no build directory ${1:-$top/_build}" >&2
	exit 1
}
shift $(($# > 0 ? 1 : 0))
rxe_vm=${RXE_VM:-$top/test/vm/rxe-vm}
t0=$SECONDS

if [[ $native ]]; then
	if ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
		echo "run-suite.sh: --native, but this host has no RDMA device (run without --native to use the Soft-RoCE VM): FAILED" >&2
		exit 1
	fi
	# (a read-only build tree, e.g. seen from a VM, must be built already)
	if [[ -w $build ]]; then
		make -C "$build" -j2 verbs-progs launcher/mpirun \
			tools/rcmpi_info >"$build/verbs-suite-make.log" 2>&1 || {
			tail -30 "$build/verbs-suite-make.log"
			echo "run-suite.sh: building the suite's programs failed" >&2
			exit 1
		}
	fi
	log=$(mktemp)
	VT_NATIVE=1 bash "$top/test/verbs/guest-suite.sh" "$build" "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	ran=$(grep -cE '^(ok|not ok) [0-9]+ ' "$log")
	passed=$(grep -cE '^ok [0-9]+ ' "$log")
	rm -f "$log"
	echo "$ran verbs tests ran natively, $passed passed ($((SECONDS - t0)) s)"
	[[ $rc -eq 0 && $ran -gt 0 && $passed -eq $ran ]]
	exit
fi
case $build in
/tmp/* | /tmp) echo "run-suite.sh: $build is under /tmp, which the VM does not see" >&2
	exit 1 ;;
esac
[[ -x $rxe_vm ]] || { echo "run-suite.sh: no VM harness at $rxe_vm" >&2; exit 1; }
# the VM's packages (qemu, kernel, rdma-core...), installed where missing
"$(dirname "$rxe_vm")/deps.sh" >/dev/null || {
	echo "run-suite.sh: test/vm/deps.sh could not install the VM's packages" >&2
	exit 1
}
make -C "$build" -j2 verbs-progs launcher/mpirun tools/rcmpi_info \
	>"$build/verbs-suite-make.log" 2>&1 || {
	tail -30 "$build/verbs-suite-make.log"
	echo "run-suite.sh: building the suite's programs failed" >&2
	exit 1
}

ran=0 passed=0
MPIRUN=${RCMPI_TEST_VT_MPIRUN:-$build/launcher/mpirun}

# 1. this host: no RDMA device, verbs forced -> a clear MPI_Init error
if [[ $# -eq 0 || " $* " == *" host_no_device "* ]]; then
	ran=$((ran + 1))
	if ls /sys/class/infiniband/* >/dev/null 2>&1; then
		echo "not ok $ran host_no_device: this host has RDMA devices; run the suite on one without"
	else
		log=$(mktemp)
		# shellcheck disable=SC2086 # MPIRUN is a command line
		RCMPI_TRANSPORTS=verbs timeout 60 $MPIRUN -n 2 -x RCMPI_TRANSPORTS \
			"$build/test/verbs/vt_init" >"$log" 2>&1
		rc=$?
		if [[ $rc -ne 0 && $rc -ne 124 ]] &&
			grep -q "needs the verbs transport, which is not available here: no RDMA device found" "$log"; then
			passed=$((passed + 1))
			echo "ok $ran host_no_device (MPI_Init: $(grep -m1 -o 'no RDMA device found[^)]*)' "$log"))"
		else
			echo "not ok $ran host_no_device: exit status $rc"
			sed 's/^/    | /' "$log" | tail -20
		fi
		rm -f "$log"
	fi
fi
if [[ $# -eq 1 && $1 == host_no_device ]]; then
	echo "$ran verbs tests ran, $passed passed ($((SECONDS - t0)) s)"
	[[ $passed -eq $ran ]]
	exit
fi

# 2. one VM boot, every case
vmlog=$(mktemp)
envs=()
[[ -n ${RCMPI_TEST_VT_MPIRUN:-} ]] && envs+=(--env "RCMPI_TEST_VT_MPIRUN=$RCMPI_TEST_VT_MPIRUN")
[[ -n $wiring ]] && envs+=(--env "RCMPI_VERBS_CM=$wiring")
# (4 GiB: the scale case runs 48 ranks)
"$rxe_vm" --quiet --mem 4096 --timeout "${VT_TIMEOUT:-1500}" "${envs[@]}" -- \
	"bash $top/test/verbs/guest-suite.sh $build $*" 2>&1 | tee "$vmlog"
vmrc=${PIPESTATUS[0]}
vm_ran=$(grep -cE '^(ok|not ok) [0-9]+ ' "$vmlog")
vm_ok=$(grep -cE '^ok [0-9]+ ' "$vmlog")
rm -f "$vmlog"
if [[ $vmrc -eq 125 ]]; then
	echo "run-suite.sh: the VM could not be set up (see above): FAILED" >&2
elif [[ $vmrc -eq 124 ]]; then
	echo "run-suite.sh: the VM ran past ${VT_TIMEOUT:-1500} s: FAILED" >&2
fi
ran=$((ran + vm_ran))
passed=$((passed + vm_ok))

echo "$ran verbs tests ran, $passed passed ($((SECONDS - t0)) s)"
if [[ $# -eq 0 && $ran -ne $EXPECTED ]]; then
	echo "run-suite.sh: expected $EXPECTED tests: FAILED" >&2
	exit 1
fi
[[ $passed -eq $ran && $vmrc -ne 124 && $vmrc -ne 125 ]]
