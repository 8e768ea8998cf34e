// Aggregate statistics of drained events (MXNet's AggregateStats): per
// category and name, the count and total/min/max of durations (memory
// events: of bytes), printed as MXNet's table or as JSON.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "profiler/profiler_internal.h"
#include "weft/mutex.h"
#include "weft/status.h"

namespace weft {
namespace profiler {
namespace internal {

namespace {

struct Stat {
  uint64_t count = 0;
  double total = 0, min = 0, max = 0;
};

// category name -> event name -> statistics; leaked (see recorder.cc).
struct Stats {
  Mutex mu;
  std::map<std::string, std::map<std::string, Stat>> by_cat WEFT_GUARDED_BY(mu);
};
Stats& S() {
  static Stats* s = new Stats;
  return *s;
}

bool IsMemory(const std::string& cat) { return cat == "memory"; }

double SortKey(const Stat& s, const std::string& by) {
  if (by == "count") return static_cast<double>(s.count);
  if (by == "min") return s.min;
  if (by == "max") return s.max;
  if (by == "avg") return s.count ? s.total / static_cast<double>(s.count) : 0;
  return s.total;
}

}  // namespace

void AddToStats(const Event& e) {
  if (e.ph == 'C') return;
  const bool memory = e.cat == static_cast<uint32_t>(Category::kMemory);
  // Durations in ms; memory in kB.
  const double v =
      memory ? static_cast<double>(e.value) / 1024.0 : static_cast<double>(e.dur) / 1e6;
  Stats& all = S();
  MutexLock l(&all.mu);
  Stat& s = all.by_cat[Info(e.cat).name][e.name];
  s.min = s.count ? std::min(s.min, v) : v;
  s.max = s.count ? std::max(s.max, v) : v;
  s.total += v;
  ++s.count;
}

std::string FormatStats(const AggregateOptions& o) {
  static const char* kSorts[] = {"total", "avg", "min", "max", "count"};
  if (std::find(std::begin(kSorts), std::end(kSorts), o.sort_by) == std::end(kSorts))
    Fail(StatusCode::kInvalidArgument, "profiler aggregate: sort_by '", o.sort_by,
         "' is not one of total, avg, min, max, count");
  if (o.format != "table" && o.format != "json")
    Fail(StatusCode::kInvalidArgument, "profiler aggregate: format '", o.format,
         "' is not 'table' or 'json'");
  Stats& all = S();
  MutexLock l(&all.mu);
  nlohmann::ordered_json json = {{"Time", nlohmann::ordered_json::object()},
                                 {"Memory", nlohmann::ordered_json::object()},
                                 {"Unit", {{"Time", "ms"}, {"Memory", "kB"}}}};
  std::string table =
      "Profile Statistics:\n\tNote the difference in units for different entries.\n";
  for (const auto& [cat, names] : all.by_cat) {
    std::vector<std::pair<std::string, Stat>> rows(names.begin(), names.end());
    std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
      const double ka = SortKey(a.second, o.sort_by), kb = SortKey(b.second, o.sort_by);
      return o.ascending ? ka < kb : ka > kb;
    });
    const bool mem = IsMemory(cat);
    const char* unit = mem ? "(kB)" : "(ms)";
    char line[256];
    table += cat + "\n=================\n";
    std::snprintf(line, sizeof(line), "%-40s %12s %14s %14s %14s %14s\n", "Name", "Total Count",
                  (std::string(mem ? "Total " : "Time ") + unit).c_str(),
                  (std::string("Min ") + unit).c_str(), (std::string("Max ") + unit).c_str(),
                  (std::string("Avg ") + unit).c_str());
    table += line;
    std::snprintf(line, sizeof(line), "%-40s %12s %14s %14s %14s %14s\n", "----", "-----------",
                  "---------", "---------", "---------", "---------");
    table += line;
    auto& group = json[mem ? "Memory" : "Time"][cat];
    for (const auto& [name, s] : rows) {
      const double avg = s.total / static_cast<double>(s.count);
      std::snprintf(line, sizeof(line), "%-40.40s %12llu %14.4f %14.4f %14.4f %14.4f\n",
                    name.c_str(), static_cast<unsigned long long>(s.count), s.total, s.min, s.max,
                    avg);
      table += line;
      group[name] = {
          {"Count", s.count}, {"Total", s.total}, {"Min", s.min}, {"Max", s.max}, {"Avg", avg}};
    }
    table += "\n";
  }
  if (o.reset) all.by_cat.clear();
  if (o.format == "json") return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  return table;
}

}  // namespace internal
}  // namespace profiler
}  // namespace weft
