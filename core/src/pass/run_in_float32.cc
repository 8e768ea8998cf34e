// pass::RunInFloat32: float16/bfloat16 nodes whose kernel does not compute
// that dtype run in float32 between Casts (see weft/pass.h).
#include <memory>

#include "pass/rewrite.h"
#include "weft/pass.h"
#include "weft/status.h"

namespace weft {
namespace pass {

namespace {

bool IsReducedName(const std::string& text) {
  try {
    return IsReducedFloat(ParseDType(text));
  } catch (const Error&) {
    return false;
  }
}

// Whether `graph` may read or make a reduced float: a variable typed so in
// `types` or by its __dtype__ hint, or a node with such a `dtype` parameter.
bool MayUseReducedFloats(const IndexedGraph& g, const DTypeMap& types) {
  for (const auto& kv : types)
    if (IsReducedFloat(kv.second)) return true;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const StringMap& dict = g.node(nid).attrs.dict;
    for (const char* key : {"dtype", "__dtype__"}) {
      auto it = dict.find(key);
      if (it != dict.end() && IsReducedName(it->second)) return true;
    }
  }
  return false;
}

// The first reduced float among `dtypes` that `k` does not compute, or kUnknown.
DType MissingDType(const Kernel& k, const std::vector<DType>& dtypes) {
  for (DType t : dtypes)
    if (IsReducedFloat(t) && !k.Computes(t)) return t;
  return DType::kUnknown;
}

NodeEntry CastEntry(const OpRegistry& reg, const std::string& name, NodeEntry in, DType to) {
  return MakeOpEntry(reg, "Cast", name, {std::move(in)}, {{"dtype", DTypeName(to)}});
}

}  // namespace

Float32Fallback RunInFloat32(const OpRegistry& reg, const KernelRegistry& kernels, DeviceType dev,
                             const Graph& graph, const DTypeMap& types) {
  Float32Fallback r;
  IndexedGraph g(graph);
  if (!MayUseReducedFloats(g, types)) {
    r.graph = graph;
    return r;
  }
  const TypeResult inferred = InferType(g, types);
  auto rewrite = [&](const NodePtr& node, const std::vector<NodeEntry>& inputs,
                     const std::vector<NodePtr>& deps) -> std::vector<NodeEntry> {
    const Kernel* k = kernels.Find(node->op()->name, dev);
    if (!k) return {};
    const uint32_t nid = g.node_id(node.get());
    std::vector<DType> in_types, out_types;
    for (const auto& in : g[nid].inputs) in_types.push_back(inferred.dtypes[g.entry_id(in)]);
    for (uint32_t o = 0; o < node->num_outputs(); ++o)
      out_types.push_back(inferred.dtypes[g.entry_id(nid, o)]);
    std::vector<DType> all = in_types;
    all.insert(all.end(), out_types.begin(), out_types.end());
    const DType missing = MissingDType(*k, all);
    if (missing == DType::kUnknown) return {};
    const std::string& name = node->attrs.name;
    if (node->op()->mutate_inputs)
      for (int i : node->op()->mutate_inputs(node->attrs.params))
        if (IsReducedFloat(in_types.at(static_cast<size_t>(i))))
          Fail(StatusCode::kDType, "node '", name, "' (", node->op()->name, "): input ", i, " is ",
               DTypeName(in_types[i]), " and updated in place, but the operator has no ",
               DTypeName(in_types[i]), " kernel on ", DeviceTypeName(dev),
               " (it computes in float32): keep that input float32");
    auto computing = std::make_shared<Node>(*node);
    computing->attrs.name = name + "_fp32";
    computing->control_deps = deps;
    computing->inputs.clear();
    for (size_t i = 0; i < inputs.size(); ++i)
      computing->inputs.push_back(IsReducedFloat(in_types[i])
                                      ? CastEntry(reg, name + "_in" + std::to_string(i) + "_fp32",
                                                  inputs[i], DType::kFloat32)
                                      : inputs[i]);
    auto dtype = computing->attrs.dict.find("dtype");
    if (dtype != computing->attrs.dict.end() && IsReducedName(dtype->second)) {
      dtype->second = "float32";
      computing->attrs.params =
          ParseParams(node->op()->name, &node->op()->params, computing->attrs.dict);
    }
    std::vector<NodeEntry> outs;
    for (uint32_t o = 0; o < node->num_outputs(); ++o) {
      NodeEntry e{computing, o, 0};
      outs.push_back(IsReducedFloat(out_types[o])
                         ? CastEntry(reg, o == 0 ? name : name + "_output" + std::to_string(o), e,
                                     out_types[o])
                         : e);
    }
    r.nodes.push_back(name);
    return outs;
  };
  r.graph = RewriteGraph(graph, RewriteDepsFn(rewrite)).graph;
  return r;
}

}  // namespace pass
}  // namespace weft
