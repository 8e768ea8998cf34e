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
  d.pointwise = true;
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

// Gradient dx = backward_op(ograd, y) when `use_output`, else (ograd, x),
// with the forward node's parameters (MXNet's ElemwiseGradUseOut/UseIn).
inline GradientFn GradVia(const std::string& backward_op, bool use_output) {
  return [backward_op, use_output](const OpRegistry& r, const NodePtr& n,
                                   const std::vector<NodeEntry>& og) {
    NodeEntry second = use_output ? OutEntry(n) : n->inputs[0];
    return BackwardNode(r, backward_op, n, {og[0], second}, 1);
  };
}

// One zeros_like(input) per input: MXNet's MakeZeroGradNodes, the gradient
// of rounding, comparison and logical ops.
inline std::vector<NodeEntry> ZeroGrads(const OpRegistry& r, const NodePtr& n,
                                        const std::vector<NodeEntry>&) {
  std::vector<NodeEntry> g;
  for (size_t i = 0; i < n->inputs.size(); ++i)
    g.push_back(
        GradOp(r, "zeros_like", n, "in" + std::to_string(i) + "_zero_grad", {n->inputs[i]}));
  return g;
}

// A unary op whose gradient is a `_backward_<name>(ograd, x or y)` op.
struct UnarySpec {
  const char* name;
  const char* doc;
  const char* backward;  // `_backward_<name>`
  bool use_output;       // the backward op reads y (else x)
  const char* backward_doc;
};

// Registers the forward op of `s` (with `params` and `aliases`) and its
// backward op (same parameters).
inline void AddUnaryWithBackward(OpRegistry* reg, const UnarySpec& s,
                                 const std::vector<ParamDecl>& params = {},
                                 std::vector<std::string> aliases = {}) {
  OpDef f = UnaryDef(s.name, s.doc, params);
  f.aliases = std::move(aliases);
  f.gradient = GradVia(s.backward, s.use_output);
  reg->Add(std::move(f));
  reg->Add(BackwardDef(s.backward, s.use_output ? "output" : "data", s.backward_doc, params));
}

// A same-shape gradient OpDef with inputs (ograd, lhs, rhs) and outputs
// (lhs_grad, rhs_grad), all of one shape and dtype (bidirectional). The
// kernels read an element's inputs before writing its outputs, so ograd and
// lhs may share memory with lhs_grad and rhs with rhs_grad.
inline OpDef BackwardBinaryDef(std::string name, std::string doc) {
  OpDef d;
  d.name = std::move(name);
  d.doc = std::move(doc);
  d.num_inputs = 3;
  d.num_outputs = 2;
  d.input_names = FixedNames({"ograd", "lhs", "rhs"});
  d.output_names = FixedNames({"lhs_grad", "rhs_grad"});
  d.infer_shape = ElemwiseShape;
  d.infer_type = ElemwiseType;
  d.inplace = [](const ParamValues&) {
    return std::vector<std::pair<int, int>>{{0, 0}, {1, 0}, {2, 1}};
  };
  return d;
}

// The OpDef skeletons of the three binary forms, shared with
// elemwise_compare.cc. BinaryDef: inputs ("lhs", "rhs") of one shape and
// dtype (elemwise_binary.cc). BroadcastDef: the same with numpy
// broadcasting, forward-only shape inference (broadcast.cc). ScalarDef: one
// input "data" and MXNet's scalar parameters `scalar` (float, default 1)
// and `is_int` (bool, default True; float inputs ignore it)
// (elemwise_scalar.cc).
OpDef BinaryDef(std::string name, std::vector<std::string> aliases, std::string doc);
OpDef BroadcastDef(std::string name, std::vector<std::string> aliases, std::string doc);
OpDef ScalarDef(std::string name, std::vector<std::string> aliases, std::string doc);
// ScalarDef's parameters, for the scalar ops' backward ops.
std::vector<ParamDecl> ScalarParams();

}  // namespace op
}  // namespace weft

#endif  // WEFT_CORE_SRC_OP_ELEMWISE_COMMON_H_
