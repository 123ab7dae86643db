#!/usr/bin/env bash
# GPT small under DP and FSDP on 4 devices: 4 MPI processes (one device each) next to 4
# virtual devices of one process, each next to 1 device measured in the same invocation.
# Step time, bytes received per device per step against the ideal, and the collectives' time
# the schedule hides (in flight while computing vs waited for).
#   benchmarks/mpi_vs_threads.sh [BUILD_DIR]
set -euo pipefail
build=${1:-$(cd "$(dirname "$0")/.." && pwd)/build}
bench=$build/bin/loom-gpt-mesh-benchmark
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
echo "== 4 virtual devices in one process"
LOOM_CPU_DEVICES=4 "$bench"
echo
echo "== 4 MPI processes"
mpirun "${flags[@]}" -np 4 "$bench"
