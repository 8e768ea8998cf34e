#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(VisionMultiBoxRef, MatchesNumPy) {
  for (const char* s :
       {"_contrib_MultiBoxPrior_default", "_contrib_MultiBoxPrior_sizes_ratios_clip",
        "_contrib_MultiBoxPrior_steps_offsets", "_contrib_MultiBoxDetection_default",
        "_contrib_MultiBoxDetection_topk_force", "_contrib_MultiBoxDetection_threshold_variances",
        "_contrib_MultiBoxDetection_no_nms", "_contrib_MultiBoxTarget_default",
        "_contrib_MultiBoxTarget_mining", "_contrib_MultiBoxTarget_no_threshold_variances",
        "_contrib_MultiBoxTarget_no_gt"})
    EXPECT_TRUE(test::CheckOpRef(s)) << s;
}

TEST(VisionMultiBox, PriorClosedFormAndAliases) {
  // One 1x2 cell row, size 0.5, ratio 1: centres (0.25, 0.5), (0.75, 0.5);
  // half width 0.5 * 1/2 / 2 = 0.125, half height 0.25.
  NDArray x = test::RandomArray({1, 3, 1, 2}, DType::kFloat32, 0, 1, 1);
  for (const char* name : {"_contrib_MultiBoxPrior", "MultiBoxPrior", "_npx_multibox_prior"}) {
    auto y = test::Run(name, {x}, {{"sizes", "[0.5]"}});
    EXPECT_EQ(y[0].shape(), Shape({1, 2, 4}));
    const std::vector<double> v = test::Values(y[0]),
                              want = {0.125, 0.25, 0.375, 0.75, 0.625, 0.25, 0.875, 0.75};
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(v[i], want[i], 1e-7) << name << " " << i;
  }
}

TEST(VisionMultiBox, DetectionDecodesAnAnchor) {
  // One anchor [0.2, 0.2, 0.6, 0.8], class 1 with prob 0.7, offsets
  // (0.5, -0.5, 1, 0) with variances 0.1, 0.1, 0.2, 0.2.
  NDArray prob = test::Array({1, 2, 1}, {0.3, 0.7}, DType::kFloat64);
  NDArray loc = test::Array({1, 4}, {0.5, -0.5, 1, 0}, DType::kFloat64);
  NDArray anc = test::Array({1, 1, 4}, {0.2, 0.2, 0.6, 0.8}, DType::kFloat64);
  auto y = test::Run("MultiBoxDetection", {prob, loc, anc});
  const double v = static_cast<double>(0.1f), w = static_cast<double>(0.2f);
  const double cx = 0.5 * v * 0.4 + 0.4, cy = -0.5 * v * 0.6 + 0.5;
  const double hw = std::exp(w) * 0.4 / 2, hh = 0.6 / 2;
  const std::vector<double> want = {0, 0.7, cx - hw, cy - hh, cx + hw, cy + hh},
                            got = test::Values(y[0]);
  ASSERT_EQ(got.size(), 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
}

// Hard negative mining takes the unmatched anchors with the lowest
// background probability (MXNet 1.9.1 multibox_target.cc: SortElemDescend
// over -prob), not the highest: here anchor 0 matches the ground truth, one
// negative is mined (ratio 1) among anchors 1-3 with background
// probabilities 0.88, 0.5 and 0.12, and it must be anchor 3.
TEST(VisionMultiBox, TargetMinesTheHardestNegatives) {
  NDArray anc = test::Array({1, 4, 4}, {0, 0, 0.5, 0.5, 0.6, 0.6, 0.7, 0.7,  //
                                        0.7, 0.7, 0.8, 0.8, 0.8, 0.8, 0.9, 0.9});
  NDArray label = test::Array({1, 1, 5}, {0, 0, 0, 0.5, 0.5});
  // (batch, class, anchor): background logits, then class 1's.
  NDArray pred = test::Array({1, 2, 4}, {0, 2, 0, -2, 0, 0, 0, 0});
  auto y = test::Run("_contrib_MultiBoxTarget", {anc, label, pred},
                     {{"negative_mining_ratio", "1"},
                      {"negative_mining_thresh", "0.5"},
                      {"overlap_threshold", "0.5"},
                      {"ignore_label", "-1"}});
  ASSERT_EQ(y.size(), 3u);
  EXPECT_EQ(test::Values(y[2]), (std::vector<double>{1, -1, -1, 0}));
  // Equal probabilities keep anchor order: anchor 1 of the three ties.
  pred = test::Array({1, 2, 4}, {0, 1, 1, 1, 0, 0, 0, 0});
  y = test::Run("_contrib_MultiBoxTarget", {anc, label, pred},
                {{"negative_mining_ratio", "1"}, {"negative_mining_thresh", "0.5"}});
  EXPECT_EQ(test::Values(y[2]), (std::vector<double>{1, 0, -1, -1}));
}

TEST(VisionMultiBox, ShapesAndRejects) {
  std::vector<Shape> in = {Shape({2, 8, 3, 5})}, out = {Shape()};
  EXPECT_TRUE(test::InferShapes("_contrib_MultiBoxPrior",
                                {{"sizes", "(0.2, 0.4)"}, {"ratios", "(1, 2, 3)"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({1, 60, 4}));
  in = {Shape({2, 3, 10}), Shape({2, 40}), Shape({1, 10, 4})};
  out = {Shape()};
  EXPECT_TRUE(test::InferShapes("_contrib_MultiBoxDetection", {}, &in, &out));
  EXPECT_EQ(out[0], Shape({2, 10, 6}));
  in = {Shape({1, 10, 4}), Shape({2, 3, 5}), Shape({2, 4, 10})};
  out = {Shape(), Shape(), Shape()};
  EXPECT_TRUE(test::InferShapes("_contrib_MultiBoxTarget", {}, &in, &out));
  EXPECT_EQ(out[0], Shape({2, 40}));
  EXPECT_EQ(out[2], Shape({2, 10}));

  auto prior = [](const StringMap& p) {
    return [=] {
      test::Run("_contrib_MultiBoxPrior",
                {test::RandomArray({1, 1, 2, 2}, DType::kFloat32, 0, 1, 1)}, p);
    };
  };
  test::ExpectError(prior({{"offsets", "(0.5, 1.5)"}}), StatusCode::kInvalidArgument,
                    {"'offsets'"});
  test::ExpectError(prior({{"steps", "(0.1,)"}}), StatusCode::kInvalidArgument,
                    {"'steps'", "must have 2 values"});
  test::ExpectError(prior({{"sizes", "(0.1, x)"}}), StatusCode::kInvalidArgument,
                    {"MultiBoxPrior", "'sizes'", "tuple of floats"});
  test::ExpectError(
      [] {
        test::Run("_contrib_MultiBoxDetection",
                  {test::RandomArray({1, 3, 4}, DType::kFloat32, 0, 1, 1),
                   test::RandomArray({1, 16}, DType::kFloat32, 0, 1, 1),
                   test::RandomArray({1, 5, 4}, DType::kFloat32, 0, 1, 1)});
      },
      StatusCode::kShape, {"anchors", "5", "expected 4"});
  test::ExpectError(
      [] {
        test::Run("_contrib_MultiBoxTarget",
                  {test::RandomArray({1, 4, 4}, DType::kFloat32, 0, 1, 1),
                   test::RandomArray({1, 2, 4}, DType::kFloat32, 0, 1, 1),
                   test::RandomArray({1, 2, 4}, DType::kFloat32, 0, 1, 1)});
      },
      StatusCode::kShape, {"'label'", ">= 5"});
}

}  // namespace
}  // namespace weft
