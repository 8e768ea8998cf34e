#!/usr/bin/env bash
# Applies .clang-format to every tracked C/C++/CUDA source of ours, or with --check lists the files
# that differ from it and exits 1. SWIG-generated code committed for the Go module is left out.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-apply}"
mapfile -t files < <(git ls-files '*.c' '*.cc' '*.h' '*.cu' '*.cuh' | grep -v -E '^go/.*(_wrap|weft_gen)|/generated/')
if [ "$mode" = "--check" ]; then
  drift=()
  for f in "${files[@]}"; do
    clang-format --style=file "$f" | cmp -s - "$f" || drift+=("$f")
  done
  if [ "${#drift[@]}" -ne 0 ]; then
    printf 'not formatted (run ./dev format): %s\n' "${drift[@]}"
    exit 1
  fi
  echo "format: ${#files[@]} files match .clang-format"
else
  clang-format --style=file -i "${files[@]}"
  echo "format: applied .clang-format to ${#files[@]} files"
fi
