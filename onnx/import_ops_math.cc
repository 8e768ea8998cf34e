// Converters of ONNX's elementwise ops, activations, Softmax, reductions,
// Cast and Where onto MXNet's unary ops, Activation, LeakyReLU, clip,
// broadcast_* / *_scalar ops, softmax, sum/mean/max/min/prod, Cast, where.
#include <cmath>
#include <limits>

#include "import_context.h"
#include "weft/status.h"

namespace weft {
namespace onnx_import {
namespace {

const std::map<std::string, std::pair<std::string, StringMap>>& UnaryOps() {
  static const std::map<std::string, std::pair<std::string, StringMap>> m = {
      {"Relu", {"Activation", {{"act_type", "relu"}}}},
      {"Sigmoid", {"Activation", {{"act_type", "sigmoid"}}}},
      {"Tanh", {"Activation", {{"act_type", "tanh"}}}},
      {"Softplus", {"Activation", {{"act_type", "softrelu"}}}},
      {"Softsign", {"Activation", {{"act_type", "softsign"}}}},
      {"Erf", {"erf", {}}},
      {"Exp", {"exp", {}}},
      {"Log", {"log", {}}},
      {"Sqrt", {"sqrt", {}}},
      {"Abs", {"abs", {}}},
      {"Neg", {"negative", {}}},
      {"Reciprocal", {"reciprocal", {}}},
      {"Floor", {"floor", {}}},
      {"Ceil", {"ceil", {}}},
      {"Round", {"rint", {}}},
      {"Sign", {"sign", {}}},
      {"Sin", {"sin", {}}},
      {"Cos", {"cos", {}}},
      {"Not", {"logical_not", {}}},
      {"Identity", {"identity", {}}}};
  return m;
}

void ConvertUnary(ImportContext& c) {
  const auto& [op, params] = UnaryOps().at(c.node->op_type());
  c.SetOut(0, c.Op(op, {c.Sym(c.node->input(0))}, params));
}

void ConvertDropout(ImportContext& c) {  // inference: the identity
  if (c.node->output_size() > 1 && !c.node->output(1).empty()) c.Unsupported("the mask output");
  c.SetOut(0, c.Sym(c.node->input(0)));
}

void ConvertLeaky(ImportContext& c) {
  const auto& n = *c.node;
  const std::string& op = n.op_type();
  const Symbol x = c.Sym(n.input(0));
  if (op == "LeakyRelu") {
    c.SetOut(0,
             c.Op("LeakyReLU", {x},
                  {{"act_type", "leaky"}, {"slope", FormatScalar(AttrFloat(n, "alpha", 0.01f))}}));
  } else if (op == "Elu") {
    c.SetOut(0, c.Op("LeakyReLU", {x},
                     {{"act_type", "elu"}, {"slope", FormatScalar(AttrFloat(n, "alpha", 1.0f))}}));
  } else if (op == "HardSigmoid") {
    c.SetOut(0, c.Op("hard_sigmoid", {x},
                     {{"alpha", FormatScalar(AttrFloat(n, "alpha", 0.2f))},
                      {"beta", FormatScalar(AttrFloat(n, "beta", 0.5f))}}));
  } else {  // PRelu: slope per channel (C) or a single one
    const ConstTensor& s = c.Const(n.input(1), "slope");
    ConstTensor g;
    g.dims = {static_cast<int64_t>(s.size())};
    for (size_t k = 0; k < s.size(); ++k) g.reals.push_back(s.real(k));
    c.SetOut(0, c.Op("LeakyReLU", {x, c.NewParam("_gamma", g)}, {{"act_type", "prelu"}}));
  }
}

void ConvertClip(ImportContext& c) {
  const auto& n = *c.node;
  double lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
  if (c.opset < 11) {
    lo = AttrFloat(n, "min", static_cast<float>(lo));
    hi = AttrFloat(n, "max", static_cast<float>(hi));
  } else {
    if (HasInput(n, 1)) lo = c.Const(n.input(1), "min").real(0);
    if (HasInput(n, 2)) hi = c.Const(n.input(2), "max").real(0);
  }
  c.SetOut(0, c.Op("clip", {c.Sym(n.input(0))},
                   {{"a_min", FormatScalar(lo)}, {"a_max", FormatScalar(hi)}}));
}

void ConvertSoftmax(ImportContext& c) {
  const auto& n = *c.node;
  const std::string op = n.op_type() == "Softmax" ? "softmax" : "log_softmax";
  const Shape s = c.ShapeOf(n.input(0));
  const int64_t axis = AttrInt(n, "axis", c.opset < 13 ? 1 : -1);
  const Symbol x = c.Sym(n.input(0));
  const bool last = axis == -1 || (s.ndim_known() && axis == s.ndim() - 1);
  if (c.opset >= 13 || last) {
    c.SetOut(0, c.Op(op, {x}, {{"axis", std::to_string(axis)}}));
    return;
  }
  // Before opset 13 the input is flattened to 2-D at `axis`.
  const Shape k = c.KnownShape(n.input(0), "input");
  const int64_t a = NormAxis(c, axis, k.ndim());
  const Symbol flat = c.Op("Reshape", {x},
                           {{"shape", Tuple({k.ProdRange(0, static_cast<int>(a)),
                                             k.ProdRange(static_cast<int>(a), k.ndim())})}},
                           "_flat");
  const Symbol y = c.Op(op, {flat}, {{"axis", "-1"}}, "_2d");
  c.SetOut(0, c.Op("reshape_like", {y, x}));
}

struct BinaryNames {
  const char* broadcast;
  const char* scalar;   // x op s
  const char* rscalar;  // s op x
};

const std::map<std::string, BinaryNames>& BinaryOps() {
  static const std::map<std::string, BinaryNames> m = {
      {"Add", {"broadcast_add", "_plus_scalar", "_plus_scalar"}},
      {"Sub", {"broadcast_sub", "_minus_scalar", "_rminus_scalar"}},
      {"Mul", {"broadcast_mul", "_mul_scalar", "_mul_scalar"}},
      {"Div", {"broadcast_div", "_div_scalar", "_rdiv_scalar"}},
      {"Pow", {"broadcast_power", "_power_scalar", "_rpower_scalar"}},
      {"Max", {"broadcast_maximum", "_maximum_scalar", "_maximum_scalar"}},
      {"Min", {"broadcast_minimum", "_minimum_scalar", "_minimum_scalar"}},
      {"Equal", {"broadcast_equal", "_equal_scalar", "_equal_scalar"}},
      {"Greater", {"broadcast_greater", "_greater_scalar", "_lesser_scalar"}},
      {"Less", {"broadcast_lesser", "_lesser_scalar", "_greater_scalar"}},
      {"GreaterOrEqual",
       {"broadcast_greater_equal", "_greater_equal_scalar", "_lesser_equal_scalar"}},
      {"LessOrEqual", {"broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar"}},
      {"And", {"broadcast_logical_and", nullptr, nullptr}},
      {"Or", {"broadcast_logical_or", nullptr, nullptr}},
      {"Xor", {"broadcast_logical_xor", nullptr, nullptr}}};
  return m;
}

// A one-element constant operand of rank <= the other's.
bool ScalarOperand(ImportContext& c, int i, int other) {
  const std::string& name = c.node->input(i);
  if (!c.IsConst(name) || c.IsConst(c.node->input(other))) return false;
  const ConstTensor& t = c.Const(name, "operand");
  const Shape o = c.ShapeOf(c.node->input(other));
  return t.size() == 1 && o.ndim_known() && static_cast<int>(t.dims.size()) <= o.ndim();
}

Symbol Binary(ImportContext& c, const std::string& op, int a, int b, const std::string& suffix) {
  const BinaryNames& names = BinaryOps().at(op);
  const auto& n = *c.node;
  if (names.scalar && ScalarOperand(c, b, a)) {
    const double s = c.Const(n.input(b), "operand").real(0);
    return c.Op(names.scalar, {c.Sym(n.input(a))}, {{"scalar", FormatScalar(s)}}, suffix);
  }
  if (names.rscalar && ScalarOperand(c, a, b)) {
    const double s = c.Const(n.input(a), "operand").real(0);
    return c.Op(names.rscalar, {c.Sym(n.input(b))}, {{"scalar", FormatScalar(s)}}, suffix);
  }
  // Operands of one static shape: MXNet's elementwise op, which the
  // inference passes fuse (a residual Add into its convolution as a sum).
  static const std::map<std::string, std::string> same_shape = {{"Add", "elemwise_add"},
                                                                {"Sub", "elemwise_sub"},
                                                                {"Mul", "elemwise_mul"},
                                                                {"Div", "elemwise_div"}};
  auto it = same_shape.find(op);
  const Shape sa = c.ShapeOf(n.input(a)), sb = c.ShapeOf(n.input(b));
  if (it != same_shape.end() && sa.is_known() && sa == sb)
    return c.Op(it->second, {c.Sym(n.input(a)), c.Sym(n.input(b))}, {}, suffix);
  return c.Op(names.broadcast, {c.Sym(n.input(a)), c.Sym(n.input(b))}, {}, suffix);
}

void ConvertBinary(ImportContext& c) {
  const auto& n = *c.node;
  const std::string& op = n.op_type();
  if (n.input_size() == 1) {  // Max / Min / Sum of one input
    c.SetOut(0, c.Sym(n.input(0)));
    return;
  }
  if (n.input_size() == 2) {
    c.SetOut(0, Binary(c, op == "Sum" ? "Add" : op, 0, 1, ""));
    return;
  }
  // Variadic Max / Min / Sum: a chain of broadcasting ops.
  const std::string base = op == "Sum" ? "Add" : op;
  Symbol acc = c.Sym(n.input(0));
  for (int i = 1; i < n.input_size(); ++i)
    acc = c.Op(BinaryOps().at(base).broadcast, {acc, c.Sym(n.input(i))}, {},
               i + 1 == n.input_size() ? "" : "_" + std::to_string(i));
  c.SetOut(0, acc);
}

void ConvertReduce(ImportContext& c) {
  static const std::map<std::string, std::string> ops = {{"ReduceMean", "mean"},
                                                         {"ReduceSum", "sum"},
                                                         {"ReduceMax", "max"},
                                                         {"ReduceMin", "min"},
                                                         {"ReduceProd", "prod"}};
  const auto& n = *c.node;
  const std::string& op = n.op_type();
  const bool axes_input = op == "ReduceSum" ? c.opset >= 13 : c.opset >= 18;
  const std::vector<int64_t> axes =
      axes_input ? (HasInput(n, 1) ? AxesArg(c, "axes", 1) : std::vector<int64_t>{})
                 : AttrInts(n, "axes");
  if (axes.empty() && AttrInt(n, "noop_with_empty_axes", 0)) {
    c.SetOut(0, c.Sym(n.input(0)));
    return;
  }
  StringMap p = {{"keepdims", AttrInt(n, "keepdims", 1) ? "True" : "False"}};
  if (!axes.empty()) p["axis"] = Tuple(axes);
  c.SetOut(0, c.Op(ops.at(op), {c.Sym(n.input(0))}, p));
}

void ConvertArgMax(ImportContext& c) {
  const auto& n = *c.node;
  if (AttrInt(n, "select_last_index", 0)) c.Unsupported("select_last_index 1");
  const std::string op = n.op_type() == "ArgMax" ? "argmax" : "argmin";
  c.SetOut(0, c.Op(op, {c.Sym(n.input(0))},
                   {{"axis", std::to_string(AttrInt(n, "axis", 0))},
                    {"keepdims", AttrInt(n, "keepdims", 1) ? "True" : "False"}}));
}

void ConvertCast(ImportContext& c) {
  const auto& n = *c.node;
  const int32_t to = static_cast<int32_t>(AttrInt(n, "to", onnx::TensorProto::FLOAT));
  const DType t = WeftDType(to, c.what + ": node '" + c.node_name + "'");
  c.SetOut(0, c.Op("Cast", {c.Sym(n.input(0))}, {{"dtype", DTypeName(t)}}));
}

void ConvertWhere(ImportContext& c) {
  const auto& n = *c.node;
  const Shape out = c.KnownShape(n.output(0), "output");
  std::vector<Symbol> args;
  for (int i = 0; i < 3; ++i) {
    Symbol s = c.Sym(n.input(i));
    if (c.ShapeOf(n.input(i)) != out)
      s = c.Op("broadcast_to", {s}, {{"shape", Tuple(out.dims())}}, "_b" + std::to_string(i));
    args.push_back(s);
  }
  c.SetOut(0, c.Op("where", args));
}

}  // namespace

void AddMathConverters(ConverterMap* m) {
  for (const auto& kv : UnaryOps()) (*m)[kv.first] = ConvertUnary;
  (*m)["Dropout"] = ConvertDropout;
  for (const char* op : {"LeakyRelu", "Elu", "HardSigmoid", "PRelu"}) (*m)[op] = ConvertLeaky;
  (*m)["Clip"] = ConvertClip;
  (*m)["Softmax"] = ConvertSoftmax;
  (*m)["LogSoftmax"] = ConvertSoftmax;
  for (const auto& kv : BinaryOps()) (*m)[kv.first] = ConvertBinary;
  (*m)["Sum"] = ConvertBinary;
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"})
    (*m)[op] = ConvertReduce;
  (*m)["ArgMax"] = ConvertArgMax;
  (*m)["ArgMin"] = ConvertArgMax;
  (*m)["Cast"] = ConvertCast;
  (*m)["Where"] = ConvertWhere;
}

}  // namespace onnx_import
}  // namespace weft
