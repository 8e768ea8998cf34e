// Spatial transformer operators with MXNet 1.9's names and semantics:
// GridGenerator, BilinearSampler and SpatialTransformer, with backward ops.
// MXNet's hidden outputs (grid_dst, tmp, grid_src) are recomputed from the
// parameters here instead, so each op has its one visible output.
//
// GridGenerator(data; transform_type affine|warp, target_shape=(0, 0)):
//   affine: data (N, 6) rows of a 2x3 matrix A; output (N, 2, H, W) with
//   (H, W) = target_shape, output[n, :, h, w] = A @ (x_w, y_h, 1) for the
//   normalised target coordinates x_w = -1 + 2w/(W-1), y_h = -1 + 2h/(H-1).
//   warp: data (N, 2, H, W) an optical flow; output = (flow + (w, h)) /
//   ((W-1)/2, (H-1)/2) - 1. Gradient `_backward_GridGenerator(ograd)`.
// BilinearSampler(data (N, C, H, W), grid (N, 2, Ho, Wo); cudnn_off=None)
//   -> (N, C, Ho, Wo): grid channel 0 is x, 1 is y in [-1, 1] mapping to the
//   corner pixel centres; bilinear with zero padding (PyTorch's grid_sample
//   with align_corners=True). Gradient `_backward_BilinearSampler(ograd,
//   data, grid)` -> (data_grad, grid_grad).
// SpatialTransformer(data (N, C, H, W), loc (N, 6); target_shape=(0, 0),
//   transform_type=affine, sampler_type=bilinear, cudnn_off=None): the
//   affine GridGenerator of loc followed by BilinearSampler; target_shape
//   must be positive. Gradient `_backward_SpatialTransformer(ograd, data,
//   loc)` -> (data_grad, loc_grad).
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

// target_shape (h, w); `need` makes unset (0) values an error.
std::pair<int64_t, int64_t> TargetShape(const NodeAttrs& attrs, bool need) {
  const Shape& t = attrs.params.GetShape("target_shape");
  if (t.ndim() != 2 || (need && (t[0] <= 0 || t[1] <= 0)))
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs),
         ": parameter 'target_shape' = ", t.ToString(),
         need ? " must be 2 positive values (height, width)"
              : " must have 2 values (height, width)");
  return {t[0], t[1]};
}

void NeedShape(const NodeAttrs& attrs, const Shape& s, int rank, int axis, int64_t extent,
               const char* name, const char* layout) {
  if (s.ndim() != rank || (s[axis] > 0 && s[axis] != extent))
    Fail(StatusCode::kShape, OpLabel(attrs), ": input '", name, "' must be ", layout, ", given ",
         s.ToString());
}

bool GridShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const bool affine = attrs.params.GetString("transform_type") == "affine";
  const auto [h, w] = TargetShape(attrs, affine);
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  if (affine) {
    NeedShape(attrs, d, 2, 1, 6, "data", "(batch, 6) for affine");
    AssignShape(attrs, out, 0, Shape({d[0], 2, h, w}), "output");
  } else {
    NeedShape(attrs, d, 4, 1, 2, "data", "(batch, 2, height, width) for warp");
    AssignShape(attrs, out, 0, d, "output");
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool GridBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& g = (*in)[0];
  if (!g.ndim_known()) return false;
  if (attrs.params.GetString("transform_type") == "affine")
    AssignShape(attrs, out, 0, Shape({g[0], 6}), "data_grad");
  else
    AssignShape(attrs, out, 0, g, "data_grad");
  return AllKnown(*in) && AllKnown(*out);
}

bool SamplerShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape &d = (*in)[0], &g = (*in)[1];
  if (d.ndim_known() && d.ndim() != 4)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must be (N, C, H, W), given ",
         d.ToString());
  if (!d.ndim_known() || !g.ndim_known()) return false;
  NeedShape(attrs, g, 4, 1, 2, "grid", "(batch, 2, height, width)");
  if (d[0] > 0 && g[0] > 0 && d[0] != g[0])
    Fail(StatusCode::kShape, OpLabel(attrs), ": 'data' ", d.ToString(), " and 'grid' ",
         g.ToString(), " differ in batch size");
  AssignShape(attrs, out, 0, Shape({d[0], d[1], g[2], g[3]}), "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool TransformerShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const auto [h, w] = TargetShape(attrs, true);
  const Shape &d = (*in)[0], &l = (*in)[1];
  if (d.ndim_known() && d.ndim() != 4)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must be (N, C, H, W), given ",
         d.ToString());
  if (!d.ndim_known() || !l.ndim_known()) return false;
  NeedShape(attrs, l, 2, 1, 6, "loc", "(batch, 6)");
  AssignShape(attrs, out, 0, Shape({d[0], d[1], h, w}), "output");
  return AllKnown(*in) && AllKnown(*out);
}

// Backward ops (ograd, a, b) -> (a_grad, b_grad): gradients shaped as inputs 1, 2.
bool TwoInputGradShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[1], "output 0");
  AssignShape(attrs, out, 1, (*in)[2], "output 1");
  return AllKnown(*in) && AllKnown(*out);
}

OpDef TwoInputGrad(const std::string& name, std::vector<ParamDecl> params, const char* b) {
  OpDef g;
  g.name = name;
  g.doc = "Gradient of the op named in its name.";
  g.params = std::move(params);
  g.num_inputs = 3;
  g.num_outputs = 2;
  g.input_names = FixedNames({"ograd", "data", b});
  g.output_names = FixedNames({"data_grad", std::string(b) + "_grad"});
  g.infer_shape = TwoInputGradShape;
  g.infer_type = ElemwiseType;
  return g;
}

GradientFn TwoInputGradient(const std::string& backward) {
  return [backward](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, backward, n, {og[0], n->inputs[0], n->inputs[1]}, 2);
  };
}

ParamDecl CudnnOff() { return Optional(BoolParam("cudnn_off", "None", "Ignored on CPU.")); }

}  // namespace

void RegisterVisionSampling(OpRegistry* reg) {
  const std::vector<ParamDecl> gpe = {
      RequiredEnumParam("transform_type", {"affine", "warp"},
                        "affine (data (N, 6)) or warp (a flow (N, 2, H, W))."),
      ShapeParam("target_shape", "(0, 0)", "Output (height, width) for affine.")};
  OpDef g;
  g.name = "GridGenerator";
  g.doc = "Sampling grid of an affine transform or an optical flow (MXNet semantics).";
  g.params = gpe;
  g.infer_shape = GridShape;
  g.infer_type = ElemwiseType;
  g.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_GridGenerator", n, {og[0]}, 1);
  };
  reg->Add(std::move(g));
  OpDef gb;
  gb.name = "_backward_GridGenerator";
  gb.doc = "Gradient of GridGenerator from ograd.";
  gb.params = gpe;
  gb.input_names = FixedNames({"ograd"});
  gb.output_names = FixedNames({"data_grad"});
  gb.infer_shape = GridBackwardShape;
  gb.infer_type = ElemwiseType;
  reg->Add(std::move(gb));

  OpDef s;
  s.name = "BilinearSampler";
  s.doc = "Bilinear sampling of data at grid positions, zero outside (MXNet semantics).";
  s.params = {CudnnOff()};
  s.num_inputs = 2;
  s.input_names = FixedNames({"data", "grid"});
  s.infer_shape = SamplerShape;
  s.infer_type = ElemwiseType;
  s.gradient = TwoInputGradient("_backward_BilinearSampler");
  reg->Add(std::move(s));
  reg->Add(TwoInputGrad("_backward_BilinearSampler", {CudnnOff()}, "grid"));

  const std::vector<ParamDecl> tp = {
      ShapeParam("target_shape", "(0, 0)", "Output (height, width)."),
      RequiredEnumParam("transform_type", {"affine"}, "Transformation type (affine)."),
      RequiredEnumParam("sampler_type", {"bilinear"}, "Sampling type (bilinear)."), CudnnOff()};
  OpDef t;
  t.name = "SpatialTransformer";
  t.doc = "Affine spatial transformer: GridGenerator(loc) then BilinearSampler (MXNet semantics).";
  t.params = tp;
  t.num_inputs = 2;
  t.input_names = FixedNames({"data", "loc"});
  t.infer_shape = TransformerShape;
  t.infer_type = ElemwiseType;
  t.gradient = TwoInputGradient("_backward_SpatialTransformer");
  reg->Add(std::move(t));
  reg->Add(TwoInputGrad("_backward_SpatialTransformer", tp, "loc"));
}

}  // namespace op
}  // namespace weft
