#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(NNLRN, ForwardMatchesDefinition) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const int64_t N = 2, C = 5, M = 3;
    NDArray x = test::RandomArray({N, C, M}, dt, -2, 2, 1);
    auto y = test::Run("LRN", {x},
                       {{"nsize", "3"}, {"alpha", "0.3"}, {"beta", "0.7"}, {"knorm", "1.2"}});
    const std::vector<double> xv = test::Values(x), yv = test::Values(y[0]);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t i = 0; i < M; ++i) {
          double s = 0;
          for (int64_t cc = std::max<int64_t>(0, c - 1); cc <= std::min<int64_t>(C - 1, c + 1);
               ++cc)
            s += xv[(n * C + cc) * M + i] * xv[(n * C + cc) * M + i];
          const int64_t j = (n * C + c) * M + i;
          EXPECT_NEAR(yv[j], xv[j] / std::pow(1.2 + 0.3 / 3 * s, 0.7),
                      dt == DType::kFloat32 ? 1e-6 : 1e-14);
        }
  }
}

TEST(NNLRN, GradientMatchesNumeric) {
  for (const char* n : {"1", "3", "5"}) {
    std::string where;
    const double err =
        test::GradientError("LRN", {test::RandomArray({2, 6, 2, 2}, DType::kFloat64, -2, 2, 2)},
                            {{"nsize", n}, {"alpha", "0.5"}}, {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << "nsize " << n << ": " << where;
  }
}

TEST(NNLRN, Rejects) {
  try {
    test::Run("LRN", {test::RandomArray({1, 4, 2}, DType::kFloat32, 0, 1, 1)}, {{"nsize", "4"}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("'nsize'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("LRN"), std::string::npos) << e.what();
  }
  try {
    test::Run("LRN", {test::RandomArray({1, 4}, DType::kFloat32, 0, 1, 1)}, {{"nsize", "3"}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kShape);
  }
}

TEST(NNLRNRef, MatchesPyTorch) {
  for (const char* stem : {"LRN_n3", "LRN_n5_params"}) EXPECT_TRUE(test::CheckOpRef(stem));
}

}  // namespace
}  // namespace weft
