#!/bin/sh
# Fuzzes the symbol JSON loader (LoadJSON, then save/reload/inference on what
# loads) with libFuzzer. Builds the `fuzz_symbol_json` target first (it
# exists when CMake found a clang++ that links -fsanitize=fuzzer).
#
#   scripts/fuzz_symbol_json.sh [--build-dir DIR] [--seconds N] [-- libFuzzer flags...]
#
# Defaults: --build-dir build, --seconds 600. The seed corpus tests/fuzz/corpus
# is read-only input; new inputs go to DIR/fuzz/symbol_json-corpus and crash
# reproducers to DIR/fuzz/artifacts/ (rerun one with: bin/fuzz_symbol_json FILE).
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
cmake --build "$build_dir" --target fuzz_symbol_json -j2
work=$build_dir/fuzz
mkdir -p "$work/symbol_json-corpus" "$work/artifacts"
"$build_dir/bin/fuzz_symbol_json" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 -dict="$src_dir/tests/fuzz/symbol_json.dict" \
  -artifact_prefix="$work/artifacts/" "$@" "$work/symbol_json-corpus" "$src_dir/tests/fuzz/corpus"
