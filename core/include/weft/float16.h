// The two reduced-precision float types, stored as their bit patterns:
// IEEE binary16 (float16, weft::Half, MXNet dtype 2) and bfloat16
// (weft::BFloat16, the upper half of a binary32; MXNet dtype 12). Neither
// has arithmetic of its own: values convert to float, are computed, and are
// rounded back (to nearest even). Stateless.
#ifndef WEFT_FLOAT16_H_
#define WEFT_FLOAT16_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace weft {

struct Half {
  uint16_t bits;
};

struct BFloat16 {
  uint16_t bits;
};

// True for Half and BFloat16.
template <typename T>
constexpr bool kIsReducedFloat = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

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

// binary32 -> bfloat16 bits, round to nearest even on the dropped 16 bits
// (overflow rounds to infinity); NaN stays a quiet NaN with its sign.
inline uint16_t FloatToBFloat16Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof(x));
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

// bfloat16 bits -> binary32 (exact).
inline float BFloat16BitsToFloat(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, sizeof(f));
  return f;
}

inline float ToFloat(Half h) { return HalfBitsToFloat(h.bits); }
inline float ToFloat(BFloat16 b) { return BFloat16BitsToFloat(b.bits); }
inline Half ToHalf(float f) { return Half{FloatToHalfBits(f)}; }
inline BFloat16 ToBFloat16(float f) { return BFloat16{FloatToBFloat16Bits(f)}; }

// `v` as a double, for every element type (a reduced float converts exactly).
template <typename T>
double ToDouble(T v) {
  if constexpr (kIsReducedFloat<T>) {
    return ToFloat(v);
  } else {
    return static_cast<double>(v);
  }
}

// `v` converted to T; a reduced float rounds through float.
template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, Half>) {
    return ToHalf(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return ToBFloat16(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// Bulk conversions between float and a reduced float array (`n` elements),
// vectorised where the CPU has F16C / AVX512-BF16.
void HalfToFloat(const Half* x, float* y, size_t n);
void FloatToHalf(const float* x, Half* y, size_t n);
void BFloat16ToFloat(const BFloat16* x, float* y, size_t n);
void FloatToBFloat16(const float* x, BFloat16* y, size_t n);

}  // namespace weft

#endif  // WEFT_FLOAT16_H_
