#!/usr/bin/env python3
"""Writes the decoded-pixel references of tests/data/images/ (read by
tests/core/io/image_test.cc).

    /usr/bin/python3 scripts/gen_image_refs.py [DIR]   (default: tests/data/images)

Needs Debian's python3-pil, python3-opencv and python3-numpy. For each image
listed in IMAGES it writes:
  <name>.rgb.npy    uint8 (H, W, 3): Pillow's Image.open(f).convert('RGB'), the
                    reference the issue asks for; the script also checks that
                    OpenCV's cv2.imdecode(buf, 1) (MXNet's decoder, BGR flipped to
                    RGB) gives the same pixels and stops if not.
  <name>.gray.npy   uint8 (H, W): cv2.imdecode(buf, 0), what MXNet's
                    ImageRecordIter decodes for data_shape[0] == 1 (Pillow's
                    convert('L') rounds the RGB -> gray sum of a PNG differently).
The images themselves come from Debian packages (SOURCES.md names them).
"""
import os
import sys

import cv2
import numpy as np
from PIL import Image

IMAGES = [
    "video-001.q50.420.jpeg",  # baseline, 4:2:0
    "video-001.q50.422.progressive.jpeg",  # progressive, 4:2:2
    "video-005.gray.q50.jpeg",  # one-component JPEG
    "video-001.png",  # 8-bit RGB PNG
    "palette_color.png",  # palette PNG
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "tests", "data", "images")
    for name in IMAGES:
        path = os.path.join(out, name)
        rgb = np.asarray(Image.open(path).convert("RGB"), dtype=np.uint8)
        buf = np.fromfile(path, dtype=np.uint8)
        cv_rgb = cv2.imdecode(buf, cv2.IMREAD_COLOR)[:, :, ::-1]
        if not np.array_equal(rgb, cv_rgb):
            sys.exit("%s: Pillow and OpenCV disagree (max diff %d)" %
                     (name, np.abs(rgb.astype(int) - cv_rgb).max()))
        gray = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
        stem = os.path.splitext(name)[0]
        np.save(os.path.join(out, stem + ".rgb.npy"), np.ascontiguousarray(rgb))
        np.save(os.path.join(out, stem + ".gray.npy"), np.ascontiguousarray(gray))
        print("%s: %dx%d" % (name, rgb.shape[1], rgb.shape[0]))


if __name__ == "__main__":
    main()
