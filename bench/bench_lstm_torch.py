#!/usr/bin/python3
"""PyTorch side of bench/bench_lstm.sh: torch.nn.LSTM (2 layers, hidden 512,
input 512, seq 35, batch 32, float32) forward, and backward of
sum(out*g) + sum(hy*gh) + sum(cy*gc) w.r.t. input, weights and states.
Prints "torch | <pass> | <median ms> | <min ms>" like bench/bench_lstm.cc.
"fwd" is the forward with autograd recording (training); "bwd" is the
backward alone of a freshly recorded forward."""
import argparse
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--iters", type=int, default=10)
ap.add_argument("--warmup", type=int, default=2)
args = ap.parse_args()

torch.manual_seed(7)
L, H, I, T, N = 2, 512, 512, 35, 32
lstm = torch.nn.LSTM(I, H, num_layers=L)
x = torch.empty(T, N, I).uniform_(-1, 1).requires_grad_()
h0 = torch.empty(L, N, H).uniform_(-1, 1).requires_grad_()
c0 = torch.empty(L, N, H).uniform_(-1, 1).requires_grad_()
g, gh, gc = torch.rand(T, N, H), torch.rand(L, N, H), torch.rand(L, N, H)


def fwd():
    return lstm(x, (h0, c0))


def bwd(res):
    y, (hy, cy) = res
    torch.autograd.backward([y, hy, cy], [g, gh, gc])


def med(ts):
    ts = sorted(ts)
    return ts[len(ts) // 2], ts[0]


for _ in range(args.warmup):
    bwd(fwd())
tf, tb = [], []
for _ in range(args.iters):
    t0 = time.perf_counter()
    r = fwd()
    t1 = time.perf_counter()
    bwd(r)
    t2 = time.perf_counter()
    tf.append((t1 - t0) * 1e3)
    tb.append((t2 - t1) * 1e3)
tt = [a + b for a, b in zip(tf, tb)]
for name, ts in (("fwd", tf), ("bwd", tb), ("fwd+bwd", tt)):
    m, lo = med(ts)
    print(f"torch | {name} | {m:.3f} | {lo:.3f}")
