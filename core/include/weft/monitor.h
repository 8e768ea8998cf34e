// Monitor: MXNet's mx.monitor.Monitor over executors' monitor callbacks
// (Executor::SetMonitorCallback) — every `interval`-th batch, the values
// of the entries whose names match `pattern` (std::regex, whole name),
// reduced by MXNet's default statistic norm(x) / sqrt(size).
//
// Use: Install each executor, call Tic() before a batch's Forward and
// Toc() after its Backward. Toc waits for the values and returns the
// statistics of the batch (none when the batch was not sampled).
// Thread-safety: one thread drives Tic/Toc; the callbacks run on the
// threads calling Forward/Backward and only queue values under a lock.
#ifndef WEFT_MONITOR_H_
#define WEFT_MONITOR_H_

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "weft/executor.h"
#include "weft/mutex.h"
#include "weft/ndarray.h"

namespace weft {

class Monitor {
 public:
  // Throws Error(kInvalidArgument) for interval < 1 or a malformed pattern.
  explicit Monitor(int interval, const std::string& pattern = ".*", bool sort = false,
                   bool monitor_all = false);
  // Sets `ex`'s monitor callback to this monitor (which must outlive the
  // executor's monitored calls).
  void Install(Executor* ex);
  // Starts a batch: it is sampled when the batch count is a multiple of interval.
  void Tic();
  struct Stat {
    int step;  // the batch number (counted by Tic, from 0)
    std::string name;
    double value;
  };
  // Ends the batch: the statistic of every value queued since Tic (in
  // the order the nodes ran, or by name when `sort`).
  std::vector<Stat> Toc();
  // MXNet's default statistic of one array: norm(x) / sqrt(size).
  static double NormStat(const NDArray& a);

 private:
  void Record(const std::string& name, const NDArray& value);

  const int interval_;
  const std::regex pattern_;
  const bool sort_, monitor_all_;
  Mutex mu_;
  int step_ WEFT_GUARDED_BY(mu_) = -1;
  bool active_ WEFT_GUARDED_BY(mu_) = false;
  std::vector<std::pair<std::string, NDArray>> queue_ WEFT_GUARDED_BY(mu_);
};

// One monitor callback for several executors (a predictor's pool, a
// CachedOp's): Set replaces it; Apply gives an executor the current one
// when the version it last got is older. Thread-safe.
class SharedMonitor {
 public:
  void Set(Executor::MonitorCallback callback, bool monitor_all) WEFT_EXCLUDES(mu_);
  // `*version`: what `ex` last got (0 at first), updated.
  void Apply(Executor* ex, uint64_t* version) WEFT_EXCLUDES(mu_);

 private:
  Mutex mu_;
  Executor::MonitorCallback callback_ WEFT_GUARDED_BY(mu_);
  bool monitor_all_ WEFT_GUARDED_BY(mu_) = false;
  uint64_t version_ WEFT_GUARDED_BY(mu_) = 0;
};

}  // namespace weft

#endif  // WEFT_MONITOR_H_
