// Symbol JSON: MXNet's symbol file format ("*-symbol.json"), read and written.
//
// Writes exactly what MXNet 1.x writes: {"nodes": [{"op", "name", "attrs"
// (only when non-empty), "inputs": [[node, index, version], ...]}],
// "arg_nodes", "node_row_ptr", "heads", "attrs": {"mxnet_version": ["int",
// N]}}, nodes in DFS post-order (IndexedGraph ids), ops by canonical name.
// Reads that and the older generations, upgrading them as MXNet does: 0.9
// "attr" and 0.8 "param" node keys, 2-element entries, no node_row_ptr or
// graph attrs, backward_source_id; hidden keys (lr_mult, ctx_group, ...)
// moved to __key__ form and "<input>_lr_mult" onto that input's variable;
// before 0.9.0, missing trailing inputs (BatchNorm's moving_mean/var; at
// most 16 per node) added as variables "<node>_<input>" from the OpDef's
// input names, carrying the node's attributes.
// A node's "subgraphs" (MXNet 1.6+, e.g. sym.optimize_for('MKLDNN')'s
// _sg_mkldnn_conv) are graph objects of the same form (nodes, arg_nodes,
// node_row_ptr, heads), read into NodeAttrs::subgraphs and written back so;
// only ops with OpDef::check_subgraphs take them.
// Loading validates everything: malformed input throws weft::Error, never
// crashes. Stateless; thread-safe given a registry nobody is filling.
#ifndef WEFT_SYMBOL_JSON_H_
#define WEFT_SYMBOL_JSON_H_

#include <string>

#include "weft/op.h"
#include "weft/symbol.h"

namespace weft {

// The MXNet version written into saved files (1.9.1 as 10901).
constexpr int kMXNetVersion = 10901;

// Which generation of the format a file was written in, by its node keys.
enum class JsonGeneration {
  kMXNet08,  // node params under "param" (hidden attrs under "attr")
  kMXNet09,  // node attributes under "attr"
  kMXNet1,   // node attributes under "attrs" (MXNet 1.x, nnvm)
};
// "0.8", "0.9", "1.x".
const char* JsonGenerationName(JsonGeneration g);

struct LoadedSymbol {
  Symbol symbol;
  // attrs.mxnet_version, or 800 (0.8.0) when the file has none.
  int mxnet_version = 800;
  bool has_version = false;
  JsonGeneration generation = JsonGeneration::kMXNet1;
  // Whether an upgrade step changed the graph (keys moved, inputs added).
  bool upgraded = false;
};

// Parses `json` and resolves ops in `reg`. Errors: kInvalidArgument for
// malformed input (bad JSON, wrong types, missing keys, dangling ids,
// cycles, wrong arity, bad parameters), naming the node and field;
// kNotFound when operators are not in `reg`, naming every such operator and
// up to three nodes (id and name) using it: "symbol JSON: operators are not
// registered: operator 'Pooling' (used by node 6 'pool1'); ...".
LoadedSymbol LoadJSON(const std::string& json, const OpRegistry& reg);

// Reads the file at `path` and loads it; kIO when it cannot be read, other
// errors as LoadJSON, prefixed with the path.
LoadedSymbol LoadJSONFile(const std::string& path, const OpRegistry& reg);

// The MXNet 1.x JSON of `sym` (pretty-printed with 2-space indentation),
// recording `mxnet_version`.
std::string SaveJSON(const Symbol& sym, int mxnet_version = kMXNetVersion);
// Writes SaveJSON(sym) to `path`; kIO when it cannot be written.
void SaveJSONFile(const Symbol& sym, const std::string& path, int mxnet_version = kMXNetVersion);

}  // namespace weft

#endif  // WEFT_SYMBOL_JSON_H_
