// CPU kernels of Convolution and _backward_Convolution: per sample and
// group, im2col + GEMM (the input itself is the column matrix for 1x1
// kernels with stride 1 and no padding). Forward: y_g = W_g . col_g + b.
// Backward: dx = col2im(W_g^T . dy_g); dW_g = sum_n dy_g . col_g^T;
// db = sum over batch and space of dy. All requests are honoured (kAdd by
// GEMM beta = 1 and accumulation).
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/im2col.h"
#include "cpu/nn_conv3d.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// y (N, F, P) (+)= bias broadcast over (N, *, P); called after the GEMMs.
template <typename T>
void AddBias(const ConvGeom& g, const T* bias, T* y) {
  const int64_t P = g.OutSpatial();
#pragma omp parallel for schedule(static) if (g.n * g.f * P >= kParallelGrain)
  for (int64_t nf = 0; nf < g.n * g.f; ++nf) {
    const T b = bias[nf % g.f];
    T* yp = y + nf * P;
    for (int64_t p = 0; p < P; ++p) yp[p] += b;
  }
}

template <typename T>
void ConvForward(const ConvGeom& g, const T* x, const T* w, const T* bias, OpReq req, T* y) {
  if (req == OpReq::kNull) return;
  const int64_t G = g.groups, Cg = g.c / G, Fg = g.f / G, K = Cg * g.KernelSize();
  const int64_t P = g.OutSpatial(), HW = g.InSpatial();
  const bool pointwise = g.Pointwise();
  std::vector<T> col(pointwise ? 0 : static_cast<size_t>(K * P));
  const T beta = req == OpReq::kAdd ? T(1) : T(0);
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t gr = 0; gr < G; ++gr) {
      const T* xg = x + (n * g.c + gr * Cg) * HW;
      const T* cm = xg;
      if (!pointwise) {
        Im2Col(g, Cg, xg, col.data());
        cm = col.data();
      }
      Gemm(false, false, Fg, P, K, T(1), w + gr * Fg * K, K, cm, P, beta,
           y + (n * g.f + gr * Fg) * P, P);
    }
  }
  if (bias) AddBias(g, bias, y);
}

template <typename T>
void ConvBackward(const ConvGeom& g, const T* dy, const T* x, const T* w, OpReq req_dx,
                  OpReq req_dw, OpReq req_db, T* dx, T* dw, T* db) {
  const int64_t G = g.groups, Cg = g.c / G, Fg = g.f / G, K = Cg * g.KernelSize();
  const int64_t P = g.OutSpatial(), HW = g.InSpatial();
  const bool pointwise = g.Pointwise();
  std::vector<T> col(pointwise ? 0 : static_cast<size_t>(K * P));
  if (req_dx != OpReq::kNull) {
    if (!pointwise && req_dx != OpReq::kAdd) {
      const int64_t total = g.n * g.c * HW;
      ParallelFor(total, [&](int64_t i) { dx[i] = T(0); });
    }
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t gr = 0; gr < G; ++gr) {
        const T* dyg = dy + (n * g.f + gr * Fg) * P;
        T* dxg = dx + (n * g.c + gr * Cg) * HW;
        if (pointwise) {
          Gemm(true, false, K, P, Fg, T(1), w + gr * Fg * K, K, dyg, P,
               req_dx == OpReq::kAdd ? T(1) : T(0), dxg, P);
        } else {
          Gemm(true, false, K, P, Fg, T(1), w + gr * Fg * K, K, dyg, P, T(0), col.data(), P);
          Col2ImAdd(g, Cg, col.data(), dxg);
        }
      }
    }
  }
  if (req_dw != OpReq::kNull) {
    for (int64_t n = 0; n < g.n; ++n) {
      const T beta = (n > 0 || req_dw == OpReq::kAdd) ? T(1) : T(0);
      for (int64_t gr = 0; gr < G; ++gr) {
        const T* xg = x + (n * g.c + gr * Cg) * HW;
        const T* cm = xg;
        if (!pointwise) {
          Im2Col(g, Cg, xg, col.data());
          cm = col.data();
        }
        Gemm(false, true, Fg, K, P, T(1), dy + (n * g.f + gr * Fg) * P, P, cm, P, beta,
             dw + gr * Fg * K, K);
      }
    }
  }
  if (db && req_db != OpReq::kNull) {
#pragma omp parallel for schedule(static) if (g.n * g.f * P >= kParallelGrain)
    for (int64_t f = 0; f < g.f; ++f) {
      T s = T(0);
      for (int64_t n = 0; n < g.n; ++n) {
        const T* d = dy + (n * g.f + f) * P;
        for (int64_t p = 0; p < P; ++p) s += d[p];
      }
      Store(req_db, &db[f], s);
    }
  }
}

void ConvolutionCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (in[0].shape.ndim() == 5) return Conv3dForwardCpu(attrs, in, req, out);
  const ConvGeom g = MakeConvGeom(attrs.params, in[0].shape, out[0].shape);
  DispatchFloat(in[0].dtype, "Convolution", [&](auto t) {
    using T = decltype(t);
    ConvForward(g, in[0].data<T>(), in[1].data<T>(), in.size() > 2 ? in[2].data<T>() : nullptr,
                req[0], out[0].data<T>());
  });
}

void ConvolutionBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (in[1].shape.ndim() == 5) return Conv3dBackwardCpu(attrs, in, req, out);
  const ConvGeom g = MakeConvGeom(attrs.params, in[1].shape, in[0].shape);
  const bool bias = out.size() > 2;
  DispatchFloat(in[0].dtype, "_backward_Convolution", [&](auto t) {
    using T = decltype(t);
    ConvBackward(g, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), req[0], req[1],
                 bias ? req[2] : OpReq::kNull, out[0].data<T>(), out[1].data<T>(),
                 bias ? out[2].data<T>() : nullptr);
  });
}

}  // namespace

void RegisterNNConvCpu(KernelRegistry* reg) {
  reg->Add("Convolution", DeviceType::kCPU, {"cpu", 0, ConvolutionCpu, true});
  reg->Add("_backward_Convolution", DeviceType::kCPU, {"cpu", 0, ConvolutionBackwardCpu, true});
}

}  // namespace cpu
}  // namespace weft
