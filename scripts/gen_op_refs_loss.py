#!/usr/bin/python3
"""PyTorch references for MXNet 1.x's SoftmaxOutput label modes (the
flattened default on data of rank > 2, probability labels, multi_output
normalisers), softmax_cross_entropy, smooth_l1, SVMOutput, softmax
with use_length and CTCLoss in the format of tests/util/op_refs.h.

Run with Debian's interpreter (python3-torch 1.13, numpy):
    /usr/bin/python3 scripts/gen_op_refs_loss.py [substring ...]
Writes tests/data/op_refs/<op>_<case>.json; see scripts/gen_op_refs.py for
the helpers and the filter.

SoftmaxOutput's backward ignores the head gradient, so each reference
gradient is torch's gradient of a summed cross-entropy (times grad_scale /
normaliser as MXNet 1.x computes them in src/operator/softmax_output-inl.h)
attached to the forward value with _const_with_grad.
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_op_refs import _const_with_grad, rand, rand_int, run_cases, write_case  # noqa: E402

F = torch.nn.functional


def _grad(loss_fn, x):
    t = torch.tensor(x, requires_grad=True)
    (g,) = torch.autograd.grad(loss_fn(t), t)
    return g.numpy()


def _case(case, x, label, params, value, grad):
    write_case("SoftmaxOutput", case, [x, label], params,
               lambda a, b, v=value, g=grad: _const_with_grad(a, v, g), diff=[0])


def flattened_cases():
    """Default mode on (N, T, K): softmax over each sample's T*K values; the
    label is (N, T), and row n takes the n-th flattened label value as its
    class in [0, T*K); batch normalisation divides by the label count N*T."""
    x, lab = rand(2, 3, 4, lo=-2, hi=2), rand_int(2, 3, lo=0, hi=3)
    n = x.shape[0]
    p = F.softmax(torch.tensor(x).reshape(n, -1), 1).reshape(x.shape).numpy()
    target = torch.tensor(lab.reshape(-1)[:n]).long()
    for case, params, norm in [("flat3d", {}, 1.0),
                               ("flat3d_batch", {"grad_scale": 0.5, "normalization": "batch"}, lab.size)]:
        scale = params.get("grad_scale", 1.0)
        g = _grad(lambda t: F.cross_entropy(t.reshape(n, -1), target, reduction="sum") * scale / norm, x)
        _case(case, x, lab, params, p, g)
    # preserve_shape: the last axis, one label per row; batch = N * T.
    lab = rand_int(2, 3, lo=0, hi=4)
    p = F.softmax(torch.tensor(x), -1).numpy()
    target = torch.tensor(lab.reshape(-1)).long()
    g = _grad(lambda t: F.cross_entropy(t.reshape(-1, 4), target, reduction="sum") / lab.size, x)
    _case("preserve_batch", x, lab, {"preserve_shape": True, "normalization": "batch"}, p, g)
    # valid counts labels equal to ignore_label even without use_ignore
    # (whose rows keep their gradient).
    x2, lab2 = rand(4, 3, lo=-2, hi=2), np.array([2.0, 0.0, 2.0, 1.0])
    p2 = F.softmax(torch.tensor(x2), 1).numpy()
    g2 = _grad(lambda t: F.cross_entropy(t, torch.tensor(lab2).long(), reduction="sum") / 2.0, x2)
    _case("valid_no_use_ignore", x2, lab2, {"ignore_label": 2, "normalization": "valid"}, p2, g2)


def _soft_label(*shape, axis_size):
    """Non-negative rows of `axis_size` values summing to 1, float32-exact."""
    a = rand(*shape, lo=0.1, hi=1.0).reshape(-1, axis_size)
    a = (a / a.sum(1, keepdims=True)).astype(np.float32).astype(np.float64)
    return a.reshape(shape)


def probability_cases():
    """A label of data's shape: dx = (softmax - label) * grad_scale, with no
    normaliser (normalization is ignored), i.e. the gradient of the summed
    soft-label cross-entropy when each row of labels sums to 1 (up to
    float32 rounding of the labels, which the cross-entropy gradient keeps
    as softmax * sum(label) - label; the closed form is used instead)."""
    x, lab = rand(3, 4, lo=-2, hi=2), _soft_label(3, 4, axis_size=4)
    p = F.softmax(torch.tensor(x), 1).numpy()
    ce = _grad(lambda t: -(torch.tensor(lab) * F.log_softmax(t, 1)).sum() * 2.0, x)
    g = (p - lab) * 2.0
    assert np.allclose(ce, g, atol=1e-6)
    _case("prob", x, lab, {"grad_scale": 2, "normalization": "batch"}, p, g)
    x3, lab3 = rand(2, 3, 2, lo=-2, hi=2), _soft_label(2, 3, 2, axis_size=6)
    p3 = F.softmax(torch.tensor(x3).reshape(2, -1), 1).reshape(x3.shape).numpy()
    _case("prob_flat3d", x3, lab3, {}, p3, p3 - lab3)


def multi_output_cases():
    """multi_output: softmax over axis 1; null divides by the spatial size S,
    batch by S * N, valid by the count of non-ignored labels."""
    x = rand(2, 3, 2, 2, lo=-2, hi=2)
    p = F.softmax(torch.tensor(x), 1).numpy()
    lab = rand_int(2, 4, lo=0, hi=3)  # (N, prod(S)), the inferred layout
    target = torch.tensor(lab.reshape(2, 2, 2)).long()
    g = _grad(lambda t: F.cross_entropy(t, target, reduction="sum") / 4.0, x)
    _case("multi_null", x, lab, {"multi_output": True}, p, g)
    lab = np.array([[[1.0, 0.0], [2.0, 1.0]], [[0.0, 0.0], [1.0, 2.0]]])  # (N, S...)
    target = torch.tensor(lab).long()
    g = _grad(lambda t: F.cross_entropy(t, target, ignore_index=1, reduction="sum") * 3.0 / 8.0, x)
    _case("multi_batch_ignore", x, lab,
          {"multi_output": True, "use_ignore": True, "ignore_label": 1, "normalization": "batch",
           "grad_scale": 3}, p, g)


def softmax_cross_entropy_cases():
    """softmax_cross_entropy: the summed cross-entropy as a (1,) array, an
    ordinary op (the head gradient scales the gradient)."""
    x, lab = rand(4, 5, lo=-3, hi=3), rand_int(4, lo=0, hi=5)
    write_case("softmax_cross_entropy", "basic", [x, lab], {},
               lambda x, l: F.cross_entropy(x, l.long(), reduction="sum").reshape(1), diff=[0])


def smooth_l1_cases():
    """smooth_l1 = torch's smooth_l1_loss against zero with beta = 1 / sigma^2."""
    x = rand(3, 5, lo=-3, hi=3)
    for case, sigma in [("default", None), ("sigma2", 2.0), ("sigma_half", 0.5)]:
        params = {} if sigma is None else {"scalar": sigma}
        beta = 1.0 / (sigma or 1.0) ** 2
        write_case("smooth_l1", case, [x], params,
                   lambda x, beta=beta: F.smooth_l1_loss(x, torch.zeros_like(x), beta=beta, reduction="none"))


def svm_output_cases():
    """SVMOutput: identity forward; the gradient of the one-vs-all hinge loss
    (squared for L2) times regularization_coefficient, head gradient ignored."""
    x, lab = rand(4, 3, lo=-2, hi=2), rand_int(4, lo=0, hi=3)
    onehot = np.eye(3)[lab.astype(int)]
    for case, params in [("l2", {}), ("l1", {"use_linear": True}),
                         ("l2_margin", {"margin": 0.5, "regularization_coefficient": 0.3})]:
        m, c = params.get("margin", 1.0), params.get("regularization_coefficient", 1.0)
        oh = torch.tensor(onehot)

        def loss(t, m=m, c=c, linear=params.get("use_linear", False)):
            h = F.relu(m - t) * oh + F.relu(m + t) * (1 - oh)
            return c * (h if linear else h * h).sum()
        g = _grad(loss, x)
        write_case("SVMOutput", case, [x, lab], params,
                   lambda a, b, g=g: _const_with_grad(a, a.detach().numpy(), g), diff=[0])


def _masked_softmax(x, length, axis, temperature=1.0):
    ax = axis % x.dim()
    pos = torch.arange(x.shape[ax]).reshape([-1] + [1] * (x.dim() - 1 - ax))
    mask = pos < length.long().unsqueeze(ax)
    p = torch.softmax((x / temperature).masked_fill(~mask, float("-inf")), ax)
    return torch.where(mask, p, torch.zeros_like(p))


def softmax_length_cases():
    """softmax(use_length=True): each line normalised over its first length
    entries, zeros after (MXNet 1.9's masked softmax); int32 lengths."""
    x = rand(3, 5, lo=-2, hi=2)
    length = np.array([5.0, 2.0, 1.0])
    write_case("softmax", "length_last", [x, length], {"use_length": True},
               lambda x, l: _masked_softmax(x, l, -1), diff=[0], input_dtypes=[None, "int32"])
    x = rand(2, 4, 3, lo=-2, hi=2)
    length = np.array([[4.0, 1.0, 3.0], [2.0, 4.0, 1.0]])
    write_case("softmax", "length_axis1_temp", [x, length], {"use_length": True, "axis": 1, "temperature": 2.0},
               lambda x, l: _masked_softmax(x, l, 1, 2.0), diff=[0], input_dtypes=[None, "int32"])


def _ctc(x, label, blank, data_lengths=None, label_lengths=None):
    """torch's per-sequence CTC loss of pre-softmax activations (T, B, A)."""
    T, B, _ = x.shape
    lab = label.detach().long()
    il = torch.full((B,), T, dtype=torch.long) if data_lengths is None else data_lengths.detach().long()
    tl = label_lengths.detach().long()
    return F.ctc_loss(F.log_softmax(x, 2), lab.clamp(min=0), il, tl, blank=blank, reduction="none",
                      zero_infinity=False)


def ctc_cases():
    """CTCLoss against torch.nn.functional.ctc_loss on log_softmax(data);
    label lengths from the padding value (0 for blank first, -1 for last)
    or from label_lengths; the head gradient scales each sequence."""
    x = rand(6, 2, 4, lo=-2, hi=2)
    lab = np.array([[1.0, 2.0, 2.0], [3.0, 1.0, 0.0]])
    write_case("CTCLoss", "blank_first", [x, lab], {},
               lambda x, l: _ctc(x, l, 0, label_lengths=torch.tensor([3, 2])), diff=[0])
    lab = np.array([[0.0, 1.0, -1.0], [2.0, 2.0, 1.0]])
    write_case("CTCLoss", "blank_last", [x, lab], {"blank_label": "last"},
               lambda x, l: _ctc(x, l, 3, label_lengths=torch.tensor([2, 3])), diff=[0])
    x = rand(5, 3, 5, lo=-2, hi=2)
    lab = np.array([[1.0, 4.0, 3.0], [2.0, 2.0, 2.0], [4.0, 1.0, 1.0]])
    dl, ll = np.array([5.0, 4.0, 3.0]), np.array([2.0, 1.0, 0.0])
    write_case("ctc_loss", "lengths", [x, lab, dl, ll], {"use_data_lengths": True, "use_label_lengths": True},
               lambda x, l, d, n: _ctc(x, l, 0, d, n), diff=[0], input_dtypes=[None, None, "int32", "int32"])


CASES = [flattened_cases, probability_cases, multi_output_cases, softmax_cross_entropy_cases, smooth_l1_cases,
         svm_output_cases, softmax_length_cases, ctc_cases]

if __name__ == "__main__":
    run_cases(CASES)
