// Writing recorded events as Chrome Trace Event JSON: one process per
// device ("cpu/0") for operators, segments, engine workers and memory, one
// per category ("kvstore", "data", "user", "engine") for the rest, with
// process_name and thread_name metadata events.
#include <nlohmann/json.hpp>

#include "profiler/profiler_internal.h"

namespace weft {
namespace profiler {
namespace internal {

namespace {

using Json = nlohmann::ordered_json;

constexpr CategoryInfo kInfos[] = {
    {"operator", "node", "inputs", ""},      // kSymbolic
    {"operator", "node", "inputs", ""},      // kImperative
    {"executor", "nodes", "", "num_nodes"},  // kExecutor
    {"engine", "op", "", "queued_us"},       // kEngine
    {"memory", "array", "", "bytes"},        // kMemory
    {"kvstore", "keys", "", "elements"},     // kKVStore
    {"data", "iterator", "", ""},            // kData
    {"user", "", "", ""},                    // kUser
};

int Bit(uint32_t cat) {
  int b = 0;
  while (cat > 1 && b < 7) {
    cat >>= 1;
    ++b;
  }
  return b;
}

std::string Process(const Event& e) {
  if (e.dev_type < 0) return Info(e.cat).name;
  const char* type = e.dev_type == static_cast<int8_t>(DeviceType::kGPU) ? "gpu" : "cpu";
  return std::string(type) + "/" + std::to_string(e.dev_id);
}

void Append(const Json& j, bool* first, std::string* out) {
  if (!*first) *out += ",\n";
  *first = false;
  *out += j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

int PidOf(const std::string& process, PidMap* pids, bool* first, std::string* out) {
  auto it = pids->ids.find(process);
  if (it != pids->ids.end()) return it->second;
  const int pid = static_cast<int>(pids->ids.size());
  pids->ids.emplace(process, pid);
  Append(Json{{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", process}}}},
         first, out);
  return pid;
}

}  // namespace

const CategoryInfo& Info(uint32_t cat) { return kInfos[Bit(cat)]; }

void WriteHeader(std::string* out) { *out += "{\n\"traceEvents\": [\n"; }

void WriteFooter(std::string* out) { *out += "\n],\n\"displayTimeUnit\": \"ms\"\n}\n"; }

void WriteEvents(const std::vector<Event>& events, const std::map<uint32_t, std::string>& threads,
                 PidMap* pids, bool* first, std::string* out) {
  std::map<std::pair<int, uint32_t>, bool> named;  // (pid, tid) given a thread_name here
  for (const Event& e : events) {
    const CategoryInfo& info = Info(e.cat);
    const int pid = PidOf(Process(e), pids, first, out);
    if (!named[{pid, e.tid}]) {
      named[{pid, e.tid}] = true;
      auto t = threads.find(e.tid);
      const std::string name = t != threads.end() ? t->second : "thread " + std::to_string(e.tid);
      Append(Json{{"name", "thread_name"},
                  {"ph", "M"},
                  {"pid", pid},
                  {"tid", e.tid},
                  {"args", {{"name", name}}}},
             first, out);
    }
    Json j{{"name", e.name},
           {"cat", info.name},
           {"ph", std::string(1, e.ph)},
           {"ts", static_cast<double>(e.ts) / 1000.0},
           {"pid", pid},
           {"tid", e.tid}};
    Json args = Json::object();
    if (e.ph == 'X') j["dur"] = static_cast<double>(e.dur) / 1000.0;
    if (e.ph == 'i') j["s"] = "t";
    if (e.ph == 'C') {
      args[e.name] = e.value;
    } else {
      if (e.arg1[0] && info.arg1_key[0]) args[info.arg1_key] = e.arg1;
      if (e.arg2[0] && info.arg2_key[0]) args[info.arg2_key] = e.arg2;
      if (info.value_key[0]) {
        if (e.cat == static_cast<uint32_t>(Category::kEngine))
          args[info.value_key] = static_cast<double>(e.value) / 1000.0;
        else
          args[info.value_key] = e.value;
      }
      if (e.cat == static_cast<uint32_t>(Category::kSymbolic)) args["mode"] = "symbolic";
      if (e.cat == static_cast<uint32_t>(Category::kImperative)) args["mode"] = "imperative";
    }
    if (!args.empty()) j["args"] = std::move(args);
    Append(j, first, out);
  }
}

}  // namespace internal
}  // namespace profiler
}  // namespace weft
