// CPU kernels of ROIPooling, _contrib_ROIAlign and their backward ops
// (semantics in core/src/op/vision_roi.cc). ROIs are split over threads in
// the forward passes; the backward scatters run serially (ROIs overlap).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "cpu/cpu_util.h"
#include "roi_align_taps.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

struct ROIGeom {
  int64_t n = 0, c = 0, h = 0, w = 0, r = 0, ph = 0, pw = 0;
  double scale = 1;
};

// Geometry from data (N, C, H, W), rois (R, 5) and the op's parameters.
ROIGeom MakeROIGeom(const ParamValues& p, const Shape& data, const Shape& rois) {
  ROIGeom g;
  g.n = data[0];
  g.c = data[1];
  g.h = data[2];
  g.w = data[3];
  g.r = rois[0];
  const ROIParams& q = p.Decoded<ROIParams>();
  g.ph = q.ph;
  g.pw = q.pw;
  g.scale = q.scale;
  return g;
}

void ROIPoolingCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const ROIGeom g = MakeROIGeom(attrs.params, in[0].shape, in[1].shape);
  const float scale = static_cast<float>(g.scale);
  DispatchFloat(in[0].dtype, "ROIPooling", [&](auto t) {
    using T = decltype(t);
    const T *x = in[0].data<T>(), *rois = in[1].data<T>();
    T* y = out[0].data<T>();
    int32_t* idx = out[1].data<int32_t>();
#pragma omp parallel for schedule(dynamic) if (g.r * g.c * g.ph * g.pw >= kParallelGrain)
    for (int64_t n = 0; n < g.r; ++n) {
      const T* roi = rois + n * 5;
      const int64_t b = static_cast<int64_t>(roi[0]);
      const int x0 = static_cast<int>(std::round(roi[1] * scale)),
                y0 = static_cast<int>(std::round(roi[2] * scale));
      const int x1 = static_cast<int>(std::round(roi[3] * scale)),
                y1 = static_cast<int>(std::round(roi[4] * scale));
      const T bh = static_cast<T>(std::max(y1 - y0 + 1, 1)) / static_cast<T>(g.ph);
      const T bw = static_cast<T>(std::max(x1 - x0 + 1, 1)) / static_cast<T>(g.pw);
      const bool bad = b < 0 || b >= g.n;
      for (int64_t c = 0; c < g.c; ++c) {
        const int64_t base = ((bad ? 0 : b) * g.c + c) * g.h * g.w;
        for (int64_t i = 0; i < g.ph; ++i)
          for (int64_t j = 0; j < g.pw; ++j) {
            const auto clampi = [](int64_t v, int64_t hi) {
              return std::min(std::max<int64_t>(v, 0), hi);
            };
            const int64_t hs = clampi(static_cast<int64_t>(std::floor(i * bh)) + y0, g.h);
            const int64_t he = clampi(static_cast<int64_t>(std::ceil((i + 1) * bh)) + y0, g.h);
            const int64_t ws = clampi(static_cast<int64_t>(std::floor(j * bw)) + x0, g.w);
            const int64_t we = clampi(static_cast<int64_t>(std::ceil((j + 1) * bw)) + x0, g.w);
            const int64_t o = ((n * g.c + c) * g.ph + i) * g.pw + j;
            T best = static_cast<T>(-FLT_MAX);
            int64_t arg = -1;
            if (!bad && he > hs && we > ws) {
              for (int64_t hh = hs; hh < he; ++hh)
                for (int64_t ww = ws; ww < we; ++ww)
                  if (x[base + hh * g.w + ww] > best) {
                    best = x[base + hh * g.w + ww];
                    arg = base + hh * g.w + ww;
                  }
            } else {
              best = 0;
            }
            y[o] = best;
            idx[o] = static_cast<int32_t>(arg);
          }
      }
    }
  });
}

void ROIPoolingBackwardCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                           const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  DispatchFloat(in[0].dtype, "_backward_ROIPooling", [&](auto t) {
    using T = decltype(t);
    const T* dy = in[0].data<T>();
    const int32_t* idx = in[1].data<int32_t>();
    T* dx = out[0].data<T>();
    if (req[0] != OpReq::kAdd) std::fill(dx, dx + out[0].shape.Size(), T(0));
    const int64_t m = in[0].shape.Size();
    for (int64_t i = 0; i < m; ++i)
      if (idx[i] >= 0) dx[idx[i]] += dy[i];
  });
}

// The tap parameters of _contrib_ROIAlign for `g` and `cout` output channels.
AlignParams AlignParamsOf(const NodeAttrs& attrs, const ROIGeom& g, int64_t cout) {
  const AlignSampling& q = attrs.params.Decoded<AlignSampling>();
  AlignParams a;
  a.h = g.h;
  a.w = g.w;
  a.ph = g.ph;
  a.pw = g.pw;
  a.cout = cout;
  a.sample_ratio = q.sample_ratio;
  a.scale = static_cast<float>(g.scale);
  a.aligned = q.aligned;
  a.position_sensitive = q.position_sensitive;
  return a;
}

// Calls f(bin, input offset, weight / count) for every tap of ROI `roi` and
// output channel c.
template <typename T, typename F>
void ForEachAlignTap(const AlignParams& p, const T* roi, int64_t c, F f) {
  for (int64_t i = 0; i < p.ph; ++i)
    for (int64_t j = 0; j < p.pw; ++j)
      ForEachBinTap(p, roi, c, i, j, [&](int64_t at, T wt) { f(i * p.pw + j, at, wt); });
}

void ROIAlignCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const ROIGeom g = MakeROIGeom(attrs.params, in[0].shape, in[1].shape);
  const int64_t cout = out[0].shape[1], bins = g.ph * g.pw;
  DispatchFloat(in[0].dtype, "_contrib_ROIAlign", [&](auto t) {
    using T = decltype(t);
    const T *x = in[0].data<T>(), *rois = in[1].data<T>();
    T* y = out[0].data<T>();
    const AlignParams ap = AlignParamsOf(attrs, g, cout);
    CheckAlignedROIs(ap, g.r, rois);
#pragma omp parallel for schedule(dynamic) if (g.r * cout * bins >= 1024)
    for (int64_t n = 0; n < g.r; ++n) {
      std::vector<T> acc(static_cast<size_t>(bins));
      for (int64_t c = 0; c < cout; ++c) {
        std::fill(acc.begin(), acc.end(), T(0));
        ForEachAlignTap<T>(ap, rois + n * 5, c,
                           [&](int64_t bin, int64_t at, T wt) { acc[bin] += wt * x[at]; });
        for (int64_t k = 0; k < bins; ++k) Store(req[0], &y[(n * cout + c) * bins + k], acc[k]);
      }
    }
  });
}

void ROIAlignBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                         const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const ROIGeom g = MakeROIGeom(attrs.params, in[2].shape, in[1].shape);
  const int64_t cout = in[0].shape[1], bins = g.ph * g.pw;
  DispatchFloat(in[0].dtype, "_backward_ROIAlign", [&](auto t) {
    using T = decltype(t);
    const T *dy = in[0].data<T>(), *rois = in[1].data<T>();
    if (req[1] != OpReq::kNull && req[1] != OpReq::kAdd)
      std::fill(out[1].data<T>(), out[1].data<T>() + out[1].shape.Size(), T(0));
    if (req[0] == OpReq::kNull) return;
    T* dx = out[0].data<T>();
    if (req[0] != OpReq::kAdd) std::fill(dx, dx + out[0].shape.Size(), T(0));
    const AlignParams ap = AlignParamsOf(attrs, g, cout);
    for (int64_t n = 0; n < g.r; ++n)
      for (int64_t c = 0; c < cout; ++c) {
        const T* g_nc = dy + (n * cout + c) * bins;
        ForEachAlignTap<T>(ap, rois + n * 5, c,
                           [&](int64_t bin, int64_t at, T wt) { dx[at] += g_nc[bin] * wt; });
      }
  });
}

}  // namespace

void RegisterVisionROICpu(KernelRegistry* reg) {
  reg->Add("ROIPooling", DeviceType::kCPU, {"cpu", 0, ROIPoolingCpu, false});
  reg->Add("_backward_ROIPooling", DeviceType::kCPU, {"cpu", 0, ROIPoolingBackwardCpu, true});
  reg->Add("_contrib_ROIAlign", DeviceType::kCPU, {"cpu", 0, ROIAlignCpu, true});
  reg->Add("_backward_ROIAlign", DeviceType::kCPU, {"cpu", 0, ROIAlignBackwardCpu, true});
}

}  // namespace cpu
}  // namespace weft
