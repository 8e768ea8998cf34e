#!/usr/bin/env python3
"""Writes images of an MNIST-format IDX pair as a class-per-folder tree.

    idx_to_image_tree.py IMAGES.gz LABELS.gz OUT_DIR [--limit N] [--format png|jpg]

OUT_DIR/<label>/<index>.<format>: the first N images (all by default) as
8-bit grayscale files written by Pillow, one sub-folder per label (0..9, the
order `weft im2rec --list --recursive` numbers them in), so that `weft im2rec`
can pack them into a .rec (tests/tools/train_rec_test.sh). Reads the IDX
files with numpy only (gzip or raw), checking magic, rank and counts.
"""
import argparse
import gzip
import os
import sys

import numpy as np
from PIL import Image


def read_idx(path):
    with open(path, 'rb') as f:
        head = f.read(2)
    opener = gzip.open if head == b'\x1f\x8b' else open
    with opener(path, 'rb') as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] != 0x08:
        sys.exit('%s: not a uint8 IDX file' % path)
    rank = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], 'big') for i in range(rank)]
    body = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank)
    if body.size != int(np.prod(dims)):
        sys.exit('%s: %d elements, expected %d' % (path, body.size, int(np.prod(dims))))
    return body.reshape(dims)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('images')
    ap.add_argument('labels')
    ap.add_argument('out')
    ap.add_argument('--limit', type=int, default=0)
    ap.add_argument('--format', choices=['png', 'jpg'], default='png')
    a = ap.parse_args()
    images, labels = read_idx(a.images), read_idx(a.labels)
    if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels):
        sys.exit('expected (N, rows, cols) images and (N,) labels, got %s and %s' %
                 (images.shape, labels.shape))
    n = len(images) if a.limit <= 0 else min(a.limit, len(images))
    for label in sorted(set(labels[:n].tolist())):
        os.makedirs(os.path.join(a.out, str(label)), exist_ok=True)
    options = {'quality': 95} if a.format == 'jpg' else {}
    for i in range(n):
        path = os.path.join(a.out, str(labels[i]), '%05d.%s' % (i, a.format))
        Image.fromarray(images[i], mode='L').save(path, **options)
    print('%d images in %s' % (n, a.out))


if __name__ == '__main__':
    main()
