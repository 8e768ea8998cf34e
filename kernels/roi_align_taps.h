// The sampling of _contrib_ROIAlign (MXNet's semantics), shared by the CPU
// (kernels/cpu/vision_roi.cc) and CUDA (kernels/cuda/vision_roi.cu) kernels
// so that both average exactly the same bilinear taps: for one ROI, output
// channel and bin, a grid of sample points (sample_ratio per axis, or
// ceil(bin extent) when it is not positive), each interpolated from up to
// four input pixels.
#ifndef WEFT_KERNELS_ROI_ALIGN_TAPS_H_
#define WEFT_KERNELS_ROI_ALIGN_TAPS_H_

#include <cmath>
#include <cstdint>

#include "host_device.h"
#include "weft/param.h"
#include "weft/status.h"

namespace weft {

struct AlignParams {
  int64_t h = 0, w = 0;    // input map
  int64_t ph = 0, pw = 0;  // pooled size
  int64_t cout = 0;        // output channels
  int64_t sample_ratio = 0;
  float scale = 1;  // spatial_scale, MXNet's float
  bool aligned = false, position_sensitive = false;
};

// ROIPooling's and ROIAlign's parameters, decoded once per node
// (ParamValues::Decoded): the pooled size and spatial_scale (both ops), the
// sampling (ROIAlign only).
struct ROIParams {
  int64_t ph = 0, pw = 0;  // pooled_size
  double scale = 1;        // spatial_scale
  static ROIParams Decode(const ParamValues& p) {
    const Shape& pooled = p.GetShape("pooled_size");
    return {pooled[0], pooled[1], p.GetFloat("spatial_scale")};
  }
};
struct AlignSampling {
  int64_t sample_ratio = 0;
  bool aligned = false, position_sensitive = false;
  static AlignSampling Decode(const ParamValues& p) {
    return {p.GetInt("sample_ratio"), p.GetBool("aligned"), p.GetBool("position_sensitive")};
  }
};

// One bilinear sample of an (h, w) map: up to 4 taps (offset, weight); none
// when (y, x) lies more than one cell outside the map (MXNet's rule).
template <typename T>
WEFT_HOST_DEVICE int BilinearTaps(int64_t h, int64_t w, T y, T x, int64_t* pos, T* wt) {
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

// Calls f(input offset, weight / sample count) for every tap of bin (i, j)
// of `roi` (batch index, x1, y1, x2, y2) and output channel c. Nothing for
// a negative batch index, or with `aligned` for an ROI without a positive
// extent (the kernels reject those first, as MXNet does).
template <typename T, typename F>
WEFT_HOST_DEVICE void ForEachBinTap(const AlignParams& p, const T* roi, int64_t c, int64_t i,
                                    int64_t j, F f) {
  const int64_t b = static_cast<int64_t>(roi[0]);
  if (b < 0) return;
  const T scale = static_cast<T>(p.scale), off = p.aligned ? T(0.5) : T(0);
  const T x0 = roi[1] * scale - off, y0 = roi[2] * scale - off;
  T rw = roi[3] * scale - off - x0, rh = roi[4] * scale - off - y0;
  if (p.aligned && (rw <= 0 || rh <= 0)) return;
  if (!p.aligned) {
    rw = rw < T(1) ? T(1) : rw;  // std::max's rule
    rh = rh < T(1) ? T(1) : rh;
  }
  const T bh = rh / static_cast<T>(p.ph), bw = rw / static_cast<T>(p.pw);
  const int64_t gh = p.sample_ratio > 0 ? p.sample_ratio : static_cast<int64_t>(ceil(rh / p.ph));
  const int64_t gw = p.sample_ratio > 0 ? p.sample_ratio : static_cast<int64_t>(ceil(rw / p.pw));
  const T count = static_cast<T>(gh * gw);
  const int64_t cin = p.position_sensitive ? (c * p.ph + i) * p.pw + j : c;
  const int64_t cin_total = p.position_sensitive ? p.cout * p.ph * p.pw : p.cout;
  const int64_t plane = (b * cin_total + cin) * p.h * p.w;
  int64_t pos[4];
  T wt[4];
  for (int64_t iy = 0; iy < gh; ++iy) {
    const T yy = y0 + i * bh + static_cast<T>(iy + .5f) * bh / static_cast<T>(gh);
    for (int64_t ix = 0; ix < gw; ++ix) {
      const T xx = x0 + j * bw + static_cast<T>(ix + .5f) * bw / static_cast<T>(gw);
      const int k = BilinearTaps(p.h, p.w, yy, xx, pos, wt);
      for (int e = 0; e < k; ++e) f(plane + pos[e], wt[e] / count);
    }
  }
}

// With aligned=True MXNet requires every ROI with a valid batch index to
// have a positive extent; the kernels check it first (on the host), since
// their loops must not throw.
template <typename T>
void CheckAlignedROIs(const AlignParams& p, int64_t num_rois, const T* rois) {
  if (!p.aligned) return;
  const T scale = static_cast<T>(p.scale);
  for (int64_t n = 0; n < num_rois; ++n) {
    const T* roi = rois + n * 5;
    const T rw = (roi[3] - roi[1]) * scale, rh = (roi[4] - roi[2]) * scale;
    if (roi[0] >= 0 && (rw <= 0 || rh <= 0))
      Fail(StatusCode::kInvalidArgument,
           "operator _contrib_ROIAlign: with aligned=True every ROI needs a ",
           "positive width and height; ROI ", n, " is ", rw, " x ", rh);
  }
}

}  // namespace weft

#endif  // WEFT_KERNELS_ROI_ALIGN_TAPS_H_
