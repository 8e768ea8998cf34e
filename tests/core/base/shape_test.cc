#include <gtest/gtest.h>

#include "weft/shape.h"
#include "weft/status.h"

namespace weft {
namespace {

TEST(Shape, DefaultIsUnknownRank) {
  Shape s;
  EXPECT_FALSE(s.ndim_known());
  EXPECT_FALSE(s.is_known());
  EXPECT_EQ(s.ToString(), "None");
}

TEST(Shape, ZeroExtentIsUnknown) {
  Shape s{2, 0};
  EXPECT_TRUE(s.ndim_known());
  EXPECT_FALSE(s.is_known());
  EXPECT_TRUE(Shape({2, 3}).is_known());
  EXPECT_TRUE(Shape(std::vector<int64_t>{}).is_known());  // scalar
  EXPECT_EQ(Shape(std::vector<int64_t>{}).Size(), 1);
}

TEST(Shape, SizeAndProd) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.Size(), 24);
  EXPECT_EQ(s.ProdRange(1, 3), 12);
  EXPECT_THROW(Shape().Size(), Error);
}

TEST(Shape, ToStringMatchesMXNet) {
  EXPECT_EQ(Shape({2, 3}).ToString(), "(2,3)");
  EXPECT_EQ(Shape({3}).ToString(), "(3,)");
  EXPECT_EQ(Shape(std::vector<int64_t>{}).ToString(), "()");
}

TEST(Shape, ParseAcceptsMXNetForms) {
  EXPECT_EQ(Shape::Parse("(3, 3)"), Shape({3, 3}));
  EXPECT_EQ(Shape::Parse("(3,)"), Shape({3}));
  EXPECT_EQ(Shape::Parse("[2,4]"), Shape({2, 4}));
  EXPECT_EQ(Shape::Parse("5"), Shape({5}));
  EXPECT_EQ(Shape::Parse("()"), Shape(std::vector<int64_t>{}));
  EXPECT_EQ(Shape::Parse("(-1, 0)"), Shape({-1, 0}));
  EXPECT_EQ(Shape::Parse("(2L, 3L)"), Shape({2, 3}));
  EXPECT_FALSE(Shape::Parse("None").ndim_known());
}

TEST(Shape, ParseRejectsMalformed) {
  for (const char* bad : {"", "(", "(3,,4)", "(a)", "(3 4)", "(3)x", "3)", "(1,2"}) {
    try {
      Shape::Parse(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find("invalid shape"), std::string::npos) << e.what();
    }
  }
}

TEST(Shape, AssignFillsUnknowns) {
  Shape dst;
  EXPECT_TRUE(ShapeAssign(&dst, Shape({2, 0})));
  EXPECT_EQ(dst, Shape({2, 0}));
  EXPECT_TRUE(ShapeAssign(&dst, Shape({0, 3})));
  EXPECT_EQ(dst, Shape({2, 3}));
  EXPECT_TRUE(ShapeAssign(&dst, Shape()));
  EXPECT_EQ(dst, Shape({2, 3}));
}

TEST(Shape, AssignDetectsConflicts) {
  Shape a{2, 3};
  EXPECT_FALSE(ShapeAssign(&a, Shape({2, 4})));
  Shape b{2, 3};
  EXPECT_FALSE(ShapeAssign(&b, Shape({2, 3, 1})));
}

}  // namespace
}  // namespace weft
