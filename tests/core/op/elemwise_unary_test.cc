// Tests of the unary elementwise ops (core/src/op/elemwise_unary.cc and
// kernels/cpu/elemwise_unary.cc): closed forms, in place, req=add,
// gradients by finite differences, and error paths.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "util/test_util.h"

namespace weft {
namespace {

struct UnaryCase {
  const char* op;
  std::function<double(double)> f;
  double lo, hi;  // input range for the forward check
};

std::vector<UnaryCase> Cases() {
  return {
      {"relu", [](double x) { return x > 0 ? x : 0; }, -3, 3},
      {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -5, 5},
      {"tanh", [](double x) { return std::tanh(x); }, -3, 3},
      {"exp", [](double x) { return std::exp(x); }, -3, 3},
      {"log", [](double x) { return std::log(x); }, 0.1, 5},
      {"sqrt", [](double x) { return std::sqrt(x); }, 0.1, 5},
      {"square", [](double x) { return x * x; }, -3, 3},
      {"abs", [](double x) { return std::fabs(x); }, -3, 3},
      {"negative", [](double x) { return -x; }, -3, 3},
  };
}

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, double tol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i])))
        << what << " element " << i;
}

std::vector<double> Apply(const std::function<double(double)>& f, const std::vector<double>& x) {
  std::vector<double> y;
  for (double v : x) y.push_back(f(v));
  return y;
}

TEST(ElemwiseUnary, ForwardMatchesClosedForms) {
  for (const auto& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      NDArray x = test::RandomArray({3, 5}, dt, c.lo, c.hi, 11);
      auto y = test::Run(c.op, {x});
      ASSERT_EQ(y.size(), 1u);
      EXPECT_EQ(y[0].shape(), Shape({3, 5}));
      EXPECT_EQ(y[0].dtype(), dt);
      const double tol = dt == DType::kFloat32 ? 1e-6 : 1e-14;
      ExpectClose(test::Values(y[0]), Apply(c.f, test::Values(x)), tol,
                  std::string(c.op) + " " + DTypeName(dt));
    }
  }
}

TEST(ElemwiseUnary, ReluAndAbsAtSignBoundaries) {
  auto r = test::Run("relu", {test::Array({4}, {-1, 0, 2, -0.5})});
  EXPECT_EQ(test::Values(r[0]), (std::vector<double>{0, 0, 2, 0}));
  auto a = test::Run("abs", {test::Array({3}, {-1.5, 0, 2}, DType::kFloat64)});
  EXPECT_EQ(test::Values(a[0]), (std::vector<double>{1.5, 0, 2}));
}

TEST(ElemwiseUnary, ReluKeepsNaNAsMXNet) {
  const double nan = std::nan("");
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    auto y = test::Values(test::Run("relu", {test::Array({3}, {nan, -1, 2}, dt)})[0]);
    EXPECT_TRUE(std::isnan(y[0]));
    EXPECT_EQ(y[1], 0);
    EXPECT_EQ(y[2], 2);
    auto g = test::Values(test::Run(
        "_backward_relu", {test::Array({3}, {1, 1, 1}, dt), test::Array({3}, {nan, 0, 2}, dt)})[0]);
    EXPECT_TRUE(std::isnan(g[0]));
    EXPECT_EQ(g[1], 0);
    EXPECT_EQ(g[2], 1);
  }
}

TEST(ElemwiseUnary, LargeArrayRunsInParallelCorrectly) {
  NDArray x = test::RandomArray({70000}, DType::kFloat32, -2, 2, 3);
  auto y = test::Run("tanh", {x});
  ExpectClose(test::Values(y[0]), Apply([](double v) { return std::tanh(v); }, test::Values(x)),
              1e-6, "tanh");
}

TEST(ElemwiseUnary, InPlaceWritesIntoInput) {
  for (const auto& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      NDArray x = test::RandomArray({2, 4}, dt, c.lo, c.hi, 5);
      std::vector<double> want = Apply(c.f, test::Values(x));
      std::vector<NDArray> outs = {x};
      Invoke(&Runtime::Global(), c.op, {x}, {}, &outs);
      EXPECT_EQ(outs[0].dptr(), x.dptr());
      ExpectClose(test::Values(x), want, 1e-6, std::string(c.op) + " in place");
    }
  }
}

TEST(ElemwiseUnary, ReqAddAccumulates) {
  for (const auto& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      NDArray x = test::RandomArray({6}, dt, c.lo, c.hi, 8);
      NDArray acc = test::Array({6}, {1, 2, 3, 4, 5, 6}, dt);
      std::vector<double> want = Apply(c.f, test::Values(x));
      for (size_t i = 0; i < want.size(); ++i) want[i] += static_cast<double>(i + 1);
      std::vector<NDArray> outs = {acc};
      InvokeOptions opts;
      opts.reqs = {OpReq::kAdd};
      Invoke(&Runtime::Global(), c.op, {x}, {}, &outs, opts);
      ExpectClose(test::Values(acc), want, 1e-6, std::string(c.op) + " req=add");
    }
  }
}

TEST(ElemwiseUnary, ReqNullLeavesOutputUntouched) {
  NDArray x = test::Array({3}, {1, 2, 3});
  NDArray out = test::Array({3}, {7, 8, 9});
  std::vector<NDArray> outs = {out};
  InvokeOptions opts;
  opts.reqs = {OpReq::kNull};
  Invoke(&Runtime::Global(), "exp", {x}, {}, &outs, opts);
  EXPECT_EQ(test::Values(out), (std::vector<double>{7, 8, 9}));
}

// Inputs bounded away from each op's kinks and domain edges.
NDArray GradInput(const std::string& op) {
  if (op == "log" || op == "sqrt") return test::RandomArray({3, 4}, DType::kFloat64, 0.3, 3, 21);
  std::vector<double> v = test::Values(test::RandomArray({3, 4}, DType::kFloat64, 0.2, 2, 22));
  for (size_t i = 0; i < v.size(); i += 2) v[i] = -v[i];  // both signs, |x| >= 0.2
  return test::Array({3, 4}, v, DType::kFloat64);
}

TEST(ElemwiseUnary, GradientsMatchNumeric) {
  for (const auto& c : Cases()) {
    std::string where;
    double err = test::GradientError(c.op, {GradInput(c.op)}, {}, {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << c.op << ": " << where;
  }
}

TEST(ElemwiseUnary, GradientsReadOutputOrInputAsMXNet) {
  const Runtime& rt = Runtime::Global();
  struct Want {
    const char* op;
    const char* grad_op;
    bool uses_output;
  };
  for (const Want& w :
       {Want{"relu", "_backward_relu", true}, Want{"sigmoid", "_backward_sigmoid", true},
        Want{"tanh", "_backward_tanh", true}, Want{"sqrt", "_backward_sqrt", true},
        Want{"exp", "elemwise_mul", true}, Want{"log", "_backward_log", false},
        Want{"square", "_backward_square", false}, Want{"abs", "_backward_abs", false}}) {
    NodePtr x = MakeVariable("x");
    NodePtr n = MakeOpNode(rt.ops(), w.op, "n", {{x, 0, 0}});
    NodePtr og = MakeVariable("og");
    auto g = n->op()->gradient(rt.ops(), n, {{og, 0, 0}});
    ASSERT_EQ(g.size(), 1u);
    EXPECT_EQ(g[0].node->op()->name, w.grad_op) << w.op;
    ASSERT_EQ(g[0].node->inputs.size(), 2u) << w.op;
    EXPECT_EQ(g[0].node->inputs[0].node, og) << w.op;
    EXPECT_EQ(g[0].node->inputs[1].node, w.uses_output ? n : x) << w.op;
  }
  NodePtr x = MakeVariable("x");
  NodePtr n = MakeOpNode(rt.ops(), "negative", "n", {{x, 0, 0}});
  auto g = n->op()->gradient(rt.ops(), n, {{MakeVariable("og"), 0, 0}});
  EXPECT_EQ(g[0].node->op()->name, "negative");
}

TEST(ElemwiseUnary, ShapeAndTypeInferenceAreBidirectional) {
  const OpDef& op = Runtime::Global().ops().Get("sigmoid");
  NodeAttrs attrs;
  attrs.op = &op;
  std::vector<Shape> in = {Shape()}, out = {Shape({2, 3})};
  EXPECT_TRUE(op.infer_shape(attrs, &in, &out));
  EXPECT_EQ(in[0], Shape({2, 3}));
  std::vector<DType> tin = {DType::kUnknown}, tout = {DType::kFloat64};
  EXPECT_TRUE(op.infer_type(attrs, &tin, &tout));
  EXPECT_EQ(tin[0], DType::kFloat64);
  EXPECT_EQ(op.inplace(attrs.params), (std::vector<std::pair<int, int>>{{0, 0}}));
}

// The forward ops run on integers (tests/core/op/int_dtype_test.cc); their
// gradients do not.
TEST(ElemwiseUnary, RejectsNonFloatDType) {
  try {
    const NDArray a = test::Array({2}, {1, -1}, DType::kInt32);
    test::Run("_backward_relu", {a, a});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDType);
    EXPECT_NE(std::string(e.what()).find("relu"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos) << e.what();
  }
}

TEST(ElemwiseUnary, RejectsUnknownParameter) {
  try {
    test::Run("exp", {test::Array({1}, {1})}, {{"alpha", "1"}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("'alpha'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("exp"), std::string::npos) << e.what();
  }
}

TEST(ElemwiseUnary, EveryOpHasDocAndCpuKernel) {
  const Runtime& rt = Runtime::Global();
  for (const char* name :
       {"relu", "sigmoid", "tanh", "exp", "log", "sqrt", "square", "abs", "negative",
        "_backward_relu", "_backward_sigmoid", "_backward_tanh", "_backward_log", "_backward_sqrt",
        "_backward_square", "_backward_abs"}) {
    const OpDef& op = rt.ops().Get(name);
    EXPECT_FALSE(op.doc.empty()) << name;
    const Kernel* k = rt.kernels().Find(name, DeviceType::kCPU);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_TRUE(k->supports_add) << name;
  }
}

}  // namespace
}  // namespace weft
