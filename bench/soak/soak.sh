#!/usr/bin/env bash
# Soak (issue 24; a bench, never a test): LeNet and ResNet-18 predictors called
# many times through the C ABI and each binding, RSS and live handles printed
# every 10 s. Bounded: 1,000,000 LeNet calls and 20,000 ResNet-18 calls per
# language unless given. LANGS: a comma list of c, go, java, csharp (default
# all four; the bindings' loops are the examples' soak modes).
# Needs the models of bench/bench_infer_peers.sh (BUILD/bench_infer).
# Usage: bench/soak/soak.sh [BUILD_DIR] [LENET_CALLS] [RESNET_CALLS] [LANGS]
set -euo pipefail
build=${1:-build} lenet=${2:-1000000} resnet=${3:-20000} langs=${4:-c,go,java,csharp}
data=$build/bench_infer
[[ -f $data/resnet18-symbol.json ]] || { echo "no models in $data: run bench/bench_infer_peers.sh once" >&2; exit 1; }
# soak LANG SYMBOL PARAMS CALLS SHAPE: one language's loop.
soak() {
  local lang=$1 sym=$2 params=$3 calls=$4 shape=$5 tool
  case $lang in
    c) tool=$build/bin/weft_soak_predict ;;
    go) tool=$build/bin/lenet-serve-go ;;
    java) tool=$build/bin/lenet-load-java ;;
    csharp) tool=$build/bin/predict-server-csharp ;;
    *) echo "unknown language $lang (c, go, java, csharp)" >&2; return 2 ;;
  esac
  [[ -x $tool ]] || { echo "missing $tool" >&2; return 1; }
  case $lang in
    c) "$tool" "$sym" "$params" "$calls" "$shape" 10 ;;
    go) "$tool" soak -symbol "$sym" -params "$params" -calls "$calls" -shape "$shape" -interval 10s ;;
    *) "$tool" soak "$sym" "$params" "$calls" "$shape" 10 ;;
  esac
}
for lang in ${langs//,/ }; do
  echo "== $lang: LeNet, batch 1, $lenet calls"
  soak "$lang" "$data/lenet-symbol.json" "$data/lenet-0000.params" "$lenet" 1,1,28,28
  echo "== $lang: ResNet-18, batch 1, $resnet calls"
  soak "$lang" "$data/resnet18-symbol.json" "$data/resnet18-0000.params" "$resnet" 1,3,224,224
done
