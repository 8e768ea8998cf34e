#!/usr/bin/env bash
# The profiler's cost (bench_profiler.cc) with 1 and 2 OpenMP threads.
# Usage: bench/bench_profiler.sh [BUILD_DIR] [ARGS for weft_bench_profiler]
set -euo pipefail
build="${1:-build}"
shift || true
echo "machine: $(grep -o -m1 avx512_bf16 /proc/cpuinfo || echo 'AVX2 only (no avx512_bf16)'), $(nproc) cores"
for t in 1 2; do
  OMP_NUM_THREADS=$t "$build/bin/weft_bench_profiler" "$@" | { [[ $t == 1 ]] && cat || tail -n +3; }
done
