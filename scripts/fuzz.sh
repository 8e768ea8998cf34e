#!/bin/sh
# Runs one libFuzzer target (tests/fuzz/fuzz_TARGET.cc), building it first;
# the targets exist when CMake found a clang++ that links -fsanitize=fuzzer.
#
#   scripts/fuzz.sh TARGET [--build-dir DIR] [--seconds N] [--ctest] [-- libFuzzer flags...]
#
# TARGET (seed corpus under tests/fuzz/, read-only):
#   symbol_json   symbol JSON loader, save/reload, inference   corpus/ (+ symbol_json.dict)
#   ndarray_file  MXNet .params / NDArray lists and .npy        ndarray_corpus/
#   idx           IDX images and labels, raw or gzip           idx_corpus/
#   run_symbol    a shapes line + symbol JSON, bound and run    run_corpus/ (+ symbol_json.dict)
#                 forward (inference) and forward + backward (training)
#   optimizer_states  optimizer state files, loaded, saved and  optimizer_states_corpus/
#                 updated from (Optimizer::LoadStatesFromBytes)
#   recordio      RecordIO .rec, .idx + .rec pairs, IRHeaders  recordio_corpus/
#   image         JPEG and PNG decoding (RGB and gray), with    image_corpus/
#                 PNG and JPEG re-encoding of what decodes
#   onnx          ONNX import (parse, checker, shape inference, onnx_corpus/
#                 folding, converters), JSON round trip
# Defaults: --build-dir build, --seconds 600. New inputs go to
# DIR/fuzz/TARGET-corpus and crash reproducers to DIR/fuzz/artifacts/ (rerun
# one with: DIR/bin/fuzz_TARGET FILE). Exits non-zero when the fuzzer finds a
# crash, leak, timeout or UB.
#
# --ctest is the mode of the CTest tests fuzz.TARGET, made so that they fail
# only on a real finding: no build (the fixture test fuzz.build builds every
# target under its own time limit), the seed corpus alone in a fresh
# directory (nothing left by earlier or longer runs), a fixed seed (a
# failure reproduces on a rerun), and 120 s per input instead of 20 s (a
# loaded CI machine running sanitized code is no finding; an input that takes
# minutes is).
set -eu
src_dir=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: $0 symbol_json|ndarray_file|idx|run_symbol|optimizer_states|recordio|image|onnx [--build-dir DIR] [--seconds N] [--ctest] [-- flags...]"
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
target=$1
shift
case "$target" in
  symbol_json) seeds=corpus max_len=65536 dict=symbol_json.dict ;;
  ndarray_file) seeds=ndarray_corpus max_len=4096 dict= ;;
  idx) seeds=idx_corpus max_len=4096 dict= ;;
  run_symbol) seeds=run_corpus max_len=8192 dict=symbol_json.dict ;;
  optimizer_states) seeds=optimizer_states_corpus max_len=4096 dict= ;;
  recordio) seeds=recordio_corpus max_len=4096 dict= ;;
  image) seeds=image_corpus max_len=8192 dict= ;;
  onnx) seeds=onnx_corpus max_len=16384 dict= ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
build_dir=build
seconds=600
ctest=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --ctest) ctest=1; shift ;;
    --) shift; break ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
bin=$build_dir/bin/fuzz_$target
work=$build_dir/fuzz
mkdir -p "$work/artifacts"
if [ "$ctest" = 1 ]; then
  if [ ! -x "$bin" ]; then
    echo "fuzz.sh: $bin is not built (the fuzz.build test builds it)" >&2
    exit 1
  fi
  corpus=$work/ctest-$target-corpus
  rm -rf "$corpus"
  mkdir -p "$corpus"
  set -- -seed=1 -timeout=120 "$@"
else
  cmake --build "$build_dir" --target "fuzz_$target" -j2
  corpus=$work/$target-corpus
  mkdir -p "$corpus"
  set -- -timeout=20 "$@"
fi
if [ -n "$dict" ]; then set -- -dict="$src_dir/tests/fuzz/$dict" "$@"; fi
exec "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/$target-" "$@" "$corpus" "$src_dir/tests/fuzz/$seeds"
