// Kernel factories shared by the CPU elementwise families (unary, unary
// math, same-shape binary, scalar, comparisons, broadcast): each turns a
// generic lambda into a float32/float64 Kernel (also int32/int64/int8/uint8
// when kInts, for ops MXNet runs on integers) honouring
// kNull/kWrite/kInplace/kAdd that tolerates outputs aliasing inputs (every
// element's inputs are read before its outputs are written).
#ifndef WEFT_KERNELS_CPU_ELEMWISE_KERNELS_H_
#define WEFT_KERNELS_CPU_ELEMWISE_KERNELS_H_

#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

// Calls f(T{}) for float32/float64 and, when kInts, int32/int64/int8/uint8;
// other dtypes fail with Error(kDType) naming `op`.
template <bool kInts, typename F>
void DispatchElemwise(DType t, const char* op, F&& f) {
  if constexpr (kInts) {
    switch (t) {
      case DType::kInt32:
        return f(int32_t{});
      case DType::kInt64:
        return f(int64_t{});
      case DType::kInt8:
        return f(int8_t{});
      case DType::kUint8:
        return f(uint8_t{});
      case DType::kFloat32:
      case DType::kFloat64:
        break;
      default:
        Fail(StatusCode::kDType, "operator ", op, ": dtype ", DTypeName(t),
             " is not supported (expected float32, float64, int32, int64, int8 or uint8)");
    }
  }
  DispatchFloat(t, op, f);
}

// The integer value nearest `v` in T: NaN gives 0 and values beyond T's
// range saturate (a plain conversion is undefined there).
template <typename T>
T FloatToInt(float v) {
  if (v != v) return T(0);
  if (v <= static_cast<float>(std::numeric_limits<T>::lowest()))
    return std::numeric_limits<T>::lowest();
  if (v >= static_cast<float>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

// A float math function `f` (generic over its arguments) extended to the
// integer dtypes as MXNet's math functions run them: the arguments
// converted to float32, the result converted back toward zero (FloatToInt).
template <typename F>
auto ViaFloat(F f) {
  return [f](auto x, auto... rest) {
    using T = decltype(x);
    if constexpr (std::is_integral<T>::value)
      return FloatToInt<T>(
          static_cast<float>(f(static_cast<float>(x), static_cast<float>(rest)...)));
    else
      return f(x, rest...);
  };
}

// out = f(data), f a generic lambda T -> T.
template <bool kInts = false, typename F>
Kernel UnaryKernel(const char* name, F f) {
  KernelFn fn = [name, f](const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    DispatchElemwise<kInts>(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      const T* x = in[0].data<T>();
      Map(req[0], x, x, out[0].data<T>(), out[0].Size(), [f](T v, T) { return f(v); });
    });
  };
  return {"cpu", 0, fn, true};
}

// out = f(in0, in1) on same-shape inputs, f a generic lambda (T, T) -> T:
// binary ops (lhs, rhs) and unary gradients (ograd, x or y).
template <bool kInts = false, typename F>
Kernel BinaryKernel(const char* name, F f) {
  KernelFn fn = [name, f](const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    DispatchElemwise<kInts>(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      Map(req[0], in[0].data<T>(), in[1].data<T>(), out[0].data<T>(), out[0].Size(), f);
    });
  };
  return {"cpu", 0, fn, true};
}

// Same-shape binary gradient on (ograd, lhs, rhs): lhs_grad = fl(g, l, r),
// rhs_grad = fr(g, l, r).
template <typename FL, typename FR>
Kernel BinaryBackwardKernel(const char* name, FL fl, FR fr) {
  KernelFn fn = [name, fl, fr](const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    DispatchFloat(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      const T* g = in[0].data<T>();
      const T* l = in[1].data<T>();
      const T* r = in[2].data<T>();
      T* dl = out[0].data<T>();
      T* dr = out[1].data<T>();
      const OpReq ql = req[0], qr = req[1];
      ParallelFor(out[0].Size(), [&](int64_t i) {
        const T gi = g[i], li = l[i], ri = r[i];
        Store(ql, &dl[i], static_cast<T>(fl(gi, li, ri)));
        Store(qr, &dr[i], static_cast<T>(fr(gi, li, ri)));
      });
    });
  };
  return {"cpu", 0, fn, true};
}

// out = f(data, s), s the `scalar` parameter cast to T (as MXNet does).
// Integer data (kInts) needs is_int=True: MXNet gives float64 otherwise.
template <bool kInts = false, typename F>
Kernel ScalarKernel(const char* name, F f) {
  KernelFn fn = [name, f](const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    const ScalarOperand& so = attrs.params.Decoded<ScalarOperand>();
    const double scalar = so.scalar;
    DispatchElemwise<kInts>(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      if (std::is_integral<T>::value && !so.is_int)
        Fail(StatusCode::kDType, "operator ", name, ": ", DTypeName(in[0].dtype),
             " data with is_int=False (a float64 result in MXNet) is not supported");
      const T s = static_cast<T>(scalar);
      const T* x = in[0].data<T>();
      Map(req[0], x, x, out[0].data<T>(), out[0].Size(), [f, s](T v, T) { return f(v, s); });
    });
  };
  return {"cpu", 0, fn, true};
}

// dx = f(ograd, v, s) with v the forward input or output.
template <typename F>
Kernel ScalarBackwardKernel(const char* name, F f) {
  KernelFn fn = [name, f](const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    const double scalar = attrs.params.Decoded<ScalarOperand>().scalar;
    DispatchFloat(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      const T s = static_cast<T>(scalar);
      Map(req[0], in[0].data<T>(), in[1].data<T>(), out[0].data<T>(), out[0].Size(),
          [f, s](T g, T x) { return f(g, x, s); });
    });
  };
  return {"cpu", 0, fn, true};
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_ELEMWISE_KERNELS_H_
