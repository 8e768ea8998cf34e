// SSD anchor operators with MXNet 1.9's names and semantics:
// _contrib_MultiBoxPrior, _contrib_MultiBoxDetection and
// _contrib_MultiBoxTarget (aliases MultiBox* and _npx_multibox_*). None is
// differentiable in MXNet: every input's gradient is zero.
//
// MultiBoxPrior(data (N, C, H, W); sizes=(1,), ratios=(1,), clip=False,
//   steps=(-1, -1), offsets=(0.5, 0.5)) -> (1, H*W*(#sizes + #ratios - 1), 4):
//   per cell (row-major) the anchors of every size at ratios[0], then of
//   sizes[0] at ratios[1:], as corner boxes around the centre
//   ((r + offsets[0]) * step_y, (c + offsets[1]) * step_x); steps <= 0 mean
//   1/H, 1/W; half width size*H/W*sqrt(ratio)/2, half height
//   size/sqrt(ratio)/2; clip clamps to [0, 1]. Computed in float as MXNet.
// MultiBoxDetection(cls_prob (B, C, A), loc_pred (B, A*4), anchor (1, A, 4);
//   clip=True, threshold=0.01, background_id=0, nms_threshold=0.5,
//   force_suppress=False, variances=(0.1, 0.1, 0.2, 0.2), nms_topk=-1)
//   -> (B, A, 6) rows [id, score, xmin, ymin, xmax, ymax], -1 padded: the
//   best non-background class per anchor (dropped below threshold), boxes
//   decoded from the anchors, then per batch a stable sort by score and
//   greedy NMS (IoU >= nms_threshold) over the first nms_topk. As in MXNet's
//   CPU kernel, class 0 is the background whatever background_id says.
// MultiBoxTarget(anchor (1, A, 4), label (B, L, >=5), cls_pred (B, C, A);
//   overlap_threshold=0.5, ignore_label=-1, negative_mining_ratio=-1,
//   negative_mining_thresh=0.5, minimum_negative_samples=0,
//   variances=(0.1, 0.1, 0.2, 0.2)) -> loc_target (B, A*4), loc_mask (B, A*4),
//   cls_target (B, A): bipartite then threshold matching of anchors to the
//   ground truths (label rows [cls, xmin, ymin, xmax, ymax] up to the first
//   cls == -1), optional hard negative mining (the unmatched anchors below
//   negative_mining_thresh with the lowest background softmax probability,
//   ties in anchor order, as MXNet's SortElemDescend over -prob), encoded
//   box offsets for positives. minimum_negative_samples
//   is accepted but, as in MXNet's CPU kernel, unused.
#include "nn_spatial.h"
#include "vision_params.h"

namespace weft {
namespace op {

namespace {

const char* kVariances = "(0.1, 0.1, 0.2, 0.2)";

void NeedRank(const NodeAttrs& attrs, const Shape& s, int rank, const char* name,
              const char* layout) {
  if (s.ndim() != rank)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input '", name, "' must be ", layout, ", given ",
         s.ToString());
}

void NeedDim(const NodeAttrs& attrs, int64_t got, int64_t want, const std::string& what) {
  if (got > 0 && want > 0 && got != want)
    Fail(StatusCode::kShape, OpLabel(attrs), ": ", what, " is ", got, ", expected ", want);
}

bool PriorShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const int ns = static_cast<int>(FloatTupleValue(attrs, "sizes", -1, 1).size());
  const int nr = static_cast<int>(FloatTupleValue(attrs, "ratios", -1, 1).size());
  FloatTupleValue(attrs, "steps", 2);
  for (float o : FloatTupleValue(attrs, "offsets", 2))
    if (o < 0 || o > 1)
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs),
           ": parameter 'offsets' values must lie in [0, 1]");
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  if (d.ndim() < 4)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must be (N, C, H, W), given ",
         d.ToString());
  if (d[2] <= 0 || d[3] <= 0) return false;
  AssignShape(attrs, out, 0, Shape({1, d[2] * d[3] * (ns + nr - 1), 4}), "output");
  return true;
}

bool DetectionShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  FloatTupleValue(attrs, "variances", 4);
  const Shape &c = (*in)[0], &l = (*in)[1], &a = (*in)[2];
  if (!c.ndim_known() || !l.ndim_known() || !a.ndim_known()) return false;
  NeedRank(attrs, c, 3, "cls_prob", "(batch, num_classes, num_anchors)");
  NeedRank(attrs, l, 2, "loc_pred", "(batch, num_anchors * 4)");
  NeedRank(attrs, a, 3, "anchor", "(1, num_anchors, 4)");
  NeedDim(attrs, a[1], c[2], "the number of anchors of 'anchor'");
  NeedDim(attrs, l[1], c[2] * 4, "axis 1 of 'loc_pred'");
  NeedDim(attrs, a[2], 4, "axis 2 of 'anchor'");
  if (c[0] <= 0 || a[1] <= 0) return false;
  AssignShape(attrs, out, 0, Shape({c[0], a[1], 6}), "output");
  return AllKnown(*in);
}

bool TargetShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  FloatTupleValue(attrs, "variances", 4);
  const Shape &a = (*in)[0], &l = (*in)[1], &p = (*in)[2];
  if (!a.ndim_known() || !l.ndim_known() || !p.ndim_known()) return false;
  NeedRank(attrs, a, 3, "anchor", "(1, num_anchors, 4)");
  NeedRank(attrs, l, 3, "label", "(batch, num_labels, label_width >= 5)");
  NeedRank(attrs, p, 3, "cls_pred", "(batch, num_classes, num_anchors)");
  NeedDim(attrs, a[0], 1, "axis 0 of 'anchor' (anchors are shared across the batch)");
  NeedDim(attrs, a[2], 4, "axis 2 of 'anchor'");
  NeedDim(attrs, p[2], a[1], "the number of anchors of 'cls_pred'");
  if (l[2] > 0 && l[2] < 5)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'label' rows need >= 5 values, given ",
         l.ToString());
  if (l[0] <= 0 || a[1] <= 0) return false;
  AssignShape(attrs, out, 0, Shape({l[0], a[1] * 4}), "output 'loc_target'");
  AssignShape(attrs, out, 1, Shape({l[0], a[1] * 4}), "output 'loc_mask'");
  AssignShape(attrs, out, 2, Shape({l[0], a[1]}), "output 'cls_target'");
  return AllKnown(*in);
}

OpDef MultiBoxDef(const std::string& name, const std::string& npx, const std::string& doc) {
  OpDef f;
  f.name = "_contrib_" + name;
  f.aliases = {name, npx};
  f.doc = doc;
  f.infer_type = ElemwiseType;
  f.gradient = VisionZeroGradient();
  return f;
}

}  // namespace

void RegisterVisionMultiBox(OpRegistry* reg) {
  OpDef p =
      MultiBoxDef("MultiBoxPrior", "_npx_multibox_prior", "SSD anchor boxes of a feature map.");
  p.params = {FloatTupleParam("sizes", "(1.0,)", "Anchor sizes."),
              FloatTupleParam("ratios", "(1.0,)", "Anchor aspect ratios."),
              BoolParam("clip", "False", "Clip boxes to [0, 1]."),
              FloatTupleParam("steps", "(-1.0, -1.0)", "Step (y, x); -1 for 1/H, 1/W."),
              FloatTupleParam("offsets", "(0.5, 0.5)", "Centre offsets (y, x) in cells.")};
  p.infer_shape = PriorShape;
  reg->Add(std::move(p));

  OpDef d = MultiBoxDef("MultiBoxDetection", "_npx_multibox_detection",
                        "SSD detections: decoded boxes of the best class per anchor after NMS.");
  d.params = {BoolParam("clip", "True", "Clip boxes to [0, 1]."),
              FloatParam("threshold", "0.01", "Score needed for a positive prediction."),
              IntParam("background_id", "0", "Background class id."),
              FloatParam("nms_threshold", "0.5", "NMS IoU threshold."),
              BoolParam("force_suppress", "False", "Suppress across classes."),
              FloatTupleParam("variances", kVariances, "Variances of the box regression."),
              IntParam("nms_topk", "-1", "Keep the top k detections before NMS, -1 for all.")};
  d.num_inputs = 3;
  d.input_names = FixedNames({"cls_prob", "loc_pred", "anchor"});
  d.infer_shape = DetectionShape;
  reg->Add(std::move(d));

  OpDef t = MultiBoxDef("MultiBoxTarget", "_npx_multibox_target",
                        "SSD training targets: anchor matching, box offsets and hard negatives.");
  t.params = {
      FloatParam("overlap_threshold", "0.5", "IoU for a positive match."),
      FloatParam("ignore_label", "-1", "Class target of ignored anchors."),
      FloatParam("negative_mining_ratio", "-1", "Negatives per positive, -1 for no mining."),
      FloatParam("negative_mining_thresh", "0.5", "IoU below which an anchor may be negative."),
      IntParam("minimum_negative_samples", "0", "Minimum number of negatives."),
      FloatTupleParam("variances", kVariances, "Variances of the box regression.")};
  t.num_inputs = 3;
  t.num_outputs = 3;
  t.input_names = FixedNames({"anchor", "label", "cls_pred"});
  t.output_names = FixedNames({"loc_target", "loc_mask", "cls_target"});
  t.infer_shape = TargetShape;
  reg->Add(std::move(t));
}

}  // namespace op
}  // namespace weft
