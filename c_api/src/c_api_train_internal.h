// Handle types of the training C ABI (weft_initializer_*, weft_optimizer_*,
// weft_data_iter_*, weft_metric_*, weft_module_*) and shared argument
// decoders (not installed). The handles are in the registry (c_api_handle.h).
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
#include "weft/kvstore.h"
#include "weft/metric.h"
#include "weft/module.h"
#include "weft/optimizer.h"

namespace weft {
namespace capi {

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
// A kvstore is not thread-safe either; a module shares it (`kv`).
struct KVStoreObject {
  mutable std::mutex mu;
  std::shared_ptr<KVStore> kv;
};

// `num` (name, array) pairs from C arguments `names_arg`/`arrays_arg`: no
// NULL name or array (errors name the argument and index).
std::vector<std::pair<std::string, NDArray>> NamedArrays(size_t num, const char* const* names,
                                                         const char* names_arg,
                                                         WeftNDArray* const* arrays,
                                                         const char* arrays_arg);
// `num` arrays (none NULL) from C argument `arg`.
std::vector<NDArray> ArrayArgs(size_t num, WeftNDArray* const* arrays, const char* arg);
// `num` string parameters (parallel keys/vals, none NULL, no key twice).
StringMap ParamArgs(const char* const* keys, const char* const* vals, size_t num);

}  // namespace capi
}  // namespace weft

#endif  // WEFT_C_API_SRC_C_API_TRAIN_INTERNAL_H_
