#!/usr/bin/env bash
# ONNX export coverage on real MXNet files (bench/, not a test): every model
# is exported by `weft export` at opsets 11, 13 and 17, run by ONNX Runtime
# (onnxruntime-node, CPU EP; bench/onnx_export/ort_compare.js) on the same
# input as `weft run`, and each output compared with Weft's (equal: max
# |ort - weft| <= 1e-4 * max |weft|). Prints a Markdown table for docs/onnx.md.
#
#   bench/bench_onnx_export.sh [BUILD]      (default: build)
#
# Models: the real files of ../shared/testdata/mxnet-models (det1 with its
# real weights and tests/data/det1's image; the others with seeded random
# weights and inputs from bench/onnx_export/random_model.py), the e2e
# graphs of tests/data/e2e with their weights and inputs, and the detection
# outputs (box_nms, MultiBoxDetection) compared element by element on seeded
# inputs (bench/onnx_export/detection-symbol.json) and on the NumPy
# references of tests/data/op_refs.
# Installs nodejs, npm (apt) and onnxruntime-node (npm, into BUILD/ort_node)
# when missing, as bench_infer_peers.sh does.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
weft="$build/bin/weft" node_dir="$build/ort_node"
models="$root/../shared/testdata/mxnet-models" e2e="$root/tests/data/e2e"
[[ -x "$weft" ]] || { echo "missing $weft; build target weft_cli first" >&2; exit 1; }
need=()
command -v node > /dev/null || need+=(nodejs)
command -v npm > /dev/null || need+=(npm)
if ((${#need[@]})); then
  sudo=""
  [[ "$(id -u)" -ne 0 ]] && sudo="sudo"
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${need[@]}"
fi
if [[ ! -d "$node_dir/node_modules/onnxruntime-node" ]]; then
  mkdir -p "$node_dir"
  [[ -f "$node_dir/package.json" ]] || echo '{"private": true}' > "$node_dir/package.json"
  (cd "$node_dir" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund onnxruntime-node)
fi
export NODE_PATH="$node_dir/node_modules"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "onnxruntime-node $(node -p "require('onnxruntime-node/package.json').version"), $("$weft" version)"
echo
echo "| model | MXNet format | exports (11/13/17) | ORT runs, outputs equal (11/13/17) | max rel. diff (13) | not exported |"
echo "|---|---|---|---|---|---|"

npy_shape() { /usr/bin/python3 -c "import numpy as np; print(','.join(map(str, np.load('$1').shape)))"; }

# Set `tol=--max-abs=E` on a call of case_row or dyn_row to compare element by element
# (every |ORT - Weft| <= E) and report the max |ORT - Weft| in place of the relative one.
metric() { [[ -n "${tol:-}" ]] && echo max_abs || echo rel; }

# case NAME SYMBOL PARAMS ORT_INPUTS(NAME=FILE,...) [RUN_ONLY_INPUTS(NAME=FILE,...)]
case_row() {
  local name="$1" sym="$2" params="$3" ins="$4" extra="${5:-}"
  local shapes=() run_in=() ort_in=() exp=() ort=() rel="" why="" id="${1//[^A-Za-z0-9_.-]/_}"
  IFS=, read -ra pairs <<< "$ins"
  for p in "${pairs[@]}"; do
    shapes+=(--shape "${p%%=*}=$(npy_shape "${p#*=}")")
    run_in+=(--input "$p")
    ort_in+=("$p")
  done
  local run_params=(--params "$params") exp_params=("$params")
  [[ "$params" == - ]] && run_params=() exp_params=()  # no weights
  if [[ -n "$extra" ]]; then
    IFS=, read -ra pairs <<< "$extra"
    for p in "${pairs[@]}"; do run_in+=(--input "$p"); done
  fi
  "$weft" run --symbol "$sym" "${run_params[@]}" "${run_in[@]}" --output-dir "$work/$id.weft" \
    > "$work/$id.run" 2>&1 || { echo "| $name | weft run failed: $(tail -1 "$work/$id.run") |"; return; }
  local format
  format="$("$weft" inspect "$sym" "${shapes[@]}" --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["format"])')"
  for opset in 11 13 17; do
    local onnx="$work/$id-$opset.onnx"
    if "$weft" export "$sym" "${exp_params[@]}" -o "$onnx" --opset "$opset" "${shapes[@]}" > "$work/$id.exp" 2>&1; then
      exp+=(yes)
      if node "$root/bench/onnx_export/ort_compare.js" ${tol:+"$tol"} "$onnx" "$work/$id.weft" \
          "${ort_in[@]}" > "$work/$id.ort" 2>&1; then ort+=(yes); else ort+=(no); fi
      if [[ $opset == 13 ]]; then
        rel="$(grep -o "$(metric)=[^ ]*" "$work/$id.ort" | cut -d= -f2 | sort -g | tail -1)"
        grep -q "equal=no\|error" "$work/$id.ort" && rel="$rel ($(grep -m1 'equal=no\|error' "$work/$id.ort"))"
      fi
    else
      exp+=(no)
      ort+=(-)
      why="$(grep '^  op ' "$work/$id.exp" | sed "s/^  //; s/'//g" | paste -sd ';' - || true)"
      [[ -n "$why" ]] || why="$(tail -1 "$work/$id.exp")"
    fi
  done
  local IFS=/
  echo "| $name | $format | ${exp[*]} | ${ort[*]} | ${rel:--} | ${why:--} |"
}

# dyn_row NAME SYMBOL PARAMS INPUTS1 INPUTS2 [RUN_ONLY2] (inputs NAME=FILE,...): exported
# with --dynamic-batch from INPUTS1's shapes (batch 1), run by ONNX Runtime on INPUTS2 (a
# larger batch) against `weft run` on INPUTS2 and RUN_ONLY2; the row shows the first input.
dyn_rows=()
dyn_row() {
  local name="$1" sym="$2" params="$3" extra="${6:-}" id="dyn_${1//[^A-Za-z0-9_.-]/_}"
  local in1=() in2=() more=() shapes=() run_in=() result p
  IFS=, read -ra in1 <<< "$4"
  IFS=, read -ra in2 <<< "$5"
  IFS=, read -ra more <<< "$extra"
  for p in "${in1[@]}"; do shapes+=(--shape "${p%%=*}=$(npy_shape "${p#*=}")"); done
  for p in "${in2[@]}" "${more[@]}"; do run_in+=(--input "$p"); done
  local run_params=(--params "$params") exp_params=("$params")
  [[ "$params" == - ]] && run_params=() exp_params=()  # no weights
  if ! "$weft" run --symbol "$sym" "${run_params[@]}" "${run_in[@]}" --output-dir "$work/$id.weft" \
      > /dev/null 2>&1; then
    result="weft run failed"
  elif ! "$weft" export "$sym" "${exp_params[@]}" -o "$work/$id.onnx" --dynamic-batch \
      "${shapes[@]}" > /dev/null 2>&1; then
    result="export failed"
  elif node "$root/bench/onnx_export/ort_compare.js" ${tol:+"$tol"} "$work/$id.onnx" \
      "$work/$id.weft" "${in2[@]}" > "$work/$id.ort" 2>&1; then
    result="yes ($(grep -o "$(metric)=[^ ]*" "$work/$id.ort" | cut -d= -f2 | sort -g | tail -1))"
  else
    result="no: $(grep -m1 'equal=no\|error' "$work/$id.ort")"
  fi
  dyn_rows+=("| $name | $(npy_shape "${in1[0]#*=}") | $(npy_shape "${in2[0]#*=}") | $result |")
}

# Real files without weights: seeded random weights and input.
random_case() {
  local name="$1" file="$2" shape="$3" extra=""
  "$weft" inspect "$models/$file" --shape "data=$shape" --json |
    /usr/bin/python3 "$root/bench/onnx_export/random_model.py" "$work/$name"
  if grep -q '"softmax_label"' "$models/$file"; then
    /usr/bin/python3 -c "import numpy as np; np.save('$work/$name-label.npy', np.zeros(${shape%%,*}, np.float32))"
    extra="softmax_label=$work/$name-label.npy"
  fi
  case_row "$name" "$models/$file" "$work/$name.params" "data=$work/$name-data.npy" "$extra"
  # The same model at batch 2 through a model exported with a dynamic batch from batch 1.
  local two="2,${shape#*,}" label2=""
  [[ ${shape%%,*} == 1 ]] || return 0
  /usr/bin/python3 -c "import numpy as np; np.save('$work/$name-data2.npy', np.random.default_rng(2).uniform(0, 1, ($two)).astype(np.float32))"
  if [[ -n "$extra" ]]; then
    /usr/bin/python3 -c "import numpy as np; np.save('$work/$name-label2.npy', np.zeros(2, np.float32))"
    label2="$work/$name-label2.npy"
  fi
  dyn_row "$name" "$models/$file" "$work/$name.params" "data=$work/$name-data.npy" \
    "data=$work/$name-data2.npy" "${label2:+softmax_label=$label2}"
}

if [[ -d "$models" ]]; then
  random_case save_000800 apache__save_000800.json 5,200
  random_case mkldnn_model1 apache__test_mkldnn_test_mkldnn_model_model1.json 1,3,224,224
  case_row "det1 (real weights)" "$models/deepinsight__det1-symbol.json" \
    "$models/deepinsight__det1-0001.params" "data=$root/tests/data/det1/input_24x36.npy"
  random_case det4 deepinsight__det4-symbol.json 1,15,24,24
  random_case gender-age deepinsight__model-symbol.json 1,3,112,112
  random_case squeezenet_v1.2 miaow1988__model-symbol.json 1,3,227,227
  random_case resnet-50 pathak-ashutosh__resnet-50-symbol.json 1,3,224,224
fi
for m in retinaface_fpn mobilefacenet lightcnn gluoncv_ssd mxnet_ssd; do
  case_row "e2e/$m" "$e2e/$m/symbol.json" "$e2e/$m/model.params" "data=$e2e/$m/input_data.npy"
done
lm="$e2e/lstm_lm"
case_row e2e/lstm_lm "$lm/lstm_lm-symbol.json" "$lm/lstm_lm-0000.params" "data=$lm/data.npy" \
  "softmax_label=$lm/softmax_label.npy"
case_row e2e/lstm_lm_states "$lm/lstm_lm-states-symbol.json" "$lm/lstm_lm-0000.params" \
  "data=$lm/data.npy,lstm_begin_state_0=$lm/begin_state_0.npy,lstm_begin_state_1=$lm/begin_state_1.npy" \
  "softmax_label=$lm/softmax_label.npy"
case_row e2e/lstm_lm_gluon "$lm/lstm_lm-gluon-symbol.json" "$lm/lstm_lm-gluon-0000.params" \
  "data0=$lm/data_tn.npy,data1=$lm/begin_state_0.npy,data2=$lm/begin_state_1.npy"
# The detection and resizing operators no file above has (ROIAlign plain and aligned,
# UpSampling, BilinearResize2D, MultiBoxPrior) on one random feature map.
/usr/bin/python3 - "$work" <<'PY'
import sys, numpy as np
w = sys.argv[1]
r = np.random.default_rng(0)
np.save(w + "/vis-data.npy", r.uniform(0, 1, (2, 3, 6, 8)).astype(np.float32))
np.save(w + "/vis-rois.npy", np.array([[0, 1, 1, 9, 7], [1, 0.5, 2, 6, 10], [0, 3, 0, 15, 11.5]], np.float32))
PY
case_row "vision ops (aligned ROIAlign needs 16)" "$root/bench/onnx_export/vision-symbol.json" \
  - "data=$work/vis-data.npy,rois=$work/vis-rois.npy"
# The detection outputs no file above has in these forms (box_nms per class with topk and a
# background id, per class over everything, forced over 4-D data with re-encoding to center,
# center rows without ids re-encoded to corners; MultiBoxDetection with nms_topk, forced with
# its own variances and no clip, over every valid row, without NMS) on seeded inputs at
# batch 3 with no tied scores: every element within 1e-6 of Weft's kernels' output. Then
# the same exported with a dynamic batch from batch 1 and run at batch 3.
for b in 1 3; do /usr/bin/python3 "$root/bench/onnx_export/detection_inputs.py" "$work/det$b" $b; done
det_in() { local n l=""; for n in boxes boxes4 rows5 cls_prob loc_pred anchor; do l+="${l:+,}$n=$work/det$1-$n.npy"; done; echo "$l"; }
det_sym="$root/bench/onnx_export/detection-symbol.json"
tol=--max-abs=1e-6 case_row "detection ops (max abs. diff)" "$det_sym" - "$(det_in 3)"
tol=--max-abs=1e-6 dyn_row "detection ops (max abs. diff)" "$det_sym" - "$(det_in 1)" "$(det_in 3)"
# The same two converters against the NumPy references of tests/data/op_refs (box_nms and
# MultiBoxDetection cases written from MXNet's code): each case alone exported at opset 13 and
# run by ONNX Runtime on the file's inputs, every value within 1e-6 of the file's output.
/usr/bin/python3 "$root/bench/onnx_export/op_ref_models.py" "$root/tests/data/op_refs" "$work/refs" \
  > "$work/refs.list"
ref_n=0 ref_exp=0 ref_ok=0 ref_max=0 ref_bad=()
while read -r c ins; do
  ref_n=$((ref_n + 1))
  shapes=()
  IFS=, read -ra pairs <<< "$ins"
  for p in "${pairs[@]}"; do shapes+=(--shape "${p%%=*}=$(npy_shape "${p#*=}")"); done
  if ! "$weft" export "$work/refs/$c/symbol.json" -o "$work/refs/$c.onnx" "${shapes[@]}" \
      > /dev/null 2>&1; then
    ref_bad+=("$c")
    continue
  fi
  ref_exp=$((ref_exp + 1))
  if node "$root/bench/onnx_export/ort_compare.js" --max-abs=1e-6 "$work/refs/$c.onnx" \
      "$work/refs/$c/ref" "${pairs[@]}" > "$work/refs/$c.ort" 2>&1; then
    ref_ok=$((ref_ok + 1))
  else
    ref_bad+=("$c")
  fi
  ref_max="$(printf '%s\n' "$ref_max" $(grep -o 'max_abs=[^ ]*' "$work/refs/$c.ort" | cut -d= -f2) |
    sort -g | tail -1)"
done < "$work/refs.list"
bad="${ref_bad[*]:+failed: ${ref_bad[*]}}"
echo "| detection op_refs ($ref_n NumPy references; max abs. diff) | - | -/$ref_exp of $ref_n/- |" \
  "-/$ref_ok of $ref_n/- | $ref_max | ${bad:--} |"
tf="$e2e/transformer"
for v in transformer transformer-interleaved; do
  case_row "e2e/$v" "$tf/$v-symbol.json" "$tf/$v-0000.params" \
    "data=$tf/data.npy,valid_length=$tf/valid_length.npy"
done
echo
echo "Dynamic batch: exported with --dynamic-batch from batch 1, run at batch 2 (the detection ops at 3)"
echo
echo "| model | export shape | run shape | ORT outputs equal to weft run's (max rel. diff) |"
echo "|---|---|---|---|"
for r in "${dyn_rows[@]}"; do echo "$r"; done
