// The int8 convolution loop shared by _contrib_quantized_conv and the
// quantized _sg_mkldnn_conv reference kernel: int32 sums of int8/uint8
// data times int8 weights (MXNet's OIHW layout, groups), started from
// `bias` (int32 levels, one per filter; null for none).
#ifndef WEFT_KERNELS_CPU_QUANTIZED_NN_H_
#define WEFT_KERNELS_CPU_QUANTIZED_NN_H_

#include <cstdint>

#include "nn_geometry.h"
#include "weft/op.h"

namespace weft {
namespace cpu {

// TD: int8_t or uint8_t (instantiated for both).
template <typename TD>
void QuantizedConvLoop(const ConvGeom& g, const TD* x, const int8_t* w, const int32_t* bias,
                       int32_t* y);

void RegisterQuantizedNNCpu(KernelRegistry* reg);

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_QUANTIZED_NN_H_
