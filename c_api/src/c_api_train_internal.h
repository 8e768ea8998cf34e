// Handle types of the training C ABI (weft_data_iter_*, weft_metric_*) and
// shared argument decoders (not installed). Tags 0x70.. are above the
// executor's (0x50); 0x60.. is left to the optimizer API.
#ifndef WEFT_C_API_SRC_C_API_TRAIN_INTERNAL_H_
#define WEFT_C_API_SRC_C_API_TRAIN_INTERNAL_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c_api_internal.h"
#include "c_api_ndarray_list.h"
#include "c_api_symbol_internal.h"
#include "weft/data_iter.h"
#include "weft/metric.h"

namespace weft {
namespace capi {

constexpr HandleTag kDataIterTag = static_cast<HandleTag>(0x70);
constexpr HandleTag kMetricTag = static_cast<HandleTag>(0x71);

template <>
struct HandleTraits<WeftDataIter> {
  using Object = NDArrayIter;
  static constexpr HandleTag kTag = kDataIterTag;
};
template <>
struct HandleTraits<WeftMetric> {
  using Object = Metric;
  static constexpr HandleTag kTag = kMetricTag;
};

// The C type name of H's tag, for messages.
template <typename H>
constexpr const char* TrainTypeName() {
  return HandleTraits<H>::kTag == kDataIterTag ? "WeftDataIter" : "WeftMetric";
}

// Throws Error(kInvalidHandle) for `bits` passed as `arg` where a handle of
// C type `expected` was wanted, naming the type given when it is known.
[[noreturn]] inline void FailBadTrainHandle(uintptr_t bits, const char* expected, const char* arg) {
  const uint32_t tag = HandleLayout::Tag(bits);
  const char* given = tag == static_cast<uint32_t>(kDataIterTag)      ? "WeftDataIter"
                      : tag == static_cast<uint32_t>(kMetricTag)      ? "WeftMetric"
                      : tag == static_cast<uint32_t>(kNDArrayListTag) ? "WeftNDArrayList"
                                                                      : nullptr;
  if (given && std::string(given) != expected)
    Fail(StatusCode::kInvalidHandle, "argument '", arg, "' is a ", given, " handle, expected a ", expected,
         " handle");
  FailBadSymbolApiHandle(bits, expected, arg);  // names symbol-API and NDArray handles
}

// The object behind `h` (kInvalidArgument when NULL, kInvalidHandle when
// freed, of another type or no handle at all).
template <typename H>
std::shared_ptr<typename HandleTraits<H>::Object> GetTrain(const H* h, const char* arg) {
  CheckNotNull(h, arg);
  const uintptr_t bits = reinterpret_cast<uintptr_t>(h);
  auto obj = TableOf<H>::Global().Lookup(bits);
  if (!obj) FailBadTrainHandle(bits, TrainTypeName<H>(), arg);
  return obj;
}

// Releases `h` (NULL is a no-op); same errors as GetTrain otherwise.
template <typename H>
void FreeTrain(H* h, const char* arg) {
  if (!h) return;
  const uintptr_t bits = reinterpret_cast<uintptr_t>(h);
  if (!TableOf<H>::Global().Remove(bits)) FailBadTrainHandle(bits, TrainTypeName<H>(), arg);
}

// `num` (name, array) pairs from C arguments `names_arg`/`arrays_arg`: no
// NULL name or array (errors name the argument and index).
std::vector<std::pair<std::string, NDArray>> NamedArrays(size_t num, const char* const* names,
                                                         const char* names_arg, WeftNDArray* const* arrays,
                                                         const char* arrays_arg);
// `num` arrays (none NULL) from C argument `arg`.
std::vector<NDArray> ArrayArgs(size_t num, WeftNDArray* const* arrays, const char* arg);
// `num` string parameters (keys/vals, none NULL).
StringMap ParamArgs(size_t num, const char* const* keys, const char* const* vals);

}  // namespace capi
}  // namespace weft

#endif  // WEFT_C_API_SRC_C_API_TRAIN_INTERNAL_H_
