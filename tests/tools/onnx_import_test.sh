#!/usr/bin/env bash
# `weft import` and `weft run --symbol M.onnx` end to end on the PyTorch
# exports of tests/data/onnx/ (scripts/make_onnx_import_models.py): the
# imported checkpoint and the .onnx run directly (a model with dynamic axes
# among them) give PyTorch's stored outputs (npy_allclose, rtol 1e-5, atol
# 1e-6); an unsupported model fails
# with exit 1 naming every unsupported node.
#
#   onnx_import_test.sh WEFT_BINARY NPY_ALLCLOSE DATA_DIR
set -u
weft="$1"
allclose="$2"
data="$3"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# The single output `weft run` wrote into DIR, compared with MODEL's reference.
check_output() {
  local dir="$1" model="$2" outs=("$1"/*.npy)
  [[ ${#outs[@]} -eq 1 ]] || { fail "$model: expected one output in $dir, got ${outs[*]}"; return; }
  "$allclose" "$data/$model.output0.npy" "${outs[0]}" 1e-5 1e-6 || fail "$model: output differs"
}

for model in resnet lenet einsum_att; do
  "$weft" import "$data/$model.onnx" -o "$tmp/$model" >"$tmp/stdout" 2>"$tmp/stderr" ||
    fail "import $model: $(cat "$tmp/stderr")"
  grep -q "imported $data/$model.onnx: $tmp/$model-symbol.json, $tmp/$model-0000.params" \
    "$tmp/stdout" || fail "import $model: stdout $(cat "$tmp/stdout")"
  mkdir -p "$tmp/ck_$model" "$tmp/direct_$model"
  "$weft" run --symbol "$tmp/$model-symbol.json" --params "$tmp/$model-0000.params" \
    --input "input0=$data/$model.input0.npy" --output-dir "$tmp/ck_$model" >/dev/null 2>"$tmp/stderr" ||
    fail "run checkpoint $model: $(cat "$tmp/stderr")"
  check_output "$tmp/ck_$model" "$model"
  "$weft" run --symbol "$data/$model.onnx" --input "input0=$data/$model.input0.npy" \
    --output-dir "$tmp/direct_$model" >/dev/null 2>"$tmp/stderr" ||
    fail "run $model.onnx: $(cat "$tmp/stderr")"
  check_output "$tmp/direct_$model" "$model"
done

# Dynamic batch and sequence axes: `weft run` gives the --input arrays'
# shapes to the import, so the model's Shape computations fold.
mkdir -p "$tmp/dyn"
"$weft" run --symbol "$data/bert_dyn.onnx" --input "input0=$data/bert_dyn.input0.npy" \
  --input "input1=$data/bert_dyn.input1.npy" --output-dir "$tmp/dyn" >/dev/null 2>"$tmp/stderr" ||
  fail "run bert_dyn.onnx: $(cat "$tmp/stderr")"
"$allclose" "$data/bert_dyn.output0.npy" "$tmp/dyn/_Tanh_output.npy" 1e-5 1e-6 ||
  fail "bert_dyn: pooled output differs"
"$allclose" "$data/bert_dyn.output1.npy" "$tmp/dyn/_block_Add_3_output.npy" 1e-5 1e-6 ||
  fail "bert_dyn: sequence output differs"

"$weft" import "$data/bad_unsupported.onnx" -o "$tmp/bad" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[[ $rc -eq 1 ]] || fail "import bad_unsupported: exit $rc, expected 1"
grep -q "'the_det' (Det), 'the_hardmax' (Hardmax)" "$tmp/stderr" ||
  fail "import bad_unsupported: stderr $(cat "$tmp/stderr")"
[[ ! -e "$tmp/bad-symbol.json" ]] || fail "import bad_unsupported wrote a symbol file"

"$weft" import --list-ops >"$tmp/ops" || fail "import --list-ops"
grep -qx "LSTM" "$tmp/ops" || fail "--list-ops lacks LSTM"

[[ $failures -eq 0 ]] && echo "onnx_import_test: ok"
exit $((failures > 0))
