// IEEE binary16 (float16, weft::Half) conversions for the CPU kernels that
// read or write float16 arrays: the fills, Cast and the multi-precision
// optimizer updates. float16 has no arithmetic kernels of its own; values
// are converted to float, computed, and rounded back. Stateless.
#ifndef WEFT_KERNELS_CPU_HALF_H_
#define WEFT_KERNELS_CPU_HALF_H_

#include <cstdint>
#include <cstring>

#include "weft/dtype.h"

namespace weft {
namespace cpu {

// IEEE binary32 -> binary16 bits, round to nearest even; overflow gives
// infinity, NaN stays a (quiet) NaN with the sign kept.
inline uint16_t FloatToHalfBits(float f) {
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

// IEEE binary16 bits -> binary32 (exact: every half is a float).
inline float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t x;
  if (e == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);  // infinity or NaN
  } else if (e != 0) {
    x = sign | ((e + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    x = sign;  // signed zero
  } else {     // subnormal: normalise
    uint32_t exp = 113;
    while (!(mant & 0x400u)) {
      mant <<= 1;
      --exp;
    }
    x = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &x, sizeof(f));
  return f;
}

inline float ToFloat(Half h) { return HalfBitsToFloat(h.bits); }
inline Half ToHalf(float f) { return Half{FloatToHalfBits(f)}; }

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_HALF_H_
