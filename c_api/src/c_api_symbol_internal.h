// Handle types of the symbol C ABI (weft_symbol_*, weft_string_list_*,
// weft_shape_result_*, weft_type_result_*) and their objects (not installed).
//
// The objects live in the handle registry (c_api_handle.h) like NDArrays.
#ifndef WEFT_C_API_SRC_C_API_SYMBOL_INTERNAL_H_
#define WEFT_C_API_SRC_C_API_SYMBOL_INTERNAL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "weft/pass.h"
#include "weft/shape.h"
#include "weft/symbol.h"
#include "weft/symbol_json.h"

namespace weft {
namespace capi {

// What a loaded JSON file said about itself (weft_symbol_json_info).
struct JsonInfo {
  JsonGeneration generation = JsonGeneration::kMXNet1;
  int mxnet_version = 800;
  bool has_version = false;
  bool upgraded = false;
};

// The object behind a WeftSymbolHandle.
struct SymbolObject {
  Symbol sym;
  std::optional<JsonInfo> json;  // set only for symbols loaded from JSON
};

// The object behind a WeftStringList: immutable once published.
struct StringListObject {
  std::vector<std::string> items;
};

// Inference results by WeftEntryGroup (0 arguments, 1 outputs, 2 aux): each
// entry's name and value, and the names of the entries not fully known.
template <typename Value>
struct InferResultObject {
  std::vector<std::string> names[3];
  std::vector<Value> values[3];
  std::vector<std::string> unknown;
};
struct ShapeResultObject : InferResultObject<Shape> {
  std::vector<std::string> unknown_partial;  // the unknown entries' partial shapes, "(2,0)"
};
struct TypeResultObject : InferResultObject<int> {};  // WeftDType codes, -1 = unknown

// A new symbol handle owning `sym` (and `json` info, if any).
WeftSymbolHandle* NewSymbol(Symbol sym, std::optional<JsonInfo> json = std::nullopt);
// A new string list handle owning `items`.
WeftStringList* NewStringList(std::vector<std::string> items);

// `names[0..num)` (the C argument `arg`) as strings: none NULL, no name
// twice (Error(kInvalidArgument) naming the argument and indices).
std::vector<std::string> InputNames(size_t num, const char* const* names, const char* arg);

// Checks a group argument (WeftEntryGroup) and returns it as an index 0..2.
// Decodes CSR input shapes (weft_symbol_infer_shape's convention):
// `names[0..num)` (the C argument `names_arg`; none NULL or repeated),
// offsets `ind_ptr[0..num]`, extents `dims`. Extents must be >= 0 (0 =
// unknown) or, with `require_known`, > 0. Throws Error naming the argument.
pass::ShapeMap ShapeInputs(size_t num, const char* const* names, const char* names_arg,
                           const size_t* ind_ptr, const int64_t* dims, bool require_known);
// Decodes `dtypes[0..num)` (WeftDType codes) for `names` (as ShapeInputs).
pass::DTypeMap DTypeInputs(size_t num, const char* const* names, const char* names_arg,
                           const int* dtypes);
int GroupArg(int group);
// Throws kInvalidArgument unless index < count ("<what> has <count> ...").
void CheckIndex(size_t index, size_t count, const char* what);

}  // namespace capi
}  // namespace weft

#endif  // WEFT_C_API_SRC_C_API_SYMBOL_INTERNAL_H_
