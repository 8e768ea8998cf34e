#!/usr/bin/env bash
# Packs the C++ test binary of a CUDA build, and the GPU benches
# (weft_bench_infer with libweft.so, weft_bench_train_step) when built, with the shared libraries
# they need that a GPU machine's CUDA image may lack (OpenBLAS, oneDNN, Open
# MPI and their dependencies, the CUDA runtime), for scripts/gpu_check.sh
# on a machine with a driver, cuBLAS and cuDNN but no build setup.
# usage: scripts/gpu_bundle.sh BUILD_DIR OUT.tar.xz
set -euo pipefail
build="$1" out="$2"
bin="$build/bin/weft_cpp_tests"
[ -x "$bin" ] || { echo "gpu_bundle: $bin is missing" >&2; exit 1; }
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib"
objcopy --strip-debug "$bin" "$stage/weft_cpp_tests"
deps=("$bin")
for b in weft_bench_infer weft_bench_train_step; do
  if [ -x "$build/bin/$b" ]; then
    objcopy --strip-debug "$build/bin/$b" "$stage/$b"
    deps+=("$build/bin/$b")
  fi
done
# Every resolved dependency except the C library, the C++ runtime and the
# CUDA libraries the GPU machine brings (cuBLAS, cuDNN); libweft stripped.
ldd "${deps[@]}" | awk '/=> \// {print $1, $3}' | sort -u | while read -r name path; do
  case "$name" in
    libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libstdc++.so.*|libgcc_s.so.*) ;;
    libcublas*|libcudnn*) ;;
    libweft.so.*) objcopy --strip-debug "$path" "$stage/lib/$name" ;;
    *) cp -L "$path" "$stage/lib/$name" ;;
  esac
done
# The source tree the tests were built in (they read tests/data through it).
sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" >"$stage/source_dir"
tar -C "$stage" -cf - . | xz -T0 -6 >"$out"
echo "gpu_bundle: $out ($(du -h "$out" | cut -f1)): $(ls "$stage" | grep -v -E '^(lib|source_dir)$' | tr '\n' ' ')and $(ls "$stage/lib" | wc -l) libraries"
