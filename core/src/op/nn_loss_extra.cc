// Loss operators that differentiate like ordinary ops (they use the head
// gradient), with MXNet 1.9's names and semantics:
//
// softmax_cross_entropy(data, label): data (N, K), label (N,) of class
//   indices; output (1,) = sum_n -log(max(softmax(data[n])[label[n]],
//   1e-8)). Gradient `_backward_softmax_cross_entropy(ograd, data, label)`
//   -> (ograd[0] * (softmax(data) - onehot(label)), zero label gradient).
// smooth_l1(data; scalar = sigma = 1) (alias _npx_smooth_l1): elementwise
//   f(x) = 0.5 (sigma x)^2 when |x| < 1 / sigma^2, |x| - 0.5 / sigma^2
//   otherwise. Gradient `_backward_smooth_l1(ograd, data)`: ograd * (sigma^2
//   x inside, sign(x) outside).
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

// in = (data, label), out = (loss); bidirectional on N.
bool SoftmaxCEShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, Shape({1}), "output");
  const Shape &d = (*in)[0], &l = (*in)[1];
  if (d.ndim_known() && d.ndim() != 2)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must be 2-D (N, K), given ",
         d.ToString());
  if (l.ndim_known() && l.ndim() != 1)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'label' must be 1-D (N,), given ",
         l.ToString());
  if (d.ndim_known()) AssignShape(attrs, in, 1, Shape({d[0]}), "input 'label'");
  if (l.ndim_known())
    AssignShape(attrs, in, 0, Shape({l[0], d.ndim_known() ? d[1] : 0}), "input 'data'");
  return AllKnown(*in) && AllKnown(*out);
}

// in = (ograd, data, label), out = (data_grad, label_grad).
bool SoftmaxCEBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  AssignShape(attrs, in, 0, Shape({1}), "input 'ograd'");
  AssignShape(attrs, in, 1, (*out)[0], "input 'data'");
  AssignShape(attrs, out, 0, (*in)[1], "output 'data_grad'");
  AssignShape(attrs, in, 2, (*out)[1], "input 'label'");
  AssignShape(attrs, out, 1, (*in)[2], "output 'label_grad'");
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<ParamDecl> SmoothL1Params() {
  return {FloatParam("scalar", "1", "sigma: the quadratic part covers |x| < 1 / sigma^2."),
          BoolParam("is_int", "True", "Whether the scalar is an integer (ignored).")};
}

}  // namespace

void RegisterNNLossExtra(OpRegistry* reg) {
  OpDef ce;
  ce.name = "softmax_cross_entropy";
  ce.doc = "Summed cross-entropy of softmax(data) and class-index labels, as a (1,) array.";
  ce.num_inputs = 2;
  ce.input_names = FixedNames({"data", "label"});
  ce.infer_shape = SoftmaxCEShape;
  ce.infer_type = ElemwiseType;
  ce.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_softmax_cross_entropy", n,
                        {og[0], n->inputs[0], n->inputs[1]}, 2);
  };
  reg->Add(std::move(ce));

  OpDef ceb;
  ceb.name = "_backward_softmax_cross_entropy";
  ceb.doc =
      "Gradient of softmax_cross_entropy: (data_grad, zero label_grad) from (ograd, data, label).";
  ceb.num_inputs = 3;
  ceb.num_outputs = 2;
  ceb.input_names = FixedNames({"ograd", "data", "label"});
  ceb.output_names = FixedNames({"data_grad", "label_grad"});
  ceb.infer_shape = SoftmaxCEBackwardShape;
  ceb.infer_type = ElemwiseType;
  reg->Add(std::move(ceb));

  OpDef s;
  s.name = "smooth_l1";
  s.aliases = {"_npx_smooth_l1"};
  s.doc = "Elementwise smooth L1 (Huber-like) loss with sigma = scalar.";
  s.params = SmoothL1Params();
  s.infer_shape = ElemwiseShape;
  s.infer_type = ElemwiseType;
  s.inplace = InplaceFirst;
  s.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_smooth_l1", n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(s));

  OpDef sb;
  sb.name = "_backward_smooth_l1";
  sb.doc = "Gradient of smooth_l1: ograd * f'(data).";
  sb.params = SmoothL1Params();
  sb.num_inputs = 2;
  sb.input_names = FixedNames({"ograd", "data"});
  sb.infer_shape = ElemwiseShape;
  sb.infer_type = ElemwiseType;
  sb.inplace = InplaceFirst;
  reg->Add(std::move(sb));
}

}  // namespace op
}  // namespace weft
