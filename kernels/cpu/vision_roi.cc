// CPU kernels of ROIPooling, _contrib_ROIAlign and their backward ops
// (semantics in core/src/op/vision_roi.cc). ROIs are split over threads in
// the forward passes; the backward scatters run serially (ROIs overlap).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "cpu/cpu_util.h"
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
  g.ph = p.GetShape("pooled_size")[0];
  g.pw = p.GetShape("pooled_size")[1];
  g.scale = p.GetFloat("spatial_scale");
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

// One bilinear sample of an (h, w) map: up to 4 taps (offset, weight); none
// when (y, x) lies more than one cell outside the map (MXNet's rule).
template <typename T>
int BilinearTaps(int64_t h, int64_t w, T y, T x, int64_t* pos, T* wt) {
  if (y < -1.0 || y > h || x < -1.0 || x > w) return 0;
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(x), yh, xh;
  if (yl >= h - 1) {
    yh = yl = h - 1;
    y = static_cast<T>(yl);
  } else {
    yh = yl + 1;
  }
  if (xl >= w - 1) {
    xh = xl = w - 1;
    x = static_cast<T>(xl);
  } else {
    xh = xl + 1;
  }
  const T ly = y - yl, lx = x - xl, hy = 1 - ly, hx = 1 - lx;
  pos[0] = yl * w + xl;
  pos[1] = yl * w + xh;
  pos[2] = yh * w + xl;
  pos[3] = yh * w + xh;
  wt[0] = hy * hx;
  wt[1] = hy * lx;
  wt[2] = ly * hx;
  wt[3] = ly * lx;
  return 4;
}

// Calls f(bin (i, j), channel offset of the bin's input plane, tap offset,
// tap weight / count) for every tap of ROI n and output channel c.
template <typename T, typename F>
void ForEachAlignTap(const NodeAttrs& attrs, const ROIGeom& g, int64_t cout, const T* roi,
                     int64_t c, F f) {
  const ParamValues& p = attrs.params;
  const bool aligned = p.GetBool("aligned"), ps = p.GetBool("position_sensitive");
  const int64_t sr = p.GetInt("sample_ratio");
  const int64_t b = static_cast<int64_t>(roi[0]);
  if (b < 0) return;
  const T scale = static_cast<T>(static_cast<float>(g.scale)), off = aligned ? T(0.5) : T(0);
  const T x0 = roi[1] * scale - off, y0 = roi[2] * scale - off;
  T rw = roi[3] * scale - off - x0, rh = roi[4] * scale - off - y0;
  if (aligned && (rw <= 0 || rh <= 0)) return;  // rejected by CheckAlignedROIs
  if (!aligned) {
    rw = std::max(rw, T(1));
    rh = std::max(rh, T(1));
  }
  const T bh = rh / static_cast<T>(g.ph), bw = rw / static_cast<T>(g.pw);
  const int64_t gh = sr > 0 ? sr : static_cast<int64_t>(std::ceil(rh / g.ph));
  const int64_t gw = sr > 0 ? sr : static_cast<int64_t>(std::ceil(rw / g.pw));
  const T count = static_cast<T>(gh * gw);
  int64_t pos[4];
  T wt[4];
  for (int64_t i = 0; i < g.ph; ++i)
    for (int64_t j = 0; j < g.pw; ++j) {
      const int64_t cin = ps ? (c * g.ph + i) * g.pw + j : c;
      const int64_t cin_total = ps ? cout * g.ph * g.pw : cout;
      const int64_t plane = (b * cin_total + cin) * g.h * g.w;
      for (int64_t iy = 0; iy < gh; ++iy) {
        const T yy = y0 + i * bh + static_cast<T>(iy + .5f) * bh / static_cast<T>(gh);
        for (int64_t ix = 0; ix < gw; ++ix) {
          const T xx = x0 + j * bw + static_cast<T>(ix + .5f) * bw / static_cast<T>(gw);
          const int k = BilinearTaps(g.h, g.w, yy, xx, pos, wt);
          for (int e = 0; e < k; ++e) f(i * g.pw + j, plane + pos[e], wt[e] / count);
        }
      }
    }
}

// With aligned=True MXNet requires every (valid) ROI to have a positive
// extent; checked before the parallel loops, which must not throw.
template <typename T>
void CheckAlignedROIs(const NodeAttrs& attrs, const ROIGeom& g, const T* rois) {
  if (!attrs.params.GetBool("aligned")) return;
  const T scale = static_cast<T>(static_cast<float>(g.scale));
  for (int64_t n = 0; n < g.r; ++n) {
    const T* roi = rois + n * 5;
    const T rw = (roi[3] - roi[1]) * scale, rh = (roi[4] - roi[2]) * scale;
    if (roi[0] >= 0 && (rw <= 0 || rh <= 0))
      Fail(StatusCode::kInvalidArgument,
           "operator _contrib_ROIAlign: with aligned=True every ROI needs a ",
           "positive width and height; ROI ", n, " is ", rw, " x ", rh);
  }
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
    CheckAlignedROIs(attrs, g, rois);
#pragma omp parallel for schedule(dynamic) if (g.r * cout * bins >= 1024)
    for (int64_t n = 0; n < g.r; ++n) {
      std::vector<T> acc(static_cast<size_t>(bins));
      for (int64_t c = 0; c < cout; ++c) {
        std::fill(acc.begin(), acc.end(), T(0));
        ForEachAlignTap<T>(attrs, g, cout, rois + n * 5, c,
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
    for (int64_t n = 0; n < g.r; ++n)
      for (int64_t c = 0; c < cout; ++c) {
        const T* g_nc = dy + (n * cout + c) * bins;
        ForEachAlignTap<T>(attrs, g, cout, rois + n * 5, c,
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
