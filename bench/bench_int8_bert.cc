// BERT-base-sized int8 layers, each on the preferred kernel (oneDNN when
// built) and on the reference loops (the "cpu" kernels, put first in a
// second runtime), outputs compared element by element:
// 1. one channel-wise int8 fully connected layer of the feed-forward size
//    (data (rows, 768) -> FullyConnected 3072 -> relu), quantized by
//    quant::QuantizeModel (MXNet's quantize_model_mkldnn, quantize_granularity
//    channel-wise, naive calibration on the timed input), per forward,
//    beside the float32 layer;
// 2. the int8 _sg_mkldnn_selfatt_qk and _valatt (12 heads of 64, rows
//    positions, batch 1, calibrated int8 outputs) through Invoke.
// A plain harness (its own main, built as weft_bench_int8_bert).
//
// Usage: OMP_NUM_THREADS=1 weft_bench_int8_bert [--rows R] [--iters N]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "register_kernels.h"
#include "weft/data_iter.h"
#include "weft/executor.h"
#include "weft/imperative.h"
#include "weft/quantize_model.h"
#include "weft/runtime.h"

namespace weft {
namespace {

constexpr int64_t kIn = 768, kHidden = 3072;
const char* const kOp = "_sg_mkldnn_fully_connected";

NDArray Uniform(const Shape& s, float lo, float hi, unsigned seed) {
  NDArray a(s, Context::CPU(0), DType::kFloat32, &Runtime::Global());
  float* p = static_cast<float*>(a.dptr());
  uint64_t x = seed * 2654435761u + 1;
  for (int64_t i = 0; i < a.Size(); ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    p[i] = lo + (hi - lo) * static_cast<float>(x >> 40) / static_cast<float>(1 << 24);
  }
  return a;
}

// Median milliseconds of `run` over `iters` runs after two warm-ups.
template <typename Run>
double Time(int iters, Run run) {
  std::vector<double> ms;
  for (int i = 0; i < iters + 2; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    const auto t1 = std::chrono::steady_clock::now();
    if (i >= 2) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

double TimeForward(Executor* ex, int iters) {
  return Time(iters, [ex] {
    ex->Forward(false);
    ex->outputs()[0].WaitToRead();
  });
}

// Levels of dtype `t` (int8 or uint8) from a fixed pattern.
NDArray Levels(const Shape& s, DType t, unsigned seed) {
  NDArray a(s, Context::CPU(0), t, &Runtime::Global());
  for (int64_t i = 0; i < a.Size(); ++i) {
    const int v = static_cast<int>((i * 97 + seed * 31 + i * i * 13) % 256);
    if (t == DType::kUint8)
      static_cast<uint8_t*>(a.dptr())[i] = static_cast<uint8_t>(v);
    else
      static_cast<int8_t*>(a.dptr())[i] = static_cast<int8_t>(v - 128);
  }
  return a;
}

NDArray Scalar(float v) {
  NDArray a(Shape{1}, Context::CPU(0), DType::kFloat32, &Runtime::Global());
  static_cast<float*>(a.dptr())[0] = v;
  return a;
}

// The int8 attention ops (qk, then valatt) on `rt`, on `fast` and `ref`.
// Returns whether both runtimes' outputs are equal.
bool TimeAttention(Runtime* fast, Runtime* ref, int64_t rows, int iters) {
  const int64_t heads = 12, d = 64;
  const NDArray qkv = Levels({rows, 1, heads * 3 * d}, DType::kInt8, 1);
  const NDArray att = Levels({heads, rows, rows}, DType::kUint8, 2);
  const StringMap qk = {{"heads", "12"},
                        {"quantized", "True"},
                        {"min_calib_range", "-20"},
                        {"max_calib_range", "25"}};
  bool same = true;
  for (const bool valatt : {false, true}) {
    const std::string op = valatt ? "_sg_mkldnn_selfatt_valatt" : "_sg_mkldnn_selfatt_qk";
    std::vector<NDArray> in = {qkv};
    if (valatt) in.push_back(att);
    in.push_back(Scalar(-2.5f));
    in.push_back(Scalar(3));
    if (valatt) {
      in.push_back(Scalar(0));
      in.push_back(Scalar(1));
    }
    std::vector<NDArray> a, b;
    auto run = [&](Runtime* rt, std::vector<NDArray>* out) {
      Invoke(rt, op, in, qk, out);
      (*out)[0].WaitToRead();
    };
    const double t_fast = Time(iters, [&] { run(fast, &a); });
    const double t_ref = Time(iters, [&] { run(ref, &b); });
    const double gop = 2.0 * static_cast<double>(heads * rows * rows * d) / 1e9;
    const std::string name = valatt ? "int8 selfatt_valatt" : "int8 selfatt_qk";
    std::printf("%-28s %9.3f ms %8.1f GOP/s\n",
                (name + ", " + fast->kernels().Find(op, DeviceType::kCPU)->backend).c_str(), t_fast,
                gop / t_fast * 1e3);
    std::printf("%-28s %9.3f ms %8.1f GOP/s\n", (name + ", cpu (ref)").c_str(), t_ref,
                gop / t_ref * 1e3);
    const int8_t* pa = static_cast<const int8_t*>(a[0].dptr());
    const int8_t* pb = static_cast<const int8_t*>(b[0].dptr());
    same = same && std::equal(pa, pa + a[0].Size(), pb);
  }
  return same;
}

std::vector<float> Values(const NDArray& a) {
  const float* p = static_cast<const float*>(a.dptr());
  return std::vector<float>(p, p + a.Size());
}

int Main(int argc, char** argv) {
  int64_t rows = 128;
  int iters = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rows")) rows = std::atoll(argv[i + 1]);
    if (!std::strcmp(argv[i], "--iters")) iters = std::atoi(argv[i + 1]);
  }
  Runtime& rt = Runtime::Global();
  const Symbol net =
      Symbol::Apply(rt.ops(), "Activation",
                    {Symbol::Apply(rt.ops(), "FullyConnected", {Symbol::CreateVariable("data")},
                                   {{"num_hidden", std::to_string(kHidden)}}, "fc")},
                    {{"act_type", "relu"}}, "relu");
  const NDArray data = Uniform({rows, kIn}, -2, 2, 1);
  NDArray w = Uniform({kHidden, kIn}, -0.05f, 0.05f, 2);
  float* pw = static_cast<float*>(w.dptr());
  for (int64_t c = 0; c < kHidden; ++c)  // channels of different magnitudes
    for (int64_t j = 0; j < kIn; ++j) pw[c * kIn + j] *= 1.f + static_cast<float>(c % 5);
  const std::map<std::string, NDArray> params = {{"fc_weight", w},
                                                 {"fc_bias", Uniform({kHidden}, -0.1f, 0.1f, 3)}};
  NDArrayIter it({{"data", data}}, {}, static_cast<int>(rows), false);
  quant::QuantizeOptions qo;
  qo.fuse = true;
  qo.quantize_granularity = "channel-wise";
  quant::CalibOptions co;
  co.calib_mode = "naive";
  const quant::QuantizedModel q = quant::QuantizeModel(&rt, net, params, {}, &it, qo, co);

  // A runtime whose preferred kernels for the int8 ops are the reference loops.
  Runtime ref_rt;
  InstallBuiltinKernels(&ref_rt);
  for (const char* op : {kOp, "_sg_mkldnn_selfatt_qk", "_sg_mkldnn_selfatt_valatt"}) {
    Kernel ref = *ref_rt.kernels().FindBackend(op, DeviceType::kCPU, "cpu");
    ref.backend = "cpu_first";
    ref.priority = 1000;
    ref_rt.mutable_kernels()->Add(op, DeviceType::kCPU, ref);
  }

  auto bind = [&](Runtime* r, const Symbol& s, std::map<std::string, NDArray> args) {
    args["data"] = data;
    return Executor::BindByName(r, s, Context::CPU(0), args, {}, {}, {});
  };
  auto fp32 = bind(&rt, net, params);
  auto fast = bind(&rt, q.symbol, q.args);
  auto slow = bind(&ref_rt, q.symbol, q.args);
  const std::string fast_backend = rt.kernels().Find(kOp, DeviceType::kCPU)->backend;
  const double gop = 2.0 * static_cast<double>(rows * kIn * kHidden) / 1e9;
  std::printf("rows %lld x %lld -> %lld (relu), OMP threads %d, median of %d\n",
              static_cast<long long>(rows), static_cast<long long>(kIn),
              static_cast<long long>(kHidden), omp_get_max_threads(), iters);
  const double t_fp32 = TimeForward(fp32.get(), iters);
  const double t_fast = TimeForward(fast.get(), iters);
  const double t_slow = TimeForward(slow.get(), iters);
  std::printf("%-28s %9.3f ms %8.1f GOP/s\n", "float32 FullyConnected+relu", t_fp32,
              gop / t_fp32 * 1e3);
  std::printf("%-28s %9.3f ms %8.1f GOP/s\n", ("int8 channel-wise, " + fast_backend).c_str(),
              t_fast, gop / t_fast * 1e3);
  std::printf("%-28s %9.3f ms %8.1f GOP/s\n", "int8 channel-wise, cpu (ref)", t_slow,
              gop / t_slow * 1e3);
  const std::vector<float> a = Values(fast->outputs()[0]), b = Values(slow->outputs()[0]),
                           f = Values(fp32->outputs()[0]);
  size_t differ = 0;
  double top = 0, err = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    differ += a[i] != b[i];
    top = std::max(top, static_cast<double>(std::fabs(f[i])));
    err = std::max(err, static_cast<double>(std::fabs(a[i] - f[i])));
  }
  std::printf(
      "int8 outputs differing between the two kernels: %zu of %zu; int8 vs float32: max "
      "|diff| %.4g (max |y| %.4g)\n",
      differ, a.size(), err, top);
  const bool attention_same = TimeAttention(&rt, &ref_rt, rows, iters);
  std::printf("int8 attention outputs equal between the two kernels: %s\n",
              attention_same ? "yes" : "no");
  return differ == 0 && attention_same ? 0 : 1;
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) { return weft::Main(argc, argv); }
