// Layer and group normalisation with MXNet 1.9's names and semantics:
// LayerNorm (alias _npx_layer_norm) and GroupNorm, with `_backward_LayerNorm` and
// `_backward_GroupNorm`.
//
// LayerNorm(data, gamma, beta; axis = -1, eps = 1e-5, output_mean_var =
// False): every 1-D slice of data along `axis` (negative counts from the
// end) is normalised by its own mean and biased variance:
// y = (x - mean) / std * gamma + beta with std = sqrt(var + eps); gamma and
// beta are (data[axis],). Outputs: output, plus (mean, std), both of data's
// shape with axis set to 1, when output_mean_var.
//
// GroupNorm(data, gamma, beta; num_groups = 1, eps = 1e-5, output_mean_var
// = False): data (N, C, spatial...) of rank >= 3 with C divisible by
// num_groups is viewed as (N, num_groups, C / num_groups * spatial); each
// (n, g) group is normalised by its own statistics and scaled and shifted
// by gamma[g] and beta[g] (gamma and beta are (num_groups,) in MXNet 1.x).
// Outputs: output, plus (mean, std) of shape (N, num_groups) when
// output_mean_var.
//
// Gradients: `_backward_LayerNorm(ograd, data, gamma)` and
// `_backward_GroupNorm(ograd, data, gamma)` -> (data_grad, gamma_grad,
// beta_grad) through the recomputed statistics; gradients arriving at the
// mean/std outputs are ignored, as in MXNet. Inference is bidirectional
// between data and output.
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> LayerNormParams() {
  return {IntParam("axis", "-1", "The axis normalised over (negative counts from the end)."),
          FloatParam("eps", "1e-05", "Added to the variance to avoid division by zero."),
          BoolParam("output_mean_var", "False", "Also output the mean and std.")};
}

std::vector<ParamDecl> GroupNormParams() {
  return {IntParam("num_groups", "1", "Number of channel groups."),
          FloatParam("eps", "1e-05", "Added to the variance to avoid division by zero."),
          BoolParam("output_mean_var", "False", "Also output the mean and std.")};
}

int NormOutputs(const ParamValues& p) { return p.GetBool("output_mean_var") ? 3 : 1; }

std::vector<std::string> NormOutputNames(const ParamValues& p) {
  if (p.GetBool("output_mean_var")) return {"output", "mean", "std"};
  return {"output"};
}

// Shared skeleton: data <-> output, then `fill(data)` sets gamma/beta and
// the statistics shapes once data is known.
template <typename F>
bool NormShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out, F fill) {
  AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  AssignShape(attrs, out, 0, (*in)[0], "output 0");
  if ((*in)[0].ndim_known()) {
    Shape param, stats;
    fill((*in)[0], &param, &stats);
    AssignShape(attrs, in, 1, param, "input 'gamma'");
    AssignShape(attrs, in, 2, param, "input 'beta'");
    for (size_t i = 1; i < out->size(); ++i)
      AssignShape(attrs, out, i, stats, StrCat("output ", i));
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool LayerNormShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return NormShape(attrs, in, out, [&](const Shape& d, Shape* param, Shape* stats) {
    const int64_t a = attrs.params.GetInt("axis");
    const int64_t ax = a < 0 ? a + d.ndim() : a;
    if (ax < 0 || ax >= d.ndim())
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter 'axis' = ", a,
           " is out of range for input 'data' of shape ", d.ToString());
    *param = Shape({d[ax]});
    *stats = d;
    (*stats)[static_cast<int>(ax)] = 1;
  });
}

bool GroupNormShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return NormShape(attrs, in, out, [&](const Shape& d, Shape* param, Shape* stats) {
    const int64_t g = attrs.params.GetInt("num_groups");
    if (g < 1)
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs),
           ": parameter 'num_groups' must be >= 1, given ", g);
    if (d.ndim() < 3)
      Fail(StatusCode::kShape, OpLabel(attrs),
           ": input 'data' must have rank >= 3 (N, C, spatial...), given ", d.ToString());
    if (d[1] > 0 && d[1] % g != 0)
      Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' has ", d[1],
           " channels, not divisible by num_groups ", g);
    *param = Shape({g});
    *stats = Shape({d[0], g});
  });
}

// in = (ograd, data, gamma), out = (data_grad, gamma_grad, beta_grad),
// derived from the forward inference `fwd` with output_mean_var ignored.
InferShapeFn NormBackwardShape(InferShapeFn fwd) {
  return [fwd](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
    std::vector<Shape> fin = {(*in)[1], (*in)[2], (*out)[2]}, fout = {(*in)[0]};
    AssignShape(attrs, &fin, 0, (*out)[0], "output 'data_grad'");
    AssignShape(attrs, &fin, 1, (*out)[1], "output 'gamma_grad'");
    fwd(attrs, &fin, &fout);
    (*in)[0] = fout[0];
    (*in)[1] = (*out)[0] = fin[0];
    (*in)[2] = (*out)[1] = fin[1];
    (*out)[2] = fin[2];
    return AllKnown(*in) && AllKnown(*out);
  };
}

void AddNormOp(OpRegistry* reg, const std::string& name, std::vector<std::string> aliases,
               const std::string& doc, std::vector<ParamDecl> params, InferShapeFn shape) {
  OpDef f;
  f.name = name;
  f.aliases = std::move(aliases);
  f.doc = doc;
  f.params = params;
  f.num_inputs = 3;
  f.num_outputs_fn = NormOutputs;
  f.input_names = FixedNames({"data", "gamma", "beta"});
  f.output_names = NormOutputNames;
  f.infer_shape = shape;
  f.infer_type = ElemwiseType;
  const std::string backward = "_backward_" + name;
  f.gradient = [backward](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, backward, n, {og[0], n->inputs[0], n->inputs[1]}, 3);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = backward;
  b.doc = "Gradient of " + name + ": (data_grad, gamma_grad, beta_grad) from (ograd, data, gamma).";
  b.params = std::move(params);
  b.num_inputs = 3;
  b.num_outputs = 3;
  b.input_names = FixedNames({"ograd", "data", "gamma"});
  b.output_names = FixedNames({"data_grad", "gamma_grad", "beta_grad"});
  b.infer_shape = NormBackwardShape(shape);
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace

void RegisterNNLayerNorm(OpRegistry* reg) {
  AddNormOp(reg, "LayerNorm", {"_npx_layer_norm"},
            "Layer normalisation: each slice along `axis` normalised by its own statistics.",
            LayerNormParams(), LayerNormShape);
  AddNormOp(reg, "GroupNorm", {},
            "Group normalisation: each (sample, channel group) normalised by its own statistics, "
            "with per-group gamma and beta.",
            GroupNormParams(), GroupNormShape);
}

}  // namespace op
}  // namespace weft
