// Byte tensors stored channels-last (see channels_last_bytes.h).
#include "cpu/channels_last_bytes.h"

#include "cpu/cpu_util.h"

namespace weft {
namespace cpu {

bool StoredChannelsLast(const NodeAttrs& attrs, const char* key) {
  auto it = attrs.dict.find(key);
  return it != attrs.dict.end() && it->second == "nhwc";
}

TBlob TransposedBytes(const TBlob& b, bool to_nchw, std::vector<uint8_t>* buf) {
  const int64_t n = b.shape[0], c = b.shape[1], hw = b.shape[2] * b.shape[3];
  buf->resize(static_cast<size_t>(b.Size()));
  const uint8_t* src = b.data<uint8_t>();
  uint8_t* dst = buf->data();
  ParallelFor(n * c, [&](int64_t nc) {
    const int64_t i = nc / c, ch = nc % c;
    for (int64_t p = 0; p < hw; ++p) {
      const int64_t nchw = nc * hw + p, nhwc = (i * hw + p) * c + ch;
      if (to_nchw)
        dst[nchw] = src[nhwc];
      else
        dst[nhwc] = src[nchw];
    }
  });
  TBlob out = b;
  out.dptr = dst;
  return out;
}

}  // namespace cpu
}  // namespace weft
