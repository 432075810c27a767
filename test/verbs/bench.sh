#!/bin/bash
# bench.sh - rcmpi over verbs vs Open MPI + UCX vs perftest, side by side in
# ONE Soft-RoCE VM boot: now `bench/compare.sh verbs` (the project's own
# osu_latency and osu_bw under both MPIs, perftest as the ceiling; REPS
# interleaved repetitions, medians, ratios, issue 5's gate).
#
#   test/verbs/bench.sh [BUILD_DIR] [REPS]     (default ./_build, 5)
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$top/_build} REPS=${2:-5} exec "$top/bench/compare.sh" verbs
