// softmax, log_softmax and SoftmaxActivation with MXNet's parameters, and
// their gradient ops.
//
// softmax(data; axis=-1, temperature=None, dtype=None, use_length=False):
//   y = exp(x/T - max) / sum(exp(x/T - max)) along `axis` (T = 1 when None).
// log_softmax: the same parameters, y = x/T - max - log(sum(exp(...))).
// SoftmaxActivation(data; mode=instance|channel): softmax over all axes but
//   the first (instance) or over axis 1 (channel).
// Shapes and dtypes are elementwise. `dtype` other than None/the input's
// and use_length=True are rejected (kNotImplemented).
// Gradients read the forward output y:
//   _backward_softmax(ograd, output):     dx = y * (dy - sum(dy*y)) / T
//   _backward_log_softmax(ograd, output): dx = (dy - exp(y)*sum(dy)) / T
//   _backward_SoftmaxActivation(ograd, output): softmax's with T = 1.
#include <algorithm>

#include "op_common.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> SoftmaxParams() {
  ParamDecl temp = FloatParam("temperature", "None", "Temperature dividing the input; None means 1.");
  temp.optional = true;
  ParamDecl dt;
  dt.name = "dtype";
  dt.type = ParamType::kDType;
  dt.default_value = "None";
  dt.optional = true;
  dt.doc = "Output dtype; None keeps the input's.";
  return {IntParam("axis", "-1", "The axis along which to normalise."), temp, dt,
          BoolParam("use_length", "False", "Whether a length input masks the axis (unsupported).")};
}

std::vector<ParamDecl> SoftmaxActParams() {
  ParamDecl d;
  d.name = "mode";
  d.type = ParamType::kEnum;
  d.default_value = "instance";
  d.choices = {"channel", "instance"};
  d.doc = "instance: softmax over all but the first axis; channel: over axis 1.";
  return {d};
}

// Checks the unsupported options and the axis against the data rank.
bool SoftmaxShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const std::string& name = attrs.op->name;
  if (attrs.params.GetBool("use_length"))
    Fail(StatusCode::kNotImplemented, "operator ", name, ": use_length=True is not supported");
  bool known = ElemwiseShape(attrs, in, out);
  const Shape& s = (*in)[0];
  if (s.ndim_known()) {
    const int64_t axis = attrs.params.GetInt("axis");
    if (axis < -s.ndim() || axis >= std::max(s.ndim(), 1))
      Fail(StatusCode::kInvalidArgument, "operator ", name, ": axis ", axis, " is out of range for data ",
           s.ToString());
  }
  return known;
}

bool SoftmaxType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  bool known = ElemwiseType(attrs, in, out);
  if (!attrs.params.IsNone("dtype") && (*in)[0] != DType::kUnknown &&
      attrs.params.GetDType("dtype") != (*in)[0])
    Fail(StatusCode::kNotImplemented, "operator ", attrs.op->name, ": dtype=",
         DTypeName(attrs.params.GetDType("dtype")), " differing from the input's ",
         DTypeName((*in)[0]), " is not supported");
  return known;
}

bool SoftmaxActShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  bool known = ElemwiseShape(attrs, in, out);
  const Shape& s = (*in)[0];
  if (s.ndim_known() && s.ndim() < (attrs.params.GetString("mode") == "channel" ? 2 : 1))
    Fail(StatusCode::kShape, "operator ", attrs.op->name, ": data of rank ", s.ndim(),
         " is too small for mode=", attrs.params.GetString("mode"));
  return known;
}

void AddSoftmaxLike(OpRegistry* reg, const std::string& name, const std::string& doc,
                    std::vector<ParamDecl> params, InferShapeFn shape, InferTypeFn type) {
  const std::string backward = "_backward_" + name;
  OpDef f;
  f.name = name;
  f.doc = doc;
  f.params = params;
  f.infer_shape = shape;
  f.infer_type = type;
  f.gradient = [backward](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, backward, n, {og[0], OutEntry(n)}, 1);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = backward;
  b.doc = "Gradient of " + name + " from (ograd, output).";
  b.params = std::move(params);
  b.num_inputs = 2;
  b.input_names = FixedNames({"ograd", "output"});
  b.infer_shape = shape;
  b.infer_type = ElemwiseType;
  b.inplace = InplaceFirst;
  reg->Add(std::move(b));
}

}  // namespace

void RegisterNNSoftmax(OpRegistry* reg) {
  AddSoftmaxLike(reg, "softmax", "Softmax along an axis, with optional temperature.", SoftmaxParams(),
                 SoftmaxShape, SoftmaxType);
  AddSoftmaxLike(reg, "log_softmax", "Log-softmax along an axis, with optional temperature.",
                 SoftmaxParams(), SoftmaxShape, SoftmaxType);
  AddSoftmaxLike(reg, "SoftmaxActivation", "Softmax per instance or per channel (axis 1).",
                 SoftmaxActParams(), SoftmaxActShape, ElemwiseType);
}

}  // namespace op
}  // namespace weft
