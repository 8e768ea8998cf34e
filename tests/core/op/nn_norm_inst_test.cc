#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(NNNormInst, InstanceNormForwardMatchesDefinition) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::RandomArray({2, 3, 4}, dt, -2, 2, 1);
    NDArray g = test::RandomArray({3}, dt, 0.5, 1.5, 2);
    NDArray b = test::RandomArray({3}, dt, -1, 1, 3);
    auto y = test::Run("InstanceNorm", {x, g, b}, {{"eps", "0.01"}});
    ASSERT_EQ(y.size(), 1u);
    const std::vector<double> xv = test::Values(x), gv = test::Values(g), bv = test::Values(b),
                              yv = test::Values(y[0]);
    for (int nc = 0; nc < 6; ++nc) {
      double m = 0, v = 0;
      for (int i = 0; i < 4; ++i) m += xv[nc * 4 + i] / 4;
      for (int i = 0; i < 4; ++i) v += (xv[nc * 4 + i] - m) * (xv[nc * 4 + i] - m) / 4;
      for (int i = 0; i < 4; ++i)
        EXPECT_NEAR(yv[nc * 4 + i],
                    (xv[nc * 4 + i] - m) / std::sqrt(v + 0.01) * gv[nc % 3] + bv[nc % 3],
                    dt == DType::kFloat32 ? 1e-5 : 1e-12);
    }
  }
}

TEST(NNNormInst, InstanceNormGradientMatchesNumeric) {
  std::string where;
  const double err =
      test::GradientError("InstanceNorm",
                          {test::RandomArray({2, 3, 2, 3}, DType::kFloat64, -2, 2, 4),
                           test::RandomArray({3}, DType::kFloat64, 0.5, 1.5, 5),
                           test::RandomArray({3}, DType::kFloat64, -1, 1, 6)},
                          {{"eps", "0.001"}}, {}, 1e-6, &where);
  EXPECT_LT(err, 1e-6) << where;
}

TEST(NNNormInst, L2NormalizationModes) {
  NDArray x = test::Array({1, 2, 2}, {3, 0, 4, 5}, DType::kFloat64);
  auto near = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-15) << "index " << i;
  };
  const double n = std::sqrt(50.0), s = std::sqrt(41.0);
  near(test::Values(test::Run("L2Normalization", {x}, {{"eps", "0"}})[0]),
       {3 / n, 0, 4 / n, 5 / n});
  near(test::Values(test::Run("L2Normalization", {x}, {{"eps", "0"}, {"mode", "channel"}})[0]),
       {0.6, 0, 0.8, 1});
  near(test::Values(test::Run("L2Normalization", {x}, {{"eps", "0"}, {"mode", "spatial"}})[0]),
       {1, 0, 4 / s, 5 / s});
}

TEST(NNNormInst, L2NormalizationGradientMatchesNumeric) {
  for (const char* mode : {"instance", "channel", "spatial"}) {
    std::string where;
    const double err = test::GradientError(
        "L2Normalization", {test::RandomArray({2, 3, 2, 2}, DType::kFloat64, -1, 1, 7)},
        {{"mode", mode}}, {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << mode << ": " << where;
  }
}

TEST(NNNormInst, Rejects) {
  try {
    test::Run("InstanceNorm", {test::RandomArray({2, 3}, DType::kFloat32, 0, 1, 1),
                               test::RandomArray({3}, DType::kFloat32, 0, 1, 1),
                               test::RandomArray({3}, DType::kFloat32, 0, 1, 1)});
    FAIL() << "expected a rank error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kShape);
    EXPECT_NE(std::string(e.what()).find("InstanceNorm"), std::string::npos) << e.what();
  }
  try {
    test::Run("InstanceNorm", {test::RandomArray({2, 3, 4}, DType::kFloat32, 0, 1, 1),
                               test::RandomArray({2}, DType::kFloat32, 0, 1, 1),
                               test::RandomArray({3}, DType::kFloat32, 0, 1, 1)});
    FAIL() << "expected a gamma shape error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kShape);
    EXPECT_NE(std::string(e.what()).find("'gamma'"), std::string::npos) << e.what();
  }
  try {
    test::Run("L2Normalization", {test::RandomArray({2, 3}, DType::kFloat32, 0, 1, 1)},
              {{"mode", "spatial"}});
    FAIL() << "expected a rank error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kShape);
    EXPECT_NE(std::string(e.what()).find("L2Normalization"), std::string::npos) << e.what();
  }
}

TEST(NNNormInstRef, MatchesPyTorch) {
  for (const char* stem : {"InstanceNorm_nchw", "InstanceNorm_ncw_eps", "L2Normalization_instance",
                           "L2Normalization_channel", "L2Normalization_spatial"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

}  // namespace
}  // namespace weft
