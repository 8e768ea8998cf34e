#!/usr/bin/env bash
# The executor / imperative two-branch FC bench (bench/bench_executor_engine.cc)
# on each engine: naive, threaded with 1 worker, threaded with 2 workers.
# The global engine is fixed per process, so weft_bench runs once per engine.
# OpenBLAS and OpenMP get one thread each, so the speed-up measured is the
# engine's branch parallelism, not BLAS's threads.
# Usage: scripts/bench_executor_engine.sh [build-dir] [extra Google Benchmark args]
# Build first: cmake --build build --target weft_bench
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
bench="$build/bin/weft_bench"
[[ -x "$bench" ]] || { echo "missing $bench; build target weft_bench first" >&2; exit 1; }
filter='--benchmark_filter=TwoBranchFc|TinyOpChain'
for cfg in "naive 1" "threaded 1" "threaded 2"; do
  read -r kind threads <<<"$cfg"
  echo "== WEFT_ENGINE=$kind WEFT_ENGINE_THREADS=$threads =="
  WEFT_ENGINE=$kind WEFT_ENGINE_THREADS=$threads OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
    "$bench" "$filter" "$@"
done
