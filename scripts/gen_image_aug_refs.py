#!/usr/bin/env python3
"""Writes the augmentation references of tests/data/image_aug/ (read by
tests/core/io/image_aug_test.cc).

    /usr/bin/python3 scripts/gen_image_aug_refs.py [DIR]   (default: tests/data/image_aug)

Needs Debian's python3-opencv and python3-numpy. The input is the decoded
photograph tests/data/images/video-001.q50.420.rgb.npy (150x103 RGB) and its
40x30 crop at (x=50, y=20). Every output is uint8 HWC RGB:

  resize_<how>.npy   cv2.resize (MXNet's resize) of the image or the crop
                     (nearest, bilinear, cubic, area, Lanczos-4):
                     bilinear down 150x103 -> 61x43, bilinear up 40x30 -> 97x71,
                     bilinear halving 40x30 -> 20x15 (OpenCV switches to INTER_AREA),
                     nearest 150x103 -> 64x40 and 40x30 -> 53x77; cubic and
                     Lanczos-4 as bilinear down and up; area 150x103 -> 61x43,
                     40x30 -> 13x10, 40x30 -> 10x10 (4x3 blocks), 40x30 -> 97x71.
  brightness.npy     MXNet's brightness on the crop: convertTo(alpha=1.3), through
                     cv2.addWeighted(img, 1.3, img, 0, 0) (the same float rounding).
  contrast_<a>.npy   MXNet's contrast, alpha 0.6 and 1.4: gray = cvtColor(CV_RGB2GRAY)
                     of the BGR image (as MXNet calls it), beta = (1 - alpha) * mean(gray)
                     in float32, then img * alpha + beta rounded and saturated.
  saturation_<a>.npy MXNet's saturation, alpha 0.5 and 1.6: addWeighted(img, alpha,
                     gray as 3 channels, 1 - alpha, 0).
  pca.npy            MXNet's PCA noise with draws (0.05, -0.08, 0.12): each channel plus
                     its eigen-combination, int += float truncation, clipped.
  warp_<name>.npy    cv2.warpAffine(INTER_LINEAR, BORDER_CONSTANT, fill) with MXNet's
                     affine augmentation matrix, computed in float32 step by step as
                     image_aug_default.cc does (see affine() below):
                     warp_crop: the crop, angle 30, shear 0.2, scale 0.8, ratio 1.2, fill 50;
                     warp_photo: the image, angle -17, shear -0.1, scale 1.3, ratio 0.9,
                     max_img_size 120, fill 255.
  hls_<name>.npy     MXNet's HSL jitter: cvtColor(BGR2HLS), (h, l, s) offsets added and
                     clipped to [0, 180] / [0, 255] / [0, 255], cvtColor(HLS2BGR), on the crop:
                     hls_zero (0, 0, 0), hls_a (20, -15, 30), hls_b (-40, 25, -60).
All color steps run on the BGR image, exactly as MXNet's augmenter does, and are
flipped back to RGB.
"""
import math
import os
import sys

import cv2
import numpy as np

EIGVEC = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                   [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                   [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]], dtype=np.float32)


def rgb(bgr):
    return np.ascontiguousarray(bgr[:, :, ::-1])


def contrast(bgr, alpha):
    gray = cv2.cvtColor(bgr, cv2.COLOR_RGB2GRAY)
    mean = np.float32(cv2.mean(gray)[0])
    beta = float(np.float32(1 - np.float32(alpha)) * mean)
    return cv2.addWeighted(bgr, float(np.float32(alpha)), bgr, 0.0, beta)


def saturation(bgr, alpha):
    gray = cv2.cvtColor(cv2.cvtColor(bgr, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2BGR)
    a = np.float32(alpha)
    return cv2.addWeighted(bgr, float(a), gray, float(np.float32(1) - a), 0.0)


def pca(bgr, draws):
    d = np.array(draws, dtype=np.float32)
    delta_rgb = (EIGVEC * d[None, :]).sum(axis=1, dtype=np.float32)
    delta_bgr = delta_rgb[::-1]
    v = (bgr.astype(np.float32) + delta_bgr[None, None, :]).astype(np.int32)  # trunc to 0
    return np.clip(v, 0, 255).astype(np.uint8)


def affine(cols, rows, angle, shear, scale, ratio, min_size=0.0, max_size=1e10):
    """MXNet's warp matrix and output size, in its float32 steps."""
    f = np.float32
    a = f(math.cos(angle / 180.0 * math.pi))
    b = f(math.sin(angle / 180.0 * math.pi))
    shear, scale, ratio = f(shear), f(scale), f(ratio)
    hs = f(f(2) * scale) / f(f(1) + ratio)
    ws = f(ratio * hs)
    new_w = max(f(min_size), min(f(max_size), f(scale * f(cols))))
    new_h = max(f(min_size), min(f(max_size), f(scale * f(rows))))
    m = np.zeros((2, 3), dtype=np.float32)
    m[0, 0] = f(hs * a) - f(f(shear * b) * ws)
    m[1, 0] = -b * ws
    m[0, 1] = f(hs * b) + f(f(shear * a) * ws)
    m[1, 1] = a * ws
    cw = f(m[0, 0] * f(cols)) + f(m[0, 1] * f(rows))
    ch = f(m[1, 0] * f(cols)) + f(m[1, 1] * f(rows))
    m[0, 2] = f(new_w - cw) / f(2)
    m[1, 2] = f(new_h - ch) / f(2)
    return m, (int(new_w), int(new_h))


def warp(img, fill, **kw):
    m, size = affine(img.shape[1], img.shape[0], **kw)
    return cv2.warpAffine(img, m, size, flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=(fill, fill, fill))


def hls(bgr, dh, dl, ds):
    v = cv2.cvtColor(bgr, cv2.COLOR_BGR2HLS).astype(np.int32)
    v += np.array([dh, dl, ds], dtype=np.int32)[None, None, :]
    v = np.clip(v, 0, np.array([180, 255, 255])[None, None, :]).astype(np.uint8)
    return cv2.cvtColor(v, cv2.COLOR_HLS2BGR)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.join(here, "..", "tests", "data")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "image_aug")
    os.makedirs(out, exist_ok=True)
    image = np.load(os.path.join(root, "images", "video-001.q50.420.rgb.npy"))
    crop = np.ascontiguousarray(image[20:50, 50:90])
    refs = {
        "resize_bilinear_down": cv2.resize(image, (61, 43), interpolation=cv2.INTER_LINEAR),
        "resize_bilinear_up": cv2.resize(crop, (97, 71), interpolation=cv2.INTER_LINEAR),
        "resize_bilinear_half": cv2.resize(crop, (20, 15), interpolation=cv2.INTER_LINEAR),
        "resize_nearest_down": cv2.resize(image, (64, 40), interpolation=cv2.INTER_NEAREST),
        "resize_nearest_up": cv2.resize(crop, (53, 77), interpolation=cv2.INTER_NEAREST),
        "resize_cubic_down": cv2.resize(image, (61, 43), interpolation=cv2.INTER_CUBIC),
        "resize_cubic_up": cv2.resize(crop, (97, 71), interpolation=cv2.INTER_CUBIC),
        "resize_lanczos_down": cv2.resize(image, (61, 43), interpolation=cv2.INTER_LANCZOS4),
        "resize_lanczos_up": cv2.resize(crop, (97, 71), interpolation=cv2.INTER_LANCZOS4),
        "resize_area_down": cv2.resize(image, (61, 43), interpolation=cv2.INTER_AREA),
        "resize_area_third": cv2.resize(crop, (13, 10), interpolation=cv2.INTER_AREA),
        "resize_area_up": cv2.resize(crop, (97, 71), interpolation=cv2.INTER_AREA),
        "resize_area_blocks": cv2.resize(crop, (10, 10), interpolation=cv2.INTER_AREA),
    }
    bgr = rgb(crop)
    refs["brightness"] = rgb(cv2.addWeighted(bgr, 1.3, bgr, 0.0, 0.0))
    for a in ("0.6", "1.4"):
        refs["contrast_" + a] = rgb(contrast(bgr, float(a)))
    for a in ("0.5", "1.6"):
        refs["saturation_" + a] = rgb(saturation(bgr, float(a)))
    refs["pca"] = rgb(pca(bgr, (0.05, -0.08, 0.12)))
    refs["warp_crop"] = warp(crop, 50, angle=30, shear=0.2, scale=0.8, ratio=1.2)
    refs["warp_photo"] = warp(image, 255, angle=-17, shear=-0.1, scale=1.3, ratio=0.9,
                              max_size=120)
    refs["hls_zero"] = rgb(hls(bgr, 0, 0, 0))
    refs["hls_a"] = rgb(hls(bgr, 20, -15, 30))
    refs["hls_b"] = rgb(hls(bgr, -40, 25, -60))
    for name, arr in sorted(refs.items()):
        np.save(os.path.join(out, name + ".npy"), np.ascontiguousarray(arr, dtype=np.uint8))
        print("%s: %s" % (name, arr.shape))


if __name__ == "__main__":
    main()
