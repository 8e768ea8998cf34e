"""MXNet's NDArray-list file format (".params", mx.nd.save), written with struct.

The layout is the one MXNet documents (list magic 0x112, V2 records),
independent of weft's C++ writer. Used by scripts/gen_io_testdata.py and
bench/infer_peers/export_models.py.
"""
import struct

import numpy as np


class BFloat16:
    """A bfloat16 array (MXNet dtype flag 12; numpy has no such dtype): float32
    values that bfloat16 holds exactly, stored as their upper 16 bits."""

    def __init__(self, values):
        bits = np.asarray(values, dtype=np.float32).view(np.uint32)
        assert not (bits & 0xFFFF).any(), "values must be exact in bfloat16"
        self.bits = (bits >> 16).astype("<u2")
        self.shape, self.ndim = self.bits.shape, self.bits.ndim


def v2_record(a, dev_type=1, dev_id=0):
    """One dense array as a V2 record (little endian, C order)."""
    flags = {np.float32: 0, np.float64: 1, np.float16: 2, np.uint8: 3, np.int32: 4, np.int8: 5,
             np.int64: 6}
    out = struct.pack("<Iii", 0xF993FAC9, 0, a.ndim)
    out += struct.pack("<%dq" % a.ndim, *a.shape)
    if isinstance(a, BFloat16):
        return out + struct.pack("<iii", dev_type, dev_id, 12) + a.bits.tobytes(order="C")
    out += struct.pack("<iii", dev_type, dev_id, flags[a.dtype.type])
    return out + a.astype(a.dtype.newbyteorder("<")).tobytes(order="C")


def params_bytes(arrays):
    """A named list [(name, ndarray), ...] as the bytes of a .params file."""
    blob = struct.pack("<QQQ", 0x112, 0, len(arrays))
    for _, a in arrays:
        blob += v2_record(a)
    blob += struct.pack("<Q", len(arrays))
    for name, _ in arrays:
        blob += struct.pack("<Q", len(name)) + name.encode()
    return blob


def write_params(path, arrays):
    with open(path, "wb") as f:
        f.write(params_bytes(arrays))
