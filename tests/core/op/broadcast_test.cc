// Tests of the broadcasting binary ops (core/src/op/broadcast.cc and
// kernels/cpu/broadcast.cc): forward against a naive index loop over many
// shape pairs, inference and its errors, in place, req=add, the internal
// reduce op, and gradients on genuinely broadcasting shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "util/test_util.h"

namespace weft {
namespace {

const Shape kScalar = Shape(std::vector<int64_t>{});

struct BroadcastCase {
  const char* op;
  std::function<double(double, double)> f;
};

std::vector<BroadcastCase> Cases() {
  return {{"broadcast_add", [](double a, double b) { return a + b; }},
          {"broadcast_sub", [](double a, double b) { return a - b; }},
          {"broadcast_mul", [](double a, double b) { return a * b; }},
          {"broadcast_div", [](double a, double b) { return a / b; }}};
}

// Offset in an array of shape `s` of the element at result index `idx`
// (result rank >= s rank; broadcast axes map to 0).
int64_t SourceOffset(const Shape& s, const std::vector<int64_t>& idx) {
  const int shift = static_cast<int>(idx.size()) - s.ndim();
  int64_t off = 0;
  for (int d = 0; d < s.ndim(); ++d) off = off * s[d] + (s[d] == 1 ? 0 : idx[d + shift]);
  return off;
}

std::vector<int64_t> Unravel(int64_t i, const Shape& s) {
  std::vector<int64_t> idx(s.ndim());
  for (int d = s.ndim() - 1; d >= 0; --d) {
    idx[d] = i % s[d];
    i /= s[d];
  }
  return idx;
}

std::vector<double> Naive(const BroadcastCase& c, const NDArray& a, const NDArray& b,
                          const Shape& out) {
  std::vector<double> x = test::Values(a), y = test::Values(b), z(out.Size());
  for (int64_t i = 0; i < out.Size(); ++i) {
    auto idx = Unravel(i, out);
    z[i] = c.f(x[SourceOffset(a.shape(), idx)], y[SourceOffset(b.shape(), idx)]);
  }
  return z;
}

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, double tol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i])))
        << what << " element " << i;
}

// Values in +-[0.5, 2) (safe divisors).
NDArray Input(const Shape& s, DType dt, unsigned seed) {
  std::vector<double> v = test::Values(test::RandomArray(s, DType::kFloat64, 0.5, 2, seed));
  for (size_t i = 1; i < v.size(); i += 3) v[i] = -v[i];
  return test::Array(s, v, dt);
}

struct ShapeCase {
  Shape lhs, rhs, out;
};

std::vector<ShapeCase> ValidShapes() {
  return {{{2, 3, 4}, {3, 1}, {2, 3, 4}},
          {{1, 4}, {2, 1}, {2, 4}},
          {{2, 3}, {3}, {2, 3}},
          {{3}, {2, 3}, {2, 3}},
          {{5}, kScalar, {5}},
          {kScalar, {2, 2}, {2, 2}},
          {{4, 1, 3}, {1, 5, 1}, {4, 5, 3}},
          {{2, 3}, {2, 3}, {2, 3}},
          {{3, 1}, {1}, {3, 1}},
          {{1, 1}, {1}, {1, 1}},
          {{2, 1, 3, 1}, {2, 1, 1}, {2, 2, 3, 1}},
          {{1, 3, 1}, {2, 1, 5}, {2, 3, 5}},
          {{300, 200}, {200}, {300, 200}},
          {{300, 200}, {300, 1}, {300, 200}},
          {{70000}, {1}, {70000}},
          {{7, 2, 9000}, {7, 1, 9000}, {7, 2, 9000}}};
}

TEST(Broadcast, ForwardMatchesNaiveLoop) {
  for (const auto& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      for (const auto& s : ValidShapes()) {
        NDArray a = Input(s.lhs, dt, 1), b = Input(s.rhs, dt, 2);
        auto y = test::Run(c.op, {a, b});
        std::string what = StrCat(c.op, " ", s.lhs, " ", s.rhs, " ", DTypeName(dt));
        ASSERT_EQ(y[0].shape(), s.out) << what;
        EXPECT_EQ(y[0].dtype(), dt);
        ExpectClose(test::Values(y[0]), Naive(c, a, b, s.out), dt == DType::kFloat32 ? 1e-6 : 1e-15,
                    what);
      }
    }
  }
}

TEST(Broadcast, AliasesResolve) {
  const OpRegistry& ops = Runtime::Global().ops();
  EXPECT_EQ(ops.Find("broadcast_plus"), &ops.Get("broadcast_add"));
  EXPECT_EQ(ops.Find("broadcast_minus"), &ops.Get("broadcast_sub"));
  auto y =
      test::Run("broadcast_minus", {test::Array({2, 1}, {10, 20}), test::Array({3}, {1, 2, 3})});
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{9, 8, 7, 19, 18, 17}));
}

void ExpectShapeError(const Shape& l, const Shape& r) {
  try {
    test::Run("broadcast_add", {Input(l, DType::kFloat32, 1), Input(r, DType::kFloat32, 2)});
    FAIL() << "expected an error for " << l << " and " << r;
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_EQ(e.code(), StatusCode::kShape) << m;
    EXPECT_NE(m.find("broadcast_add"), std::string::npos) << m;
    EXPECT_NE(m.find(l.ToString()), std::string::npos) << m;
    EXPECT_NE(m.find(r.ToString()), std::string::npos) << m;
  }
}

TEST(Broadcast, IncompatibleShapesNameOpAndBothShapes) {
  ExpectShapeError({2, 3}, {4});
  ExpectShapeError({2, 3, 4}, {3, 3});
  ExpectShapeError({5}, {2, 4});
  ExpectShapeError({2, 1}, {3, 1});
}

TEST(Broadcast, InferenceIsForwardOnly) {
  const OpDef& op = Runtime::Global().ops().Get("broadcast_mul");
  NodeAttrs attrs;
  attrs.op = &op;
  std::vector<Shape> in = {Shape({2, 3}), Shape()}, out = {Shape({2, 3})};
  EXPECT_FALSE(op.infer_shape(attrs, &in, &out));
  EXPECT_FALSE(in[1].ndim_known());
  in = {Shape({4, 1}), Shape({1, 5})};
  out = {Shape()};
  EXPECT_TRUE(op.infer_shape(attrs, &in, &out));
  EXPECT_EQ(out[0], Shape({4, 5}));
  in = {Shape({4, 1}), Shape({1, 5})};
  out = {Shape({4, 6})};
  try {
    op.infer_shape(attrs, &in, &out);
    FAIL() << "expected a conflict with the given output";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kShape);
    EXPECT_NE(std::string(e.what()).find("(4,5)"), std::string::npos) << e.what();
  }
}

TEST(Broadcast, DTypeMismatchIsAnError) {
  try {
    test::Run("broadcast_div", {Input({2, 2}, DType::kFloat32, 1), Input({2}, DType::kFloat64, 2)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDType);
    EXPECT_NE(std::string(e.what()).find("broadcast_div"), std::string::npos) << e.what();
  }
}

TEST(Broadcast, InPlaceIntoTheFullSizeInput) {
  for (const auto& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      NDArray big = Input({3, 4}, dt, 3), row = Input({4}, dt, 4);
      std::vector<double> want = Naive(c, big, row, {3, 4});
      std::vector<NDArray> outs = {big};
      Invoke(&Runtime::Global(), c.op, {big, row}, {}, &outs);  // out aliases lhs
      ExpectClose(test::Values(big), want, 1e-6, StrCat(c.op, " into lhs"));

      big = Input({3, 4}, dt, 5);
      NDArray col = Input({3, 1}, dt, 6);
      want = Naive(c, col, big, {3, 4});
      outs = {big};
      Invoke(&Runtime::Global(), c.op, {col, big}, {}, &outs);  // out aliases rhs
      ExpectClose(test::Values(big), want, 1e-6, StrCat(c.op, " into rhs"));
    }
  }
}

TEST(Broadcast, ReqAddAccumulates) {
  for (const auto& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      for (const auto& s :
           {ShapeCase{{2, 3, 4}, {3, 1}, {2, 3, 4}}, ShapeCase{{2, 2}, {2, 2}, {2, 2}}}) {
        NDArray a = Input(s.lhs, dt, 7), b = Input(s.rhs, dt, 8);
        NDArray acc = Input(s.out, dt, 9);
        std::vector<double> want = Naive(c, a, b, s.out), base = test::Values(acc);
        for (size_t i = 0; i < want.size(); ++i) want[i] += base[i];
        std::vector<NDArray> outs = {acc};
        InvokeOptions opts;
        opts.reqs = {OpReq::kAdd};
        Invoke(&Runtime::Global(), c.op, {a, b}, {}, &outs, opts);
        ExpectClose(test::Values(acc), want, 1e-6, StrCat(c.op, " req=add ", s.lhs));
      }
    }
  }
}

// Sums `g` (shape `big`) down to `like` the slow way.
std::vector<double> NaiveReduce(const NDArray& g, const Shape& like) {
  std::vector<double> v = test::Values(g), out(like.Size(), 0.0);
  for (int64_t i = 0; i < g.Size(); ++i) out[SourceOffset(like, Unravel(i, g.shape()))] += v[i];
  return out;
}

TEST(Broadcast, BackwardReduceSumsBroadcastAxes) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{2, 3, 4}, {3, 1}},    {{2, 3, 4}, {2, 3, 4}},    {{2, 3, 4}, {1, 4}},
      {{2, 3, 4}, kScalar},   {{2, 3, 4}, {2, 1, 4}},    {{2, 3, 4}, {2, 1, 1}},
      {{256, 3, 64}, {3, 1}}, {{256, 3, 64}, {64}},      {{256, 3, 64}, {256, 1, 64}},
      {{256, 3, 64}, {1}},    {{64, 700}, {64, 1}},      {{5, 1, 2}, {1, 1, 2}},
      {{50, 1500}, {1500}},   {{3, 2000, 2}, {2000, 1}}, {{40000}, {1}}};
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    for (const auto& p : cases) {
      NDArray g = test::RandomArray(p.first, dt, -1, 1, 10);
      NDArray like = test::RandomArray(p.second, dt, -1, 1, 11);
      auto r = test::Run("_broadcast_backward_reduce", {g, like});
      ASSERT_EQ(r[0].shape(), p.second);
      ExpectClose(test::Values(r[0]), NaiveReduce(g, p.second),
                  dt == DType::kFloat32 ? 1e-5 : 1e-12,
                  StrCat("reduce ", p.first, " to ", p.second));
    }
  }
}

TEST(Broadcast, BackwardReduceHonoursReqAdd) {
  NDArray g = test::Array({2, 3}, {1, 2, 3, 4, 5, 6}, DType::kFloat64);
  NDArray acc = test::Array({3}, {100, 200, 300}, DType::kFloat64);
  std::vector<NDArray> outs = {acc};
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd};
  Invoke(&Runtime::Global(), "_broadcast_backward_reduce", {g, acc}, {}, &outs, opts);
  EXPECT_EQ(test::Values(acc), (std::vector<double>{105, 207, 309}));
}

TEST(Broadcast, BackwardReduceRejectsNonBroadcastingLike) {
  try {
    test::Run("_broadcast_backward_reduce",
              {Input({2, 4}, DType::kFloat32, 1), Input({3}, DType::kFloat32, 2)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kShape);
    EXPECT_NE(std::string(e.what()).find("(3,)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(2,4)"), std::string::npos) << e.what();
  }
  try {  // like has a larger extent than the gradient
    test::Run("_broadcast_backward_reduce",
              {Input({1, 4}, DType::kFloat32, 1), Input({2, 4}, DType::kFloat32, 2)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kShape) << e.what();
  }
}

TEST(Broadcast, GradientsMatchNumericOnBroadcastingShapes) {
  const std::vector<std::pair<Shape, Shape>> shapes = {{{2, 3, 4}, {3, 1}}, {{1, 4}, {2, 1}},
                                                       {{3}, {2, 3}},       {{2, 3}, {2, 3}},
                                                       {kScalar, {2, 2}},   {{4, 1, 3}, {1, 2, 1}}};
  for (const auto& c : Cases()) {
    for (const auto& s : shapes) {
      NDArray a = Input(s.first, DType::kFloat64, 14), b = Input(s.second, DType::kFloat64, 15);
      std::string where;
      double err = test::GradientError(c.op, {a, b}, {}, {}, 1e-6, &where);
      EXPECT_LT(err, 1e-6) << c.op << " " << s.first << " " << s.second << ": " << where;
    }
  }
}

TEST(Broadcast, BackwardDivOutputsHaveInputShapes) {
  NDArray g = test::Array({2, 2}, {1, 1, 1, 1}, DType::kFloat64);
  NDArray l = test::Array({2, 1}, {2, 4}, DType::kFloat64);
  NDArray r = test::Array({2}, {1, 2}, DType::kFloat64);
  auto out = test::Run("_backward_broadcast_div", {g, l, r});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape(), Shape({2, 1}));
  EXPECT_EQ(out[1].shape(), Shape({2}));
  EXPECT_EQ(test::Values(out[0]), (std::vector<double>{1.5, 1.5}));      // sum_j 1/r_j
  EXPECT_EQ(test::Values(out[1]), (std::vector<double>{-6, -6.0 / 4}));  // -sum_i l_i / r_j^2
}

TEST(Broadcast, EveryOpHasDocAndCpuKernel) {
  const Runtime& rt = Runtime::Global();
  for (const char* name : {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div",
                           "_broadcast_backward_reduce", "_backward_broadcast_div"}) {
    EXPECT_FALSE(rt.ops().Get(name).doc.empty()) << name;
    const Kernel* k = rt.kernels().Find(name, DeviceType::kCPU);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_TRUE(k->supports_add) << name;
  }
}

}  // namespace
}  // namespace weft
