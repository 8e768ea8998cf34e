#!/usr/bin/env bash
# Dynamic batching of a predictor (bench/bench_predict.cc) against no batching, and the
# two request queues (mutex, Boost.Lockfree) against each other: LeNet and ResNet-18 at
# batch 1 with 1..16 concurrent callers, one OpenMP thread per call, the three variants
# interleaved per repetition.
# Usage: bench/bench_predict_batching.sh [build-dir] [--reps R] [--seconds S]
#          [--callers 1,4,8,16] [--max-batch B] [--delay-us D] [--models "lenet resnet18"]
# Needs the models bench_infer_peers.sh exports (BUILD/bench_infer) and the target
# weft_bench_predict (-DWEFT_BUILD_BENCH=ON).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build" reps=3 seconds=3 callers=1,4,8,16 max_batch=8 delay=0 models="lenet resnet18"
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --callers) callers="$2"; shift 2 ;;
    --max-batch) max_batch="$2"; shift 2 ;;
    --delay-us) delay="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) build="$1"; shift ;;
  esac
done
bench="$build/bin/weft_bench_predict" data="$build/bench_infer"
[[ -x "$bench" ]] || { echo "missing $bench; build target weft_bench_predict first" >&2; exit 1; }
[[ -f "$data/resnet18-symbol.json" ]] || { echo "no models in $data: run bench/bench_infer_peers.sh once" >&2; exit 1; }
for ((r = 1; r <= reps; ++r)); do
  for model in $models; do
    run() { OMP_NUM_THREADS=1 "$bench" "$data" "$model" --callers "$callers" --seconds "$seconds" "$@" | sed "s/^/rep=$r /"; }
    run
    run --max-batch "$max_batch" --batch-delay-us "$delay" --batch-queue mutex
    run --max-batch "$max_batch" --batch-delay-us "$delay" --batch-queue lockfree
  done
done
