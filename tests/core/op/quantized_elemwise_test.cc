// _contrib_quantized_concat, _elemwise_add and _elemwise_mul against values
// worked out by hand from MXNet 1.9.1's CPU definitions, and against the
// float arithmetic of the dequantized inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "util/test_util.h"

namespace weft {
namespace {

using test::Array;
using test::Values;

NDArray Scalar(double v) { return Array({1}, {v}); }

TEST(QuantizedConcat, RescalesIntoTheJointRange) {
  // arg0 int8 (-1, 1), arg1 uint8 (0, 2): output int8 over (-1, 2), 127.5 / 2
  // = 63.75 levels per unit. arg0 scales by 63.75 / 127.5 = 0.5: -127 ->
  // -63.5 -> -64 (even), 64 -> 32. arg1 by 63.75 / 127.75: 255 -> 127.25 ->
  // 127, 10 -> 4.99 -> 5.
  NDArray a = Array({1, 2}, {-127, 64}, DType::kInt8);
  NDArray b = Array({1, 2}, {255, 10}, DType::kUint8);
  auto out =
      test::Run("_contrib_quantized_concat", {a, b, Scalar(-1), Scalar(1), Scalar(0), Scalar(2)},
                {{"num_args", "2"}, {"dim", "1"}});
  EXPECT_EQ(out[0].dtype(), DType::kInt8);
  EXPECT_EQ(out[0].shape(), Shape({1, 4}));
  EXPECT_EQ(Values(out[0]), (std::vector<double>{-64, 32, 127, 5}));
  EXPECT_EQ(Values(out[1])[0], -1);
  EXPECT_EQ(Values(out[2])[0], 2);
  // Two uint8 inputs with one range: uint8 output, levels copied.
  NDArray c = Array({2, 1}, {7, 200}, DType::kUint8);
  out = test::Run("_contrib_quantized_concat", {c, c, Scalar(0), Scalar(3), Scalar(0), Scalar(3)},
                  {{"num_args", "2"}, {"dim", "0"}});
  EXPECT_EQ(out[0].dtype(), DType::kUint8);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{7, 200, 7, 200}));
}

TEST(QuantizedElemwiseAdd, CalibratedSameAndMixedTypes) {
  // int8 + int8 into (-3, 3): out levels 42.5 per unit; lhs scales by 1/3,
  // rhs (range 2) by 2/3: 100/3 + 20/3 = 40, -50/3 + 254/3 = 68.
  NDArray a = Array({2}, {100, -50}, DType::kInt8);
  NDArray b = Array({2}, {10, 127}, DType::kInt8);
  const StringMap calib = {{"min_calib_range", "-3"}, {"max_calib_range", "3"}};
  auto out = test::Run("_contrib_quantized_elemwise_add",
                       {a, b, Scalar(-1), Scalar(1), Scalar(-2), Scalar(2)}, calib);
  EXPECT_EQ(out[0].dtype(), DType::kInt8);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{40, 68}));
  EXPECT_EQ(Values(out[1])[0], -3);
  // uint8 (0, 2) + int8 (-1, 1) into (-2, 2): int8 output, 63.75 per unit;
  // the uint8 200 is first rescaled to int8: 200 * 63.75 / 127.75 = 99.8 ->
  // 100; -100 * 0.5 = -50; sum 50.
  out = test::Run("_contrib_quantized_elemwise_add",
                  {Array({1}, {200}, DType::kUint8), Array({1}, {-100}, DType::kInt8), Scalar(0),
                   Scalar(2), Scalar(-1), Scalar(1)},
                  {{"min_calib_range", "-2"}, {"max_calib_range", "2"}});
  EXPECT_EQ(out[0].dtype(), DType::kInt8);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{50}));
  // Two uint8 calibrated: uint8 output.
  out = test::Run("_contrib_quantized_elemwise_add",
                  {Array({1}, {255}, DType::kUint8), Array({1}, {255}, DType::kUint8), Scalar(0),
                   Scalar(1), Scalar(0), Scalar(1)},
                  {{"min_calib_range", "0"}, {"max_calib_range", "2"}});
  EXPECT_EQ(out[0].dtype(), DType::kUint8);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{255}));
}

TEST(QuantizedElemwiseAdd, UncalibratedIsInt32OverTheSummedRange) {
  NDArray a = test::RandomArray({50}, DType::kFloat32, -1, 1, 3);
  NDArray b = test::RandomArray({50}, DType::kFloat32, -2, 2, 4);
  auto qa =
      test::Run("_contrib_quantize_v2", {a}, {{"min_calib_range", "-1"}, {"max_calib_range", "1"}});
  auto qb =
      test::Run("_contrib_quantize_v2", {b}, {{"min_calib_range", "-2"}, {"max_calib_range", "2"}});
  auto out =
      test::Run("_contrib_quantized_elemwise_add", {qa[0], qb[0], qa[1], qa[2], qb[1], qb[2]});
  EXPECT_EQ(out[0].dtype(), DType::kInt32);
  EXPECT_EQ(Values(out[2])[0], 3);
  // _contrib_dequantize takes int8/uint8 only (as MXNet's): int32 levels
  // are 3 / (2^31 - 1) each.
  std::vector<double> got = Values(out[0]);
  for (double& g : got) g *= 3 / 2147483647.0;
  const std::vector<double> x = Values(a), y = Values(b);
  // The int8 inputs are within half a level of x and y; the sum adds only
  // float rounding (the int32 levels are 3 / 2^31 wide).
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], x[i] + y[i], 0.5 / 127.5 + 1 / 127.5 + 1e-5) << i;
}

TEST(QuantizedElemwiseMul, Int32FloatAndCalibratedOutputs) {
  NDArray a = Array({2}, {100, -128}, DType::kInt8);
  NDArray b = Array({2}, {50, 127}, DType::kInt8);
  const std::vector<NDArray> in = {a, b, Scalar(-1), Scalar(1), Scalar(-2), Scalar(2)};
  auto out = test::Run("_contrib_quantized_elemwise_mul", in);
  EXPECT_EQ(out[0].dtype(), DType::kInt32);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{5000, -16256}));
  const double m = (1.0 / 127) * (2.0 / 127) * 2147483647.0;
  EXPECT_NEAR(Values(out[2])[0], m, m * 1e-6);
  // Float: the product of the dequantized levels (127.5 per MaxAbs).
  out = test::Run("_contrib_quantized_elemwise_mul", in, {{"enable_float_output", "True"}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), DType::kFloat32);
  EXPECT_NEAR(Values(out[0])[0], (100 / 127.5) * (50 * 2 / 127.5), 1e-6);
  EXPECT_NEAR(Values(out[0])[1], (-128 / 127.5) * (127 * 2 / 127.5), 1e-6);
  // Calibrated (-1, 1): 5000 / 63.75 = 78.4 -> 78 (toward zero); -16256 /
  // 63.75 = -255 -> saturated to -128.
  out = test::Run("_contrib_quantized_elemwise_mul", in,
                  {{"min_calib_range", "-1"}, {"max_calib_range", "1"}});
  EXPECT_EQ(out[0].dtype(), DType::kInt8);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{78, -128}));
  test::ExpectOpError("_contrib_quantized_elemwise_mul",
                      {Array({1}, {1}, DType::kUint8), Array({1}, {1}, DType::kInt8), Scalar(-1),
                       Scalar(1), Scalar(-1), Scalar(1)},
                      {}, StatusCode::kDType, {"lhs", "int8", "uint8"});
}

}  // namespace
}  // namespace weft
