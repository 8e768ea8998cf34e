// The colour image operators (kernels/cpu/image_color_ops.cc) and MXNet's
// OpenCV operators _cvimresize / _cvcopyMakeBorder (image_cv_ops.cc) against
// their definitions: factors pinned by min_factor = max_factor (a uniform draw
// on [a, a] is a), expected values computed here in double from the formulas
// in the kernels' header (pure colours for hue, AlexNet's eigen-table for
// lighting), numpy.pad's modes written out for the borders.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::Array;
using test::Values;
using Vec = std::vector<double>;

const Vec kRgb = {200, 100, 50, 10, 20, 30, 255, 255, 255, 0, 128, 64};  // (2, 2, 3)

StringMap Factor(const std::string& a) { return {{"min_factor", a}, {"max_factor", a}}; }

void ExpectNear(const Vec& got, const Vec& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << what << " " << i;
}

TEST(ImageColorOps, BrightnessScalesAndSaturatesUint8ByTruncation) {
  NDArray x = Array({1, 3, 1}, {100, 200, 3}, DType::kUint8);
  // 150, 300 -> 255, 4.5 -> 4 (truncated, not rounded).
  EXPECT_EQ(Values(test::Run("_image_random_brightness", {x}, Factor("1.5"))[0]),
            (Vec{150, 255, 4}));
  NDArray f = Array({2, 2, 3}, kRgb);
  Vec want = kRgb;
  for (double& v : want) v *= 0.25;
  ExpectNear(Values(test::Run("_image_random_brightness", {f}, Factor("0.25"))[0]), want, 1e-4,
             "x0.25");
}

TEST(ImageColorOps, ContrastBlendsWithTheMeanGray) {
  NDArray f = Array({2, 2, 3}, kRgb);
  double m = 0;
  for (int p = 0; p < 4; ++p)
    m += 0.299 * kRgb[p * 3] + 0.587 * kRgb[p * 3 + 1] + 0.114 * kRgb[p * 3 + 2];
  m /= 4;
  Vec want;
  for (double v : kRgb) want.push_back(v * 0.5 + 0.5 * m);
  ExpectNear(Values(test::Run("_image_random_contrast", {f}, Factor("0.5"))[0]), want, 1e-3, "rgb");
  // One channel: its own mean.
  NDArray g = Array({1, 2, 1}, {10, 30});
  EXPECT_EQ(Values(test::Run("_image_random_contrast", {g}, Factor("0"))[0]), (Vec{20, 20}));
}

TEST(ImageColorOps, SaturationUsesMXNetsBlueTermAsGray) {
  NDArray f = Array({2, 2, 3}, kRgb);
  Vec want;
  for (int p = 0; p < 4; ++p)
    for (int c = 0; c < 3; ++c)
      want.push_back(kRgb[p * 3 + c] * 0.5 + 0.5 * 0.114 * kRgb[p * 3 + 2]);
  ExpectNear(Values(test::Run("_image_random_saturation", {f}, Factor("0.5"))[0]), want, 1e-3,
             "rgb");
  NDArray g = Array({1, 2, 1}, {10, 30});
  EXPECT_EQ(Values(test::Run("_image_random_saturation", {g}, Factor("0.3"))[0]), (Vec{10, 30}));
}

TEST(ImageColorOps, HueRotatesPureColoursAndKeepsGrays) {
  // Red, green, blue and a gray; a third of a turn maps R -> G -> B -> R.
  NDArray f = Array({1, 4, 3}, {255, 0, 0, 0, 255, 0, 0, 0, 255, 77, 77, 77});
  ExpectNear(Values(test::Run("_image_random_hue", {f}, Factor(std::to_string(1.0 / 3)))[0]),
             {0, 255, 0, 0, 0, 255, 255, 0, 0, 77, 77, 77}, 1e-2, "hue + 1/3");
  // Half a turn: red -> cyan; a dark orange (128, 64, 0) -> (0, 64, 128).
  NDArray o = Array({1, 2, 3}, {255, 0, 0, 128, 64, 0});
  ExpectNear(Values(test::Run("_image_random_hue", {o}, Factor("0.5"))[0]),
             {0, 255, 255, 0, 64, 128}, 1e-2, "hue + 1/2");
  NDArray g = Array({1, 2, 1}, {10, 30});
  EXPECT_EQ(Values(test::Run("_image_random_hue", {g}, Factor("0.3"))[0]), (Vec{10, 30}));
}

TEST(ImageColorOps, LightingAddsTheEigenCombination) {
  const double eig[3][3] = {{55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009},
                            {55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140},
                            {55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203}};
  const double a[3] = {0.1, -0.2, 0.3};
  NDArray f = Array({2, 2, 3}, kRgb);
  Vec want;
  for (int p = 0; p < 4; ++p)
    for (int c = 0; c < 3; ++c)
      want.push_back(kRgb[p * 3 + c] + eig[c][0] * a[0] + eig[c][1] * a[1] + eig[c][2] * a[2]);
  ExpectNear(Values(test::Run("_image_adjust_lighting", {f}, {{"alpha", "(0.1, -0.2, 0.3)"}})[0]),
             want, 1e-3, "lighting");
  test::ExpectOpError("_image_adjust_lighting", {f}, {{"alpha", "(1, 2)"}},
                      StatusCode::kInvalidArgument, {"'alpha'", "must have 3 values"});
  // alpha_std 0: no noise.
  EXPECT_EQ(Values(test::Run("_image_random_lighting", {f}, {{"alpha_std", "0"}})[0]), kRgb);
}

TEST(ImageColorOps, RandomDrawsFollowTheSeed) {
  NDArray f = Array({2, 2, 3}, kRgb);
  const std::vector<std::pair<std::string, StringMap>> cases = {
      {"_image_random_brightness", {{"min_factor", "0.5"}, {"max_factor", "1.5"}}},
      {"_image_random_lighting", {{"alpha_std", "0.5"}}},
      {"_image_random_color_jitter",
       {{"brightness", "0.3"}, {"contrast", "0.3"}, {"saturation", "0.3"}, {"hue", "0.1"}}}};
  for (const auto& c : cases) {
    Runtime::Global().Seed(11);
    const Vec a = Values(test::Run(c.first, {f}, c.second)[0]),
              a2 = Values(test::Run(c.first, {f}, c.second)[0]);
    Runtime::Global().Seed(11);
    EXPECT_EQ(Values(test::Run(c.first, {f}, c.second)[0]), a) << c.first;
    EXPECT_NE(a, a2) << c.first << ": consecutive draws repeat";
  }
  // Brightness alone in the jitter: one factor in [0.7, 1.3] for every value.
  const StringMap only_b = {
      {"brightness", "0.3"}, {"contrast", "0"}, {"saturation", "0"}, {"hue", "0"}};
  const Vec y = Values(test::Run("_image_random_color_jitter", {f}, only_b)[0]);
  const double k = y[0] / kRgb[0];
  EXPECT_GE(k, 0.7);
  EXPECT_LE(k, 1.3);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], kRgb[i] * k, 1e-3) << i;
  const StringMap none = {
      {"brightness", "0"}, {"contrast", "0"}, {"saturation", "0"}, {"hue", "0"}};
  EXPECT_EQ(Values(test::Run("_image_random_color_jitter", {f}, none)[0]), kRgb);
  test::ExpectOpError("_image_random_brightness", {f}, {{"min_factor", "2"}, {"max_factor", "1"}},
                      StatusCode::kInvalidArgument, {"min_factor", "max_factor"});
}

TEST(ImageCvOps, CopyMakeBorderFollowsOpenCVsBorderTypes) {
  NDArray x = Array({1, 3, 1}, {1, 2, 3});
  // numpy.pad([1, 2, 3], 4, mode): constant, edge, symmetric, wrap, reflect.
  const std::vector<Vec> want = {{9, 9, 9, 9, 1, 2, 3, 9, 9, 9, 9},
                                 {1, 1, 1, 1, 1, 2, 3, 3, 3, 3, 3},
                                 {3, 3, 2, 1, 1, 2, 3, 3, 2, 1, 1},
                                 {3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1},
                                 {1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3}};
  for (int type = 0; type < 5; ++type) {
    auto y = test::Run("_cvcopyMakeBorder", {x},
                       {{"top", "0"},
                        {"bot", "0"},
                        {"left", "4"},
                        {"right", "4"},
                        {"type", std::to_string(type)},
                        {"value", "9"}});
    ASSERT_EQ(y[0].shape(), Shape({1, 11, 1}));
    EXPECT_EQ(Values(y[0]), want[type]) << "type " << type;
  }
  // Rows and channels: values per channel; uint8 fill rounded (3.5 -> 4).
  NDArray c = Array({1, 1, 3}, {7, 8, 9}, DType::kUint8);
  auto y = test::Run(
      "_cvcopyMakeBorder", {c},
      {{"top", "1"}, {"bot", "0"}, {"left", "0"}, {"right", "0"}, {"values", "(3.5, 250)"}});
  ASSERT_EQ(y[0].shape(), Shape({2, 1, 3}));
  EXPECT_EQ(Values(y[0]), (Vec{4, 250, 0, 7, 8, 9}));
  test::ExpectOpError("_cvcopyMakeBorder", {Array({1, 1, 1}, {1}, DType::kInt64)},
                      {{"top", "1"}, {"bot", "0"}, {"left", "0"}, {"right", "0"}},
                      StatusCode::kDType, {"int64", "uint8"});
}

TEST(ImageCvOps, ImresizeGivesHeightWidthChannels) {
  NDArray x = Array({2, 2, 1}, {1, 2, 3, 4}, DType::kUint8);
  auto y = test::Run("_cvimresize", {x}, {{"w", "4"}, {"h", "2"}, {"interp", "0"}});
  ASSERT_EQ(y[0].shape(), Shape({2, 4, 1}));
  EXPECT_EQ(Values(y[0]), (Vec{1, 1, 2, 2, 3, 3, 4, 4}));
  test::ExpectOpError("_cvimresize", {x}, {{"w", "0"}, {"h", "2"}}, StatusCode::kInvalidArgument,
                      {"'w'"});
}

}  // namespace
}  // namespace weft
