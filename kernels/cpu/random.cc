// CPU kernels of the random sampling ops (float32/float64 outputs;
// _random_randint int32/int64, _sample_multinomial indices any arithmetic
// dtype).
//
// Draws sequentially from the context's std::mt19937_64 (OpContext::rng)
// while holding its mutex, so a given seed yields the same values whatever
// the thread. Uniform samples are drawn in double and kept strictly below
// `high` after rounding to the output dtype.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/index_util.h"
#include "weft/dtype.h"
#include "weft/mutex.h"
#include "weft/runtime.h"

namespace weft {
namespace cpu {

namespace {

RandomState* Rng(const OpContext& octx, const char* op) {
  if (!octx.rng)
    Fail(StatusCode::kInternal, "operator ", op, ": no random state in the op context");
  return octx.rng;
}

// The samplers' parameters, decoded once per node (ParamValues::Decoded).
struct UniformParams {
  double low = 0, high = 1;
  static UniformParams Decode(const ParamValues& p) {
    return {p.GetFloat("low"), p.GetFloat("high")};
  }
};
struct NormalParams {
  double loc = 0, scale = 1;
  static NormalParams Decode(const ParamValues& p) {
    return {p.GetFloat("loc"), p.GetFloat("scale")};
  }
};
struct LamParams {  // exponential's rate, poisson's mean
  double lam = 1;
  static LamParams Decode(const ParamValues& p) { return {p.GetFloat("lam")}; }
};
struct GammaParams {
  double alpha = 1, beta = 1;
  static GammaParams Decode(const ParamValues& p) {
    return {p.GetFloat("alpha"), p.GetFloat("beta")};
  }
};
struct RandIntParams {
  int64_t low = 0, high = 1;
  static RandIntParams Decode(const ParamValues& p) { return {p.GetInt("low"), p.GetInt("high")}; }
};

void Uniform(const OpContext& octx, const NodeAttrs& attrs, const std::vector<TBlob>&,
             const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const UniformParams& up = attrs.params.Decoded<UniformParams>();
  const double low = up.low, high = up.high;
  RandomState* rng = Rng(octx, "_random_uniform");
  DispatchFloat(out[0].dtype, "_random_uniform", [&](auto t) {
    using T = decltype(t);
    T* y = out[0].data<T>();
    const int64_t n = out[0].Size();
    const T hi = static_cast<T>(high);
    const T below = std::nextafter(hi, static_cast<T>(low));
    std::uniform_real_distribution<double> dist(low, high);
    weft::MutexLock lock(&rng->mu);
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
  const NormalParams& np = attrs.params.Decoded<NormalParams>();
  const double loc = np.loc, scale = np.scale;
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
    weft::MutexLock lock(&rng->mu);
    for (int64_t i = 0; i < n; ++i) Store(req[0], &y[i], dist(rng->engine));
  });
}

// Fills out[0] (float32/float64) with draws of `dist` under the state's lock.
template <typename MakeDist>
void Fill(const OpContext& octx, const char* op, OpReq req, const TBlob& out, MakeDist make) {
  if (req == OpReq::kNull) return;
  RandomState* rng = Rng(octx, op);
  DispatchFloat(out.dtype, op, [&](auto t) {
    using T = decltype(t);
    T* y = out.data<T>();
    auto dist = make();
    weft::MutexLock lock(&rng->mu);
    for (int64_t i = 0; i < out.Size(); ++i) Store(req, &y[i], static_cast<T>(dist(rng->engine)));
  });
}

void Exponential(const OpContext& octx, const NodeAttrs& attrs, const std::vector<TBlob>&,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const double lam = attrs.params.Decoded<LamParams>().lam;
  Fill(octx, "_random_exponential", req[0], out[0],
       [&] { return std::exponential_distribution<double>(lam); });
}

void Gamma(const OpContext& octx, const NodeAttrs& attrs, const std::vector<TBlob>&,
           const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const GammaParams& gp = attrs.params.Decoded<GammaParams>();
  const double a = gp.alpha, b = gp.beta;
  Fill(octx, "_random_gamma", req[0], out[0],
       [&] { return std::gamma_distribution<double>(a, b); });
}

void Poisson(const OpContext& octx, const NodeAttrs& attrs, const std::vector<TBlob>&,
             const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const double lam = attrs.params.Decoded<LamParams>().lam;
  if (lam == 0) {  // std::poisson_distribution needs a positive mean
    Fill(octx, "_random_poisson", req[0], out[0],
         [] { return [](std::mt19937_64&) { return 0.0; }; });
    return;
  }
  Fill(octx, "_random_poisson", req[0], out[0],
       [&] { return std::poisson_distribution<int64_t>(lam); });
}

void RandInt(const OpContext& octx, const NodeAttrs& attrs, const std::vector<TBlob>&,
             const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const RandIntParams& rp = attrs.params.Decoded<RandIntParams>();
  const int64_t low = rp.low, high = rp.high;
  RandomState* rng = Rng(octx, "_random_randint");
  auto draw = [&](auto* y) {
    using T = std::remove_pointer_t<decltype(y)>;
    std::uniform_int_distribution<int64_t> dist(low, high - 1);
    weft::MutexLock lock(&rng->mu);
    for (int64_t i = 0; i < out[0].Size(); ++i)
      Store(req[0], &y[i], static_cast<T>(dist(rng->engine)));
  };
  if (out[0].dtype == DType::kInt64)
    draw(out[0].data<int64_t>());
  else
    draw(out[0].data<int32_t>());
}

// in: data (..., k) probabilities; out: indices[, log-probabilities].
void Multinomial(const OpContext& octx, const NodeAttrs&, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const Shape& ds = in[0].shape;
  const int64_t k = ds[ds.ndim() - 1], dists = in[0].Size() / k;
  const int64_t draws = out[0].Size() / dists;
  RandomState* rng = Rng(octx, "_sample_multinomial");
  DispatchFloat(in[0].dtype, "_sample_multinomial", [&](auto t) {
    using T = decltype(t);
    DispatchNumeric(out[0].dtype, "_sample_multinomial", [&](auto i) {
      using I = decltype(i);
      const T* p = in[0].data<T>();
      std::uniform_real_distribution<double> u(0.0, 1.0);
      std::vector<double> cdf(k);
      weft::MutexLock lock(&rng->mu);
      for (int64_t d = 0; d < dists; ++d) {
        const T* row = p + d * k;
        double acc = 0;
        for (int64_t c = 0; c < k; ++c) cdf[c] = acc += static_cast<double>(row[c]);
        for (int64_t s = 0; s < draws; ++s) {
          const double r = u(rng->engine) * acc;
          int64_t c = std::upper_bound(cdf.begin(), cdf.end(), r) - cdf.begin();
          if (c >= k) c = k - 1;
          while (c > 0 && row[c] <= 0) --c;  // never pick a zero-probability tail
          const int64_t o = d * draws + s;
          Store(req[0], &out[0].data<I>()[o], static_cast<I>(c));
          if (out.size() > 1) Store(req[1], &out[1].data<T>()[o], static_cast<T>(std::log(row[c])));
        }
      }
    });
  });
}

// in: ograd (of the log-probabilities), data, sample; out: data's gradient.
void MultinomialBackward(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                         const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape& ds = in[1].shape;
  const int64_t k = ds[ds.ndim() - 1], dists = in[1].Size() / k, draws = in[0].Size() / dists;
  if (req[0] != OpReq::kAdd) std::memset(out[0].dptr, 0, out[0].Bytes());
  DispatchFloat(in[1].dtype, "_backward_sample_multinomial", [&](auto t) {
    using T = decltype(t);
    DispatchNumeric(in[2].dtype, "_backward_sample_multinomial", [&](auto i) {
      using I = decltype(i);
      const T* g = in[0].data<T>();
      const T* p = in[1].data<T>();
      const I* smp = in[2].data<I>();
      T* dx = out[0].data<T>();
      ParallelFor(dists, [&](int64_t d) {
        for (int64_t s = 0; s < draws; ++s) {
          const int64_t c = d * k + static_cast<int64_t>(smp[d * draws + s]);
          dx[c] += g[d * draws + s] / p[c];
        }
      });
    });
  });
}

void Shuffle(const OpContext& octx, const NodeAttrs&, const std::vector<TBlob>& in,
             const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const int64_t n = in[0].shape.ndim() == 0 ? 1 : in[0].shape[0];
  const size_t row = in[0].Bytes() / std::max<int64_t>(n, 1);
  std::vector<int64_t> perm(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  {
    RandomState* rng = Rng(octx, "_shuffle");
    weft::MutexLock lock(&rng->mu);
    for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates
      std::uniform_int_distribution<int64_t> pick(0, i);
      std::swap(perm[i], perm[pick(rng->engine)]);
    }
  }
  const char* src = static_cast<const char*>(in[0].dptr);
  std::vector<char> copy;
  if (in[0].dptr == out[0].dptr) {  // in place
    copy.assign(src, src + in[0].Bytes());
    src = copy.data();
  }
  if (req[0] == OpReq::kAdd) {
    DispatchFloat(out[0].dtype, "_shuffle", [&](auto t) {
      using T = decltype(t);
      const int64_t w = static_cast<int64_t>(row / sizeof(T));
      const T* x = reinterpret_cast<const T*>(src);
      T* y = out[0].data<T>();
      ParallelFor(n, [&](int64_t i) {
        for (int64_t j = 0; j < w; ++j) y[i * w + j] += x[perm[i] * w + j];
      });
    });
    return;
  }
  char* dst = static_cast<char*>(out[0].dptr);
  ParallelFor(n, [&](int64_t i) { std::memcpy(dst + i * row, src + perm[i] * row, row); });
}

}  // namespace

void RegisterRandomCpu(KernelRegistry* reg) {
  reg->Add("_random_uniform", DeviceType::kCPU, {"cpu", 0, Uniform, true});
  reg->Add("_random_normal", DeviceType::kCPU, {"cpu", 0, Normal, true});
  reg->Add("_random_exponential", DeviceType::kCPU, {"cpu", 0, Exponential, true});
  reg->Add("_random_gamma", DeviceType::kCPU, {"cpu", 0, Gamma, true});
  reg->Add("_random_poisson", DeviceType::kCPU, {"cpu", 0, Poisson, true});
  reg->Add("_random_randint", DeviceType::kCPU, {"cpu", 0, RandInt, true});
  reg->Add("_sample_multinomial", DeviceType::kCPU, {"cpu", 0, Multinomial, true});
  reg->Add("_backward_sample_multinomial", DeviceType::kCPU, {"cpu", 0, MultinomialBackward, true});
  reg->Add("_shuffle", DeviceType::kCPU, {"cpu", 0, Shuffle, true});
}

}  // namespace cpu
}  // namespace weft
