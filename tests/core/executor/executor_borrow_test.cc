// Executor::BorrowArgument: the kernels read an argument from a caller's
// buffer instead of the bound array (the predictor's input without a copy),
// through the inference passes' layout steps and views of it; refused where
// the memory cannot be lent; the array is given back unchanged.
#include <gtest/gtest.h>

#include <vector>

#include "core/pass/inference_test_util.h"
#include "util/test_util.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::Apply;

// Convolution + BatchNorm + ReLU (a blocked layout step reads the data),
// and a second branch reading the data through Flatten (a view of it).
Symbol Net() {
  Symbol x = Symbol::CreateVariable("data");
  Symbol c =
      Apply("Convolution", {x}, {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "8"}}, "c1");
  Symbol h = Apply("Activation", {Apply("BatchNorm", {c}, {{"fix_gamma", "False"}}, "bn1")},
                   {{"act_type", "relu"}}, "r1");
  Symbol a =
      Apply("FullyConnected", {Apply("Flatten", {h}, {}, "f1")}, {{"num_hidden", "5"}}, "fc1");
  Symbol b =
      Apply("FullyConnected", {Apply("Flatten", {x}, {}, "f2")}, {{"num_hidden", "5"}}, "fc2");
  return Apply("elemwise_add", {a, b}, {}, "sum");
}

std::vector<float> Random(size_t n, unsigned seed) {
  const std::vector<double> v =
      test::Values(test::RandomArray(Shape{int64_t(n)}, DType::kFloat32, -1, 1, seed));
  return std::vector<float>(v.begin(), v.end());
}

TEST(ExecutorBorrow, KernelsReadTheCallersBufferAndTheArrayIsGivenBack) {
  const Shape shape{2, 3, 8, 8};
  for (bool optimize : {true, false}) {
    auto ex = test::BindInference(Net(), {{"data", shape}}, optimize);
    auto ref = test::BindInference(Net(), {{"data", shape}}, optimize);
    test::FillRandom(ex.get(), 5);
    test::CopyArrays(*ex, ref.get());
    NDArray data = ex->arg_arrays()[0], ref_data = ref->arg_arrays()[0];
    const std::vector<double> bound = test::Values(data);
    std::vector<float> buf;
    for (unsigned round = 0; round < 3; ++round) {
      // The same caller buffer with new contents in round 1, another in 2.
      if (round != 1) buf = Random(static_cast<size_t>(shape.Size()), 40 + round);
      if (round == 1)
        for (float& v : buf) v = -v;
      ASSERT_TRUE(ex->BorrowArgument(0, buf.data())) << optimize;
      ex->Forward(false);
      ref_data.CopyFromHost(buf.data(), buf.size() * sizeof(float));
      ref->Forward(false);
      EXPECT_EQ(test::Values(ex->outputs()[0]), test::Values(ref->outputs()[0]))
          << optimize << " round " << round;
      data.WaitToWrite();
      ASSERT_TRUE(ex->BorrowArgument(0, nullptr));
      EXPECT_EQ(test::Values(data), bound);  // never written
    }
    // Given back: the bound array's values are read again.
    ex->Forward(false);
    ref_data.CopyFromHost(std::vector<float>(bound.begin(), bound.end()).data(),
                          bound.size() * sizeof(float));
    ref->Forward(false);
    EXPECT_EQ(test::Values(ex->outputs()[0]), test::Values(ref->outputs()[0])) << optimize;
  }
}

TEST(ExecutorBorrow, RefusedWhereTheMemoryCannotBeLent) {
  std::vector<float> buf(6, 1.0f);
  // The output is the argument itself (an identity graph's view).
  Symbol x = Symbol::CreateVariable("x");
  auto same = test::BindInference(Apply("Flatten", {x}, {}, "f"), {{"x", Shape{2, 3}}}, false);
  if (same->outputs()[0].dptr() == same->arg_arrays()[0].dptr()) {
    EXPECT_FALSE(same->BorrowArgument(0, buf.data()));
  }
  // A monitor copies entries from the bound arrays.
  auto mon = test::BindInference(Apply("relu", {x}, {}, "r"), {{"x", Shape{2, 3}}}, false);
  mon->SetMonitorCallback([](const std::string&, const NDArray&) {}, false);
  EXPECT_FALSE(mon->BorrowArgument(0, buf.data()));
  mon->SetMonitorCallback(nullptr, false);
  EXPECT_TRUE(mon->BorrowArgument(0, buf.data()));
  mon->Forward(false);
  EXPECT_EQ(test::Values(mon->outputs()[0]), std::vector<double>(6, 1.0));
  mon->arg_arrays()[0].WaitToWrite();
  EXPECT_TRUE(mon->BorrowArgument(0, nullptr));
  test::ExpectError([&] { mon->BorrowArgument(3, buf.data()); }, StatusCode::kInvalidArgument,
                    {"argument 3 of 1"});
}

}  // namespace
}  // namespace weft
