#!/usr/bin/python3
"""NumPy references for the optimizers and their update operators.

The expected values are computed here from the formulas of MXNet 1.9.1
(python/mxnet/optimizer/optimizer.py, src/operator/optimizer_op-inl.h,
src/operator/contrib/adamw-inl.h, multi_lars-inl.h, and MXNet 2's
python/mxnet/optimizer/adamW.py for AdamW, whose 1.9.1 release ships only
the operator), independently of Weft's C++ code. Regenerate with

    /usr/bin/python3 scripts/gen_optimizer_refs.py

(Debian's interpreter with python3-numpy; any python3 with numpy). It writes
  tests/data/optimizer_refs/optimizers.json  several steps of each optimizer,
      read by tests/core/train/optimizer_refs_test.cc;
  tests/data/op_refs/<op>_<case>.json  one call of each update operator, in
      the format of tests/util/op_refs.h, read by
      tests/core/op/optimizer_update_ops_test.cc;
  tests/fuzz/optimizer_states_corpus/*.states  optimizer state files written
      here from the layout documented in weft/optimizer.h (MXNet's
      NDArray-list format), the seeds of fuzz_optimizer_states and read back
      by tests/core/train/optimizer_states_test.cc.
The files are committed; CI never runs this script. Output is deterministic
(fixed seeds), so rerunning without changes leaves the files unchanged.

Modelling of MXNet's precision: the operators read their float parameters
as float32 (F() below) and compute in the array's dtype; the references run
in float64 with those rounded parameters, and the C++ tests compare float32
runs with a looser tolerance. The multi-precision (float16) cases compute
the float32 master copy in float32, as MXNet's mp_* kernels do, and round it
to float16 for the weight.
"""
import json
import math
import os
import struct

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OPT_OUT = os.path.join(ROOT, "tests", "data", "optimizer_refs", "optimizers.json")
OP_DIR = os.path.join(ROOT, "tests", "data", "op_refs")
SEED_DIR = os.path.join(ROOT, "tests", "fuzz", "optimizer_states_corpus")


def F(x):
    """A parameter as the operators read it (float32)."""
    return float(np.float32(x))


def clip(x, c):
    """MXNet's clip::Map when clip_gradient >= 0; identity otherwise."""
    return np.clip(x, -c, c) if c >= 0 else x


def disabled(v):
    """MXNet passes clip_gradient & co only when truthy; the op default is -1."""
    return -1.0 if v is None or v <= 0 else v


# --------------------------------------------------- the update operators
# Each takes arrays of one dtype `dt` (np.float64, or np.float32 for the
# multi-precision master copies) and float parameters; the states are
# updated in place, the new weight returned.

def sgd_update(w, g, lr, wd, rescale, clip_g, dt):
    lr, wd, r = dt(F(lr)), dt(F(wd)), dt(F(rescale))
    return (dt(1) - lr * wd) * w - lr * clip(r * g, dt(F(clip_g)))


def sgd_mom_update(w, g, mom, lr, wd, rescale, clip_g, momentum, dt):
    lr, wd, r, m = dt(F(lr)), dt(F(wd)), dt(F(rescale)), dt(F(momentum))
    mom[:] = m * mom - lr * wd * w - lr * clip(r * g, dt(F(clip_g)))
    return w + mom


def nag_mom_update(w, g, mom, lr, wd, rescale, clip_g, momentum, dt):
    lr, wd, r, m = dt(F(lr)), dt(F(wd)), dt(F(rescale)), dt(F(momentum))
    d = clip(r * g, dt(F(clip_g))) + wd * w
    mm = m * mom
    out = w - mm + (m + dt(1)) * (mm - lr * d)
    mom[:] = mm - lr * d
    return out


def signsgd_update(w, g, lr, wd):
    lr, wd = F(lr), F(wd)
    return (1 - lr * wd) * w - lr * np.sign(g)


def signum_update(w, g, mom, lr, wd, rescale, clip_g, momentum, wd_lh):
    lr, wd, r, m, lh = F(lr), F(wd), F(rescale), F(momentum), F(wd_lh)
    mom[:] = m * mom - (1 - m) * wd * w - (1 - m) * clip(r * g, F(clip_g))
    return (1 - lr * lh) * w + lr * np.sign(mom)


def adam_update(w, g, mean, var, lr, wd, rescale, clip_g, b1, b2, eps, dt):
    lr, wd, r, eps = dt(F(lr)), dt(F(wd)), dt(F(rescale)), dt(F(eps))
    c1, c2 = dt(np.float32(1) - np.float32(b1)), dt(np.float32(1) - np.float32(b2))
    gr = clip(r * g + wd * w, dt(F(clip_g)))
    mean[:] = dt(F(b1)) * mean + c1 * gr
    var[:] = dt(F(b2)) * var + c2 * gr * gr
    return w - lr * mean / (np.sqrt(var) + eps)


def adamw_update(w, g, mean, var, rescale, lr, wd, eta, clip_g, b1, b2, eps, dt):
    """_adamw_update; rescale is the float32 array's value."""
    lr, wd, eta, eps, r = dt(F(lr)), dt(F(wd)), dt(F(eta)), dt(F(eps)), dt(F(rescale))
    c1, c2 = dt(np.float32(1) - np.float32(b1)), dt(np.float32(1) - np.float32(b2))
    gr = clip(r * g, dt(F(clip_g)))
    mean[:] = dt(F(b1)) * mean + c1 * gr
    var[:] = dt(F(b2)) * var + c2 * gr * gr
    return w - eta * (lr * mean / (np.sqrt(var) + eps) + wd * w)


def lamb_phase1(w, g, mean, var, b1, b2, eps, t, bias_correction, wd, rescale, clip_g, dt):
    wd, r, eps = dt(F(wd)), dt(F(rescale)), dt(F(eps))
    b1f, b2f = dt(F(b1)), dt(F(b2))
    gr = clip(g * r, dt(F(clip_g)))
    mean[:] = b1f * mean + (dt(1) - b1f) * gr
    var[:] = b2f * var + (dt(1) - b2f) * gr * gr
    m, v = mean, var
    if bias_correction:
        m = mean / (dt(1) - dt(math.pow(F(b1), t)))
        v = var / (dt(1) - dt(math.pow(F(b2), t)))
    return m / (np.sqrt(v) + eps) + wd * w


def lamb_phase2(w, g, r1, r2, lr, lower, upper, dt):
    lr, lower, upper = dt(F(lr)), dt(F(lower)), dt(F(upper))
    if lower >= 0:
        r1 = max(r1, lower)
    if upper >= 0:
        r1 = min(r1, upper)
    if r1 != 0 and r2 != 0:
        lr = lr * r1 / r2
    return w - lr * g


def rmsprop_update(w, g, n, lr, wd, rescale, clip_g, g1, eps, clip_w):
    lr, wd, r, g1, eps = F(lr), F(wd), F(rescale), F(g1), F(eps)
    gr = clip(r * g + wd * w, F(clip_g))
    n[:] = (1 - g1) * gr * gr + g1 * n
    return clip(w - lr * (gr / np.sqrt(n + eps)), F(clip_w))


def rmspropalex_update(w, g, n, gavg, delta, lr, wd, rescale, clip_g, g1, g2, eps, clip_w):
    lr, wd, r, g1, g2, eps = F(lr), F(wd), F(rescale), F(g1), F(g2), F(eps)
    gr = clip(r * g + wd * w, F(clip_g))
    n[:] = (1 - g1) * gr * gr + g1 * n
    gavg[:] = (1 - g1) * gr + g1 * gavg
    delta[:] = g2 * delta - lr * gr / np.sqrt(n - gavg * gavg + eps)
    return clip(w + delta, F(clip_w))


def ftrl_update(w, g, z, n, lr, wd, rescale, clip_g, lamda1, beta):
    lr, wd, r, l1, beta = F(lr), F(wd), F(rescale), F(lamda1), F(beta)
    gr = clip(g * r, F(clip_g))
    z += gr - (np.sqrt(n + gr * gr) - np.sqrt(n)) * w / lr
    n += gr * gr
    return (np.sign(z) * l1 - z) / ((beta + np.sqrt(n)) / lr + wd) * (np.abs(z) > l1)


def adagrad_update(w, g, h, lr, wd, rescale, clip_g, eps):
    lr, wd, r, eps = F(lr), F(wd), F(rescale), F(eps)
    gr = clip(g * r, F(clip_g))
    h += gr * gr
    return w + (gr / np.sqrt(h + eps) + w * wd) * -lr


def adadelta_update(w, g, acc_g, acc_d, wd, rescale, clip_g, rho, eps):
    wd, r, rho, eps = F(wd), F(rescale), F(rho), F(eps)
    gr = clip(g * r, F(clip_g))
    acc_g[:] = rho * acc_g + (1 - rho) * gr * gr
    d = np.sqrt(acc_d + eps) / np.sqrt(acc_g + eps) * gr
    acc_d[:] = rho * acc_d + (1 - rho) * d * d
    return w - (d + wd * w)


def mp_sgd(w32, g16, lr, wd, rescale, clip_g, mom=None, momentum=0.0, nesterov=False):
    """mp_sgd_update / mp_sgd_mom_update / mp_nag_mom_update in float32."""
    g = g16.astype(np.float32)
    f = np.float32
    if mom is None:
        w32[:] = sgd_update(w32, g, lr, wd, rescale, clip_g, f)
    elif nesterov:
        w32[:] = nag_mom_update(w32, g, mom, lr, wd, rescale, clip_g, momentum, f)
    else:
        w32[:] = sgd_mom_update(w32, g, mom, lr, wd, rescale, clip_g, momentum, f)
    return w32.astype(np.float16)


# ------------------------------------------------ the optimizers (Python)

class Opt:
    """MXNet's Optimizer bookkeeping for one index: counts and the learning
    rate (lr_mult 1); wd_mult from the parameter name as MXNet's default."""

    def __init__(self, p, name, lr_default=0.01):
        self.lr = p.get("learning_rate", lr_default)
        self.wd = p.get("wd", 0.0)
        self.rescale = p.get("rescale_grad", 1.0)
        self.clip = disabled(p.get("clip_gradient"))
        self.count = p.get("begin_num_update", 0)
        self.mp = p.get("multi_precision", False)
        self.name = name

    def wd_for(self):
        n = self.name
        return self.wd if n.endswith("_weight") or n.endswith("_gamma") else 0.0

    def states(self, w):
        return []

    def step(self, w, g, s, lr, wd, t, dt):
        raise NotImplementedError

    def create(self, w):
        """Weft's order: for float16 weights the float32 master copy first."""
        if w.dtype == np.float16:
            master = w.astype(np.float32)
            return [master] + [x.astype(np.float32) for x in self.states(master)]
        return self.states(w)

    def update(self, w, g, s):
        self.count += 1
        lr, wd, t = self.lr, self.wd_for(), self.count
        if w.dtype == np.float16:
            return self.update_mp(w, g, s, lr, wd, t)
        return self.step(w, g, s, lr, wd, t, np.float64)

    def update_mp(self, w, g, s, lr, wd, t):
        """Optimizer.update_multi_precision: float32 grad, master, cast back."""
        s[0][:] = self.step(s[0], g.astype(np.float32), s[1:], lr, wd, t, np.float32)
        return s[0].astype(np.float16)


class SGD(Opt):
    def __init__(self, p, name, nesterov=False):
        super().__init__(p, name)
        self.momentum = p.get("momentum", 0.0)
        self.nesterov = nesterov

    def states(self, w):
        return [np.zeros_like(w)] if self.momentum != 0 else []

    def step(self, w, g, s, lr, wd, t, dt):
        a = (lr, wd, self.rescale, self.clip)
        if not s:
            return sgd_update(w, g, *a, dt)
        f = nag_mom_update if self.nesterov else sgd_mom_update
        return f(w, g, s[0], *a, self.momentum, dt)

    def update_mp(self, w, g, s, lr, wd, t):
        mom = s[1] if len(s) > 1 else None
        return mp_sgd(s[0], g, lr, wd, self.rescale, self.clip, mom, self.momentum,
                      self.nesterov)


class Signum(Opt):
    def __init__(self, p, name):
        super().__init__(p, name)
        self.momentum = p.get("momentum", 0.9)
        self.wd_lh = p.get("wd_lh", 0.0)

    def states(self, w):
        return [np.zeros_like(w)] if self.momentum != 0 else []

    def step(self, w, g, s, lr, wd, t, dt):
        if not s:
            return signsgd_update(w, g, lr, wd)
        return signum_update(w, g, s[0], lr, wd, self.rescale, self.clip, self.momentum,
                             self.wd_lh)


class LARS(SGD):
    """MXNet's LARS: _get_lrs tracks cur/last lr; multi_sum_sq + multi_lars
    (float32) give the layer's rate; then (mp_)sgd(_mom)_update."""

    def __init__(self, p, name):
        super().__init__(p, name)
        self.eta = p.get("eta", 0.001)
        self.eps = p.get("eps", 0.0)
        self.correction = p.get("momentum_correction", True)
        self.cur_lr = self.last_lr = None

    def wd_for(self):
        return self.wd if self.name.endswith("_weight") else 0.0

    def lars_lr(self, w, g, lr, wd):
        n = self.name
        if n.endswith("gamma") or n.endswith("beta") or n.endswith("bias"):
            return lr
        f = np.float32
        wn = f(np.sqrt(np.sum(w.astype(np.float64) ** 2)))
        gn = f(np.sqrt(np.sum(g.astype(np.float64) ** 2)))
        if not (wn > 0 and gn > 0):
            return lr
        return float(f(lr) * f(self.eta) * wn / (gn * f(self.rescale) + f(wd) * wn + f(self.eps)))

    def update(self, w, g, s):
        self.count += 1
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        lr = self.lr
        if self.cur_lr is None:
            self.last_lr = lr
        self.cur_lr = lr
        momentum = self.momentum
        if self.correction and self.last_lr != 0:
            momentum = self.momentum * (self.cur_lr / self.last_lr)
        wd = self.wd_for()
        lr = self.lars_lr(w, g, lr, wd)
        a = (lr, wd, self.rescale, self.clip)
        if w.dtype == np.float16:
            mom = s[1] if len(s) > 1 else None
            return mp_sgd(s[0], g, *a, mom, momentum)
        if not s:
            return sgd_update(w, g, *a, np.float64)
        return sgd_mom_update(w, g, s[0], *a, momentum, np.float64)


def corrected_lr(lr, b1, b2, t):
    """Adam's bias correction in double of the float learning rate."""
    return F(F(lr) * math.sqrt(1 - b2 ** t) / (1 - b1 ** t))


class Adam(Opt):
    def __init__(self, p, name, lr_default=0.001, eps=1e-8):
        super().__init__(p, name, lr_default)
        self.b1, self.b2 = p.get("beta1", 0.9), p.get("beta2", 0.999)
        self.eps = p.get("epsilon", eps)

    def states(self, w):
        return [np.zeros_like(w), np.zeros_like(w)]

    def step(self, w, g, s, lr, wd, t, dt):
        return adam_update(w, g, s[0], s[1], corrected_lr(lr, self.b1, self.b2, t), wd,
                           self.rescale, self.clip, self.b1, self.b2, self.eps, dt)


class AdamW(Adam):
    def __init__(self, p, name):
        super().__init__(p, name, eps=1e-6)
        self.correct = p.get("correct_bias", True)

    def step(self, w, g, s, lr, wd, t, dt):
        eta = corrected_lr(lr, self.b1, self.b2, t) if self.correct else lr
        return adamw_update(w, g, s[0], s[1], F(self.rescale), 1.0, wd, eta, self.clip,
                            self.b1, self.b2, self.eps, dt)


class LAMB(Adam):
    def __init__(self, p, name):
        super().__init__(p, name, eps=1e-6)
        self.lower = disabled(p.get("lower_bound"))
        self.upper = disabled(p.get("upper_bound"))
        self.bias_correction = p.get("bias_correction", True)

    def step(self, w, g, s, lr, wd, t, dt):
        d = lamb_phase1(w, g, s[0], s[1], self.b1, self.b2, self.eps, t, self.bias_correction,
                        wd, self.rescale, self.clip, dt)
        r1 = dt(np.sqrt(np.sum(w.astype(np.float64) ** 2)))
        r2 = dt(np.sqrt(np.sum(d.astype(np.float64) ** 2)))
        return lamb_phase2(w, d, r1, r2, lr, self.lower, self.upper, dt)


class RMSProp(Opt):
    def __init__(self, p, name):
        super().__init__(p, name, 0.001)
        self.g1, self.g2 = p.get("gamma1", 0.9), p.get("gamma2", 0.9)
        self.eps = p.get("epsilon", 1e-8)
        self.centered = p.get("centered", False)
        self.clip_w = disabled(p.get("clip_weights"))

    def states(self, w):
        return [np.zeros_like(w) for _ in range(3 if self.centered else 1)]

    def step(self, w, g, s, lr, wd, t, dt):
        a = (lr, wd, self.rescale, self.clip)
        if self.centered:
            return rmspropalex_update(w, g, s[0], s[1], s[2], *a, self.g1, self.g2, self.eps,
                                      self.clip_w)
        return rmsprop_update(w, g, s[0], *a, self.g1, self.eps, self.clip_w)


class AdaGrad(Opt):
    def __init__(self, p, name):
        super().__init__(p, name)
        self.eps = p.get("eps", 1e-7)

    def states(self, w):
        return [np.zeros_like(w)]

    def step(self, w, g, s, lr, wd, t, dt):
        return adagrad_update(w, g, s[0], lr, wd, self.rescale, self.clip, self.eps)


class AdaDelta(Opt):
    def __init__(self, p, name):
        super().__init__(p, name)
        self.rho, self.eps = p.get("rho", 0.9), p.get("epsilon", 1e-5)

    def states(self, w):
        return [np.zeros_like(w), np.zeros_like(w)]

    def step(self, w, g, s, lr, wd, t, dt):
        return adadelta_update(w, g, s[0], s[1], wd, self.rescale, self.clip, self.rho, self.eps)


class Ftrl(Opt):
    def __init__(self, p, name):
        super().__init__(p, name, 0.1)
        self.lamda1, self.beta = p.get("lamda1", 0.01), p.get("beta", 1.0)

    def states(self, w):
        return [np.zeros_like(w), np.zeros_like(w)]

    def step(self, w, g, s, lr, wd, t, dt):
        return ftrl_update(w, g, s[0], s[1], lr, wd, self.rescale, self.clip, self.lamda1,
                           self.beta)


OPTIMIZERS = {
    "sgd": SGD, "nag": lambda p, n: SGD(p, n, nesterov=True), "signum": Signum, "lars": LARS,
    "adam": Adam, "adamw": AdamW, "lamb": LAMB, "rmsprop": RMSProp, "adagrad": AdaGrad,
    "adadelta": AdaDelta, "ftrl": Ftrl,
}


# ------------------------------------------------------------- the cases

SHAPE = (2, 3)


def inputs(seed, steps=4, fp16=False):
    """A weight and `steps` gradients away from 0 (signs and thresholds
    stay stable under float32 rounding), float32-exact (float16-exact for
    the multi-precision cases); the second gradient exceeds the clip bounds."""
    rng = np.random.RandomState(seed)
    cast = np.float16 if fp16 else np.float32

    def signed(scale):
        a = rng.uniform(0.2, 1.0, size=SHAPE) * np.where(rng.uniform(size=SHAPE) < 0.5, -1, 1)
        return (a * scale).astype(cast).astype(np.float64)

    w = signed(1.5)
    grads = [signed(3.0 if k == 1 else 1.0) for k in range(steps)]
    return w, grads


# name, optimizer, params (Python values; written as MXNet text), parameter
# name, float16 weight, per-step learning rates (set_learning_rate before
# each step; None keeps learning_rate), float32/float64 tolerances.
CASES = [
    ("sgd_momentum_wd_clip_rescale", "sgd",
     dict(learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5, clip_gradient=1.0),
     "fc1_weight", False, None),
    ("sgd_plain_bias_no_wd", "sgd", dict(learning_rate=0.5, wd=0.1), "fc1_bias", False, None),
    ("nag_momentum_wd_clip_rescale", "nag",
     dict(learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=2.0, clip_gradient=0.5),
     "fc1_weight", False, None),
    ("nag_no_momentum", "nag", dict(learning_rate=0.05, wd=0.02), "fc1_weight", False, None),
    ("signum_momentum_wd_lh", "signum",
     dict(learning_rate=0.01, momentum=0.9, wd=0.01, wd_lh=0.001, rescale_grad=0.5,
          clip_gradient=1.0), "fc1_weight", False, None),
    ("signum_signsgd", "signum", dict(learning_rate=0.01, momentum=0.0, wd=0.05), "fc1_weight",
     False, None),
    ("lars_momentum_correction", "lars",
     dict(learning_rate=0.1, momentum=0.9, wd=0.01, eta=0.002, eps=1e-4, rescale_grad=0.5,
          clip_gradient=2.0), "fc1_weight", False, [0.1, 0.2, 0.3, 0.3]),
    ("lars_bias_plain_rate", "lars", dict(learning_rate=0.1, momentum=0.5, wd=0.01),
     "fc1_bias", False, None),
    ("adam_begin_num_update", "adam",
     dict(learning_rate=0.01, wd=0.01, rescale_grad=2.0, clip_gradient=0.5, begin_num_update=3),
     "fc1_weight", False, None),
    ("adamw_wd_clip_rescale", "adamw",
     dict(learning_rate=0.01, wd=0.1, rescale_grad=0.5, clip_gradient=1.0), "fc1_weight",
     False, None),
    ("adamw_no_bias_correction", "adamw",
     dict(learning_rate=0.01, wd=0.05, beta1=0.8, beta2=0.99, epsilon=1e-3, correct_bias=False),
     "fc1_weight", False, None),
    ("lamb_wd_clip_rescale", "lamb",
     dict(learning_rate=0.01, wd=0.01, rescale_grad=0.5, clip_gradient=2.0), "fc1_weight",
     False, None),
    ("lamb_bounds_no_bias_correction", "lamb",
     dict(learning_rate=0.02, wd=0.01, lower_bound=0.5, upper_bound=1.5, bias_correction=False),
     "fc1_weight", False, None),
    ("rmsprop_wd_clip_rescale", "rmsprop",
     dict(learning_rate=0.01, wd=0.01, rescale_grad=0.5, clip_gradient=1.0), "fc1_weight",
     False, None),
    ("rmsprop_centered_clip_weights", "rmsprop",
     dict(learning_rate=0.01, gamma1=0.95, gamma2=0.8, centered=True, clip_weights=1.2,
          wd=0.01, clip_gradient=1.0), "fc1_weight", False, None),
    ("adagrad_wd_clip_rescale", "adagrad",
     dict(learning_rate=0.1, wd=0.01, rescale_grad=0.5, clip_gradient=1.0, eps=1e-6),
     "fc1_weight", False, None),
    ("adadelta_wd_clip_rescale", "adadelta",
     dict(rho=0.9, epsilon=1e-5, wd=0.01, rescale_grad=0.5, clip_gradient=1.0), "fc1_weight",
     False, None),
    ("ftrl_wd_clip_rescale", "ftrl",
     dict(learning_rate=0.1, lamda1=0.01, beta=1.0, wd=0.01, rescale_grad=0.5,
          clip_gradient=1.0), "fc1_weight", False, None),
    ("sgd_mp_momentum", "sgd",
     dict(learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5, clip_gradient=1.0,
          multi_precision=True), "fc1_weight", True, None),
    ("sgd_mp_plain", "sgd", dict(learning_rate=0.1, wd=0.01, multi_precision=True), "fc1_weight",
     True, None),
    ("nag_mp_momentum", "nag",
     dict(learning_rate=0.1, momentum=0.9, wd=0.01, clip_gradient=1.0, multi_precision=True),
     "fc1_weight", True, None),
    ("lars_mp_momentum", "lars",
     dict(learning_rate=0.1, momentum=0.9, wd=0.01, eta=0.002, multi_precision=True),
     "fc1_weight", True, None),
    ("adam_mp_cast_path", "adam",
     dict(learning_rate=0.01, wd=0.01, clip_gradient=1.0, multi_precision=True), "fc1_weight",
     True, None),
    ("rmsprop_mp_cast_path", "rmsprop",
     dict(learning_rate=0.01, wd=0.01, centered=True, multi_precision=True), "fc1_weight", True,
     None),
]

# float32 runs against the float64 reference; float64 runs see only rounding
# (LARS: its rate is computed in float32, as multi_lars does); float16
# weights: one half ulp-ish, master copies and states float32-close.
TOL = {"float32": [1e-4, 1e-5], "float64": [1e-9, 1e-12]}
TOL_LARS = {"float32": [1e-4, 1e-5], "float64": [1e-6, 1e-9]}
TOL_MP = {"float16": [2e-3, 1e-4], "float32": [1e-5, 1e-6]}


def mxnet_text(v):
    if isinstance(v, bool):
        return "True" if v else "False"
    return repr(v) if isinstance(v, float) else str(v)


def arr(a):
    return [float(x) for x in np.asarray(a, dtype=np.float64).reshape(-1)]


def optimizer_case(seed, name, opt, params, pname, fp16, lrs):
    w, grads = inputs(seed, fp16=fp16)
    o = OPTIMIZERS[opt](params, pname)
    weight = w.astype(np.float16) if fp16 else w.copy()
    states = o.create(weight)
    steps = []
    for k, g in enumerate(grads):
        if lrs is not None:
            o.lr = lrs[k]
        gk = g.astype(np.float16) if fp16 else g
        weight = o.update(weight, gk, states)
        steps.append({"grad": arr(g), "weight": arr(weight)})
    tol = TOL_MP if fp16 else (TOL_LARS if opt == "lars" else TOL)
    case = {"name": name, "optimizer": opt,
            "params": {k: mxnet_text(v) for k, v in params.items()},
            "param_name": pname, "weight_dtype": "float16" if fp16 else "any",
            "shape": list(SHAPE), "weight": arr(w), "steps": steps,
            "states": [arr(s) for s in states], "num_update": o.count, "tol": tol}
    if lrs is not None:
        case["learning_rates"] = lrs
    return case


def write_optimizer_cases():
    cases = [optimizer_case(100 + i, *c) for i, c in enumerate(CASES)]
    os.makedirs(os.path.dirname(OPT_OUT), exist_ok=True)
    with open(OPT_OUT, "w") as f:
        json.dump({"generator": "scripts/gen_optimizer_refs.py", "cases": cases}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(cases)} optimizer cases to {os.path.relpath(OPT_OUT, ROOT)}")


# ---------------------------------------------- one call of each operator

def ref_array(a, dtype=None):
    a = np.asarray(a, dtype=np.float64)
    d = {"shape": list(a.shape), "data": arr(a)}
    if dtype:
        d["dtype"] = dtype
    return d


def write_op_case(op, case, ins, params, outputs, after, tol=None, dtypes=None):
    """ins/after: lists of float64 arrays (after: None = not compared);
    dtypes: fixed dtype name per input (None: the test's dtype)."""
    dtypes = dtypes or [None] * len(ins)
    doc = {"op": op, "case": case, "generator": "scripts/gen_optimizer_refs.py",
           "params": {k: mxnet_text(v) for k, v in params.items()},
           "inputs": [ref_array(a, t) for a, t in zip(ins, dtypes)],
           "outputs": [None if o is None else ref_array(o) for o in outputs],
           "inputs_after": [None if a is None else ref_array(a) for a in after]}
    if tol:
        doc["tol"] = tol
    path = os.path.join(OP_DIR, f"{op}_{case}.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return path


def op_inputs(seed, n, fp16=False, positive=()):
    """n weight-shaped arrays away from 0; those in `positive` are > 0
    (second moments, accumulators)."""
    rng = np.random.RandomState(seed)
    out = []
    for i in range(n):
        a = rng.uniform(0.2, 1.0, size=SHAPE)
        if i not in positive:
            a = a * np.where(rng.uniform(size=SHAPE) < 0.5, -1, 1)
        cast = np.float16 if fp16 and i < 2 else np.float32
        out.append(a.astype(cast).astype(np.float64))
    out[1] = out[1] * 2  # gradients past the clip bounds
    return out


def sgd_family_ops():
    w, g, m = op_inputs(1, 3)
    p = dict(lr=0.1, momentum=0.9, wd=0.01, rescale_grad=2.0, clip_gradient=0.5)
    mm = m.copy()
    out = nag_mom_update(w, g, mm, 0.1, 0.01, 2.0, 0.5, 0.9, np.float64)
    yield write_op_case("nag_mom_update", "clip_wd_rescale", [w, g, m], p, [out], [None, None, mm])
    p = dict(lr=0.05, wd=0.1, rescale_grad=-3.0, clip_gradient=0.1)
    yield write_op_case("signsgd_update", "rescale_and_clip_ignored", [w, g], p,
                        [signsgd_update(w, g, 0.05, 0.1)], [None, None])
    p = dict(lr=0.01, momentum=0.8, wd=0.02, rescale_grad=0.5, clip_gradient=0.3, wd_lh=0.05)
    mm = m.copy()
    out = signum_update(w, g, mm, 0.01, 0.02, 0.5, 0.3, 0.8, 0.05)
    yield write_op_case("signum_update", "clip_wd_lh", [w, g, m], p, [out], [None, None, mm])


def mp_ops():
    w16, g16, mom, off = op_inputs(2, 4, fp16=True)
    w32 = (w16 + off * 1e-3).astype(np.float32).astype(np.float64)  # the master differs
    f32 = lambda a: a.astype(np.float32)
    fixed = ["float16", "float16", "float32", "float32"]
    p = dict(lr=0.1, wd=0.01, rescale_grad=0.5, clip_gradient=0.4)
    m32 = f32(w32)
    out = mp_sgd(m32, g16.astype(np.float16), 0.1, 0.01, 0.5, 0.4)
    yield write_op_case("mp_sgd_update", "float16_clip", [w16, g16, w32], p, [out],
                        [None, None, m32], TOL_MP, fixed[:3])
    p = dict(lr=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5, clip_gradient=0.4)
    for op, nesterov in (("mp_sgd_mom_update", False), ("mp_nag_mom_update", True)):
        m32, mm = f32(w32), f32(mom)
        out = mp_sgd(m32, g16.astype(np.float16), 0.1, 0.01, 0.5, 0.4, mm, 0.9, nesterov)
        yield write_op_case(op, "float16_clip", [w16, g16, mom, w32], p, [out],
                            [None, None, mm, m32], TOL_MP, fixed)


def adaptive_ops():
    w, g, n, gavg, delta = op_inputs(3, 5, positive=(2,))
    gavg = gavg * 0.3  # n - gavg^2 stays positive
    p = dict(lr=0.05, gamma1=0.9, epsilon=1e-6, wd=0.02, rescale_grad=0.5, clip_gradient=0.6,
             clip_weights=0.7)
    nn = n.copy()
    out = rmsprop_update(w, g, nn, 0.05, 0.02, 0.5, 0.6, 0.9, 1e-6, 0.7)
    yield write_op_case("rmsprop_update", "clip_weights", [w, g, n], p, [out], [None, None, nn])
    p = dict(lr=0.05, gamma1=0.9, gamma2=0.8, epsilon=1e-6, wd=0.02, rescale_grad=0.5,
             clip_gradient=0.6)
    s = [n.copy(), gavg.copy(), delta.copy()]
    out = rmspropalex_update(w, g, *s, 0.05, 0.02, 0.5, 0.6, 0.9, 0.8, 1e-6, -1.0)
    yield write_op_case("rmspropalex_update", "centered", [w, g, n, gavg, delta], p, [out],
                        [None, None] + s)
    z = delta * 0.05  # |z| around lamda1: some weights are zeroed
    p = dict(lr=0.1, lamda1=0.02, beta=1.0, wd=0.01, rescale_grad=0.5, clip_gradient=0.6)
    s = [z.copy(), n.copy()]
    out = ftrl_update(w, g, *s, 0.1, 0.01, 0.5, 0.6, 0.02, 1.0)
    yield write_op_case("ftrl_update", "l1_threshold", [w, g, z, n], p, [out], [None, None] + s)
    p = dict(lr=0.1, epsilon=1e-6, wd=0.01, rescale_grad=0.5, clip_gradient=0.6)
    h = n.copy()
    out = adagrad_update(w, g, h, 0.1, 0.01, 0.5, 0.6, 1e-6)
    yield write_op_case("adagrad_update", "wd_clip_rescale", [w, g, n], p, [out], [None, None, h])
    p = dict(rho=0.85, epsilon=1e-4, wd=0.01, rescale_grad=0.5, clip_gradient=0.6)
    s = [n.copy(), n[::-1].copy()]
    out = adadelta_update(w, g, *s, 0.01, 0.5, 0.6, 0.85, 1e-4)
    yield write_op_case("adadelta_update", "wd_clip_rescale", [w, g, n, n[::-1]], p, [out],
                        [None, None] + s)


def adamw_lamb_ops():
    w, g, mean, var = op_inputs(4, 4, positive=(3,))
    f64 = np.float64
    p = dict(lr=0.9, beta1=0.85, beta2=0.99, epsilon=1e-6, wd=0.05, eta=0.02, clip_gradient=0.5)
    fixed = [None, None, None, None, "float32"]
    s = [mean.copy(), var.copy()]
    out = adamw_update(w, g, *s, 0.25, 0.9, 0.05, 0.02, 0.5, 0.85, 0.99, 1e-6, f64)
    yield write_op_case("_adamw_update", "clip_eta", [w, g, mean, var, np.array([0.25])], p,
                        [out], [None, None] + s + [None], None, fixed)
    # rescale_grad 0: the step is skipped; nothing is written.
    yield write_op_case("_adamw_update", "zero_rescale_skips", [w, g, mean, var, np.array([0.0])],
                        p, [None], [None, None, mean, var, None], None, fixed)
    for corr, t in ((True, 3), (False, 1)):
        p = dict(beta1=0.85, beta2=0.99, epsilon=1e-6, t=t, bias_correction=corr, wd=0.05,
                 rescale_grad=0.5, clip_gradient=0.6)
        s = [mean.copy(), var.copy()]
        out = lamb_phase1(w, g, *s, 0.85, 0.99, 1e-6, t, corr, 0.05, 0.5, 0.6, f64)
        case = "bias_correction_t3" if corr else "no_bias_correction"
        yield write_op_case("lamb_update_phase1", case, [w, g, mean, var], p, [out],
                            [None, None] + s)
    for case, r1, r2, lo, up in (("bounds", 2.5, 0.8, 0.5, 1.5), ("zero_r2", 1.2, 0.0, -1, -1)):
        p = dict(lr=0.1, lower_bound=lo, upper_bound=up)
        out = lamb_phase2(w, g, r1, r2, 0.1, lo, up, f64)
        yield write_op_case("lamb_update_phase2", case, [w, g, np.array([r1]), np.array([r2])],
                            p, [out], [None] * 4)


def write_op_cases():
    paths = [p for gen in (sgd_family_ops, mp_ops, adaptive_ops, adamw_lamb_ops) for p in gen()]
    print(f"wrote {len(paths)} operator cases to {os.path.relpath(OP_DIR, ROOT)}/")


# ------------------------------------- state files (the fuzzer's seeds)

DTYPE_CODE = {np.float32: 0, np.float64: 1, np.float16: 2, np.uint8: 3, np.int64: 6}


def nd_list(entries):
    """MXNet's NDArray-list bytes of (name, array) pairs: V2 dense records on
    cpu(0), then the names."""
    out = struct.pack("<QQQ", 0x112, 0, len(entries))
    for _, a in entries:
        out += struct.pack("<Iii", 0xF993FAC9, 0, a.ndim)
        out += b"".join(struct.pack("<q", d) for d in a.shape)
        out += struct.pack("<iii", 1, 0, DTYPE_CODE[a.dtype.type]) + a.tobytes()
    out += struct.pack("<Q", len(entries))
    for name, _ in entries:
        out += struct.pack("<Q", len(name)) + name.encode()
    return out


def states_file(optimizer, num_update, indices, extra=()):
    """indices: (index, count, weight dtype, shape, [state arrays])."""
    i64 = lambda *v: np.array(v, dtype=np.int64)
    e = [("meta:format", i64(1)), ("meta:optimizer", np.frombuffer(optimizer.encode(), np.uint8)),
         ("meta:num_update", i64(num_update))]
    e += [("extra:" + k, np.array([v], dtype=np.float64)) for k, v in extra]
    for index, count, dtype, shape, states in indices:
        e.append((f"count:{index}", i64(count)))
        e.append((f"weight:{index}", i64(DTYPE_CODE[dtype], *shape)))
        e += [(f"state:{index}:{j}", st) for j, st in enumerate(states)]
    return nd_list(e)


def ramp(shape, dtype, scale=0.125, offset=0.0):
    """Values offset + scale * (0, 1, 2, ...) of `shape`, exact in float16."""
    return (offset + scale * np.arange(int(np.prod(shape)))).reshape(shape).astype(dtype)


SEEDS = {
    # sgd with momentum: indices 0 and 7 (read back by optimizer_states_test.cc)
    "sgd_momentum.states": states_file("sgd", 3, [
        (0, 3, np.float32, (2, 3), [ramp((2, 3), np.float32)]),
        (7, 1, np.float32, (4,), [ramp((4,), np.float32, -0.5, 1.0)])]),
    "sgd_plain.states": states_file("sgd", 2, [(1, 2, np.float32, (3,), [])]),
    "adam_multi_precision.states": states_file("adam", 1, [
        (0, 1, np.float16, (2, 2), [ramp((2, 2), np.float32, 0.5, 1.0),
                                    ramp((2, 2), np.float32, 0.01), ramp((2, 2), np.float32, 1e-4)])]),
    "rmsprop_centered_float64.states": states_file("rmsprop", 4, [
        (3, 4, np.float64, (3,), [ramp((3,), np.float64, 0.5, 1.0), ramp((3,), np.float64, 0.1),
                                  ramp((3,), np.float64, -0.01)])]),
    "lars_momentum.states": states_file("lars", 2, [
        (0, 2, np.float32, (2, 2), [ramp((2, 2), np.float32, 0.01)])],
        extra=[("lars_cur_lr", 0.1), ("lars_last_lr", 0.05)]),
    "sgd_mp_momentum.states": states_file("sgd", 5, [
        (2, 5, np.float16, (3,), [ramp((3,), np.float32, 0.25, 1.0), ramp((3,), np.float32, 0.01)])]),
}


def write_fuzz_seeds():
    os.makedirs(SEED_DIR, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(SEED_DIR, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(SEEDS)} state files to {os.path.relpath(SEED_DIR, ROOT)}/")


if __name__ == "__main__":
    write_optimizer_cases()
    write_op_cases()
    write_fuzz_seeds()
