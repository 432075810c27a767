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
# All run examples/hello (MPI_Init, print, MPI_Finalize; built here with
# mpicc), or BENCH_PROG
# (e.g. "BUILD/test/integ/pmix_client init fence fin": the launchers' PMIx
# side only), with --bind-to none where rcmpi binds, so that every launcher
# places ranks alike.
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
M=$B/launcher/mpirun
A=$top/test/integ/local-agent
command -v hyperfine >/dev/null || { echo "hyperfine missing" >&2; exit 1; }
# a real executable (RUNPATH from mpicc), not libtool's wrapper script in
# BUILD/examples, which would add a shell's start to every rank
if [[ -z ${BENCH_PROG:-} ]]; then
	"$B/launcher/mpicc" -O2 -o "$out/hello" "$top/examples/hello.c" ||
		{ echo "mpicc examples/hello.c failed" >&2; exit 1; }
fi
P=${BENCH_PROG:-$out/hello}

# one hyperfine run per size with every launcher, back to back, so that
# they are compared under the same load (our machines are shared)
labels=() tmpls=()
add() { labels+=("$1"); tmpls+=("$2"); }
add "rcmpi mpirun, 1 node" "$M -n @N@ --oversubscribe --bind-to none $P"
add "rcmpi mpirun, 2 daemons" "$M -H n1:@N2@,n2:@N2@ --bind-to none --launch-agent $A $P"
add "rcmpi mpirun, head + 1 daemon" "$M -H $H:@N2@,n1:@N2@ --bind-to none --launch-agent $A $P"
if [[ -x /usr/bin/mpirun ]] && /usr/bin/mpirun --version 2>/dev/null | grep -q "Open MPI"; then
	add "Open MPI 4.1 mpirun" "/usr/bin/mpirun --allow-run-as-root --oversubscribe -np @N@ $P"
fi
if [[ -n ${SLURM_CONF:-} ]] && command -v srun >/dev/null; then
	add "Slurm 22.05 srun --mpi=pmix" "srun --mpi=pmix -O -n @N@ $P"
fi

declare -A cell
for n in 2 16 64; do
	cmds=()
	for t in "${tmpls[@]}"; do
		c=${t//@N2@/$((n / 2))}
		cmds+=("${c//@N@/$n}")
	done
	hyperfine -N --warmup 2 --runs "$runs" --export-json "$out/$n.json" \
		"${cmds[@]}" >"$out/$n.txt" 2>&1 || { cat "$out/$n.txt"; exit 1; }
	i=0
	while read -r ms; do
		cell[$i,$n]=$ms
		i=$((i + 1))
	done < <(python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["results"]: print("%.0f" % (r["median"] * 1000))' "$out/$n.json")
done
printf '| launcher | 2 ranks | 16 ranks | 64 ranks |\n|---|---|---|---|\n'
for i in "${!labels[@]}"; do
	printf '| %s | %s ms | %s ms | %s ms |\n' "${labels[$i]}" \
		"${cell[$i,2]}" "${cell[$i,16]}" "${cell[$i,64]}"
done
