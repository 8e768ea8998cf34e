// What the profiler's files share: the fixed-size event every ring holds,
// draining the rings into the store, and the category names.
#ifndef WEFT_CORE_SRC_PROFILER_PROFILER_INTERNAL_H_
#define WEFT_CORE_SRC_PROFILER_PROFILER_INTERNAL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "weft/profiler.h"

namespace weft {
namespace profiler {
namespace internal {

// One recorded event; strings are truncated copies (no allocation when
// recording). dev_type -1: no device.
struct Event {
  int64_t ts = 0, dur = 0, value = 0;
  uint32_t tid = 0;
  uint32_t cat = 0;  // a Category bit
  char ph = 'X';     // 'X' complete, 'i' instant, 'C' counter
  int8_t dev_type = -1;
  int16_t dev_id = 0;
  char name[48] = {};
  char arg1[64] = {};
  char arg2[112] = {};
};

// The trace's category name and argument keys of a Category bit.
struct CategoryInfo {
  const char* name;
  const char* arg1_key;
  const char* arg2_key;
  const char* value_key;
};
const CategoryInfo& Info(uint32_t cat);

// Moves every ring's events into `out` (in ring order, each ring's in
// recording order) and feeds them to the aggregate statistics.
void DrainAll(std::vector<Event>* out);
// Thread names set by SetThreadName, by profiler tid.
std::map<uint32_t, std::string> ThreadNames();

// Aggregate statistics (aggregate.cc), fed by DrainAll.
void AddToStats(const Event& e);
std::string FormatStats(const AggregateOptions& options);

// The trace's JSON pieces (trace_json.cc). `pids` assigns each device or
// category its process id, emitting a process_name event the first time.
struct PidMap {
  std::map<std::string, int> ids;
};
void WriteHeader(std::string* out);
void WriteEvents(const std::vector<Event>& events, const std::map<uint32_t, std::string>& threads,
                 PidMap* pids, bool* first, std::string* out);
void WriteFooter(std::string* out);

}  // namespace internal
}  // namespace profiler
}  // namespace weft

#endif  // WEFT_CORE_SRC_PROFILER_PROFILER_INTERNAL_H_
