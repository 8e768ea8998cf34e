#!/usr/bin/python3
"""PyTorch side of bench/bench_infer_peers.sh (Debian's /usr/bin/python3, python3-torch).

    torch_bench.py DIR MODEL BATCH [--iters N] [--warmup W] [--threads T] [--device cuda]
                   [--dtype float16|bfloat16] [--tolerance T]

Rebuilds MODEL with export_models.build, loads DIR/MODEL.pt, and times the eval-mode
forward under torch.inference_mode() with torch.set_num_threads(T) on the stored input
of the batch. Prints one line as weft_bench_infer does (engine=torch) and checks the
output against the stored one (the same weights and input must give it back). With
--device cuda the model and input sit on the GPU, each timed forward ends with the
output copied to the host (as weft's), and TF32 is off (float32 math, as weft's cuDNN
and cuBLAS calls). --dtype runs the model and input in that dtype (model.to(dtype):
PyTorch's own reduced-precision inference, for weft's AMP-converted model beside it),
prints engine=torch-<dtype> and top1_agree (the share of rows whose arg max equals the
stored float32 output's), and checks the output within --tolerance (default 1e-4).
"""
import argparse
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_models import build  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("model")
    p.add_argument("batch", type=int)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--device", default="cpu")
    p.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    p.add_argument("--tolerance", type=float, default=1e-4)
    a = p.parse_args()
    dtype = getattr(torch, a.dtype)
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_num_threads(a.threads)
    model = build(a.model)
    model.load_state_dict(torch.load(os.path.join(a.dir, a.model + ".pt")))
    model.eval().to(a.device, dtype)
    stem = os.path.join(a.dir, "%s-b%d" % (a.model, a.batch))
    x = torch.from_numpy(np.load(stem + "-input.npy")).to(a.device, dtype)
    want = np.load(stem + "-output.npy")
    ms = []
    with torch.inference_mode():
        for i in range(a.warmup + max(1, a.iters)):
            t0 = time.perf_counter()
            y = model(x).float().cpu().numpy()
            t1 = time.perf_counter()
            if i >= a.warmup:
                ms.append((t1 - t0) * 1e3)
    ms.sort()
    diff = float(np.abs(y.astype(np.float64) - want).max())
    rel = diff / max(float(np.abs(want).max()), 1e-30)
    rows = y.reshape(a.batch, -1)
    top1 = float(np.mean(rows.argmax(1) == want.reshape(a.batch, -1).argmax(1)))
    engine = "torch" if a.dtype == "float32" else "torch-" + a.dtype
    print("infer engine=%s device=%s model=%s batch=%d threads=%d median_ms=%.4f min_ms=%.4f "
          "max_abs_diff=%.3g rel_diff=%.3g top1_agree=%.3f"
          % (engine, a.device, a.model, a.batch, a.threads, ms[len(ms) // 2], ms[0], diff, rel, top1))
    if not rel <= a.tolerance:
        sys.exit("torch_bench: %s b%d differs from the stored output by %g relative"
                 % (a.model, a.batch, rel))


if __name__ == "__main__":
    main()
