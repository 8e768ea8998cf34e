// C ABI: ONNX export (weft/onnx_export.h).
#include <map>
#include <string>
#include <vector>

#include "c_api_symbol_internal.h"
#include "c_api_train_internal.h"
#include "weft/c_api_onnx.h"
#include "weft/ndarray_io.h"
#include "weft/onnx_export.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

using namespace weft;        // NOLINT: the C ABI's implementation
using namespace weft::capi;  // NOLINT

namespace {

// Checks the common arguments and runs the export; the notes go to `report`.
void Export(const Symbol& sym, const std::map<std::string, NDArray>& args,
            const std::map<std::string, NDArray>& aux, size_t num_inputs,
            const char* const* input_names, const size_t* ind_ptr, const int64_t* dims, int opset,
            int flags, const char* output_path, WeftStringList** report) {
  CheckNotNull(output_path, "output_path");
  if (!*output_path)
    Fail(StatusCode::kInvalidArgument, "argument 'output_path' is \"\", expected a file path");
  if (flags & ~WEFT_ONNX_DYNAMIC_BATCH)
    Fail(StatusCode::kInvalidArgument, "argument 'flags' is ", flags,
         ", expected 0 or WEFT_ONNX_DYNAMIC_BATCH (1)");
  OnnxExportOptions o;
  o.opset = opset;
  o.dynamic_batch = (flags & WEFT_ONNX_DYNAMIC_BATCH) != 0;
  o.input_shapes = ShapeInputs(num_inputs, input_names, "input_names", ind_ptr, dims, true);
  o.runtime = &Runtime::Global();
  OnnxExportResult r = ExportOnnxFile(sym, args, aux, o, output_path);
  if (!report) return;
  std::vector<std::string> lines;
  for (const auto& n : r.notes) lines.push_back(FormatOnnxIssue(n));
  *report = NewStringList(std::move(lines));
}

}  // namespace

extern "C" {

WeftStatus weft_onnx_export(const WeftSymbolHandle* sym, size_t num_args,
                            const char* const* arg_names, WeftNDArray* const* args, size_t num_aux,
                            const char* const* aux_names, WeftNDArray* const* aux,
                            size_t num_inputs, const char* const* input_names,
                            const size_t* ind_ptr, const int64_t* dims, int opset, int flags,
                            const char* output_path, WeftStringList** report) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  const auto a = ParamMap(num_args, arg_names, "arg_names", args, "args");
  const auto x = ParamMap(num_aux, aux_names, "aux_names", aux, "aux");
  Export(s->sym, a, x, num_inputs, input_names, ind_ptr, dims, opset, flags, output_path, report);
  WEFT_API_END();
}

WeftStatus weft_onnx_export_files(const char* symbol_path, const char* params_path,
                                  size_t num_inputs, const char* const* input_names,
                                  const size_t* ind_ptr, const int64_t* dims, int opset, int flags,
                                  const char* output_path, WeftStringList** report) {
  WEFT_API_BEGIN();
  CheckNotNull(symbol_path, "symbol_path");
  Runtime& rt = Runtime::Global();
  const LoadedSymbol l = LoadJSONFile(symbol_path, rt.ops());
  ParamMaps p;
  if (params_path && *params_path) {
    const std::vector<std::string> aux_names = l.symbol.ListAuxiliaryStates();
    p = SplitParams(LoadNDArraysFile(params_path, &rt), &aux_names);
  }
  Export(l.symbol, p.args, p.aux, num_inputs, input_names, ind_ptr, dims, opset, flags, output_path,
         report);
  WEFT_API_END();
}

}  // extern "C"
