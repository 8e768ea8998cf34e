// MXNet's control-flow operators (core/src/op/control_flow_*.cc): symbol
// JSON written in MXNet 1.9.1's layout (as contrib.foreach, while_loop and
// cond write it: num_args counting the nested graphs, loc lists as "[0]")
// loads, infers shapes and types through the nested graphs, runs in an
// executor against closed-form results, saves back to the same JSON, and
// malformed attributes are errors naming the node.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "util/test_util.h"
#include "weft/executor.h"
#include "weft/pass.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

using json = nlohmann::json;

const OpRegistry& Reg() { return Runtime::Global().ops(); }

json Var(const std::string& name) {
  return {{"op", "null"}, {"name", name}, {"inputs", json::array()}};
}

json Op(const std::string& op, const std::string& name, json attrs, json inputs,
        json subgraphs = nullptr) {
  json n = {{"op", op}, {"name", name}, {"inputs", std::move(inputs)}};
  if (!attrs.empty()) n["attrs"] = std::move(attrs);
  if (!subgraphs.is_null()) n["subgraphs"] = std::move(subgraphs);
  return n;
}

// A graph object as MXNet writes it: arg_nodes are the variables,
// node_row_ptr counts `outputs[i]` entries for node i (default 1).
json GraphJson(const std::vector<json>& nodes, json heads, std::vector<int> outputs = {}) {
  json args = json::array(), row = json::array({0});
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i]["op"] == "null") args.push_back(i);
    const int n = i < outputs.size() ? outputs[i] : 1;
    row.push_back(row.back().get<int>() + n);
  }
  return {{"nodes", nodes}, {"arg_nodes", args}, {"node_row_ptr", row}, {"heads", heads}};
}

json Top(json g) {
  g["attrs"] = {{"mxnet_version", json::array({"int", 10901})}};
  return g;
}

// out, states = foreach(lambda x, s: (x * w + s[0], [x * w + s[0]]), data, [init]):
// the body's variables in DFS order are x, w, s; its state output is an
// identity (contrib._construct_subgraph copies a state that is also an
// output).
json ForeachJson(const std::string& state_locs = "[2]") {
  const json body = GraphJson(
      {Var("data-0"), Var("w"), Op("elemwise_mul", "foreach0_mul0", {}, {{0, 0, 0}, {1, 0, 0}}),
       Var("init-0"), Op("elemwise_add", "foreach0_add0", {}, {{2, 0, 0}, {3, 0, 0}}),
       Op("_copy", "foreach0_identity0", {}, {{4, 0, 0}})},
      {{4, 0, 0}, {5, 0, 0}});
  return Top(GraphJson({Var("data"), Var("init"), Var("w"),
                        Op("_foreach", "foreach0",
                           {{"in_data_locs", "[0]"},
                            {"in_state_locs", state_locs},
                            {"num_args", "4"},
                            {"num_out_data", "1"},
                            {"num_outputs", "2"},
                            {"remain_locs", "[1]"}},
                           {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, json::array({body}))},
                       {{3, 0, 0}, {3, 1, 0}}, {1, 1, 1, 2}));
}

// outputs, (term, total) = while_loop(lambda term, total: total < 1.9,
//     lambda term, total: ([total + term], [term * 0.5, total + term]),
//     (a, zero), max_iterations=8): a geometric series summed until it
// passes 1.9.
json WhileJson() {
  const json cond = GraphJson(
      {Var("total-0"), Op("_lesser_scalar", "while0_cond0_lt", {{"scalar", "1.9"}}, {{0, 0, 0}})},
      {{1, 0, 0}});
  const json func =
      GraphJson({Var("total-0"), Var("term-0"),
                 Op("elemwise_add", "while0_func0_add", {}, {{0, 0, 0}, {1, 0, 0}}),
                 Op("_mul_scalar", "while0_func0_half", {{"scalar", "0.5"}}, {{1, 0, 0}}),
                 Op("_copy", "while0_func0_identity0", {}, {{2, 0, 0}})},
                {{2, 0, 0}, {3, 0, 0}, {4, 0, 0}});
  return Top(GraphJson({Var("zero"), Var("a"),
                        Op("_while_loop", "while0",
                           {{"cond_input_locs", "[0]"},
                            {"func_input_locs", "[0, 1]"},
                            {"func_var_locs", "[1, 0]"},
                            {"max_iterations", "8"},
                            {"num_args", "4"},
                            {"num_out_data", "1"},
                            {"num_outputs", "3"}},
                           {{0, 0, 0}, {1, 0, 0}}, json::array({cond, func}))},
                       {{2, 0, 0}, {2, 1, 0}, {2, 2, 0}}, {1, 1, 3}));
}

// cond(a * b < 5, lambda: (a + 5) * (b + 5), lambda: (a - 5) * (b - 5)),
// MXNet's docstring example; `else_extra` replaces the else branch's result
// (a branch of another shape).
json CondJson(bool concat_else = false) {
  const json pred = GraphJson(
      {Var("a"), Var("b"), Op("elemwise_mul", "cond0_pred_mul", {}, {{0, 0, 0}, {1, 0, 0}}),
       Op("_lesser_scalar", "cond0_pred_lt", {{"scalar", "5"}}, {{2, 0, 0}})},
      {{3, 0, 0}});
  auto branch = [](const char* tag, const char* op) {
    return GraphJson(
        {Var("a"), Op(op, StrCat("cond0_", tag, "_a"), {{"scalar", "5"}}, {{0, 0, 0}}), Var("b"),
         Op(op, StrCat("cond0_", tag, "_b"), {{"scalar", "5"}}, {{2, 0, 0}}),
         Op("elemwise_mul", StrCat("cond0_", tag, "_mul"), {}, {{1, 0, 0}, {3, 0, 0}})},
        {{4, 0, 0}});
  };
  json else_branch = branch("else", "_minus_scalar");
  if (concat_else)
    else_branch = GraphJson({Var("a"), Var("b"),
                             Op("Concat", "cond0_else_concat", {{"dim", "0"}, {"num_args", "2"}},
                                {{0, 0, 0}, {1, 0, 0}})},
                            {{2, 0, 0}});
  return Top(GraphJson({Var("a"), Var("b"),
                        Op("_cond", "cond0",
                           {{"cond_input_locs", "[0, 1]"},
                            {"else_input_locs", "[0, 1]"},
                            {"num_args", "5"},
                            {"num_outputs", "1"},
                            {"then_input_locs", "[0, 1]"}},
                           {{0, 0, 0}, {1, 0, 0}},
                           json::array({pred, branch("then", "_plus_scalar"), else_branch}))},
                       {{2, 0, 0}}));
}

Symbol Load(const json& j) { return LoadJSON(j.dump(), Reg()).symbol; }

std::unique_ptr<Executor> Bind(const Symbol& s, const pass::ShapeMap& shapes, bool optimize) {
  ExecutorOptions o;
  o.optimize_inference = optimize;
  return Executor::SimpleBind(&Runtime::Global(), s, Context::CPU(0), shapes, {},
                              GradReqSpec::All(GradReq::kNull), o);
}

void Set(Executor* ex, const std::string& name, const std::vector<double>& v) {
  for (size_t i = 0; i < ex->arg_names().size(); ++i)
    if (ex->arg_names()[i] == name) {
      NDArray a = ex->arg_arrays()[i];
      test::Array(a.shape(), v).CopyTo(&a);
      return;
    }
  ADD_FAILURE() << "no argument " << name;
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << what << " element " << i;
}

TEST(ControlFlow, ForeachInfersThroughItsBody) {
  const Symbol s = Load(ForeachJson());
  EXPECT_EQ(s.ListArguments(), (std::vector<std::string>{"data", "init", "w"}));
  const IndexedGraph g(Graph{s.outputs});
  // The state's and w's shapes follow from the body: only data is given.
  const pass::ShapeResult r = pass::InferShape(g, {{"data", Shape{4, 3}}, {"init", Shape{3}}});
  ASSERT_TRUE(r.complete()) << r.unknown_names[0];
  EXPECT_EQ(r.arg_shapes, (std::vector<Shape>{Shape{4, 3}, Shape{3}, Shape{3}}));
  EXPECT_EQ(r.out_shapes, (std::vector<Shape>{Shape{4, 3}, Shape{3}}));
  const pass::TypeResult t = pass::InferType(g, {{"data", DType::kFloat64}});
  ASSERT_TRUE(t.complete());
  EXPECT_EQ(t.out_types, (std::vector<DType>{DType::kFloat64, DType::kFloat64}));
  EXPECT_EQ(t.arg_types[2], DType::kFloat64);
}

TEST(ControlFlow, ForeachIsAWeightedCumulativeSum) {
  const Symbol s = Load(ForeachJson());
  const std::vector<double> data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<double> init = {0.5, -1, 2}, w = {1, 0.5, -2};
  std::vector<double> outs(12), state = init;
  for (int t = 0; t < 4; ++t)
    for (int j = 0; j < 3; ++j) outs[t * 3 + j] = state[j] += data[t * 3 + j] * w[j];
  for (bool optimize : {false, true}) {
    auto ex = Bind(s, {{"data", Shape{4, 3}}, {"init", Shape{3}}}, optimize);
    Set(ex.get(), "data", data);
    Set(ex.get(), "init", init);
    Set(ex.get(), "w", w);
    for (int run = 0; run < 2; ++run) {  // the bound call's runners are reused
      ex->Forward(false);
      ExpectNear(test::Values(ex->outputs()[0]), outs, "stacked outputs");
      ExpectNear(test::Values(ex->outputs()[1]), state, "final state");
    }
  }
}

TEST(ControlFlow, WhileLoopStopsAtItsConditionAndPadsToMaxIterations) {
  const Symbol s = Load(WhileJson());
  const IndexedGraph g(Graph{s.outputs});
  const pass::ShapeResult r = pass::InferShape(g, {{"a", Shape{1}}});
  ASSERT_TRUE(r.complete()) << r.unknown_names[0];
  EXPECT_EQ(r.out_shapes, (std::vector<Shape>{Shape{8, 1}, Shape{1}, Shape{1}}));
  auto ex = Bind(s, {{"a", Shape{1}}}, false);
  // a = 1: totals 1, 1.5, 1.75, 1.875, 1.9375, then total >= 1.9 stops it.
  Set(ex.get(), "a", {1});
  Set(ex.get(), "zero", {0});
  ex->Forward(false);
  ExpectNear(test::Values(ex->outputs()[0]), {1, 1.5, 1.75, 1.875, 1.9375, 0, 0, 0}, "steps");
  ExpectNear(test::Values(ex->outputs()[1]), {1.0 / 32}, "term");
  ExpectNear(test::Values(ex->outputs()[2]), {1.9375}, "total");
  // a = 0.1 never reaches 1.9: max_iterations steps, sum a (2 - 2^-7).
  Set(ex.get(), "a", {0.1});
  ex->Forward(false);
  std::vector<double> totals;
  double total = 0, term = 0.1;
  for (int i = 0; i < 8; ++i, term *= 0.5) totals.push_back(total += term);
  ExpectNear(test::Values(ex->outputs()[0]), totals, "capped steps");
  ExpectNear(test::Values(ex->outputs()[1]), {term}, "capped term");
  ExpectNear(test::Values(ex->outputs()[2]), {total}, "capped total");
  // The condition false at once: no step; the loop variables pass through.
  Set(ex.get(), "zero", {5});
  ex->Forward(false);
  ExpectNear(test::Values(ex->outputs()[0]), std::vector<double>(8, 0), "no steps");
  ExpectNear(test::Values(ex->outputs()[2]), {5}, "untouched total");
}

TEST(ControlFlow, CondChoosesABranch) {
  const Symbol s = Load(CondJson());
  auto ex = Bind(s, {{"a", Shape{1}}, {"b", Shape{1}}}, true);
  for (const auto& [a, b] : {std::pair<double, double>{1, 2}, {3, 4}}) {
    Set(ex.get(), "a", {a});
    Set(ex.get(), "b", {b});
    ex->Forward(false);
    const double want = a * b < 5 ? (a + 5) * (b + 5) : (a - 5) * (b - 5);
    ExpectNear(test::Values(ex->outputs()[0]), {want}, StrCat("a=", a, " b=", b));
  }
}

TEST(ControlFlow, CondBranchesOfOtherShapesAreRefused) {
  const Symbol s = Load(CondJson(true));
  test::ExpectError(
      [&] {
        pass::InferShape(IndexedGraph(Graph{s.outputs}), {{"a", Shape{1}}, {"b", Shape{1}}});
      },
      StatusCode::kShape, {"'cond0' (_cond)", "then branch", "else branch", "(2,)"});
}

// `j` with MXNet's op names (Weft saves an alias's canonical name: `_copy`
// is saved as identity) and without node_row_ptr (Weft counts visible outputs).
json Normalised(json j) {
  j.erase("node_row_ptr");
  for (auto& n : j["nodes"]) {
    if (n["op"] != "null") n["op"] = Reg().Get(n["op"].get<std::string>()).name;
    if (n.contains("subgraphs"))
      for (auto& sub : n["subgraphs"]) sub = Normalised(sub);
  }
  return j;
}

TEST(ControlFlow, SavesBackTheSameJson) {
  for (const json& j : {ForeachJson(), WhileJson(), CondJson()}) {
    const std::string saved = SaveJSON(Load(j));
    EXPECT_EQ(Normalised(json::parse(saved)), Normalised(j));
    EXPECT_EQ(SaveJSON(LoadJSON(saved, Reg()).symbol), saved);
  }
}

TEST(ControlFlow, MalformedNodesAreErrorsNamingThem) {
  const StatusCode kBad = StatusCode::kInvalidArgument;
  test::ExpectError([] { Load(ForeachJson("[7]")); }, kBad,
                    {"'foreach0' (_foreach)", "in_state_locs", "7", "out of range"});
  test::ExpectError([] { Load(ForeachJson("[0]")); }, kBad, {"'foreach0' (_foreach)", "twice"});
  json no_sub = ForeachJson();
  no_sub["nodes"][3].erase("subgraphs");
  test::ExpectError([&] { Load(no_sub); }, kBad, {"'foreach0' (_foreach)", "must carry 1"});
  json no_args = WhileJson();
  no_args["nodes"][2]["attrs"].erase("num_args");
  test::ExpectError([&] { Load(no_args); }, kBad, {"while0", "num_args"});
  json bad_var = WhileJson();
  bad_var["nodes"][2]["attrs"]["func_var_locs"] = "[1, 2]";
  test::ExpectError([&] { Load(bad_var); }, kBad, {"'while0' (_while_loop)", "func_var_locs"});
  json bad_cond = CondJson();
  bad_cond["nodes"][2]["attrs"]["then_input_locs"] = "[0]";
  test::ExpectError([&] { Load(bad_cond); }, kBad,
                    {"'cond0' (_cond)", "then_input_locs", "reads 2 variables"});
  json one_graph = CondJson();
  one_graph["nodes"][2]["subgraphs"].erase(2);
  test::ExpectError([&] { Load(one_graph); }, kBad, {"'cond0' (_cond)", "must carry 3"});
}

TEST(ControlFlow, BackwardIsNotImplemented) {
  const Symbol s = Load(ForeachJson());
  test::ExpectError(
      [&] {
        Executor::SimpleBind(&Runtime::Global(), s, Context::CPU(0),
                             {{"data", Shape{4, 3}}, {"init", Shape{3}}}, {},
                             GradReqSpec::All(GradReq::kWrite));
      },
      StatusCode::kNotImplemented, {"_foreach", "foreach0"});
}

}  // namespace
}  // namespace weft
