// Box operators of GluonCV-style detectors with MXNet 1.9's names and
// semantics: _contrib_box_nms (alias _contrib_box_non_maximum_suppression)
// with _backward_contrib_box_nms, _contrib_box_iou, _contrib_box_decode,
// _contrib_box_encode and _contrib_bipartite_matching.
//
// box_nms(data (..., N, W)) -> (output, record). Every row of W values holds
// a score at score_index, 4 coordinates from coord_start (corner
// [xmin, ymin, xmax, ymax] or center [x, y, w, h] per in_format) and,
// when id_index >= 0, a class id. Per batch (the product of the leading
// axes), rows with score > valid_thresh (and id != background_id when ids
// exist) are stable-sorted by descending score; the first topk (all when
// -1) of them take part in greedy NMS: a row is suppressed when its IoU with
// a kept higher-scored row (of the same class unless force_suppress or no
// id_index) exceeds overlap_thresh. Kept rows are written first in score
// order, the rest of the batch is -1; rows whose first coordinate is >= 0
// are re-encoded when out_format != in_format. MXNet quirks kept: topk = 0
// copies the input (record = 0..B*N-1, no re-encoding); when no row of the
// whole input is valid both outputs are all -1. `record` (..., N, 1), MXNet's
// hidden output, holds for each output row the flat index (over all
// batches) of the input row it came from, or -1; it is the second output
// here, as Dropout's mask is. Gradient `_backward_contrib_box_nms(ograd,
// record)` scatters each output row's gradient back to its input row.
//
// box_iou(lhs (..., 4), rhs (..., 4); format) -> lhs.shape[:-1] +
// rhs.shape[:-1]: pairwise IoU (0 where boxes do not intersect). MXNet's
// gradient is zero for both inputs.
//
// box_decode(data (B, N, 4), anchors (., N, 4); std0..std3 = 1, clip = -1,
// format = center) -> (B, N, 4) corner boxes: anchors (in `format`) to
// centre/size, centre += data[0:2] * std * size, size *= exp(min(data[2:4]
// * std, clip)) (no clip when clip <= 0); the GluonCV box decoder.
// box_encode(samples (B, N), matches (B, N), anchors (B, N, 4), refs
// (B, M, 4), means (4), stds (4)) -> (targets, masks) (B, N, 4): for
// samples > 0.5 the matched ref box's centre offset / anchor size and log
// size ratio, minus means, over stds (masks 1); else 0. Both have zero
// gradients, as in MXNet.
//
// bipartite_matching(data (..., R, C); threshold (required), is_ascend =
// False, topk = -1) -> (row_match (..., R), col_match (..., C)): per batch,
// the (r, c) pairs in stable score order (descending, or ascending with
// is_ascend) are matched greedily while both are free; the walk stops at
// the first free pair whose score fails the threshold (> for descending,
// < for ascending) or once the count exceeds topk (MXNet keeps that last
// match). Unmatched entries are -1. Zero gradient.
#include "nn_spatial.h"
#include "vision_params.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> BoxNMSParams() {
  const std::vector<std::string> fmt = {"corner", "center"};
  return {
      FloatParam("overlap_thresh", "0.5", "IoU above which the lower-scored box is suppressed."),
      FloatParam("valid_thresh", "0", "Boxes need a score greater than this."),
      IntParam("topk", "-1", "NMS over the topk highest-scored boxes per batch, -1 for all."),
      IntParam("coord_start", "2", "Index of the first of the 4 coordinates."),
      IntParam("score_index", "1", "Index of the score."),
      IntParam("id_index", "-1", "Index of the class id, -1 for none."),
      IntParam("background_id", "-1", "Class id ignored by NMS (with id_index)."),
      BoolParam("force_suppress", "False", "Suppress across classes."),
      EnumParam("in_format", "corner", fmt, "Input box encoding."),
      EnumParam("out_format", "corner", fmt, "Output box encoding.")};
}

// Checks the index parameters against the row width `w` (MXNet's checks).
void CheckNMSIndices(const NodeAttrs& attrs, int64_t w) {
  const ParamValues& p = attrs.params;
  const int64_t cs = p.GetInt("coord_start"), ce = cs + 3, si = p.GetInt("score_index"),
                id = p.GetInt("id_index");
  const int64_t expected = id >= 0 ? 6 : 5;
  auto bad = [&](const std::string& what) {
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": ", what, " (row width ", w, ")");
  };
  if (w < expected)
    bad("the last axis of 'data' must hold at least " + std::to_string(expected) +
        " values (score, 4 coordinates" + (id >= 0 ? ", id)" : ")"));
  if (si < 0 || si >= w)
    bad("parameter 'score_index' = " + std::to_string(si) + " is out of range");
  if (si >= cs && si <= ce) bad("parameter 'score_index' overlaps the coordinates");
  if (cs < 0 || ce >= w)
    bad("parameter 'coord_start' = " + std::to_string(cs) + " is out of range");
  if (id >= 0) {
    if (id >= w) bad("parameter 'id_index' = " + std::to_string(id) + " is out of range");
    if (id >= cs && id <= ce) bad("parameter 'id_index' overlaps the coordinates");
    if (id == si) bad("parameter 'id_index' equals 'score_index'");
  }
}

bool BoxNMSShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if ((*out)[0].ndim_known()) AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  if (d.ndim() < 2)
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'data' must have rank >= 2 (..., num_box, width), given ", d.ToString());
  if (d[d.ndim() - 1] > 0) CheckNMSIndices(attrs, d[d.ndim() - 1]);
  AssignShape(attrs, out, 0, d, "output 'output'");
  Shape r = d;
  r[r.ndim() - 1] = 1;
  AssignShape(attrs, out, 1, r, "output 'record'");
  return AllKnown(*in) && AllKnown(*out);
}

bool BoxNMSBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[0], "output 'data_grad'");
  AssignShape(attrs, in, 0, (*out)[0], "input 'ograd'");
  return AllKnown(*in) && AllKnown(*out);
}

bool BoxIoUShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape &l = (*in)[0], &r = (*in)[1];
  if (!l.ndim_known() || !r.ndim_known()) return false;
  const char* names[2] = {"lhs", "rhs"};
  for (int i = 0; i < 2; ++i) {
    const Shape& s = (*in)[i];
    if (s.ndim() < 2 || (s[s.ndim() - 1] > 0 && s[s.ndim() - 1] != 4))
      Fail(StatusCode::kShape, OpLabel(attrs), ": input '", names[i],
           "' must have rank >= 2 and a last axis of 4, given ", s.ToString());
  }
  std::vector<int64_t> o;
  for (int i = 0; i + 1 < l.ndim(); ++i) o.push_back(l[i]);
  for (int i = 0; i + 1 < r.ndim(); ++i) o.push_back(r[i]);
  AssignShape(attrs, out, 0, Shape(o), "output");
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<NodeEntry> ZeroGrads(const OpRegistry& r, const NodePtr& n,
                                 const std::vector<NodeEntry>&) {
  std::vector<NodeEntry> g;
  for (size_t i = 0; i < n->inputs.size(); ++i)
    g.push_back(
        MakeOpEntry(r, "zeros_like", GradName(n, "zero" + std::to_string(i)), {n->inputs[i]}));
  return g;
}

bool BoxDecodeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape &d = (*in)[0], &a = (*in)[1];
  if (d.ndim_known() && (d.ndim() != 3 || (d[2] > 0 && d[2] != 4)))
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'data' must be (batch, num_anchors, 4), given ", d.ToString());
  if (a.ndim_known() && (a.ndim() < 3 || (a[a.ndim() - 1] > 0 && a[a.ndim() - 1] != 4)))
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'anchors' must be (1, num_anchors, 4), given ", a.ToString());
  if ((*out)[0].ndim_known()) AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  if (!(*in)[0].ndim_known()) return false;
  AssignShape(attrs, out, 0, (*in)[0], "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool BoxEncodeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, in, 4, Shape({4}), "input 'means'");
  AssignShape(attrs, in, 5, Shape({4}), "input 'stds'");
  const Shape& a = (*in)[2];
  if (!a.ndim_known()) return false;
  if (a.ndim() != 3 || (a[2] > 0 && a[2] != 4))
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'anchors' must be (batch, num_anchors, 4), given ", a.ToString());
  AssignShape(attrs, in, 0, Shape({a[0], a[1]}), "input 'samples'");
  AssignShape(attrs, in, 1, Shape({a[0], a[1]}), "input 'matches'");
  const Shape& r = (*in)[3];
  if (r.ndim_known() && (r.ndim() != 3 || (r[2] > 0 && r[2] != 4)))
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'refs' must be (batch, num_refs, 4), given ",
         r.ToString());
  AssignShape(attrs, out, 0, a, "output 'targets'");
  AssignShape(attrs, out, 1, a, "output 'masks'");
  return AllKnown(*in) && AllKnown(*out);
}

bool MatchingShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  if (d.ndim() < 2)
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'data' must have rank >= 2 (..., rows, cols), given ", d.ToString());
  std::vector<int64_t> r(d.dims().begin(), d.dims().end() - 1), c = r;
  c.back() = d[d.ndim() - 1];
  AssignShape(attrs, out, 0, Shape(r), "output 0");
  AssignShape(attrs, out, 1, Shape(c), "output 1");
  return AllKnown(*in) && AllKnown(*out);
}

}  // namespace

GradientFn VisionZeroGradient() { return ZeroGrads; }

void RegisterVisionBox(OpRegistry* reg) {
  OpDef f;
  f.name = "_contrib_box_nms";
  f.aliases = {"_contrib_box_non_maximum_suppression"};
  f.doc =
      "Non-maximum suppression of scored boxes (MXNet semantics); output 1 records the source "
      "rows.";
  f.params = BoxNMSParams();
  f.num_outputs = 2;
  f.output_names = FixedNames({"output", "record"});
  f.infer_shape = BoxNMSShape;
  f.infer_type = ElemwiseType;
  f.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_contrib_box_nms", n, {og[0], OutEntry(n, 1)}, 1);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_contrib_box_nms";
  b.doc = "Gradient of box_nms: scatters ograd rows to the input rows in record.";
  b.params = BoxNMSParams();
  b.num_inputs = 2;
  b.input_names = FixedNames({"ograd", "record"});
  b.output_names = FixedNames({"data_grad"});
  b.infer_shape = BoxNMSBackwardShape;
  b.infer_type = [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
    AssignType(a, out, 0, (*in)[0], "output 'data_grad'");
    AssignType(a, in, 0, (*out)[0], "input 'ograd'");
    AssignType(a, in, 1, (*in)[0], "input 'record'");
    return AllKnown(*in) && AllKnown(*out);
  };
  reg->Add(std::move(b));

  OpDef iou;
  iou.name = "_contrib_box_iou";
  iou.doc = "Pairwise intersection-over-union of two sets of boxes (MXNet semantics).";
  iou.params = {EnumParam("format", "corner", {"corner", "center"}, "Box encoding.")};
  iou.num_inputs = 2;
  iou.input_names = FixedNames({"lhs", "rhs"});
  iou.infer_shape = BoxIoUShape;
  iou.infer_type = ElemwiseType;
  iou.gradient = ZeroGrads;
  reg->Add(std::move(iou));

  OpDef dec;
  dec.name = "_contrib_box_decode";
  dec.doc = "Decodes box regression outputs against anchors into corner boxes (MXNet semantics).";
  dec.params = {FloatParam("std0", "1", "Scale of the x offset."),
                FloatParam("std1", "1", "Scale of the y offset."),
                FloatParam("std2", "1", "Scale of the log width."),
                FloatParam("std3", "1", "Scale of the log height."),
                FloatParam("clip", "-1", "Upper bound of the scaled log sizes when > 0."),
                EnumParam("format", "center", {"corner", "center"}, "Anchor encoding.")};
  dec.num_inputs = 2;
  dec.input_names = FixedNames({"data", "anchors"});
  dec.infer_shape = BoxDecodeShape;
  dec.infer_type = ElemwiseType;
  dec.gradient = ZeroGrads;
  reg->Add(std::move(dec));

  OpDef enc;
  enc.name = "_contrib_box_encode";
  enc.doc = "Encodes matched reference boxes as regression targets of anchors (MXNet semantics).";
  enc.num_inputs = 6;
  enc.num_outputs = 2;
  enc.input_names = FixedNames({"samples", "matches", "anchors", "refs", "means", "stds"});
  enc.output_names = FixedNames({"targets", "masks"});
  enc.infer_shape = BoxEncodeShape;
  enc.infer_type = ElemwiseType;
  enc.gradient = ZeroGrads;
  reg->Add(std::move(enc));

  OpDef bm;
  bm.name = "_contrib_bipartite_matching";
  bm.doc = "Greedy bipartite matching of a score matrix (MXNet semantics).";
  bm.params = {BoolParam("is_ascend", "False", "Match the lowest scores first."),
               RequiredParam("threshold", ParamType::kFloat, "Scores must beat this to match."),
               IntParam("topk", "-1", "Limit of matches, -1 for none.")};
  bm.num_outputs = 2;
  bm.infer_shape = MatchingShape;
  bm.infer_type = ElemwiseType;
  bm.gradient = ZeroGrads;
  reg->Add(std::move(bm));
}

}  // namespace op
}  // namespace weft
