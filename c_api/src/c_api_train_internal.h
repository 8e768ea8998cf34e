// Handle types of the training C ABI (weft_initializer_*, weft_optimizer_*,
// weft_data_iter_*, weft_metric_*, weft_module_*, weft_trainer_*, weft_fit_session_*) and shared
// argument decoders (not installed). The handles are in the registry (c_api_handle.h).
#ifndef WEFT_C_API_SRC_C_API_TRAIN_INTERNAL_H_
#define WEFT_C_API_SRC_C_API_TRAIN_INTERNAL_H_

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "c_api_internal.h"
#include "c_api_ndarray_list.h"
#include "c_api_symbol_internal.h"
#include "weft/data_iter.h"
#include "weft/fit_session.h"
#include "weft/initializer.h"
#include "weft/kvstore.h"
#include "weft/metric.h"
#include "weft/module.h"
#include "weft/optimizer.h"
#include "weft/trainer.h"

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
// Updates queued for the caller (weft_kvstore_set_updater_queue): the store
// keeps the queue alive through its updater, a module sharing the store too.
struct KVStoreUpdateQueue {
  struct Update {
    std::string key;
    NDArray sum, stored;
  };
  std::mutex mu;
  std::deque<Update> updates;
  std::string last_key;  // the key weft_kvstore_next_update returned last
};
struct KVStoreObject {
  mutable std::mutex mu;
  std::shared_ptr<KVStore> kv;
  std::shared_ptr<KVStoreUpdateQueue> queue;  // set while the queue is the updater
};

// A trainer shares its optimizer's handle object: steps lock its mutex.
struct TrainerObject {
  std::shared_ptr<OptimizerObject> opt;
  std::unique_ptr<Trainer> trainer;
};
// A fit session keeps what it trains alive; calls on it are serialised.
struct FitSessionObject {
  mutable std::mutex mu;
  std::shared_ptr<Module> module;
  std::shared_ptr<DataIter> train, eval;
  std::shared_ptr<Metric> metric;
  std::unique_ptr<FitSession> session;
};

// `num` (name, array) pairs from C arguments `names_arg`/`arrays_arg`: no
// NULL name or array (errors name the argument and index).
std::vector<std::pair<std::string, NDArray>> NamedArrays(size_t num, const char* const* names,
                                                         const char* names_arg,
                                                         WeftNDArray* const* arrays,
                                                         const char* arrays_arg);
// NamedArrays as a map; a name given twice is an error naming `names_arg`.
std::map<std::string, NDArray> ParamMap(size_t num, const char* const* names, const char* names_arg,
                                        WeftNDArray* const* arrays, const char* arrays_arg);
// A new named list handle of `m` (name order).
WeftNDArrayList* NewParamList(const std::map<std::string, NDArray>& m);
// A model's three new handles into the out arguments: all or none (a later
// one that cannot be made frees the earlier ones).
void PublishModel(Symbol sym, const std::map<std::string, NDArray>& args,
                  const std::map<std::string, NDArray>& aux, WeftSymbolHandle** out_sym,
                  WeftNDArrayList** out_args, WeftNDArrayList** out_aux);
// `num` arrays (none NULL) from C argument `arg`.
std::vector<NDArray> ArrayArgs(size_t num, WeftNDArray* const* arrays, const char* arg);
// `num` string parameters (parallel keys/vals, none NULL, no key twice).
StringMap ParamArgs(const char* const* keys, const char* const* vals, size_t num);

// weft_metric_get's outputs from `got` (errors name names/values/capacity/num).
void PublishMetric(const std::vector<std::pair<std::string, double>>& got, WeftStringList** names,
                   double* values, size_t capacity, size_t* num);
// A ::WeftProgress value as a ProgressMode (Error naming 'progress' otherwise).
ProgressMode ProgressArg(int progress);

}  // namespace capi
}  // namespace weft

#endif  // WEFT_C_API_SRC_C_API_TRAIN_INTERNAL_H_
