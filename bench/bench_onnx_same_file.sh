#!/usr/bin/env bash
# Issue 47's bench: the same .onnx file in Weft (imported by `weft import`,
# timed by weft_bench_infer) and in ONNX Runtime (bench/infer_peers/ort_bench.js,
# onnxruntime-node), interleaved, 1 and 2 threads. The .onnx files, inputs
# and reference outputs are bench_infer_peers.sh's (run it once first: it
# exports them from PyTorch into BUILD/bench_infer and installs the peers).
# Usage: bench/bench_onnx_same_file.sh [build-dir] [--reps 3] [--iters 10] [--warmup 3]
#                                      [--cases "resnet50:1 mobilenetv2:1 bert:1 resnet18:1"]
# Prints a markdown table (bench/infer_peers/table.py). Not a test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build" reps=3 iters=10 warmup=3 cases="resnet50:1 mobilenetv2:1 bert:1 resnet18:1"
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --cases) cases="$2"; shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) build="$1"; shift ;;
  esac
done
build="$(cd "$build" && pwd)"
src="$build/bench_infer" node_dir="$build/ort_node" peers="$root/bench/infer_peers"
for f in "$build/bin/weft" "$build/bin/weft_bench_infer"; do
  [[ -x $f ]] || { echo "missing $f; build it first" >&2; exit 1; }
done
[[ -d "$node_dir/node_modules/onnxruntime-node" ]] || {
  echo "no onnxruntime-node under $node_dir: run bench/bench_infer_peers.sh once" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, avx512_bf16: $(grep -o -m1 avx512_bf16 /proc/cpuinfo || echo no)," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
for c in $cases; do  # import each model's .onnx once (static shapes of this batch)
  model="${c%:*}" batch="${c#*:}" dir="$tmp/$model-$batch"
  mkdir -p "$dir"
  shape=$(/usr/bin/python3 -c "import numpy; print(','.join(map(str, numpy.load('$src/$model-b$batch-input.npy').shape)))")
  "$build/bin/weft" import "$src/$model.onnx" -o "$dir/$model" --shape "data=$shape" > /dev/null
  cp "$src/$model.onnx" "$src/$model-b$batch-input.npy" "$src/$model-b$batch-output.npy" "$dir/"
done
rows="$tmp/rows"
for ((rep = 1; rep <= reps; ++rep)); do
  for t in 1 2; do
    for c in $cases; do
      model="${c%:*}" batch="${c#*:}" dir="$tmp/$model-$batch"
      args=("$dir" "$model" "$batch" --iters "$iters" --warmup "$warmup")
      echo "$(OMP_NUM_THREADS=$t "$build/bin/weft_bench_infer" "${args[@]}") rep=$rep" | tee -a "$rows"
      echo "$(NODE_PATH="$node_dir/node_modules" node "$peers/ort_bench.js" "${args[@]}" --threads "$t") rep=$rep" \
        | tee -a "$rows"
    done
  done
done
echo
echo "== the same .onnx file: Weft (imported) and ONNX Runtime, median ms over $reps reps =="
/usr/bin/python3 "$peers/table.py" "$rows" median
