// Node and NodeEntry: the vertices and edges of a symbolic graph.
//
// A Node is either a variable (op == nullptr) or an operator application
// with parsed attributes and input entries. A NodeEntry names one output of
// a node. Nodes are shared (std::shared_ptr) and immutable once published
// into a graph; passes build new nodes rather than editing old ones.
// Operator gradients (OpDef::gradient) are written with these types. A
// subgraph operator's node also carries nested graphs (NodeAttrs::subgraphs).
#ifndef WEFT_NODE_H_
#define WEFT_NODE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weft/param.h"

namespace weft {

struct OpDef;
class OpRegistry;
struct Node;
struct Graph;  // weft/graph.h
using NodePtr = std::shared_ptr<Node>;

struct NodeEntry {
  NodePtr node;
  uint32_t index = 0;
  uint32_t version = 0;
};

// What an op instance is configured with.
struct NodeAttrs {
  const OpDef* op = nullptr;  // null for variables
  std::string name;
  StringMap dict;      // the raw string parameters and hidden attributes
  ParamValues params;  // parsed from dict against op->params
  // Nested graphs of a subgraph operator (MXNet's NodeAttrs::subgraphs, e.g.
  // the Convolution + BatchNorm + relu that _sg_mkldnn_conv stands for): its
  // inputs are the nested graph's variables in IndexedGraph order. Shared by
  // copies of the node and never edited; pass::ExpandSubgraphs inlines them.
  std::vector<std::shared_ptr<const Graph>> subgraphs;
};

struct Node {
  NodeAttrs attrs;
  std::vector<NodeEntry> inputs;
  std::vector<NodePtr> control_deps;

  Node() = default;
  Node(const Node&) = default;
  Node& operator=(const Node&) = default;
  // Releases the inputs iteratively, so that dropping the last reference to
  // a very deep graph (an unrolled RNN) cannot overflow the stack.
  ~Node();

  bool is_variable() const { return attrs.op == nullptr; }
  const OpDef* op() const { return attrs.op; }
  // Number of outputs (1 for a variable).
  uint32_t num_outputs() const;
};

// A new variable node named `name`.
NodePtr MakeVariable(const std::string& name);

// A new node applying `op_name` (looked up in `reg`) to `inputs` with string
// parameters `params`; parameters are parsed and checked. Returns the node.
NodePtr MakeOpNode(const OpRegistry& reg, const std::string& op_name, const std::string& node_name,
                   std::vector<NodeEntry> inputs, const StringMap& params = {});

// Output `index` of a new op node (see MakeOpNode).
NodeEntry MakeOpEntry(const OpRegistry& reg, const std::string& op_name,
                      const std::string& node_name, std::vector<NodeEntry> inputs,
                      const StringMap& params = {}, uint32_t index = 0);

}  // namespace weft

#endif  // WEFT_NODE_H_
