// pass::SimplifyInference: Dropout (training mode), identity/_copy and
// BlockGrad/stop_gradient are removed; Dropout(mode=always), a read mask and
// graph outputs are kept; the optimised executor computes the same values.
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
