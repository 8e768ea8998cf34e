// Shared building blocks for OpDefs: inference helpers, gradient helpers and
// parameter declarations.
// Internal to core/src/op; not a public header.
#ifndef WEFT_CORE_SRC_OP_OP_COMMON_H_
#define WEFT_CORE_SRC_OP_OP_COMMON_H_

#include <string>
#include <vector>

#include "weft/op.h"
#include "weft/status.h"

namespace weft {
namespace op {

// "operator <name>", plus " (node '<node>')" when the node's name differs,
// for error messages.
std::string OpLabel(const NodeAttrs& attrs);

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

// Parameter declarations: every OpDef builds its `params` from these (and
// no ParamDecl by hand). `def` is the default's text as a user writes it;
// `doc` is the parameter's one-line description.

// A float parameter (kFloat).
ParamDecl FloatParam(const std::string& name, const std::string& def, const std::string& doc);
// An integer parameter (kInt).
ParamDecl IntParam(const std::string& name, const std::string& def, const std::string& doc);
// A boolean parameter (kBool): True/False/true/false/1/0.
ParamDecl BoolParam(const std::string& name, const std::string& def, const std::string& doc);
// A tuple parameter (kShape) with a default text such as "()".
ParamDecl ShapeParam(const std::string& name, const std::string& def, const std::string& doc);
// A dtype parameter (kDType) with a default such as "float32".
ParamDecl DTypeParam(const std::string& name, const std::string& def, const std::string& doc);
// A device parameter (kContext) with a default such as "cpu(0)".
ParamDecl ContextParam(const std::string& name, const std::string& def, const std::string& doc);
// A free-text parameter (kString), read by the op itself.
ParamDecl StringParam(const std::string& name, const std::string& def, const std::string& doc);
// An enum parameter (kEnum): one of `choices`, listed in this order.
ParamDecl EnumParam(const std::string& name, const std::string& def,
                    std::vector<std::string> choices, const std::string& doc);
// An int parameter checked to lie in [lo, hi].
ParamDecl IntRangeParam(const std::string& name, const std::string& def, double lo, double hi,
                        const std::string& doc);
// A parameter of `type` without a default, which every instance must give.
ParamDecl RequiredParam(const std::string& name, ParamType type, const std::string& doc);
// A required enum parameter: one of `choices`, no default.
ParamDecl RequiredEnumParam(const std::string& name, std::vector<std::string> choices,
                            const std::string& doc);
// `d` also accepting the literal "None" (IsNone), e.g. as its default.
ParamDecl Optional(ParamDecl d);
// `d` (numeric) checked to lie in [lo, hi]; unchecked when lo > hi.
ParamDecl Ranged(ParamDecl d, double lo, double hi);

// Concat's parameters: the required num_args (>= 1) and the axis `dim`.
std::vector<ParamDecl> ConcatParams();
// Concat's OpDef shape (core/src/op/shape_ops_join.cc): `num_args` inputs
// "arg<i>", dtype shared, gradient through `_backward_Concat`; `shape` is its
// shape inference (Concat's own, or a variant such as _rnn_param_concat's).
OpDef ConcatLikeDef(std::string name, std::string doc, std::vector<ParamDecl> params,
                    InferShapeFn shape);

}  // namespace op
}  // namespace weft

#endif  // WEFT_CORE_SRC_OP_OP_COMMON_H_
