// Graph and IndexedGraph: a computation graph and its dense, numbered view.
//
// A `Graph` is just the output entries of a symbolic graph; the nodes it
// reaches are shared (std::shared_ptr<Node>) with the Symbols that built it.
// An `IndexedGraph` numbers the reachable nodes in nnvm's deterministic DFS
// post-order (inputs, then control deps, before the node; first reached
// first), and the node outputs ("entries") densely: entry_id = row_ptr[nid]
// + output index. Every pass reads an IndexedGraph and returns plain vectors
// indexed by node id or entry id. An IndexedGraph keeps its nodes alive and
// never changes after construction, so const access is thread-safe; nodes
// must not be edited while an IndexedGraph of them is in use.
#ifndef WEFT_GRAPH_H_
#define WEFT_GRAPH_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "weft/node.h"

namespace weft {

// A graph is identified by its outputs.
struct Graph {
  std::vector<NodeEntry> outputs;
};

class IndexedGraph {
 public:
  // An edge in ids: output `index` of node `node_id`.
  struct EntryRef {
    uint32_t node_id = 0;
    uint32_t index = 0;
    uint32_t version = 0;
  };
  struct IndexedNode {
    NodePtr node;                  // the node itself (kept alive)
    std::vector<EntryRef> inputs;  // node->inputs, as ids
    std::vector<uint32_t> control_deps;
  };

  // Indexes every node reachable from `outputs`. Throws
  // Error(kInvalidArgument) naming a node on a cycle.
  explicit IndexedGraph(const std::vector<NodeEntry>& outputs);
  explicit IndexedGraph(const Graph& g) : IndexedGraph(g.outputs) {}

  size_t num_nodes() const { return nodes_.size(); }
  // Total number of node outputs (variables count one each).
  size_t num_node_entries() const { return row_ptr_.back(); }

  const IndexedNode& operator[](uint32_t nid) const { return nodes_[nid]; }
  const Node& node(uint32_t nid) const { return *nodes_[nid].node; }

  // Id of `n`; throws Error(kNotFound) when `n` is not in the graph.
  uint32_t node_id(const Node* n) const;
  bool contains(const Node* n) const { return ids_.count(n) != 0; }
  // Entry ids. REQUIRES: index < num_outputs of the node.
  uint32_t entry_id(uint32_t nid, uint32_t index) const { return row_ptr_[nid] + index; }
  uint32_t entry_id(const EntryRef& e) const { return row_ptr_[e.node_id] + e.index; }
  // Throws Error(kNotFound) when e.node is not in the graph.
  uint32_t entry_id(const NodeEntry& e) const { return entry_id(node_id(e.node.get()), e.index); }
  // The (node id, output index) of entry `eid`.
  EntryRef entry(uint32_t eid) const;

  // num_nodes() + 1 offsets: node nid's entries are [row_ptr[nid], row_ptr[nid+1]).
  const std::vector<uint32_t>& row_ptr() const { return row_ptr_; }
  // Every variable node, in id order (MXNet's "arg_nodes").
  const std::vector<uint32_t>& input_nodes() const { return input_nodes_; }
  // Variables some op writes (OpDef::mutate_inputs): the auxiliary states.
  bool is_mutable_input(uint32_t nid) const { return mutable_[nid]; }
  // Read-only variables in id order: the arguments (ListArguments order).
  const std::vector<uint32_t>& argument_nodes() const { return argument_nodes_; }
  // Mutable variables in id order: the auxiliary states.
  const std::vector<uint32_t>& aux_nodes() const { return aux_nodes_; }
  // The graph outputs, as ids.
  const std::vector<EntryRef>& outputs() const { return outputs_; }

  // Display name of entry `eid`: the variable's name, or "<node>_<output
  // name>" for op outputs (as Symbol::ListOutputs).
  std::string entry_name(uint32_t eid) const;

 private:
  std::vector<IndexedNode> nodes_;
  std::unordered_map<const Node*, uint32_t> ids_;
  std::vector<uint32_t> row_ptr_;
  std::vector<uint32_t> input_nodes_, argument_nodes_, aux_nodes_;
  std::vector<bool> mutable_;
  std::vector<EntryRef> outputs_;
};

// Name of output `index` of `node` as MXNet lists it: the variable name, or
// "<node>_<output name>" (output names from the OpDef: "output", "output0"..).
std::string OutputEntryName(const Node& node, uint32_t index);

}  // namespace weft

#endif  // WEFT_GRAPH_H_
