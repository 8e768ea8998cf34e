// Operators whose output extents depend on the input values (ONNX's
// NonMaxSuppression: how many boxes survive). Their shape inference leaves
// the data-dependent extents unknown (0), so a bound executor, which plans
// every array before it runs, refuses a graph holding one; imperative calls
// (Invoke, and so a CachedOp, which runs such a graph node by node) run the
// kernel on outputs of an upper-bound shape and hand on the rows it wrote:
// none gives an output of zero rows, which the operators after it take
// (weft/shape.h, OpDef::infer_empty_shape).
#ifndef WEFT_DYNAMIC_SHAPE_H_
#define WEFT_DYNAMIC_SHAPE_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "weft/graph.h"
#include "weft/ndarray.h"
#include "weft/node.h"
#include "weft/shape.h"

namespace weft {

struct DynamicShapeOp {
  // Output shapes large enough for any values of inputs of these shapes.
  std::function<std::vector<Shape>(const NodeAttrs&, const std::vector<Shape>& in)> bound;
  // Per output: the leading rows the kernel wrote into the bound-shaped
  // `out` (read on the host once the kernel has run).
  std::function<std::vector<int64_t>(const NodeAttrs&, const std::vector<NDArray>& out)> rows;
};

// Registers `op_name` as dynamic (an operator's registration calls it).
void RegisterDynamicShapeOp(const std::string& op_name, DynamicShapeOp fns);
// The functions of a dynamic operator, or null for any other.
const DynamicShapeOp* FindDynamicShapeOp(const std::string& op_name);

// The shapes of g's outputs with every dynamic operator at its upper bound
// (DynamicShapeOp::bound) and the nodes after it sized from that: the
// largest shapes a run of g on variables of these shapes (by name) can give,
// as long as the nodes after a dynamic one grow with its rows (gathers and
// elementwise ops do). pass::InferShape seeds the variables, one forward
// sweep of the ops' infer_shape follows (core/src/pass/infer_bound_shape.cc:
// a shape pass, declared here beside the operators it serves). Throws
// Error(kShape) naming the node whose outputs stay unknown, and InferShape's
// errors.
std::vector<Shape> InferBoundShapes(const IndexedGraph& g,
                                    const std::map<std::string, Shape>& inputs);

}  // namespace weft

#endif  // WEFT_DYNAMIC_SHAPE_H_
