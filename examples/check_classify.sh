#!/usr/bin/env bash
# check_classify.sh LAUNCHER PREFIX EPOCH DATA_DIR N CPP_PREDICTIONS
# Runs one language's ClassifyFashion example twice: on the C++ predictions
# (must exit 0 reporting 0 disagreements) and on a copy where every class is
# shifted by one (must exit 1 reporting N disagreements), so the comparison
# itself is tested.
set -u
launcher="$1" prefix="$2" epoch="$3" data="$4" n="$5" cpp="$6"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0

"$launcher" "$prefix" "$epoch" "$data" "$n" "$cpp" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out" "$tmp/err"
if [[ $rc -ne 0 ]] || ! grep -qE "accuracy [0-9]+\.[0-9]{2}% on $n images, 0 disagreements with C\+\+$" "$tmp/out"; then
  echo "FAIL: expected exit 0 and 0 disagreements (exit $rc)"
  fail=1
fi

awk '{ print ($1 + 1) % 10 }' "$cpp" >"$tmp/shifted.txt"
"$launcher" "$prefix" "$epoch" "$data" "$n" "$tmp/shifted.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [[ $rc -ne 1 ]] || ! grep -qE "on $n images, $n disagreements with C\+\+$" "$tmp/out"; then
  echo "FAIL: with every C++ class shifted, expected exit 1 and $n disagreements (exit $rc):"
  cat "$tmp/out" "$tmp/err"
  fail=1
fi
exit $fail
