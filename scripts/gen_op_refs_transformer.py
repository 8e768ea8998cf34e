#!/usr/bin/python3
"""PyTorch references for MXNet 1.9's interleaved self-attention matmuls
(_contrib_interleaved_matmul_selfatt_qk / _valatt) in the format of
tests/util/op_refs.h.

Run with Debian's interpreter (python3-torch 1.13, numpy):
    /usr/bin/python3 scripts/gen_op_refs_transformer.py [substring ...]
Writes tests/data/op_refs/<op>_<case>.json. The references follow the
reshape/transpose recipe of MXNet's operator documentation: qkv (L, B, E*3)
viewed as (L, B, heads, 3, D); q, k, v moved to (B*heads, L, D); qk =
(q / sqrt(D)) k^T; valatt = attention v moved back to (L, B, heads*D)
(MXNet's kernels; its documentation's transpose_b=True for valatt is a
slip). encdec: queries (Lq, B, heads*D) and keys_values (Lk, B, heads*2*D)
with [k, v] blocks per head.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_op_refs import rand, run_cases, write_case  # noqa: E402


def split(qkv, heads, which, parts=3):
    L, B, E = qkv.shape
    t = qkv.reshape(L, B, heads, parts, E // (parts * heads))[:, :, :, which, :]
    return t.permute(1, 2, 0, 3).reshape(B * heads, L, -1)


def merge(out, B, heads):
    """(B*heads, L, D) -> (L, B, heads*D)."""
    L = out.shape[1]
    return out.reshape(B, heads, L, -1).permute(2, 0, 1, 3).reshape(L, B, -1)


def qk(qkv, heads):
    q, k = split(qkv, heads, 0), split(qkv, heads, 1)
    return (q / math.sqrt(q.shape[-1])) @ k.transpose(1, 2)


def valatt(qkv, att, heads):
    L, B, E3 = qkv.shape
    return merge(att @ split(qkv, heads, 2), B, heads)


def selfatt_cases():
    for case, (L, B, heads, D) in (("l5b2h3", (5, 2, 3, 2)), ("l4b1h1", (4, 1, 1, 3))):
        qkv = rand(L, B, heads * 3 * D)
        write_case("_contrib_interleaved_matmul_selfatt_qk", case, [qkv], {"heads": heads},
                   lambda x, h=heads: qk(x, h))
        att = rand(B * heads, L, L, lo=0, hi=1)
        write_case("_contrib_interleaved_matmul_selfatt_valatt", case, [qkv, att], {"heads": heads},
                   lambda x, a, h=heads: valatt(x, a, h))


def encdec_qk(q, kv, heads):
    qh, k = split(q, heads, 0, parts=1), split(kv, heads, 0, parts=2)
    return (qh / math.sqrt(qh.shape[-1])) @ k.transpose(1, 2)


def encdec_valatt(kv, att, heads):
    return merge(att @ split(kv, heads, 1, parts=2), kv.shape[1], heads)


def encdec_cases():
    for case, (Lq, Lk, B, heads, D) in (("q3k5b2h2", (3, 5, 2, 2, 3)), ("q4k2b1h1", (4, 2, 1, 1, 2))):
        q, kv = rand(Lq, B, heads * D), rand(Lk, B, heads * 2 * D)
        write_case("_contrib_interleaved_matmul_encdec_qk", case, [q, kv], {"heads": heads},
                   lambda a, b, h=heads: encdec_qk(a, b, h))
        att = rand(B * heads, Lq, Lk, lo=0, hi=1)
        write_case("_contrib_interleaved_matmul_encdec_valatt", case, [kv, att], {"heads": heads},
                   lambda a, b, h=heads: encdec_valatt(a, b, h))


CASES = [selfatt_cases, encdec_cases]

if __name__ == "__main__":
    run_cases(CASES)
