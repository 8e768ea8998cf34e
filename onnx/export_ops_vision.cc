// ONNX export of the region and resizing operators: _contrib_ROIAlign as
// RoiAlign, UpSampling (nearest) and BilinearResize2D as Resize.
// MultiBoxPrior's anchors are constants (export_fold.h); without a runtime
// it is reported here. box_nms and MultiBoxDetection: export_ops_box_nms.cc
// and export_ops_multibox.cc.
#include <algorithm>

#include "export_context.h"

namespace weft {
namespace onnx_export {

namespace {

void ROIAlign(Context& cx, const ExportNode& n) {
  const ParamValues& p = n.params();
  if (p.GetBool("position_sensitive")) ThrowUnsupported("position_sensitive=True");
  const bool aligned = p.GetBool("aligned");
  if (aligned && cx.opset() < 16) ThrowUnsupported("aligned=True needs opset 16 (half_pixel)");
  const std::string nm = n.name();
  const std::string rois = n.inputs[1];
  const std::string bidx =
      Squeeze(cx, SliceRange(cx, rois, 0, 1, 1, nm + "_batch"), {1}, nm + "_batch1");
  const std::string boxes = SliceRange(cx, rois, 1, 5, 1, nm + "_boxes");
  onnx::NodeProto* node = cx.Add(
      "RoiAlign", {n.inputs[0], boxes, CastTo(cx, bidx, onnx::TensorProto::INT64, nm + "_bidx")},
      {n.outputs[0]}, nm);
  const Shape& ps = p.GetShape("pooled_size");
  SetInt(node, "output_height", ps[0]);
  SetInt(node, "output_width", ps.ndim() > 1 ? ps[1] : ps[0]);
  SetFloat(node, "spatial_scale", static_cast<float>(p.GetFloat("spatial_scale")));
  SetInt(node, "sampling_ratio", std::max<int64_t>(0, p.GetInt("sample_ratio")));
  SetString(node, "mode", "avg");
  if (cx.opset() >= 16)
    SetString(node, "coordinate_transformation_mode", aligned ? "half_pixel" : "output_half_pixel");
}

// Resize with `scales` (roi empty; opset 11 takes it as an input anyway).
onnx::NodeProto* ResizeScales(Context& cx, const ExportNode& n, const std::vector<float>& scales) {
  const std::string roi = cx.ConstFloats(n.name() + "_roi", {}, {0});
  const std::string sc =
      cx.ConstFloats(n.name() + "_scales", scales, {static_cast<int64_t>(scales.size())});
  return cx.Add("Resize", {n.inputs[0], roi, sc}, {n.outputs[0]}, n.name());
}

void UpSampling(Context& cx, const ExportNode& n) {
  const ParamValues& p = n.params();
  if (p.GetString("sample_type") != "nearest") ThrowUnsupported("sample_type 'bilinear'");
  if (n.inputs.size() != 1) ThrowUnsupported("num_args > 1");
  const float s = static_cast<float>(p.GetInt("scale"));
  onnx::NodeProto* node = ResizeScales(cx, n, {1, 1, s, s});
  SetString(node, "mode", "nearest");
  SetString(node, "coordinate_transformation_mode", "asymmetric");
  SetString(node, "nearest_mode", "floor");
}

void BilinearResize2D(Context& cx, const ExportNode& n) {
  const ParamValues& p = n.params();
  if (n.inputs.size() != 1) ThrowUnsupported("a second input (mode 'like')");
  const std::string nm = n.name();
  const std::string roi = cx.ConstFloats(nm + "_roi", {}, {0});
  const std::string scales = cx.ConstFloats(nm + "_scales", {}, {0});
  const std::string sizes = cx.ConstInts(nm + "_sizes", Dims(n.out_shapes[0]));
  onnx::NodeProto* node = cx.Add("Resize", {n.inputs[0], roi, scales, sizes}, {n.outputs[0]}, nm);
  SetString(node, "mode", "linear");
  SetString(node, "coordinate_transformation_mode",
            p.GetBool("align_corners") ? "align_corners" : "half_pixel");
}

void MultiBoxPrior(Context&, const ExportNode&) {
  ThrowUnsupported("its anchors are computed at export, which needs a runtime");
}

}  // namespace

void AddVisionConverters(ConverterTable* t) {
  (*t)["_contrib_ROIAlign"] = ROIAlign;
  (*t)["UpSampling"] = UpSampling;
  (*t)["_contrib_BilinearResize2D"] = BilinearResize2D;
  (*t)["_contrib_MultiBoxPrior"] = MultiBoxPrior;
}

}  // namespace onnx_export
}  // namespace weft
