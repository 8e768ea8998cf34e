#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(VisionBoxRef, BoxNMSMatchesNumPy) {
  for (const char* c : {"basic", "valid_topk", "class_aware", "force_background", "topk0",
                        "none_valid", "center_to_corner", "center_same", "corner_to_center"})
    EXPECT_TRUE(test::CheckOpRef(std::string("_contrib_box_nms_") + c));
}

TEST(VisionBoxRef, BoxIoUMatchesNumPy) {
  EXPECT_TRUE(test::CheckOpRef("_contrib_box_iou_corner"));
  EXPECT_TRUE(test::CheckOpRef("_contrib_box_iou_center"));
}

TEST(VisionBoxRef, BoxCodersMatchNumPy) {
  for (const char* s :
       {"_contrib_box_decode_center", "_contrib_box_decode_corner_stds_clip",
        "_contrib_box_encode_basic", "_contrib_bipartite_matching_descend",
        "_contrib_bipartite_matching_ascend_topk", "_contrib_bipartite_matching_batch_axes"})
    EXPECT_TRUE(test::CheckOpRef(s)) << s;
}

TEST(VisionBox, CoderShapes) {
  std::vector<Shape> in(6), out(2);
  in[2] = Shape({2, 7, 4});
  EXPECT_FALSE(test::InferShapes("_contrib_box_encode", {}, &in, &out));  // refs unknown
  EXPECT_EQ(in[0], Shape({2, 7}));
  EXPECT_EQ(in[4], Shape({4}));
  EXPECT_EQ(out[1], Shape({2, 7, 4}));
  in = {Shape(), Shape({1, 7, 4})};
  out = {Shape({3, 7, 4})};
  EXPECT_TRUE(test::InferShapes("_contrib_box_decode", {}, &in, &out));
  EXPECT_EQ(in[0], Shape({3, 7, 4}));
  test::ExpectError(
      [] {
        test::Run("_contrib_box_decode", {test::RandomArray({2, 3, 5}, DType::kFloat32, 0, 1, 1),
                                          test::RandomArray({1, 3, 4}, DType::kFloat32, 0, 1, 1)});
      },
      StatusCode::kShape, {"box_decode", "'data'"});
}

TEST(VisionBox, MatchingClosedForm) {
  // Scores [[0.9, 0.8], [0.7, 0.1]]: (0, 0) first, then (1, 1) fails 0.5.
  NDArray x = test::Array({2, 2}, {0.9, 0.8, 0.7, 0.1});
  auto y = test::Run("_contrib_bipartite_matching", {x}, {{"threshold", "0.5"}});
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{0, -1}));
  EXPECT_EQ(test::Values(y[1]), (std::vector<double>{0, -1}));
  test::ExpectError([&] { test::Run("_contrib_bipartite_matching", {x}); },
                    StatusCode::kInvalidArgument, {"threshold"});
}

TEST(VisionBox, NMSClosedForm) {
  // [score, x1, y1, x2, y2]: box 1 overlaps box 0 (IoU 0.81) and is dropped;
  // box 2 is disjoint; box 3 is below valid_thresh.
  NDArray x = test::Array({4, 5}, {0.9,  0, 0, 1,   1,    //
                                   0.8,  0, 0, 0.9, 0.9,  //
                                   0.7,  2, 2, 3,   3,    //
                                   0.05, 0, 0, 1,   1},
                          DType::kFloat64);
  for (const char* name : {"_contrib_box_nms", "_contrib_box_non_maximum_suppression"}) {
    auto y =
        test::Run(name, {x}, {{"coord_start", "1"}, {"score_index", "0"}, {"valid_thresh", "0.1"}});
    ASSERT_EQ(y.size(), 2u);
    EXPECT_EQ(test::Values(y[0]), (std::vector<double>{0.9, 0,  0,  1,  1,  0.7, 2,  2,  3,  3,
                                                       -1,  -1, -1, -1, -1, -1,  -1, -1, -1, -1}));
    EXPECT_EQ(test::Values(y[1]), (std::vector<double>{0, 2, -1, -1}));
    EXPECT_EQ(y[1].shape(), Shape({4, 1}));
  }
}

TEST(VisionBox, NMSGradientScattersRows) {
  NDArray x = test::RandomArray({2, 5, 6}, DType::kFloat64, 0, 1, 3);
  std::string where;
  const double err =
      test::GradientError("_contrib_box_nms", {x}, {{"overlap_thresh", "0.4"}}, {}, 1e-6, &where);
  EXPECT_LT(err, 1e-6) << where;
}

TEST(VisionBox, IoUClosedForm) {
  NDArray a = test::Array({2, 4}, {0, 0, 2, 2, 5, 5, 6, 6});
  NDArray b = test::Array({1, 4}, {1, 1, 3, 3});
  auto y = test::Run("_contrib_box_iou", {a, b});
  EXPECT_EQ(y[0].shape(), Shape({2, 1}));
  EXPECT_NEAR(test::Values(y[0])[0], 1.0 / 7, 1e-7);
  EXPECT_EQ(test::Values(y[0])[1], 0.0);
}

TEST(VisionBox, PartialShapes) {
  std::vector<Shape> in = {Shape()}, out = {Shape({2, 3, 6}), Shape()};
  EXPECT_TRUE(test::InferShapes("_contrib_box_nms", {}, &in, &out));
  EXPECT_EQ(in[0], Shape({2, 3, 6}));
  EXPECT_EQ(out[1], Shape({2, 3, 1}));
  in = {Shape({0, 7, 6})};
  out = {Shape(), Shape()};
  EXPECT_FALSE(test::InferShapes("_contrib_box_nms", {}, &in, &out));
  EXPECT_EQ(out[1], Shape({0, 7, 1}));
  in = {Shape({3, 4}), Shape({2, 5, 4})};
  out = {Shape()};
  EXPECT_TRUE(test::InferShapes("_contrib_box_iou", {}, &in, &out));
  EXPECT_EQ(out[0], Shape({3, 2, 5}));
}

TEST(VisionBox, Rejects) {
  auto nms = [](const Shape& s, const StringMap& p) {
    return
        [=] { test::Run("_contrib_box_nms", {test::RandomArray(s, DType::kFloat32, 0, 1, 1)}, p); };
  };
  test::ExpectError(nms({3, 4}, {}), StatusCode::kInvalidArgument,
                    {"_contrib_box_nms", "at least 5"});
  test::ExpectError(nms({3, 6}, {{"id_index", "0"}, {"score_index", "0"}}),
                    StatusCode::kInvalidArgument, {"'id_index'", "'score_index'"});
  test::ExpectError(nms({3, 6}, {{"score_index", "3"}}), StatusCode::kInvalidArgument,
                    {"'score_index'", "coordinates"});
  test::ExpectError(nms({3, 6}, {{"coord_start", "3"}}), StatusCode::kInvalidArgument,
                    {"'coord_start'", "out of range"});
  test::ExpectError(nms({6}, {}), StatusCode::kShape, {"rank >= 2"});
  test::ExpectError(nms({2, 6}, {{"in_format", "xywh"}}), StatusCode::kInvalidArgument,
                    {"in_format"});
  test::ExpectError(
      [] {
        test::Run("_contrib_box_iou", {test::RandomArray({2, 4}, DType::kFloat32, 0, 1, 1),
                                       test::RandomArray({2, 5}, DType::kFloat32, 0, 1, 1)});
      },
      StatusCode::kShape, {"'rhs'", "last axis of 4"});
}

}  // namespace
}  // namespace weft
