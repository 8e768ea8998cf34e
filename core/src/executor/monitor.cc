// Monitor (weft/monitor.h): sampling batches and reducing queued values.
#include "weft/monitor.h"

#include <algorithm>
#include <cmath>

#include "weft/imperative.h"
#include "weft/status.h"

namespace weft {

namespace {
std::regex Compile(const std::string& pattern) {
  try {
    return std::regex(pattern);
  } catch (const std::regex_error& e) {
    Fail(StatusCode::kInvalidArgument, "Monitor: pattern '", pattern, "' is not a regex (",
         e.what(), ")");
  }
}
}  // namespace

Monitor::Monitor(int interval, const std::string& pattern, bool sort, bool monitor_all)
    : interval_(interval), pattern_(Compile(pattern)), sort_(sort), monitor_all_(monitor_all) {
  if (interval < 1)
    Fail(StatusCode::kInvalidArgument, "Monitor: interval must be >= 1, given ", interval);
}

void Monitor::Install(Executor* ex) {
  WEFT_CHECK(ex) << "Monitor::Install: null executor";
  ex->SetMonitorCallback(
      [this](const std::string& name, const NDArray& value) { Record(name, value); }, monitor_all_);
}

void Monitor::Record(const std::string& name, const NDArray& value) {
  MutexLock l(&mu_);
  if (active_ && std::regex_match(name, pattern_)) queue_.emplace_back(name, value);
}

void Monitor::Tic() {
  MutexLock l(&mu_);
  ++step_;
  active_ = step_ % interval_ == 0;
  queue_.clear();
}

std::vector<Monitor::Stat> Monitor::Toc() {
  std::vector<std::pair<std::string, NDArray>> queued;
  int step = 0;
  {
    MutexLock l(&mu_);
    queued.swap(queue_);
    active_ = false;
    step = step_;
  }
  std::vector<Stat> out;
  for (const auto& [name, value] : queued) out.push_back({step, name, NormStat(value)});
  if (sort_)
    std::stable_sort(out.begin(), out.end(),
                     [](const Stat& a, const Stat& b) { return a.name < b.name; });
  return out;
}

void SharedMonitor::Set(Executor::MonitorCallback callback, bool monitor_all) {
  MutexLock l(&mu_);
  callback_ = std::move(callback);
  monitor_all_ = monitor_all;
  ++version_;
}

void SharedMonitor::Apply(Executor* ex, uint64_t* version) {
  MutexLock l(&mu_);
  if (*version == version_) return;
  ex->SetMonitorCallback(callback_, monitor_all_);
  *version = version_;
}

double Monitor::NormStat(const NDArray& a) {
  const NDArray wide = Invoke(a.runtime(), "Cast", {a}, {{"dtype", "float64"}})[0];
  std::vector<double> v(static_cast<size_t>(wide.Size()));
  wide.CopyToHost(v.data(), v.size() * sizeof(double));
  double sum = 0;
  for (double x : v) sum += x * x;
  return v.empty() ? 0.0 : std::sqrt(sum) / std::sqrt(static_cast<double>(v.size()));
}

}  // namespace weft
