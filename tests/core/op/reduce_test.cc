#include <gtest/gtest.h>

#include <cmath>

#include "util/test_util.h"

namespace weft {
namespace {

// Sum (or mean) of `x` (shape `s`) over the axes flagged in `reduced`, laid
// out row-major over the kept axes: a naive multi-index loop.
std::vector<double> NaiveReduce(const Shape& s, const std::vector<double>& x,
                                const std::vector<bool>& reduced, bool mean) {
  int64_t out_size = 1, count = 1;
  for (int d = 0; d < s.ndim(); ++d) (reduced[d] ? count : out_size) *= s[d];
  std::vector<double> out(out_size, 0.0);
  for (int64_t flat = 0; flat < s.Size(); ++flat) {
    int64_t rem = flat, o = 0, mult = 1;
    for (int d = s.ndim() - 1; d >= 0; --d) {
      const int64_t i = rem % s[d];
      rem /= s[d];
      if (!reduced[d]) {
        o += i * mult;
        mult *= s[d];
      }
    }
    out[o] += x[flat];
  }
  if (mean)
    for (auto& v : out) v /= static_cast<double>(count);
  return out;
}

struct Case {
  Shape in;
  StringMap params;
  std::vector<bool> reduced;
  Shape out;
};

std::vector<Case> Cases() {
  return {
      {{2, 3, 4}, {}, {true, true, true}, {1}},
      {{2, 3, 4}, {{"axis", "None"}}, {true, true, true}, {1}},
      {{2, 3, 4}, {{"axis", "()"}}, {true, true, true}, {1}},
      {{2, 3, 4}, {{"keepdims", "True"}}, {true, true, true}, {1, 1, 1}},
      {{2, 3, 4}, {{"axis", "1"}}, {false, true, false}, {2, 4}},
      {{2, 3, 4}, {{"axis", "1"}, {"keepdims", "True"}}, {false, true, false}, {2, 1, 4}},
      {{2, 3, 4}, {{"axis", "(0, 2)"}}, {true, false, true}, {3}},
      {{2, 3, 4}, {{"axis", "1"}, {"exclude", "True"}}, {true, false, true}, {3}},
      {{2, 3, 4},
       {{"axis", "1"}, {"exclude", "True"}, {"keepdims", "True"}},
       {true, false, true},
       {1, 3, 1}},
      {{2, 3, 4}, {{"axis", "(0, 2)"}, {"exclude", "True"}}, {false, true, false}, {2, 4}},
      {{2, 3, 4}, {{"axis", "(2, 0)"}, {"exclude", "True"}}, {false, true, false}, {2, 4}},
      {{2, 3, 4}, {{"axis", "-1"}}, {false, false, true}, {2, 3}},
      {{2, 3, 4}, {{"axis", "(-1, 0)"}}, {true, false, true}, {3}},
      {{2, 3, 4}, {{"axis", "(0, 1, 2)"}, {"exclude", "True"}}, {false, false, false}, {2, 3, 4}},
      {{2, 1, 3}, {{"axis", "1"}}, {false, true, false}, {2, 3}},
      {{2, 1, 3}, {{"axis", "0"}}, {true, false, false}, {1, 3}},
      {{5}, {{"axis", "0"}}, {true}, {1}},
      {{3, 2, 4, 5}, {{"axis", "(1, 3)"}}, {false, true, false, true}, {3, 4}},
      {{3, 2, 4, 5}, {{"axis", "(0, 2)"}}, {true, false, true, false}, {2, 5}},
      // Big enough for the threaded paths.
      {{64, 300, 5}, {{"axis", "1"}}, {false, true, false}, {64, 5}},
      {{300, 200}, {{"axis", "0"}}, {true, false}, {200}},
      {{300, 200}, {{"axis", "1"}}, {false, true}, {300}},
      {{40, 30, 50}, {{"axis", "(0, 2)"}}, {true, false, true}, {30}},
  };
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << what << " at " << i;
}

TEST(Reduce, SumAndMeanMatchNaiveLoops) {
  for (const char* op : {"sum", "mean"}) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      for (const Case& c : Cases()) {
        NDArray x = test::RandomArray(c.in, dt, -1, 1, 3);
        auto y = test::Run(op, {x}, c.params);
        std::string what = StrCat(op, " ", DTypeName(dt), " in ", c.in, " axis ",
                                  c.params.count("axis") ? c.params.at("axis") : "-");
        ASSERT_EQ(y[0].shape(), c.out) << what;
        EXPECT_EQ(y[0].dtype(), dt);
        std::vector<double> want =
            NaiveReduce(c.in, test::Values(x), c.reduced, std::string(op) == "mean");
        ExpectNear(test::Values(y[0]), want, dt == DType::kFloat32 ? 1e-5 : 1e-12, what);
      }
    }
  }
}

TEST(Reduce, ClosedFormValues) {
  NDArray x = test::Array({2, 3}, {1, 2, 3, 4, 5, 6}, DType::kFloat64);
  EXPECT_EQ(test::Values(test::Run("sum", {x})[0]), (std::vector<double>{21}));
  EXPECT_EQ(test::Values(test::Run("sum_axis", {x}, {{"axis", "0"}})[0]),
            (std::vector<double>{5, 7, 9}));
  EXPECT_EQ(test::Values(test::Run("sum", {x}, {{"axis", "1"}})[0]), (std::vector<double>{6, 15}));
  EXPECT_EQ(test::Values(test::Run("mean", {x}, {{"axis", "1"}})[0]), (std::vector<double>{2, 5}));
  EXPECT_EQ(test::Values(test::Run("mean", {x})[0]), (std::vector<double>{3.5}));
}

TEST(Reduce, AddRequestAccumulates) {
  NDArray x = test::Array({2, 3}, {1, 2, 3, 4, 5, 6}, DType::kFloat32);
  std::vector<NDArray> out = {test::Array({3}, {10, 20, 30}, DType::kFloat32)};
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd};
  Invoke(&Runtime::Global(), "sum", {x}, {{"axis", "0"}}, &out, opts);
  EXPECT_EQ(test::Values(out[0]), (std::vector<double>{15, 27, 39}));
}

TEST(Reduce, RejectsBadAxes) {
  NDArray x = test::RandomArray({2, 3, 4}, DType::kFloat32, 0, 1, 1);
  for (const char* op : {"sum", "mean"}) {
    test::ExpectOpError(op, {x}, {{"axis", "3"}}, StatusCode::kInvalidArgument,
                        {op, "axis 3", "ndim 3"});
    test::ExpectOpError(op, {x}, {{"axis", "-4"}}, StatusCode::kInvalidArgument,
                        {op, "axis -4", "ndim 3"});
    test::ExpectOpError(op, {x}, {{"axis", "(0, 5)"}, {"exclude", "True"}},
                        StatusCode::kInvalidArgument, {"axis 5"});
    test::ExpectOpError(op, {x}, {{"axis", "(1, -2)"}}, StatusCode::kInvalidArgument,
                        {op, "twice"});
    test::ExpectOpError(op, {x}, {{"keepdims", "maybe"}}, StatusCode::kInvalidArgument,
                        {"keepdims"});
  }
}

// sum and the other reductions run on integers (int_dtype_test.cc); norm
// does not, as in MXNet.
TEST(Reduce, RejectsIntegerDtype) {
  test::ExpectOpError("norm", {test::Array({2}, {1, 2}, DType::kInt32)}, {}, StatusCode::kDType,
                      {"norm", "int32"});
}

TEST(Reduce, BackwardShapesAndValues) {
  // _backward_mean spreads ograd / count over the reduced axis.
  NDArray og = test::Array({2}, {3, 6}, DType::kFloat64);
  NDArray x = test::Array({2, 3}, {0, 0, 0, 0, 0, 0}, DType::kFloat64);
  auto dx = test::Run("_backward_mean", {og, x}, {{"axis", "1"}});
  EXPECT_EQ(dx[0].shape(), Shape({2, 3}));
  EXPECT_EQ(test::Values(dx[0]), (std::vector<double>{1, 1, 1, 2, 2, 2}));
  auto ds = test::Run("_backward_sum", {test::Array({3}, {1, 2, 3}, DType::kFloat64), x},
                      {{"axis", "0"}});
  EXPECT_EQ(test::Values(ds[0]), (std::vector<double>{1, 2, 3, 1, 2, 3}));
  // ograd with the wrong shape is a shape error.
  try {
    test::Run("_backward_sum", {test::Array({2}, {1, 2}, DType::kFloat64), x}, {{"axis", "0"}});
    FAIL() << "expected a shape error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kShape) << e.what();
    EXPECT_NE(std::string(e.what()).find("ograd"), std::string::npos) << e.what();
  }
}

TEST(Reduce, GradientsMatchNumeric) {
  NDArray x = test::RandomArray({2, 3, 4}, DType::kFloat64, -1, 1, 11);
  const std::vector<StringMap> params = {
      {},
      {{"axis", "1"}},
      {{"axis", "(0, -1)"}, {"keepdims", "True"}},
      {{"axis", "1"}, {"exclude", "True"}},
      {{"axis", "2"}, {"exclude", "True"}, {"keepdims", "True"}},
  };
  for (const char* op : {"sum", "mean"}) {
    for (const auto& p : params) {
      std::string where;
      double err = test::GradientError(op, {x}, p, {}, 1e-6, &where);
      EXPECT_LT(err, 1e-6) << op << " " << where;
    }
  }
}

}  // namespace
}  // namespace weft
