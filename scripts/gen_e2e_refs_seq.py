#!/usr/bin/python3
"""End-to-end references for sequence models run through `weft run`.

Run with Debian's interpreter (python3-torch 1.13, numpy):
    /usr/bin/python3 scripts/gen_e2e_refs_seq.py
Writes, per model, tests/data/e2e/<model>/: symbol .json files written the
way MXNet 1.x exports them, a .params file in MXNet's NDArray-list format
(scripts/mxnet_params.py), input .npy files and the expected outputs
computed by an independent PyTorch model with the same fixed random weights.
tests/tools/e2e_seq_test.sh runs the CLI on them.

lstm_lm: the PTB language model of MXNet's example/rnn/bucketing
(cudnn_rnn_bucketing.py): Embedding -> FusedRNNCell.unroll(layout='NTC')
(SwapAxis, RNN mode lstm with `_zeros` begin states, SwapAxis) -> Reshape
(-1, hidden) -> FullyConnected -> SoftmaxOutput on (batch*seq, vocab).
lstm_lm-states is the same cell with get_next_state=True and the begin
states as inputs (the stateful inference form): it also outputs the final
states. lstm_lm-gluon is the same model as example/gluon/word_language_model
(RNNModel: Embedding, Dropout, gluon.rnn.LSTM, Dropout, Dense) exports it:
time-major, inputs data0 (tokens) and data1/data2 (begin states), the LSTM's
weights and biases flattened with Reshape(-1) and packed by
_rnn_param_concat, state_outputs=True, logits and both final states as
outputs.

transformer: two BERT encoder cells as GluonNLP 0.x exports them.
Multi-head attention from FullyConnected(flatten=False), Reshape (0,0,H,-1),
transpose (0,2,1,3), Reshape (-1,0,0) reverse, batch_dot(transpose_b).
Layer 0 masks with softmax(use_length=True) over a length built from
valid_length, scales with _contrib_div_sqrt_dim, uses the erf GELU
formula and elemwise_add residuals; layer 1 masks the way GluonNLP's
_masked_softmax does (arange_like, broadcast_lesser, where with -1e18,
softmax * mask), scales the scores with _div_scalar, uses
LeakyReLU(act_type='gelu') and broadcast_add residuals. Both end in
LayerNorm(eps 1e-12). The torch reference is a plain re-implementation.
transformer-interleaved is layer 0 as GluonNLP 0.10's BERT exports it with
fused attention: time-major, one FullyConnected to per-head [q, k, v]
blocks, _contrib_interleaved_matmul_selfatt_qk, length-masked softmax,
_contrib_interleaved_matmul_selfatt_valatt.
"""
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mxnet_params import write_params  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "data", "e2e")


class Sym:
    """A symbol graph in MXNet 1.x's JSON layout (nodes, arg_nodes, heads)."""

    def __init__(self):
        self.nodes = []
        self.nout = []

    def var(self, name, **attrs):
        node = {"op": "null", "name": name, "inputs": []}
        if attrs:
            node["attrs"] = {k: str(v) for k, v in attrs.items()}
        self.nodes.append(node)
        self.nout.append(1)
        return (len(self.nodes) - 1, 0)

    def op(self, op, name, inputs, nout=1, **attrs):
        """Adds a node; returns its output entries (one entry when nout is 1)."""
        def fmt(v):
            if isinstance(v, bool):
                return "True" if v else "False"
            if isinstance(v, tuple):
                return "(" + ", ".join(str(x) for x in v) + ("," if len(v) == 1 else "") + ")"
            return str(v)
        self.nodes.append({"op": op, "name": name, "attrs": {k: fmt(v) for k, v in attrs.items()},
                           "inputs": [[i, o, 0] for i, o in inputs]})
        self.nout.append(nout)
        idx = len(self.nodes) - 1
        return (idx, 0) if nout == 1 else [(idx, k) for k in range(nout)]

    def save(self, path, heads):
        ptr = [0]
        for n in self.nout:
            ptr.append(ptr[-1] + n)
        doc = {"nodes": self.nodes,
               "arg_nodes": [i for i, n in enumerate(self.nodes) if n["op"] == "null"],
               "node_row_ptr": ptr,
               "heads": [[i, o, 0] for i, o in heads],
               "attrs": {"mxnet_version": ["int", 10901]}}
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")


def f32(t):
    return t.detach().to(torch.float32).numpy()


def save_npy(folder, name, a):
    np.save(os.path.join(folder, name), np.ascontiguousarray(a, dtype=np.float32))


# ---------------------------------------------------------------- lstm_lm

VOCAB, EMBED, HIDDEN, LAYERS, SEQ, BATCH = 20, 8, 12, 2, 5, 3


def pack_lstm(lstm):
    """torch.nn.LSTM's weights as MXNet's packed RNN vector: every layer's
    (W_ih, W_hh), then every layer's (b_ih, b_hh); gates i, f, g, o in both."""
    w = [getattr(lstm, f"{k}_l{l}").reshape(-1) for l in range(LAYERS) for k in ("weight_ih", "weight_hh")]
    b = [getattr(lstm, f"{k}_l{l}").reshape(-1) for l in range(LAYERS) for k in ("bias_ih", "bias_hh")]
    return torch.cat(w + b)


def lstm_lm_symbol(path, with_states):
    s = Sym()
    data = s.var("data")
    embed_w = s.var("embed_weight")
    embed = s.op("Embedding", "embed", [data, embed_w], input_dim=VOCAB, output_dim=EMBED)
    x = s.op("SwapAxis", "lstm_swapaxes0", [embed], dim1=0, dim2=1)
    params = s.var("lstm_parameters")
    if with_states:
        h0 = s.var("lstm_begin_state_0", __layout__="LNC")
        c0 = s.var("lstm_begin_state_1", __layout__="LNC")
    else:  # FusedRNNCell.begin_state: zeros of shape (layers, 0, hidden)
        h0 = s.op("_zeros", "lstm_begin_state_0", [], shape=(LAYERS, 0, HIDDEN), __layout__="LNC")
        c0 = s.op("_zeros", "lstm_begin_state_1", [], shape=(LAYERS, 0, HIDDEN), __layout__="LNC")
    rnn = s.op("RNN", "lstm_rnn", [x, params, h0, c0], nout=3 if with_states else 1,
               state_size=HIDDEN, num_layers=LAYERS, bidirectional=False, p=0.0,
               state_outputs=with_states, mode="lstm")
    out = rnn[0] if with_states else rnn
    y = s.op("SwapAxis", "lstm_swapaxes1", [out], dim1=0, dim2=1)
    pred = s.op("Reshape", "reshape0", [y], shape=(-1, HIDDEN))
    fw, fb = s.var("pred_weight"), s.var("pred_bias")
    pred = s.op("FullyConnected", "pred", [pred, fw, fb], num_hidden=VOCAB)
    label = s.var("softmax_label")
    label = s.op("Reshape", "reshape1", [label], shape=(-1,))
    sm = s.op("SoftmaxOutput", "softmax", [pred, label])
    s.save(path, [sm] + (rnn[1:] if with_states else []))


def gluon_param(s, name, shape):
    """A Gluon Parameter's variable, with the attributes export writes (an
    input-size extent not known before the first forward is 0)."""
    return s.var(name, __shape__=shape, __dtype__=0, __lr_mult__=1.0, __wd_mult__=1.0, __storage_type__=0)


def lstm_lm_gluon_symbol(path):
    s = Sym()
    pre = "rnnmodel0_"
    data = s.var("data0")
    embed_w = gluon_param(s, pre + "embedding0_weight", (VOCAB, EMBED))
    x = s.op("Embedding", pre + "embedding0_fwd", [data, embed_w], input_dim=VOCAB, output_dim=EMBED,
             dtype="float32", sparse_grad=False)
    x = s.op("Dropout", pre + "dropout0_fwd", [x], p=0.2, axes=())
    flat = []
    for t in ("weight", "bias"):  # Gluon's packing order: t, layer, direction, gate
        for l in range(LAYERS):
            for g in ("i2h", "h2h"):
                name = f"{pre}lstm0_l{l}_{g}_{t}"
                n_in = (0 if l == 0 else HIDDEN) if g == "i2h" else HIDDEN  # LSTM(input_size=0)
                shape = (4 * HIDDEN, n_in) if t == "weight" else (4 * HIDDEN,)
                flat.append(s.op("Reshape", f"{pre}lstm0_reshape{len(flat)}", [gluon_param(s, name, shape)],
                                 shape=(-1,)))
    params = s.op("_rnn_param_concat", pre + "lstm0_rnn_param_concat0", flat, num_args=len(flat), dim=0)
    h0, c0 = s.var("data1"), s.var("data2")
    rnn = s.op("RNN", pre + "lstm0_rnn0", [x, params, h0, c0], nout=3, state_size=HIDDEN, num_layers=LAYERS,
               bidirectional=False, p=0.0, state_outputs=True, mode="lstm", use_sequence_length=False,
               projection_size="None", lstm_state_clip_min="None", lstm_state_clip_max="None",
               lstm_state_clip_nan=False)
    y = s.op("Dropout", pre + "dropout1_fwd", [rnn[0]], p=0.2, axes=())
    y = s.op("Reshape", pre + "reshape0", [y], shape=(-1, HIDDEN))
    fw = gluon_param(s, pre + "dense0_weight", (VOCAB, HIDDEN))
    fb = gluon_param(s, pre + "dense0_bias", (VOCAB,))
    y = s.op("FullyConnected", pre + "dense0_fwd", [y, fw, fb], num_hidden=VOCAB, flatten=True, no_bias=False)
    s.save(path, [y, rnn[1], rnn[2]])


def gluon_lstm_params(lstm):
    """gluon.rnn.LSTM's parameters (l<layer>_<i2h|h2h>_<weight|bias>) from torch's."""
    out = []
    for l in range(LAYERS):
        for g, k in (("i2h", "ih"), ("h2h", "hh")):
            for t in ("weight", "bias"):
                out.append((f"arg:rnnmodel0_lstm0_l{l}_{g}_{t}", f32(getattr(lstm, f"{t}_{k}_l{l}"))))
    return out


def gen_lstm_lm():
    folder = os.path.join(OUT, "lstm_lm")
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(7)
    embed = torch.nn.Embedding(VOCAB, EMBED).double()
    lstm = torch.nn.LSTM(EMBED, HIDDEN, num_layers=LAYERS).double()
    fc = torch.nn.Linear(HIDDEN, VOCAB).double()
    with torch.no_grad():
        for p in list(lstm.parameters()) + list(fc.parameters()):
            p.uniform_(-0.5, 0.5)
        embed.weight.uniform_(-1, 1)
        fc.weight.uniform_(-2, 2)  # peaked enough that the states show in the probabilities
        for p in list(embed.parameters()) + list(lstm.parameters()) + list(fc.parameters()):
            p.copy_(p.to(torch.float32))  # the values the float32 file holds
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ))
    label = torch.randint(0, VOCAB, (BATCH, SEQ))
    h0 = (torch.rand(LAYERS, BATCH, HIDDEN) - 0.5).double()
    c0 = (torch.rand(LAYERS, BATCH, HIDDEN) - 0.5).double()

    def forward(state):
        x = embed(tokens).transpose(0, 1)  # (seq, batch, embed)
        y, (h, c) = lstm(x, state)
        logits = fc(y.transpose(0, 1).reshape(-1, HIDDEN))  # rows in (batch, seq) order
        return F.softmax(logits, dim=-1), h, c

    with torch.no_grad():
        zeros = torch.zeros(LAYERS, BATCH, HIDDEN, dtype=torch.float64)
        prob0, _, _ = forward((zeros, zeros))
        prob1, h1, c1 = forward((h0, c0))
        y, (h2, c2) = lstm(embed(tokens.t()), (h0, c0))  # Gluon model: time-major throughout
        logits2 = fc(y.reshape(-1, HIDDEN))
    lstm_lm_symbol(os.path.join(folder, "lstm_lm-symbol.json"), False)
    lstm_lm_symbol(os.path.join(folder, "lstm_lm-states-symbol.json"), True)
    write_params(os.path.join(folder, "lstm_lm-0000.params"), [
        ("arg:embed_weight", f32(embed.weight)), ("arg:lstm_parameters", f32(pack_lstm(lstm))),
        ("arg:pred_weight", f32(fc.weight)), ("arg:pred_bias", f32(fc.bias))])
    lstm_lm_gluon_symbol(os.path.join(folder, "lstm_lm-gluon-symbol.json"))
    write_params(os.path.join(folder, "lstm_lm-gluon-0000.params"), [
        ("arg:rnnmodel0_embedding0_weight", f32(embed.weight))] + gluon_lstm_params(lstm) + [
        ("arg:rnnmodel0_dense0_weight", f32(fc.weight)), ("arg:rnnmodel0_dense0_bias", f32(fc.bias))])
    save_npy(folder, "data_tn.npy", tokens.t().numpy())
    save_npy(folder, "gluon_logits.npy", f32(logits2))
    save_npy(folder, "gluon_state_output.npy", f32(h2))
    save_npy(folder, "gluon_statecell_output.npy", f32(c2))
    save_npy(folder, "data.npy", tokens.numpy())  # token ids as float32, as the data iterator gives them
    save_npy(folder, "softmax_label.npy", label.numpy())
    save_npy(folder, "begin_state_0.npy", f32(h0))
    save_npy(folder, "begin_state_1.npy", f32(c0))
    save_npy(folder, "softmax_output.npy", f32(prob0))
    save_npy(folder, "states_softmax_output.npy", f32(prob1))
    save_npy(folder, "states_state_output.npy", f32(h1))
    save_npy(folder, "states_statecell_output.npy", f32(c1))


# ------------------------------------------------------------ transformer

B, T, C, HEADS, FFN, EPS = 2, 6, 16, 4, 32, 1e-12
VALID = [6, 4]


def attention_symbol(s, x, valid, pre, layer):
    """Self-attention of GluonNLP's MultiHeadAttentionCell on x (B, T, C)."""
    def proj(name, inp):
        w, b = s.var(f"{pre}{name}_weight"), s.var(f"{pre}{name}_bias")
        return s.op("FullyConnected", f"{pre}{name}_fwd", [inp, w, b], num_hidden=C, flatten=False)

    def heads(name, t):
        t = s.op("Reshape", f"{pre}{name}_reshape0", [t], shape=(0, 0, HEADS, -1))
        t = s.op("transpose", f"{pre}{name}_transpose0", [t], axes=(0, 2, 1, 3))
        return s.op("Reshape", f"{pre}{name}_reshape1", [t], shape=(-1, 0, 0), reverse=True)

    q, k, v = (heads(n, proj(n, x)) for n in ("query", "key", "value"))
    if layer == 0:
        q = s.op("_contrib_div_sqrt_dim", f"{pre}div_sqrt_dim0", [q])
    score = s.op("batch_dot", f"{pre}batch_dot0", [q, k], transpose_b=True)
    if layer == 0:
        att = s.op("softmax", f"{pre}softmax0", [score, length_per_head(s, valid, pre)], axis=-1,
                   use_length=True)
    else:
        score = s.op("_div_scalar", f"{pre}div_scalar0", [score], scalar=math.sqrt(C // HEADS))
        steps = s.op("_contrib_arange_like", f"{pre}arange_like0", [x], axis=1)
        steps = s.op("Reshape", f"{pre}reshape2", [steps], shape=(1, -1))
        vl = s.op("Reshape", f"{pre}reshape3", [valid], shape=(-1, 1))
        mask = s.op("broadcast_lesser", f"{pre}broadcast_lesser0", [steps, vl])  # (B, T) keys
        mask = s.op("expand_dims", f"{pre}expand_dims1", [mask], axis=1)
        mask = s.op("broadcast_axis", f"{pre}broadcast_axis1", [mask], axis=1, size=T)  # (B, T, T)
        mask = s.op("expand_dims", f"{pre}expand_dims2", [mask], axis=1)
        mask = s.op("broadcast_axis", f"{pre}broadcast_axis2", [mask], axis=1, size=HEADS)
        mask = s.op("Reshape", f"{pre}reshape4", [mask], shape=(-1, 0, 0), reverse=True)
        ones = s.op("ones_like", f"{pre}ones_like0", [score])
        neg = s.op("_mul_scalar", f"{pre}mul_scalar0", [ones], scalar=-1e18)
        score = s.op("where", f"{pre}where0", [mask, score, neg])
        att = s.op("softmax", f"{pre}softmax0", [score], axis=-1)
        att = s.op("elemwise_mul", f"{pre}mul0", [att, mask])
    ctx = s.op("batch_dot", f"{pre}batch_dot1", [att, v])
    ctx = s.op("Reshape", f"{pre}reshape5", [ctx], shape=(-4, -1, HEADS, 0, 0))
    ctx = s.op("transpose", f"{pre}transpose1", [ctx], axes=(0, 2, 1, 3))
    ctx = s.op("Reshape", f"{pre}reshape6", [ctx], shape=(0, 0, -1))
    return proj("proj", ctx)


def layer_norm(s, x, name):
    g, b = s.var(f"{name}_gamma"), s.var(f"{name}_beta")
    return s.op("LayerNorm", name, [x, g, b], axis=-1, eps=EPS)


def length_per_head(s, valid, pre):
    """softmax's length (B*H, T): valid_length repeated per head and query."""
    ln = s.op("Cast", f"{pre}cast0", [valid], dtype="int32")
    ln = s.op("repeat", f"{pre}repeat0", [ln], repeats=HEADS, axis=0)
    ln = s.op("expand_dims", f"{pre}expand_dims0", [ln], axis=1)
    return s.op("broadcast_axis", f"{pre}broadcast_axis0", [ln], axis=1, size=T)


def interleaved_attention_symbol(s, x, valid, pre):
    """GluonNLP 0.10's fused self-attention on x (B, T, C): one projection to
    per-head [q, k, v] blocks, time-major, the interleaved matmuls."""
    xt = s.op("transpose", f"{pre}transpose0", [x], axes=(1, 0, 2))
    w, b = s.var(f"{pre}qkv_weight"), s.var(f"{pre}qkv_bias")
    qkv = s.op("FullyConnected", f"{pre}qkv_fwd", [xt, w, b], num_hidden=3 * C, flatten=False)
    score = s.op("_contrib_interleaved_matmul_selfatt_qk", f"{pre}interleaved_qk0", [qkv], heads=HEADS)
    att = s.op("softmax", f"{pre}softmax0", [score, length_per_head(s, valid, pre)], axis=-1, use_length=True)
    ctx = s.op("_contrib_interleaved_matmul_selfatt_valatt", f"{pre}interleaved_valatt0", [qkv, att],
               heads=HEADS)
    ctx = s.op("transpose", f"{pre}transpose1", [ctx], axes=(1, 0, 2))
    w, b = s.var(f"{pre}proj_weight"), s.var(f"{pre}proj_bias")
    return s.op("FullyConnected", f"{pre}proj_fwd", [ctx, w, b], num_hidden=C, flatten=False)


def interleave_qkv(p, pre):
    """The fused projection's weight and bias: for every head, its rows of
    the query, key and value projections in turn."""
    d = C // HEADS
    ws, bs = [], []
    for h in range(HEADS):
        for n in ("query", "key", "value"):
            ws.append(p[f"{pre}{n}_weight"][h * d:(h + 1) * d])
            bs.append(p[f"{pre}{n}_bias"][h * d:(h + 1) * d])
    return torch.cat(ws), torch.cat(bs)


def encoder_cell_symbol(s, x, valid, layer, interleaved=False):
    pre = f"enc{layer}_"
    add = "elemwise_add" if layer == 0 else "broadcast_add"
    if interleaved:
        att = interleaved_attention_symbol(s, x, valid, pre + "att_")
    else:
        att = attention_symbol(s, x, valid, pre + "att_", layer)
    x = layer_norm(s, s.op(add, pre + "add0", [att, x]), pre + "ln0")
    w1, b1 = s.var(pre + "ffn1_weight"), s.var(pre + "ffn1_bias")
    h = s.op("FullyConnected", pre + "ffn1_fwd", [x, w1, b1], num_hidden=FFN, flatten=False)
    if layer == 0:  # GluonNLP's GELU with erf: x * 0.5 * (1 + erf(x / sqrt(2)))
        e = s.op("_div_scalar", pre + "gelu_div", [h], scalar=math.sqrt(2.0))
        e = s.op("erf", pre + "gelu_erf", [e])
        e = s.op("_plus_scalar", pre + "gelu_plus", [e], scalar=1.0)
        half = s.op("_mul_scalar", pre + "gelu_half", [h], scalar=0.5)
        h = s.op("elemwise_mul", pre + "gelu_mul", [half, e])
    else:
        h = s.op("LeakyReLU", pre + "gelu", [h], act_type="gelu")
    w2, b2 = s.var(pre + "ffn2_weight"), s.var(pre + "ffn2_bias")
    h = s.op("FullyConnected", pre + "ffn2_fwd", [h, w2, b2], num_hidden=C, flatten=False)
    return layer_norm(s, s.op(add, pre + "add1", [h, x]), pre + "ln1")


def torch_encoder(p, x, valid, layer):
    pre = f"enc{layer}_"

    def lin(t, name):
        return F.linear(t, p[pre + name + "_weight"], p[pre + name + "_bias"])

    def split(t):  # (B, T, C) -> (B, H, T, d)
        return t.view(B, T, HEADS, C // HEADS).permute(0, 2, 1, 3)

    q, k, v = (split(lin(x, "att_" + n)) for n in ("query", "key", "value"))
    score = q @ k.transpose(-1, -2) / math.sqrt(C // HEADS)
    keep = torch.arange(T)[None, :] < torch.tensor(valid)[:, None]  # (B, T) keys
    score = score.masked_fill(~keep[:, None, None, :], float("-inf"))
    ctx = (score.softmax(-1) @ v).permute(0, 2, 1, 3).reshape(B, T, C)
    x = F.layer_norm(lin(ctx, "att_proj") + x, (C,), p[pre + "ln0_gamma"], p[pre + "ln0_beta"], EPS)
    h = lin(F.gelu(lin(x, "ffn1")), "ffn2")
    return F.layer_norm(h + x, (C,), p[pre + "ln1_gamma"], p[pre + "ln1_beta"], EPS)


def gen_transformer():
    folder = os.path.join(OUT, "transformer")
    os.makedirs(folder, exist_ok=True)
    s = Sym()
    data = s.var("data")
    valid = s.var("valid_length")
    x = data
    for layer in range(2):
        x = encoder_cell_symbol(s, x, valid, layer)
    s.save(os.path.join(folder, "transformer-symbol.json"), [x])
    torch.manual_seed(11)
    shapes = {}
    for layer in range(2):
        pre = f"enc{layer}_"
        for n in ("query", "key", "value", "proj"):
            shapes[f"{pre}att_{n}_weight"], shapes[f"{pre}att_{n}_bias"] = (C, C), (C,)
        shapes[pre + "ffn1_weight"], shapes[pre + "ffn1_bias"] = (FFN, C), (FFN,)
        shapes[pre + "ffn2_weight"], shapes[pre + "ffn2_bias"] = (C, FFN), (C,)
        for ln in ("ln0", "ln1"):
            shapes[f"{pre}{ln}_gamma"], shapes[f"{pre}{ln}_beta"] = (C,), (C,)
    p = {}
    for name, shape in shapes.items():
        t = torch.rand(*shape, dtype=torch.float64) * 2 - 1
        if name.endswith("weight"):
            t *= 1.5 / math.sqrt(shape[1])
        elif name.endswith("gamma"):
            t = 1 + 0.5 * t
        p[name] = t.to(torch.float32).to(torch.float64)  # the values the float32 file holds
    x = torch.randn(B, T, C, dtype=torch.float64).to(torch.float32).to(torch.float64)
    with torch.no_grad():
        y = x
        for layer in range(2):
            y = torch_encoder(p, y, VALID, layer)
    write_params(os.path.join(folder, "transformer-0000.params"),
                 [("arg:" + n, f32(t)) for n, t in p.items()])
    save_npy(folder, "data.npy", f32(x))
    save_npy(folder, "valid_length.npy", np.asarray(VALID, dtype=np.float32))
    save_npy(folder, "output.npy", f32(y))
    # Layer 0 again with the fused projection and the interleaved matmuls.
    s = Sym()
    data, valid = s.var("data"), s.var("valid_length")
    s.save(os.path.join(folder, "transformer-interleaved-symbol.json"),
           [encoder_cell_symbol(s, data, valid, 0, interleaved=True)])
    fused = {n: t for n, t in p.items() if n.startswith("enc0_") and not
             any(n.startswith(f"enc0_att_{k}_") for k in ("query", "key", "value"))}
    fused["enc0_att_qkv_weight"], fused["enc0_att_qkv_bias"] = interleave_qkv(p, "enc0_att_")
    write_params(os.path.join(folder, "transformer-interleaved-0000.params"),
                 [("arg:" + n, f32(t)) for n, t in fused.items()])
    with torch.no_grad():
        save_npy(folder, "interleaved_output.npy", f32(torch_encoder(p, x, VALID, 0)))


def main():
    gen_lstm_lm()
    gen_transformer()


if __name__ == "__main__":
    main()
