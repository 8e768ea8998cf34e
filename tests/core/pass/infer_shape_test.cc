// InferShape: MXNet's partial-shape and mutual-inference behaviour.
#include <gtest/gtest.h>

#include "core/graph/graph_test_nn_ops.h"
#include "core/json/json_test_util.h"
#include "weft/pass.h"
#include "weft/symbol.h"

namespace weft {
namespace {

using Names = std::vector<std::string>;
using Shapes = std::vector<Shape>;
const OpRegistry& Reg() { return test::ModelTestRegistry(); }

Symbol Var(const std::string& name, Shape hint = Shape()) {
  VariableHints h;
  h.shape = hint;
  return Symbol::CreateVariable(name, h);
}
Symbol Op(const std::string& op, const std::vector<Symbol>& args, const StringMap& params = {},
          const std::string& name = "") {
  return Symbol::Apply(Reg(), op, args, params, name);
}
pass::ShapeResult Infer(const Symbol& s, const pass::ShapeMap& in = {}) {
  return pass::InferShape(IndexedGraph(s.outputs), in);
}

TEST(InferShapeTest, SeedCaseMulAddFillsEveryShape) {
  // a*b + b*c with a = (2,0), c = (0,3) => all (2,3).
  Symbol a = Var("a"), b = Var("b"), c = Var("c");
  Symbol out = a * b + b * c;
  pass::ShapeResult r = Infer(out, {{"a", Shape{2, 0}}, {"c", Shape{0, 3}}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_shapes, (Shapes{{2, 3}, {2, 3}, {2, 3}}));
  EXPECT_EQ(r.out_shapes, (Shapes{Shape{2, 3}}));
  for (const Shape& s : r.shapes) EXPECT_EQ(s, (Shape{2, 3}));
}

TEST(InferShapeTest, SeedCaseAddCompletesBothInputs) {
  Symbol a = Var("a"), b = Var("b");
  pass::ShapeResult r = Infer(a + b, {{"a", Shape{0, 10}}, {"b", Shape{12, 0}}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_shapes, (Shapes{{12, 10}, {12, 10}}));
  EXPECT_EQ(r.out_shapes, (Shapes{Shape{12, 10}}));
}

TEST(InferShapeTest, FullyConnectedWeightFromData) {
  Symbol fc = Op("FullyConnected", {Var("data")}, {{"num_hidden", "8"}}, "fc");
  pass::ShapeResult r = Infer(fc, {{"data", Shape{5, 4, 5}}});  // flattened to (5, 20)
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(fc.ListArguments(), (Names{"data", "fc_weight", "fc_bias"}));
  EXPECT_EQ(r.arg_shapes, (Shapes{{5, 4, 5}, {8, 20}, {8}}));
  EXPECT_EQ(r.out_shapes, (Shapes{Shape{5, 8}}));
}

TEST(InferShapeTest, BackwardSweepFillsInputsFromOutputs) {
  // identity(x) only learns its shape from the sum it feeds: the reverse
  // sweep carries it back to x. FC fills its batch size from its output too.
  Symbol x = Var("x"), y = Var("y");
  Symbol out = Op("identity", {x}, {}, "id") + y;
  pass::ShapeResult r = Infer(out, {{"y", Shape{3, 4}}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_shapes, (Shapes{{3, 4}, {3, 4}}));
  Symbol fc = Op("FullyConnected", {Var("d")}, {{"num_hidden", "4"}}, "fc");
  Symbol sum = Op("elemwise_add", {fc, Var("z")}, {}, "s");
  pass::ShapeResult f = Infer(sum, {{"d", Shape{0, 6}}, {"z", Shape{7, 4}}});
  EXPECT_TRUE(f.complete());
  EXPECT_EQ(f.arg_shapes, (Shapes{{7, 6}, {4, 6}, {4}, {7, 4}}));
}

TEST(InferShapeTest, BroadcastAlignsOnTheRight) {
  Symbol a = Var("a"), b = Var("b");
  Symbol s = Op("broadcast_add", {a, b}, {}, "badd");
  EXPECT_EQ(Infer(s, {{"a", Shape{2, 1, 3}}, {"b", Shape{4, 1}}}).out_shapes,
            (Shapes{Shape{2, 4, 3}}));
  EXPECT_EQ(Infer(s, {{"a", Shape{5}}, {"b", Shape{2, 1}}}).out_shapes, (Shapes{Shape{2, 5}}));
  // Forward only, as in MXNet: an unknown input leaves the output unknown.
  pass::ShapeResult partial = Infer(s, {{"a", Shape{2, 3}}});
  EXPECT_FALSE(partial.complete());
  EXPECT_EQ(partial.unknown_names, (Names{"b", "badd_output"}));
  test::ExpectWeftError(
      [&] {
        Infer(s, {{"a", Shape{2, 3}}, {"b", Shape{4, 3}}});
      },
      StatusCode::kShape,
      {"InferShape", "node 'badd' (broadcast_add)", "lhs=a (2,3)", "rhs=b (4,3)",
       "cannot be broadcast"});
}

TEST(InferShapeTest, DotUnifiesTheInnerExtent) {
  Symbol a = Var("a"), b = Var("b");
  Symbol d = Op("dot", {a, b}, {}, "d");
  pass::ShapeResult r = Infer(d, {{"a", Shape{2, 0}}, {"b", Shape{3, 4}}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_shapes, (Shapes{{2, 3}, {3, 4}}));
  EXPECT_EQ(r.out_shapes, (Shapes{Shape{2, 4}}));
  Symbol dt = Op("dot", {a, b}, {{"transpose_b", "True"}}, "dt");
  pass::ShapeResult t = Infer(dt, {{"a", Shape{2, 3}}, {"b", Shape{5, 0}}});
  EXPECT_EQ(t.arg_shapes, (Shapes{{2, 3}, {5, 3}}));
  EXPECT_EQ(t.out_shapes, (Shapes{Shape{2, 5}}));
  test::ExpectWeftError(
      [&] {
        Infer(d, {{"a", Shape{2, 3}}, {"b", Shape{4, 4}}});
      },
      StatusCode::kShape, {"node 'd' (dot)", "lhs=a (2,3)", "rhs=b (4,4)"});
}

TEST(InferShapeTest, SumWithAxisAndKeepdims) {
  Symbol x = Var("x");
  auto out = [&](const StringMap& p) {
    return Infer(Op("sum", {x}, p), {{"x", Shape{2, 3, 4}}}).out_shapes[0];
  };
  EXPECT_EQ(out({{"axis", "1"}}), (Shape{2, 4}));
  EXPECT_EQ(out({{"axis", "1"}, {"keepdims", "True"}}), (Shape{2, 1, 4}));
  EXPECT_EQ(out({{"axis", "(0, 2)"}}), (Shape{3}));
  EXPECT_EQ(out({{"axis", "-1"}, {"exclude", "True"}}), (Shape{4}));
  EXPECT_EQ(out({}), (Shape{1}));  // MXNet 1.x: reducing everything gives (1,)
  EXPECT_EQ(out({{"keepdims", "True"}}), (Shape{1, 1, 1}));
  test::ExpectWeftError(
      [&] {
        out({{"axis", "3"}});
      },
      StatusCode::kInvalidArgument, {"sum", "axis 3"});
}

TEST(InferShapeTest, PartialResultsListWhatStaysUnknown) {
  Symbol a = Var("a"), b = Var("b");
  Symbol d = Op("dot", {a, b}, {}, "d");
  Symbol out = Op("elemwise_mul", {d, Var("c")}, {}, "m");
  pass::ShapeResult r = Infer(out, {{"a", Shape{2, 0}}});
  EXPECT_FALSE(r.complete());
  EXPECT_EQ(r.unknown_names, (Names{"a", "b", "d_output", "c", "m_output"}));
  EXPECT_EQ(r.unknown.size(), 5u);
  EXPECT_EQ(r.arg_shapes[0], (Shape{2, 0}));  // what is known is kept
  EXPECT_FALSE(r.arg_shapes[1].ndim_known());
  // Nothing given at all: everything is unknown, and that is no error.
  pass::ShapeResult none = Infer(out);
  EXPECT_EQ(none.unknown.size(), none.shapes.size());
}

TEST(InferShapeTest, ConflictsNameNodeOpInputAndBothShapes) {
  Symbol fc = Op("FullyConnected", {Var("data")}, {{"num_hidden", "8"}}, "fc");
  std::string msg = test::ExpectWeftError(
      [&] {
        Infer(fc, {{"data", Shape{5, 20}}, {"fc_weight", Shape{8, 21}}});
      },
      StatusCode::kShape,
      {"InferShape: node 'fc' (FullyConnected)", "weight=fc_weight (8,21)", "input 'weight'",
       "(8,20)"});
  Symbol a = Var("a"), b = Var("b");
  test::ExpectWeftError(
      [&] {
        Infer(a * b, {{"a", Shape{2, 3}}, {"b", Shape{3, 2}}});
      },
      StatusCode::kShape, {"elemwise_mul", "(2,3)", "(3,2)"});
  // A pass-level conflict: an op inferring something other than what it was given.
  OpRegistry reg;
  OpDef liar;
  liar.name = "Liar";
  liar.infer_shape = [](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
    (*in)[0] = Shape{3};
    (*out)[0] = Shape{3};
    return true;
  };
  reg.Add(liar);
  Symbol l = Symbol::Apply(reg, "Liar", {Var("x")}, {}, "liar");
  test::ExpectWeftError(
      [&] {
        Infer(l, {{"x", Shape{2, 2}}});
      },
      StatusCode::kShape,
      {"InferShape: node 'liar' (Liar)", "input 'data'", "'x'", "provided shape (2,2)",
       "inferred shape (3,)"});
}

TEST(InferShapeTest, VariableHintsAreUsedUnlessOverridden) {
  Symbol x = Var("x", Shape{0, 5}), y = Var("y", Shape{4, 0});
  pass::ShapeResult hinted = Infer(x + y);
  EXPECT_TRUE(hinted.complete());
  EXPECT_EQ(hinted.arg_shapes, (Shapes{{4, 5}, {4, 5}}));
  // A given shape replaces the hint (it is not merged with it).
  pass::ShapeResult given = Infer(x + y, {{"x", Shape{4, 0}}});
  EXPECT_FALSE(given.complete());
  EXPECT_EQ(given.arg_shapes, (Shapes{{4, 0}, {4, 0}}));
  test::ExpectWeftError(
      [&] {
        Infer(x + y, {{"x", Shape{3, 5}}});
      },
      StatusCode::kShape, {"(3,5)", "(4,0)"});
  Symbol bad = Symbol::CreateVariable(
      "bad", VariableHints{Shape(), DType::kUnknown, "", {}, {}, {{"__shape__", "(2,"}}});
  test::ExpectWeftError([&] { Infer(bad); }, StatusCode::kInvalidArgument,
                        {"variable 'bad'", "__shape__"});
  test::ExpectWeftError(
      [&] {
        Infer(x + y, {{"z", Shape{1}}});
      },
      StatusCode::kInvalidArgument, {"no input named 'z'", "x, y"});
}

TEST(InferShapeTest, MultipleOutputsAndAuxiliaryStates) {
  Symbol data = Var("data");
  Symbol bn = Op("BatchNorm", {data}, {}, "bn");
  Symbol split = Op("SliceChannel", {bn[0]}, {{"num_outputs", "3"}, {"axis", "1"}}, "split");
  pass::ShapeResult r = Infer(Symbol::Group({split, bn[1]}), {{"data", Shape{2, 6, 5}}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_shapes, (Shapes{{2, 6, 5}, {6}, {6}}));
  EXPECT_EQ(r.aux_shapes, (Shapes{{6}, {6}}));
  EXPECT_EQ(r.out_shapes, (Shapes{{2, 2, 5}, {2, 2, 5}, {2, 2, 5}, {6}}));
}

TEST(InferShapeTest, VariadicAndSourceOperators) {
  Symbol a = Var("a"), b = Var("b"), c = Var("c");
  Symbol s = Op("ElementWiseSum", {a, b, c}, {}, "s");
  pass::ShapeResult r = Infer(s, {{"b", Shape{0, 7}}, {"c", Shape{3, 0}}});
  EXPECT_EQ(r.arg_shapes, (Shapes{{3, 7}, {3, 7}, {3, 7}}));
  Symbol z = Op("_zeros", {}, {{"shape", "(2,3)"}}, "z");
  pass::ShapeResult zr = Infer(Op("elemwise_add", {z, Var("x")}));
  EXPECT_TRUE(zr.complete());
  EXPECT_EQ(zr.arg_shapes, (Shapes{Shape{2, 3}}));
}

TEST(InferShapeTest, RankZeroIsKnownAndUnknownRankIsNotGiven) {
  Symbol x = Var("x");
  pass::ShapeResult unknown_rank = Infer(x * 2.0, {{"x", Shape()}});
  EXPECT_FALSE(unknown_rank.complete());
  pass::ShapeResult scalar = Infer(x * 2.0, {{"x", Shape(std::vector<int64_t>{})}});
  EXPECT_TRUE(scalar.complete());
  EXPECT_EQ(scalar.out_shapes[0].ndim(), 0);
}

}  // namespace
}  // namespace weft
