// Converters of ONNX's Resize / Upsample, RoiAlign and TopK onto MXNet's
// UpSampling (nearest, integer factors), _contrib_BilinearResize2D,
// _contrib_ROIAlign and topk, and of NonMaxSuppression onto
// _onnx_NonMaxSuppression.
#include <cmath>

#include "import_context.h"
#include "weft/status.h"

namespace weft {
namespace onnx_import {
namespace {

// Resize's output extents of the spatial axes of a static 4-D input, from
// `sizes` or `scales` (whichever the node gives).
std::vector<int64_t> ResizeOutput(ImportContext& c, const Shape& in) {
  const auto& n = *c.node;
  const std::string& op = n.op_type();
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (op == "Upsample") {
    if (c.opset < 9) {
      const auto* a = FindAttr(n, "scales");
      if (a) scales.assign(a->floats().begin(), a->floats().end());
    } else {
      const ConstTensor& s = c.Const(n.input(1), "scales");
      for (size_t k = 0; k < s.size(); ++k) scales.push_back(s.real(k));
    }
  } else {
    const int scales_index = c.opset < 11 ? 1 : 2;
    if (HasInput(n, scales_index) && c.Const(n.input(scales_index), "scales").size() > 0) {
      const ConstTensor& s = c.Const(n.input(scales_index), "scales");
      for (size_t k = 0; k < s.size(); ++k) scales.push_back(s.real(k));
    } else if (c.opset >= 11 && HasInput(n, 3)) {
      sizes = c.Const(n.input(3), "sizes").AsInts();
    }
  }
  if (!sizes.empty()) {
    if (sizes.size() != 4 || sizes[0] != in[0] || sizes[1] != in[1])
      c.Unsupported("sizes " + Tuple(sizes) + " (only the spatial axes of a 4-D input resize)");
    return {sizes[2], sizes[3]};
  }
  if (scales.size() != 4 || scales[0] != 1 || scales[1] != 1)
    c.Unsupported("scales other than (1, 1, sh, sw) on a 4-D input");
  return {static_cast<int64_t>(std::floor(in[2] * scales[2])),
          static_cast<int64_t>(std::floor(in[3] * scales[3]))};
}

void ConvertResize(ImportContext& c) {
  const auto& n = *c.node;
  const Shape in = c.KnownShape(n.input(0), "X");
  if (in.ndim() != 4) c.Unsupported("a " + std::to_string(in.ndim()) + "-D input (4-D only)");
  const std::vector<int64_t> out = ResizeOutput(c, in);
  const std::string mode = AttrString(n, "mode", "nearest");
  const std::string ctm =
      AttrString(n, "coordinate_transformation_mode", c.opset < 11 ? "asymmetric" : "half_pixel");
  const Symbol x = c.Sym(n.input(0));
  if (mode == "nearest") {
    const std::string nm = AttrString(n, "nearest_mode", "round_prefer_floor");
    const bool repeat =
        (ctm == "asymmetric" && (nm == "floor" || c.opset < 11)) ||
        ((ctm == "half_pixel" || ctm == "pytorch_half_pixel") && nm != "floor" && nm != "ceil");
    const int64_t f = out[0] / in[2];
    if (!repeat || out[0] != f * in[2] || out[1] != f * in[3])
      c.Unsupported(
          "nearest resizing other than an equal integer factor on both axes "
          "(coordinate_transformation_mode " +
          ctm + ", nearest_mode " + nm + ")");
    c.SetOut(0,
             c.Op("UpSampling", {x},
                  {{"scale", std::to_string(f)}, {"sample_type", "nearest"}, {"num_args", "1"}}));
    return;
  }
  if (mode != "linear") c.Unsupported("mode '" + mode + "' (nearest and linear only)");
  bool align;
  if (ctm == "align_corners")
    align = true;
  else if (ctm == "half_pixel" || ctm == "pytorch_half_pixel")
    align = false;
  else
    c.Unsupported("linear resizing with coordinate_transformation_mode '" + ctm + "'");
  c.SetOut(0, c.Op("_contrib_BilinearResize2D", {x},
                   {{"height", std::to_string(out[0])},
                    {"width", std::to_string(out[1])},
                    {"align_corners", align ? "True" : "False"}}));
}

void ConvertRoiAlign(ImportContext& c) {
  const auto& n = *c.node;
  if (AttrString(n, "mode", "avg") != "avg") c.Unsupported("mode max (MXNet's ROIAlign averages)");
  const std::string ctm = AttrString(n, "coordinate_transformation_mode",
                                     c.opset < 16 ? "output_half_pixel" : "half_pixel");
  const Symbol idx = c.Op("Cast", {c.Sym(n.input(2))}, {{"dtype", "float32"}}, "_batch_f");
  const Symbol col = c.Op("expand_dims", {idx}, {{"axis", "1"}}, "_batch_col");
  const Symbol rois =
      c.Op("Concat", {col, c.Sym(n.input(1))}, {{"dim", "1"}, {"num_args", "2"}}, "_rois");
  const int64_t sr = AttrInt(n, "sampling_ratio", 0);
  c.SetOut(
      0,
      c.Op("_contrib_ROIAlign", {c.Sym(n.input(0)), rois},
           {{"pooled_size", Tuple({AttrInt(n, "output_height", 1), AttrInt(n, "output_width", 1)})},
            {"spatial_scale", FormatScalar(AttrFloat(n, "spatial_scale", 1.0f))},
            {"sample_ratio", std::to_string(sr <= 0 ? -1 : sr)},
            {"aligned", ctm == "half_pixel" ? "True" : "False"}}));
}

void ConvertTopK(ImportContext& c) {
  const auto& n = *c.node;
  const int64_t k = c.opset < 10 ? AttrInt(n, "k", 1) : c.Const(n.input(1), "K").integer(0);
  if (AttrInt(n, "sorted", 1) == 0) c.Unsupported("sorted 0");
  const Symbol t = c.Op("topk", {c.Sym(n.input(0))},
                        {{"axis", std::to_string(AttrInt(n, "axis", -1))},
                         {"k", std::to_string(k)},
                         {"ret_typ", "both"},
                         {"is_ascend", AttrInt(n, "largest", 1) ? "False" : "True"}});
  c.SetOut(0, t[0]);
  if (n.output_size() > 1 && !n.output(1).empty()) c.SetOut(1, t[1]);
}

// NonMaxSuppression onto _onnx_NonMaxSuppression, whose row count depends
// on the data (a model holding it runs through a CachedOp). Its optional
// scalar inputs must be constants; they become attributes.
void ConvertNonMaxSuppression(ImportContext& c) {
  const auto& n = *c.node;
  const int64_t center = AttrInt(n, "center_point_box", 0);
  if (center != 0 && center != 1)
    c.Unsupported("center_point_box " + std::to_string(center) + " (0 or 1)");
  auto scalar = [&](int i, const char* role) -> const ConstTensor* {
    if (!HasInput(n, i)) return nullptr;
    const ConstTensor& t = c.Const(n.input(i), role);
    if (t.size() != 1)
      c.Unsupported(std::string(role) + " of " + std::to_string(t.size()) + " values (a scalar)");
    return &t;
  };
  const ConstTensor* cap = scalar(2, "max_output_boxes_per_class");
  const ConstTensor* iou = scalar(3, "iou_threshold");
  const ConstTensor* score = scalar(4, "score_threshold");
  c.SetOut(
      0, c.Op("_onnx_NonMaxSuppression", {c.Sym(n.input(0)), c.Sym(n.input(1))},
              {{"center_point_box", std::to_string(center)},
               {"max_output_boxes_per_class", std::to_string(cap ? cap->integer(0) : 0)},
               {"iou_threshold", FormatScalar(iou ? static_cast<float>(iou->real(0)) : 0.0f)},
               {"score_threshold", FormatScalar(score ? static_cast<float>(score->real(0)) : 0.0f)},
               {"use_score_threshold", score ? "True" : "False"}}));
}

}  // namespace

void AddVisionConverters(ConverterMap* m) {
  (*m)["NonMaxSuppression"] = ConvertNonMaxSuppression;
  (*m)["Resize"] = ConvertResize;
  (*m)["Upsample"] = ConvertResize;
  (*m)["RoiAlign"] = ConvertRoiAlign;
  (*m)["TopK"] = ConvertTopK;
}

}  // namespace onnx_import
}  // namespace weft
