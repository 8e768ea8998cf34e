// Handle tags, the live-handle counter and invalid-handle messages.
#include "c_api_handle.h"

#include "c_api_internal.h"

namespace weft {
namespace capi {

const char* HandleTagName(uint32_t tag) {
  switch (static_cast<HandleTag>(tag)) {
    case HandleTag::kNDArray: return "WeftNDArray";
  }
  return nullptr;
}

std::atomic<size_t>& LiveHandleCounter() {
  static std::atomic<size_t> count{0};
  return count;
}

std::string BadHandleMessage(uintptr_t h, const char* expected_type, const char* arg) {
  const uint32_t tag = HandleLayout::Tag(h);
  const char* given_type = HandleTagName(tag);
  if (given_type && std::string(given_type) != expected_type)
    return StrCat("argument '", arg, "' is a ", given_type, " handle, expected a ", expected_type,
                  " handle");
  return StrCat("argument '", arg, "' is a freed or invalid ", expected_type, " handle");
}

}  // namespace capi
}  // namespace weft
