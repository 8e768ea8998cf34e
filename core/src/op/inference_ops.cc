// Internal ops the inference passes (pass.h) create.
//
// _bn_fold(weight, [bias], gamma, beta, moving_mean, moving_var; eps,
// fix_gamma, no_bias) -> (weight', bias'): weight is (O, ...) with the
// output channel first (Convolution NCHW, FullyConnected), the others (O,).
// With s = gamma / sqrt(moving_var + eps) (gamma = 1 when fix_gamma):
// weight'[o, ...] = weight[o, ...] * s[o] and bias' = (bias or 0 -
// moving_mean) * s + beta. No gradient: it only runs in inference graphs.
// (pass::FoldBatchNorm.)
//
// _fused_Convolution(data, weight, [bias], [sum]; Convolution's parameters,
// act_type, with_sum) = act(Convolution(data, weight, bias) + sum): act_type
// "" (none) or "relu"; `sum` (the output's shape) is an input when
// with_sum and may share the output's memory. No gradient.
// (pass::FuseConvActivation.)
#include "op/elemwise_common.h"
#include "op/nn_spatial.h"
#include "op/op_common.h"
#include "weft/status.h"

namespace weft {
namespace op {

namespace {

bool BnFoldShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, in, 0, (*out)[0], "input 'weight'");
  AssignShape(attrs, out, 0, (*in)[0], "output 0");
  const Shape& w = (*in)[0];
  if (w.ndim_known()) {
    if (w.ndim() < 1)
      Fail(StatusCode::kShape, OpLabel(attrs), ": input 'weight' must have rank >= 1, given ", w.ToString());
    if (w[0] > 0) {
      const Shape c({w[0]});
      for (size_t i = 1; i < in->size(); ++i) AssignShape(attrs, in, i, c, StrCat("input ", i));
      AssignShape(attrs, out, 1, c, "output 1");
    }
  }
  return AllKnown(*in) && AllKnown(*out);
}

int FusedConvInputs(const ParamValues& p) {
  return 2 + (p.GetBool("no_bias") ? 0 : 1) + (p.GetBool("with_sum") ? 1 : 0);
}

bool FusedConvShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const size_t n_conv = attrs.params.GetBool("no_bias") ? 2 : 3;
  std::vector<Shape> conv_in(in->begin(), in->begin() + static_cast<std::ptrdiff_t>(n_conv));
  if (attrs.params.GetBool("with_sum")) {
    AssignShape(attrs, out, 0, in->back(), "input 'sum'");
    AssignShape(attrs, in, in->size() - 1, (*out)[0], "output 0");
  }
  ConvolutionShape(attrs, &conv_in, out);
  std::copy(conv_in.begin(), conv_in.end(), in->begin());
  if (attrs.params.GetBool("with_sum")) AssignShape(attrs, in, in->size() - 1, (*out)[0], "input 'sum'");
  return AllKnown(*in) && AllKnown(*out);
}

void RegisterFusedConvolution(OpRegistry* reg) {
  OpDef f;
  f.name = "_fused_Convolution";
  f.doc = "Convolution with an optional residual sum and relu applied to its output (inference).";
  f.params = reg->Get("Convolution").params;
  ParamDecl act;
  act.name = "act_type";
  act.type = ParamType::kString;
  act.default_value = "";
  act.doc = "Activation after the sum: \"\" (none) or \"relu\".";
  f.params.push_back(act);
  f.params.push_back(BoolParam("with_sum", "False", "Add the last input to the convolution's output."));
  f.num_inputs_fn = FusedConvInputs;
  f.input_names = [](const ParamValues& p) {
    std::vector<std::string> names{"data", "weight"};
    if (!p.GetBool("no_bias")) names.push_back("bias");
    if (p.GetBool("with_sum")) names.push_back("sum");
    return names;
  };
  f.infer_shape = FusedConvShape;
  f.infer_type = ElemwiseType;
  f.inplace = [](const ParamValues& p) {
    std::vector<std::pair<int, int>> pairs;
    if (p.GetBool("with_sum")) pairs.emplace_back(FusedConvInputs(p) - 1, 0);
    return pairs;
  };
  reg->Add(std::move(f));
}

}  // namespace

void RegisterInferenceOps(OpRegistry* reg) {
  RegisterFusedConvolution(reg);

  OpDef f;
  f.name = "_bn_fold";
  f.doc = "Folds BatchNorm's inference transform into the preceding layer's weight and bias.";
  f.params = {FloatParam("eps", "0.001", "BatchNorm's eps."),
              BoolParam("fix_gamma", "True", "Use gamma = 1."),
              BoolParam("no_bias", "False", "The layer has no bias (no bias input).")};
  f.num_inputs_fn = [](const ParamValues& p) { return p.GetBool("no_bias") ? 5 : 6; };
  f.num_outputs = 2;
  f.input_names = [](const ParamValues& p) {
    if (p.GetBool("no_bias"))
      return std::vector<std::string>{"weight", "gamma", "beta", "moving_mean", "moving_var"};
    return std::vector<std::string>{"weight", "bias", "gamma", "beta", "moving_mean", "moving_var"};
  };
  f.output_names = FixedNames({"weight", "bias"});
  f.infer_shape = BnFoldShape;
  f.infer_type = [](const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
    std::vector<DType> one{(*out)[0]};
    ElemwiseType(attrs, in, &one);
    (*out)[0] = one[0];
    AssignType(attrs, out, 1, one[0], "output 1");
    return AllKnown(*in) && AllKnown(*out);
  };
  reg->Add(std::move(f));
}

}  // namespace op
}  // namespace weft
