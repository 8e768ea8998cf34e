// CPU kernels of Deconvolution and _backward_Deconvolution (semantics in
// core/src/op/nn_deconv.cc). A deconvolution is the adjoint of the
// convolution whose input is the deconvolution's output, so the geometry is
// a ConvGeom with the roles swapped: h, w = output extents, oh, ow = input
// extents, c = num_filter, f = input channels. Per sample and group:
// forward y_g = col2im(W_g^T . x_g); backward dx_g = W_g . im2col(dy_g),
// dW_g += x_g . im2col(dy_g)^T, db = sums of dy.
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/im2col.h"
#include "cpu/nn_conv3d.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

template <typename T>
void DeconvForward(const ConvGeom& g, const T* x, const T* w, const T* bias, OpReq req, T* y) {
  if (req == OpReq::kNull) return;
  const int64_t G = g.groups, Cg = g.f / G, Fg = g.c / G, Kf = Fg * g.KernelSize();
  const int64_t Pin = g.OutSpatial(), Pout = g.InSpatial();
  const bool pointwise = g.Pointwise();
  std::vector<T> col(pointwise ? 0 : static_cast<size_t>(Kf * Pin));
  if (!pointwise && req != OpReq::kAdd) {
    ParallelFor(g.n * g.c * Pout, [&](int64_t i) { y[i] = T(0); });
  }
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t gr = 0; gr < G; ++gr) {
      const T* xg = x + (n * g.f + gr * Cg) * Pin;
      const T* wg = w + gr * Cg * Kf;
      T* yg = y + (n * g.c + gr * Fg) * Pout;
      if (pointwise) {
        Gemm(true, false, Kf, Pin, Cg, T(1), wg, Kf, xg, Pin, req == OpReq::kAdd ? T(1) : T(0), yg,
             Pin);
      } else {
        Gemm(true, false, Kf, Pin, Cg, T(1), wg, Kf, xg, Pin, T(0), col.data(), Pin);
        Col2ImAdd(g, Fg, col.data(), yg);
      }
    }
  }
  if (bias) {
#pragma omp parallel for schedule(static) if (g.n * g.c * Pout >= kParallelGrain)
    for (int64_t nf = 0; nf < g.n * g.c; ++nf) {
      const T b = bias[nf % g.c];
      T* yp = y + nf * Pout;
      for (int64_t p = 0; p < Pout; ++p) yp[p] += b;
    }
  }
}

template <typename T>
void DeconvBackward(const ConvGeom& g, const T* dy, const T* x, const T* w, OpReq req_dx,
                    OpReq req_dw, OpReq req_db, T* dx, T* dw, T* db) {
  const int64_t G = g.groups, Cg = g.f / G, Fg = g.c / G, Kf = Fg * g.KernelSize();
  const int64_t Pin = g.OutSpatial(), Pout = g.InSpatial();
  const bool pointwise = g.Pointwise();
  std::vector<T> col(pointwise ? 0 : static_cast<size_t>(Kf * Pin));
  if (req_dx != OpReq::kNull || req_dw != OpReq::kNull) {
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t gr = 0; gr < G; ++gr) {
        const T* dyg = dy + (n * g.c + gr * Fg) * Pout;
        const T* cm = dyg;
        if (!pointwise) {
          Im2Col(g, Fg, dyg, col.data());
          cm = col.data();
        }
        if (req_dx != OpReq::kNull)
          Gemm(false, false, Cg, Pin, Kf, T(1), w + gr * Cg * Kf, Kf, cm, Pin,
               req_dx == OpReq::kAdd ? T(1) : T(0), dx + (n * g.f + gr * Cg) * Pin, Pin);
        if (req_dw != OpReq::kNull)
          Gemm(false, true, Cg, Kf, Pin, T(1), x + (n * g.f + gr * Cg) * Pin, Pin, cm, Pin,
               (n > 0 || req_dw == OpReq::kAdd) ? T(1) : T(0), dw + gr * Cg * Kf, Kf);
      }
    }
  }
  if (db && req_db != OpReq::kNull) {
    for (int64_t f = 0; f < g.c; ++f) {
      T s = T(0);
      for (int64_t n = 0; n < g.n; ++n) {
        const T* d = dy + (n * g.c + f) * Pout;
        for (int64_t p = 0; p < Pout; ++p) s += d[p];
      }
      Store(req_db, &db[f], s);
    }
  }
}

void DeconvolutionCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (in[0].shape.ndim() == 5) return Deconv3dForwardCpu(attrs, in, req, out);
  const ConvGeom g = MakeDeconvGeom(attrs.params, in[0].shape, out[0].shape);
  DispatchFloat(in[0].dtype, "Deconvolution", [&](auto t) {
    using T = decltype(t);
    DeconvForward(g, in[0].data<T>(), in[1].data<T>(), in.size() > 2 ? in[2].data<T>() : nullptr,
                  req[0], out[0].data<T>());
  });
}

void DeconvolutionBackwardCpu(const OpContext&, const NodeAttrs& attrs,
                              const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                              const std::vector<TBlob>& out) {
  if (in[1].shape.ndim() == 5) return Deconv3dBackwardCpu(attrs, in, req, out);
  const ConvGeom g = MakeDeconvGeom(attrs.params, in[1].shape, in[0].shape);
  const bool bias = out.size() > 2;
  DispatchFloat(in[0].dtype, "_backward_Deconvolution", [&](auto t) {
    using T = decltype(t);
    DeconvBackward(g, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), req[0], req[1],
                   bias ? req[2] : OpReq::kNull, out[0].data<T>(), out[1].data<T>(),
                   bias ? out[2].data<T>() : nullptr);
  });
}

}  // namespace

void RegisterNNDeconvCpu(KernelRegistry* reg) {
  reg->Add("Deconvolution", DeviceType::kCPU, {"cpu", 0, DeconvolutionCpu, true});
  reg->Add("_backward_Deconvolution", DeviceType::kCPU, {"cpu", 0, DeconvolutionBackwardCpu, true});
}

}  // namespace cpu
}  // namespace weft
