// OpDef skeletons and gradient shorthands shared by the elementwise op
// families (elemwise_unary.cc, elemwise_binary.cc, elemwise_scalar.cc,
// broadcast.cc). Internal to core/src/op; not a public header.
#ifndef WEFT_CORE_SRC_OP_ELEMWISE_COMMON_H_
#define WEFT_CORE_SRC_OP_ELEMWISE_COMMON_H_

#include <string>
#include <utility>
#include <vector>

#include "op_common.h"

namespace weft {
namespace op {

// In-place pairs for two-input elementwise ops: either input may share
// memory with output 0 (kernels read an element before writing it).
inline std::vector<std::pair<int, int>> InplaceEither(const ParamValues&) {
  return {{0, 0}, {1, 0}};
}

// "operator <name>" plus the node name when it differs, for error messages.
inline std::string OpLabel(const NodeAttrs& attrs) {
  std::string s = "operator " + (attrs.op ? attrs.op->name : std::string("?"));
  if (attrs.op && !attrs.name.empty() && attrs.name != attrs.op->name)
    s += " (node '" + attrs.name + "')";
  return s;
}

// An OpDef with one input "data" and one output of the same shape and dtype
// (bidirectional inference); the output may overwrite the input.
inline OpDef UnaryDef(std::string name, std::string doc, std::vector<ParamDecl> params = {}) {
  OpDef d;
  d.name = std::move(name);
  d.doc = std::move(doc);
  d.params = std::move(params);
  d.num_inputs = 1;
  d.input_names = FixedNames({"data"});
  d.infer_shape = ElemwiseShape;
  d.infer_type = ElemwiseType;
  d.inplace = InplaceFirst;
  return d;
}

// A gradient OpDef with inputs (ograd, `second`) and one output, all of one
// shape and dtype (bidirectional inference); the output may overwrite
// either input. No gradient of its own.
inline OpDef BackwardDef(std::string name, const std::string& second, std::string doc,
                         std::vector<ParamDecl> params = {}) {
  OpDef d;
  d.name = std::move(name);
  d.doc = std::move(doc);
  d.params = std::move(params);
  d.num_inputs = 2;
  d.input_names = FixedNames({"ograd", second});
  d.infer_shape = ElemwiseShape;
  d.infer_type = ElemwiseType;
  d.inplace = InplaceEither;
  return d;
}

// Output 0 of a new `op_name` node on `inputs`, named after the forward
// `node` and `suffix`, with string parameters `params`.
inline NodeEntry GradOp(const OpRegistry& reg, const std::string& op_name, const NodePtr& node,
                        const std::string& suffix, std::vector<NodeEntry> inputs,
                        const StringMap& params = {}) {
  return MakeOpEntry(reg, op_name, GradName(node, suffix), std::move(inputs), params);
}

}  // namespace op
}  // namespace weft

#endif  // WEFT_CORE_SRC_OP_ELEMWISE_COMMON_H_
