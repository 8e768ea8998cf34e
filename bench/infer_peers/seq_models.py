"""The benchmark's sequence models in PyTorch and as MXNet graphs (see export_models.py).

bert: a 4-layer BERT-base encoder (hidden 768, 12 heads, feed-forward 3072, erf GELU,
post-LayerNorm with eps 1e-12) on embedded input of shape (batch, 128, 768), written as
GluonNLP's BERT 0.x exports it: FullyConnected(flatten=False) projections, Reshape and
transpose to (batch * heads, 128, 64), batch_dot, softmax, batch_dot, and LeakyReLU(gelu).

lstm_lm: a 2-layer LSTM language model (vocabulary 10,000, embedding and hidden 650) on
35 steps of token ids given as float32 in (steps, batch) order, written as a hybridized Gluon
model exports it: Embedding, the RNN operator on a `_rnn_param_concat` of the per-gate
matrices with zero begin states, and a FullyConnected(flatten=False) decoder giving
(35, batch, 10000) logits.
"""
import math

import torch
from torch import nn

from mx_graph import MxGraph

BERT_LAYERS, BERT_HIDDEN, BERT_HEADS, BERT_FFN, BERT_SEQ = 4, 768, 12, 3072, 128
LM_VOCAB, LM_HIDDEN, LM_LAYERS, LM_STEPS = 10000, 650, 2, 35


class BertLayer(nn.Module):
    def __init__(self):
        super().__init__()
        d = BERT_HIDDEN
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.proj = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.ffn1, self.ffn2 = nn.Linear(d, BERT_FFN), nn.Linear(BERT_FFN, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-12)

    def forward(self, x):
        b, s, d = x.shape
        h, hd = BERT_HEADS, d // BERT_HEADS

        def heads(t):
            return t.reshape(b, s, h, hd).transpose(1, 2)

        q, k, v = heads(self.query(x)), heads(self.key(x)), heads(self.value(x))
        att = torch.softmax(torch.matmul(q, k.transpose(2, 3)) / math.sqrt(hd), -1)
        ctx = torch.matmul(att, v).transpose(1, 2).reshape(b, s, d)
        x = self.ln1(x + self.proj(ctx))
        return self.ln2(x + self.ffn2(nn.functional.gelu(self.ffn1(x))))


def randomise_layernorm(model):
    """Random LayerNorm gamma and beta: a wrong LayerNorm shows in the output."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.2)


def bert():
    model = nn.Sequential(*[BertLayer() for _ in range(BERT_LAYERS)])
    randomise_layernorm(model)
    return model


class LstmLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(LM_VOCAB, LM_HIDDEN)
        self.lstm = nn.LSTM(LM_HIDDEN, LM_HIDDEN, LM_LAYERS)
        self.decoder = nn.Linear(LM_HIDDEN, LM_VOCAB)

    def forward(self, tokens):  # (steps, batch) float32 token ids
        return self.decoder(self.lstm(self.embed(tokens.long()))[0])


def lstm_lm():
    return LstmLM()


def input_for(name, batch):
    """A random input of the model for `batch`, or None when the model is not one of these."""
    if name == "bert":
        return torch.randn(batch, BERT_SEQ, BERT_HIDDEN)
    if name == "lstm_lm":
        return torch.randint(0, LM_VOCAB, (LM_STEPS, batch)).float()
    return None


def onnx_batch_axis(name):
    return 1 if name == "lstm_lm" else 0


def _fc(g, x, name, m):
    w, b = g.var(name + "_weight", m.weight), g.var(name + "_bias", m.bias)
    return g.op("FullyConnected", name, (x, w, b), {"num_hidden": m.out_features,
                                                    "flatten": False})


def _layernorm(g, x, name, m):
    ins = (x, g.var(name + "_gamma", m.weight), g.var(name + "_beta", m.bias))
    return g.op("LayerNorm", name, ins, {"axis": -1, "eps": m.eps})


def _bert_layer(g, x, p, m):
    def heads(t, name):  # (b, s, 768) -> (b * 12, s, 64)
        t = g.op("Reshape", name + "_split", (t,), {"shape": (0, 0, BERT_HEADS, -1)})
        t = g.op("transpose", name + "_heads", (t,), {"axes": (0, 2, 1, 3)})
        return g.op("Reshape", name + "_merge", (t,), {"shape": (-1, 0, 0), "reverse": True})

    q = heads(_fc(g, x, p + "query", m.query), p + "query")
    k = heads(_fc(g, x, p + "key", m.key), p + "key")
    v = heads(_fc(g, x, p + "value", m.value), p + "value")
    score = g.op("batch_dot", p + "score", (q, k), {"transpose_b": True})
    score = g.op("_div_scalar", p + "scale", (score,), {"scalar": math.sqrt(BERT_HIDDEN // BERT_HEADS)})
    att = g.op("softmax", p + "att", (score,), {"axis": -1})
    ctx = g.op("batch_dot", p + "ctx", (att, v))
    ctx = g.op("Reshape", p + "ctx_split", (ctx,), {"shape": (-4, -1, BERT_HEADS, 0, 0)})
    ctx = g.op("transpose", p + "ctx_seq", (ctx,), {"axes": (0, 2, 1, 3)})
    ctx = g.op("Reshape", p + "ctx_merge", (ctx,), {"shape": (0, 0, -3)})
    x = g.op("elemwise_add", p + "add1", (x, _fc(g, ctx, p + "proj", m.proj)))
    x = _layernorm(g, x, p + "ln1", m.ln1)
    y = g.op("LeakyReLU", p + "gelu", (_fc(g, x, p + "ffn1", m.ffn1),), {"act_type": "gelu"})
    x = g.op("elemwise_add", p + "add2", (x, _fc(g, y, p + "ffn2", m.ffn2)))
    return _layernorm(g, x, p + "ln2", m.ln2)


def _lstm_lm(g, x, m):
    x = g.op("Embedding", "embed", (x, g.var("embed_weight", m.embed.weight)),
             {"input_dim": LM_VOCAB, "output_dim": LM_HIDDEN})
    pieces = []
    for kind in ("weight", "bias"):
        for layer in range(LM_LAYERS):
            for gate, torch_gate in (("i2h", "ih"), ("h2h", "hh")):
                name = "lstm_l%d_%s_%s" % (layer, gate, kind)
                value = getattr(m.lstm, "%s_%s_l%d" % (kind, torch_gate, layer))
                pieces.append(g.op("Reshape", name + "_flat", (g.var(name, value, shape_hint=True),),
                                   {"shape": (-1,)}))
    params = g.op("_rnn_param_concat", "lstm_params", pieces, {"dim": 0, "num_args": len(pieces)})
    states = [g.op("_zeros", "lstm_begin_state%d" % i, (),
                   {"shape": (LM_LAYERS, 0, LM_HIDDEN)}) for i in range(2)]
    x = g.op("RNN", "lstm", (x, params, *states),
             {"mode": "lstm", "state_size": LM_HIDDEN, "num_layers": LM_LAYERS,
              "state_outputs": False})
    return _fc(g, x, "decoder", m.decoder)


def to_mx(name, model):
    """The MXNet graph of one of these models, or None when NAME is not one of them."""
    if name not in ("bert", "lstm_lm"):
        return None
    g = MxGraph()
    x = g.var("data")
    if name == "lstm_lm":
        _lstm_lm(g, x, model)
    else:
        for i, layer in enumerate(model):
            x = _bert_layer(g, x, "layer%d_" % i, layer)
    return g
