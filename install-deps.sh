#!/bin/sh
# install-deps.sh - install what rcmpi needs on Debian 12, with apt-get,
# only where missing. Run as root (or with sudo).
#
#   ./install-deps.sh          build dependencies
#   ./install-deps.sh --test   also what the test suite needs (clang, Open MPI
#                              for side-by-side runs, MUNGE; the Soft-RoCE
#                              VM's and Slurm's packages are installed by
#                              their suites)
set -eu

pkgs="build-essential autoconf automake libtool pkg-config
libpmix-dev libibverbs-dev librdmacm-dev libssl-dev check"
# libmunge-dev (optional: mpirun --auth munge) and munge, whose daemon the
# multi-node tests start when it is not running
# (iptables and iproute2: the TCP keepalive test silences a rank's port;
# gdb: a case past its time-out prints its processes' stacks)
[ "${1:-}" = "--test" ] && pkgs="$pkgs clang openmpi-bin libopenmpi-dev
procps psmisc hyperfine libmunge-dev munge iptables iproute2 gdb"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps.sh: installing$missing"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing
