#include "weft/dtype.h"

#include <cstdlib>

namespace weft {

const DType kAllDTypes[8] = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kUint8,
                             DType::kInt32,   DType::kInt8,    DType::kInt64,   DType::kBFloat16};

size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kFloat32:
      return 4;
    case DType::kFloat64:
      return 8;
    case DType::kFloat16:
      return 2;
    case DType::kUint8:
      return 1;
    case DType::kInt32:
      return 4;
    case DType::kInt8:
      return 1;
    case DType::kInt64:
      return 8;
    case DType::kBFloat16:
      return 2;
    default:
      return 0;
  }
}

const char* DTypeName(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
    case DType::kFloat16:
      return "float16";
    case DType::kUint8:
      return "uint8";
    case DType::kInt32:
      return "int32";
    case DType::kInt8:
      return "int8";
    case DType::kInt64:
      return "int64";
    case DType::kBFloat16:
      return "bfloat16";
    default:
      return "unknown";
  }
}

bool IsValidDType(int code) { return (code >= 0 && code <= 6) || code == 12; }

DType ParseDType(const std::string& text) {
  for (DType t : kAllDTypes)
    if (text == DTypeName(t)) return t;
  if (text == "float") return DType::kFloat32;
  if (text == "double") return DType::kFloat64;
  if (text == "half") return DType::kFloat16;
  if (text == "bf16") return DType::kBFloat16;
  char* end = nullptr;
  long code = std::strtol(text.c_str(), &end, 10);
  if (!text.empty() && *end == '\0' && IsValidDType(static_cast<int>(code)))
    return static_cast<DType>(code);
  Fail(StatusCode::kDType, "invalid dtype '", text,
       "' (expected one of float32, float64, float16, uint8, int32, int8, int64, bfloat16 or codes "
       "0-6, 12)");
}

}  // namespace weft
