// MXNet's names for graph entries that its passes derive new node names
// from (the amp_cast of AMP, the quantize nodes of quantization): the suffix
// "_<output name>" for operators that name their outputs
// (FListOutputNames), "_<index>" for the others, none for a variable.
#ifndef WEFT_CORE_SRC_GRAPH_MXNET_NAMES_H_
#define WEFT_CORE_SRC_GRAPH_MXNET_NAMES_H_

#include <string>

#include "weft/node.h"

namespace weft {

std::string MXNetEntrySuffix(const NodeEntry& e);

}  // namespace weft

#endif  // WEFT_CORE_SRC_GRAPH_MXNET_NAMES_H_
