// CPU kernels of _random_uniform and _random_normal (float32/float64).
//
// Draws sequentially from the context's std::mt19937_64 (OpContext::rng)
// while holding its mutex, so a given seed yields the same values whatever
// the thread. Uniform samples are drawn in double and kept strictly below
// `high` after rounding to the output dtype.
#include <cmath>
#include <mutex>
#include <random>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"
#include "weft/runtime.h"

namespace weft {
namespace cpu {

namespace {

RandomState* Rng(const OpContext& octx, const char* op) {
  if (!octx.rng)
    Fail(StatusCode::kInternal, "operator ", op, ": no random state in the op context");
  return octx.rng;
}

void Uniform(const OpContext& octx, const NodeAttrs& attrs, const std::vector<TBlob>&,
             const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const double low = attrs.params.GetFloat("low"), high = attrs.params.GetFloat("high");
  RandomState* rng = Rng(octx, "_random_uniform");
  DispatchFloat(out[0].dtype, "_random_uniform", [&](auto t) {
    using T = decltype(t);
    T* y = out[0].data<T>();
    const int64_t n = out[0].Size();
    const T hi = static_cast<T>(high);
    const T below = std::nextafter(hi, static_cast<T>(low));
    std::uniform_real_distribution<double> dist(low, high);
    std::lock_guard<std::mutex> lock(rng->mu);
    for (int64_t i = 0; i < n; ++i) {
      T v = static_cast<T>(dist(rng->engine));
      if (v >= hi) v = below;
      Store(req[0], &y[i], v);
    }
  });
}

void Normal(const OpContext& octx, const NodeAttrs& attrs, const std::vector<TBlob>&,
            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const double loc = attrs.params.GetFloat("loc"), scale = attrs.params.GetFloat("scale");
  RandomState* rng = Rng(octx, "_random_normal");
  DispatchFloat(out[0].dtype, "_random_normal", [&](auto t) {
    using T = decltype(t);
    T* y = out[0].data<T>();
    const int64_t n = out[0].Size();
    if (scale == 0) {  // degenerate: std::normal_distribution needs scale > 0
      for (int64_t i = 0; i < n; ++i) Store(req[0], &y[i], static_cast<T>(loc));
      return;
    }
    std::normal_distribution<T> dist(static_cast<T>(loc), static_cast<T>(scale));
    std::lock_guard<std::mutex> lock(rng->mu);
    for (int64_t i = 0; i < n; ++i) Store(req[0], &y[i], dist(rng->engine));
  });
}

}  // namespace

void RegisterRandomCpu(KernelRegistry* reg) {
  reg->Add("_random_uniform", DeviceType::kCPU, {"cpu", 0, Uniform, true});
  reg->Add("_random_normal", DeviceType::kCPU, {"cpu", 0, Normal, true});
}

}  // namespace cpu
}  // namespace weft
