#!/bin/sh
# demo.sh - on a fresh Debian 12 machine: install the build dependencies,
# build rcmpi, and run a 4-rank MPI job on shared memory.
set -eu
cd "$(dirname "$0")"
./install-deps.sh
[ -x configure ] || ./autogen.sh
top=$PWD
mkdir -p _demo/build
cd _demo/build
[ -f Makefile ] || ../../configure -q --prefix="$top/_demo/install"
make -j"$(nproc)" >/dev/null
make install >/dev/null
cd "$top/_demo"
install/bin/mpicc -O2 ../examples/hello.c -o hello
install/bin/mpicc -O2 ../examples/ring.c -o ring
install/bin/mpirun -n 4 --oversubscribe ./hello
install/bin/mpirun -n 4 --oversubscribe ./ring
