// Randomised stress (MXNet's RandSumExpr idea): thousands of random ops over
// ~100 variables with random reads/writes, priorities and tiny sleeps must
// give results bit-identical to serial execution on every engine, repeated;
// then several threads push concurrently.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <thread>

#include "core/engine/engine_test_util.h"
#include "weft/engine.h"

namespace weft {
namespace {

struct RandOp {
  std::vector<int> reads, writes;
  uint64_t salt;
  int sleep_us;
  int priority;
};

// Ops over variables [first, first + count) reading also [0, shared).
std::vector<RandOp> MakeOps(int n, int first, int count, int shared, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<RandOp> ops(n);
  for (RandOp& op : ops) {
    std::vector<int> used;
    auto pick = [&](bool from_shared) {
      while (true) {
        int v = from_shared ? static_cast<int>(rng() % shared)
                            : first + static_cast<int>(rng() % count);
        bool dup = false;
        for (int u : used) dup |= u == v;
        if (!dup) {
          used.push_back(v);
          return v;
        }
      }
    };
    const int nw = 1 + static_cast<int>(rng() % 2), nr = static_cast<int>(rng() % 4);
    for (int i = 0; i < nw; ++i) op.writes.push_back(pick(false));
    for (int i = 0; i < nr; ++i) op.reads.push_back(pick(shared > 0 && rng() % 3 == 0));
    op.salt = rng();
    op.sleep_us = rng() % 40 == 0 ? static_cast<int>(rng() % 100) : 0;
    op.priority = rng() % 10 == 0 ? 1 : 0;
  }
  return ops;
}

void Apply(const RandOp& op, uint64_t* vals) {
  uint64_t acc = op.salt;
  for (int r : op.reads) acc = acc * 1000003u ^ vals[r];
  for (size_t i = 0; i < op.writes.size(); ++i) {
    uint64_t& w = vals[op.writes[i]];
    w = w * 31u + acc + i;
  }
}

std::vector<uint64_t> Initial(int nvars) {
  std::vector<uint64_t> v(nvars);
  for (int i = 0; i < nvars; ++i) v[i] = 0x9e3779b97f4a7c15ull * (i + 1);
  return v;
}

void PushOps(Engine* e, const std::vector<RandOp>& ops, const std::vector<VarHandle>& vars,
             uint64_t* vals, std::mt19937* wait_rng) {
  for (const RandOp& op : ops) {
    std::vector<VarHandle> r, w;
    for (int i : op.reads) r.push_back(vars[i]);
    for (int i : op.writes) w.push_back(vars[i]);
    e->PushSync(
        [&op, vals](RunContext) {
          if (op.sleep_us) std::this_thread::sleep_for(std::chrono::microseconds(op.sleep_us));
          Apply(op, vals);
        },
        Context::CPU(), r, w, op.priority, "rand");
    if (wait_rng && (*wait_rng)() % 200 == 0) e->WaitForVar(w[0]);
  }
}

class EngineStressTest : public ::testing::TestWithParam<test::EngineConfig> {};

TEST_P(EngineStressTest, RandomOpsMatchSerialExecution) {
  const int kVars = 100, kOps = 3000;
  for (int rep = 0; rep < 3; ++rep) {
    auto ops = MakeOps(kOps, 0, kVars, 0, 1234 + rep);
    std::vector<uint64_t> expect = Initial(kVars), got = Initial(kVars);
    for (const RandOp& op : ops) Apply(op, expect.data());

    auto e = test::MakeEngine(GetParam());
    std::vector<VarHandle> vars;
    for (int i = 0; i < kVars; ++i) vars.push_back(e->NewVariable());
    std::mt19937 wait_rng(rep);
    PushOps(e.get(), ops, vars, got.data(), &wait_rng);
    e->WaitForAll();
    ASSERT_EQ(got, expect) << "repetition " << rep;

    std::vector<uint64_t> writes(kVars, 0);
    for (const RandOp& op : ops)
      for (int w : op.writes) ++writes[w];
    std::atomic<int> deleted{0};
    for (int i = 0; i < kVars; ++i) {
      EXPECT_EQ(e->VarVersion(vars[i]), writes[i]);
      e->DeleteVariable([&](RunContext) { ++deleted; }, Context::CPU(), vars[i]);
    }
    e->WaitForAll();
    EXPECT_EQ(deleted.load(), kVars);
  }
}

TEST_P(EngineStressTest, ConcurrentPushersMatchSerialExecution) {
  // 4 threads each own 20 variables and also read 20 shared variables that
  // are written once up front; each thread's result is its serial replay.
  const int kThreads = 4, kOwn = 20, kShared = 20, kOps = 1000;
  const int kVars = kShared + kThreads * kOwn;
  auto e = test::MakeEngine(GetParam());
  std::vector<VarHandle> vars;
  for (int i = 0; i < kVars; ++i) vars.push_back(e->NewVariable());
  std::vector<uint64_t> got = Initial(kVars), expect = Initial(kVars);
  auto init = MakeOps(kShared, 0, kShared, 0, 99);
  for (const RandOp& op : init) Apply(op, expect.data());
  PushOps(e.get(), init, vars, got.data(), nullptr);

  std::vector<std::vector<RandOp>> per_thread;
  for (int t = 0; t < kThreads; ++t) {
    per_thread.push_back(MakeOps(kOps, kShared + t * kOwn, kOwn, kShared, 500 + t));
    for (const RandOp& op : per_thread.back()) Apply(op, expect.data());
  }
  std::vector<std::thread> pushers;
  for (int t = 0; t < kThreads; ++t)
    pushers.emplace_back([&, t] {
      std::mt19937 wait_rng(t);
      PushOps(e.get(), per_thread[t], vars, got.data(), &wait_rng);
    });
  for (auto& p : pushers) p.join();
  e->WaitForAll();
  EXPECT_EQ(got, expect);
  for (VarHandle v : vars) e->DeleteVariable({}, Context::CPU(), v);
  e->WaitForAll();
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineStressTest, ::testing::ValuesIn(test::AllEngineConfigs()),
                         [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace weft
