// BatchNorm with MXNet's names and semantics, and _backward_BatchNorm.
//
// BatchNorm(data, gamma, beta, moving_mean, moving_var; eps, momentum,
// fix_gamma, use_global_stats, output_mean_var, axis, cudnn_off):
//   data of any rank >= 1 normalised per channel along `axis` (default 1,
//   negative counts from the end); gamma, beta, moving_mean, moving_var
//   are (C,). fix_gamma (default True) uses gamma = 1.
//   Training (OpContext::is_train) without use_global_stats: per-channel
//   batch mean and biased variance over every other axis;
//   y = (x - mean) / sqrt(var + eps) * gamma + beta, and the auxiliary
//   states are updated in place: moving = moving * momentum +
//   batch * (1 - momentum). Otherwise the moving statistics are used and
//   nothing is written back. moving_mean / moving_var are mutated inputs.
//   Outputs: output, plus (mean, var) of the statistics used when
//   output_mean_var.
// Inference is bidirectional between data and output; the (C,) inputs
// follow data[axis].
//
// Gradient: `_backward_BatchNorm(ograd, data, gamma, moving_mean,
// moving_var)` -> (data_grad, gamma_grad, beta_grad). In training without
// use_global_stats it differentiates through the batch statistics,
// otherwise through the fixed moving statistics; gamma_grad is 0 with
// fix_gamma. The auxiliary states get zeros_like gradients; gradients
// arriving at the mean/var outputs are ignored (as in MXNet).
#include <algorithm>

#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> BatchNormParams() {
  return {
      FloatParam("eps", "0.001", "Added to the variance to avoid division by zero."),
      FloatParam("momentum", "0.9", "Momentum of the moving-average update."),
      BoolParam("fix_gamma", "True", "Use gamma = 1 (and a zero gamma gradient)."),
      BoolParam("use_global_stats", "False",
                "Use the moving statistics in training too (no update)."),
      BoolParam("output_mean_var", "False", "Also output the mean and variance used."),
      IntParam("axis", "1", "The channel axis."),
      BoolParam("cudnn_off", "False", "Turn off cuDNN (ignored on CPU)."),
      Optional(FloatParam("min_calib_range", "None", "Quantisation calibration range (ignored).")),
      Optional(FloatParam("max_calib_range", "None", "Quantisation calibration range (ignored)."))};
}

// The channel axis of a rank-`nd` input, normalised; throws when invalid.
int ChannelAxis(const NodeAttrs& attrs, int nd) {
  const int64_t a = attrs.params.GetInt("axis");
  const int64_t ax = a < 0 ? a + nd : a;
  if (ax < 0 || ax >= nd)
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter 'axis' = ", a,
         " is out of range for input 'data' of rank ", nd);
  return static_cast<int>(ax);
}

const char* const kStatNames[] = {"input 'gamma'", "input 'beta'", "input 'moving_mean'",
                                  "input 'moving_var'"};

// in = (data, gamma, beta, moving_mean, moving_var), out = (output[, mean, var]).
bool BatchNormShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  AssignShape(attrs, out, 0, (*in)[0], "output 0");
  const Shape& d = (*in)[0];
  if (d.ndim_known()) {
    if (d.ndim() == 0)
      Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must have rank >= 1, given ",
           d.ToString());
    const int ax = ChannelAxis(attrs, d.ndim());
    Shape c = Shape({d[ax]});
    for (size_t i = 1; i < in->size(); ++i) AssignShape(attrs, in, i, c, kStatNames[i - 1]);
    for (size_t i = 1; i < out->size(); ++i) AssignShape(attrs, out, i, c, StrCat("output ", i));
  }
  return AllKnown(*in) && AllKnown(*out);
}

// in = (ograd, data, gamma, moving_mean, moving_var), out = (data_grad,
// gamma_grad, beta_grad).
bool BatchNormBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  std::vector<Shape> fin = {(*in)[1], (*in)[2], (*out)[2], (*in)[3], (*in)[4]};
  std::vector<Shape> fout = {(*in)[0]};
  AssignShape(attrs, &fin, 0, (*out)[0], "output 'data_grad'");
  AssignShape(attrs, &fin, 1, (*out)[1], "output 'gamma_grad'");
  BatchNormShape(attrs, &fin, &fout);
  (*in)[0] = fout[0];
  (*in)[1] = (*out)[0] = fin[0];
  (*in)[2] = (*out)[1] = fin[1];
  (*out)[2] = fin[2];
  (*in)[3] = fin[3];
  (*in)[4] = fin[4];
  return AllKnown(*in) && AllKnown(*out);
}

}  // namespace

// MXNet's BatchNorm dtypes: the data entries (inputs `data_in`, outputs
// `data_out`) share one dtype; the parameters, statistics and the other
// outputs are float32 for float16/bfloat16 data and the data's dtype
// otherwise.
bool BatchNormTypes(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out,
                    const std::vector<size_t>& data_in, const std::vector<size_t>& data_out) {
  auto is_data = [](const std::vector<size_t>& v, size_t i) {
    return std::find(v.begin(), v.end(), i) != v.end();
  };
  DType d = DType::kUnknown, p = DType::kUnknown;
  auto merge = [&](DType* into, DType x, const std::string& what) {
    if (x == DType::kUnknown) return;
    if (*into != DType::kUnknown && *into != x)
      Fail(StatusCode::kDType, OpLabel(attrs), ": dtype mismatch for ", what, ": expected ",
           DTypeName(*into), ", given ", DTypeName(x),
           IsReducedFloat(d) ? " (float16/bfloat16 data takes float32 parameters)" : "");
    *into = x;
  };
  const std::vector<std::string> names = attrs.op->InputNames(attrs.params);
  for (size_t i : data_in) merge(&d, (*in)[i], "input '" + names[i] + "'");
  for (size_t i : data_out) merge(&d, (*out)[i], StrCat("output ", i));
  if (d == DType::kUnknown) {
    for (size_t i = 0; i < in->size(); ++i)
      if (!is_data(data_in, i)) merge(&d, (*in)[i], "input '" + names[i] + "'");
    if (d == DType::kUnknown) return false;
  }
  p = IsReducedFloat(d) ? DType::kFloat32 : d;
  const DType want_p = p;
  for (size_t i = 0; i < in->size(); ++i) {
    if (is_data(data_in, i)) continue;
    merge(&p, (*in)[i], "input '" + names[i] + "'");
    (*in)[i] = want_p;
  }
  for (size_t i = 0; i < out->size(); ++i) {
    if (is_data(data_out, i)) continue;
    merge(&p, (*out)[i], StrCat("output ", i));
    (*out)[i] = want_p;
  }
  for (size_t i : data_in) (*in)[i] = d;
  for (size_t i : data_out) (*out)[i] = d;
  return true;
}

void RegisterNNNorm(OpRegistry* reg) {
  OpDef f;
  f.name = "BatchNorm";
  f.aliases = {"BatchNorm_v1"};
  f.doc =
      "Batch normalisation per channel with batch statistics in training (updating the moving "
      "averages) and moving statistics in inference (MXNet semantics).";
  f.params = BatchNormParams();
  f.num_inputs = 5;
  f.num_outputs_fn = [](const ParamValues& p) { return p.GetBool("output_mean_var") ? 3 : 1; };
  f.input_names = FixedNames({"data", "gamma", "beta", "moving_mean", "moving_var"});
  f.output_names = [](const ParamValues& p) {
    if (p.GetBool("output_mean_var")) return std::vector<std::string>{"output", "mean", "var"};
    return std::vector<std::string>{"output"};
  };
  f.infer_shape = BatchNormShape;
  f.infer_type = [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
    return BatchNormTypes(a, in, out, {0}, {0});
  };
  f.mutate_inputs = [](const ParamValues&) { return std::vector<int>{3, 4}; };
  f.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> g =
        BackwardNode(r, "_backward_BatchNorm", n,
                     {og[0], n->inputs[0], n->inputs[1], n->inputs[3], n->inputs[4]}, 3);
    g.push_back(MakeOpEntry(r, "zeros_like", GradName(n, "moving_mean_grad"), {n->inputs[3]}));
    g.push_back(MakeOpEntry(r, "zeros_like", GradName(n, "moving_var_grad"), {n->inputs[4]}));
    return g;
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_BatchNorm";
  b.doc =
      "Gradient of BatchNorm: (data_grad, gamma_grad, beta_grad) from (ograd, data, gamma, "
      "moving_mean, moving_var); batch statistics in training, moving ones otherwise.";
  b.params = BatchNormParams();
  b.num_inputs = 5;
  b.num_outputs = 3;
  b.input_names = FixedNames({"ograd", "data", "gamma", "moving_mean", "moving_var"});
  b.output_names = FixedNames({"data_grad", "gamma_grad", "beta_grad"});
  b.infer_shape = BatchNormBackwardShape;
  b.infer_type = [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
    return BatchNormTypes(a, in, out, {0, 1}, {0});  // ograd, data; data_grad
  };
  reg->Add(std::move(b));
}

}  // namespace op
}  // namespace weft
