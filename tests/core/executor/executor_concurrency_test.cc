// Executors under concurrent use (run under TSan by `./dev tsan`, whose
// filter includes Executor): several executors sharing weight arrays run
// forward from several threads while other threads bind, reshape and free
// executors on the same weights; and one executor called from two threads
// at once (serialised by its lock). Fixed iteration counts, no timing.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/executor.h"

namespace weft {
namespace {

const Context kCpu = Context::CPU(0);

Symbol Mlp() {
  Symbol h = Symbol::Apply(Runtime::Global().ops(), "FullyConnected",
                           {Symbol::CreateVariable("data")}, {{"num_hidden", "16"}}, "fc1");
  h = Symbol::Apply(Runtime::Global().ops(), "Activation", {h}, {{"act_type", "relu"}}, "act1");
  return Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {h}, {{"num_hidden", "4"}},
                       "fc2");
}

NDArray Filled(const Shape& shape, float phase) {
  std::vector<double> v(static_cast<size_t>(shape.Size()));
  for (size_t k = 0; k < v.size(); ++k) v[k] = std::sin(0.37 * static_cast<double>(k) + phase);
  return test::Array(shape, v);
}

// Equal within float rounding (a different batch may take another BLAS path).
bool Near(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::fabs(a[i] - b[i]) > 1e-5 * (1 + std::fabs(b[i]))) return false;
  return true;
}

class ExecutorConcurrency : public ::testing::Test {
 protected:
  void SetUp() override {
    weights_ = {{"fc1_weight", Filled(Shape{16, 10}, 1.f)},
                {"fc1_bias", Filled(Shape{16}, 2.f)},
                {"fc2_weight", Filled(Shape{4, 16}, 3.f)},
                {"fc2_bias", Filled(Shape{4}, 4.f)}};
  }
  // An inference executor on the shared weights and a data array of its own.
  std::unique_ptr<Executor> BindShared(int batch, float phase) {
    std::map<std::string, NDArray> args = weights_;
    args["data"] = Filled(Shape{batch, 10}, phase);
    return Executor::BindByName(&Runtime::Global(), symbol_, kCpu, args, {}, {}, {});
  }
  NameScope scope_;
  Symbol symbol_ = Mlp();
  std::map<std::string, NDArray> weights_;
};

TEST_F(ExecutorConcurrency, SharedWeightsUnderBindReshapeFreeChurn) {
  constexpr int kRunners = 3, kChurners = 2, kIters = 25;
  // References, one run alone per data phase.
  std::vector<std::vector<double>> want(kRunners);
  for (int t = 0; t < kRunners; ++t) {
    auto ex = BindShared(8, 0.5f * t);
    ex->Forward(false);
    want[t] = test::Values(ex->outputs()[0]);
  }
  std::vector<std::string> errors(kRunners + kChurners);
  std::vector<int> mismatches(kRunners + kChurners, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kRunners; ++t)
    threads.emplace_back([&, t] {
      try {
        auto ex = BindShared(8, 0.5f * t);
        for (int i = 0; i < kIters; ++i) {
          ex->Forward(false);
          if (test::Values(ex->outputs()[0]) != want[t]) ++mismatches[t];
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (int c = 0; c < kChurners; ++c)
    threads.emplace_back([&, c] {
      const int slot = kRunners + c;
      try {
        for (int i = 0; i < kIters; ++i) {
          auto ex = BindShared(8, 0.5f * (c % kRunners));
          ex->Forward(false);
          // A smaller batch: data becomes a view of the old data, weights shared.
          auto small = ex->Reshape({{"data", Shape{4, 10}}});
          small->Forward(false);
          std::vector<double> got = test::Values(small->outputs()[0]);
          const std::vector<double>& full = want[c % kRunners];
          if (!Near(got, std::vector<double>(full.begin(), full.begin() + 16))) ++mismatches[slot];
          ex.reset();  // freed while `small` still uses the shared arrays
          small->Forward(false);
          if (test::Values(small->outputs()[0]) != got) ++mismatches[slot];
        }
      } catch (const std::exception& e) {
        errors[slot] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (size_t t = 0; t < errors.size(); ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  }
  // The shared weights are unchanged.
  EXPECT_EQ(test::Values(weights_["fc2_bias"]), test::Values(Filled(Shape{4}, 4.f)));
}

// One executor, two threads calling Forward and Backward at once: the calls
// are serialised (no data race on the executor's run state, which TSan
// checks) and the result is the single-threaded one, since the inputs do
// not change. The outputs are read after both threads finished: reading
// them while the other thread pushes a Forward would race on their bytes
// (NDArray's rules), not on the executor.
TEST_F(ExecutorConcurrency, OneExecutorTwoThreadsIsSerialised) {
  std::map<std::string, NDArray> args = weights_, grads;
  args["data"] = Filled(Shape{8, 10}, 0.f);
  for (const auto& kv : args)
    grads[kv.first] = NDArray(kv.second.shape(), kCpu, kv.second.dtype(), &Runtime::Global());
  std::map<std::string, GradReq> reqs;
  for (const auto& kv : args) reqs[kv.first] = GradReq::kWrite;
  auto ex = Executor::BindByName(&Runtime::Global(), symbol_, kCpu, args, grads, reqs, {});
  const NDArray head = test::Array({8, 4}, std::vector<double>(32, 1.0));
  ex->Forward(true);
  ex->Backward({head});
  const std::vector<double> want_out = test::Values(ex->outputs()[0]);
  const std::vector<double> want_grad = test::Values(grads["fc1_weight"]);
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < 30; ++i) {
          ex->Forward(true);
          ex->Backward({head});
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 2; ++t) EXPECT_EQ(errors[t], "") << t;
  EXPECT_EQ(test::Values(ex->outputs()[0]), want_out);
  EXPECT_EQ(test::Values(grads["fc1_weight"]), want_grad);
}

}  // namespace
}  // namespace weft
