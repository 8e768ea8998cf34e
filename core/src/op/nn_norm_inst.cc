// Per-instance normalisations with MXNet's names and semantics:
// InstanceNorm and L2Normalization, with `_backward_InstanceNorm` and
// `_backward_L2Normalization`.
//
// InstanceNorm(data, gamma, beta; eps = 1e-3): data (N, C, spatial...) of
// rank >= 3, gamma and beta (C,); every (n, c) slice is normalised by its own
// mean and biased variance: y = (x - mean) / sqrt(var + eps) * gamma + beta.
// Gradient `_backward_InstanceNorm(ograd, data, gamma)` -> (data_grad,
// gamma_grad, beta_grad) through the per-instance statistics.
//
// L2Normalization(data; eps = 1e-10, mode = instance): y = x / sqrt(sum x^2
// + eps) where the sum runs over every axis but 0 (instance), over axis 1
// (channel) or over the axes after 1 (spatial); rank >= 2 (>= 3 for
// spatial). Gradient `_backward_L2Normalization(ograd, data)` -> data_grad:
// (dy - y * sum(dy * y)) / norm over the same sets.
// Inference of both is bidirectional between data and output.
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> InstanceNormParams() {
  return {FloatParam("eps", "0.001", "Added to the variance to avoid division by zero.")};
}

bool InstanceNormShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  AssignShape(attrs, out, 0, (*in)[0], "output 0");
  const Shape& d = (*in)[0];
  if (d.ndim_known()) {
    if (d.ndim() < 3)
      Fail(StatusCode::kShape, OpLabel(attrs),
           ": input 'data' must have rank >= 3 (N, C, spatial...), given ", d.ToString());
    AssignShape(attrs, in, 1, Shape({d[1]}), "input 'gamma'");
    AssignShape(attrs, in, 2, Shape({d[1]}), "input 'beta'");
  }
  return AllKnown(*in) && AllKnown(*out);
}

// in = (ograd, data, gamma), out = (data_grad, gamma_grad, beta_grad).
bool InstanceNormBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                               std::vector<Shape>* out) {
  std::vector<Shape> fin = {(*in)[1], (*in)[2], (*out)[2]}, fout = {(*in)[0]};
  AssignShape(attrs, &fin, 0, (*out)[0], "output 'data_grad'");
  AssignShape(attrs, &fin, 1, (*out)[1], "output 'gamma_grad'");
  InstanceNormShape(attrs, &fin, &fout);
  (*in)[0] = fout[0];
  (*in)[1] = (*out)[0] = fin[0];
  (*in)[2] = (*out)[1] = fin[1];
  (*out)[2] = fin[2];
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<ParamDecl> L2NormParams() {
  return {FloatParam("eps", "1e-10", "Added to the sum of squares."),
          EnumParam("mode", "instance", {"channel", "instance", "spatial"},
                    "The axes normalised together.")};
}

bool L2NormShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  bool known = ElemwiseShape(attrs, in, out);
  const Shape& d = (*in)[0];
  const int min_rank = attrs.params.GetString("mode") == "spatial" ? 3 : 2;
  if (d.ndim_known() && d.ndim() < min_rank)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must have rank >= ", min_rank,
         " for mode '", attrs.params.GetString("mode"), "', given ", d.ToString());
  return known;
}

}  // namespace

void RegisterNNNormInst(OpRegistry* reg) {
  OpDef f;
  f.name = "InstanceNorm";
  f.doc = "Instance normalisation: each (n, c) slice normalised by its own statistics.";
  f.params = InstanceNormParams();
  f.num_inputs = 3;
  f.input_names = FixedNames({"data", "gamma", "beta"});
  f.infer_shape = InstanceNormShape;
  f.infer_type = ElemwiseType;
  f.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_InstanceNorm", n, {og[0], n->inputs[0], n->inputs[1]}, 3);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_InstanceNorm";
  b.doc = "Gradient of InstanceNorm: (data_grad, gamma_grad, beta_grad) from (ograd, data, gamma).";
  b.params = InstanceNormParams();
  b.num_inputs = 3;
  b.num_outputs = 3;
  b.input_names = FixedNames({"ograd", "data", "gamma"});
  b.output_names = FixedNames({"data_grad", "gamma_grad", "beta_grad"});
  b.infer_shape = InstanceNormBackwardShape;
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));

  OpDef l;
  l.name = "L2Normalization";
  l.doc = "Divides by the L2 norm over each instance, channel vector or spatial map.";
  l.params = L2NormParams();
  l.infer_shape = L2NormShape;
  l.infer_type = ElemwiseType;
  l.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_L2Normalization", n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(l));

  OpDef lb;
  lb.name = "_backward_L2Normalization";
  lb.doc = "Gradient of L2Normalization: data_grad from (ograd, data).";
  lb.params = L2NormParams();
  lb.num_inputs = 2;
  lb.input_names = FixedNames({"ograd", "data"});
  lb.output_names = FixedNames({"data_grad"});
  lb.infer_shape = L2NormShape;
  lb.infer_type = ElemwiseType;
  reg->Add(std::move(lb));
}

}  // namespace op
}  // namespace weft
