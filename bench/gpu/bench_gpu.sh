#!/usr/bin/env bash
# ResNet-18 inference on gpu(0): weft (bench/bench_infer.cc, C ABI, --ctx gpu; once more
# with recorded device graphs, WEFT_CUDA_GRAPHS=1, marked graphs=1) beside
# PyTorch on the same GPU (bench/infer_peers/torch_bench.py --device cuda, TF32 off, both
# taking cuDNN's heuristic algorithms: weft's default, torch's cudnn.benchmark off) on
# the same weights and inputs, interleaved: for each rep, for each batch, weft then
# PyTorch. Both time forward plus the copy of the output to the host, and both check the
# output against PyTorch's CPU output (1e-4 relative).
# With --train TRAIN_BINARY (weft_bench_train_step) each rep also times a ResNet-18 training
# step at batch 32 (forward, backward, SGD-momentum update, on gpu(0)) beside PyTorch's
# (bench/gpu/torch_train_step.py): the same weights, one random batch, train-mode BatchNorm,
# and once more with weft timing cuDNN's algorithms (WEFT_CUDNN_AUTOTUNE=1, marked autotune=1).
# With --amp "float16 bfloat16" (default float16; "" for none) each rep and batch also times
# weft's AMP-converted model (--amp: MXNet's lists, cuDNN/cuBLAS on tensor cores; eager and
# graphs=1) beside PyTorch's model.to(dtype) (torch_bench.py --dtype), both within 10 %
# of the float32 output and reporting top1_agree.
# Usage: bench/gpu/bench_gpu.sh BENCH_BINARY DATA_DIR [--reps R] [--iters N] [--batches "1 32"]
#          [--train TRAIN_BINARY] [--amp DTYPES]
# DATA_DIR is made by bench/infer_peers/export_models.py DATA_DIR resnet18 when missing
# (WEFT_EXPORT_ONNX=0: no ONNX file). PYTHON (default python3) must have torch with CUDA.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bench="$1" data="$2"
shift 2
reps=3 iters=50 batches="1 32" py="${PYTHON:-python3}" train="" amp="float16"
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --batches) batches="$2"; shift 2 ;;
    --train) train="$2"; shift 2 ;;
    --amp) amp="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
if [ ! -f "$data/resnet18-b32-output.npy" ]; then
  WEFT_EXPORT_ONNX=0 "$py" "$root/bench/infer_peers/export_models.py" "$data" resnet18
fi
for rep in $(seq 1 "$reps"); do
  for b in $batches; do
    echo "$("$bench" "$data" resnet18 "$b" --ctx gpu --iters "$iters" --warmup 10) rep=$rep"
    echo "$(WEFT_CUDA_GRAPHS=1 "$bench" "$data" resnet18 "$b" --ctx gpu --iters "$iters" \
      --warmup 10) rep=$rep graphs=1"
    echo "$("$py" "$root/bench/infer_peers/torch_bench.py" "$data" resnet18 "$b" --device cuda \
      --iters "$iters" --warmup 10) rep=$rep"
    for t in $amp; do
      echo "$("$bench" "$data" resnet18 "$b" --ctx gpu --iters "$iters" --warmup 10 --amp "$t" \
        --tolerance 0.1) rep=$rep"
      echo "$(WEFT_CUDA_GRAPHS=1 "$bench" "$data" resnet18 "$b" --ctx gpu --iters "$iters" \
        --warmup 10 --amp "$t" --tolerance 0.1) rep=$rep graphs=1"
      echo "$("$py" "$root/bench/infer_peers/torch_bench.py" "$data" resnet18 "$b" --device cuda \
        --iters "$iters" --warmup 10 --dtype "$t" --tolerance 0.1) rep=$rep"
    done
  done
  if [ -n "$train" ]; then
    echo "$("$train" "$data" resnet18 32 --ctx gpu --iters 20 --warmup 5) rep=$rep"
    echo "$(WEFT_CUDNN_AUTOTUNE=1 "$train" "$data" resnet18 32 --ctx gpu --iters 20 --warmup 5) rep=$rep autotune=1"
    echo "$("$py" "$root/bench/gpu/torch_train_step.py" "$data" resnet18 32 --device cuda \
      --iters 20 --warmup 5) rep=$rep"
  fi
done
