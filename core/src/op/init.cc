// Array creation with MXNet names: the source ops _zeros (alias zeros),
// _ones (alias ones) and _full (alias full), and zeros_like / ones_like.
//
// Source ops take no inputs; their output has the required `shape`, the
// `dtype` (default float32) and lives on `ctx` (default cpu(0)). _full fills
// with `value`. zeros_like / ones_like take one input "data" and produce
// the same shape and dtype (bidirectional inference); their gradient is
// zeros_like(data), since the output does not depend on the input's values.
#include "op_common.h"

namespace weft {
namespace op {

namespace {

// shape, ctx, dtype: the parameters every creation op shares.
std::vector<ParamDecl> SourceParams() {
  return {RequiredParam("shape", ParamType::kShape, "Shape of the output."),
          ContextParam("ctx", "cpu(0)", "Context of the output."),
          DTypeParam("dtype", "float32", "Element type of the output.")};
}

bool SourceShape(const NodeAttrs& attrs, std::vector<Shape>*, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, attrs.params.GetShape("shape"), "output 0");
  return AllKnown(*out);
}

bool SourceType(const NodeAttrs& attrs, std::vector<DType>*, std::vector<DType>* out) {
  AssignType(attrs, out, 0, attrs.params.GetDType("dtype"), "output 0");
  return AllKnown(*out);
}

OpDef SourceDef(const std::string& name, const std::string& alias, const std::string& doc) {
  OpDef d;
  d.name = name;
  d.aliases = {alias};
  d.doc = doc;
  d.params = SourceParams();
  d.num_inputs = 0;
  d.is_source = true;
  d.infer_shape = SourceShape;
  d.infer_type = SourceType;
  return d;
}

// zeros_like(data): the gradient of ops whose output ignores data's values.
std::vector<NodeEntry> ZerosLikeGrad(const OpRegistry& r, const NodePtr& n,
                                     const std::vector<NodeEntry>&) {
  return {MakeOpEntry(r, "zeros_like", GradName(n, "zeros_grad"), {n->inputs[0]})};
}

OpDef LikeDef(const std::string& name, const std::string& doc) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.infer_shape = ElemwiseShape;
  d.infer_type = ElemwiseType;
  d.inplace = InplaceFirst;
  d.gradient = ZerosLikeGrad;
  return d;
}

}  // namespace

void RegisterInit(OpRegistry* reg) {
  reg->Add(SourceDef("_zeros", "zeros", "An array of the given shape and dtype filled with 0."));
  reg->Add(SourceDef("_ones", "ones", "An array of the given shape and dtype filled with 1."));
  OpDef full =
      SourceDef("_full", "full", "An array of the given shape and dtype filled with `value`.");
  full.params.push_back(RequiredParam("value", ParamType::kFloat, "The fill value."));
  reg->Add(std::move(full));
  reg->Add(LikeDef("zeros_like", "An array of zeros with the shape and dtype of the input."));
  reg->Add(LikeDef("ones_like", "An array of ones with the shape and dtype of the input."));
}

}  // namespace op
}  // namespace weft
