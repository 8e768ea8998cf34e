#!/usr/bin/env bash
# End-to-end check of one small model shaped like a real MXNet export:
# `weft run` on its symbol, parameters and inputs, every output compared with
# the PyTorch reference that scripts/gen_e2e_refs.py wrote.
#
#   e2e_test.sh WEFT_BINARY NPY_ALLCLOSE MODEL_DIR [RTOL [ATOL]]
#
# MODEL_DIR (tests/data/e2e/<model>/) holds symbol.json, model.params,
# input_<name>.npy (passed as --input <name>=...) and expected/<output>.npy,
# named as `weft run` names its outputs. The run must write exactly the
# expected outputs, each close to its reference. Exit 0 pass, 1 fail.
set -u
weft="$1"
allclose="$2"
dir="$3"
tol=("${@:4}")
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL [$(basename "$dir")]: $*" >&2
  failures=$((failures + 1))
}

args=(run --symbol "$dir/symbol.json" --params "$dir/model.params" --output-dir "$tmp/out")
shopt -s nullglob
for f in "$dir"/input_*.npy; do
  name="${f##*/input_}"
  args+=(--input "${name%.npy}=$f")
done
mkdir "$tmp/out"
"$weft" "${args[@]}" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
if [[ $rc -ne 0 ]]; then
  fail "weft ${args[*]} exited $rc: $(cat "$tmp/stderr")"
  exit 1
fi
cat "$tmp/stdout"

expected=("$dir"/expected/*.npy)
[[ ${#expected[@]} -gt 0 ]] || fail "no expected outputs in $dir/expected"
written=("$tmp"/out/*.npy)
[[ ${#written[@]} -eq ${#expected[@]} ]] ||
  fail "weft run wrote ${#written[@]} outputs ($(cd "$tmp/out" && echo *)), expected ${#expected[@]}"
for want in "${expected[@]}"; do
  got="$tmp/out/$(basename "$want")"
  if [[ ! -f "$got" ]]; then
    fail "no output $(basename "$want")"
    continue
  fi
  grep -qF -- "-> $got" "$tmp/stdout" || fail "stdout does not report $(basename "$want")"
  "$allclose" "$want" "$got" "${tol[@]}" || fail "$(basename "$want") differs from the reference"
done

if [[ $failures -gt 0 ]]; then
  echo "$(basename "$dir"): $failures failure(s)" >&2
  exit 1
fi
echo "$(basename "$dir"): ok"
