#include "weft/dtype.h"

#include <cstdlib>

namespace weft {

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
    default:
      return "unknown";
  }
}

bool IsValidDType(int code) { return code >= 0 && code <= 6; }

DType ParseDType(const std::string& text) {
  for (int c = 0; c <= 6; ++c) {
    if (text == DTypeName(static_cast<DType>(c))) return static_cast<DType>(c);
  }
  if (text == "float") return DType::kFloat32;
  if (text == "double") return DType::kFloat64;
  if (text == "half") return DType::kFloat16;
  char* end = nullptr;
  long code = std::strtol(text.c_str(), &end, 10);
  if (!text.empty() && *end == '\0' && IsValidDType(static_cast<int>(code)))
    return static_cast<DType>(code);
  Fail(StatusCode::kDType, "invalid dtype '", text,
       "' (expected one of float32, float64, float16, uint8, int32, int8, int64 or codes 0-6)");
}

}  // namespace weft
