// Scalar math of the elementwise op families with MXNet 1.9's exact
// semantics (mshadow_op.h), shared by the same-shape, broadcast and scalar
// CPU kernels: NaN-propagating maximum/minimum, Python-style mod and its
// gradient, MXNet's rint and fix, sign, and the special functions digamma
// and erfinv (computed in double). All functions are pure and thread-safe.
#ifndef WEFT_KERNELS_CPU_ELEMWISE_MATH_H_
#define WEFT_KERNELS_CPU_ELEMWISE_MATH_H_

#include <cmath>
#include <limits>
#include <type_traits>

namespace weft {
namespace cpu {

// max(a, b), NaN when either is NaN (MXNet: a if a is NaN, else a > b ? a : b).
template <typename T>
inline T Maximum(T a, T b) {
  return a != a ? a : (a > b ? a : b);
}
template <typename T>
inline T Minimum(T a, T b) {
  return a != a ? a : (a < b ? a : b);
}

// a / b; for integers truncated towards zero as C++ and MXNet do, with 0
// for b = 0 (numpy's answer; MXNet's integer division traps) and the
// wrapped negation for b = -1 (no overflow trap on the minimum value).
template <typename T>
inline T Div(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    if (b == T(0)) return T(0);
    if constexpr (std::is_signed<T>::value) {
      using U = std::make_unsigned_t<T>;
      if (b == T(-1)) return static_cast<T>(U(0) - static_cast<U>(a));
    }
    return static_cast<T>(a / b);
  } else {
    return a / b;
  }
}

// f(a) for floating point; integers are already whole, so the rounding
// ops (floor, ceil, round, rint, fix, trunc) return them unchanged.
template <typename T, typename F>
inline T RoundOp(T a, F f) {
  if constexpr (std::is_integral<T>::value) {
    return a;
  } else {
    return f(a);
  }
}

// a mod b with the sign of b (Python's %), computed in double; 0 when b is 0.
inline double ModDouble(double a, double b) {
  if (b == 0) return 0;
  if (b < 0) {
    if (a < 0) return -std::fmod(-a, -b);
    const double m = std::fmod(a, -b);
    return m + (m != 0 ? b : 0);
  }
  if (a < 0) {
    const double m = std::fmod(-a, b);
    return -m + (m != 0 ? b : 0);
  }
  return std::fmod(a, b);
}
template <typename T>
inline T Mod(T a, T b) {
  return static_cast<T>(ModDouble(a, b));
}
// d(a mod b)/db = -floor(a / b), the quotient taken in T.
template <typename T>
inline T ModRhsGrad(T a, T b) {
  return -std::floor(a / b);
}

// -1, 0 or 1; 0 for NaN.
template <typename T>
inline T Sign(T a) {
  return a < T(0) ? T(-1) : (a > T(0) ? T(1) : T(0));
}
// MXNet's rint: the nearer of floor and ceil, floor on ties (rint(2.5) = 2,
// rint(-2.5) = -3).
template <typename T>
inline T Rint(T a) {
  const T f = std::floor(a), c = std::ceil(a);
  return (a - f) <= (c - a) ? f : c;
}
// Rounds towards zero through floor/ceil, as MXNet's fix.
template <typename T>
inline T Fix(T a) {
  const T f = std::floor(a), c = std::ceil(a);
  return (f > 0 ? f : -f) < (c > 0 ? c : -c) ? f : c;
}

// ln|gamma(x)| without touching the global signgam (thread-safe).
inline double LogGamma(double x) {
#if defined(__GLIBC__)
  int sign = 0;
  return ::lgamma_r(x, &sign);
#else
  return std::lgamma(x);
#endif
}

// The digamma function psi(x) = d ln|gamma(x)| / dx: reflection for x <= 0,
// recurrence up to x >= 6, then the asymptotic series. NaN at the poles.
inline double Digamma(double x) {
  if (std::isnan(x)) return x;
  double r = 0;
  if (x <= 0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
    r = -M_PI / std::tan(M_PI * x);
    x = 1 - x;
  }
  for (; x < 6; x += 1) r -= 1 / x;
  const double f = 1 / (x * x);
  const double series =
      f * (-1.0 / 12 +
           f * (1.0 / 120 +
                f * (-1.0 / 252 +
                     f * (1.0 / 240 + f * (-1.0 / 132 + f * (691.0 / 32760 + f * (-1.0 / 12)))))));
  return r + std::log(x) - 0.5 / x + series;
}

// The inverse error function: a rational first guess refined by two Newton
// steps on erf; +-inf at +-1, NaN outside [-1, 1].
inline double Erfinv(double y) {
  if (!(y >= -1 && y <= 1)) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1 || y == -1) return std::copysign(std::numeric_limits<double>::infinity(), y);
  const double a[4] = {0.886226899, -1.645349621, 0.914624893, -0.140543331};
  const double b[4] = {-2.118377725, 1.442710462, -0.329097515, 0.012229801};
  const double c[4] = {-1.970840454, -1.624906493, 3.429567803, 1.641345311};
  const double d[2] = {3.543889200, 1.637067800};
  double x;
  if (std::fabs(y) <= 0.7) {
    const double z = y * y;
    const double num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    const double den = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1;
    x = y * num / den;
  } else {
    const double z = std::sqrt(-std::log((1 - std::fabs(y)) / 2));
    const double num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    const double den = (d[1] * z + d[0]) * z + 1;
    x = std::copysign(num / den, y);
  }
  const double k = 2 / std::sqrt(M_PI);
  for (int i = 0; i < 2; ++i) x -= (std::erf(x) - y) / (k * std::exp(-x * x));
  return x;
}

// The names of one comparison in its three forms.
struct CompareNames {
  const char* elemwise;   // "_equal"
  const char* broadcast;  // "broadcast_equal"
  const char* scalar;     // "_equal_scalar"
};

// Calls add(names, f) for each comparison/logical op of MXNet, f a generic
// (T, T) -> T giving 0 or 1.
template <typename Add>
void ForEachCompare(Add add) {
  add({"_equal", "broadcast_equal", "_equal_scalar"},
      [](auto a, auto b) { return decltype(a)(a == b); });
  add({"_not_equal", "broadcast_not_equal", "_not_equal_scalar"},
      [](auto a, auto b) { return decltype(a)(a != b); });
  add({"_greater", "broadcast_greater", "_greater_scalar"},
      [](auto a, auto b) { return decltype(a)(a > b); });
  add({"_greater_equal", "broadcast_greater_equal", "_greater_equal_scalar"},
      [](auto a, auto b) { return decltype(a)(a >= b); });
  add({"_lesser", "broadcast_lesser", "_lesser_scalar"},
      [](auto a, auto b) { return decltype(a)(a < b); });
  add({"_lesser_equal", "broadcast_lesser_equal", "_lesser_equal_scalar"},
      [](auto a, auto b) { return decltype(a)(a <= b); });
  add({"_logical_and", "broadcast_logical_and", "_logical_and_scalar"}, [](auto a, auto b) {
    using T = decltype(a);
    return T(a != T(0) && b != T(0));
  });
  add({"_logical_or", "broadcast_logical_or", "_logical_or_scalar"}, [](auto a, auto b) {
    using T = decltype(a);
    return T(a != T(0) || b != T(0));
  });
  add({"_logical_xor", "broadcast_logical_xor", "_logical_xor_scalar"}, [](auto a, auto b) {
    using T = decltype(a);
    return T((a != T(0)) != (b != T(0)));
  });
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_ELEMWISE_MATH_H_
