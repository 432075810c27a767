#!/bin/bash
# bench-startup.sh - job start-up time (launcher start → every rank through
# MPI_Init and MPI_Finalize → launcher exit) with hyperfine, medians, for
# 2, 16 and 64 ranks:
#   rcmpi 1 node       mpirun -n N
#   rcmpi 2 daemons    mpirun -H n1:N/2,n2:N/2 (two rcmpid on this machine,
#                      test/integ/local-agent; mpirun hosts no rank)
#   rcmpi head+daemon  mpirun -H THIS:N/2,n1:N/2
#   Open MPI           /usr/bin/mpirun --oversubscribe -np N
#   Slurm              srun --mpi=pmix -O -n N (needs SLURM_CONF: a running
#                      Slurm, e.g. the private one test/integ/slurm.test
#                      starts with SLURM_KEEP=1; skipped without)
# All run examples/hello (MPI_Init, print, MPI_Finalize) with --bind-to
# none where rcmpi binds, so that every launcher places ranks alike.
#
#   test/multinode/bench-startup.sh [BUILD_DIR] [RUNS]   (default ./_build, 10)
# Prints a markdown table; hyperfine's JSON goes to BUILD_DIR/bench-startup/.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "${1:-$top/_build}" && pwd)
runs=${2:-10}
out=$B/bench-startup
mkdir -p "$out"
H=$(hostname)
P=$B/examples/hello
M=$B/launcher/mpirun
A=$top/test/integ/local-agent
command -v hyperfine >/dev/null || { echo "hyperfine missing" >&2; exit 1; }
[[ -x $P ]] || make -C "$B" examples/hello >/dev/null

median() {	# name command
	local f=$out/$1.json
	hyperfine -N --warmup 2 --runs "$runs" --export-json "$f" "$2" \
		>/dev/null 2>&1 || { echo "failed"; return; }
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.0f" % (r["median"]*1000))' "$f" 2>/dev/null ||
		jq '.results[0].median * 1000 | floor' "$f"
}

printf '| launcher | 2 ranks | 16 ranks | 64 ranks |\n|---|---|---|---|\n'
row() {	# label template (N, N2 = N/2)
	local label=$1 tmpl=$2 n cells=()
	for n in 2 16 64; do
		local cmd=${tmpl//@N2@/$((n / 2))}
		cmd=${cmd//@N@/$n}
		cells+=("$(median "$label-$n" "$cmd") ms")
	done
	printf '| %s | %s | %s | %s |\n' "$label" "${cells[@]}"
}
row "rcmpi mpirun, 1 node" "$M -n @N@ --oversubscribe --bind-to none $P"
row "rcmpi mpirun, 2 daemons" "$M -H n1:@N2@,n2:@N2@ --bind-to none --launch-agent $A $P"
row "rcmpi mpirun, head + 1 daemon" "$M -H $H:@N2@,n1:@N2@ --bind-to none --launch-agent $A $P"
if [[ -x /usr/bin/mpirun ]] && /usr/bin/mpirun --version 2>/dev/null | grep -q "Open MPI"; then
	row "Open MPI 4.1 mpirun" "/usr/bin/mpirun --allow-run-as-root --oversubscribe -np @N@ $P"
fi
if [[ -n ${SLURM_CONF:-} ]] && command -v srun >/dev/null; then
	row "Slurm 22.05 srun --mpi=pmix" "srun --mpi=pmix -O -n @N@ $P"
fi
