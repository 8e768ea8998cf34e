// Byte tensors stored channels-last: pass::Int8ChannelsLast keeps int8 /
// uint8 activations between the quantized layers oneDNN runs in NHWC order
// under their logical NCHW shape, marking the producer's output
// (__out_layout__) and each reader's input (__data_layout__, __sum_layout__)
// "nhwc". Reference kernels, which compute in NCHW, transpose such inputs in
// and such outputs out with these.
#ifndef WEFT_KERNELS_CPU_CHANNELS_LAST_BYTES_H_
#define WEFT_KERNELS_CPU_CHANNELS_LAST_BYTES_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "weft/op.h"

namespace weft {
namespace cpu {

// Whether `attrs` marks the slot of hidden attribute `key` channels-last.
bool StoredChannelsLast(const NodeAttrs& attrs, const char* key);

// `b`'s bytes (a 4-D byte tensor) moved between NCHW and NHWC order into
// `buf`; the returned blob views `buf` with b's logical shape.
TBlob TransposedBytes(const TBlob& b, bool to_nchw, std::vector<uint8_t>* buf);

// Runs `plain(in, out)` (a reference computing NCHW) on inputs and output 0
// of the layouts `attrs` marks: a channels-last data input (__data_layout__:
// input 0) is transposed in, a channels-last output 0 (__out_layout__)
// computed into a buffer and transposed out.
template <typename Plain>
void InPlainLayout(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<TBlob>& out, Plain&& plain) {
  std::vector<TBlob> ins = in, outs = out;
  std::vector<uint8_t> data_buf, out_buf, back;
  if (StoredChannelsLast(attrs, "__data_layout__"))
    ins[0] = TransposedBytes(in[0], true, &data_buf);
  const bool out_nhwc = StoredChannelsLast(attrs, "__out_layout__");
  if (out_nhwc) {
    out_buf.resize(out[0].Bytes());
    outs[0].dptr = out_buf.data();
  }
  plain(ins, outs);
  if (!out_nhwc) return;
  TransposedBytes(outs[0], false, &back);
  std::copy(back.begin(), back.end(), static_cast<uint8_t*>(out[0].dptr));
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_CHANNELS_LAST_BYTES_H_
