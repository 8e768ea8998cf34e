// CPU kernels of _zeros, _ones, _full, zeros_like and ones_like for every
// dtype. float16 outputs get the IEEE half bit pattern of the value,
// rounded to nearest even; req=add is supported for every dtype but float16.
#include <cstring>
#include <limits>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// IEEE binary32 -> binary16 bits, round to nearest even; overflow gives
// infinity, NaN stays a (quiet) NaN with the sign kept.
uint16_t FloatToHalfBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof(x));
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  const uint32_t e = abs >> 23;  // biased float exponent
  const uint32_t mant = abs & 0x7fffffu;
  if (e == 0xff) return sign | (mant ? 0x7e00u : 0x7c00u);  // NaN or infinity
  if (e >= 143) return sign | 0x7c00u;                      // >= 2^16: infinity
  uint32_t bits, rem, halfway;
  if (e >= 113) {  // normal half: exponent e - 112
    bits = ((e - 112) << 10) | (mant >> 13);
    rem = mant & 0x1fffu;
    halfway = 0x1000u;
  } else {                     // subnormal half (or zero): value / 2^-24
    if (e < 102) return sign;  // below 2^-25: rounds to zero
    const uint32_t full = mant | 0x800000u;
    const uint32_t shift = 126 - e;  // 14..24
    bits = full >> shift;
    rem = full & ((1u << shift) - 1);
    halfway = 1u << (shift - 1);
  }
  if (rem > halfway || (rem == halfway && (bits & 1u))) ++bits;  // may carry into the exponent
  return static_cast<uint16_t>(sign | bits);
}

// Writes `value` into every element of `out` under `req`.
void Fill(const char* op, double value, OpReq req, const TBlob& out) {
  if (req == OpReq::kNull) return;
  const int64_t n = out.Size();
  DispatchDType(out.dtype, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same<T, Half>::value) {
      if (req == OpReq::kAdd)
        Fail(StatusCode::kDType, "operator ", op, ": req=add is not supported for float16 outputs");
      const uint16_t bits = FloatToHalfBits(static_cast<float>(value));
      Half* p = out.data<Half>();
      ParallelFor(n, [&](int64_t i) { p[i].bits = bits; });
    } else {
      if constexpr (std::is_integral<T>::value) {
        if (!(value >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
              value <= static_cast<double>(std::numeric_limits<T>::max())))
          Fail(StatusCode::kInvalidArgument, "operator ", op, ": value ", value,
               " is not representable in dtype ", DTypeName(out.dtype));
      }
      const T v = static_cast<T>(value);
      T* p = out.data<T>();
      ParallelFor(n, [&](int64_t i) { Store(req, &p[i], v); });
    }
  });
}

void Zeros(const OpContext&, const NodeAttrs&, const std::vector<TBlob>&,
           const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Fill("_zeros", 0, req[0], out[0]);
}
void Ones(const OpContext&, const NodeAttrs&, const std::vector<TBlob>&,
          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Fill("_ones", 1, req[0], out[0]);
}

void Full(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>&,
          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Fill("_full", attrs.params.Decoded<FullParams>().value, req[0], out[0]);
}
void ZerosLike(const OpContext&, const NodeAttrs&, const std::vector<TBlob>&,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Fill("zeros_like", 0, req[0], out[0]);
}
void OnesLike(const OpContext&, const NodeAttrs&, const std::vector<TBlob>&,
              const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Fill("ones_like", 1, req[0], out[0]);
}

}  // namespace

void RegisterInitCpu(KernelRegistry* reg) {
  reg->Add("_zeros", DeviceType::kCPU, {"cpu", 0, Zeros, true});
  reg->Add("_ones", DeviceType::kCPU, {"cpu", 0, Ones, true});
  reg->Add("_full", DeviceType::kCPU, {"cpu", 0, Full, true});
  reg->Add("zeros_like", DeviceType::kCPU, {"cpu", 0, ZerosLike, true});
  reg->Add("ones_like", DeviceType::kCPU, {"cpu", 0, OnesLike, true});
}

}  // namespace cpu
}  // namespace weft
