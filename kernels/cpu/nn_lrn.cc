// CPU kernels of LRN and _backward_LRN (semantics in core/src/op/nn_lrn.cc).
// The data is (N, C, M) with M the spatial size; each sample is processed
// with a running window sum over channels, samples split over threads.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

struct LRNGeom {
  int64_t n = 1, c = 1, m = 1, half = 0;
  double alpha = 1e-4, beta = 0.75, k = 2, nsize = 1;
};

// LRN's parameters, decoded once per node (ParamValues::Decoded).
struct LRNParams {
  int64_t nsize = 1;
  double alpha = 1e-4, beta = 0.75, k = 2;  // k: knorm
  static LRNParams Decode(const ParamValues& p) {
    return {p.GetInt("nsize"), p.GetFloat("alpha"), p.GetFloat("beta"), p.GetFloat("knorm")};
  }
};

LRNGeom MakeLRNGeom(const ParamValues& p, const Shape& s) {
  const LRNParams& q = p.Decoded<LRNParams>();
  LRNGeom g;
  g.n = s[0];
  g.c = s[1];
  g.m = s.ProdRange(2, s.ndim());
  g.nsize = static_cast<double>(q.nsize);
  g.half = q.nsize / 2;
  g.alpha = q.alpha;
  g.beta = q.beta;
  g.k = q.k;
  return g;
}

// D[c, i] = k + alpha/nsize * sum_{c' in window(c)} x[c', i]^2 for one sample.
template <typename T>
void Denominator(const LRNGeom& g, const T* x, double* d) {
  const double a = g.alpha / g.nsize;
  for (int64_t c = 0; c < g.c; ++c) {
    const int64_t lo = std::max<int64_t>(0, c - g.half), hi = std::min(g.c - 1, c + g.half);
    double* dc = d + c * g.m;
    for (int64_t i = 0; i < g.m; ++i) dc[i] = 0;
    for (int64_t cc = lo; cc <= hi; ++cc) {
      const T* xc = x + cc * g.m;
      for (int64_t i = 0; i < g.m; ++i) dc[i] += static_cast<double>(xc[i]) * xc[i];
    }
    for (int64_t i = 0; i < g.m; ++i) dc[i] = g.k + a * dc[i];
  }
}

void LRNCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const LRNGeom g = MakeLRNGeom(attrs.params, in[0].shape);
  DispatchFloat(in[0].dtype, "LRN", [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
#pragma omp parallel for schedule(static) if (g.n * g.c * g.m >= kParallelGrain && g.n > 1)
    for (int64_t n = 0; n < g.n; ++n) {
      std::vector<double> d(static_cast<size_t>(g.c * g.m));
      const T* xn = x + n * g.c * g.m;
      T* yn = y + n * g.c * g.m;
      Denominator(g, xn, d.data());
      for (int64_t j = 0; j < g.c * g.m; ++j)
        Store(req[0], &yn[j], static_cast<T>(xn[j] * std::pow(d[j], -g.beta)));
    }
  });
}

void LRNBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const LRNGeom g = MakeLRNGeom(attrs.params, in[1].shape);
  DispatchFloat(in[0].dtype, "_backward_LRN", [&](auto t) {
    using T = decltype(t);
    const T *dy = in[0].data<T>(), *x = in[1].data<T>();
    T* dx = out[0].data<T>();
    const double coef = 2 * g.beta * g.alpha / g.nsize;
#pragma omp parallel for schedule(static) if (g.n * g.c * g.m >= kParallelGrain && g.n > 1)
    for (int64_t n = 0; n < g.n; ++n) {
      const int64_t off = n * g.c * g.m;
      std::vector<double> d(static_cast<size_t>(g.c * g.m)), q(d.size());
      Denominator(g, x + off, d.data());
      // q[c] = dy[c] * x[c] * D[c]^(-beta-1)
      for (int64_t j = 0; j < g.c * g.m; ++j)
        q[j] = static_cast<double>(dy[off + j]) * x[off + j] * std::pow(d[j], -g.beta - 1);
      for (int64_t c = 0; c < g.c; ++c) {
        const int64_t lo = std::max<int64_t>(0, c - g.half), hi = std::min(g.c - 1, c + g.half);
        for (int64_t i = 0; i < g.m; ++i) {
          double s = 0;
          for (int64_t cc = lo; cc <= hi; ++cc) s += q[cc * g.m + i];
          const int64_t j = c * g.m + i;
          const double v = dy[off + j] * std::pow(d[j], -g.beta) - coef * x[off + j] * s;
          Store(req[0], &dx[off + j], static_cast<T>(v));
        }
      }
    }
  });
}

}  // namespace

void RegisterNNLRNCpu(KernelRegistry* reg) {
  reg->Add("LRN", DeviceType::kCPU, {"cpu", 0, LRNCpu, true});
  reg->Add("_backward_LRN", DeviceType::kCPU, {"cpu", 0, LRNBackwardCpu, true});
}

}  // namespace cpu
}  // namespace weft
