// CPU kernels of _contrib_quantized_elemwise_add, _elemwise_mul,
// _batch_norm and _embedding (semantics in core/src/op/quantized_elemwise.cc
// and quantized_nn.cc), following MXNet 1.9.1's CPU kernels:
// - add: each operand scaled into the output's levels in float and summed,
//   rounded and saturated; with calibration and mixed int8/uint8 operands
//   the uint8 one is first rescaled into int8 (saturating), as MXNet's
//   reorder does. Uncalibrated mixed operands are summed in float (MXNet
//   saturates that intermediate to int8, which loses the int32 range).
// - mul: the level product times the scale, truncated toward zero (MXNet's
//   static_cast), saturated to int8 where MXNet's cast is undefined.
// - batch_norm: oneDNN's inference normalisation with the statistics folded
//   into the scale and shift (mean 0, variance 1, so it divides by
//   sqrt(1 + eps) once more, as MXNet's kernel does) and gamma used as given
//   (fix_gamma is not applied, as in MXNet's quantized kernel).
#include <cmath>

#include "cpu/cpu_util.h"
#include "cpu/quantized_params.h"
#include "cpu/index_util.h"
#include "weft/op.h"
#include "weft/quantization.h"

namespace weft {
namespace cpu {

namespace {

using quant::MaxAbs;
using quant::SaturateRound;

float Level(const TBlob& b, int64_t i) {
  return b.dtype == DType::kUint8 ? static_cast<float>(b.data<uint8_t>()[i])
                                  : static_cast<float>(b.data<int8_t>()[i]);
}

template <typename TO>
void StoreRounded(const std::vector<float>& v, const TBlob& out) {
  TO* y = out.data<TO>();
  ParallelFor(out.Size(), [&](int64_t i) { y[i] = SaturateRound<TO>(v[i]); });
}

void QuantizedAddCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const float a_scale = quant::QuantizeScale(in[0].dtype, Scalar(in[2]), Scalar(in[3]));
  const float b_scale = quant::QuantizeScale(in[1].dtype, Scalar(in[4]), Scalar(in[5]));
  const QuantParams& p = attrs.params.Decoded<QuantParams>();
  const bool calib = p.calibrated;
  float lo, hi, out_scale;
  if (calib) {
    lo = p.min_calib;
    hi = p.max_calib;
    out_scale = quant::QuantizedRange(out[0].dtype) / MaxAbs(lo, hi);
  } else {
    hi = MaxAbs(Scalar(in[2]), Scalar(in[3])) + MaxAbs(Scalar(in[4]), Scalar(in[5]));
    lo = -hi;
    out_scale = quant::kInt32Range / hi;
  }
  const float sa = out_scale / a_scale, sb = out_scale / b_scale;
  const bool mixed = calib && in[0].dtype != in[1].dtype;
  const bool a_u8 = in[0].dtype == DType::kUint8;
  const int64_t n = out[0].Size();
  std::vector<float> v(static_cast<size_t>(n));
  ParallelFor(n, [&](int64_t i) {
    const float a = Level(in[0], i), b = Level(in[1], i);
    if (!mixed) {
      v[i] = a * sa + b * sb;
    } else if (a_u8) {
      v[i] = static_cast<float>(SaturateRound<int8_t>(a * sa)) + b * sb;
    } else {
      v[i] = a * sa + static_cast<float>(SaturateRound<int8_t>(b * sb));
    }
  });
  if (out[0].dtype == DType::kInt32)
    StoreRounded<int32_t>(v, out[0]);
  else if (out[0].dtype == DType::kUint8)
    StoreRounded<uint8_t>(v, out[0]);
  else
    StoreRounded<int8_t>(v, out[0]);
  out[1].data<float>()[0] = lo;
  out[2].data<float>()[0] = hi;
}

void QuantizedMulCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const float lmin = Scalar(in[2]), lmax = Scalar(in[3]), rmin = Scalar(in[4]),
              rmax = Scalar(in[5]);
  const float lhs_scale = quant::kInt8Range / MaxAbs(lmin, lmax);
  const float rhs_scale = quant::kInt8Range / MaxAbs(rmin, rmax);
  const int8_t* a = in[0].data<int8_t>();
  const int8_t* b = in[1].data<int8_t>();
  const int64_t n = out[0].Size();
  const QuantParams& p = attrs.params.Decoded<QuantParams>();
  if (p.enable_float_output) {
    const float s = static_cast<float>(1.0 / lhs_scale / rhs_scale);
    float* y = out[0].data<float>();
    ParallelFor(n, [&](int64_t i) { y[i] = static_cast<float>(a[i] * b[i]) * s; });
    return;
  }
  if (p.calibrated) {
    const float lo = p.min_calib, hi = p.max_calib;
    const float s = quant::kInt8Range / MaxAbs(lo, hi) / lhs_scale / rhs_scale;
    int8_t* y = out[0].data<int8_t>();
    ParallelFor(n, [&](int64_t i) {
      const float v = std::trunc(static_cast<float>(a[i] * b[i]) * s);
      y[i] = static_cast<int8_t>(std::min(127.f, std::max(-128.f, v)));
    });
    out[1].data<float>()[0] = lo;
    out[2].data<float>()[0] = hi;
    return;
  }
  int32_t* y = out[0].data<int32_t>();
  ParallelFor(n, [&](int64_t i) { y[i] = int32_t{a[i]} * int32_t{b[i]}; });
  const float m = quant::ProductRangeMax(lmin, lmax, rmin, rmax, true);
  out[1].data<float>()[0] = -m;
  out[2].data<float>()[0] = m;
}

void QuantizedBatchNormCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                           const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const QuantParams& p = attrs.params.Decoded<QuantParams>();
  if (!p.calibrated)
    Fail(StatusCode::kInvalidArgument, "operator _contrib_quantized_batch_norm (node '", attrs.name,
         "'): min_calib_range and max_calib_range are required (uncalibrated quantized "
         "BatchNorm is not supported, as in MXNet)");
  const float lo = p.min_calib, hi = p.max_calib;
  const float max_abs_out = MaxAbs(lo, hi);
  const float max_abs_data = MaxAbs(Scalar(in[5]), Scalar(in[6]));
  const float eps = static_cast<float>(p.eps);
  const Shape& s = in[0].shape;
  int64_t axis = p.axis;
  if (axis < 0) axis += s.ndim();
  const int64_t c = s[axis];
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < s.ndim(); ++d) inner *= s[d];
  const float* gamma = in[1].data<float>();
  const float* beta = in[2].data<float>();
  const float* mean = in[3].data<float>();
  const float* var = in[4].data<float>();
  std::vector<float> w(static_cast<size_t>(c)), b(static_cast<size_t>(c));
  const float unit = 1.f / std::sqrt(1.f + eps);
  for (int64_t k = 0; k < c; ++k) {
    const float invstd = static_cast<float>(1.0 / std::sqrt(var[k] + eps));
    w[k] = gamma[k] * invstd * max_abs_data / max_abs_out;
    b[k] = (beta[k] - mean[k] * gamma[k] * invstd) * quant::kInt8Range / max_abs_out;
  }
  const bool u8 = in[0].dtype == DType::kUint8;
  const float to_s8 = quant::kInt8Range / quant::kUint8Range;
  int8_t* y = out[0].data<int8_t>();
  ParallelFor(in[0].Size(), [&](int64_t i) {
    const int64_t k = (i / inner) % c;
    float q = Level(in[0], i);
    if (u8) q = static_cast<float>(SaturateRound<int8_t>(q * to_s8));
    y[i] = SaturateRound<int8_t>(w[k] * (q * unit) + b[k]);
  });
  out[1].data<float>()[0] = lo;
  out[2].data<float>()[0] = hi;
}

void QuantizedEmbeddingCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                           const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const int64_t rows = in[1].shape[0], cols = in[1].shape[1];
  const int8_t* w = in[1].data<int8_t>();
  int8_t* y = out[0].data<int8_t>();
  DispatchNumeric(in[0].dtype, "_contrib_quantized_embedding", [&](auto t) {
    using I = decltype(t);
    const I* idx = in[0].data<I>();
    ParallelFor(in[0].Size(), [&](int64_t k) {
      const int64_t r = FixIndex(static_cast<double>(idx[k]), rows, false);
      for (int64_t j = 0; j < cols; ++j) y[k * cols + j] = w[r * cols + j];
    });
  });
  out[1].data<float>()[0] = Scalar(in[2]);
  out[2].data<float>()[0] = Scalar(in[3]);
}

}  // namespace

void RegisterQuantizedElemwiseCpu(KernelRegistry* reg) {
  reg->Add("_contrib_quantized_elemwise_add", DeviceType::kCPU, {"cpu", 0, QuantizedAddCpu});
  reg->Add("_contrib_quantized_elemwise_mul", DeviceType::kCPU, {"cpu", 0, QuantizedMulCpu});
  reg->Add("_contrib_quantized_batch_norm", DeviceType::kCPU, {"cpu", 0, QuantizedBatchNormCpu});
  reg->Add("_contrib_quantized_embedding", DeviceType::kCPU, {"cpu", 0, QuantizedEmbeddingCpu});
}

}  // namespace cpu
}  // namespace weft
