// Symbol queries: listing inputs and outputs, internals, children, attributes.
#include <unordered_set>

#include "weft/graph_algorithm.h"
#include "weft/status.h"
#include "weft/symbol.h"

namespace weft {

namespace {

std::vector<std::string> NodeNames(const IndexedGraph& g, const std::vector<uint32_t>& ids) {
  std::vector<std::string> names;
  for (uint32_t nid : ids) names.push_back(g.node(nid).attrs.name);
  return names;
}

// The node every output comes from, or null when outputs span several nodes.
Node* HeadNode(const std::vector<NodeEntry>& outputs) {
  if (outputs.empty()) return nullptr;
  Node* n = outputs[0].node.get();
  for (const NodeEntry& e : outputs)
    if (e.node.get() != n) return nullptr;
  return n;
}

Node* RequireHead(const std::vector<NodeEntry>& outputs, const char* what) {
  Node* n = HeadNode(outputs);
  if (!n)
    Fail(StatusCode::kInvalidArgument, what,
         " needs a symbol whose outputs all come from one node (", outputs.size(),
         " outputs given)");
  return n;
}

}  // namespace

std::vector<std::string> Symbol::ListArguments() const {
  IndexedGraph g(outputs);
  return NodeNames(g, g.argument_nodes());
}

std::vector<std::string> Symbol::ListAuxiliaryStates() const {
  IndexedGraph g(outputs);
  return NodeNames(g, g.aux_nodes());
}

std::vector<std::string> Symbol::ListInputs() const {
  IndexedGraph g(outputs);
  return NodeNames(g, g.input_nodes());
}

std::vector<std::string> Symbol::ListOutputs() const {
  std::vector<std::string> names;
  for (const NodeEntry& e : outputs) names.push_back(OutputEntryName(*e.node, e.index));
  return names;
}

Symbol Symbol::GetInternals() const {
  Symbol s;
  DFSVisit(outputs, [&](const NodePtr& n) {
    for (uint32_t i = 0; i < n->num_outputs(); ++i) s.outputs.push_back(NodeEntry{n, i, 0});
  });
  return s;
}

Symbol Symbol::GetChildren() const {
  Symbol s;
  std::unordered_set<const Node*> seen;
  for (const NodeEntry& e : outputs) {
    if (!seen.insert(e.node.get()).second) continue;
    s.outputs.insert(s.outputs.end(), e.node->inputs.begin(), e.node->inputs.end());
  }
  return s;
}

std::optional<std::string> Symbol::GetName() const {
  Node* n = HeadNode(outputs);
  if (!n) return std::nullopt;
  return n->attrs.name;
}

std::optional<std::string> Symbol::GetAttr(const std::string& key) const {
  const Node* n = RequireHead(outputs, "GetAttr");
  auto it = n->attrs.dict.find(key);
  if (it == n->attrs.dict.end()) it = n->attrs.dict.find(HiddenKeyForm(key));
  if (it == n->attrs.dict.end()) return std::nullopt;
  return it->second;
}

void Symbol::SetAttr(const std::string& key, const std::string& value) {
  Node* n = RequireHead(outputs, "SetAttr");
  if (key.empty()) Fail(StatusCode::kInvalidArgument, "SetAttr: empty attribute key");
  std::string k = HiddenKeyForm(key);
  if (!n->is_variable()) {
    // Re-parse so a bad operator parameter fails here, leaving the node as it was.
    StringMap dict = n->attrs.dict;
    const std::string& var_key = n->op()->key_var_num_args;
    if (!var_key.empty() && !dict.count(var_key))
      dict[var_key] = std::to_string(n->attrs.params.GetInt(var_key));
    dict[k] = value;
    ParamValues params = ParseParams(n->op()->name, &n->op()->params, dict);
    if (n->op()->NumOutputs(params) != n->op()->NumOutputs(n->attrs.params) ||
        n->op()->NumInputs(params) != n->op()->NumInputs(n->attrs.params))
      Fail(StatusCode::kInvalidArgument, "SetAttr: changing '", key, "' on node '", n->attrs.name,
           "' would change its number of inputs or outputs");
    n->attrs.params = std::move(params);
  }
  n->attrs.dict[k] = value;
}

StringMap Symbol::ListAttrShallow() const {
  return RequireHead(outputs, "ListAttrShallow")->attrs.dict;
}

StringMap Symbol::ListAttr() const {
  StringMap out;
  DFSVisit(outputs, [&](const NodePtr& n) {
    for (const auto& kv : n->attrs.dict) out[n->attrs.name + "$" + kv.first] = kv.second;
  });
  return out;
}

std::map<std::string, StringMap> Symbol::AttrDict() const {
  std::map<std::string, StringMap> out;
  DFSVisit(outputs, [&](const NodePtr& n) {
    if (n->attrs.dict.empty()) return;
    StringMap& d = out[n->attrs.name];
    for (const auto& kv : n->attrs.dict) d[kv.first] = kv.second;
  });
  return out;
}

}  // namespace weft
