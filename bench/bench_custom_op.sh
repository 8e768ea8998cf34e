#!/usr/bin/env bash
# Overhead of a custom operator call from C, Java, C# and Go vs the built-in
# `identity`: microseconds per executor forward (+ wait) of a one-node graph on
# 1 and on 1M float32 elements, one table (bench/custom_op/; not in ./dev test).
#
#   bench/bench_custom_op.sh [build-dir]   (a build with bindings: weft_jar, weft_dll, weft_go)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
B="$(realpath -m "${1:-$ROOT/build}")"
OUT="$B/bench-custom-op"
mkdir -p "$OUT/java"
cmake --build "$B" -j2 --target weft weft_jar weft_dll weft_go >/dev/null
JAR="$(ls "$B"/lib/weft-*.jar | head -1)"
S="$ROOT/bench/custom_op"

cc -O2 -std=c99 -I"$ROOT/c_api/include" "$S/bench_custom_op.c" -L"$B/lib" -lweft \
  -Wl,-rpath,"$B/lib" -o "$OUT/bench_c"
"$OUT/bench_c" > "$OUT/c.txt"
javac -nowarn -d "$OUT/java" -cp "$JAR" "$S/BenchCustomOp.java"
java -Dweft.library.path="$B/lib" -cp "$JAR:$OUT/java" BenchCustomOp > "$OUT/java.txt"
mcs -nologo -unsafe -out:"$B/lib/BenchCustomOp.exe" -r:"$B/lib/Weft.dll" "$S/BenchCustomOp.cs"
mono "$B/lib/BenchCustomOp.exe" > "$OUT/csharp.txt"
mod="$B/bindings/go/weft"
mkdir -p "$mod/cmd/weftcustombench"
cp "$S/main.go" "$mod/cmd/weftcustombench/main.go"
(cd "$mod" && env GOCACHE="$B/bindings/go/cache" GOPATH="$B/bindings/go/path" GOFLAGS=-mod=mod \
   GOPROXY=off CGO_ENABLED=1 PKG_CONFIG_PATH="$B/pkgconfig-uninstalled" CGO_CXXFLAGS="-O2" \
   go build -o "$OUT/bench_go" ./cmd/weftcustombench)
"$OUT/bench_go" > "$OUT/go.txt"

v() { awk -v m="$2" '$1 == m { print $2 }' "$OUT/$1.txt"; }
printf '%-40s %10s %10s %10s %10s\n' "us per forward (one node)" C Java C# Go
for row in "identity, 1 element:builtin_1" "Custom identity, 1 element:custom_1" \
           "identity, 1M elements:builtin_1m" "Custom identity, 1M elements:custom_1m"; do
  label="${row%%:*}"; m="${row##*:}"
  printf '%-40s %10s %10s %10s %10s\n' "$label" "$(v c "$m")" "$(v java "$m")" "$(v csharp "$m")" "$(v go "$m")"
done
