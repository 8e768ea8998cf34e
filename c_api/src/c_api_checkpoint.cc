// C ABI: MXNet checkpoints (weft/checkpoint.h). Parameters come in as
// parallel name/array arguments and go out as named WeftNDArrayLists.
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "c_api_ndarray_list.h"
#include "c_api_train_internal.h"
#include "weft/runtime.h"
#include "weft/checkpoint.h"

namespace weft {
namespace capi {

std::map<std::string, weft::NDArray> ParamMap(size_t num, const char* const* names,
                                              const char* names_arg, WeftNDArray* const* arrays,
                                              const char* arrays_arg) {
  std::map<std::string, weft::NDArray> out;
  for (auto& kv : weft::capi::NamedArrays(num, names, names_arg, arrays, arrays_arg))
    if (!out.emplace(kv.first, kv.second).second)
      weft::Fail(weft::StatusCode::kInvalidArgument, "argument '", names_arg, "': name '", kv.first,
                 "' is given twice");
  return out;
}

WeftNDArrayList* NewParamList(const std::map<std::string, weft::NDArray>& m) {
  auto list = std::make_shared<weft::NDArrayList>();
  for (const auto& kv : m) {
    list->names.push_back(kv.first);
    list->arrays.push_back(kv.second);
  }
  return weft::capi::NewHandle<WeftNDArrayList>(std::move(list));
}

void PublishModel(Symbol sym, const std::map<std::string, NDArray>& args,
                  const std::map<std::string, NDArray>& aux, WeftSymbolHandle** out_sym,
                  WeftNDArrayList** out_args, WeftNDArrayList** out_aux) {
  WeftSymbolHandle* s = NewSymbol(std::move(sym));
  WeftNDArrayList* a = nullptr;
  try {
    a = NewParamList(args);
    *out_aux = NewParamList(aux);
  } catch (...) {
    weft_ndarray_list_free(a);
    weft_symbol_free(s);
    throw;
  }
  *out_args = a;
  *out_sym = s;
}

}  // namespace capi
}  // namespace weft

using weft::capi::NewParamList;
using weft::capi::ParamMap;

using weft::capi::CheckNotNull;

WeftStatus weft_checkpoint_save(const char* prefix, int epoch, const WeftSymbolHandle* sym,
                                size_t num_args, const char* const* arg_names,
                                WeftNDArray* const* args, size_t num_aux,
                                const char* const* aux_names, WeftNDArray* const* aux) {
  WEFT_API_BEGIN();
  CheckNotNull(prefix, "prefix");
  auto s = weft::capi::GetObject(sym, "sym");
  auto a = ParamMap(num_args, arg_names, "arg_names", args, "args");
  auto x = ParamMap(num_aux, aux_names, "aux_names", aux, "aux");
  weft::SaveCheckpoint(prefix, epoch, s->sym, a, x);
  WEFT_API_END();
}

WeftStatus weft_checkpoint_load(const char* prefix, int epoch, WeftSymbolHandle** sym,
                                WeftNDArrayList** args, WeftNDArrayList** aux) {
  WEFT_API_BEGIN();
  CheckNotNull(prefix, "prefix");
  CheckNotNull(sym, "sym");
  CheckNotNull(args, "args");
  CheckNotNull(aux, "aux");
  weft::Checkpoint ck = weft::LoadCheckpoint(prefix, epoch, &weft::Runtime::Global());
  weft::capi::PublishModel(std::move(ck.symbol), ck.args, ck.aux, sym, args, aux);
  WEFT_API_END();
}
