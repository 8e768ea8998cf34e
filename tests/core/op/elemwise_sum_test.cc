#include <gtest/gtest.h>

#include <cstring>

#include "util/test_util.h"

namespace weft {
namespace {

TEST(ElementWiseSum, AddsAnyNumberOfInputs) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray a = test::Array({2, 2}, {1, 2, 3, 4}, dt);
    auto one = test::Run("ElementWiseSum", {a}, {{"num_args", "1"}});
    EXPECT_EQ(one[0].dtype(), dt);
    EXPECT_EQ(test::Values(one[0]), (std::vector<double>{1, 2, 3, 4}));

    NDArray b = test::Array({2, 2}, {10, 20, 30, 40}, dt);
    NDArray c = test::Array({2, 2}, {100, 200, 300, 400}, dt);
    NDArray d = test::Array({2, 2}, {-1, -1, -1, -1}, dt);
    auto four = test::Run("add_n", {a, b, c, d}, {{"num_args", "4"}});
    EXPECT_EQ(four[0].shape(), Shape({2, 2}));
    EXPECT_EQ(test::Values(four[0]), (std::vector<double>{110, 221, 332, 443}));
    auto two = test::Run("_ElementWiseSum", {a, b}, {{"num_args", "2"}});
    EXPECT_EQ(test::Values(two[0]), (std::vector<double>{11, 22, 33, 44}));
  }
}

TEST(ElementWiseSum, LargeInputsMatchLoop) {
  const Shape s({300, 200});
  std::vector<NDArray> in;
  for (unsigned k = 0; k < 3; ++k) in.push_back(test::RandomArray(s, DType::kFloat64, -1, 1, k));
  auto y = test::Run("ElementWiseSum", in, {{"num_args", "3"}});
  std::vector<double> a = test::Values(in[0]), b = test::Values(in[1]), c = test::Values(in[2]);
  std::vector<double> got = test::Values(y[0]);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_DOUBLE_EQ(got[i], a[i] + b[i] + c[i]) << i;
}

TEST(ElementWiseSum, InPlaceAndAddRequests) {
  NDArray a = test::Array({3}, {1, 2, 3}, DType::kFloat32);
  NDArray b = test::Array({3}, {4, 5, 6}, DType::kFloat32);
  NDArray c = test::Array({3}, {7, 8, 9}, DType::kFloat32);
  std::vector<NDArray> out = {a};  // writes over arg0
  Invoke(&Runtime::Global(), "ElementWiseSum", {a, b, c}, {{"num_args", "3"}}, &out);
  EXPECT_EQ(test::Values(a), (std::vector<double>{12, 15, 18}));
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd};
  std::vector<NDArray> acc = {test::Array({3}, {1, 1, 1}, DType::kFloat32)};
  Invoke(&Runtime::Global(), "ElementWiseSum", {b, c}, {{"num_args", "2"}}, &acc, opts);
  EXPECT_EQ(test::Values(acc[0]), (std::vector<double>{12, 14, 16}));
  EXPECT_EQ(Runtime::Global().ops().Get("ElementWiseSum").inplace({}),
            (std::vector<std::pair<int, int>>{{0, 0}}));
}

TEST(ElementWiseSum, InputNamesFollowNumArgs) {
  const OpDef& op = Runtime::Global().ops().Get("add_n");
  EXPECT_EQ(op.name, "ElementWiseSum");
  EXPECT_EQ(op.key_var_num_args, "num_args");
  NodePtr n = MakeOpNode(Runtime::Global().ops(), "add_n", "s",
                         {{MakeVariable("x")}, {MakeVariable("y")}, {MakeVariable("z")}},
                         {{"num_args", "3"}});
  EXPECT_EQ(op.InputNames(n->attrs.params), (std::vector<std::string>{"arg0", "arg1", "arg2"}));
}

TEST(ElementWiseSum, RejectsBadInputs) {
  NDArray a = test::Array({2}, {1, 2}), b = test::Array({2}, {3, 4});
  test::ExpectOpError("ElementWiseSum", {a, b}, {{"num_args", "3"}}, StatusCode::kInvalidArgument,
                      {"ElementWiseSum", "expected 3 input", "given 2"});
  test::ExpectOpError("ElementWiseSum", {a}, {}, StatusCode::kInvalidArgument,
                      {"ElementWiseSum", "'num_args'"});
  test::ExpectOpError("ElementWiseSum", {}, {{"num_args", "0"}}, StatusCode::kInvalidArgument,
                      {"ElementWiseSum", "'num_args'"});
  test::ExpectOpError("ElementWiseSum", {a, b, test::Array({3}, {1, 2, 3})}, {{"num_args", "3"}},
                      StatusCode::kShape, {"ElementWiseSum", "'arg2'"});
  test::ExpectOpError("ElementWiseSum", {a, test::Array({2}, {1, 2}, DType::kFloat64)},
                      {{"num_args", "2"}}, StatusCode::kDType, {"ElementWiseSum", "'arg1'"});
}

TEST(ElementWiseSum, GradientIsOutputGradientForEveryInput) {
  std::vector<NDArray> in;
  for (unsigned k = 0; k < 4; ++k)
    in.push_back(test::RandomArray({2, 3}, DType::kFloat64, -1, 1, k));
  std::string where;
  EXPECT_LT(test::GradientError("ElementWiseSum", in, {{"num_args", "4"}}, {}, 1e-6, &where), 1e-6)
      << where;
  EXPECT_LT(test::GradientError("add_n", {in[0]}, {{"num_args", "1"}}, {}, 1e-6, &where), 1e-6)
      << where;
}

TEST(Identity, CopiesEveryDtype) {
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kUint8, DType::kInt32, DType::kInt8,
                   DType::kInt64}) {
    NDArray x = test::Array({2, 3}, {1, 2, 3, 4, 5, 6}, dt);
    auto y = test::Run("identity", {x});
    EXPECT_EQ(y[0].dtype(), dt);
    EXPECT_EQ(y[0].shape(), Shape({2, 3}));
    EXPECT_NE(y[0].dptr(), x.dptr());
    EXPECT_EQ(test::Values(y[0]), test::Values(x)) << DTypeName(dt);
    EXPECT_EQ(test::Values(test::Run("_copy", {x})[0]), test::Values(x));
  }
  NDArray h =
      test::Run("_full", {}, {{"shape", "(3,)"}, {"value", "0.1"}, {"dtype", "float16"}})[0];
  NDArray hc = test::Run("identity", {h})[0];
  hc.WaitToRead();
  EXPECT_EQ(std::memcmp(h.dptr(), hc.dptr(), h.Bytes()), 0);
}

TEST(Identity, AddRequestAndGradient) {
  NDArray x = test::Array({3}, {1, 2, 3}, DType::kInt64);
  std::vector<NDArray> out = {test::Array({3}, {10, 10, 10}, DType::kInt64)};
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd};
  Invoke(&Runtime::Global(), "identity", {x}, {}, &out, opts);
  EXPECT_EQ(test::Values(out[0]), (std::vector<double>{11, 12, 13}));
  std::string where;
  EXPECT_LT(test::GradientError("identity", {test::RandomArray({4}, DType::kFloat64, -1, 1, 3)}, {},
                                {}, 1e-6, &where),
            1e-6)
      << where;
}

}  // namespace
}  // namespace weft
