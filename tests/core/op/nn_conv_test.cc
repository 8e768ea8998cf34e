#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"
#include "weft/runtime.h"

namespace weft {
namespace {

struct ConvCase {
  Shape data;  // (N, C, [H,] W)
  int64_t filters;
  int64_t groups;
  std::vector<int64_t> kernel, stride, dilate, pad;
  bool no_bias;
};

std::string Tuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

StringMap ConvParams(const ConvCase& c) {
  StringMap p = {{"kernel", Tuple(c.kernel)},
                 {"num_filter", std::to_string(c.filters)},
                 {"num_group", std::to_string(c.groups)},
                 {"no_bias", c.no_bias ? "True" : "False"}};
  if (!c.stride.empty()) p["stride"] = Tuple(c.stride);
  if (!c.dilate.empty()) p["dilate"] = Tuple(c.dilate);
  if (!c.pad.empty()) p["pad"] = Tuple(c.pad);
  return p;
}

// Spatial axes as 2-D (h, w) with h = 1 for 1-D.
struct Geo {
  int64_t n, c, h, w, f, g, kh, kw, sh, sw, dh, dw, ph, pw, oh, ow;
};

Geo Geometry(const ConvCase& c) {
  const bool two = c.kernel.size() == 2;
  auto at = [&](const std::vector<int64_t>& v, int i, int64_t d) { return v.empty() ? d : v[i]; };
  Geo g{};
  g.n = c.data[0];
  g.c = c.data[1];
  g.h = two ? c.data[2] : 1;
  g.w = c.data[c.data.ndim() - 1];
  g.f = c.filters;
  g.g = c.groups;
  const int last = two ? 1 : 0;
  g.kh = two ? c.kernel[0] : 1;
  g.kw = c.kernel[last];
  g.sh = two ? at(c.stride, 0, 1) : 1;
  g.sw = at(c.stride, last, 1);
  g.dh = two ? at(c.dilate, 0, 1) : 1;
  g.dw = at(c.dilate, last, 1);
  g.ph = two ? at(c.pad, 0, 0) : 0;
  g.pw = at(c.pad, last, 0);
  g.oh = (g.h + 2 * g.ph - (g.dh * (g.kh - 1) + 1)) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - (g.dw * (g.kw - 1) + 1)) / g.sw + 1;
  return g;
}

// The convolution by its definition, in double.
std::vector<double> NaiveConv(const Geo& g, const std::vector<double>& x,
                              const std::vector<double>& w, const std::vector<double>* b) {
  const int64_t Cg = g.c / g.g, Fg = g.f / g.g;
  std::vector<double> y(g.n * g.f * g.oh * g.ow, 0.0);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t f = 0; f < g.f; ++f)
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          double s = b ? (*b)[f] : 0.0;
          const int64_t grp = f / Fg;
          for (int64_t cc = 0; cc < Cg; ++cc)
            for (int64_t i = 0; i < g.kh; ++i)
              for (int64_t j = 0; j < g.kw; ++j) {
                const int64_t iy = oy * g.sh - g.ph + i * g.dh, ix = ox * g.sw - g.pw + j * g.dw;
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                const int64_t c = grp * Cg + cc;
                s += x[((n * g.c + c) * g.h + iy) * g.w + ix] *
                     w[((f * Cg + cc) * g.kh + i) * g.kw + j];
              }
          y[((n * g.f + f) * g.oh + oy) * g.ow + ox] = s;
        }
  return y;
}

Shape WeightShape(const ConvCase& c) {
  std::vector<int64_t> d = {c.filters, c.data[1] / c.groups};
  for (auto k : c.kernel) d.push_back(k);
  return Shape(d);
}

std::vector<ConvCase> Cases() {
  return {
      {{2, 3, 7, 6}, 4, 1, {3, 3}, {}, {}, {}, false},              // plain 3x3
      {{1, 4, 9, 8}, 6, 2, {3, 2}, {2, 1}, {1, 2}, {1, 2}, false},  // groups, stride, dilate, pad
      {{2, 4, 5, 5}, 4, 4, {3, 3}, {1, 1}, {}, {1, 1}, true},       // depthwise
      {{2, 6, 5, 4}, 3, 1, {1, 1}, {}, {}, {}, false},              // pointwise fast path
      {{1, 2, 6, 7}, 4, 2, {1, 1}, {2, 2}, {}, {}, true},           // 1x1 with stride
      {{2, 3, 11}, 5, 1, {3}, {2}, {2}, {3}, false},                // 1-D
      {{1, 4, 10}, 4, 2, {4}, {3}, {}, {1}, true},                  // 1-D groups
      {{1, 1, 3, 3}, 2, 1, {5, 5}, {}, {}, {1, 1}, false},          // kernel > input, padded
  };
}

TEST(NNConv, ForwardMatchesDefinition) {
  for (const ConvCase& c : Cases()) {
    const Geo g = Geometry(c);
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      NDArray x = test::RandomArray(c.data, dt, -1, 1, 1);
      NDArray w = test::RandomArray(WeightShape(c), dt, -1, 1, 2);
      NDArray b = test::RandomArray({c.filters}, dt, -1, 1, 3);
      std::vector<NDArray> in = {x, w};
      if (!c.no_bias) in.push_back(b);
      auto y = test::Run("Convolution", in, ConvParams(c));
      ASSERT_EQ(y.size(), 1u);
      std::vector<int64_t> oshape = {g.n, g.f};
      if (c.kernel.size() == 2) oshape.push_back(g.oh);
      oshape.push_back(g.ow);
      EXPECT_EQ(y[0].shape(), Shape(oshape));
      EXPECT_EQ(y[0].dtype(), dt);
      std::vector<double> bv = test::Values(b);
      std::vector<double> want =
          NaiveConv(g, test::Values(x), test::Values(w), c.no_bias ? nullptr : &bv);
      std::vector<double> got = test::Values(y[0]);
      ASSERT_EQ(got.size(), want.size());
      const double tol = dt == DType::kFloat32 ? 1e-5 : 1e-12;
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i])))
            << "case data " << c.data << " kernel " << Tuple(c.kernel) << " index " << i;
    }
  }
}

TEST(NNConv, GradientMatchesNumeric) {
  for (const ConvCase& c : Cases()) {
    NDArray x = test::RandomArray(c.data, DType::kFloat64, -1, 1, 4);
    NDArray w = test::RandomArray(WeightShape(c), DType::kFloat64, -1, 1, 5);
    std::vector<NDArray> in = {x, w};
    if (!c.no_bias) in.push_back(test::RandomArray({c.filters}, DType::kFloat64, -1, 1, 6));
    std::string where;
    const double err = test::GradientError("Convolution", in, ConvParams(c), {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << "case data " << c.data << " kernel " << Tuple(c.kernel) << ": "
                         << where;
  }
}

TEST(NNConv, BackwardHonoursAddRequest) {
  ConvCase c = Cases()[1];
  NDArray x = test::RandomArray(c.data, DType::kFloat64, -1, 1, 7);
  NDArray w = test::RandomArray(WeightShape(c), DType::kFloat64, -1, 1, 8);
  NDArray dy = test::RandomArray(
      test::Run("Convolution", {x, w, test::RandomArray({c.filters}, DType::kFloat64, 0, 1, 1)},
                ConvParams(c))[0]
          .shape(),
      DType::kFloat64, -1, 1, 9);
  std::vector<NDArray> once;
  Invoke(&Runtime::Global(), "_backward_Convolution", {dy, x, w}, ConvParams(c), &once);
  ASSERT_EQ(once.size(), 3u);
  std::vector<NDArray> twice = {
      test::Array(once[0].shape(), test::Values(once[0]), DType::kFloat64),
      test::Array(once[1].shape(), test::Values(once[1]), DType::kFloat64),
      test::Array(once[2].shape(), test::Values(once[2]), DType::kFloat64)};
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd, OpReq::kAdd, OpReq::kAdd};
  Invoke(&Runtime::Global(), "_backward_Convolution", {dy, x, w}, ConvParams(c), &twice, opts);
  for (int k = 0; k < 3; ++k) {
    std::vector<double> a = test::Values(once[k]), b = test::Values(twice[k]);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(b[i], 2 * a[i], 1e-12) << "output " << k;
  }
}

// Runs Convolution's shape inference on the given partial shapes.
bool InferConv(const StringMap& params, std::vector<Shape>* in, std::vector<Shape>* out) {
  const OpDef& op = Runtime::Global().ops().Get("Convolution");
  NodeAttrs attrs;
  attrs.op = &op;
  attrs.name = "conv0";
  attrs.dict = params;
  attrs.params = ParseParams(op.name, &op.params, params);
  return op.infer_shape(attrs, in, out);
}

TEST(NNConv, InferShapeForwardAndBackward) {
  StringMap p = {{"kernel", "(3,3)"}, {"num_filter", "8"}, {"pad", "(1,1)"}, {"num_group", "2"}};
  std::vector<Shape> in = {Shape({2, 4, 9, 7}), Shape(), Shape()}, out = {Shape()};
  EXPECT_TRUE(InferConv(p, &in, &out));
  EXPECT_EQ(in[1], Shape({8, 2, 3, 3}));
  EXPECT_EQ(in[2], Shape({8}));
  EXPECT_EQ(out[0], Shape({2, 8, 9, 7}));

  // From the output and weight back to data (stride 1): batch, channels, spatial.
  in = {Shape(), Shape({8, 2, 3, 3}), Shape()};
  out = {Shape({5, 8, 10, 12})};
  EXPECT_TRUE(InferConv(p, &in, &out));
  EXPECT_EQ(in[0], Shape({5, 4, 10, 12}));

  // Stride 2 cannot recover the spatial extent.
  p["stride"] = "(2,2)";
  in = {Shape(), Shape({8, 2, 3, 3}), Shape()};
  out = {Shape({5, 8, 10, 12})};
  EXPECT_FALSE(InferConv(p, &in, &out));
  EXPECT_EQ(in[0], Shape({5, 4, 0, 0}));
}

TEST(NNConv, Rejects) {
  auto expect_error = [](const std::vector<NDArray>& in, const StringMap& p, StatusCode code,
                         const std::string& needle) {
    try {
      test::Run("Convolution", in, p);
      FAIL() << "expected an error mentioning " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("Convolution"), std::string::npos) << e.what();
    }
  };
  NDArray x = test::RandomArray({1, 4, 5, 5}, DType::kFloat32, 0, 1, 1);
  NDArray w = test::RandomArray({6, 4, 3, 3}, DType::kFloat32, 0, 1, 1);
  NDArray b = test::RandomArray({6}, DType::kFloat32, 0, 1, 1);
  expect_error({x, w, b}, {{"kernel", "(3,3)"}}, StatusCode::kInvalidArgument, "num_filter");
  expect_error({x, w, b}, {{"kernel", "(3,3)"}, {"num_filter", "6"}, {"stride", "(1,1,1)"}},
               StatusCode::kInvalidArgument, "'stride'");
  expect_error({x, w, b}, {{"kernel", "(3,3)"}, {"num_filter", "6"}, {"num_group", "4"}},
               StatusCode::kInvalidArgument, "num_group");
  expect_error({x, w, b}, {{"kernel", "(3,3)"}, {"num_filter", "6"}, {"num_group", "3"}},
               StatusCode::kShape, "num_group");
  expect_error({x, w, b}, {{"kernel", "(3,3)"}, {"num_filter", "5"}}, StatusCode::kShape,
               "'weight'");
  expect_error({x, w, b}, {{"kernel", "(7,7)"}, {"num_filter", "6"}}, StatusCode::kShape,
               "exceeds");
  expect_error({x, w, b}, {{"kernel", "(3,)"}, {"num_filter", "6"}}, StatusCode::kShape, "'data'");
  expect_error({x, w, b}, {{"kernel", "(3,3)"}, {"num_filter", "6"}, {"layout", "NHWC"}},
               StatusCode::kNotImplemented, "layout");
  // A 3-D kernel needs 5-D data.
  expect_error({x, w, b}, {{"kernel", "(3,3,3)"}, {"num_filter", "6"}}, StatusCode::kShape,
               "rank 5");
  expect_error({x, w, b}, {{"kernel", "(3,3,3,3)"}, {"num_filter", "6"}},
               StatusCode::kInvalidArgument, "'kernel'");
  expect_error({x, w}, {{"kernel", "(3,3)"}, {"num_filter", "6"}}, StatusCode::kInvalidArgument,
               "input");
}

TEST(NNConvRef, MatchesPyTorch) {
  for (const char* stem : {"Convolution_basic", "Convolution_stride_pad", "Convolution_dilate",
                           "Convolution_groups", "Convolution_depthwise", "Convolution_pointwise",
                           "Convolution_conv1d", "Convolution_conv1d_group_dilate"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

}  // namespace
}  // namespace weft
