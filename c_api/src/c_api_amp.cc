// C ABI: automatic mixed precision (weft/amp.h).
#include <map>
#include <string>
#include <vector>

#include "c_api_train_internal.h"
#include "weft/amp.h"
#include "weft/c_api_amp.h"
#include "weft/runtime.h"

using weft::capi::CheckNotNull;

WeftStatus weft_amp_convert_model(const WeftSymbolHandle* sym, size_t num_args,
                                  const char* const* arg_names, WeftNDArray* const* args,
                                  size_t num_aux, const char* const* aux_names,
                                  WeftNDArray* const* aux, int target_dtype, size_t num_excluded,
                                  const char* const* excluded, int cast_optional_params,
                                  WeftSymbolHandle** out_sym, WeftNDArrayList** out_args,
                                  WeftNDArrayList** out_aux) {
  WEFT_API_BEGIN();
  auto s = weft::capi::GetObject(sym, "sym");
  CheckNotNull(out_sym, "out_sym");
  CheckNotNull(out_args, "out_args");
  CheckNotNull(out_aux, "out_aux");
  if (target_dtype != WEFT_FLOAT16 && target_dtype != WEFT_BFLOAT16)
    weft::Fail(weft::StatusCode::kDType, "argument 'target_dtype' is ", target_dtype,
               ", expected WEFT_FLOAT16 (2) or WEFT_BFLOAT16 (12)");
  const auto a = weft::capi::ParamMap(num_args, arg_names, "arg_names", args, "args");
  const auto x = weft::capi::ParamMap(num_aux, aux_names, "aux_names", aux, "aux");
  weft::amp::ConvertOptions opts;
  opts.target_dtype = static_cast<weft::DType>(target_dtype);
  if (num_excluded) CheckNotNull(excluded, "excluded");
  for (size_t i = 0; i < num_excluded; ++i) {
    if (!excluded[i])
      weft::Fail(weft::StatusCode::kInvalidArgument, "argument 'excluded': entry ", i, " is NULL");
    opts.excluded_sym_names.push_back(excluded[i]);
  }
  opts.cast_optional_params = cast_optional_params != 0;
  weft::amp::Model m =
      weft::amp::ConvertModel(weft::Runtime::Global().ops(), s->sym, a, x, std::move(opts));
  weft::capi::PublishModel(std::move(m.symbol), m.args, m.aux, out_sym, out_args, out_aux);
  WEFT_API_END();
}
