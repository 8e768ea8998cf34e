#include <gtest/gtest.h>

#include <cmath>

#include "util/test_util.h"

namespace weft {
namespace {

// op(A)[i, p] of a row-major matrix stored (rows x cols), transposed when t.
double At(const std::vector<double>& a, int64_t cols, bool t, int64_t i, int64_t p) {
  return t ? a[p * cols + i] : a[i * cols + p];
}

// Naive triple loop: (M x K) . (K x N) with the operands' storage
// (transposed when ta / tb), `batch` times over consecutive blocks.
std::vector<double> NaiveGemm(const std::vector<double>& a, const std::vector<double>& b, bool ta,
                              bool tb, int64_t batch, int64_t m, int64_t n, int64_t k) {
  std::vector<double> c(batch * m * n, 0.0);
  for (int64_t z = 0; z < batch; ++z) {
    std::vector<double> az(a.begin() + z * m * k, a.begin() + (z + 1) * m * k);
    std::vector<double> bz(b.begin() + z * k * n, b.begin() + (z + 1) * k * n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p)
          s += At(az, ta ? m : k, ta, i, p) * At(bz, tb ? k : n, tb, p, j);
        c[z * m * n + i * n + j] = s;
      }
  }
  return c;
}

StringMap Trans(bool ta, bool tb) {
  return {{"transpose_a", ta ? "True" : "False"}, {"transpose_b", tb ? "True" : "False"}};
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << what << " at " << i;
}

struct DotCase {
  Shape lhs, rhs;
  bool ta, tb;
  int64_t m, n, k;  // the 2-D view
  Shape out;
};

TEST(Dot, MatchesNaiveTripleLoop) {
  const std::vector<DotCase> cases = {
      {{3, 4}, {4, 5}, false, false, 3, 5, 4, {3, 5}},
      {{4, 3}, {4, 5}, true, false, 3, 5, 4, {3, 5}},
      {{3, 4}, {5, 4}, false, true, 3, 5, 4, {3, 5}},
      {{4, 3}, {5, 4}, true, true, 3, 5, 4, {3, 5}},
      {{1, 7}, {7, 1}, false, false, 1, 1, 7, {1, 1}},
      {{4}, {4, 5}, false, false, 1, 5, 4, {5}},
      {{3, 4}, {4}, false, false, 3, 1, 4, {3}},
      {{4}, {5, 4}, false, true, 1, 5, 4, {5}},
      {{2, 3, 4}, {4, 5}, false, false, 6, 5, 4, {2, 3, 5}},
      {{2, 3, 4}, {4, 2, 5}, false, false, 6, 10, 4, {2, 3, 2, 5}},
      // MXNet's N-D transposes: lhs (first, rest)^T, rhs (rest, last)^T.
      {{4, 2, 3}, {4, 5}, true, false, 6, 5, 4, {2, 3, 5}},
      {{2, 3, 4}, {5, 2, 4}, false, true, 6, 10, 4, {2, 3, 5, 2}},
      {{4, 2, 3}, {5, 2, 4}, true, true, 6, 10, 4, {2, 3, 5, 2}},
      // Large enough for the threaded reference loops.
      {{70, 80}, {80, 90}, false, false, 70, 90, 80, {70, 90}},
      {{80, 70}, {90, 80}, true, true, 70, 90, 80, {70, 90}},
  };
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    for (const auto& c : cases) {
      NDArray a = test::RandomArray(c.lhs, dt, -1, 1, 1);
      NDArray b = test::RandomArray(c.rhs, dt, -1, 1, 2);
      auto y = test::Run("dot", {a, b}, Trans(c.ta, c.tb));
      std::string what = StrCat(DTypeName(dt), " ", c.lhs, ".", c.rhs, " ta=", c.ta, " tb=", c.tb);
      ASSERT_EQ(y[0].shape(), c.out) << what;
      ExpectNear(test::Values(y[0]),
                 NaiveGemm(test::Values(a), test::Values(b), c.ta, c.tb, 1, c.m, c.n, c.k),
                 dt == DType::kFloat32 ? 1e-5 : 1e-12, what);
    }
  }
}

TEST(Dot, InnerProductOfVectors) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray a = test::Array({3}, {1, 2, 3}, dt), b = test::Array({3}, {4, -5, 6}, dt);
    auto y = test::Run("dot", {a, b});
    EXPECT_EQ(y[0].shape(), Shape({1}));
    EXPECT_EQ(test::Values(y[0]), (std::vector<double>{12}));
    // Transposes do not change a vector inner product.
    EXPECT_EQ(test::Values(test::Run("dot", {a, b}, Trans(true, true))[0]),
              (std::vector<double>{12}));
  }
}

TEST(Dot, AddRequestAccumulates) {
  NDArray a = test::Array({1, 2}, {1, 2}, DType::kFloat32);
  NDArray b = test::Array({2, 1}, {3, 4}, DType::kFloat32);
  std::vector<NDArray> out = {test::Array({1, 1}, {100}, DType::kFloat32)};
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd};
  Invoke(&Runtime::Global(), "dot", {a, b}, {}, &out, opts);
  EXPECT_EQ(test::Values(out[0]), (std::vector<double>{111}));
}

TEST(Dot, InfersShapesBothWays) {
  const OpDef& dot = Runtime::Global().ops().Get("dot");
  NodePtr n = MakeOpNode(Runtime::Global().ops(), "dot", "d",
                         {{MakeVariable("a")}, {MakeVariable("b")}}, Trans(false, true));
  // K filled into lhs from rhs; output from both.
  std::vector<Shape> in = {Shape({3, 0}), Shape({5, 4})}, out = {Shape()};
  EXPECT_TRUE(dot.infer_shape(n->attrs, &in, &out));
  EXPECT_EQ(in[0], Shape({3, 4}));
  EXPECT_EQ(out[0], Shape({3, 5}));
  // M and N filled from the output.
  in = {Shape({0, 4}), Shape({0, 4})};
  out = {Shape({3, 5})};
  EXPECT_TRUE(dot.infer_shape(n->attrs, &in, &out));
  EXPECT_EQ(in[0], Shape({3, 4}));
  EXPECT_EQ(in[1], Shape({5, 4}));
  // Unknown rank: nothing to infer yet.
  in = {Shape(), Shape({5, 4})};
  out = {Shape()};
  EXPECT_FALSE(dot.infer_shape(n->attrs, &in, &out));

  const OpDef& bd = Runtime::Global().ops().Get("batch_dot");
  NodePtr m = MakeOpNode(Runtime::Global().ops(), "batch_dot", "bd",
                         {{MakeVariable("a")}, {MakeVariable("b")}});
  in = {Shape({0, 3, 0}), Shape({2, 4, 0})};
  out = {Shape({0, 0, 5})};
  EXPECT_TRUE(bd.infer_shape(m->attrs, &in, &out));
  EXPECT_EQ(in[0], Shape({2, 3, 4}));
  EXPECT_EQ(in[1], Shape({2, 4, 5}));
  EXPECT_EQ(out[0], Shape({2, 3, 5}));
}

TEST(Dot, RejectsBadInputs) {
  auto r = [](Shape s, DType dt = DType::kFloat32) { return test::RandomArray(s, dt, 0, 1, 5); };
  test::ExpectOpError("dot", {r({3, 4}), r({5, 6})}, {}, StatusCode::kShape,
                      {"dot", "(3,4)", "(5,6)", "extent 4"});
  test::ExpectOpError("dot", {r({3, 4}), r({3, 5})}, Trans(false, true), StatusCode::kShape,
                      {"dot", "transpose_b=True"});
  test::ExpectOpError("dot", {r({3}), r({4})}, {}, StatusCode::kShape, {"dot"});
  test::ExpectOpError("dot", {r({3, 4}), r({4, 5}, DType::kFloat64)}, {}, StatusCode::kDType,
                      {"dot", "rhs"});
  test::ExpectOpError("dot", {r({2, 2}, DType::kInt32), r({2, 2}, DType::kInt32)}, {},
                      StatusCode::kDType, {"dot", "int32"});
  test::ExpectOpError("dot", {r({2, 2}), r({2, 2})}, {{"forward_stype", "csr"}},
                      StatusCode::kNotImplemented, {"dot", "csr"});
  test::ExpectOpError("dot", {r({2, 2}), r({2, 2})}, {{"transpose_c", "True"}},
                      StatusCode::kInvalidArgument, {"dot", "transpose_c"});
  test::ExpectOpError("batch_dot", {r({3, 4}), r({4, 5})}, {}, StatusCode::kShape,
                      {"batch_dot", "rank"});
  test::ExpectOpError("batch_dot", {r({2, 3, 4}), r({3, 4, 5})}, {}, StatusCode::kShape,
                      {"batch_dot", "extent 2"});
  test::ExpectOpError("batch_dot", {r({2, 3, 4}), r({2, 5, 5})}, {}, StatusCode::kShape,
                      {"batch_dot"});
}

TEST(BatchDot, MatchesNaiveLoops) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        const int64_t B = 3, M = 4, K = 5, N = 2;
        Shape ls = ta ? Shape({B, K, M}) : Shape({B, M, K});
        Shape rs = tb ? Shape({B, N, K}) : Shape({B, K, N});
        NDArray a = test::RandomArray(ls, dt, -1, 1, 8), b = test::RandomArray(rs, dt, -1, 1, 9);
        auto y = test::Run("batch_dot", {a, b}, Trans(ta, tb));
        ASSERT_EQ(y[0].shape(), Shape({B, M, N}));
        ExpectNear(test::Values(y[0]),
                   NaiveGemm(test::Values(a), test::Values(b), ta, tb, B, M, N, K),
                   dt == DType::kFloat32 ? 1e-5 : 1e-12, StrCat("ta=", ta, " tb=", tb));
      }
    }
  }
  // Several batch axes.
  NDArray a = test::RandomArray({2, 2, 3, 4}, DType::kFloat64, -1, 1, 1);
  NDArray b = test::RandomArray({2, 2, 4, 5}, DType::kFloat64, -1, 1, 2);
  auto y = test::Run("batch_dot", {a, b});
  ASSERT_EQ(y[0].shape(), Shape({2, 2, 3, 5}));
  ExpectNear(test::Values(y[0]),
             NaiveGemm(test::Values(a), test::Values(b), false, false, 4, 3, 5, 4), 1e-12, "4-D");
}

TEST(Dot, GradientsMatchNumeric) {
  struct G {
    Shape lhs, rhs;
    bool ta, tb;
  };
  const std::vector<G> cases = {
      {{3, 4}, {4, 2}, false, false},     {{4, 3}, {4, 2}, true, false},
      {{3, 4}, {2, 4}, false, true},      {{4, 3}, {2, 4}, true, true},
      {{5}, {5}, false, false},           {{4}, {4, 3}, false, false},
      {{3, 4}, {4}, false, false},        {{2, 3, 4}, {4, 2}, false, false},
      {{4, 2, 3}, {2, 3, 4}, true, true},
  };
  for (const auto& c : cases) {
    NDArray a = test::RandomArray(c.lhs, DType::kFloat64, -1, 1, 21);
    NDArray b = test::RandomArray(c.rhs, DType::kFloat64, -1, 1, 22);
    std::string where;
    double err = test::GradientError("dot", {a, b}, Trans(c.ta, c.tb), {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << c.lhs << "." << c.rhs << " ta=" << c.ta << " tb=" << c.tb << ": "
                         << where;
  }
}

TEST(BatchDot, GradientsMatchNumeric) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      Shape ls = ta ? Shape({2, 4, 3}) : Shape({2, 3, 4});
      Shape rs = tb ? Shape({2, 2, 4}) : Shape({2, 4, 2});
      NDArray a = test::RandomArray(ls, DType::kFloat64, -1, 1, 31);
      NDArray b = test::RandomArray(rs, DType::kFloat64, -1, 1, 32);
      std::string where;
      double err = test::GradientError("batch_dot", {a, b}, Trans(ta, tb), {}, 1e-6, &where);
      EXPECT_LT(err, 1e-6) << "ta=" << ta << " tb=" << tb << ": " << where;
    }
  }
}

}  // namespace
}  // namespace weft
