// quant::PartitionConv and PartitionFullyConnected: MXNet 1.9.1's
// MKLDNN_QUANTIZE partitioning (src/operator/subgraph/mkldnn/
// mkldnn_conv_property.h, mkldnn_fc_property.h) for the int8 flow. Each
// chain whose links have a single reader becomes one node carrying the
// layers as its subgraph, named as MXNet names them, with the subgraph's
// variables in the order its kernel reads them:
// - a 2-D Convolution [-> BatchNorm] [-> relu] [-> elemwise_add -> [relu]]
//   is a _sg_mkldnn_conv (sg_mkldnn_conv_bn_act_<n>; data, weight, [bias],
//   [gamma, beta, mean, var], [sum]); only relu, and a clip from a
//   non-negative bound before the sum, is fused;
// - a FullyConnected [-> relu, LeakyReLU leaky, abs, or clip from 0] is a
//   _sg_mkldnn_fully_connected (sg_mkldnn_fully_connected[_eltwise]_<n>;
//   data, weight, [bias]). MXNet's quantized selector also takes LeakyReLU
//   elu and gelu, which the int8 kernel does not compute: they stay apart.
#include <set>

#include "weft/graph.h"
#include "weft/graph_algorithm.h"
#include "weft/quantize_model.h"
#include "weft/status.h"

namespace weft {
namespace quant {

namespace {

using Readers = std::map<const Node*, std::vector<std::pair<const Node*, uint32_t>>>;

bool IsRelu(const Node& n) {
  return !n.is_variable() && n.op()->name == "Activation" &&
         n.attrs.params.GetString("act_type") == "relu";
}

// ReLU6 and its kin: clip from a non-negative bound (fused before the sum
// only, as MXNet's int8 selector does).
bool IsClip(const Node& n) {
  return !n.is_variable() && n.op()->name == "clip" && n.attrs.params.GetFloat("a_min") >= 0;
}

bool Is(const Node& n, const char* op) { return !n.is_variable() && n.op()->name == op; }

// The fully connected layer's elementwise ops the int8 kernel computes
// among those MXNet's quantized selector fuses.
bool IsFCEltwise(const Node& n) {
  if (IsRelu(n) || Is(n, "abs")) return true;
  if (Is(n, "LeakyReLU")) return n.attrs.params.GetString("act_type") == "leaky";
  return Is(n, "clip") && n.attrs.params.GetFloat("a_min") == 0;
}

enum class Kind { kConv, kFullyConnected };

// The fused chain starting at a convolution or fully connected layer: its
// nodes in order, and the add's other operand.
struct Chain {
  std::vector<NodePtr> nodes;  // conv, [bn], [relu], [add, [relu]]; or fc, [eltwise]
  bool bn = false, act = false, sum = false, postsum_act = false;
  NodeEntry sum_input;
};

class Partitioner {
 public:
  Partitioner(const OpRegistry& reg, const Symbol& sym, Kind kind)
      : reg_(reg), sym_(sym), kind_(kind) {}
  Partitioned Run();

 private:
  // The single reader of `n`'s output 0 (nothing else read from it), or null.
  NodePtr SoleReader(const Node* n) const;
  // Whether a chain of kind_ starts at `n`.
  bool Starts(const Node& n) const;
  // The chain from `conv` through nodes no earlier chain took.
  Chain Grow(const NodePtr& conv, const std::set<const Node*>& taken) const;
  Chain GrowFC(const NodePtr& fc, const std::set<const Node*>& taken) const;
  NodePtr Fuse(const Chain& c, size_t id);
  NodePtr FuseFC(const Chain& c, size_t id);
  NodeEntry Mirror(const NodeEntry& e) const {
    return NodeEntry{mirror_.at(e.node.get()), e.index, e.version};
  }

  const OpRegistry& reg_;
  const Symbol& sym_;
  const Kind kind_;
  std::map<const Node*, NodePtr> by_ptr_;
  Readers readers_;
  std::set<const Node*> outputs_;
  std::map<const Node*, NodePtr> mirror_;
};

NodePtr Partitioner::SoleReader(const Node* n) const {
  if (outputs_.count(n)) return nullptr;
  auto it = readers_.find(n);
  if (it == readers_.end() || it->second.size() != 1 || it->second[0].second != 0) return nullptr;
  return by_ptr_.at(it->second[0].first);
}

bool Partitioner::Starts(const Node& n) const {
  if (kind_ == Kind::kFullyConnected) return Is(n, "FullyConnected");
  return Is(n, "Convolution") && n.attrs.params.GetShape("kernel").ndim() == 2;
}

Chain Partitioner::GrowFC(const NodePtr& fc, const std::set<const Node*>& taken) const {
  Chain c;
  c.nodes.push_back(fc);
  NodePtr next = SoleReader(fc.get());
  if (next && !taken.count(next.get()) && IsFCEltwise(*next)) {
    c.act = true;
    c.nodes.push_back(next);
  }
  return c;
}

Chain Partitioner::Grow(const NodePtr& conv, const std::set<const Node*>& taken) const {
  if (kind_ == Kind::kFullyConnected) return GrowFC(conv, taken);
  Chain c;
  c.nodes.push_back(conv);
  auto free_reader = [&](const Node* n) {
    NodePtr r = SoleReader(n);
    return r && !taken.count(r.get()) ? r : nullptr;
  };
  NodePtr next = free_reader(conv.get());
  if (next && Is(*next, "BatchNorm") && next->inputs[0].node == conv) {
    c.bn = true;
    c.nodes.push_back(next);
    next = free_reader(next.get());
  }
  if (next && (IsRelu(*next) || IsClip(*next))) {
    c.act = true;
    c.nodes.push_back(next);
    next = free_reader(next.get());
  }
  if (next && Is(*next, "elemwise_add")) {
    const Node* last = c.nodes.back().get();
    const NodeEntry& a = next->inputs[0];
    const NodeEntry& b = next->inputs[1];
    if (a.node.get() != b.node.get() || a.index != b.index) {
      c.sum = true;
      c.sum_input = a.node.get() == last ? b : a;
      c.nodes.push_back(next);
      next = free_reader(next.get());
      if (next && IsRelu(*next)) {
        c.postsum_act = true;
        c.nodes.push_back(next);
      }
    }
  }
  return c;
}

// The _sg_mkldnn_fully_connected node of chain `c` (the `id`th fused).
NodePtr Partitioner::FuseFC(const Chain& c, size_t id) {
  std::vector<NodeEntry> outer;
  auto fc = std::make_shared<Node>(*c.nodes[0]);
  fc->inputs.clear();
  fc->control_deps.clear();
  for (const NodeEntry& e : c.nodes[0]->inputs) {
    outer.push_back(Mirror(e));
    const std::string name =
        e.node->is_variable() ? e.node->attrs.name : OutputEntryName(*e.node, e.index);
    fc->inputs.push_back(NodeEntry{MakeVariable(name), 0, 0});
  }
  NodePtr last = fc;
  if (c.act) {
    last = std::make_shared<Node>(*c.nodes[1]);
    last->inputs = {NodeEntry{fc, 0, 0}};
    last->control_deps.clear();
  }
  auto sub = std::make_shared<Graph>();
  sub->outputs = {NodeEntry{last, 0, 0}};
  StringMap params = {{"num_args", std::to_string(outer.size())}};
  if (c.act) params["with_eltwise"] = "true";
  const std::string name =
      std::string("sg_mkldnn_fully_connected_") + (c.act ? "eltwise_" : "") + std::to_string(id);
  NodePtr sg = MakeOpNode(reg_, "_sg_mkldnn_fully_connected", name, std::move(outer), params);
  sg->attrs.subgraphs = {sub};
  return sg;
}

// The _sg_mkldnn_conv node of chain `c` (the `id`th fused).
NodePtr Partitioner::Fuse(const Chain& c, size_t id) {
  if (kind_ == Kind::kFullyConnected) return FuseFC(c, id);
  std::vector<NodeEntry> outer;
  auto var = [&](const NodeEntry& e) {
    outer.push_back(Mirror(e));
    const std::string name =
        e.node->is_variable() ? e.node->attrs.name : OutputEntryName(*e.node, e.index);
    return NodeEntry{MakeVariable(name), 0, 0};
  };
  std::string name = "sg_mkldnn_conv_";
  NodePtr prev;
  for (const NodePtr& n : c.nodes) {
    auto copy = std::make_shared<Node>(*n);
    copy->inputs.clear();
    copy->control_deps.clear();
    if (Is(*n, "Convolution")) {
      for (const NodeEntry& e : n->inputs) copy->inputs.push_back(var(e));
    } else if (Is(*n, "BatchNorm")) {
      name += "bn_";
      copy->inputs.push_back(NodeEntry{prev, 0, 0});
      for (size_t i = 1; i < n->inputs.size(); ++i) copy->inputs.push_back(var(n->inputs[i]));
    } else if (Is(*n, "elemwise_add")) {
      name += "add_";
      copy->inputs = {NodeEntry{prev, 0, 0}, var(c.sum_input)};
    } else {
      name += "act_";
      copy->inputs.push_back(NodeEntry{prev, 0, 0});
    }
    prev = copy;
  }
  auto sub = std::make_shared<Graph>();
  sub->outputs = {NodeEntry{prev, 0, 0}};
  StringMap params = {{"num_args", std::to_string(outer.size())}};
  if (c.bn) params["with_bn"] = "true";
  if (c.act) params["with_act"] = "true";
  if (c.sum) params["with_sum"] = "true";
  if (c.postsum_act) params["with_postsum_act"] = "true";
  NodePtr sg =
      MakeOpNode(reg_, "_sg_mkldnn_conv", name + std::to_string(id), std::move(outer), params);
  sg->attrs.subgraphs = {sub};
  return sg;
}

Partitioned Partitioner::Run() {
  const std::vector<NodePtr> order = TopoOrder(sym_.outputs);
  for (const NodePtr& n : order) {
    by_ptr_[n.get()] = n;
    for (const NodeEntry& e : n->inputs) readers_[e.node.get()].push_back({n.get(), e.index});
  }
  for (const NodeEntry& e : sym_.outputs) outputs_.insert(e.node.get());
  std::map<const Node*, Chain> chains;  // by the chain's last node
  std::set<const Node*> fused;
  for (const NodePtr& n : order) {
    if (fused.count(n.get()) || !Starts(*n)) continue;
    Chain c = Grow(n, fused);
    for (const NodePtr& m : c.nodes) fused.insert(m.get());
    chains[c.nodes.back().get()] = std::move(c);
  }
  Partitioned out;
  size_t id = 0;
  for (const NodePtr& n : order) {
    auto chain = chains.find(n.get());
    if (chain != chains.end()) {
      NodePtr sg = Fuse(chain->second, id++);
      out.alias[OutputEntryName(*sg, 0)] = OutputEntryName(*n, 0);
      mirror_[n.get()] = sg;
      continue;
    }
    if (fused.count(n.get())) continue;
    auto copy = std::make_shared<Node>(*n);
    copy->inputs.clear();
    copy->control_deps.clear();
    for (const NodeEntry& e : n->inputs) copy->inputs.push_back(Mirror(e));
    for (const NodePtr& d : n->control_deps) copy->control_deps.push_back(mirror_.at(d.get()));
    mirror_[n.get()] = copy;
  }
  for (const NodeEntry& e : sym_.outputs) out.symbol.outputs.push_back(Mirror(e));
  return out;
}

}  // namespace

Partitioned PartitionConv(const OpRegistry& reg, const Symbol& sym) {
  return Partitioner(reg, sym, Kind::kConv).Run();
}

Partitioned PartitionFullyConnected(const OpRegistry& reg, const Symbol& sym) {
  return Partitioner(reg, sym, Kind::kFullyConnected).Run();
}

}  // namespace quant
}  // namespace weft
