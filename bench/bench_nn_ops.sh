#!/usr/bin/env bash
# Single NN operators, forward and backward, of weft (bench/bench_nn_ops.cc)
# beside PyTorch (bench/bench_nn_ops_torch.py, Debian /usr/bin/python3) with
# 1 and 2 threads in one run, then one joined table: weft's times (Invoke and
# the bare kernel, per registered backend), PyTorch's, and ratio = weft /
# PyTorch (> 1: weft slower), from Invoke for the backend Invoke picks and
# from the bare kernel for the other backends.
# Usage: bench/bench_nn_ops.sh [build-dir] [extra args for both, e.g. --iters 100]
# Build first: cmake --build build --target weft_bench_nn_ops
# OPENBLAS_CORETYPE is left as the machine sets it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
bench="$build/bin/weft_bench_nn_ops"
[[ -x "$bench" ]] || { echo "missing $bench; build target weft_bench_nn_ops first" >&2; exit 1; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for t in 1 2; do
  echo "== $t thread(s) =="
  OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t "$bench" "$@" | tee -a "$out/rows"
  OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t /usr/bin/python3 "$root/bench/bench_nn_ops_torch.py" \
    --threads "$t" "$@" | tee -a "$out/rows"
  echo
done
echo "== weft vs PyTorch (ms, median; ratio = weft / torch) =="
/usr/bin/python3 - "$out/rows" <<'PY'
import sys
weft, torch = [], {}
for line in open(sys.argv[1]):
    f = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(f) != 8 or f[0] not in ("weft", "torch"):
        continue
    impl, threads, op, pass_, shape, backend, invoke, kernel = f
    if impl == "torch":
        torch[(threads, op, pass_, shape)] = float(invoke)
    else:
        weft.append((threads, op, pass_, shape, backend, invoke, kernel))
print("| threads | op | pass | shape | weft backend | weft Invoke | weft kernel | torch | ratio |")
print("|---|---|---|---|---|---|---|---|---|")
for threads, op, pass_, shape, backend, invoke, kernel in weft:
    t = torch.get((threads, op, pass_, shape))
    ours = float(invoke) if invoke != "-" else float(kernel)
    ratio = f"{ours / t:.2f}" if t else "-"
    ts = f"{t:.4f}" if t else "-"
    print(f"| {threads} | {op} | {pass_} | {shape} | {backend} | {invoke} | {kernel} | {ts} | {ratio} |")
PY
