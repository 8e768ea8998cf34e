#!/usr/bin/python3
"""PyTorch references for LayerNorm and GroupNorm (MXNet 1.9 semantics) in
the format of tests/util/op_refs.h.

Run with Debian's interpreter (python3-torch 1.13, numpy):
    /usr/bin/python3 scripts/gen_op_refs_norm.py [substring ...]
Writes tests/data/op_refs/<op>_<case>.json; see scripts/gen_op_refs.py for
the helpers and the filter. MXNet's extra outputs are mean and std =
sqrt(var + eps) (not the variance); its GroupNorm (1.x) has one gamma/beta
per group, not per channel. Gradients reaching the mean/std outputs are
ignored by MXNet, so their head gradients are written as null (zeros).
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_op_refs import rand, run_cases, write_case  # noqa: E402


def layer_norm(x, g, b, axis, eps, mean_var):
    ax = axis % x.dim()
    mean = x.mean(dim=ax, keepdim=True)
    std = torch.sqrt(((x - mean) ** 2).mean(dim=ax, keepdim=True) + eps)
    shape = [1] * x.dim()
    shape[ax] = x.shape[ax]
    y = (x - mean) / std * g.reshape(shape) + b.reshape(shape)
    return (y, mean, std) if mean_var else y


def layer_norm_cases():
    combos = [
        # case, data shape, axis, eps, output_mean_var
        ("last", (3, 7), -1, 1e-5, False),
        ("last_3d", (2, 3, 8), -1, 1e-5, False),
        ("axis1", (2, 4, 3), 1, 1e-3, False),
        ("axis0", (5, 3), 0, 1e-5, False),
        ("mean_var", (2, 3, 6), -1, 1e-2, True),
        ("mean_var_axis1", (2, 5, 3), 1, 1e-5, True),
    ]
    for case, shape, axis, eps, mv in combos:
        c = shape[axis]
        x, g, b = rand(*shape, lo=-2, hi=2), rand(c, lo=0.5, hi=1.5), rand(c)
        params = {"axis": axis, "eps": eps}
        if mv:
            params["output_mean_var"] = True
        ograds = None
        if mv:
            ograds = [rand(*shape), None, None]
        write_case("LayerNorm", case, [x, g, b], params,
                   lambda x, g, b, axis=axis, eps=eps, mv=mv: layer_norm(x, g, b, axis, eps, mv),
                   out_grads=ograds)
    # The default parameters (no kwargs).
    x, g, b = rand(4, 5), rand(5, lo=0.5, hi=1.5), rand(5)
    write_case("LayerNorm", "defaults", [x, g, b], {},
               lambda x, g, b: torch.nn.functional.layer_norm(x, (5,), g, b, eps=1e-5))


def group_norm(x, g, b, groups, eps, mean_var):
    n = x.shape[0]
    xg = x.reshape(n, groups, -1)
    mean = xg.mean(dim=2, keepdim=True)
    std = torch.sqrt(((xg - mean) ** 2).mean(dim=2, keepdim=True) + eps)
    y = ((xg - mean) / std * g.reshape(1, groups, 1) + b.reshape(1, groups, 1)).reshape(x.shape)
    return (y, mean.reshape(n, groups), std.reshape(n, groups)) if mean_var else y


def group_norm_cases():
    combos = [
        # case, data shape, num_groups, eps, output_mean_var
        ("g1", (2, 3, 4), 1, 1e-5, False),
        ("g2_nchw", (2, 4, 3, 2), 2, 1e-5, False),
        ("g3_eps", (1, 6, 5), 3, 1e-2, False),
        ("g2_mean_var", (3, 4, 2, 2), 2, 1e-5, True),
    ]
    for case, shape, groups, eps, mv in combos:
        x, g, b = rand(*shape, lo=-2, hi=2), rand(groups, lo=0.5, hi=1.5), rand(groups)
        params = {"num_groups": groups, "eps": eps}
        if mv:
            params["output_mean_var"] = True
        ograds = [rand(*shape), None, None] if mv else None
        write_case("GroupNorm", case, [x, g, b], params,
                   lambda x, g, b, gr=groups, eps=eps, mv=mv: group_norm(x, g, b, gr, eps, mv),
                   out_grads=ograds)
    # Cross-check the per-group formula against torch's own group_norm when
    # every group has one channel's worth of gamma (num_groups == C).
    x, g, b = rand(2, 3, 4, lo=-2, hi=2), rand(3, lo=0.5, hi=1.5), rand(3)
    write_case("GroupNorm", "torch_gc", [x, g, b], {"num_groups": 3},
               lambda x, g, b: torch.nn.functional.group_norm(x, 3, g, b, eps=1e-5))


CASES = [layer_norm_cases, group_norm_cases]

if __name__ == "__main__":
    run_cases(CASES)
