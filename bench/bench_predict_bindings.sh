#!/usr/bin/env bash
# What a predict call costs from Java, C# and Go over the same call from C:
# one thread, one LeNet image per call (the model bench_infer_peers.sh
# exports), OMP_NUM_THREADS=1, the languages interleaved per repetition so
# they see the same machine load. C's figure comes from the Go example's C
# loop (examples/go/lenet-serve/bench_c.go: the same predictor calls through
# weft_predictor_predict_float, timed in C), run in the same repetition.
# Each binary prints its median ns per call, for LeNet and for a tiny model
# (relu over 1x10, no weights) whose compute is negligible: the per-call cost.
# Usage: bench/bench_predict_bindings.sh [build-dir] [--reps R] [--calls N]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build" reps=3 calls=20000
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --calls) calls="$2"; shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) build="$1"; shift ;;
  esac
done
data="$build/bench_infer" sym="$build/bench_infer/lenet-symbol.json" params="$build/bench_infer/lenet-0000.params"
for tool in lenet-serve-go lenet-load-java predict-server-csharp; do
  [[ -x "$build/bin/$tool" ]] || { echo "missing $build/bin/$tool (build the examples with Go, Java and C#)" >&2; exit 1; }
done
[[ -f "$sym" ]] || { echo "no LeNet model in $data: run bench/bench_infer_peers.sh once" >&2; exit 1; }
export OMP_NUM_THREADS=1
for ((r = 1; r <= reps; ++r)); do
  "$build/bin/lenet-serve-go" bench -symbol "$sym" -params "$params" -calls "$calls" | sed "s/^/rep=$r /"
  "$build/bin/lenet-load-java" bench "$sym" "$params" "$calls" | sed "s/^/rep=$r /"
  "$build/bin/lenet-load-java" bench-tiny "$((calls * 10))" | sed "s/^/rep=$r /"
  "$build/bin/predict-server-csharp" bench "$sym" "$params" "$calls" | sed "s/^/rep=$r /"
  "$build/bin/predict-server-csharp" bench-tiny "$((calls * 10))" | sed "s/^/rep=$r /"
done
