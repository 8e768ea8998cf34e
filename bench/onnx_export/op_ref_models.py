"""One-node models of the detection references in tests/data/op_refs
(bench/bench_onnx_export.sh): for every _contrib_box_nms and
_contrib_MultiBoxDetection case (NumPy references written from MXNet's code
by scripts/gen_op_refs_vision.py), writes OUT/<case>/symbol.json (the node
"op" on inputs in0, in1, ...), OUT/<case>/inN.npy and the expected output
OUT/<case>/ref/op_output.npy (float32), and prints "<case> in0=FILE,..."
per case.

  python3 op_ref_models.py tests/data/op_refs OUT
"""
import glob
import json
import os
import sys

import numpy as np


def write_case(path, out):
    d = json.load(open(path))
    case = os.path.join(out, os.path.basename(path)[:-len(".json")])
    os.makedirs(os.path.join(case, "ref"), exist_ok=True)
    names = ["in%d" % i for i in range(len(d["inputs"]))]
    nodes = [{"op": "null", "name": n, "inputs": []} for n in names]
    nodes.append({"op": d["op"], "name": "op", "attrs": d["params"],
                  "inputs": [[i, 0, 0] for i in range(len(names))]})
    with open(os.path.join(case, "symbol.json"), "w") as f:
        json.dump({"nodes": nodes, "arg_nodes": list(range(len(names))),
                   "heads": [[len(names), 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}, f)
    pairs = []
    for n, a in zip(names, d["inputs"]):
        file = os.path.join(case, n + ".npy")
        np.save(file, np.array(a["data"], np.float32).reshape(a["shape"]))
        pairs.append("%s=%s" % (n, file))
    want = d["outputs"][0]
    np.save(os.path.join(case, "ref", "op_output.npy"),
            np.array(want["data"], np.float32).reshape(want["shape"]))
    print(os.path.basename(case), ",".join(pairs))


def main():
    refs, out = sys.argv[1], sys.argv[2]
    for op in ("_contrib_box_nms", "_contrib_MultiBoxDetection"):
        for path in sorted(glob.glob(os.path.join(refs, op + "_*.json"))):
            write_case(path, out)


if __name__ == "__main__":
    main()
