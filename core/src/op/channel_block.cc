// Shape mapping of channel-blocked layouts (weft/channel_block.h).
#include "weft/channel_block.h"

#include <vector>

#include "weft/op.h"
#include "weft/status.h"

namespace weft {

Shape BlockedShape(const Shape& s, int64_t block, const char* what) {
  if (!s.ndim_known()) return s;
  if (s.ndim() < 2 || block <= 0)
    Fail(StatusCode::kShape, what,
         ": a channel-blocked layout needs rank >= 2 and a block >= 1, given shape ", s.ToString(),
         " and block ", block);
  std::vector<int64_t> d{s[0], (s[1] + block - 1) / block};
  for (int i = 2; i < s.ndim(); ++i) d.push_back(s[i]);
  d.push_back(block);
  return Shape(std::move(d));
}

bool SlotBlocks::any() const {
  for (int64_t b : in)
    if (b > 0) return true;
  for (int64_t b : out)
    if (b > 0) return true;
  return false;
}

Shape SlotBlocks::Input(size_t i, const Shape& s, const char* what) const {
  return in[i] > 0 ? UnblockedShape(s, in[i], in_channels[i], what) : s;
}

Shape SlotBlocks::Output(size_t i, const Shape& s, const char* what) const {
  return out[i] > 0 ? UnblockedShape(s, out[i], out_channels[i], what) : s;
}

namespace {

// The block parameters of a _fused_Convolution or _blocked_Pooling node,
// decoded once (ParamValues::Decoded).
struct BlockParams {
  int64_t data_block = 0, out_block = 0, data_channels = 0, out_channels = 0;
  bool blocked_sum = false;  // a convolution with_sum: its last input is blocked
  static BlockParams Decode(const ParamValues& p) {
    BlockParams b;
    b.data_block = p.GetInt("data_block");
    b.out_block = p.GetInt("out_block");
    b.data_channels = p.GetInt("data_channels");
    const bool conv = p.Has("num_filter");
    b.out_channels = conv ? p.GetInt("num_filter") : b.data_channels;
    b.blocked_sum = conv && p.GetBool("with_sum");
    return b;
  }
};

}  // namespace

SlotBlocks BlockedSlots(const NodeAttrs& attrs, size_t num_inputs) {
  const BlockParams& b = attrs.params.Decoded<BlockParams>();
  SlotBlocks s;
  s.in.assign(num_inputs, 0);
  s.in_channels.assign(num_inputs, 0);
  s.out.assign(1, b.out_block);
  s.out_channels.assign(1, b.out_channels);
  if (num_inputs > 0) {
    s.in[0] = b.data_block;
    s.in_channels[0] = b.data_channels;
  }
  if (b.blocked_sum && num_inputs > 1) {
    s.in.back() = b.out_block;
    s.in_channels.back() = b.out_channels;
  }
  return s;
}

Shape UnblockedShape(const Shape& s, int64_t block, int64_t channels, const char* what) {
  if (!s.ndim_known()) return s;
  if (s.ndim() < 3 || block <= 0 || (s[s.ndim() - 1] != block && s[s.ndim() - 1] != 0))
    Fail(StatusCode::kShape, what, ": expected channel-blocked data (N, C/", block,
         ", spatial..., ", block, "), given shape ", s.ToString());
  if (channels > 0 && s[1] > 0 && s[1] != (channels + block - 1) / block)
    Fail(StatusCode::kShape, what, ": ", channels, " channels in blocks of ", block, " take ",
         (channels + block - 1) / block, " blocks, given shape ", s.ToString());
  std::vector<int64_t> d{s[0], channels > 0 ? channels : s[1] * block};
  for (int i = 2; i < s.ndim() - 1; ++i) d.push_back(s[i]);
  return Shape(std::move(d));
}

}  // namespace weft
