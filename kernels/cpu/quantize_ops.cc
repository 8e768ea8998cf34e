// CPU kernels of _contrib_quantize_v2, _contrib_quantize,
// _contrib_dequantize and _contrib_requantize (semantics in
// core/src/op/quantize_ops.cc and weft/quantization.h).
#include <cstring>

#include "cpu/cpu_util.h"
#include "cpu/quantized_params.h"
#include "weft/op.h"
#include "weft/quantization.h"

namespace weft {
namespace cpu {

namespace {

using quant::MaxAbs;
using quant::SaturateRound;

// y[i] = sat(rne(x[i] * scale)), in parallel and SIMD (SaturateRound is
// branch-free for bytes; a per-index closure kept this loop scalar).
template <typename T>
void QuantizeLoop(const float* x, int64_t n, float scale, T* y) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelGrain)
  for (int64_t i = 0; i < n; ++i) y[i] = SaturateRound<T>(x[i] * scale);
}

// Writes q = sat(rne(x * scale)) into `out` (int8 or uint8).
void QuantizeInto(const float* x, int64_t n, float scale, const TBlob& out) {
  if (out.dtype == DType::kUint8)
    QuantizeLoop(x, n, scale, out.data<uint8_t>());
  else
    QuantizeLoop(x, n, scale, out.data<int8_t>());
}

void SetRange(const std::vector<TBlob>& out, float lo, float hi) {
  out[1].data<float>()[0] = lo;
  out[2].data<float>()[0] = hi;
}

// Quantized data given to quantize_v2: copied, with the calibration range or
// the dtype's own.
void PassThrough(const NodeAttrs& attrs, const TBlob& in, const std::vector<TBlob>& out) {
  if (in.dtype != out[0].dtype)
    Fail(StatusCode::kDType, "operator _contrib_quantize_v2 (node '", attrs.name,
         "'): ", DTypeName(in.dtype), " data cannot pass through to a ", DTypeName(out[0].dtype),
         " output (set out_type to ", DTypeName(in.dtype), ")");
  if (in.dptr != out[0].dptr) std::memcpy(out[0].dptr, in.dptr, in.Bytes());
  const QuantParams& p = attrs.params.Decoded<QuantParams>();
  if (p.calibrated) {
    SetRange(out, p.min_calib, p.max_calib);
  } else if (in.dtype == DType::kUint8) {
    SetRange(out, 0.f, quant::kUint8Range);
  } else {
    SetRange(out, -quant::kInt8Range, quant::kInt8Range);
  }
}

void QuantizeV2Cpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  if (in[0].dtype != DType::kFloat32) return PassThrough(attrs, in[0], out);
  const QuantParams& p = attrs.params.Decoded<QuantParams>();
  const float* x = in[0].data<float>();
  const int64_t n = in[0].Size();
  float lo = 0.f, hi = 0.f;
  if (p.calibrated) {
    lo = p.min_calib;
    hi = p.max_calib;
  } else if (n > 0) {
    lo = hi = x[0];
    for (int64_t i = 1; i < n; ++i) {
      lo = std::min(lo, x[i]);
      hi = std::max(hi, x[i]);
    }
  }
  const DType t = out[0].dtype;
  if (t == DType::kInt8) {
    SetRange(out, -MaxAbs(lo, hi), MaxAbs(lo, hi));
  } else {
    SetRange(out, lo, hi);
  }
  QuantizeInto(x, n, quant::QuantizeScale(t, lo, hi), out[0]);
}

void QuantizeCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                 const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const float lo = in[1].data<float>()[0], hi = in[2].data<float>()[0];
  const float r = MaxAbs(lo, hi);
  if (out[0].dtype == DType::kUint8) {
    SetRange(out, lo, hi);
    QuantizeInto(in[0].data<float>(), in[0].Size(), 255.f / r, out[0]);
  } else {
    SetRange(out, -r, r);
    QuantizeInto(in[0].data<float>(), in[0].Size(), 127.f / r, out[0]);
  }
}

void DequantizeCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                   const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const float r = MaxAbs(in[1].data<float>()[0], in[2].data<float>()[0]);
  const float scale = r / quant::QuantizedRange(in[0].dtype);
  float* y = out[0].data<float>();
  const int64_t n = in[0].Size();
  if (in[0].dtype == DType::kUint8) {
    const uint8_t* q = in[0].data<uint8_t>();
    ParallelFor(n, [&](int64_t i) { y[i] = static_cast<float>(q[i]) * scale; });
  } else {
    const int8_t* q = in[0].data<int8_t>();
    ParallelFor(n, [&](int64_t i) { y[i] = static_cast<float>(q[i]) * scale; });
  }
}

void RequantizeCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const QuantParams& p = attrs.params.Decoded<QuantParams>();
  const int32_t* q = in[0].data<int32_t>();
  const int64_t n = in[0].Size();
  const float in_real = MaxAbs(in[1].data<float>()[0], in[2].data<float>()[0]);
  float real = 0.f;
  if (p.calibrated) {
    real = MaxAbs(p.min_calib, p.max_calib);
  } else {
    int64_t amax = 0;
    for (int64_t i = 0; i < n; ++i) amax = std::max<int64_t>(amax, std::abs(int64_t{q[i]}));
    real = static_cast<float>(amax) * in_real / quant::kInt32Range;
  }
  const bool u8 = out[0].dtype == DType::kUint8;
  SetRange(out, u8 ? 0.f : -real, real);
  const float scale = (in_real / quant::kInt32Range) * ((u8 ? 255.f : 127.f) / real);
  std::vector<float> x(static_cast<size_t>(n));
  ParallelFor(n, [&](int64_t i) { x[i] = static_cast<float>(q[i]); });
  QuantizeInto(x.data(), n, scale, out[0]);
}

}  // namespace

void RegisterQuantizeOpsCpu(KernelRegistry* reg) {
  reg->Add("_contrib_quantize_v2", DeviceType::kCPU, {"cpu", 0, QuantizeV2Cpu});
  reg->Add("_contrib_quantize", DeviceType::kCPU, {"cpu", 0, QuantizeCpu});
  reg->Add("_contrib_dequantize", DeviceType::kCPU, {"cpu", 0, DequantizeCpu});
  reg->Add("_contrib_requantize", DeviceType::kCPU, {"cpu", 0, RequantizeCpu});
}

}  // namespace cpu
}  // namespace weft
