"""Seeded inputs of bench/onnx_export/detection-symbol.json at batch B
(bench/bench_onnx_export.sh): box_nms rows [class, score, x1, y1, x2, y2]
with 3 classes (class 2 is one node's background), overlapping boxes and
-1 padding rows; center-form rows [score, x, y, w, h]; MultiBoxDetection's
softmax class probabilities over 4 classes, box offsets and 30 overlapping
anchors on a 3x5 grid. Every score is distinct (no ties for the sorts).

  python3 detection_inputs.py OUT_PREFIX B     (writes OUT_PREFIX-<input>.npy)
"""
import sys

import numpy as np


def distinct_scores(rng, shape, lo, hi):
    n = int(np.prod(shape))
    ranks = rng.permutation(n).reshape(shape)
    return (lo + (hi - lo) * (ranks + rng.uniform(0.1, 0.9, shape)) / n).astype(np.float32)


def corner_rows(rng, b, n):
    rows = np.empty((b, n, 6), np.float32)
    rows[..., 0] = rng.integers(0, 3, (b, n))
    rows[..., 1] = distinct_scores(rng, (b, n), 0, 1)
    lo = rng.uniform(0, 0.6, (b, n, 2))
    rows[..., 2:4] = lo
    rows[..., 4:6] = lo + rng.uniform(0.1, 0.4, (b, n, 2))
    rows[:, -3:, :] = -1  # padding rows, as GluonCV's decoders leave them
    return rows


def main():
    out, b = sys.argv[1], int(sys.argv[2])
    rng = np.random.default_rng(47 + b)
    np.save(out + "-boxes.npy", corner_rows(rng, b, 24))
    np.save(out + "-boxes4.npy", corner_rows(rng, 2 * b, 16).reshape(b, 2, 16, 6))
    center = np.empty((b, 20, 5), np.float32)
    center[..., 0] = distinct_scores(rng, (b, 20), -0.2, 1)
    center[..., 1:3] = rng.uniform(0.2, 0.8, (b, 20, 2))
    center[..., 3:5] = rng.uniform(0.1, 0.4, (b, 20, 2))
    np.save(out + "-rows5.npy", center)
    logits = rng.normal(0, 1.5, (b, 4, 30))
    prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    np.save(out + "-cls_prob.npy", prob.astype(np.float32))
    np.save(out + "-loc_pred.npy", rng.normal(0, 0.5, (b, 120)).astype(np.float32))
    cy, cx, size = np.meshgrid((np.arange(3) + 0.5) / 3, (np.arange(5) + 0.5) / 5, [0.3, 0.45],
                               indexing="ij")
    anchors = np.stack([cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2], -1)
    np.save(out + "-anchor.npy", anchors.reshape(1, 30, 4).astype(np.float32))


if __name__ == "__main__":
    main()
