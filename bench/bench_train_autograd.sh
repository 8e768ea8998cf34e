#!/usr/bin/env bash
# Issue 43's training-step bench: one SGD-momentum step (forward, softmax
# cross-entropy, backward, update) of MLP b128, LeNet b64 and ResNet-18 b8 on
# the same weights and batch, three ways in one run, interleaved, at 1 and 2
# threads: weft's Gluon path (a CachedOp recorded by autograd, backward, a
# Trainer step), weft's Module, and PyTorch eager (bench/gpu/torch_train_step.py
# on the cpu, Debian /usr/bin/python3). Then CachedOp inference beside the
# Predictor on ResNet-18 b1.
# Usage: bench/bench_train_autograd.sh [build-dir] [--reps R] [--iters N]
# Needs the exported models (bench/infer_peers/export_models.py BUILD/bench_infer
# mlp lenet resnet18) and the targets weft_bench_train_step, weft_bench_cached_op.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
reps=3 iters=10
while [[ $# -gt 0 ]]; do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
data="$build/bench_infer"
step="$build/bin/weft_bench_train_step"
for f in "$step" "$build/bin/weft_bench_cached_op"; do
  [[ -x "$f" ]] || { echo "missing $f; build it first" >&2; exit 1; }
done
if [[ ! -f "$data/resnet18.pt" || ! -f "$data/mlp.pt" || ! -f "$data/lenet.pt" ]]; then
  echo "exporting models into $data"
  WEFT_EXPORT_ONNX=0 /usr/bin/python3 "$root/bench/infer_peers/export_models.py" "$data" mlp lenet resnet18
fi
echo "machine: $(nproc) cores, avx512_bf16: $(grep -o -m1 avx512_bf16 /proc/cpuinfo || echo no)"
out=$(mktemp)
for rep in $(seq 1 "$reps"); do
  for t in 1 2; do
    for mb in mlp:128 lenet:64 resnet18:8; do
      m=${mb%:*} b=${mb#*:}
      export OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t
      it=$iters; [[ $m == resnet18 ]] && it=$(( iters > 5 ? 5 : iters ))
      for mode in autograd module; do
        echo "threads=$t $("$step" "$data" "$m" "$b" --mode $mode --iters "$it" --warmup 2)" | tee -a "$out"
      done
      echo "threads=$t $(/usr/bin/python3 "$root/bench/gpu/torch_train_step.py" "$data" "$m" "$b" \
        --device cpu --iters "$it" --warmup 2)" | tee -a "$out"
    done
  done
done
echo
echo "median step ms over $reps reps (ratio to torch):"
/usr/bin/python3 - "$out" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = dict(re.findall(r"(\w+)=(\S+)", line))
    rows.setdefault((f["threads"], f["model"], f["batch"]), {}).setdefault(f["engine"], []).append(float(f["median_ms"]))
print("| threads | model | batch | weft autograd ms | weft Module ms | PyTorch ms | autograd/torch | Module/torch |")
print("|---|---|---|---|---|---|---|---|")
for (t, m, b), e in sorted(rows.items()):
    med = {k: statistics.median(v) for k, v in e.items()}
    a, mo, to = med["weft-autograd"], med["weft"], med["torch"]
    spread = lambda k: "%.1f–%.1f" % (min(e[k]), max(e[k]))
    print(f"| {t} | {m} | {b} | {a:.1f} ({spread('weft-autograd')}) | {mo:.1f} ({spread('weft')}) | {to:.1f} ({spread('torch')}) | {a/to:.2f} | {mo/to:.2f} |")
PY
rm -f "$out"
echo
for t in 1 2; do
  echo "== CachedOp vs Predictor, resnet18 b1, $t thread(s) =="
  OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t "$build/bin/weft_bench_cached_op" "$data" resnet18 1 --rounds "$reps"
done
