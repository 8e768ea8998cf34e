// The OpenMP team size of the CPU ops the engines run, shrunk while other
// processes want the cores.
//
// A kernel's OpenMP region (Weft's loops, oneDNN's primitives) splits its work
// statically over the team and ends at a barrier. When another process takes
// one of the cores, the team member sharing it runs at a fraction of its
// speed, every region waits for it, and libgomp's waiting threads spin (its
// default policy) against the neighbour: 2-thread latency rose 2-170x with one
// or two busy processes beside it (docs/engine.md, "Threads under
// contention"). So the engines run each CPU op with a team of the cores the
// other processes leave: the OpenMP runtime's default (`full`:
// OMP_NUM_THREADS, else the cores) minus the threads of other processes that
// are runnable, at least 1.
//
// Measured, not guessed: every kSamplePeriodNs one op-running thread reads the
// system's runnable count (/proc/loadavg) and this process's runnable threads
// (/proc/self/task/*/stat); the difference, averaged over the last kWindow
// samples (none before the window is full), is the load of other processes. When this process may
// run on only some of the machine's CPUs (an affinity mask, a container's cpuset), the count is
// scaled by that fraction, as if the load were spread evenly: the kernel does not say which CPUs
// the runnable threads wait for. The team shrinks as soon as the average reaches half a thread more
// than the team leaves room for, and grows back once it is below 0.3 of one (hysteresis, so a
// neighbour at the threshold does not flip it every sample; one stray runnable thread in a window,
// which an idle machine shows now and then, changes nothing). Threads of this process do not count:
// the team's own spinning threads would otherwise look like load, and libgomp already shortens its
// spinning when the process oversubscribes the cores itself.
//
// A changed team can change results in their last bits (oneDNN's GEMMs split
// their reductions by thread count), so two runs of one model under changing
// load need not agree bit for bit; WEFT_THREAD_BUDGET=off keeps the full team
// always. Thread-safe.
#ifndef WEFT_CORE_SRC_ENGINE_THREAD_BUDGET_H_
#define WEFT_CORE_SRC_ENGINE_THREAD_BUDGET_H_

#include <array>
#include <cstdint>

namespace weft {
namespace engine {

constexpr int64_t kSamplePeriodNs = 20'000'000;  // 20 ms between samples
constexpr int kWindow = 5;                       // samples averaged (100 ms)

// The decision: fed samples, it says the team size. Not thread-safe by
// itself (ApplyThreadBudget serialises it).
class ThreadBudget {
 public:
  explicit ThreadBudget(int full) : full_(full), team_(full) {}
  // One sample: `others` threads of other processes were runnable (on the
  // CPUs this process may use: see OtherRunnable).
  void Observe(double others);
  int team() const { return team_; }
  int full() const { return full_; }

 private:
  const int full_;
  int team_;
  std::array<double, kWindow> samples_{};
  int count_ = 0;  // samples seen, up to kWindow
  int next_ = 0;   // ring position
};

// Sets the calling thread's OpenMP team size to the budget before it runs a
// CPU op (the engines call it from RunOprFn); samples the load when the
// period has passed. Most calls cost a clock read and two compares.
void ApplyThreadBudget();

// The team size CPU ops get now (for tests and diagnostics).
int CurrentThreadBudget();

// Test hook: turns the budget on or off for this process, overriding
// WEFT_THREAD_BUDGET (the C++ suite runs with it off, since its tests
// compare results of two runs bit for bit; thread_budget_test turns it on).
// Internal (not exported from libweft.so).
void SetThreadBudgetForTesting(bool enabled);

}  // namespace engine
}  // namespace weft

#endif  // WEFT_CORE_SRC_ENGINE_THREAD_BUDGET_H_
