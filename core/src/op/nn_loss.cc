// Loss-output operators with MXNet's names and parameters:
//
// SoftmaxOutput (alias Softmax)(data, label; grad_scale=1, ignore_label=-1,
//   multi_output=False, use_ignore=False, preserve_shape=False,
//   normalization=null|batch|valid, out_grad=False, smooth_alpha=0):
//   forward: softmax of data viewed as (N, K) (K = prod of the other axes);
//   multi_output: over axis 1 of (N, C, ...), label (N, ...);
//   preserve_shape: over the last axis, label = data shape minus last axis;
//   otherwise label (N,).
//   backward (ignores the head gradient unless out_grad):
//   dx = (softmax - onehot(label)) * grad_scale / normaliser, rows whose
//   label == ignore_label zeroed when use_ignore; normaliser 1 (null), N
//   (batch) or the count of non-ignored labels (valid, at least 1).
//   smooth_alpha spreads alpha over the non-label classes.
// LinearRegressionOutput / LogisticRegressionOutput / MAERegressionOutput
//   (data, label; grad_scale=1): forward identity / sigmoid / identity;
//   backward dx = grad_scale / m * f(out - label), m = label.Size()/label[0],
//   f = identity, identity, sign respectively. Label shape = data shape (or
//   (N,) for data (N, 1)).
// MakeLoss (alias make_loss)(data; grad_scale=1, valid_thresh=0,
//   normalization=null|batch|valid): forward identity; dx = grad_scale /
//   normaliser (batch: N; valid: count of data > valid_thresh, at least 1).
// BlockGrad (alias stop_gradient): identity with a zero gradient.
// The label inputs' gradients are zeros (second output of the backward ops).
#include "op_common.h"

namespace weft {
namespace op {

namespace {

ParamDecl LossEnum(const std::string& name, const std::string& def, std::vector<std::string> choices,
                   const std::string& doc) {
  ParamDecl d;
  d.name = name;
  d.type = ParamType::kEnum;
  d.default_value = def;
  d.choices = std::move(choices);
  d.doc = doc;
  return d;
}

std::vector<ParamDecl> SoftmaxOutputParams() {
  return {FloatParam("grad_scale", "1", "Scale of the gradient."),
          FloatParam("ignore_label", "-1", "Label value ignored when use_ignore."),
          BoolParam("multi_output", "False", "Softmax over axis 1 of (N, C, ...), label (N, ...)."),
          BoolParam("use_ignore", "False", "Whether rows labelled ignore_label get no gradient."),
          BoolParam("preserve_shape", "False", "Softmax over the last axis keeping the shape."),
          LossEnum("normalization", "null", {"batch", "null", "valid"}, "Gradient normaliser."),
          BoolParam("out_grad", "False", "Whether to multiply the gradient by the head gradient."),
          FloatParam("smooth_alpha", "0", "Label smoothing weight spread over the other classes.")};
}

std::vector<ParamDecl> RegressionParams() {
  return {FloatParam("grad_scale", "1", "Scale of the gradient.")};
}

std::vector<ParamDecl> MakeLossParams() {
  return {FloatParam("grad_scale", "1", "Gradient value (before normalisation)."),
          FloatParam("valid_thresh", "0", "Elements above this count as valid (normalization=valid)."),
          LossEnum("normalization", "null", {"batch", "null", "valid"}, "Gradient normaliser.")};
}

// The label shape SoftmaxOutput expects for `d` (partially known is fine).
Shape SoftmaxLabelShape(const ParamValues& p, const Shape& d) {
  std::vector<int64_t> dims;
  if (p.GetBool("multi_output")) {
    for (int i = 0; i < d.ndim(); ++i)
      if (i != 1) dims.push_back(d[i]);
  } else if (p.GetBool("preserve_shape")) {
    dims.assign(d.dims().begin(), d.dims().end() - 1);
  } else {
    dims.push_back(d[0]);
  }
  return Shape(dims);
}

bool SoftmaxOutputShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[0], "output");
  AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  const Shape& d = (*in)[0];
  if (d.ndim_known()) {
    const int min_rank = attrs.params.GetBool("multi_output") ? 2 : 1;
    if (d.ndim() < min_rank)
      Fail(StatusCode::kShape, "operator SoftmaxOutput: input 'data' must have rank >= ", min_rank,
           ", given ", d.ToString());
    const Shape want = SoftmaxLabelShape(attrs.params, d);
    const Shape& l = (*in)[1];
    // MXNet also accepts a label of the data's own shape in the default mode
    // when it is (N, 1)-like with the same element count.
    if (l.is_known() && want.is_known() && l != want && l.Size() == want.Size() && l[0] == want[0]) {
      // same elements in a different layout, accepted as MXNet does
    } else {
      AssignShape(attrs, in, 1, want, "input 'label'");
    }
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool RegressionShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[0], "output");
  AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  const Shape& d = (*in)[0];
  const Shape& l = (*in)[1];
  const bool label_1d_ok = d.is_known() && l.is_known() && l.ndim() == 1 && d.ndim() == 2 &&
                           d[1] == 1 && l[0] == d[0];
  if (!label_1d_ok) AssignShape(attrs, in, 1, d, "input 'label'");
  if (!d.ndim_known() && l.is_known()) return false;
  return AllKnown(*in) && AllKnown(*out);
}

// Backward of a (data, label) loss: in (output, label), out (data_grad,
// label_grad); or with the head gradient first for SoftmaxOutput.
bool LossBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const size_t n = in->size();
  AssignShape(attrs, out, 0, (*in)[n - 2], "output 'data_grad'");
  AssignShape(attrs, out, 1, (*in)[n - 1], "output 'label_grad'");
  return AllKnown(*in) && AllKnown(*out);
}

GradientFn LossGrad(const std::string& backward, bool with_ograd) {
  return [backward, with_ograd](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> ins;
    if (with_ograd) ins.push_back(og[0]);
    ins.push_back(OutEntry(n));
    ins.push_back(n->inputs[1]);
    return BackwardNode(r, backward, n, ins, 2);
  };
}

void AddLoss(OpRegistry* reg, const std::string& name, std::vector<std::string> aliases,
             const std::string& doc, std::vector<ParamDecl> params, InferShapeFn shape, bool with_ograd) {
  const std::string backward = "_backward_" + name;
  OpDef f;
  f.name = name;
  f.aliases = std::move(aliases);
  f.doc = doc;
  f.params = params;
  f.num_inputs = 2;
  f.input_names = FixedNames({"data", "label"});
  f.infer_shape = std::move(shape);
  f.infer_type = ElemwiseType;
  f.inplace = InplaceFirst;
  f.gradient = LossGrad(backward, with_ograd);
  f.is_loss = true;
  reg->Add(std::move(f));

  OpDef b;
  b.name = backward;
  b.doc = "Gradient of " + name + ": (data_grad, zero label_grad).";
  b.params = std::move(params);
  b.num_inputs = with_ograd ? 3 : 2;
  b.num_outputs = 2;
  b.input_names = with_ograd ? FixedNames({"ograd", "output", "label"}) : FixedNames({"output", "label"});
  b.output_names = FixedNames({"data_grad", "label_grad"});
  b.infer_shape = LossBackwardShape;
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace

void RegisterNNLoss(OpRegistry* reg) {
  AddLoss(reg, "SoftmaxOutput", {"Softmax"}, "Softmax forward with the cross-entropy gradient.",
          SoftmaxOutputParams(), SoftmaxOutputShape, true);
  AddLoss(reg, "LinearRegressionOutput", {}, "Identity forward with the squared-loss gradient.",
          RegressionParams(), RegressionShape, false);
  AddLoss(reg, "LogisticRegressionOutput", {}, "Sigmoid forward with the logistic-loss gradient.",
          RegressionParams(), RegressionShape, false);
  AddLoss(reg, "MAERegressionOutput", {}, "Identity forward with the absolute-loss gradient.",
          RegressionParams(), RegressionShape, false);

  OpDef m;
  m.name = "MakeLoss";
  m.aliases = {"make_loss"};
  m.doc = "Marks data as a loss: identity forward, gradient grad_scale / normaliser.";
  m.params = MakeLossParams();
  m.infer_shape = ElemwiseShape;
  m.infer_type = ElemwiseType;
  m.inplace = InplaceFirst;
  m.is_loss = true;
  m.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>&) {
    return BackwardNode(r, "_backward_MakeLoss", n, {n->inputs[0]}, 1);
  };
  reg->Add(std::move(m));

  OpDef mb;
  mb.name = "_backward_MakeLoss";
  mb.doc = "Gradient of MakeLoss from its input.";
  mb.params = MakeLossParams();
  mb.infer_shape = ElemwiseShape;
  mb.infer_type = ElemwiseType;
  reg->Add(std::move(mb));

  OpDef g;
  g.name = "BlockGrad";
  g.aliases = {"stop_gradient"};
  g.doc = "Identity that stops gradients (its gradient is zero).";
  g.infer_shape = ElemwiseShape;
  g.infer_type = ElemwiseType;
  g.inplace = InplaceFirst;
  g.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>&) {
    return std::vector<NodeEntry>{MakeOpEntry(r, "zeros_like", GradName(n, "backward"), {n->inputs[0]})};
  };
  reg->Add(std::move(g));
}

}  // namespace op
}  // namespace weft
