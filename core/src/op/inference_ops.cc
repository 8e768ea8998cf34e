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
// act_type, a_min, a_max, with_sum) = act(Convolution(data, weight, bias) + sum):
// act_type "" (none), "relu" or "clip" (to [a_min, a_max], as `clip`: ReLU6 is
// clip(0, 6)); `sum` (the output's shape) is an input when
// with_sum and may share the output's memory. data_block / out_block > 0:
// the data / the output and `sum` are channel-blocked (weft/channel_block.h)
// with that many channels per block (pass::BlockConvLayouts). No gradient.
// (pass::FuseConvActivation.)
//
// _fused_FullyConnected(data, weight, [bias]; FullyConnected's parameters,
// act_type) = act(FullyConnected(data, weight, bias)): act_type "" (none),
// "relu" or "gelu" (the erf form, LeakyReLU's act_type=gelu). No gradient.
// (pass::FuseDenseActivation.)
//
// _blocked_Pooling(data; Pooling's parameters, data_block, out_block):
// Pooling on blocked data and/or into a blocked output. No gradient.
// (pass::BlockConvLayouts.)
//
// _layout_block(data; block): channel-first data (N, C, spatial...) in the
// channel-blocked layout (N, C / block, spatial..., block). No gradient.
// (pass::BlockConvLayouts.)
#include "op/elemwise_common.h"
#include "op/nn_spatial.h"
#include "op/op_common.h"
#include "weft/channel_block.h"
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
      Fail(StatusCode::kShape, OpLabel(attrs), ": input 'weight' must have rank >= 1, given ",
           w.ToString());
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

// FusedConvShape on logical (unblocked) shapes.
bool FusedConvLogicalShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                           std::vector<Shape>* out) {
  const size_t n_conv = attrs.params.GetBool("no_bias") ? 2 : 3;
  std::vector<Shape> conv_in(in->begin(), in->begin() + static_cast<std::ptrdiff_t>(n_conv));
  if (attrs.params.GetBool("with_sum")) {
    AssignShape(attrs, out, 0, in->back(), "input 'sum'");
    AssignShape(attrs, in, in->size() - 1, (*out)[0], "output 0");
  }
  ConvolutionShape(attrs, &conv_in, out);
  std::copy(conv_in.begin(), conv_in.end(), in->begin());
  if (attrs.params.GetBool("with_sum"))
    AssignShape(attrs, in, in->size() - 1, (*out)[0], "input 'sum'");
  return AllKnown(*in) && AllKnown(*out);
}

// Runs `logical` (inference on plain shapes) with the blocked slots of
// `attrs` (BlockedSlots) mapped to their logical shapes and back.
bool InferBlocked(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out,
                  const InferShapeFn& logical) {
  const SlotBlocks blocks = BlockedSlots(attrs, in->size());
  if (!blocks.any()) return logical(attrs, in, out);
  const std::string label = OpLabel(attrs);
  std::vector<Shape> lin = *in, lout = *out;
  for (size_t i = 0; i < in->size(); ++i)
    lin[i] = blocks.Input(i, (*in)[i], StrCat(label, " input ", i).c_str());
  for (size_t i = 0; i < out->size(); ++i)
    lout[i] = blocks.Output(i, (*out)[i], StrCat(label, " output ", i).c_str());
  logical(attrs, &lin, &lout);
  for (size_t i = 0; i < in->size(); ++i)
    AssignShape(attrs, in, i,
                blocks.in[i] > 0 ? BlockedShape(lin[i], blocks.in[i], label.c_str()) : lin[i],
                StrCat("input ", i));
  for (size_t i = 0; i < out->size(); ++i)
    AssignShape(attrs, out, i,
                blocks.out[i] > 0 ? BlockedShape(lout[i], blocks.out[i], label.c_str()) : lout[i],
                StrCat("output ", i));
  return AllKnown(*in) && AllKnown(*out);
}

bool FusedConvShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferBlocked(attrs, in, out, FusedConvLogicalShape);
}

// Channels per block of a blocked data input / output (0: plain).
std::vector<ParamDecl> BlockParams() {
  return {
      IntRangeParam("data_block", "0", 0, 64,
                    "Channels per block of a channel-blocked data input (0: plain)."),
      IntRangeParam(
          "out_block", "0", 0, 64,
          "Channels per block of a channel-blocked output (and sum of a convolution) (0: plain)."),
      IntRangeParam("data_channels", "0", 0, int64_t{1} << 31,
                    "Channels of the data (and of a pooling's output), needed where a "
                    "blocked one's last block is padded (0: every lane of every block).")};
}

void RegisterBlockedPooling(OpRegistry* reg) {
  const OpDef& pool = reg->Get("Pooling");
  OpDef f;
  f.name = "_blocked_Pooling";
  f.doc = "Pooling on channel-blocked data and/or into a channel-blocked output (inference).";
  f.params = pool.params;
  for (ParamDecl& d : BlockParams()) f.params.push_back(std::move(d));
  f.num_inputs = 1;
  f.input_names = FixedNames({"data"});
  InferShapeFn logical = pool.infer_shape;
  f.infer_shape = [logical](const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
    return InferBlocked(attrs, in, out, logical);
  };
  f.infer_type = ElemwiseType;
  reg->Add(std::move(f));
}

bool LayoutBlockShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const int64_t b = attrs.params.GetInt("block");
  const std::string label = OpLabel(attrs);
  AssignShape(attrs, out, 0, BlockedShape((*in)[0], b, (label + " input 'data'").c_str()),
              "output 0");
  // The output's last block may be padded: its channel count is not the input's.
  Shape data = UnblockedShape((*out)[0], b, 0, (label + " output 0").c_str());
  if (data.ndim_known()) data[1] = 0;
  AssignShape(attrs, in, 0, data, "input 'data'");
  return AllKnown(*in) && AllKnown(*out);
}

void RegisterLayoutBlock(OpRegistry* reg) {
  OpDef f;
  f.name = "_layout_block";
  f.doc =
      "Channel-first data in the channel-blocked layout (N, C/block, spatial..., block) "
      "(inference).";
  f.params = {
      IntRangeParam("block", "8", 1, 64, "Channels per block; the last one is zero-padded.")};
  f.num_inputs = 1;
  f.input_names = FixedNames({"data"});
  f.infer_shape = LayoutBlockShape;
  f.infer_type = ElemwiseType;
  reg->Add(std::move(f));
}

void RegisterFusedConvolution(OpRegistry* reg) {
  OpDef f;
  f.name = "_fused_Convolution";
  f.doc =
      "Convolution with an optional residual sum and relu or clip applied to its output "
      "(inference).";
  f.params = reg->Get("Convolution").params;
  f.params.push_back(EnumParam("act_type", "", {"", "relu", "clip"},
                               "Activation after the sum: none, relu or clip to [a_min, a_max]."));
  f.params.push_back(FloatParam("a_min", "0", "Lower bound of act_type \"clip\"."));
  f.params.push_back(FloatParam("a_max", "0", "Upper bound of act_type \"clip\"."));
  f.params.push_back(
      BoolParam("with_sum", "False", "Add the last input to the convolution's output."));
  for (ParamDecl& d : BlockParams()) f.params.push_back(std::move(d));
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

void RegisterFusedFullyConnected(OpRegistry* reg) {
  OpDef f = reg->Get("FullyConnected");
  f.name = "_fused_FullyConnected";
  f.aliases.clear();
  f.doc = "FullyConnected with relu or GELU applied to its output (inference).";
  f.params.push_back(EnumParam("act_type", "", {"", "relu", "gelu"},
                               "Activation of the output: none, relu or GELU (erf form)."));
  f.gradient = nullptr;
  reg->Add(std::move(f));
}

}  // namespace

void RegisterInferenceOps(OpRegistry* reg) {
  RegisterFusedConvolution(reg);
  RegisterFusedFullyConnected(reg);
  RegisterLayoutBlock(reg);
  RegisterBlockedPooling(reg);

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
  // The layer's weight, bias and the outputs share a dtype; BatchNorm's
  // parameters are float32 for a float16/bfloat16 layer.
  f.infer_type = [](const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
    const bool bias = !attrs.params.GetBool("no_bias");
    return BatchNormTypes(attrs, in, out, bias ? std::vector<size_t>{0, 1} : std::vector<size_t>{0},
                          {0, 1}) &&
           AllKnown(*in) && AllKnown(*out);
  };
  reg->Add(std::move(f));
}

}  // namespace op
}  // namespace weft
