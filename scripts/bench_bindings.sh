#!/usr/bin/env bash
# Builds and runs the binding benchmarks (bench/bindings/) and prints one table:
# per-call overhead of a trivial C ABI call (weft_abi_version) and of a handle
# query (weft_ndarray_ndim) from C, Java, C# and Go in ns/call, and the time to
# copy a 1M-float buffer into an NDArray and back (zero-copy path and copying
# path) in us.
#
#   scripts/bench_bindings.sh [build-dir]     (default: build; configured if needed)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
B="$(realpath -m "${1:-$ROOT/build}")"
OUT="$B/bench-bindings"
mkdir -p "$OUT"

if [ ! -f "$B/build.ninja" ] && [ ! -f "$B/Makefile" ]; then
  cmake -S "$ROOT" -B "$B" -G Ninja -DWEFT_USE_CUDA=OFF -DWEFT_BUILD_BENCH=OFF >/dev/null
fi
cmake --build "$B" -j2 --target weft weft_jar weft_dll weft_go weft_bench_bindings_c >/dev/null

JAR="$(ls "$B"/lib/weft-*.jar | head -1)"
run_c() { "$B/bin/weft_bench_bindings_c"; }
run_java() {
  javac -nowarn -d "$OUT/java" -cp "$JAR" "$ROOT/bench/bindings/java/BenchBindings.java"
  java -Dweft.library.path="$B/lib" -cp "$JAR:$OUT/java" BenchBindings
}
run_csharp() {
  mcs -nologo -out:"$B/lib/BenchBindings.exe" -r:"$B/lib/Weft.dll" "$ROOT/bench/bindings/csharp/BenchBindings.cs"
  mono "$B/lib/BenchBindings.exe"
}
run_go() {
  local mod="$B/bindings/go/weft"
  mkdir -p "$mod/cmd/weftbench"
  cp "$ROOT/bench/bindings/go/main.go" "$mod/cmd/weftbench/main.go"
  (cd "$mod" && env GOCACHE="$B/bindings/go/cache" GOPATH="$B/bindings/go/path" GOFLAGS=-mod=mod \
     GOPROXY=off CGO_ENABLED=1 PKG_CONFIG_PATH="$B/pkgconfig-uninstalled" CGO_CXXFLAGS="-O2" \
     go build -o "$OUT/weftbench" ./cmd/weftbench)
  "$OUT/weftbench"
}
# Each harness runs in RUNS separate processes (default 3) and the table shows
# the median: the 4 MB copies' speed varies by up to ~30% between processes
# with where the buffers land in memory, in C as much as in the bindings.
RUNS="${WEFT_BENCH_RUNS:-3}"
for lang in c java csharp go; do
  for r in $(seq "$RUNS"); do "run_$lang" > "$OUT/$lang.$r.txt"; done
done

value() {  # value <lang> <metric> <divisor>: the median over the runs
  cat "$OUT/$1".*.txt | awk -v m="$2" -v d="$3" '$1 == m { v[n++] = $2 / d }
    END { if (!n) { printf "-"; exit }
          for (i = 0; i < n; ++i) for (j = i + 1; j < n; ++j) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
          printf "%.1f", n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2 }'
}
range() {  # range <lang> <metric> <divisor>: min-max over the runs
  cat "$OUT/$1".*.txt | awk -v m="$2" -v d="$3" '$1 == m { x = $2 / d; if (!n++ || x < lo) lo = x; if (n == 1 || x > hi) hi = x }
    END { if (!n) printf "-"; else printf "%.0f-%.0f", lo, hi }'
}
printf '%-44s %10s %10s %10s %10s\n' "benchmark" "C" "Java" "C#" "Go"
row() {  # row <label> <metric> <divisor>
  printf '%-44s %10s %10s %10s %10s\n' "$1" "$(value c "$2" "$3")" "$(value java "$2" "$3")" \
    "$(value csharp "$2" "$3")" "$(value go "$2" "$3")"
}
row "trivial call weft_abi_version (ns/call)" version_call 1
row "handle query weft_ndarray_ndim (ns/call)" shape_query 1
row "1M floats in+out, zero-copy (us)" copy_1m_inout 1000
row "1M floats in+out, copying path (us)" copy_1m_inout_copying 1000
printf '%-44s %10s %10s %10s %10s\n' "  zero-copy min-max over $RUNS runs (us)" "$(range c copy_1m_inout 1000)" \
  "$(range java copy_1m_inout 1000)" "$(range csharp copy_1m_inout 1000)" "$(range go copy_1m_inout 1000)"
