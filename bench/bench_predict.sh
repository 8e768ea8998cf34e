#!/usr/bin/env bash
# A predictor's serving throughput (bench/bench_predict.cc) with 1, 2 and 4 concurrent
# callers, one OpenMP thread per call (OMP_NUM_THREADS=1: the engine then runs one
# worker per core), LeNet and ResNet-18 at batch 1, several repetitions interleaved.
# Usage: bench/bench_predict.sh [build-dir] [--reps R] [--seconds S]
# Needs the models bench_infer_peers.sh exports (BUILD/bench_infer) and the target
# weft_bench_predict (-DWEFT_BUILD_BENCH=ON).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build" reps=3 seconds=3
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) build="$1"; shift ;;
  esac
done
bench="$build/bin/weft_bench_predict" data="$build/bench_infer"
[[ -x "$bench" ]] || { echo "missing $bench; build target weft_bench_predict first" >&2; exit 1; }
[[ -f "$data/resnet18-symbol.json" ]] || { echo "no models in $data: run bench/bench_infer_peers.sh once" >&2; exit 1; }
for ((r = 1; r <= reps; ++r)); do
  for model in lenet resnet18; do
    OMP_NUM_THREADS=1 "$bench" "$data" "$model" --callers 1,2,4 --seconds "$seconds" | sed "s/^/rep=$r /"
  done
done
