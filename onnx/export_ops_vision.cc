// ONNX export of the detection and resizing operators: _contrib_box_nms as
// NonMaxSuppression with the gathers that rebuild MXNet's sorted,
// -1-padded output, _contrib_ROIAlign as RoiAlign, UpSampling (nearest)
// and BilinearResize2D as Resize. MultiBoxPrior's anchors are constants
// (export_fold.h); without a runtime it is reported here.
#include <algorithm>

#include "export_context.h"

namespace weft {
namespace onnx_export {

namespace {

std::string SliceLast(Context& cx, const std::string& x, int64_t begin, int64_t end, int64_t axis,
                      const std::string& name) {
  return cx.Add1("Slice",
                 {x, cx.ConstInts(name + "_starts", {begin}), cx.ConstInts(name + "_ends", {end}),
                  cx.ConstInts(name + "_axes", {axis})},
                 name);
}

std::string CastTo(Context& cx, const std::string& x, int to, const std::string& name) {
  const std::string out = cx.Fresh(name);
  SetInt(cx.Add("Cast", {x}, {out}, name), "to", to);
  return out;
}

// The -1 rows padding `kept` (M, k) to `rows` rows, in dtype `t`.
std::string PadRows(Context& cx, const std::string& kept, int64_t rows, int64_t k, DType t,
                    const std::string& nm) {
  const std::string m = SliceLast(cx, cx.Add1("Shape", {kept}, nm + "_m"), 0, 1, 0, nm + "_m1");
  const std::string pad_rows = cx.Add1("Sub", {cx.ConstInts(nm + "_n", {rows}), m}, nm + "_pad");
  const std::string pad_shape = cx.Fresh(nm + "_pad_shape");
  SetInt(cx.Add("Concat", {pad_rows, cx.ConstInts(nm + "_k", {k})}, {pad_shape}, nm + "_pad_shape"),
         "axis", 0);
  const std::string fill = cx.Fresh(nm + "_fill");
  onnx::NodeProto* cos = cx.Add("ConstantOfShape", {pad_shape}, {fill}, nm + "_fill");
  onnx::AttributeProto* v = cos->add_attribute();
  v->set_name("value");
  v->set_type(onnx::AttributeProto::TENSOR);
  v->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  v->mutable_t()->add_dims(1);
  v->mutable_t()->add_float_data(-1.0f);
  return t == DType::kFloat32 ? fill : CastTo(cx, fill, OnnxElemType(t), nm + "_fill_t");
}

// Column `c` of rows (R, k) as (R,) float32.
std::string Column(Context& cx, const std::string& rows, int64_t c, const std::string& name) {
  const std::string col = Squeeze(cx, SliceLast(cx, rows, c, c + 1, 1, name), {1}, name + "_1");
  return CastTo(cx, col, onnx::TensorProto::FLOAT, name + "_f");
}

// MXNet's candidates (score > valid_thresh, class not background_id) keep
// their score; the others get the lowest float, below any threshold.
std::string CandidateScores(Context& cx, const ParamValues& p, const std::string& flat,
                            const std::string& nm) {
  const std::string score = Column(cx, flat, p.GetInt("score_index"), nm + "_score");
  std::string ok = cx.Add1(
      "Greater",
      {score, cx.ConstFloats(nm + "_valid", {static_cast<float>(p.GetFloat("valid_thresh"))}, {})},
      nm + "_valid_ok");
  if (p.GetInt("id_index") >= 0) {
    const std::string id = Column(cx, flat, p.GetInt("id_index"), nm + "_id");
    const std::string bg = cx.Add1(
        "Equal",
        {id, cx.ConstFloats(nm + "_bg", {static_cast<float>(p.GetInt("background_id"))}, {})},
        nm + "_bg_eq");
    ok = cx.Add1("And", {ok, cx.Add1("Not", {bg}, nm + "_not_bg")}, nm + "_cand");
  }
  return cx.Add1("Where", {ok, score, cx.ConstFloats(nm + "_lowest", {-3.0e38f}, {})},
                 nm + "_cand_score");
}

// The boxes of `rows` (R, k) as (1, R, 4) float32; per-class suppression
// moves each class's boxes apart by id x (coordinate span + 1), so that
// boxes of different classes never overlap.
std::string NmsBoxes(Context& cx, const ParamValues& p, const std::string& rows,
                     const std::string& nm) {
  const int64_t c0 = p.GetInt("coord_start");
  std::string boxes = CastTo(cx, SliceLast(cx, rows, c0, c0 + 4, 1, nm + "_boxes"),
                             onnx::TensorProto::FLOAT, nm + "_boxes_f");
  if (p.GetInt("id_index") >= 0 && !p.GetBool("force_suppress")) {
    const std::string hi = cx.Fresh(nm + "_hi"), lo = cx.Fresh(nm + "_lo");
    Reduce(cx, "ReduceMax", boxes, {}, false, hi, nm + "_hi");
    Reduce(cx, "ReduceMin", boxes, {}, false, lo, nm + "_lo");
    const std::string span = cx.Add1(
        "Add", {cx.Add1("Sub", {hi, lo}, nm + "_span0"), cx.ConstFloats(nm + "_one", {1}, {})},
        nm + "_span");
    const std::string id =
        Unsqueeze(cx, Column(cx, rows, p.GetInt("id_index"), nm + "_cls"), {1}, nm + "_cls_col");
    const bool center = p.GetString("in_format") == "center";  // (x, y, w, h): move x, y
    const std::string dirs = cx.ConstFloats(
        nm + "_dirs", center ? std::vector<float>{1, 1, 0, 0} : std::vector<float>{1, 1, 1, 1},
        {1, 4});
    const std::string off =
        cx.Add1("Mul", {cx.Add1("Mul", {id, span}, nm + "_shift"), dirs}, nm + "_offset");
    boxes = cx.Add1("Add", {boxes, off}, nm + "_apart");
  }
  return Unsqueeze(cx, boxes, {0}, nm + "_boxes3");
}

// data (N, K) or (1, N, K): MXNet's candidates by descending score, the
// first topk of them, greedy suppression (per class unless force_suppress);
// the kept rows in that order, then rows of -1.
void BoxNms(Context& cx, const ExportNode& n) {
  OnlyFirstOutput(n);
  const ParamValues& p = n.params();
  const Shape& s = n.in_shapes[0];
  const int rank = s.ndim();
  if (rank == 3 && s[0] != 1) ThrowUnsupported("batch " + std::to_string(s[0]) + " (1 only)");
  if (rank != 2 && rank != 3) ThrowUnsupported("input rank " + std::to_string(rank));
  if (p.GetString("in_format") != p.GetString("out_format"))
    ThrowUnsupported("in_format differs from out_format");
  const int64_t rows = s[rank - 2], k = s[rank - 1];
  const std::string nm = n.name();
  std::string flat = ReshapeTo(cx, n.inputs[0], {rows, k}, nm + "_rows");
  std::string score = CandidateScores(cx, p, flat, nm);
  int64_t cand = rows;
  if (p.GetInt("topk") > 0 && p.GetInt("topk") < rows) {  // the topk best candidates first
    cand = p.GetInt("topk");
    const std::string best = cx.Fresh(nm + "_topk"), order = cx.Fresh(nm + "_topk_idx");
    cx.Add("TopK", {score, cx.ConstInts(nm + "_k", {cand})}, {best, order}, nm + "_topk");
    const std::string picked = cx.Fresh(nm + "_picked");
    SetInt(cx.Add("Gather", {flat, order}, {picked}, nm + "_picked"), "axis", 0);
    flat = picked;
    score = best;
  }
  std::vector<std::string> in = {
      NmsBoxes(cx, p, flat, nm), ReshapeTo(cx, score, {1, 1, cand}, nm + "_scores"),
      cx.ConstInts(nm + "_max_out", {cand}),
      cx.ConstFloats(nm + "_iou", {static_cast<float>(p.GetFloat("overlap_thresh"))}, {1}),
      cx.ConstFloats(nm + "_score_thresh", {static_cast<float>(p.GetFloat("valid_thresh"))}, {1})};
  const std::string sel = cx.Fresh(nm + "_selected");
  onnx::NodeProto* nms = cx.Add("NonMaxSuppression", in, {sel}, nm);
  SetInt(nms, "center_point_box", p.GetString("in_format") == "center" ? 1 : 0);
  // Kept rows (M, K) in the order selected (descending score), then -1 rows.
  const std::string idx =
      Squeeze(cx, SliceLast(cx, sel, 2, 3, 1, nm + "_box_idx"), {1}, nm + "_box_idx1");
  const std::string kept = cx.Fresh(nm + "_kept");
  SetInt(cx.Add("Gather", {flat, idx}, {kept}, nm + "_kept"), "axis", 0);
  const std::string joined = cx.Fresh(nm + "_joined");
  SetInt(cx.Add("Concat", {kept, PadRows(cx, kept, rows, k, n.in_types[0], nm)}, {joined},
                nm + "_joined"),
         "axis", 0);
  ReshapeTo(cx, joined, Dims(n.out_shapes[0]), nm + "_out", n.outputs[0]);
}

void ROIAlign(Context& cx, const ExportNode& n) {
  const ParamValues& p = n.params();
  if (p.GetBool("position_sensitive")) ThrowUnsupported("position_sensitive=True");
  const bool aligned = p.GetBool("aligned");
  if (aligned && cx.opset() < 16) ThrowUnsupported("aligned=True needs opset 16 (half_pixel)");
  const std::string nm = n.name();
  const std::string rois = n.inputs[1];
  const std::string bidx =
      Squeeze(cx, SliceLast(cx, rois, 0, 1, 1, nm + "_batch"), {1}, nm + "_batch1");
  const std::string boxes = SliceLast(cx, rois, 1, 5, 1, nm + "_boxes");
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

void MultiBoxDetection(Context&, const ExportNode&) {
  ThrowUnsupported(
      "MXNet's output keeps suppressed rows in place with class -1 (and rows past nms_topk "
      "unsorted); rebuilding that from NonMaxSuppression's selection is not written");
}

void MultiBoxPrior(Context&, const ExportNode&) {
  ThrowUnsupported("its anchors are computed at export, which needs a runtime");
}

}  // namespace

void AddVisionConverters(ConverterTable* t) {
  (*t)["_contrib_box_nms"] = BoxNms;
  (*t)["_contrib_ROIAlign"] = ROIAlign;
  (*t)["UpSampling"] = UpSampling;
  (*t)["_contrib_BilinearResize2D"] = BilinearResize2D;
  (*t)["_contrib_MultiBoxPrior"] = MultiBoxPrior;
  (*t)["_contrib_MultiBoxDetection"] = MultiBoxDetection;
}

}  // namespace onnx_export
}  // namespace weft
