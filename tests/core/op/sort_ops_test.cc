// argmax, argmin, argmax_channel, topk, sort, argsort: PyTorch references,
// stable tie order, numeric gradients, inference and error paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "util/op_refs.h"
#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/symbol.h"

namespace weft {
namespace {

TEST(SortOps, MatchTorchReferences) {
  for (const char* stem :
       {"argmax_axis1", "argmax_axis_none", "argmax_axis_none_keepdims", "argmin_axis_neg_keepdims",
        "argmin_axis0", "argmax_channel_basic", "topk_indices_default", "topk_value_axis1",
        "topk_both_ascend", "topk_value_flat_all", "topk_mask", "sort_default", "sort_axis0_desc",
        "sort_flat", "argsort_default", "argsort_axis1_desc"})
    EXPECT_TRUE(test::CheckOpRef(stem)) << stem;
}

std::vector<double> Run1(const std::string& op, const NDArray& x, const StringMap& p, int out = 0) {
  return test::Values(test::Run(op, {x}, p)[out]);
}

TEST(SortOps, TiesKeepIndexOrder) {
  NDArray x = test::Array({6}, {2, 5, 2, 5, 1, 5}, DType::kFloat64);
  EXPECT_EQ(Run1("argmax", x, {}), (std::vector<double>{1}));
  EXPECT_EQ(Run1("argmin", x, {{"axis", "0"}}), (std::vector<double>{4}));
  EXPECT_EQ(Run1("argsort", x, {}), (std::vector<double>{4, 0, 2, 1, 3, 5}));
  EXPECT_EQ(Run1("argsort", x, {{"is_ascend", "False"}}), (std::vector<double>{1, 3, 5, 0, 2, 4}));
  EXPECT_EQ(Run1("topk", x, {{"k", "2"}}), (std::vector<double>{1, 3}));
  EXPECT_EQ(Run1("topk", x, {{"k", "2"}, {"ret_typ", "mask"}}),
            (std::vector<double>{0, 1, 0, 1, 0, 0}));
  EXPECT_EQ(Run1("topk", x, {{"k", "3"}, {"ret_typ", "both"}, {"is_ascend", "True"}}, 1),
            (std::vector<double>{4, 0, 2}));
}

TEST(SortOps, OutputDtypes) {
  NDArray x = test::Array({2, 3}, {3, 1, 2, 0, 5, 4}, DType::kFloat64);
  EXPECT_EQ(test::Run("argmax", {x}, {{"axis", "1"}})[0].dtype(), DType::kFloat64);
  EXPECT_EQ(test::Run("argsort", {x}, {})[0].dtype(), DType::kFloat32);
  auto both = test::Run("topk", {x}, {{"ret_typ", "both"}, {"k", "2"}, {"dtype", "int64"}});
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].dtype(), DType::kFloat64);
  EXPECT_EQ(both[1].dtype(), DType::kInt64);
  EXPECT_EQ(test::Values(both[1]), (std::vector<double>{0, 2, 1, 2}));
  NDArray xi = test::Array({4}, {3, 9, 9, 1}, DType::kInt32);
  EXPECT_EQ(test::Values(test::Run("sort", {xi}, {{"is_ascend", "False"}})[0]),
            (std::vector<double>{9, 9, 3, 1}));
  EXPECT_EQ(test::Values(test::Run("argmax", {xi}, {})[0]), (std::vector<double>{1}));
}

TEST(SortOps, LargeSortMatchesStdSort) {
  NDArray x = test::RandomArray({300, 200}, DType::kFloat32, -1, 1, 5);
  std::vector<double> v = test::Values(x);
  std::vector<double> got = Run1("sort", x, {{"axis", "0"}});
  std::vector<double> idx = Run1("argsort", x, {{"axis", "0"}});
  for (int c = 0; c < 200; c += 37) {
    std::vector<double> col;
    for (int r = 0; r < 300; ++r) col.push_back(v[r * 200 + c]);
    std::vector<double> sorted = col;
    std::sort(sorted.begin(), sorted.end());
    for (int r = 0; r < 300; ++r) {
      ASSERT_EQ(got[r * 200 + c], sorted[r]) << r << "," << c;
      ASSERT_EQ(col[static_cast<int>(idx[r * 200 + c])], sorted[r]);
    }
  }
}

TEST(SortOps, GradientsMatchNumeric) {
  NDArray x = test::RandomArray({3, 4, 5}, DType::kFloat64, -1, 1, 17);
  const std::vector<std::pair<std::string, StringMap>> cases = {
      {"sort", {}},
      {"sort", {{"axis", "1"}, {"is_ascend", "False"}}},
      {"sort", {{"axis", "None"}}},
      {"topk", {{"k", "2"}, {"ret_typ", "value"}}},
      {"topk", {{"axis", "0"}, {"k", "2"}, {"ret_typ", "both"}}},
      {"topk", {{"axis", "None"}, {"k", "7"}, {"ret_typ", "value"}, {"is_ascend", "True"}}},
  };
  for (const auto& [op, p] : cases) {
    std::string where;
    EXPECT_LT(test::GradientError(op, {x}, p, {}, 1e-6, &where), 1e-6) << op << " " << where;
  }
  // Index outputs have zero gradients.
  for (const char* op : {"argmax", "argsort"}) {
    std::string where;
    EXPECT_LT(test::GradientError(op, {x}, {}, {}, 1e-6, &where), 1e-6) << op << " " << where;
  }
}

TEST(SortOps, PartialShapeInference) {
  std::vector<Shape> in = {Shape({0, 5})}, out;
  EXPECT_FALSE(test::InferShapes("topk", {{"k", "2"}, {"ret_typ", "both"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({0, 2}));
  EXPECT_EQ(out[1], Shape({0, 2}));
  in = {Shape({2, 0, 4})};
  out.clear();
  EXPECT_FALSE(test::InferShapes("argmax", {{"axis", "0"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({0, 4}));
  in = {Shape({3, 0})};
  out.clear();
  EXPECT_FALSE(test::InferShapes("topk", {{"ret_typ", "mask"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({3, 0}));
  in = {Shape()};
  out = {Shape({2, 3})};
  EXPECT_TRUE(test::InferShapes("topk", {{"ret_typ", "mask"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({2, 3}));
  in = {Shape({2, 3, 4})};
  out.clear();
  EXPECT_TRUE(test::InferShapes("argmax_channel", {}, &in, &out));
  EXPECT_EQ(out[0], Shape({2, 4}));
}

// MXNet 1.9.1 (ordering_op.cc) lists topk's outputs by nnvm's default
// names over its two outputs (one visible unless ret_typ='both'), and
// sort's likewise; lookups by those names must find them.
TEST(SortOps, OutputNamesAreMXNets) {
  const OpRegistry& reg = Runtime::Global().ops();
  const Symbol x = Symbol::CreateVariable("x");
  auto outputs = [&](const std::string& op, const StringMap& p) {
    return Symbol::Apply(reg, op, {x}, p, "s0").ListOutputs();
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(outputs("topk", {{"ret_typ", "both"}}), (Names{"s0_output0", "s0_output1"}));
  EXPECT_EQ(outputs("topk", {{"ret_typ", "value"}}), (Names{"s0_output0"}));
  EXPECT_EQ(outputs("topk", {{"ret_typ", "indices"}}), (Names{"s0_output"}));
  EXPECT_EQ(outputs("topk", {{"ret_typ", "mask"}}), (Names{"s0_output"}));
  EXPECT_EQ(outputs("sort", {}), (Names{"s0_output0"}));
  EXPECT_EQ(outputs("argsort", {}), (Names{"s0_output"}));
  // get_internals: the indices of ret_typ='both' by MXNet's name.
  const Symbol internals =
      Symbol::Apply(reg, "topk", {x}, {{"ret_typ", "both"}, {"k", "2"}}, "s0").GetInternals();
  const Names names = internals.ListOutputs();
  const auto at = std::find(names.begin(), names.end(), "s0_output1");
  ASSERT_NE(at, names.end());
  const Symbol indices = internals.GetOutput(static_cast<size_t>(at - names.begin()));
  EXPECT_EQ(indices.outputs[0].index, 1u);
}

TEST(SortOps, ErrorPaths) {
  NDArray x = test::RandomArray({2, 3}, DType::kFloat32, 0, 1, 1);
  test::ExpectError(
      [&] {
        test::Run("topk", {x}, {{"k", "4"}});
      },
      StatusCode::kInvalidArgument, {"topk", "k (4)", "extent 3"});
  test::ExpectError(
      [&] {
        test::Run("sort", {x}, {{"axis", "2"}});
      },
      StatusCode::kInvalidArgument, {"sort", "axis 2", "ndim 2"});
  test::ExpectError(
      [&] {
        test::Run("argmax", {x}, {{"axis", "-3"}});
      },
      StatusCode::kInvalidArgument, {"argmax", "axis -3"});
  test::ExpectError(
      [&] {
        test::Run("topk", {x}, {{"ret_typ", "values"}});
      },
      StatusCode::kInvalidArgument, {"ret_typ", "values"});
  test::ExpectError(
      [&] {
        test::Run("argmax_channel", {test::Array({3}, {1, 2, 3})}, {});
      },
      StatusCode::kShape, {"argmax_channel", "ndim >= 2"});
}

}  // namespace
}  // namespace weft
