// Exception propagation on every engine (MXNet test_exc_handling cases):
// errors land on written variables, dependants are skipped and inherit
// them, every wait rethrows them until a successful write or the deletion
// releases them, unrelated variables stay usable.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "core/engine/engine_test_util.h"
#include "weft/engine.h"
#include "weft/status.h"

namespace weft {
namespace {

class EngineErrorTest : public ::testing::TestWithParam<test::EngineConfig> {
 protected:
  void SetUp() override { e_ = test::MakeEngine(GetParam()); }
  void TearDown() override {
    try {
      e_->WaitForAll();
    } catch (...) {
    }
    for (VarHandle v : vars_) e_->DeleteVariable({}, Context::CPU(), v);
    e_->WaitForAll();
  }
  VarHandle Var() {
    vars_.push_back(e_->NewVariable());
    return vars_.back();
  }
  void PushFail(VarHandle out, const std::string& name, std::vector<VarHandle> reads = {}) {
    e_->PushSync([name](RunContext) { Fail(StatusCode::kShape, "bad shape in ", name); },
                 Context::CPU(), reads, {out}, 0, name);
  }
  // Expects `f` to throw a weft::Error whose message names `op`.
  template <typename F>
  void ExpectRethrow(F f, const std::string& op, StatusCode code = StatusCode::kShape) {
    try {
      f();
      ADD_FAILURE() << "expected an error from " << op;
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), code);
      EXPECT_NE(std::string(err.what()).find("'" + op + "'"), std::string::npos) << err.what();
    }
  }
  std::unique_ptr<Engine> e_;
  std::vector<VarHandle> vars_;
};

TEST_P(EngineErrorTest, WaitForVarRethrowsUntilReleasedWithOpName) {
  VarHandle a = Var();
  PushFail(a, "normal_bad_scale");
  ExpectRethrow([&] { e_->WaitForVar(a); }, "normal_bad_scale");
  ExpectRethrow([&] { e_->WaitForVar(a); }, "normal_bad_scale");  // a wait does not clear it
  EXPECT_NO_THROW(e_->WaitForAll()) << "WaitForVar reported it already";
  ExpectRethrow([&] { e_->WaitForVar(a); }, "normal_bad_scale");
  e_->PushSync([](RunContext) {}, Context::CPU(), {}, {a}, 0, "rewrite");
  EXPECT_NO_THROW(e_->WaitForVar(a)) << "a successful write releases the reported error";
}

TEST_P(EngineErrorTest, MultipleWaitsEachCatchTheirFailure) {
  for (int i = 0; i < 2; ++i) {
    VarHandle a = Var(), b = Var();
    PushFail(a, "random_normal");
    e_->PushSync([](RunContext) {}, Context::CPU(), {a}, {b}, 0, "copyto");
    ExpectRethrow([&] { e_->WaitForVar(b); }, "random_normal");
  }
}

TEST_P(EngineErrorTest, PostFailureUse) {
  VarHandle a = Var(), b = Var();
  e_->PushSync([](RunContext) { throw std::runtime_error("boom"); }, Context::CPU(), {}, {a, b}, 0,
               "two_outputs");
  ExpectRethrow([&] { e_->WaitForVar(a); }, "two_outputs", StatusCode::kInternal);
  ExpectRethrow([&] { e_->WaitForVar(b); }, "two_outputs", StatusCode::kInternal);
  int value = 0;
  // Reading a failed variable is skipped even after the error was reported.
  e_->PushSync([&](RunContext) { value = 3; }, Context::CPU(), {b}, {a}, 0, "reuse");
  ExpectRethrow([&] { e_->WaitForVar(a); }, "two_outputs", StatusCode::kInternal);
  EXPECT_EQ(value, 0);
  e_->PushSync([&](RunContext) { value = 4; }, Context::CPU(), {}, {b}, 0, "refill");
  e_->PushSync([&](RunContext) { value += 1; }, Context::CPU(), {b}, {a}, 0, "reuse");
  EXPECT_NO_THROW(e_->WaitForVar(a));
  EXPECT_EQ(value, 5);
}

TEST_P(EngineErrorTest, FailureThroughDependentOpAndMutableVar) {
  for (bool waitall : {false, true}) {
    for (bool through_read : {true, false}) {
      VarHandle a = Var(), c = Var();
      std::atomic<int> ran{0};
      PushFail(a, "source");
      if (through_read)  // c = dot(a, a): skipped, c inherits the error
        e_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {a}, {c}, 0, "dot");
      else  // a = dot(a', a'): a write to the failed variable is skipped too
        e_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {}, {a}, 0, "overwrite");
      VarHandle target = through_read ? c : a;
      if (waitall)
        ExpectRethrow([&] { e_->WaitForAll(); }, "source");
      else
        ExpectRethrow([&] { e_->WaitForVar(target); }, "source");
      EXPECT_EQ(ran.load(), 0) << "dependants of a failed op are skipped";
      ExpectRethrow([&] { e_->WaitForVar(a); }, "source");
      if (through_read) ExpectRethrow([&] { e_->WaitForVar(c); }, "source");
      EXPECT_NO_THROW(e_->WaitForAll());
      // Reported now: an overwrite runs and releases the error.
      e_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {}, {a}, 0, "overwrite");
      EXPECT_NO_THROW(e_->WaitForVar(a));
      EXPECT_EQ(ran.load(), 1);
    }
  }
}

TEST_P(EngineErrorTest, SecondWaitForAllDoesNotRethrow) {
  VarHandle a = Var();
  PushFail(a, "first");
  ExpectRethrow([&] { e_->WaitForAll(); }, "first");
  EXPECT_NO_THROW(e_->WaitForAll());
  ExpectRethrow([&] { e_->WaitForVar(a); },
                "first");  // WaitForAll does not take it from a's waiters
}

TEST_P(EngineErrorTest, WaitForAllRethrowsTheFirstOfSeveral) {
  VarHandle a = Var(), b = Var();
  PushFail(a, "fail_a");
  e_->WaitForVar(Var());
  PushFail(b, "fail_b", {});
  e_->PushSync([](RunContext) {}, Context::CPU(), {a, b}, {Var()}, 0, "join");
  // Ordering between independent failures is not defined on threaded
  // engines, so either name may come first; exactly one rethrow happens.
  try {
    e_->WaitForAll();
    ADD_FAILURE() << "expected a rethrow";
  } catch (const Error& err) {
    std::string msg = err.what();
    EXPECT_TRUE(msg.find("'fail_a'") != std::string::npos ||
                msg.find("'fail_b'") != std::string::npos)
        << msg;
  }
  EXPECT_NO_THROW(e_->WaitForAll());
  ExpectRethrow([&] { e_->WaitForVar(a); }, "fail_a");
  ExpectRethrow([&] { e_->WaitForVar(b); }, "fail_b");
}

TEST_P(EngineErrorTest, UnrelatedVariablesStayUsable) {
  VarHandle bad = Var(), good = Var();
  int value = 0;
  PushFail(bad, "broken");
  for (int i = 0; i < 10; ++i)
    e_->PushSync([&](RunContext) { ++value; }, Context::CPU(), {}, {good}, 0, "inc");
  EXPECT_NO_THROW(e_->WaitForVar(good));
  EXPECT_EQ(value, 10);
  ExpectRethrow([&] { e_->WaitForVar(bad); }, "broken");
}

TEST_P(EngineErrorTest, AsyncErrorReportedThroughOnComplete) {
  VarHandle a = Var();
  // The op hands its OnComplete to a helper thread, which reports the error.
  std::mutex mu;
  std::condition_variable cv;
  std::vector<OnComplete> handed;
  std::thread helper([&] {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return !handed.empty(); });
    OnComplete done = handed[0];
    l.unlock();
    done(std::make_exception_ptr(Error(StatusCode::kDevice, "device lost")));
  });
  e_->PushAsync(
      [&](RunContext, OnComplete done) {
        // Notify under the lock: the test may return (destroying cv) as
        // soon as the helper has completed the op.
        std::lock_guard<std::mutex> l(mu);
        handed.push_back(done);
        cv.notify_all();
      },
      Context::CPU(), {}, {a}, 0, "async_copy");
  ExpectRethrow([&] { e_->WaitForVar(a); }, "async_copy", StatusCode::kDevice);
  helper.join();
}

TEST_P(EngineErrorTest, DeleteRunsOnAFailedVariable) {
  VarHandle a = e_->NewVariable();
  bool deleted = false;
  PushFail(a, "doomed");
  e_->DeleteVariable([&](RunContext) { deleted = true; }, Context::CPU(), a);
  ExpectRethrow([&] { e_->WaitForAll(); }, "doomed");
  EXPECT_TRUE(deleted);
}

TEST_P(EngineErrorTest, BadVariableListsThrowAtPush) {
  VarHandle a = Var();
  ExpectRethrow(
      [&] { e_->PushSync([](RunContext) {}, Context::CPU(), {a}, {a}, 0, "inplace_add"); },
      "inplace_add", StatusCode::kInvalidArgument);
  ExpectRethrow(
      [&] { e_->PushSync([](RunContext) {}, Context::CPU(), {nullptr}, {}, 0, "nullread"); },
      "nullread", StatusCode::kInvalidArgument);
  // Duplicates within one list are fine.
  int n = 0;
  e_->PushSync([&](RunContext) { ++n; }, Context::CPU(), {}, {a, a}, 0, "dup");
  e_->WaitForVar(a);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(e_->VarVersion(a), 1u);
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineErrorTest, ::testing::ValuesIn(test::AllEngineConfigs()),
                         [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace weft
