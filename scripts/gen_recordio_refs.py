#!/usr/bin/env python3
"""Writes the RecordIO reference files of tests/data/recordio/.

    gen_recordio_refs.py [OUT_DIR]      (default: tests/data/recordio next to this script)

Pure Python 3 (struct only; no MXNet, no NumPy). It writes records the way
MXNet 1.9.1 does, following two sources:
  - dmlc-core's RecordIOWriter::WriteRecord (src/recordio.cc), which MXNet's
    MXRecordIO.write calls: magic 0xced7230a, lrecord = cflag << 29 | length,
    the payload split where it holds the magic at a 4-byte-aligned offset
    (the magic dropped; cflag 1 first part, 2 middle, 3 last, 0 unsplit), zero
    padding of the end to a multiple of 4;
  - python/mxnet/recordio.py: MXIndexedRecordIO.write_idx (".idx" lines
    "%s\\t%d\\n" % (str(key), tell())) and pack(IRHeader(flag, label, id, id2), s)
    (struct 'IfQQ'; a scalar label sets flag 0, a label list sets flag to its
    length, label to 0 and puts the float32 labels before s).

The records are built by the small functions below; tests/core/io/recordio_test.cc
builds the same records with the same rules, writes them with Weft and compares the
bytes with these files. The three .rec files were also checked once against
dmlc-core itself (commit 5295de9: its RecordIOWriter wrote the same payloads to the
same bytes, and its RecordIOReader read them back). Output (deterministic, a few KiB):
  magic.rec                 the magic at every offset 0..7 of payloads, repeated and at
                            the end, empty and 1..3-byte records (no index)
  indexed.rec, indexed.idx  write_idx with unordered, large and negative integer keys
  packed.rec, packed.idx    pack()ed records: scalar, vector, empty-vector labels,
                            extreme ids, a payload holding the magic
"""
import os
import struct
import sys

MAGIC = 0xCED7230A
MAGIC_BYTES = struct.pack("<I", MAGIC)
IR_FORMAT = "IfQQ"  # recordio.py's _IR_FORMAT (native order; little endian here)


def filler(n, seed):
    """n bytes that never hold the magic: an arithmetic progression of step 7."""
    return bytes((seed * 31 + 7 * i + 1) % 256 for i in range(n))


def magic_records():
    recs = [b""]
    for off in range(8):
        for tail in (0, 1, 5):
            recs.append(filler(off, off) + MAGIC_BYTES + filler(tail, tail + 3))
    recs += [
        MAGIC_BYTES,
        MAGIC_BYTES * 3,
        filler(4, 1) + MAGIC_BYTES + filler(4, 2) + MAGIC_BYTES + filler(3, 3),
        MAGIC_BYTES + filler(2, 4) + MAGIC_BYTES,
        b"",
        filler(1, 5),
        filler(2, 6),
        filler(3, 7),
    ]
    return recs


def indexed_records():
    """(key, payload) pairs in writing order."""
    return [
        (5, b"record_5"),
        (0, b""),
        (12, filler(10, 12)),
        (3, filler(3, 3) + MAGIC_BYTES + filler(1, 1)),
        (7, filler(8, 7) + MAGIC_BYTES),
        (100000000000, b"big key"),
        (-2, b"negative key"),
    ]


def packed_records():
    """(key, (flag, label, id, id2), payload); label a float or a list."""
    return [
        (0, (0, 3.0, 1, 0), b"jpeg-bytes"),
        (1, (0, [1.0, 2.5, -4.0], 2, 0), filler(5, 1)),
        (2, (7, 0.5, 2**64 - 1, 2**63), b""),
        (3, (0, [], 9, 1), b"x"),
        (4, (0, [6.0], 10, 0), MAGIC_BYTES + filler(6, 2)),
        (5, (0, -1.25, 11, 0), filler(4, 3) + MAGIC_BYTES),
    ]


def encode_record(buf):
    """dmlc::RecordIOWriter::WriteRecord."""
    assert len(buf) < (1 << 29)
    out = bytearray()

    def part(cflag, data):
        out.extend(MAGIC_BYTES)
        out.extend(struct.pack("<I", (cflag << 29) | len(data)))
        out.extend(data)

    start = 0
    for i in range(0, len(buf) // 4 * 4, 4):
        if buf[i:i + 4] == MAGIC_BYTES:
            part(1 if start == 0 else 2, buf[start:i])
            start = i + 4
    part(3 if start != 0 else 0, buf[start:])
    out.extend(b"\0" * ((4 - len(out) % 4) % 4))
    return bytes(out)


def pack(header, s):
    """recordio.pack."""
    flag, label, id_, id2 = header
    if isinstance(label, (int, float)):
        flag = 0
    else:
        labels = [float(x) for x in label]
        flag, label = len(labels), 0
        s = struct.pack("<%df" % len(labels), *labels) + s
    return struct.pack(IR_FORMAT, flag, label, id_, id2) + s


class Writer:
    """MXRecordIO / MXIndexedRecordIO opened with 'w'."""

    def __init__(self, rec_path, idx_path=None):
        self.rec = open(rec_path, "wb")
        self.idx = open(idx_path, "w", newline="\n") if idx_path else None
        self.pos = 0

    def write(self, buf):
        data = encode_record(buf)
        self.rec.write(data)
        self.pos += len(data)

    def write_idx(self, key, buf):
        pos = self.pos
        self.write(buf)
        self.idx.write("%s\t%d\n" % (str(key), pos))

    def close(self):
        self.rec.close()
        if self.idx:
            self.idx.close()


def main():
    assert sys.byteorder == "little" and struct.calcsize(IR_FORMAT) == 24
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "tests", "data", "recordio")
    os.makedirs(out, exist_ok=True)
    w = Writer(os.path.join(out, "magic.rec"))
    for r in magic_records():
        w.write(r)
    w.close()
    w = Writer(os.path.join(out, "indexed.rec"), os.path.join(out, "indexed.idx"))
    for key, r in indexed_records():
        w.write_idx(key, r)
    w.close()
    w = Writer(os.path.join(out, "packed.rec"), os.path.join(out, "packed.idx"))
    for key, header, payload in packed_records():
        w.write_idx(key, pack(header, payload))
    w.close()
    for name in sorted(os.listdir(out)):
        print("%-12s %5d bytes" % (name, os.path.getsize(os.path.join(out, name))))


if __name__ == "__main__":
    main()
