#!/usr/bin/env bash
# Builds and runs tests/kernels/cuda_map_host_check.cu (the CUDA map
# kernel's formulas and op table checked on the host against the CPU
# kernels; no GPU needed) against a CUDA-enabled build's static library.
# Usage: scripts/check_cuda_map_host.sh [build-dir]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
cuda_lib=${CUDA_LIB:-/usr/local/cuda/lib}
if [ ! -f "$build/lib/libweft_static.a" ]; then
  echo "no $build/lib/libweft_static.a (build the weft_static target with CUDA on)" >&2
  exit 2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$nvcc" -DWEFT_USE_CUDA=1 -I"$root/core/include" -I"$root/kernels" -O1 -std=c++17 \
  --generate-code=arch=compute_80,code=sm_80 -Xcompiler -fopenmp -diag-suppress 20011,20014 \
  "$root/tests/kernels/cuda_map_host_check.cu" -o "$out/check" "$build/lib/libweft_static.a" \
  -L"$cuda_lib" -lcudart -lcublas -lcublasLt -lcudnn -lopenblas -lz -ldnnl -lgomp -lpthread \
  -Xlinker -rpath,"$cuda_lib"
"$out/check"
