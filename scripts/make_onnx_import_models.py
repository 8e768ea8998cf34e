#!/usr/bin/python3
"""Writes the ONNX import test models and their references to tests/data/onnx/.

Each model is exported from PyTorch (torch 1.13, onnx 1.12) with a fixed seed;
its input and PyTorch's output are stored beside it as .npy files
(<name>.input<k>.npy, <name>.output<k>.npy). Weft's importer must reproduce
the outputs (tests/core/onnx/onnx_import_models_test.cc). The bad-input models
(bad_*.onnx) and the external-data model are built with onnx.helper.

The ResNet is torchvision's ResNet structure (BasicBlock, one block per stage)
narrowed to 8/16/32/64 channels so the file stays under 400 KB (ResNet-18 at
full width is 45 MB of float32 weights); its BatchNorm running statistics are
randomised so that BN is not an identity, and it is exported with
TrainingMode.PRESERVE (in eval mode) so that the exporter keeps the
BatchNormalization nodes instead of folding them into the convolutions.

The control-flow models (ctrl_if, ctrl_loop, ctrl_scan: If, Loop, Scan) are
built with onnx.helper, their references computed with NumPy.

Run: /usr/bin/python3 scripts/make_onnx_import_models.py [NAME...] (only the models
named, e.g. nms_head, when names are given; "control_flow" for the three
control-flow models).
"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from onnx import TensorProto, helper
from torchvision.models.resnet import BasicBlock

# Model names given on the command line: only those are written again.
ONLY = set(sys.argv[1:])
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "onnx")


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 6, 5, padding=2)
        self.c2 = nn.Conv2d(6, 16, 5)
        self.f1 = nn.Linear(16 * 5 * 5, 120)
        self.f2 = nn.Linear(120, 84)
        self.f3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.c1(x)), 2)
        x = F.avg_pool2d(torch.sigmoid(self.c2(x)), 2)
        x = torch.flatten(x, 1)
        x = torch.tanh(self.f1(x))
        x = torch.relu(self.f2(x))
        return F.softmax(self.f3(x), dim=1)


class NarrowResNet(nn.Module):
    """torchvision's ResNet layout with BasicBlocks, [1, 1, 1, 1], narrow."""

    def __init__(self, widths=(8, 16, 32, 64), classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        layers, inplanes = [], widths[0]
        for i, w in enumerate(widths):
            stride = 1 if i == 0 else 2
            down = None
            if stride != 1 or inplanes != w:
                down = nn.Sequential(nn.Conv2d(inplanes, w, 1, stride=stride, bias=False),
                                     nn.BatchNorm2d(w))
            layers.append(BasicBlock(inplanes, w, stride, down))
            inplanes = w
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(widths[-1], classes)

    def forward(self, x):
        x = self.maxpool(torch.relu(self.bn1(self.conv1(x))))
        x = self.layers(x)
        x = F.adaptive_avg_pool2d(x, 1)
        return self.fc(torch.flatten(x, 1))


class EncoderBlock(nn.Module):
    """A pre-norm transformer encoder block: LayerNorm, multi-head attention
    (MatMul, Softmax), a GELU (erf) feed-forward, residuals."""

    def __init__(self, d=32, heads=4, ff=64):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.ff1 = nn.Linear(d, ff)
        self.ff2 = nn.Linear(ff, d)

    def forward(self, x, bias=None):
        b, s, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q = q.reshape(b, s, h, d // h).transpose(1, 2)
        k = k.reshape(b, s, h, d // h).transpose(1, 2)
        v = v.reshape(b, s, h, d // h).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-1, -2)) / (d // h) ** 0.5
        att = torch.softmax(scores if bias is None else scores + bias, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        return x + self.ff2(F.gelu(self.ff1(self.ln2(x))))


class TinyBert(nn.Module):
    """A BERT-like encoder: token and position embeddings (Gather on int64
    ids), LayerNorm, masked multi-head self-attention (the additive mask
    (1 - mask) * -10000 broadcast over heads and queries), a GELU
    feed-forward, and the first token's pooled tanh output."""

    def __init__(self, vocab=50, d=32, heads=4, seq=8):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.ln0 = nn.LayerNorm(d)
        self.block = EncoderBlock(d, heads, 64)
        self.pool = nn.Linear(d, d)

    def forward(self, ids, mask):
        b, s = ids.shape
        x = self.ln0(self.tok(ids) + self.pos(torch.arange(s)))
        bias = (1.0 - mask[:, None, None, :]) * -10000.0
        x = self.block(x, bias)
        return torch.tanh(self.pool(x[:, 0])), x


class LstmNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y[-1])


class GruNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 12, bidirectional=True)

    def forward(self, x):
        y, h = self.gru(x)
        return y


class DetHead(nn.Module):
    """A detection-style head: features upsampled (nearest x2, Resize), a
    bilinear resize (align_corners=False), RoiAlign over given ROIs
    (torchvision.ops.roi_align, aligned), a score per ROI and TopK."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 3 * 3, 1)

    def forward(self, x, rois):
        f = torch.relu(self.conv(x))
        up = F.interpolate(f, scale_factor=2, mode="nearest")
        resized = F.interpolate(f, size=(12, 20), mode="bilinear", align_corners=False)
        pooled = torchvision.ops.roi_align(up, rois, output_size=(3, 3), spatial_scale=0.5,
                                           sampling_ratio=2, aligned=True)
        scores = self.fc(torch.flatten(pooled, 1)).flatten()
        top, _ = torch.topk(scores, 3)
        return top, resized


class NmsHead(nn.Module):
    """A detection head ending in torchvision's nms (NonMaxSuppression with
    the Unsqueeze / Gather / Squeeze the exporter writes around it): box
    deltas and a score per anchor from features, the decoded boxes, and the
    boxes and scores that survive at IoU 0.5 gathered."""

    def __init__(self):
        super().__init__()
        self.delta = nn.Linear(8, 4)
        self.score = nn.Linear(8, 1)

    def forward(self, feats, anchors):
        boxes = anchors + 0.5 * self.delta(feats)
        scores = torch.sigmoid(self.score(feats)).flatten()
        keep = torchvision.ops.nms(boxes, scores, 0.5)
        return boxes[keep], scores[keep]


class EinsumAttention(nn.Module):
    """Multi-head self-attention written with torch.einsum (ONNX Einsum,
    opset 12): per-head projections of (b, s, d) by (h, d, e) weights, the
    scores bhqe,bhke->bhqk, the weighted values, the output projection
    summing heads and head dims (bhse,hed->bsd), and a gain over the last
    axis with an ellipsis (...d,d->...d)."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        e = d // heads
        self.wq = nn.Parameter(torch.randn(heads, d, e) / d ** 0.5)
        self.wk = nn.Parameter(torch.randn(heads, d, e) / d ** 0.5)
        self.wv = nn.Parameter(torch.randn(heads, d, e) / d ** 0.5)
        self.wo = nn.Parameter(torch.randn(heads, e, d) / d ** 0.5)
        self.gain = nn.Parameter(torch.rand(d) + 0.5)
        self.scale = 1.0 / e ** 0.5

    def forward(self, x):
        q = torch.einsum("bsd,hde->bhse", x, self.wq)
        k = torch.einsum("bsd,hde->bhse", x, self.wk)
        v = torch.einsum("bsd,hde->bhse", x, self.wv)
        att = torch.softmax(torch.einsum("bhqe,bhke->bhqk", q, k) * self.scale, dim=-1)
        y = torch.einsum("bhqk,bhke->bhqe", att, v)
        return torch.einsum("...d,d->...d", x + torch.einsum("bhse,hed->bsd", y, self.wo),
                            self.gain)


def nms_anchors():
    """16 anchors of size about 4 in four clusters, so that NMS drops some."""
    g = torch.Generator().manual_seed(8)
    centres = torch.tensor([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0], [10.0, 10.0]]).repeat(4, 1)
    lo = centres + torch.randn(16, 2, generator=g) * 0.8
    return torch.cat([lo, lo + 4 + torch.rand(16, 2, generator=g)], 1)


def randomise_bn(model):
    g = torch.Generator().manual_seed(7)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(n, generator=g) * 0.1)


def export(name, model, inputs, opset, dynamic_axes=None, keep_bn=False):
    if ONLY and name not in ONLY:
        return
    model.eval()
    path = os.path.join(OUT, name + ".onnx")
    in_names = ["input%d" % i for i in range(len(inputs))]
    with torch.no_grad():
        outputs = model(*inputs)
        if not isinstance(outputs, (tuple, list)):
            outputs = (outputs,)
        torch.onnx.export(model, tuple(inputs), path, opset_version=opset, input_names=in_names,
                          output_names=["output%d" % i for i in range(len(outputs))],
                          dynamic_axes=dynamic_axes, do_constant_folding=True,
                          training=(torch.onnx.TrainingMode.PRESERVE if keep_bn else
                                    torch.onnx.TrainingMode.EVAL))
    onnx.checker.check_model(onnx.load(path))
    for i, t in enumerate(inputs):
        np.save(os.path.join(OUT, "%s.input%d.npy" % (name, i)), t.numpy())
    for i, t in enumerate(outputs):
        np.save(os.path.join(OUT, "%s.output%d.npy" % (name, i)), t.numpy())
    ops = sorted({n.op_type for n in onnx.load(path).graph.node})
    print("%-12s opset %2d %7d bytes  %s" % (name, opset, os.path.getsize(path), " ".join(ops)))


def save_model(name, graph, opset=13, domain=""):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(domain, opset)])
    model.ir_version = 7
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def external_data_models():
    """A MatMul + Add whose weight lives in an external file beside the
    model and whose bias uses the typed float_data field; and the same model
    with the weight's location escaping the model's folder."""
    rng = np.random.RandomState(3)
    w = rng.randn(6, 5).astype(np.float32)
    b = rng.randn(5).astype(np.float32)
    x = rng.randn(3, 6).astype(np.float32)
    with open(os.path.join(OUT, "ext_weights.bin"), "wb") as f:
        f.write(b"\0" * 16)  # the tensor starts at an offset
        f.write(w.tobytes())
    for name, location in (("ext_data", "ext_weights.bin"), ("bad_ext_escape", "../x.bin")):
        wt = TensorProto()
        wt.name, wt.data_type = "W", TensorProto.FLOAT
        wt.dims.extend(w.shape)
        wt.data_location = TensorProto.EXTERNAL
        for k, v in (("location", location), ("offset", "16"), ("length", str(w.nbytes))):
            e = wt.external_data.add()
            e.key, e.value = k, v
        bt = helper.make_tensor("B", TensorProto.FLOAT, b.shape, b.tolist())  # float_data
        graph = helper.make_graph(
            [helper.make_node("MatMul", ["x", "W"], ["xw"], name="mm"),
             helper.make_node("Add", ["xw", "B"], ["y"], name="add")], "ext",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 6])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 5])], [wt, bt])
        save_model(name, graph)
    np.save(os.path.join(OUT, "ext_data.input0.npy"), x)
    np.save(os.path.join(OUT, "ext_data.output0.npy"), x @ w + b)


def opset_models():
    """Hand-built graphs pinning how attributes moved to inputs across
    opsets, with NumPy references: opset 7 (Clip min/max, Unsqueeze axes,
    Slice starts/ends, ReduceMean axes, Upsample scales as attributes) and
    opset 18 (Clip, Unsqueeze/Squeeze, Slice, ReduceMean/ReduceMax axes as
    inputs, Split num_outputs)."""
    rng = np.random.RandomState(11)
    x = rng.randn(2, 3, 4, 4).astype(np.float32)
    vi = helper.make_tensor_value_info
    ints = lambda name, v: helper.make_tensor(name, TensorProto.INT64, [len(v)], v)

    # opset 7
    clipped = np.clip(x, -0.5, 0.8)
    up = clipped.repeat(2, axis=2).repeat(2, axis=3)
    sl = up[:, 1:3, 2:7, :]
    y7 = sl.mean(axis=(2, 3), keepdims=False)[:, :, None]
    g7 = helper.make_graph([
        helper.make_node("Clip", ["x"], ["c"], min=-0.5, max=0.8),
        helper.make_node("Upsample", ["c"], ["u"], scales=[1.0, 1.0, 2.0, 2.0], mode="nearest"),
        helper.make_node("Slice", ["u"], ["s"], starts=[1, 2], ends=[3, 7], axes=[1, 2]),
        helper.make_node("ReduceMean", ["s"], ["m"], axes=[2, 3], keepdims=0),
        helper.make_node("Unsqueeze", ["m"], ["y"], axes=[2])], "opset7",
        [vi("x", TensorProto.FLOAT, x.shape)], [vi("y", TensorProto.FLOAT, y7.shape)])
    save_model("opset7", g7, opset=7)

    # opset 18
    c18 = np.clip(x, -0.25, 0.5)
    a, b = c18[:, :, :2, :], c18[:, :, 2:, :]
    m = a.mean(axis=(1, 3), keepdims=True) + b.max(axis=3, keepdims=True).max(axis=1, keepdims=True)
    y18 = np.squeeze(m, axis=(1, 3))[:, None, :, None][:, :, ::-1, :][:, :, :1, :]
    g18 = helper.make_graph([
        helper.make_node("Clip", ["x", "lo", "hi"], ["c"]),
        helper.make_node("Split", ["c"], ["a", "b"], axis=2, num_outputs=2),
        helper.make_node("ReduceMean", ["a", "ax13"], ["ma"], keepdims=1),
        helper.make_node("ReduceMax", ["b", "ax31"], ["mb"], keepdims=1),
        helper.make_node("Add", ["ma", "mb"], ["m"]),
        helper.make_node("Squeeze", ["m", "ax13"], ["q"]),
        helper.make_node("Unsqueeze", ["q", "ax13"], ["u"]),
        helper.make_node("Slice", ["u", "st", "en", "ax2", "step"], ["y"])], "opset18",
        [vi("x", TensorProto.FLOAT, x.shape)], [vi("y", TensorProto.FLOAT, y18.shape)],
        [helper.make_tensor("lo", TensorProto.FLOAT, [], [-0.25]),
         helper.make_tensor("hi", TensorProto.FLOAT, [], [0.5]),
         ints("ax13", [1, 3]), ints("ax31", [3, 1]), ints("st", [-1]), ints("en", [-2]),
         ints("ax2", [2]), ints("step", [-1])])
    save_model("opset18", g18, opset=18)
    for name, y in (("opset7", y7), ("opset18", y18)):
        np.save(os.path.join(OUT, name + ".input0.npy"), x)
        np.save(os.path.join(OUT, name + ".output0.npy"), np.ascontiguousarray(y))


def control_flow_models():
    """If, Loop and Scan built with onnx.helper (PyTorch's exports rarely
    give clean ones), with NumPy references. Their nested graphs read outer
    values (graph inputs, initializers) by name, as ONNX allows.

    ctrl_if: two If nodes on opposite conditions (sum(x) > 0, and its
    negation), so that both branches run: then = x * W + 1, else =
    relu(-x) * 2 (a Constant inside the branch).
    ctrl_loop: a Loop with a constant trip count 4 and a constant true
    condition its body passes on: h = tanh(h @ W + b * i), its scan outputs
    h and sum(h, axis 1); and a Loop with trip count 10 whose condition
    depends on the data: v = v * 1.5 while sum(v) < 20.
    ctrl_scan: a Scan over axis 0 of x (5, 2, 3) with one state:
    s = s + x_t * w, scan outputs 2 * s and relu(x_t - s).
    """
    rng = np.random.RandomState(21)
    vi = helper.make_tensor_value_info
    f32 = TensorProto.FLOAT
    tensor = lambda name, a: helper.make_tensor(name, f32, a.shape, a.flatten().tolist())
    ints = lambda name, v: helper.make_tensor(name, TensorProto.INT64, [len(v)], v)
    node = helper.make_node

    # If
    x = rng.randn(3, 4).astype(np.float32)
    w = rng.randn(3, 4).astype(np.float32)
    def branches(tag):
        then_g = helper.make_graph(
            [node("Mul", ["x", "W"], [tag + "_xw"]), node("Add", [tag + "_xw", "one"], [tag + "_t"])],
            tag + "_then", [], [vi(tag + "_t", f32, [3, 4])])
        else_g = helper.make_graph(
            [node("Constant", [], [tag + "_two"], value=tensor(tag + "_twov", np.array(2, np.float32))),
             node("Neg", ["x"], [tag + "_n"]), node("Relu", [tag + "_n"], [tag + "_r"]),
             node("Mul", [tag + "_r", tag + "_two"], [tag + "_e"])],
            tag + "_else", [], [vi(tag + "_e", f32, [3, 4])])
        return then_g, else_g
    t1, e1 = branches("a")
    t2, e2 = branches("b")
    g_if = helper.make_graph([
        node("ReduceSum", ["x", "all"], ["sum"], keepdims=0),
        node("Greater", ["sum", "zero"], ["pos"]),
        node("Not", ["pos"], ["neg"]),
        node("If", ["pos"], ["y1"], then_branch=t1, else_branch=e1, name="if_pos"),
        node("If", ["neg"], ["y2"], then_branch=t2, else_branch=e2, name="if_neg")],
        "ctrl_if", [vi("x", f32, x.shape)], [vi("y1", f32, x.shape), vi("y2", f32, x.shape)],
        [tensor("W", w), tensor("one", np.array(1, np.float32)),
         tensor("zero", np.array(0, np.float32)), ints("all", [0, 1])])
    then_ref, else_ref = x * w + 1, np.maximum(-x, 0) * 2
    pos = x.sum() > 0
    refs = {"ctrl_if": ([x], [then_ref if pos else else_ref, else_ref if pos else then_ref])}
    save_model("ctrl_if", g_if)

    # Loop
    h0 = rng.randn(2, 3).astype(np.float32)
    v0 = np.abs(rng.randn(3)).astype(np.float32) + 0.5
    wl = (rng.randn(3, 3) * 0.5).astype(np.float32)
    bl = rng.randn(3).astype(np.float32)
    body_a = helper.make_graph([
        node("Identity", ["cond_in"], ["cond_out"]),
        node("Cast", ["iter"], ["iter_f"], to=f32),
        node("MatMul", ["h_in", "Wl"], ["hw"]),
        node("Mul", ["bl", "iter_f"], ["bi"]),
        node("Add", ["hw", "bi"], ["pre"]),
        node("Tanh", ["pre"], ["h_out"]),
        node("ReduceSum", ["h_out", "ax1"], ["h_sum"], keepdims=0),
        node("Identity", ["h_out"], ["h_scan"])],
        "loop_a_body",
        [vi("iter", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
         vi("h_in", f32, [2, 3])],
        [vi("cond_out", TensorProto.BOOL, []), vi("h_out", f32, [2, 3]),
         vi("h_scan", f32, [2, 3]), vi("h_sum", f32, [2])])
    body_b = helper.make_graph([
        node("Mul", ["v_in", "factor"], ["v_out"]),
        node("ReduceSum", ["v_out", "ax0"], ["vs"], keepdims=0),
        node("Less", ["vs", "limit"], ["go"])],
        "loop_b_body",
        [vi("it", TensorProto.INT64, []), vi("c_in", TensorProto.BOOL, []), vi("v_in", f32, [3])],
        [vi("go", TensorProto.BOOL, []), vi("v_out", f32, [3])])
    g_loop = helper.make_graph([
        node("Loop", ["four", "yes", "h0"], ["h_final", "hs", "sums"], body=body_a, name="loop_a"),
        node("ReduceSum", ["v0", "ax0"], ["v0s"], keepdims=0),
        node("Less", ["v0s", "limit"], ["go0"]),
        node("Loop", ["ten", "go0", "v0"], ["v_final"], body=body_b, name="loop_b")],
        "ctrl_loop", [vi("h0", f32, h0.shape), vi("v0", f32, v0.shape)],
        [vi("h_final", f32, [2, 3]), vi("hs", f32, [4, 2, 3]), vi("sums", f32, [4, 2]),
         vi("v_final", f32, [3])],
        [tensor("Wl", wl), tensor("bl", bl), tensor("factor", np.array(1.5, np.float32)),
         tensor("limit", np.array(20, np.float32)),
         helper.make_tensor("four", TensorProto.INT64, [], [4]),
         helper.make_tensor("ten", TensorProto.INT64, [], [10]),
         helper.make_tensor("yes", TensorProto.BOOL, [], [True]),
         ints("ax1", [1]), ints("ax0", [0])])
    h, hs = h0.astype(np.float64), []
    for i in range(4):
        h = np.tanh(h @ wl + bl * i)
        hs.append(h)
    v = v0.astype(np.float64)
    for _ in range(10):
        if not v.sum() < 20:
            break
        v = v * 1.5
    hs = np.stack(hs)
    refs["ctrl_loop"] = ([h0, v0], [h, hs, hs.sum(axis=2), v])
    save_model("ctrl_loop", g_loop)

    # Scan
    xs = rng.randn(5, 2, 3).astype(np.float32)
    s0 = rng.randn(2, 3).astype(np.float32)
    ws = rng.randn(2, 3).astype(np.float32)
    body_s = helper.make_graph([
        node("Mul", ["x_t", "ws"], ["xw"]),
        node("Add", ["s_in", "xw"], ["s_out"]),
        node("Add", ["s_out", "s_out"], ["twice"]),
        node("Sub", ["x_t", "s_in"], ["d"]),
        node("Relu", ["d"], ["gap"])],
        "scan_body", [vi("s_in", f32, [2, 3]), vi("x_t", f32, [2, 3])],
        [vi("s_out", f32, [2, 3]), vi("twice", f32, [2, 3]), vi("gap", f32, [2, 3])])
    g_scan = helper.make_graph(
        [node("Scan", ["s0", "xs"], ["s_final", "twice_all", "gap_all"], body=body_s,
              num_scan_inputs=1, name="scan")],
        "ctrl_scan", [vi("xs", f32, xs.shape), vi("s0", f32, s0.shape)],
        [vi("s_final", f32, [2, 3]), vi("twice_all", f32, [5, 2, 3]), vi("gap_all", f32, [5, 2, 3])],
        [tensor("ws", ws)])
    s, twice, gap = s0.astype(np.float64), [], []
    for t in range(5):
        gap.append(np.maximum(xs[t] - s, 0))
        s = s + xs[t] * ws
        twice.append(2 * s)
    refs["ctrl_scan"] = ([xs, s0], [s, np.stack(twice), np.stack(gap)])
    save_model("ctrl_scan", g_scan)

    for name, (inputs, outputs) in refs.items():
        onnx.checker.check_model(onnx.load(os.path.join(OUT, name + ".onnx")))
        for k, a in enumerate(inputs):
            np.save(os.path.join(OUT, "%s.input%d.npy" % (name, k)), a)
        for k, a in enumerate(outputs):
            np.save(os.path.join(OUT, "%s.output%d.npy" % (name, k)),
                    np.ascontiguousarray(a, dtype=np.float32))
        print("%-12s opset 13 %7d bytes" % (name, os.path.getsize(os.path.join(OUT, name + ".onnx"))))
    # The fuzzer's seeds: the same files.
    corpus = os.path.join(OUT, "..", "..", "fuzz", "onnx_corpus")
    os.makedirs(corpus, exist_ok=True)
    for name in refs:
        with open(os.path.join(OUT, name + ".onnx"), "rb") as f, \
                open(os.path.join(corpus, name + ".onnx"), "wb") as g:
            g.write(f.read())


def bad_models():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    relu = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g", [x], [y])
    save_model("bad_opset", relu, opset=99)
    custom = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="custom_relu", domain="com.example.custom")],
        "g", [x], [y])
    model = helper.make_model(custom, opset_imports=[helper.make_opsetid("", 13),
                                                     helper.make_opsetid("com.example.custom", 1)])
    model.ir_version = 7
    onnx.save(model, os.path.join(OUT, "bad_domain.onnx"))
    missing = helper.make_graph([helper.make_node("Add", ["x", "bias"], ["y"], name="add_bias")],
                                "g", [x], [y])
    save_model("bad_missing_init", missing)
    unsupported = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["a"], name="ok_relu"),
         helper.make_node("Det", ["a"], ["b"], name="the_det"),
         helper.make_node("Hardmax", ["b"], ["y"], name="the_hardmax")], "g", [x], [y])
    save_model("bad_unsupported", unsupported)


def fuzz_seeds():
    """Small models for the fuzzer's seed corpus (tests/fuzz/onnx_corpus/):
    a convolution block, a folded shape computation, a small LSTM."""
    out = os.path.join(OUT, "..", "..", "fuzz", "onnx_corpus")
    os.makedirs(out, exist_ok=True)
    rng = np.random.RandomState(9)

    def init(name, *shape):
        return helper.make_tensor(name, TensorProto.FLOAT, shape,
                                  rng.randn(*shape).astype(np.float32).tobytes(), raw=True)

    def write(name, nodes, inputs, outputs, inits, opset=13):
        g = helper.make_graph(nodes, name, inputs, outputs, inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 7
        onnx.checker.check_model(m)
        onnx.save(m, os.path.join(out, name + ".onnx"))

    x4 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 6, 6])
    write("conv_bn_pool", [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("BatchNormalization", ["c", "g", "be", "m", "v"], ["n"]),
        helper.make_node("Relu", ["n"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["p"], ["y"])],
        [x4], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 1, 1])],
        [init("w", 3, 2, 3, 3), init("b", 3), init("g", 3), init("be", 3), init("m", 3),
         helper.make_tensor("v", TensorProto.FLOAT, [3], [1.0, 2.0, 0.5])])
    write("shape_fold", [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "i0"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "ax"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus1"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["f"]),
        helper.make_node("Slice", ["f", "st", "en", "ax1"], ["sl"]),
        helper.make_node("Softmax", ["sl"], ["y"], axis=-1)],
        [x4], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 36])],
        [helper.make_tensor("i0", TensorProto.INT64, [], [0]),
         helper.make_tensor("ax", TensorProto.INT64, [1], [0]),
         helper.make_tensor("minus1", TensorProto.INT64, [1], [-1]),
         helper.make_tensor("st", TensorProto.INT64, [1], [0]),
         helper.make_tensor("en", TensorProto.INT64, [1], [36]),
         helper.make_tensor("ax1", TensorProto.INT64, [1], [1])])
    write("lstm", [helper.make_node("LSTM", ["x", "W", "R", "B"], ["y"], hidden_size=2)],
          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 1, 2])],
          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 1, 1, 2])],
          [init("W", 1, 8, 2), init("R", 1, 8, 2), init("B", 1, 16)])


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    export("mlp", Mlp(), [torch.randn(4, 20)], 9,
           dynamic_axes={"input0": {0: "batch"}, "output0": {0: "batch"}})
    torch.manual_seed(1)
    export("lenet", LeNet(), [torch.randn(2, 1, 28, 28)], 11)
    torch.manual_seed(2)
    net = NarrowResNet()
    randomise_bn(net)
    export("resnet", net, [torch.randn(2, 3, 32, 32)], 13, keep_bn=True)
    torch.manual_seed(3)
    export("encoder", EncoderBlock(), [torch.randn(2, 8, 32)], 17)
    torch.manual_seed(7)
    ids = torch.randint(0, 50, (2, 8))
    mask = torch.tensor([[1.0] * 8, [1.0] * 5 + [0.0] * 3])
    export("bert_tiny", TinyBert(), [ids, mask], 14)
    torch.manual_seed(7)
    ids = torch.randint(0, 50, (2, 8))
    dyn = {0: "batch", 1: "seq"}
    export("bert_dyn", TinyBert(), [ids, mask], 14,
           dynamic_axes={"input0": dyn, "input1": dyn, "output0": {0: "batch"}, "output1": dyn})
    torch.manual_seed(4)
    export("lstm", LstmNet(), [torch.randn(5, 3, 8)], 14)
    torch.manual_seed(5)
    export("gru", GruNet(), [torch.randn(5, 3, 8)], 11)
    torch.manual_seed(6)
    rois = torch.tensor([[0, 1.0, 2.0, 20.0, 18.0], [1, 4.5, 0.0, 12.0, 30.0],
                         [0, 10.0, 10.0, 31.0, 31.0], [1, 0.0, 0.0, 8.0, 8.0],
                         [0, 2.0, 15.0, 9.0, 29.5]])
    export("det_head", DetHead(), [torch.randn(2, 3, 16, 16), rois], 16)
    torch.manual_seed(9)
    export("nms_head", NmsHead(), [torch.randn(16, 8), nms_anchors()], 11)
    torch.manual_seed(10)
    export("einsum_att", EinsumAttention(), [torch.randn(2, 6, 16)], 12)
    if "control_flow" in ONLY or not ONLY:
        control_flow_models()
    if ONLY:
        return
    external_data_models()
    opset_models()
    bad_models()
    fuzz_seeds()


if __name__ == "__main__":
    main()
