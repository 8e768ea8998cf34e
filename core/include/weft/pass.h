// Passes: typed functions over an IndexedGraph. No pass runs by name.
//
// Each pass reads an IndexedGraph (graph.h) and returns a result struct of
// dense vectors indexed by entry id. Passes are pure: they never edit the
// graph, hold no state, and may run concurrently on the same graph.
//
// Pipeline so far (namespace weft::pass):
//   IndexedGraph g(symbol.outputs);
//   pass::ShapeResult s = pass::InferShape(g, {{"data", Shape{32, 784}}});
//   pass::TypeResult t = pass::InferType(g, {{"data", DType::kFloat32}});
#ifndef WEFT_PASS_H_
#define WEFT_PASS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "weft/dtype.h"
#include "weft/graph.h"
#include "weft/shape.h"

namespace weft {
namespace pass {

using ShapeMap = std::map<std::string, Shape>;
using DTypeMap = std::map<std::string, DType>;

// Result of shape inference. `shapes` holds every entry (unknown rank or 0
// extents where inference could not tell); `unknown` lists the entries that
// are not fully known, ascending, with their names (IndexedGraph::
// entry_name) in `unknown_names`. The arg/aux/out vectors repeat the shapes
// of g.argument_nodes(), g.aux_nodes() and g.outputs() in that order.
struct ShapeResult {
  std::vector<Shape> shapes;
  std::vector<uint32_t> unknown;
  std::vector<std::string> unknown_names;
  std::vector<Shape> arg_shapes, aux_shapes, out_shapes;
  bool complete() const { return unknown.empty(); }
};

struct TypeResult {
  std::vector<DType> dtypes;  // DType::kUnknown (-1) where not inferred
  std::vector<uint32_t> unknown;
  std::vector<std::string> unknown_names;
  std::vector<DType> arg_types, aux_types, out_types;
  bool complete() const { return unknown.empty(); }
};

// Infers every entry's shape. `inputs` gives shapes of variables by name
// (all variables with that name); a variable's __shape__ hint is used when
// it is not given. 0 extents and unknown rank mean "unknown". Alternates
// forward (topological) and backward (reverse) sweeps over the ops'
// infer_shape functions until a sweep fills nothing more (the number of
// unknown dims stops decreasing). Never fails for missing information:
// check complete(). Throws Error(kInvalidArgument) for a name that is no
// variable of `g` (listing the variables) or a malformed __shape__ hint, and
// Error(kShape) for a conflict, naming the node, its op, the input and both
// the provided and the inferred shapes.
ShapeResult InferShape(const IndexedGraph& g, const ShapeMap& inputs = {});

// Same structure for element types; hints come from __dtype__ (a dtype name
// or MXNet code). Conflicts throw Error(kDType) naming node, op, input and
// both dtypes.
TypeResult InferType(const IndexedGraph& g, const DTypeMap& inputs = {});

}  // namespace pass
}  // namespace weft

#endif  // WEFT_PASS_H_
