// The quantized layers against float references of their definitions:
// quantized_conv / quantized_fully_connected's int32 output equals the
// float64 Convolution / FullyConnected of the integer levels (exact) plus
// the bias brought into output levels (MXNet's oneDNN rule, worked out here
// in double); the output range is MXNet's product range. Pooling, act,
// flatten, batch_norm and embedding against float ops or hand values.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "util/test_util.h"

namespace weft {
namespace {

using test::Array;
using test::Values;

// `n` random integer levels in [lo, hi].
std::vector<double> Levels(size_t n, int lo, int hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

NDArray Scalar(double v) { return Array({1}, {v}); }

struct WeightedCase {
  std::string op, float_op;
  Shape data, weight;
  StringMap params;
  DType data_type;
};

void CheckWeighted(const WeightedCase& c) {
  const bool u8 = c.data_type == DType::kUint8;
  const std::vector<double> xd = Levels(c.data.Size(), u8 ? 0 : -128, u8 ? 255 : 127, 1);
  const std::vector<double> wd = Levels(c.weight.Size(), -128, 127, 2);
  const int64_t f = c.weight[0];
  const std::vector<double> bd = Levels(static_cast<size_t>(f), -128, 127, 3);
  const float dmin = u8 ? 0.f : -1.5f, dmax = 3.f, wmin = -0.25f, wmax = 0.5f, bmin = -2, bmax = 1;
  StringMap fp = c.params;
  fp["no_bias"] = "True";
  const std::vector<double> ref = Values(
      test::Run(c.float_op,
                {Array(c.data, xd, DType::kFloat64), Array(c.weight, wd, DType::kFloat64)}, fp)[0]);
  auto out = test::Run(c.op,
                       {Array(c.data, xd, c.data_type), Array(c.weight, wd, DType::kInt8),
                        Array({f}, bd, DType::kInt8), Scalar(dmin), Scalar(dmax), Scalar(wmin),
                        Scalar(wmax), Scalar(bmin), Scalar(bmax)},
                       c.params);
  ASSERT_EQ(out[0].dtype(), DType::kInt32);
  const std::vector<double> got = Values(out[0]);
  ASSERT_EQ(got.size(), ref.size());
  // Bias levels: b * (range_d / 3) * (127.5 / 0.5) * 2 / 127.5, toward zero.
  const double data_scale = (u8 ? 255.5 : 127.5) / 3.0, weight_scale = 127.5 / 0.5;
  const int64_t plane = static_cast<int64_t>(ref.size()) / (c.data[0] * f);
  for (size_t i = 0; i < ref.size(); ++i) {
    const int64_t ch = (static_cast<int64_t>(i) / plane) % f;
    const double b = std::trunc(bd[ch] * data_scale * weight_scale * 2 / 127.5);
    ASSERT_EQ(got[i], ref[i] + b) << c.op << " element " << i;
  }
  // Product range: level_d * level_w * (2^31 - 1), int8 levels 127 (S8S8),
  // MXNet's S8U8 form for uint8 FC data: weight levels over 255.
  const bool all_sign = c.op == "_contrib_quantized_conv" || !u8;
  const double m = (3.0 / 127) * (0.5 / (all_sign ? 127 : 255)) * 2147483647.0;
  EXPECT_NEAR(Values(out[2])[0], m, m * 1e-6);
  EXPECT_NEAR(Values(out[1])[0], -m, m * 1e-6);
}

TEST(QuantizedConv, EqualsFloatConvolutionOfTheLevels) {
  CheckWeighted({"_contrib_quantized_conv",
                 "Convolution",
                 Shape({2, 4, 7, 6}),
                 Shape({5, 4, 3, 3}),
                 {{"kernel", "(3,3)"}, {"num_filter", "5"}, {"pad", "(1,1)"}, {"stride", "(2,1)"}},
                 DType::kInt8});
  CheckWeighted({"_contrib_quantized_conv",
                 "Convolution",
                 Shape({1, 4, 6, 6}),
                 Shape({6, 2, 3, 3}),
                 {{"kernel", "(3,3)"},
                  {"num_filter", "6"},
                  {"num_group", "2"},
                  {"dilate", "(2,2)"},
                  {"pad", "(2,1)"}},
                 DType::kUint8});
}

TEST(QuantizedFullyConnected, EqualsFloatFullyConnectedOfTheLevels) {
  CheckWeighted({"_contrib_quantized_fully_connected",
                 "FullyConnected",
                 Shape({3, 2, 5}),
                 Shape({4, 10}),
                 {{"num_hidden", "4"}},
                 DType::kInt8});
  CheckWeighted({"_contrib_quantized_fully_connected",
                 "FullyConnected",
                 Shape({3, 10}),
                 Shape({7, 10}),
                 {{"num_hidden", "7"}},
                 DType::kUint8});
}

TEST(QuantizedConv, NoBiasAndTypeErrors) {
  NDArray x = Array({1, 1, 3, 3}, Levels(9, -5, 5, 4), DType::kInt8);
  NDArray w = Array({1, 1, 2, 2}, {1, -1, 2, 0}, DType::kInt8);
  auto out =
      test::Run("_contrib_quantized_conv", {x, w, Scalar(-1), Scalar(1), Scalar(-1), Scalar(1)},
                {{"kernel", "(2,2)"}, {"num_filter", "1"}, {"no_bias", "True"}});
  EXPECT_EQ(out[0].shape(), Shape({1, 1, 2, 2}));
  test::ExpectOpError(
      "_contrib_quantized_conv",
      {Array({1, 1, 3, 3}, Levels(9, 0, 1, 4)), w, Scalar(-1), Scalar(1), Scalar(-1), Scalar(1)},
      {{"kernel", "(2,2)"}, {"num_filter", "1"}, {"no_bias", "True"}}, StatusCode::kDType,
      {"_contrib_quantized_conv", "data", "float32"});
}

TEST(QuantizedPooling, MaxExactAvgRoundedToNearestEven) {
  const std::vector<double> v = Levels(2 * 3 * 5 * 5, -128, 127, 5);
  const StringMap mp = {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}};
  for (const std::string type : {"max", "avg"}) {
    StringMap p = mp;
    p["pool_type"] = type;
    auto out = test::Run("_contrib_quantized_pooling",
                         {Array({2, 3, 5, 5}, v, DType::kInt8), Scalar(-2), Scalar(3)}, p);
    const std::vector<double> ref =
        Values(test::Run("Pooling", {Array({2, 3, 5, 5}, v, DType::kFloat64)}, p)[0]);
    const std::vector<double> got = Values(out[0]);
    ASSERT_EQ(got.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i)
      EXPECT_EQ(got[i], type == "max" ? ref[i] : std::nearbyint(ref[i])) << type << " " << i;
    EXPECT_EQ(Values(out[1])[0], -2);
    EXPECT_EQ(Values(out[2])[0], 3);
  }
  // 4 elements (1, 2, 2, 2) average to 1.75 -> 2; (1, 1, 2, 2) sum 6 -> 1.5 -> 2.
  auto out = test::Run(
      "_contrib_quantized_pooling",
      {Array({1, 1, 2, 4}, {1, 2, 1, 2, 2, 2, 1, 2}, DType::kUint8), Scalar(0), Scalar(1)},
      {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "avg"}});
  EXPECT_EQ(out[0].dtype(), DType::kUint8);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{2, 2}));
  test::ExpectOpError("_contrib_quantized_pooling",
                      {Array({1, 1, 2, 2}, {1, 2, 3, 4}, DType::kInt8), Scalar(0), Scalar(1)},
                      {{"kernel", "(2,2)"}, {"pool_type", "sum"}}, StatusCode::kNotImplemented,
                      {"pool_type 'sum'"});
}

TEST(QuantizedActAndFlatten, KeepLevelsAndRange) {
  auto out = test::Run("_contrib_quantized_act",
                       {Array({2, 2}, {-3, 4, 0, -128}, DType::kInt8), Scalar(-1), Scalar(2)},
                       {{"act_type", "relu"}});
  EXPECT_EQ(Values(out[0]), (std::vector<double>{0, 4, 0, 0}));
  EXPECT_EQ(Values(out[1])[0], -1);
  test::ExpectOpError("_contrib_quantized_act",
                      {Array({1}, {1}, DType::kInt8), Scalar(-1), Scalar(1)},
                      {{"act_type", "tanh"}}, StatusCode::kNotImplemented, {"act_type 'tanh'"});
  out = test::Run("_contrib_quantized_flatten",
                  {Array({2, 1, 3}, {1, 2, 3, 4, 5, 6}, DType::kUint8), Scalar(0), Scalar(9)});
  EXPECT_EQ(out[0].shape(), Shape({2, 3}));
  EXPECT_EQ(out[0].dtype(), DType::kUint8);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Values(out[2])[0], 9);
}

TEST(QuantizedBatchNorm, MatchesFloatBatchNormWithinALevel) {
  const Shape s({2, 3, 2, 2});
  const std::vector<double> q = Levels(s.Size(), -128, 127, 6);
  const std::vector<double> gamma = {1.5, -0.5, 2}, beta = {0.1, -0.2, 0.3}, mean = {0.2, -0.1, 0},
                            var = {0.5, 1.5, 2};
  const double dmax = 2, omax = 4, eps = 1e-3;
  auto out = test::Run("_contrib_quantized_batch_norm",
                       {Array(s, q, DType::kInt8), Array({3}, gamma), Array({3}, beta),
                        Array({3}, mean), Array({3}, var), Scalar(-dmax), Scalar(dmax)},
                       {{"eps", "0.001"}, {"min_calib_range", "-4"}, {"max_calib_range", "4"}});
  EXPECT_EQ(out[0].dtype(), DType::kInt8);
  const std::vector<double> got = Values(out[0]);
  for (size_t i = 0; i < q.size(); ++i) {
    const size_t c = (i / 4) % 3;
    const double x = q[i] * dmax / 127.5, invstd = 1 / std::sqrt(var[c] + eps);
    const double y = gamma[c] * (x - mean[c]) * invstd + beta[c];
    // MXNet's kernel folds the statistics into oneDNN's scale and shift and
    // runs it with variance 1, so the scaled part is divided by sqrt(1 + eps)
    // once more (0.05 % here).
    const double level =
        (gamma[c] * invstd * x / std::sqrt(1 + eps) + beta[c] - mean[c] * gamma[c] * invstd) *
        127.5 / omax;
    EXPECT_LE(std::abs(got[i] - std::max(-128.0, std::min(127.0, level))), 0.5 + 1e-4) << i;
    EXPECT_LE(std::abs(got[i] * omax / 127.5 - std::max(-omax, std::min(omax, y))), omax / 127.5)
        << i;
  }
  test::ExpectOpError("_contrib_quantized_batch_norm",
                      {Array(s, q, DType::kInt8), Array({3}, gamma), Array({3}, beta),
                       Array({3}, mean), Array({3}, var), Scalar(-dmax), Scalar(dmax)},
                      {}, StatusCode::kInvalidArgument, {"min_calib_range"});
}

TEST(QuantizedEmbedding, GathersInt8Rows) {
  auto out = test::Run("_contrib_quantized_embedding",
                       {Array({3}, {2, 0, 7}), Array({3, 2}, {1, 2, 3, 4, -5, 6}, DType::kInt8),
                        Scalar(-0.5), Scalar(0.25)},
                       {{"input_dim", "3"}, {"output_dim", "2"}});
  EXPECT_EQ(out[0].dtype(), DType::kInt8);
  EXPECT_EQ(out[0].shape(), Shape({3, 2}));
  EXPECT_EQ(Values(out[0]), (std::vector<double>{-5, 6, 1, 2, -5, 6}));
  EXPECT_EQ(Values(out[1])[0], -0.5);
  EXPECT_EQ(Values(out[2])[0], 0.25);
}

}  // namespace
}  // namespace weft
