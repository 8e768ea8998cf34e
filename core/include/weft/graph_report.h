// Reports on a symbol for people: MXNet's print_summary table (with FLOPs
// and activation bytes per layer) and plot_network's Graphviz picture
// (with shapes, dtypes, parameters and the memory plan's blocks).
//
// Both infer shapes and types from `shapes` (and `dtypes`, default float32)
// as binding would; entries left unknown print as "?". Pure functions of
// their arguments; thread-safe.
#ifndef WEFT_GRAPH_REPORT_H_
#define WEFT_GRAPH_REPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "weft/pass.h"
#include "weft/symbol.h"

namespace weft {

// One operator node (or the first input) of a summary.
struct LayerSummary {
  std::string name, op;               // op "null" for an input
  Shape out_shape;                    // the first output's shape
  int64_t params = 0;                 // elements of the learned arguments it reads
  std::vector<std::string> previous;  // the op nodes (and inputs) it reads
  int64_t flops = 0;
  int64_t activation_bytes = 0;  // bytes of its outputs
};

struct SymbolSummary {
  std::vector<LayerSummary> layers;
  int64_t total_params = 0;  // learned arguments (not inputs, not aux states)
  int64_t aux_elements = 0;  // auxiliary states (BatchNorm moving statistics)
  int64_t total_flops = 0;
  int64_t activation_bytes = 0;
};

// Counts: a layer's params are the elements of the arguments it reads that
// are not inputs (names given in `shapes`, or ending in "data" or "label")
// nor auxiliary states; FLOPs are 2 x multiply-adds for
// Convolution, Deconvolution, FullyConnected, dot and batch_dot (plus the
// bias additions) and one per output element for every other operator.
SymbolSummary Summarize(const Symbol& sym, const pass::ShapeMap& shapes,
                        const pass::DTypeMap& dtypes = {});
// MXNet's print_summary layout (output shapes without the batch axis) with
// FLOPs and activation bytes columns and the totals.
std::string FormatSummary(const SymbolSummary& summary);

// plot_network's options: `hide_weights` drops the learned arguments and
// aux states; `shapes` labels edges with shapes (and dtypes other than
// float32); `memory` colours op nodes by the storage block the memory plan
// gives their first output (nodes sharing a colour reuse one block);
// `node_attrs` are extra Graphviz node attributes ("fontsize" -> "10").
struct DotOptions {
  std::string title = "plot";
  bool hide_weights = true;
  bool shapes = true;
  bool memory = false;
  std::map<std::string, std::string> node_attrs;
};
std::string ToDot(const Symbol& sym, const pass::ShapeMap& shapes, const DotOptions& options,
                  const pass::DTypeMap& dtypes = {});

}  // namespace weft

#endif  // WEFT_GRAPH_REPORT_H_
