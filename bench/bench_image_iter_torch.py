#!/usr/bin/env python3
"""Weft's ImageRecordIter beside PyTorch's DataLoader on the same JPEG files.

    bench/bench_image_iter_torch.py --weft build/bin/weft --bench build/bench/weft_bench
        [--images 256] [--epochs 3] [--threads 1 2]

Writes --images JPEG files (quality 90, 500x344: the photograph of
tests/data/images resized up and shifted by i % 20 columns, as
bench_image_iter.cc makes its own) into a class-per-folder tree, packs the
files' bytes with `weft im2rec --pass-through`, then times on each thread
count:
  - Weft: weft_bench's BM_ImageRecordIterImageNetAug on that .rec
    (WEFT_BENCH_IMAGE_REC): decode, random_resized_crop (area [0.08, 1],
    ratio [3/4, 4/3]) to 224x224, rand_mirror, mean/std, NCHW float32
    batches of 32 on N preprocess_threads;
  - PyTorch: DataLoader(ImageFolder(tree, RandomResizedCrop(224),
    RandomHorizontalFlip, ToTensor, Normalize), batch 32, N workers,
    torch.set_num_threads(1)), --epochs epochs after one warm-up epoch.
Prints images/s and images/s per thread (or worker) for both. Not a test:
run by hand; the figures go to bench/README.md with the machine's CPU.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTO = os.path.join(HERE, '..', 'tests', 'data', 'images', 'video-001.q50.420.rgb.npy')


def write_tree(root, n):
    base = Image.fromarray(np.load(PHOTO)).resize((520, 344), Image.BILINEAR)
    for i in range(n):
        folder = os.path.join(root, 'c%d' % (i % 10))
        os.makedirs(folder, exist_ok=True)
        base.crop((i % 20, 0, i % 20 + 500, 344)).save(
            os.path.join(folder, '%04d.jpg' % i), quality=90)


def pack(weft, root, prefix):
    subprocess.run([weft, 'im2rec', prefix, root, '--list', '--recursive'], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([weft, 'im2rec', prefix, root, '--pass-through'], check=True,
                   stdout=subprocess.DEVNULL)
    return prefix + '.rec'


def weft_rates(bench, rec):
    env = dict(os.environ, WEFT_BENCH_IMAGE_REC=rec)
    out = subprocess.run([bench, '--benchmark_filter=BM_ImageRecordIterImageNetAug',
                          '--benchmark_format=json', '--benchmark_min_time=3'],
                         check=True, env=env, capture_output=True, text=True).stdout
    rates = {}
    for b in json.loads(out)['benchmarks']:
        threads = int(b['name'].split('/')[1])
        rates[threads] = b['items_per_second']
    return rates


def torch_rate(root, workers, epochs):
    import torch
    from torch.utils.data import DataLoader
    from torchvision import datasets, transforms
    torch.set_num_threads(1)
    tf = transforms.Compose([
        transforms.RandomResizedCrop(224, scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    loader = DataLoader(datasets.ImageFolder(root, tf), batch_size=32, num_workers=workers,
                        shuffle=False, persistent_workers=workers > 0)
    for _ in loader:  # warm-up epoch (starts the workers)
        pass
    images, start = 0, time.perf_counter()
    for _ in range(epochs):
        for x, _ in loader:
            images += x.shape[0]
    return images / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--weft', required=True, help='the weft CLI (for im2rec)')
    ap.add_argument('--bench', required=True, help='weft_bench')
    ap.add_argument('--images', type=int, default=256)
    ap.add_argument('--epochs', type=int, default=3)
    ap.add_argument('--threads', type=int, nargs='+', default=[1, 2])
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='weft_bench_image_iter_')
    try:
        root = os.path.join(tmp, 'tree')
        write_tree(root, a.images)
        rec = pack(a.weft, root, os.path.join(tmp, 'images'))
        weft = weft_rates(a.bench, rec)
        print('%-8s %22s %22s %8s' % ('threads', 'weft images/s (/thr)', 'torch images/s (/wkr)',
                                       'ratio'))
        for n in a.threads:
            t = torch_rate(root, n, a.epochs)
            w = weft.get(n, float('nan'))
            print('%-8d %12.0f (%7.0f) %12.0f (%7.0f) %8.2f' % (n, w, w / n, t, t / n, w / t))
    finally:
        shutil.rmtree(tmp)


if __name__ == '__main__':
    sys.exit(main())
