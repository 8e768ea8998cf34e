// The int8 convolution loop shared by _contrib_quantized_conv and the
// quantized _sg_mkldnn_conv reference kernel: int32 sums of int8/uint8
// data times int8 weights (MXNet's OIHW layout, groups), started from
// `bias` (int32 levels, one per filter; null for none).
#ifndef WEFT_KERNELS_CPU_QUANTIZED_NN_H_
#define WEFT_KERNELS_CPU_QUANTIZED_NN_H_

#include <cstdint>
#include <vector>

#include "nn_geometry.h"
#include "weft/op.h"

namespace weft {
namespace cpu {

// TD: int8_t or uint8_t (instantiated for both).
template <typename TD>
void QuantizedConvLoop(const ConvGeom& g, const TD* x, const int8_t* w, const int32_t* bias,
                       int32_t* y);

// y (rows, hidden) = the int32 sums of int8/uint8 `data` (rows, k) times
// int8 weights w (hidden, k), started from `bias` (null for none).
void QuantizedFCSums(const TBlob& data, const int8_t* w, const int32_t* bias, int64_t rows,
                     int64_t k, int64_t hidden, int32_t* y);

// The int8 bias (in[2], range in[7], in[8]) of `count` channels in the
// int32 levels of the product of in[0] (range in[3], in[4]) and the int8
// weight (range in[5], in[6]), as MXNet's oneDNN kernels scale it.
std::vector<int32_t> BiasLevels(const std::vector<TBlob>& in, int64_t count);

// out[1], out[2] = the int32 range of the product of the operands whose
// ranges are in[k..k+3] (quant::ProductRangeMax).
void SetProductRange(const std::vector<TBlob>& in, size_t k, bool all_sign,
                     const std::vector<TBlob>& out);

void RegisterQuantizedNNCpu(KernelRegistry* reg);

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_QUANTIZED_NN_H_
