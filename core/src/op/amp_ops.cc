// amp_cast and amp_multicast (MXNet's src/operator/tensor/amp_cast.cc):
// the casts amp::ConvertSymbol puts into a mixed-precision graph, and their
// gradients. A float input (float32, float16, bfloat16) is converted; any
// other dtype passes through unchanged.
#include "op_common.h"

namespace weft {
namespace op {

namespace {

bool IsFloatish(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16;
}

bool AmpCastType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const DType x = (*in)[0];
  if (x == DType::kUnknown) return false;
  AssignType(attrs, out, 0, IsFloatish(x) ? attrs.params.GetDType("dtype") : x, "output");
  return true;
}

// Every float input goes to the widest float dtype among inputs and given
// outputs (float32 beats the reduced ones), or, with cast_narrow, to the
// narrowest (float16, then bfloat16, else float32); others pass through.
bool AmpMultiCastType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const bool narrow = attrs.params.GetBool("cast_narrow");
  DType to = narrow ? DType::kFloat32 : (*in)[0];
  for (size_t i = 0; i < in->size(); ++i) {
    for (DType t : {(*in)[i], (*out)[i]}) {
      if (!narrow && t == DType::kFloat32) to = DType::kFloat32;
      if (narrow && IsReducedFloat(t) && to == DType::kFloat32) to = t;
    }
  }
  bool known = true;
  for (size_t i = 0; i < in->size(); ++i) {
    const DType x = (*in)[i];
    if (x != DType::kUnknown)
      AssignType(attrs, out, i, IsFloatish(x) ? to : x, StrCat("output ", i));
    known = known && x != DType::kUnknown;
  }
  return known;
}

bool MultiShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  for (size_t i = 0; i < in->size(); ++i) {
    AssignShape(attrs, out, i, (*in)[i], StrCat("output ", i));
    AssignShape(attrs, in, i, (*out)[i], StrCat("input ", i));
  }
  return AllKnown(*in) && AllKnown(*out);
}

// in: ograd_0..n-1, data_0..n-1; out i: ograd_i in data_i's dtype (also
// _backward_amp_cast: n = 1).
bool MultiBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const size_t n = out->size();
  for (size_t i = 0; i < n; ++i) {
    AssignShape(attrs, out, i, (*in)[n + i], StrCat("output ", i));
    AssignShape(attrs, in, i, (*in)[n + i], StrCat("input 'ograd", i, "'"));
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool MultiBackwardType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const size_t n = out->size();
  for (size_t i = 0; i < n; ++i) AssignType(attrs, out, i, (*in)[n + i], StrCat("output ", i));
  return AllKnown(*in) && AllKnown(*out);
}

CountFn NumOutputs() {
  return [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_outputs")); };
}

}  // namespace

void RegisterAmpOps(OpRegistry* reg) {
  OpDef c;
  c.name = "amp_cast";
  c.doc =
      "Casts a float input (float32, float16, bfloat16) to dtype; other dtypes pass through "
      "(automatic mixed precision).";
  c.params = {RequiredParam("dtype", ParamType::kDType, "Output dtype of a float input.")};
  c.infer_shape = ElemwiseShape;
  c.infer_type = AmpCastType;
  c.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_amp_cast", n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(c));

  OpDef cb;
  cb.name = "_backward_amp_cast";
  cb.doc = "Gradient of amp_cast: ograd converted to data's dtype.";
  cb.params = {RequiredParam("dtype", ParamType::kDType, "The forward's dtype parameter.")};
  cb.num_inputs = 2;
  cb.input_names = FixedNames({"ograd", "data"});
  cb.infer_shape = MultiBackwardShape;
  cb.infer_type = MultiBackwardType;
  reg->Add(std::move(cb));

  OpDef m;
  m.name = "amp_multicast";
  m.doc =
      "Casts num_outputs float inputs to their widest float dtype (or the narrowest with "
      "cast_narrow); other dtypes pass through (automatic mixed precision).";
  m.params = {Ranged(RequiredParam("num_outputs", ParamType::kInt,
                                   "Number of input/output pairs cast to one dtype."),
                     1, 1e6),
              BoolParam("cast_narrow", "False", "Cast to the narrowest float dtype instead.")};
  m.num_inputs_fn = NumOutputs();
  m.num_outputs_fn = NumOutputs();
  m.key_var_num_args = "num_outputs";
  m.infer_shape = MultiShape;
  m.infer_type = AmpMultiCastType;
  m.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> in = og;
    in.insert(in.end(), n->inputs.begin(), n->inputs.end());
    return BackwardNode(r, "_backward_amp_multicast", n, in, static_cast<int>(og.size()));
  };
  reg->Add(std::move(m));

  OpDef mb;
  mb.name = "_backward_amp_multicast";
  mb.doc = "Gradient of amp_multicast: each ograd converted to its input's dtype.";
  mb.params = {Ranged(RequiredParam("num_outputs", ParamType::kInt, "Number of pairs."), 1, 1e6),
               BoolParam("cast_narrow", "False", "As the forward op.")};
  mb.num_inputs_fn = [](const ParamValues& p) {
    return 2 * static_cast<int>(p.GetInt("num_outputs"));
  };
  mb.num_outputs_fn = NumOutputs();
  mb.infer_shape = MultiBackwardShape;
  mb.infer_type = MultiBackwardType;
  reg->Add(std::move(mb));
}

}  // namespace op
}  // namespace weft
