// C ABI: ONNX import (weft/onnx_import.h; c_api_onnx.h).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "c_api_internal.h"
#include "c_api_onnx_internal.h"
#include "c_api_symbol_internal.h"
#include "c_api_train_internal.h"
#include "weft/checkpoint.h"
#include "weft/onnx_import.h"
#include "weft/runtime.h"

namespace weft {
namespace capi {
namespace {

OnnxImportOptions ShapeOptions(size_t num, const char* const* names, const size_t* ind_ptr,
                               const int64_t* dims, const char* names_arg) {
  OnnxImportOptions o;
  if (num == 0) return o;
  const std::vector<std::string> n = Names(num, names, names_arg);
  const std::vector<Shape> shapes = ShapesArg(num, ind_ptr, dims);
  for (size_t i = 0; i < num; ++i)
    if (!o.input_shapes.emplace(n[i], shapes[i]).second)
      Fail(StatusCode::kInvalidArgument, "argument '", names_arg, "': '", n[i], "' is given twice");
  return o;
}

void CheckPath(const char* path, const char* arg) {
  CheckNotNull(path, arg);
  if (!*path)
    Fail(StatusCode::kInvalidArgument, "argument '", arg, "' is \"\", expected a file path");
}

}  // namespace

Symbol ImportOnnxForPredictor(Runtime* rt, const char* path, const char* params_path,
                              size_t num_inputs, const char* const* input_names,
                              const size_t* ind_ptr, const int64_t* dims, NDArrayList* params) {
  if (params_path && *params_path)
    Fail(StatusCode::kInvalidArgument, "argument 'params_path' is '", params_path, "' but '", path,
         "' is an ONNX model, which carries its parameters: pass NULL");
  OnnxModel m =
      ImportOnnxFile(path, rt, ShapeOptions(num_inputs, input_names, ind_ptr, dims, "input_names"));
  for (const auto& [name, arr] : m.args) {
    params->names.push_back("arg:" + name);
    params->arrays.push_back(arr);
  }
  for (const auto& [name, arr] : m.aux) {
    params->names.push_back("aux:" + name);
    params->arrays.push_back(arr);
  }
  return m.symbol;
}

}  // namespace capi
}  // namespace weft

using weft::capi::CheckNotNull;

extern "C" {

WeftStatus weft_onnx_import(const char* path, size_t num_shapes, const char* const* shape_names,
                            const size_t* ind_ptr, const int64_t* dims, WeftSymbolHandle** sym,
                            WeftNDArrayList** args, WeftNDArrayList** aux) {
  WEFT_API_BEGIN();
  weft::capi::CheckPath(path, "path");
  CheckNotNull(sym, "sym");
  CheckNotNull(args, "args");
  CheckNotNull(aux, "aux");
  const weft::OnnxImportOptions o =
      weft::capi::ShapeOptions(num_shapes, shape_names, ind_ptr, dims, "shape_names");
  weft::OnnxModel m = weft::ImportOnnxFile(path, &weft::Runtime::Global(), o);
  weft::capi::PublishModel(std::move(m.symbol), m.args, m.aux, sym, args, aux);
  WEFT_API_END();
}

WeftStatus weft_onnx_import_checkpoint(const char* path, const char* prefix, size_t num_shapes,
                                       const char* const* shape_names, const size_t* ind_ptr,
                                       const int64_t* dims) {
  WEFT_API_BEGIN();
  weft::capi::CheckPath(path, "path");
  weft::capi::CheckPath(prefix, "prefix");
  const weft::OnnxImportOptions o =
      weft::capi::ShapeOptions(num_shapes, shape_names, ind_ptr, dims, "shape_names");
  const weft::OnnxModel m = weft::ImportOnnxFile(path, &weft::Runtime::Global(), o);
  weft::SaveCheckpoint(prefix, 0, m.symbol, m.args, m.aux);
  WEFT_API_END();
}

WeftStatus weft_onnx_supported_ops(WeftStringList** out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  *out = weft::capi::NewStringList(weft::OnnxSupportedOps());
  WEFT_API_END();
}

}  // extern "C"
