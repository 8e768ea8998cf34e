#!/usr/bin/python3
"""PyTorch side of bench/bench_infer_peers.sh (Debian's /usr/bin/python3, python3-torch).

    torch_bench.py DIR MODEL BATCH [--iters N] [--warmup W] [--threads T] [--device cuda]

Rebuilds MODEL with export_models.build, loads DIR/MODEL.pt, and times the eval-mode
forward under torch.inference_mode() with torch.set_num_threads(T) on the stored input
of the batch. Prints one line as weft_bench_infer does (engine=torch) and checks the
output against the stored one (the same weights and input must give it back). With
--device cuda the model and input sit on the GPU, each timed forward ends with the
output copied to the host (as weft's), and TF32 is off (float32 math, as weft's cuDNN
and cuBLAS calls).
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
    a = p.parse_args()
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_num_threads(a.threads)
    model = build(a.model)
    model.load_state_dict(torch.load(os.path.join(a.dir, a.model + ".pt")))
    model.eval().to(a.device)
    stem = os.path.join(a.dir, "%s-b%d" % (a.model, a.batch))
    x = torch.from_numpy(np.load(stem + "-input.npy")).to(a.device)
    want = np.load(stem + "-output.npy")
    ms = []
    with torch.inference_mode():
        for i in range(a.warmup + max(1, a.iters)):
            t0 = time.perf_counter()
            y = model(x).cpu().numpy()
            t1 = time.perf_counter()
            if i >= a.warmup:
                ms.append((t1 - t0) * 1e3)
    ms.sort()
    diff = float(np.abs(y.astype(np.float64) - want).max())
    rel = diff / max(float(np.abs(want).max()), 1e-30)
    print("infer engine=torch device=%s model=%s batch=%d threads=%d median_ms=%.4f min_ms=%.4f "
          "max_abs_diff=%.3g rel_diff=%.3g" % (a.device, a.model, a.batch, a.threads, ms[len(ms) // 2],
                                               ms[0], diff, rel))
    if not rel <= 1e-4:
        sys.exit("torch_bench: %s b%d differs from the stored output by %g relative"
                 % (a.model, a.batch, rel))


if __name__ == "__main__":
    main()
