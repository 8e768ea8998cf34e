// Activation and LeakyReLU with MXNet's names, parameters and defaults.
//
// Activation(data; act_type in relu|sigmoid|tanh|softrelu|softsign):
//   relu max(x,0), sigmoid 1/(1+e^-x), tanh, softrelu log(1+e^x),
//   softsign x/(1+|x|). Gradient `_backward_Activation(ograd, data, output)`.
// LeakyReLU(data[, gamma]; act_type=leaky, slope=0.25, lower_bound=0.125,
// upper_bound=0.334):
//   leaky x>0 ? x : slope*x;  prelu x>0 ? x : gamma[c]*x with gamma of
//   shape (C,) (C = data axis 1) or (1,);  elu x>0 ? x : slope*(e^x-1);
//   selu lambda*(x>0 ? x : alpha*(e^x-1)) with MXNet's constants;
//   gelu 0.5*x*(1+erf(x/sqrt(2)));  rrelu as in inference, i.e. leaky with
//   slope (lower_bound+upper_bound)/2 (the random training slopes are not
//   implemented: rrelu behaves identically in training).
//   Gradient `_backward_LeakyReLU(ograd, data[, gamma])` giving data_grad
//   [, gamma_grad = sum over x<=0 of ograd*x per channel].
// Both are elementwise in shape (gamma follows data's axis 1).
// Dropout(data; p=0.5, mode=training|always, axes=(), cudnn_off=None):
//   outputs (output, mask) as MXNet's (the mask is MXNet's hidden second
//   output). When training (or mode=always) and p > 0 each mask element is
//   0 with probability p, else 1/(1-p) (p = 1 gives all zeros), drawn from
//   the context's seeded RNG and shared along `axes`; otherwise the op is
//   the identity with a mask of ones. output = data * mask.
//   Gradient `_backward_Dropout(ograd, mask)`: dx = ograd * mask.
#include "op_common.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> ActParams() {
  return {RequiredEnumParam("act_type", {"relu", "sigmoid", "tanh", "softrelu", "softsign"},
                            "Activation function.")};
}

std::vector<ParamDecl> LeakyParams() {
  return {EnumParam("act_type", "leaky", {"elu", "gelu", "leaky", "prelu", "rrelu", "selu"},
                    "Activation function."),
          FloatParam("slope", "0.25", "Slope for leaky, alpha for elu."),
          FloatParam("lower_bound", "0.125", "Lower bound of the rrelu slope."),
          FloatParam("upper_bound", "0.334", "Upper bound of the rrelu slope.")};
}

bool IsPrelu(const ParamValues& p) { return p.GetString("act_type") == "prelu"; }

bool LeakyShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[0], "output");
  AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  if (IsPrelu(attrs.params)) {
    const Shape& d = (*in)[0];
    if (!(*in)[1].ndim_known() && d.ndim_known())
      AssignShape(attrs, in, 1, Shape({d.ndim() >= 2 ? d[1] : 1}), "input 'gamma'");
    const Shape& g = (*in)[1];
    if (g.is_known() && d.ndim_known()) {
      const int64_t c = d.ndim() >= 2 ? d[1] : 1;
      if (g.ndim() != 1 || (g[0] != 1 && c != 0 && g[0] != c))
        Fail(StatusCode::kShape, "operator LeakyReLU: input 'gamma' must have shape (", c,
             ",) or (1,) for data ", d.ToString(), ", given ", g.ToString());
    }
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool LeakyBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  // in: ograd, data[, gamma]; out: data_grad[, gamma_grad].
  AssignShape(attrs, in, 1, (*in)[0], "input 'data'");
  AssignShape(attrs, in, 0, (*in)[1], "input 'ograd'");
  AssignShape(attrs, out, 0, (*in)[1], "output 'data_grad'");
  if (in->size() > 2) AssignShape(attrs, out, 1, (*in)[2], "output 'gamma_grad'");
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<ParamDecl> DropoutParams() {
  return {
      Ranged(FloatParam("p", "0.5", "Fraction of the input dropped."), 0, 1),
      EnumParam("mode", "training", {"always", "training"}, "Drop only in training, or always."),
      ShapeParam("axes", "()", "Axes along which one mask value is shared."),
      Optional(BoolParam("cudnn_off", "None", "Ignored on CPU."))};
}

}  // namespace

void RegisterNNActivation(OpRegistry* reg) {
  OpDef d;
  d.name = "Dropout";
  d.doc = "Randomly zeroes elements (scaling the others by 1/(1-p)) in training.";
  d.params = DropoutParams();
  d.num_outputs = 2;
  d.output_names = FixedNames({"output", "mask"});
  d.infer_shape = ElemwiseShape;
  d.infer_type = ElemwiseType;
  d.inplace = InplaceFirst;
  d.uses_rng = true;
  d.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_Dropout", n, {og[0], OutEntry(n, 1)}, 1);
  };
  reg->Add(std::move(d));

  OpDef db;
  db.name = "_backward_Dropout";
  db.doc = "Gradient of Dropout: ograd * mask.";
  db.params = DropoutParams();
  db.num_inputs = 2;
  db.input_names = FixedNames({"ograd", "mask"});
  db.infer_shape = ElemwiseShape;
  db.infer_type = ElemwiseType;
  db.inplace = InplaceFirst;
  reg->Add(std::move(db));

  OpDef a;
  a.name = "Activation";
  a.doc = "Elementwise activation: relu, sigmoid, tanh, softrelu or softsign.";
  a.params = ActParams();
  a.infer_shape = ElemwiseShape;
  a.infer_type = ElemwiseType;
  a.inplace = InplaceFirst;
  a.pointwise = true;
  a.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_Activation", n, {og[0], n->inputs[0], OutEntry(n)}, 1);
  };
  reg->Add(std::move(a));

  OpDef ab;
  ab.name = "_backward_Activation";
  ab.doc = "Gradient of Activation from (ograd, data, output).";
  ab.params = ActParams();
  ab.num_inputs = 3;
  ab.input_names = FixedNames({"ograd", "data", "output"});
  ab.infer_shape = ElemwiseShape;
  ab.infer_type = ElemwiseType;
  ab.inplace = InplaceFirst;
  reg->Add(std::move(ab));

  OpDef l;
  l.name = "LeakyReLU";
  l.doc = "Leaky rectifiers: leaky, prelu (learned gamma), elu, selu, gelu, rrelu (inference).";
  l.params = LeakyParams();
  l.num_inputs_fn = [](const ParamValues& p) { return IsPrelu(p) ? 2 : 1; };
  l.input_names = [](const ParamValues& p) {
    return IsPrelu(p) ? std::vector<std::string>{"data", "gamma"}
                      : std::vector<std::string>{"data"};
  };
  l.infer_shape = LeakyShape;
  l.infer_type = ElemwiseType;
  l.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> ins = {og[0]};
    for (const auto& e : n->inputs) ins.push_back(e);
    return BackwardNode(r, "_backward_LeakyReLU", n, ins, static_cast<int>(n->inputs.size()));
  };
  reg->Add(std::move(l));

  OpDef lb;
  lb.name = "_backward_LeakyReLU";
  lb.doc = "Gradient of LeakyReLU from (ograd, data[, gamma]).";
  lb.params = LeakyParams();
  lb.num_inputs_fn = [](const ParamValues& p) { return IsPrelu(p) ? 3 : 2; };
  lb.num_outputs_fn = [](const ParamValues& p) { return IsPrelu(p) ? 2 : 1; };
  lb.input_names = [](const ParamValues& p) {
    return IsPrelu(p) ? std::vector<std::string>{"ograd", "data", "gamma"}
                      : std::vector<std::string>{"ograd", "data"};
  };
  lb.output_names = [](const ParamValues& p) {
    return IsPrelu(p) ? std::vector<std::string>{"data_grad", "gamma_grad"}
                      : std::vector<std::string>{"data_grad"};
  };
  lb.infer_shape = LeakyBackwardShape;
  lb.infer_type = ElemwiseType;
  reg->Add(std::move(lb));
}

}  // namespace op
}  // namespace weft
