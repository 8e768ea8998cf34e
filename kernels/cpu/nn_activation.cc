// CPU kernels of Activation, LeakyReLU and their gradients: elementwise maps
// through cpu::Map (parallel, vectorisable), GELU's forward through a loop
// with AVX2 clones (GeluBlock), prelu per channel.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/fast_math.h"
#include "dropout_mask.h"
#include "shared_params.h"
#include "weft/dtype.h"
#include "weft/mutex.h"
#include "weft/runtime.h"

namespace weft {
namespace cpu {

namespace {

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluLambda = 1.0507009873554804934193349852946;
constexpr double kInvSqrt2 = 0.70710678118654752440084436210485;
constexpr double kInvSqrt2Pi = 0.39894228040143267793994605993438;

// GELU (erf form) of n values, y = or += under `add`: a leaf for
// WEFT_SIMD_CLONES, so FastErf runs on AVX2 vectors where the CPU has them.
// `y` may equal `x` (elementwise, so `omp simd` holds).
template <typename T>
WEFT_SIMD_CLONES void GeluBlock(const T* x, T* y, int64_t n, bool add) {
  const T k = static_cast<T>(kInvSqrt2);
  if (add) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] += T(0.5) * x[i] * (T(1) + FastErf(x[i] * k));
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = T(0.5) * x[i] * (T(1) + FastErf(x[i] * k));
  }
}

template <typename T>
void Gelu(OpReq req, const T* x, T* y, int64_t n) {
  if (req == OpReq::kNull) return;
  constexpr int64_t kBlock = 2048;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t b = 0; b < blocks; ++b)
    GeluBlock(x + b * kBlock, y + b * kBlock, std::min(kBlock, n - b * kBlock), req == OpReq::kAdd);
}

void ActivationForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const std::string& act = attrs.params.Decoded<ActParams>().act;
  DispatchFloat(in[0].dtype, "Activation", [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    const int64_t n = out[0].Size();
    if (act == "relu") {
      Map(req[0], x, x, y, n, [](T a, T) { return a > T(0) ? a : T(0); });
    } else if (act == "sigmoid") {
      Map(req[0], x, x, y, n, [](T a, T) { return T(1) / (T(1) + std::exp(-a)); });
    } else if (act == "tanh") {
      Map(req[0], x, x, y, n, [](T a, T) { return std::tanh(a); });
    } else if (act == "softrelu") {
      // log(1 + e^x) computed stably: max(x, 0) + log1p(e^-|x|).
      Map(req[0], x, x, y, n,
          [](T a, T) { return (a > T(0) ? a : T(0)) + std::log1p(std::exp(-std::fabs(a))); });
    } else {
      Map(req[0], x, x, y, n, [](T a, T) { return a / (T(1) + std::fabs(a)); });
    }
  });
}

// in: ograd, data, output.
void ActivationBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                        const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const std::string& act = attrs.params.Decoded<ActParams>().act;
  DispatchFloat(in[0].dtype, "_backward_Activation", [&](auto t) {
    using T = decltype(t);
    const T* dy = in[0].data<T>();
    const T* x = in[1].data<T>();
    const T* y = in[2].data<T>();
    T* dx = out[0].data<T>();
    const int64_t n = out[0].Size();
    if (act == "relu") {
      Map(req[0], dy, y, dx, n, [](T g, T o) { return o > T(0) ? g : T(0); });
    } else if (act == "sigmoid") {
      Map(req[0], dy, y, dx, n, [](T g, T o) { return g * o * (T(1) - o); });
    } else if (act == "tanh") {
      Map(req[0], dy, y, dx, n, [](T g, T o) { return g * (T(1) - o * o); });
    } else if (act == "softrelu") {
      Map(req[0], dy, x, dx, n, [](T g, T a) { return g / (T(1) + std::exp(-a)); });
    } else {
      Map(req[0], dy, x, dx, n, [](T g, T a) {
        const T d = T(1) + std::fabs(a);
        return g / (d * d);
      });
    }
  });
}

// Channel view of data for prelu: (outer, C, inner) with C = axis 1.
void PreluDims(const Shape& s, int64_t gsize, int64_t* outer, int64_t* c, int64_t* inner) {
  if (s.ndim() < 2 || gsize == 1) {
    *outer = 1;
    *c = 1;
    *inner = s.Size();
    return;
  }
  *outer = s[0];
  *c = s[1];
  *inner = s.ProdRange(2, s.ndim());
}

void LeakyForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const LeakyParams& lp = attrs.params.Decoded<LeakyParams>();
  const std::string& act = lp.act;
  DispatchFloat(in[0].dtype, "LeakyReLU", [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    const int64_t n = out[0].Size();
    if (act == "leaky" || act == "rrelu") {
      const T s = static_cast<T>(lp.slope);
      Map(req[0], x, x, y, n, [s](T a, T) { return a > T(0) ? a : s * a; });
    } else if (act == "elu") {
      const T s = static_cast<T>(lp.slope);
      Map(req[0], x, x, y, n, [s](T a, T) { return a > T(0) ? a : s * std::expm1(a); });
    } else if (act == "selu") {
      Map(req[0], x, x, y, n, [](T a, T) {
        return static_cast<T>(kSeluLambda) *
               (a > T(0) ? a : static_cast<T>(kSeluAlpha) * std::expm1(a));
      });
    } else if (act == "gelu") {
      Gelu(req[0], x, y, n);
    } else {  // prelu
      const T* g = in[1].data<T>();
      int64_t outer, c, inner;
      PreluDims(in[0].shape, in[1].Size(), &outer, &c, &inner);
      const bool shared = in[1].Size() == 1;
      ParallelFor(outer * c, [&](int64_t oc) {
        const T gv = shared ? g[0] : g[oc % c];
        const int64_t base = oc * inner;
        for (int64_t i = 0; i < inner; ++i) {
          const T a = x[base + i];
          Store(req[0], &y[base + i], a > T(0) ? a : gv * a);
        }
      });
    }
  });
}

// in: ograd, data[, gamma]; out: data_grad[, gamma_grad].
void LeakyBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const LeakyParams& lp = attrs.params.Decoded<LeakyParams>();
  const std::string& act = lp.act;
  DispatchFloat(in[0].dtype, "_backward_LeakyReLU", [&](auto t) {
    using T = decltype(t);
    const T* dy = in[0].data<T>();
    const T* x = in[1].data<T>();
    T* dx = out[0].data<T>();
    const int64_t n = out[0].Size();
    if (act == "leaky" || act == "rrelu") {
      const T s = static_cast<T>(lp.slope);
      Map(req[0], dy, x, dx, n, [s](T g, T a) { return a > T(0) ? g : s * g; });
    } else if (act == "elu") {
      const T s = static_cast<T>(lp.slope);
      Map(req[0], dy, x, dx, n, [s](T g, T a) { return a > T(0) ? g : g * s * std::exp(a); });
    } else if (act == "selu") {
      Map(req[0], dy, x, dx, n, [](T g, T a) {
        return static_cast<T>(kSeluLambda) * g *
               (a > T(0) ? T(1) : static_cast<T>(kSeluAlpha) * std::exp(a));
      });
    } else if (act == "gelu") {
      Map(req[0], dy, x, dx, n, [](T g, T a) {
        const T cdf = T(0.5) * (T(1) + FastErf(a * static_cast<T>(kInvSqrt2)));
        const T pdf = static_cast<T>(kInvSqrt2Pi) * FastExp(T(-0.5) * a * a);
        return g * (cdf + a * pdf);
      });
    } else {  // prelu
      const T* gam = in[2].data<T>();
      int64_t outer, c, inner;
      PreluDims(in[1].shape, in[2].Size(), &outer, &c, &inner);
      const bool shared = in[2].Size() == 1;
      if (req[0] != OpReq::kNull) {
        ParallelFor(outer * c, [&](int64_t oc) {
          const T gv = shared ? gam[0] : gam[oc % c];
          const int64_t base = oc * inner;
          for (int64_t i = 0; i < inner; ++i) {
            const T g = dy[base + i];
            Store(req[0], &dx[base + i], x[base + i] > T(0) ? g : gv * g);
          }
        });
      }
      if (req[1] != OpReq::kNull) {
        T* dg = out[1].data<T>();
        const int64_t gn = in[2].Size();
        std::vector<T> acc(static_cast<size_t>(gn), T(0));
        for (int64_t oc = 0; oc < outer * c; ++oc) {
          const int64_t base = oc * inner;
          T s = T(0);
          for (int64_t i = 0; i < inner; ++i) {
            const T a = x[base + i];
            s += a > T(0) ? T(0) : dy[base + i] * a;
          }
          acc[shared ? 0 : oc % c] += s;
        }
        for (int64_t j = 0; j < gn; ++j) Store(req[1], &dg[j], acc[j]);
      }
    }
  });
}

// out: output, mask. The mask is drawn (under the RNG lock) on the shape
// with `axes` collapsed to 1 and broadcast over them.
void DropoutForward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const DropoutParams& dp = attrs.params.Decoded<DropoutParams>();
  const double prob = dp.p;
  const bool active = (ctx.is_train || dp.always) && prob > 0;
  const Shape& s = in[0].shape;
  const int nd = s.ndim();
  DispatchFloat(in[0].dtype, "Dropout", [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    T* m = out[1].data<T>();
    const int64_t n = s.Size();
    if (!active) {
      Map(req[0], x, x, y, n, [](T a, T) { return a; });
      Map(req[1], x, x, m, n, [](T, T) { return T(1); });
      return;
    }
    const Shape ms = DropoutMaskShape(attrs.params, s);
    std::vector<T> small(static_cast<size_t>(ms.Size()));
    const T scale = prob >= 1 ? T(0) : static_cast<T>(1.0 / (1.0 - prob));
    if (!ctx.rng) Fail(StatusCode::kInternal, "operator Dropout: no random state");
    {
      weft::MutexLock lock(&ctx.rng->mu);
      for (auto& v : small) {
        const double u = static_cast<double>(ctx.rng->engine() >> 11) * (1.0 / 9007199254740992.0);
        v = u < prob ? T(0) : scale;
      }
    }
    // Strides of the mask, 0 along collapsed axes.
    std::vector<int64_t> mstride(nd, 0);
    int64_t st = 1;
    for (int i = nd - 1; i >= 0; --i) {
      mstride[i] = ms[i] == 1 && s[i] != 1 ? 0 : st;
      st *= ms[i];
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t rem = i, mi = 0;
      for (int k = nd - 1; k >= 0; --k) {
        mi += (rem % s[k]) * mstride[k];
        rem /= s[k];
      }
      const T mv = small[mi];
      Store(req[1], &m[i], mv);
      Store(req[0], &y[i], x[i] * mv);
    }
  });
}

void DropoutBackward(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                     const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  DispatchFloat(in[0].dtype, "_backward_Dropout", [&](auto t) {
    using T = decltype(t);
    Map(req[0], in[0].data<T>(), in[1].data<T>(), out[0].data<T>(), out[0].Size(),
        [](T g, T mk) { return g * mk; });
  });
}

}  // namespace

void RegisterNNActivationCpu(KernelRegistry* reg) {
  reg->Add("Dropout", DeviceType::kCPU, {"cpu", 0, DropoutForward, true});
  reg->Add("_backward_Dropout", DeviceType::kCPU, {"cpu", 0, DropoutBackward, true});
  reg->Add("Activation", DeviceType::kCPU, {"cpu", 0, ActivationForward, true});
  reg->Add("_backward_Activation", DeviceType::kCPU, {"cpu", 0, ActivationBackward, true});
  reg->Add("LeakyReLU", DeviceType::kCPU, {"cpu", 0, LeakyForward, true});
  reg->Add("_backward_LeakyReLU", DeviceType::kCPU, {"cpu", 0, LeakyBackward, true});
}

}  // namespace cpu
}  // namespace weft
