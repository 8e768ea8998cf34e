// Branch-free float exp, erf, logistic and tanh that loops can vectorise
// (the C library's calls cannot be), for the softmax family (nn_softmax.h),
// GELU (nn_activation.cc) and the LSTM sweep (nn_lstm_gemv.cc). float64 overloads keep the C
// library's functions, so gradient checks in double see their accuracy. Files calling them in loops
// are compiled with -O3 -fno-math-errno -fno-trapping-math (CMakeLists.txt).
#ifndef WEFT_KERNELS_CPU_FAST_MATH_H_
#define WEFT_KERNELS_CPU_FAST_MATH_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace weft {
namespace cpu {

// exp(x) in float to about 1 ulp for x in [-87.3, 88.3], clamped outside
// (so exp of very negative inputs is ~1e-38, not 0), branch-free so loops
// calling it vectorise: x = n ln2 + r with |r| <= ln2/2 (Cody-Waite split of
// ln2), exp(r) by its degree-7 Taylor polynomial (truncation < 1e-8
// relative), times 2^n built in the exponent bits. NaN in gives NaN out.
inline float FastExp(float x) {
  x = x < -87.3f ? -87.3f : x;
  x = x > 88.3f ? 88.3f : x;
  const float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float t = x * 1.44269504088896341f;
  const float n = (t + kRound) - kRound;
  const float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}
// float64 keeps the library exp (gradient checks need its accuracy).
inline double FastExp(double x) { return std::exp(x); }

// erf(x) in float to within 1.5e-7 absolute (Abramowitz and Stegun 7.1.26:
// 1 - t (a1 + t (a2 + ...)) exp(-x^2) with t = 1 / (1 + p |x|), sign of x).
inline float FastErf(float x) {
  const float a = std::fabs(x);
  const float t = 1.0f / (1.0f + 0.3275911f * a);
  float p = 1.061405429f;
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  return std::copysign(1.0f - p * t * FastExp(-a * a), x);
}
inline double FastErf(double x) { return std::erf(x); }

// The logistic function and tanh from FastExp (float; absolute error
// about 1e-7: tanh as 1 - 2 / (1 + exp(2x)) loses relative accuracy, not
// absolute, near 0). Saturate to 0 / 1 and -1 / 1 far from 0.
inline float FastSigmoid(float x) { return 1.0f / (1.0f + FastExp(-x)); }
inline float FastTanh(float x) { return 1.0f - 2.0f / (1.0f + FastExp(2.0f * x)); }

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_FAST_MATH_H_
