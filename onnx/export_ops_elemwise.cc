// ONNX export of elementwise operators (same-shape, broadcast and scalar
// arithmetic, unary math, ElementWiseSum) and the softmax family
// (softmax, log_softmax, SoftmaxOutput, SoftmaxActivation).
#include "export_context.h"

namespace weft {
namespace onnx_export {

namespace {

template <const char* kOp>
void Binary(Context& cx, const ExportNode& n) {
  cx.Add(kOp, {n.inputs[0], n.inputs[1]}, {n.outputs[0]}, n.name());
}

// x OP scalar, or scalar OP x when kReverse.
template <const char* kOp, bool kReverse>
void Scalar(Context& cx, const ExportNode& n) {
  const std::string c =
      cx.ConstScalar(n.name() + "_scalar", n.params().GetFloat("scalar"), n.in_types[0]);
  if (kReverse)
    cx.Add(kOp, {c, n.inputs[0]}, {n.outputs[0]}, n.name());
  else
    cx.Add(kOp, {n.inputs[0], c}, {n.outputs[0]}, n.name());
}

template <const char* kOp>
void Unary(Context& cx, const ExportNode& n) {
  cx.Add(kOp, {n.inputs[0]}, {n.outputs[0]}, n.name());
}

void Square(Context& cx, const ExportNode& n) {
  cx.Add("Mul", {n.inputs[0], n.inputs[0]}, {n.outputs[0]}, n.name());
}

void Rsqrt(Context& cx, const ExportNode& n) {
  const std::string s = cx.Add1("Sqrt", {n.inputs[0]}, n.name() + "_sqrt");
  cx.Add("Reciprocal", {s}, {n.outputs[0]}, n.name());
}

void Sum(Context& cx, const ExportNode& n) {
  cx.Add(n.inputs.size() == 1 ? "Identity" : "Sum", n.inputs, {n.outputs[0]}, n.name());
}

constexpr char kAdd[] = "Add", kSub[] = "Sub", kMul[] = "Mul", kDiv[] = "Div", kPow[] = "Pow",
               kMax[] = "Max", kMin[] = "Min";
constexpr char kRelu[] = "Relu", kSigmoid[] = "Sigmoid", kTanh[] = "Tanh", kExp[] = "Exp",
               kLog[] = "Log", kSqrt[] = "Sqrt", kAbs[] = "Abs", kNeg[] = "Neg", kFloor[] = "Floor",
               kCeil[] = "Ceil", kSin[] = "Sin", kCos[] = "Cos", kErf[] = "Erf",
               kReciprocal[] = "Reciprocal", kSign[] = "Sign", kSoftsign[] = "Softsign";

// Softmax (or LogSoftmax) along `axis` of a rank-`rank` x into `out`. From
// opset 13 ONNX normalises one axis; before, it flattens from `axis`, so an
// axis that is not the last goes through a transpose.
void SoftmaxAxis(Context& cx, const std::string& op, const std::string& x, int64_t axis, int rank,
                 const std::string& out, const std::string& name) {
  if (cx.opset() >= 13 || axis == rank - 1) {
    SetInt(cx.Add(op, {x}, {out}, name), "axis", axis);
    return;
  }
  std::vector<int64_t> perm;
  for (int i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[axis], perm[rank - 1]);
  const std::string t = cx.Fresh(name + "_t");
  SetInts(cx.Add("Transpose", {x}, {t}, name + "_t"), "perm", perm);
  const std::string s = cx.Fresh(name + "_last");
  SetInt(cx.Add(op, {t}, {s}, name), "axis", rank - 1);
  SetInts(cx.Add("Transpose", {s}, {out}, name + "_back"), "perm", perm);
}

// MXNet's instance softmax: over all but axis 0 flattened, in the input's shape.
void SoftmaxFlat(Context& cx, const ExportNode& n) {
  const int rank = n.in_shapes[0].ndim();
  if (rank <= 2)
    return SoftmaxAxis(cx, "Softmax", n.inputs[0], rank - 1, rank, n.outputs[0], n.name());
  const std::string f = cx.Fresh(n.name() + "_flat");
  SetInt(cx.Add("Flatten", {n.inputs[0]}, {f}, n.name() + "_flat"), "axis", 1);
  const std::string s = cx.Fresh(n.name() + "_softmax");
  SetInt(cx.Add("Softmax", {f}, {s}, n.name()), "axis", 1);
  const std::string shape = cx.Add1("Shape", {n.inputs[0]}, n.name() + "_shape");
  cx.Add("Reshape", {s, shape}, {n.outputs[0]}, n.name() + "_unflat");
}

// MXNet 1.9's masked softmax: along `axis`, positions >= length (data's
// shape without the axis) are left out and give 0.
void MaskedSoftmax(Context& cx, const ExportNode& n, const std::string& x, int64_t axis,
                   const std::string& out) {
  const int rank = n.in_shapes[0].ndim();
  const int64_t len = n.in_shapes[0][static_cast<int>(axis)];
  std::vector<float> pos;
  for (int64_t i = 0; i < len; ++i) pos.push_back(static_cast<float>(i));
  std::vector<int64_t> pos_dims = {len};
  for (int64_t i = axis + 1; i < rank; ++i) pos_dims.push_back(1);
  const std::string nm = n.name();
  const std::string lf = cx.Fresh(nm + "_length_f");
  SetInt(cx.Add("Cast", {n.inputs[1]}, {lf}, nm + "_length_f"), "to", onnx::TensorProto::FLOAT);
  const std::string lu = Unsqueeze(cx, lf, {axis}, nm + "_length_u");
  const std::string mask =
      cx.Add1("Less", {cx.ConstFloats(nm + "_positions", pos, pos_dims), lu}, nm + "_mask");
  const DType t = n.in_types[0];
  const std::string xm =
      cx.Add1("Where", {mask, x, cx.ConstScalar(nm + "_lowest", -3.0e38, t)}, nm + "_masked");
  const std::string y = cx.Fresh(nm + "_softmax");
  SoftmaxAxis(cx, "Softmax", xm, axis, rank, y, nm);
  cx.Add("Where", {mask, y, cx.ConstScalar(nm + "_zero", 0, t)}, {out}, nm + "_zeros");
}

void SoftmaxLike(Context& cx, const ExportNode& n, const std::string& op) {
  const ParamValues& p = n.params();
  const bool use_length = p.GetBool("use_length");
  if (use_length && op != "Softmax") ThrowUnsupported("use_length=True");
  const int rank = n.in_shapes[0].ndim();
  int64_t axis = p.GetInt("axis");
  if (axis < 0) axis += rank;
  std::string x = n.inputs[0];
  if (!p.IsNone("temperature") && p.GetFloat("temperature") != 1.0) {
    const std::string t =
        cx.ConstScalar(n.name() + "_temperature", p.GetFloat("temperature"), n.in_types[0]);
    x = cx.Add1("Div", {x, t}, n.name() + "_scaled");
  }
  const bool cast = n.out_types[0] != n.in_types[0];
  const std::string out = cast ? cx.Fresh(n.name() + "_value") : n.outputs[0];
  if (use_length)
    MaskedSoftmax(cx, n, x, axis, out);
  else
    SoftmaxAxis(cx, op, x, axis, rank, out, n.name());
  if (cast)
    SetInt(cx.Add("Cast", {out}, {n.outputs[0]}, n.name() + "_cast"), "to",
           OnnxElemType(n.out_types[0]));
}
void Softmax(Context& cx, const ExportNode& n) { SoftmaxLike(cx, n, "Softmax"); }
void LogSoftmax(Context& cx, const ExportNode& n) { SoftmaxLike(cx, n, "LogSoftmax"); }

// Inference: the probabilities; the label input is not read.
void SoftmaxOutput(Context& cx, const ExportNode& n) {
  const ParamValues& p = n.params();
  const int rank = n.in_shapes[0].ndim();
  if (p.GetBool("multi_output"))
    SoftmaxAxis(cx, "Softmax", n.inputs[0], 1, rank, n.outputs[0], n.name());
  else if (p.GetBool("preserve_shape"))
    SoftmaxAxis(cx, "Softmax", n.inputs[0], rank - 1, rank, n.outputs[0], n.name());
  else
    SoftmaxFlat(cx, n);
  cx.Note(n, "exported as its inference output (softmax); the label input is dropped");
}

void SoftmaxActivation(Context& cx, const ExportNode& n) {
  if (n.params().GetString("mode") == "channel")
    SoftmaxAxis(cx, "Softmax", n.inputs[0], 1, n.in_shapes[0].ndim(), n.outputs[0], n.name());
  else
    SoftmaxFlat(cx, n);
}

// The regression outputs compute their input (or its sigmoid) in inference.
void RegressionOutput(Context& cx, const ExportNode& n) {
  const bool logistic = n.op() == "LogisticRegressionOutput";
  cx.Add(logistic ? "Sigmoid" : "Identity", {n.inputs[0]}, {n.outputs[0]}, n.name());
  cx.Note(n, "exported as its inference output; the label input is dropped");
}

}  // namespace

void AddElemwiseConverters(ConverterTable* t) {
  auto& m = *t;
  for (const char* op : {"elemwise_add", "broadcast_add"}) m[op] = Binary<kAdd>;
  for (const char* op : {"elemwise_sub", "broadcast_sub"}) m[op] = Binary<kSub>;
  for (const char* op : {"elemwise_mul", "broadcast_mul"}) m[op] = Binary<kMul>;
  for (const char* op : {"elemwise_div", "broadcast_div"}) m[op] = Binary<kDiv>;
  for (const char* op : {"_power", "broadcast_power"}) m[op] = Binary<kPow>;
  for (const char* op : {"_maximum", "broadcast_maximum"}) m[op] = Binary<kMax>;
  for (const char* op : {"_minimum", "broadcast_minimum"}) m[op] = Binary<kMin>;
  m["_plus_scalar"] = Scalar<kAdd, false>;
  m["_minus_scalar"] = Scalar<kSub, false>;
  m["_rminus_scalar"] = Scalar<kSub, true>;
  m["_mul_scalar"] = Scalar<kMul, false>;
  m["_div_scalar"] = Scalar<kDiv, false>;
  m["_rdiv_scalar"] = Scalar<kDiv, true>;
  m["_power_scalar"] = Scalar<kPow, false>;
  m["_rpower_scalar"] = Scalar<kPow, true>;
  m["_maximum_scalar"] = Scalar<kMax, false>;
  m["_minimum_scalar"] = Scalar<kMin, false>;
  m["relu"] = Unary<kRelu>;
  m["sigmoid"] = Unary<kSigmoid>;
  m["tanh"] = Unary<kTanh>;
  m["exp"] = Unary<kExp>;
  m["log"] = Unary<kLog>;
  m["sqrt"] = Unary<kSqrt>;
  m["abs"] = Unary<kAbs>;
  m["negative"] = Unary<kNeg>;
  m["floor"] = Unary<kFloor>;
  m["ceil"] = Unary<kCeil>;
  m["sin"] = Unary<kSin>;
  m["cos"] = Unary<kCos>;
  m["erf"] = Unary<kErf>;
  m["reciprocal"] = Unary<kReciprocal>;
  m["sign"] = Unary<kSign>;
  m["softsign"] = Unary<kSoftsign>;
  m["square"] = Square;
  m["rsqrt"] = Rsqrt;
  m["ElementWiseSum"] = Sum;
  m["softmax"] = Softmax;
  m["log_softmax"] = LogSoftmax;
  m["SoftmaxOutput"] = SoftmaxOutput;
  m["SoftmaxActivation"] = SoftmaxActivation;
  m["LinearRegressionOutput"] = RegressionOutput;
  m["LogisticRegressionOutput"] = RegressionOutput;
  m["MAERegressionOutput"] = RegressionOutput;
}

}  // namespace onnx_export
}  // namespace weft
