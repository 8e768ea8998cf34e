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
//
// QuantParams is the quantized operators' parameters decoded once per node
// (ParamValues::Decoded<quant::QuantParams>()): the op definitions' shape and
// type inference and the kernels read the same fields.
#ifndef WEFT_QUANTIZATION_H_
#define WEFT_QUANTIZATION_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "weft/dtype.h"
#include "weft/param.h"

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

// The parameters of every quantized operator (MXNet's names), each field
// read only where the op declares it. `calibrated`: min_calib_range and
// max_calib_range both given (not "None").
struct QuantParams {
  bool calibrated = false;
  float min_calib = 0.f, max_calib = 0.f;
  bool no_bias = false, enable_float_output = false, fix_gamma = false;
  bool quantized = false, with_sum = false, with_act = false, channel_wise = false;
  int64_t num_args = 0, dim = 0, axis = 1;
  double eps = 0;
  float a_min = 0, a_max = 0, slope = 0.25f;  // clip's bounds, LeakyReLU's slope
  std::string act_type;

  static QuantParams Decode(const ParamValues& p) {
    QuantParams q;
    if (p.Has("min_calib_range") && !p.IsNone("min_calib_range") && !p.IsNone("max_calib_range")) {
      q.calibrated = true;
      q.min_calib = static_cast<float>(p.GetFloat("min_calib_range"));
      q.max_calib = static_cast<float>(p.GetFloat("max_calib_range"));
    }
    if (p.Has("no_bias")) q.no_bias = p.GetBool("no_bias");
    if (p.Has("enable_float_output")) q.enable_float_output = p.GetBool("enable_float_output");
    if (p.Has("fix_gamma")) q.fix_gamma = p.GetBool("fix_gamma");
    if (p.Has("quantized")) q.quantized = p.GetBool("quantized");
    if (p.Has("channel_wise_quantize") && !p.IsNone("channel_wise_quantize"))
      q.channel_wise = p.GetBool("channel_wise_quantize");
    if (p.Has("with_sum")) q.with_sum = p.GetBool("with_sum");
    if (p.Has("with_act")) q.with_act = p.GetBool("with_act") || p.GetBool("with_relu");
    if (p.Has("num_args")) q.num_args = p.GetInt("num_args");
    if (p.Has("dim")) q.dim = p.GetInt("dim");
    if (p.Has("axis")) q.axis = p.GetInt("axis");
    if (p.Has("eps")) q.eps = p.GetFloat("eps");
    if (p.Has("act_type")) q.act_type = p.GetString("act_type");
    if (p.Has("a_min")) q.a_min = static_cast<float>(p.GetFloat("a_min"));
    if (p.Has("a_max")) q.a_max = static_cast<float>(p.GetFloat("a_max"));
    if (p.Has("slope")) q.slope = static_cast<float>(p.GetFloat("slope"));
    return q;
  }
};

}  // namespace quant
}  // namespace weft

#endif  // WEFT_QUANTIZATION_H_
