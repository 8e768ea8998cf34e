// LSTM language-model layer time, forward + backward, for the comparison
// with PyTorch's nn.LSTM (bench/bench_lstm.sh runs both, interleaved). A
// plain harness (own main, target weft_bench_lstm) timing the fused RNN op:
//   mode lstm, 2 layers, state_size 512, input 512, seq 35, batch 32,
//   float32, training mode (OpContext::is_train), state outputs on;
//   "fwd" = RNN, "bwd" = _backward_RNN with head gradients for output,
//   hy and cy, both through the backend Invoke picks ("dnnl", oneDNN's
//   sgemm, when weft is built with oneDNN; else "cpu", OpenBLAS), both
//   through weft::Invoke with preallocated outputs, waiting for them.
// Each iteration runs the forward, then the backward (which takes the
// forward's buffers, as in training); prints one line per pass,
// "weft | <pass> | <median ms> | <min ms>", over --iters iterations after
// --warmup ones.
//
// Usage: weft_bench_lstm [--iters N] [--warmup W]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "weft/imperative.h"
#include "weft/runtime.h"

namespace weft {
namespace {

const Context kCpu = Context::CPU(0);
constexpr int64_t kLayers = 2, kHidden = 512, kInput = 512, kSeq = 35, kBatch = 32;

NDArray Random(const Shape& s, float lo, float hi, std::mt19937* rng) {
  NDArray a(s, kCpu, DType::kFloat32, &Runtime::Global());
  std::vector<float> v(static_cast<size_t>(s.Size()));
  std::uniform_real_distribution<float> d(lo, hi);
  for (float& x : v) x = d(*rng);
  a.CopyFromHost(v.data(), v.size() * sizeof(float));
  return a;
}

std::pair<double, double> MedianMin(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms[0]};
}

int Main(int argc, char** argv) {
  int iters = 10, warmup = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--iters"))
      iters = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--warmup"))
      warmup = std::atoi(argv[i + 1]);
  }
  std::mt19937 rng(7);
  const int64_t g = 4, h = kHidden;
  const int64_t psize = g * h * (kInput + h + 2) + (kLayers - 1) * g * h * (h + h + 2);
  const float k = 1.0f / std::sqrt(static_cast<float>(h));
  std::vector<NDArray> in = {
      Random({kSeq, kBatch, kInput}, -1, 1, &rng), Random({psize}, -k, k, &rng),
      Random({kLayers, kBatch, h}, -1, 1, &rng), Random({kLayers, kBatch, h}, -1, 1, &rng)};
  const StringMap params = {{"mode", "lstm"},
                            {"state_size", std::to_string(h)},
                            {"num_layers", std::to_string(kLayers)},
                            {"state_outputs", "True"}};
  InvokeOptions train;
  train.is_train = true;
  std::vector<NDArray> out;
  Invoke(&Runtime::Global(), "RNN", in, params, &out, train);
  for (auto& o : out) o.WaitToRead();
  std::vector<NDArray> bin = in;
  for (const auto& o : out) bin.push_back(Random(o.shape(), -1, 1, &rng));
  std::vector<NDArray> grads;
  Invoke(&Runtime::Global(), "_backward_RNN", bin, params, &grads, train);
  for (auto& o : grads) o.WaitToRead();

  auto now = [] { return std::chrono::steady_clock::now(); };
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::vector<double> tf, tb, tt;
  for (int i = 0; i < warmup + iters; ++i) {
    auto t0 = now();
    Invoke(&Runtime::Global(), "RNN", in, params, &out, train);
    for (auto& o : out) o.WaitToRead();
    auto t1 = now();
    Invoke(&Runtime::Global(), "_backward_RNN", bin, params, &grads, train);
    for (auto& o : grads) o.WaitToRead();
    auto t2 = now();
    if (i < warmup) continue;
    tf.push_back(ms(t0, t1));
    tb.push_back(ms(t1, t2));
    tt.push_back(ms(t0, t2));
  }
  auto fwd = MedianMin(tf), bwd = MedianMin(tb), both = MedianMin(tt);
  std::printf("weft backend: %s\n",
              Runtime::Global().kernels().Find("RNN", DeviceType::kCPU)->backend.c_str());
  std::printf("weft | fwd | %.3f | %.3f\n", fwd.first, fwd.second);
  std::printf("weft | bwd | %.3f | %.3f\n", bwd.first, bwd.second);
  std::printf("weft | fwd+bwd | %.3f | %.3f\n", both.first, both.second);
  return 0;
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) { return weft::Main(argc, argv); }
