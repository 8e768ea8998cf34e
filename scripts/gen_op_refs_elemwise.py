#!/usr/bin/python3
"""PyTorch references for the elementwise math operators (unary math,
maximum/minimum/power/hypot/mod in their same-shape, broadcast and scalar
forms, comparisons and logical ops, _contrib_div_sqrt_dim) in the format of
tests/util/op_refs.h.

Run with Debian's interpreter (python3-torch 1.13, numpy):
    /usr/bin/python3 scripts/gen_op_refs_elemwise.py [substring ...]
Writes tests/data/op_refs/<op>_<case>.json; see scripts/gen_op_refs.py for
the helpers and the filter. Inputs stay away from ties, kinks and integer
quotients (where MXNet and PyTorch conventions differ); those are covered by
closed-form tests in C++. Ops without a gradient in PyTorch (comparisons,
rounding) are written as `cmp(x) + 0 * x` so the reference gradient is the
zero gradient MXNet defines.
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_op_refs import rand, rand_int, run_cases, write_case  # noqa: E402


def _signed(*shape, lo=0.3, hi=2.0):
    """Uniform magnitudes in [lo, hi) with random signs (away from 0)."""
    a = rand(*shape, lo=lo, hi=hi)
    s = np.where(rand(*shape) < 0, -1.0, 1.0)
    return a * s


def _zero_grad(f):
    """f's values with a zero gradient for every input."""
    return lambda *xs: f(*xs).double().detach() + sum(0 * x for x in xs)


def unary_cases():
    T = torch
    specs = [
        # op, torch fn, lo, hi
        ("rsqrt", T.rsqrt, 0.2, 3.0),
        ("cbrt", lambda x: T.sign(x) * T.abs(x) ** (1.0 / 3), None, None),
        ("reciprocal", T.reciprocal, None, None),
        ("log1p", T.log1p, -0.5, 3.0),
        ("expm1", T.expm1, -2.0, 2.0),
        ("log2", T.log2, 0.2, 4.0),
        ("log10", T.log10, 0.2, 4.0),
        ("sin", T.sin, -3.0, 3.0),
        ("cos", T.cos, -3.0, 3.0),
        ("tan", T.tan, -1.2, 1.2),
        ("arcsin", T.asin, -0.9, 0.9),
        ("arccos", T.acos, -0.9, 0.9),
        ("arctan", T.atan, -3.0, 3.0),
        ("sinh", T.sinh, -2.0, 2.0),
        ("cosh", T.cosh, -2.0, 2.0),
        ("arcsinh", T.asinh, -3.0, 3.0),
        ("arccosh", T.acosh, 1.2, 4.0),
        ("arctanh", T.atanh, -0.9, 0.9),
        ("erf", T.erf, -2.0, 2.0),
        ("erfinv", T.erfinv, -0.9, 0.9),
        ("gamma", lambda x: T.exp(T.lgamma(x)), 0.3, 4.0),
        ("gammaln", T.lgamma, 0.3, 5.0),
        ("softsign", torch.nn.functional.softsign, -3.0, 3.0),
    ]
    for op, f, lo, hi in specs:
        x = _signed(3, 4) if lo is None else rand(3, 4, lo=lo, hi=hi)
        write_case(op, "basic", [x], {}, f)
    # Rounding and sign: zero gradients; no halves in random data.
    x = rand(3, 5, lo=-3.0, hi=3.0)
    for op, f in [("floor", T.floor), ("ceil", T.ceil), ("round", T.round), ("rint", T.round),
                  ("fix", T.trunc), ("trunc", T.trunc), ("sign", T.sign)]:
        write_case(op, "basic", [x], {}, _zero_grad(f))
    xi = rand_int(3, 4, lo=-2, hi=3)
    write_case("logical_not", "basic", [xi], {}, _zero_grad(lambda a: a == 0))
    # hard_sigmoid: MXNet's alpha and beta are float32 (real_t).
    x = rand(4, 5, lo=-4.0, hi=4.0)
    for case, alpha, beta in [("default", 0.2, 0.5), ("alpha_beta", 0.3, 0.25)]:
        a, b = float(np.float32(alpha)), float(np.float32(beta))
        params = {} if case == "default" else {"alpha": alpha, "beta": beta}
        write_case("hard_sigmoid", case, [x], params,
                   lambda t, a=a, b=b: torch.clamp(a * t + b, 0.0, 1.0))
    x = rand(2, 3, 5)
    write_case("_contrib_div_sqrt_dim", "basic", [x], {}, lambda t: t / np.sqrt(5.0))


def _mod(a, b):
    return torch.remainder(a, b)


def binary_cases():
    def u(lo, hi):
        return lambda *s: rand(*s, lo=lo, hi=hi)

    # op suffix, torch fn, lhs sampler, rhs sampler
    specs = [
        ("maximum", torch.maximum, u(-2, 2), u(-2, 2)),
        ("minimum", torch.minimum, u(-2, 2), u(-2, 2)),
        ("power", torch.pow, u(0.5, 2), u(-1.5, 1.5)),
        ("hypot", torch.hypot, u(-2, 2), u(-2, 2)),
        ("mod", _mod, u(-3, 3), lambda *s: _signed(*s, lo=0.5, hi=2)),
    ]
    for name, f, ls, rs in specs:
        write_case("_" + name, "basic", [ls(3, 4), rs(3, 4)], {}, f)
        write_case("broadcast_" + name, "row", [ls(2, 3, 4), rs(3, 1)], {}, f)
        write_case("broadcast_" + name, "both", [ls(2, 1, 4), rs(1, 3, 1)], {}, f)
    # Legacy aliases resolve to the same ops.
    write_case("_Maximum", "alias", [rand(2, 3), rand(2, 3)], {}, torch.maximum)
    write_case("_Mod", "alias", [rand(2, 3, lo=-3, hi=3), _signed(2, 3, lo=0.5, hi=2)], {}, _mod)


def scalar_cases():
    x = rand(3, 4, lo=-2, hi=2)
    full = lambda t, s: torch.full_like(t, s)  # noqa: E731
    write_case("_maximum_scalar", "basic", [x], {"scalar": 0.25},
               lambda t: torch.maximum(t, full(t, 0.25)))
    write_case("_minimum_scalar", "basic", [x], {"scalar": -0.5},
               lambda t: torch.minimum(t, full(t, -0.5)))
    write_case("_MinimumScalar", "alias", [x], {"scalar": 0.5},
               lambda t: torch.minimum(t, full(t, 0.5)))
    write_case("_power_scalar", "basic", [rand(3, 4, lo=0.3, hi=2)], {"scalar": 1.5},
               lambda t: t ** 1.5)
    write_case("_rpower_scalar", "basic", [x], {"scalar": 2.5}, lambda t: 2.5 ** t)
    write_case("_hypot_scalar", "basic", [x], {"scalar": 1.5},
               lambda t: torch.hypot(t, full(t, 1.5)))
    write_case("_mod_scalar", "basic", [rand(3, 4, lo=-3, hi=3)], {"scalar": 0.75},
               lambda t: torch.remainder(t, 0.75))
    write_case("_mod_scalar", "negative", [rand(3, 4, lo=-3, hi=3)], {"scalar": -0.75},
               lambda t: torch.remainder(t, -0.75))
    write_case("_rmod_scalar", "basic", [_signed(3, 4, lo=0.4, hi=2)], {"scalar": 2.5},
               lambda t: torch.remainder(full(t, 2.5), t))


def compare_cases():
    rels = [("equal", torch.eq), ("not_equal", torch.ne), ("greater", torch.gt),
            ("greater_equal", torch.ge), ("lesser", torch.lt), ("lesser_equal", torch.le),
            ("logical_and", torch.logical_and), ("logical_or", torch.logical_or),
            ("logical_xor", torch.logical_xor)]
    for name, f in rels:
        # Small integers: ties and zeros occur.
        a, b = rand_int(3, 4, lo=-1, hi=2), rand_int(3, 4, lo=-1, hi=2)
        write_case("_" + name, "basic", [a, b], {}, _zero_grad(f))
        a, b = rand_int(2, 3, 4, lo=-1, hi=2), rand_int(3, 1, lo=-1, hi=2)
        write_case("broadcast_" + name, "row", [a, b], {}, _zero_grad(f))
        a = rand_int(3, 4, lo=-1, hi=2)
        write_case("_" + name + "_scalar", "basic", [a], {"scalar": 1.0},
                   _zero_grad(lambda t, f=f: f(t, torch.ones_like(t))))
    a = rand_int(3, 4, lo=-1, hi=2)
    write_case("_GreaterEqualScalar", "alias", [a], {"scalar": 0.0},
               _zero_grad(lambda t: t >= 0))
    write_case("_Not_Equal", "alias", [a, rand_int(3, 4, lo=-1, hi=2)], {}, _zero_grad(torch.ne))


CASES = [unary_cases, binary_cases, scalar_cases, compare_cases]

if __name__ == "__main__":
    run_cases(CASES)
