#!/usr/bin/python3
"""PyTorch references for the spatial NN operators (Convolution, Pooling,
BatchNorm) in the format of tests/util/op_refs.h.

Run with Debian's interpreter (python3-torch 1.13, numpy):
    /usr/bin/python3 scripts/gen_op_refs_conv.py [substring ...]
Writes tests/data/op_refs/<op>_<case>.json; see scripts/gen_op_refs.py for
the helpers and the filter. Cases are chosen where MXNet's and PyTorch's
conventions coincide (e.g. ceil_mode windows never start in the padding).
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_op_refs import rand, run_cases, write_case  # noqa: E402

F = torch.nn.functional


def conv_cases():
    combos = [
        # case, data shape, num_filter, groups, kernel, stride, dilate, pad, no_bias
        ("basic", (2, 3, 5, 6), 4, 1, (3, 3), None, None, None, False),
        ("stride_pad", (1, 2, 7, 6), 3, 1, (3, 2), (2, 1), None, (1, 1), False),
        ("dilate", (1, 2, 7, 7), 2, 1, (3, 3), None, (2, 2), (2, 1), True),
        ("groups", (2, 4, 5, 5), 6, 2, (3, 3), (2, 2), None, (1, 1), False),
        ("depthwise", (1, 3, 6, 5), 3, 3, (3, 3), None, None, (1, 1), True),
        ("pointwise", (2, 4, 3, 3), 5, 1, (1, 1), None, None, None, False),
        ("conv1d", (2, 3, 9), 4, 1, (3,), (2,), (1,), (1,), False),
        ("conv1d_group_dilate", (1, 4, 11), 2, 2, (3,), None, (2,), (2,), True),
    ]
    for case, dshape, nf, g, k, s, d, p, no_bias in combos:
        x = rand(*dshape)
        w = rand(nf, dshape[1] // g, *k)
        params = {"kernel": k, "num_filter": nf}
        if g != 1:
            params["num_group"] = g
        if s:
            params["stride"] = s
        if d:
            params["dilate"] = d
        if p:
            params["pad"] = p
        if no_bias:
            params["no_bias"] = True
        conv = F.conv1d if len(k) == 1 else F.conv2d
        kw = dict(stride=s or 1, dilation=d or 1, padding=p or 0, groups=g)
        if no_bias:
            write_case("Convolution", case, [x, w], params, lambda x, w: conv(x, w, **kw))
        else:
            b = rand(nf)
            write_case("Convolution", case, [x, w, b], params,
                       lambda x, w, b: conv(x, w, b, **kw))


def _sum_pool2d(x, k, s, p):
    return F.avg_pool2d(x, k, s, p, ceil_mode=False, count_include_pad=True, divisor_override=1)


def pool_cases():
    x = rand(2, 2, 7, 6)
    write_case("Pooling", "max_3x3_s2", [x], {"kernel": (3, 3), "stride": (2, 2)},
               lambda x: F.max_pool2d(x, 3, 2))
    x = rand(1, 3, 7, 7)
    # full: 1 + ceil((7 + 2 - 3) / 2) = 4; the last window starts inside.
    write_case("Pooling", "max_full_pad", [x],
               {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pooling_convention": "full"},
               lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True))
    x = rand(1, 2, 8, 8)
    write_case("Pooling", "max_full_even", [x],
               {"kernel": (3, 3), "stride": (2, 2), "pooling_convention": "full"},
               lambda x: F.max_pool2d(x, 3, 2, ceil_mode=True))
    x = rand(2, 2, 6, 5)
    write_case("Pooling", "avg_pad_include", [x],
               {"kernel": (3, 2), "stride": (2, 1), "pad": (1, 1), "pool_type": "avg"},
               lambda x: F.avg_pool2d(x, (3, 2), (2, 1), (1, 1), count_include_pad=True))
    write_case("Pooling", "avg_pad_exclude", [x],
               {"kernel": (3, 2), "stride": (2, 1), "pad": (1, 1), "pool_type": "avg",
                "count_include_pad": False},
               lambda x: F.avg_pool2d(x, (3, 2), (2, 1), (1, 1), count_include_pad=False))
    x = rand(1, 2, 8, 7)
    write_case("Pooling", "avg_full", [x],
               {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pool_type": "avg",
                "pooling_convention": "full"},
               lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=True))
    x = rand(2, 2, 5, 6)
    write_case("Pooling", "sum_pad", [x],
               {"kernel": (2, 3), "stride": (1, 2), "pad": (1, 1), "pool_type": "sum"},
               lambda x: _sum_pool2d(x, (2, 3), (1, 2), (1, 1)))
    x = rand(2, 3, 4, 5)
    write_case("Pooling", "global_avg", [x], {"global_pool": True, "pool_type": "avg"},
               lambda x: x.mean(dim=(2, 3), keepdim=True))
    write_case("Pooling", "global_max", [x], {"global_pool": True, "kernel": (1, 1)},
               lambda x: F.adaptive_max_pool2d(x, 1))
    x = rand(2, 3, 11)
    write_case("Pooling", "max1d", [x], {"kernel": (3,), "stride": (2,), "pad": (1,)},
               lambda x: F.max_pool1d(x, 3, 2, 1))
    x = rand(2, 2, 10)
    write_case("Pooling", "avg1d_exclude", [x],
               {"kernel": (4,), "stride": (3,), "pad": (1,), "pool_type": "avg",
                "count_include_pad": False},
               lambda x: F.avg_pool1d(x, 4, 3, 1, count_include_pad=False))


def _bn_torch(x, gamma, beta, mean, var, training, eps, fix_gamma, axis):
    """MXNet BatchNorm via torch: channel axis moved to 1; running stats are
    not updated here (MXNet's biased update is checked via inputs_after)."""
    xt = x.movedim(axis, 1)
    g = torch.ones_like(gamma) if fix_gamma else gamma
    y = F.batch_norm(xt, mean.detach().clone(), var.detach().clone(), g, beta,
                     training=training, momentum=0.0, eps=eps)
    return y.movedim(1, axis)


def _bn_case(case, dshape, axis=1, training=True, fix_gamma=False, use_global=False,
             output_mean_var=False, eps=1e-3, momentum=0.9):
    x = rand(*dshape, lo=-2, hi=2)
    c = dshape[axis]
    gamma, beta = rand(c, lo=0.5, hi=1.5), rand(c)
    mmean, mvar = rand(c, lo=-0.5, hi=0.5), rand(c, lo=0.5, hi=1.5)
    params = {"eps": eps, "momentum": momentum, "fix_gamma": fix_gamma}
    if axis != 1:
        params["axis"] = axis
    if use_global:
        params["use_global_stats"] = True
    if output_mean_var:
        params["output_mean_var"] = True
    batch = training and not use_global
    red = tuple(i for i in range(len(dshape)) if i != axis % len(dshape))
    bmean, bvar = x.mean(axis=red), x.var(axis=red)  # biased, as MXNet

    def fn(x, g, b, mm, mv):
        y = _bn_torch(x, g, b, mm, mv, batch, eps, fix_gamma, axis)
        if not output_mean_var:
            return y
        if batch:
            red_t = red
            return y, x.mean(dim=red_t), x.var(dim=red_t, unbiased=False)
        return y, mm * 1.0, mv * 1.0

    def after(inputs, outs):
        if not batch:
            return [None, None, None, inputs[3], inputs[4]]
        return [None, None, None, mmean * momentum + bmean * (1 - momentum),
                mvar * momentum + bvar * (1 - momentum)]

    n_out = 3 if output_mean_var else 1
    out_grads = [rand(*dshape)] + [None] * (n_out - 1)
    write_case("BatchNorm", case, [x, gamma, beta, mmean, mvar], params, fn, diff=[0, 1, 2],
               out_grads=out_grads, is_train=training, inputs_after=after)


def batchnorm_cases():
    _bn_case("train", (3, 2, 3, 2))
    _bn_case("train_fix_gamma", (2, 3, 4), fix_gamma=True, momentum=0.8)
    _bn_case("train_axis_last", (5, 3), axis=-1, eps=1e-5)
    _bn_case("train_mean_var", (4, 3, 2), output_mean_var=True)
    _bn_case("train_global_stats", (2, 3, 2, 2), use_global=True)
    _bn_case("infer", (2, 3, 2, 2), training=False)
    _bn_case("infer_fix_gamma_mean_var", (3, 2, 3), training=False, fix_gamma=True,
             output_mean_var=True)


def deconv_cases():
    combos = [
        # case, data, num_filter, groups, kernel, stride, dilate, pad, adj, target, bias
        ("basic", (2, 3, 4, 3), 2, 1, (3, 3), None, None, None, None, None, True),
        ("stride_adj_groups", (1, 4, 3, 4), 6, 2, (3, 2), (2, 2), (1, 2), (1, 1), (1, 0), None,
         True),
        ("target_shape", (1, 2, 3, 3), 4, 1, (4, 4), (2, 2), None, None, None, (6, 7), False),
        ("deconv1d", (2, 3, 5), 2, 1, (3,), (2,), (2,), (1,), (1,), None, True),
    ]
    for case, dshape, nf, g, k, s, d, p, adj, target, bias in combos:
        x = rand(*dshape)
        w = rand(dshape[1], nf // g, *k)
        params = {"kernel": k, "num_filter": nf}
        for key, v in [("stride", s), ("dilate", d), ("pad", p), ("adj", adj),
                       ("target_shape", target)]:
            if v:
                params[key] = v
        if g != 1:
            params["num_group"] = g
        if bias:
            params["no_bias"] = False
        st, dl = s or (1,) * len(k), d or (1,) * len(k)
        pad, outpad = p or (0,) * len(k), adj or (0,) * len(k)
        if target:
            pad, outpad = [], []
            for i in range(len(k)):
                total = st[i] * (dshape[2 + i] - 1) + dl[i] * (k[i] - 1) + 1 - target[i]
                pad.append((total + 1) // 2)
                outpad.append(total % 2)
        conv_t = F.conv_transpose1d if len(k) == 1 else F.conv_transpose2d
        kw = dict(stride=st, padding=tuple(pad), output_padding=tuple(outpad), groups=g,
                  dilation=dl)
        if bias:
            write_case("Deconvolution", case, [x, w, rand(nf)], params,
                       lambda x, w, b: conv_t(x, w, b, **kw))
        else:
            write_case("Deconvolution", case, [x, w], params, lambda x, w: conv_t(x, w, **kw))


def misc_cases():
    x = rand(2, 3, 2, 3)
    write_case("UpSampling", "nearest_x2", [x], {"scale": 2, "sample_type": "nearest"},
               lambda x: F.interpolate(x, scale_factor=2, mode="nearest"))
    x0, x1 = rand(1, 2, 2, 2), rand(1, 3, 3, 3)
    write_case("UpSampling", "nearest_concat", [x0, x1],
               {"scale": 3, "sample_type": "nearest", "num_args": 2},
               lambda a, b: torch.cat([F.interpolate(a, scale_factor=3, mode="nearest"),
                                       F.interpolate(b, size=(6, 6), mode="nearest")], 1))
    x = rand(1, 2, 3, 4)
    pw = (0, 0, 0, 0, 1, 2, 2, 1)
    write_case("Pad", "constant", [x], {"mode": "constant", "pad_width": pw, "constant_value": 0.5},
               lambda x: F.pad(x, (2, 1, 1, 2), mode="constant", value=0.5))
    write_case("Pad", "edge", [x], {"mode": "edge", "pad_width": pw},
               lambda x: F.pad(x, (2, 1, 1, 2), mode="replicate"))
    write_case("Pad", "reflect", [x], {"mode": "reflect", "pad_width": pw},
               lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"))
    x = rand(1, 2, 2, 3, 3)
    write_case("Pad", "edge_5d", [x], {"mode": "edge", "pad_width": (0, 0, 0, 0, 1, 0, 0, 2, 1, 1)},
               lambda x: F.pad(x, (1, 1, 0, 2, 1, 0), mode="replicate"))


def inst_norm_cases():
    x, g, b = rand(2, 3, 2, 3, lo=-2, hi=2), rand(3, lo=0.5, hi=1.5), rand(3)
    write_case("InstanceNorm", "nchw", [x, g, b], {"eps": 1e-3},
               lambda x, g, b: F.instance_norm(x, weight=g, bias=b, eps=1e-3))
    x, g, b = rand(3, 2, 5, lo=-2, hi=2), rand(2, lo=0.5, hi=1.5), rand(2)
    write_case("InstanceNorm", "ncw_eps", [x, g, b], {"eps": 0.1},
               lambda x, g, b: F.instance_norm(x, weight=g, bias=b, eps=0.1))
    x = rand(2, 3, 2, 2)
    for mode, dims in [("instance", (1, 2, 3)), ("channel", (1,)), ("spatial", (2, 3))]:
        write_case("L2Normalization", mode, [x], {"mode": mode, "eps": 1e-6},
                   lambda x, dims=dims: x / torch.sqrt((x * x).sum(dim=dims, keepdim=True) + 1e-6))


def lrn_cases():
    x = rand(2, 5, 2, 3, lo=-2, hi=2)
    write_case("LRN", "n3", [x], {"nsize": 3},
               lambda x: F.local_response_norm(x, 3, alpha=1e-4, beta=0.75, k=2.0))
    x = rand(1, 6, 4, lo=-2, hi=2)
    write_case("LRN", "n5_params", [x], {"nsize": 5, "alpha": 0.5, "beta": 0.6, "knorm": 1.5},
               lambda x: F.local_response_norm(x, 5, alpha=0.5, beta=0.6, k=1.5))


CASES = [conv_cases, pool_cases, batchnorm_cases, deconv_cases, misc_cases, inst_norm_cases,
         lrn_cases]

if __name__ == "__main__":
    run_cases(CASES)
