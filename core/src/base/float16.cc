// Bulk float16/bfloat16 <-> float conversions (weft/float16.h): F16C and
// AVX512-BF16 instructions where the CPU has them (checked once), the
// scalar conversions otherwise. Both paths round to nearest even; only
// float subnormals (below 1.2e-38) differ: AVX512-BF16 flushes them to
// zero, the scalar path keeps them.
#include "weft/float16.h"

#ifdef __x86_64__
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace weft {

namespace {

#ifdef __x86_64__
// The OS saves the register state of XCR0's `mask` bits (XGETBV).
bool OsSaves(uint32_t mask) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return false;  // OSXSAVE
  uint32_t lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & mask) == mask;
}

// F16C (CPUID.1:ECX bits 29, 28 = AVX) with the AVX state saved.
bool DetectF16C() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  return (c & (1u << 29)) && (c & (1u << 28)) && OsSaves(0x6);
}

// AVX512F and AVX512BW (CPUID.7.0:EBX bits 16, 30) and AVX512_BF16
// (CPUID.7.1:EAX bit 5), with the AVX-512 state saved.
bool DetectBF16() {
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 16)) || !(b & (1u << 30)))
    return false;
  if (a < 1 || !__get_cpuid_count(7, 1, &a, &b, &c, &d) || !(a & (1u << 5))) return false;
  return OsSaves(0xe6);
}

const bool kHasF16C = DetectF16C();
const bool kHasBF16 = DetectBF16();

__attribute__((target("avx,f16c"))) size_t HalfToFloatF16C(const Half* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
    _mm256_storeu_ps(y + i, _mm256_cvtph_ps(h));
  }
  return i;
}

__attribute__((target("avx,f16c"))) size_t FloatToHalfF16C(const float* x, Half* y, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), h);
  }
  return i;
}

__attribute__((target("avx512f,avx512bw,avx512bf16"))) size_t FloatToBFloat16Avx512(const float* x,
                                                                                    BFloat16* y,
                                                                                    size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256bh b = _mm512_cvtneps_pbh(_mm512_loadu_ps(x + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), reinterpret_cast<const __m256i&>(b));
  }
  return i;
}
#endif

}  // namespace

void HalfToFloat(const Half* x, float* y, size_t n) {
  size_t i = 0;
#ifdef __x86_64__
  if (kHasF16C) i = HalfToFloatF16C(x, y, n);
#endif
  for (; i < n; ++i) y[i] = ToFloat(x[i]);
}

void FloatToHalf(const float* x, Half* y, size_t n) {
  size_t i = 0;
#ifdef __x86_64__
  if (kHasF16C) i = FloatToHalfF16C(x, y, n);
#endif
  for (; i < n; ++i) y[i] = ToHalf(x[i]);
}

// A shift per element: the compiler vectorises it on every CPU.
void BFloat16ToFloat(const BFloat16* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = ToFloat(x[i]);
}

void FloatToBFloat16(const float* x, BFloat16* y, size_t n) {
  size_t i = 0;
#ifdef __x86_64__
  if (kHasBF16) i = FloatToBFloat16Avx512(x, y, n);
#endif
  for (; i < n; ++i) y[i] = ToBFloat16(x[i]);
}

}  // namespace weft
