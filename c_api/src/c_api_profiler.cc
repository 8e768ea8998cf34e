// weft_profiler_*: the process profiler (weft/profiler.h) behind MXNet's
// profiler calls.
#include "c_api_internal.h"
#include "c_api_symbol_internal.h"
#include "weft/profiler.h"

using namespace weft;        // NOLINT: the C ABI's implementation
using namespace weft::capi;  // NOLINT

WeftStatus weft_profiler_set_config(size_t num, const char* const* keys,
                                    const char* const* values) {
  WEFT_API_BEGIN();
  CheckArray(keys, num, "keys");
  CheckArray(values, num, "values");
  std::vector<std::pair<std::string, std::string>> kv;
  for (size_t i = 0; i < num; ++i) {
    if (!keys[i] || !values[i])
      Fail(StatusCode::kInvalidArgument, "argument '", keys[i] ? "values" : "keys", "[", i,
           "]' is NULL");
    kv.emplace_back(keys[i], values[i]);
  }
  profiler::SetConfig(profiler::Config::Parse(kv));
  WEFT_API_END();
}

WeftStatus weft_profiler_set_state(int state) {
  WEFT_API_BEGIN();
  if (state != 0 && state != 1)
    Fail(StatusCode::kInvalidArgument, "state must be 0 (stop) or 1 (run), given ", state);
  profiler::SetState(state ? profiler::State::kRun : profiler::State::kStop);
  WEFT_API_END();
}

WeftStatus weft_profiler_get_state(int* out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  *out = profiler::GetState() == profiler::State::kRun ? 1 : 0;
  WEFT_API_END();
}

WeftStatus weft_profiler_pause(int paused) {
  WEFT_API_BEGIN();
  profiler::Pause(paused != 0);
  WEFT_API_END();
}

WeftStatus weft_profiler_dump(int finished) {
  WEFT_API_BEGIN();
  profiler::Dump(finished != 0);
  WEFT_API_END();
}

WeftStatus weft_profiler_trace(WeftStringList** out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  *out = NewStringList({profiler::TraceJson()});
  WEFT_API_END();
}

WeftStatus weft_profiler_aggregate(int reset, const char* format, const char* sort_by,
                                   int ascending, WeftStringList** out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  profiler::AggregateOptions o;
  if (format) o.format = format;
  if (sort_by) o.sort_by = sort_by;
  o.ascending = ascending != 0;
  o.reset = reset != 0;
  *out = NewStringList({profiler::AggregateTable(o)});
  WEFT_API_END();
}

WeftStatus weft_profiler_range_push(const char* name) {
  WEFT_API_BEGIN();
  CheckNotNull(name, "name");
  profiler::PushRange(name);
  WEFT_API_END();
}

WeftStatus weft_profiler_range_pop(void) {
  WEFT_API_BEGIN();
  profiler::PopRange();
  WEFT_API_END();
}

WeftStatus weft_profiler_set_marker(const char* name) {
  WEFT_API_BEGIN();
  CheckNotNull(name, "name");
  if (profiler::Active(profiler::Category::kUser))
    profiler::RecordInstant(profiler::Category::kUser, name, {}, profiler::Scope::NoDevice(), 0);
  WEFT_API_END();
}

WeftStatus weft_profiler_set_counter(const char* name, int64_t value) {
  WEFT_API_BEGIN();
  CheckNotNull(name, "name");
  if (profiler::Active(profiler::Category::kUser))
    profiler::RecordCounter(profiler::Category::kUser, name, profiler::Scope::NoDevice(), value);
  WEFT_API_END();
}
