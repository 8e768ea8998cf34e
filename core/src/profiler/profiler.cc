// The profiler's control side: configuration, run/pause/stop, the store of
// drained events, Dump (whole file or continuous appends) and its timer.
#include <condition_variable>
#include <fstream>
#include <thread>

#include "profiler/profiler_internal.h"
#include "weft/mutex.h"
#include "weft/param.h"
#include "weft/status.h"

namespace weft {
namespace profiler {

namespace {

bool ParseBool(const std::string& key, const std::string& v) {
  bool b = false;
  if (!weft::ParseBool(v, &b))
    Fail(StatusCode::kInvalidArgument, "profiler config '", key,
         "': expected true/false/1/0, given '", v, "'");
  return b;
}

struct ProfilerState {
  Mutex mu;
  Config config WEFT_GUARDED_BY(mu);
  State state WEFT_GUARDED_BY(mu) = State::kStop;
  bool paused WEFT_GUARDED_BY(mu) = false;
  std::vector<internal::Event> store WEFT_GUARDED_BY(mu);  // drained, not yet forgotten
  internal::PidMap pids WEFT_GUARDED_BY(mu);               // of the continuous file
  bool appending WEFT_GUARDED_BY(mu) = false;              // continuous file has its header
  // The continuous-dump timer.
  std::thread timer;
  std::condition_variable timer_cv;
  bool timer_stop WEFT_GUARDED_BY(mu) = false;
};

ProfilerState& S() {
  static ProfilerState* s = new ProfilerState;  // leaked: recording may outlive statics
  return *s;
}

uint32_t MaskOf(const Config& c) {
  uint32_t m = static_cast<uint32_t>(Category::kKVStore) | static_cast<uint32_t>(Category::kData) |
               static_cast<uint32_t>(Category::kUser);
  if (c.profile_symbolic)
    m |= static_cast<uint32_t>(Category::kSymbolic) | static_cast<uint32_t>(Category::kExecutor);
  if (c.profile_imperative) m |= static_cast<uint32_t>(Category::kImperative);
  if (c.profile_memory) m |= static_cast<uint32_t>(Category::kMemory);
  if (c.profile_api) m |= static_cast<uint32_t>(Category::kEngine);
  return m;
}

void UpdateMask(ProfilerState& s) WEFT_REQUIRES(s.mu) {
  const bool on = s.state == State::kRun && !s.paused;
  internal::g_active_mask.store(on ? MaskOf(s.config) : 0, std::memory_order_relaxed);
}

void Drain(ProfilerState& s) WEFT_REQUIRES(s.mu) { internal::DrainAll(&s.store); }

void WriteFile(const std::string& path, const std::string& text, bool append) {
  std::ofstream f(path, append ? std::ios::app : std::ios::trunc);
  f << text;
  f.flush();
  if (!f) Fail(StatusCode::kIO, "profiler dump: cannot write '", path, "'");
}

void DumpLocked(ProfilerState& s, bool finished) WEFT_REQUIRES(s.mu) {
  Drain(s);
  const auto threads = internal::ThreadNames();
  std::string text;
  bool first = !s.appending;
  if (s.config.continuous_dump) {
    if (!s.appending) internal::WriteHeader(&text);
    internal::WriteEvents(s.store, threads, &s.pids, &first, &text);
    if (finished) internal::WriteFooter(&text);
    WriteFile(s.config.filename, text, s.appending);
    s.appending = !finished;
    if (finished) s.pids = {};
    s.store.clear();
  } else {
    internal::PidMap pids;
    first = true;
    internal::WriteHeader(&text);
    internal::WriteEvents(s.store, threads, &pids, &first, &text);
    internal::WriteFooter(&text);
    WriteFile(s.config.filename, text, false);
    if (finished) s.store.clear();
  }
}

void StopTimer(ProfilerState& s) WEFT_EXCLUDES(s.mu) {
  {
    MutexLock l(&s.mu);
    s.timer_stop = true;
  }
  s.timer_cv.notify_all();
  if (s.timer.joinable() && s.timer.get_id() != std::this_thread::get_id()) s.timer.join();
}

void StartTimer(ProfilerState& s, double period) WEFT_EXCLUDES(s.mu) {
  StopTimer(s);
  {
    MutexLock l(&s.mu);
    s.timer_stop = false;
  }
  const auto wait = std::chrono::duration<double>(period);
  s.timer = std::thread([&s, wait] {
    MutexLock l(&s.mu);
    while (!s.timer_stop) {
      const auto deadline = std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(wait);
      while (!s.timer_stop && std::chrono::steady_clock::now() < deadline)
        l.WaitUntil(&s.timer_cv, deadline);
      if (s.timer_stop) break;
      try {
        DumpLocked(s, false);
      } catch (const Error&) {
        // an unwritable file: the next Dump call reports it
      }
    }
  });
}

}  // namespace

Config Config::Parse(const std::vector<std::pair<std::string, std::string>>& kv) {
  Config c;
  for (const auto& [k, v] : kv) {
    if (k == "profile_all") {
      const bool all = ParseBool(k, v);
      c.profile_symbolic = c.profile_imperative = c.profile_memory = c.profile_api = all;
    } else if (k == "profile_symbolic") {
      c.profile_symbolic = ParseBool(k, v);
    } else if (k == "profile_imperative") {
      c.profile_imperative = ParseBool(k, v);
    } else if (k == "profile_memory") {
      c.profile_memory = ParseBool(k, v);
    } else if (k == "profile_api") {
      c.profile_api = ParseBool(k, v);
    } else if (k == "continuous_dump") {
      c.continuous_dump = ParseBool(k, v);
    } else if (k == "aggregate_stats") {
      c.aggregate_stats = ParseBool(k, v);
    } else if (k == "filename") {
      if (v.empty()) Fail(StatusCode::kInvalidArgument, "profiler config 'filename' is empty");
      c.filename = v;
    } else if (k == "dump_period") {
      char* end = nullptr;
      c.dump_period = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(c.dump_period > 0) || c.dump_period > 86400)
        Fail(StatusCode::kInvalidArgument,
             "profiler config 'dump_period': expected seconds in (0, 86400], given '", v, "'");
    } else {
      Fail(StatusCode::kInvalidArgument, "profiler config: unknown key '", k,
           "' (expected profile_all, profile_symbolic, profile_imperative, profile_memory, "
           "profile_api, filename, continuous_dump, dump_period, aggregate_stats)");
    }
  }
  return c;
}

void SetConfig(const Config& config) {
  ProfilerState& s = S();
  MutexLock l(&s.mu);
  if (s.state == State::kRun)
    Fail(StatusCode::kInvalidArgument, "profiler config: stop the profiler before configuring it");
  s.config = config;
  s.appending = false;
  s.pids = {};
}

Config GetConfig() {
  ProfilerState& s = S();
  MutexLock l(&s.mu);
  return s.config;
}

void SetState(State state) {
  ProfilerState& s = S();
  bool continuous = false;
  double period = 1;
  {
    MutexLock l(&s.mu);
    if (state == s.state) return;
    s.state = state;
    s.paused = false;
    UpdateMask(s);
    continuous = s.config.continuous_dump;
    period = s.config.dump_period;
  }
  if (state == State::kRun && continuous)
    StartTimer(s, period);
  else if (state == State::kStop)
    StopTimer(s);
}

State GetState() {
  ProfilerState& s = S();
  MutexLock l(&s.mu);
  return s.state;
}

void Pause(bool paused) {
  ProfilerState& s = S();
  MutexLock l(&s.mu);
  s.paused = paused;
  UpdateMask(s);
}

void Dump(bool finished) {
  ProfilerState& s = S();
  if (finished) {
    {
      MutexLock l(&s.mu);
      s.state = State::kStop;
      UpdateMask(s);
    }
    StopTimer(s);
  }
  MutexLock l(&s.mu);
  DumpLocked(s, finished);
}

std::string TraceJson() {
  ProfilerState& s = S();
  MutexLock l(&s.mu);
  Drain(s);
  std::string text;
  internal::PidMap pids;
  bool first = true;
  internal::WriteHeader(&text);
  internal::WriteEvents(s.store, internal::ThreadNames(), &pids, &first, &text);
  internal::WriteFooter(&text);
  return text;
}

std::string AggregateTable(const AggregateOptions& options) {
  ProfilerState& s = S();
  MutexLock l(&s.mu);
  Drain(s);
  return internal::FormatStats(options);
}

size_t PendingEventsForTesting() {
  ProfilerState& s = S();
  MutexLock l(&s.mu);
  Drain(s);
  return s.store.size();
}

void ResetForTesting() {
  SetState(State::kStop);
  ProfilerState& s = S();
  MutexLock l(&s.mu);
  Drain(s);
  s.store.clear();
  s.config = Config();
  s.appending = false;
  s.pids = {};
  s.paused = false;
  UpdateMask(s);
  internal::FormatStats(AggregateOptions{"table", "total", false, true});
}

}  // namespace profiler
}  // namespace weft
