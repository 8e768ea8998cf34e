#!/usr/bin/env bash
# Runs the CUDA tests of a bundle from scripts/gpu_bundle.sh on a GPU
# machine, from the repository root (the tests read tests/data through
# the source path compiled in: it is linked to here when missing), the
# convolution and model cases again with WEFT_CUDNN_AUTOTUNE=1, the CUDA
# tests with WEFT_CUDA_GRAPHS=1, then the whole C++ suite, then bench/gpu/bench_gpu.sh when the bundle holds the
# bench and python3 has torch with CUDA. cuBLAS and cuDNN are taken from
# the machine. Logs go to $OUT when it is set. GPU_SUITE_SHARDS (8) processes run
# the whole suite, GPU_SUITE_TIMEOUT (300 s) each; GPU_BENCH_REPS (3), GPU_BENCH_TIMEOUT (400 s).
# usage: scripts/gpu_check.sh BUNDLE.tar.xz
set -uo pipefail
bundle="$1"
out="${OUT:-$(mktemp -d)}"
dir="${GPU_CHECK_DIR:-$(mktemp -d)}"
mkdir -p "$dir"
tar -C "$dir" -xJf "$bundle"
nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv
libdir() { dirname "$(find /usr /opt -name "$1" 2>/dev/null | head -1)"; }
export LD_LIBRARY_PATH="$dir/lib:$(libdir 'libcudnn.so.9*'):$(libdir 'libcublasLt.so.13*')"
if ldd "$dir/weft_cpp_tests" | grep "not found"; then exit 1; fi
src="$(cat "$dir/source_dir" 2>/dev/null || true)"
[ -z "$src" ] || [ -e "$src" ] || { mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"; }
status=0
"$dir/weft_cpp_tests" --gtest_filter='Cuda*:Cases/BackendTable.*:BackendHarness.*:CrossDeviceCopy*:PlaceDevice*:EngineDevices*:BroadcastIndex*:StreamOrder*:*ReducedTable.Gpu*:ReducedFloat.Gpu*:AmpModels.*Gpu*' \
  >"$out/cuda.log" 2>&1 || status=1
grep -v -E "^\[ +(RUN|OK) " "$out/cuda.log" | tail -120
echo "=== the convolutions and whole models once more with timed cuDNN algorithms (WEFT_CUDNN_AUTOTUNE=1)"
WEFT_CUDNN_AUTOTUNE=1 "$dir/weft_cpp_tests" --gtest_filter='Cases/BackendTable.*/convolution:Cases/BackendTable.*/nn_dense_conv:CudaModel.*' --gtest_brief=1 \
  >"$out/autotune.log" 2>&1 || status=1
grep -E "^\[  (FAILED|PASSED|SKIPPED) " "$out/autotune.log" | tail -20
echo "=== the CUDA tests once more with recorded device graphs (WEFT_CUDA_GRAPHS=1)"
WEFT_CUDA_GRAPHS=1 "$dir/weft_cpp_tests" --gtest_filter='Cuda*:Cases/BackendTable.*' --gtest_brief=1 \
  >"$out/graphs.log" 2>&1 || status=1
grep -E "^\[  (FAILED|PASSED|SKIPPED) " "$out/graphs.log" | tail -20
shards="${GPU_SUITE_SHARDS:-8}"
echo "=== the whole C++ suite with a GPU present ($shards shards in parallel, 2 OpenMP threads each)"
for i in $(seq 0 $((shards - 1))); do
  GTEST_TOTAL_SHARDS="$shards" GTEST_SHARD_INDEX="$i" OMP_NUM_THREADS=2 \
    timeout "${GPU_SUITE_TIMEOUT:-300}" "$dir/weft_cpp_tests" --gtest_brief=1 >"$out/all.$i.log" 2>&1 &
done
for i in $(seq 0 $((shards - 1))); do wait -n || status=1; done
cat "$out"/all.*.log >"$out/all.log" && rm -f "$out"/all.*.log
grep -E "^\[  (FAILED|PASSED|SKIPPED) |Timeout|timed out" "$out/all.log" | tail -30
if [ -x "$dir/weft_bench_infer" ] && python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  echo "=== ResNet-18 inference (and a training step) on the GPU: weft and PyTorch"
  train=()
  [ -x "$dir/weft_bench_train_step" ] && train=(--train "$dir/weft_bench_train_step")
  timeout "${GPU_BENCH_TIMEOUT:-400}" "$PWD/bench/gpu/bench_gpu.sh" "$dir/weft_bench_infer" "$dir/bench_data" \
    --reps "${GPU_BENCH_REPS:-3}" "${train[@]}" 2>&1 | tee "$out/bench.log" || status=1
fi
exit $status
