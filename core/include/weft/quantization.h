// Quantized tensors as MXNet 1.9.1's CPU (oneDNN) operators read them: the
// scales, rounding and saturation the _contrib_quantize*/quantized_* ops and
// the quantized _sg_mkldnn_* operators share (core infers their types, the
// kernels compute them).
//
// A quantized array of dtype T comes with a float range (min, max) and holds
// zero-centred levels: value = q * MaxAbs(min, max) / range(T), where
// range(T) = 127.5 (int8), 255.5 (uint8) or 2^31 - 1 (int32), MXNet's
// kInt8Range / kUint8Range / kInt32Range. Conversions into T scale in float,
// round to nearest (ties to even, oneDNN's reorder) and saturate to T's
// limits. Stateless header-only functions; thread-safe.
#ifndef WEFT_QUANTIZATION_H_
#define WEFT_QUANTIZATION_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "weft/dtype.h"

namespace weft {
namespace quant {

constexpr float kInt8Range = 127.5f;
constexpr float kUint8Range = 255.5f;
constexpr float kInt32Range = 2147483647.0f;

inline float MaxAbs(float a, float b) { return std::max(std::fabs(a), std::fabs(b)); }

// range(T) of a quantized dtype (int8, uint8, int32); 0 for others.
inline float QuantizedRange(DType t) {
  switch (t) {
    case DType::kInt8:
      return kInt8Range;
    case DType::kUint8:
      return kUint8Range;
    case DType::kInt32:
      return kInt32Range;
    default:
      return 0.f;
  }
}

// Levels per unit of a quantized array of dtype `t` with range (min, max)
// (MXNet's GetQuantizeScale: a zero range gives INT32_MAX, not infinity).
inline float QuantizeScale(DType t, float min, float max) {
  const float real = MaxAbs(min, max);
  return real != 0.f ? QuantizedRange(t) / real : 2147483647.0f;
}

// `v` rounded to nearest (ties to even) and saturated to T's limits (NaN
// gives 0).
template <typename T>
inline T SaturateRound(float v) {
  const float lo = static_cast<float>(std::numeric_limits<T>::lowest());
  const float hi = static_cast<float>(std::numeric_limits<T>::max());
  if constexpr (sizeof(T) == 1) {
    // Clamped to a byte's range first, the value rounds exactly by adding
    // and subtracting 1.5 * 2^23 (the default rounding mode is to nearest
    // even): branch-free, so the loops over arrays vectorise.
    float c = v > lo ? v : lo;
    c = c < hi ? c : hi;
    c = (c + 12582912.f) - 12582912.f;
    return static_cast<T>(v == v ? c : 0.f);
  } else {
    if (!(v == v)) return T(0);
    if (v <= lo) return std::numeric_limits<T>::lowest();
    if (v >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(std::nearbyint(v));
  }
}

// MXNet's QuantizationRangeForMultiplication: the int32 range of a product
// of two quantized arrays. `all_sign`: each operand's level is
// MaxAbs(range) / 127 (int8 limits' MinAbs); otherwise MaxAbs(a) / 127 and
// MaxAbs(b) / 255 (the int8 and uint8 maxima, MXNet's S8U8 form).
inline float ProductRangeMax(float min_a, float max_a, float min_b, float max_b, bool all_sign) {
  const float level_a = MaxAbs(min_a, max_a) / 127.f;
  const float level_b = MaxAbs(min_b, max_b) / (all_sign ? 127.f : 255.f);
  return level_a * level_b * kInt32Range;
}

}  // namespace quant
}  // namespace weft

#endif  // WEFT_QUANTIZATION_H_
