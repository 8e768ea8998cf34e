#!/usr/bin/python3
"""Joins the `infer engine=... rep=R` lines of bench/bench_infer_peers.sh into a markdown
table: per model, batch and threads the median over reps of each engine's median ms, and
weft/ORT, weft/PyTorch as the ratio of those medians with the min-max of the per-rep
ratios in brackets (> 1: weft slower). With `engine=weft-b` lines (--weft-b-env) it adds
their column and weft/weft-b; `engine=weft-bfloat16` / `weft-float16` lines (--amp)
add the mixed-precision columns, weft/weft-<dtype> (the speed-up over float32) and the
share of rows whose top-1 equals PyTorch's float32 one. `engine=ort-int8` lines (--int8: ORT on
make_qdq.py's QDQ model) add its column, its top-1 agreement and Weft-int8/ORT-int8 (the int8
engines against each other) in place of a Weft/ORT-int8 ratio. An optional second argument `min`
uses each run's fastest iteration (min_ms) instead of its median: steadier when other jobs share
the cores."""
import statistics
import sys

ENGINES = ("weft", "ort", "torch", "weft-b", "weft-bfloat16", "weft-float16", "weft-int8",
           "ort-int8")
NAMES = {"weft": "Weft", "ort": "ORT", "torch": "PyTorch", "weft-b": "Weft-B",
         "weft-bfloat16": "Weft-bf16", "weft-float16": "Weft-fp16", "weft-int8": "Weft-int8",
         "ort-int8": "ORT-int8"}
REDUCED = ("weft-bfloat16", "weft-float16", "weft-int8", "ort-int8")  # with a top-1 column
NUMERATOR = {"ort-int8": "weft-int8"}  # the ratio's engine over this peer (default weft)


def main():
    stat = sys.argv[2] if len(sys.argv) > 2 else "median"
    times = {}  # (model, batch, threads) -> engine -> rep -> ms
    agree = {}  # (model, batch, threads) -> mixed-precision engine -> top-1 agreement
    order = []
    for line in open(sys.argv[1]):
        if not line.startswith("infer "):
            continue
        f = dict(kv.split("=", 1) for kv in line.split()[1:])
        key = (f["model"], int(f["batch"]), f["threads"])
        if key not in times:
            times[key] = {}
            order.append(key)
        times[key].setdefault(f["engine"], {})[f["rep"]] = float(f[stat + "_ms"])
        if "top1_agree" in f and f["engine"] in REDUCED:
            agree.setdefault(key, {})[f["engine"]] = float(f["top1_agree"])
    engines = [e for e in ENGINES if any(e in times[k] for k in order)]
    peers = [e for e in engines if e != "weft"]
    amps = [e for e in engines if e in REDUCED]
    print("| model | batch | threads | " + " | ".join(NAMES[e] + " ms" for e in engines) + " | " +
          " | ".join(NAMES[NUMERATOR.get(p, "weft")] + "/" + NAMES[p] for p in peers) +
          "".join(" | %s top-1 = fp32" % NAMES[a] for a in amps) + " |")
    print("|---|---|---|" + "---|" * (len(engines) + len(peers) + len(amps)))
    for key in sorted(order, key=lambda k: (k[2], order.index(k))):
        by = times[key]
        med = {e: statistics.median(by[e].values()) if e in by else None for e in engines}
        cells = ["%.3f" % med[e] if med[e] is not None else "-" for e in engines]
        for peer in peers:
            num = NUMERATOR.get(peer, "weft")
            if med.get(num) is None or med[peer] is None:
                cells.append("-")
                continue
            reps = [by[num][r] / by[peer][r] for r in by[num] if r in by[peer]]
            rng = " (%.2f–%.2f)" % (min(reps), max(reps)) if len(reps) > 1 else ""
            cells.append("%.2f%s" % (med[num] / med[peer], rng))
        for a in amps:
            got = agree.get(key, {}).get(a)
            cells.append("%.1f %%" % (100 * got) if got is not None else "-")
        print("| %s | %d | %s | %s |" % (key[0], key[1], key[2], " | ".join(cells)))


if __name__ == "__main__":
    main()
