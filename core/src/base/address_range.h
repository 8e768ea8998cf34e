// Whether two byte ranges of memory share a byte (the executor's lending of
// a caller's buffer asks which kernel blobs lie in an argument's memory).
#ifndef WEFT_CORE_SRC_BASE_ADDRESS_RANGE_H_
#define WEFT_CORE_SRC_BASE_ADDRESS_RANGE_H_

#include <cstddef>
#include <cstdint>

namespace weft {

inline bool RangesOverlap(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return a_bytes > 0 && b_bytes > 0 && x < y + b_bytes && y < x + a_bytes;
}

}  // namespace weft

#endif  // WEFT_CORE_SRC_BASE_ADDRESS_RANGE_H_
