#!/usr/bin/python3
"""Generates operator reference data with PyTorch for the C++ op tests.

Run with Debian's interpreter, which has python3-torch (1.13) and numpy:
    /usr/bin/python3 scripts/gen_op_refs.py [substring ...]
Only cases whose "<op>_<case>" stem contains one of the substrings are
written (all when none is given). Output: tests/data/op_refs/<op>_<case>.json
in the format documented at the top of tests/util/op_refs.h. CI never runs
this script; the files are committed.

Other generators (e.g. scripts/gen_op_refs_conv.py) import the helpers:
    from gen_op_refs import write_case, rand, rand_int, run_cases
and define their own CASES list of functions, then call run_cases(CASES).

Everything is computed in float64. Keep each case small (a few KB): shapes
of a few dozen elements at most.
"""
import json
import os
import sys

import numpy as np
import torch

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "op_refs")
MAX_BYTES = 24 * 1024

_rng = np.random.RandomState(0)


def reseed(seed):
    """Resets the generator used by rand/rand_int (each case reseeds)."""
    global _rng
    _rng = np.random.RandomState(seed)


def rand(*shape, lo=-1.0, hi=1.0):
    """Uniform float64 array of `shape` in [lo, hi), rounded to float32
    precision so float32 runs see exactly the same inputs."""
    return _rng.uniform(lo, hi, size=shape).astype(np.float32).astype(np.float64)


def rand_int(*shape, lo=0, hi=10):
    """Integers in [lo, hi) stored as float64 (MXNet labels/indices)."""
    return _rng.randint(lo, hi, size=shape).astype(np.float64)


def _array(a, dtype=None):
    a = np.asarray(a, dtype=np.float64)
    d = {"shape": list(a.shape), "data": [float(x) for x in a.reshape(-1)]}
    if dtype is not None:
        d["dtype"] = dtype
    return d


def _fmt_param(v):
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(str(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return str(v)


def write_case(op, case, inputs, params, fn, diff=None, out_grads=None, is_train=False,
               inputs_after=None, tol=None, input_dtypes=None, compare_outputs=None):
    """Computes and writes one reference case.

    op, case:   MXNet op name and a case label; the file is <op>_<case>.json.
    inputs:     list of numpy float64 arrays, in the op's input order.
    params:     dict of MXNet kwargs (values are converted to MXNet text:
                True/False, tuples as "(a, b)", numbers with str()).
    fn:         fn(*torch_tensors) -> tensor or tuple of tensors, the PyTorch
                reference of the op's outputs (float64).
    diff:       indices of inputs whose gradient is recorded (default: all);
                others get null in "in_grads".
    out_grads:  list of head gradients per output (default: uniform random
                in [-1, 1), float32-exact); None entries mean zeros.
    is_train:   recorded as "is_train".
    inputs_after: optional callable(list of numpy inputs, outputs) -> list of
                expected post-forward input values (None = not compared), for
                ops that mutate inputs.
    tol:        optional {"float32": [rtol, atol], "float64": [rtol, atol]}.
    input_dtypes: optional list of fixed dtype names per input (None = follows
                the test dtype).
    compare_outputs: optional list of bools; False writes null for that output.
    """
    stem = f"{op}_{case}"
    if _FILTER and not any(s in stem for s in _FILTER):
        return
    diff = list(range(len(inputs))) if diff is None else list(diff)
    tensors = [torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=(i in diff))
               for i, a in enumerate(inputs)]
    outs = fn(*tensors)
    if not isinstance(outs, (tuple, list)):
        outs = (outs,)
    outs = list(outs)
    if out_grads is None:
        out_grads = [rand(*o.shape) for o in outs]
    grads = [None] * len(inputs)
    if diff:
        pairs = [(o, torch.tensor(g)) for o, g in zip(outs, out_grads)
                 if g is not None and o.requires_grad]
        if pairs:
            gs = torch.autograd.grad([p[0] for p in pairs], [tensors[i] for i in diff],
                                     [p[1] for p in pairs], allow_unused=True)
            for i, g in zip(diff, gs):
                grads[i] = np.zeros(inputs[i].shape) if g is None else g.detach().numpy()
    doc = {
        "op": op,
        "case": case,
        "params": {k: _fmt_param(v) for k, v in params.items()},
        "is_train": bool(is_train),
        "inputs": [_array(a, None if input_dtypes is None else input_dtypes[i])
                   for i, a in enumerate(inputs)],
        "outputs": [(_array(o.detach().numpy())
                     if compare_outputs is None or compare_outputs[j] else None)
                    for j, o in enumerate(outs)],
        "out_grads": [None if g is None else _array(g) for g in out_grads],
        "in_grads": [None if g is None else _array(g) for g in grads],
    }
    if inputs_after is not None:
        after = inputs_after([np.asarray(a) for a in inputs], [o.detach().numpy() for o in outs])
        doc["inputs_after"] = [None if a is None else _array(a) for a in after]
    if tol is not None:
        doc["tol"] = tol
    os.makedirs(OUT_DIR, exist_ok=True)
    text = json.dumps(doc, separators=(",", ":"))
    if len(text) > MAX_BYTES:
        raise SystemExit(f"{stem}: {len(text)} bytes exceeds {MAX_BYTES}; use smaller shapes")
    with open(os.path.join(OUT_DIR, stem + ".json"), "w") as f:
        f.write(text + "\n")
    print(f"wrote {stem}.json ({len(text)} bytes)")


_FILTER = []


def run_cases(cases):
    """Runs every case function (each reseeds with a fixed seed) honouring the
    command-line substring filter."""
    global _FILTER
    _FILTER = sys.argv[1:]
    torch.set_default_dtype(torch.float64)
    for i, case in enumerate(cases):
        reseed(1000 + i)
        case()


# --------------------------------------------------------------------------
# Cases of the dense / activation / softmax / loss / shape families.

F = torch.nn.functional


def fc_cases():
    x, w, b = rand(3, 5), rand(4, 5), rand(4)
    write_case("FullyConnected", "basic", [x, w, b], {"num_hidden": 4},
               lambda x, w, b: F.linear(x, w, b))
    x, w = rand(2, 3, 2, 2), rand(3, 12)
    write_case("FullyConnected", "flatten_nobias", [x, w], {"num_hidden": 3, "no_bias": True},
               lambda x, w: F.linear(x.reshape(2, -1), w))
    x, w, b = rand(2, 3, 4), rand(5, 4), rand(5)
    write_case("FullyConnected", "noflatten", [x, w, b], {"num_hidden": 5, "flatten": False},
               lambda x, w, b: F.linear(x, w, b))


def activation_cases():
    x = rand(3, 7, lo=-3, hi=3)
    acts = {"relu": F.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh,
            "softrelu": F.softplus, "softsign": F.softsign}
    for name, f in acts.items():
        write_case("Activation", name, [x], {"act_type": name}, f)


def leaky_cases():
    x = rand(2, 3, 4, lo=-2, hi=2)
    write_case("LeakyReLU", "leaky", [x], {"act_type": "leaky", "slope": 0.1},
               lambda x: F.leaky_relu(x, 0.1))
    write_case("LeakyReLU", "elu", [x], {"act_type": "elu", "slope": 0.7},
               lambda x: F.elu(x, 0.7))
    write_case("LeakyReLU", "selu", [x], {"act_type": "selu"}, F.selu)
    write_case("LeakyReLU", "gelu", [x], {"act_type": "gelu"}, F.gelu)
    g = rand(3, lo=0.05, hi=0.5)
    write_case("LeakyReLU", "prelu", [x, g], {"act_type": "prelu"},
               lambda x, g: F.prelu(x, g))
    write_case("LeakyReLU", "rrelu_infer", [x], {"act_type": "rrelu", "lower_bound": 0.1,
                                                 "upper_bound": 0.3},
               lambda x: F.leaky_relu(x, 0.2), diff=[])


def softmax_cases():
    x = rand(2, 3, 4, lo=-3, hi=3)
    write_case("softmax", "axis_last", [x], {}, lambda x: F.softmax(x, -1))
    write_case("softmax", "axis1_temp", [x], {"axis": 1, "temperature": 2.0},
               lambda x: F.softmax(x / 2.0, 1))
    write_case("log_softmax", "axis_last", [x], {}, lambda x: F.log_softmax(x, -1))
    write_case("log_softmax", "axis0_temp", [x], {"axis": 0, "temperature": 0.5},
               lambda x: F.log_softmax(x / 0.5, 0))
    write_case("SoftmaxActivation", "instance", [x], {},
               lambda x: F.softmax(x.reshape(2, -1), 1).reshape(2, 3, 4))
    write_case("SoftmaxActivation", "channel", [x], {"mode": "channel"},
               lambda x: F.softmax(x, 1))


def _softmax_output_ref(x, label, grad_scale=1.0, ignore_label=-1.0, use_ignore=False,
                        multi_output=False, normalization="null"):
    """MXNet SoftmaxOutput gradient in numpy: (softmax - onehot) * scale / norm."""
    if multi_output:
        n, c = x.shape[0], x.shape[1]
        xs = np.moveaxis(x.reshape(n, c, -1), 1, 2).reshape(-1, c)
        lab = label.reshape(-1)
    else:
        c = x.shape[-1] if x.ndim == 2 else int(np.prod(x.shape[1:]))
        xs = x.reshape(-1, c)
        lab = label.reshape(-1)
    p = np.exp(xs - xs.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    g = p.copy()
    g[np.arange(len(lab)), lab.astype(int)] -= 1
    valid = np.ones(len(lab))
    if use_ignore:
        valid = (lab != ignore_label).astype(np.float64)
        g *= valid[:, None]
    if normalization == "batch":
        norm = x.shape[0]
    elif normalization == "valid":
        norm = max(valid.sum(), 1.0)
    else:
        norm = 1.0
    g = g * grad_scale / norm
    if multi_output:
        n, c = x.shape[0], x.shape[1]
        p = np.moveaxis(p.reshape(n, -1, c), 2, 1).reshape(x.shape)
        g = np.moveaxis(g.reshape(n, -1, c), 2, 1).reshape(x.shape)
    else:
        p, g = p.reshape(x.shape), g.reshape(x.shape)
    return p, g


def softmax_output_cases():
    """SoftmaxOutput's backward ignores the head gradient (an MXNet loss op):
    the reference gradient is torch's cross-entropy gradient (sum reduction,
    ignore_index, K-dim for multi_output) times grad_scale / normaliser,
    cross-checked against the closed form (softmax - onehot)."""
    x, lab = rand(4, 5, lo=-2, hi=2), rand_int(4, lo=0, hi=5)
    combos = [
        ("basic", x, lab, {}),
        ("scale_batch", x, lab, {"grad_scale": 0.5, "normalization": "batch"}),
        ("ignore_valid", x, np.array([1.0, 3.0, 3.0, 0.0]),
         {"use_ignore": True, "ignore_label": 3, "normalization": "valid"}),
    ]
    xm, labm = rand(2, 3, 2, 2, lo=-2, hi=2), rand_int(2, 2, 2, lo=0, hi=3)
    combos.append(("multi_output", xm, labm, {"multi_output": True, "normalization": "valid"}))
    for case, xv, lv, params in combos:
        kw = dict(params)
        p, g_closed = _softmax_output_ref(xv, lv, **kw)
        t = torch.tensor(xv, requires_grad=True)
        ignore = int(kw["ignore_label"]) if kw.get("use_ignore") else -100
        lab_t = torch.tensor(lv).long()
        norm = {"batch": xv.shape[0],
                "valid": max(float((lab_t != ignore).sum()), 1.0)}.get(kw.get("normalization"), 1.0)
        loss = F.cross_entropy(t, lab_t, ignore_index=ignore, reduction="sum") * kw.get("grad_scale", 1.0) / norm
        (g,) = torch.autograd.grad(loss, t)
        g = g.numpy()
        assert np.allclose(g, g_closed, atol=1e-12), case
        assert np.allclose(F.softmax(torch.tensor(xv), 1).numpy(), p, atol=1e-12), case
        write_case("SoftmaxOutput", case, [xv, lv], params,
                   lambda x, l, p=p, g=g: _const_with_grad(x, F.softmax(x.detach(), 1).numpy(), g), diff=[0])


def _const_with_grad(x, value, grad):
    """A tensor equal to `value` whose gradient w.r.t. x is `grad` whatever
    the head gradient (what MXNet's loss-output ops do)."""
    return _LossOut.apply(x, torch.tensor(value), torch.tensor(grad))


class _LossOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, value, grad):
        ctx.save_for_backward(grad)
        return value.clone()

    @staticmethod
    def backward(ctx, _):
        (grad,) = ctx.saved_tensors
        return grad, None, None


def regression_cases():
    """Regression outputs: forward identity / sigmoid; gradient = torch's
    gradient of the summed loss times grad_scale / m, m = elements per
    sample (MXNet), whatever the head gradient."""
    x, lab = rand(3, 4), rand(3, 4, lo=0, hi=1)
    m = x.size // x.shape[0]
    losses = [
        ("LinearRegressionOutput", lambda t: t, lambda t, l: 0.5 * ((t - l) ** 2).sum()),
        ("LogisticRegressionOutput", torch.sigmoid,
         lambda t, l: F.binary_cross_entropy_with_logits(t, l, reduction="sum")),
        ("MAERegressionOutput", lambda t: t, lambda t, l: (t - l).abs().sum()),
    ]
    for op, fwd, loss_fn in losses:
        for case, scale in [("basic", 1.0), ("scale", 0.5)]:
            t = torch.tensor(x, requires_grad=True)
            (g,) = torch.autograd.grad(loss_fn(t, torch.tensor(lab)) * scale / m, t)
            out = fwd(torch.tensor(x)).numpy()
            params = {} if case == "basic" else {"grad_scale": scale}
            write_case(op, case, [x, lab], params,
                       lambda a, b, out=out, g=g.numpy(): _const_with_grad(a, out, g), diff=[0])


def makeloss_cases():
    x = rand(3, 4)
    write_case("MakeLoss", "basic", [x], {},
               lambda a: _LossOut.apply(a, torch.tensor(x), torch.ones(3, 4)))
    write_case("MakeLoss", "batch", [x], {"grad_scale": 2.0, "normalization": "batch"},
               lambda a: _LossOut.apply(a, torch.tensor(x), torch.full((3, 4), 2.0 / 3)))
    write_case("BlockGrad", "basic", [x], {}, lambda a: a.detach() + 0 * a)


def shape_cases():
    x = rand(2, 3, 4)
    write_case("transpose", "axes", [x], {"axes": (1, 2, 0)}, lambda a: a.permute(1, 2, 0))
    write_case("Concat", "dim1", [x, rand(2, 2, 4)], {"num_args": 2, "dim": 1},
               lambda a, b: torch.cat([a, b], 1))
    write_case("SliceChannel", "axis2", [x], {"num_outputs": 2, "axis": 2},
               lambda a: torch.chunk(a, 2, 2))
    idx = np.array([[1.0, 0.0, 3.0], [3.0, 3.0, 2.0]])
    write_case("Embedding", "basic", [idx, rand(4, 3)], {"input_dim": 4, "output_dim": 3, "dtype": "float64"},
               lambda i, w: F.embedding(i.long(), w), diff=[1], input_dtypes=["float64", "float64"])
    write_case("slice_axis", "mid", [x], {"axis": 1, "begin": 1, "end": 3}, lambda a: a[:, 1:3])


CASES = [fc_cases, activation_cases, leaky_cases, softmax_cases, softmax_output_cases,
         regression_cases, makeloss_cases, shape_cases]

if __name__ == "__main__":
    run_cases(CASES)
