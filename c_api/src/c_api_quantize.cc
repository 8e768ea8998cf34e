// C ABI: int8 quantization (weft/quantize_model.h).
#include <map>
#include <string>
#include <vector>

#include "c_api_train_internal.h"
#include "weft/c_api_quantize.h"
#include "weft/quantize_model.h"
#include "weft/runtime.h"

using weft::capi::CheckNotNull;

namespace {

std::vector<std::string> Names(size_t n, const char* const* names, const char* what) {
  if (n) CheckNotNull(names, what);
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    if (!names[i])
      weft::Fail(weft::StatusCode::kInvalidArgument, "argument '", what, "': entry ", i,
                 " is NULL");
    out.push_back(names[i]);
  }
  return out;
}

std::string Text(const char* s, const char* what) {
  CheckNotNull(s, what);
  return s;
}

}  // namespace

WeftStatus weft_quantize_model(
    const WeftSymbolHandle* sym, size_t num_args, const char* const* arg_names,
    WeftNDArray* const* args, size_t num_aux, const char* const* aux_names, WeftNDArray* const* aux,
    WeftDataIter* calib_data, const char* calib_mode, int64_t num_calib_examples,
    const char* quantized_dtype, const char* quantize_mode, int fuse, size_t num_excluded,
    const char* const* excluded, size_t num_excluded_ops, const char* const* excluded_ops,
    WeftSymbolHandle** out_sym, WeftNDArrayList** out_args, WeftNDArrayList** out_aux) {
  return weft_quantize_model_ex(sym, num_args, arg_names, args, num_aux, aux_names, aux, calib_data,
                                calib_mode, num_calib_examples, quantized_dtype, quantize_mode,
                                nullptr, fuse, num_excluded, excluded, num_excluded_ops,
                                excluded_ops, out_sym, out_args, out_aux);
}

WeftStatus weft_quantize_model_ex(const WeftSymbolHandle* sym, size_t num_args,
                                  const char* const* arg_names, WeftNDArray* const* args,
                                  size_t num_aux, const char* const* aux_names,
                                  WeftNDArray* const* aux, WeftDataIter* calib_data,
                                  const char* calib_mode, int64_t num_calib_examples,
                                  const char* quantized_dtype, const char* quantize_mode,
                                  const char* quantize_granularity, int fuse, size_t num_excluded,
                                  const char* const* excluded, size_t num_excluded_ops,
                                  const char* const* excluded_ops, WeftSymbolHandle** out_sym,
                                  WeftNDArrayList** out_args, WeftNDArrayList** out_aux) {
  WEFT_API_BEGIN();
  auto s = weft::capi::GetObject(sym, "sym");
  CheckNotNull(out_sym, "out_sym");
  CheckNotNull(out_args, "out_args");
  CheckNotNull(out_aux, "out_aux");
  const auto a = weft::capi::ParamMap(num_args, arg_names, "arg_names", args, "args");
  const auto x = weft::capi::ParamMap(num_aux, aux_names, "aux_names", aux, "aux");
  weft::quant::QuantizeOptions q;
  q.quantized_dtype = Text(quantized_dtype, "quantized_dtype");
  q.quantize_mode = Text(quantize_mode, "quantize_mode");
  q.quantize_granularity = quantize_granularity ? quantize_granularity : "tensor-wise";
  if (q.quantize_granularity != "tensor-wise" && q.quantize_granularity != "channel-wise")
    weft::Fail(weft::StatusCode::kInvalidArgument,
               "argument 'quantize_granularity': expected \"tensor-wise\", \"channel-wise\" or "
               "NULL, given \"",
               q.quantize_granularity, "\"");
  q.fuse = fuse != 0;
  q.excluded_sym_names = Names(num_excluded, excluded, "excluded");
  q.excluded_op_names = Names(num_excluded_ops, excluded_ops, "excluded_ops");
  weft::quant::CalibOptions c;
  c.calib_mode = Text(calib_mode, "calib_mode");
  c.num_calib_examples = num_calib_examples;
  weft::DataIter* it = calib_data ? weft::capi::GetObject(calib_data, "calib_data").get() : nullptr;
  weft::quant::QuantizedModel m =
      weft::quant::QuantizeModel(&weft::Runtime::Global(), s->sym, a, x, it, q, c);
  weft::capi::PublishModel(std::move(m.symbol), m.args, m.aux, out_sym, out_args, out_aux);
  WEFT_API_END();
}
