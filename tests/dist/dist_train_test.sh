#!/usr/bin/env bash
# `weft train --kvstore dist_sync` under mpirun -np 2 reaches the accuracy of
# one process with the same global batch after 1 epoch of Fashion-MNIST
# (within 1 point), and only rank 0 prints. Usage: dist_train_test.sh MPIRUN WEFT MLP_JSON
set -euo pipefail
mpirun=$1 weft=$2 mlp=$3
accuracy() { sed -n 's/^test accuracy: \([0-9.]*\).*/\1/p' <<<"$1"; }
one=$("$weft" train --symbol "$mlp" --batch-size 128 --progress none)
two=$("$mpirun" --allow-run-as-root --oversubscribe -np 2 "$weft" train --symbol "$mlp" --batch-size 64 \
  --kvstore dist_sync --progress none)
echo "$two"
a1=$(accuracy "$one") a2=$(accuracy "$two")
echo "1 process, batch 128: $a1; 2 processes x batch 64 (dist_sync): $a2"
[[ $(grep -c '^test accuracy' <<<"$two") -eq 1 ]] || { echo "FAIL: expected one report (rank 0 only)"; exit 1; }
awk -v a="$a1" -v b="$a2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01) }' ||
  { echo "FAIL: accuracies differ by more than 0.01"; exit 1; }
echo PASS
