#!/usr/bin/python3
"""PyTorch baseline for bench/bench_executor.cc: the same three models (MLP
784-512-256-10, LeNet, ResNet-18 with ImageNet-style basic blocks), the same
batch sizes and input shapes, forward+backward of softmax cross-entropy per
batch, median of --iters runs after --warmup. Prints the weft bench's time
table format. Threads: torch.set_num_threads(--threads, default
OMP_NUM_THREADS or 1).

Run with the Debian python: /usr/bin/python3 scripts/bench_executor_torch.py
"""
import argparse
import os
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp():
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))


def lenet():
    return nn.Sequential(
        nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Conv2d(20, 50, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Flatten(), nn.Linear(50 * 4 * 4, 500), nn.ReLU(), nn.Linear(500, 10))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, 0, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = self.bn2(self.conv2(h))
        return F.relu(h + (x if self.shortcut is None else self.shortcut(x)))


def resnet18():
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for stage, cout in enumerate([64, 128, 256, 512]):
        for unit in range(2):
            stride = 2 if stage > 0 and unit == 0 else 1
            layers.append(BasicBlock(cin, cout, stride))
            cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)]
    return nn.Sequential(*layers)


def time_fwd_bwd(model, data_shape, classes, warmup, iters):
    torch.manual_seed(1)
    x = torch.rand(*data_shape)
    y = torch.randint(0, classes, (data_shape[0],))
    model.train()
    ms = []
    for i in range(warmup + iters):
        t0 = time.perf_counter()
        model.zero_grad(set_to_none=False)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        t1 = time.perf_counter()
        if i >= warmup:
            ms.append((t1 - t0) * 1e3)
    return statistics.median(ms)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "1")))
    ap.add_argument("--resnet-size", type=int, default=224)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    s = a.resnet_size
    models = [("mlp", mlp(), (64, 784), 10), ("lenet", lenet(), (64, 1, 28, 28), 10),
              ("resnet18", resnet18(), (8, 3, s, s), 1000)]
    print(f"torch {torch.__version__} bench: mlp/lenet batch 64, resnet18 batch 8 at 3x{s}x{s}, "
          f"torch.get_num_threads()={torch.get_num_threads()}\n")
    print("| engine | threads | model     | batch | fwd+bwd median (ms) |\n|---|---|---|---|---|")
    for name, model, shape, classes in models:
        ms = time_fwd_bwd(model, shape, classes, a.warmup, a.iters)
        print(f"| torch  | {a.threads:7d} | {name:<9s} | {shape[0]:5d} | {ms:19.2f} |", flush=True)


if __name__ == "__main__":
    main()
