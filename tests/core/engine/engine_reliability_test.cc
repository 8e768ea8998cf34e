// Engine reliability on every engine: an error reaches every waiter of the
// failed op's outputs on any thread (WaitForAll elsewhere does not take it),
// reported errors leave the WaitForAll log, waits from inside an op are
// refused instead of deadlocking, a refused worker thread is a status, and
// destroying an engine waits for the op a worker still runs.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/engine/engine_test_util.h"
#include "engine/engine_impl.h"
#include "weft/engine.h"
#include "weft/status.h"

namespace weft {
namespace {

class EngineReliabilityTest : public ::testing::TestWithParam<test::EngineConfig> {
 protected:
  void SetUp() override { e_ = test::MakeEngine(GetParam()); }
  bool threaded() const { return GetParam().kind == EngineKind::kThreaded; }
  void PushFail(VarHandle out, const std::string& name) {
    e_->PushSync([name](RunContext) { Fail(StatusCode::kShape, "bad shape in ", name); },
                 Context::CPU(), {}, {out}, 0, name);
  }
  // The message of the weft::Error `f` throws, or "" when it does not throw.
  template <typename F>
  static std::string ErrorOf(F f) {
    try {
      f();
    } catch (const Error& err) {
      return err.what();
    }
    return "";
  }
  std::unique_ptr<Engine> e_;
};

// The finding: a thread's own wait on its failed output returned OK while
// another thread's WaitForAll reported (and cleared) the failure.
TEST_P(EngineReliabilityTest, WaitForAllOnAnotherThreadDoesNotTakeTheError) {
  std::atomic<bool> done{false};
  std::thread other([&] {
    while (!done.load()) {
      try {
        e_->WaitForAll();
      } catch (const Error&) {
      }
    }
  });
  int missed = 0;
  for (int i = 0; i < 200; ++i) {
    VarHandle v = e_->NewVariable();
    PushFail(v, "forward");
    if (ErrorOf([&] { e_->WaitForVar(v); }).find("'forward'") == std::string::npos) ++missed;
    e_->DeleteVariable({}, Context::CPU(), v);
  }
  done.store(true);
  other.join();
  EXPECT_EQ(missed, 0) << "failed outputs read as OK by their own thread";
}

TEST_P(EngineReliabilityTest, EveryWaiterOnEveryThreadSeesTheError) {
  VarHandle a = e_->NewVariable(), b = e_->NewVariable();
  e_->PushSync([](RunContext) { Fail(StatusCode::kShape, "bad"); }, Context::CPU(), {}, {a, b}, 0,
               "two_out");
  std::vector<std::string> seen(6);
  std::vector<std::thread> waiters;
  for (int i = 0; i < 6; ++i)
    waiters.emplace_back([&, i] { seen[i] = ErrorOf([&] { e_->WaitForVar(i % 2 ? a : b); }); });
  for (auto& t : waiters) t.join();
  for (const std::string& m : seen) EXPECT_NE(m.find("'two_out'"), std::string::npos) << m;
  e_->DeleteVariable({}, Context::CPU(), a);
  e_->DeleteVariable({}, Context::CPU(), b);
  EXPECT_NO_THROW(e_->WaitForAll());
}

TEST_P(EngineReliabilityTest, UnreportedErrorBlocksOverwriteUntilReported) {
  VarHandle a = e_->NewVariable();
  std::atomic<int> ran{0};
  PushFail(a, "first");
  // Not reported yet: the overwrite is skipped, so the failure cannot vanish
  // unseen behind a later success.
  e_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {}, {a}, 0, "second");
  EXPECT_NE(ErrorOf([&] { e_->WaitForVar(a); }).find("'first'"), std::string::npos);
  EXPECT_EQ(ran.load(), 0);
  e_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {}, {a}, 0, "third");
  EXPECT_EQ(ErrorOf([&] { e_->WaitForVar(a); }), "");
  EXPECT_EQ(ran.load(), 1);
  e_->DeleteVariable({}, Context::CPU(), a);
  EXPECT_NO_THROW(e_->WaitForAll());
}

// The finding: failures reported by WaitForVar stayed in the global log
// until a WaitForAll. Reported entries are pruned; unreported ones stay for
// WaitForAll, which empties the log.
TEST_P(EngineReliabilityTest, ReportedErrorsLeaveTheLog) {
  for (int i = 0; i < 2000; ++i) {
    VarHandle v = e_->NewVariable();
    PushFail(v, "often");
    EXPECT_FALSE(ErrorOf([&] { e_->WaitForVar(v); }).empty());
    e_->DeleteVariable({}, Context::CPU(), v);
  }
  EXPECT_LE(e_->LoggedErrors(), 128u);
  EXPECT_NO_THROW(e_->WaitForAll()) << "every failure was reported already";
  std::vector<VarHandle> vars;
  for (int i = 0; i < 300; ++i) {
    vars.push_back(e_->NewVariable());
    PushFail(vars.back(), "unseen");
  }
  for (VarHandle v : vars) e_->DeleteVariable({}, Context::CPU(), v);
  EXPECT_NE(ErrorOf([&] { e_->WaitForAll(); }).find("'unseen'"), std::string::npos);
  EXPECT_EQ(e_->LoggedErrors(), 0u);
  EXPECT_NO_THROW(e_->WaitForAll());
}

TEST_P(EngineReliabilityTest, WaitInsideAnOpIsAnErrorNotADeadlock) {
  VarHandle v = e_->NewVariable(), w = e_->NewVariable();
  std::string all_msg, var_msg;
  e_->PushSync([&](RunContext) { all_msg = ErrorOf([&] { e_->WaitForAll(); }); }, Context::CPU(),
               {}, {v}, 0, "reenter_all");
  e_->PushSync([&](RunContext) { var_msg = ErrorOf([&] { e_->WaitForVar(w); }); }, Context::CPU(),
               {}, {w}, 0, "reenter_var");
  e_->WaitForVar(v);
  e_->WaitForVar(w);
  EXPECT_NE(all_msg.find("WaitForAll called from inside engine op 'reenter_all'"),
            std::string::npos)
      << all_msg;
  if (threaded()) {
    EXPECT_NE(var_msg.find("WaitForVar called from inside engine op 'reenter_var'"),
              std::string::npos)
        << var_msg;
    e_->PushSync([&](RunContext) { e_->CheckCanWait("copy from host"); }, Context::CPU(), {}, {v},
                 0, "reenter_copy");
    const std::string copy_msg = ErrorOf([&] { e_->WaitForVar(v); });
    EXPECT_NE(copy_msg.find("copy from host called from inside engine op 'reenter_copy'"),
              std::string::npos)
        << copy_msg;
    e_->PushSync([](RunContext) {}, Context::CPU(), {}, {v}, 0,
                 "refill");  // releases the reported error
    EXPECT_EQ(ErrorOf([&] { e_->WaitForVar(v); }), "");
  } else {
    EXPECT_EQ(var_msg, "") << "the naive engine runs nested work inline, nothing to wait for";
  }
  // A wait with nothing to wait for is fine inside an op, and outside an op
  // every wait works as before.
  std::string idle_msg = "not run";
  e_->PushSync([&](RunContext) { idle_msg = ErrorOf([&] { e_->WaitForVar(v); }); }, Context::CPU(),
               {}, {w}, 0, "reads_nothing");
  e_->WaitForVar(w);
  EXPECT_EQ(idle_msg, "");
  EXPECT_NO_THROW(e_->CheckCanWait("outside"));
  e_->DeleteVariable({}, Context::CPU(), v);
  e_->DeleteVariable({}, Context::CPU(), w);
  EXPECT_NO_THROW(e_->WaitForAll());
}

// Destroying an engine waits for an op a worker still runs (an async op
// completed later from another thread, too).
TEST_P(EngineReliabilityTest, DestructionWaitsForRunningOps) {
  std::mutex mu;
  std::condition_variable cv;
  bool started = false, release = false;
  std::atomic<bool> finished{false}, async_finished{false};
  VarHandle v = e_->NewVariable(), w = e_->NewVariable();
  std::thread helper;
  if (threaded()) {
    helper = std::thread([&] {
      std::unique_lock<std::mutex> l(mu);
      cv.wait(l, [&] { return started; });
      release = true;
      cv.notify_all();
    });
    e_->PushSync(
        [&](RunContext) {
          std::unique_lock<std::mutex> l(mu);
          started = true;
          cv.notify_all();
          cv.wait(l, [&] { return release; });
          finished = true;
        },
        Context::CPU(), {}, {v}, 0, "long_kernel");
  } else {
    finished = true;
  }
  std::mutex cmu;
  std::vector<OnComplete> handed;
  std::condition_variable ccv;
  // Started first: the naive engine completes the async op inside its push.
  std::thread completer([&] {
    std::unique_lock<std::mutex> l(cmu);
    ccv.wait(l, [&] { return !handed.empty(); });
    OnComplete done = handed[0];
    l.unlock();
    async_finished = true;
    done();
  });
  e_->PushAsync(
      [&](RunContext, OnComplete done) {
        std::lock_guard<std::mutex> l(cmu);
        handed.push_back(done);
        ccv.notify_all();
      },
      Context::CPU(), {}, {w}, 0, "async_kernel");
  e_->DeleteVariable({}, Context::CPU(), v);
  e_->DeleteVariable({}, Context::CPU(), w);
  e_.reset();
  EXPECT_TRUE(finished.load());
  EXPECT_TRUE(async_finished.load());
  if (helper.joinable()) helper.join();
  completer.join();
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineReliabilityTest,
                         ::testing::ValuesIn(test::AllEngineConfigs()),
                         [](const auto& info) { return info.param.label; });

// Thread creation refused by the system (the test hook stands in for the
// thread limit): a status, never an escaped std::system_error.
class EngineThreadStartTest : public ::testing::Test {
 protected:
  void TearDown() override { engine::SetThreadStartFailureForTesting(0); }
};

TEST_F(EngineThreadStartTest, CreationWithoutAnyWorkerThrowsError) {
  EngineOptions o;
  o.cpu_threads = 2;
  engine::SetThreadStartFailureForTesting(1);
  try {
    Engine::Create(EngineKind::kThreaded, o);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), StatusCode::kInternal);
    EXPECT_NE(std::string(err.what()).find("cannot start a worker thread for cpu(0)"),
              std::string::npos)
        << err.what();
  }
}

TEST_F(EngineThreadStartTest, PartialPoolRunsWithTheThreadsItGot) {
  EngineOptions o;
  o.cpu_threads = 3;
  engine::SetThreadStartFailureForTesting(2);  // the second cpu(0) worker
  auto e = Engine::Create(EngineKind::kThreaded, o);
  VarHandle v = e->NewVariable();
  int n = 0;
  for (int i = 0; i < 10; ++i)
    e->PushSync([&](RunContext) { ++n; }, Context::CPU(), {}, {v}, 0, "inc");
  e->WaitForVar(v);
  EXPECT_EQ(n, 10);
  e->DeleteVariable({}, Context::CPU(), v);
  e->WaitForAll();
}

TEST_F(EngineThreadStartTest, DevicePoolFailureFailsTheOpThenRetries) {
  auto e = Engine::Create(EngineKind::kThreaded, {});
  VarHandle a = e->NewVariable(), b = e->NewVariable();
  bool ran = false;
  engine::SetThreadStartFailureForTesting(1);  // the cpu(3) pool's worker, created on first use
  e->PushSync([&](RunContext) { ran = true; }, Context::CPU(3), {}, {a}, 0, "placed_node");
  try {
    e->WaitForVar(a);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& err) {
    const std::string m = err.what();
    EXPECT_NE(m.find("'placed_node'"), std::string::npos) << m;
    EXPECT_NE(m.find("cannot start a worker thread for cpu(3)"), std::string::npos) << m;
  }
  EXPECT_FALSE(ran);
  // The next op on that device starts the pool.
  e->PushSync([&](RunContext) { ran = true; }, Context::CPU(3), {}, {b}, 0, "next_node");
  EXPECT_NO_THROW(e->WaitForVar(b));
  EXPECT_TRUE(ran);
  e->DeleteVariable({}, Context::CPU(), a);
  e->DeleteVariable({}, Context::CPU(), b);
  EXPECT_NO_THROW(e->WaitForAll()) << "the failure was reported by WaitForVar";
}

}  // namespace
}  // namespace weft
