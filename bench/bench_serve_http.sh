#!/usr/bin/env bash
# The example HTTP services (issue 21) under a longer load than their CTest
# cases: each language's LeNet service on 127.0.0.1 and its bounded load
# generator (N requests from C concurrent clients, every answer checked
# against a direct predict), printing requests/s and p50/p99 latency. The
# languages alternate per repetition. Go and C# serve a xavier-initialised
# checkpoint of examples/models/lenet-symbol.json; Java the same checkpoint
# with Fashion-MNIST test images as requests.
# Usage: bench/bench_serve_http.sh [build-dir] [--reps R] [-n N] [-c C]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build" reps=2 n=5000 c=8
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    -n) n="$2"; shift 2 ;;
    -c) c="$2"; shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) build="$1"; shift ;;
  esac
done
sym="$root/examples/models/lenet-symbol.json" fm=/usr/share/datasets/fashion-mnist
for tool in lenet-serve-go lenet-load-java predict-server-csharp; do
  [[ -x "$build/bin/$tool" ]] || { echo "missing $build/bin/$tool (build the examples)" >&2; exit 1; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$build/bin/lenet-serve-go" init -symbol "$sym" -out "$dir/lenet" >/dev/null
for ((r = 1; r <= reps; ++r)); do
  echo "rep=$r go     $("$build/bin/lenet-serve-go" selftest -symbol "$sym" -params "$dir/lenet-0000.params" -n "$n" -c "$c" | grep "requests/s")"
  echo "rep=$r java   $("$build/bin/lenet-load-java" "$sym" "$dir/lenet-0000.params" "$fm" "$n" "$c" | grep "requests/s")"
  echo "rep=$r csharp $("$build/bin/predict-server-csharp" selftest "$sym" "$dir/cs" "$n" "$c" | grep "requests/s")"
done
