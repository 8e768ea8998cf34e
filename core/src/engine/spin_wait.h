// SpinWait: polls a condition for a short time before the caller blocks on
// a condition variable. On an idle machine waking a sleeping thread takes
// tens of microseconds (the core leaves its idle state), as much as a whole
// small kernel; engine workers and waiters that get their work or result
// within the budget skip that cost. The poll yields the CPU on every round,
// so a spinning thread never holds a core another runnable thread (an
// OpenMP team member, say) wants.
#ifndef WEFT_CORE_SRC_ENGINE_SPIN_WAIT_H_
#define WEFT_CORE_SRC_ENGINE_SPIN_WAIT_H_

#include <chrono>
#include <thread>

namespace weft {
namespace engine {

// How long an idle worker polls its queue before it sleeps.
constexpr std::chrono::microseconds kSpinBudget{50};
// How long WaitForVar polls for its result: longer, since the waiter has
// nothing else to do and most kernels it waits for take well under 1 ms.
constexpr std::chrono::microseconds kWaitSpinBudget{500};

// True once `ready()` holds, false when the budget ran out first.
template <typename Ready>
bool SpinWait(Ready ready, std::chrono::microseconds budget = kSpinBudget) {
  if (ready()) return true;
  const auto until = std::chrono::steady_clock::now() + budget;
  while (std::chrono::steady_clock::now() < until) {
    std::this_thread::yield();
    if (ready()) return true;
  }
  return false;
}

}  // namespace engine
}  // namespace weft

#endif  // WEFT_CORE_SRC_ENGINE_SPIN_WAIT_H_
