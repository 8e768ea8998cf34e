// ONNX Runtime side of bench/bench_onnx_export.sh: runs an exported model on
// .npy inputs and compares each output with Weft's (`weft run`'s .npy files).
//
//   NODE_PATH=<dir>/node_modules node ort_compare.js [--max-abs=E] MODEL.onnx OUT_DIR NAME=IN.npy...
// For every graph output O, OUT_DIR/O.npy is Weft's value. Prints one line per
// output, "O max_abs=.. rel=.. differ=N equal=yes|no" (rel = max_abs / max(|weft|,
// 1e-30); differ counts the elements more than E apart, 0 without --max-abs;
// equal when rel <= 1e-4, or with --max-abs when every element is within E),
// and exits 1 when an output differs or cannot run.
'use strict';
const ort = require('onnxruntime-node');

const { loadNpy } = require('../infer_peers/npy');

async function main() {
  const args = process.argv.slice(2);
  const flag = args.length && args[0].startsWith('--max-abs=') ? args.shift() : null;
  const maxAbsAllowed = flag === null ? null : Number(flag.slice('--max-abs='.length));
  const [model, outDir, ...inputs] = args;
  if (!outDir) throw new Error('usage: ort_compare.js [--max-abs=E] MODEL.onnx OUT_DIR NAME=IN.npy...');
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
    let differ = 0;
    for (let i = 0; i < have.length; ++i) {
      const d = Math.abs(have[i] - want.data[i]);
      maxAbs = Math.max(maxAbs, d);
      maxRef = Math.max(maxRef, Math.abs(want.data[i]));
      if (maxAbsAllowed !== null && !(d <= maxAbsAllowed)) ++differ;
    }
    const rel = maxAbs / Math.max(maxRef, 1e-30);
    const equal = maxAbsAllowed === null ? rel <= 1e-4 : differ === 0;
    ok = ok && equal;
    console.log(`${name} max_abs=${maxAbs.toExponential(2)} rel=${rel.toExponential(2)} ` +
                `differ=${differ} equal=${equal ? 'yes' : 'no'}`);
  }
  process.exit(ok ? 0 : 1);
}

main().catch((e) => {
  console.log(`error: ${e.message.split('\n')[0]}`);
  process.exit(1);
});
