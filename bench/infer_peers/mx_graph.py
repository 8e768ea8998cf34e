"""MxGraph: an MXNet 1.x symbol JSON graph and its .params arrays, written node by node.

Used by export_models.py and seq_models.py to give Weft the same model PyTorch runs.
"""
import numpy as np
from torch import nn


class MxGraph:
    """An MXNet 1.x symbol JSON graph and its arg:/aux: arrays."""

    def __init__(self):
        self.nodes, self.params = [], []

    def _node(self, op, name, inputs=(), attrs=None):
        node = {"op": op, "name": name, "inputs": [[i, 0, 0] for i in inputs]}
        if op != "null" or attrs:
            node["attrs"] = {k: str(v) for k, v in (attrs or {}).items()}
        self.nodes.append(node)
        return len(self.nodes) - 1

    def var(self, name, value=None, aux=False, shape_hint=False):
        """A variable; with shape_hint its node carries `__shape__` as a Gluon Parameter's does
        (for shapes that inference cannot find from the data's, as the RNN's weights)."""
        attrs = {}
        if value is not None:
            arr = value.detach().numpy().astype(np.float32)
            self.params.append(("%s:%s" % ("aux" if aux else "arg", name), arr))
            if shape_hint:
                attrs["__shape__"] = tuple(arr.shape)
        return self._node("null", name, attrs=attrs)

    def fc(self, x, name, m):
        w, b = self.var(name + "_weight", m.weight), self.var(name + "_bias", m.bias)
        return self._node("FullyConnected", name, (x, w, b), {"num_hidden": m.out_features})

    def conv(self, x, name, m):
        attrs = {"kernel": m.kernel_size, "stride": m.stride, "pad": m.padding,
                 "num_filter": m.out_channels, "no_bias": m.bias is None}
        if m.groups != 1:
            attrs["num_group"] = m.groups
        ins = [x, self.var(name + "_weight", m.weight)]
        if m.bias is not None:
            ins.append(self.var(name + "_bias", m.bias))
        return self._node("Convolution", name, ins, attrs)

    def bn(self, x, name, m):
        ins = [x, self.var(name + "_gamma", m.weight), self.var(name + "_beta", m.bias),
               self.var(name + "_moving_mean", m.running_mean, aux=True),
               self.var(name + "_moving_var", m.running_var, aux=True)]
        attrs = {"axis": 1, "eps": m.eps, "fix_gamma": False, "momentum": 0.9,
                 "use_global_stats": False}
        return self._node("BatchNorm", name, ins, attrs)

    def relu(self, x, name):
        return self._node("Activation", name, (x,), {"act_type": "relu"})

    def relu6(self, x, name):
        """ReLU6 as MXNet models write it (GluonCV's mobilenet): clip(0, 6)."""
        return self._node("clip", name, (x,), {"a_min": 0, "a_max": 6})

    def pool(self, x, name, m):
        if isinstance(m, nn.AdaptiveAvgPool2d):
            attrs = {"global_pool": True, "kernel": (1, 1), "pool_type": "avg"}
        else:
            k, s, p = m.kernel_size, m.stride, m.padding
            attrs = {"kernel": (k, k), "stride": (s, s), "pad": (p, p), "pool_type": "max"}
        return self._node("Pooling", name, (x,), attrs)

    def op(self, op, name, inputs, attrs=None):
        return self._node(op, name, inputs, attrs or {})

    def json(self):
        row, rows = 0, [0]
        for n in self.nodes:
            row += 3 if n["op"] in ("BatchNorm", "LayerNorm") else 1
            rows.append(row)
        args = [i for i, n in enumerate(self.nodes) if n["op"] == "null"]
        return {"nodes": self.nodes, "arg_nodes": args, "node_row_ptr": rows,
                "heads": [[len(self.nodes) - 1, 0, 0]], "attrs": {"mxnet_version": ["int", 10900]}}
