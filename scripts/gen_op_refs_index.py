#!/usr/bin/python3
"""PyTorch/NumPy references for the indexing, sorting and reduction
operators (argmax, pick, one_hot, take, gather_nd, scatter_nd, topk, sort,
argsort, max, min, prod, nansum, nanprod, norm) in the format of
tests/util/op_refs.h.

Run with Debian's interpreter (python3-torch 1.13, numpy):
    /usr/bin/python3 scripts/gen_op_refs_index.py [substring ...]
Writes tests/data/op_refs/<op>_<case>.json; see scripts/gen_op_refs.py for
the helpers and the filter. Inputs of the sort/search cases have no ties
(uniform floats), so every reference order is unambiguous; index outputs
are compared as numbers. JSON cannot hold NaN, so the NaN behaviour of
nansum/nanprod is tested in C++ (tests/core/op/reduce_ext_test.cc).
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_op_refs import rand, rand_int, run_cases, write_case  # noqa: E402


def argmax_cases():
    x = rand(3, 4, 5)
    write_case("argmax", "axis1", [x], {"axis": 1}, lambda x: torch.argmax(x, 1).double(), diff=[])
    write_case("argmax", "axis_none", [x], {}, lambda x: torch.argmax(x).reshape(1).double(), diff=[])
    write_case("argmax", "axis_none_keepdims", [x], {"keepdims": True},
               lambda x: torch.argmax(x).reshape(1, 1, 1).double(), diff=[])
    write_case("argmin", "axis_neg_keepdims", [x], {"axis": -1, "keepdims": True},
               lambda x: torch.argmin(x, -1, keepdim=True).double(), diff=[])
    write_case("argmin", "axis0", [x], {"axis": 0}, lambda x: torch.argmin(x, 0).double(), diff=[])
    write_case("argmax_channel", "basic", [x], {}, lambda x: torch.argmax(x, 1).double(), diff=[])


def pick_cases():
    x = rand(3, 4, 5)
    i1 = rand_int(3, 5, lo=0, hi=4)
    write_case("pick", "axis1", [x, i1], {"axis": 1},
               lambda x, i: torch.gather(x, 1, i.long().unsqueeze(1)).squeeze(1), diff=[0])
    i0 = rand_int(1, 4, 5, lo=0, hi=3)
    write_case("pick", "axis0_keepdims", [x, i0], {"axis": 0, "keepdims": True},
               lambda x, i: torch.gather(x, 0, i.long()), diff=[0], input_dtypes=[None, "int32"])
    il = rand_int(3, 4, lo=-7, hi=12)
    write_case("pick", "last_clip", [x, il], {},
               lambda x, i: torch.gather(x, 2, i.long().clamp(0, 4).unsqueeze(2)).squeeze(2), diff=[0])
    write_case("pick", "last_wrap", [x, il], {"mode": "wrap"},
               lambda x, i: torch.gather(x, 2, torch.remainder(i.long(), 5).unsqueeze(2)).squeeze(2),
               diff=[0])
    # Repeated picks of one position accumulate in the gradient (axis 0, 2-D).
    x2 = rand(2, 3)
    i2 = np.array([1.0, 1.0, 0.0])
    write_case("pick", "2d_axis0", [x2, i2], {"axis": 0},
               lambda x, i: torch.gather(x, 0, i.long().unsqueeze(0)).squeeze(0), diff=[0])


def one_hot_cases():
    i = np.array([[0.0, 3.0, 1.0], [4.0, -1.0, 2.0]])

    def ref(on, off):
        def f(t):
            n = t.numpy().astype(np.int64)
            out = np.full(n.shape + (4,), off)
            for k, v in np.ndenumerate(n):
                if 0 <= v < 4:
                    out[k + (v,)] = on
            return torch.tensor(out)
        return f
    write_case("one_hot", "basic", [i], {"depth": 4}, ref(1.0, 0.0), diff=[])
    write_case("one_hot", "on_off", [i], {"depth": 4, "on_value": 2.5, "off_value": -1.0}, ref(2.5, -1.0),
               diff=[], input_dtypes=["int32"])


def take_cases():
    a = rand(5, 3)
    idx = np.array([[0.0, 4.0], [2.0, 2.0]])
    write_case("take", "axis0", [a, idx], {}, lambda a, i: a[i.long()], diff=[0])
    a3 = rand(2, 4, 3)
    bad = np.array([-1.0, 5.0, 2.0])
    write_case("take", "axis1_clip", [a3, bad], {"axis": 1},
               lambda a, i: a[:, i.long().clamp(0, 3)], diff=[0], input_dtypes=[None, "int64"])
    write_case("take", "axis_neg_wrap", [a3, bad], {"axis": -1, "mode": "wrap"},
               lambda a, i: a[:, :, torch.remainder(i.long(), 3)], diff=[0])


def nd_cases():
    d = rand(3, 4, 2)
    idx = np.array([[0.0, 2.0, 2.0], [1.0, 3.0, 1.0]])  # (M=2, Y=3)
    write_case("gather_nd", "slices", [d, idx], {}, lambda d, i: d[i[0].long(), i[1].long()], diff=[0])
    idx3 = np.array([[[0.0, 2.0]], [[3.0, 1.0]], [[1.0, 0.0]]])  # (3, 1, 2)
    write_case("gather_nd", "elements", [d, idx3], {},
               lambda d, i: d[i[0].long(), i[1].long(), i[2].long()], diff=[0], input_dtypes=[None, "int32"])
    idxn = np.array([[-1.0, 0.0]])  # (1, 2): negative counts from the end
    write_case("gather_nd", "negative", [d, idxn], {}, lambda d, i: d[i[0].long() % 3], diff=[0])
    v = rand(3, 2)
    sidx = np.array([[0.0, 2.0, 1.0], [3.0, 0.0, 1.0]])
    write_case("scatter_nd", "slices", [v, sidx], {"shape": (3, 4, 2)},
               lambda v, i: torch.zeros(3, 4, 2).index_put((i[0].long(), i[1].long()), v), diff=[0])


def topk_cases():
    x = rand(3, 5, 4)
    write_case("topk", "indices_default", [x], {}, lambda x: torch.topk(x, 1, -1)[1].double(), diff=[])
    write_case("topk", "value_axis1", [x], {"axis": 1, "k": 3, "ret_typ": "value"},
               lambda x: torch.topk(x, 3, 1)[0])
    write_case("topk", "both_ascend", [x], {"axis": 0, "k": 2, "ret_typ": "both", "is_ascend": True},
               lambda x: (torch.topk(x, 2, 0, largest=False)[0],
                          torch.topk(x, 2, 0, largest=False)[1].double()),
               out_grads=[rand(2, 5, 4), None])
    write_case("topk", "value_flat_all", [x], {"axis": "None", "k": 0, "ret_typ": "value"},
               lambda x: torch.sort(x.reshape(-1), descending=True)[0])

    def mask(x):
        m = torch.zeros_like(x)
        return m.scatter(1, torch.topk(x, 2, 1)[1], 1.0)
    write_case("topk", "mask", [x], {"axis": 1, "k": 2, "ret_typ": "mask"}, mask, diff=[])


def sort_cases():
    x = rand(3, 5, 4)
    write_case("sort", "default", [x], {}, lambda x: torch.sort(x, dim=-1, stable=True)[0])
    write_case("sort", "axis0_desc", [x], {"axis": 0, "is_ascend": False},
               lambda x: torch.sort(x, dim=0, descending=True, stable=True)[0])
    write_case("sort", "flat", [x], {"axis": "None"}, lambda x: torch.sort(x.reshape(-1))[0])
    write_case("argsort", "default", [x], {}, lambda x: torch.argsort(x, -1).double(), diff=[])
    write_case("argsort", "axis1_desc", [x], {"axis": 1, "is_ascend": False, "dtype": "int32"},
               lambda x: torch.argsort(x, 1, descending=True).double(), diff=[])


def _prod(x, axes, keep):
    for a in sorted(axes, reverse=True):
        x = torch.prod(x, a, keepdim=keep)
    return x


def reduce_cases():
    x = rand(2, 3, 4)
    write_case("max", "axis1", [x], {"axis": 1}, lambda x: torch.amax(x, 1))
    write_case("max_axis", "all", [x], {}, lambda x: torch.amax(x).reshape(1))
    write_case("max", "exclude_keepdims", [x], {"axis": 1, "exclude": True, "keepdims": True},
               lambda x: torch.amax(x, (0, 2), keepdim=True))
    write_case("min", "axes", [x], {"axis": (0, 2)}, lambda x: torch.amin(x, (0, 2)))
    write_case("min_axis", "neg_keepdims", [x], {"axis": -1, "keepdims": True},
               lambda x: torch.amin(x, -1, keepdim=True))
    p = rand(2, 3, 4, lo=0.5, hi=1.5) * np.sign(rand(2, 3, 4))
    write_case("prod", "axis1", [p], {"axis": 1}, lambda x: torch.prod(x, 1))
    write_case("prod", "all", [p], {}, lambda x: torch.prod(x).reshape(1))
    write_case("prod", "axes_keepdims", [p], {"axis": (0, 2), "keepdims": True}, lambda x: _prod(x, (0, 2), True))
    write_case("nansum", "axis0", [x], {"axis": 0}, lambda x: torch.nansum(x, 0))
    write_case("nanprod", "exclude", [p], {"axis": 0, "exclude": True}, lambda x: _prod(x, (1, 2), False))
    write_case("norm", "default", [x], {}, lambda x: torch.linalg.vector_norm(x).reshape(1))
    write_case("norm", "l1_axis1", [x], {"ord": 1, "axis": 1}, lambda x: torch.linalg.vector_norm(x, 1, 1))
    write_case("norm", "l2_axes_keepdims", [x], {"axis": (0, 2), "keepdims": True},
               lambda x: torch.linalg.vector_norm(x, 2, (0, 2), keepdim=True))


CASES = [argmax_cases, pick_cases, one_hot_cases, take_cases, nd_cases, topk_cases, sort_cases,
         reduce_cases]

if __name__ == "__main__":
    run_cases(CASES)
