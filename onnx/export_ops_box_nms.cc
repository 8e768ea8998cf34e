// ONNX export of _contrib_box_nms (data (..., N, K), any leading axes),
// built on export_detect.h: per batch item the candidates (score >
// valid_thresh, class not background_id) sorted by score, the first topk,
// NonMaxSuppression (per class by moving each class's boxes apart by id x
// (coordinate span + 1), unless force_suppress), then the kept rows
// scattered to the front in score order (an exclusive CumSum of the kept
// mask gives each its row) over rows of -1, and MXNet's re-encoding when
// out_format differs from in_format.
#include <algorithm>
#include <limits>

#include "export_detect.h"
#include "weft/float16.h"

namespace weft {
namespace onnx_export {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// A float parameter as MXNet compares it with data of dtype `t`.
double AsParam(double v, DType t) {
  const float f = static_cast<float>(v);
  return t == DType::kFloat16 ? ToFloat(ToHalf(f)) : f;
}

// x (B, N, K) in rank order and whether each row is a candidate (B, k).
struct Sorted {
  std::string rows, ok;
};

// box_nms's candidates of x (B, N, K) by descending score (non-candidates
// last), the first `cand` of them.
Sorted SortCandidates(Context& cx, const ParamValues& p, const std::string& x, DType t, DType ct,
                      int64_t k, int64_t cand, const std::string& nm) {
  const std::string score = ColumnOf(cx, x, p.GetInt("score_index"), nm + "_score");
  const std::string thresh =
      cx.ConstScalar(nm + "_valid", AsParam(p.GetFloat("valid_thresh"), t), ct);
  std::string ok = cx.Add1("Greater", {score, thresh}, nm + "_valid_ok");
  if (p.GetInt("id_index") >= 0) {
    const std::string id = ColumnOf(cx, x, p.GetInt("id_index"), nm + "_id");
    const std::string bg =
        cx.ConstScalar(nm + "_bg", AsParam(static_cast<double>(p.GetInt("background_id")), t), ct);
    const std::string is_bg = cx.Add1("Equal", {id, bg}, nm + "_bg_eq");
    ok = cx.Add1("And", {ok, cx.Add1("Not", {is_bg}, nm + "_not_bg")}, nm + "_cand");
  }
  const std::string key =
      cx.Add1("Where", {ok, score, cx.ConstScalar(nm + "_none", -kInf, ct)}, nm + "_key");
  const std::string idx = TopIndices(cx, key, cand, nm + "_order");
  return {GatherRows(cx, x, idx, k, nm + "_sorted"), GatherCols(cx, ok, idx, nm + "_sorted_ok")};
}

// The boxes of rows (B, n, K) as float32 (B, n, 4); per-class suppression
// moves each class's boxes apart by its id (truncated, as MXNet compares
// ids as int) x (span + 1), the span of the candidates' (`ok`) coordinates
// and 0, so that classes never overlap.
std::string NmsBoxes(Context& cx, const ParamValues& p, const std::string& rows,
                     const std::string& ok, DType ct, const std::string& nm) {
  const int64_t c0 = p.GetInt("coord_start"), id = p.GetInt("id_index");
  std::string boxes = CastType(cx, SliceRange(cx, rows, c0, c0 + 4, 2, nm + "_boxes"), ct,
                               DType::kFloat32, nm + "_boxes_f");
  if (id < 0 || p.GetBool("force_suppress")) return boxes;
  const std::string cand = cx.Add1(  // whatever the other rows hold (NaN included)
      "Where", {Unsqueeze(cx, ok, {2}, nm + "_ok3"), boxes, cx.ConstFloats(nm + "_zero", {0}, {})},
      nm + "_cand_boxes");
  const std::string hi = cx.Fresh(nm + "_hi"), lo = cx.Fresh(nm + "_lo");
  Reduce(cx, "ReduceMax", cand, {}, false, hi, nm + "_hi");
  Reduce(cx, "ReduceMin", cand, {}, false, lo, nm + "_lo");
  const std::string span = cx.Add1(
      "Add", {cx.Add1("Sub", {hi, lo}, nm + "_span0"), cx.ConstFloats(nm + "_one", {1}, {})},
      nm + "_span");
  const std::string ids = SliceRange(cx, rows, id, id + 1, 2, nm + "_cls");
  const std::string cls = CastTo(cx, CastTo(cx, ids, onnx::TensorProto::INT64, nm + "_cls_i"),
                                 onnx::TensorProto::FLOAT, nm + "_cls_f");
  const bool center = p.GetString("in_format") == "center";  // (x, y, w, h): move x, y
  const std::string dirs = cx.ConstFloats(
      nm + "_dirs", center ? std::vector<float>{1, 1, 0, 0} : std::vector<float>{1, 1, 1, 1},
      {1, 4});
  const std::string off =
      cx.Add1("Mul", {cx.Add1("Mul", {cls, span}, nm + "_shift"), dirs}, nm + "_offset");
  return cx.Add1("Add", {boxes, off}, nm + "_apart");
}

// The kept rows of rows (B, n, K), in rank order at the front of each batch
// item of x's shape (B, N, K), over rows of -1.
std::string KeptToFront(Context& cx, const std::string& x, const std::string& rows,
                        const KeptBoxes& kept, DType ct, const std::string& nm) {
  const std::string pos = cx.Fresh(nm + "_pos");
  SetInt(cx.Add("CumSum", {kept.mask, cx.ConstInts(nm + "_axis", {1}, true)}, {pos}, nm + "_pos"),
         "exclusive", 1);
  const std::string at = cx.Add1("GatherND", {pos, kept.pairs}, nm + "_at");
  const std::string row =
      Unsqueeze(cx, CastTo(cx, at, onnx::TensorProto::INT64, nm + "_at_i"), {1}, nm + "_row");
  const std::string dst = cx.Fresh(nm + "_dst");
  SetInt(cx.Add("Concat", {SliceRange(cx, kept.pairs, 0, 1, 1, nm + "_batch"), row}, {dst},
                nm + "_dst"),
         "axis", 1);
  const std::string src = cx.Add1("GatherND", {rows, kept.pairs}, nm + "_src");
  const std::string fill = Filled(cx, cx.Add1("Shape", {x}, nm + "_shape"), -1, ct, nm + "_fill");
  return cx.Add1("ScatterND", {fill, dst, src}, nm + "_front");
}

// MXNet's corner <-> center re-encoding of the 4 coordinates at c0 of out
// (B, N, K); rows whose first coordinate is negative (the -1 rows) stay.
std::string Reencode(Context& cx, const std::string& out, int64_t c0, int64_t k, bool to_center,
                     DType ct, const std::string& nm) {
  const std::string coords = SliceRange(cx, out, c0, c0 + 4, 2, nm + "_coords");
  std::vector<std::string> c;
  for (int i = 0; i < 4; ++i) c.push_back(cx.Fresh(nm + "_c" + std::to_string(i)));
  SplitInto(cx, coords, 2, {1, 1, 1, 1}, c, nm + "_split");
  const std::string two = cx.ConstScalar(nm + "_two", 2, ct);
  auto op = [&](const char* type, const std::string& a, const std::string& b) {
    return cx.Add1(type, {a, b}, nm + "_" + type);
  };
  std::vector<std::string> v;
  if (to_center) {
    v = {op("Div", op("Add", c[0], c[2]), two), op("Div", op("Add", c[1], c[3]), two),
         op("Sub", c[2], c[0]), op("Sub", c[3], c[1])};
  } else {
    const std::string hw = op("Div", c[2], two), hh = op("Div", c[3], two);
    v = {op("Sub", c[0], hw), op("Sub", c[1], hh), op("Add", c[0], hw), op("Add", c[1], hh)};
  }
  const std::string enc = cx.Fresh(nm + "_enc");
  SetInt(cx.Add("Concat", v, {enc}, nm + "_enc"), "axis", 2);
  const std::string pad = op("Less", c[0], cx.ConstScalar(nm + "_zero", 0, ct));
  std::vector<std::string> parts;
  if (c0 > 0) parts.push_back(SliceRange(cx, out, 0, c0, 2, nm + "_head"));
  parts.push_back(cx.Add1("Where", {pad, coords, enc}, nm + "_new"));
  if (c0 + 4 < k) parts.push_back(SliceRange(cx, out, c0 + 4, k, 2, nm + "_tail"));
  const std::string joined = cx.Fresh(nm + "_joined");
  SetInt(cx.Add("Concat", parts, {joined}, nm + "_joined"), "axis", 2);
  return joined;
}

void BoxNms(Context& cx, const ExportNode& n) {
  OnlyFirstOutput(n);
  const ParamValues& p = n.params();
  const Shape& s = n.in_shapes[0];
  const int rank = s.ndim();
  const int64_t rows = s[rank - 2], k = s[rank - 1], topk = p.GetInt("topk");
  const std::string nm = n.name();
  if (topk == 0) {  // MXNet passes the data through
    cx.Add("Identity", {n.inputs[0]}, {n.outputs[0]}, nm);
    return;
  }
  const float overlap = static_cast<float>(p.GetFloat("overlap_thresh"));
  if (overlap < 0) ThrowUnsupported("overlap_thresh < 0 (suppresses boxes that do not overlap)");
  const DType t = n.in_types[0], ct = DetectComputeType(t);
  const int64_t cand = topk < 0 ? rows : std::min(rows, topk);
  const std::string x =
      CastType(cx, ReshapeTo(cx, n.inputs[0], {-1, rows, k}, nm + "_items"), t, ct, nm + "_x");
  const Sorted sorted = SortCandidates(cx, p, x, t, ct, k, cand, nm);
  const std::string ranked = cx.Add1("Where",
                                     {sorted.ok, RankScores(cx, cand, {1, cand}, nm + "_ranks"),
                                      cx.ConstFloats(nm + "_out", {-1}, {})},
                                     nm + "_rank_scores");
  const bool center = p.GetString("in_format") == "center";
  const KeptBoxes kept = KeepByNms(cx, NmsBoxes(cx, p, sorted.rows, sorted.ok, ct, nm),
                                   Unsqueeze(cx, ranked, {1}, nm + "_scores"), cand,
                                   std::min(overlap, 1.f), center, nm);
  std::string out = KeptToFront(cx, x, sorted.rows, kept, ct, nm);
  if (p.GetString("out_format") != p.GetString("in_format"))
    out = Reencode(cx, out, p.GetInt("coord_start"), k, !center, ct, nm + "_reenc");
  out = CastType(cx, out, ct, t, nm + "_out_t");
  cx.Add("Reshape", {out, cx.Add1("Shape", {n.inputs[0]}, nm + "_in_shape")}, {n.outputs[0]},
         nm + "_out");
}

}  // namespace

void AddBoxNmsConverters(ConverterTable* t) { (*t)["_contrib_box_nms"] = BoxNms; }

}  // namespace onnx_export
}  // namespace weft
