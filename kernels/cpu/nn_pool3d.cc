// CPU reference kernels of 3-D Pooling (max / avg / sum) and its gradient.
// Each (n, c) volume is independent; volumes are split over OpenMP threads.
// Windows follow the 2-D rules per axis (see core/src/op/nn_pool.cc).
#include "cpu/nn_pool3d.h"

#include <algorithm>
#include <limits>

#include "cpu/cpu_util.h"
#include "nn_geometry.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

using Kind = PoolKind;

struct Pool3dGeom {
  int64_t planes = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0};
  Kind kind = Kind::kMax;
  bool count_include_pad = true;
  int64_t InSize() const { return in[0] * in[1] * in[2]; }
  int64_t OutSize() const { return out[0] * out[1] * out[2]; }
};

Pool3dGeom MakeGeom(const ParamValues& p, const Shape& x, const Shape& y) {
  Pool3dGeom g;
  g.planes = x[0] * x[1];
  for (int i = 0; i < 3; ++i) {
    g.in[i] = x[2 + i];
    g.out[i] = y[2 + i];
  }
  const PoolParams& q = p.Decoded<PoolParams>();
  g.kind = q.kind;
  g.count_include_pad = q.count_include_pad;
  if (q.global_pool) {
    for (int i = 0; i < 3; ++i) g.k[i] = g.in[i];
    return g;
  }
  const WindowParams& wp = p.Decoded<WindowParams>();
  const Shape &k = wp.kernel, &s = wp.stride, &pad = wp.pad;
  for (int i = 0; i < 3; ++i) {
    g.k[i] = k[i];
    if (s.ndim() == 3) g.s[i] = s[i];
    if (pad.ndim() == 3) g.p[i] = pad[i];
  }
  return g;
}

// The window of output (od, oh, ow): input ranges [lo[i], hi[i]) and the
// avg divisor.
struct Window3 {
  int64_t lo[3], hi[3];
  int64_t count;
  bool Empty() const { return lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]; }
};

Window3 WindowOf(const Pool3dGeom& g, const int64_t o[3]) {
  Window3 w;
  int64_t padded = 1, inside = 1;
  for (int i = 0; i < 3; ++i) {
    const int64_t start = o[i] * g.s[i] - g.p[i];
    const int64_t end = std::min(start + g.k[i], g.in[i] + g.p[i]);
    w.lo[i] = std::max<int64_t>(start, 0);
    w.hi[i] = std::max(w.lo[i], std::min(end, g.in[i]));
    padded *= end - start;
    inside *= w.hi[i] - w.lo[i];
  }
  w.count = g.count_include_pad ? padded : inside;
  return w;
}

// Calls f(flat input index) over the window in (d, h, w) order.
template <typename F>
void ForWindow(const Pool3dGeom& g, const Window3& w, F f) {
  for (int64_t d = w.lo[0]; d < w.hi[0]; ++d)
    for (int64_t h = w.lo[1]; h < w.hi[1]; ++h)
      for (int64_t x = w.lo[2]; x < w.hi[2]; ++x) f((d * g.in[1] + h) * g.in[2] + x);
}

// Output index q of a volume as (od, oh, ow).
void Unravel(const Pool3dGeom& g, int64_t q, int64_t o[3]) {
  o[2] = q % g.out[2];
  o[1] = (q / g.out[2]) % g.out[1];
  o[0] = q / (g.out[1] * g.out[2]);
}

int64_t Work(const Pool3dGeom& g) { return g.planes * g.OutSize() * g.k[0] * g.k[1] * g.k[2]; }

template <typename T>
void Forward(const Pool3dGeom& g, const T* x, OpReq req, T* y) {
  const int64_t I = g.InSize(), O = g.OutSize();
#pragma omp parallel for schedule(static) if (Work(g) >= kParallelGrain)
  for (int64_t pl = 0; pl < g.planes; ++pl) {
    const T* xp = x + pl * I;
    for (int64_t q = 0; q < O; ++q) {
      int64_t o[3];
      Unravel(g, q, o);
      const Window3 w = WindowOf(g, o);
      T v = T(0);
      if (!w.Empty()) {
        if (g.kind == Kind::kMax) {
          v = -std::numeric_limits<T>::infinity();
          ForWindow(g, w, [&](int64_t i) { v = std::max(v, xp[i]); });
        } else {
          ForWindow(g, w, [&](int64_t i) { v += xp[i]; });
          if (g.kind == Kind::kAvg) v /= static_cast<T>(w.count);
        }
      }
      Store(req, &y[pl * O + q], v);
    }
  }
}

template <typename T>
void Backward(const Pool3dGeom& g, const T* dy, const T* x, OpReq req, T* dx) {
  const int64_t I = g.InSize(), O = g.OutSize();
#pragma omp parallel for schedule(static) if (Work(g) >= kParallelGrain)
  for (int64_t pl = 0; pl < g.planes; ++pl) {
    const T* xp = x + pl * I;
    T* dxp = dx + pl * I;
    if (req != OpReq::kAdd) std::fill(dxp, dxp + I, T(0));
    for (int64_t q = 0; q < O; ++q) {
      int64_t o[3];
      Unravel(g, q, o);
      const Window3 w = WindowOf(g, o);
      if (w.Empty()) continue;
      const T d = dy[pl * O + q];
      if (g.kind == Kind::kMax) {
        int64_t best = -1;  // the first maximum in (d, h, w) order
        ForWindow(g, w, [&](int64_t i) {
          if (best < 0 || xp[i] > xp[best]) best = i;
        });
        dxp[best] += d;
      } else {
        const T s = g.kind == Kind::kAvg ? d / static_cast<T>(w.count) : d;
        ForWindow(g, w, [&](int64_t i) { dxp[i] += s; });
      }
    }
  }
}

}  // namespace

void Pool3dForwardCpu(const NodeAttrs& attrs, const TBlob& x, OpReq req, const TBlob& y) {
  if (req == OpReq::kNull) return;
  const Pool3dGeom g = MakeGeom(attrs.params, x.shape, y.shape);
  DispatchFloat(x.dtype, "Pooling", [&](auto t) {
    using T = decltype(t);
    Forward(g, x.data<T>(), req, y.data<T>());
  });
}

void Pool3dBackwardCpu(const NodeAttrs& attrs, const TBlob& dy, const TBlob& x, OpReq req,
                       const TBlob& dx) {
  if (req == OpReq::kNull) return;
  const Pool3dGeom g = MakeGeom(attrs.params, x.shape, dy.shape);
  DispatchFloat(x.dtype, "_backward_Pooling", [&](auto t) {
    using T = decltype(t);
    Backward(g, dy.data<T>(), x.data<T>(), req, dx.data<T>());
  });
}

}  // namespace cpu
}  // namespace weft
