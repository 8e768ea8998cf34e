// ONNX Runtime side of bench/bench_infer_peers.sh: times session.run of DIR/MODEL.onnx on
// the stored input of a batch and checks the output against PyTorch's.
//
//   NODE_PATH=<dir>/node_modules node ort_bench.js DIR MODEL BATCH [--iters N] [--warmup W]
//                                                  [--threads T]
// CPU execution provider, graphOptimizationLevel 'all', intraOpNumThreads T,
// interOpNumThreads 1. Prints one line as weft_bench_infer does (engine=ort); exits 1
// when max_abs_diff / max|expected| > 1e-4.
'use strict';
const ort = require('onnxruntime-node');

const { loadNpy } = require('./npy');

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 ? parseInt(process.argv[i + 1], 10) : def;
}

async function main() {
  const [dir, model, batchText] = process.argv.slice(2, 5);
  if (!batchText) throw new Error('usage: ort_bench.js DIR MODEL BATCH [--iters N] [--warmup W] [--threads T]');
  const batch = parseInt(batchText, 10);
  const iters = Math.max(1, arg('--iters', 20));
  const warmup = arg('--warmup', 3);
  const threads = arg('--threads', 1);
  const stem = `${dir}/${model}-b${batch}`;
  const input = loadNpy(`${stem}-input.npy`);
  const want = loadNpy(`${stem}-output.npy`).data;
  const session = await ort.InferenceSession.create(`${dir}/${model}.onnx`, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
  });
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', input.data, input.shape) };
  const ms = [];
  let got = null;
  for (let i = 0; i < warmup + iters; ++i) {
    const t0 = performance.now();
    const out = await session.run(feeds);
    got = out[session.outputNames[0]].data;
    const t1 = performance.now();
    if (i >= warmup) ms.push(t1 - t0);
  }
  ms.sort((a, b) => a - b);
  if (got.length !== want.length) throw new Error(`output has ${got.length} values, PyTorch's ${want.length}`);
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < got.length; ++i) {
    diff = Math.max(diff, Math.abs(got[i] - want[i]));
    scale = Math.max(scale, Math.abs(want[i]));
  }
  const rel = diff / Math.max(scale, 1e-30);
  console.log(`infer engine=ort model=${model} batch=${batch} threads=${threads} ` +
    `median_ms=${ms[ms.length >> 1].toFixed(4)} min_ms=${ms[0].toFixed(4)} ` +
    `max_abs_diff=${diff.toExponential(2)} rel_diff=${rel.toExponential(2)}`);
  if (!(rel <= 1e-4)) {
    console.error(`ort_bench: ${model} b${batch} differs from PyTorch: max abs diff ${diff} ` +
      `(${rel} relative) > 1e-4`);
    process.exit(1);
  }
}

main().catch((e) => { console.error(`ort_bench: ${e.stack || e}`); process.exit(2); });
