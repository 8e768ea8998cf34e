// CPU reference kernels of 3-D Convolution, Deconvolution and their
// gradients: direct loops over (n, f) output volumes (forward), n (data
// gradient) and f (weight gradient), each split over OpenMP threads; every
// thread writes only its own slice. Groups, stride, padding and dilation per
// axis. Deconvolution is the adjoint: its forward is Convolution's data
// gradient and its data gradient Convolution's forward, on the swapped
// geometry (as kernels/cpu/nn_deconv.cc does for 1-D / 2-D).
#include "cpu/nn_conv3d.h"

#include <algorithm>

#include "cpu/cpu_util.h"
#include "nn_geometry.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

struct Conv3dGeom {
  int64_t n = 1, c = 1, f = 1, groups = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  int64_t Cg() const { return c / groups; }
  int64_t Fg() const { return f / groups; }
  int64_t InVol() const { return in[0] * in[1] * in[2]; }
  int64_t OutVol() const { return out[0] * out[1] * out[2]; }
  int64_t KVol() const { return k[0] * k[1] * k[2]; }
};

Conv3dGeom MakeGeom(const ParamValues& p, const Shape& x, const Shape& y) {
  Conv3dGeom g;
  g.n = x[0];
  g.c = x[1];
  g.f = y[1];
  const WindowParams& wp = p.Decoded<WindowParams>();
  g.groups = wp.num_group;
  const Shape &k = wp.kernel, &s = wp.stride, &pad = wp.pad, &dil = wp.dilate;
  for (int i = 0; i < 3; ++i) {
    g.in[i] = x[2 + i];
    g.out[i] = y[2 + i];
    g.k[i] = k[i];
    if (s.ndim() == 3) g.s[i] = s[i];
    if (pad.ndim() == 3) g.p[i] = pad[i];
    if (dil.ndim() == 3) g.d[i] = dil[i];
  }
  return g;
}

// Calls f(input offset within a volume, kernel offset) for every kernel tap
// of output position (od, oh, ow) that falls inside the input.
template <typename F>
void ForTaps(const Conv3dGeom& g, int64_t od, int64_t oh, int64_t ow, F f) {
  for (int64_t a = 0; a < g.k[0]; ++a) {
    const int64_t id = od * g.s[0] - g.p[0] + a * g.d[0];
    if (id < 0 || id >= g.in[0]) continue;
    for (int64_t b = 0; b < g.k[1]; ++b) {
      const int64_t ih = oh * g.s[1] - g.p[1] + b * g.d[1];
      if (ih < 0 || ih >= g.in[1]) continue;
      for (int64_t c = 0; c < g.k[2]; ++c) {
        const int64_t iw = ow * g.s[2] - g.p[2] + c * g.d[2];
        if (iw < 0 || iw >= g.in[2]) continue;
        f((id * g.in[1] + ih) * g.in[2] + iw, (a * g.k[1] + b) * g.k[2] + c);
      }
    }
  }
}

// Calls f(output offset, od, oh, ow) over an output volume.
template <typename F>
void ForOutputs(const Conv3dGeom& g, F f) {
  for (int64_t od = 0; od < g.out[0]; ++od)
    for (int64_t oh = 0; oh < g.out[1]; ++oh)
      for (int64_t ow = 0; ow < g.out[2]; ++ow) f((od * g.out[1] + oh) * g.out[2] + ow, od, oh, ow);
}

int64_t Work(const Conv3dGeom& g) { return g.n * g.f * g.OutVol() * g.Cg() * g.KVol(); }

template <typename T>
void Forward(const Conv3dGeom& g, const T* x, const T* w, const T* bias, OpReq req, T* y) {
  const int64_t I = g.InVol(), O = g.OutVol(), K = g.KVol();
#pragma omp parallel for schedule(static) if (Work(g) >= kParallelGrain)
  for (int64_t nf = 0; nf < g.n * g.f; ++nf) {
    const int64_t n = nf / g.f, f = nf % g.f, c0 = (f / g.Fg()) * g.Cg();
    const T* wf = w + f * g.Cg() * K;
    ForOutputs(g, [&](int64_t q, int64_t od, int64_t oh, int64_t ow) {
      double acc = bias ? static_cast<double>(bias[f]) : 0.0;
      for (int64_t c = 0; c < g.Cg(); ++c) {
        const T* xc = x + (n * g.c + c0 + c) * I;
        const T* wc = wf + c * K;
        ForTaps(g, od, oh, ow,
                [&](int64_t i, int64_t kk) { acc += static_cast<double>(xc[i]) * wc[kk]; });
      }
      Store(req, &y[nf * O + q], static_cast<T>(acc));
    });
  }
}

template <typename T>
void Backward(const Conv3dGeom& g, const T* dy, const T* x, const T* w,
              const std::vector<OpReq>& req, T* dx, T* dw, T* db) {
  const int64_t I = g.InVol(), O = g.OutVol(), K = g.KVol();
  if (req[0] != OpReq::kNull) {
#pragma omp parallel for schedule(static) if (Work(g) >= kParallelGrain)
    for (int64_t n = 0; n < g.n; ++n) {
      T* dxn = dx + n * g.c * I;
      if (req[0] != OpReq::kAdd) std::fill(dxn, dxn + g.c * I, T(0));
      for (int64_t f = 0; f < g.f; ++f) {
        const int64_t c0 = (f / g.Fg()) * g.Cg();
        const T* dyf = dy + (n * g.f + f) * O;
        ForOutputs(g, [&](int64_t q, int64_t od, int64_t oh, int64_t ow) {
          const T d = dyf[q];
          for (int64_t c = 0; c < g.Cg(); ++c) {
            T* dxc = dxn + (c0 + c) * I;
            const T* wc = w + (f * g.Cg() + c) * K;
            ForTaps(g, od, oh, ow, [&](int64_t i, int64_t kk) { dxc[i] += d * wc[kk]; });
          }
        });
      }
    }
  }
  if (req[1] != OpReq::kNull) {
#pragma omp parallel for schedule(static) if (Work(g) >= kParallelGrain)
    for (int64_t f = 0; f < g.f; ++f) {
      const int64_t c0 = (f / g.Fg()) * g.Cg();
      std::vector<double> acc(g.Cg() * K, 0.0);
      for (int64_t n = 0; n < g.n; ++n) {
        const T* dyf = dy + (n * g.f + f) * O;
        ForOutputs(g, [&](int64_t q, int64_t od, int64_t oh, int64_t ow) {
          const double d = dyf[q];
          for (int64_t c = 0; c < g.Cg(); ++c) {
            const T* xc = x + (n * g.c + c0 + c) * I;
            double* ac = acc.data() + c * K;
            ForTaps(g, od, oh, ow, [&](int64_t i, int64_t kk) { ac[kk] += d * xc[i]; });
          }
        });
      }
      for (int64_t j = 0; j < g.Cg() * K; ++j)
        Store(req[1], &dw[f * g.Cg() * K + j], static_cast<T>(acc[j]));
    }
  }
  if (db && req[2] != OpReq::kNull) {
    for (int64_t f = 0; f < g.f; ++f) {
      double s = 0;
      for (int64_t n = 0; n < g.n; ++n)
        for (int64_t q = 0; q < O; ++q) s += dy[(n * g.f + f) * O + q];
      Store(req[2], &db[f], static_cast<T>(s));
    }
  }
}

// The swapped geometry of a deconvolution from `in` to `out`; pad comes from
// target_shape when that is given (MXNet's rule: pad = (total + 1) / 2).
Conv3dGeom DeconvGeom(const ParamValues& p, const Shape& in, const Shape& out) {
  Conv3dGeom g = MakeGeom(p, out, in);
  const Shape& t = p.Decoded<WindowParams>().target_shape;
  if (t.ndim() > 0 && t[0] != 0)
    for (int i = 0; i < 3; ++i)
      g.p[i] = (g.s[i] * (g.out[i] - 1) + g.d[i] * (g.k[i] - 1) + 1 - g.in[i] + 1) / 2;
  return g;
}

}  // namespace

void Deconv3dForwardCpu(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                        const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Conv3dGeom g = DeconvGeom(attrs.params, in[0].shape, out[0].shape);
  DispatchFloat(in[0].dtype, "Deconvolution", [&](auto t) {
    using T = decltype(t);
    T* y = out[0].data<T>();
    Backward<T>(g, in[0].data<T>(), nullptr, in[1].data<T>(), {req[0], OpReq::kNull, OpReq::kNull},
                y, nullptr, nullptr);
    if (in.size() > 2) {
      const T* b = in[2].data<T>();
      const int64_t I = g.InVol();
      ParallelFor(g.n * g.c * I, [&](int64_t i) { y[i] += b[(i / I) % g.c]; });
    }
  });
}

void Deconv3dBackwardCpu(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                         const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const Conv3dGeom g = DeconvGeom(attrs.params, in[1].shape, in[0].shape);
  DispatchFloat(in[0].dtype, "_backward_Deconvolution", [&](auto t) {
    using T = decltype(t);
    const T *dy = in[0].data<T>(), *x = in[1].data<T>(), *w = in[2].data<T>();
    if (req[0] != OpReq::kNull)
      Forward(g, dy, w, static_cast<const T*>(nullptr), req[0], out[0].data<T>());
    Backward<T>(g, x, dy, w, {OpReq::kNull, req[1], OpReq::kNull}, nullptr, out[1].data<T>(),
                nullptr);
    if (out.size() > 2 && req[2] != OpReq::kNull) {
      T* db = out[2].data<T>();
      const int64_t I = g.InVol();
      for (int64_t f = 0; f < g.c; ++f) {
        double s = 0;
        for (int64_t n = 0; n < g.n; ++n)
          for (int64_t i = 0; i < I; ++i) s += dy[(n * g.c + f) * I + i];
        Store(req[2], &db[f], static_cast<T>(s));
      }
    }
  });
}

void Conv3dForwardCpu(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Conv3dGeom g = MakeGeom(attrs.params, in[0].shape, out[0].shape);
  DispatchFloat(in[0].dtype, "Convolution", [&](auto t) {
    using T = decltype(t);
    Forward(g, in[0].data<T>(), in[1].data<T>(), in.size() > 2 ? in[2].data<T>() : nullptr, req[0],
            out[0].data<T>());
  });
}

void Conv3dBackwardCpu(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const Conv3dGeom g = MakeGeom(attrs.params, in[1].shape, in[0].shape);
  const bool bias = out.size() > 2;
  DispatchFloat(in[0].dtype, "_backward_Convolution", [&](auto t) {
    using T = decltype(t);
    Backward(g, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), req, out[0].data<T>(),
             out[1].data<T>(), bias ? out[2].data<T>() : nullptr);
  });
}

}  // namespace cpu
}  // namespace weft
