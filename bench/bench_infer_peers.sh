#!/usr/bin/env bash
# Model inference of weft (bench/bench_infer.cc through the C ABI) beside ONNX Runtime
# (bench/infer_peers/ort_bench.js, onnxruntime-node, CPU EP) and PyTorch
# (bench/infer_peers/torch_bench.py, Debian /usr/bin/python3) on the same weights and
# inputs, in one run: for each rep, for 1 and 2 threads (--threads), for each case the engines
# run one after the other. Then a markdown table of medians over reps and the ratios
# weft/ORT and weft/PyTorch (> 1: weft slower) with their min-max range over reps.
# Usage: bench/bench_infer_peers.sh [build-dir] [--reps R] [--iters N] [--warmup W]
#                                   [--weft-env "WEFT_ENGINE=naive ..."] [--cases "mlp:1 lenet:64"]
#                                   [--weft-b-env "WEFT_EXEC_SKIP_PASSES=BlockConvLayouts"] [--stat min]
#                                   [--amp "bfloat16 float16"] [--int8 naive|entropy]
#                                   [--threads "1 2"]
# --weft-env: extra environment for the weft runs only (e.g. to compare engines).
# --weft-b-env: also run weft with this environment ("weft-b") right after each weft run, for
# an interleaved before/after comparison; the table gets its column and the ratio weft/weft-b.
# --amp: also run weft on each model converted for these dtypes (MXNet's AMP lists,
# weft_amp_convert_model) right after its float32 run; the table gets their columns, the
# speed-up weft/weft-<dtype> and the share of rows whose top-1 is PyTorch's float32 one.
# --int8: also run weft on each model quantized to int8 (weft_quantize_model, MXNet's
# quantize_model_mkldnn with this calibration on the timed input; "-unfused" for quantize_model),
# a column like --amp's; and ONNX Runtime on an int8 QDQ model of the same calibration ranges
# ("ORT-int8": bench/infer_peers/make_qdq.py, which runs BUILD/bin/weft quantize and export on the
# timed input, into BUILD/bench_infer_qdq/ before the timed runs) right after ORT's float32 run,
# with its top-1 agreement and the ratio Weft-int8/ORT-int8. Needs the weft target built too.
# --threads: the thread counts run (default "1 2").
# --stat min: the table takes each run's fastest iteration instead of its median (steadier when
# other jobs share the cores).
# Build first: cmake --build build --target weft_bench_infer (needs -DWEFT_BUILD_BENCH=ON).
# Installs python3-torch, nodejs, npm (apt) and onnxruntime-node (npm, into BUILD/ort_node)
# when missing, and exports the models into BUILD/bench_infer when export_models.py is
# newer than them.
# OPENBLAS_CORETYPE is left as the machine sets it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build" reps=3 iters=20 warmup=3 weft_env="" weft_b_env="" stat=median amps="" int8=""
threads="1 2"
cases="mlp:1 mlp:128 lenet:64 resnet18:1 resnet18:8"
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --weft-env) weft_env="$2"; shift 2 ;;
    --weft-b-env) weft_b_env="$2"; shift 2 ;;
    --stat) stat="$2"; shift 2 ;;
    --amp) amps="$2"; shift 2 ;;
    --int8) int8="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --cases) cases="$2"; shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) build="$1"; shift ;;
  esac
done
build="$(cd "$build" && pwd)"
bench="$build/bin/weft_bench_infer" data="$build/bench_infer" node_dir="$build/ort_node"
peers="$root/bench/infer_peers"
[[ -x "$bench" ]] || { echo "missing $bench; build target weft_bench_infer first" >&2; exit 1; }
if [[ -n "$int8" && ! -x "$build/bin/weft" ]]; then
  echo "missing $build/bin/weft (--int8 makes ORT's QDQ models with it); build target weft" >&2
  exit 1
fi
need=()  # Debian packages for the peers (./dev does not install them)
/usr/bin/python3 -c 'import torch' 2>/dev/null || need+=(python3-torch)
command -v node > /dev/null || need+=(nodejs)
command -v npm > /dev/null || need+=(npm)
if ((${#need[@]})); then
  echo "installing ${need[*]}"
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
stamp="$data/resnet18-b8-output.npy"
if [[ ! -f "$stamp" || "$peers/export_models.py" -nt "$stamp" ]]; then
  /usr/bin/python3 "$peers/export_models.py" "$data"
fi
read -ra wenv <<< "$weft_env"
read -ra wbenv <<< "$weft_b_env"
inherited="$(env | grep '^WEFT_' | tr '\n' ' ' || true)"
echo "weft engine env: ${weft_env:-none}; inherited WEFT_*: ${inherited:-none} (default engine: threaded)"
echo "onnxruntime-node $(node -p "require('$node_dir/node_modules/onnxruntime-node/package.json').version")," \
  "torch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)'), reps $reps, iters $iters"
rows="$(mktemp)"
trap 'rm -f "$rows"' EXIT
failed=0
qdq="$build/bench_infer_qdq" calib="${int8%-unfused}"
if [[ -n "$int8" ]]; then  # ORT's int8 models: Weft's calibration ranges as QDQ (not timed)
  mkdir -p "$qdq"
  for c in $cases; do
    model="${c%:*}" batch="${c#*:}"
    rm -f "$qdq/$model-b$batch-$calib.onnx"
    if ! /usr/bin/python3 "$peers/make_qdq.py" "$build/bin/weft" "$data" "$model" "$batch" \
      "$calib" "$qdq/$model-b$batch-$calib.onnx"; then
      echo "FAILED: make_qdq.py $model $batch (no ORT-int8 column for it)" >&2
      failed=1
    fi
  done
fi
run() {  # rep, command...: one result line tagged with the rep, or a failure noted
  local rep="$1" line tag=""
  shift
  [[ "$rep" == b:* ]] && { tag="b"; rep="${rep#b:}"; }
  if line="$("$@")"; then
    [[ -n "$tag" ]] && line="${line/engine=weft/engine=weft-b}"
    echo "$line rep=$rep" | tee -a "$rows"
  else
    echo "FAILED (rep $rep): $*" >&2
    failed=1
  fi
}
for ((rep = 1; rep <= reps; ++rep)); do
  for t in $threads; do
    for c in $cases; do
      model="${c%:*}" batch="${c#*:}"
      args=("$data" "$model" "$batch" --iters "$iters" --warmup "$warmup")
      run "$rep" env OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t" "${wenv[@]}" "$bench" "${args[@]}"
      for a in $amps; do
        run "$rep" env OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t" "${wenv[@]}" "$bench" "${args[@]}" \
          --amp "$a" --tolerance 1
      done
      if [[ -n "$int8" ]]; then
        run "$rep" env OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t" "${wenv[@]}" "$bench" "${args[@]}" \
          --int8 "$int8" --tolerance 10
      fi
      if [[ -n "$weft_b_env" ]]; then
        run "b:$rep" env OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t" "${wenv[@]}" "${wbenv[@]}" "$bench" "${args[@]}"
      fi
      run "$rep" env NODE_PATH="$node_dir/node_modules" node "$peers/ort_bench.js" "${args[@]}" \
        --threads "$t"
      if [[ -n "$int8" && -f "$qdq/$model-b$batch-$calib.onnx" ]]; then
        run "$rep" env NODE_PATH="$node_dir/node_modules" node "$peers/ort_bench.js" "${args[@]}" \
          --threads "$t" --onnx "$qdq/$model-b$batch-$calib.onnx" --engine ort-int8 --tolerance 10
      fi
      run "$rep" env OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t" /usr/bin/python3 \
        "$peers/torch_bench.py" "${args[@]}" --threads "$t"
    done
  done
done
echo
echo "== inference ms (median over $reps reps of each run's $stat); weft env: ${weft_env:-none};" \
  "weft-b env: ${weft_b_env:-none} =="
/usr/bin/python3 "$peers/table.py" "$rows" "$stat"
if ((failed)); then echo "some runs FAILED (see above)" >&2; exit 1; fi
