// Tests of the array-with-scalar ops (core/src/op/elemwise_scalar.cc and
// kernels/cpu/elemwise_scalar.cc): closed forms, aliases, the scalar
// parameter's default and errors, in place, req=add and gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "util/test_util.h"

namespace weft {
namespace {

struct ScalarCase {
  const char* op;
  const char* alias;
  std::function<double(double, double)> f;  // (x, scalar)
};

std::vector<ScalarCase> Cases() {
  return {{"_plus_scalar", "_PlusScalar", [](double x, double s) { return x + s; }},
          {"_minus_scalar", "_MinusScalar", [](double x, double s) { return x - s; }},
          {"_rminus_scalar", "_RMinusScalar", [](double x, double s) { return s - x; }},
          {"_mul_scalar", "_MulScalar", [](double x, double s) { return x * s; }},
          {"_div_scalar", "_DivScalar", [](double x, double s) { return x / s; }},
          {"_rdiv_scalar", "_RDivScalar", [](double x, double s) { return s / x; }},
          {"_power_scalar", "_PowerScalar", [](double x, double s) { return std::pow(x, s); }}};
}

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, double tol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i])))
        << what << " element " << i;
}

std::vector<double> Apply(const ScalarCase& c, const NDArray& x, double s) {
  std::vector<double> y;
  for (double v : test::Values(x)) y.push_back(c.f(v, s));
  return y;
}

// Positive values (valid for every op, including power with any exponent).
NDArray Input(const Shape& shape, DType dt, unsigned seed) {
  return test::RandomArray(shape, dt, 0.5, 3, seed);
}

TEST(ElemwiseScalar, ForwardMatchesClosedForms) {
  for (const auto& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      for (double s : {2.5, -1.25}) {
        NDArray x = Input({3, 4}, dt, 1);
        auto y = test::Run(c.op, {x}, {{"scalar", StrCat(s)}});
        ASSERT_EQ(y.size(), 1u);
        EXPECT_EQ(y[0].shape(), Shape({3, 4}));
        EXPECT_EQ(y[0].dtype(), dt);
        ExpectClose(test::Values(y[0]), Apply(c, x, s), dt == DType::kFloat32 ? 1e-6 : 1e-14,
                    StrCat(c.op, " scalar=", s, " ", DTypeName(dt)));
      }
    }
  }
}

TEST(ElemwiseScalar, NegativeBaseWithIntegerPower) {
  auto y = test::Run("_power_scalar", {test::Array({3}, {-2, 3, -1}, DType::kFloat64)},
                     {{"scalar", "3"}});
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{-8, 27, -1}));
}

TEST(ElemwiseScalar, AliasesResolve) {
  const OpRegistry& ops = Runtime::Global().ops();
  for (const auto& c : Cases()) {
    EXPECT_EQ(ops.Find(c.alias), &ops.Get(c.op)) << c.alias;
    NDArray x = test::Array({2}, {1, 4});
    ExpectClose(test::Values(test::Run(c.alias, {x}, {{"scalar", "2"}})[0]), Apply(c, x, 2), 1e-6,
                c.alias);
  }
}

// MXNet 1.9's NumpyBinaryScalarParam: scalar defaults to 1.
TEST(ElemwiseScalar, ScalarDefaultsToOne) {
  NDArray x = test::Array({3}, {1.5, -2, 4});
  EXPECT_EQ(test::Values(test::Run("_plus_scalar", {x})[0]), (std::vector<double>{2.5, -1, 5}));
  EXPECT_EQ(test::Values(test::Run("_mul_scalar", {x})[0]), test::Values(x));
  EXPECT_EQ(test::Values(test::Run("_power_scalar", {x})[0]), test::Values(x));
}

TEST(ElemwiseScalar, InPlaceWritesIntoInput) {
  for (const auto& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      NDArray x = Input({5}, dt, 2);
      std::vector<double> want = Apply(c, x, 1.5);
      std::vector<NDArray> outs = {x};
      Invoke(&Runtime::Global(), c.op, {x}, {{"scalar", "1.5"}}, &outs);
      ExpectClose(test::Values(x), want, 1e-6, StrCat(c.op, " in place"));
    }
  }
}

TEST(ElemwiseScalar, ReqAddAccumulates) {
  for (const auto& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      NDArray x = Input({4}, dt, 3);
      NDArray acc = test::Array({4}, {1, 2, 3, 4}, dt);
      std::vector<double> want = Apply(c, x, 0.75);
      for (size_t i = 0; i < want.size(); ++i) want[i] += static_cast<double>(i + 1);
      std::vector<NDArray> outs = {acc};
      InvokeOptions opts;
      opts.reqs = {OpReq::kAdd};
      Invoke(&Runtime::Global(), c.op, {x}, {{"scalar", "0.75"}}, &outs, opts);
      ExpectClose(test::Values(acc), want, 1e-6, StrCat(c.op, " req=add"));
    }
  }
}

TEST(ElemwiseScalar, LargeArrayIsCorrect) {
  NDArray x = Input({90000}, DType::kFloat32, 4);
  const ScalarCase c = Cases()[5];  // _rdiv_scalar
  ExpectClose(test::Values(test::Run(c.op, {x}, {{"scalar", "3"}})[0]), Apply(c, x, 3), 1e-6, c.op);
}

TEST(ElemwiseScalar, GradientsMatchNumeric) {
  for (const auto& c : Cases()) {
    for (const char* s : {"2.5", "-1.5", "0.5"}) {
      std::string where;
      double err = test::GradientError(c.op, {Input({3, 4}, DType::kFloat64, 5)}, {{"scalar", s}},
                                       {}, 1e-6, &where);
      EXPECT_LT(err, 1e-6) << c.op << " scalar=" << s << ": " << where;
    }
  }
}

TEST(ElemwiseScalar, GradientOpsCarryTheScalar) {
  const Runtime& rt = Runtime::Global();
  for (const char* op : {"_mul_scalar", "_div_scalar", "_rdiv_scalar", "_power_scalar"}) {
    NodePtr x = MakeVariable("x");
    NodePtr n = MakeOpNode(rt.ops(), op, "n", {{x, 0, 0}}, {{"scalar", "4"}});
    auto g = n->op()->gradient(rt.ops(), n, {{MakeVariable("og"), 0, 0}});
    ASSERT_EQ(g.size(), 1u);
    EXPECT_EQ(g[0].node->attrs.params.GetFloat("scalar"), 4) << op;
    EXPECT_FALSE(g[0].node->op()->doc.empty()) << op;
  }
}

TEST(ElemwiseScalar, UnknownParameterNamesKeyAndOp) {
  try {
    test::Run("_plus_scalar", {test::Array({1}, {1})}, {{"scalr", "1"}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("'scalr'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("_plus_scalar"), std::string::npos) << e.what();
  }
}

TEST(ElemwiseScalar, BadScalarValueIsAnError) {
  try {
    test::Run("_mul_scalar", {test::Array({1}, {1})}, {{"scalar", "two"}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("'scalar'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("two"), std::string::npos) << e.what();
  }
}

// Integer data runs forward (tests/core/op/int_dtype_test.cc); the
// gradients are float only.
TEST(ElemwiseScalar, RejectsNonFloatDType) {
  try {
    const NDArray a = test::Array({2}, {1, 2}, DType::kInt64);
    test::Run("_backward_hypot_scalar", {a, a}, {{"scalar", "2"}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDType);
    EXPECT_NE(std::string(e.what()).find("_backward_hypot_scalar"), std::string::npos) << e.what();
  }
}

TEST(ElemwiseScalar, EveryOpHasDocParamDocAndCpuKernel) {
  const Runtime& rt = Runtime::Global();
  std::vector<std::string> names = {"_backward_rdiv_scalar", "_backward_power_scalar"};
  for (const auto& c : Cases()) names.push_back(c.op);
  for (const auto& name : names) {
    const OpDef& op = rt.ops().Get(name);
    EXPECT_FALSE(op.doc.empty()) << name;
    ASSERT_EQ(op.params.size(), 2u) << name;
    EXPECT_EQ(op.params[0].name, "scalar");
    EXPECT_EQ(op.params[1].name, "is_int");
    EXPECT_FALSE(op.params[0].doc.empty()) << name;
    const Kernel* k = rt.kernels().Find(name, DeviceType::kCPU);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_TRUE(k->supports_add) << name;
  }
}

}  // namespace
}  // namespace weft
