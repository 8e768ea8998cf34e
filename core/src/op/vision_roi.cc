// Region-of-interest pooling with MXNet 1.9's names and semantics:
// ROIPooling (alias _npx_roi_pooling) and _contrib_ROIAlign (alias
// ROIAlign, the spelling of pre-contrib exports), with their backward ops.
//
// Both take data (N, C, H, W) and rois (R, 5) rows [batch, x1, y1, x2, y2]
// in image coordinates, scaled by spatial_scale (required, in [0, 1]), and
// pooled_size (required, (ph, pw), nonzero).
// ROIPooling -> (output (R, C, ph, pw), maxidx (R, C, ph, pw) int32): the
//   ROI corners are rounded to cells, the ROI (at least 1x1) is split into
//   ph x pw bins [floor(i*h/ph), ceil((i+1)*h/ph)) clipped to the map, and
//   each bin takes its maximum (first one on ties); empty bins and rows with
//   a batch index outside [0, N) give 0 and maxidx -1. maxidx, MXNet's
//   hidden output, is the flat index into data of the maximum; the gradient
//   `_backward_ROIPooling(ograd, maxidx, data)` adds ograd there (data only
//   gives the shape); rois get zeros.
// ROIAlign(sample_ratio=-1, position_sensitive=False, aligned=False) ->
//   (R, C', ph, pw): each bin averages a grid of sample_ratio^2 bilinear
//   samples (ceil(roi extent / pooled extent) per axis when <= 0) at the
//   grid cell centres; aligned shifts the ROI by -0.5 cell and keeps its
//   true (positive) size, otherwise the size is at least 1 cell. Samples
//   beyond one cell outside the map are 0; others are clamped to it.
//   position_sensitive reads channel (c * ph + i) * pw + j for bin (i, j),
//   so C' = C / (ph * pw). Rows with a negative batch index give 0.
//   Gradient `_backward_ROIAlign(ograd, rois, data)` -> (data_grad,
//   rois_grad = 0) scatters with the same bilinear weights.
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> PoolParams() {
  return {
      RequiredParam("pooled_size", ParamType::kShape, "Output (height, width) of each ROI."),
      Ranged(RequiredParam("spatial_scale", ParamType::kFloat, "Feature map size / image size."), 0,
             1)};
}

std::vector<ParamDecl> AlignParams() {
  std::vector<ParamDecl> p = PoolParams();
  p.push_back(IntParam("sample_ratio", "-1", "Samples per bin and axis, <= 0 for adaptive."));
  p.push_back(BoolParam("position_sensitive", "False", "Position-sensitive pooling (R-FCN)."));
  p.push_back(BoolParam("aligned", "False", "Half-pixel aligned ROIs (Detectron2)."));
  return p;
}

// (ph, pw) after checking pooled_size has 2 nonzero values.
std::pair<int64_t, int64_t> PooledSize(const NodeAttrs& attrs) {
  const Shape& s = attrs.params.GetShape("pooled_size");
  if (s.ndim() != 2 || s[0] <= 0 || s[1] <= 0)
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter 'pooled_size' = ", s.ToString(),
         " must be 2 positive values (height, width)");
  return {s[0], s[1]};
}

// The output shape (R, C', ph, pw) from data and rois, or false when unknown.
bool ROIShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out,
              bool ps_channels) {
  const auto [ph, pw] = PooledSize(attrs);
  const Shape &d = (*in)[0], &r = (*in)[1];
  if (d.ndim_known() && d.ndim() != 4)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must be (N, C, H, W), given ",
         d.ToString());
  if (r.ndim_known() && (r.ndim() != 2 || (r[1] > 0 && r[1] != 5)))
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'rois' must be (num_rois, 5), given ",
         r.ToString());
  if (!d.ndim_known() || !r.ndim_known()) return false;
  int64_t c = d[1];
  if (ps_channels && attrs.params.GetBool("position_sensitive") && c > 0) {
    if (c % (ph * pw) != 0)
      Fail(StatusCode::kShape, OpLabel(attrs), ": with position_sensitive the channels of 'data' (",
           c, ") must be divisible by pooled_size ", ph, "*", pw);
    c /= ph * pw;
  }
  const Shape o({r[0], c, ph, pw});
  for (size_t i = 0; i < out->size(); ++i)
    AssignShape(attrs, out, i, o, "output " + std::to_string(i));
  return AllKnown(*in) && AllKnown(*out);
}

// data and rois share a dtype, as MXNet checks; `idx_out` (if >= 0) is int32.
bool ROIType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out, int idx_out) {
  AssignType(attrs, in, 1, (*in)[0], "input 'rois'");
  AssignType(attrs, in, 0, (*in)[1], "input 'data'");
  AssignType(attrs, out, 0, (*in)[0], "output");
  AssignType(attrs, in, 0, (*out)[0], "input 'data'");
  AssignType(attrs, in, 1, (*in)[0], "input 'rois'");
  if (idx_out >= 0) AssignType(attrs, out, idx_out, DType::kInt32, "output 'maxidx'");
  return AllKnown(*in) && AllKnown(*out);
}

// Backward ops whose last input is `data` and first output data_grad.
bool BackwardToDataShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, in->back(), "output 'data_grad'");
  if (out->size() > 1) AssignShape(attrs, out, 1, (*in)[1], "output 'rois_grad'");
  return AllKnown(*in) && AllKnown(*out);
}

bool BackwardToDataType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, out, 0, (*in)[0], "output 'data_grad'");
  AssignType(attrs, in, in->size() - 1, (*in)[0], "input 'data'");
  if (out->size() > 1) AssignType(attrs, out, 1, (*in)[0], "output 'rois_grad'");
  return AllKnown(*in) && AllKnown(*out);
}

}  // namespace

void RegisterVisionROI(OpRegistry* reg) {
  OpDef p;
  p.name = "ROIPooling";
  p.aliases = {"_npx_roi_pooling"};
  p.doc = "Max pooling of regions of interest into a fixed grid (Fast R-CNN, MXNet semantics).";
  p.params = PoolParams();
  p.num_inputs = 2;
  p.num_outputs = 2;
  p.input_names = FixedNames({"data", "rois"});
  p.output_names = FixedNames({"output", "maxidx"});
  p.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    return ROIShape(a, in, out, false);
  };
  p.infer_type = [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
    return ROIType(a, in, out, 1);
  };
  p.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    NodeEntry dx =
        BackwardNode(r, "_backward_ROIPooling", n, {og[0], OutEntry(n, 1), n->inputs[0]}, 1)[0];
    return std::vector<NodeEntry>{
        dx, MakeOpEntry(r, "zeros_like", GradName(n, "rois_grad"), {n->inputs[1]})};
  };
  reg->Add(std::move(p));

  OpDef pb;
  pb.name = "_backward_ROIPooling";
  pb.doc = "Gradient of ROIPooling: ograd added at maxidx (data gives the shape).";
  pb.params = PoolParams();
  pb.num_inputs = 3;
  pb.input_names = FixedNames({"ograd", "maxidx", "data"});
  pb.output_names = FixedNames({"data_grad"});
  pb.infer_shape = BackwardToDataShape;
  pb.infer_type = [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
    AssignType(a, in, 1, DType::kInt32, "input 'maxidx'");
    return BackwardToDataType(a, in, out);
  };
  reg->Add(std::move(pb));

  OpDef al;
  al.name = "_contrib_ROIAlign";
  al.aliases = {"ROIAlign"};
  al.doc = "Bilinear ROI pooling without quantisation (Mask R-CNN, MXNet semantics).";
  al.params = AlignParams();
  al.num_inputs = 2;
  al.input_names = FixedNames({"data", "rois"});
  al.infer_shape = [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
    return ROIShape(a, in, out, true);
  };
  al.infer_type = [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
    return ROIType(a, in, out, -1);
  };
  al.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_ROIAlign", n, {og[0], n->inputs[1], n->inputs[0]}, 2);
  };
  reg->Add(std::move(al));

  OpDef ab;
  ab.name = "_backward_ROIAlign";
  ab.doc = "Gradient of ROIAlign: (data_grad, zero rois_grad) from (ograd, rois, data).";
  ab.params = AlignParams();
  ab.num_inputs = 3;
  ab.num_outputs = 2;
  ab.input_names = FixedNames({"ograd", "rois", "data"});
  ab.output_names = FixedNames({"data_grad", "rois_grad"});
  ab.infer_shape = BackwardToDataShape;
  ab.infer_type = BackwardToDataType;
  reg->Add(std::move(ab));
}

}  // namespace op
}  // namespace weft
