#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

struct DeconvCase {
  Shape data;  // (N, C, [H,] W)
  int64_t filters, groups;
  std::vector<int64_t> kernel, stride, dilate, pad, adj, target;
  bool bias;
};

std::string Tuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

StringMap Params(const DeconvCase& c) {
  StringMap p = {{"kernel", Tuple(c.kernel)},
                 {"num_filter", std::to_string(c.filters)},
                 {"num_group", std::to_string(c.groups)}};
  if (c.bias) p["no_bias"] = "False";
  if (!c.stride.empty()) p["stride"] = Tuple(c.stride);
  if (!c.dilate.empty()) p["dilate"] = Tuple(c.dilate);
  if (!c.pad.empty()) p["pad"] = Tuple(c.pad);
  if (!c.adj.empty()) p["adj"] = Tuple(c.adj);
  if (!c.target.empty()) p["target_shape"] = Tuple(c.target);
  return p;
}

Shape WeightShape(const DeconvCase& c) {
  std::vector<int64_t> d = {c.data[1], c.filters / c.groups};
  for (auto k : c.kernel) d.push_back(k);
  return Shape(d);
}

// The transposed convolution by its definition (a scatter), in double;
// fills the output shape.
std::vector<double> NaiveDeconv(const DeconvCase& c, const std::vector<double>& x,
                                const std::vector<double>& w, const std::vector<double>& b,
                                Shape* oshape) {
  const bool two = c.kernel.size() == 2;
  const int last = two ? 1 : 0;
  auto at = [](const std::vector<int64_t>& v, int i, int64_t d) { return v.empty() ? d : v[i]; };
  const int64_t N = c.data[0], C = c.data[1], H = two ? c.data[2] : 1,
                W = c.data[c.data.ndim() - 1];
  const int64_t kh = two ? c.kernel[0] : 1, kw = c.kernel[last];
  const int64_t sh = two ? at(c.stride, 0, 1) : 1, sw = at(c.stride, last, 1);
  const int64_t dh = two ? at(c.dilate, 0, 1) : 1, dw = at(c.dilate, last, 1);
  int64_t ph = two ? at(c.pad, 0, 0) : 0, pw = at(c.pad, last, 0);
  int64_t ah = two ? at(c.adj, 0, 0) : 0, aw = at(c.adj, last, 0);
  const int64_t fh = sh * (H - 1) + dh * (kh - 1) + 1, fw = sw * (W - 1) + dw * (kw - 1) + 1;
  if (!c.target.empty()) {
    const int64_t th = two ? fh - c.target[0] : 0, tw = fw - c.target[last];
    ph = (th + 1) / 2;
    ah = th % 2;
    pw = (tw + 1) / 2;
    aw = tw % 2;
  }
  const int64_t OH = fh - 2 * ph + ah, OW = fw - 2 * pw + aw, F = c.filters;
  std::vector<int64_t> od = {N, F};
  if (two) od.push_back(OH);
  od.push_back(OW);
  *oshape = Shape(od);
  const int64_t Cg = C / c.groups, Fg = F / c.groups;
  std::vector<double> y(N * F * OH * OW, 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t f = 0; f < F; ++f)
      for (int64_t p = 0; p < OH * OW; ++p) y[(n * F + f) * OH * OW + p] = c.bias ? b[f] : 0.0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ci = 0; ci < C; ++ci)
      for (int64_t iy = 0; iy < H; ++iy)
        for (int64_t ix = 0; ix < W; ++ix)
          for (int64_t fl = 0; fl < Fg; ++fl)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t oy = iy * sh - ph + i * dh, ox = ix * sw - pw + j * dw;
                if (oy < 0 || oy >= OH || ox < 0 || ox >= OW) continue;
                const int64_t f = (ci / Cg) * Fg + fl;
                y[((n * F + f) * OH + oy) * OW + ox] +=
                    x[((n * C + ci) * H + iy) * W + ix] * w[((ci * Fg + fl) * kh + i) * kw + j];
              }
  return y;
}

std::vector<DeconvCase> Cases() {
  return {
      {{2, 3, 4, 3}, 2, 1, {3, 3}, {}, {}, {}, {}, {}, true},
      {{1, 4, 3, 4}, 6, 2, {3, 2}, {2, 2}, {1, 2}, {1, 1}, {1, 0}, {}, true},
      {{1, 2, 3, 3}, 4, 1, {4, 4}, {2, 2}, {}, {}, {}, {6, 7}, false},  // target_shape
      {{2, 4, 3, 2}, 4, 4, {3, 3}, {2, 1}, {}, {1, 1}, {}, {}, false},  // depthwise
      {{2, 3, 2, 3}, 5, 1, {1, 1}, {}, {}, {}, {}, {}, true},           // pointwise
      {{2, 3, 5}, 2, 1, {3}, {2}, {2}, {1}, {1}, {}, true},             // 1-D
  };
}

TEST(NNDeconv, ForwardMatchesDefinition) {
  for (const DeconvCase& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      NDArray x = test::RandomArray(c.data, dt, -1, 1, 1);
      NDArray w = test::RandomArray(WeightShape(c), dt, -1, 1, 2);
      NDArray b = test::RandomArray({c.filters}, dt, -1, 1, 3);
      std::vector<NDArray> in = {x, w};
      if (c.bias) in.push_back(b);
      auto y = test::Run("Deconvolution", in, Params(c));
      Shape oshape;
      std::vector<double> want =
          NaiveDeconv(c, test::Values(x), test::Values(w), test::Values(b), &oshape);
      ASSERT_EQ(y[0].shape(), oshape) << "data " << c.data << " kernel " << Tuple(c.kernel);
      std::vector<double> got = test::Values(y[0]);
      const double tol = dt == DType::kFloat32 ? 1e-5 : 1e-12;
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i])))
            << "data " << c.data << " kernel " << Tuple(c.kernel) << " index " << i;
    }
  }
}

TEST(NNDeconv, GradientMatchesNumeric) {
  for (const DeconvCase& c : Cases()) {
    std::vector<NDArray> in = {test::RandomArray(c.data, DType::kFloat64, -1, 1, 4),
                               test::RandomArray(WeightShape(c), DType::kFloat64, -1, 1, 5)};
    if (c.bias) in.push_back(test::RandomArray({c.filters}, DType::kFloat64, -1, 1, 6));
    std::string where;
    const double err = test::GradientError("Deconvolution", in, Params(c), {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << "data " << c.data << " kernel " << Tuple(c.kernel) << ": " << where;
  }
}

TEST(NNDeconv, Rejects) {
  auto expect_error = [](const std::vector<NDArray>& in, const StringMap& p, StatusCode code,
                         const std::string& needle) {
    try {
      test::Run("Deconvolution", in, p);
      FAIL() << "expected an error mentioning " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("Deconvolution"), std::string::npos) << e.what();
    }
  };
  NDArray x = test::RandomArray({1, 2, 3, 3}, DType::kFloat32, 0, 1, 1);
  NDArray w = test::RandomArray({2, 4, 3, 3}, DType::kFloat32, 0, 1, 1);
  expect_error({x, w},
               {{"kernel", "(3,3)"}, {"num_filter", "4"}, {"stride", "(2,2)"}, {"adj", "(2,2)"}},
               StatusCode::kInvalidArgument, "'adj'");
  expect_error({x, w}, {{"kernel", "(3,3)"}, {"num_filter", "4"}, {"target_shape", "(9,9)"}},
               StatusCode::kInvalidArgument, "target_shape");
  expect_error({x, w}, {{"kernel", "(3,3)"}, {"num_filter", "5"}}, StatusCode::kShape, "'weight'");
  expect_error({x, w}, {{"kernel", "(3,3)"}, {"num_filter", "4"}, {"no_bias", "False"}},
               StatusCode::kInvalidArgument, "input");
}

TEST(NNDeconvRef, MatchesPyTorch) {
  for (const char* stem : {"Deconvolution_basic", "Deconvolution_stride_adj_groups",
                           "Deconvolution_target_shape", "Deconvolution_deconv1d"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

}  // namespace
}  // namespace weft
