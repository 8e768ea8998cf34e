#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(NNConv3dRef, MatchesPyTorch) {
  for (const char* stem :
       {"Convolution_3d_basic", "Convolution_3d_stride_pad_dilate", "Convolution_3d_groups"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

TEST(NNDeconv3dRef, MatchesPyTorch) {
  for (const char* stem : {"Deconvolution_3d_basic", "Deconvolution_3d_stride_pad_adj_groups"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

TEST(NNDeconv3d, GradientMatchesNumericAndTargetShape) {
  std::string where;
  const double err =
      test::GradientError("Deconvolution",
                          {test::RandomArray({1, 2, 2, 3, 2}, DType::kFloat64, -1, 1, 6),
                           test::RandomArray({2, 2, 2, 2, 2}, DType::kFloat64, -1, 1, 7),
                           test::RandomArray({2}, DType::kFloat64, -1, 1, 8)},
                          {{"kernel", "(2, 2, 2)"},
                           {"num_filter", "2"},
                           {"stride", "(2, 1, 2)"},
                           {"pad", "(1, 0, 0)"},
                           {"no_bias", "False"}},
                          {}, 1e-6, &where);
  EXPECT_LT(err, 1e-6) << where;
  // target_shape fixes the output and derives pad/adj (MXNet's rule): the
  // same values as the explicit pad 1, adj 1 on every axis.
  NDArray x = test::RandomArray({1, 1, 2, 2, 2}, DType::kFloat64, -1, 1, 9);
  NDArray w = test::RandomArray({1, 1, 3, 3, 3}, DType::kFloat64, -1, 1, 10);
  auto a = test::Run("Deconvolution", {x, w},
                     {{"kernel", "(3, 3, 3)"},
                      {"num_filter", "1"},
                      {"stride", "(2, 2, 2)"},
                      {"target_shape", "(4, 4, 4)"}});
  auto b = test::Run("Deconvolution", {x, w},
                     {{"kernel", "(3, 3, 3)"},
                      {"num_filter", "1"},
                      {"stride", "(2, 2, 2)"},
                      {"pad", "(1, 1, 1)"},
                      {"adj", "(1, 1, 1)"}});
  ASSERT_EQ(a[0].shape(), Shape({1, 1, 4, 4, 4}));
  EXPECT_EQ(test::Values(a[0]), test::Values(b[0]));
}

TEST(NNConv3d, GradientMatchesNumeric) {
  std::string where;
  const double err =
      test::GradientError("Convolution",
                          {test::RandomArray({2, 2, 3, 4, 3}, DType::kFloat64, -1, 1, 1),
                           test::RandomArray({4, 1, 2, 2, 2}, DType::kFloat64, -1, 1, 2),
                           test::RandomArray({4}, DType::kFloat64, -1, 1, 3)},
                          {{"kernel", "(2, 2, 2)"},
                           {"num_filter", "4"},
                           {"num_group", "2"},
                           {"pad", "(1, 0, 1)"},
                           {"stride", "(1, 2, 1)"}},
                          {}, 1e-6, &where);
  EXPECT_LT(err, 1e-6) << where;
}

TEST(NNConv3d, ShapeInferenceAndAddRequest) {
  std::vector<Shape> in = {Shape({2, 3, 8, 9, 10}), Shape(), Shape()}, out;
  EXPECT_TRUE(test::InferShapes("Convolution",
                                {{"kernel", "(3, 3, 3)"},
                                 {"num_filter", "5"},
                                 {"pad", "(1, 1, 1)"},
                                 {"stride", "(2, 2, 2)"},
                                 {"layout", "NCDHW"}},
                                &in, &out));
  EXPECT_EQ(in[1], Shape({5, 3, 3, 3, 3}));
  EXPECT_EQ(in[2], Shape({5}));
  EXPECT_EQ(out[0], Shape({2, 5, 4, 5, 5}));
  // kAdd accumulates onto the output.
  NDArray x = test::RandomArray({1, 1, 3, 3, 3}, DType::kFloat64, -1, 1, 4);
  NDArray w = test::RandomArray({2, 1, 2, 2, 2}, DType::kFloat64, -1, 1, 5);
  const StringMap p = {{"kernel", "(2, 2, 2)"}, {"num_filter", "2"}, {"no_bias", "True"}};
  auto y = test::Values(test::Run("Convolution", {x, w}, p)[0]);
  std::vector<NDArray> outs = {
      test::Array({1, 2, 2, 2, 2}, std::vector<double>(16, 1.0), DType::kFloat64)};
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd};
  Invoke(&Runtime::Global(), "Convolution", {x, w}, p, &outs, opts);
  const auto a = test::Values(outs[0]);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(a[i], y[i] + 1, 1e-12);
}

}  // namespace
}  // namespace weft
