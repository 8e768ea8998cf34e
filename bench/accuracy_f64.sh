#!/usr/bin/env bash
# How far Weft's float32 inference is from exact, with and without the inference passes: for
# each case, `weft run` on the bench's stored input with WEFT_EXEC_OPTIMIZE=1 (the default
# passes: folded BatchNorm, fused activations and residual adds, blocked layouts, Winograd)
# and =0, then bench/infer_peers/float64_reference.py runs the same PyTorch model in float64
# and prints each output's relative difference (max |out - ref| / max |ref|) from it, beside
# PyTorch float32's. The issue-41 criterion "optimised equals unoptimised within 1e-5" is
# printed too (optimised vs unoptimised). Not a test: a measurement for bench/README.md.
# Usage: bench/accuracy_f64.sh [build-dir] [--cases "resnet50:8 bert:1"]
# Needs the models bench_infer_peers.sh exported into BUILD/bench_infer and BUILD/bin/weft.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"
cases="mlp:128 lenet:64 resnet18:8 resnet50:1 resnet50:8 mobilenetv2:16 bert:8 lstm_lm:20"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --cases) cases="$2"; shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) build="$(cd "$1" && pwd)"; shift ;;
  esac
done
data="$build/bench_infer"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for c in $cases; do
  model="${c%%:*}" batch="${c##*:}"
  for opt in 1 0; do
    WEFT_EXEC_OPTIMIZE=$opt "$build/bin/weft" run --symbol "$data/$model-symbol.json" \
      --params "$data/$model-0000.params" --input "data=$data/$model-b$batch-input.npy" \
      --output-dir "$work/opt$opt" > /dev/null
    mv "$(ls "$work/opt$opt"/*.npy | head -1)" "$work/optimised$opt.npy"
  done
  /usr/bin/python3 - "$work/optimised1.npy" "$work/optimised0.npy" "$c" <<'PY'
import sys
import numpy as np
a, b = np.load(sys.argv[1]).astype(np.float64), np.load(sys.argv[2]).astype(np.float64)
print("%s: optimised vs unoptimised %.3g" % (sys.argv[3], np.abs(a - b).max() / np.abs(b).max()))
PY
  /usr/bin/python3 "$root/bench/infer_peers/float64_reference.py" "$data" "$model" "$batch" \
    "$work/optimised1.npy" "$work/optimised0.npy"
done
