// The per-anchor arithmetic of _contrib_MultiBoxPrior and
// _contrib_MultiBoxDetection (MXNet's CPU semantics: float anchors, the
// data's dtype for decoding), shared by the CPU (kernels/cpu/
// vision_multibox.cc) and CUDA (kernels/cuda/vision_multibox.cu) kernels.
#ifndef WEFT_KERNELS_MULTIBOX_H_
#define WEFT_KERNELS_MULTIBOX_H_

#include <cmath>
#include <cstdint>
#include <vector>

#include "host_device.h"
#include "weft/float_tuple.h"
#include "weft/op.h"

namespace weft {

// exp on the host (std::exp: float for float) and the device.
template <typename T>
WEFT_HOST_DEVICE T Exp(T x) {
#ifdef __CUDA_ARCH__
  return exp(x);
#else
  return std::exp(x);
#endif
}

// MultiBoxPrior's parameters for data (N, C, h, w); sizes and ratios are
// copied into fixed arrays so that a kernel can take the struct by value.
struct PriorParams {
  static constexpr int kMax = 64;
  int h = 0, w = 0, num_sizes = 0, num_ratios = 0;
  float sizes[kMax] = {}, ratios[kMax] = {};
  float step_y = 0, step_x = 0, offset_y = 0, offset_x = 0;
  bool clip = false;

  WEFT_HOST_DEVICE int PerCell() const { return num_sizes + num_ratios - 1; }
  // The 4 corners of anchor k of cell (r, c): the sizes at ratios[0],
  // then sizes[0] at ratios[1:], each clipped to [0, 1] with `clip`.
  WEFT_HOST_DEVICE void Anchor(int r, int c, int k, float out[4]) const {
    const float cy = (r + offset_y) * step_y, cx = (c + offset_x) * step_x;
    const float size = k < num_sizes ? sizes[k] : sizes[0];
    const float ratio = sqrtf(k < num_sizes ? ratios[0] : ratios[k - num_sizes + 1]);
    const float hw = size * h / w * ratio / 2, hh = size / ratio / 2;
    const float v[4] = {cx - hw, cy - hh, cx + hw, cy + hh};
    for (int e = 0; e < 4; ++e) {
      float x = v[e];
      if (clip) {  // std::min(1, std::max(0, x))
        x = 0.f < x ? x : 0.f;
        x = x < 1.f ? x : 1.f;
      }
      out[e] = x;
    }
  }
};

// MultiBoxPrior's and MultiBoxDetection's scalar parameters, decoded once
// per node (ParamValues::Decoded); their float tuples are parsed per call
// (op::FloatTupleValue names the node in its errors).
struct PriorScalars {
  bool clip = false;
  static PriorScalars Decode(const ParamValues& p) { return {p.GetBool("clip")}; }
};
struct DetectScalars {
  bool clip = false, force = false;
  float thresh = 0, nms = 0;
  int64_t topk = 0;
  static DetectScalars Decode(const ParamValues& p) {
    return {p.GetBool("clip"), p.GetBool("force_suppress"),
            static_cast<float>(p.GetFloat("threshold")),
            static_cast<float>(p.GetFloat("nms_threshold")), p.GetInt("nms_topk")};
  }
};

// Error(kNotImplemented) naming `op` beyond PriorParams::kMax sizes or
// ratios.
inline PriorParams MakePriorParams(const NodeAttrs& attrs, const Shape& data, const char* op) {
  const std::vector<float> sizes = op::FloatTupleValue(attrs, "sizes"),
                           ratios = op::FloatTupleValue(attrs, "ratios"),
                           offsets = op::FloatTupleValue(attrs, "offsets"),
                           steps = op::FloatTupleValue(attrs, "steps");
  if (sizes.size() > PriorParams::kMax || ratios.size() > PriorParams::kMax)
    Fail(StatusCode::kNotImplemented, "operator ", op, ": ", sizes.size(), " sizes and ",
         ratios.size(), " ratios, at most ", PriorParams::kMax, " each");
  PriorParams p;
  p.h = static_cast<int>(data[2]);
  p.w = static_cast<int>(data[3]);
  p.num_sizes = static_cast<int>(sizes.size());
  p.num_ratios = static_cast<int>(ratios.size());
  for (size_t i = 0; i < sizes.size(); ++i) p.sizes[i] = sizes[i];
  for (size_t i = 0; i < ratios.size(); ++i) p.ratios[i] = ratios[i];
  const bool default_steps = steps[0] <= 0 || steps[1] <= 0;
  p.step_y = default_steps ? 1.f / p.h : steps[0];
  p.step_x = default_steps ? 1.f / p.w : steps[1];
  p.offset_y = offsets[0];
  p.offset_x = offsets[1];
  p.clip = attrs.params.Decoded<PriorScalars>().clip;
  return p;
}

// MultiBoxDetection's parameters.
struct DetectParams {
  float var[4] = {};
  float thresh = 0, nms = 0;
  int64_t topk = 0;
  bool clip = false, force = false;
  int64_t nc = 0, na = 0;  // classes (0: background), anchors

  // Decodes anchor i of one batch (prob: nc x na, loc: na x 4, anc: na x 4)
  // into row (class - 1, score, x1, y1, x2, y2); false when its best class
  // is the background or its score is below the threshold.
  template <typename T>
  WEFT_HOST_DEVICE bool Row(const T* prob, const T* loc, const T* anc, int64_t i, T row[6]) const {
    T score = -1;
    int64_t id = 0;
    for (int64_t j = 1; j < nc; ++j)
      if (prob[j * na + i] > score) {
        score = prob[j * na + i];
        id = j;
      }
    if (id == 0 || score < thresh) return false;
    const T *a = anc + i * 4, *l = loc + i * 4;
    const T aw = a[2] - a[0], ah = a[3] - a[1], ax = (a[0] + a[2]) / 2, ay = (a[1] + a[3]) / 2;
    const T ox = l[0] * var[0] * aw + ax, oy = l[1] * var[1] * ah + ay;
    const T ow = Exp(l[2] * var[2]) * aw / 2, oh = Exp(l[3] * var[3]) * ah / 2;
    const T v[6] = {static_cast<T>(id - 1), score, ox - ow, oy - oh, ox + ow, oy + oh};
    for (int e = 0; e < 6; ++e) row[e] = v[e];
    if (clip)  // std::max(0, std::min(1, x))
      for (int e = 2; e < 6; ++e) {
        T x = row[e] < T(1) ? row[e] : T(1);
        row[e] = T(0) < x ? x : T(0);
      }
    return true;
  }

  // Whether kept row r suppresses row s (both of class >= 0).
  template <typename T>
  WEFT_HOST_DEVICE bool Suppresses(const T* r, const T* s) const {
    if (!force && r[0] != s[0]) return false;
    const T* a = r + 2;
    const T* b = s + 2;
    auto max = [](T x, T y) { return x < y ? y : x; };
    auto min = [](T x, T y) { return y < x ? y : x; };
    const T w = max(T(0), min(a[2], b[2]) - max(a[0], b[0]));
    const T h = max(T(0), min(a[3], b[3]) - max(a[1], b[1]));
    const T i = w * h;
    const T u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i;
    return (u <= 0 ? T(0) : i / u) >= static_cast<T>(nms);
  }
};

inline DetectParams MakeDetectParams(const NodeAttrs& attrs, const Shape& prob) {
  const DetectScalars& q = attrs.params.Decoded<DetectScalars>();
  const std::vector<float> var = op::FloatTupleValue(attrs, "variances", 4);
  DetectParams d;
  for (int e = 0; e < 4; ++e) d.var[e] = var[e];
  d.clip = q.clip;
  d.force = q.force;
  d.thresh = q.thresh;
  d.nms = q.nms;
  d.topk = q.topk;
  d.nc = prob[1];
  d.na = prob[2];
  return d;
}

}  // namespace weft

#endif  // WEFT_KERNELS_MULTIBOX_H_
