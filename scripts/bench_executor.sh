#!/usr/bin/env bash
# Weft executor bench beside the PyTorch baseline, with 1 and 2 threads.
# Prints weft's memory-plan table once, then the fwd+bwd time tables of
# weft (bench/bench_executor.cc) and torch (scripts/bench_executor_torch.py,
# run with the Debian /usr/bin/python3) for each thread count.
# Usage: scripts/bench_executor.sh [build-dir] [extra args for both, e.g. --resnet-size 224]
# Build first: cmake --build build --target weft_bench_executor
# OPENBLAS_CORETYPE is left as the machine sets it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
bench="$build/bin/weft_bench_executor"
[[ -x "$bench" ]] || { echo "missing $bench; build target weft_bench_executor first" >&2; exit 1; }

OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$bench" --no-time "$@"
for t in 1 2; do
  echo "== $t thread(s) =="
  OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t "$bench" --no-memory "$@"
  echo
  OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t /usr/bin/python3 "$root/scripts/bench_executor_torch.py" --threads "$t" "$@"
  echo
done
