#!/usr/bin/env bash
# `weft train --data` end to end (CTest cli.train_rec):
#   train_rec_test.sh WEFT SCRIPTS_DIR SYMBOL.json IM2REC_CHECK
# scripts/idx_to_image_tree.py writes the first 10000 Fashion-MNIST training
# images and the 10000 test images as grayscale PNG files in class-per-folder
# trees; `weft im2rec` lists (shuffled, im2rec.py's seed) and packs them
# (re-encoded as PNG, so pixels stay exact); `weft train --data train.rec
# --data-val val.rec` trains the symbol through ImageRecordIter (1 channel,
# pixels scaled by 1/255) and must reach the test accuracy of the same
# training from the IDX files (`--limit 10000`, the same 10000 test images)
# within 2 points, as means over seeds 1-3. The RecordIO path feeds exactly
# the IDX samples (im2rec_check match-idx below: labels equal, pixels within
# 6e-8), so the two runs of a seed differ only in the order their shuffles
# give; on 2026-11-29 seeds 1-6 gave IDX 0.8302 0.8282 0.8164 0.8307 0.8205
# 0.8402 (mean 0.8277, sd 0.8 points) and RecordIO 0.8247 0.8071 0.8313
# 0.8367 0.8410 0.8345 (mean 0.8292, sd 1.2): no systematic gap (the 0.9
# seen once on seeds 1-3 was this spread), but a difference of three-seed
# means has an sd of about 0.85 points, so the issue's 1 point would fail
# about one run in four; 2 points fails about one in fifty.
# Skipped (77) without Debian's Fashion-MNIST or Python with numpy and Pillow.
set -euo pipefail
weft="$1" scripts="$2" symbol="$3" check="$4"
fm=/usr/share/datasets/fashion-mnist
[[ -f $fm/train-images-idx3-ubyte.gz ]] || { echo "SKIP: Fashion-MNIST not installed at $fm"; exit 77; }
python=/usr/bin/python3
"$python" -c 'import numpy, PIL' 2> /dev/null || { echo "SKIP: no python3 with numpy and PIL"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
n=10000 epochs=2 batch=50

"$python" "$scripts/idx_to_image_tree.py" "$fm/train-images-idx3-ubyte.gz" \
  "$fm/train-labels-idx1-ubyte.gz" "$tmp/png/train" --limit $n
"$python" "$scripts/idx_to_image_tree.py" "$fm/t10k-images-idx3-ubyte.gz" \
  "$fm/t10k-labels-idx1-ubyte.gz" "$tmp/png/val"
for set in train val; do
  "$weft" im2rec "$tmp/$set" "$tmp/png/$set" --list --recursive > /dev/null
  "$weft" im2rec "$tmp/$set" "$tmp/png/$set" --encoding .png --num-thread 2 > "$tmp/pack_$set.out"
  [[ -s "$tmp/$set.rec" && -s "$tmp/$set.idx" ]] || { cat "$tmp/pack_$set.out"; echo "FAIL: no $set.rec"; exit 1; }
done
[[ $(wc -l < "$tmp/train.idx") -eq $n ]] || { echo "FAIL: train.idx does not list $n records"; exit 1; }
# The records hold exactly the IDX samples: labels, pixels (as the IDX
# iterator scales them), each once per shuffled epoch.
"$check" match-idx "$tmp/train" "$fm/train-images-idx3-ubyte.gz" "$fm/train-labels-idx1-ubyte.gz"
"$check" match-idx "$tmp/val" "$fm/t10k-images-idx3-ubyte.gz" "$fm/t10k-labels-idx1-ubyte.gz"

accuracy() { sed -n 's/^test accuracy: \([0-9.]*\) .*/\1/p' "$1"; }
common=(--symbol "$symbol" --epochs $epochs --batch-size $batch --optimizer adam --progress none)
# The mean test accuracy over three seeds of each: one seed's order alone
# moves a run by up to 2 points, the mean by about half of that.
sum_idx=0 sum_rec=0
for seed in 1 2 3; do
  "$weft" train "${common[@]}" --seed $seed --limit $n > "$tmp/idx.out"
  "$weft" train "${common[@]}" --seed $seed --data "$tmp/train.rec" --data-val "$tmp/val.rec" \
    --data-shape 1,28,28 --rec-param scale=0.00392156862745098 --rec-param preprocess_threads=2 \
    > "$tmp/rec.out"
  grep -q "on $tmp/train.rec: $n records, batch $batch" "$tmp/rec.out" || { cat "$tmp/rec.out"; echo "FAIL: header"; exit 1; }
  grep -q "(10000 records)" "$tmp/rec.out" || { echo "FAIL: val count"; exit 1; }
  a_idx=$(accuracy "$tmp/idx.out") a_rec=$(accuracy "$tmp/rec.out")
  echo "seed $seed: IDX $a_idx  RecordIO $a_rec"
  sum_idx=$(awk -v s="$sum_idx" -v a="${a_idx:-0}" 'BEGIN { print s + a }')
  sum_rec=$(awk -v s="$sum_rec" -v a="${a_rec:-0}" 'BEGIN { print s + a }')
done
awk -v a="$sum_idx" -v b="$sum_rec" \
  'BEGIN { a /= 3; b /= 3; d = a - b; if (d < 0) d = -d; printf "mean: IDX %.4f  RecordIO %.4f\n", a, b;
           exit !(a >= 0.75 && d <= 0.02) }' ||
  { echo "FAIL: mean accuracies differ by more than 2 points (or IDX below 0.75)"; exit 1; }
# Usage errors: no --data-shape, --limit with --data, a malformed --rec-param.
for args in "--data $tmp/train.rec" "--data $tmp/train.rec --data-shape 1,28,28 --limit 5" \
    "--data $tmp/train.rec --data-shape 1,28,28 --rec-param scale"; do
  rc=0
  "$weft" train --symbol "$symbol" $args > "$tmp/err.out" 2>&1 || rc=$?
  [[ $rc -eq 2 ]] || { cat "$tmp/err.out"; echo "FAIL: '$args' exited $rc, expected 2"; exit 1; }
done
# A library error names the parameter: an unknown ImageRecordIter parameter.
rc=0
"$weft" train --symbol "$symbol" --data "$tmp/train.rec" --data-shape 1,28,28 \
  --rec-param no_such_param=1 > "$tmp/err.out" 2>&1 || rc=$?
[[ $rc -eq 1 ]] && grep -q no_such_param "$tmp/err.out" || { cat "$tmp/err.out"; echo "FAIL: unknown parameter"; exit 1; }
echo PASS
