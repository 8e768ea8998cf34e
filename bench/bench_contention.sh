#!/usr/bin/env bash
# Latency under contention (issue 41): model inference of weft (weft_bench_infer) beside
# ONNX Runtime (ort_bench.js) at 1 and 2 threads, on an idle machine and with busy
# processes of its own competing for the cores, interleaved, several repetitions. Then
# a predictor with 1 and 4 concurrent callers (weft_bench_predict, default OpenMP threads).
# The table (bench/infer_peers/table.py) lists the loaded runs as threads "T+busyN".
# Usage: bench/bench_contention.sh [build-dir] [--reps R] [--iters N] [--busy N]
#                                  [--cases "resnet18:1 mobilenetv2:1"] [--weft-env "K=V ..."]
#                                  [--weft-b-env "K=V ..."]
# --busy N: how many single-threaded busy loops run beside the loaded runs (default 1).
# --weft-env: extra environment for the weft runs only (e.g. OMP_WAIT_POLICY=active to
# see the OpenMP runtime's spinning again). --weft-b-env: also run weft with this environment
# ("weft-b", e.g. GOMP_SPINCOUNT=300000, libgomp's own default) right after each weft run.
# Needs the models and ORT that bench/bench_infer_peers.sh sets up (run it once first).
# The busy loops end with the script (trap) and at the latest after 30 minutes (timeout).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build" reps=3 iters=20 busy=1 cases="resnet18:1" weft_env="" weft_b_env=""
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --busy) busy="$2"; shift 2 ;;
    --cases) cases="$2"; shift 2 ;;
    --weft-env) weft_env="$2"; shift 2 ;;
    --weft-b-env) weft_b_env="$2"; shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) build="$1"; shift ;;
  esac
done
build="$(cd "$build" && pwd)"
data="$build/bench_infer" node_dir="$build/ort_node" peers="$root/bench/infer_peers"
for f in "$build/bin/weft_bench_infer" "$build/bin/weft_bench_predict" "$data/resnet18-symbol.json" \
  "$node_dir/node_modules/onnxruntime-node"; do
  [[ -e "$f" ]] || { echo "missing $f: build the bench targets and run bench/bench_infer_peers.sh once" >&2; exit 1; }
done
read -ra wenv <<< "$weft_env"
read -ra wbenv <<< "$weft_b_env"
pids=()
stop_busy() { ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null || true; pids=(); }
trap stop_busy EXIT
start_busy() { for ((i = 0; i < busy; ++i)); do timeout 1800 bash -c 'while :; do :; done' & pids+=($!); done; }
echo "cpu: $(grep -o -m1 avx512_bf16 /proc/cpuinfo || echo 'no avx512_bf16 (AVX2)'), $(nproc) cores;" \
  "weft env: ${weft_env:-none}; weft-b env: ${weft_b_env:-none}; busy loops: $busy"
rows="$(mktemp)"
trap 'stop_busy; rm -f "$rows"' EXIT
for ((rep = 1; rep <= reps; ++rep)); do
  for load in idle busy; do
    [[ "$load" == busy ]] && start_busy
    tag=""
    [[ "$load" == busy ]] && tag="+busy$busy"
    for t in 1 2; do
      for c in $cases; do
        args=("$data" "${c%:*}" "${c#*:}" --iters "$iters" --warmup 3)
        env OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t" "${wenv[@]}" "$build/bin/weft_bench_infer" \
          "${args[@]}" | sed "s/threads=[0-9]*/threads=$t$tag/; s/\$/ rep=$rep/" | tee -a "$rows"
        if [[ -n "$weft_b_env" ]]; then
          env OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t" "${wenv[@]}" "${wbenv[@]}" \
            "$build/bin/weft_bench_infer" "${args[@]}" |
            sed "s/engine=weft/engine=weft-b/; s/threads=[0-9]*/threads=$t$tag/; s/\$/ rep=$rep/" | tee -a "$rows"
        fi
        env NODE_PATH="$node_dir/node_modules" node "$peers/ort_bench.js" "${args[@]}" --threads "$t" |
          sed "s/threads=[0-9]*/threads=$t$tag/; s/\$/ rep=$rep/" | tee -a "$rows"
      done
    done
    # A predictor on the default threads with 1 and 4 callers (one sample per call).
    env "${wenv[@]}" "$build/bin/weft_bench_predict" "$data" resnet18 --callers 1,4 --seconds 3 |
      sed "s/^/rep=$rep load=$load engine=weft /"
    if [[ -n "$weft_b_env" ]]; then
      env "${wenv[@]}" "${wbenv[@]}" "$build/bin/weft_bench_predict" "$data" resnet18 --callers 1,4 \
        --seconds 3 | sed "s/^/rep=$rep load=$load engine=weft-b /"
    fi
    stop_busy
  done
done
echo
echo "== inference ms (median over $reps reps of each run's median); T+busyN: N busy loops beside =="
/usr/bin/python3 "$peers/table.py" "$rows" median
