// pass::Int8ChannelsLast: int8 activations that travel from one quantized
// _sg_mkldnn_conv straight into others (their data or residual input, no
// other reader, not a graph output) are stored channels-last (NHWC bytes
// under the logical NCHW shape), the layout oneDNN's VNNI convolutions
// read and write, so those edges need no reorder. The producer gets the
// hidden attribute __out_layout__ = "nhwc", each reader __data_layout__ /
// __sum_layout__; the int8 convolution kernels honour them
// (kernels/cpu/sg_conv_int8.h). With `pooling`, a 2-D quantized pooling
// is such a node too (ResNet's max pooling between its first two
// convolutions, the global average pooling reading the last one); its
// kernels honour the same attributes (kernels/cpu/channels_last_bytes.h).
#include <memory>

#include "pass/rewrite.h"
#include "weft/op.h"

namespace weft {
namespace pass {

namespace {

bool QuantizedSgConv(const Node& n) {
  return !n.is_variable() && n.op()->name == "_sg_mkldnn_conv" &&
         n.attrs.params.GetBool("quantized") && n.attrs.subgraphs.size() == 1;
}

bool QuantizedPool2d(const Node& n) {
  if (n.is_variable() || n.op()->name != "_contrib_quantized_pooling") return false;
  const ParamValues& p = n.attrs.params;
  return p.GetBool("global_pool") || p.GetShape("kernel").ndim() == 2;
}

// The nodes whose byte output and data input may be stored channels-last.
struct Members {
  bool pooling = false;
  bool operator()(const Node& n) const {
    return QuantizedSgConv(n) || (pooling && QuantizedPool2d(n));
  }
  // The data (0) or residual (num_args - 1 with with_sum) input index of a
  // member that `input` is, or -1.
  int Slot(const Node& reader, size_t input) const {
    if (!(*this)(reader)) return -1;
    if (input == 0) return 0;
    if (!QuantizedSgConv(reader)) return -1;
    const ParamValues& p = reader.attrs.params;
    const size_t sum = static_cast<size_t>(p.GetInt("num_args")) - 1;
    return p.GetBool("with_sum") && input == sum ? 1 : -1;
  }
};

}  // namespace

RewriteResult Int8ChannelsLast(const OpRegistry& reg, const Graph& graph, bool pooling) {
  (void)reg;
  const Members member{pooling};
  IndexedGraph g(graph);
  const std::vector<int> readers = EntryReaders(g);
  // Entries whose every reader is a quantized convolution's data or sum.
  std::vector<int> conv_reads(g.num_node_entries(), 0);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
    for (size_t i = 0; i < g[nid].inputs.size(); ++i)
      if (member.Slot(g.node(nid), i) >= 0) ++conv_reads[g.entry_id(g[nid].inputs[i])];
  auto channels_last = [&](uint32_t nid) {
    const uint32_t e = g.entry_id(nid, 0);
    return member(g.node(nid)) && readers[e] > 0 && conv_reads[e] == readers[e];
  };
  return RewriteGraph(graph, [&](const NodePtr& node, const std::vector<NodeEntry>& inputs) {
    std::vector<NodeEntry> none;
    if (!member(*node)) return none;
    const uint32_t nid = g.node_id(node.get());
    auto copy = std::make_shared<Node>(*node);
    copy->inputs = inputs;
    bool changed = false;
    if (channels_last(nid)) {
      copy->attrs.dict["__out_layout__"] = "nhwc";
      changed = true;
    }
    for (size_t i = 0; i < node->inputs.size(); ++i) {
      const int slot = member.Slot(*node, i);
      const NodeEntry& e = node->inputs[i];
      if (slot < 0 || e.index != 0 || e.node->is_variable() ||
          !channels_last(g.node_id(e.node.get())))
        continue;
      copy->attrs.dict[slot == 0 ? "__data_layout__" : "__sum_layout__"] = "nhwc";
      changed = true;
    }
    if (!changed) return none;
    std::vector<NodeEntry> out;
    for (uint32_t i = 0; i < copy->num_outputs(); ++i) out.push_back(NodeEntry{copy, i, 0});
    return out;
  });
}

}  // namespace pass
}  // namespace weft
