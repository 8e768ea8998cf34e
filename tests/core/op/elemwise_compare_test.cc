// Tests of the comparison and logical ops in their same-shape, broadcast
// and scalar forms (core/src/op/elemwise_compare.cc,
// kernels/cpu/elemwise_compare.cc, kernels/cpu/broadcast.cc): PyTorch
// reference files with ties and zeros, NaN as MXNet (C++ comparisons; NaN
// is true for the logical ops), dtype, zero gradients, aliases, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const char* const kBases[] = {"equal",         "not_equal",  "greater",
                              "greater_equal", "lesser",     "lesser_equal",
                              "logical_and",   "logical_or", "logical_xor"};

TEST(ElemwiseCompare, MatchesPyTorchReferences) {
  for (const char* base : kBases) {
    const std::string b = base;
    EXPECT_TRUE(test::CheckOpRef("_" + b + "_basic")) << b;
    EXPECT_TRUE(test::CheckOpRef("broadcast_" + b + "_row")) << b;
    EXPECT_TRUE(test::CheckOpRef("_" + b + "_scalar_basic")) << b;
  }
  EXPECT_TRUE(test::CheckOpRef("_GreaterEqualScalar_alias"));
  EXPECT_TRUE(test::CheckOpRef("_Not_Equal_alias"));
}

TEST(ElemwiseCompare, NaNAndZeroAsMXNet) {
  // Pairs: (NaN, NaN), (NaN, 1), (0, 0), (-0, 0), (2, 0), (-1, 3).
  const std::vector<double> l = {kNaN, kNaN, 0, -0.0, 2, -1}, r = {kNaN, 1, 0, 0, 0, 3};
  const std::map<std::string, std::vector<double>> want = {
      {"equal", {0, 0, 1, 1, 0, 0}},       {"not_equal", {1, 1, 0, 0, 1, 1}},
      {"greater", {0, 0, 0, 0, 1, 0}},     {"greater_equal", {0, 0, 1, 1, 1, 0}},
      {"lesser", {0, 0, 0, 0, 0, 1}},      {"lesser_equal", {0, 0, 1, 1, 0, 1}},
      {"logical_and", {1, 1, 0, 0, 0, 1}}, {"logical_or", {1, 1, 0, 0, 1, 1}},
      {"logical_xor", {0, 0, 0, 0, 1, 0}},
  };
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const NDArray a = test::Array({6}, l, dt), b = test::Array({6}, r, dt);
    for (const auto& [base, w] : want) {
      for (const std::string& op : {"_" + base, "broadcast_" + base}) {
        auto y = test::Run(op, {a, b});
        EXPECT_EQ(y[0].dtype(), dt) << op;
        EXPECT_EQ(test::Values(y[0]), w) << op << " " << DTypeName(dt);
      }
    }
  }
  // Scalar forms against scalar 0 on (NaN, -1, 0, 2).
  const NDArray x = test::Array({4}, {kNaN, -1, 0, 2}, DType::kFloat64);
  const std::map<std::string, std::vector<double>> want0 = {
      {"equal", {0, 0, 1, 0}},         {"not_equal", {1, 1, 0, 1}},  {"greater", {0, 0, 0, 1}},
      {"greater_equal", {0, 0, 1, 1}}, {"lesser", {0, 1, 0, 0}},     {"lesser_equal", {0, 1, 1, 0}},
      {"logical_and", {0, 0, 0, 0}},   {"logical_or", {1, 1, 0, 1}}, {"logical_xor", {1, 1, 0, 1}},
  };
  for (const auto& [base, w] : want0)
    EXPECT_EQ(test::Values(test::Run("_" + base + "_scalar", {x}, {{"scalar", "0"}})[0]), w)
        << base;
}

TEST(ElemwiseCompare, ScalarIsCastToTheDType) {
  // 0.1 as float32 is not 0.1 as float64: each form compares in its dtype.
  const double f32 = static_cast<double>(0.1f);
  auto y32 =
      test::Run("_equal_scalar", {test::Array({1}, {f32}, DType::kFloat32)}, {{"scalar", "0.1"}});
  EXPECT_EQ(test::Values(y32[0]), (std::vector<double>{1}));
  auto y64 =
      test::Run("_equal_scalar", {test::Array({1}, {f32}, DType::kFloat64)}, {{"scalar", "0.1"}});
  EXPECT_EQ(test::Values(y64[0]), (std::vector<double>{0}));
}

TEST(ElemwiseCompare, GradientsAreZerosLikeEachInput) {
  const Runtime& rt = Runtime::Global();
  for (const char* base : kBases) {
    const std::string b = base;
    for (const std::string& op : {"_" + b, "broadcast_" + b}) {
      NodePtr x = MakeVariable("x"), y = MakeVariable("y");
      NodePtr n = MakeOpNode(rt.ops(), op, "n", {{x, 0, 0}, {y, 0, 0}});
      auto g = n->op()->gradient(rt.ops(), n, {{MakeVariable("og"), 0, 0}});
      ASSERT_EQ(g.size(), 2u) << op;
      EXPECT_EQ(g[0].node->op()->name, "zeros_like") << op;
      EXPECT_EQ(g[0].node->inputs[0].node, x) << op;
      EXPECT_EQ(g[1].node->inputs[0].node, y) << op;
    }
    NodePtr x = MakeVariable("x");
    NodePtr n = MakeOpNode(rt.ops(), "_" + b + "_scalar", "n", {{x, 0, 0}}, {{"scalar", "2"}});
    auto g = n->op()->gradient(rt.ops(), n, {{MakeVariable("og"), 0, 0}});
    ASSERT_EQ(g.size(), 1u) << b;
    EXPECT_EQ(g[0].node->op()->name, "zeros_like") << b;
  }
}

TEST(ElemwiseCompare, AliasesKernelsAndReqAdd) {
  const Runtime& rt = Runtime::Global();
  const std::pair<const char*, const char*> aliases[] = {
      {"_Equal", "_equal"},
      {"_Not_Equal", "_not_equal"},
      {"_Greater", "_greater"},
      {"_Greater_Equal", "_greater_equal"},
      {"_Lesser", "_lesser"},
      {"_Lesser_Equal", "_lesser_equal"},
      {"_Logical_And", "_logical_and"},
      {"_Logical_Or", "_logical_or"},
      {"_Logical_Xor", "_logical_xor"},
      {"_EqualScalar", "_equal_scalar"},
      {"_NotEqualScalar", "_not_equal_scalar"},
      {"_GreaterScalar", "_greater_scalar"},
      {"_GreaterEqualScalar", "_greater_equal_scalar"},
      {"_LesserScalar", "_lesser_scalar"},
      {"_LesserEqualScalar", "_lesser_equal_scalar"},
      {"_LogicalAndScalar", "_logical_and_scalar"},
      {"_LogicalOrScalar", "_logical_or_scalar"},
      {"_LogicalXorScalar", "_logical_xor_scalar"},
  };
  for (const auto& [alias, name] : aliases) EXPECT_EQ(rt.ops().Get(alias).name, name) << alias;
  for (const char* base : kBases) {
    const std::string b = base;
    for (const std::string& op : {"_" + b, "broadcast_" + b, "_" + b + "_scalar"}) {
      const Kernel* k = rt.kernels().Find(op, DeviceType::kCPU);
      ASSERT_NE(k, nullptr) << op;
      EXPECT_TRUE(k->supports_add) << op;
      EXPECT_FALSE(rt.ops().Get(op).doc.empty()) << op;
    }
  }
  NDArray acc = test::Array({3}, {10, 10, 10}, DType::kFloat64);
  std::vector<NDArray> outs = {acc};
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd};
  Invoke(&Runtime::Global(), "broadcast_greater",
         {test::Array({3}, {1, 2, 3}, DType::kFloat64), test::Array({1}, {2}, DType::kFloat64)}, {},
         &outs, opts);
  EXPECT_EQ(test::Values(acc), (std::vector<double>{10, 10, 11}));
}

TEST(ElemwiseCompare, IntegerDTypesAsMXNet) {
  for (DType dt : {DType::kInt32, DType::kInt64, DType::kInt8, DType::kUint8}) {
    const NDArray a = test::Array({2, 3}, {0, 1, 2, 3, 4, 5}, dt);
    const NDArray b = test::Array({3}, {1, 1, 4}, dt);
    auto y = test::Run("broadcast_greater_equal", {a, b});
    EXPECT_EQ(y[0].dtype(), dt);
    EXPECT_EQ(test::Values(y[0]), (std::vector<double>{0, 1, 0, 1, 1, 1})) << DTypeName(dt);
    const NDArray c = test::Array({2, 3}, {0, 2, 2, 0, 4, 1}, dt);
    EXPECT_EQ(test::Values(test::Run("_equal", {a, c})[0]),
              (std::vector<double>{1, 0, 1, 0, 1, 0}));
    EXPECT_EQ(test::Values(test::Run("_logical_xor", {a, c})[0]),
              (std::vector<double>{0, 0, 0, 1, 0, 0}));
    // The scalar is cast to the integer dtype (is_int defaults to True).
    EXPECT_EQ(test::Values(test::Run("_lesser_scalar", {a}, {{"scalar", "2"}})[0]),
              (std::vector<double>{1, 1, 0, 0, 0, 0}));
    EXPECT_EQ(test::Values(test::Run("_maximum_scalar", {a}, {{"scalar", "3"}})[0]),
              (std::vector<double>{3, 3, 3, 3, 4, 5}));
    EXPECT_EQ(test::Values(test::Run("broadcast_mod", {a, b})[0]),
              (std::vector<double>{0, 0, 2, 0, 0, 1}));
    EXPECT_EQ(test::Values(test::Run("_minimum", {a, c})[0]),
              (std::vector<double>{0, 1, 2, 0, 4, 1}));
  }
  const NDArray i = test::Array({2}, {-5, 5}, DType::kInt32);
  EXPECT_EQ(test::Values(test::Run("_mod_scalar", {i}, {{"scalar", "3"}})[0]),
            (std::vector<double>{1, 2}));
  test::ExpectError(
      [&] {
        test::Run("_equal_scalar", {i}, {{"scalar", "1.5"}, {"is_int", "False"}});
      },
      StatusCode::kDType, {"_equal_scalar", "int32", "is_int=False"});
  // Gradients stay float-only.
  test::ExpectError(
      [&] {
        test::Run("_backward_maximum", {i, i, i});
      },
      StatusCode::kDType, {"_backward_maximum", "int32"});
}

TEST(ElemwiseCompare, ErrorsNameOpAndShapes) {
  test::ExpectError(
      [] {
        test::Run("broadcast_equal", {test::RandomArray({2, 3}, DType::kFloat32, 0, 1, 1),
                                      test::RandomArray({2, 4}, DType::kFloat32, 0, 1, 2)});
      },
      StatusCode::kShape, {"broadcast_equal", "(2,3)", "(2,4)"});
  test::ExpectError(
      [] {
        test::Run("_lesser", {test::Array({2}, {1, 2}, DType::kFloat32),
                              test::Array({2}, {1, 2}, DType::kFloat64)});
      },
      StatusCode::kDType, {"_lesser", "float32", "float64"});
  test::ExpectError(
      [] {
        test::Run("_greater_scalar", {test::Array({1}, {1})}, {{"scalar", "abc"}});
      },
      StatusCode::kInvalidArgument, {"_greater_scalar", "scalar", "abc"});
}

}  // namespace
}  // namespace weft
