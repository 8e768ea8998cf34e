#include <gtest/gtest.h>

#include "util/test_util.h"

namespace weft {
namespace {

TEST(Quadratic, ForwardMatchesClosedForm) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::Array({2, 2}, {1, 2, 3, 4}, dt);
    auto y = test::Run("quadratic", {x}, {{"a", "1"}, {"b", "2"}, {"c", "3"}});
    ASSERT_EQ(y.size(), 1u);
    EXPECT_EQ(y[0].shape(), Shape({2, 2}));
    EXPECT_EQ(y[0].dtype(), dt);
    EXPECT_EQ(test::Values(y[0]), (std::vector<double>{6, 11, 18, 27}));
  }
}

TEST(Quadratic, DefaultsAreZero) {
  auto y = test::Run("quadratic", {test::Array({3}, {1, -2, 5})});
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{0, 0, 0}));
}

TEST(Quadratic, GradientMatchesNumeric) {
  NDArray x = test::RandomArray({3, 4}, DType::kFloat64, -2, 2, 7);
  std::string where;
  double err = test::GradientError("quadratic", {x}, {{"a", "1.5"}, {"b", "-2"}, {"c", "0.5"}}, {},
                                   1e-6, &where);
  EXPECT_LT(err, 1e-6) << where;
}

TEST(Quadratic, RejectsBadParameter) {
  try {
    test::Run("quadratic", {test::Array({1}, {1})}, {{"a", "abc"}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("'a'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("quadratic"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace weft
