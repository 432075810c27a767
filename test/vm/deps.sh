#!/usr/bin/env bash
# deps.sh: install what the Soft-RoCE VM harness needs on a Debian 12 host,
# with apt-get, only where missing. Run as root (or with sudo available).
#
#   test/vm/deps.sh [--mpi] [--check]
#
# --mpi    also Open MPI (mpicc, mpirun; pulls libucx0) for side-by-side runs
# --check  only report what is missing; exit 1 if anything is
set -euo pipefail

pkgs=(qemu-system-x86 linux-image-amd64 busybox-static kmod cpio xz-utils
	rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest
	iproute2 openssh-server openssh-client procps gdb)
check=
while (($#)); do
	case $1 in
	--mpi) pkgs+=(openmpi-bin libopenmpi-dev) ;;
	--check) check=1 ;;
	*) sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 2 ;;
	esac
	shift
done

missing=()
for p in "${pkgs[@]}"; do
	s=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[[ $s == ii* ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
	echo "deps.sh: all present"
	exit 0
fi
echo "deps.sh: missing: ${missing[*]}"
[[ $check ]] && exit 1

sudo=
if ((EUID != 0)); then
	command -v sudo >/dev/null || { echo "deps.sh: need root or sudo" >&2; exit 1; }
	sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# openssh-server's postinst would start sshd on the host: the harness runs
# its own sshd inside the VMs only, so keep services from starting.
policy=/usr/sbin/policy-rc.d
made_policy=
if [[ ! -e $policy ]]; then
	printf '#!/bin/sh\nexit 101\n' | $sudo tee $policy >/dev/null
	$sudo chmod +x $policy
	made_policy=1
fi
rc=0
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" || rc=$?
[[ $made_policy ]] && $sudo rm -f $policy
exit $rc
