#!/usr/bin/env python3
"""Writes a ResNet-18 training symbol (MXNet 1.x JSON) for `weft train`.

    python3 bench/resnet18_train_symbol.py OUT.json [--classes 10] [--stem cifar|imagenet]

ResNet-18 v1 (basic blocks [2, 2, 2, 2], 64/128/256/512 channels, BatchNorm after
every convolution, 1x1 convolution + BatchNorm projection shortcuts, global average
pool, fully connected to --classes, SoftmaxOutput with `softmax_label`). The stem:
cifar (3x3 convolution, stride 1, for small images such as 32x32) or imagenet
(7x7 stride 2 convolution and 3x3 stride 2 max pool). Variables carry no values:
`weft train` initialises them. Used by bench/bench_train_data_wait.sh.
"""
import argparse
import json


class Graph:
    def __init__(self):
        self.nodes = []

    def node(self, op, name, inputs=(), attrs=None):
        n = {"op": op, "name": name, "inputs": [[i, 0, 0] for i in inputs]}
        if attrs:
            n["attrs"] = {k: str(v) for k, v in attrs.items()}
        self.nodes.append(n)
        return len(self.nodes) - 1

    def var(self, name):
        return self.node("null", name)

    def conv(self, x, name, cout, k, s, p):
        w = self.var(name + "_weight")
        return self.node("Convolution", name, (x, w),
                         {"kernel": (k, k), "stride": (s, s), "pad": (p, p),
                          "num_filter": cout, "no_bias": True})

    def bn(self, x, name):
        ins = [x] + [self.var(name + s) for s in ("_gamma", "_beta", "_moving_mean",
                                                     "_moving_var")]
        return self.node("BatchNorm", name, ins,
                         {"eps": 1e-5, "momentum": 0.9, "fix_gamma": False})

    def relu(self, x, name):
        return self.node("Activation", name, (x,), {"act_type": "relu"})

    def json(self):
        row, rows = 0, [0]
        for n in self.nodes:
            row += 3 if n["op"] == "BatchNorm" else 1
            rows.append(row)
        args = [i for i, n in enumerate(self.nodes) if n["op"] == "null"]
        return {"nodes": self.nodes, "arg_nodes": args, "node_row_ptr": rows,
                "heads": [[len(self.nodes) - 1, 0, 0]], "attrs": {"mxnet_version": ["int", 10900]}}


def block(g, x, name, cin, cout, stride):
    y = g.relu(g.bn(g.conv(x, name + "_conv1", cout, 3, stride, 1), name + "_bn1"),
               name + "_relu1")
    y = g.bn(g.conv(y, name + "_conv2", cout, 3, 1, 1), name + "_bn2")
    if stride != 1 or cin != cout:
        x = g.bn(g.conv(x, name + "_proj", cout, 1, stride, 0), name + "_proj_bn")
    return g.relu(g.node("elemwise_add", name + "_add", (y, x)), name + "_relu2")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--stem", choices=("cifar", "imagenet"), default="cifar")
    a = ap.parse_args()
    g = Graph()
    x = g.var("data")
    if a.stem == "cifar":
        x = g.relu(g.bn(g.conv(x, "stem_conv", 64, 3, 1, 1), "stem_bn"), "stem_relu")
    else:
        x = g.relu(g.bn(g.conv(x, "stem_conv", 64, 7, 2, 3), "stem_bn"), "stem_relu")
        x = g.node("Pooling", "stem_pool", (x,),
                   {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pool_type": "max"})
    cin = 64
    for stage, cout in enumerate((64, 128, 256, 512)):
        for i in range(2):
            stride = 2 if stage > 0 and i == 0 else 1
            x = block(g, x, "stage%d_unit%d" % (stage + 1, i + 1), cin, cout, stride)
            cin = cout
    x = g.node("Pooling", "pool", (x,), {"global_pool": True, "kernel": (1, 1), "pool_type": "avg"})
    x = g.node("Flatten", "flatten", (x,))
    x = g.node("FullyConnected", "fc", (x, g.var("fc_weight"), g.var("fc_bias")),
               {"num_hidden": a.classes})
    g.node("SoftmaxOutput", "softmax", (x, g.var("softmax_label")))
    with open(a.out, "w") as f:
        json.dump(g.json(), f)


if __name__ == "__main__":
    main()
