// CPU kernels of InstanceNorm, L2Normalization and their gradients
// (semantics in core/src/op/nn_norm_inst.cc). Both reduce over groups laid
// out as (outer, red, inner): element (o, r, i) at (o*red + r)*inner + i,
// one group per (o, i). Groups are independent and split over threads;
// sums are accumulated in double.
#include <cmath>
#include <string>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// ------------------------------------------------------------- InstanceNorm

// InstanceNorm's eps, decoded once per node (ParamValues::Decoded).
struct InstanceNormParams {
  double eps = 1e-3;
  static InstanceNormParams Decode(const ParamValues& p) { return {p.GetFloat("eps")}; }
};

// Mean and biased variance of the contiguous slice x[0, m).
template <typename T>
void SliceStats(const T* x, int64_t m, double* mean, double* var) {
  double s = 0;
  for (int64_t i = 0; i < m; ++i) s += x[i];
  const double mu = s / static_cast<double>(m);
  double v = 0;
  for (int64_t i = 0; i < m; ++i) v += (x[i] - mu) * (x[i] - mu);
  *mean = mu;
  *var = v / static_cast<double>(m);
}

void InstanceNormCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape& s = in[0].shape;
  const int64_t N = s[0], C = s[1], M = s.ProdRange(2, s.ndim());
  const double eps = attrs.params.Decoded<InstanceNormParams>().eps;
  DispatchFloat(in[0].dtype, "InstanceNorm", [&](auto t) {
    using T = decltype(t);
    const T *x = in[0].data<T>(), *gamma = in[1].data<T>(), *beta = in[2].data<T>();
    T* y = out[0].data<T>();
#pragma omp parallel for schedule(static) if (N * C * M >= kParallelGrain)
    for (int64_t nc = 0; nc < N * C; ++nc) {
      double mean, var;
      SliceStats(x + nc * M, M, &mean, &var);
      const double scale = gamma[nc % C] / std::sqrt(var + eps);
      const T a = static_cast<T>(scale), b = static_cast<T>(beta[nc % C] - mean * scale);
      const T* xp = x + nc * M;
      T* yp = y + nc * M;
      for (int64_t i = 0; i < M; ++i) Store(req[0], &yp[i], a * xp[i] + b);
    }
  });
}

void InstanceNormBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                             const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const Shape& s = in[1].shape;
  const int64_t N = s[0], C = s[1], M = s.ProdRange(2, s.ndim());
  const double eps = attrs.params.Decoded<InstanceNormParams>().eps;
  DispatchFloat(in[0].dtype, "_backward_InstanceNorm", [&](auto t) {
    using T = decltype(t);
    const T *dy = in[0].data<T>(), *x = in[1].data<T>(), *gamma = in[2].data<T>();
    T *dx = out[0].data<T>(), *dgamma = out[1].data<T>(), *dbeta = out[2].data<T>();
    // Per channel, the sums over the batch of sum(dy) and sum(dy * xhat).
#pragma omp parallel for schedule(static) if (N * C * M >= kParallelGrain)
    for (int64_t c = 0; c < C; ++c) {
      double sum_dy_all = 0, sum_dyx_all = 0;
      for (int64_t n = 0; n < N; ++n) {
        const int64_t nc = n * C + c;
        const T* xp = x + nc * M;
        const T* dp = dy + nc * M;
        double mean, var;
        SliceStats(xp, M, &mean, &var);
        const double invstd = 1.0 / std::sqrt(var + eps);
        double sdy = 0, sdyx = 0;
        for (int64_t i = 0; i < M; ++i) {
          sdy += dp[i];
          sdyx += dp[i] * (xp[i] - mean);
        }
        sdyx *= invstd;
        sum_dy_all += sdy;
        sum_dyx_all += sdyx;
        if (req[0] != OpReq::kNull) {
          const double m = static_cast<double>(M), k = gamma[c] * invstd;
          const T tk = static_cast<T>(k), t1 = static_cast<T>(-k * invstd * sdyx / m),
                  t0 = static_cast<T>(k * (-sdy / m + mean * invstd * sdyx / m));
          T* dxp = dx + nc * M;
          for (int64_t i = 0; i < M; ++i) Store(req[0], &dxp[i], tk * dp[i] + t1 * xp[i] + t0);
        }
      }
      Store(req[1], &dgamma[c], static_cast<T>(sum_dyx_all));
      Store(req[2], &dbeta[c], static_cast<T>(sum_dy_all));
    }
  });
}

// ---------------------------------------------------------- L2Normalization

struct L2Geom {
  int64_t outer = 1, red = 1, inner = 1;
  double eps = 1e-10;
};

// L2Normalization's parameters, decoded once per node (ParamValues::Decoded).
struct L2NormParams {
  std::string mode;
  double eps = 1e-10;
  static L2NormParams Decode(const ParamValues& p) {
    return {p.GetString("mode"), p.GetFloat("eps")};
  }
};

L2Geom MakeL2Geom(const ParamValues& p, const Shape& s) {
  const L2NormParams& q = p.Decoded<L2NormParams>();
  L2Geom g;
  const std::string& mode = q.mode;
  g.eps = q.eps;
  const int nd = s.ndim();
  if (mode == "instance") {
    g.outer = s[0];
    g.red = s.ProdRange(1, nd);
  } else if (mode == "channel") {
    g.outer = s[0];
    g.red = s[1];
    g.inner = s.ProdRange(2, nd);
  } else {  // spatial
    g.outer = s[0] * s[1];
    g.red = s.ProdRange(2, nd);
  }
  return g;
}

// The norm sqrt(sum x^2 + eps) of group (o, i).
template <typename T>
double GroupNorm(const L2Geom& g, const T* x, int64_t o, int64_t i) {
  double s = 0;
  for (int64_t r = 0; r < g.red; ++r) {
    const double v = x[(o * g.red + r) * g.inner + i];
    s += v * v;
  }
  return std::sqrt(s + g.eps);
}

void L2NormCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const L2Geom g = MakeL2Geom(attrs.params, in[0].shape);
  DispatchFloat(in[0].dtype, "L2Normalization", [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
#pragma omp parallel for schedule(static) if (g.outer * g.red * g.inner >= kParallelGrain)
    for (int64_t oi = 0; oi < g.outer * g.inner; ++oi) {
      const int64_t o = oi / g.inner, i = oi % g.inner;
      const T inv = static_cast<T>(1.0 / GroupNorm(g, x, o, i));
      for (int64_t r = 0; r < g.red; ++r) {
        const int64_t k = (o * g.red + r) * g.inner + i;
        Store(req[0], &y[k], x[k] * inv);
      }
    }
  });
}

void L2NormBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const L2Geom g = MakeL2Geom(attrs.params, in[1].shape);
  DispatchFloat(in[0].dtype, "_backward_L2Normalization", [&](auto t) {
    using T = decltype(t);
    const T *dy = in[0].data<T>(), *x = in[1].data<T>();
    T* dx = out[0].data<T>();
#pragma omp parallel for schedule(static) if (g.outer * g.red * g.inner >= kParallelGrain)
    for (int64_t oi = 0; oi < g.outer * g.inner; ++oi) {
      const int64_t o = oi / g.inner, i = oi % g.inner;
      const double inv = 1.0 / GroupNorm(g, x, o, i);
      double dot = 0;  // sum(dy * y)
      for (int64_t r = 0; r < g.red; ++r) {
        const int64_t k = (o * g.red + r) * g.inner + i;
        dot += dy[k] * x[k] * inv;
      }
      for (int64_t r = 0; r < g.red; ++r) {
        const int64_t k = (o * g.red + r) * g.inner + i;
        Store(req[0], &dx[k], static_cast<T>((dy[k] - x[k] * inv * dot) * inv));
      }
    }
  });
}

}  // namespace

void RegisterNNNormInstCpu(KernelRegistry* reg) {
  reg->Add("InstanceNorm", DeviceType::kCPU, {"cpu", 0, InstanceNormCpu, true});
  reg->Add("_backward_InstanceNorm", DeviceType::kCPU, {"cpu", 0, InstanceNormBackwardCpu, true});
  reg->Add("L2Normalization", DeviceType::kCPU, {"cpu", 0, L2NormCpu, true});
  reg->Add("_backward_L2Normalization", DeviceType::kCPU, {"cpu", 0, L2NormBackwardCpu, true});
}

}  // namespace cpu
}  // namespace weft
