// Handle types of the symbol C ABI (weft_symbol_*, weft_string_list_*,
// weft_shape_result_*, weft_type_result_*) and their objects (not installed).
//
// The objects live in HandleTables (c_api_handle.h) like NDArrays. Their tags
// are defined here, well above the core tags so that a tag added to
// HandleTag later does not collide; HandleTagName() does not know them, so
// this file has its own lookup/free helpers whose messages name the C type
// expected and the one given.
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

constexpr HandleTag kSymbolTag = static_cast<HandleTag>(0x20);
constexpr HandleTag kStringListTag = static_cast<HandleTag>(0x21);
constexpr HandleTag kShapeResultTag = static_cast<HandleTag>(0x22);
constexpr HandleTag kTypeResultTag = static_cast<HandleTag>(0x23);

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

// Inference results by WeftEntryGroup (0 arguments, 1 outputs, 2 aux).
struct ShapeResultObject {
  std::vector<std::string> names[3];
  std::vector<Shape> shapes[3];
  std::vector<std::string> unknown;  // names of entries not fully known
  std::vector<std::string> unknown_partial;  // their partial shapes, "(2,0)"
};
struct TypeResultObject {
  std::vector<std::string> names[3];
  std::vector<int> dtypes[3];  // WeftDType codes, -1 = unknown
  std::vector<std::string> unknown;
};

template <>
struct HandleTraits<WeftSymbolHandle> {
  using Object = SymbolObject;
  static constexpr HandleTag kTag = kSymbolTag;
};
template <>
struct HandleTraits<WeftStringList> {
  using Object = StringListObject;
  static constexpr HandleTag kTag = kStringListTag;
};
template <>
struct HandleTraits<WeftShapeResult> {
  using Object = ShapeResultObject;
  static constexpr HandleTag kTag = kShapeResultTag;
};
template <>
struct HandleTraits<WeftTypeResult> {
  using Object = TypeResultObject;
  static constexpr HandleTag kTag = kTypeResultTag;
};

// The C type name of any handle tag (core or symbol), or null.
const char* AnyHandleTagName(uint32_t tag);

// Throws Error(kInvalidHandle) for `bits` passed as `arg` where a handle of
// C type `expected` was wanted: "is a <given> handle, expected a <expected>
// handle" or "is a freed or invalid <expected> handle".
[[noreturn]] void FailBadSymbolApiHandle(uintptr_t bits, const char* expected, const char* arg);

// The object behind `h` (kInvalidArgument when NULL, kInvalidHandle when
// freed, of another type or no handle at all).
template <typename H>
std::shared_ptr<typename HandleTraits<H>::Object> Get(const H* h, const char* arg) {
  CheckNotNull(h, arg);
  const uintptr_t bits = reinterpret_cast<uintptr_t>(h);
  auto obj = TableOf<H>::Global().Lookup(bits);
  if (!obj)
    FailBadSymbolApiHandle(bits, AnyHandleTagName(static_cast<uint32_t>(HandleTraits<H>::kTag)),
                           arg);
  return obj;
}

// Releases `h` (NULL is a no-op); same errors as Get otherwise.
template <typename H>
void Free(H* h, const char* arg) {
  if (!h) return;
  const uintptr_t bits = reinterpret_cast<uintptr_t>(h);
  auto obj = TableOf<H>::Global().Remove(bits);
  if (!obj)
    FailBadSymbolApiHandle(bits, AnyHandleTagName(static_cast<uint32_t>(HandleTraits<H>::kTag)),
                           arg);
}

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
pass::DTypeMap DTypeInputs(size_t num, const char* const* names, const char* names_arg, const int* dtypes);
int GroupArg(int group);
// Throws kInvalidArgument unless index < count ("<what> has <count> ...").
void CheckIndex(size_t index, size_t count, const char* what);

}  // namespace capi
}  // namespace weft

#endif  // WEFT_C_API_SRC_C_API_SYMBOL_INTERNAL_H_
