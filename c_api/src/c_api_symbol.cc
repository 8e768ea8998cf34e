// weft_symbol_* (construction, structure, listing, attributes) and
// weft_string_list_*. JSON is in c_api_symbol_json.cc, inference in
// c_api_symbol_infer.cc.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c_api_symbol_internal.h"
#include "weft/runtime.h"

namespace weft {
namespace capi {

WeftSymbolHandle* NewSymbol(Symbol sym, std::optional<JsonInfo> json) {
  auto obj = std::make_shared<SymbolObject>();
  obj->sym = std::move(sym);
  obj->json = json;
  return NewHandle<WeftSymbolHandle>(std::move(obj));
}

WeftStringList* NewStringList(std::vector<std::string> items) {
  auto obj = std::make_shared<StringListObject>();
  obj->items = std::move(items);
  return NewHandle<WeftStringList>(std::move(obj));
}

int GroupArg(int group) {
  if (group < WEFT_GROUP_ARGUMENTS || group > WEFT_GROUP_AUX_STATES)
    Fail(
        StatusCode::kInvalidArgument, "argument 'group' is ", group,
        ", expected WEFT_GROUP_ARGUMENTS (0), WEFT_GROUP_OUTPUTS (1) or WEFT_GROUP_AUX_STATES (2)");
  return group;
}

void CheckIndex(size_t index, size_t count, const char* what) {
  if (index >= count)
    Fail(StatusCode::kInvalidArgument, "argument 'index' is ", index, ", but ", what, " has ",
         count, " entr", count == 1 ? "y" : "ies");
}

}  // namespace capi
}  // namespace weft

using weft::StatusCode;
using weft::Symbol;
using weft::capi::CheckArray;
using weft::capi::CheckNotNull;
using weft::capi::GetObject;
using weft::capi::NewStringList;
using weft::capi::NewSymbol;

namespace {

// Gathers `num` symbol handles (argument `arg`) as Symbols.
std::vector<Symbol> GatherSymbols(WeftSymbolHandle* const* syms, size_t num, const char* arg) {
  CheckArray(syms, num, arg);
  std::vector<Symbol> out;
  out.reserve(num);
  for (size_t i = 0; i < num; ++i) {
    std::string name = weft::StrCat(arg, "[", i, "]");
    out.push_back(GetObject(syms[i], name.c_str())->sym);
  }
  return out;
}

// Publishes a new list in *out (checked non-null first by the caller).
void ReturnList(std::vector<std::string> items, WeftStringList** out) {
  *out = NewStringList(std::move(items));
}

}  // namespace

extern "C" {

/* ---------------------------------------------------------- string lists */

WeftStatus weft_string_list_size(const WeftStringList* list, size_t* out) {
  WEFT_API_BEGIN();
  auto l = GetObject(list, "list");
  CheckNotNull(out, "out");
  *out = l->items.size();
  WEFT_API_END();
}

WeftStatus weft_string_list_get(const WeftStringList* list, size_t index, const char** out_str) {
  WEFT_API_BEGIN();
  auto l = GetObject(list, "list");
  CheckNotNull(out_str, "out_str");
  weft::capi::CheckIndex(index, l->items.size(), "the string list");
  // The object is immutable and owned by the handle, so the pointer stays
  // valid until the handle is freed even though `l` is released here.
  *out_str = l->items[index].c_str();
  WEFT_API_END();
}

WeftStatus weft_string_list_free(WeftStringList* list) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(list, "list");
  WEFT_API_END();
}

/* ---------------------------------------------------------- construction */

WeftStatus weft_symbol_create_variable(const char* name, WeftSymbolHandle** out) {
  WEFT_API_BEGIN();
  CheckNotNull(name, "name");
  CheckNotNull(out, "out");
  if (!*name)
    weft::Fail(StatusCode::kInvalidArgument, "argument 'name' is \"\", expected a variable name");
  *out = NewSymbol(Symbol::CreateVariable(name));
  WEFT_API_END();
}

WeftStatus weft_symbol_create_atomic(const char* op, const char* const* keys,
                                     const char* const* vals, size_t num_params,
                                     WeftSymbolHandle** out) {
  WEFT_API_BEGIN();
  CheckNotNull(op, "op");
  CheckArray(keys, num_params, "keys");
  CheckArray(vals, num_params, "vals");
  CheckNotNull(out, "out");
  const weft::OpRegistry& reg = weft::Runtime::Global().ops();
  const weft::OpDef& def = reg.Get(op);
  weft::StringMap params;
  for (size_t i = 0; i < num_params; ++i) {
    if (!keys[i]) weft::Fail(StatusCode::kInvalidArgument, "argument 'keys[", i, "]' is NULL");
    if (!vals[i])
      weft::Fail(StatusCode::kInvalidArgument, "argument 'vals[", i, "]' is NULL (parameter '",
                 keys[i], "' of operator ", def.name, ")");
    if (!params.emplace(keys[i], vals[i]).second)
      weft::Fail(StatusCode::kInvalidArgument, "operator ", def.name, ": parameter '", keys[i],
                 "' is given twice");
  }
  *out = NewSymbol(Symbol::CreateAtomic(reg, op, params));
  WEFT_API_END();
}

WeftStatus weft_symbol_compose(WeftSymbolHandle* sym, const char* name, size_t num_args,
                               const char* const* keys, WeftSymbolHandle* const* args) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  std::vector<Symbol> all = GatherSymbols(args, num_args, "args");
  std::vector<Symbol> positional;
  std::map<std::string, Symbol> kwargs;
  for (size_t i = 0; i < num_args; ++i) {
    if (!keys || !keys[i]) {
      if (!kwargs.empty())
        weft::Fail(StatusCode::kInvalidArgument, "argument 'keys[", i,
                   "]' is NULL (positional) after keyword arguments; positional arguments "
                   "must come first");
      positional.push_back(all[i]);
    } else if (!kwargs.emplace(keys[i], all[i]).second) {
      weft::Fail(StatusCode::kInvalidArgument, "argument 'keys': input '", keys[i],
                 "' is given twice");
    }
  }
  // Compose a copy, so that a failure leaves `sym` as it was.
  Symbol result = s->sym;
  result.Compose(positional, kwargs, name ? name : "");
  s->sym = std::move(result);
  s->json.reset();
  WEFT_API_END();
}

WeftStatus weft_symbol_group(WeftSymbolHandle* const* symbols, size_t num, WeftSymbolHandle** out) {
  WEFT_API_BEGIN();
  std::vector<Symbol> syms = GatherSymbols(symbols, num, "symbols");
  CheckNotNull(out, "out");
  *out = NewSymbol(Symbol::Group(syms));
  WEFT_API_END();
}

WeftStatus weft_symbol_copy(const WeftSymbolHandle* sym, WeftSymbolHandle** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  *out = NewSymbol(s->sym.Copy());
  WEFT_API_END();
}

WeftStatus weft_symbol_free(WeftSymbolHandle* sym) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(sym, "sym");
  WEFT_API_END();
}

/* ------------------------------------------------------------- structure */

WeftStatus weft_symbol_num_outputs(const WeftSymbolHandle* sym, size_t* out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  *out = s->sym.num_outputs();
  WEFT_API_END();
}

WeftStatus weft_symbol_get_output(const WeftSymbolHandle* sym, size_t index,
                                  WeftSymbolHandle** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  if (index >= s->sym.num_outputs()) {
    std::vector<std::string> names = s->sym.ListOutputs();
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + names[i];
    weft::Fail(StatusCode::kInvalidArgument, "argument 'index' is ", index, ", but the symbol has ",
               names.size(), " output(s) (", list, ")");
  }
  *out = NewSymbol(s->sym.GetOutput(index));
  WEFT_API_END();
}

WeftStatus weft_symbol_get_internals(const WeftSymbolHandle* sym, WeftSymbolHandle** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  *out = NewSymbol(s->sym.GetInternals());
  WEFT_API_END();
}

WeftStatus weft_symbol_get_children(const WeftSymbolHandle* sym, WeftSymbolHandle** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  *out = NewSymbol(s->sym.GetChildren());
  WEFT_API_END();
}

/* --------------------------------------------------------------- listing */

WeftStatus weft_symbol_list_arguments(const WeftSymbolHandle* sym, WeftStringList** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  ReturnList(s->sym.ListArguments(), out);
  WEFT_API_END();
}

WeftStatus weft_symbol_list_outputs(const WeftSymbolHandle* sym, WeftStringList** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  ReturnList(s->sym.ListOutputs(), out);
  WEFT_API_END();
}

WeftStatus weft_symbol_list_auxiliary_states(const WeftSymbolHandle* sym, WeftStringList** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  ReturnList(s->sym.ListAuxiliaryStates(), out);
  WEFT_API_END();
}

WeftStatus weft_symbol_list_inputs(const WeftSymbolHandle* sym, WeftStringList** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  ReturnList(s->sym.ListInputs(), out);
  WEFT_API_END();
}

WeftStatus weft_symbol_get_name(const WeftSymbolHandle* sym, WeftStringList** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  std::optional<std::string> name = s->sym.GetName();
  std::vector<std::string> items;
  if (name) items.push_back(*name);
  ReturnList(std::move(items), out);
  WEFT_API_END();
}

/* ------------------------------------------------------------ attributes */

WeftStatus weft_symbol_get_attr(const WeftSymbolHandle* sym, const char* key,
                                WeftStringList** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(key, "key");
  CheckNotNull(out, "out");
  std::optional<std::string> value = s->sym.GetAttr(key);
  std::vector<std::string> items;
  if (value) items.push_back(*value);
  ReturnList(std::move(items), out);
  WEFT_API_END();
}

WeftStatus weft_symbol_set_attr(WeftSymbolHandle* sym, const char* key, const char* value) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(key, "key");
  CheckNotNull(value, "value");
  s->sym.SetAttr(key, value);
  WEFT_API_END();
}

WeftStatus weft_symbol_list_attr(const WeftSymbolHandle* sym, int recursive,
                                 WeftStringList** out_keys, WeftStringList** out_values) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out_keys, "out_keys");
  CheckNotNull(out_values, "out_values");
  weft::StringMap attrs = recursive ? s->sym.ListAttr() : s->sym.ListAttrShallow();
  std::vector<std::string> keys, values;
  keys.reserve(attrs.size());
  values.reserve(attrs.size());
  for (auto& kv : attrs) {
    keys.push_back(kv.first);
    values.push_back(std::move(kv.second));
  }
  WeftStringList* k = NewStringList(std::move(keys));
  WeftStringList* v = nullptr;
  try {
    v = NewStringList(std::move(values));
  } catch (...) {
    weft_string_list_free(k);
    throw;
  }
  *out_keys = k;
  *out_values = v;
  WEFT_API_END();
}

}  // extern "C"
