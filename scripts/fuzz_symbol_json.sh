#!/bin/sh
# Fuzzes the symbol JSON loader (LoadJSON, then save/reload/inference on what
# loads) with libFuzzer. Builds the `fuzz_symbol_json` target first (it
# exists when CMake found a clang++ that links -fsanitize=fuzzer).
#
#   scripts/fuzz_symbol_json.sh [--build-dir DIR] [--seconds N] [--ctest] [-- libFuzzer flags...]
#
# Defaults: --build-dir build, --seconds 600. The seed corpus tests/fuzz/corpus
# is read-only input; new inputs go to DIR/fuzz/symbol_json-corpus and crash
# reproducers to DIR/fuzz/artifacts/ (rerun one with: bin/fuzz_symbol_json FILE).
# Exits non-zero when the fuzzer finds a crash, leak, timeout or UB.
#
# --ctest is the mode of the CTest test fuzz.symbol_json, made so that it
# fails only on a real finding: it does not build (the fixture test
# fuzz.build does, under its own time limit), starts from the seed corpus
# alone in a fresh directory (nothing left by earlier or longer runs), uses a
# fixed seed (a failure reproduces on a rerun), and allows 120 s per input
# instead of 20 s (a loaded CI machine running sanitized code is no finding;
# an input that takes minutes is).
set -eu
src_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=build
seconds=600
ctest=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --ctest) ctest=1; shift ;;
    --) shift; break ;;
    *) echo "usage: $0 [--build-dir DIR] [--seconds N] [--ctest] [-- libFuzzer flags...]" >&2; exit 2 ;;
  esac
done
work=$build_dir/fuzz
mkdir -p "$work/artifacts"
if [ "$ctest" = 1 ]; then
  if [ ! -x "$build_dir/bin/fuzz_symbol_json" ]; then
    echo "fuzz_symbol_json.sh: $build_dir/bin/fuzz_symbol_json is not built (the fuzz.build test builds it)" >&2
    exit 1
  fi
  corpus=$work/ctest-corpus
  rm -rf "$corpus"
  mkdir -p "$corpus"
  set -- -seed=1 -timeout=120 "$@"
else
  cmake --build "$build_dir" --target fuzz_symbol_json -j2
  corpus=$work/symbol_json-corpus
  mkdir -p "$corpus"
  set -- -timeout=20 "$@"
fi
exec "$build_dir/bin/fuzz_symbol_json" -max_total_time="$seconds" -rss_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 -dict="$src_dir/tests/fuzz/symbol_json.dict" \
  -artifact_prefix="$work/artifacts/" "$@" "$corpus" "$src_dir/tests/fuzz/corpus"
