// pass::SimplifyInference: Dropout (training mode), identity/_copy and
// BlockGrad/stop_gradient are removed; Dropout(mode=always), a read mask and
// graph outputs are kept; a positive scalar division or product read by a
// softmax alone becomes its temperature; the optimised executor computes
// the same values.
#include <gtest/gtest.h>

#include "core/pass/inference_test_util.h"
#include "weft/pass.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::Apply;

TEST(SimplifyInference, RemovesPassThroughOps) {
  const OpRegistry& reg = Runtime::Global().ops();
  Symbol x = Symbol::CreateVariable("data");
  Symbol h = Apply("_copy", {x}, {}, "copy");
  h = Apply("Dropout", {h}, {{"p", "0.5"}}, "drop")[0];
  h = Apply("stop_gradient", {h}, {}, "sg");
  h = Apply("FullyConnected", {h}, {{"num_hidden", "3"}}, "fc");
  h = Apply("identity", {h}, {}, "id");
  Symbol y = Apply("Activation", {h}, {{"act_type", "relu"}}, "relu");
  pass::RewriteResult r = pass::SimplifyInference(reg, Graph{y.outputs});
  EXPECT_EQ(r.changes, 4u);
  EXPECT_EQ(test::OpNames(r.graph), (std::vector<std::string>{"FullyConnected", "Activation"}));
  IndexedGraph g(r.graph);
  const Node& fc = g.node(g[g.outputs()[0].node_id].inputs[0].node_id);
  ASSERT_EQ(fc.op()->name, "FullyConnected");
  EXPECT_EQ(fc.inputs[0].node, x.outputs[0].node);  // the variable itself
  // The input graph is untouched.
  EXPECT_EQ(test::OpNames(Graph{y.outputs}).size(), 6u);
  EXPECT_LT(test::CompareOptimized(y, {{"data", Shape{4, 5}}}, 7), 1e-6);
}

TEST(SimplifyInference, KeepsWhatInferenceNeeds) {
  const OpRegistry& reg = Runtime::Global().ops();
  Symbol x = Symbol::CreateVariable("data");
  Symbol always = Apply("Dropout", {x}, {{"p", "0.5"}, {"mode", "always"}}, "always")[0];
  Symbol fc = Apply("FullyConnected", {always}, {{"num_hidden", "3"}}, "fc");
  Symbol out = Apply("identity", {fc}, {}, "out");  // a graph output
  pass::RewriteResult r = pass::SimplifyInference(reg, Graph{out.outputs});
  EXPECT_EQ(r.changes, 0u);
  EXPECT_EQ(r.graph.outputs[0].node, out.outputs[0].node);  // the same graph
  // A Dropout whose mask is read stays.
  Symbol d = Apply("Dropout", {x}, {{"p", "0.5"}}, "d");
  Symbol both = Symbol::Group({Apply("relu", {d[0]}, {}, "r"), Apply("relu", {d[1]}, {}, "m")});
  EXPECT_EQ(pass::SimplifyInference(reg, Graph{both.outputs}).changes, 0u);
}

TEST(SimplifyInference, ScalarBeforeSoftmaxBecomesItsTemperature) {
  const OpRegistry& reg = Runtime::Global().ops();
  Symbol x = Symbol::CreateVariable("data");
  // Attention's scores / sqrt(d) -> softmax: temperature 8.
  Symbol s = Apply("softmax", {Apply("_div_scalar", {x}, {{"scalar", "8"}}, "scale")},
                   {{"axis", "-1"}}, "sm");
  pass::RewriteResult r = pass::SimplifyInference(reg, Graph{s.outputs});
  EXPECT_EQ(r.changes, 1u);
  EXPECT_EQ(test::OpNames(r.graph), (std::vector<std::string>{"softmax"}));
  const Node& sm = *r.graph.outputs[0].node;
  EXPECT_EQ(sm.inputs[0].node, x.outputs[0].node);
  EXPECT_DOUBLE_EQ(sm.attrs.params.GetFloat("temperature"), 8.0);
  EXPECT_EQ(sm.attrs.params.GetInt("axis"), -1);
  EXPECT_LT(test::CompareOptimized(s, {{"data", Shape{3, 4, 9}}}, 5), 1e-6);
  // A product by 0.5 before a log_softmax of temperature 2: temperature 4.
  Symbol l = Apply("log_softmax", {Apply("_mul_scalar", {x}, {{"scalar", "0.5"}}, "half")},
                   {{"temperature", "2"}}, "lsm");
  r = pass::SimplifyInference(reg, Graph{l.outputs});
  EXPECT_EQ(r.changes, 1u);
  EXPECT_EQ(test::OpNames(r.graph), (std::vector<std::string>{"log_softmax"}));
  EXPECT_DOUBLE_EQ(r.graph.outputs[0].node->attrs.params.GetFloat("temperature"), 4.0);
  EXPECT_LT(test::CompareOptimized(l, {{"data", Shape{2, 7}}}, 11), 1e-6);
}

TEST(SimplifyInference, ScalarKeptWhereTheSoftmaxCannotTakeIt) {
  const OpRegistry& reg = Runtime::Global().ops();
  Symbol x = Symbol::CreateVariable("data");
  // Read by another node too.
  Symbol d = Apply("_div_scalar", {x}, {{"scalar", "8"}}, "scale");
  Symbol both = Symbol::Group({Apply("softmax", {d}, {}, "sm"), Apply("relu", {d}, {}, "r")});
  EXPECT_EQ(pass::SimplifyInference(reg, Graph{both.outputs}).changes, 0u);
  // A graph output itself.
  Symbol out = Symbol::Group({d, Apply("softmax", {d}, {}, "sm2")});
  EXPECT_EQ(pass::SimplifyInference(reg, Graph{out.outputs}).changes, 0u);
  // A negative or zero factor would reverse or break the line's order.
  for (const char* c : {"-2", "0"}) {
    Symbol m = Apply("softmax", {Apply("_mul_scalar", {x}, {{"scalar", c}}, "m")}, {}, "sm3");
    EXPECT_EQ(pass::SimplifyInference(reg, Graph{m.outputs}).changes, 0u) << c;
  }
  // Another scalar op.
  Symbol a = Apply("softmax", {Apply("_plus_scalar", {x}, {{"scalar", "2"}}, "p")}, {}, "sm4");
  EXPECT_EQ(pass::SimplifyInference(reg, Graph{a.outputs}).changes, 0u);
}

TEST(SimplifyInference, ReshapeIsAViewAlready) {
  // Flatten reading a planned entry last takes its block in place.
  Symbol x = Symbol::CreateVariable("data");
  Symbol h = Apply("relu", {x}, {}, "r");
  Symbol y =
      Apply("FullyConnected", {Apply("Flatten", {h}, {}, "flat")}, {{"num_hidden", "2"}}, "fc");
  auto ex = test::BindInference(y, {{"data", Shape{2, 3, 4}}}, true);
  const std::string s = ex->DebugString();
  const size_t at = s.find("out flat_output");
  ASSERT_NE(at, std::string::npos) << s;
  EXPECT_NE(s.substr(at, s.find('\n', at) - at).find("(in place)"), std::string::npos) << s;
}

}  // namespace
}  // namespace weft
