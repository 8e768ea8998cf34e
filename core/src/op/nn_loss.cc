// Loss-output operators with MXNet's names and parameters:
//
// SoftmaxOutput (alias Softmax)(data, label; grad_scale=1, ignore_label=-1,
//   multi_output=False, use_ignore=False, preserve_shape=False,
//   normalization=null|batch|valid, out_grad=False, smooth_alpha=0),
//   MXNet 1.x semantics, forward and backward:
//   forward: softmax over axis 1 of (N, C, S) (multi_output), over the last
//   axis (preserve_shape), or else over each sample's flattened values
//   (data viewed as (N, K), K = prod of the other axes).
//   label: of data's shape = a probability label, dx = (softmax - label) *
//   grad_scale (no normaliser, no ignore). Otherwise class indices:
//   multi_output: (N, prod(S)) inferred, (N, S...) or (N, 1, S...) accepted;
//   dx[n, :, s] = (softmax - onehot(label[n, s])) * grad_scale / (null: S;
//   batch: S * N; valid: count of labels != ignore_label, at least 1);
//   smooth_alpha is not applied (as in MXNet).
//   otherwise: label = data's shape without its last axis (flattened to L
//   values); the softmax rows (R = prod of all but the last axis with
//   preserve_shape, N otherwise) use label values 0..R-1 in order (so with
//   data of rank > 2 and no preserve_shape, row n uses the n-th flattened
//   label value as an index into its flattened K values, exactly as MXNet
//   1.x); dx = (softmax - onehot) * grad_scale / (null: 1; batch: L; valid:
//   count of labels != ignore_label, at least 1); smooth_alpha moves alpha
//   from the label class to the others.
//   use_ignore zeroes rows/positions labelled ignore_label (compared as
//   ints); out_grad multiplies by the head gradient, otherwise ignored.
//   Labels used as indices must lie in [0, classes) (an error here; MXNet
//   silently skips the onehot).
// LinearRegressionOutput / LogisticRegressionOutput / MAERegressionOutput
//   (data, label; grad_scale=1): forward identity / sigmoid / identity;
//   backward dx = grad_scale / m * f(out - label), m = label.Size()/label[0],
//   f = identity, identity, sign respectively. Label shape = data shape (or
//   (N,) for data (N, 1)).
// SVMOutput(data, label; margin=1, regularization_coefficient=1,
//   use_linear=False): forward identity; data viewed as (rows, K) over its
//   last axis, label = data's shape without it. Backward (head gradient
//   ignored), with k = label[row], c = regularization_coefficient, m =
//   margin: L1 (use_linear): dx[k] = -c [m > x[k]], dx[j] = c [m > -x[j]];
//   L2: dx[k] = -2c max(m - x[k], 0), dx[j] = 2c max(m + x[j], 0).
// MakeLoss (alias make_loss)(data; grad_scale=1, valid_thresh=0,
//   normalization=null|batch|valid): forward identity; dx = grad_scale /
//   normaliser (batch: N; valid: count of data > valid_thresh, at least 1).
// BlockGrad (alias stop_gradient): identity with a zero gradient.
// The label inputs' gradients are zeros (second output of the backward ops).
#include "op_common.h"

namespace weft {
namespace op {

namespace {

// SoftmaxOutput's and MakeLoss's "normalization" of the gradient.
ParamDecl NormalizationParam() {
  return EnumParam("normalization", "null", {"batch", "null", "valid"}, "Gradient normaliser.");
}

std::vector<ParamDecl> SoftmaxOutputParams() {
  return {FloatParam("grad_scale", "1", "Scale of the gradient."),
          FloatParam("ignore_label", "-1", "Label value ignored when use_ignore."),
          BoolParam("multi_output", "False", "Softmax over axis 1 of (N, C, ...), label (N, ...)."),
          BoolParam("use_ignore", "False", "Whether rows labelled ignore_label get no gradient."),
          BoolParam("preserve_shape", "False", "Softmax over the last axis keeping the shape."),
          NormalizationParam(),
          BoolParam("out_grad", "False", "Whether to multiply the gradient by the head gradient."),
          FloatParam("smooth_alpha", "0", "Label smoothing weight spread over the other classes.")};
}

std::vector<ParamDecl> RegressionParams() {
  return {FloatParam("grad_scale", "1", "Scale of the gradient.")};
}

std::vector<ParamDecl> SVMOutputParams() {
  return {FloatParam("margin", "1", "Outputs outside this margin are penalised."),
          FloatParam("regularization_coefficient", "1", "Scale of the gradient."),
          BoolParam("use_linear", "False", "L1-SVM objective (L2-SVM when false).")};
}

std::vector<ParamDecl> MakeLossParams() {
  return {
      FloatParam("grad_scale", "1", "Gradient value (before normalisation)."),
      FloatParam("valid_thresh", "0", "Elements above this count as valid (normalization=valid)."),
      NormalizationParam()};
}

// The class-index label shape SoftmaxOutput infers for data `d` (MXNet
// 1.x): (N, prod(d[2:])) with multi_output, otherwise d without its last
// axis (for preserve_shape and the flattened default alike). Unknown
// extents stay 0.
Shape SoftmaxLabelShape(const ParamValues& p, const Shape& d) {
  if (p.GetBool("multi_output")) {
    const bool rest_known =
        Shape(std::vector<int64_t>(d.dims().begin() + 2, d.dims().end())).is_known();
    return Shape({d[0], rest_known ? d.ProdRange(2, d.ndim()) : 0});
  }
  return Shape(std::vector<int64_t>(d.dims().begin(), d.dims().end() - 1));
}

// Whether `l` could be `want` (ShapeAssign succeeds on a copy).
bool Compatible(const Shape& l, const Shape& want) {
  Shape t = l;
  return ShapeAssign(&t, want);
}

bool SoftmaxOutputShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[0], "output");
  AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  const Shape& d = (*in)[0];
  if (d.ndim_known()) {
    const bool multi = attrs.params.GetBool("multi_output");
    const int min_rank = multi ? 2 : 1;
    if (d.ndim() < min_rank)
      Fail(StatusCode::kShape, "operator SoftmaxOutput: input 'data' must have rank >= ", min_rank,
           ", given ", d.ToString());
    const Shape want = SoftmaxLabelShape(attrs.params, d);
    const Shape& l = (*in)[1];
    if (multi && l.ndim_known()) {
      // A label of data's shape is a probability label; MXNet also accepts
      // (N, prod(spatial)), (N, spatial...) and data's shape with axis 1 = 1.
      Shape spatial(std::vector<int64_t>(d.dims().begin(), d.dims().end()));
      spatial[1] = 1;
      std::vector<int64_t> squeezed = d.dims();
      squeezed.erase(squeezed.begin() + 1);
      if (Compatible(l, d) && !(l[1] == 1 && d[1] != 1)) {
        AssignShape(attrs, in, 1, d, "input 'label'");
      } else if (!Compatible(l, want) && !Compatible(l, Shape(squeezed)) &&
                 !Compatible(l, spatial)) {
        Fail(StatusCode::kShape, "operator SoftmaxOutput: input 'label' must have shape ",
             want.ToString(), ", ", Shape(squeezed).ToString(), ", ", spatial.ToString(),
             " or data's ", d.ToString(), "; given ", l.ToString());
      }
    } else if (!multi && l.is_known() && want.is_known() && l != want && l != d &&
               l.Size() == want.Size() && l.ndim() > 0 && want.ndim() > 0 && l[0] == want[0]) {
      // same elements as the index label in another layout (e.g. (N, 1)), accepted
    } else if (!multi && l.ndim_known() && l.ndim() == d.ndim()) {
      AssignShape(attrs, in, 1, d, "input 'label'");  // probability label
    } else {
      AssignShape(attrs, in, 1, want, "input 'label'");
    }
  }
  return AllKnown(*in) && AllKnown(*out);
}

// SVMOutput: label = data without its last axis.
bool SVMOutputShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[0], "output");
  AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  const Shape& d = (*in)[0];
  if (d.ndim_known()) {
    if (d.ndim() < 1)
      Fail(StatusCode::kShape, "operator SVMOutput: input 'data' must have rank >= 1, given ",
           d.ToString());
    AssignShape(attrs, in, 1, Shape(std::vector<int64_t>(d.dims().begin(), d.dims().end() - 1)),
                "input 'label'");
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool RegressionShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[0], "output");
  AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  const Shape& d = (*in)[0];
  const Shape& l = (*in)[1];
  const bool label_1d_ok =
      d.is_known() && l.is_known() && l.ndim() == 1 && d.ndim() == 2 && d[1] == 1 && l[0] == d[0];
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
  return [backward, with_ograd](const OpRegistry& r, const NodePtr& n,
                                const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> ins;
    if (with_ograd) ins.push_back(og[0]);
    ins.push_back(OutEntry(n));
    ins.push_back(n->inputs[1]);
    return BackwardNode(r, backward, n, ins, 2);
  };
}

void AddLoss(OpRegistry* reg, const std::string& name, std::vector<std::string> aliases,
             const std::string& doc, std::vector<ParamDecl> params, InferShapeFn shape,
             bool with_ograd) {
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
  b.input_names =
      with_ograd ? FixedNames({"ograd", "output", "label"}) : FixedNames({"output", "label"});
  b.output_names = FixedNames({"data_grad", "label_grad"});
  b.infer_shape = LossBackwardShape;
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace

void RegisterNNLoss(OpRegistry* reg) {
  AddLoss(reg, "SoftmaxOutput", {"Softmax"}, "Softmax forward with the cross-entropy gradient.",
          SoftmaxOutputParams(), SoftmaxOutputShape, true);
  AddLoss(reg, "SVMOutput", {},
          "Identity forward with the (L1 or L2) one-vs-all hinge-loss gradient.", SVMOutputParams(),
          SVMOutputShape, false);
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
    return std::vector<NodeEntry>{
        MakeOpEntry(r, "zeros_like", GradName(n, "backward"), {n->inputs[0]})};
  };
  reg->Add(std::move(g));
}

}  // namespace op
}  // namespace weft
