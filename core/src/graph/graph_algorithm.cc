#include "weft/graph_algorithm.h"

#include <unordered_map>
#include <utility>

#include "weft/status.h"

namespace weft {

void DFSVisit(const std::vector<NodeEntry>& heads,
              const std::function<void(const NodePtr&)>& visit) {
  enum : uint8_t { kNew = 0, kOnStack = 1, kDone = 2 };
  std::unordered_map<const Node*, uint8_t> state;
  std::vector<std::pair<const NodePtr*, size_t>> stack;  // node, next input to look at
  for (const NodeEntry& head : heads) {
    if (!head.node) Fail(StatusCode::kInvalidArgument, "graph output entry has no node");
    if (state[head.node.get()] != kNew) continue;
    state[head.node.get()] = kOnStack;
    stack.emplace_back(&head.node, 0);
    while (!stack.empty()) {
      const Node& n = **stack.back().first;
      size_t next = stack.back().second;
      if (next == n.inputs.size() + n.control_deps.size()) {
        const NodePtr& done = *stack.back().first;
        stack.pop_back();
        state[done.get()] = kDone;
        visit(done);
        continue;
      }
      ++stack.back().second;
      const NodePtr& child =
          next < n.inputs.size() ? n.inputs[next].node : n.control_deps[next - n.inputs.size()];
      if (!child)
        Fail(StatusCode::kInvalidArgument, "node '", n.attrs.name, "' has an input without a node");
      uint8_t& s = state[child.get()];
      if (s == kOnStack)
        Fail(StatusCode::kInvalidArgument, "graph has a cycle through node '", child->attrs.name,
             "'");
      if (s == kNew) {
        s = kOnStack;
        stack.emplace_back(&child, 0);
      }
    }
  }
}

std::vector<NodePtr> TopoOrder(const std::vector<NodeEntry>& heads) {
  std::vector<NodePtr> order;
  DFSVisit(heads, [&](const NodePtr& n) { order.push_back(n); });
  return order;
}

void ForwardVisit(const IndexedGraph& g, const std::function<void(uint32_t)>& visit) {
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) visit(nid);
}

void ReverseVisit(const IndexedGraph& g, const std::function<void(uint32_t)>& visit) {
  for (uint32_t nid = static_cast<uint32_t>(g.num_nodes()); nid-- > 0;) visit(nid);
}

std::vector<NodeEntry> CopyGraph(const std::vector<NodeEntry>& heads) {
  std::unordered_map<const Node*, NodePtr> copies;
  DFSVisit(heads, [&](const NodePtr& n) {
    auto c = std::make_shared<Node>(*n);
    for (NodeEntry& e : c->inputs) e.node = copies.at(e.node.get());
    for (NodePtr& d : c->control_deps) d = copies.at(d.get());
    copies[n.get()] = std::move(c);
  });
  std::vector<NodeEntry> out = heads;
  for (NodeEntry& e : out) e.node = copies.at(e.node.get());
  return out;
}

}  // namespace weft
