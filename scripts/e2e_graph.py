"""A tiny MXNet symbol builder that evaluates every node with PyTorch as it goes.

Used by scripts/gen_e2e_refs.py. Each method adds one node to an MXNet 1.9
symbol JSON (the op names and attribute spellings the real exports use) and
computes that node's value with torch/numpy from MXNet 1.9's documented
semantics, so a finished graph carries both the JSON that `weft run` loads and
its reference outputs. Inputs and parameters are float32 (as in the exports and
as `weft run` computes); the reference computes on their exact float64 values,
so it holds the float32-rounding-free result that weft's output is compared with.
The detection ops (box_nms, MultiBoxPrior, MultiBoxDetection) follow MXNet
1.9's CPU kernels (src/operator/contrib/); their discrete decisions (sort
order, IoU against the threshold, score against a threshold) are recorded with
their margins so the generator can reject inputs where float32 rounding could
flip one.
"""
import json

import numpy as np
import torch
import torch.nn.functional as F


def fmt(v):
    if isinstance(v, bool):
        return "True" if v else "False"
    if v is None:
        return "None"
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(fmt(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return str(v)


class Entry:
    """One output of a node and its reference value."""

    def __init__(self, node, index, value):
        self.node, self.index, self.value = node, index, value

    @property
    def shape(self):
        return tuple(self.value.shape)


def mx_reshape(shape, target):
    """MXNet Reshape with the special values 0 (copy) and -1 (infer)."""
    out = [shape[i] if t == 0 else t for i, t in enumerate(target)]
    if -1 in out:
        k = out.index(-1)
        known = int(np.prod([d for d in out if d != -1]))
        out[k] = int(np.prod(shape)) // known
    return out


class Graph:
    def __init__(self, seed):
        self.nodes, self.arg_nodes, self.row = [], [], [0]
        self.params, self.inputs = [], {}
        self.rng = np.random.RandomState(seed)
        # what -> smallest distance of a decision from its threshold, in units
        # of the distance float32 rounding could plausibly cover (< 1: unsafe).
        self.margins = {}

    # -- plumbing -------------------------------------------------------------
    def _add(self, op, name, inputs, attrs, values, num_outputs=None):
        idx = len(self.nodes)
        node = {"op": op, "name": name, "inputs": [[e.node, e.index, 0] for e in inputs]}
        if attrs:
            node["attrs"] = {k: fmt(v) for k, v in sorted(attrs.items())}
        self.nodes.append(node)
        self.row.append(self.row[-1] + (num_outputs or len(values)))
        outs = [Entry(idx, i, v.contiguous() if torch.is_tensor(v) else v) for i, v in enumerate(values)]
        return outs if len(outs) > 1 else outs[0]

    def _var(self, name, value):
        self.arg_nodes.append(len(self.nodes))
        return self._add("null", name, [], None, [torch.as_tensor(value)])

    def input(self, name, value):
        value = np.ascontiguousarray(value, dtype=np.float32)
        self.inputs[name] = value
        return self._var(name, torch.from_numpy(value.astype(np.float64)))

    def param(self, name, value, aux=False):
        value = np.ascontiguousarray(value, dtype=np.float32)
        self.params.append((("aux:" if aux else "arg:") + name, value))
        return self._var(name, torch.from_numpy(value.astype(np.float64)))

    # A float32 probability or score differs between two correct
    # implementations by a few ulps (~1e-7); a box coordinate by ~1e-6
    # relative, an IoU by ~1e-5.
    SCORE_EPS, IOU_EPS = 2e-6, 1e-4

    def note_margin(self, what, m, eps):
        self.margins[what] = min(self.margins.get(what, np.inf), float(m) / eps)

    def symbol_json(self, heads):
        return json.dumps({
            "nodes": self.nodes,
            "arg_nodes": self.arg_nodes,
            "node_row_ptr": self.row,
            "heads": [[h.node, h.index, 0] for h in heads],
            "attrs": {"mxnet_version": ["int", 10901]},
        }, indent=2) + "\n"

    def output_name(self, e):
        """The name `weft run` (and MXNet's list_outputs) gives a head."""
        node = self.nodes[e.node]
        visible = self.row[e.node + 1] - self.row[e.node]
        if node["op"] in ("BatchNorm", "_contrib_box_nms"):
            visible = 1
        return node["name"] + ("_output" if visible == 1 else "_output%d" % e.index)

    # -- layers with parameters ------------------------------------------------
    def conv(self, x, name, num_filter, kernel, stride=1, pad=0, num_group=1, no_bias=False, w_scale=1.0):
        cin = x.shape[1]
        fan_in = cin // num_group * kernel * kernel
        w = self.rng.randn(num_filter, cin // num_group, kernel, kernel) * w_scale / np.sqrt(fan_in)
        ins = [x, self.param(name + "_weight", w)]
        if not no_bias:
            ins.append(self.param(name + "_bias", self.rng.uniform(-0.2, 0.2, num_filter)))
        y = F.conv2d(x.value, ins[1].value, None if no_bias else ins[2].value, stride, pad, 1, num_group)
        attrs = {"kernel": (kernel, kernel), "stride": (stride, stride), "pad": (pad, pad),
                 "num_filter": num_filter, "num_group": num_group, "no_bias": no_bias}
        return self._add("Convolution", name, ins, attrs, [y])

    def batchnorm(self, x, name, eps=1e-3, fix_gamma=False, gamma_scale=1.0):
        c = x.shape[1]
        gamma = self.rng.uniform(0.5, 1.5, c) * gamma_scale
        beta = self.rng.uniform(-0.5, 0.5, c)
        mean = self.rng.uniform(-0.3, 0.3, c)
        var = self.rng.uniform(0.5, 2.0, c)
        ins = [x, self.param(name + "_gamma", gamma), self.param(name + "_beta", beta),
               self.param(name + "_moving_mean", mean, aux=True),
               self.param(name + "_moving_var", var, aux=True)]
        g = torch.ones(c, dtype=torch.float64) if fix_gamma else ins[1].value  # fix_gamma: gamma is 1
        y = F.batch_norm(x.value, ins[3].value, ins[4].value, g, ins[2].value, False, 0.0, eps)
        attrs = {"eps": eps, "fix_gamma": fix_gamma, "momentum": 0.9}
        return self._add("BatchNorm", name, ins, attrs, [y], num_outputs=3)

    def fully_connected(self, x, name, num_hidden):
        flat = x.value.reshape(x.shape[0], -1)
        w = self.param(name + "_weight", self.rng.randn(num_hidden, flat.shape[1]) / np.sqrt(flat.shape[1]))
        b = self.param(name + "_bias", self.rng.uniform(-0.2, 0.2, num_hidden))
        y = F.linear(flat, w.value, b.value)
        return self._add("FullyConnected", name, [x, w, b], {"num_hidden": num_hidden}, [y])

    # -- parameterless operators ---------------------------------------------
    def relu(self, x, name):
        return self._add("Activation", name, [x], {"act_type": "relu"}, [F.relu(x.value)])

    def scalar(self, op, x, name, scalar, is_int=None):
        fn = {"_mul_scalar": lambda v: v * scalar, "_plus_scalar": lambda v: v + scalar,
              "_minus_scalar": lambda v: v - scalar, "_div_scalar": lambda v: v / scalar,
              "_maximum_scalar": lambda v: torch.clamp(v, min=scalar),
              "_minimum_scalar": lambda v: torch.clamp(v, max=scalar),
              "_greater_scalar": lambda v: (v > scalar).to(v.dtype)}[op]
        if op == "_greater_scalar":
            self.note_margin("_greater_scalar: value vs scalar", (x.value - scalar).abs().min(), self.SCORE_EPS)
        attrs = {"scalar": scalar}
        if is_int is not None:
            attrs["is_int"] = is_int
        return self._add(op, name, [x], attrs, [fn(x.value)])

    def binary(self, op, a, b, name):
        fn = {"elemwise_add": torch.add, "elemwise_sub": torch.sub, "broadcast_add": torch.add,
              "broadcast_mul": torch.mul, "_Maximum": torch.maximum}[op]
        if op.startswith("elemwise") or op == "_Maximum":
            assert a.shape == b.shape, (op, name, a.shape, b.shape)
        return self._add(op, name, [a, b], None, [fn(a.value, b.value)])

    def unary(self, op, x, name):
        fn = {"exp": torch.exp, "zeros_like": torch.zeros_like, "ones_like": torch.ones_like}[op]
        return self._add(op, name, [x], None, [fn(x.value)])

    def pool_max(self, x, name, k, s):
        y = F.max_pool2d(x.value, k, s)
        return self._add("Pooling", name, [x], {"kernel": (k, k), "stride": (s, s), "pool_type": "max"}, [y])

    def flatten(self, x, name):
        return self._add("Flatten", name, [x], None, [x.value.reshape(x.shape[0], -1)])

    def reshape(self, x, name, shape):
        y = x.value.reshape(mx_reshape(list(x.shape), list(shape)))
        return self._add("Reshape", name, [x], {"shape": tuple(shape)}, [y])

    def transpose(self, x, name, axes):
        return self._add("transpose", name, [x], {"axes": tuple(axes)}, [x.value.permute(*axes)])

    def concat(self, xs, name, dim):
        y = torch.cat([x.value for x in xs], dim)
        return self._add("Concat", name, xs, {"dim": dim, "num_args": len(xs)}, [y])

    def slice_axis(self, x, name, axis, begin, end):
        stop = x.shape[axis] if end is None else end
        y = x.value.narrow(axis % x.value.dim(), begin, stop - begin)
        return self._add("slice_axis", name, [x], {"axis": axis, "begin": begin, "end": end}, [y])

    def slice_channel(self, x, name, num_outputs, axis=1):
        ys = torch.chunk(x.value, num_outputs, axis)
        return self._add("SliceChannel", name, [x], {"num_outputs": num_outputs, "axis": axis}, list(ys))

    def slice_like(self, x, like, name, axes):
        y = x.value
        for a in axes:
            y = y.narrow(a, 0, like.shape[a])
        return self._add("slice_like", name, [x, like], {"axes": tuple(axes)}, [y])

    def softmax(self, x, name, axis):
        return self._add("softmax", name, [x], {"axis": axis}, [torch.softmax(x.value, axis)])

    def softmax_activation_channel(self, x, name):
        return self._add("SoftmaxActivation", name, [x], {"mode": "channel"}, [torch.softmax(x.value, 1)])

    def upsampling_nearest(self, x, name, scale):
        y = x.value.repeat_interleave(scale, 2).repeat_interleave(scale, 3)
        attrs = {"scale": scale, "sample_type": "nearest", "num_args": 1, "workspace": 512}
        return self._add("UpSampling", name, [x], attrs, [y])

    def crop_like(self, x, like, name):
        """Legacy Crop with two inputs: the top-left corner (offset (0, 0)) of
        x at like's height and width."""
        y = x.value[:, :, :like.shape[2], :like.shape[3]]
        return self._add("Crop", name, [x, like], {"num_args": 2}, [y])

    def arange(self, name, start, stop):
        y = torch.arange(start, stop, dtype=torch.float64)
        return self._add("_arange", name, [], {"start": start, "stop": stop}, [y])

    def repeat(self, x, name, repeats, axis):
        y = x.value.repeat_interleave(repeats, axis)
        return self._add("repeat", name, [x], {"repeats": repeats, "axis": axis}, [y])

    def tile(self, x, name, reps):
        return self._add("tile", name, [x], {"reps": tuple(reps)}, [x.value.repeat(*reps)])

    def where(self, cond, a, b, name):
        return self._add("where", name, [cond, a, b], None, [torch.where(cond.value != 0, a.value, b.value)])

    # -- detection ---------------------------------------------------------------
    @staticmethod
    def _iou(a, b):
        """IoU of two corner boxes as MXNet's kernels compute it."""
        w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
        h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
        i = w * h
        u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i
        return 0.0 if u <= 0 else i / u

    def _sort_desc(self, scores, what, topk):
        """Stable descending order; the first topk places (and who is cut at
        topk) must not depend on rounding."""
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        s = np.sort(np.asarray(scores, np.float64))[::-1]
        n = len(s) if topk <= 0 else min(len(s), topk + 1)
        if n > 1:
            self.note_margin(what + ": gap between sorted scores", -np.max(np.diff(s[:n])), self.SCORE_EPS)
        return order

    def box_nms(self, x, name, overlap_thresh, topk, valid_thresh, id_index, score_index, coord_start,
                force_suppress):
        """MXNet 1.9 _contrib_box_nms (corner format, background_id -1): keep rows
        with score > valid_thresh and id != -1, sort by score, greedy NMS
        (IoU > overlap_thresh suppresses a later box of the same id) over the
        first topk, survivors compacted to the front, the rest -1."""
        data = x.value.numpy()
        out = np.full_like(data, -1)
        for b in range(data.shape[0]):
            rows = data[b]
            for r in rows:
                if r[id_index] != -1:
                    self.note_margin("box_nms: score vs valid_thresh", abs(r[score_index] - valid_thresh),
                                     self.SCORE_EPS)
            valid = [i for i, r in enumerate(rows) if r[score_index] > valid_thresh and r[id_index] != -1]
            order = [valid[k] for k in self._sort_desc([rows[i][score_index] for i in valid], "box_nms", topk)]
            order = order[:topk] if topk > 0 else order
            alive = [True] * len(order)
            for i in range(len(order)):
                if not alive[i]:
                    continue
                for j in range(i + 1, len(order)):
                    ri, rj = rows[order[i]], rows[order[j]]
                    if not alive[j] or (not force_suppress and ri[id_index] != rj[id_index]):
                        continue
                    iou = self._iou(ri[coord_start:coord_start + 4], rj[coord_start:coord_start + 4])
                    self.note_margin("box_nms: IoU vs overlap_thresh", abs(float(iou) - overlap_thresh), self.IOU_EPS)
                    if iou > overlap_thresh:
                        alive[j] = False
            kept = [order[i] for i in range(len(order)) if alive[i]]
            out[b, :len(kept)] = rows[kept]
        attrs = {"overlap_thresh": overlap_thresh, "topk": topk, "valid_thresh": valid_thresh,
                 "id_index": id_index, "score_index": score_index, "coord_start": coord_start,
                 "force_suppress": force_suppress}
        return self._add("_contrib_box_nms", name, [x], attrs, [torch.from_numpy(out)], num_outputs=2)

    def multibox_prior(self, x, name, sizes, ratios, steps=(-1.0, -1.0), clip=False, offsets=(0.5, 0.5)):
        """MXNet 1.9 _contrib_MultiBoxPrior, in float32 in the kernel's order."""
        f32 = np.float32
        h, w = x.shape[2], x.shape[3]
        sy = f32(steps[0]) if steps[0] > 0 else f32(1.0) / f32(h)
        sx = f32(steps[1]) if steps[1] > 0 else f32(1.0) / f32(w)
        out = []
        for r in range(h):
            cy = (f32(r) + f32(offsets[0])) * sy
            for c in range(w):
                cx = (f32(c) + f32(offsets[1])) * sx
                shapes = [(f32(s), np.sqrt(f32(ratios[0]))) for s in sizes]
                shapes += [(f32(sizes[0]), np.sqrt(f32(q))) for q in ratios[1:]]
                for size, sr in shapes:
                    hw = size * f32(h) / f32(w) * sr / f32(2)
                    hh = size / sr / f32(2)
                    out.append([cx - hw, cy - hh, cx + hw, cy + hh])
        a = np.array(out, np.float32).reshape(1, -1, 4)
        if clip:
            a = np.clip(a, 0, 1)
        a = a.astype(np.float64)
        attrs = {"sizes": tuple(sizes), "ratios": tuple(ratios), "clip": clip, "steps": tuple(steps),
                 "offsets": tuple(offsets)}
        return self._add("_contrib_MultiBoxPrior", name, [x], attrs, [torch.from_numpy(a)])

    def multibox_detection(self, cls_prob, loc_pred, anchor, name, threshold=0.01, nms_threshold=0.5,
                           nms_topk=-1, force_suppress=False, variances=(0.1, 0.1, 0.2, 0.2), clip=True):
        """MXNet 1.9 _contrib_MultiBoxDetection's CPU kernel: best foreground
        class per anchor (id - 1, -1 below threshold), boxes decoded from
        corner anchors, valid rows compacted in anchor order, a stable sort by
        score of the first nms_topk (rows past it keep their unsorted place
        with id -1), greedy NMS (IoU >= nms_threshold), the rest -1."""
        prob, loc, anc = cls_prob.value.numpy(), loc_pred.value.numpy(), anchor.value.numpy()[0]
        nb, nc, na = prob.shape
        vx, vy, vw, vh = variances
        out = np.full((nb, na, 6), -1.0)
        for b in range(nb):
            rows = []
            for i in range(na):
                p = prob[b, 1:, i]
                best = int(np.argmax(p))
                if len(p) > 1:
                    self.note_margin("MultiBoxDetection: best vs second class", np.sort(p)[-1] - np.sort(p)[-2],
                                     self.SCORE_EPS)
                score, cid = p[best], best + 1
                self.note_margin("MultiBoxDetection: score vs threshold", abs(score - threshold), self.SCORE_EPS)
                if score < threshold:
                    cid = 0
                al, at, ar, ab = anc[i]
                aw, ah = ar - al, ab - at
                ax, ay = (al + ar) / 2, (at + ab) / 2
                px, py, pw, ph = loc[b, 4 * i:4 * i + 4]
                ox, oy = px * vx * aw + ax, py * vy * ah + ay
                ow, oh = np.exp(pw * vw) * aw / 2, np.exp(ph * vh) * ah / 2
                box = np.array([ox - ow, oy - oh, ox + ow, oy + oh])
                if clip:
                    box = np.clip(box, 0, 1)
                if cid > 0:
                    rows.append(np.concatenate([[cid - 1, score], box]))
            if not rows:
                continue
            rows = np.array(rows)
            out[b, :len(rows)] = rows
            order = self._sort_desc(list(rows[:, 1]), "MultiBoxDetection", nms_topk)
            nkeep = len(order) if nms_topk <= 0 else min(nms_topk, len(order))
            out[b, nkeep:len(rows), 0] = -1
            out[b, :nkeep] = rows[order[:nkeep]]
            o = out[b]
            for i in range(nkeep):
                if o[i, 0] < 0:
                    continue
                for j in range(i + 1, nkeep):
                    if o[j, 0] < 0 or not (force_suppress or o[i, 0] == o[j, 0]):
                        continue
                    iou = self._iou(o[i, 2:], o[j, 2:])
                    self.note_margin("MultiBoxDetection: IoU vs nms_threshold", abs(float(iou) - nms_threshold),
                                     self.IOU_EPS)
                    if iou >= nms_threshold:
                        o[j, 0] = -1
        attrs = {"nms_threshold": nms_threshold, "nms_topk": nms_topk, "threshold": threshold,
                 "force_suppress": force_suppress, "variances": tuple(variances), "clip": clip}
        return self._add("_contrib_MultiBoxDetection", name, [cls_prob, loc_pred, anchor], attrs,
                         [torch.from_numpy(out)])
