// weft_symbol_summary / weft_symbol_to_dot: the reports of
// weft/graph_report.h (MXNet's print_summary and plot_network).
#include <string>
#include <vector>

#include "c_api_symbol_internal.h"
#include "weft/graph_report.h"
#include "weft/param.h"

using namespace weft;        // NOLINT: the C ABI's implementation
using namespace weft::capi;  // NOLINT

namespace {

bool BoolOption(const std::string& key, const std::string& v) {
  bool b = false;
  if (!ParseBool(v, &b))
    Fail(StatusCode::kInvalidArgument, "option '", key, "': expected 1/0/true/false, given '", v,
         "'");
  return b;
}

}  // namespace

extern "C" {

WeftStatus weft_symbol_summary(const WeftSymbolHandle* sym, size_t num_inputs,
                               const char* const* names, const size_t* ind_ptr, const int64_t* dims,
                               WeftStringList** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  const pass::ShapeMap shapes = ShapeInputs(num_inputs, names, "names", ind_ptr, dims, false);
  *out = NewStringList({FormatSummary(Summarize(s->sym, shapes))});
  WEFT_API_END();
}

WeftStatus weft_symbol_to_dot(const WeftSymbolHandle* sym, size_t num_inputs,
                              const char* const* names, const size_t* ind_ptr, const int64_t* dims,
                              size_t num_options, const char* const* option_keys,
                              const char* const* option_values, WeftStringList** out) {
  WEFT_API_BEGIN();
  auto s = GetObject(sym, "sym");
  CheckNotNull(out, "out");
  CheckArray(option_keys, num_options, "option_keys");
  CheckArray(option_values, num_options, "option_values");
  const pass::ShapeMap shapes = ShapeInputs(num_inputs, names, "names", ind_ptr, dims, false);
  DotOptions o;
  for (size_t i = 0; i < num_options; ++i) {
    if (!option_keys[i] || !option_values[i])
      Fail(StatusCode::kInvalidArgument, "option ", i, " has a NULL key or value");
    const std::string k = option_keys[i], v = option_values[i];
    if (k == "title")
      o.title = v;
    else if (k == "hide_weights")
      o.hide_weights = BoolOption(k, v);
    else if (k == "shapes")
      o.shapes = BoolOption(k, v);
    else if (k == "memory")
      o.memory = BoolOption(k, v);
    else if (k.rfind("node_attr.", 0) == 0 && k.size() > 10)
      o.node_attrs[k.substr(10)] = v;
    else
      Fail(StatusCode::kInvalidArgument, "unknown option '", k,
           "' (expected title, hide_weights, shapes, memory or node_attr.<name>)");
  }
  *out = NewStringList({ToDot(s->sym, shapes, o)});
  WEFT_API_END();
}

}  // extern "C"
