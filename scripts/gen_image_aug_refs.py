#!/usr/bin/env python3
"""Writes the augmentation references of tests/data/image_aug/ (read by
tests/core/io/image_aug_test.cc).

    /usr/bin/python3 scripts/gen_image_aug_refs.py [DIR]   (default: tests/data/image_aug)

Needs Debian's python3-opencv and python3-numpy. The input is the decoded
photograph tests/data/images/video-001.q50.420.rgb.npy (150x103 RGB) and its
40x30 crop at (x=50, y=20). Every output is uint8 HWC RGB:

  resize_<how>.npy   cv2.resize (MXNet's resize) of the image or the crop:
                     bilinear down 150x103 -> 61x43, bilinear up 40x30 -> 97x71,
                     bilinear halving 40x30 -> 20x15 (OpenCV switches to INTER_AREA),
                     nearest 150x103 -> 64x40 and 40x30 -> 53x77.
  brightness.npy     MXNet's brightness on the crop: convertTo(alpha=1.3), through
                     cv2.addWeighted(img, 1.3, img, 0, 0) (the same float rounding).
  contrast_<a>.npy   MXNet's contrast, alpha 0.6 and 1.4: gray = cvtColor(CV_RGB2GRAY)
                     of the BGR image (as MXNet calls it), beta = (1 - alpha) * mean(gray)
                     in float32, then img * alpha + beta rounded and saturated.
  saturation_<a>.npy MXNet's saturation, alpha 0.5 and 1.6: addWeighted(img, alpha,
                     gray as 3 channels, 1 - alpha, 0).
  pca.npy            MXNet's PCA noise with draws (0.05, -0.08, 0.12): each channel plus
                     its eigen-combination, int += float truncation, clipped.
All color steps run on the BGR image, exactly as MXNet's augmenter does, and are
flipped back to RGB.
"""
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
    }
    bgr = rgb(crop)
    refs["brightness"] = rgb(cv2.addWeighted(bgr, 1.3, bgr, 0.0, 0.0))
    for a in ("0.6", "1.4"):
        refs["contrast_" + a] = rgb(contrast(bgr, float(a)))
    for a in ("0.5", "1.6"):
        refs["saturation_" + a] = rgb(saturation(bgr, float(a)))
    refs["pca"] = rgb(pca(bgr, (0.05, -0.08, 0.12)))
    for name, arr in sorted(refs.items()):
        np.save(os.path.join(out, name + ".npy"), np.ascontiguousarray(arr, dtype=np.uint8))
        print("%s: %s" % (name, arr.shape))


if __name__ == "__main__":
    main()
