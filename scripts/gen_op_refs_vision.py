#!/usr/bin/python3
"""NumPy references for the detection operators (box_nms, box_iou, MultiBox*)
in the format of tests/util/op_refs.h.

Run with Debian's interpreter (python3-torch 1.13, numpy):
    /usr/bin/python3 scripts/gen_op_refs_vision.py [substring ...]
Each reference is a plain loop written from MXNet 1.9's documented behaviour
(greedy NMS over score-sorted boxes, SSD anchor generation, decoding and
matching); torch only carries gradients: box_nms's output rows are gathered
from the input with torch so autograd gives the scatter MXNet's backward
does, and the non-differentiable ops add 0 * sum(inputs), whose gradient is
the zeros MXNet returns.
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_op_refs import rand, rand_int, run_cases, write_case  # noqa: E402

F32_EXACT = {"float64": [1e-6, 1e-6]}  # ops MXNet computes partly in float


def f32(v):
    return float(np.float32(v))


def zero_grad(result, *tensors):
    """`result` (numpy) as a tensor whose gradient w.r.t. `tensors` is zero."""
    t = torch.tensor(np.asarray(result, dtype=np.float64))
    for x in tensors:
        if x.requires_grad:
            t = t + 0 * x.sum()
    return t


def to_corner(c, fmt):
    """(xmin, ymin, xmax, ymax) of 4 coordinates in `fmt`."""
    if fmt == "corner":
        return c
    x, y, w, h = c
    return (x - w / 2, y - h / 2, x + w / 2, y + h / 2)


def iou(a, b, fmt):
    a, b = to_corner(a, fmt), to_corner(b, fmt)
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    def area(c):
        w, h = c[2] - c[0], c[3] - c[1]
        return 0.0 if (w < 0 or h < 0) else w * h
    inter = iw * ih
    return 0.0 if inter <= 0 else inter / (area(a) + area(b) - inter)


# --------------------------------------------------------------------------
# box_nms


def nms_select(x, p):
    """Per batch, the kept input rows (flat indices) in output order."""
    B, N, W = x.shape
    k = N if p["topk"] < 0 else min(N, p["topk"])
    si, cs, ii = p["score_index"], p["coord_start"], p["id_index"]
    def valid(row):
        return row[si] > p["valid_thresh"] and (ii < 0 or row[ii] != p["background_id"])
    if k < 1:
        return None
    if not any(valid(x[b, i]) for b in range(B) for i in range(N)):
        return []
    kept_all = []
    for b in range(B):
        cand = sorted([i for i in range(N) if valid(x[b, i])], key=lambda i: -x[b, i, si])[:k]
        kept = []
        for i in cand:
            ok = True
            for j in kept:
                same = p["force_suppress"] or ii < 0 or int(x[b, i, ii]) == int(x[b, j, ii])
                if same and iou(x[b, j, cs:cs + 4], x[b, i, cs:cs + 4], p["in_format"]) > p["overlap_thresh"]:
                    ok = False
                    break
            if ok:
                kept.append(i)
        kept_all.append([b * N + i for i in kept])
    return kept_all


def box_nms_fn(p):
    def fn(data):
        shape = data.shape
        N, W = shape[-2], shape[-1]
        B = int(np.prod(shape[:-2]))
        flat = data.reshape(B * N, W)
        sel = nms_select(data.detach().numpy().reshape(B, N, W), p)
        if sel is None:  # topk == 0: identity
            return data * 1, torch.arange(B * N, dtype=torch.float64).reshape(*shape[:-1], 1)
        rows, rec = [], -np.ones((B, N))
        for b in range(B):
            kept = sel[b] if sel else []
            part = [flat[i:i + 1] for i in kept] + [-torch.ones(N - len(kept), W)]
            rows.append(torch.cat(part, 0))
            rec[b, :len(kept)] = kept
        out = torch.stack(rows).reshape(shape)
        if p["in_format"] != p["out_format"]:
            o = out.detach().numpy().reshape(B * N, W).copy()
            cs = p["coord_start"]
            for r in o:
                c = r[cs:cs + 4].copy()
                if c[0] < 0:
                    continue
                if p["out_format"] == "center":
                    r[cs:cs + 4] = ((c[0] + c[2]) / 2, (c[1] + c[3]) / 2, c[2] - c[0], c[3] - c[1])
                else:
                    r[cs:cs + 4] = (c[0] - c[2] / 2, c[1] - c[3] / 2, c[0] + c[2] / 2, c[1] + c[3] / 2)
            out = torch.tensor(o.reshape(shape))
        return out, torch.tensor(rec.reshape(*shape[:-1], 1))
    return fn


NMS_DEFAULTS = dict(overlap_thresh=0.5, valid_thresh=0.0, topk=-1, coord_start=2, score_index=1,
                    id_index=-1, background_id=-1, force_suppress=False, in_format="corner",
                    out_format="corner")


def boxes(n, lo=0.0, hi=0.6):
    """n corner boxes with overlapping clusters."""
    xy = rand(n, 2, lo=lo, hi=hi)
    wh = rand(n, 2, lo=0.2, hi=0.5)
    return np.concatenate([xy, xy + wh], 1)


def nms_case(case, data, **params):
    p = dict(NMS_DEFAULTS, **params)
    diff = [0] if p["in_format"] == p["out_format"] else []
    write_case("_contrib_box_nms", case, [data], params, box_nms_fn(p), diff=diff,
               out_grads=[rand(*data.shape), None])


def box_nms_cases():
    # [id, score, x1, y1, x2, y2] rows, 2 batches of 7
    d = np.concatenate([rand_int(2, 7, 1, lo=0, hi=3), rand(2, 7, 1, lo=0, hi=1),
                        boxes(14).reshape(2, 7, 4)], 2)
    nms_case("basic", d)
    nms_case("valid_topk", d, valid_thresh=0.3, topk=4, overlap_thresh=0.3)
    nms_case("class_aware", d, id_index=0, overlap_thresh=0.2)
    nms_case("force_background", d, id_index=0, background_id=1, force_suppress=True,
             overlap_thresh=0.2)
    nms_case("topk0", d, topk=0)
    nms_case("none_valid", d, valid_thresh=2.0)
    # [score, cx, cy, w, h], batch axes (2, 2), center in, corner out
    c = np.concatenate([rand(2, 2, 5, 1, lo=0, hi=1), rand(2, 2, 5, 2, lo=0.3, hi=0.6),
                        rand(2, 2, 5, 2, lo=0.2, hi=0.5)], 3)
    nms_case("center_to_corner", c, score_index=0, coord_start=1, in_format="center",
             overlap_thresh=0.2)
    nms_case("center_same", c, score_index=0, coord_start=1, in_format="center",
             out_format="center", overlap_thresh=0.2)
    nms_case("corner_to_center", d.reshape(14, 6), out_format="center", overlap_thresh=0.3)


def box_iou_cases():
    a, b = boxes(3), boxes(4).reshape(2, 2, 4)
    def fn(fmt):
        def f(l, r):
            ln, rn = l.detach().numpy().reshape(-1, 4), r.detach().numpy().reshape(-1, 4)
            o = np.array([[iou(x, y, fmt) for y in rn] for x in ln])
            return zero_grad(o.reshape(l.shape[:-1] + r.shape[:-1]), l, r)
        return f
    write_case("_contrib_box_iou", "corner", [a, b], {}, fn("corner"))
    write_case("_contrib_box_iou", "center", [a, b], {"format": "center"}, fn("center"))


def box_coder_cases():
    B, N = 2, 5
    data = rand(B, N, 4, lo=-1.5, hi=1.5)
    corner = boxes(N)[None]
    def decode(fmt, stds, clip):
        def fn(x, a):
            xn, an = x.detach().numpy(), a.detach().numpy()[0]
            if fmt == "corner":
                aw, ah = an[:, 2] - an[:, 0], an[:, 3] - an[:, 1]
                ax, ay = an[:, 0] + aw / 2, an[:, 1] + ah / 2
            else:
                ax, ay, aw, ah = an.T
            s = [f32(v) for v in stds]
            ox, oy = xn[..., 0] * s[0] * aw + ax, xn[..., 1] * s[1] * ah + ay
            dw, dh = xn[..., 2] * s[2], xn[..., 3] * s[3]
            if clip > 0:
                dw, dh = np.minimum(dw, f32(clip)), np.minimum(dh, f32(clip))
            ow, oh = np.exp(dw) * aw / 2, np.exp(dh) * ah / 2
            return zero_grad(np.stack([ox - ow, oy - oh, ox + ow, oy + oh], -1), x, a)
        return fn
    write_case("_contrib_box_decode", "center", [data, corner], {}, decode("center", (1, 1, 1, 1), -1))
    write_case("_contrib_box_decode", "corner_stds_clip", [data, corner],
               {"format": "corner", "std0": 0.1, "std1": 0.1, "std2": 0.2, "std3": 0.2, "clip": 0.25},
               decode("corner", (0.1, 0.1, 0.2, 0.2), 0.25))
    M = 3
    samples = np.array([[1, 0, 1, -1, 1], [0, 1, 1, 1, 0]], dtype=np.float64)
    matches = rand_int(B, N, lo=0, hi=M)
    anchors = boxes(B * N).reshape(B, N, 4)
    refs = boxes(B * M).reshape(B, M, 4)
    means, stds = np.array([0.0, 0.1, -0.1, 0.0]), np.array([0.1, 0.1, 0.2, 0.2])
    def encode(s, mt, a, r, mu, sd):
        sn, mn, an, rn = s.numpy(), mt.numpy(), a.detach().numpy(), r.detach().numpy()
        mun, sdn = mu.detach().numpy(), sd.detach().numpy()
        t, m = np.zeros((B, N, 4)), np.zeros((B, N, 4))
        for b in range(B):
            for i in range(N):
                if sn[b, i] <= 0.5:
                    continue
                g, q = rn[b, int(mn[b, i])], an[b, i]
                gw, gh, qw, qh = g[2] - g[0], g[3] - g[1], q[2] - q[0], q[3] - q[1]
                t[b, i] = ((((g[0] + gw / 2) - (q[0] + qw / 2)) / qw - mun[0]) / sdn[0],
                           (((g[1] + gh / 2) - (q[1] + qh / 2)) / qh - mun[1]) / sdn[1],
                           (np.log(gw / qw) - mun[2]) / sdn[2], (np.log(gh / qh) - mun[3]) / sdn[3])
                m[b, i] = 1
        return zero_grad(t, a, r, mu, sd), zero_grad(m, a, r)
    write_case("_contrib_box_encode", "basic", [samples, matches, anchors, refs, means, stds], {}, encode,
               diff=[2, 3, 4, 5])


def matching_cases():
    def ref(th, ascend, topk):
        def fn(x):
            xn = x.detach().numpy()
            R, C = xn.shape[-2:]
            flat = xn.reshape(-1, R, C)
            rows, cols = -np.ones((len(flat), R)), -np.ones((len(flat), C))
            for b, sc in enumerate(flat):
                keys = sc.reshape(-1)
                order = sorted(range(R * C), key=lambda k: keys[k] if ascend else -keys[k])
                count = 0
                for k in order:
                    r, c = divmod(k, C)
                    if rows[b, r] != -1 or cols[b, c] != -1:
                        continue
                    if not (keys[k] < f32(th) if ascend else keys[k] > f32(th)):
                        break
                    rows[b, r], cols[b, c] = c, r
                    count += 1
                    if topk > 0 and count > topk:
                        break
            return (zero_grad(rows.reshape(xn.shape[:-1]), x),
                    zero_grad(cols.reshape(xn.shape[:-2] + (C,)), x))
        return fn
    x = rand(2, 4, 3, lo=0, hi=1)
    write_case("_contrib_bipartite_matching", "descend", [x], {"threshold": 0.2}, ref(0.2, False, -1))
    write_case("_contrib_bipartite_matching", "ascend_topk", [x], {"threshold": 0.7, "is_ascend": True, "topk": 1},
               ref(0.7, True, 1))
    write_case("_contrib_bipartite_matching", "batch_axes", [rand(2, 2, 3, 5, lo=0, hi=1)], {"threshold": 0.5},
               ref(0.5, False, -1))


# --------------------------------------------------------------------------
# MultiBox


def prior_ref(h, w, sizes, ratios, clip, steps, offsets):
    f = np.float32
    sy, sx = f(steps[0]), f(steps[1])
    if sy <= 0 or sx <= 0:
        sy, sx = f(1) / f(h), f(1) / f(w)
    out = []
    def add(cx, cy, s, r):
        hw = f(s) * f(h) / f(w) * r / f(2)
        hh = f(s) / r / f(2)
        out.append([cx - hw, cy - hh, cx + hw, cy + hh])
    for i in range(h):
        cy = (f(i) + f(offsets[0])) * sy
        for j in range(w):
            cx = (f(j) + f(offsets[1])) * sx
            for s in sizes:
                add(cx, cy, s, np.sqrt(f(ratios[0])))
            for r in ratios[1:]:
                add(cx, cy, sizes[0], np.sqrt(f(r)))
    o = np.array(out, dtype=np.float32)
    if clip:
        o = np.clip(o, 0, 1)
    return o.astype(np.float64)[None]


def prior_case(case, shape, **params):
    kw = dict(sizes=(1.0,), ratios=(1.0,), clip=False, steps=(-1.0, -1.0), offsets=(0.5, 0.5))
    kw.update(params)
    write_case("_contrib_MultiBoxPrior", case, [rand(*shape)], params,
               lambda x: zero_grad(prior_ref(shape[2], shape[3], **kw), x), tol=F32_EXACT)


def prior_cases():
    prior_case("default", (1, 2, 2, 3))
    prior_case("sizes_ratios_clip", (2, 1, 3, 2), sizes=(0.5, 0.25), ratios=(1, 2, 0.5), clip=True)
    prior_case("steps_offsets", (1, 1, 2, 2), sizes=(0.3,), ratios=(1.0, 3.0), steps=(0.4, 0.3),
               offsets=(0.2, 0.7))


def detection_ref(prob, loc, anc, clip, threshold, nms_threshold, force_suppress, variances,
                  nms_topk):
    v = [f32(x) for x in variances]
    B, C, A = prob.shape
    out = -np.ones((B, A, 6))
    for b in range(B):
        rows = []
        for i in range(A):
            cls = [prob[b, j, i] for j in range(1, C)]
            if not cls:
                continue
            j = int(np.argmax(cls))  # first maximum
            score = cls[j]
            if score < threshold:
                continue
            al, at, ar, ab = anc[0, i]
            aw, ah = ar - al, ab - at
            ax, ay = (al + ar) / 2, (at + ab) / 2
            px, py, pw, ph = loc[b, 4 * i:4 * i + 4]
            ox, oy = px * v[0] * aw + ax, py * v[1] * ah + ay
            ow, oh = np.exp(pw * v[2]) * aw / 2, np.exp(ph * v[3]) * ah / 2
            box = [ox - ow, oy - oh, ox + ow, oy + oh]
            if clip:
                box = [min(1.0, max(0.0, e)) for e in box]
            rows.append([j] + [score] + box)
        out[b, :len(rows)] = rows if rows else out[b, :0]
        if not rows or nms_threshold <= 0 or nms_threshold > 1:
            continue
        order = sorted(range(len(rows)), key=lambda r: -rows[r][1])
        keep = len(rows)
        if 0 < nms_topk < keep:
            keep = nms_topk
            out[b, keep:len(rows), 0] = -1
        out[b, :keep] = [rows[r] for r in order[:keep]]
        for i in range(keep):
            if out[b, i, 0] < 0:
                continue
            for j in range(i + 1, keep):
                if out[b, j, 0] < 0:
                    continue
                if force_suppress or out[b, i, 0] == out[b, j, 0]:
                    bi, bj = out[b, i, 2:], out[b, j, 2:]
                    iw = max(0.0, min(bi[2], bj[2]) - max(bi[0], bj[0]))
                    ih = max(0.0, min(bi[3], bj[3]) - max(bi[1], bj[1]))
                    u = (bi[2] - bi[0]) * (bi[3] - bi[1]) + (bj[2] - bj[0]) * (bj[3] - bj[1]) - iw * ih
                    if (0.0 if u <= 0 else iw * ih / u) >= nms_threshold:
                        out[b, j, 0] = -1
    return out


def detection_case(case, B, C, A, **params):
    kw = dict(clip=True, threshold=0.01, nms_threshold=0.5, force_suppress=False,
              variances=(0.1, 0.1, 0.2, 0.2), nms_topk=-1)
    kw.update(params)
    logits = rand(B, C, A, lo=-2, hi=2)
    prob = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    prob = prob.astype(np.float32).astype(np.float64)
    loc = rand(B, A * 4, lo=-1, hi=1)
    anc = prior_ref(2, A // 4, (0.5, 0.3), (1.0, 2.0, 0.5), False, (-1, -1), (0.5, 0.5))[:, :A]
    write_case("_contrib_MultiBoxDetection", case, [prob, loc, anc], params,
               lambda p, l, a: zero_grad(detection_ref(p.detach().numpy(), l.detach().numpy(),
                                                       a.detach().numpy(), **kw), p, l, a))


def detection_cases():
    detection_case("default", 2, 3, 16)
    detection_case("topk_force", 2, 4, 16, nms_topk=3, force_suppress=True, nms_threshold=0.3,
                   clip=False)
    detection_case("threshold_variances", 1, 3, 16, threshold=0.4, variances=(0.2, 0.2, 0.1, 0.1))
    detection_case("no_nms", 1, 3, 8, nms_threshold=0)


def target_ref(anc, label, pred, overlap_threshold, ignore_label, negative_mining_ratio,
               negative_mining_thresh, variances):
    a = anc[0]
    A = a.shape[0]
    B, L, _ = label.shape
    C = pred.shape[1]
    v = [f32(x) for x in variances]
    loc, mask = np.zeros((B, A * 4)), np.zeros((B, A * 4))
    cls = np.full((B, A), f32(ignore_label))
    for b in range(B):
        ngt = 0
        while ngt < L and label[b, ngt, 0] != -1:
            ngt += 1
        if ngt == 0:
            continue
        g = label[b, :ngt]
        ov = np.zeros((A, ngt))
        for j in range(A):
            for k in range(ngt):
                x1, y1, x2, y2 = a[j]
                u1, w1, u2, w2 = g[k, 1:5]
                inter = max(0.0, min(x2, u2) - max(x1, u1)) * max(0.0, min(y2, w2) - max(y1, w1))
                uni = (x2 - x1) * (y2 - y1) + (u2 - u1) * (w2 - w1) - inter
                ov[j, k] = 0.0 if uni == 0 else inter / uni
        ov = ov.astype(np.float32).astype(np.float64)  # MXNet compares overlaps as float
        flag, match = [-1] * A, [(-1.0, -1)] * A
        gt_done = [False] * ngt
        npos = 0
        while not all(gt_done):
            best, ba, bg = f32(1e-6), -1, -1
            for j in range(A):
                if flag[j] == 1:
                    continue
                for k in range(ngt):
                    if not gt_done[k] and ov[j, k] > best:
                        best, ba, bg = ov[j, k], j, k
            if ba < 0:
                break
            match[ba], gt_done[bg], flag[ba] = (best, bg), True, 1
            npos += 1
        if overlap_threshold > 0:
            for j in range(A):
                if flag[j] == 1:
                    continue
                k = int(np.argmax(ov[j]))
                match[j] = (ov[j, k], k)
                if ov[j, k] > f32(overlap_threshold):
                    flag[j] = 1
                    npos += 1
        if negative_mining_ratio > 0:
            nneg = min(int(npos * f32(negative_mining_ratio)), A - npos)
            if nneg > 0:
                cand = []
                for j in range(A):
                    if flag[j] == 1:
                        continue
                    if match[j][0] < 0:
                        k = int(np.argmax(ov[j]))
                        match[j] = (ov[j, k], k)
                    if match[j][0] < f32(negative_mining_thresh) and flag[j] == -1:
                        z = pred[b, :, j]
                        e = np.exp(z - z.max())
                        cand.append((-f32(e[0] / e.sum()), j))
                # MXNet sorts -prob descending (SortElemDescend): hardest negatives first
                cand.sort(key=lambda t: t[0], reverse=True)  # stable
                for _, j in cand[:nneg]:
                    flag[j] = 0
        else:
            flag = [1 if f == 1 else 0 for f in flag]
        for j in range(A):
            if flag[j] == 1:
                gt = g[match[j][1]]
                cls[b, j] = gt[0] + 1
                mask[b, 4 * j:4 * j + 4] = 1
                aw, ah = a[j, 2] - a[j, 0], a[j, 3] - a[j, 1]
                ax, ay = (a[j, 0] + a[j, 2]) / 2, (a[j, 1] + a[j, 3]) / 2
                gw, gh = gt[3] - gt[1], gt[4] - gt[2]
                gx, gy = (gt[1] + gt[3]) / 2, (gt[2] + gt[4]) / 2
                loc[b, 4 * j:4 * j + 4] = [(gx - ax) / aw / v[0], (gy - ay) / ah / v[1],
                                           np.log(gw / aw) / v[2], np.log(gh / ah) / v[3]]
            elif flag[j] == 0:
                cls[b, j] = 0
    return loc, mask, cls


def target_case(case, label, A, C, **params):
    kw = dict(overlap_threshold=0.5, ignore_label=-1.0, negative_mining_ratio=-1.0,
              negative_mining_thresh=0.5, variances=(0.1, 0.1, 0.2, 0.2))
    kw.update(params)
    anc = prior_ref(2, A // 4, (0.5, 0.3), (1.0, 2.0, 0.5), False, (-1, -1), (0.5, 0.5))[:, :A]
    pred = rand(label.shape[0], C, A, lo=-2, hi=2)
    def fn(a, l, p):
        outs = target_ref(a.detach().numpy(), l.detach().numpy(), p.detach().numpy(), **kw)
        return tuple(zero_grad(o, a, l, p) for o in outs)
    write_case("_contrib_MultiBoxTarget", case, [anc, label, pred], params, fn, tol=F32_EXACT)


def target_cases():
    # label rows [cls, xmin, ymin, xmax, ymax], padded with -1
    lab = -np.ones((2, 3, 5))
    lab[0, 0] = [0, 0.1, 0.1, 0.5, 0.6]
    lab[0, 1] = [2, 0.4, 0.3, 0.9, 0.8]
    lab[1, 0] = [1, 0.2, 0.5, 0.6, 0.9]
    target_case("default", lab, 16, 3)
    target_case("mining", lab, 16, 3, negative_mining_ratio=2.0, negative_mining_thresh=0.4,
                ignore_label=-2.0, overlap_threshold=0.3)
    target_case("no_threshold_variances", lab, 16, 3, overlap_threshold=0.0,
                variances=(0.2, 0.2, 0.3, 0.3))
    empty = -np.ones((1, 2, 6))
    target_case("no_gt", empty, 8, 2)


# --------------------------------------------------------------------------
# ROI pooling


def round_away(v):
    """C's round(): halves away from zero (numpy rounds them to even)."""
    return int(np.sign(v) * np.floor(abs(v) + 0.5))


def roi_pool_fn(ph, pw, scale):
    """Fast R-CNN max pooling; the output gathers data elements with torch so
    the gradient lands on the maxima."""
    def fn(data, rois):
        N, C, H, W = data.shape
        x, r = data.detach().numpy(), rois.detach().numpy()
        flat = data.reshape(-1)
        vals, idxs = [], []
        s = f32(scale)
        for roi in r:
            b = int(roi[0])
            x0, y0, x1, y1 = [round_away(v * s) for v in roi[1:]]
            rh, rw = max(y1 - y0 + 1, 1), max(x1 - x0 + 1, 1)
            for c in range(C):
                for i in range(ph):
                    for j in range(pw):
                        hs = min(max(int(np.floor(i * rh / ph)) + y0, 0), H)
                        he = min(max(int(np.ceil((i + 1) * rh / ph)) + y0, 0), H)
                        ws = min(max(int(np.floor(j * rw / pw)) + x0, 0), W)
                        we = min(max(int(np.ceil((j + 1) * rw / pw)) + x0, 0), W)
                        if b < 0 or b >= N or he <= hs or we <= ws:
                            vals.append(torch.zeros(()))
                            idxs.append(-1)
                            continue
                        win = x[b, c, hs:he, ws:we]
                        k = int(np.argmax(win))  # first maximum in row-major order
                        at = ((b * C + c) * H + hs + k // (we - ws)) * W + ws + k % (we - ws)
                        vals.append(flat[at])
                        idxs.append(at)
        shape = (len(r), C, ph, pw)
        return torch.stack(vals).reshape(shape), torch.tensor(np.array(idxs, dtype=np.float64).reshape(shape))
    return fn


def roi_pooling_cases():
    data = rand(2, 2, 6, 7)
    # [batch, x1, y1, x2, y2] in image pixels (scale 0.5): inside, partly
    # outside, degenerate (1x1) and an invalid batch index
    rois = np.array([[0, 1, 2, 9, 10], [1, 4, 0, 16, 6], [1, 6, 6, 5, 5], [3, 0, 0, 4, 4],
                     [0, -4, -3, 3, 2]], dtype=np.float64)
    for case, (ph, pw) in (("2x2", (2, 2)), ("3x2", (3, 2))):
        write_case("ROIPooling", case, [data, rois], {"pooled_size": (ph, pw), "spatial_scale": 0.5},
                   roi_pool_fn(ph, pw, 0.5), diff=[0], out_grads=[rand(5, 2, ph, pw), None],
                   input_dtypes=[None, None])


def bilinear(plane, H, W, y, x):
    """MXNet's ROIAlign sample of a (H, W) torch plane at (y, x)."""
    if y < -1.0 or y > H or x < -1.0 or x > W:
        return plane.new_zeros(())
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= H - 1:
        yl = yh = H - 1
        y = float(yl)
    else:
        yh = yl + 1
    if xl >= W - 1:
        xl = xh = W - 1
        x = float(xl)
    else:
        xh = xl + 1
    ly, lx = y - yl, x - xl
    return ((1 - ly) * (1 - lx) * plane[yl, xl] + (1 - ly) * lx * plane[yl, xh]
            + ly * (1 - lx) * plane[yh, xl] + ly * lx * plane[yh, xh])


def roi_align_fn(ph, pw, scale, sample_ratio=-1, position_sensitive=False, aligned=False):
    def fn(data, rois):
        N, C, H, W = data.shape
        cout = C // (ph * pw) if position_sensitive else C
        s, off = f32(scale), (0.5 if aligned else 0.0)
        outs = []
        for roi in rois.detach().numpy():
            b = int(roi[0])
            x0, y0 = roi[1] * s - off, roi[2] * s - off
            rw, rh = roi[3] * s - off - x0, roi[4] * s - off - y0
            if not aligned:
                rw, rh = max(rw, 1.0), max(rh, 1.0)
            bh, bw = rh / ph, rw / pw
            gh = sample_ratio if sample_ratio > 0 else int(np.ceil(rh / ph))
            gw = sample_ratio if sample_ratio > 0 else int(np.ceil(rw / pw))
            for c in range(cout):
                for i in range(ph):
                    for j in range(pw):
                        cin = (c * ph + i) * pw + j if position_sensitive else c
                        acc = data.new_zeros(())
                        for iy in range(gh):
                            yy = y0 + i * bh + (iy + 0.5) * bh / gh
                            for ix in range(gw):
                                xx = x0 + j * bw + (ix + 0.5) * bw / gw
                                acc = acc + bilinear(data[b, cin], H, W, yy, xx)
                        outs.append(acc / (gh * gw))
        return torch.stack(outs).reshape(len(rois), cout, ph, pw)
    return fn


def roi_align_cases():
    data = rand(2, 2, 5, 6)
    rois = np.array([[0, 1.0, 1.5, 8.5, 7.0], [1, 3.2, 0.4, 11.0, 9.6], [1, -3.0, -2.5, 4.0, 3.0]])
    def case(name, ph, pw, d=data, **kw):
        params = {"pooled_size": (ph, pw), "spatial_scale": 0.5}
        params.update(kw)
        write_case("_contrib_ROIAlign", name, [d, rois], params, roi_align_fn(ph, pw, 0.5, **kw),
                   diff=[0])
    case("adaptive", 2, 2)
    case("sample2_3x2", 3, 2, sample_ratio=2)
    case("aligned", 2, 3, sample_ratio=2, aligned=True)
    case("position_sensitive", 2, 2, d=rand(2, 8, 5, 6), sample_ratio=1, position_sensitive=True)


# --------------------------------------------------------------------------
# Resizing (torch's adaptive_avg_pool2d and interpolate share MXNet's rules)

F = torch.nn.functional


def adaptive_cases():
    x = rand(2, 3, 7, 5)
    for case, size, out in (("default", None, (1, 1)), ("square", (3,), (3, 3)), ("rect", (4, 2), (4, 2)),
                            ("upsample", (9, 6), (9, 6))):
        params = {} if size is None else {"output_size": size}
        write_case("_contrib_AdaptiveAvgPooling2D", case, [x], params,
                   lambda x, out=out: F.adaptive_avg_pool2d(x, out))


def resize_cases():
    x = rand(1, 2, 5, 4)
    def case(name, out, align, params, inputs=None):
        inputs = inputs or [x]
        params = dict(params, align_corners=align)
        def fn(x, *like):
            y = F.interpolate(x, size=out, mode="bilinear", align_corners=align)
            return y + 0 * sum(l.sum() for l in like) if like else y
        write_case("_contrib_BilinearResize2D", name, inputs, params, fn, tol=F32_EXACT)
    case("size_up_align", (7, 9), True, {"height": 7, "width": 9})
    case("size_down_noalign", (3, 3), False, {"height": 3, "width": 3})
    case("scale", (7, 6), False, {"scale_height": 1.5, "scale_width": 1.6})
    case("odd_scale", (9, 8), True, {"mode": "odd_scale", "scale_height": 2, "scale_width": 2})
    case("like", (6, 3), False, {"mode": "like"}, [x, rand(1, 1, 6, 3)])
    case("to_even_up", (6, 4), True, {"mode": "to_even_up"})
    case("to_odd_down", (5, 3), False, {"mode": "to_odd_down"})


# --------------------------------------------------------------------------
# Spatial transformer (torch's affine_grid / grid_sample with
# align_corners=True and zero padding are MXNet's conventions)


def sample(data, grid):
    return F.grid_sample(data, grid.permute(0, 2, 3, 1), mode="bilinear", padding_mode="zeros",
                         align_corners=True)


def affine(loc, n, c, h, w):
    return F.affine_grid(loc.reshape(n, 2, 3), (n, c, h, w), align_corners=True).permute(0, 3, 1, 2)


def sampling_cases():
    loc = np.array([[0.9, 0.2, 0.1, -0.15, 1.1, -0.05], [0.6, -0.3, 0.2, 0.35, 0.7, 0.1]])
    loc = (loc + rand(2, 6, lo=-0.05, hi=0.05)).astype(np.float32).astype(np.float64)
    write_case("GridGenerator", "affine", [loc], {"transform_type": "affine", "target_shape": (3, 4)},
               lambda l: affine(l, 2, 1, 3, 4))
    flow = rand(2, 2, 3, 4, lo=-1.5, hi=1.5)
    def warp(f):
        n, _, h, w = f.shape
        xs = torch.arange(w, dtype=torch.float64).reshape(1, 1, w).expand(n, h, w)
        ys = torch.arange(h, dtype=torch.float64).reshape(1, h, 1).expand(n, h, w)
        return torch.stack([(f[:, 0] + xs) / ((w - 1) / 2.0) - 1, (f[:, 1] + ys) / ((h - 1) / 2.0) - 1], 1)
    write_case("GridGenerator", "warp", [flow], {"transform_type": "warp"}, warp)
    data = rand(2, 2, 4, 5)
    grid = rand(2, 2, 3, 3, lo=-1.2, hi=1.2)  # some samples fall outside
    write_case("BilinearSampler", "basic", [data, grid], {}, sample)
    write_case("SpatialTransformer", "affine", [data, loc],
               {"target_shape": (3, 4), "transform_type": "affine", "sampler_type": "bilinear"},
               lambda d, l: sample(d, affine(l, 2, 2, 3, 4)))


CASES = [box_nms_cases, box_iou_cases, prior_cases, detection_cases, target_cases,
         roi_pooling_cases, roi_align_cases, adaptive_cases, resize_cases,
         sampling_cases, box_coder_cases, matching_cases]

if __name__ == "__main__":
    run_cases(CASES)
