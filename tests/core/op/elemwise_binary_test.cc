// Tests of the same-shape binary elementwise ops (core/src/op/
// elemwise_binary.cc and kernels/cpu/elemwise_binary.cc): closed forms,
// aliases, in place on either input, req=add, gradients, error paths.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "util/test_util.h"

namespace weft {
namespace {

struct BinaryCase {
  const char* op;
  std::vector<const char*> aliases;
  std::function<double(double, double)> f;
};

std::vector<BinaryCase> Cases() {
  return {{"elemwise_add", {"_plus", "_Plus", "_add"}, [](double a, double b) { return a + b; }},
          {"elemwise_sub", {"_minus", "_Minus", "_sub"}, [](double a, double b) { return a - b; }},
          {"elemwise_mul", {"_mul", "_Mul"}, [](double a, double b) { return a * b; }},
          {"elemwise_div", {"_div", "_Div"}, [](double a, double b) { return a / b; }}};
}

std::vector<double> Apply(const BinaryCase& c, const NDArray& a, const NDArray& b) {
  std::vector<double> x = test::Values(a), y = test::Values(b), z;
  for (size_t i = 0; i < x.size(); ++i) z.push_back(c.f(x[i], y[i]));
  return z;
}

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, double tol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i])))
        << what << " element " << i;
}

// rhs values bounded away from 0 (for div).
NDArray Rhs(const Shape& s, DType dt, unsigned seed) {
  std::vector<double> v = test::Values(test::RandomArray(s, DType::kFloat64, 0.5, 2, seed));
  for (size_t i = 1; i < v.size(); i += 3) v[i] = -v[i];
  return test::Array(s, v, dt);
}

TEST(ElemwiseBinary, ForwardMatchesClosedForms) {
  for (const auto& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      NDArray a = test::RandomArray({4, 3}, dt, -2, 2, 1);
      NDArray b = Rhs({4, 3}, dt, 2);
      auto y = test::Run(c.op, {a, b});
      ASSERT_EQ(y.size(), 1u);
      EXPECT_EQ(y[0].shape(), Shape({4, 3}));
      EXPECT_EQ(y[0].dtype(), dt);
      ExpectClose(test::Values(y[0]), Apply(c, a, b), dt == DType::kFloat32 ? 1e-6 : 1e-15, c.op);
    }
  }
}

TEST(ElemwiseBinary, AliasesResolveToTheSameOp) {
  const OpRegistry& ops = Runtime::Global().ops();
  for (const auto& c : Cases()) {
    for (const char* alias : c.aliases) {
      EXPECT_EQ(ops.Find(alias), &ops.Get(c.op)) << alias;
      auto y = test::Run(alias, {test::Array({2}, {6, 3}), test::Array({2}, {2, 3})});
      EXPECT_EQ(test::Values(y[0]), Apply(c, test::Array({2}, {6, 3}), test::Array({2}, {2, 3})))
          << alias;
    }
  }
}

TEST(ElemwiseBinary, LargeArraysAreCorrect) {
  NDArray a = test::RandomArray({100000}, DType::kFloat32, -1, 1, 4);
  NDArray b = test::RandomArray({100000}, DType::kFloat32, -1, 1, 5);
  for (const auto& c : Cases()) {
    if (std::string(c.op) == "elemwise_div") continue;
    ExpectClose(test::Values(test::Run(c.op, {a, b})[0]), Apply(c, a, b), 1e-6, c.op);
  }
}

TEST(ElemwiseBinary, InPlaceIntoEitherInput) {
  for (const auto& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      for (int target : {0, 1}) {
        NDArray a = test::RandomArray({3, 3}, dt, -2, 2, 6);
        NDArray b = Rhs({3, 3}, dt, 7);
        std::vector<double> want = Apply(c, a, b);
        std::vector<NDArray> outs = {target == 0 ? a : b};
        Invoke(&Runtime::Global(), c.op, {a, b}, {}, &outs);
        ExpectClose(test::Values(target == 0 ? a : b), want, 1e-6,
                    StrCat(c.op, " in place into input ", target));
      }
    }
  }
}

TEST(ElemwiseBinary, ReqAddAccumulates) {
  for (const auto& c : Cases()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      NDArray a = test::RandomArray({5}, dt, -2, 2, 9);
      NDArray b = Rhs({5}, dt, 10);
      NDArray acc = test::Array({5}, {1, -1, 2, -2, 3}, dt);
      std::vector<double> want = Apply(c, a, b);
      std::vector<double> base = test::Values(acc);
      for (size_t i = 0; i < want.size(); ++i) want[i] += base[i];
      std::vector<NDArray> outs = {acc};
      InvokeOptions opts;
      opts.reqs = {OpReq::kAdd};
      Invoke(&Runtime::Global(), c.op, {a, b}, {}, &outs, opts);
      ExpectClose(test::Values(acc), want, 1e-6, StrCat(c.op, " req=add"));
    }
  }
}

// The accumulation invoke.cc performs: elemwise_add with the output aliasing lhs.
TEST(ElemwiseBinary, AddAccumulatesIntoLhsLikeInvoke) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray dst = test::Array({2, 2}, {1, 2, 3, 4}, dt);
    NDArray src = test::Array({2, 2}, {10, 20, 30, 40}, dt);
    const Runtime& rt = Runtime::Global();
    const Kernel* k = rt.kernels().Find("elemwise_add", DeviceType::kCPU);
    ASSERT_NE(k, nullptr);
    NodeAttrs attrs;
    attrs.op = &rt.ops().Get("elemwise_add");
    attrs.params = ParseParams("elemwise_add", &attrs.op->params, {});
    k->fn(OpContext{}, attrs, {dst.blob(), src.blob()}, {OpReq::kWrite}, {dst.blob()});
    EXPECT_EQ(test::Values(dst), (std::vector<double>{11, 22, 33, 44}));
  }
}

TEST(ElemwiseBinary, GradientsMatchNumeric) {
  for (const auto& c : Cases()) {
    NDArray a = test::RandomArray({3, 4}, DType::kFloat64, -2, 2, 12);
    NDArray b = Rhs({3, 4}, DType::kFloat64, 13);
    std::string where;
    double err = test::GradientError(c.op, {a, b}, {}, {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << c.op << ": " << where;
  }
}

TEST(ElemwiseBinary, BackwardDivHonoursReqAdd) {
  NDArray g = test::Array({2}, {1, 2}, DType::kFloat64);
  NDArray l = test::Array({2}, {3, 4}, DType::kFloat64);
  NDArray r = test::Array({2}, {2, -4}, DType::kFloat64);
  NDArray dl = test::Array({2}, {1, 1}, DType::kFloat64);
  NDArray dr = test::Array({2}, {1, 1}, DType::kFloat64);
  std::vector<NDArray> outs = {dl, dr};
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd, OpReq::kWrite};
  Invoke(&Runtime::Global(), "_backward_div", {g, l, r}, {}, &outs, opts);
  EXPECT_EQ(test::Values(dl), (std::vector<double>{1 + 0.5, 1 - 0.5}));
  EXPECT_EQ(test::Values(dr), (std::vector<double>{-1 * 3.0 / 4, -2 * 4.0 / 16}));
}

TEST(ElemwiseBinary, ShapeInferenceFillsInputsFromOutput) {
  const OpDef& op = Runtime::Global().ops().Get("elemwise_mul");
  NodeAttrs attrs;
  attrs.op = &op;
  std::vector<Shape> in = {Shape(), Shape({2, 0})}, out = {Shape({2, 5})};
  EXPECT_TRUE(op.infer_shape(attrs, &in, &out));
  EXPECT_EQ(in[0], Shape({2, 5}));
  EXPECT_EQ(in[1], Shape({2, 5}));
  EXPECT_EQ(op.InputNames(attrs.params), (std::vector<std::string>{"lhs", "rhs"}));
  EXPECT_EQ(op.inplace(attrs.params), (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}}));
}

TEST(ElemwiseBinary, ShapeMismatchNamesOpAndShapes) {
  try {
    test::Run("elemwise_add",
              {test::Array({2, 3}, {1, 2, 3, 4, 5, 6}), test::Array({3, 2}, {1, 2, 3, 4, 5, 6})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_EQ(e.code(), StatusCode::kShape);
    EXPECT_NE(m.find("elemwise_add"), std::string::npos) << m;
    EXPECT_NE(m.find("(2,3)"), std::string::npos) << m;
    EXPECT_NE(m.find("(3,2)"), std::string::npos) << m;
    EXPECT_NE(m.find("rhs"), std::string::npos) << m;
  }
}

TEST(ElemwiseBinary, DTypeMismatchIsAnError) {
  try {
    test::Run("elemwise_mul", {test::Array({2}, {1, 2}, DType::kFloat32),
                               test::Array({2}, {1, 2}, DType::kFloat64)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_EQ(e.code(), StatusCode::kDType);
    EXPECT_NE(m.find("elemwise_mul"), std::string::npos) << m;
    EXPECT_NE(m.find("float32"), std::string::npos) << m;
    EXPECT_NE(m.find("float64"), std::string::npos) << m;
  }
}

TEST(ElemwiseBinary, EveryOpHasDocAndCpuKernel) {
  const Runtime& rt = Runtime::Global();
  for (const char* name :
       {"elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "_backward_div"}) {
    EXPECT_FALSE(rt.ops().Get(name).doc.empty()) << name;
    const Kernel* k = rt.kernels().Find(name, DeviceType::kCPU);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_TRUE(k->supports_add) << name;
  }
}

}  // namespace
}  // namespace weft
