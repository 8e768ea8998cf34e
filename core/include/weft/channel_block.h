// Channel-blocked layouts of channel-first data (oneDNN's nChw8c /
// nChw16c): logical (N, C, spatial...) stored as (N, C / b, spatial..., b),
// channel c of a pixel at block c / b, lane c % b. The inference pass
// pass::BlockConvLayouts keeps the data between convolutions in this layout;
// `_layout_block` converts plain data into it and `_fused_Convolution` and
// `_blocked_Pooling` (data_block, out_block) read and write it. Shared by the ops' shape
// inference (core/src/op) and their kernels. When C is no multiple of b the
// last block is padded: (N, ceil(C / b), spatial..., b) with lanes C.. of it
// zero (oneDNN's padded nChw16c), and the logical C travels beside the shape
// (SlotBlocks' channel counts, from the ops' num_filter / data_channels).
#ifndef WEFT_CHANNEL_BLOCK_H_
#define WEFT_CHANNEL_BLOCK_H_

#include <cstdint>
#include <vector>

#include "weft/node.h"
#include "weft/shape.h"

namespace weft {

// The blocked shape of logical `s` (rank >= 2, channel axis 1), the
// channel blocks rounded up. Unknown extents stay unknown; an unknown rank
// gives an unknown shape. Throws Error(kShape) naming `what` on a rank
// below 2 or a block below 1.
Shape BlockedShape(const Shape& s, int64_t block, const char* what);

// The logical shape of blocked `s` (rank >= 3, last extent `block` or
// unknown) holding `channels` channels (0: every lane of every block, C =
// s[1] * block). Throws Error(kShape) naming `what` on any other shape, or
// when `channels` does not need s[1] blocks.
Shape UnblockedShape(const Shape& s, int64_t block, int64_t channels, const char* what);

// The channel block of every input and output of a `_fused_Convolution` or
// `_blocked_Pooling` node with `num_inputs` inputs (0: plain): input 0 has
// data_block and data_channels channels; output 0, and the sum input of a
// convolution with_sum, have out_block and the convolution's num_filter (a
// pooling's output: data_channels) channels. A channel count of 0 means
// every lane of every block.
struct SlotBlocks {
  std::vector<int64_t> in, out;                    // channels per block, 0: plain
  std::vector<int64_t> in_channels, out_channels;  // logical channel counts
  bool any() const;
  // The logical shape of input / output `i` given its stored shape `s`
  // (`s` itself when that slot is plain); `what` names it in errors.
  Shape Input(size_t i, const Shape& s, const char* what) const;
  Shape Output(size_t i, const Shape& s, const char* what) const;
};
SlotBlocks BlockedSlots(const NodeAttrs& attrs, size_t num_inputs);

}  // namespace weft

#endif  // WEFT_CHANNEL_BLOCK_H_
