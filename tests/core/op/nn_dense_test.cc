#include <gtest/gtest.h>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

// out[i][j] = sum_p x[i][p] * w[j][p] + b[j].
std::vector<double> NaiveFC(const std::vector<double>& x, const std::vector<double>& w,
                            const std::vector<double>* b, int64_t m, int64_t n, int64_t k) {
  std::vector<double> y(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = b ? (*b)[j] : 0;
      for (int64_t p = 0; p < k; ++p) s += x[i * k + p] * w[j * k + p];
      y[i * n + j] = s;
    }
  return y;
}

TEST(NNDense, ForwardMatchesNaiveLoop) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::RandomArray({5, 2, 3}, dt, -1, 1, 1);
    NDArray w = test::RandomArray({7, 6}, dt, -1, 1, 2);
    NDArray b = test::RandomArray({7}, dt, -1, 1, 3);
    auto y = test::Run("FullyConnected", {x, w, b}, {{"num_hidden", "7"}});
    ASSERT_EQ(y[0].shape(), Shape({5, 7}));
    EXPECT_EQ(y[0].dtype(), dt);
    std::vector<double> bv = test::Values(b);
    std::vector<double> want = NaiveFC(test::Values(x), test::Values(w), &bv, 5, 7, 6);
    std::vector<double> got = test::Values(y[0]);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  }
}

TEST(NNDense, NoFlattenContractsLastAxis) {
  NDArray x = test::RandomArray({2, 3, 4}, DType::kFloat64, -1, 1, 4);
  NDArray w = test::RandomArray({5, 4}, DType::kFloat64, -1, 1, 5);
  auto y = test::Run("FullyConnected", {x, w},
                     {{"num_hidden", "5"}, {"no_bias", "True"}, {"flatten", "False"}});
  ASSERT_EQ(y[0].shape(), Shape({2, 3, 5}));
  std::vector<double> want = NaiveFC(test::Values(x), test::Values(w), nullptr, 6, 5, 4);
  std::vector<double> got = test::Values(y[0]);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
}

TEST(NNDense, MatchesTorchReferences) {
  for (const char* stem :
       {"FullyConnected_basic", "FullyConnected_flatten_nobias", "FullyConnected_noflatten"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

TEST(NNDense, GradientMatchesNumeric) {
  const std::vector<std::pair<StringMap, std::vector<NDArray>>> cases = {
      {{{"num_hidden", "3"}},
       {test::RandomArray({4, 2, 2}, DType::kFloat64, -1, 1, 6),
        test::RandomArray({3, 4}, DType::kFloat64, -1, 1, 7),
        test::RandomArray({3}, DType::kFloat64, -1, 1, 8)}},
      {{{"num_hidden", "2"}, {"no_bias", "True"}, {"flatten", "False"}},
       {test::RandomArray({2, 3, 3}, DType::kFloat64, -1, 1, 9),
        test::RandomArray({2, 3}, DType::kFloat64, -1, 1, 10)}},
  };
  for (const auto& [params, inputs] : cases) {
    std::string where;
    EXPECT_LT(test::GradientError("FullyConnected", inputs, params, {}, 1e-6, &where), 1e-6)
        << where;
  }
}

TEST(NNDense, ShapeInferenceIsBidirectional) {
  // Weight and bias from data and num_hidden; output from data.
  std::vector<Shape> in = {Shape({8, 3, 4}), Shape(), Shape()}, out;
  EXPECT_TRUE(test::InferShapes("FullyConnected", {{"num_hidden", "10"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({10, 12}));
  EXPECT_EQ(in[2], Shape({10}));
  EXPECT_EQ(out[0], Shape({8, 10}));
  // Batch flows back from the output; K from weight when not flattened.
  in = {Shape({0, 5}), Shape(), Shape()};
  out = {Shape({6, 10})};
  EXPECT_TRUE(test::InferShapes("FullyConnected", {{"num_hidden", "10"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({6, 5}));
  in = {Shape({2, 3, 0}), Shape({4, 7})};
  out.clear();
  EXPECT_TRUE(test::InferShapes("FullyConnected",
                                {{"num_hidden", "4"}, {"no_bias", "True"}, {"flatten", "False"}},
                                &in, &out));
  EXPECT_EQ(in[0], Shape({2, 3, 7}));
  EXPECT_EQ(out[0], Shape({2, 3, 4}));
  // Unknown data: not all known, no error.
  in = {Shape(), Shape(), Shape()};
  out.clear();
  EXPECT_FALSE(test::InferShapes("FullyConnected", {{"num_hidden", "4"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({4, 0}));
}

TEST(NNDense, Errors) {
  NDArray x = test::RandomArray({2, 3}, DType::kFloat32, -1, 1, 1);
  NDArray w = test::RandomArray({4, 5}, DType::kFloat32, -1, 1, 1);
  NDArray b = test::RandomArray({4}, DType::kFloat32, -1, 1, 1);
  test::ExpectError(
      [&] {
        test::Run("FullyConnected", {x, w, b}, {});
      },
      StatusCode::kInvalidArgument, {"FullyConnected", "num_hidden"});
  test::ExpectError(
      [&] {
        test::Run("FullyConnected", {x, w, b}, {{"num_hidden", "4"}});
      },
      StatusCode::kShape, {"FullyConnected", "weight"});
  test::ExpectError(
      [&] {
        test::Run("FullyConnected", {x, w}, {{"num_hidden", "4"}});
      },
      StatusCode::kInvalidArgument, {"FullyConnected", "3 input"});
  NDArray b64 = test::RandomArray({4}, DType::kFloat64, -1, 1, 1);
  NDArray w3 = test::RandomArray({4, 3}, DType::kFloat32, -1, 1, 1);
  test::ExpectError(
      [&] {
        test::Run("FullyConnected", {x, w3, b64}, {{"num_hidden", "4"}});
      },
      StatusCode::kDType, {"FullyConnected", "bias"});
}

TEST(NNDense, AddRequestAccumulates) {
  NDArray x = test::Array({1, 2}, {1, 2}, DType::kFloat64);
  NDArray w = test::Array({2, 2}, {1, 0, 0, 1}, DType::kFloat64);
  NDArray b = test::Array({2}, {10, 20}, DType::kFloat64);
  std::vector<NDArray> out = {test::Array({1, 2}, {100, 200}, DType::kFloat64)};
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd};
  Invoke(&Runtime::Global(), "FullyConnected", {x, w, b}, {{"num_hidden", "2"}}, &out, opts);
  EXPECT_EQ(test::Values(out[0]), (std::vector<double>{111, 222}));
}

}  // namespace
}  // namespace weft
