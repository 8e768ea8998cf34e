// amp::ConvertSymbol: MXNet's ReducePrecision pass (src/nnvm/
// low_precision_pass.cc in 1.9.1) and the __dtype__ bookkeeping of its C
// entry (MXReducePrecisionSymbol). Every node is copied in topological
// order; two maps remember which copied entries are known to be float32 and
// which the target dtype, so one amp_cast serves every reader of an entry.
#include <algorithm>
#include <set>

#include "amp/amp_lists.h"
#include "graph/mxnet_names.h"
#include "weft/amp.h"
#include "weft/pass.h"
#include "weft/status.h"

namespace weft {
namespace amp {

namespace {

struct EntryKey {
  const Node* node;
  uint32_t index;
  bool operator<(const EntryKey& o) const {
    return node != o.node ? node < o.node : index < o.index;
  }
};

using EntryMap = std::map<EntryKey, NodeEntry>;

class Reducer {
 public:
  Reducer(const OpRegistry& reg, const Lists& lists, DType target, bool cast_optional,
          const std::set<std::string>& data_names)
      : reg_(reg), l_(lists), target_(target), cast_optional_(cast_optional), data_(data_names) {}

  std::vector<NodeEntry> Run(const std::vector<NodeEntry>& outputs);

 private:
  NodeEntry Mirror(const NodeEntry& e) const {
    return NodeEntry{mirror_.at(e.node.get()), e.index, e.version};
  }
  // The mirror of `e` cast to `dtype` by one (shared) amp_cast node.
  NodeEntry Cast(const NodeEntry& e, DType dtype);
  void Fp32Node(const NodePtr& node, const NodePtr& copy, const std::vector<int>& mutated);
  void TargetNode(const NodePtr& node, const NodePtr& copy, const std::vector<int>& mutated);
  void WidestNode(const NodePtr& node, const NodePtr& copy);
  void OtherNode(const NodePtr& node, const NodePtr& copy);
  bool Conditional(const Node& node) const;
  // The node's dtypes (into `in`, `out`) inferred from input 0 being `in0`
  // alone; false when inference cannot tell.
  static bool InferFrom(const Node& node, DType in0, std::vector<DType>* in,
                        std::vector<DType>* out);
  // Records the copy's outputs of the target dtype or float32 in the maps.
  void Record(const NodePtr& node, const NodePtr& copy, const std::vector<DType>& out);

  const OpRegistry& reg_;
  const Lists& l_;
  const DType target_;
  const bool cast_optional_;
  const std::set<std::string>& data_;
  std::map<const Node*, NodePtr> mirror_;
  EntryMap fp32_, low_;  // original entry -> copied entry of that dtype
};

NodeEntry Reducer::Cast(const NodeEntry& e, DType dtype) {
  EntryMap& map = dtype == DType::kFloat32 ? fp32_ : low_;
  const EntryKey key{e.node.get(), e.index};
  auto it = map.find(key);
  if (it != map.end()) return it->second;
  const std::string name =
      e.node->attrs.name + MXNetEntrySuffix(e) + "_amp_cast_" + DTypeName(dtype);
  NodeEntry cast = MakeOpEntry(reg_, "amp_cast", name, {Mirror(e)}, {{"dtype", DTypeName(dtype)}});
  map[key] = cast;
  return cast;
}

bool Reducer::InferFrom(const Node& node, DType in0, std::vector<DType>* in,
                        std::vector<DType>* out) {
  in->assign(node.inputs.size(), DType::kUnknown);
  out->assign(node.num_outputs(), DType::kUnknown);
  (*in)[0] = in0;
  try {
    return node.op()->infer_type && node.op()->infer_type(node.attrs, in, out);
  } catch (const Error&) {
    return false;
  }
}

void Reducer::Record(const NodePtr& node, const NodePtr& copy, const std::vector<DType>& out) {
  for (uint32_t i = 0; i < node->num_outputs(); ++i) {
    if (out[i] == target_) low_[{node.get(), i}] = NodeEntry{copy, i, 0};
    if (out[i] == DType::kFloat32) fp32_[{node.get(), i}] = NodeEntry{copy, i, 0};
  }
}

void Reducer::Fp32Node(const NodePtr& node, const NodePtr& copy, const std::vector<int>& mutated) {
  for (uint32_t i = 0; i < node->num_outputs(); ++i) fp32_[{node.get(), i}] = NodeEntry{copy, i, 0};
  for (size_t i = 0; i < node->inputs.size(); ++i) {
    const NodeEntry& e = node->inputs[i];
    const bool keep = e.node->is_variable() || std::count(mutated.begin(), mutated.end(), i);
    copy->inputs.push_back(
        keep && !fp32_.count({e.node.get(), e.index}) ? Mirror(e) : Cast(e, DType::kFloat32));
  }
}

void Reducer::TargetNode(const NodePtr& node, const NodePtr& copy,
                         const std::vector<int>& mutated) {
  std::vector<DType> in, out;
  if (!InferFrom(*node, target_, &in, &out))
    Fail(StatusCode::kDType, "amp: operator ", node->op()->name, " (node '", node->attrs.name,
         "') cannot infer its dtypes with ", DTypeName(target_), " data");
  Record(node, copy, out);
  for (size_t i = 0; i < node->inputs.size(); ++i) {
    const NodeEntry& e = node->inputs[i];
    auto low = low_.find({e.node.get(), e.index});
    if (low != low_.end()) {
      copy->inputs.push_back(low->second);
      continue;
    }
    const bool optional_param =
        cast_optional_ && e.node->is_variable() && !data_.count(e.node->attrs.name);
    const bool is_mutated = std::count(mutated.begin(), mutated.end(), static_cast<int>(i)) > 0;
    if (optional_param || is_mutated || !(in[i] == target_ || in[i] == DType::kUnknown)) {
      copy->inputs.push_back(Mirror(e));  // stays as it is (BatchNorm's float32 statistics)
      if (optional_param) low_[{e.node.get(), e.index}] = Mirror(e);
    } else {
      copy->inputs.push_back(Cast(e, target_));
    }
  }
}

void Reducer::WidestNode(const NodePtr& node, const NodePtr& copy) {
  bool unknown = false;
  DType widest = target_;
  for (const NodeEntry& e : node->inputs) {
    const EntryKey k{e.node.get(), e.index};
    if (fp32_.count(k)) widest = DType::kFloat32;
    unknown = unknown || (!fp32_.count(k) && !low_.count(k));
  }
  if (unknown) {  // one amp_multicast decides at run time
    const NodeEntry& first = node->inputs[0];
    std::vector<NodeEntry> in;
    for (const NodeEntry& e : node->inputs) in.push_back(Mirror(e));
    NodePtr multi = MakeOpNode(reg_, "amp_multicast",
                               first.node->attrs.name + MXNetEntrySuffix(first) + "_amp_multicast",
                               in, {{"num_outputs", std::to_string(in.size())}});
    for (uint32_t i = 0; i < in.size(); ++i) copy->inputs.push_back(NodeEntry{multi, i, 0});
    return;
  }
  EntryMap& out = widest == target_ ? low_ : fp32_;
  for (uint32_t i = 0; i < node->num_outputs(); ++i) out[{node.get(), i}] = NodeEntry{copy, i, 0};
  for (const NodeEntry& e : node->inputs) copy->inputs.push_back(Cast(e, widest));
}

bool Reducer::Conditional(const Node& node) const {
  if (node.is_variable() || l_.excluded.count(node.attrs.name)) return false;
  auto it = l_.conditional.find(node.op()->name);
  if (it == l_.conditional.end()) return false;
  for (const auto& [param, values] : it->second) {
    auto v = node.attrs.dict.find(param);
    if (v != node.attrs.dict.end() &&
        std::find(values.begin(), values.end(), v->second) != values.end())
      return true;
  }
  return false;
}

void Reducer::OtherNode(const NodePtr& node, const NodePtr& copy) {
  if (!node->inputs.empty()) {
    const EntryKey k{node->inputs[0].node.get(), node->inputs[0].index};
    std::vector<DType> in, out;
    if ((low_.count(k) || fp32_.count(k)) &&
        InferFrom(*node, low_.count(k) ? target_ : DType::kFloat32, &in, &out))
      Record(node, copy, out);
  }
  for (const NodeEntry& e : node->inputs) copy->inputs.push_back(Mirror(e));
}

std::vector<NodeEntry> Reducer::Run(const std::vector<NodeEntry>& outputs) {
  const IndexedGraph g(Graph{outputs});
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const NodePtr& node = g[nid].node;
    auto copy = std::make_shared<Node>(*node);
    copy->inputs.clear();
    copy->control_deps.clear();
    for (const NodePtr& d : node->control_deps) copy->control_deps.push_back(mirror_.at(d.get()));
    if (node->is_variable()) {
      mirror_[node.get()] = copy;
      continue;
    }
    const OpDef* op = node->op();
    const std::vector<int> mutated =
        op->mutate_inputs ? op->mutate_inputs(node->attrs.params) : std::vector<int>{};
    const bool excluded = l_.excluded.count(node->attrs.name) > 0;
    if (l_.fp32.count(op->name) || excluded || Conditional(*node)) {
      Fp32Node(node, copy, mutated);
    } else if (l_.target.count(op->name)) {
      TargetNode(node, copy, mutated);
    } else if (l_.widest.count(op->name)) {
      if (!mutated.empty())
        Fail(StatusCode::kInvalidArgument, "amp: operator ", op->name, " (node '", node->attrs.name,
             "') updates an input in place and cannot take the widest dtype");
      WidestNode(node, copy);
    } else {
      OtherNode(node, copy);
    }
    mirror_[node.get()] = copy;
  }
  std::vector<NodeEntry> out;
  for (const NodeEntry& e : outputs) {
    auto it = fp32_.find({e.node.get(), e.index});
    out.push_back(it != fp32_.end() ? it->second : Cast(e, DType::kFloat32));
  }
  return out;
}

}  // namespace

Symbol ConvertSymbol(const OpRegistry& reg, const Symbol& sym, const ConvertOptions& opts) {
  const Lists lists = CheckedLists(opts);
  std::set<std::string> data(opts.data_names.begin(), opts.data_names.end());
  if (opts.data_names.empty()) {
    const IndexedGraph g(Graph{sym.outputs});
    for (uint32_t nid : g.input_nodes())
      if (!g.node(nid).attrs.dict.count("__dtype__")) data.insert(g.node(nid).attrs.name);
  }
  Reducer r(reg, lists, opts.target_dtype, opts.cast_optional_params, data);
  Symbol out;
  out.outputs = r.Run(sym.outputs);
  SetParamDTypes(&out, data);
  return out;
}

}  // namespace amp
}  // namespace weft
