// The quantization kernels' view of their parameters: quant::QuantParams
// (weft/quantization.h, decoded once per node and shared with the ops'
// shape and type inference) and the range inputs' values.
#ifndef WEFT_KERNELS_CPU_QUANTIZED_PARAMS_H_
#define WEFT_KERNELS_CPU_QUANTIZED_PARAMS_H_

#include "weft/blob.h"
#include "weft/quantization.h"

namespace weft {
namespace cpu {

using quant::QuantParams;

// The value of a range input (a float32 array of one element).
inline float Scalar(const TBlob& b) { return b.data<float>()[0]; }

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_QUANTIZED_PARAMS_H_
