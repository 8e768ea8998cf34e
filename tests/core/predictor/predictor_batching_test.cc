// Predictor's dynamic batching (PredictorOptions::max_batch): concurrent
// single-sample calls are gathered into batches whose rows equal the
// single calls' results, with both request queues; mixed batch sizes;
// calls larger than max_batch run alone; a bad output buffer fails only
// its own call; models without a batch axis are refused at Create; Close
// while batched calls wait.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "core/json/json_test_util.h"
#include "core/predictor/predictor_test_util.h"
#include "weft/runtime.h"
#include "weft/predictor.h"

namespace weft {
namespace {

using namespace test::predictor;

const Shape kOne{1, 3, 6, 6};
constexpr size_t kSample = 3 * 6 * 6, kClasses = 5;

PredictorOptions Batching(BatchQueue queue, int max_batch = 8, int delay_us = 20000) {
  PredictorOptions o;
  o.max_executors = 2;
  o.max_batch = max_batch;
  o.batch_delay_us = delay_us;
  o.batch_queue = queue;
  return o;
}

// Random single-sample inputs and their outputs from a predictor without batching.
struct Cases {
  std::vector<std::vector<float>> in, want;
  Cases(const Net& net, int n) {
    auto plain = Predictor::Create(&Runtime::Global(), net.sym, net.params, {{"data", kOne}},
                                   Context::CPU(0));
    for (int i = 0; i < n; ++i) {
      in.push_back(Floats(test::RandomArray(kOne, DType::kFloat32, -1, 1, 300 + i)));
      want.emplace_back(kClasses);
      plain->Predict({In(in.back(), kOne)}, {Out(&want.back())});
    }
  }
};

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t k = 0; k < got.size(); ++k)
    EXPECT_NEAR(got[k], want[k], 1e-5 * (1 + std::fabs(want[k]))) << what;
}

TEST(PredictorBatching, ConcurrentCallsAreBatchedAndEqualSingleCalls) {
  Net net(1);
  const Cases cases(net, 6);
  for (BatchQueue q : {BatchQueue::kMutex, BatchQueue::kLockfree}) {
    auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params, {{"data", kOne}},
                                  Context::CPU(0), Batching(q));
    std::atomic<int> bad{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        std::vector<float> out(kClasses);
        for (int r = 0; r < 20; ++r) {
          const size_t i = static_cast<size_t>(t + r) % cases.in.size();
          pred->Predict({In(cases.in[i], kOne)}, {Out(&out)});
          for (size_t k = 0; k < kClasses; ++k)
            if (std::fabs(out[k] - cases.want[i][k]) > 1e-5 * (1 + std::fabs(cases.want[i][k])))
              ++bad;
        }
      });
    for (auto& t : threads) t.join();
    EXPECT_EQ(bad.load(), 0);
    const PredictorStats s = pred->stats();
    EXPECT_EQ(s.batched_calls, 160u);
    EXPECT_LT(s.batches, s.batched_calls)
        << "8 callers and a 20 ms delay: some batch holds several calls";
    EXPECT_LE(s.executors, 2u * s.shape_sets);
    EXPECT_LE(s.shape_sets, 4u) << "batches of 1, 2, 4 or 8 samples";
    EXPECT_EQ(s.in_use, 0u);
  }
}

TEST(PredictorBatching, MixedBatchSizesAndLargeCallsRunAlone) {
  Net net(6);
  const std::vector<float> all = net.Input();  // 6 samples
  const std::vector<float> want = net.Expected();
  auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params, {{"data", kOne}},
                                Context::CPU(0), Batching(BatchQueue::kLockfree, /*max_batch=*/4));
  // Threads send samples [b, b + n) for n = 1, 2, 3 at once, repeatedly.
  struct Call {
    int begin, n;
  };
  const Call calls[] = {{0, 1}, {1, 2}, {3, 3}, {5, 1}};
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (const Call& c : calls)
    threads.emplace_back([&, c] {
      std::vector<float> in(all.begin() + c.begin * kSample,
                            all.begin() + (c.begin + c.n) * kSample);
      std::vector<float> out(c.n * kClasses);
      for (int r = 0; r < 10; ++r) {
        pred->Predict({In(in, Shape{c.n, 3, 6, 6})}, {Out(&out)});
        ExpectNear(out,
                   std::vector<float>(want.begin() + c.begin * kClasses,
                                      want.begin() + (c.begin + c.n) * kClasses),
                   "samples from " + std::to_string(c.begin));
      }
      ++done;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(done.load(), 4);
  EXPECT_EQ(pred->stats().batched_calls, 40u);
  // Six samples exceed max_batch 4: the call runs alone, as without batching.
  std::vector<float> out(6 * kClasses);
  pred->Predict({In(all, Shape{6, 3, 6, 6})}, {Out(&out)});
  ExpectNear(out, want, "batch of 6");
  EXPECT_EQ(pred->stats().batched_calls, 40u);
}

TEST(PredictorBatching, ABadBufferFailsOnlyItsOwnCall) {
  Net net(1);
  const Cases cases(net, 2);
  auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params, {{"data", kOne}},
                                Context::CPU(0), Batching(BatchQueue::kMutex, 8, 50000));
  std::vector<float> good(kClasses), small(kClasses - 1);
  std::string error;
  std::thread bad_caller([&] {
    error = test::ExpectWeftError([&] { pred->Predict({In(cases.in[1], kOne)}, {Out(&small)}); },
                                  StatusCode::kInvalidArgument,
                                  {"output 'softmax_output'", "20 bytes", "given 16"});
  });
  pred->Predict({In(cases.in[0], kOne)}, {Out(&good)});
  bad_caller.join();
  ExpectNear(good, cases.want[0], "the good call");
  // Input sizes are checked before queueing, naming the input.
  std::vector<float> short_in(kSample - 1);
  test::ExpectWeftError(
      [&] {
        pred->Predict({{short_in.data(), short_in.size() * 4, kOne}}, {Out(&good)});
      },
      StatusCode::kInvalidArgument, {"input 'data'", "432 bytes", "given 428"});
  EXPECT_EQ(pred->stats().in_use, 0u);
}

TEST(PredictorBatching, CreateChecksTheBatchAxisAndOptions) {
  Net net(1);
  // An output that sums over the batch has no batch axis.
  Symbol summed = test::Apply("sum", {net.sym}, {}, "total");
  test::ExpectWeftError(
      [&] {
        Predictor::Create(&Runtime::Global(), summed, net.params, {{"data", kOne}}, Context::CPU(0),
                          Batching(BatchQueue::kMutex));
      },
      StatusCode::kInvalidArgument,
      {"dynamic batching", "max_batch 8", "output 'total_output'", "batch of 2"});
  PredictorOptions o = Batching(BatchQueue::kMutex);
  o.max_batch = -1;
  test::ExpectWeftError(
      [&] {
        Predictor::Create(&Runtime::Global(), net.sym, net.params, {{"data", kOne}},
                          Context::CPU(0), o);
      },
      StatusCode::kInvalidArgument, {"max_batch is -1"});
  o = Batching(BatchQueue::kMutex);
  o.batch_delay_us = -5;
  test::ExpectWeftError(
      [&] {
        Predictor::Create(&Runtime::Global(), net.sym, net.params, {{"data", kOne}},
                          Context::CPU(0), o);
      },
      StatusCode::kInvalidArgument, {"batch_delay_us is -5"});
}

TEST(PredictorBatching, CloseWhileBatchedCallsWaitFailsThemCleanly) {
  Net net(1);
  const Cases cases(net, 1);
  auto pred = Predictor::Create(&Runtime::Global(), net.sym, net.params, {{"data", kOne}},
                                Context::CPU(0), Batching(BatchQueue::kLockfree, 8, 2000));
  std::atomic<int> ok{0}, closed{0}, other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&] {
      std::vector<float> out(kClasses);
      for (int r = 0; r < 100; ++r) {
        try {
          pred->Predict({In(cases.in[0], kOne)}, {Out(&out)});
          (MaxAbsDiff(out, cases.want[0]) <= 1e-5 ? ok : other)++;
        } catch (const Error& e) {
          (std::string(e.what()).find("closed") != std::string::npos ? closed : other)++;
        }
      }
    });
  while (ok.load() + other.load() < 6) std::this_thread::yield();
  pred->Close();
  EXPECT_EQ(pred->stats().in_use, 0u);
  for (auto& t : threads) t.join();
  EXPECT_EQ(other.load(), 0);
  EXPECT_GT(closed.load(), 0);
  EXPECT_EQ(ok.load() + closed.load(), 600);
}

}  // namespace
}  // namespace weft
