#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"
#include "weft/imperative.h"
#include "weft/runtime.h"

namespace weft {
namespace {

struct PoolCase {
  Shape data;  // (N, C, [H,] W)
  std::string type;
  std::vector<int64_t> kernel, stride, pad;
  std::string convention;  // "" = default (valid)
  bool global = false;
  int count_include_pad = -1;  // -1: not given
};

std::string Tuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

StringMap PoolParams(const PoolCase& c) {
  StringMap p = {{"pool_type", c.type}};
  if (!c.kernel.empty()) p["kernel"] = Tuple(c.kernel);
  if (!c.stride.empty()) p["stride"] = Tuple(c.stride);
  if (!c.pad.empty()) p["pad"] = Tuple(c.pad);
  if (!c.convention.empty()) p["pooling_convention"] = c.convention;
  if (c.global) p["global_pool"] = "True";
  if (c.count_include_pad >= 0) p["count_include_pad"] = c.count_include_pad ? "True" : "False";
  return p;
}

// Pooling by its definition (MXNet's window clipping), in double; fills
// the output shape.
std::vector<double> NaivePool(const PoolCase& c, const std::vector<double>& x, Shape* oshape) {
  const bool two = c.data.ndim() == 4;
  const int64_t N = c.data[0], C = c.data[1], H = two ? c.data[2] : 1,
                W = c.data[c.data.ndim() - 1];
  auto at = [&](const std::vector<int64_t>& v, int i, int64_t d) { return v.empty() ? d : v[i]; };
  const int last = two ? 1 : 0;
  int64_t kh = two ? at(c.kernel, 0, 1) : 1, kw = at(c.kernel, last, 1);
  int64_t sh = two ? at(c.stride, 0, 1) : 1, sw = at(c.stride, last, 1);
  int64_t ph = two ? at(c.pad, 0, 0) : 0, pw = at(c.pad, last, 0);
  if (c.global) {
    kh = H;
    kw = W;
    sh = sw = 1;
    ph = pw = 0;
  }
  const bool full = c.convention == "full";
  auto osize = [&](int64_t x, int64_t k, int64_t s, int64_t p) {
    const double v = static_cast<double>(x + 2 * p - k) / s;
    return 1 + static_cast<int64_t>(full ? std::ceil(v) : std::floor(v));
  };
  const int64_t OH = c.global ? 1 : osize(H, kh, sh, ph), OW = c.global ? 1 : osize(W, kw, sw, pw);
  std::vector<int64_t> od = {N, C};
  if (two) od.push_back(OH);
  od.push_back(OW);
  *oshape = Shape(od);
  std::vector<double> y(N * C * OH * OW);
  const bool cip = c.count_include_pad != 0;
  for (int64_t nc = 0; nc < N * C; ++nc)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        const int64_t ys = oy * sh - ph, xs = ox * sw - pw;
        const int64_t ye = std::min(ys + kh, H + ph), xe = std::min(xs + kw, W + pw);
        double m = -std::numeric_limits<double>::infinity(), s = 0;
        int64_t n_in = 0;
        for (int64_t iy = ys; iy < ye; ++iy)
          for (int64_t ix = xs; ix < xe; ++ix) {
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            const double v = x[(nc * H + iy) * W + ix];
            m = std::max(m, v);
            s += v;
            ++n_in;
          }
        double r = c.type == "max" ? m : s;
        if (c.type == "avg") r /= cip ? static_cast<double>((ye - ys) * (xe - xs)) : n_in;
        y[(nc * OH + oy) * OW + ox] = n_in ? r : 0.0;
      }
  return y;
}

std::vector<PoolCase> Cases() {
  return {
      {{2, 3, 7, 6}, "max", {3, 3}, {2, 2}, {}, ""},
      {{1, 2, 7, 7}, "max", {3, 3}, {2, 2}, {1, 1}, "full"},
      {{2, 2, 6, 5}, "avg", {3, 2}, {2, 1}, {1, 1}, ""},
      {{1, 2, 7, 8}, "avg", {3, 3}, {2, 3}, {1, 1}, "full", false, 0},
      {{1, 3, 5, 5}, "avg", {2, 2}, {2, 2}, {}, "full", false, 1},
      {{2, 2, 5, 4}, "sum", {2, 3}, {1, 1}, {0, 1}, ""},
      {{2, 3, 5, 6}, "avg", {}, {}, {}, "", true},
      {{1, 2, 4, 3}, "max", {}, {}, {}, "", true},
      {{2, 3, 11}, "max", {3}, {2}, {1}, ""},
      {{2, 2, 10}, "avg", {4}, {3}, {1}, "full", false, 0},
      {{1, 2, 9}, "sum", {}, {}, {}, "", true},
      // 2x2 stride 2 (its own row-pair path), even and odd extents; with
      // "full" on odd extents the last window is partial (general path).
      {{2, 3, 8, 8}, "max", {2, 2}, {2, 2}, {}, ""},
      {{1, 2, 7, 9}, "max", {2, 2}, {2, 2}, {}, ""},
      {{1, 2, 7, 9}, "max", {2, 2}, {2, 2}, {}, "full"},
  };
}

// The 2x2 stride-2 path skips NaNs like the general one (a window of NaNs
// only gives -inf) and honours req=add.
TEST(NNPool, MaxK2S2NaNAndAdd) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  NDArray x = test::Array({1, 1, 2, 4}, {nan, 1, nan, nan, 3, nan, nan, nan});
  const StringMap p = {{"pool_type", "max"}, {"kernel", "(2,2)"}, {"stride", "(2,2)"}};
  std::vector<double> y = test::Values(test::Run("Pooling", {x}, p)[0]);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(y[0], 3);
  EXPECT_EQ(y[1], -std::numeric_limits<double>::infinity());
  NDArray x2 = test::Array({1, 1, 2, 2}, {1, 5, 2, 4});
  std::vector<NDArray> out{test::Array({1, 1, 1, 1}, {10})};
  InvokeOptions o;
  o.reqs = {OpReq::kAdd};
  Invoke(&Runtime::Global(), "Pooling", {x2}, p, &out, o);
  EXPECT_EQ(test::Values(out[0]), (std::vector<double>{15}));
}

TEST(NNPool, ForwardMatchesDefinition) {
  for (const PoolCase& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      NDArray x = test::RandomArray(c.data, dt, -1, 1, 11);
      Shape oshape;
      std::vector<double> want = NaivePool(c, test::Values(x), &oshape);
      auto y = test::Run("Pooling", {x}, PoolParams(c));
      ASSERT_EQ(y.size(), 1u);
      ASSERT_EQ(y[0].shape(), oshape) << c.type << " data " << c.data;
      EXPECT_EQ(y[0].dtype(), dt);
      std::vector<double> got = test::Values(y[0]);
      const double tol = dt == DType::kFloat32 ? 1e-6 : 1e-14;
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i])))
            << c.type << " data " << c.data << " kernel " << Tuple(c.kernel) << " index " << i;
    }
  }
}

TEST(NNPool, GradientMatchesNumeric) {
  for (const PoolCase& c : Cases()) {
    NDArray x = test::RandomArray(c.data, DType::kFloat64, -1, 1, 12);
    std::string where;
    const double err = test::GradientError("Pooling", {x}, PoolParams(c), {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << c.type << " data " << c.data << ": " << where;
  }
}

TEST(NNPool, FullConventionRoundsUp) {
  // The VGG-reduced SSD file's pool3: 2x2 / 2 max pool, 75 -> 38 with full,
  // 37 with valid; a 3x3 / 2 window gives 37 either way (72 / 2 is exact).
  NDArray x = test::RandomArray({1, 2, 75, 75}, DType::kFloat32, 0, 1, 1);
  StringMap p = {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pooling_convention", "full"}};
  EXPECT_EQ(test::Run("Pooling", {x}, p)[0].shape(), Shape({1, 2, 38, 38}));
  p["pooling_convention"] = "valid";
  EXPECT_EQ(test::Run("Pooling", {x}, p)[0].shape(), Shape({1, 2, 37, 37}));
  p["kernel"] = "(3,3)";
  p["pooling_convention"] = "full";
  EXPECT_EQ(test::Run("Pooling", {x}, p)[0].shape(), Shape({1, 2, 37, 37}));
  p["pad"] = "(1,1)";
  EXPECT_EQ(test::Run("Pooling", {x}, p)[0].shape(), Shape({1, 2, 38, 38}));
}

TEST(NNPool, MaxGradientGoesToFirstMaximum) {
  NDArray x = test::Array({1, 1, 2, 2}, {1, 5, 5, 2}, DType::kFloat64);
  NDArray dy = test::Array({1, 1, 1, 1}, {3}, DType::kFloat64);
  auto dx = test::Run("_backward_Pooling", {dy, x}, {{"kernel", "(2,2)"}});
  EXPECT_EQ(test::Values(dx[0]), (std::vector<double>{0, 3, 0, 0}));
}

// Max-pooling backward by its definition: each window's gradient goes to its
// first element, replaced only by a strictly greater one in row-major order
// (so the first maximum among ties, and a NaN only when it comes first).
std::vector<double> NaiveMaxBackward(const PoolCase& c, const std::vector<double>& x,
                                     const std::vector<double>& dy, const Shape& oshape) {
  const int64_t P = c.data[0] * c.data[1], H = c.data[2], W = c.data[3];
  const int64_t OH = oshape[2], OW = oshape[3];
  std::vector<double> dx(x.size(), 0.0);
  for (int64_t p = 0; p < P; ++p)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        const int64_t ys = oy * c.stride[0] - c.pad[0], xs = ox * c.stride[1] - c.pad[1];
        int64_t best = -1;
        for (int64_t iy = std::max<int64_t>(ys, 0); iy < std::min(ys + c.kernel[0], H); ++iy)
          for (int64_t ix = std::max<int64_t>(xs, 0); ix < std::min(xs + c.kernel[1], W); ++ix) {
            const int64_t i = (p * H + iy) * W + ix;
            if (best < 0 || x[i] > x[best]) best = i;
          }
        if (best >= 0) dx[best] += dy[(p * OH + oy) * OW + ox];
      }
  return dx;
}

TEST(NNPool, MaxGradientTiesAndNaNOnWidePlanes) {
  // Planes wide enough for the vectorised 3-wide stride-2 path (and a 2-wide
  // one for the generic rows), values from {0, 1, 2} so most windows tie,
  // and a few NaNs: the gradient must land where the definition puts it.
  const std::vector<PoolCase> cases = {
      {{2, 3, 23, 37}, "max", {3, 3}, {2, 2}, {1, 1}, ""},
      {{1, 2, 24, 40}, "max", {3, 3}, {2, 2}, {0, 0}, ""},
      {{1, 2, 21, 36}, "max", {3, 3}, {2, 2}, {1, 1}, "full"},
      {{1, 2, 20, 33}, "max", {2, 3}, {1, 2}, {0, 1}, ""},
      {{1, 2, 18, 35}, "max", {2, 2}, {2, 2}, {0, 0}, ""},
  };
  for (const PoolCase& c : cases) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      std::vector<double> xv = test::Values(test::RandomArray(c.data, DType::kFloat64, 0, 3, 21));
      for (size_t i = 0; i < xv.size(); ++i)
        xv[i] = i % 97 == 5 ? std::numeric_limits<double>::quiet_NaN() : std::floor(xv[i]);
      NDArray x = test::Array(c.data, xv, dt);
      Shape oshape;
      NaivePool(c, xv, &oshape);
      NDArray dy = test::RandomArray(oshape, dt, -1, 1, 22);
      const std::vector<double> want = NaiveMaxBackward(c, xv, test::Values(dy), oshape);
      auto dx = test::Run("_backward_Pooling", {dy, x}, PoolParams(c));
      ASSERT_EQ(dx.size(), 1u);
      const std::vector<double> got = test::Values(dx[0]);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-5) << "data " << c.data << " kernel " << Tuple(c.kernel)
                                           << " pad " << Tuple(c.pad) << " index " << i;
    }
  }
}

TEST(NNPool, MaxGradient3x3Stride2Shapes) {
  // The 3-wide stride-2 backward path (window codes, split rows) over the
  // shapes where its bookkeeping changes: odd and even widths, pad 0/1/2,
  // planes far wider than a block, too narrow for any interior window,
  // window heights 1-3 and row strides 1-3, the full convention (partial
  // last windows), 1-D; req kAdd as well as kWrite; ties and NaNs.
  const std::vector<PoolCase> cases = {
      {{1, 64, 112, 112}, "max", {3, 3}, {2, 2}, {1, 1}, ""},
      {{2, 3, 17, 29}, "max", {3, 3}, {2, 2}, {1, 1}, ""},
      {{1, 2, 16, 30}, "max", {3, 3}, {2, 2}, {0, 0}, ""},
      {{1, 2, 15, 31}, "max", {3, 3}, {2, 2}, {0, 0}, "full"},
      {{1, 2, 14, 30}, "max", {3, 3}, {2, 2}, {1, 1}, "full"},
      {{1, 2, 13, 203}, "max", {3, 3}, {2, 2}, {2, 2}, ""},
      {{1, 2, 12, 202}, "max", {3, 3}, {2, 2}, {2, 2}, "full"},
      {{1, 2, 5, 3}, "max", {3, 3}, {2, 2}, {1, 1}, ""},
      {{1, 2, 4, 4}, "max", {3, 3}, {2, 2}, {1, 1}, "full"},
      {{1, 2, 3, 5}, "max", {3, 3}, {2, 2}, {0, 0}, ""},
      {{1, 2, 9, 41}, "max", {3, 3}, {1, 2}, {1, 1}, ""},
      {{1, 2, 10, 40}, "max", {2, 3}, {2, 2}, {0, 1}, ""},
      {{1, 2, 11, 39}, "max", {1, 3}, {3, 2}, {0, 1}, ""},
      {{1, 2, 12, 38}, "max", {3, 3}, {3, 2}, {1, 0}, "full"},
      {{1, 2, 12, 38}, "max", {4, 3}, {2, 2}, {1, 1}, ""},
  };
  // 1-D data as 2-D planes of height 1 for NaiveMaxBackward.
  const std::vector<PoolCase> cases1d = {
      {{2, 3, 45}, "max", {3}, {2}, {1}, ""},
      {{2, 3, 44}, "max", {3}, {2}, {0}, "full"},
  };
  auto check = [](const PoolCase& c, const PoolCase& c2d, DType dt, bool add) {
    std::vector<double> xv = test::Values(test::RandomArray(c.data, DType::kFloat64, 0, 5, 31));
    for (size_t i = 0; i < xv.size(); ++i)
      xv[i] = i % 89 == 7 ? std::numeric_limits<double>::quiet_NaN() : std::floor(xv[i]);
    NDArray x = test::Array(c.data, xv, dt);
    Shape oshape, oshape2d;
    NaivePool(c, xv, &oshape);
    NaivePool(c2d, xv, &oshape2d);
    NDArray dy = test::RandomArray(oshape, dt, -1, 1, 32);
    std::vector<double> want = NaiveMaxBackward(c2d, xv, test::Values(dy), oshape2d);
    std::vector<NDArray> dx;
    if (add) {
      NDArray init = test::RandomArray(c.data, dt, -1, 1, 33);
      const std::vector<double> iv = test::Values(init);
      for (size_t i = 0; i < want.size(); ++i) want[i] += iv[i];
      dx = {init};
      InvokeOptions opts;
      opts.reqs = {OpReq::kAdd};
      Invoke(&Runtime::Global(), "_backward_Pooling", {dy, x}, PoolParams(c), &dx, opts);
    } else {
      dx = test::Run("_backward_Pooling", {dy, x}, PoolParams(c));
    }
    ASSERT_EQ(dx.size(), 1u);
    const std::vector<double> got = test::Values(dx[0]);
    ASSERT_EQ(got.size(), want.size());
    const double tol = dt == DType::kFloat32 ? 1e-5 : 1e-12;
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], tol)
          << "data " << c.data << " kernel " << Tuple(c.kernel) << " stride " << Tuple(c.stride)
          << " pad " << Tuple(c.pad) << " " << c.convention << (add ? " kAdd" : "") << " index "
          << i;
  };
  for (DType dt : {DType::kFloat32, DType::kFloat64})
    for (bool add : {false, true}) {
      for (const PoolCase& c : cases) check(c, c, dt, add);
      for (const PoolCase& c : cases1d) {
        PoolCase c2d = c;
        c2d.data = Shape({c.data[0], c.data[1], 1, c.data[2]});
        c2d.kernel = {1, c.kernel[0]};
        c2d.stride = {1, c.stride[0]};
        c2d.pad = {0, c.pad[0]};
        check(c, c2d, dt, add);
      }
    }
}

TEST(NNPool, Rejects) {
  auto expect_error = [](const NDArray& x, const StringMap& p, StatusCode code,
                         const std::string& needle) {
    try {
      test::Run("Pooling", {x}, p);
      FAIL() << "expected an error mentioning " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("Pooling"), std::string::npos) << e.what();
    }
  };
  NDArray x = test::RandomArray({1, 2, 5, 5}, DType::kFloat32, 0, 1, 1);
  expect_error(x, {{"kernel", "(7,7)"}}, StatusCode::kShape, "exceeds");
  expect_error(x, {{"kernel", "(3,)"}}, StatusCode::kShape, "'data'");
  expect_error(x, {{"kernel", "(3,3)"}, {"stride", "(0,1)"}}, StatusCode::kInvalidArgument,
               "'stride'");
  expect_error(x, {{"kernel", "(3,3)"}, {"pool_type", "median"}}, StatusCode::kInvalidArgument,
               "pool_type");
  expect_error(x, {{"kernel", "(3,3)"}, {"pool_type", "lp"}}, StatusCode::kNotImplemented, "lp");
  expect_error(x, {}, StatusCode::kInvalidArgument, "kernel");
  expect_error(test::RandomArray({2, 5}, DType::kFloat32, 0, 1, 1), {{"global_pool", "True"}},
               StatusCode::kShape, "rank");
}

TEST(NNPoolRef, MatchesPyTorch) {
  for (const char* stem :
       {"Pooling_max_3x3_s2", "Pooling_max_full_pad", "Pooling_max_full_even",
        "Pooling_avg_pad_include", "Pooling_avg_pad_exclude", "Pooling_avg_full", "Pooling_sum_pad",
        "Pooling_global_avg", "Pooling_global_max", "Pooling_max1d", "Pooling_avg1d_exclude"})
    EXPECT_TRUE(test::CheckOpRef(stem));
}

}  // namespace
}  // namespace weft
