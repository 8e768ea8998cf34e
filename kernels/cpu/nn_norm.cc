// CPU kernels of BatchNorm and _backward_BatchNorm (semantics in
// core/src/op/nn_norm.cc). The data is viewed as (outer, C, inner) around
// the channel axis; channels are independent and split over OpenMP threads.
// Statistics are accumulated in double for both float32 and float64.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/norm_util.h"
#include "nn_geometry.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// Adds sum(dy) and sum(dy * (x - m)) over x[0, n) to the two sums.
template <typename T>
void SumDyDyDev(const T* dy, const T* x, int64_t n, double m, double* sum_dy, double* sum_dy_dev) {
  double a = 0, b = 0;
  RowDySums(dy, x, n, m, &a, &b);
  *sum_dy += a;
  *sum_dy_dev += b;
}

// y (+)= a * x + b over n elements.
template <typename T>
WEFT_SIMD_CLONES void AffineLine(bool add, int64_t n, T a, const T* x, T b, T* y) {
  if (add) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] += a * x[i] + b;
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = a * x[i] + b;
  }
}

// dx (+)= k * dy + c1 * x + c0 over n elements.
template <typename T>
WEFT_SIMD_CLONES void GradLine(bool add, int64_t n, T k, const T* dy, T c1, const T* x, T c0,
                               T* dx) {
  if (add) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) dx[i] += k * dy[i] + c1 * x[i] + c0;
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) dx[i] = k * dy[i] + c1 * x[i] + c0;
  }
}

// One pass over x and dy: sums of x, x^2, dy and dy * x, in double.
template <typename T>
WEFT_SIMD_CLONES void FusedSums(const T* x, const T* dy, int64_t n, double* sums) {
  double sx = 0, sxx = 0, sd = 0, sdx = 0;
#pragma omp simd reduction(+ : sx, sxx, sd, sdx)
  for (int64_t i = 0; i < n; ++i) {
    const double a = static_cast<double>(x[i]), d = static_cast<double>(dy[i]);
    sx += a;
    sxx += a * a;
    sd += d;
    sdx += d * a;
  }
  sums[0] += sx;
  sums[1] += sxx;
  sums[2] += sd;
  sums[3] += sdx;
}

// Mean and biased variance of channel `c` (two passes, for accuracy).
template <typename T>
void ChannelStats(const BNGeom& g, const T* x, int64_t c, double* mean, double* var) {
  double s = 0;
  for (int64_t o = 0; o < g.outer; ++o) s += SumOf(x + (o * g.c + c) * g.inner, g.inner);
  const double m = s / static_cast<double>(g.Count());
  double v = 0;
  for (int64_t o = 0; o < g.outer; ++o) v += SumSqDev(x + (o * g.c + c) * g.inner, g.inner, m);
  *mean = m;
  *var = v / static_cast<double>(g.Count());
}

template <typename T>
void BNForward(const BNGeom& g, const T* x, const T* gamma, const T* beta, T* moving_mean,
               T* moving_var, const std::vector<OpReq>& req, T* y, T* mean_out, T* var_out) {
#pragma omp parallel for schedule(static) if (g.outer * g.c * g.inner >= kParallelGrain && g.c > 1)
  for (int64_t c = 0; c < g.c; ++c) {
    double mean, var;
    if (g.batch_stats) {
      ChannelStats(g, x, c, &mean, &var);
      moving_mean[c] = static_cast<T>(moving_mean[c] * g.momentum + mean * (1 - g.momentum));
      moving_var[c] = static_cast<T>(moving_var[c] * g.momentum + var * (1 - g.momentum));
    } else {
      mean = moving_mean[c];
      var = moving_var[c];
    }
    const double scale =
        (g.fix_gamma ? 1.0 : static_cast<double>(gamma[c])) / std::sqrt(var + g.eps);
    const T a = static_cast<T>(scale), b = static_cast<T>(beta[c] - mean * scale);
    if (req[0] != OpReq::kNull) {
      for (int64_t o = 0; o < g.outer; ++o) {
        const T* xp = x + (o * g.c + c) * g.inner;
        T* yp = y + (o * g.c + c) * g.inner;
        AffineLine(req[0] == OpReq::kAdd, g.inner, a, xp, b, yp);
      }
    }
    if (mean_out) Store(req[1], &mean_out[c], static_cast<T>(mean));
    if (var_out) Store(req[2], &var_out[c], static_cast<T>(var));
  }
}

// Gradients given dy; statistics from the batch or the moving averages.
template <typename T>
void BNBackward(const BNGeom& g, const T* dy, const T* x, const T* gamma, const T* moving_mean,
                const T* moving_var, const std::vector<OpReq>& req, T* dx, T* dgamma, T* dbeta) {
#pragma omp parallel for schedule(static) if (g.outer * g.c * g.inner >= kParallelGrain && g.c > 1)
  for (int64_t c = 0; c < g.c; ++c) {
    double mean, var, sum_dy = 0, sum_dy_xhat = 0;
    if (g.batch_stats && std::is_same<T, float>::value) {
      // float32: statistics and gradient sums in one pass over x and dy.
      // E[x^2] - mean^2 in double loses nothing that float data carries
      // unless |mean| exceeds ~1e4 standard deviations; float64 keeps the
      // two-pass form below for its 1e-10 gradient checks.
      double sums[4] = {0, 0, 0, 0};
      for (int64_t o = 0; o < g.outer; ++o) {
        const int64_t off = (o * g.c + c) * g.inner;
        FusedSums(x + off, dy + off, g.inner, sums);
      }
      const double count = static_cast<double>(g.Count());
      mean = sums[0] / count;
      var = std::max(0.0, sums[1] / count - mean * mean);
      sum_dy = sums[2];
      sum_dy_xhat = sums[3] - mean * sums[2];
    } else {
      if (g.batch_stats) {
        ChannelStats(g, x, c, &mean, &var);
      } else {
        mean = moving_mean[c];
        var = moving_var[c];
      }
      for (int64_t o = 0; o < g.outer; ++o) {
        const int64_t off = (o * g.c + c) * g.inner;
        SumDyDyDev(dy + off, x + off, g.inner, mean, &sum_dy, &sum_dy_xhat);
      }
    }
    const double invstd = 1.0 / std::sqrt(var + g.eps);
    sum_dy_xhat *= invstd;
    const double gm = g.fix_gamma ? 1.0 : static_cast<double>(gamma[c]);
    if (req[0] != OpReq::kNull) {
      // Batch: dx = gm*invstd*(dy - sum_dy/m - xhat*sum_dy_xhat/m); moving: gm*invstd*dy.
      const double m = static_cast<double>(g.Count());
      const double k = gm * invstd;
      const double c0 = g.batch_stats ? k * (-sum_dy / m + mean * invstd * sum_dy_xhat / m) : 0.0;
      const double c1 = g.batch_stats ? -k * invstd * sum_dy_xhat / m : 0.0;
      const T tk = static_cast<T>(k), t0 = static_cast<T>(c0), t1 = static_cast<T>(c1);
      for (int64_t o = 0; o < g.outer; ++o) {
        const T* xp = x + (o * g.c + c) * g.inner;
        const T* dp = dy + (o * g.c + c) * g.inner;
        T* dxp = dx + (o * g.c + c) * g.inner;
        GradLine(req[0] == OpReq::kAdd, g.inner, tk, dp, t1, xp, t0, dxp);
      }
    }
    Store(req[1], &dgamma[c], static_cast<T>(g.fix_gamma ? 0.0 : sum_dy_xhat));
    Store(req[2], &dbeta[c], static_cast<T>(sum_dy));
  }
}

void BatchNormCpu(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const BNGeom g = MakeBNGeom(ctx, attrs.params, in[0].shape);
  DispatchFloat(in[0].dtype, "BatchNorm", [&](auto t) {
    using T = decltype(t);
    const bool stats = out.size() == 3;
    BNForward(g, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), in[3].data<T>(),
              in[4].data<T>(), req, out[0].data<T>(), stats ? out[1].data<T>() : nullptr,
              stats ? out[2].data<T>() : nullptr);
  });
}

void BatchNormBackwardCpu(const OpContext& ctx, const NodeAttrs& attrs,
                          const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                          const std::vector<TBlob>& out) {
  const BNGeom g = MakeBNGeom(ctx, attrs.params, in[1].shape);
  DispatchFloat(in[0].dtype, "_backward_BatchNorm", [&](auto t) {
    using T = decltype(t);
    BNBackward(g, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), in[3].data<T>(),
               in[4].data<T>(), req, out[0].data<T>(), out[1].data<T>(), out[2].data<T>());
  });
}

}  // namespace

void RegisterNNNormCpu(KernelRegistry* reg) {
  reg->Add("BatchNorm", DeviceType::kCPU, {"cpu", 0, BatchNormCpu, true});
  reg->Add("_backward_BatchNorm", DeviceType::kCPU, {"cpu", 0, BatchNormBackwardCpu, true});
}

}  // namespace cpu
}  // namespace weft
