#include "weft/status.h"

namespace weft {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kShape:
      return "shape error";
    case StatusCode::kDType:
      return "dtype error";
    case StatusCode::kDevice:
      return "device error";
    case StatusCode::kOutOfMemory:
      return "out of memory";
    case StatusCode::kNotImplemented:
      return "not implemented";
    case StatusCode::kInternal:
      return "internal error";
    case StatusCode::kInvalidHandle:
      return "invalid handle";
    case StatusCode::kNotFound:
      return "not found";
    case StatusCode::kIO:
      return "I/O error";
  }
  return "unknown status";
}

}  // namespace weft
