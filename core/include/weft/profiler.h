// Profiler: MXNet's profiler (src/profiler/, mx.profiler) for Weft — what
// ran where and for how long, written as a Chrome Trace Event file
// (chrome://tracing, Perfetto) and summed in an aggregate table.
//
// Recording: instrumented code asks Active(category) (one relaxed atomic
// load; false while the profiler is stopped or paused, so an idle profiler
// costs a load and a branch) and records into its thread's ring buffer
// without a lock; a ring that fills up is drained by its own thread under
// that ring's mutex (otherwise uncontended). Dump, AggregateTable and the
// continuous-dump timer drain every ring into the profiler's store.
//
// What is recorded (docs/profiler.md describes each track):
//   operator  every kernel run (op name; node name; input shapes; device),
//             symbolic (executor, CachedOp) and imperative (Invoke) apart;
//   executor  an executor's bulk segments (the nodes one engine op runs);
//   engine    ops on engine workers (with the time they sat ready in a
//             queue), pushes, WaitForVar/WaitForAll on the waiting thread;
//   memory    storage allocations and frees with bytes, live bytes as a counter;
//   kvstore   KVStore init/push/pull; data: data iterators' batches;
//   user      ranges and markers from the C ABI (weft_profiler_range_*).
//
// Thread-safety: every function is thread-safe; events recorded by
// concurrent threads land on their own tracks.
#ifndef WEFT_PROFILER_H_
#define WEFT_PROFILER_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weft/device.h"

namespace weft {
namespace profiler {

// Event categories (bits of the active mask).
enum class Category : uint32_t {
  kSymbolic = 1,    // operators run by executors ("operator" in the trace)
  kImperative = 2,  // operators run by Invoke ("operator")
  kExecutor = 4,    // executor bulk segments
  kEngine = 8,      // engine ops on workers, pushes, waits
  kMemory = 16,     // allocations and frees
  kKVStore = 32,
  kData = 64,
  kUser = 128,
};

// MXNet's profiler configuration (MXSetProcessProfilerConfig's keys, with
// its defaults). profile_all turns every category on.
struct Config {
  bool profile_symbolic = true;
  bool profile_imperative = true;
  bool profile_memory = true;
  bool profile_api = true;  // the engine track: pushes, waits, queued ops
  std::string filename = "profile.json";
  bool continuous_dump = false;  // append to the file every dump_period seconds
  double dump_period = 1.0;
  bool aggregate_stats = false;  // MXNet's switch; Weft always aggregates
  // Parses MXNet's key/value form: profile_all, profile_symbolic,
  // profile_imperative, profile_memory, profile_api, filename,
  // continuous_dump, dump_period, aggregate_stats (booleans as
  // true/false/1/0). Throws Error(kInvalidArgument) naming an unknown key or
  // a bad value.
  static Config Parse(const std::vector<std::pair<std::string, std::string>>& kv);
};

// Replaces the configuration; refused (kInvalidArgument) while running.
void SetConfig(const Config& config);
Config GetConfig();

// MXNet's profiler states: kStop records nothing; kRun records what the
// configuration selects. Starting with continuous_dump starts the dump timer.
enum class State { kStop = 0, kRun = 1 };
void SetState(State state);
State GetState();
// Pause(true) stops recording without leaving kRun; Pause(false) resumes.
void Pause(bool paused);

// Writes the trace file: every event recorded since the profiler's first
// run (continuous_dump: the events since the last dump, appended).
// `finished` closes the file's JSON, stops the profiler and forgets the
// recorded events. Throws Error(kIO) when the file cannot be written.
void Dump(bool finished);
// The trace as a string, without writing or forgetting anything.
std::string TraceJson();

// The aggregate table (MXNet's AggregateStats::DumpTable): per category
// and name, count and total/min/max/mean time (memory: bytes). `format`
// "table" or "json"; `sort_by` "total", "avg", "min", "max" or "count";
// `reset` clears the statistics after printing.
struct AggregateOptions {
  std::string format = "table";
  std::string sort_by = "total";
  bool ascending = false;
  bool reset = false;
};
std::string AggregateTable(const AggregateOptions& options = {});

// ---- recording (instrumented code) ----

namespace internal {
extern std::atomic<uint32_t> g_active_mask;
}  // namespace internal

inline bool Active(Category c) {
  return (internal::g_active_mask.load(std::memory_order_relaxed) & static_cast<uint32_t>(c)) != 0;
}
// Nanoseconds on the profiler's steady clock.
int64_t NowNs();

// A complete event ("X"): `name` (e.g. the op), `arg1`/`arg2` (e.g. node
// name and input shapes; truncated to the event's fixed fields), on `dev`
// (no device: Context with dev_id -1), begin and end times, and a value
// (executor: nodes in the segment; engine: ns the op sat ready in a queue).
void RecordComplete(Category c, std::string_view name, std::string_view arg1, std::string_view arg2,
                    Context dev, int64_t begin_ns, int64_t end_ns, int64_t value = 0);
// An instant event ("i") with a value (memory: bytes; markers: 0).
void RecordInstant(Category c, std::string_view name, std::string_view arg1, Context dev,
                   int64_t value);
// A counter sample ("C").
void RecordCounter(Category c, std::string_view name, Context dev, int64_t value);

// Times a scope as one complete event when `c` was active at its start.
class Scope {
 public:
  Scope(Category c, std::string_view name, std::string_view arg1 = {}, Context dev = NoDevice())
      : c_(c), name_(name), arg1_(arg1), dev_(dev), begin_(Active(c) ? NowNs() : -1) {}
  ~Scope() {
    if (begin_ >= 0) RecordComplete(c_, name_, arg1_, {}, dev_, begin_, NowNs());
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  static Context NoDevice() { return Context{DeviceType::kCPU, -1}; }

 private:
  Category c_;
  std::string_view name_, arg1_;
  Context dev_;
  int64_t begin_;
};

// Per-thread user ranges (weft_profiler_range_push/pop): a stack of open
// ranges; Pop records the innermost as a complete "user" event.
void PushRange(std::string_view name);
// Throws Error(kInvalidArgument) when the thread has no open range.
void PopRange();

// Names the calling thread's track (a "thread_name" metadata event).
void SetThreadName(std::string_view name);

// Marks the calling thread as running an executor's nodes while alive, so
// operators it runs are recorded as symbolic.
class SymbolicScope {
 public:
  SymbolicScope();
  ~SymbolicScope();
  SymbolicScope(const SymbolicScope&) = delete;
  SymbolicScope& operator=(const SymbolicScope&) = delete;
  static bool Current();

 private:
  bool prev_;
};

// Events recorded and not yet dumped (tests), after draining every ring.
size_t PendingEventsForTesting();
// Stops the profiler and forgets its events, statistics and configuration (tests).
void ResetForTesting();

}  // namespace profiler
}  // namespace weft

#endif  // WEFT_PROFILER_H_
