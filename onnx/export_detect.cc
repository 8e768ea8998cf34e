// The building blocks of the detection converters: sorting, gathering per
// batch item, and NonMaxSuppression's selection as a mask.
#include "export_detect.h"

namespace weft {
namespace onnx_export {

DType DetectComputeType(DType t) {
  if (t != DType::kFloat32 && t != DType::kFloat64 && t != DType::kFloat16)
    ThrowUnsupported(std::string("dtype ") + DTypeName(t) + " (float16, float32, float64 only)");
  return t == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
}

std::string CastType(Context& cx, const std::string& x, DType from, DType to,
                     const std::string& name) {
  return from == to ? x : CastTo(cx, x, OnnxElemType(to), name);
}

std::string ConstOf(Context& cx, const std::string& name, const std::vector<float>& values,
                    const std::vector<int64_t>& dims, DType t) {
  return CastType(cx, cx.ConstFloats(name, values, dims), DType::kFloat32, t, name + "_t");
}

std::string Filled(Context& cx, const std::string& shape, double value, DType t,
                   const std::string& name) {
  const std::string out = cx.Fresh(name);
  onnx::AttributeProto* v = cx.Add("ConstantOfShape", {shape}, {out}, name)->add_attribute();
  v->set_name("value");
  v->set_type(onnx::AttributeProto::TENSOR);
  v->mutable_t()->add_dims(1);
  if (t == DType::kFloat64) {
    v->mutable_t()->set_data_type(onnx::TensorProto::DOUBLE);
    v->mutable_t()->add_double_data(value);
  } else {
    v->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
    v->mutable_t()->add_float_data(static_cast<float>(value));
  }
  return out;
}

std::string ColumnOf(Context& cx, const std::string& x, int64_t c, const std::string& name) {
  return Squeeze(cx, SliceRange(cx, x, c, c + 1, 2, name + "_col"), {2}, name);
}

std::string TopIndices(Context& cx, const std::string& key, int64_t k, const std::string& name) {
  const std::string values = cx.Fresh(name + "_values"), idx = cx.Fresh(name);
  onnx::NodeProto* top = cx.Add("TopK", {key, cx.ConstInts(name + "_k", {k})}, {values, idx}, name);
  SetInt(top, "axis", 1);
  SetInt(top, "largest", 1);
  SetInt(top, "sorted", 1);
  return idx;
}

std::string GatherRows(Context& cx, const std::string& x, const std::string& idx, int64_t width,
                       const std::string& name) {
  const std::string col = Unsqueeze(cx, idx, {2}, name + "_idx");
  const std::string wide =
      cx.Add1("Expand", {col, cx.ConstInts(name + "_width", {1, 1, width})}, name + "_wide");
  const std::string out = cx.Fresh(name);
  SetInt(cx.Add("GatherElements", {x, wide}, {out}, name), "axis", 1);
  return out;
}

std::string GatherCols(Context& cx, const std::string& x, const std::string& idx,
                       const std::string& name) {
  const std::string out = cx.Fresh(name);
  SetInt(cx.Add("GatherElements", {x, idx}, {out}, name), "axis", 1);
  return out;
}

std::string RankScores(Context& cx, int64_t n, const std::vector<int64_t>& dims,
                       const std::string& name) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) v[j] = static_cast<float>(n - j);
  return cx.ConstFloats(name, v, dims);
}

KeptBoxes KeepByNms(Context& cx, const std::string& boxes, const std::string& scores, int64_t n,
                    float iou, bool center, const std::string& name) {
  const std::string sel = cx.Fresh(name + "_selected");
  onnx::NodeProto* nms = cx.Add("NonMaxSuppression",
                                {boxes, scores, cx.ConstInts(name + "_max_out", {n}),
                                 cx.ConstFloats(name + "_iou", {iou}, {1}),
                                 cx.ConstFloats(name + "_score_thresh", {0.f}, {1})},
                                {sel}, name);
  SetInt(nms, "center_point_box", center ? 1 : 0);
  KeptBoxes k;
  k.pairs = cx.Fresh(name + "_pairs");  // (batch, box) of each selected row
  SetInt(cx.Add("Gather", {sel, cx.ConstInts(name + "_cols", {0, 2})}, {k.pairs}, name + "_pairs"),
         "axis", 1);
  const std::string count =
      SliceRange(cx, cx.Add1("Shape", {sel}, name + "_sel_shape"), 0, 1, 0, name + "_count");
  const std::string ones = Filled(cx, count, 1, DType::kFloat32, name + "_ones");
  const std::string batch_n =
      SliceRange(cx, cx.Add1("Shape", {boxes}, name + "_box_shape"), 0, 2, 0, name + "_bn");
  const std::string zeros = Filled(cx, batch_n, 0, DType::kFloat32, name + "_zeros");
  k.mask = cx.Add1("ScatterND", {zeros, k.pairs, ones}, name + "_kept");
  return k;
}

}  // namespace onnx_export
}  // namespace weft
