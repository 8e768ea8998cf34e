// _onnx_NonMaxSuppression: ONNX's NonMaxSuppression (opsets 10-11), which
// MXNet has no form of (its box_nms keeps a fixed shape): boxes (B, N, 4),
// scores (B, C, N) -> selected (K, 3) int64 rows [batch, class, box]. Per
// batch and class, boxes whose score is above score_threshold (when
// use_score_threshold) are visited by descending score (ties: lower box
// index first) and kept unless their IoU with a kept box of that class
// exceeds iou_threshold, at most max_output_boxes_per_class of them (0:
// none); rows batch-major, then class, then score. center_point_box 0: a
// box is [y1, x1, y2, x2], any two opposite corners; 1: [x_center,
// y_center, width, height]. K depends on the values, so the op is dynamic
// (weft/dynamic_shape.h): its shape inference leaves K unknown, and only
// imperative calls (a CachedOp) run it; K may be 0 (an output of no row).
#include <algorithm>

#include "nn_spatial.h"
#include "weft/dynamic_shape.h"

namespace weft {
namespace op {

namespace {

bool NmsShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& boxes = (*in)[0];
  const Shape& scores = (*in)[1];
  if (boxes.ndim_known() && (boxes.ndim() != 3 || (boxes[2] != 0 && boxes[2] != 4)))
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'boxes' must be (batches, boxes, 4), got ",
         boxes.ToString());
  if (scores.ndim_known() && scores.ndim() != 3)
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'scores' must be (batches, classes, boxes), got ", scores.ToString());
  if (boxes.is_known() && scores.is_known() && (boxes[0] != scores[0] || boxes[1] != scores[2]))
    Fail(StatusCode::kShape, OpLabel(attrs), ": boxes ", boxes.ToString(), " and scores ",
         scores.ToString(), " disagree on the batches or the boxes");
  AssignShape(attrs, out, 0, Shape{0, 3}, "output 'selected_indices'");
  return boxes.is_known() && scores.is_known();
}

bool NmsType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  for (size_t i = 0; i < 2; ++i)
    AssignType(attrs, in, i, DType::kFloat32, i ? "input 'scores'" : "input 'boxes'");
  AssignType(attrs, out, 0, DType::kInt64, "output 'selected_indices'");
  return true;
}

// At most every box of every batch and class, capped per class (one row at
// least, which the kernel fills with -1: the predictor's bound shapes come
// from shape inference, which reads an extent of 0 as unknown).
std::vector<Shape> NmsBound(const NodeAttrs& attrs, const std::vector<Shape>& in) {
  const int64_t cap = std::max<int64_t>(attrs.params.GetInt("max_output_boxes_per_class"), 0);
  const int64_t per_class = std::min(in[0][1], cap);
  return {Shape{std::max<int64_t>(in[1][0] * in[1][1] * per_class, 1), 3}};
}

// The kernel writes its rows first and -1 after them.
std::vector<int64_t> NmsRows(const NodeAttrs&, const std::vector<NDArray>& out) {
  const NDArray& sel = out[0];
  sel.WaitToRead();
  const auto* v = static_cast<const int64_t*>(sel.dptr());
  int64_t rows = 0;
  while (rows < sel.shape()[0] && v[rows * 3] >= 0) ++rows;
  return {rows};
}

}  // namespace

void RegisterOnnxNms(OpRegistry* reg) {
  OpDef f;
  f.name = "_onnx_NonMaxSuppression";
  f.doc =
      "ONNX NonMaxSuppression: the [batch, class, box] rows of the boxes kept per batch and "
      "class; the row count depends on the data (run through a CachedOp).";
  f.params = {
      IntParam("center_point_box", "0", "0: [y1, x1, y2, x2] corners; 1: [xc, yc, w, h]."),
      IntParam("max_output_boxes_per_class", "0", "Boxes kept per batch and class at most."),
      FloatParam("iou_threshold", "0", "A box overlapping a kept one by more IoU is dropped."),
      FloatParam("score_threshold", "0", "Boxes need a higher score (when used)."),
      BoolParam("use_score_threshold", "False", "Whether score_threshold applies."),
  };
  f.num_inputs = 2;
  f.input_names = FixedNames({"boxes", "scores"});
  f.output_names = FixedNames({"selected_indices"});
  f.infer_shape = NmsShape;
  f.infer_type = NmsType;
  // A run's boxes without elements (none, or no batch): no row is selected
  // (the dynamic bound sizes the call; its rows are 0).
  f.infer_empty_shape = [](const NodeAttrs& attrs, const std::vector<Shape>& in) {
    std::vector<Shape> s = in, out(1);
    NmsShape(attrs, &s, &out);
    return std::vector<Shape>{Shape{0, 3}};
  };
  reg->Add(std::move(f));
  RegisterDynamicShapeOp("_onnx_NonMaxSuppression", {NmsBound, NmsRows});
}

}  // namespace op
}  // namespace weft
