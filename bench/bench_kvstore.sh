#!/usr/bin/env bash
# Distributed training on this machine (bench/README.md, "Distributed
# training"): Fashion-MNIST training throughput of 1 process x 2 threads vs
# 2 processes x 1 thread (dist_sync, same global batch), interleaved, then
# the allreduce and step-time figures of weft_bench_kvstore.
# Usage: bench/bench_kvstore.sh [BUILD_DIR] [--reps N]
set -euo pipefail
build=${1:-build}
reps=3
[[ ${2:-} == --reps ]] && reps=$3
weft=$build/bin/weft
mpirun=(mpirun --allow-run-as-root --oversubscribe)
one_thread=(-x OMP_NUM_THREADS=1 -x OPENBLAS_NUM_THREADS=1)
rate() { sed -n 's/^training throughput: \([0-9]*\).*/\1/p'; }
acc() { sed -n 's/^test accuracy: \([0-9.]*\).*/\1/p'; }
echo "model  global-batch  rep  1 proc x 2 threads (img/s, acc)  2 procs x 1 thread (img/s total, acc)"
for model in mlp lenet; do
  json=examples/models/$model-symbol.json
  for r in $(seq "$reps"); do
    a=$("$weft" train --symbol "$json" --batch-size 128 --progress none)
    b=$("${mpirun[@]}" "${one_thread[@]}" -np 2 "$weft" train --symbol "$json" --batch-size 64 \
      --kvstore dist_sync --progress none)
    printf "%-6s %12s %4s  %16s %8s  %22s %8s\n" "$model" 128 "$r" "$(rate <<<"$a")" "$(acc <<<"$a")" \
      "$(($(rate <<<"$b") * 2))" "$(acc <<<"$b")"
  done
done
echo
"${mpirun[@]}" -np 2 "$build/bin/weft_bench_kvstore" allreduce --reps 7
for model in mlp lenet; do
  "${mpirun[@]}" "${one_thread[@]}" -np 2 "$build/bin/weft_bench_kvstore" train \
    examples/models/$model-symbol.json --batch 64 --steps 20 --reps 5
done
