// Fault injection (storage/storage_testing.h): a failure walked over every
// allocation of a whole LeNet workload — bind, forward and backward in
// training mode, a checkpoint saved and loaded back — must surface each
// time as a clean Error(kOutOfMemory) naming the hook (from the call that
// allocates, or at the wait for an engine op that does), leave no storage
// behind, and leave the library usable: the same workload then succeeds.
// ASan (./dev asan) checks that no failure path leaks.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "storage/storage_testing.h"
#include "core/pass/inference_test_util.h"
#include "util/test_util.h"
#include "weft/checkpoint.h"
#include "weft/executor.h"
#include "weft/runtime.h"
#include "weft/storage.h"

namespace weft {
namespace {

using test::Apply;

Symbol SmallLeNet() {
  auto pool = [](const Symbol& x, const std::string& n) {
    return Apply("Pooling", {x}, {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "max"}},
                 n);
  };
  auto act = [](const Symbol& x, const std::string& n) {
    return Apply("Activation", {x}, {{"act_type", "tanh"}}, n);
  };
  Symbol h = Apply("Convolution", {Symbol::CreateVariable("data")},
                   {{"kernel", "(5,5)"}, {"num_filter", "4"}}, "conv1");
  h = pool(act(h, "tanh1"), "pool1");
  h = pool(
      act(Apply("Convolution", {h}, {{"kernel", "(5,5)"}, {"num_filter", "8"}}, "conv2"), "tanh2"),
      "pool2");
  h = act(Apply("FullyConnected", {Apply("Flatten", {h}, {}, "flatten")}, {{"num_hidden", "16"}},
                "fc1"),
          "tanh3");
  h = Apply("FullyConnected", {h}, {{"num_hidden", "10"}}, "fc2");
  return Apply("SoftmaxOutput", {h, Symbol::CreateVariable("softmax_label")}, {}, "softmax");
}

// The workload; returns the loaded-back checkpoint's fc2 weight values.
std::vector<double> Workload(const Symbol& net, const std::string& prefix) {
  auto ex = Executor::SimpleBind(&Runtime::Global(), net, Context::CPU(0),
                                 {{"data", Shape{2, 1, 28, 28}}, {"softmax_label", Shape{2}}});
  const std::vector<std::string>& names = ex->arg_names();
  std::map<std::string, NDArray> args;
  for (size_t i = 0; i < names.size(); ++i) {
    NDArray a = ex->arg_arrays()[i];
    std::vector<float> v(static_cast<size_t>(a.Size()));
    for (size_t k = 0; k < v.size(); ++k)
      v[k] = names[i] == "softmax_label" ? static_cast<float>(k % 10)
                                         : 0.01f * static_cast<float>(k % 17) - 0.08f;
    a.CopyFromHost(v.data(), v.size() * sizeof(float));
    if (names[i] != "data" && names[i] != "softmax_label") args[names[i]] = a;
  }
  ex->Forward(true);
  ex->Backward();
  for (const NDArray& g : ex->grad_arrays())
    if (!g.is_none()) g.WaitToRead();
  SaveCheckpoint(prefix, 1, net, args, {});
  Checkpoint back = LoadCheckpoint(prefix, 1, &Runtime::Global());
  return test::Values(back.args.at("fc2_weight"));
}

TEST(FaultInjection, EveryAllocationFailureIsACleanErrorAndTheLibraryStaysUsable) {
  const Symbol net = SmallLeNet();
  const std::string prefix = (std::filesystem::path(::testing::TempDir()) / "fault_lenet").string();
  const std::vector<double> want = Workload(net, prefix);  // also warms every lazy global
  std::shared_ptr<StoragePool> pool = Runtime::Global().storage(Context::CPU(0));
  int failures = 0;
  for (size_t n = 1;; ++n) {
    Engine::Get()->WaitForAll();
    const size_t live_before = pool->stats().live_bytes;
    SetAllocFailureForTesting(n);
    bool failed = false;
    try {
      Workload(net, prefix);
    } catch (const Error& e) {
      failed = true;
      EXPECT_EQ(e.code(), StatusCode::kOutOfMemory) << "allocation " << n << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("fault-injection test hook"), std::string::npos)
          << e.what();
    }
    const size_t refused = AllocFailuresForTesting();
    SetAllocFailureForTesting(0);
    try {
      Engine::Get()->WaitForAll();  // an op that failed after its caller returned reports here
    } catch (const Error& e) {
      failed = true;
      EXPECT_EQ(e.code(), StatusCode::kOutOfMemory) << "allocation " << n << ": " << e.what();
    }
    if (refused == 0) {
      EXPECT_FALSE(failed) << "allocation " << n << " was not refused, yet the workload failed";
      break;  // n is past the workload's last allocation
    }
    EXPECT_TRUE(failed) << "allocation " << n << " was refused silently";
    ++failures;
    EXPECT_EQ(pool->stats().live_bytes, live_before)
        << "allocation " << n << ": storage left behind";
    ASSERT_LT(n, 10000u) << "the workload never finished without a refusal";
  }
  RecordProperty("allocations_refused", failures);
  EXPECT_GT(failures, 10) << "the walk should cover the workload's many allocations";
  // Usable afterwards: the same workload gives the same checkpoint.
  EXPECT_EQ(Workload(net, prefix), want);
}

}  // namespace
}  // namespace weft
