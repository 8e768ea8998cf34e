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
  if (s[1] % block != 0)
    Fail(StatusCode::kShape, what, ": ", s[1], " channels (shape ", s.ToString(),
         ") are no multiple of the block ", block);
  std::vector<int64_t> d{s[0], s[1] / block};
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

SlotBlocks BlockedSlots(const NodeAttrs& attrs, size_t num_inputs) {
  SlotBlocks s;
  s.in.assign(num_inputs, 0);
  s.out.assign(1, 0);
  const int64_t db = attrs.params.GetInt("data_block"), ob = attrs.params.GetInt("out_block");
  if (num_inputs > 0) s.in[0] = db;
  if (attrs.op->name == "_fused_Convolution" && attrs.params.GetBool("with_sum") && num_inputs > 1)
    s.in.back() = ob;
  s.out[0] = ob;
  return s;
}

Shape UnblockedShape(const Shape& s, int64_t block, const char* what) {
  if (!s.ndim_known()) return s;
  if (s.ndim() < 3 || block <= 0 || (s[s.ndim() - 1] != block && s[s.ndim() - 1] != 0))
    Fail(StatusCode::kShape, what, ": expected channel-blocked data (N, C/", block,
         ", spatial..., ", block, "), given shape ", s.ToString());
  std::vector<int64_t> d{s[0], s[1] * block};
  for (int i = 2; i < s.ndim() - 1; ++i) d.push_back(s[i]);
  return Shape(std::move(d));
}

}  // namespace weft
