// The profiler: a LeNet training trace parses as Chrome Trace JSON with one
// operator event per node run, nested per thread, allocations balancing
// frees; the aggregate table agrees with the trace; pause records nothing;
// two threads record at once; configuration and range errors.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "util/bench_models.h"
#include "util/test_util.h"
#include "weft/engine.h"
#include "weft/executor.h"
#include "weft/imperative.h"
#include "weft/profiler.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using Json = nlohmann::json;

class Profiler : public ::testing::Test {
 protected:
  void SetUp() override {
    Engine::Get()->WaitForAll();  // work an earlier test left running is not ours
    profiler::ResetForTesting();
    profiler::Config c;
    c.filename = test::TempPath("profile.json");
    profiler::SetConfig(c);
  }
  void TearDown() override { profiler::ResetForTesting(); }
};

Json ReadJson(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return Json::parse(ss.str());  // throws (fails the test) on malformed JSON
}

std::vector<Json> Events(const Json& trace, const std::string& cat, const std::string& ph = "X") {
  std::vector<Json> out;
  for (const Json& e : trace.at("traceEvents"))
    if (e.value("cat", "") == cat && e.at("ph") == ph) out.push_back(e);
  return out;
}

// Op node counts of an executor, by op name, from its own description
// ("  F <nid> Op:<op>, Name=<node>" lines; no-op nodes run nothing).
std::map<std::string, int> OpNodes(const Executor& ex) {
  std::map<std::string, int> n;
  std::istringstream in(ex.DebugString());
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find("Op:");
    if (at == std::string::npos || line.find("(no-op)") != std::string::npos) continue;
    n[line.substr(at + 3, line.find(',', at) - at - 3)]++;
  }
  return n;
}

// Complete events of each (pid, tid) either nest in or follow each other.
void ExpectNested(const Json& trace) {
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
  for (const Json& e : trace.at("traceEvents"))
    if (e.at("ph") == "X") {
      const double ts = e.at("ts"), dur = e.at("dur");
      tracks[{e.at("pid"), e.at("tid")}].emplace_back(ts, ts + dur);
    }
  for (auto& [track, spans] : tracks) {
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<double> open;  // end times of enclosing events
    for (const auto& [b, e] : spans) {
      while (!open.empty() && open.back() <= b + 1e-3) open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(e, open.back() + 2e-3)
            << "an event on pid " << track.first << " tid " << track.second
            << " overlaps its enclosing event without nesting";
      }
      open.push_back(e);
    }
  }
}

TEST_F(Profiler, LeNetTrainingTraceHasOneEventPerOperatorRun) {
  constexpr int kIters = 3;
  profiler::SetState(profiler::State::kRun);
  std::map<std::string, int> nodes;
  {
    auto ex = Executor::SimpleBind(&Runtime::Global(), test::bench::LeNet(), Context::CPU(0),
                                   {{"data", Shape{4, 1, 28, 28}}, {"softmax_label", Shape{4}}});
    nodes = OpNodes(*ex);
    for (int i = 0; i < kIters; ++i) {
      ex->Forward(true);
      ex->Backward({});
    }
    Engine::Get()->WaitForAll();
  }
  Engine::Get()->WaitForAll();  // the executor's memory is released after its last op
  profiler::Dump(true);
  const Json trace = ReadJson(profiler::GetConfig().filename);
  std::map<std::string, int> seen;
  for (const Json& e : Events(trace, "operator"))
    if (e.at("args").at("mode") == "symbolic") seen[e.at("name")]++;
  ASSERT_FALSE(nodes.empty());
  for (auto& [op, n] : nodes) EXPECT_EQ(seen[op], n * kIters) << op;
  EXPECT_EQ(seen.size(), nodes.size());
  ExpectNested(trace);
  // Every byte allocated in the window is freed in it.
  int64_t allocated = 0, freed = 0;
  for (const Json& e : Events(trace, "memory", "i"))
    (e.at("name") == "alloc" ? allocated : freed) += e.at("args").at("bytes").get<int64_t>();
  EXPECT_GT(allocated, 0);
  EXPECT_EQ(allocated, freed);
  EXPECT_FALSE(Events(trace, "engine").empty());
  EXPECT_FALSE(Events(trace, "executor").empty());
}

TEST_F(Profiler, AggregateCountsEqualTheTrace) {
  profiler::SetState(profiler::State::kRun);
  {
    auto ex = Executor::SimpleBind(&Runtime::Global(), test::bench::Mlp(), Context::CPU(0),
                                   {{"data", Shape{8, 784}}, {"softmax_label", Shape{8}}});
    for (int i = 0; i < 4; ++i) ex->Forward(false);
    Engine::Get()->WaitForAll();
  }
  profiler::SetState(profiler::State::kStop);
  const Json trace = Json::parse(profiler::TraceJson());
  const Json agg = Json::parse(profiler::AggregateTable({"json", "count", false, false}));
  std::map<std::string, int> seen;
  for (const Json& e : Events(trace, "operator")) seen[e.at("name")]++;
  ASSERT_FALSE(seen.empty());
  const Json& ops = agg.at("Time").at("operator");
  EXPECT_EQ(ops.size(), seen.size());
  for (auto& [op, n] : seen) EXPECT_EQ(ops.at(op).at("Count").get<int>(), n) << op;
  const std::string table = profiler::AggregateTable();
  EXPECT_NE(table.find("FullyConnected"), std::string::npos) << table;
  EXPECT_NE(table.find("Total Count"), std::string::npos) << table;
}

int ImperativeEvents(const std::string& op) {
  int n = 0;
  for (const Json& e : Events(Json::parse(profiler::TraceJson()), "operator"))
    n += e.at("name") == op && e.at("args").at("mode") == "imperative";
  return n;
}

TEST_F(Profiler, PauseRecordsNothingInBetween) {
  NDArray x = test::Array(Shape{4}, {1, -2, 3, -4});
  profiler::SetState(profiler::State::kRun);
  // What runs while paused (ops run on engine workers: wait for them) is not recorded.
  Invoke(&Runtime::Global(), "abs", {x})[0].WaitToRead();
  profiler::Pause(true);
  for (int i = 0; i < 5; ++i) Invoke(&Runtime::Global(), "abs", {x})[0].WaitToRead();
  profiler::Pause(false);
  Invoke(&Runtime::Global(), "abs", {x})[0].WaitToRead();
  Engine::Get()->WaitForAll();
  EXPECT_EQ(ImperativeEvents("abs"), 2);
  profiler::SetState(profiler::State::kStop);
  Invoke(&Runtime::Global(), "abs", {x})[0].WaitToRead();
  EXPECT_EQ(ImperativeEvents("abs"), 2);
}

TEST_F(Profiler, TwoThreadsRecordAtOnce) {
  constexpr int kCalls = 50;
  profiler::SetState(profiler::State::kRun);
  auto work = [](const std::string& range) {
    NDArray x = test::Array(Shape{3}, {1, 2, 3});
    profiler::PushRange(range);
    for (int i = 0; i < kCalls; ++i) Invoke(&Runtime::Global(), "sqrt", {x})[0].WaitToRead();
    profiler::PopRange();
  };
  std::thread a(work, "thread a"), b(work, "thread b");
  a.join();
  b.join();
  Engine::Get()->WaitForAll();
  const Json trace = Json::parse(profiler::TraceJson());
  EXPECT_EQ(ImperativeEvents("sqrt"), 2 * kCalls);
  std::map<std::string, int> tids;
  for (const Json& e : Events(trace, "user")) tids[e.at("name")] = e.at("tid");
  ASSERT_EQ(tids.size(), 2u);
  EXPECT_NE(tids["thread a"], tids["thread b"]);
  ExpectNested(trace);
}

TEST_F(Profiler, ContinuousDumpAppendsAndFinishes) {
  profiler::Config c = profiler::Config::Parse({{"filename", test::TempPath("continuous.json")},
                                                {"continuous_dump", "1"},
                                                {"dump_period", "0.02"}});
  profiler::SetConfig(c);
  profiler::SetState(profiler::State::kRun);
  NDArray x = test::Array(Shape{2}, {4, 9});
  for (int i = 0; i < 3; ++i) {
    Invoke(&Runtime::Global(), "sqrt", {x})[0].WaitToRead();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  profiler::Dump(true);
  EXPECT_EQ(profiler::GetState(), profiler::State::kStop);
  int n = 0;
  for (const Json& e : Events(ReadJson(c.filename), "operator")) n += e.at("name") == "sqrt";
  EXPECT_EQ(n, 3);
}

TEST_F(Profiler, Errors) {
  test::ExpectError(
      [] {
        profiler::Config::Parse({{"profile_everything", "1"}});
      },
      StatusCode::kInvalidArgument, {"unknown key 'profile_everything'"});
  test::ExpectError(
      [] {
        profiler::Config::Parse({{"profile_memory", "maybe"}});
      },
      StatusCode::kInvalidArgument, {"profile_memory", "maybe"});
  test::ExpectError(
      [] {
        profiler::Config::Parse({{"dump_period", "-1"}});
      },
      StatusCode::kInvalidArgument, {"dump_period"});
  test::ExpectError([] { profiler::PopRange(); }, StatusCode::kInvalidArgument, {"no open range"});
  test::ExpectError(
      [] {
        profiler::AggregateTable({"table", "median", false, false});
      },
      StatusCode::kInvalidArgument, {"median"});
  profiler::SetState(profiler::State::kRun);
  test::ExpectError([] { profiler::SetConfig({}); }, StatusCode::kInvalidArgument,
                    {"stop the profiler"});
  profiler::SetState(profiler::State::kStop);
  profiler::Config c;
  c.filename = test::TempPath("no/such/dir/profile.json");
  profiler::SetConfig(c);
  test::ExpectError([] { profiler::Dump(false); }, StatusCode::kIO, {"cannot write"});
}

}  // namespace
}  // namespace weft
