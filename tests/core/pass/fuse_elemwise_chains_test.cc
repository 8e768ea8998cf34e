// pass::FuseElemwiseChains and _fused_elemwise: chains of pointwise ops
// (unary, scalar, same-shape binary, Activation) become one node computing
// what the chain computes, over many tiles and a partial last one; shared
// intermediates, graph outputs and non-pointwise ops end a chain; malformed
// steps are errors naming the node and the step.
#include <gtest/gtest.h>

#include "core/pass/inference_test_util.h"
#include "weft/pass.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::Apply;

size_t Fuse(const Symbol& y) {
  return pass::FuseElemwiseChains(Runtime::Global().ops(), Graph{y.outputs}).changes;
}

TEST(FuseElemwiseChains, ChainWithABinaryStepIsOneNode) {
  Symbol x = Symbol::CreateVariable("data"), z = Symbol::CreateVariable("data_z");
  Symbol a = Apply("exp", {Apply("_mul_scalar", {x}, {{"scalar", "0.5"}}, "half")}, {}, "e");
  Symbol y = Apply("relu", {Apply("sigmoid", {Apply("elemwise_add", {a, z}, {}, "add")}, {}, "s")},
                   {}, "out");
  pass::RewriteResult r = pass::FuseElemwiseChains(Runtime::Global().ops(), Graph{y.outputs});
  EXPECT_EQ(test::OpNames(r.graph), (std::vector<std::string>{"_fused_elemwise"}));
  const Node& f = *r.graph.outputs[0].node;
  EXPECT_EQ(f.attrs.name, "out");
  ASSERT_EQ(f.inputs.size(), 2u);
  EXPECT_EQ(f.inputs[0].node, x.outputs[0].node);
  EXPECT_EQ(f.inputs[1].node, z.outputs[0].node);
  // 3 * 50 * 701 elements: many tiles, a partial last one, the OpenMP path.
  std::unique_ptr<Executor> ex;
  EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{3, 50, 701}}, {"data_z", Shape{3, 50, 701}}},
                                   3, &ex),
            1e-6);
  EXPECT_NE(ex->DebugString().find("FuseElemwiseChains"), std::string::npos) << ex->DebugString();
}

TEST(FuseElemwiseChains, ChainAsTheRightOperandAndActivation) {
  Symbol x = Symbol::CreateVariable("data"), z = Symbol::CreateVariable("data_z");
  Symbol t = Apply("Activation", {Apply("tanh", {x}, {}, "t")}, {{"act_type", "softrelu"}}, "sr");
  Symbol y =
      Apply("_rminus_scalar", {Apply("elemwise_sub", {z, t}, {}, "sub")}, {{"scalar", "3"}}, "out");
  EXPECT_EQ(Fuse(y), 1u);  // one fused node for the four ops
  EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{7, 9}}, {"data_z", Shape{7, 9}}}, 4), 1e-6);
}

TEST(FuseElemwiseChains, SharedOutputsAndOtherOpsEndChains) {
  Symbol x = Symbol::CreateVariable("data");
  Symbol a = Apply("exp", {x}, {}, "a");
  EXPECT_EQ(Fuse(Symbol::Group({Apply("relu", {a}, {}, "r"), Apply("sigmoid", {a}, {}, "s")})), 0u);
  EXPECT_EQ(Fuse(Symbol::Group({a, Apply("relu", {a}, {}, "r2")})), 0u);  // a is a graph output
  EXPECT_EQ(Fuse(a), 0u);                                                 // a single op
  EXPECT_EQ(Fuse(Apply("elemwise_mul", {a, a}, {}, "sq")), 0u);           // read twice
  Symbol soft = Apply("relu", {Apply("softmax", {a}, {}, "sm")}, {}, "r3");
  EXPECT_EQ(Fuse(soft), 0u);
  Symbol dsd = Apply("relu", {Apply("_contrib_div_sqrt_dim", {a}, {}, "d")}, {}, "r4");
  EXPECT_EQ(Fuse(dsd), 0u);
  // A chain after a shared node starts there.
  Symbol y = Symbol::Group(
      {Apply("relu", {Apply("sqrt", {a}, {}, "q")}, {}, "r5"), Apply("abs", {a}, {}, "b")});
  EXPECT_EQ(Fuse(y), 1u);
}

TEST(FusedElemwiseOp, MatchesTheOpsOneByOne) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray x = test::RandomArray(Shape{5000}, dt, -2, 2, 1),
            z = test::RandomArray(Shape{5000}, dt, -2, 2, 2);
    const std::string steps =
        R"([{"op":"_plus_scalar","name":"p","attrs":{"scalar":"1.5"},"args":[0]},)"
        R"({"op":"elemwise_mul","name":"m","attrs":{},"args":[1,-1]},)"
        R"({"op":"Activation","name":"a","attrs":{"act_type":"tanh"},"args":[-1]}])";
    NDArray got = test::Run("_fused_elemwise", {x, z}, {{"num_args", "2"}, {"steps", steps}})[0];
    NDArray p = test::Run("_plus_scalar", {x}, {{"scalar", "1.5"}})[0];
    NDArray want = test::Run("tanh", {test::Run("elemwise_mul", {z, p})[0]})[0];
    const std::vector<double> a = test::Values(got), b = test::Values(want);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-6) << i;
  }
}

TEST(FusedElemwiseOp, MalformedStepsNameNodeAndStep) {
  NDArray x = test::RandomArray(Shape{4}, DType::kFloat32, -1, 1, 1);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "no JSON list"},
      {"[]", "non-empty JSON list"},
      {R"([{"op":"softmax","args":[0]}])", "step 0: operator softmax is not pointwise"},
      {R"([{"op":"no_such_op","args":[0]}])", "step 0"},
      {R"([{"op":"relu","args":[-1]}])", "step 0: argument -1 is out of range"},
      {R"([{"op":"relu","args":[0]},{"op":"relu","args":[3]}])",
       "step 1: argument 3 is out of range"},
      {R"([{"op":"relu","args":[0,0]}])", "step 0: operator relu takes 1 inputs, the step gives 2"},
  };
  for (const auto& c : cases) {
    try {
      test::Run("_fused_elemwise", {x}, {{"num_args", "1"}, {"steps", c.first}});
      ADD_FAILURE() << "no error for " << c.first;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.second), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("_fused_elemwise"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace weft
