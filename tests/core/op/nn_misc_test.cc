#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(NNMisc, UpSamplingNearestRepeatsPixels) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::Array({1, 1, 2, 2}, {1, 2, 3, 4}, dt);
    auto y = test::Run("UpSampling", {x}, {{"scale", "2"}, {"sample_type", "nearest"}});
    EXPECT_EQ(y[0].shape(), Shape({1, 1, 4, 4}));
    EXPECT_EQ(test::Values(y[0]),
              (std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  }
  // Two inputs summed: input 1 is already at the target size.
  NDArray a = test::Array({1, 1, 1, 2}, {1, 2}, DType::kFloat64);
  NDArray b = test::Array({1, 1, 2, 4}, {1, 1, 1, 1, 2, 2, 2, 2}, DType::kFloat64);
  auto y = test::Run(
      "UpSampling", {a, b},
      {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}, {"multi_input_mode", "sum"}});
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{2, 2, 3, 3, 3, 3, 4, 4}));
}

TEST(NNMisc, UpSamplingGradientMatchesNumeric) {
  std::string where;
  double err = test::GradientError("UpSampling",
                                   {test::RandomArray({2, 2, 2, 3}, DType::kFloat64, -1, 1, 1)},
                                   {{"scale", "3"}, {"sample_type", "nearest"}}, {}, 1e-6, &where);
  EXPECT_LT(err, 1e-6) << where;
  for (const char* mode : {"concat", "sum"}) {
    err = test::GradientError(
        "UpSampling",
        {test::RandomArray({1, 2, 1, 2}, DType::kFloat64, -1, 1, 2),
         test::RandomArray({1, 2, 2, 4}, DType::kFloat64, -1, 1, 3)},
        {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}, {"multi_input_mode", mode}},
        {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << mode << ": " << where;
  }
}

TEST(NNMisc, UpSamplingRejects) {
  NDArray x = test::RandomArray({1, 2, 3, 3}, DType::kFloat32, 0, 1, 1);
  test::ExpectOpError("UpSampling", {x}, {{"scale", "2"}, {"sample_type", "bilinear"}},
                      StatusCode::kNotImplemented, {"bilinear", "UpSampling"});
  test::ExpectOpError("UpSampling", {x}, {{"scale", "2"}}, StatusCode::kInvalidArgument,
                      {"sample_type", "UpSampling"});
  test::ExpectOpError("UpSampling", {x, test::RandomArray({1, 2, 4, 4}, DType::kFloat32, 0, 1, 1)},
                      {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}},
                      StatusCode::kShape, {"input 1", "UpSampling"});
}

TEST(NNMisc, PadModes) {
  NDArray x = test::Array({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6}, DType::kFloat64);
  const std::string pw = "(0,0,0,0,1,0,0,2)";
  auto c =
      test::Run("Pad", {x}, {{"mode", "constant"}, {"pad_width", pw}, {"constant_value", "9"}});
  EXPECT_EQ(c[0].shape(), Shape({1, 1, 3, 5}));
  EXPECT_EQ(test::Values(c[0]), (std::vector<double>{9, 9, 9, 9, 9, 1, 2, 3, 9, 9, 4, 5, 6, 9, 9}));
  auto e = test::Run("Pad", {x}, {{"mode", "edge"}, {"pad_width", pw}});
  EXPECT_EQ(test::Values(e[0]), (std::vector<double>{1, 2, 3, 3, 3, 1, 2, 3, 3, 3, 4, 5, 6, 6, 6}));
  auto r = test::Run("Pad", {x}, {{"mode", "reflect"}, {"pad_width", pw}});
  EXPECT_EQ(test::Values(r[0]), (std::vector<double>{4, 5, 6, 5, 4, 1, 2, 3, 2, 1, 4, 5, 6, 5, 4}));
}

TEST(NNMisc, PadGradientMatchesNumeric) {
  for (const char* mode : {"constant", "edge", "reflect"}) {
    std::string where;
    double err =
        test::GradientError("Pad", {test::RandomArray({2, 2, 3, 4}, DType::kFloat64, -1, 1, 4)},
                            {{"mode", mode}, {"pad_width", "(0,0,0,0,2,1,1,3)"}}, {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << mode << ": " << where;
    err = test::GradientError(
        "Pad", {test::RandomArray({1, 2, 3, 2, 3}, DType::kFloat64, -1, 1, 5)},
        {{"mode", mode}, {"pad_width", "(0,0,0,0,1,2,1,1,0,2)"}}, {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << mode << " 5-D: " << where;
  }
}

TEST(NNMisc, PadRejects) {
  NDArray x = test::RandomArray({1, 2, 3, 3}, DType::kFloat32, 0, 1, 1);
  test::ExpectOpError("Pad", {x}, {{"mode", "constant"}, {"pad_width", "(0,0,0,0,1,1)"}},
                      StatusCode::kInvalidArgument, {"pad_width", "Pad"});
  test::ExpectOpError("Pad", {x}, {{"mode", "constant"}, {"pad_width", "(0,1,0,0,1,1,1,1)"}},
                      StatusCode::kInvalidArgument, {"pad_width", "Pad"});
  test::ExpectOpError("Pad", {x}, {{"mode", "reflect"}, {"pad_width", "(0,0,0,0,3,0,0,0)"}},
                      StatusCode::kInvalidArgument, {"reflect", "Pad"});
  test::ExpectOpError("Pad", {test::RandomArray({2, 3}, DType::kFloat32, 0, 1, 1)},
                      {{"mode", "edge"}, {"pad_width", "(0,0,1,1)"}}, StatusCode::kShape,
                      {"rank", "Pad"});
}

TEST(NNMiscRef, MatchesPyTorch) {
  for (const char* stem : {"UpSampling_nearest_x2", "UpSampling_nearest_concat", "Pad_constant",
                           "Pad_edge", "Pad_reflect", "Pad_edge_5d"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

}  // namespace
}  // namespace weft
