#!/usr/bin/env bash
# Soak (issue 24; a bench, never a test): LeNet and ResNet-18 predictors called
# many times through the C ABI, RSS and live handles printed every 10 s.
# Bounded: 1,000,000 LeNet calls and 20,000 ResNet-18 calls unless given.
# Needs the models of bench/bench_infer_peers.sh (BUILD/bench_infer).
# Usage: bench/soak/soak.sh [BUILD_DIR] [LENET_CALLS] [RESNET_CALLS]
set -euo pipefail
build=${1:-build} lenet=${2:-1000000} resnet=${3:-20000}
soak=$build/bin/weft_soak_predict data=$build/bench_infer
[[ -x $soak ]] || { echo "missing $soak: build target weft_soak_predict" >&2; exit 1; }
[[ -f $data/resnet18-symbol.json ]] || { echo "no models in $data: run bench/bench_infer_peers.sh once" >&2; exit 1; }
echo "== LeNet, batch 1, $lenet calls"
"$soak" "$data/lenet-symbol.json" "$data/lenet-0000.params" "$lenet" 1,1,28,28 10
echo "== ResNet-18, batch 1, $resnet calls"
"$soak" "$data/resnet18-symbol.json" "$data/resnet18-0000.params" "$resnet" 1,3,224,224 10
