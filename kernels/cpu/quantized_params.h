// Parameters of the quantization kernels, decoded once per node
// (ParamValues::Decoded): one struct for every quantized op, each field read
// only where the op declares it.
#ifndef WEFT_KERNELS_CPU_QUANTIZED_PARAMS_H_
#define WEFT_KERNELS_CPU_QUANTIZED_PARAMS_H_

#include <cstdint>
#include <string>

#include "weft/blob.h"
#include "weft/param.h"

namespace weft {
namespace cpu {

// The value of a range input (a float32 array of one element).
inline float Scalar(const TBlob& b) { return b.data<float>()[0]; }

struct QuantParams {
  bool calibrated = false;  // min_calib_range and max_calib_range given
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

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_QUANTIZED_PARAMS_H_
