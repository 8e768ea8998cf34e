// LRN (local response normalisation across channels) with MXNet's names and
// semantics, and _backward_LRN.
//
// LRN(data; alpha = 1e-4, beta = 0.75, knorm = 2, nsize): data (N, C, ...)
// of rank >= 3; y[c] = x[c] / (knorm + alpha / nsize * sum x[c']^2)^beta,
// the sum over channels c' in [c - nsize/2, c + nsize/2] inside [0, C).
// nsize must be odd (a symmetric window). Inference is elementwise
// (bidirectional). Gradient `_backward_LRN(ograd, data)` -> data_grad:
// dx[j] = dy[j] * D[j]^-beta - 2*beta*alpha/nsize * x[j] *
//         sum_{c in window(j)} dy[c] * x[c] * D[c]^(-beta-1).
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> LRNParams() {
  return {FloatParam("alpha", "0.0001", "Scale of the sum of squares."),
          FloatParam("beta", "0.75", "Exponent."), FloatParam("knorm", "2", "Additive constant."),
          Ranged(RequiredParam("nsize", ParamType::kInt, "Odd number of channels in the window."),
                 1, 1e6)};
}

bool LRNShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (attrs.params.GetInt("nsize") % 2 == 0)
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs),
         ": parameter 'nsize' = ", attrs.params.GetInt("nsize"), " must be odd");
  const bool known = ElemwiseShape(attrs, in, out);
  const Shape& d = (*in)[0];
  if (d.ndim_known() && d.ndim() < 3)
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'data' must have rank >= 3 (N, C, spatial...), given ", d.ToString());
  return known;
}

}  // namespace

void RegisterNNLRN(OpRegistry* reg) {
  OpDef f;
  f.name = "LRN";
  f.doc = "Local response normalisation across neighbouring channels (MXNet semantics).";
  f.params = LRNParams();
  f.infer_shape = LRNShape;
  f.infer_type = ElemwiseType;
  f.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_LRN", n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_LRN";
  b.doc = "Gradient of LRN: data_grad from (ograd, data).";
  b.params = LRNParams();
  b.num_inputs = 2;
  b.input_names = FixedNames({"ograd", "data"});
  b.output_names = FixedNames({"data_grad"});
  b.infer_shape = LRNShape;
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace op
}  // namespace weft
