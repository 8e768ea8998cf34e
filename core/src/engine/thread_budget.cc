// ThreadBudget (thread_budget.h): the decision, the load sampler and the
// per-op hook.
#include "engine/thread_budget.h"

#include "engine/engine_impl.h"

#include <dirent.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "weft/mutex.h"

namespace weft {
namespace engine {

void ThreadBudget::Observe(double others) {
  samples_[next_] = others < 0 ? 0 : others;
  next_ = (next_ + 1) % kWindow;
  count_ = count_ < kWindow ? count_ + 1 : kWindow;
  if (count_ < kWindow) return;  // one early sample must not decide (it did: 1 of 2 at start)
  double load = 0;
  for (double x : samples_) load += x;
  load /= kWindow;
  auto clamp = [&](int t) { return std::max(1, std::min(full_, t)); };
  const int shrink_to = clamp(full_ - static_cast<int>(load + 0.5));
  const int grow_to = clamp(full_ - static_cast<int>(load + 0.7));
  if (shrink_to < team_)
    team_ = shrink_to;
  else if (grow_to > team_)
    team_ = grow_to;
}

namespace {

// Runnable threads of other processes now: the system's runnable count
// (/proc/loadavg's 4th field, "running/total") minus this process's threads
// in state R (/proc/self/task/*/stat), times the share of the online CPUs
// this process may use. -1 when the counts cannot be read.
double OtherRunnable() {
  int system = -1;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    double a, b, c;
    if (std::fscanf(f, "%lf %lf %lf %d/", &a, &b, &c, &system) != 4) system = -1;
    std::fclose(f);
  }
  if (system < 0) return -1;
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return -1;
  int own = 0;
  char buf[512];
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const std::string path = std::string("/proc/self/task/") + e->d_name + "/stat";
    if (FILE* f = std::fopen(path.c_str(), "r")) {
      const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
      std::fclose(f);
      buf[n] = '\0';
      // "tid (comm) S ...": the state follows the last ')' (comm may hold any byte).
      const char* close = std::strrchr(buf, ')');
      if (close && close[1] == ' ' && close[2] == 'R') ++own;
    }
  }
  closedir(dir);
  static const double share = [] {
    cpu_set_t set;
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online <= 0 || sched_getaffinity(0, sizeof set, &set) != 0) return 1.0;
    return std::min(1.0, static_cast<double>(CPU_COUNT(&set)) / static_cast<double>(online));
  }();
  return std::max(0, system - own) * share;
}

int DefaultTeam() {
#ifdef _OPENMP
  return std::max(1, omp_get_max_threads());  // before any thread's team is changed
#else
  return 1;
#endif
}

bool BudgetEnabled() {
  const char* env = std::getenv("WEFT_THREAD_BUDGET");
  return !(env && (std::strcmp(env, "off") == 0 || std::strcmp(env, "0") == 0));
}

class Controller {
 public:
  Controller() : full_(DefaultTeam()), budget_(full_) {
    team_.store(full_);
    enabled_.store(BudgetEnabled() && full_ > 1);
  }

  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }
  void set_enabled(bool on) {
    enabled_.store(on && full_ > 1);
    if (!on) team_.store(full_);
  }
  int team() const { return team_.load(std::memory_order_relaxed); }

  // Samples when the period has passed (one thread at a time; others go on).
  void MaybeSample(int64_t now) {
    int64_t due = next_sample_.load(std::memory_order_relaxed);
    if (now < due) return;
    if (!next_sample_.compare_exchange_strong(due, now + kSamplePeriodNs)) return;
    const double others = OtherRunnable();
    if (others < 0) return;
    MutexLock lock(&mu_);
    budget_.Observe(others);
    team_.store(budget_.team(), std::memory_order_relaxed);
  }

 private:
  const int full_;
  std::atomic<bool> enabled_{false};
  std::atomic<int> team_{1};
  std::atomic<int64_t> next_sample_{0};
  Mutex mu_;
  ThreadBudget budget_ WEFT_GUARDED_BY(mu_);
};

Controller& GlobalController() {
  static Controller* c = new Controller();  // leaked: engine threads may outlive statics
  return *c;
}

}  // namespace

void ApplyThreadBudget() {
#ifdef _OPENMP
  Controller& c = GlobalController();
  thread_local int applied = 0;
  if (!c.enabled() && applied == 0) return;  // never changed on this thread: nothing to undo
  if (c.enabled()) c.MaybeSample(SteadyNowNs());
  const int want = c.team();
  if (want != applied) {
    omp_set_num_threads(want);
    applied = want;
  }
#endif
}

int CurrentThreadBudget() {
  Controller& c = GlobalController();
  return c.team();
}

void SetThreadBudgetForTesting(bool enabled) { GlobalController().set_enabled(enabled); }

}  // namespace engine
}  // namespace weft
