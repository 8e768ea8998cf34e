// InferType: bidirectional element-type inference over an IndexedGraph.
//
// Same structure as InferShape: variables take the given dtype or their
// __dtype__ hint, then forward and backward sweeps call each op's
// infer_type and merge the results until a sweep fills nothing more.
#include <set>

#include "weft/graph_algorithm.h"
#include "weft/op.h"
#include "weft/pass.h"
#include "weft/status.h"

namespace weft {
namespace pass {

namespace {

std::string NodeLabel(const Node& n) { return StrCat("node '", n.attrs.name, "' (", n.op()->name, ")"); }

std::string DescribeInputs(const IndexedGraph& g, uint32_t nid, const std::vector<DType>& types) {
  const auto& in = g[nid];
  const Node& n = *in.node;
  std::vector<std::string> names = n.op()->InputNames(n.attrs.params);
  std::string s;
  for (size_t i = 0; i < in.inputs.size(); ++i) {
    uint32_t eid = g.entry_id(in.inputs[i]);
    s += StrCat(i ? ", " : "", i < names.size() ? names[i] : StrCat("input", i), "=",
                g.entry_name(eid), " ", DTypeName(types[eid]));
  }
  return s;
}

void Merge(const IndexedGraph& g, uint32_t nid, const std::string& what, uint32_t eid, DType inferred,
           std::vector<DType>* types) {
  DType& cur = (*types)[eid];
  if (inferred == DType::kUnknown || cur == inferred) return;
  if (cur != DType::kUnknown)
    Fail(StatusCode::kDType, "InferType: ", NodeLabel(g.node(nid)), ", ", what, " '",
         g.entry_name(eid), "': provided dtype ", DTypeName(cur), ", inferred dtype ", DTypeName(inferred));
  if (!IsValidDType(static_cast<int>(inferred)))
    Fail(StatusCode::kInternal, "InferType: ", NodeLabel(g.node(nid)), " inferred invalid dtype code ",
         static_cast<int>(inferred));
  cur = inferred;
}

void InferNode(const IndexedGraph& g, uint32_t nid, std::vector<DType>* types) {
  const auto& in = g[nid];
  const Node& n = *in.node;
  if (n.is_variable() || !n.op()->infer_type) return;
  std::vector<DType> ins, outs;
  for (const auto& e : in.inputs) ins.push_back((*types)[g.entry_id(e)]);
  for (uint32_t i = 0; i < n.num_outputs(); ++i) outs.push_back((*types)[g.entry_id(nid, i)]);
  try {
    n.op()->infer_type(n.attrs, &ins, &outs);
  } catch (const Error& e) {
    Fail(e.code(), "InferType: ", NodeLabel(n), " with inputs [", DescribeInputs(g, nid, *types), "]: ",
         e.what());
  } catch (const std::exception& e) {
    Fail(StatusCode::kInternal, "InferType: ", NodeLabel(n), ": ", e.what());
  }
  if (ins.size() != in.inputs.size() || outs.size() != n.num_outputs())
    Fail(StatusCode::kInternal, "InferType: ", NodeLabel(n), ": infer_type resized its arguments");
  std::vector<std::string> names = n.op()->InputNames(n.attrs.params);
  for (size_t i = 0; i < ins.size(); ++i)
    Merge(g, nid, StrCat("input '", i < names.size() ? names[i] : StrCat(i), "' from"),
          g.entry_id(in.inputs[i]), ins[i], types);
  for (uint32_t i = 0; i < outs.size(); ++i)
    Merge(g, nid, StrCat("output ", i), g.entry_id(nid, i), outs[i], types);
}

void SeedVariables(const IndexedGraph& g, const DTypeMap& inputs, std::vector<DType>* types) {
  std::set<std::string> used;
  for (uint32_t nid : g.input_nodes()) {
    const Node& n = g.node(nid);
    uint32_t eid = g.entry_id(nid, 0);
    auto given = inputs.find(n.attrs.name);
    if (given != inputs.end()) {
      if (given->second != DType::kUnknown && !IsValidDType(static_cast<int>(given->second)))
        Fail(StatusCode::kDType, "InferType: input '", n.attrs.name, "': invalid dtype code ",
             static_cast<int>(given->second));
      (*types)[eid] = given->second;
      used.insert(given->first);
      continue;
    }
    auto hint = n.attrs.dict.find("__dtype__");
    if (hint == n.attrs.dict.end()) continue;
    try {
      (*types)[eid] = ParseDType(hint->second);
    } catch (const Error& e) {
      Fail(StatusCode::kInvalidArgument, "InferType: variable '", n.attrs.name,
           "' has a bad __dtype__ hint: ", e.what());
    }
  }
  for (const auto& kv : inputs) {
    if (used.count(kv.first)) continue;
    std::string names;
    for (uint32_t nid : g.input_nodes()) names += (names.empty() ? "" : ", ") + g.node(nid).attrs.name;
    Fail(StatusCode::kInvalidArgument, "InferType: no input named '", kv.first,
         "'; inputs are: ", names.empty() ? "none" : names);
  }
}

}  // namespace

TypeResult InferType(const IndexedGraph& g, const DTypeMap& inputs) {
  TypeResult r;
  r.dtypes.assign(g.num_node_entries(), DType::kUnknown);
  SeedVariables(g, inputs, &r.dtypes);
  // Stop after a forward and a backward sweep both changed nothing.
  int idle = 0;
  for (int sweep = 0; idle < 2; ++sweep) {
    std::vector<DType> before = r.dtypes;
    auto visit = [&](uint32_t nid) { InferNode(g, nid, &r.dtypes); };
    if (sweep % 2 == 0) ForwardVisit(g, visit);
    else ReverseVisit(g, visit);
    idle = before == r.dtypes ? idle + 1 : 0;
    bool all_known = true;
    for (DType t : r.dtypes) all_known = all_known && t != DType::kUnknown;
    if (all_known) break;
  }
  for (uint32_t eid = 0; eid < r.dtypes.size(); ++eid) {
    if (r.dtypes[eid] != DType::kUnknown) continue;
    r.unknown.push_back(eid);
    r.unknown_names.push_back(g.entry_name(eid));
  }
  for (uint32_t nid : g.argument_nodes()) r.arg_types.push_back(r.dtypes[g.entry_id(nid, 0)]);
  for (uint32_t nid : g.aux_nodes()) r.aux_types.push_back(r.dtypes[g.entry_id(nid, 0)]);
  for (const auto& e : g.outputs()) r.out_types.push_back(r.dtypes[g.entry_id(e)]);
  return r;
}

}  // namespace pass
}  // namespace weft
