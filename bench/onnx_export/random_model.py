"""Random weights and a random input for an MXNet symbol file that has none
(bench/bench_onnx_export.sh): reads `weft inspect FILE --shape data=... --json`
on stdin and writes OUT.params (arg:/aux: names, scripts/mxnet_params.py) and
OUT-data.npy. Weights uniform in [-0.5, 0.5) scaled by 1/sqrt(fan-in), moving
variances in [0.5, 1.5), seeded, so that deep nets keep finite, non-saturated
outputs.

  weft inspect S.json --shape data=1,3,224,224 --json | python3 random_model.py OUT
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import mxnet_params  # noqa: E402


def main():
    out = sys.argv[1]
    info = json.load(sys.stdin)
    rng = np.random.default_rng(47)
    arrays = []
    for a in info["arguments"]:
        name, shape = a["name"], tuple(a["shape"])
        if name == "data":
            np.save(out + "-data.npy", rng.uniform(0, 1, shape).astype(np.float32))
            continue
        if name.endswith("label"):
            continue
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        v = rng.uniform(-0.5, 0.5, shape) / np.sqrt(max(fan_in, 1)) * 2
        arrays.append(("arg:" + name, v.astype(np.float32)))
    for a in info["auxiliary_states"]:
        name, shape = a["name"], tuple(a["shape"])
        lo, hi = (0.5, 1.5) if name.endswith("var") else (-0.1, 0.1)
        arrays.append(("aux:" + name, rng.uniform(lo, hi, shape).astype(np.float32)))
    mxnet_params.write_params(out + ".params", arrays)


if __name__ == "__main__":
    main()
