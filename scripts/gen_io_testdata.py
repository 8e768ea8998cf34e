#!/usr/bin/python3
"""Generates the small reference files under tests/data/npy and tests/data/params.

Run once with Debian's interpreter (python3-numpy):
    /usr/bin/python3 scripts/gen_io_testdata.py
The .npy files are written by numpy itself (numpy.save / numpy.lib.format),
so the weft reader and writer are checked against an independent producer.
The .params file is written with struct from the layout MXNet documents
(list magic 0x112, V2 records; scripts/mxnet_params.py), independently of
weft's C++ writer.
"""
import os

import numpy as np

from mxnet_params import BFloat16, write_params

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NPY = os.path.join(ROOT, "tests", "data", "npy")
PARAMS = os.path.join(ROOT, "tests", "data", "params")


def npy_files():
    os.makedirs(NPY, exist_ok=True)
    # Values i * 0.5 - 3 (or i for integer types) in C order.
    cases = {
        "f32_2x3.npy": np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5 - 3,
        "f64_4.npy": np.arange(4, dtype=np.float64) * 0.5 - 3,
        "i32_3x1x2.npy": np.arange(6, dtype=np.int32).reshape(3, 1, 2) - 2,
        "i64_2x2.npy": np.array([[-(2**40), 7], [0, 2**40 + 1]], dtype=np.int64),
        "u8_5.npy": np.array([0, 1, 127, 128, 255], dtype=np.uint8),
        "f32_scalar.npy": np.array(2.5, dtype=np.float32),
        "f16_2x3.npy": np.array([[-2.5, 0.1, 65504], [6e-8, -0.0, 1 / 3]], dtype=np.float16),
        "i8_4.npy": np.array([-128, -1, 0, 127], dtype=np.int8),
    }
    for name, a in cases.items():
        np.save(os.path.join(NPY, name), a)
    # Version 2.0 header.
    with open(os.path.join(NPY, "f32_2x3_v2.npy"), "wb") as f:
        np.lib.format.write_array(f, cases["f32_2x3.npy"], version=(2, 0))
    # Rejected: Fortran order, big endian, an unsupported dtype.
    np.save(os.path.join(NPY, "fortran.npy"), np.asfortranarray(cases["f32_2x3.npy"]))
    np.save(os.path.join(NPY, "big_endian.npy"), np.arange(3, dtype=">f4"))
    np.save(os.path.join(NPY, "complex.npy"), np.arange(3, dtype=np.complex64))


def params_files():
    os.makedirs(PARAMS, exist_ok=True)
    arrays = [
        ("arg:fc_weight", np.arange(6, dtype=np.float32).reshape(3, 2) / 4),
        ("arg:fc_bias", np.array([1.5, -2.0, 0.25], dtype=np.float32)),
        ("aux:bn_moving_var", np.array([1.0, 2.0], dtype=np.float64)),
        ("arg:ids", np.array([[1, -2], [3, 2**33]], dtype=np.int64)),
        ("aux:count", np.array([7, 8, 9], dtype=np.int32)),
        ("arg:pixels", np.array([0, 255, 128, 1], dtype=np.uint8).reshape(2, 1, 2)),
    ]
    write_params(os.path.join(PARAMS, "v2_mixed.params"), arrays)
    reduced = [
        ("arg:w_half", np.array([[0.5, -65504], [6e-8, 1 / 3]], dtype=np.float16)),
        ("arg:w_bf16", BFloat16([1.5, -2.0, 0.25, 3.140625, 2.0**100, -(2.0**-126)])),
        ("arg:q", np.array([-128, 5, 127], dtype=np.int8)),
    ]
    write_params(os.path.join(PARAMS, "v2_reduced.params"), reduced)


if __name__ == "__main__":
    npy_files()
    params_files()
