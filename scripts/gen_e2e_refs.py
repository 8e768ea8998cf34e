#!/usr/bin/python3
"""End-to-end reference data for `weft run` on small graphs shaped like real MXNet exports.

Run once with Debian's interpreter (torch 1.13, numpy); CI only reads the files:
    /usr/bin/python3 scripts/gen_e2e_refs.py [model ...]
For each model it writes tests/data/e2e/<model>/:
    symbol.json          the MXNet 1.9 symbol (the op sequence of the export it mimics)
    model.params         its parameters (arg:/aux:), written by scripts/mxnet_params.py
    input_<name>.npy     the inputs `weft run --input <name>=...` gets
    expected/<out>.npy   the outputs, named as `weft run` names them
The graph and its reference outputs are built together by scripts/e2e_graph.py:
every node's value is computed with PyTorch/NumPy from MXNet 1.9's semantics.
Models retry seeds until no sort order, threshold or IoU decision lies close
enough to flipping for float32 rounding to change it (Graph.note_margin).
tests/data/e2e/README.md says which real export each graph mimics.
"""
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_graph import Graph  # noqa: E402
from mxnet_params import write_params  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "e2e")


def conv_bn_relu(g, x, name, nf, k, s=1, p=0, group=1):
    y = g.conv(x, name + "_conv2d", nf, k, s, p, group, no_bias=True)
    y = g.batchnorm(y, name + "_batchnorm")
    return g.relu(y, name + "_relu")


# -- 1. GluonCV SSD export: predictors, anchors, decoders, box_nms -------------
def gluoncv_ssd(seed):
    """gluoncv.model_zoo.ssd.SSD.hybrid_forward at inference, two feature
    layers, 2 foreground classes, 4 anchors per cell."""
    g = Graph(seed)
    num_fg, steps, alloc = 2, (2, 4), (10, 6)
    data = g.input("data", g.rng.uniform(-1, 1, (1, 3, 12, 16)))
    f1 = conv_bn_relu(g, data, "ssd0_features0", 8, 3, 2, 1)   # (1, 8, 6, 8)
    f2 = conv_bn_relu(g, f1, "ssd0_features1", 8, 3, 2, 1)     # (1, 8, 3, 4)
    cls_preds, box_preds, anchors = [], [], []
    for i, (feat, step, asz) in enumerate(zip((f1, f2), steps, alloc)):
        sizes, ratios = (3.0 * step, 4.5 * step), (1, 2, 0.5)
        num_anchors = 2 + len(ratios) - 1
        cp = g.conv(feat, "ssd0_convpredictor%d_conv0" % i, num_anchors * (num_fg + 1), 3, 1, 1, w_scale=3.0)
        cp = g.transpose(cp, "ssd0_transpose%d" % i, (0, 2, 3, 1))
        cls_preds.append(g.flatten(cp, "ssd0_flatten%d" % i))
        bp = g.conv(feat, "ssd0_convpredictor%d_conv0" % (i + 2), num_anchors * 4, 3, 1, 1)
        bp = g.transpose(bp, "ssd0_transpose%d" % (i + 2), (0, 2, 3, 1))
        box_preds.append(g.flatten(bp, "ssd0_flatten%d" % (i + 2)))
        # SSDAnchorGenerator: a constant (1, 1, alloc, alloc, A*4) of centre
        # boxes (cx, cy, w, h) in pixels, cropped like the feature map.
        cells = []
        for r in range(asz):
            for c in range(asz):
                cy, cx = (r + 0.5) * step, (c + 0.5) * step
                big = np.sqrt(sizes[0] * sizes[1])
                cells += [[cx, cy, sizes[0], sizes[0]], [cx, cy, big, big]]
                for q in ratios[1:]:
                    cells.append([cx, cy, sizes[0] * np.sqrt(q), sizes[0] / np.sqrt(q)])
        const = g.param("ssd0_ssdanchorgenerator%d_anchor_%d" % (i, i),
                        np.array(cells).reshape(1, 1, asz, asz, -1))
        zero = g.scalar("_mul_scalar", feat, "ssd0_ssdanchorgenerator%d__mulscalar0" % i, 0.0)
        a = g.slice_like(const, zero, "ssd0_ssdanchorgenerator%d_slice_like0" % i, (2, 3))
        a = g.reshape(a, "ssd0_ssdanchorgenerator%d_reshape0" % i, (1, -1, 4))
        anchors.append(g.reshape(a, "ssd0_reshape%d" % i, (1, -1)))
    cls = g.reshape(g.concat(cls_preds, "ssd0_concat0", 1), "ssd0_reshape2", (0, -1, num_fg + 1))
    box = g.reshape(g.concat(box_preds, "ssd0_concat1", 1), "ssd0_reshape3", (0, -1, 4))
    anc = g.reshape(g.concat(anchors, "ssd0_concat2", 1), "ssd0_reshape4", (1, -1, 4))

    # NormalizedBoxCenterDecoder(stds=(0.1, 0.1, 0.2, 0.2)), corner output.
    a = g.slice_channel(anc, "ssd0_normalizedboxcenterdecoder0_split0", 4, axis=-1)
    p = g.slice_channel(box, "ssd0_normalizedboxcenterdecoder0_split1", 4, axis=-1)
    pre = "ssd0_normalizedboxcenterdecoder0_"

    def centre(k, std):
        t = g.scalar("_mul_scalar", p[k], pre + "_mulscalar%d" % k, std)
        t = g.scalar("_plus_scalar", t, pre + "_plusscalar%d" % k, 0.0)
        t = g.binary("broadcast_mul", t, a[k + 2], pre + "broadcast_mul%d" % k)
        return g.binary("broadcast_add", t, a[k], pre + "broadcast_add%d" % k)

    def half(k, std):
        t = g.unary("exp", g.scalar("_mul_scalar", p[k], pre + "_mulscalar%d" % k, std), pre + "exp%d" % k)
        t = g.scalar("_plus_scalar", t, pre + "_plusscalar%d" % k, 0.0)
        t = g.binary("broadcast_mul", t, a[k], pre + "broadcast_mul%d" % k)
        return g.scalar("_div_scalar", t, pre + "_divscalar%d" % k, 2, is_int=True)

    ox, oy, ow, oh = centre(0, 0.1), centre(1, 0.1), half(2, 0.2), half(3, 0.2)
    corners = [g.binary("elemwise_sub", ox, ow, pre + "_minus0"), g.binary("elemwise_sub", oy, oh, pre + "_minus1"),
               g.binary("elemwise_add", ox, ow, pre + "_plus0"), g.binary("elemwise_add", oy, oh, pre + "_plus1")]
    bboxes = g.concat(corners, pre + "concat0", -1)                        # (1, N, 4)

    # MultiPerClassDecoder(num_fg + 1, thresh): class ids from _arange.
    prob = g.softmax(cls, "ssd0_softmax0", -1)
    pre = "ssd0_multiperclassdecoder0_"
    scores = g.slice_axis(prob, pre + "slice_axis0", -1, 1, None)          # (1, N, num_fg)
    template = g.unary("zeros_like", g.slice_axis(prob, pre + "slice_axis1", -1, 0, 1), pre + "zeros_like0")
    template = g.repeat(template, pre + "repeat0", num_fg, -1)
    ids = g.reshape(g.arange(pre + "arange0", 0, num_fg), pre + "reshape0", (1, 1, num_fg))
    cls_id = g.binary("broadcast_add", template, ids, pre + "broadcast_add0")
    mask = g.scalar("_greater_scalar", scores, pre + "_greaterscalar0", 0.6)
    minus_one = g.scalar("_mul_scalar", g.unary("ones_like", cls_id, pre + "ones_like0"), pre + "_mulscalar0", -1,
                         is_int=True)
    cls_id = g.where(mask, cls_id, minus_one, pre + "where0")
    scores = g.where(mask, scores, g.unary("zeros_like", scores, pre + "zeros_like1"), pre + "where1")

    # Per-class results [id, score, box], class-major as the export's loop.
    cm_ids = g.reshape(g.transpose(cls_id, "ssd0_transpose4", (0, 2, 1)), "ssd0_reshape5", (0, -1, 1))
    cm_scores = g.reshape(g.transpose(scores, "ssd0_transpose5", (0, 2, 1)), "ssd0_reshape6", (0, -1, 1))
    cm_boxes = g.tile(bboxes, "ssd0_tile0", (1, num_fg, 1))
    result = g.concat([cm_ids, cm_scores, cm_boxes], "ssd0_concat3", -1)
    # Fewer candidates than topk, so that the class threshold decides which
    # boxes enter NMS (a higher topk would only cut the lowest scores).
    candidates = int((result.value[0, :, 0] >= 0).sum())
    assert candidates < 80, "%d candidates, topk 80" % candidates
    nms = g.box_nms(result, "ssd0_box_nms0", overlap_thresh=0.45, topk=80, valid_thresh=0.01,
                       id_index=0, score_index=1, coord_start=2, force_suppress=False)
    result = g.slice_axis(nms, "ssd0_slice_axis0", 1, 0, 60)
    heads = [g.slice_axis(result, "ssd0_slice_axis1", 2, 0, 1), g.slice_axis(result, "ssd0_slice_axis2", 2, 1, 2),
             g.slice_axis(result, "ssd0_slice_axis3", 2, 2, 6)]
    kept = int((heads[0].value.numpy() >= 0).sum())
    assert 5 <= kept < 60, "want some detections, fewer than post_nms: %d" % kept
    return g, heads


# -- 2. RetinaFace (mnet) FPN with SSH context modules ------------------------
def retinaface_fpn(seed):
    """insightface RetinaFace mnet: three strides, nearest UpSampling, Crop to
    the lateral's size, elemwise_add merges, SSH modules, per-stride heads."""
    g = Graph(seed)
    data = g.input("data", g.rng.uniform(-1, 1, (1, 3, 44, 52)))
    x = conv_bn_relu(g, data, "mobilenet0_conv0", 8, 3, 2, 1)              # 22x26

    def dw_block(x, name, nf, s):
        x = conv_bn_relu(g, x, name + "_dw", x.shape[1], 3, s, 1, group=x.shape[1])
        return conv_bn_relu(g, x, name + "_pw", nf, 1)

    c1 = dw_block(x, "mobilenet0_conv1", 16, 2)                             # 11x13 (stride 8)
    c2 = dw_block(c1, "mobilenet0_conv2", 16, 2)                            # 6x7 (stride 16)
    c3 = dw_block(c2, "mobilenet0_conv3", 24, 2)                            # 3x4 (stride 32)

    def conv_act(x, name, nf, k, p=0):
        return g.relu(g.conv(x, name, nf, k, 1, p, w_scale=2.0), name + "_relu")

    c3 = conv_act(c3, "rf_c3_lateral", 8, 1)
    c3_up = g.upsampling_nearest(c3, "rf_c3_upsampling", 2)                 # 6x8
    c2_lat = conv_act(c2, "rf_c2_lateral", 8, 1)
    c3_up = g.crop_like(c3_up, c2_lat, "crop0")                             # 6x7
    c2 = conv_act(g.binary("elemwise_add", c2_lat, c3_up, "plus0"), "rf_c2_aggr", 8, 3, 1)
    c2_up = g.upsampling_nearest(c2, "rf_c2_upsampling", 2)                 # 12x14
    c1_lat = conv_act(c1, "rf_c1_lateral", 8, 1)
    c2_up = g.crop_like(c2_up, c1_lat, "crop1")                             # 11x13
    c1 = conv_act(g.binary("elemwise_add", c1_lat, c2_up, "plus1"), "rf_c1_aggr", 8, 3, 1)

    def ssh(x, name):
        c3x3 = g.conv(x, name + "_conv1", 4, 3, 1, 1)
        ctx = conv_act(x, name + "_context_conv1", 2, 3, 1)
        c5x5 = g.conv(ctx, name + "_context_conv2", 2, 3, 1, 1)
        c7x7 = g.conv(conv_act(ctx, name + "_context_conv3_1", 2, 3, 1), name + "_context_conv3_2", 2, 3, 1, 1)
        return g.relu(g.concat([c3x3, c5x5, c7x7], name + "_concat", 1), name + "_concat_relu")

    heads, num_anchors = [], 2
    for stride, feat in ((32, c3), (16, c2), (8, c1)):
        m = ssh(feat, "ssh_m%d_det" % {32: 3, 16: 2, 8: 1}[stride])
        cls = g.conv(m, "face_rpn_cls_score_stride%d" % stride, 2 * num_anchors, 1, w_scale=3.0)
        cls = g.reshape(cls, "face_rpn_cls_score_reshape_stride%d" % stride, (0, 2, -1, 0))
        cls = g.softmax_activation_channel(cls, "face_rpn_cls_prob_stride%d" % stride)
        heads.append(g.reshape(cls, "face_rpn_cls_prob_reshape_stride%d" % stride, (0, 2 * num_anchors, -1, 0)))
        heads.append(g.conv(m, "face_rpn_bbox_pred_stride%d" % stride, 4 * num_anchors, 1, w_scale=3.0))
        heads.append(g.conv(m, "face_rpn_landmark_pred_stride%d" % stride, 10 * num_anchors, 1, w_scale=3.0))
    return g, heads


# -- 3. MobileFaceNet with ReLU6 as _maximum_scalar/_minimum_scalar ---------
def mobilefacenet(seed):
    """insightface fmobilefacenet (GDC head), activation ReLU6 exported as
    maximum(x, 0) then minimum(x, 6)."""
    g = Graph(seed)
    data = g.input("data", g.rng.uniform(0, 255, (2, 3, 32, 32)))
    x = g.scalar("_minus_scalar", data, "_minusscalar0", 127.5)
    x = g.scalar("_mul_scalar", x, "_mulscalar0", 0.0078125)

    def relu6(x, name):
        x = g.scalar("_maximum_scalar", x, name + "_max", 0, is_int=True)
        return g.scalar("_minimum_scalar", x, name + "_min", 6, is_int=True)

    def conv(x, name, nf, k=1, s=1, p=0, group=1, act=True):
        x = g.conv(x, name + "_conv2d", nf, k, s, p, group, no_bias=True)
        x = g.batchnorm(x, name + "_batchnorm", gamma_scale=3.0 if act else 1.0)
        if act:  # every ReLU6 clips on both sides
            assert (x.value < 0).any() and (x.value > 6).any(), name + ": ReLU6 does not clip both ways"
        return relu6(x, name + "_relu6") if act else x

    def dresidual(x, name, nf, group, s):
        x = conv(x, name + "_conv_sep", group)
        x = conv(x, name + "_conv_dw", group, 3, s, 1, group)
        return conv(x, name + "_conv_proj", nf, act=False)

    x = conv(x, "conv_1", 8, 3, 2, 1)                    # 16x16
    x = conv(x, "conv_2_dw", 8, 3, 1, 1, group=8)
    x = dresidual(x, "dconv_23", 12, 16, 2)                                 # 8x8
    x = g.binary("elemwise_add", dresidual(x, "res_3_block0", 12, 24, 1), x, "_plus0")
    x = dresidual(x, "dconv_34", 16, 32, 2)                                 # 4x4
    x = g.binary("elemwise_add", dresidual(x, "res_4_block0", 16, 32, 1), x, "_plus1")
    x = conv(x, "conv_5", 32)
    x = conv(x, "conv_6dw7_7", 32, 4, 1, 0, group=32, act=False)            # GDC: 1x1
    x = g.fully_connected(x, "pre_fc1", 16)
    fc1 = g.batchnorm(x, "fc1", eps=2e-5, fix_gamma=True)
    return g, [fc1]


# -- 4. LightCNN-9 max-feature-map --------------------------------------------
def lightcnn(seed):
    """LightCNN-9 (MXNet port): mfm = Convolution to 2n channels, SliceChannel
    into halves, _Maximum; max pooling; the fc mfm on 2-D data."""
    g = Graph(seed)
    data = g.input("data", g.rng.uniform(0, 1, (2, 1, 32, 32)))

    def mfm(x, name, nf, k=1, p=0, fc=False):
        y = g.fully_connected(x, name, 2 * nf) if fc else g.conv(x, name, 2 * nf, k, 1, p)
        halves = g.slice_channel(y, name + "_slice", 2)
        return g.binary("_Maximum", halves[0], halves[1], name + "_mfm")

    x = g.pool_max(mfm(data, "conv1", 8, 5, 2), "pool1", 2, 2)              # 16x16
    x = mfm(mfm(x, "conv2a", 8), "conv2", 12, 3, 1)
    x = g.pool_max(x, "pool2", 2, 2)                                        # 8x8
    x = mfm(mfm(x, "conv3a", 12), "conv3", 16, 3, 1)
    x = g.pool_max(x, "pool3", 2, 2)                                        # 4x4
    feat = mfm(g.flatten(x, "flatten0"), "fc1", 16, fc=True)
    return g, [g.fully_connected(feat, "fc2", 10), feat]


# -- 5. MXNet example/ssd deploy graph: MultiBoxPrior + MultiBoxDetection ----
def mxnet_ssd(seed):
    """apache/mxnet example/ssd multibox_layer + deploy tail: per layer a loc
    and a cls conv (transpose, Flatten), MultiBoxPrior anchors; softmax over
    classes, MultiBoxDetection."""
    g = Graph(seed)
    num_classes = 3 + 1
    data = g.input("data", g.rng.uniform(-1, 1, (1, 3, 16, 24)))
    f1 = g.relu(g.conv(data, "conv1", 8, 3, 2, 1), "relu1")                  # 8x12
    f2 = g.relu(g.conv(f1, "conv2", 8, 3, 2, 1), "relu2")                    # 4x6
    layers = ((f1, "relu1", (0.2, 0.272), (1, 2), (1 / 8, 1 / 12), False),
              (f2, "relu2", (0.37, 0.447), (1, 2, 0.5), (-1.0, -1.0), True))
    locs, clss, anchors = [], [], []
    for feat, fname, sizes, ratios, steps, clip in layers:
        na = len(sizes) - 1 + len(ratios)
        loc = g.conv(feat, fname + "_loc_pred_conv", na * 4, 3, 1, 1)
        locs.append(g.flatten(g.transpose(loc, fname + "_loc_pred_transpose", (0, 2, 3, 1)), fname + "_loc_flat"))
        cls = g.conv(feat, fname + "_cls_pred_conv", na * num_classes, 3, 1, 1, w_scale=3.0)
        clss.append(g.flatten(g.transpose(cls, fname + "_cls_pred_transpose", (0, 2, 3, 1)), fname + "_cls_flat"))
        a = g.multibox_prior(feat, fname + "_anchors", sizes, ratios, steps, clip)
        anchors.append(g.flatten(a, fname + "_anchors_flat"))
    loc_preds = g.concat(locs, "multibox_loc_pred", 1)
    cls_preds = g.reshape(g.concat(clss, "concat0", 1), "reshape0", (0, -1, num_classes))
    cls_preds = g.transpose(cls_preds, "multibox_cls_pred", (0, 2, 1))
    anchor_boxes = g.reshape(g.concat(anchors, "concat1", 1), "multibox_anchors", (0, -1, 4))
    cls_prob = g.softmax(cls_preds, "cls_prob", 1)
    det = g.multibox_detection(cls_prob, loc_preds, anchor_boxes, "detection", threshold=0.3,
                               nms_threshold=0.45, nms_topk=60)
    valid = int((det.value.numpy()[0, :, 0] >= 0).sum())
    assert 5 <= valid, "want some detections: %d" % valid
    return g, [det]


MODELS = {"gluoncv_ssd": gluoncv_ssd, "retinaface_fpn": retinaface_fpn, "mobilefacenet": mobilefacenet,
          "lightcnn": lightcnn, "mxnet_ssd": mxnet_ssd}


def build(fn):
    """The first seed whose decisions all clear their margins."""
    for seed in range(100):
        try:
            g, heads = fn(seed)
        except AssertionError as e:
            print("  seed %d rejected: %s" % (seed, e))
            continue
        close = {k: v for k, v in g.margins.items() if v < 1}
        if not close:
            return seed, g, heads
        print("  seed %d rejected: %s" % (seed, close))
    raise SystemExit("no seed works for " + fn.__name__)


def write(name, g, heads):
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "expected"))
    with open(os.path.join(d, "symbol.json"), "w") as f:
        f.write(g.symbol_json(heads))
    write_params(os.path.join(d, "model.params"), g.params)
    for k, v in g.inputs.items():
        np.save(os.path.join(d, "input_%s.npy" % k), v)
    for h in heads:
        np.save(os.path.join(d, "expected", g.output_name(h) + ".npy"), h.value.numpy().astype(np.float32))


def main(names):
    for name in names or MODELS:
        seed, g, heads = build(MODELS[name])
        write(name, g, heads)
        print("%s: seed %d, %d nodes, %d params, outputs %s; margins %s" % (
            name, seed, len(g.nodes), len(g.params), [g.output_name(h) + str(h.shape) for h in heads],
            {k: "%.2g" % v for k, v in g.margins.items()}))


if __name__ == "__main__":
    main(sys.argv[1:])
