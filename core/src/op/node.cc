#include "weft/node.h"

#include "weft/op.h"

namespace weft {

Node::~Node() {
  // Move every input reference onto a local stack; a node is stripped of its
  // own inputs only when the stack holds its last reference, so each node
  // dies with no inputs left (no recursion) and shared nodes are untouched.
  std::vector<NodePtr> refs;
  auto take = [&refs](Node* n) {
    for (NodeEntry& e : n->inputs)
      if (e.node) refs.push_back(std::move(e.node));
    for (NodePtr& d : n->control_deps)
      if (d) refs.push_back(std::move(d));
    n->inputs.clear();
    n->control_deps.clear();
  };
  take(this);
  while (!refs.empty()) {
    NodePtr n = std::move(refs.back());
    refs.pop_back();
    if (n.use_count() == 1) take(n.get());
  }
}

uint32_t Node::num_outputs() const {
  if (is_variable()) return 1;
  return static_cast<uint32_t>(attrs.op->NumOutputs(attrs.params));
}

NodePtr MakeVariable(const std::string& name) {
  auto n = std::make_shared<Node>();
  n->attrs.name = name;
  return n;
}

NodePtr MakeOpNode(const OpRegistry& reg, const std::string& op_name, const std::string& node_name,
                   std::vector<NodeEntry> inputs, const StringMap& params) {
  const OpDef& op = reg.Get(op_name);
  auto n = std::make_shared<Node>();
  n->attrs.op = &op;
  n->attrs.name = node_name;
  n->attrs.dict = params;
  n->attrs.params = ParseParams(op.name, &op.params, params);
  int expected = op.NumInputs(n->attrs.params);
  if (static_cast<int>(inputs.size()) != expected)
    Fail(StatusCode::kInvalidArgument, "operator ", op.name, " (node '", node_name, "'): expected ",
         expected, " inputs, given ", inputs.size());
  n->inputs = std::move(inputs);
  return n;
}

NodeEntry MakeOpEntry(const OpRegistry& reg, const std::string& op_name,
                      const std::string& node_name, std::vector<NodeEntry> inputs,
                      const StringMap& params, uint32_t index) {
  return NodeEntry{MakeOpNode(reg, op_name, node_name, std::move(inputs), params), index, 0};
}

}  // namespace weft
