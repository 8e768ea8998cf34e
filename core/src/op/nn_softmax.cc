// softmax, log_softmax and SoftmaxActivation with MXNet's parameters, and
// their gradient ops.
//
// softmax(data; axis=-1, temperature=None, dtype=None, use_length=False):
//   y = exp(x/T - max) / sum(exp(x/T - max)) along `axis` (T = 1 when None).
// log_softmax: the same parameters, y = x/T - max - log(sum(exp(...))).
// SoftmaxActivation(data; mode=instance|channel): softmax over all axes but
//   the first (instance) or over axis 1 (channel).
// Shapes and dtypes are elementwise. `dtype` other than None/the input's is
// rejected (kNotImplemented).
// softmax with use_length=True takes a second input `length` (data's shape
// without `axis`; (1,) for 1-D data; any integer or float dtype, float32/64
// by default): each line is normalised over its first length[i] entries and
// the rest are 0 (MXNet 1.9's masked softmax); the length gets a zero
// gradient. MXNet 1.9's log_softmax has no length input: use_length=True
// is an error there.
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
  return {
      IntParam("axis", "-1", "The axis along which to normalise."),
      Optional(FloatParam("temperature", "None", "Temperature dividing the input; None means 1.")),
      Optional(DTypeParam("dtype", "None", "Output dtype; None keeps the input's.")),
      BoolParam("use_length", "False", "Whether a length input masks the axis (softmax only).")};
}

std::vector<ParamDecl> SoftmaxActParams() {
  return {EnumParam("mode", "instance", {"channel", "instance"},
                    "instance: softmax over all but the first axis; channel: over axis 1.")};
}

bool UseLength(const ParamValues& p) { return p.GetBool("use_length"); }

// Checks the axis against the data rank; with use_length, `length` (input
// `len_in`) is data's shape without the axis. Forward: in = (data[,
// length]); backward: in = (ograd, output[, length]) with out = (data_grad[,
// length_grad]).
bool SoftmaxShapeImpl(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out,
                      size_t len_in) {
  const std::string& name = attrs.op->name;
  const bool use_length = UseLength(attrs.params);
  if (use_length && name.find("log_softmax") != std::string::npos)
    Fail(StatusCode::kInvalidArgument, "operator ", name,
         ": use_length=True is supported by softmax only (MXNet 1.9's log_softmax has no length "
         "input)");
  std::vector<Shape> ein(in->begin(), in->begin() + len_in), eout = {(*out)[0]};
  bool known = ElemwiseShape(attrs, &ein, &eout);
  std::copy(ein.begin(), ein.end(), in->begin());
  (*out)[0] = eout[0];
  const Shape& s = (*in)[0];
  if (s.ndim_known()) {
    const int64_t axis = attrs.params.GetInt("axis");
    if (axis < -s.ndim() || axis >= std::max(s.ndim(), 1))
      Fail(StatusCode::kInvalidArgument, "operator ", name, ": axis ", axis,
           " is out of range for data ", s.ToString());
    if (use_length) {
      std::vector<int64_t> dims = s.dims();
      if (!dims.empty()) dims.erase(dims.begin() + (axis < 0 ? axis + s.ndim() : axis));
      if (dims.empty()) dims.push_back(1);
      AssignShape(attrs, in, len_in, Shape(dims), "input 'length'");
    }
  }
  if (!use_length) return known;
  if (out->size() > 1) {
    AssignShape(attrs, out, 1, (*in)[len_in], "output 'length_grad'");
    AssignShape(attrs, in, len_in, (*out)[1], "input 'length'");
  }
  return known && AllKnown(*in) && AllKnown(*out);
}

bool SoftmaxShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return SoftmaxShapeImpl(attrs, in, out, 1);
}

bool SoftmaxBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return SoftmaxShapeImpl(attrs, in, out, 2);
}

// Elementwise types on the first `n` inputs and the first output; a length
// input (after them) keeps its own dtype, float data's by default, and so
// does its gradient.
bool TypesWithLength(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out,
                     size_t n) {
  std::vector<DType> ein(in->begin(), in->begin() + n), eout = {(*out)[0]};
  bool known = ElemwiseType(attrs, &ein, &eout);
  std::copy(ein.begin(), ein.end(), in->begin());
  (*out)[0] = eout[0];
  if (in->size() > n) {
    if ((*in)[n] == DType::kUnknown && out->size() > 1) (*in)[n] = (*out)[1];
    if ((*in)[n] == DType::kUnknown) (*in)[n] = (*in)[0];
    if (out->size() > 1) AssignType(attrs, out, 1, (*in)[n], "output 'length_grad'");
  }
  return known && AllKnown(*in) && AllKnown(*out);
}

bool SoftmaxBackwardType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  return TypesWithLength(attrs, in, out, 2);
}

bool SoftmaxType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  bool known = TypesWithLength(attrs, in, out, 1);
  if (!attrs.params.IsNone("dtype") && (*in)[0] != DType::kUnknown &&
      attrs.params.GetDType("dtype") != (*in)[0])
    Fail(StatusCode::kNotImplemented, "operator ", attrs.op->name,
         ": dtype=", DTypeName(attrs.params.GetDType("dtype")), " differing from the input's ",
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

// `with_length`: the op has softmax's optional length input.
void AddSoftmaxLike(OpRegistry* reg, const std::string& name, const std::string& doc,
                    std::vector<ParamDecl> params, InferShapeFn shape, InferTypeFn type,
                    InferShapeFn backward_shape, InferTypeFn backward_type, bool with_length) {
  const std::string backward = "_backward_" + name;
  OpDef f;
  f.name = name;
  f.doc = doc;
  f.params = params;
  f.infer_shape = shape;
  f.infer_type = type;
  f.gradient = [backward, with_length](const OpRegistry& r, const NodePtr& n,
                                       const std::vector<NodeEntry>& og) {
    if (with_length && UseLength(n->attrs.params))
      return BackwardNode(r, backward, n, {og[0], OutEntry(n), n->inputs[1]}, 2);
    return BackwardNode(r, backward, n, {og[0], OutEntry(n)}, 1);
  };
  if (with_length) {
    f.num_inputs_fn = [](const ParamValues& p) { return UseLength(p) ? 2 : 1; };
    f.input_names = [](const ParamValues& p) {
      return UseLength(p) ? std::vector<std::string>{"data", "length"}
                          : std::vector<std::string>{"data"};
    };
  }
  reg->Add(std::move(f));

  OpDef b;
  b.name = backward;
  b.doc = "Gradient of " + name + " from (ograd, output[, length]).";
  b.params = std::move(params);
  b.num_inputs = 2;
  b.input_names = FixedNames({"ograd", "output"});
  if (with_length) {
    b.num_inputs_fn = [](const ParamValues& p) { return UseLength(p) ? 3 : 2; };
    b.num_outputs_fn = [](const ParamValues& p) { return UseLength(p) ? 2 : 1; };
    b.input_names = [](const ParamValues& p) {
      return UseLength(p) ? std::vector<std::string>{"ograd", "output", "length"}
                          : std::vector<std::string>{"ograd", "output"};
    };
    b.output_names = [](const ParamValues& p) {
      return UseLength(p) ? std::vector<std::string>{"data_grad", "length_grad"}
                          : std::vector<std::string>{"data_grad"};
    };
  }
  b.infer_shape = backward_shape;
  b.infer_type = backward_type;
  b.inplace = InplaceFirst;
  reg->Add(std::move(b));
}

}  // namespace

void RegisterNNSoftmax(OpRegistry* reg) {
  AddSoftmaxLike(
      reg, "softmax", "Softmax along an axis, with optional temperature and length mask.",
      SoftmaxParams(), SoftmaxShape, SoftmaxType, SoftmaxBackwardShape, SoftmaxBackwardType, true);
  AddSoftmaxLike(reg, "log_softmax", "Log-softmax along an axis, with optional temperature.",
                 SoftmaxParams(), SoftmaxShape, SoftmaxType, SoftmaxBackwardShape, ElemwiseType,
                 false);
  AddSoftmaxLike(reg, "SoftmaxActivation", "Softmax per instance or per channel (axis 1).",
                 SoftmaxActParams(), SoftmaxActShape, ElemwiseType, SoftmaxActShape, ElemwiseType,
                 false);
}

}  // namespace op
}  // namespace weft
