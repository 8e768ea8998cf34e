#!/usr/bin/python3
"""Reference outputs of MTCNN's P-Net (deepinsight det1) computed with PyTorch.

Reads ../shared/testdata/mxnet-models/deepinsight__det1-0001.params with its
own small parser of MXNet's pre-V1 NDArray-list layout (independent of Weft's
loader), rebuilds the network from the layer list of deepinsight__det1-symbol.json
in torch, and writes inputs and outputs as .npy under tests/data/det1/.
Run once with Debian's /usr/bin/python3 (torch, numpy); tests read the files.
"""
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "..", "shared", "testdata", "mxnet-models")
OUT = os.path.join(HERE, "..", "tests", "data", "det1")


def load_params(path):
    b = open(path, "rb").read()
    pos = 0

    def take(fmt):
        nonlocal pos
        v = struct.unpack_from("<" + fmt, b, pos)
        pos += struct.calcsize(fmt)
        return v

    magic, _ = take("QQ")
    assert magic == 0x112, hex(magic)
    (count,) = take("Q")
    arrays = []
    for _ in range(count):
        (ndim,) = take("I")  # pre-V1: no record magic, u32 dims
        dims = take("%dI" % ndim)
        dev_type, dev_id = take("ii")
        (type_flag,) = take("i")
        assert type_flag == 0, "float32 only"
        n = int(np.prod(dims))
        arrays.append(np.frombuffer(b, "<f4", n, pos).reshape(dims).copy())
        pos += 4 * n
    (nnames,) = take("Q")
    names = []
    for _ in range(nnames):
        (ln,) = take("Q")
        names.append(b[pos:pos + ln].decode())
        pos += ln
    assert pos == len(b), "trailing bytes"
    return {n.split(":", 1)[1]: torch.from_numpy(a) for n, a in zip(names, arrays)}


def pnet(p, x):
    def conv(x, name):
        return F.conv2d(x, p[name + "_weight"], p[name + "_bias"])

    x = F.prelu(conv(x, "conv1"), p["prelu1_gamma"])
    x = F.max_pool2d(x, 2, 2, ceil_mode=True)  # pooling_convention=full
    x = F.prelu(conv(x, "conv2"), p["prelu2_gamma"])
    x = F.prelu(conv(x, "conv3"), p["prelu3_gamma"])
    bbox = conv(x, "conv4_2")
    prob = F.softmax(conv(x, "conv4_1"), dim=1)  # SoftmaxActivation mode=channel
    return bbox, prob  # the symbol's heads in order: conv4_2, prob1


def main():
    torch.manual_seed(0)
    p = load_params(os.path.join(MODELS, "deepinsight__det1-0001.params"))
    os.makedirs(OUT, exist_ok=True)
    for h, w in ((12, 12), (24, 36)):
        x = (torch.rand(1, 3, h, w, dtype=torch.float32) - 0.5) * 2
        with torch.no_grad():
            bbox, prob = pnet(p, x)
        tag = "%dx%d" % (h, w)
        np.save(os.path.join(OUT, "input_%s.npy" % tag), x.numpy())
        np.save(os.path.join(OUT, "conv4_2_%s.npy" % tag), bbox.numpy())
        np.save(os.path.join(OUT, "prob1_%s.npy" % tag), prob.numpy())
        print(tag, tuple(bbox.shape), tuple(prob.shape))


if __name__ == "__main__":
    sys.exit(main())
