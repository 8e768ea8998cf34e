#!/usr/bin/env bash
# Training throughput of weft (bench/bench_train.cc) beside PyTorch
# (scripts/bench_train_torch.py, Debian /usr/bin/python3) on Fashion-MNIST,
# MLP and LeNet at batch 64 and 128, with 1 and 2 threads, in one run.
# Usage: scripts/bench_train.sh [build-dir] [extra args for both, e.g. --epoch]
# Build first: cmake --build build --target weft_bench_train
# OPENBLAS_CORETYPE is left as the machine sets it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
bench="$build/bin/weft_bench_train"
[[ -x "$bench" ]] || { echo "missing $bench; build target weft_bench_train first" >&2; exit 1; }
for t in 1 2; do
  echo "== $t thread(s) =="
  OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t "$bench" "$@"
  OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t /usr/bin/python3 "$root/scripts/bench_train_torch.py" --threads "$t" "$@" | tail -n +3
  echo
done
