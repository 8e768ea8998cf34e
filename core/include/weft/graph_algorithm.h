// Graph walkers shared by every pass and by Symbol.
//
// All walks are iterative (deep graphs such as unrolled RNNs do not overflow
// the stack) and deterministic: nodes are reached in the order of the
// `heads`, then of each node's inputs, then of its control deps, which is
// nnvm's DFSVisit order and hence MXNet's JSON node order and argument
// order. Stateless and thread-safe for graphs nobody is editing.
#ifndef WEFT_GRAPH_ALGORITHM_H_
#define WEFT_GRAPH_ALGORITHM_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "weft/graph.h"
#include "weft/node.h"

namespace weft {

// Calls `visit` once for each node reachable from `heads`, every node after
// all its inputs and control deps (post-order). Throws Error(kInvalidArgument)
// naming a node when the nodes form a cycle.
void DFSVisit(const std::vector<NodeEntry>& heads,
              const std::function<void(const NodePtr&)>& visit);

// The nodes DFSVisit reaches, in visiting order (a topological order).
std::vector<NodePtr> TopoOrder(const std::vector<NodeEntry>& heads);

// Node ids of `g` in topological order (0, 1, ...) and in reverse; passes
// sweep forward with the first and backward with the second.
void ForwardVisit(const IndexedGraph& g, const std::function<void(uint32_t nid)>& visit);
void ReverseVisit(const IndexedGraph& g, const std::function<void(uint32_t nid)>& visit);

// Deep copy of the graph reachable from `heads`: every node is cloned once
// (sharing is preserved) and the returned entries point into the copy.
std::vector<NodeEntry> CopyGraph(const std::vector<NodeEntry>& heads);

}  // namespace weft

#endif  // WEFT_GRAPH_ALGORITHM_H_
