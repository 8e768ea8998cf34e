// One channel-wise int8 fully connected layer of BERT-base's feed-forward
// size (data (rows, 768) -> FullyConnected 3072 -> relu), quantized by
// quant::QuantizeModel (MXNet's quantize_model_mkldnn, quantize_granularity
// channel-wise, naive calibration on the timed input), timed per forward
// on the preferred kernel (oneDNN's inner product when built) and on the
// reference loop (the "cpu" kernel, put first in a second runtime), beside
// the float32 layer; the two int8 outputs are compared element by element.
// A plain harness (its own main, built as weft_bench_sg_fc_int8).
//
// Usage: OMP_NUM_THREADS=1 weft_bench_sg_fc_int8 [--rows R] [--iters N]
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

// Median milliseconds per forward over `iters` runs after two warm-ups.
double TimeForward(Executor* ex, int iters) {
  std::vector<double> ms;
  for (int i = 0; i < iters + 2; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    ex->Forward(false);
    ex->outputs()[0].WaitToRead();
    const auto t1 = std::chrono::steady_clock::now();
    if (i >= 2) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
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

  // A runtime whose preferred kernel for the layer is the reference loop.
  Runtime ref_rt;
  InstallBuiltinKernels(&ref_rt);
  Kernel ref = *ref_rt.kernels().FindBackend(kOp, DeviceType::kCPU, "cpu");
  ref.backend = "cpu_first";
  ref.priority = 1000;
  ref_rt.mutable_kernels()->Add(kOp, DeviceType::kCPU, ref);

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
  return differ == 0 ? 0 : 1;
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) { return weft::Main(argc, argv); }
