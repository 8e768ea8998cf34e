// The steps of a `_fused_elemwise` node: a chain of pointwise ops
// (OpDef::pointwise) that pass::FuseElemwiseChains replaced by one node, so
// that its kernel runs the whole chain over one cache-sized tile of the
// elements after another instead of one pass over memory per op. The
// node's "steps" parameter holds them as JSON; its inputs are the chain's
// inputs from outside it.
#ifndef WEFT_FUSED_ELEMWISE_H_
#define WEFT_FUSED_ELEMWISE_H_

#include <string>
#include <vector>

#include "weft/node.h"
#include "weft/op.h"

namespace weft {

struct ElemwiseStep {
  NodeAttrs attrs;  // the op, its node name and its parameters
  // Per input of the op: an input of the fused node, or -1 for the
  // previous step's result (never in the first step).
  std::vector<int> args;
};

// The "steps" parameter text of `steps`.
std::string EncodeElemwiseSteps(const std::vector<ElemwiseStep>& steps);

// The steps of `fused` (a _fused_elemwise node's attributes) with their ops
// looked up in `ops` and their parameters parsed. Throws
// Error(kInvalidArgument) naming the node and the step on malformed text,
// unknown or non-pointwise ops, wrong argument counts or indices.
std::vector<ElemwiseStep> DecodeElemwiseSteps(const OpRegistry& ops, const NodeAttrs& fused);

}  // namespace weft

#endif  // WEFT_FUSED_ELEMWISE_H_
