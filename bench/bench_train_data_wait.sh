#!/usr/bin/env bash
# Issue 44's data-wait bench: `weft train --data x.rec` (ImageRecordIter
# decoding and augmenting on preprocess_threads workers ahead of the trainer)
# and the share of step time the training loop spends blocked in the
# iterator's Next(), which Fit prints per epoch as "Epoch[N] Data wait: X %
# of step time". Fashion-MNIST training images written as grayscale PNG files
# (scripts/idx_to_image_tree.py), packed by `weft im2rec`, then:
#   lenet     LeNet (examples/models/lenet-symbol.json) on 1x28x28, batch 64;
#   resnet18  ResNet-18 (bench/resnet18_train_symbol.py, 3x3 stem) on 3x32x32
#             decoded as RGB, resize=36 + rand_crop + rand_mirror, batch 32;
#   lenet-aug LeNet with a per-image affine warp (max_rotate_angle=10,
#             max_shear_ratio=0.1) and rand_mirror, more work for the workers.
#   lenet-idx the same LeNet training from the IDX files (no decoding: the
#             baseline of the CPU cost per image).
# each with preprocess_threads 1 and 2 (and --threads), one after the other;
# prints a markdown table: images/s of the last epoch, each epoch's data-wait
# share, and the run's CPU milliseconds per training image (user + system).
# Usage: bench/bench_train_data_wait.sh [build-dir] [--n 10000] [--resnet-n 1024]
#                                       [--epochs 2] [--threads "1 2"] [--models "lenet-idx lenet lenet-aug resnet18"]
# Needs Debian's dataset-fashion-mnist and /usr/bin/python3 with numpy and Pillow.
# Not a test: the shares depend on the machine and on what else runs on it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"
if [[ $# -gt 0 && $1 != --* ]]; then build="$1"; shift; fi
n=10000 resnet_n=1024 epochs=2 threads="1 2" models="lenet-idx lenet lenet-aug resnet18"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --n) n="$2"; shift 2 ;;
    --resnet-n) resnet_n="$2"; shift 2 ;;
    --epochs) epochs="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
weft="$build/bin/weft"
[[ -x $weft ]] || weft="$build/tools/weft"
[[ -x $weft ]] || { echo "no weft binary under $build; build it first" >&2; exit 1; }
fm=/usr/share/datasets/fashion-mnist
python=/usr/bin/python3
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "machine: $(nproc) cores, avx512_bf16: $(grep -o -m1 avx512_bf16 /proc/cpuinfo || echo no)," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
pack() {  # pack NAME COUNT
  "$python" "$root/scripts/idx_to_image_tree.py" "$fm/train-images-idx3-ubyte.gz" \
    "$fm/train-labels-idx1-ubyte.gz" "$tmp/png_$1" --limit "$2"
  "$weft" im2rec "$tmp/$1" "$tmp/png_$1" --list --recursive > /dev/null
  "$weft" im2rec "$tmp/$1" "$tmp/png_$1" --encoding .png --num-thread 2 > /dev/null
}
pack lenet "$n"
[[ $models == *resnet18* ]] && pack resnet "$resnet_n"
"$python" "$root/bench/resnet18_train_symbol.py" "$tmp/resnet18-symbol.json"

rows=()
run() {  # run MODEL THREADS
  local model=$1 t=$2
  local args=() rec=(--rec-param scale=0.00392156862745098 --rec-param preprocess_threads="$t")
  local lenet="$root/examples/models/lenet-symbol.json" images=$n
  case "$model" in
    lenet-idx) args=(--symbol "$lenet" --limit "$n" --batch-size 64) rec=() ;;
    lenet) args=(--symbol "$lenet" --data "$tmp/lenet.rec" --data-shape 1,28,28 --batch-size 64) ;;
    lenet-aug) args=(--symbol "$lenet" --data "$tmp/lenet.rec" --data-shape 1,28,28 --batch-size 64
                     --rec-train-param max_rotate_angle=10 --rec-train-param max_shear_ratio=0.1
                     --rec-train-param rand_mirror=1) ;;
    resnet18) images=$resnet_n
              args=(--symbol "$tmp/resnet18-symbol.json" --data "$tmp/resnet.rec"
                    --data-shape 3,32,32 --batch-size 32 --rec-train-param resize=36
                    --rec-train-param rand_crop=1 --rec-train-param rand_mirror=1) ;;
    *) echo "unknown model $model" >&2; exit 2 ;;
  esac
  local TIMEFORMAT='%U %S %R'
  { time "$weft" train "${args[@]}" --epochs "$epochs" --optimizer sgd --progress epoch "${rec[@]}" \
      > "$tmp/out" 2>&1; } 2> "$tmp/time" || { cat "$tmp/out"; exit 1; }
  local wait rate cpu
  wait=$(sed -n 's/^Epoch\[[0-9]*\] Data wait: \([0-9.]*\) %.*/\1/p' "$tmp/out" | tr '\n' ' ')
  rate=$(sed -n 's/^training throughput: \([0-9]*\) images.*/\1/p' "$tmp/out")
  # CPU milliseconds per training image (user + system over every epoch;
  # the IDX run has no decoding: the difference is the pipeline's cost).
  cpu=$(awk -v u="$(cut -d' ' -f1 "$tmp/time")" -v s="$(cut -d' ' -f2 "$tmp/time")" \
    -v n="$images" -v e="$epochs" 'BEGIN { printf "%.3f", (u + s) * 1000 / (n * e) }')
  [[ $model == lenet-idx ]] && t="- (IDX)"
  echo "$model preprocess_threads=$t: ${rate} images/s, data wait per epoch: ${wait}%, CPU ${cpu} ms/image"
  rows+=("| $model | $t | $rate | ${wait% } | $cpu |")
}
for model in $models; do
  if [[ $model == lenet-idx ]]; then run "$model" 0; continue; fi
  for t in $threads; do run "$model" "$t"; done
done
echo
echo "| model | preprocess_threads | images/s (last epoch) | data wait, % of step time per epoch | CPU ms / image |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
