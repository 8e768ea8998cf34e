#!/usr/bin/python3
"""PyTorch side of bench/bench_nn_ops.cc: the same operators, shapes and
passes, printed as rows of the same table (backend "torch").

fwd: the functional op with autograd recording (inputs require grad, as in
training; the graph is then dropped). bwd: torch.autograd.grad of the op's
output with a fixed head gradient, on a graph built once and retained, so only
the op's backward runs. Median of --iters runs after --warmup runs. Run with
Debian's /usr/bin/python3 (python3-torch 1.13).
"""
import argparse
import os
import statistics
import time

import torch
import torch.nn.functional as F


def median_ms(fn, warmup, iters):
    ts = []
    for i in range(warmup + iters):
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        if i >= warmup:
            ts.append((t1 - t0) * 1e3)
    return statistics.median(ts)


def u(shape, lo, hi, g, grad=True):
    return (torch.rand(shape, generator=g) * (hi - lo) + lo).requires_grad_(grad)


def cases(g):
    """(op, shape text, forward closure, differentiated inputs, output shape)."""
    x, w, b = u((128, 784), -1, 1, g), u((512, 784), -0.05, 0.05, g), u((512,), -0.1, 0.1, g)
    yield "FullyConnected", "128x784 -> 512", lambda x=x, w=w, b=b: F.linear(x, w, b), [x, w, b]

    x, w, b = u((1, 64, 56, 56), -1, 1, g), u((64, 64, 3, 3), -0.05, 0.05, g), u((64,), -0.1, 0.1, g)
    yield ("Convolution", "1x64x56x56, 64x3x3 pad 1",
           lambda x=x, w=w, b=b: F.conv2d(x, w, b, padding=1), [x, w, b])

    x = u((1, 64, 112, 112), -1, 1, g)
    yield ("Pooling", "max 3x3/2 pad 1, 1x64x112x112",
           lambda x=x: F.max_pool2d(x, 3, stride=2, padding=1), [x])

    x, gamma, beta = u((32, 64, 28, 28), -1, 1, g), u((64,), 0.5, 1.5, g), u((64,), -0.5, 0.5, g)
    rm, rv = u((64,), -0.1, 0.1, g, False), u((64,), 0.9, 1.1, g, False)
    yield ("BatchNorm", "train, 32x64x28x28",
           lambda x=x, gamma=gamma, beta=beta, rm=rm, rv=rv:
           F.batch_norm(x, rm, rv, gamma, beta, training=True, momentum=0.1, eps=1e-5),
           [x, gamma, beta])

    x = u((128, 1000), -4, 4, g)
    yield "softmax", "128x1000, axis -1", lambda x=x: F.softmax(x, dim=-1), [x]

    for rows, cols in ((32 * 128, 768), (64, 512)):
        x, gamma, beta = u((rows, cols), -2, 2, g), u((cols,), 0.5, 1.5, g), u((cols,), -0.5, 0.5, g)
        yield ("LayerNorm", f"{rows}x{cols}, axis -1",
               lambda x=x, gamma=gamma, beta=beta, cols=cols: F.layer_norm(x, (cols,), gamma, beta, eps=1e-5),
               [x, gamma, beta])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "1")))
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--filter", default="")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    g = torch.Generator().manual_seed(7)
    print(f"torch {torch.__version__} nn-op bench: median of {args.iters} runs after {args.warmup} warm-up, "
          f"threads={torch.get_num_threads()}, mkldnn={torch.backends.mkldnn.is_available()}\n")
    print("| impl | threads | op             | pass | shape                          | backend | invoke (ms) "
          "| kernel (ms) |\n|---|---|---|---|---|---|---|---|")
    for name, shape, fwd, params in cases(g):
        if args.filter and args.filter != name:
            continue
        t_fwd = median_ms(fwd, args.warmup, args.iters)
        y = fwd()
        dy = torch.rand(y.shape, generator=g) * 2 - 1
        t_bwd = median_ms(lambda: torch.autograd.grad(y, params, dy, retain_graph=True), args.warmup, args.iters)
        for pass_, t in (("fwd", t_fwd), ("bwd", t_bwd)):
            print(f"| torch | {args.threads:7d} | {name:<14} | {pass_:<4} | {shape:<30} | torch   | {t:12.4f} "
                  f"| {'-':>11} |", flush=True)


if __name__ == "__main__":
    main()
