#!/usr/bin/python3
"""PyTorch baseline for bench/bench_train.cc: the same MLP (784-128-64-10)
and LeNet, the same Fashion-MNIST batches (64 and 128, shuffled), the same
step (forward, softmax cross-entropy, backward, SGD with momentum 0.9, batch
accuracy). Prints the weft bench's table rows: images/s over --batches
batches after --warmup, ms per batch, the projected 60000-image epoch, and
with --epoch one real epoch. Threads: torch.set_num_threads(--threads).

Run with the Debian python: /usr/bin/python3 scripts/bench_train_torch.py
"""
import argparse
import gzip
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def load(data_dir):
    def idx(name):
        with gzip.open(os.path.join(data_dir, name)) as f:
            raw = f.read()
        ndim = raw[3]
        dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
        return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)
    x = torch.from_numpy(idx("train-images-idx3-ubyte.gz").astype(np.float32) / 255.0).reshape(-1, 1, 28, 28)
    y = torch.from_numpy(idx("train-labels-idx1-ubyte.gz").astype(np.int64))
    return x, y


def mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                         nn.Linear(64, 10))


def lenet():
    return nn.Sequential(
        nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Conv2d(20, 50, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Flatten(), nn.Linear(50 * 4 * 4, 500), nn.ReLU(), nn.Linear(500, 10))


def run(args, x, y, name, batch):
    torch.manual_seed(7)
    model = {"mlp": mlp, "lenet": lenet}[name]()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    n = x.shape[0] // batch
    state = {"perm": torch.randperm(x.shape[0]), "pos": 0, "correct": 0}

    def step():
        if state["pos"] == n:
            state["perm"], state["pos"] = torch.randperm(x.shape[0]), 0
        idx = state["perm"][state["pos"] * batch:(state["pos"] + 1) * batch]
        state["pos"] += 1
        xb, yb = x[idx], y[idx]
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        state["correct"] += int((out.argmax(1) == yb).sum())

    for _ in range(args.warmup):
        step()
    t0 = time.perf_counter()
    for _ in range(args.batches):
        step()
    s = time.perf_counter() - t0
    ips = args.batches * batch / s
    epoch = "-"
    if args.epoch:
        state["pos"] = n
        t0 = time.perf_counter()
        for _ in range(n):
            step()
        epoch = "%.3f" % (time.perf_counter() - t0)
    print("| torch  | %7d | %-5s | %5d | %10.0f | %14.2f | %13.1f | %12s |" %
          (args.threads, name, batch, ips, 1000.0 * s / args.batches, 60000.0 / ips, epoch), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--batches", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--epoch", action="store_true")
    p.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "1")))
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    x, y = load(args.data_dir)
    print("| engine | threads | model | batch | images/s   | ms/batch       | epoch est (s) | epoch (s)    |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ("mlp", "lenet"):
        for batch in (64, 128):
            run(args, x, y, name, batch)


if __name__ == "__main__":
    main()
