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

SlotBlocks BlockedSlots(const NodeAttrs& attrs, size_t num_inputs) {
  SlotBlocks s;
  s.in.assign(num_inputs, 0);
  s.in_channels.assign(num_inputs, 0);
  s.out.assign(1, 0);
  s.out_channels.assign(1, 0);
  const ParamValues& p = attrs.params;
  const int64_t db = p.GetInt("data_block"), ob = p.GetInt("out_block");
  const int64_t dc = p.GetInt("data_channels");
  const bool conv = attrs.op->name == "_fused_Convolution";
  const int64_t oc = conv ? p.GetInt("num_filter") : dc;
  if (num_inputs > 0) {
    s.in[0] = db;
    s.in_channels[0] = dc;
  }
  if (conv && p.GetBool("with_sum") && num_inputs > 1) {
    s.in.back() = ob;
    s.in_channels.back() = oc;
  }
  s.out[0] = ob;
  s.out_channels[0] = oc;
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
