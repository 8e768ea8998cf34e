// float16 and bfloat16 in the CUDA kernels: the device type of each float
// dtype and the type its arithmetic runs in. A reduced float is read as
// float (exactly), computed in float and rounded once to nearest even when
// stored (cuda_fp16/cuda_bf16's conversions), which is what the CPU's
// float32 fallback computes for the same op (pass::RunInFloat32).
#ifndef WEFT_KERNELS_CUDA_REDUCED_FLOAT_CUH_
#define WEFT_KERNELS_CUDA_REDUCED_FLOAT_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "weft/dtype.h"
#include "weft/op.h"

namespace weft {
namespace cuda {

// The arithmetic type of device element type T: float for __half and
// __nv_bfloat16, T itself otherwise.
template <typename T>
using Acc =
    std::conditional_t<std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, float, T>;

// The device element type of a host dtype tag (weft::Half -> __half,
// weft::BFloat16 -> __nv_bfloat16, others unchanged).
template <typename T>
using DeviceElem =
    std::conditional_t<std::is_same_v<T, Half>, __half,
                       std::conditional_t<std::is_same_v<T, BFloat16>, __nv_bfloat16, T>>;

// v stored as T (a reduced float rounds to nearest even).
template <typename T, typename V>
__host__ __device__ inline T StoreAs(V v) {
  return static_cast<T>(static_cast<Acc<T>>(v));
}

// v stored into *dst under request `req` (an OpReq as int): kWrite and
// kInplace store it, kAdd adds it (a reduced float in float, rounded once),
// kNull leaves *dst.
template <typename T>
__device__ inline void StoreReq(int req, T* dst, Acc<T> v) {
  if (req == static_cast<int>(OpReq::kAdd))
    *dst = StoreAs<T>(static_cast<Acc<T>>(*dst) + v);
  else if (req != static_cast<int>(OpReq::kNull))
    *dst = StoreAs<T>(v);
}

// Calls f(T{}) with the device element type of float32, float64, float16
// (__half) or bfloat16 (__nv_bfloat16); other dtypes fail naming `op`.
template <typename F>
auto DispatchDeviceFloat(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::kFloat32:
      return f(float{});
    case DType::kFloat64:
      return f(double{});
    case DType::kFloat16:
      return f(__half{});
    case DType::kBFloat16:
      return f(__nv_bfloat16{});
    default:
      Fail(StatusCode::kDType, "operator ", op, ": dtype ", DTypeName(t),
           " is not supported (expected float32, float64, float16 or bfloat16)");
  }
}

}  // namespace cuda
}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_REDUCED_FLOAT_CUH_
