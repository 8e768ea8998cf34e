// CPU kernel of _onnx_NonMaxSuppression (semantics in core/src/op/onnx_nms.cc;
// arithmetic in float, as ONNX Runtime's). Writes the selected rows first
// and -1 in the rest of the upper-bound output (weft/dynamic_shape.h).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "box_nms.h"
#include "cpu/cpu_util.h"

namespace weft {
namespace cpu {

namespace {

struct NmsBoxes {
  const float* data = nullptr;  // (n, 4) boxes of one batch
  bool center = false;          // [xc, yc, w, h] rather than two corners
  std::vector<float> corners;   // corner boxes as [lo0, lo1, hi0, hi1]

  // Two opposite corners in any order become [lo, lo, hi, hi].
  void Normalise(int64_t n) {
    if (center) return;
    corners.resize(static_cast<size_t>(n) * 4);
    for (int64_t i = 0; i < n; ++i) {
      const float* b = data + i * 4;
      float* c = corners.data() + i * 4;
      c[0] = std::min(b[0], b[2]);
      c[2] = std::max(b[0], b[2]);
      c[1] = std::min(b[1], b[3]);
      c[3] = std::max(b[1], b[3]);
    }
  }
  const float* Box(int64_t i) const { return center ? data + i * 4 : corners.data() + i * 4; }

  // Whether box j overlaps kept box i by more than `threshold` IoU.
  bool Suppresses(int64_t i, int64_t j, float threshold) const {
    const float *a = Box(i), *b = Box(j);
    const float inter = Intersect1D(a, b, center) * Intersect1D(a + 1, b + 1, center);
    if (inter <= 0) return false;
    const float area_a = BoxArea(a, center), area_b = BoxArea(b, center);
    const float uni = area_a + area_b - inter;
    if (area_a <= 0 || area_b <= 0 || uni <= 0) return false;
    return inter / uni > threshold;
  }
};

// The node's parameters, decoded once (ParamValues::Decoded).
struct NmsParams {
  int64_t cap = 0;
  float iou = 0, score_min = 0;
  bool use_score = false, center = false;
  static NmsParams Decode(const ParamValues& p) {
    NmsParams q;
    q.cap = std::max<int64_t>(p.GetInt("max_output_boxes_per_class"), 0);
    q.iou = static_cast<float>(p.GetFloat("iou_threshold"));
    q.score_min = static_cast<float>(p.GetFloat("score_threshold"));
    q.use_score = p.GetBool("use_score_threshold");
    q.center = p.GetInt("center_point_box") == 1;
    return q;
  }
};

void OnnxNmsCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const NmsParams& q = attrs.params.Decoded<NmsParams>();
  const int64_t batches = in[1].shape[0], classes = in[1].shape[1], n = in[1].shape[2];
  const int64_t cap = q.cap;
  const float iou = q.iou, score_min = q.score_min;
  const bool use_score = q.use_score;
  if (iou < 0 || iou > 1)
    Fail(StatusCode::kInvalidArgument, "_onnx_NonMaxSuppression (node '", attrs.name,
         "'): iou_threshold must be in [0, 1], got ", iou);
  int64_t* sel = out[0].data<int64_t>();
  std::fill(sel, sel + out[0].Size(), int64_t{-1});
  int64_t rows = 0;
  std::vector<int64_t> order, kept;
  for (int64_t b = 0; b < batches && cap > 0; ++b) {
    NmsBoxes boxes;
    boxes.data = in[0].data<float>() + b * n * 4;
    boxes.center = q.center;
    boxes.Normalise(n);
    for (int64_t c = 0; c < classes; ++c) {
      const float* s = in[1].data<float>() + (b * classes + c) * n;
      order.clear();
      for (int64_t i = 0; i < n; ++i)
        if (!use_score || s[i] > score_min) order.push_back(i);
      std::stable_sort(order.begin(), order.end(),
                       [s](int64_t i, int64_t j) { return s[i] > s[j]; });
      kept.clear();
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= cap) break;
        bool keep = true;
        for (size_t k = 0; k < kept.size() && keep; ++k) keep = !boxes.Suppresses(kept[k], i, iou);
        if (!keep) continue;
        kept.push_back(i);
        sel[rows * 3] = b;
        sel[rows * 3 + 1] = c;
        sel[rows * 3 + 2] = i;
        ++rows;
      }
    }
  }
}

}  // namespace

void RegisterOnnxNmsCpu(KernelRegistry* reg) {
  reg->Add("_onnx_NonMaxSuppression", DeviceType::kCPU, {"cpu", 0, OnnxNmsCpu, false});
}

}  // namespace cpu
}  // namespace weft
