// Channel-blocked layouts of channel-first data (oneDNN's nChw8c /
// nChw16c): logical (N, C, spatial...) stored as (N, C / b, spatial..., b),
// channel c of a pixel at block c / b, lane c % b. The inference pass
// pass::BlockConvLayouts keeps the data between convolutions in this layout;
// `_layout_block` converts plain data into it and `_fused_Convolution` and
// `_blocked_Pooling` (data_block, out_block) read and write it. Shared by the ops' shape
// inference (core/src/op) and their kernels. C must be a multiple of b (no
// padded lanes).
#ifndef WEFT_CHANNEL_BLOCK_H_
#define WEFT_CHANNEL_BLOCK_H_

#include <cstdint>
#include <vector>

#include "weft/node.h"
#include "weft/shape.h"

namespace weft {

// The blocked shape of logical `s` (rank >= 2, channel axis 1). Unknown
// extents stay unknown; an unknown rank gives an unknown shape. Throws
// Error(kShape) naming `what` when the known channel count is no multiple of
// `block`.
Shape BlockedShape(const Shape& s, int64_t block, const char* what);

// The logical shape of blocked `s` (rank >= 3, last extent `block` or
// unknown). Throws Error(kShape) naming `what` on any other shape.
Shape UnblockedShape(const Shape& s, int64_t block, const char* what);

// The channel block of every input and output of a `_fused_Convolution` or
// `_blocked_Pooling` node with `num_inputs` inputs (0: plain): input 0 has
// data_block; output 0, and the sum input of a convolution with_sum, have
// out_block.
struct SlotBlocks {
  std::vector<int64_t> in, out;
  bool any() const;
};
SlotBlocks BlockedSlots(const NodeAttrs& attrs, size_t num_inputs);

}  // namespace weft

#endif  // WEFT_CHANNEL_BLOCK_H_
