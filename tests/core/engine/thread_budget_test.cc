// ThreadBudget (core/src/engine/thread_budget.h): the decision fed chosen
// loads (the average of a full window of samples, shrinking at half a
// thread, growing back below 0.3, never below one thread), and the whole loop: busy
// threads of another process beside an engine make its ops run with a
// smaller team.
#include "engine/thread_budget.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weft/engine.h"

namespace weft {
namespace {

using engine::kWindow;
using engine::ThreadBudget;

// Two cores, one busy neighbour: the team shrinks once the 5-sample average
// reaches half a thread, and grows back once it is below 0.3.
TEST(ThreadBudget, FollowsTheAverageLoadOfOtherProcesses) {
  ThreadBudget b(2);
  for (int i = 0; i < 10; ++i) b.Observe(0);
  EXPECT_EQ(b.team(), 2);
  b.Observe(1);  // average 0.2
  b.Observe(1);  // 0.4
  EXPECT_EQ(b.team(), 2);
  b.Observe(1);  // 0.6: shrink
  EXPECT_EQ(b.team(), 1);
  for (int i = 0; i < 20; ++i) b.Observe(1);  // a neighbour that stays
  EXPECT_EQ(b.team(), 1);
  b.Observe(0);  // 0.8
  b.Observe(0);  // 0.6
  b.Observe(0);  // 0.4: inside the band, no change
  EXPECT_EQ(b.team(), 1);
  b.Observe(0);  // 0.2: grow back
  EXPECT_EQ(b.team(), 2);
  b.Observe(1);  // one stray runnable thread in the window: nothing changes
  for (int i = 0; i < kWindow - 1; ++i) b.Observe(0);
  EXPECT_EQ(b.team(), 2);
}

// Before the window is full nothing is decided: one runnable thread in the
// first two samples is no average of half a thread.
TEST(ThreadBudget, WaitsForAFullWindow) {
  ThreadBudget b(2);
  b.Observe(0);
  b.Observe(1);
  EXPECT_EQ(b.team(), 2);
  for (int i = 0; i < kWindow; ++i) b.Observe(1);
  EXPECT_EQ(b.team(), 1);
}

// Sixteen threads: the team gives up the cores the others take, never
// fewer than one thread; fractional loads (a scaled count) round the same way.
TEST(ThreadBudget, LeavesTheCoresOthersTake) {
  ThreadBudget b(16);
  for (int i = 0; i < kWindow; ++i) b.Observe(3);
  EXPECT_EQ(b.team(), 13);
  for (int i = 0; i < kWindow; ++i) b.Observe(40);
  EXPECT_EQ(b.team(), 1);
  for (int i = 0; i < kWindow; ++i) b.Observe(2.6);
  EXPECT_EQ(b.team(), 13);  // 16 - 3: grows only to what 2.6 + 0.7 leaves
  for (int i = 0; i < kWindow; ++i) b.Observe(0.1);
  EXPECT_EQ(b.team(), 16);
  ThreadBudget one(1);
  one.Observe(5);
  EXPECT_EQ(one.team(), 1);
}

int TeamInsideOp(Engine* e) {
  std::atomic<int> team{0};
  VarHandle v = e->NewVariable();
  e->PushSync([&](RunContext) { team = omp_get_max_threads(); }, Context::CPU(0), {}, {v});
  e->WaitForVar(v);
  e->DeleteVariable([](RunContext) {}, Context::CPU(0), v);
  return team.load();
}

// As many busy processes as cores beside an engine: its ops get a team of
// one within a few samples. (The way back to the full team is the decision
// tests': asserting it here would depend on what else the machine runs, e.g.
// the other half of `ctest -j2`.)
TEST(ThreadBudget, BusyProcessesShrinkTheTeam) {
  const int full = omp_get_max_threads();
  if (full < 2 || full > 8 || access("/proc/loadavg", R_OK) != 0)
    GTEST_SKIP() << "needs an OpenMP team of 2-8 threads and /proc/loadavg";
  engine::SetThreadBudgetForTesting(true);  // the suite runs with it off (tests/CMakeLists.txt)
  std::unique_ptr<Engine> e = Engine::Create(EngineKind::kThreaded, EngineOptions{});
  std::vector<pid_t> busy;
  for (int i = 0; i < full; ++i) {
    const pid_t pid = fork();
    if (pid == 0)
      for (;;) {  // the child only spins until it is killed
      }
    if (pid > 0) busy.push_back(pid);
  }
  int seen = full;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (seen != 1 && std::chrono::steady_clock::now() < until) {
    seen = TeamInsideOp(e.get());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (pid_t pid : busy) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  engine::SetThreadBudgetForTesting(false);
  ASSERT_EQ(busy.size(), static_cast<size_t>(full)) << "fork failed";
  EXPECT_EQ(seen, 1) << "the team never shrank beside " << full << " busy processes";
}

}  // namespace
}  // namespace weft
