// Handle types of the training C ABI (weft_initializer_*, weft_optimizer_*,
// weft_data_iter_*, weft_metric_*, weft_module_*) and shared argument
// decoders (not installed). Tags 0x60.. and 0x70.. are above the
// executor's (0x50).
#ifndef WEFT_C_API_SRC_C_API_TRAIN_INTERNAL_H_
#define WEFT_C_API_SRC_C_API_TRAIN_INTERNAL_H_

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "c_api_internal.h"
#include "c_api_ndarray_list.h"
#include "c_api_symbol_internal.h"
#include "weft/data_iter.h"
#include "weft/initializer.h"
#include "weft/metric.h"
#include "weft/module.h"
#include "weft/optimizer.h"

namespace weft {
namespace capi {

constexpr HandleTag kInitializerTag = static_cast<HandleTag>(0x60);
constexpr HandleTag kOptimizerTag = static_cast<HandleTag>(0x61);
constexpr HandleTag kDataIterTag = static_cast<HandleTag>(0x70);
constexpr HandleTag kMetricTag = static_cast<HandleTag>(0x71);
constexpr HandleTag kModuleTag = static_cast<HandleTag>(0x72);

// Initializers and optimizers are not thread-safe: calls through one handle
// are serialised by its mutex. A module shares its optimizer (`opt`).
struct InitializerObject {
  std::mutex mu;
  std::unique_ptr<Initializer> init;
};
struct OptimizerObject {
  mutable std::mutex mu;
  std::shared_ptr<Optimizer> opt;
};

template <>
struct HandleTraits<WeftInitializer> {
  using Object = InitializerObject;
  static constexpr HandleTag kTag = kInitializerTag;
};
template <>
struct HandleTraits<WeftOptimizer> {
  using Object = OptimizerObject;
  static constexpr HandleTag kTag = kOptimizerTag;
};
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
template <>
struct HandleTraits<WeftModule> {
  using Object = Module;
  static constexpr HandleTag kTag = kModuleTag;
};

// The C type name of a training handle tag, or null.
inline const char* TrainTagName(uint32_t tag) {
  switch (tag) {
    case static_cast<uint32_t>(kInitializerTag): return "WeftInitializer";
    case static_cast<uint32_t>(kOptimizerTag): return "WeftOptimizer";
    case static_cast<uint32_t>(kDataIterTag): return "WeftDataIter";
    case static_cast<uint32_t>(kMetricTag): return "WeftMetric";
    case static_cast<uint32_t>(kModuleTag): return "WeftModule";
    case static_cast<uint32_t>(kNDArrayListTag): return "WeftNDArrayList";
    default: return nullptr;
  }
}

// The C type name of H's tag, for messages.
template <typename H>
const char* TrainTypeName() {
  return TrainTagName(static_cast<uint32_t>(HandleTraits<H>::kTag));
}

// Throws Error(kInvalidHandle) for `bits` passed as `arg` where a handle of
// C type `expected` was wanted, naming the type given when it is known.
[[noreturn]] inline void FailBadTrainHandle(uintptr_t bits, const char* expected, const char* arg) {
  const char* given = TrainTagName(HandleLayout::Tag(bits));
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
// `num` string parameters (parallel keys/vals, none NULL, no key twice).
StringMap ParamArgs(const char* const* keys, const char* const* vals, size_t num);

}  // namespace capi
}  // namespace weft

#endif  // WEFT_C_API_SRC_C_API_TRAIN_INTERNAL_H_
