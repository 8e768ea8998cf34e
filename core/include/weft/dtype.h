// DType: element types with MXNet's numeric codes, and the one dtype dispatch.
//
// The codes (0 float32 ... 6 int64, 12 bfloat16) are part of the C ABI
// and of MXNet's .params format. `DispatchDType` is the only template used for type
// dispatch: it calls `f(T{})` with the C++ type of the dtype. Stateless.
#ifndef WEFT_DTYPE_H_
#define WEFT_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "weft/float16.h"
#include "weft/status.h"

namespace weft {

enum class DType : int {
  kUnknown = -1,
  kFloat32 = 0,
  kFloat64 = 1,
  kFloat16 = 2,
  kUint8 = 3,
  kInt32 = 4,
  kInt8 = 5,
  kInt64 = 6,
  kBFloat16 = 12,
};

// Bytes per element; 0 for kUnknown.
size_t DTypeSize(DType t);
// "float32", ...; "unknown" for kUnknown or an invalid code.
const char* DTypeName(DType t);
// Parses a name ("float32") or a numeric code ("0"); throws Error(kDType).
DType ParseDType(const std::string& text);
// True for codes 0..6 and 12.
bool IsValidDType(int code);
// float16 or bfloat16: the dtypes most kernels compute in float32
// (Kernel::reduced_dtypes, pass::RunInFloat32).
inline bool IsReducedFloat(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }
// Every valid dtype, in code order.
extern const DType kAllDTypes[8];

// Calls f(T{}) for every dtype (float16 passes Half, bfloat16 BFloat16).
template <typename F>
auto DispatchDType(DType t, F&& f) {
  switch (t) {
    case DType::kFloat32:
      return f(float{});
    case DType::kFloat64:
      return f(double{});
    case DType::kFloat16:
      return f(Half{});
    case DType::kUint8:
      return f(uint8_t{});
    case DType::kInt32:
      return f(int32_t{});
    case DType::kInt8:
      return f(int8_t{});
    case DType::kInt64:
      return f(int64_t{});
    case DType::kBFloat16:
      return f(BFloat16{});
    default:
      Fail(StatusCode::kDType, "invalid dtype code ", static_cast<int>(t));
  }
}

// Calls f(T{}) for float32/float64; other dtypes fail naming `op`.
template <typename F>
auto DispatchFloat(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::kFloat32:
      return f(float{});
    case DType::kFloat64:
      return f(double{});
    default:
      Fail(StatusCode::kDType, "operator ", op, ": dtype ", DTypeName(t),
           " is not supported (expected float32 or float64)");
  }
}

}  // namespace weft

#endif  // WEFT_DTYPE_H_
