// _contrib_quantize_v2, _contrib_quantize, _contrib_dequantize and
// _contrib_requantize against values worked out by hand from MXNet 1.9.1's
// CPU (oneDNN) definitions: int8 levels 127.5 / MaxAbs(range), uint8 255.5 /
// MaxAbs(range), round half to even, saturation; quantize v1 255 / 127;
// requantize r_in / (2^31 - 1) into 127 or 255 levels.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/test_util.h"

namespace weft {
namespace {

using test::Array;
using test::Values;

std::vector<double> Range(const std::vector<NDArray>& out) {
  return {Values(out[1])[0], Values(out[2])[0]};
}

TEST(QuantizeV2, Int8CalibratedRoundsHalfToEvenAndSaturates) {
  // scale 127.5: -127.5 -> -128, -63.75 -> -64, 31.875 -> 32, 127.5 -> 128 -> 127.
  NDArray x = Array({6}, {-1, -0.5, 0, 0.25, 1, 2});
  auto out =
      test::Run("_contrib_quantize_v2", {x}, {{"min_calib_range", "-1"}, {"max_calib_range", "1"}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].dtype(), DType::kInt8);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{-128, -64, 0, 32, 127, 127}));
  EXPECT_EQ(Range(out), (std::vector<double>{-1, 1}));
  // Range 127.5 gives scale 1: ties go to the even level.
  NDArray t = Array({4}, {2.5, 3.5, -2.5, -0.5});
  out = test::Run("_contrib_quantize_v2", {t},
                  {{"min_calib_range", "-127.5"}, {"max_calib_range", "127.5"}});
  EXPECT_EQ(Values(out[0]), (std::vector<double>{2, 4, -2, 0}));
}

TEST(QuantizeV2, Uint8AndAutoFollowTheCalibrationRange) {
  // scale 255.5 / 2 = 127.75: 63.875 -> 64, 127.75 -> 128, 255.5 -> 256 -> 255.
  NDArray x = Array({6}, {-1, 0, 0.5, 1, 2, 3});
  auto out = test::Run("_contrib_quantize_v2", {x},
                       {{"out_type", "auto"}, {"min_calib_range", "0"}, {"max_calib_range", "2"}});
  EXPECT_EQ(out[0].dtype(), DType::kUint8);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{0, 0, 64, 128, 255, 255}));
  EXPECT_EQ(Range(out), (std::vector<double>{0, 2}));
  out = test::Run("_contrib_quantize_v2", {x},
                  {{"out_type", "auto"}, {"min_calib_range", "-0.5"}, {"max_calib_range", "2"}});
  EXPECT_EQ(out[0].dtype(), DType::kInt8);
  out = test::Run("_contrib_quantize_v2", {x}, {{"out_type", "auto"}});
  EXPECT_EQ(out[0].dtype(), DType::kInt8);
}

TEST(QuantizeV2, UncalibratedUsesTheDataRange) {
  // int8: r = 2, scale 63.75: -127.5 -> -128, 63.75 -> 64, 31.875 -> 32.
  auto out = test::Run("_contrib_quantize_v2", {Array({3}, {-2, 1, 0.5})});
  EXPECT_EQ(Values(out[0]), (std::vector<double>{-128, 64, 32}));
  EXPECT_EQ(Range(out), (std::vector<double>{-2, 2}));
  // uint8: range (0, 4), scale 63.875: 63.875 -> 64, 255.5 -> 255.
  out = test::Run("_contrib_quantize_v2", {Array({3}, {0, 1, 4})}, {{"out_type", "uint8"}});
  EXPECT_EQ(Values(out[0]), (std::vector<double>{0, 64, 255}));
  EXPECT_EQ(Range(out), (std::vector<double>{0, 4}));
}

TEST(QuantizeV2, QuantizedDataPassesThrough) {
  NDArray q = Array({3}, {-5, 0, 7}, DType::kInt8);
  auto out = test::Run("_contrib_quantize_v2", {q});
  EXPECT_EQ(Values(out[0]), (std::vector<double>{-5, 0, 7}));
  EXPECT_EQ(Range(out), (std::vector<double>{-127.5, 127.5}));
  out = test::Run("_contrib_quantize_v2", {Array({2}, {3, 250}, DType::kUint8)},
                  {{"out_type", "uint8"}, {"min_calib_range", "0"}, {"max_calib_range", "6"}});
  EXPECT_EQ(Values(out[0]), (std::vector<double>{3, 250}));
  EXPECT_EQ(Range(out), (std::vector<double>{0, 6}));
  test::ExpectOpError("_contrib_quantize_v2", {Array({2}, {3, 250}, DType::kUint8)}, {},
                      StatusCode::kDType, {"uint8", "int8", "out_type"});
}

TEST(Quantize, V1UsesRangeInputs) {
  // uint8: 255 / 2 = 127.5: 127.5 -> 128. int8: 127 / 2 = 63.5: -63.5 -> -64.
  NDArray lo = Array({1}, {0}), hi = Array({1}, {2});
  auto out = test::Run("_contrib_quantize", {Array({3}, {0, 1, 2}), lo, hi});
  EXPECT_EQ(out[0].dtype(), DType::kUint8);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{0, 128, 255}));
  EXPECT_EQ(Range(out), (std::vector<double>{0, 2}));
  out = test::Run("_contrib_quantize", {Array({3}, {-2, -1, 1}), Array({1}, {-2}), hi},
                  {{"out_type", "int8"}});
  EXPECT_EQ(Values(out[0]), (std::vector<double>{-127, -64, 64}));
  EXPECT_EQ(Range(out), (std::vector<double>{-2, 2}));
}

TEST(Dequantize, ScalesLevelsByTheRange) {
  auto out = test::Run("_contrib_dequantize", {Array({4}, {-128, -1, 0, 127}, DType::kInt8),
                                               Array({1}, {-2}), Array({1}, {2})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), DType::kFloat32);
  const std::vector<double> v = Values(out[0]);
  const double s8[] = {-128, -1, 0, 127};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(v[i], s8[i] * 2 / 127.5, 1e-6);
  out = test::Run("_contrib_dequantize",
                  {Array({2}, {0, 255}, DType::kUint8), Array({1}, {0}), Array({1}, {4})});
  EXPECT_NEAR(Values(out[0])[1], 255 * 4 / 255.5, 1e-6);
}

TEST(Requantize, CalibratedAndFromTheData) {
  NDArray q = Array({3}, {2147483647, -536870912, 1000}, DType::kInt32);
  NDArray lo = Array({1}, {-4}), hi = Array({1}, {4});
  // Calibrated to (-2, 2): 4 * 127 / 2 = 254 -> 127; -1 * 63.5 -> -63.5 -> -64 (even).
  auto out = test::Run("_contrib_requantize", {q, lo, hi},
                       {{"min_calib_range", "-2"}, {"max_calib_range", "2"}});
  EXPECT_EQ(out[0].dtype(), DType::kInt8);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{127, -64, 0}));
  EXPECT_EQ(Range(out), (std::vector<double>{-2, 2}));
  // Uncalibrated: the largest level is r_in itself: 4 -> 127, -1 -> -31.75 -> -32.
  out = test::Run("_contrib_requantize", {q, lo, hi});
  EXPECT_EQ(Values(out[0]), (std::vector<double>{127, -32, 0}));
  EXPECT_NEAR(Values(out[2])[0], 4, 1e-6);
  // uint8 (auto with min >= 0): 255 levels over (0, 8): 4 -> 127.5 -> 128.
  out = test::Run("_contrib_requantize", {q, lo, hi},
                  {{"out_type", "auto"}, {"min_calib_range", "0"}, {"max_calib_range", "8"}});
  EXPECT_EQ(out[0].dtype(), DType::kUint8);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{128, 0, 0}));
  EXPECT_EQ(Range(out), (std::vector<double>{0, 8}));
}

TEST(Quantize, RoundTripStaysWithinHalfALevel) {
  NDArray x = test::RandomArray({257}, DType::kFloat32, -3, 5, 7);
  auto q = test::Run("_contrib_quantize_v2", {x});
  auto back = test::Run("_contrib_dequantize", {q[0], q[1], q[2]});
  const std::vector<double> a = Values(x), b = Values(back[0]);
  const double level = 5 / 127.5;
  for (size_t i = 0; i < a.size(); ++i) EXPECT_LE(std::abs(a[i] - b[i]), level / 2 + 1e-6) << i;
}

}  // namespace
}  // namespace weft
