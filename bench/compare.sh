#!/bin/bash
# compare.sh - rcmpi side by side with Open MPI and MPICH: the same
# bench/ sources built with each MPI's mpicc, run interleaved in one
# session with the same core binding, REPS repetitions, per size the
# median of each MPI and the ratio rcmpi / other (bench/run_compare.sh is
# the engine). Prints markdown (bench/RESULTS.md is made of it) and keeps
# the raw runs.
#
#   bench/compare.sh MODE...
#
# Modes:
#   shm-p2p        osu_latency, osu_bw, osu_bibw, osu_mbw_mr, osu_multi_lat
#                  at 2 ranks, each bound to its own core (--bind-to core);
#                  a plot (PNG) of latency and bandwidth; issue 3's gate
#   shm-coll       the 9 collective benchmarks at 2 ranks, bound; issue 4's
#                  gate
#   shm-over       the collectives at 4 and 8 ranks: oversubscribed on a
#                  2-core box, no binding (the MPIs' default there); MPICH
#                  left out unless MPIS_OVER names it (it busy-polls: 28 ms
#                  per 4-byte allreduce at 8 ranks here)
#   shm-rma        the one-sided benchmarks at 2 ranks, bound: put, get,
#                  accumulate, get_accumulate, fetch_and_op and
#                  compare_and_swap latency (MPI_Win_allocate, MPI_Win_flush:
#                  OSU's defaults; put also with lock, fence and pscw), put
#                  and get bandwidth, put bi-bandwidth, accumulate of
#                  MPI_INT and MPI_DOUBLE up to 2 MiB and get_accumulate
#                  of MPI_DOUBLE (-T); no gate (issue 11 records them for
#                  issue 15). SHM_RMA_JOBS: only those jobs (names from
#                  mode_shm_rma, e.g. "acc acci accd gaccd fop cas")
#   shm-mt         MPI_THREAD_MULTIPLE: osu_latency_mt (8 B; 1 sender
#                  thread and 1, 2, 4 receiver threads) and osu_mbw_mr_mt
#                  (8 B, window 64; 1, 2, 4 threads per rank, each on its own
#                  communicator) at 2 ranks, not bound (the threads need
#                  both cores): oversubscribed with busy-polling threads on
#                  2 cores, reported, no gate; MPICH left out unless
#                  MPIS_OVER names it (as shm-over); MT_THREADS ("1 2 4")
#                  and MT_OPTS (more options) change the runs; then
#                  bench/mt_side at 1 rank x 2 threads (query: a thread
#                  streaming while another queries; test: two threads
#                  completing windows by MPI_Testall)
#   shm            the four above (not shm-mt)
#   callgrind      instructions per iteration of the software path
#                  (bench/cg_self: Isend+Recv+Wait and Irecv+Send+Wait of
#                  8 B on MPI_COMM_SELF, the difference of 11000 and 1000
#                  iterations) under valgrind --tool=callgrind
#   memory         peak resident memory per rank (VmHWM, before
#                  MPI_Finalize) of osu_alltoall at 2 and 8 ranks
#   startup        `mpirun -n 16 hello` of each MPI (hyperfine -N, warm-up
#                  3, 20 runs, oversubscribed; issue 2), then
#                  test/multinode/bench-startup.sh (2/16/64 ranks, one node
#                  and two daemons, Open MPI's mpirun, Slurm's srun under a
#                  private single-node Slurm; issue 6)
#   verbs          in ONE Soft-RoCE VM boot (test/vm/rxe-vm): osu_latency
#                  and osu_bw under rcmpi (RCMPI_TRANSPORTS=verbs, nothing
#                  else), Open MPI + UCX over rxe0 (notes/anchors.md's
#                  settings) and perftest ib_send_lat / ib_write_bw as the
#                  device's ceiling; issue 5's gate
#   verbs-fp       in ONE Soft-RoCE VM boot: the eager rings (RDMA-write
#                  fast path, issue 16): osu_latency at 8 B, osu_mbw_mr at
#                  8 B (window 64) and osu_bw at 1 MiB under rcmpi with the
#                  rings (rcmpi-verbs) and without (rcmpi-nofp:
#                  RCMPI_VERBS_FP_RINGS=0), Open MPI + UCX and perftest's
#                  ib_write_lat (the floor of a write-based path) and
#                  ib_write_bw; issue 16's gates: latency <= 0.85 x Open
#                  MPI's and <= 1.15 x ib_write_lat, message rate >= Open
#                  MPI's, bandwidth >= 0.95 x without the rings; the
#                  latency and the rate also as medians per iteration
#                  (bench/p2p_median: jobs mlat, mmr), like for like with
#                  perftest's t_typical (FP_JOBS="flat": only some of
#                  flat fmr fbw mlat mmr; FP_LAT_N: osu_latency's,
#                  p2p_median's and ib_write_lat's iterations, 2000)
#   verbs-cg       in ONE Soft-RoCE VM boot: instructions per round trip
#                  of osu_latency (8 B) at rank 0 under valgrind
#                  --tool=callgrind (rank 1 native): rcmpi with and without
#                  the eager rings, Open MPI + UCX; 11000 iterations minus
#                  1000, / 10000 (start-up cancels); one send, one receive
#                  and the polls rank 0 made while waiting (rank 1, native,
#                  has usually answered before the first); the verbs
#                  provider's user-space code counted, the kernel's not
#   verbs-wiring   in ONE Soft-RoCE VM boot (4 GiB): the cost of the two
#                  QP wirings against job size (issue 16's crossover):
#                  wall time of rcmpi's `mpirun -n N` over verbs of hello
#                  (MPI_Init, a barrier, MPI_Finalize) and of one 8-byte
#                  osu_alltoall iteration (every pair connected) with
#                  RCMPI_VERBS_CM=modex and =rdmacm, N in WIRING_N ("4 8
#                  16 32 48"), oversubscribed on the VM's 2 vCPUs; median
#                  of REPS
#   nbr            the neighbourhood benchmarks (osu_neighbor_* blocking,
#                  osu_ineighbor_* nonblocking: their pure communication
#                  column) on the default neighbourhood (cart:1:1) and
#                  osu_alltoallw: 2 ranks bound with issue 12's gate, 4
#                  and 8 ranks oversubscribed (reported, no gate)
#   verbs-rma      in ONE Soft-RoCE VM boot: the one-sided latencies (put,
#                  get, fetch_and_op, compare_and_swap, accumulate at 8 B,
#                  flush; put also lock/unlock) and put/get bandwidth at
#                  64 KiB and 1 MiB (RMA_JOBS="putlock ...": only those
#                  jobs, out of put get fop cas acc putlock putbw getbw
#                  putbw1m getbw1m) under rcmpi on its device path
#                  (rcmpi-direct: RCMPI_TRANSPORTS=verbs,
#                  RCMPI_RMA_ATOMIC=device, RCMPI_RMA_DIRECT_MIN=0) and
#                  with its defaults (rcmpi-verbs: RCMPI_TRANSPORTS=verbs
#                  only: on one node the atomics are active messages),
#                  Open MPI + UCX (osc/ucx) and perftest
#                  as the device's ceiling (2 x ib_write_lat for put,
#                  ib_read_lat, ib_atomic_lat FETCH_AND_ADD / CMP_AND_SWAP,
#                  ib_write_bw / ib_read_bw); issue 15's gates for
#                  rcmpi-direct: latency <= 1.2 x perftest's and <= Open
#                  MPI's, bandwidth at 1 MiB >= 0.9 x perftest's and >= Open
#                  MPI's. perftest is its t_typical (a median);
#                  perftest-avg, its t_avg from separate runs, is the
#                  mean beside OSU's means (both gated).
#                  RMA_LABELS="rcmpi-direct perftest perftest-avg": only
#                  those columns
#   tcp            osu_latency and osu_bw at 2 ranks bound, on one machine
#                  through TCP: rcmpi with RCMPI_TRANSPORTS=tcp, Open MPI
#                  with --mca pml ob1 --mca btl tcp,self (issue 17's goal:
#                  at least Open MPI's latency and bandwidth); the gate
#                  prints, within 10 % at 8 B and at 1-4 MiB
#   all            shm callgrind memory startup verbs verbs-rma nbr shm-mt
#                  (shm-rma included)
#
# Environment: BUILD (rcmpi's configured build tree, default ./_build),
# REPS (5), MPIS (default every one installed: "rcmpi ompi mpich"; rcmpi
# first; rcmpi-base: another rcmpi build tree, BASE_BUILD, e.g. main's
# before a change, for a before-and-after in the same run), MPIS_OVER
# ("rcmpi ompi"), OUT (raw results, default
# BUILD/bench-compare/MODE), COL (collectives: avg, OSU's mean per call,
# the default; med: the median call), P2P_OPTS / COLL_OPTS / OVER_OPTS
# (benchmark options, e.g. "-m 1:4096"), RMA_OPTS (more options of the
# one-sided jobs), VERBS_LAT ("-m 8:8 -i 2000 -x
# 200"), VERBS_BW ("-m 1048576:1048576 -i 5 -x 1"), TIMEOUT (per run, s),
# CMP_PROBE (verbs-fp and verbs-rma: the CPU probe that frames each run,
# default BUILD/bench/cpu_probe; empty: none) and STEADY (1.25: how much
# slower than the boot's fastest a probe may be for its run to count
# among the runs on steady CPUs, which those modes report again).
# Exit status: 0, or 1 when a run or a gate failed (the report says which).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/run_compare.sh
. "$top/bench/run_compare.sh"
BUILD=$(cd "${BUILD:-$top/_build}" 2>/dev/null && pwd) ||
	{ echo "compare.sh: no build tree (BUILD=${BUILD:-$top/_build})" >&2; exit 1; }
if [[ " ${MPIS:-} " == *" rcmpi-base "* ]]; then
	BASE_BUILD=$(cd "${BASE_BUILD:-/nonexistent}" 2>/dev/null && pwd) ||
		{ echo "compare.sh: rcmpi-base needs BASE_BUILD, a built rcmpi tree" >&2; exit 1; }
fi
REPS=${REPS:-5}
STEADY=${STEADY:-1.25}
COL=${COL:-avg}
TIMEOUT=${TIMEOUT:-300}
BIN=$BUILD/bench-compare/bin
P2P="latency bw bibw mbw_mr multi_lat"
COLL="barrier bcast reduce allreduce gather scatter allgather alltoall
	reduce_scatter"
NBR="neighbor_allgather neighbor_allgatherv neighbor_alltoall
	neighbor_alltoallv neighbor_alltoallw"
INBR="ineighbor_allgather ineighbor_allgatherv ineighbor_alltoall
	ineighbor_alltoallv ineighbor_alltoallw"
RMA="put_latency get_latency put_bw get_bw put_bibw acc_latency
	get_acc_latency fop_latency cas_latency"
MT="latency_mt mbw_mr_mt"
STATUS=0

have() { command -v "$1" >/dev/null 2>&1; }

if [[ -z ${MPIS:-} ]]; then
	MPIS=rcmpi
	have mpicc.openmpi && have mpirun.openmpi && MPIS+=" ompi"
	have mpicc.mpich && have mpirun.mpich && MPIS+=" mpich"
fi
MPIS_OVER=${MPIS_OVER:-$(for m in $MPIS; do [[ $m != mpich ]] && echo -n "$m "; done)}

# ---- building -------------------------------------------------------------

mpicc_of() {
	case $1 in
	rcmpi) echo "$BUILD/launcher/mpicc" ;;
	rcmpi-base) echo "$BASE_BUILD/launcher/mpicc" ;;
	ompi) echo mpicc.openmpi ;;
	mpich) echo mpicc.mpich ;;
	esac
}

# every benchmark and examples/hello.c with each MPI's mpicc, into BIN/MPI
build_all() {
	local m p cc log=$BUILD/bench-compare/build.log
	mkdir -p "$BUILD/bench-compare"
	make -C "$BUILD" -j"$(nproc)" all >"$log" 2>&1 ||
		{ tail -20 "$log"; echo "compare.sh: rcmpi does not build" >&2; exit 1; }
	for m in $MPIS; do
		cc=$(mpicc_of "$m")
		mkdir -p "$BIN/$m"
		for p in $P2P $COLL alltoallw $NBR $INBR; do
			local more=
			[[ $p == *neighbor* ]] && more=$top/bench/nbr_common.c
			# shellcheck disable=SC2086 # more: one file or none
			$cc -O2 -o "$BIN/$m/osu_$p" "$top/bench/osu_$p.c" \
				"$top/bench/bench_common.c" $more >>"$log" 2>&1 ||
				{ echo "compare.sh: $cc osu_$p.c failed ($log)" >&2; exit 1; }
		done
		for p in $RMA; do
			$cc -O2 -o "$BIN/$m/osu_$p" "$top/bench/osu_$p.c" \
				"$top/bench/bench_rma.c" \
				"$top/bench/bench_common.c" >>"$log" 2>&1 ||
				{ echo "compare.sh: $cc osu_$p.c failed ($log)" >&2; exit 1; }
		done
		for p in $MT; do
			$cc -O2 -pthread -o "$BIN/$m/osu_$p" "$top/bench/osu_$p.c" \
				"$top/bench/bench_common.c" >>"$log" 2>&1 ||
				{ echo "compare.sh: $cc osu_$p.c failed ($log)" >&2; exit 1; }
		done
		$cc -O2 -pthread -o "$BIN/$m/mt_side" "$top/bench/mt_side.c" \
			>>"$log" 2>&1 ||
			{ echo "compare.sh: $cc mt_side.c failed ($log)" >&2; exit 1; }
		$cc -O2 -o "$BIN/$m/p2p_median" "$top/bench/p2p_median.c" \
			>>"$log" 2>&1 ||
			{ echo "compare.sh: $cc p2p_median.c failed ($log)" >&2; exit 1; }
		$cc -O2 -o "$BIN/$m/cg_self" "$top/bench/cg_self.c" >>"$log" 2>&1 &&
			$cc -O2 -o "$BIN/$m/hello" "$top/examples/hello.c" >>"$log" 2>&1 ||
			{ echo "compare.sh: $cc failed ($log)" >&2; exit 1; }
	done
}

# ---- launching --------------------------------------------------------------

# launcher command line: MPI ranks core|none
launcher() {
	case $1 in
	rcmpi | rcmpi-base)
		echo -n "$([[ $1 == rcmpi-base ]] && echo "$BASE_BUILD" || echo "$BUILD")/launcher/mpirun -n $2"
		[[ $3 == core ]] && echo " --bind-to core" ||
			echo " --oversubscribe --bind-to none" ;;
	ompi)	echo -n "mpirun.openmpi --allow-run-as-root -np $2"
		[[ $3 == core ]] && echo " --bind-to core" ||
			echo " --oversubscribe --bind-to none" ;;
	mpich)	echo -n "mpirun.mpich -n $2"
		[[ $3 == core ]] && echo " -bind-to core" || echo ;;
	ompi-ucx) echo "mpirun.openmpi --allow-run-as-root -np $2 --bind-to $3" \
		"--mca pml ucx -x UCX_NET_DEVICES=$DEV:1" \
		"-x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_UD_VERBS_ETH_DGID_CHECK=n" ;;
	rcmpi-verbs) echo "$BUILD/launcher/mpirun -n $2 --bind-to $3" \
		"-x RCMPI_TRANSPORTS=verbs" ;;
	rcmpi-nofp) echo "$BUILD/launcher/mpirun -n $2 --bind-to $3" \
		"-x RCMPI_TRANSPORTS=verbs -x RCMPI_VERBS_FP_RINGS=0" ;;
	rcmpi-direct | rcmpi-direct-base)
		echo "$([[ $1 == *-base ]] && echo "$BASE_BUILD" || echo "$BUILD")/launcher/mpirun -n $2 --bind-to $3" \
		"-x RCMPI_TRANSPORTS=verbs -x RCMPI_RMA_ATOMIC=device" \
		"-x RCMPI_RMA_DIRECT_MIN=0" ;;
	rcmpi-tcp) echo "$BUILD/launcher/mpirun -n $2 --bind-to $3" \
		"-x RCMPI_TRANSPORTS=tcp" ;;
	ompi-tcp) echo "mpirun.openmpi --allow-run-as-root -np $2 --bind-to $3" \
		"--mca pml ob1 --mca btl tcp,self" ;;
	esac
}

# jobs: J_PROG (benchmark), J_NP, J_BIND, J_COL (output column), J_OPTS,
# J_BETTER (lower|higher), J_TITLE
# J_OMPI: more options of the Open MPI runs; J_PERF: the perftest
# counterpart of a job (perftest_exec)
declare -A J_PROG J_NP J_BIND J_COL J_OPTS J_BETTER J_TITLE J_OMPI J_PERF
job() {	# name prog np bind col better title [opts]
	J_PROG[$1]=$2 J_NP[$1]=$3 J_BIND[$1]=$4 J_COL[$1]=$5 J_BETTER[$1]=$6
	J_TITLE[$1]=$7 J_OPTS[$1]=${8:-}
}

# the folder of MPI's binaries: rcmpi's variants (rcmpi-verbs, ...) share
# rcmpi's; rcmpi-base (and rcmpi-direct-base) has its own, built with
# BASE_BUILD's mpicc
bin_of() {	# mpi
	[[ $1 == rcmpi-base || $1 == rcmpi-*-base ]] && echo rcmpi-base ||
		echo "${1%%-*}"
}

# the engine's hook: run JOB under MPI, print "size value" lines
cmp_exec() {	# mpi job
	local m=$1 j=$2
	[[ $m == perftest* ]] && { perftest_exec "$j" "$m"; return; }
	[[ ${J_COL[$j]} == hwm-* ]] && { cmp_exec_mem "$m" "$j"; return; }
	# BIN/rcmpi for rcmpi-verbs and rcmpi-direct, BIN/ompi for ompi-ucx
	# shellcheck disable=SC2046,SC2086 # command lines
	timeout -k 10 "$TIMEOUT" $(launcher "$m" "${J_NP[$j]}" "${J_BIND[$j]}") \
		$([[ $m == ompi* ]] && echo "${J_OMPI[$j]:-}") \
		"$BIN/$(bin_of "$m")/${J_PROG[$j]}" ${J_OPTS[$j]} |
		awk -v c="${J_COL[$j]}" '/^#/ || NF < c { next }
			$1 ~ /\./ { print 0, $(c - 1); next }	# no size column
			{ print $1, $c }'
	return "${PIPESTATUS[0]}"
}

# ---- reporting ----------------------------------------------------------------

machine() {
	local cpu
	cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
	echo "$(nproc) cores ($cpu), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
		"$(. /etc/os-release && echo "$PRETTY_NAME"), Linux $(uname -r)"
}

versions() {
	local v="rcmpi $(git -C "$top" describe --always --dirty 2>/dev/null)"
	[[ " $MPIS " == *" rcmpi-base "* ]] &&
		v+=", rcmpi-base $(git -C "$BASE_BUILD/.." describe --always --dirty 2>/dev/null) ($BASE_BUILD)"
	[[ " $MPIS " == *" ompi "* ]] &&
		v+=", Open MPI $(mpirun.openmpi --version 2>&1 | sed -n 's/.*(OpenRTE) //p')"
	[[ " $MPIS " == *" mpich "* ]] &&
		v+=", MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p') ($(mpichversion | sed -n 's/^MPICH Device:[[:space:]]*//p'))"
	echo "$v"
}

header() {	# title command
	echo "### $1"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(machine); $(versions)."
	echo "Command: \`$2\`. Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
}

footer() {
	echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
}

# ---- modes ------------------------------------------------------------------

mode_shm_p2p() {
	local out=${OUT:-$BUILD/bench-compare/shm-p2p} p jobs=""
	local o=${P2P_OPTS:-}
	rm -rf "$out"
	job lat osu_latency 2 core 2 lower "osu_latency (µs)" "-m 0:4194304 $o"
	job bw osu_bw 2 core 2 higher "osu_bw (MB/s)" "-m 1:4194304 $o"
	job bibw osu_bibw 2 core 2 higher "osu_bibw (MB/s)" "-m 1:4194304 $o"
	job mr osu_mbw_mr 2 core 3 higher \
		"osu_mbw_mr, 1 pair (messages/s)" "-m 1:4194304 $o"
	job mlat osu_multi_lat 2 core 2 lower \
		"osu_multi_lat, 1 pair (µs)" "-m 0:4194304 $o"
	jobs="lat bw bibw mr mlat"
	header "Shared memory, point-to-point, 2 ranks bound to cores 0 and 1" \
		"REPS=$REPS bench/compare.sh shm-p2p"
	cmp_collect "$out" "$REPS" "$MPIS" "$jobs"
	for p in $jobs; do
		echo "#### ${J_TITLE[$p]}"
		echo
		cmp_table "$out" "$p" "$MPIS" "${J_BETTER[$p]}" "$REPS"
	done
	if [[ " $MPIS " == *" ompi "* ]]; then
		echo "Issue 3 gate (rcmpi within 10 % of Open MPI or better):"
		echo
		cmp_gate "$out" lat rcmpi ompi lower 1.10 8 | tee -a "$out/gates"
		cmp_gate "$out" bw rcmpi ompi higher 0.90 1048576 2097152 4194304 |
			tee -a "$out/gates"
		echo
	fi
	plot "$out" "$MPIS"
	footer
	[[ -s $out/failures ]] && STATUS=1
	grep -q FAIL "$out/gates" 2>/dev/null && STATUS=1
}

plot() {	# dir labels
	have gnuplot || return 0
	gnuplot -e "dir='$1'; labels='$2'; out='$1/shm-p2p.png'" \
		"$top/bench/plot.gp" 2>>"$1/plot.log" &&
		echo "Plot: $1/shm-p2p.png" && echo
}

# the collective jobs at one rank count; their names are added to JOBS
coll_jobs() {	# prefix ranks bind opts
	local c col=2 what="OSU's mean"
	[[ $COL == med ]] && col=5 what="the median call"
	for c in $COLL; do
		job "$1_$c" "osu_$c" "$2" "$3" "$col" lower \
			"osu_$c, $2 ranks (µs, $what)" "$4"
		JOBS+="$1_$c "
	done
}

mode_shm_coll() {
	local out=${OUT:-$BUILD/bench-compare/shm-coll} jobs j
	rm -rf "$out"
	JOBS=
	coll_jobs c2 2 core "${COLL_OPTS:-}"
	jobs=$JOBS
	header "Shared memory, collectives, 2 ranks bound to cores 0 and 1" \
		"REPS=$REPS bench/compare.sh shm-coll"
	cmp_collect "$out" "$REPS" "$MPIS" "$jobs"
	for j in $jobs; do
		echo "#### ${J_TITLE[$j]}"
		echo
		cmp_table "$out" "$j" "$MPIS" lower "$REPS"
	done
	if [[ " $MPIS " == *" ompi "* ]]; then
		echo "Issue 4 gate (rcmpi within 10 % of Open MPI or better at <= 1 KiB and 1 MiB):"
		echo
		for j in $jobs; do
			cmp_gate "$out" "$j" rcmpi ompi lower 1.10 0 1 2 4 8 16 32 \
				64 128 256 512 1024 1048576
		done | grep -v ': no data: FAIL$' | tee "$out/gates" |
			awk '/FAIL$/ { print; f++ } END { printf "\n%d of %d gate points pass.\n", NR - f, NR }'
		echo
	fi
	footer
	[[ -s $out/failures ]] && STATUS=1
	grep -q FAIL "$out/gates" 2>/dev/null && STATUS=1
}

mode_shm_over() {
	local out=${OUT:-$BUILD/bench-compare/shm-over} jobs j n
	rm -rf "$out"
	JOBS=
	coll_jobs c4 4 none "${OVER_OPTS:--i 200 -x 20}"
	coll_jobs c8 8 none "${OVER_OPTS:--i 200 -x 20}"
	jobs=$JOBS
	header "Shared memory, collectives, 4 and 8 ranks on 2 cores (oversubscribed, not bound)" \
		"REPS=$REPS bench/compare.sh shm-over"
	echo "Oversubscribed: every MPI must yield the core while it waits;"
	echo "these figures measure the scheduler as much as the MPI. No gate."
	[[ " $MPIS_OVER " != *" mpich "* && " $MPIS " == *" mpich "* ]] &&
		echo "MPICH left out: it busy-polls without yielding (28 ms per 4-byte allreduce at 8 ranks here)."
	echo
	cmp_collect "$out" "$REPS" "$MPIS_OVER" "$jobs"
	for j in $jobs; do
		echo "#### ${J_TITLE[$j]}"
		echo
		cmp_table "$out" "$j" "$MPIS_OVER" lower "$REPS"
	done
	footer
	[[ -s $out/failures ]] && STATUS=1
}

# the neighbourhood jobs and alltoallw at one rank count, added to JOBS
nbr_jobs() {	# prefix ranks bind opts
	local c col=2 what="OSU's mean"
	[[ $COL == med ]] && col=5 what="the median call"
	for c in $NBR alltoallw; do
		job "$1_$c" "osu_$c" "$2" "$3" "$col" lower \
			"osu_$c, $2 ranks (µs, $what)" "$4"
		JOBS+="$1_$c "
	done
	for c in $INBR; do
		job "$1_$c" "osu_$c" "$2" "$3" 4 lower \
			"osu_$c, $2 ranks (µs, pure communication)" "$4"
		JOBS+="$1_$c "
	done
}

mode_nbr() {
	local out=${OUT:-$BUILD/bench-compare/nbr} j two
	rm -rf "$out"
	JOBS=
	nbr_jobs n2 2 core "${NBR_OPTS:-}"
	two=$JOBS
	nbr_jobs n4 4 none "${NBR_OVER_OPTS:--i 200 -x 20}"
	nbr_jobs n8 8 none "${NBR_OVER_OPTS:--i 200 -x 20}"
	header "Neighbourhood collectives and alltoallw: 2 ranks bound, 4 and 8 oversubscribed" \
		"REPS=$REPS bench/compare.sh nbr"
	echo "Default neighbourhood (cart:1:1, a periodic ring): at 2 ranks both"
	echo "neighbours are the other rank; nonblocking ones compared on the pure"
	echo "communication time (the call and its wait, no overlap work)."
	echo
	cmp_collect "$out" "$REPS" "$MPIS_OVER" "$JOBS"
	for j in $JOBS; do
		echo "#### ${J_TITLE[$j]}"
		echo
		cmp_table "$out" "$j" "$MPIS_OVER" lower "$REPS"
	done
	if [[ " $MPIS_OVER " == *" ompi "* ]]; then
		echo "Issue 12 gate (2 ranks: rcmpi within 10 % of Open MPI or better at <= 1 KiB and 1 MiB):"
		echo
		for j in $two; do
			cmp_gate "$out" "$j" rcmpi ompi lower 1.10 1 2 4 8 16 32 \
				64 128 256 512 1024 1048576
		done | grep -v ': no data: FAIL$' | tee "$out/gates" |
			awk '/FAIL$/ { print; f++ } END { printf "\n%d of %d gate points pass.\n", NR - f, NR }'
		echo
	fi
	footer
	[[ -s $out/failures ]] && STATUS=1
	grep -q FAIL "$out/gates" 2>/dev/null && STATUS=1
}

mode_shm_rma() {
	local out=${OUT:-$BUILD/bench-compare/shm-rma} j jobs
	local o=${RMA_OPTS:-} lat="-m 1:65536 -i 2000 -x 200" bw="-m 1024:4194304"
	rm -rf "$out"
	job put osu_put_latency 2 core 2 lower "osu_put_latency, flush (µs)" \
		"$lat $o"
	job get osu_get_latency 2 core 2 lower "osu_get_latency, flush (µs)" \
		"$lat $o"
	job acc osu_acc_latency 2 core 2 lower "osu_acc_latency, flush (µs)" \
		"$lat $o"
	job gacc osu_get_acc_latency 2 core 2 lower \
		"osu_get_acc_latency, flush (µs)" "$lat $o"
	job fop osu_fop_latency 2 core 2 lower "osu_fop_latency, flush (µs)" \
		"-i 2000 -x 200 $o"
	job cas osu_cas_latency 2 core 2 lower "osu_cas_latency, flush (µs)" \
		"-i 2000 -x 200 $o"
	# Open MPI 4.1's default component for this one dies of SIGSEGV in
	# btl/vader here; osc/sm does it
	J_OMPI[cas]="--mca osc sm"
	job putlock osu_put_latency 2 core 2 lower \
		"osu_put_latency -s lock (µs)" "-s lock -m 8:8 -i 2000 -x 200 $o"
	job putfence osu_put_latency 2 core 2 lower \
		"osu_put_latency -s fence (µs)" "-s fence -m 8:8 -i 2000 -x 200 $o"
	job putpscw osu_put_latency 2 core 2 lower \
		"osu_put_latency -s pscw (µs)" "-s pscw -m 8:8 -i 2000 -x 200 $o"
	job putbw osu_put_bw 2 core 2 higher "osu_put_bw, flush, window 32 (MB/s)" \
		"$bw $o"
	job getbw osu_get_bw 2 core 2 higher "osu_get_bw, flush, window 32 (MB/s)" \
		"$bw $o"
	job bibw osu_put_bibw 2 core 2 higher \
		"osu_put_bibw, pscw, window 32 (MB/s)" "$bw $o"
	job acci osu_acc_latency 2 core 2 lower \
		"osu_acc_latency -T mpi_int, flush (µs)" \
		"-T mpi_int -m 4:2097152 -i 200 -x 20 $o"
	job accd osu_acc_latency 2 core 2 lower \
		"osu_acc_latency -T mpi_double, flush (µs)" \
		"-T mpi_double -m 8:2097152 -i 200 -x 20 $o"
	job gaccd osu_get_acc_latency 2 core 2 lower \
		"osu_get_acc_latency -T mpi_double, flush (µs)" \
		"-T mpi_double -m 8:2097152 -i 200 -x 20 $o"
	jobs="put get acc gacc fop cas putlock putfence putpscw putbw getbw bibw"
	jobs=${SHM_RMA_JOBS:-"$jobs acci accd gaccd"}
	header "Shared memory, one-sided, 2 ranks bound to cores 0 and 1" \
		"REPS=$REPS${SHM_RMA_JOBS:+ SHM_RMA_JOBS=\"$SHM_RMA_JOBS\"} bench/compare.sh shm-rma"
	echo "Windows of MPI_Win_allocate (OSU's default); rcmpi takes its"
	echo "shared-memory path (issue 15: one node-wide segment, copies by"
	echo "the origin, accumulates under a lock per target, lock words,"
	echo "flush a memory barrier;"
	echo "RCMPI_RMA_SHM=0 gives part 1's active messages)."
	echo "Open MPI runs with its own choice of component (osc/sm or osc/rdma"
	echo "over btl/vader), except osu_cas_latency: \`--mca osc sm\` (its default"
	echo "choice crashes there with SIGSEGV in btl/vader)."
	echo
	cmp_collect "$out" "$REPS" "$MPIS" "$jobs"
	for j in $jobs; do
		echo "#### ${J_TITLE[$j]}"
		echo
		cmp_table "$out" "$j" "$MPIS" "${J_BETTER[$j]}" "$REPS"
	done
	footer
	[[ -s $out/failures ]] && STATUS=1
}

mode_shm_mt() {
	local out=${OUT:-$BUILD/bench-compare/shm-mt} j jobs= t
	local o=${MT_OPTS:-}
	rm -rf "$out"
	for t in ${MT_THREADS:-1 2 4}; do
		job "lat$t" osu_latency_mt 2 none 2 lower \
			"osu_latency_mt, 1 sender thread, $t receiver threads (µs)" \
			"-t 1:$t -m 8:8 -i 1000 -x 100 $o"
		jobs+="lat$t "
	done
	for t in ${MT_THREADS:-1 2 4}; do
		job "mr$t" osu_mbw_mr_mt 2 none 3 higher \
			"osu_mbw_mr_mt, 1 pair, $t threads per rank (messages/s)" \
			"-t $t -m 8:8 -i 100 -x 10 $o"
		jobs+="mr$t "
	done
	# one rank, two threads on two cores (not oversubscribed)
	job sideq mt_side 1 none 2 higher \
		"mt_side query: thread 0's messages/s to itself while thread 1 queries" \
		"query 20000"
	job sideqc mt_side 1 none 3 higher \
		"mt_side query: thread 1's rounds of MPI_Comm_rank, MPI_Comm_size, MPI_Type_size per second" \
		"query 20000"
	job sidet mt_side 1 none 2 higher \
		"mt_side test: messages/s between two threads that complete windows by MPI_Testall" \
		"test 2000"
	job sideo mt_side 1 none 2 higher \
		"mt_side objects: thread 0's messages/s to itself while thread 1 makes datatypes" \
		"objects 20000"
	job sideoc mt_side 1 none 3 higher \
		"mt_side objects: thread 1's rounds of MPI_Type_vector, _commit, MPI_Pack, MPI_Type_free per second" \
		"objects 20000"
	jobs+="sideq sideqc sidet sideo sideoc "
	header "Shared memory, MPI_THREAD_MULTIPLE, 2 ranks, not bound" \
		"REPS=$REPS bench/compare.sh shm-mt"
	echo "Every MPI initialised with MPI_THREAD_MULTIPLE. osu_latency_mt: rank 0's"
	echo "sender thread ping-pongs with rank 1's receiver threads, which race"
	echo "for every message (same source and tag); osu_mbw_mr_mt: each thread"
	echo "of a rank streams windows of 64 to its partner thread on a"
	echo "communicator of its own. With more busy-polling threads than the 2"
	echo "cores these runs measure the scheduler as much as the MPI: reported,"
	echo "no gate. mt_side (bench/mt_side.c): one rank, two threads, 8-byte"
	echo "messages on a duplicate of MPI_COMM_SELF in windows of 64; query:"
	echo "thread 0 streams to itself while thread 1 calls MPI_Comm_rank,"
	echo "MPI_Comm_size and MPI_Type_size in a loop; test: thread 0 sends"
	echo "windows to thread 1, both complete them by MPI_Testall loops;"
	echo "objects: as query, thread 1 makes, commits, packs with and frees"
	echo "a vector datatype in a loop."
	[[ " $MPIS_OVER " != *" mpich "* && " $MPIS " == *" mpich "* ]] &&
		echo "MPICH left out (as in shm-over): set MPIS_OVER to include it."
	echo
	cmp_collect "$out" "$REPS" "$MPIS_OVER" "$jobs"
	for j in $jobs; do
		echo "#### ${J_TITLE[$j]}"
		echo
		cmp_table "$out" "$j" "$MPIS_OVER" "${J_BETTER[$j]}" "$REPS"
	done
	footer
	[[ -s $out/failures ]] && STATUS=1
}

# instructions of N iterations of cg_self under callgrind
cg_count() {	# mpi n variant file
	local m=$1
	# singletons: no launcher, only the rank's own instructions count
	timeout -k 10 "$TIMEOUT" valgrind --tool=callgrind \
		--callgrind-out-file="$4" "$BIN/$m/cg_self" "$2" 8 "$3" \
		>"$4.log" 2>&1 || { echo nan; return 1; }
	awk '/^totals:/ { print $2 }' "$4"
}

mode_callgrind() {
	local out=${OUT:-$BUILD/bench-compare/callgrind} m v r a b line l first
	local -A per
	rm -rf "$out"
	mkdir -p "$out"
	have valgrind || { echo "compare.sh: valgrind missing" >&2; STATUS=1; return; }
	header "Instructions per message of the software path (callgrind)" \
		"bench/compare.sh callgrind"
	echo "bench/cg_self as a singleton under \`valgrind --tool=callgrind\`: 8-byte"
	echo "messages to oneself on MPI_COMM_SELF (no other process, so no"
	echo "spin-waiting is counted); instructions of 11000 iterations minus those"
	echo "of 1000, divided by 10000 (MPI_Init and MPI_Finalize cancel); every"
	echo "thread of the process counted. Two runs each: both shown when they differ."
	echo
	for v in unexpected expected; do
		for m in $MPIS; do
			for r in 1 2; do
				a=$(cg_count "$m" 1000 "$v" "$out/$m.$v.$r.1000") || STATUS=1
				b=$(cg_count "$m" 11000 "$v" "$out/$m.$v.$r.11000") || STATUS=1
				per[$m,$v,$r]=$(awk -v a="$a" -v b="$b" 'BEGIN {
					if (a == "nan" || b == "nan") print "nan";
					else printf "%.0f\n", (b - a) / 10000 }')
			done
		done
	done
	line="| path |"
	for m in $MPIS; do line+=" $m |"; done
	first=${MPIS%% *}
	for m in ${MPIS#"$first"}; do line+=" $first/$m |"; done
	echo "$line"
	echo -n "|---|"
	for m in $MPIS ${MPIS#"$first"}; do echo -n "---:|"; done
	echo
	for v in unexpected expected; do
		if [[ $v == unexpected ]]; then
			line="| Isend + Recv + Wait (unexpected) |"
		else
			line="| Irecv + Send + Wait (expected) |"
		fi
		for m in $MPIS; do
			l=${per[$m,$v,1]}
			[[ ${per[$m,$v,2]} != "$l" ]] && l+=" / ${per[$m,$v,2]}"
			line+=" $l |"
		done
		for m in ${MPIS#"$first"}; do
			line+=" $(awk -v a="${per[$first,$v,1]}" -v b="${per[$m,$v,1]}" \
				'BEGIN { if (a == "nan" || b == "nan" || !b) print "—";
					 else printf "%.2f\n", a / b }') |"
		done
		echo "$line"
	done
	echo
	for v in unexpected expected; do
		have callgrind_annotate && [[ -s $out/$first.$v.1.11000 ]] || continue
		echo "Where $first's instructions per message go ($v path: per function,"
		echo "exclusive instructions of 11000 iterations minus those of 1000, / 10000):"
		echo
		echo '```'
		cg_per_fn "$out/$first.$v.1.1000" "$out/$first.$v.1.11000"
		echo '```'
		echo
	done
}

# exclusive instructions per iteration and function: (B - A) / 10000
cg_per_fn() {	# callgrind.out of 1000 iterations, of 11000
	local f
	for f in "$1" "$2"; do
		callgrind_annotate --auto=no --threshold=100 "$f" 2>/dev/null |
			awk '/^ *[0-9,]+ \( *[0-9.]+%\) / && !/PROGRAM TOTALS/ {
				n = $1; gsub(",", "", n)
				sub(/^ *[0-9,]+ \( *[0-9.]+%\) +/, "")
				sub(/ \[[^]]*\]$/, ""); sub(/^.*\.\.\//, "")
				print n "\t" $0 }' >"$f.fn"
	done
	awk -F'\t' 'NR == FNR { a[$2] = $1; next }
		{ d = ($1 - a[$2]) / 10000; t += d
		  if (d >= 5) printf "%6.0f  %s\n", d, $2 }
		END { printf "%6.0f  all functions\n", t }' \
		"$1.fn" "$2.fn" | sort -rn | head -25
}

mode_memory() {
	local out=${OUT:-$BUILD/bench-compare/memory}
	rm -rf "$out"
	job mem_avg osu_alltoall 0 none hwm-avg lower "VmHWM avg" "-m 8:8 -i 20 -x 2"
	job mem_max osu_alltoall 0 none hwm-max lower "VmHWM max" "-m 8:8 -i 20 -x 2"
	header "Peak resident memory per rank (VmHWM)" \
		"REPS=$REPS bench/compare.sh memory"
	echo "osu_alltoall -m 8:8 -i 20 -x 2 (every rank talks to every other; tiny"
	echo "buffers): each rank's VmHWM from /proc/self/status just before"
	echo "MPI_Finalize, in KiB. Pages of shared segments a rank touched count"
	echo "in its own RSS. 2 ranks bound, 8 ranks oversubscribed."
	echo
	cmp_collect "$out" "$REPS" "$MPIS" "mem_avg mem_max"
	echo "#### average over the ranks (KiB)"
	echo
	CMP_SIZE=ranks cmp_table "$out" mem_avg "$MPIS" lower "$REPS" |
		sed 's/is faster/uses less/'
	echo "#### largest rank (KiB)"
	echo
	CMP_SIZE=ranks cmp_table "$out" mem_max "$MPIS" lower "$REPS" |
		sed 's/is faster/uses less/'
	footer
	[[ -s $out/failures ]] && STATUS=1
}

# memory jobs: one run at 2 and one at 8 ranks, the VmHWM line's avg or max
cmp_exec_mem() {	# mpi job
	local m=$1 j=$2 n bind f
	[[ $j == mem_avg ]] && f=9 || f=11	# "... avg A max M"
	for n in 2 8; do
		bind=core
		[[ $n -gt $(nproc) ]] && bind=none
		# shellcheck disable=SC2046,SC2086
		timeout -k 10 "$TIMEOUT" $(launcher "$m" "$n" "$bind") \
			"$BIN/$m/${J_PROG[$j]}" ${J_OPTS[$j]} |
			awk -v n="$n" -v f="$f" '/^# VmHWM/ { print n, $f }'
		[[ ${PIPESTATUS[0]} -eq 0 ]] || return 1
	done
}

mode_startup() {
	local out=${OUT:-$BUILD/bench-compare/startup} cmds=() names=() m
	rm -rf "$out"
	mkdir -p "$out"
	have hyperfine || { echo "compare.sh: hyperfine missing" >&2; STATUS=1; return; }
	header "Job start-up: mpirun -n 16 hello (issue 2)" \
		"bench/compare.sh startup"
	for m in $MPIS; do
		case $m in
		rcmpi) cmds+=("$BUILD/launcher/mpirun -n 16 --oversubscribe $BIN/rcmpi/hello") ;;
		ompi) cmds+=("mpirun.openmpi --allow-run-as-root --oversubscribe -np 16 $BIN/ompi/hello") ;;
		mpich) cmds+=("mpirun.mpich -n 16 $BIN/mpich/hello") ;;
		esac
		names+=("$m")
	done
	echo "Each MPI's own mpirun and examples/hello.c built with its own mpicc,"
	echo "16 ranks on 2 cores (oversubscribed), output to /dev/null:"
	echo "\`hyperfine -N --warmup 3 --runs 20 --export-markdown ...\` with the"
	echo "commands in the first column."
	echo
	hyperfine -N --warmup 3 --runs 20 --output=null \
		--export-markdown "$out/hello16.md" --export-json "$out/hello16.json" \
		"${cmds[@]}" >"$out/hello16.txt" 2>&1 ||
		{ cat "$out/hello16.txt"; STATUS=1; return; }
	sed "s|$BUILD|BUILD|g" "$out/hello16.md"
	echo
	python3 - "$out/hello16.json" <<-'EOF'
		import json, sys
		r = json.load(open(sys.argv[1]))["results"]
		base = r[0]["median"]
		for x in r[1:]:
		    print("Median ratio rcmpi / %s: %.2f" % (x["command"].split()[0], base / x["median"]))
	EOF
	echo
	echo "### Job start-up: 2, 16, 64 ranks, one node and two daemons (issue 6)"
	echo
	echo "Command: \`test/integ/slurm.test --with-slurm test/multinode/bench-startup.sh BUILD 10\`"
	echo "(medians of hyperfine -N --warmup 2 --runs 10, every launcher of a size in"
	echo "one hyperfine run; all start rcmpi's examples/hello built with its mpicc; the two rcmpi daemons"
	echo "run on this machine through test/integ/local-agent)."
	echo
	(cd "$BUILD" && srcdir=$top top_builddir=$BUILD \
		"$top/test/integ/slurm.test" --with-slurm \
		"$top/test/multinode/bench-startup.sh" "$BUILD" 10) 2>&1 |
		grep -v '^# slurm.test' | tee "$out/multinode.md" ||
		STATUS=1
	echo
	footer
}

# ---- verbs: host side boots the VM, guest side runs the jobs ---------------

mode_tcp() {
	local out=${OUT:-$BUILD/bench-compare/tcp} labels="rcmpi-tcp ompi-tcp" p
	local o=${P2P_OPTS:-}
	have mpirun.openmpi || labels=rcmpi-tcp
	rm -rf "$out"
	job tlat osu_latency 2 core 2 lower "osu_latency over TCP (µs)" \
		"-m 0:4194304 $o"
	job tbw osu_bw 2 core 2 higher "osu_bw over TCP (MB/s)" \
		"-m 1:4194304 $o"
	header "TCP on one machine, 2 ranks bound to cores 0 and 1: rcmpi RCMPI_TRANSPORTS=tcp, Open MPI --mca pml ob1 --mca btl tcp,self" \
		"REPS=$REPS bench/compare.sh tcp"
	cmp_collect "$out" "$REPS" "$labels" "tlat tbw"
	for p in tlat tbw; do
		echo "#### ${J_TITLE[$p]}"
		echo
		cmp_table "$out" "$p" "$labels" "${J_BETTER[$p]}" "$REPS"
	done
	if [[ $labels == *ompi-tcp* ]]; then
		echo "Issue 17 goal (rcmpi within 10 % of Open MPI or better):"
		echo
		cmp_gate "$out" tlat rcmpi-tcp ompi-tcp lower 1.10 8 |
			tee "$out/gates"
		cmp_gate "$out" tbw rcmpi-tcp ompi-tcp higher 0.90 1048576 \
			2097152 4194304 | tee -a "$out/gates"
		echo
	fi
	footer
	[[ -s $out/failures ]] && STATUS=1
	grep -q FAIL "$out/gates" 2>/dev/null && STATUS=1
}

# The VM modes: OUT emptied and made the VM's work folder, the report's
# header (TITLE, COMMAND), GUEST (a command line: compare.sh --guest-...)
# run in one Soft-RoCE VM boot of at most VM_TIMEOUT seconds, then the
# guest's report (what it printed after "=== report") and its gates.
vm_mode() {	# out vm_timeout title command guest
	local out=$1 rc
	pgrep -f '^qemu-system' >/dev/null &&
		{ echo "compare.sh: a qemu VM is running already (one at a time here)" >&2; STATUS=1; return; }
	"$top/test/vm/deps.sh" --mpi >/dev/null || { STATUS=1; return; }
	rm -rf "$out"
	mkdir -p "$out"
	header "$3" "$4"
	"$top/test/vm/rxe-vm" --quiet --timeout "$2" ${VM_MEM:+--mem "$VM_MEM"} \
		--workdir "$out" -- "$5" \
		>"$out/vm.log" 2>&1
	rc=$?
	if [[ $rc -ne 0 ]]; then
		echo "The VM run failed (status $rc); its last lines:"
		echo '```'
		tail -20 "$out/vm.log"
		echo '```'
		STATUS=1
	fi
	sed -n '/^=== report$/,$p' "$out/vm.log" | sed 1d
	grep -q FAIL "$out/gates" 2>/dev/null && STATUS=1
	footer
}

mode_verbs() {
	local out=${OUT:-$BUILD/bench-compare/verbs}

	vm_mode "$out" 3000 "Verbs: Soft-RoCE (rxe0) in one qemu VM boot, 2 ranks" \
		"REPS=$REPS bench/compare.sh verbs" \
		"REPS=$REPS BUILD=$BUILD MPIS='rcmpi ompi' VERBS_LAT='${VERBS_LAT:-}' VERBS_BW='${VERBS_BW:-}' TIMEOUT=$TIMEOUT bash $top/bench/compare.sh --guest-verbs $out"
}

mode_verbs_fp() {
	local out=${OUT:-$BUILD/bench-compare/verbs-fp}

	vm_mode "$out" 3000 \
		"Verbs: the eager rings (RDMA-write fast path), Soft-RoCE (rxe0) in one qemu VM boot, 2 ranks" \
		"REPS=$REPS${FP_JOBS:+ FP_JOBS='$FP_JOBS'}${FP_LAT_N:+ FP_LAT_N=$FP_LAT_N} bench/compare.sh verbs-fp" \
		"REPS=$REPS BUILD=$BUILD MPIS='rcmpi ompi' FP_JOBS='${FP_JOBS:-}' FP_LAT_N='${FP_LAT_N:-}' TIMEOUT=$TIMEOUT STEADY=$STEADY${CMP_PROBE+ CMP_PROBE='$CMP_PROBE'} bash $top/bench/compare.sh --guest-verbs-fp $out"
}

mode_verbs_cg() {
	local out=${OUT:-$BUILD/bench-compare/verbs-cg}

	vm_mode "$out" 1800 \
		"Verbs: instructions per round trip at rank 0 (callgrind), Soft-RoCE in one VM boot" \
		"bench/compare.sh verbs-cg" \
		"BUILD=$BUILD MPIS='rcmpi ompi' TIMEOUT=$TIMEOUT bash $top/bench/compare.sh --guest-verbs-cg $out"
}

mode_verbs_rma() {
	local out=${OUT:-$BUILD/bench-compare/verbs-rma}

	# about 4.5 minutes per repetition on a loaded 2-core host
	vm_mode "$out" $((600 + REPS * 420)) \
		"Verbs, one-sided: Soft-RoCE (rxe0) in one qemu VM boot, 2 ranks" \
		"REPS=$REPS${RMA_JOBS:+ RMA_JOBS='$RMA_JOBS'}${RMA_LABELS:+ RMA_LABELS='$RMA_LABELS'} bench/compare.sh verbs-rma" \
		"REPS=$REPS RMA_JOBS='${RMA_JOBS:-}' RMA_LABELS='${RMA_LABELS:-}' BUILD=$BUILD MPIS='$MPIS'${BASE_BUILD:+ BASE_BUILD=$BASE_BUILD} TIMEOUT=$TIMEOUT STEADY=$STEADY${CMP_PROBE+ CMP_PROBE='$CMP_PROBE'} bash $top/bench/compare.sh --guest-verbs-rma $out"
}

mode_verbs_wiring() {
	local out=${OUT:-$BUILD/bench-compare/verbs-wiring}

	VM_MEM=4096 vm_mode "$out" 3000 \
		"Verbs: modex against rdma_cm wiring by job size, Soft-RoCE in one VM boot (issue 16)" \
		"REPS=$REPS bench/compare.sh verbs-wiring" \
		"REPS=$REPS BUILD=$BUILD WIRING_N='${WIRING_N:-}' TIMEOUT=$TIMEOUT bash $top/bench/compare.sh --guest-verbs-wiring $out"
}

# A table per job: with perftest's column (LABELS) where the job has a
# perftest counterpart (J_PERF), the MPIs' alone (MPIS) where not
perf_tables() {	# out jobs labels mpis
	local j
	for j in $2; do
		echo "#### ${J_TITLE[$j]}"
		echo
		if [[ -n ${J_PERF[$j]:-} ]]; then
			cmp_table "$1" "$j" "$3" "${J_BETTER[$j]}" "$REPS"
		else
			cmp_table "$1" "$j" "$4" "${J_BETTER[$j]}" "$REPS"
		fi
	done
}

# the one-sided jobs in the VM: rcmpi on its device path (rcmpi-direct) and
# with its defaults (rcmpi-verbs), Open MPI + UCX with osc/ucx, and each
# job's perftest counterpart; then issue 15's gates
guest_verbs_rma() {	# out
	local out=$1 j
	local labels="rcmpi-direct rcmpi-verbs ompi-ucx perftest perftest-avg"
	local mpis="rcmpi-direct rcmpi-verbs ompi-ucx"
	# rcmpi-base (BASE_BUILD): the same as rcmpi-direct, before a change
	if [[ " $MPIS " == *" rcmpi-base "* ]]; then
		labels="rcmpi-direct rcmpi-direct-base rcmpi-verbs ompi-ucx perftest perftest-avg"
		mpis="rcmpi-direct rcmpi-direct-base rcmpi-verbs ompi-ucx"
	fi
	# RMA_LABELS: only these (a shorter run, e.g. "rcmpi-direct perftest
	# perftest-avg")
	if [[ -n ${RMA_LABELS:-} ]]; then
		labels=$RMA_LABELS
		mpis=$(tr ' ' '\n' <<<"$labels" | grep -v '^perftest' | xargs)
	fi
	local jobs=${RMA_JOBS:-"put get fop cas acc putlock putbw getbw putbw1m getbw1m"}
	local lat="-m 8:8 -i 500 -x 50" bw="-m 65536:65536 -i 10 -x 2"
	local bw1m="-m 1048576:1048576 -i 5 -x 1"
	DEV=${RXE_VM_DEV:-rxe0}
	probe_default
	GID=$(rxe-gid -d "$DEV" | cut -d' ' -f1)
	job put osu_put_latency 2 core 2 lower "osu_put_latency, flush (µs)" "$lat"
	job get osu_get_latency 2 core 2 lower "osu_get_latency, flush (µs)" "$lat"
	job fop osu_fop_latency 2 core 2 lower "osu_fop_latency, flush (µs)" \
		"-i 500 -x 50"
	job cas osu_cas_latency 2 core 2 lower "osu_cas_latency, flush (µs)" \
		"-i 500 -x 50"
	job acc osu_acc_latency 2 core 2 lower "osu_acc_latency, flush (µs)" "$lat"
	job putlock osu_put_latency 2 core 2 lower \
		"osu_put_latency -s lock (µs)" "-s lock $lat"
	job putbw osu_put_bw 2 core 2 higher "osu_put_bw, flush, window 32 (MB/s)" "$bw"
	job getbw osu_get_bw 2 core 2 higher "osu_get_bw, flush, window 32 (MB/s)" "$bw"
	job putbw1m osu_put_bw 2 core 2 higher \
		"osu_put_bw, flush, window 32 (MB/s)" "$bw1m"
	job getbw1m osu_get_bw 2 core 2 higher \
		"osu_get_bw, flush, window 32 (MB/s)" "$bw1m"
	for j in $jobs; do
		J_OMPI[$j]="--mca osc ucx"
	done
	# perftest reports half a round trip for writes: put's is doubled
	J_PERF[put]="ib_write_lat 5 2 -n 2000"
	J_PERF[get]="ib_read_lat 5 1 -n 2000"
	J_PERF[fop]="ib_atomic_lat 5 1 -n 2000 -A FETCH_AND_ADD"
	J_PERF[cas]="ib_atomic_lat 5 1 -n 2000 -A CMP_AND_SWAP"
	J_PERF[putbw]="ib_write_bw 4 1.048576 -n 100"
	J_PERF[putbw1m]=${J_PERF[putbw]}
	J_PERF[getbw]="ib_read_bw 4 1.048576 -n 100"
	J_PERF[getbw1m]=${J_PERF[getbw]}
	cmp_collect "$out" "$REPS" "$labels" "$jobs"
	echo "=== report"
	echo "Both ranks on one rxe device (its internal loopback), qemu TCG"
	echo "emulation: absolute figures mean little, ratios within the boot do."
	echo "Windows of MPI_Win_allocate, OSU's defaults (lock once, then operation and"
	echo "MPI_Win_flush per iteration; -s lock: lock, operation, unlock)."
	echo "rcmpi-direct: \`$(launcher rcmpi-direct 2 core)\`: contiguous"
	echo "put and get of any size as RDMA WRITE/READ, 64-bit integer fetch_and_op,"
	echo "compare_and_swap and accumulate as device atomics (on one node \`auto\`"
	echo "would pick the target's CPU; across nodes it picks the device);"
	[[ " $MPIS " == *" rcmpi-base "* ]] &&
		echo "rcmpi-direct-base: the same with rcmpi $(git -C "$BASE_BUILD/.." describe --always --dirty 2>/dev/null) ($BASE_BUILD), before the change;"
	echo "rcmpi-verbs: \`$(launcher rcmpi-verbs 2 core)\`, rcmpi's defaults:"
	echo "puts and gets by RDMA too, but on one node every atomic an active"
	echo "message the target's CPU applies (part 1's path);"
	echo "ompi-ucx: \`$(launcher ompi-ucx 2 core) --mca osc ucx\`;"
	echo "perftest, the device's own figure (a pair of processes on rxe0):"
	echo "put: 2 × \`ib_write_lat -s 8 -n 2000\` (perftest reports half a round"
	echo "trip for writes; osu_put_latency's flush waits for a full one), get:"
	echo "\`ib_read_lat -s 8 -n 2000\`, fop and cas: \`ib_atomic_lat -n 2000 -A"
	echo "FETCH_AND_ADD\` and \`-A CMP_AND_SWAP\` (reads and atomics: a full round"
	echo "trip), all t_typical (a median; perftest-avg: the same runs' t_avg, a"
	echo "mean like OSU's figures); bandwidth: \`ib_write_bw\` / \`ib_read_bw -s SIZE -n"
	echo "100\`, BW average (MiB/s converted to MB/s). Benchmarks: latency"
	echo "\`$lat\` (fop, cas: 8 B, \`-i 500 -x 50\`), bandwidth \`$bw\` and"
	echo "\`$bw1m\`. acc (MPI_SUM on MPI_CHAR, as OSU's: not a device"
	echo "atomic) and put with lock/unlock have no perftest counterpart."
	echo
	perf_tables "$out" "$jobs" "$labels" "$mpis"
	echo "Issue 15 goals, rcmpi-direct against the device (perftest: within 1.2 ×"
	echo "its latency; bandwidth at 1 MiB at the device's ceiling, within 10 %)"
	echo "and against Open MPI + UCX (ahead of it: latency ≤ 1.00 ×, bandwidth ≥ 1.00 ×):"
	echo
	rma_gates "$out" "$jobs" "$labels" | tee "$out/gates"
	echo
	[[ -s $out/failures ]] && { echo "Failed runs:"; sed 's/^/- /' "$out/failures"; echo; }
	steady_report "$out" "$jobs" "$labels" "$mpis" rma_gates
}

# issue 15's gates over the runs in a folder
rma_gates() {	# dir jobs labels
	local j
	# (RMA_JOBS: only the jobs that ran)
	for j in put get fop cas; do
		[[ " $2 " == *" $j "* ]] || continue
		cmp_gate "$1" "$j" rcmpi-direct perftest lower 1.20 8
		# OSU's mean beside perftest's mean (the line above: its
		# median, which a right-skewed latency keeps lower)
		[[ " $3 " == *" perftest-avg "* ]] &&
			cmp_gate "$1" "$j" rcmpi-direct perftest-avg lower 1.20 8
	done
	for j in putbw1m getbw1m; do
		[[ " $2 " == *" $j "* ]] || continue
		cmp_gate "$1" "$j" rcmpi-direct perftest higher 0.90 1048576
	done
	for j in put get fop cas; do
		[[ " $2 " == *" $j "* && " $3 " == *" ompi-ucx "* ]] ||
			continue
		cmp_gate "$1" "$j" rcmpi-direct ompi-ucx lower 1.00 8
	done
	for j in putbw1m getbw1m; do
		[[ " $2 " == *" $j "* && " $3 " == *" ompi-ucx "* ]] ||
			continue
		cmp_gate "$1" "$j" rcmpi-direct ompi-ucx higher 1.00 1048576
	done
}

# the engine's hook for the label perftest: the job's counterpart
# J_PERF[JOB] ("TOOL FIELD SCALE ARGS...": column FIELD of TOOL's result
# line times SCALE) as a server and a client on one device, for each size
# of the job's -m (ib_atomic_lat: 8 bytes, no -s); prints nothing for a
# job without one. The label perftest-avg: a latency tool's t_avg (the
# column after t_typical, a median), to set beside OSU's averages
perftest_exec() {	# job label
	local j=$1 tool field scale rest s v lo hi sizes=
	local -a args
	[[ -n ${J_PERF[$j]:-} ]] || return 0
	read -r tool field scale rest <<<"${J_PERF[$j]}"
	if [[ ${2:-perftest} == perftest-avg ]]; then
		[[ $tool == *_lat ]] || return 0
		field=$((field + 1))
	fi
	read -r -a args <<<"$rest"
	if [[ $tool == ib_atomic_lat ]]; then
		sizes=8
	else
		lo=$(sed -n 's/.*-m \([0-9]*\):.*/\1/p' <<<"${J_OPTS[$j]}")
		hi=$(sed -n 's/.*-m [0-9]*:\([0-9]*\).*/\1/p' <<<"${J_OPTS[$j]}")
		# (a job without OSU's -m, p2p_median: 8 bytes)
		[[ -n $lo ]] || lo=8 hi=8
		for ((s = lo; s <= hi; s = s ? s * 2 : 1)); do sizes+=" $s"; done
	fi
	for s in $sizes; do
		v=
		# it sometimes exits 1 without a message under emulation: again
		for _ in 1 2 3; do
			if [[ $tool == ib_atomic_lat ]]; then
				set -- "${args[@]}"
			else
				set -- -s "$s" "${args[@]}"
			fi
			timeout 60 "$tool" -d "$DEV" -x "$GID" "$@" >/dev/null 2>&1 &
			sleep 0.5
			v=$(timeout 60 "$tool" -d "$DEV" -x "$GID" "$@" 10.99.0.1 2>/dev/null |
				awk -v f="$field" '$1 ~ /^[0-9]+$/ && NF >= 5 { print $f; exit }')
			wait
			[[ -n $v && $v != inf && $v != nan ]] && break
			v=
		done
		[[ -n $v ]] || return 1
		# perftest's MB/sec are MiB/s (SCALE 1.048576: OSU's 10^6 bytes/s)
		awk -v s="$s" -v x="$v" -v k="$scale" \
			'BEGIN { printf "%s %.2f\n", s, x * k }'
	done
}

guest_verbs() {	# out
	local out=$1 labels="rcmpi-verbs ompi-ucx perftest"
	DEV=${RXE_VM_DEV:-rxe0}
	GID=$(rxe-gid -d "$DEV" | cut -d' ' -f1)
	job vlat osu_latency 2 core 2 lower "osu_latency (µs)" \
		"${VERBS_LAT:--m 8:8 -i 2000 -x 200}"
	job vbw osu_bw 2 core 2 higher "osu_bw, window 64 (MB/s)" \
		"${VERBS_BW:--m 1048576:1048576 -i 5 -x 1}"
	J_PERF[vlat]="ib_send_lat 5 1 -n 2000"
	J_PERF[vbw]="ib_write_bw 4 1.048576 -n 100"
	cmp_collect "$out" "$REPS" "$labels" "vlat vbw"
	echo "=== report"
	echo "Both ranks on one rxe device (its internal loopback), qemu TCG"
	echo "emulation: absolute figures mean little, ratios within the boot do."
	echo "rcmpi-verbs: \`mpirun -n 2 --bind-to core -x RCMPI_TRANSPORTS=verbs\`;"
	echo "ompi-ucx: \`$(launcher ompi-ucx 2 core)\`; perftest: \`ib_send_lat -s SIZE -n 2000\`,"
	echo "\`ib_write_bw -s SIZE -n 100\` (MiB/s converted to MB/s). Benchmarks:"
	echo "\`osu_latency ${J_OPTS[vlat]}\`, \`osu_bw ${J_OPTS[vbw]}\`."
	echo
	echo "#### ${J_TITLE[vlat]}"
	echo
	cmp_table "$out" vlat "$labels" lower "$REPS"
	echo "#### ${J_TITLE[vbw]}"
	echo
	cmp_table "$out" vbw "$labels" higher "$REPS"
	echo "Issue 5 gate (latency within 10 % of Open MPI + UCX or better, bandwidth at least Open MPI's):"
	echo
	cmp_gate "$out" vlat rcmpi-verbs ompi-ucx lower 1.10 \
		"$(sed -n 's/.*-m \([0-9]*\):.*/\1/p' <<<"${J_OPTS[vlat]}")" |
		tee "$out/gates"
	cmp_gate "$out" vbw rcmpi-verbs ompi-ucx higher 1.00 \
		"$(sed -n 's/.*-m [0-9]*:\([0-9]*\).*/\1/p' <<<"${J_OPTS[vbw]}")" |
		tee -a "$out/gates"
	echo
	[[ -s $out/failures ]] && { echo "Failed runs:"; sed 's/^/- /' "$out/failures"; echo; }
}

guest_verbs_fp() {	# out
	local out=$1 labels="rcmpi-verbs rcmpi-nofp ompi-ucx perftest"
	local mpis="rcmpi-verbs rcmpi-nofp ompi-ucx"
	local jobs=${FP_JOBS:-"flat fmr fbw mlat mmr"}
	local n=${FP_LAT_N:-2000}
	DEV=${RXE_VM_DEV:-rxe0}
	GID=$(rxe-gid -d "$DEV" | cut -d' ' -f1)
	probe_default
	job flat osu_latency 2 core 2 lower "osu_latency (µs)" \
		"-m 8:8 -i $n -x $((n / 10))"
	job fmr osu_mbw_mr 2 core 3 higher "osu_mbw_mr, 1 pair, window 64 (messages/s)" \
		"-m 8:8 -i 200 -x 20"
	job fbw osu_bw 2 core 2 higher "osu_bw, window 64 (MB/s)" \
		"-m 1048576:1048576 -i 5 -x 1"
	# the same two figures as a median per iteration (bench/p2p_median):
	# like for like with perftest's t_typical, and with Open MPI's
	# figure from the same program
	job mlat p2p_median 2 core 2 lower \
		"p2p_median lat: half a round trip, median per iteration (µs)" \
		"lat $n 8"
	job mmr p2p_median 2 core 2 higher \
		"p2p_median rate: window of 64, messages/s of the median window" \
		"rate 200 8 64"
	J_PERF[flat]="ib_write_lat 5 1 -n $n"
	J_PERF[mlat]=${J_PERF[flat]}
	J_PERF[fbw]="ib_write_bw 4 1.048576 -n 100"
	cmp_collect "$out" "$REPS" "$labels" "$jobs"
	echo "=== report"
	echo "Both ranks on one rxe device (its internal loopback), qemu TCG"
	echo "emulation: absolute figures mean little, ratios within the boot do."
	echo "rcmpi-verbs: \`$(launcher rcmpi-verbs 2 core)\` (eager rings on, the"
	echo "default); rcmpi-nofp: \`$(launcher rcmpi-nofp 2 core)\` (every message"
	echo "through the SRQ); ompi-ucx: \`$(launcher ompi-ucx 2 core)\`; perftest:"
	echo "\`ib_write_lat -s 8 -n $n\` (t_typical: half a round trip, like"
	echo "osu_latency), \`ib_write_bw -s SIZE -n 100\` (MiB/s converted to MB/s)."
	echo "Benchmarks: osu_latency \`${J_OPTS[flat]}\`, osu_mbw_mr \`${J_OPTS[fmr]}\`,"
	echo "osu_bw \`${J_OPTS[fbw]}\`; bench/p2p_median \`${J_OPTS[mlat]}\` and"
	echo "\`${J_OPTS[mmr]}\` (the cycle counter read per iteration, as perftest"
	echo "does: the median iteration, not OSU's mean)."
	echo
	perf_tables "$out" "$jobs" "$labels" "$mpis"
	echo "Issue 16 goals: latency at 8 B <= 0.85 × Open MPI + UCX and <= 1.15 ×"
	echo "ib_write_lat, message rate >= Open MPI's, bandwidth unchanged (>= 0.95 ×"
	echo "without the rings):"
	echo
	fp_gates "$out" "$jobs" | tee "$out/gates"
	echo
	[[ -s $out/failures ]] && { echo "Failed runs:"; sed 's/^/- /' "$out/failures"; echo; }
	steady_report "$out" "$jobs" "$labels" "$mpis" fp_gates
}

# the CPU probe of cmp_collect, unless the caller set CMP_PROBE
probe_default() {
	CMP_PROBE=${CMP_PROBE-$BUILD/bench/cpu_probe}
	[[ -x ${CMP_PROBE:-/nonexistent} ]] || CMP_PROBE=
}

# issue 16's gates over the runs in a folder
fp_gates() {	# dir jobs
	local j
	for j in flat mlat; do
		[[ " $2 " == *" $j "* ]] || continue
		cmp_gate "$1" $j rcmpi-verbs ompi-ucx lower 0.85 8
		cmp_gate "$1" $j rcmpi-verbs perftest lower 1.15 8
	done
	for j in fmr mmr; do
		[[ " $2 " == *" $j "* ]] &&
			cmp_gate "$1" $j rcmpi-verbs ompi-ucx higher 1.00 8
	done
	[[ " $2 " == *" fbw "* ]] &&
		cmp_gate "$1" fbw rcmpi-verbs rcmpi-nofp higher 0.95 1048576
}

# The tables and gates again over the runs made on steady CPUs
# (run_compare.sh's cmp_steady; CMP_PROBE set): GATES, a function of a
# folder, the jobs and the labels, prints the gate lines (to
# OUT/gates.steady too).
steady_report() {	# out jobs labels mpis gates
	local best
	[[ -n ${CMP_PROBE:-} ]] || return 0
	best=$(cmp_steady "$1" "$STEADY")
	echo "#### The same over the runs made on steady CPUs"
	echo
	echo "bench/cpu_probe ran before and after every run: its slowest CPU's"
	echo "time for a fixed loop. A run counts here when both were at most"
	echo "$STEADY × the fastest such figure of the boot ($best ms): the host's"
	echo "cores slow down 2-3 times for seconds now and then (a neighbour on a"
	echo "sibling thread), and a run made meanwhile measures the host. Each"
	echo "cell's [N runs] says how many were left."
	echo
	perf_tables "$1/steady" "$2" "$3" "$4"
	echo "The goals over these runs:"
	echo
	"$5" "$1/steady" "$2" "$3" | tee "$1/gates.steady"
	echo
}

# rank 0 of LABEL's osu_latency under callgrind for N iterations: its
# instruction total (or nan)
vcg_count() {	# label n file
	local w=$3.sh
	cat >"$w" <<-EOF
		#!/bin/bash
		if [[ \${PMIX_RANK:-\${OMPI_COMM_WORLD_RANK:-}} == 0 ]]; then
			exec valgrind --tool=callgrind --callgrind-out-file=$3 "\$@"
		fi
		exec "\$@"
	EOF
	chmod +x "$w"
	# shellcheck disable=SC2046 # a command line
	timeout -k 10 "$TIMEOUT" $(launcher "$1" 2 core) "$w" \
		"$BIN/${1%%-*}/osu_latency" -m 8:8 -i "$2" -x 10 >"$3.log" 2>&1 ||
		{ echo nan; return 1; }
	awk '/^totals:/ { print $2 }' "$3"
}

guest_verbs_cg() {	# out
	local out=$1 l r a b
	local -A per
	DEV=${RXE_VM_DEV:-rxe0}
	for l in rcmpi-verbs rcmpi-nofp ompi-ucx; do
		for r in 1 2; do
			a=$(vcg_count "$l" 1000 "$out/$l.$r.1000")
			b=$(vcg_count "$l" 11000 "$out/$l.$r.11000")
			per[$l,$r]=$(awk -v a="$a" -v b="$b" 'BEGIN {
				if (a == "" || b == "" || a == "nan" || b == "nan") print "nan";
				else printf "%.0f\n", (b - a) / 10000 }')
		done
	done
	echo "=== report"
	echo "osu_latency -m 8:8 -x 10, rank 0 under \`valgrind --tool=callgrind\`,"
	echo "rank 1 native, both on rxe0 in one VM: rank 0's instructions of 11000"
	echo "iterations minus those of 1000, / 10000: one 8-byte send, one receive"
	echo "and the polls made while waiting, its verbs provider's user-space code"
	echo "(rxe's post_send and poll_cq) included, the kernel's not. Two runs each."
	echo "rcmpi-verbs: eager rings on (the default); rcmpi-nofp:"
	echo "\`RCMPI_VERBS_FP_RINGS=0\`; ompi-ucx: \`$(launcher ompi-ucx 2 core)\`."
	echo
	echo "| MPI | instructions per round trip (run 1 / run 2) | / ompi-ucx |"
	echo "|---|---:|---:|"
	for l in rcmpi-verbs rcmpi-nofp ompi-ucx; do
		echo "| $l | ${per[$l,1]} / ${per[$l,2]} | $(awk -v a="${per[$l,1]}" \
			-v b="${per[ompi-ucx,1]}" 'BEGIN { if (a == "nan" || b == "nan" || !b)
				print "—"; else printf "%.2f\n", a / b }') |"
	done
	echo
	if have callgrind_annotate && [[ -s $out/rcmpi-verbs.1.11000 ]]; then
		echo "Where rcmpi-verbs' instructions go (per function, exclusive, 11000"
		echo "iterations minus 1000, / 10000; the top 25):"
		echo
		echo '```'
		cg_per_fn "$out/rcmpi-verbs.1.1000" "$out/rcmpi-verbs.1.11000" | head -25
		echo '```'
		echo
	fi
}

# ---- main -------------------------------------------------------------------

# Milliseconds of wall time of a command (output to file f); "nan" when
# it fails.
wall_ms() {	# f command...
	local f=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	timeout "$TIMEOUT" "$@" >"$f" 2>&1 </dev/null || { echo nan; return; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f\n", (b - a) * 1000 }'
}

median() {	# values...
	printf '%s\n' "$@" | grep -v '^nan$' | sort -n |
		awk '{ v[NR] = $1 } END { if (!NR) print "nan";
			else if (NR % 2) print v[(NR + 1) / 2];
			else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

guest_verbs_wiring() {	# out
	local out=$1 r n w p
	local -A ms
	local ns=${WIRING_N:-4 8 16 32 48}
	for r in $(seq "$REPS"); do
		for n in $ns; do
			for w in modex rdmacm; do
				for p in hello alltoall; do
					local cmd=("$BUILD/launcher/mpirun" -n "$n"
						--oversubscribe --bind-to none
						-x RCMPI_TRANSPORTS=verbs
						-x "RCMPI_VERBS_CM=$w")
					if [[ $p == hello ]]; then
						cmd+=("$BIN/rcmpi/hello")
					else
						cmd+=("$BIN/rcmpi/osu_alltoall" -m 8:8 -i 1 -x 0)
					fi
					ms[$n,$w,$p]+=" $(wall_ms "$out/$p.$w.$n.$r" "${cmd[@]}")"
				done
			done
		done
		echo "# repetition $r of $REPS done ($(date +%H:%M:%S))" >&2
	done
	echo "=== report"
	echo "Wall time of \`mpirun -n N --oversubscribe --bind-to none -x"
	echo "RCMPI_TRANSPORTS=verbs -x RCMPI_VERBS_CM=W PROG\` in one VM (2 vCPUs,"
	echo "rxe0, every rank on it: oversubscribed beyond 2 ranks), median of $REPS"
	echo "(ms). hello: MPI_Init, a barrier, MPI_Finalize (modex creates and"
	echo "connects N - 1 QPs per rank at MPI_Init; rdma_cm connects the"
	echo "barrier's log2 N partners on first use); alltoall: \`osu_alltoall -m"
	echo "8:8 -i 1 -x 0\` (every rank talks to every other: N - 1 connections"
	echo "per rank either way)."
	echo
	echo "| ranks | hello modex | hello rdmacm | rdmacm/modex | alltoall modex | alltoall rdmacm | rdmacm/modex |"
	echo "|---:|---:|---:|---:|---:|---:|---:|"
	for n in $ns; do
		local hm hr am ar
		# shellcheck disable=SC2086 # lists of numbers
		hm=$(median ${ms[$n,modex,hello]})
		# shellcheck disable=SC2086
		hr=$(median ${ms[$n,rdmacm,hello]})
		# shellcheck disable=SC2086
		am=$(median ${ms[$n,modex,alltoall]})
		# shellcheck disable=SC2086
		ar=$(median ${ms[$n,rdmacm,alltoall]})
		echo "| $n | $hm | $hr | $(ratio "$hr" "$hm") | $am | $ar | $(ratio "$ar" "$am") |"
	done
	echo
	echo "The runs' output: \`$out/PROG.W.N.REP\`."
	echo
}

ratio() {	# a b: a / b, or a dash
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || !b)
		print "—"; else printf "%.2f\n", a / b }'
}

if [[ ${1:-} == --guest-verbs-wiring ]]; then
	guest_verbs_wiring "$2"
	exit 0
fi
if [[ ${1:-} == --guest-verbs ]]; then
	guest_verbs "$2"
	exit 0
fi
if [[ ${1:-} == --guest-verbs-cg ]]; then
	guest_verbs_cg "$2"
	exit 0
fi
if [[ ${1:-} == --guest-verbs-fp ]]; then
	guest_verbs_fp "$2"
	exit 0
fi
if [[ ${1:-} == --guest-verbs-rma ]]; then
	guest_verbs_rma "$2"
	exit 0
fi
[[ $# -gt 0 ]] || { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
modes=()
for a in "$@"; do
	case $a in
	shm) modes+=(shm-p2p shm-coll shm-over shm-rma) ;;
	all) modes+=(shm-p2p shm-coll shm-over shm-rma callgrind memory startup
		verbs verbs-rma nbr shm-mt) ;;
	shm-p2p | shm-coll | shm-over | shm-rma | shm-mt | callgrind | memory | \
		startup | verbs | verbs-fp | verbs-cg | verbs-rma | verbs-wiring | \
		nbr | tcp)
		modes+=("$a") ;;
	*) echo "compare.sh: unknown mode '$a' (see bench/compare.sh without arguments)" >&2
	   exit 2 ;;
	esac
done
[[ ${MPIS%% *} == rcmpi ]] || { echo "compare.sh: MPIS must start with rcmpi" >&2; exit 2; }
build_all
# each mode's report also goes to BUILD/bench-compare/MODE.md
for mode in "${modes[@]}"; do
	case $mode in
	verbs) MPIS="rcmpi ompi" mode_verbs ;;
	verbs-fp) MPIS="rcmpi ompi" mode_verbs_fp ;;
	verbs-cg) MPIS="rcmpi ompi" mode_verbs_cg ;;
	verbs-rma) MPIS="rcmpi ompi${BASE_BUILD:+ rcmpi-base}" mode_verbs_rma ;;
	*) "mode_${mode//-/_}" ;;
	esac > >(tee "$BUILD/bench-compare/$mode.md")
	wait $! 2>/dev/null
done
exit $STATUS
