// The MXNet symbol JSON as read, before ops are resolved (internal to
// core/src/json). ReadRawGraph checks types, required keys and id ranges.
#ifndef WEFT_CORE_SRC_JSON_JSON_RAW_H_
#define WEFT_CORE_SRC_JSON_JSON_RAW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "weft/param.h"

namespace weft {
namespace json_internal {

struct RawEntry {
  uint32_t node = 0, index = 0, version = 0;
};

struct RawGraph;

struct RawNode {
  std::string op, name;
  StringMap dict;  // "param", then "attr", then "attrs", merged in that order
  std::vector<RawEntry> inputs;
  std::vector<uint32_t> control_deps;
  std::vector<RawGraph> subgraphs;  // nested graphs (MXNet 1.6+ "subgraphs")
  bool has_param = false, has_attr = false, has_attrs = false;
};

struct RawGraph {
  std::vector<RawNode> nodes;
  std::vector<uint32_t> arg_nodes;
  std::vector<RawEntry> heads;
  int mxnet_version = 800;
  bool has_version = false;
};

// Parses `text` (nested "subgraphs" too: each a graph object of its own,
// without graph attributes of meaning); throws Error(kInvalidArgument) "symbol JSON: ..." naming
// the offending node and field.
RawGraph ReadRawGraph(const std::string& text);

}  // namespace json_internal
}  // namespace weft

#endif  // WEFT_CORE_SRC_JSON_JSON_RAW_H_
