#!/usr/bin/env bash
# LSTM (2 layers, hidden 512, input 512, seq 35, batch 32, float32) forward +
# backward: weft's fused RNN op (bench/bench_lstm.cc) against PyTorch's
# nn.LSTM (bench/bench_lstm_torch.py, Debian /usr/bin/python3), interleaved:
# --reps rounds of (weft, torch), each printing medians of --iters runs; the
# table gives the median over rounds and ratio = weft / torch (> 1: weft
# slower). Threads: OMP/OpenBLAS/torch as the environment sets them
# (pass e.g. THREADS=2 to pin both).
# Usage: bench/bench_lstm.sh [build-dir] [--reps R] [--iters N]
# Build first: cmake --build build --target weft_bench_lstm
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
reps=5
iters=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 1 ;;
  esac
done
bench="$build/bin/weft_bench_lstm"
[[ -x "$bench" ]] || { echo "missing $bench; build target weft_bench_lstm first" >&2; exit 1; }
if [[ -n "${THREADS:-}" ]]; then
  export OMP_NUM_THREADS="$THREADS" OPENBLAS_NUM_THREADS="$THREADS"
fi
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
for ((r = 1; r <= reps; ++r)); do
  "$bench" --iters "$iters" --warmup 1 | tee -a "$out"
  /usr/bin/python3 "$root/bench/bench_lstm_torch.py" --iters "$iters" --warmup 1 | tee -a "$out"
done
echo
echo "== LSTM 2x512, seq 35, batch 32: median over $reps rounds of per-round medians (ms) =="
/usr/bin/python3 - "$out" <<'PY'
import statistics
import sys
rows = {}
for line in open(sys.argv[1]):
    f = [c.strip() for c in line.split("|")]
    if len(f) == 4 and f[0] in ("weft", "torch"):
        rows.setdefault((f[0], f[1]), []).append(float(f[2]))
print("| pass | weft | torch | ratio |")
print("|---|---|---|---|")
for p in ("fwd", "bwd", "fwd+bwd"):
    w = statistics.median(rows[("weft", p)])
    t = statistics.median(rows[("torch", p)])
    print(f"| {p} | {w:.1f} | {t:.1f} | {w / t:.2f} |")
PY
