// Forward and backward time of single NN operators on fixed shapes, for the
// comparison with PyTorch of issue 4. A plain harness (its own main, built as
// weft_bench_nn_ops) printing one table row per (operator, pass, backend):
//   FullyConnected  data 128x784, 512 hidden, bias
//   Convolution     1x64x56x56, 64 filters 3x3, pad 1, bias
//   Pooling         max 3x3 stride 2 pad 1 on 1x64x112x112 (ResNet's stem pool)
//   BatchNorm       training (batch statistics), 32x64x28x28, fix_gamma False
//   softmax         128x1000 along the last axis
//   LayerNorm       (32*128)x768 and 64x512 rows, axis -1 (BERT-base's and a
//                   small transformer's hidden sizes)
//   _contrib_interleaved_matmul_selfatt_qk / _valatt
//                   BERT-base's attention products, batch 8, sequence 128
// "fwd" runs the operator, "bwd" its `_backward_<op>` operator on a fixed head
// gradient (inputs as the symbolic gradient passes them), every output with
// request kWrite, in training mode (OpContext::is_train).
//
// Two timings per row, both the median of --iters runs after --warmup runs,
// with inputs and outputs allocated once before the loop:
//   invoke  weft::Invoke with the preallocated outputs, waiting for them: the
//           path of an imperative user and of the C ABI (parameter parsing,
//           shape inference, engine push, highest-priority kernel). Printed
//           only for the backend Invoke picks.
//   kernel  the backend's kernel function called directly on the blobs
//           (KernelRegistry::FindBackend), i.e. without Invoke's overhead.
//           The timing loop itself runs as one engine operation, on the
//           worker thread Invoke's kernels run on: a kernel called from the
//           main thread would start a second OpenMP team, and two teams on
//           few cores slow each other (libgomp stops spinning when it
//           manages more threads than cores).
// bench/bench_nn_ops_torch.py prints the same rows for PyTorch;
// bench/bench_nn_ops.sh runs both with 1 and 2 threads and joins them.
//
// Usage: weft_bench_nn_ops [--iters N] [--warmup W] [--filter OPNAME]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "weft/engine.h"
#include "weft/imperative.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {
namespace {

const Context kCpu = Context::CPU(0);

NDArray Random(const Shape& s, float lo, float hi, std::mt19937* rng) {
  NDArray a(s, kCpu, DType::kFloat32, &Runtime::Global());
  std::vector<float> v(static_cast<size_t>(s.Size()));
  std::uniform_real_distribution<float> d(lo, hi);
  for (float& x : v) x = d(*rng);
  a.CopyFromHost(v.data(), v.size() * sizeof(float));
  return a;
}

// One timed operator call: `op` on `inputs` into preallocated `outputs`.
struct Call {
  std::string op;
  StringMap params;
  std::vector<NDArray> inputs;
  std::vector<NDArray> outputs;
};

struct Case {
  std::string name;   // the forward operator
  std::string shape;  // printed description
  Call fwd, bwd;
};

std::vector<Shape> OutShapes(const std::string& op_name, const std::vector<NDArray>& in,
                             const StringMap& params) {
  const OpDef& op = Runtime::Global().ops().Get(op_name);
  NodeAttrs attrs;
  attrs.op = &op;
  attrs.params = ParseParams(op.name, &op.params, params);
  std::vector<Shape> in_shapes, out_shapes(static_cast<size_t>(op.NumOutputs(attrs.params)));
  for (const auto& a : in) in_shapes.push_back(a.shape());
  if (!op.infer_shape(attrs, &in_shapes, &out_shapes))
    throw Error(StatusCode::kShape, op_name + ": output shapes not inferable");
  return out_shapes;
}

// Fills call->outputs with zero-initialised arrays of the inferred shapes.
void AllocOutputs(Call* call) {
  for (const Shape& s : OutShapes(call->op, call->inputs, call->params)) {
    NDArray a(s, kCpu, DType::kFloat32, &Runtime::Global());
    std::vector<float> zeros(static_cast<size_t>(s.Size()), 0.f);
    a.CopyFromHost(zeros.data(), zeros.size() * sizeof(float));
    call->outputs.push_back(a);
  }
}

// Builds the case: the forward call, then the backward call fed with
// `bwd_inputs(fwd)` (head gradient first, as the symbolic gradient does).
Case MakeCase(const std::string& name, const std::string& shape, const StringMap& params,
              std::vector<NDArray> inputs,
              const std::function<std::vector<NDArray>(const Call& fwd)>& bwd_inputs,
              const std::string& bwd_op = "") {
  Case c;
  c.name = name;
  c.shape = shape;
  c.fwd = {name, params, std::move(inputs), {}};
  AllocOutputs(&c.fwd);
  // The backward may read the forward's outputs (softmax): compute them once.
  InvokeOptions opts;
  opts.is_train = true;
  Invoke(&Runtime::Global(), c.fwd.op, c.fwd.inputs, c.fwd.params, &c.fwd.outputs, opts);
  c.bwd = {bwd_op.empty() ? "_backward_" + name : bwd_op, params, bwd_inputs(c.fwd), {}};
  AllocOutputs(&c.bwd);
  return c;
}

std::vector<Case> Cases(const std::string& filter) {
  std::mt19937 rng(7);
  std::vector<Case> cases;
  auto want = [&](const char* op) { return filter.empty() || filter == op; };
  if (want("FullyConnected")) {
    NDArray x = Random({128, 784}, -1, 1, &rng), w = Random({512, 784}, -0.05f, 0.05f, &rng),
            b = Random({512}, -0.1f, 0.1f, &rng), dy = Random({128, 512}, -1, 1, &rng);
    cases.push_back(MakeCase("FullyConnected", "128x784 -> 512", {{"num_hidden", "512"}}, {x, w, b},
                             [&](const Call& f) {
                               return std::vector<NDArray>{dy, f.inputs[0], f.inputs[1]};
                             }));
  }
  if (want("Convolution")) {
    NDArray x = Random({1, 64, 56, 56}, -1, 1, &rng),
            w = Random({64, 64, 3, 3}, -0.05f, 0.05f, &rng), b = Random({64}, -0.1f, 0.1f, &rng),
            dy = Random({1, 64, 56, 56}, -1, 1, &rng);
    cases.push_back(MakeCase("Convolution", "1x64x56x56, 64x3x3 pad 1",
                             {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "64"}},
                             {x, w, b}, [&](const Call& f) {
                               return std::vector<NDArray>{dy, f.inputs[0], f.inputs[1]};
                             }));
  }
  if (want("Pooling")) {
    NDArray x = Random({1, 64, 112, 112}, -1, 1, &rng), dy = Random({1, 64, 56, 56}, -1, 1, &rng);
    cases.push_back(
        MakeCase("Pooling", "max 3x3/2 pad 1, 1x64x112x112",
                 {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "max"}},
                 {x}, [&](const Call& f) {
                   return std::vector<NDArray>{dy, f.inputs[0]};
                 }));
  }
  if (want("BatchNorm")) {
    NDArray x = Random({32, 64, 28, 28}, -1, 1, &rng), gamma = Random({64}, 0.5f, 1.5f, &rng),
            beta = Random({64}, -0.5f, 0.5f, &rng), mm = Random({64}, -0.1f, 0.1f, &rng),
            mv = Random({64}, 0.9f, 1.1f, &rng), dy = Random({32, 64, 28, 28}, -1, 1, &rng);
    cases.push_back(MakeCase(
        "BatchNorm", "train, 32x64x28x28", {{"fix_gamma", "False"}, {"eps", "1e-5"}},
        {x, gamma, beta, mm, mv}, [&](const Call& f) {
          return std::vector<NDArray>{dy, f.inputs[0], f.inputs[1], f.inputs[3], f.inputs[4]};
        }));
  }
  if (want("softmax")) {
    NDArray x = Random({128, 1000}, -4, 4, &rng), dy = Random({128, 1000}, -1, 1, &rng);
    cases.push_back(
        MakeCase("softmax", "128x1000, axis -1", {{"axis", "-1"}}, {x}, [&](const Call& f) {
          return std::vector<NDArray>{dy, f.outputs[0]};
        }));
  }
  if (want("LayerNorm")) {
    for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{32 * 128, 768}, {64, 512}}) {
      NDArray x = Random({rows, cols}, -2, 2, &rng), gamma = Random({cols}, 0.5f, 1.5f, &rng),
              beta = Random({cols}, -0.5f, 0.5f, &rng), dy = Random({rows, cols}, -1, 1, &rng);
      cases.push_back(
          MakeCase("LayerNorm", std::to_string(rows) + "x" + std::to_string(cols) + ", axis -1",
                   {{"axis", "-1"}, {"eps", "1e-5"}}, {x, gamma, beta}, [=](const Call& f) {
                     return std::vector<NDArray>{dy, f.inputs[0], f.inputs[1]};
                   }));
    }
  }
  if (want("_contrib_interleaved_matmul_selfatt_qk") ||
      want("_contrib_interleaved_matmul_selfatt_valatt")) {
    // BERT-base's attention at batch 8, sequence 128: qkv (128, 8, 12 * 3 * 64).
    const int64_t l = 128, b = 8, heads = 12, d = 64;
    NDArray qkv = Random({l, b, heads * 3 * d}, -1, 1, &rng),
            att = Random({b * heads, l, l}, 0, 0.02f, &rng),
            dy_att = Random({b * heads, l, l}, -1, 1, &rng),
            dy_out = Random({l, b, heads * d}, -1, 1, &rng);
    const StringMap p{{"heads", std::to_string(heads)}};
    const std::string shape = "qkv 128x8x2304, 12 heads";
    if (want("_contrib_interleaved_matmul_selfatt_qk"))
      cases.push_back(MakeCase(
          "_contrib_interleaved_matmul_selfatt_qk", shape, p, {qkv},
          [&](const Call& f) {
            return std::vector<NDArray>{dy_att, f.inputs[0]};
          },
          "_backward_interleaved_matmul_selfatt_qk"));
    if (want("_contrib_interleaved_matmul_selfatt_valatt"))
      cases.push_back(MakeCase(
          "_contrib_interleaved_matmul_selfatt_valatt", shape, p, {qkv, att},
          [&](const Call& f) {
            return std::vector<NDArray>{dy_out, f.inputs[0], f.inputs[1]};
          },
          "_backward_interleaved_matmul_selfatt_valatt"));
  }
  return cases;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename F>
double TimeMs(int warmup, int iters, F&& run) {
  std::vector<double> ms;
  for (int i = 0; i < warmup + iters; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    auto t1 = std::chrono::steady_clock::now();
    if (i >= warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return Median(ms);
}

double TimeInvoke(Call* c, int warmup, int iters) {
  InvokeOptions opts;
  opts.is_train = true;
  return TimeMs(warmup, iters, [&] {
    Invoke(&Runtime::Global(), c->op, c->inputs, c->params, &c->outputs, opts);
    for (const NDArray& o : c->outputs) o.WaitToRead();
  });
}

double TimeKernel(const Call& c, const Kernel& k, int warmup, int iters) {
  const OpDef& op = Runtime::Global().ops().Get(c.op);
  NodeAttrs attrs;
  attrs.op = &op;
  attrs.name = op.name;
  attrs.dict = c.params;
  attrs.params = ParseParams(op.name, &op.params, c.params);
  std::vector<TBlob> in, out;
  for (const NDArray& a : c.inputs) {
    a.WaitToRead();
    in.push_back(a.blob());
  }
  for (const NDArray& a : c.outputs) {
    a.WaitToWrite();
    out.push_back(a.blob());
  }
  OpContext ctx;
  ctx.ctx = kCpu;
  ctx.is_train = true;
  const std::vector<OpReq> req(out.size(), OpReq::kWrite);
  double ms = 0;
  Engine* engine = Engine::Get();
  VarHandle done = engine->NewVariable();
  engine->PushSync(
      [&](RunContext) { ms = TimeMs(warmup, iters, [&] { k.fn(ctx, attrs, in, req, out); }); },
      kCpu, {}, {done}, 0, "TimeKernel");
  engine->WaitForVar(done);
  engine->DeleteVariable({}, kCpu, done);
  return ms;
}

// Timing NaN/Inf arithmetic would mislead: every output must be finite.
void CheckFinite(const Call& c) {
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    std::vector<float> v(static_cast<size_t>(c.outputs[i].Size()));
    c.outputs[i].CopyToHost(v.data(), v.size() * sizeof(float));
    for (float x : v)
      if (!std::isfinite(x))
        throw Error(StatusCode::kInternal, c.op + ": non-finite output " + std::to_string(i));
  }
}

void Row(const Case& cs, const char* pass, Call* c, int warmup, int iters, const char* threads) {
  const KernelRegistry& reg = Runtime::Global().kernels();
  const Kernel* chosen = reg.Find(c->op, DeviceType::kCPU);
  if (!chosen) throw Error(StatusCode::kNotFound, c->op + ": no CPU kernel");
  for (const std::string& backend : reg.Backends(c->op, DeviceType::kCPU)) {
    const Kernel* k = reg.FindBackend(c->op, DeviceType::kCPU, backend);
    const bool is_chosen = k == chosen;
    char invoke[32] = "-";
    if (is_chosen) std::snprintf(invoke, sizeof(invoke), "%.4f", TimeInvoke(c, warmup, iters));
    const double kernel_ms = TimeKernel(*c, *k, warmup, iters);
    CheckFinite(*c);
    std::printf("| weft | %7s | %-14s | %-4s | %-30s | %-7s | %12s | %11.4f |\n", threads,
                cs.name.c_str(), pass, cs.shape.c_str(), backend.c_str(), invoke, kernel_ms);
    std::fflush(stdout);
  }
}

int Main(int argc, char** argv) {
  int iters = 50, warmup = 5;
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--iters" && i + 1 < argc) {
      iters = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--warmup" && i + 1 < argc) {
      warmup = std::max(0, std::atoi(argv[++i]));
    } else if (a == "--filter" && i + 1 < argc) {
      filter = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--iters N] [--warmup W] [--filter OPNAME]\n"
                   "unknown or incomplete argument '%s'\n",
                   argv[0], a.c_str());
      return 2;
    }
  }
  const char* threads = std::getenv("OMP_NUM_THREADS");
  threads = threads ? threads : "-";
  std::printf("weft nn-op bench: median of %d runs after %d warm-up, OMP_NUM_THREADS=%s\n\n", iters,
              warmup, threads);
  std::printf(
      "| impl | threads | op             | pass | shape                          | backend | "
      "invoke (ms) "
      "| kernel (ms) |\n|---|---|---|---|---|---|---|---|\n");
  std::vector<Case> cases = Cases(filter);
  if (cases.empty())
    throw Error(StatusCode::kInvalidArgument, "--filter " + filter + " matches no operator");
  for (Case& c : cases) {
    Row(c, "fwd", &c.fwd, warmup, iters, threads);
    Row(c, "bwd", &c.bwd, warmup, iters, threads);
  }
  return 0;
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) {
  try {
    return weft::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft_bench_nn_ops: %s\n", e.what());
    return 1;
  }
}
