// pass::BlockConvLayouts: channel-blocked data between 2-D convolutions
// (and the poolings among them).
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pass/rewrite.h"
#include "weft/op.h"

namespace weft {
namespace pass {

namespace {

enum class Kind { kOther, kConv, kPool };

bool ChannelFirst2d(const ParamValues& p) {
  return p.IsNone("layout") || p.GetString("layout") == "NCHW";
}

// A 2-D channel-first convolution or pooling not blocked yet. (A global
// pooling's rank is unknown here; it is only blocked after a convolution,
// whose data is 4-D.)
Kind KindOf(const Node& n) {
  if (n.is_variable()) return Kind::kOther;
  const std::string& op = n.op()->name;
  const ParamValues& p = n.attrs.params;
  if (op == "Pooling") {
    const bool two_d = p.GetBool("global_pool") || p.GetShape("kernel").ndim() == 2;
    return two_d && ChannelFirst2d(p) ? Kind::kPool : Kind::kOther;
  }
  if (op == "_fused_Convolution") {
    if (p.GetInt("data_block") != 0 || p.GetInt("out_block") != 0) return Kind::kOther;
  } else if (op != "Convolution") {
    return Kind::kOther;
  }
  return p.GetShape("kernel").ndim() == 2 && ChannelFirst2d(p) ? Kind::kConv : Kind::kOther;
}

// The input slot of a convolution's sum, or -1.
int SumSlot(const Node& n) {
  if (n.op()->name != "_fused_Convolution" || !n.attrs.params.GetBool("with_sum")) return -1;
  return static_cast<int>(n.inputs.size()) - 1;
}

// What the pass decides before rewriting: per node its kind and whether it
// writes blocked data; per entry whether a _layout_block converts it and
// its channel count when blocked.
struct Plan {
  std::vector<Kind> kind;
  std::vector<bool> blocked, convert;
  std::vector<int64_t> channels;
  int sum_slot(const IndexedGraph& g, uint32_t nid) const {
    return kind[nid] == Kind::kConv ? SumSlot(g.node(nid)) : -1;
  }
};

uint32_t Producer(const IndexedGraph& g, uint32_t nid, int slot) {
  return g[nid].inputs[static_cast<size_t>(slot)].node_id;
}

// Whether `filters` channels fill at least 3/4 of the blocks they take: 24
// channels at block 16 (MobileNet-v2's stage, 32 computed) pay; 20 (LeNet's
// first layer: 32 computed) do not, oneDNN's plain-layout kernel (brgconv,
// channels-last inside) is faster there than padding them to blocks and
// padding the next layer's input channels the same way.
bool FillsItsBlocks(int64_t filters, int block) {
  const int64_t padded = (filters + block - 1) / block * block;
  return filters * 4 >= padded * 3;
}

// Per node: whether its output has a channel count that does not fill its
// blocks (a convolution's filters, a pooling's data's). Neither such a
// convolution nor one reading such data writes blocked data: a blocked
// output makes the kernel block its data too.
std::vector<bool> PoorlyBlocked(const IndexedGraph& g, const std::vector<Kind>& kind, int block) {
  std::vector<bool> poor(g.num_nodes(), false);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (kind[nid] == Kind::kConv)
      poor[nid] = !FillsItsBlocks(g.node(nid).attrs.params.GetInt("num_filter"), block);
    else if (kind[nid] == Kind::kPool)
      poor[nid] = poor[Producer(g, nid, 0)];
  }
  return poor;
}

// Sets plan->blocked: optimistically every node all of whose readers may
// take blocked data (a convolution's data or sum, a pooling's data; a
// filter count that is no multiple of the block pads the last block, when
// it fills its blocks), then the constraints below enforced until nothing
// changes.
void ChooseBlocked(const IndexedGraph& g, int block, Plan* plan) {
  const uint32_t n_nodes = g.num_nodes();
  const std::vector<Kind>& kind = plan->kind;
  std::vector<bool>& blocked = plan->blocked;
  // Per entry: how many readers may take it blocked; EntryReaders counts
  // graph outputs too.
  const std::vector<int> readers = EntryReaders(g);
  std::vector<int> accepting(g.num_node_entries(), 0);
  for (uint32_t nid = 0; nid < n_nodes; ++nid) {
    if (kind[nid] == Kind::kOther) continue;
    const int sum = plan->sum_slot(g, nid);
    for (size_t k = 0; k < g[nid].inputs.size(); ++k)
      if (k == 0 || static_cast<int>(k) == sum) ++accepting[g.entry_id(g[nid].inputs[k])];
  }
  const std::vector<bool> poor = PoorlyBlocked(g, kind, block);
  blocked.assign(n_nodes, false);
  for (uint32_t nid = 0; nid < n_nodes; ++nid) {
    if (kind[nid] == Kind::kOther) continue;
    const uint32_t eid = g.entry_id(nid, 0);
    blocked[nid] = readers[eid] > 0 && readers[eid] == accepting[eid];
    if (kind[nid] == Kind::kConv && (poor[nid] || poor[Producer(g, nid, 0)])) blocked[nid] = false;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t nid = 0; nid < n_nodes; ++nid) {
      // A convolution writing plain data adds a plain sum.
      const int sum = plan->sum_slot(g, nid);
      if (sum >= 0 && !blocked[nid] && blocked[Producer(g, nid, sum)]) {
        blocked[Producer(g, nid, sum)] = false;
        changed = true;
      }
      // A pooling knows its channel count only from blocked data.
      if (kind[nid] == Kind::kPool && blocked[nid] && !blocked[Producer(g, nid, 0)]) {
        blocked[nid] = false;
        changed = true;
      }
    }
  }
}

Plan MakePlan(const IndexedGraph& g, int block) {
  const uint32_t n_nodes = g.num_nodes();
  Plan plan;
  plan.kind.resize(n_nodes);
  for (uint32_t nid = 0; nid < n_nodes; ++nid) plan.kind[nid] = KindOf(g.node(nid));
  ChooseBlocked(g, block, &plan);
  // Sums of convolutions writing blocked data that no blocked node writes
  // are converted once by a _layout_block node. The channel count of every
  // blocked entry (the readers' data_channels): a convolution's filter
  // count (also of its converted sum), a pooling's data's.
  plan.convert.assign(g.num_node_entries(), false);
  plan.channels.assign(g.num_node_entries(), 0);
  for (uint32_t nid = 0; nid < n_nodes; ++nid) {
    if (!plan.blocked[nid]) continue;
    const uint32_t out = g.entry_id(nid, 0);
    if (plan.kind[nid] == Kind::kPool) {
      plan.channels[out] = plan.channels[g.entry_id(g[nid].inputs[0])];
      continue;
    }
    const int64_t filters = g.node(nid).attrs.params.GetInt("num_filter");
    plan.channels[out] = filters;
    const int sum = plan.sum_slot(g, nid);
    if (sum < 0) continue;
    const uint32_t sum_eid = g.entry_id(g[nid].inputs[static_cast<size_t>(sum)]);
    plan.channels[sum_eid] = filters;
    if (!plan.blocked[Producer(g, nid, sum)]) plan.convert[sum_eid] = true;
  }
  return plan;
}

}  // namespace

RewriteResult BlockConvLayouts(const OpRegistry& reg, const Graph& graph, int block) {
  IndexedGraph g(graph);
  const Plan plan = MakePlan(g, block);
  const std::vector<Kind>& kind = plan.kind;
  const std::vector<bool>& blocked = plan.blocked;
  const std::vector<bool>& convert = plan.convert;
  const std::vector<int64_t>& channels = plan.channels;
  std::map<uint32_t, NodeEntry> converted;  // old entry id -> the _layout_block output
  size_t inserted = 0;
  RewriteResult r = RewriteGraph(graph, [&](const NodePtr& node,
                                            const std::vector<NodeEntry>& inputs) {
    std::vector<NodeEntry> none;
    const uint32_t nid = g.node_id(node.get());
    if (kind[nid] == Kind::kOther) return none;
    std::vector<NodeEntry> in = inputs;
    // Whether input k is read blocked (through a _layout_block if converted).
    auto blocked_input = [&](size_t k) {
      const auto& old = g[nid].inputs[k];
      const uint32_t eid = g.entry_id(old);
      if (blocked[old.node_id]) return true;
      if (!convert[eid]) return false;
      auto it = converted.find(eid);
      if (it == converted.end()) {
        const std::string name = g.node(old.node_id).attrs.name + "_blocked";
        NodePtr b =
            MakeOpNode(reg, "_layout_block", name, {inputs[k]}, {{"block", std::to_string(block)}});
        it = converted.emplace(eid, NodeEntry{b, 0, 0}).first;
        ++inserted;
      }
      in[k] = it->second;
      return true;
    };
    const bool data_blocked = blocked_input(0);
    const int sum = plan.sum_slot(g, nid);
    if (sum >= 0 && blocked[nid]) blocked_input(static_cast<size_t>(sum));
    if (!data_blocked && !blocked[nid]) return none;
    const OpDef& op = reg.Get(kind[nid] == Kind::kConv ? "_fused_Convolution" : "_blocked_Pooling");
    auto n = std::make_shared<Node>(*node);
    n->attrs.op = &op;
    if (data_blocked) {
      n->attrs.dict["data_block"] = std::to_string(block);
      n->attrs.dict["data_channels"] = std::to_string(channels[g.entry_id(g[nid].inputs[0])]);
    }
    if (blocked[nid]) n->attrs.dict["out_block"] = std::to_string(block);
    n->attrs.params = ParseParams(op.name, &op.params, n->attrs.dict);
    n->inputs = std::move(in);
    return std::vector<NodeEntry>{NodeEntry{n, 0, 0}};
  });
  r.changes += inserted;
  return r;
}

}  // namespace pass
}  // namespace weft
