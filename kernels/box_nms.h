// The box arithmetic of _contrib_box_nms and _contrib_box_iou (MXNet's
// semantics, in the data's dtype as MXNet computes it), shared by the CPU
// (kernels/cpu/vision_box.cc) and CUDA (kernels/cuda/vision_box.cu)
// kernels so that both keep and suppress exactly the same boxes.
#ifndef WEFT_KERNELS_BOX_NMS_H_
#define WEFT_KERNELS_BOX_NMS_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "host_device.h"
#include "weft/op.h"

namespace weft {

// Overlap of two boxes along one axis: a[0], a[2] are (lo, hi) in corner
// encoding, (center, extent) in center encoding. Never negative.
template <typename T>
WEFT_HOST_DEVICE T Intersect1D(const T* a, const T* b, bool center) {
  // std::max/min's exact rules (NaN included), callable on the device.
  auto max = [](T x, T y) { return x < y ? y : x; };
  auto min = [](T x, T y) { return y < x ? y : x; };
  T lo, hi;
  if (!center) {
    lo = max(a[0], b[0]);
    hi = min(a[2], b[2]);
  } else {
    const T aw = a[2] / 2, bw = b[2] / 2;
    lo = max(b[0] - bw, a[0] - aw);
    hi = min(b[0] + bw, a[0] + aw);
  }
  const T w = hi - lo;
  return w > 0 ? w : T(0);
}

// Area of a box; 0 when its width or height is negative.
template <typename T>
WEFT_HOST_DEVICE T BoxArea(const T* b, bool center) {
  const T w = center ? b[2] : b[2] - b[0], h = center ? b[3] : b[3] - b[1];
  return (w < 0 || h < 0) ? T(0) : w * h;
}

// _contrib_box_nms's parameters for data (..., n, w).
struct NMSGeom {
  int64_t batches = 1, n = 0, w = 0;
  int64_t topk = 0, coord = 2, score = 1, id = -1;
  double overlap = 0.5, valid = 0, background = -1;
  bool force = false, in_center = false, out_center = false;

  // Whether `row` is a candidate: score above valid_thresh, class not the
  // background (when id_index >= 0).
  template <typename T>
  WEFT_HOST_DEVICE bool Candidate(const T* row) const {
    return row[score] > static_cast<T>(valid) && (id < 0 || row[id] != static_cast<T>(background));
  }
  // Whether kept row `r` (area ar) suppresses row `p` (area ap): same class
  // unless force_suppress, and IoU above overlap_thresh.
  template <typename T>
  WEFT_HOST_DEVICE bool Suppresses(const T* r, T ar, const T* p, T ap) const {
    if (!force && id >= 0 && static_cast<int>(r[id]) != static_cast<int>(p[id])) return false;
    T inter = Intersect1D(r + coord, p + coord, in_center);
    inter *= Intersect1D(r + coord + 1, p + coord + 1, in_center);
    return inter / (ar + ap - inter) > static_cast<T>(overlap);
  }
};

// _contrib_box_nms's parameters, decoded once per node (ParamValues::Decoded).
struct NMSParams {
  int64_t topk = -1, coord = 2, score = 1, id = -1;
  double overlap = 0.5, valid = 0, background = -1;
  bool force = false, in_center = false, out_center = false;
  static NMSParams Decode(const ParamValues& p) {
    NMSParams q;
    q.topk = p.GetInt("topk");
    q.coord = p.GetInt("coord_start");
    q.score = p.GetInt("score_index");
    q.id = p.GetInt("id_index");
    // MXNet keeps both thresholds as float.
    q.overlap = static_cast<float>(p.GetFloat("overlap_thresh"));
    q.valid = static_cast<float>(p.GetFloat("valid_thresh"));
    q.background = static_cast<double>(p.GetInt("background_id"));
    q.force = p.GetBool("force_suppress");
    q.in_center = p.GetString("in_format") == "center";
    q.out_center = p.GetString("out_format") == "center";
    return q;
  }
};

inline NMSGeom MakeNMSGeom(const ParamValues& p, const Shape& s) {
  const NMSParams& q = p.Decoded<NMSParams>();
  NMSGeom g;
  const int nd = s.ndim();
  g.batches = nd <= 2 ? 1 : s.ProdRange(0, nd - 2);
  g.n = s[nd - 2];
  g.w = s[nd - 1];
  g.topk = q.topk < 0 ? g.n : std::min(g.n, q.topk);
  g.coord = q.coord;
  g.score = q.score;
  g.id = q.id;
  g.overlap = q.overlap;
  g.valid = q.valid;
  g.background = q.background;
  g.force = q.force;
  g.in_center = q.in_center;
  g.out_center = q.out_center;
  return g;
}

// Re-encodes the 4 coordinates at `c` between corner and center (MXNet
// skips boxes whose first coordinate is negative, e.g. the -1 padding).
template <typename T>
WEFT_HOST_DEVICE void Reencode(T* c, bool to_center) {
  if (c[0] < 0) return;
  if (to_center) {
    const T l = c[0], t = c[1], r = c[2], b = c[3];
    c[0] = (l + r) / 2;
    c[1] = (t + b) / 2;
    c[2] = r - l;
    c[3] = b - t;
  } else {
    const T x = c[0], y = c[1], hw = c[2] / 2, hh = c[3] / 2;
    c[0] = x - hw;
    c[1] = y - hh;
    c[2] = x + hw;
    c[3] = y + hh;
  }
}

}  // namespace weft

#endif  // WEFT_KERNELS_BOX_NMS_H_
