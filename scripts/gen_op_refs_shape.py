#!/usr/bin/python3
"""Reference data for the shape operators (slice, slice_like, Crop, stack,
tile, repeat, reverse, SwapAxis, broadcast_to/_like/_axis, depth_to_space,
space_to_depth, diag, _arange, _contrib_arange_like), computed with PyTorch
and Python's own slice semantics. Run with /usr/bin/python3 (see
scripts/gen_op_refs.py); writes tests/data/op_refs/<op>_<case>.json.
"""
import numpy as np
import torch

from gen_op_refs import rand, run_cases, write_case


def py_slice(x, begin, end, step):
    """x sliced like Python's x[b0:e0:s0, ...] (indices from range slicing)."""
    for ax in range(len(begin)):
        s = step[ax] if step else None
        idx = list(range(x.shape[ax]))[slice(begin[ax], end[ax], s)]
        x = torch.index_select(x, ax, torch.tensor(idx, dtype=torch.long))
    return x


def slice_cases():
    x = rand(3, 4)
    write_case("slice", "basic", [x], {"begin": (0, 1), "end": (2, 3)},
               lambda a: py_slice(a, (0, 1), (2, 3), ()))
    x = rand(3, 4, 5)
    b, e, s = (None, -1, 4), (None, None, -6), (-1, -2, -2)
    write_case("slice", "neg_step_none", [x], {"begin": "(None, -1, 4)", "end": "(None, None, -6)",
                                               "step": "(-1, -2, -2)"},
               lambda a: py_slice(a, b, e, s))
    b, e, s = (1, -3), (100, None), (2, None)
    write_case("crop", "alias_clip", [x], {"begin": "(1, -3)", "end": "(100, None)", "step": "(2, None)"},
               lambda a: py_slice(a, b, e, s))
    like = rand(2, 4, 3)
    write_case("slice_like", "axes", [x, like], {"axes": (0, -1)}, lambda a, l: a[:2, :, :3], diff=[0])
    write_case("slice_like", "all", [rand(3, 4), rand(2, 2)], {}, lambda a, l: a[:2, :2], diff=[0])


def crop_cases():
    x = rand(2, 2, 4, 5)
    write_case("Crop", "hw_offset", [x], {"num_args": 1, "h_w": (2, 3), "offset": (1, 2)},
               lambda a: a[:, :, 1:3, 2:5])
    write_case("Crop", "like_center", [x, rand(1, 1, 2, 2)], {"num_args": 2, "center_crop": True},
               lambda a, l: a[:, :, 1:3, 1:3], diff=[0])


def join_cases():
    xs = [rand(2, 3) for _ in range(3)]
    write_case("stack", "axis1", xs, {"num_args": 3, "axis": 1}, lambda *a: torch.stack(a, 1))
    write_case("stack", "axis_last", xs[:2], {"num_args": 2, "axis": -1}, lambda *a: torch.stack(a, -1))


def tile_cases():
    x = rand(2, 3)
    write_case("tile", "longer_reps", [x], {"reps": (2, 1, 2)}, lambda a: a.repeat(2, 1, 2))
    write_case("tile", "shorter_reps", [rand(2, 1, 3)], {"reps": (3,)}, lambda a: a.repeat(1, 1, 3))
    write_case("repeat", "axis1", [x], {"repeats": 3, "axis": 1}, lambda a: torch.repeat_interleave(a, 3, 1))
    write_case("repeat", "flat", [x], {"repeats": 2}, lambda a: torch.repeat_interleave(a.reshape(-1), 2))
    write_case("repeat", "neg_axis", [x], {"repeats": 2, "axis": -2}, lambda a: torch.repeat_interleave(a, 2, 0))


def reorder_cases():
    x = rand(2, 3, 4)
    write_case("reverse", "axes02", [x], {"axis": (0, 2)}, lambda a: torch.flip(a, [0, 2]))
    write_case("flip", "alias", [x], {"axis": 1}, lambda a: torch.flip(a, [1]))
    write_case("SwapAxis", "d0_d2", [x], {"dim1": 0, "dim2": 2}, lambda a: a.transpose(0, 2))
    write_case("swapaxes", "alias_neg", [x], {"dim1": -1, "dim2": 1}, lambda a: a.transpose(2, 1))
    # DCR order as MXNet documents it; checked independently against PyTorch's
    # pixel_shuffle (CRD) after permuting the channels.
    y = rand(2, 8, 2, 3)

    def d2s(a):
        n, c, h, w = a.shape
        b = 2
        ref = a.reshape(n, b, b, c // 4, h, w).permute(0, 3, 4, 1, 5, 2).reshape(n, c // 4, h * b, w * b)
        crd = a.reshape(n, b * b, c // 4, h, w).transpose(1, 2).reshape(n, c, h, w)
        assert torch.equal(ref, torch.nn.functional.pixel_shuffle(crd, b))
        return ref
    write_case("depth_to_space", "b2", [y], {"block_size": 2}, d2s)
    z = rand(1, 2, 4, 6)

    def s2d(a):
        n, c, h, w = a.shape
        b = 2
        ref = a.reshape(n, c, h // b, b, w // b, b).permute(0, 3, 5, 1, 2, 4).reshape(n, c * 4, h // b, w // b)
        crd = torch.nn.functional.pixel_unshuffle(a, b)  # (n, c*b*b) in (c, b, b) order
        assert torch.equal(ref, crd.reshape(n, c, b * b, h // b, w // b).transpose(1, 2).reshape(ref.shape))
        return ref
    write_case("space_to_depth", "b2", [z], {"block_size": 2}, s2d)


def broadcast_cases():
    write_case("broadcast_to", "keep0", [rand(1, 3, 1)], {"shape": (2, 0, 4)}, lambda a: a.expand(2, 3, 4))
    write_case("broadcast_like", "full", [rand(1, 3), rand(2, 3)], {}, lambda a, b: a.expand(2, 3), diff=[0])
    write_case("broadcast_like", "axes", [rand(1, 3), rand(2, 5)], {"lhs_axes": (0,), "rhs_axes": (-1,)},
               lambda a, b: a.expand(5, 3), diff=[0])
    write_case("broadcast_axis", "mid", [rand(2, 1, 3, 1)], {"axis": (1, 3), "size": (4, 2)},
               lambda a: a.expand(2, 4, 3, 2))
    write_case("broadcast_axes", "alias", [rand(1, 3)], {"axis": 0, "size": 3}, lambda a: a.expand(3, 3))


def diag_cases():
    write_case("diag", "k1", [rand(3, 4)], {"k": 1}, lambda a: torch.diagonal(a, 1, 0, 1))
    write_case("diag", "axes_kneg", [rand(3, 2, 4)], {"k": -1, "axis1": 2, "axis2": 0},
               lambda a: torch.diagonal(a, -1, 2, 0))
    write_case("diag", "vec_k2", [rand(3)], {"k": 2}, lambda a: torch.diag(a, 2))
    write_case("diag", "vec_kneg", [rand(3)], {"k": -1}, lambda a: torch.diag(a, -1))


def range_cases():
    write_case("_arange", "repeat", [], {"start": 2, "stop": 11, "step": 3, "repeat": 2},
               lambda: torch.arange(2.0, 11.0, 3.0).repeat_interleave(2), diff=[])
    write_case("_arange", "stop_none", [], {"start": 5}, lambda: torch.arange(5.0), diff=[])
    write_case("_arange", "neg_step", [], {"start": 1, "stop": -1.2, "step": -0.5, "dtype": "float64"},
               lambda: torch.arange(1.0, -1.2, -0.5), diff=[])
    x = rand(2, 3)
    write_case("_contrib_arange_like", "repeat", [x], {"start": 1, "step": 0.5, "repeat": 2},
               lambda a: (1.0 + 0.5 * (torch.arange(6.0) // 2)).reshape(2, 3) + 0 * a, diff=[])
    write_case("_contrib_arange_like", "axis", [x], {"start": -2, "axis": -1},
               lambda a: torch.arange(-2.0, 1.0) + 0 * a[0], diff=[])


CASES = [slice_cases, crop_cases, join_cases, tile_cases, reorder_cases, broadcast_cases, diag_cases, range_cases]

if __name__ == "__main__":
    run_cases(CASES)
