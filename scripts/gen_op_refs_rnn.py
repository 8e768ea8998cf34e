#!/usr/bin/python3
"""PyTorch references for the RNN and Sequence* operators in the format of
tests/util/op_refs.h.

Run with Debian's interpreter (python3-torch 1.13, numpy):
    /usr/bin/python3 scripts/gen_op_refs_rnn.py [substring ...]
Writes tests/data/op_refs/<op>_<case>.json; see scripts/gen_op_refs.py for
the helpers and the filter.

RNN cases run torch.nn.LSTM / GRU / RNN with their weights taken from one
packed vector in MXNet's layout: every (W_ih, W_hh) per layer and direction
(l0, l0_reverse, l1, ...), then every (b_ih, b_hh) in the same order. The
gate orders coincide (LSTM i, f, g, o; GRU r, z, n) and so does the GRU
formula (n = tanh(W_in x + b_in + r * (W_hn h + b_hn))), so the slices are
plain reshapes. Variable lengths use pack_padded_sequence (cuDNN's
semantics: zero output past a row's length, final state at its end, the
reverse direction starting there). LSTM cases with a projection
(projection_size P) use torch.nn.LSTM(proj_size=P): MXNet packs W_hr (P x H)
after each (W_ih, W_hh), as Gluon's LSTM(projection_size=P) does.
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_op_refs  # noqa: E402
from gen_op_refs import rand, run_cases, write_case  # noqa: E402

gen_op_refs.MAX_BYTES = 40 * 1024

GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def make_module(mode, inp, hidden, layers, bi, proj=0):
    kw = dict(num_layers=layers, bidirectional=bi)
    if mode == "lstm":
        return torch.nn.LSTM(inp, hidden, proj_size=proj, **kw)
    if mode == "gru":
        return torch.nn.GRU(inp, hidden, **kw)
    return torch.nn.RNN(inp, hidden, nonlinearity=mode[4:], **kw)


def param_size(mode, inp, hidden, layers, bi, proj=0):
    g, d, r = GATES[mode], 2 if bi else 1, proj or hidden
    return (d * g * hidden * (inp + r + 2) + (layers - 1) * d * g * hidden * (d * r + r + 2)
            + layers * d * proj * hidden)


def unpack(params, mode, inp, hidden, layers, bi, proj=0):
    """The torch parameter dict of the MXNet packed vector `params`."""
    g, d, r = GATES[mode], 2 if bi else 1, proj or hidden
    gh = g * hidden
    out, off = {}, 0
    for layer in range(layers):
        n_in = inp if layer == 0 else d * r
        for di in range(d):
            sfx = f"_l{layer}" + ("_reverse" if di else "")
            out["weight_ih" + sfx] = params[off:off + gh * n_in].reshape(gh, n_in)
            off += gh * n_in
            out["weight_hh" + sfx] = params[off:off + gh * r].reshape(gh, r)
            off += gh * r
            if proj:
                out["weight_hr" + sfx] = params[off:off + proj * hidden].reshape(proj, hidden)
                off += proj * hidden
    for layer in range(layers):
        for di in range(d):
            sfx = f"_l{layer}" + ("_reverse" if di else "")
            out["bias_ih" + sfx] = params[off:off + gh]
            off += gh
            out["bias_hh" + sfx] = params[off:off + gh]
            off += gh
    assert off == params.numel()
    return out


def rnn_fn(mode, inp, hidden, layers, bi, state_outputs, lengths=None, proj=0):
    module = make_module(mode, inp, hidden, layers, bi, proj)

    def fn(x, w, h, *rest):
        c = rest[0] if mode == "lstm" else None
        state = (h, c) if mode == "lstm" else h
        xin = x
        if lengths is not None:
            xin = torch.nn.utils.rnn.pack_padded_sequence(
                x, torch.tensor(lengths, dtype=torch.int64), enforce_sorted=False)
        # The packed slices replace the module's parameters as plain tensors
        # (autograd flows back into `w`); RNN modules read _flat_weights.
        for name, value in unpack(w, mode, inp, hidden, layers, bi, proj).items():
            delattr(module, name)
            setattr(module, name, value)
        module._flat_weights = [getattr(module, n) for n in module._flat_weights_names]
        y, st = module(xin, state)
        if lengths is not None:
            y, _ = torch.nn.utils.rnn.pad_packed_sequence(y, total_length=x.shape[0])
        if not state_outputs:
            return y
        return (y,) + (tuple(st) if mode == "lstm" else (st,))
    return fn


def rnn_case(case, mode, seq, batch, inp, hidden, layers, bi, state_outputs, lengths=None, proj=0):
    d = 2 if bi else 1
    x = rand(seq, batch, inp)
    w = rand(param_size(mode, inp, hidden, layers, bi, proj), lo=-0.6, hi=0.6)
    h = rand(layers * d, batch, proj or hidden)
    inputs = [x, w, h]
    if mode == "lstm":
        inputs.append(rand(layers * d, batch, hidden))
    params = {"mode": mode, "state_size": hidden, "num_layers": layers}
    if proj:
        params["projection_size"] = proj
    if bi:
        params["bidirectional"] = True
    if state_outputs:
        params["state_outputs"] = True
    diff = list(range(len(inputs)))
    fn = rnn_fn(mode, inp, hidden, layers, bi, state_outputs, lengths, proj)
    if lengths is not None:
        params["use_sequence_length"] = True
        inputs.append(np.asarray(lengths, dtype=np.float64))
        inner = fn

        def fn(*args):  # noqa: F811  (the lengths input is fixed in the closure)
            return inner(*args[:-1])
    write_case("RNN", case, inputs, params, fn, diff=diff)


def rnn_cases():
    rnn_case("lstm_1l", "lstm", 4, 2, 3, 4, 1, False, True)
    rnn_case("lstm_1l_nostate", "lstm", 3, 2, 3, 3, 1, False, False)
    rnn_case("lstm_2l_bi", "lstm", 3, 2, 2, 3, 2, True, True)
    rnn_case("gru_1l", "gru", 4, 2, 3, 4, 1, False, True)
    rnn_case("gru_2l_bi", "gru", 3, 2, 2, 3, 2, True, True)
    rnn_case("rnn_tanh_2l", "rnn_tanh", 4, 3, 3, 4, 2, False, True)
    rnn_case("rnn_relu_bi", "rnn_relu", 4, 2, 3, 4, 1, True, False)
    rnn_case("lstm_seqlen_bi", "lstm", 4, 3, 2, 3, 1, True, True, lengths=[4, 2, 3])
    rnn_case("gru_seqlen_2l", "gru", 4, 3, 2, 3, 2, False, True, lengths=[1, 4, 3])
    rnn_case("lstmp_1l", "lstm", 4, 2, 3, 5, 1, False, True, proj=3)
    rnn_case("lstmp_2l_bi", "lstm", 3, 2, 2, 4, 2, True, True, proj=2)
    rnn_case("lstmp_seqlen_bi", "lstm", 4, 3, 2, 4, 1, True, True, lengths=[4, 1, 3], proj=3)


def seq_cases():
    x = rand(4, 3, 2)
    lens = np.array([2.0, 4.0, 1.0])

    def mask(x, value, axis, lens):
        t = torch.arange(x.shape[axis]).double()
        keep = t[:, None] < torch.tensor(lens)[None, :]  # (T, N)
        if axis == 1:
            keep = keep.t()
        keep = keep.reshape(keep.shape + (1,) * (x.dim() - 2))
        return torch.where(keep, x, torch.full_like(x, value))

    write_case("SequenceMask", "len_value", [x, lens],
               {"use_sequence_length": True, "value": -1.5},
               lambda x, l: mask(x, -1.5, 0, lens), diff=[0])
    xb = rand(3, 4, 2)
    write_case("SequenceMask", "len_axis1", [xb, lens], {"use_sequence_length": True, "axis": 1},
               lambda x, l: mask(x, 0.0, 1, lens), diff=[0])
    write_case("SequenceMask", "nolen", [x], {}, lambda x: x * 1.0)

    def last(x, axis, lens):
        idx = [int(v) - 1 for v in lens]
        if axis == 0:
            return torch.stack([x[idx[b], b] for b in range(x.shape[1])])
        return torch.stack([x[b, idx[b]] for b in range(x.shape[0])])

    write_case("SequenceLast", "len", [x, lens], {"use_sequence_length": True},
               lambda x, l: last(x, 0, lens), diff=[0])
    write_case("SequenceLast", "len_axis1", [xb, lens], {"use_sequence_length": True, "axis": 1},
               lambda x, l: last(x, 1, lens), diff=[0])
    write_case("SequenceLast", "nolen", [x], {}, lambda x: x[-1])

    def reverse(x, lens):
        rows = []
        for b in range(x.shape[1]):
            n = int(lens[b])
            idx = list(range(n - 1, -1, -1)) + list(range(n, x.shape[0]))
            rows.append(x[idx, b])
        return torch.stack(rows, 1)

    write_case("SequenceReverse", "len", [x, lens], {"use_sequence_length": True},
               lambda x, l: reverse(x, lens), diff=[0])
    write_case("SequenceReverse", "nolen", [x], {}, lambda x: torch.flip(x, [0]))


CASES = [rnn_cases, seq_cases]

if __name__ == "__main__":
    run_cases(CASES)
