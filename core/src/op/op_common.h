// Shared building blocks for OpDefs: inference helpers and gradient helpers.
// Internal to core/src/op; not a public header.
#ifndef WEFT_CORE_SRC_OP_OP_COMMON_H_
#define WEFT_CORE_SRC_OP_OP_COMMON_H_

#include <string>
#include <vector>

#include "weft/op.h"
#include "weft/status.h"

namespace weft {
namespace op {

// Merges `src` into `(*shapes)[i]`; on conflict throws Error(kShape) naming
// the op, the node, `what` (e.g. "input 'lhs'") and both shapes.
void AssignShape(const NodeAttrs& attrs, std::vector<Shape>* shapes, size_t i, const Shape& src,
                 const std::string& what);
// Same for dtypes (kUnknown is "unknown").
void AssignType(const NodeAttrs& attrs, std::vector<DType>* types, size_t i, DType src,
                const std::string& what);

// Every input and output has the same shape (bidirectional).
bool ElemwiseShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out);
// Every input and output has the same dtype (bidirectional).
bool ElemwiseType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out);
// Output shapes known, inputs none: true when every output is known.
bool AllKnown(const std::vector<Shape>& shapes);
bool AllKnown(const std::vector<DType>& types);

// Input/output names helper: NamesFn returning a fixed list.
NamesFn FixedNames(std::vector<std::string> names);
// Inplace helper: input 0 may share memory with output 0.
std::vector<std::pair<int, int>> InplaceFirst(const ParamValues&);

// Gradient helpers. A node name for gradient node `suffix` of `node`.
std::string GradName(const NodePtr& node, const std::string& suffix);
// Output entry 0 of `node`.
NodeEntry OutEntry(const NodePtr& node, uint32_t index = 0);
// The `_backward_<op>` node taking (out_grads..., extra inputs...) with the
// node's own parameters; returns one entry per output of that node.
std::vector<NodeEntry> BackwardNode(const OpRegistry& reg, const std::string& backward_op,
                                    const NodePtr& node, std::vector<NodeEntry> inputs,
                                    int num_outputs);

// Standard parameter declarations.
ParamDecl FloatParam(const std::string& name, const std::string& def, const std::string& doc);
ParamDecl IntParam(const std::string& name, const std::string& def, const std::string& doc);
ParamDecl BoolParam(const std::string& name, const std::string& def, const std::string& doc);
ParamDecl RequiredParam(const std::string& name, ParamType type, const std::string& doc);

// Concat's OpDef shape (core/src/op/shape_ops_join.cc): `num_args` inputs
// "arg<i>", dtype shared, gradient through `_backward_Concat`; `shape` is its
// shape inference (Concat's own, or a variant such as _rnn_param_concat's).
OpDef ConcatLikeDef(std::string name, std::string doc, std::vector<ParamDecl> params, InferShapeFn shape);

}  // namespace op
}  // namespace weft

#endif  // WEFT_CORE_SRC_OP_OP_COMMON_H_
