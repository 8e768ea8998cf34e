#!/bin/sh
# Fuzzes the NDArray file loaders (LoadNDArrays and LoadNpy, then save/reload on
# what loads) with libFuzzer. Builds the `fuzz_ndarray_file` target first (it
# exists when CMake found a clang++ that links -fsanitize=fuzzer).
#
#   scripts/fuzz_ndarray_file.sh [--build-dir DIR] [--seconds N] [-- libFuzzer flags...]
#
# Defaults: --build-dir build, --seconds 600. The seed corpus tests/fuzz/ndarray_corpus
# is read-only input; new inputs go to DIR/fuzz/ndarray_file-corpus and crash
# reproducers to DIR/fuzz/artifacts/ (rerun one with: bin/fuzz_ndarray_file FILE).
# Exits non-zero when the fuzzer finds a crash, leak, timeout or UB.
set -eu
src_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=build
seconds=600
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [--build-dir DIR] [--seconds N] [-- libFuzzer flags...]" >&2; exit 2 ;;
  esac
done
cmake --build "$build_dir" --target fuzz_ndarray_file -j2
work=$build_dir/fuzz
mkdir -p "$work/ndarray_file-corpus" "$work/artifacts"
"$build_dir/bin/fuzz_ndarray_file" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
  -max_len=4096 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$@" "$work/ndarray_file-corpus" "$src_dir/tests/fuzz/ndarray_corpus"
