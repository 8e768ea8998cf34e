// Tests of core/src/train/initializer_orthogonal.cc, initializer_shaped.cc,
// initializer_mixed.cc and the registry in initializer.cc: orthogonal
// results are orthonormal times scale (rows or columns, uniform and normal
// draws, 1-D to 4-D), msraprelu is the gaussian Xavier of magnitude
// 2 / (1 + slope^2), bilinear against the closed form of the upsampling
// kernel, lstmbias's forget-gate quarter, mixed's first-match routing by
// name (C++ and by-name/JSON forms), determinism by seed, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/initializer.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using Vec = std::vector<double>;
using test::ExpectError;

NDArray Empty(const Shape& s, DType dt = DType::kFloat32) {
  return NDArray(s, Context::CPU(0), dt, &Runtime::Global());
}

// max |G - scale^2 I| for G the Gram matrix of W's rows (rows = true) or
// columns, W viewed as (shape[0], prod(shape[1:])).
double GramError(const Vec& w, int64_t rows, int64_t cols, bool of_rows, double scale) {
  const int64_t k = of_rows ? rows : cols, len = of_rows ? cols : rows;
  auto at = [&](int64_t vec, int64_t i) {
    return of_rows ? w[static_cast<size_t>(vec * cols + i)]
                   : w[static_cast<size_t>(i * cols + vec)];
  };
  double err = 0;
  for (int64_t a = 0; a < k; ++a)
    for (int64_t b = 0; b < k; ++b) {
      double dot = 0;
      for (int64_t i = 0; i < len; ++i) dot += at(a, i) * at(b, i);
      err = std::max(err, std::fabs(dot - (a == b ? scale * scale : 0.0)));
    }
  return err;
}

TEST(InitializerMore, OrthogonalIsOrthonormalTimesScale) {
  struct Case {
    Shape shape;
    const char* rand_type;
    double scale;
    DType dtype;
  };
  const std::vector<Case> cases = {
      {Shape{5, 3}, "uniform", 1.414, DType::kFloat32},  // tall: orthonormal columns
      {Shape{3, 5}, "normal", 2.0, DType::kFloat64},     // wide: orthonormal rows
      {Shape{6, 6}, "normal", 0.5, DType::kFloat64},     // square: both
      {Shape{6, 2, 2, 1}, "uniform", 1.0, DType::kFloat64},
      {Shape{2, 3, 3}, "normal", 1.0, DType::kFloat32},
      {Shape{4}, "uniform", 3.0, DType::kFloat64},  // (4, 1): a unit column
      {Shape{40, 25}, "normal", 1.0, DType::kFloat64},
  };
  for (const Case& c : cases) {
    char scale[32];
    std::snprintf(scale, sizeof scale, "%.17g", c.scale);
    auto init =
        Initializer::Create("orthogonal", {{"scale", scale}, {"rand_type", c.rand_type}}, 3);
    EXPECT_EQ(init->name(), "orthogonal");
    NDArray a = Empty(c.shape, c.dtype);
    init->Init("rnn_weight", &a);
    const Vec w = test::Values(a);
    const int64_t rows = c.shape[0], cols = c.shape.ProdRange(1, c.shape.ndim());
    const double tol = c.dtype == DType::kFloat32 ? 2e-6 * c.scale * c.scale : 1e-12;
    const std::string what = c.shape.ToString() + " " + c.rand_type;
    if (rows >= cols) {
      EXPECT_LT(GramError(w, rows, cols, false, c.scale), tol) << what;
    }
    if (rows <= cols) {
      EXPECT_LT(GramError(w, rows, cols, true, c.scale), tol) << what;
    }
  }
  // MXNet's defaults: scale 1.414, uniform draws.
  NDArray d = Empty({4, 4}, DType::kFloat64);
  Initializer::Create("Orthogonal", {}, 1)->Init("w", &d);
  EXPECT_LT(GramError(test::Values(d), 4, 4, true, 1.414), 1e-12);
}

TEST(InitializerMore, OrthogonalIsSeededAndRandom) {
  auto draw = [](uint64_t seed, const char* type) {
    NDArray a = Empty({8, 5}, DType::kFloat64);
    Initializer::Create("orthogonal", {{"rand_type", type}}, seed)->Init("w", &a);
    return test::Values(a);
  };
  EXPECT_EQ(draw(7, "normal"), draw(7, "normal"));
  EXPECT_NE(draw(7, "normal"), draw(8, "normal"));
  EXPECT_NE(draw(7, "normal"), draw(7, "uniform"));
}

TEST(InitializerMore, MSRAPreluIsGaussianXavierWithItsMagnitude) {
  for (const char* name : {"msraprelu", "MSRA_PReLU"})
    for (double slope : {0.25, 0.0, -1.5}) {
      char text[32], mag[32];
      std::snprintf(text, sizeof text, "%.17g", slope);
      std::snprintf(mag, sizeof mag, "%.17g", 2.0 / (1 + slope * slope));
      auto msra = Initializer::Create(name, {{"factor_type", "in"}, {"slope", text}}, 11);
      auto xavier = Initializer::Create(
          "xavier", {{"rnd_type", "gaussian"}, {"factor_type", "in"}, {"magnitude", mag}}, 11);
      EXPECT_EQ(msra->name(), "msraprelu");
      NDArray a = Empty({16, 8, 3, 3}), b = Empty({16, 8, 3, 3});
      msra->Init("conv_weight", &a);
      xavier->Init("conv_weight", &b);
      EXPECT_EQ(test::Values(a), test::Values(b)) << name << " slope " << slope;
    }
  // Defaults (avg, 0.25) on a large array: sigma = sqrt(2 / 1.0625 / 400).
  NDArray big = Empty({400, 400}, DType::kFloat64);
  Initializer::Create("msraprelu", {}, 5)->Init("fc_weight", &big);
  double var = 0;
  for (double x : test::Values(big)) var += x * x;
  var /= 160000;
  const double want = 2 / 1.0625 / 400;
  EXPECT_NEAR(var, want, 6 * std::sqrt(2.0 / 160000) * want);
}

// MXNet's bilinear kernel worked out by hand.
TEST(InitializerMore, BilinearIsTheUpsamplingKernel) {
  auto init = Initializer::Create("bilinear");
  EXPECT_EQ(init->name(), "bilinear");
  // Width 4 (factor-2 upsampling): f = 2, c = 0.75: 1-D kernel 1/4, 3/4, 3/4, 1/4.
  const Vec k4 = {0.25, 0.75, 0.75, 0.25};
  NDArray a = Empty({2, 3, 4, 4});
  init->Init("upsampling_weight", &a);
  const Vec w = test::Values(a);
  for (size_t ch = 0; ch < 6; ++ch)
    for (size_t y = 0; y < 4; ++y)
      for (size_t x = 0; x < 4; ++x)
        EXPECT_DOUBLE_EQ(w[ch * 16 + y * 4 + x], k4[y] * k4[x]) << ch << " " << y << " " << x;
  // Width 5: f = 3, c = 2/3: 1/3, 2/3, 1, 2/3, 1/3; height 3 uses the width's f and c.
  const Vec k5 = {1.0 / 3, 2.0 / 3, 1.0, 2.0 / 3, 1.0 / 3};
  NDArray b = Empty({1, 1, 3, 5}, DType::kFloat64);
  init->Init("up_weight", &b);
  const Vec v = test::Values(b);
  for (size_t y = 0; y < 3; ++y)
    for (size_t x = 0; x < 5; ++x) EXPECT_NEAR(v[y * 5 + x], k5[y] * k5[x], 1e-15) << y << x;
  // The closed form for a width-8 kernel (f = 4, c = 7/8).
  NDArray e = Empty({1, 1, 8, 8}, DType::kFloat64);
  init->Init("up_weight", &e);
  const Vec u = test::Values(e);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x)
      EXPECT_NEAR(u[static_cast<size_t>(y * 8 + x)],
                  (1 - std::fabs(x / 4.0 - 0.875)) * (1 - std::fabs(y / 4.0 - 0.875)), 1e-15);
  NDArray flat = Empty({4, 4});
  ExpectError([&] { init->Init("up_weight", &flat); }, StatusCode::kShape,
              {"bilinear", "up_weight", "4 dimensions"});
}

TEST(InitializerMore, LSTMBiasSetsTheForgetGateQuarter) {
  // Gate order i, f, c, o: hidden 2 -> elements 2 and 3 get the forget bias.
  auto init = Initializer::Create("lstmbias", {}, 0);
  EXPECT_EQ(init->name(), "lstmbias");
  NDArray b = Empty({8});
  init->Init("lstm_param", &b);  // no suffix rule claims it: the rule
  EXPECT_EQ(test::Values(b), (Vec{0, 0, 1, 1, 0, 0, 0, 0}));
  // Through an __init__ attribute, as MXNet's LSTM cells set it on their bias.
  auto zero = Initializer::Create("zero");
  zero->Init("lstm_i2h_bias", &b, {{"__init__", "[\"lstmbias\", {\"forget_bias\": 2.5}]"}});
  EXPECT_EQ(test::Values(b), (Vec{0, 0, 2.5, 2.5, 0, 0, 0, 0}));
  // A *bias name without the attribute gets MXNet's bias rule, 0.
  init->Init("lstm_i2h_bias", &b);
  EXPECT_EQ(test::Values(b), Vec(8, 0.0));
  // Rows of a 2-D array; "lstm_bias" is accepted as a name too.
  NDArray m = Empty({4, 3}, DType::kFloat64);
  Initializer::Create("lstm_bias", {{"forget_bias", "-1"}})->Init("x", &m);
  EXPECT_EQ(test::Values(m), (Vec{0, 0, 0, -1, -1, -1, 0, 0, 0, 0, 0, 0}));
}

TEST(InitializerMore, MixedRoutesByTheFirstMatchingPattern) {
  std::vector<std::unique_ptr<Initializer>> inits;
  inits.push_back(Initializer::Create("constant", {{"value", "3"}}));
  inits.push_back(Initializer::Create("constant", {{"value", "5"}}));
  inits.push_back(Initializer::Create("one"));
  auto mixed = Initializer::Mixed({"fc1_", "fc", ".*"}, std::move(inits));
  EXPECT_EQ(mixed->name(), "mixed");
  struct Case {
    const char* name;
    double want;
  };
  for (Case c : {Case{"fc1_weight", 3},
                 {"fc2_weight", 5},
                 {"fc1_bias", 0},
                 {"conv_weight", 1},
                 {"xfc_weight", 1}}) {  // matched from the start, as re.match
    NDArray a = Empty({2});
    mixed->Init(c.name, &a);
    EXPECT_EQ(test::Values(a), Vec(2, c.want)) << c.name;
  }
  // The chosen initializer honours __init__ attributes.
  NDArray a = Empty({2});
  mixed->Init("fc2_weight", &a, {{"__init__", "[\"constant\", {\"value\": 7}]"}});
  EXPECT_EQ(test::Values(a), Vec(2, 7.0));
  std::vector<std::unique_ptr<Initializer>> one;
  one.push_back(Initializer::Create("zero"));
  auto strict = Initializer::Mixed({"fc"}, std::move(one));
  ExpectError([&] { strict->Init("conv_weight", &a); }, StatusCode::kInvalidArgument,
              {"conv_weight", "'fc'", ".*"});
}

TEST(InitializerMore, MixedByNameAndJSON) {
  const StringMap params = {{"patterns", "[\"bias\", \"gamma\", \".*\"]"},
                            {"initializers",
                             "[\"zero\", [\"constant\", {\"value\": 2}], "
                             "[\"uniform\", {\"scale\": 0.5}]]"}};
  auto by_name = Initializer::Create("Mixed", params, 21);
  auto by_json = Initializer::FromJSON(
      "[\"mixed\", {\"patterns\": [\"bias\", \"gamma\", \".*\"], \"initializers\": "
      "[\"zero\", [\"constant\", {\"value\": 2}], [\"uniform\", {\"scale\": 0.5}]]}]",
      21);
  EXPECT_EQ(by_name->name(), "mixed");
  NDArray a = Empty({64}), b = Empty({64});
  by_name->Init("bias_like_weight", &a);  // "bias" from the start: zero's rule
  EXPECT_EQ(test::Values(a), Vec(64, 0.0));
  by_name->Init("gamma", &a);  // constant 2 is asked, but *gamma's rule (1) applies first
  EXPECT_EQ(test::Values(a), Vec(64, 1.0));
  by_name->Init("gamma_w", &a);  // constant's own rule
  EXPECT_EQ(test::Values(a), Vec(64, 2.0));
  by_name->Init("fc_weight", &a);
  by_json->Init("fc_weight", &b);
  EXPECT_EQ(test::Values(a), test::Values(b));  // same seed, same bits
  for (double x : test::Values(a)) EXPECT_LE(std::fabs(x), 0.5);
  // As an __init__ attribute of one parameter.
  auto zero = Initializer::Create("zero");
  zero->Init("gamma_w", &a,
             {{"__init__",
               "[\"mixed\", {\"patterns\": [\"g\"], "
               "\"initializers\": [[\"constant\", {\"value\": 4}]]}]"}});
  EXPECT_EQ(test::Values(a), Vec(64, 4.0));
  const auto bad = StatusCode::kInvalidArgument;
  ExpectError(
      [] {
        Initializer::Create("mixed", {{"patterns", "[\".*\"]"}});
      },
      bad, {"initializers", "missing"});
  ExpectError(
      [] {
        Initializer::Create("mixed", {{"patterns", "['.*']"}, {"initializers", "[\"zero\"]"}});
      },
      bad, {"patterns", "JSON list"});
  ExpectError(
      [] {
        Initializer::Create("mixed",
                            {{"patterns", "[\".*\", \"x\"]"}, {"initializers", "[\"zero\"]"}});
      },
      bad, {"2 patterns and 1 initializers"});
  ExpectError(
      [] {
        Initializer::Create("mixed", {{"patterns", "[\"(\"]"}, {"initializers", "[\"zero\"]"}});
      },
      bad, {"pattern 0", "'('", "regular expression"});
  ExpectError(
      [] {
        Initializer::Create("mixed", {{"patterns", "[\".*\"]"}, {"initializers", "[\"nope\"]"}});
      },
      bad, {"initializer 0", "nope"});
  ExpectError(
      [] {
        Initializer::Create("mixed", {{"patterns", "[1]"}, {"initializers", "[\"zero\"]"}});
      },
      bad, {"patterns", "strings"});
}

TEST(InitializerMore, RegistryErrors) {
  const auto bad = StatusCode::kInvalidArgument;
  ExpectError([] { Initializer::Create("kaiming"); }, bad, {"kaiming", "orthogonal", "mixed"});
  ExpectError(
      [] {
        Initializer::Create("orthogonal", {{"rand_type", "gaussian"}});
      },
      bad, {"rand_type", "gaussian", "normal"});
  ExpectError(
      [] {
        Initializer::Create("msraprelu", {{"factor_type", "fan"}});
      },
      bad, {"factor_type", "fan"});
  ExpectError([] { Initializer::Create("bilinear", {{"scale", "1"}}); }, bad, {"scale"});
  ExpectError(
      [] {
        Initializer::Create("lstmbias", {{"forget_bias", "x"}});
      },
      bad, {"forget_bias", "x"});
  NDArray scalar = Empty(Shape(std::vector<int64_t>{}));
  ExpectError([&] { Initializer::Create("orthogonal")->Init("w", &scalar); }, StatusCode::kShape,
              {"orthogonal", "'w'"});
}

}  // namespace
}  // namespace weft
