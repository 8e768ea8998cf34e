// CPU devices in the engine: cpu(1), cpu(2), ... get workers of their own,
// so their ops run concurrently with each other and with cpu(0) even when
// cpu(0) has a single worker; the RunContext names the op's device; the
// naive engine runs them inline. Each concurrency test is a rendezvous of
// two ops that would deadlock on one worker: every wait has a timeout that
// makes the test fail instead of hanging.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "weft/engine.h"

namespace weft {
namespace {

// Two flags under one lock: each op raises its own and waits (bounded) for
// the other's.
struct Rendezvous {
  std::mutex mu;
  std::condition_variable cv;
  bool arrived[2] = {false, false};
  bool met[2] = {false, false};
  std::thread::id thread[2];
  Context ctx[2];

  void Arrive(int me, const RunContext& rc) {
    std::unique_lock<std::mutex> l(mu);
    arrived[me] = true;
    thread[me] = std::this_thread::get_id();
    ctx[me] = rc.ctx;
    cv.notify_all();
    met[me] = cv.wait_for(l, std::chrono::seconds(10), [&] { return arrived[1 - me]; });
  }
};

// Pushes one rendezvous op on each of `a` and `b` (independent variables)
// and checks that they met, on distinct threads, with their own contexts.
void ExpectConcurrent(Engine* engine, Context a, Context b) {
  auto r = std::make_shared<Rendezvous>();
  VarHandle va = engine->NewVariable(), vb = engine->NewVariable();
  engine->PushSync([r](RunContext rc) { r->Arrive(0, rc); }, a, {}, {va}, 0, "first");
  engine->PushSync([r](RunContext rc) { r->Arrive(1, rc); }, b, {}, {vb}, 0, "second");
  engine->WaitForAll();
  EXPECT_TRUE(r->met[0]) << a.ToString() << " never saw " << b.ToString() << " run";
  EXPECT_TRUE(r->met[1]) << b.ToString() << " never saw " << a.ToString() << " run";
  EXPECT_NE(r->thread[0], r->thread[1]);
  EXPECT_EQ(r->ctx[0], a);
  EXPECT_EQ(r->ctx[1], b);
  engine->DeleteVariable({}, a, va);
  engine->DeleteVariable({}, b, vb);
  engine->WaitForAll();
}

TEST(EngineDevices, CpuDevicesHaveTheirOwnWorkers) {
  EngineOptions o;
  o.cpu_threads = 1;  // one cpu(0) worker: a shared pool would deadlock below
  auto engine = Engine::Create(EngineKind::kThreaded, o);
  ExpectConcurrent(engine.get(), Context::CPU(1), Context::CPU(2));
  ExpectConcurrent(engine.get(), Context::CPU(0), Context::CPU(1));
  ExpectConcurrent(engine.get(), Context::CPU(3), Context::CPU(0));
}

// Ops on one cpu(i) (one worker by default) run one at a time, in
// dependency order, and survive Stop/Start.
TEST(EngineDevices, OneCpuDeviceKeepsOrderAcrossStopStart) {
  auto engine = Engine::Create(EngineKind::kThreaded, {});
  VarHandle v = engine->NewVariable();
  std::vector<int> seen;  // written only by ops serialised on v
  for (int i = 0; i < 50; ++i)
    engine->PushSync(
        [&seen, i](RunContext rc) {
          EXPECT_EQ(rc.ctx, Context::CPU(2));
          seen.push_back(i);
        },
        Context::CPU(2), {}, {v});
  engine->Stop();
  for (int i = 50; i < 60; ++i)
    engine->PushSync([&seen, i](RunContext) { seen.push_back(i); }, Context::CPU(2), {}, {v});
  engine->Start();
  engine->WaitForVar(v);
  ASSERT_EQ(seen.size(), 60u);
  for (int i = 0; i < 60; ++i) EXPECT_EQ(seen[i], i);
  engine->DeleteVariable({}, Context::CPU(2), v);
  engine->WaitForAll();
}

// Errors on a cpu(i) op reach the waiter like on cpu(0).
TEST(EngineDevices, ErrorsOnOtherCpuDevicesAreRethrown) {
  for (EngineKind kind : {EngineKind::kNaive, EngineKind::kThreaded}) {
    auto engine = Engine::Create(kind, {});
    VarHandle v = engine->NewVariable();
    Context seen;
    engine->PushSync([&seen](RunContext rc) { seen = rc.ctx; }, Context::CPU(5), {}, {v}, 0,
                     "look");
    engine->PushSync([](RunContext) { throw std::runtime_error("boom"); }, Context::CPU(5), {}, {v},
                     0, "fails");
    try {
      engine->WaitForVar(v);
      ADD_FAILURE() << "no error";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("fails"), std::string::npos) << e.what();
    }
    EXPECT_EQ(seen, Context::CPU(5));
    engine->DeleteVariable({}, Context::CPU(5), v);
    engine->WaitForAll();
  }
}

}  // namespace
}  // namespace weft
