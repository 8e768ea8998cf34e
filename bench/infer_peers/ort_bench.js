// ONNX Runtime side of bench/bench_infer_peers.sh: times session.run of DIR/MODEL.onnx on
// the stored input of a batch and checks the output against PyTorch's.
//
//   NODE_PATH=<dir>/node_modules node ort_bench.js DIR MODEL BATCH [--iters N] [--warmup W]
//                                                  [--threads T] [--onnx FILE] [--engine NAME]
//                                                  [--tolerance T] [--profile]
// CPU execution provider, graphOptimizationLevel 'all', intraOpNumThreads T,
// interOpNumThreads 1. Prints one line as weft_bench_infer does (engine=ort, or NAME), with
// top1_agree: the share of rows whose arg max equals PyTorch's float32 one; exits 1 when
// max_abs_diff / max|expected| > T (default 1e-4). --onnx times FILE instead of DIR/MODEL.onnx
// (make_qdq.py's int8 model, with --engine ort-int8). --profile runs ORT's profiler over the
// timed runs and prints to stderr how many kernel runs each operator type had (QLinearConv,
// QGemm, ... show that ORT fused a QDQ model into integer kernels; the profile is deleted).
'use strict';
const fs = require('fs');
const os = require('os');
const ort = require('onnxruntime-node');

const { loadNpy } = require('./npy');

function text(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : def;
}

function arg(name, def) {
  return parseInt(text(name, String(def)), 10);
}

// Kernel runs per operator type in ORT's profile (JSON trace events of category "Node").
function opCounts(file) {
  const counts = {};
  for (const e of JSON.parse(fs.readFileSync(file, 'utf8'))) {
    if (e.cat === 'Node' && e.name.endsWith('_kernel_time') && e.args && e.args.op_name) {
      counts[e.args.op_name] = (counts[e.args.op_name] || 0) + 1;
    }
  }
  return counts;
}

function top1Agreement(got, want, batch) {
  const cols = got.length / batch;
  let same = 0;
  for (let r = 0; r < batch; ++r) {
    let a = 0;
    let b = 0;
    for (let c = 1; c < cols; ++c) {
      if (got[r * cols + c] > got[r * cols + a]) a = c;
      if (want[r * cols + c] > want[r * cols + b]) b = c;
    }
    same += a === b ? 1 : 0;
  }
  return same / batch;
}

async function main() {
  const [dir, model, batchText] = process.argv.slice(2, 5);
  if (!batchText) {
    throw new Error('usage: ort_bench.js DIR MODEL BATCH [--iters N] [--warmup W] [--threads T] ' +
      '[--onnx FILE] [--engine NAME] [--tolerance T] [--profile]');
  }
  const batch = parseInt(batchText, 10);
  const iters = Math.max(1, arg('--iters', 20));
  const warmup = arg('--warmup', 3);
  const threads = arg('--threads', 1);
  const engine = text('--engine', 'ort');
  const tolerance = parseFloat(text('--tolerance', '1e-4'));
  const profile = process.argv.includes('--profile');
  const stem = `${dir}/${model}-b${batch}`;
  const input = loadNpy(`${stem}-input.npy`);
  const want = loadNpy(`${stem}-output.npy`).data;
  const options = {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
  };
  const prefix = `${os.tmpdir()}/ort_bench_${process.pid}`;
  if (profile) Object.assign(options, { enableProfiling: true, profileFilePrefix: prefix });
  const file = text('--onnx', `${dir}/${model}.onnx`);
  const session = await ort.InferenceSession.create(file, options);
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
  if (profile) {
    session.endProfiling();
    const trace = fs.readdirSync(os.tmpdir()).find((f) => f.startsWith(`ort_bench_${process.pid}`));
    const counts = opCounts(`${os.tmpdir()}/${trace}`);
    fs.unlinkSync(`${os.tmpdir()}/${trace}`);
    console.error(`ort_bench: ${engine} ${model} b${batch} kernel runs in ${warmup + iters} runs: ` +
      Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', '));
  }
  if (got.length !== want.length) throw new Error(`output has ${got.length} values, PyTorch's ${want.length}`);
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < got.length; ++i) {
    diff = Math.max(diff, Math.abs(got[i] - want[i]));
    scale = Math.max(scale, Math.abs(want[i]));
  }
  const rel = diff / Math.max(scale, 1e-30);
  console.log(`infer engine=${engine} model=${model} batch=${batch} threads=${threads} ` +
    `median_ms=${ms[ms.length >> 1].toFixed(4)} min_ms=${ms[0].toFixed(4)} ` +
    `max_abs_diff=${diff.toExponential(2)} rel_diff=${rel.toExponential(2)} ` +
    `top1_agree=${top1Agreement(got, want, batch).toFixed(3)}`);
  if (!(rel <= tolerance)) {
    console.error(`ort_bench: ${model} b${batch} differs from PyTorch: max abs diff ${diff} ` +
      `(${rel} relative) > ${tolerance}`);
    process.exit(1);
  }
}

main().catch((e) => { console.error(`ort_bench: ${e.stack || e}`); process.exit(2); });
