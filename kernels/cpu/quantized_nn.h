// The int8 loops shared by the quantized convolution and fully connected
// kernels (_contrib_quantized_* and the quantized _sg_mkldnn_* reference
// kernels): int32 sums of int8/uint8 data times int8 weights, started from
// int32 bias levels; and the int8 weights the _sg_mkldnn_* operators derive
// from float32 parameters.
#ifndef WEFT_KERNELS_CPU_QUANTIZED_NN_H_
#define WEFT_KERNELS_CPU_QUANTIZED_NN_H_

#include <cstdint>
#include <vector>

#include "nn_geometry.h"
#include "weft/op.h"

namespace weft {
namespace cpu {

// int8 weights and int32 bias levels derived from float32 parameters as
// MXNet 1.9.1's oneDNN subgraph operators derive them (GetWeightScales, then
// the scaled reorders of ConvertWeightBias2MKLDNN).
struct Int8Weights {
  std::vector<int8_t> w;      // sat(rne(w * scales[c])), c the output channel
  std::vector<int32_t> b;     // sat(rne(bias * (scales[c] * data_scale))); empty without bias
  std::vector<float> scales;  // levels per unit, one per output channel
  float wmin = 0, wmax = 0;   // the whole weight's range
};

// `w`: f output channels of `per` values each; `b`: f values, or null.
// `per_channel`: scales[c] = 127.5 / MaxAbs(channel c's min, max), lowered
// to (INT32_MAX or INT32_MIN, by b[c]'s sign) / 2 / b[c] / data_scale where
// that is smaller (MXNet keeps the bias levels inside half the int32 range);
// otherwise every channel has the whole weight's 127.5 / MaxAbs(wmin, wmax).
Int8Weights QuantizeWeights(const float* w, const float* b, int64_t f, int64_t per,
                            float data_scale, bool per_channel);

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
