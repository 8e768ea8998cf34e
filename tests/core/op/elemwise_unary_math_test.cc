// Tests of the unary math ops (core/src/op/elemwise_unary_math.cc and
// kernels/cpu/elemwise_unary_math.cc): PyTorch reference files
// (scripts/gen_op_refs_elemwise.py), numeric gradients, closed forms at
// ties/NaN/poles as MXNet defines them, req=add and in place, registration.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const char* const kRefStems[] = {
    "rsqrt_basic",
    "cbrt_basic",
    "reciprocal_basic",
    "log1p_basic",
    "expm1_basic",
    "log2_basic",
    "log10_basic",
    "sin_basic",
    "cos_basic",
    "tan_basic",
    "arcsin_basic",
    "arccos_basic",
    "arctan_basic",
    "sinh_basic",
    "cosh_basic",
    "arcsinh_basic",
    "arccosh_basic",
    "arctanh_basic",
    "erf_basic",
    "erfinv_basic",
    "gamma_basic",
    "gammaln_basic",
    "softsign_basic",
    "floor_basic",
    "ceil_basic",
    "round_basic",
    "rint_basic",
    "fix_basic",
    "trunc_basic",
    "sign_basic",
    "logical_not_basic",
    "hard_sigmoid_default",
    "hard_sigmoid_alpha_beta",
    "_contrib_div_sqrt_dim_basic",
};

TEST(ElemwiseUnaryMath, MatchesPyTorchReferences) {
  for (const char* stem : kRefStems) EXPECT_TRUE(test::CheckOpRef(stem)) << stem;
}

struct GradCase {
  const char* op;
  double lo, hi;  // |x| range; negated on every other element when `both_signs`
  bool both_signs;
  StringMap params;
};

TEST(ElemwiseUnaryMath, GradientsMatchNumeric) {
  const GradCase cases[] = {
      {"rsqrt", 0.3, 3, false, {}},
      {"reciprocal", 0.3, 2, true, {}},
      {"cbrt", 0.3, 2, true, {}},
      {"log1p", 0.1, 0.9, true, {}},
      {"expm1", 0.1, 2, true, {}},
      {"log2", 0.3, 4, false, {}},
      {"log10", 0.3, 4, false, {}},
      {"sin", 0.1, 3, true, {}},
      {"cos", 0.1, 3, true, {}},
      {"tan", 0.1, 1.2, true, {}},
      {"arcsin", 0.1, 0.9, true, {}},
      {"arccos", 0.1, 0.9, true, {}},
      {"arctan", 0.1, 3, true, {}},
      {"sinh", 0.1, 2, true, {}},
      {"cosh", 0.1, 2, true, {}},
      {"arcsinh", 0.1, 3, true, {}},
      {"arccosh", 1.2, 4, false, {}},
      {"arctanh", 0.1, 0.9, true, {}},
      {"erf", 0.1, 2, true, {}},
      {"erfinv", 0.1, 0.9, true, {}},
      {"gamma", 0.3, 4, false, {}},
      {"gamma", 0.1, 0.9, true, {}},
      {"gammaln", 0.3, 5, false, {}},
      {"gammaln", 1.1, 1.9, true, {}},
      {"softsign", 0.1, 3, true, {}},
      {"hard_sigmoid", 0.1, 2.4, true, {}},
      {"hard_sigmoid", 0.1, 3, true, {{"alpha", "0.3"}, {"beta", "0.25"}}},
      {"_contrib_div_sqrt_dim", 0.1, 2, true, {}},
  };
  for (const GradCase& c : cases) {
    std::vector<double> v = test::Values(test::RandomArray({3, 4}, DType::kFloat64, c.lo, c.hi, 7));
    if (c.both_signs)
      for (size_t i = 0; i < v.size(); i += 2) v[i] = -v[i];
    std::string where;
    const double err = test::GradientError(c.op, {test::Array({3, 4}, v, DType::kFloat64)},
                                           c.params, {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << c.op << ": " << where;
  }
}

std::vector<double> Run1(const std::string& op, const std::vector<double>& x,
                         DType dt = DType::kFloat64, const StringMap& params = {}) {
  return test::Values(
      test::Run(op, {test::Array({static_cast<int64_t>(x.size())}, x, dt)}, params)[0]);
}

void ExpectSame(const std::vector<double>& got, const std::vector<double>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i << ": " << got[i];
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << what << " element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-6 * std::max(1.0, std::fabs(want[i])))
          << what << " element " << i;
    }
  }
}

TEST(ElemwiseUnaryMath, RoundingAtHalvesAsMXNet) {
  const std::vector<double> x = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.7, 1.2};
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    // round: halves away from zero; rint: halves down (MXNet's floor-on-tie
    // rule, not banker's rounding); fix/trunc towards zero.
    ExpectSame(Run1("round", x, dt), {-3, -2, -1, 1, 2, 3, -2, 1}, "round");
    ExpectSame(Run1("rint", x, dt), {-3, -2, -1, 0, 1, 2, -2, 1}, "rint");
    ExpectSame(Run1("fix", x, dt), {-2, -1, 0, 0, 1, 2, -1, 1}, "fix");
    ExpectSame(Run1("trunc", x, dt), {-2, -1, 0, 0, 1, 2, -1, 1}, "trunc");
    ExpectSame(Run1("floor", x, dt), {-3, -2, -1, 0, 1, 2, -2, 1}, "floor");
    ExpectSame(Run1("ceil", x, dt), {-2, -1, 0, 1, 2, 3, -1, 2}, "ceil");
  }
}

TEST(ElemwiseUnaryMath, SignAndLogicalNotOnZeroAndNaN) {
  ExpectSame(Run1("sign", {-3, -0.0, 0, 2, kNaN, -kInf}), {-1, 0, 0, 1, 0, -1}, "sign");
  ExpectSame(Run1("logical_not", {-3, -0.0, 0, 2, kNaN}), {0, 1, 1, 0, 0}, "logical_not");
  auto y = test::Run("logical_not", {test::Array({2}, {0, 1}, DType::kFloat64)});
  EXPECT_EQ(y[0].dtype(), DType::kFloat64);
}

TEST(ElemwiseUnaryMath, SpecialFunctionsAtKnownPoints) {
  const double pi = M_PI;
  ExpectSame(Run1("erfinv", {-1, 0, 1, 1.5, std::erf(0.3), std::erf(-2.5)}),
             {-kInf, 0, kInf, kNaN, 0.3, -2.5}, "erfinv");
  // gamma(5) = 24, gamma(0.5) = sqrt(pi), gamma(-1.5) = 4 sqrt(pi) / 3.
  ExpectSame(Run1("gamma", {5, 0.5, -1.5}), {24, std::sqrt(pi), 4 * std::sqrt(pi) / 3}, "gamma");
  ExpectSame(Run1("gammaln", {5, 0.5, -0.5}),
             {std::log(24.0), 0.5 * std::log(pi), std::log(2 * std::sqrt(pi))}, "gammaln");
  // The gradient of gammaln is digamma: psi(1) = -euler_gamma, psi(0.5) =
  // -euler_gamma - 2 ln 2, psi(-0.5) = psi(0.5) + 2 (reflection), psi(10).
  const double eg = 0.57721566490153286;
  auto g = test::Run("_backward_gammaln", {test::Array({4}, {1, 1, 1, 1}, DType::kFloat64),
                                           test::Array({4}, {1, 0.5, -0.5, 10}, DType::kFloat64)});
  ExpectSame(test::Values(g[0]),
             {-eg, -eg - 2 * std::log(2.0), -eg - 2 * std::log(2.0) + 2, 2.251752589066721},
             "digamma");
}

TEST(ElemwiseUnaryMath, HardSigmoidGradientIsZeroOnTheFlatParts) {
  // alpha * x + beta hits 0 at x = -2.5 and 1 at x = 2.5 (strict bounds in MXNet).
  auto g = test::Run("_backward_hard_sigmoid",
                     {test::Array({5}, {1, 1, 1, 1, 1}, DType::kFloat64),
                      test::Array({5}, {-3, -2.5, 0, 2.5, 3}, DType::kFloat64)});
  ExpectSame(test::Values(g[0]), {0, 0, static_cast<double>(0.2f), 0, 0}, "hard_sigmoid grad");
  ExpectSame(Run1("hard_sigmoid", {-3, 0, 1, 3}, DType::kFloat32), {0, 0.5, 0.7, 1},
             "hard_sigmoid");
}

TEST(ElemwiseUnaryMath, DivSqrtDimNeedsAnAxis) {
  ExpectSame(
      test::Values(test::Run("_contrib_div_sqrt_dim",
                             {test::Array({2, 4}, {4, 8, 2, -2, 0, 1, 2, 3}, DType::kFloat64)})[0]),
      {2, 4, 1, -1, 0, 0.5, 1, 1.5}, "div_sqrt_dim");
  std::vector<Shape> in = {Shape(std::vector<int64_t>{})}, out(1);
  test::ExpectError([&] { test::InferShapes("_contrib_div_sqrt_dim", {}, &in, &out); },
                    StatusCode::kShape, {"_contrib_div_sqrt_dim", "at least one axis", "()"});
  in = {Shape()};
  out = {Shape({2, 3})};
  EXPECT_TRUE(test::InferShapes("_contrib_div_sqrt_dim", {}, &in, &out));
  EXPECT_EQ(in[0], Shape({2, 3}));
}

TEST(ElemwiseUnaryMath, ZeroGradientOpsUseZerosLike) {
  const Runtime& rt = Runtime::Global();
  for (const char* op : {"floor", "ceil", "round", "rint", "fix", "trunc", "sign", "logical_not"}) {
    NodePtr x = MakeVariable("x");
    NodePtr n = MakeOpNode(rt.ops(), op, "n", {{x, 0, 0}});
    auto g = n->op()->gradient(rt.ops(), n, {{MakeVariable("og"), 0, 0}});
    ASSERT_EQ(g.size(), 1u) << op;
    EXPECT_EQ(g[0].node->op()->name, "zeros_like") << op;
    EXPECT_EQ(g[0].node->inputs[0].node, x) << op;
  }
}

TEST(ElemwiseUnaryMath, BackwardOpsReadInputOrOutputAsMXNet) {
  const Runtime& rt = Runtime::Global();
  for (const char* op : {"cbrt", "tan", "erfinv"}) {  // ElemwiseGradUseOut in MXNet
    NodePtr n = MakeOpNode(rt.ops(), op, "n", {{MakeVariable("x"), 0, 0}});
    auto g = n->op()->gradient(rt.ops(), n, {{MakeVariable("og"), 0, 0}});
    EXPECT_EQ(g[0].node->op()->name, std::string("_backward_") + op);
    EXPECT_EQ(g[0].node->inputs[1].node, n) << op;
  }
  NodePtr x = MakeVariable("x");
  NodePtr n = MakeOpNode(rt.ops(), "hard_sigmoid", "n", {{x, 0, 0}}, {{"alpha", "0.3"}});
  auto g = n->op()->gradient(rt.ops(), n, {{MakeVariable("og"), 0, 0}});
  EXPECT_EQ(g[0].node->inputs[1].node, x);
  EXPECT_EQ(g[0].node->attrs.dict.at("alpha"), "0.3");
}

TEST(ElemwiseUnaryMath, ReqAddAndInPlace) {
  for (const char* op :
       {"sin", "gammaln", "erfinv", "rint", "hard_sigmoid", "_contrib_div_sqrt_dim"}) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      NDArray x = test::RandomArray({2, 4}, dt, 0.1, 0.9, 3);
      std::vector<double> want = test::Values(test::Run(op, {x})[0]);
      NDArray acc = test::Array({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}, dt);
      std::vector<NDArray> outs = {acc};
      InvokeOptions opts;
      opts.reqs = {OpReq::kAdd};
      Invoke(&Runtime::Global(), op, {x}, {}, &outs, opts);
      std::vector<double> got = test::Values(acc);
      for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i] + i + 1, 1e-5) << op;
      outs = {x};
      Invoke(&Runtime::Global(), op, {x}, {}, &outs);
      ExpectSame(test::Values(x), want, std::string(op) + " in place");
    }
  }
}

TEST(ElemwiseUnaryMath, EveryOpHasDocAliasesAndCpuKernel) {
  const Runtime& rt = Runtime::Global();
  const char* ops[] = {"floor",      "ceil",         "round",
                       "rint",       "fix",          "trunc",
                       "sign",       "logical_not",  "rsqrt",
                       "reciprocal", "cbrt",         "log1p",
                       "expm1",      "log2",         "log10",
                       "sin",        "cos",          "tan",
                       "arcsin",     "arccos",       "arctan",
                       "sinh",       "cosh",         "arcsinh",
                       "arccosh",    "arctanh",      "softsign",
                       "erf",        "erfinv",       "gamma",
                       "gammaln",    "hard_sigmoid", "_contrib_div_sqrt_dim"};
  for (const char* name : ops) {
    const OpDef& op = rt.ops().Get(name);
    EXPECT_FALSE(op.doc.empty()) << name;
    const Kernel* k = rt.kernels().Find(name, DeviceType::kCPU);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_TRUE(k->supports_add) << name;
    if (op.gradient && std::string(name) != "_contrib_div_sqrt_dim") {
      NodePtr n = MakeOpNode(rt.ops(), name, "n", {{MakeVariable("x"), 0, 0}});
      auto g = op.gradient(rt.ops(), n, {{MakeVariable("og"), 0, 0}});
      const std::string bw = g[0].node->op()->name;
      EXPECT_NE(rt.kernels().Find(bw, DeviceType::kCPU), nullptr) << bw;
    }
  }
  for (const char* alias : {"_npx_erf", "_npx_erfinv", "_npx_gamma", "_npx_gammaln"})
    EXPECT_EQ(rt.ops().Get(alias).name, std::string(alias).substr(5));
  // The maps run on integers (tests/core/op/int_dtype_test.cc); their
  // gradients refuse integers, naming the dtype; float16 computes in float32.
  test::ExpectError(
      [] {
        const NDArray a = test::Array({1}, {1}, DType::kInt32);
        test::Run("_backward_gamma", {a, a});
      },
      StatusCode::kDType, {"_backward_gamma", "int32"});
  // float16 computes in float32 and rounds: gamma(5) = 24.
  const NDArray g = test::Run("gamma", {test::Array({1}, {5}, DType::kFloat16)})[0];
  EXPECT_EQ(g.dtype(), DType::kFloat16);
  EXPECT_EQ(test::Values(g), std::vector<double>{24});
}

}  // namespace
}  // namespace weft
