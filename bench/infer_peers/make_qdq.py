#!/usr/bin/python3
"""Writes an ONNX QDQ int8 model for ONNX Runtime from the calibration ranges Weft computes, so
that bench/bench_infer_peers.sh --int8 times ORT int8 ("ORT-int8") beside Weft int8 on the same
ranges. Run with Debian's interpreter (python3-onnx, numpy):

    /usr/bin/python3 bench/infer_peers/make_qdq.py WEFT DIR MODEL BATCH CALIB OUT.onnx

WEFT is the `weft` CLI, DIR the folder of export_models.py (MODEL-symbol.json,
MODEL-0000.params, MODEL-b<BATCH>-input.npy), CALIB naive or entropy.

1. The ranges. The timed input is written as CSV and `weft quantize --calib-iter CSVIter
   --quantized-dtype auto --calib-mode CALIB` quantizes MODEL on it twice: with --fuse (MXNet's
   quantize_model_mkldnn, the graph weft_bench_infer --int8 times, calibrated on the same batch)
   and without (quantize_model). Each quantized symbol carries its ranges as min/max_calib_range:
   on `_contrib_quantize_v2` (the range of its float input), on a fused `_sg_mkldnn_conv` (the
   range of the last node of its chain: the relu, clip, BatchNorm or residual add, named in its
   subgraph), on `_contrib_requantize` (its quantized layer's output) and on
   `_contrib_quantized_batch_norm` (its own output). The fused symbol's ranges win; the unfused
   one adds what the fused graph never quantizes: a convolution's output before the residual add
   fused into it (ORT adds in int8, QLinearAdd, and needs that range).
2. The float graph: `weft export` of the same symbol and params (dynamic batch), whose tensors
   keep MXNet's entry names ("relu1_output"), so the ranges map by name. Each BatchNormalization
   that follows a Conv is folded into the Conv's weight and bias (as the fused int8 convolution
   does), the Conv then writing the BatchNormalization's output.
3. The QDQ form that ONNX Runtime's CPU EP fuses into integer kernels (its QDQ selectors, as
   quantize_static writes it): a QuantizeLinear -> DequantizeLinear pair on every activation that
   enters or leaves a Conv, Gemm, MatMul or Add (QLinearConv, QGemm, QLinearMatMul, QLinearAdd)
   or a MaxPool, GlobalAveragePool, AveragePool, Flatten or Reshape (dropped or
   QLinearGlobalAveragePool; their output keeps their input's scale, as MXNet's quantized pooling
   and flatten do). A Relu or Clip right after such an op is not quantized on its input: its
   output is, and ORT drops it as made redundant by the Q. Activations are on MXNet's
   quantized_dtype auto grids, all stored as uint8: a range >= 0 as MXNet's uint8 (zero point 0,
   scale max/255), one with negatives as MXNet's symmetric int8 (scale max(|min|, |max|)/127)
   shifted by a zero point of 128. ORT fuses a Conv, Gemm or Add only when its inputs and output
   have one type; written as int8, the signed tensors that two layers read (MobileNet-v2's block
   outputs) stay int8 after ORT's QDQS8ToU8Transformer and left 15 of its 52 convolutions and
   all 10 adds in float32 (ORT 1.30). Weights are int8 initializers with a
   DequantizeLinear: a Conv's per output channel (symmetric, scale max|w|/127, as Weft's int8
   convolution scales them), a Gemm's or MatMul's per tensor (as Weft's quantized fully
   connected layer); biases int32 with scale input scale x weight scale, zero point 0.
A tensor that needs a range and has none (no calibrated node and no pooling, flatten, relu or
clip to carry one) is an error that names it.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper

QUANT_OPS = ("Conv", "Gemm", "MatMul", "Add")  # inputs and output quantized
PASS_OPS = ("MaxPool", "GlobalAveragePool", "AveragePool", "Flatten", "Reshape")  # same scale
ACT_OPS = ("Relu", "Clip")  # dropped by ORT when the Q after them makes them redundant


def weft(cli, *args):
    subprocess.run([cli, *args], check=True, stdout=subprocess.DEVNULL)


def entry_name(node, index=0):
    """MXNet's name of output `index` of a node (a variable's is its own name)."""
    if node["op"] == "null":
        return node["name"]
    return node["name"] + ("_output" if index == 0 else "_output%d" % index)


def calib_table(symbol_json):
    """{MXNet float32 entry name: (min, max)} from a quantized symbol's calibration attributes."""
    nodes = json.load(open(symbol_json))["nodes"]
    table = {}
    for n in nodes:
        attrs = n.get("attrs", {})
        if "min_calib_range" not in attrs:
            continue
        rng = (float(attrs["min_calib_range"]), float(attrs["max_calib_range"]))
        if n["op"] == "_contrib_quantize_v2":
            src = n["inputs"][0]
            table[entry_name(nodes[src[0]], src[1])] = rng
        elif n["op"] == "_sg_mkldnn_conv":
            sub = n["subgraphs"][0]
            head = sub["heads"][0]
            table[entry_name(sub["nodes"][head[0]], head[1])] = rng
        elif n["op"] == "_contrib_requantize":
            layer = nodes[n["inputs"][0][0]]["name"]
            table[layer.removeprefix("quantized_") + "_output"] = rng
        elif n["op"] == "_contrib_quantized_batch_norm":
            table[n["name"].removeprefix("quantized_") + "_output"] = rng
    return table


def weft_ranges(cli, data, model, batch, calib, tmp):
    """The fused flow's ranges, completed by the unfused flow's, on the timed input."""
    x = np.load(os.path.join(data, "%s-b%d-input.npy" % (model, batch)))
    csv = os.path.join(tmp, "calib.csv")
    np.savetxt(csv, x.reshape(x.shape[0], -1), fmt="%.9g", delimiter=",")
    shape = "(%s)" % ",".join(str(d) for d in x.shape[1:])
    table, origin = {}, {}
    for fuse in (["--fuse"], []):
        out = os.path.join(tmp, "fused" if fuse else "unfused")
        weft(cli, "quantize", "--checkpoint", os.path.join(data, model), "--calib-mode", calib,
             "--calib-iter", "CSVIter", "--calib-param", "data_csv=" + csv,
             "--calib-param", "data_shape=" + shape, "--calib-param", "batch_size=%d" % batch,
             "--num-calib-batches", "1", "--quantized-dtype", "auto", *fuse, "--output", out)
        for name, rng in calib_table(out + "-symbol.json").items():
            if name not in table:
                table[name], origin[name] = rng, "fused" if fuse else "unfused"
    return table, origin


class Graph:
    """The exported float32 graph with its initializers as numpy arrays."""

    def __init__(self, model):
        self.model = model
        self.init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        self.nodes = list(model.graph.node)
        self.new_init = {}  # name -> array, added at write

    def consumers(self, tensor):
        return [n for n in self.nodes if tensor in n.input]

    def producer(self, tensor):
        return next((n for n in self.nodes if tensor in n.output), None)

    def outputs(self):
        return {o.name for o in self.model.graph.output}

    def fold_batch_norm(self):
        """Each Conv -> BatchNormalization (the Conv read by it alone) as one Conv."""
        for bn in [n for n in self.nodes if n.op_type == "BatchNormalization"]:
            conv = self.producer(bn.input[0])
            if conv is None or conv.op_type != "Conv" or len(self.consumers(bn.input[0])) != 1:
                continue
            eps = next((a.f for a in bn.attribute if a.name == "epsilon"), 1e-5)
            gamma, beta, mean, var = (self.init[i] for i in bn.input[1:5])
            scale = gamma / np.sqrt(var + eps)
            w = self.init[conv.input[1]]
            bias = self.init[conv.input[2]] if len(conv.input) > 2 else np.zeros_like(mean)
            self.init[conv.input[1]] = (w * scale.reshape(-1, *[1] * (w.ndim - 1))).astype(
                np.float32)
            bias_name = conv.name + "_folded_bias"
            self.init[bias_name] = ((bias - mean) * scale + beta).astype(np.float32)
            del conv.input[2:]
            conv.input.append(bias_name)
            conv.output[0] = bn.output[0]
            self.nodes.remove(bn)

    def add_init(self, name, array):
        self.new_init[name] = array
        return name


def act_params(rng):
    """uint8 scale and zero point of a range on MXNet's auto dtype grid: its uint8 one when the
    range has no negatives, else its symmetric int8 one shifted by 128."""
    lo, hi = rng
    if lo >= 0:
        return np.float32(hi / 255.0 or 1.0), np.uint8(0)
    return np.float32(max(-lo, abs(hi)) / 127.0), np.uint8(128)


def quantized_tensors(g):
    """The activations to quantize, in graph order, and for each pass-through output the
    tensor whose scale it takes."""
    outputs = g.outputs()

    def after_act(tensor):  # a Relu/Clip that alone reads `tensor`: quantize its output
        readers = g.consumers(tensor)
        if len(readers) == 1 and readers[0].op_type in ACT_OPS and tensor not in outputs:
            return readers[0].output[0]
        return tensor

    want, same_as = [], {}

    def add(tensor):
        if tensor not in want and tensor not in g.init and tensor not in outputs:
            want.append(tensor)

    for n in g.nodes:
        if n.op_type in QUANT_OPS:
            acts = [i for i in n.input if i not in g.init]
            if n.op_type != "Add":
                acts = acts[:1]
            for t in acts:
                add(t)
            add(after_act(n.output[0]))
        elif n.op_type in PASS_OPS and n.input[0] in want:
            same_as[n.output[0]] = n.input[0]
            add(n.output[0])
    return want, same_as


def tensor_ranges(g, want, same_as, table):
    """The range of each wanted tensor: its own, its pass-through source's, or its Relu/Clip
    input's clamped."""
    ranges = {}
    for t in want:
        if t in same_as:
            if same_as[t] in ranges:
                ranges[t] = ranges[same_as[t]]
            continue
        if t in table:
            ranges[t] = table[t]
            continue
        prod = g.producer(t)
        if prod is not None and prod.op_type in ACT_OPS and prod.input[0] in table:
            lo, hi = table[prod.input[0]]
            cmin, cmax = clip_bounds(g, prod)
            ranges[t] = (min(max(lo, cmin), cmax), max(min(hi, cmax), cmin))
    missing = [t for t in want if t not in ranges]
    if missing:
        raise SystemExit("make_qdq: no calibrated range for %s (Weft's quantized symbols "
                         "calibrate %d tensors: %s)" % (", ".join(missing), len(table),
                                                        ", ".join(sorted(table))))
    return ranges


def clip_bounds(g, node):
    if node.op_type == "Relu":
        return 0.0, np.inf
    lo = float(g.init[node.input[1]]) if len(node.input) > 1 and node.input[1] else -np.inf
    hi = float(g.init[node.input[2]]) if len(node.input) > 2 and node.input[2] else np.inf
    return lo, hi


def quantize_weights(g, node, x_scale):
    """Replaces a Conv's / Gemm's / MatMul's constant weight (and bias) by int8 (int32)
    initializers read through a DequantizeLinear; returns those DequantizeLinear nodes."""
    w = g.init[node.input[1]]
    per_channel = node.op_type == "Conv"
    if per_channel:
        amax = np.abs(w.reshape(w.shape[0], -1)).max(axis=1)
    else:
        amax = np.array(np.abs(w).max())
    w_scale = (np.where(amax > 0, amax, 1.0) / 127.0).astype(np.float32)
    shaped = w_scale.reshape(-1, *[1] * (w.ndim - 1)) if per_channel else w_scale
    wq = np.clip(np.round(w / shaped), -127, 127).astype(np.int8)
    dq = []
    base = node.input[1]
    axis = {"axis": 0} if per_channel else {}
    dq.append(helper.make_node(
        "DequantizeLinear",
        [g.add_init(base + "_quantized", wq), g.add_init(base + "_scale", w_scale),
         g.add_init(base + "_zero_point", np.zeros(w_scale.shape, np.int8))],
        [base + "_dequantized"], base + "_DequantizeLinear", **axis))
    node.input[1] = base + "_dequantized"
    if len(node.input) > 2 and node.input[2] in g.init and node.op_type != "MatMul":
        b = g.init[node.input[2]]
        b_scale = (x_scale * w_scale).astype(np.float32)
        bq = np.round(b / b_scale).astype(np.int32)
        base = node.input[2]
        dq.append(helper.make_node(
            "DequantizeLinear",
            [g.add_init(base + "_quantized", bq), g.add_init(base + "_scale", b_scale),
             g.add_init(base + "_zero_point", np.zeros(b_scale.shape, np.int32))],
            [base + "_dequantized"], base + "_DequantizeLinear", **axis))
        node.input[2] = base + "_dequantized"
    return dq


def insert_qdq(g, ranges):
    """The graph's nodes with a QuantizeLinear -> DequantizeLinear pair after each ranged
    tensor (its readers read the DequantizeLinear) and weights quantized."""
    params = {t: act_params(r) for t, r in ranges.items()}

    def pair(t):
        scale, zp = params[t]
        s, z = g.add_init(t + "_scale", scale), g.add_init(t + "_zero_point", zp)
        return [helper.make_node("QuantizeLinear", [t, s, z], [t + "_quantized"],
                                 t + "_QuantizeLinear"),
                helper.make_node("DequantizeLinear", [t + "_quantized", s, z],
                                 [t + "_dequantized"], t + "_DequantizeLinear")]

    out = []
    for t in [i.name for i in g.model.graph.input if i.name in params]:
        out += pair(t)
    for n in g.nodes:
        x = n.input[0]
        for i, name in enumerate(n.input):
            if name in params:
                n.input[i] = name + "_dequantized"
        if n.op_type in ("Conv", "Gemm", "MatMul") and x in params and n.input[1] in g.init:
            out += quantize_weights(g, n, params[x][0])
        out.append(n)
        for t in n.output:
            if t in params:
                out += pair(t)
    return out


def write(g, nodes, path):
    graph = g.model.graph
    used = {i for n in nodes for i in n.input}
    inits = {**{k: v for k, v in g.init.items() if k in used}, **g.new_init}
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items())
    del graph.value_info[:]
    onnx.checker.check_model(g.model)
    onnx.save(g.model, path)


def main():
    if len(sys.argv) != 7:
        raise SystemExit(__doc__)
    cli, data, model, batch, calib, out = sys.argv[1:]
    batch = int(batch)
    with tempfile.TemporaryDirectory() as tmp:
        table, origin = weft_ranges(cli, data, model, batch, calib, tmp)
        x = np.load(os.path.join(data, "%s-b%d-input.npy" % (model, batch)))
        exported = os.path.join(tmp, "float.onnx")
        weft(cli, "export", os.path.join(data, model + "-symbol.json"),
             os.path.join(data, model + "-0000.params"), "--dynamic-batch",
             "--shape", "data=" + ",".join(str(d) for d in x.shape), "-o", exported)
        g = Graph(onnx.load(exported))
    g.fold_batch_norm()
    want, same_as = quantized_tensors(g)
    ranges = tensor_ranges(g, want, same_as, table)
    nodes = insert_qdq(g, ranges)
    write(g, nodes, out)
    convs = sum(n.op_type in ("Conv", "Gemm", "MatMul") for n in g.nodes)
    own = [origin[t] for t in ranges if t in table and t not in same_as]
    print("make_qdq: %s b%d (%s): %d tensors quantized (ranges: %d of the fused symbol, %d of "
          "the unfused one, %d carried through pooling/flatten/relu/clip), %d weight layers: %s"
          % (model, batch, calib, len(ranges), own.count("fused"), own.count("unfused"),
             len(ranges) - len(own), convs, out))


if __name__ == "__main__":
    main()
