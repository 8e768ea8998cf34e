// InferBoundShapes (weft/dynamic_shape.h): output shapes with the
// data-dependent extents at their upper bounds, for buffers that any run's
// outputs fit.
#include "weft/dynamic_shape.h"
#include "weft/pass.h"
#include "weft/status.h"

namespace weft {

namespace {

std::string Label(const Node& n) {
  return StrCat("node '", n.attrs.name, "' (", n.op()->name, ")");
}

}  // namespace

std::vector<Shape> InferBoundShapes(const IndexedGraph& g,
                                    const std::map<std::string, Shape>& inputs) {
  // The variables as InferShape finds them (labels inferred backwards).
  const pass::ShapeResult seeds = pass::InferShape(g, inputs);
  std::vector<Shape> shapes(g.num_node_entries());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (node.is_variable()) {
      shapes[g.entry_id(nid, 0)] = seeds.shapes[g.entry_id(nid, 0)];
      continue;
    }
    std::vector<Shape> in, out(node.num_outputs());
    for (const auto& e : g[nid].inputs) in.push_back(shapes[g.entry_id(e)]);
    const DynamicShapeOp* dynamic = FindDynamicShapeOp(node.op()->name);
    try {
      if (node.op()->infer_shape) node.op()->infer_shape(node.attrs, &in, &out);
      if (dynamic) out = dynamic->bound(node.attrs, in);
    } catch (const Error& e) {
      Fail(e.code(), "InferBoundShapes: ", Label(node), ": ", e.what());
    }
    for (uint32_t i = 0; i < node.num_outputs(); ++i) {
      if (i >= out.size() || !out[i].is_known())
        Fail(StatusCode::kShape, "InferBoundShapes: ", Label(node), ": the shape of output ", i,
             " is unknown (", i < out.size() ? out[i].ToString() : "none", ")");
      shapes[g.entry_id(nid, i)] = out[i];
    }
  }
  std::vector<Shape> result;
  for (const auto& e : g.outputs()) result.push_back(shapes[g.entry_id(e)]);
  return result;
}

}  // namespace weft
