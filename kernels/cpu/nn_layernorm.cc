// CPU kernels of LayerNorm, GroupNorm and their gradients (semantics in
// core/src/op/nn_layernorm.cc). LayerNorm views data as (outer, C, inner)
// around the axis: with the default last axis (inner = 1) each row is
// contiguous and handled by vectorised row loops; otherwise the inner axis
// is the vector axis. GroupNorm's groups are contiguous rows with a scalar
// gamma/beta each. Rows (GroupNorm: chunks of rows when they are few and
// long) are split over OpenMP threads; statistics are accumulated in
// double. Partial sums are reduced over a fixed chunking that depends on the
// shape only (norm_util.h), so results do not depend on the thread count.
#include <cmath>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/norm_util.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

struct AxisGeom {
  int64_t outer = 1, C = 1, inner = 1;
};

AxisGeom LayerNormGeom(const NodeAttrs& attrs, const Shape& s) {
  const int64_t a = attrs.params.Decoded<LayerNormParams>().axis;
  const int ax = static_cast<int>(a < 0 ? a + s.ndim() : a);
  return {s.ProdRange(0, ax), s[ax], s.ProdRange(ax + 1, s.ndim())};
}

// Writes the optional mean/std outputs of row/group k.
template <typename T>
void StoreStats(const std::vector<TBlob>& out, const std::vector<OpReq>& req, int64_t k,
                double mean, double rstd) {
  if (out.size() < 3) return;
  Store(req[1], out[1].data<T>() + k, static_cast<T>(mean));
  Store(req[2], out[2].data<T>() + k, static_cast<T>(1.0 / rstd));
}

// y (+)= (x - m) * r * g[c] + b[c] over one contiguous row.
template <typename T>
WEFT_SIMD_CLONES void NormRowAffine(OpReq req, int64_t n, const T* x, T m, T r, const T* g,
                                    const T* b, T* y) {
  if (req == OpReq::kAdd) {
#pragma omp simd
    for (int64_t c = 0; c < n; ++c) y[c] += (x[c] - m) * r * g[c] + b[c];
  } else {
#pragma omp simd
    for (int64_t c = 0; c < n; ++c) y[c] = (x[c] - m) * r * g[c] + b[c];
  }
}

// y (+)= a * u + b * v + c over one contiguous row (u may equal v).
template <typename T>
WEFT_SIMD_CLONES void AffineRow(OpReq req, int64_t n, const T* u, const T* v, T* y, T a, T b, T c) {
  if (req == OpReq::kAdd) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] += a * u[i] + b * v[i] + c;
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = a * u[i] + b * v[i] + c;
  }
}

// One row of LayerNorm's backward (last axis): dx from dy, and the row's
// contributions dy * xhat and dy added to dgamma / dbeta (double).
template <typename T>
WEFT_SIMD_CLONES void LayerNormGradRow(OpReq req, int64_t n, const T* dy, const T* x, const T* g,
                                       double m, double r, T* dx, double* dgamma, double* dbeta) {
  double a = 0, b = 0;  // sum(dy * g), sum(dy * g * xhat)
#pragma omp simd reduction(+ : a, b)
  for (int64_t c = 0; c < n; ++c) {
    const double dyg = static_cast<double>(dy[c]) * g[c], xh = (static_cast<double>(x[c]) - m) * r;
    a += dyg;
    b += dyg * xh;
    dgamma[c] += static_cast<double>(dy[c]) * xh;
    dbeta[c] += dy[c];
  }
  if (req == OpReq::kNull) return;
  const T tr = static_cast<T>(r), tm = static_cast<T>(m), ta = static_cast<T>(a / n),
          tb = static_cast<T>(b / n);
  if (req == OpReq::kAdd) {
#pragma omp simd
    for (int64_t c = 0; c < n; ++c) dx[c] += tr * (dy[c] * g[c] - ta - (x[c] - tm) * tr * tb);
  } else {
#pragma omp simd
    for (int64_t c = 0; c < n; ++c) dx[c] = tr * (dy[c] * g[c] - ta - (x[c] - tm) * tr * tb);
  }
}

// ---------------------------------------------------------------- LayerNorm

// Statistics of the `inner` interleaved groups of one outer block (general
// axis): mean[i] and rstd[i] over c of x[c * inner + i].
template <typename T>
void BlockMoments(const T* x, const AxisGeom& g, double eps, double* mean, double* rstd) {
  std::fill(mean, mean + g.inner, 0.0);
  std::fill(rstd, rstd + g.inner, 0.0);
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t i = 0; i < g.inner; ++i) mean[i] += x[c * g.inner + i];
  for (int64_t i = 0; i < g.inner; ++i) mean[i] /= static_cast<double>(g.C);
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t i = 0; i < g.inner; ++i) {
      const double d = x[c * g.inner + i] - mean[i];
      rstd[i] += d * d;
    }
  for (int64_t i = 0; i < g.inner; ++i)
    rstd[i] = 1.0 / std::sqrt(rstd[i] / static_cast<double>(g.C) + eps);
}

void LayerNormCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const AxisGeom g = LayerNormGeom(attrs, in[0].shape);
  const double eps = attrs.params.Decoded<LayerNormParams>().eps;
  DispatchFloat(in[0].dtype, "LayerNorm", [&](auto t) {
    using T = decltype(t);
    const T *x = in[0].data<T>(), *gamma = in[1].data<T>(), *beta = in[2].data<T>();
    T* y = out[0].data<T>();
    if (g.inner == 1) {
#pragma omp parallel for schedule(static) if (g.outer * g.C >= kParallelGrain)
      for (int64_t o = 0; o < g.outer; ++o) {
        double m, r;
        RowMoments(x + o * g.C, g.C, eps, &m, &r);
        StoreStats<T>(out, req, o, m, r);
        if (req[0] != OpReq::kNull)
          NormRowAffine(req[0], g.C, x + o * g.C, static_cast<T>(m), static_cast<T>(r), gamma, beta,
                        y + o * g.C);
      }
      return;
    }
#pragma omp parallel for schedule(static) if (g.outer * g.C * g.inner >= kParallelGrain)
    for (int64_t o = 0; o < g.outer; ++o) {
      std::vector<double> mean(g.inner), rstd(g.inner);
      const T* xo = x + o * g.C * g.inner;
      BlockMoments(xo, g, eps, mean.data(), rstd.data());
      for (int64_t i = 0; i < g.inner; ++i)
        StoreStats<T>(out, req, o * g.inner + i, mean[i], rstd[i]);
      for (int64_t c = 0; c < g.C; ++c)
        for (int64_t i = 0; i < g.inner; ++i) {
          const int64_t k = c * g.inner + i;
          Store(req[0], y + o * g.C * g.inner + k,
                static_cast<T>((xo[k] - mean[i]) * rstd[i] * gamma[c] + beta[c]));
        }
    }
  });
}

void LayerNormBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const AxisGeom g = LayerNormGeom(attrs, in[1].shape);
  const double eps = attrs.params.Decoded<LayerNormParams>().eps;
  const int64_t chunks = ReduceChunks(g.outer, g.C * g.inner);
  // Per chunk: C partial sums of dgamma then C of dbeta.
  std::vector<double> part(chunks * 2 * g.C, 0.0);
  DispatchFloat(in[0].dtype, "_backward_LayerNorm", [&](auto t) {
    using T = decltype(t);
    const T *dy = in[0].data<T>(), *x = in[1].data<T>(), *gamma = in[2].data<T>();
    T* dx = out[0].data<T>();
    const int64_t blk = g.C * g.inner;
#pragma omp parallel for schedule(static) if (chunks > 1)
    for (int64_t k = 0; k < chunks; ++k) {
      double* dg = part.data() + k * 2 * g.C;
      double* db = dg + g.C;
      std::vector<double> mean(g.inner), rstd(g.inner), a(g.inner), b(g.inner);
      for (int64_t o = g.outer * k / chunks; o < g.outer * (k + 1) / chunks; ++o) {
        const T *xo = x + o * blk, *dyo = dy + o * blk;
        if (g.inner == 1) {
          double m, r;
          RowMoments(xo, g.C, eps, &m, &r);
          LayerNormGradRow(req[0], g.C, dyo, xo, gamma, m, r, dx + o * blk, dg, db);
          continue;
        }
        BlockMoments(xo, g, eps, mean.data(), rstd.data());
        std::fill(a.begin(), a.end(), 0.0);
        std::fill(b.begin(), b.end(), 0.0);
        for (int64_t c = 0; c < g.C; ++c)
          for (int64_t i = 0; i < g.inner; ++i) {
            const int64_t e = c * g.inner + i;
            const double xh = (xo[e] - mean[i]) * rstd[i],
                         dyg = static_cast<double>(dyo[e]) * gamma[c];
            a[i] += dyg;
            b[i] += dyg * xh;
            dg[c] += dyo[e] * xh;
            db[c] += dyo[e];
          }
        for (int64_t c = 0; c < g.C; ++c)
          for (int64_t i = 0; i < g.inner; ++i) {
            const int64_t e = c * g.inner + i;
            const double xh = (xo[e] - mean[i]) * rstd[i];
            Store(req[0], dx + o * blk + e,
                  static_cast<T>(rstd[i] * (static_cast<double>(dyo[e]) * gamma[c] -
                                            (a[i] + xh * b[i]) / g.C)));
          }
      }
    }
    T *dgamma = out[1].data<T>(), *dbeta = out[2].data<T>();
    for (int64_t c = 0; c < g.C; ++c) {
      double sg = 0, sb = 0;
      for (int64_t k = 0; k < chunks; ++k) {
        sg += part[k * 2 * g.C + c];
        sb += part[k * 2 * g.C + g.C + c];
      }
      Store(req[1], dgamma + c, static_cast<T>(sg));
      Store(req[2], dbeta + c, static_cast<T>(sb));
    }
  });
}

// ---------------------------------------------------------------- GroupNorm

// Rows (N * G) of length M = C / G * spatial.
void GroupNormGeom(const NodeAttrs& attrs, const Shape& s, int64_t* G, int64_t* rows, int64_t* M) {
  *G = attrs.params.Decoded<GroupNormParams>().groups;
  *rows = s[0] * *G;
  *M = s.Size() / *rows;
}

void GroupNormCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  int64_t G, rows, M;
  GroupNormGeom(attrs, in[0].shape, &G, &rows, &M);
  const double eps = attrs.params.Decoded<GroupNormParams>().eps;
  std::vector<double> mean(rows), rstd(rows);
  DispatchFloat(in[0].dtype, "GroupNorm", [&](auto t) {
    using T = decltype(t);
    const T *x = in[0].data<T>(), *gamma = in[1].data<T>(), *beta = in[2].data<T>();
    T* y = out[0].data<T>();
    RowsMoments(x, rows, M, eps, mean.data(), rstd.data());
    for (int64_t r = 0; r < rows; ++r) StoreStats<T>(out, req, r, mean[r], rstd[r]);
    if (req[0] == OpReq::kNull) return;
    const int64_t per = ChunksPerRow(rows, M);
#pragma omp parallel for schedule(static) if (rows * M >= kParallelGrain)
    for (int64_t u = 0; u < rows * per; ++u) {
      const int64_t r = u / per;
      int64_t lo, hi;
      ChunkRange(M, per, u % per, &lo, &hi);
      const double a = rstd[r] * gamma[r % G];
      const T ta = static_cast<T>(a), tb = static_cast<T>(beta[r % G] - mean[r] * a);
      const T* xp = x + r * M + lo;
      AffineRow(req[0], hi - lo, xp, xp, y + r * M + lo, ta, T(0), tb);
    }
  });
}

void GroupNormBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  int64_t G, rows, M;
  GroupNormGeom(attrs, in[1].shape, &G, &rows, &M);
  const double eps = attrs.params.Decoded<GroupNormParams>().eps;
  const int64_t per = ChunksPerRow(rows, M), units = rows * per;
  std::vector<double> mean(rows), rstd(rows), part_dy(units), part_dyx(units);
  DispatchFloat(in[0].dtype, "_backward_GroupNorm", [&](auto t) {
    using T = decltype(t);
    const T *dy = in[0].data<T>(), *x = in[1].data<T>(), *gamma = in[2].data<T>();
    T* dx = out[0].data<T>();
    RowsMoments(x, rows, M, eps, mean.data(), rstd.data());
    // Per chunk: sum(dy) and sum(dy * (x - mean)).
#pragma omp parallel for schedule(static) if (rows * M >= kParallelGrain)
    for (int64_t u = 0; u < units; ++u) {
      const int64_t r = u / per;
      int64_t lo, hi;
      ChunkRange(M, per, u % per, &lo, &hi);
      RowDySums(dy + r * M + lo, x + r * M + lo, hi - lo, mean[r], &part_dy[u], &part_dyx[u]);
    }
    std::vector<double> sdy(rows, 0.0), sdyx(rows, 0.0);  // per row: sum(dy), sum(dy * xhat)
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < per; ++k) {
        sdy[r] += part_dy[r * per + k];
        sdyx[r] += part_dyx[r * per + k];
      }
      sdyx[r] *= rstd[r];
    }
    if (req[0] != OpReq::kNull) {
#pragma omp parallel for schedule(static) if (rows * M >= kParallelGrain)
      for (int64_t u = 0; u < units; ++u) {
        const int64_t r = u / per;
        int64_t lo, hi;
        ChunkRange(M, per, u % per, &lo, &hi);
        // dx = k * (dy - sdy / M - xhat * sdyx / M) = k * dy + t1 * x + t0.
        const double k = gamma[r % G] * rstd[r], c1 = -k * rstd[r] * sdyx[r] / M;
        const T tk = static_cast<T>(k), t1 = static_cast<T>(c1),
                t0 = static_cast<T>(-k * sdy[r] / M - c1 * mean[r]);
        AffineRow(req[0], hi - lo, dy + r * M + lo, x + r * M + lo, dx + r * M + lo, tk, t1, t0);
      }
    }
    T *dgamma = out[1].data<T>(), *dbeta = out[2].data<T>();
    for (int64_t gi = 0; gi < G; ++gi) {
      double sg = 0, sb = 0;
      for (int64_t r = gi; r < rows; r += G) {
        sg += sdyx[r];
        sb += sdy[r];
      }
      Store(req[1], dgamma + gi, static_cast<T>(sg));
      Store(req[2], dbeta + gi, static_cast<T>(sb));
    }
  });
}

}  // namespace

void RegisterNNLayerNormCpu(KernelRegistry* reg) {
  reg->Add("LayerNorm", DeviceType::kCPU, {"cpu", 0, LayerNormCpu, true});
  reg->Add("_backward_LayerNorm", DeviceType::kCPU, {"cpu", 0, LayerNormBackwardCpu, true});
  reg->Add("GroupNorm", DeviceType::kCPU, {"cpu", 0, GroupNormCpu, true});
  reg->Add("_backward_GroupNorm", DeviceType::kCPU, {"cpu", 0, GroupNormBackwardCpu, true});
}

}  // namespace cpu
}  // namespace weft
