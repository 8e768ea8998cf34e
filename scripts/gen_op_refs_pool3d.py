#!/usr/bin/python3
"""PyTorch references for 3-D Pooling (max / avg / sum, global), 3-D
Convolution and 3-D Deconvolution on NCDHW data in the format of
tests/util/op_refs.h.

Run with Debian's interpreter (python3-torch 1.13, numpy):
    /usr/bin/python3 scripts/gen_op_refs_pool3d.py [substring ...]
Writes tests/data/op_refs/{Pooling,Convolution,Deconvolution}_3d_<case>.json; see scripts/gen_op_refs.py
for the helpers and the filter. MXNet's valid convention is torch's floor
mode; max ignores padding in both; avg with count_include_pad divides by
the window clipped to the padded input in both; sum = avg * window size
when there is no padding.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_op_refs import rand, run_cases, write_case  # noqa: E402

F = torch.nn.functional


def pool3d_cases():
    x = rand(1, 2, 4, 4, 4, lo=-2, hi=2)
    write_case("Pooling", "3d_max_k2s2", [x], {"kernel": (2, 2, 2), "stride": (2, 2, 2), "pool_type": "max"},
               lambda x: F.max_pool3d(x, 2, 2))
    x = rand(1, 1, 5, 5, 5, lo=-2, hi=2)
    write_case("Pooling", "3d_max_k3s2p1", [x],
               {"kernel": (3, 3, 3), "stride": (2, 2, 2), "pad": (1, 1, 1), "pool_type": "max"},
               lambda x: F.max_pool3d(x, 3, 2, 1))
    x = rand(2, 1, 3, 5, 4, lo=-2, hi=2)
    for case, include in [("3d_avg_pad", True), ("3d_avg_pad_exclude", False)]:
        write_case("Pooling", case, [x],
                   {"kernel": (2, 3, 3), "stride": (1, 2, 2), "pad": (0, 1, 1), "pool_type": "avg",
                    "count_include_pad": include},
                   lambda x, include=include: F.avg_pool3d(x, (2, 3, 3), (1, 2, 2), (0, 1, 1),
                                                           count_include_pad=include))
    x = rand(1, 2, 4, 3, 4, lo=-2, hi=2)
    write_case("Pooling", "3d_sum", [x], {"kernel": (2, 1, 2), "stride": (2, 1, 2), "pool_type": "sum"},
               lambda x: F.avg_pool3d(x, (2, 1, 2), (2, 1, 2)) * 4)
    x = rand(2, 3, 2, 3, 2, lo=-2, hi=2)
    write_case("Pooling", "3d_global_avg", [x], {"kernel": (1, 1, 1), "global_pool": True, "pool_type": "avg"},
               lambda x: x.mean(dim=(2, 3, 4), keepdim=True))


def conv3d_cases():
    combos = [
        # case, data shape, num_filter, groups, kernel, stride, dilate, pad, no_bias
        ("3d_basic", (2, 2, 4, 4, 3), 3, 1, (2, 3, 2), None, None, None, False),
        ("3d_stride_pad_dilate", (1, 2, 5, 5, 5), 2, 1, (3, 2, 3), (2, 1, 2), (1, 2, 1), (1, 1, 0), True),
        ("3d_groups", (1, 4, 3, 4, 4), 4, 2, (1, 3, 3), (1, 2, 2), None, (0, 1, 1), False),
    ]
    for case, shape, nf, groups, k, s, d, p, no_bias in combos:
        x = rand(*shape)
        w = rand(nf, shape[1] // groups, *k)
        params = {"kernel": k, "num_filter": nf}
        if groups > 1:
            params["num_group"] = groups
        if s:
            params["stride"] = s
        if d:
            params["dilate"] = d
        if p:
            params["pad"] = p
        if no_bias:
            params["no_bias"] = True
        kw = dict(stride=s or 1, padding=p or 0, dilation=d or 1, groups=groups)
        if no_bias:
            write_case("Convolution", case, [x, w], params, lambda x, w, kw=kw: F.conv3d(x, w, **kw))
        else:
            write_case("Convolution", case, [x, w, rand(nf)], params,
                       lambda x, w, b, kw=kw: F.conv3d(x, w, b, **kw))


def deconv3d_cases():
    """Deconvolution = conv_transpose3d (weight (C, F / G, k...)); adj is
    torch's output_padding; no_bias defaults to True in MXNet."""
    x = rand(2, 2, 2, 3, 2)
    w = rand(2, 3, 2, 2, 3)
    write_case("Deconvolution", "3d_basic", [x, w], {"kernel": (2, 2, 3), "num_filter": 3},
               lambda x, w: F.conv_transpose3d(x, w))
    x = rand(1, 4, 2, 3, 3)
    w = rand(4, 1, 3, 2, 3)
    b = rand(2)
    write_case("Deconvolution", "3d_stride_pad_adj_groups", [x, w, b],
               {"kernel": (3, 2, 3), "num_filter": 2, "num_group": 2, "stride": (2, 2, 1), "pad": (1, 0, 1),
                "adj": (1, 1, 0), "no_bias": False},
               lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 2, 1), padding=(1, 0, 1),
                                                  output_padding=(1, 1, 0), groups=2))


CASES = [pool3d_cases, conv3d_cases, deconv3d_cases]

if __name__ == "__main__":
    run_cases(CASES)
