#include <gtest/gtest.h>

#include <cmath>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

const char* const kActs[] = {"relu", "sigmoid", "tanh", "softrelu", "softsign"};

double ActClosedForm(const std::string& act, double x) {
  if (act == "relu") return x > 0 ? x : 0;
  if (act == "sigmoid") return 1 / (1 + std::exp(-x));
  if (act == "tanh") return std::tanh(x);
  if (act == "softrelu") return std::log(1 + std::exp(x));
  return x / (1 + std::fabs(x));
}

TEST(NNActivation, ForwardMatchesClosedForm) {
  for (DType dt : {DType::kFloat32, DType::kFloat64})
    for (const char* act : kActs) {
      NDArray x = test::Array({5}, {-2.5, -0.5, 0.25, 1, 3}, dt);
      auto y = test::Run("Activation", {x}, {{"act_type", act}});
      std::vector<double> xv = test::Values(x), yv = test::Values(y[0]);
      for (size_t i = 0; i < xv.size(); ++i)
        EXPECT_NEAR(yv[i], ActClosedForm(act, xv[i]), 1e-6) << act << i;
    }
}

TEST(NNActivation, SoftreluIsStableForLargeInputs) {
  auto y = test::Run("Activation", {test::Array({2}, {800, -800}, DType::kFloat64)},
                     {{"act_type", "softrelu"}});
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{800, 0}));
}

TEST(NNActivation, MatchesTorchReferences) {
  for (const char* act : kActs) EXPECT_TRUE(test::CheckOpRef(std::string("Activation_") + act));
}

TEST(NNActivation, GradientMatchesNumeric) {
  // Values kept away from relu's kink at 0.
  NDArray x = test::Array({2, 3}, {-1.5, -0.3, 0.2, 0.7, 1.9, -2.2}, DType::kFloat64);
  for (const char* act : kActs) {
    std::string where;
    EXPECT_LT(test::GradientError("Activation", {x}, {{"act_type", act}}, {}, 1e-6, &where), 1e-6)
        << act << where;
  }
}

TEST(NNActivation, Errors) {
  NDArray x = test::Array({1}, {1});
  test::ExpectError([&] { test::Run("Activation", {x}, {}); }, StatusCode::kInvalidArgument,
                    {"Activation", "act_type"});
  test::ExpectError(
      [&] {
        test::Run("Activation", {x}, {{"act_type", "swish"}});
      },
      StatusCode::kInvalidArgument, {"Activation", "act_type", "swish"});
}

TEST(NNLeakyReLU, DefaultIsLeakyWithSlopeQuarter) {
  auto y = test::Run("LeakyReLU", {test::Array({3}, {-4, 0, 2})});
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{-1, 0, 2}));
}

TEST(NNLeakyReLU, RreluInferenceUsesMeanSlope) {
  auto y = test::Run("LeakyReLU", {test::Array({2}, {-2, 3}, DType::kFloat64)},
                     {{"act_type", "rrelu"}, {"lower_bound", "0.1"}, {"upper_bound", "0.3"}});
  std::vector<double> v = test::Values(y[0]);
  EXPECT_NEAR(v[0], -0.4, 1e-15);
  EXPECT_EQ(v[1], 3);
}

TEST(NNLeakyReLU, MatchesTorchReferences) {
  for (const char* c : {"leaky", "elu", "selu", "gelu", "prelu", "rrelu_infer"})
    EXPECT_TRUE(test::CheckOpRef(std::string("LeakyReLU_") + c));
}

TEST(NNLeakyReLU, GradientMatchesNumeric) {
  NDArray x =
      test::Array({2, 2, 3}, {-1.5, -0.3, 0.2, 0.7, 1.9, -2.2, 0.4, -0.8, 1.1, -1.2, 0.6, -0.1},
                  DType::kFloat64);
  for (const char* act : {"leaky", "elu", "selu", "gelu", "rrelu"}) {
    std::string where;
    EXPECT_LT(test::GradientError("LeakyReLU", {x}, {{"act_type", act}, {"slope", "0.3"}}, {}, 1e-6,
                                  &where),
              1e-6)
        << act << where;
  }
  for (NDArray gamma :
       {test::Array({2}, {0.2, 0.6}, DType::kFloat64), test::Array({1}, {0.3}, DType::kFloat64)}) {
    std::string where;
    EXPECT_LT(
        test::GradientError("LeakyReLU", {x, gamma}, {{"act_type", "prelu"}}, {}, 1e-6, &where),
        1e-6)
        << where;
  }
}

TEST(NNLeakyReLU, PreluShapes) {
  std::vector<Shape> in = {Shape({2, 5, 3}), Shape()}, out;
  EXPECT_TRUE(test::InferShapes("LeakyReLU", {{"act_type", "prelu"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({5}));
  EXPECT_EQ(out[0], Shape({2, 5, 3}));
  in = {Shape(), Shape()};
  out = {Shape({4, 2})};
  EXPECT_TRUE(test::InferShapes("LeakyReLU", {{"act_type", "prelu"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({4, 2}));
  EXPECT_EQ(in[1], Shape({2}));
  NDArray x = test::RandomArray({2, 3}, DType::kFloat32, -1, 1, 1);
  test::ExpectError(
      [&] {
        test::Run("LeakyReLU", {x, test::Array({2}, {1, 1})}, {{"act_type", "prelu"}});
      },
      StatusCode::kShape, {"LeakyReLU", "gamma"});
}

std::vector<NDArray> RunTrain(const std::string& op, const std::vector<NDArray>& in,
                              const StringMap& params) {
  std::vector<NDArray> out;
  InvokeOptions opts;
  opts.is_train = true;
  Invoke(&Runtime::Global(), op, in, params, &out, opts);
  return out;
}

TEST(NNDropout, InferenceIdentityAndExtremeP) {
  NDArray x = test::RandomArray({4, 5}, DType::kFloat32, 0.5, 1, 1);
  auto inf = test::Run("Dropout", {x}, {{"p", "0.5"}});
  ASSERT_EQ(inf.size(), 2u);
  EXPECT_EQ(test::Values(inf[0]), test::Values(x));
  EXPECT_EQ(test::Values(RunTrain("Dropout", {x}, {{"p", "0"}})[0]), test::Values(x));
  for (double v : test::Values(RunTrain("Dropout", {x}, {{"p", "1"}})[0])) EXPECT_EQ(v, 0);
  // mode=always drops at inference too.
  bool any_zero = false;
  for (double v : test::Values(test::Run("Dropout", {x}, {{"p", "0.5"}, {"mode", "always"}})[0]))
    any_zero |= v == 0;
  EXPECT_TRUE(any_zero);
  test::ExpectError(
      [&] {
        test::Run("Dropout", {x}, {{"p", "1.5"}});
      },
      StatusCode::kInvalidArgument, {"Dropout", "'p'"});
}

TEST(NNDropout, TrainingScalesKeptValuesAndIsSeeded) {
  NDArray x = test::RandomArray({100, 100}, DType::kFloat64, 0.5, 1, 2);
  Runtime::Global().Seed(7);
  auto a = RunTrain("Dropout", {x}, {{"p", "0.3"}});
  Runtime::Global().Seed(7);
  auto b = RunTrain("Dropout", {x}, {{"p", "0.3"}});
  EXPECT_EQ(test::Values(a[0]), test::Values(b[0]));
  std::vector<double> xv = test::Values(x), yv = test::Values(a[0]), mv = test::Values(a[1]);
  int zeros = 0;
  for (size_t i = 0; i < xv.size(); ++i) {
    if (yv[i] == 0) {
      ++zeros;
      EXPECT_EQ(mv[i], 0);
    } else {
      EXPECT_NEAR(yv[i], xv[i] / 0.7, 1e-12);
    }
  }
  EXPECT_NEAR(zeros / 10000.0, 0.3, 0.03);
}

TEST(NNDropout, AxesShareTheMask) {
  NDArray x = test::RandomArray({6, 50}, DType::kFloat64, 0.5, 1, 3);
  auto y = RunTrain("Dropout", {x}, {{"p", "0.5"}, {"axes", "(1,)"}});
  std::vector<double> mv = test::Values(y[1]);
  for (int r = 0; r < 6; ++r)
    for (int c = 1; c < 50; ++c) EXPECT_EQ(mv[r * 50 + c], mv[r * 50]);
}

TEST(NNDropout, GradientIsOgradTimesMask) {
  NDArray x = test::RandomArray({3, 4}, DType::kFloat64, -1, 1, 4);
  std::string where;
  EXPECT_LT(test::GradientError("Dropout", {x}, {{"p", "0.4"}}, {}, 1e-6, &where), 1e-6) << where;
  auto y = RunTrain("Dropout", {x}, {{"p", "0.4"}});
  NDArray og = test::RandomArray({3, 4}, DType::kFloat64, -1, 1, 5);
  auto g = test::Run("_backward_Dropout", {og, y[1]}, {{"p", "0.4"}});
  std::vector<double> gv = test::Values(g[0]), ov = test::Values(og), mv = test::Values(y[1]);
  for (size_t i = 0; i < gv.size(); ++i) EXPECT_EQ(gv[i], ov[i] * mv[i]);
}

}  // namespace
}  // namespace weft
