"""How far Weft's float32 outputs are from exact, with and without the inference passes.

    float64_reference.py DIR MODEL BATCH OUT.npy [OUT.npy ...]

Rebuilds MODEL with export_models.build, loads DIR/MODEL.pt, runs it in float64 (weights and
the stored input of the batch widened) and prints, for each OUT.npy (a Weft output of the same
model and input, e.g. `weft run` with WEFT_EXEC_OPTIMIZE=0 and =1), its relative difference
(max |out - ref| / max |ref|) from the float64 result, and the float32 PyTorch output's
(DIR/MODEL-bBATCH-output.npy) for scale. Used by bench/accuracy_f64.sh; not a test.
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_models import build  # noqa: E402


def rel(a, ref):
    return float(np.abs(a.astype(np.float64) - ref).max() / max(np.abs(ref).max(), 1e-300))


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    d, model_name, batch, outs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    torch.set_num_threads(os.cpu_count() or 1)
    model = build(model_name)
    model.load_state_dict(torch.load(os.path.join(d, model_name + ".pt")))
    model = model.eval().double()
    stem = os.path.join(d, "%s-b%d" % (model_name, batch))
    x = torch.from_numpy(np.load(stem + "-input.npy"))
    if x.is_floating_point():
        x = x.double()
    with torch.inference_mode():
        ref = model(x).numpy()
    line = "%s b%d: torch-float32 %.3g" % (model_name, batch, rel(np.load(stem + "-output.npy"), ref))
    for o in outs:
        line += "  %s %.3g" % (os.path.basename(o), rel(np.load(o), ref))
    print(line)


if __name__ == "__main__":
    main()
