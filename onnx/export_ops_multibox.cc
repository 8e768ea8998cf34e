// ONNX export of _contrib_MultiBoxDetection, built on export_detect.h. The
// anchors are decoded with the variances (and clip), each anchor takes its
// best non-background class and that score, and the threshold drops the
// weak ones, as in MXNet's CPU kernel. Then its layout per batch item: the
// first nms_topk valid rows by descending score, those NonMaxSuppression
// drops (IoU >= nms_threshold, per class unless force_suppress) marked
// class -1; then the other valid rows in anchor order, marked class -1;
// then rows of -1. With nms_threshold outside (0, 1] MXNet neither sorts
// nor suppresses: the valid rows in anchor order, then rows of -1.
#include <cmath>
#include <limits>

#include "export_detect.h"
#include "weft/float_tuple.h"

namespace weft {
namespace onnx_export {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// Per anchor (B, A): the row [class - 1, score, x1, y1, x2, y2] (B, A, 6),
// the best class's score and whether the anchor is a detection.
struct Detections {
  std::string rows, score, valid;
};

// The anchors' boxes (B, A, 4) decoded from loc_pred as MXNet does:
// centre + loc * variance * size, half extent exp(loc * variance) * size / 2.
std::string DecodeBoxes(Context& cx, const ExportNode& n, DType ct, const std::string& nm) {
  const int64_t na = n.in_shapes[0][2];
  const DType t = n.in_types[0];
  const std::string loc =
      CastType(cx, ReshapeTo(cx, n.inputs[1], {-1, na, 4}, nm + "_loc"), t, ct, nm + "_loc_t");
  std::string anchor = n.inputs[2];  // MXNet reads the first set of anchors
  if (n.in_shapes[2][0] != 1) anchor = SliceRange(cx, anchor, 0, 1, 0, nm + "_anchor0");
  anchor = CastType(cx, anchor, n.in_types[2], ct, nm + "_anchor_t");
  const std::vector<float> var = op::FloatTupleValue(n.node->attrs, "variances", 4);
  auto op = [&](const char* type, const std::string& a, const std::string& b) {
    return cx.Add1(type, {a, b}, nm + "_" + type);
  };
  const std::string lo = SliceRange(cx, anchor, 0, 2, 2, nm + "_lo");
  const std::string hi = SliceRange(cx, anchor, 2, 4, 2, nm + "_hi");
  const std::string two = cx.ConstScalar(nm + "_two", 2, ct);
  const std::string size = op("Sub", hi, lo);
  const std::string mid = op("Div", op("Add", lo, hi), two);
  const std::string move = op("Mul", SliceRange(cx, loc, 0, 2, 2, nm + "_dxy"),
                              ConstOf(cx, nm + "_var_xy", {var[0], var[1]}, {1, 1, 2}, ct));
  const std::string grow = op("Mul", SliceRange(cx, loc, 2, 4, 2, nm + "_dwh"),
                              ConstOf(cx, nm + "_var_wh", {var[2], var[3]}, {1, 1, 2}, ct));
  const std::string ctr = op("Add", op("Mul", move, size), mid);
  const std::string half = op("Div", op("Mul", cx.Add1("Exp", {grow}, nm + "_exp"), size), two);
  std::string boxes = cx.Fresh(nm + "_boxes");
  SetInt(cx.Add("Concat", {op("Sub", ctr, half), op("Add", ctr, half)}, {boxes}, nm + "_boxes"),
         "axis", 2);
  if (n.params().GetBool("clip"))  // max(0, min(1, x))
    boxes = op("Max", op("Min", boxes, cx.ConstScalar(nm + "_one", 1, ct)),
               cx.ConstScalar(nm + "_zero", 0, ct));
  return boxes;
}

Detections Detect(Context& cx, const ExportNode& n, DType ct, const std::string& nm) {
  const int64_t nc = n.in_shapes[0][1];
  const std::string prob = CastType(cx, n.inputs[0], n.in_types[0], ct, nm + "_prob");
  const std::string fg = SliceRange(cx, prob, 1, nc, 1, nm + "_fg");
  Detections d;
  d.score = cx.Fresh(nm + "_score");
  Reduce(cx, "ReduceMax", fg, {1}, false, d.score, nm + "_score");
  const std::string cls = cx.Fresh(nm + "_class");  // the first best, as MXNet's strict compare
  onnx::NodeProto* am = cx.Add("ArgMax", {fg}, {cls}, nm + "_class");
  SetInt(am, "axis", 1);
  SetInt(am, "keepdims", 0);
  // MXNet starts its search at score -1, then drops scores under threshold.
  const std::string found =
      cx.Add1("Greater", {d.score, cx.ConstScalar(nm + "_start", -1, ct)}, nm + "_found");
  const float thresh = static_cast<float>(n.params().GetFloat("threshold"));
  const std::string weak =
      cx.Add1("Less", {d.score, cx.ConstScalar(nm + "_thresh", thresh, ct)}, nm + "_weak");
  d.valid = cx.Add1("And", {found, cx.Add1("Not", {weak}, nm + "_strong")}, nm + "_valid");
  d.rows = cx.Fresh(nm + "_rows");
  SetInt(cx.Add("Concat",
                {Unsqueeze(cx, CastTo(cx, cls, OnnxElemType(ct), nm + "_class_t"), {2},
                           nm + "_class_col"),
                 Unsqueeze(cx, d.score, {2}, nm + "_score_col"), DecodeBoxes(cx, n, ct, nm)},
                {d.rows}, nm + "_rows"),
         "axis", 2);
  return d;
}

// Whether a column is the class column, (1, 1, 6) bool.
std::string ClassColumn(Context& cx, const std::string& nm) {
  return CastTo(cx, cx.ConstFloats(nm + "_class_col", {1, 0, 0, 0, 0, 0}, {1, 1, 6}),
                onnx::TensorProto::BOOL, nm + "_is_class");
}

// rows (B, k, 6) as MXNet writes them: rows of -1 where `valid` (B, k) is
// false, and class -1 where `mark` (bool, broadcast to (B, k, 6)) holds;
// none when `mark` is empty.
std::string Layout(Context& cx, std::string rows, const std::string& valid, const std::string& mark,
                   DType ct, const std::string& nm) {
  const std::string none = cx.ConstScalar(nm + "_none", -1, ct);
  if (!mark.empty()) rows = cx.Add1("Where", {mark, none, rows}, nm + "_marked");
  return cx.Add1("Where", {Unsqueeze(cx, valid, {2}, nm + "_valid3"), rows, none}, nm + "_laid");
}

// Rows [from, A) of the valid rows in anchor order; classes -1 when
// `marked`, else as they are.
std::string AnchorOrder(Context& cx, const Detections& d, int64_t from, int64_t na, bool marked,
                        DType ct, const std::string& nm) {
  std::vector<float> first(static_cast<size_t>(na));  // earlier anchors rank higher
  for (int64_t i = 0; i < na; ++i) first[i] = static_cast<float>(-i);
  const std::string key = cx.Add1("Where",
                                  {d.valid, cx.ConstFloats(nm + "_first", first, {1, na}),
                                   cx.ConstFloats(nm + "_never", {-kInf}, {})},
                                  nm + "_key");
  std::string idx = TopIndices(cx, key, na, nm + "_order");
  if (from > 0) idx = SliceRange(cx, idx, from, na, 1, nm + "_rest");
  return Layout(cx, GatherRows(cx, d.rows, idx, 6, nm + "_rows"),
                GatherCols(cx, d.valid, idx, nm + "_valid"), marked ? ClassColumn(cx, nm) : "", ct,
                nm);
}

// The first `keep` valid rows by descending score, those that greedy
// suppression drops marked class -1.
std::string Suppressed(Context& cx, const ExportNode& n, const Detections& d, int64_t keep,
                       DType ct, const std::string& nm) {
  const ParamValues& p = n.params();
  const std::string key =
      cx.Add1("Where", {d.valid, d.score, cx.ConstScalar(nm + "_never", -kInf, ct)}, nm + "_key");
  const std::string idx = TopIndices(cx, key, keep, nm + "_order");
  const std::string rows = GatherRows(cx, d.rows, idx, 6, nm + "_sorted");
  const std::string valid = GatherCols(cx, d.valid, idx, nm + "_sorted_valid");
  // Who takes part: (B, 1, keep) as one class, or (B, C-1, keep) by class.
  std::string take = Unsqueeze(cx, valid, {1}, nm + "_valid_c");
  if (!p.GetBool("force_suppress")) {
    const int64_t nc = n.in_shapes[0][1];
    std::vector<float> ids(static_cast<size_t>(nc - 1));
    for (int64_t c = 0; c + 1 < nc; ++c) ids[c] = static_cast<float>(c);
    const std::string cls = Unsqueeze(cx, ColumnOf(cx, rows, 0, nm + "_cls"), {1}, nm + "_cls3");
    const std::string same =
        cx.Add1("Equal", {cls, ConstOf(cx, nm + "_ids", ids, {1, nc - 1, 1}, ct)}, nm + "_same");
    take = cx.Add1("And", {same, take}, nm + "_take");
  }
  const std::string scores = cx.Add1("Where",
                                     {take, RankScores(cx, keep, {1, 1, keep}, nm + "_ranks"),
                                      cx.ConstFloats(nm + "_out", {-1}, {})},
                                     nm + "_scores");
  const std::string boxes = CastType(cx, SliceRange(cx, rows, 2, 6, 2, nm + "_boxes"), ct,
                                     DType::kFloat32, nm + "_boxes_f");
  // MXNet drops at IoU >= t, NonMaxSuppression above its threshold.
  const float nms = static_cast<float>(p.GetFloat("nms_threshold"));
  const KeptBoxes kept = KeepByNms(cx, boxes, scores, keep, std::nextafter(nms, -kInf), false, nm);
  const std::string drop =
      cx.Add1("Not", {CastTo(cx, kept.mask, onnx::TensorProto::BOOL, nm + "_kept")}, nm + "_drop");
  const std::string mark =
      cx.Add1("And", {ClassColumn(cx, nm), Unsqueeze(cx, drop, {2}, nm + "_drop3")}, nm + "_mark");
  return Layout(cx, rows, valid, mark, ct, nm + "_top");
}

void MultiBoxDetection(Context& cx, const ExportNode& n) {
  const int64_t nc = n.in_shapes[0][1], na = n.in_shapes[0][2];
  if (nc < 2) ThrowUnsupported("a single class (the background): no detection to export");
  const DType t = n.in_types[0], ct = DetectComputeType(t);
  const std::string nm = n.name();
  const Detections d = Detect(cx, n, ct, nm);
  const ParamValues& p = n.params();
  const float nms = static_cast<float>(p.GetFloat("nms_threshold"));
  const int64_t topk = p.GetInt("nms_topk");
  std::string out;
  if (nms <= 0 || nms > 1) {
    out = AnchorOrder(cx, d, 0, na, false, ct, nm + "_anchor");
  } else {
    const int64_t keep = topk > 0 && topk < na ? topk : na;
    out = Suppressed(cx, n, d, keep, ct, nm);
    if (keep < na) {
      const std::string all = cx.Fresh(nm + "_all");
      SetInt(cx.Add("Concat", {out, AnchorOrder(cx, d, keep, na, true, ct, nm + "_past")}, {all},
                    nm + "_all"),
             "axis", 1);
      out = all;
    }
  }
  if (ct == t)
    cx.Add("Identity", {out}, {n.outputs[0]}, nm + "_out");
  else
    SetInt(cx.Add("Cast", {out}, {n.outputs[0]}, nm + "_out"), "to", OnnxElemType(t));
}

}  // namespace

void AddMultiBoxConverters(ConverterTable* t) {
  (*t)["_contrib_MultiBoxDetection"] = MultiBoxDetection;
}

}  // namespace onnx_export
}  // namespace weft
