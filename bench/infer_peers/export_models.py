#!/usr/bin/python3
"""Builds the inference benchmark's models in PyTorch and writes them for each engine.

Run with Debian's interpreter (python3-torch 1.13, python3-onnx):
    /usr/bin/python3 bench/infer_peers/export_models.py [out-dir]   (default build/bench_infer)

Models (seeded; the image models end in softmax): mlp (784-512-512-10, ReLU), lenet
(conv5x5x20-relu-maxpool2-conv5x5x50-relu-maxpool2-flatten-fc500-relu-fc10 on
1x28x28), resnet18 (basic blocks, BatchNorm in eval mode with non-trivial
running stats, gamma and beta, 1x1 conv+BN projection shortcuts, global average
pool, fc 1000 on 3x224x224), resnet50 (v1 bottleneck blocks, the stride on the
first 1x1 convolution, as GluonCV's resnet50_v1) and mobilenetv2 (width 1.0,
inverted residual blocks with depthwise 3x3 convolutions, ReLU6 written as
MXNet's `clip(0, 6)`, as GluonCV's mobilenetv2_1.0), and the sequence models of
seq_models.py: bert (a 4-layer BERT-base encoder, sequence 128) and lstm_lm (a 2-layer LSTM
language model, hidden 650, vocabulary 10,000, 35 steps). For each model NAME it writes:
  NAME.onnx (opset 13, dynamic batch), NAME-symbol.json (MXNet 1.x symbol),
  NAME-0000.params (arg:/aux: arrays), NAME.pt (PyTorch state dict), and per
  benchmarked batch B: NAME-b<B>-input.npy and NAME-b<B>-output.npy (PyTorch's).
"""
import json
import os
import sys

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from mxnet_params import write_params  # noqa: E402
from mx_graph import MxGraph  # noqa: E402
import seq_models  # noqa: E402

INPUT_SHAPES = {"mlp": (784,), "lenet": (1, 28, 28), "resnet18": (3, 224, 224),
                "resnet50": (3, 224, 224), "mobilenetv2": (3, 224, 224)}
BATCHES = {"mlp": (1, 128), "lenet": (64,), "resnet18": (1, 8, 32), "resnet50": (1, 8),
           "mobilenetv2": (1, 16), "bert": (1, 8), "lstm_lm": (1, 20)}
SEEDS = {"mlp": 1, "lenet": 2, "resnet18": 3, "resnet50": 4, "mobilenetv2": 5, "bert": 6,
         "lstm_lm": 7}


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.proj = None
        if stride != 1 or cin != cout:
            self.proj = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        return torch.relu(y + (x if self.proj is None else self.proj(x)))


class Bottleneck(nn.Module):
    """ResNet v1 bottleneck: 1x1 (stride) - 3x3 - 1x1 (4x), projection when the shape changes."""

    def __init__(self, cin, mid, stride):
        super().__init__()
        cout = 4 * mid
        self.convs = nn.ModuleList([nn.Conv2d(cin, mid, 1, stride, bias=False),
                                    nn.Conv2d(mid, mid, 3, 1, 1, bias=False),
                                    nn.Conv2d(mid, cout, 1, bias=False)])
        self.bns = nn.ModuleList([nn.BatchNorm2d(mid), nn.BatchNorm2d(mid), nn.BatchNorm2d(cout)])
        self.proj = None
        if stride != 1 or cin != cout:
            self.proj = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = x
        for i, (conv, bn) in enumerate(zip(self.convs, self.bns)):
            y = bn(conv(y))
            if i < 2:
                y = torch.relu(y)
        return torch.relu(y + (x if self.proj is None else self.proj(x)))


class InvertedResidual(nn.Module):
    """MobileNet-v2 block: 1x1 expand (when t > 1) - depthwise 3x3 (stride) - 1x1 linear,
    each with BatchNorm, ReLU6 after the first two, the input added when the shape is kept."""

    def __init__(self, cin, cout, stride, t):
        super().__init__()
        hidden = cin * t
        layers = []
        if t != 1:
            layers += [nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6()]
        layers += [nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
                   nn.BatchNorm2d(hidden), nn.ReLU6(),
                   nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.body(x) if self.residual else self.body(x)


def resnet50():
    blocks, cin = [], 64
    for mid, n, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(n):
            blocks.append(Bottleneck(cin, mid, stride if i == 0 else 1))
            cin = 4 * mid
    return nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                         nn.MaxPool2d(3, 2, 1), *blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(2048, 1000), nn.Softmax(1))


def mobilenetv2():
    blocks, cin = [], 32
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                       (6, 160, 3, 2), (6, 320, 1, 1)):
        for i in range(n):
            blocks.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
            cin = c
    return nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6(),
                         *blocks, nn.Conv2d(320, 1280, 1, bias=False), nn.BatchNorm2d(1280),
                         nn.ReLU6(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1280, 1000),
                         nn.Softmax(1))


def resnet18():
    blocks, cin = [], 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        blocks += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
        cin = cout
    return nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                         nn.MaxPool2d(3, 2, 1), *blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(512, 1000), nn.Softmax(1))


def build(name):
    """The PyTorch model NAME (untrained weights; call randomise_bn after)."""
    if name == "mlp":
        return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                             nn.Linear(512, 10), nn.Softmax(1))
    if name == "lenet":
        return nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(20, 50, 5),
                             nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(800, 500),
                             nn.ReLU(), nn.Linear(500, 10), nn.Softmax(1))
    return {"resnet18": resnet18, "resnet50": resnet50, "mobilenetv2": mobilenetv2,
            "bert": seq_models.bert, "lstm_lm": seq_models.lstm_lm}[name]()


def make_input(name, batch):
    x = seq_models.input_for(name, batch)
    return torch.randn(batch, *INPUT_SHAPES[name]) if x is None else x


def randomise_bn(model, x):
    """Running stats near the batch statistics of x (so activations stay in range)
    but perturbed, and random gamma/beta: a wrong BN folding shows in the output."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    for m in bns:
        m.momentum = 1.0
    model.train()
    with torch.no_grad():
        model(x)
        for m in bns:
            c = m.num_features
            m.running_mean += 0.2 * torch.randn(c) * m.running_var.sqrt()
            m.running_var *= torch.empty(c).uniform_(0.5, 2.0)
            m.weight.uniform_(0.5, 1.5)
            m.bias.normal_(0.0, 0.2)
    model.eval()


def to_mx(model):
    """Walks the Sequential model, emitting MXNet nodes with MXNet-style names."""
    g, x, count = MxGraph(), None, {}
    x = g.var("data")

    def name(kind):
        count[kind] = count.get(kind, 0) + 1
        return "%s%d" % (kind, count[kind] - 1)

    def conv_bn(x, conv, bn, relu):
        x = g.bn(g.conv(x, name("conv"), conv), name("bn"), bn)
        return g.relu(x, name("relu")) if relu else x

    def sequence(x, layers):  # conv, bn, [relu6] triples
        for i in range(0, len(layers)):
            m = layers[i]
            if isinstance(m, nn.Conv2d):
                x = g.bn(g.conv(x, name("conv"), m), name("bn"), layers[i + 1])
            elif isinstance(m, nn.ReLU6):
                x = g.relu6(x, name("relu"))
        return x

    for i, m in enumerate(model):
        if isinstance(m, nn.Linear):
            x = g.fc(x, name("fc"), m)
        elif isinstance(m, nn.Conv2d):
            if isinstance(model[i + 1], nn.BatchNorm2d):
                x = conv_bn(x, m, model[i + 1], False)
            else:
                x = g.conv(x, name("conv"), m)
        elif isinstance(m, nn.ReLU):
            x = g.relu(x, name("relu"))
        elif isinstance(m, nn.ReLU6):
            x = g.relu6(x, name("relu"))
        elif isinstance(m, (nn.MaxPool2d, nn.AdaptiveAvgPool2d)):
            x = g.pool(x, name("pool"), m)
        elif isinstance(m, nn.Flatten):
            x = g.op("Flatten", name("flatten"), (x,))
        elif isinstance(m, nn.Softmax):
            x = g.op("softmax", "softmax", (x,))
        elif isinstance(m, BasicBlock):
            y = conv_bn(conv_bn(x, m.conv1, m.bn1, True), m.conv2, m.bn2, False)
            short = x if m.proj is None else conv_bn(x, m.proj[0], m.proj[1], False)
            x = g.relu(g.op("elemwise_add", name("add"), (y, short)), name("relu"))
        elif isinstance(m, Bottleneck):
            y = x
            for k, (conv, bn) in enumerate(zip(m.convs, m.bns)):
                y = conv_bn(y, conv, bn, k < 2)
            short = x if m.proj is None else conv_bn(x, m.proj[0], m.proj[1], False)
            x = g.relu(g.op("elemwise_add", name("add"), (y, short)), name("relu"))
        elif isinstance(m, InvertedResidual):
            y = sequence(x, list(m.body))
            x = g.op("elemwise_add", name("add"), (x, y)) if m.residual else y
        elif not isinstance(m, nn.BatchNorm2d):
            raise TypeError("no MXNet mapping for %s" % type(m).__name__)
    return g


def export(name, out):
    torch.manual_seed(SEEDS[name])
    model = build(name)
    g = seq_models.to_mx(name, model)
    if g is None:
        randomise_bn(model, make_input(name, 16))
        g = to_mx(model)
    model.eval()
    with open(os.path.join(out, name + "-symbol.json"), "w") as f:
        json.dump(g.json(), f, indent=1)
    write_params(os.path.join(out, name + "-0000.params"), g.params)
    torch.save(model.state_dict(), os.path.join(out, name + ".pt"))
    if os.environ.get("WEFT_EXPORT_ONNX", "1") != "0":  # the GPU bench needs no ONNX file
        axis = seq_models.onnx_batch_axis(name)
        torch.onnx.export(model, make_input(name, 2), os.path.join(out, name + ".onnx"),
                          opset_version=13, input_names=["data"], output_names=["output"],
                          dynamic_axes={"data": {axis: "batch"}, "output": {axis: "batch"}})
    for b in BATCHES[name]:
        x = make_input(name, b)
        with torch.no_grad():
            y = model(x)
        np.save(os.path.join(out, "%s-b%d-input.npy" % (name, b)), x.numpy())
        np.save(os.path.join(out, "%s-b%d-output.npy" % (name, b)), y.numpy())
    print("exported %s: %d params, %d nodes" % (name, len(g.params), len(g.nodes)))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bench_infer")
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:] or tuple(SEEDS):
        export(name, out)


if __name__ == "__main__":
    main()
