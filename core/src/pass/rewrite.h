// Persistent graph rewriting shared by the inference passes. Internal to
// core/src/pass; not a public header.
#ifndef WEFT_CORE_SRC_PASS_REWRITE_H_
#define WEFT_CORE_SRC_PASS_REWRITE_H_

#include <functional>
#include <vector>

#include "weft/graph.h"
#include "weft/pass.h"

namespace weft {
namespace pass {

// Called per op node in topological order with the node's inputs already
// rewritten. Returns one entry per output of the node to replace it, or
// nothing to keep it (rebuilt with the new inputs when an input changed).
using RewriteFn = std::function<std::vector<NodeEntry>(const NodePtr& node,
                                                       const std::vector<NodeEntry>& inputs)>;

// RewriteFn that also receives the node's control dependencies, mapped
// like its inputs (for a replacement that keeps them).
using RewriteDepsFn = std::function<std::vector<NodeEntry>(
    const NodePtr& node, const std::vector<NodeEntry>& inputs, const std::vector<NodePtr>& deps)>;

// Applies `fn` to every op node of `graph`. Variables are kept as they are;
// a control dependency on a replaced node becomes one on the node of its
// first replacement entry. `changes` counts the replaced nodes; the result
// is `graph` itself when there are none.
RewriteResult RewriteGraph(const Graph& graph, const RewriteFn& fn);
RewriteResult RewriteGraph(const Graph& graph, const RewriteDepsFn& fn);

// Per entry of `g`: how many node inputs read it, plus one per graph output
// it is.
std::vector<int> EntryReaders(const IndexedGraph& g);

// Whether op node `n` is a relu (`relu`, or `Activation` with act_type relu),
// the activation the fusion passes fold into the layer before it.
bool IsRelu(const Node& n);

}  // namespace pass
}  // namespace weft

#endif  // WEFT_CORE_SRC_PASS_REWRITE_H_
