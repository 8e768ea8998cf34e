// CPU kernels of _contrib_AdaptiveAvgPooling2D, _contrib_BilinearResize2D
// and their backward ops (semantics in core/src/op/vision_resize.cc). The
// N*C planes are split over threads; the index/weight tables of one axis
// are computed once per call.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// Adaptive pooling window [lo, hi) of output cell i of `out` over `in`.
inline void AdaptiveWindow(int64_t i, int64_t in, int64_t out, int64_t* lo, int64_t* hi) {
  *lo = static_cast<int64_t>(std::floor(static_cast<float>(i * in) / out));
  *hi = static_cast<int64_t>(std::ceil(static_cast<float>((i + 1) * in) / out));
}

// Shared loop of the adaptive pooling forward (kFwd) and backward: calls
// f(plane, input offset, output offset, 1/area) per window element.
template <typename F>
void AdaptiveLoop(const Shape& data, const Shape& pooled, F f) {
  const int64_t planes = data[0] * data[1], ih = data[2], iw = data[3], oh = pooled[2],
                ow = pooled[3];
#pragma omp parallel for schedule(static) if (planes * ih * iw >= kParallelGrain)
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i) {
      int64_t h0, h1;
      AdaptiveWindow(i, ih, oh, &h0, &h1);
      for (int64_t j = 0; j < ow; ++j) {
        int64_t w0, w1;
        AdaptiveWindow(j, iw, ow, &w0, &w1);
        const double inv = 1.0 / static_cast<double>((h1 - h0) * (w1 - w0));
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) f(p * ih * iw + h * iw + w, (p * oh + i) * ow + j, inv);
      }
    }
}

void AdaptiveCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  DispatchFloat(in[0].dtype, "_contrib_AdaptiveAvgPooling2D", [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    std::vector<double> acc(static_cast<size_t>(out[0].shape.Size()), 0.0);
    AdaptiveLoop(in[0].shape, out[0].shape,
                 [&](int64_t xi, int64_t yi, double inv) { acc[yi] += x[xi] * inv; });
    for (size_t i = 0; i < acc.size(); ++i) Store(req[0], &y[i], static_cast<T>(acc[i]));
  });
}

void AdaptiveBackwardCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                         const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  DispatchFloat(in[0].dtype, "_backward_contrib_AdaptiveAvgPooling2D", [&](auto t) {
    using T = decltype(t);
    const T* dy = in[0].data<T>();
    T* dx = out[0].data<T>();
    if (req[0] != OpReq::kAdd) std::fill(dx, dx + out[0].shape.Size(), T(0));
    AdaptiveLoop(out[0].shape, in[0].shape, [&](int64_t xi, int64_t yi, double inv) {
      dx[xi] += static_cast<T>(dy[yi] * inv);
    });
  });
}

// Source taps of one output index along an axis: index i0, step to the
// next input (0 or 1) and the weight of that next input.
struct Tap {
  int64_t i0 = 0, step = 0;
  float l1 = 0;
};

std::vector<Tap> AxisTaps(int64_t in, int64_t out, bool align) {
  std::vector<Tap> taps(static_cast<size_t>(out));
  const float scale =
      out > 1 ? (align ? static_cast<float>(in - 1) / (out - 1) : static_cast<float>(in) / out)
              : 0.f;
  for (int64_t o = 0; o < out; ++o) {
    float src = align ? scale * o : scale * (o + 0.5f) - 0.5f;
    if (!align && src < 0) src = 0;
    Tap& t = taps[o];
    t.i0 = static_cast<int64_t>(src);
    t.step = t.i0 < in - 1 ? 1 : 0;
    t.l1 = src - t.i0;
  }
  return taps;
}

// Calls f(input offset, output offset, weight) for the 4 taps of every
// output element of every plane (an identity copy when sizes match).
template <typename T, typename F>
void ResizeLoop(const Shape& data, const Shape& sized, bool align, F f) {
  const int64_t planes = data[0] * data[1], ih = data[2], iw = data[3], oh = sized[2],
                ow = sized[3];
  const bool same = ih == oh && iw == ow;
  const std::vector<Tap> th = AxisTaps(ih, oh, align), tw = AxisTaps(iw, ow, align);
#pragma omp parallel for schedule(static) if (planes * oh * ow >= kParallelGrain)
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const int64_t o = (p * oh + i) * ow + j;
        if (same) {
          f(p * ih * iw + i * iw + j, o, T(1));
          continue;
        }
        const Tap &a = th[i], &b = tw[j];
        const T h1 = a.l1, h0 = T(1) - h1, w1 = b.l1, w0 = T(1) - w1;
        const int64_t base = p * ih * iw + a.i0 * iw + b.i0;
        f(base, o, h0 * w0);
        f(base + b.step, o, h0 * w1);
        f(base + a.step * iw, o, h1 * w0);
        f(base + a.step * iw + b.step, o, h1 * w1);
      }
}

// BilinearResize2D's align_corners, decoded once per node (ParamValues::Decoded).
struct ResizeParams {
  bool align = false;  // align_corners
  static ResizeParams Decode(const ParamValues& p) { return {p.GetBool("align_corners")}; }
};

void ResizeCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const bool align = attrs.params.Decoded<ResizeParams>().align;
  DispatchFloat(in[0].dtype, "_contrib_BilinearResize2D", [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    std::vector<T> acc(static_cast<size_t>(out[0].shape.Size()), T(0));
    ResizeLoop<T>(in[0].shape, out[0].shape, align,
                  [&](int64_t xi, int64_t yi, T w) { acc[yi] += w * x[xi]; });
    for (size_t i = 0; i < acc.size(); ++i) Store(req[0], &y[i], acc[i]);
  });
}

void ResizeBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const bool align = attrs.params.Decoded<ResizeParams>().align;
  DispatchFloat(in[0].dtype, "_backward_contrib_BilinearResize2D", [&](auto t) {
    using T = decltype(t);
    const T* dy = in[0].data<T>();
    T* dx = out[0].data<T>();
    if (req[0] != OpReq::kAdd) std::fill(dx, dx + out[0].shape.Size(), T(0));
    // Taps of different outputs hit the same input: accumulate per plane serially.
    const Shape& d = out[0].shape;
    const int64_t planes = d[0] * d[1];
#pragma omp parallel for schedule(static) if (planes > 1 && in[0].shape.Size() >= kParallelGrain)
    for (int64_t p = 0; p < planes; ++p) {
      const Shape one({1, 1, d[2], d[3]}), sized({1, 1, in[0].shape[2], in[0].shape[3]});
      const int64_t xoff = p * d[2] * d[3], yoff = p * sized[2] * sized[3];
      ResizeLoop<T>(one, sized, align,
                    [&](int64_t xi, int64_t yi, T w) { dx[xoff + xi] += w * dy[yoff + yi]; });
    }
  });
}

}  // namespace

void RegisterVisionResizeCpu(KernelRegistry* reg) {
  reg->Add("_contrib_AdaptiveAvgPooling2D", DeviceType::kCPU, {"cpu", 0, AdaptiveCpu, true});
  reg->Add("_backward_contrib_AdaptiveAvgPooling2D", DeviceType::kCPU,
           {"cpu", 0, AdaptiveBackwardCpu, true});
  reg->Add("_contrib_BilinearResize2D", DeviceType::kCPU, {"cpu", 0, ResizeCpu, true});
  reg->Add("_backward_contrib_BilinearResize2D", DeviceType::kCPU,
           {"cpu", 0, ResizeBackwardCpu, true});
}

}  // namespace cpu
}  // namespace weft
