// The geometric image operators of Gluon's hybridized transforms
// (core/src/op/image_ops.cc) against their definitions: small hand-computed
// cases for to_tensor, normalize (and its gradient), resize (OpenCV's
// exact-halving average and nearest pick), crop (and its gradient) and the
// flips; the random flips seeded through Runtime::Seed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::Array;
using test::Values;
using Vec = std::vector<double>;

// (2, 3, 2) HWC: pixel (r, c) channel k = 10 * r + 2 * c + k.
Vec Hwc() {
  Vec v;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 2; ++k) v.push_back(10 * r + 2 * c + k);
  return v;
}

// (2, 2, 3) HWC: pixel (r, c) channel k = 10 * r + 3 * c + k.
Vec Rgb() {
  Vec v;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c)
      for (int k = 0; k < 3; ++k) v.push_back(10 * r + 3 * c + k);
  return v;
}

TEST(ImageOps, ToTensorTransposesAndScales) {
  // One channel of 1 or 3 is not required: MXNet's to_tensor takes any C.
  NDArray x = Array({2, 3, 2}, Hwc(), DType::kUint8);
  auto y = test::Run("_image_to_tensor", {x});
  ASSERT_EQ(y[0].shape(), Shape({2, 2, 3}));
  EXPECT_EQ(y[0].dtype(), DType::kFloat32);
  const Vec want = {0, 2, 4, 10, 12, 14, 1, 3, 5, 11, 13, 15};
  const Vec got = Values(y[0]);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(got[i], float(want[i] / 255.0)) << i;
  // A batch (N, H, W, C) -> (N, C, H, W); float input keeps its values / 255.
  NDArray b = Array({2, 1, 1, 3}, {255, 0, 51, 102, 153, 204});
  const Vec tb = Values(test::Run("_image_to_tensor", {b})[0]), raw = {255, 0, 51, 102, 153, 204};
  for (size_t i = 0; i < raw.size(); ++i) EXPECT_FLOAT_EQ(tb[i], float(raw[i]) / 255.f) << i;
  EXPECT_EQ(test::Run("_image_to_tensor", {b})[0].shape(), Shape({2, 3, 1, 1}));
  test::ExpectOpError("_image_to_tensor", {Array({4}, {1, 2, 3, 4})}, {}, StatusCode::kShape,
                      {"(H, W, C) or (N, H, W, C)", "(4,)"});
}

TEST(ImageOps, NormalizePerChannelAndItsGradient) {
  // (3, 1, 2): channel c holds (c + 1, 2 (c + 1)).
  NDArray x = Array({3, 1, 2}, {1, 2, 2, 4, 3, 6}, DType::kFloat64);
  const StringMap p = {{"mean", "(1, 2, 3)"}, {"std", "(2, 4, 0.5)"}};
  EXPECT_EQ(Values(test::Run("_image_normalize", {x}, p)[0]), (Vec{0, 0.5, 0, 0.5, 0, 6}));
  // One value for every channel, a batch.
  NDArray b = Array({2, 1, 1, 2}, {1, 3, 5, 7});
  EXPECT_EQ(Values(test::Run("_image_normalize", {b}, {{"mean", "1"}, {"std", "(2,)"}})[0]),
            (Vec{0, 1, 2, 3}));
  NDArray g = Array({3, 1, 2}, {1, 1, 1, 1, 1, 1}, DType::kFloat64);
  EXPECT_EQ(Values(test::Run("_backward_image_normalize", {g, x}, p)[0]),
            (Vec{0.5, 0.5, 0.25, 0.25, 2, 2}));
  std::string where;
  EXPECT_LT(test::GradientError("_image_normalize", {x}, p, {}, 1e-6, &where), 1e-6) << where;
  // MXNet's defaults hold 4 values, which fit neither 1 nor 3 channels.
  test::ExpectOpError("_image_normalize", {x}, {}, StatusCode::kInvalidArgument,
                      {"'mean' has 4 values", "needs 1 or 3"});
  test::ExpectOpError("_image_normalize", {Array({2, 1, 1}, {1, 2})}, p, StatusCode::kShape,
                      {"1 or 3 channels", "(2,1,1)"});
}

TEST(ImageOps, ResizeHalvesByAveragingAndPicksNearest) {
  // 4x4 gray: each 2x2 block holds (a, a + 4, a + 8, a + 12), mean a + 6.
  Vec v(16);
  const int base[4] = {10, 40, 70, 100};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) v[r * 4 + c] = base[(r / 2) * 2 + c / 2] + 4 * (r % 2 * 2 + c % 2);
  NDArray x = Array({4, 4, 1}, v, DType::kUint8);
  auto y = test::Run("_image_resize", {x}, {{"size", "(2,)"}});
  ASSERT_EQ(y[0].shape(), Shape({2, 2, 1}));
  EXPECT_EQ(Values(y[0]), (Vec{16, 46, 76, 106}));
  // Nearest: OpenCV picks source floor(i * 2).
  y = test::Run("_image_resize", {x}, {{"size", "(2, 2)"}, {"interp", "0"}});
  EXPECT_EQ(Values(y[0]), (Vec{10, 40, 70, 100}));
  // keep_ratio: the shorter side to size, the other scaled (integer division).
  std::vector<Shape> in = {Shape({4, 6, 3})}, out = {Shape()};
  EXPECT_TRUE(
      test::InferShapes("_image_resize", {{"size", "(2,)"}, {"keep_ratio", "True"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({2, 3, 3}));
  in = {Shape({5, 7, 4, 1})};
  out = {Shape()};
  EXPECT_TRUE(test::InferShapes("_image_resize", {{"size", "(3, 2)"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({5, 2, 3, 1}));
  test::ExpectOpError("_image_resize", {Array({4, 4, 1}, v)}, {{"size", "(2,)"}},
                      StatusCode::kNotImplemented, {"float32", "uint8"});
  test::ExpectOpError("_image_resize", {x}, {}, StatusCode::kInvalidArgument, {"'size'"});
}

TEST(ImageOps, CropAndItsGradient) {
  NDArray x = Array({2, 2, 3}, Rgb());
  const StringMap p = {{"x", "1"}, {"y", "1"}, {"width", "1"}, {"height", "1"}};
  auto y = test::Run("_image_crop", {x}, p);
  ASSERT_EQ(y[0].shape(), Shape({1, 1, 3}));
  EXPECT_EQ(Values(y[0]), (Vec{13, 14, 15}));
  Vec two = Rgb();
  for (double e : Rgb()) two.push_back(e + 100);
  NDArray b = Array({2, 2, 2, 3}, two);
  EXPECT_EQ(Values(test::Run("_image_crop", {b}, p)[0]), (Vec{13, 14, 15, 113, 114, 115}));
  NDArray g = Array({1, 1, 3}, {1, 2, 3});
  EXPECT_EQ(Values(test::Run("_backward_image_crop", {g, x}, p)[0]),
            (Vec{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3}));
  test::ExpectOpError("_image_crop", {x}, {{"x", "2"}, {"y", "0"}, {"width", "1"}, {"height", "1"}},
                      StatusCode::kInvalidArgument, {"not inside", "(2,2,3)"});
  test::ExpectOpError("_image_crop", {Array({2, 3, 2}, Hwc())}, p, StatusCode::kShape,
                      {"1 or 3 channels"});
}

TEST(ImageOps, FlipsMirrorRowsOrColumns) {
  NDArray x = Array({2, 2, 3}, Rgb(), DType::kUint8);
  EXPECT_EQ(Values(test::Run("_image_flip_left_right", {x})[0]),
            (Vec{3, 4, 5, 0, 1, 2, 13, 14, 15, 10, 11, 12}));
  EXPECT_EQ(Values(test::Run("_image_flip_top_bottom", {x})[0]),
            (Vec{10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5}));
  NDArray f = Array({1, 2, 1}, {1.5, -2}, DType::kFloat64);
  EXPECT_EQ(Values(test::Run("_image_flip_left_right", {f})[0]), (Vec{-2, 1.5}));
  test::ExpectOpError("_image_flip_left_right", {Array({1, 2, 2, 1}, {1, 2, 3, 4})}, {},
                      StatusCode::kShape, {"(H, W, C)"});
}

TEST(ImageOps, RandomFlipsAreSeededCoinFlips) {
  NDArray x = Array({2, 2, 3}, Rgb());
  const Vec same = Values(x), lr = Values(test::Run("_image_flip_left_right", {x})[0]),
            tb = Values(test::Run("_image_flip_top_bottom", {x})[0]);
  for (const char* op : {"_image_random_flip_left_right", "_image_random_flip_top_bottom"}) {
    const Vec& flipped = std::string(op).find("left") != std::string::npos ? lr : tb;
    auto draw = [&](uint64_t seed) {
      Runtime::Global().Seed(seed);
      std::vector<int> seq;
      for (int i = 0; i < 64; ++i) {
        const Vec y = Values(test::Run(op, {x})[0]);
        EXPECT_TRUE(y == same || y == flipped) << op;
        seq.push_back(y == flipped);
      }
      return seq;
    };
    const std::vector<int> a = draw(5), b = draw(5), c = draw(6);
    EXPECT_EQ(a, b) << op;
    EXPECT_NE(a, c) << op;
    int flips = 0;
    for (int f : a) flips += f;
    EXPECT_GT(flips, 16) << op;  // 64 fair coins: P(<= 16 or >= 48) < 1e-4
    EXPECT_LT(flips, 48) << op;
  }
}

}  // namespace
}  // namespace weft
