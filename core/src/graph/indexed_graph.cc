#include <algorithm>

#include "weft/graph.h"
#include "weft/graph_algorithm.h"
#include "weft/op.h"
#include "weft/status.h"

namespace weft {

namespace {

// Every pass indexes a node's inputs by the op's arity; a node made by
// CreateAtomic and never composed has none.
void CheckArity(const Node& n) {
  const int want = n.op()->NumInputs(n.attrs.params);
  if (want < 0 || n.inputs.size() == static_cast<size_t>(want)) return;
  std::string names;
  for (const auto& s : n.op()->InputNames(n.attrs.params)) names += (names.empty() ? "" : ", ") + s;
  const std::string label = n.attrs.name.empty()
                                ? StrCat("an unnamed ", n.op()->name, " node")
                                : StrCat("node '", n.attrs.name, "' (", n.op()->name, ")");
  Fail(StatusCode::kInvalidArgument, label, " has ", n.inputs.size(),
       " inputs, the operator takes ", want, " (", names, ")",
       n.inputs.empty() ? ": an operator symbol from create_atomic must be composed before use"
                        : "");
}

}  // namespace

IndexedGraph::IndexedGraph(const std::vector<NodeEntry>& outputs) {
  row_ptr_.push_back(0);
  DFSVisit(outputs, [&](const NodePtr& n) {
    uint32_t nid = static_cast<uint32_t>(nodes_.size());
    ids_[n.get()] = nid;
    if (!n->is_variable()) CheckArity(*n);
    IndexedNode in;
    in.node = n;
    for (const NodeEntry& e : n->inputs)
      in.inputs.push_back({ids_.at(e.node.get()), e.index, e.version});
    for (const NodePtr& d : n->control_deps) in.control_deps.push_back(ids_.at(d.get()));
    nodes_.push_back(std::move(in));
    row_ptr_.push_back(row_ptr_.back() + n->num_outputs());
    if (n->is_variable()) input_nodes_.push_back(nid);
  });
  mutable_.assign(nodes_.size(), false);
  for (const IndexedNode& in : nodes_) {
    const Node& n = *in.node;
    if (n.is_variable() || !n.op()->mutate_inputs) continue;
    for (int i : n.op()->mutate_inputs(n.attrs.params))
      if (i >= 0 && static_cast<size_t>(i) < in.inputs.size())
        mutable_[in.inputs[i].node_id] = true;
  }
  for (uint32_t nid : input_nodes_) (mutable_[nid] ? aux_nodes_ : argument_nodes_).push_back(nid);
  for (const NodeEntry& e : outputs)
    outputs_.push_back({ids_.at(e.node.get()), e.index, e.version});
}

uint32_t IndexedGraph::node_id(const Node* n) const {
  auto it = ids_.find(n);
  if (it == ids_.end())
    Fail(StatusCode::kNotFound, "node '", n ? n->attrs.name : std::string("<null>"),
         "' is not part of this graph");
  return it->second;
}

IndexedGraph::EntryRef IndexedGraph::entry(uint32_t eid) const {
  WEFT_CHECK(eid < num_node_entries()) << "entry id " << eid << " out of range";
  auto it = std::upper_bound(row_ptr_.begin(), row_ptr_.end(), eid);
  uint32_t nid = static_cast<uint32_t>(it - row_ptr_.begin()) - 1;
  return EntryRef{nid, eid - row_ptr_[nid], 0};
}

std::string IndexedGraph::entry_name(uint32_t eid) const {
  EntryRef e = entry(eid);
  return OutputEntryName(node(e.node_id), e.index);
}

std::string OutputEntryName(const Node& node, uint32_t index) {
  if (node.is_variable()) return node.attrs.name;
  return node.attrs.name + "_" + node.op()->OutputName(node.attrs.params, index);
}

}  // namespace weft
