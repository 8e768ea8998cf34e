#include <gtest/gtest.h>

#include <cmath>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(NNSoftmax, ForwardMatchesClosedForm) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::Array({2, 3}, {1, 2, 3, -1, 0, 1000}, dt);
    auto y = test::Run("softmax", {x});
    std::vector<double> v = test::Values(y[0]);
    const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
    EXPECT_NEAR(v[0], std::exp(1.0) / z, 1e-6);
    EXPECT_NEAR(v[2], std::exp(3.0) / z, 1e-6);
    EXPECT_NEAR(v[5], 1.0, 1e-6);  // stable for large inputs
    EXPECT_NEAR(v[3], 0.0, 1e-6);
    auto ly = test::Run("log_softmax", {x});
    EXPECT_NEAR(test::Values(ly[0])[0], 1 - std::log(z), 1e-5);
    EXPECT_NEAR(test::Values(ly[0])[3], -1001, 1e-3);
  }
}

TEST(NNSoftmax, AxisAndTemperature) {
  NDArray x = test::Array({2, 2}, {0, 2, 2, 0}, DType::kFloat64);
  auto y = test::Run("softmax", {x}, {{"axis", "0"}, {"temperature", "2"}});
  const double a = 1 / (1 + std::exp(1.0));
  std::vector<double> v = test::Values(y[0]);
  EXPECT_NEAR(v[0], a, 1e-15);
  EXPECT_NEAR(v[2], 1 - a, 1e-15);
  EXPECT_NEAR(v[1], 1 - a, 1e-15);
}

TEST(NNSoftmax, MatchesTorchReferences) {
  for (const char* stem :
       {"softmax_axis_last", "softmax_axis1_temp", "log_softmax_axis_last",
        "log_softmax_axis0_temp", "SoftmaxActivation_instance", "SoftmaxActivation_channel"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

TEST(NNSoftmax, GradientMatchesNumeric) {
  NDArray x = test::RandomArray({2, 3, 4}, DType::kFloat64, -2, 2, 11);
  const std::vector<std::pair<std::string, StringMap>> cases = {
      {"softmax", {}},
      {"softmax", {{"axis", "1"}, {"temperature", "0.7"}}},
      {"log_softmax", {{"axis", "0"}}},
      {"log_softmax", {{"axis", "-1"}, {"temperature", "3"}}},
      {"SoftmaxActivation", {}},
      {"SoftmaxActivation", {{"mode", "channel"}}},
  };
  for (const auto& [op, params] : cases) {
    std::string where;
    EXPECT_LT(test::GradientError(op, {x}, params, {}, 1e-6, &where), 1e-6) << op << where;
  }
}

TEST(NNSoftmax, Errors) {
  NDArray x = test::Array({2, 3}, {1, 2, 3, 4, 5, 6});
  test::ExpectError(
      [&] {
        test::Run("softmax", {x}, {{"axis", "2"}});
      },
      StatusCode::kInvalidArgument, {"softmax", "axis"});
  test::ExpectError(
      [&] {
        test::Run("log_softmax", {x}, {{"dtype", "float64"}});
      },
      StatusCode::kNotImplemented, {"log_softmax", "dtype"});
  test::ExpectError(
      [&] {
        test::Run("SoftmaxActivation", {test::Array({3}, {1, 2, 3})}, {{"mode", "channel"}});
      },
      StatusCode::kShape, {"SoftmaxActivation", "channel"});
  test::ExpectError(
      [&] {
        test::Run("softmax", {x}, {{"temperature", "0"}});
      },
      StatusCode::kInvalidArgument, {"softmax", "temperature"});
}

TEST(NNSoftmax, UseLengthMasksTheAxis) {
  EXPECT_TRUE(test::CheckOpRef("softmax_length_last"));
  EXPECT_TRUE(test::CheckOpRef("softmax_length_axis1_temp"));
  // Length 0 gives an all-zero line; float lengths are accepted too.
  NDArray x = test::Array({2, 3}, {1, 2, 3, 4, 5, 6}, DType::kFloat64);
  auto y = test::Values(test::Run("softmax", {x, test::Array({2}, {0, 2}, DType::kFloat64)},
                                  {{"use_length", "True"}})[0]);
  const double e = std::exp(1.0);
  const std::vector<double> want = {0, 0, 0, 1 / (1 + e), e / (1 + e), 0};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(y[i], want[i], 1e-15) << i;
  std::vector<Shape> in = {Shape({2, 3, 4}), Shape()}, out;
  EXPECT_TRUE(test::InferShapes("softmax", {{"use_length", "True"}, {"axis", "-2"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({2, 4}));
  std::string where;
  EXPECT_LT(test::GradientError("softmax",
                                {test::RandomArray({2, 4}, DType::kFloat64, -1, 1, 3),
                                 test::Array({2}, {3, 1}, DType::kInt32)},
                                {{"use_length", "True"}}, {0}, 1e-6, &where),
            1e-6)
      << where;
  test::ExpectError(
      [&] {
        test::Run("softmax", {x, test::Array({2}, {1, 4}, DType::kInt32)},
                  {{"use_length", "True"}});
      },
      StatusCode::kInvalidArgument, {"softmax", "length 4"});
  test::ExpectError(
      [&] {
        test::Run("log_softmax", {x}, {{"use_length", "True"}});
      },
      StatusCode::kInvalidArgument, {"log_softmax", "use_length"});
}

}  // namespace
}  // namespace weft
