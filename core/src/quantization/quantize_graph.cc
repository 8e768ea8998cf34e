// quant::QuantizeSymbol: MXNet 1.9.1's QuantizeGraph pass (src/operator/
// quantization/quantize_graph_pass.cc) with its node names, for the
// operators whose quantized twins Weft registers (quantize_rules.h). Every
// node is copied in topological order; a quantized node takes its inputs
// from the quantized twin of a quantized producer or from one shared
// quantize node per float entry (offline parameters: three variables).
#include <algorithm>
#include <queue>
#include <set>

#include "graph/mxnet_names.h"
#include "quantization/quantize_rules.h"
#include "weft/graph.h"
#include "weft/graph_algorithm.h"
#include "weft/quantize_model.h"
#include "weft/status.h"

namespace weft {
namespace quant {

namespace {

// A quantized array in the new graph: data and its min/max entries.
struct QEntry {
  NodeEntry data, min, max;
};

using EntryKey = std::pair<const Node*, uint32_t>;

class GraphQuantizer {
 public:
  GraphQuantizer(const OpRegistry& reg, const std::set<std::string>& offline,
                 const QuantizeOptions& o)
      : reg_(reg), offline_(offline), opts_(o) {}

  QuantizedSymbol Run(const Symbol& sym);

 private:
  void Mark(const std::vector<NodePtr>& order);
  NodePtr QuantizedNode(const NodePtr& node);
  NodePtr FloatNode(const NodePtr& node);
  // The quantized form of `e` (an input of a quantized node).
  QEntry Quantized(const NodeEntry& e);
  // The float32 form of `e` for a float reader (a dequantize when its
  // producer is quantized).
  NodeEntry Float(const NodeEntry& e);
  std::vector<std::string> CalibLayers(const std::vector<NodeEntry>& outputs) const;

  const OpRegistry& reg_;
  const std::set<std::string>& offline_;
  const QuantizeOptions& opts_;
  std::map<const Node*, Rule> rules_;          // the nodes that get quantized
  std::map<const Node*, NodePtr> mirror_;      // node -> its copy (float) or twin's last node
  std::map<const Node*, NodePtr> qnode_;       // quantized node -> its quantized twin
  std::map<EntryKey, QEntry> quantize_;        // float entry -> its quantize node
  std::map<EntryKey, NodeEntry> dequantize_;   // quantized entry -> its dequantize
  std::map<const Node*, const Node*> origin_;  // new node -> the node it stands for
};

// MXNet's MarkQuantizedNodes: must-nodes always; may-nodes in "full" mode,
// or in "smart" mode when reached both from a must-node's inputs and from
// its outputs through may-nodes.
void GraphQuantizer::Mark(const std::vector<NodePtr>& order) {
  std::set<std::string> ex_nodes(opts_.excluded_sym_names.begin(), opts_.excluded_sym_names.end());
  std::set<std::string> ex_ops(opts_.excluded_op_names.begin(), opts_.excluded_op_names.end());
  std::map<const Node*, std::vector<const Node*>> readers;
  std::vector<const Node*> must;
  std::map<const Node*, int> may;
  for (const NodePtr& n : order) {
    for (const NodeEntry& e : n->inputs) readers[e.node.get()].push_back(n.get());
    if (n->is_variable() || ex_nodes.count(n->attrs.name) || ex_ops.count(n->op()->name)) continue;
    const Rule rule = RuleFor(*n, opts_.quantize_granularity == "channel-wise");
    if (rule.qop.empty()) continue;
    rules_[n.get()] = rule;
    if (rule.must)
      must.push_back(n.get());
    else
      may[n.get()] = 0;
  }
  for (const std::string& name : opts_.excluded_sym_names)
    if (std::none_of(order.begin(), order.end(),
                     [&](const NodePtr& n) { return n->attrs.name == name; }))
      Fail(StatusCode::kInvalidArgument, "quantize: excluded symbol '", name,
           "' is not a node of the graph");
  if (opts_.quantize_mode == "full") return;
  auto sweep = [&](int bit, bool up) {
    std::queue<const Node*> q;
    for (const Node* n : must) q.push(n);
    while (!q.empty()) {
      const Node* n = q.front();
      q.pop();
      std::vector<const Node*> next;
      if (up)
        for (const NodeEntry& e : n->inputs) next.push_back(e.node.get());
      else
        next = readers[n];
      for (const Node* m : next) {
        auto it = may.find(m);
        if (it == may.end() || (it->second & bit)) continue;
        it->second |= bit;
        q.push(m);
      }
    }
  };
  sweep(1, true);
  sweep(2, false);
  for (const auto& [n, bits] : may)
    if (bits != 3) rules_.erase(n);
}

QEntry GraphQuantizer::Quantized(const NodeEntry& e) {
  auto twin = qnode_.find(e.node.get());
  if (twin != qnode_.end()) {
    // The twin's last node (requantize or the quantized op): outputs data...,
    // then (min, max) per data output.
    const NodePtr& q = mirror_.at(e.node.get());
    const uint32_t data_outputs = q->num_outputs() - 2 * e.node->num_outputs();
    const uint32_t base = data_outputs + 2 * e.index;
    return {NodeEntry{q, e.index, 0}, NodeEntry{q, base, 0}, NodeEntry{q, base + 1, 0}};
  }
  const EntryKey key{e.node.get(), e.index};
  auto it = quantize_.find(key);
  if (it != quantize_.end()) return it->second;
  const std::string name = e.node->attrs.name + MXNetEntrySuffix(e) + "_quantize";
  QEntry out;
  if (e.node->is_variable() && offline_.count(e.node->attrs.name)) {
    out = {NodeEntry{MakeVariable(name), 0, 0}, NodeEntry{MakeVariable(name + "_min"), 0, 0},
           NodeEntry{MakeVariable(name + "_max"), 0, 0}};
  } else {
    NodePtr q = MakeOpNode(reg_, "_contrib_quantize_v2", name, {Float(e)},
                           {{"out_type", opts_.quantized_dtype}});
    origin_[q.get()] = e.node.get();
    out = {NodeEntry{q, 0, 0}, NodeEntry{q, 1, 0}, NodeEntry{q, 2, 0}};
  }
  quantize_[key] = out;
  return out;
}

NodeEntry GraphQuantizer::Float(const NodeEntry& e) {
  if (!qnode_.count(e.node.get())) return NodeEntry{mirror_.at(e.node.get()), e.index, e.version};
  const EntryKey key{e.node.get(), e.index};
  auto it = dequantize_.find(key);
  if (it != dequantize_.end()) return it->second;
  const QEntry q = Quantized(e);
  const NodeEntry d = MakeOpEntry(reg_, "_contrib_dequantize", e.node->attrs.name + "_dequantize",
                                  {q.data, q.min, q.max});
  dequantize_[key] = d;
  return d;
}

NodePtr GraphQuantizer::QuantizedNode(const NodePtr& node) {
  const Rule& rule = rules_.at(node.get());
  std::vector<NodeEntry> data, ranges;
  for (size_t i = 0; i < node->inputs.size(); ++i) {
    const NodeEntry& e = node->inputs[i];
    if (rule.keeps_float(i)) {
      data.push_back(Float(e));
      continue;
    }
    const QEntry q = Quantized(e);
    data.push_back(q.data);
    ranges.push_back(q.min);
    ranges.push_back(q.max);
  }
  data.insert(data.end(), ranges.begin(), ranges.end());
  StringMap params = node->attrs.dict;
  for (const auto& [k, v] : rule.extra_params) params[k] = v;
  NodePtr q = MakeOpNode(reg_, rule.qop, "quantized_" + node->attrs.name, std::move(data), params);
  q->attrs.subgraphs = node->attrs.subgraphs;
  origin_[q.get()] = node.get();
  qnode_[node.get()] = q;
  if (!rule.requantize) return q;
  NodePtr r = MakeOpNode(reg_, "_contrib_requantize", "requantize_" + node->attrs.name,
                         {NodeEntry{q, 0, 0}, NodeEntry{q, 1, 0}, NodeEntry{q, 2, 0}},
                         {{"out_type", opts_.quantized_dtype}});
  origin_[r.get()] = node.get();
  return r;
}

NodePtr GraphQuantizer::FloatNode(const NodePtr& node) {
  auto copy = std::make_shared<Node>(*node);
  copy->inputs.clear();
  copy->control_deps.clear();
  for (const NodeEntry& e : node->inputs) copy->inputs.push_back(Float(e));
  for (const NodePtr& d : node->control_deps) copy->control_deps.push_back(mirror_.at(d.get()));
  origin_[copy.get()] = node.get();
  return copy;
}

// MXNet's calib_nodes: the float entry each quantize node reads and the
// float output each requantize (or quantized BatchNorm) stands for, named
// as the float32 graph names them; once each, in graph order.
std::vector<std::string> GraphQuantizer::CalibLayers(const std::vector<NodeEntry>& outputs) const {
  std::vector<std::string> names;
  auto add = [&](const Node* n, uint32_t index) {
    const std::string name = OutputEntryName(*n, index);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  DFSVisit(outputs, [&](const NodePtr& n) {
    if (n->is_variable()) return;
    const std::string& op = n->op()->name;
    if (op == "_contrib_quantize_v2") add(origin_.at(n.get()), n->inputs[0].index);
    if (op == "_contrib_requantize" || op == "_contrib_quantized_batch_norm")
      add(origin_.at(n.get()), 0);
  });
  return names;
}

QuantizedSymbol GraphQuantizer::Run(const Symbol& sym) {
  const std::vector<NodePtr> order = TopoOrder(sym.outputs);
  Mark(order);
  for (const NodePtr& node : order) {
    if (node->is_variable())
      mirror_[node.get()] = std::make_shared<Node>(*node);
    else
      mirror_[node.get()] = rules_.count(node.get()) ? QuantizedNode(node) : FloatNode(node);
  }
  Symbol out;
  for (const NodeEntry& e : sym.outputs) out.outputs.push_back(Float(e));
  return {out, CalibLayers(out.outputs)};
}

}  // namespace

QuantizedSymbol QuantizeSymbol(const OpRegistry& reg, const Symbol& sym,
                               const std::set<std::string>& offline_params,
                               const QuantizeOptions& opts) {
  const std::string& t = opts.quantized_dtype;
  if (t != "int8" && t != "uint8" && t != "auto")
    Fail(StatusCode::kInvalidArgument,
         "quantize: quantized_dtype must be int8, uint8 or auto, given '", t, "'");
  if (opts.quantize_mode != "smart" && opts.quantize_mode != "full")
    Fail(StatusCode::kInvalidArgument, "quantize: quantize_mode must be smart or full, given '",
         opts.quantize_mode, "'");
  if (opts.quantize_granularity != "tensor-wise" && opts.quantize_granularity != "channel-wise")
    Fail(StatusCode::kInvalidArgument,
         "quantize: quantize_granularity must be tensor-wise or channel-wise, given '",
         opts.quantize_granularity, "'");
  return GraphQuantizer(reg, offline_params, opts).Run(sym);
}

}  // namespace quant
}  // namespace weft
