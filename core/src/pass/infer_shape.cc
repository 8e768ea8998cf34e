// InferShape: bidirectional shape inference over an IndexedGraph.
//
// Entries start unknown (unknown rank), variables take the given shape or
// their __shape__ hint, then forward and backward sweeps call each op's
// infer_shape on copies of its entries and merge the results back with
// ShapeAssign, until a sweep fills nothing more.
#include <set>

#include "weft/graph_algorithm.h"
#include "weft/op.h"
#include "weft/pass.h"
#include "weft/status.h"

namespace weft {
namespace pass {

namespace {

std::string NodeLabel(const Node& n) { return StrCat("node '", n.attrs.name, "' (", n.op()->name, ")"); }

// "lhs=a (2,3), rhs=b None": the node's inputs, their sources and shapes.
std::string DescribeInputs(const IndexedGraph& g, uint32_t nid, const std::vector<Shape>& shapes) {
  const auto& in = g[nid];
  const Node& n = *in.node;
  std::vector<std::string> names = n.op()->InputNames(n.attrs.params);
  std::string s;
  for (size_t i = 0; i < in.inputs.size(); ++i) {
    uint32_t eid = g.entry_id(in.inputs[i]);
    s += StrCat(i ? ", " : "", i < names.size() ? names[i] : StrCat("input", i), "=",
                g.entry_name(eid), " ", shapes[eid].ToString());
  }
  return s;
}

// Merges `inferred` into entry `eid`; on conflict names both shapes.
void Merge(const IndexedGraph& g, uint32_t nid, const std::string& what, uint32_t eid,
           const Shape& inferred, std::vector<Shape>* shapes) {
  Shape merged = (*shapes)[eid];
  if (!ShapeAssign(&merged, inferred))
    Fail(StatusCode::kShape, "InferShape: ", NodeLabel(g.node(nid)), ", ", what, " '",
         g.entry_name(eid), "': provided shape ", (*shapes)[eid].ToString(), ", inferred shape ",
         inferred.ToString());
  (*shapes)[eid] = merged;
}

void InferNode(const IndexedGraph& g, uint32_t nid, std::vector<Shape>* shapes) {
  const auto& in = g[nid];
  const Node& n = *in.node;
  if (n.is_variable() || !n.op()->infer_shape) return;
  std::vector<Shape> ins, outs;
  for (const auto& e : in.inputs) ins.push_back((*shapes)[g.entry_id(e)]);
  for (uint32_t i = 0; i < n.num_outputs(); ++i) outs.push_back((*shapes)[g.entry_id(nid, i)]);
  try {
    n.op()->infer_shape(n.attrs, &ins, &outs);
  } catch (const Error& e) {
    Fail(e.code(), "InferShape: ", NodeLabel(n), " with inputs [", DescribeInputs(g, nid, *shapes),
         "]: ", e.what());
  } catch (const std::exception& e) {
    Fail(StatusCode::kInternal, "InferShape: ", NodeLabel(n), ": ", e.what());
  }
  if (ins.size() != in.inputs.size() || outs.size() != n.num_outputs())
    Fail(StatusCode::kInternal, "InferShape: ", NodeLabel(n), ": infer_shape resized its arguments");
  std::vector<std::string> names = n.op()->InputNames(n.attrs.params);
  for (size_t i = 0; i < ins.size(); ++i)
    Merge(g, nid, StrCat("input '", i < names.size() ? names[i] : StrCat(i), "' from"),
          g.entry_id(in.inputs[i]), ins[i], shapes);
  for (uint32_t i = 0; i < outs.size(); ++i)
    Merge(g, nid, StrCat("output ", i), g.entry_id(nid, i), outs[i], shapes);
}

bool Known(const Shape& s) { return s.ndim_known() && (s.ndim() == 0 || s.is_known()); }

// Initial shape of variable `nid`: given by name, else its hint.
void SeedVariables(const IndexedGraph& g, const ShapeMap& inputs, std::vector<Shape>* shapes) {
  std::set<std::string> used;
  for (uint32_t nid : g.input_nodes()) {
    const Node& n = g.node(nid);
    uint32_t eid = g.entry_id(nid, 0);
    auto given = inputs.find(n.attrs.name);
    if (given != inputs.end()) {
      (*shapes)[eid] = given->second;
      used.insert(given->first);
      continue;
    }
    auto hint = n.attrs.dict.find("__shape__");
    if (hint == n.attrs.dict.end()) continue;
    try {
      (*shapes)[eid] = Shape::Parse(hint->second);
    } catch (const Error& e) {
      Fail(StatusCode::kInvalidArgument, "InferShape: variable '", n.attrs.name,
           "' has a bad __shape__ hint: ", e.what());
    }
  }
  for (const auto& kv : inputs) {
    if (used.count(kv.first)) continue;
    std::string names;
    for (uint32_t nid : g.input_nodes()) names += (names.empty() ? "" : ", ") + g.node(nid).attrs.name;
    Fail(StatusCode::kInvalidArgument, "InferShape: no input named '", kv.first,
         "'; inputs are: ", names.empty() ? "none" : names);
  }
}

}  // namespace

ShapeResult InferShape(const IndexedGraph& g, const ShapeMap& inputs) {
  ShapeResult r;
  r.shapes.assign(g.num_node_entries(), Shape());
  SeedVariables(g, inputs, &r.shapes);
  // Every sweep either fills some rank or extent or ends the loop, so this
  // terminates; stop after a forward and a backward sweep both changed nothing.
  int idle = 0;
  for (int sweep = 0; idle < 2; ++sweep) {
    std::vector<Shape> before = r.shapes;
    auto visit = [&](uint32_t nid) { InferNode(g, nid, &r.shapes); };
    if (sweep % 2 == 0) ForwardVisit(g, visit);
    else ReverseVisit(g, visit);
    idle = before == r.shapes ? idle + 1 : 0;
    bool all_known = true;
    for (const Shape& s : r.shapes) all_known = all_known && Known(s);
    if (all_known) break;
  }
  for (uint32_t eid = 0; eid < r.shapes.size(); ++eid) {
    int64_t size = 0;
    if (Known(r.shapes[eid]) && !r.shapes[eid].CheckedSize(&size))
      Fail(StatusCode::kShape, "InferShape: '", g.entry_name(eid), "' has shape ", r.shapes[eid].ToString(),
           ", more than 2^63 - 1 elements");
    if (Known(r.shapes[eid])) continue;
    r.unknown.push_back(eid);
    r.unknown_names.push_back(g.entry_name(eid));
  }
  for (uint32_t nid : g.argument_nodes()) r.arg_shapes.push_back(r.shapes[g.entry_id(nid, 0)]);
  for (uint32_t nid : g.aux_nodes()) r.aux_shapes.push_back(r.shapes[g.entry_id(nid, 0)]);
  for (const auto& e : g.outputs()) r.out_shapes.push_back(r.shapes[g.entry_id(e)]);
  return r;
}

}  // namespace pass
}  // namespace weft
