// `weft run --init NAME [--seed N]`: fills the arguments and auxiliary
// states that neither --params nor --input supplies, as MXNet's Module does
// for a model without weights. Shapes and dtypes come from partial inference
// over the arrays given; values from the C ABI's initializer (MXNet's suffix
// rules: *weight by the rule, *bias/*beta/*moving_mean 0, *gamma/*moving_var
// 1), a variable's "__init__" attribute overriding it. Inputs (names ending
// in "data" or "label", MXNet's data/label names) are no parameters: they
// get zeros.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_init.h"

namespace weft_cli {
namespace {

using Init = Owned<WeftInitializer, weft_initializer_free>;

bool EndsWith(const std::string& s, const char* suffix) {
  const std::string t = suffix;
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

struct Slot {
  int ndim = -1;
  std::vector<int64_t> dims;
  int dtype = -1;
};

// Shapes and dtypes of every argument and auxiliary state, inferred from
// the arrays in `values` (those naming a variable of `sym`).
std::map<std::string, Slot> InferSlots(const WeftSymbolHandle* sym,
                                       const std::vector<std::string>& variables,
                                       const std::map<std::string, Array>& values) {
  std::vector<const char*> names;
  std::vector<size_t> ind_ptr{0};
  std::vector<int64_t> dims;
  std::vector<int> codes;
  for (const std::string& v : variables) {
    auto it = values.find(v);
    if (it == values.end()) continue;
    int ndim = 0, code = -1;
    Check(weft_ndarray_ndim(it->second.get(), &ndim), "run --init");
    std::vector<int64_t> d(static_cast<size_t>(ndim));
    if (ndim > 0) Check(weft_ndarray_shape(it->second.get(), d.data(), d.size()), "run --init");
    Check(weft_ndarray_dtype(it->second.get(), &code), "run --init");
    names.push_back(v.c_str());
    dims.insert(dims.end(), d.begin(), d.end());
    ind_ptr.push_back(dims.size());
    codes.push_back(code);
  }
  ShapeRes shapes;
  Check(weft_symbol_infer_shape_partial(sym, names.size(), names.data(), ind_ptr.data(),
                                        dims.data(), shapes.out()),
        "run --init");
  TypeRes types;
  Check(weft_symbol_infer_type_partial(sym, names.size(), names.data(), codes.data(), types.out()),
        "run --init");
  std::map<std::string, Slot> out;
  for (int group : {WEFT_GROUP_ARGUMENTS, WEFT_GROUP_AUX_STATES}) {
    size_t n = 0;
    Check(weft_shape_result_count(shapes.get(), group, &n), "run --init");
    for (size_t i = 0; i < n; ++i) {
      const char* name = nullptr;
      Check(weft_shape_result_name(shapes.get(), group, i, &name), "run --init");
      Slot& s = out[name];
      Check(weft_shape_result_ndim(shapes.get(), group, i, &s.ndim), "run --init");
      if (s.ndim > 0) {
        s.dims.resize(static_cast<size_t>(s.ndim));
        Check(weft_shape_result_dims(shapes.get(), group, i, s.dims.data(), s.dims.size()),
              "run --init");
      }
      Check(weft_type_result_dtype(types.get(), group, i, &s.dtype), "run --init");
    }
  }
  return out;
}

// The "__init__" attribute of every variable that has one.
std::map<std::string, std::string> InitAttrs(const WeftSymbolHandle* sym) {
  WeftStringList *keys = nullptr, *vals = nullptr;
  Check(weft_symbol_list_attr(sym, 1, &keys, &vals), "run --init");
  std::vector<std::string> k = Strings(keys, "run --init"), v = Strings(vals, "run --init");
  std::map<std::string, std::string> out;
  const std::string suffix = "$__init__";
  for (size_t i = 0; i < k.size() && i < v.size(); ++i)
    if (EndsWith(k[i], suffix.c_str())) out[k[i].substr(0, k[i].size() - suffix.size())] = v[i];
  return out;
}

// An initializer from MXNet's serialised form: ["name", {params}] or a bare name.
Init FromAttr(const std::string& param, const std::string& text, uint64_t seed) {
  std::string name = text;
  std::vector<std::string> keys, vals;
  if (!text.empty() && (text[0] == '[' || text[0] == '"')) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    const bool list =
        j.is_array() && !j.empty() && j[0].is_string() && (j.size() == 1 || j[1].is_object());
    if (!list && !j.is_string())
      throw Exit{1, "weft run --init: error: parameter '" + param + "': bad __init__ attribute '" +
                        text + "'"};
    name = list ? j[0].get<std::string>() : j.get<std::string>();
    if (list && j.size() > 1) {
      for (const auto& [k, v] : j[1].items()) {
        keys.push_back(k);
        vals.push_back(v.is_string()    ? v.get<std::string>()
                       : v.is_boolean() ? (v.get<bool>() ? "True" : "False")
                                        : v.dump());
      }
    }
  }
  std::vector<const char*> ck, cv;
  for (size_t i = 0; i < keys.size(); ++i) {
    ck.push_back(keys[i].c_str());
    cv.push_back(vals[i].c_str());
  }
  Init init;
  Check(weft_initializer_create(name.c_str(), ck.data(), cv.data(), ck.size(), seed, init.out()),
        "run --init (__init__ of '" + param + "')");
  return init;
}

// SplitMix64: a well-spread seed for the i-th __init__ initializer.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

InitReport FillMissing(const WeftSymbolHandle* sym, const std::vector<std::string>& variables,
                       const std::vector<std::string>& missing, const std::string& init_name,
                       uint64_t seed, std::map<std::string, Array>* values) {
  std::map<std::string, Slot> slots = InferSlots(sym, variables, *values);
  std::string unknown;
  for (const std::string& name : missing) {
    const Slot& s = slots[name];
    bool known = s.ndim >= 0;
    for (int64_t d : s.dims) known = known && d > 0;
    if (!known) unknown += (unknown.empty() ? "" : ", ") + name;
  }
  if (!unknown.empty())
    throw Exit{1, "weft run --init: error: cannot infer the shape of " + unknown +
                      " from the arrays given; give them with --input NAME=FILE.npy"};

  Init rule, zero;
  Check(weft_initializer_create(init_name.c_str(), nullptr, nullptr, 0, seed, rule.out()),
        "run --init");
  Check(weft_initializer_create("zero", nullptr, nullptr, 0, 0, zero.out()), "run --init");
  const std::map<std::string, std::string> attrs = InitAttrs(sym);
  InitReport report;
  uint64_t num_attr = 0;
  for (const std::string& name : missing) {
    const Slot& s = slots[name];
    Array arr;
    const int dtype = s.dtype < 0 ? 0 : s.dtype;  // float32 unless inferred
    Check(weft_ndarray_create(s.dims.data(), s.ndim, dtype, WEFT_CPU, 0, arr.out()), "run --init");
    const std::string ctx = "run --init ('" + name + "')";
    auto attr = attrs.find(name);
    if (EndsWith(name, "data") || EndsWith(name, "label")) {
      Check(weft_initializer_init(zero.get(), name.c_str(), arr.get()), ctx);
      report.zero_inputs.push_back(name);
    } else if (attr != attrs.end() && !attr->second.empty()) {
      // MXNet applies an __init__ initializer's own rule whatever the name's
      // suffix; the C ABI applies the suffix rules, so the name given to it
      // ends in "weight" (the suffix that selects the rule).
      Init own = FromAttr(name, attr->second, Mix(seed ^ Mix(++num_attr)));
      Check(weft_initializer_init(own.get(), (name + " (__init__) weight").c_str(), arr.get()),
            ctx);
      report.from_attr.push_back(name);
    } else {
      Check(weft_initializer_init(rule.get(), name.c_str(), arr.get()), ctx);
    }
    values->erase(name);
    values->emplace(name, std::move(arr));
  }
  return report;
}

}  // namespace weft_cli
