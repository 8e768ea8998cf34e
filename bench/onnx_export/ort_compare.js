// ONNX Runtime side of bench/bench_onnx_export.sh: runs an exported model on
// .npy inputs and compares each output with Weft's (`weft run`'s .npy files).
//
//   NODE_PATH=<dir>/node_modules node ort_compare.js MODEL.onnx OUT_DIR NAME=IN.npy...
// For every graph output O, OUT_DIR/O.npy is Weft's value. Prints one line per
// output, "O max_abs=.. rel=.. equal=yes|no" (rel = max_abs / max(|weft|, 1e-30);
// equal when rel <= 1e-4), and exits 1 when an output differs or cannot run.
'use strict';
const ort = require('onnxruntime-node');

const { loadNpy } = require('../infer_peers/npy');

async function main() {
  const [model, outDir, ...inputs] = process.argv.slice(2);
  if (!outDir) throw new Error('usage: ort_compare.js MODEL.onnx OUT_DIR NAME=IN.npy...');
  const session = await ort.InferenceSession.create(model, { executionProviders: ['cpu'] });
  const feeds = {};
  for (const a of inputs) {
    const eq = a.indexOf('=');
    const x = loadNpy(a.slice(eq + 1));
    feeds[a.slice(0, eq)] = new ort.Tensor('float32', x.data, x.shape);
  }
  const got = await session.run(feeds);
  let ok = true;
  for (const name of session.outputNames) {
    const want = loadNpy(`${outDir}/${name}.npy`);
    const have = got[name].data;
    if (have.length !== want.data.length) {
      console.log(`${name} size ${have.length} vs weft ${want.data.length} equal=no`);
      ok = false;
      continue;
    }
    let maxAbs = 0;
    let maxRef = 0;
    for (let i = 0; i < have.length; ++i) {
      maxAbs = Math.max(maxAbs, Math.abs(have[i] - want.data[i]));
      maxRef = Math.max(maxRef, Math.abs(want.data[i]));
    }
    const rel = maxAbs / Math.max(maxRef, 1e-30);
    const equal = rel <= 1e-4;
    ok = ok && equal;
    console.log(`${name} max_abs=${maxAbs.toExponential(2)} rel=${rel.toExponential(2)} ` +
                `equal=${equal ? 'yes' : 'no'}`);
  }
  process.exit(ok ? 0 : 1);
}

main().catch((e) => {
  console.log(`error: ${e.message.split('\n')[0]}`);
  process.exit(1);
});
