#!/usr/bin/python3
"""PyTorch peer of weft_bench_train_step (bench/bench_train_step.cc).

    torch_train_step.py DIR MODEL BATCH [--iters N] [--warmup W] [--device cuda]

Rebuilds MODEL with export_models.build without its final softmax, loads DIR/MODEL.pt,
and times one training step (forward, softmax cross-entropy, backward, SGD with
momentum 0.9, lr 0.01) on one random batch in train mode; each step ends with the
device synchronised. TF32 is off (float32 math, as weft's cuDNN and cuBLAS calls).
Prints one line as weft_bench_train_step does (engine=torch).
"""
import argparse
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "infer_peers"))
from export_models import build  # noqa: E402

SHAPES = {"mlp": (784,), "lenet": (1, 28, 28), "resnet18": (3, 224, 224)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("model")
    p.add_argument("batch", type=int)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--device", default="cuda")
    a = p.parse_args()
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    model = build(a.model)
    model.load_state_dict(torch.load(os.path.join(a.dir, a.model + ".pt")))
    net = model[:-1].train().to(a.device)  # without the softmax
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    gen = torch.Generator().manual_seed(1)
    x = (torch.rand((a.batch,) + SHAPES[a.model], generator=gen) * 2 - 1).to(a.device)
    classes = 1000 if a.model == "resnet18" else 10
    y = torch.tensor([(i * 37) % classes for i in range(a.batch)]).to(a.device)
    sync = torch.cuda.synchronize if a.device.startswith("cuda") else (lambda: None)
    ms = []
    for i in range(a.warmup + max(1, a.iters)):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(net(x), y).backward()
        opt.step()
        sync()
        t1 = time.perf_counter()
        if i >= a.warmup:
            ms.append((t1 - t0) * 1e3)
    ms.sort()
    med = ms[len(ms) // 2]
    print("train engine=torch device=%s model=%s batch=%d median_ms=%.3f min_ms=%.3f images_per_s=%.1f"
          % (a.device, a.model, a.batch, med, ms[0], 1000.0 * a.batch / med))


if __name__ == "__main__":
    main()
