// weft_symbol_* JSON: MXNet symbol files to and from symbol handles.
#include <string>
#include <utility>
#include <vector>

#include "c_api_symbol_internal.h"
#include "weft/onnx_import.h"
#include "weft/runtime.h"

using weft::StatusCode;
using weft::capi::CheckNotNull;
using weft::capi::GetObject;

namespace {

weft::capi::JsonInfo InfoOf(const weft::LoadedSymbol& l) {
  weft::capi::JsonInfo info;
  info.generation = l.generation;
  info.mxnet_version = l.mxnet_version;
  info.has_version = l.has_version;
  info.upgraded = l.upgraded;
  return info;
}

int GenerationCode(weft::JsonGeneration g) {
  switch (g) {
    case weft::JsonGeneration::kMXNet08:
      return WEFT_JSON_MXNET_0_8;
    case weft::JsonGeneration::kMXNet09:
      return WEFT_JSON_MXNET_0_9;
    case weft::JsonGeneration::kMXNet1:
      return WEFT_JSON_MXNET_1;
  }
  weft::Fail(StatusCode::kInternal, "unknown JSON generation ", static_cast<int>(g));
}

}  // namespace

extern "C" {

WeftStatus weft_symbol_to_json(const WeftSymbolHandle* sym, WeftStringList** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  std::vector<std::string> items{weft::SaveJSON(s->sym)};
  *out = weft::capi::NewStringList(std::move(items));
  WEFT_API_END();
}

WeftStatus weft_symbol_save_file(const WeftSymbolHandle* sym, const char* path) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(path, "path");
  if (!*path)
    weft::Fail(StatusCode::kInvalidArgument, "argument 'path' is \"\", expected a file path");
  weft::SaveJSONFile(s->sym, path);
  WEFT_API_END();
}

WeftStatus weft_symbol_from_json(const char* json, WeftSymbolHandle** out) {
  WEFT_API_BEGIN();
  CheckNotNull(json, "json");
  CheckNotNull(out, "out");
  weft::LoadedSymbol l = weft::LoadJSON(json, weft::Runtime::Global().ops());
  *out = weft::capi::NewSymbol(std::move(l.symbol), InfoOf(l));
  WEFT_API_END();
}

WeftStatus weft_symbol_from_json_file(const char* path, WeftSymbolHandle** out) {
  WEFT_API_BEGIN();
  CheckNotNull(path, "path");
  CheckNotNull(out, "out");
  if (!*path)
    weft::Fail(StatusCode::kInvalidArgument, "argument 'path' is \"\", expected a file path");
  if (weft::IsOnnxPath(path)) {  // the graph of an ONNX model, without its weights
    *out = weft::capi::NewSymbol(weft::ImportOnnxFile(path, &weft::Runtime::Global()).symbol);
  } else {
    weft::LoadedSymbol l = weft::LoadJSONFile(path, weft::Runtime::Global().ops());
    *out = weft::capi::NewSymbol(std::move(l.symbol), InfoOf(l));
  }
  WEFT_API_END();
}

WeftStatus weft_symbol_json_info(const WeftSymbolHandle* sym, int* out_generation,
                                 int* out_mxnet_version, int* out_has_version, int* out_upgraded) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  if (!s->json)
    weft::Fail(StatusCode::kNotFound,
               "argument 'sym' was not loaded from JSON (only handles returned by "
               "weft_symbol_from_json or weft_symbol_from_json_file, and not composed since, "
               "carry format information)");
  const weft::capi::JsonInfo& info = *s->json;
  int generation = GenerationCode(info.generation);
  if (out_generation) *out_generation = generation;
  if (out_mxnet_version) *out_mxnet_version = info.mxnet_version;
  if (out_has_version) *out_has_version = info.has_version ? 1 : 0;
  if (out_upgraded) *out_upgraded = info.upgraded ? 1 : 0;
  WEFT_API_END();
}

}  // extern "C"
