// PlaceTrainingGraph: PlaceDevice over a training graph with every head
// gradient variable on its forward output's device (see pass.h). Shared by
// the executor and weft_symbol_place_device, so `weft place --train` shows
// what an executor binds.
#include <string>
#include <vector>

#include "weft/graph.h"
#include "weft/pass.h"

namespace weft {
namespace pass {

Placement PlaceTrainingGraph(const OpRegistry& reg, const Graph& forward, const Graph& train,
                             const std::vector<NodeEntry>& heads, PlaceDeviceOptions options) {
  IndexedGraph full(train);
  std::vector<bool> pending(heads.size(), false);
  bool any = false;
  for (size_t i = 0; i < heads.size() && i < forward.outputs.size(); ++i) {
    const Node* h = heads[i].node.get();
    if (!h->is_variable() || options.fixed.count(h->attrs.name)) continue;
    for (uint32_t nid : full.input_nodes()) pending[i] = pending[i] || &full.node(nid) == h;
    any = any || pending[i];
  }
  if (any) {
    IndexedGraph fidx(forward);
    PlaceDeviceOptions fwd_options = options;
    fwd_options.fixed.clear();  // only the forward graph's variables
    for (uint32_t nid : fidx.input_nodes()) {
      auto it = options.fixed.find(fidx.node(nid).attrs.name);
      if (it != options.fixed.end()) fwd_options.fixed.insert(*it);
    }
    const Placement fwd = PlaceDevice(reg, forward, fwd_options);
    const IndexedGraph placed(fwd.graph);
    for (size_t i = 0; i < pending.size(); ++i)
      if (pending[i])
        options.fixed[heads[i].node->attrs.name] = fwd.devices[placed.outputs()[i].node_id];
  }
  return PlaceDevice(reg, train, options);
}

}  // namespace pass
}  // namespace weft
